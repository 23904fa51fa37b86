/* arm_gltf.c — writes the procedural arm of arm.h as a glTF 2.0 file, so that
 * `skn render` can show the methods on it: `arm_gltf OUT.gltf`. Buffers are
 * embedded as a base64 data: URI. Its animations:
 *   "twist"  the elbow turns 0° -> 90° -> 180° about the forearm (LINEAR)
 *   "bend"   the elbow bends 0° -> 45° -> 90° (LINEAR)
 *   "step"   a 90° bend held from 0.5 s (STEP)
 *   "cubic"  a 90° bend by a CUBICSPLINE with zero tangents (ease in, ease out) */
#include "arm.h"

#include <stdio.h>
#include <string.h>

static const char B64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static void put_base64(FILE *f, const unsigned char *p, size_t n) {
  for (size_t i = 0; i < n; i += 3) {
    unsigned v = p[i] << 16 | (i + 1 < n ? p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);
    fputc(B64[v >> 18 & 63], f);
    fputc(B64[v >> 12 & 63], f);
    fputc(i + 1 < n ? B64[v >> 6 & 63] : '=', f);
    fputc(i + 2 < n ? B64[v & 63] : '=', f);
  }
}

/* The buffer: one region after another, each recorded as a bufferView. */
typedef struct blob { unsigned char *data; size_t size, views[32][2]; int view_count; } blob;

static int add(blob *b, const void *p, size_t n) {
  b->data = realloc(b->data, b->size + n);
  memcpy(b->data + b->size, p, n);
  b->views[b->view_count][0] = b->size;
  b->views[b->view_count][1] = n;
  b->size += n;
  return b->view_count++;
}

static void quat_z(float q[4], double a) { q[0] = q[1] = 0, q[2] = (float)sin(a / 2), q[3] = (float)cos(a / 2); }
static void quat_x(float q[4], double a) { q[1] = q[2] = 0, q[0] = (float)sin(a / 2), q[3] = (float)cos(a / 2); }

int main(int argc, char **argv) {
  static const char *const USAGE = "usage: arm_gltf OUT.gltf   (the procedural arm, as make writes build/data/arm.gltf)\n";
  if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) return fputs(USAGE, stdout), 0;
  /* an option is never a file name: `arm_gltf --help` once wrote a glTF file named "--help" */
  if (argc != 2 || argv[1][0] == '-') return fputs(USAGE, stderr), 2;
  skn_arm arm;
  if (!skn_arm_make(&arm, 41, 32, 0.25f)) return 1;
  const double pi = 3.14159265358979323846;
  uint32_t n = arm.vertex_count;
  uint16_t *joints = calloc((size_t)n * 4, sizeof *joints);
  float *weights = calloc((size_t)n * 4, sizeof *weights);
  for (uint32_t v = 0; v < n; ++v) {
    joints[v * 4 + 1] = 1;
    weights[v * 4] = arm.weights[v * 2];
    weights[v * 4 + 1] = arm.weights[v * 2 + 1];
  }
  float ibm[32] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -arm.length, 0, 0, 1};
  float times[3] = {0, 0.5f, 1}, twist[12], bend[12], step[8], cubic[24] = {0}, step_times[2] = {0, 0.5f}, cubic_times[2] = {0, 1};
  for (int k = 0; k < 3; ++k) {
    quat_x(twist + k * 4, pi / 2 * k);
    quat_z(bend + k * 4, pi / 4 * k);
  }
  quat_z(step, 0);
  quat_z(step + 4, pi / 2);
  quat_z(cubic + 4, 0); /* in-tangent, value, out-tangent per key; tangents zero */
  quat_z(cubic + 16, pi / 2);
  blob b = {0};
  int v_pos = add(&b, arm.positions, (size_t)n * 12), v_nrm = add(&b, arm.normals, (size_t)n * 12);
  int v_jnt = add(&b, joints, (size_t)n * 8), v_wgt = add(&b, weights, (size_t)n * 16);
  int v_idx = add(&b, arm.triangles, (size_t)arm.triangle_count * 12), v_ibm = add(&b, ibm, sizeof ibm);
  int v_t = add(&b, times, sizeof times), v_tw = add(&b, twist, sizeof twist), v_bd = add(&b, bend, sizeof bend);
  int v_st = add(&b, step_times, sizeof step_times), v_sv = add(&b, step, sizeof step);
  int v_ct = add(&b, cubic_times, sizeof cubic_times), v_cv = add(&b, cubic, sizeof cubic);
  FILE *f = fopen(argv[1], "w");
  if (!f) return perror(argv[1]), 1;
  fprintf(f, "{\"asset\": {\"version\": \"2.0\", \"generator\": \"skn arm_gltf\"},\n \"scene\": 0, \"scenes\": [{\"nodes\": [0, 1]}],\n");
  fprintf(f, " \"nodes\": [{\"name\": \"arm\", \"mesh\": 0, \"skin\": 0}, {\"name\": \"shoulder\", \"children\": [2]},"
             " {\"name\": \"elbow\", \"translation\": [%g, 0, 0]}],\n", arm.length);
  fprintf(f, " \"meshes\": [{\"name\": \"arm\", \"primitives\": [{\"attributes\": {\"POSITION\": 0, \"NORMAL\": 1, "
             "\"JOINTS_0\": 2, \"WEIGHTS_0\": 3}, \"indices\": 4}]}],\n");
  fprintf(f, " \"skins\": [{\"joints\": [1, 2], \"inverseBindMatrices\": 5, \"skeleton\": 1}],\n");
  fprintf(f, " \"animations\": [");
  const char *names[4] = {"twist", "bend", "step", "cubic"}, *interp[4] = {"LINEAR", "LINEAR", "STEP", "CUBICSPLINE"};
  int inputs[4] = {6, 6, 9, 11}, outputs[4] = {7, 8, 10, 12};
  for (int a = 0; a < 4; ++a)
    fprintf(f, "%s\n  {\"name\": \"%s\", \"channels\": [{\"sampler\": 0, \"target\": {\"node\": 2, \"path\": \"rotation\"}}],"
               " \"samplers\": [{\"input\": %d, \"output\": %d, \"interpolation\": \"%s\"}]}", a ? "," : "", names[a],
            inputs[a], outputs[a], interp[a]);
  fprintf(f, "],\n \"accessors\": [\n");
  fprintf(f, "  {\"bufferView\": %d, \"componentType\": 5126, \"count\": %u, \"type\": \"VEC3\", \"min\": [0, %g, %g], \"max\": [%g, %g, %g]},\n",
          v_pos, n, -arm.radius, -arm.radius, 2 * arm.length, arm.radius, arm.radius);
  fprintf(f, "  {\"bufferView\": %d, \"componentType\": 5126, \"count\": %u, \"type\": \"VEC3\"},\n", v_nrm, n);
  fprintf(f, "  {\"bufferView\": %d, \"componentType\": 5123, \"count\": %u, \"type\": \"VEC4\"},\n", v_jnt, n);
  fprintf(f, "  {\"bufferView\": %d, \"componentType\": 5126, \"count\": %u, \"type\": \"VEC4\"},\n", v_wgt, n);
  fprintf(f, "  {\"bufferView\": %d, \"componentType\": 5125, \"count\": %u, \"type\": \"SCALAR\"},\n", v_idx, arm.triangle_count * 3);
  fprintf(f, "  {\"bufferView\": %d, \"componentType\": 5126, \"count\": 2, \"type\": \"MAT4\"},\n", v_ibm);
  fprintf(f, "  {\"bufferView\": %d, \"componentType\": 5126, \"count\": 3, \"type\": \"SCALAR\", \"min\": [0], \"max\": [1]},\n", v_t);
  fprintf(f, "  {\"bufferView\": %d, \"componentType\": 5126, \"count\": 3, \"type\": \"VEC4\"},\n", v_tw);
  fprintf(f, "  {\"bufferView\": %d, \"componentType\": 5126, \"count\": 3, \"type\": \"VEC4\"},\n", v_bd);
  fprintf(f, "  {\"bufferView\": %d, \"componentType\": 5126, \"count\": 2, \"type\": \"SCALAR\", \"min\": [0], \"max\": [0.5]},\n", v_st);
  fprintf(f, "  {\"bufferView\": %d, \"componentType\": 5126, \"count\": 2, \"type\": \"VEC4\"},\n", v_sv);
  fprintf(f, "  {\"bufferView\": %d, \"componentType\": 5126, \"count\": 2, \"type\": \"SCALAR\", \"min\": [0], \"max\": [1]},\n", v_ct);
  fprintf(f, "  {\"bufferView\": %d, \"componentType\": 5126, \"count\": 6, \"type\": \"VEC4\"}],\n", v_cv);
  fprintf(f, " \"bufferViews\": [");
  for (int v = 0; v < b.view_count; ++v)
    fprintf(f, "%s\n  {\"buffer\": 0, \"byteOffset\": %zu, \"byteLength\": %zu}", v ? "," : "", b.views[v][0], b.views[v][1]);
  fprintf(f, "],\n \"buffers\": [{\"byteLength\": %zu, \"uri\": \"data:application/octet-stream;base64,", b.size);
  put_base64(f, b.data, b.size);
  fprintf(f, "\"}]}\n");
  fclose(f);
  free(b.data);
  free(joints);
  free(weights);
  skn_arm_free(&arm);
  return 0;
}
