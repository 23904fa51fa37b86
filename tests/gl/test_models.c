/* test_models.c — the sample models (Fox, CesiumMan) through skn_gltf_bind
 * with every method; a rig whose palette no uniform block holds (the
 * adapter picks another place itself); and a host without the adapter,
 * which follows only what the text's comment says. */
#include "rigs.h"

#include <stdlib.h>
#include <string.h>

static void sample_models(void) {
  static const char *const MODELS[2] = {"data/gltf/Fox/glTF-Binary/Fox.glb", "data/gltf/CesiumMan/glTF/CesiumMan.gltf"};
  static const float TIMES[2] = {0.3f, 1.1f};
  for (int f = 0; f < 2; ++f) {
    posed p;
    int ok = gltf_posed(&p, MODELS[f], TIMES[f]);
    check(ok, "%s binds", MODELS[f]);
    uint32_t outputs = (p.has_normals ? SKN_GPU_NORMALS : 0) | (p.has_tangents ? SKN_GPU_TANGENTS : 0);
    for (int m = 0; ok && m <= SKN_METHOD_COR; ++m) {
      gpu_case c = {(skn_method)m, SKN_DQS_SCALE_POLAR, 0, outputs, SKN_GL_PALETTE_AUTO, 0};
      skin_diff d = compare_case(&p, &c, NULL);
      check_diff(&d, &c, MODELS[f]);
    }
    posed_free(&p);
  }
}

/* 1,500 joints x 6 vec4 (LBS with normals) is 144 KB: past any uniform
 * block this side of 64 KB. */
static void large_palette(void) {
  posed p;
  int ok = random_posed(&p, 21, 1500, 2000, 4, 2);
  check(ok, "large rig binds");
  for (int m = 0; ok && m <= SKN_METHOD_COR; m += 2) { /* LBS, DQS, COR */
    gpu_case c = {(skn_method)m, SKN_DQS_SCALE_POLAR, 4, SKN_GPU_NORMALS, SKN_GL_PALETTE_AUTO, 0};
    skn_gl_info info = {sizeof info};
    skin_diff d = compare_case(&p, &c, &info);
    check_diff(&d, &c, "large palette");
    check(info.palette == (gl_context_api == SKN_EGL_OPENGL_ES ? SKN_GL_PALETTE_TEXTURE_2D : SKN_GL_PALETTE_TEXTURE_BUFFER),
          "large palette: %u bytes went to palette %d", info.palette_bytes, (int)info.palette);
  }
  posed_free(&p);
}

/* A host of its own: the text, the inputs and the palette through abi/skn.h
 * alone, bound as the text's comment says (uniform block SknPalette). */
static GLuint own_program(const char *text) {
  const char *main_ = "in vec3 position;\nout vec3 out_position;\n"
                      "void main() { out_position = skn_skin_position(position); gl_Position = vec4(0.0); }\n";
  const char *vs_parts[2] = {text, main_};
  const char *fs_parts[1] = {gl_context_api ? "#version 300 es\nprecision highp float;\nout vec4 c;\nvoid main() { c = vec4(1.0); }\n"
                                            : "#version 330 core\nout vec4 c;\nvoid main() { c = vec4(1.0); }\n"};
  GLuint vs = gl.CreateShader(GL_VERTEX_SHADER), fs = gl.CreateShader(GL_FRAGMENT_SHADER), prog = gl.CreateProgram();
  gl.ShaderSource(vs, 2, vs_parts, NULL);
  gl.CompileShader(vs);
  gl.ShaderSource(fs, 1, fs_parts, NULL);
  gl.CompileShader(fs);
  gl.AttachShader(prog, vs);
  gl.AttachShader(prog, fs);
  const char *varying = "out_position";
  gl.TransformFeedbackVaryings(prog, 1, &varying, GL_INTERLEAVED_ATTRIBS);
  gl.LinkProgram(prog);
  gl.DeleteShader(vs);
  gl.DeleteShader(fs);
  GLint ok = 0;
  gl.GetProgramiv(prog, GL_LINK_STATUS, &ok);
  return ok ? prog : 0;
}

static void bind_input(GLuint prog, const char *name, GLint size, GLenum type, GLsizei stride, size_t offset) {
  GLint loc = gl.GetAttribLocation(prog, name);
  if (loc < 0) return;
  if (type == GL_FLOAT) gl.VertexAttribPointer((GLuint)loc, size, type, 0, stride, (const void *)offset);
  else gl.VertexAttribIPointer((GLuint)loc, size, type, stride, (const void *)offset);
  gl.EnableVertexAttribArray((GLuint)loc);
}

static void host_without_adapter(void) {
  posed p;
  check(random_posed(&p, 31, 30, 400, 4, 2), "host: rig binds");
  skn_gpu_desc d = {sizeof d};
  d.method = SKN_METHOD_DQS;
  d.dialect = gl_context_api == SKN_EGL_OPENGL_ES ? SKN_GLSL_300_ES : SKN_GLSL_330;
  d.joint_count = 30;
  size_t n = 0;
  skn_gpu_layout layout = {sizeof layout};
  skn_glsl_source(&d, NULL, 0, &n);
  char *text = malloc(n + 1);
  check(skn_glsl_source(&d, text, n + 1, &n) == SKN_OK && skn_gpu_layout_get(&d, &layout) == SKN_OK, "host: text");
  /* the vertex inputs: rest position, joints (16 bits), weights, one record a vertex */
  struct record { float position[3]; uint16_t joints[4]; float weights[4]; } *v = calloc(p.vertex_count, sizeof *v);
  skn_gpu_attributes a = {sizeof a};
  a.positions = (skn_out_attrib){v->position, sizeof *v};
  a.joints = (skn_out_attrib){v->joints, sizeof *v};
  a.weights = (skn_out_attrib){v->weights, sizeof *v};
  check(skn_rig_gpu_attributes(p.rig, &a) == SKN_OK, "host: attributes: %s", skn_last_error());
  size_t palette_bytes = 30 * layout.palette_vec4s * 16;
  float *palette = malloc(palette_bytes);
  check(skn_pose_gpu_palette(p.pose, &d, palette, palette_bytes) == SKN_OK, "host: palette: %s", skn_last_error());
  GLuint prog = own_program(text), vao, buffers[3];
  check(prog != 0, "host: the text with a main of its own links");
  gl.GenVertexArrays(1, &vao);
  gl.BindVertexArray(vao);
  gl.GenBuffers(3, buffers);
  gl.BindBuffer(GL_ARRAY_BUFFER, buffers[0]);
  gl.BufferData(GL_ARRAY_BUFFER, (GLsizeiptr)(p.vertex_count * sizeof *v), v, GL_STATIC_DRAW);
  bind_input(prog, "position", 3, GL_FLOAT, sizeof *v, offsetof(struct record, position));
  bind_input(prog, "skn_joints0", 4, GL_UNSIGNED_SHORT, sizeof *v, offsetof(struct record, joints));
  bind_input(prog, "skn_weights0", 4, GL_FLOAT, sizeof *v, offsetof(struct record, weights));
  gl.BindBuffer(GL_UNIFORM_BUFFER, buffers[1]);
  gl.BufferData(GL_UNIFORM_BUFFER, (GLsizeiptr)palette_bytes, palette, GL_STREAM_DRAW);
  gl.UniformBlockBinding(prog, gl.GetUniformBlockIndex(prog, "SknPalette"), 3);
  gl.BindBufferRange(GL_UNIFORM_BUFFER, 3, buffers[1], 0, (GLsizeiptr)palette_bytes);
  gl.BindBuffer(GL_TRANSFORM_FEEDBACK_BUFFER, buffers[2]);
  gl.BufferData(GL_TRANSFORM_FEEDBACK_BUFFER, (GLsizeiptr)(p.vertex_count * 12), NULL, GL_STREAM_READ);
  gl.BindBufferBase(GL_TRANSFORM_FEEDBACK_BUFFER, 0, buffers[2]);
  gl.UseProgram(prog);
  gl.Enable(GL_RASTERIZER_DISCARD);
  gl.BeginTransformFeedback(GL_POINTS);
  gl.DrawArrays(GL_POINTS, 0, (GLsizei)p.vertex_count);
  gl.EndTransformFeedback();
  gl.Disable(GL_RASTERIZER_DISCARD);
  float *cpu = malloc(p.vertex_count * 12);
  skn_skin_desc sd = {sizeof sd};
  sd.method = SKN_METHOD_DQS;
  sd.positions.data = cpu;
  skn_skin(p.rig, p.pose, &sd);
  const float *gpu = gl.MapBufferRange(GL_TRANSFORM_FEEDBACK_BUFFER, 0, (GLsizeiptr)(p.vertex_count * 12), GL_MAP_READ_BIT);
  double worst = gpu ? max_abs_diff(cpu, gpu, p.vertex_count * 3) / p.size : 1e30;
  gl.UnmapBuffer(GL_TRANSFORM_FEEDBACK_BUFFER);
  check(worst <= 1e-5 && !gl.GetError(), "host: DQS through the text's own contract: %.3g of the size", worst);
  gl.UseProgram(0);
  gl.BindVertexArray(0);
  gl.DeleteVertexArrays(1, &vao);
  gl.DeleteBuffers(3, buffers);
  gl.DeleteProgram(prog);
  free(cpu), free(palette), free(v), free(text);
  posed_free(&p);
}

void test_models(void) {
  sample_models();
  large_palette();
  host_without_adapter();
}
