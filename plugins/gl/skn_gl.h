/* skn_gl.h — skinning on the GPU for any host that has an OpenGL context,
 * by one of two paths that give skn_skin's answer:
 *   - compute (OpenGL 4.3, OpenGL ES 3.1): a compute shader skins each frame
 *     once into an output buffer that every pass draws from — any number of
 *     influences a vertex, morph targets, the previous frame's positions on
 *     request, and many poses (a crowd) or rigs in one dispatch;
 *   - vertex (OpenGL 3.3, OpenGL ES 3.0): skn's GLSL in the host's vertex
 *     shader, every draw; up to 16 influences a vertex, morph targets.
 * The adapter takes the compute path where the context has it (AUTO) and
 * says which it took (skn_gl_info). The host's vertex main is the same for
 * both: it calls skn_skin_position(skn_rest_position) and its kin, which on
 * the compute path return what the dispatch wrote. On the vertex path the
 * palette is a uniform block where it fits, else a texture buffer or a 2D
 * float texture, chosen by the adapter, updated with one upload a frame.
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

/* Which path skins (skn_gl_desc.path). */
typedef enum skn_gl_path {
  SKN_GL_PATH_AUTO = 0,            /* compute where the context has it (version, calls, limits), else
                                      vertex; skn_gl_info.path_reason says why */
  SKN_GL_PATH_VERTEX,
  SKN_GL_PATH_COMPUTE,
  SKN_GL_PATH_FORCE_U32 = 0x7FFFFFFF
} skn_gl_path;

/* Bits of skn_gl_desc.flags. */
enum {
  SKN_GL_PREVIOUS_POSITIONS = 1u << 0 /* compute: keep each vertex's last position beside the new one
                                         (skn_skin_previous_position() in the host's vertex main) */
};

typedef struct skn_gl_desc {
  uint32_t struct_size;
  skn_gl_loader loader;            /* required: the host's GL entry points */
  skn_method method;
  skn_dqs_scale dqs_scale;         /* as skn_skin_desc */
  uint32_t influences;             /* vertex path: 4, 8, 12 or 16 a vertex; 0: the rig's most, rounded up
                                      to four (the compute path reads any number) */
  uint32_t outputs;                /* SKN_GPU_NORMALS | SKN_GPU_TANGENTS: the skn_skin_* functions */
  skn_gl_palette palette;
  uint32_t joint_bits;             /* the joints' vertex input: 16 (0) or 8 (<= 256 joints) */
  uint32_t palette_unit;           /* the uniform buffer binding or texture unit the palette takes;
                                      the vertex path's morph entries take texture unit
                                      palette_unit + 1 */
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
  /* appended in 1.4; zero keeps the earlier behaviour but for the path, which AUTO lets the adapter
   * choose */
  skn_gl_path path;
  uint32_t instances;              /* compute: poses of each rig skinned a dispatch, each into its own
                                      range of the output (0: 1) */
  uint32_t flags;                  /* SKN_GL_* */
} skn_gl_desc;

/* Compiles the program, uploads the rig's per-vertex inputs and rest mesh
 * and makes the palette's buffer or texture; the rig may be destroyed
 * afterwards. Errors: SKN_ERR_INVALID_ARGUMENT for a bad desc or a shader
 * that does not compile or link (its log in skn_last_error), SKN_ERR_UNSUPPORTED
 * for a context older than OpenGL 3.3 / ES 3.0, a palette over every
 * limit, or a GL error (named), SKN_ERR_OUT_OF_MEMORY; nothing is left
 * behind in the context then. */
SKN_API skn_status skn_gl_create(const skn_rig *rig, const skn_gl_desc *desc, skn_gl **out);

/* Compute path: one adapter for several rigs (the same method and outputs),
 * each with desc->instances poses, all skinned by one dispatch; instance i
 * of rig r is job r * instances + i. Errors as skn_gl_create, and
 * SKN_ERR_UNSUPPORTED where the context has no compute path. */
SKN_API skn_status skn_gl_create_many(const skn_rig *const *rigs, uint32_t rig_count, const skn_gl_desc *desc,
                                      skn_gl **out);

/* The palette of `pose` (a pose of the rig) with its morph weights, in one
 * upload; on the compute path, then the dispatch. Errors as
 * skn_pose_gpu_palette, or a GL error. */
SKN_API skn_status skn_gl_update(skn_gl *gl, const skn_pose *pose);

/* Compute path: job `job`'s pose for the next dispatch (its palette and
 * morph weights, kept on the host until then); the pose must be of the
 * job's rig. Errors as skn_pose_gpu_palette, a job past the count
 * (SKN_ERR_INDEX_OUT_OF_RANGE), a pose of a rig with more joints
 * (SKN_ERR_INVALID_ARGUMENT) or fewer morph targets (SKN_ERR_INDEX_OUT_OF_RANGE)
 * than the job's; the job keeps its last pose then. A pose's morph weights beyond the job's targets are
 * not read. */
SKN_API skn_status skn_gl_set_pose(skn_gl *gl, uint32_t job, const skn_pose *pose);

/* Compute path: uploads the poses set and skins every job: the morph passes,
 * then one dispatch, then the barrier that makes its output visible to
 * vertex fetches, buffer reads and transform feedback. The context's
 * program and storage buffer bindings are put back. Errors: a job whose
 * pose was never set (SKN_ERR_INVALID_ARGUMENT, nothing dispatched), a GL
 * error, named. */
SKN_API skn_status skn_gl_dispatch(skn_gl *gl);

/* Makes the program current and binds its vertex array and palette (vertex
 * path) or the output of job 0 (compute path), for the host's draw call. */
SKN_API void skn_gl_bind(const skn_gl *gl);

/* Compute path: points the vertex array at job `job`'s output (and its
 * rig's rest mesh) for the next draw; SKN_ERR_INDEX_OUT_OF_RANGE past the
 * job count. On the vertex path only job 0 exists. */
SKN_API skn_status skn_gl_bind_job(skn_gl *gl, uint32_t job);

typedef struct skn_gl_info {
  uint32_t struct_size;            /* the caller sets sizeof */
  uint32_t program;                /* GL names: set the host's uniforms on program */
  uint32_t vertex_array;
  skn_gl_palette palette;          /* where the palette lives (never AUTO) */
  skn_glsl_dialect dialect;
  uint32_t palette_bytes;
  uint32_t vertex_count;
  uint32_t index_count;
  uint32_t influences;             /* vertex path: read a vertex; compute: the rig's most */
  /* appended in 1.4 */
  skn_gl_path path;                /* the path taken (never AUTO) */
  const char *path_reason;         /* why (AUTO: what the context lacks for compute), static or the
                                      adapter's, while it lives */
  uint32_t output_buffer;          /* compute: the GL buffer the dispatch writes, job after job */
  uint32_t output_floats;          /* a vertex's record in it (skn_gpu_layout: position at 0) */
  uint32_t output_normal, output_tangent, output_previous; /* in floats, or SKN_GPU_ABSENT */
  uint32_t job_count;              /* rigs x instances */
} skn_gl_info;

SKN_API skn_status skn_gl_info_get(const skn_gl *gl, skn_gl_info *out);

/* Deletes the adapter's GL objects. NULL is ignored. */
SKN_API void skn_gl_destroy(skn_gl *gl);

#ifdef __cplusplus
}
#endif
#endif
