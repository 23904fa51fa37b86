/* mat4.h — 4x4 affine matrices: column-major float[16], column vectors.
 * Element (row r, column c) is m[c*4 + r]. Inversions and determinants are
 * computed in double: bind matrices are inverted once and must be exact to
 * float precision whatever their scale. */
#ifndef SKN_MATH_MAT4_H
#define SKN_MATH_MAT4_H

#include <math.h>
#include <string.h>

#define SKN_M(m, r, c) ((m)[(c) * 4 + (r)])

static inline void skn_mat4_identity(float r[16]) {
  memset(r, 0, 16 * sizeof(float));
  r[0] = r[5] = r[10] = r[15] = 1.0f;
}

/* r = a * b for affine a and b (bottom rows 0 0 0 1); r may alias a or b. */
/* Columns as 4-lane vectors (a GCC extension: SSE2 on x86-64, generic code
 * elsewhere): every element is a(r,0) b(0,c) + a(r,1) b(1,c) + a(r,2) b(2,c)
 * (+ a(r,3) in column 3), the order of the plain formula, bit for bit; the
 * bottom row is set to 0 0 0 1 exactly. */
typedef float skn_mat4_col __attribute__((vector_size(16)));

static inline void skn_mat4_mul_affine(float r[16], const float a[16], const float b[16]) {
  skn_mat4_col ac[4], t[4];
  memcpy(ac, a, sizeof ac);
  for (int c = 0; c < 4; ++c) t[c] = ac[0] * b[c * 4] + ac[1] * b[c * 4 + 1] + ac[2] * b[c * 4 + 2];
  t[3] += ac[3];
  for (int c = 0; c < 4; ++c) t[c][3] = c == 3 ? 1.0f : 0.0f;
  memcpy(r, t, sizeof t);
}

/* local = T * R * S (glTF 2.0 §3.5.3); q must be unit length. */
static inline void skn_mat4_from_trs(float r[16], const float t[3], const float q[4],
                                     const float s[3]) {
  float x = q[0], y = q[1], z = q[2], w = q[3];
  float rot[9] = {
      1 - 2 * (y * y + z * z), 2 * (x * y + z * w), 2 * (x * z - y * w),  /* column 0 */
      2 * (x * y - z * w), 1 - 2 * (x * x + z * z), 2 * (y * z + x * w),  /* column 1 */
      2 * (x * z + y * w), 2 * (y * z - x * w), 1 - 2 * (x * x + y * y)}; /* column 2 */
  for (int c = 0; c < 3; ++c) {
    for (int row = 0; row < 3; ++row) r[c * 4 + row] = rot[c * 3 + row] * s[c];
    r[c * 4 + 3] = 0.0f;
  }
  r[12] = t[0];
  r[13] = t[1];
  r[14] = t[2];
  r[15] = 1.0f;
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
