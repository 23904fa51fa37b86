/* test_methods.c — DQS, BLEND and COR: the candy wrapper, the bend, one
 * shared transform, and an independent double-precision reference of DQS
 * and COR written here straight from the papers' formulas (its own polar
 * decomposition by Jacobi eigenvectors, its own quaternions, the naive
 * O(vertices x triangles) sum for the centers of rotation). */
#include "testlib.h"

#include "arm.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979323846

/* ---- the reference ---- */

/* Eigenvectors (columns of v) and values of a symmetric 3x3, by Jacobi rotations. */
static void jacobi3(double a[3][3], double v[3][3], double e[3]) {
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) v[i][j] = i == j;
  for (int sweep = 0; sweep < 50; ++sweep)
    for (int p = 0; p < 2; ++p)
      for (int q = p + 1; q < 3; ++q) {
        if (fabs(a[p][q]) < 1e-300) continue;
        double th = (a[q][q] - a[p][p]) / (2 * a[p][q]);
        double t = (th >= 0 ? 1 : -1) / (fabs(th) + sqrt(th * th + 1)), c = 1 / sqrt(t * t + 1), s = t * c;
        for (int k = 0; k < 3; ++k) { /* A <- J^T A J */
          double akp = a[k][p], akq = a[k][q];
          a[k][p] = c * akp - s * akq;
          a[k][q] = s * akp + c * akq;
        }
        for (int k = 0; k < 3; ++k) {
          double apk = a[p][k], aqk = a[q][k];
          a[p][k] = c * apk - s * aqk;
          a[q][k] = s * apk + c * aqk;
        }
        for (int k = 0; k < 3; ++k) {
          double vkp = v[k][p], vkq = v[k][q];
          v[k][p] = c * vkp - s * vkq;
          v[k][q] = s * vkp + c * vkq;
        }
      }
  for (int i = 0; i < 3; ++i) e[i] = a[i][i];
}

/* 3x3 as r[row][col] from a column-major 4x4. */
static void upper3(double r[3][3], const double m[16]) {
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) r[i][j] = m[j * 4 + i];
}

/* R = A (A^T A)^-1/2, of -A where det A < 0 so that R is a rotation. */
static void ref_polar(double r[3][3], double a[3][3]) {
  double det = a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0]) +
               a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]);
  double b[3][3], g[3][3], v[3][3], e[3], h[3][3];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) b[i][j] = det < 0 ? -a[i][j] : a[i][j];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) g[i][j] = b[0][i] * b[0][j] + b[1][i] * b[1][j] + b[2][i] * b[2][j];
  jacobi3(g, v, e);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      h[i][j] = 0;
      for (int k = 0; k < 3; ++k) h[i][j] += v[i][k] * v[j][k] / sqrt(e[k]);
    }
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) r[i][j] = b[i][0] * h[0][j] + b[i][1] * h[1][j] + b[i][2] * h[2][j];
}

/* Blender's orthogonalize_m4(m, 1) rule, from its description in skn.h. */
static void cross3(double r[3], const double a[3], const double b[3]) {
  r[0] = a[1] * b[2] - a[2] * b[1];
  r[1] = a[2] * b[0] - a[0] * b[2];
  r[2] = a[0] * b[1] - a[1] * b[0];
}
static void unit3(double v[3]) {
  double l = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  for (int c = 0; c < 3; ++c) v[c] /= l;
}
static void ref_keep_y(double r[3][3], double a[3][3]) {
  double x[3] = {a[0][0], a[1][0], a[2][0]}, y[3] = {a[0][1], a[1][1], a[2][1]}, z[3] = {a[0][2], a[1][2], a[2][2]};
  unit3(y);
  if (x[0] * y[0] + x[1] * y[1] + x[2] * y[2] < 1) { /* keep X's plane */
    cross3(z, x, y);
    unit3(z);
    cross3(x, y, z);
  } else if (x[0] * z[0] + x[1] * z[1] + x[2] * z[2] < 1) { /* keep Z's plane */
    cross3(x, y, z);
    unit3(x);
    cross3(z, x, y);
  } else {
    double p[3] = {y[1], y[2], y[0]};
    cross3(x, y, p);
    unit3(x);
    cross3(z, x, y);
  }
  for (int i = 0; i < 3; ++i) {
    r[i][0] = x[i];
    r[i][1] = y[i];
    r[i][2] = z[i];
  }
}

/* Quaternion {x,y,z,w} of a rotation: magnitudes from the diagonal, signs
 * from the antisymmetric part. */
static void ref_quat(double q[4], double r[3][3]) {
  q[3] = 0.5 * sqrt(fmax(0, 1 + r[0][0] + r[1][1] + r[2][2]));
  q[0] = copysign(0.5 * sqrt(fmax(0, 1 + r[0][0] - r[1][1] - r[2][2])), r[2][1] - r[1][2]);
  q[1] = copysign(0.5 * sqrt(fmax(0, 1 - r[0][0] + r[1][1] - r[2][2])), r[0][2] - r[2][0]);
  q[2] = copysign(0.5 * sqrt(fmax(0, 1 - r[0][0] - r[1][1] + r[2][2])), r[1][0] - r[0][1]);
}

static void quat_mul(double r[4], const double a[4], const double b[4]) {
  double t[4] = {a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
                 a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
                 a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
                 a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2]};
  memcpy(r, t, sizeof t);
}

static void quat_rotate(double r[3], const double q[4], const double v[3]) {
  double p[4] = {v[0], v[1], v[2], 0}, c[4] = {-q[0], -q[1], -q[2], q[3]}, t[4];
  quat_mul(t, q, p);
  quat_mul(t, t, c);
  memcpy(r, t, 3 * sizeof(double));
}

/* A joint's split (skn.h, skn_dqs_scale): rotation quaternion, dual part,
 * and S as rows of a 3x4. */
typedef struct ref_joint { double q[4], dual[4], s[3][4]; } ref_joint;

static void ref_split(ref_joint *j, const double m[16], const float *bind, int split) {
  double a[3][3], g = 0;
  upper3(a, m);
  for (int i = 0; i < 3; ++i)
    for (int k = 0; k < 3; ++k) {
      double d = a[0][i] * a[0][k] + a[1][i] * a[1][k] + a[2][i] * a[2][k] - (i == k);
      g = fmax(g, fabs(d));
    }
  double det = a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0]) +
               a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]);
  double rm[3][3], t[3], c[3] = {bind[12], bind[13], bind[14]};
  if (g <= 1e-4 && det > 0) {
    memcpy(rm, a, sizeof rm);
    for (int i = 0; i < 3; ++i) t[i] = m[12 + i];
  } else {
    double b16[16], w16[16], w[3][3], b[3][3], rw[3][3], rb[3][3];
    for (int e = 0; e < 16; ++e) b16[e] = bind[e];
    dm_mul(w16, m, b16);
    upper3(w, w16);
    upper3(b, b16);
    if (split == SKN_DQS_SCALE_KEEP_Y) {
      ref_keep_y(rw, w);
      ref_keep_y(rb, b);
    } else {
      ref_polar(rw, w);
      ref_polar(rb, b);
    }
    for (int i = 0; i < 3; ++i) /* Rm = Rw Rb^T */
      for (int k = 0; k < 3; ++k) rm[i][k] = rw[i][0] * rb[k][0] + rw[i][1] * rb[k][1] + rw[i][2] * rb[k][2];
    for (int i = 0; i < 3; ++i) t[i] = w16[12 + i] - (rm[i][0] * c[0] + rm[i][1] * c[1] + rm[i][2] * c[2]);
  }
  /* S = rigid^-1 M: x -> Rm^T (M x - t) */
  for (int i = 0; i < 3; ++i) {
    for (int k = 0; k < 4; ++k) {
      double mk[3] = {m[k * 4], m[k * 4 + 1], m[k * 4 + 2]};
      if (k == 3)
        for (int r = 0; r < 3; ++r) mk[r] -= t[r];
      j->s[i][k] = rm[0][i] * mk[0] + rm[1][i] * mk[1] + rm[2][i] * mk[2];
    }
  }
  ref_quat(j->q, rm);
  double tq[4] = {t[0], t[1], t[2], 0};
  quat_mul(j->dual, tq, j->q);
  for (int k = 0; k < 4; ++k) j->dual[k] *= 0.5;
}

/* Kavan 2008 with scale (their §4.1): v = c(S v0), normals R(c) S^-T n0. */
static void ref_dqs_vertex(const test_rig *t, const ref_joint *joints, uint32_t v, double p[3], double n[3]) {
  double b0[4] = {0}, be[4] = {0}, s[3][4] = {{0}}, wsum = 0;
  for (uint32_t i = 0; i < t->k; ++i) {
    const ref_joint *j = &joints[t->joints[v * t->k + i]];
    double w = t->weights[v * t->k + i], dot = 0;
    for (int k = 0; k < 4; ++k) dot += b0[k] * j->q[k];
    double sw = dot < 0 ? -w : w;
    for (int k = 0; k < 4; ++k) {
      b0[k] += sw * j->q[k];
      be[k] += sw * j->dual[k];
    }
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 4; ++c) s[r][c] += w * j->s[r][c];
    wsum += w;
  }
  double len = sqrt(b0[0] * b0[0] + b0[1] * b0[1] + b0[2] * b0[2] + b0[3] * b0[3]);
  for (int k = 0; k < 4; ++k) {
    b0[k] /= len;
    be[k] /= len;
  }
  double x[3], nx[3], conj[4] = {-b0[0], -b0[1], -b0[2], b0[3]}, tr[4];
  const float *v0 = t->positions + v * 3, *n0 = t->normals + v * 3;
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 4; ++c) s[r][c] /= wsum;
    x[r] = s[r][0] * v0[0] + s[r][1] * v0[1] + s[r][2] * v0[2] + s[r][3];
  }
  quat_rotate(p, b0, x);
  quat_mul(tr, be, conj);
  for (int c = 0; c < 3; ++c) p[c] += 2 * tr[c];
  /* S^-T n0 by solving: the inverse of S's 3x3 through dm_invert */
  double s16[16] = {s[0][0], s[1][0], s[2][0], 0, s[0][1], s[1][1], s[2][1], 0, s[0][2], s[1][2], s[2][2], 0, 0, 0, 0, 1}, inv[16];
  dm_invert(inv, s16);
  for (int c = 0; c < 3; ++c) nx[c] = inv[c * 4] * n0[0] + inv[c * 4 + 1] * n0[1] + inv[c * 4 + 2] * n0[2];
  quat_rotate(n, b0, nx);
  double nl = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
  for (int c = 0; c < 3; ++c) n[c] /= nl;
}

/* ---- tests ---- */

static skn_rig *bind_arm(const skn_arm *arm) {
  skn_bind_desc d = skn_arm_desc(arm);
  return bind_or_fail(&d);
}

static void skin_arm(skn_rig *rig, skn_pose *pose, const skn_arm *arm, double bend, double twist, skn_method m,
                     float *out) {
  skn_transform elbow = skn_arm_elbow(arm, bend, twist);
  ck_assert_int_eq(skn_pose_set_local(pose, 1, 1, &elbow), SKN_OK);
  skin_or_fail(rig, pose, m, out, NULL, NULL);
}

/* A cylinder twisted 180° across the elbow: LBS collapses the middle ring
 * onto the bone; DQS and COR keep every ring's radius within 0.1%. */
START_TEST(candy_wrapper) {
  skn_arm arm;
  ck_assert(skn_arm_make(&arm, 41, 32, 0.25f));
  skn_rig *rig = bind_arm(&arm);
  skn_pose *pose = pose_or_fail(rig);
  float *out = malloc(arm.vertex_count * 3 * sizeof(float));
  skin_arm(rig, pose, &arm, 0, PI, SKN_METHOD_LBS_MATRIX, out);
  double lbs_mid = skn_arm_ring_radius(&arm, out, arm.rings / 2);
  printf("candy wrapper, 180° twist: LBS mid-joint radius %.4f of rest\n", lbs_mid);
  ck_assert_double_lt(lbs_mid, 0.01);
  const skn_method keep[2] = {SKN_METHOD_DQS, SKN_METHOD_COR};
  for (int m = 0; m < 2; ++m) {
    skin_arm(rig, pose, &arm, 0, PI, keep[m], out);
    double worst = 0;
    for (uint32_t r = 0; r < arm.rings; ++r) worst = fmax(worst, fabs(skn_arm_ring_radius(&arm, out, r) - 1));
    printf("candy wrapper, 180° twist: %s rings within %.2e of rest radius\n", m ? "COR" : "DQS", worst);
    ck_assert_double_le(worst, 1e-3);
  }
  free(out);
  skn_pose_destroy(pose);
  skn_rig_destroy(rig);
  skn_arm_free(&arm);
}
END_TEST

/* A cylinder bent 90°: LBS loses volume; DQS keeps it but bulges at the
 * joint's outside; COR bulges less (Le & Hodgins 2016, §1 and fig. 2). */
START_TEST(bend_volume_and_bulge) {
  skn_arm arm;
  ck_assert(skn_arm_make(&arm, 41, 32, 0.25f));
  skn_rig *rig = bind_arm(&arm);
  skn_pose *pose = pose_or_fail(rig);
  float *out = malloc(arm.vertex_count * 3 * sizeof(float));
  const skn_method methods[3] = {SKN_METHOD_LBS_MATRIX, SKN_METHOD_DQS, SKN_METHOD_COR};
  const char *names[3] = {"LBS", "DQS", "COR"};
  double volume[3], bulge[3], rest = skn_arm_volume(&arm, arm.positions);
  for (int m = 0; m < 3; ++m) {
    skin_arm(rig, pose, &arm, PI / 2, 0, methods[m], out);
    volume[m] = skn_arm_volume(&arm, out) / rest - 1;
    bulge[m] = skn_arm_bulge(&arm, out, PI / 2) - 1;
    printf("bend 90°: %s volume change %+.2f%%, bulge past the radius %+.2f%%\n", names[m], 100 * volume[m],
           100 * bulge[m]);
  }
  ck_assert_double_lt(volume[0], volume[1]); /* LBS loses more volume than DQS ... */
  ck_assert_double_lt(volume[0], volume[2]); /* ... and than COR */
  ck_assert_double_lt(volume[0], -0.02);
  ck_assert_double_lt(bulge[2], bulge[1]);   /* COR bulges less than DQS */
  free(out);
  skn_pose_destroy(pose);
  skn_rig_destroy(rig);
  skn_arm_free(&arm);
}
END_TEST

/* Random triangles over a test rig, for COR. */
static uint32_t *random_triangles(const test_rig *t, uint32_t count, uint64_t seed) {
  rng r = {seed};
  uint32_t *tris = malloc(count * 3 * sizeof *tris);
  for (uint32_t i = 0; i < count * 3; ++i) tris[i] = rng_below(&r, t->vertex_count);
  return tris;
}

/* Poses every joint so that all M_i equal m: W_i = m W_i^R. */
static void pose_all(skn_pose *pose, const test_rig *t, const double m[16]) {
  float *world = malloc(t->joint_count * 16 * sizeof(float));
  for (uint32_t j = 0; j < t->joint_count; ++j) {
    double b[16], w[16];
    for (int e = 0; e < 16; ++e) b[e] = t->bind[j * 16 + e];
    dm_mul(w, m, b);
    for (int e = 0; e < 16; ++e) world[j * 16 + e] = (float)w[e];
  }
  ck_assert_int_eq(skn_pose_set_model(pose, 0, t->joint_count, world), SKN_OK);
  free(world);
}

/* Every method gives m v0 and m^-T n0 when every joint shares the transform
 * m: a rotation, a uniform scale, and (POLAR) a shear. */
START_TEST(one_shared_transform) {
  test_rig t;
  uint32_t nv = 300;
  test_rig_random(&t, 61, 12, nv, 4, 0);
  uint32_t *tris = random_triangles(&t, 600, 5);
  float *blend = malloc(nv * sizeof(float));
  for (uint32_t v = 0; v < nv; ++v) blend[v] = (float)(v % 11) / 10.0f;
  skn_bind_desc d = test_rig_desc(&t);
  d.triangles = tris;
  d.triangle_count = 600;
  d.blend_weights = blend;
  skn_rig *rig = bind_or_fail(&d);
  skn_pose *pose = pose_or_fail(rig);
  float q[4];
  quat_axis_angle(q, 1, 2, -0.5, 2.2);
  const float t0[3] = {0.3f, -1, 2}, unit[3] = {1, 1, 1}, uniform[3] = {1.7f, 1.7f, 1.7f};
  double m[3][16], shear[16];
  dm_trs(m[0], t0, q, unit);
  dm_trs(m[1], t0, q, uniform);
  dm_identity(shear);
  shear[4] = 0.6; /* x += 0.6 y */
  shear[0] = 1.3;
  dm_mul(m[2], m[1], shear);
  float *p = malloc(nv * 3 * sizeof(float)), *n = malloc(nv * 3 * sizeof(float));
  for (int k = 0; k < 3; ++k) {
    pose_all(pose, &t, m[k]);
    double inv[16];
    dm_invert(inv, m[k]);
    for (int method = SKN_METHOD_LBS_MATRIX; method <= SKN_METHOD_COR; ++method)
      for (int split = 0; split < 2; ++split) {
        if ((method == SKN_METHOD_LBS_QUATERNION || split == SKN_DQS_SCALE_KEEP_Y) && k == 2) continue;
        skn_skin_desc s = {sizeof s};
        s.method = (skn_method)method;
        s.dqs_scale = (skn_dqs_scale)split;
        s.positions.data = p;
        s.normals.data = n;
        ck_assert_int_eq(skn_skin(rig, pose, &s), SKN_OK);
        double worst_p = 0, worst_n = 0;
        for (uint32_t v = 0; v < nv; ++v) {
          double p0[3] = {t.positions[v * 3], t.positions[v * 3 + 1], t.positions[v * 3 + 2]}, want[3], wn[3], len = 0;
          dm_apply(want, m[k], p0, 1);
          for (int c = 0; c < 3; ++c) {
            wn[c] = inv[c * 4] * t.normals[v * 3] + inv[c * 4 + 1] * t.normals[v * 3 + 1] + inv[c * 4 + 2] * t.normals[v * 3 + 2];
            len += wn[c] * wn[c];
          }
          for (int c = 0; c < 3; ++c) {
            worst_p = fmax(worst_p, fabs(p[v * 3 + c] - want[c]));
            worst_n = fmax(worst_n, fabs(n[v * 3 + c] - wn[c] / sqrt(len)));
          }
        }
        ck_assert_msg(worst_p <= 1e-5 * t.size && worst_n <= 1e-4, "transform %d, method %d, split %d: %g %g", k,
                      method, split, worst_p, worst_n);
      }
  }
  free(p);
  free(n);
  free(tris);
  free(blend);
  skn_pose_destroy(pose);
  skn_rig_destroy(rig);
  test_rig_free(&t);
}
END_TEST

/* The library's DQS against the reference above, on random rigs: rigid,
 * uniformly scaled and non-uniformly scaled (bind and pose), both splits,
 * 1 to 8 influences. */
START_TEST(dqs_matches_reference) {
  for (int scale_mode = 0; scale_mode <= 2; ++scale_mode)
    for (int split = 0; split < 2; ++split)
      for (uint32_t k = 1; k <= 8; k += 3) {
        test_rig t;
        uint32_t nv = 300;
        skn_pose *pose;
        skn_rig *rig = posed_random_rig(&t, 700 + scale_mode * 10 + k, 10, nv, k, scale_mode, &pose);
        double (*pal)[16] = malloc(t.joint_count * sizeof *pal);
        ref_joint *rj = malloc(t.joint_count * sizeof *rj);
        ref_palette(&t, pal);
        for (uint32_t j = 0; j < t.joint_count; ++j) ref_split(&rj[j], pal[j], t.bind + j * 16, split);
        float *p = malloc(nv * 3 * sizeof(float)), *n = malloc(nv * 3 * sizeof(float));
        skn_skin_desc s = {sizeof s};
        s.method = SKN_METHOD_DQS;
        s.dqs_scale = (skn_dqs_scale)split;
        s.positions.data = p;
        s.normals.data = n;
        ck_assert_int_eq(skn_skin(rig, pose, &s), SKN_OK);
        double worst_p = 0, worst_n = 0;
        for (uint32_t v = 0; v < nv; ++v) {
          double rp[3], rn[3];
          ref_dqs_vertex(&t, rj, v, rp, rn);
          for (int c = 0; c < 3; ++c) {
            worst_p = fmax(worst_p, fabs(p[v * 3 + c] - rp[c]));
            worst_n = fmax(worst_n, fabs(n[v * 3 + c] - rn[c]));
          }
        }
        ck_assert_msg(worst_p <= 1e-5 * t.size, "scale %d split %d k %u: positions off by %g (size %g)",
                      scale_mode, split, k, worst_p, t.size);
        ck_assert_msg(worst_n <= 1e-4, "scale %d split %d k %u: normals off by %g", scale_mode, split, k, worst_n);
        free(p);
        free(n);
        free(pal);
        free(rj);
        skn_pose_destroy(pose);
        skn_rig_destroy(rig);
        test_rig_free(&t);
      }
}
END_TEST

/* One influence: DQS is M v0 (sheared rigs too); rigid poses: the two
 * splits give the same bytes. */
START_TEST(dqs_single_influence_and_rigid_splits) {
  test_rig t;
  uint32_t nv = 200;
  skn_pose *pose;
  skn_rig *rig = posed_random_rig(&t, 81, 8, nv, 1, 2, &pose);
  float lbs[600], dqs[600];
  skin_or_fail(rig, pose, SKN_METHOD_LBS_MATRIX, lbs, NULL, NULL);
  for (int split = 0; split < 2; ++split) {
    skn_skin_desc s = {sizeof s};
    s.method = SKN_METHOD_DQS;
    s.dqs_scale = (skn_dqs_scale)split;
    s.positions.data = dqs;
    ck_assert_int_eq(skn_skin(rig, pose, &s), SKN_OK);
    ck_assert_double_le(max_abs_diff(lbs, dqs, 600), 1e-5 * t.size);
  }
  skn_pose_destroy(pose);
  skn_rig_destroy(rig);
  test_rig_free(&t);

  rig = posed_random_rig(&t, 82, 8, nv, 4, 0, &pose); /* rigid */
  float polar[600], keep_y[600];
  skn_skin_desc s = {sizeof s};
  s.method = SKN_METHOD_DQS;
  s.positions.data = polar;
  ck_assert_int_eq(skn_skin(rig, pose, &s), SKN_OK);
  s.dqs_scale = SKN_DQS_SCALE_KEEP_Y;
  s.positions.data = keep_y;
  ck_assert_int_eq(skn_skin(rig, pose, &s), SKN_OK);
  ck_assert_mem_eq(polar, keep_y, sizeof polar);
  skn_pose_destroy(pose);
  skn_rig_destroy(rig);
  test_rig_free(&t);
}
END_TEST

/* Where DQS takes a joint as a rotation (skn_dqs_scale): M's 3x3 a rotation
 * within 5e-6 (A^T A = I element by element), the float rounding composed
 * rotations leave; any scale past it is kept. One joint stretched along y
 * by 1 + e, a vertex 10 along y weighted to it alone: kept, it lands at
 * 10 (1 + e) as LBS puts it; taken as a rotation, at 10. e = 2e-5 (A^T A - I
 * = 4e-5: under the 1e-4 this bound was, a Rigify horse's stretched B-Bone
 * segments lost their stretch) is kept under both splits; e = 1e-6 (2e-6)
 * is a rotation, the two splits bit for bit alike. */
START_TEST(dqs_keeps_scale_past_rounding) {
  static const float bind[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
  const float pos[6] = {0, 10, 0, 10, 0, 0};
  const uint32_t joints[2] = {0, 0};
  const float weights[2] = {1, 1};
  skn_bind_desc d = {sizeof d};
  d.joint_count = 1;
  d.bind_matrices = bind;
  d.vertex_count = 2;
  d.positions.data = pos;
  d.influences_per_vertex = 1;
  d.influence_joints = joints;
  d.influence_weights = weights;
  skn_rig *rig = bind_or_fail(&d);
  skn_pose *pose = pose_or_fail(rig);
  const double stretch[2] = {2e-5, 1e-6};
  for (int big = 0; big < 2; ++big) {
    double e = stretch[big];
    float m[16] = {1, 0, 0, 0, 0, (float)(1 + e), 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    ck_assert_int_eq(skn_pose_set_model(pose, 0, 1, m), SKN_OK);
    float out[2][6];
    for (int split = 0; split < 2; ++split) {
      skn_skin_desc s = {sizeof s};
      s.method = SKN_METHOD_DQS;
      s.dqs_scale = (skn_dqs_scale)split;
      s.positions.data = out[split];
      ck_assert_int_eq(skn_skin(rig, pose, &s), SKN_OK);
      double want = big == 0 ? 10 * (double)m[5] : 10.0;
      ck_assert_msg(fabs(out[split][1] - want) <= 2e-6, "stretch %g split %d: y %.9g, want %.9g", e, split,
                    out[split][1], want);
      ck_assert_msg(fabs(out[split][3] - 10) <= 2e-6, "stretch %g split %d: x %.9g", e, split, out[split][3]);
    }
    if (big == 1) ck_assert_mem_eq(out[0], out[1], sizeof out[0]);
  }
  skn_pose_destroy(pose);
  skn_rig_destroy(rig);
}
END_TEST

/* BLEND at b = 0 is LBS, at b = 1 DQS, at b = 1/2 their midpoint. */
START_TEST(blend_endpoints) {
  test_rig t;
  uint32_t nv = 300;
  test_rig_random(&t, 91, 10, nv, 4, 1);
  float *b = malloc(nv * sizeof(float));
  for (uint32_t v = 0; v < nv; ++v) b[v] = (float)(v % 3) / 2.0f;
  skn_bind_desc d = test_rig_desc(&t);
  d.blend_weights = b;
  skn_rig *rig = bind_or_fail(&d);
  skn_pose *pose = pose_or_fail(rig);
  ck_assert_int_eq(skn_pose_set_local(pose, 0, t.joint_count, t.pose), SKN_OK);
  float *lbs = malloc(nv * 12), *dqs = malloc(nv * 12), *mix = malloc(nv * 12);
  skin_or_fail(rig, pose, SKN_METHOD_LBS_MATRIX, lbs, NULL, NULL);
  skin_or_fail(rig, pose, SKN_METHOD_DQS, dqs, NULL, NULL);
  skin_or_fail(rig, pose, SKN_METHOD_BLEND, mix, NULL, NULL);
  for (uint32_t v = 0; v < nv; ++v)
    for (int c = 0; c < 3; ++c) {
      float want = b[v] == 0 ? lbs[v * 3 + c] : b[v] == 1 ? dqs[v * 3 + c] : 0.5f * (lbs[v * 3 + c] + dqs[v * 3 + c]);
      ck_assert_float_eq_tol(mix[v * 3 + c], want, 1e-5 * t.size);
    }
  free(lbs);
  free(dqs);
  free(mix);
  free(b);
  skn_pose_destroy(pose);
  skn_rig_destroy(rig);
  test_rig_free(&t);
}
END_TEST

/* The naive center of rotation (eq. 3-5, every triangle, ordered pairs). */
static int ref_center(const test_rig *t, const uint32_t *tris, uint32_t tri_count, uint32_t v, double p[3]) {
  double *wv = calloc(t->joint_count, sizeof *wv), *wt = calloc(t->joint_count, sizeof *wt), num[3] = {0}, den = 0;
  double sum = 0;
  for (uint32_t i = 0; i < t->k; ++i) sum += t->weights[v * t->k + i];
  for (uint32_t i = 0; i < t->k; ++i) wv[t->joints[v * t->k + i]] += t->weights[v * t->k + i] / sum;
  for (uint32_t tr = 0; tr < tri_count; ++tr) {
    memset(wt, 0, t->joint_count * sizeof *wt);
    double c[3] = {0}, e1[3], e2[3];
    for (int k = 0; k < 3; ++k) {
      uint32_t u = tris[tr * 3 + k];
      double su = 0;
      for (uint32_t i = 0; i < t->k; ++i) su += t->weights[u * t->k + i];
      for (uint32_t i = 0; i < t->k; ++i) wt[t->joints[u * t->k + i]] += t->weights[u * t->k + i] / su / 3;
      for (int a = 0; a < 3; ++a) c[a] += t->positions[u * 3 + a] / 3.0;
    }
    for (int a = 0; a < 3; ++a) {
      e1[a] = t->positions[tris[tr * 3 + 1] * 3 + a] - (double)t->positions[tris[tr * 3] * 3 + a];
      e2[a] = t->positions[tris[tr * 3 + 2] * 3 + a] - (double)t->positions[tris[tr * 3] * 3 + a];
    }
    double x = e1[1] * e2[2] - e1[2] * e2[1], y = e1[2] * e2[0] - e1[0] * e2[2], z = e1[0] * e2[1] - e1[1] * e2[0];
    double area = 0.5 * sqrt(x * x + y * y + z * z), s = 0;
    for (uint32_t j = 0; j < t->joint_count; ++j)
      for (uint32_t k = 0; k < t->joint_count; ++k)
        if (j != k) {
          double d = wv[j] * wt[k] - wv[k] * wt[j];
          s += wv[j] * wv[k] * wt[j] * wt[k] * exp(-d * d / 0.01);
        }
    for (int a = 0; a < 3; ++a) num[a] += s * area * c[a];
    den += s * area;
  }
  for (int a = 0; a < 3; ++a) p[a] = den > 0 ? num[a] / den : 0;
  free(wv);
  free(wt);
  return den > 0;
}

/* COR against the reference: naive centers, blended quaternion, LBS of the
 * center (rigid poses, so S = I). */
START_TEST(cor_matches_reference) {
  test_rig t;
  uint32_t nv = 150, nt = 300;
  test_rig_random(&t, 101, 6, nv, 3, 0);
  uint32_t *tris = random_triangles(&t, nt, 9);
  skn_bind_desc d = test_rig_desc(&t);
  d.triangles = tris;
  d.triangle_count = nt;
  skn_rig *rig = bind_or_fail(&d);
  skn_rig_info info = {sizeof info};
  ck_assert_int_eq(skn_rig_info_get(rig, &info), SKN_OK);
  ck_assert_uint_eq(info.flags & SKN_RIG_HAS_CENTERS_OF_ROTATION, SKN_RIG_HAS_CENTERS_OF_ROTATION);
  skn_pose *pose = pose_or_fail(rig);
  ck_assert_int_eq(skn_pose_set_local(pose, 0, t.joint_count, t.pose), SKN_OK);
  double (*pal)[16] = malloc(t.joint_count * sizeof *pal);
  ref_joint *rj = malloc(t.joint_count * sizeof *rj);
  ref_palette(&t, pal);
  for (uint32_t j = 0; j < t.joint_count; ++j) ref_split(&rj[j], pal[j], t.bind + j * 16, 0);
  float *p = malloc(nv * 12);
  skin_or_fail(rig, pose, SKN_METHOD_COR, p, NULL, NULL);
  double worst = 0;
  int centers = 0;
  for (uint32_t v = 0; v < nv; ++v) {
    double c[3], want[3] = {0}, q[4] = {0}, sum = 0, x[3], n[3];
    if (!ref_center(&t, tris, nt, v, c)) { /* no center: LBS */
      double pal_n[3];
      ref_lbs_vertex(&t, pal, v, want, pal_n);
    } else {
      ++centers;
      double lbs_c[3] = {0}, d0[3];
      for (uint32_t i = 0; i < t.k; ++i) {
        uint32_t j = t.joints[v * t.k + i];
        double w = t.weights[v * t.k + i], dot = 0, mc[3];
        for (int k = 0; k < 4; ++k) dot += q[k] * rj[j].q[k];
        for (int k = 0; k < 4; ++k) q[k] += (dot < 0 ? -w : w) * rj[j].q[k];
        dm_apply(mc, pal[j], c, 1);
        for (int a = 0; a < 3; ++a) lbs_c[a] += w * mc[a];
        sum += w;
      }
      double ql = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
      for (int k = 0; k < 4; ++k) q[k] /= ql;
      for (int a = 0; a < 3; ++a) d0[a] = t.positions[v * 3 + a] - c[a];
      quat_rotate(x, q, d0);
      for (int a = 0; a < 3; ++a) want[a] = x[a] + lbs_c[a] / sum;
      (void)n;
    }
    for (int a = 0; a < 3; ++a) worst = fmax(worst, fabs(p[v * 3 + a] - want[a]));
  }
  ck_assert_int_gt(centers, (int)nv / 2);
  ck_assert_msg(worst <= 1e-5 * t.size, "COR off by %g (size %g)", worst, t.size);
  free(p);
  free(pal);
  free(rj);
  free(tris);
  skn_pose_destroy(pose);
  skn_rig_destroy(rig);
  test_rig_free(&t);
}
END_TEST

/* The dual-quaternion palettes: a joint turned 90° about z and moved to
 * (1,2,3) from an identity bind: real = (0,0,sin45,cos45) and
 * dual = 1/2 (t,0) real, by hand = 1/2 (t.xyz*w + t x real.xyz, -t.real.xyz). */
START_TEST(dual_quat_palette) {
  float bind[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}, pos[3] = {0}, w = 1;
  uint32_t joint = 0;
  skn_bind_desc d = {sizeof d};
  d.joint_count = 1;
  d.bind_matrices = bind;
  d.vertex_count = 1;
  d.positions.data = pos;
  d.influences_per_vertex = 1;
  d.influence_joints = &joint;
  d.influence_weights = &w;
  skn_rig *rig = bind_or_fail(&d);
  skn_pose *pose = pose_or_fail(rig);
  skn_transform t = {{1, 2, 3}, {0, 0, 0, 1}, {2, 2, 2}};
  quat_axis_angle(t.rotation, 0, 0, 1, PI / 2);
  ck_assert_int_eq(skn_pose_set_local(pose, 0, 1, &t), SKN_OK);
  float dq[8], dqs[20];
  ck_assert_int_eq(skn_pose_palette(pose, SKN_PALETTE_DUAL_QUAT, dq, sizeof dq), SKN_OK);
  const double h = sqrt(0.5);
  /* t x r.xyz = (1,2,3) x (0,0,h) = (2h, -h, 0) */
  const float want[8] = {0, 0, (float)h, (float)h, (float)(0.5 * (h + 2 * h)), (float)(0.5 * (2 * h - h)),
                         (float)(0.5 * 3 * h), (float)(-0.5 * 3 * h)};
  ck_assert_double_le(max_abs_diff(dq, want, 8), 1e-6);
  ck_assert_int_eq(skn_pose_palette(pose, SKN_PALETTE_DUAL_QUAT_SCALE, dqs, sizeof dqs), SKN_OK);
  const float scale_rows[12] = {2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 2, 0}; /* uniform 2 about the bind origin */
  ck_assert_double_le(max_abs_diff(dqs, want, 8), 1e-6);
  ck_assert_double_le(max_abs_diff(dqs + 8, scale_rows, 12), 1e-6);
  ck_assert_int_eq(skn_pose_palette(pose, SKN_PALETTE_DUAL_QUAT_SCALE_KEEP_Y, dqs, 19 * 4), SKN_ERR_INVALID_ARGUMENT);
  skn_pose_destroy(pose);
  skn_rig_destroy(rig);
}
END_TEST

/* The rotation forms are derived on the first call that needs them after a
 * pose change, one form and one split at a time, under the pose's lock:
 * host threads making the first calls of a fresh pose at once, each with a
 * method or split of its own (two with the same), get the bytes a lone call
 * gets (make check-threads runs this under ThreadSanitizer). */
typedef struct first_caller {
  const skn_rig *rig;
  const skn_pose *pose;
  skn_method method;
  skn_dqs_scale split;
  float *out;
  pthread_barrier_t *go;
  skn_status status;
} first_caller;

static void *first_caller_main(void *arg) {
  first_caller *c = arg;
  pthread_barrier_wait(c->go);
  skn_skin_desc s = {sizeof s};
  s.method = c->method;
  s.dqs_scale = c->split;
  s.positions.data = c->out;
  s.threads = 1;
  c->status = skn_skin(c->rig, c->pose, &s);
  return NULL;
}

START_TEST(first_calls_of_a_pose_at_once) {
  enum { CALLERS = 4 };
  const skn_method methods[CALLERS] = {SKN_METHOD_LBS_QUATERNION, SKN_METHOD_DQS, SKN_METHOD_DQS, SKN_METHOD_DQS};
  const skn_dqs_scale splits[CALLERS] = {SKN_DQS_SCALE_POLAR, SKN_DQS_SCALE_POLAR, SKN_DQS_SCALE_KEEP_Y,
                                         SKN_DQS_SCALE_POLAR};
  test_rig t;
  uint32_t nv = 3000;
  skn_pose *alone;
  skn_rig *rig = posed_random_rig(&t, 23, 40, nv, 4, 1, &alone); /* uniform scales: every method serves */
  float *want = malloc(CALLERS * nv * 3 * sizeof(float)), *got = malloc(CALLERS * nv * 3 * sizeof(float));
  for (int i = 0; i < CALLERS; ++i) { /* one at a time */
    skn_skin_desc s = {sizeof s};
    s.method = methods[i], s.dqs_scale = splits[i], s.positions.data = want + i * nv * 3;
    ck_assert_int_eq(skn_skin(rig, alone, &s), SKN_OK);
  }
  for (int round = 0; round < 20; ++round) {
    skn_pose *pose = pose_or_fail(rig);
    ck_assert_int_eq(skn_pose_set_local(pose, 0, t.joint_count, t.pose), SKN_OK);
    pthread_barrier_t go;
    pthread_barrier_init(&go, NULL, CALLERS);
    pthread_t threads[CALLERS];
    first_caller callers[CALLERS];
    for (int i = 0; i < CALLERS; ++i) {
      callers[i] = (first_caller){rig, pose, methods[i], splits[i], got + i * nv * 3, &go, (skn_status)-1};
      ck_assert_int_eq(pthread_create(&threads[i], NULL, first_caller_main, &callers[i]), 0);
    }
    for (int i = 0; i < CALLERS; ++i) {
      pthread_join(threads[i], NULL);
      ck_assert_int_eq(callers[i].status, SKN_OK);
      ck_assert_mem_eq(got + i * nv * 3, want + i * nv * 3, nv * 3 * sizeof(float));
    }
    pthread_barrier_destroy(&go);
    skn_pose_destroy(pose);
  }
  free(want);
  free(got);
  skn_pose_destroy(alone);
  skn_rig_destroy(rig);
  test_rig_free(&t);
}
END_TEST

Suite *suite_methods(void) {
  Suite *s = suite_create("methods");
  TCase *tc = tcase_create("methods");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, candy_wrapper);
  tcase_add_test(tc, bend_volume_and_bulge);
  tcase_add_test(tc, one_shared_transform);
  tcase_add_test(tc, dqs_matches_reference);
  tcase_add_test(tc, dqs_single_influence_and_rigid_splits);
  tcase_add_test(tc, dqs_keeps_scale_past_rounding);
  tcase_add_test(tc, blend_endpoints);
  tcase_add_test(tc, cor_matches_reference);
  tcase_add_test(tc, dual_quat_palette);
  tcase_add_test(tc, first_calls_of_a_pose_at_once);
  suite_add_tcase(s, tc);
  return s;
}
