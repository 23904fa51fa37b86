/* test_pose.c — forward kinematics, set_model, palettes, the version calls
 * and the function table. */
#include "testlib.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979323846

/* The instruction sets the tests compare (skn_set_simd refuses those the
 * CPU lacks, and the tests skip them). */
static const skn_simd levels[] = {SKN_SIMD_SCALAR, SKN_SIMD_PORTABLE, SKN_SIMD_AVX2, SKN_SIMD_AVX512};

/* A 3-joint chain along x, 1 apart. */
static skn_rig *chain_rig(void) {
  static const int32_t parents[3] = {-1, 0, 1};
  static float bind[48];
  static float pos[3] = {0, 0, 0}, w = 1;
  static uint32_t joint = 0;
  for (int j = 0; j < 3; ++j) {
    float *m = bind + j * 16;
    memset(m, 0, 16 * sizeof(float));
    m[0] = m[5] = m[10] = m[15] = 1;
    m[12] = (float)j;
  }
  skn_bind_desc d = {sizeof d};
  d.joint_count = 3;
  d.parents = parents;
  d.bind_matrices = bind;
  d.vertex_count = 1;
  d.positions.data = pos;
  d.influences_per_vertex = 1;
  d.influence_joints = &joint;
  d.influence_weights = &w;
  return bind_or_fail(&d);
}

/* At rest every palette matrix is the identity; MAT4 and ROWS3X4 agree. */
START_TEST(palette_formats) {
  skn_rig *rig = chain_rig();
  skn_pose *pose = pose_or_fail(rig);
  float mat4[48], rows[36], nrows[36];
  ck_assert_int_eq(skn_pose_palette(pose, SKN_PALETTE_MAT4, mat4, sizeof mat4), SKN_OK);
  for (int j = 0; j < 3; ++j)
    for (int e = 0; e < 16; ++e) ck_assert_float_eq_tol(mat4[j * 16 + e], (e % 5 == 0) ? 1.0f : 0.0f, 1e-6f);
  /* rotate the root 90° about z and scale joint 1 by 2 along its x */
  skn_transform t[2] = {transform_identity(), transform_identity()};
  quat_axis_angle(t[0].rotation, 0, 0, 1, PI / 2);
  t[1].translation[0] = 1;
  t[1].scale[0] = 2;
  ck_assert_int_eq(skn_pose_set_local(pose, 0, 2, t), SKN_OK);
  ck_assert_int_eq(skn_pose_palette(pose, SKN_PALETTE_MAT4, mat4, sizeof mat4), SKN_OK);
  ck_assert_int_eq(skn_pose_palette(pose, SKN_PALETTE_ROWS3X4, rows, sizeof rows), SKN_OK);
  ck_assert_int_eq(skn_pose_palette(pose, SKN_PALETTE_NORMAL_ROWS3X4, nrows, sizeof nrows), SKN_OK);
  for (int j = 0; j < 3; ++j)
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 4; ++c) ck_assert_float_eq(rows[j * 12 + r * 4 + c], mat4[j * 16 + c * 4 + r]);
  /* joint 1: W^A = Rz T(1,0,0) S(2,1,1), W^R = T(1,0,0): M = Rz T S T^-1.
   * M (x,y,z) = Rz (2x - 1 + 1, y, z) ... so M's 3x3 = Rz diag(2,1,1) =
   * [[0,-1,0],[2,0,0],[0,0,1]] and its translation Rz (1 - 2, 0, 0) = (0,-1,0). */
  const float m1[12] = {0, -1, 0, 0, 2, 0, 0, -1, 0, 0, 1, 0};
  ck_assert_double_le(max_abs_diff(rows + 12, m1, 12), 1e-6);
  /* its normal matrix: (Rz diag(2,1,1))^-T = Rz diag(1/2,1,1) = [[0,-1,0],[.5,0,0],[0,0,1]] */
  const float n1[12] = {0, -1, 0, 0, 0.5f, 0, 0, 0, 0, 0, 1, 0};
  ck_assert_double_le(max_abs_diff(nrows + 12, n1, 12), 1e-6);
  skn_pose_destroy(pose);
  skn_rig_destroy(rig);
}
END_TEST

/* A joint whose 3x3 is a rotation to 4e-6 (A^T A = I within it) keeps A
 * itself as its normal matrix, bit for bit (A^-T differs from it by no
 * more; the LBS kernels then blend one matrix: lbs_simd.h); any other keeps
 * A^-T. Scales 1 + 1e-7 (A^T A - I ~ 2e-7) and 1 + 1e-5 (2e-5) fall either
 * side; a random rigid 40-joint rig is all rotations. */
START_TEST(rotation_joints_keep_their_matrix_as_normal_matrix) {
  test_rig t;
  skn_pose *pose;
  enum { JOINTS = 40 };
  skn_rig *rig = posed_random_rig(&t, 17, JOINTS, 10, 1, 0, &pose);
  float rows[JOINTS * 12], nrows[JOINTS * 12];
  ck_assert_int_eq(skn_pose_palette(pose, SKN_PALETTE_ROWS3X4, rows, sizeof rows), SKN_OK);
  ck_assert_int_eq(skn_pose_palette(pose, SKN_PALETTE_NORMAL_ROWS3X4, nrows, sizeof nrows), SKN_OK);
  for (uint32_t j = 0; j < JOINTS; ++j)
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c)
        ck_assert_msg(nrows[j * 12 + r * 4 + c] == rows[j * 12 + r * 4 + c], "joint %u: N(%d,%d) %.9g, M %.9g", j, r,
                      c, nrows[j * 12 + r * 4 + c], rows[j * 12 + r * 4 + c]);
  uint32_t leaf = 0; /* a joint without children: scaling it changes its palette entry alone */
  for (uint32_t j = 0; j < JOINTS; ++j) {
    int parent = 0;
    for (uint32_t c = 0; c < JOINTS; ++c) parent |= t.parents[c] == (int32_t)j;
    if (!parent) leaf = j;
  }
  for (int big = 0; big < 2; ++big) { /* the leaf scaled uniformly by s */
    float s = big ? 1.00001f : 1.0000001f;
    skn_transform x = t.pose[leaf];
    x.scale[0] = x.scale[1] = x.scale[2] = s;
    ck_assert_int_eq(skn_pose_set_local(pose, leaf, 1, &x), SKN_OK);
    ck_assert_int_eq(skn_pose_palette(pose, SKN_PALETTE_ROWS3X4, rows, sizeof rows), SKN_OK);
    ck_assert_int_eq(skn_pose_palette(pose, SKN_PALETTE_NORMAL_ROWS3X4, nrows, sizeof nrows), SKN_OK);
    int same = 1;
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) { /* A^-T = A / s^2 */
        float n = nrows[leaf * 12 + r * 4 + c], a = rows[leaf * 12 + r * 4 + c];
        same &= n == a;
        ck_assert_double_le(fabs(n - a / ((double)s * s)), 1e-6);
      }
    ck_assert_msg(same == !big, "scale %.8g: N %s A", s, same ? "==" : "!=");
  }
  skn_pose_destroy(pose);
  skn_rig_destroy(rig);
  test_rig_free(&t);
}
END_TEST

/* Joint j's normal matrix against its matrix's 3x3 A: A itself, bit for
 * bit, if `same`, else A^-T (in double) within 1e-6 of its size. */
static void check_normal_matrix(const float *rows, const float *nrows, uint32_t j, int same) {
  const float *a = rows + j * 12, *n = nrows + j * 12;
  double m[16] = {0}, inv[16], size = 0;
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) m[c * 4 + r] = a[r * 4 + c];
  m[15] = 1;
  dm_invert(inv, m);
  for (int e = 0; e < 16; ++e) size = fmax(size, fabs(inv[e]));
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) {
      double want = same ? a[r * 4 + c] : inv[r * 4 + c]; /* N(r, c) = (A^-1)(c, r) */
      ck_assert_msg(same ? n[r * 4 + c] == a[r * 4 + c] : fabs(n[r * 4 + c] - want) <= 1e-6 * size,
                    "joint %u: N(%d,%d) %.9g, want %.9g", j, r, c, n[r * 4 + c], want);
    }
}

/* A pose of rotations stores no N (M's 3x3 serves: pose_simd.h); the
 * first joint that is not one makes every N written, those of the joints
 * before it included. Each leaf of a 40-joint rig scaled in turn (its
 * position anywhere among the groups), on every instruction set: every
 * joint's N is A or A^-T as it should be, and again A everywhere once the
 * leaf is restored. */
START_TEST(normal_matrices_where_one_joint_is_scaled) {
  enum { JOINTS = 40 };
  float rows[JOINTS * 12], nrows[JOINTS * 12];
  int runs = 0;
  for (size_t l = 0; l < sizeof levels / sizeof levels[0]; ++l) {
    if (skn_set_simd(levels[l]) != SKN_OK) continue;
    ++runs;
    test_rig t;
    skn_pose *pose;
    skn_rig *rig = posed_random_rig(&t, 23, JOINTS, 10, 1, 0, &pose);
    for (uint32_t leaf = 0; leaf < JOINTS; ++leaf) {
      int parent = 0;
      for (uint32_t c = 0; c < JOINTS; ++c) parent |= t.parents[c] == (int32_t)leaf;
      if (parent) continue;
      for (int restored = 0; restored < 2; ++restored) {
        skn_transform x = t.pose[leaf];
        if (!restored) x.scale[0] = 1.5f;
        ck_assert_int_eq(skn_pose_set_local(pose, leaf, 1, &x), SKN_OK);
        ck_assert_int_eq(skn_pose_palette(pose, SKN_PALETTE_ROWS3X4, rows, sizeof rows), SKN_OK);
        ck_assert_int_eq(skn_pose_palette(pose, SKN_PALETTE_NORMAL_ROWS3X4, nrows, sizeof nrows), SKN_OK);
        for (uint32_t j = 0; j < JOINTS; ++j) {
          check_normal_matrix(rows, nrows, j, restored || j != leaf);
          for (int r = 0; r < 3; ++r) ck_assert_float_eq(nrows[j * 12 + r * 4 + 3], 0.0f);
        }
      }
    }
    skn_pose_destroy(pose);
    skn_rig_destroy(rig);
    test_rig_free(&t);
  }
  ck_assert_int_ge(runs, 2);
  ck_assert_int_eq(skn_set_simd(SKN_SIMD_AUTO), SKN_OK);
}
END_TEST

/* set_model pins the joints it sets; the others keep their locals and
 * follow their parents; set_local unpins. */
START_TEST(set_model_semantics) {
  skn_rig *rig = chain_rig();
  skn_pose *pose = pose_or_fail(rig);
  float m[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 5, 0, 0, 1}; /* joint 1 moved to x = 5 */
  ck_assert_int_eq(skn_pose_set_model(pose, 1, 1, m), SKN_OK);
  float pal[48];
  ck_assert_int_eq(skn_pose_palette(pose, SKN_PALETTE_MAT4, pal, sizeof pal), SKN_OK);
  ck_assert_float_eq_tol(pal[16 + 12], 4.0f, 1e-6f); /* M_1 = T(5) T(1)^-1 */
  ck_assert_float_eq_tol(pal[32 + 12], 4.0f, 1e-6f); /* joint 2 follows its parent */
  skn_transform root = transform_identity();
  root.translation[1] = 3; /* moving the root does not move pinned joint 1 */
  ck_assert_int_eq(skn_pose_set_local(pose, 0, 1, &root), SKN_OK);
  ck_assert_int_eq(skn_pose_palette(pose, SKN_PALETTE_MAT4, pal, sizeof pal), SKN_OK);
  ck_assert_float_eq_tol(pal[16 + 13], 0.0f, 1e-6f);
  skn_transform one = transform_identity();
  one.translation[0] = 1; /* back to its bind local: follows the root again */
  ck_assert_int_eq(skn_pose_set_local(pose, 1, 1, &one), SKN_OK);
  ck_assert_int_eq(skn_pose_palette(pose, SKN_PALETTE_MAT4, pal, sizeof pal), SKN_OK);
  ck_assert_float_eq_tol(pal[16 + 12], 0.0f, 1e-6f);
  ck_assert_float_eq_tol(pal[16 + 13], 3.0f, 1e-6f);
  ck_assert_float_eq_tol(pal[32 + 13], 3.0f, 1e-6f);
  skn_pose_destroy(pose);
  skn_rig_destroy(rig);
}
END_TEST

/* set_model with every joint's W^A equals set_local with the locals that
 * produce them, on a random rig. */
START_TEST(set_model_equals_set_local) {
  test_rig t;
  test_rig_random(&t, 51, 20, 300, 4, 2);
  skn_bind_desc d = test_rig_desc(&t);
  skn_rig *rig = bind_or_fail(&d);
  skn_pose *a = pose_or_fail(rig), *b = pose_or_fail(rig);
  ck_assert_int_eq(skn_pose_set_local(a, 0, t.joint_count, t.pose), SKN_OK);
  double (*pal)[16] = malloc(t.joint_count * sizeof *pal);
  float *world = malloc(t.joint_count * 16 * sizeof(float));
  ref_palette(&t, pal);
  for (uint32_t j = 0; j < t.joint_count; ++j) { /* W^A = M_i W^R */
    double b16[16], w[16];
    for (int e = 0; e < 16; ++e) b16[e] = t.bind[j * 16 + e];
    dm_mul(w, pal[j], b16);
    for (int e = 0; e < 16; ++e) world[j * 16 + e] = (float)w[e];
  }
  ck_assert_int_eq(skn_pose_set_model(b, 0, t.joint_count, world), SKN_OK);
  float pa[900], pb[900];
  skin_or_fail(rig, a, SKN_METHOD_LBS_MATRIX, pa, NULL, NULL);
  skin_or_fail(rig, b, SKN_METHOD_LBS_MATRIX, pb, NULL, NULL);
  ck_assert_double_le(max_abs_diff(pa, pb, 900), 1e-5 * t.size);
  free(pal);
  free(world);
  skn_pose_destroy(a);
  skn_pose_destroy(b);
  skn_rig_destroy(rig);
  test_rig_free(&t);
}
END_TEST

/* The palette on a random 120-joint rig with non-uniform scales and
 * unnormalized quaternions equals the reference's double-precision FK,
 * M_i = W_i^A (W_i^R)^-1 and N_i = M_i^-T (testlib.c), and is the same bit
 * for bit whichever instruction set computes it (pose_simd.h). */
START_TEST(palette_matches_reference_on_every_instruction_set) {
  test_rig t;
  test_rig_random(&t, 61, 120, 10, 1, 2);
  skn_bind_desc d = test_rig_desc(&t);
  skn_rig *rig = bind_or_fail(&d);
  for (uint32_t j = 0; j < t.joint_count; ++j)
    for (int c = 0; c < 4; ++c) t.pose[j].rotation[c] *= 0.5f + (float)(j % 5); /* |q| from 0.5 to 4.5 */
  double (*ref)[16] = malloc(t.joint_count * sizeof *ref);
  ref_palette(&t, ref);
  size_t n = (size_t)t.joint_count * 16;
  float *first = malloc(n * 2 * sizeof(float)), *got = malloc(n * 2 * sizeof(float));
  int runs = 0;
  for (size_t l = 0; l < sizeof levels / sizeof levels[0]; ++l) {
    if (skn_set_simd(levels[l]) != SKN_OK) continue; /* not on this CPU */
    skn_pose *pose = pose_or_fail(rig);
    ck_assert_int_eq(skn_pose_set_local(pose, 0, t.joint_count, t.pose), SKN_OK);
    ck_assert_int_eq(skn_pose_palette(pose, SKN_PALETTE_MAT4, got, n * sizeof(float)), SKN_OK);
    ck_assert_int_eq(skn_pose_palette(pose, SKN_PALETTE_NORMAL_ROWS3X4, got + n, n * sizeof(float)), SKN_OK);
    skn_pose_destroy(pose);
    if (runs++ == 0) {
      memcpy(first, got, n * 2 * sizeof(float));
      for (uint32_t j = 0; j < t.joint_count; ++j) {
        double inv[16], scale = 0, nscale = 0;
        dm_invert(inv, ref[j]);
        for (int e = 0; e < 16; ++e) scale = fmax(scale, fabs(ref[j][e]));
        for (int e = 0; e < 16; ++e) nscale = fmax(nscale, fabs(inv[e]));
        for (int e = 0; e < 16; ++e)
          ck_assert_msg(fabs(got[j * 16 + e] - ref[j][e]) <= 1e-5 * scale, "joint %u: M[%d] %g, reference %g", j, e,
                        got[j * 16 + e], ref[j][e]);
        for (int r = 0; r < 3; ++r) /* N_i(r, c) = (M_i^-1)(c, r) */
          for (int c = 0; c < 3; ++c)
            ck_assert_msg(fabs(got[n + j * 12 + r * 4 + c] - inv[r * 4 + c]) <= 1e-5 * nscale,
                          "joint %u: N(%d,%d) %g, reference %g", j, r, c, got[n + j * 12 + r * 4 + c], inv[r * 4 + c]);
      }
    } else {
      size_t written = n + (size_t)t.joint_count * 12; /* MAT4's, then NORMAL_ROWS3X4's 12 a joint */
      ck_assert_msg(!memcmp(first, got, written * sizeof(float)), "simd level %d: the palette differs", (int)levels[l]);
    }
  }
  ck_assert_int_ge(runs, 2);
  ck_assert_int_eq(skn_set_simd(SKN_SIMD_AUTO), SKN_OK);
  free(first);
  free(got);
  free(ref);
  skn_rig_destroy(rig);
  test_rig_free(&t);
}
END_TEST

/* A pose that had scaled joints and then has none: the SIMD forms store
 * only a rigid joint's dual quaternion where the entries' S_i are known to
 * be the identity's, so the entries the scaled pose left must be made the
 * identity's again. On every instruction set, the palette (S_i included)
 * and DQS's scalar reference (positions and normals; it reads each entry's
 * scaled flag) on the reused pose equal those of a pose that only ever had
 * the rigid one. */
START_TEST(dq_palette_after_a_scaled_pose) {
  test_rig t;
  test_rig_random(&t, 71, 40, 200, 4, 0);
  skn_bind_desc d = test_rig_desc(&t);
  skn_rig *rig = bind_or_fail(&d);
  skn_transform *scaled = malloc(t.joint_count * sizeof *scaled);
  memcpy(scaled, t.pose, t.joint_count * sizeof *scaled);
  for (uint32_t j = 0; j < t.joint_count; j += 3) scaled[j].scale[1] = 1.5f;
  size_t n = (size_t)t.joint_count * 20, nv = (size_t)t.vertex_count * 3;
  float *want = malloc(n * sizeof(float)), *got = malloc(n * sizeof(float));
  float *want_p = malloc(2 * nv * sizeof(float)), *got_p = malloc(2 * nv * sizeof(float));
  int runs = 0;
  for (size_t l = 0; l < sizeof levels / sizeof levels[0]; ++l) {
    if (skn_set_simd(levels[l]) != SKN_OK) continue; /* not on this CPU */
    ++runs;
    skn_pose *fresh = pose_or_fail(rig), *reused = pose_or_fail(rig);
    ck_assert_int_eq(skn_pose_set_local(fresh, 0, t.joint_count, t.pose), SKN_OK);
    ck_assert_int_eq(skn_pose_palette(fresh, SKN_PALETTE_DUAL_QUAT_SCALE, want, n * sizeof(float)), SKN_OK);
    ck_assert_int_eq(skn_pose_set_local(reused, 0, t.joint_count, scaled), SKN_OK);
    ck_assert_int_eq(skn_pose_palette(reused, SKN_PALETTE_DUAL_QUAT_SCALE, got, n * sizeof(float)), SKN_OK);
    ck_assert_msg(memcmp(want, got, n * sizeof(float)) != 0, "the scaled pose changed no entry");
    ck_assert_int_eq(skn_pose_set_local(reused, 0, t.joint_count, t.pose), SKN_OK);
    ck_assert_int_eq(skn_pose_palette(reused, SKN_PALETTE_DUAL_QUAT_SCALE, got, n * sizeof(float)), SKN_OK);
    ck_assert_msg(!memcmp(want, got, n * sizeof(float)), "simd level %d: the palette differs", (int)levels[l]);
    ck_assert_int_eq(skn_set_simd(SKN_SIMD_SCALAR), SKN_OK); /* the forms stay as derived */
    skn_skin_desc s = {sizeof s};
    s.method = SKN_METHOD_DQS, s.threads = 1;
    s.positions.data = want_p, s.normals.data = want_p + nv;
    ck_assert_int_eq(skn_skin(rig, fresh, &s), SKN_OK);
    s.positions.data = got_p, s.normals.data = got_p + nv;
    ck_assert_int_eq(skn_skin(rig, reused, &s), SKN_OK);
    ck_assert_msg(!memcmp(want_p, got_p, 2 * nv * sizeof(float)), "simd level %d: DQS differs", (int)levels[l]);
    skn_pose_destroy(fresh);
    skn_pose_destroy(reused);
  }
  ck_assert_int_ge(runs, 2);
  ck_assert_int_eq(skn_set_simd(SKN_SIMD_AUTO), SKN_OK);
  free(want), free(got), free(want_p), free(got_p), free(scaled);
  skn_rig_destroy(rig);
  test_rig_free(&t);
}
END_TEST

/* The dual quaternion palettes (DQS's forms, both splits) are the same bit
 * for bit whichever instruction set derives them (forms_simd.h: rigid
 * joints in lanes, the others by palette.c's polar split), with a joint
 * count that leaves a tail of three: where `scale_some`, on a pose where
 * some joints are rigid and some are scaled (the scalar set's palette has
 * both kinds); else on a pose of rotations alone, where the SIMD sets skip
 * the rigid test (pose->lbs_rigid) and every S_i is the identity. */
static void dq_palettes_same(int scale_some) {
  static const skn_palette_format formats[] = {SKN_PALETTE_DUAL_QUAT_SCALE, SKN_PALETTE_DUAL_QUAT_SCALE_KEEP_Y};
  test_rig t;
  test_rig_random(&t, 67, 63, 10, 1, 0);
  skn_bind_desc d = test_rig_desc(&t);
  skn_rig *rig = bind_or_fail(&d);
  for (uint32_t j = 0; j < t.joint_count; j += 5) { /* scaled: these and their descendants are not rigid */
    if (scale_some) t.pose[j].scale[0] = 1.5f, t.pose[j].scale[1] = 0.75f;
    for (int c = 0; c < 4; ++c) t.pose[j].rotation[c] *= 3.0f; /* |q| = 3: rigid all the same */
  }
  size_t n = (size_t)t.joint_count * 20;
  float *first = malloc(n * 2 * sizeof(float)), *got = malloc(n * 2 * sizeof(float));
  int runs = 0;
  for (size_t l = 0; l < sizeof levels / sizeof levels[0]; ++l) {
    if (skn_set_simd(levels[l]) != SKN_OK) continue; /* not on this CPU */
    skn_pose *pose = pose_or_fail(rig);
    ck_assert_int_eq(skn_pose_set_local(pose, 0, t.joint_count, t.pose), SKN_OK);
    for (int f = 0; f < 2; ++f)
      ck_assert_int_eq(skn_pose_palette(pose, formats[f], got + f * n, n * sizeof(float)), SKN_OK);
    skn_pose_destroy(pose);
    if (runs++ == 0) {
      memcpy(first, got, n * 2 * sizeof(float));
      uint32_t scaled = 0;
      for (uint32_t j = 0; j < t.joint_count; ++j) { /* S_i's rows after the dual quaternion */
        static const float identity[12] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0};
        scaled += memcmp(got + j * 20 + 8, identity, sizeof identity) != 0;
      }
      if (scale_some) {
        ck_assert_uint_gt(scaled, 5);
        ck_assert_uint_lt(scaled, t.joint_count - 5);
      } else {
        ck_assert_uint_eq(scaled, 0);
      }
    } else {
      size_t written = n + (size_t)t.joint_count * 12; /* MAT4's, then NORMAL_ROWS3X4's 12 a joint */
      ck_assert_msg(!memcmp(first, got, written * sizeof(float)), "simd level %d: the palette differs", (int)levels[l]);
    }
  }
  ck_assert_int_ge(runs, 2);
  ck_assert_int_eq(skn_set_simd(SKN_SIMD_AUTO), SKN_OK);
  free(first);
  free(got);
  skn_rig_destroy(rig);
  test_rig_free(&t);
}

START_TEST(dq_palette_same_on_every_instruction_set) {
  dq_palettes_same(1);
}
END_TEST

START_TEST(dq_palette_of_rotations_same_on_every_instruction_set) {
  dq_palettes_same(0);
}
END_TEST

/* LBS_QUATERNION's forms (s_i, R_i, b_i and the kernels' record) are the
 * same bit for bit whichever set derives them (forms_simd.h against
 * palette.c's joint-at-a-time code): one set's kernel skins a pose whose
 * forms the scalar set derived (they are kept until the pose changes) and a
 * pose that derived its own, to the same bits, with a tail of three: where
 * `scaled`, on a rig where joints are scaled and some (leaves no vertex
 * uses) are not similarities; else on a pose of rotations alone, where the
 * SIMD sets skip the similarity test (pose->lbs_rigid). */
/* The rig's leaves (root excepted) lose their influences to their parents
 * and stretch along y: not similarities, which LBS_QUATERNION refuses only
 * where a vertex uses them. */
static void stretch_unused_leaves(test_rig *t) {
  uint8_t *leaf = malloc(t->joint_count);
  memset(leaf, 1, t->joint_count);
  for (uint32_t j = 0; j < t->joint_count; ++j)
    if (t->parents[j] >= 0) leaf[t->parents[j]] = 0;
  uint32_t leaves = 0;
  for (uint32_t j = 0; j < t->joint_count; ++j)
    if (leaf[j] && t->parents[j] >= 0) {
      t->pose[j].scale[1] *= 1.5f, ++leaves;
      for (uint32_t i = 0; i < t->vertex_count * t->k; ++i)
        if (t->joints[i] == j) t->joints[i] = (uint32_t)t->parents[j];
    }
  ck_assert_uint_ge(leaves, 3);
  free(leaf);
}

static void quaternion_forms_same(int scaled) {
  test_rig t;
  test_rig_random(&t, 71, 63, 400, 4, scaled);
  if (scaled) stretch_unused_leaves(&t);
  skn_bind_desc d = test_rig_desc(&t);
  skn_rig *rig = bind_or_fail(&d);
  float *pa = malloc(400 * 6 * sizeof(float)), *pb = malloc(400 * 6 * sizeof(float));
  int runs = 0;
  for (size_t l = 1; l < sizeof levels / sizeof levels[0]; ++l) { /* the SIMD sets */
    if (skn_set_simd(levels[l]) != SKN_OK) continue; /* not on this CPU */
    skn_pose *a = pose_or_fail(rig), *b = pose_or_fail(rig);
    ck_assert_int_eq(skn_pose_set_local(a, 0, t.joint_count, t.pose), SKN_OK);
    ck_assert_int_eq(skn_pose_set_local(b, 0, t.joint_count, t.pose), SKN_OK);
    ck_assert_int_eq(skn_set_simd(SKN_SIMD_SCALAR), SKN_OK);
    skin_or_fail(rig, a, SKN_METHOD_LBS_QUATERNION, pa, pa + 1200, NULL); /* the scalar set derives a's forms */
    ck_assert_int_eq(skn_set_simd(levels[l]), SKN_OK);
    skin_or_fail(rig, a, SKN_METHOD_LBS_QUATERNION, pa, pa + 1200, NULL);
    skin_or_fail(rig, b, SKN_METHOD_LBS_QUATERNION, pb, pb + 1200, NULL);
    ck_assert_msg(!memcmp(pa, pb, 400 * 6 * sizeof(float)), "simd level %d: the forms differ", (int)levels[l]);
    skn_pose_destroy(a);
    skn_pose_destroy(b);
    ++runs;
  }
  ck_assert_int_ge(runs, 1);
  ck_assert_int_eq(skn_set_simd(SKN_SIMD_AUTO), SKN_OK);
  free(pa);
  free(pb);
  skn_rig_destroy(rig);
  test_rig_free(&t);
}

START_TEST(quaternion_forms_same_on_every_instruction_set) {
  quaternion_forms_same(1);
}
END_TEST

START_TEST(quaternion_forms_of_rotations_same_on_every_instruction_set) {
  quaternion_forms_same(0);
}
END_TEST

/* t's palette, set on every instruction set as one call and in pieces (a
 * range [pieces[p], pieces[p + 1]) per call, after a whole pose of
 * identities): equal to the double-precision reference, the pieces bit for
 * bit the one call, and the sets bit for bit one another. */
static void check_pose_by_levels(test_rig *t, const uint32_t *pieces, size_t piece_count) {
  uint32_t n = t->joint_count;
  skn_bind_desc d = test_rig_desc(t);
  skn_rig *rig = bind_or_fail(&d);
  double (*ref)[16] = malloc(n * sizeof *ref);
  ref_palette(t, ref);
  size_t floats = (size_t)n * 16;
  float *keep = malloc(floats * sizeof(float)), *got = malloc(floats * sizeof(float)),
        *piecewise = malloc(floats * sizeof(float));
  skn_transform *identities = malloc(n * sizeof *identities);
  int runs = 0;
  for (size_t l = 0; l < sizeof levels / sizeof levels[0]; ++l) {
    if (skn_set_simd(levels[l]) != SKN_OK) continue;
    skn_pose *whole = pose_or_fail(rig), *parts = pose_or_fail(rig);
    ck_assert_int_eq(skn_pose_set_local(whole, 0, n, t->pose), SKN_OK);
    for (uint32_t j = 0; j < n; ++j) identities[j] = transform_identity();
    ck_assert_int_eq(skn_pose_set_local(parts, 0, n, identities), SKN_OK); /* the pieces land on another pose */
    for (size_t p = 0; p + 1 < piece_count; ++p)
      ck_assert_int_eq(skn_pose_set_local(parts, pieces[p], pieces[p + 1] - pieces[p], t->pose + pieces[p]), SKN_OK);
    ck_assert_int_eq(skn_pose_palette(whole, SKN_PALETTE_MAT4, got, floats * sizeof(float)), SKN_OK);
    ck_assert_int_eq(skn_pose_palette(parts, SKN_PALETTE_MAT4, piecewise, floats * sizeof(float)), SKN_OK);
    ck_assert_msg(!memcmp(piecewise, got, floats * sizeof(float)), "simd level %d: pieces differ", (int)levels[l]);
    for (uint32_t j = 0; j < n; ++j) {
      double scale = 0;
      for (int e = 0; e < 16; ++e) scale = fmax(scale, fabs(ref[j][e]));
      for (int e = 0; e < 16; ++e)
        ck_assert_msg(fabs(got[j * 16 + e] - ref[j][e]) <= 1e-5 * scale, "simd level %d, joint %u: M[%d] %g, reference %g",
                      (int)levels[l], j, e, got[j * 16 + e], ref[j][e]);
    }
    if (runs++ == 0) memcpy(keep, got, floats * sizeof(float));
    ck_assert_msg(!memcmp(keep, got, floats * sizeof(float)), "simd level %d: the palette differs", (int)levels[l]);
    skn_pose_destroy(whole);
    skn_pose_destroy(parts);
  }
  ck_assert_int_ge(runs, 2);
  ck_assert_int_eq(skn_set_simd(SKN_SIMD_AUTO), SKN_OK);
  free(identities);
  free(keep);
  free(got);
  free(piecewise);
  free(ref);
  skn_rig_destroy(rig);
}

/* Forward kinematics goes level by level, wide levels across lanes and
 * narrow runs (chains) a joint at a time (pose_simd.h). On a 100-joint rig
 * with both — a 30-joint chain, a 50-joint fan off its 13th joint, 19
 * grandchildren, another root — in scrambled bind order, the palette is the
 * reference's on every set, in one call and in pieces (ranges that start
 * and end inside lane groups). */
START_TEST(pose_by_levels_matches_reference) {
  static const uint32_t pieces[] = {0, 1, 6, 23, 24, 57, 100};
  test_rig t;
  test_rig_random(&t, 77, 100, 10, 1, 2);
  uint32_t n = t.joint_count, perm[100];
  for (uint32_t g = 0; g < n; ++g) perm[g] = (g * 37 + 11) % n; /* joint perm[g] is the g-th in the hierarchy */
  for (uint32_t g = 0; g < n; ++g)
    t.parents[perm[g]] = g == 0 || g == 99 ? -1 : g < 30 ? (int32_t)perm[g - 1] : g < 80 ? (int32_t)perm[12]
                                                                                : (int32_t)perm[30 + (g * 7) % 50];
  check_pose_by_levels(&t, pieces, sizeof pieces / sizeof pieces[0]);
  test_rig_free(&t);
}
END_TEST

/* A wide level's lane group reads its parents from the level before with
 * two vector loads and a permute where they span fewer than twice the
 * lanes, else with a gather (pose_simd.h, load_parents). Joint 0 the root;
 * 1-100 its children; 101-152 grandchildren, in runs of 16 whose parents
 * are 1-16 (span 15), 17, 19, .., 47 (span 30), 48, 51, .., 93 (span 45),
 * then 95-98 — in bind order backwards, so that only breadth-first order
 * sorts them. 16 lanes take each path once; 8 lanes and 4 (the portable
 * set) each too (spans 7 or 3, 14 or 6, 21 or 9). */
START_TEST(pose_parents_near_and_far) {
  static const uint32_t first[] = {1, 17, 48, 95}, step[] = {1, 2, 3, 1}; /* run r's i-th: first[r] + step[r] i */
  test_rig t;
  test_rig_random(&t, 78, 153, 10, 1, 2);
  for (uint32_t j = 0; j < 153; ++j) {
    uint32_t g = 152 - j; /* joint j > 100 is the g-th grandchild */
    t.parents[j] = j == 0 ? -1 : j <= 100 ? 0 : (int32_t)(first[g / 16] + step[g / 16] * (g % 16));
  }
  static const uint32_t pieces[] = {0, 153};
  check_pose_by_levels(&t, pieces, 2);
  test_rig_free(&t);
}
END_TEST

/* A NaN or an infinity in any of a transform's ten floats, of any joint in
 * the range, is SKN_ERR_NOT_FINITE naming that joint, and the pose keeps
 * its palette (pose_simd.h tests the ten floats of a lane group at once). */
START_TEST(set_local_refuses_any_non_finite_float) {
  skn_rig *rig = chain_rig();
  skn_pose *pose = pose_or_fail(rig);
  const float bad[3] = {NAN, INFINITY, -INFINITY};
  float before[48], after[48];
  ck_assert_int_eq(skn_pose_palette(pose, SKN_PALETTE_MAT4, before, sizeof before), SKN_OK);
  for (int j = 0; j < 3; ++j)
    for (int f = 0; f < 10; ++f)
      for (int b = 0; b < 3; ++b) {
        skn_transform t[3] = {transform_identity(), transform_identity(), transform_identity()};
        float *fl = f < 3 ? &t[j].translation[f] : f < 7 ? &t[j].rotation[f - 3] : &t[j].scale[f - 7];
        *fl = bad[b];
        char joint[24];
        snprintf(joint, sizeof joint, "joint %d", j);
        ck_assert_int_eq(skn_pose_set_local(pose, 0, 3, t), SKN_ERR_NOT_FINITE);
        ck_assert_msg(strstr(skn_last_error(), joint) != NULL, "float %d: %s", f, skn_last_error());
        ck_assert_int_eq(skn_pose_palette(pose, SKN_PALETTE_MAT4, after, sizeof after), SKN_OK);
        ck_assert_mem_eq(after, before, sizeof before);
      }
  skn_pose_destroy(pose);
  skn_rig_destroy(rig);
}
END_TEST

/* A fan: joint 0 the root, 1-20 its children (a level wide enough for the
 * lanes), 21-40 a child each of 1-20; bind matrices the identity, so that
 * M_i = W_i^A. */
static skn_rig *fan_rig(void) {
  static int32_t parents[41];
  static float bind[41 * 16];
  static float pos[3] = {0, 0, 0}, w = 1;
  static uint32_t joint = 0;
  for (int j = 0; j < 41; ++j) {
    parents[j] = j == 0 ? -1 : j <= 20 ? 0 : j - 20;
    memset(bind + j * 16, 0, 16 * sizeof(float));
    bind[j * 16] = bind[j * 16 + 5] = bind[j * 16 + 10] = bind[j * 16 + 15] = 1;
  }
  skn_bind_desc d = {sizeof d};
  d.joint_count = 41, d.parents = parents, d.bind_matrices = bind;
  d.vertex_count = 1, d.positions.data = pos;
  d.influences_per_vertex = 1, d.influence_joints = &joint, d.influence_weights = &w;
  return bind_or_fail(&d);
}

/* Validation runs across lanes too: with bad transforms at joints 7 and 33
 * of a 41-joint range, the error names joint 7 (the lowest), then 33 once
 * the range starts past 7, for a NaN and for a zero quaternion; the
 * palette is unchanged after each. */
START_TEST(set_local_names_the_lowest_bad_joint) {
  skn_rig *rig = fan_rig();
  skn_pose *pose = pose_or_fail(rig);
  float before[41 * 16], after[41 * 16];
  ck_assert_int_eq(skn_pose_palette(pose, SKN_PALETTE_MAT4, before, sizeof before), SKN_OK);
  for (int kind = 0; kind < 2; ++kind) {
    skn_transform t[41];
    for (int j = 0; j < 41; ++j) t[j] = transform_identity();
    for (int b = 0; b < 2; ++b) {
      skn_transform *x = &t[b ? 33 : 7];
      if (kind == 0) x->scale[2] = NAN;
      else memset(x->rotation, 0, sizeof x->rotation);
    }
    skn_status want = kind == 0 ? SKN_ERR_NOT_FINITE : SKN_ERR_INVALID_ARGUMENT;
    ck_assert_int_eq(skn_pose_set_local(pose, 0, 41, t), want);
    ck_assert_msg(strstr(skn_last_error(), "joint 7:") != NULL, "%s", skn_last_error());
    ck_assert_int_eq(skn_pose_set_local(pose, 8, 33, t + 8), want);
    ck_assert_msg(strstr(skn_last_error(), "joint 33:") != NULL, "%s", skn_last_error());
    ck_assert_int_eq(skn_pose_palette(pose, SKN_PALETTE_MAT4, after, sizeof after), SKN_OK);
    ck_assert_mem_eq(after, before, sizeof before);
  }
  skn_pose_destroy(pose);
  skn_rig_destroy(rig);
}
END_TEST

/* set_model's pinned joints in a level the lanes take: pinned joint 5
 * keeps its matrix while the root moves, its child 25 follows it, its
 * siblings follow the root; set_local un-pins it. On every set. */
START_TEST(set_model_in_a_wide_level) {
  skn_rig *rig = fan_rig();
  for (size_t l = 0; l < sizeof levels / sizeof levels[0]; ++l) {
    if (skn_set_simd(levels[l]) != SKN_OK) continue;
    skn_pose *pose = pose_or_fail(rig);
    float m[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 7, 0, 0, 1}, pal[41 * 16];
    ck_assert_int_eq(skn_pose_set_model(pose, 5, 1, m), SKN_OK);
    skn_transform root = transform_identity();
    root.translation[1] = 3;
    ck_assert_int_eq(skn_pose_set_local(pose, 0, 1, &root), SKN_OK);
    ck_assert_int_eq(skn_pose_palette(pose, SKN_PALETTE_MAT4, pal, sizeof pal), SKN_OK);
    for (int j = 1; j <= 40; ++j) { /* M_i = W_i^A: its translation */
      int pinned = j == 5 || j == 25;
      ck_assert_float_eq(pal[j * 16 + 12], pinned ? 7.0f : 0.0f);
      ck_assert_float_eq(pal[j * 16 + 13], pinned ? 0.0f : 3.0f);
    }
    skn_transform id = transform_identity();
    ck_assert_int_eq(skn_pose_set_local(pose, 5, 1, &id), SKN_OK);
    ck_assert_int_eq(skn_pose_palette(pose, SKN_PALETTE_MAT4, pal, sizeof pal), SKN_OK);
    ck_assert_float_eq(pal[5 * 16 + 12], 0.0f);
    ck_assert_float_eq(pal[25 * 16 + 13], 3.0f);
    skn_pose_destroy(pose);
  }
  ck_assert_int_eq(skn_set_simd(SKN_SIMD_AUTO), SKN_OK);
  skn_rig_destroy(rig);
}
END_TEST

/* bind's rest_local is the starting pose of every new pose. */
START_TEST(rest_local_starting_pose) {
  static const int32_t parents[2] = {-1, 0};
  float bind[32] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1,
                    1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 1, 0, 0, 1};
  skn_transform rest[2] = {transform_identity(), transform_identity()};
  rest[0].translation[2] = 2; /* the whole rig starts lifted by 2 */
  rest[1].translation[0] = 1;
  float pos[3] = {1, 0, 0}, w = 1, out[3];
  uint32_t joint = 1;
  skn_bind_desc d = {sizeof d};
  d.joint_count = 2;
  d.parents = parents;
  d.bind_matrices = bind;
  d.rest_local = rest;
  d.vertex_count = 1;
  d.positions.data = pos;
  d.influences_per_vertex = 1;
  d.influence_joints = &joint;
  d.influence_weights = &w;
  skn_rig *rig = bind_or_fail(&d);
  skn_pose *pose = pose_or_fail(rig);
  skin_or_fail(rig, pose, SKN_METHOD_LBS_MATRIX, out, NULL, NULL);
  const float want[3] = {1, 0, 2};
  ck_assert_double_le(max_abs_diff(out, want, 3), 1e-6);
  skn_pose_destroy(pose);
  skn_rig_destroy(rig);
}
END_TEST

/* LBS_QUATERNION refuses a joint with non-uniform scale, naming it. */
START_TEST(quaternion_form_refuses_shear) {
  skn_rig *rig = chain_rig();
  skn_pose *pose = pose_or_fail(rig);
  skn_transform t = transform_identity();
  t.scale[1] = 3;
  ck_assert_int_eq(skn_pose_set_local(pose, 0, 1, &t), SKN_OK);
  float out[3] = {42, 42, 42};
  skn_skin_desc s = {sizeof s};
  s.method = SKN_METHOD_LBS_QUATERNION;
  s.positions.data = out;
  ck_assert_int_eq(skn_skin(rig, pose, &s), SKN_ERR_UNSUPPORTED);
  ck_assert_ptr_nonnull(strstr(skn_last_error(), "joint 0"));
  ck_assert_float_eq(out[0], 42);
  t.scale[0] = t.scale[2] = 3; /* uniform now: served */
  ck_assert_int_eq(skn_pose_set_local(pose, 0, 1, &t), SKN_OK);
  ck_assert_int_eq(skn_skin(rig, pose, &s), SKN_OK);
  skn_pose_destroy(pose);
  skn_rig_destroy(rig);
}
END_TEST

START_TEST(version_and_names) {
  ck_assert_uint_eq(skn_version(), SKN_VERSION_NUMBER);
  ck_assert_uint_eq(skn_version() / 10000, SKN_VERSION_MAJOR);
  ck_assert_str_eq(skn_version_string(), "1.5.0");
  ck_assert_str_eq(skn_status_name(SKN_OK), "SKN_OK");
  ck_assert_str_eq(skn_status_name(SKN_ERR_SINGULAR), "SKN_ERR_SINGULAR");
  ck_assert_str_eq(skn_status_name(SKN_ERR_PARSE), "SKN_ERR_PARSE");
  ck_assert_str_eq(skn_status_name((skn_status)999), "SKN_STATUS_UNKNOWN");
  const skn_api *api = skn_get_api(SKN_VERSION_MAJOR);
  ck_assert_ptr_nonnull(api);
  ck_assert_ptr_null(skn_get_api(0));
  ck_assert_ptr_null(skn_get_api(2));
  ck_assert_uint_eq(api->abi_version, SKN_VERSION_NUMBER);
  ck_assert_uint_ge(api->struct_size, sizeof(skn_api));
  ck_assert_ptr_eq((void *)api->bind, (void *)skn_bind);
  ck_assert_ptr_eq((void *)api->skin, (void *)skn_skin);
  ck_assert_ptr_eq((void *)api->pose_palette, (void *)skn_pose_palette);
}
END_TEST

/* The message stays until the next failure: a success does not clear it. */
START_TEST(last_error_persists) {
  skn_rig *rig = NULL;
  ck_assert_int_eq(skn_bind(NULL, &rig), SKN_ERR_INVALID_ARGUMENT);
  char saved[256];
  strncpy(saved, skn_last_error(), sizeof saved - 1);
  saved[255] = 0;
  ck_assert_uint_gt(strlen(saved), 0);
  skn_rig *chain = chain_rig();
  ck_assert_str_eq(skn_last_error(), saved);
  skn_rig_destroy(chain);
}
END_TEST

Suite *suite_pose(void) {
  Suite *s = suite_create("pose");
  TCase *tc = tcase_create("pose");
  tcase_add_test(tc, palette_formats);
  tcase_add_test(tc, rotation_joints_keep_their_matrix_as_normal_matrix);
  tcase_add_test(tc, normal_matrices_where_one_joint_is_scaled);
  tcase_add_test(tc, set_model_semantics);
  tcase_add_test(tc, set_model_equals_set_local);
  tcase_add_test(tc, palette_matches_reference_on_every_instruction_set);
  tcase_add_test(tc, dq_palette_same_on_every_instruction_set);
  tcase_add_test(tc, dq_palette_of_rotations_same_on_every_instruction_set);
  tcase_add_test(tc, dq_palette_after_a_scaled_pose);
  tcase_add_test(tc, quaternion_forms_same_on_every_instruction_set);
  tcase_add_test(tc, quaternion_forms_of_rotations_same_on_every_instruction_set);
  tcase_add_test(tc, pose_by_levels_matches_reference);
  tcase_add_test(tc, pose_parents_near_and_far);
  tcase_add_test(tc, set_local_refuses_any_non_finite_float);
  tcase_add_test(tc, set_local_names_the_lowest_bad_joint);
  tcase_add_test(tc, set_model_in_a_wide_level);
  tcase_add_test(tc, rest_local_starting_pose);
  tcase_add_test(tc, quaternion_form_refuses_shear);
  tcase_add_test(tc, version_and_names);
  tcase_add_test(tc, last_error_persists);
  suite_add_tcase(s, tc);
  return s;
}
