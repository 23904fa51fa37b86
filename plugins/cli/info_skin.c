/* info_skin.c — `skn info` (what a file holds) and `skn skin` (its skinned
 * mesh as OBJ, PLY or JSON, in the primitive's accessor order; with --gpu
 * as the GPU computed it, skin_gpu.c). */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

int cmd_info(int argc, char **argv) {
  options o;
  int rc = parse_options(argc, argv, 2, "any-path", &o);
  if (rc) return rc;
  skn_gltf *g;
  skn_gltf_info info = {sizeof info};
  if (open_document(&o, &g) || skn_gltf_info_get(g, &info)) return fail_input(o.file);
  printf("%s: %u skinned primitive(s), %u skin(s), %u animation(s), %u nodes\n", o.file, info.primitive_count,
         info.skin_count, info.animation_count, info.node_count);
  for (uint32_t p = 0; p < info.primitive_count; ++p) {
    skn_gltf_primitive_info pi = {sizeof pi};
    skn_gltf_primitive_info_get(g, p, &pi);
    printf("  primitive %u: meshes[%u] \"%s\" primitive %u on nodes[%u] \"%s\", %u vertices, %u triangles, skins[%u] "
           "with %u joints, %u influences per vertex%s%s\n", p, pi.mesh, pi.mesh_name, pi.primitive_in_mesh, pi.node,
           pi.node_name, pi.vertex_count, pi.triangle_count, pi.skin, pi.joint_count, pi.influences_per_vertex,
           pi.flags & SKN_GLTF_HAS_NORMALS ? ", normals" : "", pi.flags & SKN_GLTF_HAS_TANGENTS ? ", tangents" : "");
    for (uint32_t t = 0; t < pi.morph_target_count; ++t) {
      const char *name = "";
      skn_gltf_morph_target_name(g, p, t, &name);
      printf("    morph target %u: \"%s\"\n", t, name);
    }
  }
  for (uint32_t a = 0; a < info.animation_count; ++a) {
    skn_gltf_animation_info ai = {sizeof ai};
    skn_gltf_animation_info_get(g, a, &ai);
    printf("  animation %u: \"%s\", %.3f s (keys from %.3f to %.3f s), %u channels\n", a, ai.name, ai.end - ai.start,
           ai.start, ai.end, ai.channel_count);
  }
  skn_gltf_close(g);
  return EXIT_OK;
}

static void write_floats(FILE *f, const char *key, const float *v, size_t n) {
  fprintf(f, "\"%s\": [", key);
  for (size_t i = 0; i < n; ++i) fprintf(f, "%s%.9g", i ? "," : "", v[i]);
  fprintf(f, "]");
}

/* What skinned the mesh (--gpu: the path and renderer), "" for skn_skin. */
static const char *skinned_by = "";

static void write_json(FILE *f, const posed_mesh *m, const float *p, const float *n) {
  uint32_t nv = m->info.vertex_count;
  fprintf(f, "{\"vertex_count\": %u, ", nv);
  if (*skinned_by) fprintf(f, "\"gpu\": \"%s\", ", skinned_by);
  write_floats(f, "positions", p, (size_t)nv * 3);
  if (n) {
    fprintf(f, ", ");
    write_floats(f, "normals", n, (size_t)nv * 3);
  }
  fprintf(f, ", \"triangles\": [");
  for (uint32_t i = 0; i < m->info.triangle_count * 3; ++i) fprintf(f, "%s%u", i ? "," : "", m->triangles[i]);
  fprintf(f, "]}\n");
}

static void write_obj(FILE *f, const posed_mesh *m, const float *p, const float *n) {
  fprintf(f, "# skn %s: %u vertices, %u triangles\n", skn_version_string(), m->info.vertex_count, m->info.triangle_count);
  if (*skinned_by) fprintf(f, "# skinned on the GPU: %s\n", skinned_by);
  for (uint32_t v = 0; v < m->info.vertex_count; ++v) fprintf(f, "v %.9g %.9g %.9g\n", p[v * 3], p[v * 3 + 1], p[v * 3 + 2]);
  for (uint32_t v = 0; n && v < m->info.vertex_count; ++v) fprintf(f, "vn %.9g %.9g %.9g\n", n[v * 3], n[v * 3 + 1], n[v * 3 + 2]);
  for (uint32_t t = 0; t < m->info.triangle_count; ++t) {
    const uint32_t *i = m->triangles + t * 3;
    if (n) fprintf(f, "f %u//%u %u//%u %u//%u\n", i[0] + 1, i[0] + 1, i[1] + 1, i[1] + 1, i[2] + 1, i[2] + 1);
    else fprintf(f, "f %u %u %u\n", i[0] + 1, i[1] + 1, i[2] + 1);
  }
}

static void write_ply(FILE *f, const posed_mesh *m, const float *p, const float *n) {
  fprintf(f, "ply\nformat ascii 1.0\ncomment skn %s\n", skn_version_string());
  if (*skinned_by) fprintf(f, "comment skinned on the GPU: %s\n", skinned_by);
  fprintf(f, "element vertex %u\nproperty float x\nproperty float y\nproperty float z\n", m->info.vertex_count);
  if (n) fprintf(f, "property float nx\nproperty float ny\nproperty float nz\n");
  fprintf(f, "element face %u\nproperty list uchar uint vertex_indices\nend_header\n", m->info.triangle_count);
  for (uint32_t v = 0; v < m->info.vertex_count; ++v) {
    fprintf(f, "%.9g %.9g %.9g", p[v * 3], p[v * 3 + 1], p[v * 3 + 2]);
    if (n) fprintf(f, " %.9g %.9g %.9g", n[v * 3], n[v * 3 + 1], n[v * 3 + 2]);
    fprintf(f, "\n");
  }
  for (uint32_t t = 0; t < m->info.triangle_count; ++t)
    fprintf(f, "3 %u %u %u\n", m->triangles[t * 3], m->triangles[t * 3 + 1], m->triangles[t * 3 + 2]);
}

/* --format, else the extension of -o (.obj, .ply, .json), else JSON to
 * standard output; NULL for an -o whose extension is none of them. */
static const char *output_format(const options *o) {
  if (o->format) return o->format;
  if (!o->out) return "json";
  static const char *const KNOWN[] = {"obj", "ply", "json"};
  int k = output_extension(o->out, KNOWN, 3);
  return k < 0 ? NULL : KNOWN[k];
}

int cmd_skin(int argc, char **argv) {
  options o;
  int rc = parse_options(argc, argv, 2, "primitive animation time method dqs-scale blend layout weights format gpu any-path o", &o);
  if (rc) return rc;
  if (o.method_count != 1) return fprintf(stderr, "skn: skin takes one --method\n"), EXIT_USAGE;
  if (o.format && strcmp(o.format, "obj") && strcmp(o.format, "ply") && strcmp(o.format, "json"))
    return fprintf(stderr, "skn: --format %s is not obj, ply or json (see --help)\n", o.format), EXIT_USAGE;
  if (!output_format(&o))
    return fprintf(stderr, "skn: -o %s: the extension says no format skn writes (.obj, .ply or .json, or --format)\n",
                   o.out), EXIT_USAGE;
  posed_mesh m;
  rc = posed_mesh_open(&m, &o);
  size_t n = (size_t)m.info.vertex_count * 3;
  float *p = rc ? NULL : malloc(n * sizeof(float)), *nrm = rc ? NULL : malloc(n * sizeof(float));
  if (!rc && (!p || !nrm)) rc = fail_input("out of memory");
  static char how[256];
  if (!rc && o.gpu) rc = posed_mesh_skin_gpu(&m, o.time, o.methods[0], o.dqs_scale, p, nrm, how, sizeof how);
  else if (!rc) rc = posed_mesh_skin(&m, o.time, o.methods[0], o.dqs_scale, p, nrm);
  skinned_by = o.gpu ? how : "";
  FILE *f = rc ? NULL : o.out ? fopen(o.out, "w") : stdout;
  if (!rc && !f) {
    fprintf(stderr, "skn: cannot write %s\n", o.out);
    rc = EXIT_INPUT;
  }
  if (!rc) {
    const float *normals = m.info.flags & SKN_GLTF_HAS_NORMALS ? nrm : NULL;
    const char *format = output_format(&o);
    if (!strcmp(format, "obj")) write_obj(f, &m, p, normals);
    else if (!strcmp(format, "ply")) write_ply(f, &m, p, normals);
    else write_json(f, &m, p, normals);
    if (f != stdout && fclose(f)) rc = fail_input("write");
  }
  free(p);
  free(nrm);
  posed_mesh_close(&m);
  return rc;
}
