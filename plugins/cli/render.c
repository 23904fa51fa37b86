/* render.c — `skn render`: the skinned mesh as a shaded picture. A panel per
 * method (--compare) and per time (--frames), all seen by one orthographic
 * camera at the same scale, so that their shapes compare. Triangles are
 * rasterized with a depth buffer at twice the size and averaged down
 * (2x2 supersampling); faces are lit two-sided by one light. With --gpu
 * the GPU skins and draws each panel instead (render_gpu.c): the same
 * camera, framing, light and labels. */
#include "render.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979323846

/* A 3/4 view: turned 35° about the up axis, tilted 20° down. */
static void camera_orient(camera *c) {
  double az = 35 * PI / 180, el = 20 * PI / 180;
  double ry[9] = {cos(az), 0, sin(az), 0, 1, 0, -sin(az), 0, cos(az)};
  double rx[9] = {1, 0, 0, 0, cos(el), -sin(el), 0, sin(el), cos(el)};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) c->rot[i * 3 + j] = rx[i * 3] * ry[j] + rx[i * 3 + 1] * ry[3 + j] + rx[i * 3 + 2] * ry[6 + j];
}

static void to_view(const camera *c, const float *p, double v[3]) {
  for (int i = 0; i < 3; ++i) v[i] = c->rot[i * 3] * p[0] + c->rot[i * 3 + 1] * p[1] + c->rot[i * 3 + 2] * p[2];
}

/* The view-space box of one panel's vertices: lo[2], hi[2]. */
static void view_box(const camera *c, const float *pos, uint32_t n, double lo[2], double hi[2]) {
  lo[0] = lo[1] = 1e300;
  hi[0] = hi[1] = -1e300;
  for (uint32_t v = 0; v < n; ++v) {
    double q[3];
    to_view(c, pos + (size_t)v * 3, q);
    for (int k = 0; k < 2; ++k) {
      lo[k] = fmin(lo[k], q[k]);
      hi[k] = fmax(hi[k], q[k]);
    }
  }
}

void fill_background(canvas *cv) {
  for (int y = 0; y < cv->h; ++y) {
    double t = (double)y / cv->h;
    unsigned char px[3] = {(unsigned char)(236 - 40 * t), (unsigned char)(238 - 36 * t), (unsigned char)(242 - 28 * t)};
    for (int x = 0; x < cv->w; ++x) memcpy(cv->rgb + ((size_t)y * cv->w + x) * 3, px, 3);
  }
  for (size_t i = 0; i < (size_t)cv->w * cv->h; ++i) cv->depth[i] = -INFINITY;
}

static double edge(const double *a, const double *b, double x, double y) {
  return (b[0] - a[0]) * (y - a[1]) - (b[1] - a[1]) * (x - a[0]);
}

/* One triangle in screen space (x right, y down, z toward the eye). */
static void raster_triangle(canvas *cv, const double s[3][3], const unsigned char color[3]) {
  double area = edge(s[0], s[1], s[2][0], s[2][1]);
  if (fabs(area) < 1e-12) return;
  int x0 = (int)fmax(0, floor(fmin(s[0][0], fmin(s[1][0], s[2][0])))), x1 = (int)fmin(cv->w - 1, ceil(fmax(s[0][0], fmax(s[1][0], s[2][0]))));
  int y0 = (int)fmax(0, floor(fmin(s[0][1], fmin(s[1][1], s[2][1])))), y1 = (int)fmin(cv->h - 1, ceil(fmax(s[0][1], fmax(s[1][1], s[2][1]))));
  for (int y = y0; y <= y1; ++y)
    for (int x = x0; x <= x1; ++x) {
      double px = x + 0.5, py = y + 0.5;
      double w0 = edge(s[1], s[2], px, py) / area, w1 = edge(s[2], s[0], px, py) / area, w2 = 1 - w0 - w1;
      if (w0 < 0 || w1 < 0 || w2 < 0) continue;
      float z = (float)(w0 * s[0][2] + w1 * s[1][2] + w2 * s[2][2]);
      size_t i = (size_t)y * cv->w + x;
      if (z <= cv->depth[i]) continue;
      cv->depth[i] = z;
      memcpy(cv->rgb + i * 3, color, 3);
    }
}

/* Flat clay shading: ambient plus two-sided diffuse from a light over the
 * viewer's left shoulder. */
static void shade(const double a[3], const double b[3], const double c[3], unsigned char out[3]) {
  double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, v[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
  double n[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
  double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]), l[3] = SHADE_LIGHT;
  double d = len > 0 ? fabs(n[0] * l[0] + n[1] * l[1] + n[2] * l[2]) / len : 0;
  double k = SHADE_AMBIENT + (1 - SHADE_AMBIENT) * d;
  const double base[3] = SHADE_BASE;
  for (int i = 0; i < 3; ++i) out[i] = (unsigned char)fmin(255, base[i] * k);
}

/* Draws one panel's mesh, centred on `center` (view space), into cv. */
static void draw_mesh(canvas *cv, const camera *c, const posed_mesh *m, const float *pos, const double center[2]) {
  double sc = c->scale * SUPER;
  for (uint32_t t = 0; t < m->info.triangle_count; ++t) {
    double q[3][3], s[3][3];
    for (int k = 0; k < 3; ++k) {
      to_view(c, pos + (size_t)m->triangles[t * 3 + k] * 3, q[k]);
      s[k][0] = cv->w / 2.0 + (q[k][0] - center[0]) * sc;
      s[k][1] = cv->h / 2.0 - (q[k][1] - center[1]) * sc;
      s[k][2] = q[k][2];
    }
    unsigned char color[3];
    shade(q[0], q[1], q[2], color);
    raster_triangle(cv, s, color);
  }
}

/* The CPU's backend: skn_skin, then the software rasterizer. */
static int cpu_skin(void *ctx, posed_mesh *m, const options *o, int method, float time, float *positions) {
  (void)ctx;
  return posed_mesh_skin(m, time, o->methods[method], o->dqs_scale, positions, NULL);
}

static int cpu_draw(void *ctx, canvas *cv, const camera *c, posed_mesh *m, const options *o, int method, float time,
                    const float *positions, const double center[2]) {
  (void)ctx, (void)o, (void)method, (void)time;
  fill_background(cv);
  draw_mesh(cv, c, m, positions, center);
  return EXIT_OK;
}

/* Averages the supersampled canvas into the panel at (px, py) of the image. */
static void downsample(const canvas *cv, unsigned char *img, int img_w, int px, int py) {
  for (int y = 0; y < cv->h / SUPER; ++y)
    for (int x = 0; x < cv->w / SUPER; ++x)
      for (int ch = 0; ch < 3; ++ch) {
        int sum = 0;
        for (int dy = 0; dy < SUPER; ++dy)
          for (int dx = 0; dx < SUPER; ++dx) sum += cv->rgb[((size_t)(y * SUPER + dy) * cv->w + x * SUPER + dx) * 3 + ch];
        img[((size_t)(py + y) * img_w + px + x) * 3 + ch] = (unsigned char)(sum / (SUPER * SUPER));
      }
}

/* The times of the strip: the animation's keys' span in `frames` steps. */
static float frame_time(const posed_mesh *m, const options *o, int f) {
  if (o->frames <= 1 || m->animation == SKN_GLTF_NO_ANIMATION) return o->time;
  skn_gltf_animation_info ai = {sizeof ai};
  skn_gltf_animation_info_get(m->gltf, m->animation, &ai);
  return ai.start + (ai.end - ai.start) * (float)f / (float)(o->frames - 1);
}

/* Panel (method r, frame f) of the picture: methods side by side, or, with
 * --frames, a row of frames per method. */
static void panel_origin(const options *o, int r, int f, int *x, int *y) {
  *x = (o->frames > 1 ? f : r) * o->width;
  *y = (o->frames > 1 ? r : 0) * o->height;
}

static int render(posed_mesh *m, const options *o, const render_backend *be, float *pos, unsigned char *img, int iw,
                  int ih) {
  int rows = o->method_count, cols = o->frames > 1 ? o->frames : 1, pw = o->width, ph = o->height;
  size_t nv = m->info.vertex_count;
  camera c;
  camera_orient(&c);
  double (*box)[4] = malloc((size_t)rows * cols * sizeof *box), extent[2] = {1e-9, 1e-9};
  for (int r = 0; r < rows; ++r)
    for (int f = 0; f < cols; ++f) {
      float *p = pos + (size_t)(r * cols + f) * nv * 3;
      if (be->skin(be->ctx, m, o, r, frame_time(m, o, f), p)) return free(box), EXIT_INPUT;
      double *b = box[r * cols + f];
      view_box(&c, p, (uint32_t)nv, b, b + 2);
      extent[0] = fmax(extent[0], b[2] - b[0]);
      extent[1] = fmax(extent[1], b[3] - b[1]);
    }
  c.scale = fmin(pw * 0.86 / extent[0], (ph - 24) * 0.86 / extent[1]);
  canvas cv = {malloc((size_t)pw * ph * SUPER * SUPER * 3), malloc((size_t)pw * ph * SUPER * SUPER * sizeof(float)), pw * SUPER, ph * SUPER};
  const unsigned char ink[3] = {40, 44, 52};
  int rc = EXIT_OK;
  for (int r = 0; cv.rgb && cv.depth && !rc && r < rows; ++r)
    for (int f = 0; f < cols && !rc; ++f) {
      const double *b = box[r * cols + f];
      double center[2] = {(b[0] + b[2]) / 2, (b[1] + b[3]) / 2 + 10 / c.scale};
      rc = be->draw(be->ctx, &cv, &c, m, o, r, frame_time(m, o, f), pos + (size_t)(r * cols + f) * nv * 3, center);
      int px, py;
      panel_origin(o, r, f, &px, &py);
      downsample(&cv, img, iw, px, py);
      char label[64];
      if (cols > 1) snprintf(label, sizeof label, "%s  t = %.2f s", o->method_names[r], frame_time(m, o, f));
      else snprintf(label, sizeof label, "%s", o->method_names[r]);
      draw_text(img, iw, ih, px + 8, py + 8, 2, label, ink);
    }
  int ok = cv.rgb && cv.depth;
  free(cv.rgb);
  free(cv.depth);
  free(box);
  return rc ? rc : ok ? EXIT_OK : fail_input("out of memory");
}

int cmd_render(int argc, char **argv) {
  options o;
  int rc = parse_options(argc, argv, 2, "primitive animation time method compare dqs-scale blend layout frames size gpu any-path o", &o);
  if (rc) return rc;
  if (o.has_range) return fprintf(stderr, "skn: render: --frames is a count from 1 to 64 (see --help)\n"), EXIT_USAGE;
  if (!o.out) return fprintf(stderr, "skn: render needs -o OUT.png (see --help)\n"), EXIT_USAGE;
  static const char *const PNG[] = {"png"};
  if (output_extension(o.out, PNG, 1) < 0)
    return fprintf(stderr, "skn: -o %s: render writes PNG pictures: name the file .png\n", o.out), EXIT_USAGE;
  if (!o.width) o.width = o.height = 360;
  if (!o.frames) o.frames = 1;
  posed_mesh m;
  rc = posed_mesh_open(&m, &o);
  int iw = o.width * (o.frames > 1 ? o.frames : o.method_count), ih = o.height * (o.frames > 1 ? o.method_count : 1);
  float *pos = rc ? NULL : malloc((size_t)o.method_count * o.frames * m.info.vertex_count * 3 * sizeof(float));
  unsigned char *img = rc ? NULL : calloc((size_t)iw * ih, 3);
  if (!rc && (!pos || !img)) rc = fail_input("out of memory");
  render_backend be = {NULL, cpu_skin, cpu_draw};
  if (!rc && o.gpu) rc = gpu_backend_open(&be, &m, &o, o.width * SUPER, o.height * SUPER);
  if (!rc) rc = render(&m, &o, &be, pos, img, iw, ih);
  if (o.gpu) gpu_backend_close(&be);
  if (!rc && !write_png(o.out, img, iw, ih)) {
    fprintf(stderr, "skn: cannot write %s\n", o.out);
    rc = EXIT_INPUT;
  }
  if (!rc) printf("skn: wrote %s (%dx%d)\n", o.out, iw, ih);
  free(pos);
  free(img);
  posed_mesh_close(&m);
  return rc;
}
