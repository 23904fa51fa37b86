/* render_gpu.c — `skn render --gpu`: each panel skinned in skn's GLSL and
 * drawn by OpenGL through the adapter (plugins/gl) on a headless EGL
 * context, the offload path end to end: the CPU poses the rig and uploads
 * the palette, the vertex shader skins. The framing takes the skinned
 * positions back by transform feedback; the fragment shader lights a face
 * by its screen-space derivatives as render.c's shade() does, and rounds
 * down as it does, so that the two pictures agree but for edge pixels. */
#include "render.h"

#include "gl_api.h"
#include "skn_egl.h"
#include "skn_gl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Skinned position out for the framing (captured), view-space position on
 * to the fragment stage; view rows, frame (center x, y, NDC scale x, y)
 * and depth (center, 1 / half range) from the camera. */
static const char *VERTEX_MAIN =
    "in vec3 skn_rest_position;\n"
    "uniform vec4 view_x, view_y, view_z, frame, depth;\n"
    "out vec3 skinned;\n"
    "out vec3 view;\n"
    "void main() {\n"
    "  skinned = skn_skin_position(skn_rest_position);\n"
    "  view = vec3(dot(view_x.xyz, skinned), dot(view_y.xyz, skinned), dot(view_z.xyz, skinned));\n"
    "  gl_Position = vec4((view.xy - frame.xy) * frame.zw, (depth.x - view.z) * depth.y, 1.0);\n"
    "}\n";

static const char *FRAGMENT_MAIN =
    "in vec3 view;\n"
    "out vec4 color;\n"
    "void main() {\n"
    "  vec3 n = cross(dFdx(view), dFdy(view));\n"
    "  float len = length(n);\n"
    "  float d = len > 0.0 ? abs(dot(n, vec3(-0.45, 0.6, 0.66))) / len : 0.0;\n"
    "  color = vec4(floor(min(vec3(255.0), vec3(214.0, 156.0, 112.0) * (0.28 + 0.72 * d))) / 255.0, 1.0);\n"
    "}\n";

typedef struct gpu_render {
  skn_egl *egl;
  skn_gl_api gl;
  skn_gl *methods[MAX_METHODS];
  GLuint feedback;         /* the skinned positions, for the framing */
  double zlo, zhi;         /* the view-space depth over every panel */
} gpu_render;

static int gl_failure(const char *what) {
  fprintf(stderr, "skn: render --gpu: %s: %s\n", what, skn_last_error());
  return EXIT_INPUT;
}

static void set_uniforms(const gpu_render *g, const skn_gl *gl, const camera *c, const double center[2], int w, int h) {
  skn_gl_info info = {sizeof info};
  skn_gl_info_get(gl, &info);
  const char *rows[3] = {"view_x", "view_y", "view_z"};
  for (int r = 0; r < 3; ++r)
    g->gl.Uniform4f(g->gl.GetUniformLocation(info.program, rows[r]), (float)c->rot[r * 3], (float)c->rot[r * 3 + 1],
                    (float)c->rot[r * 3 + 2], 0);
  double sc = c->scale * SUPER, half = (g->zhi - g->zlo) / 2 * 1.01 + 1e-9;
  g->gl.Uniform4f(g->gl.GetUniformLocation(info.program, "frame"), (float)center[0], (float)center[1],
                  (float)(2 * sc / w), (float)(2 * sc / h));
  g->gl.Uniform4f(g->gl.GetUniformLocation(info.program, "depth"), (float)((g->zlo + g->zhi) / 2), (float)(1 / half),
                  0, 0);
}

/* Poses the rig at `time` and uploads method's palette. */
static int pose_and_upload(gpu_render *g, posed_mesh *m, int method, float time) {
  if (skn_gltf_pose(m->gltf, m->primitive, m->animation, time, m->pose)) return fail_input("skin");
  if (skn_gl_update(g->methods[method], m->pose)) return gl_failure("the palette");
  return EXIT_OK;
}

static int gpu_skin(void *ctx, posed_mesh *m, const options *o, int method, float time, float *positions) {
  gpu_render *g = ctx;
  (void)o;
  int rc = pose_and_upload(g, m, method, time);
  if (rc) return rc;
  size_t bytes = (size_t)m->info.vertex_count * 3 * sizeof(float);
  g->gl.BindBuffer(GL_TRANSFORM_FEEDBACK_BUFFER, g->feedback);
  g->gl.BufferData(GL_TRANSFORM_FEEDBACK_BUFFER, (GLsizeiptr)bytes, NULL, GL_STREAM_READ);
  g->gl.BindBufferBase(GL_TRANSFORM_FEEDBACK_BUFFER, 0, g->feedback);
  skn_gl_bind(g->methods[method]);
  g->gl.Enable(GL_RASTERIZER_DISCARD);
  g->gl.BeginTransformFeedback(GL_POINTS);
  g->gl.DrawArrays(GL_POINTS, 0, (GLsizei)m->info.vertex_count);
  g->gl.EndTransformFeedback();
  g->gl.Disable(GL_RASTERIZER_DISCARD);
  const float *p = g->gl.MapBufferRange(GL_TRANSFORM_FEEDBACK_BUFFER, 0, (GLsizeiptr)bytes, GL_MAP_READ_BIT);
  if (p) memcpy(positions, p, bytes);
  g->gl.UnmapBuffer(GL_TRANSFORM_FEEDBACK_BUFFER);
  g->gl.BindBufferBase(GL_TRANSFORM_FEEDBACK_BUFFER, 0, 0);
  if (!p) return skn_set_error(SKN_ERR_UNSUPPORTED, "transform feedback gave nothing"), gl_failure("skinning");
  return EXIT_OK;
}

/* The depth range of a panel's positions in view space (camera known only
 * at draw time): z = the view's third row. */
static void depth_range(gpu_render *g, const camera *c, const float *pos, uint32_t n) {
  for (uint32_t v = 0; v < n; ++v) {
    const float *p = pos + (size_t)v * 3;
    double z = c->rot[6] * p[0] + c->rot[7] * p[1] + c->rot[8] * p[2];
    g->zlo = z < g->zlo ? z : g->zlo;
    g->zhi = z > g->zhi ? z : g->zhi;
  }
}

static int gpu_draw(void *ctx, canvas *cv, const camera *c, posed_mesh *m, const options *o, int method, float time,
                    const float *positions, const double center[2]) {
  gpu_render *g = ctx;
  (void)o;
  depth_range(g, c, positions, m->info.vertex_count);
  int rc = pose_and_upload(g, m, method, time);
  if (rc) return rc;
  skn_gl_bind(g->methods[method]);
  set_uniforms(g, g->methods[method], c, center, cv->w, cv->h);
  g->gl.ClearColor(0, 0, 0, 0);
  g->gl.Clear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
  g->gl.Enable(GL_DEPTH_TEST);
  g->gl.DepthFunc(GL_LESS);
  g->gl.DrawElements(GL_TRIANGLES, (GLsizei)(m->info.triangle_count * 3), GL_UNSIGNED_INT, NULL);
  unsigned char *rgba = malloc((size_t)cv->w * cv->h * 4);
  if (!rgba) return fail_input("out of memory");
  if (skn_egl_read_rgba(g->egl, rgba)) return free(rgba), gl_failure("reading the picture");
  fill_background(cv);
  for (size_t i = 0; i < (size_t)cv->w * cv->h; ++i)
    if (rgba[i * 4 + 3]) memcpy(cv->rgb + i * 3, rgba + i * 4, 3); /* drawn: the mesh over the background */
  free(rgba);
  return EXIT_OK;
}

int gpu_backend_open(render_backend *b, posed_mesh *m, const options *o, int canvas_w, int canvas_h) {
  gpu_render *g = calloc(1, sizeof *g);
  if (!g) return fail_input("out of memory");
  b->ctx = g, b->skin = gpu_skin, b->draw = gpu_draw;
  g->zlo = 1e300, g->zhi = -1e300;
  skn_egl_desc ed = {sizeof ed};
  ed.width = (uint32_t)canvas_w;
  ed.height = (uint32_t)canvas_h;
  if (skn_egl_create(&ed, &g->egl)) return gl_failure("no OpenGL context");
  skn_gl_api_load(&g->gl, skn_egl_loader);
  g->gl.GenBuffers(1, &g->feedback);
  const char *varying = "skinned";
  for (int k = 0; k < o->method_count; ++k) {
    skn_gl_desc d = {sizeof d};
    d.loader = skn_egl_loader;
    d.method = o->methods[k];
    d.dqs_scale = o->dqs_scale;
    d.vertex_main = VERTEX_MAIN;
    d.fragment_main = FRAGMENT_MAIN;
    d.feedback_varyings = &varying;
    d.feedback_count = 1;
    d.indices = m->triangles;
    d.index_count = m->info.triangle_count * 3;
    if (skn_gl_create(m->rig, &d, &g->methods[k])) return gl_failure(o->method_names[k]);
  }
  return EXIT_OK;
}

void gpu_backend_close(render_backend *b) {
  gpu_render *g = b->ctx;
  if (!g) return;
  for (int k = 0; k < MAX_METHODS; ++k) skn_gl_destroy(g->methods[k]);
  if (g->egl) g->gl.DeleteBuffers(1, &g->feedback);
  skn_egl_destroy(g->egl);
  free(g);
  b->ctx = NULL;
}
