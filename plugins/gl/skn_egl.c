/* skn_egl.c — skn_egl.h: a headless EGL context and its framebuffer. */
#include "skn_egl.h"

#include "gl_api.h"

#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The EGL calls, from libEGL.so.1, loaded once and kept for the process. */
static struct {
  PFNEGLGETPROCADDRESSPROC GetProcAddress;
  PFNEGLQUERYSTRINGPROC QueryString;
  PFNEGLGETDISPLAYPROC GetDisplay;
  PFNEGLINITIALIZEPROC Initialize;
  PFNEGLTERMINATEPROC Terminate;
  PFNEGLBINDAPIPROC BindAPI;
  PFNEGLCHOOSECONFIGPROC ChooseConfig;
  PFNEGLCREATECONTEXTPROC CreateContext;
  PFNEGLDESTROYCONTEXTPROC DestroyContext;
  PFNEGLMAKECURRENTPROC MakeCurrent;
  PFNEGLGETERRORPROC GetError;
  PFNEGLGETPLATFORMDISPLAYEXTPROC GetPlatformDisplayEXT;
  PFNEGLQUERYDEVICESEXTPROC QueryDevicesEXT;
} egl;

struct skn_egl {
  EGLDisplay display;
  EGLContext context;
  const char *platform;
  skn_gl_api gl;
  GLuint framebuffer, color, depth;
  uint32_t width, height;
};

static skn_status fail(const char *fmt, const char *arg) {
  char msg[256];
  snprintf(msg, sizeof msg, fmt, arg);
  return skn_set_error(SKN_ERR_UNSUPPORTED, msg);
}

static skn_status load_egl(void) {
  if (egl.GetProcAddress) return SKN_OK;
  void *lib = dlopen("libEGL.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) return fail("skn_egl: %s (the Debian package libegl1, and a driver such as libegl-mesa0)", dlerror());
  egl.GetProcAddress = (PFNEGLGETPROCADDRESSPROC)dlsym(lib, "eglGetProcAddress");
  if (!egl.GetProcAddress) return fail("skn_egl: libEGL.so.1 has no %s", "eglGetProcAddress");
#define SKN_EGL_LOAD(name) egl.name = (__typeof__(egl.name))egl.GetProcAddress("egl" #name)
  SKN_EGL_LOAD(QueryString), SKN_EGL_LOAD(GetDisplay), SKN_EGL_LOAD(Initialize), SKN_EGL_LOAD(Terminate);
  SKN_EGL_LOAD(BindAPI), SKN_EGL_LOAD(ChooseConfig), SKN_EGL_LOAD(CreateContext), SKN_EGL_LOAD(DestroyContext);
  SKN_EGL_LOAD(MakeCurrent), SKN_EGL_LOAD(GetError), SKN_EGL_LOAD(GetPlatformDisplayEXT), SKN_EGL_LOAD(QueryDevicesEXT);
#undef SKN_EGL_LOAD
  if (!egl.QueryString || !egl.GetDisplay || !egl.Initialize || !egl.CreateContext || !egl.MakeCurrent)
    return fail("skn_egl: %s lacks the EGL 1.4 calls", "libEGL.so.1");
  return SKN_OK;
}

/* Does the space-separated list hold `name`? */
static int has_extension(const char *list, const char *name) {
  size_t n = strlen(name);
  for (const char *p = list; p && (p = strstr(p, name)); p += n)
    if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == 0)) return 1;
  return 0;
}

/* An initialized display of `platform`, or EGL_NO_DISPLAY. */
static EGLDisplay open_display(const char *platform) {
  const char *client = egl.QueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
  EGLDisplay d = EGL_NO_DISPLAY;
  if (!strcmp(platform, "surfaceless") && egl.GetPlatformDisplayEXT &&
      has_extension(client, "EGL_MESA_platform_surfaceless")) {
    d = egl.GetPlatformDisplayEXT(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
  } else if (!strcmp(platform, "device") && egl.GetPlatformDisplayEXT && egl.QueryDevicesEXT &&
             has_extension(client, "EGL_EXT_platform_device")) {
    EGLDeviceEXT devices[16];
    EGLint count = 0;
    if (egl.QueryDevicesEXT(16, devices, &count))
      for (EGLint k = 0; k < count && d == EGL_NO_DISPLAY; ++k) {
        d = egl.GetPlatformDisplayEXT(EGL_PLATFORM_DEVICE_EXT, devices[k], NULL);
        if (d != EGL_NO_DISPLAY && !egl.Initialize(d, NULL, NULL)) d = EGL_NO_DISPLAY;
      }
    return d;
  } else if (!strcmp(platform, "default")) {
    d = egl.GetDisplay(EGL_DEFAULT_DISPLAY);
  }
  return d != EGL_NO_DISPLAY && egl.Initialize(d, NULL, NULL) ? d : EGL_NO_DISPLAY;
}

static EGLContext make_context(EGLDisplay d, skn_egl_api api) {
  if (!egl.BindAPI(api == SKN_EGL_OPENGL_ES ? EGL_OPENGL_ES_API : EGL_OPENGL_API)) return EGL_NO_CONTEXT;
  EGLConfig config = EGL_NO_CONFIG_KHR;
  if (!has_extension(egl.QueryString(d, EGL_EXTENSIONS), "EGL_KHR_no_config_context")) {
    EGLint want[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE,
                     api == SKN_EGL_OPENGL_ES ? EGL_OPENGL_ES3_BIT : EGL_OPENGL_BIT, EGL_NONE};
    EGLint n = 0;
    if (!egl.ChooseConfig(d, want, &config, 1, &n) || n < 1) return EGL_NO_CONTEXT;
  }
  /* The newest version first: EGL 1.5 (§3.7.1.1) lets a driver answer a
   * request with any later compatible version, and Mesa gives its newest,
   * but NVIDIA's gives the very version asked, and a 3.3 context has no
   * compute shaders (4.3, ES 3.1) for skn_gl's compute path. */
  static const EGLint GL_VERSIONS[][2] = {{4, 6}, {4, 5}, {4, 3}, {3, 3}}, ES_VERSIONS[][2] = {{3, 2}, {3, 1}, {3, 0}};
  const EGLint(*versions)[2] = api == SKN_EGL_OPENGL_ES ? ES_VERSIONS : GL_VERSIONS;
  int count = api == SKN_EGL_OPENGL_ES ? 3 : 4;
  EGLContext c = EGL_NO_CONTEXT;
  for (int i = 0; i < count && c == EGL_NO_CONTEXT; ++i) {
    EGLint attributes[] = {EGL_CONTEXT_MAJOR_VERSION, versions[i][0], EGL_CONTEXT_MINOR_VERSION, versions[i][1],
                           EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE};
    if (api == SKN_EGL_OPENGL_ES) attributes[4] = EGL_NONE; /* ES has no profiles */
    c = egl.CreateContext(d, config, EGL_NO_CONTEXT, attributes);
  }
  return c;
}

/* The framebuffer every draw goes to: color and depth renderbuffers. */
static skn_status make_framebuffer(skn_egl *e) {
  const skn_gl_api *gl = &e->gl;
  gl->GenFramebuffers(1, &e->framebuffer);
  gl->BindFramebuffer(GL_FRAMEBUFFER, e->framebuffer);
  gl->GenRenderbuffers(1, &e->color);
  gl->BindRenderbuffer(GL_RENDERBUFFER, e->color);
  gl->RenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, (GLsizei)e->width, (GLsizei)e->height);
  gl->FramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, e->color);
  gl->GenRenderbuffers(1, &e->depth);
  gl->BindRenderbuffer(GL_RENDERBUFFER, e->depth);
  gl->RenderbufferStorage(GL_RENDERBUFFER, GL_DEPTH_COMPONENT24, (GLsizei)e->width, (GLsizei)e->height);
  gl->FramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, e->depth);
  gl->Viewport(0, 0, (GLsizei)e->width, (GLsizei)e->height);
  if (gl->CheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
    return fail("skn_egl: the %s framebuffer is not complete", "RGBA8 + DEPTH24");
  return SKN_OK;
}

static skn_status open_context(skn_egl *e, skn_egl_api api) {
  const char *forced = getenv("SKN_EGL_PLATFORM");
  static const char *const PLATFORMS[] = {"surfaceless", "device", "default"};
  for (int k = 0; k < 3 && !e->context; ++k) {
    if (forced && *forced && strcmp(forced, PLATFORMS[k])) continue;
    EGLDisplay d = open_display(PLATFORMS[k]);
    if (d == EGL_NO_DISPLAY) continue;
    EGLContext c = make_context(d, api);
    if (c != EGL_NO_CONTEXT && egl.MakeCurrent(d, EGL_NO_SURFACE, EGL_NO_SURFACE, c)) {
      e->display = d, e->context = c, e->platform = PLATFORMS[k];
    } else if (c != EGL_NO_CONTEXT) {
      egl.DestroyContext(d, c);
    }
  }
  if (!e->context)
    return fail("skn_egl: no EGL platform gives an %s context (SKN_EGL_PLATFORM to pick one)",
                api == SKN_EGL_OPENGL_ES ? "OpenGL ES 3.0" : "OpenGL 3.3 core");
  return SKN_OK;
}

SKN_API skn_status skn_egl_create(const skn_egl_desc *desc, skn_egl **out) {
  if (!desc || !out || desc->struct_size < sizeof *desc)
    return skn_set_error(SKN_ERR_INVALID_ARGUMENT, "skn_egl_create: desc (struct_size set) and out are required");
  skn_status s = load_egl();
  if (s != SKN_OK) return s;
  skn_egl *e = calloc(1, sizeof *e);
  if (!e) return skn_set_error(SKN_ERR_OUT_OF_MEMORY, "skn_egl_create: out of memory");
  e->width = desc->width ? desc->width : 1;
  e->height = desc->height ? desc->height : 1;
  s = open_context(e, desc->api);
  const char *missing = s == SKN_OK ? skn_gl_api_load(&e->gl, skn_egl_loader) : NULL;
  if (missing) s = fail("skn_egl: the context has no %s", missing);
  if (s == SKN_OK) s = make_framebuffer(e);
  if (s != SKN_OK) {
    skn_egl_destroy(e);
    return s;
  }
  *out = e;
  return SKN_OK;
}

SKN_API skn_gl_proc skn_egl_loader(const char *name) {
  return egl.GetProcAddress ? (skn_gl_proc)egl.GetProcAddress(name) : NULL;
}

SKN_API const char *skn_egl_platform(const skn_egl *e) { return e ? e->platform : ""; }

SKN_API skn_status skn_egl_read_rgba(skn_egl *e, unsigned char *dst) {
  if (!e || !dst) return skn_set_error(SKN_ERR_INVALID_ARGUMENT, "skn_egl_read_rgba: egl and dst are required");
  size_t row = (size_t)e->width * 4;
  unsigned char *tmp = malloc(row * e->height);
  if (!tmp) return skn_set_error(SKN_ERR_OUT_OF_MEMORY, "skn_egl_read_rgba: out of memory");
  e->gl.BindFramebuffer(GL_FRAMEBUFFER, e->framebuffer);
  e->gl.PixelStorei(GL_PACK_ALIGNMENT, 4);
  e->gl.ReadPixels(0, 0, (GLsizei)e->width, (GLsizei)e->height, GL_RGBA, GL_UNSIGNED_BYTE, tmp);
  for (uint32_t y = 0; y < e->height; ++y) /* GL's rows start at the bottom */
    memcpy(dst + y * row, tmp + (size_t)(e->height - 1 - y) * row, row);
  free(tmp);
  GLenum err = e->gl.GetError();
  return err ? fail("skn_egl_read_rgba: %s", skn_gl_error_name(err)) : SKN_OK;
}

SKN_API void skn_egl_destroy(skn_egl *e) {
  if (!e) return;
  if (e->context) {
    if (e->framebuffer) e->gl.DeleteFramebuffers(1, &e->framebuffer);
    GLuint rb[2] = {e->color, e->depth};
    for (int k = 0; k < 2; ++k)
      if (rb[k]) e->gl.DeleteRenderbuffers(1, &rb[k]);
    egl.MakeCurrent(e->display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    egl.DestroyContext(e->display, e->context);
  }
  free(e);
}
