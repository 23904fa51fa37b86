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

/* c0 x + c1 y + c2 z + t w */
SKN_INLINE v4 mat_apply(mat m, float x, float y, float z, float w) {
#if defined(__AVX512F__)
  v16 s = {x, x, x, x, y, y, y, y, z, z, z, z, w, w, w, w}, q = m.a * s;
  v8 h = __builtin_shufflevector(q, q, 0, 1, 2, 3, 4, 5, 6, 7) + __builtin_shufflevector(q, q, 8, 9, 10, 11, 12, 13, 14, 15);
  return __builtin_shufflevector(h, h, 0, 1, 2, 3) + __builtin_shufflevector(h, h, 4, 5, 6, 7);
#elif defined(__AVX__) /* columns out of the halves: 4-lane FMAs beat building 8-lane broadcasts */
  return __builtin_shufflevector(m.a, m.a, 0, 1, 2, 3) * x + __builtin_shufflevector(m.a, m.a, 4, 5, 6, 7) * y +
         __builtin_shufflevector(m.b, m.b, 0, 1, 2, 3) * z + __builtin_shufflevector(m.b, m.b, 4, 5, 6, 7) * w;
#else
  return m.a * x + m.b * y + m.c * z + m.d * w;
#endif
}

/* Column c (0..3) of m, as 4 lanes. */
SKN_INLINE v4 mat_column(mat m, int c) {
  float f[16];
  memcpy(f, &m, sizeof f);
  return ld4(f + 4 * c);
}

/* det of m's 3x3 */
SKN_INLINE float mat_det3(mat m) {
  v4 a = mat_column(m, 0), b = mat_column(m, 1), c = mat_column(m, 2);
  return a[0] * (b[1] * c[2] - b[2] * c[1]) - b[0] * (a[1] * c[2] - a[2] * c[1]) + c[0] * (a[1] * b[2] - a[2] * b[1]);
}

/* xyz scaled to unit length; a zero vector stays zero. */
SKN_INLINE v4 unit3(v4 v) {
  float l2 = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
  return l2 > 0.0f ? v * (1.0f / sqrtf(l2)) : v;
}

/* Stores 3 floats; `wide` allows a 16-byte store whose 4th float lands on
 * memory the kernel writes next anyway (packed output, not the last vertex). */
SKN_INLINE void put3(char *dst, v4 v, int wide) { memcpy(dst, &v, wide ? 16 : 12); }

#endif
