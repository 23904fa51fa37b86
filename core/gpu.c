/* gpu.c — skinning on the GPU, the host's half: a skn_gpu_desc resolved
 * into the palette's layout (skn_gpu_layout_get), the palette of a pose in
 * that layout (skn_pose_gpu_palette) and the rig's per-vertex inputs
 * (skn_rig_gpu_attributes). The shader that reads them is glsl.c's; it does
 * the arithmetic of lbs.c, dqs.c and cor.c, so the palette carries the same
 * per-joint forms the CPU kernels read (internal.h). */
#include "gpu.h"

#include <math.h>
#include <string.h>

static skn_status check_stage(const skn_gpu_desc *d, const char *call) {
  int modern = d->dialect == SKN_GLSL_430 || d->dialect == SKN_GLSL_310_ES;
  int es = d->dialect == SKN_GLSL_300_ES || d->dialect == SKN_GLSL_310_ES;
  uint32_t compute_only = SKN_GLSL_PREVIOUS | SKN_GLSL_MORPH_PASS;
  if ((d->flags & SKN_GLSL_COMPUTE) && !modern)
    return skn__fail(SKN_ERR_INVALID_ARGUMENT, "%s: SKN_GLSL_COMPUTE needs dialect SKN_GLSL_430 or SKN_GLSL_310_ES "
                     "(compute shaders and storage buffers)", call);
  if (!(d->flags & SKN_GLSL_COMPUTE) && (d->flags & compute_only))
    return skn__fail(SKN_ERR_INVALID_ARGUMENT, "%s: flags 0x%x: PREVIOUS and MORPH_PASS are the compute shader's; "
                     "add SKN_GLSL_COMPUTE", call, d->flags);
  if (d->flags & SKN_GLSL_COMPUTE) return SKN_OK; /* any influences, the palette in a storage buffer */
  if (d->influences % 4 || d->influences > SKN_GPU_VERTEX_INFLUENCES)
    return skn__fail(SKN_ERR_INVALID_ARGUMENT, "%s: influences %u: the vertex shader reads 4, 8, 12 or 16 a vertex "
                     "(the compute shader, SKN_GLSL_COMPUTE, any number)", call, d->influences);
  if (es && d->palette == SKN_GLSL_PALETTE_TEXTURE_BUFFER)
    return skn__fail(SKN_ERR_INVALID_ARGUMENT, "%s: GLSL ES has no texture buffers here; use "
                     "SKN_GLSL_PALETTE_TEXTURE_2D", call);
  if (!modern && d->palette == SKN_GLSL_PALETTE_STORAGE_BUFFER)
    return skn__fail(SKN_ERR_INVALID_ARGUMENT, "%s: a storage buffer palette needs dialect SKN_GLSL_430 or "
                     "SKN_GLSL_310_ES", call);
  if ((d->flags & SKN_GLSL_MORPHS) && (!d->joint_count || !d->morph_target_count))
    return skn__fail(SKN_ERR_INVALID_ARGUMENT, "%s: a vertex shader with SKN_GLSL_MORPHS needs joint_count and "
                     "morph_target_count (the weights follow the joints in the palette)", call);
  return SKN_OK;
}

static skn_status check_desc(const skn_gpu_desc *d, const char *call) {
  if ((unsigned)d->method > SKN_METHOD_COR)
    return skn__fail(SKN_ERR_INVALID_ARGUMENT, "%s: method %u is not a skn_method", call, (unsigned)d->method);
  if ((unsigned)d->dqs_scale > SKN_DQS_SCALE_KEEP_Y)
    return skn__fail(SKN_ERR_INVALID_ARGUMENT, "%s: dqs_scale %u is not a skn_dqs_scale", call,
                     (unsigned)d->dqs_scale);
  if (d->outputs & ~(uint32_t)(SKN_GPU_NORMALS | SKN_GPU_TANGENTS))
    return skn__fail(SKN_ERR_INVALID_ARGUMENT, "%s: outputs 0x%x has bits other than SKN_GPU_NORMALS and "
                     "SKN_GPU_TANGENTS", call, d->outputs);
  if ((unsigned)d->dialect > SKN_GLSL_310_ES)
    return skn__fail(SKN_ERR_INVALID_ARGUMENT, "%s: dialect %u is not a skn_glsl_dialect", call,
                     (unsigned)d->dialect);
  if ((unsigned)d->palette > SKN_GLSL_PALETTE_STORAGE_BUFFER)
    return skn__fail(SKN_ERR_INVALID_ARGUMENT, "%s: palette %u is not a skn_glsl_palette", call,
                     (unsigned)d->palette);
  uint32_t known = SKN_GLSL_NO_VERSION | SKN_GLSL_COMPUTE | SKN_GLSL_MORPHS | SKN_GLSL_PREVIOUS | SKN_GLSL_MORPH_PASS;
  if (d->flags & SKN_GLSL_VAT_PLAYER)
    return skn__fail(SKN_ERR_INVALID_ARGUMENT, "%s: SKN_GLSL_VAT_PLAYER is skn_glsl_source's alone", call);
  if (d->flags & ~known)
    return skn__fail(SKN_ERR_INVALID_ARGUMENT, "%s: flags 0x%x has bits that are not SKN_GLSL_*", call, d->flags);
  return check_stage(d, call);
}

/* The compute shader's records: the rest record holds what the method and
 * outputs read, the output record what the host draws. */
static void plan_records(skn_gpu_plan *p) {
  const skn_gpu_desc *d = &p->d;
  p->rest_normal = p->rest_tangent = p->rest_blend = p->rest_center = -1;
  p->out_normal = p->out_tangent = p->out_previous = -1;
  uint32_t w = 4; /* a morph entry: the vertex (target) or stamp, the position's offset */
  p->morph_normal = p->morph_tangent = -1;
  if (d->outputs & SKN_GPU_NORMALS) p->morph_normal = (int)w, w += 3;
  if (d->outputs & SKN_GPU_TANGENTS) p->morph_tangent = (int)w, w += 3;
  p->morph_words = w;
  if ((d->flags & SKN_GLSL_MORPHS) && !p->compute) p->morph_vec4s = (d->morph_target_count + 3) / 4;
  if (!p->compute) return;
  uint32_t r = 3, o = 3;
  if (d->outputs & SKN_GPU_NORMALS) p->rest_normal = (int)r, r += 3, p->out_normal = (int)o, o += 3;
  if (d->outputs & SKN_GPU_TANGENTS) p->rest_tangent = (int)r, r += 4, p->out_tangent = (int)o, o += 4;
  if (d->method == SKN_METHOD_BLEND) p->rest_blend = (int)r, r += 1;
  if (d->method == SKN_METHOD_COR) p->rest_center = (int)r, r += 4;
  if (d->flags & SKN_GLSL_PREVIOUS) p->out_previous = (int)o, o += 3;
  p->rest_floats = r, p->out_floats = o;
}

skn_status skn__gpu_plan(const skn_gpu_desc *desc, const char *call, skn_gpu_plan *plan) {
  if (!desc) return skn__fail(SKN_ERR_INVALID_ARGUMENT, "%s: desc is required", call);
  if (desc->struct_size < SKN_GPU_DESC_V1_SIZE)
    return skn__fail(SKN_ERR_INVALID_ARGUMENT, "%s: struct_size %u is smaller than skn_gpu_desc (%u)", call,
                     desc->struct_size, SKN_GPU_DESC_V1_SIZE);
  skn_gpu_plan p;
  memset(&p, 0, sizeof p);
  memcpy(&p.d, desc, SKN_MIN((size_t)desc->struct_size, sizeof p.d));
  if (!p.d.influences) p.d.influences = 4;
  skn_status s = check_desc(&p.d, call);
  if (s != SKN_OK) return s;
  int normals = (p.d.outputs & SKN_GPU_NORMALS) != 0;
  p.dq = p.lbs = p.normal = p.quat = -1;
  switch (p.d.method) {
  case SKN_METHOD_LBS_MATRIX: p.lbs = 0; break;
  case SKN_METHOD_LBS_QUATERNION: p.quat = 0; break;
  case SKN_METHOD_DQS: p.dq = 0; break;
  default: p.dq = 0, p.lbs = 5; break; /* BLEND and COR: DQS's forms and LBS's matrices */
  }
  p.vec4s = p.quat >= 0 ? 2 : p.lbs >= 0 ? (uint32_t)p.lbs + 3 : 5;
  if (p.lbs >= 0 && normals) p.normal = (int)p.vec4s, p.vec4s += 3; /* LBS serves normals by N_i */
  p.compute = (p.d.flags & SKN_GLSL_COMPUTE) != 0;
  if (p.compute) p.d.palette = SKN_GLSL_PALETTE_STORAGE_BUFFER;
  plan_records(&p);
  *plan = p;
  return SKN_OK;
}

SKN_API skn_status skn_gpu_layout_get(const skn_gpu_desc *desc, skn_gpu_layout *out) {
  skn_gpu_plan p;
  skn_status s = skn__gpu_plan(desc, "gpu_layout_get", &p);
  if (s != SKN_OK) return s;
  if (!out) return skn__fail(SKN_ERR_INVALID_ARGUMENT, "gpu_layout_get: out is required");
  uint32_t needs = p.d.method == SKN_METHOD_BLEND ? SKN_GPU_NEEDS_BLEND_WEIGHTS
                   : p.d.method == SKN_METHOD_COR ? SKN_GPU_NEEDS_CENTERS : 0;
  skn_gpu_layout layout = {sizeof layout, p.vec4s, needs, 0, 0, 0, 0, 0, 0, 0};
  if (p.compute || (p.d.flags & SKN_GLSL_MORPHS)) layout.morph_words = p.morph_words;
  layout.morph_vec4s = p.morph_vec4s;
  if (p.compute) {
    uint32_t absent = SKN_GPU_ABSENT;
    layout.rest_floats = p.rest_floats;
    layout.output_floats = p.out_floats;
    layout.output_normal = p.out_normal >= 0 ? (uint32_t)p.out_normal : absent;
    layout.output_tangent = p.out_tangent >= 0 ? (uint32_t)p.out_tangent : absent;
    layout.output_previous = p.out_previous >= 0 ? (uint32_t)p.out_previous : absent;
  }
  return skn__fill_info(out, &layout, sizeof layout, SKN_GPU_LAYOUT_V1_SIZE, "gpu_layout_get");
}

/* ---- the palette ---- */

/* LBS_QUATERNION's joint j as M_j = [s R(q) | t]: t = b - s R(q) c, the
 * per-bone form v = b + s R (v0 - c) (lbs.c) with the bind origin c folded
 * into the translation, so that a joint takes two texels. */
static void quat_texels(const skn_pose *pose, uint32_t j, float *e) {
  const skn_joint_xform *x = &pose->xforms[j];
  const float *c = pose->rig->bind[j] + 12;
  double qx = x->q[0], qy = x->q[1], qz = x->q[2], qw = x->q[3], s = x->s;
  double r[9] = {1 - 2 * (qy * qy + qz * qz), 2 * (qx * qy - qz * qw), 2 * (qx * qz + qy * qw),
                 2 * (qx * qy + qz * qw), 1 - 2 * (qx * qx + qz * qz), 2 * (qy * qz - qx * qw),
                 2 * (qx * qz - qy * qw), 2 * (qy * qz + qx * qw), 1 - 2 * (qx * qx + qy * qy)};
  memcpy(e, x->q, 4 * sizeof(float));
  for (int row = 0; row < 3; ++row)
    e[4 + row] = (float)(x->b[row] - s * (r[row * 3] * c[0] + r[row * 3 + 1] * c[1] + r[row * 3 + 2] * c[2]));
  e[7] = x->s;
}

/* Joint j's texels at e, as the plan lays them out. */
static void joint_texels(const skn_pose *pose, const skn_gpu_plan *p, uint32_t j, float *e) {
  if (p->quat >= 0) quat_texels(pose, j, e + 4 * p->quat);
  if (p->dq >= 0) {
    const float *q = SKN_DQ_ENTRY(pose, p->d.dqs_scale, j);
    float *t = e + 4 * p->dq;
    memcpy(t, q + SKN_DQ_REAL, 8 * sizeof(float)); /* real, dual */
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 4; ++c) t[8 + r * 4 + c] = q[SKN_DQ_S + 4 * c + r];
  }
  for (int r = 0; p->lbs >= 0 && r < 3; ++r)
    for (int c = 0; c < 4; ++c) e[4 * p->lbs + r * 4 + c] = SKN_POSE_M(pose, j, r, c);
  for (int r = 0; p->normal >= 0 && r < 3; ++r)
    for (int c = 0; c < 4; ++c) e[4 * p->normal + r * 4 + c] = c < 3 ? SKN_POSE_N(pose, j, r, c) : 0.0f;
}

SKN_API skn_status skn_pose_gpu_palette(const skn_pose *pose, const skn_gpu_desc *desc, void *dst,
                                        size_t dst_bytes) {
  skn_gpu_plan p;
  skn_status s = skn__gpu_plan(desc, "pose_gpu_palette", &p);
  if (s != SKN_OK) return s;
  if (!pose || !dst) return skn__fail(SKN_ERR_INVALID_ARGUMENT, "pose_gpu_palette: pose and dst are required");
  const skn_rig *rig = pose->rig;
  size_t entry = (size_t)p.vec4s * 4 * sizeof(float), need = entry * rig->joint_count + (size_t)p.morph_vec4s * 16;
  if (dst_bytes < need)
    return skn__fail(SKN_ERR_INVALID_ARGUMENT, "pose_gpu_palette: dst_bytes %zu is smaller than %u joints x %zu "
                     "(+ %u vec4 of morph weights) = %zu", dst_bytes, rig->joint_count, entry, p.morph_vec4s, need);
  if (p.morph_vec4s && (p.d.morph_target_count != rig->morph_count || p.d.joint_count != rig->joint_count))
    return skn__fail(SKN_ERR_INVALID_ARGUMENT, "pose_gpu_palette: desc is for %u joints and %u morph targets, the rig "
                     "has %u and %u", p.d.joint_count, p.d.morph_target_count, rig->joint_count, rig->morph_count);
  if (p.d.palette == SKN_GLSL_PALETTE_UNIFORM_BLOCK && p.d.joint_count && p.d.joint_count < rig->joint_count)
    return skn__fail(SKN_ERR_INVALID_ARGUMENT, "pose_gpu_palette: the uniform block holds %u joints, the rig "
                     "has %u", p.d.joint_count, rig->joint_count);
  if (p.quat >= 0) {
    skn__pose_derive(pose, SKN_FORMS_QUATERNION);
    if ((s = skn__check_similar(rig, pose)) != SKN_OK) return s;
  }
  if (p.dq >= 0) skn__pose_derive(pose, SKN_FORMS_DQ << p.d.dqs_scale);
  float *e = dst;
  for (uint32_t j = 0; j < rig->joint_count; ++j, e += p.vec4s * 4) joint_texels(pose, &p, j, e);
  if (p.morph_vec4s) { /* the weights after the joints, the last vec4 padded with 0 */
    memset(e, 0, (size_t)p.morph_vec4s * 16);
    memcpy(e, pose->morph_weights, (size_t)rig->morph_count * sizeof(float));
  }
  return SKN_OK;
}

/* ---- the per-vertex inputs ---- */

static skn_status check_output(skn_out_attrib a, size_t size, int bound, const char *name) {
  if (!a.data) return SKN_OK;
  if (!bound)
    return skn__fail(SKN_ERR_INVALID_ARGUMENT, "rig_gpu_attributes: %s requested but the rig was bound "
                     "without them", name);
  if (a.stride && a.stride < size)
    return skn__fail(SKN_ERR_INVALID_ARGUMENT, "rig_gpu_attributes: %s stride %u is smaller than one "
                     "element (%zu bytes)", name, a.stride, size);
  return SKN_OK;
}

static skn_status check_attributes(const skn_rig *rig, const skn_gpu_attributes *d) {
  if (d->influences % 4 || d->influences > SKN_GPU_VERTEX_INFLUENCES)
    return skn__fail(SKN_ERR_INVALID_ARGUMENT, "rig_gpu_attributes: influences %u: the GLSL reads 4, 8, 12 or 16 a "
                     "vertex", d->influences);
  if (d->joint_bits != 8 && d->joint_bits != 16)
    return skn__fail(SKN_ERR_INVALID_ARGUMENT, "rig_gpu_attributes: joint_bits %u is not 8 or 16", d->joint_bits);
  if (rig->joint_count > (1u << d->joint_bits))
    return skn__fail(SKN_ERR_INVALID_ARGUMENT, "rig_gpu_attributes: %u joints do not fit %u-bit indices",
                     rig->joint_count, d->joint_bits);
  size_t k = d->influences;
  skn_status s = check_output(d->joints, k * d->joint_bits / 8, 1, "joints");
  if (s == SKN_OK) s = check_output(d->weights, k * sizeof(float), 1, "weights");
  if (s == SKN_OK) s = check_output(d->blend_weights, sizeof(float), rig->blend_weights != NULL, "blend_weights");
  if (s == SKN_OK) s = check_output(d->centers, 4 * sizeof(float), rig->centers != NULL, "centers");
  if (s == SKN_OK) s = check_output(d->positions, 3 * sizeof(float), 1, "positions");
  if (s == SKN_OK) s = check_output(d->normals, 3 * sizeof(float), rig->normals != NULL, "normals");
  if (s == SKN_OK) s = check_output(d->tangents, 4 * sizeof(float), rig->tangents != NULL, "tangents");
  if (s == SKN_OK) s = check_output(d->morph_ranges, 2 * sizeof(uint32_t), rig->morph_count != 0, "morph_ranges");
  for (uint32_t v = 0; s == SKN_OK && v < rig->vertex_count; ++v) {
    uint32_t n = rig->influence_offsets[v + 1] - rig->influence_offsets[v];
    if (n > k)
      s = skn__fail(SKN_ERR_UNSUPPORTED, "rig_gpu_attributes: vertex %u has %u influences, more than %zu; bind "
                    "with max_influences = %zu", v, n, k, k);
  }
  return s;
}

/* The vertex shader's morph entries, vertex by vertex: first[v] is vertex
 * v's first (in ascending target order), first[vertex_count] the total.
 * NULL when out of memory. */
static uint32_t *vertex_morph_first(const skn_rig *rig) {
  uint32_t n = rig->vertex_count, *first = skn__calloc((size_t)n + 1, sizeof *first);
  if (!first) return NULL;
  for (uint32_t t = 0; t < rig->morph_count; ++t)
    for (uint32_t k = 0; k < rig->morphs[t].count; ++k) ++first[rig->morphs[t].vertices[k] + 1];
  for (uint32_t v = 0; v < n; ++v) first[v + 1] += first[v];
  return first;
}

/* Element v of an output with elements of `size` bytes. */
static char *out_at(skn_out_attrib a, size_t size, uint32_t v) {
  return (char *)a.data + (size_t)v * (a.stride ? a.stride : size);
}

static void write_influences(const skn_rig *rig, const skn_gpu_attributes *d, uint32_t v) {
  uint32_t k = d->influences, lo = rig->influence_offsets[v], n = rig->influence_offsets[v + 1] - lo;
  uint16_t joints[SKN_GPU_VERTEX_INFLUENCES] = {0};
  float weights[SKN_GPU_VERTEX_INFLUENCES] = {0};
  for (uint32_t s = 0; s < n; ++s) {
    joints[s] = (uint16_t)rig->influence_joints[lo + s];
    weights[s] = rig->influence_weights[lo + s];
  }
  if (d->joints.data && d->joint_bits == 16) memcpy(out_at(d->joints, k * 2, v), joints, k * 2);
  if (d->joints.data && d->joint_bits == 8)
    for (uint32_t s = 0; s < k; ++s) out_at(d->joints, k, v)[s] = (char)(uint8_t)joints[s];
  if (d->weights.data) memcpy(out_at(d->weights, k * sizeof(float), v), weights, k * sizeof(float));
}

static void write_vertex(const skn_rig *rig, const skn_gpu_attributes *d, uint32_t v) {
  write_influences(rig, d, v);
  if (d->blend_weights.data) memcpy(out_at(d->blend_weights, sizeof(float), v), &rig->blend_weights[v], sizeof(float));
  if (d->centers.data) {
    float c[4] = {0, 0, 0, rig->has_center[v] ? 1.0f : 0.0f};
    if (rig->has_center[v]) memcpy(c, rig->centers + (size_t)v * 3, 3 * sizeof(float));
    memcpy(out_at(d->centers, sizeof c, v), c, sizeof c);
  }
  if (d->positions.data) memcpy(out_at(d->positions, 12, v), rig->positions + (size_t)v * 3, 12);
  if (d->normals.data) memcpy(out_at(d->normals, 12, v), rig->normals + (size_t)v * 3, 12);
  if (d->tangents.data) memcpy(out_at(d->tangents, 16, v), rig->tangents + (size_t)v * 4, 16);
}

SKN_API skn_status skn_rig_gpu_attributes(const skn_rig *rig, const skn_gpu_attributes *out) {
  if (!rig || !out) return skn__fail(SKN_ERR_INVALID_ARGUMENT, "rig_gpu_attributes: rig and out are required");
  if (out->struct_size < SKN_GPU_ATTRIBUTES_V1_SIZE)
    return skn__fail(SKN_ERR_INVALID_ARGUMENT, "rig_gpu_attributes: struct_size %u is smaller than "
                     "skn_gpu_attributes (%u)", out->struct_size, SKN_GPU_ATTRIBUTES_V1_SIZE);
  skn_gpu_attributes d;
  memset(&d, 0, sizeof d);
  memcpy(&d, out, SKN_MIN((size_t)out->struct_size, sizeof d));
  if (!d.influences) d.influences = 4;
  if (!d.joint_bits) d.joint_bits = 16;
  skn_status s = check_attributes(rig, &d);
  if (s != SKN_OK) return s;
  uint32_t *first = d.morph_ranges.data ? vertex_morph_first(rig) : NULL;
  if (d.morph_ranges.data && !first)
    return skn__fail(SKN_ERR_OUT_OF_MEMORY, "rig_gpu_attributes: out of memory for the morph ranges");
  for (uint32_t v = 0; v < rig->vertex_count; ++v) {
    write_vertex(rig, &d, v);
    uint32_t range[2] = {first ? first[v] : 0, first ? first[v + 1] - first[v] : 0};
    if (first) memcpy(out_at(d.morph_ranges, sizeof range, v), range, sizeof range);
  }
  skn__free(first);
  return SKN_OK;
}

/* ---- the compute shader's buffers ---- */

static skn_status check_buffers(const skn_rig *rig, const skn_gpu_plan *p) {
  if (!p->compute && !(p->d.flags & SKN_GLSL_MORPHS))
    return skn__fail(SKN_ERR_INVALID_ARGUMENT, "rig_gpu_buffers: desc is a vertex shader's without SKN_GLSL_MORPHS: "
                     "it reads no buffer");
  if (!p->compute) return SKN_OK; /* the morph entries alone */
  if (p->rest_normal >= 0 && !rig->normals)
    return skn__fail(SKN_ERR_INVALID_ARGUMENT, "rig_gpu_buffers: desc asks normals; the rig was bound without them");
  if (p->rest_tangent >= 0 && !rig->tangents)
    return skn__fail(SKN_ERR_INVALID_ARGUMENT, "rig_gpu_buffers: desc asks tangents; the rig was bound without them");
  if (p->rest_blend >= 0 && !rig->blend_weights)
    return skn__fail(SKN_ERR_INVALID_ARGUMENT, "rig_gpu_buffers: BLEND needs the rig bound with blend_weights");
  if (p->rest_center >= 0 && !rig->centers)
    return skn__fail(SKN_ERR_INVALID_ARGUMENT, "rig_gpu_buffers: COR needs the rig bound with triangles");
  return SKN_OK;
}

static void write_rest(const skn_rig *rig, const skn_gpu_plan *p, float *rest) {
  for (uint32_t v = 0; v < rig->vertex_count; ++v, rest += p->rest_floats) {
    memcpy(rest, rig->positions + (size_t)v * 3, 12);
    if (p->rest_normal >= 0) memcpy(rest + p->rest_normal, rig->normals + (size_t)v * 3, 12);
    if (p->rest_tangent >= 0) memcpy(rest + p->rest_tangent, rig->tangents + (size_t)v * 4, 16);
    if (p->rest_blend >= 0) rest[p->rest_blend] = rig->blend_weights[v];
    if (p->rest_center >= 0) {
      float c[4] = {0, 0, 0, rig->has_center[v] ? 1.0f : 0.0f};
      if (rig->has_center[v]) memcpy(c, rig->centers + (size_t)v * 3, 12);
      memcpy(rest + p->rest_center, c, 16);
    }
  }
}

/* Offsets, then (joint, weight bits) pairs: the rig's own arrays. */
static void write_influences_csr(const skn_rig *rig, uint32_t *w) {
  uint32_t n = rig->vertex_count, total = rig->influence_offsets[n];
  memcpy(w, rig->influence_offsets, ((size_t)n + 1) * 4);
  for (uint32_t i = 0; i < total; ++i) {
    w[n + 1 + 2 * (size_t)i] = rig->influence_joints[i];
    memcpy(&w[n + 2 + 2 * (size_t)i], &rig->influence_weights[i], 4);
  }
}

/* Each entry: the vertex, the position's offset, and the normal's and
 * tangent's where the plan has room for them (zeros where the target has
 * none). */
static void write_morphs(const skn_rig *rig, const skn_gpu_plan *p, uint32_t *entries, uint32_t *first) {
  static const float zeros[3] = {0, 0, 0};
  uint32_t e = 0;
  for (uint32_t t = 0; t < rig->morph_count; ++t) {
    const skn_morph *m = &rig->morphs[t];
    if (first) first[t] = e;
    for (uint32_t k = 0; entries && k < m->count; ++k) {
      uint32_t *w = entries + (size_t)(e + k) * p->morph_words;
      w[0] = m->vertices[k];
      memcpy(w + 1, m->dp + (size_t)k * 3, 12);
      if (p->morph_normal >= 0) memcpy(w + p->morph_normal, m->dn ? m->dn + (size_t)k * 3 : zeros, 12);
      if (p->morph_tangent >= 0) memcpy(w + p->morph_tangent, m->dt ? m->dt + (size_t)k * 3 : zeros, 12);
    }
    e += m->count;
  }
  if (first) first[rig->morph_count] = e;
}

/* The vertex shader's entries: each vertex's, in ascending target order,
 * word 0 the target (write_morphs' layout otherwise). */
static skn_status write_vertex_morphs(const skn_rig *rig, const skn_gpu_plan *p, uint32_t *entries) {
  static const float zeros[3] = {0, 0, 0};
  uint32_t *next = vertex_morph_first(rig);
  if (!next) return skn__fail(SKN_ERR_OUT_OF_MEMORY, "rig_gpu_buffers: out of memory for the morph entries");
  for (uint32_t t = 0; t < rig->morph_count; ++t) {
    const skn_morph *m = &rig->morphs[t];
    for (uint32_t k = 0; k < m->count; ++k) {
      uint32_t *w = entries + (size_t)next[m->vertices[k]]++ * p->morph_words;
      w[0] = t;
      memcpy(w + 1, m->dp + (size_t)k * 3, 12);
      if (p->morph_normal >= 0) memcpy(w + p->morph_normal, m->dn ? m->dn + (size_t)k * 3 : zeros, 12);
      if (p->morph_tangent >= 0) memcpy(w + p->morph_tangent, m->dt ? m->dt + (size_t)k * 3 : zeros, 12);
    }
  }
  skn__free(next);
  return SKN_OK;
}

SKN_API skn_status skn_rig_gpu_buffers(const skn_rig *rig, const skn_gpu_desc *desc, skn_gpu_buffers *out) {
  skn_gpu_plan p;
  skn_status s = skn__gpu_plan(desc, "rig_gpu_buffers", &p);
  if (s != SKN_OK) return s;
  if (!rig || !out) return skn__fail(SKN_ERR_INVALID_ARGUMENT, "rig_gpu_buffers: rig and out are required");
  if (out->struct_size < sizeof *out)
    return skn__fail(SKN_ERR_INVALID_ARGUMENT, "rig_gpu_buffers: struct_size %u is smaller than skn_gpu_buffers (%zu)",
                     out->struct_size, sizeof *out);
  if ((s = check_buffers(rig, &p)) != SKN_OK) return s;
  uint32_t n = rig->vertex_count;
  if (!p.compute) { /* a vertex shader's: the entries, vertex by vertex */
    out->rest_bytes = out->influences_bytes = out->morph_first_bytes = 0;
    out->morph_entries_bytes = (size_t)rig->morph_entry_count * p.morph_words * 4;
    return out->morph_entries ? write_vertex_morphs(rig, &p, out->morph_entries) : SKN_OK;
  }
  out->rest_bytes = (size_t)n * p.rest_floats * sizeof(float);
  out->influences_bytes = ((size_t)n + 1 + 2 * (size_t)rig->influence_offsets[n]) * 4;
  out->morph_entries_bytes = (size_t)rig->morph_entry_count * p.morph_words * 4;
  out->morph_first_bytes = ((size_t)rig->morph_count + 1) * 4;
  if (out->rest) write_rest(rig, &p, out->rest);
  if (out->influences) write_influences_csr(rig, out->influences);
  write_morphs(rig, &p, out->morph_entries, out->morph_first);
  return SKN_OK;
}
