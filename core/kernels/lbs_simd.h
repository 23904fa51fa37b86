/* lbs_simd.h — linear blend skinning, vectorised per vertex: the k
 * influences' 3x4 matrices (16 lanes each, kernels.h) are blended with one
 * fused multiply-add apiece, M = sum w_i M_i (eq. 4), the normal matrices
 * likewise (eq. 9), then applied once. Included by lbs_<isa>.c, which name
 * the function (SKN_LBS_KERNEL) and build it for their instruction set; the
 * influence count k and the attributes are compile-time constants in each
 * specialisation, so the loops unroll. */
#include "kernels.h"
#include "simd.h"

/* One vertex's results, before they are stored (BLEND and COR mix first). */
typedef struct vertex_out { v4 p, n, t; } vertex_out;

/* LBS of one vertex: M = sum w_i M_i applied to the position and the tangent
 * (w flipped where M mirrors), sum w_i M_i^-T to the normal. */
SKN_INLINE void lbs_vertex(const skn_skin_job *job, uint32_t v, const uint16_t *J, const float *W, const int k,
                           const int normals, const int tangents, vertex_out *o) {
  const skn_rig *rig = job->rig;
  const float *pal = job->pose->simd_lbs;
  mat a = mat_zero(), n = mat_zero();
  for (int i = 0; i < k; ++i) {
    const float *e = pal + (size_t)J[i] * SKN_SIMD_FLOATS;
    a = mat_fma(a, W[i], e);
    if (normals) n = mat_fma(n, W[i], e + 16);
  }
  const float *p = rig->positions + (size_t)v * 3;
  o->p = mat_apply(a, p[0], p[1], p[2], 1.0f);
  if (normals) {
    const float *q = rig->normals + (size_t)v * 3;
    o->n = unit3(mat_apply(n, q[0], q[1], q[2], 0.0f));
  }
  if (tangents) {
    const float *t = rig->tangents + (size_t)v * 4;
    o->t = unit3(mat_apply(a, t[0], t[1], t[2], 0.0f));
    o->t[3] = mat_det3(a) < 0.0f ? -t[3] : t[3];
  }
}

/* Stores a vertex; `wide` as put3's (the normal's only where its output is packed too). */
SKN_INLINE void store_out(const skn_skin_job *job, uint32_t v, const vertex_out *o, const int normals, const int tangents,
                          int wide) {
  put3(job->positions + (size_t)v * job->position_stride, o->p, wide);
  if (normals) put3(job->normals + (size_t)v * job->normal_stride, o->n, wide && job->normal_stride == 12);
  if (tangents) memcpy(job->tangents + (size_t)v * job->tangent_stride, &o->t, 16);
}

/* Vertices [lo, hi) of one block, k fixed (0: the block's own, not unrolled). */
SKN_INLINE void lbs_run(const skn_skin_job *job, const skn_block *b, uint32_t lo, uint32_t hi, uint32_t end,
                        const int k, const int normals, const int tangents) {
  const skn_rig *rig = job->rig;
  const int width = k ? k : (int)b->k, packed = job->position_stride == 12;
  for (uint32_t v = lo; v < hi; ++v) {
    size_t at = b->offset + (size_t)(v - b->first) * width;
    vertex_out o;
    lbs_vertex(job, v, rig->packed_joints + at, rig->packed_weights + at, width, normals, tangents, &o);
    store_out(job, v, &o, normals, tangents, packed && v + 1 < end);
  }
}

#define SKN_LBS_CASES(N, T)                                                                  \
  switch (b->k) {                                                                            \
  case 1: lbs_run(job, b, lo, hi, end, 1, N, T); break;                                      \
  case 2: lbs_run(job, b, lo, hi, end, 2, N, T); break;                                      \
  case 3: lbs_run(job, b, lo, hi, end, 3, N, T); break;                                      \
  case 4: lbs_run(job, b, lo, hi, end, 4, N, T); break;                                      \
  case 8: lbs_run(job, b, lo, hi, end, 8, N, T); break;                                      \
  default: lbs_run(job, b, lo, hi, end, 0, N, T); break;                                     \
  }

void SKN_LBS_KERNEL(const skn_skin_job *job, uint32_t first, uint32_t end) {
  const skn_rig *rig = job->rig;
  for (uint32_t v = first; v < end;) {
    const skn_block *b = &rig->blocks[v / SKN_PACK_BLOCK];
    uint32_t lo = v, hi = SKN_MIN(end, b->first + b->count);
    if (job->tangents) {
      SKN_LBS_CASES(job->normals != NULL, 1)
    } else if (job->normals) {
      SKN_LBS_CASES(1, 0)
    } else {
      SKN_LBS_CASES(0, 0)
    }
    v = hi;
  }
}
