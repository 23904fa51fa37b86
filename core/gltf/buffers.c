/* buffers.c — phase 2 of loading glTF 2.0: every buffer's bytes, from the
 * GLB's BIN chunk, a data: URI (RFC 2397, base64) or a file in the
 * document's folder (its URI percent-decoded, RFC 3986; files.c). */
#include "gltf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int base64_value(int c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+' || c == '-') return 62;
  if (c == '/' || c == '_') return 63;
  return -1;
}

/* Decodes base64 text into at most `want` bytes; returns how many, or -1 on a bad character. */
static long base64_decode(const char *text, uint8_t *out, size_t want) {
  uint32_t acc = 0;
  int bits = 0;
  size_t n = 0;
  for (const char *p = text; *p && *p != '='; ++p) {
    int v = base64_value((unsigned char)*p);
    if (v < 0) return -1;
    acc = acc << 6 | (uint32_t)v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      if (n < want) out[n] = (uint8_t)(acc >> bits);
      ++n;
    }
  }
  return (long)n;
}

static int hex_digit(char c) {
  return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* A data: URI without ";base64" (RFC 2397): its text is the bytes, %XX
 * escapes decoded (RFC 3986 §2.1). */
static skn_status load_data_text(gltf_buffer *b, uint32_t i, const char *text) {
  size_t n = 0, len = strlen(text);
  b->data = skn__alloc(len ? len : 1); /* decoding only shrinks */
  if (!b->data) return skn__fail(SKN_ERR_OUT_OF_MEMORY, "buffers[%u]: out of memory", i);
  for (size_t k = 0; k < len; ++k) {
    if (text[k] == '%') {
      int hi = k + 2 < len ? hex_digit(text[k + 1]) : -1, lo = hi >= 0 ? hex_digit(text[k + 2]) : -1;
      if (hi < 0 || lo < 0) return skn__fail(SKN_ERR_PARSE, "buffers[%u].uri: a %% not followed by two hex digits", i);
      b->data[n++] = (uint8_t)(hi << 4 | lo);
      k += 2;
    } else {
      b->data[n++] = (uint8_t)text[k];
    }
  }
  if (n < b->length)
    return skn__fail(SKN_ERR_PARSE, "buffers[%u].uri: holds %zu bytes, byteLength is %zu", i, n, b->length);
  return SKN_OK;
}

static skn_status load_data_uri(gltf_buffer *b, uint32_t i) {
  const char *comma = strchr(b->uri, ',');
  if (!comma) return skn__fail(SKN_ERR_PARSE, "buffers[%u].uri: a data: URI without a comma", i);
  const char *b64 = strstr(b->uri, ";base64,");
  if (!b64 || b64 + 7 != comma) return load_data_text(b, i, comma + 1);
  size_t most = strlen(comma + 1) / 4 * 3 + 2; /* what its text can hold: memory in proportion to the bytes */
  if (b->length > most)
    return skn__fail(SKN_ERR_PARSE, "buffers[%u].uri: %zu characters of base64 cannot hold byteLength %zu", i,
                     strlen(comma + 1), b->length);
  b->data = skn__alloc(b->length ? b->length : 1);
  if (!b->data) return skn__fail(SKN_ERR_OUT_OF_MEMORY, "buffers[%u]: out of memory", i);
  long n = base64_decode(comma + 1, b->data, b->length);
  if (n < 0) return skn__fail(SKN_ERR_PARSE, "buffers[%u].uri: bad base64", i);
  if ((size_t)n < b->length)
    return skn__fail(SKN_ERR_PARSE, "buffers[%u].uri: decodes to %ld bytes, byteLength is %zu", i, n, b->length);
  return SKN_OK;
}

/* A buffer from a file that its URI names in the document's folder
 * (files.c decides which files it may name); byteLength is checked against
 * the file's size before it is allocated: it may be a lie. */
static skn_status load_file(const skn_gltf *g, gltf_buffer *b, uint32_t i) {
  if (!g->dir)
    return skn__fail(SKN_ERR_IO, "buffers[%u].uri \"%s\": a document opened from memory reads only GLB and data: "
                     "buffers (skn_gltf_open_with's folder names one to read files from)", i, b->uri);
  char label[40];
  snprintf(label, sizeof label, "buffers[%u].uri", i);
  skn_status s;
  char *path = skn__gltf_uri_path(g, b->uri, label, &s);
  if (!path) return s;
  snprintf(label, sizeof label, "buffers[%u]", i);
  int fd = -1;
  struct stat st;
  s = skn__gltf_open_file(path, label, &fd, &st);
  if (s == SKN_OK) s = skn__gltf_check_inside(g, fd, path, b->uri, label);
  if (s == SKN_OK && (uint64_t)st.st_size < b->length)
    s = skn__fail(SKN_ERR_PARSE, "buffers[%u]: \"%s\" has %lld bytes, byteLength is %zu (truncated)", i, path,
                  (long long)st.st_size, b->length);
  if (s == SKN_OK && !(b->data = skn__alloc(b->length ? b->length : 1)))
    s = skn__fail(SKN_ERR_OUT_OF_MEMORY, "buffers[%u]: out of memory", i);
  if (s == SKN_OK) s = skn__gltf_read_fd(fd, path, label, b->data, b->length);
  if (fd >= 0) close(fd);
  skn__free(path);
  return s;
}

skn_status skn__gltf_load_buffers(skn_gltf *g) {
  for (uint32_t i = 0; i < g->buffer_count; ++i) {
    gltf_buffer *b = &g->buffers[i];
    skn_status s = SKN_OK;
    if (!b->uri) { /* the GLB's BIN chunk, which only the first buffer may name */
      if (i != 0 || !g->glb_bin) continue; /* no bytes: refused only where an accessor reads it (validate.c) */
      if (g->glb_bin_length < b->length)
        return skn__fail(SKN_ERR_PARSE, "buffers[0]: the GLB's BIN chunk has %zu bytes, byteLength is %zu (truncated)",
                         g->glb_bin_length, b->length);
      b->data = g->glb_bin; /* owned by g->glb_bin */
    } else if (!strncmp(b->uri, "data:", 5)) {
      s = load_data_uri(b, i);
    } else {
      s = load_file(g, b, i);
    }
    if (s != SKN_OK) return s;
  }
  return SKN_OK;
}
