/* pose_simd.h — local transforms from TRS, forward kinematics and the LBS
 * palette, a joint at a time, parents first: W_i^A = W_parent^A local_i, M_i = W_i^A (W_i^R)^-1 and its
 * normal matrix N_i = M_i^-T (eq. 4, 9), matrices as 4-lane columns
 * (mat4.h). Included by pose_<isa>.c, which name the function
 * (SKN_POSE_KERNEL) and build it for their instruction set: the arithmetic
 * is the same plain formula on every set (C99 does not contract a * b + c),
 * so the palette is bit for bit the same whichever runs; wider sets gain
 * three-operand forms and broadcasts from memory. */
#include "kernels.h"

#include "../math/mat4.h"

/* N = cof(A) / det A for A = M_i's 3x3: cof(A)'s columns are a1 x a2,
 * a2 x a0 and a0 x a1 (a_c: A's columns) and det A = a0 . (a1 x a2). Where
 * A is singular under the contract's rule (mat4.h: |det| <= 1e-7 |a0| |a1|
 * |a2|, here squared, the product in double: no overflow below column
 * lengths of 1e12) N is the cofactor matrix alone: its columns still span
 * the normals' directions, which the kernels normalize. */
static inline void normal_columns(skn_mat4_col n[3], const skn_mat4_col a[3]) {
  n[0] = skn_col_cross(a[1], a[2]);
  n[1] = skn_col_cross(a[2], a[0]);
  n[2] = skn_col_cross(a[0], a[1]);
  double det = skn_col_dot3(a[0], n[0]);
  double len2 = (double)skn_col_dot3(a[0], a[0]) * skn_col_dot3(a[1], a[1]) * skn_col_dot3(a[2], a[2]);
  if (det * det > 1e-14 * len2) {
    float inv = (float)(1.0 / det);
    for (int c = 0; c < 3; ++c) n[c] *= inv;
  }
}

/* Four columns to dst, one vector store apiece (copying the array whole
 * would make the compiler keep it in memory). */
static inline void store_cols(float *dst, const skn_mat4_col c[4]) {
  for (int i = 0; i < 4; ++i) memcpy(dst + 4 * i, &c[i], sizeof c[i]);
}

void SKN_POSE_KERNEL(skn_pose *pose, uint32_t first, uint32_t count, const skn_transform *local) {
  const skn_rig *rig = pose->rig;
  for (uint32_t k = 0; local && k < count; ++k) {
    skn_mat4_from_trs(pose->local[first + k], local[k].translation, local[k].rotation, local[k].scale);
    pose->pinned[first + k] = 0;
  }
  for (uint32_t k = 0; k < rig->joint_count; ++k) {
    uint32_t j = rig->order[k];
    int32_t p = rig->parents[j];
    const float *l = pose->local[j], *wp = p < 0 ? NULL : pose->world[p];
    skn_mat4_col w[4], m[4], n[4];
    if (pose->pinned[j]) { /* W_i^A given by skn_pose_set_model */
      skn_cols_load(w, pose->world[j]);
    } else {
      if (wp) {
        skn_mat4_col a[4];
        skn_cols_load(a, wp);
        skn_cols_mul_affine(w, a, l);
      } else {
        skn_cols_load(w, l); /* a root: W_i^A = local */
      }
      store_cols(pose->world[j], w);
    }
    skn_cols_mul_affine(m, w, rig->inverse_bind[j]); /* M_i = W_i^A (W_i^R)^-1 */
    normal_columns(n, m);
    n[3] = (skn_mat4_col){0, 0, 0, 0};
    float *e = pose->lbs_palette + (size_t)j * SKN_PALETTE_FLOATS;
    store_cols(e, m);
    store_cols(e + 16, n);
  }
}
