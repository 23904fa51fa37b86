/* testlib.h — what the unit suites share: random rigs, procedural meshes,
 * and an independent double-precision reference written straight from the
 * formulas (its own FK, inverse and blending), never from the library's code. */
#ifndef SKN_TESTLIB_H
#define SKN_TESTLIB_H

#include <check.h>
#include <stdint.h>

#include "skn.h"

/* ---- suites (one per file) ---- */
Suite *suite_bind(void);
Suite *suite_pose(void);
Suite *suite_lbs(void);
Suite *suite_methods(void);
Suite *suite_errors(void);
Suite *suite_gltf(void);
Suite *suite_kernels(void);
Suite *suite_compact(void);
Suite *suite_gpu(void);
Suite *suite_hostile(void);
Suite *suite_alloc(void);
Suite *suite_morph(void);
Suite *suite_weights(void);

/* ---- random numbers (xorshift64*, reproducible per seed) ---- */
typedef struct rng { uint64_t s; } rng;
double rng_uniform(rng *r, double lo, double hi);
uint32_t rng_below(rng *r, uint32_t n);
void rng_quat(rng *r, float q[4]);

/* ---- double-precision matrices, column-major like the ABI ---- */
void dm_identity(double m[16]);
void dm_mul(double r[16], const double a[16], const double b[16]);
void dm_trs(double m[16], const float t[3], const float q[4], const float s[3]);
void dm_invert(double r[16], const double m[16]); /* general 4x4, Gauss-Jordan */
void dm_apply(double r[3], const double m[16], const double p[3], double w);

/* ---- a test rig: everything skn_bind needs, owned by the struct ---- */
typedef struct test_rig {
  uint32_t joint_count, vertex_count, k; /* k: fixed influences per vertex */
  int32_t *parents;
  float *bind;        /* joint->model at bind, 16 per joint */
  float *positions, *normals, *tangents;
  uint32_t *joints;
  float *weights;
  skn_transform *pose; /* a posed local transform per joint */
  double size;         /* the model's size: bounding-box diagonal */
} test_rig;

/* Random hierarchy (parents in random order), random bind pose, vertices in
 * the rig's neighbourhood with unit normals and tangents, k influences each
 * with random positive weights. scale_mode: 0 rigid, 1 uniform scale per
 * joint, 2 non-uniform scale per joint. */
void test_rig_random(test_rig *t, uint64_t seed, uint32_t joints, uint32_t vertices, uint32_t k,
                     int scale_mode);
void test_rig_free(test_rig *t);
skn_bind_desc test_rig_desc(const test_rig *t); /* bind matrices, fixed-width influences */

/* test_rig_random, bound as test_rig_desc describes it, with a pose set to
 * t->pose in *pose. */
skn_rig *posed_random_rig(test_rig *t, uint64_t seed, uint32_t joints, uint32_t vertices, uint32_t k,
                          int scale_mode, skn_pose **pose);

/* The reference: world matrices of t->pose by FK and v = sum w_i M_i v0 (and
 * normals by the inverse-transpose), in double, for vertex v; weights
 * normalized by their sum. */
void ref_palette(const test_rig *t, double (*palette)[16]);
void ref_lbs_vertex(const test_rig *t, double (*palette)[16], uint32_t v, double p[3], double n[3]);

/* ---- small helpers ---- */
double max_abs_diff(const float *a, const float *b, size_t n);
skn_rig *bind_or_fail(const skn_bind_desc *d);
skn_pose *pose_or_fail(const skn_rig *rig);
void skin_or_fail(const skn_rig *rig, const skn_pose *pose, skn_method method, float *pos, float *nrm,
                  float *tan);
skn_transform transform_identity(void);
void quat_axis_angle(float q[4], double x, double y, double z, double radians);

#endif
