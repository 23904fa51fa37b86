/* gl_internal.h — what the adapter's files share: the skn_gl object. */
#ifndef SKN_GL_INTERNAL_H
#define SKN_GL_INTERNAL_H

#include "gl_api.h"

struct skn_gl {
  skn_gl_api gl;
  skn_gpu_desc gpu;              /* the text's and the palette's desc */
  skn_glsl_dialect dialect;
  skn_gl_palette palette;        /* where the palette lives */
  uint32_t joint_count, vertex_count, index_count, influences, vec4s;
  uint32_t palette_unit;
  GLint palette_sampler;         /* the sampler's location, -1 for a uniform block or none */
  uint32_t tex_width, tex_height; /* SKN_GL_PALETTE_TEXTURE_2D's size in texels */
  GLuint program, vertex_array, vertex_buffer, index_buffer, palette_buffer, palette_texture;
  float *staging;                /* the palette between skn_pose_gpu_palette and the upload */
  size_t staging_bytes;          /* a 2D texture's whole rows */
};

/* gl_program.c: compiles skn's text with the host's main and fragment
 * shader, links (with the transform feedback varyings) and attaches the
 * palette's uniform block to binding g->palette_unit, or finds its sampler. */
skn_status skn__gl_program(skn_gl *g, const skn_gl_desc *d);

#endif
