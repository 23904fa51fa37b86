/* simd.h — the "matrix register" the kernels blend: a 3x4 matrix as four
 * padded columns (c0 c1 c2 t), in the widest vectors the file is built for —
 * one 16-lane vector (AVX-512), two 8-lane halves (AVX2) or four 4-lane
 * columns (SSE2, the portable baseline) — behind one interface, in GCC's
 * vector extensions. A vector wider than the target's registers would be
 * spilled through memory, so each width gets its own representation. */
#ifndef SKN_SIMD_H
#define SKN_SIMD_H

#include <immintrin.h>
#include <math.h>
#include <string.h>

typedef float v16 __attribute__((vector_size(64)));
typedef float v8 __attribute__((vector_size(32)));
typedef float v4 __attribute__((vector_size(16)));

#define SKN_INLINE static inline __attribute__((always_inline))

#if defined(__AVX512F__)
typedef struct mat { v16 a; } mat;
#elif defined(__AVX__)
typedef struct mat { v8 a, b; } mat;
#else
typedef struct mat { v4 a, b, c, d; } mat;
#endif

SKN_INLINE v4 ld4(const float *p) {
  v4 r;
  memcpy(&r, p, sizeof r);
  return r;
}

SKN_INLINE v8 ld8(const float *p) {
  v8 r;
  memcpy(&r, p, sizeof r);
  return r;
}

SKN_INLINE mat mat_zero(void) {
  mat m;
  memset(&m, 0, sizeof m);
  return m;
}

/* m + w * (the 16 floats at p), fused where the instruction set has FMA
 * (the library is built as C99, which does not contract a * b + c). */
SKN_INLINE mat mat_fma(mat m, float w, const float *p) {
#if defined(__AVX512F__)
  v16 x;
  memcpy(&x, p, sizeof x);
  m.a = (v16)_mm512_fmadd_ps(_mm512_set1_ps(w), (__m512)x, (__m512)m.a);
#elif defined(__AVX__)
  m.a = (v8)_mm256_fmadd_ps(_mm256_set1_ps(w), (__m256)ld8(p), (__m256)m.a);
  m.b = (v8)_mm256_fmadd_ps(_mm256_set1_ps(w), (__m256)ld8(p + 8), (__m256)m.b);
#else
  m.a += w * ld4(p);
  m.b += w * ld4(p + 4);
  m.c += w * ld4(p + 8);
  m.d += w * ld4(p + 12);
#endif
  return m;
}

#endif
