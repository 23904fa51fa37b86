/* validate.c — phase 3 of loading glTF 2.0: everything skinning relies on,
 * checked once, so that the readers after it index without checking:
 * every index in range, every accessor inside its buffer view and every
 * view inside its buffer, attribute types as glTF 2.0 §3.7.2.1 allows them,
 * a node hierarchy without cycles, joint indices inside their skin,
 * inverse-bind count >= joint count, non-negative finite weights (their
 * sums SHOULD be 1 by §3.7.3.3; skn normalizes them), strictly increasing
 * animation times. */
#include "gltf.h"

#include "../math/mat4.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t skn__gltf_component_size(uint32_t t) {
  switch (t) {
  case GLTF_BYTE:
  case GLTF_UNSIGNED_BYTE: return 1;
  case GLTF_SHORT:
  case GLTF_UNSIGNED_SHORT: return 2;
  case GLTF_UNSIGNED_INT:
  case GLTF_FLOAT: return 4;
  default: return 0;
  }
}

/* Bytes of one element; each matrix column starts on a 4-byte boundary (§3.6.2.4). */
static size_t element_size(const gltf_accessor *a) {
  size_t c = skn__gltf_component_size(a->component_type), rows = a->components / a->columns;
  return a->columns == 1 ? rows * c : a->columns * ((rows * c + 3) & ~(size_t)3);
}

/* The bytes the last element reads: its last column's padding is not
 * needed (a MAT2 of bytes ends 2 bytes into its second 4-byte column). */
static size_t element_extent(const gltf_accessor *a) {
  size_t c = skn__gltf_component_size(a->component_type), rows = a->components / a->columns;
  return a->columns == 1 ? rows * c : (a->columns - 1) * ((rows * c + 3) & ~(size_t)3) + rows * c;
}

static skn_status check_views(const skn_gltf *g) {
  for (uint32_t i = 0; i < g->view_count; ++i) {
    const gltf_view *v = &g->views[i];
    if (v->buffer >= g->buffer_count)
      return skn__fail(SKN_ERR_PARSE, "bufferViews[%u].buffer %u >= %u buffers", i, v->buffer, g->buffer_count);
    if (v->offset + v->length > g->buffers[v->buffer].length)
      return skn__fail(SKN_ERR_PARSE, "bufferViews[%u]: byteOffset + byteLength = %zu exceeds buffers[%u].byteLength %zu",
                       i, v->offset + v->length, v->buffer, g->buffers[v->buffer].length);
  }
  return SKN_OK;
}

/* [offset, offset + (count-1)*stride + extent) must lie inside the view
 * (size: an element's bytes, the least stride; extent: what the last reads). */
static skn_status check_span(const skn_gltf *g, int32_t view, size_t offset, uint32_t count, size_t size,
                             size_t extent, const char *where) {
  if (view < 0 || (uint32_t)view >= g->view_count)
    return skn__fail(SKN_ERR_PARSE, "%s: bufferView %d is out of range (%u views)", where, view, g->view_count);
  const gltf_view *v = &g->views[view];
  size_t stride = v->stride ? v->stride : size;
  if (v->stride && v->stride < size)
    return skn__fail(SKN_ERR_PARSE, "%s: bufferViews[%d].byteStride %zu is smaller than an element (%zu bytes)", where,
                     view, v->stride, size);
  size_t end = offset + (size_t)(count - 1) * stride + extent;
  if (end > v->length)
    return skn__fail(SKN_ERR_PARSE, "%s: byteOffset + count*stride = %zu exceeds bufferViews[%d].byteLength %zu", where,
                     end, view, v->length);
  return SKN_OK;
}

static skn_status check_sparse(const skn_gltf *g, uint32_t i) {
  const gltf_accessor *a = &g->accessors[i];
  char where[48];
  snprintf(where, sizeof where, "accessors[%u].sparse", i);
  size_t isize = skn__gltf_component_size(a->sparse_index_type);
  if (a->sparse_count > a->count)
    return skn__fail(SKN_ERR_PARSE, "%s.count %u exceeds the accessor's count %u", where, a->sparse_count, a->count);
  if (a->sparse_index_type == GLTF_FLOAT || a->sparse_index_type == GLTF_BYTE || a->sparse_index_type == GLTF_SHORT || !isize)
    return skn__fail(SKN_ERR_PARSE, "%s.indices.componentType %u is not an unsigned integer type", where, a->sparse_index_type);
  skn_status s = check_span(g, a->sparse_index_view, a->sparse_index_offset, a->sparse_count, isize, isize, where);
  if (s == SKN_OK)
    s = check_span(g, a->sparse_value_view, a->sparse_value_offset, a->sparse_count, element_size(a), element_extent(a),
                   where);
  if (s == SKN_OK && !(g->buffers[g->views[a->sparse_index_view].buffer].data &&
                       g->buffers[g->views[a->sparse_value_view].buffer].data))
    return SKN_OK; /* no bytes to check: the accessor is unreadable, refused where it is used */
  uint32_t last = 0;
  for (uint32_t k = 0; s == SKN_OK && k < a->sparse_count; ++k) {
    const gltf_view *v = &g->views[a->sparse_index_view];
    const uint8_t *p = g->buffers[v->buffer].data + v->offset + a->sparse_index_offset + k * isize;
    uint32_t idx = isize == 1 ? p[0] : isize == 2 ? (uint32_t)(p[0] | p[1] << 8) : (uint32_t)(p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24);
    if (idx >= a->count || (k > 0 && idx <= last))
      return skn__fail(SKN_ERR_PARSE, "%s.indices[%u] = %u is out of range or not increasing", where, k, idx);
    last = idx;
  }
  return s;
}

/* Whether the accessor's views have bytes (a buffer without a uri outside a
 * GLB has none); the views are in range (check_span). */
static uint32_t has_bytes(const skn_gltf *g, const gltf_accessor *a) {
  if (a->view >= 0 && !g->buffers[g->views[a->view].buffer].data) return 0;
  if (a->sparse_count && !(g->buffers[g->views[a->sparse_index_view].buffer].data &&
                           g->buffers[g->views[a->sparse_value_view].buffer].data))
    return 0;
  return 1;
}

/* Every accessor of a known type lies inside its views; one of an unknown
 * type, or without bytes, is refused only where it is used (check_used). */
static skn_status check_accessors(skn_gltf *g) {
  for (uint32_t i = 0; i < g->accessor_count; ++i) {
    gltf_accessor *a = &g->accessors[i];
    char where[32];
    snprintf(where, sizeof where, "accessors[%u]", i);
    if (!a->components) continue;
    if (a->view >= 0) {
      skn_status s = check_span(g, a->view, a->offset, a->count, element_size(a), element_extent(a), where);
      if (s != SKN_OK) return s;
    }
    if (a->sparse_count) {
      skn_status s = check_sparse(g, i);
      if (s != SKN_OK) return s;
    }
    a->readable = has_bytes(g, a);
  }
  return SKN_OK;
}

/* An accessor the loader reads: of a known type and with bytes. */
static skn_status check_used(const skn_gltf *g, uint32_t acc, const char *where, const char *name) {
  const gltf_accessor *a = &g->accessors[acc];
  if (!a->components)
    return skn__fail(SKN_ERR_PARSE, "%s.%s: accessors[%u] has a type or componentType (%u) that glTF does not define",
                     where, name, acc, a->component_type);
  if (!a->readable)
    return skn__fail(SKN_ERR_PARSE, "%s.%s: accessors[%u] reads a buffer that has no uri and is not a GLB's BIN chunk",
                     where, name, acc);
  return SKN_OK;
}

/* Parents from children lists (one parent each), then a parents-first order;
 * a node reachable from itself is a cycle. */
static skn_status check_nodes(skn_gltf *g) {
  for (uint32_t i = 0; i < g->node_count; ++i) {
    gltf_node *n = &g->nodes[i];
    if (n->mesh >= (int32_t)g->mesh_count || n->skin >= (int32_t)g->skin_count)
      return skn__fail(SKN_ERR_PARSE, "nodes[%u]: mesh %d or skin %d is out of range", i, n->mesh, n->skin);
    if (n->has_matrix && !skn_mat4_is_affine(n->matrix))
      return skn__fail(SKN_ERR_PARSE, "nodes[%u].matrix is not affine (bottom row %g %g %g %g)", i, n->matrix[3],
                       n->matrix[7], n->matrix[11], n->matrix[15]);
    for (uint32_t c = 0; c < n->child_count; ++c) {
      gltf_node *child = &g->nodes[n->children[c]];
      if (child->parent >= 0 && child->parent != (int32_t)i)
        return skn__fail(SKN_ERR_PARSE, "nodes[%u] is a child of both nodes[%d] and nodes[%u]", n->children[c],
                         child->parent, i);
      child->parent = (int32_t)i;
    }
  }
  g->node_order = skn__alloc((g->node_count ? g->node_count : 1) * sizeof *g->node_order);
  uint8_t *placed = skn__calloc(g->node_count ? g->node_count : 1, 1);
  if (!g->node_order || !placed) {
    skn__free(placed);
    return skn__fail(SKN_ERR_OUT_OF_MEMORY, "nodes: out of memory");
  }
  uint32_t next = 0; /* breadth-first from the roots: a node in a cycle is never reached */
  for (uint32_t i = 0; i < g->node_count; ++i)
    if (g->nodes[i].parent < 0) g->node_order[next++] = i, placed[i] = 1;
  for (uint32_t k = 0; k < next; ++k) {
    const gltf_node *n = &g->nodes[g->node_order[k]];
    for (uint32_t c = 0; c < n->child_count; ++c)
      if (!placed[n->children[c]]) g->node_order[next++] = n->children[c], placed[n->children[c]] = 1;
  }
  uint32_t lost = 0;
  while (next < g->node_count && lost < g->node_count && placed[lost]) ++lost;
  skn__free(placed);
  if (next < g->node_count) return skn__fail(SKN_ERR_PARSE, "nodes[%u]: its parent chain is a cycle", lost);
  return SKN_OK;
}

/* An attribute accessor of a given shape: components, and allowed types. */
static skn_status check_attribute(const skn_gltf *g, int32_t acc, uint32_t components, const uint32_t *types,
                                  uint32_t count, const char *where, const char *name) {
  if (acc < 0) return SKN_OK;
  if ((uint32_t)acc >= g->accessor_count)
    return skn__fail(SKN_ERR_PARSE, "%s.%s: accessor %d is out of range", where, name, acc);
  skn_status s = check_used(g, (uint32_t)acc, where, name);
  if (s != SKN_OK) return s;
  const gltf_accessor *a = &g->accessors[acc];
  int ok = 0;
  for (const uint32_t *t = types; *t; ++t) ok |= a->component_type == *t;
  if (!ok || a->components != components)
    return skn__fail(SKN_ERR_PARSE, "%s.%s: accessors[%d] has componentType %u with %u components, not allowed here",
                     where, name, acc, a->component_type, a->components);
  if (count && a->count != count)
    return skn__fail(SKN_ERR_PARSE, "%s.%s: accessors[%d].count %u differs from POSITION's %u", where, name, acc,
                     a->count, count);
  return SKN_OK;
}

static const uint32_t FLOATS[] = {GLTF_FLOAT, 0};
/* KHR_mesh_quantization: positions (and position offsets) of any 8- or
 * 16-bit integer type, normalized or not; normals and tangents (and their
 * offsets) as normalized signed integers (accessor.c reads them all). */
static const uint32_t POSITION_TYPES[] = {GLTF_FLOAT, GLTF_BYTE, GLTF_UNSIGNED_BYTE, GLTF_SHORT, GLTF_UNSIGNED_SHORT, 0};
static const uint32_t OFFSET_TYPES[] = {GLTF_FLOAT, GLTF_BYTE, GLTF_SHORT, 0};
static const uint32_t DIRECTION_TYPES[] = {GLTF_FLOAT, GLTF_BYTE, GLTF_SHORT, 0};
static const uint32_t JOINT_TYPES[] = {GLTF_UNSIGNED_BYTE, GLTF_UNSIGNED_SHORT, 0};
static const uint32_t WEIGHT_TYPES[] = {GLTF_FLOAT, GLTF_UNSIGNED_BYTE, GLTF_UNSIGNED_SHORT, 0};
static const uint32_t INDEX_TYPES[] = {GLTF_UNSIGNED_BYTE, GLTF_UNSIGNED_SHORT, GLTF_UNSIGNED_INT, 0};

/* A direction (normal, tangent) stored as integers must be normalized. */
static skn_status check_direction(const skn_gltf *g, int32_t acc, uint32_t components, uint32_t count,
                                  const char *where, const char *name) {
  skn_status s = check_attribute(g, acc, components, DIRECTION_TYPES, count, where, name);
  if (s == SKN_OK && acc >= 0 && g->accessors[acc].component_type != GLTF_FLOAT && !g->accessors[acc].normalized)
    s = skn__fail(SKN_ERR_PARSE, "%s.%s: accessors[%d]: integer directions must be normalized", where, name, acc);
  return s;
}

/* Morph targets: offsets of the primitive's vertex count. */
static skn_status check_targets(const skn_gltf *g, const gltf_primitive *p, uint32_t n, const char *where) {
  skn_status s = SKN_OK;
  for (uint32_t t = 0; s == SKN_OK && t < p->target_count; ++t) {
    char at[80];
    snprintf(at, sizeof at, "%s.targets[%u]", where, t);
    s = check_attribute(g, p->targets[t][0], 3, OFFSET_TYPES, n, at, "POSITION");
    if (s == SKN_OK) s = check_direction(g, p->targets[t][1], 3, n, at, "NORMAL");
    if (s == SKN_OK) s = check_direction(g, p->targets[t][2], 3, n, at, "TANGENT");
  }
  return s;
}

/* A primitive without POSITION is valid (§3.7.2.1) and is never skinned;
 * its other attributes are checked all the same. */
static skn_status check_primitive(const skn_gltf *g, const gltf_primitive *p) {
  char where[48];
  snprintf(where, sizeof where, "meshes[%u].primitives[%u]", p->mesh, p->index_in_mesh);
  skn_status s = check_attribute(g, p->position, 3, POSITION_TYPES, 0, where, "POSITION");
  uint32_t n = s == SKN_OK && p->position >= 0 ? g->accessors[p->position].count : 0;
  if (s == SKN_OK) s = check_direction(g, p->normal, 3, n, where, "NORMAL");
  if (s == SKN_OK) s = check_direction(g, p->tangent, 4, n, where, "TANGENT");
  if (s == SKN_OK) s = check_targets(g, p, n, where);
  if (s == SKN_OK) s = check_attribute(g, p->indices, 1, INDEX_TYPES, 0, where, "indices");
  for (uint32_t k = 0; s == SKN_OK && k < p->set_count; ++k) {
    s = check_attribute(g, p->joints[k], 4, JOINT_TYPES, n, where, "JOINTS_n");
    if (s == SKN_OK) s = check_attribute(g, p->weights[k], 4, WEIGHT_TYPES, n, where, "WEIGHTS_n");
    if (s == SKN_OK && g->accessors[p->weights[k]].component_type != GLTF_FLOAT && !g->accessors[p->weights[k]].normalized)
      s = skn__fail(SKN_ERR_PARSE, "%s.WEIGHTS_%u: integer weights must be normalized", where, k);
  }
  uint32_t stored = s == SKN_OK && p->indices >= 0 && n ? skn__gltf_stored_count(g, (uint32_t)p->indices) : 0;
  for (uint32_t k = 0; s == SKN_OK && k < stored; ++k) { /* a zero index is a vertex: n >= 1 */
    uint32_t i = skn__gltf_stored_index(g, (uint32_t)p->indices, k), v;
    skn__gltf_read_uint(g, (uint32_t)p->indices, i, &v);
    if (v >= n) s = skn__fail(SKN_ERR_PARSE, "%s.indices[%u] = %u >= vertex count %u", where, i, v, n);
  }
  return s;
}

static skn_status check_skins(const skn_gltf *g) {
  for (uint32_t i = 0; i < g->skin_count; ++i) {
    const gltf_skin *sk = &g->skins[i];
    for (uint32_t j = 0; j < sk->joint_count; ++j)
      if (sk->joints[j] >= g->node_count)
        return skn__fail(SKN_ERR_PARSE, "skins[%u].joints[%u] = %u is not a node (%u nodes)", i, j, sk->joints[j], g->node_count);
    if (sk->skeleton >= (int32_t)g->node_count)
      return skn__fail(SKN_ERR_PARSE, "skins[%u].skeleton %d is not a node", i, sk->skeleton);
    if (sk->inverse_bind < 0) continue;
    char where[32];
    snprintf(where, sizeof where, "skins[%u]", i);
    skn_status s = check_attribute(g, sk->inverse_bind, 16, FLOATS, 0, where, "inverseBindMatrices");
    if (s != SKN_OK) return s;
    if (g->accessors[sk->inverse_bind].count < sk->joint_count)
      return skn__fail(SKN_ERR_PARSE, "skins[%u].inverseBindMatrices has %u matrices for %u joints", i,
                       g->accessors[sk->inverse_bind].count, sk->joint_count);
  }
  return SKN_OK;
}

/* Morph weights agree with the targets: every primitive of a mesh has the
 * same number of targets (§3.7.2.2), and the mesh's and its nodes' weights
 * have one each. */
static skn_status check_morph_weights(const skn_gltf *g) {
  for (uint32_t m = 0; m < g->mesh_count; ++m) {
    const gltf_mesh *me = &g->meshes[m];
    uint32_t n = g->primitives[me->first_primitive].target_count;
    for (uint32_t k = 1; k < me->primitive_count; ++k)
      if (g->primitives[me->first_primitive + k].target_count != n)
        return skn__fail(SKN_ERR_PARSE, "meshes[%u].primitives[%u] has %u morph targets, primitives[0] has %u", m, k,
                         g->primitives[me->first_primitive + k].target_count, n);
    if (me->weight_count && me->weight_count != n)
      return skn__fail(SKN_ERR_PARSE, "meshes[%u].weights has %u weights for %u morph targets", m, me->weight_count, n);
  }
  for (uint32_t i = 0; i < g->node_count; ++i) {
    const gltf_node *nd = &g->nodes[i];
    uint32_t n = nd->mesh >= 0 ? g->primitives[g->meshes[nd->mesh].first_primitive].target_count : 0;
    if (nd->weight_count && nd->mesh >= 0 && nd->weight_count != n)
      return skn__fail(SKN_ERR_PARSE, "nodes[%u].weights has %u weights for meshes[%d]'s %u morph targets", i,
                       nd->weight_count, nd->mesh, n);
  }
  return SKN_OK;
}

void skn__gltf_default_weights(const skn_gltf *g, const gltf_skinned *sp, float *out) {
  const gltf_node *nd = &g->nodes[sp->node];
  const gltf_mesh *me = &g->meshes[g->primitives[sp->primitive].mesh];
  uint32_t n = g->primitives[sp->primitive].target_count;
  const float *w = nd->weight_count ? nd->weights : me->weight_count ? me->weights : NULL;
  for (uint32_t t = 0; t < n; ++t) out[t] = w ? w[t] : 0.0f;
}

static int skinnable(const gltf_primitive *p) { return p->position >= 0 && p->set_count > 0; }

/* The skinned primitives: mesh by mesh, then every node that gives the mesh
 * a skin (instanced skins: each its own), then primitive by primitive. */
static skn_status find_skinned(skn_gltf *g) {
  uint64_t total = 0;
  for (uint32_t i = 0; i < g->node_count; ++i)
    if (g->nodes[i].mesh >= 0 && g->nodes[i].skin >= 0) total += g->meshes[g->nodes[i].mesh].primitive_count;
  if (total > UINT32_MAX) return skn__fail(SKN_ERR_UNSUPPORTED, "gltf: %llu skinned primitives", (unsigned long long)total);
  g->skinned = skn__calloc(total ? (size_t)total : 1, sizeof *g->skinned);
  if (!g->skinned) return skn__fail(SKN_ERR_OUT_OF_MEMORY, "gltf: out of memory");
  for (uint32_t m = 0; m < g->mesh_count; ++m)
    for (uint32_t node = 0; node < g->node_count; ++node) {
      if (g->nodes[node].mesh != (int32_t)m || g->nodes[node].skin < 0) continue;
      for (uint32_t k = 0; k < g->meshes[m].primitive_count; ++k) {
        uint32_t p = g->meshes[m].first_primitive + k;
        if (skinnable(&g->primitives[p]))
          g->skinned[g->skinned_count++] = (gltf_skinned){p, node, (uint32_t)g->nodes[node].skin};
      }
    }
  return SKN_OK;
}

/* Joint indices inside the skin, weights finite and non-negative: the
 * stored elements of each set (zeros are joint 0 and weight 0, both valid). */
static skn_status check_influences(const skn_gltf *g, const gltf_skinned *sp) {
  const gltf_primitive *p = &g->primitives[sp->primitive];
  uint32_t joints = g->skins[sp->skin].joint_count;
  for (uint32_t k = 0; k < p->set_count; ++k) {
    uint32_t ja = (uint32_t)p->joints[k], wa = (uint32_t)p->weights[k];
    for (uint32_t e = 0, n = skn__gltf_stored_count(g, ja); e < n; ++e) {
      uint32_t v = skn__gltf_stored_index(g, ja, e), j[4];
      skn__gltf_read_uint(g, ja, v, j);
      for (int c = 0; c < 4; ++c)
        if (j[c] >= joints)
          return skn__fail(SKN_ERR_PARSE, "meshes[%u].primitives[%u].attributes.JOINTS_%u[%u]: joint %u >= skins[%u] joint count %u",
                           p->mesh, p->index_in_mesh, k, v, j[c], sp->skin, joints);
    }
    for (uint32_t e = 0, n = skn__gltf_stored_count(g, wa); e < n; ++e) {
      uint32_t v = skn__gltf_stored_index(g, wa, e);
      float w[4];
      skn__gltf_read_float(g, wa, v, w);
      for (int c = 0; c < 4; ++c)
        if (!isfinite(w[c]) || w[c] < 0)
          return skn__fail(SKN_ERR_PARSE, "meshes[%u].primitives[%u].attributes.WEIGHTS_%u[%u]: weight %g is negative or not finite",
                           p->mesh, p->index_in_mesh, k, v, w[c]);
    }
  }
  return SKN_OK;
}

static skn_status check_animation(skn_gltf *g, uint32_t i) {
  gltf_animation *an = &g->animations[i];
  an->start = INFINITY;
  an->end = -INFINITY;
  for (uint32_t c = 0; c < an->channel_count; ++c) {
    const gltf_channel *ch = &an->channels[c];
    if (ch->sampler >= an->sampler_count || ch->node >= (int32_t)g->node_count)
      return skn__fail(SKN_ERR_PARSE, "animations[%u].channels[%u]: sampler or node out of range", i, c);
    if (ch->node >= 0 && ch->path <= GLTF_PATH_SCALE && g->nodes[ch->node].has_matrix)
      return skn__fail(SKN_ERR_PARSE, "animations[%u].channels[%u]: nodes[%d] has a matrix and cannot be animated", i, c, ch->node);
  }
  for (uint32_t k = 0; k < an->sampler_count; ++k) {
    const gltf_sampler *sm = &an->samplers[k];
    if ((uint32_t)sm->input >= g->accessor_count || (uint32_t)sm->output >= g->accessor_count)
      return skn__fail(SKN_ERR_PARSE, "animations[%u].samplers[%u]: accessor out of range", i, k);
    char where[48];
    snprintf(where, sizeof where, "animations[%u].samplers[%u]", i, k);
    skn_status s = check_used(g, (uint32_t)sm->input, where, "input");
    if (s != SKN_OK) return s;
    const gltf_accessor *in = &g->accessors[sm->input];
    if (in->component_type != GLTF_FLOAT || in->components != 1)
      return skn__fail(SKN_ERR_PARSE, "animations[%u].samplers[%u].input must be float scalars", i, k);
    uint32_t per_key = sm->interpolation == GLTF_CUBICSPLINE ? 3 : 1;
    const gltf_accessor *out = &g->accessors[sm->output];
    if (out->count < in->count * per_key)
      return skn__fail(SKN_ERR_PARSE, "animations[%u].samplers[%u]: %u outputs for %u keys", i, k, out->count, in->count);
    float prev = -INFINITY;
    for (uint32_t key = 0; key < in->count; ++key) {
      float t;
      skn__gltf_read_float(g, (uint32_t)sm->input, key, &t);
      if (!(t > prev))
        return skn__fail(SKN_ERR_PARSE, "animations[%u].samplers[%u].input[%u] = %g is not after the key before it", i, k, key, t);
      prev = t;
      an->start = fminf(an->start, t);
      an->end = fmaxf(an->end, t);
    }
  }
  if (an->start > an->end) an->start = an->end = 0;
  return SKN_OK;
}

/* A weights channel's output: a scalar per target per key (three per key
 * for CUBICSPLINE), floats or normalized integers (§3.11). A node without a
 * mesh with morph targets has no weights to animate: its channel is ignored. */
static skn_status check_weights_output(const skn_gltf *g, const gltf_sampler *sm, const gltf_node *nd,
                                       const char *where) {
  static const uint32_t WEIGHT_OUTPUT_TYPES[] = {GLTF_FLOAT, GLTF_BYTE, GLTF_UNSIGNED_BYTE, GLTF_SHORT,
                                                 GLTF_UNSIGNED_SHORT, 0};
  uint32_t n = nd->mesh >= 0 ? g->primitives[g->meshes[nd->mesh].first_primitive].target_count : 0;
  if (!n) return SKN_OK;
  skn_status s = check_attribute(g, sm->output, 1, WEIGHT_OUTPUT_TYPES, 0, where, "output");
  if (s != SKN_OK) return s;
  const gltf_accessor *out = &g->accessors[sm->output];
  if (out->component_type != GLTF_FLOAT && !out->normalized)
    return skn__fail(SKN_ERR_PARSE, "%s.output: integer morph weights must be normalized", where);
  uint64_t need = (uint64_t)g->accessors[sm->input].count * (sm->interpolation == GLTF_CUBICSPLINE ? 3 : 1) * n;
  if (out->count < need)
    return skn__fail(SKN_ERR_PARSE, "%s.output: %u values for %u keys of %u morph weights", where, out->count,
                     g->accessors[sm->input].count, n);
  return SKN_OK;
}

/* Output accessors of the channels: VEC3 floats for T and S, VEC4 floats or
 * normalized integers for R (§3.11). */
static skn_status check_channel_outputs(const skn_gltf *g, uint32_t i) {
  static const uint32_t ROTATION_TYPES[] = {GLTF_FLOAT, GLTF_BYTE, GLTF_UNSIGNED_BYTE, GLTF_SHORT, GLTF_UNSIGNED_SHORT, 0};
  const gltf_animation *an = &g->animations[i];
  for (uint32_t c = 0; c < an->channel_count; ++c) {
    const gltf_channel *ch = &an->channels[c];
    if (ch->path == GLTF_PATH_OTHER || ch->node < 0) continue;
    char where[48];
    snprintf(where, sizeof where, "animations[%u].samplers[%u]", i, ch->sampler);
    if (ch->path == GLTF_PATH_WEIGHTS) {
      skn_status s = check_weights_output(g, &an->samplers[ch->sampler], &g->nodes[ch->node], where);
      if (s != SKN_OK) return s;
      continue;
    }
    skn_status s = ch->path == GLTF_PATH_ROTATION
                       ? check_attribute(g, an->samplers[ch->sampler].output, 4, ROTATION_TYPES, 0, where, "output")
                       : check_attribute(g, an->samplers[ch->sampler].output, 3, FLOATS, 0, where, "output");
    if (s != SKN_OK) return s;
  }
  return SKN_OK;
}

skn_status skn__gltf_validate(skn_gltf *g) {
  skn_status s = check_views(g);
  if (s == SKN_OK) s = check_accessors(g);
  if (s == SKN_OK) s = check_nodes(g);
  for (uint32_t p = 0; s == SKN_OK && p < g->primitive_count; ++p) s = check_primitive(g, &g->primitives[p]);
  if (s == SKN_OK) s = check_skins(g);
  if (s == SKN_OK) s = check_morph_weights(g);
  if (s == SKN_OK) s = find_skinned(g);
  for (uint32_t k = 0; s == SKN_OK && k < g->skinned_count; ++k) s = check_influences(g, &g->skinned[k]);
  for (uint32_t a = 0; s == SKN_OK && a < g->animation_count; ++a) s = check_animation(g, a);
  for (uint32_t a = 0; s == SKN_OK && a < g->animation_count; ++a) s = check_channel_outputs(g, a);
  return s;
}
