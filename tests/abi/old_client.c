/* old_client.c — a host compiled against the first release's header
 * (tests/abi/skn-1.0/skn.h: abi/skn.h as of commit e35ac74, kept as it was),
 * linked against today's library. Every struct it passes has the first
 * release's size — skn_bind_desc 168 bytes (no layout), skn_skin_desc 72 (no
 * stores), skn_gltf_bind_desc 32 (no layout, no max_bytes) — so it checks
 * the struct_size rule of abi/POLICY.md on each desc that grew since: the
 * library reads what fits and takes the defaults for the rest. Prints
 * "abi-1.0-client: N passed, N failed". */
#include "skn.h" /* the fixture's, by -Itests/abi/skn-1.0 */

#include <math.h>
#include <stdio.h>

static int passed, failed;

static void check(int ok, const char *what) {
  if (ok) ++passed;
  else ++failed, fprintf(stderr, "FAIL %s: %s\n", what, skn_last_error());
}

static int near(const float *p, float x, float y, float z) {
  return fabsf(p[0] - x) < 1e-5f && fabsf(p[1] - y) < 1e-5f && fabsf(p[2] - z) < 1e-5f;
}

/* Joint 1 at (1, 0, 0) under joint 0; vertex (2, 0, 0) on joint 1 alone, its
 * neighbours shared: joint 1 turned 180 degrees about z takes the vertex to
 * the origin by every method. */
static void bind_pose_skin(void) {
  const int32_t parents[2] = {-1, 0};
  const float bind[32] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 1, 0, 0, 1};
  const float pos[9] = {2, 0, 0, 1.5f, 0.1f, 0, 1.5f, -0.1f, 0}, blend[3] = {0.5f, 0.5f, 0.5f};
  const uint32_t joints[6] = {1, 0, 0, 1, 1, 0}, tris[3] = {0, 1, 2};
  const float weights[6] = {1, 0, 0.5f, 0.5f, 0.5f, 0.5f};
  skn_bind_desc d = {sizeof d};
  check(sizeof d == 168 && sizeof(skn_skin_desc) == 72 && sizeof(skn_gltf_bind_desc) == 32,
        "the fixture has the first release's sizes");
  d.joint_count = 2, d.parents = parents, d.bind_matrices = bind, d.vertex_count = 3, d.positions.data = pos;
  d.influences_per_vertex = 2, d.influence_joints = joints, d.influence_weights = weights;
  d.blend_weights = blend, d.triangles = tris, d.triangle_count = 1;
  skn_rig *rig = NULL;
  skn_pose *pose = NULL;
  check(skn_bind(&d, &rig) == SKN_OK && skn_pose_create(rig, &pose) == SKN_OK, "bind at 168 bytes");
  skn_rig_info info = {sizeof info};
  check(skn_rig_info_get(rig, &info) == SKN_OK && info.joint_count == 2 && !(info.flags & 16), "rig_info, full layout");
  skn_transform turn = {{1, 0, 0}, {0, 0, 1, 0}, {1, 1, 1}};
  check(skn_pose_set_local(pose, 1, 1, &turn) == SKN_OK, "set_local");
  for (int m = SKN_METHOD_LBS_MATRIX; m <= SKN_METHOD_COR; ++m) {
    float out[9] = {9, 9, 9};
    skn_skin_desc s = {sizeof s};
    s.method = (skn_method)m;
    s.positions.data = out;
    char what[48];
    snprintf(what, sizeof what, "skin at 72 bytes, method %d", m);
    check(skn_skin(rig, pose, &s) == SKN_OK && near(out, 0, 0, 0), what);
  }
  skn_pose_destroy(pose);
  skn_rig_destroy(rig);
}

/* SimpleSkin at 1 s: vertex 8 at (-1, 0.5, 0) (tests/unit/test_gltf.c). */
static void gltf_at_old_size(void) {
  skn_gltf *g = NULL;
  skn_rig *rig = NULL;
  skn_pose *pose = NULL;
  skn_gltf_bind_desc bd = {sizeof bd};
  float out[30];
  skn_skin_desc s = {sizeof s};
  s.positions.data = out;
  check(skn_gltf_open("data/gltf/SimpleSkin/glTF-Embedded/SimpleSkin.gltf", &g) == SKN_OK &&
            skn_gltf_bind(g, &bd, &rig) == SKN_OK && skn_pose_create(rig, &pose) == SKN_OK &&
            skn_gltf_pose(g, 0, 0, 1.0f, pose) == SKN_OK && skn_skin(rig, pose, &s) == SKN_OK && near(out + 24, -1, 0.5f, 0),
        "gltf_bind at 32 bytes, pose, skin");
  skn_pose_destroy(pose);
  skn_rig_destroy(rig);
  skn_gltf_close(g);
}

/* The function table: at least the first release's, its calls the same. */
static void table(void) {
  const skn_api *api = skn_get_api(SKN_VERSION_MAJOR);
  check(api && api->struct_size >= sizeof *api && api->abi_version / 10000 == 1 && api->abi_version >= 10000,
        "skn_get_api(1): a table at least as large as 1.0's");
  check(api && api->bind == skn_bind && api->skin == skn_skin && api->gltf_pose == skn_gltf_pose &&
            api->get_simd == skn_get_simd,
        "the table's 1.0 members are the calls");
  check(skn_version() / 10000 == SKN_VERSION_MAJOR, "skn_version: the same major");
}

int main(void) {
  bind_pose_skin();
  gltf_at_old_size();
  table();
  printf("abi-1.0-client: %d passed, %d failed (libskn %s, header 1.0)\n", passed, failed, skn_version_string());
  return failed ? 1 : 0;
}
