/* test_hostile.c — documents made to hurt the host (issue 26's findings,
 * and the fuzzers' since, tests/fuzz/regressions), each refused with a
 * status and a message that says why, at a cost in proportion to its bytes.
 * The sanitized build runs these too: there, an over-read or a conversion
 * out of range (C99 6.3.1.4) fails the test. */
#include "testlib.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

Suite *suite_hostile(void) {
  Suite *s = suite_create("hostile");
  TCase *tc = tcase_create("hostile");
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, glb_length_below_its_header);
  tcase_add_test(tc, numbers_out_of_range);
  tcase_add_test(tc, counts_without_bytes);
  tcase_add_test(tc, buffers_that_lie);
  tcase_add_test(tc, memory_equals_file);
  suite_add_tcase(s, tc);
  return s;
}
