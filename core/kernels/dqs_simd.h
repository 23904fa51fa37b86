/* dqs_simd.h — dual quaternion skinning, its blend with LBS, and optimized
 * centers of rotation, a group of SKN_L vertices at a time like LBS (the
 * scalar references and their formulas are in dqs.c and cor.c). Per joint
 * the kernels read 32 floats (pose->simd_dqs[split]): the unit dual
 * quaternion of the rigid part (8 lanes: real xyzw, dual xyzw) and the
 * bind-space scale/shear S_i as four padded columns. The dual quaternions
 * are blended per vertex (the antipodality test needs the running sum),
 * then transposed; normalising, rotating and translating happen in lanes.
 * Included by the per-instruction-set files after lbs_simd.h. */

SKN_INLINE float dot4(v4 a, v4 b) {
  v4 p = a * b;
  return p[0] + p[1] + p[2] + p[3];
}

SKN_INLINE mat mat_scale(mat m, float s) {
#if defined(__AVX512F__)
  m.a *= s;
#elif defined(__AVX__)
  m.a *= s, m.b *= s;
#else
  m.a *= s, m.b *= s, m.c *= s, m.d *= s;
#endif
  return m;
}

/* Blends k dual quaternions with Blender's antipodality rule (a quaternion
 * whose real part points away from the running sum is negated), and the S_i
 * where any joint of the pose is scaled. Returns sum w_i. */
SKN_INLINE float dq_blend(const float *pal, const uint16_t *J, const float *W, const int k, const int scaled, v8 *out,
                          mat *s) {
  v8 acc = {0};
  float wsum = 0;
  *s = mat_zero();
  for (int i = 0; i < k; ++i) {
    const float *e = pal + (size_t)J[i] * SKN_SIMD_FLOATS;
    v8 q = ld8(e);
    v4 sum = __builtin_shufflevector(acc, acc, 0, 1, 2, 3), real = __builtin_shufflevector(q, q, 0, 1, 2, 3);
    acc += (dot4(sum, real) < 0.0f ? -W[i] : W[i]) * q;
    if (scaled) *s = mat_fma(*s, W[i], e + 8);
    wsum += W[i];
  }
  *out = acc;
  return wsum;
}

enum { KIND_DQS, KIND_BLEND, KIND_COR };

/* ---- DQS a group at a time (soa.h): the blends per vertex as above, then
 * one transpose and the rest of Kavan et al.'s algorithm in lanes. ---- */

SKN_INLINE lanes3 l3_cross(lanes3 a, lanes3 b) {
  return (lanes3){a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}

/* The group's rigid parts: unit rotation (u, w) and translation t, as dq_rigid. */
typedef struct rigid_lanes { lanes3 u, t; lanes w; } rigid_lanes;

SKN_INLINE rigid_lanes rigid_of_rows(const lanes q[8]) {
  lanes inv = 1.0f / lanes_sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  rigid_lanes r;
  r.u = (lanes3){q[0] * inv, q[1] * inv, q[2] * inv};
  r.w = q[3] * inv;
  lanes3 e = {q[4] * inv, q[5] * inv, q[6] * inv};
  lanes ew = q[7] * inv, two = lanes_splat(2.0f);
  lanes3 c = l3_cross(r.u, e); /* t = 2 (w e - ew u + u x e) */
  r.t = (lanes3){two * (r.w * e.x - ew * r.u.x + c.x), two * (r.w * e.y - ew * r.u.y + c.y),
                 two * (r.w * e.z - ew * r.u.z + c.z)};
  return r;
}

/* v rotated: v + w t + u x t with t = 2 u x v (as rotate). */
SKN_INLINE lanes3 rigid_rotate(const rigid_lanes *r, lanes3 v) {
  lanes3 t = l3_cross(r->u, v);
  t = (lanes3){t.x + t.x, t.y + t.y, t.z + t.z};
  lanes3 c = l3_cross(r->u, t);
  return (lanes3){v.x + r->w * t.x + c.x, v.y + r->w * t.y + c.y, v.z + r->w * t.z + c.z};
}

/* S^-T up to a positive factor: the cofactor columns (b x c, c x a, a x b) of
 * S's columns a b c, times det's sign (as normal_of), applied to v. */
SKN_INLINE lanes3 rows_normal_apply(const lanes s[16], lanes3 v) {
  lanes3 a = {s[0], s[1], s[2]}, b = {s[4], s[5], s[6]}, c = {s[8], s[9], s[10]};
  lanes3 ca = l3_cross(b, c), cb = l3_cross(c, a), cc = l3_cross(a, b);
  lanes3 y = {ca.x * v.x + cb.x * v.y + cc.x * v.z, ca.y * v.x + cb.y * v.y + cc.y * v.z,
              ca.z * v.x + cb.z * v.y + cc.z * v.z};
  lanes sign = lanes_flip_where_negative(lanes_splat(1.0f), rows_det3(s));
  return (lanes3){y.x * sign, y.y * sign, y.z * sign};
}

/* The group's blended dual quaternions (rows 0..7) and, where scaled, the
 * S_i blend divided by sum w_i (rows of sr); sum w_i per lane in wsum.
 * rotation_only: the dual parts zeroed (COR). */
SKN_INLINE void group_dq_blend(const skn_skin_job *job, const uint16_t *J, const float *W, const int k,
                               const int scaled, const int rotation_only, lanes qr[16],
                               lanes sr[16], lanes *wsum) {
  float q[SKN_L][16] = {{0}}, ws[SKN_L]; /* dual quaternions in 8 floats of 16: the transpose reads whole rows */
  mat sm[SKN_L];
  SKN_UNROLL for (uint32_t l = 0; l < SKN_L; ++l) {
    uint32_t at = l * k; /* as group_blend */
    v8 b;
    mat s;
    ws[l] = dq_blend(job->pose->simd_dqs[job->split], J + at, W + at, k, scaled, &b, &s);
    memcpy(q[l], &b, (rotation_only ? 4 : 8) * sizeof(float));
    if (scaled) sm[l] = mat_scale(s, 1.0f / ws[l]);
  }
  records_to_rows(q, 8, qr);
  if (scaled) records_to_rows(sm, 16, sr);
  *wsum = lanes_load(ws);
}

/* Normals and tangents under S (if any) then the rotation, as rotate_attributes. */
SKN_INLINE void group_rotate_attributes(const skn_rig *rig, uint32_t v, const uint32_t n, const rigid_lanes *r,
                                        const lanes sr[16], const int scaled, const int normals,
                                        const int tangents, group_out *o) {
  if (normals) {
    lanes3 y = group_load3(rig->normals, v, n);
    if (scaled) y = rows_normal_apply(sr, y);
    o->n = l3_unit(rigid_rotate(r, y));
  }
  if (tangents) {
    lanes w;
    lanes3 y = group_load_tangents(rig, v, n, &w);
    if (scaled) y = rows_apply3(sr, y, 0);
    o->t = l3_unit(rigid_rotate(r, y));
    o->tw = scaled ? lanes_flip_where_negative(w, rows_det3(sr)) : w;
  }
}

/* DQS of vertices v .. v + n - 1 (as lbs_group): v = c(S v0), n = R(c) S^-T n0,
 * t = R(c) S t0 with w flipped where S mirrors. */
SKN_INLINE void dqs_group(const skn_skin_job *job, uint32_t v, const uint32_t n, const uint16_t *J, const float *W,
                          const int k, const int normals, const int tangents, const int scaled, group_out *o) {
  lanes qr[16], sr[16], wsum;
  group_dq_blend(job, J, W, k, scaled, 0, qr, sr, &wsum);
  rigid_lanes r = rigid_of_rows(qr);
  lanes3 x = group_load3(job->rig->positions, v, n);
  if (scaled) x = rows_apply3(sr, x, 1);
  lanes3 p = rigid_rotate(&r, x);
  o->p = (lanes3){p.x + r.t.x, p.y + r.t.y, p.z + r.t.z};
  group_rotate_attributes(job->rig, v, n, &r, sr, scaled, normals, tangents, o);
}

/* COR of the group (as cor_vertex): v = R S (v0 - p*) + (sum w_i M_i p*) / sum w_i,
 * R from the blended rotations alone. */
SKN_INLINE void cor_group(const skn_skin_job *job, uint32_t v, const uint32_t n, const uint16_t *J, const float *W,
                          const int k, const int normals, const int tangents, const int scaled, group_out *o) {
  lanes qr[16], sr[16], mr[16], wsum;
  mat m[SKN_L], unused[SKN_L];
  group_dq_blend(job, J, W, k, scaled, 1, qr, sr, &wsum);
  group_blend(job->pose->simd_lbs, J, W, k, 0, m, unused);
  records_to_rows(m, 16, mr);
  rigid_lanes r = rigid_of_rows(qr);
  lanes3 p0 = group_load3(job->rig->positions, v, n), c = group_load3(job->rig->centers, v, n);
  lanes3 d = {p0.x - c.x, p0.y - c.y, p0.z - c.z};
  if (scaled) d = rows_apply3(sr, d, 0);
  lanes3 x = rigid_rotate(&r, d), a = rows_apply3(mr, c, 1);
  lanes inv = 1.0f / wsum;
  o->p = (lanes3){x.x + a.x * inv, x.y + a.y * inv, x.z + a.z * inv};
  group_rotate_attributes(job->rig, v, n, &r, sr, scaled, normals, tangents, o);
}

/* lanes where mask is set take b's value, the others keep a's. */
SKN_INLINE lanes lanes_select(ilanes mask, lanes a, lanes b) {
  ilanes ai, bi;
  memcpy(&ai, &a, sizeof ai), memcpy(&bi, &b, sizeof bi);
  ai = (ai & ~mask) | (bi & mask);
  memcpy(&a, &ai, sizeof a);
  return a;
}

SKN_INLINE lanes3 l3_select(ilanes mask, lanes3 a, lanes3 b) {
  return (lanes3){lanes_select(mask, a.x, b.x), lanes_select(mask, a.y, b.y), lanes_select(mask, a.z, b.z)};
}

SKN_INLINE lanes3 l3_mix(lanes3 a, lanes3 b, lanes t) {
  return (lanes3){a.x + t * (b.x - a.x), a.y + t * (b.y - a.y), a.z + t * (b.z - a.z)};
}

/* One group of DQS, BLEND or COR, stored. BLEND: (1 - b) LBS + b DQS per
 * vertex, normals and tangents renormalised, the tangent's w from the
 * larger side; COR: LBS where a vertex has no center. */
SKN_INLINE void dq_family_group(const skn_skin_job *job, uint32_t v, const uint32_t n, const uint16_t *J,
                                const float *W, const int k, const int kind, const int normals, const int tangents,
                                const int scaled) {
  const skn_rig *rig = job->rig;
  group_out o, d;
  if (kind == KIND_DQS) {
    dqs_group(job, v, n, J, W, k, normals, tangents, scaled, &o);
  } else if (kind == KIND_BLEND) {
    lanes bw[4];
    float f[SKN_L];
    for (uint32_t l = 0; l < SKN_L; ++l) f[l] = rig->blend_weights[v + (l < n ? l : n - 1)];
    bw[0] = lanes_load(f);
    lbs_group(job, v, n, J, W, k, normals, tangents, &o);
    dqs_group(job, v, n, J, W, k, normals, tangents, scaled, &d);
    o.p = l3_mix(o.p, d.p, bw[0]);
    if (normals) o.n = l3_unit(l3_mix(o.n, d.n, bw[0]));
    if (tangents) {
      o.t = l3_unit(l3_mix(o.t, d.t, bw[0]));
      o.tw = lanes_select(bw[0] >= 0.5f, o.tw, d.tw);
    }
  } else {
    float f[SKN_L];
    int all = 1;
    for (uint32_t l = 0; l < SKN_L; ++l) {
      f[l] = rig->has_center[v + (l < n ? l : n - 1)] ? 1.0f : 0.0f;
      all &= f[l] != 0.0f;
    }
    cor_group(job, v, n, J, W, k, normals, tangents, scaled, &o);
    if (!all) {
      ilanes lbs = lanes_load(f) == 0.0f;
      lbs_group(job, v, n, J, W, k, normals, tangents, &d);
      o.p = l3_select(lbs, o.p, d.p);
      if (normals) o.n = l3_select(lbs, o.n, d.n);
      if (tangents) o.t = l3_select(lbs, o.t, d.t), o.tw = lanes_select(lbs, o.tw, d.tw);
    }
  }
  group_store_out(job, v, n, &o, normals, tangents);
}

SKN_INLINE void dq_family_run(const skn_skin_job *job, const skn_block *b, uint32_t lo, uint32_t hi, const int k,
                              const int kind, const int normals, const int tangents, const int scaled) {
  const skn_rig *rig = job->rig;
  const int width = k ? k : (int)b->k;
  for (uint32_t v = lo; v < hi; v += SKN_L) {
    size_t at = b->offset + (size_t)(v - b->first) * width;
    dq_family_group(job, v, SKN_MIN(SKN_L, hi - v), rig->packed_joints + at, rig->packed_weights + at, width, kind,
                    normals, tangents, scaled);
  }
}

/* One function per specialisation, as for LBS (lbs_simd.h): width x scale x
 * attributes. The scaled path (S blended and applied) runs only where the
 * pose has a scaled joint. BLEND and COR specialise by width too: with the
 * block's own width they ran ~25% more instructions per vertex. */
#define SKN_DQ_RUN(KIND, K, N, T, S)                                                                   \
  static __attribute__((noinline)) void KIND##_##K##N##T##S(const skn_skin_job *job, const skn_block *b, \
                                                            uint32_t lo, uint32_t hi) {                \
    dq_family_run(job, b, lo, hi, K, KIND, N, T, S);                                                   \
  }
#define SKN_DQ_RUNS_S(KIND, K, S) \
  SKN_DQ_RUN(KIND, K, 0, 0, S) SKN_DQ_RUN(KIND, K, 1, 0, S) SKN_DQ_RUN(KIND, K, 0, 1, S) SKN_DQ_RUN(KIND, K, 1, 1, S)
#define SKN_DQ_RUNS(K, KIND) SKN_DQ_RUNS_S(KIND, K, 0) SKN_DQ_RUNS_S(KIND, K, 1)
SKN_WIDTHS(SKN_DQ_RUNS, KIND_DQS)
SKN_WIDTHS(SKN_DQ_RUNS, KIND_BLEND)
SKN_WIDTHS(SKN_DQ_RUNS, KIND_COR)

#define SKN_DQ_CELL(KIND, K, S) {KIND##_##K##00##S, KIND##_##K##10##S, KIND##_##K##01##S, KIND##_##K##11##S}
#define SKN_DQ_ROW(K, KIND) {SKN_DQ_CELL(KIND, K, 0), SKN_DQ_CELL(KIND, K, 1)},
static const block_fn dqs_runs[][2][4] = {SKN_WIDTHS(SKN_DQ_ROW, KIND_DQS)};
static const block_fn blend_runs[][2][4] = {SKN_WIDTHS(SKN_DQ_ROW, KIND_BLEND)};
static const block_fn cor_runs[][2][4] = {SKN_WIDTHS(SKN_DQ_ROW, KIND_COR)};

#define SKN_DQ_KERNEL(NAME, RUNS)                                                             \
  void NAME(const skn_skin_job *job, uint32_t first, uint32_t end) {                          \
    const skn_rig *rig = job->rig;                                                            \
    const int scaled = job->pose->dq_scaled[job->split] != 0, column = attrs_column(job);     \
    for (uint32_t v = first; v < end;) {                                                      \
      const skn_block *b = &rig->blocks[v / SKN_PACK_BLOCK];                                  \
      uint32_t hi = SKN_MIN(end, b->first + b->count);                                        \
      RUNS[width_row(b->k)][scaled][column](job, b, v, hi);                                      \
      v = hi;                                                                                 \
    }                                                                                         \
    if (job->stream) _mm_sfence(); /* as LBS's */                                             \
  }

SKN_DQ_KERNEL(SKN_DQS_KERNEL, dqs_runs)
SKN_DQ_KERNEL(SKN_BLEND_KERNEL, blend_runs)
SKN_DQ_KERNEL(SKN_COR_KERNEL, cor_runs)
