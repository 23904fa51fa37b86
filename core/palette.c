/* palette.c — per-joint forms derived from the skinning matrix
 * M_i = W_i^A (W_i^R)^-1 once per pose, so that kernels only blend: the 3x4
 * matrix (eq. 4), its normal matrix (eq. 9), and the rotation/uniform-scale
 * form used by LBS_QUATERNION (eq. 1-3). */
#include "internal.h"

#include "math/mat3.h"
#include "math/mat4.h"

static void lbs_quaternion_form(skn_joint_xform *x, const double a[9], const float world[16]) {
  double s2, q[4], r[9];
  double err = skn_m3_similarity_error(a, &s2), det = skn_m3_det(a);
  x->similar = err <= 1e-4 && det > 0.0;
  double s = sqrt(s2);
  x->s = (float)s;
  for (int c = 0; c < 3; ++c) x->b[c] = world[12 + c]; /* M_i c_i = W_i^A's origin */
  if (!x->similar || s == 0.0) {
    x->q[0] = x->q[1] = x->q[2] = 0.0f;
    x->q[3] = 1.0f;
    return;
  }
  for (int i = 0; i < 9; ++i) r[i] = a[i] / s;
  skn_m3_to_quat(q, r);
  for (int c = 0; c < 4; ++c) x->q[c] = (float)q[c];
}

void skn__joint_xform(skn_joint_xform *x, const float world[16], const float inverse_bind[16],
                      const float bind[16]) {
  float m[16];
  double a[9], n[9];
  (void)bind;
  skn_mat4_mul_affine(m, world, inverse_bind);
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 4; ++c) x->m[r * 4 + c] = SKN_M(m, r, c);
  skn_m3_from_mat4(a, m);
  skn_m3_normal_matrix(n, a);
  for (int i = 0; i < 9; ++i) x->n[i] = (float)n[i];
  lbs_quaternion_form(x, a, world);
}
