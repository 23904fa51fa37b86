/* cor_bind.c — the optimized center of rotation of every vertex
 * (Le & Hodgins 2016, "Real-time Skeletal Skinning with Optimized Centers of
 * Rotation", §4.2-4.3):
 *
 *   p*_i = sum_t s(w_i, w_t) a_t c_t / sum_t s(w_i, w_t) a_t          (eq. 4)
 *
 * over the mesh's triangles t with area a_t, centroid c_t and weights w_t,
 * the mean of its corners' (eq. 5), and the similarity of weight vectors
 *
 *   s(w_p, w_v) = sum_{j<k} w_pj w_pk w_vj w_vk exp(-(w_pj w_vk - w_pk w_vj)^2 / sigma^2)
 *                                                                       (eq. 3)
 * with sigma = 0.1. (The paper sums over ordered pairs j != k: twice this,
 * which cancels in the ratio.) A vertex whose similarity to every triangle is
 * 0 — one influence, or no triangle sharing two of its joints — has no
 * center and is skinned by LBS.
 *
 * Speed: a term of eq. 3 is non-zero only where the vertex and the triangle
 * both weigh joints j and k. So the triangles are filed once by joint pair
 * (j, k), and a vertex visits only the files of its own pairs: the exact sum,
 * in time proportional to how much the weights overlap rather than to
 * vertices x triangles. Vertices are spread over the worker pool. */
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define COR_SIGMA 0.1
#define COR_BLOCK_VERTICES 256u
#define COR_MAX_INFLUENCES 64u      /* per vertex; a triangle merges up to 3x this */

/* One triangle in one joint pair's file. */
typedef struct pair_entry {
  uint64_t key;                   /* (j << 32) | k, j < k */
  float a, b;                     /* the triangle's weights of joints j and k */
  float area;
  float centroid[3];
} pair_entry;

typedef struct cor_index {
  pair_entry *entries;
  size_t entry_count;
  uint64_t *keys;                 /* distinct keys, ascending */
  size_t *starts;                 /* file f is entries[starts[f], starts[f+1]) */
  size_t key_count;
} cor_index;

/* Vertex v's influences with weights normalized to sum 1 and repeated joints
 * merged; returns the count. */
static uint32_t vertex_weights(const skn_rig *rig, uint32_t v, uint32_t *joints, float *weights) {
  uint32_t lo = rig->influence_offsets[v], hi = rig->influence_offsets[v + 1], n = 0;
  float sum = 0;
  for (uint32_t i = lo; i < hi; ++i) {
    uint32_t j = rig->influence_joints[i], k = 0;
    while (k < n && joints[k] != j) ++k;
    if (k == n) {
      joints[n] = j;
      weights[n++] = 0;
    }
    weights[k] += rig->influence_weights[i];
    sum += rig->influence_weights[i];
  }
  for (uint32_t k = 0; k < n; ++k) weights[k] /= sum;
  return n;
}

/* A triangle's weights (eq. 5: the mean of its corners'), merged by joint. */
static uint32_t triangle_weights(const skn_rig *rig, const uint32_t *tri, uint32_t *joints, float *weights) {
  uint32_t n = 0, vj[COR_MAX_INFLUENCES];
  float vw[COR_MAX_INFLUENCES];
  for (int c = 0; c < 3; ++c) {
    uint32_t m = vertex_weights(rig, tri[c], vj, vw);
    for (uint32_t i = 0; i < m; ++i) {
      uint32_t k = 0;
      while (k < n && joints[k] != vj[i]) ++k;
      if (k == n) {
        joints[n] = vj[i];
        weights[n++] = 0;
      }
      weights[k] += vw[i] / 3.0f;
    }
  }
  return n;
}

static int by_key(const void *x, const void *y) {
  const pair_entry *a = x, *b = y;
  return (a->key > b->key) - (a->key < b->key);
}

static void triangle_geometry(const skn_rig *rig, const uint32_t *tri, float *area, float centroid[3]) {
  const float *p = rig->positions + (size_t)tri[0] * 3, *q = rig->positions + (size_t)tri[1] * 3,
              *r = rig->positions + (size_t)tri[2] * 3;
  double u[3], w[3], x[3];
  for (int c = 0; c < 3; ++c) {
    u[c] = (double)q[c] - p[c];
    w[c] = (double)r[c] - p[c];
    centroid[c] = (float)(((double)p[c] + q[c] + r[c]) / 3.0);
  }
  x[0] = u[1] * w[2] - u[2] * w[1];
  x[1] = u[2] * w[0] - u[0] * w[2];
  x[2] = u[0] * w[1] - u[1] * w[0];
  *area = (float)(0.5 * sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]));
}

/* Files every triangle under each pair of joints it weighs. Two passes: count, fill. */
static skn_status build_index(const skn_rig *rig, const uint32_t *tris, uint32_t tri_count, cor_index *ix) {
  uint32_t joints[3 * COR_MAX_INFLUENCES];
  float weights[3 * COR_MAX_INFLUENCES];
  size_t total = 0;
  for (uint32_t t = 0; t < tri_count; ++t) {
    size_t n = triangle_weights(rig, tris + (size_t)t * 3, joints, weights);
    total += n * (n - (n > 0)) / 2;
  }
  ix->entries = malloc((total ? total : 1) * sizeof *ix->entries);
  if (!ix->entries) return skn__fail(SKN_ERR_OUT_OF_MEMORY, "bind: out of memory for %zu COR pair entries", total);
  size_t e = 0;
  for (uint32_t t = 0; t < tri_count; ++t) {
    const uint32_t *tri = tris + (size_t)t * 3;
    uint32_t n = triangle_weights(rig, tri, joints, weights);
    float area, centroid[3];
    triangle_geometry(rig, tri, &area, centroid);
    for (uint32_t x = 0; x < n; ++x)
      for (uint32_t y = x + 1; y < n; ++y) {
        int swap = joints[x] > joints[y];
        pair_entry *p = &ix->entries[e++];
        uint32_t j = swap ? joints[y] : joints[x], k = swap ? joints[x] : joints[y];
        p->key = (uint64_t)j << 32 | k;
        p->a = swap ? weights[y] : weights[x];
        p->b = swap ? weights[x] : weights[y];
        p->area = area;
        memcpy(p->centroid, centroid, sizeof centroid);
      }
  }
  ix->entry_count = total;
  qsort(ix->entries, total, sizeof *ix->entries, by_key);
  ix->keys = malloc((total + 1) * sizeof *ix->keys);
  ix->starts = malloc((total + 2) * sizeof *ix->starts);
  if (!ix->keys || !ix->starts) return skn__fail(SKN_ERR_OUT_OF_MEMORY, "bind: out of memory for the COR index");
  for (size_t i = 0; i < total; ++i)
    if (i == 0 || ix->entries[i].key != ix->entries[i - 1].key) {
      ix->keys[ix->key_count] = ix->entries[i].key;
      ix->starts[ix->key_count++] = i;
    }
  ix->starts[ix->key_count] = total;
  return SKN_OK;
}

/* The file of pair key, as [*lo, *hi); empty when no triangle weighs both. */
static void find_file(const cor_index *ix, uint64_t key, size_t *lo, size_t *hi) {
  size_t l = 0, h = ix->key_count;
  while (l < h) {
    size_t m = (l + h) / 2;
    if (ix->keys[m] < key) l = m + 1; else h = m;
  }
  *lo = *hi = 0;
  if (l < ix->key_count && ix->keys[l] == key) {
    *lo = ix->starts[l];
    *hi = ix->starts[l + 1];
  }
}

/* Adds one pair's terms of eq. 3-4 for a vertex weighing joints (j, k) of
 * the key by (x, y). */
static void add_pair(const cor_index *ix, uint64_t key, double x, double y, double num[3], double *den) {
  size_t lo, hi;
  find_file(ix, key, &lo, &hi);
  const double inv_s2 = 1.0 / (COR_SIGMA * COR_SIGMA);
  for (size_t i = lo; i < hi; ++i) {
    const pair_entry *e = &ix->entries[i];
    double d = x * e->b - y * e->a, term = x * y * e->a * e->b * exp(-d * d * inv_s2) * e->area;
    for (int c = 0; c < 3; ++c) num[c] += term * e->centroid[c];
    *den += term;
  }
}

typedef struct cor_job {
  skn_rig *rig;
  const cor_index *ix;
} cor_job;

static void center_blocks(void *ctx, uint32_t first_block, uint32_t end_block) {
  const cor_job *job = ctx;
  skn_rig *rig = job->rig;
  uint32_t first = first_block * COR_BLOCK_VERTICES;
  uint32_t end = (uint32_t)SKN_MIN((uint64_t)rig->vertex_count, (uint64_t)end_block * COR_BLOCK_VERTICES);
  uint32_t joints[COR_MAX_INFLUENCES];
  float weights[COR_MAX_INFLUENCES];
  for (uint32_t v = first; v < end; ++v) {
    uint32_t n = vertex_weights(rig, v, joints, weights);
    double num[3] = {0, 0, 0}, den = 0;
    for (uint32_t p = 0; p < n; ++p)
      for (uint32_t q = p + 1; q < n; ++q) {
        int swap = joints[p] > joints[q];
        uint64_t key = swap ? (uint64_t)joints[q] << 32 | joints[p] : (uint64_t)joints[p] << 32 | joints[q];
        add_pair(job->ix, key, swap ? weights[q] : weights[p], swap ? weights[p] : weights[q], num, &den);
      }
    rig->has_center[v] = den > 0.0;
    for (int c = 0; c < 3; ++c) rig->centers[(size_t)v * 3 + c] = den > 0.0 ? (float)(num[c] / den) : 0.0f;
  }
}

skn_status skn__cor_centers(skn_rig *rig, const uint32_t *triangles, uint32_t triangle_count) {
  if (rig->max_influences_per_vertex > COR_MAX_INFLUENCES)
    return skn__fail(SKN_ERR_UNSUPPORTED, "bind: COR centers support up to %u influences per vertex, not %u",
                     COR_MAX_INFLUENCES, rig->max_influences_per_vertex);
  cor_index ix = {0};
  rig->centers = malloc((size_t)rig->vertex_count * 3 * sizeof(float));
  rig->has_center = malloc(rig->vertex_count);
  skn_status s = rig->centers && rig->has_center ? build_index(rig, triangles, triangle_count, &ix)
                 : skn__fail(SKN_ERR_OUT_OF_MEMORY, "bind: out of memory for COR centers");
  if (s == SKN_OK) {
    cor_job job = {rig, &ix};
    skn__pool_run(center_blocks, &job, (rig->vertex_count + COR_BLOCK_VERTICES - 1) / COR_BLOCK_VERTICES, 0, 0);
  }
  free(ix.entries);
  free(ix.keys);
  free(ix.starts);
  return s;
}
