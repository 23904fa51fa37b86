/* dqs_simd.h — dual quaternion skinning, its blend with LBS, and optimized
 * centers of rotation, vectorised per vertex (the scalar references and
 * their formulas are in dqs.c and cor.c). Per joint the kernels read 32
 * floats (pose->simd_dqs[split]): the unit dual quaternion of the rigid part
 * (8 lanes: real xyzw, dual xyzw) and the bind-space scale/shear S_i as four
 * padded columns. The blended dual quaternion becomes a 3x4 matrix, so that
 * positions, normals and tangents go through the same one-instruction
 * transform as LBS's. Included by the per-instruction-set files after
 * lbs_simd.h. */

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

SKN_INLINE mat mat_from(const float f[16]) {
  mat m;
  memcpy(&m, f, sizeof m);
  return m;
}

/* a x b in the first three lanes (lane 3: 0 for such inputs). */
SKN_INLINE v4 cross3(v4 a, v4 b) {
  v4 c = a * __builtin_shufflevector(b, b, 1, 2, 0, 3) - __builtin_shufflevector(a, a, 1, 2, 0, 3) * b;
  return __builtin_shufflevector(c, c, 1, 2, 0, 3);
}

/* A blended dual quaternion, both parts divided by |real| first as the
 * scalar reference does (Kavan et al. 2008, §3, DLB): the rotation's vector
 * part u (lane 3: 0), its w, and the translation
 * t = 2 (w qe.xyz - qe.w u + u x qe.xyz). */
typedef struct rigid { v4 u, t; float w; } rigid;

SKN_INLINE rigid dq_rigid(v8 b) {
  v4 r = __builtin_shufflevector(b, b, 0, 1, 2, 3);
  b *= 1.0f / sqrtf(dot4(r, r));
  rigid m;
  v4 e = __builtin_shufflevector(b, b, 4, 5, 6, 7);
  m.u = __builtin_shufflevector(b, b, 0, 1, 2, 3);
  m.w = m.u[3];
  m.u[3] = 0.0f;
  float ew = e[3];
  e[3] = 0.0f;
  m.t = 2.0f * (m.w * e - ew * m.u + cross3(m.u, e));
  return m;
}

/* v rotated by the unit quaternion (u, w): v + w t + u x t with t = 2 u x v. */
SKN_INLINE v4 rotate(const rigid *m, v4 v) {
  v4 t = 2.0f * cross3(m->u, v);
  return v + m->w * t + cross3(m->u, t);
}

/* The cofactor matrix of S's 3x3 with det's sign, as columns (normals: S^-T up to a positive factor). */
SKN_INLINE mat normal_of(mat s) {
  v4 a = mat_column(s, 0), b = mat_column(s, 1), c = mat_column(s, 2);
  float sign = mat_det3(s) < 0.0f ? -1.0f : 1.0f;
  float f[16] = {sign * (b[1] * c[2] - b[2] * c[1]), sign * (b[2] * c[0] - b[0] * c[2]), sign * (b[0] * c[1] - b[1] * c[0]), 0,
                 sign * (c[1] * a[2] - c[2] * a[1]), sign * (c[2] * a[0] - c[0] * a[2]), sign * (c[0] * a[1] - c[1] * a[0]), 0,
                 sign * (a[1] * b[2] - a[2] * b[1]), sign * (a[2] * b[0] - a[0] * b[2]), sign * (a[0] * b[1] - a[1] * b[0]), 0,
                 0, 0, 0, 0};
  return mat_from(f);
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

/* Normal and tangent under S (if any), then the rotation: n = R S^-T n0,
 * t = R S t0 with w flipped where S mirrors. Shared by DQS and COR. */
SKN_INLINE void rotate_attributes(const skn_skin_job *job, uint32_t v, const rigid *r, mat s, const int scaled,
                                  const int normals, const int tangents, vertex_out *o) {
  const skn_rig *rig = job->rig;
  if (normals) {
    const float *q = rig->normals + (size_t)v * 3;
    v4 y = scaled ? mat_apply(normal_of(s), q[0], q[1], q[2], 0.0f) : (v4){q[0], q[1], q[2], 0.0f};
    o->n = unit3(rotate(r, y));
  }
  if (tangents) {
    const float *t = rig->tangents + (size_t)v * 4;
    v4 y = scaled ? mat_apply(s, t[0], t[1], t[2], 0.0f) : (v4){t[0], t[1], t[2], 0.0f};
    o->t = unit3(rotate(r, y));
    o->t[3] = scaled && mat_det3(s) < 0.0f ? -t[3] : t[3];
  }
}

/* DQS of one vertex: v = c (S v0), n = R(c) S^-T n0, t = R(c) S t0. */
SKN_INLINE void dqs_vertex(const skn_skin_job *job, uint32_t v, const uint16_t *J, const float *W, const int k,
                           const int normals, const int tangents, const int scaled, vertex_out *o) {
  const skn_rig *rig = job->rig;
  v8 b;
  mat s;
  float wsum = dq_blend(job->pose->simd_dqs[job->split], J, W, k, scaled, &b, &s);
  rigid m = dq_rigid(b);
  if (scaled) s = mat_scale(s, 1.0f / wsum);
  const float *p = rig->positions + (size_t)v * 3;
  v4 x = scaled ? mat_apply(s, p[0], p[1], p[2], 1.0f) : (v4){p[0], p[1], p[2], 0.0f};
  x[3] = 0.0f;
  o->p = rotate(&m, x) + m.t;
  rotate_attributes(job, v, &m, s, scaled, normals, tangents, o);
}

/* COR of one vertex (cor.c): R from the blended quaternion, S as in DQS,
 * v = R S (v0 - p*) + (sum w_i M_i p*) / sum w_i. */
SKN_INLINE void cor_vertex(const skn_skin_job *job, uint32_t v, const uint16_t *J, const float *W, const int k,
                           const int normals, const int tangents, const int scaled, vertex_out *o) {
  const skn_rig *rig = job->rig;
  const float *lbs = job->pose->simd_lbs, *c = rig->centers + (size_t)v * 3;
  v8 b;
  mat s, a = mat_zero();
  float wsum = dq_blend(job->pose->simd_dqs[job->split], J, W, k, scaled, &b, &s);
  for (int i = 0; i < k; ++i) a = mat_fma(a, W[i], lbs + (size_t)J[i] * SKN_SIMD_FLOATS);
  b[4] = b[5] = b[6] = b[7] = 0.0f; /* the rotation alone */
  rigid r = dq_rigid(b);
  if (scaled) s = mat_scale(s, 1.0f / wsum);
  const float *p = rig->positions + (size_t)v * 3;
  v4 d = {p[0] - c[0], p[1] - c[1], p[2] - c[2], 0.0f};
  v4 x = scaled ? mat_apply(s, d[0], d[1], d[2], 0.0f) : d;
  o->p = rotate(&r, x) + mat_apply(a, c[0], c[1], c[2], 1.0f) * (1.0f / wsum);
  rotate_attributes(job, v, &r, s, scaled, normals, tangents, o);
}

enum { KIND_DQS, KIND_BLEND, KIND_COR };

/* One vertex of DQS, BLEND or COR; a vertex without influences reads the
 * virtual identity joint, so every method returns its rest attributes. */
SKN_INLINE void dq_family_vertex(const skn_skin_job *job, uint32_t v, const uint16_t *J, const float *W, const int k,
                                 const int kind, const int normals, const int tangents, const int scaled, int wide) {
  vertex_out o, d;
  if (kind == KIND_DQS) {
    dqs_vertex(job, v, J, W, k, normals, tangents, scaled, &o);
  } else if (kind == KIND_COR) {
    if (job->rig->has_center[v]) cor_vertex(job, v, J, W, k, normals, tangents, scaled, &o);
    else lbs_vertex(job, v, J, W, k, normals, tangents, &o);
  } else {
    float bw = job->rig->blend_weights[v];
    lbs_vertex(job, v, J, W, k, normals, tangents, &o);
    if (bw != 0.0f) {
      dqs_vertex(job, v, J, W, k, normals, tangents, scaled, &d);
      o.p += bw * (d.p - o.p);
      if (normals) o.n = unit3(o.n + bw * (d.n - o.n));
      if (tangents) {
        float w = bw >= 0.5f ? d.t[3] : o.t[3];
        o.t = unit3(o.t + bw * (d.t - o.t));
        o.t[3] = w;
      }
    }
  }
  store_out(job, v, &o, normals, tangents, wide);
}

SKN_INLINE void dq_family_run(const skn_skin_job *job, const skn_block *b, uint32_t lo, uint32_t hi, uint32_t end,
                              const int k, const int kind, const int normals, const int tangents, const int scaled) {
  const skn_rig *rig = job->rig;
  const int width = k ? k : (int)b->k, packed = job->position_stride == 12;
  for (uint32_t v = lo; v < hi; ++v) {
    size_t at = b->offset + (size_t)(v - b->first) * width;
    dq_family_vertex(job, v, rig->packed_joints + at, rig->packed_weights + at, width, kind, normals, tangents, scaled,
                     packed && v + 1 < end);
  }
}

#define SKN_DQ_WIDTHS(KIND, N, T, S)                                                          \
  switch (b->k) {                                                                             \
  case 1: dq_family_run(job, b, lo, hi, end, 1, KIND, N, T, S); break;                        \
  case 2: dq_family_run(job, b, lo, hi, end, 2, KIND, N, T, S); break;                        \
  case 4: dq_family_run(job, b, lo, hi, end, 4, KIND, N, T, S); break;                        \
  case 8: dq_family_run(job, b, lo, hi, end, 8, KIND, N, T, S); break;                        \
  default: dq_family_run(job, b, lo, hi, end, 0, KIND, N, T, S); break;                       \
  }

#define SKN_DQ_ATTRS(KIND, S)                                                                 \
  if (job->tangents) {                                                                        \
    if (job->normals) SKN_DQ_WIDTHS(KIND, 1, 1, S) else SKN_DQ_WIDTHS(KIND, 0, 1, S)          \
  } else if (job->normals) {                                                                  \
    SKN_DQ_WIDTHS(KIND, 1, 0, S)                                                              \
  } else {                                                                                    \
    SKN_DQ_WIDTHS(KIND, 0, 0, S)                                                              \
  }

/* The scaled path (S blended and applied) only where the pose has a scaled joint. */
#define SKN_DQ_KERNEL(NAME, KIND)                                                             \
  void NAME(const skn_skin_job *job, uint32_t first, uint32_t end) {                          \
    const skn_rig *rig = job->rig;                                                            \
    const int scaled = job->pose->dq_scaled[job->split];                                      \
    for (uint32_t v = first; v < end;) {                                                      \
      const skn_block *b = &rig->blocks[v / SKN_PACK_BLOCK];                                  \
      uint32_t lo = v, hi = SKN_MIN(end, b->first + b->count);                                \
      if (scaled) {                                                                           \
        SKN_DQ_ATTRS(KIND, 1)                                                                 \
      } else {                                                                                \
        SKN_DQ_ATTRS(KIND, 0)                                                                 \
      }                                                                                       \
      v = hi;                                                                                 \
    }                                                                                         \
  }

SKN_DQ_KERNEL(SKN_DQS_KERNEL, KIND_DQS)
SKN_DQ_KERNEL(SKN_BLEND_KERNEL, KIND_BLEND)
SKN_DQ_KERNEL(SKN_COR_KERNEL, KIND_COR)
