/* bench_gpu_compute.c — `skn bench --gpu`'s compute rows: skn's compute
 * shader through the adapter (SKN_GL_PATH_COMPUTE) as a host runs it each
 * frame — every job's palette computed and set (skn_gl_set_pose), the
 * dispatch (morph passes, skinning, barrier), glFinish — against:
 *   - its ceiling, a copy kernel in the same compute pipeline moving the
 *     same bytes a vertex: the rest record and the vertex's influence words
 *     read, the output record written (positions + normals);
 *   - the vertex path's rate at the same size and method (bench_gpu.c's
 *     rows);
 *   - skn_skin on this machine's cores.
 * LBS and DQS, 4 influences, positions + normals, the benchmark's 64-joint
 * chain; with and without morph targets (bench_morph.c's 50 regional
 * targets, 5 weighted: half the vertices moved by one); one job of n
 * vertices, or 64 instances of a rig of n / 64 (a crowd: the same work in
 * 64 jobs). Medians; the output read back and held against skn_skin's. */
#include "bench.h"

#include "gl_api.h"
#include "skn_egl.h"
#include "skn_gl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CROWD 64u

/* The copy: reads what skinning reads of a vertex (its rest record and
 * influence words, folded into h, which the mask uniform (0) keeps out of
 * the result without letting the compiler drop the reads), writes what it
 * writes. */
static const char *COPY_SHADER =
    "layout(local_size_x = 64) in;\n"
    "layout(std430, binding = 2) readonly buffer Rest { float rest[]; };\n"
    "layout(std430, binding = 3) readonly buffer Influences { uint influences[]; };\n"
    "layout(std430, binding = 4) writeonly buffer Output { float outp[]; };\n"
    "uniform uint n, rest_floats, out_floats, mask;\n"
    "void main() {\n"
    "  uint v = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 64u + gl_LocalInvocationID.x;\n"
    "  if (v >= n) return;\n"
    "  uint h = 0u;\n"
    "  for (uint s = influences[v]; s < influences[v + 1u]; ++s)\n"
    "    h ^= influences[n + 1u + 2u * s] ^ influences[n + 2u + 2u * s];\n"
    "  h &= mask;\n"
    "  for (uint k = 0u; k < 6u; ++k)\n"
    "    outp[v * out_floats + k] = uintBitsToFloat(floatBitsToUint(rest[v * rest_floats + k]) ^ h);\n"
    "}\n";

typedef struct copy_kernel {
  GLuint program, buffers[3];
  GLint u_n, u_rest, u_out, u_mask;
  uint32_t n, rest_floats, out_floats;
  GLuint groups[2];
  double bytes; /* a vertex's */
} copy_kernel;

static void groups_for(skn_gl_api *gl, uint32_t n, GLuint out[2]) {
  GLint max = 65535;
  gl->GetIntegeri_v(GL_MAX_COMPUTE_WORK_GROUP_COUNT, 0, &max);
  uint32_t total = (n + 63) / 64, x = total < (uint32_t)max ? total : (uint32_t)max;
  out[0] = x, out[1] = x ? (total + x - 1) / x : 0;
}

static GLuint storage(skn_gl_api *gl, GLuint binding, const void *data, size_t bytes) {
  GLuint b = 0;
  gl->GenBuffers(1, &b);
  gl->BindBuffer(GL_SHADER_STORAGE_BUFFER, b);
  gl->BufferData(GL_SHADER_STORAGE_BUFFER, (GLsizeiptr)bytes, data, GL_STATIC_DRAW);
  gl->BindBufferBase(GL_SHADER_STORAGE_BUFFER, binding, b);
  return b;
}

/* The copy kernel over rig b's own buffers (skn_rig_gpu_buffers), built
 * for the context's dialect. */
static int copy_make(skn_gl_api *gl, const bench_rig *b, int es, copy_kernel *c) {
  memset(c, 0, sizeof *c);
  skn_gpu_desc gd = {sizeof gd};
  gd.method = SKN_METHOD_LBS_MATRIX, gd.outputs = SKN_GPU_NORMALS, gd.flags = SKN_GLSL_COMPUTE;
  gd.dialect = es ? SKN_GLSL_310_ES : SKN_GLSL_430;
  skn_gpu_layout layout = {sizeof layout};
  skn_gpu_buffers bb = {sizeof bb};
  if (skn_gpu_layout_get(&gd, &layout) || skn_rig_gpu_buffers(b->rig, &gd, &bb)) return 0;
  bb.rest = malloc(bb.rest_bytes), bb.influences = malloc(bb.influences_bytes);
  int ok = bb.rest && bb.influences && skn_rig_gpu_buffers(b->rig, &gd, &bb) == SKN_OK;
  const char *parts[3] = {es ? "#version 310 es\n" : "#version 430 core\n", "precision highp float;\nprecision highp int;\n",
                          COPY_SHADER};
  GLuint shader = gl->CreateShader(GL_COMPUTE_SHADER);
  GLint compiled = 0, linked = 0;
  gl->ShaderSource(shader, 3, parts, NULL);
  gl->CompileShader(shader);
  gl->GetShaderiv(shader, GL_COMPILE_STATUS, &compiled);
  c->program = gl->CreateProgram();
  gl->AttachShader(c->program, shader);
  gl->LinkProgram(c->program);
  gl->GetProgramiv(c->program, GL_LINK_STATUS, &linked);
  gl->DeleteShader(shader);
  c->n = b->n, c->rest_floats = layout.rest_floats, c->out_floats = layout.output_floats;
  c->bytes = (double)(bb.rest_bytes + bb.influences_bytes) / b->n + c->out_floats * 4.0;
  if (ok && compiled && linked) {
    c->buffers[0] = storage(gl, 2, bb.rest, bb.rest_bytes);
    c->buffers[1] = storage(gl, 3, bb.influences, bb.influences_bytes);
    c->buffers[2] = storage(gl, 4, NULL, (size_t)b->n * c->out_floats * 4);
    c->u_n = gl->GetUniformLocation(c->program, "n");
    c->u_rest = gl->GetUniformLocation(c->program, "rest_floats");
    c->u_out = gl->GetUniformLocation(c->program, "out_floats");
    c->u_mask = gl->GetUniformLocation(c->program, "mask");
    groups_for(gl, b->n, c->groups);
  }
  free(bb.rest), free(bb.influences);
  return ok && compiled && linked && gl->GetError() == GL_NO_ERROR;
}

static double copy_run(skn_gl_api *gl, const copy_kernel *c) {
  double t0 = bench_now();
  gl->UseProgram(c->program);
  for (GLuint k = 0; k < 3; ++k) gl->BindBufferBase(GL_SHADER_STORAGE_BUFFER, 2 + k, c->buffers[k]);
  gl->Uniform1ui(c->u_n, c->n);
  gl->Uniform1ui(c->u_rest, c->rest_floats);
  gl->Uniform1ui(c->u_out, c->out_floats);
  gl->Uniform1ui(c->u_mask, 0);
  gl->DispatchCompute(c->groups[0], c->groups[1], 1);
  gl->MemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
  gl->Finish();
  return bench_now() - t0;
}

static void copy_free(skn_gl_api *gl, copy_kernel *c) {
  gl->UseProgram(0);
  if (c->program) gl->DeleteProgram(c->program);
  for (int k = 0; k < 3; ++k)
    if (c->buffers[k]) gl->DeleteBuffers(1, &c->buffers[k]);
}

/* One frame of the compute path: every job's pose, the dispatch, glFinish.
 * *dispatch gets the seconds from the dispatch call on. */
static double compute_frame(skn_gl_api *gl, skn_gl *sg, const bench_rig *b, uint32_t jobs, double *dispatch) {
  double t0 = bench_now();
  for (uint32_t j = 0; j < jobs; ++j) skn_gl_set_pose(sg, j, b->pose);
  double t1 = bench_now();
  skn_gl_dispatch(sg);
  gl->Finish();
  double t2 = bench_now();
  *dispatch = t2 - t1;
  return t2 - t0;
}

/* Job j's positions and normals against skn_skin's (p, n): the worst
 * position difference over the chain's length (64), the worst normal's. */
static void check_job(skn_gl_api *gl, skn_gl *sg, const bench_rig *b, uint32_t j, const float *p, const float *n,
                      double *dp, double *dn) {
  skn_gl_info info = {sizeof info};
  skn_gl_info_get(sg, &info);
  size_t f = info.output_floats, bytes = (size_t)b->n * f * 4;
  gl->BindBuffer(GL_ARRAY_BUFFER, info.output_buffer);
  const float *r = gl->MapBufferRange(GL_ARRAY_BUFFER, (GLintptr)((size_t)j * bytes), (GLsizeiptr)bytes, GL_MAP_READ_BIT);
  for (size_t v = 0; r && v < b->n; ++v)
    for (int c = 0; c < 3; ++c) {
      *dp = fmax(*dp, fabs(r[v * f + c] - p[v * 3 + c]) / 64.0);
      *dn = fmax(*dn, fabs(r[v * f + info.output_normal + c] - n[v * 3 + c]));
    }
  if (!r) *dp = *dn = INFINITY;
  gl->UnmapBuffer(GL_ARRAY_BUFFER);
  gl->BindBuffer(GL_ARRAY_BUFFER, 0);
}

/* The rig of a row: n vertices, or n / 64 for the crowd; with the morph
 * targets where asked, 5 of them weighted. */
static int row_rig(bench_rig *b, uint32_t n, int morphs) {
  if (!morphs) return bench_make_rig(b, n, 4, SKN_LAYOUT_FULL);
  bench_morph_targets m;
  float w[BENCH_MORPH_TARGETS];
  int ok = bench_morph_targets_make(&m, n, 0) && bench_make_morph_rig(b, n, 4, SKN_LAYOUT_FULL, m.targets, BENCH_MORPH_TARGETS);
  bench_morph_targets_free(&m);
  bench_morph_weights(w);
  return ok && skn_pose_set_morph_weights(b->pose, 0, BENCH_MORPH_TARGETS, w) == SKN_OK;
}

typedef struct compute_row {
  skn_method method;
  uint32_t n, jobs;
  int morphs;
  double copy_rate, copy_bytes, vertex_rate; /* vertices/s of the ceiling and of the vertex path */
} compute_row;

static int bench_row(skn_gl_api *gl, const compute_row *row, int reps) {
  bench_rig b;
  if (!row_rig(&b, row->n / row->jobs, row->morphs)) return fail_input("bench rig");
  skn_gl_desc d = {sizeof d};
  d.loader = skn_egl_loader, d.method = row->method, d.outputs = SKN_GPU_NORMALS;
  d.vertex_main = "in vec3 skn_rest_position;\nvoid main() { gl_Position = vec4(skn_skin_position(skn_rest_position), 1.0); }\n";
  d.path = SKN_GL_PATH_COMPUTE, d.instances = row->jobs;
  skn_gl *sg = NULL;
  if (skn_gl_create(b.rig, &d, &sg)) { /* a limit of this context: said, and the other rows go on */
    printf("%-5s %-6s %4u %10u  refused: %s\n", BENCH_METHOD_NAMES[row->method], row->morphs ? "5/50" : "-", row->jobs,
           row->n, skn_last_error());
    bench_rig_free(&b);
    return EXIT_OK;
  }
  float *p = malloc((size_t)b.n * 12), *nn = malloc((size_t)b.n * 12);
  double walls[32], dispatches[32], dp = 0, dn = 0;
  compute_frame(gl, sg, &b, row->jobs, &dispatches[0]); /* warm */
  for (int r = 0; r < reps; ++r) walls[r] = compute_frame(gl, sg, &b, row->jobs, &dispatches[r]);
  double wall = bench_median(walls, reps), td = bench_median(dispatches, reps);
  double cpu = bench_time_skin(&b, row->method, 1, 0, p, nn, NULL, reps, SKN_STORES_AUTO), c = b.n / cpu / 1e6;
  check_job(gl, sg, &b, 0, p, nn, &dp, &dn);
  if (row->jobs > 1) check_job(gl, sg, &b, row->jobs - 1, p, nn, &dp, &dn);
  double rate = row->n / wall, drate = row->n / td;
  char vertex[16] = "-";
  if (row->vertex_rate > 0) snprintf(vertex, sizeof vertex, "%.1fx", rate / row->vertex_rate);
  printf("%-5s %-6s %4u %10u %11.1f %11.1f %8.1f %6.0f%% %8s %9.1f %8.2fx %9.1e %9.1e\n", BENCH_METHOD_NAMES[row->method],
         row->morphs ? "5/50" : "-", row->jobs, row->n, rate / 1e6, drate / 1e6, drate * row->copy_bytes / 1e9,
         100.0 * drate / row->copy_rate, vertex, c, rate / 1e6 / c, dp, dn);
  skn_gl_destroy(sg);
  free(p), free(nn);
  bench_rig_free(&b);
  return EXIT_OK;
}

int bench_gpu_compute(skn_gl_api *gl, int es, const uint32_t *sizes, uint32_t count, const double *vertex_rates) {
  printf("\ncompute path: skn's compute shader (skn_gl_set_pose + skn_gl_dispatch + glFinish), 4 influences,\n"
         "positions + normals, against a copy kernel in the same pipeline moving the same bytes\n\n");
  printf("%-5s %-6s %4s %10s %11s %11s %8s %7s %8s %9s %9s %9s %9s\n", "meth", "morphs", "jobs", "vertices", "frame",
         "dispatch", "GB/s", "of copy", "/vertex", "CPU", "GPU/CPU", "pos diff", "nrm diff");
  int rc = EXIT_OK;
  for (uint32_t k = 0; k < count && !rc; ++k) {
    bench_rig b;
    copy_kernel c;
    if (!bench_make_rig(&b, sizes[k], 4, SKN_LAYOUT_FULL)) return fail_input("bench rig");
    int reps = sizes[k] >= 10000000 ? 5 : 11;
    int ok = copy_make(gl, &b, es, &c);
    bench_rig_free(&b);
    if (!ok) return copy_free(gl, &c), fail_input("bench --gpu: the copy kernel");
    double t[32];
    copy_run(gl, &c);
    for (int r = 0; r < reps; ++r) t[r] = copy_run(gl, &c);
    double copy = sizes[k] / bench_median(t, reps);
    printf("%-5s %-6s %4u %10u %11s %11.1f %8.1f %7s\n", "copy", "-", 1u, sizes[k], "-", copy / 1e6, copy * c.bytes / 1e9,
           "100%");
    copy_free(gl, &c);
    for (int m = 0; m < 2 && !rc; ++m)
      for (int morphs = 0; morphs < 2 && !rc; ++morphs)
        for (uint32_t jobs = 1; jobs <= CROWD && !rc; jobs *= CROWD) {
          compute_row row = {m ? SKN_METHOD_DQS : SKN_METHOD_LBS_MATRIX, sizes[k], jobs, morphs, copy, c.bytes,
                             morphs ? 0 : vertex_rates[2 * k + m]};
          if (sizes[k] / jobs >= 64) rc = bench_row(gl, &row, reps);
        }
  }
  printf("\nM vertices/s. frame: every job's pose set and the dispatch, to glFinish; dispatch: from the dispatch\n"
         "call (morph passes, skinning, barrier) to glFinish; GB/s and of copy: dispatch's rate times the copy's\n"
         "bytes a vertex (rest record, influences, output record), and over the copy kernel's rate; /vertex:\n"
         "frame over the vertex path's (the rows above; - with morphs, which it does not apply); jobs 64:\n"
         "64 instances of a rig of vertices / 64, each its own job; morphs 5/50: 50 regional targets of 10%%\n"
         "of the vertices, 5 weighted; GPU/CPU: frame over skn_skin on every core; pos diff, nrm diff as above.\n");
  return rc;
}
