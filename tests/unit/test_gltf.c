/* test_gltf.c — the glTF loader: every sample model loads and skins;
 * SimpleSkin against values worked out by hand from its two joints; slerp,
 * STEP and CUBICSPLINE against the spec's formulas; .glb equals .gltf;
 * malformed files give their status and a message that points into the
 * document. Paths are relative to the project root (where make check runs). */
#include "testlib.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PI 3.14159265358979323846

static const char *MODELS[] = {
    "data/gltf/SimpleSkin/glTF-Embedded/SimpleSkin.gltf", "data/gltf/RiggedSimple/glTF/RiggedSimple.gltf",
    "data/gltf/CesiumMan/glTF/CesiumMan.gltf",             "data/gltf/Fox/glTF/Fox.gltf",
    "data/gltf/Fox/glTF-Binary/Fox.glb",
};

/* A document's primitive 0 skinned at time t of animation a. */
typedef struct skinned { uint32_t n; float *p, *nrm; } skinned;

static skinned skin_at(const char *path, uint32_t animation, float t, skn_method method) {
  skn_gltf *g = NULL;
  skn_status s = skn_gltf_open(path, &g);
  ck_assert_msg(s == SKN_OK, "%s: %s", path, skn_last_error());
  skn_gltf_primitive_info pi = {sizeof pi};
  ck_assert_int_eq(skn_gltf_primitive_info_get(g, 0, &pi), SKN_OK);
  skn_gltf_bind_desc bd = {sizeof bd};
  bd.centers_of_rotation = method == SKN_METHOD_COR;
  skn_rig *rig = NULL;
  ck_assert_msg(skn_gltf_bind(g, &bd, &rig) == SKN_OK, "%s: %s", path, skn_last_error());
  skn_pose *pose = pose_or_fail(rig);
  ck_assert_msg(skn_gltf_pose(g, 0, animation, t, pose) == SKN_OK, "%s: %s", path, skn_last_error());
  skinned out = {pi.vertex_count, malloc(pi.vertex_count * 12), malloc(pi.vertex_count * 12)};
  skin_or_fail(rig, pose, method, out.p, pi.flags & SKN_GLTF_HAS_NORMALS ? out.nrm : NULL, NULL);
  skn_pose_destroy(pose);
  skn_rig_destroy(rig);
  skn_gltf_close(g);
  return out;
}

static void skinned_free(skinned *s) {
  free(s->p);
  free(s->nrm);
}

/* Every sample model — the project's copies and, where it is beside the
 * checkout, ../shared's — opens, binds and skins to finite positions with
 * every method at several times of every animation. */
static void check_model(const char *path) {
  skn_gltf *g = NULL;
  ck_assert_msg(skn_gltf_open(path, &g) == SKN_OK, "%s: %s", path, skn_last_error());
  skn_gltf_info info = {sizeof info};
  ck_assert_int_eq(skn_gltf_info_get(g, &info), SKN_OK);
  ck_assert_uint_ge(info.primitive_count, 1);
  skn_gltf_close(g);
  for (uint32_t a = 0; a < (info.animation_count ? info.animation_count : 1); ++a)
    for (int m = SKN_METHOD_LBS_MATRIX; m <= SKN_METHOD_COR; m += 2) /* LBS, DQS, COR */
      for (float t = 0; t <= 1.0f; t += 0.5f) {
        skinned s = skin_at(path, info.animation_count ? a : SKN_GLTF_NO_ANIMATION, t, (skn_method)m);
        for (uint32_t i = 0; i < s.n * 3; ++i) ck_assert_msg(isfinite(s.p[i]), "%s: vertex %u not finite", path, i / 3);
        skinned_free(&s);
      }
}

START_TEST(every_model_loads) {
  for (size_t k = 0; k < sizeof MODELS / sizeof MODELS[0]; ++k) check_model(MODELS[k]);
  char shared[256];
  int seen = 0;
  for (size_t k = 0; k < sizeof MODELS / sizeof MODELS[0]; ++k) {
    snprintf(shared, sizeof shared, "../shared/%s", MODELS[k]);
    if (access(shared, R_OK) == 0) check_model(shared), ++seen;
  }
  printf("glTF: %zu bundled sample models and %d in ../shared load and skin\n", sizeof MODELS / sizeof MODELS[0], seen);
}
END_TEST

/* SimpleSkin: joint 0 (node 1, at (0,1,0)) never moves and its inverse
 * bind is T(0,-1,0), so M_0 = I; joint 1 (node 2, its child at the same
 * place) turns about z by the key's quaternion, so M_1 turns about c =
 * (0,1,0): M_1 p = c + Rz (p - c). Vertex 4 (-0.5, 1) weighs 1/2 each,
 * vertex 8 (-0.5, 2) and 9 (0.5, 2) joint 1 alone.
 * t = 1.0: key (0,0,0.707,0.707), 90°: vertex 8 -> c + (-1, -0.5) = (-1, 0.5);
 *          vertex 9 -> c + (-1, 0.5) = (-1, 1.5); vertex 4 -> ((-0.5,1) + (0,0.5)) / 2.
 * t = 0.5: key (0,0,0.383,0.924): cos = (w^2 - z^2)/|q|^2, sin = 2wz/|q|^2. */
START_TEST(simple_skin_by_hand) {
  const char *path = MODELS[0];
  skinned s = skin_at(path, 0, 1.0f, SKN_METHOD_LBS_MATRIX);
  const float v4[3] = {-0.25f, 0.75f, 0}, v8[3] = {-1, 0.5f, 0}, v9[3] = {-1, 1.5f, 0};
  ck_assert_double_le(max_abs_diff(s.p + 12, v4, 3), 1e-5);
  ck_assert_double_le(max_abs_diff(s.p + 24, v8, 3), 1e-5);
  ck_assert_double_le(max_abs_diff(s.p + 27, v9, 3), 1e-5);
  skinned_free(&s);
  s = skin_at(path, 0, 0.5f, SKN_METHOD_LBS_MATRIX);
  double z = 0.383, w = 0.924, n2 = z * z + w * w, c = (w * w - z * z) / n2, sn = 2 * w * z / n2;
  const float h8[3] = {(float)(-0.5 * c - 1.0 * sn), (float)(1 + (-0.5 * sn + 1.0 * c)), 0};
  const float h9[3] = {(float)(0.5 * c - 1.0 * sn), (float)(1 + (0.5 * sn + 1.0 * c)), 0};
  ck_assert_double_le(max_abs_diff(s.p + 24, h8, 3), 1e-5);
  ck_assert_double_le(max_abs_diff(s.p + 27, h9, 3), 1e-5);
  skinned_free(&s);
}
END_TEST

/* The arm of scripts/arm_gltf.c: a vertex at the forearm's far end on the
 * rim, (2L, r, 0) with L = 1 and r = 0.25, weighs the elbow (at (1,0,0))
 * alone; the elbow's rotation is the sampled quaternion q. */
static double tip_angle(const char *animation, float t, int axis_x) {
  skn_gltf *g;
  ck_assert_int_eq(skn_gltf_open("build/data/arm.gltf", &g), SKN_OK);
  uint32_t a;
  ck_assert_int_eq(skn_gltf_find_animation(g, animation, &a), SKN_OK);
  skn_gltf_close(g);
  skinned s = skin_at("build/data/arm.gltf", a, t, SKN_METHOD_LBS_MATRIX);
  const float *p = s.p + (40 * 32) * 3; /* ring 40, segment 0: (2, 0.25, 0) at rest */
  double angle = axis_x ? atan2(p[2], p[1]) : atan2(p[1] - 0.0, p[0] - 1.0) - atan2(0.25, 1.0);
  skinned_free(&s);
  return angle;
}

/* LINEAR rotations are slerped (glTF 2.0 Appendix C): a quarter of the way
 * from 0° to 90° about x is 22.5°, where component-wise lerp gives 21.6°. */
START_TEST(slerp_between_keys) {
  ck_assert_double_le(fabs(tip_angle("twist", 0.125f, 1) - 22.5 * PI / 180), 2e-5);
  ck_assert_double_le(fabs(tip_angle("twist", 0.375f, 1) - 67.5 * PI / 180), 2e-5);
  ck_assert_double_le(fabs(tip_angle("twist", -3.0f, 1) - 0.0), 2e-5);         /* before the first key */
  ck_assert_double_le(fabs(fabs(tip_angle("twist", 7.0f, 1)) - PI), 2e-5);     /* after the last: 180° */
}
END_TEST

/* STEP holds a key until the next; CUBICSPLINE with zero tangents is the
 * Hermite blend h = 3u^2 - 2u^3 of the two keys, normalized (§3.11). */
START_TEST(step_and_cubic_spline) {
  ck_assert_double_le(fabs(tip_angle("step", 0.25f, 0)), 2e-5);
  ck_assert_double_le(fabs(tip_angle("step", 0.4999f, 0)), 2e-5);
  ck_assert_double_le(fabs(tip_angle("step", 0.5f, 0) - PI / 2), 2e-5);
  double u = 0.25, h = 3 * u * u - 2 * u * u * u, s45 = sin(PI / 4), c45 = cos(PI / 4);
  double want = 2 * atan2(h * s45, (1 - h) + h * c45);
  ck_assert_double_le(fabs(tip_angle("cubic", 0.25f, 0) - want), 2e-5);
  ck_assert_double_le(fabs(tip_angle("cubic", 0.5f, 0) - PI / 4), 2e-5);
}
END_TEST

/* The same model as .glb and as .gltf + .bin gives the same bytes. */
START_TEST(glb_equals_gltf) {
  skinned a = skin_at("data/gltf/Fox/glTF/Fox.gltf", 1, 0.3f, SKN_METHOD_DQS);
  skinned b = skin_at("data/gltf/Fox/glTF-Binary/Fox.glb", 1, 0.3f, SKN_METHOD_DQS);
  ck_assert_uint_eq(a.n, b.n);
  ck_assert_mem_eq(a.p, b.p, a.n * 12);
  skinned_free(&a);
  skinned_free(&b);
}
END_TEST

/* ---- malformed files ---- */

static char *read_all(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  ck_assert_ptr_nonnull(f);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *d = malloc((size_t)n + 1);
  ck_assert_uint_eq(fread(d, 1, (size_t)n, f), (size_t)n);
  d[n] = 0;
  fclose(f);
  if (size) *size = (size_t)n;
  return d;
}

static void write_all(const char *path, const char *data, size_t n) {
  FILE *f = fopen(path, "wb");
  ck_assert_ptr_nonnull(f);
  ck_assert_uint_eq(fwrite(data, 1, n, f), n);
  fclose(f);
}

/* text with its first `from` replaced by `to`. */
static char *replaced(const char *text, const char *from, const char *to) {
  const char *at = strstr(text, from);
  ck_assert_msg(at != NULL, "\"%s\" not found", from);
  size_t a = (size_t)(at - text), nf = strlen(from), nt = strlen(to), n = strlen(text);
  char *out = malloc(n - nf + nt + 1);
  memcpy(out, text, a);
  memcpy(out + a, to, nt);
  memcpy(out + a + nt, at + nf, n - a - nf + 1);
  return out;
}

typedef struct bad_file { const char *name, *from, *to; skn_status want; const char *needle; } bad_file;

/* Edits of SimpleSkin (data: URIs, so one file is the whole document). */
static const bad_file BAD_SIMPLE[] = {
    {"bad base64", "base64,AAABAAMAAAAD", "base64,AAAB*AMAAAAD", SKN_ERR_PARSE, "buffers[0].uri: bad base64"},
    {"accessor past its buffer", "\"count\" : 24,", "\"count\" : 2400,", SKN_ERR_PARSE, "accessors[0]: byteOffset + count*stride"},
    {"joint index past the skin", "\"joints\" : [ 1, 2 ]", "\"joints\" : [ 1 ]", SKN_ERR_PARSE, "joint 1 >= skins[0] joint count 1"},
    {"cyclic nodes", "\"rotation\" : [ 0.0, 0.0, 0.0, 1.0 ]", "\"children\" : [ 1 ]", SKN_ERR_PARSE, "cycle"},
    {"node index out of range", "\"children\" : [ 2 ]", "\"children\" : [ 7 ]", SKN_ERR_PARSE, "nodes[1].children[0]"},
    {"not glTF 2", "\"version\" : \"2.0\"", "\"version\" : \"1.0\"", SKN_ERR_PARSE, "asset.version"},
};

static void expect_bad(const char *path, skn_status want, const char *needle, const char *name) {
  skn_gltf *g = (skn_gltf *)(uintptr_t)0x5EB71E;
  skn_status s = skn_gltf_open(path, &g);
  ck_assert_msg(s == want, "%s: got %s (%s), want %s", name, skn_status_name(s), skn_last_error(), skn_status_name(want));
  ck_assert_msg(strstr(skn_last_error(), needle) != NULL, "%s: \"%s\" does not say \"%s\"", name, skn_last_error(), needle);
  ck_assert_msg(g == (skn_gltf *)(uintptr_t)0x5EB71E, "%s: out was written", name);
}

START_TEST(malformed_files) {
  char dir[] = "/tmp/skn-gltf-XXXXXX", path[256], bin[256];
  ck_assert_ptr_nonnull(mkdtemp(dir));
  size_t n;
  char *simple = read_all(MODELS[0], &n);
  for (size_t k = 0; k < sizeof BAD_SIMPLE / sizeof BAD_SIMPLE[0]; ++k) {
    char *text = replaced(simple, BAD_SIMPLE[k].from, BAD_SIMPLE[k].to);
    snprintf(path, sizeof path, "%s/bad%zu.gltf", dir, k);
    write_all(path, text, strlen(text));
    expect_bad(path, BAD_SIMPLE[k].want, BAD_SIMPLE[k].needle, BAD_SIMPLE[k].name);
    free(text);
  }
  snprintf(path, sizeof path, "%s/truncated.gltf", dir); /* truncated JSON */
  write_all(path, simple, n / 2);
  expect_bad(path, SKN_ERR_PARSE, "not valid JSON", "truncated JSON");
  char *rigged = read_all(MODELS[1], NULL), *rbin = read_all("data/gltf/RiggedSimple/glTF/RiggedSimple0.bin", &n);
  snprintf(path, sizeof path, "%s/RiggedSimple.gltf", dir); /* missing buffer file */
  write_all(path, rigged, strlen(rigged));
  expect_bad(path, SKN_ERR_IO, "buffers[0]: cannot open", "missing buffer file");
  snprintf(bin, sizeof bin, "%s/RiggedSimple0.bin", dir); /* truncated .bin */
  write_all(bin, rbin, n - 100);
  expect_bad(path, SKN_ERR_PARSE, "truncated", "truncated .bin");
  char *glb = read_all(MODELS[4], &n); /* truncated GLB */
  snprintf(path, sizeof path, "%s/truncated.glb", dir);
  write_all(path, glb, n - 5000);
  expect_bad(path, SKN_ERR_PARSE, "truncated", "truncated .glb");
  snprintf(path, sizeof path, "%s/absent.gltf", dir);
  expect_bad(path, SKN_ERR_IO, "cannot open \"", "missing file");
  ck_assert_msg(strstr(skn_last_error(), "absent.gltf\": No such file"), "%s", skn_last_error());
  free(simple);
  free(rigged);
  free(rbin);
  free(glb);
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* Loader features the sample models do not exercise, as edits of
 * SimpleSkin worked by hand at t = 0 (the key there is the identity, so
 * M_0 = M_1 = I with the file's inverse binds):
 *  - a sparse POSITION accessor: indices 0, 1, 3 (bufferView 0's first
 *    three uint16s) take positions 0, 1, 2 (bufferView 1's first three),
 *    so vertex 3 moves from (0.5, 0.5) to (-0.5, 0.5);
 *  - no inverseBindMatrices: identity, so M_i = globalTransform(joint_i) =
 *    T(0, 1, 0) for both joints and every vertex is lifted by 1 in y;
 *  - JOINTS_1/WEIGHTS_1 repeating set 0: 8 influences per vertex, weights
 *    doubled then normalized, so at t = 1 vertex 8 is still (-1, 0.5). */
static skinned skin_edited(const char *dir, const char *name, const char *from, const char *to, float t) {
  char path[256];
  char *text = read_all(MODELS[0], NULL), *edited = replaced(text, from, to);
  snprintf(path, sizeof path, "%s/%s.gltf", dir, name);
  write_all(path, edited, strlen(edited));
  free(text);
  free(edited);
  return skin_at(path, 0, t, SKN_METHOD_LBS_MATRIX);
}

START_TEST(loader_features) {
  char dir[] = "/tmp/skn-gltf-XXXXXX", cmd[300];
  ck_assert_ptr_nonnull(mkdtemp(dir));
  skinned s = skin_edited(dir, "sparse", "\"bufferView\" : 1,",
                          "\"sparse\" : {\"count\" : 3, \"indices\" : {\"bufferView\" : 0, \"componentType\" : 5123}, "
                          "\"values\" : {\"bufferView\" : 1}}, \"bufferView\" : 1,", 0.0f);
  const float v3[3] = {-0.5f, 0.5f, 0}, v2[3] = {-0.5f, 0.5f, 0}, v5[3] = {0.5f, 1.0f, 0};
  ck_assert_double_le(max_abs_diff(s.p + 9, v3, 3), 1e-6);
  ck_assert_double_le(max_abs_diff(s.p + 6, v2, 3), 1e-6); /* vertex 2 was not substituted */
  ck_assert_double_le(max_abs_diff(s.p + 15, v5, 3), 1e-6);
  skinned_free(&s);
  s = skin_edited(dir, "identity", "\"inverseBindMatrices\" : 4,", "", 0.0f);
  const float lifted0[3] = {-0.5f, 1, 0}, lifted9[3] = {0.5f, 3, 0};
  ck_assert_double_le(max_abs_diff(s.p, lifted0, 3), 1e-6);
  ck_assert_double_le(max_abs_diff(s.p + 27, lifted9, 3), 1e-6);
  skinned_free(&s);
  s = skin_edited(dir, "two-sets", "\"WEIGHTS_0\" : 3", "\"WEIGHTS_0\" : 3, \"JOINTS_1\" : 2, \"WEIGHTS_1\" : 3", 1.0f);
  const float v8[3] = {-1, 0.5f, 0};
  ck_assert_double_le(max_abs_diff(s.p + 24, v8, 3), 1e-5);
  skinned_free(&s);
  snprintf(cmd, sizeof cmd, "%s/two-sets.gltf", dir);
  skn_gltf *g;
  ck_assert_int_eq(skn_gltf_open(cmd, &g), SKN_OK);
  skn_gltf_primitive_info pi = {sizeof pi};
  ck_assert_int_eq(skn_gltf_primitive_info_get(g, 0, &pi), SKN_OK);
  ck_assert_uint_eq(pi.influences_per_vertex, 8);
  skn_gltf_close(g);
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* Bad calls on a good document: errors name the item and write nothing. */
START_TEST(bad_calls) {
  skn_gltf *g;
  ck_assert_int_eq(skn_gltf_open(MODELS[3], &g), SKN_OK);
  skn_gltf_primitive_info pi = {sizeof pi};
  ck_assert_int_eq(skn_gltf_primitive_info_get(g, 5, &pi), SKN_ERR_INDEX_OUT_OF_RANGE);
  ck_assert_ptr_nonnull(strstr(skn_last_error(), "primitive 5 >= 1"));
  uint32_t a = 77;
  ck_assert_int_eq(skn_gltf_find_animation(g, "Dance", &a), SKN_ERR_INDEX_OUT_OF_RANGE);
  ck_assert_uint_eq(a, 77);
  ck_assert_int_eq(skn_gltf_find_animation(g, "Run", &a), SKN_OK);
  ck_assert_uint_eq(a, 2);
  skn_gltf_bind_desc bd = {sizeof bd};
  skn_rig *rig;
  ck_assert_int_eq(skn_gltf_bind(g, &bd, &rig), SKN_OK);
  skn_pose *pose = pose_or_fail(rig);
  float before[16 * 24], after[16 * 24];
  ck_assert_int_eq(skn_pose_palette(pose, SKN_PALETTE_MAT4, before, sizeof before), SKN_OK);
  ck_assert_int_eq(skn_gltf_pose(g, 0, 3, 0.0f, pose), SKN_ERR_INDEX_OUT_OF_RANGE);
  ck_assert_int_eq(skn_gltf_pose(g, 0, 0, NAN, pose), SKN_ERR_NOT_FINITE);
  ck_assert_int_eq(skn_pose_palette(pose, SKN_PALETTE_MAT4, after, sizeof after), SKN_OK);
  ck_assert_mem_eq(before, after, sizeof before);
  uint32_t tris[10];
  ck_assert_int_eq(skn_gltf_triangles(g, 0, tris, 10), SKN_ERR_INVALID_ARGUMENT);
  skn_pose_destroy(pose);
  skn_rig_destroy(rig);
  skn_gltf_close(g);
}
END_TEST

Suite *suite_gltf(void) {
  Suite *s = suite_create("gltf");
  TCase *tc = tcase_create("gltf");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, every_model_loads);
  tcase_add_test(tc, simple_skin_by_hand);
  tcase_add_test(tc, slerp_between_keys);
  tcase_add_test(tc, step_and_cubic_spline);
  tcase_add_test(tc, glb_equals_gltf);
  tcase_add_test(tc, malformed_files);
  tcase_add_test(tc, loader_features);
  tcase_add_test(tc, bad_calls);
  suite_add_tcase(s, tc);
  return s;
}
