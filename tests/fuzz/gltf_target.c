/* gltf_target.c — a glTF or GLB document from bytes: opened from memory,
 * described, and each skinned primitive (the first four) bound in the
 * variants the bytes' hash picks, posed at several times of each animation,
 * skinned with every method the rig serves and exported for the GPU; the
 * triangles into a buffer of exactly their size. Binding is capped at 64 MB
 * (max_bytes): a document may declare any count. */
#include "fuzz.h"

#include <stdlib.h>
#include <string.h>

#define MAX_PRIMITIVES 4
#define MAX_ANIMATIONS 3

static uint32_t fnv1a(const uint8_t *data, size_t size) {
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < size; ++i) h = (h ^ data[i]) * 16777619u;
  return h;
}

static void describe(const skn_gltf *g, const skn_gltf_info *info) {
  for (uint32_t a = 0; a < info->animation_count; ++a) {
    skn_gltf_animation_info ai = {sizeof ai};
    if (skn_gltf_animation_info_get(g, a, &ai)) fuzz_fail("animation_info_get %u: %s", a, skn_last_error());
    uint32_t found;
    if (skn_gltf_find_animation(g, ai.name, &found) || found > a) fuzz_fail("find_animation \"%s\"", ai.name);
  }
  skn_gltf_primitive_info pi = {sizeof pi};
  if (skn_gltf_primitive_info_get(g, info->primitive_count, &pi) != SKN_ERR_INDEX_OUT_OF_RANGE)
    fuzz_fail("primitive_info_get past the end");
}

static void triangles(const skn_gltf *g, uint32_t p, const skn_gltf_primitive_info *pi) {
  if (pi->triangle_count > (1u << 20)) return; /* the host's allocation: counts need not be backed */
  guarded out;
  uint32_t *dst = guarded_alloc(&out, (size_t)pi->triangle_count * 12);
  if (skn_gltf_triangles(g, p, dst, (size_t)pi->triangle_count * 3)) fuzz_fail("triangles: %s", skn_last_error());
  for (uint32_t i = 0; i < pi->triangle_count * 3; ++i)
    if (dst[i] >= pi->vertex_count) fuzz_fail("triangle index %u >= %u vertices", dst[i], pi->vertex_count);
  guarded_check(&out, 0, "gltf_triangles");
  guarded_free(&out);
}

/* Every method the rig serves, with the outputs the primitive has. */
static void skin_all(const skn_rig *rig, const skn_pose *pose, const skn_gltf_primitive_info *pi) {
  size_t n = pi->vertex_count;
  for (int m = SKN_METHOD_LBS_MATRIX; m <= SKN_METHOD_COR; ++m)
    for (int split = 0; split < (m >= SKN_METHOD_DQS ? 2 : 1); ++split) {
      guarded gp, gn, gt;
      skn_skin_desc d = {sizeof d};
      d.method = (skn_method)m;
      d.dqs_scale = (skn_dqs_scale)split;
      d.threads = 1;
      d.positions.data = guarded_alloc(&gp, n * 12);
      d.normals.data = pi->flags & SKN_GLTF_HAS_NORMALS ? guarded_alloc(&gn, n * 12) : NULL;
      d.tangents.data = pi->flags & SKN_GLTF_HAS_TANGENTS ? guarded_alloc(&gt, n * 16) : NULL;
      skn_status s = skn_skin(rig, pose, &d);
      if (s != SKN_OK && s != SKN_ERR_UNSUPPORTED) fuzz_fail("skin %d: %s: %s", m, skn_status_name(s), skn_last_error());
      guarded_check(&gp, s != SKN_OK, "skin positions");
      guarded_free(&gp);
      if (d.normals.data) guarded_check(&gn, s != SKN_OK, "skin normals"), guarded_free(&gn);
      if (d.tangents.data) guarded_check(&gt, s != SKN_OK, "skin tangents"), guarded_free(&gt);
    }
}

/* The GPU's inputs: 8 influences a vertex (or refused), and each palette. */
static void gpu_exports(const skn_rig *rig, const skn_pose *pose, const skn_gltf_primitive_info *pi) {
  guarded gj, gw;
  skn_gpu_attributes a = {sizeof a};
  a.influences = 8;
  a.joints = (skn_out_attrib){guarded_alloc(&gj, (size_t)pi->vertex_count * 16), 0};
  a.weights = (skn_out_attrib){guarded_alloc(&gw, (size_t)pi->vertex_count * 32), 0};
  skn_status s = skn_rig_gpu_attributes(rig, &a);
  guarded_check(&gj, s != SKN_OK, "gpu joints");
  guarded_check(&gw, s != SKN_OK, "gpu weights");
  guarded_free(&gj), guarded_free(&gw);
  for (int m = SKN_METHOD_LBS_MATRIX; m <= SKN_METHOD_COR; ++m) {
    skn_gpu_desc d = {sizeof d};
    d.method = (skn_method)m;
    d.outputs = SKN_GPU_NORMALS;
    guarded gp;
    size_t bytes = (size_t)pi->joint_count * 11 * 16;
    s = skn_pose_gpu_palette(pose, &d, guarded_alloc(&gp, bytes), bytes);
    guarded_check(&gp, s != SKN_OK, "gpu palette");
    guarded_free(&gp);
  }
}

static void primitive(const skn_gltf *g, const skn_gltf_info *info, uint32_t p, uint32_t hash) {
  skn_gltf_primitive_info pi = {sizeof pi};
  if (skn_gltf_primitive_info_get(g, p, &pi)) fuzz_fail("primitive_info_get %u: %s", p, skn_last_error());
  triangles(g, p, &pi);
  skn_gltf_bind_desc bd = {sizeof bd};
  bd.primitive = p;
  bd.centers_of_rotation = hash & 1;
  bd.layout = hash & 2 ? SKN_LAYOUT_COMPACT : SKN_LAYOUT_FULL;
  bd.max_influences = (hash >> 2) % 5;
  bd.max_bytes = 64u << 20;
  float *blend = NULL;
  if (hash & 32 && pi.vertex_count <= (1u << 20)) {
    blend = malloc((size_t)pi.vertex_count * sizeof *blend);
    for (uint32_t v = 0; blend && v < pi.vertex_count; ++v) blend[v] = (float)(v % 5) / 4.0f;
    bd.blend_weights = blend;
  }
  skn_rig *rig = NULL;
  skn_pose *pose = NULL;
  if (skn_gltf_bind(g, &bd, &rig) == SKN_OK && skn_pose_create(rig, &pose) == SKN_OK) {
    uint32_t animations = info->animation_count < MAX_ANIMATIONS ? info->animation_count : MAX_ANIMATIONS;
    for (uint32_t a = 0; a <= animations; ++a) {
      uint32_t which = a == animations ? SKN_GLTF_NO_ANIMATION : a;
      skn_gltf_animation_info ai = {sizeof ai};
      if (which != SKN_GLTF_NO_ANIMATION) skn_gltf_animation_info_get(g, which, &ai);
      for (int k = 0; k < 3; ++k) {
        float t = ai.start + (ai.end - ai.start) * (float)k / 2.0f;
        if (skn_gltf_pose(g, p, which, t, pose) == SKN_OK) skin_all(rig, pose, &pi);
      }
    }
    gpu_exports(rig, pose, &pi);
  }
  skn_pose_destroy(pose);
  skn_rig_destroy(rig);
  free(blend);
}

int skn_fuzz_gltf(const uint8_t *data, size_t size) {
  skn_gltf *g = NULL;
  if (skn_gltf_open_memory(data, size, &g) != SKN_OK) {
    if (g) fuzz_fail("a failed open wrote *out");
    if (!*skn_last_error()) fuzz_fail("a failed open left no message");
    return 0;
  }
  skn_gltf_info info = {sizeof info};
  if (skn_gltf_info_get(g, &info)) fuzz_fail("info_get: %s", skn_last_error());
  describe(g, &info);
  uint32_t hash = fnv1a(data, size);
  for (uint32_t p = 0; p < info.primitive_count && p < MAX_PRIMITIVES; ++p) primitive(g, &info, p, hash >> p);
  skn_gltf_close(g);
  return 0;
}
