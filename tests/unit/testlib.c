/* testlib.c — random rigs and the double-precision reference (see testlib.h). */
#include "testlib.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

double rng_uniform(rng *r, double lo, double hi) {
  r->s ^= r->s >> 12;
  r->s ^= r->s << 25;
  r->s ^= r->s >> 27;
  uint64_t x = r->s * 2685821657736338717ull;
  return lo + (hi - lo) * ((double)(x >> 11) / 9007199254740992.0);
}

uint32_t rng_below(rng *r, uint32_t n) { return (uint32_t)rng_uniform(r, 0, n) % n; }

void rng_quat(rng *r, float q[4]) {
  double v[4], len = 0;
  do {
    len = 0;
    for (int i = 0; i < 4; ++i) {
      v[i] = rng_uniform(r, -1, 1);
      len += v[i] * v[i];
    }
  } while (len < 1e-3 || len > 1);
  for (int i = 0; i < 4; ++i) q[i] = (float)(v[i] / sqrt(len));
}

void quat_axis_angle(float q[4], double x, double y, double z, double a) {
  double len = sqrt(x * x + y * y + z * z), s = sin(a / 2) / len;
  q[0] = (float)(x * s);
  q[1] = (float)(y * s);
  q[2] = (float)(z * s);
  q[3] = (float)cos(a / 2);
}

skn_transform transform_identity(void) {
  skn_transform t = {{0, 0, 0}, {0, 0, 0, 1}, {1, 1, 1}};
  return t;
}

void dm_identity(double m[16]) {
  memset(m, 0, 16 * sizeof(double));
  m[0] = m[5] = m[10] = m[15] = 1;
}

void dm_mul(double r[16], const double a[16], const double b[16]) {
  double t[16];
  for (int c = 0; c < 4; ++c)
    for (int row = 0; row < 4; ++row) {
      double s = 0;
      for (int k = 0; k < 4; ++k) s += a[k * 4 + row] * b[c * 4 + k];
      t[c * 4 + row] = s;
    }
  memcpy(r, t, sizeof t);
}

/* glTF 2.0 §3.5.3: M = T * R * S, rotation from the quaternion's formula. */
void dm_trs(double m[16], const float t[3], const float qf[4], const float s[3]) {
  double q[4], len = 0;
  for (int i = 0; i < 4; ++i) len += (double)qf[i] * qf[i];
  for (int i = 0; i < 4; ++i) q[i] = qf[i] / sqrt(len);
  double x = q[0], y = q[1], z = q[2], w = q[3];
  double r[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)},
                    {2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)},
                    {2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)}};
  dm_identity(m);
  for (int row = 0; row < 3; ++row) {
    for (int c = 0; c < 3; ++c) m[c * 4 + row] = r[row][c] * s[c];
    m[12 + row] = t[row];
  }
}

void dm_invert(double r[16], const double m[16]) {
  double a[4][8];
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 8; ++j) a[i][j] = j < 4 ? m[j * 4 + i] : (j - 4 == i);
  for (int c = 0; c < 4; ++c) {
    int p = c;
    for (int i = c + 1; i < 4; ++i)
      if (fabs(a[i][c]) > fabs(a[p][c])) p = i;
    for (int j = 0; j < 8; ++j) {
      double tmp = a[c][j];
      a[c][j] = a[p][j];
      a[p][j] = tmp;
    }
    double d = a[c][c];
    for (int j = 0; j < 8; ++j) a[c][j] /= d;
    for (int i = 0; i < 4; ++i)
      if (i != c) {
        double f = a[i][c];
        for (int j = 0; j < 8; ++j) a[i][j] -= f * a[c][j];
      }
  }
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) r[j * 4 + i] = a[i][j + 4];
}

void dm_apply(double r[3], const double m[16], const double p[3], double w) {
  for (int i = 0; i < 3; ++i) r[i] = m[i] * p[0] + m[4 + i] * p[1] + m[8 + i] * p[2] + m[12 + i] * w;
}

static void random_local(rng *r, skn_transform *t, int scale_mode) {
  for (int c = 0; c < 3; ++c) t->translation[c] = (float)rng_uniform(r, -1, 1);
  rng_quat(r, t->rotation);
  double u = rng_uniform(r, 0.5, 2.0);
  for (int c = 0; c < 3; ++c)
    t->scale[c] = scale_mode == 0 ? 1.0f : (float)(scale_mode == 1 ? u : rng_uniform(r, 0.5, 2.0));
}

/* World matrices by FK in double, recursing up the parent chain. */
static void world_of(const test_rig *t, const skn_transform *locals, uint32_t j, double (*w)[16],
                     uint8_t *done) {
  if (done[j]) return;
  double local[16];
  dm_trs(local, locals[j].translation, locals[j].rotation, locals[j].scale);
  int32_t p = t->parents[j];
  if (p < 0) {
    memcpy(w[j], local, sizeof local);
  } else {
    world_of(t, locals, (uint32_t)p, w, done);
    dm_mul(w[j], w[p], local);
  }
  done[j] = 1;
}

static void world_all(const test_rig *t, const skn_transform *locals, double (*w)[16]) {
  uint8_t *done = calloc(t->joint_count, 1);
  for (uint32_t j = 0; j < t->joint_count; ++j) world_of(t, locals, j, w, done);
  free(done);
}

static void random_hierarchy(rng *r, test_rig *t) {
  uint32_t n = t->joint_count, *perm = malloc(n * sizeof *perm);
  for (uint32_t i = 0; i < n; ++i) perm[i] = i;
  for (uint32_t i = n; i > 1; --i) { /* joint perm[g] is the g-th generated */
    uint32_t k = rng_below(r, i), tmp = perm[i - 1];
    perm[i - 1] = perm[k];
    perm[k] = tmp;
  }
  for (uint32_t g = 0; g < n; ++g)
    t->parents[perm[g]] = g == 0 || rng_uniform(r, 0, 1) < 0.1 ? -1 : (int32_t)perm[rng_below(r, g)];
  free(perm);
}

static void random_vertices(rng *r, test_rig *t, double (*bind)[16]) {
  double lo[3] = {1e30, 1e30, 1e30}, hi[3] = {-1e30, -1e30, -1e30};
  for (uint32_t v = 0; v < t->vertex_count; ++v) {
    uint32_t j = rng_below(r, t->joint_count);
    float n[4];
    rng_quat(r, n); /* a random direction: the vector part of a random quaternion */
    double nl = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    for (int c = 0; c < 3; ++c) {
      double p = bind[j][12 + c] + rng_uniform(r, -1, 1);
      t->positions[v * 3 + c] = (float)p;
      lo[c] = fmin(lo[c], p);
      hi[c] = fmax(hi[c], p);
      t->normals[v * 3 + c] = (float)(n[c] / nl);
    }
    /* tangent: the normal crossed with a random axis, w = +-1 */
    float a[3] = {(float)rng_uniform(r, -1, 1), (float)rng_uniform(r, -1, 1), (float)rng_uniform(r, -1, 1)};
    float *nn = &t->normals[v * 3], *tg = &t->tangents[v * 4];
    tg[0] = nn[1] * a[2] - nn[2] * a[1];
    tg[1] = nn[2] * a[0] - nn[0] * a[2];
    tg[2] = nn[0] * a[1] - nn[1] * a[0];
    float tl = sqrtf(tg[0] * tg[0] + tg[1] * tg[1] + tg[2] * tg[2]);
    for (int c = 0; c < 3; ++c) tg[c] = tl > 0 ? tg[c] / tl : (c == 0);
    tg[3] = rng_uniform(r, 0, 1) < 0.5 ? -1.0f : 1.0f;
    for (uint32_t i = 0; i < t->k; ++i) {
      t->joints[v * t->k + i] = rng_below(r, t->joint_count);
      t->weights[v * t->k + i] = (float)rng_uniform(r, 0.05, 1.0);
    }
  }
  t->size = sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) +
                 (hi[2] - lo[2]) * (hi[2] - lo[2]));
}

void test_rig_random(test_rig *t, uint64_t seed, uint32_t joints, uint32_t vertices, uint32_t k,
                     int scale_mode) {
  rng r = {seed * 0x9E3779B97F4A7C15ull + 1};
  memset(t, 0, sizeof *t);
  t->joint_count = joints;
  t->vertex_count = vertices;
  t->k = k;
  t->parents = malloc(joints * sizeof *t->parents);
  t->bind = malloc(joints * 16 * sizeof(float));
  t->pose = malloc(joints * sizeof *t->pose);
  t->positions = malloc(vertices * 3 * sizeof(float));
  t->normals = malloc(vertices * 3 * sizeof(float));
  t->tangents = malloc(vertices * 4 * sizeof(float));
  t->joints = malloc((size_t)vertices * k * sizeof(uint32_t));
  t->weights = malloc((size_t)vertices * k * sizeof(float));
  random_hierarchy(&r, t);
  skn_transform *bind_local = calloc(joints, sizeof *bind_local);
  double (*bind)[16] = malloc(joints * sizeof *bind);
  for (uint32_t j = 0; j < joints; ++j) {
    random_local(&r, &bind_local[j], scale_mode);
    random_local(&r, &t->pose[j], scale_mode);
  }
  world_all(t, bind_local, bind);
  for (uint32_t j = 0; j < joints; ++j)
    for (int e = 0; e < 16; ++e) t->bind[j * 16 + e] = (float)bind[j][e];
  random_vertices(&r, t, bind);
  free(bind_local);
  free(bind);
}

void test_rig_free(test_rig *t) {
  free(t->parents);
  free(t->bind);
  free(t->pose);
  free(t->positions);
  free(t->normals);
  free(t->tangents);
  free(t->joints);
  free(t->weights);
  memset(t, 0, sizeof *t);
}

skn_bind_desc test_rig_desc(const test_rig *t) {
  skn_bind_desc d = {sizeof d};
  d.joint_count = t->joint_count;
  d.parents = t->parents;
  d.bind_matrices = t->bind;
  d.vertex_count = t->vertex_count;
  d.positions.data = t->positions;
  d.normals.data = t->normals;
  d.tangents.data = t->tangents;
  d.influences_per_vertex = t->k;
  d.influence_joints = t->joints;
  d.influence_weights = t->weights;
  return d;
}

skn_rig *posed_random_rig(test_rig *t, uint64_t seed, uint32_t joints, uint32_t vertices, uint32_t k,
                          int scale_mode, skn_pose **pose) {
  test_rig_random(t, seed, joints, vertices, k, scale_mode);
  skn_bind_desc d = test_rig_desc(t);
  skn_rig *rig = bind_or_fail(&d);
  *pose = pose_or_fail(rig);
  ck_assert_int_eq(skn_pose_set_local(*pose, 0, t->joint_count, t->pose), SKN_OK);
  return rig;
}

void ref_palette(const test_rig *t, double (*palette)[16]) {
  double (*world)[16] = malloc(t->joint_count * sizeof *world);
  world_all(t, t->pose, world);
  for (uint32_t j = 0; j < t->joint_count; ++j) {
    double b[16], ib[16];
    for (int e = 0; e < 16; ++e) b[e] = t->bind[j * 16 + e];
    dm_invert(ib, b);
    dm_mul(palette[j], world[j], ib);
  }
  free(world);
}

void ref_lbs_vertex(const test_rig *t, double (*palette)[16], uint32_t v, double p[3], double n[3]) {
  double sum = 0, p0[3], n0[3];
  for (int c = 0; c < 3; ++c) {
    p0[c] = t->positions[v * 3 + c];
    n0[c] = t->normals[v * 3 + c];
    p[c] = n[c] = 0;
  }
  for (uint32_t i = 0; i < t->k; ++i) sum += t->weights[v * t->k + i];
  for (uint32_t i = 0; i < t->k; ++i) {
    const double *m = palette[t->joints[v * t->k + i]];
    double w = t->weights[v * t->k + i] / sum, q[3], inv[16];
    dm_apply(q, m, p0, 1);
    dm_invert(inv, m);
    for (int c = 0; c < 3; ++c) {
      p[c] += w * q[c];
      /* (M^-T n)_c = sum_r inv(r, c) n_r */
      n[c] += w * (inv[c * 4] * n0[0] + inv[c * 4 + 1] * n0[1] + inv[c * 4 + 2] * n0[2]);
    }
  }
  double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
  for (int c = 0; c < 3; ++c) n[c] /= len;
}

double max_abs_diff(const float *a, const float *b, size_t n) {
  double m = 0;
  for (size_t i = 0; i < n; ++i) m = fmax(m, fabs((double)a[i] - b[i]));
  return m;
}

skn_rig *bind_or_fail(const skn_bind_desc *d) {
  skn_rig *rig = NULL;
  skn_status s = skn_bind(d, &rig);
  ck_assert_msg(s == SKN_OK, "bind: %s: %s", skn_status_name(s), skn_last_error());
  return rig;
}

skn_pose *pose_or_fail(const skn_rig *rig) {
  skn_pose *pose = NULL;
  skn_status s = skn_pose_create(rig, &pose);
  ck_assert_msg(s == SKN_OK, "pose_create: %s", skn_last_error());
  return pose;
}

void skin_or_fail(const skn_rig *rig, const skn_pose *pose, skn_method method, float *pos, float *nrm,
                  float *tan) {
  skn_skin_desc d = {sizeof d};
  d.method = method;
  d.positions.data = pos;
  d.normals.data = nrm;
  d.tangents.data = tan;
  skn_status s = skn_skin(rig, pose, &d);
  ck_assert_msg(s == SKN_OK, "skin: %s: %s", skn_status_name(s), skn_last_error());
}
