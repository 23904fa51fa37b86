/* test_alloc.c — allocation failure: through skn_set_allocator, the n-th
 * allocation fails, for every n along bind (every method's data, both
 * layouts, fixed width and CSR), pose, glTF open (file and memory) and
 * glTF bind and pose. Each call returns SKN_OK or SKN_ERR_OUT_OF_MEMORY
 * naming what it ran out for, leaves no block allocated behind and no
 * half-built object in its out-pointer; skinning allocates nothing. */
#include "testlib.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The test's allocator: counts, fails the fail_at-th, keeps the live blocks. */
static struct {
  long count, fail_at, live;
} A;

static void *test_alloc(void *user, size_t size, size_t alignment) {
  (void)user;
  if (++A.count == A.fail_at) return NULL;
  void *p = NULL;
  if (posix_memalign(&p, alignment, size)) return NULL;
  ++A.live;
  return p;
}

static void test_free(void *user, void *block) {
  (void)user;
  --A.live;
  free(block);
}

static void install(void) {
  skn_allocator a = {sizeof a, NULL, test_alloc, test_free};
  ck_assert_msg(skn_set_allocator(&a) == SKN_OK, "%s", skn_last_error());
  A.count = A.live = 0;
  A.fail_at = -1;
}

/* An operation under test: does its work, frees what it made on success. */
typedef skn_status (*op_fn)(void *ctx);

/* Runs op with the n-th allocation failing, for n = 1, 2, ... until it runs
 * without reaching the failure; returns how many allocations it makes. */
static long fail_each(const char *what, op_fn op, void *ctx) {
  long before = A.live, n = 1;
  for (;; ++n) {
    A.count = 0;
    A.fail_at = n;
    skn_status s = op(ctx);
    long made = A.count;
    A.fail_at = -1;
    ck_assert_msg(s == SKN_OK || s == SKN_ERR_OUT_OF_MEMORY, "%s, allocation %ld failing: %s (%s)", what, n,
                  skn_status_name(s), skn_last_error());
    if (s == SKN_ERR_OUT_OF_MEMORY)
      ck_assert_msg(strstr(skn_last_error(), "out of memory"), "%s: \"%s\"", what, skn_last_error());
    ck_assert_msg(A.live == before, "%s, allocation %ld failing: %ld blocks left behind", what, n, A.live - before);
    if (made < n) {
      ck_assert_msg(s == SKN_OK, "%s without a failure: %s", what, skn_last_error());
      return made;
    }
  }
}

/* ---- bind ---- */

typedef struct bind_ctx {
  skn_bind_desc d;
} bind_ctx;

static skn_status bind_op(void *ctx) {
  bind_ctx *c = ctx;
  skn_rig *rig = (skn_rig *)c; /* a canary: a failed bind leaves it */
  skn_status s = skn_bind(&c->d, &rig);
  if (s != SKN_OK) {
    ck_assert_ptr_eq(rig, (skn_rig *)c);
    return s;
  }
  skn_rig_destroy(rig);
  return SKN_OK;
}

START_TEST(bind_fails_cleanly) {
  test_rig t;
  test_rig_random(&t, 61, 20, 120, 4, 2);
  float blend[120];
  uint32_t tris[117], offsets[121];
  for (int v = 0; v < 120; ++v) blend[v] = (float)(v % 3) / 2.0f;
  for (int i = 0; i < 117; ++i) tris[i] = (uint32_t)i;
  for (int v = 0; v <= 120; ++v) offsets[v] = (uint32_t)v * 4;
  install();
  for (int variant = 0; variant < 4; ++variant) {
    bind_ctx c = {test_rig_desc(&t)};
    c.d.blend_weights = blend;                   /* BLEND */
    c.d.triangles = tris, c.d.triangle_count = 39; /* COR */
    c.d.layout = variant & 1 ? SKN_LAYOUT_COMPACT : SKN_LAYOUT_FULL;
    if (variant & 2) c.d.influences_per_vertex = 0, c.d.influence_offsets = offsets, c.d.max_influences = 3;
    char what[64];
    snprintf(what, sizeof what, "bind (%s, %s)", variant & 1 ? "compact" : "full", variant & 2 ? "CSR" : "fixed");
    long made = fail_each(what, bind_op, &c);
    ck_assert_int_gt(made, 20);
  }
  ck_assert_int_eq(skn_set_allocator(NULL), SKN_OK);
  test_rig_free(&t);
}
END_TEST

/* ---- pose ---- */

typedef struct pose_ctx {
  const skn_rig *rig;
  const skn_transform *locals;
  uint32_t joints;
} pose_ctx;

static skn_status pose_op(void *ctx) {
  pose_ctx *c = ctx;
  skn_pose *pose = (skn_pose *)c;
  skn_status s = skn_pose_create(c->rig, &pose);
  if (s != SKN_OK) {
    ck_assert_ptr_eq(pose, (skn_pose *)c);
    return s;
  }
  ck_assert_int_eq(skn_pose_set_local(pose, 0, c->joints, c->locals), SKN_OK);
  float dq[20 * 20];
  ck_assert_int_eq(skn_pose_palette(pose, SKN_PALETTE_DUAL_QUAT_SCALE, dq, sizeof dq), SKN_OK);
  skn_pose_destroy(pose);
  return SKN_OK;
}

START_TEST(pose_fails_cleanly_and_skin_allocates_nothing) {
  test_rig t;
  test_rig_random(&t, 62, 20, 100, 4, 2);
  uint32_t tris[99];
  float blend[100];
  for (int i = 0; i < 99; ++i) tris[i] = (uint32_t)i;
  for (int v = 0; v < 100; ++v) blend[v] = 0.5f;
  install();
  skn_bind_desc d = test_rig_desc(&t);
  d.triangles = tris, d.triangle_count = 33, d.blend_weights = blend;
  skn_rig *rig = bind_or_fail(&d);
  pose_ctx c = {rig, t.pose, 20};
  fail_each("pose_create, set_local, palette", pose_op, &c);
  skn_pose *pose = pose_or_fail(rig);
  ck_assert_int_eq(skn_pose_set_local(pose, 0, 20, t.pose), SKN_OK);
  float out[300], nrm[300], tan[400];
  long before = A.count;
  for (int m = SKN_METHOD_LBS_MATRIX; m <= SKN_METHOD_COR; ++m)
    if (m != SKN_METHOD_LBS_QUATERNION) skin_or_fail(rig, pose, (skn_method)m, out, nrm, tan);
  ck_assert_msg(A.count == before, "skinning allocated %ld blocks", A.count - before);
  ck_assert_int_eq(skn_set_allocator(NULL), SKN_ERR_UNSUPPORTED); /* the rig and pose are live */
  ck_assert_msg(strstr(skn_last_error(), "blocks of the current allocator are live"), "%s", skn_last_error());
  skn_pose_destroy(pose);
  skn_rig_destroy(rig);
  ck_assert_int_eq(A.live, 0);
  ck_assert_int_eq(skn_set_allocator(NULL), SKN_OK);
  test_rig_free(&t);
}
END_TEST

/* ---- glTF ---- */

typedef struct gltf_ctx {
  const char *path;
  const void *bytes;
  size_t size;
  const skn_gltf *doc;
} gltf_ctx;

static skn_status open_op(void *ctx) {
  gltf_ctx *c = ctx;
  skn_gltf *g = (skn_gltf *)c;
  skn_status s = c->path ? skn_gltf_open(c->path, &g) : skn_gltf_open_memory(c->bytes, c->size, &g);
  if (s != SKN_OK) {
    ck_assert_ptr_eq(g, (skn_gltf *)c);
    return s;
  }
  skn_gltf_close(g);
  return SKN_OK;
}

static skn_status gltf_bind_op(void *ctx) {
  gltf_ctx *c = ctx;
  float blend[3273];
  for (int v = 0; v < 3273; ++v) blend[v] = 0.25f;
  skn_gltf_bind_desc bd = {sizeof bd};
  bd.centers_of_rotation = 1;
  bd.blend_weights = blend;
  skn_rig *rig = (skn_rig *)c;
  skn_pose *pose = NULL;
  skn_status s = skn_gltf_bind(c->doc, &bd, &rig);
  if (s != SKN_OK) {
    ck_assert_ptr_eq(rig, (skn_rig *)c);
    return s;
  }
  s = skn_pose_create(rig, &pose);
  if (s == SKN_OK) s = skn_gltf_pose(c->doc, 0, 0, 0.5f, pose);
  skn_pose_destroy(pose);
  skn_rig_destroy(rig);
  return s;
}

/* ---- weights: an octahedron around two bones, welded from a split copy ---- */
typedef struct weights_ctx {
  skn_weights_desc d;
  uint32_t joints[16];
  float weights[16];
} weights_ctx;

static skn_status weights_op(void *ctx) {
  weights_ctx *c = ctx;
  return skn_compute_weights(&c->d, c->joints, c->weights);
}

START_TEST(weights_fail_cleanly) {
  /* vertices 0-5 an octahedron of radius 1; 6 and 7 copies of 0 and 1 (welded back) */
  static const float P[8][3] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}, {1, 0, 0}, {-1, 0, 0}};
  static const uint32_t T[8][3] = {{0, 2, 4}, {2, 1, 4}, {1, 3, 4}, {3, 6, 4}, {2, 0, 5}, {1, 2, 5}, {3, 7, 5}, {0, 3, 5}};
  static const float H[6] = {-0.5f, 0, 0, 0, 0, 0}, L[6] = {0, 0, 0, 0.5f, 0, 0};
  install();
  weights_ctx c;
  memset(&c, 0, sizeof c);
  c.d.struct_size = sizeof c.d;
  c.d.vertex_count = 8, c.d.positions.data = P, c.d.triangle_count = 8, c.d.triangles = &T[0][0];
  c.d.bone_count = 2, c.d.bone_heads = H, c.d.bone_tails = L, c.d.influences_per_vertex = 2;
  c.d.flags = SKN_WEIGHTS_WELD;
  for (int m = SKN_WEIGHTS_HEAT; m <= SKN_WEIGHTS_CLOSEST; ++m) {
    c.d.method = (skn_weights_method)m;
    long n = fail_each(m == SKN_WEIGHTS_HEAT ? "weights (bone heat)" : "weights (closest)", weights_op, &c);
    ck_assert_msg(n > 3, "weights made %ld allocations", n);
    ck_assert_msg(fabsf(c.weights[0] + c.weights[1] - 1) < 1e-6f, "vertex 0's weights sum to %g",
                  (double)(c.weights[0] + c.weights[1]));
  }
  skn_set_allocator(NULL);
}
END_TEST

START_TEST(gltf_fails_cleanly) {
  static const char *const FILES[] = {"data/gltf/CesiumMan/glTF/CesiumMan.gltf", "data/gltf/Fox/glTF-Binary/Fox.glb",
                                      "data/gltf/SimpleSkin/glTF-Embedded/SimpleSkin.gltf"};
  install();
  for (int f = 0; f < 3; ++f) {
    gltf_ctx c = {FILES[f], NULL, 0, NULL};
    fail_each(FILES[f], open_op, &c);
    FILE *in = fopen(FILES[f], "rb");
    static char bytes[400000];
    c.size = fread(bytes, 1, sizeof bytes, in);
    fclose(in);
    c.path = NULL, c.bytes = bytes;
    if (f != 0) fail_each("open from memory", open_op, &c); /* CesiumMan's buffer is a file beside it */
  }
  skn_gltf *g = NULL;
  ck_assert_int_eq(skn_gltf_open(FILES[0], &g), SKN_OK);
  gltf_ctx c = {NULL, NULL, 0, g};
  fail_each("gltf_bind with centers, gltf_pose", gltf_bind_op, &c);
  skn_gltf_close(g);
  ck_assert_int_eq(skn_set_allocator(NULL), SKN_OK);
}
END_TEST

START_TEST(allocator_is_checked) {
  skn_allocator a = {sizeof a, NULL, test_alloc, NULL};
  ck_assert_int_eq(skn_set_allocator(&a), SKN_ERR_INVALID_ARGUMENT);
  a.free = test_free;
  a.struct_size = 8;
  ck_assert_int_eq(skn_set_allocator(&a), SKN_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(skn_set_allocator(NULL), SKN_OK);
}
END_TEST

Suite *suite_alloc(void) {
  Suite *s = suite_create("alloc");
  TCase *tc = tcase_create("alloc");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, bind_fails_cleanly);
  tcase_add_test(tc, pose_fails_cleanly_and_skin_allocates_nothing);
  tcase_add_test(tc, gltf_fails_cleanly);
  tcase_add_test(tc, weights_fail_cleanly);
  tcase_add_test(tc, allocator_is_checked);
  suite_add_tcase(s, tc);
  return s;
}
