/* skn_gl.h — skinning in an OpenGL 3.3 or OpenGL ES 3.0 vertex shader, for
 * any host that has a context: skn's GLSL (skn_glsl_source) compiled with the
 * host's own main, the rig's per-vertex inputs in a vertex array, and the
 * palette — a uniform block where it fits, else a texture buffer or a 2D
 * float texture, chosen by the adapter — updated with one upload a frame.
 *
 *   skn_gl_desc d = {sizeof d};
 *   d.loader = (skn_gl_loader)eglGetProcAddress;   // or glfwGetProcAddress, ...
 *   d.method = SKN_METHOD_DQS;
 *   d.outputs = SKN_GPU_NORMALS;
 *   d.vertex_main = "uniform mat4 mvp; in vec3 skn_rest_position; in vec3 skn_rest_normal;\n"
 *                   "out vec3 normal;\n"
 *                   "void main() { gl_Position = mvp * vec4(skn_skin_position(skn_rest_position), 1.0);\n"
 *                   "              normal = skn_skin_normal(skn_rest_normal); }\n";
 *   d.fragment_main = "in vec3 normal; out vec4 color; void main() { color = vec4(normal * 0.5 + 0.5, 1.0); }\n";
 *   skn_gl *gl;
 *   skn_gl_create(rig, &d, &gl);             // once, in the context
 *   per frame: skn_pose_set_local(pose, ...); skn_gl_update(gl, pose); skn_gl_bind(gl);
 *              the host's uniforms, then glDrawElements(GL_TRIANGLES, ...) or glDrawArrays
 *
 * The adapter gets every GL entry point from the host's loader and links no
 * GL library; libskn itself makes no GL call. Every call here needs the
 * host's context current on the calling thread. Errors come back as
 * skn_status with the reason — a compile log, a GL error, a limit — in
 * skn_last_error(). skn_gl_create and skn_gl_update leave the context's
 * bindings as they found them; skn_gl_bind sets the adapter's. */
#ifndef SKN_GL_H
#define SKN_GL_H

#include "skn.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct skn_gl skn_gl;

/* A GL entry point by name, as eglGetProcAddress and its kin return it. */
typedef void (*skn_gl_proc)(void);
typedef skn_gl_proc (*skn_gl_loader)(const char *name);

/* Where the palette lives: the adapter's choice, or the host's. */
typedef enum skn_gl_palette {
  SKN_GL_PALETTE_AUTO = 0,         /* a uniform block where joints x palette_vec4s x 16 bytes fit
                                      GL_MAX_UNIFORM_BLOCK_SIZE, else a texture buffer (OpenGL), else
                                      a 2D texture */
  SKN_GL_PALETTE_UNIFORM_BLOCK,
  SKN_GL_PALETTE_TEXTURE_BUFFER,   /* OpenGL 3.3 only */
  SKN_GL_PALETTE_TEXTURE_2D,
  SKN_GL_PALETTE_FORCE_U32 = 0x7FFFFFFF
} skn_gl_palette;

typedef struct skn_gl_desc {
  uint32_t struct_size;
  skn_gl_loader loader;            /* required: the host's GL entry points */
  skn_method method;
  skn_dqs_scale dqs_scale;         /* as skn_skin_desc */
  uint32_t influences;             /* 4 or 8 a vertex; 0: 4, or 8 where a vertex of the rig has more */
  uint32_t outputs;                /* SKN_GPU_NORMALS | SKN_GPU_TANGENTS: the skn_skin_* functions */
  skn_gl_palette palette;
  uint32_t joint_bits;             /* the joints' vertex input: 16 (0) or 8 (<= 256 joints) */
  uint32_t palette_unit;           /* the uniform buffer binding or texture unit the palette takes */
  /* The host's vertex code, after skn's text: it may declare the rig's rest
   * mesh as `in vec3 skn_rest_position; in vec3 skn_rest_normal; in vec4
   * skn_rest_tangent;`, which the adapter's vertex array feeds. Required. */
  const char *vertex_main;
  /* The fragment shader without its #version line (the adapter writes the
   * context's, and highp for ES). NULL: an opaque white one. */
  const char *fragment_main;
  /* Transform feedback: the vertex outputs to capture, interleaved, set
   * before the program links (glTransformFeedbackVaryings). Optional. */
  const char *const *feedback_varyings;
  uint32_t feedback_count;
  /* Triangles to draw, as an element buffer in the vertex array
   * (GL_UNSIGNED_INT). Optional. */
  const uint32_t *indices;
  uint32_t index_count;
} skn_gl_desc;

/* Compiles the program, uploads the rig's per-vertex inputs and rest mesh
 * and makes the palette's buffer or texture; the rig may be destroyed
 * afterwards. Errors: SKN_ERR_INVALID_ARGUMENT for a bad desc or a shader
 * that does not compile or link (its log in skn_last_error), SKN_ERR_UNSUPPORTED
 * for a context older than OpenGL 3.3 / ES 3.0, a palette over every
 * limit, or a GL error (named), SKN_ERR_OUT_OF_MEMORY; nothing is left
 * behind in the context then. */
SKN_API skn_status skn_gl_create(const skn_rig *rig, const skn_gl_desc *desc, skn_gl **out);

/* The palette of `pose` (a pose of the rig), in one upload. Errors as
 * skn_pose_gpu_palette, or a GL error. */
SKN_API skn_status skn_gl_update(skn_gl *gl, const skn_pose *pose);

/* Makes the program current and binds its vertex array and palette, for
 * the host's draw call. */
SKN_API void skn_gl_bind(const skn_gl *gl);

typedef struct skn_gl_info {
  uint32_t struct_size;            /* the caller sets sizeof */
  uint32_t program;                /* GL names: set the host's uniforms on program */
  uint32_t vertex_array;
  skn_gl_palette palette;          /* where the palette lives (never AUTO) */
  skn_glsl_dialect dialect;
  uint32_t palette_bytes;
  uint32_t vertex_count;
  uint32_t index_count;
  uint32_t influences;
} skn_gl_info;

SKN_API skn_status skn_gl_info_get(const skn_gl *gl, skn_gl_info *out);

/* Deletes the adapter's GL objects. NULL is ignored. */
SKN_API void skn_gl_destroy(skn_gl *gl);

#ifdef __cplusplus
}
#endif
#endif
