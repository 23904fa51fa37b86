/* bench_goals.c — the rows issue 31 states its goals on, in one table:
 * 100,000 vertices, 4 influences, positions + normals, one thread, against
 * the shared yardstick (bench_yardstick.c), rigid and uniformly scaled
 * joints (the inverse-transpose path), every method's time beside LBS's
 * and DQS's, and BLEND on a painted blend map; then 1,000,000 vertices,
 * uniformly scaled, 1 and 2 threads, full and compact layouts, against the
 * non-temporal copy ceiling. Calls alternate between the rows' setups,
 * medians of 9. */
#include "bench.h"

#include <stdlib.h>

/* Median seconds of method m[i] on rig b[i] (rigid or scaled pose), the
 * calls alternating between the rows. */
static void time_rows(bench_rig *const *b, const int *scaled, const skn_method *m, int rows, uint32_t th, float *p,
                      float *n, double *out) {
  double t[8][9];
  for (int r = 0; r < 9; ++r)
    for (int i = 0; i < rows; ++i) {
      bench_pose_chain(b[i], scaled[i]);
      t[i][r] = bench_time_skin(b[i], m[i], 1, th, p, n, NULL, 1, SKN_STORES_AUTO);
    }
  for (int i = 0; i < rows; ++i) out[i] = bench_median(t[i], 9);
}

/* The 100,000-vertex rows; the last, BLEND on a painted blend map (mostly
 * 0 and 1, bench_make_painted_rig) where the others have 0.5 everywhere. */
enum { GOAL_ROWS = 7 };

/* A goal on a row: the row's ratio (x yard, or its time over LBS's or
 * DQS's) at least (or at most) `bound`. */
typedef struct goal {
  enum { OVER_YARD, TIME_OVER_LBS, TIME_OVER_DQS } of;
  int at_most;
  double bound;
  const char *text;
} goal;

static const char *verdict(int met) { return met ? "met" : "NOT MET"; }

static void goals_100k(FILE *js) {
  bench_rig b = {0}, painted = {0};
  float *p = malloc(100000 * 12), *n = malloc(100000 * 12);
  if (!p || !n || !bench_make_rig(&b, 100000, 4, SKN_LAYOUT_FULL) || !bench_make_painted_rig(&painted, 100000, 4)) {
    bench_rig_free(&b), bench_rig_free(&painted);
    return free(p), free(n);
  }
  bench_yardstick *y = bench_yardstick_new(&b);
  double yard = bench_yardstick_time(y, 1, 1, 9), t[GOAL_ROWS];
  bench_yardstick_free(y);
  bench_rig *const rig[GOAL_ROWS] = {&b, &b, &b, &b, &b, &b, &painted};
  const int scaled[GOAL_ROWS] = {0, 1, 1, 1, 1, 1, 1};
  const skn_method m[GOAL_ROWS] = {SKN_METHOD_LBS_MATRIX, SKN_METHOD_LBS_MATRIX, SKN_METHOD_LBS_QUATERNION,
                                   SKN_METHOD_DQS,        SKN_METHOD_BLEND,      SKN_METHOD_COR,
                                   SKN_METHOD_BLEND};
  static const goal goals[GOAL_ROWS] = {
      {OVER_YARD, 0, 2.6, ">= 2.6x yard"},      {OVER_YARD, 0, 2.4, ">= 2.4x yard"},
      {TIME_OVER_LBS, 1, 1.15, "<= 1.15x lbs"}, {TIME_OVER_LBS, 1, 1.3, "<= 1.3x lbs"},
      {TIME_OVER_DQS, 1, 1.3, "<= 1.3x dqs"},   {TIME_OVER_DQS, 1, 1.3, "<= 1.3x dqs"},
      {TIME_OVER_DQS, 1, 1.3, "<= 1.3x dqs (painted map)"}};
  time_rows(rig, scaled, m, GOAL_ROWS, 1, p, n, t);
  printf("%-9s %-7s %10s %3s %11s %8s %9s %9s   %-26s %s\n", "method", "joints", "vertices", "thr", "M vert/s", "x yard",
         "x lbs t", "x dqs t", "goal", "");
  for (int i = 0; i < GOAL_ROWS; ++i) {
    char ys[16];
    snprintf(ys, sizeof ys, yard ? "%.2fx" : "-", yard / t[i]);
    const goal *g = &goals[i];
    double value = g->of == OVER_YARD ? yard / t[i] : t[i] / (g->of == TIME_OVER_LBS ? t[1] : t[3]);
    const char *v = g->of == OVER_YARD && !yard ? "(no yardstick)"
                    : verdict(g->at_most ? value <= g->bound : value >= g->bound);
    printf("%-9s %-7s %10u %3u %11.1f %8s %8.2fx %8.2fx   %-26s %s\n", BENCH_METHOD_NAMES[m[i]], scaled[i] ? "scaled" : "rigid", 100000u,
           1u, 100000 / t[i] / 1e6, ys, t[i] / t[1], t[i] / t[3], g->text, v);
    if (js)
      fprintf(js, "%s\n  {\"method\": \"%s\", \"joints\": \"%s\", \"vertices\": 100000, \"threads\": 1, "
                  "\"blend_map\": \"%s\", \"mvertices_per_s\": %.2f, \"ratio_to_yardstick\": %.3f, "
                  "\"time_over_lbs\": %.3f, \"time_over_dqs\": %.3f}",
              i ? "," : "", BENCH_METHOD_NAMES[m[i]], scaled[i] ? "scaled" : "rigid", rig[i] == &painted ? "painted" : "0.5",
              100000 / t[i] / 1e6, yard ? yard / t[i] : 0, t[i] / t[1], t[i] / t[3]);
  }
  printf("(blend weights 0.5 at every vertex but the last row's: 1 within 0.2 of a joint, 0 from 0.3 on,\n"
         " a ramp between: 40%% dual quaternions, 40%% LBS, 20%% both)\n");
  free(p), free(n);
  bench_rig_free(&b);
  bench_rig_free(&painted);
}

/* Median rates (vertices/s) of scaled LBS on each of the rigs b[0..count),
 * th threads, the calls alternating between them. */
static void rates(bench_rig *b, int count, uint32_t th, float *p, float *n, double *out) {
  double t[4][9];
  for (int r = 0; r < 9; ++r)
    for (int c = 0; c < count; ++c) t[c][r] = bench_time_skin(&b[c], SKN_METHOD_LBS_MATRIX, 1, th, p, n, NULL, 1, SKN_STORES_AUTO);
  for (int c = 0; c < count; ++c) out[c] = b[c].n / bench_median(t[c], 9);
}

/* One layout's row of the roofline: a kernel runs at the lower of its
 * compute rate (the same kernel on 100,000 vertices, whose 7 MB stay in
 * the L3 cache) and its memory rate (the non-temporal copy's bytes/s over
 * the bytes a vertex moves). */
static void roof_row(FILE *js, const char *layout, uint32_t th, double measured, double compute, double bytes, double nt,
                     const char *goal, double goal_rate) {
  double memory = nt * 1e9 / bytes, roof = compute < memory ? compute : memory;
  printf("%-8s %3u %9.0f %12.1f %12.1f %13.1f %11.0f%%   %-8s %s: %.0f M/s\n", layout, th, bytes, compute / 1e6,
         memory / 1e6, measured / 1e6, 100 * measured / roof, compute < memory ? "compute" : "memory", goal,
         goal_rate / 1e6);
  if (js)
    fprintf(js, ",\n  {\"roofline\": \"%s\", \"threads\": %u, \"bytes_per_vertex\": %.0f, \"compute_mvertices_per_s\": "
                "%.2f, \"memory_mvertices_per_s\": %.2f, \"measured_mvertices_per_s\": %.2f}",
            layout, th, bytes, compute / 1e6, memory / 1e6, measured / 1e6);
}

static void goals_1m(FILE *js, const double nt[3]) {
  bench_rig b[4]; /* 1,000,000 vertices full and compact, then 100,000 (in cache) */
  uint32_t n = 1000000;
  float *p = NULL, *nn = NULL;
  if (posix_memalign((void **)&p, 64, (size_t)n * 12) || posix_memalign((void **)&nn, 64, (size_t)n * 12)) return;
  for (int c = 0; c < 4; ++c)
    if (!bench_make_rig(&b[c], c < 2 ? n : 100000, 4, c % 2 ? SKN_LAYOUT_COMPACT : SKN_LAYOUT_FULL)) return;
  for (int c = 0; c < 4; ++c) bench_pose_chain(&b[c], 1);
  printf("%-9s %-7s %10s %3s %11s %11s %9s %9s %9s   %s\n", "method", "joints", "vertices", "thr", "full M/s",
         "compact M/s", "full %NT", "cmp %NT", "cmp/full", "goals: full >= 60% NT; compact >= 1.2x full");
  double big[3][2], small[3][2];
  for (uint32_t th = 1; th <= 2; ++th) {
    rates(b, 2, th, p, nn, big[th]);
    rates(b + 2, 2, th, p, nn, small[th]);
    double f = big[th][0], k = big[th][1];
    double f_nt = 100.0 * 72.0 * f / 1e9 / nt[th], k_nt = 100.0 * 52.0 * k / 1e9 / nt[th];
    printf("%-9s %-7s %10u %3u %11.1f %11.1f %8.1f%% %8.1f%% %8.2fx   %s; %s\n", "lbs", "scaled", n, th, f / 1e6, k / 1e6,
           f_nt, k_nt, k / f, verdict(f_nt >= 60.0), verdict(k / f >= 1.2));
    if (js)
      fprintf(js, ",\n  {\"method\": \"lbs\", \"joints\": \"scaled\", \"vertices\": %u, \"threads\": %u, "
                  "\"full_mvertices_per_s\": %.2f, \"compact_mvertices_per_s\": %.2f, \"full_fraction_of_nt\": %.4f, "
                  "\"compact_fraction_of_nt\": %.4f}",
              n, th, f / 1e6, k / 1e6, f_nt / 100, k_nt / 100);
  }
  printf("%%NT: the rate times the bytes a vertex moves, over the non-temporal copy's GB/s probed at the start\n"
         "(it can pass 100%%: the probe reads this machine's bandwidth at one minute, and it moves by half)\n");
  printf("roofline of the rows above: compute = the same kernel on 100,000 vertices (in the L3 cache), memory =\n"
         "the non-temporal copy's GB/s / bytes a vertex; a kernel runs at the lower of the two (of the roof can\n"
         "pass 100%%: both sides are measured, each in its own minute, and the in-cache rate is not a ceiling)\n");
  printf("%-8s %3s %9s %12s %12s %13s %12s   %s\n", "layout", "thr", "B/vertex", "compute M/s", "memory M/s",
         "measured M/s", "of the roof", "bound    the goal's rate");
  for (uint32_t th = 1; th <= 2; ++th) {
    roof_row(js, "full", th, big[th][0], small[th][0], 72.0, nt[th], "60% NT", 0.6 * nt[th] * 1e9 / 72.0);
    roof_row(js, "compact", th, big[th][1], small[th][1], 52.0, nt[th], "1.2x full", 1.2 * big[th][0]);
  }
  free(p), free(nn);
  for (int c = 0; c < 4; ++c) bench_rig_free(&b[c]);
}

void bench_goals(FILE *js, const double nt[3]) {
  printf("\ngoals: 4 influences, positions + normals; joints rigid, or scaled uniformly (the inverse-transpose\n"
         "path); x lbs t / x dqs t: the method's time over LBS's (scaled) and DQS's; medians of 9, alternating\n");
  if (js) fprintf(js, ",\n \"goals\": [");
  goals_100k(js);
  goals_1m(js, nt);
  if (js) fprintf(js, "\n ]");
}
