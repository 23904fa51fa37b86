/* dqs.c — dual quaternion skinning and its per-vertex blend with LBS, the
 * scalar reference kernels.
 *
 * DQS (Kavan, Collins, Žára, O'Sullivan 2008, "Geometric Skinning with
 * Approximate Dual Quaternion Blending", §3-4): each M_i is split into a
 * rigid part (a unit dual quaternion q_i) and a bind-space scale/shear S_i
 * with M_i = rigid_i S_i (palette.c). Per vertex:
 *   S = sum w_i S_i / sum w_i                (scale/shear blended linearly, §4.1)
 *   b = sum +-w_i q_i,  c = b / |b.real|     (dual quaternion linear blending)
 *   v = c (S v0),  n = R(c) S^-T n0,  t = R(c) S t0
 * Antipodality: q_i is negated when its real part's dot product with the
 * running sum of the influences before it (in bind's order) is negative —
 * Blender's rule, which makes skn agree with "Preserve Volume" near 180°. */
#include "internal.h"

#include "math/dualquat.h"
#include "math/vec3.h"

#include <string.h>

/* The blended rigid part of vertex v: c0 (real) and ce (dual), normalized;
 * the blended S into s (rows of 3x4); returns 1 if any influence is scaled. */
static int blend_dq(const skn_skin_job *job, uint32_t v, float c0[4], float ce[4], float s[12]) {
  const skn_rig *rig = job->rig;
  uint32_t lo = rig->influence_offsets[v], hi = rig->influence_offsets[v + 1];
  float b0[4] = {0}, be[4] = {0}, wsum = 0;
  int scaled = 0;
  memset(s, 0, 12 * sizeof(float));
  for (uint32_t i = lo; i < hi; ++i) {
    const float *d = SKN_DQ_ENTRY(job->pose, job->split, rig->influence_joints[i]);
    const float *real = d + SKN_DQ_REAL, *dual = d + SKN_DQ_DUAL;
    float w = rig->influence_weights[i];
    float dot = b0[0] * real[0] + b0[1] * real[1] + b0[2] * real[2] + b0[3] * real[3];
    float sw = dot < 0.0f ? -w : w;
    for (int k = 0; k < 4; ++k) {
      b0[k] += sw * real[k];
      be[k] += sw * dual[k];
    }
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 4; ++c) s[r * 4 + c] += w * d[SKN_DQ_S + 4 * c + r];
    scaled |= d[SKN_DQ_SCALED] != 0.0f;
    wsum += w;
  }
  float inv = 1.0f / sqrtf(b0[0] * b0[0] + b0[1] * b0[1] + b0[2] * b0[2] + b0[3] * b0[3]);
  for (int k = 0; k < 4; ++k) {
    c0[k] = b0[k] * inv;
    ce[k] = be[k] * inv;
  }
  for (int e = 0; e < 12; ++e) s[e] /= wsum;
  return scaled;
}

void skn__dqs_vertex(const skn_skin_job *job, uint32_t v, skn_vertex_out *o) {
  float c0[4], ce[4], s[12], x[3], t[3];
  int scaled = blend_dq(job, v, c0, ce, s);
  const float *v0 = SKN_REST_P(job, v);
  if (scaled)
    for (int r = 0; r < 3; ++r) x[r] = s[r * 4] * v0[0] + s[r * 4 + 1] * v0[1] + s[r * 4 + 2] * v0[2] + s[r * 4 + 3];
  else
    memcpy(x, v0, sizeof x);
  skn_quat_rotate(o->p, c0, x);
  skn_dq_translation(t, c0, ce);
  for (int c = 0; c < 3; ++c) o->p[c] += t[c];
  if (job->normals) {
    memcpy(x, SKN_REST_N(job, v), sizeof x);
    if (scaled) skn_v3_normal_transform(x, s, 4);
    skn_quat_rotate(o->n, c0, x);
    skn_v3_normalize(o->n);
  }
  if (job->tangents) {
    const float *t0 = SKN_REST_T(job, v);
    if (scaled)
      skn_v3_mul_rows(x, s, 4, t0);
    else
      memcpy(x, t0, sizeof x);
    skn_quat_rotate(o->t, c0, x);
    skn_v3_normalize(o->t);
    o->t[3] = scaled && skn_rows_det3(s, 4) < 0.0f ? -t0[3] : t0[3];
  }
}

void skn__dqs(const skn_skin_job *job, uint32_t first, uint32_t end) {
  skn__each_vertex(job, first, end, skn__dqs_vertex);
}

/* v = (1 - b) LBS + b DQS (Maya's "Weight Blended"); normals and tangent
 * xyz blended the same way and renormalized; tangent w from the method
 * with the larger share. */
static void blend_vertex(const skn_skin_job *job, uint32_t v, skn_vertex_out *o) {
  float b = job->rig->blend_weights[v];
  skn_vertex_out d;
  if (b == 1.0f) {
    skn__dqs_vertex(job, v, o);
    return;
  }
  skn__lbs_vertex(job, v, o);
  if (b == 0.0f) return;
  skn__dqs_vertex(job, v, &d);
  for (int c = 0; c < 3; ++c) {
    o->p[c] += b * (d.p[c] - o->p[c]);
    o->n[c] += b * (d.n[c] - o->n[c]);
    o->t[c] += b * (d.t[c] - o->t[c]);
  }
  if (job->normals) skn_v3_normalize(o->n);
  if (job->tangents) {
    skn_v3_normalize(o->t);
    if (b >= 0.5f) o->t[3] = d.t[3];
  }
}

void skn__blend(const skn_skin_job *job, uint32_t first, uint32_t end) {
  skn__each_vertex(job, first, end, blend_vertex);
}
