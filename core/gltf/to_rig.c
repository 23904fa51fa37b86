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

void skn__gltf_write_triangles(const skn_gltf *g, const gltf_primitive *p, uint32_t *dst) {
  uint32_t n = skn__gltf_triangle_count(g, p);
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
  skn__gltf_write_triangles(g, p, dst);
  return SKN_OK;
}

/* The rig's parent of each joint: its nearest ancestor node that is also a
 * joint. One pass over the nodes, parents first (node_order), whatever
 * the depth of the non-joint nodes between joints. 0: out of memory. */
int skn__gltf_joint_parents(const skn_gltf *g, const gltf_skin *sk, int32_t *parents) {
  int32_t *joint_of = skn__alloc((g->node_count ? g->node_count : 1) * sizeof *joint_of);
  int32_t *nearest = skn__alloc((g->node_count ? g->node_count : 1) * sizeof *nearest); /* a node's nearest joint
                                                                                           ancestor, itself excluded */
  if (joint_of && nearest) {
    for (uint32_t i = 0; i < g->node_count; ++i) joint_of[i] = -1;
    for (uint32_t j = 0; j < sk->joint_count; ++j) joint_of[sk->joints[j]] = (int32_t)j;
    for (uint32_t k = 0; k < g->node_count; ++k) {
      uint32_t n = g->node_order[k];
      int32_t p = g->nodes[n].parent;
      nearest[n] = p < 0 ? -1 : joint_of[p] >= 0 ? joint_of[p] : nearest[p];
    }
    for (uint32_t j = 0; j < sk->joint_count; ++j) parents[j] = nearest[sk->joints[j]];
  }
  int ok = joint_of && nearest;
  skn__free(joint_of);
  skn__free(nearest);
  return ok;
}

/* FNV-1a, 64 bits (Fowler, Noll, Vo): a fingerprint, not a defence
 * against a forger — a host that poses a rig with the wrong document errs,
 * it does not attack itself. */
static uint64_t fnv1a(uint64_t h, const void *data, size_t n) {
  const uint8_t *p = data;
  for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

/* What a rig bound from skin sk relies on when skn_gltf_pose sets it: its
 * joints (as nodes), their hierarchy (`parents`, skn__gltf_joint_parents') and their
 * inverse bind matrices. Documents whose skins agree in all three pose each
 * other's rigs right. Never 0, a rig's "not from glTF". */
static uint64_t skin_fingerprint(const skn_gltf *g, const gltf_skin *sk, const int32_t *parents) {
  uint64_t h = fnv1a(14695981039346656037ull, &sk->joint_count, sizeof sk->joint_count);
  for (uint32_t j = 0; j < sk->joint_count; ++j) {
    float m[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    if (sk->inverse_bind >= 0) skn__gltf_read_float(g, (uint32_t)sk->inverse_bind, j, m);
    h = fnv1a(h, &sk->joints[j], sizeof sk->joints[j]);
    h = fnv1a(h, &parents[j], sizeof parents[j]);
    h = fnv1a(h, m, sizeof m);
  }
  return h ? h : 1;
}

/* A morph target's entries as skn_bind takes them (skn_morph_target). */
typedef struct gltf_target {
  uint32_t *vertices;            /* NULL: dense */
  float *positions, *normals, *tangents;
} gltf_target;

/* Everything skn_bind reads, in the primitive's accessor order. */
typedef struct gltf_arrays {
  int32_t *parents;
  float *inverse_bind, *positions, *normals, *tangents, *weights;
  uint32_t *joints, *triangles;
  uint32_t target_count;
  gltf_target *targets;
  skn_morph_target *morphs;
  float *morph_weights;
} gltf_arrays;

static void free_arrays(gltf_arrays *a) {
  for (uint32_t t = 0; a->targets && t < a->target_count; ++t) {
    skn__free(a->targets[t].vertices);
    skn__free(a->targets[t].positions);
    skn__free(a->targets[t].normals);
    skn__free(a->targets[t].tangents);
  }
  skn__free(a->targets);
  skn__free(a->morphs);
  skn__free(a->morph_weights);
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
      (p->tangent >= 0 && !a->tangents) || !a->joints || !a->weights || (tris && !a->triangles) ||
      !skn__gltf_joint_parents(g, sk, a->parents))
    return 0;
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

/* Target t's entries: every vertex where one of its accessors has a
 * bufferView (dense), else the union of its sparse accessors' indices, in
 * ascending order (a bitmap of the vertices); *count, and the vertices
 * (NULL: dense). Returns 0 when out of memory. */
static int target_entries(const skn_gltf *g, const int32_t acc[3], uint32_t n, uint32_t **vertices, uint32_t *count) {
  *vertices = NULL;
  *count = n;
  for (int a = 0; a < 3; ++a)
    if (acc[a] >= 0 && g->accessors[acc[a]].view >= 0) return 1;
  uint8_t *bits = skn__calloc(((size_t)n + 7) / 8, 1);
  if (!bits) return 0;
  uint32_t total = 0;
  for (int a = 0; a < 3; ++a)
    for (uint32_t k = 0, m = acc[a] >= 0 ? skn__gltf_stored_count(g, (uint32_t)acc[a]) : 0; k < m; ++k) {
      uint32_t v = skn__gltf_stored_index(g, (uint32_t)acc[a], k);
      total += !(bits[v >> 3] >> (v & 7) & 1);
      bits[v >> 3] |= (uint8_t)(1u << (v & 7));
    }
  *vertices = skn__alloc((total ? total : 1) * sizeof **vertices);
  if (*vertices) {
    uint32_t e = 0;
    for (uint32_t v = 0; v < n; ++v)
      if (bits[v >> 3] >> (v & 7) & 1) (*vertices)[e++] = v;
  }
  skn__free(bits);
  *count = total;
  return *vertices != NULL;
}

/* The primitive's morph targets, and its node's (or mesh's) weights. An
 * offset the rest mesh has no attribute for (a NORMAL offset without
 * NORMAL) changes nothing and is left out. */
static int read_targets(const skn_gltf *g, const gltf_skinned *sp, gltf_arrays *a) {
  const gltf_primitive *p = &g->primitives[sp->primitive];
  uint32_t n = g->accessors[p->position].count, T = p->target_count;
  if (!T) return 1;
  a->targets = skn__calloc(T, sizeof *a->targets);
  a->morphs = skn__calloc(T, sizeof *a->morphs);
  a->morph_weights = skn__alloc(T * sizeof *a->morph_weights);
  if (!a->targets || !a->morphs || !a->morph_weights) return 0;
  a->target_count = T;
  skn__gltf_default_weights(g, sp, a->morph_weights);
  for (uint32_t t = 0; t < T; ++t) {
    const int32_t *acc = p->targets[t];
    gltf_target *gt = &a->targets[t];
    uint32_t count;
    int normals = acc[1] >= 0 && p->normal >= 0, tangents = acc[2] >= 0 && p->tangent >= 0;
    if (!target_entries(g, acc, n, &gt->vertices, &count)) return 0;
    gt->positions = skn__calloc((size_t)(count ? count : 1) * 3, sizeof(float));
    gt->normals = normals ? skn__alloc((size_t)(count ? count : 1) * 3 * sizeof(float)) : NULL;
    gt->tangents = tangents ? skn__alloc((size_t)(count ? count : 1) * 3 * sizeof(float)) : NULL;
    if (!gt->positions || (normals && !gt->normals) || (tangents && !gt->tangents)) return 0;
    for (uint32_t e = 0; e < count; ++e) {
      uint32_t v = gt->vertices ? gt->vertices[e] : e;
      if (acc[0] >= 0) skn__gltf_read_float(g, (uint32_t)acc[0], v, gt->positions + (size_t)e * 3);
      if (normals) skn__gltf_read_float(g, (uint32_t)acc[1], v, gt->normals + (size_t)e * 3);
      if (tangents) skn__gltf_read_float(g, (uint32_t)acc[2], v, gt->tangents + (size_t)e * 3);
    }
    a->morphs[t] = (skn_morph_target){count, gt->vertices, {gt->positions, 0}, {gt->normals, 0}, {gt->tangents, 0}};
  }
  return 1;
}

#define SKN_GLTF_BIND_DEFAULT_BYTES ((uint64_t)2 << 30)

/* What the morph targets take to bind: per entry 40 bytes read and as many
 * kept (morph.c), entries counted as target_entries counts them (at most). */
static uint64_t target_bytes(const skn_gltf *g, const gltf_primitive *p) {
  uint64_t n = g->accessors[p->position].count, bytes = 0;
  for (uint32_t t = 0; t < p->target_count; ++t) {
    uint64_t e = 0;
    int dense = 0;
    for (int a = 0; a < 3; ++a) {
      int32_t acc = p->targets[t][a];
      if (acc < 0) continue;
      dense |= g->accessors[acc].view >= 0;
      e += g->accessors[acc].sparse_count;
    }
    bytes += 80 * (dense || e > n ? n : e) + n / 8;
  }
  return bytes;
}

/* What binding the primitive allocates, estimated from its counts before
 * anything is (skn.h, max_bytes): the arrays read from the document and the
 * rig's own (rig.c, pack.c), per vertex ~100 bytes of attributes and ~34 an
 * influence, and 12 a triangle where the centers need them. A document's
 * counts need not be backed by its bytes, so they are checked here. */
static skn_status check_budget(const skn_gltf *g, const skn_gltf_bind_desc *d, const gltf_primitive *p) {
  uint64_t n = g->accessors[p->position].count, k = 4u * p->set_count;
  uint64_t triangles = d->centers_of_rotation ? skn__gltf_triangle_count(g, p) : 0;
  uint64_t need = n * (100 + 34 * k) + 12 * triangles + target_bytes(g, p);
  uint64_t cap = d->max_bytes ? d->max_bytes : SKN_GLTF_BIND_DEFAULT_BYTES;
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
  s = read_arrays(g, sp, desc->centers_of_rotation != 0, &a) && read_targets(g, sp, &a) ? SKN_OK
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
    d.morph_targets = a.morphs;
    d.morph_weights = a.morph_weights;
    d.morph_target_count = a.target_count;
    s = skn_bind(&d, out_rig);
    if (s == SKN_OK) (*out_rig)->gltf_skin = skin_fingerprint(g, &g->skins[sp->skin], a.parents);
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
  const gltf_skinned *sp = &g->skinned[primitive];
  const gltf_skin *sk = &g->skins[sp->skin];
  uint32_t targets = g->primitives[sp->primitive].target_count, rig_targets = pose->rig->morph_count;
  int32_t *parents = skn__alloc((sk->joint_count ? sk->joint_count : 1) * sizeof *parents);
  uint64_t fingerprint = parents && skn__gltf_joint_parents(g, sk, parents) ? skin_fingerprint(g, sk, parents) : 0;
  skn__free(parents);
  if (!fingerprint) return skn__fail(SKN_ERR_OUT_OF_MEMORY, "gltf_pose: out of memory");
  if (pose->rig->gltf_skin != fingerprint)
    return skn__fail(SKN_ERR_INVALID_ARGUMENT, "gltf_pose: the pose's rig was not bound from primitive %u's skins[%u] "
                     "(%s): pose a rig with the document it was bound from", primitive, sp->skin,
                     !pose->rig->gltf_skin ? "it was bound by skn_bind"
                     : pose->rig->joint_count != sk->joint_count ? "its joint count differs"
                     : "its joints, hierarchy or inverse bind matrices differ");
  if (rig_targets && rig_targets != targets) /* a rig bound without them: the weights have no use */
    return skn__fail(SKN_ERR_INVALID_ARGUMENT, "gltf_pose: the pose's rig has %u morph targets, primitive %u has %u",
                     rig_targets, primitive, targets);
  float (*global)[16] = skn__alloc((g->node_count ? g->node_count : 1) * sizeof *global);
  float *joints = skn__alloc((size_t)sk->joint_count * 16 * sizeof(float));
  float *weights = skn__alloc((rig_targets ? rig_targets : 1) * sizeof(float));
  skn_status s = global && joints && weights ? SKN_OK : skn__fail(SKN_ERR_OUT_OF_MEMORY, "gltf_pose: out of memory");
  if (s == SKN_OK) { /* every check is behind: the two sets below cannot fail */
    skn__gltf_globals(g, animation, time, global);
    for (uint32_t j = 0; j < sk->joint_count; ++j) memcpy(joints + (size_t)j * 16, global[sk->joints[j]], 16 * sizeof(float));
    if (rig_targets && !skn__gltf_animated_weights(g, animation, time, sp->node, rig_targets, weights))
      skn__gltf_default_weights(g, sp, weights);
    s = skn_pose_set_model(pose, 0, sk->joint_count, joints);
    if (s == SKN_OK && rig_targets) s = skn_pose_set_morph_weights(pose, 0, rig_targets, weights);
  }
  skn__free(global);
  skn__free(joints);
  skn__free(weights);
  return s;
}
