/* skn_gl.c — the OpenGL adapter (skn_gl.h): a context's version and limits
 * decide the path (the compute path is gl_compute.c), the GLSL dialect and,
 * on the vertex path, where the palette lives; there the rig's inputs go
 * into one interleaved vertex buffer and the palette is uploaded whole each
 * frame. The programs are built by gl_program.c. Everything the adapter
 * knows of skinning it takes from abi/skn.h (skn_glsl_source,
 * skn_gpu_layout_get, skn_rig_gpu_attributes, skn_rig_gpu_buffers,
 * skn_pose_gpu_palette). */
#include "gl_internal.h"

#include <stdint.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the context ---- */

/* OpenGL 3.3 core or later, or OpenGL ES 3.0 or later: the GLSL dialect. */
static skn_status context_dialect(skn_gl *g) {
  const char *v = (const char *)g->gl.GetString(GL_VERSION);
  if (!v) return skn_set_error(SKN_ERR_UNSUPPORTED, "skn_gl_create: no current GL context (glGetString(GL_VERSION) is NULL)");
  int es = !strncmp(v, "OpenGL ES", 9), major = 0, minor = 0;
  if (sscanf(es ? v + 9 : v, " %d.%d", &major, &minor) != 2 || major * 10 + minor < (es ? 30 : 33)) {
    char msg[256];
    snprintf(msg, sizeof msg, "skn_gl_create: the context is \"%s\"; skn's GLSL needs OpenGL 3.3 or OpenGL ES 3.0", v);
    return skn_set_error(SKN_ERR_UNSUPPORTED, msg);
  }
  g->dialect = es ? SKN_GLSL_300_ES : SKN_GLSL_330;
  g->version = major * 10 + minor;
  return SKN_OK;
}

/* The limit `what`, or 0 where the context does not know it. */
static uint64_t limit(skn_gl *g, GLenum what) {
  GLint v = 0;
  g->gl.GetIntegerv(what, &v);
  return v > 0 ? (uint64_t)v : 0;
}

static const char *const PALETTE_NAMES[] = {"auto", "a uniform block", "a texture buffer", "a 2D texture"};

/* Where the palette of palette_texels (joint_count x vec4s, and the morph
 * weights) lives: the host's
 * choice, checked, or the first that fits of uniform block, texture buffer
 * (OpenGL only) and 2D texture. */
static skn_status choose_palette(skn_gl *g, skn_gl_palette want) {
  uint64_t texels = g->palette_texels, side = limit(g, GL_MAX_TEXTURE_SIZE);
  int fits[4] = {0};
  fits[SKN_GL_PALETTE_UNIFORM_BLOCK] = texels * 16 <= limit(g, GL_MAX_UNIFORM_BLOCK_SIZE);
  fits[SKN_GL_PALETTE_TEXTURE_BUFFER] = g->dialect == SKN_GLSL_330 && g->gl.TexBuffer &&
                                        texels <= limit(g, GL_MAX_TEXTURE_BUFFER_SIZE);
  fits[SKN_GL_PALETTE_TEXTURE_2D] = texels <= side * side;
  skn_gl_palette p = want;
  for (int k = SKN_GL_PALETTE_UNIFORM_BLOCK; p == SKN_GL_PALETTE_AUTO && k <= SKN_GL_PALETTE_TEXTURE_2D; ++k)
    if (fits[k]) p = (skn_gl_palette)k;
  if (p == SKN_GL_PALETTE_AUTO || !fits[p]) {
    char msg[320];
    snprintf(msg, sizeof msg, "skn_gl_create: a palette of %u joints x %u vec4 (%llu bytes) does not fit %s in this "
             "context (GL_MAX_UNIFORM_BLOCK_SIZE %llu, GL_MAX_TEXTURE_BUFFER_SIZE %llu texels, GL_MAX_TEXTURE_SIZE %llu)",
             g->joint_count, g->vec4s, (unsigned long long)texels * 16, want ? PALETTE_NAMES[want] : "anywhere",
             (unsigned long long)limit(g, GL_MAX_UNIFORM_BLOCK_SIZE),
             (unsigned long long)(g->dialect == SKN_GLSL_330 ? limit(g, GL_MAX_TEXTURE_BUFFER_SIZE) : 0),
             (unsigned long long)side);
    return skn_set_error(SKN_ERR_UNSUPPORTED, msg);
  }
  g->palette = p;
  g->tex_width = (uint32_t)(texels < side ? texels : side);
  g->tex_height = (uint32_t)((texels + g->tex_width - 1) / g->tex_width);
  return SKN_OK;
}

/* ---- the bindings a call changes, put back after it ---- */

/* Not the current program: the adapter never changes it outside
 * skn_gl_bind (a program deleted while current stays current, and binding
 * its name again would be an error). Deleting a bound buffer, texture or
 * vertex array unbinds it, so the names saved here stay valid. */
typedef struct gl_state {
  GLint vertex_array, array_buffer, uniform_buffer, texture_buffer, active_texture;
  GLint texture_2d, texture_buffer_texture, unpack_buffer, unpack[4];
} gl_state;

static const GLenum UNPACK[4] = {GL_UNPACK_ALIGNMENT, GL_UNPACK_ROW_LENGTH, GL_UNPACK_SKIP_ROWS, GL_UNPACK_SKIP_PIXELS};

static void state_save(const skn_gl *g, gl_state *s) {
  const skn_gl_api *gl = &g->gl;
  memset(s, 0, sizeof *s);
  gl->GetIntegerv(GL_VERTEX_ARRAY_BINDING, &s->vertex_array);
  gl->GetIntegerv(GL_ARRAY_BUFFER_BINDING, &s->array_buffer);
  gl->GetIntegerv(GL_UNIFORM_BUFFER_BINDING, &s->uniform_buffer);
  gl->GetIntegerv(GL_ACTIVE_TEXTURE, &s->active_texture);
  gl->GetIntegerv(GL_TEXTURE_BINDING_2D, &s->texture_2d);
  gl->GetIntegerv(GL_PIXEL_UNPACK_BUFFER_BINDING, &s->unpack_buffer);
  for (int k = 0; k < 4; ++k) gl->GetIntegerv(UNPACK[k], &s->unpack[k]);
  if (g->dialect == SKN_GLSL_330) { /* ES 3.0 has no texture buffers: asking would be GL_INVALID_ENUM */
    gl->GetIntegerv(GL_TEXTURE_BUFFER_BINDING, &s->texture_buffer);
    gl->GetIntegerv(GL_TEXTURE_BINDING_BUFFER, &s->texture_buffer_texture);
  }
}

static void state_restore(const skn_gl *g, const gl_state *s) {
  const skn_gl_api *gl = &g->gl;
  gl->BindVertexArray((GLuint)s->vertex_array);
  gl->BindBuffer(GL_ARRAY_BUFFER, (GLuint)s->array_buffer);
  gl->BindBuffer(GL_UNIFORM_BUFFER, (GLuint)s->uniform_buffer);
  gl->BindBuffer(GL_PIXEL_UNPACK_BUFFER, (GLuint)s->unpack_buffer);
  for (int k = 0; k < 4; ++k) gl->PixelStorei(UNPACK[k], s->unpack[k]);
  gl->ActiveTexture((GLenum)s->active_texture);
  gl->BindTexture(GL_TEXTURE_2D, (GLuint)s->texture_2d);
  if (g->dialect == SKN_GLSL_330) {
    gl->BindBuffer(GL_TEXTURE_BUFFER, (GLuint)s->texture_buffer);
    gl->BindTexture(GL_TEXTURE_BUFFER, (GLuint)s->texture_buffer_texture);
  }
}

/* SKN_OK, or the first GL error pending, named, after `what`. */
skn_status skn__gl_check(const skn_gl *g, const char *what) {
  GLenum e = g->gl.GetError();
  if (e == GL_NO_ERROR) return SKN_OK;
  while (g->gl.GetError() != GL_NO_ERROR) {}
  char msg[160];
  snprintf(msg, sizeof msg, "%s: %s (0x%04x)", what, skn_gl_error_name(e), e);
  return skn_set_error(e == GL_OUT_OF_MEMORY ? SKN_ERR_OUT_OF_MEMORY : SKN_ERR_UNSUPPORTED, msg);
}

/* ---- the vertex inputs ---- */

/* One vertex's record in the vertex buffer, each input at its offset, and
 * which the rig and method provide. */
typedef struct vertex_record {
  uint32_t size, position, normal, tangent, joints, weights, blend, center, morph_range;
  int has_normal, has_tangent, has_blend, has_center, has_morphs;
} vertex_record;

/* Whether the program reads vertex input `name`. */
static int reads(const skn_gl *g, const char *name) { return g->gl.GetAttribLocation(g->program, name) >= 0; }

/* The record holds the rest normals and tangents only where the program
 * reads them (and the rig has them: attach_input refuses the rest). */
static vertex_record record_layout(const skn_gl *g, uint32_t flags, uint32_t joint_bytes) {
  vertex_record r = {0};
  r.has_normal = (flags & SKN_RIG_HAS_NORMALS) && reads(g, "skn_rest_normal");
  r.has_tangent = (flags & SKN_RIG_HAS_TANGENTS) && reads(g, "skn_rest_tangent");
  r.has_blend = g->gpu.method == SKN_METHOD_BLEND;
  r.has_center = g->gpu.method == SKN_METHOD_COR;
  r.position = 0, r.size = 12;
  if (r.has_normal) r.normal = r.size, r.size += 12;
  if (r.has_tangent) r.tangent = r.size, r.size += 16;
  r.weights = r.size, r.size += 4 * g->influences;
  if (r.has_blend) r.blend = r.size, r.size += 4;
  if (r.has_center) r.center = r.size, r.size += 16;
  r.has_morphs = (g->gpu.flags & SKN_GLSL_MORPHS) != 0;
  if (r.has_morphs) r.morph_range = r.size, r.size += 8;
  r.joints = r.size, r.size += (g->influences * joint_bytes + 3) & ~3u;
  return r;
}

static skn_status fill_vertices(const skn_rig *rig, const skn_gl *g, const vertex_record *r, uint32_t joint_bits,
                                char *v) {
  skn_gpu_attributes a = {sizeof a};
  a.influences = g->influences;
  a.joint_bits = joint_bits;
  a.joints = (skn_out_attrib){v + r->joints, r->size};
  a.weights = (skn_out_attrib){v + r->weights, r->size};
  a.positions = (skn_out_attrib){v + r->position, r->size};
  if (r->has_normal) a.normals = (skn_out_attrib){v + r->normal, r->size};
  if (r->has_tangent) a.tangents = (skn_out_attrib){v + r->tangent, r->size};
  if (r->has_blend) a.blend_weights = (skn_out_attrib){v + r->blend, r->size};
  if (r->has_center) a.centers = (skn_out_attrib){v + r->center, r->size};
  if (r->has_morphs) a.morph_ranges = (skn_out_attrib){v + r->morph_range, r->size};
  return skn_rig_gpu_attributes(rig, &a);
}

/* Points the program's input `name`, where it reads it, at the record's
 * field; SKN_ERR_INVALID_ARGUMENT where it reads one the rig lacks. */
static skn_status attach_input(skn_gl *g, const char *name, int present, uint32_t offset, GLint components,
                               GLenum type, uint32_t stride) {
  GLint loc = g->gl.GetAttribLocation(g->program, name); /* -1: the program does not read it */
  if (loc < 0) return SKN_OK;
  if (!present) {
    char msg[160];
    snprintf(msg, sizeof msg, "skn_gl_create: the vertex shader reads %s, which the rig was bound without", name);
    return skn_set_error(SKN_ERR_INVALID_ARGUMENT, msg);
  }
  const void *at = (const void *)(uintptr_t)offset; /* into the bound vertex buffer */
  if (type == GL_FLOAT)
    g->gl.VertexAttribPointer((GLuint)loc, components, type, 0, (GLsizei)stride, at);
  else
    g->gl.VertexAttribIPointer((GLuint)loc, components, type, (GLsizei)stride, at);
  g->gl.EnableVertexAttribArray((GLuint)loc);
  return SKN_OK;
}

static skn_status attach_inputs(skn_gl *g, const vertex_record *r, GLenum joint_type, uint32_t joint_bytes) {
  uint32_t k = g->influences, s = r->size;
  skn_status st = attach_input(g, "skn_rest_position", 1, r->position, 3, GL_FLOAT, s);
  if (!st) st = attach_input(g, "skn_rest_normal", r->has_normal, r->normal, 3, GL_FLOAT, s);
  if (!st) st = attach_input(g, "skn_rest_tangent", r->has_tangent, r->tangent, 4, GL_FLOAT, s);
  for (uint32_t q = 0; !st && q < k / 4; ++q) { /* skn_joints0 and skn_weights0 the first four, ... */
    char joints[24], weights[24];
    snprintf(joints, sizeof joints, "skn_joints%u", q);
    snprintf(weights, sizeof weights, "skn_weights%u", q);
    st = attach_input(g, joints, 1, r->joints + 4 * q * joint_bytes, 4, joint_type, s);
    if (!st) st = attach_input(g, weights, 1, r->weights + 16 * q, 4, GL_FLOAT, s);
  }
  if (!st) st = attach_input(g, "skn_blend", r->has_blend, r->blend, 1, GL_FLOAT, s);
  if (!st) st = attach_input(g, "skn_center", r->has_center, r->center, 4, GL_FLOAT, s);
  if (!st) st = attach_input(g, "skn_morph_range", r->has_morphs, r->morph_range, 2, GL_UNSIGNED_INT, s);
  return st;
}

/* The vertex array: the rig's inputs interleaved, and the triangles. */
static skn_status make_vertex_array(skn_gl *g, const skn_rig *rig, const skn_gl_desc *d, uint32_t flags) {
  uint32_t joint_bits = d->joint_bits ? d->joint_bits : 16, joint_bytes = joint_bits / 8;
  vertex_record r = record_layout(g, flags, joint_bytes);
  char *v = calloc(g->vertex_count ? g->vertex_count : 1, r.size);
  if (!v) return skn_set_error(SKN_ERR_OUT_OF_MEMORY, "skn_gl_create: out of memory for the vertex buffer");
  skn_status s = fill_vertices(rig, g, &r, joint_bits, v);
  if (s == SKN_OK) {
    g->gl.GenVertexArrays(1, &g->vertex_array);
    g->gl.BindVertexArray(g->vertex_array);
    g->gl.GenBuffers(1, &g->vertex_buffer);
    g->gl.BindBuffer(GL_ARRAY_BUFFER, g->vertex_buffer);
    g->gl.BufferData(GL_ARRAY_BUFFER, (GLsizeiptr)r.size * g->vertex_count, v, GL_STATIC_DRAW);
    s = attach_inputs(g, &r, joint_bits == 8 ? GL_UNSIGNED_BYTE : GL_UNSIGNED_SHORT, joint_bytes);
  }
  free(v);
  if (s == SKN_OK && d->indices && d->index_count) {
    g->gl.GenBuffers(1, &g->index_buffer);
    g->gl.BindBuffer(GL_ELEMENT_ARRAY_BUFFER, g->index_buffer);
    g->gl.BufferData(GL_ELEMENT_ARRAY_BUFFER, (GLsizeiptr)d->index_count * 4, d->indices, GL_STATIC_DRAW);
    g->index_count = d->index_count;
  }
  return s == SKN_OK ? skn__gl_check(g, "skn_gl_create: the vertex array") : s;
}

/* ---- the palette ---- */

/* The palette's buffer or texture, empty until the first update. */
static skn_status make_palette(skn_gl *g) {
  const skn_gl_api *gl = &g->gl;
  g->staging_bytes = (size_t)g->palette_texels * 16;
  if (g->palette == SKN_GL_PALETTE_TEXTURE_2D) g->staging_bytes = (size_t)g->tex_width * g->tex_height * 16;
  g->staging = calloc(1, g->staging_bytes);
  if (!g->staging) return skn_set_error(SKN_ERR_OUT_OF_MEMORY, "skn_gl_create: out of memory for the palette");
  if (g->palette == SKN_GL_PALETTE_UNIFORM_BLOCK) {
    gl->GenBuffers(1, &g->palette_buffer);
    gl->BindBuffer(GL_UNIFORM_BUFFER, g->palette_buffer);
    gl->BufferData(GL_UNIFORM_BUFFER, (GLsizeiptr)g->staging_bytes, g->staging, GL_STREAM_DRAW);
  } else if (g->palette == SKN_GL_PALETTE_TEXTURE_BUFFER) {
    gl->GenBuffers(1, &g->palette_buffer);
    gl->BindBuffer(GL_TEXTURE_BUFFER, g->palette_buffer);
    gl->BufferData(GL_TEXTURE_BUFFER, (GLsizeiptr)g->staging_bytes, g->staging, GL_STREAM_DRAW);
    gl->GenTextures(1, &g->palette_texture);
    gl->BindTexture(GL_TEXTURE_BUFFER, g->palette_texture);
    gl->TexBuffer(GL_TEXTURE_BUFFER, GL_RGBA32F, g->palette_buffer);
  } else {
    gl->GenTextures(1, &g->palette_texture);
    gl->BindTexture(GL_TEXTURE_2D, g->palette_texture);
    gl->TexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    gl->TexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    gl->BindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
    gl->TexImage2D(GL_TEXTURE_2D, 0, GL_RGBA32F, (GLsizei)g->tex_width, (GLsizei)g->tex_height, 0, GL_RGBA,
                   GL_FLOAT, g->staging);
  }
  return skn__gl_check(g, "skn_gl_create: the palette");
}

/* The vertex path's morph entries (skn_rig_gpu_buffers, vertex by
 * vertex): an R32UI 2D texture, a word a texel in rows as wide as the
 * context allows, on texture unit palette_unit + 1. */
static skn_status make_morph_texture(skn_gl *g, const skn_rig *rig) {
  skn_gpu_buffers b = {sizeof b};
  skn_status s = skn_rig_gpu_buffers(rig, &g->gpu, &b);
  uint64_t words = b.morph_entries_bytes / 4, side = limit(g, GL_MAX_TEXTURE_SIZE);
  uint64_t width = words < side ? (words ? words : 1) : side, height = (words + width - 1) / width;
  if (s == SKN_OK && height > side) {
    char msg[200];
    snprintf(msg, sizeof msg, "skn_gl_create: %llu words of morph entries do not fit a %llu x %llu texture",
             (unsigned long long)words, (unsigned long long)side, (unsigned long long)side);
    return skn_set_error(SKN_ERR_UNSUPPORTED, msg);
  }
  uint32_t *texels = s == SKN_OK ? calloc(width * (height ? height : 1), 4) : NULL;
  if (s == SKN_OK && !texels) s = skn_set_error(SKN_ERR_OUT_OF_MEMORY, "skn_gl_create: out of memory for the morph entries");
  b.morph_entries = texels;
  if (s == SKN_OK) s = skn_rig_gpu_buffers(rig, &g->gpu, &b);
  if (s == SKN_OK) {
    const skn_gl_api *gl = &g->gl;
    gl->GenTextures(1, &g->morph_texture);
    gl->BindTexture(GL_TEXTURE_2D, g->morph_texture);
    gl->TexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    gl->TexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    gl->BindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
    for (int k = 0; k < 4; ++k) gl->PixelStorei(UNPACK[k], k == 0 ? 4 : 0);
    gl->TexImage2D(GL_TEXTURE_2D, 0, GL_R32UI, (GLsizei)width, (GLsizei)(height ? height : 1), 0, GL_RED_INTEGER,
                   GL_UNSIGNED_INT, texels);
    g->morph_sampler = gl->GetUniformLocation(g->program, "skn_morph_entries");
    s = skn__gl_check(g, "skn_gl_create: the morph entries' texture");
  }
  free(texels);
  return s;
}

/* ---- the calls ---- */

#define SKN_GL_DESC_V1_SIZE offsetof(skn_gl_desc, path) /* before 1.4's fields */

/* The host's desc in full (the fields past its struct_size zero), checked. */
static skn_status check_desc(const skn_gl_desc *in, skn_gl_desc *d) {
  if (in->struct_size < SKN_GL_DESC_V1_SIZE)
    return skn_set_error(SKN_ERR_INVALID_ARGUMENT, "skn_gl_create: struct_size is smaller than skn_gl_desc");
  memset(d, 0, sizeof *d);
  memcpy(d, in, in->struct_size < sizeof *d ? in->struct_size : sizeof *d);
  if (!d->loader) return skn_set_error(SKN_ERR_INVALID_ARGUMENT, "skn_gl_create: desc.loader is required");
  if (!d->vertex_main) return skn_set_error(SKN_ERR_INVALID_ARGUMENT, "skn_gl_create: desc.vertex_main is required");
  if ((unsigned)d->palette > SKN_GL_PALETTE_TEXTURE_2D)
    return skn_set_error(SKN_ERR_INVALID_ARGUMENT, "skn_gl_create: desc.palette is not a skn_gl_palette");
  if (d->feedback_count && !d->feedback_varyings)
    return skn_set_error(SKN_ERR_INVALID_ARGUMENT, "skn_gl_create: feedback_count without feedback_varyings");
  if ((unsigned)d->path > SKN_GL_PATH_COMPUTE)
    return skn_set_error(SKN_ERR_INVALID_ARGUMENT, "skn_gl_create: desc.path is not a skn_gl_path");
  if (d->flags & ~(uint32_t)SKN_GL_PREVIOUS_POSITIONS)
    return skn_set_error(SKN_ERR_INVALID_ARGUMENT, "skn_gl_create: desc.flags has bits that are not SKN_GL_*");
  return SKN_OK;
}

/* The path: the host's, or compute where the context has it. What only
 * the compute path does is refused on the vertex path, with the reason. */
static skn_status choose_path(skn_gl *g, const skn_gl_desc *d, uint32_t rig_count) {
  int compute = skn__gl_compute_available(g);
  char msg[480];
  if (d->path == SKN_GL_PATH_COMPUTE && !compute) {
    snprintf(msg, sizeof msg, "skn_gl_create: no compute path: %s", g->reason);
    return skn_set_error(SKN_ERR_UNSUPPORTED, msg);
  }
  g->path = d->path == SKN_GL_PATH_VERTEX || !compute ? SKN_GL_PATH_VERTEX : SKN_GL_PATH_COMPUTE;
  if (d->path == SKN_GL_PATH_VERTEX) snprintf(g->reason, sizeof g->reason, "the host asked the vertex path");
  g->path_reason = g->reason;
  const char *needs = rig_count > 1 ? "several rigs a dispatch" : d->instances > 1 ? "several instances"
                      : d->flags & SKN_GL_PREVIOUS_POSITIONS ? "previous positions" : NULL;
  if (g->path == SKN_GL_PATH_VERTEX && needs) {
    snprintf(msg, sizeof msg, "skn_gl_create: %s need the compute path (%s)", needs, g->reason);
    return skn_set_error(SKN_ERR_UNSUPPORTED, msg);
  }
  return SKN_OK;
}

/* The skn_gpu_desc of the text and the palette, from the host's desc and
 * what the context and the rig allow. */
static skn_status plan(skn_gl *g, const skn_gl_desc *d, const skn_rig_info *info) {
  uint32_t most = info->max_influences_per_vertex; /* 0: the rig's most, in fours (at least 4, at most 16) */
  g->influences = d->influences ? d->influences : most <= 4 ? 4 : most > 16 ? 16 : (most + 3) / 4 * 4;
  skn_gpu_desc gpu = {sizeof gpu};
  gpu.method = d->method;
  gpu.dqs_scale = d->dqs_scale;
  gpu.influences = g->influences;
  gpu.outputs = d->outputs;
  gpu.dialect = g->dialect;
  gpu.joint_count = g->joint_count;
  if (info->morph_entry_count) /* the targets' weights follow the joints in the palette */
    gpu.flags |= SKN_GLSL_MORPHS, gpu.morph_target_count = info->morph_target_count;
  skn_gpu_layout layout = {sizeof layout};
  skn_status s = skn_gpu_layout_get(&gpu, &layout);
  if (s != SKN_OK) return s;
  g->vec4s = layout.palette_vec4s;
  g->palette_texels = g->joint_count * g->vec4s + layout.morph_vec4s;
  if ((s = choose_palette(g, d->palette)) != SKN_OK) return s;
  gpu.palette = g->palette == SKN_GL_PALETTE_UNIFORM_BLOCK    ? SKN_GLSL_PALETTE_UNIFORM_BLOCK
                : g->palette == SKN_GL_PALETTE_TEXTURE_BUFFER ? SKN_GLSL_PALETTE_TEXTURE_BUFFER
                                                              : SKN_GLSL_PALETTE_TEXTURE_2D;
  g->gpu = gpu;
  return SKN_OK;
}

/* The vertex path's objects: the program, the vertex array, the palette. */
static skn_status create_vertex_path(skn_gl *g, const skn_rig *rig, const skn_gl_desc *d) {
  skn_rig_info info = {sizeof info};
  skn_status s = skn_rig_info_get(rig, &info);
  if (s != SKN_OK) return s;
  g->joint_count = info.joint_count;
  g->vertex_count = info.vertex_count;
  if ((s = plan(g, d, &info)) == SKN_OK) s = skn__gl_program(g, d);
  if (s == SKN_OK) s = make_vertex_array(g, rig, d, info.flags);
  if (s == SKN_OK) s = make_palette(g);
  if (s == SKN_OK && (g->gpu.flags & SKN_GLSL_MORPHS)) s = make_morph_texture(g, rig);
  return s;
}

/* The compute path's draw: the host's program over job 0's output, the
 * rest inputs it reads checked against the rest records. */
static skn_status create_compute_draw(skn_gl *g, const skn_gl_desc *d) {
  static const struct { const char *name; uint32_t output; } REST[2] = {{"skn_rest_normal", SKN_GPU_NORMALS},
                                                                         {"skn_rest_tangent", SKN_GPU_TANGENTS}};
  skn_status s = skn__gl_program(g, d);
  for (int k = 0; s == SKN_OK && k < 2; ++k)
    if (reads(g, REST[k].name) && !(g->gpu.outputs & REST[k].output)) {
      char msg[200];
      snprintf(msg, sizeof msg, "skn_gl_create: the vertex shader reads %s; on the compute path the rest records hold "
               "it only where desc.outputs asks the %s", REST[k].name, k ? "tangents" : "normals");
      s = skn_set_error(SKN_ERR_INVALID_ARGUMENT, msg);
    }
  if (s != SKN_OK) return s;
  g->gl.GenVertexArrays(1, &g->vertex_array);
  skn__gl_compute_attach(g, 0);
  if (d->indices && d->index_count) {
    g->gl.GenBuffers(1, &g->index_buffer);
    g->gl.BindBuffer(GL_ELEMENT_ARRAY_BUFFER, g->index_buffer);
    g->gl.BufferData(GL_ELEMENT_ARRAY_BUFFER, (GLsizeiptr)d->index_count * 4, d->indices, GL_STATIC_DRAW);
    g->index_count = d->index_count;
  }
  return skn__gl_check(g, "skn_gl_create: the vertex array");
}

SKN_API skn_status skn_gl_create_many(const skn_rig *const *rigs, uint32_t rig_count, const skn_gl_desc *desc,
                                      skn_gl **out) {
  if (!rigs || !rig_count || !desc || !out)
    return skn_set_error(SKN_ERR_INVALID_ARGUMENT, "skn_gl_create: rigs (at least one), desc and out are required");
  for (uint32_t r = 0; r < rig_count; ++r)
    if (!rigs[r]) return skn_set_error(SKN_ERR_INVALID_ARGUMENT, "skn_gl_create: a rig is NULL");
  skn_gl_desc d;
  skn_status s = check_desc(desc, &d);
  if (s != SKN_OK) return s;
  skn_gl *g = calloc(1, sizeof *g);
  if (!g) return skn_set_error(SKN_ERR_OUT_OF_MEMORY, "skn_gl_create: out of memory");
  const char *missing = skn_gl_api_load(&g->gl, d.loader);
  if (missing) {
    char msg[128];
    snprintf(msg, sizeof msg, "skn_gl_create: the loader has no %s", missing);
    free(g);
    return skn_set_error(SKN_ERR_UNSUPPORTED, msg);
  }
  if ((s = context_dialect(g)) != SKN_OK) return free(g), s;
  g->palette_unit = d.palette_unit;
  g->flags = d.flags;
  g->rig_count = rig_count;
  while (g->gl.GetError() != GL_NO_ERROR) {} /* what was pending is not ours to report */
  gl_state saved;
  state_save(g, &saved);
  s = choose_path(g, &d, rig_count);
  if (s == SKN_OK && g->path == SKN_GL_PATH_VERTEX) s = create_vertex_path(g, rigs[0], &d);
  if (s == SKN_OK && g->path == SKN_GL_PATH_COMPUTE) s = skn__gl_compute_create(g, rigs, &d);
  if (s == SKN_OK && g->path == SKN_GL_PATH_COMPUTE) s = create_compute_draw(g, &d);
  state_restore(g, &saved);
  if (s != SKN_OK) {
    skn_gl_destroy(g);
    return s;
  }
  *out = g;
  return SKN_OK;
}

SKN_API skn_status skn_gl_create(const skn_rig *rig, const skn_gl_desc *desc, skn_gl **out) {
  if (!rig || !desc || !out) return skn_set_error(SKN_ERR_INVALID_ARGUMENT, "skn_gl_create: rig, desc and out are required");
  return skn_gl_create_many(&rig, 1, desc, out);
}

SKN_API skn_status skn_gl_update(skn_gl *g, const skn_pose *pose) {
  if (!g || !pose) return skn_set_error(SKN_ERR_INVALID_ARGUMENT, "skn_gl_update: gl and pose are required");
  if (g->path == SKN_GL_PATH_COMPUTE) {
    skn_status s = skn__gl_compute_set_pose(g, 0, pose);
    return s == SKN_OK ? skn__gl_compute_dispatch(g) : s;
  }
  size_t bytes = (size_t)g->palette_texels * 16;
  skn_status s = skn_pose_gpu_palette(pose, &g->gpu, g->staging, bytes);
  if (s != SKN_OK) return s;
  const skn_gl_api *gl = &g->gl;
  gl_state saved;
  state_save(g, &saved);
  if (g->palette == SKN_GL_PALETTE_TEXTURE_2D) {
    gl->BindTexture(GL_TEXTURE_2D, g->palette_texture);
    gl->BindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
    for (int k = 0; k < 4; ++k) gl->PixelStorei(UNPACK[k], k == 0 ? 4 : 0);
    gl->TexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, (GLsizei)g->tex_width, (GLsizei)g->tex_height, GL_RGBA, GL_FLOAT,
                      g->staging);
  } else { /* a new store each frame: the driver need not wait for draws that read the last */
    GLenum target = g->palette == SKN_GL_PALETTE_UNIFORM_BLOCK ? GL_UNIFORM_BUFFER : GL_TEXTURE_BUFFER;
    gl->BindBuffer(target, g->palette_buffer);
    gl->BufferData(target, (GLsizeiptr)g->staging_bytes, g->staging, GL_STREAM_DRAW);
  }
  state_restore(g, &saved);
  return skn__gl_check(g, "skn_gl_update: the palette upload");
}

static skn_status need_compute(const skn_gl *g, const char *call) {
  if (!g) return skn_set_error(SKN_ERR_INVALID_ARGUMENT, "skn_gl: gl is required");
  if (g->path == SKN_GL_PATH_COMPUTE) return SKN_OK;
  char msg[400];
  snprintf(msg, sizeof msg, "%s: the adapter took the vertex path (%s); use skn_gl_update", call, g->reason);
  return skn_set_error(SKN_ERR_UNSUPPORTED, msg);
}

SKN_API skn_status skn_gl_set_pose(skn_gl *g, uint32_t job, const skn_pose *pose) {
  skn_status s = need_compute(g, "skn_gl_set_pose");
  if (s == SKN_OK && !pose) s = skn_set_error(SKN_ERR_INVALID_ARGUMENT, "skn_gl_set_pose: pose is required");
  return s == SKN_OK ? skn__gl_compute_set_pose(g, job, pose) : s;
}

SKN_API skn_status skn_gl_dispatch(skn_gl *g) {
  skn_status s = need_compute(g, "skn_gl_dispatch");
  return s == SKN_OK ? skn__gl_compute_dispatch(g) : s;
}

SKN_API skn_status skn_gl_bind_job(skn_gl *g, uint32_t job) {
  if (!g) return skn_set_error(SKN_ERR_INVALID_ARGUMENT, "skn_gl_bind_job: gl is required");
  uint32_t count = g->path == SKN_GL_PATH_COMPUTE ? g->job_count : 1;
  if (job >= count) {
    char msg[128];
    snprintf(msg, sizeof msg, "skn_gl_bind_job: job %u is past the adapter's %u", job, count);
    return skn_set_error(SKN_ERR_INDEX_OUT_OF_RANGE, msg);
  }
  skn_gl_bind(g);
  if (g->path == SKN_GL_PATH_COMPUTE) skn__gl_compute_attach(g, job);
  return SKN_OK;
}

SKN_API void skn_gl_bind(const skn_gl *g) {
  if (!g) return;
  const skn_gl_api *gl = &g->gl;
  gl->UseProgram(g->program);
  gl->BindVertexArray(g->vertex_array);
  if (g->path == SKN_GL_PATH_COMPUTE) return; /* the draw reads the output, no palette */
  if (g->morph_texture) {
    gl->ActiveTexture(GL_TEXTURE0 + g->palette_unit + 1);
    gl->BindTexture(GL_TEXTURE_2D, g->morph_texture);
    gl->Uniform1i(g->morph_sampler, (GLint)g->palette_unit + 1);
  }
  if (g->palette_sampler >= 0) gl->Uniform1i(g->palette_sampler, (GLint)g->palette_unit);
  if (g->palette == SKN_GL_PALETTE_UNIFORM_BLOCK) {
    gl->BindBufferRange(GL_UNIFORM_BUFFER, g->palette_unit, g->palette_buffer, 0, (GLsizeiptr)g->staging_bytes);
    return;
  }
  gl->ActiveTexture(GL_TEXTURE0 + g->palette_unit);
  gl->BindTexture(g->palette == SKN_GL_PALETTE_TEXTURE_BUFFER ? GL_TEXTURE_BUFFER : GL_TEXTURE_2D, g->palette_texture);
}

SKN_API skn_status skn_gl_info_get(const skn_gl *g, skn_gl_info *out) {
  if (!g || !out) return skn_set_error(SKN_ERR_INVALID_ARGUMENT, "skn_gl_info_get: gl and out are required");
  skn_gl_info info = {sizeof info, g->program, g->vertex_array, g->palette, g->dialect,
                      (uint32_t)((size_t)g->palette_texels * 16), g->vertex_count, g->index_count,
                      g->influences, g->path, g->path_reason, 0, 0, 0, 0, 0, 1};
  if (g->path == SKN_GL_PATH_COMPUTE) {
    info.palette_bytes = (uint32_t)(g->staging_bytes < 0xFFFFFFFFu ? g->staging_bytes : 0xFFFFFFFFu); /* every job's */
    info.dialect = g->gpu.dialect;
    info.output_buffer = g->output_buffer;
    info.output_floats = g->layout.output_floats;
    info.output_normal = g->layout.output_normal;
    info.output_tangent = g->layout.output_tangent;
    info.output_previous = g->layout.output_previous;
    info.job_count = g->job_count;
  }
  uint32_t want = out->struct_size;
  memcpy(out, &info, want < sizeof info ? want : sizeof info);
  out->struct_size = want;
  return SKN_OK;
}

SKN_API void skn_gl_destroy(skn_gl *g) {
  if (!g) return;
  const skn_gl_api *gl = &g->gl;
  if (g->program) gl->DeleteProgram(g->program);
  if (g->vertex_array) gl->DeleteVertexArrays(1, &g->vertex_array);
  GLuint buffers[3] = {g->vertex_buffer, g->index_buffer, g->palette_buffer};
  for (int k = 0; k < 3; ++k)
    if (buffers[k]) gl->DeleteBuffers(1, &buffers[k]);
  if (g->palette_texture) gl->DeleteTextures(1, &g->palette_texture);
  if (g->morph_texture) gl->DeleteTextures(1, &g->morph_texture);
  skn__gl_compute_destroy(g);
  free(g->staging);
  free(g);
}
