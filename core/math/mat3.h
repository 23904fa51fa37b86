/* mat3.h — 3x3 matrices in double, row-major a[r*3 + c]: the decompositions
 * that split a skinning matrix into rotation and scale (polar, Gram-Schmidt),
 * normal matrices, and conversion to quaternions. Used per joint per pose,
 * never per vertex, so they favour accuracy over speed. */
#ifndef SKN_MATH_MAT3_H
#define SKN_MATH_MAT3_H

#include <math.h>
#include <string.h>

static inline void skn_m3_from_mat4(double a[9], const float m[16]) {
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) a[r * 3 + c] = m[c * 4 + r];
}

static inline double skn_m3_det(const double a[9]) {
  return a[0] * (a[4] * a[8] - a[5] * a[7]) - a[1] * (a[3] * a[8] - a[5] * a[6]) +
         a[2] * (a[3] * a[7] - a[4] * a[6]);
}

/* The cofactor matrix: cof(A) = det(A) * A^-T, defined even where A is
 * singular — which is why normals use it there (abi/skn.h, SKN_PALETTE_NORMAL_ROWS3X4). */
static inline void skn_m3_cofactor(double r[9], const double a[9]) {
  r[0] = a[4] * a[8] - a[5] * a[7];
  r[1] = a[5] * a[6] - a[3] * a[8];
  r[2] = a[3] * a[7] - a[4] * a[6];
  r[3] = a[2] * a[7] - a[1] * a[8];
  r[4] = a[0] * a[8] - a[2] * a[6];
  r[5] = a[1] * a[6] - a[0] * a[7];
  r[6] = a[1] * a[5] - a[2] * a[4];
  r[7] = a[2] * a[3] - a[0] * a[5];
  r[8] = a[0] * a[4] - a[1] * a[3];
}

static inline void skn_m3_mul(double r[9], const double a[9], const double b[9]) {
  double t[9];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      t[i * 3 + j] = a[i * 3] * b[j] + a[i * 3 + 1] * b[3 + j] + a[i * 3 + 2] * b[6 + j];
  memcpy(r, t, sizeof t);
}

/* r = a^T * b */
static inline void skn_m3_mul_tn(double r[9], const double a[9], const double b[9]) {
  double t[9];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      t[i * 3 + j] = a[i] * b[j] + a[3 + i] * b[3 + j] + a[6 + i] * b[6 + j];
  memcpy(r, t, sizeof t);
}

/* Largest |(A^T A)_ij - s^2 delta_ij| / s^2 with s^2 = trace(A^T A)/3,
 * given g = A^T A: zero exactly when A is a rotation times a uniform scale
 * (or a mirror). */
static inline double skn_m3_similarity_error(const double g[9], double *scale2) {
  double s2 = (g[0] + g[4] + g[8]) / 3.0, err = 0.0;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      double e = fabs(g[i * 3 + j] - (i == j ? s2 : 0.0));
      if (e > err) err = e;
    }
  *scale2 = s2;
  return s2 > 0.0 ? err / s2 : INFINITY;
}

/* Unit quaternion {x,y,z,w} of the rotation r / s, s > 0 (r = s R, a
 * similarity; s = 1 for a rotation), by Shepperd's method (1978: branch on
 * the largest diagonal term so that no square root is of a small number).
 * Shepperd's k-th component is 4 q_k^2 = arg_k and the others are the
 * off-diagonal sums and differences divided by 4 q_k; all four times 4 q_k
 * are arg_k and those sums and differences themselves, so the quaternion is
 * that vector normalized: one square root and one division, a slightly
 * non-orthogonal input absorbed by the same normalization. The vector for
 * r is s times the one for r / s (arg_k = 1 + the diagonal terms of r / s),
 * which the normalization removes: r / s is never formed. */
static inline void skn_m3_to_quat_scaled(double q[4], const double r[9], double s) {
  double tr = r[0] + r[4] + r[8];
  if (tr > 0.0)
    q[3] = s + tr, q[0] = r[7] - r[5], q[1] = r[2] - r[6], q[2] = r[3] - r[1];
  else if (r[0] > r[4] && r[0] > r[8])
    q[3] = r[7] - r[5], q[0] = s + r[0] - r[4] - r[8], q[1] = r[1] + r[3], q[2] = r[2] + r[6];
  else if (r[4] > r[8])
    q[3] = r[2] - r[6], q[0] = r[1] + r[3], q[1] = s + r[4] - r[0] - r[8], q[2] = r[5] + r[7];
  else
    q[3] = r[3] - r[1], q[0] = r[2] + r[6], q[1] = r[5] + r[7], q[2] = s + r[8] - r[0] - r[4];
  double in = 1.0 / sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  for (int i = 0; i < 4; ++i) q[i] *= in;
}

static inline void skn_m3_to_quat(double q[4], const double r[9]) { skn_m3_to_quat_scaled(q, r, 1.0); }

static inline void skn_m3_transpose(double r[9], const double a[9]) {
  double t[9] = {a[0], a[3], a[6], a[1], a[4], a[7], a[2], a[5], a[8]};
  memcpy(r, t, sizeof t);
}

static inline double skn_m3_frobenius(const double a[9]) {
  double s = 0;
  for (int i = 0; i < 9; ++i) s += a[i] * a[i];
  return sqrt(s);
}

static inline int skn_m3_is_singular(const double a[9]) {
  double len = 1.0;
  for (int c = 0; c < 3; ++c) len *= sqrt(a[c] * a[c] + a[3 + c] * a[3 + c] + a[6 + c] * a[6 + c]);
  return fabs(skn_m3_det(a)) <= 1e-7 * len;
}

/* Columns of a 3x3 as vectors, and back. */
static inline void skn_m3_column(double v[3], const double a[9], int c) {
  v[0] = a[c];
  v[1] = a[3 + c];
  v[2] = a[6 + c];
}
static inline void skn_m3_set_column(double a[9], int c, const double v[3]) {
  a[c] = v[0];
  a[3 + c] = v[1];
  a[6 + c] = v[2];
}
static inline void skn_d3_cross(double r[3], const double a[3], const double b[3]) {
  double t[3] = {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
  memcpy(r, t, sizeof t);
}
static inline double skn_d3_dot(const double a[3], const double b[3]) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
static inline int skn_d3_normalize(double v[3]) {
  double len = sqrt(skn_d3_dot(v, v));
  if (!(len > 0.0)) return 0;
  v[0] /= len;
  v[1] /= len;
  v[2] /= len;
  return 1;
}

/* The rotation of a frame that keeps its Y axis (Blender's
 * orthogonalize_m4(mat, 1), which "Preserve Volume" applies to the posed
 * bone): Y is normalized; then Z = normalize(X x Y), X = Y x Z — unless
 * Y.X >= 1 (with X unnormalized, as Blender tests it), where
 * X = normalize(Y x Z), Z = X x Y; unless X.Z >= 1 too, where a permuted
 * copy of Y stands in for the other axis. Returns 0 for a zero Y axis. */
static inline int skn_m3_keep_y_rotation(double r[9], const double a[9]) {
  double x[3], y[3], z[3];
  skn_m3_column(x, a, 0);
  skn_m3_column(y, a, 1);
  skn_m3_column(z, a, 2);
  if (!skn_d3_normalize(y)) return 0;
  if (skn_d3_dot(y, x) < 1.0) {
    skn_d3_cross(z, x, y);
    if (!skn_d3_normalize(z)) return 0;
    skn_d3_cross(x, y, z);
  } else if (skn_d3_dot(x, z) < 1.0) {
    skn_d3_cross(x, y, z);
    if (!skn_d3_normalize(x)) return 0;
    skn_d3_cross(z, x, y);
  } else {
    double v[3] = {y[1], y[2], y[0]};
    skn_d3_cross(x, y, v);
    if (!skn_d3_normalize(x)) return 0;
    skn_d3_cross(z, x, y);
  }
  skn_m3_set_column(r, 0, x);
  skn_m3_set_column(r, 1, y);
  skn_m3_set_column(r, 2, z);
  return 1;
}

/* The rotation factor R of the polar decomposition A = R U (U symmetric),
 * by Higham's scaled Newton iteration X <- (g X + X^-T / g) / 2 with
 * g = sqrt(|X^-1| / |X|) (Higham 1986, "Computing the polar decomposition —
 * with applications"). A mirror (det A < 0) is carried by U, so that R is a
 * proper rotation: R = polar(-A). Returns 0 where A is singular. */
static inline int skn_m3_polar_rotation(double r[9], const double a[9]) {
  if (skn_m3_is_singular(a)) return 0;
  double x[9], sign = skn_m3_det(a) < 0.0 ? -1.0 : 1.0;
  for (int i = 0; i < 9; ++i) x[i] = sign * a[i];
  for (int iter = 0; iter < 64; ++iter) {
    double cof[9], next[9], det = skn_m3_det(x), delta = 0.0;
    skn_m3_cofactor(cof, x); /* X^-T = cof(X) / det(X) */
    double inv_t_norm = skn_m3_frobenius(cof) / fabs(det), g = sqrt(inv_t_norm / skn_m3_frobenius(x));
    for (int i = 0; i < 9; ++i) {
      next[i] = 0.5 * (g * x[i] + cof[i] / (det * g));
      delta += (next[i] - x[i]) * (next[i] - x[i]);
    }
    memcpy(x, next, sizeof x);
    if (delta < 1e-28) break;
  }
  memcpy(r, x, sizeof x);
  return 1;
}

#endif
