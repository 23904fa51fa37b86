/* test_weights.c — skn_compute_weights (abi/skn.h section 7) on meshes
 * whose answers are known by construction: a capped cylinder along two
 * bones (weights cross at the joint, monotone along the axis, sum 1,
 * symmetric about the joint), a mesh in two pieces and a loose piece no
 * bone is visible from, a bone inside nothing, a vertex hidden from its
 * nearest bone, a split seam welded, threads, Blender's store rule, and
 * the bad inputs (a status naming the item, the caller's arrays
 * untouched). Allocation failure is test_alloc.c's; Blender's own "With
 * Automatic Weights" is the reference in tests/blender/weights.py. */
#include "testlib.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct mesh {
  uint32_t vertex_count, triangle_count;
  float *positions;
  uint32_t *triangles;
} mesh;

static void mesh_free(mesh *m) {
  free(m->positions), free(m->triangles);
  memset(m, 0, sizeof *m);
}

static uint32_t add_vertex(mesh *m, float x, float y, float z) {
  m->positions = realloc(m->positions, sizeof(float) * 3 * (m->vertex_count + 1));
  float *p = m->positions + 3 * m->vertex_count;
  p[0] = x, p[1] = y, p[2] = z;
  return m->vertex_count++;
}

static void add_triangle(mesh *m, uint32_t a, uint32_t b, uint32_t c) {
  m->triangles = realloc(m->triangles, sizeof(uint32_t) * 3 * (m->triangle_count + 1));
  uint32_t *t = m->triangles + 3 * m->triangle_count++;
  t[0] = a, t[1] = b, t[2] = c;
}

/* A closed cylinder along +x from x0 to x1, radius r: `rings` rings of
 * `sides` vertices, a centre vertex closing each end; outward winding.
 * Its vertex i of ring k is at first + k*sides + i. */
static uint32_t cylinder(mesh *m, float x0, float x1, float r, uint32_t rings, uint32_t sides, float cy) {
  uint32_t first = m->vertex_count;
  for (uint32_t k = 0; k < rings; ++k)
    for (uint32_t i = 0; i < sides; ++i) {
      double a = 2 * 3.14159265358979323846 * i / sides;
      add_vertex(m, x0 + (x1 - x0) * k / (rings - 1), cy + r * (float)cos(a), r * (float)sin(a));
    }
  for (uint32_t k = 0; k + 1 < rings; ++k)
    for (uint32_t i = 0; i < sides; ++i) {
      uint32_t a = first + k * sides + i, b = first + k * sides + (i + 1) % sides;
      add_triangle(m, a, b, b + sides), add_triangle(m, a, b + sides, a + sides);
    }
  uint32_t c0 = add_vertex(m, x0, cy, 0), c1 = add_vertex(m, x1, cy, 0);
  for (uint32_t i = 0; i < sides; ++i) {
    uint32_t a = first + i, b = first + (i + 1) % sides;
    add_triangle(m, c0, b, a);
    uint32_t e = first + (rings - 1) * sides;
    add_triangle(m, c1, e + i, e + (i + 1) % sides);
  }
  return first;
}

static skn_weights_desc desc_of(const mesh *m, const float *heads, const float *tails, uint32_t bones) {
  skn_weights_desc d = {sizeof d};
  d.vertex_count = m->vertex_count;
  d.positions.data = m->positions;
  d.triangle_count = m->triangle_count;
  d.triangles = m->triangles;
  d.bone_count = bones;
  d.bone_heads = heads;
  d.bone_tails = tails;
  d.influences_per_vertex = 2;
  return d;
}

/* joint j's weight at vertex v (fixed width k) */
static float weight_of(const uint32_t *joints, const float *weights, uint32_t k, uint32_t v, uint32_t j) {
  for (uint32_t s = 0; s < k; ++s)
    if (joints[v * k + s] == j && weights[v * k + s] > 0) return weights[v * k + s];
  return 0;
}

static const float ARM_HEADS[6] = {0, 0, 0, 1, 0, 0}, ARM_TAILS[6] = {1, 0, 0, 2, 0, 0};

START_TEST(cylinder_weights_cross_at_the_joint) {
  mesh m = {0};
  const uint32_t rings = 21, sides = 16;
  uint32_t first = cylinder(&m, 0, 2, 0.3f, rings, sides, 0);
  skn_weights_desc d = desc_of(&m, ARM_HEADS, ARM_TAILS, 2);
  d.method = (skn_weights_method)_i;
  uint32_t *joints = malloc(sizeof *joints * 2 * m.vertex_count);
  float *weights = malloc(sizeof *weights * 2 * m.vertex_count);
  ck_assert_msg(skn_compute_weights(&d, joints, weights) == SKN_OK, "%s", skn_last_error());
  double previous = -1;
  for (uint32_t k = 0; k < rings; ++k) {
    double mean = 0, x = 2.0 * k / (rings - 1);
    for (uint32_t i = 0; i < sides; ++i) {
      uint32_t v = first + k * sides + i;
      float w0 = weight_of(joints, weights, 2, v, 0), w1 = weight_of(joints, weights, 2, v, 1);
      ck_assert_msg(fabsf(w0 + w1 - 1) < 1e-6f, "vertex %u: weights sum to %g", v, (double)(w0 + w1));
      ck_assert_msg(isfinite(w0) && w0 >= 0 && w1 >= 0, "vertex %u: %g %g", v, (double)w0, (double)w1);
      /* the mirror vertex about x = 1 takes the other bone's weight */
      uint32_t mirror = first + (rings - 1 - k) * sides + i;
      ck_assert_msg(fabsf(w1 - weight_of(joints, weights, 2, mirror, 0)) < 1e-4f, "ring %u: not symmetric", k);
      mean += w1 / sides;
    }
    ck_assert_msg(mean >= previous - 1e-6, "ring %u (x = %g): bone 1's weight %g falls from %g", k, x, mean, previous);
    if (x < 0.75) ck_assert_msg(mean < 0.5, "ring %u (x = %g): bone 1 weighs %g before the joint", k, x, mean);
    if (x > 1.25) ck_assert_msg(mean > 0.5, "ring %u (x = %g): bone 1 weighs %g past the joint", k, x, mean);
    if (k == rings / 2) ck_assert_msg(fabs(mean - 0.5) < 1e-4, "the joint's ring: %g", mean);
    previous = mean;
  }
  /* far ends: all to their own bone (heat's diffusion leaves a little) */
  ck_assert_float_gt(weight_of(joints, weights, 2, first, 0), 0.9f);
  ck_assert_float_gt(weight_of(joints, weights, 2, first + (rings - 1) * sides, 1), 0.9f);
  free(joints), free(weights);
  mesh_free(&m);
}
END_TEST

/* Two cylinders, each around a bone of its own, and a loose cylinder that
 * sees neither (both bones are behind its own surface or another's): each
 * piece is solved alone, and the loose piece takes the closest bone. */
START_TEST(pieces_are_solved_apart_and_a_loose_piece_falls_back) {
  mesh m = {0};
  uint32_t a = cylinder(&m, 0, 1, 0.2f, 6, 8, 0), b = cylinder(&m, 0, 1, 0.2f, 6, 8, 1);
  uint32_t loose = cylinder(&m, 0.2f, 0.8f, 0.1f, 4, 8, 2.0f);
  uint32_t loose_end = m.vertex_count;
  const float heads[6] = {0, 0, 0, 0, 1, 0}, tails[6] = {1, 0, 0, 1, 1, 0};
  skn_weights_desc d = desc_of(&m, heads, tails, 2);
  uint32_t *joints = malloc(sizeof *joints * 2 * m.vertex_count);
  float *weights = malloc(sizeof *weights * 2 * m.vertex_count);
  ck_assert_msg(skn_compute_weights(&d, joints, weights) == SKN_OK, "%s", skn_last_error());
  for (uint32_t v = a; v < b; ++v) ck_assert_msg(weight_of(joints, weights, 2, v, 0) > 0.999f, "piece a, vertex %u", v);
  for (uint32_t v = b; v < loose; ++v) ck_assert_msg(weight_of(joints, weights, 2, v, 1) > 0.999f, "piece b, vertex %u", v);
  /* the loose piece at y = 2: bone 1 (y = 1) is nearer; closest-bone weights, (d0/d1)^4 normalized */
  for (uint32_t v = loose; v < loose_end; ++v) {
    const float *p = m.positions + 3 * v;
    double d0 = hypot(p[1], p[2]), d1 = hypot(p[1] - 1, p[2]);
    double w1 = 1 / (1 + pow(d1 / d0, 4)), got = weight_of(joints, weights, 2, v, 1);
    ck_assert_msg(fabs(got - w1) < 1e-5, "loose vertex %u: bone 1 weighs %g, want %g", v, got, w1);
  }
  free(joints), free(weights);
  mesh_free(&m);
}
END_TEST

/* A bone inside nothing, far from the mesh: no vertex has it nearest, so
 * its heat is 0 everywhere; the weights stay finite and sum to 1. */
START_TEST(a_bone_inside_nothing_weighs_nothing) {
  mesh m = {0};
  cylinder(&m, 0, 2, 0.3f, 11, 12, 0);
  const float heads[9] = {0, 0, 0, 1, 0, 0, 0, 40, 0}, tails[9] = {1, 0, 0, 2, 0, 0, 0, 41, 0};
  skn_weights_desc d = desc_of(&m, heads, tails, 3);
  d.influences_per_vertex = 3;
  uint32_t *joints = malloc(sizeof *joints * 3 * m.vertex_count);
  float *weights = malloc(sizeof *weights * 3 * m.vertex_count);
  ck_assert_msg(skn_compute_weights(&d, joints, weights) == SKN_OK, "%s", skn_last_error());
  for (uint32_t v = 0; v < m.vertex_count; ++v) {
    float sum = 0;
    for (uint32_t s = 0; s < 3; ++s) {
      ck_assert(isfinite(weights[3 * v + s]));
      sum += weights[3 * v + s];
    }
    ck_assert_msg(fabsf(sum - 1) < 1e-6f && weight_of(joints, weights, 3, v, 2) == 0, "vertex %u", v);
  }
  free(joints), free(weights);
  mesh_free(&m);
}
END_TEST

/* A long tube around a bone at one end, and below its far end a second
 * tube around a second bone: the top of the first tube's far end is
 * nearer the second bone (and it lies behind that vertex's surface, where
 * Blender's distance looks), but the ray to it leaves the first tube and
 * meets the second tube's wall facing it. Bone heat weighs that vertex by
 * its own tube's bone; closest-bone, which sees through walls, does not. */
START_TEST(a_wall_hides_the_nearest_bone) {
  mesh m = {0};
  uint32_t a = cylinder(&m, 0, 2, 0.3f, 21, 8, 0), b = cylinder(&m, 1.5f, 2.5f, 0.3f, 11, 8, -1);
  const float heads[6] = {0, 0, 0, 1.7f, -1, 0}, tails[6] = {0.3f, 0, 0, 2.3f, -1, 0};
  skn_weights_desc d = desc_of(&m, heads, tails, 2);
  uint32_t *joints = malloc(sizeof *joints * 2 * m.vertex_count);
  float *weights = malloc(sizeof *weights * 2 * m.vertex_count);
  uint32_t top = a + 19 * 8; /* ring 19 (x = 1.9), side 0 (y = +0.3) */
  const float *p = m.positions + 3 * top;
  ck_assert(fabsf(p[0] - 1.9f) < 1e-6f && fabsf(p[1] - 0.3f) < 1e-6f);
  ck_assert_msg(skn_compute_weights(&d, joints, weights) == SKN_OK, "%s", skn_last_error());
  for (uint32_t v = a; v < b; ++v)
    ck_assert_msg(weight_of(joints, weights, 2, v, 0) > 0.999f, "heat: tube vertex %u: the hidden bone weighs %g", v,
                  (double)weight_of(joints, weights, 2, v, 1));
  d.method = SKN_WEIGHTS_CLOSEST;
  ck_assert_int_eq(skn_compute_weights(&d, joints, weights), SKN_OK);
  ck_assert_msg(weight_of(joints, weights, 2, top, 1) > 0.5f, "closest: the nearer bone weighs %g",
                (double)weight_of(joints, weights, 2, top, 1));
  free(joints), free(weights);
  mesh_free(&m);
}
END_TEST

/* A glTF-style cylinder, split along a seam into vertices that share
 * positions: welded, the weights equal the unsplit mesh's; unwelded, the
 * seam's two sides are solved as the pieces they are. Threads change nothing. */
START_TEST(welding_joins_a_split_seam_and_threads_change_nothing) {
  mesh m = {0};
  const uint32_t rings = 11, sides = 12;
  uint32_t first = cylinder(&m, 0, 2, 0.3f, rings, sides, 0);
  skn_weights_desc d = desc_of(&m, ARM_HEADS, ARM_TAILS, 2);
  uint32_t n = m.vertex_count;
  uint32_t *j1 = malloc(sizeof *j1 * 2 * n), *j2 = malloc(sizeof *j2 * 2 * n);
  float *w1 = malloc(sizeof *w1 * 2 * n), *w2 = malloc(sizeof *w2 * 2 * n);
  d.threads = 1;
  ck_assert_int_eq(skn_compute_weights(&d, j1, w1), SKN_OK);
  d.threads = 2;
  ck_assert_int_eq(skn_compute_weights(&d, j2, w2), SKN_OK);
  ck_assert(memcmp(j1, j2, sizeof *j1 * 2 * n) == 0 && memcmp(w1, w2, sizeof *w1 * 2 * n) == 0);
  /* split: every triangle using a vertex of the seam (i = 0) on the last side takes a copy */
  mesh split = m;
  split.positions = malloc(sizeof(float) * 3 * n), split.triangles = malloc(sizeof(uint32_t) * 3 * m.triangle_count);
  memcpy(split.positions, m.positions, sizeof(float) * 3 * n);
  memcpy(split.triangles, m.triangles, sizeof(uint32_t) * 3 * m.triangle_count);
  uint32_t *copy = calloc(n, sizeof *copy);
  for (uint32_t k = 0; k < rings; ++k) {
    uint32_t v = first + k * sides;
    const float *p = m.positions + 3 * v;
    copy[v] = add_vertex(&split, p[0], p[1], p[2]);
  }
  for (uint32_t t = 0; t < split.triangle_count; ++t) {
    uint32_t *c = split.triangles + 3 * t;
    int last_side = 0;
    for (int k = 0; k < 3; ++k) last_side |= c[k] < first + rings * sides && (c[k] - first) % sides == sides - 1;
    for (int k = 0; k < 3 && last_side; ++k)
      if (copy[c[k]] && c[k] < first + rings * sides) c[k] = copy[c[k]];
  }
  skn_weights_desc ds = desc_of(&split, ARM_HEADS, ARM_TAILS, 2);
  ds.flags = SKN_WEIGHTS_WELD;
  uint32_t *js = malloc(sizeof *js * 2 * split.vertex_count);
  float *ws = malloc(sizeof *ws * 2 * split.vertex_count);
  ck_assert_msg(skn_compute_weights(&ds, js, ws) == SKN_OK, "%s", skn_last_error());
  for (uint32_t v = 0; v < split.vertex_count; ++v) {
    uint32_t o = v < n ? v : first + (v - n) * sides;
    for (uint32_t j = 0; j < 2; ++j)
      ck_assert_msg(fabsf(weight_of(js, ws, 2, v, j) - weight_of(j1, w1, 2, o, j)) < 1e-5f,
                    "welded vertex %u (of %u), joint %u: %g, unsplit %g", v, o, j, (double)weight_of(js, ws, 2, v, j),
                    (double)weight_of(j1, w1, 2, o, j));
  }
  free(copy), free(js), free(ws), free(j1), free(j2), free(w1), free(w2);
  mesh_free(&split), mesh_free(&m);
}
END_TEST

/* SKN_WEIGHTS_AS_BLENDER: Blender's stored values, not normalized; a
 * joint of two bones (B-Bone segments) sums them and keeps none under 0.025. */
START_TEST(blender_store_rule) {
  mesh m = {0};
  cylinder(&m, 0, 2, 0.3f, 21, 12, 0);
  const float heads[9] = {0, 0, 0, 1, 0, 0, 1.5f, 0, 0}, tails[9] = {1, 0, 0, 1.5f, 0, 0, 2, 0, 0};
  const uint32_t bone_joints[3] = {0, 1, 1};
  skn_weights_desc d = desc_of(&m, heads, tails, 3);
  d.bone_joints = bone_joints, d.joint_count = 2, d.flags = SKN_WEIGHTS_AS_BLENDER;
  uint32_t *joints = malloc(sizeof *joints * 2 * m.vertex_count);
  float *weights = malloc(sizeof *weights * 2 * m.vertex_count);
  ck_assert_msg(skn_compute_weights(&d, joints, weights) == SKN_OK, "%s", skn_last_error());
  int unnormalized = 0;
  for (uint32_t v = 0; v < m.vertex_count; ++v) {
    float sum = 0;
    for (uint32_t s = 0; s < 2; ++s) {
      float w = weights[2 * v + s]; /* the two-bone joint: 0 or at least 0.025; the other's 2u - 0.05 may be less */
      ck_assert_msg(w == 0 || (w > 0 && w <= 1 && (joints[2 * v + s] == 0 || w >= 0.025f)), "vertex %u: %g", v,
                    (double)w);
      sum += w;
    }
    unnormalized |= fabsf(sum - 1) > 1e-3f;
  }
  ck_assert_msg(unnormalized, "AS_BLENDER normalized every vertex");
  free(joints), free(weights);
  mesh_free(&m);
}
END_TEST

typedef struct bad_case {
  const char *what, *message; /* message: a part skn_last_error() must hold */
  skn_status status;
} bad_case;

/* Every bad input: the status, the message naming the item, outputs untouched. */
START_TEST(bad_input_is_refused_and_nothing_is_written) {
  mesh m = {0};
  cylinder(&m, 0, 2, 0.3f, 4, 6, 0);
  float heads[6], tails[6];
  uint32_t bone_joints[2] = {0, 1};
  uint32_t *joints = malloc(sizeof *joints * 2 * m.vertex_count);
  float *weights = malloc(sizeof *weights * 2 * m.vertex_count);
  static const bad_case cases[] = {
      {"degenerate", "triangle 3: degenerate, vertex", SKN_ERR_INVALID_ARGUMENT},
      {"out of range", "triangle 2: vertex 999 is out of range", SKN_ERR_INDEX_OUT_OF_RANGE},
      {"non-manifold", "is in 3 triangles (non-manifold", SKN_ERR_INVALID_ARGUMENT},
      {"zero-length bone", "bone 1: zero length", SKN_ERR_INVALID_ARGUMENT},
      {"no bone", "bone_count is 0", SKN_ERR_INVALID_ARGUMENT},
      {"bone joint", "bone 1: joint 7 is out of range", SKN_ERR_INDEX_OUT_OF_RANGE},
      {"NaN position", "vertex 5: its position is not finite", SKN_ERR_NOT_FINITE},
      {"NaN bone", "bone 0: its head or tail is not finite", SKN_ERR_NOT_FINITE},
      {"no triangles", "bone heat needs the mesh's triangles", SKN_ERR_INVALID_ARGUMENT},
      {"bad method", "method 9", SKN_ERR_INVALID_ARGUMENT},
      {"bad flags", "flags 0x100", SKN_ERR_INVALID_ARGUMENT},
      {"min weight", "min_weight", SKN_ERR_INVALID_ARGUMENT},
      {"joint_count", "joint_count 1 is less than bone_count 2", SKN_ERR_INVALID_ARGUMENT},
      {"struct_size", "struct_size 8", SKN_ERR_INVALID_ARGUMENT},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
    memcpy(heads, ARM_HEADS, sizeof heads), memcpy(tails, ARM_TAILS, sizeof tails);
    mesh t = m;
    t.positions = malloc(sizeof(float) * 3 * m.vertex_count), t.triangles = malloc(sizeof(uint32_t) * 3 * (m.triangle_count + 1));
    memcpy(t.positions, m.positions, sizeof(float) * 3 * m.vertex_count);
    memcpy(t.triangles, m.triangles, sizeof(uint32_t) * 3 * m.triangle_count);
    skn_weights_desc d = desc_of(&t, heads, tails, 2);
    const char *w = cases[c].what;
    if (!strcmp(w, "degenerate")) t.triangles[3 * 3 + 2] = t.triangles[3 * 3];
    if (!strcmp(w, "out of range")) t.triangles[2 * 3 + 1] = 999;
    if (!strcmp(w, "non-manifold")) { /* triangle 0 once more, reversed: its edges in three triangles */
      uint32_t *n = t.triangles + 3 * t.triangle_count;
      n[0] = t.triangles[1], n[1] = t.triangles[0], n[2] = t.triangles[2];
      d.triangle_count = t.triangle_count + 1;
    }
    if (!strcmp(w, "zero-length bone")) memcpy(tails + 3, heads + 3, 12);
    if (!strcmp(w, "no bone")) d.bone_count = 0;
    if (!strcmp(w, "bone joint")) bone_joints[1] = 7, d.bone_joints = bone_joints, d.joint_count = 2;
    if (!strcmp(w, "NaN position")) t.positions[3 * 5 + 1] = NAN;
    if (!strcmp(w, "NaN bone")) heads[2] = INFINITY;
    if (!strcmp(w, "no triangles")) d.triangle_count = 0;
    if (!strcmp(w, "bad method")) d.method = (skn_weights_method)9;
    if (!strcmp(w, "bad flags")) d.flags = 0x100;
    if (!strcmp(w, "min weight")) d.min_weight = -1;
    if (!strcmp(w, "joint_count")) d.joint_count = 1;
    if (!strcmp(w, "struct_size")) d.struct_size = 8;
    memset(joints, 0xAB, sizeof *joints * 2 * m.vertex_count);
    memset(weights, 0xAB, sizeof *weights * 2 * m.vertex_count);
    skn_status s = skn_compute_weights(&d, joints, weights);
    ck_assert_msg(s == cases[c].status, "%s: %s, want %s (%s)", w, skn_status_name(s), skn_status_name(cases[c].status),
                  skn_last_error());
    ck_assert_msg(strstr(skn_last_error(), cases[c].message), "%s: \"%s\" lacks \"%s\"", w, skn_last_error(),
                  cases[c].message);
    for (size_t k = 0; k < 2 * (size_t)m.vertex_count; ++k) {
      uint32_t wbits;
      memcpy(&wbits, weights + k, 4);
      ck_assert_msg(joints[k] == 0xABABABABu && wbits == 0xABABABABu, "%s: the output was written", w);
    }
    bone_joints[1] = 1;
    free(t.positions), free(t.triangles);
  }
  /* the non-manifold mesh is accepted with the flag, as Blender accepts it */
  mesh t = m;
  t.triangles = malloc(sizeof(uint32_t) * 3 * (m.triangle_count + 1));
  memcpy(t.triangles, m.triangles, sizeof(uint32_t) * 3 * m.triangle_count);
  uint32_t *n = t.triangles + 3 * t.triangle_count++;
  n[0] = t.triangles[1], n[1] = t.triangles[0], n[2] = t.triangles[2];
  skn_weights_desc d = desc_of(&t, ARM_HEADS, ARM_TAILS, 2);
  d.flags = SKN_WEIGHTS_NON_MANIFOLD;
  ck_assert_msg(skn_compute_weights(&d, joints, weights) == SKN_OK, "%s", skn_last_error());
  free(t.triangles), free(joints), free(weights);
  mesh_free(&m);
}
END_TEST

Suite *suite_weights(void) {
  Suite *s = suite_create("weights");
  TCase *tc = tcase_create("weights");
  tcase_set_timeout(tc, 120);
  tcase_add_loop_test(tc, cylinder_weights_cross_at_the_joint, SKN_WEIGHTS_HEAT, SKN_WEIGHTS_CLOSEST + 1);
  tcase_add_test(tc, pieces_are_solved_apart_and_a_loose_piece_falls_back);
  tcase_add_test(tc, a_wall_hides_the_nearest_bone);
  tcase_add_test(tc, a_bone_inside_nothing_weighs_nothing);
  tcase_add_test(tc, welding_joins_a_split_seam_and_threads_change_nothing);
  tcase_add_test(tc, blender_store_rule);
  tcase_add_test(tc, bad_input_is_refused_and_nothing_is_written);
  suite_add_tcase(s, tc);
  return s;
}
