/* gl_program.c — the adapter's programs. The draw program: skn's GLSL
 * (skn_glsl_source, the vertex path) or the compute path's draw preamble —
 * skn_skin_position() and its kin returning what the dispatch wrote — with
 * the host's vertex main after it, the host's fragment shader, linked with
 * its transform feedback outputs, the palette attached to its unit. The
 * compute programs: skn_glsl_source's compute text alone. A compile or link
 * failure comes back with GL's log, its line numbers in the host's own text
 * (source string 1, by #line). */
#include "gl_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SKN_GL_MESSAGE 512

/* The failure of `what`, with its info log. */
static skn_status log_failure(const skn_gl *g, GLuint object, int program, const char *what) {
  char log[SKN_GL_MESSAGE] = "", msg[SKN_GL_MESSAGE + 160];
  if (program)
    g->gl.GetProgramInfoLog(object, sizeof log, NULL, log);
  else
    g->gl.GetShaderInfoLog(object, sizeof log, NULL, log);
  snprintf(msg, sizeof msg, "skn_gl_create: %s (source 1 is the host's text):\n%s", what, log);
  return skn_set_error(SKN_ERR_INVALID_ARGUMENT, msg);
}

static skn_status compile(const skn_gl *g, GLenum type, const char *const *parts, GLsizei count, GLuint *out) {
  GLuint shader = g->gl.CreateShader(type);
  GLint ok = 0;
  g->gl.ShaderSource(shader, count, parts, NULL);
  g->gl.CompileShader(shader);
  g->gl.GetShaderiv(shader, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    skn_status s = log_failure(g, shader, 0, type == GL_VERTEX_SHADER     ? "the vertex shader does not compile"
                                             : type == GL_COMPUTE_SHADER ? "skn's compute shader does not compile"
                                                                         : "the fragment shader does not compile");
    g->gl.DeleteShader(shader);
    return s;
  }
  *out = shader;
  return SKN_OK;
}

/* skn_glsl_source's text for gpu, allocated. */
static skn_status glsl_text(const skn_gpu_desc *gpu, char **out) {
  size_t length = 0;
  skn_status s = skn_glsl_source(gpu, NULL, 0, &length);
  char *text = s == SKN_OK ? malloc(length + 1) : NULL;
  if (s == SKN_OK && !text) s = skn_set_error(SKN_ERR_OUT_OF_MEMORY, "skn_gl_create: out of memory for the GLSL");
  if (s == SKN_OK) s = skn_glsl_source(gpu, text, length + 1, &length);
  if (s != SKN_OK) free(text), text = NULL;
  *out = text;
  return s;
}

/* The compute path's stand-ins for skn's functions: the host's vertex main
 * is the same on both paths, and reads here what the dispatch wrote. */
static void draw_preamble(const skn_gl *g, char *text, size_t size) {
  uint32_t outputs = g->gpu.outputs;
  snprintf(text, size,
           "%sprecision highp float;\nprecision highp int;\n"
           "// skn's compute path: the dispatch's output, that skn_skin_*() return\n"
           "in vec3 skn_skinned_position;\n"
           "vec3 skn_skin_position(vec3 rest_position) { return skn_skinned_position; }\n%s%s%s",
           g->dialect == SKN_GLSL_300_ES ? "#version 300 es\n" : "#version 330 core\n",
           outputs & SKN_GPU_NORMALS
               ? "in vec3 skn_skinned_normal;\nvec3 skn_skin_normal(vec3 rest_normal) { return skn_skinned_normal; }\n"
               : "",
           outputs & SKN_GPU_TANGENTS ? "in vec4 skn_skinned_tangent;\n"
                                        "vec4 skn_skin_tangent(vec4 rest_tangent) { return skn_skinned_tangent; }\n"
                                      : "",
           g->flags & SKN_GL_PREVIOUS_POSITIONS
               ? "in vec3 skn_skinned_previous;\n"
                 "vec3 skn_skin_previous_position(vec3 rest_position) { return skn_skinned_previous; }\n"
               : "");
}

/* The vertex shader: skn's text or the draw preamble (its #version first),
 * then the host's. */
static skn_status vertex_shader(const skn_gl *g, const skn_gl_desc *d, GLuint *out) {
  char preamble[1024], *text = NULL;
  skn_status s = SKN_OK;
  if (g->path == SKN_GL_PATH_COMPUTE)
    draw_preamble(g, preamble, sizeof preamble);
  else
    s = glsl_text(&g->gpu, &text);
  if (s == SKN_OK) {
    const char *parts[3] = {text ? text : preamble, "#line 1 1\n", d->vertex_main};
    s = compile(g, GL_VERTEX_SHADER, parts, 3, out);
  }
  free(text);
  return s;
}

skn_status skn__gl_compute_program(const skn_gl *g, const skn_gpu_desc *gpu, GLuint *out) {
  char *text = NULL;
  GLuint shader = 0;
  skn_status s = glsl_text(gpu, &text);
  if (s == SKN_OK) s = compile(g, GL_COMPUTE_SHADER, (const char *const *)&text, 1, &shader);
  free(text);
  if (s != SKN_OK) return s;
  GLuint program = g->gl.CreateProgram();
  GLint ok = 0;
  g->gl.AttachShader(program, shader);
  g->gl.LinkProgram(program);
  g->gl.DeleteShader(shader);
  g->gl.GetProgramiv(program, GL_LINK_STATUS, &ok);
  if (!ok) {
    s = log_failure(g, program, 1, "skn's compute program does not link");
    g->gl.DeleteProgram(program);
    return s;
  }
  *out = program;
  return SKN_OK;
}

static skn_status fragment_shader(const skn_gl *g, const skn_gl_desc *d, GLuint *out) {
  const char *parts[3] = {g->dialect == SKN_GLSL_300_ES ? "#version 300 es\nprecision highp float;\n" : "#version 330 core\n",
                          "#line 1 1\n",
                          d->fragment_main ? d->fragment_main : "out vec4 skn_color;\nvoid main() { skn_color = vec4(1.0); }\n"};
  return compile(g, GL_FRAGMENT_SHADER, parts, 3, out);
}

/* The palette's uniform block to binding g->palette_unit, or its sampler
 * to that texture unit; a program that reads no palette has neither. */
static skn_status attach_palette(skn_gl *g) {
  const skn_gl_api *gl = &g->gl;
  GLint units = 0;
  g->palette_sampler = -1;
  if (g->path == SKN_GL_PATH_COMPUTE) return SKN_OK; /* the draw reads no palette */
  if (g->palette == SKN_GL_PALETTE_UNIFORM_BLOCK) {
    gl->GetIntegerv(GL_MAX_UNIFORM_BUFFER_BINDINGS, &units);
    if ((GLint)g->palette_unit >= units) goto no_unit;
    GLuint block = gl->GetUniformBlockIndex(g->program, "SknPalette");
    if (block != GL_INVALID_INDEX) gl->UniformBlockBinding(g->program, block, g->palette_unit);
    return SKN_OK;
  }
  gl->GetIntegerv(GL_MAX_COMBINED_TEXTURE_IMAGE_UNITS, &units);
  if ((GLint)g->palette_unit >= units) goto no_unit;
  g->palette_sampler = gl->GetUniformLocation(g->program, "skn_palette"); /* set by skn_gl_bind */
  return SKN_OK;
no_unit: {
  char msg[160];
  snprintf(msg, sizeof msg, "skn_gl_create: palette_unit %u is past the context's %d %s", g->palette_unit, units,
           g->palette == SKN_GL_PALETTE_UNIFORM_BLOCK ? "uniform buffer bindings" : "texture units");
  return skn_set_error(SKN_ERR_INVALID_ARGUMENT, msg);
}
}

skn_status skn__gl_program(skn_gl *g, const skn_gl_desc *d) {
  GLuint vs = 0, fs = 0;
  skn_status s = vertex_shader(g, d, &vs);
  if (s == SKN_OK) s = fragment_shader(g, d, &fs);
  if (s == SKN_OK) {
    g->program = g->gl.CreateProgram();
    g->gl.AttachShader(g->program, vs);
    g->gl.AttachShader(g->program, fs);
    if (d->feedback_count)
      g->gl.TransformFeedbackVaryings(g->program, (GLsizei)d->feedback_count, d->feedback_varyings,
                                      GL_INTERLEAVED_ATTRIBS);
    g->gl.LinkProgram(g->program);
    GLint ok = 0;
    g->gl.GetProgramiv(g->program, GL_LINK_STATUS, &ok);
    s = ok ? attach_palette(g) : log_failure(g, g->program, 1, "the program does not link");
  }
  if (vs) g->gl.DeleteShader(vs); /* the program keeps them while it lives */
  if (fs) g->gl.DeleteShader(fs);
  return s;
}
