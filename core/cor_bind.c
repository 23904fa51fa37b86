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
 * vertices x triangles. In a file, triangles of the same weights are one
 * entry (their areas and area-weighted centroids summed): where weights
 * repeat, as quantized or region-wide weights do, the work follows the
 * distinct weights, not the triangles. Files are grouped by a hash of
 * their key (a counting sort, no sort of the whole index), and vertices are
 * spread over the worker pool. */
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define COR_SIGMA 0.1
#define COR_BLOCK_VERTICES 256u
#define COR_MAX_INFLUENCES 64u      /* per vertex; a triangle merges up to 3x this */

/* A triangle filed under one joint pair, as build_index collects them. */
typedef struct pair_triangle {
  uint64_t key;                   /* (j << 32) | k, j < k */
  float a, b;                     /* the triangle's weights of joints j and k */
  float area;
  float centroid[3];
} pair_triangle;

/* A file's entry: its triangles of the same weights (a, b), merged. Their
 * terms of eq. 3-4 differ only by the area and the area-weighted centroid,
 * which add: the sum is the same, in fewer terms. Meshes whose weights repeat
 * (quantized weights, regions bound alike) have files of few entries. */
typedef struct pair_entry {
  float a, b;
  double area;                    /* sum of a_t */
  double moment[3];               /* sum of a_t c_t */
} pair_entry;

/* The files, found by key through an open-addressing table. */
typedef struct cor_index {
  pair_entry *entries;
  size_t *starts;                 /* file f is entries[starts[f], starts[f + 1]) */
  uint64_t *slot_keys;            /* the table: a key, or COR_EMPTY ... */
  uint32_t *slot_files;           /* ... and its file */
  size_t slot_mask, file_count;
} cor_index;

#define COR_EMPTY UINT64_MAX      /* no key: j < k makes (j << 32) | k smaller */

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

/* A file's triangles by weights, so that equal ones are neighbours. */
static int by_weights(const void *x, const void *y) {
  const pair_triangle *p = x, *q = y;
  if (p->a != q->a) return p->a < q->a ? -1 : 1;
  return (p->b > q->b) - (p->b < q->b);
}

static size_t slot_of(const cor_index *ix, uint64_t key) {
  size_t h = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 17) & ix->slot_mask;
  while (ix->slot_keys[h] != COR_EMPTY && ix->slot_keys[h] != key) h = (h + 1) & ix->slot_mask;
  return h;
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

/* Every triangle under each pair of joints it weighs, in triangle order;
 * *count of them. */
static pair_triangle *collect(const skn_rig *rig, const uint32_t *tris, uint32_t tri_count, size_t *count) {
  uint32_t joints[3 * COR_MAX_INFLUENCES];
  float weights[3 * COR_MAX_INFLUENCES];
  size_t total = 0, e = 0;
  for (uint32_t t = 0; t < tri_count; ++t) {
    size_t n = triangle_weights(rig, tris + (size_t)t * 3, joints, weights);
    total += n * (n - (n > 0)) / 2;
  }
  pair_triangle *all = skn__alloc((total ? total : 1) * sizeof *all);
  for (uint32_t t = 0; all && t < tri_count; ++t) {
    const uint32_t *tri = tris + (size_t)t * 3;
    uint32_t n = triangle_weights(rig, tri, joints, weights);
    float area, centroid[3];
    triangle_geometry(rig, tri, &area, centroid);
    for (uint32_t x = 0; x < n; ++x)
      for (uint32_t y = x + 1; y < n; ++y) {
        int swap = joints[x] > joints[y];
        pair_triangle *p = &all[e++];
        p->key = swap ? (uint64_t)joints[y] << 32 | joints[x] : (uint64_t)joints[x] << 32 | joints[y];
        p->a = swap ? weights[y] : weights[x];
        p->b = swap ? weights[x] : weights[y];
        p->area = area;
        memcpy(p->centroid, centroid, sizeof centroid);
      }
  }
  *count = total;
  return all;
}

/* The table of keys, each a file, and where each file starts in `grouped`
 * (the triangles regrouped by key, in triangle order: a counting sort). */
static skn_status group_by_key(cor_index *ix, const pair_triangle *all, size_t total, pair_triangle *grouped,
                               size_t *first) {
  size_t slots = 16;
  while (slots < 2 * total) slots *= 2;
  ix->slot_mask = slots - 1;
  ix->slot_keys = skn__alloc(slots * sizeof *ix->slot_keys);
  ix->slot_files = skn__alloc(slots * sizeof *ix->slot_files);
  uint32_t *file_of = skn__alloc((total ? total : 1) * sizeof *file_of);
  size_t *fill = NULL;
  skn_status s = ix->slot_keys && ix->slot_files && file_of ? SKN_OK
                 : skn__fail(SKN_ERR_OUT_OF_MEMORY, "bind: out of memory for the COR index");
  for (size_t i = 0; s == SKN_OK && i < slots; ++i) ix->slot_keys[i] = COR_EMPTY;
  for (size_t i = 0; s == SKN_OK && i < total; ++i) {
    size_t h = slot_of(ix, all[i].key);
    if (ix->slot_keys[h] == COR_EMPTY) {
      ix->slot_keys[h] = all[i].key;
      ix->slot_files[h] = (uint32_t)ix->file_count++;
      first[ix->file_count] = 0;
    }
    file_of[i] = ix->slot_files[h];
    ++first[file_of[i] + 1];
  }
  if (s == SKN_OK && !(fill = skn__alloc((ix->file_count + 1) * sizeof *fill)))
    s = skn__fail(SKN_ERR_OUT_OF_MEMORY, "bind: out of memory for the COR index");
  if (s == SKN_OK) {
    first[0] = 0;
    for (size_t f = 0; f < ix->file_count; ++f) first[f + 1] += first[f];
    memcpy(fill, first, ix->file_count * sizeof *fill);
    for (size_t i = 0; i < total; ++i) grouped[fill[file_of[i]]++] = all[i];
  }
  skn__free(file_of);
  skn__free(fill);
  return s;
}

/* Each file's triangles of equal weights merged into one entry. */
static void merge_files(cor_index *ix, pair_triangle *grouped, const size_t *first) {
  size_t e = 0;
  for (size_t f = 0; f < ix->file_count; ++f) {
    pair_triangle *t = grouped + first[f];
    size_t n = first[f + 1] - first[f];
    qsort(t, n, sizeof *t, by_weights); /* merge sort (glibc): equal weights keep triangle order */
    ix->starts[f] = e;
    for (size_t i = 0; i < n; ++i) {
      pair_entry *p = &ix->entries[e];
      if (i == 0 || t[i].a != p[-1].a || t[i].b != p[-1].b) {
        memset(p, 0, sizeof *p);
        p->a = t[i].a, p->b = t[i].b;
        ++e;
      } else {
        --p;
      }
      p->area += t[i].area;
      for (int c = 0; c < 3; ++c) p->moment[c] += (double)t[i].area * t[i].centroid[c];
    }
  }
  ix->starts[ix->file_count] = e;
}

/* Files every triangle under each pair of joints it weighs, triangles of
 * equal weights merged. */
static skn_status build_index(const skn_rig *rig, const uint32_t *tris, uint32_t tri_count, cor_index *ix) {
  size_t total = 0;
  pair_triangle *all = collect(rig, tris, tri_count, &total), *grouped = NULL;
  size_t *first = NULL;
  if (all) grouped = skn__alloc((total ? total : 1) * sizeof *grouped);
  if (grouped) first = skn__calloc(total + 2, sizeof *first);
  skn_status s = first ? SKN_OK : skn__fail(SKN_ERR_OUT_OF_MEMORY, "bind: out of memory for %zu COR pair entries", total);
  if (s == SKN_OK) s = group_by_key(ix, all, total, grouped, first);
  skn__free(all);
  if (s == SKN_OK) {
    ix->entries = skn__alloc((total ? total : 1) * sizeof *ix->entries);
    ix->starts = skn__alloc((ix->file_count + 1) * sizeof *ix->starts);
    if (!ix->entries || !ix->starts) s = skn__fail(SKN_ERR_OUT_OF_MEMORY, "bind: out of memory for the COR index");
  }
  if (s == SKN_OK) merge_files(ix, grouped, first);
  skn__free(grouped);
  skn__free(first);
  return s;
}

/* The file of pair key, as [*lo, *hi); empty when no triangle weighs both. */
static void find_file(const cor_index *ix, uint64_t key, size_t *lo, size_t *hi) {
  size_t h = slot_of(ix, key);
  *lo = *hi = 0;
  if (ix->slot_keys[h] == key) {
    *lo = ix->starts[ix->slot_files[h]];
    *hi = ix->starts[ix->slot_files[h] + 1];
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
    double d = x * e->b - y * e->a, term = x * y * e->a * e->b * exp(-d * d * inv_s2);
    for (int c = 0; c < 3; ++c) num[c] += term * e->moment[c];
    *den += term * e->area;
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
  rig->centers = skn__alloc((size_t)rig->vertex_count * 3 * sizeof(float));
  rig->has_center = skn__alloc(rig->vertex_count);
  skn_status s = rig->centers && rig->has_center ? build_index(rig, triangles, triangle_count, &ix)
                 : skn__fail(SKN_ERR_OUT_OF_MEMORY, "bind: out of memory for COR centers");
  if (s == SKN_OK) {
    cor_job job = {rig, &ix};
    skn__pool_run(center_blocks, &job, (rig->vertex_count + COR_BLOCK_VERTICES - 1) / COR_BLOCK_VERTICES, 0, 0);
  }
  skn__free(ix.entries);
  skn__free(ix.starts);
  skn__free(ix.slot_keys);
  skn__free(ix.slot_files);
  return s;
}
