/* weights.h — skn_compute_weights' parts (abi/skn.h section 7):
 *
 *   weights.c    the call: checks, the surface (welded where asked), the
 *                per-vertex store (joints, pruning, normalizing)
 *   closest.c    distances to bone segments, the closest-bone falloff
 *   heat.c       bone heat: the heat term, the Laplacian, the solves
 *   occlusion.c  a bounding-volume hierarchy of the triangles: may a
 *                vertex see a point of a bone?
 *   cholmod.c    SuiteSparse's CHOLMOD, loaded at the first solve
 */
#ifndef SKN_WEIGHTS_H
#define SKN_WEIGHTS_H

#include "../internal.h"

/* The surface the weights are solved on: the caller's vertices, welded
 * where asked, with unit triangle normals and vertex normals. */
typedef struct skn_wsurface {
  uint32_t vertex_count;
  float (*positions)[3];
  uint32_t triangle_count;
  uint32_t (*triangles)[3];
  float (*triangle_normals)[3]; /* unit, or 0 for a triangle of no area */
  float (*vertex_normals)[3];   /* the normalized sum of the unit triangle normals around it */
  uint32_t *caller_vertex;      /* a surface vertex's first caller vertex, for messages */
  uint32_t *source_triangle;    /* a surface triangle's index in the caller's */
  int non_manifold;             /* SKN_WEIGHTS_NON_MANIFOLD */
} skn_wsurface;

/* The heat sources: segments, each giving its weight to a joint. */
typedef struct skn_wbones {
  uint32_t count;
  const float *heads, *tails;   /* 3 per bone */
  const uint32_t *joints;       /* NULL: bone b -> joint b */
  uint32_t joint_count;
} skn_wbones;

/* ---- closest.c ---- */

/* The closest point of segment [a, b] to p, and its distance. */
double skn__segment_closest(const float p[3], const float a[3], const float b[3], double y[3]);

/* Closest-bone values of one point, one per bone: (d_min / d_b)^4, 1 for
 * a bone at distance 0 (where d_min is 0, the bones through the point
 * share it). */
void skn__closest_values(const skn_wbones *bones, const float p[3], double *values);

/* ---- occlusion.c ---- */

typedef struct skn_occluder skn_occluder;

skn_status skn__occluder_build(const skn_wsurface *s, skn_occluder **out);
void skn__occluder_free(skn_occluder *o);
/* Does the segment from `from` along v (its whole length, but for 1e-5 of
 * it at each end) cross a triangle facing it (unit normal . v/|v| < -1e-5)? */
int skn__occluded(const skn_occluder *o, const float from[3], const double v[3]);

/* ---- heat.c ---- */

/* Bone heat on the surface: values[b * n + i] is bone b's solution at
 * surface vertex i; has_heat[i] is 0 where a vertex took no part (the
 * fallbacks of skn.h section 7: the caller gives it closest-bone values). */
skn_status skn__heat_solve(const skn_wsurface *s, const skn_wbones *bones, uint32_t threads, double *values,
                           uint8_t *has_heat);

/* ---- cholmod.c ---- */

#include <suitesparse/cholmod.h>

typedef struct skn_cholmod {
  int (*start)(cholmod_common *);
  int (*finish)(cholmod_common *);
  cholmod_triplet *(*allocate_triplet)(size_t, size_t, size_t, int, int, cholmod_common *);
  int (*free_triplet)(cholmod_triplet **, cholmod_common *);
  cholmod_sparse *(*triplet_to_sparse)(cholmod_triplet *, size_t, cholmod_common *);
  int (*free_sparse)(cholmod_sparse **, cholmod_common *);
  cholmod_factor *(*analyze)(cholmod_sparse *, cholmod_common *);
  int (*factorize)(cholmod_sparse *, cholmod_factor *, cholmod_common *);
  int (*free_factor)(cholmod_factor **, cholmod_common *);
  cholmod_dense *(*allocate_dense)(size_t, size_t, size_t, int, cholmod_common *);
  int (*free_dense)(cholmod_dense **, cholmod_common *);
  cholmod_dense *(*solve)(int, cholmod_factor *, cholmod_dense *, cholmod_common *);
} skn_cholmod;

/* CHOLMOD's calls, from libcholmod.so.3 (dlopen'd once); NULL, with
 * skn_last_error set (SKN_ERR_UNSUPPORTED), where it cannot be loaded. */
const skn_cholmod *skn__cholmod(void);

/* cholmod_start with skn's settings: quiet (errors come back as skn's). */
int skn__cholmod_start(const skn_cholmod *cm, cholmod_common *c);

#endif
