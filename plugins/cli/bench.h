/* bench.h — what `skn bench` (bench.c) and `skn bench --gpu` (bench_gpu.c)
 * share: the synthetic rig, timing, and the machine's name. */
#ifndef SKN_CLI_BENCH_H
#define SKN_CLI_BENCH_H

#include "cli.h"

/* A 64-joint chain with n vertices along it, bent and twisted a little at
 * every joint (rigid, as most animation is), positions, normals, tangents,
 * blend weights and 1,024 triangles bound. */
typedef struct bench_rig {
  const skn_api *api; /* the library that bound it: every call on the rig goes through it */
  skn_rig *rig;
  skn_pose *pose;
  uint32_t n;
  int k, compact;
  double bytes_influences;
} bench_rig;

/* k influences per vertex (k = 0: 1 to 8, varying), nearest joints first;
 * every blend weight 0.5 (BLEND's worst case: both methods at every vertex). */
int bench_make_rig(bench_rig *b, uint32_t n, int k, skn_bind_layout layout);
/* The same rig bound by another library's function table (`bench
 * --against`: two builds of skn in one process). */
int bench_make_rig_with(bench_rig *b, const skn_api *api, uint32_t n, int k, skn_bind_layout layout);
/* The same (full layout) with a blend map as an artist paints one: mostly
 * 0 and 1, dual quaternions around the joints, a ramp between. */
int bench_make_painted_rig(bench_rig *b, uint32_t n, int k);
/* The same with morph targets bound (their weights 0). */
int bench_make_morph_rig(bench_rig *b, uint32_t n, int k, skn_bind_layout layout, const skn_morph_target *targets,
                         uint32_t target_count);
void bench_rig_free(bench_rig *b); /* its pose and rig */

/* bench_yardstick.c: the shared scalar yardstick (../shared/bench), on a
 * rig of at most 4 influences a vertex; NULL (and time 0) where the
 * command was built without it. */
typedef struct bench_yardstick bench_yardstick;
#ifdef SKN_YARDSTICK
#define YARDSTICK_BUILT 1
#else
#define YARDSTICK_BUILT 0
#endif
bench_yardstick *bench_yardstick_new(const bench_rig *b);
void bench_yardstick_free(bench_yardstick *y);
double bench_yardstick_time(const bench_yardstick *y, int attrs, uint32_t threads, int repeats);

/* The chain's skeleton: joint j's parent j - 1, bound at x = j without
 * rotation; bench_pose_chain poses any rig bound on it. */
#define BENCH_JOINTS 64u
void bench_chain_skeleton(int32_t parents[BENCH_JOINTS], float bind[BENCH_JOINTS * 16]);

/* Poses the chain as bench_make_rig does (scaled: joints scaled uniformly
 * too, by turns 1.05 and 1 / 1.05). */
skn_status bench_pose_chain(bench_rig *b, int scaled);

/* bench_goals.c: the rows issue 31's goals are stated on, side by side. */
void bench_goals(FILE *js, const double nt[3]); /* nt: the non-temporal copy ceilings, GB/s, by threads */

/* bench_morph.c: skinning with morph targets against skinning alone. */
void bench_morphs(FILE *js);
/* Its targets: 50 with position and normal offsets, each moving 10% of n
 * vertices, as a region (a run of vertices) or scattered; 5 of them
 * weighted 0.5 by bench_morph_weights. */
#define BENCH_MORPH_TARGETS 50u
#define BENCH_MORPH_ACTIVE 5u
typedef struct bench_morph_targets {
  skn_morph_target targets[BENCH_MORPH_TARGETS];
  uint32_t *vertices[BENCH_MORPH_TARGETS];
  float *offsets[BENCH_MORPH_TARGETS];
} bench_morph_targets;
int bench_morph_targets_make(bench_morph_targets *m, uint32_t n, int scattered);
void bench_morph_targets_free(bench_morph_targets *m);
void bench_morph_weights(float *weights); /* BENCH_MORPH_TARGETS of them */

/* A skin call's description (attrs 0: positions, 1: + normals, 2: + tangents). */
skn_skin_desc bench_skin_desc(skn_method m, int attrs, uint32_t threads, float *p, float *n, float *t,
                              skn_stores stores);

/* Median seconds of one skn_skin call (attrs 0: positions, 1: + normals,
 * 2: + tangents), after one warm call. */
double bench_time_skin(const bench_rig *b, skn_method m, int attrs, uint32_t threads, float *p, float *n, float *t,
                       int repeats, skn_stores stores);

double bench_now(void);                 /* seconds, monotonic */
void bench_busy(double seconds);        /* the calling thread busy (not asleep) that long */
double bench_median(double *t, int n);  /* sorts t */
void bench_machine(char *cpu, size_t n);

/* bench_gpu.c: `skn bench --gpu`. */
int bench_gpu(int argc, char **argv);
/* bench_gpu_draw.c: its viewport frames (a tube of each size drawn whole,
 * offload against skn_skin + upload), on egl's context, whose framebuffer
 * is DRAW_WIDTH x DRAW_HEIGHT (its pictures are read back at that size). */
#define DRAW_WIDTH 1024
#define DRAW_HEIGHT 768
struct skn_gl_api;
struct skn_egl;
int bench_gpu_draw(struct skn_gl_api *gl, struct skn_egl *egl, const uint32_t *sizes, uint32_t count);
/* bench_gpu_compute.c: the compute path's rows at each size against a copy
 * kernel in the same pipeline; vertex_rates: the vertex path's rows'
 * vertices/s, by size and method (2 k + 0 LBS, + 1 DQS). es: the context
 * is OpenGL ES. */
int bench_gpu_compute(struct skn_gl_api *gl, int es, const uint32_t *sizes, uint32_t count, const double *vertex_rates);

/* bench_against.c: `skn bench --against LIBRARY`. */
int bench_against(int argc, char **argv);
/* bench_bind.c: skn_bind's time in both libraries, a character's size:
 * prints a row, gives each library's median ms and the median ratio (the
 * other's time over this one's); 0 where a bind failed. */
int bench_bind_against(const skn_api *api[2], int rounds, double out_ms[2], double *out_ratio);

/* Names as the tables print them. */
extern const char *const BENCH_METHOD_NAMES[5]; /* by skn_method */
extern const char *const BENCH_ATTR_NAMES[3];   /* P, PN, PNT */
extern const char *const BENCH_SIMD_NAMES[5];   /* by skn_simd */

/* Whether -o names a .json file (the results are JSON); says so when not. */
int bench_json_name(const char *path);

#endif
