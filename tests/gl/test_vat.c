/* test_vat.c — the vertex animation texture player (SKN_GLSL_VAT_PLAYER)
 * against skn_skin. CesiumMan skinned at three frames is baked here as
 * `skn bake --format vat-png` lays its textures out (the encoding in
 * plugins/cli/bake.c and the text's header: a texel per vertex, 500 a row
 * so that a frame wraps, 16-bit positions over the bounds, normals
 * (n + 1) / 2), uploaded as GL_RGB16UI, and played by a vertex main that
 * writes skn_vat_position and skn_vat_normal of gl_VertexID to outputs
 * captured by transform feedback: at each frame within the encoding's step
 * (2^-16 of the bounds, 2^-15 for unit normals) of skn_skin's, and half
 * way between two frames the mix of theirs. The file's bytes themselves
 * are tests/cli/cli-test's (pypng against skn skin). The bone VAT too:
 * the palettes of those frames (SKN_PALETTE_ROWS3X4) as a GL_RGBA32F
 * texture, a row a frame, blended by skn_vat_bones with the rig's rest
 * positions, joints and weights (skn_rig_gpu_attributes) as vertex inputs:
 * LBS's positions within 1e-6 of the model's size. */
#include "gltest.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define GL_RGB16UI 0x8D77
#define GL_RGB_INTEGER 0x8D98
#ifndef GL_RGBA32F
#define GL_RGBA32F 0x8814
#endif
#define VAT_FRAMES 3
#define VAT_WIDTH 500u

static const char *const BONE_MAIN =
    "uniform float frame;\nin vec3 rest;\nin uvec4 joints;\nin vec4 weights;\nout vec3 out_position;\n"
    "void main() {\n  out_position = skn_vat_bones(rest, joints, weights, frame);\n"
    "  gl_Position = vec4(out_position, 1.0);\n}\n";

static const char *const VAT_MAIN =
    "uniform float frame;\nout vec3 out_position;\nout vec3 out_normal;\n"
    "void main() {\n  out_position = skn_vat_position(gl_VertexID, frame);\n"
    "  out_normal = skn_vat_normal(gl_VertexID, frame);\n  gl_Position = vec4(out_position, 1.0);\n}\n";

typedef struct baked {
  uint32_t n, rows;
  float lo[3], hi[3];
  float *pos, *nrm;        /* skn_skin's, VAT_FRAMES x n x 3 */
  uint16_t *tex[2];        /* positions, normals: VAT_WIDTH x (VAT_FRAMES * rows) x 3 */
} baked;

static uint16_t quantize(float x, float lo, float hi) {
  if (!(hi > lo)) return 0;
  double c = floor((double)(x - lo) / ((double)hi - lo) * 65535.0 + 0.5);
  return (uint16_t)(c < 0 ? 0 : c > 65535 ? 65535 : c);
}

static int bake(baked *b) {
  skn_gltf *g = NULL;
  skn_rig *rig = NULL;
  skn_pose *pose = NULL;
  skn_gltf_bind_desc bd = {sizeof bd};
  skn_gltf_primitive_info pi = {sizeof pi};
  if (skn_gltf_open("data/gltf/CesiumMan/glTF/CesiumMan.gltf", &g) || skn_gltf_primitive_info_get(g, 0, &pi) ||
      skn_gltf_bind(g, &bd, &rig) || skn_pose_create(rig, &pose))
    return 0;
  b->n = pi.vertex_count, b->rows = (b->n + VAT_WIDTH - 1) / VAT_WIDTH;
  b->pos = malloc(sizeof(float) * 3 * b->n * VAT_FRAMES), b->nrm = malloc(sizeof(float) * 3 * b->n * VAT_FRAMES);
  int ok = 1;
  for (int f = 0; ok && f < VAT_FRAMES; ++f) {
    skn_skin_desc sd = {sizeof sd};
    sd.positions.data = b->pos + (size_t)3 * b->n * f, sd.normals.data = b->nrm + (size_t)3 * b->n * f;
    ok = skn_gltf_pose(g, 0, 0, 0.3f * (float)f, pose) == SKN_OK && skn_skin(rig, pose, &sd) == SKN_OK;
  }
  for (int c = 0; c < 3; ++c) b->lo[c] = INFINITY, b->hi[c] = -INFINITY;
  for (size_t k = 0; k < (size_t)3 * b->n * VAT_FRAMES; ++k)
    b->lo[k % 3] = fminf(b->lo[k % 3], b->pos[k]), b->hi[k % 3] = fmaxf(b->hi[k % 3], b->pos[k]);
  static const float NLO[3] = {-1, -1, -1}, NHI[3] = {1, 1, 1};
  size_t texels = (size_t)VAT_WIDTH * b->rows * VAT_FRAMES;
  for (int t = 0; t < 2; ++t) {
    b->tex[t] = calloc(texels * 3, sizeof(uint16_t));
    const float *src = t ? b->nrm : b->pos, *lo = t ? NLO : b->lo, *hi = t ? NHI : b->hi;
    for (int f = 0; f < VAT_FRAMES; ++f)
      for (uint32_t v = 0; v < b->n; ++v) {
        size_t at = ((size_t)(f * b->rows + v / VAT_WIDTH) * VAT_WIDTH + v % VAT_WIDTH) * 3;
        for (int c = 0; c < 3; ++c) b->tex[t][at + c] = quantize(src[((size_t)f * b->n + v) * 3 + c], lo[c], hi[c]);
      }
  }
  skn_pose_destroy(pose), skn_rig_destroy(rig), skn_gltf_close(g);
  return ok;
}

static GLuint shader(GLenum type, const char *const *parts, int count) {
  GLuint s = gl.CreateShader(type);
  GLint ok = 0;
  gl.ShaderSource(s, count, parts, NULL);
  gl.CompileShader(s);
  gl.GetShaderiv(s, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    char log[2048];
    gl.GetShaderInfoLog(s, sizeof log, NULL, log);
    fprintf(stderr, "   vat: %s\n", log);
  }
  return s;
}

/* The player's program: skn_glsl_source's text and VAT_MAIN, outputs captured. */
static GLuint player(const char *main_text, int outputs) {
  skn_gpu_desc d = {sizeof d};
  d.dialect = gl_context_api == SKN_EGL_OPENGL_ES ? SKN_GLSL_300_ES : SKN_GLSL_330;
  d.flags = SKN_GLSL_VAT_PLAYER;
  size_t n = 0;
  if (skn_glsl_source(&d, NULL, 0, &n)) return 0;
  char *text = malloc(n + 1);
  skn_glsl_source(&d, text, n + 1, &n);
  const char *vs[2] = {text, main_text};
  const char *fs[1] = {gl_context_api == SKN_EGL_OPENGL_ES
                           ? "#version 300 es\nprecision mediump float;\nout vec4 c;\nvoid main() { c = vec4(1.0); }\n"
                           : "#version 330 core\nout vec4 c;\nvoid main() { c = vec4(1.0); }\n"};
  GLuint prog = gl.CreateProgram(), v = shader(GL_VERTEX_SHADER, vs, 2), f = shader(GL_FRAGMENT_SHADER, fs, 1);
  gl.AttachShader(prog, v), gl.AttachShader(prog, f);
  const char *outs[2] = {"out_position", "out_normal"};
  gl.TransformFeedbackVaryings(prog, outputs, outs, GL_INTERLEAVED_ATTRIBS);
  gl.LinkProgram(prog);
  GLint ok = 0;
  gl.GetProgramiv(prog, GL_LINK_STATUS, &ok);
  gl.DeleteShader(v), gl.DeleteShader(f);
  free(text);
  if (!ok) gl.DeleteProgram(prog);
  return ok ? prog : 0;
}

static GLuint upload(const uint16_t *texels, uint32_t height) {
  GLuint t;
  gl.GenTextures(1, &t);
  gl.BindTexture(GL_TEXTURE_2D, t);
  gl.PixelStorei(GL_UNPACK_ALIGNMENT, 2);
  gl.TexImage2D(GL_TEXTURE_2D, 0, GL_RGB16UI, VAT_WIDTH, (GLsizei)height, 0, GL_RGB_INTEGER, GL_UNSIGNED_SHORT, texels);
  gl.TexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  gl.TexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  return t;
}

/* The played frame `frame`: n records of `floats` floats. */
static int play(GLuint prog, GLuint vao, uint32_t n, uint32_t floats, float frame, float *out) {
  GLuint own = 0;
  gl.UseProgram(prog);
  gl.Uniform1f(gl.GetUniformLocation(prog, "frame"), frame);
  if (!vao) gl.GenVertexArrays(1, &own), vao = own;
  gl.BindVertexArray(vao);
  int ok = capture_points(n, floats, out);
  if (own) gl.DeleteVertexArrays(1, &own);
  return ok;
}

/* The bone VAT on CesiumMan: palettes of frames 0, 1, 2 played at 0, 1, 2 and 1.5. */
static void bones(void) {
  skn_gltf *g = NULL;
  skn_rig *rig = NULL;
  skn_pose *pose = NULL;
  skn_gltf_bind_desc bd = {sizeof bd};
  skn_gltf_primitive_info pi = {sizeof pi};
  int ok = !skn_gltf_open("data/gltf/CesiumMan/glTF/CesiumMan.gltf", &g) && !skn_gltf_primitive_info_get(g, 0, &pi) &&
           !skn_gltf_bind(g, &bd, &rig) && !skn_pose_create(rig, &pose);
  uint32_t n = pi.vertex_count, J = pi.joint_count;
  float *pal = malloc(sizeof(float) * 12 * J * VAT_FRAMES), *want = malloc(sizeof(float) * 3 * n * VAT_FRAMES);
  float *rest = malloc(sizeof(float) * 3 * n), *weights = malloc(sizeof(float) * 4 * n), *out = malloc(sizeof(float) * 3 * n);
  uint16_t *joints = malloc(sizeof(uint16_t) * 4 * n);
  skn_gpu_attributes a = {sizeof a};
  a.influences = 4, a.joint_bits = 16, a.joints.data = joints, a.weights.data = weights, a.positions.data = rest;
  ok = ok && !skn_rig_gpu_attributes(rig, &a);
  for (int f = 0; ok && f < VAT_FRAMES; ++f) {
    skn_skin_desc sd = {sizeof sd};
    sd.positions.data = want + (size_t)3 * n * f;
    ok = !skn_gltf_pose(g, 0, 0, 0.3f * (float)f, pose) && !skn_skin(rig, pose, &sd) &&
         !skn_pose_palette(pose, SKN_PALETTE_ROWS3X4, pal + (size_t)12 * J * f, sizeof(float) * 12 * J);
  }
  check(ok, "vat: CesiumMan's palettes: %s", skn_last_error());
  GLuint prog = ok ? player(BONE_MAIN, 1) : 0;
  check(prog != 0, "vat: the bone player compiles and links (%s)", gl_context_api ? "ES" : "GL");
  if (prog) {
    GLuint tex, vao, vbo[3];
    gl.GenTextures(1, &tex);
    gl.ActiveTexture(GL_TEXTURE0 + 2);
    gl.BindTexture(GL_TEXTURE_2D, tex);
    gl.TexImage2D(GL_TEXTURE_2D, 0, GL_RGBA32F, (GLsizei)(3 * J), VAT_FRAMES, 0, GL_RGBA, GL_FLOAT, pal);
    gl.TexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    gl.TexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    gl.ActiveTexture(GL_TEXTURE0);
    gl.UseProgram(prog);
    gl.Uniform1i(gl.GetUniformLocation(prog, "skn_vat_palette"), 2);
    gl.GenVertexArrays(1, &vao), gl.BindVertexArray(vao), gl.GenBuffers(3, vbo);
    const void *data[3] = {rest, joints, weights};
    size_t size[3] = {sizeof(float) * 3 * n, sizeof(uint16_t) * 4 * n, sizeof(float) * 4 * n};
    const char *names[3] = {"rest", "joints", "weights"};
    for (int k = 0; k < 3; ++k) {
      GLint at = gl.GetAttribLocation(prog, names[k]);
      gl.BindBuffer(GL_ARRAY_BUFFER, vbo[k]);
      gl.BufferData(GL_ARRAY_BUFFER, (GLsizeiptr)size[k], data[k], GL_STATIC_DRAW);
      gl.EnableVertexAttribArray((GLuint)at);
      if (k == 1) gl.VertexAttribIPointer((GLuint)at, 4, GL_UNSIGNED_SHORT, 0, NULL);
      else gl.VertexAttribPointer((GLuint)at, k ? 4 : 3, GL_FLOAT, 0, 0, NULL);
    }
    static const float FRAMES[] = {0, 1, 2, 1.5f};
    for (int k = 0; k < 4; ++k) {
      int f0 = (int)FRAMES[k], f1 = FRAMES[k] > (float)f0 ? f0 + 1 : f0;
      double a = FRAMES[k] - (float)f0, worst = 0, size_ = 0, lo[3] = {1e30, 1e30, 1e30}, hi[3] = {-1e30, -1e30, -1e30};
      int ran = play(prog, vao, n, 3, FRAMES[k], out);
      for (uint32_t v = 0; ran && v < n; ++v)
        for (int c = 0; c < 3; ++c) {
          double w = (1 - a) * want[((size_t)f0 * n + v) * 3 + c] + a * want[((size_t)f1 * n + v) * 3 + c];
          worst = fmax(worst, fabs(out[3 * v + c] - w));
          lo[c] = fmin(lo[c], w), hi[c] = fmax(hi[c], w);
        }
      for (int c = 0; c < 3; ++c) size_ += (hi[c] - lo[c]) * (hi[c] - lo[c]);
      check(ran && worst <= 1e-6 * sqrt(size_), "vat (%s): bones at frame %g: %.2e of the size",
            gl_context_api ? "ES" : "GL", (double)FRAMES[k], worst / sqrt(size_));
    }
    gl.DeleteBuffers(3, vbo), gl.DeleteVertexArrays(1, &vao), gl.DeleteTextures(1, &tex), gl.DeleteProgram(prog);
  }
  free(pal), free(want), free(rest), free(weights), free(out), free(joints);
  skn_pose_destroy(pose), skn_rig_destroy(rig), skn_gltf_close(g);
}

void test_vat(void) {
  bones();
  baked b;
  memset(&b, 0, sizeof b);
  check(bake(&b), "vat: CesiumMan skinned for the bake: %s", skn_last_error());
  GLuint prog = b.n ? player(VAT_MAIN, 2) : 0;
  check(prog != 0, "vat: the player compiles and links (%s)", gl_context_api ? "ES" : "GL");
  if (!prog) return;
  GLuint tex[2] = {upload(b.tex[0], b.rows * VAT_FRAMES), 0};
  gl.ActiveTexture(GL_TEXTURE0 + 1);
  tex[1] = upload(b.tex[1], b.rows * VAT_FRAMES);
  gl.ActiveTexture(GL_TEXTURE0);
  gl.BindTexture(GL_TEXTURE_2D, tex[0]);
  gl.UseProgram(prog);
  gl.Uniform1i(gl.GetUniformLocation(prog, "skn_vat_positions"), 0);
  gl.Uniform1i(gl.GetUniformLocation(prog, "skn_vat_normals"), 1);
  gl.Uniform3f(gl.GetUniformLocation(prog, "skn_vat_lo"), b.lo[0], b.lo[1], b.lo[2]);
  gl.Uniform3f(gl.GetUniformLocation(prog, "skn_vat_hi"), b.hi[0], b.hi[1], b.hi[2]);
  gl.Uniform1i(gl.GetUniformLocation(prog, "skn_vat_width"), (GLint)VAT_WIDTH);
  gl.Uniform1i(gl.GetUniformLocation(prog, "skn_vat_rows"), (GLint)b.rows);
  float *out = malloc(sizeof(float) * 6 * b.n);
  double extent = 0;
  for (int c = 0; c < 3; ++c) extent = fmax(extent, (double)b.hi[c] - b.lo[c]);
  static const float FRAMES[] = {0, 1, 2, 0.5f};
  for (int k = 0; k < 4; ++k) {
    float frame = FRAMES[k];
    int f0 = (int)frame, f1 = frame > (float)f0 ? f0 + 1 : f0;
    float a = frame - (float)f0;
    double wp = 0, wn = 0;
    int ran = play(prog, 0, b.n, 6, frame, out);
    for (uint32_t v = 0; ran && v < b.n; ++v) {
      double n[3], len = 0;
      for (int c = 0; c < 3; ++c) {
        size_t i0 = ((size_t)f0 * b.n + v) * 3 + c, i1 = ((size_t)f1 * b.n + v) * 3 + c;
        double want = (1 - a) * b.pos[i0] + a * b.pos[i1];
        wp = fmax(wp, fabs(out[6 * v + c] - want) / ((double)b.hi[c] - b.lo[c]));
        n[c] = (1 - a) * b.nrm[i0] + a * b.nrm[i1], len += n[c] * n[c];
      }
      for (int c = 0; c < 3; ++c) wn = fmax(wn, fabs(out[6 * v + 3 + c] - n[c] / sqrt(len)));
    }
    /* the encoding's half step: 2^-16 of the bounds; a unit normal's 2^-16 a component, renormalized */
    check(ran && wp <= 1.0 / 65536 + 1e-6 && wn <= 4e-5, "vat (%s): frame %g played: positions within %.2e of the "
          "bounds, normals %.2e", gl_context_api ? "ES" : "GL", (double)frame, wp, wn);
  }
  gl.DeleteTextures(2, tex);
  gl.DeleteProgram(prog);
  free(out), free(b.pos), free(b.nrm), free(b.tex[0]), free(b.tex[1]);
}
