/* bench_against.c — `skn bench --against LIBRARY`: this library against
 * another build of skn (an earlier commit's: `make bench-against BASE=REV`),
 * both loaded in one process and bound to the same rigs.
 *
 * Two `make bench` runs on this shared VM differ by a third row by row (the
 * scalar reference's own time moves that much), too much to say that a change
 * made nothing slower. Paired in one process, the two libraries see the same
 * machine minute by minute: each round times a block of calls of each (the
 * order swapped every round), a row's ratio is the median over rounds of
 * the other library's time over this one's, and its spread is the middle
 * half of those ratios. Before each block the caller waits 1 ms, so that
 * the other library's pool workers, which spin 100 us after a job
 * (core/pool.c), are asleep and leave the cores to the block. A library run
 * against itself (`--against build/libskn.so.1`) shows the method's own
 * noise. The outputs of the two are compared too: "same" where every bit
 * matches, else the largest difference. */
#define _GNU_SOURCE /* RTLD_DEEPBIND */
#include "bench.h"

#include <dlfcn.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { THIS, OTHER, ROWS_MAX = 1024 };

/* The other build's function table. RTLD_DEEPBIND: its calls to its own
 * exported functions (skn_* call skn_*) resolve inside it, not to this
 * process's libskn, which has the same names. */
static const skn_api *open_other(const char *path) {
  void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
  if (!lib) return fprintf(stderr, "skn: bench --against: %s\n", dlerror()), NULL;
  const skn_api *(*get_api)(uint32_t);
  *(void **)&get_api = dlsym(lib, "skn_get_api");
  const skn_api *api = get_api ? get_api(SKN_VERSION_MAJOR) : NULL;
  if (!get_api) fprintf(stderr, "skn: bench --against: %s: no skn_get_api (not a build of skn)\n", path);
  else if (!api) fprintf(stderr, "skn: bench --against: %s: does not implement ABI %d\n", path, SKN_VERSION_MAJOR);
  if (!api) dlclose(lib);
  return api; /* stays loaded until exit */
}

typedef struct against {
  const skn_api *api[2];
  int rounds;
  FILE *js;
  int rows;
  double ratio[ROWS_MAX]; /* every row's, for the summary */
  int method[ROWS_MAX];
} against;

/* One row's outputs, a set per library. */
typedef struct outputs { float *p, *n, *t; } outputs;

/* Median seconds of `calls` calls, after 1 ms busy and 0.3 ms of warm
 * calls (at least one): on small meshes the pool's worker is then awake,
 * as in a host's run of calls, not waking up within the timed ones. Busy,
 * not asleep: after a sleep, with both cores idle, the worker the block
 * woke was often put on the caller's own core and shared it for the whole
 * block (2-thread blocks at 1-thread speed, in either library). */
static double time_block(const bench_rig *b, const skn_skin_desc *s, int calls) {
  double t[32];
  bench_busy(1e-3);
  for (double warm = bench_now() + 3e-4; bench_now() < warm;) b->api->skin(b->rig, b->pose, s);
  for (int c = 0; c < calls; ++c) {
    double t0 = bench_now();
    b->api->skin(b->rig, b->pose, s);
    t[c] = bench_now() - t0;
  }
  return bench_median(t, calls);
}

/* The largest difference between the two libraries' outputs; -1 where
 * every bit matches. */
static double largest_difference(const outputs o[2], uint32_t n, int attrs) {
  size_t counts[3] = {(size_t)n * 3, attrs > 0 ? (size_t)n * 3 : 0, attrs > 1 ? (size_t)n * 4 : 0};
  const float *a[3] = {o[0].p, o[0].n, o[0].t}, *b[3] = {o[1].p, o[1].n, o[1].t};
  int same = 1;
  double worst = 0;
  for (int k = 0; k < 3; ++k) {
    if (!counts[k] || !memcmp(a[k], b[k], counts[k] * sizeof(float))) continue;
    same = 0;
    for (size_t i = 0; i < counts[k]; ++i) {
      double d = fabs((double)a[k][i] - b[k][i]);
      worst = d > worst || d != d ? d : worst;
    }
  }
  return same ? -1 : worst;
}

/* One row: both rigs posed alike, rounds of a block each, the order
 * swapped every round. */
static void row(against *a, bench_rig b[2], const outputs o[2], skn_method m, int attrs, int scaled, uint32_t th) {
  uint32_t n = b[0].n;
  int calls = n <= 10000 ? 15 : n <= 100000 ? 5 : 3, rounds = a->rounds;
  double t[2][64], ratio[64];
  skn_skin_desc s[2];
  for (int l = 0; l < 2; ++l) {
    bench_pose_chain(&b[l], scaled);
    s[l] = bench_skin_desc(m, attrs, th, o[l].p, o[l].n, o[l].t, SKN_STORES_AUTO);
  }
  for (int r = 0; r < rounds; ++r) {
    for (int i = 0; i < 2; ++i) {
      int l = (r + i) % 2;
      t[l][r] = time_block(&b[l], &s[l], calls);
    }
    ratio[r] = t[OTHER][r] / t[THIS][r];
  }
  double diff = largest_difference(o, n, attrs), mv[2];
  for (int l = 0; l < 2; ++l) mv[l] = n / bench_median(t[l], rounds) / 1e6;
  double median = bench_median(ratio, rounds), lo = ratio[rounds / 4], hi = ratio[(3 * rounds) / 4];
  char infl[8], diff_text[16];
  snprintf(infl, sizeof infl, b[0].k ? "%d" : "1-8", b[0].k);
  snprintf(diff_text, sizeof diff_text, diff < 0 ? "same" : "%.1e", diff);
  printf("%-9s %-4s %-5s %-7s %-8s %10u %3u %10.1f %10.1f %7.3fx %6.3f-%.3f %9s%s\n", BENCH_METHOD_NAMES[m],
         BENCH_ATTR_NAMES[attrs], infl, scaled ? "scaled" : "rigid", b[0].compact ? "compact" : "full", n, th, mv[THIS],
         mv[OTHER], median, lo, hi, diff_text, median < 0.95 ? "  < 0.95" : "");
  fflush(stdout);
  if (a->js)
    fprintf(a->js, "%s\n  {\"method\": \"%s\", \"attributes\": \"%s\", \"influences\": \"%s\", \"joints\": \"%s\", "
                   "\"layout\": \"%s\", \"vertices\": %u, \"threads\": %u, \"this_mvertices_per_s\": %.2f, "
                   "\"other_mvertices_per_s\": %.2f, \"ratio\": %.4f, \"ratio_quartiles\": [%.4f, %.4f], "
                   "\"same_bits\": %s, \"largest_difference\": %.3g}",
            a->rows ? "," : "", BENCH_METHOD_NAMES[m], BENCH_ATTR_NAMES[attrs], infl, scaled ? "scaled" : "rigid",
            b[0].compact ? "compact" : "full", n, th, mv[THIS], mv[OTHER], median, lo, hi, diff < 0 ? "true" : "false",
            diff < 0 ? 0 : diff);
  if (a->rows < ROWS_MAX) a->ratio[a->rows] = median, a->method[a->rows] = m;
  a->rows++;
}

/* Every method on one rig (bound by both libraries): the attribute sets
 * and poses listed, 1 and 2 threads. */
static int rig_rows(against *a, uint32_t n, int k, skn_bind_layout layout, int all_attrs, int scaled_too) {
  bench_rig b[2] = {{0}, {0}};
  outputs o[2] = {{0}, {0}};
  int ok = 1;
  for (int l = 0; l < 2 && ok; ++l) {
    o[l].p = malloc((size_t)n * 12), o[l].n = malloc((size_t)n * 12), o[l].t = malloc((size_t)n * 16);
    if (!o[l].p || !o[l].n || !o[l].t) ok = 0, fprintf(stderr, "skn: bench --against: out of memory\n");
    else if (!bench_make_rig_with(&b[l], a->api[l], n, k, layout))
      ok = 0, fprintf(stderr, "skn: bench --against: %s library could not bind a %u-vertex rig: %s\n",
                      l == THIS ? "this" : "the other", n, a->api[l]->last_error());
  }
  for (int m = 0; ok && m <= SKN_METHOD_COR; ++m)
    for (int attrs = all_attrs ? 0 : 1; attrs <= (all_attrs ? 2 : 1); ++attrs)
      for (int scaled = 0; scaled <= (scaled_too && attrs == 1); ++scaled)
        for (uint32_t th = 1; th <= 2; ++th) row(a, b, o, (skn_method)m, attrs, scaled, th);
  for (int l = 0; l < 2; ++l) {
    free(o[l].p), free(o[l].n), free(o[l].t);
    bench_rig_free(&b[l]);
  }
  return ok;
}

/* The sweep. Quick: 100,000 and 1,000,000 vertices, 4 and 1-8 influences,
 * positions + normals, rigid and scaled joints. Full: also 10,000, 1 and 8
 * influences, positions alone and with tangents, the compact layout at
 * 1,000,000, and 10,000,000 (4 influences, positions + normals).
 * `vertices`: that size alone, in the same pattern. */
static int sweep(against *a, int full, uint32_t vertices) {
  static const uint32_t sizes_full[] = {10000, 100000, 1000000, 10000000}, sizes_quick[] = {100000, 1000000};
  static const int infl_full[] = {1, 4, 8, 0}, infl_quick[] = {4, 0};
  const uint32_t *sizes = vertices ? &vertices : full ? sizes_full : sizes_quick;
  int nsizes = vertices ? 1 : full ? 4 : 2;
  for (int si = 0; si < nsizes; ++si) {
    int huge = sizes[si] >= 10000000;
    for (int ki = 0; ki < (huge ? 1 : full ? 4 : 2); ++ki) {
      int k = huge ? 4 : full ? infl_full[ki] : infl_quick[ki];
      if (!rig_rows(a, sizes[si], k, SKN_LAYOUT_FULL, full && !huge, k == 4)) return 0;
    }
    if (full && sizes[si] == 1000000 && !rig_rows(a, sizes[si], 4, SKN_LAYOUT_COMPACT, 0, 0)) return 0;
  }
  return 1;
}

static double geometric_mean(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i) s += log(x[i]);
  return n ? exp(s / n) : 0;
}

/* Medians over all rows and by method, and the rows below 0.95x. */
static void summary(const against *a) {
  static double sorted[ROWS_MAX];
  int rows = a->rows < ROWS_MAX ? a->rows : ROWS_MAX, below = 0;
  if (!rows) return;
  for (int i = 0; i < rows; ++i) below += a->ratio[i] < 0.95;
  for (int i = 0; i < rows; ++i) sorted[i] = a->ratio[i]; /* (a memcpy of rows * 8 bytes: GCC 12 at -O1 under
                                                             the sanitizers took rows for possibly negative) */
  double median = bench_median(sorted, rows);
  printf("\n%d rows: median ratio %.3fx, geometric mean %.3fx, %d below 0.95x; by method (median, lowest):\n", rows,
         median, geometric_mean(a->ratio, rows), below);
  for (int m = 0; m <= SKN_METHOD_COR; ++m) {
    int c = 0;
    for (int i = 0; i < rows; ++i)
      if (a->method[i] == m) sorted[c++] = a->ratio[i];
    if (!c) continue;
    double by_method = bench_median(sorted, c); /* (sorts: the lowest is then first) */
    printf("  %-9s %3d rows %7.3fx %7.3fx\n", BENCH_METHOD_NAMES[m], c, by_method, sorted[0]);
  }
}

/* SKN_SIMD_* by its name, or -1. */
static int simd_named(const char *name) {
  for (int s = SKN_SIMD_SCALAR; s <= SKN_SIMD_AVX512; ++s)
    if (!strcmp(name, BENCH_SIMD_NAMES[s])) return s;
  return -1;
}

static void describe(const char *who, const skn_api *api, const char *path) {
  printf("  %-5s skn %s, kernels %s: %s\n", who, api->version_string(), BENCH_SIMD_NAMES[api->get_simd()], path);
}

int bench_against(int argc, char **argv) {
  const char *path = NULL, *json_path = NULL;
  int full = 0, rounds = 7, simd = SKN_SIMD_AUTO;
  long vertices = -1; /* the sweep's sizes */
  for (int i = 2; i < argc; ++i) {
    if (!strcmp(argv[i], "--against") && i + 1 < argc) path = argv[++i];
    else if (!strcmp(argv[i], "--simd") && i + 1 < argc) {
      if ((simd = simd_named(argv[++i])) < 0)
        return fprintf(stderr, "skn: bench --against: --simd %s is not scalar, portable, avx2 or avx512\n", argv[i]), EXIT_USAGE;
    }
    else if (!strcmp(argv[i], "--full")) full = 1;
    else if (!strcmp(argv[i], "--rounds") && i + 1 < argc) rounds = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--vertices") && i + 1 < argc) vertices = atol(argv[++i]);
    else if (!strcmp(argv[i], "-o") && i + 1 < argc) json_path = argv[++i];
    else return fprintf(stderr, "skn: bench --against LIBRARY takes --full, --rounds R, --vertices N, --simd S, -o FILE\n"), EXIT_USAGE;
  }
  if (!path || rounds < 3 || rounds > 64 || vertices == 0 || vertices > 100000000)
    return fprintf(stderr, "skn: bench --against LIBRARY: --rounds 3 to 64, --vertices 1 to 100000000\n"), EXIT_USAGE;
  if (json_path && !bench_json_name(json_path)) return EXIT_USAGE;
  static against a; /* (its row tables are 12 KB) */
  a.api[THIS] = skn_get_api(SKN_VERSION_MAJOR), a.api[OTHER] = open_other(path), a.rounds = rounds;
  if (!a.api[OTHER]) return EXIT_INPUT;
  for (int w = THIS; w <= OTHER && simd != SKN_SIMD_AUTO; ++w) /* both libraries on the same instruction set */
    if (a.api[w]->set_simd((skn_simd)simd))
      return fprintf(stderr, "skn: bench --against: %s\n", a.api[w]->last_error()), EXIT_INPUT;
  if (json_path && !(a.js = fopen(json_path, "w")))
    return fprintf(stderr, "skn: bench --against: cannot write %s\n", json_path), EXIT_INPUT;
  char cpu[160];
  bench_machine(cpu, sizeof cpu);
  printf("skn bench --against on %s, %ld cores: two builds of skn in one process, the same rigs\n", cpu,
         sysconf(_SC_NPROCESSORS_ONLN));
  describe("this", a.api[THIS], "the library the skn command links");
  describe("other", a.api[OTHER], a.api[OTHER] == a.api[THIS] ? "the same library (the method's own noise)" : path);
  double bind_ms[2], bind_ratio;
  if (!bench_bind_against(a.api, rounds, bind_ms, &bind_ratio)) return EXIT_INPUT;
  printf("M/s: each library's median rate; ratio: the other's time over this one's, the median of %d rounds of\n"
         "alternating blocks (> 1: this one is faster), and the middle half of the rounds' ratios; diff: the\n"
         "largest difference between their outputs (\"same\": every bit)\n\n", rounds);
  printf("%-9s %-4s %-5s %-7s %-8s %10s %3s %10s %10s %8s %13s %9s\n", "method", "attr", "infl", "joints", "layout",
         "vertices", "thr", "this M/s", "other M/s", "ratio", "middle half", "diff");
  if (a.js)
    fprintf(a.js, "{\"cpu\": \"%s\", \"this\": \"%s\", \"other\": \"%s\", \"other_path\": \"%s\", \"rounds\": %d,\n"
                  " \"bind\": {\"this_ms\": %.4f, \"other_ms\": %.4f, \"ratio\": %.4f},\n \"rows\": [",
            cpu, a.api[THIS]->version_string(), a.api[OTHER]->version_string(), path, rounds, bind_ms[THIS],
            bind_ms[OTHER], bind_ratio);
  int ok = sweep(&a, full, vertices > 0 ? (uint32_t)vertices : 0);
  summary(&a);
  if (a.js) {
    fprintf(a.js, "\n ]\n}\n");
    fclose(a.js);
    if (ok) printf("wrote %s\n", json_path);
  }
  return ok ? EXIT_OK : EXIT_INPUT;
}
