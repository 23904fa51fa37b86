/* gltf_edit.c — a glTF document read, given new accessors, and written
 * again (gltf_edit.h). The JSON is parsed and printed again by cJSON: a
 * number keeps its float32 value, glTF's precision, and its double to
 * within the last digit; the buffers' bytes are copied as they are. */
#include "gltf_edit.h"
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define GLB_MAGIC 0x46546C67u
#define CHUNK_JSON 0x4E4F534Au
#define CHUNK_BIN 0x004E4942u

int bytes_append(bytes *b, const void *data, size_t n) {
  if (b->size + n > b->cap) {
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->size + n) cap *= 2;
    uint8_t *p = realloc(b->data, cap);
    if (!p) return 0;
    b->data = p, b->cap = cap;
  }
  if (n) memcpy(b->data + b->size, data, n);
  b->size += n;
  return 1;
}

int bytes_pad4(bytes *b, uint8_t with) {
  while (b->size % 4)
    if (!bytes_append(b, &with, 1)) return 0;
  return 1;
}

int gltf_number_of(const cJSON *object, const char *name, int fallback) {
  const cJSON *n = cJSON_GetObjectItem(object, name);
  return cJSON_IsNumber(n) ? n->valueint : fallback;
}

static uint32_t le32(const uint8_t *p) { return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24; }

static int read_file(gltf_edit *e, const char *who, const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return fprintf(stderr, "skn: %s: %s: %s\n", who, path, strerror(errno)), EXIT_INPUT;
  uint8_t chunk[65536];
  size_t n;
  while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
    if (!bytes_append(&e->file, chunk, n)) return fclose(f), fprintf(stderr, "skn: %s: out of memory\n", who), EXIT_INPUT;
  fclose(f);
  const uint8_t *p = e->file.data;
  if (e->file.size >= 20 && le32(p) == GLB_MAGIC) { /* the library has validated it: chunks as the spec lays them */
    e->json_size = le32(p + 12), e->json = (const char *)p + 20;
    size_t bin_at = 20 + e->json_size;
    if (bin_at + 8 <= e->file.size && le32(p + bin_at + 4) == CHUNK_BIN)
      e->bin_size = le32(p + bin_at), e->bin = p + bin_at + 8;
  } else {
    e->json = (const char *)p, e->json_size = e->file.size;
  }
  return EXIT_OK;
}

static char *base64(const uint8_t *data, size_t n) {
  static const char A[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const char prefix[] = "data:application/octet-stream;base64,";
  char *out = malloc(sizeof prefix + (n + 2) / 3 * 4);
  if (!out) return NULL;
  char *w = out + sizeof prefix - 1;
  memcpy(out, prefix, sizeof prefix - 1);
  for (size_t i = 0; i < n; i += 3) {
    uint32_t v = (uint32_t)data[i] << 16 | (i + 1 < n ? data[i + 1] << 8 : 0) | (i + 2 < n ? data[i + 2] : 0);
    *w++ = A[v >> 18 & 63], *w++ = A[v >> 12 & 63];
    *w++ = i + 1 < n ? A[v >> 6 & 63] : '=', *w++ = i + 2 < n ? A[v & 63] : '=';
  }
  *w = 0;
  return out;
}

/* A document that names files (buffers, images) by relative URIs finds
 * them beside itself: the output must be in the input's folder. */
static int same_folder_if_needed(const cJSON *root, const char *in, const char *out) {
  static const char *const LISTS[] = {"buffers", "images"};
  int names_files = 0;
  for (int l = 0; l < 2; ++l) {
    const cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItem(root, LISTS[l])) {
      const cJSON *uri = cJSON_GetObjectItem(e, "uri");
      names_files |= cJSON_IsString(uri) && strncmp(uri->valuestring, "data:", 5) != 0;
    }
  }
  if (!names_files) return 1;
  const char *a = strrchr(in, '/'), *b = strrchr(out, '/');
  size_t la = a ? (size_t)(a - in) : 0, lb = b ? (size_t)(b - out) : 0;
  return la == lb && !strncmp(in, out, la);
}

/* The new bytes' buffer (gltf_edit.h). */
static void choose_buffer(gltf_edit *e) {
  cJSON *buffers = cJSON_GetObjectItem(e->root, "buffers");
  if (!buffers) cJSON_AddItemToObject(e->root, "buffers", buffers = cJSON_CreateArray());
  if (e->glb && e->bin) {
    e->buffer = 0, e->base = (e->bin_size + 3) / 4 * 4;
  } else if (e->glb) {
    cJSON *views = cJSON_GetObjectItem(e->root, "bufferViews"), *v;
    cJSON_ArrayForEach(v, views) cJSON_SetNumberValue(cJSON_GetObjectItem(v, "buffer"), gltf_number_of(v, "buffer", 0) + 1);
    cJSON_InsertItemInArray(buffers, 0, cJSON_CreateObject());
    e->buffer = 0, e->base = 0;
  } else {
    cJSON_AddItemToArray(buffers, cJSON_CreateObject());
    e->buffer = cJSON_GetArraySize(buffers) - 1, e->base = 0;
  }
}

int gltf_edit_open(gltf_edit *e, const char *who, const char *in, const char *out, int glb_out) {
  memset(e, 0, sizeof *e);
  e->glb = glb_out;
  int rc = read_file(e, who, in);
  if (rc) return rc;
  if (!(e->root = cJSON_ParseWithLength(e->json, e->json_size)))
    return fprintf(stderr, "skn: %s: %s: its JSON does not parse\n", who, in), EXIT_INPUT;
  if (!same_folder_if_needed(e->root, in, out)) return EXIT_USAGE; /* the caller says what it means for it */
  choose_buffer(e);
  return EXIT_OK;
}

int gltf_edit_accessor(gltf_edit *e, const void *data, size_t size, int component, uint32_t count, const char *type) {
  if (!bytes_pad4(&e->out, 0)) return -1;
  size_t at = e->out.size;
  if (!bytes_append(&e->out, data, size)) return -1;
  cJSON *views = cJSON_GetObjectItem(e->root, "bufferViews"), *accessors = cJSON_GetObjectItem(e->root, "accessors");
  if (!views) cJSON_AddItemToObject(e->root, "bufferViews", views = cJSON_CreateArray());
  if (!accessors) cJSON_AddItemToObject(e->root, "accessors", accessors = cJSON_CreateArray());
  cJSON *v = cJSON_CreateObject(), *a = cJSON_CreateObject();
  cJSON_AddNumberToObject(v, "buffer", e->buffer);
  cJSON_AddNumberToObject(v, "byteOffset", (double)(e->base + at));
  cJSON_AddNumberToObject(v, "byteLength", (double)size);
  cJSON_AddNumberToObject(v, "target", 34962); /* ARRAY_BUFFER */
  cJSON_AddItemToArray(views, v);
  cJSON_AddNumberToObject(a, "bufferView", cJSON_GetArraySize(views) - 1);
  cJSON_AddNumberToObject(a, "componentType", component);
  cJSON_AddNumberToObject(a, "count", count);
  cJSON_AddStringToObject(a, "type", type);
  cJSON_AddItemToArray(accessors, a);
  return cJSON_GetArraySize(accessors) - 1;
}

/* The document's buffers in the output's form: bin gets a .glb's chunk. */
static int finish_buffers(gltf_edit *e, bytes *bin) {
  if (!bytes_pad4(&e->out, 0)) return 0;
  cJSON *buffers = cJSON_GetObjectItem(e->root, "buffers"), *mine = cJSON_GetArrayItem(buffers, e->buffer);
  if (e->glb) {
    if (e->bin && (!bytes_append(bin, e->bin, e->bin_size) || !bytes_pad4(bin, 0))) return 0;
    if (!bytes_append(bin, e->out.data, e->out.size)) return 0;
  } else {
    if (e->bin) { /* the input .glb's BIN becomes a data: URI */
      char *uri = base64(e->bin, e->bin_size);
      if (!uri) return 0;
      cJSON_AddItemToObject(cJSON_GetArrayItem(buffers, 0), "uri", cJSON_CreateString(uri));
      free(uri);
    }
    char *uri = base64(e->out.data, e->out.size);
    if (!uri) return 0;
    cJSON_AddItemToObject(mine, "uri", cJSON_CreateString(uri));
    free(uri);
  }
  cJSON_DeleteItemFromObject(mine, "byteLength");
  cJSON_AddNumberToObject(mine, "byteLength", (double)(e->glb ? bin->size : e->out.size));
  return 1;
}

static int put32(FILE *f, uint32_t v) {
  uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
  return fwrite(b, 1, 4, f) == 4;
}

static int write_file(const char *path, int glb, const char *json, const bytes *bin) {
  FILE *f = fopen(path, "wb");
  if (!f) return 0;
  size_t jn = strlen(json), jpad = (4 - jn % 4) % 4, bpad = (4 - bin->size % 4) % 4;
  int ok = 1;
  if (glb) {
    ok = put32(f, GLB_MAGIC) && put32(f, 2) &&
         put32(f, (uint32_t)(12 + 8 + jn + jpad + (bin->size ? 8 + bin->size + bpad : 0))) &&
         put32(f, (uint32_t)(jn + jpad)) && put32(f, CHUNK_JSON);
  }
  ok = ok && fwrite(json, 1, jn, f) == jn;
  for (size_t k = 0; glb && ok && k < jpad; ++k) ok = fputc(' ', f) != EOF;
  if (glb && bin->size) {
    ok = ok && put32(f, (uint32_t)(bin->size + bpad)) && put32(f, CHUNK_BIN) && fwrite(bin->data, 1, bin->size, f) == bin->size;
    for (size_t k = 0; ok && k < bpad; ++k) ok = fputc(0, f) != EOF;
  }
  return fclose(f) == 0 && ok;
}

int gltf_edit_write(gltf_edit *e, const char *who, const char *path) {
  bytes bin = {0};
  char *json = NULL, tmp[4096];
  int rc = EXIT_OK;
  if (!finish_buffers(e, &bin) || !(json = cJSON_PrintUnformatted(e->root))) {
    fprintf(stderr, "skn: %s: out of memory\n", who);
    rc = EXIT_INPUT;
  } else if (snprintf(tmp, sizeof tmp, "%s.skn-tmp", path) >= (int)sizeof tmp) {
    fprintf(stderr, "skn: %s: %s: the path is too long\n", who, path);
    rc = EXIT_USAGE;
  }
  if (!rc && (!write_file(tmp, e->glb, json, &bin) || rename(tmp, path))) {
    fprintf(stderr, "skn: %s: %s: %s\n", who, path, strerror(errno));
    remove(tmp);
    rc = EXIT_INPUT;
  }
  free(json), free(bin.data);
  return rc;
}

void gltf_edit_close(gltf_edit *e) {
  cJSON_Delete(e->root);
  free(e->file.data), free(e->out.data);
  memset(e, 0, sizeof *e);
}
