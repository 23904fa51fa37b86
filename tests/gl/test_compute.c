/* test_compute.c — the compute path (skn_gl.h, SKN_GL_PATH_COMPUTE) against
 * skn_skin: every method and DQS split x morph targets (none, sparse,
 * dense, both with negative and > 1 weights) x influences {1, 4, 8, 13, 64}
 * x outputs (P, PN, PNT) on random rigs with scaled and sheared joints, and
 * the sample models; the output drawn through the host's vertex main;
 * several rigs and 64 instances in one dispatch equal to separate skn_skin
 * calls; the previous positions; a context without the compute path, the
 * limits, and bad calls that must change nothing. */
#include "rigs.h"

#include <stdlib.h>
#include <string.h>

static const uint32_t KS[5] = {1, 4, 8, 13, 64};
static const char *const MODES[MORPH_MODES] = {"no morphs", "sparse morphs", "dense morphs", "mixed morphs"};
static const uint32_t PNT = SKN_GPU_NORMALS | SKN_GPU_TANGENTS;

static int es(void) { return gl_context_api == SKN_EGL_OPENGL_ES; }

/* Every method and split on one pair of rigs (sheared; uniform scale for
 * LBS_QUATERNION), with the given outputs, by the path `compute` says. */
static void all_methods(const posed *sheared, const posed *uniform, uint32_t k, uint32_t outputs, int compute,
                        const char *what) {
  for (int m = 0; m <= SKN_METHOD_COR; ++m)
    for (int split = 0; split < (m >= SKN_METHOD_DQS ? 2 : 1); ++split) {
      gpu_case c = {(skn_method)m, (skn_dqs_scale)split, k, outputs, SKN_GL_PALETTE_AUTO, 0, compute};
      skn_gl_info info = {sizeof info};
      skin_diff d = compare_case(m == SKN_METHOD_LBS_QUATERNION ? uniform : sheared, &c, &info);
      check_diff(&d, &c, what);
      skn_gl_path want = compute ? SKN_GL_PATH_COMPUTE : SKN_GL_PATH_VERTEX;
      check(d.position > 1e29 || info.path == want, "%s: the adapter took path %d", what, (int)info.path);
    }
}

/* The compute path: influences x morph modes x outputs x every method (its
 * text depends on the method, outputs and whether there are targets only: a
 * handful of compiles); in the ES context the same with PNT, the texts but
 * for their version line being the GL run's; once drawn through the host's
 * vertex main rather than read back. The vertex path with morph targets. */
static void sweep(void) {
  static const uint32_t OUTPUTS[3] = {0, SKN_GPU_NORMALS, SKN_GPU_NORMALS | SKN_GPU_TANGENTS};
  char what[96];
  for (int k = 0; k < 5; ++k)
    for (int mode = 0; mode < MORPH_MODES; ++mode) {
      posed sheared, uniform;
      uint64_t seed = 1000 + 10 * (uint64_t)k + (uint64_t)mode;
      int ok = random_morphed(&sheared, seed, 80, 240, KS[k], 2, (morph_mode)mode) &&
               random_morphed(&uniform, seed + 500, 80, 240, KS[k], 1, (morph_mode)mode);
      snprintf(what, sizeof what, "compute%s, %u influences, %s", es() ? " (ES)" : "", KS[k], MODES[mode]);
      check(ok, "%s: the rigs bind", what);
      for (int o = es() ? 2 : 0; ok && o < 3; ++o) /* ES: the texts of the GL run, bar the version: PNT */
        all_methods(&sheared, &uniform, KS[k], OUTPUTS[o], 1, what);
      /* the vertex path with morph targets (test_variants has it without): each text and vertex
         layout costs llvmpipe a compile of its own, so the sparse, dense and mixed targets at 4
         influences with every output, mixed at 8 with all three */
      snprintf(what, sizeof what, "vertex path%s, %u influences, %s", es() ? " (ES)" : "", KS[k], MODES[mode]);
      int vertex = mode != MORPHS_NONE && (KS[k] == 4 || (KS[k] == 8 && mode == MORPHS_MIXED));
      if (es()) vertex = KS[k] == 4 && mode == MORPHS_MIXED; /* ES: one rig, every method, PNT */
      for (int o = 2; ok && vertex && o >= (KS[k] == 4 && mode == MORPHS_MIXED && !es() ? 0 : 2); --o)
        all_methods(&sheared, &uniform, 0, OUTPUTS[o], 0, what);
      if (ok && k == 3 && mode == MORPHS_MIXED) all_methods(&sheared, &uniform, KS[k], PNT, 2, "compute, drawn");
      posed_free(&sheared), posed_free(&uniform);
    }
}

static void sample_models(void) {
  static const char *const MODELS[2] = {"data/gltf/Fox/glTF-Binary/Fox.glb", "data/gltf/CesiumMan/glTF/CesiumMan.gltf"};
  for (int f = 0; f < 2; ++f) {
    posed p;
    int ok = gltf_posed(&p, MODELS[f], 0.7f);
    uint32_t outputs = (p.has_normals ? SKN_GPU_NORMALS : 0) | (p.has_tangents ? SKN_GPU_TANGENTS : 0);
    for (int m = 0; ok && m <= SKN_METHOD_COR; ++m) {
      gpu_case c = {(skn_method)m, SKN_DQS_SCALE_POLAR, 0, outputs, SKN_GL_PALETTE_AUTO, 0, 1};
      skin_diff d = compare_case(&p, &c, NULL);
      check_diff(&d, &c, MODELS[f]);
    }
    if (ok) posed_free(&p);
  }
}

/* ---- many jobs a dispatch ---- */

static skn_gl_desc compute_desc(skn_method method, uint32_t outputs) {
  skn_gl_desc d = {sizeof d};
  d.loader = skn_egl_loader;
  d.method = method;
  d.outputs = outputs;
  d.vertex_main = "in vec3 skn_rest_position;\nvoid main() { gl_Position = vec4(skn_skin_position(skn_rest_position), 1.0); }\n";
  d.path = SKN_GL_PATH_COMPUTE;
  return d;
}

/* Job j's output against skn_skin of its rig and pose. */
static void check_job(skn_gl *g, size_t first_record, const posed *p, skn_method method, const char *what) {
  size_t n = p->vertex_count;
  float *cpu = malloc(n * 6 * sizeof(float)), *gpu = malloc(n * 6 * sizeof(float));
  skn_skin_desc s = {sizeof s};
  s.method = method;
  s.positions.data = cpu;
  s.normals.data = cpu + n * 3;
  int ok = skn_skin(p->rig, p->pose, &s) == SKN_OK && read_output(g, first_record, (uint32_t)n, gpu, gpu + n * 3, NULL, NULL);
  double dp = ok ? max_abs_diff(cpu, gpu, n * 3) / p->size : 1e30, dn = ok ? max_abs_diff(cpu + n * 3, gpu + n * 3, n * 3) : 1e30;
  check(dp <= 1e-5 && dn <= 1e-5, "%s: position %.3g of the size, normal %.3g", what, dp, dn);
  free(cpu), free(gpu);
}

/* Instance i of a random rig: its pose raised by i / 64 and its morph
 * weights scaled, set in p->pose. */
static skn_status pose_instance(posed *p, uint32_t i) {
  float f = (float)i / 64, w[5] = {0.2f * f, -f, 1.0f + f, 0.5f, -0.25f};
  skn_transform *local = malloc(p->joint_count * sizeof *local);
  if (!local) return SKN_ERR_OUT_OF_MEMORY;
  for (uint32_t k = 0; k < p->joint_count; ++k) local[k] = p->local[k], local[k].translation[1] += f;
  skn_status s = skn_pose_set_local(p->pose, 0, p->joint_count, local);
  if (s == SKN_OK) s = skn_pose_set_morph_weights(p->pose, 0, p->morph_count, w);
  free(local);
  return s;
}

/* Three rigs (two with morph targets, one of 13 influences) x 64
 * instances, each its own pose: one dispatch, every job equal to skn_skin
 * of its own rig and pose. */
static void batched(void) {
  enum { RIGS = 3, INSTANCES = 64 };
  posed rigs[RIGS];
  int ok = random_morphed(&rigs[0], 71, 30, 150, 4, 2, MORPHS_NONE) &&
           random_morphed(&rigs[1], 72, 50, 211, 13, 2, MORPHS_MIXED) &&
           random_morphed(&rigs[2], 73, 20, 97, 8, 2, MORPHS_SPARSE);
  check(ok, "batched: the rigs bind");
  const skn_rig *list[RIGS] = {rigs[0].rig, rigs[1].rig, rigs[2].rig};
  skn_gl_desc d = compute_desc(SKN_METHOD_DQS, SKN_GPU_NORMALS);
  d.instances = INSTANCES;
  skn_gl *g = NULL;
  skn_status s = ok ? skn_gl_create_many(list, RIGS, &d, &g) : SKN_ERR_INVALID_ARGUMENT;
  check(s == SKN_OK, "batched: skn_gl_create_many: %s", skn_last_error());
  for (uint32_t j = 0; s == SKN_OK && j < RIGS * INSTANCES; ++j) {
    s = pose_instance(&rigs[j / INSTANCES], j % INSTANCES);
    if (s == SKN_OK) s = skn_gl_set_pose(g, j, rigs[j / INSTANCES].pose);
    check(s == SKN_OK, "batched: job %u's pose: %s", j, skn_last_error());
  }
  if (s == SKN_OK) s = skn_gl_dispatch(g);
  check(s == SKN_OK, "batched: the dispatch: %s", skn_last_error());
  size_t first = 0;
  char what[64];
  for (uint32_t j = 0; s == SKN_OK && j < RIGS * INSTANCES; ++j) { /* each job posed again on the CPU */
    posed *p = &rigs[j / INSTANCES];
    snprintf(what, sizeof what, "batched: rig %u instance %u", j / INSTANCES, j % INSTANCES);
    if (pose_instance(p, j % INSTANCES) == SKN_OK) check_job(g, first, p, SKN_METHOD_DQS, what);
    first += p->vertex_count;
  }
  skn_gl_info info = {sizeof info};
  if (g) skn_gl_info_get(g, &info);
  check(!g || info.job_count == RIGS * INSTANCES, "batched: %u jobs", info.job_count);
  skn_gl_destroy(g);
  for (int r = 0; ok && r < RIGS; ++r) posed_free(&rigs[r]);
}

/* ---- previous positions ---- */

/* Frame 1's previous positions are its own; frame 2's are frame 1's. */
static void previous(void) {
  posed p;
  int ok = random_morphed(&p, 81, 30, 200, 6, 2, MORPHS_MIXED);
  skn_gl_desc d = compute_desc(SKN_METHOD_LBS_MATRIX, PNT);
  d.flags = SKN_GL_PREVIOUS_POSITIONS;
  skn_gl *g = NULL;
  skn_status s = ok ? skn_gl_create(p.rig, &d, &g) : SKN_ERR_INVALID_ARGUMENT;
  check(s == SKN_OK, "previous: create: %s", skn_last_error());
  size_t n = p.vertex_count;
  float *pos[2] = {malloc(n * 12), malloc(n * 12)}, *prev = malloc(n * 12);
  for (uint32_t frame = 0; s == SKN_OK && frame < 2; ++frame) {
    s = pose_instance(&p, 40 * frame);
    if (s == SKN_OK) s = skn_gl_update(g, p.pose);
    check(s == SKN_OK && read_output(g, 0, (uint32_t)n, pos[frame], NULL, NULL, prev), "previous: frame %u: %s", frame + 1,
          skn_last_error());
    check(!memcmp(prev, pos[0], n * 12), "previous: frame %u's previous positions are not frame 1's", frame + 1);
  }
  check(s != SKN_OK || max_abs_diff(pos[0], pos[1], n * 3) > 1e-3 * p.size, "previous: the two frames do not differ");
  skn_gl_info info = {sizeof info};
  if (g) skn_gl_info_get(g, &info);
  check(!g || (info.output_floats == 13 && info.output_previous == 10), "previous: output record %u floats, previous at %u",
        info.output_floats, info.output_previous);
  free(pos[0]), free(pos[1]), free(prev);
  skn_gl_destroy(g);
  if (ok) posed_free(&p);
}

/* ---- a context without the compute path ---- */

/* A loader that hides glDispatchCompute, or reports an older version. */
static int hide_mode;
static const GLubyte *SKN_GLAPIENTRY old_version(GLenum name) {
  if (name == GL_VERSION) return (const GLubyte *)(es() ? "OpenGL ES 3.0 (skn test)" : "3.3 (Core Profile) skn test");
  return gl.GetString(name);
}
static skn_gl_proc hiding_loader(const char *name) {
  if (hide_mode == 0 && !strcmp(name, "glDispatchCompute")) return NULL;
  if (hide_mode == 1 && !strcmp(name, "glGetString")) return (skn_gl_proc)old_version;
  return skn_egl_loader(name);
}

static void without_compute(void) {
  posed p;
  int ok = random_morphed(&p, 91, 20, 100, 4, 2, MORPHS_NONE);
  for (hide_mode = 0; ok && hide_mode < 2; ++hide_mode) {
    const char *missing = hide_mode ? (es() ? "OpenGL ES 3.0" : "OpenGL 3.3") : "glDispatchCompute";
    skn_gl_desc d = compute_desc(SKN_METHOD_DQS, 0);
    d.loader = hiding_loader;
    skn_gl *g = (skn_gl *)&d;
    skn_status s = skn_gl_create(p.rig, &d, &g);
    check(s == SKN_ERR_UNSUPPORTED && strstr(skn_last_error(), missing) && g == (skn_gl *)&d,
          "no compute (%s): path COMPUTE gave %s: %s", missing, skn_status_name(s), skn_last_error());
    d.path = SKN_GL_PATH_AUTO; /* falls back, and says why */
    s = skn_gl_create(p.rig, &d, &g);
    skn_gl_info info = {sizeof info};
    if (s == SKN_OK) skn_gl_info_get(g, &info);
    check(s == SKN_OK && info.path == SKN_GL_PATH_VERTEX && info.path_reason && strstr(info.path_reason, missing),
          "no compute (%s): AUTO took path %d (%s)", missing, (int)info.path, info.path_reason ? info.path_reason : "");
    check(s == SKN_OK && skn_gl_update(g, p.pose) == SKN_OK, "no compute: the vertex path takes the pose: %s",
          skn_last_error());
    d.instances = 2; /* what only the compute path does */
    skn_gl *g2 = (skn_gl *)&d;
    s = skn_gl_create(p.rig, &d, &g2);
    check(s == SKN_ERR_UNSUPPORTED && strstr(skn_last_error(), "compute path") && g2 == (skn_gl *)&d,
          "no compute: 2 instances gave %s: %s", skn_status_name(s), skn_last_error());
    skn_gl_destroy(g);
  }
  if (ok) posed_free(&p);
}

/* ---- limits and bad calls ---- */

static void errors(void) {
  posed p, q;
  int ok = random_morphed(&p, 95, 20, 1000, 4, 2, MORPHS_SPARSE) && random_morphed(&q, 96, 30, 100, 4, 2, MORPHS_SPARSE);
  check(ok, "compute errors: the rigs bind");
  if (!ok) return;
  GLint block = 0;
  gl.GetIntegerv(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &block);
  skn_gl_desc d = compute_desc(SKN_METHOD_LBS_MATRIX, 0);
  d.instances = (uint32_t)((uint64_t)block / (1000 * 12) + 1); /* an output one record past the limit */
  skn_gl *g = (skn_gl *)&d;
  skn_status s = skn_gl_create(p.rig, &d, &g);
  check(s == SKN_ERR_UNSUPPORTED && strstr(skn_last_error(), "GL_MAX_SHADER_STORAGE_BLOCK_SIZE") && g == (skn_gl *)&d,
        "compute errors: %u instances of 1000 vertices gave %s: %s", d.instances, skn_status_name(s), skn_last_error());
  d.instances = 2;
  s = skn_gl_create(p.rig, &d, &g);
  check(s == SKN_OK, "compute errors: create: %s", skn_last_error());
  if (s != SKN_OK) goto done;
  s = skn_gl_dispatch(g);
  check(s == SKN_ERR_INVALID_ARGUMENT && strstr(skn_last_error(), "job 0 has no pose"), "compute errors: unposed: %s",
        skn_last_error());
  check(skn_gl_set_pose(g, 2, p.pose) == SKN_ERR_INDEX_OUT_OF_RANGE, "compute errors: job 2 of 2 accepted");
  check(skn_gl_set_pose(g, 0, p.pose) == SKN_OK && skn_gl_set_pose(g, 1, p.pose) == SKN_OK && skn_gl_dispatch(g) == SKN_OK,
        "compute errors: a pose: %s", skn_last_error());
  GLuint mine = 0; /* the host's storage bindings and program survive a dispatch */
  GLint bound[3] = {0};
  gl.GenBuffers(1, &mine);
  gl.BindBufferBase(GL_SHADER_STORAGE_BUFFER, 2, mine); /* also binds the generic binding */
  skn_gl_bind(g);
  check(skn_gl_dispatch(g) == SKN_OK, "compute errors: dispatch: %s", skn_last_error());
  gl.GetIntegeri_v(GL_SHADER_STORAGE_BUFFER_BINDING, 2, &bound[0]);
  gl.GetIntegerv(GL_SHADER_STORAGE_BUFFER_BINDING, &bound[1]);
  gl.GetIntegerv(GL_CURRENT_PROGRAM, &bound[2]);
  skn_gl_info gi = {sizeof gi};
  skn_gl_info_get(g, &gi);
  check(bound[0] == (GLint)mine && bound[1] == (GLint)mine && bound[2] == (GLint)gi.program,
        "compute errors: the dispatch left storage bindings %d, %d and program %d", bound[0], bound[1], bound[2]);
  gl.BindBufferBase(GL_SHADER_STORAGE_BUFFER, 2, 0);
  gl.BindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
  gl.DeleteBuffers(1, &mine);
  float *before = malloc(1000 * 12), *after = malloc(1000 * 12);
  read_output(g, 1000, 1000, before, NULL, NULL, NULL);
  s = skn_gl_set_pose(g, 1, q.pose); /* a pose of a rig with more joints */
  check(s == SKN_ERR_INVALID_ARGUMENT, "compute errors: a pose of another rig gave %s", skn_status_name(s));
  check(skn_gl_dispatch(g) == SKN_OK && read_output(g, 1000, 1000, after, NULL, NULL, NULL) &&
            !memcmp(before, after, 1000 * 12), "compute errors: the refused pose changed job 1");
  check(skn_gl_bind_job(g, 2) == SKN_ERR_INDEX_OUT_OF_RANGE && skn_gl_bind_job(g, 1) == SKN_OK,
        "compute errors: skn_gl_bind_job's range");
  free(before), free(after);
  skn_gl_destroy(g);
done:
  posed_free(&p), posed_free(&q);
}

void test_compute(void) {
  sweep();
  sample_models();
  batched();
  previous();
  without_compute();
  errors();
}
