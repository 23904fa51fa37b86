/* capture.c — the GPU's skinning as numbers: skn_gl with a vertex main that
 * writes skn_skin_position/normal/tangent to outputs captured by transform
 * feedback, points drawn with the rasterizer off; and its comparison with
 * skn_skin on the same rig and pose. */
#include "gltest.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

skn_gl_api gl;
skn_egl_api gl_context_api;

/* The vertex main for the outputs asked: each skn_skin_* result to an output. */
static const char *capture_main(uint32_t outputs) {
  static const char *const MAINS[4] = {
      "in vec3 skn_rest_position;\nout vec3 out_position;\n"
      "void main() { out_position = skn_skin_position(skn_rest_position); gl_Position = vec4(out_position, 1.0); }\n",
      "in vec3 skn_rest_position;\nin vec3 skn_rest_normal;\nout vec3 out_position;\nout vec3 out_normal;\n"
      "void main() {\n  out_position = skn_skin_position(skn_rest_position);\n"
      "  out_normal = skn_skin_normal(skn_rest_normal);\n  gl_Position = vec4(out_position, 1.0);\n}\n",
      "in vec3 skn_rest_position;\nin vec4 skn_rest_tangent;\nout vec3 out_position;\nout vec4 out_tangent;\n"
      "void main() {\n  out_position = skn_skin_position(skn_rest_position);\n"
      "  out_tangent = skn_skin_tangent(skn_rest_tangent);\n  gl_Position = vec4(out_position, 1.0);\n}\n",
      "in vec3 skn_rest_position;\nin vec3 skn_rest_normal;\nin vec4 skn_rest_tangent;\n"
      "out vec3 out_position;\nout vec3 out_normal;\nout vec4 out_tangent;\n"
      "void main() {\n  out_position = skn_skin_position(skn_rest_position);\n"
      "  out_normal = skn_skin_normal(skn_rest_normal);\n  out_tangent = skn_skin_tangent(skn_rest_tangent);\n"
      "  gl_Position = vec4(out_position, 1.0);\n}\n"};
  return MAINS[outputs & 3];
}

/* Draws n points, with the program and vertex array bound, into a
 * transform feedback buffer of `floats` a vertex and copies it out. */
int capture_points(uint32_t n, uint32_t floats, float *out) {
  GLuint buffer;
  size_t bytes = (size_t)n * floats * sizeof(float);
  gl.GenBuffers(1, &buffer);
  gl.BindBuffer(GL_TRANSFORM_FEEDBACK_BUFFER, buffer);
  gl.BufferData(GL_TRANSFORM_FEEDBACK_BUFFER, (GLsizeiptr)bytes, NULL, GL_STREAM_READ);
  gl.BindBufferBase(GL_TRANSFORM_FEEDBACK_BUFFER, 0, buffer);
  gl.Enable(GL_RASTERIZER_DISCARD);
  gl.BeginTransformFeedback(GL_POINTS);
  gl.DrawArrays(GL_POINTS, 0, (GLsizei)n);
  gl.EndTransformFeedback();
  gl.Disable(GL_RASTERIZER_DISCARD);
  const float *mapped = gl.MapBufferRange(GL_TRANSFORM_FEEDBACK_BUFFER, 0, (GLsizeiptr)bytes, GL_MAP_READ_BIT);
  if (mapped) memcpy(out, mapped, bytes);
  gl.UnmapBuffer(GL_TRANSFORM_FEEDBACK_BUFFER);
  gl.BindBufferBase(GL_TRANSFORM_FEEDBACK_BUFFER, 0, 0);
  gl.DeleteBuffers(1, &buffer);
  GLenum e = gl.GetError();
  if (e) fprintf(stderr, "   transform feedback: %s\n", skn_gl_error_name(e));
  return mapped && !e;
}

/* The rig's vertices through the adapter's program, captured. */
static int feedback(const skn_gl *g, uint32_t n, uint32_t floats, float *out) {
  skn_gl_bind(g);
  return capture_points(n, floats, out);
}

int read_output(const skn_gl *g, size_t first_record, uint32_t n, float *pos, float *nrm, float *tan, float *prev) {
  skn_gl_info info = {sizeof info};
  if (skn_gl_info_get(g, &info) != SKN_OK || info.path != SKN_GL_PATH_COMPUTE) return 0;
  uint32_t f = info.output_floats;
  GLint previous = 0;
  gl.GetIntegerv(GL_ARRAY_BUFFER_BINDING, &previous);
  gl.BindBuffer(GL_ARRAY_BUFFER, info.output_buffer);
  size_t first = first_record * f * sizeof(float);
  const float *m = gl.MapBufferRange(GL_ARRAY_BUFFER, (GLintptr)first, (GLsizeiptr)((size_t)n * f * sizeof(float)),
                                     GL_MAP_READ_BIT);
  for (uint32_t v = 0; m && v < n; ++v) {
    const float *r = m + (size_t)v * f;
    if (pos) memcpy(pos + v * 3, r, 12);
    if (nrm && info.output_normal != SKN_GPU_ABSENT) memcpy(nrm + v * 3, r + info.output_normal, 12);
    if (tan && info.output_tangent != SKN_GPU_ABSENT) memcpy(tan + v * 4, r + info.output_tangent, 16);
    if (prev && info.output_previous != SKN_GPU_ABSENT) memcpy(prev + v * 3, r + info.output_previous, 12);
  }
  if (m) gl.UnmapBuffer(GL_ARRAY_BUFFER);
  gl.BindBuffer(GL_ARRAY_BUFFER, (GLuint)previous);
  GLenum e = gl.GetError();
  if (e) fprintf(stderr, "   reading the output: %s\n", skn_gl_error_name(e));
  return m && !e;
}

skn_status gpu_skin(const posed *p, const gpu_case *c, float *pos, float *nrm, float *tan, skn_gl_info *info) {
  static const char *const ALL[3] = {"out_position", "out_normal", "out_tangent"};
  const char *varyings[3];
  uint32_t count = 0, floats = 3;
  varyings[count++] = ALL[0];
  if (c->outputs & SKN_GPU_NORMALS) varyings[count++] = ALL[1], floats += 3;
  if (c->outputs & SKN_GPU_TANGENTS) varyings[count++] = ALL[2], floats += 4;
  skn_gl_desc d = {sizeof d};
  d.loader = skn_egl_loader;
  d.method = c->method;
  d.dqs_scale = c->split;
  d.influences = c->influences;
  d.outputs = c->outputs;
  d.palette = c->palette;
  d.joint_bits = c->joint_bits;
  d.vertex_main = capture_main(c->outputs);
  d.feedback_varyings = varyings;
  d.feedback_count = count;
  d.path = c->compute ? SKN_GL_PATH_COMPUTE : SKN_GL_PATH_VERTEX;
  skn_gl *g = NULL;
  skn_status s = skn_gl_create(p->rig, &d, &g);
  if (s == SKN_OK) s = skn_gl_update(g, p->pose);
  float *out = s == SKN_OK ? malloc((size_t)p->vertex_count * floats * sizeof(float)) : NULL;
  if (s == SKN_OK && c->compute == 1) {
    s = read_output(g, 0, p->vertex_count, pos, nrm, tan, NULL) ? SKN_OK : SKN_ERR_UNSUPPORTED;
  } else if (s == SKN_OK && (!out || !feedback(g, p->vertex_count, floats, out))) {
    s = SKN_ERR_UNSUPPORTED;
  }
  for (uint32_t v = 0; s == SKN_OK && c->compute != 1 && v < p->vertex_count; ++v) {
    const float *r = out + (size_t)v * floats;
    memcpy(pos + v * 3, r, 3 * sizeof(float)), r += 3;
    if (c->outputs & SKN_GPU_NORMALS) memcpy(nrm + v * 3, r, 3 * sizeof(float)), r += 3;
    if (c->outputs & SKN_GPU_TANGENTS) memcpy(tan + v * 4, r, 4 * sizeof(float));
  }
  if (s == SKN_OK && info) skn_gl_info_get(g, info);
  free(out);
  skn_gl_destroy(g);
  return s;
}

static double max_diff(const float *a, const float *b, size_t n, size_t width, size_t used) {
  double m = 0;
  for (size_t i = 0; i < n; ++i)
    for (size_t c = 0; c < used; ++c) {
      double d = fabs((double)a[i * width + c] - b[i * width + c]);
      m = d > m || d != d ? d : m;
    }
  return m;
}

skin_diff compare_case(const posed *p, const gpu_case *c, skn_gl_info *info) {
  size_t n = p->vertex_count;
  float *cpu = malloc(n * 20 * sizeof(float)), *gpu = malloc(n * 20 * sizeof(float));
  float *cp = cpu, *cn = cpu + n * 3, *ct = cpu + n * 6, *gp = gpu, *gn = gpu + n * 3, *gt = gpu + n * 6;
  skin_diff d = {1e30, 0, 0, 0};
  skn_skin_desc s = {sizeof s};
  s.method = c->method;
  s.dqs_scale = c->split;
  s.positions.data = cp;
  if (c->outputs & SKN_GPU_NORMALS) s.normals.data = cn;
  if (c->outputs & SKN_GPU_TANGENTS) s.tangents.data = ct;
  if (skn_skin(p->rig, p->pose, &s) != SKN_OK) {
    fprintf(stderr, "   skn_skin: %s\n", skn_last_error());
  } else if (gpu_skin(p, c, gp, gn, gt, info) != SKN_OK) {
    fprintf(stderr, "   gpu: %s\n", skn_last_error());
  } else {
    d.position = max_diff(cp, gp, n, 3, 3) / p->size;
    if (c->outputs & SKN_GPU_NORMALS) d.normal = max_diff(cn, gn, n, 3, 3);
    if (c->outputs & SKN_GPU_TANGENTS) {
      d.tangent = max_diff(ct, gt, n, 4, 3);
      for (size_t v = 0; v < n; ++v) d.tangent_w += ct[v * 4 + 3] != gt[v * 4 + 3];
    }
  }
  free(cpu);
  free(gpu);
  return d;
}

/* ---- counting ---- */

static int passed, failed;
static skin_diff worst[2][5]; /* by path (vertex, compute) and method */

void check(int ok, const char *fmt, ...) {
  if (ok) {
    ++passed;
    return;
  }
  ++failed;
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "FAIL ");
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n");
  va_end(ap);
}

void check_diff(const skin_diff *d, const gpu_case *c, const char *what) {
  skin_diff *w = &worst[c->compute != 0][c->method];
  w->position = fmax(w->position, d->position);
  w->normal = fmax(w->normal, d->normal);
  w->tangent = fmax(w->tangent, d->tangent);
  w->tangent_w += d->tangent_w;
  check(d->position <= 1e-5 && d->normal <= 1e-5 && d->tangent <= 1e-5 && !d->tangent_w,
        "%s: %s k=%u outputs=%u palette=%d split=%d: position %.3g of the size, normal %.3g, tangent %.3g, "
        "%u tangent w differ", what, method_name(c->method), c->influences, c->outputs, (int)c->palette,
        (int)c->split, d->position, d->normal, d->tangent, d->tangent_w);
}

const char *method_name(skn_method m) {
  static const char *const NAMES[] = {"LBS_MATRIX", "LBS_QUATERNION", "DQS", "BLEND", "COR"};
  return (unsigned)m < 5 ? NAMES[m] : "?";
}

/* ---- the program ---- */

static void run_in_context(skn_egl_api api, const char *corpus) {
  skn_egl_desc ed = {sizeof ed};
  ed.api = api;
  skn_egl *egl = NULL;
  if (skn_egl_create(&ed, &egl) != SKN_OK) {
    check(0, "no %s context: %s", api ? "OpenGL ES (3.0 or later)" : "OpenGL core (3.3 or later)", skn_last_error());
    return;
  }
  skn_gl_api_load(&gl, skn_egl_loader);
  gl_context_api = api;
  printf("%s context on EGL's %s platform: %s, %s\n", api ? "OpenGL ES" : "OpenGL core",
         skn_egl_platform(egl), (const char *)gl.GetString(GL_RENDERER), (const char *)gl.GetString(GL_VERSION));
  struct { const char *name; void (*run)(void); } SUITES[] = {
      {"variants", test_variants}, {"models", test_models}, {"errors", test_errors}, {"compute", test_compute},
      {"vat", test_vat}};
  for (int k = 0; k < 5; ++k) {
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    SUITES[k].run();
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("  %s: %.1f s\n", SUITES[k].name, (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));
  }
  if (corpus) test_corpus(corpus);
  skn_egl_destroy(egl);
}

/* tests/gl [CORPUS]: with the glTF corpus's folder, the compute path on its
 * skinned files too (in the OpenGL context). */
int main(int argc, char **argv) {
  run_in_context(SKN_EGL_OPENGL, argc > 1 ? argv[1] : NULL);
  run_in_context(SKN_EGL_OPENGL_ES, NULL);
  printf("worst GPU - CPU differences (positions over the model's size; unit normals and tangents):\n");
  for (int path = 0; path < 2; ++path)
    for (int m = 0; m < 5; ++m)
      printf("  %-7s %-15s position %.2e  normal %.2e  tangent %.2e  tangent w differing %u\n",
             path ? "compute" : "vertex", method_name((skn_method)m), worst[path][m].position, worst[path][m].normal,
             worst[path][m].tangent, worst[path][m].tangent_w);
  printf("gl: %d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
