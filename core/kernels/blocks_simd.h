/* blocks_simd.h — how a kernel walks a vertex range: block by block, each
 * block through the specialisation for its influence width, reading the
 * rig's float arrays in place (SKN_LAYOUT_FULL) or, for a compact rig, a
 * chunk of at most 64 vertices at a time decoded into the stack (~5 KB,
 * still in L1 when the kernel reads it back) — so memory traffic is the
 * compact layout's, the float kernels serve both layouts unchanged, and
 * the decode is vectorised: ~16 instructions a vertex (LBS, 4 influences,
 * positions + normals, AVX2: 95 against 79; callgrind). The decoders
 * compute exactly what compact.c's skn__weight_decode and skn__oct_decode
 * compute, with the same float operations in the same order, so that the
 * kernels and the scalar reference skin with the same inputs. Included by
 * lbs_simd.h. */
#ifndef SKN_BLOCKS_SIMD_H
#define SKN_BLOCKS_SIMD_H

#include "kernels.h"
#include "soa.h"

/* A specialisation's loop over vertices [lo, hi) of one block. */
typedef void (*block_fn)(const skn_skin_job *job, const skn_src *src, uint32_t lo, uint32_t hi);

/* The specialisations, one row per influence width: widths 1, 2, 3, 4, 8
 * unroll; the last row takes the block's own. A lean build (soa.h) keeps
 * the last row only: the bodies differ only in constants, and each one
 * took minutes more to instrument, or to build for a set that runs only
 * when asked for. */
#if defined(SKN_KERNELS_LEAN)
#define SKN_WIDTHS(X, arg) X(0, arg)
static int width_row(uint32_t k) { return (void)k, 0; }
#else
#define SKN_WIDTHS(X, arg) X(1, arg) X(2, arg) X(3, arg) X(4, arg) X(8, arg) X(0, arg)
static int width_row(uint32_t k) {
  switch (k) {
  case 1: return 0;
  case 2: return 1;
  case 3: return 2;
  case 4: return 3;
  case 8: return 4;
  default: return 5;
  }
}
#endif

/* Columns of a row: none, normals, tangents, both. */
static int attrs_column(const skn_skin_job *job) { return (job->normals != NULL) + 2 * (job->tangents != NULL); }

typedef uint32_t ulanes __attribute__((vector_size(sizeof(lanes))));
typedef uint16_t wlanes __attribute__((vector_size(sizeof(lanes) / 2)));
typedef uint8_t b16 __attribute__((vector_size(16)));
typedef uint16_t w16 __attribute__((vector_size(32)));

/* count weights (a multiple of SKN_L): q / 65535, as skn__weight_decode.
 * Through signed 32-bit integers: x86 converts those to float in one
 * instruction, unsigned ones (before AVX-512) in five. */
SKN_INLINE void decode_weights(const uint16_t *q, size_t count, float *w) {
  _Pragma("GCC unroll 4") for (size_t i = 0; i < count; i += SKN_L) {
    wlanes a;
    memcpy(&a, q + i, sizeof a);
    lanes f = __builtin_convertvector(__builtin_convertvector(a, ilanes), lanes);
    lanes_store(w + i, f * lanes_splat(1.0f / (float)SKN_WEIGHT_ONE));
  }
}

/* 8-bit joints widened to 16 bits, 16 at a time (one vpmovzxbw): count
 * rounded up to 16, which the layout's tail and the chunk's buffer allow
 * (SKN_PACK_TAIL_SLOTS more slots than whole groups need). */
SKN_PIN(joints_decode_within_tail, sizeof(b16) == SKN_PACK_TAIL_SLOTS);
SKN_INLINE void decode_joints(const uint8_t *j8, size_t count, uint16_t *j) {
  _Pragma("GCC unroll 4") for (size_t i = 0; i < count; i += sizeof(b16)) {
    b16 a;
    memcpy(&a, j8 + i, sizeof a);
    w16 b = __builtin_convertvector(a, w16);
    memcpy(j + i, &b, sizeof b);
  }
}

SKN_INLINE lanes lanes_abs(lanes x) { return (lanes)((ulanes)x & 0x7FFFFFFFu); }

/* x + (x >= 0 ? -t : t), t >= 0: the octahedral fold, as skn__oct_decode. */
SKN_INLINE lanes lanes_fold(lanes x, lanes t) {
  ulanes neg_where_positive = (ulanes)(x >= 0.0f) & 0x80000000u;
  return x + (lanes)((ulanes)t ^ neg_where_positive);
}

/* count octahedral codes (a multiple of SKN_L) to unit vectors, 3 floats a
 * vertex, or 4 for tangents (w = -1 where the code's bit 16 is set). */
SKN_INLINE void decode_oct(const uint32_t *codes, uint32_t count, const int tangent, float *out) {
  for (uint32_t i = 0; i < count; i += SKN_L) {
    ulanes c;
    memcpy(&c, codes + i, sizeof c);
    lanes x = __builtin_convertvector((ilanes)(c << 16) >> 16, lanes) * lanes_splat(SKN_OCT_SCALE), y, w;
    if (tangent) {
      y = __builtin_convertvector((ilanes)c >> 17, lanes) * lanes_splat(SKN_OCT_SCALE_Y);
      w = (lanes)((ulanes)lanes_splat(1.0f) | (c >> 16 & 1u) << 31);
    } else {
      y = __builtin_convertvector((ilanes)c >> 16, lanes) * lanes_splat(SKN_OCT_SCALE);
    }
    lanes z = lanes_splat(1.0f) - lanes_abs(x) - lanes_abs(y);
    lanes t = lanes_max(-z, lanes_splat(0.0f));
    x = lanes_fold(x, t), y = lanes_fold(y, t);
    lanes_unit3(&x, &y, &z);
    if (tangent) lanes_store4(out + (size_t)i * 4, x, y, z, w, 0);
    else lanes_store3(out + (size_t)i * 3, x, y, z, 0);
  }
}

/* Software prefetch (SKN_PREFETCH_AHEAD vertices ahead of the group being
 * skinned): every stream the kernel reads for the group starting at vertex
 * v + SKN_PREFETCH_AHEAD, from the rig's arrays in either layout — rest
 * attributes, influences, and the BLEND and COR extras. On one thread the
 * hardware prefetchers keep up with the six to nine streams alone; on two,
 * sharing the memory system, they fall behind: LBS PN 4 at 1M vertices,
 * 2 threads, went from ~390 to ~525 M vertices/s (1 thread unchanged;
 * docs/performance.md). Eight groups ahead covers the memory latency at
 * this rate with room; the last groups of the rig prefetch nothing. */
#define SKN_PREFETCH_AHEAD (8u * SKN_PACK_GROUP)

SKN_INLINE void prefetch_bytes(const void *p, size_t bytes) {
  for (size_t q = 0; q < bytes; q += 64) __builtin_prefetch((const char *)p + q);
}

SKN_INLINE void group_prefetch(const skn_skin_job *job, uint32_t v, const int normals, const int tangents,
                               const int blend, const int centers) {
  const skn_rig *rig = job->rig;
  const uint32_t a = v + SKN_PREFETCH_AHEAD;
  if (a >= rig->vertex_count) return;
  const skn_block *b = &rig->blocks[a / SKN_PACK_BLOCK];
  const size_t at = b->offset + (size_t)(a - b->first) * b->k, slots = (size_t)SKN_L * b->k;
  prefetch_bytes(rig->positions + (size_t)a * 3, SKN_L * 3 * sizeof(float));
  if (rig->flags & SKN_RIG_COMPACT) {
    prefetch_bytes(rig->packed_weights16 + at, slots * sizeof(uint16_t));
    if (rig->packed_joints8) prefetch_bytes(rig->packed_joints8 + at, slots);
    else prefetch_bytes(rig->packed_joints + at, slots * sizeof(uint16_t));
    if (normals) prefetch_bytes(rig->oct_normals + a, SKN_L * sizeof(uint32_t));
    if (tangents) prefetch_bytes(rig->oct_tangents + a, SKN_L * sizeof(uint32_t));
  } else {
    prefetch_bytes(rig->packed_joints + at, slots * sizeof(uint16_t));
    prefetch_bytes(rig->packed_weights + at, slots * sizeof(float));
    if (normals) prefetch_bytes(rig->normals + (size_t)a * 3, SKN_L * 3 * sizeof(float));
    if (tangents) prefetch_bytes(rig->tangents + (size_t)a * 4, SKN_L * 4 * sizeof(float));
  }
  if (blend) prefetch_bytes(rig->blend_weights + a, SKN_L * sizeof(float));
  if (centers) {
    prefetch_bytes(rig->centers + (size_t)a * 3, SKN_L * 3 * sizeof(float));
    prefetch_bytes(rig->has_center + a, SKN_L);
  }
}

/* A morphed span's offsets (job->offsets, morph.c) for src's vertices. */
SKN_INLINE void src_offsets(const skn_skin_job *job, skn_src *src) {
  if (!job->offsets) return;
  size_t i = src->first - job->offsets_first;
  src->dpositions = job->offsets + 3 * i;
  if (job->normals) src->dnormals = job->offsets_normals + 3 * i;
  if (job->tangents) src->dtangents = job->offsets_tangents + 4 * i;
}

#define SKN_CHUNK_VERTICES 64u
#define SKN_CHUNK_SLOTS 512u /* 64 vertices of 8 influences, or a group of 32 */
SKN_PIN(chunk_holds_a_group, SKN_CHUNK_SLOTS >= SKN_PACK_GROUP * SKN_COMPACT_MAX_INFLUENCES);

/* Vertices [lo, hi) of compact block b through fn, a chunk at a time: whole
 * groups, as many as SKN_CHUNK_SLOTS slots hold (at least one: bind caps the
 * influences). A chunk's last group decodes the slots and codes that
 * follow it, as the float layout's groups read them (pack.c, compact.c pad
 * the end); their lanes are never stored. */
static __attribute__((noinline)) void run_compact(const skn_skin_job *job, const skn_block *b, uint32_t lo,
                                                  uint32_t hi, block_fn fn) {
  const skn_rig *rig = job->rig;
  uint16_t joints[SKN_CHUNK_SLOTS + SKN_PACK_TAIL_SLOTS];
  float weights[SKN_CHUNK_SLOTS], normals[3 * SKN_CHUNK_VERTICES], tangents[4 * SKN_CHUNK_VERTICES];
  const uint32_t chunk = SKN_MIN(SKN_CHUNK_VERTICES, SKN_CHUNK_SLOTS / b->k / SKN_L * SKN_L);
  for (uint32_t c = lo; c < hi; c += chunk) {
    uint32_t e = SKN_MIN(hi, c + chunk), count = (e - c + SKN_L - 1) / SKN_L * SKN_L;
    size_t at = b->offset + (size_t)(c - b->first) * b->k, slots = (size_t)count * b->k;
    skn_src src = {c, b->k, rig->packed_joints ? rig->packed_joints + at : joints, weights, SKN_REST_P(job, c),
                   NULL, NULL, NULL, NULL, NULL};
    decode_weights(rig->packed_weights16 + at, slots, weights);
    if (rig->packed_joints8) decode_joints(rig->packed_joints8 + at, slots, joints);
    if (job->normals) decode_oct(rig->oct_normals + c, count, 0, normals), src.normals = normals;
    if (job->tangents) decode_oct(rig->oct_tangents + c, count, 1, tangents), src.tangents = tangents;
    src_offsets(job, &src);
    fn(job, &src, c, e);
  }
}

/* Vertices [first, end) through fns[width_row(k)] block by block (fns: one
 * column of a kernel's table, chosen for the call's attributes). */
static void run_blocks(const skn_skin_job *job, uint32_t first, uint32_t end, const block_fn *fns) {
  const skn_rig *rig = job->rig;
  for (uint32_t v = first; v < end;) {
    const skn_block *b = &rig->blocks[v / SKN_PACK_BLOCK];
    uint32_t hi = SKN_MIN(end, b->first + b->count);
    if (rig->flags & SKN_RIG_COMPACT) {
      run_compact(job, b, v, hi, fns[width_row(b->k)]);
    } else {
      size_t at = b->offset + (size_t)(v - b->first) * b->k;
      skn_src src = {v, b->k, rig->packed_joints + at, rig->packed_weights + at, SKN_REST_P(job, v),
                     job->normals ? SKN_REST_N(job, v) : NULL, job->tangents ? SKN_REST_T(job, v) : NULL,
                     NULL, NULL, NULL};
      src_offsets(job, &src);
      fns[width_row(b->k)](job, &src, v, hi);
    }
    v = hi;
  }
  if (job->stream && !job->offsets) _mm_sfence(); /* weakly ordered: done before the caller goes on (morph.c
                                                      fences once after all its spans) */
}

#endif
