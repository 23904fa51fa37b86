/* test_kernels.c — every vectorised kernel against the scalar reference:
 * each instruction set this CPU has x each method x positions / + normals /
 * + tangents x influence widths 1, 2, 3, 4, 8, 11 and CSR 0..8 (vertices
 * without influences included) x both bind layouts, on random rigs with rigid joints (LBS's
 * normals-by-M specialisations: lbs_simd.h), uniformly scaled ones (DQS's uniform S: dqs_simd.h)
 * and non-uniformly scaled ones; results
 * within 1e-6 of the model size. Also odd ranges (across block edges) and
 * interleaved outputs: nothing outside a range or between strided elements
 * is touched. */
#include "testlib.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const skn_simd LEVELS[] = {SKN_SIMD_PORTABLE, SKN_SIMD_AVX2, SKN_SIMD_AVX512};
static const char *LEVEL_NAMES[] = {"portable", "avx2", "avx512"};

typedef struct outputs { float *p, *n, *t; } outputs;

static outputs skin_all(skn_rig *rig, skn_pose *pose, skn_method m, uint32_t nv, int attrs, skn_dqs_scale split) {
  outputs o = {malloc(nv * 12), attrs > 0 ? malloc(nv * 12) : NULL, attrs > 1 ? malloc(nv * 16) : NULL};
  skn_skin_desc s = {sizeof s};
  s.method = m;
  s.dqs_scale = split;
  s.positions.data = o.p;
  s.normals.data = o.n;
  s.tangents.data = o.t;
  skn_status st = skn_skin(rig, pose, &s);
  ck_assert_msg(st == SKN_OK, "%s", skn_last_error());
  return o;
}

static void outputs_free(outputs *o) {
  free(o->p);
  free(o->n);
  free(o->t);
}

/* A random rig with width-k influences (k = 0: CSR with 0..8 per vertex),
 * its joints rigid (scale_mode 0: LBS's normals by M), scaled uniformly per
 * joint (1: DQS's uniform S, dqs_simd.h) or not (2: S blended whole). */
static skn_rig *kernel_rig(test_rig *t, uint32_t k, uint64_t seed, skn_bind_layout layout, int scale_mode,
                           uint32_t **offsets_out) {
  uint32_t nv = 700;
  test_rig_random(t, seed, 20, nv, k ? k : 8, scale_mode);
  skn_bind_desc d = test_rig_desc(t);
  uint32_t *tris = malloc(nv * 3 * sizeof *tris), *off = NULL;
  float *blend = malloc(nv * sizeof *blend);
  rng r = {seed};
  for (uint32_t i = 0; i < nv * 3; ++i) tris[i] = rng_below(&r, nv);
  for (uint32_t v = 0; v < nv; ++v) /* runs of pure LBS and pure DQS (whole groups and part), the rest mixed */
    blend[v] = v % 61 < 20 ? 0.0f : v % 61 < 40 ? 1.0f : (float)rng_uniform(&r, 0, 1);
  if (k == 0) {
    off = malloc((nv + 1) * sizeof *off);
    off[0] = 0;
    for (uint32_t v = 0; v < nv; ++v) off[v + 1] = off[v] + (v % 97 == 5 ? 0 : 1 + rng_below(&r, 8));
    d.influences_per_vertex = 0;
    d.influence_offsets = off;
  }
  d.triangles = tris;
  d.triangle_count = nv;
  d.blend_weights = blend;
  d.layout = layout;
  skn_rig *rig = bind_or_fail(&d);
  free(tris);
  free(blend);
  *offsets_out = off;
  return rig;
}

static const char *const SCALE_MODES[] = {" (rigid)", " (uniform scales)", " (non-uniform scales)"};

static double worst(const float *a, const float *b, size_t n) { return b ? max_abs_diff(a, b, n) : 0; }

/* Both layouts: a compact rig's kernels decode its codes (blocks_simd.h)
 * into what the scalar reference reads (compact.c). */
START_TEST(every_kernel_matches_the_scalar_reference) {
  const uint32_t widths[] = {1, 2, 3, 4, 8, 11, 0};
  const skn_bind_layout layout = (skn_bind_layout)_i;
  int levels_run = 0;
  for (size_t l = 0; l < 3; ++l) {
    if (skn_set_simd(LEVELS[l]) != SKN_OK) continue; /* not on this CPU */
    ++levels_run;
    for (size_t w = 0; w < 3 * sizeof widths / sizeof widths[0]; ++w) {
      const int scale_mode = (int)(w % 3);
      const uint32_t width = widths[w / 3];
      test_rig t;
      uint32_t *off;
      skn_rig *rig = kernel_rig(&t, width, 300 + w / 3, layout, scale_mode, &off);
      skn_pose *pose = pose_or_fail(rig);
      ck_assert_int_eq(skn_pose_set_local(pose, 0, t.joint_count, t.pose), SKN_OK);
      for (int m = SKN_METHOD_LBS_MATRIX; m <= SKN_METHOD_COR; ++m)
        for (int attrs = 0; attrs <= 2; ++attrs)
          for (int split = 0; split < (m >= SKN_METHOD_DQS ? 2 : 1); ++split) {
            if (m == SKN_METHOD_LBS_QUATERNION && scale_mode == 2) continue; /* it refuses such joints */
            ck_assert_int_eq(skn_set_simd(SKN_SIMD_SCALAR), SKN_OK);
            outputs ref = skin_all(rig, pose, (skn_method)m, t.vertex_count, attrs, (skn_dqs_scale)split);
            ck_assert_int_eq(skn_set_simd(LEVELS[l]), SKN_OK);
            outputs got = skin_all(rig, pose, (skn_method)m, t.vertex_count, attrs, (skn_dqs_scale)split);
            double dp = worst(got.p, ref.p, t.vertex_count * 3), dn = worst(got.n, ref.n, t.vertex_count * 3),
                   dt = worst(got.t, ref.t, t.vertex_count * 4);
            /* LBS_QUATERNION's reference blends its tangent 3x3 from float
             * quaternion rotations of the basis: 3.4e-6 from a double
             * evaluation on the width-8 rig, where the kernel's A_i = s_i R(q_i),
             * built in double, is 1.2e-6 off (the blend of 8 random rotations
             * is short, and normalising magnifies both) */
            double tangent_tol = m == SKN_METHOD_LBS_QUATERNION ? 4e-6 : 2e-6;
            ck_assert_msg(dp <= 1e-6 * t.size && dn <= 2e-6 && dt <= tangent_tol,
                          "%s, layout %d, width %u%s, method %d, attrs %d, split %d: positions %g (size %g), "
                          "normals %g, tangents %g", LEVEL_NAMES[l], layout, width, SCALE_MODES[scale_mode], m, attrs,
                          split, dp, t.size, dn, dt);
            outputs_free(&ref);
            outputs_free(&got);
          }
      skn_pose_destroy(pose);
      skn_rig_destroy(rig);
      free(off);
      test_rig_free(&t);
    }
  }
  ck_assert_int_ge(levels_run, 1);
  ck_assert_int_eq(skn_set_simd(SKN_SIMD_AUTO), SKN_OK);
}
END_TEST

/* Ranges across block edges and interleaved outputs: the wide stores of the
 * fast kernels never reach past a range's last vertex or between elements. */
START_TEST(ranges_and_strides_stay_inside) {
  for (size_t l = 0; l < 3; ++l) {
    if (skn_set_simd(LEVELS[l]) != SKN_OK) continue;
    test_rig t;
    uint32_t *off;
    skn_rig *rig = kernel_rig(&t, 4, 77, (skn_bind_layout)_i, 0, &off);
    skn_pose *pose = pose_or_fail(rig);
    ck_assert_int_eq(skn_pose_set_local(pose, 0, t.joint_count, t.pose), SKN_OK);
    uint32_t nv = t.vertex_count;
    for (int m = SKN_METHOD_LBS_MATRIX; m <= SKN_METHOD_COR; ++m) {
      float *whole = malloc(nv * 12), *part = malloc(nv * 12), *inter = malloc(nv * 32);
      skin_or_fail(rig, pose, (skn_method)m, whole, NULL, NULL);
      for (uint32_t i = 0; i < nv * 3; ++i) part[i] = -5.0f;
      for (uint32_t i = 0; i < nv * 8; ++i) inter[i] = -7.0f;
      skn_skin_desc s = {sizeof s};
      s.method = (skn_method)m;
      s.positions.data = part;
      s.first_vertex = 250; /* across the 256-vertex block edge, ending mid-block */
      s.vertex_count = 300;
      ck_assert_int_eq(skn_skin(rig, pose, &s), SKN_OK);
      for (uint32_t v = 0; v < nv; ++v)
        for (int c = 0; c < 3; ++c) {
          if (v >= 250 && v < 550) ck_assert_float_eq(part[v * 3 + c], whole[v * 3 + c]);
          else ck_assert_float_eq(part[v * 3 + c], -5.0f);
        }
      s.first_vertex = 0;
      s.vertex_count = 0;
      s.positions.data = inter;
      s.positions.stride = 32;
      ck_assert_int_eq(skn_skin(rig, pose, &s), SKN_OK);
      for (uint32_t v = 0; v < nv; ++v) {
        ck_assert_mem_eq(inter + v * 8, whole + v * 3, 12);
        for (int c = 3; c < 8; ++c) ck_assert_float_eq(inter[v * 8 + c], -7.0f);
      }
      free(whole);
      free(part);
      free(inter);
    }
    skn_pose_destroy(pose);
    skn_rig_destroy(rig);
    free(off);
    test_rig_free(&t);
  }
  ck_assert_int_eq(skn_set_simd(SKN_SIMD_AUTO), SKN_OK);
}
END_TEST

/* Streaming stores (skn_stores) change where the results go, never what they
 * are: bit-identical to cached stores for every vectorised method, with
 * 64-byte aligned and unaligned outputs, whole and in odd ranges, 1 and 2
 * threads, every instruction set. */
static void check_streaming(skn_rig *rig, skn_pose *pose, skn_method m, uint32_t nv, float *buf) {
  outputs want = skin_all(rig, pose, m, nv, 2, SKN_DQS_SCALE_POLAR);
  for (int shift = 0; shift <= 4; shift += 4) /* floats: aligned, then 16 bytes off */
    for (uint32_t threads = 1; threads <= 2; ++threads)
      for (int range = 0; range < 2; ++range) {
        const size_t gap = (nv * 3 + 15) / 16 * 16; /* keeps n and tn 64-byte aligned where p is */
        float *p = buf + shift, *n = p + gap, *tn = n + gap;
        memset(buf, 0, (size_t)nv * 40 + 256);
        skn_skin_desc s = {sizeof s};
        s.method = m;
        s.positions.data = p, s.normals.data = n, s.tangents.data = tn;
        s.threads = threads;
        s.stores = SKN_STORES_STREAMING;
        s.first_vertex = range ? 37 : 0;
        s.vertex_count = range ? 501 : 0;
        ck_assert_int_eq(skn_skin(rig, pose, &s), SKN_OK);
        uint32_t lo = s.first_vertex, hi = range ? lo + s.vertex_count : nv;
        ck_assert_mem_eq(p + lo * 3, want.p + lo * 3, (hi - lo) * 12);
        ck_assert_mem_eq(n + lo * 3, want.n + lo * 3, (hi - lo) * 12);
        ck_assert_mem_eq(tn + lo * 4, want.t + lo * 4, (hi - lo) * 16);
        if (range) { /* nothing outside the range */
          ck_assert_float_eq(p[lo * 3 - 1], 0.0f);
          ck_assert_float_eq(p[hi * 3], 0.0f);
        }
      }
  outputs_free(&want);
}

START_TEST(streaming_stores_match_cached) {
  for (size_t l = 0; l < 3; ++l) {
    if (skn_set_simd(LEVELS[l]) != SKN_OK) continue;
    test_rig t;
    uint32_t *off;
    skn_rig *rig = kernel_rig(&t, 3, 91, (skn_bind_layout)_i, 0, &off);
    skn_pose *pose = pose_or_fail(rig);
    ck_assert_int_eq(skn_pose_set_local(pose, 0, t.joint_count, t.pose), SKN_OK);
    uint32_t nv = t.vertex_count;
    void *mem;
    ck_assert_int_eq(posix_memalign(&mem, 64, (size_t)nv * 40 + 256), 0);
    const skn_method methods[] = {SKN_METHOD_LBS_MATRIX, SKN_METHOD_LBS_QUATERNION, SKN_METHOD_DQS,
                                  SKN_METHOD_BLEND, SKN_METHOD_COR};
    for (size_t m = 0; m < sizeof methods / sizeof methods[0]; ++m) check_streaming(rig, pose, methods[m], nv, mem);
    free(mem);
    skn_pose_destroy(pose);
    skn_rig_destroy(rig);
    free(off);
    test_rig_free(&t);
  }
  ck_assert_int_eq(skn_set_simd(SKN_SIMD_AUTO), SKN_OK);
}
END_TEST

START_TEST(simd_choice) {
  ck_assert_int_eq(skn_set_simd(SKN_SIMD_SCALAR), SKN_OK);
  ck_assert_int_eq(skn_get_simd(), SKN_SIMD_SCALAR);
  ck_assert_int_eq(skn_set_simd((skn_simd)42), SKN_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(skn_get_simd(), SKN_SIMD_SCALAR); /* unchanged on failure */
  ck_assert_int_eq(skn_set_simd(SKN_SIMD_AUTO), SKN_OK);
  ck_assert_int_ne(skn_get_simd(), SKN_SIMD_AUTO);
  ck_assert_int_ne(skn_get_simd(), SKN_SIMD_SCALAR);
}
END_TEST

Suite *suite_kernels(void) {
  Suite *s = suite_create("kernels");
  TCase *tc = tcase_create("kernels");
  tcase_set_timeout(tc, 120);
  /* each twice: SKN_LAYOUT_FULL (_i = 0) and SKN_LAYOUT_COMPACT */
  tcase_add_loop_test(tc, every_kernel_matches_the_scalar_reference, SKN_LAYOUT_FULL, SKN_LAYOUT_COMPACT + 1);
  tcase_add_loop_test(tc, ranges_and_strides_stay_inside, SKN_LAYOUT_FULL, SKN_LAYOUT_COMPACT + 1);
  tcase_add_loop_test(tc, streaming_stores_match_cached, SKN_LAYOUT_FULL, SKN_LAYOUT_COMPACT + 1);
  tcase_add_test(tc, simd_choice);
  suite_add_tcase(s, tc);
  return s;
}
