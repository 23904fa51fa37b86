/* test_morph.c — morph targets before skinning (abi/skn.h, skn_morph_target).
 * The expectation is independent of morph.c: the same rig bound on a rest
 * mesh morphed here, in double, must skin as the rig with targets and
 * weights does (every method but COR, whose centers are found on the rest
 * mesh as bound), and LBS must match the testlib's double reference. Every
 * method, COR included, must be affine in the weights; every kernel set
 * and both layouts must match the scalar reference; thread counts and
 * ranges must give the same bits; and bad targets and weights are refused
 * with nothing changed. */
#include "testlib.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NV 1500u
#define NT 4u

/* Four targets over t's mesh: 0 dense (a third of its offsets zero, which
 * bind drops), 1 sparse in shuffled order with normals and tangents, 2
 * sparse positions only, 3 sparse with normals and tangents over a run of
 * vertices that crosses the kernels' blocks. */
typedef struct morph_set {
  skn_morph_target targets[NT];
  uint32_t *vertices[NT];
  float *dp[NT], *dn[NT], *dt[NT];
} morph_set;

static void morph_set_make(morph_set *m, const test_rig *t, uint64_t seed) {
  rng r = {seed};
  memset(m, 0, sizeof *m);
  for (uint32_t k = 0; k < NT; ++k) {
    uint32_t count = k == 0 ? t->vertex_count : k == 3 ? 600 : t->vertex_count / (k + 3);
    m->dp[k] = calloc((size_t)count * 3, sizeof(float));
    if (k != 2) m->dn[k] = calloc((size_t)count * 3, sizeof(float)), m->dt[k] = calloc((size_t)count * 3, sizeof(float));
    if (k > 0) {
      m->vertices[k] = malloc(count * sizeof(uint32_t));
      uint32_t *all = malloc(t->vertex_count * sizeof *all);
      for (uint32_t v = 0; v < t->vertex_count; ++v) all[v] = v;
      for (uint32_t v = t->vertex_count; v-- > 1;) { /* shuffle, then the first count */
        uint32_t j = rng_below(&r, v + 1), x = all[v];
        all[v] = all[j], all[j] = x;
      }
      for (uint32_t e = 0; e < count; ++e) m->vertices[k][e] = k == 3 ? 200 + e : all[e];
      free(all);
    }
    for (uint32_t e = 0; e < count; ++e) {
      if (k == 0 && e % 3 == 0) continue; /* zeros, dropped by bind */
      for (int c = 0; c < 3; ++c) {
        m->dp[k][e * 3 + c] = (float)rng_uniform(&r, -0.2, 0.2) * (float)t->size;
        if (m->dn[k]) m->dn[k][e * 3 + c] = (float)rng_uniform(&r, -0.5, 0.5);
        if (m->dt[k]) m->dt[k][e * 3 + c] = (float)rng_uniform(&r, -0.5, 0.5);
      }
    }
    m->targets[k] = (skn_morph_target){count, m->vertices[k], {m->dp[k], 0}, {m->dn[k], 0}, {m->dt[k], 0}};
  }
}

static void morph_set_free(morph_set *m) {
  for (uint32_t k = 0; k < NT; ++k) free(m->vertices[k]), free(m->dp[k]), free(m->dn[k]), free(m->dt[k]);
}

/* t's rest mesh with the targets applied in double: what skinning must see. */
static void morph_in_double(test_rig *t, const morph_set *m, const float *w) {
  for (uint32_t k = 0; k < NT; ++k)
    for (uint32_t e = 0; e < m->targets[k].count; ++e) {
      uint32_t v = m->vertices[k] ? m->vertices[k][e] : e;
      for (int c = 0; c < 3; ++c) {
        t->positions[v * 3 + c] = (float)((double)t->positions[v * 3 + c] + (double)w[k] * m->dp[k][e * 3 + c]);
        if (m->dn[k]) t->normals[v * 3 + c] = (float)((double)t->normals[v * 3 + c] + (double)w[k] * m->dn[k][e * 3 + c]);
        if (m->dt[k]) t->tangents[v * 4 + c] = (float)((double)t->tangents[v * 4 + c] + (double)w[k] * m->dt[k][e * 3 + c]);
      }
    }
}

typedef struct outs { float *p, *n, *t; } outs;

static outs skin_outs(const skn_rig *rig, const skn_pose *pose, skn_method method, uint32_t threads, uint32_t first,
                      uint32_t count) {
  outs o = {calloc(NV * 3, 4), calloc(NV * 3, 4), calloc(NV * 4, 4)};
  skn_skin_desc s = {sizeof s};
  s.method = method;
  s.threads = threads;
  s.first_vertex = first;
  s.vertex_count = count;
  s.positions.data = o.p;
  s.normals.data = o.n;
  s.tangents.data = o.t;
  skn_status st = skn_skin(rig, pose, &s);
  ck_assert_msg(st == SKN_OK, "method %d: %s", method, skn_last_error());
  return o;
}

static void outs_free(outs *o) { free(o->p), free(o->n), free(o->t); }

static skn_rig *bind_morphed(const test_rig *t, const morph_set *m, const float *w, skn_bind_layout layout,
                             uint32_t *tris) {
  skn_bind_desc d = test_rig_desc(t);
  float *blend = malloc(t->vertex_count * sizeof *blend);
  for (uint32_t v = 0; v < t->vertex_count; ++v) blend[v] = (float)(v % 7) / 6.0f;
  d.blend_weights = blend;
  d.triangles = tris;
  d.triangle_count = tris ? t->vertex_count / 3 : 0;
  d.layout = layout;
  if (m) {
    d.morph_targets = m->targets;
    d.morph_target_count = NT;
    d.morph_weights = w;
  }
  skn_rig *rig = bind_or_fail(&d);
  free(blend);
  return rig;
}

static const float WEIGHTS[NT] = {0.35f, -0.7f, 1.8f, 0.6f}; /* negative and above 1 extrapolate */

/* Morphing, then any method but COR, is that method on the morphed mesh. */
START_TEST(morphs_then_skins_as_the_morphed_mesh) {
  test_rig t, tm;
  test_rig_random(&t, 71, 12, NV, 4, 1);
  test_rig_random(&tm, 71, 12, NV, 4, 1);
  morph_set m;
  morph_set_make(&m, &t, 5);
  morph_in_double(&tm, &m, WEIGHTS);
  skn_rig *rig = bind_morphed(&t, &m, WEIGHTS, SKN_LAYOUT_FULL, NULL), *plain = bind_morphed(&tm, NULL, NULL, SKN_LAYOUT_FULL, NULL);
  skn_rig_info info = {sizeof info};
  ck_assert_int_eq(skn_rig_info_get(rig, &info), SKN_OK);
  ck_assert_uint_eq(info.morph_target_count, NT);
  uint32_t kept = NV - (NV + 2) / 3; /* target 0's zeros dropped */
  for (uint32_t k = 1; k < NT; ++k) kept += m.targets[k].count;
  ck_assert_uint_eq(info.morph_entry_count, kept);
  skn_pose *pose = pose_or_fail(rig), *pp = pose_or_fail(plain);
  float got[NT];
  ck_assert_int_eq(skn_pose_morph_weights(pose, 0, NT, got), SKN_OK);
  ck_assert(memcmp(got, WEIGHTS, sizeof got) == 0); /* bind's weights are a new pose's */
  ck_assert_int_eq(skn_pose_set_local(pose, 0, t.joint_count, t.pose), SKN_OK);
  ck_assert_int_eq(skn_pose_set_local(pp, 0, t.joint_count, t.pose), SKN_OK);
  for (int method = SKN_METHOD_LBS_MATRIX; method <= SKN_METHOD_BLEND; ++method) {
    outs a = skin_outs(rig, pose, (skn_method)method, 0, 0, 0), b = skin_outs(plain, pp, (skn_method)method, 0, 0, 0);
    double dp = max_abs_diff(a.p, b.p, NV * 3), dn = max_abs_diff(a.n, b.n, NV * 3), dt = max_abs_diff(a.t, b.t, NV * 4);
    ck_assert_msg(dp <= 2e-6 * t.size && dn <= 2e-5 && dt <= 2e-5, "method %d: positions %g (size %g), normals %g, "
                  "tangents %g", method, dp, t.size, dn, dt);
    for (uint32_t v = 0; v < NV; ++v) { /* renormalised: unit normals and tangents */
      double ln = sqrt(a.n[v * 3] * a.n[v * 3] + a.n[v * 3 + 1] * a.n[v * 3 + 1] + a.n[v * 3 + 2] * a.n[v * 3 + 2]);
      double lt = sqrt(a.t[v * 4] * a.t[v * 4] + a.t[v * 4 + 1] * a.t[v * 4 + 1] + a.t[v * 4 + 2] * a.t[v * 4 + 2]);
      ck_assert_msg(fabs(ln - 1) < 1e-5 && fabs(lt - 1) < 1e-5, "vertex %u: |n| %g |t| %g", v, ln, lt);
    }
    if (method == SKN_METHOD_LBS_MATRIX) { /* and the testlib's own LBS in double */
      double (*pal)[16] = malloc(t.joint_count * sizeof *pal), worst = 0;
      ref_palette(&tm, pal);
      for (uint32_t v = 0; v < NV; ++v) {
        double p[3], n[3];
        ref_lbs_vertex(&tm, pal, v, p, n);
        for (int c = 0; c < 3; ++c) worst = fmax(worst, fabs(p[c] - a.p[v * 3 + c]));
      }
      free(pal);
      ck_assert_msg(worst <= 2e-6 * t.size, "LBS vs the double reference: %g (size %g)", worst, t.size);
    }
    outs_free(&a);
    outs_free(&b);
  }
  skn_pose_destroy(pose);
  skn_pose_destroy(pp);
  skn_rig_destroy(rig);
  skn_rig_destroy(plain);
  morph_set_free(&m);
  test_rig_free(&t);
  test_rig_free(&tm);
}
END_TEST

/* Every method, COR included, is affine in the rest mesh, so in the
 * weights: out(2w) - out(0) = 2 (out(w) - out(0)); and weights 0 are the
 * rig without targets, bit for bit. */
START_TEST(every_method_is_affine_in_the_weights) {
  test_rig t;
  test_rig_random(&t, 72, 12, NV, 4, 1);
  morph_set m;
  morph_set_make(&m, &t, 6);
  uint32_t *tris = malloc(NV * sizeof *tris);
  for (uint32_t i = 0; i < NV; ++i) tris[i] = (i * 7 + i / 3) % NV;
  const float zero[NT] = {0}, half[NT] = {0.2f, -0.3f, 0.4f, 0.25f}, full[NT] = {0.4f, -0.6f, 0.8f, 0.5f};
  skn_rig *rig = bind_morphed(&t, &m, NULL, SKN_LAYOUT_FULL, tris), *plain = bind_morphed(&t, NULL, NULL, SKN_LAYOUT_FULL, tris);
  skn_pose *pose = pose_or_fail(rig), *pp = pose_or_fail(plain);
  ck_assert_int_eq(skn_pose_set_local(pose, 0, t.joint_count, t.pose), SKN_OK);
  ck_assert_int_eq(skn_pose_set_local(pp, 0, t.joint_count, t.pose), SKN_OK);
  for (int method = SKN_METHOD_LBS_MATRIX; method <= SKN_METHOD_COR; ++method) {
    ck_assert_int_eq(skn_pose_set_morph_weights(pose, 0, NT, zero), SKN_OK);
    outs o0 = skin_outs(rig, pose, (skn_method)method, 0, 0, 0), ref = skin_outs(plain, pp, (skn_method)method, 0, 0, 0);
    ck_assert_msg(memcmp(o0.p, ref.p, NV * 12) == 0 && memcmp(o0.n, ref.n, NV * 12) == 0, "method %d: weights 0", method);
    ck_assert_int_eq(skn_pose_set_morph_weights(pose, 0, NT, half), SKN_OK);
    outs o1 = skin_outs(rig, pose, (skn_method)method, 0, 0, 0);
    ck_assert_int_eq(skn_pose_set_morph_weights(pose, 0, NT, full), SKN_OK);
    outs o2 = skin_outs(rig, pose, (skn_method)method, 0, 0, 0);
    double worst = 0, moved = 0;
    for (uint32_t i = 0; i < NV * 3; ++i) {
      worst = fmax(worst, fabs((double)(o2.p[i] - o0.p[i]) - 2.0 * (o1.p[i] - o0.p[i])));
      moved = fmax(moved, fabs(o2.p[i] - o0.p[i]));
    }
    ck_assert_msg(worst <= 4e-6 * t.size && moved > 0.1 * t.size, "method %d: affine within %g, moved %g (size %g)",
                  method, worst, moved, t.size);
    outs_free(&o0), outs_free(&o1), outs_free(&o2), outs_free(&ref);
  }
  skn_pose_destroy(pose);
  skn_pose_destroy(pp);
  skn_rig_destroy(rig);
  skn_rig_destroy(plain);
  free(tris);
  morph_set_free(&m);
  test_rig_free(&t);
}
END_TEST

/* Every instruction set and both layouts against the scalar reference with
 * targets set; threads and ranges give the same bits. */
START_TEST(every_kernel_set_matches_the_scalar_reference) {
  static const skn_simd levels[] = {SKN_SIMD_PORTABLE, SKN_SIMD_AVX2, SKN_SIMD_AVX512};
  const skn_bind_layout layout = (skn_bind_layout)_i;
  test_rig t;
  test_rig_random(&t, 73, 12, NV, 4, 1);
  morph_set m;
  morph_set_make(&m, &t, 7);
  uint32_t *tris = malloc(NV * sizeof *tris);
  for (uint32_t i = 0; i < NV; ++i) tris[i] = (i * 5 + i / 3) % NV;
  skn_rig *rig = bind_morphed(&t, &m, WEIGHTS, layout, tris);
  skn_pose *pose = pose_or_fail(rig);
  ck_assert_int_eq(skn_pose_set_local(pose, 0, t.joint_count, t.pose), SKN_OK);
  for (size_t l = 0; l < 3; ++l) {
    if (skn_set_simd(levels[l]) != SKN_OK) continue;
    for (int method = SKN_METHOD_LBS_MATRIX; method <= SKN_METHOD_COR; ++method) {
      ck_assert_int_eq(skn_set_simd(SKN_SIMD_SCALAR), SKN_OK);
      outs ref = skin_outs(rig, pose, (skn_method)method, 1, 0, 0);
      ck_assert_int_eq(skn_set_simd(levels[l]), SKN_OK);
      outs one = skin_outs(rig, pose, (skn_method)method, 1, 0, 0), all = skin_outs(rig, pose, (skn_method)method, 0, 0, 0);
      outs part = skin_outs(rig, pose, (skn_method)method, 1, 37, 900); /* starts and ends mid-span */
      double dp = max_abs_diff(one.p, ref.p, NV * 3), dn = max_abs_diff(one.n, ref.n, NV * 3),
             dt = max_abs_diff(one.t, ref.t, NV * 4);
      ck_assert_msg(dp <= 1e-6 * t.size && dn <= 4e-6 && dt <= 4e-6, "level %zu, layout %d, method %d: positions %g "
                    "(size %g), normals %g, tangents %g", l, layout, method, dp, t.size, dn, dt);
      ck_assert_msg(memcmp(one.p, all.p, NV * 12) == 0 && memcmp(one.n, all.n, NV * 12) == 0 &&
                    memcmp(one.t, all.t, NV * 16) == 0, "level %zu, method %d: threads differ", l, method);
      ck_assert_msg(memcmp(one.p + 37 * 3, part.p + 37 * 3, 900 * 12) == 0 &&
                    memcmp(one.n + 37 * 3, part.n + 37 * 3, 900 * 12) == 0, "level %zu, method %d: a range differs", l,
                    method);
      outs_free(&ref), outs_free(&one), outs_free(&all), outs_free(&part);
    }
  }
  ck_assert_int_eq(skn_set_simd(SKN_SIMD_AUTO), SKN_OK);
  skn_pose_destroy(pose);
  skn_rig_destroy(rig);
  free(tris);
  morph_set_free(&m);
  test_rig_free(&t);
}
END_TEST

/* More active targets than morph.c keeps cursors for (256): the rest are
 * found by binary search, with the same result as the morphed mesh. */
START_TEST(many_active_targets) {
  enum { T = 300 };
  test_rig t, tm;
  test_rig_random(&t, 74, 6, NV, 2, 0);
  test_rig_random(&tm, 74, 6, NV, 2, 0);
  skn_morph_target *targets = calloc(T, sizeof *targets);
  uint32_t *vertices = malloc(T * 8 * sizeof *vertices);
  float *dp = malloc(T * 8 * 3 * sizeof *dp), *w = malloc(T * sizeof *w);
  rng r = {9};
  for (uint32_t k = 0; k < T; ++k) {
    w[k] = (float)rng_uniform(&r, -1, 1);
    for (uint32_t e = 0; e < 8; ++e) {
      uint32_t v = vertices[k * 8 + e] = (k * 5 + e * 191) % NV;
      for (int c = 0; c < 3; ++c) {
        dp[(k * 8 + e) * 3 + c] = (float)rng_uniform(&r, -0.01, 0.01) * (float)t.size;
        tm.positions[v * 3 + c] += w[k] * dp[(k * 8 + e) * 3 + c];
      }
    }
    targets[k] = (skn_morph_target){8, vertices + k * 8, {dp + k * 8 * 3, 0}, {0}, {0}};
  }
  skn_bind_desc d = test_rig_desc(&t), dm = test_rig_desc(&tm);
  d.morph_targets = targets;
  d.morph_target_count = T;
  skn_rig *rig = bind_or_fail(&d), *plain = bind_or_fail(&dm);
  skn_pose *pose = pose_or_fail(rig), *pp = pose_or_fail(plain);
  ck_assert_int_eq(skn_pose_set_morph_weights(pose, 0, T, w), SKN_OK);
  ck_assert_int_eq(skn_pose_set_local(pose, 0, t.joint_count, t.pose), SKN_OK);
  ck_assert_int_eq(skn_pose_set_local(pp, 0, t.joint_count, t.pose), SKN_OK);
  outs a = skin_outs(rig, pose, SKN_METHOD_DQS, 0, 0, 0), b = skin_outs(plain, pp, SKN_METHOD_DQS, 0, 0, 0);
  double dpos = max_abs_diff(a.p, b.p, NV * 3);
  ck_assert_msg(dpos <= 2e-6 * t.size, "positions %g (size %g)", dpos, t.size);
  outs_free(&a), outs_free(&b);
  skn_pose_destroy(pose), skn_pose_destroy(pp);
  skn_rig_destroy(rig), skn_rig_destroy(plain);
  free(targets), free(vertices), free(dp), free(w);
  test_rig_free(&t), test_rig_free(&tm);
}
END_TEST

/* Bad targets: the status and a message naming the target and the entry. */
static void expect_refused(skn_bind_desc *d, skn_status want, const char *says) {
  skn_rig *rig = (skn_rig *)0x1;
  skn_status s = skn_bind(d, &rig);
  ck_assert_msg(s == want, "got %s (%s), want %s", skn_status_name(s), skn_last_error(), skn_status_name(want));
  ck_assert_msg(strstr(skn_last_error(), says), "\"%s\" does not say \"%s\"", skn_last_error(), says);
  ck_assert_ptr_eq(rig, (skn_rig *)0x1);
}

START_TEST(bad_targets_and_weights_are_refused) {
  test_rig t;
  test_rig_random(&t, 75, 4, 50, 2, 0);
  uint32_t vertices[3] = {4, 60, 4};
  float dp[9] = {0.1f, 0, 0, 0.2f, 0, 0, 0.3f, 0, 0}, w[2] = {1, 0};
  skn_morph_target target = {2, vertices, {dp, 0}, {0}, {0}};
  skn_bind_desc d = test_rig_desc(&t);
  d.morph_targets = &target;
  d.morph_target_count = 1;
  expect_refused(&d, SKN_ERR_INDEX_OUT_OF_RANGE, "morph target 0: entry 1: vertex 60");
  vertices[1] = 7, target.count = 3;
  expect_refused(&d, SKN_ERR_INVALID_ARGUMENT, "entry 2: vertex 4 is listed twice");
  target.count = 2;
  dp[4] = NAN;
  expect_refused(&d, SKN_ERR_NOT_FINITE, "morph target 0: entry 1 (vertex 7): position offset");
  dp[4] = 0;
  target.vertices = NULL;
  expect_refused(&d, SKN_ERR_INVALID_ARGUMENT, "dense");
  target.vertices = vertices;
  target.normals.data = dp;
  skn_bind_desc dn = d;
  dn.normals.data = NULL;
  expect_refused(&dn, SKN_ERR_INVALID_ARGUMENT, "the rest mesh has no normals");
  target.normals.data = NULL;
  target.positions.data = NULL;
  expect_refused(&d, SKN_ERR_INVALID_ARGUMENT, "positions are required");
  target.positions.data = dp;
  w[0] = INFINITY;
  d.morph_weights = w;
  expect_refused(&d, SKN_ERR_NOT_FINITE, "morph_weights[0]");
  d.morph_weights = NULL;
  d.morph_targets = NULL;
  expect_refused(&d, SKN_ERR_INVALID_ARGUMENT, "without morph_targets");
  d.morph_targets = &target;
  skn_rig *rig = bind_or_fail(&d);
  skn_pose *pose = pose_or_fail(rig);
  float set = 0.5f, bad = NAN, out[2] = {7, 7};
  ck_assert_int_eq(skn_pose_set_morph_weights(pose, 0, 1, &set), SKN_OK);
  ck_assert_int_eq(skn_pose_set_morph_weights(pose, 0, 1, &bad), SKN_ERR_NOT_FINITE);
  ck_assert_int_eq(skn_pose_set_morph_weights(pose, 1, 1, &set), SKN_ERR_INDEX_OUT_OF_RANGE);
  ck_assert_int_eq(skn_pose_set_morph_weights(pose, 0, 1, NULL), SKN_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(skn_pose_morph_weights(pose, 0, 2, out), SKN_ERR_INDEX_OUT_OF_RANGE);
  ck_assert(out[0] == 7 && out[1] == 7); /* nothing written */
  ck_assert_int_eq(skn_pose_morph_weights(pose, 0, 1, out), SKN_OK);
  ck_assert(out[0] == 0.5f); /* the refused sets changed nothing */
  skn_pose_destroy(pose);
  skn_rig_destroy(rig);
  test_rig_free(&t);
}
END_TEST


/* glTF: a node's weights over the mesh's as bind's default, and weights
 * channels sampled as §3.11 says — LINEAR, STEP, and CUBICSPLINE's Hermite
 * worked by hand below — through skn_gltf_pose to the skinned vertex (a
 * GLB assembled here: one joint at rest, a target lifting vertex 1 by 1). */
static const char MORPH_JSON[] =
    "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":188}],"
    "\"bufferViews\":[{\"buffer\":0,\"byteOffset\":0,\"byteLength\":36},{\"buffer\":0,\"byteOffset\":36,\"byteLength\":36},"
    "{\"buffer\":0,\"byteOffset\":72,\"byteLength\":12},{\"buffer\":0,\"byteOffset\":84,\"byteLength\":48},"
    "{\"buffer\":0,\"byteOffset\":132,\"byteLength\":8},{\"buffer\":0,\"byteOffset\":140,\"byteLength\":8},"
    "{\"buffer\":0,\"byteOffset\":148,\"byteLength\":8},{\"buffer\":0,\"byteOffset\":156,\"byteLength\":8},"
    "{\"buffer\":0,\"byteOffset\":164,\"byteLength\":24}],"
    "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"},"
    "{\"bufferView\":1,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"},"
    "{\"bufferView\":2,\"componentType\":5121,\"count\":3,\"type\":\"VEC4\"},"
    "{\"bufferView\":3,\"componentType\":5126,\"count\":3,\"type\":\"VEC4\"},"
    "{\"bufferView\":4,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\"},"
    "{\"bufferView\":5,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\"},"
    "{\"bufferView\":6,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\"},"
    "{\"bufferView\":7,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\"},"
    "{\"bufferView\":8,\"componentType\":5126,\"count\":6,\"type\":\"SCALAR\"}],"
    "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"JOINTS_0\":2,\"WEIGHTS_0\":3},"
    "\"targets\":[{\"POSITION\":1}]}],\"weights\":[0.25],\"extras\":{\"targetNames\":[\"lift\"]}}],"
    "\"skins\":[{\"joints\":[1]}],"
    "\"nodes\":[{\"name\":\"body\",\"mesh\":0,\"skin\":0,\"weights\":[0.5]},{\"name\":\"root\"}],"
    "\"animations\":[{\"channels\":[{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"weights\"}}],"
    "\"samplers\":[{\"input\":4,\"output\":5}]},"
    "{\"channels\":[{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"weights\"}}],"
    "\"samplers\":[{\"input\":4,\"output\":6,\"interpolation\":\"STEP\"}]},"
    "{\"channels\":[{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"weights\"}}],"
    "\"samplers\":[{\"input\":7,\"output\":8,\"interpolation\":\"CUBICSPLINE\"}]}]}";

static void put_u32(unsigned char *p, uint32_t v) { for (int i = 0; i < 4; ++i) p[i] = (unsigned char)(v >> 8 * i); }

static unsigned char *morph_glb(size_t *size) {
  const float bin[47] = {0, 0, 0, 1, 0, 0, 0, 0, 1,          /* positions */
                         0, 0, 0, 0, 1, 0, 0, 0, 0,          /* the target: vertex 1 up by 1 */
                         0, 0, 0,                            /* joints: 12 zero bytes */
                         1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, /* weights */
                         0, 1,                               /* LINEAR and STEP times */
                         0, 1,                               /* LINEAR weights */
                         0.2f, 0.8f,                         /* STEP weights */
                         0, 2,                               /* CUBICSPLINE times */
                         0, 0, 1, 0.5f, 1, 0};               /* in, value, out; in, value, out */
  size_t json = (sizeof MORPH_JSON - 1 + 3) & ~(size_t)3, n = 12 + 8 + json + 8 + 188;
  unsigned char *g = malloc(n);
  memcpy(g, "glTF", 4), put_u32(g + 4, 2), put_u32(g + 8, (uint32_t)n);
  put_u32(g + 12, (uint32_t)json), memcpy(g + 16, "JSON", 4);
  memset(g + 20, ' ', json), memcpy(g + 20, MORPH_JSON, sizeof MORPH_JSON - 1);
  put_u32(g + 20 + json, 188), memcpy(g + 24 + json, "BIN", 4), g[27 + json] = 0;
  memcpy(g + 28 + json, bin, 188);
  *size = n;
  return g;
}

START_TEST(gltf_weights_default_and_animated) {
  size_t size;
  unsigned char *glb = morph_glb(&size);
  skn_gltf *g;
  ck_assert_msg(skn_gltf_open_memory(glb, size, &g) == SKN_OK, "%s", skn_last_error());
  free(glb);
  skn_gltf_primitive_info pi = {sizeof pi};
  ck_assert_int_eq(skn_gltf_primitive_info_get(g, 0, &pi), SKN_OK);
  const char *name = NULL;
  ck_assert_int_eq(skn_gltf_morph_target_name(g, 0, 0, &name), SKN_OK);
  ck_assert_uint_eq(pi.morph_target_count, 1);
  ck_assert_str_eq(pi.node_name, "body");
  ck_assert_str_eq(name, "lift");
  ck_assert_int_eq(skn_gltf_morph_target_name(g, 0, 1, &name), SKN_ERR_INDEX_OUT_OF_RANGE);
  skn_gltf_bind_desc bd = {sizeof bd};
  skn_rig *rig;
  skn_pose *pose;
  ck_assert_int_eq(skn_gltf_bind(g, &bd, &rig), SKN_OK);
  ck_assert_int_eq(skn_pose_create(rig, &pose), SKN_OK);
  float w, p[9];
  skn_skin_desc s = {sizeof s};
  s.positions.data = p;
  ck_assert_int_eq(skn_pose_morph_weights(pose, 0, 1, &w), SKN_OK);
  ck_assert(w == 0.5f); /* the node's weights over the mesh's */
  static const struct { uint32_t animation; float time, want; } cases[] = {
      {SKN_GLTF_NO_ANIMATION, 0, 0.5f}, {0, 0.25f, 0.25f}, {0, 5, 1}, {1, 0.5f, 0.2f}, {1, 1, 0.8f},
      /* u = 0.5, d = 2: (2u^3 - 3u^2 + 1) 0 + (u^3 - 2u^2 + u) 2 (1) + (-2u^3 + 3u^2) 1 + (u^3 - u^2) 2 (0.5) */
      {2, 1, 0.625f}, {2, 0, 0}, {2, 2, 1}};
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
    ck_assert_int_eq(skn_gltf_pose(g, 0, cases[k].animation, cases[k].time, pose), SKN_OK);
    ck_assert_int_eq(skn_pose_morph_weights(pose, 0, 1, &w), SKN_OK);
    ck_assert_int_eq(skn_skin(rig, pose, &s), SKN_OK);
    ck_assert_msg(fabsf(w - cases[k].want) < 1e-6f && fabsf(p[4] - cases[k].want) < 1e-6f,
                  "animation %u at %g: weight %g, vertex 1 at y = %g; want %g", cases[k].animation,
                  (double)cases[k].time, (double)w, (double)p[4], (double)cases[k].want);
  }
  skn_pose_destroy(pose);
  skn_rig_destroy(rig);
  skn_gltf_close(g);
}
END_TEST

Suite *suite_morph(void) {
  Suite *s = suite_create("morph");
  TCase *tc = tcase_create("morph");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, morphs_then_skins_as_the_morphed_mesh);
  tcase_add_test(tc, every_method_is_affine_in_the_weights);
  tcase_add_loop_test(tc, every_kernel_set_matches_the_scalar_reference, SKN_LAYOUT_FULL, SKN_LAYOUT_COMPACT + 1);
  tcase_add_test(tc, many_active_targets);
  tcase_add_test(tc, bad_targets_and_weights_are_refused);
  tcase_add_test(tc, gltf_weights_default_and_animated);
  suite_add_tcase(s, tc);
  return s;
}
