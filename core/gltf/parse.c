/* parse.c — phase 1 of loading glTF 2.0: the file (JSON, or GLB's JSON and
 * BIN chunks, glTF 2.0 §4.4) into the structs of gltf.h. Only shapes and
 * types are checked here; indices are range-checked in validate.c. */
#include "gltf.h"

#include "../math/mat4.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GLB_MAGIC 0x46546C67u      /* "glTF" */
#define GLB_CHUNK_JSON 0x4E4F534Au /* "JSON" */
#define GLB_CHUNK_BIN 0x004E4942u  /* "BIN\0" */

/* ---- reading JSON members, each naming its place on failure ---- */

static const cJSON *member(const cJSON *o, const char *key) { return cJSON_GetObjectItemCaseSensitive(o, key); }

static skn_status get_number(const cJSON *o, const char *key, double def, const char *where, double *out) {
  const cJSON *m = member(o, key);
  if (!m) {
    *out = def;
    return SKN_OK;
  }
  if (!cJSON_IsNumber(m) || !isfinite(m->valuedouble))
    return skn__fail(SKN_ERR_PARSE, "%s.%s is not a number", where, key);
  *out = m->valuedouble;
  return SKN_OK;
}

/* An unsigned integer member below 2^32: `def` when absent (def >= 0), an
 * error when absent and `required`. *out is written only on success, so
 * that nothing out of range is ever converted (C99 6.3.1.4: converting a
 * double outside the target type's range is undefined). */
static skn_status get_uint(const cJSON *o, const char *key, uint32_t def, int required, const char *where,
                           uint32_t *out) {
  double v = 0;
  skn_status s = get_number(o, key, def, where, &v);
  if (s != SKN_OK) return s;
  if (required && !member(o, key)) return skn__fail(SKN_ERR_PARSE, "%s.%s is required", where, key);
  if (v < 0 || v != floor(v) || v > 4294967295.0)
    return skn__fail(SKN_ERR_PARSE, "%s.%s is %g, not an unsigned integer", where, key, v);
  *out = (uint32_t)v;
  return SKN_OK;
}

/* An index member: -1 when absent. */
static skn_status get_index(const cJSON *o, const char *key, const char *where, int32_t *out) {
  uint32_t v = 0;
  skn_status s = get_uint(o, key, 0, 0, where, &v);
  if (s != SKN_OK) return s;
  if (v > 2147483647u) return skn__fail(SKN_ERR_PARSE, "%s.%s = %u is too large", where, key, v);
  *out = member(o, key) ? (int32_t)v : -1;
  return SKN_OK;
}

static skn_status get_floats(const cJSON *o, const char *key, int n, const char *where, float *out) {
  const cJSON *m = member(o, key);
  if (!m) return SKN_OK;
  if (!cJSON_IsArray(m) || cJSON_GetArraySize(m) != n)
    return skn__fail(SKN_ERR_PARSE, "%s.%s is not an array of %d numbers", where, key, n);
  for (int i = 0; i < n; ++i) {
    const cJSON *e = cJSON_GetArrayItem(m, i);
    if (!cJSON_IsNumber(e) || !isfinite(e->valuedouble))
      return skn__fail(SKN_ERR_PARSE, "%s.%s[%d] is not a finite number", where, key, i);
    out[i] = (float)e->valuedouble;
  }
  return SKN_OK;
}

/* An optional array of finite numbers of any length (morph weights): its
 * length and a copy; absent: 0 and NULL. */
static skn_status get_float_array(const cJSON *o, const char *key, const char *where, uint32_t *count, float **out) {
  const cJSON *m = member(o, key);
  *count = 0;
  *out = NULL;
  if (!m) return SKN_OK;
  if (!cJSON_IsArray(m)) return skn__fail(SKN_ERR_PARSE, "%s.%s is not an array", where, key);
  uint32_t n = (uint32_t)cJSON_GetArraySize(m);
  float *f = skn__alloc((n ? n : 1) * sizeof *f);
  if (!f) return skn__fail(SKN_ERR_OUT_OF_MEMORY, "%s.%s: out of memory", where, key);
  uint32_t i = 0;
  for (const cJSON *e = m->child; e; e = e->next, ++i) {
    if (!cJSON_IsNumber(e) || !isfinite(e->valuedouble)) {
      skn__free(f);
      return skn__fail(SKN_ERR_PARSE, "%s.%s[%u] is not a finite number", where, key, i);
    }
    f[i] = (float)e->valuedouble;
  }
  *count = n;
  *out = f;
  return SKN_OK;
}

static char *dup_string(const cJSON *o, const char *key) {
  const cJSON *m = member(o, key);
  const char *s = cJSON_IsString(m) ? m->valuestring : "";
  size_t n = strlen(s) + 1;
  char *d = skn__alloc(n);
  if (d) memcpy(d, s, n);
  return d;
}

/* The top-level array `key`: its size into *count and a zeroed array of
 * `size`-byte structs into *items. */
static skn_status top_array(const cJSON *root, const char *key, size_t size, uint32_t *count, void **items) {
  const cJSON *a = member(root, key);
  *count = 0;
  *items = NULL;
  if (!a) return SKN_OK;
  if (!cJSON_IsArray(a)) return skn__fail(SKN_ERR_PARSE, "%s is not an array", key);
  uint32_t n = (uint32_t)cJSON_GetArraySize(a);
  *items = skn__calloc(n ? n : 1, size);
  if (!*items) return skn__fail(SKN_ERR_OUT_OF_MEMORY, "%s: out of memory", key);
  *count = n; /* only with the array: skn__gltf_free walks count entries */
  return SKN_OK;
}

/* ---- one function per kind of object ---- */

static skn_status parse_buffer(skn_gltf *g, const cJSON *o, uint32_t i) {
  char where[32];
  uint32_t length = 0;
  snprintf(where, sizeof where, "buffers[%u]", i);
  skn_status s = get_uint(o, "byteLength", 0, 1, where, &length);
  const cJSON *uri = member(o, "uri");
  if (s == SKN_OK && uri && !cJSON_IsString(uri)) s = skn__fail(SKN_ERR_PARSE, "%s.uri is not a string", where);
  g->buffers[i].length = length;
  if (s == SKN_OK && uri && !(g->buffers[i].uri = dup_string(o, "uri")))
    s = skn__fail(SKN_ERR_OUT_OF_MEMORY, "%s: out of memory", where);
  return s;
}

static skn_status parse_view(skn_gltf *g, const cJSON *o, uint32_t i) {
  char where[32];
  uint32_t buffer = 0, offset = 0, length = 0, stride = 0;
  snprintf(where, sizeof where, "bufferViews[%u]", i);
  skn_status s = get_uint(o, "buffer", 0, 1, where, &buffer);
  if (s == SKN_OK) s = get_uint(o, "byteOffset", 0, 0, where, &offset);
  if (s == SKN_OK) s = get_uint(o, "byteLength", 0, 1, where, &length);
  if (s == SKN_OK) s = get_uint(o, "byteStride", 0, 0, where, &stride);
  if (s == SKN_OK && member(o, "byteStride") && (stride < 4 || stride > 252 || stride % 4))
    s = skn__fail(SKN_ERR_PARSE, "%s.byteStride %u is not a multiple of 4 in [4, 252]", where, stride);
  g->views[i] = (gltf_view){buffer, offset, length, stride};
  return s;
}

static uint32_t type_components(const char *type, uint32_t *columns) {
  static const struct { const char *name; uint32_t n, columns; } types[] = {
      {"SCALAR", 1, 1}, {"VEC2", 2, 1}, {"VEC3", 3, 1}, {"VEC4", 4, 1}, {"MAT2", 4, 2}, {"MAT3", 9, 3}, {"MAT4", 16, 4}};
  for (size_t i = 0; type && i < sizeof types / sizeof types[0]; ++i)
    if (!strcmp(type, types[i].name)) {
      *columns = types[i].columns;
      return types[i].n;
    }
  return 0;
}

static skn_status parse_sparse(gltf_accessor *a, const cJSON *sp, const char *where) {
  uint32_t count = 0, ioff = 0, itype = 0, voff = 0;
  int32_t iview = -1, vview = -1;
  const cJSON *ix = member(sp, "indices"), *vals = member(sp, "values");
  if (!cJSON_IsObject(ix) || !cJSON_IsObject(vals))
    return skn__fail(SKN_ERR_PARSE, "%s.sparse: indices and values are required", where);
  skn_status s = get_uint(sp, "count", 0, 1, where, &count);
  if (s == SKN_OK) s = get_index(ix, "bufferView", where, &iview);
  if (s == SKN_OK) s = get_uint(ix, "byteOffset", 0, 0, where, &ioff);
  if (s == SKN_OK) s = get_uint(ix, "componentType", 0, 1, where, &itype);
  if (s == SKN_OK) s = get_index(vals, "bufferView", where, &vview);
  if (s == SKN_OK) s = get_uint(vals, "byteOffset", 0, 0, where, &voff);
  if (s == SKN_OK && (count < 1 || iview < 0 || vview < 0))
    s = skn__fail(SKN_ERR_PARSE, "%s.sparse: count >= 1 and both bufferViews are required", where);
  if (s != SKN_OK) return s;
  a->sparse_count = count;
  a->sparse_index_view = iview;
  a->sparse_index_offset = ioff;
  a->sparse_index_type = itype;
  a->sparse_value_view = vview;
  a->sparse_value_offset = voff;
  return SKN_OK;
}

static skn_status parse_accessor(skn_gltf *g, const cJSON *o, uint32_t i) {
  char where[32];
  uint32_t ctype = 0, count = 0, offset = 0;
  gltf_accessor *a = &g->accessors[i];
  snprintf(where, sizeof where, "accessors[%u]", i);
  skn_status s = get_index(o, "bufferView", where, &a->view);
  if (s == SKN_OK) s = get_uint(o, "byteOffset", 0, 0, where, &offset);
  if (s == SKN_OK) s = get_uint(o, "componentType", 0, 1, where, &ctype);
  if (s == SKN_OK) s = get_uint(o, "count", 0, 1, where, &count);
  if (s != SKN_OK) return s;
  const cJSON *type = member(o, "type"), *norm = member(o, "normalized");
  a->offset = offset;
  a->component_type = ctype;
  a->count = count;
  a->normalized = cJSON_IsTrue(norm);
  a->components = type_components(cJSON_IsString(type) ? type->valuestring : NULL, &a->columns);
  /* an unknown type or componentType is refused where the accessor is used
   * (validate.c): an asset may carry accessors skn never reads */
  if (!skn__gltf_component_size(a->component_type)) a->components = 0;
  if (a->count == 0) return skn__fail(SKN_ERR_PARSE, "%s.count must be at least 1", where);
  const cJSON *sp = member(o, "sparse");
  return sp ? parse_sparse(a, sp, where) : SKN_OK;
}

static skn_status parse_node(skn_gltf *g, const cJSON *o, uint32_t i) {
  char where[32];
  gltf_node *n = &g->nodes[i];
  snprintf(where, sizeof where, "nodes[%u]", i);
  n->parent = -1;
  n->rotation[3] = 1;
  n->scale[0] = n->scale[1] = n->scale[2] = 1;
  skn_mat4_identity(n->matrix);
  n->has_matrix = member(o, "matrix") != NULL;
  if (!(n->name = dup_string(o, "name"))) return skn__fail(SKN_ERR_OUT_OF_MEMORY, "%s: out of memory", where);
  skn_status s = get_index(o, "mesh", where, &n->mesh);
  if (s == SKN_OK) s = get_float_array(o, "weights", where, &n->weight_count, &n->weights);
  if (s == SKN_OK) s = get_index(o, "skin", where, &n->skin);
  if (s == SKN_OK) s = get_floats(o, "matrix", 16, where, n->matrix);
  if (s == SKN_OK) s = get_floats(o, "translation", 3, where, n->translation);
  if (s == SKN_OK) s = get_floats(o, "rotation", 4, where, n->rotation);
  if (s == SKN_OK) s = get_floats(o, "scale", 3, where, n->scale);
  const cJSON *children = member(o, "children");
  if (s != SKN_OK || !children) return s;
  if (!cJSON_IsArray(children)) return skn__fail(SKN_ERR_PARSE, "%s.children is not an array", where);
  n->child_count = (uint32_t)cJSON_GetArraySize(children);
  n->children = skn__calloc(n->child_count ? n->child_count : 1, sizeof *n->children);
  if (!n->children) return skn__fail(SKN_ERR_OUT_OF_MEMORY, "%s: out of memory", where);
  for (uint32_t c = 0; c < n->child_count; ++c) {
    const cJSON *e = cJSON_GetArrayItem(children, (int)c);
    if (!cJSON_IsNumber(e) || e->valuedouble < 0 || e->valuedouble >= g->node_count || e->valuedouble != floor(e->valuedouble))
      return skn__fail(SKN_ERR_PARSE, "%s.children[%u] is not a node index below %u", where, c, g->node_count);
    n->children[c] = (uint32_t)e->valuedouble;
  }
  return SKN_OK;
}

/* JOINTS_n and WEIGHTS_n come in pairs, numbered from 0 without gaps. */
static skn_status parse_sets(gltf_primitive *p, const cJSON *attrs, const char *where) {
  for (uint32_t n = 0; n < GLTF_MAX_SETS; ++n) {
    char jk[16], wk[16];
    snprintf(jk, sizeof jk, "JOINTS_%u", n);
    snprintf(wk, sizeof wk, "WEIGHTS_%u", n);
    skn_status s = get_index(attrs, jk, where, &p->joints[n]);
    if (s == SKN_OK) s = get_index(attrs, wk, where, &p->weights[n]);
    if (s != SKN_OK) return s;
    if ((p->joints[n] < 0) != (p->weights[n] < 0))
      return skn__fail(SKN_ERR_PARSE, "%s.attributes: %s without %s", where, p->joints[n] < 0 ? wk : jk,
                       p->joints[n] < 0 ? jk : wk);
    if (p->joints[n] < 0) break;
    p->set_count = n + 1;
  }
  return SKN_OK;
}

/* Morph targets (§3.7.2.2): POSITION, NORMAL and TANGENT offsets each; a
 * target's other attributes (texture coordinates, colors) are not skinning. */
static skn_status parse_targets(gltf_primitive *p, const cJSON *o, const char *where) {
  const cJSON *targets = member(o, "targets");
  if (!targets) return SKN_OK;
  if (!cJSON_IsArray(targets)) return skn__fail(SKN_ERR_PARSE, "%s.targets is not an array", where);
  uint32_t n = (uint32_t)cJSON_GetArraySize(targets);
  p->targets = skn__calloc(n ? n : 1, sizeof *p->targets);
  if (!p->targets) return skn__fail(SKN_ERR_OUT_OF_MEMORY, "%s.targets: out of memory", where);
  p->target_count = n;
  uint32_t t = 0;
  for (const cJSON *e = targets->child; e; e = e->next, ++t) {
    char at[64];
    snprintf(at, sizeof at, "%s.targets[%u]", where, t);
    if (!cJSON_IsObject(e)) return skn__fail(SKN_ERR_PARSE, "%s is not an object", at);
    skn_status s = get_index(e, "POSITION", at, &p->targets[t][0]);
    if (s == SKN_OK) s = get_index(e, "NORMAL", at, &p->targets[t][1]);
    if (s == SKN_OK) s = get_index(e, "TANGENT", at, &p->targets[t][2]);
    if (s != SKN_OK) return s;
  }
  return SKN_OK;
}

static skn_status parse_primitive(skn_gltf *g, const cJSON *o, uint32_t mesh, uint32_t k, uint32_t i) {
  char where[48];
  gltf_primitive *p = &g->primitives[i];
  snprintf(where, sizeof where, "meshes[%u].primitives[%u]", mesh, k);
  p->mesh = mesh;
  p->index_in_mesh = k;
  const cJSON *attrs = member(o, "attributes");
  if (!cJSON_IsObject(attrs)) return skn__fail(SKN_ERR_PARSE, "%s.attributes is required", where);
  skn_status s = get_index(o, "indices", where, &p->indices);
  if (s == SKN_OK) s = get_uint(o, "mode", 4, 0, where, &p->mode);
  if (s == SKN_OK) s = get_index(attrs, "POSITION", where, &p->position);
  if (s == SKN_OK) s = get_index(attrs, "NORMAL", where, &p->normal);
  if (s == SKN_OK) s = get_index(attrs, "TANGENT", where, &p->tangent);
  if (s == SKN_OK) s = parse_sets(p, attrs, where);
  if (s == SKN_OK) s = parse_targets(p, o, where);
  if (s == SKN_OK && p->mode > 6) s = skn__fail(SKN_ERR_PARSE, "%s.mode %u is not a glTF primitive mode", where, p->mode);
  return s;
}

/* extras.targetNames: the morph targets' names as Blender and most
 * exporters write them (not in the spec; anything else there is ignored). */
static skn_status parse_target_names(gltf_mesh *me, const cJSON *mo, const char *where) {
  const cJSON *names = member(member(mo, "extras"), "targetNames");
  if (!cJSON_IsArray(names)) return SKN_OK;
  uint32_t n = (uint32_t)cJSON_GetArraySize(names);
  me->target_names = skn__calloc(n ? n : 1, sizeof *me->target_names);
  if (!me->target_names) return skn__fail(SKN_ERR_OUT_OF_MEMORY, "%s: out of memory", where);
  me->target_name_count = n;
  uint32_t i = 0;
  for (const cJSON *e = names->child; e; e = e->next, ++i) {
    const char *s = cJSON_IsString(e) ? e->valuestring : "";
    size_t len = strlen(s) + 1;
    if (!(me->target_names[i] = skn__alloc(len))) return skn__fail(SKN_ERR_OUT_OF_MEMORY, "%s: out of memory", where);
    memcpy(me->target_names[i], s, len);
  }
  return SKN_OK;
}

static skn_status parse_meshes(skn_gltf *g, const cJSON *root) {
  const cJSON *meshes = member(root, "meshes");
  uint32_t total = 0;
  for (uint32_t m = 0; m < g->mesh_count; ++m) {
    const cJSON *prims = member(cJSON_GetArrayItem(meshes, (int)m), "primitives");
    if (!cJSON_IsArray(prims) || cJSON_GetArraySize(prims) < 1)
      return skn__fail(SKN_ERR_PARSE, "meshes[%u].primitives must be a non-empty array", m);
    total += (uint32_t)cJSON_GetArraySize(prims);
  }
  g->primitives = skn__calloc(total ? total : 1, sizeof *g->primitives);
  if (!g->primitives) return skn__fail(SKN_ERR_OUT_OF_MEMORY, "meshes: out of memory");
  g->primitive_count = total;
  uint32_t next = 0;
  for (uint32_t m = 0; m < g->mesh_count; ++m) {
    const cJSON *mo = cJSON_GetArrayItem(meshes, (int)m), *prims = member(mo, "primitives");
    gltf_mesh *me = &g->meshes[m];
    char where[32];
    snprintf(where, sizeof where, "meshes[%u]", m);
    if (!(me->name = dup_string(mo, "name"))) return skn__fail(SKN_ERR_OUT_OF_MEMORY, "%s: out of memory", where);
    skn_status s = get_float_array(mo, "weights", where, &me->weight_count, &me->weights);
    if (s == SKN_OK) s = parse_target_names(me, mo, where);
    if (s != SKN_OK) return s;
    g->meshes[m].first_primitive = next;
    g->meshes[m].primitive_count = (uint32_t)cJSON_GetArraySize(prims);
    for (uint32_t k = 0; k < g->meshes[m].primitive_count; ++k, ++next) {
      skn_status s = parse_primitive(g, cJSON_GetArrayItem(prims, (int)k), m, k, next);
      if (s != SKN_OK) return s;
    }
  }
  return SKN_OK;
}

static skn_status parse_skin(skn_gltf *g, const cJSON *o, uint32_t i) {
  char where[32];
  gltf_skin *sk = &g->skins[i];
  snprintf(where, sizeof where, "skins[%u]", i);
  sk->name = dup_string(o, "name");
  skn_status s = get_index(o, "inverseBindMatrices", where, &sk->inverse_bind);
  if (s == SKN_OK) s = get_index(o, "skeleton", where, &sk->skeleton);
  const cJSON *joints = member(o, "joints");
  if (s != SKN_OK) return s;
  if (!cJSON_IsArray(joints) || cJSON_GetArraySize(joints) < 1)
    return skn__fail(SKN_ERR_PARSE, "%s.joints must be a non-empty array", where);
  sk->joint_count = (uint32_t)cJSON_GetArraySize(joints);
  sk->joints = skn__calloc(sk->joint_count, sizeof *sk->joints);
  if (!sk->joints) return skn__fail(SKN_ERR_OUT_OF_MEMORY, "%s: out of memory", where);
  for (uint32_t j = 0; j < sk->joint_count; ++j) {
    const cJSON *e = cJSON_GetArrayItem(joints, (int)j);
    if (!cJSON_IsNumber(e) || e->valuedouble < 0 || e->valuedouble != floor(e->valuedouble) || e->valuedouble > 4294967295.0)
      return skn__fail(SKN_ERR_PARSE, "%s.joints[%u] is not a node index", where, j);
    sk->joints[j] = (uint32_t)e->valuedouble;
  }
  return SKN_OK;
}

static skn_status parse_channel(gltf_animation *an, const cJSON *o, const char *where, uint32_t c) {
  gltf_channel *ch = &an->channels[c];
  const cJSON *target = member(o, "target"), *path = member(target, "path");
  skn_status s = get_uint(o, "sampler", 0, 0, where, &ch->sampler);
  if (s == SKN_OK && (!member(o, "sampler") || !cJSON_IsObject(target) || !cJSON_IsString(path)))
    s = skn__fail(SKN_ERR_PARSE, "%s.channels[%u]: sampler and target.path are required", where, c);
  if (s == SKN_OK) s = get_index(target, "node", where, &ch->node);
  if (s != SKN_OK) return s;
  const char *p = path->valuestring;
  ch->path = !strcmp(p, "translation") ? GLTF_PATH_TRANSLATION
             : !strcmp(p, "rotation")  ? GLTF_PATH_ROTATION
             : !strcmp(p, "scale")     ? GLTF_PATH_SCALE
             : !strcmp(p, "weights")   ? GLTF_PATH_WEIGHTS
                                       : GLTF_PATH_OTHER; /* an extension's (KHR_animation_pointer): not skinning */
  return SKN_OK;
}

static skn_status parse_animation(skn_gltf *g, const cJSON *o, uint32_t i) {
  char where[32];
  gltf_animation *an = &g->animations[i];
  snprintf(where, sizeof where, "animations[%u]", i);
  an->name = dup_string(o, "name");
  const cJSON *channels = member(o, "channels"), *samplers = member(o, "samplers");
  if (!cJSON_IsArray(channels) || !cJSON_IsArray(samplers))
    return skn__fail(SKN_ERR_PARSE, "%s: channels and samplers are required arrays", where);
  an->channel_count = (uint32_t)cJSON_GetArraySize(channels);
  an->sampler_count = (uint32_t)cJSON_GetArraySize(samplers);
  an->channels = skn__calloc(an->channel_count + 1, sizeof *an->channels);
  an->samplers = skn__calloc(an->sampler_count + 1, sizeof *an->samplers);
  if (!an->channels || !an->samplers) return skn__fail(SKN_ERR_OUT_OF_MEMORY, "%s: out of memory", where);
  for (uint32_t c = 0; c < an->channel_count; ++c) {
    skn_status s = parse_channel(an, cJSON_GetArrayItem(channels, (int)c), where, c);
    if (s != SKN_OK) return s;
  }
  for (uint32_t k = 0; k < an->sampler_count; ++k) {
    const cJSON *so = cJSON_GetArrayItem(samplers, (int)k), *interp = member(so, "interpolation");
    gltf_sampler *sm = &an->samplers[k];
    skn_status s = get_index(so, "input", where, &sm->input);
    if (s == SKN_OK) s = get_index(so, "output", where, &sm->output);
    if (s != SKN_OK) return s;
    const char *name = cJSON_IsString(interp) ? interp->valuestring : "LINEAR";
    sm->interpolation = !strcmp(name, "STEP") ? GLTF_STEP : !strcmp(name, "CUBICSPLINE") ? GLTF_CUBICSPLINE : GLTF_LINEAR;
    if (sm->input < 0 || sm->output < 0 || (interp && strcmp(name, "LINEAR") && sm->interpolation == GLTF_LINEAR))
      return skn__fail(SKN_ERR_PARSE, "%s.samplers[%u]: input, output and a known interpolation are required", where, k);
  }
  return SKN_OK;
}

/* The extensions skn implements, or whose family changes nothing it reads:
 * an asset requiring any other is refused (§3.12: a loader that does not
 * support a required extension MUST NOT load the asset). KHR_mesh_quantization's
 * integer attributes are read (accessor.c); the families after it concern
 * materials, textures, images, lights and metadata, which skn never opens.
 * Anything that changes buffers, meshes, nodes or animation (Draco,
 * meshopt, GPU instancing, ...) is refused by name. */
static const char *const SKN_GLTF_EXTENSIONS[] = {
    "KHR_mesh_quantization", "KHR_materials_", "KHR_texture_", "EXT_texture_", "GOOGLE_texture_",
    "MSFT_texture_", "KHR_lights_", "EXT_lights_", "KHR_xmp", NULL};

static int implemented(const char *name) {
  for (const char *const *k = SKN_GLTF_EXTENSIONS; *k; ++k) {
    size_t n = strlen(*k);
    if ((*k)[n - 1] == '_' ? !strncmp(name, *k, n) : !strcmp(name, *k)) return 1;
  }
  return 0;
}

static skn_status check_required_extensions(const cJSON *root) {
  const cJSON *req = member(root, "extensionsRequired");
  if (!req) return SKN_OK;
  if (!cJSON_IsArray(req)) return skn__fail(SKN_ERR_PARSE, "extensionsRequired is not an array");
  uint32_t i = 0;
  for (const cJSON *e = req->child; e; e = e->next, ++i) {
    if (!cJSON_IsString(e)) return skn__fail(SKN_ERR_PARSE, "extensionsRequired[%u] is not a string", i);
    if (!implemented(e->valuestring))
      return skn__fail(SKN_ERR_UNSUPPORTED, "extensionsRequired[%u]: the asset requires %s, which skn does not "
                       "implement", i, e->valuestring);
  }
  return SKN_OK;
}

/* Each kind of object, array by array, in dependency order. */
static skn_status parse_document(skn_gltf *g, const cJSON *root) {
  const cJSON *asset = member(root, "asset"), *version = member(asset, "version");
  if (!cJSON_IsObject(asset) || !cJSON_IsString(version))
    return skn__fail(SKN_ERR_PARSE, "asset.version is required");
  if (strncmp(version->valuestring, "2.", 2))
    return skn__fail(SKN_ERR_PARSE, "asset.version is \"%s\": only glTF 2.x is read", version->valuestring);
  skn_status s = check_required_extensions(root);
  if (s == SKN_OK) s = top_array(root, "buffers", sizeof *g->buffers, &g->buffer_count, (void **)&g->buffers);
  if (s == SKN_OK) s = top_array(root, "bufferViews", sizeof *g->views, &g->view_count, (void **)&g->views);
  if (s == SKN_OK) s = top_array(root, "accessors", sizeof *g->accessors, &g->accessor_count, (void **)&g->accessors);
  if (s == SKN_OK) s = top_array(root, "nodes", sizeof *g->nodes, &g->node_count, (void **)&g->nodes);
  if (s == SKN_OK) s = top_array(root, "meshes", sizeof *g->meshes, &g->mesh_count, (void **)&g->meshes);
  if (s == SKN_OK) s = top_array(root, "skins", sizeof *g->skins, &g->skin_count, (void **)&g->skins);
  if (s == SKN_OK) s = top_array(root, "animations", sizeof *g->animations, &g->animation_count, (void **)&g->animations);
#define EACH(kind, count, fn)                                                                   \
  for (uint32_t i = 0; s == SKN_OK && i < g->count; ++i) {                                      \
    const cJSON *o = cJSON_GetArrayItem(member(root, kind), (int)i);                            \
    s = cJSON_IsObject(o) ? fn(g, o, i) : skn__fail(SKN_ERR_PARSE, "%s[%u] is not an object", kind, i); \
  }
  EACH("buffers", buffer_count, parse_buffer)
  EACH("bufferViews", view_count, parse_view)
  EACH("accessors", accessor_count, parse_accessor)
  EACH("nodes", node_count, parse_node)
  EACH("skins", skin_count, parse_skin)
  EACH("animations", animation_count, parse_animation)
#undef EACH
  if (s == SKN_OK) s = parse_meshes(g, root);
  return s;
}

/* ---- the file ---- */

static uint32_t le32(const uint8_t *p) { return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24; }

/* GLB (glTF 2.0 §4.4): a 12-byte header, a JSON chunk, an optional BIN chunk. */
static skn_status split_glb(skn_gltf *g, uint8_t *data, size_t size, const char **json, size_t *json_length) {
  if (size < 20) return skn__fail(SKN_ERR_PARSE, "%s: GLB truncated in its header (%zu bytes)", g->path, size);
  uint32_t version = le32(data + 4), length = le32(data + 8), chunk = le32(data + 12), type = le32(data + 16);
  if (version != 2) return skn__fail(SKN_ERR_PARSE, "%s: GLB version %u, expected 2", g->path, version);
  if (length > size) return skn__fail(SKN_ERR_PARSE, "%s: GLB header says %u bytes, the file has %zu (truncated)", g->path, length, size);
  if (length < 20) /* the chunk checks below subtract 20 from it */
    return skn__fail(SKN_ERR_PARSE, "%s: GLB header's length %u is smaller than the header and a chunk's (20)", g->path,
                     length);
  if (type != GLB_CHUNK_JSON || (size_t)chunk > length - 20)
    return skn__fail(SKN_ERR_PARSE, "%s: GLB's first chunk is not a JSON chunk inside the file", g->path);
  *json = (const char *)data + 20;
  *json_length = chunk;
  size_t next = 20 + (size_t)chunk;
  if (next + 8 <= length && le32(data + next + 4) == GLB_CHUNK_BIN) {
    size_t bin = le32(data + next);
    if (bin > length - next - 8)
      return skn__fail(SKN_ERR_PARSE, "%s: GLB's BIN chunk of %zu bytes runs past the end (truncated)", g->path, bin);
    g->glb_bin = data + next + 8;
    g->glb_bin_length = bin;
  }
  return SKN_OK;
}

skn_status skn__gltf_parse(skn_gltf *g, uint8_t *data, size_t size) {
  size_t json_length = 0;
  const char *json = NULL, *end = NULL;
  skn_status s = SKN_OK;
  if (size >= 4 && le32(data) == GLB_MAGIC) {
    s = split_glb(g, data, size, &json, &json_length);
  } else {
    json = (const char *)data;
    json_length = size;
  }
  /* where parsing stopped comes back through `end`, not cJSON's global
   * error pointer, which another thread's parse may be writing */
  cJSON *root = s == SKN_OK ? cJSON_ParseWithLengthOpts(json, json_length, &end, 0) : NULL;
  if (s == SKN_OK && !cJSON_IsObject(root)) {
    s = skn__fail(SKN_ERR_PARSE, "%s: not valid JSON (near byte %ld)", g->path,
                  end && end >= json ? (long)(end - json) : (long)json_length);
  }
  if (s == SKN_OK) s = parse_document(g, root);
  cJSON_Delete(root);
  if (s == SKN_OK && g->glb_bin) { /* keep the BIN chunk as the first buffer's bytes */
    size_t offset = (size_t)(g->glb_bin - data);
    memmove(data, data + offset, g->glb_bin_length);
    g->glb_bin = data;
    return SKN_OK;
  }
  g->glb_bin = NULL;
  skn__free(data);
  return s;
}
