/* palette.c — per-joint forms derived from the skinning matrix
 * M_i = W_i^A (W_i^R)^-1 once per pose, so that kernels only blend:
 *   - the 3x4 matrix (eq. 4) and its normal matrix (eq. 9);
 *   - rotation, uniform scale and origin for LBS_QUATERNION (eq. 1-3);
 *   - the dual quaternion of M_i's rigid part and the bind-space scale/shear
 *     S_i with M_i = rigid_i S_i, for DQS and COR (Kavan et al. 2008 §4.1;
 *     the split as abi/skn.h defines it under skn_dqs_scale). */
#include "internal.h"
#include "kernels/kernels.h"

#include "math/dualquat.h"
#include "math/mat3.h"
#include "math/mat4.h"

#include <math.h>

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

/* g = A^T A and det A: the caller computes them once for every form. */
static void lbs_quaternion_form(skn_joint_xform *x, const double a[9], const double g[9], double det,
                                const float world[16]) {
  double s2, q[4];
  double err = skn_m3_similarity_error(g, &s2);
  x->similar = err <= 1e-4 && det > 0.0;
  double s = sqrt(s2);
  x->s = (float)s;
  for (int c = 0; c < 3; ++c) x->b[c] = world[12 + c]; /* M_i c_i = W_i^A's origin */
  if (!x->similar || s == 0.0) {
    x->q[0] = x->q[1] = x->q[2] = 0.0f;
    x->q[3] = 1.0f;
    return;
  }
  skn_m3_to_quat_scaled(q, a, s); /* of a / s */
  for (int c = 0; c < 4; ++c) x->q[c] = (float)q[c];
}

/* M_i's 3x3 is a rotation within SKN_DQ_RIGID_TOLERANCE (A^T A = I,
 * det A > 0): then rigid_i = M_i and S_i = I under either split. */
static int is_rotation(const double g[9], double det) {
  double off = 0.0;
  for (int i = 0; i < 9; ++i) {
    double e = fabs(g[i] - (i % 4 == 0));
    off = e > off ? e : off;
  }
  return off <= SKN_DQ_RIGID_TOLERANCE && det > 0.0;
}

/* e's real and dual parts from rigid_i's rotation q and translation t. */
static void dq_finish(float *e, const double q[4], const float t[3]) {
  for (int k = 0; k < 4; ++k) e[SKN_DQ_REAL + k] = (float)q[k];
  skn_dq_dual_part(e + SKN_DQ_DUAL, e + SKN_DQ_REAL, t);
}

const float skn__dq_identity[SKN_PALETTE_FLOATS] = {0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0,
                                                   0, 0, 1, 0, 0, 0, 0, 1};

static void rigid_dq(float *e, const double a[9], const float m[16]) {
  double q[4];
  skn_m3_to_quat(q, a);
  memcpy(e, skn__dq_identity, sizeof skn__dq_identity);
  dq_finish(e, q, m + 12);
}

/* rigid_i = [Rm | t_W - Rm c] with Rm = rot(W_i^A) rot(W_i^R)^T, the rotation
 * of the posed joint frame relative to its bind frame and c the bind origin;
 * S_i = rigid_i^-1 M_i = [Rm^T A | c - Rm^T A c]: scale/shear about the
 * joint's bind origin, in bind space. With a rigid bind matrix this is
 * exactly skn.h's [R_i | t(W_i)] B_i^-1 and B_i [R_i | t(W_i)]^-1 W_i B_i^-1 (skn_dqs_scale). */
static void scaled_dq(float *e, const double a[9], const skn_rig *rig, uint32_t j, const float world[16],
                      int split) {
  double w3[9], rw[9], rm[9], sa[9], q[4];
  const float *c = rig->bind[j] + 12;
  float t[3];
  skn_m3_from_mat4(w3, world);
  split_rotation(rw, w3, split);
  skn_m3_transpose(rm, rig->bind_rotation[j][split]);
  skn_m3_mul(rm, rw, rm);
  skn_m3_to_quat(q, rm);
  skn_m3_mul_tn(sa, rm, a);
  memcpy(e, skn__dq_identity, sizeof skn__dq_identity);
  for (int r = 0; r < 3; ++r) {
    t[r] = (float)(world[12 + r] - (rm[r * 3] * c[0] + rm[r * 3 + 1] * c[1] + rm[r * 3 + 2] * c[2]));
    for (int k = 0; k < 3; ++k) e[SKN_DQ_S + 4 * k + r] = (float)sa[r * 3 + k];
    e[SKN_DQ_S + 12 + r] = (float)(c[r] - (sa[r * 3] * c[0] + sa[r * 3 + 1] * c[1] + sa[r * 3 + 2] * c[2]));
  }
  e[SKN_DQ_SCALED] = 1.0f;
  dq_finish(e, q, t);
}

/* Joint j's W_i^A as an affine float[16] in w (the pose keeps it by
 * position, internal.h). */
static const float *world_matrix(const skn_pose *pose, uint32_t j, float w[16]) {
  for (int c = 0; c < 4; ++c) {
    for (int r = 0; r < 3; ++r) w[c * 4 + r] = SKN_POSE_WORLD(pose, j, r, c);
    w[c * 4 + 3] = c == 3 ? 1.0f : 0.0f;
  }
  return w;
}

/* Joint j's DQS form under `split` from M_i, as the pose kernel left it
 * (pose_simd.h), into its dq_palette entry, whole: one rotation where M_i's
 * 3x3 is rigid (the common case), the polar split otherwise. The scalar
 * set's way for every joint, and the SIMD sets' for the joints their
 * rigid-only lanes leave (forms_simd.h). */
void skn__dq_form(skn_pose *pose, uint32_t j, int split) {
  const float *m = pose->lbs_palette + (size_t)j * SKN_PALETTE_FLOATS; /* an affine float[16] */
  float *e = SKN_DQ_ENTRY(pose, split, j), w[16];
  double a[9], g[9];
  skn_m3_from_mat4(a, m);
  skn_m3_mul_tn(g, a, a);
  if (is_rotation(g, skn_m3_det(a))) {
    rigid_dq(e, a, m);
  } else {
    scaled_dq(e, a, pose->rig, j, world_matrix(pose, j, w), split);
    pose->dq_scaled[split] = 1;
  }
}

void skn__dq_forms(skn_pose *pose, int split, int s_identity) {
  (void)s_identity;
  for (uint32_t j = 0; j < pose->rig->joint_count; ++j) skn__dq_form(pose, j, split);
}

void skn__dq_palette_init(skn_pose *pose) {
  for (int split = 0; split < 2; ++split)
    for (uint32_t j = 0; j <= pose->rig->joint_count; ++j)
      memcpy(SKN_DQ_ENTRY(pose, split, j), skn__dq_identity, sizeof skn__dq_identity);
}

/* Joint j's LBS_QUATERNION record, as the kernels read it (internal.h):
 * A_i = s_i R(q_i), so that s_i R_i v'_i is one matrix product and the
 * normals' (w_i / s_i) R_i n0 is (w_i / s_i^2) A_i n0; the virtual joint
 * (j == joint_count) is the identity about the origin. */
static void quat_palette_entry(skn_pose *pose, uint32_t j) {
  float *e = pose->quat_palette + (size_t)j * SKN_PALETTE_FLOATS;
  memset(e, 0, SKN_PALETTE_FLOATS * sizeof *e);
  if (j == pose->rig->joint_count) {
    e[0] = e[4] = e[8] = e[15] = 1.0f;
    return;
  }
  const skn_joint_xform *x = &pose->xforms[j];
  double qx = x->q[0], qy = x->q[1], qz = x->q[2], qw = x->q[3], s = x->s;
  double r[9] = {1 - 2 * (qy * qy + qz * qz), 2 * (qx * qy - qz * qw), 2 * (qx * qz + qy * qw),
                 2 * (qx * qy + qz * qw), 1 - 2 * (qx * qx + qz * qz), 2 * (qy * qz - qx * qw),
                 2 * (qx * qz - qy * qw), 2 * (qy * qz + qx * qw), 1 - 2 * (qx * qx + qy * qy)};
  for (int i = 0; i < 9; ++i) e[i] = (float)(s * r[i]);
  for (int c = 0; c < 3; ++c) {
    e[9 + c] = x->b[c];
    e[12 + c] = pose->rig->bind[j][12 + c]; /* c_i: v'_i = v0 - c_i, as bind's bone offsets */
  }
  e[15] = s > 0.0 ? (float)(1.0 / (s * s)) : 0.0f;
}

void skn__quat_form(skn_pose *pose, uint32_t j) {
  double a[9], g[9];
  float w[16];
  skn_m3_from_mat4(a, pose->lbs_palette + (size_t)j * SKN_PALETTE_FLOATS); /* M_i, an affine float[16] */
  skn_m3_mul_tn(g, a, a);
  lbs_quaternion_form(&pose->xforms[j], a, g, skn_m3_det(a), world_matrix(pose, j, w));
  quat_palette_entry(pose, j);
}

void skn__quat_forms(skn_pose *pose) {
  for (uint32_t j = 0; j < pose->rig->joint_count; ++j) skn__quat_form(pose, j);
}

/* The mean of the diagonal of an entry's S_i. */
static double diagonal_mean(const float *e) {
  return ((double)e[SKN_DQ_S] + e[SKN_DQ_S + 5] + e[SKN_DQ_S + 10]) / 3;
}

/* Whether every S_i under `split` is a uniform scale s_i I to
 * SKN_UNIFORM_TOLERANCE (relative, s_i the mean of the diagonal), as a
 * pose of uniformly scaled joints gives up to float rounding; if so, each
 * entry's S_i is made exactly [s_i I | its translation] — the rounding
 * dropped, as a joint rotation to SKN_DQ_RIGID_TOLERANCE gets S_i = I — and its
 * SKN_DQ_UNIFORM record written: S_i = [s_i I | (1 - s_i) c_i] then blends
 * as sum w_i s_i and sum w_i (1 - s_i) c_i, four floats where S_i's 3x4 is
 * twelve (dqs_simd.h). Every reader of the entry (the scalar reference, the
 * GPU palette) sees the same S_i. */
static uint32_t dq_uniform(skn_pose *pose, int split) {
  for (uint32_t j = 0; j <= pose->rig->joint_count; ++j) {
    const float *e = SKN_DQ_ENTRY(pose, split, j);
    double s = diagonal_mean(e);
    if (!(s > 0.0)) return 0;
    for (int c = 0; c < 3; ++c)
      for (int r = 0; r < 3; ++r)
        if (!(fabs(e[SKN_DQ_S + 4 * c + r] - (r == c ? s : 0.0)) <= SKN_UNIFORM_TOLERANCE * s)) return 0;
  }
  for (uint32_t j = 0; j <= pose->rig->joint_count; ++j) {
    float *e = SKN_DQ_ENTRY(pose, split, j);
    float s = (float)diagonal_mean(e);
    for (int c = 0; c < 3; ++c)
      for (int r = 0; r < 3; ++r) e[SKN_DQ_S + 4 * c + r] = r == c ? s : 0.0f;
    for (int r = 0; r < 3; ++r) e[SKN_DQ_UNIFORM + r] = e[SKN_DQ_S + 12 + r];
    e[SKN_DQ_UNIFORM + 3] = s;
  }
  return 1;
}

void skn__pose_derive(const skn_pose *cpose, int forms) {
  skn_pose *pose = (skn_pose *)cpose; /* a cache: the pose's meaning does not change */
  /* the version before the palette is read: a change during the reads moves it on after them */
  uint32_t version = __atomic_load_n(&pose->version, __ATOMIC_ACQUIRE);
  uint64_t derived = __atomic_load_n(&pose->derived, __ATOMIC_ACQUIRE);
  if ((uint32_t)(derived >> 32) == version && ((int)(uint32_t)derived & forms) == forms) return;
  pthread_mutex_lock(&pose->lock);
  derived = pose->derived;
  int have = (uint32_t)(derived >> 32) == version ? (int)(uint32_t)derived : 0;
  int want = forms & ~have;
  if (want) {
    const skn_rig *rig = pose->rig;
    if (want & SKN_FORMS_QUATERNION) {
      skn__kernels()->quat_forms(pose);
      quat_palette_entry(pose, rig->joint_count);
    }
    for (int split = 0; split < 2; ++split) {
      if (!(want & SKN_FORMS_DQ << split)) continue;
      int s_identity = !pose->dq_scaled[split]; /* the entries' S_i are I's (internal.h) */
      pose->dq_scaled[split] = 0;
      skn__kernels()->dq_forms(pose, split, s_identity);
      pose->dq_uniform[split] = pose->dq_scaled[split] && dq_uniform(pose, split);
    }
    __atomic_store_n(&pose->derived, (uint64_t)version << 32 | (uint32_t)(have | want), __ATOMIC_RELEASE);
  }
  pthread_mutex_unlock(&pose->lock);
}
