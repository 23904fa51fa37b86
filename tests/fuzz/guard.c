/* guard.c — the targets' input reader and guarded output buffers. */
#include "fuzz.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GUARD 64
#define PATTERN 0xA5

uint8_t fuzz_u8(fuzz_input *in) { return in->at < in->size ? in->data[in->at++] : 0; }

uint32_t fuzz_u32(fuzz_input *in) {
  uint32_t v = 0;
  for (int k = 0; k < 4; ++k) v |= (uint32_t)fuzz_u8(in) << (8 * k);
  return v;
}

float fuzz_float(fuzz_input *in) {
  uint8_t mode = fuzz_u8(in);
  if (mode < 224) return (float)(int8_t)fuzz_u8(in) / 16.0f; /* -8 .. 8 in sixteenths */
  uint32_t bits = fuzz_u32(in);
  float f;
  memcpy(&f, &bits, 4);
  return f;
}

void fuzz_fail(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "skn fuzz: ");
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n");
  va_end(ap);
  abort();
}

void *guarded_alloc(guarded *g, size_t size) {
  g->size = size;
  g->block = malloc(size + 2 * GUARD);
  if (!g->block) fuzz_fail("out of memory for an output of %zu bytes", size);
  memset(g->block, PATTERN, size + 2 * GUARD);
  return g->block + GUARD;
}

#if defined(__clang__) /* a loop over bytes: libFuzzer's comparison tracing there guides nothing */
__attribute__((no_sanitize("coverage")))
#endif
void guarded_check(const guarded *g, int untouched, const char *what) {
  for (size_t i = 0; i < g->size + 2 * GUARD; ++i) {
    int guard = i < GUARD || i >= GUARD + g->size;
    if ((guard || untouched) && g->block[i] != PATTERN)
      fuzz_fail("%s: byte %ld %s was written", what, (long)i - GUARD, guard ? "outside the output" : "by a failed call");
  }
}

void guarded_free(guarded *g) {
  free(g->block);
  g->block = NULL;
}
