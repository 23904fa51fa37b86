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

/* The offsets of every target, planar per target: 9 floats an entry. */
typedef struct morph_set {
  skn_morph_target targets[5];
  float weights[5];
  uint32_t count;
  float *offsets;
  uint32_t *vertices;
} morph_set;

/* Target `t` of n entries (vertices[i] for sparse ones, NULL dense), with
 * the attributes `attrs` asks (1 normals, 2 tangents), offsets of `scale`. */
static void add_target(morph_set *m, rng *r, const uint32_t *vertices, uint32_t n, int attrs, double scale, float w,
                       float *offsets) {
  skn_morph_target *t = &m->targets[m->count];
  for (uint32_t i = 0; i < n * 9; ++i) offsets[i] = (float)rng_uniform(r, -scale, scale);
  t->count = n;
  t->vertices = vertices;
  t->positions = (skn_attrib){offsets, 36};
  if (attrs & 1) t->normals = (skn_attrib){offsets + 3, 36};
  if (attrs & 2) t->tangents = (skn_attrib){offsets + 6, 36};
  m->weights[m->count++] = w;
}

static void make_morphs(morph_set *m, rng *r, uint32_t v, morph_mode mode, double size) {
  memset(m, 0, sizeof *m);
  m->offsets = malloc((size_t)v * 9 * 6 * sizeof(float));
  m->vertices = malloc((size_t)v * sizeof(uint32_t));
  uint32_t thirds = 0, few = 0, *third = m->vertices, *scattered = m->vertices + v / 2;
  for (uint32_t i = 1; i < v; i += 3) third[thirds++] = i;
  for (int64_t i = (int64_t)v - 2; i > 1 && few < 9; i -= 31) scattered[few++] = (uint32_t)i; /* descending: any order is allowed */
  float *o = m->offsets;
  double s = 0.05 * size;
  if (mode == MORPHS_SPARSE || mode == MORPHS_MIXED) {
    add_target(m, r, third, thirds, 3, s, 0.6f, o), o += (size_t)thirds * 9;
    add_target(m, r, third, thirds, 0, s, mode == MORPHS_MIXED ? 0.0f : -0.5f, o), o += (size_t)thirds * 9;
    add_target(m, r, scattered, few, 1, s, 1.7f, o), o += (size_t)few * 9;
  }
  if (mode == MORPHS_DENSE || mode == MORPHS_MIXED) {
    add_target(m, r, NULL, v, 3, s, 0.3f, o), o += (size_t)v * 9;
    add_target(m, r, NULL, v, 3, s, mode == MORPHS_MIXED ? -1.4f : 1.2f, o);
  }
}

int random_posed(posed *p, uint64_t seed, uint32_t joints, uint32_t vertices, uint32_t k, int scale_mode) {
  return random_morphed(p, seed, joints, vertices, k, scale_mode, MORPHS_NONE);
}

int random_morphed(posed *p, uint64_t seed, uint32_t joints, uint32_t vertices, uint32_t k, int scale_mode,
                   morph_mode mode) {
  test_rig t;
  test_rig_random(&t, seed, joints, vertices, k, scale_mode);
  rng r = {seed + 77};
  float *blend = malloc(vertices * sizeof *blend);
  uint32_t triangles = vertices / 3, *tri = malloc(triangles * 3 * sizeof *tri);
  for (uint32_t v = 0; v < vertices; ++v) blend[v] = v % 7 == 0 ? 0.0f : v % 7 == 1 ? 1.0f : (float)rng_uniform(&r, 0, 1);
  for (uint32_t i = 0; i < triangles * 3; ++i) tri[i] = i;
  for (uint32_t i = 0; i < k; ++i) t.weights[i] = 0; /* vertex 0 stays at rest */
  morph_set m;
  make_morphs(&m, &r, vertices, mode, t.size);
  skn_bind_desc d = test_rig_desc(&t);
  d.blend_weights = blend;
  d.triangles = tri;
  d.triangle_count = triangles;
  d.morph_targets = m.targets;
  d.morph_target_count = m.count;
  memset(p, 0, sizeof *p);
  int ok = skn_bind(&d, &p->rig) == SKN_OK && skn_pose_create(p->rig, &p->pose) == SKN_OK &&
           skn_pose_set_local(p->pose, 0, joints, t.pose) == SKN_OK &&
           skn_pose_set_morph_weights(p->pose, 0, m.count, m.weights) == SKN_OK;
  free(m.offsets);
  free(m.vertices);
  p->local = malloc(joints * sizeof *p->local);
  if (p->local) memcpy(p->local, t.pose, joints * sizeof *p->local);
  p->joint_count = joints;
  p->morph_count = m.count;
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
  free(p->local);
  skn_pose_destroy(p->pose);
  skn_rig_destroy(p->rig);
  memset(p, 0, sizeof *p);
}
