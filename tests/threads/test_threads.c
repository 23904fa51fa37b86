/* test_threads.c — skn from many threads at once, as the header promises
 * it: a rig shared by any number of threads, a pose per thread (or one pose
 * skinned in disjoint ranges), the library's pool and the host's threads
 * together, documents opened side by side, an error message per thread.
 * Every result must be the sequential run's, bit for bit. Run plainly and
 * under ThreadSanitizer (make check), which reports any data race.
 * Prints "threads: N passed, N failed". */
#include "skn.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define THREADS 8
#define JOINTS 40
#define VERTICES 3000
#define K 4

static int passed, failed;
static pthread_barrier_t start; /* threads begin their calls together, so that they overlap */

static void check(int ok, const char *what) {
  if (ok) ++passed;
  else ++failed, fprintf(stderr, "FAIL %s\n", what);
}

/* ---- a rig, and a pose per seed ---- */

static uint64_t next(uint64_t *s) {
  *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
  return *s;
}
static float uniform(uint64_t *s, float lo, float hi) { return lo + (hi - lo) * (float)(next(s) % 1000000) / 1e6f; }

static skn_rig *make_rig(void) {
  static int32_t parents[JOINTS];
  static float bind[JOINTS * 16], pos[VERTICES * 3], nrm[VERTICES * 3], tan[VERTICES * 4], w[VERTICES * K], blend[VERTICES];
  static uint32_t jj[VERTICES * K], tri[VERTICES * 3];
  uint64_t s = 12345;
  for (int j = 0; j < JOINTS; ++j) {
    parents[j] = j ? (int32_t)(next(&s) % (uint64_t)j) : -1;
    memset(bind + j * 16, 0, 64);
    bind[j * 16] = bind[j * 16 + 5] = bind[j * 16 + 10] = bind[j * 16 + 15] = 1;
    bind[j * 16 + 12] = (float)j;
  }
  for (int v = 0; v < VERTICES; ++v) {
    float x = (float)v * JOINTS / VERTICES;
    pos[v * 3] = x, pos[v * 3 + 1] = uniform(&s, -1, 1), pos[v * 3 + 2] = uniform(&s, -1, 1);
    nrm[v * 3] = 0, nrm[v * 3 + 1] = 0.6f, nrm[v * 3 + 2] = 0.8f;
    tan[v * 4] = 1, tan[v * 4 + 1] = tan[v * 4 + 2] = 0, tan[v * 4 + 3] = v % 2 ? 1.0f : -1.0f;
    for (int i = 0; i < K; ++i) jj[v * K + i] = (uint32_t)((int)x + i) % JOINTS, w[v * K + i] = uniform(&s, 0.1f, 1);
    blend[v] = uniform(&s, 0, 1);
    tri[v * 3] = (uint32_t)v, tri[v * 3 + 1] = (uint32_t)(v + 1) % VERTICES, tri[v * 3 + 2] = (uint32_t)(v + 2) % VERTICES;
  }
  skn_bind_desc d = {sizeof d};
  d.joint_count = JOINTS, d.parents = parents, d.bind_matrices = bind, d.vertex_count = VERTICES;
  d.positions.data = pos, d.normals.data = nrm, d.tangents.data = tan;
  d.influences_per_vertex = K, d.influence_joints = jj, d.influence_weights = w;
  d.blend_weights = blend, d.triangles = tri, d.triangle_count = VERTICES;
  skn_rig *rig = NULL;
  if (skn_bind(&d, &rig)) fprintf(stderr, "bind: %s\n", skn_last_error()), exit(1);
  return rig;
}

static void set_pose(skn_pose *pose, uint64_t seed) {
  skn_transform t[JOINTS];
  uint64_t s = seed * 2654435761u + 1;
  for (int j = 0; j < JOINTS; ++j) {
    skn_transform x = {{j ? 1.0f : 0.0f, uniform(&s, -.1f, .1f), 0},
                       {uniform(&s, -.5f, .5f), uniform(&s, -.5f, .5f), uniform(&s, -.5f, .5f), 1},
                       {uniform(&s, .8f, 1.2f), uniform(&s, .8f, 1.2f), uniform(&s, .8f, 1.2f)}};
    t[j] = x;
  }
  skn_pose_set_local(pose, 0, JOINTS, t);
}

/* Every method but LBS_QUATERNION (the poses shear) into one buffer. */
#define METHODS 4
static const skn_method METHOD[METHODS] = {SKN_METHOD_LBS_MATRIX, SKN_METHOD_DQS, SKN_METHOD_BLEND, SKN_METHOD_COR};
#define OUT_FLOATS (VERTICES * 10)

static void skin_all(const skn_rig *rig, const skn_pose *pose, uint32_t threads, float *out) {
  for (int m = 0; m < METHODS; ++m) {
    float *o = out + (size_t)m * OUT_FLOATS;
    skn_skin_desc d = {sizeof d};
    d.method = METHOD[m];
    d.dqs_scale = (skn_dqs_scale)(m & 1);
    d.threads = threads;
    d.positions.data = o, d.normals.data = o + VERTICES * 3, d.tangents.data = o + VERTICES * 6;
    if (skn_skin(rig, pose, &d)) fprintf(stderr, "skin: %s\n", skn_last_error()), exit(1);
  }
}

/* ---- 1: a pose per thread, one rig, the pool and the calling thread ---- */

typedef struct own_pose_job {
  const skn_rig *rig;
  int index;
  float *out;
  int together;
} own_pose_job;

static void *own_pose(void *arg) {
  own_pose_job *job = arg;
  if (job->together) pthread_barrier_wait(&start);
  skn_pose *pose = NULL;
  skn_pose_create(job->rig, &pose);
  for (int round = 0; round < 3; ++round) { /* poses change between rounds: the forms derive again */
    set_pose(pose, (uint64_t)(job->index * 10 + round));
    skin_all(job->rig, pose, job->index % 2 ? 0 : 1, job->out + (size_t)round * METHODS * OUT_FLOATS);
  }
  skn_pose_destroy(pose);
  return NULL;
}

static void threads_with_their_own_poses(const skn_rig *rig) {
  size_t per = (size_t)3 * METHODS * OUT_FLOATS;
  float *seq = malloc(per * THREADS * sizeof(float)), *par = malloc(per * THREADS * sizeof(float));
  own_pose_job jobs[THREADS];
  for (int t = 0; t < THREADS; ++t) { /* sequential first: the expected bits */
    jobs[t] = (own_pose_job){rig, t, seq + per * t, 0};
    own_pose(&jobs[t]);
  }
  pthread_t th[THREADS];
  for (int t = 0; t < THREADS; ++t) {
    jobs[t].out = par + per * t;
    jobs[t].together = 1;
    pthread_create(&th[t], NULL, own_pose, &jobs[t]);
  }
  for (int t = 0; t < THREADS; ++t) pthread_join(th[t], NULL);
  check(!memcmp(seq, par, per * THREADS * sizeof(float)), "8 threads, their own poses: the sequential bits");
  free(seq), free(par);
}

/* ---- 2: one pose, disjoint ranges: the first calls derive its forms together ---- */

typedef struct range_job {
  const skn_rig *rig;
  const skn_pose *pose;
  skn_method method;
  uint32_t first, count;
  float *out;
  int together;
} range_job;

static void *skin_range(void *arg) {
  range_job *job = arg;
  if (job->together) pthread_barrier_wait(&start);
  skn_skin_desc d = {sizeof d};
  d.method = job->method;
  d.first_vertex = job->first, d.vertex_count = job->count, d.threads = 1;
  d.positions.data = job->out;
  if (skn_skin(job->rig, job->pose, &d)) fprintf(stderr, "range: %s\n", skn_last_error()), exit(1);
  return NULL;
}

static void ranges_of_one_pose(const skn_rig *rig) {
  static float whole[VERTICES * 3], parts[VERTICES * 3];
  for (int m = 0; m < METHODS; ++m) {
    skn_pose *pose = NULL;
    skn_pose_create(rig, &pose);
    set_pose(pose, 99 + (uint64_t)m);
    range_job one = {rig, pose, METHOD[m], 0, 0, whole, 0};
    skin_range(&one);
    set_pose(pose, 99 + (uint64_t)m); /* the forms are stale again: the threads race to derive them */
    pthread_t th[THREADS];
    range_job jobs[THREADS];
    for (int t = 0; t < THREADS; ++t) {
      uint32_t lo = (uint32_t)(VERTICES * t / THREADS), hi = (uint32_t)(VERTICES * (t + 1) / THREADS);
      jobs[t] = (range_job){rig, pose, METHOD[m], lo, hi - lo, parts, 1};
      pthread_create(&th[t], NULL, skin_range, &jobs[t]);
    }
    for (int t = 0; t < THREADS; ++t) pthread_join(th[t], NULL);
    check(!memcmp(whole, parts, sizeof whole), "one pose in 8 ranges: one call's bits");
    skn_pose_destroy(pose);
  }
}

/* ---- 3: documents opened, bound and posed side by side; messages per thread ---- */

typedef struct doc_job {
  const char *path;
  int together;
  int ok, message_ok;
  float first[3];
} doc_job;

static void *open_doc(void *arg) {
  doc_job *job = arg;
  if (job->together) pthread_barrier_wait(&start);
  skn_gltf *g = NULL;
  skn_rig *rig = NULL;
  skn_pose *pose = NULL;
  skn_gltf_bind_desc bd = {sizeof bd};
  float out[3273 * 3];
  skn_skin_desc d = {sizeof d};
  d.positions.data = out;
  job->ok = !skn_gltf_open(job->path, &g) && !skn_gltf_bind(g, &bd, &rig) && !skn_pose_create(rig, &pose) &&
            !skn_gltf_pose(g, 0, 0, 0.5f, pose) && !skn_skin(rig, pose, &d);
  memcpy(job->first, out, sizeof job->first);
  char bad[64];
  snprintf(bad, sizeof bad, "no/such/%p.gltf", (void *)job);
  skn_gltf *none = NULL;
  skn_gltf_open(bad, &none); /* this thread's message names this thread's file */
  job->message_ok = strstr(skn_last_error(), bad) != NULL;
  skn_pose_destroy(pose), skn_rig_destroy(rig), skn_gltf_close(g);
  return NULL;
}

static void documents_side_by_side(void) {
  static const char *const FILES[2] = {"data/gltf/Fox/glTF-Binary/Fox.glb", "data/gltf/CesiumMan/glTF/CesiumMan.gltf"};
  doc_job seq[THREADS], par[THREADS];
  pthread_t th[THREADS];
  for (int t = 0; t < THREADS; ++t) {
    seq[t] = (doc_job){FILES[t % 2], 0};
    open_doc(&seq[t]);
    par[t] = (doc_job){FILES[t % 2], 1};
    pthread_create(&th[t], NULL, open_doc, &par[t]);
  }
  int ok = 1;
  for (int t = 0; t < THREADS; ++t) {
    pthread_join(th[t], NULL);
    ok &= seq[t].ok && par[t].ok && par[t].message_ok && !memcmp(seq[t].first, par[t].first, sizeof seq[t].first);
  }
  check(ok, "8 threads open, bind, pose and skin documents; each its own message");
}

int main(void) {
  pthread_barrier_init(&start, NULL, THREADS);
  skn_rig *rig = make_rig();
  threads_with_their_own_poses(rig);
  ranges_of_one_pose(rig);
  documents_side_by_side();
  skn_rig_destroy(rig);
  pthread_barrier_destroy(&start);
  printf("threads: %d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
