/* gltf.h — the glTF 2.0 document as the loader holds it. Loading is phased
 * (like cgltf): parse.c reads the JSON into these structs, buffers.c loads
 * the buffers (GLB chunk, data: URI, file), validate.c checks everything that
 * skinning relies on, and only then do accessor.c, animation.c and
 * to_rig.c use it — so that they can index without checking. Every error
 * names its place in the document: "accessors[7]: ...". */
#ifndef SKN_GLTF_H
#define SKN_GLTF_H

#include "../internal.h"

/* glTF 2.0 §3.6.2.2 componentType values. */
enum {
  GLTF_BYTE = 5120,
  GLTF_UNSIGNED_BYTE = 5121,
  GLTF_SHORT = 5122,
  GLTF_UNSIGNED_SHORT = 5123,
  GLTF_UNSIGNED_INT = 5125,
  GLTF_FLOAT = 5126
};

enum { GLTF_PATH_TRANSLATION, GLTF_PATH_ROTATION, GLTF_PATH_SCALE, GLTF_PATH_WEIGHTS, GLTF_PATH_OTHER /* extensions': ignored */ };
enum { GLTF_LINEAR, GLTF_STEP, GLTF_CUBICSPLINE };
#define GLTF_MAX_SETS 8 /* JOINTS_0..7 / WEIGHTS_0..7 per primitive */

typedef struct gltf_buffer {
  uint8_t *data;
  size_t length;    /* byteLength as declared; data holds at least this much once loaded */
  char *uri;        /* NULL: the GLB's BIN chunk */
} gltf_buffer;

typedef struct gltf_view {
  uint32_t buffer;
  size_t offset, length, stride; /* stride 0: tightly packed */
} gltf_view;

typedef struct gltf_accessor {
  int32_t view;                  /* -1: all zeros (or sparse only) */
  size_t offset;
  uint32_t component_type, normalized, count, components; /* components: 1 SCALAR .. 16 MAT4; 0: a type
                                                             skn does not know (refused where it is used) */
  uint32_t readable;             /* set by validate: its bytes are loaded (0: a buffer without bytes) */
  uint32_t columns;              /* 1 for SCALAR and VECn, n for MATn */
  uint32_t sparse_count;         /* 0: not sparse */
  int32_t sparse_index_view, sparse_value_view;
  size_t sparse_index_offset, sparse_value_offset;
  uint32_t sparse_index_type;
} gltf_accessor;

typedef struct gltf_node {
  char *name;
  int32_t parent, mesh, skin;
  uint32_t weight_count;         /* morph weights overriding the mesh's (0: none) */
  float *weights;
  uint32_t has_matrix;
  float matrix[16];
  float translation[3], rotation[4], scale[3];
  uint32_t child_count;
  uint32_t *children;
} gltf_node;

typedef struct gltf_primitive {
  uint32_t mesh, index_in_mesh, mode;
  int32_t indices, position, normal, tangent;
  uint32_t set_count;            /* JOINTS_n/WEIGHTS_n pairs */
  int32_t joints[GLTF_MAX_SETS], weights[GLTF_MAX_SETS];
  uint32_t target_count;         /* morph targets: POSITION, NORMAL, TANGENT accessors each (-1: none) */
  int32_t (*targets)[3];
} gltf_primitive;

typedef struct gltf_mesh {
  char *name;
  uint32_t first_primitive, primitive_count;
  uint32_t weight_count;         /* default morph weights (0: none, all zero) */
  float *weights;
  uint32_t target_name_count;    /* extras.targetNames */
  char **target_names;
} gltf_mesh;

typedef struct gltf_skin {
  char *name;
  uint32_t joint_count;
  uint32_t *joints;              /* node indices */
  int32_t inverse_bind;          /* accessor, -1: identity matrices */
  int32_t skeleton;
} gltf_skin;

typedef struct gltf_sampler {
  int32_t input, output;
  uint32_t interpolation;        /* GLTF_LINEAR, ... */
} gltf_sampler;

typedef struct gltf_channel {
  uint32_t sampler;
  int32_t node;                  /* -1: no target node (ignored) */
  uint32_t path;
} gltf_channel;

typedef struct gltf_animation {
  char *name;
  uint32_t channel_count, sampler_count;
  gltf_channel *channels;
  gltf_sampler *samplers;
  float start, end;              /* over its samplers' input ranges; set by validate */
} gltf_animation;

/* A skinned primitive as the API counts them: a primitive with POSITION
 * and JOINTS_0 of a mesh, with one node that instantiates the mesh with a
 * skin (one per such node: instanced skins). */
typedef struct gltf_skinned {
  uint32_t primitive, node, skin;
} gltf_skinned;

struct skn_gltf {
  char *path, *dir;              /* the file ("(memory)"), and its folder for relative URIs (NULL: none) */
  uint32_t open_flags;           /* SKN_GLTF_OPEN_*: which files those URIs may name (files.c) */
  uint8_t *glb_bin;              /* the GLB's BIN chunk (owned by buffers[0].data) */
  size_t glb_bin_length;
  uint32_t buffer_count, view_count, accessor_count, node_count, mesh_count, primitive_count,
      skin_count, animation_count, skinned_count;
  gltf_buffer *buffers;
  gltf_view *views;
  gltf_accessor *accessors;
  gltf_node *nodes;
  gltf_mesh *meshes;
  gltf_primitive *primitives;
  gltf_skin *skins;
  gltf_animation *animations;
  gltf_skinned *skinned;
  uint32_t *node_order;          /* parents before children */
};

/* parse.c: reads a .gltf or .glb document (size bytes at data, a NUL
 * after them) into g, buffers not loaded yet; takes data (freed, or kept as
 * the GLB's BIN chunk). */
skn_status skn__gltf_parse(skn_gltf *g, uint8_t *data, size_t size);
/* buffers.c: loads every buffer's bytes. */
skn_status skn__gltf_load_buffers(skn_gltf *g);
/* validate.c: checks everything the rest relies on; orders nodes. */
skn_status skn__gltf_validate(skn_gltf *g);
/* validate.c: the morph weights a primitive's node and mesh give (node's,
 * else mesh's, else zeros) into out[target_count]. */
void skn__gltf_default_weights(const skn_gltf *g, const gltf_skinned *sp, float *out);
void skn__gltf_free(skn_gltf *g);
/* to_rig.c: primitive p's triangles, skn__gltf_triangle_count x 3 vertex indices. */
void skn__gltf_write_triangles(const skn_gltf *g, const gltf_primitive *p, uint32_t *dst);
/* to_rig.c: each joint's parent in the skin, its nearest ancestor that is
 * a joint (-1: none); 0 when out of memory. */
int skn__gltf_joint_parents(const skn_gltf *g, const gltf_skin *sk, int32_t *parents);

/* files.c: opens a regular file for reading, never blocking (anything
 * else refused by its kind); `label` begins the messages. */
struct stat;
skn_status skn__gltf_open_file(const char *path, const char *label, int *out_fd, struct stat *st);
/* files.c: n bytes from the start of an open file (SKN_ERR_IO if fewer). */
skn_status skn__gltf_read_fd(int fd, const char *path, const char *label, uint8_t *data, size_t n);
/* files.c: the file a buffer's relative URI names, percent-decoded, in g's
 * folder; NULL with *status set where g's open flags refuse it. */
char *skn__gltf_uri_path(const skn_gltf *g, const char *uri, const char *label, skn_status *status);
/* files.c: whether the file open as fd at path lies in g's folder (with
 * its symbolic links resolved), unless g's flags allow any path. */
skn_status skn__gltf_check_inside(const skn_gltf *g, int fd, const char *path, const char *uri, const char *label);

/* document.c: triangles a primitive's mode and indices make. */
uint32_t skn__gltf_triangle_count(const skn_gltf *g, const gltf_primitive *p);

/* accessor.c: element i of an accessor, components converted to float
 * (normalized integers mapped per glTF 2.0 §3.11) or to uint32. */
void skn__gltf_read_float(const skn_gltf *g, uint32_t accessor, uint32_t i, float *out);
void skn__gltf_read_uint(const skn_gltf *g, uint32_t accessor, uint32_t i, uint32_t *out);
size_t skn__gltf_component_size(uint32_t component_type);
/* accessor.c: the elements of an accessor that have bytes of their own —
 * all of them where it has a bufferView, else its sparse ones (the others
 * are zeros) — and the index of the k-th. Validation walks these, so that
 * opening a document costs time in proportion to its bytes, whatever
 * counts it declares. */
uint32_t skn__gltf_stored_count(const skn_gltf *g, uint32_t accessor);
uint32_t skn__gltf_stored_index(const skn_gltf *g, uint32_t accessor, uint32_t k);

/* animation.c: every node's local matrix at time t of animation a
 * (a == UINT32_MAX: the nodes' own transforms), then global matrices. */
void skn__gltf_globals(const skn_gltf *g, uint32_t a, float t, float (*global)[16]);
/* animation.c: the morph weights of node `node` (n of them) at time t of
 * animation a; 0 where the animation has no weights channel for it. */
int skn__gltf_animated_weights(const skn_gltf *g, uint32_t a, float t, uint32_t node, uint32_t n, float *out);

#endif
