/* gl_api.h — the OpenGL 3.3 / OpenGL ES 3.0 calls and constants that
 * plugins/gl, its tests and `skn render --gpu` use, loaded at run time
 * through the host's own loader (eglGetProcAddress, glfwGetProcAddress, ...),
 * so that nothing here links a GL library or needs a GL header. Internal to
 * the adapter's sources: skn_gl.h, the public header, names no GL type. */
#ifndef SKN_GL_API_H
#define SKN_GL_API_H

#include "skn_gl.h"

#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#define SKN_GLAPIENTRY __stdcall
#else
#define SKN_GLAPIENTRY
#endif

typedef unsigned int GLenum;
typedef unsigned int GLuint;
typedef int GLint;
typedef int GLsizei;
typedef unsigned int GLbitfield;
typedef unsigned char GLboolean;
typedef unsigned char GLubyte;
typedef float GLfloat;
typedef char GLchar;
typedef ptrdiff_t GLintptr;
typedef ptrdiff_t GLsizeiptr;
typedef uint64_t GLuint64;

#define GL_NO_ERROR 0
#define GL_INVALID_ENUM 0x0500
#define GL_INVALID_VALUE 0x0501
#define GL_INVALID_OPERATION 0x0502
#define GL_OUT_OF_MEMORY 0x0505
#define GL_INVALID_FRAMEBUFFER_OPERATION 0x0506
#define GL_POINTS 0x0000
#define GL_TRIANGLES 0x0004
#define GL_UNSIGNED_BYTE 0x1401
#define GL_UNSIGNED_SHORT 0x1403
#define GL_UNSIGNED_INT 0x1405
#define GL_FLOAT 0x1406
#define GL_RGBA 0x1908
#define GL_RGBA8 0x8058
#define GL_RGBA32F 0x8814
#define GL_R32UI 0x8236
#define GL_RED_INTEGER 0x8D94
#define GL_DEPTH_COMPONENT24 0x81A6
#define GL_VENDOR 0x1F00
#define GL_RENDERER 0x1F01
#define GL_VERSION 0x1F02
#define GL_SHADING_LANGUAGE_VERSION 0x8B8C
#define GL_DEPTH_TEST 0x0B71
#define GL_LESS 0x0201
#define GL_COLOR_BUFFER_BIT 0x00004000
#define GL_DEPTH_BUFFER_BIT 0x00000100
#define GL_TEXTURE_2D 0x0DE1
#define GL_TEXTURE0 0x84C0
#define GL_TEXTURE_MIN_FILTER 0x2801
#define GL_TEXTURE_MAG_FILTER 0x2800
#define GL_NEAREST 0x2600
#define GL_UNPACK_ALIGNMENT 0x0CF5
#define GL_UNPACK_ROW_LENGTH 0x0CF2
#define GL_UNPACK_SKIP_ROWS 0x0CF3
#define GL_UNPACK_SKIP_PIXELS 0x0CF4
#define GL_PACK_ALIGNMENT 0x0D05
#define GL_ARRAY_BUFFER 0x8892
#define GL_ELEMENT_ARRAY_BUFFER 0x8893
#define GL_PIXEL_UNPACK_BUFFER 0x88EC
#define GL_UNIFORM_BUFFER 0x8A11
#define GL_TEXTURE_BUFFER 0x8C2A
#define GL_TRANSFORM_FEEDBACK_BUFFER 0x8C8E
#define GL_ARRAY_BUFFER_BINDING 0x8894
#define GL_UNIFORM_BUFFER_BINDING 0x8A28
#define GL_TEXTURE_BUFFER_BINDING 0x8C2A
#define GL_TEXTURE_BINDING_2D 0x8069
#define GL_TEXTURE_BINDING_BUFFER 0x8C2C
#define GL_PIXEL_UNPACK_BUFFER_BINDING 0x88EF
#define GL_VERTEX_ARRAY_BINDING 0x85B5
#define GL_ACTIVE_TEXTURE 0x84E0
#define GL_CURRENT_PROGRAM 0x8B8D
#define GL_STATIC_DRAW 0x88E4
#define GL_STREAM_DRAW 0x88E0
#define GL_DYNAMIC_DRAW 0x88E8
#define GL_DYNAMIC_COPY 0x88EA
#define GL_STREAM_READ 0x88E1
#define GL_MAP_READ_BIT 0x0001
#define GL_VERTEX_SHADER 0x8B31
#define GL_FRAGMENT_SHADER 0x8B30
#define GL_COMPILE_STATUS 0x8B81
#define GL_LINK_STATUS 0x8B82
#define GL_INFO_LOG_LENGTH 0x8B84
#define GL_INVALID_INDEX 0xFFFFFFFFu
#define GL_INTERLEAVED_ATTRIBS 0x8C8C
#define GL_SEPARATE_ATTRIBS 0x8C8D
#define GL_RASTERIZER_DISCARD 0x8C89
#define GL_MAX_UNIFORM_BLOCK_SIZE 0x8A30
#define GL_MAX_TEXTURE_BUFFER_SIZE 0x8C2B
#define GL_MAX_TEXTURE_SIZE 0x0D33
#define GL_MAX_COMBINED_TEXTURE_IMAGE_UNITS 0x8B4D
#define GL_MAX_UNIFORM_BUFFER_BINDINGS 0x8A2F
#define GL_FRAMEBUFFER 0x8D40
#define GL_RENDERBUFFER 0x8D41
#define GL_COLOR_ATTACHMENT0 0x8CE0
#define GL_DEPTH_ATTACHMENT 0x8D00
#define GL_FRAMEBUFFER_COMPLETE 0x8CD5
#define GL_TIME_ELAPSED 0x88BF
#define GL_QUERY_RESULT 0x8866
/* compute shaders and storage buffers (OpenGL 4.3, OpenGL ES 3.1) */
#define GL_COMPUTE_SHADER 0x91B9
#define GL_SHADER_STORAGE_BUFFER 0x90D2
#define GL_SHADER_STORAGE_BUFFER_BINDING 0x90D3
#define GL_MAX_SHADER_STORAGE_BUFFER_BINDINGS 0x90DD
#define GL_MAX_COMPUTE_SHADER_STORAGE_BLOCKS 0x90DB
#define GL_MAX_SHADER_STORAGE_BLOCK_SIZE 0x90DE
#define GL_MAX_COMPUTE_WORK_GROUP_COUNT 0x91BE
#define GL_SHADER_STORAGE_BARRIER_BIT 0x00002000
#define GL_VERTEX_ATTRIB_ARRAY_BARRIER_BIT 0x00000001
#define GL_ELEMENT_ARRAY_BARRIER_BIT 0x00000002
#define GL_BUFFER_UPDATE_BARRIER_BIT 0x00000200
#define GL_TRANSFORM_FEEDBACK_BARRIER_BIT 0x00000800
#define GL_MAP_WRITE_BIT 0x0002

/* X(return type, name, parameters, required): every call the adapter's
 * sources make (and Uniform1f and Uniform3f, a host's, for tests/gl). `required` 0 marks the ones a context may lack (texture
 * buffers and timer queries are not in OpenGL ES 3.0, compute shaders not
 * before OpenGL 4.3 / ES 3.1). */
#define SKN_GL_FUNCTIONS(X)                                                                              \
  X(const GLubyte *, GetString, (GLenum name), 1)                                                        \
  X(void, GetIntegerv, (GLenum pname, GLint *data), 1)                                                   \
  X(GLenum, GetError, (void), 1)                                                                         \
  X(GLuint, CreateShader, (GLenum type), 1)                                                              \
  X(void, ShaderSource, (GLuint shader, GLsizei count, const GLchar *const *string, const GLint *length), 1) \
  X(void, CompileShader, (GLuint shader), 1)                                                             \
  X(void, GetShaderiv, (GLuint shader, GLenum pname, GLint *params), 1)                                  \
  X(void, GetShaderInfoLog, (GLuint shader, GLsizei size, GLsizei *length, GLchar *log), 1)              \
  X(void, DeleteShader, (GLuint shader), 1)                                                              \
  X(GLuint, CreateProgram, (void), 1)                                                                    \
  X(void, AttachShader, (GLuint program, GLuint shader), 1)                                              \
  X(void, TransformFeedbackVaryings, (GLuint program, GLsizei count, const GLchar *const *varyings, GLenum mode), 1) \
  X(void, LinkProgram, (GLuint program), 1)                                                              \
  X(void, GetProgramiv, (GLuint program, GLenum pname, GLint *params), 1)                                \
  X(void, GetProgramInfoLog, (GLuint program, GLsizei size, GLsizei *length, GLchar *log), 1)            \
  X(void, DeleteProgram, (GLuint program), 1)                                                            \
  X(void, UseProgram, (GLuint program), 1)                                                               \
  X(GLuint, GetUniformBlockIndex, (GLuint program, const GLchar *name), 1)                               \
  X(void, UniformBlockBinding, (GLuint program, GLuint index, GLuint binding), 1)                        \
  X(GLint, GetUniformLocation, (GLuint program, const GLchar *name), 1)                                  \
  X(void, Uniform1i, (GLint location, GLint v0), 1)                                                      \
  X(void, Uniform4f, (GLint location, GLfloat v0, GLfloat v1, GLfloat v2, GLfloat v3), 1)                \
  X(void, Uniform1f, (GLint location, GLfloat v0), 0) /* a host's VAT player (tests/gl/test_vat.c) */     \
  X(void, Uniform3f, (GLint location, GLfloat v0, GLfloat v1, GLfloat v2), 0)                            \
  X(void, UniformMatrix4fv, (GLint location, GLsizei count, GLboolean transpose, const GLfloat *value), 1) \
  X(GLint, GetAttribLocation, (GLuint program, const GLchar *name), 1)                                   \
  X(void, GenVertexArrays, (GLsizei n, GLuint *arrays), 1)                                               \
  X(void, BindVertexArray, (GLuint array), 1)                                                            \
  X(void, DeleteVertexArrays, (GLsizei n, const GLuint *arrays), 1)                                      \
  X(void, GenBuffers, (GLsizei n, GLuint *buffers), 1)                                                   \
  X(void, BindBuffer, (GLenum target, GLuint buffer), 1)                                                 \
  X(void, BufferData, (GLenum target, GLsizeiptr size, const void *data, GLenum usage), 1)               \
  X(void, BufferSubData, (GLenum target, GLintptr offset, GLsizeiptr size, const void *data), 1)         \
  X(void, DeleteBuffers, (GLsizei n, const GLuint *buffers), 1)                                          \
  X(void *, MapBufferRange, (GLenum target, GLintptr offset, GLsizeiptr length, GLbitfield access), 1)   \
  X(GLboolean, UnmapBuffer, (GLenum target), 1)                                                          \
  X(void, VertexAttribPointer, (GLuint index, GLint size, GLenum type, GLboolean normalized, GLsizei stride, const void *pointer), 1) \
  X(void, VertexAttribIPointer, (GLuint index, GLint size, GLenum type, GLsizei stride, const void *pointer), 1) \
  X(void, EnableVertexAttribArray, (GLuint index), 1)                                                    \
  X(void, BindBufferBase, (GLenum target, GLuint index, GLuint buffer), 1)                               \
  X(void, BindBufferRange, (GLenum target, GLuint index, GLuint buffer, GLintptr offset, GLsizeiptr size), 1) \
  X(void, GenTextures, (GLsizei n, GLuint *textures), 1)                                                 \
  X(void, BindTexture, (GLenum target, GLuint texture), 1)                                               \
  X(void, DeleteTextures, (GLsizei n, const GLuint *textures), 1)                                        \
  X(void, TexImage2D, (GLenum target, GLint level, GLint internalformat, GLsizei width, GLsizei height, GLint border, GLenum format, GLenum type, const void *pixels), 1) \
  X(void, TexSubImage2D, (GLenum target, GLint level, GLint xoffset, GLint yoffset, GLsizei width, GLsizei height, GLenum format, GLenum type, const void *pixels), 1) \
  X(void, TexParameteri, (GLenum target, GLenum pname, GLint param), 1)                                  \
  X(void, ActiveTexture, (GLenum texture), 1)                                                            \
  X(void, PixelStorei, (GLenum pname, GLint param), 1)                                                   \
  X(void, Enable, (GLenum cap), 1)                                                                       \
  X(void, Disable, (GLenum cap), 1)                                                                      \
  X(void, DepthFunc, (GLenum func), 1)                                                                   \
  X(void, Viewport, (GLint x, GLint y, GLsizei width, GLsizei height), 1)                                \
  X(void, ClearColor, (GLfloat r, GLfloat g, GLfloat b, GLfloat a), 1)                                   \
  X(void, Clear, (GLbitfield mask), 1)                                                                   \
  X(void, DrawArrays, (GLenum mode, GLint first, GLsizei count), 1)                                      \
  X(void, DrawElements, (GLenum mode, GLsizei count, GLenum type, const void *indices), 1)               \
  X(void, BeginTransformFeedback, (GLenum mode), 1)                                                      \
  X(void, EndTransformFeedback, (void), 1)                                                               \
  X(void, GenFramebuffers, (GLsizei n, GLuint *framebuffers), 1)                                         \
  X(void, BindFramebuffer, (GLenum target, GLuint framebuffer), 1)                                       \
  X(void, DeleteFramebuffers, (GLsizei n, const GLuint *framebuffers), 1)                                \
  X(GLenum, CheckFramebufferStatus, (GLenum target), 1)                                                  \
  X(void, GenRenderbuffers, (GLsizei n, GLuint *renderbuffers), 1)                                       \
  X(void, BindRenderbuffer, (GLenum target, GLuint renderbuffer), 1)                                     \
  X(void, DeleteRenderbuffers, (GLsizei n, const GLuint *renderbuffers), 1)                              \
  X(void, RenderbufferStorage, (GLenum target, GLenum internalformat, GLsizei width, GLsizei height), 1) \
  X(void, FramebufferRenderbuffer, (GLenum target, GLenum attachment, GLenum rbtarget, GLuint rb), 1)    \
  X(void, ReadPixels, (GLint x, GLint y, GLsizei width, GLsizei height, GLenum format, GLenum type, void *pixels), 1) \
  X(void, Finish, (void), 1)                                                                             \
  X(void, GenQueries, (GLsizei n, GLuint *ids), 1)                                                       \
  X(void, DeleteQueries, (GLsizei n, const GLuint *ids), 1)                                              \
  X(void, BeginQuery, (GLenum target, GLuint id), 1)                                                     \
  X(void, EndQuery, (GLenum target), 1)                                                                  \
  X(void, TexBuffer, (GLenum target, GLenum internalformat, GLuint buffer), 0)                           \
  X(void, GetQueryObjectui64v, (GLuint id, GLenum pname, GLuint64 *params), 0)                        \
  X(void, Uniform1ui, (GLint location, GLuint v0), 1)                                                    \
  X(void, GetIntegeri_v, (GLenum target, GLuint index, GLint *data), 1)                                  \
  X(void, DispatchCompute, (GLuint x, GLuint y, GLuint z), 0)                                            \
  X(void, MemoryBarrier, (GLbitfield barriers), 0)

/* The calls, loaded: gl.GetString(GL_VERSION). */
typedef struct skn_gl_api {
#define SKN_GL_MEMBER(ret, name, params, required) ret(SKN_GLAPIENTRY *name) params;
  SKN_GL_FUNCTIONS(SKN_GL_MEMBER)
#undef SKN_GL_MEMBER
} skn_gl_api;

/* Loads every call through `load` ("gl" + name). Returns NULL, or the name
 * of the first required call the loader did not give. */
const char *skn_gl_api_load(skn_gl_api *gl, skn_gl_loader load);

/* "GL_INVALID_OPERATION" for a glGetError value. */
const char *skn_gl_error_name(GLenum error);

#endif
