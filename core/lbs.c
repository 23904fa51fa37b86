/* lbs.c — linear blend skinning, the scalar reference kernels (the fast
 * paths are tested against these).
 *   matrix form:      v = sum w_i M_i v0, n = normalize(sum w_i M_i^-T n0)
 *   per-bone form:    v = sum w_i (b_i + s_i R_i v'_i), n = sum w_i s_i^-1 R_i n0
 * (Magnenat-Thalmann et al. 1988; equation numbers as in skn.h.) */
#include "internal.h"

#include "math/vec3.h"

#include <string.h>

static void store(char *base, size_t stride, uint32_t v, const float *x, size_t n) {
  memcpy(base + (size_t)v * stride, x, n * sizeof(float));
}

void skn__write_rest(const skn_skin_job *job, uint32_t v) {
  const skn_rig *rig = job->rig;
  store(job->positions, job->position_stride, v, rig->positions + (size_t)v * 3, 3);
  if (job->normals) {
    float n[3] = {rig->normals[v * 3], rig->normals[v * 3 + 1], rig->normals[v * 3 + 2]};
    skn_v3_normalize(n);
    store(job->normals, job->normal_stride, v, n, 3);
  }
  if (job->tangents) {
    float t[4];
    memcpy(t, rig->tangents + (size_t)v * 4, sizeof t);
    skn_v3_normalize(t);
    store(job->tangents, job->tangent_stride, v, t, 4);
  }
}

/* Tangent xyz by the blended 3x3 (rows with stride rs), w negated where that
 * 3x3 mirrors (negative determinant): the bitangent must follow the mirror. */
static void write_tangent(const skn_skin_job *job, uint32_t v, const float *a, int rs) {
  const float *t0 = job->rig->tangents + (size_t)v * 4;
  float t[4];
  skn_v3_mul_rows(t, a, rs, t0);
  skn_v3_normalize(t);
  t[3] = skn_rows_det3(a, rs) < 0.0f ? -t0[3] : t0[3];
  store(job->tangents, job->tangent_stride, v, t, 4);
}

void skn__lbs_matrix(const skn_skin_job *job, uint32_t first, uint32_t end) {
  const skn_rig *rig = job->rig;
  const skn_joint_xform *xf = job->pose->xforms;
  for (uint32_t v = first; v < end; ++v) {
    uint32_t lo = rig->influence_offsets[v], hi = rig->influence_offsets[v + 1];
    if (lo == hi) {
      skn__write_rest(job, v);
      continue;
    }
    float a[12] = {0}, nm[9] = {0}, p[3];
    for (uint32_t i = lo; i < hi; ++i) {
      const skn_joint_xform *x = &xf[rig->influence_joints[i]];
      float w = rig->influence_weights[i];
      for (int e = 0; e < 12; ++e) a[e] += w * x->m[e];
      if (job->normals)
        for (int e = 0; e < 9; ++e) nm[e] += w * x->n[e];
    }
    const float *v0 = rig->positions + (size_t)v * 3;
    for (int r = 0; r < 3; ++r) p[r] = a[r * 4] * v0[0] + a[r * 4 + 1] * v0[1] + a[r * 4 + 2] * v0[2] + a[r * 4 + 3];
    store(job->positions, job->position_stride, v, p, 3);
    if (job->normals) {
      float n[3];
      skn_v3_mul_rows(n, nm, 3, rig->normals + (size_t)v * 3);
      skn_v3_normalize(n);
      store(job->normals, job->normal_stride, v, n, 3);
    }
    if (job->tangents) write_tangent(job, v, a, 4);
  }
}

void skn__lbs_quaternion(const skn_skin_job *job, uint32_t first, uint32_t end) {
  const skn_rig *rig = job->rig;
  const skn_joint_xform *xf = job->pose->xforms;
  for (uint32_t v = first; v < end; ++v) {
    uint32_t lo = rig->influence_offsets[v], hi = rig->influence_offsets[v + 1];
    if (lo == hi) {
      skn__write_rest(job, v);
      continue;
    }
    float p[3] = {0}, n[3] = {0}, a[9] = {0}, r[3];
    const float *n0 = job->normals ? rig->normals + (size_t)v * 3 : NULL;
    for (uint32_t i = lo; i < hi; ++i) {
      const skn_joint_xform *x = &xf[rig->influence_joints[i]];
      float w = rig->influence_weights[i];
      skn_quat_rotate(r, x->q, rig->bone_offsets + (size_t)i * 3); /* R_i v'_i */
      for (int c = 0; c < 3; ++c) p[c] += w * (x->b[c] + x->s * r[c]);
      if (n0) {
        skn_quat_rotate(r, x->q, n0);
        for (int c = 0; c < 3; ++c) n[c] += (w / x->s) * r[c];
      }
      if (job->tangents) /* the blended 3x3 sum w_i s_i R_i, column by column */
        for (int c = 0; c < 3; ++c) {
          float e[3] = {c == 0, c == 1, c == 2};
          skn_quat_rotate(r, x->q, e);
          for (int row = 0; row < 3; ++row) a[row * 3 + c] += w * x->s * r[row];
        }
    }
    store(job->positions, job->position_stride, v, p, 3);
    if (n0) {
      skn_v3_normalize(n);
      store(job->normals, job->normal_stride, v, n, 3);
    }
    if (job->tangents) write_tangent(job, v, a, 3);
  }
}
