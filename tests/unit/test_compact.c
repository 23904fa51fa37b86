/* test_compact.c — SKN_LAYOUT_COMPACT (skn.h, "Layout"): weights become
 * multiples of 1/65535 summing exactly (hand-worked cases, and the rounding
 * rule on random weights), read back through skinning on every instruction
 * set; octahedral normals and tangents within their quantization's angle;
 * what the layout cannot hold is refused by name; and the compact rig skins
 * within its error bound of the full-precision one: per vertex on random
 * rigs (LBS: sum |dw_i| x max |M_i v0 - v|), and within 1e-5 of the model's
 * size on the sample models' animations for every method. (Every kernel
 * against the scalar reference on compact rigs: test_kernels.c.) */
#include "testlib.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const skn_simd SIMDS[] = {SKN_SIMD_SCALAR, SKN_SIMD_PORTABLE, SKN_SIMD_AVX2, SKN_SIMD_AVX512};

/* Three root joints, bind at the identity, posed at translations e_x, e_y,
 * e_z, and vertices at the origin with three influences each: vertex v
 * skins to exactly (w_0, w_1, w_2), the weights the rig holds. */
static float *stored_weights(const float *weights, uint32_t nv, skn_weight_mode mode, skn_simd simd) {
  float bind[3 * 16] = {0}, *pos = calloc(nv * 3, sizeof *pos), *out = malloc(nv * 12);
  uint32_t *joints = malloc(nv * 3 * sizeof *joints);
  for (int j = 0; j < 3; ++j)
    for (int c = 0; c < 4; ++c) bind[j * 16 + c * 5] = 1.0f;
  for (uint32_t i = 0; i < nv * 3; ++i) joints[i] = i % 3;
  skn_bind_desc d = {sizeof d};
  d.joint_count = 3;
  d.bind_matrices = bind;
  d.vertex_count = nv;
  d.positions.data = pos;
  d.influences_per_vertex = 3;
  d.influence_joints = joints;
  d.influence_weights = weights;
  d.weight_mode = mode;
  d.layout = SKN_LAYOUT_COMPACT;
  skn_rig *rig = bind_or_fail(&d);
  skn_pose *pose = pose_or_fail(rig);
  skn_transform t[3] = {transform_identity(), transform_identity(), transform_identity()};
  for (int j = 0; j < 3; ++j) t[j].translation[j] = 1.0f;
  ck_assert_int_eq(skn_pose_set_local(pose, 0, 3, t), SKN_OK);
  ck_assert_int_eq(skn_set_simd(simd), SKN_OK);
  skin_or_fail(rig, pose, SKN_METHOD_LBS_MATRIX, out, NULL, NULL);
  ck_assert_int_eq(skn_set_simd(SKN_SIMD_AUTO), SKN_OK);
  skn_pose_destroy(pose);
  skn_rig_destroy(rig);
  free(pos);
  free(joints);
  return out;
}

/* w as a multiple of 1/65535: its integer, which must be one (within the
 * float decode's rounding: q times the float nearest 1/65535, 65535 x 6e-8). */
static long units(float w) {
  double x = w * 65535.0;
  ck_assert_msg(fabs(x - floor(x + 0.5)) < 0.01, "weight %.9g is not a multiple of 1/65535", w);
  return (long)floor(x + 0.5);
}

START_TEST(weights_are_sixteen_bit_fractions_summing_exactly) {
  /* worked by hand: 65535 (0.5, 0.25, 0.25) = (32767.5, 16383.75, 16383.75);
   * floors 32767 + 16383 + 16383 leave 2 units, for the largest remainders
   * (0.75, 0.75). (2, 1, 1) is the same after NORMALIZE; thirds divide
   * 65535 exactly. AS_GIVEN keeps the sum: 0.3f + 0.3f of 65535 is 39321,
   * each 19660.5008 (the same float), the tie going to the earlier. */
  const float given[] = {0.5f, 0.25f, 0.25f, 2, 1, 1, 1, 1, 1};
  const long expect[] = {32767, 16384, 16384, 32767, 16384, 16384, 21845, 21845, 21845};
  const float given_as_is[] = {0.3f, 0.3f, 0.0f};
  for (size_t s = 0; s < sizeof SIMDS / sizeof SIMDS[0]; ++s) {
    if (skn_set_simd(SIMDS[s]) != SKN_OK) continue;
    float *w = stored_weights(given, 3, SKN_WEIGHTS_NORMALIZE, SIMDS[s]);
    for (int i = 0; i < 9; ++i) ck_assert_int_eq(units(w[i]), expect[i]);
    free(w);
    w = stored_weights(given_as_is, 1, SKN_WEIGHTS_AS_GIVEN, SIMDS[s]);
    ck_assert_int_eq(units(w[0]), 19661);
    ck_assert_int_eq(units(w[1]), 19660);
    ck_assert_float_eq(w[2], 0.0f);
    free(w);
  }
  /* random weights: the integers sum to 65535, each within a unit of 65535 w
   * (w normalized in double), and every instruction set reads the same */
  enum { N = 500 };
  float *random = malloc(N * 3 * sizeof *random), *first = NULL;
  rng r = {99};
  for (int i = 0; i < N * 3; ++i) random[i] = (float)rng_uniform(&r, 0.001, 1.0);
  for (size_t s = 0; s < sizeof SIMDS / sizeof SIMDS[0]; ++s) {
    if (skn_set_simd(SIMDS[s]) != SKN_OK) continue;
    float *w = stored_weights(random, N, SKN_WEIGHTS_NORMALIZE, SIMDS[s]);
    for (int v = 0; v < N; ++v) {
      double sum = (double)random[v * 3] + random[v * 3 + 1] + random[v * 3 + 2];
      long total = 0;
      for (int i = 0; i < 3; ++i) {
        total += units(w[v * 3 + i]);
        ck_assert_double_lt(fabs(units(w[v * 3 + i]) - random[v * 3 + i] / sum * 65535.0), 1.0);
      }
      ck_assert_int_eq(total, 65535);
    }
    if (first) ck_assert_mem_eq(w, first, N * 12);
    free(first);
    first = w;
  }
  free(first);
  free(random);
}
END_TEST

/* A one-joint rig at rest whose normals and tangents are `dirs`: skinning
 * returns the decoded directions. */
static void decoded(const float *dirs, const float *handedness, uint32_t n, float *nrm, float *tan) {
  float bind[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}, *pos = calloc(n * 3, sizeof *pos);
  float *tan_in = malloc(n * 16), *weights = malloc(n * sizeof *weights);
  uint32_t *joints = calloc(n, sizeof *joints);
  for (uint32_t v = 0; v < n; ++v) {
    memcpy(tan_in + v * 4, dirs + v * 3, 12);
    tan_in[v * 4 + 3] = handedness[v];
    weights[v] = 1.0f;
  }
  skn_bind_desc d = {sizeof d};
  d.joint_count = 1;
  d.bind_matrices = bind;
  d.vertex_count = n;
  d.positions.data = pos;
  d.normals.data = dirs;
  d.tangents.data = tan_in;
  d.influences_per_vertex = 1;
  d.influence_joints = joints;
  d.influence_weights = weights;
  d.layout = SKN_LAYOUT_COMPACT;
  skn_rig *rig = bind_or_fail(&d);
  skn_rig_info info = {sizeof info};
  ck_assert_int_eq(skn_rig_info_get(rig, &info), SKN_OK);
  ck_assert_uint_eq(info.flags & SKN_RIG_COMPACT, SKN_RIG_COMPACT);
  skn_pose *pose = pose_or_fail(rig);
  skin_or_fail(rig, pose, SKN_METHOD_LBS_MATRIX, pos, nrm, tan);
  skn_pose_destroy(pose);
  skn_rig_destroy(rig);
  free(pos), free(tan_in), free(weights), free(joints);
}

static double angle(const float *a, const float *b) {
  double c[3] = {(double)a[1] * b[2] - (double)a[2] * b[1], (double)a[2] * b[0] - (double)a[0] * b[2],
                 (double)a[0] * b[1] - (double)a[1] * b[0]};
  double dot = (double)a[0] * b[0] + (double)a[1] * b[1] + (double)a[2] * b[2];
  return atan2(sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]), dot);
}

START_TEST(octahedral_normals_and_tangents) {
  /* the axes, the octahedron's face centres and edges, both hemispheres,
   * the fold (z = 0), then random directions and unnormalized lengths */
  enum { SPECIAL = 26, N = 20000 };
  float *dirs = malloc(N * 12), *hand = malloc(N * 4), *nrm = malloc(N * 12), *tan = malloc(N * 16);
  uint32_t n = 0;
  for (int x = -1; x <= 1; ++x)
    for (int y = -1; y <= 1; ++y)
      for (int z = -1; z <= 1; ++z)
        if (x || y || z) dirs[n * 3] = (float)x, dirs[n * 3 + 1] = (float)y, dirs[n * 3 + 2] = (float)z, ++n;
  ck_assert_uint_eq(n, SPECIAL);
  rng r = {5};
  for (; n < N; ++n) {
    double l = rng_uniform(&r, 0.01, 100.0), a = rng_uniform(&r, -1, 1), b = rng_uniform(&r, -1, 1),
           c = rng_uniform(&r, -1, 1);
    double m = sqrt(a * a + b * b + c * c);
    dirs[n * 3] = (float)(l * a / m), dirs[n * 3 + 1] = (float)(l * b / m), dirs[n * 3 + 2] = (float)(l * c / m);
  }
  const float hands[] = {1.0f, -1.0f, 0.5f, -2.0f, 0.0f};
  for (uint32_t v = 0; v < N; ++v) hand[v] = hands[v % 5];
  decoded(dirs, hand, N, nrm, tan);
  double worst_n = 0, worst_t = 0;
  for (uint32_t v = 0; v < N; ++v) {
    worst_n = fmax(worst_n, angle(nrm + v * 3, dirs + v * 3));
    worst_t = fmax(worst_t, angle(tan + v * 4, dirs + v * 3));
    ck_assert_float_eq(tan[v * 4 + 3], hand[v] < 0.0f ? -1.0f : 1.0f); /* w keeps its sign */
    int axis = v < SPECIAL && (dirs[v * 3] != 0.0f) + (dirs[v * 3 + 1] != 0.0f) + (dirs[v * 3 + 2] != 0.0f) == 1;
    if (axis) ck_assert_float_eq(angle(nrm + v * 3, dirs + v * 3), 0.0); /* the octahedron's vertices: exact */
  }
  /* 2 x 16 bits over the octahedron: half a step (1 / 65534) in both codes,
   * stretched up to sqrt(3) at a face's centre: ~4.3e-5 rad; the tangent's y
   * has 15 bits (twice the step) */
  ck_assert_msg(worst_n < 4.5e-5 && worst_t < 7.6e-5, "normals %g rad, tangents %g rad", worst_n, worst_t);
  /* a zero normal or tangent becomes +z */
  float zero[3] = {0, 0, 0}, w1 = 1.0f, n0[3], t0[4];
  decoded(zero, &w1, 1, n0, t0);
  ck_assert(n0[0] == 0.0f && n0[1] == 0.0f && n0[2] == 1.0f);
  ck_assert(t0[0] == 0.0f && t0[1] == 0.0f && t0[2] == 1.0f && t0[3] == 1.0f);
  free(dirs), free(hand), free(nrm), free(tan);
}
END_TEST

START_TEST(compact_refuses_what_it_cannot_hold) {
  test_rig t;
  test_rig_random(&t, 41, 40, 8, 4, 1);
  skn_bind_desc d = test_rig_desc(&t);
  skn_rig *rig = NULL;
  d.layout = (skn_bind_layout)7;
  ck_assert_int_eq(skn_bind(&d, &rig), SKN_ERR_INVALID_ARGUMENT);
  ck_assert_str_eq(skn_last_error(), "bind: layout 7 is not a skn_bind_layout");
  /* AS_GIVEN keeps a weight above 1, which 16-bit fractions cannot */
  d.layout = SKN_LAYOUT_COMPACT;
  d.weight_mode = SKN_WEIGHTS_AS_GIVEN;
  t.weights[2 * 4 + 1] = 1.5f;
  ck_assert_int_eq(skn_bind(&d, &rig), SKN_ERR_UNSUPPORTED);
  ck_assert_ptr_null(rig);
  ck_assert_msg(strstr(skn_last_error(), "vertex 2: weight 1.5 of joint") != NULL, "%s", skn_last_error());
  d.layout = SKN_LAYOUT_FULL; /* the full layout holds it */
  rig = bind_or_fail(&d);
  skn_rig_destroy(rig);
  rig = NULL;
  test_rig_free(&t);
  /* 33 influences on a vertex: over the decode buffer's bound */
  test_rig_random(&t, 42, 40, 8, 33, 1);
  d = test_rig_desc(&t);
  d.layout = SKN_LAYOUT_COMPACT;
  ck_assert_int_eq(skn_bind(&d, &rig), SKN_ERR_UNSUPPORTED);
  ck_assert_str_eq(skn_last_error(),
                   "vertex 0: 33 influences; SKN_LAYOUT_COMPACT holds up to 32 (max_influences prunes)");
  d.max_influences = 32;
  rig = bind_or_fail(&d);
  skn_rig_destroy(rig);
  test_rig_free(&t);
}
END_TEST

/* The full and the compact rig of one description, posed alike. */
typedef struct rig_pair { skn_rig *rig[2]; skn_pose *pose[2]; } rig_pair;

static rig_pair bind_both(skn_bind_desc d, const skn_transform *pose, uint32_t joints) {
  rig_pair p;
  for (int c = 0; c < 2; ++c) {
    d.layout = c ? SKN_LAYOUT_COMPACT : SKN_LAYOUT_FULL;
    p.rig[c] = bind_or_fail(&d);
    p.pose[c] = pose_or_fail(p.rig[c]);
    if (pose) ck_assert_int_eq(skn_pose_set_local(p.pose[c], 0, joints, pose), SKN_OK);
  }
  return p;
}

static void pair_free(rig_pair *p) {
  for (int c = 0; c < 2; ++c) skn_pose_destroy(p->pose[c]), skn_rig_destroy(p->rig[c]);
}

/* LBS moves a vertex by sum dw_i M_i v0 = sum dw_i (M_i v0 - v) (the dw_i
 * sum to 0), so by at most sum |dw_i| x max_i |M_i v0 - v|, sum |dw_i| <
 * k / 65535; checked per vertex of random rigs, against the test's own
 * double-precision palette. */
START_TEST(compact_lbs_within_its_weight_bound) {
  const uint32_t widths[] = {1, 4, 8};
  for (size_t w = 0; w < 3; ++w) {
    test_rig t;
    test_rig_random(&t, 600 + w, 30, 2000, widths[w], 1);
    skn_bind_desc d = test_rig_desc(&t);
    d.normals.data = NULL, d.tangents.data = NULL;
    rig_pair p = bind_both(d, t.pose, t.joint_count);
    double (*pal)[16] = malloc(t.joint_count * sizeof *pal);
    ref_palette(&t, pal);
    float *out[2];
    for (int c = 0; c < 2; ++c) {
      out[c] = malloc(t.vertex_count * 12);
      skin_or_fail(p.rig[c], p.pose[c], SKN_METHOD_LBS_MATRIX, out[c], NULL, NULL);
    }
    for (uint32_t v = 0; v < t.vertex_count; ++v) {
      double v0[3] = {t.positions[v * 3], t.positions[v * 3 + 1], t.positions[v * 3 + 2]}, spread = 0, moved = 0;
      for (uint32_t i = 0; i < t.k; ++i) {
        double m[3], e = 0;
        dm_apply(m, pal[t.joints[v * t.k + i]], v0, 1.0);
        for (int c = 0; c < 3; ++c) e += (m[c] - out[0][v * 3 + c]) * (m[c] - out[0][v * 3 + c]);
        spread = fmax(spread, sqrt(e));
      }
      for (int c = 0; c < 3; ++c) moved += pow(out[1][v * 3 + c] - out[0][v * 3 + c], 2);
      double bound = t.k / 65535.0 * spread + 2e-6 * t.size; /* + both results' float rounding */
      ck_assert_msg(sqrt(moved) <= bound, "width %u, vertex %u: moved %g, bound %g", t.k, v, sqrt(moved), bound);
    }
    free(out[0]), free(out[1]), free(pal);
    pair_free(&p);
    test_rig_free(&t);
  }
}
END_TEST

/* The sample models' animations: every method's positions within 1e-5 of
 * the model's size of the full layout's, normals within 2e-4 rad (the
 * octahedral 4.3e-5, turned by the blend). */
static void model_layouts_agree(const char *path, uint32_t animation, float time) {
  skn_gltf *g = NULL;
  ck_assert_msg(skn_gltf_open(path, &g) == SKN_OK, "%s: %s", path, skn_last_error());
  skn_gltf_primitive_info pi = {sizeof pi};
  ck_assert_int_eq(skn_gltf_primitive_info_get(g, 0, &pi), SKN_OK);
  rig_pair p;
  for (int c = 0; c < 2; ++c) {
    skn_gltf_bind_desc bd = {sizeof bd};
    bd.centers_of_rotation = 1;
    bd.layout = c ? SKN_LAYOUT_COMPACT : SKN_LAYOUT_FULL;
    ck_assert_msg(skn_gltf_bind(g, &bd, &p.rig[c]) == SKN_OK, "%s: %s", path, skn_last_error());
    p.pose[c] = pose_or_fail(p.rig[c]);
    ck_assert_int_eq(skn_gltf_pose(g, 0, animation, time, p.pose[c]), SKN_OK);
  }
  uint32_t n = pi.vertex_count;
  int normals = (pi.flags & SKN_GLTF_HAS_NORMALS) != 0;
  float *pos[2] = {malloc(n * 12), malloc(n * 12)}, *nrm[2] = {malloc(n * 12), malloc(n * 12)};
  for (int m = SKN_METHOD_LBS_MATRIX; m <= SKN_METHOD_COR; ++m) {
    if (m == SKN_METHOD_LBS_QUATERNION || m == SKN_METHOD_BLEND) continue; /* scaled joints; no blend map */
    for (int c = 0; c < 2; ++c) skin_or_fail(p.rig[c], p.pose[c], (skn_method)m, pos[c], normals ? nrm[c] : NULL, NULL);
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY}, size = 0, worst = 0;
    double worst_n = 0;
    for (uint32_t v = 0; v < n; ++v)
      for (int c = 0; c < 3; ++c) lo[c] = fmin(lo[c], pos[0][v * 3 + c]), hi[c] = fmax(hi[c], pos[0][v * 3 + c]);
    for (int c = 0; c < 3; ++c) size += (hi[c] - lo[c]) * (hi[c] - lo[c]);
    size = sqrt(size);
    for (uint32_t v = 0; v < n; ++v) {
      double e = 0;
      for (int c = 0; c < 3; ++c) e += pow(pos[1][v * 3 + c] - pos[0][v * 3 + c], 2);
      worst = fmax(worst, sqrt(e));
      if (normals) worst_n = fmax(worst_n, angle(nrm[0] + v * 3, nrm[1] + v * 3));
    }
    ck_assert_msg(worst <= 1e-5 * size && worst_n <= 2e-4, "%s, animation %u at %g s, method %d: positions %g of "
                  "size %g (%.2g), normals %g rad", path, animation, time, m, worst, size, worst / size, worst_n);
  }
  for (int c = 0; c < 2; ++c) free(pos[c]), free(nrm[c]);
  pair_free(&p);
  skn_gltf_close(g);
}

START_TEST(compact_sample_models_within_1e5_of_size) {
  model_layouts_agree("data/gltf/CesiumMan/glTF/CesiumMan.gltf", 0, 0.7f);
  model_layouts_agree("data/gltf/Fox/glTF/Fox.gltf", 1, 0.3f); /* walk */
  model_layouts_agree("data/gltf/Fox/glTF/Fox.gltf", 2, 0.5f); /* run */
  model_layouts_agree("data/gltf/RiggedSimple/glTF/RiggedSimple.gltf", 0, 1.2f);
}
END_TEST

Suite *suite_compact(void) {
  Suite *s = suite_create("compact");
  TCase *tc = tcase_create("compact");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, weights_are_sixteen_bit_fractions_summing_exactly);
  tcase_add_test(tc, octahedral_normals_and_tangents);
  tcase_add_test(tc, compact_refuses_what_it_cannot_hold);
  tcase_add_test(tc, compact_lbs_within_its_weight_bound);
  tcase_add_test(tc, compact_sample_models_within_1e5_of_size);
  suite_add_tcase(s, tc);
  return s;
}
