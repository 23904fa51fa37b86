/* reference.c — what every language adapter's tests compare with: the C
 * library's own output for a fixed set of inputs, written to a folder.
 *
 *   adapter_reference DIR [DATA]
 *
 * DIR/cases.txt lists the cases, one a line:
 *   proc NAME JOINTS VERTICES TRIANGLES     a procedural rig; its inputs are
 *                                           DIR/NAME.parents (int32), .bind_matrices,
 *                                           .positions, .normals, .tangents,
 *                                           .weights, .blend, .local (float32),
 *                                           .joints, .triangles (uint32); 4 influences
 *                                           a vertex; .local is 10 floats a joint
 *                                           (translation, rotation xyzw, scale)
 *   gltf NAME PATH PRIMITIVE ANIMATION TIME  a glTF model, bound with centers of
 *                                           rotation and blend weights (v % 5) / 4,
 *                                           posed at TIME (%.9g: the same float)
 *   run NAME METHOD SPLIT STATUS            a skn_skin call, threads = 1: with
 *                                           STATUS SKN_OK its outputs are in
 *                                           DIR/NAME.METHOD.SPLIT.positions (and
 *                                           .normals, .tangents where the rig has them)
 * Every adapter makes the same calls and must get the same status and the
 * same bits. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testlib.h"

static const char *const methods[] = {"LBS_MATRIX", "LBS_QUATERNION", "DQS", "BLEND", "COR"};
static const char *const splits[] = {"POLAR", "KEEP_Y"};

static const char *dir;
static FILE *cases;

static void die(const char *what, skn_status s) {
  fprintf(stderr, "adapter_reference: %s: %s: %s\n", what, skn_status_name(s), skn_last_error());
  exit(1);
}

static void write_file(const char *name, const char *ext, const void *data, size_t bytes) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s.%s", dir, name, ext);
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(data, 1, bytes, f) != bytes || fclose(f)) {
    fprintf(stderr, "adapter_reference: cannot write %s\n", path);
    exit(1);
  }
}

/* Every method and split the library has, on one rig and pose. */
static void runs(const char *name, const skn_rig *rig, const skn_pose *pose) {
  skn_rig_info info = {sizeof info};
  skn_rig_info_get(rig, &info);
  size_t n = info.vertex_count;
  float *p = malloc(n * 12), *nr = malloc(n * 12), *t = malloc(n * 16);
  for (int m = 0; m < 5; ++m)
    for (int s = 0; s < (m >= SKN_METHOD_DQS ? 2 : 1); ++s) {
      skn_skin_desc d = {sizeof d};
      d.method = (skn_method)m;
      d.dqs_scale = (skn_dqs_scale)s;
      d.threads = 1;
      d.positions.data = p;
      d.normals.data = info.flags & SKN_RIG_HAS_NORMALS ? nr : NULL;
      d.tangents.data = info.flags & SKN_RIG_HAS_TANGENTS ? t : NULL;
      skn_status st = skn_skin(rig, pose, &d);
      fprintf(cases, "run %s %s %s %s\n", name, methods[m], splits[s], skn_status_name(st));
      if (st) continue;
      char ext[64];
      snprintf(ext, sizeof ext, "%s.%s.positions", methods[m], splits[s]);
      write_file(name, ext, p, n * 12);
      if (d.normals.data) snprintf(ext, sizeof ext, "%s.%s.normals", methods[m], splits[s]), write_file(name, ext, nr, n * 12);
      if (d.tangents.data) snprintf(ext, sizeof ext, "%s.%s.tangents", methods[m], splits[s]), write_file(name, ext, t, n * 16);
    }
  free(p), free(nr), free(t);
}

/* A random rig of uniform scales (so LBS_QUATERNION serves it), with blend
 * weights and triangles so that every method does. */
static void procedural(const char *name, uint64_t seed, uint32_t joints, uint32_t vertices) {
  test_rig t;
  test_rig_random(&t, seed, joints, vertices, 4, 1);
  uint32_t tris = vertices - 2;
  uint32_t *triangles = malloc((size_t)tris * 12);
  float *blend = malloc((size_t)vertices * 4), *local = malloc((size_t)joints * 40);
  for (uint32_t i = 0; i < tris; ++i) triangles[3 * i] = i, triangles[3 * i + 1] = i + 1, triangles[3 * i + 2] = i + 2;
  for (uint32_t v = 0; v < vertices; ++v) blend[v] = (float)(v % 5) / 4.0f;
  for (uint32_t j = 0; j < joints; ++j) {
    memcpy(local + 10 * j, t.pose[j].translation, 12);
    memcpy(local + 10 * j + 3, t.pose[j].rotation, 16);
    memcpy(local + 10 * j + 7, t.pose[j].scale, 12);
  }
  skn_bind_desc d = test_rig_desc(&t);
  d.blend_weights = blend;
  d.triangles = triangles;
  d.triangle_count = tris;
  skn_rig *rig = NULL;
  skn_pose *pose = NULL;
  skn_status s = skn_bind(&d, &rig);
  if (s) die("bind", s);
  if ((s = skn_pose_create(rig, &pose)) || (s = skn_pose_set_local(pose, 0, joints, t.pose))) die("pose", s);
  fprintf(cases, "proc %s %u %u %u\n", name, joints, vertices, tris);
  write_file(name, "parents", t.parents, joints * 4u);
  write_file(name, "bind_matrices", t.bind, joints * 64u);
  write_file(name, "positions", t.positions, vertices * 12u);
  write_file(name, "normals", t.normals, vertices * 12u);
  write_file(name, "tangents", t.tangents, vertices * 16u);
  write_file(name, "joints", t.joints, vertices * 16u);
  write_file(name, "weights", t.weights, vertices * 16u);
  write_file(name, "blend", blend, vertices * 4u);
  write_file(name, "triangles", triangles, tris * 12u);
  write_file(name, "local", local, joints * 40u);
  runs(name, rig, pose);
  skn_pose_destroy(pose);
  skn_rig_destroy(rig);
  test_rig_free(&t);
  free(triangles), free(blend), free(local);
}

static void gltf(const char *name, const char *path) {
  skn_gltf *g = NULL;
  skn_status s = skn_gltf_open(path, &g);
  if (s) die(path, s);
  skn_gltf_primitive_info pi = {sizeof pi};
  skn_gltf_animation_info ai = {sizeof ai};
  skn_gltf_primitive_info_get(g, 0, &pi);
  skn_gltf_animation_info_get(g, 0, &ai);
  float *blend = malloc((size_t)pi.vertex_count * 4);
  for (uint32_t v = 0; v < pi.vertex_count; ++v) blend[v] = (float)(v % 5) / 4.0f;
  skn_gltf_bind_desc bd = {sizeof bd};
  bd.centers_of_rotation = 1;
  bd.blend_weights = blend;
  skn_rig *rig = NULL;
  skn_pose *pose = NULL;
  float time = ai.start + (ai.end - ai.start) * 0.4f;
  if ((s = skn_gltf_bind(g, &bd, &rig)) || (s = skn_pose_create(rig, &pose)) || (s = skn_gltf_pose(g, 0, 0, time, pose)))
    die(path, s);
  fprintf(cases, "gltf %s %s 0 0 %.9g\n", name, path, time);
  runs(name, rig, pose);
  skn_pose_destroy(pose);
  skn_rig_destroy(rig);
  skn_gltf_close(g);
  free(blend);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: adapter_reference DIR [DATA]\n");
    return 2;
  }
  dir = argv[1];
  const char *data = argc > 2 ? argv[2] : "data/gltf";
  char path[1024], cases_path[1024];
  snprintf(cases_path, sizeof cases_path, "%s/cases.txt", dir);
  if (!(cases = fopen(cases_path, "w"))) {
    fprintf(stderr, "adapter_reference: cannot write %s\n", cases_path);
    return 1;
  }
  procedural("proc", 2811, 9, 300);
  const char *models[][2] = {{"SimpleSkin", "SimpleSkin/glTF-Embedded/SimpleSkin.gltf"},
                             {"RiggedSimple", "RiggedSimple/glTF/RiggedSimple.gltf"},
                             {"Fox", "Fox/glTF-Binary/Fox.glb"}};
  for (int i = 0; i < 3; ++i) {
    snprintf(path, sizeof path, "%s/%s", data, models[i][1]);
    char *absolute = realpath(path, NULL); /* the adapters' tests run from their own folders */
    if (!absolute) {
      fprintf(stderr, "adapter_reference: no %s\n", path);
      return 1;
    }
    gltf(models[i][0], absolute);
    free(absolute);
  }
  return fclose(cases) != 0;
}
