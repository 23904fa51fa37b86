/* test_bind.c — what skn_bind makes of its input: weight modes, pruning,
 * influence layouts, the two kinds of bind matrix, rig info. */
#include "testlib.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Two joints: joint 0 at rest, joint 1 posed to move everything by +10 in
 * x. A vertex at the origin lands at 10 * (its weight on joint 1) + the
 * rest of its weight * 0 — an easy read-out of the weights bind kept. */
typedef struct two_joint { skn_rig *rig; skn_pose *pose; } two_joint;

static skn_bind_desc two_joint_desc(uint32_t nv, const float *pos, uint32_t k, const uint32_t *j,
                                    const float *w) {
  static const float ident[32] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1,
                                  1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
  skn_bind_desc d = {sizeof d};
  d.joint_count = 2;
  d.bind_matrices = ident;
  d.vertex_count = nv;
  d.positions.data = pos;
  d.influences_per_vertex = k;
  d.influence_joints = j;
  d.influence_weights = w;
  return d;
}

static void skin_moved(const skn_bind_desc *d, float *out) {
  skn_rig *rig = bind_or_fail(d);
  skn_pose *pose = pose_or_fail(rig);
  skn_transform t = transform_identity();
  t.translation[0] = 10;
  ck_assert_int_eq(skn_pose_set_local(pose, 1, 1, &t), SKN_OK);
  skin_or_fail(rig, pose, SKN_METHOD_LBS_MATRIX, out, NULL, NULL);
  skn_pose_destroy(pose);
  skn_rig_destroy(rig);
}

START_TEST(weight_modes) {
  float pos[9] = {0}, out[9];
  uint32_t j[6] = {0, 1, 0, 1, 0, 1};
  float w[6] = {0.1f, 0.3f, /* sum 0.4 */ 0, 0, /* sum 0 */ 0.25f, 0.75f};
  skn_bind_desc d = two_joint_desc(3, pos, 2, j, w);
  skin_moved(&d, out); /* NORMALIZE: 0.3/0.4 of 10; a zero sum stays at rest */
  ck_assert_float_eq_tol(out[0], 7.5f, 1e-5f);
  ck_assert_float_eq_tol(out[3], 0.0f, 1e-6f);
  ck_assert_float_eq_tol(out[6], 7.5f, 1e-5f);
  d.weight_mode = SKN_WEIGHTS_AS_GIVEN; /* literal eq. 4: 0.3 * 10, and v0 scaled by the sum */
  skin_moved(&d, out);
  ck_assert_float_eq_tol(out[0], 3.0f, 1e-5f);
  ck_assert_float_eq_tol(out[3], 0.0f, 1e-6f);
  float unit[6] = {0.5f, 0.5f, 0.0004f, 0.9998f, 1, 0};
  d.influence_weights = unit;
  d.weight_mode = SKN_WEIGHTS_REQUIRE_UNIT; /* within 1e-3 of 1, then renormalized */
  skin_moved(&d, out);
  ck_assert_float_eq_tol(out[0], 5.0f, 1e-5f);
  ck_assert_float_eq_tol(out[3], 10.0f * 0.9998f / 1.0002f, 1e-4f);
  ck_assert_float_eq_tol(out[6], 0.0f, 1e-6f);
}
END_TEST

/* max_influences keeps the heaviest k and renormalizes; min_weight drops
 * first; AS_GIVEN rescales what is kept back to the original sum. */
START_TEST(pruning) {
  float pos[3] = {0}, out[3];
  uint32_t j[4] = {0, 1, 1, 0};
  float w[4] = {0.1f, 0.4f, 0.2f, 0.3f};
  skn_bind_desc d = two_joint_desc(1, pos, 4, j, w);
  d.max_influences = 2; /* keeps 0.4 (joint 1) and 0.3 (joint 0): 10 * 0.4/0.7 */
  skin_moved(&d, out);
  ck_assert_float_eq_tol(out[0], 10.0f * 0.4f / 0.7f, 1e-5f);
  d.max_influences = 0;
  d.min_weight = 0.25f; /* keeps 0.4 and 0.3 again */
  skin_moved(&d, out);
  ck_assert_float_eq_tol(out[0], 10.0f * 0.4f / 0.7f, 1e-5f);
  d.weight_mode = SKN_WEIGHTS_AS_GIVEN; /* kept weights rescaled to the sum 1.0 */
  skin_moved(&d, out);
  ck_assert_float_eq_tol(out[0], 10.0f * 0.4f / 0.7f, 1e-5f);
  skn_rig *rig = bind_or_fail(&d);
  skn_rig_info info = {sizeof info};
  ck_assert_int_eq(skn_rig_info_get(rig, &info), SKN_OK);
  ck_assert_uint_eq(info.influence_count, 2);
  ck_assert_uint_eq(info.max_influences_per_vertex, 2);
  ck_assert_uint_eq(info.joint_count, 2);
  ck_assert_uint_eq(info.vertex_count, 1);
  ck_assert_uint_eq(info.flags, 0);
  skn_rig_destroy(rig);
}
END_TEST

/* CSR with 1..8 influences per vertex equals the same influences padded to
 * a fixed width with zero weights. */
START_TEST(csr_equals_fixed_width) {
  test_rig t;
  uint32_t nv = 300;
  test_rig_random(&t, 21, 10, nv, 8, 1);
  uint32_t *off = malloc((nv + 1) * sizeof *off), *cj = malloc(nv * 8 * sizeof *cj);
  float *cw = malloc(nv * 8 * sizeof *cw);
  rng r = {99};
  off[0] = 0;
  for (uint32_t v = 0; v < nv; ++v) {
    uint32_t n = 1 + rng_below(&r, 8);
    for (uint32_t i = 0; i < 8; ++i)
      if (i < n) {
        cj[off[v] + i] = t.joints[v * 8 + i];
        cw[off[v] + i] = t.weights[v * 8 + i];
      } else {
        t.weights[v * 8 + i] = 0; /* the fixed-width twin: padded with zero weights */
      }
    off[v + 1] = off[v] + n;
  }
  skn_bind_desc fixed = test_rig_desc(&t), csr = fixed;
  csr.influences_per_vertex = 0;
  csr.influence_offsets = off;
  csr.influence_joints = cj;
  csr.influence_weights = cw;
  float *a = malloc(nv * 3 * sizeof(float)), *b = malloc(nv * 3 * sizeof(float));
  skn_rig *ra = bind_or_fail(&fixed), *rb = bind_or_fail(&csr);
  skn_pose *pa = pose_or_fail(ra), *pb = pose_or_fail(rb);
  ck_assert_int_eq(skn_pose_set_local(pa, 0, t.joint_count, t.pose), SKN_OK);
  ck_assert_int_eq(skn_pose_set_local(pb, 0, t.joint_count, t.pose), SKN_OK);
  skin_or_fail(ra, pa, SKN_METHOD_LBS_MATRIX, a, NULL, NULL);
  skin_or_fail(rb, pb, SKN_METHOD_LBS_MATRIX, b, NULL, NULL);
  ck_assert_mem_eq(a, b, nv * 3 * sizeof(float));
  skn_rig_info ia = {sizeof ia}, ib = {sizeof ib};
  skn_rig_info_get(ra, &ia);
  skn_rig_info_get(rb, &ib);
  ck_assert_uint_eq(ia.influence_count, off[nv]); /* zero weights are dropped */
  ck_assert_uint_eq(ib.influence_count, off[nv]);
  ck_assert_uint_eq(ia.flags, SKN_RIG_HAS_NORMALS | SKN_RIG_HAS_TANGENTS);
  skn_pose_destroy(pa);
  skn_pose_destroy(pb);
  skn_rig_destroy(ra);
  skn_rig_destroy(rb);
  free(a);
  free(b);
  free(off);
  free(cj);
  free(cw);
  test_rig_free(&t);
}
END_TEST

/* inverse_bind_matrices and bind_matrices describe the same rig. */
START_TEST(inverse_bind_equals_bind) {
  test_rig t;
  uint32_t nv = 200;
  test_rig_random(&t, 31, 8, nv, 4, 2);
  float *ib = malloc(t.joint_count * 16 * sizeof(float));
  for (uint32_t j = 0; j < t.joint_count; ++j) {
    double b[16], inv[16];
    for (int e = 0; e < 16; ++e) b[e] = t.bind[j * 16 + e];
    dm_invert(inv, b);
    for (int e = 0; e < 16; ++e) ib[j * 16 + e] = (float)inv[e];
  }
  skn_bind_desc a = test_rig_desc(&t), b = a;
  b.bind_matrices = NULL;
  b.inverse_bind_matrices = ib;
  skn_rig *ra = bind_or_fail(&a), *rb = bind_or_fail(&b);
  skn_pose *pa = pose_or_fail(ra), *pb = pose_or_fail(rb);
  ck_assert_int_eq(skn_pose_set_local(pa, 0, t.joint_count, t.pose), SKN_OK);
  ck_assert_int_eq(skn_pose_set_local(pb, 0, t.joint_count, t.pose), SKN_OK);
  float *x = malloc(nv * 3 * sizeof(float)), *y = malloc(nv * 3 * sizeof(float));
  skin_or_fail(ra, pa, SKN_METHOD_LBS_MATRIX, x, NULL, NULL);
  skin_or_fail(rb, pb, SKN_METHOD_LBS_MATRIX, y, NULL, NULL);
  ck_assert_double_le(max_abs_diff(x, y, nv * 3), 1e-5 * t.size);
  skn_pose_destroy(pa);
  skn_pose_destroy(pb);
  skn_rig_destroy(ra);
  skn_rig_destroy(rb);
  free(x);
  free(y);
  free(ib);
  test_rig_free(&t);
}
END_TEST

/* The caller's arrays may change or go away after bind: the rig owns copies. */
START_TEST(rig_owns_its_data) {
  test_rig t;
  test_rig_random(&t, 41, 5, 50, 2, 0);
  skn_bind_desc d = test_rig_desc(&t);
  skn_rig *rig = bind_or_fail(&d);
  float before[150], after[150];
  skn_pose *pose = pose_or_fail(rig);
  skin_or_fail(rig, pose, SKN_METHOD_LBS_MATRIX, before, NULL, NULL);
  memset(t.positions, 0, 150 * sizeof(float));
  memset(t.bind, 0, t.joint_count * 16 * sizeof(float));
  skin_or_fail(rig, pose, SKN_METHOD_LBS_MATRIX, after, NULL, NULL);
  ck_assert_mem_eq(before, after, sizeof before);
  skn_pose_destroy(pose);
  skn_rig_destroy(rig);
  test_rig_free(&t);
}
END_TEST

/* An input stride interleaves positions with other data. */
START_TEST(strided_input) {
  float inter[4 * 5] = {1, 2, 3, 99, 99, 4, 5, 6, 99, 99, 7, 8, 9, 99, 99, 0, 0, 0, 99, 99};
  float packed[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 0, 0}, a[12], b[12];
  uint32_t j[4] = {1, 1, 0, 1};
  float w[4] = {1, 1, 1, 1};
  skn_bind_desc d = two_joint_desc(4, packed, 1, j, w);
  skin_moved(&d, a);
  d.positions.data = inter;
  d.positions.stride = 5 * sizeof(float);
  skin_moved(&d, b);
  ck_assert_mem_eq(a, b, sizeof a);
  ck_assert_float_eq(a[0], 11.0f);
  ck_assert_float_eq(a[6], 7.0f);
}
END_TEST

Suite *suite_bind(void) {
  Suite *s = suite_create("bind");
  TCase *tc = tcase_create("bind");
  tcase_add_test(tc, weight_modes);
  tcase_add_test(tc, pruning);
  tcase_add_test(tc, csr_equals_fixed_width);
  tcase_add_test(tc, inverse_bind_equals_bind);
  tcase_add_test(tc, rig_owns_its_data);
  tcase_add_test(tc, strided_input);
  suite_add_tcase(s, tc);
  return s;
}
