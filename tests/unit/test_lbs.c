/* test_lbs.c — linear blend skinning against hand-worked values and the
 * double-precision reference; the two formulations against each other. */
#include "testlib.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979323846

/* The seed tutorial's three-bone chain along x: joint 0 at the origin,
 * joint 1 at T1 = (2,0,0) from it, joint 2 at T2 = (2,0,0) from joint 1;
 * each posed by a 90° rotation about z (Rz: (x,y,z) -> (-y,x,z)).
 * A vertex p = (1,1,0) on bone 0, weighted 1/2 to joints 1 and 2:
 *   b = R1 T1 R2 T1^-1 p:          T1^-1 p = (-1,1,0) -R2-> (-1,-1,0)
 *                                  -T1-> (1,-1,0) -R1-> (1,1,0)
 *   c = R1 T1 R2 T2 R3 T1^-1 T2^-1 p:  (-3,1,0) -R3-> (-1,-3,0) -T2-> (1,-3,0)
 *                                  -R2-> (3,1,0) -T1-> (5,1,0) -R1-> (-1,5,0)
 *   v = (b + c) / 2 = (0, 3, 0). */
static void chain_check(const int32_t *parents, const uint32_t *slot) {
  float bind[48] = {0};
  for (int j = 0; j < 3; ++j) {
    float *m = bind + slot[j] * 16;
    m[0] = m[5] = m[10] = m[15] = 1;
    m[12] = 2.0f * j; /* W^R: T1 for joint 1, T1 T2 for joint 2 */
  }
  float pos[3] = {1, 1, 0}, w[2] = {0.5f, 0.5f};
  uint32_t joints[2] = {slot[1], slot[2]};
  skn_bind_desc d = {sizeof d};
  d.joint_count = 3;
  d.parents = parents;
  d.bind_matrices = bind;
  d.vertex_count = 1;
  d.positions.data = pos;
  d.influences_per_vertex = 2;
  d.influence_joints = joints;
  d.influence_weights = w;
  skn_rig *rig = bind_or_fail(&d);
  skn_pose *pose = pose_or_fail(rig);
  skn_transform local[3];
  for (int j = 0; j < 3; ++j) {
    local[slot[j]] = transform_identity();
    local[slot[j]].translation[0] = j == 0 ? 0.0f : 2.0f;
    quat_axis_angle(local[slot[j]].rotation, 0, 0, 1, PI / 2);
  }
  ck_assert_int_eq(skn_pose_set_local(pose, 0, 3, local), SKN_OK);
  for (int m = SKN_METHOD_LBS_MATRIX; m <= SKN_METHOD_LBS_QUATERNION; ++m) {
    float out[3];
    skin_or_fail(rig, pose, (skn_method)m, out, NULL, NULL);
    ck_assert_msg(fabs(out[0] - 0) < 1e-5 && fabs(out[1] - 3) < 1e-5 && fabs(out[2]) < 1e-5,
                  "method %d: got (%g %g %g), want (0 3 0)", m, out[0], out[1], out[2]);
  }
  skn_pose_destroy(pose);
  skn_rig_destroy(rig);
}

START_TEST(three_bone_chain) {
  const int32_t in_order[3] = {-1, 0, 1};
  const uint32_t identity_slots[3] = {0, 1, 2};
  chain_check(in_order, identity_slots);
  /* the same chain listed children first: the library orders joints itself */
  const int32_t reversed[3] = {1, 2, -1};
  const uint32_t reversed_slots[3] = {2, 1, 0};
  chain_check(reversed, reversed_slots);
}
END_TEST

/* One joint bound at (1,2,3), posed by a 90° turn about y and a move to
 * (0,0,5): a vertex at (1,2,4) (offset (0,0,1) from the joint) goes to
 * (0,0,5) + Ry(0,0,1) = (0,0,5) + (1,0,0) = (1,0,5); its normal (0,0,1) to
 * (1,0,0); its tangent (0,1,0,-1) stays (0,1,0,-1). */
START_TEST(single_rigid_bone) {
  float bind[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 1, 2, 3, 1};
  float pos[3] = {1, 2, 4}, nrm[3] = {0, 0, 1}, tan[4] = {0, 1, 0, -1}, w = 1;
  uint32_t joint = 0;
  skn_bind_desc d = {sizeof d};
  d.joint_count = 1;
  d.bind_matrices = bind;
  d.vertex_count = 1;
  d.positions.data = pos;
  d.normals.data = nrm;
  d.tangents.data = tan;
  d.influences_per_vertex = 1;
  d.influence_joints = &joint;
  d.influence_weights = &w;
  skn_rig *rig = bind_or_fail(&d);
  skn_pose *pose = pose_or_fail(rig);
  skn_transform t = transform_identity();
  t.translation[2] = 5;
  quat_axis_angle(t.rotation, 0, 1, 0, PI / 2);
  ck_assert_int_eq(skn_pose_set_local(pose, 0, 1, &t), SKN_OK);
  const float want_p[3] = {1, 0, 5}, want_n[3] = {1, 0, 0}, want_t[4] = {0, 1, 0, -1};
  for (int m = SKN_METHOD_LBS_MATRIX; m <= SKN_METHOD_LBS_QUATERNION; ++m) {
    float p[3], n[3], tg[4];
    skin_or_fail(rig, pose, (skn_method)m, p, n, tg);
    ck_assert_double_le(max_abs_diff(p, want_p, 3), 1e-6);
    ck_assert_double_le(max_abs_diff(n, want_n, 3), 1e-6);
    ck_assert_double_le(max_abs_diff(tg, want_t, 4), 1e-6);
  }
  skn_pose_destroy(pose);
  skn_rig_destroy(rig);
}
END_TEST

/* A new pose is the bind pose: every vertex at rest, normals normalized. */
START_TEST(identity_pose_is_rest) {
  test_rig t;
  test_rig_random(&t, 7, 12, 500, 4, 2);
  skn_bind_desc d = test_rig_desc(&t);
  skn_rig *rig = bind_or_fail(&d);
  skn_pose *pose = pose_or_fail(rig);
  float *p = malloc(500 * 3 * sizeof(float)), *n = malloc(500 * 3 * sizeof(float));
  for (int m = SKN_METHOD_LBS_MATRIX; m <= SKN_METHOD_LBS_QUATERNION; ++m) {
    skin_or_fail(rig, pose, (skn_method)m, p, n, NULL);
    ck_assert_double_le(max_abs_diff(p, t.positions, 500 * 3), 1e-5 * t.size);
    ck_assert_double_le(max_abs_diff(n, t.normals, 500 * 3), 1e-5);
  }
  free(p);
  free(n);
  skn_pose_destroy(pose);
  skn_rig_destroy(rig);
  test_rig_free(&t);
}
END_TEST

/* Both formulations against the double-precision reference and each other
 * on random rigs (rigid and uniformly scaled), 1 to 8 influences. */
START_TEST(formulations_agree) {
  for (int scale_mode = 0; scale_mode <= 1; ++scale_mode)
    for (uint32_t k = 1; k <= 8; ++k) {
      test_rig t;
      uint32_t nv = 400;
      skn_pose *pose;
      skn_rig *rig = posed_random_rig(&t, 100 + k * 10 + scale_mode, 16, nv, k, scale_mode, &pose);
      double (*pal)[16] = malloc(t.joint_count * sizeof *pal);
      ref_palette(&t, pal);
      float *p[2], *n[2];
      for (int m = 0; m < 2; ++m) {
        p[m] = malloc(nv * 3 * sizeof(float));
        n[m] = malloc(nv * 3 * sizeof(float));
        skin_or_fail(rig, pose, (skn_method)m, p[m], n[m], NULL);
      }
      double worst_p = 0, worst_n = 0;
      for (uint32_t v = 0; v < nv; ++v) {
        double rp[3], rn[3];
        ref_lbs_vertex(&t, pal, v, rp, rn);
        for (int m = 0; m < 2; ++m) {
          double len = 0;
          for (int c = 0; c < 3; ++c) {
            worst_p = fmax(worst_p, fabs(p[m][v * 3 + c] - rp[c]));
            worst_n = fmax(worst_n, fabs(n[m][v * 3 + c] - rn[c]));
            len += (double)n[m][v * 3 + c] * n[m][v * 3 + c];
          }
          ck_assert_double_le(fabs(sqrt(len) - 1), 1e-5); /* unit normals */
        }
      }
      ck_assert_msg(worst_p <= 1e-5 * t.size, "k=%u scale=%d: positions off by %g (size %g)", k,
                    scale_mode, worst_p, t.size);
      ck_assert_msg(worst_n <= 1e-4, "k=%u scale=%d: normals off by %g", k, scale_mode, worst_n);
      ck_assert_double_le(max_abs_diff(p[0], p[1], nv * 3), 1e-5 * t.size);
      for (int m = 0; m < 2; ++m) {
        free(p[m]);
        free(n[m]);
      }
      free(pal);
      skn_pose_destroy(pose);
      skn_rig_destroy(rig);
      test_rig_free(&t);
    }
}
END_TEST

/* Tangent w: kept under rotation, negated where the blended 3x3 mirrors
 * (a joint scaled by -1 along x); xyz follows the blended matrix. */
START_TEST(tangent_handedness) {
  float bind[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
  float pos[3] = {1, 1, 1}, nrm[3] = {0, 0, 1}, tan[4] = {1, 0, 0, 1}, w = 1;
  uint32_t joint = 0;
  skn_bind_desc d = {sizeof d};
  d.joint_count = 1;
  d.bind_matrices = bind;
  d.vertex_count = 1;
  d.positions.data = pos;
  d.normals.data = nrm;
  d.tangents.data = tan;
  d.influences_per_vertex = 1;
  d.influence_joints = &joint;
  d.influence_weights = &w;
  skn_rig *rig = bind_or_fail(&d);
  skn_pose *pose = pose_or_fail(rig);
  skn_transform t = transform_identity();
  quat_axis_angle(t.rotation, 0, 0, 1, PI / 2);
  ck_assert_int_eq(skn_pose_set_local(pose, 0, 1, &t), SKN_OK);
  float p[3], n[3], tg[4];
  skin_or_fail(rig, pose, SKN_METHOD_LBS_MATRIX, p, n, tg);
  const float rotated[4] = {0, 1, 0, 1};
  ck_assert_double_le(max_abs_diff(tg, rotated, 4), 1e-6);
  t = transform_identity();
  t.scale[0] = -1; /* a mirror: (x,y,z) -> (-x,y,z); tangent (1,0,0) -> (-1,0,0), w -> -1 */
  ck_assert_int_eq(skn_pose_set_local(pose, 0, 1, &t), SKN_OK);
  skin_or_fail(rig, pose, SKN_METHOD_LBS_MATRIX, p, n, tg);
  const float mirrored[4] = {-1, 0, 0, -1}, mirrored_n[3] = {0, 0, 1};
  ck_assert_double_le(max_abs_diff(tg, mirrored, 4), 1e-6);
  ck_assert_double_le(max_abs_diff(n, mirrored_n, 3), 1e-6);
  skn_pose_destroy(pose);
  skn_rig_destroy(rig);
}
END_TEST

/* A joint scaled to zero (hiding a part) gives no NaN: its normal matrix is
 * the cofactor matrix (abi/skn.h, SKN_PALETTE_NORMAL_ROWS3X4). */
START_TEST(zero_scale_joint_has_no_nan) {
  test_rig t;
  test_rig_random(&t, 3, 4, 200, 2, 0);
  skn_bind_desc d = test_rig_desc(&t);
  skn_rig *rig = bind_or_fail(&d);
  skn_pose *pose = pose_or_fail(rig);
  for (uint32_t j = 0; j < t.joint_count; ++j) t.pose[j].scale[0] = t.pose[j].scale[1] = t.pose[j].scale[2] = 0;
  ck_assert_int_eq(skn_pose_set_local(pose, 0, t.joint_count, t.pose), SKN_OK);
  float p[600], n[600], tg[800];
  skin_or_fail(rig, pose, SKN_METHOD_LBS_MATRIX, p, n, tg);
  for (int i = 0; i < 600; ++i) ck_assert(isfinite(p[i]) && isfinite(n[i]));
  for (int i = 0; i < 800; ++i) ck_assert(isfinite(tg[i]));
  skn_pose_destroy(pose);
  skn_rig_destroy(rig);
  test_rig_free(&t);
}
END_TEST

/* Vertex ranges write only their vertices, at absolute indices; ranges and
 * threads give the same bytes as one call on the calling thread. */
START_TEST(ranges_and_threads) {
  test_rig t;
  uint32_t nv = 50000;
  skn_pose *pose;
  skn_rig *rig = posed_random_rig(&t, 11, 30, nv, 4, 1, &pose);
  float *whole = malloc(nv * 3 * sizeof(float)), *parts = malloc(nv * 3 * sizeof(float));
  skn_skin_desc s = {sizeof s};
  s.positions.data = whole;
  s.threads = 1;
  ck_assert_int_eq(skn_skin(rig, pose, &s), SKN_OK);
  memset(parts, 0x7f, nv * 3 * sizeof(float));
  s.positions.data = parts;
  s.first_vertex = 1000;
  s.vertex_count = 20000;
  s.threads = 0;
  ck_assert_int_eq(skn_skin(rig, pose, &s), SKN_OK);
  ck_assert_mem_eq(parts + 3000, whole + 3000, 20000 * 3 * sizeof(float));
  const uint32_t sentinel = 0x7f7f7f7fu;
  ck_assert_mem_eq(parts, &sentinel, 4);
  ck_assert_mem_eq(parts + 21000 * 3, &sentinel, 4);
  s.first_vertex = 0;
  s.vertex_count = 0; /* to the end, all cores */
  ck_assert_int_eq(skn_skin(rig, pose, &s), SKN_OK);
  ck_assert_mem_eq(parts, whole, nv * 3 * sizeof(float));
  free(whole);
  free(parts);
  skn_pose_destroy(pose);
  skn_rig_destroy(rig);
  test_rig_free(&t);
}
END_TEST

/* The pool under contention: host threads call skn_skin at once (one gets
 * the pool, the others run alone), with small calls back to back (which
 * keep the workers awake) and pauses (which let them sleep); every call's
 * bytes equal the calling thread's alone. */
typedef struct pool_caller {
  const skn_rig *rig;
  const skn_pose *pose;
  const float *expected;
  uint32_t seed, vertex_count, mismatches;
} pool_caller;

static void *pool_caller_main(void *arg) {
  pool_caller *c = arg;
  float *out = malloc((size_t)c->vertex_count * 3 * sizeof(float));
  uint32_t x = c->seed;
  for (int call = 0; call < 150; ++call) {
    x = x * 1664525u + 1013904223u;
    skn_skin_desc s = {sizeof s};
    s.positions.data = out;
    s.first_vertex = (x >> 8) % (c->vertex_count / 2);
    s.vertex_count = 1 + (x >> 4) % (c->vertex_count - s.first_vertex);
    s.threads = call % 3; /* 0 (all cores), 1, 2 */
    if (call % 50 == 49) {
      struct timespec pause = {0, 2000000}; /* the workers fall asleep */
      nanosleep(&pause, NULL);
    }
    if (skn_skin(c->rig, c->pose, &s) != SKN_OK ||
        memcmp(out + s.first_vertex * 3, c->expected + s.first_vertex * 3, s.vertex_count * 3 * sizeof(float)))
      ++c->mismatches;
  }
  free(out);
  return NULL;
}

START_TEST(pool_contention) {
  test_rig t;
  uint32_t nv = 40000;
  skn_pose *pose;
  skn_rig *rig = posed_random_rig(&t, 12, 30, nv, 4, 0, &pose);
  float *whole = malloc(nv * 3 * sizeof(float));
  skn_skin_desc s = {sizeof s};
  s.positions.data = whole;
  s.threads = 1;
  ck_assert_int_eq(skn_skin(rig, pose, &s), SKN_OK);
  enum { CALLERS = 3 };
  pthread_t threads[CALLERS];
  pool_caller callers[CALLERS];
  for (uint32_t i = 0; i < CALLERS; ++i) {
    callers[i] = (pool_caller){rig, pose, whole, 17 + i, nv, 0};
    ck_assert_int_eq(pthread_create(&threads[i], NULL, pool_caller_main, &callers[i]), 0);
  }
  for (uint32_t i = 0; i < CALLERS; ++i) {
    pthread_join(threads[i], NULL);
    ck_assert_uint_eq(callers[i].mismatches, 0);
  }
  free(whole);
  skn_pose_destroy(pose);
  skn_rig_destroy(rig);
  test_rig_free(&t);
}
END_TEST

/* Interleaved output: stride leaves the bytes between elements alone. */
START_TEST(strided_output) {
  test_rig t;
  skn_pose *pose;
  skn_rig *rig = posed_random_rig(&t, 5, 6, 100, 3, 0, &pose);
  float packed[300], inter[100 * 8];
  skin_or_fail(rig, pose, SKN_METHOD_LBS_MATRIX, packed, NULL, NULL);
  for (int i = 0; i < 800; ++i) inter[i] = -7.0f;
  skn_skin_desc s = {sizeof s};
  s.positions.data = inter;
  s.positions.stride = 8 * sizeof(float);
  ck_assert_int_eq(skn_skin(rig, pose, &s), SKN_OK);
  for (int v = 0; v < 100; ++v) {
    ck_assert_mem_eq(inter + v * 8, packed + v * 3, 3 * sizeof(float));
    for (int c = 3; c < 8; ++c) ck_assert_float_eq(inter[v * 8 + c], -7.0f);
  }
  skn_pose_destroy(pose);
  skn_rig_destroy(rig);
  test_rig_free(&t);
}
END_TEST

Suite *suite_lbs(void) {
  Suite *s = suite_create("lbs");
  TCase *tc = tcase_create("lbs");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, three_bone_chain);
  tcase_add_test(tc, single_rigid_bone);
  tcase_add_test(tc, identity_pose_is_rest);
  tcase_add_test(tc, formulations_agree);
  tcase_add_test(tc, tangent_handedness);
  tcase_add_test(tc, zero_scale_joint_has_no_nan);
  tcase_add_test(tc, ranges_and_threads);
  tcase_add_test(tc, pool_contention);
  tcase_add_test(tc, strided_output);
  suite_add_tcase(s, tc);
  return s;
}
