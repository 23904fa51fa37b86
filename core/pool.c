/* pool.c — the library's persistent worker threads. Created on first use
 * (one per core beyond the caller's), joined when the library is unloaded.
 *
 * A job is a count of blocks that the workers and the calling thread claim
 * one at a time, so a slow core never holds up a fixed share. What makes a
 * small job (10,000 vertices: ~40 us of work) worth splitting:
 *  - the caller never waits for a worker to wake up: it starts on the
 *    blocks at once and afterwards waits only for blocks a worker has
 *    claimed and not yet finished, never for workers that did not come;
 *  - a worker spins for a while after a job before it sleeps, so that the
 *    back-to-back calls of a frame (one mesh after another) hand off
 *    through one cache line instead of a futex wake-up each; it yields the
 *    core as it spins, in case it was woken onto its caller's (await_job);
 *  - waking a sleeping worker costs the caller a futex system call, and on
 *    a virtual machine an inter-processor interrupt: 12-22 us measured
 *    here, the worker running 8-15 us later. A light job (one the caller
 *    says is worth less than that) runs on the workers already awake, or
 *    on the caller alone when all are asleep, unless light jobs come back
 *    to back (then one wake-up keeps the workers awake for the rest).
 * Claims are a compare-and-swap on one word holding the job's generation
 * and its next block, so a worker that wakes late can never claim a block
 * of a job that has moved on (and never touches its context). */
#define _GNU_SOURCE /* syscall() */
#include "internal.h"

#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define SKN_MAX_WORKERS 256u
#define SKN_SPIN_NS 100000 /* a worker's spin after its last job before it sleeps */

#if defined(__x86_64__) || defined(__i386__)
#define cpu_relax() __builtin_ia32_pause()
#elif defined(__aarch64__)
#define cpu_relax() __asm__ __volatile__("yield")
#else
#define cpu_relax() ((void)0)
#endif

#define LOAD(p, order) __atomic_load_n(p, __ATOMIC_##order)
#define STORE(p, v, order) __atomic_store_n(p, v, __ATOMIC_##order)

static struct {
  pthread_once_t once;
  pthread_mutex_t submit; /* one job at a time; a second caller runs inline */
  pthread_t threads[SKN_MAX_WORKERS];
  uint32_t worker_count;
  uint32_t generation; /* the submitter's count of jobs (under `submit`) */
  int64_t last_job_ns;  /* when the last job was asked for */
  /* The job, written (relaxed) before `work` publishes it (release). */
  skn_pool_fn fn;
  void *ctx;
  uint32_t block_count;
  uint32_t participants; /* workers taking part: index < participants */
  __attribute__((aligned(64))) uint64_t work; /* generation << 32 | next unclaimed block */
  __attribute__((aligned(64))) uint32_t done; /* blocks finished in the current job */
  __attribute__((aligned(64))) uint32_t wake_seq; /* futex word: bumped per job and at shutdown */
  uint32_t sleepers;
  int shutdown;
} pool = {.once = PTHREAD_ONCE_INIT, .submit = PTHREAD_MUTEX_INITIALIZER};

static void futex(uint32_t *word, int op, uint32_t value) {
  syscall(SYS_futex, word, op | FUTEX_PRIVATE_FLAG, value, NULL, NULL, 0);
}

static int64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* Claims the next block of job `gen`: false once it has none left, or has
 * been replaced by a later job (whose fields may already be written). */
static int claim(uint32_t gen, uint32_t *block) {
  uint64_t w = LOAD(&pool.work, ACQUIRE);
  for (;;) {
    if ((uint32_t)(w >> 32) != gen || (uint32_t)w >= LOAD(&pool.block_count, RELAXED)) return 0;
    if (__atomic_compare_exchange_n(&pool.work, &w, w + 1, 1, __ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE)) {
      *block = (uint32_t)w;
      return 1;
    }
  }
}

/* A claimed block holds its job in place, so fn and ctx are the job's own. */
static void run_job(uint32_t gen) {
  uint32_t b;
  while (claim(gen, &b)) {
    LOAD(&pool.fn, RELAXED)(LOAD(&pool.ctx, RELAXED), b, b + 1);
    __atomic_fetch_add(&pool.done, 1, __ATOMIC_RELEASE);
  }
}

static uint32_t job_generation(void) { return (uint32_t)(LOAD(&pool.work, ACQUIRE) >> 32); }

/* Returns the generation of the next job after `seen` (or `seen` at shutdown):
 * spins for SKN_SPIN_NS, then sleeps on the futex. The sleeper count is read
 * by the submitter after it bumps wake_seq, and sequentially consistent order
 * makes one of the two see the other: no wake-up is lost.
 * The spin yields the core every 64 pauses (about a microsecond): a worker
 * that slept long is often woken onto its caller's own core, where the
 * scheduler lets it preempt the caller; spinning there, it held the caller
 * off for the whole spin. `make bench`'s 10,000-vertex rows on 2 threads
 * read ~120 us a call, every other call, where one thread took 9-40 us
 * (the row before had left the second core idle), and 9-25 us with the
 * yield; back to back the pool's calls measured the same with it. */
static uint32_t await_job(uint32_t seen) {
  int64_t until = now_ns() + SKN_SPIN_NS;
  for (uint32_t spin = 1;; ++spin) {
    if (job_generation() != seen || LOAD(&pool.shutdown, ACQUIRE)) return job_generation();
    cpu_relax();
    if ((spin & 63u) == 0) {
      if (now_ns() > until) break;
      sched_yield(); /* a caller sharing this core runs (above) */
    }
  }
  __atomic_fetch_add(&pool.sleepers, 1, __ATOMIC_SEQ_CST);
  for (;;) {
    uint32_t seq = LOAD(&pool.wake_seq, SEQ_CST);
    if (job_generation() != seen || LOAD(&pool.shutdown, ACQUIRE)) break;
    futex(&pool.wake_seq, FUTEX_WAIT, seq);
  }
  __atomic_fetch_sub(&pool.sleepers, 1, __ATOMIC_SEQ_CST);
  return job_generation();
}

static void *worker_main(void *arg) {
  uint32_t index = (uint32_t)(uintptr_t)arg, seen = 0;
  for (;;) {
    seen = await_job(seen);
    if (LOAD(&pool.shutdown, ACQUIRE)) return NULL;
    if (index < LOAD(&pool.participants, RELAXED)) run_job(seen);
  }
}

static void pool_start(void) {
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  uint32_t want = cores > 1 ? (uint32_t)SKN_MIN(cores - 1, (long)SKN_MAX_WORKERS) : 0;
  for (uint32_t i = 0; i < want; ++i) {
    if (pthread_create(&pool.threads[i], NULL, worker_main, (void *)(uintptr_t)i) != 0) break;
    pool.worker_count = i + 1;
  }
}

uint32_t skn__pool_size(void) {
  pthread_once(&pool.once, pool_start);
  return pool.worker_count + 1;
}

static void wake_workers(void) {
  __atomic_fetch_add(&pool.wake_seq, 1, __ATOMIC_SEQ_CST);
  if (LOAD(&pool.sleepers, SEQ_CST)) futex(&pool.wake_seq, FUTEX_WAKE, INT_MAX);
}

/* Waits for the blocks the workers claimed: at most one block each, so a
 * short spin; yields the core if a worker was descheduled mid-block. */
static void await_done(uint32_t block_count) {
  for (uint32_t spin = 1; LOAD(&pool.done, ACQUIRE) < block_count; ++spin) {
    cpu_relax();
    if ((spin & 1023u) == 0) sched_yield();
  }
}

void skn__pool_run(skn_pool_fn fn, void *ctx, uint32_t block_count, uint32_t threads, int light) {
  uint32_t size = skn__pool_size();
  uint32_t helpers = (threads == 0 || threads > size ? size : threads) - 1;
  if (helpers > block_count - 1) helpers = block_count - 1;
  /* A light job wakes sleeping workers only when jobs come back to back
   * (the last one began less than a spin ago): then the wake-up is paid
   * once and the workers stay awake for the jobs that follow. */
  int64_t t = now_ns(), last = __atomic_exchange_n(&pool.last_job_ns, t, __ATOMIC_RELAXED);
  int wake = !light || t - last < SKN_SPIN_NS;
  if (!wake && LOAD(&pool.sleepers, SEQ_CST) == pool.worker_count) helpers = 0;
  if (helpers == 0 || pthread_mutex_trylock(&pool.submit) != 0) {
    fn(ctx, 0, block_count);
    return;
  }
  uint32_t gen = ++pool.generation;
  STORE(&pool.fn, fn, RELAXED);
  STORE(&pool.ctx, ctx, RELAXED);
  STORE(&pool.block_count, block_count, RELAXED);
  STORE(&pool.participants, helpers, RELAXED);
  STORE(&pool.done, 0, RELAXED);
  STORE(&pool.work, (uint64_t)gen << 32, RELEASE);
  if (wake) wake_workers();
  run_job(gen);
  await_done(block_count);
  pthread_mutex_unlock(&pool.submit);
}

/* dlclose() must not unmap code that workers are running or sleeping in. */
__attribute__((destructor)) static void pool_stop(void) {
  STORE(&pool.shutdown, 1, SEQ_CST);
  wake_workers();
  for (uint32_t i = 0; i < pool.worker_count; ++i) pthread_join(pool.threads[i], NULL);
  pool.worker_count = 0;
}
