/* bench_gpu.c — `skn bench --gpu`: skinning in skn's GLSL through the
 * OpenGL adapter against skn_skin on this machine's cores, in one run.
 * The GPU's side is what a host pays per frame: the palette computed from
 * the pose and uploaded (skn_gl_update), then a draw whose vertex shader
 * skins every vertex, its positions and normals written out by transform
 * feedback with the rasterizer off (so that the work cannot be skipped and
 * its result is checked against the CPU's). Timed three ways, medians: the
 * wall clock from the upload to glFinish (what a frame costs), from the
 * draw to glFinish, and the draw by a GL_TIME_ELAPSED query where the
 * context has one and it measured the work (llvmpipe runs a draw at
 * glFinish, outside the query). The CPU's side is skn_skin with positions
 * and normals on every core. */
#include "bench.h"

#include "gl_api.h"
#include "skn_egl.h"
#include "skn_gl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <stdio.h>

static const char *VERTEX_MAIN =
    "in vec3 skn_rest_position;\nin vec3 skn_rest_normal;\nout vec3 out_position;\nout vec3 out_normal;\n"
    "void main() {\n  out_position = skn_skin_position(skn_rest_position);\n"
    "  out_normal = skn_skin_normal(skn_rest_normal);\n  gl_Position = vec4(out_position, 1.0);\n}\n";

/* The baseline: the same draw, its vertex shader only copying the rest
 * position and normal to the outputs — what the GPU's vertex pipeline and
 * transform feedback cost without any skinning, the ceiling the rows are
 * compared with (as `skn bench` compares the CPU's kernels with a copy). */
static const char *COPY_MAIN =
    "in vec3 skn_rest_position;\nin vec3 skn_rest_normal;\nout vec3 out_position;\nout vec3 out_normal;\n"
    "void main() {\n  out_position = skn_rest_position;\n  out_normal = skn_rest_normal;\n"
    "  gl_Position = vec4(out_position, 1.0);\n}\n";

typedef struct gpu_bench {
  skn_gl_api gl;
  GLuint feedback, query;
  int has_timer;
  double copy;   /* the baseline's frame rate at this size, vertices/s */
  double vertex_rates[16]; /* by size and method (LBS, DQS): the rows' frame rates, for the compute rows */
  uint32_t size;           /* the size's index */
} gpu_bench;

/* One frame: upload the palette, skin every vertex into the feedback
 * buffer, wait. Returns the wall seconds; *draw gets the draw's to
 * glFinish, *timer the query's (0 without one). */
static double frame(gpu_bench *g, skn_gl *sg, const bench_rig *b, double *draw, double *timer) {
  double t0 = bench_now();
  skn_gl_update(sg, b->pose);
  skn_gl_bind(sg);
  double t1 = bench_now();
  g->gl.Enable(GL_RASTERIZER_DISCARD);
  if (g->has_timer) g->gl.BeginQuery(GL_TIME_ELAPSED, g->query);
  g->gl.BeginTransformFeedback(GL_POINTS);
  g->gl.DrawArrays(GL_POINTS, 0, (GLsizei)b->n);
  g->gl.EndTransformFeedback();
  if (g->has_timer) g->gl.EndQuery(GL_TIME_ELAPSED);
  g->gl.Disable(GL_RASTERIZER_DISCARD);
  g->gl.Finish();
  double t2 = bench_now();
  GLuint64 ns = 0;
  if (g->has_timer) g->gl.GetQueryObjectui64v(g->query, GL_QUERY_RESULT, &ns);
  *draw = t2 - t1;
  *timer = ns * 1e-9;
  return t2 - t0;
}

/* The GPU's positions and normals against skn_skin's: the worst position
 * difference over the chain's length (64) and the worst normal's. */
static void check_result(gpu_bench *g, const bench_rig *b, const float *p, const float *n, double *dp, double *dn) {
  size_t bytes = (size_t)b->n * 24;
  const float *r = g->gl.MapBufferRange(GL_TRANSFORM_FEEDBACK_BUFFER, 0, (GLsizeiptr)bytes, GL_MAP_READ_BIT);
  *dp = *dn = r ? 0 : INFINITY;
  for (size_t v = 0; r && v < b->n; ++v)
    for (int c = 0; c < 3; ++c) {
      *dp = fmax(*dp, fabs(r[v * 6 + c] - p[v * 3 + c]) / 64.0);
      *dn = fmax(*dn, fabs(r[v * 6 + 3 + c] - n[v * 3 + c]));
    }
  g->gl.UnmapBuffer(GL_TRANSFORM_FEEDBACK_BUFFER);
}

/* One row: method m, or the copy baseline (copy = 1). */
static int bench_method(gpu_bench *g, const bench_rig *b, skn_method m, int copy, float *p, float *n, int reps) {
  const char *varyings[2] = {"out_position", "out_normal"};
  skn_gl_desc d = {sizeof d};
  d.path = SKN_GL_PATH_VERTEX; /* these rows are the vertex path; bench_gpu_compute.c has the compute path's */
  d.loader = skn_egl_loader;
  d.method = m;
  d.outputs = SKN_GPU_NORMALS;
  d.vertex_main = copy ? COPY_MAIN : VERTEX_MAIN;
  d.feedback_varyings = varyings;
  d.feedback_count = 2;
  skn_gl *sg = NULL;
  if (skn_gl_create(b->rig, &d, &sg)) return fail_input("skn_gl_create");
  g->gl.BindBuffer(GL_TRANSFORM_FEEDBACK_BUFFER, g->feedback);
  g->gl.BufferData(GL_TRANSFORM_FEEDBACK_BUFFER, (GLsizeiptr)b->n * 24, NULL, GL_STREAM_READ);
  g->gl.BindBufferBase(GL_TRANSFORM_FEEDBACK_BUFFER, 0, g->feedback);
  double walls[32], draws[32], timers[32], draw, timer;
  frame(g, sg, b, &draw, &timer); /* warm: the first draw compiles and places the buffers */
  for (int r = 0; r < reps; ++r) walls[r] = frame(g, sg, b, &draws[r], &timers[r]);
  double wall = bench_median(walls, reps), td = bench_median(draws, reps), tt = bench_median(timers, reps);
  char query[32] = "-";
  if (tt > 0.2 * td) snprintf(query, sizeof query, "%.1f", b->n / tt / 1e6); /* it measured the work */
  if (copy) {
    g->copy = b->n / wall;
    printf("%-5s %10u %11.1f %11.1f %11s %7s\n", "copy", b->n, b->n / wall / 1e6, b->n / td / 1e6, query, "100%");
  } else {
    double cpu = bench_time_skin(b, m, 1, 0, p, n, NULL, reps, SKN_STORES_AUTO), dp, dn, c = b->n / cpu / 1e6;
    g->vertex_rates[2 * g->size + (m == SKN_METHOD_DQS)] = b->n / wall;
    check_result(g, b, p, n, &dp, &dn);
    printf("%-5s %10u %11.1f %11.1f %11s %6.0f%% %11.1f %8.2fx %9.1e %9.1e\n", BENCH_METHOD_NAMES[m], b->n, b->n / wall / 1e6,
           b->n / td / 1e6, query, 100.0 * b->n / wall / g->copy, c, b->n / wall / 1e6 / c, dp, dn);
  }
  skn_gl_destroy(sg);
  return EXIT_OK;
}

int bench_gpu(int argc, char **argv) {
  uint32_t sizes[8] = {1000000, 10000000}, count = 2;
  for (int i = 2; i < argc; ++i) {
    if (!strcmp(argv[i], "--gpu")) continue;
    if (!strcmp(argv[i], "--vertices") && i + 1 < argc) {
      count = 0;
      for (char *s = argv[++i], *end; *s && count < 8; s = end + (*end == ',')) {
        unsigned long v = strtoul(s, &end, 10);
        if (end == s || v < 1 || v > 100000000) return fprintf(stderr, "skn: bench --vertices N[,N...]\n"), EXIT_USAGE;
        sizes[count++] = (uint32_t)v;
      }
    } else {
      return fprintf(stderr, "skn: bench --gpu takes --vertices N[,N...] (see --help)\n"), EXIT_USAGE;
    }
  }
  skn_egl_desc ed = {sizeof ed};
  ed.width = DRAW_WIDTH, ed.height = DRAW_HEIGHT; /* the viewport frames' window; the feedback rows discard */
  skn_egl *egl = NULL;
  if (skn_egl_create(&ed, &egl)) return fail_input("bench --gpu: no OpenGL context");
  gpu_bench g = {0};
  skn_gl_api_load(&g.gl, skn_egl_loader);
  g.has_timer = g.gl.GetQueryObjectui64v != NULL;
  g.gl.GenBuffers(1, &g.feedback);
  g.gl.GenQueries(1, &g.query);
  char cpu[160];
  bench_machine(cpu, sizeof cpu);
  printf("skn %s bench --gpu: %s (%s, EGL %s platform) against skn_skin on %s, %ld cores\n", skn_version_string(),
         (const char *)g.gl.GetString(GL_RENDERER), (const char *)g.gl.GetString(GL_VERSION), skn_egl_platform(egl),
         cpu, sysconf(_SC_NPROCESSORS_ONLN));
  printf("4 influences, positions + normals, a 64-joint chain; medians; GPU: palette upload + a draw whose vertex\n"
         "shader skins into a transform feedback buffer; CPU: skn_skin on every core\n\n");
  printf("%-5s %10s %11s %11s %11s %7s %11s %9s %9s %9s\n", "meth", "vertices", "frame", "draw", "timer query",
         "of copy", "CPU", "GPU/CPU", "pos diff", "nrm diff");
  int rc = EXIT_OK;
  for (uint32_t k = 0; k < count && !rc; ++k) {
    bench_rig b;
    g.size = k;
    if (!bench_make_rig(&b, sizes[k], 4, SKN_LAYOUT_FULL)) return fail_input("bench rig");
    float *p = malloc((size_t)b.n * 12), *n = malloc((size_t)b.n * 12);
    if (!p || !n) rc = fail_input("out of memory");
    int reps = b.n >= 10000000 ? 5 : 11;
    if (!rc) rc = bench_method(&g, &b, SKN_METHOD_LBS_MATRIX, 1, p, n, reps);
    if (!rc) rc = bench_method(&g, &b, SKN_METHOD_LBS_MATRIX, 0, p, n, reps);
    if (!rc) rc = bench_method(&g, &b, SKN_METHOD_DQS, 0, p, n, reps);
    free(p), free(n);
    bench_rig_free(&b);
  }
  printf("\nM vertices/s. frame: the palette's upload, the draw and glFinish, wall clock; draw: the draw and\n"
         "glFinish; timer query: GL_TIME_ELAPSED around the draw (- where the driver does the work outside it);\n"
         "of copy: frame over the copy row's (the same draw with a shader that only copies the rest position\n"
         "and normal: the vertex pipeline's own ceiling); GPU/CPU: frame over CPU. pos diff: the worst GPU - CPU position over the chain's length (64);\n"
         "nrm diff: the worst normal's.\n");
  int major = 0, minor = 0;
  sscanf((const char *)g.gl.GetString(GL_VERSION), "%d.%d", &major, &minor);
  if (!rc && g.gl.DispatchCompute && major * 10 + minor >= 43)
    rc = bench_gpu_compute(&g.gl, 0, sizes, count, g.vertex_rates);
  else if (!rc)
    printf("\ncompute path: this context (OpenGL %d.%d) has no compute shaders\n", major, minor);
  if (!rc) rc = bench_gpu_draw(&g.gl, egl, sizes, count);
  g.gl.DeleteQueries(1, &g.query);
  g.gl.DeleteBuffers(1, &g.feedback);
  skn_egl_destroy(egl);
  return rc;
}
