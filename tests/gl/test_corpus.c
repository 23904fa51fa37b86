/* test_corpus.c — the compute path against skn_skin on the glTF corpus's
 * skinned files (../shared/data/gltf-corpus, the manifest's "skin"
 * entries): every skinned primitive, bound with centers and blend weights,
 * posed halfway through its first animation (the document's own morph
 * weights and their animation applied), every method skn_skin takes for it.
 * (The vertex path's text and vertex layout are the rig's own, a compile
 * each on llvmpipe: it has the sample models, test_models.c.) */
#include "rigs.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static char *read_all(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *s = malloc((size_t)n + 1);
  if (s && fread(s, 1, (size_t)n, f) != (size_t)n) free(s), s = NULL;
  if (s) s[n] = 0;
  fclose(f);
  return s;
}

/* Primitive p of g bound and posed as the header says; 0 where the library
 * refuses it (the corpus test holds the refusals). */
static int corpus_posed(posed *out, skn_gltf *g, uint32_t p) {
  skn_gltf_primitive_info pi = {sizeof pi};
  skn_gltf_info gi = {sizeof gi};
  memset(out, 0, sizeof *out);
  if (skn_gltf_info_get(g, &gi) || skn_gltf_primitive_info_get(g, p, &pi) || !pi.vertex_count) return 0;
  float *blend = malloc(pi.vertex_count * sizeof *blend);
  for (uint32_t v = 0; v < pi.vertex_count; ++v) blend[v] = (float)(v % 5) / 4.0f;
  skn_gltf_bind_desc bd = {sizeof bd};
  bd.primitive = p;
  bd.centers_of_rotation = pi.triangle_count > 0;
  bd.blend_weights = blend;
  skn_gltf_animation_info ai = {sizeof ai};
  uint32_t animation = gi.animation_count ? 0 : SKN_GLTF_NO_ANIMATION;
  float time = 0;
  if (gi.animation_count && skn_gltf_animation_info_get(g, 0, &ai) == SKN_OK) time = 0.5f * (ai.start + ai.end);
  int ok = skn_gltf_bind(g, &bd, &out->rig) == SKN_OK && skn_pose_create(out->rig, &out->pose) == SKN_OK &&
           skn_gltf_pose(g, p, animation, time, out->pose) == SKN_OK;
  free(blend);
  if (!ok) {
    skn_pose_destroy(out->pose), skn_rig_destroy(out->rig);
    memset(out, 0, sizeof *out);
    return 0;
  }
  out->vertex_count = pi.vertex_count;
  out->has_normals = (pi.flags & SKN_GLTF_HAS_NORMALS) != 0;
  out->has_tangents = (pi.flags & SKN_GLTF_HAS_TANGENTS) != 0;
  float *pos = malloc(pi.vertex_count * 12);
  skn_skin_desc sd = {sizeof sd};
  sd.positions.data = pos;
  skn_skin(out->rig, out->pose, &sd);
  double lo[3] = {1e30, 1e30, 1e30}, hi[3] = {-1e30, -1e30, -1e30}, s = 0;
  for (uint32_t v = 0; v < pi.vertex_count; ++v)
    for (int c = 0; c < 3; ++c) lo[c] = fmin(lo[c], pos[v * 3 + c]), hi[c] = fmax(hi[c], pos[v * 3 + c]);
  for (int c = 0; c < 3; ++c) s += (hi[c] - lo[c]) * (hi[c] - lo[c]);
  out->size = sqrt(s) > 0 ? sqrt(s) : 1;
  free(pos);
  return 1;
}

/* Whether skn_skin takes method m for p (LBS_QUATERNION refuses sheared joints). */
static int cpu_takes(const posed *p, skn_method m) {
  float *pos = malloc(p->vertex_count * 12);
  skn_skin_desc sd = {sizeof sd};
  sd.method = m;
  sd.positions.data = pos;
  int ok = skn_skin(p->rig, p->pose, &sd) == SKN_OK;
  free(pos);
  return ok;
}

static void corpus_file(const char *dir, const char *file, int *files, int *primitives, int *morphed) {
  char path[1024], what[1200];
  snprintf(path, sizeof path, "%s/%s", dir, file);
  skn_gltf *g = NULL;
  skn_gltf_info gi = {sizeof gi};
  if (skn_gltf_open(path, &g) != SKN_OK || skn_gltf_info_get(g, &gi) != SKN_OK) return skn_gltf_close(g);
  ++*files;
  for (uint32_t p = 0; p < gi.primitive_count; ++p) {
    posed ps;
    if (!corpus_posed(&ps, g, p)) continue;
    ++*primitives;
    skn_rig_info ri = {sizeof ri};
    skn_rig_info_get(ps.rig, &ri);
    *morphed += ri.morph_entry_count > 0;
    uint32_t outputs = (ps.has_normals ? SKN_GPU_NORMALS : 0) | (ps.has_tangents ? SKN_GPU_TANGENTS : 0);
    for (int m = 0; m <= SKN_METHOD_COR; ++m) {
      if (!cpu_takes(&ps, (skn_method)m) || (m == SKN_METHOD_COR && !(ri.flags & SKN_RIG_HAS_CENTERS_OF_ROTATION)))
        continue;
      gpu_case c = {(skn_method)m, SKN_DQS_SCALE_POLAR, 0, outputs, SKN_GL_PALETTE_AUTO, 0, 1};
      skin_diff d = compare_case(&ps, &c, NULL);
      snprintf(what, sizeof what, "corpus %s primitive %u", file, p);
      check_diff(&d, &c, what);
    }
    posed_free(&ps);
  }
  skn_gltf_close(g);
}

void test_corpus(const char *dir) {
  char path[1024];
  snprintf(path, sizeof path, "%s/manifest.json", dir);
  char *text = read_all(path);
  cJSON *manifest = text ? cJSON_Parse(text) : NULL;
  check(manifest != NULL, "corpus: %s does not parse", path);
  int files = 0, primitives = 0, morphed = 0;
  const cJSON *f;
  cJSON_ArrayForEach(f, cJSON_GetObjectItem(manifest, "files")) {
    const cJSON *expect = cJSON_GetObjectItem(f, "expect"), *file = cJSON_GetObjectItem(f, "file");
    if (cJSON_IsString(expect) && !strcmp(expect->valuestring, "skin") && cJSON_IsString(file))
      corpus_file(dir, file->valuestring, &files, &primitives, &morphed);
  }
  check(files >= 50 && primitives >= 50 && morphed >= 3, "corpus: %d skinned files, %d primitives (%d with morph "
        "targets) compared", files, primitives, morphed);
  printf("corpus: %d skinned files, %d primitives (%d with morph targets), the compute path against skn_skin\n", files,
         primitives, morphed);
  cJSON_Delete(manifest);
  free(text);
}
