/* bench_yardstick.c — the shared yardstick: ../shared/bench/lbs_ref.c, a
 * plain scalar LBS loop that never changes (its README has ozz-animation's
 * ratios to it on this kind of machine), built at -O2 beside the checkout
 * (Makefile, SKN_YARDSTICK) and timed in the same run as skn, so that a
 * figure from one run compares with another run's and with ozz's. It skins
 * the bench rig's own vertices in its layout: packed float3 attributes,
 * four uint16 joints and float weights a vertex (skn_rig_gpu_attributes:
 * the rig's weights after bind's normalising), a 3x4 row-major palette
 * (SKN_PALETTE_ROWS3X4); normals by the blended matrix, not renormalised,
 * as its README says. Without the shared folder, bench leaves it out. */
#include "bench.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef SKN_YARDSTICK
#include "lbs_ref.h"

typedef void (*ref_fn)(const ref_args *a, size_t b, size_t e);

struct bench_yardstick {
  ref_args a;
  uint32_t n;
  void *blocks[8];
};

/* Whether the yardstick skins what skn does: its positions within 1e-5 of
 * the model's size of skn_skin's LBS (the same vertices, weights, pose). */
static int agrees(const bench_yardstick *y, const bench_rig *b) {
  float *p = malloc((size_t)y->n * 12);
  skn_skin_desc s = {sizeof s};
  s.positions.data = p;
  int ok = p && skn_skin(b->rig, b->pose, &s) == SKN_OK;
  lbs_p_O2(&y->a, 0, y->n);
  double worst = 0, lo[3] = {1e30, 1e30, 1e30}, hi[3] = {-1e30, -1e30, -1e30};
  for (size_t i = 0; ok && i < (size_t)y->n * 3; ++i) {
    worst = fmax(worst, fabs((double)p[i] - y->a.opos[i]));
    lo[i % 3] = fmin(lo[i % 3], p[i]), hi[i % 3] = fmax(hi[i % 3], p[i]);
  }
  double size = sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) + (hi[2] - lo[2]) * (hi[2] - lo[2]));
  free(p);
  return ok && worst <= 1e-5 * size;
}

bench_yardstick *bench_yardstick_new(const bench_rig *b) {
  skn_rig_info info = {sizeof info};
  if (skn_rig_info_get(b->rig, &info) || info.max_influences_per_vertex > 4) return NULL;
  bench_yardstick *y = calloc(1, sizeof *y);
  uint32_t n = info.vertex_count;
  float *pos = malloc((size_t)n * 12), *nrm = malloc((size_t)n * 12), *tan4 = malloc((size_t)n * 16);
  float *tan = malloc((size_t)n * 12), *w = malloc((size_t)n * 16), *mats = malloc((size_t)info.joint_count * 48);
  uint16_t *idx = malloc((size_t)n * 8);
  float *opos = malloc((size_t)n * 12), *onrm = malloc((size_t)n * 12), *otan = malloc((size_t)n * 12);
  void *all[] = {pos, nrm, tan4, tan, w, mats, idx, opos};
  int ok = y && pos && nrm && tan4 && tan && w && mats && idx && opos && onrm && otan;
  skn_gpu_attributes ga = {sizeof ga};
  ga.influences = 4, ga.joint_bits = 16;
  ga.joints.data = idx, ga.weights.data = w, ga.positions.data = pos, ga.normals.data = nrm, ga.tangents.data = tan4;
  ok = ok && skn_rig_gpu_attributes(b->rig, &ga) == SKN_OK &&
       skn_pose_palette(b->pose, SKN_PALETTE_ROWS3X4, mats, (size_t)info.joint_count * 48) == SKN_OK;
  if (!ok) {
    for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i) free(all[i]);
    free(onrm), free(otan), free(y);
    return NULL;
  }
  for (uint32_t v = 0; v < n; ++v) memcpy(tan + (size_t)v * 3, tan4 + (size_t)v * 4, 12);
  free(tan4);
  y->a = (ref_args){pos, nrm, tan, idx, w, opos, onrm, otan, mats, NULL};
  y->n = n;
  void *keep[] = {pos, nrm, tan, idx, w, opos, onrm, otan};
  memcpy(y->blocks, keep, sizeof keep);
  (void)mats;
  if (!agrees(y, b)) {
    fprintf(stderr, "skn bench: the yardstick's positions differ from skn_skin's; left out\n");
    bench_yardstick_free(y);
    return NULL;
  }
  return y;
}

void bench_yardstick_free(bench_yardstick *y) {
  if (!y) return;
  for (int i = 0; i < 8; ++i) free(y->blocks[i]);
  free((void *)y->a.mats);
  free(y);
}

typedef struct ys_job { const ref_args *a; ref_fn fn; size_t b, e; } ys_job;

static void *ys_run(void *arg) {
  const ys_job *j = arg;
  j->fn(j->a, j->b, j->e);
  return NULL;
}

/* Median seconds of the loop over every vertex (attrs 0: positions, 1: +
 * normals, 2: + tangents) on `threads` threads (each its half of the
 * vertices; the second a thread of its own). */
double bench_yardstick_time(const bench_yardstick *y, int attrs, uint32_t threads, int repeats) {
  if (!y) return 0;
  ref_fn fn = attrs == 0 ? lbs_p_O2 : attrs == 1 ? lbs_pn_O2 : lbs_pnt_O2;
  double t[32];
  fn(&y->a, 0, y->n); /* warm */
  for (int r = 0; r < repeats; ++r) {
    double t0 = bench_now();
    if (threads < 2) {
      fn(&y->a, 0, y->n);
    } else {
      pthread_t th;
      ys_job second = {&y->a, fn, y->n / 2, y->n};
      pthread_create(&th, NULL, ys_run, &second);
      fn(&y->a, 0, y->n / 2);
      pthread_join(th, NULL);
    }
    t[r] = bench_now() - t0;
  }
  return bench_median(t, repeats);
}

#else

bench_yardstick *bench_yardstick_new(const bench_rig *b) { return (void)b, NULL; }
void bench_yardstick_free(bench_yardstick *y) { (void)y; }
double bench_yardstick_time(const bench_yardstick *y, int attrs, uint32_t threads, int repeats) {
  return (void)y, (void)attrs, (void)threads, (void)repeats, 0;
}

#endif
