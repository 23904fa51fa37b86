/* gl_api.c — the GL calls of gl_api.h, loaded through the host's loader. */
#include "gl_api.h"

const char *skn_gl_api_load(skn_gl_api *gl, skn_gl_loader load) {
#define SKN_GL_LOAD(ret, name, params, required)                                   \
  gl->name = (ret(SKN_GLAPIENTRY *) params)load("gl" #name);                       \
  if (required && !gl->name) return "gl" #name;
  SKN_GL_FUNCTIONS(SKN_GL_LOAD)
#undef SKN_GL_LOAD
  return NULL;
}

const char *skn_gl_error_name(GLenum error) {
  switch (error) {
  case GL_NO_ERROR: return "GL_NO_ERROR";
  case GL_INVALID_ENUM: return "GL_INVALID_ENUM";
  case GL_INVALID_VALUE: return "GL_INVALID_VALUE";
  case GL_INVALID_OPERATION: return "GL_INVALID_OPERATION";
  case GL_OUT_OF_MEMORY: return "GL_OUT_OF_MEMORY";
  case GL_INVALID_FRAMEBUFFER_OPERATION: return "GL_INVALID_FRAMEBUFFER_OPERATION";
  default: return "an unknown GL error";
  }
}
