/* weights.c — `skn weights FILE -o OUT.glb|OUT.gltf`: the file again, its
 * skinned meshes weighted by skn (skn_gltf_compute_weights: bone heat or
 * closest bone), in their primitives' JOINTS_n / WEIGHTS_n.
 *
 * What changes: each primitive of a mesh on a node with a skin gets new
 * accessors for JOINTS_0.. (unsigned byte or short, as the skin's joint
 * count needs) and WEIGHTS_0.. (float), ceil(k / 4) sets of them, in new
 * buffer views over the new bytes; sets past those are taken off the
 * primitive. Everything else is the document's own (gltf_edit.c: the
 * JSON printed again, the buffers' bytes), the accessors the old weights
 * were in left unused. The file is written under a temporary name and
 * renamed when whole. A mesh two skinned nodes share takes the
 * first node's skin (glTF's own rule: its joints index that skin). */
#include "cli.h"
#include "gltf_edit.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* "skn: weights: " and the message on stderr; returns rc. */
static int say(int rc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int say(int rc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("skn: weights: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  return rc;
}

/* One primitive's weights as sets of JOINTS_s / WEIGHTS_s, named in its attributes. */
static int write_sets(gltf_edit *e, cJSON *attributes, const uint32_t *joints, const float *weights, uint32_t n,
                      uint32_t k, uint32_t joint_count) {
  uint32_t sets = (k + 3) / 4;
  int wide = joint_count > 256;
  size_t width = wide ? 2 : 1;
  uint8_t *j8 = malloc((size_t)n * 4 * width + 1);
  float *w4 = malloc((size_t)n * 4 * sizeof *w4 + 1);
  int ok = j8 && w4;
  for (uint32_t s = 0; ok && s < sets; ++s) {
    for (uint32_t v = 0; v < n; ++v)
      for (uint32_t c = 0; c < 4; ++c) {
        uint32_t slot = 4 * s + c, j = slot < k ? joints[(size_t)v * k + slot] : 0;
        if (wide) ((uint16_t *)(void *)j8)[(size_t)v * 4 + c] = (uint16_t)j;
        else j8[(size_t)v * 4 + c] = (uint8_t)j;
        w4[(size_t)v * 4 + c] = slot < k ? weights[(size_t)v * k + slot] : 0.0f;
      }
    int ja = gltf_edit_accessor(e, j8, (size_t)n * 4 * width, wide ? 5123 : 5121, n, "VEC4");
    int wa = gltf_edit_accessor(e, w4, (size_t)n * 4 * sizeof *w4, 5126, n, "VEC4");
    ok = ja >= 0 && wa >= 0;
    char name[24];
    snprintf(name, sizeof name, "JOINTS_%u", s);
    cJSON_DeleteItemFromObject(attributes, name);
    cJSON_AddNumberToObject(attributes, name, ja);
    snprintf(name, sizeof name, "WEIGHTS_%u", s);
    cJSON_DeleteItemFromObject(attributes, name);
    cJSON_AddNumberToObject(attributes, name, wa);
  }
  for (uint32_t s = sets; s < 64; ++s) { /* sets past the new ones: gone */
    char name[24];
    snprintf(name, sizeof name, "JOINTS_%u", s);
    cJSON_DeleteItemFromObject(attributes, name);
    snprintf(name, sizeof name, "WEIGHTS_%u", s);
    cJSON_DeleteItemFromObject(attributes, name);
  }
  free(j8), free(w4);
  return ok;
}

/* Every skinned node's mesh, primitive by primitive; *weighted counts them. */
static int weigh_all(gltf_edit *e, skn_gltf *gltf, const options *o, uint32_t *weighted) {
  cJSON *nodes = cJSON_GetObjectItem(e->root, "nodes"), *meshes = cJSON_GetObjectItem(e->root, "meshes");
  cJSON *skins = cJSON_GetObjectItem(e->root, "skins");
  int mesh_count = cJSON_GetArraySize(meshes), rc = EXIT_OK;
  uint8_t *done = calloc((size_t)mesh_count + 1, 1);
  if (!done) return say(EXIT_INPUT, "out of memory");
  for (int i = 0; !rc && i < cJSON_GetArraySize(nodes); ++i) {
    const cJSON *node = cJSON_GetArrayItem(nodes, i);
    int mesh = gltf_number_of(node, "mesh", -1), skin = gltf_number_of(node, "skin", -1);
    if (mesh < 0 || skin < 0 || mesh >= mesh_count || done[mesh]) continue;
    done[mesh] = 1;
    uint32_t joint_count = (uint32_t)cJSON_GetArraySize(cJSON_GetObjectItem(cJSON_GetArrayItem(skins, skin), "joints"));
    cJSON *prims = cJSON_GetObjectItem(cJSON_GetArrayItem(meshes, mesh), "primitives");
    for (int k = 0; !rc && k < cJSON_GetArraySize(prims); ++k) {
      cJSON *prim = cJSON_GetArrayItem(prims, k);
      if (gltf_number_of(prim, "mode", 4) < 4) {
        say(0, "meshes[%d].primitives[%d]: points or lines, left as they are", mesh, k);
        continue;
      }
      skn_gltf_weights_desc d = {sizeof d, (uint32_t)i, (uint32_t)k, o->weights_method,
                                 o->max_influences ? o->max_influences : 4, o->min_weight,
                                 (o->no_weld ? 0u : SKN_WEIGHTS_WELD) | (o->non_manifold ? SKN_WEIGHTS_NON_MANIFOLD : 0u),
                                 o->threads};
      uint32_t n = 0;
      if (skn_gltf_compute_weights(gltf, &d, NULL, NULL, 0, &n)) {
        rc = fail_input("weights");
        break;
      }
      size_t entries = (size_t)n * d.influences_per_vertex;
      uint32_t *joints = malloc(entries * sizeof *joints + 4);
      float *weights = malloc(entries * sizeof *weights + 4);
      if (!joints || !weights) {
        rc = say(EXIT_INPUT, "out of memory");
      } else if (skn_gltf_compute_weights(gltf, &d, joints, weights, entries, &n)) {
        rc = say(EXIT_INPUT, "meshes[%d].primitives[%d] (nodes[%d]): %s", mesh, k, i, skn_last_error());
        if (!o->non_manifold && strstr(skn_last_error(), "non-manifold"))
          fprintf(stderr, "skn: --non-manifold weighs such a mesh as Blender does\n");
      } else if (!write_sets(e, cJSON_GetObjectItem(prim, "attributes"), joints, weights, n, d.influences_per_vertex,
                             joint_count)) {
        rc = say(EXIT_INPUT, "out of memory");
      } else {
        ++*weighted;
      }
      free(joints), free(weights);
    }
  }
  free(done);
  if (!rc && !*weighted) rc = say(EXIT_INPUT, "%s has no mesh on a node with a skin", o->file);
  return rc;
}

int cmd_weights(int argc, char **argv) {
  options o;
  int rc = parse_options(argc, argv, 2, "weights-method max-influences min-weight threads non-manifold no-weld any-path o", &o);
  if (rc) return rc;
  static const char *const EXTENSIONS[] = {"glb", "gltf"};
  int ext = o.out ? output_extension(o.out, EXTENSIONS, 2) : -1;
  if (ext < 0) return say(EXIT_USAGE, "-o OUT.glb or OUT.gltf is required");
  skn_gltf *gltf = NULL;
  if (open_document(&o, &gltf)) return fail_input("weights");
  gltf_edit e;
  uint32_t weighted = 0;
  rc = gltf_edit_open(&e, "weights", o.file, o.out, ext == 0);
  if (rc == EXIT_USAGE) say(rc, "%s names files beside it (buffers or images): write OUT in its folder", o.file);
  if (!rc) rc = weigh_all(&e, gltf, &o, &weighted);
  if (!rc) rc = gltf_edit_write(&e, "weights", o.out);
  if (!rc)
    printf("%s: %u primitive%s weighted (%s, %u influences), %s\n", o.out, weighted, weighted == 1 ? "" : "s",
           o.weights_method == SKN_WEIGHTS_HEAT ? "bone heat" : "closest bone", o.max_influences ? o.max_influences : 4,
           ext == 0 ? "glb" : "gltf");
  gltf_edit_close(&e);
  skn_gltf_close(gltf);
  return rc;
}
