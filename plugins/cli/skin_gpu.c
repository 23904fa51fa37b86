/* skin_gpu.c — `skn skin --gpu`: the skinned mesh as the GPU computed it,
 * through the adapter (plugins/gl) on a headless EGL context: the compute
 * path where the context has it, its output buffer read back; else the
 * vertex path, the vertex shader's outputs captured by transform feedback
 * with the rasterizer off. Every option of `skn skin` holds (the pose,
 * --weights, --layout, every method and split), so that anyone can hold the
 * two side by side. */
#include "cli.h"

#include "gl_api.h"
#include "skn_egl.h"
#include "skn_gl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *MAIN_P = "in vec3 skn_rest_position;\nout vec3 out_position;\n"
                            "void main() { out_position = skn_skin_position(skn_rest_position); gl_Position = vec4(0.0); }\n";
static const char *MAIN_PN = "in vec3 skn_rest_position;\nin vec3 skn_rest_normal;\nout vec3 out_position;\n"
                             "out vec3 out_normal;\nvoid main() {\n  out_position = skn_skin_position(skn_rest_position);\n"
                             "  out_normal = skn_skin_normal(skn_rest_normal);\n  gl_Position = vec4(0.0);\n}\n";

static int gl_failure(const char *what) {
  fprintf(stderr, "skn: skin --gpu: %s: %s\n", what, skn_last_error());
  return EXIT_INPUT;
}

/* The vertex path's outputs: the vertices drawn as points into a
 * transform feedback buffer, read back. */
static int capture(skn_gl_api *gl, skn_gl *sg, uint32_t n, int normals, float *p, float *nrm) {
  size_t floats = normals ? 6 : 3, bytes = (size_t)n * floats * 4;
  GLuint buffer;
  gl->GenBuffers(1, &buffer);
  gl->BindBuffer(GL_TRANSFORM_FEEDBACK_BUFFER, buffer);
  gl->BufferData(GL_TRANSFORM_FEEDBACK_BUFFER, (GLsizeiptr)bytes, NULL, GL_STREAM_READ);
  gl->BindBufferBase(GL_TRANSFORM_FEEDBACK_BUFFER, 0, buffer);
  skn_gl_bind(sg);
  gl->Enable(GL_RASTERIZER_DISCARD);
  gl->BeginTransformFeedback(GL_POINTS);
  gl->DrawArrays(GL_POINTS, 0, (GLsizei)n);
  gl->EndTransformFeedback();
  gl->Disable(GL_RASTERIZER_DISCARD);
  const float *r = gl->MapBufferRange(GL_TRANSFORM_FEEDBACK_BUFFER, 0, (GLsizeiptr)bytes, GL_MAP_READ_BIT);
  for (uint32_t v = 0; r && v < n; ++v) {
    memcpy(p + v * 3, r + v * floats, 12);
    if (normals) memcpy(nrm + v * 3, r + v * floats + 3, 12);
  }
  if (r) gl->UnmapBuffer(GL_TRANSFORM_FEEDBACK_BUFFER);
  gl->DeleteBuffers(1, &buffer);
  return r && gl->GetError() == GL_NO_ERROR;
}

/* The compute path's output buffer, read back. */
static int read_back(skn_gl_api *gl, const skn_gl_info *info, uint32_t n, int normals, float *p, float *nrm) {
  size_t f = info->output_floats, bytes = (size_t)n * f * 4;
  gl->BindBuffer(GL_ARRAY_BUFFER, info->output_buffer);
  const float *r = gl->MapBufferRange(GL_ARRAY_BUFFER, 0, (GLsizeiptr)bytes, GL_MAP_READ_BIT);
  for (uint32_t v = 0; r && v < n; ++v) {
    memcpy(p + v * 3, r + v * f, 12);
    if (normals) memcpy(nrm + v * 3, r + v * f + info->output_normal, 12);
  }
  if (r) gl->UnmapBuffer(GL_ARRAY_BUFFER);
  return r && gl->GetError() == GL_NO_ERROR;
}

int posed_mesh_skin_gpu(posed_mesh *m, float time, skn_method method, skn_dqs_scale split, float *positions,
                        float *normals, char *how, size_t how_size) {
  int rc = posed_mesh_pose(m, time), has_normals = (m->info.flags & SKN_GLTF_HAS_NORMALS) != 0;
  if (rc) return rc;
  skn_egl_desc ed = {sizeof ed};
  skn_egl *egl = NULL;
  if (skn_egl_create(&ed, &egl)) return gl_failure("no OpenGL context");
  skn_gl_api gl;
  skn_gl_api_load(&gl, skn_egl_loader);
  const char *varyings[2] = {"out_position", "out_normal"};
  skn_gl_desc d = {sizeof d};
  d.loader = skn_egl_loader;
  d.method = method;
  d.dqs_scale = split;
  d.outputs = has_normals ? SKN_GPU_NORMALS : 0;
  d.vertex_main = has_normals ? MAIN_PN : MAIN_P;
  d.feedback_varyings = varyings;
  d.feedback_count = has_normals ? 2 : 1;
  skn_gl *sg = NULL;
  skn_gl_info info = {sizeof info};
  if (skn_gl_create(m->rig, &d, &sg) || skn_gl_update(sg, m->pose) || skn_gl_info_get(sg, &info)) {
    rc = gl_failure("skinning");
  } else {
    int compute = info.path == SKN_GL_PATH_COMPUTE;
    int ok = compute ? read_back(&gl, &info, m->info.vertex_count, has_normals, positions, normals)
                     : capture(&gl, sg, m->info.vertex_count, has_normals, positions, normals);
    if (!ok) rc = fail_input("skin --gpu: reading the GPU's result back");
    snprintf(how, how_size, "%s path on %s (%s)", compute ? "compute" : "vertex", (const char *)gl.GetString(GL_RENDERER),
             (const char *)gl.GetString(GL_VERSION));
  }
  skn_gl_destroy(sg);
  skn_egl_destroy(egl);
  return rc;
}
