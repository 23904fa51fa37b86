/* test_gpu.c — the GPU calls without a GPU (section 6 of skn.h): the
 * palette holds the forms skn_pose_palette gives for the same pose, in the
 * layout skn_gpu_layout_get states; LBS_QUATERNION's two texels rebuild
 * M_i; the attributes are the rig's influences; the text has the functions
 * asked for; and every bad request is refused, naming the item, with
 * nothing written. (tests/gl runs the text on Mesa against skn_skin.) */
#include "testlib.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static skn_gpu_desc gpu_desc(skn_method m, uint32_t outputs) {
  skn_gpu_desc d = {sizeof d};
  d.method = m;
  d.outputs = outputs;
  d.palette = SKN_GLSL_PALETTE_TEXTURE_2D;
  return d;
}

static float *gpu_palette(const skn_pose *pose, const skn_gpu_desc *d, uint32_t joints, uint32_t *vec4s) {
  skn_gpu_layout layout = {sizeof layout};
  ck_assert_int_eq(skn_gpu_layout_get(d, &layout), SKN_OK);
  size_t bytes = (size_t)joints * layout.palette_vec4s * 16;
  float *p = malloc(bytes);
  ck_assert_msg(skn_pose_gpu_palette(pose, d, p, bytes) == SKN_OK, "%s", skn_last_error());
  *vec4s = layout.palette_vec4s;
  return p;
}

/* Joint j's texels [first, first + count) against a skn_pose_palette
 * format's entry of `floats` (its first count * 4 floats). */
static void same_texels(const float *gpu, uint32_t vec4s, int first, const float *cpu, int floats, uint32_t joints) {
  for (uint32_t j = 0; j < joints; ++j)
    ck_assert_msg(!memcmp(gpu + (j * vec4s + first) * 4, cpu + j * floats, (size_t)floats * sizeof(float)),
                  "joint %u: texels %d.. differ from skn_pose_palette's", j, first);
}

START_TEST(palette_holds_the_pose_forms) {
  test_rig t;
  skn_pose *pose;
  skn_rig *rig = posed_random_rig(&t, 3, 30, 50, 4, 2, &pose);
  uint32_t n = 30, vec4s;
  float *rows = malloc(n * 48), *normals = malloc(n * 48), *dq[2] = {malloc(n * 80), malloc(n * 80)};
  ck_assert_int_eq(skn_pose_palette(pose, SKN_PALETTE_ROWS3X4, rows, n * 48), SKN_OK);
  ck_assert_int_eq(skn_pose_palette(pose, SKN_PALETTE_NORMAL_ROWS3X4, normals, n * 48), SKN_OK);
  ck_assert_int_eq(skn_pose_palette(pose, SKN_PALETTE_DUAL_QUAT_SCALE, dq[0], n * 80), SKN_OK);
  ck_assert_int_eq(skn_pose_palette(pose, SKN_PALETTE_DUAL_QUAT_SCALE_KEEP_Y, dq[1], n * 80), SKN_OK);
  /* LBS: M's rows, then N's with normals */
  skn_gpu_desc d = gpu_desc(SKN_METHOD_LBS_MATRIX, 0);
  float *p = gpu_palette(pose, &d, n, &vec4s);
  ck_assert_uint_eq(vec4s, 3);
  same_texels(p, vec4s, 0, rows, 12, n);
  free(p);
  d.outputs = SKN_GPU_NORMALS | SKN_GPU_TANGENTS;
  p = gpu_palette(pose, &d, n, &vec4s);
  ck_assert_uint_eq(vec4s, 6);
  same_texels(p, vec4s, 0, rows, 12, n);
  same_texels(p, vec4s, 3, normals, 12, n);
  free(p);
  /* DQS, BLEND, COR under both splits: the dual quaternion and S first */
  for (int m = SKN_METHOD_DQS; m <= SKN_METHOD_COR; ++m)
    for (int split = 0; split < 2; ++split) {
      d = gpu_desc((skn_method)m, SKN_GPU_NORMALS);
      d.dqs_scale = (skn_dqs_scale)split;
      p = gpu_palette(pose, &d, n, &vec4s);
      ck_assert_uint_eq(vec4s, m == SKN_METHOD_DQS ? 5 : 11);
      same_texels(p, vec4s, 0, dq[split], 20, n);
      if (m != SKN_METHOD_DQS) same_texels(p, vec4s, 5, rows, 12, n), same_texels(p, vec4s, 8, normals, 12, n);
      free(p);
    }
  free(rows), free(normals), free(dq[0]), free(dq[1]);
  skn_pose_destroy(pose);
  skn_rig_destroy(rig);
  test_rig_free(&t);
}
END_TEST

/* LBS_QUATERNION's texels (q, then t and s) rebuild M_i = [s R(q) | t]. */
START_TEST(quaternion_texels_rebuild_the_matrix) {
  test_rig t;
  skn_pose *pose;
  skn_rig *rig = posed_random_rig(&t, 4, 25, 20, 4, 1, &pose);
  uint32_t n = 25, vec4s;
  float *m4 = malloc(n * 64);
  ck_assert_int_eq(skn_pose_palette(pose, SKN_PALETTE_MAT4, m4, n * 64), SKN_OK);
  skn_gpu_desc d = gpu_desc(SKN_METHOD_LBS_QUATERNION, SKN_GPU_NORMALS);
  float *p = gpu_palette(pose, &d, n, &vec4s);
  ck_assert_uint_eq(vec4s, 2);
  for (uint32_t j = 0; j < n; ++j) {
    const float *q = p + j * 8, *ts = q + 4, *m = m4 + j * 16;
    double x = q[0], y = q[1], z = q[2], w = q[3], s = ts[3];
    double r[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)},
                      {2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)},
                      {2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)}};
    double scale = fabs(m[0]) + fabs(m[1]) + fabs(m[2]) + 1;
    for (int row = 0; row < 3; ++row) {
      for (int c = 0; c < 3; ++c) ck_assert_double_le(fabs(s * r[row][c] - m[c * 4 + row]), 1e-5 * scale);
      ck_assert_double_le(fabs(ts[row] - m[12 + row]), 1e-5 * (fabs(m[12 + row]) + 1));
    }
  }
  free(m4), free(p);
  skn_pose_destroy(pose);
  skn_rig_destroy(rig);
  test_rig_free(&t);
}
END_TEST

/* The attributes are the bound influences: joints and weights normalized,
 * in the order given, padded with weight 0; 8-bit joints; strides. */
START_TEST(attributes_are_the_rig_influences) {
  test_rig t;
  test_rig_random(&t, 5, 12, 40, 3, 0);
  float blend[40];
  uint32_t tris[39];
  for (int v = 0; v < 40; ++v) blend[v] = (float)v / 40.0f;
  for (int i = 0; i < 39; ++i) tris[i] = (uint32_t)i;
  skn_bind_desc bd = test_rig_desc(&t);
  bd.blend_weights = blend;
  bd.triangles = tris;
  bd.triangle_count = 13;
  skn_rig *rig = bind_or_fail(&bd);
  struct { uint8_t joints[8]; float weights[8]; float blend, center[4], pos[3]; } rec[40];
  memset(rec, 0xAB, sizeof rec);
  skn_gpu_attributes a = {sizeof a};
  a.influences = 8;
  a.joint_bits = 8;
  a.joints = (skn_out_attrib){rec[0].joints, sizeof rec[0]};
  a.weights = (skn_out_attrib){rec[0].weights, sizeof rec[0]};
  a.blend_weights = (skn_out_attrib){&rec[0].blend, sizeof rec[0]};
  a.centers = (skn_out_attrib){rec[0].center, sizeof rec[0]};
  a.positions = (skn_out_attrib){rec[0].pos, sizeof rec[0]};
  ck_assert_msg(skn_rig_gpu_attributes(rig, &a) == SKN_OK, "%s", skn_last_error());
  int centers = 0;
  for (uint32_t v = 0; v < 40; ++v) {
    double sum = 0;
    for (int i = 0; i < 3; ++i) sum += t.weights[v * 3 + i];
    for (int i = 0; i < 8; ++i) {
      ck_assert_uint_eq(rec[v].joints[i], i < 3 ? t.joints[v * 3 + i] : 0);
      ck_assert_double_le(fabs(rec[v].weights[i] - (i < 3 ? t.weights[v * 3 + i] / sum : 0)), 1e-6);
    }
    ck_assert(rec[v].blend == blend[v]);
    ck_assert(!memcmp(rec[v].pos, t.positions + v * 3, 12));
    ck_assert(rec[v].center[3] == 0.0f || rec[v].center[3] == 1.0f);
    centers += rec[v].center[3] == 1.0f;
  }
  ck_assert_int_gt(centers, 0);
  skn_rig_destroy(rig);
  test_rig_free(&t);
}
END_TEST

/* The text: its length as asked, the functions asked for and no others,
 * the palette's declaration by transport, and no #version on request. */
START_TEST(text_has_what_was_asked) {
  for (uint32_t outputs = 0; outputs < 4; ++outputs) {
    skn_gpu_desc d = gpu_desc(SKN_METHOD_BLEND, outputs);
    d.palette = SKN_GLSL_PALETTE_UNIFORM_BLOCK;
    d.joint_count = 7;
    size_t n = 0, m = 0;
    ck_assert_int_eq(skn_glsl_source(&d, NULL, 0, &n), SKN_OK);
    char *text = malloc(n + 1);
    ck_assert_int_eq(skn_glsl_source(&d, text, n + 1, &m), SKN_OK);
    ck_assert_uint_eq(m, n);
    ck_assert_uint_eq(strlen(text), n);
    ck_assert(strstr(text, "vec3 skn_skin_position(vec3 rest_position) {"));
    ck_assert(!strstr(text, "vec3 skn_skin_normal(vec3 rest_normal) {") == !(outputs & SKN_GPU_NORMALS));
    ck_assert(!strstr(text, "vec4 skn_skin_tangent(vec4 rest_tangent) {") == !(outputs & SKN_GPU_TANGENTS));
    ck_assert(strstr(text, "#version 330 core\n"));
    ck_assert(strstr(text, "uniform SknPalette") && strstr(text, "in float skn_blend;"));
    ck_assert(strstr(text, "const int SKN_PALETTE_JOINTS = 7;"));
    ck_assert(!strstr(text, "//! ")); /* the section markers stay in the pieces */
    free(text);
  }
  skn_gpu_desc d = gpu_desc(SKN_METHOD_COR, 0);
  d.dialect = SKN_GLSL_300_ES;
  d.influences = 8;
  d.flags = SKN_GLSL_NO_VERSION;
  char text[16384];
  size_t n;
  ck_assert_int_eq(skn_glsl_source(&d, text, sizeof text, &n), SKN_OK);
  ck_assert(!strstr(text, "#version") && strstr(text, "uniform highp sampler2D skn_palette;"));
  ck_assert(strstr(text, "in uvec4 skn_joints1;") && strstr(text, "in vec4 skn_center;"));
}
END_TEST

START_TEST(set_error_is_last_error) {
  ck_assert_int_eq(skn_set_error(SKN_ERR_UNSUPPORTED, "adapter: no GL 3.3"), SKN_ERR_UNSUPPORTED);
  ck_assert_str_eq(skn_last_error(), "adapter: no GL 3.3");
  ck_assert_int_eq(skn_set_error(SKN_ERR_IO, NULL), SKN_ERR_IO);
  ck_assert_str_eq(skn_last_error(), "");
  const skn_api *api = skn_get_api(SKN_VERSION_MAJOR);
  ck_assert(api->struct_size == sizeof *api && api->glsl_source == skn_glsl_source &&
            api->rig_gpu_attributes == skn_rig_gpu_attributes && api->set_error == skn_set_error);
}
END_TEST

/* ---- the bad requests: status, the item named, nothing written ---- */

typedef struct gpu_row {
  const char *what, *message;
  skn_status status;
} gpu_row;

static const gpu_row TEXT_ROWS[] = {
    {"influences 5", "influences 5", SKN_ERR_INVALID_ARGUMENT},
    {"ES texture buffer", "no texture buffers", SKN_ERR_INVALID_ARGUMENT},
    {"uniform block of 0 joints", "needs joint_count", SKN_ERR_INVALID_ARGUMENT},
    {"method 9", "method 9", SKN_ERR_INVALID_ARGUMENT},
    {"split 2", "dqs_scale 2", SKN_ERR_INVALID_ARGUMENT},
    {"outputs bit 4", "outputs 0x4", SKN_ERR_INVALID_ARGUMENT},
    {"dialect 4", "dialect 4", SKN_ERR_INVALID_ARGUMENT},
    {"palette 4", "palette 4", SKN_ERR_INVALID_ARGUMENT},
    {"flags 0x40", "flags 0x40", SKN_ERR_INVALID_ARGUMENT},
    {"a compute shader in GLSL 3.30", "SKN_GLSL_COMPUTE needs dialect SKN_GLSL_430", SKN_ERR_INVALID_ARGUMENT},
    {"previous positions without a compute shader", "add SKN_GLSL_COMPUTE", SKN_ERR_INVALID_ARGUMENT},
    {"a storage buffer palette in GLSL 3.30", "a storage buffer palette needs", SKN_ERR_INVALID_ARGUMENT},
    {"vertex morphs without their count", "needs joint_count and morph_target_count", SKN_ERR_INVALID_ARGUMENT},
    {"struct_size 8", "struct_size 8", SKN_ERR_INVALID_ARGUMENT},
    {"the VAT player with a compute flag", "SKN_GLSL_VAT_PLAYER takes SKN_GLSL_NO_VERSION alone",
     SKN_ERR_INVALID_ARGUMENT},
    {"the VAT player in dialect 4", "dialect 4", SKN_ERR_INVALID_ARGUMENT},
    {"dst too small", "dst_bytes 64", SKN_ERR_INVALID_ARGUMENT},
};

START_TEST(text_bad_request) {
  skn_gpu_desc d = gpu_desc(SKN_METHOD_DQS, SKN_GPU_NORMALS);
  size_t bytes = 1 << 16, length = 12345;
  switch (_i) {
  case 0: d.influences = 5; break;
  case 1: d.dialect = SKN_GLSL_300_ES, d.palette = SKN_GLSL_PALETTE_TEXTURE_BUFFER; break;
  case 2: d.palette = SKN_GLSL_PALETTE_UNIFORM_BLOCK; break;
  case 3: d.method = (skn_method)9; break;
  case 4: d.dqs_scale = (skn_dqs_scale)2; break;
  case 5: d.outputs = 4; break;
  case 6: d.dialect = (skn_glsl_dialect)4; break;
  case 7: d.palette = (skn_glsl_palette)4; break;
  case 8: d.flags = 0x40; break;
  case 9: d.flags = SKN_GLSL_COMPUTE; break;
  case 10: d.dialect = SKN_GLSL_430, d.flags = SKN_GLSL_PREVIOUS; break;
  case 11: d.palette = SKN_GLSL_PALETTE_STORAGE_BUFFER; break;
  case 12: d.flags = SKN_GLSL_MORPHS, d.joint_count = 3; break;
  case 13: d.struct_size = 8; break;
  case 14: d.flags = SKN_GLSL_VAT_PLAYER | SKN_GLSL_COMPUTE; break;
  case 15: d.flags = SKN_GLSL_VAT_PLAYER, d.dialect = (skn_glsl_dialect)4; break;
  default: bytes = 64; break;
  }
  char *dst = malloc(1 << 16);
  memset(dst, 0x5A, 1 << 16);
  skn_status s = skn_glsl_source(&d, dst, bytes, &length);
  ck_assert_msg(s == TEXT_ROWS[_i].status, "%s: %s", TEXT_ROWS[_i].what, skn_status_name(s));
  ck_assert_msg(strstr(skn_last_error(), TEXT_ROWS[_i].message), "%s: \"%s\"", TEXT_ROWS[_i].what, skn_last_error());
  ck_assert_uint_eq(length, 12345);
  for (int i = 0; i < 1 << 16; ++i) ck_assert_int_eq(dst[i], 0x5A);
  free(dst);
}
END_TEST

static const gpu_row OTHER_ROWS[] = {
    {"palette dst too small", "dst_bytes 16", SKN_ERR_INVALID_ARGUMENT},
    {"palette block of fewer joints", "holds 2 joints", SKN_ERR_INVALID_ARGUMENT},
    {"LBS_QUATERNION palette of a sheared pose", "LBS_QUATERNION", SKN_ERR_UNSUPPORTED},
    {"attributes: joint_bits 12", "joint_bits 12", SKN_ERR_INVALID_ARGUMENT},
    {"attributes: 8-bit joints of 300", "300 joints do not fit 8-bit", SKN_ERR_INVALID_ARGUMENT},
    {"attributes: 5 influences a vertex as 4", "max_influences = 4", SKN_ERR_UNSUPPORTED},
    {"attributes: blend weights the rig lacks", "blend_weights requested", SKN_ERR_INVALID_ARGUMENT},
    {"attributes: centers the rig lacks", "centers requested", SKN_ERR_INVALID_ARGUMENT},
    {"attributes: tangents the rig lacks", "tangents requested", SKN_ERR_INVALID_ARGUMENT},
    {"attributes: stride too small", "stride 4", SKN_ERR_INVALID_ARGUMENT},
    {"attributes: influences 6", "influences 6", SKN_ERR_INVALID_ARGUMENT},
    {"attributes: morph ranges of a rig without targets", "morph_ranges requested", SKN_ERR_INVALID_ARGUMENT},
    {"buffers: a vertex shader's without morphs", "reads no buffer", SKN_ERR_INVALID_ARGUMENT},
    {"buffers: tangents the rig lacks", "desc asks tangents", SKN_ERR_INVALID_ARGUMENT},
    {"buffers: BLEND without blend weights", "BLEND needs", SKN_ERR_INVALID_ARGUMENT},
    {"palette: morph weights of a rig without them", "desc is for 300 joints and 2 morph targets", SKN_ERR_INVALID_ARGUMENT},
};

START_TEST(palette_and_attributes_bad_request) {
  test_rig t;
  skn_pose *pose;
  /* 300 joints, 5 influences a vertex, scaled and sheared, no tangents */
  test_rig_random(&t, 6, 300, 20, 5, 2);
  skn_bind_desc bd = test_rig_desc(&t);
  bd.tangents.data = NULL;
  skn_rig *rig = bind_or_fail(&bd);
  pose = pose_or_fail(rig);
  ck_assert_int_eq(skn_pose_set_local(pose, 0, 300, t.pose), SKN_OK);
  static float out[300 * 11 * 4];
  memset(out, 0x5A, sizeof out);
  skn_gpu_desc d = gpu_desc(SKN_METHOD_DQS, 0);
  skn_gpu_attributes a = {sizeof a};
  a.influences = 8;
  a.weights = (skn_out_attrib){out, 0};
  skn_status s;
  skn_gpu_desc compute = gpu_desc(SKN_METHOD_DQS, SKN_GPU_NORMALS | SKN_GPU_TANGENTS);
  compute.dialect = SKN_GLSL_430, compute.flags = SKN_GLSL_COMPUTE;
  skn_gpu_buffers b = {sizeof b};
  b.rest = out, b.influences = (uint32_t *)out;
  switch (_i) {
  case 0: s = skn_pose_gpu_palette(pose, &d, out, 16); break;
  case 1: d.palette = SKN_GLSL_PALETTE_UNIFORM_BLOCK, d.joint_count = 2; s = skn_pose_gpu_palette(pose, &d, out, sizeof out); break;
  case 2: d.method = SKN_METHOD_LBS_QUATERNION; s = skn_pose_gpu_palette(pose, &d, out, sizeof out); break;
  case 3: a.joint_bits = 12; s = skn_rig_gpu_attributes(rig, &a); break;
  case 4: a.joint_bits = 8, a.joints = (skn_out_attrib){out, 0}; s = skn_rig_gpu_attributes(rig, &a); break;
  case 5: a.influences = 4; s = skn_rig_gpu_attributes(rig, &a); break;
  case 6: a.blend_weights = (skn_out_attrib){out, 0}; s = skn_rig_gpu_attributes(rig, &a); break;
  case 7: a.centers = (skn_out_attrib){out, 0}; s = skn_rig_gpu_attributes(rig, &a); break;
  case 8: a.tangents = (skn_out_attrib){out, 0}; s = skn_rig_gpu_attributes(rig, &a); break;
  case 9: a.weights.stride = 4; s = skn_rig_gpu_attributes(rig, &a); break;
  case 10: a.influences = 6; s = skn_rig_gpu_attributes(rig, &a); break;
  case 11: a.influences = 8, a.morph_ranges = (skn_out_attrib){out, 0}; s = skn_rig_gpu_attributes(rig, &a); break;
  case 12: s = skn_rig_gpu_buffers(rig, &d, &b); break;
  case 13: s = skn_rig_gpu_buffers(rig, &compute, &b); break;
  case 14: compute.method = SKN_METHOD_BLEND, compute.outputs = 0; s = skn_rig_gpu_buffers(rig, &compute, &b); break;
  default:
    d.flags = SKN_GLSL_MORPHS, d.joint_count = 300, d.morph_target_count = 2;
    s = skn_pose_gpu_palette(pose, &d, out, sizeof out);
    break;
  }
  ck_assert_msg(s == OTHER_ROWS[_i].status, "%s: %s", OTHER_ROWS[_i].what, skn_status_name(s));
  ck_assert_msg(strstr(skn_last_error(), OTHER_ROWS[_i].message), "%s: \"%s\"", OTHER_ROWS[_i].what,
                skn_last_error());
  const unsigned char *bytes = (const unsigned char *)out;
  for (size_t i = 0; i < sizeof out; ++i) ck_assert_int_eq(bytes[i], 0x5A);
  skn_pose_destroy(pose);
  skn_rig_destroy(rig);
  test_rig_free(&t);
}
END_TEST

/* The compute shader's buffers and the vertex shader's morph entries on a
 * rig worked by hand: 3 vertices of 1, 0 and 2 influences (joints 1; -;
 * 0 and 1, weights 0.25 and 0.75); target 0 sparse (vertex 2 by (1, 2, 3)),
 * target 1 dense ((0.5, 0, 0) at vertex 0, zeros elsewhere, which bind
 * drops). */
START_TEST(buffers_are_the_rig) {
  float bind[32] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 1, 0, 0, 1};
  int32_t parents[2] = {-1, 0};
  float positions[9] = {0, 0, 0, 1, 0, 0, 2, 0, 0};
  uint32_t offsets[4] = {0, 1, 1, 3}, joints[3] = {1, 0, 1};
  float weights[3] = {1, 0.25f, 0.75f}, sparse[3] = {1, 2, 3}, dense[9] = {0.5f, 0, 0};
  uint32_t sparse_vertex = 2;
  skn_morph_target targets[2] = {{1, &sparse_vertex, {sparse, 0}, {0}, {0}}, {3, NULL, {dense, 0}, {0}, {0}}};
  skn_bind_desc bd = {sizeof bd};
  bd.joint_count = 2, bd.parents = parents, bd.bind_matrices = bind, bd.vertex_count = 3;
  bd.positions = (skn_attrib){positions, 0};
  bd.influence_offsets = offsets, bd.influence_joints = joints, bd.influence_weights = weights;
  bd.morph_targets = targets, bd.morph_target_count = 2;
  skn_rig *rig = bind_or_fail(&bd);
  skn_gpu_desc d = gpu_desc(SKN_METHOD_LBS_MATRIX, 0);
  d.dialect = SKN_GLSL_430, d.flags = SKN_GLSL_COMPUTE | SKN_GLSL_MORPHS;
  skn_gpu_layout layout = {sizeof layout};
  ck_assert_int_eq(skn_gpu_layout_get(&d, &layout), SKN_OK);
  ck_assert_uint_eq(layout.rest_floats, 3);
  ck_assert_uint_eq(layout.output_floats, 3);
  ck_assert_uint_eq(layout.output_normal, SKN_GPU_ABSENT);
  ck_assert_uint_eq(layout.morph_words, 4);
  skn_gpu_buffers b = {sizeof b};
  ck_assert_int_eq(skn_rig_gpu_buffers(rig, &d, &b), SKN_OK); /* the sizes alone */
  ck_assert_uint_eq(b.rest_bytes, 36);
  ck_assert_uint_eq(b.influences_bytes, (4 + 2 * 3) * 4);
  ck_assert_uint_eq(b.morph_entries_bytes, 2 * 4 * 4);
  ck_assert_uint_eq(b.morph_first_bytes, 3 * 4);
  float rest[9];
  uint32_t words[10], entries[8], first[3];
  b.rest = rest, b.influences = words, b.morph_entries = entries, b.morph_first = first;
  ck_assert_int_eq(skn_rig_gpu_buffers(rig, &d, &b), SKN_OK);
  ck_assert(!memcmp(rest, positions, sizeof rest));
  uint32_t want_words[10] = {0, 1, 1, 3, 1, 0, 0, 0, 1, 0};
  memcpy(&want_words[5], &weights[0], 4), memcpy(&want_words[7], &weights[1], 4), memcpy(&want_words[9], &weights[2], 4);
  ck_assert(!memcmp(words, want_words, sizeof words));
  uint32_t want_first[3] = {0, 1, 2};
  ck_assert(!memcmp(first, want_first, sizeof first));
  float e[8];
  memcpy(e, entries, sizeof e);
  ck_assert_uint_eq(entries[0], 2);  /* target 0's entry: vertex 2 */
  ck_assert(e[1] == 1 && e[2] == 2 && e[3] == 3);
  ck_assert_uint_eq(entries[4], 0);  /* target 1's: vertex 0 alone */
  ck_assert(e[5] == 0.5f && e[6] == 0 && e[7] == 0);
  /* the vertex shader's: vertex by vertex, word 0 the target; ranges per vertex */
  skn_gpu_desc v = gpu_desc(SKN_METHOD_LBS_MATRIX, 0);
  v.flags = SKN_GLSL_MORPHS, v.joint_count = 2, v.morph_target_count = 2;
  ck_assert_int_eq(skn_rig_gpu_buffers(rig, &v, &b), SKN_OK);
  ck_assert_uint_eq(b.rest_bytes, 0);
  ck_assert_uint_eq(entries[0], 1); /* vertex 0: target 1 */
  ck_assert_uint_eq(entries[4], 0); /* vertex 2: target 0 */
  memcpy(e, entries, sizeof e);
  ck_assert(e[1] == 0.5f && e[5] == 1 && e[6] == 2 && e[7] == 3);
  uint32_t ranges[6];
  skn_gpu_attributes a = {sizeof a};
  a.morph_ranges = (skn_out_attrib){ranges, 0};
  ck_assert_int_eq(skn_rig_gpu_attributes(rig, &a), SKN_OK);
  uint32_t want_ranges[6] = {0, 1, 1, 0, 1, 1};
  ck_assert(!memcmp(ranges, want_ranges, sizeof ranges));
  /* the palette: the joints' texels, then the weights, the last vec4 padded */
  skn_pose *pose = pose_or_fail(rig);
  float w[2] = {0.5f, -2}, palette[2 * 3 * 4 + 4];
  ck_assert_int_eq(skn_pose_set_morph_weights(pose, 0, 2, w), SKN_OK);
  ck_assert_int_eq(skn_gpu_layout_get(&v, &layout), SKN_OK);
  ck_assert_uint_eq(layout.morph_vec4s, 1);
  ck_assert_int_eq(skn_pose_gpu_palette(pose, &v, palette, sizeof palette - 1), SKN_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(skn_pose_gpu_palette(pose, &v, palette, sizeof palette), SKN_OK);
  ck_assert(palette[24] == 0.5f && palette[25] == -2 && palette[26] == 0 && palette[27] == 0);
  skn_pose_destroy(pose);
  skn_rig_destroy(rig);
}
END_TEST

Suite *suite_gpu(void) {
  Suite *s = suite_create("gpu");
  TCase *tc = tcase_create("gpu");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, palette_holds_the_pose_forms);
  tcase_add_test(tc, quaternion_texels_rebuild_the_matrix);
  tcase_add_test(tc, attributes_are_the_rig_influences);
  tcase_add_test(tc, text_has_what_was_asked);
  tcase_add_test(tc, set_error_is_last_error);
  tcase_add_test(tc, buffers_are_the_rig);
  tcase_add_loop_test(tc, text_bad_request, 0, sizeof TEXT_ROWS / sizeof TEXT_ROWS[0]);
  tcase_add_loop_test(tc, palette_and_attributes_bad_request, 0, sizeof OTHER_ROWS / sizeof OTHER_ROWS[0]);
  suite_add_tcase(s, tc);
  return s;
}
