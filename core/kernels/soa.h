/* soa.h — a group of SKN_L vertices at a time (16 under AVX-512, 8 under
 * AVX2, 4 under SSE2): one `lanes` vector holds one quantity of every vertex
 * of the group, lane l belonging to vertex l. The kernels blend per vertex,
 * where one instruction takes a whole 3x4 matrix, then turn the group's
 * results around (a transpose) and do everything after the blend — applying
 * the matrices, normalising, storing — once per group rather than once per
 * vertex, with no horizontal arithmetic. The rest attributes and the outputs
 * stay interleaved (x y z x y z ...): the deinterleave and interleave below
 * are a few two-source shuffles per group. */
#ifndef SKN_SOA_H
#define SKN_SOA_H

#include <float.h>
#include <immintrin.h>
#include <stdint.h>

#include "simd.h"

#if defined(__AVX512F__)
#define SKN_L 16
typedef v16 lanes;
typedef int32_t ilanes __attribute__((vector_size(64)));
#elif defined(__AVX__)
#define SKN_L 8
typedef v8 lanes;
typedef int32_t ilanes __attribute__((vector_size(32)));
#else
#define SKN_L 4
typedef v4 lanes;
typedef int32_t ilanes __attribute__((vector_size(16)));
#endif

/* F(0, a), F(1, a), ... F(SKN_L - 1, a): a shuffle's index list, built from a
 * formula so that one definition serves every width. */
#define SKN_I4(F, a) F(0, a), F(1, a), F(2, a), F(3, a)
#define SKN_I8(F, a) SKN_I4(F, a), F(4, a), F(5, a), F(6, a), F(7, a)
#define SKN_I16(F, a) SKN_I8(F, a), F(8, a), F(9, a), F(10, a), F(11, a), F(12, a), F(13, a), F(14, a), F(15, a)
#if SKN_L == 16
#define SKN_IL(F, a) SKN_I16(F, a)
#elif SKN_L == 8
#define SKN_IL(F, a) SKN_I8(F, a)
#else
#define SKN_IL(F, a) SKN_I4(F, a)
#endif
/* The group loops must unroll (their indices are lanes and registers); -O2
 * alone does not. A lean build (-DSKN_KERNELS_LEAN, Makefile: the sanitizer
 * and fuzz trees, and the portable fallback of a build for this CPU) leaves
 * them rolled: the same arithmetic, built in seconds rather than minutes. */
#if defined(SKN_KERNELS_LEAN)
#define SKN_UNROLL
#else
#define SKN_UNROLL _Pragma("GCC unroll 16")
#endif

#define SKN_SHUF(a, b, F, arg) __builtin_shufflevector(a, b, SKN_IL(F, arg))

SKN_INLINE lanes lanes_load(const float *p) {
  lanes r;
  memcpy(&r, p, sizeof r);
  return r;
}

SKN_INLINE void lanes_store(float *p, lanes v) { memcpy(p, &v, sizeof v); }

/* A store that bypasses the caches (p aligned to the vector's size). */
SKN_INLINE void lanes_stream(float *p, lanes v) {
#if SKN_L == 16
  _mm512_stream_ps(p, (__m512)v);
#elif SKN_L == 8
  _mm256_stream_ps(p, (__m256)v);
#else
  _mm_stream_ps(p, (__m128)v);
#endif
}

SKN_INLINE lanes lanes_splat(float f) {
#if SKN_L == 16
  return (lanes)_mm512_set1_ps(f);
#elif SKN_L == 8
  return (lanes)_mm256_set1_ps(f);
#else
  return (lanes)_mm_set1_ps(f);
#endif
}

/* lanes where mask is set take b's value, the others keep a's. */
SKN_INLINE lanes lanes_select(ilanes mask, lanes a, lanes b) {
  ilanes ai, bi;
  memcpy(&ai, &a, sizeof ai), memcpy(&bi, &b, sizeof bi);
  ai = (ai & ~mask) | (bi & mask);
  memcpy(&a, &ai, sizeof a);
  return a;
}

/* Whether any lane of a mask is set. */
SKN_INLINE int lanes_any(ilanes m) {
#if SKN_L == 16
  return _mm512_test_epi32_mask((__m512i)m, (__m512i)m) != 0;
#elif SKN_L == 8
  return !_mm256_testz_si256((__m256i)m, (__m256i)m);
#else
  return _mm_movemask_epi8((__m128i)m) != 0;
#endif
}

/* a * b + c, fused where the instruction set has FMA. */
SKN_INLINE lanes lanes_fma(lanes a, lanes b, lanes c) {
#if SKN_L == 16
  return (lanes)_mm512_fmadd_ps((__m512)a, (__m512)b, (__m512)c);
#elif SKN_L == 8
  return (lanes)_mm256_fmadd_ps((__m256)a, (__m256)b, (__m256)c);
#else
  return a * b + c;
#endif
}

SKN_INLINE lanes lanes_sqrt(lanes x) {
#if SKN_L == 16
  return (lanes)_mm512_sqrt_ps((__m512)x);
#elif SKN_L == 8
  return (lanes)_mm256_sqrt_ps((__m256)x);
#else
  return (lanes)_mm_sqrt_ps((__m128)x);
#endif
}

SKN_INLINE lanes lanes_max(lanes a, lanes b) {
#if SKN_L == 16
  return (lanes)_mm512_max_ps((__m512)a, (__m512)b);
#elif SKN_L == 8
  return (lanes)_mm256_max_ps((__m256)a, (__m256)b);
#else
  return (lanes)_mm_max_ps((__m128)a, (__m128)b);
#endif
}

/* a with its sign flipped where s is negative (s = -0 counts as not). */
SKN_INLINE lanes lanes_flip_where_negative(lanes a, lanes s) {
  ilanes neg = s < 0.0f, ai;
  memcpy(&ai, &a, sizeof ai);
  ai ^= neg & (ilanes)lanes_splat(-0.0f);
  memcpy(&a, &ai, sizeof a);
  return a;
}

/* (x, y, z) scaled to unit length, as simd.h's unit3 per lane; a zero
 * vector stays zero (it is multiplied by a finite 1/sqrt(FLT_MIN)). */
SKN_INLINE void lanes_unit3(lanes *x, lanes *y, lanes *z) {
  lanes l2 = *x * *x + *y * *y + *z * *z;
  lanes s = 1.0f / lanes_sqrt(lanes_max(l2, lanes_splat(FLT_MIN)));
  *x *= s, *y *= s, *z *= s;
}

/* In-register transpose: r[i][c] <- r[c][i]. Stage h swaps bit h between
 * the row and the column index of every element (rows i and i + h trade
 * their off-diagonal h x h blocks); log2(SKN_L) stages of SKN_L two-source
 * shuffles make the transpose. Stages h < 8 on 8 rows of 16 lanes transpose
 * the two 8 x 8 halves independently (bit h of a lane index is the same in
 * both halves). */
#define SKN_TLO(c, h) (((c) & (h)) ? SKN_L + (c) - (h) : (c))
#define SKN_THI(c, h) (((c) & (h)) ? SKN_L + (c) : (c) + (h))
/* Stage h over `rows` rows, the rows whose bit h is clear taking the
 * shuffle F(c, 2h) of the pair and their partners F(c, 2h + 1). */
#define SKN_TSTAGE_BY(r, h, rows, F)                                                         \
  SKN_UNROLL for (int i = 0; i < (rows) / 2; ++i) {                                          \
    int lo_ = i / (h) * 2 * (h) + i % (h);                                                   \
    lanes a_ = r[lo_], b_ = r[lo_ + (h)];                                                    \
    r[lo_] = SKN_SHUF(a_, b_, F, 2 * (h));                                                   \
    r[lo_ + (h)] = SKN_SHUF(a_, b_, F, 2 * (h) + 1);                                         \
  }
#define SKN_TEXACT(c, x) (((x) & 1) ? SKN_THI(c, (x) >> 1) : SKN_TLO(c, (x) >> 1))
#define SKN_TSTAGE_ROWS(r, h, rows) SKN_TSTAGE_BY(r, h, rows, SKN_TEXACT)
#define SKN_TSTAGE(r, h) SKN_TSTAGE_ROWS(r, h, SKN_L)

/* Stage 1 exactly is (a0 b0 a2 b2) per 128 bits, and stage 4 of 16 lanes
 * (a0-3 b0-3 a8-11 b8-11): each a two-source vpermt2ps, which on Zen 5
 * issues to the two pipes the FMAs use. vshufps and vshuff32x4 take their
 * sources in the other order, (a0 a2 b0 b2) and (a0-3 a8-11 b0-3 b8-11)
 * (SKN_TPAIRS, SKN_TQUADS, as stages' F), and leave the pipes to the FMAs
 * (vshufps entirely); that only swaps bits of the output lane index: lane
 * bits 0 and 1, and for 16 lanes 2 and 3 — the involution SKN_SIGMA.
 * Taking the input rows in the order SKN_SIGMA undoes it, so
 * lanes_transpose is exact; once unrolled, the reorder is register naming. */
#define SKN_TPAIRS(c, x) ((((c) >> 1) & 1) * SKN_L + ((c) & ~3) + 2 * ((c) & 1) + ((x) & 1))
#define SKN_TQUADS(c, x) ((((c) >> 3) & 1) * SKN_L + 4 * ((((c) >> 2) & 1) * 2 + ((x) & 1)) + ((c) & 3))
#if SKN_L == 16
#define SKN_SIGMA(l) (((l) & 5) << 1 | ((l) & 10) >> 1)
#else
#define SKN_SIGMA(l) (((l) & ~3) | ((l) & 1) << 1 | ((l) & 2) >> 1)
#endif

SKN_INLINE void lanes_transpose(lanes r[SKN_L]) {
  lanes t[SKN_L];
  SKN_UNROLL for (int l = 0; l < SKN_L; ++l) t[l] = r[SKN_SIGMA(l)];
#if SKN_L == 16
  SKN_TSTAGE(t, 8)
  SKN_TSTAGE_BY(t, 4, SKN_L, SKN_TQUADS)
#elif SKN_L == 8
  SKN_TSTAGE(t, 4)
#endif
  SKN_TSTAGE(t, 2)
  SKN_TSTAGE_BY(t, 1, SKN_L, SKN_TPAIRS)
  SKN_UNROLL for (int l = 0; l < SKN_L; ++l) r[l] = t[l];
}

/* Elements [0, rows) of the rows at src[l] (lane l), each readable for 16
 * floats: out[e] holds element e of every lane's row — SKN_L rows
 * transposed SKN_L elements at a time. */
SKN_INLINE void lanes_gather_rows(lanes *out, int rows, const float *const src[SKN_L]) {
  SKN_UNROLL for (int h = 0; h * SKN_L < rows; ++h) {
    lanes r[SKN_L];
    SKN_UNROLL for (int l = 0; l < SKN_L; ++l) r[l] = lanes_load(src[l] + h * SKN_L);
    lanes_transpose(r);
    SKN_UNROLL for (int i = 0; i < SKN_L; ++i)
      if (h * SKN_L + i < rows) out[h * SKN_L + i] = r[i];
  }
}

/* x y of SKN_L interleaved pairs at p: element 2 l + o of a b, as lane l. */
#define SKN_D2(l, o) (2 * (l) + (o))
SKN_INLINE void lanes_load2(const float *p, lanes *x, lanes *y) {
  lanes a = lanes_load(p), b = lanes_load(p + SKN_L);
  *x = SKN_SHUF(a, b, SKN_D2, 0);
  *y = SKN_SHUF(a, b, SKN_D2, 1);
}

/* Element e = 3 l + o of three consecutive vectors a b c, as lane l:
 * first from a and b (e < 2L), then the rest from c. */
#define SKN_D3A(l, o) ((3 * (l) + (o)) < 2 * SKN_L ? 3 * (l) + (o) : 0)
#define SKN_D3B(l, o) ((3 * (l) + (o)) < 2 * SKN_L ? (l) : 3 * (l) + (o) - SKN_L)

/* x y z of SKN_L interleaved 3-vectors at p. */
SKN_INLINE void lanes_load3(const float *p, lanes *x, lanes *y, lanes *z) {
  lanes a = lanes_load(p), b = lanes_load(p + SKN_L), c = lanes_load(p + 2 * SKN_L);
  *x = SKN_SHUF(SKN_SHUF(a, b, SKN_D3A, 0), c, SKN_D3B, 0);
  *y = SKN_SHUF(SKN_SHUF(a, b, SKN_D3A, 1), c, SKN_D3B, 1);
  *z = SKN_SHUF(SKN_SHUF(a, b, SKN_D3A, 2), c, SKN_D3B, 2);
}

/* Output vector q, lane j holds element e = q L + j: component e % 3 of
 * vertex e / 3; x and y first, then z. */
#define SKN_E(j, q) ((q) * SKN_L + (j))
#define SKN_I3A(j, q) (SKN_E(j, q) % 3 == 0 ? SKN_E(j, q) / 3 : SKN_E(j, q) % 3 == 1 ? SKN_L + SKN_E(j, q) / 3 : 0)
#define SKN_I3B(j, q) (SKN_E(j, q) % 3 == 2 ? SKN_L + SKN_E(j, q) / 3 : (j))

SKN_INLINE void lanes_store3(float *p, lanes x, lanes y, lanes z, const int stream) {
  lanes a = SKN_SHUF(SKN_SHUF(x, y, SKN_I3A, 0), z, SKN_I3B, 0);
  lanes b = SKN_SHUF(SKN_SHUF(x, y, SKN_I3A, 1), z, SKN_I3B, 1);
  lanes c = SKN_SHUF(SKN_SHUF(x, y, SKN_I3A, 2), z, SKN_I3B, 2);
  if (stream) {
    lanes_stream(p, a), lanes_stream(p + SKN_L, b), lanes_stream(p + 2 * SKN_L, c);
  } else {
    lanes_store(p, a), lanes_store(p + SKN_L, b), lanes_store(p + 2 * SKN_L, c);
  }
}

/* The same for 4-vectors (tangents): element e = 4 l + o. */
#define SKN_D4A(l, o) ((4 * (l) + (o)) < 2 * SKN_L ? 4 * (l) + (o) : 0)
#define SKN_D4B(l, o) ((4 * (l) + (o)) >= 2 * SKN_L ? 4 * (l) + (o) - 2 * SKN_L : 0)
#define SKN_D4C(l, o) ((4 * (l) + (o)) < 2 * SKN_L ? (l) : SKN_L + (l))

SKN_INLINE lanes lanes_pick4(lanes a, lanes b, lanes c, lanes d, const int o) {
  switch (o) {
  case 0: return SKN_SHUF(SKN_SHUF(a, b, SKN_D4A, 0), SKN_SHUF(c, d, SKN_D4B, 0), SKN_D4C, 0);
  case 1: return SKN_SHUF(SKN_SHUF(a, b, SKN_D4A, 1), SKN_SHUF(c, d, SKN_D4B, 1), SKN_D4C, 1);
  case 2: return SKN_SHUF(SKN_SHUF(a, b, SKN_D4A, 2), SKN_SHUF(c, d, SKN_D4B, 2), SKN_D4C, 2);
  default: return SKN_SHUF(SKN_SHUF(a, b, SKN_D4A, 3), SKN_SHUF(c, d, SKN_D4B, 3), SKN_D4C, 3);
  }
}

SKN_INLINE void lanes_load4(const float *p, lanes *x, lanes *y, lanes *z, lanes *w) {
  lanes a = lanes_load(p), b = lanes_load(p + SKN_L), c = lanes_load(p + 2 * SKN_L), d = lanes_load(p + 3 * SKN_L);
  *x = lanes_pick4(a, b, c, d, 0), *y = lanes_pick4(a, b, c, d, 1);
  *z = lanes_pick4(a, b, c, d, 2), *w = lanes_pick4(a, b, c, d, 3);
}

/* Output vector q, lane j: component e % 4 of vertex e / 4, from (x, y) or (z, w). */
#define SKN_I4A(j, q) (SKN_E(j, q) % 2 == 0 ? SKN_E(j, q) / 4 : SKN_L + SKN_E(j, q) / 4)
#define SKN_I4B(j, q) (SKN_E(j, q) % 4 < 2 ? (j) : SKN_L + (j))

SKN_INLINE void lanes_store4(float *p, lanes x, lanes y, lanes z, lanes w, const int stream) {
  lanes xy0 = SKN_SHUF(x, y, SKN_I4A, 0), zw0 = SKN_SHUF(z, w, SKN_I4A, 0);
  lanes xy1 = SKN_SHUF(x, y, SKN_I4A, 1), zw1 = SKN_SHUF(z, w, SKN_I4A, 1);
  lanes xy2 = SKN_SHUF(x, y, SKN_I4A, 2), zw2 = SKN_SHUF(z, w, SKN_I4A, 2);
  lanes xy3 = SKN_SHUF(x, y, SKN_I4A, 3), zw3 = SKN_SHUF(z, w, SKN_I4A, 3);
  lanes o[4] = {SKN_SHUF(xy0, zw0, SKN_I4B, 0), SKN_SHUF(xy1, zw1, SKN_I4B, 1), SKN_SHUF(xy2, zw2, SKN_I4B, 2),
                SKN_SHUF(xy3, zw3, SKN_I4B, 3)};
  for (int q = 0; q < 4; ++q) {
    if (stream) lanes_stream(p + q * SKN_L, o[q]);
    else lanes_store(p + q * SKN_L, o[q]);
  }
}

#endif
