/* png.c — an 8-bit RGB image to a PNG file through libpng, and 16-bit RGB
 * PNGs a row at a time. */
#include "cli.h"

#include <png.h>
#include <stdlib.h>

int write_png(const char *path, const unsigned char *rgb, int width, int height) {
  FILE *f = fopen(path, "wb");
  if (!f) return 0;
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
  png_infop info = png ? png_create_info_struct(png) : NULL;
  int ok = png && info && !setjmp(png_jmpbuf(png));
  if (ok) {
    png_init_io(png, f);
    png_set_IHDR(png, info, (png_uint_32)width, (png_uint_32)height, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    for (int y = 0; y < height; ++y) png_write_row(png, (png_const_bytep)(rgb + (size_t)y * width * 3));
    png_write_end(png, NULL);
  }
  png_destroy_write_struct(&png, &info);
  return fclose(f) == 0 && ok;
}

/* A 16-bit RGB PNG written a row at a time (skn bake's vertex textures). */
struct png16 {
  FILE *f;
  png_structp png;
  png_infop info;
  int ok;
};

/* The libpng calls that may longjmp, each in a function of its own (no
 * local of a caller is live across a setjmp). */
static int start(png16 *p, uint32_t width, uint32_t height) {
  if (setjmp(png_jmpbuf(p->png))) return 0;
  png_init_io(p->png, p->f);
  png_set_compression_level(p->png, 1); /* a bake is large and written once: zlib's fastest */
  png_set_IHDR(p->png, p->info, width, height, 16, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
               PNG_FILTER_TYPE_DEFAULT);
  png_write_info(p->png, p->info);
  png_set_swap(p->png); /* the rows come in the host's order; PNG's is big-endian */
  return 1;
}

static int finish(png16 *p) {
  if (setjmp(png_jmpbuf(p->png))) return 0;
  png_write_end(p->png, NULL);
  return 1;
}

png16 *png16_open(const char *path, uint32_t width, uint32_t height) {
  png16 *p = calloc(1, sizeof *p);
  if (!p) return NULL;
  if (!(p->f = fopen(path, "wb"))) {
    free(p);
    return NULL;
  }
  p->png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
  p->info = p->png ? png_create_info_struct(p->png) : NULL;
  p->ok = p->png && p->info && start(p, width, height);
  return p;
}

int png16_row(png16 *p, const uint16_t *rgb) {
  if (!p->ok || setjmp(png_jmpbuf(p->png))) return p->ok = 0;
  png_write_row(p->png, (png_const_bytep)rgb);
  return 1;
}

int png16_close(png16 *p) {
  if (!p) return 0;
  int ok = p->ok && finish(p);
  png_destroy_write_struct(&p->png, &p->info);
  ok = fclose(p->f) == 0 && ok;
  free(p);
  return ok;
}
