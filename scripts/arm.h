/* arm.h — a procedural arm for the demo and the tests: a closed cylinder
 * along +x of length 2L, two joints (shoulder at x = 0, elbow at x = L),
 * weights blending smoothly from the upper arm to the forearm across the
 * elbow, outward-facing triangles so that the signed volume is positive.
 * Header-only, public API only. */
#ifndef SKN_ARM_H
#define SKN_ARM_H

#include "skn.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct skn_arm {
  uint32_t rings, segments;   /* rings along x, vertices around each ring */
  float length, radius;       /* L: each bone's length */
  uint32_t vertex_count, triangle_count;
  float *positions, *normals; /* 3 per vertex */
  uint32_t *joints;           /* 2 per vertex: 0 and 1 */
  float *weights;             /* 2 per vertex */
  uint32_t *triangles;        /* 3 per triangle */
  int32_t parents[2];
  float bind[32];             /* joint -> model at bind: T(0) and T(L,0,0) */
} skn_arm;

/* blend: half-width of the weight transition around the elbow, in units of L. */
static inline int skn_arm_make(skn_arm *a, uint32_t rings, uint32_t segments, float blend) {
  memset(a, 0, sizeof *a);
  a->rings = rings;
  a->segments = segments;
  a->length = 1.0f;
  a->radius = 0.25f;
  a->vertex_count = rings * segments + 2;
  a->triangle_count = 2 * (rings - 1) * segments + 2 * segments;
  a->positions = malloc(a->vertex_count * 3 * sizeof(float));
  a->normals = malloc(a->vertex_count * 3 * sizeof(float));
  a->joints = malloc(a->vertex_count * 2 * sizeof(uint32_t));
  a->weights = malloc(a->vertex_count * 2 * sizeof(float));
  a->triangles = malloc(a->triangle_count * 3 * sizeof(uint32_t));
  if (!a->positions || !a->normals || !a->joints || !a->weights || !a->triangles) return 0;
  const double pi = 3.14159265358979323846;
  for (uint32_t v = 0; v < a->vertex_count; ++v) {
    double x, y = 0, z = 0, nx = 0, ny = 0, nz = 0;
    if (v < rings * segments) {
      double th = 2 * pi * (v % segments) / segments;
      x = 2.0 * a->length * (v / segments) / (rings - 1);
      y = a->radius * cos(th);
      z = a->radius * sin(th);
      ny = cos(th);
      nz = sin(th);
    } else { /* the two cap centres */
      x = v == rings * segments ? 0.0 : 2.0 * a->length;
      nx = v == rings * segments ? -1.0 : 1.0;
    }
    double s = (x - a->length * (1 - blend)) / (2 * a->length * blend);
    s = s < 0 ? 0 : s > 1 ? 1 : s * s * (3 - 2 * s); /* smoothstep */
    float p[3] = {(float)x, (float)y, (float)z}, n[3] = {(float)nx, (float)ny, (float)nz};
    memcpy(a->positions + v * 3, p, sizeof p);
    memcpy(a->normals + v * 3, n, sizeof n);
    a->joints[v * 2] = 0;
    a->joints[v * 2 + 1] = 1;
    a->weights[v * 2] = (float)(1 - s);
    a->weights[v * 2 + 1] = (float)s;
  }
  uint32_t *t = a->triangles, S = segments;
  for (uint32_t i = 0; i + 1 < rings; ++i)
    for (uint32_t j = 0; j < S; ++j) {
      uint32_t p0 = i * S + j, p1 = i * S + (j + 1) % S, p2 = p0 + S, p3 = p1 + S;
      uint32_t quad[6] = {p0, p1, p2, p1, p3, p2}; /* (ring dir) x (+x) points outward */
      memcpy(t, quad, sizeof quad);
      t += 6;
    }
  for (uint32_t j = 0; j < S; ++j) {
    uint32_t start[3] = {rings * S, (j + 1) % S, j};
    uint32_t end[3] = {rings * S + 1, (rings - 1) * S + j, (rings - 1) * S + (j + 1) % S};
    memcpy(t, start, sizeof start);
    memcpy(t + 3, end, sizeof end);
    t += 6;
  }
  a->parents[0] = -1;
  a->parents[1] = 0;
  for (int j = 0; j < 2; ++j) {
    float *m = a->bind + j * 16;
    m[0] = m[5] = m[10] = m[15] = 1;
    m[12] = j * a->length;
  }
  return 1;
}

static inline void skn_arm_free(skn_arm *a) {
  free(a->positions);
  free(a->normals);
  free(a->joints);
  free(a->weights);
  free(a->triangles);
  memset(a, 0, sizeof *a);
}

static inline skn_bind_desc skn_arm_desc(const skn_arm *a) {
  skn_bind_desc d = {sizeof d};
  d.joint_count = 2;
  d.parents = a->parents;
  d.bind_matrices = a->bind;
  d.vertex_count = a->vertex_count;
  d.positions.data = a->positions;
  d.normals.data = a->normals;
  d.influences_per_vertex = 2;
  d.influence_joints = a->joints;
  d.influence_weights = a->weights;
  d.triangles = a->triangles;
  d.triangle_count = a->triangle_count;
  return d;
}

/* The elbow's pose: a bend about z, then a twist about the forearm's x. */
static inline skn_transform skn_arm_elbow(const skn_arm *a, double bend, double twist) {
  double qb[4] = {0, 0, sin(bend / 2), cos(bend / 2)}, qt[4] = {sin(twist / 2), 0, 0, cos(twist / 2)};
  skn_transform t = {{a->length, 0, 0}, {0, 0, 0, 1}, {1, 1, 1}};
  t.rotation[0] = (float)(qb[3] * qt[0] + qb[0] * qt[3] + qb[1] * qt[2] - qb[2] * qt[1]);
  t.rotation[1] = (float)(qb[3] * qt[1] - qb[0] * qt[2] + qb[1] * qt[3] + qb[2] * qt[0]);
  t.rotation[2] = (float)(qb[3] * qt[2] + qb[0] * qt[1] - qb[1] * qt[0] + qb[2] * qt[3]);
  t.rotation[3] = (float)(qb[3] * qt[3] - qb[0] * qt[0] - qb[1] * qt[1] - qb[2] * qt[2]);
  return t;
}

/* Signed volume of a closed triangle mesh: sum of a . (b x c) / 6. */
static inline double skn_arm_volume(const skn_arm *a, const float *pos) {
  double vol = 0;
  for (uint32_t t = 0; t < a->triangle_count; ++t) {
    const float *p = pos + a->triangles[t * 3] * 3, *q = pos + a->triangles[t * 3 + 1] * 3,
                *r = pos + a->triangles[t * 3 + 2] * 3;
    vol += (double)p[0] * ((double)q[1] * r[2] - (double)q[2] * r[1]) -
           (double)p[1] * ((double)q[0] * r[2] - (double)q[2] * r[0]) +
           (double)p[2] * ((double)q[0] * r[1] - (double)q[1] * r[0]);
  }
  return vol / 6.0;
}

/* Mean distance of ring i's vertices from its centroid, over the rest radius. */
static inline double skn_arm_ring_radius(const skn_arm *a, const float *pos, uint32_t ring) {
  double c[3] = {0, 0, 0}, r = 0;
  for (uint32_t j = 0; j < a->segments; ++j)
    for (int k = 0; k < 3; ++k) c[k] += pos[(ring * a->segments + j) * 3 + k] / a->segments;
  for (uint32_t j = 0; j < a->segments; ++j) {
    const float *p = pos + (ring * a->segments + j) * 3;
    r += sqrt((p[0] - c[0]) * (p[0] - c[0]) + (p[1] - c[1]) * (p[1] - c[1]) + (p[2] - c[2]) * (p[2] - c[2]));
  }
  return r / a->segments / a->radius;
}

/* How far the skin stands off the posed bones at a bend of `bend` radians
 * (no twist): the largest distance from a ring vertex to the nearer of the
 * two bone segments, over the radius. 1 is a perfect tube; more is a bulge. */
static inline double skn_arm_bulge(const skn_arm *a, const float *pos, double bend) {
  double joints[3][3] = {{0, 0, 0}, {a->length, 0, 0}, {a->length * (1 + cos(bend)), a->length * sin(bend), 0}};
  double worst = 0;
  for (uint32_t v = 0; v < a->rings * a->segments; ++v) {
    double best = 1e300;
    for (int s = 0; s < 2; ++s) {
      const double *p = joints[s], *q = joints[s + 1];
      double d[3], e[3], t = 0, l2 = 0, r2 = 0;
      for (int c = 0; c < 3; ++c) {
        d[c] = q[c] - p[c];
        e[c] = pos[v * 3 + c] - p[c];
        t += d[c] * e[c];
        l2 += d[c] * d[c];
      }
      t = t < 0 ? 0 : t > l2 ? 1 : t / l2;
      for (int c = 0; c < 3; ++c) r2 += (e[c] - t * d[c]) * (e[c] - t * d[c]);
      best = best < r2 ? best : r2;
    }
    worst = worst > best ? worst : best;
  }
  return sqrt(worst) / a->radius;
}

#endif
