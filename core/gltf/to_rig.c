/* to_rig.c — a validated glTF document's skinned primitive as a skn rig, and
 * its poses at time t (glTF 2.0 §3.7.3: jointMatrix = globalTransform(joint)
 * * inverseBindMatrix; the mesh node's own transform is not applied). */
#include "gltf.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Vertex index k of the primitive (its indices, or k itself). */
static uint32_t vertex_at(const skn_gltf *g, const gltf_primitive *p, uint32_t k) {
  uint32_t v = k;
  if (p->indices >= 0) skn__gltf_read_uint(g, (uint32_t)p->indices, k, &v);
  return v;
}

SKN_API skn_status skn_gltf_triangles(const skn_gltf *g, uint32_t primitive, uint32_t *dst, size_t dst_count) {
  if (!g || !dst) return skn__fail(SKN_ERR_INVALID_ARGUMENT, "gltf_triangles: gltf and dst are required");
  if (primitive >= g->skinned_count)
    return skn__fail(SKN_ERR_INDEX_OUT_OF_RANGE, "gltf_triangles: primitive %u >= %u skinned primitives", primitive,
                     g->skinned_count);
  const gltf_primitive *p = &g->primitives[g->skinned[primitive].primitive];
  uint32_t n = skn__gltf_triangle_count(g, p);
  if (dst_count < (size_t)n * 3)
    return skn__fail(SKN_ERR_INVALID_ARGUMENT, "gltf_triangles: dst_count %zu < 3 x %u triangles", dst_count, n);
  for (uint32_t t = 0; t < n; ++t) {
    uint32_t k[3];
    if (p->mode == 4) { /* TRIANGLES */
      k[0] = 3 * t, k[1] = 3 * t + 1, k[2] = 3 * t + 2;
    } else if (p->mode == 5) { /* TRIANGLE_STRIP: every other triangle flipped to keep the winding (§3.7.2.1) */
      k[0] = t, k[1] = t + 1 + t % 2, k[2] = t + 2 - t % 2;
    } else { /* TRIANGLE_FAN */
      k[0] = t + 1, k[1] = t + 2, k[2] = 0;
    }
    for (int c = 0; c < 3; ++c) dst[(size_t)t * 3 + c] = vertex_at(g, p, k[c]);
  }
  return SKN_OK;
}

/* The rig's parent of each joint: its nearest ancestor node that is also a joint. */
static void joint_parents(const skn_gltf *g, const gltf_skin *sk, int32_t *parents) {
  int32_t *joint_of = skn__alloc(g->node_count * sizeof *joint_of);
  for (uint32_t i = 0; joint_of && i < g->node_count; ++i) joint_of[i] = -1;
  for (uint32_t j = 0; joint_of && j < sk->joint_count; ++j) joint_of[sk->joints[j]] = (int32_t)j;
  for (uint32_t j = 0; j < sk->joint_count; ++j) {
    int32_t n = g->nodes[sk->joints[j]].parent;
    while (joint_of && n >= 0 && joint_of[n] < 0) n = g->nodes[n].parent;
    parents[j] = joint_of && n >= 0 ? joint_of[n] : -1;
  }
  skn__free(joint_of);
}

/* Everything skn_bind reads, in the primitive's accessor order. */
typedef struct gltf_arrays {
  int32_t *parents;
  float *inverse_bind, *positions, *normals, *tangents, *weights;
  uint32_t *joints, *triangles;
} gltf_arrays;

static void free_arrays(gltf_arrays *a) {
  skn__free(a->parents);
  skn__free(a->inverse_bind);
  skn__free(a->positions);
  skn__free(a->normals);
  skn__free(a->tangents);
  skn__free(a->weights);
  skn__free(a->joints);
  skn__free(a->triangles);
}

static int read_arrays(const skn_gltf *g, const gltf_skinned *sp, int with_triangles, gltf_arrays *a) {
  const gltf_primitive *p = &g->primitives[sp->primitive];
  const gltf_skin *sk = &g->skins[sp->skin];
  uint32_t n = g->accessors[p->position].count, k = 4 * p->set_count, J = sk->joint_count;
  uint32_t tris = with_triangles ? skn__gltf_triangle_count(g, p) : 0;
  a->parents = skn__alloc(J * sizeof *a->parents);
  a->inverse_bind = skn__alloc((size_t)J * 16 * sizeof(float));
  a->positions = skn__alloc((size_t)n * 3 * sizeof(float));
  a->normals = p->normal >= 0 ? skn__alloc((size_t)n * 3 * sizeof(float)) : NULL;
  a->tangents = p->tangent >= 0 ? skn__alloc((size_t)n * 4 * sizeof(float)) : NULL;
  a->joints = skn__alloc((size_t)n * k * sizeof(uint32_t));
  a->weights = skn__alloc((size_t)n * k * sizeof(float));
  a->triangles = tris ? skn__alloc((size_t)tris * 3 * sizeof(uint32_t)) : NULL;
  if (!a->parents || !a->inverse_bind || !a->positions || (p->normal >= 0 && !a->normals) ||
      (p->tangent >= 0 && !a->tangents) || !a->joints || !a->weights || (tris && !a->triangles))
    return 0;
  joint_parents(g, sk, a->parents);
  for (uint32_t j = 0; j < J; ++j) {
    float *m = a->inverse_bind + (size_t)j * 16;
    if (sk->inverse_bind >= 0) {
      skn__gltf_read_float(g, (uint32_t)sk->inverse_bind, j, m);
    } else {
      memset(m, 0, 16 * sizeof(float));
      m[0] = m[5] = m[10] = m[15] = 1;
    }
  }
  for (uint32_t v = 0; v < n; ++v) {
    skn__gltf_read_float(g, (uint32_t)p->position, v, a->positions + (size_t)v * 3);
    if (a->normals) skn__gltf_read_float(g, (uint32_t)p->normal, v, a->normals + (size_t)v * 3);
    if (a->tangents) skn__gltf_read_float(g, (uint32_t)p->tangent, v, a->tangents + (size_t)v * 4);
    for (uint32_t set = 0; set < p->set_count; ++set) { /* JOINTS_n / WEIGHTS_n merged: 4 per set */
      skn__gltf_read_uint(g, (uint32_t)p->joints[set], v, a->joints + (size_t)v * k + set * 4);
      skn__gltf_read_float(g, (uint32_t)p->weights[set], v, a->weights + (size_t)v * k + set * 4);
    }
  }
  if (tris) skn_gltf_triangles(g, (uint32_t)(sp - g->skinned), a->triangles, (size_t)tris * 3);
  return 1;
}

#define SKN_GLTF_BIND_DEFAULT_BYTES ((uint64_t)2 << 30)

/* What binding the primitive allocates, estimated from its counts before
 * anything is (skn.h, max_bytes): the arrays read from the document and the
 * rig's own (rig.c, pack.c), per vertex ~100 bytes of attributes and ~34 an
 * influence, and 12 a triangle where the centers need them. A document's
 * counts need not be backed by its bytes, so they are checked here. */
static skn_status check_budget(const skn_gltf *g, const skn_gltf_bind_desc *d, const gltf_primitive *p) {
  uint64_t n = g->accessors[p->position].count, k = 4u * p->set_count;
  uint64_t triangles = d->centers_of_rotation ? skn__gltf_triangle_count(g, p) : 0;
  uint64_t need = n * (100 + 34 * k) + 12 * triangles, cap = d->max_bytes ? d->max_bytes : SKN_GLTF_BIND_DEFAULT_BYTES;
  if (need <= cap) return SKN_OK;
  return skn__fail(SKN_ERR_UNSUPPORTED, "gltf_bind: primitive %u: %llu vertices of %llu influences%s take about %llu MB "
                   "to bind, over max_bytes (%llu MB): raise skn_gltf_bind_desc.max_bytes to bind it",
                   d->primitive, (unsigned long long)n, (unsigned long long)k, triangles ? " and their triangles" : "",
                   (unsigned long long)(need >> 20), (unsigned long long)(cap >> 20));
}

SKN_API skn_status skn_gltf_bind(const skn_gltf *g, const skn_gltf_bind_desc *caller, skn_rig **out_rig) {
  if (!g || !caller || !out_rig)
    return skn__fail(SKN_ERR_INVALID_ARGUMENT, "gltf_bind: gltf, desc and out_rig are required");
  if (caller->struct_size < SKN_GLTF_BIND_DESC_V1_SIZE)
    return skn__fail(SKN_ERR_INVALID_ARGUMENT, "gltf_bind: struct_size %u is smaller than %u", caller->struct_size,
                     SKN_GLTF_BIND_DESC_V1_SIZE);
  skn_gltf_bind_desc given; /* read only the fields the caller's struct has */
  memset(&given, 0, sizeof given);
  memcpy(&given, caller, SKN_MIN((size_t)caller->struct_size, sizeof given));
  const skn_gltf_bind_desc *desc = &given;
  if (desc->primitive >= g->skinned_count)
    return skn__fail(SKN_ERR_INDEX_OUT_OF_RANGE, "gltf_bind: primitive %u >= %u skinned primitives", desc->primitive,
                     g->skinned_count);
  const gltf_skinned *sp = &g->skinned[desc->primitive];
  const gltf_primitive *p = &g->primitives[sp->primitive];
  skn_status s = check_budget(g, desc, p);
  if (s != SKN_OK) return s;
  gltf_arrays a = {0};
  s = read_arrays(g, sp, desc->centers_of_rotation != 0, &a) ? SKN_OK
      : skn__fail(SKN_ERR_OUT_OF_MEMORY, "gltf_bind: out of memory");
  if (s == SKN_OK) {
    skn_bind_desc d;
    memset(&d, 0, sizeof d);
    d.struct_size = sizeof d;
    d.joint_count = g->skins[sp->skin].joint_count;
    d.parents = a.parents;
    d.inverse_bind_matrices = a.inverse_bind;
    d.vertex_count = g->accessors[p->position].count;
    d.positions.data = a.positions;
    d.normals.data = a.normals;
    d.tangents.data = a.tangents;
    d.influences_per_vertex = 4 * p->set_count;
    d.influence_joints = a.joints;
    d.influence_weights = a.weights;
    d.weight_mode = SKN_WEIGHTS_NORMALIZE;
    d.max_influences = desc->max_influences;
    d.min_weight = desc->min_weight;
    d.blend_weights = desc->blend_weights;
    d.layout = desc->layout;
    d.triangles = a.triangles;
    d.triangle_count = a.triangles ? skn__gltf_triangle_count(g, p) : 0;
    s = skn_bind(&d, out_rig);
  }
  free_arrays(&a);
  return s;
}

SKN_API skn_status skn_gltf_pose(const skn_gltf *g, uint32_t primitive, uint32_t animation, float time,
                                 skn_pose *pose) {
  if (!g || !pose) return skn__fail(SKN_ERR_INVALID_ARGUMENT, "gltf_pose: gltf and pose are required");
  if (primitive >= g->skinned_count)
    return skn__fail(SKN_ERR_INDEX_OUT_OF_RANGE, "gltf_pose: primitive %u >= %u skinned primitives", primitive,
                     g->skinned_count);
  if (animation != SKN_GLTF_NO_ANIMATION && animation >= g->animation_count)
    return skn__fail(SKN_ERR_INDEX_OUT_OF_RANGE, "gltf_pose: animation %u >= %u animations", animation,
                     g->animation_count);
  if (!isfinite(time)) return skn__fail(SKN_ERR_NOT_FINITE, "gltf_pose: time is not finite");
  const gltf_skin *sk = &g->skins[g->skinned[primitive].skin];
  if (pose->rig->joint_count != sk->joint_count)
    return skn__fail(SKN_ERR_INVALID_ARGUMENT, "gltf_pose: the pose's rig has %u joints, skins[%u] has %u",
                     pose->rig->joint_count, g->skinned[primitive].skin, sk->joint_count);
  float (*global)[16] = skn__alloc((g->node_count ? g->node_count : 1) * sizeof *global);
  float *joints = skn__alloc((size_t)sk->joint_count * 16 * sizeof(float));
  skn_status s = global && joints ? SKN_OK : skn__fail(SKN_ERR_OUT_OF_MEMORY, "gltf_pose: out of memory");
  if (s == SKN_OK) {
    skn__gltf_globals(g, animation, time, global);
    for (uint32_t j = 0; j < sk->joint_count; ++j) memcpy(joints + (size_t)j * 16, global[sk->joints[j]], 16 * sizeof(float));
    s = skn_pose_set_model(pose, 0, sk->joint_count, joints);
  }
  skn__free(global);
  skn__free(joints);
  return s;
}
