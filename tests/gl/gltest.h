/* gltest.h — what the GL tests share: a headless context, skinning on the
 * GPU captured by transform feedback, the comparison with skn_skin, and
 * the counts that end in "gl: N passed, N failed". */
#ifndef SKN_GLTEST_H
#define SKN_GLTEST_H

#include "gl_api.h"
#include "skn_egl.h"
#include "skn_gl.h"
#include "testlib.h"

#include <stdio.h>

/* The context the tests run in, and its calls. */
extern skn_gl_api gl;
extern skn_egl_api gl_context_api; /* SKN_EGL_OPENGL or SKN_EGL_OPENGL_ES */

/* One way of skinning on the GPU. */
typedef struct gpu_case {
  skn_method method;
  skn_dqs_scale split;
  uint32_t influences;      /* 0: the adapter's choice */
  uint32_t outputs;         /* SKN_GPU_NORMALS | SKN_GPU_TANGENTS */
  skn_gl_palette palette;   /* 0: the adapter's choice */
  uint32_t joint_bits;
  int compute;              /* 0: the vertex path; 1: the compute path, its output buffer read back;
                               2: the compute path drawn by the host's vertex main (transform feedback) */
} gpu_case;

/* A rig and pose to skin, with the model's size for the tolerance. */
typedef struct posed {
  skn_rig *rig;
  skn_pose *pose;
  skn_transform *local;     /* random rigs: the pose's local transforms (joint_count), else NULL */
  uint32_t joint_count, morph_count;
  uint32_t vertex_count;
  int has_normals, has_tangents;
  double size;
} posed;

/* Skins p on the GPU as c says, through skn_gl, capturing the shader's
 * outputs by transform feedback into pos (3 a vertex), nrm (3), tan (4)
 * where asked. Returns the status of the adapter's calls; info, if not
 * NULL, gets the adapter's description. */
skn_status gpu_skin(const posed *p, const gpu_case *c, float *pos, float *nrm, float *tan, skn_gl_info *info);

/* Draws n points with the bound program and vertex array into a transform
 * feedback buffer of `floats` a vertex, copied into out; 0 on a GL error. */
int capture_points(uint32_t n, uint32_t floats, float *out);

/* The compute path's output records [first_record, first_record + n) of
 * adapter g, read back from its output buffer into the arrays not NULL
 * (prev: the previous positions). 0 on a GL error. */
int read_output(const skn_gl *g, size_t first_record, uint32_t n, float *pos, float *nrm, float *tan, float *prev);

/* The worst difference between GPU and CPU for one run, positions over the
 * model's size; tangent_w counts tangents whose w differs. */
typedef struct skin_diff {
  double position, normal, tangent;
  uint32_t tangent_w;
} skin_diff;

/* Skins p on the CPU and the GPU and compares. A failure to run is reported
 * as position = 1e30. */
skin_diff compare_case(const posed *p, const gpu_case *c, skn_gl_info *info);

/* Counts a check; prints what failed. */
void check(int ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Counts a comparison as a check against the tolerance (1e-5 of
 * the size, 1e-5 for unit vectors, w exact) and keeps the worst per method. */
void check_diff(const skin_diff *d, const gpu_case *c, const char *what);

/* The suites. */
void test_variants(void);   /* every text skn_glsl_source makes, on random rigs */
void test_models(void);     /* the sample models, a large rig, a host without the adapter */
void test_errors(void);     /* bad requests, shaders that fail, limits */
void test_compute(void);    /* the compute path: every method, morphs, any influences, batches */
void test_corpus(const char *dir); /* the compute path on the glTF corpus's skinned files */
void test_vat(void);         /* the vertex animation texture player against skn_skin */

const char *method_name(skn_method m);

#endif
