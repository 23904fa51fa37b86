/* dqs_simd.h — dual quaternion skinning, its blend with LBS, and optimized
 * centers of rotation, a group of SKN_L vertices at a time like LBS (the
 * scalar references and their formulas are in dqs.c and cor.c). Per joint
 * the kernels read 32 floats (pose->dq_palette[split]): the unit dual
 * quaternion of the rigid part (8 lanes: real xyzw, dual xyzw) and the
 * bind-space scale/shear S_i as four padded columns. The dual quaternions
 * are transposed an influence slot at a time and blended in lanes, the
 * antipodality test included; normalising, rotating and translating follow
 * in lanes. Scaled poses blend S_i per vertex, as LBS its matrices.
 * Included by the per-instruction-set files after lbs_simd.h. */

enum { KIND_DQS, KIND_BLEND, KIND_COR };

/* ---- DQS a group at a time (soa.h): Kavan et al.'s algorithm in lanes. ---- */

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

/* SKN_L 8-float records as rows 0..7, row e lane l = rec[l][e]: their
 * transpose (16 lanes: two 8 x 8 halves, records SKN_SIGMA(l) and
 * SKN_SIGMA(l + 8) sharing a vector, soa.h). */
SKN_INLINE void records8_to_rows(const float *const rec[SKN_L], lanes q[8]) {
#if SKN_L == 16
  SKN_UNROLL for (int l = 0; l < 8; ++l) { /* records in the order SKN_SIGMA: the stages' vshufps order undone */
    v8 a = ld8(rec[SKN_SIGMA(l)]), b = ld8(rec[SKN_SIGMA(l + 8)]);
    q[l] = __builtin_shufflevector(a, b, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  }
  SKN_TSTAGE_BY(q, 4, 8, SKN_TQUADS)
  SKN_TSTAGE_ROWS(q, 2, 8)
  SKN_TSTAGE_BY(q, 1, 8, SKN_TPAIRS)
#elif SKN_L == 8
  SKN_UNROLL for (int l = 0; l < 8; ++l) q[l] = ld8(rec[l]);
  lanes_transpose(q);
#else
  SKN_UNROLL for (int part = 0; part < 2; ++part) {
    lanes *r = q + 4 * part;
    SKN_UNROLL for (int l = 0; l < 4; ++l) r[l] = ld4(rec[l] + 4 * part);
    lanes_transpose(r);
  }
#endif
}

/* Influence slot i's 8-float records at `pal` (+ the joint's palette
 * entry) for the group, as rows 0..7 — the dual quaternions, or half of an
 * LBS_QUATERNION record. Lanes past the range read the slots that follow
 * (pack.c pads the end), as group_blend. */
SKN_INLINE void slot_rows8(const float *pal, const uint16_t *J, const int k, const int i, lanes q[8]) {
  const float *rec[SKN_L];
  SKN_UNROLL for (int l = 0; l < SKN_L; ++l) rec[l] = pal + (size_t)J[l * k + i] * SKN_PALETTE_FLOATS;
  records8_to_rows(rec, q);
}

/* The first four floats of slot i's records (the rotation alone: COR) as
 * rows 0..3: vector j holds, in its 128-bit part p, vertex 4p + j's record,
 * and the transpose's last two stages (soa.h) on the four vectors turn
 * each part's 4 x 4 around, leaving vertex 4p + j's element e in row e,
 * lane 4p + j. Three 128-bit inserts and eight shuffles a slot, where the
 * 8-float records' transpose takes eight inserts and 24 shuffles. */
SKN_INLINE void slot_rows4(const float *pal, const uint16_t *J, const int k, const int i, lanes q[4]) {
#define SKN_REC4(l) ld4(pal + (size_t)J[(l) * k + i] * SKN_PALETTE_FLOATS)
  SKN_UNROLL for (int l = 0; l < 4; ++l) { /* in the order SKN_SIGMA, as lanes_transpose */
    const int j = SKN_SIGMA(l);
#if SKN_L == 16
    v8 lo = __builtin_shufflevector(SKN_REC4(j), SKN_REC4(4 + j), 0, 1, 2, 3, 4, 5, 6, 7);
    v8 hi = __builtin_shufflevector(SKN_REC4(8 + j), SKN_REC4(12 + j), 0, 1, 2, 3, 4, 5, 6, 7);
    q[l] = __builtin_shufflevector(lo, hi, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
#elif SKN_L == 8
    q[l] = __builtin_shufflevector(SKN_REC4(j), SKN_REC4(4 + j), 0, 1, 2, 3, 4, 5, 6, 7);
#else
    q[l] = SKN_REC4(j);
#endif
  }
#undef SKN_REC4
  SKN_TSTAGE_ROWS(q, 2, 4)
  SKN_TSTAGE_BY(q, 1, 4, SKN_TPAIRS)
}

/* Whether group_weight_rows takes k: a constant in each specialisation. */
#define SKN_WEIGHT_ROWS(k) ((k) <= 4 || (k) == 8)

/* The group's weights as rows, row i lane l = W[l k + i], for k <= 4 or
 * k = 8: the group's k SKN_L weights deinterleaved (a few shuffles, where a
 * gather lane by lane costs two instructions a lane; eight weights a
 * vertex are its 8-float record). */
SKN_INLINE void group_weight_rows(const float *W, const int k, lanes w[8]) {
  switch (k) {
  case 1: w[0] = lanes_load(W); break;
  case 2: lanes_load2(W, &w[0], &w[1]); break;
  case 3: lanes_load3(W, &w[0], &w[1], &w[2]); break;
  case 4: lanes_load4(W, &w[0], &w[1], &w[2], &w[3]); break;
  default: {
    const float *rec[SKN_L];
    SKN_UNROLL for (int l = 0; l < SKN_L; ++l) rec[l] = W + 8 * l;
    records8_to_rows(rec, w);
  }
  }
}

/* Slot i's weights for the group, lane by lane (any k). */
SKN_INLINE lanes slot_weights(const float *W, const int k, const int i) {
  float f[SKN_L];
  SKN_UNROLL for (int l = 0; l < SKN_L; ++l) f[l] = W[l * k + i];
  return lanes_load(f);
}

/* scaled: how a kernel applies S (a constant in each specialisation):
 * not at all (every joint rigid), as the blended 3x4 (sr's rows), or, every
 * S_i uniform, as sigma v + tau with sigma = sr[3], tau = sr[0..2]. */
enum { SCALED_GENERAL = 1, SCALED_UNIFORM = 2 };

SKN_INLINE lanes3 l3_flip_where_negative(lanes3 v, lanes s) {
  return (lanes3){lanes_flip_where_negative(v.x, s), lanes_flip_where_negative(v.y, s),
                  lanes_flip_where_negative(v.z, s)};
}

/* S applied to a position (affine: with S's translation) or to a direction. */
SKN_INLINE lanes3 scale_apply(const lanes sr[16], lanes3 v, const int scaled, const int affine) {
  if (scaled == SCALED_UNIFORM)
    return affine ? (lanes3){lanes_fma(sr[3], v.x, sr[0]), lanes_fma(sr[3], v.y, sr[1]), lanes_fma(sr[3], v.z, sr[2])}
                  : (lanes3){sr[3] * v.x, sr[3] * v.y, sr[3] * v.z};
  return scaled ? rows_apply3(sr, v, affine) : v;
}

/* The group's dual quaternions blended in lanes (rows 0..7 of qr) with
 * Blender's antipodality rule: a quaternion whose real part points away
 * from the running sum, ((a0 q0 + a1 q1) + a2 q2) + a3 q3 < 0, is added
 * negated (Kavan et al. 2008, sec. 4; as dqs.c); the first, with nothing
 * summed before it, as it is. Where scaled, the S_i blend divided by
 * sum w_i (rows of sr), per vertex; where every S_i is uniform, rows 0..3
 * of sr are sum w_i (1 - s_i) c_i and sum w_i s_i, divided the same way,
 * blended in lanes a slot at a time like the dual quaternions; sum w_i per
 * lane in wsum.
 * rotation_only: the dual parts are left zero and not read (COR). */
SKN_INLINE void group_dq_blend(const skn_skin_job *job, const uint16_t *J, const float *W, const int k,
                               const int scaled, const int rotation_only, lanes qr[8], lanes sr[16],
                               lanes *wsum) {
  const float *pal = job->pose->dq_palette[job->split];
  const int parts = rotation_only ? 4 : 8;
  lanes ws = lanes_splat(0.0f), wr[8];
  SKN_UNROLL for (int c = 0; c < 8; ++c) qr[c] = ws;
  if (SKN_WEIGHT_ROWS(k)) group_weight_rows(W, k, wr);
  if (scaled == SCALED_UNIFORM) SKN_UNROLL for (int c = 0; c < 4; ++c) sr[c] = lanes_splat(0.0f);
  _Pragma("GCC unroll 8") for (int i = 0; i < k; ++i) {
    lanes q[8], w = SKN_WEIGHT_ROWS(k) ? wr[i] : slot_weights(W, k, i);
    ws += w;
    if (scaled == SCALED_UNIFORM) { /* (1 - s_i) c_i and s_i, weighted as given (no antipodality) */
      lanes u[4];
      slot_rows4(pal + SKN_DQ_UNIFORM, J, k, i, u);
      SKN_UNROLL for (int c = 0; c < 4; ++c) sr[c] = lanes_fma(w, u[c], sr[c]);
    }
    if (rotation_only) slot_rows4(pal, J, k, i, q);
    else slot_rows8(pal, J, k, i, q);
    if (i == 0) { /* the sum is zero: no sign to test, nothing to add to */
      SKN_UNROLL for (int c = 0; c < parts; ++c) qr[c] = w * q[c];
      continue;
    }
    lanes d = qr[0] * q[0] + qr[1] * q[1];
    d = d + qr[2] * q[2];
    d = d + qr[3] * q[3];
    w = lanes_flip_where_negative(w, d);
    /* multiply, then add, as dqs.c: fused, the sums drift past 1e-6 of the
     * model's size from the reference where translations are large */
    SKN_UNROLL for (int c = 0; c < parts; ++c) qr[c] = qr[c] + w * q[c];
  }
  *wsum = ws;
  if (scaled == SCALED_UNIFORM) {
    lanes inv = 1.0f / ws;
    SKN_UNROLL for (int c = 0; c < 4; ++c) sr[c] *= inv;
  } else if (scaled) {
    mat sm[SKN_L];
    SKN_UNROLL for (uint32_t l = 0; l < SKN_L; ++l) {
      sm[l] = mat_zero();
      for (int i = 0; i < k; ++i) sm[l] = mat_fma(sm[l], W[l * k + i], pal + (size_t)J[l * k + i] * SKN_PALETTE_FLOATS + 8);
    }
    records_to_rows(sm, sr);
    lanes inv = 1.0f / ws; /* ws sums the weights in the same order a per-vertex sum would */
    SKN_UNROLL for (int c = 0; c < 16; ++c) sr[c] *= inv;
  }
}

/* Normals and tangents under S (if any) then the rotation, as rotate_attributes. */
SKN_INLINE void group_rotate_attributes(const skn_src *src, uint32_t v, const uint32_t n, const rigid_lanes *r,
                                        const lanes sr[16], const int scaled, const int normals,
                                        const int tangents, group_out *o) {
  if (normals) {
    lanes3 y = group_load_normals(src, v, n);
    if (scaled == SCALED_UNIFORM) y = l3_flip_where_negative(y, sr[3]); /* (sigma I)^-T n0: n0 / sigma */
    else if (scaled) y = rows_normal_apply(sr, y);
    o->n = l3_unit(rigid_rotate(r, y));
  }
  if (tangents) {
    lanes w;
    lanes3 y = group_load_tangents(src, v, n, &w);
    if (scaled == SCALED_UNIFORM) y = l3_flip_where_negative(y, sr[3]); /* sigma t0, det sigma^3 */
    else if (scaled) y = rows_apply3(sr, y, 0);
    o->t = l3_unit(rigid_rotate(r, y));
    o->tw = scaled == SCALED_UNIFORM ? lanes_flip_where_negative(w, sr[3])
            : scaled                 ? lanes_flip_where_negative(w, rows_det3(sr))
                                     : w;
  }
}

/* ---- a run of groups in two passes ----
 * The blend of a group's dual quaternions is a chain (each influence's sign
 * test reads the sum before it), and so is what follows it (normalise,
 * rotate, store); one group's instructions fill the core's window, so
 * group after group these chains ran one at a time. The kernels blend a run
 * of SKN_DQ_RUN_GROUPS groups first and finish them after, so that the
 * core finds independent chains in its window. Alternating the two builds
 * in one process (4 influences, positions + normals; results bit for bit
 * the same): DQS 1.12x at 1,000,000 vertices on two threads and 1.13x at
 * 100,000 on one, BLEND 1.12x and 1.17x, COR 1.03x and 1.04x (COR's LBS
 * blend of M_i moved to the first pass too measured 0.93-0.98x). */
#define SKN_DQ_RUN_GROUPS 8

/* A group's first pass: what it blends, and what the second needs of it. */
typedef struct dq_blended {
  lanes qr[8], sr[16], wsum; /* group_dq_blend's (sr: where scaled) */
  lanes f;                   /* BLEND's b per lane; COR's 1 where the vertex has a center */
  int lbs, dq;               /* some lane runs LBS; some lane runs the dual quaternion method */
} dq_blended;

typedef uint8_t blanes __attribute__((vector_size(SKN_L)));

/* BLEND's b, or COR's 1 where the vertex has a center and 0 where not, for
 * the group at v, per lane: one load where the group is whole, else lane by
 * lane with the missing lanes repeating the last vertex (as group_load).
 * Lane by lane for every group, the choice cost COR 7-9% and BLEND 7-8% of
 * their time (1M vertices, 2 threads; 10k, 1 thread; alternating). */
SKN_INLINE lanes group_choice(const skn_rig *rig, uint32_t v, const uint32_t n, const int kind) {
  if (n == SKN_L && kind == KIND_BLEND) return lanes_load(rig->blend_weights + v);
  if (n == SKN_L) {
    blanes c;
    memcpy(&c, rig->has_center + v, sizeof c);
    return lanes_select(__builtin_convertvector(c, ilanes) != 0, lanes_splat(0.0f), lanes_splat(1.0f));
  }
  float f[SKN_L];
  for (uint32_t l = 0; l < SKN_L; ++l) {
    uint32_t at = v + (l < n ? l : n - 1);
    f[l] = kind == KIND_BLEND ? rig->blend_weights[at] : rig->has_center[at] ? 1.0f : 0.0f;
  }
  return lanes_load(f);
}

/* The first pass of the group at v (n vertices): for BLEND and COR, which
 * lanes take which method (a group all LBS blends nothing here). */
SKN_INLINE void dq_first(const skn_skin_job *job, const skn_src *src, uint32_t v, const uint32_t n, const int k,
                         const int kind, const int scaled, dq_blended *b) {
  b->lbs = 0, b->dq = 1;
  if (kind != KIND_DQS) {
    b->f = group_choice(job->rig, v, n, kind);
    b->lbs = lanes_any(b->f != 1.0f), b->dq = lanes_any(b->f != 0.0f);
  }
  if (b->dq)
    group_dq_blend(job, src_joints(src, v, k), src_weights(src, v, k), k, scaled, kind == KIND_COR, b->qr, b->sr,
                   &b->wsum);
}

/* DQS after the blend (as lbs_group): v = c(S v0), n = R(c) S^-T n0,
 * t = R(c) S t0 with w flipped where S mirrors. */
SKN_INLINE void dqs_finish(const skn_skin_job *job, const skn_src *src, uint32_t v, const uint32_t n,
                           const dq_blended *b, const int normals, const int tangents, const int scaled,
                           group_out *o) {
  (void)job;
  rigid_lanes r = rigid_of_rows(b->qr);
  lanes3 x = group_load_positions(src, v, n);
  x = scale_apply(b->sr, x, scaled, 1);
  lanes3 p = rigid_rotate(&r, x);
  o->p = (lanes3){p.x + r.t.x, p.y + r.t.y, p.z + r.t.z};
  group_rotate_attributes(src, v, n, &r, b->sr, scaled, normals, tangents, o);
}

/* COR after the rotations' blend (as cor_vertex): v = R S (v0 - p*) +
 * (sum w_i M_i p*) / sum w_i, R from the blended rotations alone; the
 * joints of the M_i blend a load apiece (lbs_group_joints). */
SKN_INLINE void cor_finish(const skn_skin_job *job, const skn_src *src, uint32_t v, const uint32_t n, const int k,
                           const dq_blended *b, const int normals, const int tangents, const int scaled,
                           group_out *o) {
  lanes mr[16];
  mat m[SKN_L], unused[SKN_L];
  group_blend(job->pose->lbs_palette, src_joints(src, v, k), src_weights(src, v, k), k, 0, 0, m, unused);
  records_to_rows(m, mr);
  rigid_lanes r = rigid_of_rows(b->qr);
  lanes3 p0 = group_load_positions(src, v, n), c = group_load3(job->rig->centers, v, n);
  lanes3 d = {p0.x - c.x, p0.y - c.y, p0.z - c.z};
  d = scale_apply(b->sr, d, scaled, 0);
  lanes3 x = rigid_rotate(&r, d), a = rows_apply3(mr, c, 1);
  lanes inv = 1.0f / b->wsum;
  o->p = (lanes3){x.x + a.x * inv, x.y + a.y * inv, x.z + a.z * inv};
  group_rotate_attributes(src, v, n, &r, b->sr, scaled, normals, tangents, o);
}

SKN_INLINE lanes3 l3_select(ilanes mask, lanes3 a, lanes3 b) {
  return (lanes3){lanes_select(mask, a.x, b.x), lanes_select(mask, a.y, b.y), lanes_select(mask, a.z, b.z)};
}

/* out takes from's results in the lanes where mask is set. */
SKN_INLINE void group_out_select(group_out *out, ilanes mask, const group_out *from, const int normals,
                                 const int tangents) {
  out->p = l3_select(mask, out->p, from->p);
  if (normals) out->n = l3_select(mask, out->n, from->n);
  if (tangents) out->t = l3_select(mask, out->t, from->t), out->tw = lanes_select(mask, out->tw, from->tw);
}

SKN_INLINE lanes3 l3_mix(lanes3 a, lanes3 b, lanes t) {
  return (lanes3){a.x + t * (b.x - a.x), a.y + t * (b.y - a.y), a.z + t * (b.z - a.z)};
}

/* BLEND's second pass, as dqs.c's blend_vertex: (1 - b) LBS + b DQS with
 * normals and tangents renormalised and the tangent's w from the larger
 * share; a vertex with b = 0 or 1 gets the pure method's result, and a
 * group all of one kind computes that method alone (painted blend maps are
 * mostly 0 and 1). Each method is inlined once, its result then taken or
 * mixed: with a copy of each for the pure groups and another for the mixed
 * ones, BLEND's files took 1.7x as long to build, for the same instructions
 * run (skn bench --against: every row the same bits, median 1.00x). COR's
 * second pass keeps its two LBS copies: made one, its pure-LBS groups ran
 * 8-10% slower (their result no longer went straight to the stores). */
SKN_INLINE void blend_finish(const skn_skin_job *job, const skn_src *src, uint32_t v, const uint32_t n, const int k,
                             const dq_blended *bl, const int normals, const int tangents, const int scaled,
                             group_out *o) {
  group_out l, d;
  if (bl->lbs || !bl->dq) lbs_group_joints(job, src, v, n, k, normals, tangents, 0, &l);
  if (bl->dq) dqs_finish(job, src, v, n, bl, normals, tangents, scaled, &d);
  if (!bl->dq || !bl->lbs) {
    *o = bl->dq ? d : l;
    return;
  }
  lanes b = bl->f;
  ilanes pure_lbs = b == 0.0f, pure_dqs = b == 1.0f;
  group_out m = l;
  m.p = l3_mix(l.p, d.p, b);
  if (normals) m.n = l3_unit(l3_mix(l.n, d.n, b));
  if (tangents) m.t = l3_unit(l3_mix(l.t, d.t, b)), m.tw = lanes_select(b >= 0.5f, l.tw, d.tw);
  group_out_select(&m, pure_lbs, &l, normals, tangents);
  group_out_select(&m, pure_dqs, &d, normals, tangents);
  *o = m;
}

/* COR's second pass: COR where the group's vertices have centers, LBS
 * where not (as cor.c); a group with no centers at all runs LBS alone. */
SKN_INLINE void cor_or_lbs_finish(const skn_skin_job *job, const skn_src *src, uint32_t v, const uint32_t n,
                                  const int k, const dq_blended *b, const int normals, const int tangents,
                                  const int scaled, group_out *o) {
  if (!b->dq) {
    lbs_group_joints(job, src, v, n, k, normals, tangents, 0, o);
    return;
  }
  cor_finish(job, src, v, n, k, b, normals, tangents, scaled, o);
  if (b->lbs) {
    group_out d;
    lbs_group_joints(job, src, v, n, k, normals, tangents, 0, &d);
    group_out_select(o, b->f == 0.0f, &d, normals, tangents);
  }
}

SKN_INLINE void dq_family_run(const skn_skin_job *job, const skn_src *src, uint32_t lo, uint32_t hi, const int k,
                              const int kind, const int normals, const int tangents, const int scaled) {
  const int width = k ? k : (int)src->k;
  for (uint32_t v0 = lo; v0 < hi; v0 += SKN_DQ_RUN_GROUPS * SKN_L) {
    dq_blended b[SKN_DQ_RUN_GROUPS];
    const uint32_t groups = SKN_MIN((uint32_t)SKN_DQ_RUN_GROUPS, (hi - v0 + SKN_L - 1) / SKN_L);
    for (uint32_t g = 0; g < groups; ++g) {
      uint32_t v = v0 + g * SKN_L;
      group_prefetch(job, v, normals, tangents, kind == KIND_BLEND, kind == KIND_COR);
      dq_first(job, src, v, SKN_MIN(SKN_L, hi - v), width, kind, scaled, &b[g]);
    }
    for (uint32_t g = 0; g < groups; ++g) {
      uint32_t v = v0 + g * SKN_L, n = SKN_MIN(SKN_L, hi - v);
      group_out o;
      if (kind == KIND_DQS) dqs_finish(job, src, v, n, &b[g], normals, tangents, scaled, &o);
      else if (kind == KIND_BLEND) blend_finish(job, src, v, n, width, &b[g], normals, tangents, scaled, &o);
      else cor_or_lbs_finish(job, src, v, n, width, &b[g], normals, tangents, scaled, &o);
      group_store_out(job, v, n, &o, normals, tangents);
    }
  }
}

/* One function per specialisation, as for LBS (lbs_simd.h): width x scale x
 * attributes. The scaled paths (S blended and applied) run only where the
 * pose has a scaled joint. BLEND and COR specialise by width too: with the
 * block's own width they ran ~25% more instructions per vertex; and, for
 * their LBS vertices, by normals by M (lbs_column) where unscaled: a pose
 * whose joints are all rotations to SKN_ROTATION_TOLERANCE has every joint
 * a rotation to palette.c's SKN_DQ_RIGID_TOLERANCE, so its scaled cells keep the normals by N
 * (right for any pose) in those columns. Their general-scale column (S_i
 * blended whole: some joint scaled unevenly, a rig's squash and stretch)
 * takes the block's own width at every width: its bodies are the largest
 * (about 22 KB each for AVX-512) and unrolled they were a fifth of the
 * library's build time, for the rarest of the three columns. */
#define SKN_DQ_RUN(KIND, K, N, T, S)                                                                   \
  static __attribute__((noinline)) void KIND##_##K##N##T##S(const skn_skin_job *job, const skn_src *src, \
                                                            uint32_t lo, uint32_t hi) {                \
    dq_family_run(job, src, lo, hi, K, KIND, N, T, S);                                                 \
  }
#define SKN_DQ_RUNS_S(KIND, K, S) \
  SKN_DQ_RUN(KIND, K, 0, 0, S) SKN_DQ_RUN(KIND, K, 1, 0, S) SKN_DQ_RUN(KIND, K, 0, 1, S) SKN_DQ_RUN(KIND, K, 1, 1, S)
#define SKN_DQ_RUNS(K, KIND) SKN_DQ_RUNS_S(KIND, K, 0) SKN_DQ_RUNS_S(KIND, K, 1) SKN_DQ_RUNS_S(KIND, K, 2)
/* the general-scale column at the block's own width (K 0) only */
#define SKN_DQ_GENERAL_0(KIND) SKN_DQ_RUNS_S(KIND, 0, 1)
#define SKN_DQ_GENERAL_1(KIND)
#define SKN_DQ_GENERAL_2(KIND)
#define SKN_DQ_GENERAL_3(KIND)
#define SKN_DQ_GENERAL_4(KIND)
#define SKN_DQ_GENERAL_8(KIND)
#define SKN_DQ_RUNS_BY_M(K, KIND)                                                 \
  SKN_DQ_RUNS_S(KIND, K, 0) SKN_DQ_GENERAL_##K(KIND) SKN_DQ_RUNS_S(KIND, K, 2) \
  SKN_DQ_RUN(KIND, K, 2, 0, 0) SKN_DQ_RUN(KIND, K, 2, 1, 0)
/* Each kernel is built where its file defines its name (dqs_<isa>.c,
 * blend_<isa>.c, cor_<isa>.c): one translation unit a method, so that a
 * build's cores share the family's specialisations. */
#ifdef SKN_DQS_KERNEL
SKN_WIDTHS(SKN_DQ_RUNS, KIND_DQS)
#endif
#ifdef SKN_BLEND_KERNEL
SKN_WIDTHS(SKN_DQ_RUNS_BY_M, KIND_BLEND)
#endif
#ifdef SKN_COR_KERNEL
SKN_WIDTHS(SKN_DQ_RUNS_BY_M, KIND_COR)
#endif

#define SKN_DQ_CELL(KIND, K, S) KIND##_##K##00##S, KIND##_##K##10##S, KIND##_##K##01##S, KIND##_##K##11##S
#define SKN_DQ_ROW(K, KIND) {{SKN_DQ_CELL(KIND, K, 0)}, {SKN_DQ_CELL(KIND, K, 1)}, {SKN_DQ_CELL(KIND, K, 2)}},
#define SKN_DQ_ROW_BY_M(K, KIND)                                              \
  {{SKN_DQ_CELL(KIND, K, 0), KIND##_##K##200, KIND##_##K##210},              \
   {SKN_DQ_CELL(KIND, 0, 1), KIND##_##0101, KIND##_##0111},                   \
   {SKN_DQ_CELL(KIND, K, 2), KIND##_##K##102, KIND##_##K##112}},
#ifdef SKN_DQS_KERNEL
static const block_fn dqs_runs[][3][4] = {SKN_WIDTHS(SKN_DQ_ROW, KIND_DQS)};
#endif
#ifdef SKN_BLEND_KERNEL
static const block_fn blend_runs[][3][6] = {SKN_WIDTHS(SKN_DQ_ROW_BY_M, KIND_BLEND)};
#endif
#ifdef SKN_COR_KERNEL
static const block_fn cor_runs[][3][6] = {SKN_WIDTHS(SKN_DQ_ROW_BY_M, KIND_COR)};
#endif

/* The S column: 0 rigid, 1 S_i blended whole, 2 every S_i uniform. */
#define SKN_DQ_SCALE_COLUMN(pose, split) \
  ((pose)->dq_uniform[split] ? SCALED_UNIFORM : (pose)->dq_scaled[split] ? SCALED_GENERAL : 0)
#define SKN_DQ_KERNEL(NAME, RUNS, column_of)                                                  \
  void NAME(const skn_skin_job *job, uint32_t first, uint32_t end) {                          \
    const int scaled = SKN_DQ_SCALE_COLUMN(job->pose, job->split), column = column_of(job);   \
    block_fn fns[sizeof RUNS / sizeof RUNS[0]];                                               \
    for (size_t r = 0; r < sizeof fns / sizeof fns[0]; ++r) fns[r] = RUNS[r][scaled][column]; \
    run_blocks(job, first, end, fns);                                                         \
  }

#ifdef SKN_DQS_KERNEL
SKN_DQ_KERNEL(SKN_DQS_KERNEL, dqs_runs, attrs_column)
#endif
#ifdef SKN_BLEND_KERNEL
SKN_DQ_KERNEL(SKN_BLEND_KERNEL, blend_runs, lbs_column)
#endif
#ifdef SKN_COR_KERNEL
SKN_DQ_KERNEL(SKN_COR_KERNEL, cor_runs, lbs_column)
#endif
