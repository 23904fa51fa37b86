/* pose_simd.h — skn_pose_set_local's work for a whole skeleton: the local
 * transforms validated and composed from TRS, forward kinematics
 * W_i^A = W_parent^A local_i, and the LBS palette M_i = W_i^A (W_i^R)^-1
 * with its normal matrix N_i = M_i^-T (eq. 4, 9).
 *
 * All of it runs across joints, a group of SKN_L (soa.h: 16 under AVX-512)
 * at a time, one vector per matrix element: the pose keeps its matrices by
 * position in the order forward kinematics walks (internal.h), and a level
 * of the hierarchy depends only on the level before, so forward kinematics
 * goes level by level, each group permuting its parents' elements out of
 * the level before (gathering them where they are far apart). A level
 * narrower than a few lanes (a chain: a spine, a tail, fingers) goes a
 * joint at a time instead. The matrices are turned around (soa.h's
 * transposes) only where they meet a per-joint layout: the caller's
 * skn_transform array and the palette. Validation composes the locals as it
 * goes, into a buffer of their own that becomes the pose's once every
 * transform has passed (the whole skeleton: the two buffers trade places).
 *
 * The arithmetic is the plain formula in the same order on every set and
 * in every path (C99 does not contract a * b + c), so the palette is bit
 * for bit the same whichever set runs. Included by pose_<isa>.c, which
 * name the functions (SKN_POSE_STAGE_KERNEL, SKN_POSE_KERNEL). */
#include "kernels.h"
#include "soa.h"

#include "../math/mat4.h"

typedef double dlanes __attribute__((vector_size(SKN_L * sizeof(double))));
typedef uint32_t ulanes __attribute__((vector_size(SKN_L * sizeof(uint32_t))));

#define SKN_LANE_INDEX(l, a) (l)

/* l in lane l. */
SKN_INLINE ilanes lanes_index(void) { return (ilanes){SKN_IL(SKN_LANE_INDEX, 0)}; }

/* Levels narrower than this go a joint at a time. */
#define SKN_FK_MIN_LANES 4u

/* base[idx[l]] in lane l. */
SKN_INLINE lanes lanes_gather(const float *base, ilanes idx) {
#if SKN_L == 16
  return (lanes)_mm512_i32gather_ps((__m512i)idx, base, 4);
#elif SKN_L == 8
  return (lanes)_mm256_i32gather_ps(base, (__m256i)idx, 4);
#else
  return (lanes){base[idx[0]], base[idx[1]], base[idx[2]], base[idx[3]]};
#endif
}

/* The pair (a, b)'s element idx[l] in lane l: a's for idx < SKN_L, b's
 * for idx < 2 SKN_L (higher bits ignored). */
SKN_INLINE lanes lanes_permute2(lanes a, lanes b, ilanes idx) {
#if SKN_L == 16
  return (lanes)_mm512_permutex2var_ps((__m512)a, (__m512i)idx, (__m512)b);
#elif SKN_L == 8
  __m256 lo = _mm256_permutevar8x32_ps((__m256)a, (__m256i)idx), hi = _mm256_permutevar8x32_ps((__m256)b, (__m256i)idx);
  return (lanes)_mm256_blendv_ps(lo, hi, (__m256)(idx << 28)); /* bit 3 of idx, moved to the sign */
#else
  float f[2 * SKN_L];
  memcpy(f, &a, sizeof a);
  memcpy(f + SKN_L, &b, sizeof b);
  return (lanes){f[idx[0] & 7], f[idx[1] & 7], f[idx[2] & 7], f[idx[3] & 7]};
#endif
}

SKN_INLINE ilanes ilanes_load(const void *p) {
  ilanes r;
  memcpy(&r, p, sizeof r);
  return r;
}

/* 1s in the lanes whose joint (order[k0 + l]) is in [first, first + count). */
SKN_INLINE ilanes lanes_in_range(const skn_rig *rig, uint32_t k0, uint32_t first, uint32_t count) {
  ulanes i = (ulanes)ilanes_load(rig->order + k0) - first; /* wraps below first; UINT32_MAX past the joints */
  return (ilanes)(i < count);
}

/* The inverse for 16 elements: in[e] to each lane's row at dst[l], for the
 * lanes l < used; with `copy`, the row's first 12 elements again 16 floats
 * on and 4 zeros after them (a palette entry's N = M's 3x3, palette_group). */
SKN_INLINE void lanes_scatter_rows(float *const dst[SKN_L], const lanes in[16], int used, const int copy) {
  SKN_UNROLL for (int h = 0; h * SKN_L < 16; ++h) {
    lanes r[SKN_L];
    SKN_UNROLL for (int i = 0; i < SKN_L; ++i) r[i] = in[h * SKN_L + i];
    lanes_transpose(r);
    ilanes first12 = lanes_index() + h * SKN_L < 12;
    SKN_UNROLL for (int l = 0; l < used; ++l) {
      lanes_store(dst[l] + h * SKN_L, r[l]);
      if (copy) lanes_store(dst[l] + 16 + h * SKN_L, (lanes)(first12 & (ilanes)r[l]));
    }
  }
}

/* ---- validation and staging ---- */

/* local = T R S (glTF 2.0 sec. 3.5.3) per lane, as skn_mat4_from_trs: R the
 * rotation of q / |q| for any non-zero q, I + (2/|q|^2)(w [v]x + [v]x^2). */
SKN_INLINE void local_from_trs(lanes m[SKN_MAT_ROWS], const lanes t[SKN_TRS_ROWS]) {
  lanes x = t[3], y = t[4], z = t[5], w = t[6];
  lanes k = 2.0f / (x * x + y * y + z * z + w * w);
  lanes xk = x * k, yk = y * k, zk = z * k;
  lanes xx = x * xk, yy = y * yk, zz = z * zk, xy = x * yk, xz = x * zk, yz = y * zk;
  lanes wx = w * xk, wy = w * yk, wz = w * zk;
  m[0] = (1.0f - (yy + zz)) * t[7], m[1] = (xy + wz) * t[7], m[2] = (xz - wy) * t[7];
  m[3] = (xy - wz) * t[8], m[4] = (1.0f - (xx + zz)) * t[8], m[5] = (yz + wx) * t[8];
  m[6] = (xz + wy) * t[9], m[7] = (yz - wx) * t[9], m[8] = (1.0f - (xx + yy)) * t[9];
  m[9] = t[0], m[10] = t[1], m[11] = t[2];
}

/* The row of a lane whose joint is outside the range: an identity
 * transform, padded to 16 floats. */
static const float trs_identity[16] = {0, 0, 0, 0, 0, 0, 1, 1, 1, 1};

/* Stages the group at position k0: its locals composed (pose->staged),
 * and returns 1s in its lanes whose transform has a NaN or infinity (f - f
 * is 0 only for finite f; the sum keeps a NaN) or a zero quaternion (the
 * |q|^2 the local divides by). A lane's row is 16 floats from its
 * transform's start: past the 40 bytes of the range's last transform,
 * which is read from `last` instead. */
SKN_INLINE ilanes stage_group(skn_pose *pose, uint32_t k0, uint32_t first, uint32_t count,
                              const skn_transform *local, const float *last) {
  const float *src[SKN_L];
  SKN_UNROLL for (int l = 0; l < SKN_L; ++l) {
    uint32_t i = pose->rig->order[k0 + (uint32_t)l] - first; /* wraps below first */
    src[l] = i >= count ? trs_identity : i + 1 == count ? last : (const float *)&local[i];
  }
  lanes t[SKN_TRS_ROWS], m[SKN_MAT_ROWS];
  lanes_gather_rows(t, SKN_TRS_ROWS, src);
  lanes z = t[0] - t[0];
  SKN_UNROLL for (int e = 1; e < SKN_TRS_ROWS; ++e) z += t[e] - t[e];
  lanes qq = t[3] * t[3] + t[4] * t[4] + t[5] * t[5] + t[6] * t[6];
  local_from_trs(m, t);
  SKN_UNROLL for (int e = 0; e < SKN_MAT_ROWS; ++e) lanes_store(pose->staged + e * pose->rig->joint_stride + k0, m[e]);
  return ~((ilanes)(z == 0.0f) & (ilanes)(qq != 0.0f));
}

uint32_t SKN_POSE_STAGE_KERNEL(skn_pose *pose, uint32_t first, uint32_t count, const skn_transform *local) {
  const skn_rig *rig = pose->rig;
  float last[16] = {0};
  memcpy(last, &local[count - 1], sizeof local[0]);
  uint32_t bad = count;
  for (uint32_t k0 = 0; k0 < rig->joint_count; k0 += SKN_L) {
    if (!lanes_any(lanes_in_range(rig, k0, first, count))) continue;
    ilanes refused = stage_group(pose, k0, first, count, local, last);
    for (int l = 0; lanes_any(refused) && l < SKN_L; ++l) /* lanes outside the range are identities */
      if (refused[l]) bad = SKN_MIN(bad, rig->order[k0 + (uint32_t)l] - first);
  }
  return bad;
}

/* The staged locals of joints [first, first + count) become the pose's:
 * the whole skeleton by trading the two buffers, a part lane by lane. */
static void commit_locals(skn_pose *pose, uint32_t first, uint32_t count) {
  const skn_rig *rig = pose->rig;
  if (first == 0 && count == rig->joint_count) {
    float *t = pose->local;
    pose->local = pose->staged, pose->staged = t;
    return;
  }
  size_t stride = rig->joint_stride;
  for (uint32_t k0 = 0; k0 < rig->joint_count; k0 += SKN_L) {
    ilanes in = lanes_in_range(rig, k0, first, count);
    if (!lanes_any(in)) continue;
    SKN_UNROLL for (int e = 0; e < SKN_MAT_ROWS; ++e) {
      float *p = pose->local + e * stride + k0;
      lanes_store(p, lanes_select(in, lanes_load(p), lanes_load(pose->staged + e * stride + k0)));
    }
  }
}

/* ---- forward kinematics ---- */

/* c = a b for affine 3x4s in rows (element (r, c) in row 3c + r):
 * c(r,c) = a(r,0) b(0,c) + a(r,1) b(1,c) + a(r,2) b(2,c) (+ a(r,3) in
 * column 3), skn_cols_mul_affine's order. */
SKN_INLINE void lanes_mul_affine(lanes c[SKN_MAT_ROWS], const lanes a[SKN_MAT_ROWS], const lanes b[SKN_MAT_ROWS]) {
  SKN_UNROLL for (int col = 0; col < 4; ++col)
    SKN_UNROLL for (int r = 0; r < 3; ++r) {
      c[3 * col + r] = a[r] * b[3 * col] + a[3 + r] * b[3 * col + 1] + a[6 + r] * b[3 * col + 2];
      if (col == 3) c[3 * col + r] += a[9 + r];
    }
}

/* A joint's matrix as 4-lane columns (mat4.h) from by-position rows, m
 * pointing at its position in row 0: element (r, c) at m[(3c + r) s]. */
static inline void load_cols(skn_mat4_col w[4], const float *m, size_t s) {
  SKN_UNROLL for (int c = 0; c < 4; ++c)
    w[c] = (skn_mat4_col){m[3 * c * s], m[(3 * c + 1) * s], m[(3 * c + 2) * s], c == 3 ? 1.0f : 0.0f};
}

/* The levels' joints at positions [k, end) a joint at a time, in 4-lane
 * columns (skn_cols_mul_affine_at: the same formula as the lanes'), the
 * last joint's W^A kept in registers for its child: along a chain (a spine,
 * a tail, fingers) each joint waits for its parent, and a round trip
 * through memory would add to every link. */
static void fk_joints(skn_pose *pose, uint32_t k, uint32_t end) {
  size_t s = pose->rig->joint_stride;
  /* four variables, not an array: copied whole, an array goes through the
   * stack, and the next joint's loads wait for its stores */
  skn_mat4_col last0 = {0}, last1 = last0, last2 = last0, last3 = last0;
  uint32_t last_k = UINT32_MAX;
  for (; k < end; ++k) {
    if (pose->pinned[k]) continue;
    int32_t p = pose->rig->parent_position[k];
    skn_mat4_col a[4], w[4];
    if (p < 0) {
      load_cols(w, pose->local + k, s); /* a root: W^A = local */
    } else {
      if ((uint32_t)p == last_k) a[0] = last0, a[1] = last1, a[2] = last2, a[3] = last3;
      else load_cols(a, pose->world + p, s);
      skn_cols_mul_affine_at(w, a, pose->local + k, s, 3 * s);
    }
    SKN_UNROLL for (int c = 0; c < 4; ++c)
      SKN_UNROLL for (int r = 0; r < 3; ++r) pose->world[(3 * c + r) * s + k] = w[c][r];
    last0 = w[0], last1 = w[1], last2 = w[2], last3 = w[3], last_k = k;
  }
}

/* The W^A of the parents of positions [k0, k0 + SKN_L) of a level ending at
 * `end`, element e in a[e]. Breadth-first order (skn__order_joints) makes
 * the parents of a level's run nondecreasing positions: where they span
 * fewer than 2 SKN_L (a binary tree's 16 children have 8 parents; a fan's,
 * one), two vector loads and a permute per element, else a gather. Lanes
 * past the level get any element (fk_group keeps their W^A). */
SKN_INLINE void load_parents(lanes a[SKN_MAT_ROWS], const skn_pose *pose, uint32_t k0, uint32_t end) {
  const skn_rig *rig = pose->rig;
  size_t s = rig->joint_stride;
  ilanes parent = ilanes_load(rig->parent_position + k0);
  uint32_t base = (uint32_t)rig->parent_position[k0];
  uint32_t span = (uint32_t)rig->parent_position[SKN_MIN(end, k0 + SKN_L) - 1] - base;
  if (span < 2 * SKN_L && base + 2 * SKN_L <= s) { /* the row's two vectors stay inside it */
    ilanes idx = parent - (int32_t)base;
    SKN_UNROLL for (int e = 0; e < SKN_MAT_ROWS; ++e) {
      const float *row = pose->world + e * s + base;
      a[e] = lanes_permute2(lanes_load(row), lanes_load(row + SKN_L), idx);
    }
  } else {
    SKN_UNROLL for (int e = 0; e < SKN_MAT_ROWS; ++e) a[e] = lanes_gather(pose->world + e * s, parent);
  }
}

/* Positions [k0, k0 + SKN_L) of a level ending at `end`: each lane's parent
 * read by load_parents (none: level 0, W^A = local). Pinned joints keep
 * their W^A, and so, where some joint is pinned, do the lanes past the
 * level; where none is, those lanes take what they get: they are the next
 * level's, computed after this one, or the padding past joint_count. */
static void fk_group(skn_pose *pose, uint32_t k0, uint32_t end, int roots) {
  const skn_rig *rig = pose->rig;
  size_t s = rig->joint_stride;
  lanes l[SKN_MAT_ROWS], w[SKN_MAT_ROWS];
  SKN_UNROLL for (int e = 0; e < SKN_MAT_ROWS; ++e) l[e] = lanes_load(pose->local + e * s + k0);
  if (roots) {
    SKN_UNROLL for (int e = 0; e < SKN_MAT_ROWS; ++e) w[e] = l[e];
  } else {
    lanes a[SKN_MAT_ROWS];
    load_parents(a, pose, k0, end);
    lanes_mul_affine(w, a, l);
  }
  if (pose->pinned_count == 0) {
    SKN_UNROLL for (int e = 0; e < SKN_MAT_ROWS; ++e) lanes_store(pose->world + e * s + k0, w[e]);
    return;
  }
  uint8_t pinned[SKN_L];
  memcpy(pinned, pose->pinned + k0, sizeof pinned);
  ilanes keep = (ilanes)((ulanes)lanes_index() + k0 >= end);
  SKN_UNROLL for (int i = 0; i < SKN_L; ++i) keep[i] |= -(int32_t)pinned[i];
  SKN_UNROLL for (int e = 0; e < SKN_MAT_ROWS; ++e) {
    float *p = pose->world + e * s + k0;
    lanes_store(p, lanes_select(keep, w[e], lanes_load(p)));
  }
}

/* Level by level; a run of narrow levels a joint at a time, in one pass so
 * that a chain keeps its last joint in registers. */
static void forward_kinematics(skn_pose *pose) {
  const skn_rig *rig = pose->rig;
  const uint32_t *start = rig->level_start;
  for (uint32_t d = 0; d < rig->level_count;) {
    if (start[d + 1] - start[d] < SKN_FK_MIN_LANES) {
      uint32_t e = d + 1;
      while (e < rig->level_count && start[e + 1] - start[e] < SKN_FK_MIN_LANES) ++e;
      fk_joints(pose, start[d], start[e]);
      d = e;
    } else {
      for (uint32_t k = start[d]; k < start[d + 1]; k += SKN_L) fk_group(pose, k, start[d + 1], d == 0);
      ++d;
    }
  }
}

/* ---- the palette ---- */

SKN_INLINE void lanes_cross(lanes n[3], const lanes *a, const lanes *b) { /* as skn_col_cross */
  SKN_UNROLL for (int i = 0; i < 3; ++i) n[i] = a[(i + 1) % 3] * b[(i + 2) % 3] - a[(i + 2) % 3] * b[(i + 1) % 3];
}

SKN_INLINE dlanes lanes_dot3(const lanes *a, const lanes *b) { /* in float, then widened */
  return __builtin_convertvector(a[0] * b[0] + a[1] * b[1] + a[2] * b[2], dlanes);
}

/* 1s in the lanes where A = M's 3x3 is a rotation to SKN_ROTATION_TOLERANCE
 * (every entry of A^T A - I within it, det A > 0). There A^-T = A (2I - A^T A)
 * + O(|A^T A - I|^2) differs from A by no more than the tolerance — the
 * float error FK's products leave anyway (a 64-joint chain's last joint:
 * 7e-7) — so the normal matrix stored is A itself, and the LBS kernels,
 * seeing every joint so (pose->lbs_rigid), blend one matrix per influence
 * instead of two (lbs_simd.h). */
SKN_INLINE ilanes lanes_rotation_mask(const lanes a[SKN_MAT_ROWS], lanes det) {
  const lanes tol = lanes_splat(SKN_ROTATION_TOLERANCE);
  ilanes ok = det > lanes_splat(0.0f);
  SKN_UNROLL for (int c = 0; c < 3; ++c)
    SKN_UNROLL for (int e = c; e < 3; ++e) {
      lanes g = a[3 * c] * a[3 * e] + a[3 * c + 1] * a[3 * e + 1] + a[3 * c + 2] * a[3 * e + 2];
      g -= lanes_splat(c == e ? 1.0f : 0.0f);
      ok &= (g <= tol) & (g >= -tol);
    }
  return ok;
}

/* N = cof(A) / det A for A = M's 3x3 (cof(A)'s columns a1 x a2, a2 x a0,
 * a0 x a1; det A = a0 . (a1 x a2)), with n[0..2] = a1 x a2 and det given,
 * or A in the lanes where A is a rotation. Where A is singular under the
 * contract's rule (mat4.h: |det| <= 1e-7 |a0| |a1| |a2|, here squared, in
 * double: no overflow below column lengths of 1e12) N is the cofactor
 * matrix alone (times 1): its columns still span the normals' directions,
 * which the kernels normalize. Only that comparison is in double, and its
 * sign comes back to float to be tested: 1024-bit double masks have no
 * instructions, and GCC compared them a lane at a time (a third of the
 * pose's time). 1 / det in float is the double quotient rounded (float
 * division is correctly rounded). */
SKN_INLINE void lanes_normal_matrix(lanes n[9], const lanes a[SKN_MAT_ROWS], lanes det, ilanes rotation) {
  lanes_cross(n + 3, a + 6, a);
  lanes_cross(n + 6, a, a + 3);
  dlanes ddet = __builtin_convertvector(det, dlanes);
  dlanes len2 = lanes_dot3(a, a) * lanes_dot3(a + 3, a + 3) * lanes_dot3(a + 6, a + 6);
  /* a positive margin below FLT_MIN rounds to 0: singular, as at the rule's edge */
  ilanes regular = __builtin_convertvector(ddet * ddet - 1e-14 * len2, lanes) > 0.0f;
  lanes f = lanes_select(regular, lanes_splat(1.0f), 1.0f / det);
  SKN_UNROLL for (int e = 0; e < 9; ++e) n[e] = lanes_select(rotation, n[e] * f, a[e]);
}

/* The palette entries of the joints at positions [k0, k0 + SKN_L) below
 * joint_count: M's 4x4 and N's three columns padded and a zero column
 * (internal.h), at their joints' indices. Where every joint of the group is
 * a rotation (lanes_rotation_mask), N = M's 3x3: stored from M's transposed
 * rows as M's first 12 floats and zeros if `copy_n`, else not at all (a
 * pose whose joints are all rotations reads N from M: internal.h's
 * SKN_POSE_N, and the LBS kernels blend M alone); elsewhere N is computed
 * and turned around apart. Returns 1 where the group was all rotations. */
static int palette_group(skn_pose *pose, uint32_t k0, int copy_n) {
  const skn_rig *rig = pose->rig;
  size_t s = rig->joint_stride;
  int used = (int)SKN_MIN((uint32_t)SKN_L, rig->joint_count - k0);
  float *dst[SKN_L] = {NULL};
  for (int l = 0; l < used; ++l) dst[l] = pose->lbs_palette + (size_t)rig->order[k0 + (uint32_t)l] * SKN_PALETTE_FLOATS;
  lanes w[SKN_MAT_ROWS], b[SKN_MAT_ROWS], m[SKN_MAT_ROWS], n[9], out[16];
  SKN_UNROLL for (int e = 0; e < SKN_MAT_ROWS; ++e) {
    w[e] = lanes_load(pose->world + e * s + k0);
    b[e] = lanes_load(rig->inverse_bind + e * s + k0);
  }
  lanes_mul_affine(m, w, b); /* M_i = W_i^A (W_i^R)^-1 */
  lanes_cross(n, m + 3, m + 6);
  lanes det = m[0] * n[0] + m[1] * n[1] + m[2] * n[2];
  ilanes rotation = lanes_rotation_mask(m, det);
  int rigid = !lanes_any(~rotation & (lanes_index() < used));
  lanes zero = lanes_splat(0.0f);
  SKN_UNROLL for (int c = 0; c < 4; ++c) {
    SKN_UNROLL for (int r = 0; r < 3; ++r) out[4 * c + r] = m[3 * c + r];
    out[4 * c + 3] = c < 3 ? zero : lanes_splat(1.0f);
  }
  if (rigid) {
    lanes_scatter_rows(dst, out, used, copy_n);
    return 1;
  }
  lanes_scatter_rows(dst, out, used, 0);
  lanes_normal_matrix(n, m, det, rotation);
  SKN_UNROLL for (int c = 0; c < 4; ++c) {
    SKN_UNROLL for (int r = 0; r < 3; ++r) out[4 * c + r] = c < 3 ? n[3 * c + r] : zero;
    out[4 * c + 3] = zero;
  }
  SKN_UNROLL for (int l = 0; l < used; ++l) dst[l] += 16;
  lanes_scatter_rows(dst, out, used, 0);
  return 0;
}

/* N = M's 3x3 and zeros for the joints at positions [0, end), all
 * rotations, whose N palette_group left out before it met one that is not. */
static void backfill_n(skn_pose *pose, uint32_t end) {
  for (uint32_t k = 0; k < end; ++k) {
    float *e = pose->lbs_palette + (size_t)pose->rig->order[k] * SKN_PALETTE_FLOATS;
    memcpy(e + 16, e, 12 * sizeof *e);
    memset(e + 28, 0, 4 * sizeof *e);
  }
}

/* The LBS palette's N entries are written only where some joint is not a
 * rotation (pose->lbs_rigid = 0): a pose of rotations, the common case,
 * stores half the palette (1,000 joints: set_local 5.8 -> 5.5 us). */
void SKN_POSE_KERNEL(skn_pose *pose, uint32_t first, uint32_t count) {
  if (count) commit_locals(pose, first, count);
  forward_kinematics(pose);
  pose->lbs_rigid = 1;
  for (uint32_t k0 = 0; k0 < pose->rig->joint_count; k0 += SKN_L)
    if (!palette_group(pose, k0, !pose->lbs_rigid) && pose->lbs_rigid) {
      pose->lbs_rigid = 0;
      backfill_n(pose, k0);
    }
}
