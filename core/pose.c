/* pose.c — joint transforms in, palette out: the calls that take local
 * TRS (validated and staged by the instruction set's pose kernel,
 * kernels/pose_simd.h, before anything changes) or model matrices, then
 * local TRS -> forward kinematics (W_i^A = W_parent^A * local_i) ->
 * M_i = W_i^A (W_i^R)^-1 and its normal matrix in the same kernel, and the
 * palettes out in the ABI's formats; palette.c derives the rotation forms
 * on demand. */
#include "internal.h"
#include "kernels/kernels.h"

#include "math/mat4.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Locals [first, first + count) from their staged matrices, forward
 * kinematics and the LBS palette; then the palette's version moves on, so
 * that rotation forms derived from it before — or while it was being
 * written, by a host that broke the one-thread rule — are stale (palette.c). */
static void pose_update(skn_pose *pose, uint32_t first, uint32_t count) {
  skn__kernels()->pose(pose, first, count);
  __atomic_add_fetch(&pose->version, 1, __ATOMIC_RELEASE);
}

SKN_API skn_status skn_pose_create(const skn_rig *rig, skn_pose **out_pose) {
  if (!rig || !out_pose) return skn__fail(SKN_ERR_INVALID_ARGUMENT, "pose_create: rig and out_pose are required");
  uint32_t n = rig->joint_count;
  size_t stride = rig->joint_stride, local_bytes = stride * SKN_MAT_ROWS * sizeof(float);
  size_t palette_bytes = ((size_t)n + 1) * SKN_PALETTE_FLOATS * sizeof(float);
  skn_pose *pose = skn__calloc(1, sizeof *pose);
  if (pose) {
    pose->rig = rig;
    pthread_mutex_init(&pose->lock, NULL);
    pose->local = skn__alloc(local_bytes);
    pose->staged = skn__calloc(stride * SKN_MAT_ROWS, sizeof(float));
    pose->world = skn__calloc(stride * SKN_MAT_ROWS, sizeof(float));
    pose->pinned = skn__calloc(stride, 1);
    pose->xforms = skn__alloc(n * sizeof *pose->xforms);
    float **palettes[4] = {&pose->lbs_palette, &pose->dq_palette[0], &pose->dq_palette[1], &pose->quat_palette};
    for (int k = 0; k < 4; ++k)
      *palettes[k] = skn__alloc_aligned(palette_bytes, 64);
  }
  if (!pose || !pose->local || !pose->staged || !pose->world || !pose->pinned || !pose->xforms ||
      !pose->lbs_palette || !pose->dq_palette[0] || !pose->dq_palette[1] || !pose->quat_palette ||
      skn__morph_pose_init(pose) != SKN_OK) {
    skn_pose_destroy(pose);
    return skn__fail(SKN_ERR_OUT_OF_MEMORY, "pose_create: out of memory for %u joints", n);
  }
  memcpy(pose->local, rig->rest_local, local_bytes);
  static const float identity[SKN_PALETTE_FLOATS] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1,
                                                     1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0};
  memcpy(pose->lbs_palette + (size_t)n * SKN_PALETTE_FLOATS, identity, sizeof identity); /* the virtual joint, for good */
  skn__dq_palette_init(pose);
  memset(pose->quat_palette, 0, palette_bytes); /* forms_simd.h leaves the entries' zeros as they are */
  pose_update(pose, 0, 0);
  *out_pose = pose;
  return SKN_OK;
}

SKN_API void skn_pose_destroy(skn_pose *pose) {
  if (!pose) return;
  if (pose->rig) pthread_mutex_destroy(&pose->lock);
  skn__free(pose->local);
  skn__free(pose->staged);
  skn__free(pose->world);
  skn__free(pose->pinned);
  skn__free(pose->xforms);
  skn__free(pose->lbs_palette);
  skn__free(pose->dq_palette[0]);
  skn__free(pose->dq_palette[1]);
  skn__free(pose->quat_palette);
  skn__free(pose->morph_weights);
  skn__free(pose->morph_active);
  skn__free(pose);
}

static skn_status check_range(const skn_pose *pose, uint32_t first, uint32_t count, const void *data,
                              const char *call) {
  if (!pose || !data) return skn__fail(SKN_ERR_INVALID_ARGUMENT, "%s: pose and transforms are required", call);
  if (count == 0) return skn__fail(SKN_ERR_INVALID_ARGUMENT, "%s: count is 0", call);
  if ((uint64_t)first + count > pose->rig->joint_count)
    return skn__fail(SKN_ERR_INDEX_OUT_OF_RANGE, "%s: joints [%u, %llu) run past joint_count %u", call,
                     first, (unsigned long long)first + count, pose->rig->joint_count);
  return SKN_OK;
}

/* Why the kernel's validation (pose_simd.h) refused transform t of joint j:
 * a NaN or infinity in any of its ten floats, else a zero quaternion. */
static skn_status refuse_local(uint32_t j, const skn_transform *t) {
  float f[SKN_TRS_ROWS]; /* translation, rotation, scale: ten floats in a row (SKN_PIN(transform)) */
  memcpy(f, t, sizeof f);
  for (int k = 0; k < SKN_TRS_ROWS; ++k)
    if (!isfinite(f[k])) return skn__fail(SKN_ERR_NOT_FINITE, "joint %u: local transform is not finite", j);
  return skn__fail(SKN_ERR_INVALID_ARGUMENT, "joint %u: rotation is a zero quaternion", j);
}

SKN_API skn_status skn_pose_set_local(skn_pose *pose, uint32_t first, uint32_t count,
                                      const skn_transform *local) {
  skn_status s = check_range(pose, first, count, local, "pose_set_local");
  if (s != SKN_OK) return s;
  uint32_t bad = skn__kernels()->pose_stage(pose, first, count, local);
  if (bad < count) return refuse_local(first + bad, &local[bad]);
  for (uint32_t j = first; pose->pinned_count && j < first + count; ++j) { /* set_model's, undone */
    uint8_t *pinned = &pose->pinned[pose->rig->position[j]];
    pose->pinned_count -= *pinned, *pinned = 0;
  }
  pose_update(pose, first, count);
  return SKN_OK;
}

SKN_API skn_status skn_pose_set_model(skn_pose *pose, uint32_t first, uint32_t count,
                                      const float *joint_to_model16) {
  skn_status s = check_range(pose, first, count, joint_to_model16, "pose_set_model");
  if (s != SKN_OK) return s;
  for (uint32_t k = 0; k < count; ++k) {
    const float *m = joint_to_model16 + (size_t)k * 16;
    if (!skn_floats_finite(m, 16))
      return skn__fail(SKN_ERR_NOT_FINITE, "joint %u: joint_to_model matrix is not finite", first + k);
    if (!skn_mat4_is_affine(m))
      return skn__fail(SKN_ERR_INVALID_ARGUMENT, "joint %u: joint_to_model matrix is not affine "
                       "(bottom row %g %g %g %g)", first + k, m[3], m[7], m[11], m[15]);
  }
  for (uint32_t k = 0; k < count; ++k) {
    const float *m = joint_to_model16 + (size_t)k * 16;
    for (int c = 0; c < 4; ++c)
      for (int r = 0; r < 3; ++r) SKN_POSE_WORLD(pose, first + k, r, c) = m[c * 4 + r];
    uint8_t *pinned = &pose->pinned[pose->rig->position[first + k]];
    pose->pinned_count += !*pinned, *pinned = 1;
  }
  pose_update(pose, 0, 0);
  return SKN_OK;
}

/* Bytes per joint of each palette format. */
static size_t palette_entry_size(skn_palette_format f) {
  switch (f) {
  case SKN_PALETTE_MAT4: return 16 * sizeof(float);
  case SKN_PALETTE_ROWS3X4:
  case SKN_PALETTE_NORMAL_ROWS3X4: return 12 * sizeof(float);
  case SKN_PALETTE_DUAL_QUAT: return 8 * sizeof(float);
  case SKN_PALETTE_DUAL_QUAT_SCALE:
  case SKN_PALETTE_DUAL_QUAT_SCALE_KEEP_Y: return 20 * sizeof(float);
  default: return 0;
  }
}

/* Every joint's entry in format f, one loop per format: the LBS formats
 * from M_i or N_i (internal.h), the dual quaternion ones from dq_palette. */
static void write_palette(const skn_pose *pose, skn_palette_format f, float *dst) {
  const uint32_t n = pose->rig->joint_count;
  switch (f) {
  case SKN_PALETTE_MAT4:
    for (uint32_t j = 0; j < n; ++j) memcpy(dst + (size_t)j * 16, &SKN_POSE_M(pose, j, 0, 0), 16 * sizeof(float));
    break;
  case SKN_PALETTE_ROWS3X4:
    for (uint32_t j = 0; j < n; ++j, dst += 12)
      for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 4; ++c) dst[r * 4 + c] = SKN_POSE_M(pose, j, r, c);
    break;
  case SKN_PALETTE_NORMAL_ROWS3X4:
    for (uint32_t j = 0; j < n; ++j, dst += 12)
      for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 4; ++c) dst[r * 4 + c] = c < 3 ? SKN_POSE_N(pose, j, r, c) : 0.0f;
    break;
  case SKN_PALETTE_DUAL_QUAT:
    for (uint32_t j = 0; j < n; ++j) memcpy(dst + (size_t)j * 8, SKN_DQ_ENTRY(pose, 0, j) + SKN_DQ_REAL, 8 * sizeof(float));
    break;
  case SKN_PALETTE_DUAL_QUAT_SCALE:
  case SKN_PALETTE_DUAL_QUAT_SCALE_KEEP_Y:
    for (uint32_t j = 0; j < n; ++j, dst += 20) {
      const float *e = SKN_DQ_ENTRY(pose, f == SKN_PALETTE_DUAL_QUAT_SCALE_KEEP_Y, j);
      memcpy(dst, e + SKN_DQ_REAL, 8 * sizeof(float)); /* real, dual */
      for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 4; ++c) dst[8 + r * 4 + c] = e[SKN_DQ_S + 4 * c + r]; /* S_i's rows */
    }
    break;
  default: break;
  }
}

SKN_API skn_status skn_pose_palette(const skn_pose *pose, skn_palette_format format, void *dst,
                                    size_t dst_bytes) {
  if (!pose || !dst) return skn__fail(SKN_ERR_INVALID_ARGUMENT, "pose_palette: pose and dst are required");
  size_t entry = palette_entry_size(format);
  if (!entry)
    return skn__fail(SKN_ERR_INVALID_ARGUMENT, "pose_palette: format %u is not a skn_palette_format",
                     (unsigned)format);
  size_t need = entry * pose->rig->joint_count;
  if (dst_bytes < need)
    return skn__fail(SKN_ERR_INVALID_ARGUMENT, "pose_palette: dst_bytes %zu is smaller than %u joints x %zu = %zu",
                     dst_bytes, pose->rig->joint_count, entry, need);
  if (format >= SKN_PALETTE_DUAL_QUAT)
    skn__pose_derive(pose, SKN_FORMS_DQ << (format == SKN_PALETTE_DUAL_QUAT_SCALE_KEEP_Y));
  write_palette(pose, format, dst);
  return SKN_OK;
}
