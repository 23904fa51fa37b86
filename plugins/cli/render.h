/* render.h — `skn render`'s parts: one camera and framing for every panel,
 * and two ways to skin and draw a panel — skn_skin and a software
 * rasterizer (render.c), or the GPU through plugins/gl (render_gpu.c) —
 * that give the same picture. */
#ifndef SKN_CLI_RENDER_H
#define SKN_CLI_RENDER_H

#include "cli.h"

#define SUPER 2 /* each panel is drawn at twice its size and averaged down */

typedef struct camera {
  double rot[9];   /* model -> view, row-major: view x right, y up, z toward the eye */
  double scale;    /* pixels per model unit, before supersampling */
} camera;

typedef struct canvas {
  unsigned char *rgb;
  float *depth;
  int w, h;        /* supersampled */
} canvas;

/* The light and clay of every picture: ambient plus two-sided diffuse
 * from a light over the viewer's left shoulder (view space). */
#define SHADE_LIGHT {-0.45, 0.6, 0.66}
#define SHADE_BASE {214, 156, 112}
#define SHADE_AMBIENT 0.28

void fill_background(canvas *cv);

/* A way to skin a panel (its positions, for the framing) and to draw it. */
typedef struct render_backend {
  void *ctx;
  int (*skin)(void *ctx, posed_mesh *m, const options *o, int method, float time, float *positions);
  int (*draw)(void *ctx, canvas *cv, const camera *c, posed_mesh *m, const options *o, int method, float time,
              const float *positions, const double center[2]);
} render_backend;

/* render_gpu.c: the GPU's backend on a headless EGL context of the
 * canvas's size, one skn_gl program a method; prints why and returns
 * EXIT_INPUT where there is none. */
int gpu_backend_open(render_backend *b, posed_mesh *m, const options *o, int canvas_w, int canvas_h);
void gpu_backend_close(render_backend *b);

#endif
