/* cor.c — skinning with optimized centers of rotation, the scalar reference
 * kernel (Le & Hodgins 2016, "Real-time Skeletal Skinning with Optimized
 * Centers of Rotation", §4). Each vertex has a center p* found at bind
 * (cor_bind.c). Per pose:
 *   q = normalize(sum +-w_i q_i)       rotations blended as quaternions
 *                                      (antipodality as in dqs.c), R = R(q)
 *   S = sum w_i S_i / sum w_i          the bind-space scale/shear, as in DQS
 *   v = R S (v0 - p*) + LBS(p*)        i.e. the paper's v = R v0 + t with
 *                                      t = LBS(p*) - R p* when S = I
 *   n = R S^-T n0,  t = R S t0
 * A vertex with no center (no similar triangle) falls back to LBS. Weights
 * are normalized by their sum, as DQS does. */
#include "internal.h"

#include "math/vec3.h"

#include <string.h>

static void cor_vertex(const skn_skin_job *job, uint32_t v, skn_vertex_out *o) {
  const skn_rig *rig = job->rig;
  const float *pc = rig->centers + (size_t)v * 3;
  uint32_t lo = rig->influence_offsets[v], hi = rig->influence_offsets[v + 1];
  float q[4] = {0}, s[9] = {0}, center[3] = {0}, wsum = 0, d[3], x[3];
  for (uint32_t i = lo; i < hi; ++i) {
    uint32_t j = rig->influence_joints[i];
    const float *dq = SKN_DQ_ENTRY(job->pose, job->split, j), *real = dq + SKN_DQ_REAL;
    float w = rig->influence_weights[i];
    float dot = q[0] * real[0] + q[1] * real[1] + q[2] * real[2] + q[3] * real[3];
    float sw = dot < 0.0f ? -w : w;
    for (int k = 0; k < 4; ++k) q[k] += sw * real[k];
    for (int r = 0; r < 3; ++r) {
      for (int c = 0; c < 3; ++c) s[r * 3 + c] += w * dq[SKN_DQ_S + 4 * c + r];
      center[r] += w * (SKN_POSE_M(job->pose, j, r, 0) * pc[0] + SKN_POSE_M(job->pose, j, r, 1) * pc[1] +
                        SKN_POSE_M(job->pose, j, r, 2) * pc[2] + SKN_POSE_M(job->pose, j, r, 3));
    }
    wsum += w;
  }
  float qn = 1.0f / sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  for (int k = 0; k < 4; ++k) q[k] *= qn;
  for (int e = 0; e < 9; ++e) s[e] /= wsum;
  const float *v0 = SKN_REST_P(job, v);
  for (int c = 0; c < 3; ++c) d[c] = v0[c] - pc[c];
  skn_v3_mul_rows(x, s, 3, d);
  skn_quat_rotate(o->p, q, x);
  for (int c = 0; c < 3; ++c) o->p[c] += center[c] / wsum;
  if (job->normals) {
    memcpy(x, SKN_REST_N(job, v), sizeof x);
    skn_v3_normal_transform(x, s, 3);
    skn_quat_rotate(o->n, q, x);
    skn_v3_normalize(o->n);
  }
  if (job->tangents) {
    const float *t0 = SKN_REST_T(job, v);
    skn_v3_mul_rows(x, s, 3, t0);
    skn_quat_rotate(o->t, q, x);
    skn_v3_normalize(o->t);
    o->t[3] = skn_rows_det3(s, 3) < 0.0f ? -t0[3] : t0[3];
  }
}

/* A vertex with no similar triangle has no center: LBS serves it. */
static void cor_or_lbs_vertex(const skn_skin_job *job, uint32_t v, skn_vertex_out *o) {
  if (job->rig->has_center[v])
    cor_vertex(job, v, o);
  else
    skn__lbs_vertex(job, v, o);
}

void skn__cor(const skn_skin_job *job, uint32_t first, uint32_t end) {
  skn__each_vertex(job, first, end, cor_or_lbs_vertex);
}
