/* bench_bind.c — skn_bind's own time in `skn bench --against`: the two
 * libraries bind the same description, a character's size, in alternating
 * blocks (the order swapped every round), as the skinning rows are timed.
 *
 * Why bind is timed at all: a host binds again whenever what a rig is bound
 * from moves. The Blender add-on does so every frame on a Rigify character
 * whose keyed shape key moves points weighted to B-Bones (the split of a
 * weight between two segments follows the point: docs/blender.md, Speed).
 * The description has that body's sizes: 47,668 vertices, 1 to 11
 * influences each (about 6), 668 joints, two morph targets of 29,902
 * entries each, by ascending vertex as Blender and glTF give them. */
#include "bench.h"

#include <stdlib.h>
#include <string.h>

enum { VERTICES = 47668, JOINT_COUNT = 668, TARGET_ENTRIES = 29902, BLOCK = 10 };

typedef struct bind_input {
  float *bind, *pos, *weights, *offsets[2];
  uint32_t *offset, *joints, *vertices[2];
  skn_morph_target targets[2];
  skn_bind_desc d;
} bind_input;

static void free_input(bind_input *in) {
  free(in->bind), free(in->pos), free(in->weights), free(in->offset), free(in->joints);
  for (int t = 0; t < 2; ++t) free(in->offsets[t]), free(in->vertices[t]);
}

static int make_input(bind_input *in) {
  memset(in, 0, sizeof *in);
  uint64_t s = 88172645463325252ull;
  in->bind = malloc(JOINT_COUNT * 64), in->pos = malloc(VERTICES * 12), in->offset = malloc((VERTICES + 1) * 4);
  in->joints = malloc(VERTICES * 11 * 4), in->weights = malloc(VERTICES * 11 * 4);
  for (int t = 0; t < 2; ++t) in->offsets[t] = malloc(TARGET_ENTRIES * 12), in->vertices[t] = malloc(TARGET_ENTRIES * 4);
  if (!in->bind || !in->pos || !in->offset || !in->joints || !in->weights || !in->offsets[0] || !in->offsets[1] ||
      !in->vertices[0] || !in->vertices[1])
    return free_input(in), 0;
  for (uint32_t j = 0; j < JOINT_COUNT; ++j) { /* a joint every 2.5 mm along x, unrotated */
    float m[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0.0025f * j, 0, 0, 1};
    memcpy(in->bind + j * 16, m, 64);
  }
  uint32_t at = 0;
  for (uint32_t v = 0; v < VERTICES; ++v) {
    float x = (float)v / VERTICES * JOINT_COUNT * 0.0025f, a = (float)v * 2.399963f;
    float p[3] = {x, 0.1f * a - (float)(int)(0.1f * a), 0.2f};
    memcpy(in->pos + v * 3, p, 12);
    in->offset[v] = at;
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    uint32_t have = 1 + (uint32_t)(s % 11), first = (uint32_t)(x / 0.0025f);
    for (uint32_t i = 0; i < have; ++i, ++at) { /* the nearest joints, heavier first */
      in->joints[at] = (first + i) % JOINT_COUNT;
      in->weights[at] = (float)(have - i);
    }
  }
  in->offset[VERTICES] = at;
  for (int t = 0; t < 2; ++t) {
    for (uint32_t e = 0; e < TARGET_ENTRIES; ++e) { /* the first 29,902 vertices (the second key one on), rising */
      in->vertices[t][e] = e + (uint32_t)t;
      float o[3] = {0.001f * (float)(e % 7), 0.002f, -0.001f * (float)t};
      memcpy(in->offsets[t] + e * 3, o, 12);
    }
    in->targets[t].count = TARGET_ENTRIES;
    in->targets[t].vertices = in->vertices[t];
    in->targets[t].positions.data = in->offsets[t];
  }
  skn_bind_desc d = {sizeof d};
  d.joint_count = JOINT_COUNT, d.bind_matrices = in->bind, d.vertex_count = VERTICES, d.positions.data = in->pos;
  d.influence_offsets = in->offset, d.influence_joints = in->joints, d.influence_weights = in->weights;
  d.morph_targets = in->targets, d.morph_target_count = 2;
  in->d = d;
  return 1;
}

/* Median seconds of a bind and its destroy, over a block. */
static double bind_block(const skn_api *api, const skn_bind_desc *d) {
  double t[BLOCK];
  for (int c = 0; c < BLOCK; ++c) {
    skn_rig *rig = NULL;
    double t0 = bench_now();
    skn_status st = api->bind(d, &rig);
    api->rig_destroy(rig);
    t[c] = st == SKN_OK ? bench_now() - t0 : -1.0;
    if (st != SKN_OK) fprintf(stderr, "skn: bench --against: bind: %s\n", api->last_error());
  }
  return bench_median(t, BLOCK);
}

int bench_bind_against(const skn_api *api[2], int rounds, double out_ms[2], double *out_ratio) {
  bind_input in;
  if (!make_input(&in)) return fprintf(stderr, "skn: bench --against: out of memory\n"), 0;
  double times[2][64], ratios[64];
  for (int r = 0; r < rounds; ++r)
    for (int k = 0; k < 2; ++k) {
      int l = (r + k) % 2;
      times[l][r] = bind_block(api[l], &in.d);
    }
  uint32_t influences = in.offset[VERTICES];
  free_input(&in);
  for (int r = 0; r < rounds; ++r) {
    if (times[0][r] < 0 || times[1][r] < 0) return fprintf(stderr, "skn: bench --against: a bind failed\n"), 0;
    ratios[r] = times[1][r] / times[0][r];
  }
  double ratio = bench_median(ratios, rounds), lo = ratios[rounds / 4], hi = ratios[rounds - 1 - rounds / 4];
  out_ms[0] = 1e3 * bench_median(times[0], rounds), out_ms[1] = 1e3 * bench_median(times[1], rounds), *out_ratio = ratio;
  printf("bind: a character's size (%d vertices, %u influences, %d joints, 2 morph targets of %d entries)\n"
         "  this %.2f ms, other %.2f ms (medians of %d rounds of %d binds); ratio %.3fx (middle half %.3f-%.3f)\n\n",
         VERTICES, influences, JOINT_COUNT, TARGET_ENTRIES, out_ms[0], out_ms[1], rounds, BLOCK, ratio, lo, hi);
  return 1;
}
