/* exr.c — an RGB or RGBA OpenEXR image (half or float) written a row at a
 * time through OpenEXR's C library (OpenEXRCore, Debian's libopenexr-dev),
 * for skn bake's textures: scanlines, ZIP compression of one line a chunk
 * (so that each row is a chunk written as it comes), channels R, G, B (and
 * A) from the caller's interleaved floats. */
#include "cli.h"

#include <openexr.h>
#include <stdlib.h>

struct exr_rgb {
  exr_context_t ctx;
  exr_encode_pipeline_t encoder;
  int encoding;                /* encoder initialized */
  uint32_t width, height, y;
  int channels, ok;
};

exr_rgb *exr_rgb_open(const char *path, uint32_t width, uint32_t height, int half, int channels) {
  exr_rgb *e = calloc(1, sizeof *e);
  if (!e) return NULL;
  e->width = width, e->height = height, e->channels = channels;
  exr_context_initializer_t init = EXR_DEFAULT_CONTEXT_INITIALIZER;
  int part = 0;
  exr_pixel_type_t type = half ? EXR_PIXEL_HALF : EXR_PIXEL_FLOAT;
  e->ok = exr_start_write(&e->ctx, path, EXR_WRITE_FILE_DIRECTLY, &init) == EXR_ERR_SUCCESS &&
          exr_add_part(e->ctx, "vat", EXR_STORAGE_SCANLINE, &part) == EXR_ERR_SUCCESS &&
          exr_initialize_required_attr_simple(e->ctx, part, (int32_t)width, (int32_t)height, EXR_COMPRESSION_ZIPS) ==
              EXR_ERR_SUCCESS &&
          (channels < 4 || exr_add_channel(e->ctx, part, "A", type, EXR_PERCEPTUALLY_LINEAR, 1, 1) == EXR_ERR_SUCCESS) &&
          exr_add_channel(e->ctx, part, "B", type, EXR_PERCEPTUALLY_LINEAR, 1, 1) == EXR_ERR_SUCCESS &&
          exr_add_channel(e->ctx, part, "G", type, EXR_PERCEPTUALLY_LINEAR, 1, 1) == EXR_ERR_SUCCESS &&
          exr_add_channel(e->ctx, part, "R", type, EXR_PERCEPTUALLY_LINEAR, 1, 1) == EXR_ERR_SUCCESS &&
          exr_write_header(e->ctx) == EXR_ERR_SUCCESS;
  return e;
}

/* The next row: width x channels floats, R G B (A) a texel. */
int exr_rgb_row(exr_rgb *e, const float *rgb) {
  if (!e->ok || e->y >= e->height) return e->ok = 0;
  exr_chunk_info_t chunk;
  e->ok = exr_write_scanline_chunk_info(e->ctx, 0, (int)e->y, &chunk) == EXR_ERR_SUCCESS;
  if (e->ok && !e->encoding) e->ok = exr_encoding_initialize(e->ctx, 0, &chunk, &e->encoder) == EXR_ERR_SUCCESS;
  else if (e->ok) e->ok = exr_encoding_update(e->ctx, 0, &chunk, &e->encoder) == EXR_ERR_SUCCESS;
  if (!e->ok) return 0;
  for (int c = 0; c < e->encoder.channel_count; ++c) { /* the channels in the file's order: (A,) B, G, R */
    exr_coding_channel_info_t *ch = &e->encoder.channels[c];
    char name = ch->channel_name[0];
    int offset = name == 'R' ? 0 : name == 'G' ? 1 : name == 'B' ? 2 : 3;
    ch->user_bytes_per_element = 4;
    ch->user_data_type = EXR_PIXEL_FLOAT;
    ch->user_pixel_stride = 4 * e->channels;
    ch->user_line_stride = (int32_t)(4 * e->channels * e->width);
    ch->encode_from_ptr = (const uint8_t *)(rgb + offset);
  }
  if (!e->encoding) e->ok = exr_encoding_choose_default_routines(e->ctx, 0, &e->encoder) == EXR_ERR_SUCCESS;
  e->encoding = 1;
  e->ok = e->ok && exr_encoding_run(e->ctx, 0, &e->encoder) == EXR_ERR_SUCCESS;
  ++e->y;
  return e->ok;
}

int exr_rgb_close(exr_rgb *e) {
  if (!e) return 0;
  int ok = e->ok && e->y == e->height;
  if (e->encoding) exr_encoding_destroy(e->ctx, &e->encoder);
  if (exr_finish(&e->ctx) != EXR_ERR_SUCCESS) ok = 0;
  free(e);
  return ok;
}
