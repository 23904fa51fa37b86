/* fuzz.h — the fuzz targets (tests/fuzz): each takes bytes and drives the
 * library with them, checking what the ABI promises beyond not crashing: a
 * failed call writes nothing, a successful one nothing outside its outputs
 * (guard bytes around every output). Built twice: with libFuzzer
 * (libfuzzer.c, `make fuzz`, the short runs in `make check`), and as
 * `replay` (replay.c) in every build, which runs the seeds and the
 * regression files of every finding. A broken promise aborts. */
#ifndef SKN_FUZZ_H
#define SKN_FUZZ_H

#include "skn.h"

#include <stddef.h>
#include <stdint.h>

int skn_fuzz_gltf(const uint8_t *data, size_t size); /* a glTF/GLB document: open, bind, pose, skin */
int skn_fuzz_bind(const uint8_t *data, size_t size); /* a bind description of any counts and values */
int skn_fuzz_skin(const uint8_t *data, size_t size); /* poses and skin calls on valid rigs */

/* ---- what the targets share (guard.c) ---- */

/* Bytes read in turn, then zeros: every target's input. */
typedef struct fuzz_input {
  const uint8_t *data;
  size_t size, at;
} fuzz_input;

uint8_t fuzz_u8(fuzz_input *in);
uint32_t fuzz_u32(fuzz_input *in);
float fuzz_float(fuzz_input *in); /* mostly small values, sometimes raw bits (NaN, Inf, denormals) */

/* An output buffer with guard bytes on both sides. */
typedef struct guarded {
  uint8_t *block;
  size_t size;
} guarded;

void *guarded_alloc(guarded *g, size_t size); /* the usable bytes, filled with a pattern */
void guarded_check(const guarded *g, int untouched, const char *what); /* guards intact (and bytes, if untouched) */
void guarded_free(guarded *g);

/* Aborts with a message: what the fuzzer reports as a crash. */
void fuzz_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

#endif
