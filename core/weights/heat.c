/* heat.c — bone heat (Baran & Popovic 2007, section 4; the formulas as
 * Blender 3.4 computes them, abi/skn.h section 7). Per bone b, on the
 * surface's vertices i:
 *
 *   M u_b = H (p . [b nearest to i]),
 *   M_ii = H_i + a_i sum_j w_ij,  M_ij = -a_i w_ij,
 *
 * w_ij the cotangents opposite edge ij averaged over its triangles and
 * a_i = 1/(4 A_i), A_i the mixed area (Meyer et al. 2003). Row i divided
 * by a_i makes the matrix symmetric, L + diag(H/a) with L the weighted
 * graph Laplacian, and positive definite where every piece of the surface
 * has some heat: one Cholesky factorization serves every bone.
 *
 * Vertices outside the system: one whose triangles have no area (a_i = 0;
 * its cotangents are 0 too, so nothing couples to it) takes u = p where it
 * sees a bone, as M's row H_i u_i = H_i p_i says; a piece of the surface
 * in which no vertex sees a bone has no solution, and its vertices, like
 * a vertex that sees none alone, are left to the caller's fallback. */
#include "weights.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TERM_BLOCK 256u   /* vertices a pool block */
#define SOLVE_COLUMNS 4u  /* bones a solve */
#define TIE 1e-4          /* bones within this of the nearest distance are nearest too */
#define MIN_DISTANCE 1e-4 /* H's distance floor */

/* Blender computes the operator in float, and a sliver's cotangent is
 * mostly the rounding of its cross product: to give the same weights
 * where a mesh has slivers (a subdivided polygon's collinear corners),
 * the cotangents and areas below are float arithmetic in Blender's order
 * (its math_geom.c and math_vector.c calls: cotangent_tri_weight_v3,
 * angle_v3v3v3, area_tri_v3), the solve double. */
static void sub3f(float r[3], const float *a, const float *b) {
  r[0] = a[0] - b[0], r[1] = a[1] - b[1], r[2] = a[2] - b[2];
}
static float dot3f(const float *a, const float *b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
static void cross3f(float r[3], const float *a, const float *b) {
  r[0] = a[1] * b[2] - a[2] * b[1], r[1] = a[2] * b[0] - a[0] * b[2], r[2] = a[0] * b[1] - a[1] * b[0];
}

typedef struct heat {
  const skn_wsurface *s;
  const skn_wbones *bones;
  const skn_occluder *occluder;
  double *h, *p;           /* per vertex */
  uint8_t *nearest;        /* bones x vertices */
  /* the system */
  const skn_cholmod *cm;
  cholmod_factor *factor;
  uint32_t free_count;
  uint32_t *row;           /* vertex -> row, UINT32_MAX outside the system */
  uint32_t *vertex_of_row;
  double *a;
  double *values;
  int failed;              /* a solve's allocation failed */
} heat;

/* The closest point y of segment [a, b] to x, in float as Blender's
 * closest_to_line_segment_v3. */
static void segment_closest_f(float y[3], const float *x, const float *a, const float *b) {
  float u[3], h[3];
  sub3f(u, b, a), sub3f(h, x, a);
  float lambda = dot3f(u, h) / dot3f(u, u);
  for (int c = 0; c < 3; ++c) y[c] = !(lambda > 0.0f) ? a[c] : !(lambda < 1.0f) ? b[c] : a[c] + u[c] * lambda;
}

/* D_ib, Blender's distance (float, its heat_source_distance): bones behind
 * the surface (against its normal) are near, bones in front far. */
static float heat_distance(const heat *c, uint32_t i, uint32_t b, float y[3]) {
  const float *x = c->s->positions[i];
  segment_closest_f(y, x, c->bones->heads + 3 * b, c->bones->tails + 3 * b);
  float d[3];
  sub3f(d, x, y);
  float len2 = dot3f(d, d), dist = 0.0f;
  if (len2 > 1e-35f) {
    dist = sqrtf(len2);
    for (int k = 0; k < 3; ++k) d[k] *= 1.0f / dist;
  } else {
    d[0] = d[1] = d[2] = 0.0f;
  }
  float cosine = dot3f(d, c->s->vertex_normals[i]);
  return dist / (0.5f * (cosine + 1.001f));
}

/* H_i, p_i and the nearest visible bones of a block of vertices. */
static void heat_terms(void *ctx, uint32_t first_block, uint32_t end_block) {
  heat *c = ctx;
  uint32_t n = c->s->vertex_count, nb = c->bones->count;
  uint32_t end = end_block * TERM_BLOCK < n ? end_block * TERM_BLOCK : n;
  for (uint32_t i = first_block * TERM_BLOCK; i < end; ++i) {
    float y[3], dmin = 1e10f;
    for (uint32_t b = 0; b < nb; ++b) {
      float d = heat_distance(c, i, b, y);
      dmin = d < dmin ? d : dmin;
    }
    uint32_t k = 0;
    for (uint32_t b = 0; b < nb; ++b) {
      if (!(heat_distance(c, i, b, y) <= dmin * (1.0f + (float)TIE))) continue;
      const float *x = c->s->positions[i];
      double v[3] = {(double)y[0] - x[0], (double)y[1] - x[1], (double)y[2] - x[2]};
      if (skn__occluded(c->occluder, x, v)) continue;
      c->nearest[(size_t)b * n + i] = 1;
      ++k;
    }
    float d = dmin > (float)MIN_DISTANCE ? dmin : (float)MIN_DISTANCE;
    c->h[i] = k ? (float)k / (d * d) : 0.0f;
    c->p[i] = k ? 1.0f / (float)k : 0.0f;
  }
}

typedef struct edge {
  uint64_t key; /* (lower vertex << 32) | higher */
  double cot;   /* the opposite corner's */
  uint32_t triangle;
} edge;

static int edge_order(const void *pa, const void *pb) {
  const edge *a = pa, *b = pb;
  return a->key < b->key ? -1 : a->key > b->key;
}

/* cot of the corner at p between q and r; 0 where |(q-p) x (r-p)| <= FLT_EPSILON. */
static float corner_cot(const float *p, const float *q, const float *r) {
  float a[3], b[3], c[3];
  sub3f(a, q, p), sub3f(b, r, p), cross3f(c, a, b);
  float len = sqrtf(dot3f(c, c));
  return len > FLT_EPSILON ? dot3f(a, b) / len : 0.0f;
}

/* Is the corner at p, between q and r, wider than 90 degrees? */
static int obtuse_at(const float *p, const float *q, const float *r) {
  float a[3], b[3];
  sub3f(a, q, p), sub3f(b, r, p);
  return dot3f(a, b) < 0;
}

/* The cotangents of every triangle into edges (3 a triangle), and twice
 * each vertex's mixed area into area2 (float, summed in triangle order). */
static void cotangents(const skn_wsurface *s, edge *edges, float *area2) {
  for (uint32_t t = 0; t < s->triangle_count; ++t) {
    const uint32_t *v = s->triangles[t];
    const float *p[3] = {s->positions[v[0]], s->positions[v[1]], s->positions[v[2]]};
    float cot[3];
    int obtuse = -1;
    for (int k = 0; k < 3; ++k) {
      const float *q = p[(k + 1) % 3], *r = p[(k + 2) % 3];
      cot[k] = corner_cot(p[k], q, r);
      if (obtuse < 0 && obtuse_at(p[k], q, r)) obtuse = k;
      uint32_t a = v[(k + 1) % 3], b = v[(k + 2) % 3];
      edges[3 * (size_t)t + k] = (edge){a < b ? (uint64_t)a << 32 | b : (uint64_t)b << 32 | a, cot[k], t};
    }
    if (obtuse >= 0) { /* Meyer's fallback: half the area at the obtuse corner, a quarter elsewhere (x2) */
      float e1[3], e2[3], x[3];
      sub3f(e1, p[1], p[0]), sub3f(e2, p[2], p[0]), cross3f(x, e1, e2);
      float area = 0.5f * sqrtf(dot3f(x, x));
      for (int k = 0; k < 3; ++k) area2[v[k]] += k == obtuse ? area : area * 0.5f;
    } else { /* Voronoi: (cot_j |e_j|^2 + cot_k |e_k|^2) / 8 at corner i (x2) */
      float t2[3];
      for (int k = 0; k < 3; ++k) {
        float e[3];
        sub3f(e, p[(k + 1) % 3], p[(k + 2) % 3]);
        float len = sqrtf(dot3f(e, e));
        t2[k] = cot[k] * (len * len);
      }
      for (int k = 0; k < 3; ++k) area2[v[k]] += (t2[(k + 1) % 3] + t2[(k + 2) % 3]) * 0.25f;
    }
  }
}

static uint32_t find(uint32_t *parent, uint32_t v) {
  while (parent[v] != v) v = parent[v] = parent[parent[v]];
  return v;
}

/* Sums each edge's cotangents into its first record (averaged over its
 * triangles), returns the number of distinct edges (compacted to the front),
 * or UINT32_MAX after failing on a non-manifold edge. */
static uint32_t merge_edges(const skn_wsurface *s, edge *edges, int non_manifold) {
  size_t count = 3 * (size_t)s->triangle_count, out = 0;
  qsort(edges, count, sizeof *edges, edge_order);
  for (size_t e = 0; e < count;) {
    size_t f = e;
    double sum = 0;
    while (f < count && edges[f].key == edges[e].key) sum += edges[f++].cot;
    if (f - e > 2 && !non_manifold) {
      skn__fail(SKN_ERR_INVALID_ARGUMENT,
                "weights: triangle %u: its edge (%u, %u) is in %zu triangles (non-manifold; SKN_WEIGHTS_NON_MANIFOLD "
                "accepts it)",
                s->source_triangle[edges[f - 1].triangle], s->caller_vertex[edges[e].key >> 32],
                s->caller_vertex[edges[e].key & 0xFFFFFFFFu], f - e);
      return UINT32_MAX;
    }
    edges[out] = edges[e];
    edges[out++].cot = sum / (double)(f - e);
    e = f;
  }
  return (uint32_t)out;
}

/* Which vertices the system holds: a > 0, and a piece with heat. */
static skn_status choose_rows(heat *c, const edge *edges, uint32_t edge_count) {
  uint32_t n = c->s->vertex_count;
  uint32_t *parent = skn__alloc(sizeof *parent * n);
  uint8_t *warm = skn__calloc(n, 1);
  if (!parent || !warm) {
    skn__free(parent), skn__free(warm);
    return skn__fail(SKN_ERR_OUT_OF_MEMORY, "weights: out of memory for the heat system");
  }
  for (uint32_t i = 0; i < n; ++i) parent[i] = i;
  for (uint32_t e = 0; e < edge_count; ++e)
    if (edges[e].cot != 0) parent[find(parent, edges[e].key >> 32)] = find(parent, edges[e].key & 0xFFFFFFFFu);
  for (uint32_t i = 0; i < n; ++i)
    if (c->a[i] > 0 && c->h[i] > 0) warm[find(parent, i)] = 1;
  c->free_count = 0;
  for (uint32_t i = 0; i < n; ++i) {
    c->row[i] = c->a[i] > 0 && warm[find(parent, i)] ? c->free_count++ : UINT32_MAX;
    if (c->row[i] != UINT32_MAX) c->vertex_of_row[c->row[i]] = i;
  }
  skn__free(parent), skn__free(warm);
  return SKN_OK;
}

/* Factorizes L + diag(H/a) over the rows: CHOLMOD's simplicial LDL'
 * (Davis 2008, section 3). Its supernodal LL' is the faster only on an
 * optimized BLAS; on the reference BLAS Debian installs by default it took
 * 2.7x as long on a 50,000-vertex body (0.25 s against 0.09, and its solves
 * 0.35 s against 0.15), where the surface's graph leaves small fronts.
 * LDL' needs only nonzero pivots: the cotangents of obtuse triangles, which
 * can make the matrix indefinite, do not stop it. */
static skn_status factorize(heat *c, const edge *edges, uint32_t edge_count, cholmod_common *cc) {
  const skn_cholmod *cm = c->cm;
  uint32_t m = c->free_count;
  cholmod_triplet *t = cm->allocate_triplet(m, m, (size_t)m + edge_count, -1, CHOLMOD_REAL, cc);
  if (!t) return skn__fail(SKN_ERR_OUT_OF_MEMORY, "weights: out of memory for the heat system (CHOLMOD)");
  int *ti = t->i, *tj = t->j;
  double *tx = t->x, *diag = tx; /* the diagonal first: entry r is row r's */
  for (uint32_t r = 0; r < m; ++r) {
    uint32_t i = c->vertex_of_row[r];
    ti[r] = tj[r] = (int)r, diag[r] = c->h[i] / c->a[i];
  }
  size_t nz = m;
  for (uint32_t e = 0; e < edge_count; ++e) {
    uint32_t ri = c->row[edges[e].key >> 32], rj = c->row[edges[e].key & 0xFFFFFFFFu];
    if (edges[e].cot == 0 || ri == UINT32_MAX || rj == UINT32_MAX) continue;
    diag[ri] += edges[e].cot, diag[rj] += edges[e].cot;
    ti[nz] = (int)(ri > rj ? ri : rj), tj[nz] = (int)(ri > rj ? rj : ri), tx[nz++] = -edges[e].cot;
  }
  t->nnz = nz;
  cholmod_sparse *A = cm->triplet_to_sparse(t, nz, cc);
  cm->free_triplet(&t, cc);
  if (!A) return skn__fail(SKN_ERR_OUT_OF_MEMORY, "weights: out of memory for the heat system (CHOLMOD)");
  cc->supernodal = CHOLMOD_SIMPLICIAL, cc->final_ll = 0;
  c->factor = cm->analyze(A, cc);
  if (c->factor && (!cm->factorize(A, c->factor, cc) || cc->status != CHOLMOD_OK)) cm->free_factor(&c->factor, cc);
  cm->free_sparse(&A, cc);
  if (c->factor) return SKN_OK;
  if (cc->status == CHOLMOD_OUT_OF_MEMORY)
    return skn__fail(SKN_ERR_OUT_OF_MEMORY, "weights: out of memory factorizing the heat system (CHOLMOD)");
  return skn__fail(SKN_ERR_SINGULAR, "weights: the heat system of %u vertices is singular (CHOLMOD status %d)", m,
                   cc->status);
}

/* Solves a block of SOLVE_COLUMNS bones, with a CHOLMOD workspace of its own. */
static void heat_solves(void *ctx, uint32_t first_block, uint32_t end_block) {
  heat *c = ctx;
  const skn_cholmod *cm = c->cm;
  uint32_t n = c->s->vertex_count, m = c->free_count, nb = c->bones->count;
  cholmod_common cc;
  if (!skn__cholmod_start(cm, &cc)) {
    c->failed = 1;
    return;
  }
  for (uint32_t blk = first_block; blk < end_block; ++blk) {
    uint32_t b0 = blk * SOLVE_COLUMNS, cols = nb - b0 < SOLVE_COLUMNS ? nb - b0 : SOLVE_COLUMNS;
    cholmod_dense *B = cm->allocate_dense(m, cols, m, CHOLMOD_REAL, &cc);
    if (!B) {
      c->failed = 1;
      break;
    }
    double *bx = B->x;
    for (uint32_t k = 0; k < cols; ++k)
      for (uint32_t r = 0; r < m; ++r) {
        uint32_t i = c->vertex_of_row[r];
        bx[(size_t)k * m + r] = c->nearest[(size_t)(b0 + k) * n + i] ? c->h[i] * c->p[i] / c->a[i] : 0;
      }
    cholmod_dense *X = cm->solve(CHOLMOD_A, c->factor, B, &cc);
    cm->free_dense(&B, &cc);
    if (!X) {
      c->failed = 1;
      break;
    }
    const double *xx = X->x;
    for (uint32_t k = 0; k < cols; ++k)
      for (uint32_t r = 0; r < m; ++r) c->values[(size_t)(b0 + k) * n + c->vertex_of_row[r]] = xx[(size_t)k * m + r];
    cm->free_dense(&X, &cc);
  }
  cm->finish(&cc);
}

/* The values outside the system (see the top) and which vertices have heat. */
static void outside_values(heat *c, uint8_t *has_heat) {
  uint32_t n = c->s->vertex_count, nb = c->bones->count;
  for (uint32_t i = 0; i < n; ++i) {
    if (c->row[i] != UINT32_MAX) {
      has_heat[i] = 1;
    } else if (c->a[i] == 0 && c->h[i] > 0) {
      has_heat[i] = 1;
      for (uint32_t b = 0; b < nb; ++b) c->values[(size_t)b * n + i] = c->nearest[(size_t)b * n + i] ? c->p[i] : 0;
    } else {
      has_heat[i] = 0;
    }
  }
}

static skn_status solve_system(heat *c, const edge *edges, uint32_t edge_count, uint32_t threads) {
  cholmod_common cc;
  if (!skn__cholmod_start(c->cm, &cc)) return skn__fail(SKN_ERR_OUT_OF_MEMORY, "weights: CHOLMOD could not start");
  skn_status s = choose_rows(c, edges, edge_count);
  if (s == SKN_OK && c->free_count) s = factorize(c, edges, edge_count, &cc);
  if (s == SKN_OK && c->free_count) {
    skn__pool_run(heat_solves, c, (c->bones->count + SOLVE_COLUMNS - 1) / SOLVE_COLUMNS, threads, 0);
    if (c->failed) s = skn__fail(SKN_ERR_OUT_OF_MEMORY, "weights: out of memory solving the heat system (CHOLMOD)");
  }
  if (c->factor) c->cm->free_factor(&c->factor, &cc);
  c->cm->finish(&cc);
  return s;
}

skn_status skn__heat_solve(const skn_wsurface *s, const skn_wbones *bones, uint32_t threads, double *values,
                           uint8_t *has_heat) {
  heat c;
  memset(&c, 0, sizeof c);
  c.s = s, c.bones = bones;
  c.values = values;
  if (!(c.cm = skn__cholmod())) return SKN_ERR_UNSUPPORTED;
  uint32_t n = s->vertex_count;
  size_t edge_records = 3 * (size_t)s->triangle_count;
  edge *edges = skn__alloc(sizeof *edges * (edge_records + 1));
  c.h = skn__alloc(sizeof *c.h * n), c.p = skn__alloc(sizeof *c.p * n), c.a = skn__calloc(n, sizeof *c.a);
  float *area2 = skn__calloc(n, sizeof *area2);
  c.nearest = skn__calloc((size_t)bones->count * n, 1);
  c.row = skn__alloc(sizeof *c.row * n), c.vertex_of_row = skn__alloc(sizeof *c.vertex_of_row * n);
  skn_status st = SKN_OK;
  if (!edges || !area2 || !c.h || !c.p || !c.a || !c.nearest || !c.row || !c.vertex_of_row)
    st = skn__fail(SKN_ERR_OUT_OF_MEMORY, "weights: out of memory for bone heat (%u vertices, %u bones)", n,
                   bones->count);
  uint32_t edge_count = 0;
  if (st == SKN_OK) {
    cotangents(s, edges, area2);
    for (uint32_t i = 0; i < n; ++i) c.a[i] = area2[i] != 0 ? 0.5f / area2[i] : 0; /* 1 / (4 A_i) */
    edge_count = merge_edges(s, edges, s->non_manifold);
    if (edge_count == UINT32_MAX) st = SKN_ERR_INVALID_ARGUMENT;
  }
  skn_occluder *occ = NULL;
  if (st == SKN_OK) st = skn__occluder_build(s, &occ);
  if (st == SKN_OK) {
    c.occluder = occ;
    skn__pool_run(heat_terms, &c, (n + TERM_BLOCK - 1) / TERM_BLOCK, threads, 0);
    memset(values, 0, sizeof *values * (size_t)bones->count * n);
    st = solve_system(&c, edges, edge_count, threads);
  }
  if (st == SKN_OK) outside_values(&c, has_heat);
  skn__occluder_free(occ);
  skn__free(edges), skn__free(area2), skn__free(c.h), skn__free(c.p), skn__free(c.a), skn__free(c.nearest);
  skn__free(c.row), skn__free(c.vertex_of_row);
  return st;
}
