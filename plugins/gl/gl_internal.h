/* gl_internal.h — what the adapter's files share: the skn_gl object. */
#ifndef SKN_GL_INTERNAL_H
#define SKN_GL_INTERNAL_H

#include "gl_api.h"

/* Compute path: a rig's place in the shared buffers (rest records,
 * influence words, morph entries) and its morph targets' entry ranges. */
typedef struct skn_gl_rig {
  uint32_t vertex_count, joint_count, morph_count;
  uint32_t rest_base, influence_base, entry_base;
  uint32_t *morph_first;         /* morph_count + 1, the rig's own entry indices */
} skn_gl_rig;

/* Compute path: one posed rig of the dispatch. */
typedef struct skn_gl_job {
  uint32_t rig, first;           /* its rig; its first invocation */
  uint32_t palette_base;         /* its palette's first texel */
  uint32_t out_base;             /* its first output record */
  uint32_t scratch_base;         /* its first morph scratch record (SKN_GPU_ABSENT: no targets) */
  uint32_t active_count;         /* its pose's targets of weight not 0, ... */
  uint32_t *active;              /* ... ascending, ... */
  float *weights;                /* ... and their weights */
  int posed;
} skn_gl_job;

struct skn_gl {
  skn_gl_api gl;
  skn_gpu_desc gpu;              /* the text's and the palette's desc */
  skn_glsl_dialect dialect;      /* the context's for the draw: 330 or 300 es */
  int version;                   /* the context's, major * 10 + minor */
  skn_gl_path path;
  const char *path_reason;
  char reason[320];
  uint32_t flags;
  skn_gl_palette palette;        /* where the palette lives */
  uint32_t joint_count, vertex_count, index_count, influences, vec4s;
  uint32_t palette_texels;       /* vertex path: the joints' texels, then the morph weights' */
  GLuint morph_texture;          /* vertex path: the morph entries (R32UI), or 0 without targets */
  GLint morph_sampler;
  uint32_t palette_unit;
  GLint palette_sampler;         /* the sampler's location, -1 for a uniform block or none */
  uint32_t tex_width, tex_height; /* SKN_GL_PALETTE_TEXTURE_2D's size in texels */
  GLuint program, vertex_array, vertex_buffer, index_buffer, palette_buffer, palette_texture;
  float *staging;                /* the palette between skn_pose_gpu_palette and the upload */
  size_t staging_bytes;          /* a 2D texture's whole rows; compute: every job's palette */
  /* the compute path (gl_compute.c) */
  uint32_t rig_count, job_count, instances, invocations, frame;
  skn_gl_rig *rigs;
  skn_gl_job *jobs;
  skn_gpu_layout layout;
  GLuint compute_program, morph_program;
  GLuint jobs_buffer, rest_buffer, influence_buffer, output_buffer, scratch_buffer, entries_buffer, tasks_buffer;
  GLint u_job_count, u_frame, u_task_first, u_morph_frame;
  uint32_t *tasks;               /* the morph pass's (entry, count, scratch, weight) a job and active target */
  uint32_t task_room;            /* the jobs' targets, at most active at once */
  uint32_t max_groups[2];
};

/* gl_program.c: compiles skn's text (the vertex path) or the compute
 * path's draw preamble with the host's main and fragment shader, links
 * (with the transform feedback varyings) and attaches the palette's
 * uniform block to binding g->palette_unit, or finds its sampler. */
skn_status skn__gl_program(skn_gl *g, const skn_gl_desc *d);
/* A compute program of one shader: skn_glsl_source's text for gpu. */
skn_status skn__gl_compute_program(const skn_gl *g, const skn_gpu_desc *gpu, GLuint *out);

/* skn_gl.c: the first GL error pending, named after `what`, as a status. */
skn_status skn__gl_check(const skn_gl *g, const char *what);

/* gl_compute.c: whether the context has the compute path (the reason in
 * g->reason where not); its programs, buffers and vertex array for
 * `rigs`; a pose, a dispatch, a job's output for drawing; its GL objects. */
int skn__gl_compute_available(skn_gl *g);
skn_status skn__gl_compute_create(skn_gl *g, const skn_rig *const *rigs, const skn_gl_desc *d);
skn_status skn__gl_compute_set_pose(skn_gl *g, uint32_t job, const skn_pose *pose);
skn_status skn__gl_compute_dispatch(skn_gl *g);
void skn__gl_compute_attach(const skn_gl *g, uint32_t job);
void skn__gl_compute_destroy(skn_gl *g);

#endif
