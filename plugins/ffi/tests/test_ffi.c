/* test_ffi.c — the libffi adapter against the header's layouts, the C
 * library's own outputs, and bad input. It includes skn_ffi.h only, never
 * skn.h: every call goes through the description and ffi_call, as an
 * interpreter's would.
 *
 *   test_ffi LIBRARY REFERENCE_DIR LAYOUTS
 *
 * REFERENCE_DIR is build/adapters (tests/adapters/reference.c), LAYOUTS
 * build/abi/layouts.txt (scripts/abi_layouts). Run plainly and, in make
 * check, built with ASan against the sanitized library: a read past one of
 * the test's arrays would stop it. Ends "ffi: N passed, N failed". */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expect.h"
#include "skn_ffi.h"

static skn_ffi *f;
static const char *ref;

/* skn_ffi_call with its arguments listed in place. */
#define ARGS(...) (skn_ffi_value[]){__VA_ARGS__}, sizeof((skn_ffi_value[]){__VA_ARGS__}) / sizeof(skn_ffi_value)
#define CALL(result, name, ...) skn_ffi_call(f, name, ARGS(__VA_ARGS__), result)

static uint32_t constant(const char *name) {
  uint32_t v = 0;
  if (skn_ffi_enum(f, name, &v)) printf("no constant %s\n", name), exit(1);
  return v;
}

static const char *status_name(int s) { return skn_ffi_status_name(f, s); }

static void *load(const char *name, const char *ext, size_t *bytes) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s.%s", ref, name, ext);
  FILE *in = fopen(path, "rb");
  if (!in) return *bytes = 0, NULL;
  fseek(in, 0, SEEK_END);
  long n = ftell(in);
  fseek(in, 0, SEEK_SET);
  void *data = malloc(n > 0 ? (size_t)n : 1);
  *bytes = fread(data, 1, (size_t)n, in);
  fclose(in);
  return data;
}

/* ---- the description against the header ---- */
static int cmp_lines(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* What the adapter leaves out, by design (schema.c says why). */
static int left_out(const char *line) {
  static const char *const out[] = {"struct skn_allocator ", "field skn_allocator ", "function skn_set_allocator ",
                                    "const SKN_VERSION_MINOR ", "const SKN_VERSION_PATCH ", "abi ", "opaque ",
                                    "function skn_gltf_morph_target_name "};
  for (size_t i = 0; i < sizeof out / sizeof out[0]; ++i)
    if (!strncmp(line, out[i], strlen(out[i]))) return 1;
  return 0;
}

static size_t read_lines(char *text, char **lines, size_t max, int filter) {
  size_t n = 0;
  for (char *save = NULL, *l = strtok_r(text, "\n", &save); l && n < max; l = strtok_r(NULL, "\n", &save))
    if (!filter || !left_out(l)) lines[n++] = l;
  qsort(lines, n, sizeof *lines, cmp_lines);
  return n;
}

static void layouts(const char *path) {
  char *ours = NULL, *theirs = NULL, *a[1024], *b[1024];
  size_t ours_bytes = 0, theirs_bytes = 0;
  FILE *out = open_memstream(&ours, &ours_bytes);
  skn_ffi_write_layouts(f, out);
  fclose(out);
  FILE *in = fopen(path, "rb");
  EXPECT(in != NULL, "%s", path);
  if (!in) return;
  theirs = calloc(1, 1 << 16);
  theirs_bytes = fread(theirs, 1, (1 << 16) - 1, in);
  fclose(in);
  size_t na = read_lines(ours, a, 1024, 0), nb = read_lines(theirs, b, 1024, 1);
  EXPECT(na == nb && nb > 200, "the description has %zu lines, the header %zu (less what is left out)", na, nb);
  for (size_t i = 0, j = 0; i < na || j < nb;) { /* a merge: every line on one side only is a failure */
    int c = i == na ? 1 : j == nb ? -1 : strcmp(a[i], b[j]);
    EXPECT(c == 0, "%s: %s", c < 0 ? "only in the description" : "only in the header", c < 0 ? a[i] : b[j]);
    i += c <= 0, j += c >= 0;
  }
  free(ours), free(theirs);
  (void)theirs_bytes;
}

/* ---- the reference, bit for bit ---- */
static uint32_t rig_u32(skn_ffi_handle rig, const char *field) {
  skn_ffi_record *info = skn_ffi_record_new(f, "skn_rig_info");
  skn_ffi_value v = {0};
  CALL(NULL, "skn_rig_info_get", skn_ffi_handle_value(rig), skn_ffi_record_value(info));
  skn_ffi_record_get(info, field, &v);
  skn_ffi_record_free(info);
  return v.as.u32;
}

static int compare_file(const char *stem, const char *ext, const void *data, size_t bytes) {
  size_t n;
  void *want = load(stem, ext, &n);
  int same = want && n == bytes && !memcmp(want, data, n);
  free(want);
  return same;
}

static void runs(const char *name, skn_ffi_handle rig, skn_ffi_handle pose, FILE *cases) {
  const uint32_t v = rig_u32(rig, "vertex_count"), flags = rig_u32(rig, "flags");
  const int has_n = (flags & constant("SKN_RIG_HAS_NORMALS")) != 0, has_t = (flags & constant("SKN_RIG_HAS_TANGENTS")) != 0;
  float *p = malloc(12 * (size_t)v), *n = malloc(12 * (size_t)v), *t = malloc(16 * (size_t)v);
  char line[256], rname[64], method[32], split[32], status[64], id[128];
  long at = ftell(cases);
  while (fgets(line, sizeof line, cases) && sscanf(line, "run %63s %31s %31s %63s", rname, method, split, status) == 4) {
    at = ftell(cases);
    skn_ffi_record *d = skn_ffi_record_new(f, "skn_skin_desc");
    snprintf(id, sizeof id, "SKN_METHOD_%s", method);
    skn_ffi_record_set(d, "method", skn_ffi_u32(constant(id)));
    snprintf(id, sizeof id, "SKN_DQS_SCALE_%s", split);
    skn_ffi_record_set(d, "dqs_scale", skn_ffi_u32(constant(id)));
    skn_ffi_record_set(d, "threads", skn_ffi_u32(1));
    skn_ffi_record_set(d, "positions", skn_ffi_array(SKN_FFI_FLOAT32, p, 3 * (size_t)v));
    if (has_n) skn_ffi_record_set(d, "normals", skn_ffi_array(SKN_FFI_FLOAT32, n, 3 * (size_t)v));
    if (has_t) skn_ffi_record_set(d, "tangents", skn_ffi_array(SKN_FFI_FLOAT32, t, 4 * (size_t)v));
    int s = CALL(NULL, "skn_skin", skn_ffi_handle_value(rig), skn_ffi_handle_value(pose), skn_ffi_record_value(d));
    skn_ffi_record_free(d);
    EXPECT(!strcmp(status_name(s), status), "%s %s %s: %s (%s), reference %s", name, method, split, status_name(s),
           skn_ffi_last_error(f), status);
    if (s) continue;
    snprintf(id, sizeof id, "%s.%s", method, split);
    char stem[192];
    snprintf(stem, sizeof stem, "%s.%s", name, id);
    EXPECT(compare_file(stem, "positions", p, 12 * (size_t)v), "%s positions differ", stem);
    if (has_n) EXPECT(compare_file(stem, "normals", n, 12 * (size_t)v), "%s normals differ", stem);
    if (has_t) EXPECT(compare_file(stem, "tangents", t, 16 * (size_t)v), "%s tangents differ", stem);
  }
  fseek(cases, at, SEEK_SET);
  free(p), free(n), free(t);
}

static void procedural(const char *name, uint32_t j, uint32_t v, uint32_t tris, FILE *cases) {
  static const struct { const char *ext, *field; skn_ffi_elem elem; } inputs[] = {
      {"parents", "parents", SKN_FFI_INT32}, {"bind_matrices", "bind_matrices", SKN_FFI_FLOAT32},
      {"positions", "positions", SKN_FFI_FLOAT32}, {"normals", "normals", SKN_FFI_FLOAT32},
      {"tangents", "tangents", SKN_FFI_FLOAT32}, {"joints", "influence_joints", SKN_FFI_UINT32},
      {"weights", "influence_weights", SKN_FFI_FLOAT32}, {"blend", "blend_weights", SKN_FFI_FLOAT32},
      {"triangles", "triangles", SKN_FFI_UINT32}};
  void *data[9];
  skn_ffi_record *d = skn_ffi_record_new(f, "skn_bind_desc");
  skn_ffi_record_set(d, "joint_count", skn_ffi_u32(j));
  skn_ffi_record_set(d, "vertex_count", skn_ffi_u32(v));
  skn_ffi_record_set(d, "influences_per_vertex", skn_ffi_u32(4));
  skn_ffi_record_set(d, "triangle_count", skn_ffi_u32(tris));
  for (int i = 0; i < 9; ++i) {
    size_t bytes;
    data[i] = load(name, inputs[i].ext, &bytes);
    EXPECT(!skn_ffi_record_set(d, inputs[i].field, skn_ffi_array(inputs[i].elem, data[i], bytes / 4)), "%s: %s",
           inputs[i].field, skn_ffi_last_error(f));
  }
  skn_ffi_value rig = {0}, pose = {0};
  size_t local_bytes;
  float *local = load(name, "local", &local_bytes);
  EXPECT(!CALL(&rig, "skn_bind", skn_ffi_record_value(d)), "bind: %s", skn_ffi_last_error(f));
  EXPECT(!CALL(&pose, "skn_pose_create", rig) &&
             !CALL(NULL, "skn_pose_set_local", pose, skn_ffi_u32(0), skn_ffi_u32(j),
                   skn_ffi_array(SKN_FFI_FLOAT32, local, local_bytes / 4)),
         "pose: %s", skn_ffi_last_error(f));
  runs(name, rig.as.handle, pose.as.handle, cases);
  CALL(NULL, "skn_pose_destroy", pose);
  CALL(NULL, "skn_rig_destroy", rig);
  skn_ffi_record_free(d);
  for (int i = 0; i < 9; ++i) free(data[i]);
  free(local);
}

static void gltf(const char *name, const char *path, uint32_t primitive, uint32_t animation, float time, FILE *cases) {
  skn_ffi_value doc = {0}, rig = {0}, pose = {0}, vertices = {0};
  EXPECT(!CALL(&doc, "skn_gltf_open", skn_ffi_str(path)), "%s: %s", path, skn_ffi_last_error(f));
  skn_ffi_record *info = skn_ffi_record_new(f, "skn_gltf_primitive_info");
  CALL(NULL, "skn_gltf_primitive_info_get", doc, skn_ffi_u32(primitive), skn_ffi_record_value(info));
  skn_ffi_record_get(info, "vertex_count", &vertices);
  skn_ffi_record_free(info);
  float *blend = malloc(4 * (size_t)vertices.as.u32);
  for (uint32_t i = 0; i < vertices.as.u32; ++i) blend[i] = (float)(i % 5) / 4.0f;
  skn_ffi_record *d = skn_ffi_record_new(f, "skn_gltf_bind_desc");
  skn_ffi_record_set(d, "primitive", skn_ffi_u32(primitive));
  skn_ffi_record_set(d, "centers_of_rotation", skn_ffi_u32(1));
  skn_ffi_record_set(d, "blend_weights", skn_ffi_array(SKN_FFI_FLOAT32, blend, vertices.as.u32));
  EXPECT(!CALL(&rig, "skn_gltf_bind", doc, skn_ffi_record_value(d)) && !CALL(&pose, "skn_pose_create", rig) &&
             !CALL(NULL, "skn_gltf_pose", doc, skn_ffi_u32(primitive), skn_ffi_u32(animation), skn_ffi_f32(time), pose),
         "%s: %s", name, skn_ffi_last_error(f));
  CALL(NULL, "skn_gltf_close", doc); /* rigs outlive their document */
  runs(name, rig.as.handle, pose.as.handle, cases);
  CALL(NULL, "skn_pose_destroy", pose);
  CALL(NULL, "skn_rig_destroy", rig);
  skn_ffi_record_free(d);
  free(blend);
}

static void reference(void) {
  char path[1024], line[1200], kind[16], name[64], file[1024];
  snprintf(path, sizeof path, "%s/cases.txt", ref);
  FILE *cases = fopen(path, "r");
  EXPECT(cases != NULL, "%s", path);
  int seen = 0;
  while (cases && fgets(line, sizeof line, cases)) {
    unsigned a, b, c;
    float time;
    if (sscanf(line, "%15s %63s", kind, name) != 2) continue;
    if (!strcmp(kind, "proc") && sscanf(line, "proc %*s %u %u %u", &a, &b, &c) == 3) procedural(name, a, b, c, cases), ++seen;
    else if (sscanf(line, "gltf %*s %1023s %u %u %f", file, &a, &b, &time) == 4) gltf(name, file, a, b, time, cases), ++seen;
  }
  if (cases) fclose(cases);
  EXPECT(seen == 4, "%d reference cases, expected 4", seen);
}

/* ---- bad input ---- */
typedef struct small {
  float bind[32], positions[9], normals[9], weights[6];
  int32_t parents[2];
  uint32_t joints[6];
} small;

static small small_rig(void) {
  small s = {{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 1, 0, 1},
             {0, 0, 0, 0, 1, 0, 0, 2, 0}, {1, 0, 0, 1, 0, 0, 1, 0, 0}, {1, 0, 0.5f, 0.5f, 0, 1}, {-1, 0}, {0, 1, 0, 1, 0, 1}};
  return s;
}

/* A bind description of s, with the arrays' true lengths. */
static skn_ffi_record *small_desc(small *s) {
  skn_ffi_record *d = skn_ffi_record_new(f, "skn_bind_desc");
  skn_ffi_record_set(d, "joint_count", skn_ffi_u32(2));
  skn_ffi_record_set(d, "vertex_count", skn_ffi_u32(3));
  skn_ffi_record_set(d, "influences_per_vertex", skn_ffi_u32(2));
  skn_ffi_record_set(d, "bind_matrices", skn_ffi_array(SKN_FFI_FLOAT32, s->bind, 32));
  skn_ffi_record_set(d, "parents", skn_ffi_array(SKN_FFI_INT32, s->parents, 2));
  skn_ffi_record_set(d, "positions", skn_ffi_array(SKN_FFI_FLOAT32, s->positions, 9));
  skn_ffi_record_set(d, "normals", skn_ffi_array(SKN_FFI_FLOAT32, s->normals, 9));
  skn_ffi_record_set(d, "influence_joints", skn_ffi_array(SKN_FFI_UINT32, s->joints, 6));
  skn_ffi_record_set(d, "influence_weights", skn_ffi_array(SKN_FFI_FLOAT32, s->weights, 6));
  return d;
}

static int bind_small(skn_ffi_record *d, skn_ffi_value *rig) { return CALL(rig, "skn_bind", skn_ffi_record_value(d)); }

static int contains(const char *message, const char *text) { return !text || strstr(message, text); }

#define REFUSED(call, status, text)                                                                    \
  do {                                                                                                 \
    int s_ = (call);                                                                                   \
    const char *m_ = skn_ffi_last_error(f);                                                            \
    EXPECT(s_ == (int)constant(status) && contains(m_, text), "%s: %s (%s)", #call, status_name(s_), m_); \
  } while (0)

static void bad_input(void) {
  small s = small_rig();
  skn_ffi_value rig = {0}, pose = {0}, other = {0};
  skn_ffi_record *d = small_desc(&s);
  /* arrays shorter than the counts they go with: refused before C */
  skn_ffi_record_set(d, "positions", skn_ffi_array(SKN_FFI_FLOAT32, s.positions, 8));
  REFUSED(bind_small(d, &rig), "SKN_ERR_INVALID_ARGUMENT", "bind: positions.data holds 32 bytes, the call reads or writes 36");
  skn_ffi_record_set(d, "positions", skn_ffi_array(SKN_FFI_FLOAT32, s.positions, 9));
  skn_ffi_record_set(d, "positions.stride", skn_ffi_u32(16)); /* 3 vertices 16 bytes apart need 44 */
  REFUSED(bind_small(d, &rig), "SKN_ERR_INVALID_ARGUMENT", "positions.data holds 36 bytes, the call reads or writes 44");
  skn_ffi_record_set(d, "positions.stride", skn_ffi_u32(0));
  skn_ffi_record_set(d, "influence_joints", skn_ffi_array(SKN_FFI_UINT32, s.joints, 5));
  REFUSED(bind_small(d, &rig), "SKN_ERR_INVALID_ARGUMENT", "influence_joints holds 20 bytes");
  skn_ffi_record_set(d, "influence_joints", skn_ffi_array(SKN_FFI_UINT32, s.joints, 6));
  skn_ffi_record_set(d, "parents", skn_ffi_array(SKN_FFI_INT32, s.parents, 1));
  REFUSED(bind_small(d, &rig), "SKN_ERR_INVALID_ARGUMENT", "parents holds 4 bytes, the call reads or writes 8");
  skn_ffi_record_set(d, "parents", skn_ffi_array(SKN_FFI_INT32, s.parents, 2));
  skn_ffi_record_set(d, "bind_matrices", skn_ffi_array(SKN_FFI_FLOAT32, s.bind, 31));
  REFUSED(bind_small(d, &rig), "SKN_ERR_INVALID_ARGUMENT", "bind_matrices holds 124 bytes");
  skn_ffi_record_set(d, "bind_matrices", skn_ffi_array(SKN_FFI_FLOAT32, s.bind, 32));
  /* wrong kinds */
  REFUSED(skn_ffi_record_set(d, "influence_joints", skn_ffi_array(SKN_FFI_FLOAT32, s.weights, 6)),
          "SKN_ERR_INVALID_ARGUMENT", "influence_joints: an array of uint32 is needed");
  skn_ffi_value minus = {SKN_FFI_I32, SKN_FFI_BYTE, 0, {0}};
  minus.as.i32 = -1;
  REFUSED(skn_ffi_record_set(d, "vertex_count", minus), "SKN_ERR_INVALID_ARGUMENT", "vertex_count: -1 is negative");
  REFUSED(skn_ffi_record_set(d, "no_such", skn_ffi_u32(1)), "SKN_ERR_INVALID_ARGUMENT", "skn_bind_desc has no field no_such");
  REFUSED(skn_ffi_record_set(d, "min_weight", skn_ffi_str("x")), "SKN_ERR_INVALID_ARGUMENT", "min_weight: a number is needed");
  REFUSED(CALL(&rig, "skn_bind", skn_ffi_u32(3)), "SKN_ERR_INVALID_ARGUMENT", "bind: desc: a skn_bind_desc record is needed");
  REFUSED(skn_ffi_call(f, "skn_bind", NULL, 0, &rig), "SKN_ERR_INVALID_ARGUMENT", "bind: 0 arguments, the call takes 1");
  REFUSED(CALL(NULL, "skn_no_such", skn_ffi_u32(1)), "SKN_ERR_INVALID_ARGUMENT", "not a call in the description");
  REFUSED(CALL(NULL, "skn_get_api", skn_ffi_u32(1)), "SKN_ERR_INVALID_ARGUMENT", NULL);
  skn_ffi_record_set(d, "struct_size", skn_ffi_u32(4096));
  REFUSED(bind_small(d, &rig), "SKN_ERR_INVALID_ARGUMENT", "desc.struct_size 4096 is more than the record's 192 bytes");
  skn_ffi_record_set(d, "struct_size", skn_ffi_u32(168));
  /* the library's own checks, its status and message through the adapter */
  s.joints[3] = 7;
  REFUSED(bind_small(d, &rig), "SKN_ERR_INDEX_OUT_OF_RANGE", "vertex 1, influence 1: joint 7 >= joint_count 2");
  s.joints[3] = 1, s.parents[1] = 5;
  REFUSED(bind_small(d, &rig), "SKN_ERR_BAD_HIERARCHY", "joint 1: parent 5 is out of range");
  s.parents[1] = 0, s.positions[4] = NAN;
  REFUSED(bind_small(d, &rig), "SKN_ERR_NOT_FINITE", "vertex 1");
  s.positions[4] = 1;
  EXPECT(!bind_small(d, &rig) && rig.kind == SKN_FFI_HANDLE, "%s", skn_ffi_last_error(f));
  EXPECT(!CALL(&pose, "skn_pose_create", rig), "%s", skn_ffi_last_error(f));

  /* outputs: short ones refused, nothing written */
  float out[9], palette[32];
  for (int i = 0; i < 9; ++i) out[i] = -7;
  skn_ffi_record *sd = skn_ffi_record_new(f, "skn_skin_desc");
  skn_ffi_record_set(sd, "positions", skn_ffi_array(SKN_FFI_FLOAT32, out, 8));
  REFUSED(CALL(NULL, "skn_skin", rig, pose, skn_ffi_record_value(sd)), "SKN_ERR_INVALID_ARGUMENT", "positions.data holds 32 bytes");
  skn_ffi_record_set(sd, "positions", skn_ffi_array(SKN_FFI_FLOAT32, out, 9));
  skn_ffi_record_set(sd, "normals", skn_ffi_array(SKN_FFI_FLOAT32, palette, 8));
  REFUSED(CALL(NULL, "skn_skin", rig, pose, skn_ffi_record_value(sd)), "SKN_ERR_INVALID_ARGUMENT", "normals.data holds 32 bytes");
  skn_ffi_record_set(sd, "normals", (skn_ffi_value){SKN_FFI_NONE, SKN_FFI_BYTE, 0, {0}});
  skn_ffi_record_set(sd, "first_vertex", skn_ffi_u32(2));
  skn_ffi_record_set(sd, "vertex_count", skn_ffi_u32(2));
  REFUSED(CALL(NULL, "skn_skin", rig, pose, skn_ffi_record_value(sd)), "SKN_ERR_INDEX_OUT_OF_RANGE", NULL);
  skn_ffi_record_set(sd, "first_vertex", skn_ffi_u32(0));
  skn_ffi_record_set(sd, "vertex_count", skn_ffi_u32(0));
  skn_ffi_record_set(sd, "method", skn_ffi_u32(constant("SKN_METHOD_COR")));
  REFUSED(CALL(NULL, "skn_skin", rig, pose, skn_ffi_record_value(sd)), "SKN_ERR_UNSUPPORTED", NULL);
  int untouched = 1;
  for (int i = 0; i < 9; ++i) untouched &= out[i] == -7;
  EXPECT(untouched, "refused calls wrote nothing");
  skn_ffi_record_set(sd, "method", skn_ffi_u32(constant("SKN_METHOD_DQS")));
  EXPECT(!CALL(NULL, "skn_skin", rig, pose, skn_ffi_record_value(sd)) && out[4] == 1 && out[7] == 2, "%s", skn_ffi_last_error(f));
  REFUSED(CALL(NULL, "skn_pose_palette", pose, skn_ffi_u32(0), skn_ffi_array(SKN_FFI_FLOAT32, palette, 31), skn_ffi_size(128)),
          "SKN_ERR_INVALID_ARGUMENT", "dst holds 124 bytes, the call reads or writes 128");
  REFUSED(CALL(NULL, "skn_pose_palette", pose, skn_ffi_u32(0), skn_ffi_array(SKN_FFI_FLOAT32, palette, 31), skn_ffi_size(124)),
          "SKN_ERR_INVALID_ARGUMENT", NULL); /* the library: 124 bytes is short of 2 joints' 128 */
  EXPECT(!CALL(NULL, "skn_pose_palette", pose, skn_ffi_u32(0), skn_ffi_array(SKN_FFI_FLOAT32, palette, 32), skn_ffi_size(128)) &&
             palette[15] == 1, "%s", skn_ffi_last_error(f));
  REFUSED(CALL(NULL, "skn_pose_set_model", pose, skn_ffi_u32(0), skn_ffi_u32(2), skn_ffi_array(SKN_FFI_FLOAT32, palette, 31)),
          "SKN_ERR_INVALID_ARGUMENT", "joint_to_model16 holds 124 bytes, the call reads or writes 128");
  REFUSED(CALL(NULL, "skn_pose_set_local", pose, skn_ffi_u32(0), skn_ffi_u32(1), skn_ffi_array(SKN_FFI_FLOAT32, palette, 9)),
          "SKN_ERR_INVALID_ARGUMENT", "local holds 36 bytes");
  REFUSED(CALL(NULL, "skn_pose_set_local", pose, skn_ffi_u32(0), skn_ffi_u32(1), skn_ffi_array(SKN_FFI_UINT32, s.joints, 6)),
          "SKN_ERR_INVALID_ARGUMENT", "local: an array of the parameter's element type is needed");

  /* handles: the wrong kind, a destroyed one, a rig before its poses */
  REFUSED(CALL(NULL, "skn_skin", pose, pose, skn_ffi_record_value(sd)), "SKN_ERR_INVALID_ARGUMENT", "skin: rig: not a live handle");
  REFUSED(CALL(NULL, "skn_rig_destroy", rig), "SKN_ERR_INVALID_ARGUMENT", "1 poses of this rig are alive");
  EXPECT(!bind_small(d, &other), "%s", skn_ffi_last_error(f));
  REFUSED(CALL(NULL, "skn_skin", other, pose, skn_ffi_record_value(sd)), "SKN_ERR_INVALID_ARGUMENT", NULL); /* another rig's pose */
  EXPECT(!CALL(NULL, "skn_pose_destroy", pose), "%s", skn_ffi_last_error(f));
  REFUSED(CALL(NULL, "skn_skin", rig, pose, skn_ffi_record_value(sd)), "SKN_ERR_INVALID_ARGUMENT", "skin: pose: not a live handle");
  REFUSED(CALL(NULL, "skn_pose_destroy", pose), "SKN_ERR_INVALID_ARGUMENT", "pose_destroy: not a live pose handle");
  EXPECT(!CALL(NULL, "skn_rig_destroy", rig), "%s", skn_ffi_last_error(f));
  REFUSED(CALL(&pose, "skn_pose_create", rig), "SKN_ERR_INVALID_ARGUMENT", "pose_create: rig: not a live handle");
  skn_ffi_value rig2 = {0};
  EXPECT(!bind_small(d, &rig2) && rig2.as.handle != rig.as.handle, "a new rig in the freed slot is another handle");
  REFUSED(CALL(&pose, "skn_pose_create", rig), "SKN_ERR_INVALID_ARGUMENT", NULL); /* the old handle stays dead */
  skn_ffi_record_free(sd);

  /* glTF and GLSL */
  REFUSED(CALL(&other, "skn_gltf_open", skn_ffi_str("/nonexistent.gltf")), "SKN_ERR_IO", NULL);
  static const unsigned char glb[] = {'g', 'l', 'T', 'F', 2, 0, 0, 0, 1, 0, 0, 0, 0xec, 0xff, 0xff, 0xff, 'J', 'S', 'O', 'N', '{'};
  REFUSED(CALL(&other, "skn_gltf_open_memory", skn_ffi_array(SKN_FFI_BYTE, glb, 21), skn_ffi_size(21)), "SKN_ERR_PARSE", NULL);
  REFUSED(CALL(&other, "skn_gltf_open_memory", skn_ffi_array(SKN_FFI_BYTE, glb, 21), skn_ffi_size(22)),
          "SKN_ERR_INVALID_ARGUMENT", "data holds 21 bytes, the call reads or writes 22");
  skn_ffi_record *gd = skn_ffi_record_new(f, "skn_gpu_desc"), *gb = skn_ffi_record_new(f, "skn_gltf_bind_desc");
  skn_ffi_record_set(gd, "joint_count", skn_ffi_u32(2));
  skn_ffi_value length = {0};
  char text[8];
  EXPECT(!CALL(&length, "skn_glsl_source", skn_ffi_record_value(gd), (skn_ffi_value){SKN_FFI_NONE, SKN_FFI_BYTE, 0, {0}}, skn_ffi_size(0)) &&
             length.kind == SKN_FFI_SIZE && length.as.size > 1000, "the GLSL's length: %s", skn_ffi_last_error(f));
  REFUSED(CALL(&length, "skn_glsl_source", skn_ffi_record_value(gd), skn_ffi_array(SKN_FFI_BYTE, text, 8), skn_ffi_size(9)),
          "SKN_ERR_INVALID_ARGUMENT", "dst holds 8 bytes, the call reads or writes 9");
  skn_ffi_value doc = {0};
  EXPECT(!CALL(&doc, "skn_gltf_open", skn_ffi_str("data/gltf/SimpleSkin/glTF-Embedded/SimpleSkin.gltf")), "%s", skn_ffi_last_error(f));
  skn_ffi_record_set(gb, "blend_weights", skn_ffi_array(SKN_FFI_FLOAT32, out, 3));
  REFUSED(CALL(&other, "skn_gltf_bind", doc, skn_ffi_record_value(gb)), "SKN_ERR_INVALID_ARGUMENT", "blend_weights holds 12 bytes");
  skn_ffi_value index = {0};
  REFUSED(CALL(&index, "skn_gltf_find_animation", doc, skn_ffi_str("no such")), "SKN_ERR_INDEX_OUT_OF_RANGE", NULL);
  uint32_t tris[3];
  REFUSED(CALL(NULL, "skn_gltf_triangles", doc, skn_ffi_u32(0), skn_ffi_array(SKN_FFI_UINT32, tris, 3), skn_ffi_size(6)),
          "SKN_ERR_INVALID_ARGUMENT", "dst holds 12 bytes, the call reads or writes 24");
  skn_ffi_record_free(gd), skn_ffi_record_free(gb), skn_ffi_record_free(d);
  /* rig2, other rig and the document are left for skn_ffi_close, which frees them */
}

/* Two instances and their handles; records and results after and without
 * what they need (issue 43: #10, #11). `library` is the one main loaded. */
static void instances(const char *library) {
  char error[512];
  skn_ffi *g = skn_ffi_open(library, error, sizeof error);
  EXPECT(g != NULL, "a second instance: %s", error);
  if (!g) return;
  small s = small_rig();
  skn_ffi_record *d = small_desc(&s);
  skn_ffi_value rig = {0}, mine = {0}, pose = {0};
  EXPECT(!bind_small(d, &rig) && !CALL(&pose, "skn_pose_create", rig), "%s", skn_ffi_last_error(f));
  EXPECT(skn_ffi_call(g, "skn_bind", ARGS(skn_ffi_record_value(d)), &mine) == 1 &&
             strstr(skn_ffi_last_error(g), "a record of another skn_ffi instance"),
         "f's record in g: %s", skn_ffi_last_error(g));
  skn_ffi_record *e = skn_ffi_record_new(g, "skn_bind_desc"); /* g's own description of the same rig */
  const char *fields[] = {"joint_count", "vertex_count", "influences_per_vertex"};
  const uint32_t values[] = {2, 3, 2};
  for (int k = 0; k < 3; ++k) skn_ffi_record_set(e, fields[k], skn_ffi_u32(values[k]));
  skn_ffi_record_set(e, "bind_matrices", skn_ffi_array(SKN_FFI_FLOAT32, s.bind, 32));
  skn_ffi_record_set(e, "positions", skn_ffi_array(SKN_FFI_FLOAT32, s.positions, 9));
  skn_ffi_record_set(e, "influence_joints", skn_ffi_array(SKN_FFI_UINT32, s.joints, 6));
  skn_ffi_record_set(e, "influence_weights", skn_ffi_array(SKN_FFI_FLOAT32, s.weights, 6));
  EXPECT(!skn_ffi_call(g, "skn_bind", ARGS(skn_ffi_record_value(e)), &mine), "%s", skn_ffi_last_error(g));
  /* handles are numbered alike in every instance's slots: each is refused by the other */
  skn_ffi_value other_pose = {0};
  EXPECT(skn_ffi_call(g, "skn_pose_create", ARGS(rig), &other_pose) == 1 &&
             strstr(skn_ffi_last_error(g), "a handle of another skn_ffi instance"),
         "f's rig in g: %s", skn_ffi_last_error(g));
  EXPECT(skn_ffi_call(g, "skn_pose_destroy", ARGS(pose), NULL) == 1 &&
             strstr(skn_ffi_last_error(g), "another skn_ffi instance"), "f's pose destroyed by g: %s", skn_ffi_last_error(g));
  REFUSED(CALL(NULL, "skn_rig_destroy", mine), "SKN_ERR_INVALID_ARGUMENT", "another skn_ffi instance");
  EXPECT(!CALL(NULL, "skn_pose_destroy", pose), "f's own pose: %s", skn_ffi_last_error(f)); /* it was not destroyed */
  /* a result is required where the call makes a handle: one made and dropped could never be freed */
  REFUSED(CALL(NULL, "skn_bind", skn_ffi_record_value(d)), "SKN_ERR_INVALID_ARGUMENT", "bind: result is required");
  /* the length message names the call it was made for */
  skn_ffi_value p2 = {0};
  float w[1] = {1};
  EXPECT(!CALL(&p2, "skn_pose_create", rig), "%s", skn_ffi_last_error(f));
  REFUSED(CALL(NULL, "skn_pose_set_morph_weights", p2, skn_ffi_u32(0), skn_ffi_u32(2), skn_ffi_array(SKN_FFI_FLOAT32, w, 1)),
          "SKN_ERR_INVALID_ARGUMENT", "pose_set_morph_weights: weights holds 4 bytes");
  /* after close, g's records refuse set and get, and free as before (ASan: no use of the freed instance) */
  skn_ffi_close(g);
  EXPECT(skn_ffi_record_set(e, "joint_count", skn_ffi_u32(3)) == 1, "a record set after its instance closed");
  skn_ffi_value got;
  EXPECT(skn_ffi_record_get(e, "joint_count", &got) == 1, "a record read after its instance closed");
  skn_ffi_record_free(e);
  skn_ffi_record_free(d);
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: test_ffi LIBRARY REFERENCE_DIR LAYOUTS\n");
    return 2;
  }
  char error[512];
  if (!(f = skn_ffi_open(argv[1], error, sizeof error))) {
    printf("%s\nffi: 0 passed, 1 failed\n", error);
    return 1;
  }
  ref = argv[2];
  skn_ffi_value version = {0};
  EXPECT(!skn_ffi_call(f, "skn_version", NULL, 0, &version) && version.as.u32 / 10000 == 1, "version %u", version.as.u32);
  layouts(argv[3]);
  reference();
  bad_input();
  instances(argv[1]);
  skn_ffi_close(f);
  char bad[512];
  EXPECT(!skn_ffi_open("/nonexistent/libskn.so.1", bad, sizeof bad) && strstr(bad, "cannot load"), "%s", bad);
  printf("ffi: %d passed, %d failed\n", passed, failed);
  return failed != 0;
}
