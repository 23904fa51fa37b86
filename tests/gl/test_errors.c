/* test_errors.c — the adapter's failures come back as statuses with the
 * reason in skn_last_error, leave nothing behind, and its calls leave the
 * host's bindings as they were. */
#include "rigs.h"

#include <string.h>

static const char *MAIN_OK = "in vec3 skn_rest_position;\nvoid main() { gl_Position = vec4(skn_skin_position(skn_rest_position), 1.0); }\n";

/* skn_gl_create with one field changed from a working desc; out must stay untouched on failure. */
static skn_status create_with(const posed *p, skn_gl_desc d, skn_gl **out) {
  *out = (skn_gl *)&d; /* a canary: failures leave it */
  skn_status s = skn_gl_create(p->rig, &d, out);
  if (s != SKN_OK) check(*out == (skn_gl *)&d, "a failing skn_gl_create wrote *out");
  return s;
}

static void shader_failures(const posed *p, const posed *small) {
  skn_gl_desc d = {sizeof d};
  d.path = SKN_GL_PATH_VERTEX; /* the vertex path's failures: test_compute.c has the compute path's */
  d.loader = skn_egl_loader;
  d.vertex_main = "in vec3 skn_rest_position;\nvoid main() {\n  gl_Position = vec4(skn_skin_positon(skn_rest_position), 1.0);\n}\n";
  skn_gl *g;
  skn_status s = create_with(p, d, &g);
  const char *msg = skn_last_error();
  check(s == SKN_ERR_INVALID_ARGUMENT && strstr(msg, "vertex shader does not compile") && strstr(msg, "skn_skin_positon"),
        "a typo in the host's main: %s, \"%s\"", skn_status_name(s), msg);
  d.vertex_main = MAIN_OK;
  d.fragment_main = "out vec4 c;\nvoid main() { c = vec4(1.0) }\n";
  s = create_with(p, d, &g);
  check(s == SKN_ERR_INVALID_ARGUMENT && strstr(skn_last_error(), "fragment shader does not compile"),
        "a typo in the fragment shader: %s, \"%s\"", skn_status_name(s), skn_last_error());
  d.fragment_main = NULL;
  const char *varying = "no_such_output";
  d.feedback_varyings = &varying;
  d.feedback_count = 1;
  s = create_with(p, d, &g);
  check(s == SKN_ERR_INVALID_ARGUMENT && strstr(skn_last_error(), "does not link"),
        "a feedback varying the main does not write: %s, \"%s\"", skn_status_name(s), skn_last_error());
  d.feedback_varyings = NULL, d.feedback_count = 0;
  d.vertex_main = "in vec3 skn_rest_position;\nin vec4 skn_rest_tangent;\n"
                  "void main() { gl_Position = vec4(skn_skin_position(skn_rest_position), 1.0) + skn_rest_tangent; }\n";
  s = create_with(small, d, &g);
  check(s == SKN_ERR_INVALID_ARGUMENT && strstr(skn_last_error(), "skn_rest_tangent"),
        "reading tangents the rig lacks: %s, \"%s\"", skn_status_name(s), skn_last_error());
}

static void desc_failures(const posed *p, const posed *large) {
  skn_gl_desc d = {sizeof d};
  d.path = SKN_GL_PATH_VERTEX; /* the vertex path's failures: test_compute.c has the compute path's */
  d.vertex_main = MAIN_OK;
  skn_gl *g;
  check(create_with(p, d, &g) == SKN_ERR_INVALID_ARGUMENT, "no loader: %s", skn_last_error());
  d.loader = skn_egl_loader;
  d.influences = 4; /* the rig has 8 a vertex */
  skn_status s = create_with(p, d, &g);
  check(s == SKN_ERR_UNSUPPORTED && strstr(skn_last_error(), "max_influences"), "8 influences as 4: %s, \"%s\"",
        skn_status_name(s), skn_last_error());
  d.influences = 0;
  d.palette = SKN_GL_PALETTE_UNIFORM_BLOCK;
  d.outputs = SKN_GPU_NORMALS;
  s = create_with(large, d, &g);
  check(s == SKN_ERR_UNSUPPORTED && strstr(skn_last_error(), "GL_MAX_UNIFORM_BLOCK_SIZE"),
        "a palette over the uniform block's limit, forced: %s, \"%s\"", skn_status_name(s), skn_last_error());
  if (gl_context_api == SKN_EGL_OPENGL_ES) {
    d.palette = SKN_GL_PALETTE_TEXTURE_BUFFER;
    s = create_with(p, d, &g);
    check(s == SKN_ERR_UNSUPPORTED, "a texture buffer in ES: %s", skn_status_name(s));
  }
  d.palette = SKN_GL_PALETTE_AUTO;
  d.palette_unit = 100000;
  s = create_with(p, d, &g);
  check(s == SKN_ERR_INVALID_ARGUMENT && strstr(skn_last_error(), "palette_unit"), "palette_unit past the limit: %s",
        skn_last_error());
  d.palette_unit = 0;
  d.method = SKN_METHOD_LBS_QUATERNION; /* the rig's joints shear */
  check(create_with(p, d, &g) == SKN_OK, "LBS_QUATERNION on a sheared rig creates: %s", skn_last_error());
  s = skn_gl_update(g, p->pose);
  check(s == SKN_ERR_UNSUPPORTED && strstr(skn_last_error(), "LBS_QUATERNION"),
        "LBS_QUATERNION's palette of a sheared pose: %s, \"%s\"", skn_status_name(s), skn_last_error());
  skn_gl_destroy(g);
}

/* The host's program, vertex array and buffers stay bound across the
 * adapter's create and update. */
static void bindings_kept(const posed *p) {
  GLuint vao, buf, tex;
  gl.GenVertexArrays(1, &vao);
  gl.BindVertexArray(vao);
  gl.GenBuffers(1, &buf);
  gl.BindBuffer(GL_ARRAY_BUFFER, buf);
  gl.BindBuffer(GL_UNIFORM_BUFFER, buf);
  gl.GenTextures(1, &tex);
  gl.ActiveTexture(GL_TEXTURE0 + 2);
  gl.BindTexture(GL_TEXTURE_2D, tex);
  for (int palette = SKN_GL_PALETTE_UNIFORM_BLOCK; palette <= SKN_GL_PALETTE_TEXTURE_2D; ++palette) {
    if (palette == SKN_GL_PALETTE_TEXTURE_BUFFER && gl_context_api == SKN_EGL_OPENGL_ES) continue;
    skn_gl_desc d = {sizeof d};
    d.path = SKN_GL_PATH_VERTEX; /* the vertex path's failures: test_compute.c has the compute path's */
    d.loader = skn_egl_loader;
    d.vertex_main = MAIN_OK;
    d.palette = (skn_gl_palette)palette;
    skn_gl *g = NULL;
    int ok = skn_gl_create(p->rig, &d, &g) == SKN_OK && skn_gl_update(g, p->pose) == SKN_OK;
    GLint v[5];
    gl.GetIntegerv(GL_VERTEX_ARRAY_BINDING, &v[0]);
    gl.GetIntegerv(GL_ARRAY_BUFFER_BINDING, &v[1]);
    gl.GetIntegerv(GL_UNIFORM_BUFFER_BINDING, &v[2]);
    gl.GetIntegerv(GL_ACTIVE_TEXTURE, &v[3]);
    gl.GetIntegerv(GL_TEXTURE_BINDING_2D, &v[4]);
    check(ok && v[0] == (GLint)vao && v[1] == (GLint)buf && v[2] == (GLint)buf && v[3] == GL_TEXTURE0 + 2 &&
              v[4] == (GLint)tex && !gl.GetError(),
          "palette %d: the host's bindings after create and update: %d %d %d %d %d", palette, v[0], v[1], v[2], v[3], v[4]);
    skn_gl_destroy(g);
  }
  gl.ActiveTexture(GL_TEXTURE0);
  gl.BindVertexArray(0);
  gl.DeleteVertexArrays(1, &vao);
  gl.DeleteBuffers(1, &buf);
  gl.DeleteTextures(1, &tex);
}

void test_errors(void) {
  posed p, large, small;
  int ok = random_posed(&p, 41, 20, 60, 8, 2) && random_posed(&large, 42, 1500, 50, 4, 2);
  /* a rig without tangents */
  test_rig t;
  test_rig_random(&t, 43, 5, 30, 4, 0);
  skn_bind_desc d = test_rig_desc(&t);
  d.tangents.data = NULL;
  memset(&small, 0, sizeof small);
  ok = ok && skn_bind(&d, &small.rig) == SKN_OK && skn_pose_create(small.rig, &small.pose) == SKN_OK;
  small.vertex_count = 30;
  test_rig_free(&t);
  check(ok, "errors: rigs bind");
  if (ok) {
    shader_failures(&p, &small);
    desc_failures(&p, &large);
    bindings_kept(&p);
  }
  check(gl.GetError() == GL_NO_ERROR, "errors: no GL error left pending");
  posed_free(&p), posed_free(&large), posed_free(&small);
}
