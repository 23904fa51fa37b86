/* document.c — skn_gltf_open (parse -> load buffers -> validate) and the
 * calls that describe a document. */
#include "gltf.h"

#include <stdlib.h>
#include <string.h>

void skn__gltf_free(skn_gltf *g) {
  for (uint32_t i = 0; i < g->buffer_count; ++i) {
    if (g->buffers[i].uri) free(g->buffers[i].data); /* a uri-less buffer is the GLB chunk */
    free(g->buffers[i].uri);
  }
  for (uint32_t i = 0; i < g->node_count; ++i) free(g->nodes[i].children);
  for (uint32_t i = 0; i < g->mesh_count; ++i) free(g->meshes[i].name);
  for (uint32_t i = 0; i < g->skin_count; ++i) {
    free(g->skins[i].name);
    free(g->skins[i].joints);
  }
  for (uint32_t i = 0; i < g->animation_count; ++i) {
    free(g->animations[i].name);
    free(g->animations[i].channels);
    free(g->animations[i].samplers);
  }
  free(g->buffers);
  free(g->views);
  free(g->accessors);
  free(g->nodes);
  free(g->meshes);
  free(g->primitives);
  free(g->skins);
  free(g->animations);
  free(g->skinned);
  free(g->node_order);
  free(g->glb_bin);
  free(g->path);
  free(g->dir);
  free(g);
}

SKN_API skn_status skn_gltf_open(const char *path, skn_gltf **out) {
  if (!path || !out) return skn__fail(SKN_ERR_INVALID_ARGUMENT, "gltf_open: path and out are required");
  skn_gltf *g = calloc(1, sizeof *g);
  if (!g) return skn__fail(SKN_ERR_OUT_OF_MEMORY, "gltf_open: out of memory");
  skn_status s = skn__gltf_parse(g, path);
  if (s == SKN_OK) s = skn__gltf_load_buffers(g);
  if (s == SKN_OK) s = skn__gltf_validate(g);
  if (s != SKN_OK) {
    skn__gltf_free(g);
    return s;
  }
  *out = g;
  return SKN_OK;
}

SKN_API void skn_gltf_close(skn_gltf *gltf) {
  if (gltf) skn__gltf_free(gltf);
}

SKN_API skn_status skn_gltf_info_get(const skn_gltf *g, skn_gltf_info *out) {
  if (!g || !out) return skn__fail(SKN_ERR_INVALID_ARGUMENT, "gltf_info_get: gltf and out are required");
  skn_gltf_info info = {sizeof info, g->skinned_count, g->skin_count, g->animation_count, g->node_count, g->mesh_count};
  return skn__fill_info(out, &info, sizeof info, sizeof info, "gltf_info_get");
}

uint32_t skn__gltf_triangle_count(const skn_gltf *g, const gltf_primitive *p) {
  uint32_t n = p->indices >= 0 ? g->accessors[p->indices].count : g->accessors[p->position].count;
  if (p->mode == 4) return n / 3;
  if (p->mode == 5 || p->mode == 6) return n >= 3 ? n - 2 : 0;
  return 0;
}

static skn_status check_primitive(const skn_gltf *g, uint32_t primitive, const char *call) {
  if (!g) return skn__fail(SKN_ERR_INVALID_ARGUMENT, "%s: gltf is required", call);
  if (primitive >= g->skinned_count)
    return skn__fail(SKN_ERR_INDEX_OUT_OF_RANGE, "%s: primitive %u >= %u skinned primitives", call, primitive,
                     g->skinned_count);
  return SKN_OK;
}

SKN_API skn_status skn_gltf_primitive_info_get(const skn_gltf *g, uint32_t primitive, skn_gltf_primitive_info *out) {
  skn_status s = check_primitive(g, primitive, "gltf_primitive_info_get");
  if (s != SKN_OK) return s;
  if (!out) return skn__fail(SKN_ERR_INVALID_ARGUMENT, "gltf_primitive_info_get: out is required");
  const gltf_skinned *sp = &g->skinned[primitive];
  const gltf_primitive *p = &g->primitives[sp->primitive];
  skn_gltf_primitive_info info = {sizeof info, p->mesh, p->index_in_mesh, sp->node, sp->skin,
                                  g->accessors[p->position].count, skn__gltf_triangle_count(g, p),
                                  g->skins[sp->skin].joint_count, 4 * p->set_count,
                                  (p->normal >= 0 ? SKN_GLTF_HAS_NORMALS : 0u) | (p->tangent >= 0 ? SKN_GLTF_HAS_TANGENTS : 0u),
                                  g->meshes[p->mesh].name};
  return skn__fill_info(out, &info, sizeof info, sizeof info, "gltf_primitive_info_get");
}

SKN_API skn_status skn_gltf_animation_info_get(const skn_gltf *g, uint32_t animation, skn_gltf_animation_info *out) {
  if (!g || !out) return skn__fail(SKN_ERR_INVALID_ARGUMENT, "gltf_animation_info_get: gltf and out are required");
  if (animation >= g->animation_count)
    return skn__fail(SKN_ERR_INDEX_OUT_OF_RANGE, "gltf_animation_info_get: animation %u >= %u animations", animation,
                     g->animation_count);
  const gltf_animation *a = &g->animations[animation];
  skn_gltf_animation_info info = {sizeof info, a->channel_count, a->start, a->end, a->name};
  return skn__fill_info(out, &info, sizeof info, sizeof info, "gltf_animation_info_get");
}

SKN_API skn_status skn_gltf_find_animation(const skn_gltf *g, const char *name, uint32_t *out_index) {
  if (!g || !name || !out_index)
    return skn__fail(SKN_ERR_INVALID_ARGUMENT, "gltf_find_animation: gltf, name and out_index are required");
  for (uint32_t i = 0; i < g->animation_count; ++i)
    if (!strcmp(g->animations[i].name, name)) {
      *out_index = i;
      return SKN_OK;
    }
  return skn__fail(SKN_ERR_INDEX_OUT_OF_RANGE, "gltf_find_animation: no animation is named \"%s\"", name);
}
