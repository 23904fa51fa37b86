/* forms_simd.h — the joints' rotation forms (palette.c) FM_W joints at a
 * time, in lanes of double.
 *   - DQS (skn__dq_form): where M_i's 3x3 is a rotation within 5e-6 — the
 *     common case — rigid_i = M_i: its quaternion and the dual part
 *     qe = 1/2 (t, 0) q0 (Kavan et al. 2008, §3), S_i = I (already in the
 *     entry unless the last derivation had scaled joints); a joint that is
 *     not rigid goes to palette.c's polar split.
 *   - LBS_QUATERNION (skn__quat_forms): M_i's 3x3 = s_i R_i where it is a
 *     similarity within 1e-4, s_i^2 = trace(A^T A) / 3, and the record the
 *     kernels read (internal.h's quat_palette).
 * Quaternions by Shepperd's method (the largest of |w|, |x|, |y|, |z| from
 * the trace or a diagonal element, the other three from the off-diagonal
 * differences and sums; Shepperd 1978, J. Guidance Control 1(3)), normalized
 * once (mat3.h's skn_m3_to_quat_scaled). The same
 * double and float operations in the same order as palette.c and mat3.h,
 * each lane taking its branch by masks, so the forms are bit for bit the
 * same on every set. Eight lanes of double under AVX-512 (Zen 5 executes
 * them whole; Zen 4 in two halves, still half the instructions), four on
 * the other sets (the portable build splits them into SSE2 pairs).
 * Included by pose_<isa>.c, which names the functions
 * (SKN_DQ_FORMS_KERNEL, SKN_QUAT_FORMS_KERNEL). */
#include "kernels.h"

#include <immintrin.h>
#include <math.h>
#include <string.h>

#if defined(__AVX512F__)
#define FM_W 8
#else
#define FM_W 4
#endif

typedef float fm_q __attribute__((vector_size(16))); /* one joint's column */
typedef int fm_qi __attribute__((vector_size(16)));
typedef float fm_f __attribute__((vector_size(FM_W * sizeof(float)))); /* lanes = joints */
typedef double fm_d __attribute__((vector_size(FM_W * sizeof(double))));
typedef long long fm_m __attribute__((vector_size(FM_W * sizeof(double))));

static inline fm_d fm_sel(fm_m m, fm_d a, fm_d b) { return (fm_d)((m & (fm_m)a) | (~m & (fm_m)b)); }

static inline fm_d fm_abs(fm_d a) { return (fm_d)((fm_m)a & ((fm_m){0} + 0x7FFFFFFFFFFFFFFFll)); }

static inline fm_d fm_max(fm_d off, fm_d e) { return fm_sel(e > off, e, off); } /* a NaN e leaves off, as palette.c's */

static inline fm_d fm_sqrt(fm_d x) {
#if FM_W == 8
  return (fm_d)_mm512_sqrt_pd((__m512d)x);
#elif defined(__AVX__)
  return (fm_d)_mm256_sqrt_pd((__m256d)x);
#else
  __m128d lo, hi;
  memcpy(&lo, &x, sizeof lo);
  memcpy(&hi, (const char *)&x + sizeof lo, sizeof hi);
  lo = _mm_sqrt_pd(lo), hi = _mm_sqrt_pd(hi);
  memcpy(&x, &lo, sizeof lo);
  memcpy((char *)&x + sizeof lo, &hi, sizeof hi);
  return x;
#endif
}

/* Rows r0..r3 to columns: lane l of the result k is lane k of r_l. */
static inline void fm_transpose(fm_q o[4], fm_q r0, fm_q r1, fm_q r2, fm_q r3) {
  fm_q t0 = __builtin_shufflevector(r0, r1, 0, 4, 1, 5), t1 = __builtin_shufflevector(r2, r3, 0, 4, 1, 5);
  fm_q t2 = __builtin_shufflevector(r0, r1, 2, 6, 3, 7), t3 = __builtin_shufflevector(r2, r3, 2, 6, 3, 7);
  o[0] = __builtin_shufflevector(t0, t1, 0, 1, 4, 5), o[1] = __builtin_shufflevector(t0, t1, 2, 3, 6, 7);
  o[2] = __builtin_shufflevector(t2, t3, 0, 1, 4, 5), o[3] = __builtin_shufflevector(t2, t3, 2, 3, 6, 7);
}

/* FM_W joints' 4-float columns q[l] to lanes: o[k] lane l = q[l][k]. */
static inline void fm_to_lanes(fm_f o[4], const fm_q q[FM_W]) {
  fm_q lo[4];
  fm_transpose(lo, q[0], q[1], q[2], q[3]);
#if FM_W == 8
  fm_q hi[4];
  fm_transpose(hi, q[4], q[5], q[6], q[7]);
  _Pragma("GCC unroll 4") for (int k = 0; k < 4; ++k) o[k] = __builtin_shufflevector(lo[k], hi[k], 0, 1, 2, 3, 4, 5, 6, 7);
#else
  _Pragma("GCC unroll 4") for (int k = 0; k < 4; ++k) o[k] = lo[k];
#endif
}

/* The inverse: lanes a[0..3] to the joints' columns, q[l][k] = a[k] lane l. */
static inline void fm_to_joints(fm_q q[FM_W], fm_f a0, fm_f a1, fm_f a2, fm_f a3) {
#if FM_W == 8
  fm_q lo[4] = {__builtin_shufflevector(a0, a0, 0, 1, 2, 3), __builtin_shufflevector(a1, a1, 0, 1, 2, 3),
                __builtin_shufflevector(a2, a2, 0, 1, 2, 3), __builtin_shufflevector(a3, a3, 0, 1, 2, 3)};
  fm_q hi[4] = {__builtin_shufflevector(a0, a0, 4, 5, 6, 7), __builtin_shufflevector(a1, a1, 4, 5, 6, 7),
                __builtin_shufflevector(a2, a2, 4, 5, 6, 7), __builtin_shufflevector(a3, a3, 4, 5, 6, 7)};
  fm_transpose(q, lo[0], lo[1], lo[2], lo[3]);
  fm_transpose(q + 4, hi[0], hi[1], hi[2], hi[3]);
#else
  fm_transpose(q, a0, a1, a2, a3);
#endif
}

static inline fm_q fm_load(const float *p) {
  fm_q v;
  memcpy(&v, p, sizeof v);
  return v;
}

/* col[c][r]: element (r, c) of joints j .. j + FM_W - 1's M_i, and a:
 * their 3x3 in double, row-major (mat3.h's skn_m3_from_mat4). */
static inline void fm_load_m(fm_f col[4][4], fm_d a[9], const skn_pose *pose, uint32_t j) {
  const float *m = pose->lbs_palette + (size_t)j * SKN_PALETTE_FLOATS;
  _Pragma("GCC unroll 4") for (int c = 0; c < 4; ++c) {
    fm_q q[FM_W];
    _Pragma("GCC unroll 8") for (int l = 0; l < FM_W; ++l) q[l] = fm_load(m + (size_t)l * SKN_PALETTE_FLOATS + 4 * c);
    fm_to_lanes(col[c], q);
  }
  _Pragma("GCC unroll 4") for (int r = 0; r < 3; ++r)
    _Pragma("GCC unroll 4") for (int c = 0; c < 3; ++c) a[r * 3 + c] = __builtin_convertvector(col[c][r], fm_d);
}

/* The quaternion of the rotation a / s (row-major, lanes = joints) as
 * skn_m3_to_quat_scaled computes it, {x, y, z, w}, before its
 * normalization. */
SKN_INLINE void fm_quat_unnormalized(fm_d q[4], const fm_d a[9], fm_d s) {
  fm_d tr = a[0] + a[4] + a[8];
  fm_m c0 = tr > 0.0, c1 = ~c0 & (a[0] > a[4]) & (a[0] > a[8]), c2 = ~c0 & ~c1 & (a[4] > a[8]);
  fm_d arg = fm_sel(c0, s + tr, fm_sel(c1, s + a[0] - a[4] - a[8],
                                      fm_sel(c2, s + a[4] - a[0] - a[8], s + a[8] - a[0] - a[4])));
  fm_d d1 = a[7] - a[5], d2 = a[2] - a[6], d3 = a[3] - a[1], s1 = a[1] + a[3], s2 = a[2] + a[6], s3 = a[5] + a[7];
  q[3] = fm_sel(c0, arg, fm_sel(c1, d1, fm_sel(c2, d2, d3)));
  q[0] = fm_sel(c0, d1, fm_sel(c1, arg, fm_sel(c2, s1, s2)));
  q[1] = fm_sel(c0, d2, fm_sel(c1, s1, fm_sel(c2, arg, s3)));
  q[2] = fm_sel(c0, d3, fm_sel(c1, s2, fm_sel(c2, s3, arg)));
}

SKN_INLINE void fm_normalize(fm_d q[4]) {
  fm_d in = 1.0 / fm_sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  _Pragma("GCC unroll 4") for (int i = 0; i < 4; ++i) q[i] *= in;
}

/* det A as mat3.h's skn_m3_det computes it. */
static inline fm_d fm_det(const fm_d a[9]) {
  return a[0] * (a[4] * a[8] - a[5] * a[7]) - a[1] * (a[3] * a[8] - a[5] * a[6]) +
         a[2] * (a[3] * a[7] - a[4] * a[6]);
}

/* Lanes whose 3x3 is a rotation within SKN_DQ_RIGID_TOLERANCE (palette.c's
 * is_rotation): G = A^T A within it of I, element by element, and det A > 0. Each
 * element's test apart, not a running maximum, so that the six do not wait
 * on each other. The same lanes pass: a NaN element of G fails here and is
 * passed over by is_rotation's maximum, but G is finite for a finite A (a
 * float squared fits a double), an infinite entry of A makes a diagonal
 * element of G infinite and a NaN one makes det A NaN, failing both. */
static inline fm_m fm_rigid(const fm_d a[9]) {
  fm_m ok = fm_det(a) > 0.0;
  _Pragma("GCC unroll 4") for (int i = 0; i < 3; ++i)
    _Pragma("GCC unroll 4") for (int j = i; j < 3; ++j) { /* G is symmetric bit for bit: its products commute */
      fm_d g = a[i] * a[j] + a[3 + i] * a[3 + j] + a[6 + i] * a[6 + j];
      ok &= fm_abs(i == j ? g - 1.0 : g) <= SKN_DQ_RIGID_TOLERANCE;
    }
  return ok;
}

/* The DQS forms of FM_W joints in two halves, a run of FM_RUN groups'
 * first halves (loads, transposes, the rigid test, the quaternion up to its
 * normalization) and then their second halves (the normalization's square
 * root and division, the dual parts, the stores), so that the groups'
 * chains overlap in the core's window: one whole group is about the
 * window's size, and each waited on its own square root and division.
 * 1,000 joints: 7.6 -> 6.4 us with the run (4 to 32 groups measured the
 * same). */
#define FM_RUN 8

typedef struct fm_dq_stage {
  fm_d q[4]; /* the quaternion, not yet normalized */
  fm_f t[3]; /* M_i's translation */
  fm_m rigid;
} fm_dq_stage;

static inline void dq_forms_first(fm_dq_stage *st, const skn_pose *pose, uint32_t j) {
  fm_f col[4][4];
  fm_d a[9];
  fm_load_m(col, a, pose, j);
  /* Where the pose found every joint a rotation (pose->lbs_rigid,
   * pose_simd.h: A^T A - I within 4e-6 in float, det A > 0), this test
   * passes for every one — in double G is within 4e-6 plus float's
   * rounding of its sums (~2e-7) of I, det A near 1 — and is left out:
   * 1,000 joints' forms 6.05 -> 5.35 us. */
  st->rigid = pose->lbs_rigid ? (fm_m){0} - 1 : fm_rigid(a);
  fm_quat_unnormalized(st->q, a, (fm_d){0} + 1.0);
  _Pragma("GCC unroll 3") for (int r = 0; r < 3; ++r) st->t[r] = col[3][r];
}

/* A rigid joint's entry past its dual quaternion is the identity's;
 * s_identity: it is already there (internal.h, dq_scaled), and only the
 * dual quaternion is stored. */
static inline void dq_forms_second(fm_dq_stage *st, skn_pose *pose, uint32_t j, int split, int s_identity) {
  fm_normalize(st->q);
  fm_f real[4], dual[4], t0 = st->t[0], t1 = st->t[1], t2 = st->t[2];
  _Pragma("GCC unroll 4") for (int k = 0; k < 4; ++k) real[k] = __builtin_convertvector(st->q[k], fm_f);
  dual[0] = 0.5f * (t0 * real[3] + t1 * real[2] - t2 * real[1]);
  dual[1] = 0.5f * (t1 * real[3] + t2 * real[0] - t0 * real[2]);
  dual[2] = 0.5f * (t2 * real[3] + t0 * real[1] - t1 * real[0]);
  dual[3] = -0.5f * (t0 * real[0] + t1 * real[1] + t2 * real[2]);
  fm_q qr[FM_W], qd[FM_W]; /* per joint */
  fm_to_joints(qr, real[0], real[1], real[2], real[3]);
  fm_to_joints(qd, dual[0], dual[1], dual[2], dual[3]);
  _Pragma("GCC unroll 8") for (int l = 0; l < FM_W; ++l) {
    if (!st->rigid[l]) {
      skn__dq_form(pose, j + l, split);
      continue;
    }
    float *e = SKN_DQ_ENTRY(pose, split, j + l); /* internal.h's layout */
    memcpy(e + SKN_DQ_REAL, &qr[l], sizeof qr[l]);
    memcpy(e + SKN_DQ_DUAL, &qd[l], sizeof qd[l]);
    if (!s_identity)
      memcpy(e + SKN_DQ_S, skn__dq_identity + SKN_DQ_S, (SKN_PALETTE_FLOATS - SKN_DQ_S) * sizeof(float));
  }
}

/* The LBS_QUATERNION forms of FM_W joints (palette.c's
 * lbs_quaternion_form and quat_palette_entry) in two halves, as the DQS
 * forms: up to the quaternion's normalization, then the rest. */
typedef struct fm_quat_stage {
  fm_d q[4]; /* the quaternion of A / s, not yet normalized */
  fm_d s;    /* the similarity's scale */
  fm_m similar;
} fm_quat_stage;

static inline void quat_forms_first(fm_quat_stage *st, const skn_pose *pose, uint32_t j) {
  fm_f col[4][4];
  fm_d a[9], g[6];
  fm_load_m(col, a, pose, j);
  const int rotations = pose->lbs_rigid != 0;
  _Pragma("GCC unroll 4") for (int i = 0, k = 0; i < 3; ++i) /* A^T A's upper triangle */
    _Pragma("GCC unroll 4") for (int c = i; c < 3; ++c, ++k)
      if (c == i || !rotations) g[k] = a[i] * a[c] + a[3 + i] * a[3 + c] + a[6 + i] * a[6 + c];
  fm_d s2 = (g[0] + g[3] + g[5]) / 3.0; /* g[0], g[3], g[5]: the diagonal */
  if (rotations) {
    /* Every joint a rotation to 4e-6 (pose->lbs_rigid, as the DQS forms):
     * G within ~4.2e-6 of I and s2 of 1, so err / s2 < 1e-5 and det A > 0
     * — a similarity for certain; the off-diagonal products, the error
     * and its division are left out (1,000 joints, alternating: 0.87x). */
    st->similar = (fm_m){0} - 1;
  } else {
    fm_d err = {0};
    _Pragma("GCC unroll 8") for (int k = 0; k < 6; ++k)
      err = fm_max(err, fm_abs(k == 0 || k == 3 || k == 5 ? g[k] - s2 : g[k])); /* skn_m3_similarity_error */
    st->similar = (fm_sel(s2 > 0.0, err / s2, (fm_d){0} + INFINITY) <= 1e-4) & (fm_det(a) > 0.0);
  }
  st->s = fm_sqrt(s2);
  fm_quat_unnormalized(st->q, a, st->s);
}

/* The entry's last 16 floats are zeros from pose_create on, never written. */
static inline void quat_forms_second(fm_quat_stage *st, skn_pose *pose, uint32_t j) {
  fm_normalize(st->q);
  fm_m use = st->similar & (st->s != 0.0);
  static const double unit[4] = {0, 0, 0, 1};
  fm_f qf[4], e[10], sf = __builtin_convertvector(st->s, fm_f);
  fm_d q[4];
  _Pragma("GCC unroll 4") for (int k = 0; k < 4; ++k) {
    qf[k] = __builtin_convertvector(fm_sel(use, st->q[k], (fm_d){0} + unit[k]), fm_f); /* (float)1.0 either way */
    q[k] = __builtin_convertvector(qf[k], fm_d);
  }
  fm_d sd = __builtin_convertvector(sf, fm_d), x = q[0], y = q[1], z = q[2], w = q[3];
  fm_d rot[9] = {1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w),
                2 * (x * y + z * w),     1 - 2 * (x * x + z * z), 2 * (y * z - x * w),
                2 * (x * z - y * w),     2 * (y * z + x * w), 1 - 2 * (x * x + y * y)};
  _Pragma("GCC unroll 9") for (int i = 0; i < 9; ++i) e[i] = __builtin_convertvector(sd * rot[i], fm_f);
  e[9] = __builtin_convertvector(fm_sel(sd > 0.0, 1.0 / (sd * sd), (fm_d){0}), fm_f);
  fm_q row0[FM_W], row1[FM_W], quat[FM_W];
  fm_to_joints(row0, e[0], e[1], e[2], e[3]);
  fm_to_joints(row1, e[4], e[5], e[6], e[7]);
  fm_to_joints(quat, qf[0], qf[1], qf[2], qf[3]);
  _Pragma("GCC unroll 8") for (int l = 0; l < FM_W; ++l) {
    skn_joint_xform *xf = &pose->xforms[j + l];
    const float *c = pose->rig->bind[j + l] + 12; /* c_i, and b_i = W_i^A's origin */
    const float b[3] = {SKN_POSE_WORLD(pose, j + l, 0, 3), SKN_POSE_WORLD(pose, j + l, 1, 3),
                        SKN_POSE_WORLD(pose, j + l, 2, 3)};
    float *p = pose->quat_palette + (size_t)(j + l) * SKN_PALETTE_FLOATS;
    memcpy(xf->q, &quat[l], sizeof quat[l]);
    xf->s = sf[l];
    memcpy(xf->b, b, sizeof xf->b);
    xf->similar = st->similar[l] != 0;
    memcpy(p, &row0[l], sizeof row0[l]);
    memcpy(p + 4, &row1[l], sizeof row1[l]);
    p[8] = e[8][l];
    memcpy(p + 9, b, 3 * sizeof *p);
    memcpy(p + 12, c, 3 * sizeof *p);
    p[15] = e[9][l];
  }
}

void SKN_DQ_FORMS_KERNEL(skn_pose *pose, int split, int s_identity) {
  uint32_t n = pose->rig->joint_count, j = 0;
  fm_dq_stage st[FM_RUN];
  for (; j + FM_W <= n;) {
    uint32_t groups = SKN_MIN((uint32_t)FM_RUN, (n - j) / FM_W);
    for (uint32_t g = 0; g < groups; ++g) dq_forms_first(&st[g], pose, j + g * FM_W);
    for (uint32_t g = 0; g < groups; ++g) dq_forms_second(&st[g], pose, j + g * FM_W, split, s_identity);
    j += groups * FM_W;
  }
  for (; j < n; ++j) skn__dq_form(pose, j, split);
}

void SKN_QUAT_FORMS_KERNEL(skn_pose *pose) {
  uint32_t n = pose->rig->joint_count, j = 0;
  fm_quat_stage st[FM_RUN];
  for (; j + FM_W <= n;) {
    uint32_t groups = SKN_MIN((uint32_t)FM_RUN, (n - j) / FM_W);
    for (uint32_t g = 0; g < groups; ++g) quat_forms_first(&st[g], pose, j + g * FM_W);
    for (uint32_t g = 0; g < groups; ++g) quat_forms_second(&st[g], pose, j + g * FM_W);
    j += groups * FM_W;
  }
  for (; j < n; ++j) skn__quat_form(pose, j);
}
