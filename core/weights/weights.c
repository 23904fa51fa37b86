/* weights.c — skn_compute_weights (abi/skn.h section 7): checks every
 * input before anything is computed, builds the surface (welded where
 * asked), runs the method, and stores each vertex's k heaviest joints.
 * Nothing of the caller's is written until every step that can fail has. */
#include "weights.h"
#include "../bind.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define KNOWN_FLAGS (SKN_WEIGHTS_WELD | SKN_WEIGHTS_NON_MANIFOLD | SKN_WEIGHTS_AS_BLENDER)
#define BLENDER_DROP 0.025 /* Blender's heat_limit_weight: dropped below, 2u - 0.05 up to 0.05 */
#define BLENDER_RAMP 0.05

static const float *position_of(const skn_weights_desc *d, uint32_t v) {
  return (const float *)skn__attrib_at(d->positions, 3 * sizeof(float), v);
}

static skn_status check_bones(const skn_weights_desc *d, uint32_t joint_count) {
  for (uint32_t b = 0; b < d->bone_count; ++b) {
    const float *h = d->bone_heads + 3 * (size_t)b, *t = d->bone_tails + 3 * (size_t)b;
    for (int c = 0; c < 3; ++c)
      if (!isfinite(h[c]) || !isfinite(t[c]))
        return skn__fail(SKN_ERR_NOT_FINITE, "weights: bone %u: its head or tail is not finite", b);
    if (h[0] == t[0] && h[1] == t[1] && h[2] == t[2])
      return skn__fail(SKN_ERR_INVALID_ARGUMENT, "weights: bone %u: zero length (its head is its tail)", b);
    if (d->bone_joints && d->bone_joints[b] >= joint_count)
      return skn__fail(SKN_ERR_INDEX_OUT_OF_RANGE, "weights: bone %u: joint %u is out of range (joint_count %u)", b,
                       d->bone_joints[b], joint_count);
  }
  return SKN_OK;
}

static skn_status check_mesh(const skn_weights_desc *d) {
  for (uint32_t v = 0; v < d->vertex_count; ++v) {
    const float *p = position_of(d, v);
    if (!isfinite(p[0]) || !isfinite(p[1]) || !isfinite(p[2]))
      return skn__fail(SKN_ERR_NOT_FINITE, "weights: vertex %u: its position is not finite", v);
  }
  for (uint32_t t = 0; t < d->triangle_count; ++t) {
    const uint32_t *c = d->triangles + 3 * (size_t)t;
    for (int k = 0; k < 3; ++k)
      if (c[k] >= d->vertex_count)
        return skn__fail(SKN_ERR_INDEX_OUT_OF_RANGE, "weights: triangle %u: vertex %u is out of range (vertex_count %u)",
                         t, c[k], d->vertex_count);
    if (c[0] == c[1] || c[1] == c[2] || c[0] == c[2])
      return skn__fail(SKN_ERR_INVALID_ARGUMENT, "weights: triangle %u: degenerate, vertex %u twice", t,
                       c[0] == c[1] || c[0] == c[2] ? c[0] : c[1]);
  }
  return SKN_OK;
}

static skn_status check_desc(const skn_weights_desc *d, uint32_t *joint_count) {
  if (d->method != SKN_WEIGHTS_HEAT && d->method != SKN_WEIGHTS_CLOSEST)
    return skn__fail(SKN_ERR_INVALID_ARGUMENT, "weights: method %u is not a skn_weights_method", (unsigned)d->method);
  if (d->flags & ~(uint32_t)KNOWN_FLAGS)
    return skn__fail(SKN_ERR_INVALID_ARGUMENT, "weights: flags 0x%x are not SKN_WEIGHTS_* flags",
                     d->flags & ~(uint32_t)KNOWN_FLAGS);
  if (!d->vertex_count || !d->positions.data)
    return skn__fail(SKN_ERR_INVALID_ARGUMENT, "weights: vertex_count and positions are required");
  if (d->positions.stride && d->positions.stride < 3 * sizeof(float))
    return skn__fail(SKN_ERR_INVALID_ARGUMENT, "weights: positions: stride %u is less than a float[3]",
                     d->positions.stride);
  if (!d->bone_count)
    return skn__fail(SKN_ERR_INVALID_ARGUMENT, "weights: bone_count is 0: no deforming bone to weigh by");
  if (!d->bone_heads || !d->bone_tails)
    return skn__fail(SKN_ERR_INVALID_ARGUMENT, "weights: bone_heads and bone_tails are required");
  if (d->triangle_count && !d->triangles)
    return skn__fail(SKN_ERR_INVALID_ARGUMENT, "weights: triangle_count %u with no triangles", d->triangle_count);
  if (d->method == SKN_WEIGHTS_HEAT && !d->triangle_count)
    return skn__fail(SKN_ERR_INVALID_ARGUMENT, "weights: bone heat needs the mesh's triangles (triangle_count is 0)");
  if (d->bone_joints && !d->joint_count)
    return skn__fail(SKN_ERR_INVALID_ARGUMENT, "weights: bone_joints given with joint_count 0");
  if (!d->bone_joints && d->joint_count && d->joint_count < d->bone_count)
    return skn__fail(SKN_ERR_INVALID_ARGUMENT, "weights: joint_count %u is less than bone_count %u (bone b -> joint b)",
                     d->joint_count, d->bone_count);
  if (!isfinite(d->min_weight) || d->min_weight < 0)
    return skn__fail(SKN_ERR_INVALID_ARGUMENT, "weights: min_weight %g is not a finite value >= 0", d->min_weight);
  *joint_count = d->joint_count ? d->joint_count : d->bone_count;
  skn_status s = check_bones(d, *joint_count);
  return s != SKN_OK ? s : check_mesh(d);
}

typedef struct keyed {
  float x, y, z;
  uint32_t v;
} keyed;

static int position_order(const void *pa, const void *pb) {
  const keyed *a = pa, *b = pb;
  if (a->x != b->x) return a->x < b->x ? -1 : 1;
  if (a->y != b->y) return a->y < b->y ? -1 : 1;
  if (a->z != b->z) return a->z < b->z ? -1 : 1;
  return a->v < b->v ? -1 : a->v > b->v;
}

/* surface_of[v]: the caller's vertex v's surface vertex, equal positions
 * one where welding; returns the surface's vertex count. */
static uint32_t weld(const skn_weights_desc *d, int welding, uint32_t *surface_of, uint32_t *caller_vertex,
                     keyed *keys) {
  uint32_t n = d->vertex_count;
  if (!welding) {
    for (uint32_t v = 0; v < n; ++v) surface_of[v] = caller_vertex[v] = v;
    return n;
  }
  for (uint32_t v = 0; v < n; ++v) {
    const float *p = position_of(d, v);
    keys[v] = (keyed){p[0], p[1], p[2], v};
  }
  qsort(keys, n, sizeof *keys, position_order);
  uint32_t count = 0;
  for (uint32_t k = 0; k < n; ++k) {
    if (k == 0 || position_order(&(keyed){keys[k - 1].x, keys[k - 1].y, keys[k - 1].z, 0},
                                 &(keyed){keys[k].x, keys[k].y, keys[k].z, 0}) != 0) {
      caller_vertex[count++] = keys[k].v; /* the lowest index of the position */
    }
    surface_of[keys[k].v] = count - 1;
  }
  return count;
}

/* v scaled to unit length, or 0 where its squared length is below 1e-35. */
static void normalize3f(float v[3]) {
  float d = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
  float r = d > 1e-35f ? 1.0f / sqrtf(d) : 0.0f;
  v[0] *= r, v[1] *= r, v[2] *= r;
}

/* Unit triangle normals and vertex normals (their normalized sums), in
 * float and in the order Blender's heat weighting makes them: a sliver's
 * normal is mostly rounding error, which is Blender's own where the
 * arithmetic is. */
static void normals(skn_wsurface *s) {
  memset(s->vertex_normals, 0, sizeof *s->vertex_normals * s->vertex_count);
  for (uint32_t t = 0; t < s->triangle_count; ++t) {
    const float *p0 = s->positions[s->triangles[t][0]], *p1 = s->positions[s->triangles[t][1]],
                *p2 = s->positions[s->triangles[t][2]];
    float a[3] = {p0[0] - p1[0], p0[1] - p1[1], p0[2] - p1[2]}, b[3] = {p1[0] - p2[0], p1[1] - p2[1], p1[2] - p2[2]};
    float *n = s->triangle_normals[t];
    n[0] = a[1] * b[2] - a[2] * b[1], n[1] = a[2] * b[0] - a[0] * b[2], n[2] = a[0] * b[1] - a[1] * b[0];
    normalize3f(n);
    for (int k = 0; k < 3; ++k)
      for (int c = 0; c < 3; ++c) s->vertex_normals[s->triangles[t][k]][c] += n[c];
  }
  for (uint32_t i = 0; i < s->vertex_count; ++i) normalize3f(s->vertex_normals[i]);
}

/* The surface of the caller's mesh: positions, triangles in surface
 * indices (a triangle welded into fewer than three corners dropped),
 * normals. */
static skn_status surface_build(const skn_weights_desc *d, skn_wsurface *s, uint32_t *surface_of) {
  uint32_t n = d->vertex_count;
  s->caller_vertex = skn__alloc(sizeof *s->caller_vertex * n);
  keyed *keys = (d->flags & SKN_WEIGHTS_WELD) ? skn__alloc(sizeof *keys * n) : NULL;
  if (!s->caller_vertex || ((d->flags & SKN_WEIGHTS_WELD) && !keys)) {
    skn__free(keys);
    return skn__fail(SKN_ERR_OUT_OF_MEMORY, "weights: out of memory for the surface (%u vertices)", n);
  }
  s->vertex_count = weld(d, (d->flags & SKN_WEIGHTS_WELD) != 0, surface_of, s->caller_vertex, keys);
  skn__free(keys);
  size_t tc = d->triangle_count;
  s->positions = skn__alloc(sizeof *s->positions * s->vertex_count);
  s->vertex_normals = skn__alloc(sizeof *s->vertex_normals * s->vertex_count);
  s->triangles = skn__alloc(sizeof *s->triangles * (tc + 1));
  s->triangle_normals = skn__alloc(sizeof *s->triangle_normals * (tc + 1));
  s->source_triangle = skn__alloc(sizeof *s->source_triangle * (tc + 1));
  if (!s->positions || !s->vertex_normals || !s->triangles || !s->triangle_normals || !s->source_triangle)
    return skn__fail(SKN_ERR_OUT_OF_MEMORY, "weights: out of memory for the surface (%u vertices)", n);
  for (uint32_t i = 0; i < s->vertex_count; ++i) memcpy(s->positions[i], position_of(d, s->caller_vertex[i]), 12);
  s->triangle_count = 0;
  for (uint32_t t = 0; t < tc; ++t) {
    const uint32_t *c = d->triangles + 3 * (size_t)t;
    uint32_t a = surface_of[c[0]], b = surface_of[c[1]], e = surface_of[c[2]];
    if (a == b || b == e || a == e) continue; /* welded into a line or a point */
    s->triangles[s->triangle_count][0] = a, s->triangles[s->triangle_count][1] = b;
    s->triangles[s->triangle_count][2] = e, s->source_triangle[s->triangle_count++] = t;
  }
  s->non_manifold = (d->flags & SKN_WEIGHTS_NON_MANIFOLD) != 0;
  normals(s);
  return SKN_OK;
}

static void surface_free(skn_wsurface *s) {
  skn__free(s->positions), skn__free(s->triangles), skn__free(s->triangle_normals);
  skn__free(s->vertex_normals), skn__free(s->caller_vertex), skn__free(s->source_triangle);
}

typedef struct store {
  const skn_wbones *bones;
  uint32_t *bones_of_joint; /* per joint, how many bones give it weight */
  uint32_t k;
  float min_weight;
  int as_blender;
  double *acc;              /* per joint */
  uint32_t *mark;           /* per joint: the pass (1 + its number) that last touched it */
  uint32_t *touched;        /* this pass's joints (<= bone_count) */
  uint32_t pass;
} store;

static double blender_limit(double u) {
  return u < BLENDER_DROP ? 0 : u < BLENDER_RAMP ? 2 * u - BLENDER_RAMP : u;
}

typedef struct joint_weight {
  double w;
  uint32_t j;
} joint_weight;

static int heaviest_first(const void *pa, const void *pb) {
  const joint_weight *a = pa, *b = pb;
  if (a->w != b->w) return a->w > b->w ? -1 : 1;
  return a->j < b->j ? -1 : a->j > b->j;
}

/* A joint's weight from its bones' values (bone b's at values[b * stride]):
 * with `limit` (bone heat's values), Blender's stored value (skn.h,
 * SKN_WEIGHTS_AS_BLENDER); else the sum of the positive ones, at most 1.
 * Returns the joints kept, heaviest first. */
static uint32_t by_joint(store *st, const double *values, size_t stride, int limit, joint_weight *kept) {
  uint32_t touched = 0, pass = ++st->pass;
  for (uint32_t b = 0; b < st->bones->count; ++b) {
    double u = values[b * stride];
    uint32_t j = st->bones->joints ? st->bones->joints[b] : b;
    if (st->mark[j] != pass) st->mark[j] = pass, st->acc[j] = 0, st->touched[touched++] = j;
    if (limit && st->bones_of_joint[j] == 1) st->acc[j] = blender_limit(u);
    else if (u > 0) st->acc[j] = fmin(1.0, st->acc[j] + u);
  }
  uint32_t count = 0;
  for (uint32_t t = 0; t < touched; ++t) {
    uint32_t j = st->touched[t];
    double w = st->acc[j];
    if (limit && st->bones_of_joint[j] > 1 && w < BLENDER_DROP) continue;
    if (!(w > 0) || (!st->as_blender && w < st->min_weight)) continue;
    kept[count++] = (joint_weight){w, j};
  }
  qsort(kept, count, sizeof *kept, heaviest_first);
  return count;
}

/* The k heaviest into the caller's slots, normalized but under AS_BLENDER. */
static void put_vertex(const store *st, const joint_weight *kept, uint32_t count, uint32_t *joints, float *weights) {
  uint32_t n = count < st->k ? count : st->k;
  double sum = 0;
  for (uint32_t s = 0; s < n; ++s) sum += kept[s].w;
  double scale = st->as_blender || !(sum > 0) ? 1.0 : 1.0 / sum;
  for (uint32_t s = 0; s < st->k; ++s) {
    joints[s] = s < n ? kept[s].j : 0;
    weights[s] = s < n ? (float)(kept[s].w * scale) : 0.0f;
  }
}

/* Vertex v's weights: heat where its surface vertex has them, else (and
 * where none is left) the closest-bone values; where min_weight leaves
 * nothing even so, the nearest joint alone. */
static void weigh_vertex(store *st, const skn_wsurface *s, uint32_t i, const double *heat, const uint8_t *has_heat,
                         double *scratch, joint_weight *kept, uint32_t *joints, float *weights) {
  uint32_t n = s->vertex_count, count = 0;
  int heated = heat && has_heat[i];
  if (heated) count = by_joint(st, heat + i, n, 1, kept);
  if (!heated || (!count && !st->as_blender)) {
    skn__closest_values(st->bones, s->positions[i], scratch);
    count = by_joint(st, scratch, 1, st->as_blender, kept);
    if (!count && !st->as_blender) { /* min_weight above every weight: the nearest joint alone */
      uint32_t best = 0;
      for (uint32_t b = 1; b < st->bones->count; ++b) best = scratch[b] > scratch[best] ? b : best;
      kept[0] = (joint_weight){1.0, st->bones->joints ? st->bones->joints[best] : best}, count = 1;
    }
  }
  put_vertex(st, kept, count, joints, weights);
}

static skn_status store_all(const skn_weights_desc *d, uint32_t joint_count, uint32_t k, const skn_wsurface *s,
                            const skn_wbones *bones, const uint32_t *surface_of, const double *heat,
                            const uint8_t *has_heat, uint32_t *joints, float *weights) {
  store st = {bones, NULL, k, d->min_weight, (d->flags & SKN_WEIGHTS_AS_BLENDER) != 0, NULL, NULL, NULL, 0};
  st.bones_of_joint = skn__calloc(joint_count, sizeof *st.bones_of_joint);
  st.acc = skn__calloc(joint_count, sizeof *st.acc);
  st.mark = skn__calloc(joint_count, sizeof *st.mark);
  st.touched = skn__alloc(sizeof *st.touched * bones->count);
  double *scratch = skn__alloc(sizeof *scratch * bones->count);
  joint_weight *kept = skn__alloc(sizeof *kept * (bones->count + 1));
  skn_status status = SKN_OK;
  if (!st.bones_of_joint || !st.acc || !st.mark || !st.touched || !scratch || !kept) {
    status = skn__fail(SKN_ERR_OUT_OF_MEMORY, "weights: out of memory for %u joints", joint_count);
  } else {
    for (uint32_t b = 0; b < bones->count; ++b) st.bones_of_joint[bones->joints ? bones->joints[b] : b]++;
    for (uint32_t v = 0; v < d->vertex_count; ++v)
      weigh_vertex(&st, s, surface_of[v], heat, has_heat, scratch, kept, joints + (size_t)v * k,
                   weights + (size_t)v * k);
  }
  skn__free(st.bones_of_joint), skn__free(st.acc), skn__free(st.mark), skn__free(st.touched);
  skn__free(scratch), skn__free(kept);
  return status;
}

SKN_API skn_status skn_compute_weights(const skn_weights_desc *desc, uint32_t *joints, float *weights) {
  if (!desc || !joints || !weights)
    return skn__fail(SKN_ERR_INVALID_ARGUMENT, "weights: desc, joints and weights are required");
  if (desc->struct_size < sizeof *desc)
    return skn__fail(SKN_ERR_INVALID_ARGUMENT, "weights: struct_size %u is smaller than skn_weights_desc (%zu)",
                     desc->struct_size, sizeof *desc);
  skn_weights_desc d = *desc;
  uint32_t joint_count = 0, k = d.influences_per_vertex ? d.influences_per_vertex : 4;
  skn_status st = check_desc(&d, &joint_count);
  if (st != SKN_OK) return st;
  if ((uint64_t)d.vertex_count * k > SIZE_MAX / sizeof(float) || (uint64_t)d.bone_count * d.vertex_count > SIZE_MAX / 8)
    return skn__fail(SKN_ERR_INVALID_ARGUMENT, "weights: %u vertices x %u is too many", d.vertex_count, k);
  skn_wsurface s = {0};
  skn_wbones bones = {d.bone_count, d.bone_heads, d.bone_tails, d.bone_joints, joint_count};
  uint32_t *surface_of = skn__alloc(sizeof *surface_of * d.vertex_count);
  double *heat = NULL;
  uint8_t *has_heat = NULL;
  st = surface_of ? surface_build(&d, &s, surface_of)
                  : skn__fail(SKN_ERR_OUT_OF_MEMORY, "weights: out of memory for %u vertices", d.vertex_count);
  if (st == SKN_OK && d.method == SKN_WEIGHTS_HEAT) {
    heat = skn__alloc(sizeof *heat * (size_t)d.bone_count * s.vertex_count);
    has_heat = skn__alloc(s.vertex_count);
    st = heat && has_heat ? skn__heat_solve(&s, &bones, d.threads, heat, has_heat)
                          : skn__fail(SKN_ERR_OUT_OF_MEMORY, "weights: out of memory for %u bones x %u vertices",
                                      d.bone_count, s.vertex_count);
  }
  if (st == SKN_OK) st = store_all(&d, joint_count, k, &s, &bones, surface_of, heat, has_heat, joints, weights);
  surface_free(&s);
  skn__free(surface_of), skn__free(heat), skn__free(has_heat);
  return st;
}
