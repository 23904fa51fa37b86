/* mat4.h — 4x4 affine matrices: column-major float[16], column vectors.
 * Element (row r, column c) is m[c*4 + r]. Inversions and determinants are
 * computed in double: bind matrices are inverted once and must be exact to
 * float precision whatever their scale. */
#ifndef SKN_MATH_MAT4_H
#define SKN_MATH_MAT4_H

#include <math.h>
#include <string.h>

static inline void skn_mat4_identity(float r[16]) {
  memset(r, 0, 16 * sizeof(float));
  r[0] = r[5] = r[10] = r[15] = 1.0f;
}

/* Columns as 4-lane vectors (a GCC extension: SSE2 on x86-64, generic code
 * elsewhere): lane r of column c is element (r, c). */
typedef float skn_mat4_col __attribute__((vector_size(16)));
typedef int skn_mat4_icol __attribute__((vector_size(16)));

static inline skn_mat4_col skn_col_load(const float *p) {
  skn_mat4_col v;
  memcpy(&v, p, sizeof v);
  return v;
}

/* The four columns of a column-major float[16]. */
static inline void skn_cols_load(skn_mat4_col c[4], const float m[16]) {
  for (int i = 0; i < 4; ++i) c[i] = skn_col_load(m + 4 * i);
}

/* The columns of a * b for affine a (as columns) and b (bottom rows
 * 0 0 0 1), b's element (k, c) at b[k * rs + c * cs]: every element is
 * a(r,0) b(0,c) + a(r,1) b(1,c) + a(r,2) b(2,c) (+ a(r,3) in column 3), the
 * order of the plain formula, bit for bit, in registers; the bottom row is
 * made 0 0 0 1 exactly by masks (an overflow's inf * 0 would otherwise put
 * a NaN there). */
static inline void skn_cols_mul_affine_at(skn_mat4_col r[4], const skn_mat4_col a[4], const float *b, size_t rs,
                                          size_t cs) {
  const skn_mat4_icol xyz = {-1, -1, -1, 0}, w1 = {0, 0, 0, 0x3f800000 /* 1.0f */};
  skn_mat4_col t0 = a[0] * b[0] + a[1] * b[rs] + a[2] * b[2 * rs];
  skn_mat4_col t1 = a[0] * b[cs] + a[1] * b[rs + cs] + a[2] * b[2 * rs + cs];
  skn_mat4_col t2 = a[0] * b[2 * cs] + a[1] * b[rs + 2 * cs] + a[2] * b[2 * rs + 2 * cs];
  skn_mat4_col t3 = a[0] * b[3 * cs] + a[1] * b[rs + 3 * cs] + a[2] * b[2 * rs + 3 * cs] + a[3];
  r[0] = (skn_mat4_col)((skn_mat4_icol)t0 & xyz);
  r[1] = (skn_mat4_col)((skn_mat4_icol)t1 & xyz);
  r[2] = (skn_mat4_col)((skn_mat4_icol)t2 & xyz);
  r[3] = (skn_mat4_col)(((skn_mat4_icol)t3 & xyz) | w1);
}

/* The same for b a column-major float[16]. */
static inline void skn_cols_mul_affine(skn_mat4_col r[4], const skn_mat4_col a[4], const float b[16]) {
  skn_cols_mul_affine_at(r, a, b, 1, 4);
}

/* r = a * b for affine a and b as column-major float[16]; r may alias a or b. */
static inline void skn_mat4_mul_affine(float r[16], const float a[16], const float b[16]) {
  skn_mat4_col ac[4], t[4];
  skn_cols_load(ac, a);
  skn_cols_mul_affine(t, ac, b);
  memcpy(r, t, sizeof t);
}

#if defined(__clang__) || __GNUC__ >= 12
#define SKN_COL_YZX(v) __builtin_shufflevector(v, v, 1, 2, 0, 3)
#else
#define SKN_COL_YZX(v) __builtin_shuffle(v, (skn_mat4_icol){1, 2, 0, 3})
#endif

/* a x b in lanes 0-2: lane i of a * yzx(b) - yzx(a) * b is component i + 2
 * of the cross product, so one more rotation puts x, y, z in place; lane 3
 * is a3 b3 - a3 b3, zero for finite input. */
static inline skn_mat4_col skn_col_cross(skn_mat4_col a, skn_mat4_col b) {
  skn_mat4_col c = a * SKN_COL_YZX(b) - SKN_COL_YZX(a) * b;
  return SKN_COL_YZX(c);
}

static inline float skn_col_dot3(skn_mat4_col a, skn_mat4_col b) {
  skn_mat4_col p = a * b;
  return p[0] + p[1] + p[2];
}

/* local = T * R * S (glTF 2.0 sec. 3.5.3) with R the rotation of q/|q| for
 * any non-zero q: R = I + (2/|q|^2) (w [v]x + [v]x^2), v = (x, y, z), the
 * usual unit-quaternion matrix with 2 -> 2/|q|^2 (no square root, one
 * division). */
static inline void skn_mat4_from_trs(float r[16], const float t[3], const float q[4], const float s[3]) {
  float x = q[0], y = q[1], z = q[2], w = q[3];
  float k = 2.0f / (x * x + y * y + z * z + w * w);
  float xk = x * k, yk = y * k, zk = z * k;
  float xx = x * xk, yy = y * yk, zz = z * zk, xy = x * yk, xz = x * zk, yz = y * zk;
  float wx = w * xk, wy = w * yk, wz = w * zk;
  skn_mat4_col c0 = {1 - (yy + zz), xy + wz, xz - wy, 0}, c1 = {xy - wz, 1 - (xx + zz), yz + wx, 0},
               c2 = {xz + wy, yz - wx, 1 - (xx + yy), 0}, c3 = {t[0], t[1], t[2], 1};
  c0 *= (skn_mat4_col){s[0], s[0], s[0], 1}; /* the bottom row stays exactly 0 */
  c1 *= (skn_mat4_col){s[1], s[1], s[1], 1};
  c2 *= (skn_mat4_col){s[2], s[2], s[2], 1};
  memcpy(r, &c0, sizeof c0);
  memcpy(r + 4, &c1, sizeof c1);
  memcpy(r + 8, &c2, sizeof c2);
  memcpy(r + 12, &c3, sizeof c3);
}

/* Determinant of the upper 3x3. */
static inline double skn_mat4_det3(const float m[16]) {
  double a = m[0], b = m[4], c = m[8], d = m[1], e = m[5], f = m[9], g = m[2], h = m[6], i = m[10];
  return a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g);
}

static inline double skn_mat4_column_length(const float m[16], int c) {
  double x = m[c * 4], y = m[c * 4 + 1], z = m[c * 4 + 2];
  return sqrt(x * x + y * y + z * z);
}

/* The contract's singularity rule: |det| <= 1e-7 * product of column lengths
 * (scale-free, so a joint scaled by 1e-3 is still invertible). */
static inline int skn_mat4_is_singular(const float m[16]) {
  double lengths = skn_mat4_column_length(m, 0) * skn_mat4_column_length(m, 1) *
                   skn_mat4_column_length(m, 2);
  return fabs(skn_mat4_det3(m)) <= 1e-7 * lengths;
}

static inline int skn_mat4_is_affine(const float m[16]) {
  return fabsf(m[3]) <= 1e-6f && fabsf(m[7]) <= 1e-6f && fabsf(m[11]) <= 1e-6f &&
         fabsf(m[15] - 1.0f) <= 1e-6f;
}

static inline int skn_floats_finite(const float *v, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (!isfinite(v[i])) return 0;
  return 1;
}

/* r = m^-1 for an affine, non-singular m (checked by the caller). The 3x3 is
 * inverted through its adjugate in double; the bottom row is set exactly. */
static inline void skn_mat4_invert_affine(float r[16], const float m[16]) {
  double a = m[0], b = m[4], c = m[8], d = m[1], e = m[5], f = m[9], g = m[2], h = m[6], i = m[10];
  double A = e * i - f * h, B = -(d * i - f * g), C = d * h - e * g;
  double det = a * A + b * B + c * C, s = 1.0 / det;
  double inv[9] = {/* row-major inverse */
                   A * s, -(b * i - c * h) * s, (b * f - c * e) * s,
                   B * s, (a * i - c * g) * s,  -(a * f - c * d) * s,
                   C * s, -(a * h - b * g) * s, (a * e - b * d) * s};
  double t[3] = {m[12], m[13], m[14]};
  for (int row = 0; row < 3; ++row) {
    for (int col = 0; col < 3; ++col) r[col * 4 + row] = (float)inv[row * 3 + col];
    r[12 + row] = (float)-(inv[row * 3] * t[0] + inv[row * 3 + 1] * t[1] + inv[row * 3 + 2] * t[2]);
    r[row * 4 + 3] = 0.0f;
  }
  r[15] = 1.0f;
}

#endif
