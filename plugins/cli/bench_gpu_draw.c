/* bench_gpu_draw.c — `skn bench --gpu`'s last table: a viewport's frame
 * of a deformed mesh, drawn, the ways a host can have it, on one GL
 * context:
 *   offload: the pose's palette uploaded (skn_gl_update) and the rest mesh
 *            drawn by skn's GLSL in the vertex stage, the mesh never
 *            moving (the vertex path: the Blender add-on's GPU mode);
 *   compute: the palette uploaded and skn's compute shader dispatched
 *            (skn_gl_update on the compute path), the same draw reading
 *            its output: each vertex skinned once, however often the
 *            vertex stage shades it (where the context has compute);
 *   CPU:     skn_skin on every core, the deformed positions and normals
 *            uploaded (24 bytes a vertex) and drawn by the same shader
 *            without its skinning (a host whose deformer runs on the CPU:
 *            Blender's Armature modifier, less Blender's own copies of the
 *            mesh);
 * and the floor under them: the deformed mesh drawn again with no
 * skinning and no upload, what the raster alone costs.
 * The mesh is a tube along the benchmark's 64-joint chain, rings of 500
 * vertices, each quad two triangles in ring order (as a mesh lists its
 * faces), the whole of it framed in 1024 x 768 (RGBA8, 24-bit depth), as
 * `make bench-blender` frames its tube. Its rigs are the ones that bench
 * draws in Blender: 4 influences a vertex (bones), 8 (B-Bones: each of a
 * vertex's 4 bones split between two segments) and 4 with a shape key
 * whose value changes every frame (one morph target moving every vertex,
 * positions and normals). Every frame ends in glFinish; ms a frame are
 * medians. Each way's picture is compared with the CPU way's pixel by
 * pixel, so the rows time the same picture. */
#include "bench.h"

#include "gl_api.h"
#include "skn_egl.h"
#include "skn_gl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SEGMENTS 500u /* vertices a ring */
#define JOINTS BENCH_JOINTS

/* One vertex stage for both ways: the plain program defines the two
 * skn_skin_* calls away. Framing as render_gpu.c's: view rows, then the
 * frame's center and scale, and depth's center and inverse half range. */
static const char *VERTEX_MAIN =
    "in vec3 skn_rest_position;\nin vec3 skn_rest_normal;\n"
    "uniform vec4 view_x, view_y, view_z, frame, depth;\nout vec3 shade_normal;\n"
    "void main() {\n  vec3 p = skn_skin_position(skn_rest_position);\n"
    "  shade_normal = skn_skin_normal(skn_rest_normal);\n"
    "  vec3 v = vec3(dot(view_x.xyz, p), dot(view_y.xyz, p), dot(view_z.xyz, p));\n"
    "  gl_Position = vec4((v.xy - frame.xy) * frame.zw, (depth.x - v.z) * depth.y, 1.0);\n}\n";
static const char *PLAIN_DEFINES = "#define skn_skin_position(p) (p)\n#define skn_skin_normal(n) (n)\n";

static const char *FRAGMENT_MAIN =
    "in vec3 shade_normal;\nout vec4 color;\n"
    "void main() {\n  float d = abs(dot(normalize(shade_normal), vec3(-0.45, 0.6, 0.66)));\n"
    "  color = vec4(vec3(0.25 + 0.7 * d), 1.0);\n}\n";

/* A row's rig: influences a vertex, and whether a keyed shape key moves it. */
typedef struct tube_rig {
  const char *name;
  int influences, keyed;
} tube_rig;

static const tube_rig TUBE_RIGS[] = {{"4", 4, 0}, {"8", 8, 0}, {"4+key", 4, 1}};

typedef struct draw_bench {
  skn_gl_api *gl;
  skn_egl *egl;
  tube_rig kind;
  bench_rig rig;
  uint32_t *tris, tri_count;
  float *pos, *nrm;           /* skn_skin's output, the CPU way's upload */
  GLuint program, vao, buffers[3]; /* the CPU way: positions, normals, triangles */
  float view[9], frame[4], depth[2];
} draw_bench;

/* Vertex v's shape key offsets (position, normal): a bulge along the
 * normal q, growing and shrinking four times along the tube, the normal
 * leaning towards the tube's axis as a bulge's would. */
static void key_offsets(float x, const float q[3], float *dv, float *dn) {
  float b = 0.2f * sinf(x * 0.3926991f); /* 4 waves over 64 joints */
  for (int c = 0; c < 3; ++c) dv[c] = b * q[c], dn[c] = 0;
  dn[0] = -0.5f * b;
}

/* The tube, bound: vertex (ring r, segment s) at x = 64 r / (rings - 1),
 * radius 0.5, its 4 nearest joints weighted 0.4, 0.3, 0.2, 0.1 (the
 * Blender benchmark's rig), or its 8 nearest weighted 0.2 down to 0.06;
 * with d->kind.keyed a dense morph target (key_offsets); posed as
 * bench_make_rig's chain. */
static int make_tube(draw_bench *d, uint32_t n) {
  static const float W4[4] = {0.4f, 0.3f, 0.2f, 0.1f}, W8[8] = {0.2f, 0.18f, 0.15f, 0.13f, 0.11f, 0.09f, 0.08f, 0.06f};
  static const int OFF[8] = {0, 1, -1, 2, -2, 3, -3, 4};
  const int k = d->kind.influences;
  uint32_t rings = n / SEGMENTS < 2 ? 2 : n / SEGMENTS, count = rings * SEGMENTS;
  float *pos = malloc((size_t)count * 12), *nrm = malloc((size_t)count * 12), *w = malloc((size_t)count * 4 * k);
  float *dv = d->kind.keyed ? malloc((size_t)count * 12) : NULL, *dn = d->kind.keyed ? malloc((size_t)count * 12) : NULL;
  uint32_t *jj = malloc((size_t)count * 4 * k);
  d->tri_count = (rings - 1) * SEGMENTS * 2;
  d->tris = malloc((size_t)d->tri_count * 12);
  d->pos = malloc((size_t)count * 12), d->nrm = malloc((size_t)count * 12);
  int ok = pos && nrm && w && jj && d->tris && d->pos && d->nrm && (!d->kind.keyed || (dv && dn));
  for (uint32_t v = 0; ok && v < count; ++v) {
    float x = (float)(v / SEGMENTS) * JOINTS / (rings - 1), a = 6.2831853f * (v % SEGMENTS) / SEGMENTS;
    float p[3] = {x, 0.5f * cosf(a), 0.5f * sinf(a)}, q[3] = {0, cosf(a), sinf(a)};
    int near = (int)x < (int)JOINTS ? (int)x : (int)JOINTS - 1;
    memcpy(pos + (size_t)v * 3, p, 12), memcpy(nrm + (size_t)v * 3, q, 12);
    memcpy(w + (size_t)v * k, k == 8 ? W8 : W4, sizeof(float) * k);
    for (int i = 0; i < k; ++i) jj[(size_t)v * k + i] = (uint32_t)(near + OFF[i] + (int)JOINTS) % JOINTS;
    if (dv) key_offsets(x, q, dv + (size_t)v * 3, dn + (size_t)v * 3);
  }
  for (uint32_t r = 0, t = 0; ok && r + 1 < rings; ++r)
    for (uint32_t s = 0; s < SEGMENTS; ++s, t += 6) {
      uint32_t v00 = r * SEGMENTS + s, v01 = r * SEGMENTS + (s + 1) % SEGMENTS;
      uint32_t q[6] = {v00, v01, v01 + SEGMENTS, v00, v01 + SEGMENTS, v00 + SEGMENTS};
      memcpy(d->tris + t, q, sizeof q);
    }
  int32_t parents[JOINTS];
  float bind[JOINTS * 16];
  bench_chain_skeleton(parents, bind);
  skn_bind_desc b = {sizeof b};
  b.joint_count = JOINTS, b.parents = parents, b.bind_matrices = bind, b.vertex_count = count;
  b.positions.data = pos, b.normals.data = nrm;
  b.influences_per_vertex = (uint32_t)k, b.influence_joints = jj, b.influence_weights = w;
  skn_morph_target key = {count, NULL, {dv, 0}, {dn, 0}, {0}};
  b.morph_targets = dv ? &key : NULL, b.morph_target_count = dv ? 1 : 0;
  d->rig.api = skn_get_api(SKN_VERSION_MAJOR), d->rig.n = count, d->rig.k = k;
  ok = ok && skn_bind(&b, &d->rig.rig) == SKN_OK && skn_pose_create(d->rig.rig, &d->rig.pose) == SKN_OK &&
       bench_pose_chain(&d->rig, 0) == SKN_OK;
  free(pos), free(nrm), free(w), free(jj), free(dv), free(dn);
  return ok;
}

/* The view (a fixed oblique one) and a framing that fits the deformed
 * positions in d->pos: the tube's box, centered, its longer side filling
 * the window with 5% to spare. */
static void frame_mesh(draw_bench *d) {
  const double width = DRAW_WIDTH, height = DRAW_HEIGHT;
  const float c = 0.8660254f, s = 0.5f, view[9] = {c, 0, -s, -s * s, c, -s * c, s * c, s, c * c};
  double lo[3] = {1e300, 1e300, 1e300}, hi[3] = {-1e300, -1e300, -1e300};
  memcpy(d->view, view, sizeof view);
  for (uint32_t v = 0; v < d->rig.n; ++v)
    for (int r = 0; r < 3; ++r) {
      const float *p = d->pos + (size_t)v * 3;
      double x = view[r * 3] * p[0] + view[r * 3 + 1] * p[1] + view[r * 3 + 2] * p[2];
      lo[r] = fmin(lo[r], x), hi[r] = fmax(hi[r], x);
    }
  double sc = 1.9 / fmax((hi[0] - lo[0]) / width, (hi[1] - lo[1]) / height);
  d->frame[0] = (float)((lo[0] + hi[0]) / 2), d->frame[1] = (float)((lo[1] + hi[1]) / 2);
  d->frame[2] = (float)(sc / width), d->frame[3] = (float)(sc / height);
  d->depth[0] = (float)((lo[2] + hi[2]) / 2), d->depth[1] = (float)(1 / ((hi[2] - lo[2]) / 2 * 1.01 + 1e-9));
}

static void set_uniforms(const draw_bench *d, GLuint program) {
  const char *rows[3] = {"view_x", "view_y", "view_z"};
  d->gl->UseProgram(program);
  for (int r = 0; r < 3; ++r)
    d->gl->Uniform4f(d->gl->GetUniformLocation(program, rows[r]), d->view[r * 3], d->view[r * 3 + 1],
                     d->view[r * 3 + 2], 0);
  d->gl->Uniform4f(d->gl->GetUniformLocation(program, "frame"), d->frame[0], d->frame[1], d->frame[2], d->frame[3]);
  d->gl->Uniform4f(d->gl->GetUniformLocation(program, "depth"), d->depth[0], d->depth[1], 0, 0);
}

static GLuint compile(skn_gl_api *gl, GLenum type, const char *const *parts, GLsizei count) {
  GLuint sh = gl->CreateShader(type);
  GLint ok = 0;
  gl->ShaderSource(sh, count, parts, NULL);
  gl->CompileShader(sh);
  gl->GetShaderiv(sh, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    char log[1024] = "";
    gl->GetShaderInfoLog(sh, sizeof log, NULL, log);
    fprintf(stderr, "skn: bench --gpu: the plain shader: %s\n", log);
    gl->DeleteShader(sh);
    return 0;
  }
  return sh;
}

/* The CPU way's program (the same stages, skinning defined away), in the
 * dialect skn_gl chose, and its vertex array. */
static int make_plain(draw_bench *d, skn_glsl_dialect dialect) {
  skn_gl_api *gl = d->gl;
  const char *version = dialect == SKN_GLSL_330 ? "#version 330 core\n" : "#version 300 es\nprecision highp float;\n";
  const char *vs[3] = {version, PLAIN_DEFINES, VERTEX_MAIN}, *fs[2] = {version, FRAGMENT_MAIN};
  GLuint v = compile(gl, GL_VERTEX_SHADER, vs, 3), f = compile(gl, GL_FRAGMENT_SHADER, fs, 2);
  GLint linked = 0;
  if (!v || !f) return 0;
  d->program = gl->CreateProgram();
  gl->AttachShader(d->program, v), gl->AttachShader(d->program, f);
  gl->LinkProgram(d->program);
  gl->DeleteShader(v), gl->DeleteShader(f);
  gl->GetProgramiv(d->program, GL_LINK_STATUS, &linked);
  if (!linked) return fprintf(stderr, "skn: bench --gpu: the plain program does not link\n"), 0;
  gl->GenVertexArrays(1, &d->vao);
  gl->BindVertexArray(d->vao);
  gl->GenBuffers(3, d->buffers);
  const char *names[2] = {"skn_rest_position", "skn_rest_normal"};
  for (int a = 0; a < 2; ++a) {
    GLint at = gl->GetAttribLocation(d->program, names[a]);
    gl->BindBuffer(GL_ARRAY_BUFFER, d->buffers[a]);
    gl->BufferData(GL_ARRAY_BUFFER, (GLsizeiptr)d->rig.n * 12, NULL, GL_DYNAMIC_DRAW);
    gl->VertexAttribPointer((GLuint)at, 3, GL_FLOAT, 0, 12, NULL);
    gl->EnableVertexAttribArray((GLuint)at);
  }
  gl->BindBuffer(GL_ELEMENT_ARRAY_BUFFER, d->buffers[2]);
  gl->BufferData(GL_ELEMENT_ARRAY_BUFFER, (GLsizeiptr)d->tri_count * 12, d->tris, GL_STATIC_DRAW);
  gl->BindVertexArray(0);
  return gl->GetError() == GL_NO_ERROR;
}

static void clear(skn_gl_api *gl) {
  gl->ClearColor(0, 0, 0, 0);
  gl->Clear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
  gl->Enable(GL_DEPTH_TEST);
  gl->DepthFunc(GL_LESS);
}

/* A keyed shape key's value at frame f (the same in both ways' frame f),
 * set in the pose; nothing for a rig without one. */
static void key_frame(draw_bench *d, int f) {
  float value = 0.3f + 0.6f * (float)(f % 7) / 6.0f;
  if (d->kind.keyed) skn_pose_set_morph_weights(d->rig.pose, 0, 1, &value);
}

/* One offload frame: palette (with the key's value), draw, finish. */
static double offload_frame(draw_bench *d, skn_gl *sg) {
  double t0 = bench_now();
  skn_gl_update(sg, d->rig.pose);
  skn_gl_bind(sg);
  clear(d->gl);
  d->gl->DrawElements(GL_TRIANGLES, (GLsizei)d->tri_count * 3, GL_UNSIGNED_INT, NULL);
  d->gl->Finish();
  return bench_now() - t0;
}

/* One CPU frame (upload = 1: skin on every core and upload first; 0: the
 * floor, the last upload drawn again). *skin gets skn_skin's part. */
static double cpu_frame(draw_bench *d, skn_method m, int upload, double *skin) {
  double t0 = bench_now();
  if (upload) {
    skn_skin_desc s = bench_skin_desc(m, 1, 0, d->pos, d->nrm, NULL, SKN_STORES_AUTO);
    skn_skin(d->rig.rig, d->rig.pose, &s);
    *skin = bench_now() - t0;
    for (int a = 0; a < 2; ++a) {
      d->gl->BindBuffer(GL_ARRAY_BUFFER, d->buffers[a]);
      d->gl->BufferSubData(GL_ARRAY_BUFFER, 0, (GLsizeiptr)d->rig.n * 12, a ? d->nrm : d->pos);
    }
  }
  d->gl->UseProgram(d->program);
  d->gl->BindVertexArray(d->vao);
  clear(d->gl);
  d->gl->DrawElements(GL_TRIANGLES, (GLsizei)d->tri_count * 3, GL_UNSIGNED_INT, NULL);
  d->gl->Finish();
  return bench_now() - t0;
}

/* Pixels of a and b (w x h RGBA) that differ by more than 2 in a channel. */
static size_t pixels_differing(const unsigned char *a, const unsigned char *b, size_t pixels) {
  size_t count = 0;
  for (size_t i = 0; i < pixels; ++i)
    for (int c = 0; c < 4; ++c)
      if (abs(a[i * 4 + c] - b[i * 4 + c]) > 2) {
        ++count;
        break;
      }
  return count;
}

/* The compute path's adapter for a row (skn_gl_update dispatches, the
 * draw reads what the dispatch wrote), or NULL where the context has no
 * compute path or refuses the rig (a storage buffer over its limit); the
 * reason goes to *why. */
static skn_gl *make_compute(const draw_bench *d, skn_gl_desc g, char *why, size_t size) {
  skn_gl *sc = NULL;
  g.path = SKN_GL_PATH_COMPUTE;
  if (skn_gl_create(d->rig.rig, &g, &sc) == SKN_OK) return sc;
  snprintf(why, size, "%s", skn_last_error());
  return NULL;
}

/* A way's picture into px (its warm frame, the key at frame 0's value):
 * offloaded through sg, or with sg NULL the CPU way's. */
static void picture(draw_bench *d, skn_gl *sg, skn_method m, unsigned char *px) {
  double skin;
  key_frame(d, 0);
  if (sg) offload_frame(d, sg);
  else cpu_frame(d, m, 1, &skin);
  skn_egl_read_rgba(d->egl, px);
}

/* One row: method m at d's size, reps frames of each way: offload on the
 * vertex path (as the Blender add-on draws), and on the compute path where
 * the context has one; the CPU way; the floor. */
static int draw_row(draw_bench *d, skn_method m, int reps) {
  skn_gl_desc g = {sizeof g};
  g.loader = skn_egl_loader, g.method = m, g.outputs = SKN_GPU_NORMALS, g.path = SKN_GL_PATH_VERTEX;
  g.vertex_main = VERTEX_MAIN, g.fragment_main = FRAGMENT_MAIN;
  g.indices = d->tris, g.index_count = d->tri_count * 3;
  skn_gl *sg = NULL, *sc = NULL;
  char why[256] = "", ct[16] = "-", cr[16] = "-", cd[16] = "-";
  if (skn_gl_create(d->rig.rig, &g, &sg)) return fail_input("skn_gl_create");
  sc = make_compute(d, g, why, sizeof why);
  skn_gl_info info = {sizeof info}, cinfo = {sizeof cinfo};
  skn_gl_info_get(sg, &info);
  double skin = 0, skins[32], offload[32], compute[32], cpu[32], floor_[32];
  key_frame(d, 0);
  cpu_frame(d, m, 1, &skin); /* d->pos: the deformed mesh, for the framing */
  frame_mesh(d);
  set_uniforms(d, info.program), set_uniforms(d, d->program);
  if (sc) skn_gl_info_get(sc, &cinfo), set_uniforms(d, cinfo.program);
  size_t px = (size_t)DRAW_WIDTH * DRAW_HEIGHT, drawn = 0;
  unsigned char *a = malloc(px * 4), *b = malloc(px * 4), *c = malloc(px * 4);
  if (!a || !b || !c) return free(a), free(b), free(c), skn_gl_destroy(sg), skn_gl_destroy(sc), fail_input("out of memory");
  picture(d, sg, m, a), picture(d, NULL, m, b); /* warm, and the pictures */
  if (sc) picture(d, sc, m, c);
  for (size_t i = 0; i < px; ++i) drawn += a[i * 4 + 3] != 0;
  for (int r = 0; r < reps; ++r) {
    key_frame(d, r + 1);
    offload[r] = offload_frame(d, sg);
    compute[r] = sc ? offload_frame(d, sc) : 0;
    cpu[r] = cpu_frame(d, m, 1, &skins[r]);
    floor_[r] = cpu_frame(d, m, 0, &skin);
  }
  double o = bench_median(offload, reps) * 1e3, cc = bench_median(cpu, reps) * 1e3;
  if (sc) {
    double k = bench_median(compute, reps) * 1e3;
    snprintf(ct, sizeof ct, "%.2f", k), snprintf(cr, sizeof cr, "%.2fx", cc / k);
    snprintf(cd, sizeof cd, "%zu", pixels_differing(c, b, px));
  }
  printf("%-5s %-6s %10u %9.2f %11.2f %9s %11.2f %9.2f %10.2fx %8s %8zu %9zu %9s\n", BENCH_METHOD_NAMES[m],
         d->kind.name, d->rig.n, bench_median(floor_, reps) * 1e3, o, ct, cc, bench_median(skins, reps) * 1e3, cc / o,
         cr, drawn, pixels_differing(a, b, px), cd);
  if (!sc) printf("      (compute: %s)\n", why);
  free(a), free(b), free(c);
  skn_gl_destroy(sg), skn_gl_destroy(sc);
  return d->gl->GetError() == GL_NO_ERROR ? EXIT_OK : fail_input("a GL error");
}

int bench_gpu_draw(skn_gl_api *gl, skn_egl *egl, const uint32_t *sizes, uint32_t count) {
  printf("\nviewport frames: a tube along the chain (rings of %u vertices, 2 triangles a quad), drawn whole into\n"
         "%d x %d with depth, ms a frame (medians): floor: the deformed mesh drawn again, no skinning, no upload;\n"
         "offload: palette upload + draw skinning in skn's GLSL (the vertex path); compute: palette upload +\n"
         "dispatch + draw of its output (the compute path, - where the context has none); CPU: skn_skin on every\n"
         "core + upload of positions and normals + the same draw without skinning (of which skin: skn_skin).\n"
         "rig: influences a vertex (4: bones; 8: B-Bones, each bone split between two segments), +key: a shape\n"
         "key keyed (a morph target moving every vertex, its value new each frame)\n\n",
         SEGMENTS, DRAW_WIDTH, DRAW_HEIGHT);
  printf("%-5s %-6s %10s %9s %11s %9s %11s %9s %11s %8s %8s %9s %9s\n", "meth", "rig", "vertices", "floor", "offload",
         "compute", "CPU", "of which", "CPU/", "CPU/", "pixels", "differing", "differing");
  printf("%-5s %-6s %10s %9s %11s %9s %11s %9s %11s %8s %8s %9s %9s\n", "", "", "", "", "", "", "", "skin", "offload",
         "compute", "drawn", "offload", "compute");
  int rc = EXIT_OK;
  const char *version = (const char *)gl->GetString(GL_VERSION); /* "OpenGL ES 3.2 ..." or "4.5 ..." */
  skn_glsl_dialect dialect = !strncmp(version, "OpenGL ES", 9) ? SKN_GLSL_300_ES : SKN_GLSL_330;
  for (uint32_t k = 0; k < count && !rc; ++k)
    for (size_t t = 0; t < sizeof TUBE_RIGS / sizeof *TUBE_RIGS && !rc; ++t) {
      draw_bench d = {gl, egl, TUBE_RIGS[t]};
      if (!make_tube(&d, sizes[k])) rc = fail_input("the tube");
      if (!rc && !make_plain(&d, dialect)) rc = fail_input("the plain program");
      int reps = d.rig.n >= 10000000 ? 5 : 11;
      if (!rc) rc = draw_row(&d, SKN_METHOD_LBS_MATRIX, reps);
      if (!rc && t == 0) rc = draw_row(&d, SKN_METHOD_DQS, reps); /* DQS on the plain rig alone */
      if (d.vao) gl->DeleteVertexArrays(1, &d.vao), gl->DeleteBuffers(3, d.buffers), gl->DeleteProgram(d.program);
      free(d.tris), free(d.pos), free(d.nrm);
      if (d.rig.api) bench_rig_free(&d.rig);
    }
  printf("\npixels differing: of the offload and compute pictures against the CPU one, by more than 2 of 255 in a\n"
         "channel.\n");
  return rc;
}
