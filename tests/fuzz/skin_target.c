/* skin_target.c — poses and skin calls on valid rigs. The first bytes pick
 * a rig (up to 40 joints, 300 vertices, 1 to 8 influences, normals and
 * tangents, blend weights and triangles, full or compact); the rest drive a
 * run of calls: local transforms (NaN, zero quaternions and huge scales
 * among them), model matrices, vertex ranges, strides, methods, splits,
 * stores, threads and instruction sets. Every output is guarded, a refused
 * call must leave it untouched, and the same call twice must give the same
 * bits (a kernel that read memory it does not own would not). */
#include "fuzz.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct rig_case {
  skn_rig *rig;
  skn_pose *pose;
  uint32_t joints, vertices;
} rig_case;

/* A chain of joints along x, vertices near it, k influences each. */
static int make_rig(rig_case *c, fuzz_input *in) {
  uint32_t joints = 1 + fuzz_u8(in) % 40, n = 1 + fuzz_u8(in) % 300, k = 1 + fuzz_u8(in) % 8, flags = fuzz_u8(in);
  int32_t *parents = malloc(joints * sizeof *parents);
  float *bind = calloc((size_t)joints * 16, sizeof *bind), *pos = malloc((size_t)n * 12), *nrm = malloc((size_t)n * 12);
  float *tan = malloc((size_t)n * 16), *w = malloc((size_t)n * k * 4), *blend = malloc((size_t)n * 4);
  uint32_t *jj = malloc((size_t)n * k * 4), *tri = malloc((size_t)n * 12);
  if (!parents || !bind || !pos || !nrm || !tan || !w || !blend || !jj || !tri) fuzz_fail("out of memory");
  for (uint32_t j = 0; j < joints; ++j) {
    parents[j] = j ? (int32_t)(fuzz_u8(in) % j) : -1;
    float *m = bind + j * 16;
    m[0] = m[5] = m[10] = m[15] = 1;
    m[12] = (float)j;
  }
  for (uint32_t v = 0; v < n; ++v) {
    float x = (float)v * joints / n;
    float p[3] = {x, (float)(int8_t)fuzz_u8(in) / 64.0f, 0.3f}, q[3] = {0, 0.6f, 0.8f}, t[4] = {1, 0, 0, v % 2 ? 1.0f : -1.0f};
    memcpy(pos + v * 3, p, 12), memcpy(nrm + v * 3, q, 12), memcpy(tan + v * 4, t, 16);
    for (uint32_t i = 0; i < k; ++i) jj[v * k + i] = fuzz_u8(in) % joints, w[v * k + i] = 0.05f + fuzz_u8(in) / 255.0f;
    blend[v] = fuzz_u8(in) / 255.0f;
    tri[v * 3] = v, tri[v * 3 + 1] = (v + 1) % n, tri[v * 3 + 2] = (v + 2) % n;
  }
  skn_bind_desc d = {sizeof d};
  d.joint_count = joints, d.parents = parents, d.bind_matrices = bind, d.vertex_count = n;
  d.positions.data = pos, d.normals.data = flags & 1 ? nrm : NULL, d.tangents.data = flags & 2 ? tan : NULL;
  d.influences_per_vertex = k, d.influence_joints = jj, d.influence_weights = w;
  d.blend_weights = flags & 4 ? blend : NULL;
  d.triangles = flags & 8 ? tri : NULL, d.triangle_count = flags & 8 ? n : 0;
  d.layout = flags & 16 ? SKN_LAYOUT_COMPACT : SKN_LAYOUT_FULL;
  d.max_influences = flags >> 5;
  int ok = skn_bind(&d, &c->rig) == SKN_OK && skn_pose_create(c->rig, &c->pose) == SKN_OK;
  c->joints = joints, c->vertices = n;
  free(parents), free(bind), free(pos), free(nrm), free(tan), free(w), free(blend), free(jj), free(tri);
  return ok;
}

static void pose_from(rig_case *c, fuzz_input *in) {
  uint32_t first = fuzz_u8(in) % c->joints, count = 1 + fuzz_u8(in) % (c->joints - first);
  if (fuzz_u8(in) < 200) {
    skn_transform t[40];
    for (uint32_t j = 0; j < count; ++j) {
      float f[10];
      for (int e = 0; e < 10; ++e) f[e] = fuzz_float(in);
      if (fuzz_u8(in) < 128) f[7] = f[8] = f[9] = 1; /* often a rotation and a translation */
      memcpy(&t[j], f, sizeof f);
    }
    skn_pose_set_local(c->pose, first, count, t);
  } else {
    float m[40 * 16];
    for (uint32_t j = 0; j < count; ++j)
      for (int e = 0; e < 16; ++e) m[j * 16 + e] = e % 4 == 3 ? (e == 15) : fuzz_float(in);
    skn_pose_set_model(c->pose, first, count, m);
  }
}

/* One skin call as the bytes say, twice, into guarded outputs. */
static void skin_from(rig_case *c, fuzz_input *in) {
  skn_rig_info info = {sizeof info};
  skn_rig_info_get(c->rig, &info);
  skn_skin_desc d = {sizeof d};
  d.method = (skn_method)(fuzz_u8(in) % 6); /* 5: not a method */
  d.dqs_scale = (skn_dqs_scale)(fuzz_u8(in) % 2);
  d.stores = (skn_stores)(fuzz_u8(in) % 3);
  d.threads = fuzz_u8(in) % 3;
  d.first_vertex = fuzz_u8(in) % (c->vertices + 1);
  d.vertex_count = fuzz_u8(in) % (c->vertices + 1);
  uint32_t pad = 4 * (fuzz_u8(in) % 3), wants = fuzz_u8(in);
  size_t n = c->vertices;
  guarded g[3], h[3];
  void *a[3], *b[3];
  for (int o = 0; o < 3; ++o) {
    size_t width = o == 2 ? 16 : 12, stride = width + pad;
    a[o] = guarded_alloc(&g[o], (n - 1) * stride + width);
    b[o] = guarded_alloc(&h[o], (n - 1) * stride + width);
  }
  uint32_t stride[3] = {pad ? 12 + pad : 0, pad ? 12 + pad : 0, pad ? 16 + pad : 0};
  int use[3] = {1, (info.flags & SKN_RIG_HAS_NORMALS) && (wants & 1), (info.flags & SKN_RIG_HAS_TANGENTS) && (wants & 2)};
  skn_out_attrib *outs[3] = {&d.positions, &d.normals, &d.tangents};
  for (int o = 0; o < 3; ++o) *outs[o] = use[o] ? (skn_out_attrib){a[o], stride[o]} : (skn_out_attrib){NULL, 0};
  skn_status s = skn_skin(c->rig, c->pose, &d);
  for (int o = 0; o < 3; ++o) *outs[o] = use[o] ? (skn_out_attrib){b[o], stride[o]} : (skn_out_attrib){NULL, 0};
  skn_status s2 = skn_skin(c->rig, c->pose, &d);
  if (s != s2) fuzz_fail("the same skin call returned %d, then %d", s, s2);
  for (int o = 0; o < 3; ++o) {
    guarded_check(&g[o], s != SKN_OK || !use[o], "skin output");
    guarded_check(&h[o], s != SKN_OK || !use[o], "skin output, again");
    if (memcmp(g[o].block, h[o].block, g[o].size + 128)) fuzz_fail("the same skin call wrote other bits");
    guarded_free(&g[o]), guarded_free(&h[o]);
  }
}

int skn_fuzz_skin(const uint8_t *data, size_t size) {
  fuzz_input in = {data, size, 0};
  rig_case c = {0};
  static const skn_simd SETS[4] = {SKN_SIMD_SCALAR, SKN_SIMD_PORTABLE, SKN_SIMD_AVX2, SKN_SIMD_AVX512};
  if (skn_set_simd(SETS[fuzz_u8(&in) % 4]) != SKN_OK) skn_set_simd(SKN_SIMD_AUTO);
  if (make_rig(&c, &in))
    for (int step = 0; step < 8 && in.at < in.size; ++step) {
      if (fuzz_u8(&in) & 1) pose_from(&c, &in);
      skin_from(&c, &in);
    }
  skn_pose_destroy(c.pose);
  skn_rig_destroy(c.rig);
  skn_set_simd(SKN_SIMD_AUTO);
  return 0;
}
