/* lbs.c — linear blend skinning, the scalar reference kernels (the fast
 * paths are tested against these).
 *   matrix form:      v = sum w_i M_i v0, n = normalize(sum w_i M_i^-T n0)
 *   per-bone form:    v = sum w_i (b_i + s_i R_i v'_i), n = sum w_i s_i^-1 R_i n0
 * (Magnenat-Thalmann et al. 1988; equation numbers as in skn.h.) */
#include "internal.h"

#include "math/vec3.h"

#include <string.h>

void skn__store_vertex(const skn_skin_job *job, uint32_t v, const skn_vertex_out *o) {
  memcpy(job->positions + (size_t)v * job->position_stride, o->p, sizeof o->p);
  if (job->normals) memcpy(job->normals + (size_t)v * job->normal_stride, o->n, sizeof o->n);
  if (job->tangents) memcpy(job->tangents + (size_t)v * job->tangent_stride, o->t, sizeof o->t);
}

void skn__rest_vertex(const skn_skin_job *job, uint32_t v, skn_vertex_out *o) {
  memcpy(o->p, SKN_REST_P(job, v), sizeof o->p);
  if (job->normals) {
    memcpy(o->n, SKN_REST_N(job, v), sizeof o->n);
    skn_v3_normalize(o->n);
  }
  if (job->tangents) {
    memcpy(o->t, SKN_REST_T(job, v), sizeof o->t);
    skn_v3_normalize(o->t);
  }
}

/* Tangent xyz by the blended 3x3 (rows with stride rs), w negated where that
 * 3x3 mirrors (negative determinant): the bitangent must follow the mirror. */
static void blend_tangent(const skn_skin_job *job, uint32_t v, const float *a, int rs, float t[4]) {
  const float *t0 = SKN_REST_T(job, v);
  skn_v3_mul_rows(t, a, rs, t0);
  skn_v3_normalize(t);
  t[3] = skn_rows_det3(a, rs) < 0.0f ? -t0[3] : t0[3];
}

void skn__lbs_vertex(const skn_skin_job *job, uint32_t v, skn_vertex_out *o) {
  const skn_rig *rig = job->rig;
  uint32_t lo = rig->influence_offsets[v], hi = rig->influence_offsets[v + 1];
  float a[12] = {0}, nm[9] = {0};
  for (uint32_t i = lo; i < hi; ++i) {
    uint32_t j = rig->influence_joints[i];
    float w = rig->influence_weights[i];
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 4; ++c) {
        a[r * 4 + c] += w * SKN_POSE_M(job->pose, j, r, c);
        if (job->normals && c < 3) nm[r * 3 + c] += w * SKN_POSE_N(job->pose, j, r, c);
      }
  }
  const float *v0 = SKN_REST_P(job, v);
  for (int r = 0; r < 3; ++r) o->p[r] = a[r * 4] * v0[0] + a[r * 4 + 1] * v0[1] + a[r * 4 + 2] * v0[2] + a[r * 4 + 3];
  if (job->normals) {
    skn_v3_mul_rows(o->n, nm, 3, SKN_REST_N(job, v));
    skn_v3_normalize(o->n);
  }
  if (job->tangents) blend_tangent(job, v, a, 4, o->t);
}

void skn__each_vertex(const skn_skin_job *job, uint32_t first, uint32_t end, skn_vertex_fn vertex) {
  const uint32_t *off = job->rig->influence_offsets;
  for (uint32_t v = first; v < end; ++v) {
    skn_vertex_out o;
    if (off[v] == off[v + 1])
      skn__rest_vertex(job, v, &o);
    else
      vertex(job, v, &o);
    skn__store_vertex(job, v, &o);
  }
}

void skn__lbs_matrix(const skn_skin_job *job, uint32_t first, uint32_t end) {
  skn__each_vertex(job, first, end, skn__lbs_vertex);
}

static void lbs_quaternion_vertex(const skn_skin_job *job, uint32_t v, skn_vertex_out *o) {
  const skn_rig *rig = job->rig;
  const skn_joint_xform *xf = job->pose->xforms;
  uint32_t lo = rig->influence_offsets[v], hi = rig->influence_offsets[v + 1];
  float a[9] = {0}, r[3];
  const float *n0 = job->normals ? SKN_REST_N(job, v) : NULL, *v0 = SKN_REST_P(job, v);
  memset(o, 0, sizeof *o);
  for (uint32_t i = lo; i < hi; ++i) {
    uint32_t j = rig->influence_joints[i];
    const skn_joint_xform *x = &xf[j];
    float w = rig->influence_weights[i], d[3];
    for (int c = 0; c < 3; ++c) d[c] = v0[c] - rig->bind[j][12 + c]; /* v'_i = v0 - c_i, c_i the bind origin */
    skn_quat_rotate(r, x->q, d); /* R_i v'_i */
    for (int c = 0; c < 3; ++c) o->p[c] += w * (x->b[c] + x->s * r[c]);
    if (job->normals) {
      skn_quat_rotate(r, x->q, n0);
      for (int c = 0; c < 3; ++c) o->n[c] += (w / x->s) * r[c];
    }
    if (job->tangents) /* the blended 3x3 sum w_i s_i R_i, column by column */
      for (int c = 0; c < 3; ++c) {
        float e[3] = {c == 0, c == 1, c == 2};
        skn_quat_rotate(r, x->q, e);
        for (int row = 0; row < 3; ++row) a[row * 3 + c] += w * x->s * r[row];
      }
  }
  if (job->normals) skn_v3_normalize(o->n);
  if (job->tangents) blend_tangent(job, v, a, 3, o->t);
}

void skn__lbs_quaternion(const skn_skin_job *job, uint32_t first, uint32_t end) {
  skn__each_vertex(job, first, end, lbs_quaternion_vertex);
}
