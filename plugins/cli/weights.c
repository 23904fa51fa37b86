/* weights.c — `skn weights FILE -o OUT.glb|OUT.gltf`: the file again, its
 * skinned meshes weighted by skn (skn_gltf_compute_weights: bone heat or
 * closest bone), in their primitives' JOINTS_n / WEIGHTS_n.
 *
 * What changes: each primitive of a mesh on a node with a skin gets new
 * accessors for JOINTS_0.. (unsigned byte or short, as the skin's joint
 * count needs) and WEIGHTS_0.. (float), ceil(k / 4) sets of them, in new
 * buffer views over the new bytes; sets past those are taken off the
 * primitive. Everything else is the document's own: its JSON as parsed
 * and printed again (cJSON: a number keeps its float32 value, glTF's
 * precision, and its double to within the last digit), its buffers'
 * bytes, and the accessors the old weights were in (left unused). The new bytes go where the output's form
 * keeps binary data: a .glb's BIN chunk (grown, or made as buffer 0), a
 * .gltf's buffer of a data: URI. The file is written under a temporary
 * name and renamed when whole. A mesh two skinned nodes share takes the
 * first node's skin (glTF's own rule: its joints index that skin). */
#include "cli.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define GLB_MAGIC 0x46546C67u
#define CHUNK_JSON 0x4E4F534Au
#define CHUNK_BIN 0x004E4942u

typedef struct bytes {
  uint8_t *data;
  size_t size, cap;
} bytes;

static int append(bytes *b, const void *data, size_t n) {
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

static int pad4(bytes *b, uint8_t with) {
  while (b->size % 4)
    if (!append(b, &with, 1)) return 0;
  return 1;
}

/* "skn: weights: " and the message on stderr; returns rc. */
static int say(int rc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int say(int rc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("skn: weights: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  return rc;
}

static uint32_t le32(const uint8_t *p) { return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24; }

/* The document as read: its JSON and, for a .glb, its BIN chunk (may be absent). */
typedef struct document {
  bytes file;
  const char *json;
  size_t json_size;
  const uint8_t *bin;
  size_t bin_size;
} document;

static int read_document(const char *path, document *d) {
  FILE *f = fopen(path, "rb");
  if (!f) return say(EXIT_INPUT, "%s: %s", path, strerror(errno));
  uint8_t chunk[65536];
  size_t n;
  while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
    if (!append(&d->file, chunk, n)) return fclose(f), say(EXIT_INPUT, "out of memory");
  fclose(f);
  const uint8_t *p = d->file.data;
  if (d->file.size >= 20 && le32(p) == GLB_MAGIC) { /* the library has validated it: chunks as the spec lays them */
    d->json_size = le32(p + 12), d->json = (const char *)p + 20;
    size_t bin_at = 20 + d->json_size;
    if (bin_at + 8 <= d->file.size && le32(p + bin_at + 4) == CHUNK_BIN)
      d->bin_size = le32(p + bin_at), d->bin = p + bin_at + 8;
  } else {
    d->json = (const char *)p, d->json_size = d->file.size;
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

/* A new buffer view of `size` bytes at `offset` of buffer `buffer`, and an accessor over it. */
static int add_accessor(cJSON *root, int buffer, size_t offset, size_t size, int component, uint32_t count) {
  cJSON *views = cJSON_GetObjectItem(root, "bufferViews"), *accessors = cJSON_GetObjectItem(root, "accessors");
  if (!views) cJSON_AddItemToObject(root, "bufferViews", views = cJSON_CreateArray());
  if (!accessors) cJSON_AddItemToObject(root, "accessors", accessors = cJSON_CreateArray());
  cJSON *v = cJSON_CreateObject(), *a = cJSON_CreateObject();
  cJSON_AddNumberToObject(v, "buffer", buffer);
  cJSON_AddNumberToObject(v, "byteOffset", (double)offset);
  cJSON_AddNumberToObject(v, "byteLength", (double)size);
  cJSON_AddNumberToObject(v, "target", 34962); /* ARRAY_BUFFER */
  cJSON_AddItemToArray(views, v);
  cJSON_AddNumberToObject(a, "bufferView", cJSON_GetArraySize(views) - 1);
  cJSON_AddNumberToObject(a, "componentType", component);
  cJSON_AddNumberToObject(a, "count", count);
  cJSON_AddStringToObject(a, "type", "VEC4");
  cJSON_AddItemToArray(accessors, a);
  return cJSON_GetArraySize(accessors) - 1;
}

/* One primitive's weights as sets of JOINTS_s / WEIGHTS_s appended to `out`
 * (at `base` in buffer `buffer`) and named in its attributes. */
static int write_sets(cJSON *root, cJSON *attributes, const uint32_t *joints, const float *weights, uint32_t n,
                      uint32_t k, uint32_t joint_count, int buffer, size_t base, bytes *out) {
  uint32_t sets = (k + 3) / 4;
  int wide = joint_count > 256;
  for (uint32_t s = 0; s < sets; ++s) {
    size_t at = out->size;
    for (uint32_t v = 0; v < n; ++v)
      for (uint32_t c = 0; c < 4; ++c) {
        uint32_t slot = 4 * s + c, j = slot < k ? joints[(size_t)v * k + slot] : 0;
        uint8_t b = (uint8_t)j;
        uint16_t h = (uint16_t)j;
        if (!(wide ? append(out, &h, 2) : append(out, &b, 1))) return 0;
      }
    char name[24];
    snprintf(name, sizeof name, "JOINTS_%u", s);
    cJSON_DeleteItemFromObject(attributes, name);
    cJSON_AddNumberToObject(attributes, name, add_accessor(root, buffer, base + at, out->size - at, wide ? 5123 : 5121, n));
    if (!pad4(out, 0)) return 0;
    at = out->size;
    for (uint32_t v = 0; v < n; ++v)
      for (uint32_t c = 0; c < 4; ++c) {
        uint32_t slot = 4 * s + c;
        float w = slot < k ? weights[(size_t)v * k + slot] : 0.0f;
        if (!append(out, &w, 4)) return 0;
      }
    snprintf(name, sizeof name, "WEIGHTS_%u", s);
    cJSON_DeleteItemFromObject(attributes, name);
    cJSON_AddNumberToObject(attributes, name, add_accessor(root, buffer, base + at, out->size - at, 5126, n));
  }
  for (uint32_t s = sets; s < 64; ++s) { /* sets past the new ones: gone */
    char name[24];
    snprintf(name, sizeof name, "JOINTS_%u", s);
    cJSON_DeleteItemFromObject(attributes, name);
    snprintf(name, sizeof name, "WEIGHTS_%u", s);
    cJSON_DeleteItemFromObject(attributes, name);
  }
  return 1;
}

/* Where the new bytes go and what they hold. */
typedef struct plan {
  const options *o;
  skn_gltf *gltf;
  cJSON *root;
  int glb;          /* the output is a .glb */
  int buffer;       /* the buffer the new bytes go in */
  size_t base;      /* their offset in it */
  bytes out;        /* the new bytes */
  uint32_t primitives;
} plan;

static int number_of(const cJSON *object, const char *name, int fallback) {
  const cJSON *n = cJSON_GetObjectItem(object, name);
  return cJSON_IsNumber(n) ? n->valueint : fallback;
}

/* Every skinned node's mesh, primitive by primitive. */
static int weigh_all(plan *p) {
  cJSON *nodes = cJSON_GetObjectItem(p->root, "nodes"), *meshes = cJSON_GetObjectItem(p->root, "meshes");
  cJSON *skins = cJSON_GetObjectItem(p->root, "skins");
  int mesh_count = cJSON_GetArraySize(meshes), rc = EXIT_OK;
  uint8_t *done = calloc((size_t)mesh_count + 1, 1);
  if (!done) return say(EXIT_INPUT, "out of memory");
  for (int i = 0; !rc && i < cJSON_GetArraySize(nodes); ++i) {
    const cJSON *node = cJSON_GetArrayItem(nodes, i);
    int mesh = number_of(node, "mesh", -1), skin = number_of(node, "skin", -1);
    if (mesh < 0 || skin < 0 || mesh >= mesh_count || done[mesh]) continue;
    done[mesh] = 1;
    uint32_t joint_count = (uint32_t)cJSON_GetArraySize(cJSON_GetObjectItem(cJSON_GetArrayItem(skins, skin), "joints"));
    cJSON *prims = cJSON_GetObjectItem(cJSON_GetArrayItem(meshes, mesh), "primitives");
    for (int k = 0; !rc && k < cJSON_GetArraySize(prims); ++k) {
      cJSON *prim = cJSON_GetArrayItem(prims, k);
      if (number_of(prim, "mode", 4) < 4) {
        say(0, "meshes[%d].primitives[%d]: points or lines, left as they are", mesh, k);
        continue;
      }
      skn_gltf_weights_desc d = {sizeof d, (uint32_t)i, (uint32_t)k, p->o->weights_method,
                                 p->o->max_influences ? p->o->max_influences : 4, p->o->min_weight,
                                 (p->o->no_weld ? 0u : SKN_WEIGHTS_WELD) | (p->o->non_manifold ? SKN_WEIGHTS_NON_MANIFOLD : 0u),
                                 p->o->threads};
      uint32_t n = 0;
      if (skn_gltf_compute_weights(p->gltf, &d, NULL, NULL, 0, &n)) { rc = fail_input("weights"); break; }
      size_t entries = (size_t)n * d.influences_per_vertex;
      uint32_t *joints = malloc(entries * sizeof *joints + 4);
      float *weights = malloc(entries * sizeof *weights + 4);
      if (!joints || !weights) rc = say(EXIT_INPUT, "out of memory");
      else if (skn_gltf_compute_weights(p->gltf, &d, joints, weights, entries, &n)) {
        rc = say(EXIT_INPUT, "meshes[%d].primitives[%d] (nodes[%d]): %s", mesh, k, i, skn_last_error());
        if (!p->o->non_manifold && strstr(skn_last_error(), "non-manifold"))
          fprintf(stderr, "skn: --non-manifold weighs such a mesh as Blender does\n");
      } else if (!write_sets(p->root, cJSON_GetObjectItem(prim, "attributes"), joints, weights, n,
                             d.influences_per_vertex, joint_count, p->buffer, p->base, &p->out) || !pad4(&p->out, 0)) {
        rc = say(EXIT_INPUT, "out of memory");
      } else {
        p->primitives++;
      }
      free(joints), free(weights);
    }
  }
  free(done);
  if (!rc && !p->primitives) rc = say(EXIT_INPUT, "%s has no mesh on a node with a skin", p->o->file);
  return rc;
}

/* The new bytes' buffer: a .glb's BIN (grown after its old bytes, or made
 * as buffer 0, the others renumbered), or a .gltf's new last buffer. */
static void choose_buffer(plan *p, const document *d) {
  cJSON *buffers = cJSON_GetObjectItem(p->root, "buffers");
  if (!buffers) cJSON_AddItemToObject(p->root, "buffers", buffers = cJSON_CreateArray());
  if (p->glb && d->bin) {
    p->buffer = 0, p->base = (d->bin_size + 3) / 4 * 4;
  } else if (p->glb) {
    cJSON *views = cJSON_GetObjectItem(p->root, "bufferViews"), *v;
    cJSON_ArrayForEach(v, views) cJSON_SetNumberValue(cJSON_GetObjectItem(v, "buffer"), number_of(v, "buffer", 0) + 1);
    cJSON_InsertItemInArray(buffers, 0, cJSON_CreateObject());
    p->buffer = 0, p->base = 0;
  } else {
    cJSON_AddItemToArray(buffers, cJSON_CreateObject());
    p->buffer = cJSON_GetArraySize(buffers) - 1, p->base = 0;
  }
}

/* The document's JSON and bytes in the output's form. */
static int finish_buffers(plan *p, const document *d, bytes *bin) {
  cJSON *buffers = cJSON_GetObjectItem(p->root, "buffers"), *mine = cJSON_GetArrayItem(buffers, p->buffer);
  if (p->glb) {
    if (d->bin && (!append(bin, d->bin, d->bin_size) || !pad4(bin, 0))) return 0;
    if (!append(bin, p->out.data, p->out.size)) return 0;
  } else {
    if (d->bin) { /* the input .glb's BIN becomes a data: URI */
      char *uri = base64(d->bin, d->bin_size);
      if (!uri) return 0;
      cJSON_AddItemToObject(cJSON_GetArrayItem(buffers, 0), "uri", cJSON_CreateString(uri));
      free(uri);
    }
    char *uri = base64(p->out.data, p->out.size);
    if (!uri) return 0;
    cJSON_AddItemToObject(mine, "uri", cJSON_CreateString(uri));
    free(uri);
  }
  cJSON_DeleteItemFromObject(mine, "byteLength");
  cJSON_AddNumberToObject(mine, "byteLength", (double)(p->glb ? bin->size : p->out.size));
  return 1;
}

static int put32(FILE *f, uint32_t v) {
  uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
  return fwrite(b, 1, 4, f) == 4;
}

static int write_output(const char *path, int glb, const char *json, const bytes *bin) {
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

int cmd_weights(int argc, char **argv) {
  options o;
  int rc = parse_options(argc, argv, 2, "weights-method max-influences min-weight threads non-manifold no-weld any-path o", &o);
  if (rc) return rc;
  static const char *const EXTENSIONS[] = {"glb", "gltf"};
  int ext = o.out ? output_extension(o.out, EXTENSIONS, 2) : -1;
  if (ext < 0) return say(EXIT_USAGE, "-o OUT.glb or OUT.gltf is required");
  plan p;
  memset(&p, 0, sizeof p);
  p.o = &o, p.glb = ext == 0;
  document d;
  memset(&d, 0, sizeof d);
  if (open_document(&o, &p.gltf)) return fail_input("weights");
  rc = read_document(o.file, &d);
  if (!rc && !(p.root = cJSON_ParseWithLength(d.json, d.json_size)))
    rc = say(EXIT_INPUT, "%s: its JSON does not parse", o.file);
  if (!rc && !same_folder_if_needed(p.root, o.file, o.out))
    rc = say(EXIT_USAGE, "%s names files beside it (buffers or images): write OUT in its folder", o.file);
  if (!rc) choose_buffer(&p, &d), rc = weigh_all(&p);
  bytes bin = {0};
  char *json = NULL, tmp[4096];
  if (!rc && (!finish_buffers(&p, &d, &bin) || !(json = cJSON_PrintUnformatted(p.root))))
    rc = say(EXIT_INPUT, "out of memory");
  if (!rc && snprintf(tmp, sizeof tmp, "%s.skn-tmp", o.out) >= (int)sizeof tmp)
    rc = say(EXIT_USAGE, "%s: the path is too long", o.out);
  if (!rc && (!write_output(tmp, p.glb, json, &bin) || rename(tmp, o.out))) {
    rc = say(EXIT_INPUT, "%s: %s", o.out, strerror(errno));
    remove(tmp);
  }
  if (!rc)
    printf("%s: %u primitive%s weighted (%s, %u influences), %s\n", o.out, p.primitives, p.primitives == 1 ? "" : "s",
           o.weights_method == SKN_WEIGHTS_HEAT ? "bone heat" : "closest bone", o.max_influences ? o.max_influences : 4,
           p.glb ? "glb" : "gltf");
  free(json), free(bin.data), free(p.out.data), free(d.file.data);
  cJSON_Delete(p.root);
  skn_gltf_close(p.gltf);
  return rc;
}
