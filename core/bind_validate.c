/* bind_validate.c — everything skn_bind checks before it builds anything.
 * Each check names the offending item in skn_last_error(), so that a user
 * holding a 50,000-vertex mesh learns which vertex and which influence. */
#include "bind.h"

#include "math/mat4.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static skn_status check_attrib(skn_attrib a, uint32_t vertex_count, uint32_t width,
                               const char *name) {
  if (!a.data) return SKN_OK;
  size_t bytes = width * sizeof(float);
  if (a.stride != 0 && a.stride < bytes)
    return skn__fail(SKN_ERR_INVALID_ARGUMENT, "%s: stride %u is smaller than one element (%u bytes)",
                     name, a.stride, (unsigned)bytes);
  if (a.stride == 0 || a.stride == bytes) { /* packed: one pass over the floats, the culprit found after */
    const char *p = a.data;
    int finite = 1;
    for (size_t i = 0; i < (size_t)vertex_count * width; ++i) {
      float x;
      memcpy(&x, p + i * sizeof x, sizeof x); /* (the caller's floats need not be aligned) */
      finite &= isfinite(x) != 0;
    }
    if (finite) return SKN_OK;
  }
  for (uint32_t v = 0; v < vertex_count; ++v) {
    float e[4];
    memcpy(e, skn__attrib_at(a, bytes, v), bytes);
    for (uint32_t c = 0; c < width; ++c)
      if (!isfinite(e[c]))
        return skn__fail(SKN_ERR_NOT_FINITE, "vertex %u: %s[%u] is not finite", v, name, c);
  }
  return SKN_OK;
}

static skn_status check_matrices(const skn_bind_desc *d, const float *mats, const char *name) {
  for (uint32_t j = 0; j < d->joint_count; ++j) {
    const float *m = mats + (size_t)j * 16;
    for (int e = 0; e < 16; ++e)
      if (!isfinite(m[e]))
        return skn__fail(SKN_ERR_NOT_FINITE, "joint %u: %s element %d is not finite", j, name, e);
    if (!skn_mat4_is_affine(m))
      return skn__fail(SKN_ERR_INVALID_ARGUMENT,
                       "joint %u: %s is not affine (bottom row %g %g %g %g, expected 0 0 0 1)", j,
                       name, m[3], m[7], m[11], m[15]);
    if (skn_mat4_is_singular(m))
      return skn__fail(SKN_ERR_SINGULAR, "joint %u: %s is singular (det %g)", j, name,
                       skn_mat4_det3(m));
  }
  return SKN_OK;
}

static skn_status check_rest_local(const skn_bind_desc *d) {
  for (uint32_t j = 0; d->rest_local && j < d->joint_count; ++j) {
    const skn_transform *t = &d->rest_local[j];
    if (!skn_floats_finite(t->translation, 3) || !skn_floats_finite(t->rotation, 4) ||
        !skn_floats_finite(t->scale, 3))
      return skn__fail(SKN_ERR_NOT_FINITE, "joint %u: rest_local is not finite", j);
    const float *q = t->rotation;
    if (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3] == 0.0f)
      return skn__fail(SKN_ERR_INVALID_ARGUMENT, "joint %u: rest_local rotation is a zero quaternion", j);
  }
  return SKN_OK;
}

/* The caller's influence layout: fixed width k or CSR offsets. */
static skn_status check_influence_layout(const skn_bind_desc *d, uint32_t *total) {
  if (!d->influence_joints || !d->influence_weights)
    return skn__fail(SKN_ERR_INVALID_ARGUMENT, "bind: influence_joints and influence_weights are required");
  if (!d->influence_offsets) {
    if (d->influences_per_vertex == 0)
      return skn__fail(SKN_ERR_INVALID_ARGUMENT,
                       "bind: influences_per_vertex is 0 and no influence_offsets are given");
    uint64_t n = (uint64_t)d->vertex_count * d->influences_per_vertex;
    if (n > UINT32_MAX)
      return skn__fail(SKN_ERR_INVALID_ARGUMENT,
                       "bind: vertex_count %u x influences_per_vertex %u = %llu influences overflows 32 bits",
                       d->vertex_count, d->influences_per_vertex, (unsigned long long)n);
    *total = (uint32_t)n;
    return SKN_OK;
  }
  const uint32_t *o = d->influence_offsets;
  if (o[0] != 0)
    return skn__fail(SKN_ERR_INVALID_ARGUMENT, "influence_offsets[0] is %u, expected 0", o[0]);
  for (uint32_t v = 0; v < d->vertex_count; ++v)
    if (o[v + 1] < o[v])
      return skn__fail(SKN_ERR_INVALID_ARGUMENT, "vertex %u: influence_offsets decrease (%u then %u)",
                       v, o[v], o[v + 1]);
  *total = o[d->vertex_count];
  return SKN_OK;
}

/* Why influence i of vertex v cannot be bound (one of the three tests
 * check_influences makes at once). */
static skn_status bad_influence(const skn_bind_desc *d, uint32_t v, uint32_t k, uint32_t i) {
  uint32_t j = d->influence_joints[i];
  float w = d->influence_weights[i];
  if (j >= d->joint_count)
    return skn__fail(SKN_ERR_INDEX_OUT_OF_RANGE, "vertex %u, influence %u: joint %u >= joint_count %u", v, k, j,
                     d->joint_count);
  if (!isfinite(w)) return skn__fail(SKN_ERR_NOT_FINITE, "vertex %u, influence %u: weight is not finite", v, k);
  return skn__fail(SKN_ERR_BAD_WEIGHTS, "vertex %u, influence %u: weight %g is negative", v, k, w);
}

static skn_status check_influences(const skn_bind_desc *d) {
  int unit = d->weight_mode == SKN_WEIGHTS_REQUIRE_UNIT;
  for (uint32_t v = 0; v < d->vertex_count; ++v) {
    uint32_t lo, hi;
    skn__influence_range(d, v, &lo, &hi);
    for (uint32_t i = lo; i < hi; ++i) {
      float w = d->influence_weights[i]; /* !(0 <= w < inf): negative, NaN or infinite */
      if (d->influence_joints[i] >= d->joint_count || !(w >= 0.0f && w < INFINITY))
        return bad_influence(d, v, i - lo, i);
    }
    if (!unit) continue;
    double sum = 0.0;
    for (uint32_t i = lo; i < hi; ++i) sum += d->influence_weights[i];
    if (fabs(sum - 1.0) > 1e-3)
      return skn__fail(SKN_ERR_BAD_WEIGHTS, "vertex %u: weights sum to %g, not 1 (SKN_WEIGHTS_REQUIRE_UNIT)",
                       v, sum);
  }
  return SKN_OK;
}

static skn_status check_extras(const skn_bind_desc *d) {
  for (uint32_t v = 0; d->blend_weights && v < d->vertex_count; ++v) {
    float b = d->blend_weights[v];
    if (!isfinite(b)) return skn__fail(SKN_ERR_NOT_FINITE, "vertex %u: blend weight is not finite", v);
    if (b < 0.0f || b > 1.0f)
      return skn__fail(SKN_ERR_BAD_WEIGHTS, "vertex %u: blend weight %g is outside [0, 1]", v, b);
  }
  if (d->triangle_count && !d->triangles)
    return skn__fail(SKN_ERR_INVALID_ARGUMENT, "bind: triangle_count is %u but triangles is NULL",
                     d->triangle_count);
  for (uint32_t t = 0; d->triangles && t < d->triangle_count; ++t)
    for (int c = 0; c < 3; ++c)
      if (d->triangles[(size_t)t * 3 + c] >= d->vertex_count)
        return skn__fail(SKN_ERR_INDEX_OUT_OF_RANGE, "triangle %u, corner %d: vertex %u >= vertex_count %u",
                         t, c, d->triangles[(size_t)t * 3 + c], d->vertex_count);
  return SKN_OK;
}

static skn_status check_scalars(const skn_bind_desc *d) {
  if (d->joint_count == 0) return skn__fail(SKN_ERR_INVALID_ARGUMENT, "bind: joint_count is 0");
  if (d->vertex_count == 0) return skn__fail(SKN_ERR_INVALID_ARGUMENT, "bind: vertex_count is 0");
  if (!d->positions.data) return skn__fail(SKN_ERR_INVALID_ARGUMENT, "bind: positions are required");
  if (!d->inverse_bind_matrices == !d->bind_matrices)
    return skn__fail(SKN_ERR_INVALID_ARGUMENT,
                     "bind: give exactly one of inverse_bind_matrices and bind_matrices");
  if ((unsigned)d->weight_mode > SKN_WEIGHTS_REQUIRE_UNIT)
    return skn__fail(SKN_ERR_INVALID_ARGUMENT, "bind: weight_mode %u is not a skn_weight_mode",
                     (unsigned)d->weight_mode);
  if ((unsigned)d->layout > SKN_LAYOUT_COMPACT)
    return skn__fail(SKN_ERR_INVALID_ARGUMENT, "bind: layout %u is not a skn_bind_layout", (unsigned)d->layout);
  if (!isfinite(d->min_weight)) return skn__fail(SKN_ERR_NOT_FINITE, "bind: min_weight is not finite");
  if (d->min_weight < 0.0f)
    return skn__fail(SKN_ERR_INVALID_ARGUMENT, "bind: min_weight %g is negative", d->min_weight);
  return SKN_OK;
}

skn_status skn__bind_validate(const skn_bind_desc *d) {
  uint32_t total = 0; /* sizes first: nothing is read past an overflowing count */
  skn_status s = check_scalars(d);
  if (s == SKN_OK) s = check_influence_layout(d, &total);
  if (s == SKN_OK) s = skn__order_joints(d, NULL);
  if (s == SKN_OK)
    s = d->bind_matrices ? check_matrices(d, d->bind_matrices, "bind_matrices")
                         : check_matrices(d, d->inverse_bind_matrices, "inverse_bind_matrices");
  if (s == SKN_OK) s = check_rest_local(d);
  if (s == SKN_OK) s = check_attrib(d->positions, d->vertex_count, 3, "positions");
  if (s == SKN_OK) s = check_attrib(d->normals, d->vertex_count, 3, "normals");
  if (s == SKN_OK) s = check_attrib(d->tangents, d->vertex_count, 4, "tangents");
  if (s == SKN_OK) s = check_influences(d);
  if (s == SKN_OK) s = check_extras(d);
  if (s == SKN_OK) s = skn__morph_validate(d);
  return s;
}

/* Joint j's parent (-1: a root; no parents given: every joint a root). */
static int32_t parent_of(const skn_bind_desc *d, uint32_t j) { return d->parents ? d->parents[j] : -1; }

/* Breadth first into order: the roots in bind order, then the children of
 * each placed joint in turn (each joint's in bind order). A level of the
 * hierarchy is then whole and sorted by its parents' positions, so the
 * parents of a run of a level's joints are a run of the level before —
 * forward kinematics reads them as one or two vectors and permutes them
 * (pose_simd.h). The parents are valid and acyclic (checked first). */
static skn_status order_breadth_first(const skn_bind_desc *d, uint32_t *order) {
  uint32_t n = d->joint_count, tail = 0;
  uint32_t *next = skn__calloc((size_t)n + 1, sizeof *next), *children = skn__alloc(n * sizeof *children);
  if (!next || !children) {
    skn__free(next);
    skn__free(children);
    return skn__fail(SKN_ERR_OUT_OF_MEMORY, "bind: out of memory");
  }
  /* children grouped by parent (a counting sort): after placing, p's are
   * children[p ? next[p - 1] : 0 .. next[p]) */
  for (uint32_t j = 0; j < n; ++j)
    if (parent_of(d, j) >= 0) next[parent_of(d, j) + 1]++;
  for (uint32_t p = 0; p < n; ++p) next[p + 1] += next[p];
  for (uint32_t j = 0; j < n; ++j)
    if (parent_of(d, j) >= 0) children[next[parent_of(d, j)]++] = j;
  for (uint32_t j = 0; j < n; ++j)
    if (parent_of(d, j) < 0) order[tail++] = j;
  for (uint32_t head = 0; head < tail; ++head)
    for (uint32_t p = order[head], c = p ? next[p - 1] : 0; c < next[p]; ++c) order[tail++] = children[c];
  skn__free(next);
  skn__free(children);
  return SKN_OK;
}

/* Orders joints parents-first (breadth first) and rejects parents out of
 * range and cycles, in one linear pass: each joint's parent chain is walked
 * once, marking joints "on the current chain" to detect a loop. With
 * order == NULL it only validates. */
skn_status skn__order_joints(const skn_bind_desc *d, uint32_t *order) {
  uint32_t n = d->joint_count;
  for (uint32_t j = 0; d->parents && j < n; ++j)
    if (d->parents[j] < -1 || d->parents[j] >= (int64_t)n)
      return skn__fail(SKN_ERR_BAD_HIERARCHY, "joint %u: parent %d is out of range", j, d->parents[j]);
  uint32_t *chain = skn__alloc(n * sizeof *chain);
  uint8_t *state = skn__calloc(n, 1); /* 0 new, 1 on the chain being walked, 2 done */
  skn_status s = (chain && state) ? SKN_OK : skn__fail(SKN_ERR_OUT_OF_MEMORY, "bind: out of memory");
  for (uint32_t i = 0; s == SKN_OK && i < n; ++i) {
    uint32_t len = 0;
    int32_t j = (int32_t)i;
    while (j >= 0 && state[j] == 0) {
      state[j] = 1;
      chain[len++] = (uint32_t)j;
      j = parent_of(d, (uint32_t)j);
    }
    if (j >= 0 && state[j] == 1) {
      s = skn__fail(SKN_ERR_BAD_HIERARCHY, "joint %u: parent chain loops back to joint %d (a cycle)", i, j);
      break;
    }
    while (len > 0) state[chain[--len]] = 2;
  }
  if (s == SKN_OK && order) s = order_breadth_first(d, order);
  skn__free(chain);
  skn__free(state);
  return s;
}
