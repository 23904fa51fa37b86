/* bench.c — `skn bench`: how fast skn skins on this machine, against two
 * baselines measured in the same run:
 *   - a memory-bandwidth probe (copy and triad, 1 and 2 threads): skinning
 *     streams, so bytes moved / probe bandwidth says how close a kernel gets
 *     to the physical ceiling;
 *   - the scalar reference kernels (skn_set_simd(SKN_SIMD_SCALAR)), the same
 *     code the tests use as their oracle;
 * and two more: a copy with non-temporal stores, the ceiling a kernel that
 * streams its outputs can reach (memcpy pays a read for each line it
 * writes), and ../shared/bench's fixed scalar yardstick
 * (bench_yardstick.c), whose ratios compare across runs and machines.
 * Every timing is the median of several runs. `--full` sweeps methods x
 * attributes x influences x vertices x threads (what `make bench` runs);
 * the default is the headline subset. `-o FILE` writes the table as JSON. */
#include "bench.h"

#include <emmintrin.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

double bench_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

void bench_busy(double seconds) {
  for (double until = bench_now() + seconds; bench_now() < until;) continue;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double bench_median(double *t, int n) {
  qsort(t, (size_t)n, sizeof *t, cmp_double);
  return t[n / 2];
}

/* ---- the bandwidth probe ---- */

/* What a probe does: memcpy (2 streams), a triad a = b + 3c (3 streams),
 * or a copy whose stores go around the caches (SSE2 streaming stores): it
 * saves the read-for-ownership memcpy pays for each line it writes, so it
 * is the ceiling a kernel that streams its outputs can reach (memcpy's
 * under-reads it by a third here). */
enum { PROBE_COPY, PROBE_TRIAD, PROBE_NT_COPY };

typedef struct probe_job { float *a, *b, *c; size_t n; int kind; } probe_job;

static void *probe_run(void *arg) {
  probe_job *j = arg;
  if (j->kind == PROBE_TRIAD) {
    for (size_t i = 0; i < j->n; ++i) j->a[i] = j->b[i] + 3.0f * j->c[i];
  } else if (j->kind == PROBE_NT_COPY) { /* a and b 16-byte aligned, n a multiple of 4 */
    for (size_t i = 0; i < j->n; i += 4) _mm_stream_ps(j->a + i, _mm_loadu_ps(j->b + i));
    _mm_sfence();
  } else {
    memcpy(j->a, j->b, j->n * sizeof(float));
  }
  return NULL;
}

/* GB/s (bytes read + written) of a probe over `threads` threads, each its
 * share of the n floats (a multiple of 4 each). */
#define ROW_PROBE_FLOATS ((size_t)32 << 20) /* each row's copy: 2 x 128 MiB, four times the L3 */
static double probe(float *a, float *b, float *c, size_t n, int threads, int kind) {
  double t[5];
  for (int r = 0; r < 5; ++r) {
    pthread_t th[2];
    probe_job jobs[2];
    double t0 = bench_now();
    for (int k = 0; k < threads; ++k) {
      size_t lo = n * k / threads / 4 * 4, hi = n * (k + 1) / threads / 4 * 4;
      jobs[k] = (probe_job){a + lo, b + lo, c ? c + lo : NULL, hi - lo, kind};
      pthread_create(&th[k], NULL, probe_run, &jobs[k]);
    }
    for (int k = 0; k < threads; ++k) pthread_join(th[k], NULL);
    t[r] = bench_now() - t0;
  }
  return (kind == PROBE_TRIAD ? 3.0 : 2.0) * n * sizeof(float) / bench_median(t, 5) / 1e9;
}

/* ---- a synthetic rig: a 64-joint chain, vertices along it ---- */

#define JOINTS BENCH_JOINTS

void bench_chain_skeleton(int32_t parents[BENCH_JOINTS], float bind[BENCH_JOINTS * 16]) {
  memset(bind, 0, sizeof(float) * BENCH_JOINTS * 16);
  for (uint32_t j = 0; j < JOINTS; ++j) {
    parents[j] = j ? (int32_t)j - 1 : -1;
    bind[j * 16] = bind[j * 16 + 5] = bind[j * 16 + 10] = bind[j * 16 + 15] = 1;
    bind[j * 16 + 12] = (float)j;
  }
}

/* A bend and a twist per joint, rigid as most animation is; or (scaled)
 * each joint also scaled uniformly, by 1.05 and its inverse by turns, so
 * that the chain's world scales stay 1 or 1.05: every M_i a rotation times
 * a uniform scale, not all rigid, as the LBS kernel's inverse-transpose
 * path and LBS_QUATERNION's uniform scales need. */
skn_status bench_pose_chain(bench_rig *b, int scaled) {
  skn_transform local[JOINTS];
  for (uint32_t j = 0; j < JOINTS; ++j) {
    float h = 0.05f + 0.01f * (j % 5), sc = !scaled ? 1.0f : j % 2 ? 1.05f : 1.0f / 1.05f;
    skn_transform x = {{j ? 1.0f : 0.0f, 0, 0}, {h, 0.5f * h, 0.3f * h, 1.0f}, {sc, sc, sc}};
    local[j] = x;
  }
  return b->api->pose_set_local(b->pose, 0, JOINTS, local);
}

/* A painted blend map at x along the chain (joint j at x = j): 1 (dual
 * quaternions) within 0.2 of a joint, where bends lose volume under LBS,
 * 0 from 0.3 on, a ramp between. */
static float painted_blend(float x) {
  float d = fabsf(x - floorf(x + 0.5f)), b = (0.3f - d) / 0.1f;
  return b < 0 ? 0.0f : b > 1 ? 1.0f : b;
}

static int make_rig(bench_rig *b, const skn_api *api, uint32_t n, int k, skn_bind_layout layout,
                    const skn_morph_target *targets, uint32_t target_count, int painted) {
  uint32_t width = k ? (uint32_t)k : 8, tris = 1024;
  float *pos = malloc((size_t)n * 12), *nrm = malloc((size_t)n * 12), *tan = malloc((size_t)n * 16);
  float *w = malloc((size_t)n * width * 4), *blend = malloc((size_t)n * 4), bind[JOINTS * 16];
  uint32_t *jj = malloc((size_t)n * width * 4), *tri = malloc((size_t)(tris + 1) * 12);
  int32_t parents[JOINTS];
  b->api = api, b->rig = NULL, b->pose = NULL; /* (bench_rig_free frees what there is) */
  if (!pos || !nrm || !tan || !w || !blend || !jj || !tri) {
    free(pos), free(nrm), free(tan), free(w), free(blend), free(jj), free(tri);
    return 0;
  }
  bench_chain_skeleton(parents, bind);
  uint64_t s = 88172645463325252ull;
  double slots = 0;
  for (uint32_t v = 0; v < n; ++v) {
    float x = (float)v / n * JOINTS, a = (float)v * 2.399963f; /* vertices along the chain, golden-angle turns */
    float p[3] = {x, 0.3f * cosf(a), 0.3f * sinf(a)}, q[3] = {0, cosf(a), sinf(a)}, t[4] = {1, 0, 0, v % 2 ? 1.0f : -1.0f};
    memcpy(pos + v * 3, p, 12);
    memcpy(nrm + v * 3, q, 12);
    memcpy(tan + v * 4, t, 16);
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    uint32_t have = k ? (uint32_t)k : 1 + (uint32_t)(s % 8);
    for (uint32_t i = 0; i < width; ++i) {
      jj[(size_t)v * width + i] = ((uint32_t)x + i) % JOINTS;
      w[(size_t)v * width + i] = i < have ? (float)(width - i) : 0.0f;
    }
    slots += have;
    blend[v] = painted ? painted_blend(x) : 0.5f;
  }
  for (uint32_t t = 0; t < tris; ++t) {
    uint32_t v = (uint32_t)((uint64_t)t * n / tris), tr[3] = {v, v + 1 < n ? v + 1 : v, v + 2 < n ? v + 2 : v};
    memcpy(tri + t * 3, tr, 12);
  }
  skn_bind_desc d = {sizeof d};
  d.joint_count = JOINTS;
  d.parents = parents;
  d.bind_matrices = bind;
  d.vertex_count = n;
  d.positions.data = pos;
  d.normals.data = nrm;
  d.tangents.data = tan;
  d.influences_per_vertex = width;
  d.influence_joints = jj;
  d.influence_weights = w;
  d.blend_weights = blend;
  d.triangles = tri; /* 1,024 triangles along the chain: every vertex gets a center, and binding
                        stays quick (COR's precomputation grows with vertices x weight overlap;
                        its skinning cost does not depend on the triangles) */
  d.triangle_count = tris;
  d.layout = layout;
  d.morph_targets = targets;
  d.morph_target_count = target_count;
  int ok = api->bind(&d, &b->rig) == SKN_OK && api->pose_create(b->rig, &b->pose) == SKN_OK &&
           bench_pose_chain(b, 0) == SKN_OK;
  b->n = n;
  b->k = k;
  b->compact = layout == SKN_LAYOUT_COMPACT;
  /* per slot, before padding: a 16-bit joint and a float weight, or
   * (compact, 64 joints) an 8-bit joint and a 16-bit weight */
  b->bytes_influences = slots / n * (b->compact ? 3.0 : 6.0);
  free(pos), free(nrm), free(tan), free(w), free(blend), free(jj), free(tri);
  return ok;
}

int bench_make_rig(bench_rig *b, uint32_t n, int k, skn_bind_layout layout) {
  return make_rig(b, skn_get_api(SKN_VERSION_MAJOR), n, k, layout, NULL, 0, 0);
}

int bench_make_rig_with(bench_rig *b, const skn_api *api, uint32_t n, int k, skn_bind_layout layout) {
  return make_rig(b, api, n, k, layout, NULL, 0, 0);
}

int bench_make_morph_rig(bench_rig *b, uint32_t n, int k, skn_bind_layout layout, const skn_morph_target *targets,
                         uint32_t target_count) {
  return make_rig(b, skn_get_api(SKN_VERSION_MAJOR), n, k, layout, targets, target_count, 0);
}

int bench_make_painted_rig(bench_rig *b, uint32_t n, int k) {
  return make_rig(b, skn_get_api(SKN_VERSION_MAJOR), n, k, SKN_LAYOUT_FULL, NULL, 0, 1);
}

void bench_rig_free(bench_rig *b) {
  if (!b->api) return; /* never made */
  b->api->pose_destroy(b->pose);
  b->api->rig_destroy(b->rig);
}

/* Bytes a vertex moves: rest attributes and influences in, results out (the
 * palette stays in cache); methods read what else they need per vertex
 * (LBS_QUATERNION's kernel forms its offsets v0 - c_i itself). A compact
 * rig reads a normal or a tangent in 4 bytes. */
static double bytes_per_vertex(const bench_rig *b, skn_method m, int attrs) {
  double normal_in = b->compact ? 4.0 : 12.0, tangent_in = b->compact ? 4.0 : 16.0;
  double io = 24.0 + (attrs > 0 ? 12.0 + normal_in : 0.0) + (attrs > 1 ? 16.0 + tangent_in : 0.0), extra = 0;
  if (m == SKN_METHOD_BLEND) extra = 4;
  if (m == SKN_METHOD_COR) extra = 13;
  return io + b->bytes_influences + extra;
}

/* Median seconds of one skn_skin call. */
skn_skin_desc bench_skin_desc(skn_method m, int attrs, uint32_t threads, float *p, float *n, float *t,
                              skn_stores stores) {
  skn_skin_desc s = {sizeof s};
  s.stores = stores;
  s.method = m;
  s.positions.data = p;
  s.normals.data = attrs > 0 ? n : NULL;
  s.tangents.data = attrs > 1 ? t : NULL;
  s.threads = threads;
  return s;
}

double bench_time_skin(const bench_rig *b, skn_method m, int attrs, uint32_t threads, float *p, float *n, float *t,
                        int repeats, skn_stores stores) {
  skn_skin_desc s = bench_skin_desc(m, attrs, threads, p, n, t, stores);
  double ts[32];
  b->api->skin(b->rig, b->pose, &s); /* warm */
  for (int r = 0; r < repeats; ++r) {
    double t0 = bench_now();
    b->api->skin(b->rig, b->pose, &s);
    ts[r] = bench_now() - t0;
  }
  return bench_median(ts, repeats);
}

/* Output buffers aligned to 64 bytes, as a renderer's upload buffers are
 * (streaming stores need the alignment). */
static float *alloc_out(size_t bytes) {
  void *p = NULL;
  return posix_memalign(&p, 64, bytes) ? NULL : p;
}

/* LBS, positions + normals, 4 influences: cached against streaming stores,
 * alternating so that both see the same machine; medians of 9. */
static void bench_stores(uint32_t n, FILE *js, const double bw[3][2]) {
  bench_rig br;
  if (!bench_make_rig(&br, n, 4, SKN_LAYOUT_FULL)) return;
  float *p = alloc_out((size_t)n * 12), *nn = alloc_out((size_t)n * 12);
  for (uint32_t th = 1; p && nn && th <= 2; ++th) {
    double c[9], st[9];
    for (int r = 0; r < 9; ++r) {
      c[r] = bench_time_skin(&br, SKN_METHOD_LBS_MATRIX, 1, th, p, nn, NULL, 1, SKN_STORES_CACHED);
      st[r] = bench_time_skin(&br, SKN_METHOD_LBS_MATRIX, 1, th, p, nn, NULL, 1, SKN_STORES_STREAMING);
    }
    double mc = n / bench_median(c, 9) / 1e6, ms = n / bench_median(st, 9) / 1e6, bpv = bytes_per_vertex(&br, 0, 1);
    printf("lbs       PN   4     %10u %3u %11.1f %11.1f %9.2fx %8.1f%%\n", n, th, mc, ms, ms / mc,
           100.0 * bpv * ms * 1e6 / 1e9 / bw[th][0]);
    if (js)
      fprintf(js, "%s\n  {\"vertices\": %u, \"threads\": %u, \"cached_mvertices_per_s\": %.2f, "
                  "\"streaming_mvertices_per_s\": %.2f}",
              n == 1000000 && th == 1 ? "" : ",", n, th, mc, ms);
  }
  free(p), free(nn);
  bench_rig_free(&br);
}

/* ---- the compact layout against the full one ---- */

const char *const BENCH_METHOD_NAMES[5] = {"lbs", "lbs-quat", "dqs", "blend", "cor"};

/* Every method, positions + normals, 4 influences, on the same vertices
 * bound in both layouts; calls alternate between the two so that both see
 * the same machine; medians of 7. The compact rig moves 52 bytes a vertex
 * where the full one moves 72 (LBS): it gains where the kernel waits on
 * memory, and costs its decode where it computes. */
static void bench_layouts(uint32_t n, FILE *js, const double bw[3][2], int *rows) {
  bench_rig br[2];
  if (!bench_make_rig(&br[0], n, 4, SKN_LAYOUT_FULL)) return;
  if (!bench_make_rig(&br[1], n, 4, SKN_LAYOUT_COMPACT)) return;
  float *p = alloc_out((size_t)n * 12), *nn = alloc_out((size_t)n * 12);
  for (int m = 0; p && nn && m <= SKN_METHOD_COR; ++m)
    for (uint32_t th = 1; th <= 2; ++th) {
      double t[2][7], mvs[2], bpv[2];
      for (int r = 0; r < 7; ++r)
        for (int c = 0; c < 2; ++c) t[c][r] = bench_time_skin(&br[c], (skn_method)m, 1, th, p, nn, NULL, 1, SKN_STORES_AUTO);
      for (int c = 0; c < 2; ++c) mvs[c] = n / bench_median(t[c], 7) / 1e6, bpv[c] = bytes_per_vertex(&br[c], (skn_method)m, 1);
      printf("%-9s PN   4     %10u %3u %11.1f %11.1f %9.2fx %5.0f %5.0f %7.1f%% %7.1f%%\n", BENCH_METHOD_NAMES[m], n, th,
             mvs[0], mvs[1], mvs[1] / mvs[0], bpv[0], bpv[1], 100.0 * bpv[0] * mvs[0] / 1e3 / bw[th][0],
             100.0 * bpv[1] * mvs[1] / 1e3 / bw[th][0]);
      if (js)
        fprintf(js, "%s\n  {\"method\": \"%s\", \"vertices\": %u, \"threads\": %u, \"full_mvertices_per_s\": %.2f, "
                    "\"compact_mvertices_per_s\": %.2f, \"full_bytes_per_vertex\": %.1f, "
                    "\"compact_bytes_per_vertex\": %.1f}",
                (*rows)++ ? "," : "", BENCH_METHOD_NAMES[m], n, th, mvs[0], mvs[1], bpv[0], bpv[1]);
    }
  free(p), free(nn);
  for (int c = 0; c < 2; ++c) bench_rig_free(&br[c]);
}

/* ---- the worker pool on a small call ---- */

/* 10,000 vertices (LBS, positions + normals, 4 influences): ~40 us of work,
 * where a hand-off that costs microseconds shows. Back to back, as a frame
 * skins mesh after mesh, and after 2 ms idle, when the workers sleep. The
 * pool's overhead is the share of the 2-thread call that halving the work
 * does not explain, 1 - (t1 / 2) / t2: it also counts the cores' own
 * imperfect scaling, so it is an upper bound (negative in the JSON where
 * the two threads took under half the time). Medians, 1 and 2 threads
 * alternating. */
static void bench_pool(FILE *js) {
  enum { CALLS = 201, IDLE_CALLS = 31 };
  bench_rig br;
  if (!bench_make_rig(&br, 10000, 4, SKN_LAYOUT_FULL)) return;
  float *p = alloc_out((size_t)br.n * 12), *nn = alloc_out((size_t)br.n * 12);
  static double hot[2][CALLS], idle[2][IDLE_CALLS];
  for (int r = 0; p && nn && r < CALLS; ++r)
    for (int th = 0; th < 2; ++th) hot[th][r] = bench_time_skin(&br, SKN_METHOD_LBS_MATRIX, 1, th + 1, p, nn, NULL, 1, SKN_STORES_AUTO);
  for (int r = 0; p && nn && r < IDLE_CALLS; ++r)
    for (int th = 0; th < 2; ++th) {
      struct timespec pause = {0, 2000000};
      nanosleep(&pause, NULL);
      skn_skin_desc s = bench_skin_desc(SKN_METHOD_LBS_MATRIX, 1, (uint32_t)th + 1, p, nn, NULL, SKN_STORES_AUTO);
      double t0 = bench_now();
      skn_skin(br.rig, br.pose, &s);
      idle[th][r] = bench_now() - t0;
    }
  double h1 = bench_median(hot[0], CALLS) * 1e6, h2 = bench_median(hot[1], CALLS) * 1e6;
  double i1 = bench_median(idle[0], IDLE_CALLS) * 1e6, i2 = bench_median(idle[1], IDLE_CALLS) * 1e6;
  double overhead = 100.0 * (1.0 - h1 / 2.0 / h2);
  printf("\npool: %u vertices, lbs PN 4, medians of %d calls (%d after idle)\n", br.n, CALLS, IDLE_CALLS);
  printf("  back to back:    1 thread %6.1f us, 2 threads %6.1f us (%.2fx): ", h1, h2, h1 / h2);
  if (overhead > 0) printf("pool overhead <= %.0f%% of the call\n", overhead);
  else printf("no pool overhead measurable (2 threads took under half)\n");
  printf("  after 2 ms idle: 1 thread %6.1f us, 2 threads %6.1f us (%.2fx): too small to wake a sleeping worker\n", i1,
         i2, i1 / i2);
  if (js)
    fprintf(js, ",\n \"pool\": {\"vertices\": %u, \"back_to_back_us\": [%.2f, %.2f], \"overhead_fraction\": %.4f, "
                "\"after_idle_us\": [%.2f, %.2f]}",
            br.n, h1, h2, overhead / 100, i1, i2);
  free(p), free(nn);
  bench_rig_free(&br);
}

/* One call a frame, as a renderer makes: 100,000 vertices (LBS, positions
 * + normals, 4 influences) after the calling thread spent a 60 Hz frame
 * (16 ms) asleep, as one waiting for the display does, or busy, as a game's
 * main thread is; 1 and 2 threads alternating, medians of 21 frames. The
 * call finds the worker asleep either way, and on this VM waking it costs
 * about what the call does: 2 threads take about as long as 1 here, where
 * back to back they take half (docs/performance.md, Threads). */
static void bench_frames(FILE *js) {
  enum { FRAMES = 21 };
  bench_rig br;
  if (!bench_make_rig(&br, 100000, 4, SKN_LAYOUT_FULL)) return;
  float *p = alloc_out((size_t)br.n * 12), *nn = alloc_out((size_t)br.n * 12);
  double t[2][2][FRAMES], m[2][2]; /* [asleep, busy][threads - 1] */
  skn_skin_desc s = bench_skin_desc(SKN_METHOD_LBS_MATRIX, 1, 1, p, nn, NULL, SKN_STORES_AUTO);
  for (int r = 0; p && nn && r < FRAMES; ++r)
    for (int busy = 0; busy < 2; ++busy)
      for (int th = 0; th < 2; ++th) {
        if (busy) {
          bench_busy(0.016);
        } else {
          struct timespec frame = {0, 16000000};
          nanosleep(&frame, NULL);
        }
        s.threads = (uint32_t)th + 1;
        double t0 = bench_now();
        skn_skin(br.rig, br.pose, &s);
        t[busy][th][r] = bench_now() - t0;
      }
  for (int busy = 0; p && nn && busy < 2; ++busy)
    for (int th = 0; th < 2; ++th) m[busy][th] = bench_median(t[busy][th], FRAMES) * 1e6;
  if (p && nn) {
    printf("\none call a frame: %u vertices, lbs PN 4, after 16 ms of the calling thread's, medians of %d\n", br.n,
           FRAMES);
    printf("  asleep: 1 thread %6.1f us, 2 threads %6.1f us (%.2fx)\n", m[0][0], m[0][1], m[0][0] / m[0][1]);
    printf("  busy:   1 thread %6.1f us, 2 threads %6.1f us (%.2fx)\n", m[1][0], m[1][1], m[1][0] / m[1][1]);
  }
  if (js && p && nn)
    fprintf(js, ",\n \"frames\": {\"vertices\": %u, \"after_sleep_us\": [%.2f, %.2f], \"after_busy_us\": [%.2f, %.2f]}",
            br.n, m[0][0], m[0][1], m[1][0], m[1][1]);
  free(p), free(nn);
  bench_rig_free(&br);
}

/* ---- pose and palette: a 1,000-joint tree ---- */

#define POSE_JOINTS 1000u

/* The baseline for one pass over a hierarchy, measured in the same run:
 * local TRS to a 3x4 matrix (glTF 2.0 sec. 3.5.3) and the parent's product,
 * in plain C, nothing else (no validation, no skinning matrix, no normal
 * matrix, no copies). */
static void plain_fk(const int32_t *parents, const skn_transform *t, float (*world)[12]) {
  for (uint32_t j = 0; j < POSE_JOINTS; ++j) {
    const float *q = t[j].rotation, *s = t[j].scale;
    float x = q[0], y = q[1], z = q[2], w = q[3], l[12] = {
        (1 - 2 * (y * y + z * z)) * s[0], 2 * (x * y - z * w) * s[1], 2 * (x * z + y * w) * s[2], t[j].translation[0],
        2 * (x * y + z * w) * s[0], (1 - 2 * (x * x + z * z)) * s[1], 2 * (y * z - x * w) * s[2], t[j].translation[1],
        2 * (x * z - y * w) * s[0], 2 * (y * z + x * w) * s[1], (1 - 2 * (x * x + y * y)) * s[2], t[j].translation[2]};
    if (parents[j] < 0) {
      memcpy(world[j], l, sizeof l);
      continue;
    }
    const float *a = world[parents[j]];
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 4; ++c)
        world[j][r * 4 + c] = a[r * 4] * l[c] + a[r * 4 + 1] * l[4 + c] + a[r * 4 + 2] * l[8 + c] + (c == 3 ? a[r * 4 + 3] : 0);
  }
}

/* skn_pose_set_local for every joint (validation, forward kinematics, M_i,
 * normal matrices, the kernels' palette) and, after it, the dual quaternion
 * forms of one split (skn_pose_palette DUAL_QUAT: the first DQS / BLEND /
 * COR call of a pose pays the same) and LBS_QUATERNION's forms, against
 * plain_fk and the forms the scalar set derives a joint at a time
 * (palette.c); medians of 101. */
static void bench_pose(FILE *js) {
  int32_t parents[POSE_JOINTS];
  float bind[POSE_JOINTS * 16] = {0}, pos[POSE_JOINTS * 3] = {0}, w[POSE_JOINTS];
  uint32_t jj[POSE_JOINTS];
  static skn_transform local[POSE_JOINTS];
  static float world[POSE_JOINTS][12], pal[POSE_JOINTS * 8];
  for (uint32_t j = 0; j < POSE_JOINTS; ++j) {
    parents[j] = j ? (int32_t)(j - 1) / 2 : -1; /* a binary tree, 10 levels */
    bind[j * 16] = bind[j * 16 + 5] = bind[j * 16 + 10] = bind[j * 16 + 15] = 1;
    bind[j * 16 + 12] = (float)j;
    pos[j * 3] = (float)j, jj[j] = j, w[j] = 1;
    float h = 0.05f + 0.01f * (j % 7);
    skn_transform x = {{1, 0.1f, 0}, {h, 0.5f * h, 0.3f * h, 1.0f}, {1, 1, 1}};
    local[j] = x;
  }
  skn_bind_desc d = {sizeof d};
  d.joint_count = POSE_JOINTS, d.parents = parents, d.bind_matrices = bind;
  d.vertex_count = POSE_JOINTS, d.positions.data = pos;
  d.influences_per_vertex = 1, d.influence_joints = jj, d.influence_weights = w;
  skn_rig *rig = NULL;
  skn_pose *pose = NULL;
  if (skn_bind(&d, &rig) != SKN_OK || skn_pose_create(rig, &pose) != SKN_OK) {
    skn_rig_destroy(rig);
    return;
  }
  static float out[POSE_JOINTS * 3];
  skn_skin_desc sk = {sizeof sk};
  sk.method = SKN_METHOD_LBS_QUATERNION, sk.positions.data = out, sk.threads = 1;
  double fk[101], set[101], dq[2][101], quat[2][101];
  skn_simd simd = skn_get_simd(), sets[2] = {simd, SKN_SIMD_SCALAR};
  for (int r = 0; r < 101; ++r) { /* the scalar set's joint-at-a-time forms interleaved */
    double t0 = bench_now();
    plain_fk(parents, local, world);
    fk[r] = bench_now() - t0;
    for (int k = 0; k < 2; ++k) {
      skn_set_simd(sets[k]);
      t0 = bench_now();
      skn_pose_set_local(pose, 0, POSE_JOINTS, local);
      double t1 = bench_now();
      skn_pose_palette(pose, SKN_PALETTE_DUAL_QUAT, pal, sizeof pal);
      double t2 = bench_now();
      skn_pose_set_local(pose, 0, POSE_JOINTS, local);
      double t3 = bench_now();
      skn_skin(rig, pose, &sk); /* LBS_QUATERNION's forms, then 1,000 vertices */
      double t4 = bench_now();
      skn_skin(rig, pose, &sk); /* the vertices alone */
      double t5 = bench_now();
      if (k == 0) set[r] = t1 - t0;
      dq[k][r] = t2 - t1, quat[k][r] = (t4 - t3) - (t5 - t4);
    }
    skn_set_simd(simd);
  }
  double mf = bench_median(fk, 101) * 1e6, ms = bench_median(set, 101) * 1e6, md[2], mq[2];
  for (int k = 0; k < 2; ++k) md[k] = bench_median(dq[k], 101) * 1e6, mq[k] = bench_median(quat[k], 101) * 1e6;
  printf("\npose: %u joints (a binary tree), medians of 101\n", POSE_JOINTS);
  printf("  plain FK in C (TRS -> 3x4, parent product)        %8.2f us\n", mf);
  printf("  skn_pose_set_local (FK, M_i, normal matrices)       %8.2f us  %5.2fx plain FK  %5.1f ns/joint\n", ms,
         ms / mf, ms * 1e3 / POSE_JOINTS);
  printf("  + dual quaternion forms (first DQS call of a pose)  %8.2f us  %5.2fx faster than a joint at a time "
         "(%.2f us)\n", md[0], md[1] / md[0], md[1]);
  printf("  + LBS_QUATERNION forms (its first call of a pose)   %8.2f us  %5.2fx faster than a joint at a time "
         "(%.2f us)\n", mq[0], mq[1] / mq[0], mq[1]);
  if (js)
    fprintf(js, ",\n \"pose\": {\"joints\": %u, \"plain_fk_us\": %.3f, \"set_local_us\": %.3f, "
                "\"dual_quaternion_forms_us\": %.3f, \"dual_quaternion_forms_scalar_us\": %.3f, "
                "\"quaternion_forms_us\": %.3f, \"quaternion_forms_scalar_us\": %.3f}",
            POSE_JOINTS, mf, ms, md[0], md[1], mq[0], mq[1]);
  skn_pose_destroy(pose);
  skn_rig_destroy(rig);
}

const char *const BENCH_ATTR_NAMES[3] = {"P", "PN", "PNT"};
const char *const BENCH_SIMD_NAMES[5] = {"auto", "scalar", "portable", "avx2", "avx512"};

/* The widest set this CPU runs, whether or not the library holds it: a
 * library made for another CPU (make's default, KERNEL_SETS=native) runs
 * narrower kernels here, and the user should hear it before timing them. */
static skn_simd cpu_widest(void) {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl")) return SKN_SIMD_AVX512;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return SKN_SIMD_AVX2;
  return SKN_SIMD_PORTABLE;
}

void bench_kernels_line(FILE *out) {
  skn_simd simd = skn_get_simd(), widest = cpu_widest();
  fprintf(out, "kernels: %s", BENCH_SIMD_NAMES[simd]);
  if (simd >= SKN_SIMD_PORTABLE && simd < widest)
    fprintf(out, "; this CPU runs %s, which this libskn lacks (made for another CPU): build it here, or with "
            "make KERNEL_SETS=all", BENCH_SIMD_NAMES[widest]);
  fputc('\n', out);
}

int bench_json_name(const char *path) {
  static const char *const JSON[] = {"json"};
  if (output_extension(path, JSON, 1) >= 0) return 1;
  fprintf(stderr, "skn: -o %s: bench writes its results as JSON: name the file .json\n", path);
  return 0;
}

void bench_machine(char *cpu, size_t n) {
  FILE *f = fopen("/proc/cpuinfo", "r");
  char line[256];
  snprintf(cpu, n, "unknown CPU");
  while (f && fgets(line, sizeof line, f))
    if (!strncmp(line, "model name", 10) && strchr(line, ':')) {
      snprintf(cpu, n, "%s", strchr(line, ':') + 2);
      cpu[strcspn(cpu, "\n")] = 0;
      break;
    }
  if (f) fclose(f);
}

/* `skn bench --calls C WHAT[,WHAT...]`: C calls of each, nothing else timed
 * or probed, for a profiler (callgrind's instructions a vertex:
 * scripts/instructions_per_vertex). WHAT is METHOD-rigid or METHOD-scaled
 * (the goals' 100,000 vertices, 4 influences, positions + normals, one
 * thread) or "yard" (the yardstick on the same rig); after one warm call. */
static int bench_calls(int calls, const char *list) {
  bench_rig b = {0};
  float *p = alloc_out(100000 * 12), *n = alloc_out(100000 * 12);
  int rc = 0;
  char what[256];
  snprintf(what, sizeof what, "%s", list);
  if (!p || !n || !bench_make_rig(&b, 100000, 4, SKN_LAYOUT_FULL)) rc = fail_input("bench rig");
  for (char *w = strtok(what, ","); w && !rc; w = strtok(NULL, ",")) {
    if (!strcmp(w, "yard")) {
      bench_yardstick *y = bench_yardstick_new(&b);
      if (!y) rc = fail_input("yard: built without ../shared/bench");
      else bench_yardstick_time(y, 1, 1, calls);
      bench_yardstick_free(y);
      continue;
    }
    const char *pose = strrchr(w, '-');
    size_t len = pose ? (size_t)(pose - w) : 0;
    int m = 0, scaled = pose && !strcmp(pose, "-scaled");
    while (m <= SKN_METHOD_COR && !(strlen(BENCH_METHOD_NAMES[m]) == len && !strncmp(w, BENCH_METHOD_NAMES[m], len))) ++m;
    if (m > SKN_METHOD_COR || (!scaled && strcmp(pose, "-rigid"))) {
      fprintf(stderr, "skn: bench --calls: %s: want yard or METHOD-rigid or METHOD-scaled\n", w);
      rc = EXIT_USAGE;
      continue;
    }
    bench_pose_chain(&b, scaled);
    bench_time_skin(&b, (skn_method)m, 1, 1, p, n, NULL, calls, SKN_STORES_AUTO);
  }
  free(p), free(n);
  bench_rig_free(&b);
  return rc;
}

int cmd_bench(int argc, char **argv) {
  int full = 0;
  const char *json_path = NULL;
  for (int i = 2; i < argc; ++i)
    if (!strcmp(argv[i], "--gpu")) return bench_gpu(argc, argv);
    else if (!strcmp(argv[i], "--against")) return bench_against(argc, argv);
  if (argc == 5 && !strcmp(argv[2], "--calls") && atoi(argv[3]) >= 1 && atoi(argv[3]) <= 32)
    return bench_calls(atoi(argv[3]), argv[4]);
  for (int i = 2; i < argc; ++i) {
    if (!strcmp(argv[i], "--full")) full = 1;
    else if (!strcmp(argv[i], "-o") && i + 1 < argc) json_path = argv[++i];
    else return fprintf(stderr, "skn: bench takes --full and -o FILE, or --calls C WHAT (see --help)\n"), EXIT_USAGE;
  }
  if (json_path && !bench_json_name(json_path)) return EXIT_USAGE;
  char cpu[160];
  bench_machine(cpu, sizeof cpu);
  skn_simd simd = skn_get_simd();
  size_t pn = (size_t)64 << 20; /* 3 x 256 MiB: far past any cache */
  float *a = calloc(pn, 4), *b = calloc(pn, 4), *c = calloc(pn, 4);
  if (!a || !b || !c) return fail_input("out of memory");
  /* every page written before it is read: calloc's untouched pages all map
   * the kernel's one zero page, which a copy would read from L1 (the probe
   * then counted the bytes it read and measured only its writes: 2x high) */
  for (size_t i = 0; i < pn; ++i) a[i] = 1.0f, b[i] = 2.0f, c[i] = 3.0f;
  double bw[3][2], nt[3];
  for (int th = 1; th <= 2; ++th) {
    bw[th][0] = probe(a, b, c, pn, th, PROBE_COPY);
    bw[th][1] = probe(a, b, c, pn, th, PROBE_TRIAD);
    nt[th] = probe(a, b, NULL, pn, th, PROBE_NT_COPY);
  }
  free(c); /* a and b stay for each row's own copy probe */
  printf("skn %s bench on %s, %ld cores, ", skn_version_string(), cpu, sysconf(_SC_NPROCESSORS_ONLN));
  bench_kernels_line(stdout);
  printf("bandwidth probe: copy %.1f GB/s (1 thread), %.1f GB/s (2); triad %.1f / %.1f GB/s; non-temporal copy "
         "%.1f / %.1f GB/s\n", bw[1][0], bw[2][0], bw[1][1], bw[2][1], nt[1], nt[2]);
  printf("medians of 5 runs (3 at 10M); ceiling = copy bandwidth / bytes a vertex moves, the copy probed\n"
         "again after each row (its GB/s): this machine's bandwidth moves by half from minute to minute; %% NT:\n"
         "of the non-temporal copy's ceiling above; both can pass 100%%: the copy reads each line it writes\n"
         "(read-for-ownership) where the kernels' streaming stores do not, rows that fit the caches are not\n"
         "bound by memory at all, and a probe is one minute's reading; x yard: against ../shared/bench's scalar\n"
         "yardstick (-O2, 4 influences, the same vertices and attributes and threads; %s)\n\n",
         YARDSTICK_BUILT ? "timed before each size's rows" : "not built in: no ../shared/bench");
  printf("%-9s %-4s %-5s %10s %3s %11s %10s %8s %9s %7s %8s %8s\n", "method", "attr", "infl", "vertices", "thr",
         "M vert/s", "x scalar", "x yard", "% ceiling", "% NT", "B/vert", "GB/s");
  FILE *js = json_path ? fopen(json_path, "w") : NULL;
  if (js)
    fprintf(js, "{\"version\": \"%s\", \"cpu\": \"%s\", \"kernels\": \"%s\", \"bandwidth_gbs\": {\"copy_1\": %.2f, "
                "\"copy_2\": %.2f, \"triad_1\": %.2f, \"triad_2\": %.2f, \"nt_copy_1\": %.2f, \"nt_copy_2\": %.2f},\n"
                " \"results\": [",
            skn_version_string(), cpu, BENCH_SIMD_NAMES[simd], bw[1][0], bw[2][0], bw[1][1], bw[2][1], nt[1], nt[2]);
  const uint32_t sizes_full[] = {10000, 100000, 1000000, 10000000}, sizes_quick[] = {1000000};
  const int infl_full[] = {1, 4, 8, 0}, infl_quick[] = {4};
  const uint32_t *sizes = full ? sizes_full : sizes_quick;
  const int *infl = full ? infl_full : infl_quick, nsizes = full ? 4 : 1, ninfl = full ? 4 : 1;
  int rows = 0;
  for (int si = 0; si < nsizes; ++si) {
    double yard[3][3] = {{0}}; /* seconds, by attributes and threads */
    bench_rig yr;
    if (YARDSTICK_BUILT && bench_make_rig(&yr, sizes[si], 4, SKN_LAYOUT_FULL)) {
      bench_yardstick *y = bench_yardstick_new(&yr);
      for (int attrs = 0; attrs <= 2; ++attrs)
        for (uint32_t th = 1; th <= 2; ++th) yard[attrs][th] = bench_yardstick_time(y, attrs, th, sizes[si] >= 10000000 ? 3 : 5);
      bench_yardstick_free(y);
      bench_rig_free(&yr);
    }
    for (int ki = 0; ki < ninfl; ++ki) {
      bench_rig br;
      if (!bench_make_rig(&br, sizes[si], infl[ki], SKN_LAYOUT_FULL)) return fail_input("bench rig");
      uint32_t n = br.n;
      float *p = alloc_out((size_t)n * 12), *nn = alloc_out((size_t)n * 12), *t = alloc_out((size_t)n * 16);
      int reps = n >= 10000000 ? 3 : 5;
      for (int m = 0; m <= SKN_METHOD_COR; ++m)
        for (int attrs = 0; attrs <= 2; ++attrs) {
          if (!full && attrs != 1) continue;
          for (uint32_t th = 1; th <= 2; ++th) {
            skn_set_simd(SKN_SIMD_SCALAR);
            double ref = bench_time_skin(&br, (skn_method)m, attrs, th, p, nn, t, reps, SKN_STORES_AUTO);
            skn_set_simd(simd);
            double fast = bench_time_skin(&br, (skn_method)m, attrs, th, p, nn, t, reps, SKN_STORES_AUTO);
            double row_bw = probe(a, b, a, ROW_PROBE_FLOATS, th, PROBE_COPY); /* the same minute's ceiling */
            double bpv = bytes_per_vertex(&br, (skn_method)m, attrs), mvs = n / fast / 1e6;
            double ceiling = 100.0 * bpv * n / fast / 1e9 / row_bw;
            char infl_name[8];
            snprintf(infl_name, sizeof infl_name, infl[ki] ? "%d" : "1-8", infl[ki]);
            double ys = yard[attrs][th] ? yard[attrs][th] / fast : 0, nt_share = 100.0 * bpv * n / fast / 1e9 / nt[th];
            char ys_text[16];
            snprintf(ys_text, sizeof ys_text, ys ? "%.2fx" : "-", ys);
            printf("%-9s %-4s %-5s %10u %3u %11.1f %9.2fx %8s %8.1f%% %6.1f%% %8.0f %8.1f\n", BENCH_METHOD_NAMES[m],
                   BENCH_ATTR_NAMES[attrs], infl_name, n, th, mvs, ref / fast, ys_text, ceiling, nt_share, bpv, row_bw);
            if (js)
              fprintf(js, "%s\n  {\"method\": \"%s\", \"attributes\": \"%s\", \"influences\": \"%s\", \"vertices\": %u, "
                          "\"threads\": %u, \"mvertices_per_s\": %.2f, \"scalar_mvertices_per_s\": %.2f, "
                          "\"ratio_to_scalar\": %.3f, \"bytes_per_vertex\": %.1f, \"copy_gbs\": %.2f, "
                          "\"fraction_of_ceiling\": %.4f, \"ratio_to_yardstick\": %.3f, \"fraction_of_nt_ceiling\": %.4f}",
                      rows ? "," : "", BENCH_METHOD_NAMES[m], BENCH_ATTR_NAMES[attrs], infl_name, n, th, mvs, n / ref / 1e6,
                      ref / fast, bpv, row_bw, ceiling / 100, ys, nt_share / 100);
            ++rows;
          }
        }
      free(p), free(nn), free(t);
      bench_rig_free(&br);
    }
  }
  free(a), free(b);
  printf("\nstores: through the caches or streaming (skn_stores); the table above uses SKN_STORES_AUTO\n");
  printf("%-9s %-4s %-5s %10s %3s %11s %11s %10s %9s\n", "method", "attr", "infl", "vertices", "thr", "cached M/s",
         "stream M/s", "ratio", "% ceiling");
  if (js) fprintf(js, "\n ],\n \"stores\": [");
  bench_stores(1000000, js, bw);
  if (full) bench_stores(10000000, js, bw);
  printf("\nlayouts: SKN_LAYOUT_FULL against SKN_LAYOUT_COMPACT (skn_bind_desc.layout), the same vertices\n");
  printf("%-9s %-4s %-5s %10s %3s %11s %11s %10s %5s %5s %8s %8s\n", "method", "attr", "infl", "vertices", "thr",
         "full M/s", "compact M/s", "ratio", "B/v", "B/v", "% ceil", "% ceil");
  if (js) fprintf(js, "\n ],\n \"layouts\": [");
  int layout_rows = 0;
  bench_layouts(1000000, js, bw, &layout_rows);
  if (full) bench_layouts(10000000, js, bw, &layout_rows);
  if (js) fprintf(js, "\n ]");
  bench_goals(js, nt);
  bench_morphs(js);
  bench_pool(js);
  bench_frames(js);
  bench_pose(js);
  if (js) {
    fprintf(js, "\n}\n");
    fclose(js);
    printf("\nwrote %s\n", json_path);
  }
  return EXIT_OK;
}
