/* palette.c — per-joint forms derived from the skinning matrix
 * M_i = W_i^A (W_i^R)^-1 once per pose, so that kernels only blend:
 *   - the 3x4 matrix (eq. 4) and its normal matrix (eq. 9);
 *   - rotation, uniform scale and origin for LBS_QUATERNION (eq. 1-3);
 *   - the dual quaternion of M_i's rigid part and the bind-space scale/shear
 *     S_i with M_i = rigid_i S_i, for DQS and COR (Kavan et al. 2008 §4.1;
 *     the split as ABI.md's "DQS split" defines it). */
#include "internal.h"
#include "kernels/kernels.h"

#include "math/dualquat.h"
#include "math/mat3.h"
#include "math/mat4.h"

/* The rotation of a frame under each skn_dqs_scale split; identity where
 * the frame is degenerate (a joint scaled to zero has no rotation). */
static void split_rotation(double r[9], const double a[9], int split) {
  int ok = split == SKN_DQS_SCALE_KEEP_Y ? skn_m3_keep_y_rotation(r, a) : skn_m3_polar_rotation(r, a);
  if (!ok) {
    static const double identity[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    memcpy(r, identity, sizeof identity);
  }
}

void skn__bind_rotations(skn_rig *rig) {
  for (uint32_t j = 0; j < rig->joint_count; ++j) {
    double b[9];
    skn_m3_from_mat4(b, rig->bind[j]);
    for (int split = 0; split < 2; ++split) split_rotation(rig->bind_rotation[j][split], b, split);
  }
}

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

/* rigid_i = [Rm | t_W - Rm c] with Rm = rot(W_i^A) rot(W_i^R)^T, the rotation
 * of the posed joint frame relative to its bind frame and c the bind origin;
 * S_i = rigid_i^-1 M_i = [Rm^T A | c - Rm^T A c]: scale/shear about the
 * joint's bind origin, in bind space. With a rigid bind matrix this is
 * exactly ABI.md's [R_i | t(W_i)] B_i^-1 and B_i [R_i | t(W_i)]^-1 W_i B_i^-1. */
static void dq_form(struct skn_joint_dq *dq, const double a[9], const float m[16], const skn_rig *rig,
                    uint32_t j, const float world[16], int split) {
  double g[9], rw[9], rm[9], sa[9], q[4];
  skn_m3_mul_tn(g, a, a);
  double off = 0.0;
  for (int i = 0; i < 9; ++i) off = fmax(off, fabs(g[i] - (i % 4 == 0)));
  float t[3];
  if (off <= 1e-4 && skn_m3_det(a) > 0.0) { /* a rotation: rigid_i = M_i, S_i = I */
    skn_m3_to_quat(q, a);
    for (int c = 0; c < 3; ++c) t[c] = m[12 + c];
    dq->scaled = 0;
    memset(dq->s, 0, sizeof dq->s);
    dq->s[0] = dq->s[5] = dq->s[10] = 1.0f;
  } else {
    double w3[9];
    const float *c = rig->bind[j] + 12;
    skn_m3_from_mat4(w3, world);
    split_rotation(rw, w3, split);
    skn_m3_transpose(rm, rig->bind_rotation[j][split]);
    skn_m3_mul(rm, rw, rm);
    skn_m3_to_quat(q, rm);
    skn_m3_mul_tn(sa, rm, a);
    for (int r = 0; r < 3; ++r) {
      t[r] = (float)(world[12 + r] - (rm[r * 3] * c[0] + rm[r * 3 + 1] * c[1] + rm[r * 3 + 2] * c[2]));
      for (int k = 0; k < 3; ++k) dq->s[r * 4 + k] = (float)sa[r * 3 + k];
      dq->s[r * 4 + 3] = (float)(c[r] - (sa[r * 3] * c[0] + sa[r * 3 + 1] * c[1] + sa[r * 3 + 2] * c[2]));
    }
    dq->scaled = 1;
  }
  for (int k = 0; k < 4; ++k) dq->real[k] = (float)q[k];
  skn_dq_dual_part(dq->dual, dq->real, t);
}

void skn__joint_xform(skn_joint_xform *x, const skn_rig *rig, uint32_t j, const float world[16]) {
  float m[16];
  double a[9], n[9];
  skn_mat4_mul_affine(m, world, rig->inverse_bind[j]);
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 4; ++c) x->m[r * 4 + c] = SKN_M(m, r, c);
  skn_m3_from_mat4(a, m);
  skn_m3_normal_matrix(n, a);
  for (int i = 0; i < 9; ++i) x->n[i] = (float)n[i];
}

void skn__joint_rotation_forms(skn_joint_xform *x, const skn_rig *rig, uint32_t j, const float world[16]) {
  float m[16]; /* M_i, as skn__joint_xform left it in x->m */
  double a[9];
  skn_mat4_identity(m);
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 4; ++c) SKN_M(m, r, c) = x->m[r * 4 + c];
  skn_m3_from_mat4(a, m);
  lbs_quaternion_form(x, a, world);
  for (int split = 0; split < 2; ++split) dq_form(&x->dq[split], a, m, rig, j, world, split);
}

/* The kernels' copy of joint j's LBS forms (kernels.h): the 3x4 matrix and
 * the normal matrix as four padded columns each; the virtual joint
 * (j == joint_count) is the identity. */
void skn__simd_palette(skn_pose *pose, uint32_t j) {
  float *e = pose->simd_lbs + (size_t)j * SKN_SIMD_FLOATS;
  if (j == pose->rig->joint_count) {
    static const float identity[SKN_SIMD_FLOATS] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1,
                                                    1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0};
    memcpy(e, identity, sizeof identity);
    return;
  }
  const float *m = pose->xforms[j].m, *n = pose->xforms[j].n;
  const float columns[SKN_SIMD_FLOATS] = {m[0], m[4], m[8], 0, m[1], m[5], m[9],  0, m[2], m[6], m[10], 0,
                                          m[3], m[7], m[11], 1, n[0], n[3], n[6], 0, n[1], n[4], n[7],  0,
                                          n[2], n[5], n[8],  0, 0,    0,    0,     0};
  memcpy(e, columns, sizeof columns);
}

/* The kernels' copy of joint j's dual quaternions and S_i columns, per split. */
static void simd_dq_palette(skn_pose *pose, uint32_t j) {
  const skn_joint_xform *x = j == pose->rig->joint_count ? NULL : &pose->xforms[j];
  for (int split = 0; split < 2; ++split) {
    float *d = pose->simd_dqs[split] + (size_t)j * SKN_SIMD_FLOATS;
    memset(d, 0, SKN_SIMD_FLOATS * sizeof(float));
    if (!x) {
      d[3] = 1.0f;
      d[8] = d[13] = d[18] = d[23] = 1.0f;
      continue;
    }
    memcpy(d, x->dq[split].real, 4 * sizeof(float));
    memcpy(d + 4, x->dq[split].dual, 4 * sizeof(float));
    for (int c = 0; c < 4; ++c)
      for (int r = 0; r < 3; ++r) d[8 + c * 4 + r] = x->dq[split].s[r * 4 + c];
    d[8 + 15] = 1.0f;
    pose->dq_scaled[split] |= x->dq[split].scaled;
  }
}

void skn__pose_derive(const skn_pose *cpose) {
  skn_pose *pose = (skn_pose *)cpose; /* a cache: the pose's meaning does not change */
  if (__atomic_load_n(&pose->derived, __ATOMIC_ACQUIRE)) return;
  pthread_mutex_lock(&pose->lock);
  if (!pose->derived) {
    const skn_rig *rig = pose->rig;
    pose->dq_scaled[0] = pose->dq_scaled[1] = 0;
    for (uint32_t j = 0; j < rig->joint_count; ++j) {
      skn__joint_rotation_forms(&pose->xforms[j], rig, j, pose->world[j]);
      simd_dq_palette(pose, j);
    }
    simd_dq_palette(pose, rig->joint_count);
    __atomic_store_n(&pose->derived, 1, __ATOMIC_RELEASE);
  }
  pthread_mutex_unlock(&pose->lock);
}
