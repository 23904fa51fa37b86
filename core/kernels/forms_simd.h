/* forms_simd.h — the joints' rotation forms (palette.c) four joints at a
 * time, in lanes of double.
 *   - DQS (skn__dq_form): where M_i's 3x3 is a rotation within 1e-4 — the
 *     common case — rigid_i = M_i: its quaternion and the dual part
 *     qe = 1/2 (t, 0) q0 (Kavan et al. 2008, §3), S_i = I; a joint that is
 *     not rigid goes to palette.c's polar split.
 *   - LBS_QUATERNION (skn__quat_forms): M_i's 3x3 = s_i R_i where it is a
 *     similarity within 1e-4, s_i^2 = trace(A^T A) / 3, and the record the
 *     kernels read (internal.h's quat_palette).
 * Quaternions by Shepperd's method (the largest of |w|, |x|, |y|, |z| from
 * the trace or a diagonal element, the other three from the off-diagonal
 * differences and sums; Shepperd 1978, J. Guidance Control 1(3)). The same
 * double and float operations in the same order as palette.c and mat3.h,
 * each lane taking its branch by masks, so the forms are bit for bit the
 * same on every set. Four lanes of double on every set: 256 bits, the
 * widest Zen 4 executes per operation; the portable build splits them into
 * SSE2 pairs. Included by pose_<isa>.c, which names the functions
 * (SKN_DQ_FORMS_KERNEL, SKN_QUAT_FORMS_KERNEL). */
#include "kernels.h"

#include <immintrin.h>
#include <math.h>
#include <string.h>

typedef float dqf __attribute__((vector_size(16)));
typedef int dqi __attribute__((vector_size(16)));
typedef double dqd __attribute__((vector_size(32)));
typedef long long dqm __attribute__((vector_size(32)));

static inline dqd dq_sel(dqm m, dqd a, dqd b) { return (dqd)((m & (dqm)a) | (~m & (dqm)b)); }

static inline dqd dq_abs(dqd a) { return (dqd)((dqm)a & ((dqm){0} + 0x7FFFFFFFFFFFFFFFll)); }

static inline dqd dq_max(dqd off, dqd e) { return dq_sel(e > off, e, off); } /* a NaN e leaves off, as palette.c's */

static inline dqd dq_sqrt(dqd x) {
#if defined(__AVX__)
  return (dqd)_mm256_sqrt_pd((__m256d)x);
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
static inline void dq_transpose(dqf o[4], dqf r0, dqf r1, dqf r2, dqf r3) {
  dqf t0 = __builtin_shuffle(r0, r1, (dqi){0, 4, 1, 5}), t1 = __builtin_shuffle(r2, r3, (dqi){0, 4, 1, 5});
  dqf t2 = __builtin_shuffle(r0, r1, (dqi){2, 6, 3, 7}), t3 = __builtin_shuffle(r2, r3, (dqi){2, 6, 3, 7});
  o[0] = __builtin_shuffle(t0, t1, (dqi){0, 1, 4, 5}), o[1] = __builtin_shuffle(t0, t1, (dqi){2, 3, 6, 7});
  o[2] = __builtin_shuffle(t2, t3, (dqi){0, 1, 4, 5}), o[3] = __builtin_shuffle(t2, t3, (dqi){2, 3, 6, 7});
}

static inline dqf dq_load(const float *p) {
  dqf v;
  memcpy(&v, p, sizeof v);
  return v;
}

/* col[c][r]: element (r, c) of joints j .. j + 3's M_i, and a: their 3x3
 * in double, row-major (mat3.h's skn_m3_from_mat4). */
static inline void dq_load_m(dqf col[4][4], dqd a[9], const skn_pose *pose, uint32_t j) {
  const float *m = pose->lbs_palette + (size_t)j * SKN_PALETTE_FLOATS;
  _Pragma("GCC unroll 4") for (int c = 0; c < 4; ++c)
    dq_transpose(col[c], dq_load(m + 4 * c), dq_load(m + SKN_PALETTE_FLOATS + 4 * c),
                 dq_load(m + 2 * SKN_PALETTE_FLOATS + 4 * c), dq_load(m + 3 * SKN_PALETTE_FLOATS + 4 * c));
  _Pragma("GCC unroll 4") for (int r = 0; r < 3; ++r)
    _Pragma("GCC unroll 4") for (int c = 0; c < 3; ++c) a[r * 3 + c] = __builtin_convertvector(col[c][r], dqd);
}

/* The quaternion of the rotation a (row-major, lanes = joints) as
 * skn_m3_to_quat computes it: {x, y, z, w}. */
static inline void dq_quat(dqd q[4], const dqd a[9]) {
  dqd tr = a[0] + a[4] + a[8];
  dqm c0 = tr > 0.0, c1 = ~c0 & (a[0] > a[4]) & (a[0] > a[8]), c2 = ~c0 & ~c1 & (a[4] > a[8]);
  dqd arg = dq_sel(c0, 1.0 + tr, dq_sel(c1, 1.0 + a[0] - a[4] - a[8],
                                        dq_sel(c2, 1.0 + a[4] - a[0] - a[8], 1.0 + a[8] - a[0] - a[4])));
  dqd s = 2.0 * dq_sqrt(arg), is = 1.0 / s, h = 0.25 * s;
  dqd d1 = (a[7] - a[5]) * is, d2 = (a[2] - a[6]) * is, d3 = (a[3] - a[1]) * is;
  dqd s1 = (a[1] + a[3]) * is, s2 = (a[2] + a[6]) * is, s3 = (a[5] + a[7]) * is;
  q[3] = dq_sel(c0, h, dq_sel(c1, d1, dq_sel(c2, d2, d3)));
  q[0] = dq_sel(c0, d1, dq_sel(c1, h, dq_sel(c2, s1, s2)));
  q[1] = dq_sel(c0, d2, dq_sel(c1, s1, dq_sel(c2, h, s3)));
  q[2] = dq_sel(c0, d3, dq_sel(c1, s2, dq_sel(c2, s3, h)));
  dqd in = 1.0 / dq_sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  _Pragma("GCC unroll 4") for (int i = 0; i < 4; ++i) q[i] *= in;
}

/* Lanes whose 3x3 is a rotation within 1e-4 (palette.c's is_rotation):
 * G = A^T A within 1e-4 of I, element by element, and det A > 0. */
static inline dqm dq_rigid(const dqd a[9]) {
  dqd off = {0}, det = a[0] * (a[4] * a[8] - a[5] * a[7]) - a[1] * (a[3] * a[8] - a[5] * a[6]) +
                       a[2] * (a[3] * a[7] - a[4] * a[6]);
  _Pragma("GCC unroll 4") for (int i = 0; i < 3; ++i)
    _Pragma("GCC unroll 4") for (int j = i; j < 3; ++j) { /* G is symmetric bit for bit: its products commute */
      dqd g = a[i] * a[j] + a[3 + i] * a[3 + j] + a[6 + i] * a[6 + j];
      off = dq_max(off, dq_abs(i == j ? g - 1.0 : g));
    }
  return (off <= 1e-4) & (det > 0.0);
}

/* The DQS forms of joints j .. j + 3. */
static inline void dq_forms4(skn_pose *pose, uint32_t j, int split) {
  dqf col[4][4];
  dqd a[9], q[4];
  dq_load_m(col, a, pose, j);
  dqm rigid = dq_rigid(a);
  dq_quat(q, a);
  dqf real[4], dual[4], t0 = col[3][0], t1 = col[3][1], t2 = col[3][2];
  _Pragma("GCC unroll 4") for (int k = 0; k < 4; ++k) real[k] = __builtin_convertvector(q[k], dqf);
  dual[0] = 0.5f * (t0 * real[3] + t1 * real[2] - t2 * real[1]);
  dual[1] = 0.5f * (t1 * real[3] + t2 * real[0] - t0 * real[2]);
  dual[2] = 0.5f * (t2 * real[3] + t0 * real[1] - t1 * real[0]);
  dual[3] = -0.5f * (t0 * real[0] + t1 * real[1] + t2 * real[2]);
  dqf qr[4], qd[4]; /* per joint */
  dq_transpose(qr, real[0], real[1], real[2], real[3]);
  dq_transpose(qd, dual[0], dual[1], dual[2], dual[3]);
  static const float identity[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
  _Pragma("GCC unroll 4") for (int l = 0; l < 4; ++l) {
    if (!rigid[l]) {
      skn__dq_form(pose, j + l, split);
      continue;
    }
    struct skn_joint_dq *dq = &pose->xforms[j + l].dq[split];
    float *e = pose->dq_palette[split] + (size_t)(j + l) * SKN_PALETTE_FLOATS;
    memcpy(dq->real, &qr[l], sizeof qr[l]);
    memcpy(dq->dual, &qd[l], sizeof qd[l]);
    memcpy(dq->s, identity, sizeof dq->s);
    dq->scaled = 0;
    memcpy(e, &qr[l], sizeof qr[l]); /* skn__dq_palette_entry's layout */
    memcpy(e + 4, &qd[l], sizeof qd[l]);
    memcpy(e + 8, identity, sizeof identity);
    memset(e + 24, 0, 8 * sizeof *e);
  }
}

/* The LBS_QUATERNION forms of joints j .. j + 3 (palette.c's
 * lbs_quaternion_form and quat_palette_entry). */
static inline void quat_forms4(skn_pose *pose, uint32_t j) {
  dqf col[4][4];
  dqd a[9], q[4], g[6];
  dq_load_m(col, a, pose, j);
  _Pragma("GCC unroll 4") for (int i = 0, k = 0; i < 3; ++i) /* A^T A's upper triangle */
    _Pragma("GCC unroll 4") for (int c = i; c < 3; ++c, ++k) g[k] = a[i] * a[c] + a[3 + i] * a[3 + c] + a[6 + i] * a[6 + c];
  dqd s2 = (g[0] + g[3] + g[5]) / 3.0, err = {0}; /* g[0], g[3], g[5]: the diagonal */
  _Pragma("GCC unroll 8") for (int k = 0; k < 6; ++k) err = dq_max(err, dq_abs(k == 0 || k == 3 || k == 5 ? g[k] - s2 : g[k]));
  dqd det = a[0] * (a[4] * a[8] - a[5] * a[7]) - a[1] * (a[3] * a[8] - a[5] * a[6]) +
            a[2] * (a[3] * a[7] - a[4] * a[6]);
  dqm similar = (dq_sel(s2 > 0.0, err / s2, (dqd){0} + INFINITY) <= 1e-4) & (det > 0.0);
  dqd s = dq_sqrt(s2), is = 1.0 / s, r[9];
  _Pragma("GCC unroll 9") for (int i = 0; i < 9; ++i) r[i] = a[i] * is;
  dq_quat(q, r);
  dqm use = similar & (s != 0.0);
  static const double unit[4] = {0, 0, 0, 1};
  dqf qf[4], e[10], sf = __builtin_convertvector(s, dqf);
  _Pragma("GCC unroll 4") for (int k = 0; k < 4; ++k) {
    qf[k] = __builtin_convertvector(dq_sel(use, q[k], (dqd){0} + unit[k]), dqf); /* (float)1.0 either way */
    q[k] = __builtin_convertvector(qf[k], dqd);
  }
  dqd sd = __builtin_convertvector(sf, dqd), x = q[0], y = q[1], z = q[2], w = q[3];
  dqd rot[9] = {1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w),
                2 * (x * y + z * w),     1 - 2 * (x * x + z * z), 2 * (y * z - x * w),
                2 * (x * z - y * w),     2 * (y * z + x * w), 1 - 2 * (x * x + y * y)};
  _Pragma("GCC unroll 9") for (int i = 0; i < 9; ++i) e[i] = __builtin_convertvector(sd * rot[i], dqf);
  e[9] = __builtin_convertvector(dq_sel(sd > 0.0, 1.0 / (sd * sd), (dqd){0}), dqf);
  dqf row0[4], row1[4], quat[4];
  dq_transpose(row0, e[0], e[1], e[2], e[3]);
  dq_transpose(row1, e[4], e[5], e[6], e[7]);
  dq_transpose(quat, qf[0], qf[1], qf[2], qf[3]);
  _Pragma("GCC unroll 4") for (int l = 0; l < 4; ++l) {
    skn_joint_xform *xf = &pose->xforms[j + l];
    const float *b = pose->world[j + l] + 12, *c = pose->rig->bind[j + l] + 12; /* b_i, c_i */
    float *p = pose->quat_palette + (size_t)(j + l) * SKN_PALETTE_FLOATS;
    memcpy(xf->q, &quat[l], sizeof quat[l]);
    xf->s = sf[l];
    memcpy(xf->b, b, sizeof xf->b);
    xf->similar = similar[l] != 0;
    memcpy(p, &row0[l], sizeof row0[l]);
    memcpy(p + 4, &row1[l], sizeof row1[l]);
    p[8] = e[8][l];
    memcpy(p + 9, b, 3 * sizeof *p);
    memcpy(p + 12, c, 3 * sizeof *p);
    p[15] = e[9][l];
    memset(p + 16, 0, 16 * sizeof *p);
  }
}

void SKN_DQ_FORMS_KERNEL(skn_pose *pose, int split) {
  uint32_t n = pose->rig->joint_count, j = 0;
  for (; j + 4 <= n; j += 4) dq_forms4(pose, j, split);
  for (; j < n; ++j) skn__dq_form(pose, j, split);
}

void SKN_QUAT_FORMS_KERNEL(skn_pose *pose) {
  uint32_t n = pose->rig->joint_count, j = 0;
  for (; j + 4 <= n; j += 4) quat_forms4(pose, j);
  for (; j < n; ++j) skn__quat_form(pose, j);
}
