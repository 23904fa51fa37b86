/* lbsq_simd.h — LBS in the quaternion form, v = sum w_i (b_i + s_i R_i v'_i)
 * with v'_i = v0 - c_i (eq. 1-3; the scalar reference is lbs.c's
 * lbs_quaternion_vertex), a group of SKN_L vertices at a time. Per joint
 * the kernel reads pose->quat_palette's 16-float record (internal.h):
 * A_i = s_i R(q_i), b_i, c_i and 1/s_i^2, transposed an influence slot at a
 * time (as DQS's dual quaternions), so that each influence's offset form
 * is a few multiply-adds in lanes: the offsets v0 - c_i are formed in the
 * kernel, the same float subtraction bind's bone offsets make, and keep the
 * form's precision far from the origin. Normals blend (w_i / s_i^2) A_i,
 * tangents w_i A_i, applied once per vertex. Included by lbsq_<isa>.c
 * after dqs_simd.h. */

/* rows r[0..8] (A row-major) times d, plus r[9..11] (b). */
SKN_INLINE lanes3 quat_rows_apply(const lanes r[16], lanes3 d) {
  lanes3 y;
  y.x = lanes_fma(r[2], d.z, lanes_fma(r[1], d.y, lanes_fma(r[0], d.x, r[9])));
  y.y = lanes_fma(r[5], d.z, lanes_fma(r[4], d.y, lanes_fma(r[3], d.x, r[10])));
  y.z = lanes_fma(r[8], d.z, lanes_fma(r[7], d.y, lanes_fma(r[6], d.x, r[11])));
  return y;
}

/* A row-major 3x3 in lanes times v. */
SKN_INLINE lanes3 m3_apply(const lanes a[9], lanes3 v) {
  return (lanes3){lanes_fma(a[2], v.z, lanes_fma(a[1], v.y, a[0] * v.x)),
                  lanes_fma(a[5], v.z, lanes_fma(a[4], v.y, a[3] * v.x)),
                  lanes_fma(a[8], v.z, lanes_fma(a[7], v.y, a[6] * v.x))};
}

SKN_INLINE lanes m3_det(const lanes a[9]) {
  return a[0] * (a[4] * a[8] - a[5] * a[7]) - a[1] * (a[3] * a[8] - a[5] * a[6]) + a[2] * (a[3] * a[7] - a[4] * a[6]);
}

/* LBS_QUATERNION of vertices v .. v + n - 1 (as lbs_group). */
SKN_INLINE void lbsq_group(const skn_skin_job *job, const skn_src *src, uint32_t v, const uint32_t n, const int k,
                           const int normals, const int tangents, group_out *o) {
  const uint16_t *J = src_joints(src, v, k);
  const float *W = src_weights(src, v, k), *pal = job->pose->quat_palette;
  const lanes zero = lanes_splat(0.0f);
  lanes3 x = group_load_positions(src, v, n), p = {zero, zero, zero};
  lanes na[9], ta[9], wr[8];
  SKN_UNROLL for (int e = 0; e < 9; ++e) na[e] = ta[e] = zero;
  if (SKN_WEIGHT_ROWS(k)) group_weight_rows(W, k, wr);
  _Pragma("GCC unroll 8") for (int i = 0; i < k; ++i) {
    lanes r[16], w = SKN_WEIGHT_ROWS(k) ? wr[i] : slot_weights(W, k, i);
    slot_rows8(pal, J, k, i, r);
    slot_rows8(pal + 8, J, k, i, r + 8);
    lanes3 y = quat_rows_apply(r, (lanes3){x.x - r[12], x.y - r[13], x.z - r[14]});
    p = (lanes3){lanes_fma(w, y.x, p.x), lanes_fma(w, y.y, p.y), lanes_fma(w, y.z, p.z)};
    if (normals) {
      lanes c = w * r[15];
      SKN_UNROLL for (int e = 0; e < 9; ++e) na[e] = lanes_fma(c, r[e], na[e]);
    }
    if (tangents)
      SKN_UNROLL for (int e = 0; e < 9; ++e) ta[e] = lanes_fma(w, r[e], ta[e]);
  }
  o->p = p;
  if (normals) o->n = l3_unit(m3_apply(na, group_load_normals(src, v, n)));
  if (tangents) { /* t = (sum w_i A_i) t0, w negated where that mirrors */
    lanes tw;
    o->t = l3_unit(m3_apply(ta, group_load_tangents(src, v, n, &tw)));
    o->tw = lanes_flip_where_negative(tw, m3_det(ta));
  }
}

SKN_GROUP_KERNEL(SKN_LBSQ_KERNEL, lbsq, 4, attrs_column)
