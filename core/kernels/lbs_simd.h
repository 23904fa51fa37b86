/* lbs_simd.h — linear blend skinning, a group of SKN_L vertices at a time
 * (soa.h). Per vertex, the k influences' 3x4 matrices (16 lanes each,
 * kernels.h) are blended with one fused multiply-add apiece, M = sum w_i M_i
 * (eq. 4), the normal matrices likewise (eq. 9); one transpose turns the
 * group's matrices into rows, and applying them, normalising and storing
 * happen in lanes, with no horizontal arithmetic. Included by
 * lbs_<isa>.c, which name the function (SKN_LBS_KERNEL) and build it for
 * their instruction set, and by the DQS family's files (dqs_, blend_, cor_, lbsq_<isa>.c) for BLEND's and COR's blend of
 * M_i; the influence count k and the attributes are compile-time constants
 * in each specialisation, so the loops unroll. */
#include "kernels.h"
#include "simd.h"
#include "soa.h"
#include "blocks_simd.h"

SKN_PIN(group_within_padding, SKN_L <= SKN_PACK_GROUP);

/* rows[c] = float c of the group's 16-float records (a matrix's columns c0
 * c1 c2 t, padded): the transpose of the SKN_L x 16 block. */
SKN_INLINE void records_to_rows(const void *records, lanes rows[16]) {
  const float *src[SKN_L];
  SKN_UNROLL for (int l = 0; l < SKN_L; ++l) src[l] = (const float *)records + 16 * l;
  lanes_gather_rows(rows, 16, src);
}

/* (x, y, z, w) through the group's matrices, given as rows. */
SKN_INLINE void rows_apply(const lanes r[16], lanes x, lanes y, lanes z, const int affine, lanes out[3]) {
  SKN_UNROLL for (int c = 0; c < 3; ++c) {
    out[c] = lanes_fma(r[8 + c], z, affine ? r[12 + c] : lanes_splat(0.0f));
    out[c] = lanes_fma(r[4 + c], y, out[c]);
    out[c] = lanes_fma(r[c], x, out[c]);
  }
}

/* The group's rest attribute (`width` floats per vertex) for vertices
 * v .. v + n - 1, n <= SKN_L, as `width` lanes vectors; a partial group's
 * missing lanes repeat its last vertex. */
SKN_INLINE void group_load(const float *src, uint32_t v, const uint32_t n, const int width, lanes out[4]) {
  const float *p = src + (size_t)v * width;
  float f[4 * SKN_L];
  if (n < SKN_L) {
    memcpy(f, p, n * width * sizeof *f);
    for (uint32_t l = n; l < SKN_L; ++l) memcpy(f + l * width, p + (n - 1) * width, width * sizeof *f);
    p = f;
  }
  if (width == 3) lanes_load3(p, &out[0], &out[1], &out[2]);
  else lanes_load4(p, &out[0], &out[1], &out[2], &out[3]);
}

/* Writes the group's first n results (`width` floats each) at dst + v * stride:
 * full-width stores where the group is whole and the output packed, else
 * vertex by vertex. */
SKN_INLINE void group_store(char *dst, size_t stride, uint32_t v, const uint32_t n, const int width, const lanes o[4],
                            const int stream) {
  if (n == SKN_L && stride == width * sizeof(float)) {
    float *p = (float *)(dst + (size_t)v * stride);
    if (width == 3) lanes_store3(p, o[0], o[1], o[2], stream && ((uintptr_t)p & (sizeof(lanes) - 1)) == 0);
    else lanes_store4(p, o[0], o[1], o[2], o[3], stream && ((uintptr_t)p & (sizeof(lanes) - 1)) == 0);
    return;
  }
  float f[4][SKN_L];
  for (int c = 0; c < width; ++c) lanes_store(f[c], o[c]);
  for (uint32_t l = 0; l < n; ++l) {
    float e[4] = {f[0][l], f[1][l], f[2][l], width == 4 ? f[3][l] : 0.0f};
    memcpy(dst + (size_t)(v + l) * stride, e, width * sizeof *e);
  }
}

/* A vertex's joints (k <= 8) as one or two 64-bit loads, taken apart by
 * shifts: the blend below is bound by its loads on Zen 5 — per influence a
 * joint, a weight broadcast and the matrix operand, three loads for one
 * fused multiply-add — and shifts run on the integer units beside them.
 * LBS, 4 influences, positions + normals, alternating: 1.04-1.075x on 1
 * thread (1.05x compact), 0.99-1.015x on 2, where memory shares the
 * limit; taking the weights apart the same way (a permute a weight, on
 * the pipes the transposes use) measured 0.97-0.99x. For the LBS kernel
 * alone (lbs_group_joints). Reads up to three slots past the vertex's k,
 * which the layout's tail (pack.c) and a compact chunk's buffer hold; their
 * bits are never used. Little-endian only; elsewhere a load a joint. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define SKN_JOINT_WORDS 1
#else
#define SKN_JOINT_WORDS 0
#endif

/* Whether a group takes its joints as words (a constant in each specialisation). */
#define SKN_JOINTS_AS_WORDS(words, k) ((words) && SKN_JOINT_WORDS && (k) <= 8)

typedef struct joint_words { uint64_t w[2]; } joint_words;

SKN_INLINE joint_words joints_load(const uint16_t *j, const int k, const int words) {
  joint_words q = {{0, 0}};
  if (SKN_JOINTS_AS_WORDS(words, k)) memcpy(q.w, j, k > 4 ? 16 : 8);
  return q;
}

SKN_INLINE uint32_t joints_get(const joint_words *q, const uint16_t *j, const int k, const int words, const int i) {
  if (SKN_JOINTS_AS_WORDS(words, k)) return (uint32_t)(q->w[i / 4] >> (16 * (i % 4))) & 0xFFFFu;
  return j[i];
}

/* The group's matrices sum w_i M_i into m and, if normals, their normal
 * matrices into nm (one pass over the influences: the two share the index
 * and weight loads); the joints as words where `words` (above). Lanes past
 * a range's end blend the slots that follow (pack.c keeps a group's worth
 * of padding at the end) and are never stored. */
SKN_INLINE void group_blend(const float *pal, const uint16_t *J, const float *W, const int k, const int normals,
                            const int words, mat m[SKN_L], mat nm[SKN_L]) {
  SKN_UNROLL for (uint32_t l = 0; l < SKN_L; ++l) {
    uint32_t s = l * k;
    const joint_words q = joints_load(J + s, k, words);
    mat a = mat_zero(), b = mat_zero();
    _Pragma("GCC unroll 8") for (int i = 0; i < k; ++i) {
      const float *e = pal + (size_t)joints_get(&q, J + s, k, words, i) * SKN_PALETTE_FLOATS;
      a = mat_fma(a, W[s + i], e);
      if (normals) b = mat_fma(b, W[s + i], e + 16);
    }
    m[l] = a;
    nm[l] = b; /* (zero without normals, and unused) */
  }
}

/* A group's results in lanes, before they are stored (BLEND and COR mix). */
typedef struct lanes3 { lanes x, y, z; } lanes3;
typedef struct group_out { lanes3 p, n, t; lanes tw; } group_out;

SKN_INLINE lanes3 rows_apply3(const lanes r[16], lanes3 v, const int affine) {
  lanes o[3];
  rows_apply(r, v.x, v.y, v.z, affine, o);
  return (lanes3){o[0], o[1], o[2]};
}

SKN_INLINE lanes3 l3_unit(lanes3 v) {
  lanes_unit3(&v.x, &v.y, &v.z);
  return v;
}

SKN_INLINE lanes rows_det3(const lanes r[16]) {
  return r[0] * (r[5] * r[10] - r[6] * r[9]) - r[4] * (r[1] * r[10] - r[2] * r[9]) + r[8] * (r[1] * r[6] - r[2] * r[5]);
}

SKN_INLINE lanes3 group_load3(const float *src, uint32_t v, const uint32_t n) {
  lanes in[4];
  group_load(src, v, n, 3, in);
  return (lanes3){in[0], in[1], in[2]};
}

/* A rest attribute plus the morph targets' offsets where the span has
 * them (kernels.h, skn_src: NULL elsewhere, a branch that every group of a
 * call takes the same way). */
SKN_INLINE lanes3 l3_add(lanes3 a, lanes3 b) { return (lanes3){a.x + b.x, a.y + b.y, a.z + b.z}; }

/* The group's rest positions and normals (kernels.h, skn_src). */
SKN_INLINE lanes3 group_load_positions(const skn_src *src, uint32_t v, const uint32_t n) {
  lanes3 x = group_load3(src->positions, v - src->first, n);
  return src->dpositions ? l3_add(x, group_load3(src->dpositions, v - src->first, n)) : x;
}
SKN_INLINE lanes3 group_load_normals(const skn_src *src, uint32_t v, const uint32_t n) {
  lanes3 x = group_load3(src->normals, v - src->first, n);
  return src->dnormals ? l3_add(x, group_load3(src->dnormals, v - src->first, n)) : x;
}

/* The rest tangents: xyz (offsets added) and w. */
SKN_INLINE lanes3 group_load_tangents(const skn_src *src, uint32_t v, const uint32_t n, lanes *w) {
  lanes in[4];
  group_load(src->tangents, v - src->first, n, 4, in);
  *w = in[3];
  lanes3 x = {in[0], in[1], in[2]};
  if (src->dtangents) {
    group_load(src->dtangents, v - src->first, n, 4, in);
    x = l3_add(x, (lanes3){in[0], in[1], in[2]});
  }
  return x;
}

SKN_INLINE void group_store_out(const skn_skin_job *job, uint32_t v, const uint32_t n, const group_out *o,
                                const int normals, const int tangents) {
  lanes p[4] = {o->p.x, o->p.y, o->p.z, o->p.z};
  group_store(job->positions, job->position_stride, v, n, 3, p, job->stream);
  if (tangents) {
    lanes t[4] = {o->t.x, o->t.y, o->t.z, o->tw};
    group_store(job->tangents, job->tangent_stride, v, n, 4, t, job->stream);
  }
  if (normals) {
    lanes nn[4] = {o->n.x, o->n.y, o->n.z, o->n.z};
    group_store(job->normals, job->normal_stride, v, n, 3, nn, job->stream);
  }
}

/* Vertex v's influence slots in src (k per vertex). */
SKN_INLINE const uint16_t *src_joints(const skn_src *src, uint32_t v, const int k) {
  return src->joints + (size_t)(v - src->first) * k;
}
SKN_INLINE const float *src_weights(const skn_src *src, uint32_t v, const int k) {
  return src->weights + (size_t)(v - src->first) * k;
}

/* How a group's normals are skinned (`normals`, a constant in each
 * specialisation): by the blended normal matrices (eq. 9), or — every joint
 * rigid, its N_i stored as M_i's 3x3 (pose_simd.h) — by the blended M
 * itself: sum w_i N_i is then sum w_i M_i's 3x3, element for element the
 * same floats (the same products summed in the same order), so the results
 * are the first way's bit for bit, with half the blending and one
 * transpose fewer. */
enum { NORMALS_BY_N = 1, NORMALS_BY_M = 2 };

/* LBS of vertices v .. v + n - 1 (n <= SKN_L, all in one block, whose
 * inputs src holds, k influences per vertex): the per-vertex blends, one
 * transpose, then eq. 4 and 9 for the whole group. Every vertex goes
 * through the same lanes arithmetic whatever its group, so that ranges and
 * thread counts give bit-identical results. The joints as words where
 * `words`: the LBS kernel's own groups (lbs_group, below); BLEND's and
 * COR's LBS lanes (dqs_simd.h) keep a load a joint — with words, their
 * larger bodies measured 0.73-0.93x. */
SKN_INLINE void lbs_group_joints(const skn_skin_job *job, const skn_src *src, uint32_t v, const uint32_t n,
                                 const int k, const int normals, const int tangents, const int words, group_out *o) {
  mat m[SKN_L], nm[SKN_L];
  lanes r[16], nr[16];
  group_blend(job->pose->lbs_palette, src_joints(src, v, k), src_weights(src, v, k), k, normals == NORMALS_BY_N,
              words, m, nm);
  records_to_rows(m, r);
  o->p = rows_apply3(r, group_load_positions(src, v, n), 1);
  if (tangents) { /* t = M t0, w negated where det M < 0 */
    lanes w;
    o->t = l3_unit(rows_apply3(r, group_load_tangents(src, v, n, &w), 0));
    o->tw = lanes_flip_where_negative(w, rows_det3(r));
  }
  if (normals) {
    if (normals == NORMALS_BY_N) records_to_rows(nm, nr);
    o->n = l3_unit(rows_apply3(normals == NORMALS_BY_M ? r : nr, group_load_normals(src, v, n), 0));
  }
}

SKN_INLINE void lbs_group(const skn_skin_job *job, const skn_src *src, uint32_t v, const uint32_t n, const int k,
                          const int normals, const int tangents, group_out *o) {
  lbs_group_joints(job, src, v, n, k, normals, tangents, 1, o);
}

/* The column of a table with the normals-by-M specialisations (attrs_column's
 * four, then normals by M without and with tangents) for a job. */
static inline int lbs_column(const skn_skin_job *job) {
  return job->normals && job->pose->lbs_rigid ? 4 + (job->tangents != NULL) : attrs_column(job);
}

/* A group function: lbs_group's signature (lbsq_simd.h has the other). */
typedef void (*group_fn)(const skn_skin_job *job, const skn_src *src, uint32_t v, const uint32_t n, const int k,
                         const int normals, const int tangents, group_out *o);

/* Vertices [lo, hi) of one block through `group`, stored, k fixed (0: the
 * block's own, not unrolled), SKN_L at a time; the last group may be
 * partial (one body for both: the kernels are many specialisations, and
 * each is compiled once). `group` is a constant at every call, and the
 * call is inlined. */
SKN_INLINE void group_run(const skn_skin_job *job, const skn_src *src, uint32_t lo, uint32_t hi, const int k,
                          const int normals, const int tangents, const group_fn group) {
  const int width = k ? k : (int)src->k;
  for (uint32_t v = lo; v < hi; v += SKN_L) {
    uint32_t n = SKN_MIN(SKN_L, hi - v);
    group_out o;
    group_prefetch(job, v, normals, tangents, 0, 0);
    group(job, src, v, n, width, normals, tangents, &o);
    group_store_out(job, v, n, &o, normals, tangents);
  }
}

/* One function per specialisation (width x attributes: blocks_simd.h),
 * called through a table: the compiler optimises — and the sanitizer build
 * instruments — one group body at a time. Inlined into one function per
 * method, the same bodies took minutes to build. */

/* The functions of one group kernel whose group function is PREFIX_group:
 * PREFIX_KNT per specialisation, their table PREFIX_runs (COLUMNS 4: the
 * attributes; 6: and normals by M, lbs_column) and the entry point NAME. */
#define SKN_GROUP_RUN(K, N, T, PREFIX)                                                                \
  static __attribute__((noinline)) void PREFIX##_##K##N##T(const skn_skin_job *job, const skn_src *src, \
                                                           uint32_t lo, uint32_t hi) {                \
    group_run(job, src, lo, hi, K, N, T, PREFIX##_group);                                             \
  }
#define SKN_GROUP_RUNS4(K, PREFIX) \
  SKN_GROUP_RUN(K, 0, 0, PREFIX) SKN_GROUP_RUN(K, 1, 0, PREFIX) SKN_GROUP_RUN(K, 0, 1, PREFIX) SKN_GROUP_RUN(K, 1, 1, PREFIX)
#define SKN_GROUP_RUNS6(K, PREFIX) SKN_GROUP_RUNS4(K, PREFIX) SKN_GROUP_RUN(K, 2, 0, PREFIX) SKN_GROUP_RUN(K, 2, 1, PREFIX)
#define SKN_GROUP_ROW4(K, PREFIX) {PREFIX##_##K##00, PREFIX##_##K##10, PREFIX##_##K##01, PREFIX##_##K##11},
#define SKN_GROUP_ROW6(K, PREFIX) \
  {PREFIX##_##K##00, PREFIX##_##K##10, PREFIX##_##K##01, PREFIX##_##K##11, PREFIX##_##K##20, PREFIX##_##K##21},
#define SKN_GROUP_KERNEL(NAME, PREFIX, COLUMNS, column_of)                                           \
  SKN_WIDTHS(SKN_GROUP_RUNS##COLUMNS, PREFIX)                                                         \
  static const block_fn PREFIX##_runs[][COLUMNS] = {SKN_WIDTHS(SKN_GROUP_ROW##COLUMNS, PREFIX)};      \
  void NAME(const skn_skin_job *job, uint32_t first, uint32_t end) {                                  \
    const int column = column_of(job);                                                                \
    block_fn fns[sizeof PREFIX##_runs / sizeof PREFIX##_runs[0]];                                     \
    for (size_t r = 0; r < sizeof fns / sizeof fns[0]; ++r) fns[r] = PREFIX##_runs[r][column];        \
    run_blocks(job, first, end, fns);                                                                 \
  }

#ifdef SKN_LBS_KERNEL /* (the DQS family takes the group code above, not the kernel) */
SKN_GROUP_KERNEL(SKN_LBS_KERNEL, lbs, 6, lbs_column)
#endif
