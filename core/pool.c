/* pool.c — the library's persistent worker threads. Created on first use
 * (one per core beyond the caller's), asleep between jobs, joined when the
 * library is unloaded. A job is a count of blocks that the workers and the
 * calling thread take from a shared atomic counter, so a slow core never
 * holds up a fixed share. */
#include "internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#define SKN_MAX_WORKERS 256u

static struct {
  pthread_once_t once;
  pthread_mutex_t submit;        /* one job at a time; a second caller runs inline */
  pthread_mutex_t lock;
  pthread_cond_t wake, done;
  pthread_t threads[SKN_MAX_WORKERS];
  uint32_t worker_count;
  uint32_t generation;           /* bumped per job: a worker runs each job once */
  uint32_t participants;         /* workers taking part in the current job */
  uint32_t finished;
  int shutdown;
  skn_pool_fn fn;
  void *ctx;
  uint32_t block_count;
  uint32_t next_block;           /* atomic */
} pool = {.once = PTHREAD_ONCE_INIT,
          .submit = PTHREAD_MUTEX_INITIALIZER,
          .lock = PTHREAD_MUTEX_INITIALIZER,
          .wake = PTHREAD_COND_INITIALIZER,
          .done = PTHREAD_COND_INITIALIZER};

static void run_blocks(void) {
  uint32_t b;
  while ((b = __atomic_fetch_add(&pool.next_block, 1, __ATOMIC_RELAXED)) < pool.block_count)
    pool.fn(pool.ctx, b);
}

static void *worker_main(void *arg) {
  uint32_t index = (uint32_t)(uintptr_t)arg, seen = 0;
  pthread_mutex_lock(&pool.lock);
  for (;;) {
    while (pool.generation == seen && !pool.shutdown) pthread_cond_wait(&pool.wake, &pool.lock);
    if (pool.shutdown) break;
    seen = pool.generation;
    if (index >= pool.participants) continue;
    pthread_mutex_unlock(&pool.lock);
    run_blocks();
    pthread_mutex_lock(&pool.lock);
    if (++pool.finished == pool.participants) pthread_cond_signal(&pool.done);
  }
  pthread_mutex_unlock(&pool.lock);
  return NULL;
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

void skn__pool_run(skn_pool_fn fn, void *ctx, uint32_t block_count, uint32_t threads) {
  uint32_t size = skn__pool_size();
  uint32_t helpers = (threads == 0 || threads > size ? size : threads) - 1;
  if (helpers > block_count - 1) helpers = block_count - 1;
  if (helpers == 0 || pthread_mutex_trylock(&pool.submit) != 0) {
    for (uint32_t b = 0; b < block_count; ++b) fn(ctx, b);
    return;
  }
  pthread_mutex_lock(&pool.lock);
  pool.fn = fn;
  pool.ctx = ctx;
  pool.block_count = block_count;
  pool.next_block = 0;
  pool.participants = helpers;
  pool.finished = 0;
  pool.generation++;
  pthread_cond_broadcast(&pool.wake);
  pthread_mutex_unlock(&pool.lock);
  run_blocks();
  pthread_mutex_lock(&pool.lock);
  while (pool.finished < pool.participants) pthread_cond_wait(&pool.done, &pool.lock);
  pthread_mutex_unlock(&pool.lock);
  pthread_mutex_unlock(&pool.submit);
}

/* dlclose() must not unmap code that workers are sleeping in. */
__attribute__((destructor)) static void pool_stop(void) {
  pthread_mutex_lock(&pool.lock);
  pool.shutdown = 1;
  pthread_cond_broadcast(&pool.wake);
  pthread_mutex_unlock(&pool.lock);
  for (uint32_t i = 0; i < pool.worker_count; ++i) pthread_join(pool.threads[i], NULL);
  pool.worker_count = 0;
}
