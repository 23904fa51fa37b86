/* gltf_edit.h — a glTF document read, given new accessors, and written
 * again as .glb or .gltf, everything else kept (skn weights' output, skn
 * bake's VAT mesh). */
#ifndef SKN_CLI_GLTF_EDIT_H
#define SKN_CLI_GLTF_EDIT_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

typedef struct bytes {
  uint8_t *data;
  size_t size, cap;
} bytes;

int bytes_append(bytes *b, const void *data, size_t n); /* 0: out of memory */
int bytes_pad4(bytes *b, uint8_t with);

typedef struct gltf_edit {
  bytes file;                  /* the file as read */
  const char *json;            /* its JSON (a .glb's JSON chunk) */
  size_t json_size;
  const uint8_t *bin;          /* a .glb's BIN chunk, or NULL */
  size_t bin_size;
  cJSON *root;                 /* the JSON, parsed: what the caller edits */
  int glb;                     /* the output is a .glb */
  int buffer;                  /* the buffer the new bytes go in */
  size_t base;                 /* their offset in it */
  bytes out;                   /* the new bytes */
} gltf_edit;

/* Reads `in` for writing as `out` (.glb where glb_out): the new bytes go in
 * a .glb's BIN chunk (grown, or made as buffer 0, the others renumbered)
 * or a .gltf's new buffer of a data: URI. A document naming files by
 * relative URI must be written into its own folder: EXIT_USAGE, silently
 * (what that means is the caller's to say). Other failures print
 * "skn: WHO: ..." and return EXIT_INPUT. */
int gltf_edit_open(gltf_edit *e, const char *who, const char *in, const char *out, int glb_out);
/* `size` bytes of `data` as a new buffer view (ARRAY_BUFFER) and an
 * accessor of `count` elements of `type` ("VEC2", "VEC4") and component
 * type `component`; returns the accessor's index, -1 when out of memory. */
int gltf_edit_accessor(gltf_edit *e, const void *data, size_t size, int component, uint32_t count, const char *type);
/* Writes the document to `path` under a temporary name, renamed when whole. */
int gltf_edit_write(gltf_edit *e, const char *who, const char *path);
void gltf_edit_close(gltf_edit *e);
/* object[name] as an int, or fallback. */
int gltf_number_of(const cJSON *object, const char *name, int fallback);

#endif
