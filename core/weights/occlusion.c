/* occlusion.c — may a vertex see a bone? Bone heat counts a bone as
 * nearest only where the segment from the vertex to the bone's closest
 * point crosses no triangle facing it (abi/skn.h section 7): a vertex on
 * the inside of an arm does not take the torso's bone through the torso's
 * skin. A bounding-volume hierarchy of the triangles that can block (those
 * of some area), split at the middle of the longest side of the centroids'
 * box, answers each segment in logarithmic time; the triangle test is
 * Moller and Trumbore's ("Fast, Minimum Storage Ray/Triangle
 * Intersection", JGT 2(1), 1997) in double. */
#include "weights.h"

#include <math.h>

#define LEAF_TRIANGLES 4u
#define EDGE_EPSILON 1.1920929e-7 /* a hit on an edge counts, as Blender's FLT_EPSILON does */

typedef struct node {
  float lo[3], hi[3];
  uint32_t index; /* a leaf's first entry in order; an inner node's right child (its left is the next node) */
  uint32_t count; /* triangles in a leaf; 0 for an inner node */
} node;

struct skn_occluder {
  const skn_wsurface *s;
  node *nodes;
  uint32_t *order;
  int empty;
};

static void bound(const skn_occluder *o, const float (*centroids)[3], uint32_t first, uint32_t end, node *n,
                  float clo[3], float chi[3]) {
  for (int c = 0; c < 3; ++c) n->lo[c] = clo[c] = INFINITY, n->hi[c] = chi[c] = -INFINITY;
  for (uint32_t k = first; k < end; ++k) {
    const uint32_t *t = o->s->triangles[o->order[k]];
    for (int v = 0; v < 3; ++v)
      for (int c = 0; c < 3; ++c) {
        float x = o->s->positions[t[v]][c];
        n->lo[c] = x < n->lo[c] ? x : n->lo[c], n->hi[c] = x > n->hi[c] ? x : n->hi[c];
      }
    for (int c = 0; c < 3; ++c) {
      float x = centroids[o->order[k]][c];
      clo[c] = x < clo[c] ? x : clo[c], chi[c] = x > chi[c] ? x : chi[c];
    }
  }
}

/* Builds the subtree of order[first, end) at nodes[*used], depth first.
 * Past MIDDLE_DEPTH levels (centroids bunched so that halving the box
 * halves few of them) it splits the triangles in two halves as they lie,
 * which bounds the depth by MIDDLE_DEPTH + log2(count) < STACK. */
#define MIDDLE_DEPTH 48u
#define STACK 96u
static void build(skn_occluder *o, const float (*centroids)[3], uint32_t first, uint32_t end, uint32_t depth,
                  uint32_t *used) {
  uint32_t self = (*used)++;
  node *n = &o->nodes[self];
  float clo[3], chi[3];
  bound(o, centroids, first, end, n, clo, chi);
  int axis = 0;
  for (int c = 1; c < 3; ++c)
    if (chi[c] - clo[c] > chi[axis] - clo[axis]) axis = c;
  if (end - first <= LEAF_TRIANGLES || !(chi[axis] > clo[axis])) {
    n->index = first, n->count = end - first;
    return;
  }
  float mid = 0.5f * (clo[axis] + chi[axis]);
  uint32_t i = first, j = depth < MIDDLE_DEPTH ? end : first;
  while (i < j) { /* centroids below mid to the front */
    if (centroids[o->order[i]][axis] < mid) {
      ++i;
    } else {
      uint32_t t = o->order[i];
      o->order[i] = o->order[--j], o->order[j] = t;
    }
  }
  if (i == first || i == end) i = first + (end - first) / 2;
  n->count = 0;
  build(o, centroids, first, i, depth + 1, used);
  o->nodes[self].index = *used;
  build(o, centroids, i, end, depth + 1, used);
}

skn_status skn__occluder_build(const skn_wsurface *s, skn_occluder **out) {
  skn_occluder *o = skn__calloc(1, sizeof *o);
  float(*centroids)[3] = skn__alloc(sizeof *centroids * (s->triangle_count + 1));
  if (o) o->order = skn__alloc(sizeof *o->order * (s->triangle_count + 1));
  if (o) o->nodes = skn__alloc(sizeof *o->nodes * (2 * (size_t)s->triangle_count + 1));
  if (!o || !centroids || !o->order || !o->nodes) {
    skn__free(centroids), skn__occluder_free(o);
    return skn__fail(SKN_ERR_OUT_OF_MEMORY, "weights: out of memory for the occlusion tree");
  }
  o->s = s;
  uint32_t count = 0;
  for (uint32_t t = 0; t < s->triangle_count; ++t) {
    const float *nrm = s->triangle_normals[t];
    if (nrm[0] == 0 && nrm[1] == 0 && nrm[2] == 0) continue; /* no area: blocks nothing */
    for (int c = 0; c < 3; ++c)
      centroids[t][c] = (s->positions[s->triangles[t][0]][c] + s->positions[s->triangles[t][1]][c] +
                         s->positions[s->triangles[t][2]][c]) / 3.0f;
    o->order[count++] = t;
  }
  uint32_t used = 0;
  o->empty = count == 0;
  if (count) build(o, (const float(*)[3])centroids, 0, count, 0, &used);
  skn__free(centroids);
  *out = o;
  return SKN_OK;
}

void skn__occluder_free(skn_occluder *o) {
  if (!o) return;
  skn__free(o->nodes), skn__free(o->order), skn__free(o);
}

/* Does the segment origin + t*dir, t in [0, 1], meet the box? (slabs) */
static int meets_box(const node *n, const double origin[3], const double inv[3]) {
  double t0 = 0, t1 = 1;
  for (int c = 0; c < 3; ++c) {
    double a = (n->lo[c] - origin[c]) * inv[c], b = (n->hi[c] - origin[c]) * inv[c];
    if (a > b) { double t = a; a = b; b = t; }
    if (isnan(a)) a = -INFINITY; /* dir 0 on this axis with the origin on a face: 0 * inf */
    if (isnan(b)) b = INFINITY;
    t0 = a > t0 ? a : t0, t1 = b < t1 ? b : t1;
    if (t0 > t1) return 0;
  }
  return 1;
}

/* Moller-Trumbore: origin + t*dir crosses the triangle for some t in [0, 1]. */
static int crosses(const skn_wsurface *s, uint32_t t, const double origin[3], const double dir[3]) {
  const float *p0 = s->positions[s->triangles[t][0]], *p1 = s->positions[s->triangles[t][1]],
              *p2 = s->positions[s->triangles[t][2]];
  double e1[3], e2[3], tv[3];
  for (int c = 0; c < 3; ++c) e1[c] = (double)p1[c] - p0[c], e2[c] = (double)p2[c] - p0[c], tv[c] = origin[c] - p0[c];
  double pv[3] = {dir[1] * e2[2] - dir[2] * e2[1], dir[2] * e2[0] - dir[0] * e2[2], dir[0] * e2[1] - dir[1] * e2[0]};
  double det = e1[0] * pv[0] + e1[1] * pv[1] + e1[2] * pv[2];
  if (det == 0) return 0;
  double inv = 1.0 / det;
  double u = (tv[0] * pv[0] + tv[1] * pv[1] + tv[2] * pv[2]) * inv;
  if (u < -EDGE_EPSILON || u > 1 + EDGE_EPSILON) return 0;
  double q[3] = {tv[1] * e1[2] - tv[2] * e1[1], tv[2] * e1[0] - tv[0] * e1[2], tv[0] * e1[1] - tv[1] * e1[0]};
  double v = (dir[0] * q[0] + dir[1] * q[1] + dir[2] * q[2]) * inv;
  if (v < -EDGE_EPSILON || u + v > 1 + EDGE_EPSILON) return 0;
  double h = (e2[0] * q[0] + e2[1] * q[1] + e2[2] * q[2]) * inv;
  return h >= 0 && h <= 1;
}

int skn__occluded(const skn_occluder *o, const float from[3], const double v[3]) {
  double len = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  if (!(len > 0) || o->empty) return 0;
  double origin[3], dir[3], unit[3], inv[3];
  for (int c = 0; c < 3; ++c) {
    origin[c] = from[c] + 1e-5 * v[c];
    dir[c] = (1 - 2e-5) * v[c];
    unit[c] = v[c] / len;
    inv[c] = 1.0 / dir[c];
  }
  uint32_t stack[STACK], top = 0;
  stack[top++] = 0;
  while (top) {
    const node *n = &o->nodes[stack[--top]];
    if (!meets_box(n, origin, inv)) continue;
    if (n->count) {
      for (uint32_t k = n->index; k < n->index + n->count; ++k) {
        uint32_t t = o->order[k];
        const float *nrm = o->s->triangle_normals[t];
        if (nrm[0] * unit[0] + nrm[1] * unit[1] + nrm[2] * unit[2] >= -1e-5) continue; /* not facing it */
        if (crosses(o->s, t, origin, dir)) return 1;
      }
    } else {
      stack[top++] = n->index;
      stack[top++] = (uint32_t)(n - o->nodes) + 1;
    }
  }
  return 0;
}
