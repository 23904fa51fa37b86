/* bench_morph.c — what morph targets cost on top of skinning: 1,000,000
 * vertices (the bench rig: LBS, 4 influences, positions + normals), 50
 * targets with position and normal offsets, each moving 10% of the
 * vertices, 5 of them with a weight (issue 29's row). Two shapes of target:
 * a region (a run of vertices, as a face or a corrective shape moves one
 * part of a mesh whose vertices the exporter keeps together) and scattered
 * (every vertex a target moves chosen at random: every span of the mesh has
 * offsets, the worst case for morph.c's span walk). The same rig is timed
 * with the 5 weights set and with every weight 0 (skinning alone: skn_skin
 * then takes the path without targets), calls alternating; medians of 9. */
#include "bench.h"

#include <stdlib.h>
#include <string.h>

#define TARGETS BENCH_MORPH_TARGETS
#define ACTIVE BENCH_MORPH_ACTIVE

static uint64_t mix(uint64_t x) { /* splitmix64's finaliser: a fixed pseudo-random choice per (vertex, target) */
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

int bench_morph_targets_make(bench_morph_targets *m, uint32_t n, int scattered) {
  memset(m, 0, sizeof *m);
  uint32_t each = n / 10;
  for (uint32_t t = 0; t < TARGETS; ++t) {
    m->vertices[t] = malloc((size_t)n / 5 * sizeof(uint32_t) + 4); /* room for a scattered target's ~10% */
    m->offsets[t] = malloc((size_t)n / 5 * 6 * sizeof(float) + 4);
    if (!m->vertices[t] || !m->offsets[t]) return 0;
    uint32_t count = 0, start = (uint32_t)((uint64_t)t * (n - each) / TARGETS);
    for (uint32_t v = scattered ? 0 : start; scattered ? v < n : v < start + each; ++v) {
      if (scattered && mix((uint64_t)t << 32 | v) % 10 != 0) continue;
      if (count == n / 5) break;
      float *o = m->offsets[t] + (size_t)count * 6;
      o[0] = 0.01f * (float)(t + 1), o[1] = 0.002f, o[2] = -0.003f, o[3] = 0.05f, o[4] = -0.02f, o[5] = 0.01f;
      m->vertices[t][count++] = v;
    }
    m->targets[t] = (skn_morph_target){count, m->vertices[t], {m->offsets[t], 24}, {m->offsets[t] + 3, 24}, {0}};
  }
  return 1;
}

void bench_morph_targets_free(bench_morph_targets *m) {
  for (uint32_t t = 0; t < TARGETS; ++t) free(m->vertices[t]), free(m->offsets[t]);
}

void bench_morph_weights(float *weights) {
  memset(weights, 0, TARGETS * sizeof *weights);
  for (uint32_t a = 0; a < ACTIVE; ++a) weights[a * (TARGETS / ACTIVE)] = 0.5f;
}

static void morph_row(uint32_t n, int scattered, FILE *js, int *rows) {
  bench_morph_targets m;
  bench_rig br;
  if (!bench_morph_targets_make(&m, n, scattered) || !bench_make_morph_rig(&br, n, 4, SKN_LAYOUT_FULL, m.targets, TARGETS)) {
    bench_morph_targets_free(&m);
    printf("(morph rig: out of memory)\n");
    return;
  }
  bench_morph_targets_free(&m); /* the rig has its own copy */
  float zero[TARGETS] = {0}, set[TARGETS];
  bench_morph_weights(set);
  void *p = NULL, *nn = NULL;
  if (posix_memalign(&p, 64, (size_t)n * 12) || posix_memalign(&nn, 64, (size_t)n * 12)) return;
  for (uint32_t th = 1; th <= 2; ++th) {
    double alone[9], morphed[9];
    for (int r = 0; r < 9; ++r) {
      skn_pose_set_morph_weights(br.pose, 0, TARGETS, zero);
      alone[r] = bench_time_skin(&br, SKN_METHOD_LBS_MATRIX, 1, th, p, nn, NULL, 1, SKN_STORES_AUTO);
      skn_pose_set_morph_weights(br.pose, 0, TARGETS, set);
      morphed[r] = bench_time_skin(&br, SKN_METHOD_LBS_MATRIX, 1, th, p, nn, NULL, 1, SKN_STORES_AUTO);
    }
    double a = bench_median(alone, 9), b = bench_median(morphed, 9);
    printf("%-9s %-4s %-5s %10u %3u %-9s %11.1f %11.1f %+8.1f%%\n", "lbs", "PN", "4", n, th,
           scattered ? "scattered" : "region", n / a / 1e6, n / b / 1e6, 100.0 * (b / a - 1.0));
    if (js)
      fprintf(js, "%s\n  {\"vertices\": %u, \"threads\": %u, \"targets\": %u, \"active\": %u, \"moved\": 0.1, "
                  "\"shape\": \"%s\", \"skin_mvertices_per_s\": %.2f, \"morph_mvertices_per_s\": %.2f, "
                  "\"overhead\": %.4f}",
              (*rows)++ ? "," : "", n, th, TARGETS, ACTIVE, scattered ? "scattered" : "region", n / a / 1e6,
              n / b / 1e6, b / a - 1.0);
  }
  free(p), free(nn);
  bench_rig_free(&br);
}

void bench_morphs(FILE *js) {
  printf("\nmorph targets: %u targets with position and normal offsets, each moving 10%% of the vertices, %u with "
         "weight 0.5,\nagainst the same rig with every weight 0 (skinning alone); medians of 9, alternating\n",
         TARGETS, ACTIVE);
  printf("%-9s %-4s %-5s %10s %3s %-9s %11s %11s %9s\n", "method", "attr", "infl", "vertices", "thr", "targets",
         "skin M/s", "+morph M/s", "overhead");
  if (js) fprintf(js, ",\n \"morphs\": [");
  int rows = 0;
  morph_row(1000000, 0, js, &rows);
  morph_row(1000000, 1, js, &rows);
  if (js) fprintf(js, "\n ]");
}
