/* frame_writer.c — skn bake's frames written on a thread of their own, so
 * that skinning frame i + 1 overlaps writing frame i (the bake's two halves
 * take similar time: make bench-bake). The caller fills one of SLOTS frame
 * buffers (positions and normals) and pushes it with the files it goes to;
 * the writer thread appends the pushed frames to their files in order. A
 * failed write stops the writing: the next frame_writer_slot or
 * frame_writer_drain returns NULL or 0 with errno set to the write's. */
#include "cli.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#define SLOTS 4 /* frames in flight: enough to ride out a slow write, a few MB at most */

struct frame_writer {
  pthread_t thread;
  pthread_mutex_t lock;
  pthread_cond_t changed;
  float *data[SLOTS][2];
  FILE *file[SLOTS][2];
  size_t values;         /* floats a frame's array */
  uint64_t pushed, done; /* frames pushed; frames written (or dropped after a failure) */
  int error, stop;       /* the failed write's errno; the caller's last push is in */
};

static void *write_loop(void *arg) {
  frame_writer *w = arg;
  pthread_mutex_lock(&w->lock);
  for (;;) {
    while (w->done == w->pushed && !w->stop) pthread_cond_wait(&w->changed, &w->lock);
    if (w->done == w->pushed) break;
    int s = (int)(w->done % SLOTS), error = w->error;
    pthread_mutex_unlock(&w->lock);
    for (int k = 0; k < 2 && !error; ++k) /* the buffer is the writer's until done moves past it */
      if (w->file[s][k] && fwrite(w->data[s][k], sizeof(float), w->values, w->file[s][k]) != w->values)
        error = errno ? errno : EIO;
    pthread_mutex_lock(&w->lock);
    w->error = error;
    ++w->done;
    pthread_cond_broadcast(&w->changed);
  }
  pthread_mutex_unlock(&w->lock);
  return NULL;
}

frame_writer *frame_writer_start(size_t values) {
  frame_writer *w = calloc(1, sizeof *w);
  int ok = w != NULL;
  for (int s = 0; ok && s < SLOTS; ++s)
    for (int k = 0; k < 2; ++k) ok = ok && (w->data[s][k] = malloc(values * sizeof(float) + 16)) != NULL;
  if (w) w->values = values;
  if (ok && pthread_mutex_init(&w->lock, NULL)) ok = 0;
  else if (ok && pthread_cond_init(&w->changed, NULL)) pthread_mutex_destroy(&w->lock), ok = 0;
  else if (ok && pthread_create(&w->thread, NULL, write_loop, w))
    pthread_cond_destroy(&w->changed), pthread_mutex_destroy(&w->lock), ok = 0;
  if (ok) return w;
  for (int s = 0; w && s < SLOTS; ++s) free(w->data[s][0]), free(w->data[s][1]);
  free(w);
  errno = ENOMEM;
  return NULL;
}

/* A free slot's buffers (positions, normals), once the writer has written
 * the frame that was there; NULL after a failed write. */
float *const *frame_writer_slot(frame_writer *w) {
  pthread_mutex_lock(&w->lock);
  while (w->pushed - w->done == SLOTS && !w->error) pthread_cond_wait(&w->changed, &w->lock);
  int error = w->error;
  pthread_mutex_unlock(&w->lock);
  if (error) errno = error;
  return error ? NULL : w->data[w->pushed % SLOTS];
}

/* The slot frame_writer_slot gave, filled: to `positions` and, where not
 * NULL, `normals`. */
void frame_writer_push(frame_writer *w, FILE *positions, FILE *normals) {
  pthread_mutex_lock(&w->lock);
  int s = (int)(w->pushed % SLOTS);
  w->file[s][0] = positions, w->file[s][1] = normals;
  ++w->pushed;
  pthread_cond_broadcast(&w->changed);
  pthread_mutex_unlock(&w->lock);
}

/* Waits until every pushed frame is written: 1, or 0 with errno set. */
int frame_writer_drain(frame_writer *w) {
  pthread_mutex_lock(&w->lock);
  while (w->done != w->pushed) pthread_cond_wait(&w->changed, &w->lock);
  int error = w->error;
  pthread_mutex_unlock(&w->lock);
  if (error) errno = error;
  return !error;
}

/* Drains, stops the thread, frees: 1, or 0 with errno set where a write failed. */
int frame_writer_stop(frame_writer *w) {
  if (!w) return 1;
  int ok = frame_writer_drain(w), error = errno;
  pthread_mutex_lock(&w->lock);
  w->stop = 1;
  pthread_cond_broadcast(&w->changed);
  pthread_mutex_unlock(&w->lock);
  pthread_join(w->thread, NULL);
  pthread_cond_destroy(&w->changed);
  pthread_mutex_destroy(&w->lock);
  for (int s = 0; s < SLOTS; ++s) free(w->data[s][0]), free(w->data[s][1]);
  free(w);
  errno = error;
  return ok;
}
