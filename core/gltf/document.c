/* document.c — skn_gltf_open (parse -> load buffers -> validate) and the
 * calls that describe a document. */
#include "gltf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void skn__gltf_free(skn_gltf *g) {
  for (uint32_t i = 0; i < g->buffer_count; ++i) {
    if (g->buffers[i].uri) skn__free(g->buffers[i].data); /* a uri-less buffer is the GLB chunk, or has no bytes */
    skn__free(g->buffers[i].uri);
  }
  for (uint32_t i = 0; i < g->node_count; ++i) {
    skn__free(g->nodes[i].children);
    skn__free(g->nodes[i].name);
    skn__free(g->nodes[i].weights);
  }
  for (uint32_t i = 0; i < g->mesh_count; ++i) {
    skn__free(g->meshes[i].name);
    skn__free(g->meshes[i].weights);
    for (uint32_t k = 0; g->meshes[i].target_names && k < g->meshes[i].target_name_count; ++k)
      skn__free(g->meshes[i].target_names[k]);
    skn__free(g->meshes[i].target_names);
  }
  for (uint32_t i = 0; i < g->primitive_count; ++i) skn__free(g->primitives[i].targets);
  for (uint32_t i = 0; i < g->skin_count; ++i) {
    skn__free(g->skins[i].name);
    skn__free(g->skins[i].joints);
  }
  for (uint32_t i = 0; i < g->animation_count; ++i) {
    skn__free(g->animations[i].name);
    skn__free(g->animations[i].channels);
    skn__free(g->animations[i].samplers);
  }
  skn__free(g->buffers);
  skn__free(g->views);
  skn__free(g->accessors);
  skn__free(g->nodes);
  skn__free(g->meshes);
  skn__free(g->primitives);
  skn__free(g->skins);
  skn__free(g->animations);
  skn__free(g->skinned);
  skn__free(g->node_order);
  skn__free(g->glb_bin);
  skn__free(g->path);
  skn__free(g->dir);
  skn__free(g);
}

/* The whole file, with a NUL after it (JSON text stops there): a regular
 * file only (files.c), its size from the file system. */
static skn_status read_file(const char *path, uint8_t **data, size_t *size) {
  int fd;
  struct stat st;
  skn_status s = skn__gltf_open_file(path, "gltf_open", &fd, &st);
  if (s != SKN_OK) return s;
  uint64_t n = (uint64_t)st.st_size;
  *data = n < SIZE_MAX ? skn__alloc((size_t)n + 1) : NULL;
  if (!*data) s = skn__fail(SKN_ERR_OUT_OF_MEMORY, "%s: out of memory for %llu bytes", path, (unsigned long long)n);
  if (s == SKN_OK) s = skn__gltf_read_fd(fd, path, "gltf_open", *data, (size_t)n);
  close(fd);
  if (s != SKN_OK) {
    skn__free(*data);
    *data = NULL;
    return s;
  }
  (*data)[n] = 0;
  *size = (size_t)n;
  return SKN_OK;
}

/* The document's name in messages, and the folder its relative URIs are
 * read from: the file's own, `folder` for one in memory (NULL: none). */
static skn_status name_document(skn_gltf *g, const char *path, const char *folder) {
  size_t n = strlen(path), f = folder ? strlen(folder) : 0;
  g->path = skn__alloc(n + 1);
  g->dir = folder ? skn__alloc(f + 2) : NULL;
  if (!g->path || (folder && !g->dir)) return skn__fail(SKN_ERR_OUT_OF_MEMORY, "gltf_open: out of memory");
  memcpy(g->path, path, n + 1);
  if (folder) { /* "" for the current folder; else it ends with a '/' */
    memcpy(g->dir, folder, f);
    if (f && folder[f - 1] != '/') g->dir[f++] = '/';
    g->dir[f] = 0;
  }
  return SKN_OK;
}

/* The folder of a file's path, with its '/' ("" for a bare name). */
static skn_status folder_of(const char *path, char **out) {
  const char *slash = strrchr(path, '/');
  size_t d = slash ? (size_t)(slash - path) + 1 : 0;
  *out = skn__alloc(d + 1);
  if (!*out) return skn__fail(SKN_ERR_OUT_OF_MEMORY, "gltf_open: out of memory");
  memcpy(*out, path, d);
  (*out)[d] = 0;
  return SKN_OK;
}

/* Parse (taking `data`), load the buffers, validate; *out on success. */
static skn_status open_document(skn_gltf *g, uint8_t *data, size_t size, skn_gltf **out) {
  skn_status s = skn__gltf_parse(g, data, size);
  if (s == SKN_OK) s = skn__gltf_load_buffers(g);
  if (s == SKN_OK) s = skn__gltf_validate(g);
  if (s != SKN_OK) {
    skn__gltf_free(g);
    return s;
  }
  *out = g;
  return SKN_OK;
}

static skn_status open_file(const char *path, uint32_t flags, skn_gltf **out) {
  skn_gltf *g = skn__calloc(1, sizeof *g);
  if (!g) return skn__fail(SKN_ERR_OUT_OF_MEMORY, "gltf_open: out of memory");
  g->open_flags = flags;
  uint8_t *data = NULL;
  size_t size = 0;
  char *folder = NULL;
  skn_status s = folder_of(path, &folder);
  if (s == SKN_OK) s = name_document(g, path, folder);
  skn__free(folder);
  if (s == SKN_OK) s = read_file(path, &data, &size);
  if (s != SKN_OK) {
    skn__gltf_free(g);
    return s;
  }
  return open_document(g, data, size, out);
}

static skn_status open_memory(const void *bytes, size_t size, const char *folder, uint32_t flags, skn_gltf **out) {
  skn_gltf *g = skn__calloc(1, sizeof *g);
  uint8_t *data = size < SIZE_MAX ? skn__alloc(size + 1) : NULL;
  skn_status s = g && data ? name_document(g, "(memory)", folder)
                           : skn__fail(SKN_ERR_OUT_OF_MEMORY, "gltf_open_memory: out of memory for %zu bytes", size);
  if (s != SKN_OK) {
    skn__free(data);
    if (g) skn__gltf_free(g);
    return s;
  }
  g->open_flags = flags;
  memcpy(data, bytes, size);
  data[size] = 0;
  return open_document(g, data, size, out);
}

SKN_API skn_status skn_gltf_open(const char *path, skn_gltf **out) {
  if (!path || !out) return skn__fail(SKN_ERR_INVALID_ARGUMENT, "gltf_open: path and out are required");
  return open_file(path, 0, out);
}

SKN_API skn_status skn_gltf_open_memory(const void *bytes, size_t size, skn_gltf **out) {
  if (!bytes || !out) return skn__fail(SKN_ERR_INVALID_ARGUMENT, "gltf_open_memory: data and out are required");
  return open_memory(bytes, size, NULL, 0, out);
}

SKN_API skn_status skn_gltf_open_with(const skn_gltf_open_desc *caller, skn_gltf **out) {
  if (!caller || !out) return skn__fail(SKN_ERR_INVALID_ARGUMENT, "gltf_open_with: desc and out are required");
  if (caller->struct_size < SKN_GLTF_OPEN_DESC_V1_SIZE)
    return skn__fail(SKN_ERR_INVALID_ARGUMENT, "gltf_open_with: struct_size %u is smaller than %u", caller->struct_size,
                     SKN_GLTF_OPEN_DESC_V1_SIZE);
  skn_gltf_open_desc d; /* the fields the caller's struct has */
  memset(&d, 0, sizeof d);
  memcpy(&d, caller, SKN_MIN((size_t)caller->struct_size, sizeof d));
  if (!d.path == !d.data)
    return skn__fail(SKN_ERR_INVALID_ARGUMENT, "gltf_open_with: give exactly one of path and data (%s given)",
                     d.path ? "both" : "neither");
  if (d.flags & ~(uint32_t)SKN_GLTF_OPEN_ANY_PATH)
    return skn__fail(SKN_ERR_INVALID_ARGUMENT, "gltf_open_with: unknown flags 0x%x", d.flags & ~(uint32_t)SKN_GLTF_OPEN_ANY_PATH);
  return d.path ? open_file(d.path, d.flags, out) : open_memory(d.data, d.size, d.folder, d.flags, out);
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
                                  g->meshes[p->mesh].name, g->nodes[sp->node].name, p->target_count};
  return skn__fill_info(out, &info, sizeof info, SKN_GLTF_PRIMITIVE_INFO_V1_SIZE, "gltf_primitive_info_get");
}

SKN_API skn_status skn_gltf_morph_target_name(const skn_gltf *g, uint32_t primitive, uint32_t target,
                                              const char **out_name) {
  skn_status s = check_primitive(g, primitive, "gltf_morph_target_name");
  if (s != SKN_OK) return s;
  if (!out_name) return skn__fail(SKN_ERR_INVALID_ARGUMENT, "gltf_morph_target_name: out_name is required");
  const gltf_primitive *p = &g->primitives[g->skinned[primitive].primitive];
  if (target >= p->target_count)
    return skn__fail(SKN_ERR_INDEX_OUT_OF_RANGE, "gltf_morph_target_name: target %u >= %u morph targets", target,
                     p->target_count);
  const gltf_mesh *me = &g->meshes[p->mesh];
  *out_name = target < me->target_name_count ? me->target_names[target] : "";
  return SKN_OK;
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
