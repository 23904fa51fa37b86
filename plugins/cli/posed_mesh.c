/* posed_mesh.c — what every subcommand starts from: a glTF primitive bound
 * into a rig, its animation resolved by index or name, skinned at a time. */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

/* The library's message without the call it names first ("gltf_bind: ..."):
 * a reader of the command's output knows the file, not the C function. */
static const char *without_call(const char *msg) {
  size_t n = strspn(msg, "abcdefghijklmnopqrstuvwxyz_");
  return n && msg[n] == ':' && msg[n + 1] == ' ' && memchr(msg, '_', n) ? msg + n + 2 : msg;
}

int fail_input(const char *what) {
  const char *msg = without_call(skn_last_error());
  if (!strncmp(msg, what, strlen(what))) fprintf(stderr, "skn: %s\n", msg); /* it names the file already */
  else fprintf(stderr, "skn: %s: %s\n", what, msg);
  return EXIT_INPUT;
}

/* "no animation is named X; the document has A, B, C" */
static int unknown_animation(const posed_mesh *m, const options *o, uint32_t count) {
  fprintf(stderr, "skn: %s: no animation is named \"%s\"; ", o->file, o->animation);
  if (!count) fprintf(stderr, "the document has none\n");
  for (uint32_t a = 0; a < count; ++a) {
    skn_gltf_animation_info ai = {sizeof ai};
    skn_gltf_animation_info_get(m->gltf, a, &ai);
    fprintf(stderr, "%s%u \"%s\"%s", a ? ", " : "the document has ", a, ai.name, a + 1 == count ? "\n" : "");
  }
  return EXIT_INPUT;
}

/* --animation N|NAME|none; by default the first animation, if any. */
static int resolve_animation(posed_mesh *m, const options *o, uint32_t count) {
  m->animation = count ? 0 : SKN_GLTF_NO_ANIMATION;
  if (!o->animation) return EXIT_OK;
  if (!strcmp(o->animation, "none")) {
    m->animation = SKN_GLTF_NO_ANIMATION;
    return EXIT_OK;
  }
  char *end;
  if (o->animation[0] == '-' && o->animation[1] >= '0' && o->animation[1] <= '9') {
    fprintf(stderr, "skn: --animation %s is not an index (see --help)\n", o->animation);
    return EXIT_USAGE;
  }
  unsigned long n = strtoul(o->animation, &end, 10);
  if (*o->animation && !*end) {
    if (n >= count) {
      fprintf(stderr, "skn: %s: animation %lu >= %u animations\n", o->file, n, count);
      return EXIT_INPUT;
    }
    m->animation = (uint32_t)n;
    return EXIT_OK;
  }
  return skn_gltf_find_animation(m->gltf, o->animation, &m->animation) ? unknown_animation(m, o, count) : EXIT_OK;
}

skn_status open_document(const options *o, skn_gltf **out) {
  skn_gltf_open_desc d = {sizeof d};
  d.path = o->file;
  d.flags = o->any_path ? SKN_GLTF_OPEN_ANY_PATH : 0;
  return skn_gltf_open_with(&d, out);
}

int posed_mesh_open(posed_mesh *m, const options *o) {
  memset(m, 0, sizeof *m);
  skn_gltf_info info = {sizeof info};
  if (open_document(o, &m->gltf) || skn_gltf_info_get(m->gltf, &info)) return fail_input(o->file);
  m->info.struct_size = sizeof m->info;
  m->primitive = o->primitive;
  m->options = o;
  if (skn_gltf_primitive_info_get(m->gltf, o->primitive, &m->info)) return fail_input(o->file);
  int rc = resolve_animation(m, o, info.animation_count);
  if (rc != EXIT_OK) return rc;
  skn_gltf_bind_desc bd = {sizeof bd};
  bd.primitive = o->primitive;
  bd.layout = o->layout;
  for (int k = 0; k < o->method_count; ++k) {
    bd.centers_of_rotation |= o->methods[k] == SKN_METHOD_COR;
    if (o->methods[k] == SKN_METHOD_BLEND && !m->blend_weights) { /* glTF has no blend weights: one for all */
      if ((uint64_t)m->info.vertex_count * 134 > ((uint64_t)2 << 30)) /* bind would refuse it (skn.h, max_bytes) */
        return fprintf(stderr, "skn: %s: %u vertices are more than skn binds\n", o->file, m->info.vertex_count), EXIT_INPUT;
      m->blend_weights = malloc((size_t)m->info.vertex_count * sizeof(float));
      if (!m->blend_weights) return fail_input("out of memory");
      for (uint32_t v = 0; v < m->info.vertex_count; ++v) m->blend_weights[v] = o->blend;
    }
  }
  bd.blend_weights = m->blend_weights;
  if (skn_gltf_bind(m->gltf, &bd, &m->rig) || skn_pose_create(m->rig, &m->pose)) return fail_input(o->file);
  /* the triangles, under the bind's default budget: a file's index count need not be backed by bytes */
  if ((uint64_t)m->info.triangle_count * 12 > ((uint64_t)2 << 30)) {
    fprintf(stderr, "skn: %s: %u triangles are more than skn reads\n", o->file, m->info.triangle_count);
    return EXIT_INPUT;
  }
  m->triangles = malloc(((size_t)m->info.triangle_count * 3 + 1) * sizeof *m->triangles);
  if (!m->triangles) return fail_input("out of memory");
  if (skn_gltf_triangles(m->gltf, o->primitive, m->triangles, (size_t)m->info.triangle_count * 3))
    return fail_input(o->file);
  return EXIT_OK;
}

int posed_mesh_pose(posed_mesh *m, float time) {
  if (skn_gltf_pose(m->gltf, m->primitive, m->animation, time, m->pose)) return fail_input("skin");
  if (m->options && m->options->weight_count &&
      skn_pose_set_morph_weights(m->pose, 0, m->options->weight_count, m->options->weights))
    return fail_input("--weights");
  return EXIT_OK;
}

int posed_mesh_skin(posed_mesh *m, float time, skn_method method, skn_dqs_scale split, float *positions,
                    float *normals) {
  skn_skin_desc s = {sizeof s};
  s.method = method;
  s.dqs_scale = split;
  s.positions.data = positions;
  s.normals.data = m->info.flags & SKN_GLTF_HAS_NORMALS ? normals : NULL;
  int rc = posed_mesh_pose(m, time);
  if (!rc && skn_skin(m->rig, m->pose, &s)) return fail_input("skin");
  return rc;
}

void posed_mesh_close(posed_mesh *m) {
  skn_pose_destroy(m->pose);
  skn_rig_destroy(m->rig);
  skn_gltf_close(m->gltf);
  free(m->triangles);
  free(m->blend_weights);
  memset(m, 0, sizeof *m);
}
