/* png.c — an 8-bit RGB image to a PNG file through libpng. */
#include "cli.h"

#include <png.h>

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
