/* rig.c — skn_bind: converts a validated bind description into the rig the
 * kernels read: joints ordered parents-first, bind matrices in both
 * directions, vertices packed, influences pruned and normalized into CSR
 * (and quantized for SKN_LAYOUT_COMPACT: compact.c). */
#include "bind.h"
#include "kernels/kernels.h"

#include "math/mat4.h"

#include <stdlib.h>
#include <string.h>

static void *alloc_array(size_t count, size_t size) {
  if (size && count > SIZE_MAX / size) return NULL;
  return skn__alloc(count * size > 0 ? count * size : 1);
}

/* An affine float[16]'s upper 3x4 into position k of a by-position array
 * (SKN_JOINT_STRIDE). */
static void put_joint_matrix(float *rows, size_t stride, uint32_t k, const float m[16]) {
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 3; ++r) rows[(size_t)(3 * c + r) * stride + k] = m[c * 4 + r];
}

/* Positions in the order, the parents' positions and where each level of
 * the hierarchy starts (order is breadth first, skn__order_joints). */
static skn_status order_levels(skn_rig *rig, uint32_t n) {
  uint32_t *depth = skn__alloc(n * sizeof *depth);
  rig->level_start = skn__alloc(((size_t)n + 1) * sizeof *rig->level_start);
  if (!depth || !rig->level_start) {
    skn__free(depth);
    return skn__fail(SKN_ERR_OUT_OF_MEMORY, "bind: out of memory for %u joints", n);
  }
  for (uint32_t k = n; k < rig->joint_stride; ++k) rig->order[k] = UINT32_MAX; /* no joint: outside any range */
  for (uint32_t k = 0; k < n; ++k) rig->position[rig->order[k]] = k;
  rig->level_count = 0;
  for (uint32_t k = 0; k < n; ++k) {
    int32_t p = rig->parents[rig->order[k]];
    rig->parent_position[k] = p < 0 ? -1 : (int32_t)rig->position[p];
    depth[k] = p < 0 ? 0 : depth[rig->position[p]] + 1;
    if (k == 0 || depth[k] != depth[k - 1]) rig->level_start[rig->level_count++] = k;
  }
  rig->level_start[rig->level_count] = n;
  skn__free(depth);
  return SKN_OK;
}

/* Bind matrices both ways, and the starting pose's locals: the caller's
 * rest_local, else the bind pose's local = (W_parent^R)^-1 W^R. */
static void bind_matrices(skn_rig *rig, const skn_bind_desc *d, float (*inverse)[16]) {
  uint32_t n = d->joint_count;
  for (uint32_t j = 0; j < n; ++j) {
    if (d->bind_matrices) {
      memcpy(rig->bind[j], d->bind_matrices + (size_t)j * 16, sizeof rig->bind[j]);
      skn_mat4_invert_affine(inverse[j], rig->bind[j]);
    } else {
      memcpy(inverse[j], d->inverse_bind_matrices + (size_t)j * 16, sizeof rig->bind[j]);
      skn_mat4_invert_affine(rig->bind[j], inverse[j]);
    }
    put_joint_matrix(rig->inverse_bind, rig->joint_stride, rig->position[j], inverse[j]);
  }
  for (uint32_t j = 0; j < n; ++j) {
    float local[16];
    if (d->rest_local) {
      const skn_transform *t = &d->rest_local[j];
      skn_mat4_from_trs(local, t->translation, t->rotation, t->scale);
    } else if (rig->parents[j] < 0) {
      memcpy(local, rig->bind[j], sizeof local);
    } else {
      skn_mat4_mul_affine(local, inverse[rig->parents[j]], rig->bind[j]);
    }
    put_joint_matrix(rig->rest_local, rig->joint_stride, rig->position[j], local);
  }
}

static skn_status build_joints(skn_rig *rig, const skn_bind_desc *d) {
  uint32_t n = d->joint_count;
  rig->joint_stride = SKN_JOINT_STRIDE(n);
  rig->parents = alloc_array(n, sizeof *rig->parents);
  rig->order = alloc_array(rig->joint_stride, sizeof *rig->order);
  rig->position = alloc_array(n, sizeof *rig->position);
  rig->parent_position = skn__calloc(rig->joint_stride, sizeof *rig->parent_position);
  rig->bind = alloc_array(n, sizeof *rig->bind);
  rig->inverse_bind = skn__calloc(rig->joint_stride * SKN_MAT_ROWS, sizeof(float));
  rig->rest_local = skn__calloc(rig->joint_stride * SKN_MAT_ROWS, sizeof(float));
  rig->joint_used = skn__calloc(n, 1);
  rig->bind_rotation = alloc_array(n, sizeof *rig->bind_rotation);
  float(*inverse)[16] = alloc_array(n, sizeof *inverse);
  skn_status s = SKN_OK;
  if (!rig->parents || !rig->order || !rig->position || !rig->parent_position || !rig->bind ||
      !rig->inverse_bind || !rig->rest_local || !rig->joint_used || !rig->bind_rotation || !inverse)
    s = skn__fail(SKN_ERR_OUT_OF_MEMORY, "bind: out of memory for %u joints", n);
  for (uint32_t j = 0; s == SKN_OK && j < n; ++j) rig->parents[j] = d->parents ? d->parents[j] : -1;
  if (s == SKN_OK) s = skn__order_joints(d, rig->order);
  if (s == SKN_OK) s = order_levels(rig, n);
  if (s == SKN_OK) {
    bind_matrices(rig, d, inverse);
    skn__bind_rotations(rig);
  }
  skn__free(inverse);
  return s;
}

static float *pack_attrib(skn_attrib a, uint32_t count, uint32_t width) {
  if (!a.data) return NULL;
  float *dst = alloc_array((size_t)count * width, sizeof(float));
  for (uint32_t v = 0; dst && v < count; ++v)
    memcpy(dst + (size_t)v * width, skn__attrib_at(a, width * sizeof(float), v), width * sizeof(float));
  return dst;
}

static skn_status build_vertices(skn_rig *rig, const skn_bind_desc *d) {
  rig->positions = pack_attrib(d->positions, d->vertex_count, 3);
  rig->normals = pack_attrib(d->normals, d->vertex_count, 3);
  rig->tangents = pack_attrib(d->tangents, d->vertex_count, 4);
  if (!rig->positions || (d->normals.data && !rig->normals) || (d->tangents.data && !rig->tangents))
    return skn__fail(SKN_ERR_OUT_OF_MEMORY, "bind: out of memory for %u vertices", d->vertex_count);
  rig->flags |= (rig->normals ? SKN_RIG_HAS_NORMALS : 0) | (rig->tangents ? SKN_RIG_HAS_TANGENTS : 0);
  return SKN_OK;
}

/* Heaviest first; among equal weights the earlier influence wins. */
typedef struct kept_influence { uint32_t index; float weight; } kept_influence;
static int by_weight_desc(const void *a, const void *b) {
  const kept_influence *x = a, *y = b;
  if (x->weight != y->weight) return x->weight > y->weight ? -1 : 1;
  return x->index < y->index ? -1 : 1;
}
static int by_index(const void *a, const void *b) {
  const kept_influence *x = a, *y = b;
  return x->index < y->index ? -1 : (x->index > y->index);
}

/* Prunes vertex v's influences into kept[] (in the order given) and returns
 * how many are left; *scale is what their weights are multiplied by. */
static uint32_t prune_vertex(const skn_bind_desc *d, uint32_t v, kept_influence *kept, double *scale) {
  uint32_t lo, hi, n = 0;
  double given = 0.0, left = 0.0;
  skn__influence_range(d, v, &lo, &hi);
  for (uint32_t i = lo; i < hi; ++i) {
    float w = d->influence_weights[i];
    given += w;
    if (w > 0.0f && w >= d->min_weight) kept[n++] = (kept_influence){i, w};
  }
  if (d->max_influences && n > d->max_influences) {
    qsort(kept, n, sizeof *kept, by_weight_desc);
    n = d->max_influences;
    qsort(kept, n, sizeof *kept, by_index);
  }
  for (uint32_t k = 0; k < n; ++k) left += kept[k].weight;
  *scale = d->weight_mode == SKN_WEIGHTS_AS_GIVEN ? given / left : 1.0 / left;
  return n;
}

static skn_status build_influences(skn_rig *rig, const skn_bind_desc *d) {
  uint32_t lo, hi, total = 0, widest = 0;
  for (uint32_t v = 0; v < d->vertex_count; ++v) {
    skn__influence_range(d, v, &lo, &hi);
    total += hi - lo;
    widest = SKN_MAX(widest, hi - lo);
  }
  kept_influence *kept = alloc_array(widest, sizeof *kept);
  rig->influence_offsets = alloc_array((size_t)d->vertex_count + 1, sizeof(uint32_t));
  rig->influence_joints = alloc_array(total, sizeof(uint32_t));
  rig->influence_weights = alloc_array(total, sizeof(float));
  skn_status s = (kept && rig->influence_offsets && rig->influence_joints && rig->influence_weights) ? SKN_OK
                 : skn__fail(SKN_ERR_OUT_OF_MEMORY, "bind: out of memory for %u influences", total);
  /* the rig's arrays through locals: stores through rig-> would make the
   * compiler load every pointer again each influence */
  uint32_t out = 0, widest_kept = 0, *offsets = rig->influence_offsets, *joints = rig->influence_joints;
  float *weights = rig->influence_weights;
  uint8_t *used = rig->joint_used;
  for (uint32_t v = 0; s == SKN_OK && v < d->vertex_count; ++v) {
    double scale;
    uint32_t n = prune_vertex(d, v, kept, &scale);
    if (n == 0 && d->weight_mode == SKN_WEIGHTS_REQUIRE_UNIT)
      s = skn__fail(SKN_ERR_BAD_WEIGHTS, "vertex %u: no influence is left after pruning (min_weight %g)",
                    v, d->min_weight);
    offsets[v] = out;
    widest_kept = SKN_MAX(widest_kept, n);
    for (uint32_t k = 0; k < n; ++k, ++out) {
      uint32_t j = d->influence_joints[kept[k].index];
      joints[out] = j;
      weights[out] = (float)(kept[k].weight * scale);
      used[j] = 1;
    }
  }
  skn__free(kept);
  if (s != SKN_OK) return s;
  offsets[d->vertex_count] = out;
  rig->influence_count = out;
  rig->max_influences_per_vertex = widest_kept;
  return SKN_OK;
}

/* What SKN_METHOD_BLEND and SKN_METHOD_COR need beyond the influences. */
static skn_status build_method_data(skn_rig *rig, const skn_bind_desc *d) {
  if (d->blend_weights) {
    rig->blend_weights = alloc_array(d->vertex_count, sizeof(float));
    if (!rig->blend_weights) return skn__fail(SKN_ERR_OUT_OF_MEMORY, "bind: out of memory for blend weights");
    memcpy(rig->blend_weights, d->blend_weights, (size_t)d->vertex_count * sizeof(float));
    rig->flags |= SKN_RIG_HAS_BLEND_WEIGHTS;
  }
  if (d->triangles && d->triangle_count) {
    skn_status s = skn__cor_centers(rig, d->triangles, d->triangle_count);
    if (s != SKN_OK) return s;
    rig->flags |= SKN_RIG_HAS_CENTERS_OF_ROTATION;
  }
  return SKN_OK;
}

SKN_API skn_status skn_bind(const skn_bind_desc *desc, skn_rig **out_rig) {
  if (!desc || !out_rig) return skn__fail(SKN_ERR_INVALID_ARGUMENT, "bind: desc and out_rig are required");
  if (desc->struct_size < SKN_BIND_DESC_V1_SIZE)
    return skn__fail(SKN_ERR_INVALID_ARGUMENT, "bind: struct_size %u is smaller than skn_bind_desc (%u)",
                     desc->struct_size, SKN_BIND_DESC_V1_SIZE);
  skn_bind_desc d; /* read only the fields the caller's struct has */
  memset(&d, 0, sizeof d);
  memcpy(&d, desc, SKN_MIN((size_t)desc->struct_size, sizeof d));
  skn_status s = skn__bind_validate(&d);
  if (s != SKN_OK) return s;
  skn_rig *rig = skn__calloc(1, sizeof *rig);
  if (!rig) return skn__fail(SKN_ERR_OUT_OF_MEMORY, "bind: out of memory");
  rig->joint_count = d.joint_count;
  rig->vertex_count = d.vertex_count;
  s = build_joints(rig, &d);
  if (s == SKN_OK) s = build_vertices(rig, &d);
  if (s == SKN_OK) s = build_influences(rig, &d);
  if (s == SKN_OK && d.layout == SKN_LAYOUT_COMPACT) s = skn__compact_quantize(rig);
  if (s == SKN_OK) s = build_method_data(rig, &d);
  if (s == SKN_OK) s = skn__morph_build(rig, &d);
  if (s == SKN_OK) s = skn__pack_influences(rig);
  if (s != SKN_OK) {
    skn_rig_destroy(rig);
    return s;
  }
  *out_rig = rig;
  return SKN_OK;
}

SKN_API void skn_rig_destroy(skn_rig *rig) {
  if (!rig) return;
  skn__free(rig->parents);
  skn__free(rig->order);
  skn__free(rig->position);
  skn__free(rig->parent_position);
  skn__free(rig->level_start);
  skn__free(rig->bind);
  skn__free(rig->inverse_bind);
  skn__free(rig->rest_local);
  skn__free(rig->joint_used);
  skn__free(rig->positions);
  skn__free(rig->normals);
  skn__free(rig->tangents);
  skn__free(rig->influence_offsets);
  skn__free(rig->influence_joints);
  skn__free(rig->influence_weights);
  skn__morph_free(rig);
  skn__free(rig->bind_rotation);
  skn__free(rig->blend_weights);
  skn__free(rig->centers);
  skn__free(rig->has_center);
  skn__free(rig->blocks);
  skn__free(rig->packed_joints);
  skn__free(rig->packed_weights);
  skn__free(rig->packed_joints8);
  skn__free(rig->packed_weights16);
  skn__free(rig->oct_normals);
  skn__free(rig->oct_tangents);
  skn__free(rig);
}

SKN_API skn_status skn_rig_info_get(const skn_rig *rig, skn_rig_info *out) {
  if (!rig || !out) return skn__fail(SKN_ERR_INVALID_ARGUMENT, "rig_info_get: rig and out are required");
  skn_rig_info info = {sizeof info, rig->joint_count, rig->vertex_count, rig->influence_count,
                       rig->max_influences_per_vertex, rig->flags, rig->morph_count, rig->morph_entry_count};
  return skn__fill_info(out, &info, sizeof info, SKN_RIG_INFO_V1_SIZE, "rig_info_get");
}
