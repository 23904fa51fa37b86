/* bind_target.c — a bind description from bytes: any counts (up to 64
 * joints and 256 vertices), fixed-width or CSR influences, any indices,
 * weights and matrices (NaN and Inf among them), strides, layouts, weight
 * modes, blend weights, triangles, morph targets (sparse with any indices,
 * repeated ones among them, or dense of any count). Every array is allocated at exactly its
 * size, so that a read past one is a sanitizer's finding. A refused bind
 * must leave *out_rig; an accepted one is posed with transforms from the
 * bytes and skinned with every method into guarded outputs, which a failed
 * call must leave untouched and a successful one must not write past. */
#include "fuzz.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A description and the arrays it points at (each its own allocation). */
typedef struct bind_case {
  skn_bind_desc d;
  void *arrays[32];
  int array_count;
} bind_case;

static void *own(bind_case *c, size_t bytes) {
  void *p = malloc(bytes ? bytes : 1);
  if (!p) fuzz_fail("out of memory");
  c->arrays[c->array_count++] = p;
  return p;
}

static float *floats(bind_case *c, fuzz_input *in, size_t n) {
  float *f = own(c, n * sizeof *f);
  for (size_t i = 0; i < n; ++i) f[i] = fuzz_float(in);
  return f;
}

/* Mostly small indices near the valid range, sometimes any 32 bits. */
static uint32_t index_near(fuzz_input *in, uint32_t range) {
  uint8_t mode = fuzz_u8(in);
  return mode < 240 ? fuzz_u8(in) % (range + 2) : fuzz_u32(in);
}

/* Matrices: mostly a translation and a scale (invertible), sometimes any floats. */
static float *matrices(bind_case *c, fuzz_input *in, uint32_t n) {
  float *m = own(c, (size_t)n * 16 * sizeof *m);
  for (uint32_t j = 0; j < n; ++j) {
    float *e = m + j * 16;
    if (fuzz_u8(in) < 200) {
      memset(e, 0, 16 * sizeof *e);
      e[0] = e[5] = e[10] = 1.0f + fabsf(fuzz_float(in));
      e[12] = fuzz_float(in), e[13] = fuzz_float(in), e[14] = fuzz_float(in), e[15] = 1;
    } else {
      for (int k = 0; k < 16; ++k) e[k] = fuzz_float(in);
    }
  }
  return m;
}

/* An attribute of `width` floats a vertex at a stride of 0 or more. */
static skn_attrib attribute(bind_case *c, fuzz_input *in, uint32_t n, uint32_t width) {
  uint32_t stride = fuzz_u8(in) % 3 == 0 ? 0 : width * 4 + 4 * (fuzz_u8(in) % 3);
  size_t step = stride ? stride : width * 4, bytes = (size_t)(n - 1) * step + width * 4;
  float *f = own(c, bytes);
  for (size_t i = 0; i < bytes / 4; ++i) f[i] = fuzz_float(in);
  return (skn_attrib){f, stride};
}

/* CSR offsets may start at 1 or step back by one (both refused), never
 * wrap: every prefix stays below the 4,096 entries allocated, as a
 * caller's arrays are as long as its offsets say. */
static void influences(bind_case *c, fuzz_input *in, uint32_t joints, uint32_t n, uint32_t k) {
  uint32_t total = 0;
  if (k == 0) { /* CSR */
    uint32_t *off = own(c, ((size_t)n + 1) * sizeof *off);
    off[0] = fuzz_u8(in) < 250 ? 0 : 1;
    for (uint32_t v = 0; v < n; ++v) off[v + 1] = off[v] + fuzz_u8(in) % 10 - (off[v] && fuzz_u8(in) == 255);
    total = 4096;
    c->d.influence_offsets = off;
  } else {
    total = n * k;
    c->d.influences_per_vertex = k;
  }
  uint32_t *jj = own(c, (size_t)total * sizeof *jj);
  float *w = own(c, (size_t)total * sizeof *w);
  for (uint32_t i = 0; i < total; ++i) jj[i] = index_near(in, joints), w[i] = fuzz_float(in);
  c->d.influence_joints = jj;
  c->d.influence_weights = w;
}

/* 1 to 3 targets: sparse (indices near the vertex range, repeats possible)
 * or dense (NULL vertices, a count of n give or take one), offsets from the
 * bytes (NaN and Inf among them), normal and tangent offsets sometimes,
 * whether or not the rest mesh has them; weights sometimes. */
static void morph_targets(bind_case *c, fuzz_input *in, uint32_t n) {
  uint32_t count = 1 + fuzz_u8(in) % 3;
  skn_morph_target *t = own(c, count * sizeof *t);
  for (uint32_t i = 0; i < count; ++i) {
    uint8_t how = fuzz_u8(in);
    uint32_t m = how & 1 ? 1u + fuzz_u8(in) % 16u : n + (how & 2 ? (uint32_t)(fuzz_u8(in) % 3) - 1u : 0u);
    if (m == 0) m = 1;
    uint32_t *v = NULL;
    if (how & 1) {
      v = own(c, m * sizeof *v);
      for (uint32_t e = 0; e < m; ++e) v[e] = index_near(in, n);
    }
    t[i] = (skn_morph_target){m, v, attribute(c, in, m, 3), {0}, {0}};
    if (how & 4) t[i].normals = attribute(c, in, m, 3);
    if (how & 8) t[i].tangents = attribute(c, in, m, 3);
  }
  c->d.morph_targets = t;
  c->d.morph_target_count = count;
  if (fuzz_u8(in) & 1) c->d.morph_weights = floats(c, in, count);
}

static void describe(bind_case *c, fuzz_input *in) {
  uint32_t joints = 1 + fuzz_u8(in) % 64, n = 1 + fuzz_u8(in), k = fuzz_u8(in) % 9, flags = fuzz_u8(in);
  skn_bind_desc *d = &c->d;
  d->struct_size = sizeof *d;
  d->joint_count = joints;
  d->vertex_count = n;
  d->weight_mode = (skn_weight_mode)(fuzz_u8(in) % 4);
  d->max_influences = fuzz_u8(in) % 10;
  d->min_weight = fuzz_u8(in) < 200 ? 0.0f : fuzz_float(in);
  d->layout = (skn_bind_layout)(flags >> 7);
  if (flags & 1) {
    int32_t *parents = own(c, joints * sizeof *parents);
    for (uint32_t j = 0; j < joints; ++j) parents[j] = (int32_t)(index_near(in, joints) - 1u); /* -1 .. joints, or any */
    d->parents = parents;
  }
  if (flags & 2) d->inverse_bind_matrices = matrices(c, in, joints);
  else d->bind_matrices = matrices(c, in, joints);
  d->positions = attribute(c, in, n, 3);
  if (flags & 4) d->normals = attribute(c, in, n, 3);
  if (flags & 8) d->tangents = attribute(c, in, n, 4);
  if (flags & 16) d->blend_weights = floats(c, in, n);
  if (flags & 32) {
    uint32_t count = 1 + fuzz_u8(in) % 32, *tri = own(c, (size_t)count * 12);
    for (uint32_t i = 0; i < count * 3; ++i) tri[i] = index_near(in, n);
    d->triangles = tri;
    d->triangle_count = count;
  }
  influences(c, in, joints, n, k);
  if (flags & 64) morph_targets(c, in, n);
}

/* Poses the rig from the bytes and skins it with every method. */
static void exercise(const skn_rig *rig, fuzz_input *in) {
  skn_rig_info info = {sizeof info};
  if (skn_rig_info_get(rig, &info)) fuzz_fail("rig_info_get: %s", skn_last_error());
  skn_pose *pose = NULL;
  if (skn_pose_create(rig, &pose)) return; /* out of memory only */
  skn_transform *t = malloc(info.joint_count * sizeof *t);
  for (uint32_t j = 0; t && j < info.joint_count; ++j) {
    float f[10];
    for (int e = 0; e < 10; ++e) f[e] = fuzz_float(in);
    memcpy(&t[j], f, sizeof f);
  }
  if (t) skn_pose_set_local(pose, 0, info.joint_count, t); /* may refuse a NaN or a zero quaternion */
  free(t);
  float w[3];
  for (uint32_t i = 0; i < info.morph_target_count && i < 3; ++i) w[i] = fuzz_float(in);
  if (info.morph_target_count) skn_pose_set_morph_weights(pose, 0, info.morph_target_count, w); /* may refuse NaN */
  for (int m = SKN_METHOD_LBS_MATRIX; m <= SKN_METHOD_COR; ++m) {
    guarded gp, gn, gt;
    skn_skin_desc d = {sizeof d};
    d.method = (skn_method)m;
    d.dqs_scale = (skn_dqs_scale)(fuzz_u8(in) & 1);
    d.threads = 1;
    d.first_vertex = fuzz_u8(in) < 230 ? 0 : fuzz_u8(in) % (info.vertex_count + 1);
    d.vertex_count = fuzz_u8(in) < 230 ? 0 : fuzz_u8(in) % (info.vertex_count + 1);
    d.positions.data = guarded_alloc(&gp, (size_t)info.vertex_count * 12);
    d.normals.data = info.flags & SKN_RIG_HAS_NORMALS ? guarded_alloc(&gn, (size_t)info.vertex_count * 12) : NULL;
    d.tangents.data = info.flags & SKN_RIG_HAS_TANGENTS ? guarded_alloc(&gt, (size_t)info.vertex_count * 16) : NULL;
    skn_status s = skn_skin(rig, pose, &d);
    guarded_check(&gp, s != SKN_OK, "skin positions");
    guarded_free(&gp);
    if (d.normals.data) guarded_check(&gn, s != SKN_OK, "skin normals"), guarded_free(&gn);
    if (d.tangents.data) guarded_check(&gt, s != SKN_OK, "skin tangents"), guarded_free(&gt);
  }
  skn_pose_destroy(pose);
}

int skn_fuzz_bind(const uint8_t *data, size_t size) {
  fuzz_input in = {data, size, 0};
  bind_case c;
  memset(&c, 0, sizeof c);
  describe(&c, &in);
  skn_rig *rig = (skn_rig *)&c; /* a canary: a refused bind leaves it */
  skn_status s = skn_bind(&c.d, &rig);
  if (s != SKN_OK && rig != (skn_rig *)&c) fuzz_fail("a refused bind wrote *out_rig");
  if (s != SKN_OK && !*skn_last_error()) fuzz_fail("a refused bind left no message");
  if (s == SKN_OK) {
    exercise(rig, &in);
    skn_rig_destroy(rig);
  }
  for (int i = 0; i < c.array_count; ++i) free(c.arrays[i]);
  return 0;
}
