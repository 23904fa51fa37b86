/* test_errors.c — the table of bad inputs: one row per status and cause.
 * Each row breaks one thing in an otherwise valid request and checks the
 * status, that skn_last_error() names the item, and that nothing the caller
 * owns was written: out_rig, the pose's palette, palette and skin outputs
 * pre-filled with a sentinel, and the caller's input arrays. */
#include "testlib.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum call { BIND, SET_LOCAL, SET_MODEL, PALETTE, SKIN };

typedef struct fixture {
  /* inputs of a valid 3-joint, 4-vertex bind (the caller's data) */
  struct {
    int32_t parents[3];
    float bind[48];
    skn_transform rest[3];
    float pos[12], nrm[12], tan[16];
    uint32_t joints[8], offsets[5], tris[6];
    float weights[8], blend[4];
  } in;
  skn_bind_desc bd;
  const skn_bind_desc *bind_desc;
  skn_rig **out_rig;
  skn_rig *rig, *other_rig, *plain_rig; /* plain: bound without normals */
  skn_pose *pose, *other_pose, *plain_pose;
  /* the call under test */
  skn_pose *target_pose;
  const skn_rig *skin_rig;
  uint32_t first, count;
  skn_transform local[3];
  float model[48];
  const void *transforms;
  skn_palette_format format;
  size_t dst_bytes;
  skn_skin_desc sd;
  float out[64];
} fixture;

static void fixture_init(fixture *f) {
  memset(f, 0, sizeof *f);
  const int32_t parents[3] = {-1, 0, 1};
  memcpy(f->in.parents, parents, sizeof parents);
  for (int j = 0; j < 3; ++j) {
    float *m = f->in.bind + j * 16;
    m[0] = m[5] = m[10] = m[15] = 1;
    m[12] = (float)j;
    f->in.rest[j] = transform_identity();
    f->local[j] = transform_identity();
    memcpy(f->model + j * 16, m, 16 * sizeof(float));
  }
  for (int v = 0; v < 4; ++v) {
    f->in.pos[v * 3] = (float)v;
    f->in.nrm[v * 3 + 2] = 1;
    f->in.tan[v * 4] = f->in.tan[v * 4 + 3] = 1;
    f->in.joints[v * 2] = (uint32_t)(v % 3);
    f->in.joints[v * 2 + 1] = (uint32_t)((v + 1) % 3);
    f->in.weights[v * 2] = f->in.weights[v * 2 + 1] = 0.5f;
    f->in.offsets[v + 1] = (uint32_t)(v + 1) * 2;
    f->in.blend[v] = 0.5f;
  }
  const uint32_t tris[6] = {0, 1, 2, 1, 2, 3};
  memcpy(f->in.tris, tris, sizeof tris);
  skn_bind_desc d = {sizeof d};
  d.joint_count = 3;
  d.parents = f->in.parents;
  d.bind_matrices = f->in.bind;
  d.vertex_count = 4;
  d.positions.data = f->in.pos;
  d.normals.data = f->in.nrm;
  d.tangents.data = f->in.tan;
  d.influences_per_vertex = 2;
  d.influence_joints = f->in.joints;
  d.influence_weights = f->in.weights;
  f->rig = bind_or_fail(&d);
  f->other_rig = bind_or_fail(&d);
  d.normals.data = d.tangents.data = NULL;
  f->plain_rig = bind_or_fail(&d);
  d.normals.data = f->in.nrm;
  d.tangents.data = f->in.tan;
  f->bd = d;
  f->bind_desc = &f->bd;
  f->pose = pose_or_fail(f->rig);
  f->other_pose = pose_or_fail(f->other_rig);
  f->plain_pose = pose_or_fail(f->plain_rig);
  f->target_pose = f->pose;
  f->skin_rig = f->rig;
  f->first = 0;
  f->count = 3;
  f->transforms = NULL;
  f->format = SKN_PALETTE_MAT4;
  f->dst_bytes = sizeof f->out;
  f->sd = (skn_skin_desc){sizeof f->sd};
  f->sd.positions.data = f->out;
}

static void fixture_free(fixture *f) {
  skn_pose_destroy(f->pose);
  skn_pose_destroy(f->other_pose);
  skn_pose_destroy(f->plain_pose);
  skn_rig_destroy(f->rig);
  skn_rig_destroy(f->other_rig);
  skn_rig_destroy(f->plain_rig);
}

/* ---- the breakages, one per row ---- */
#define BREAK(name, body) static void name(fixture *f) { body; }
BREAK(b_desc_null, f->bind_desc = NULL)
BREAK(b_out_null, f->out_rig = NULL; f->bd.struct_size = 0xFFFFFFFF)
BREAK(b_struct_size, f->bd.struct_size = 8)
BREAK(b_joint_count, f->bd.joint_count = 0)
BREAK(b_vertex_count, f->bd.vertex_count = 0)
BREAK(b_positions, f->bd.positions.data = NULL)
BREAK(b_both_matrices, f->bd.inverse_bind_matrices = f->in.bind)
BREAK(b_no_matrices, f->bd.bind_matrices = NULL)
BREAK(b_parent_range, f->in.parents[2] = 7)
BREAK(b_parent_cycle, f->in.parents[0] = 2)
BREAK(b_self_parent, f->in.parents[1] = 1)
BREAK(b_position_nan, f->in.pos[2 * 3 + 1] = NAN)
BREAK(b_bind_inf, f->in.bind[16 + 5] = INFINITY)
BREAK(b_bind_affine, f->in.bind[32 + 3] = 0.5f)
BREAK(b_bind_singular, f->in.bind[16 + 4] = f->in.bind[16 + 5] = f->in.bind[16 + 6] = 0)
BREAK(b_joint_range, f->in.joints[3 * 2 + 1] = 40)
BREAK(b_weight_negative, f->in.weights[1 * 2] = -0.5f)
BREAK(b_weight_nan, f->in.weights[1] = NAN)
BREAK(b_weight_inf, f->in.weights[2 * 2 + 1] = INFINITY)
BREAK(b_position_inf_strided, f->bd.positions.stride = 12; f->in.pos[3 * 3 + 2] = -INFINITY)
BREAK(b_require_unit, f->bd.weight_mode = SKN_WEIGHTS_REQUIRE_UNIT; f->in.weights[2 * 2] = 0)
BREAK(b_pruned_empty, f->bd.weight_mode = SKN_WEIGHTS_REQUIRE_UNIT; f->bd.min_weight = 0.6f)
BREAK(b_offsets_start, f->bd.influence_offsets = f->in.offsets; f->in.offsets[0] = 1)
BREAK(b_offsets_decrease, f->bd.influence_offsets = f->in.offsets; f->in.offsets[3] = 1)
BREAK(b_no_layout, f->bd.influences_per_vertex = 0)
BREAK(b_overflow, f->bd.vertex_count = 0x80000000u; f->bd.influences_per_vertex = 8)
BREAK(b_weight_mode, f->bd.weight_mode = (skn_weight_mode)7)
BREAK(b_min_weight, f->bd.min_weight = -1)
BREAK(b_normal_nan, f->in.nrm[3 * 3] = NAN)
BREAK(b_tangent_inf, f->in.tan[1 * 4 + 3] = INFINITY)
BREAK(b_rest_zero_quat, f->bd.rest_local = f->in.rest; f->in.rest[2].rotation[3] = 0)
BREAK(b_stride, f->bd.positions.stride = 4)
BREAK(b_joints_null, f->bd.influence_joints = NULL)
BREAK(b_blend_range, f->bd.blend_weights = f->in.blend; f->in.blend[1] = 1.5f)
BREAK(b_blend_nan, f->bd.blend_weights = f->in.blend; f->in.blend[3] = NAN)
BREAK(b_triangle_range, f->bd.triangles = f->in.tris; f->bd.triangle_count = 2; f->in.tris[4] = 4)
BREAK(b_triangles_null, f->bd.triangle_count = 2)
BREAK(l_range, f->first = 2; f->count = 2; f->transforms = f->local)
BREAK(l_nan, f->transforms = f->local; f->local[1].translation[0] = NAN)
BREAK(l_zero_quat, f->transforms = f->local; f->local[2].rotation[3] = 0)
BREAK(l_count_zero, f->transforms = f->local; f->count = 0)
BREAK(l_null, f->transforms = NULL)
BREAK(m_affine, f->transforms = f->model; f->model[16 + 7] = 1)
BREAK(m_inf, f->transforms = f->model; f->model[12] = -INFINITY)
BREAK(m_range, f->transforms = f->model; f->first = 3; f->count = 1)
BREAK(p_small, f->dst_bytes = 3 * 16 * sizeof(float) - 1)
BREAK(p_format, f->format = (skn_palette_format)99)
BREAK(p_null, f->target_pose = NULL)
BREAK(s_other_rig, f->target_pose = f->other_pose)
BREAK(s_method, f->sd.method = (skn_method)77)
BREAK(s_first, f->sd.first_vertex = 4)
BREAK(s_range, f->sd.first_vertex = 1; f->sd.vertex_count = 4)
BREAK(s_positions, f->sd.positions.data = NULL; f->sd.normals.data = f->out)
BREAK(s_normals, f->skin_rig = f->plain_rig; f->target_pose = f->plain_pose; f->sd.normals.data = f->out + 32)
BREAK(s_tangents, f->skin_rig = f->plain_rig; f->target_pose = f->plain_pose; f->sd.tangents.data = f->out + 32)
BREAK(s_struct_size, f->sd.struct_size = 4)
BREAK(s_dqs_scale, f->sd.dqs_scale = (skn_dqs_scale)9)
BREAK(s_stores, f->sd.stores = (skn_stores)9)
BREAK(s_stride, f->sd.positions.stride = 8)
BREAK(s_cor_untriangulated, f->sd.method = SKN_METHOD_COR)
BREAK(s_blend_unweighted, f->sd.method = SKN_METHOD_BLEND)
BREAK(s_shear, f->sd.method = SKN_METHOD_LBS_QUATERNION; f->local[1].scale[0] = 2;
      ck_assert_int_eq(skn_pose_set_local(f->pose, 0, 3, f->local), SKN_OK))

typedef struct bad_row {
  const char *name;
  enum call call;
  void (*breaks)(fixture *f);
  skn_status want;
  const char *needle; /* must occur in skn_last_error() */
} bad_row;

static const bad_row rows[] = {
    {"bind: desc NULL", BIND, b_desc_null, SKN_ERR_INVALID_ARGUMENT, "required"},
    {"bind: out_rig NULL", BIND, b_out_null, SKN_ERR_INVALID_ARGUMENT, "out_rig"},
    {"bind: struct_size too small", BIND, b_struct_size, SKN_ERR_INVALID_ARGUMENT, "struct_size 8"},
    {"bind: joint_count 0", BIND, b_joint_count, SKN_ERR_INVALID_ARGUMENT, "joint_count"},
    {"bind: vertex_count 0", BIND, b_vertex_count, SKN_ERR_INVALID_ARGUMENT, "vertex_count"},
    {"bind: positions NULL", BIND, b_positions, SKN_ERR_INVALID_ARGUMENT, "positions"},
    {"bind: both kinds of matrix", BIND, b_both_matrices, SKN_ERR_INVALID_ARGUMENT, "exactly one"},
    {"bind: no matrices", BIND, b_no_matrices, SKN_ERR_INVALID_ARGUMENT, "exactly one"},
    {"bind: parent out of range", BIND, b_parent_range, SKN_ERR_BAD_HIERARCHY, "joint 2: parent 7 is out of range"},
    {"bind: parent cycle", BIND, b_parent_cycle, SKN_ERR_BAD_HIERARCHY, "cycle"},
    {"bind: joint its own parent", BIND, b_self_parent, SKN_ERR_BAD_HIERARCHY, "joint 1"},
    {"bind: NaN position", BIND, b_position_nan, SKN_ERR_NOT_FINITE, "vertex 2: positions[1]"},
    {"bind: Inf in a bind matrix", BIND, b_bind_inf, SKN_ERR_NOT_FINITE, "joint 1: bind_matrices"},
    {"bind: bind matrix not affine", BIND, b_bind_affine, SKN_ERR_INVALID_ARGUMENT, "joint 2"},
    {"bind: singular bind matrix", BIND, b_bind_singular, SKN_ERR_SINGULAR, "joint 1"},
    {"bind: influence joint out of range", BIND, b_joint_range, SKN_ERR_INDEX_OUT_OF_RANGE,
     "vertex 3, influence 1: joint 40 >= joint_count 3"},
    {"bind: negative weight", BIND, b_weight_negative, SKN_ERR_BAD_WEIGHTS, "vertex 1, influence 0"},
    {"bind: NaN weight", BIND, b_weight_nan, SKN_ERR_NOT_FINITE, "vertex 0, influence 1"},
    {"bind: Inf weight", BIND, b_weight_inf, SKN_ERR_NOT_FINITE, "vertex 2, influence 1"},
    {"bind: -Inf position, stride given", BIND, b_position_inf_strided, SKN_ERR_NOT_FINITE, "vertex 3: positions[2]"},
    {"bind: REQUIRE_UNIT sum 0.5", BIND, b_require_unit, SKN_ERR_BAD_WEIGHTS, "vertex 2"},
    {"bind: REQUIRE_UNIT pruned empty", BIND, b_pruned_empty, SKN_ERR_BAD_WEIGHTS, "vertex 0"},
    {"bind: CSR not starting at 0", BIND, b_offsets_start, SKN_ERR_INVALID_ARGUMENT, "influence_offsets[0]"},
    {"bind: CSR decreasing", BIND, b_offsets_decrease, SKN_ERR_INVALID_ARGUMENT, "vertex 2"},
    {"bind: no influence layout", BIND, b_no_layout, SKN_ERR_INVALID_ARGUMENT, "influences_per_vertex"},
    {"bind: influence count overflows", BIND, b_overflow, SKN_ERR_INVALID_ARGUMENT, "overflows"},
    {"bind: bad weight_mode", BIND, b_weight_mode, SKN_ERR_INVALID_ARGUMENT, "weight_mode 7"},
    {"bind: negative min_weight", BIND, b_min_weight, SKN_ERR_INVALID_ARGUMENT, "min_weight"},
    {"bind: NaN normal", BIND, b_normal_nan, SKN_ERR_NOT_FINITE, "vertex 3: normals"},
    {"bind: Inf tangent", BIND, b_tangent_inf, SKN_ERR_NOT_FINITE, "vertex 1: tangents[3]"},
    {"bind: rest_local zero quaternion", BIND, b_rest_zero_quat, SKN_ERR_INVALID_ARGUMENT, "joint 2"},
    {"bind: stride too small", BIND, b_stride, SKN_ERR_INVALID_ARGUMENT, "positions: stride 4"},
    {"bind: influence_joints NULL", BIND, b_joints_null, SKN_ERR_INVALID_ARGUMENT, "influence_joints"},
    {"bind: blend weight outside [0,1]", BIND, b_blend_range, SKN_ERR_BAD_WEIGHTS, "vertex 1: blend weight"},
    {"bind: NaN blend weight", BIND, b_blend_nan, SKN_ERR_NOT_FINITE, "vertex 3: blend weight"},
    {"bind: triangle index out of range", BIND, b_triangle_range, SKN_ERR_INDEX_OUT_OF_RANGE,
     "triangle 1, corner 1: vertex 4"},
    {"bind: triangle_count without triangles", BIND, b_triangles_null, SKN_ERR_INVALID_ARGUMENT, "triangles"},
    {"set_local: range past the end", SET_LOCAL, l_range, SKN_ERR_INDEX_OUT_OF_RANGE, "joint_count 3"},
    {"set_local: NaN translation", SET_LOCAL, l_nan, SKN_ERR_NOT_FINITE, "joint 1"},
    {"set_local: zero quaternion", SET_LOCAL, l_zero_quat, SKN_ERR_INVALID_ARGUMENT, "joint 2"},
    {"set_local: count 0", SET_LOCAL, l_count_zero, SKN_ERR_INVALID_ARGUMENT, "count is 0"},
    {"set_local: transforms NULL", SET_LOCAL, l_null, SKN_ERR_INVALID_ARGUMENT, "required"},
    {"set_model: not affine", SET_MODEL, m_affine, SKN_ERR_INVALID_ARGUMENT, "joint 1"},
    {"set_model: Inf", SET_MODEL, m_inf, SKN_ERR_NOT_FINITE, "joint 0"},
    {"set_model: range past the end", SET_MODEL, m_range, SKN_ERR_INDEX_OUT_OF_RANGE, "joint_count 3"},
    {"palette: dst too small", PALETTE, p_small, SKN_ERR_INVALID_ARGUMENT, "dst_bytes 191"},
    {"palette: bad format", PALETTE, p_format, SKN_ERR_INVALID_ARGUMENT, "format 99"},
    {"palette: pose NULL", PALETTE, p_null, SKN_ERR_INVALID_ARGUMENT, "required"},
    {"skin: pose of another rig", SKIN, s_other_rig, SKN_ERR_INVALID_ARGUMENT, "another rig"},
    {"skin: bad method", SKIN, s_method, SKN_ERR_INVALID_ARGUMENT, "method 77"},
    {"skin: first_vertex past the end", SKIN, s_first, SKN_ERR_INDEX_OUT_OF_RANGE, "first_vertex 4"},
    {"skin: range past the end", SKIN, s_range, SKN_ERR_INDEX_OUT_OF_RANGE, "[1, 5)"},
    {"skin: positions NULL", SKIN, s_positions, SKN_ERR_INVALID_ARGUMENT, "positions"},
    {"skin: normals not bound", SKIN, s_normals, SKN_ERR_INVALID_ARGUMENT, "normals"},
    {"skin: tangents not bound", SKIN, s_tangents, SKN_ERR_INVALID_ARGUMENT, "tangents"},
    {"skin: struct_size too small", SKIN, s_struct_size, SKN_ERR_INVALID_ARGUMENT, "struct_size 4"},
    {"skin: bad dqs_scale", SKIN, s_dqs_scale, SKN_ERR_INVALID_ARGUMENT, "dqs_scale 9"},
    {"skin: bad stores", SKIN, s_stores, SKN_ERR_INVALID_ARGUMENT, "stores 9"},
    {"skin: output stride too small", SKIN, s_stride, SKN_ERR_INVALID_ARGUMENT, "stride 8"},
    {"skin: LBS_QUATERNION with shear", SKIN, s_shear, SKN_ERR_UNSUPPORTED, "joint 1"},
    {"skin: COR without triangles", SKIN, s_cor_untriangulated, SKN_ERR_UNSUPPORTED, "needs triangles"},
    {"skin: BLEND without blend weights", SKIN, s_blend_unweighted, SKN_ERR_UNSUPPORTED, "needs blend_weights"},
};
#define ROW_COUNT ((int)(sizeof rows / sizeof rows[0]))

static skn_status run_call(fixture *f, enum call call) {
  switch (call) {
  case BIND: return skn_bind(f->bind_desc, f->out_rig);
  case SET_LOCAL: return skn_pose_set_local(f->target_pose, f->first, f->count, f->transforms);
  case SET_MODEL: return skn_pose_set_model(f->target_pose, f->first, f->count, f->transforms);
  case PALETTE: return skn_pose_palette(f->target_pose, f->format, f->out, f->dst_bytes);
  case SKIN: return skn_skin(f->skin_rig, f->target_pose, &f->sd);
  }
  return SKN_OK;
}

START_TEST(bad_input) {
  const bad_row *row = &rows[_i];
  fixture *f = calloc(1, sizeof *f);
  fixture_init(f);
  skn_rig *sentinel_rig = (skn_rig *)(uintptr_t)0x5EB71E;
  f->out_rig = &sentinel_rig;
  row->breaks(f);
  for (int i = 0; i < 64; ++i) f->out[i] = -1234.5f;
  float palette_before[48], palette_after[48];
  ck_assert_int_eq(skn_pose_palette(f->pose, SKN_PALETTE_MAT4, palette_before, sizeof palette_before), SKN_OK);
  unsigned char inputs_before[sizeof f->in];
  memcpy(inputs_before, &f->in, sizeof f->in);

  skn_status got = run_call(f, row->call);

  ck_assert_msg(got == row->want, "%s: got %s, want %s (%s)", row->name, skn_status_name(got),
                skn_status_name(row->want), skn_last_error());
  ck_assert_msg(strlen(skn_last_error()) > 0, "%s: empty message", row->name);
  ck_assert_msg(strstr(skn_last_error(), row->needle) != NULL, "%s: message \"%s\" does not name \"%s\"",
                row->name, skn_last_error(), row->needle);
  ck_assert_msg(sentinel_rig == (skn_rig *)(uintptr_t)0x5EB71E, "%s: out_rig was written", row->name);
  for (int i = 0; i < 64; ++i) ck_assert_msg(f->out[i] == -1234.5f, "%s: output %d was written", row->name, i);
  ck_assert_int_eq(skn_pose_palette(f->pose, SKN_PALETTE_MAT4, palette_after, sizeof palette_after), SKN_OK);
  if (row->call != SKIN) /* s_shear poses on purpose, before the call */
    ck_assert_msg(!memcmp(palette_before, palette_after, sizeof palette_before), "%s: pose changed", row->name);
  ck_assert_msg(!memcmp(inputs_before, &f->in, sizeof f->in), "%s: caller's input was written", row->name);
  fixture_free(f);
  free(f);
}
END_TEST

Suite *suite_errors(void) {
  Suite *s = suite_create("errors");
  TCase *tc = tcase_create("bad_input");
  tcase_add_loop_test(tc, bad_input, 0, ROW_COUNT);
  suite_add_tcase(s, tc);
  return s;
}
