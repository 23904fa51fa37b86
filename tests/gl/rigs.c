/* rigs.c — see rigs.h. */
#include "rigs.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static double extent(const float *pos, uint32_t n) {
  double lo[3] = {1e30, 1e30, 1e30}, hi[3] = {-1e30, -1e30, -1e30}, s = 0;
  for (uint32_t v = 0; v < n; ++v)
    for (int c = 0; c < 3; ++c) lo[c] = fmin(lo[c], pos[v * 3 + c]), hi[c] = fmax(hi[c], pos[v * 3 + c]);
  for (int c = 0; c < 3; ++c) s += (hi[c] - lo[c]) * (hi[c] - lo[c]);
  return sqrt(s);
}

int random_posed(posed *p, uint64_t seed, uint32_t joints, uint32_t vertices, uint32_t k, int scale_mode) {
  test_rig t;
  test_rig_random(&t, seed, joints, vertices, k, scale_mode);
  rng r = {seed + 77};
  float *blend = malloc(vertices * sizeof *blend);
  uint32_t triangles = vertices / 3, *tri = malloc(triangles * 3 * sizeof *tri);
  for (uint32_t v = 0; v < vertices; ++v) blend[v] = v % 7 == 0 ? 0.0f : v % 7 == 1 ? 1.0f : (float)rng_uniform(&r, 0, 1);
  for (uint32_t i = 0; i < triangles * 3; ++i) tri[i] = i;
  for (uint32_t i = 0; i < k; ++i) t.weights[i] = 0; /* vertex 0 stays at rest */
  skn_bind_desc d = test_rig_desc(&t);
  d.blend_weights = blend;
  d.triangles = tri;
  d.triangle_count = triangles;
  memset(p, 0, sizeof *p);
  int ok = skn_bind(&d, &p->rig) == SKN_OK && skn_pose_create(p->rig, &p->pose) == SKN_OK &&
           skn_pose_set_local(p->pose, 0, joints, t.pose) == SKN_OK;
  if (!ok) fprintf(stderr, "random rig: %s\n", skn_last_error());
  p->vertex_count = vertices;
  p->has_normals = p->has_tangents = 1;
  p->size = t.size;
  test_rig_free(&t);
  free(blend);
  free(tri);
  return ok;
}

int gltf_posed(posed *p, const char *path, float time) {
  skn_gltf *g = NULL;
  skn_gltf_primitive_info pi = {sizeof pi};
  memset(p, 0, sizeof *p);
  if (skn_gltf_open(path, &g) || skn_gltf_primitive_info_get(g, 0, &pi)) {
    fprintf(stderr, "%s: %s\n", path, skn_last_error());
    skn_gltf_close(g);
    return 0;
  }
  float *blend = malloc(pi.vertex_count * sizeof *blend);
  for (uint32_t v = 0; v < pi.vertex_count; ++v) blend[v] = (float)(v % 11) / 10.0f;
  skn_gltf_bind_desc bd = {sizeof bd};
  bd.centers_of_rotation = 1;
  bd.blend_weights = blend;
  int ok = skn_gltf_bind(g, &bd, &p->rig) == SKN_OK && skn_pose_create(p->rig, &p->pose) == SKN_OK &&
           skn_gltf_pose(g, 0, 0, time, p->pose) == SKN_OK;
  if (!ok) fprintf(stderr, "%s: %s\n", path, skn_last_error());
  p->vertex_count = pi.vertex_count;
  p->has_normals = (pi.flags & SKN_GLTF_HAS_NORMALS) != 0;
  p->has_tangents = (pi.flags & SKN_GLTF_HAS_TANGENTS) != 0;
  float *pos = malloc(pi.vertex_count * 3 * sizeof *pos);
  skn_skin_desc sd = {sizeof sd};
  sd.positions.data = pos;
  if (ok) ok = skn_skin(p->rig, p->pose, &sd) == SKN_OK;
  p->size = extent(pos, pi.vertex_count);
  free(pos);
  free(blend);
  skn_gltf_close(g);
  return ok;
}

void posed_free(posed *p) {
  skn_pose_destroy(p->pose);
  skn_rig_destroy(p->rig);
  memset(p, 0, sizeof *p);
}
