/* gl_compute.c — the adapter's compute path (skn_gl.h): every rig's rest
 * records, influences and morph entries in shared storage buffers
 * (skn_rig_gpu_buffers), a table of jobs — one a posed rig, each with its
 * own palette, output range and morph scratch range — and per frame the
 * morph passes, one skinning dispatch and a barrier. The shaders are
 * skn_glsl_source's (SKN_GLSL_COMPUTE); their bindings and the jobs' table
 * are documented in their text (core/glsl/compute_skin.glsl). */
#include "gl_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GROUP 64u /* the shaders' local_size_x */

enum { BIND_JOBS, BIND_PALETTE, BIND_REST, BIND_INFLUENCES, BIND_OUTPUT, BIND_SCRATCH, BIND_ENTRIES, BIND_TASKS, BINDINGS };

/* ---- what the context has ---- */

int skn__gl_compute_available(skn_gl *g) {
  const skn_gl_api *gl = &g->gl;
  int es = g->dialect == SKN_GLSL_300_ES;
  GLint blocks = 0, bindings = 0, x = 0, y = 0;
  const char *api = es ? "OpenGL ES" : "OpenGL";
  if (g->version < (es ? 31 : 43)) {
    snprintf(g->reason, sizeof g->reason, "the context is %s %d.%d; compute shaders need %s", api, g->version / 10,
             g->version % 10, es ? "OpenGL ES 3.1" : "OpenGL 4.3");
    return 0;
  }
  if (!gl->DispatchCompute || !gl->MemoryBarrier) {
    snprintf(g->reason, sizeof g->reason, "the loader gives no %s", gl->DispatchCompute ? "glMemoryBarrier" : "glDispatchCompute");
    return 0;
  }
  gl->GetIntegerv(GL_MAX_COMPUTE_SHADER_STORAGE_BLOCKS, &blocks);
  gl->GetIntegerv(GL_MAX_SHADER_STORAGE_BUFFER_BINDINGS, &bindings);
  gl->GetIntegeri_v(GL_MAX_COMPUTE_WORK_GROUP_COUNT, 0, &x);
  gl->GetIntegeri_v(GL_MAX_COMPUTE_WORK_GROUP_COUNT, 1, &y);
  while (gl->GetError() != GL_NO_ERROR) {}
  if (blocks < BIND_ENTRIES || bindings < BINDINGS || x < 1 || y < 1) {
    snprintf(g->reason, sizeof g->reason, "the context gives a compute shader %d storage blocks and %d bindings; "
             "skn's needs %d and %d", blocks, bindings, BIND_ENTRIES, BINDINGS);
    return 0;
  }
  g->max_groups[0] = (uint32_t)x, g->max_groups[1] = (uint32_t)y;
  snprintf(g->reason, sizeof g->reason, "%s %d.%d has compute shaders", api, g->version / 10, g->version % 10);
  return 1;
}

/* ---- the rigs, the jobs and their buffers ---- */

/* The host-side copies of the shared buffers while they are built. */
typedef struct staged {
  float *rest;
  uint32_t *influences, *entries;
  size_t rest_bytes, influence_bytes, entry_bytes;
} staged;

static skn_status fail(skn_status s, const char *msg) { return skn_set_error(s, msg); }

/* Where each rig's data lie in the shared buffers, and their sizes. */
static skn_status place_rigs(skn_gl *g, const skn_rig *const *rigs, staged *st) {
  for (uint32_t r = 0; r < g->rig_count; ++r) {
    skn_rig_info info = {sizeof info};
    skn_gpu_buffers b = {sizeof b};
    skn_status s = skn_rig_info_get(rigs[r], &info);
    if (s == SKN_OK) s = skn_rig_gpu_buffers(rigs[r], &g->gpu, &b);
    if (s != SKN_OK) return s;
    skn_gl_rig *rig = &g->rigs[r];
    rig->vertex_count = info.vertex_count, rig->joint_count = info.joint_count;
    rig->morph_count = info.morph_target_count;
    rig->rest_base = (uint32_t)(st->rest_bytes / (g->layout.rest_floats * 4));
    rig->influence_base = (uint32_t)(st->influence_bytes / 4);
    rig->entry_base = (uint32_t)(st->entry_bytes / (g->layout.morph_words * 4));
    rig->morph_first = malloc(b.morph_first_bytes);
    if (!rig->morph_first) return fail(SKN_ERR_OUT_OF_MEMORY, "skn_gl_create: out of memory");
    b.morph_first = rig->morph_first;
    skn_rig_gpu_buffers(rigs[r], &g->gpu, &b);
    st->rest_bytes += b.rest_bytes, st->influence_bytes += b.influences_bytes, st->entry_bytes += b.morph_entries_bytes;
    g->influences = info.max_influences_per_vertex > g->influences ? info.max_influences_per_vertex : g->influences;
  }
  return SKN_OK;
}

static skn_status fill_rigs(skn_gl *g, const skn_rig *const *rigs, staged *st) {
  st->rest = malloc(st->rest_bytes + 4);
  st->influences = malloc(st->influence_bytes + 4);
  st->entries = malloc(st->entry_bytes + 4);
  if (!st->rest || !st->influences || !st->entries)
    return fail(SKN_ERR_OUT_OF_MEMORY, "skn_gl_create: out of memory for the rigs' buffers");
  for (uint32_t r = 0; r < g->rig_count; ++r) {
    const skn_gl_rig *rig = &g->rigs[r];
    skn_gpu_buffers b = {sizeof b};
    b.rest = st->rest + (size_t)rig->rest_base * g->layout.rest_floats;
    b.influences = st->influences + rig->influence_base;
    b.morph_entries = st->entries + (size_t)rig->entry_base * g->layout.morph_words;
    skn_status s = skn_rig_gpu_buffers(rigs[r], &g->gpu, &b);
    if (s != SKN_OK) return s;
  }
  return SKN_OK;
}

/* The jobs: each rig's instances, one after another in every buffer. */
static skn_status place_jobs(skn_gl *g, uint64_t *out_records, uint64_t *scratch_records) {
  uint64_t invocations = 0, texels = 0, outs = 0, scratch = 0;
  for (uint32_t j = 0; j < g->job_count; ++j) {
    skn_gl_job *job = &g->jobs[j];
    const skn_gl_rig *rig = &g->rigs[j / g->instances];
    job->rig = j / g->instances;
    job->first = (uint32_t)invocations, job->palette_base = (uint32_t)texels, job->out_base = (uint32_t)outs;
    job->scratch_base = rig->morph_count ? (uint32_t)scratch : SKN_GPU_ABSENT;
    job->active = malloc((rig->morph_count + 1) * sizeof *job->active);
    job->weights = malloc((2 * (size_t)rig->morph_count + 1) * sizeof *job->weights); /* active, then read */
    if (!job->active || !job->weights) return fail(SKN_ERR_OUT_OF_MEMORY, "skn_gl_create: out of memory for the jobs");
    invocations += rig->vertex_count, outs += rig->vertex_count;
    g->task_room += rig->morph_count;
    texels += (uint64_t)rig->joint_count * g->vec4s;
    if (rig->morph_count) scratch += rig->vertex_count;
  }
  if (invocations > 0xFFFFFFFFull - GROUP || texels > 0xFFFFFFFFull || scratch >= SKN_GPU_ABSENT)
    return fail(SKN_ERR_UNSUPPORTED, "skn_gl_create: the jobs hold more than 2^32 vertices or palette texels");
  g->invocations = (uint32_t)invocations;
  g->staging_bytes = (size_t)texels * 16;
  *out_records = outs, *scratch_records = scratch;
  return SKN_OK;
}

/* (x, y) groups covering n invocations; 0 where the context cannot. */
static int groups(const skn_gl *g, uint64_t n, GLuint *x, GLuint *y) {
  uint64_t total = (n + GROUP - 1) / GROUP, gx = total < g->max_groups[0] ? total : g->max_groups[0];
  uint64_t gy = gx ? (total + gx - 1) / gx : 0;
  *x = (GLuint)gx, *y = (GLuint)gy;
  return gy <= g->max_groups[1];
}

/* Each buffer within GL_MAX_SHADER_STORAGE_BLOCK_SIZE, the dispatch within
 * the work group counts: refused with the figures otherwise. */
static skn_status check_limits(skn_gl *g, const staged *st, uint64_t output_bytes, uint64_t scratch_bytes) {
  GLint block = 0; /* clamped to 2^31 - 1 where the context's is larger */
  g->gl.GetIntegerv(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &block);
  const struct { const char *name; uint64_t bytes; } B[5] = {
      {"the rest records", st->rest_bytes}, {"the influences", st->influence_bytes},
      {"the morph entries", st->entry_bytes}, {"the output records", output_bytes},
      {"the morph scratch records", scratch_bytes}};
  char msg[256];
  for (int k = 0; k < 5; ++k)
    if (B[k].bytes > (uint64_t)block) {
      snprintf(msg, sizeof msg, "skn_gl_create: %s take %llu bytes, over the context's GL_MAX_SHADER_STORAGE_BLOCK_SIZE "
               "%lld", B[k].name, (unsigned long long)B[k].bytes, (long long)block);
      return fail(SKN_ERR_UNSUPPORTED, msg);
    }
  GLuint x, y;
  if (!groups(g, g->invocations, &x, &y)) {
    snprintf(msg, sizeof msg, "skn_gl_create: %u vertices need %u x %u work groups, over the context's %u x %u",
             g->invocations, x, y, g->max_groups[0], g->max_groups[1]);
    return fail(SKN_ERR_UNSUPPORTED, msg);
  }
  return SKN_OK;
}

static GLuint storage(const skn_gl *g, const void *data, uint64_t bytes, GLenum usage) {
  GLuint b = 0;
  g->gl.GenBuffers(1, &b);
  g->gl.BindBuffer(GL_SHADER_STORAGE_BUFFER, b);
  g->gl.BufferData(GL_SHADER_STORAGE_BUFFER, (GLsizeiptr)(bytes ? bytes : 16), data, usage);
  return b;
}

static skn_status make_buffers(skn_gl *g, const staged *st, uint64_t out_records, uint64_t scratch_records) {
  uint32_t *table = calloc((size_t)g->job_count * 8, 4);
  uint64_t out_bytes = out_records * g->layout.output_floats * 4;
  uint64_t scratch_bytes = scratch_records * g->layout.morph_words * 4;
  uint32_t *zeros = scratch_bytes ? calloc(1, scratch_bytes) : NULL; /* stamps 0: no frame yet */
  g->staging = calloc(1, g->staging_bytes + 16);
  if (!table || (scratch_bytes && !zeros) || !g->staging) {
    free(table), free(zeros);
    return fail(SKN_ERR_OUT_OF_MEMORY, "skn_gl_create: out of memory for the jobs' buffers");
  }
  for (uint32_t j = 0; j < g->job_count; ++j) {
    const skn_gl_job *job = &g->jobs[j];
    const skn_gl_rig *rig = &g->rigs[job->rig];
    uint32_t row[8] = {job->first, rig->vertex_count, rig->rest_base, job->palette_base,
                       rig->influence_base, job->out_base, job->scratch_base, 0};
    memcpy(table + 8 * (size_t)j, row, sizeof row);
  }
  g->jobs_buffer = storage(g, table, (uint64_t)g->job_count * 32, GL_STATIC_DRAW);
  g->rest_buffer = storage(g, st->rest, st->rest_bytes, GL_STATIC_DRAW);
  g->influence_buffer = storage(g, st->influences, st->influence_bytes, GL_STATIC_DRAW);
  g->tasks = calloc((size_t)g->task_room + 1, 16);
  if (!g->tasks) return free(table), free(zeros), fail(SKN_ERR_OUT_OF_MEMORY, "skn_gl_create: out of memory for the tasks");
  g->output_buffer = storage(g, NULL, out_bytes, GL_DYNAMIC_COPY);
  g->palette_buffer = storage(g, g->staging, g->staging_bytes, GL_STREAM_DRAW);
  if (g->morph_program) {
    g->entries_buffer = storage(g, st->entries, st->entry_bytes, GL_STATIC_DRAW);
    g->scratch_buffer = storage(g, zeros, scratch_bytes, GL_DYNAMIC_COPY);
    g->tasks_buffer = storage(g, NULL, ((uint64_t)g->task_room + 1) * 16, GL_STREAM_DRAW);
  }
  free(table), free(zeros);
  return skn__gl_check(g, "skn_gl_create: the compute path's buffers");
}

static skn_status make_programs(skn_gl *g) {
  skn_status s = skn__gl_compute_program(g, &g->gpu, &g->compute_program);
  if (s != SKN_OK) return s;
  g->u_job_count = g->gl.GetUniformLocation(g->compute_program, "skn_job_count");
  g->u_frame = g->gl.GetUniformLocation(g->compute_program, "skn_frame");
  if (!(g->gpu.flags & SKN_GLSL_MORPHS)) return SKN_OK;
  skn_gpu_desc morph = g->gpu;
  morph.flags = SKN_GLSL_COMPUTE | SKN_GLSL_MORPH_PASS;
  if ((s = skn__gl_compute_program(g, &morph, &g->morph_program)) != SKN_OK) return s;
  g->u_task_first = g->gl.GetUniformLocation(g->morph_program, "skn_task_first");
  g->u_morph_frame = g->gl.GetUniformLocation(g->morph_program, "skn_frame");
  return SKN_OK;
}

/* The text's desc: the compute shader of the host's method and outputs,
 * with morphs where a rig has targets. */
static skn_status plan(skn_gl *g, const skn_rig *const *rigs, const skn_gl_desc *d) {
  skn_gpu_desc gpu = {sizeof gpu};
  gpu.method = d->method;
  gpu.dqs_scale = d->dqs_scale;
  gpu.outputs = d->outputs;
  gpu.dialect = g->dialect == SKN_GLSL_300_ES ? SKN_GLSL_310_ES : SKN_GLSL_430;
  gpu.flags = SKN_GLSL_COMPUTE | (d->flags & SKN_GL_PREVIOUS_POSITIONS ? SKN_GLSL_PREVIOUS : 0);
  for (uint32_t r = 0; r < g->rig_count; ++r) {
    skn_rig_info info = {sizeof info};
    skn_status s = skn_rig_info_get(rigs[r], &info);
    if (s != SKN_OK) return s;
    if (info.morph_entry_count) gpu.flags |= SKN_GLSL_MORPHS;
  }
  g->layout = (skn_gpu_layout){sizeof g->layout};
  skn_status s = skn_gpu_layout_get(&gpu, &g->layout);
  if (s != SKN_OK) return s;
  g->gpu = gpu;
  g->vec4s = g->layout.palette_vec4s;
  return SKN_OK;
}

skn_status skn__gl_compute_create(skn_gl *g, const skn_rig *const *rigs, const skn_gl_desc *d) {
  g->instances = d->instances ? d->instances : 1;
  if ((uint64_t)g->rig_count * g->instances > 0xFFFFFFu)
    return fail(SKN_ERR_INVALID_ARGUMENT, "skn_gl_create: rigs x instances is over 16777216 jobs");
  g->job_count = g->rig_count * g->instances;
  g->rigs = calloc(g->rig_count, sizeof *g->rigs);
  g->jobs = calloc(g->job_count, sizeof *g->jobs);
  if (!g->rigs || !g->jobs) return fail(SKN_ERR_OUT_OF_MEMORY, "skn_gl_create: out of memory");
  staged st = {0};
  uint64_t outs = 0, scratch = 0;
  skn_status s = plan(g, rigs, d);
  if (s == SKN_OK) s = place_rigs(g, rigs, &st);
  if (s == SKN_OK) s = place_jobs(g, &outs, &scratch);
  if (s == SKN_OK) s = check_limits(g, &st, outs * g->layout.output_floats * 4, scratch * g->layout.morph_words * 4);
  if (s == SKN_OK) s = fill_rigs(g, rigs, &st);
  if (s == SKN_OK) s = make_programs(g);
  if (s == SKN_OK) s = make_buffers(g, &st, outs, scratch);
  free(st.rest), free(st.influences), free(st.entries);
  g->vertex_count = g->rigs[0].vertex_count;
  g->joint_count = g->rigs[0].joint_count;
  return s;
}

/* ---- a frame ---- */

skn_status skn__gl_compute_set_pose(skn_gl *g, uint32_t j, const skn_pose *pose) {
  if (j >= g->job_count) {
    char msg[128];
    snprintf(msg, sizeof msg, "skn_gl_set_pose: job %u is past the adapter's %u", j, g->job_count);
    return fail(SKN_ERR_INDEX_OUT_OF_RANGE, msg);
  }
  skn_gl_job *job = &g->jobs[j];
  const skn_gl_rig *rig = &g->rigs[job->rig];
  float *read = job->weights + rig->morph_count; /* the job's active weights change only on success */
  skn_status s = rig->morph_count ? skn_pose_morph_weights(pose, 0, rig->morph_count, read) : SKN_OK;
  if (s == SKN_OK)
    s = skn_pose_gpu_palette(pose, &g->gpu, g->staging + (size_t)job->palette_base * 4,
                             (size_t)rig->joint_count * g->vec4s * 16);
  if (s != SKN_OK) return s;
  uint32_t n = 0;
  for (uint32_t t = 0; t < rig->morph_count; ++t)
    if (read[t] != 0.0f && rig->morph_first[t + 1] > rig->morph_first[t]) job->active[n] = t, job->weights[n++] = read[t];
  job->active_count = n;
  job->posed = 1;
  return SKN_OK;
}

/* The storage bindings the dispatch changes, and the program. */
typedef struct compute_state {
  GLint program, generic, indexed[BINDINGS];
} compute_state;

static void save(const skn_gl *g, compute_state *c) {
  g->gl.GetIntegerv(GL_CURRENT_PROGRAM, &c->program);
  g->gl.GetIntegerv(GL_SHADER_STORAGE_BUFFER_BINDING, &c->generic);
  for (GLuint k = 0; k < BINDINGS; ++k) g->gl.GetIntegeri_v(GL_SHADER_STORAGE_BUFFER_BINDING, k, &c->indexed[k]);
}

static void restore(const skn_gl *g, const compute_state *c) {
  for (GLuint k = 0; k < BINDINGS; ++k) g->gl.BindBufferBase(GL_SHADER_STORAGE_BUFFER, k, (GLuint)c->indexed[k]);
  g->gl.BindBuffer(GL_SHADER_STORAGE_BUFFER, (GLuint)c->generic);
  g->gl.UseProgram((GLuint)c->program);
}

static void dispatch(const skn_gl *g, uint64_t n) {
  GLuint x, y;
  groups(g, n, &x, &y);
  if (x) g->gl.DispatchCompute(x, y, 1);
}

/* Round a's tasks (the a-th active target of every job that has one) into
 * g->tasks from task `first`; returns their count, the most entries of one
 * in *most. */
static uint32_t round_tasks(const skn_gl *g, uint32_t a, uint32_t first, uint32_t *most) {
  uint32_t n = 0;
  *most = 0;
  for (uint32_t j = 0; j < g->job_count; ++j) {
    const skn_gl_job *job = &g->jobs[j];
    if (a >= job->active_count) continue;
    const skn_gl_rig *rig = &g->rigs[job->rig];
    uint32_t t = job->active[a], *task = g->tasks + 4 * (size_t)(first + n++), weight;
    memcpy(&weight, &job->weights[a], 4);
    task[0] = rig->entry_base + rig->morph_first[t];
    task[1] = rig->morph_first[t + 1] - rig->morph_first[t];
    task[2] = job->scratch_base, task[3] = weight;
    *most = task[1] > *most ? task[1] : *most;
  }
  return n;
}

/* The active targets, round by round: the a-th of every job in one
 * dispatch (their scratch ranges are apart), a barrier between rounds, so
 * that each vertex sums its targets in ascending order as the CPU does. */
static void morph_passes(const skn_gl *g) {
  const skn_gl_api *gl = &g->gl;
  uint32_t rounds = 0, total = 0, counts[64], mosts[64]; /* rounds past 64: counted again when dispatched */
  for (uint32_t j = 0; j < g->job_count; ++j) rounds = g->jobs[j].active_count > rounds ? g->jobs[j].active_count : rounds;
  if (!rounds) return;
  for (uint32_t a = 0; a < rounds; ++a) {
    uint32_t most, n = round_tasks(g, a, total, &most);
    if (a < 64) counts[a] = n, mosts[a] = most;
    total += n;
  }
  gl->BindBuffer(GL_SHADER_STORAGE_BUFFER, g->tasks_buffer);
  gl->BufferSubData(GL_SHADER_STORAGE_BUFFER, 0, (GLsizeiptr)total * 16, g->tasks);
  gl->UseProgram(g->morph_program);
  gl->Uniform1ui(g->u_morph_frame, g->frame);
  for (uint32_t a = 0, first = 0; a < rounds; ++a) {
    uint32_t most = a < 64 ? mosts[a] : 0, n = a < 64 ? counts[a] : round_tasks(g, a, first, &most);
    uint64_t x = ((uint64_t)most + GROUP - 1) / GROUP;
    x = x < g->max_groups[0] ? x : g->max_groups[0]; /* the shader strides over the rest */
    for (uint32_t done = 0; done < n && x;) {         /* at most max_groups[1] tasks a dispatch */
      uint32_t part = n - done < g->max_groups[1] ? n - done : g->max_groups[1];
      gl->Uniform1ui(g->u_task_first, first + done);
      gl->DispatchCompute((GLuint)x, part, 1);
      done += part;
    }
    first += n;
    gl->MemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
  }
}

skn_status skn__gl_compute_dispatch(skn_gl *g) {
  const skn_gl_api *gl = &g->gl;
  for (uint32_t j = 0; j < g->job_count; ++j)
    if (!g->jobs[j].posed) {
      char msg[128];
      snprintf(msg, sizeof msg, "skn_gl_dispatch: job %u has no pose; skn_gl_set_pose it first", j);
      return fail(SKN_ERR_INVALID_ARGUMENT, msg);
    }
  while (gl->GetError() != GL_NO_ERROR) {} /* what was pending is not ours to report */
  compute_state saved;
  save(g, &saved);
  g->frame = g->frame == 0xFFFFFFFFu ? 2 : g->frame + 1; /* never 0, the stamps' "no frame" */
  const GLuint buffers[BINDINGS] = {g->jobs_buffer,   g->palette_buffer, g->rest_buffer,    g->influence_buffer,
                                    g->output_buffer, g->scratch_buffer, g->entries_buffer, g->tasks_buffer};
  gl->BindBuffer(GL_SHADER_STORAGE_BUFFER, g->palette_buffer); /* a new store: no wait on the last frame's reads */
  gl->BufferData(GL_SHADER_STORAGE_BUFFER, (GLsizeiptr)g->staging_bytes, g->staging, GL_STREAM_DRAW);
  for (GLuint k = 0; k < BINDINGS; ++k)
    if (buffers[k]) gl->BindBufferBase(GL_SHADER_STORAGE_BUFFER, k, buffers[k]);
  if (g->morph_program) morph_passes(g);
  gl->UseProgram(g->compute_program);
  gl->Uniform1ui(g->u_job_count, g->job_count);
  gl->Uniform1ui(g->u_frame, g->frame);
  dispatch(g, g->invocations);
  gl->MemoryBarrier(GL_VERTEX_ATTRIB_ARRAY_BARRIER_BIT | GL_SHADER_STORAGE_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT |
                    GL_TRANSFORM_FEEDBACK_BARRIER_BIT);
  skn_status s = skn__gl_check(g, "skn_gl_dispatch");
  restore(g, &saved);
  while (gl->GetError() != GL_NO_ERROR) {} /* a host's program deleted while current cannot be put back */
  return s;
}

/* ---- drawing ---- */

static void point(const skn_gl *g, const char *name, GLint components, uint64_t offset, uint32_t stride) {
  GLint loc = g->gl.GetAttribLocation(g->program, name);
  if (loc < 0) return;
  g->gl.VertexAttribPointer((GLuint)loc, components, GL_FLOAT, 0, (GLsizei)stride, (const void *)(uintptr_t)offset);
  g->gl.EnableVertexAttribArray((GLuint)loc);
}

/* The rest record's parts (skn.h, skn_gpu_buffers): position, then the
 * normal and the tangent where the outputs ask them. */
void skn__gl_compute_attach(const skn_gl *g, uint32_t j) {
  const skn_gl_api *gl = &g->gl;
  const skn_gl_job *job = &g->jobs[j];
  const skn_gl_rig *rig = &g->rigs[job->rig];
  uint32_t os = g->layout.output_floats * 4, rs = g->layout.rest_floats * 4;
  uint64_t out = (uint64_t)job->out_base * os, rest = (uint64_t)rig->rest_base * rs;
  uint32_t normals = (g->gpu.outputs & SKN_GPU_NORMALS) != 0;
  gl->BindVertexArray(g->vertex_array);
  gl->BindBuffer(GL_ARRAY_BUFFER, g->output_buffer);
  point(g, "skn_skinned_position", 3, out, os);
  if (g->layout.output_normal != SKN_GPU_ABSENT) point(g, "skn_skinned_normal", 3, out + g->layout.output_normal * 4, os);
  if (g->layout.output_tangent != SKN_GPU_ABSENT) point(g, "skn_skinned_tangent", 4, out + g->layout.output_tangent * 4, os);
  if (g->layout.output_previous != SKN_GPU_ABSENT)
    point(g, "skn_skinned_previous", 3, out + g->layout.output_previous * 4, os);
  gl->BindBuffer(GL_ARRAY_BUFFER, g->rest_buffer);
  point(g, "skn_rest_position", 3, rest, rs);
  if (normals) point(g, "skn_rest_normal", 3, rest + 12, rs);
  if (g->gpu.outputs & SKN_GPU_TANGENTS) point(g, "skn_rest_tangent", 4, rest + 12 + 12 * normals, rs);
}

void skn__gl_compute_destroy(skn_gl *g) {
  const skn_gl_api *gl = &g->gl;
  if (g->compute_program) gl->DeleteProgram(g->compute_program);
  if (g->morph_program) gl->DeleteProgram(g->morph_program);
  GLuint buffers[7] = {g->jobs_buffer,    g->rest_buffer,    g->influence_buffer, g->output_buffer,
                       g->scratch_buffer, g->entries_buffer, g->tasks_buffer};
  for (int k = 0; k < 7; ++k)
    if (buffers[k]) gl->DeleteBuffers(1, &buffers[k]);
  for (uint32_t r = 0; g->rigs && r < g->rig_count; ++r) free(g->rigs[r].morph_first);
  for (uint32_t j = 0; g->jobs && j < g->job_count; ++j) free(g->jobs[j].active), free(g->jobs[j].weights);
  free(g->rigs);
  free(g->jobs);
  free(g->tasks);
}
