/* vec3.h — the few vector operations the scalar kernels share. */
#ifndef SKN_MATH_VEC3_H
#define SKN_MATH_VEC3_H

#include <math.h>

/* Scales v to unit length; a zero vector stays zero rather than NaN. */
static inline void skn_v3_normalize(float v[3]) {
  float len2 = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
  if (len2 > 0.0f) {
    float inv = 1.0f / sqrtf(len2);
    v[0] *= inv;
    v[1] *= inv;
    v[2] *= inv;
  }
}

/* r = A v for a row-major 3x3 A stored with row stride `rs` floats. */
static inline void skn_v3_mul_rows(float r[3], const float *a, int rs, const float v[3]) {
  for (int i = 0; i < 3; ++i) r[i] = a[i * rs] * v[0] + a[i * rs + 1] * v[1] + a[i * rs + 2] * v[2];
}

static inline float skn_rows_det3(const float *a, int rs) {
  const float *r0 = a, *r1 = a + rs, *r2 = a + 2 * rs;
  return r0[0] * (r1[1] * r2[2] - r1[2] * r2[1]) - r0[1] * (r1[0] * r2[2] - r1[2] * r2[0]) +
         r0[2] * (r1[0] * r2[1] - r1[1] * r2[0]);
}

/* v' = q v q* for a unit quaternion {x,y,z,w}: v + 2w (q x v) + 2 q x (q x v). */
static inline void skn_quat_rotate(float r[3], const float q[4], const float v[3]) {
  float tx = 2.0f * (q[1] * v[2] - q[2] * v[1]);
  float ty = 2.0f * (q[2] * v[0] - q[0] * v[2]);
  float tz = 2.0f * (q[0] * v[1] - q[1] * v[0]);
  r[0] = v[0] + q[3] * tx + (q[1] * tz - q[2] * ty);
  r[1] = v[1] + q[3] * ty + (q[2] * tx - q[0] * tz);
  r[2] = v[2] + q[3] * tz + (q[0] * ty - q[1] * tx);
}

/* n <- A^-T n up to a positive factor, for A given by rows with stride rs:
 * cof(A) = det(A) A^-T, its sign restored so that a mirror still turns a
 * normal outward; defined where A is singular, so never NaN. */
static inline void skn_v3_normal_transform(float n[3], const float *a, int rs) {
  const float *r0 = a, *r1 = a + rs, *r2 = a + 2 * rs;
  float cof[9] = {r1[1] * r2[2] - r1[2] * r2[1], r1[2] * r2[0] - r1[0] * r2[2], r1[0] * r2[1] - r1[1] * r2[0],
                  r0[2] * r2[1] - r0[1] * r2[2], r0[0] * r2[2] - r0[2] * r2[0], r0[1] * r2[0] - r0[0] * r2[1],
                  r0[1] * r1[2] - r0[2] * r1[1], r0[2] * r1[0] - r0[0] * r1[2], r0[0] * r1[1] - r0[1] * r1[0]};
  float x[3] = {n[0], n[1], n[2]}, sign = skn_rows_det3(a, rs) < 0.0f ? -1.0f : 1.0f;
  for (int i = 0; i < 3; ++i) n[i] = sign * (cof[i * 3] * x[0] + cof[i * 3 + 1] * x[1] + cof[i * 3 + 2] * x[2]);
}

#endif
