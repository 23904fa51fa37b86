/* test_hostile.c — documents made to hurt the host (issue 26's findings,
 * and the fuzzers' since, tests/fuzz/regressions), each refused with a
 * status and a message that says why, at a cost in proportion to its bytes.
 * The sanitized build runs these too: there, an over-read or a conversion
 * out of range (C99 6.3.1.4) fails the test. */
#include "testlib.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static skn_status open_text(const char *json, skn_gltf **out) {
  *out = NULL;
  return skn_gltf_open_memory(json, strlen(json), out);
}

static void refused(const char *json, skn_status want, const char *message) {
  skn_gltf *g;
  skn_status s = open_text(json, &g);
  ck_assert_msg(s == want && g == NULL, "%s: %s (%s)", json, skn_status_name(s), skn_last_error());
  ck_assert_msg(strstr(skn_last_error(), message), "%s: \"%s\" lacks \"%s\"", json, skn_last_error(), message);
}

/* A GLB whose header's length is below 20: the chunk check subtracted 20
 * from it in 32 bits and let cJSON read past the file (21 bytes, base64
 * Z2xURgIAAAABAAAA7P///0pTT057). */
START_TEST(glb_length_below_its_header) {
  static const uint8_t glb[21] = {'g', 'l', 'T', 'F', 2, 0, 0, 0, 1, 0, 0, 0, 0xEC, 0xFF, 0xFF, 0xFF,
                                  'J', 'S', 'O', 'N', '{'};
  skn_gltf *g = NULL;
  uint8_t *exact = malloc(sizeof glb); /* no slack after it: ASan sees a read past the end */
  memcpy(exact, glb, sizeof glb);
  skn_status s = skn_gltf_open_memory(exact, sizeof glb, &g);
  ck_assert_msg(s == SKN_ERR_PARSE && strstr(skn_last_error(), "GLB header's length 1 is smaller"), "%s: %s",
                skn_status_name(s), skn_last_error());
  free(exact);
  char path[] = "/tmp/skn-hostile-XXXXXX";
  int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  ck_assert_int_eq(write(fd, glb, sizeof glb), (int)sizeof glb);
  close(fd);
  ck_assert_int_eq(skn_gltf_open(path, &g), SKN_ERR_PARSE); /* the same from a file */
  unlink(path);
}
END_TEST

/* Members absent or out of range were converted to size_t, uint32_t or
 * int32_t before the failure was acted on: undefined behaviour (UBSan). */
START_TEST(numbers_out_of_range) {
  refused("{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{}]}", SKN_ERR_PARSE, "buffers[0].byteLength is required");
  refused("{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":4}],\"bufferViews\":[{\"buffer\":0}]}",
          SKN_ERR_PARSE, "bufferViews[0].byteLength is required");
  refused("{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"mesh\":1e10}]}", SKN_ERR_PARSE,
          "nodes[0].mesh is 1e+10, not an unsigned integer");
  refused("{\"asset\":{\"version\":\"2.0\"},\"meshes\":[{\"primitives\":[{\"attributes\":{},\"mode\":-4}]}]}",
          SKN_ERR_PARSE, "primitives[0].mode is -4, not an unsigned integer");
  refused("{\"asset\":{\"version\":\"2.0\"},\"accessors\":[{\"bufferView\":3e9,\"componentType\":5126,\"count\":1,"
          "\"type\":\"VEC3\"}]}", SKN_ERR_PARSE, "accessors[0].bufferView = 3000000000 is too large");
  refused("{\"asset\":{\"version\":\"2.0\"},\"accessors\":[{\"componentType\":5126,\"count\":1,\"type\":\"VEC3\","
          "\"sparse\":{\"count\":1e20,\"indices\":{\"bufferView\":0},\"values\":{\"bufferView\":0}}}]}",
          SKN_ERR_PARSE, "is 1e+20, not an unsigned integer");
}
END_TEST

/* Accessors without a bufferView are zeros, and may declare any count: a
 * 386-byte file of 4,294,967,295 vertices took 98 s to open and gigabytes
 * to bind. Opening now walks what the bytes hold; binding estimates first
 * and refuses what passes max_bytes. */
static const char *HUGE_ZEROS =
    "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"mesh\":0,\"skin\":0},{\"translation\":[0,0,0]}],"
    "\"skins\":[{\"joints\":[1]}],\"accessors\":[{\"componentType\":5126,\"count\":%u,\"type\":\"VEC3\"},"
    "{\"componentType\":5121,\"count\":%u,\"type\":\"VEC4\"},{\"componentType\":5126,\"count\":%u,\"type\":\"VEC4\"}],"
    "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"JOINTS_0\":1,\"WEIGHTS_0\":2},\"mode\":4}]}]}";

static skn_gltf *open_zeros(uint32_t count) {
  char json[1024];
  snprintf(json, sizeof json, HUGE_ZEROS, count, count, count);
  skn_gltf *g = NULL;
  ck_assert_msg(open_text(json, &g) == SKN_OK, "%u zeros: %s", count, skn_last_error());
  return g;
}

START_TEST(counts_without_bytes) {
  skn_gltf *g = open_zeros(4294967295u); /* would take 98 s if opening walked the elements */
  skn_gltf_primitive_info pi = {sizeof pi};
  ck_assert_int_eq(skn_gltf_primitive_info_get(g, 0, &pi), SKN_OK);
  ck_assert_uint_eq(pi.vertex_count, 4294967295u);
  skn_gltf_bind_desc bd = {sizeof bd};
  skn_rig *rig = (skn_rig *)g; /* a canary: a refusal leaves it */
  skn_status s = skn_gltf_bind(g, &bd, &rig);
  ck_assert_msg(s == SKN_ERR_UNSUPPORTED && strstr(skn_last_error(), "max_bytes (2048 MB)"), "%s: %s",
                skn_status_name(s), skn_last_error());
  ck_assert_ptr_eq(rig, (skn_rig *)g);
  skn_gltf_close(g);
  /* 20 million: over the default too; 1,000 binds and stays at the origin, and a
   * host's smaller cap refuses it */
  g = open_zeros(20000000);
  ck_assert_int_eq(skn_gltf_bind(g, &bd, &rig), SKN_ERR_UNSUPPORTED);
  skn_gltf_close(g);
  g = open_zeros(1000);
  ck_assert_int_eq(skn_gltf_bind(g, &bd, &rig), SKN_OK);
  skn_pose *pose = pose_or_fail(rig);
  float out[3000];
  skin_or_fail(rig, pose, SKN_METHOD_DQS, out, NULL, NULL);
  for (int i = 0; i < 3000; ++i) ck_assert(out[i] == 0.0f);
  skn_pose_destroy(pose);
  skn_rig_destroy(rig);
  bd.max_bytes = 1000;
  ck_assert_int_eq(skn_gltf_bind(g, &bd, &rig), SKN_ERR_UNSUPPORTED);
  skn_gltf_close(g);
}
END_TEST

/* Buffers that declare more than they hold are refused before byteLength
 * is allocated; a document in memory reads no file. */
START_TEST(buffers_that_lie) {
  refused("{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":4000000000,\"uri\":\"data:application/"
          "octet-stream;base64,AAAA\"}]}", SKN_ERR_PARSE, "4 characters of base64 cannot hold byteLength 4000000000");
  refused("{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":4,\"uri\":\"fox.bin\"}]}", SKN_ERR_IO,
          "buffers[0].uri \"fox.bin\": a document opened from memory");
  char dir[] = "/tmp/skn-hostile-XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  char gltf[64], bin[64];
  snprintf(gltf, sizeof gltf, "%s/a.gltf", dir);
  snprintf(bin, sizeof bin, "%s/a.bin", dir);
  FILE *f = fopen(gltf, "w");
  fputs("{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":4000000000,\"uri\":\"a.bin\"}]}", f);
  fclose(f);
  f = fopen(bin, "w");
  fputs("four", f);
  fclose(f);
  skn_gltf *g;
  ck_assert_int_eq(skn_gltf_open(gltf, &g), SKN_ERR_PARSE);
  ck_assert_msg(strstr(skn_last_error(), "has 4 bytes, byteLength is 4000000000"), "%s", skn_last_error());
  unlink(gltf), unlink(bin), rmdir(dir);
}
END_TEST

/* The same document from a file and from memory is the same document. */
START_TEST(memory_equals_file) {
  FILE *f = fopen("data/gltf/Fox/glTF-Binary/Fox.glb", "rb");
  ck_assert_ptr_nonnull(f);
  static uint8_t bytes[200000];
  size_t n = fread(bytes, 1, sizeof bytes, f);
  fclose(f);
  skn_gltf *a, *b;
  ck_assert_int_eq(skn_gltf_open("data/gltf/Fox/glTF-Binary/Fox.glb", &a), SKN_OK);
  ck_assert_int_eq(skn_gltf_open_memory(bytes, n, &b), SKN_OK);
  memset(bytes, 0, n); /* copied: the caller's bytes are theirs again */
  skn_gltf_bind_desc bd = {sizeof bd};
  skn_rig *ra, *rb;
  ck_assert_int_eq(skn_gltf_bind(a, &bd, &ra), SKN_OK);
  ck_assert_int_eq(skn_gltf_bind(b, &bd, &rb), SKN_OK);
  skn_pose *pa = pose_or_fail(ra), *pb = pose_or_fail(rb);
  ck_assert_int_eq(skn_gltf_pose(a, 0, 1, 0.3f, pa), SKN_OK);
  ck_assert_int_eq(skn_gltf_pose(b, 0, 1, 0.3f, pb), SKN_OK);
  static float oa[1728 * 3], ob[1728 * 3];
  skin_or_fail(ra, pa, SKN_METHOD_DQS, oa, NULL, NULL);
  skin_or_fail(rb, pb, SKN_METHOD_DQS, ob, NULL, NULL);
  ck_assert(!memcmp(oa, ob, sizeof oa));
  skn_pose_destroy(pa), skn_pose_destroy(pb);
  skn_rig_destroy(ra), skn_rig_destroy(rb);
  skn_gltf_close(a), skn_gltf_close(b);
}
END_TEST

/* ---- the files a document reads (issue 43) ---- */

/* A temporary folder T holding T/doc/ (where documents go) and T/elsewhere/
 * (a file outside their folder), removed by rm -rf at the end. */
typedef struct scratch {
  char root[64], doc[96], elsewhere[96];
} scratch;

static void scratch_make(scratch *t) {
  snprintf(t->root, sizeof t->root, "/tmp/skn-files-XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(t->root));
  snprintf(t->doc, sizeof t->doc, "%s/doc", t->root);
  snprintf(t->elsewhere, sizeof t->elsewhere, "%s/elsewhere", t->root);
  ck_assert_int_eq(mkdir(t->doc, 0700), 0);
  ck_assert_int_eq(mkdir(t->elsewhere, 0700), 0);
}

static void scratch_remove(scratch *t) {
  char command[128];
  snprintf(command, sizeof command, "rm -rf '%s'", t->root);
  ck_assert_int_eq(system(command), 0);
}

static char *read_all(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  ck_assert_ptr_nonnull(f);
  fseek(f, 0, SEEK_END);
  *n = (size_t)ftell(f);
  fseek(f, 0, SEEK_SET);
  char *text = malloc(*n + 1);
  ck_assert_uint_eq(fread(text, 1, *n, f), *n);
  fclose(f);
  text[*n] = 0;
  return text;
}

static void write_all(const char *path, const char *data, size_t n) {
  FILE *f = fopen(path, "wb");
  ck_assert_ptr_nonnull(f);
  ck_assert_uint_eq(fwrite(data, 1, n, f), n);
  fclose(f);
}

/* RiggedSimple.gltf written to `path` with its buffer's URI replaced by `uri`. */
static void write_rigged(const char *path, const char *uri) {
  size_t n;
  char *text = read_all("data/gltf/RiggedSimple/glTF/RiggedSimple.gltf", &n);
  const char *at = strstr(text, "\"RiggedSimple0.bin\"");
  ck_assert_ptr_nonnull(at);
  FILE *f = fopen(path, "wb");
  fprintf(f, "%.*s\"%s\"%s", (int)(at - text), text, uri, at + strlen("\"RiggedSimple0.bin\""));
  fclose(f);
  free(text);
}

static void copy_bin(const char *to) {
  size_t n;
  char *bin = read_all("data/gltf/RiggedSimple/glTF/RiggedSimple0.bin", &n);
  write_all(to, bin, n);
  free(bin);
}

/* skn_gltf_open_with of a file with `flags`; checks the status and, on
 * failure, that the message holds `message` and *out stayed NULL. */
static void open_expect(const char *path, uint32_t flags, skn_status want, const char *message) {
  skn_gltf_open_desc d = {sizeof d};
  d.path = path, d.flags = flags;
  skn_gltf *g = NULL;
  skn_status s = skn_gltf_open_with(&d, &g);
  ck_assert_msg(s == want, "%s (flags %u): %s, expected %s: %s", path, flags, skn_status_name(s),
                skn_status_name(want), skn_last_error());
  if (s != SKN_OK) {
    ck_assert_ptr_null(g);
    ck_assert_msg(strstr(skn_last_error(), message), "\"%s\" lacks \"%s\"", skn_last_error(), message);
  }
  skn_gltf_close(g);
}

/* A directory, a FIFO or a device as the document is refused by its kind
 * at once (a directory's ftell said 2^63 - 1 bytes; a FIFO blocked the open
 * for ever); so is a buffer that names one. The suite's timeout is the
 * time limit: a hang fails it. */
START_TEST(only_regular_files_are_read) {
  scratch t;
  scratch_make(&t);
  open_expect(t.doc, 0, SKN_ERR_IO, "is a directory, not a regular file");
  open_expect("/dev/null", 0, SKN_ERR_IO, "is a character device, not a regular file");
  char fifo[128], doc[128];
  snprintf(fifo, sizeof fifo, "%s/pipe.gltf", t.doc);
  ck_assert_int_eq(mkfifo(fifo, 0600), 0);
  open_expect(fifo, 0, SKN_ERR_IO, "is a FIFO, not a regular file");
  skn_gltf *g = NULL; /* the plain call, likewise */
  ck_assert_int_eq(skn_gltf_open(fifo, &g), SKN_ERR_IO);
  ck_assert_ptr_null(g);
  snprintf(doc, sizeof doc, "%s/a.gltf", t.doc);
  write_rigged(doc, "pipe.gltf");
  open_expect(doc, 0, SKN_ERR_IO, "buffers[0]: \"");
  open_expect(doc, 0, SKN_ERR_IO, "pipe.gltf\" is a FIFO, not a regular file");
  write_rigged(doc, "/proc/self/fd/0"); /* whatever stdin is: never read, never waited on */
  open_expect(doc, SKN_GLTF_OPEN_ANY_PATH, SKN_ERR_IO, "not a regular file");
  write_rigged(doc, "../../../../../../proc/self/fd/0");
  open_expect(doc, 0, SKN_ERR_IO, "climbs out of the document's folder");
  scratch_remove(&t);
}
END_TEST

/* A buffer's URI names a file in the document's folder, or is refused
 * before anything is read: `..` above it, absolute paths, symbolic links
 * out of it, other schemes, %00; SKN_GLTF_OPEN_ANY_PATH lets a host that
 * trusts its documents read the first three. */
START_TEST(uris_stay_in_the_documents_folder) {
  scratch t;
  scratch_make(&t);
  char doc[128], secret[128], sub[128], link[160];
  snprintf(doc, sizeof doc, "%s/a.gltf", t.doc);
  snprintf(secret, sizeof secret, "%s/RiggedSimple0.bin", t.elsewhere);
  copy_bin(secret);
  snprintf(sub, sizeof sub, "%s/sub", t.doc);
  ck_assert_int_eq(mkdir(sub, 0700), 0);
  static const char *const climbing[] = {"../elsewhere/RiggedSimple0.bin", "%2e%2e/elsewhere/RiggedSimple0.bin",
                                         "./sub/../../elsewhere/RiggedSimple0.bin"};
  for (int k = 0; k < 3; ++k) {
    write_rigged(doc, climbing[k]);
    open_expect(doc, 0, SKN_ERR_IO, "climbs out of the document's folder");
    open_expect(doc, 0, SKN_ERR_IO, "SKN_GLTF_OPEN_ANY_PATH allows it");
    open_expect(doc, SKN_GLTF_OPEN_ANY_PATH, SKN_OK, "");
  }
  write_rigged(doc, secret); /* absolute */
  open_expect(doc, 0, SKN_ERR_IO, "an absolute path, outside the document's folder");
  open_expect(doc, SKN_GLTF_OPEN_ANY_PATH, SKN_OK, "");
  write_rigged(doc, "/etc/passwd");
  open_expect(doc, 0, SKN_ERR_IO, "\"/etc/passwd\": an absolute path");
  snprintf(link, sizeof link, "%s/link.bin", t.doc); /* inside by name, outside in fact */
  ck_assert_int_eq(symlink(secret, link), 0);
  write_rigged(doc, "link.bin");
  open_expect(doc, 0, SKN_ERR_IO, "outside the document's folder");
  open_expect(doc, SKN_GLTF_OPEN_ANY_PATH, SKN_OK, "");
  write_rigged(doc, "file:///etc/passwd");
  open_expect(doc, SKN_GLTF_OPEN_ANY_PATH, SKN_ERR_IO, "a URI of another scheme");
  write_rigged(doc, "RiggedSimple0.bin%00.png");
  open_expect(doc, SKN_GLTF_OPEN_ANY_PATH, SKN_ERR_IO, "decodes to a path with a NUL byte");
  /* what stays inside loads: a subfolder, a detour through one, a link within the folder */
  snprintf(sub, sizeof sub, "%s/sub/RiggedSimple0.bin", t.doc);
  copy_bin(sub);
  static const char *const inside[] = {"sub/RiggedSimple0.bin", "sub%2FRiggedSimple0.bin", "sub/../sub/./RiggedSimple0.bin",
                                       "inner.bin"};
  snprintf(link, sizeof link, "%s/inner.bin", t.doc);
  ck_assert_int_eq(symlink("sub/RiggedSimple0.bin", link), 0);
  for (int k = 0; k < 4; ++k) {
    write_rigged(doc, inside[k]);
    open_expect(doc, 0, SKN_OK, "");
  }
  scratch_remove(&t);
}
END_TEST

/* skn_gltf_open_with: one of path and data, known flags; a document in
 * memory reads its relative URIs from the folder it is given, by the same
 * rules. */
START_TEST(open_with_its_choices) {
  skn_gltf_open_desc d = {sizeof d};
  skn_gltf *g = NULL;
  ck_assert_int_eq(skn_gltf_open_with(&d, &g), SKN_ERR_INVALID_ARGUMENT);
  ck_assert_msg(strstr(skn_last_error(), "give exactly one of path and data (neither given)"), "%s", skn_last_error());
  d.path = "data/gltf/Fox/glTF-Binary/Fox.glb", d.data = "glTF", d.size = 4;
  ck_assert_int_eq(skn_gltf_open_with(&d, &g), SKN_ERR_INVALID_ARGUMENT);
  d.data = NULL, d.flags = 2;
  ck_assert_int_eq(skn_gltf_open_with(&d, &g), SKN_ERR_INVALID_ARGUMENT);
  ck_assert_msg(strstr(skn_last_error(), "unknown flags 0x2"), "%s", skn_last_error());
  ck_assert_ptr_null(g);
  d.struct_size = 8;
  ck_assert_int_eq(skn_gltf_open_with(&d, &g), SKN_ERR_INVALID_ARGUMENT);
  size_t n;
  char *text = read_all("data/gltf/RiggedSimple/glTF/RiggedSimple.gltf", &n);
  skn_gltf_open_desc m = {sizeof m};
  m.data = text, m.size = n;
  ck_assert_int_eq(skn_gltf_open_with(&m, &g), SKN_ERR_IO); /* no folder: no file */
  m.folder = "data/gltf/RiggedSimple/glTF";
  ck_assert_msg(skn_gltf_open_with(&m, &g) == SKN_OK, "%s", skn_last_error());
  skn_gltf_close(g);
  m.folder = "data/gltf/RiggedSimple/glTF/";
  ck_assert_msg(skn_gltf_open_with(&m, &g) == SKN_OK, "%s", skn_last_error());
  skn_gltf_close(g);
  m.folder = "data/gltf/RiggedSimple/glTF/../../Fox"; /* the folder's own .. is the host's to choose */
  ck_assert_int_eq(skn_gltf_open_with(&m, &g), SKN_ERR_IO);
  ck_assert_msg(strstr(skn_last_error(), "cannot open"), "%s", skn_last_error());
  free(text);
}
END_TEST

/* skn_gltf_pose took any rig of the skin's joint count: a rig of another
 * document (RiggedSimple and SimpleSkin both have 2 joints) was posed by
 * the wrong skeleton without a word. The rig must come from this skin; the
 * same skin in another file (the document reopened) passes. */
START_TEST(a_rig_is_posed_by_its_own_skin) {
  skn_gltf *rigged, *simple, *again;
  ck_assert_int_eq(skn_gltf_open("data/gltf/RiggedSimple/glTF/RiggedSimple.gltf", &rigged), SKN_OK);
  ck_assert_int_eq(skn_gltf_open("data/gltf/SimpleSkin/glTF-Embedded/SimpleSkin.gltf", &simple), SKN_OK);
  ck_assert_int_eq(skn_gltf_open("data/gltf/RiggedSimple/glTF/RiggedSimple.gltf", &again), SKN_OK);
  skn_gltf_bind_desc bd = {sizeof bd};
  skn_rig *rig;
  ck_assert_int_eq(skn_gltf_bind(rigged, &bd, &rig), SKN_OK);
  skn_pose *pose = pose_or_fail(rig);
  float before[16 * 2], after[16 * 2];
  ck_assert_int_eq(skn_gltf_pose(rigged, 0, 0, 0.5f, pose), SKN_OK);
  ck_assert_int_eq(skn_pose_palette(pose, SKN_PALETTE_MAT4, before, sizeof before), SKN_OK);
  ck_assert_int_eq(skn_gltf_pose(simple, 0, 0, 0.5f, pose), SKN_ERR_INVALID_ARGUMENT);
  ck_assert_msg(strstr(skn_last_error(), "not bound from primitive 0's skins[0] (its joints, hierarchy or inverse"),
                "%s", skn_last_error());
  ck_assert_int_eq(skn_pose_palette(pose, SKN_PALETTE_MAT4, after, sizeof after), SKN_OK);
  ck_assert(!memcmp(before, after, sizeof before)); /* untouched */
  ck_assert_int_eq(skn_gltf_pose(again, 0, 0, 0.5f, pose), SKN_OK);
  /* a rig of the same joint count that skn_bind made */
  test_rig t;
  skn_pose *other;
  skn_rig *mine = posed_random_rig(&t, 43, 2, 8, 2, 0, &other);
  ck_assert_int_eq(skn_gltf_pose(rigged, 0, 0, 0.5f, other), SKN_ERR_INVALID_ARGUMENT);
  ck_assert_msg(strstr(skn_last_error(), "it was bound by skn_bind"), "%s", skn_last_error());
  skn_pose_destroy(other), skn_rig_destroy(mine), test_rig_free(&t);
  skn_pose_destroy(pose), skn_rig_destroy(rig);
  skn_gltf_close(rigged), skn_gltf_close(simple), skn_gltf_close(again);
}
END_TEST

/* ---- a pose used by two threads at once (issue 43: #4, #5) ----
 * skn.h gives a pose to one thread at a time; a host that breaks the rule
 * gets torn results, but the library itself must stay memory-safe and keep
 * nothing stale: morph cursors were sized at entry while the active list
 * grew under them (a write past the span, SIGSEGV), and DQS's forms could
 * be derived from a half-written palette and kept after it was whole. */
enum { MISUSE_ROUNDS = 2000, MISUSE_TARGETS = 40 };

typedef struct misuse {
  skn_rig *rig;
  skn_pose *pose;
  const skn_transform *a, *b;
  const float *many, *one;
  uint32_t joints;
} misuse;

static void *misuse_setter(void *p) {
  const misuse *m = p;
  for (int i = 0; i < MISUSE_ROUNDS; ++i) {
    skn_pose_set_local(m->pose, 0, m->joints, i % 2 ? m->a : m->b);
    skn_pose_set_morph_weights(m->pose, 0, MISUSE_TARGETS, i % 2 ? m->many : m->one);
  }
  return NULL;
}

static void *misuse_skinner(void *p) {
  const misuse *m = p;
  skn_skin_desc d = {sizeof d};
  d.method = SKN_METHOD_DQS, d.threads = 1;
  d.positions.data = malloc(2000 * 12);
  for (int i = 0; i < MISUSE_ROUNDS; ++i) skn_skin(m->rig, m->pose, &d);
  free(d.positions.data);
  return NULL;
}

START_TEST(a_pose_misused_from_two_threads) {
  test_rig t;
  test_rig_random(&t, 4305, 200, 2000, 4, 1);
  skn_bind_desc d = test_rig_desc(&t);
  static skn_morph_target targets[MISUSE_TARGETS];
  static uint32_t vertices[MISUSE_TARGETS][400];
  static float offsets[MISUSE_TARGETS][400 * 3], many[MISUSE_TARGETS], one[MISUSE_TARGETS];
  rng r = {4305};
  for (int k = 0; k < MISUSE_TARGETS; ++k) {
    uint32_t n = 50 + 8 * (uint32_t)k, v = rng_below(&r, 100);
    for (uint32_t e = 0; e < n; ++e, v += 1 + rng_below(&r, 3)) vertices[k][e] = v;
    for (uint32_t e = 0; e < 3 * n; ++e) offsets[k][e] = (float)rng_uniform(&r, -0.1, 0.1);
    targets[k].count = n, targets[k].vertices = vertices[k], targets[k].positions.data = offsets[k];
    many[k] = (float)rng_uniform(&r, 0.2, 1.0);
  }
  one[3] = 0.7f;
  d.morph_targets = targets, d.morph_target_count = MISUSE_TARGETS;
  skn_rig *rig = bind_or_fail(&d);
  skn_transform *b = malloc(200 * sizeof *b);
  for (int j = 0; j < 200; ++j) b[j] = t.pose[199 - j];
  misuse m = {rig, pose_or_fail(rig), t.pose, b, many, one, 200};
  pthread_t threads[2];
  ck_assert_int_eq(pthread_create(&threads[0], NULL, misuse_setter, &m), 0);
  ck_assert_int_eq(pthread_create(&threads[1], NULL, misuse_skinner, &m), 0);
  pthread_join(threads[0], NULL), pthread_join(threads[1], NULL);
  /* both stopped: the pose skins as a fresh pose set the same way, bit for bit */
  skn_pose *fresh = pose_or_fail(rig);
  const skn_transform *last[2] = {b, t.pose};
  const float *weights[2] = {one, many};
  static float got[2000 * 3], want[2000 * 3];
  for (int k = 0; k < 2; ++k) {
    ck_assert_int_eq(skn_pose_set_local(m.pose, 0, 200, last[k]), SKN_OK);
    ck_assert_int_eq(skn_pose_set_morph_weights(m.pose, 0, MISUSE_TARGETS, weights[k]), SKN_OK);
    ck_assert_int_eq(skn_pose_set_local(fresh, 0, 200, last[k]), SKN_OK);
    ck_assert_int_eq(skn_pose_set_morph_weights(fresh, 0, MISUSE_TARGETS, weights[k]), SKN_OK);
    skin_or_fail(rig, m.pose, SKN_METHOD_DQS, got, NULL, NULL);
    skin_or_fail(rig, fresh, SKN_METHOD_DQS, want, NULL, NULL);
    ck_assert_msg(!memcmp(got, want, sizeof got), "pose %d: the misused pose skins otherwise than a fresh one", k);
  }
  skn_pose_destroy(fresh), skn_pose_destroy(m.pose), skn_rig_destroy(rig);
  free(b);
  test_rig_free(&t);
}
END_TEST

Suite *suite_hostile(void) {
  Suite *s = suite_create("hostile");
  TCase *tc = tcase_create("hostile");
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, glb_length_below_its_header);
  tcase_add_test(tc, numbers_out_of_range);
  tcase_add_test(tc, counts_without_bytes);
  tcase_add_test(tc, buffers_that_lie);
  tcase_add_test(tc, memory_equals_file);
  tcase_add_test(tc, only_regular_files_are_read);
  tcase_add_test(tc, uris_stay_in_the_documents_folder);
  tcase_add_test(tc, open_with_its_choices);
  tcase_add_test(tc, a_rig_is_posed_by_its_own_skin);
  tcase_add_test(tc, a_pose_misused_from_two_threads);
  suite_add_tcase(s, tc);
  return s;
}
