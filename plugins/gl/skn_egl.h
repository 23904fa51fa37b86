/* skn_egl.h — a headless OpenGL or OpenGL ES context through EGL, for
 * programs without a window: `skn render --gpu`, the GPU benchmark and the
 * adapter's tests. It loads libEGL.so.1 at run time (a program that never
 * asks for a context does not need it), tries Mesa's surfaceless platform,
 * then the device platform (NVIDIA's driver without a display), then the
 * default display (SKN_EGL_PLATFORM=surfaceless|device|default picks one),
 * asks for the newest version it knows first (a driver may give exactly
 * the version asked, and compute shaders need OpenGL 4.3 or ES 3.1), and
 * binds a framebuffer object of the size asked: without one, every
 * draw of a surfaceless context fails with GL_INVALID_FRAMEBUFFER_OPERATION. */
#ifndef SKN_EGL_H
#define SKN_EGL_H

#include "skn_gl.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct skn_egl skn_egl;

typedef enum skn_egl_api {
  SKN_EGL_OPENGL = 0,   /* OpenGL core profile, the newest the driver gives of 4.6, 4.5, 4.3 and 3.3 */
  SKN_EGL_OPENGL_ES,    /* OpenGL ES, the newest of 3.2, 3.1 and 3.0 */
  SKN_EGL_API_FORCE_U32 = 0x7FFFFFFF
} skn_egl_api;

typedef struct skn_egl_desc {
  uint32_t struct_size;
  skn_egl_api api;
  uint32_t width, height;   /* the framebuffer's size in pixels (RGBA8, 24-bit depth); 0: 1x1 */
} skn_egl_desc;

/* Creates the context, makes it current on this thread and binds its
 * framebuffer. SKN_ERR_UNSUPPORTED with the reason where no platform gives
 * one (no libEGL.so.1, no driver). */
SKN_API skn_status skn_egl_create(const skn_egl_desc *desc, skn_egl **out);

/* The GL loader for skn_gl_desc.loader (eglGetProcAddress), once a context
 * exists. */
SKN_API skn_gl_proc skn_egl_loader(const char *name);

/* The platform that gave the context: "surfaceless", "device" or "default". */
SKN_API const char *skn_egl_platform(const skn_egl *egl);

/* The framebuffer's pixels, width x height x 4 bytes, top row first. */
SKN_API skn_status skn_egl_read_rgba(skn_egl *egl, unsigned char *dst);

/* Destroys the context and its framebuffer. NULL is ignored. */
SKN_API void skn_egl_destroy(skn_egl *egl);

#ifdef __cplusplus
}
#endif
#endif
