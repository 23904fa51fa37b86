/* bake.c — `skn bake`: a primitive's animation skinned at a frame rate and
 * written as per-frame arrays. Frames are counted from 0 at the animation's
 * first key, frame k at k / fps seconds after it; --frames A:B bakes A to
 * B - 1, the whole animation (every frame at or before its last key) by
 * default. --format npy writes OUT/positions.npy and OUT/normals.npy (where
 * the primitive has normals), float32 of shape (frames, vertices, 3), row i
 * frame A + i (NumPy's format 1.0: a magic, a header dict, the data in C
 * order), then OUT/manifest.json. Memory is a few frames: each is skinned
 * and handed to a writer thread (frame_writer.c), which appends it while
 * the next is skinned; a killed bake resumes (write_npy_bake). --format vat-png writes vertex animation textures (below).
 * The files are written under temporary names and renamed when whole, the
 * manifest last, so that a folder with a manifest holds a whole bake; a
 * folder that holds one is replaced only with --overwrite. */
#include "cli.h"
#include "gltf_edit.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DEFAULT_VAT_WIDTH 4096u /* texels a row: within every desktop GPU's texture limit */

enum { POSITIONS, NORMALS, MANIFEST, UV, MESH, FILES };
enum { NPY = BAKE_NPY, VAT_PNG = BAKE_VAT_PNG, VAT_EXR = BAKE_VAT_EXR, ZARR = BAKE_ZARR, BONE_VAT = BAKE_BONE_VAT };
#define DEFAULT_CHUNK 64u       /* zarr: frames a chunk */

typedef struct bake {
  posed_mesh m;
  const options *o;
  uint32_t first, end;          /* frames [first, end) */
  float start, fps;             /* the animation's first key; frames a second */
  int normals, vat;             /* the primitive has normals; --format: 0 npy, VAT_PNG or VAT_EXR */
  int exr_float;                /* vat-exr: float, not half */
  const char *frames_dir;       /* vat: a zarr bake of its frames, read not skinned (--from-zarr, or staged) */
  uint32_t zarr_chunk;          /* and its chunk's frames (0: skinned here) */
  uint32_t width, rows;         /* vat: texels a row, rows a frame */
  float lo[3], hi[3];           /* vat: the positions' bounds over the bake */
  int mesh;                     /* vat: mesh.glb written (not where the document names files beside it) */
  char uv_set[24];              /* vat: its TEXCOORD_n */
  char path[FILES][4096];       /* the final names */
} bake;

/* A file of the bake could not be made, written or renamed: errno says why
 * (a full disk, a folder that is not writable). */
static int fail_write(const bake *b) {
  fprintf(stderr, "skn: bake: cannot write the bake in %s: %s\n", b->o->out, strerror(errno ? errno : EIO));
  return EXIT_INPUT;
}

/* NumPy's .npy header (format 1.0) for float32 (frames, vertices, 3): the
 * dict padded with spaces so that the data starts at a multiple of 64. */
static int npy_header(FILE *f, const char *descr, const char *shape) {
  char dict[160];
  int n = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }", descr, shape);
  size_t total = (10 + (size_t)n + 1 + 63) / 64 * 64, len = total - 10;
  unsigned char head[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)(len & 0xFF), (unsigned char)(len >> 8)};
  if (fwrite(head, 1, 10, f) != 10 || fwrite(dict, 1, (size_t)n, f) != (size_t)n) return 0;
  for (size_t k = 10 + (size_t)n; k + 1 < total; ++k)
    if (fputc(' ', f) == EOF) return 0;
  return fputc('\n', f) != EOF;
}

static int write_npy_header(FILE *f, uint32_t frames, uint32_t vertices) {
  char shape[64];
  snprintf(shape, sizeof shape, "%u, %u, 3", frames, vertices);
  return npy_header(f, "<f4", shape);
}

/* A whole .npy file: `bytes` of data after the header. */
static int write_npy(const char *path, const char *descr, const char *shape, const void *data, size_t bytes) {
  FILE *f = fopen(path, "wb");
  int ok = f && npy_header(f, descr, shape) && fwrite(data, 1, bytes, f) == bytes;
  if (f && fclose(f)) ok = 0;
  return ok;
}

/* The frames to bake: --frames, or every frame of the animation (those at
 * or before its last key; one without an animation); bake_command.c has
 * refused a range past them, as skn.bake refuses it. */
static int plan_frames(bake *b) {
  b->fps = b->o->fps > 0 ? b->o->fps : BAKE_DEFAULT_FPS;
  float duration = 0;
  skn_gltf_animation_info ai = {sizeof ai};
  if (b->m.animation != SKN_GLTF_NO_ANIMATION) {
    if (skn_gltf_animation_info_get(b->m.gltf, b->m.animation, &ai)) return fail_input("bake");
    b->start = ai.start, duration = ai.end - ai.start;
  }
  uint32_t count = bake_frame_count(duration, b->fps);
  b->first = b->o->has_range ? b->o->frame_first : 0;
  b->end = b->o->has_range ? b->o->frame_end : count;
  return EXIT_OK;
}

int make_folders(const char *path) {
  char p[4096];
  if (snprintf(p, sizeof p, "%s", path) >= (int)sizeof p) return errno = ENAMETOOLONG, -1;
  for (char *c = p + 1; *c; ++c) /* each parent, then the folder: mkdir -p */
    if (*c == '/') {
      *c = 0;
      if (mkdir(p, 0777) && errno != EEXIST) return -1;
      *c = '/';
    }
  return mkdir(p, 0777) && errno != EEXIST ? -1 : 0;
}

uint32_t bake_frame_count(float seconds, float fps) { return (uint32_t)floor((double)seconds * fps + 1e-6) + 1; }

/* OUT: made, or refused where it holds a bake and --overwrite is not given. */
static int prepare_folder(bake *b, int nested) {
  const char *out = b->o->out;
  /* each format's files in the slots (POSITIONS, NORMALS, MANIFEST, UV, MESH) */
  static const char *const NAMES[5][FILES] = {{"positions.npy", "normals.npy", "manifest.json", "", ""},
                                              {"positions.png", "normals.png", "manifest.json", "uv.npy", "mesh.glb"},
                                              {"positions.exr", "normals.exr", "manifest.json", "uv.npy", "mesh.glb"},
                                              {"positions", "normals", "manifest.json", ".zgroup", ""},
                                              {"palette.exr", "rest.npy", "manifest.json", "joints.npy", "weights.npy"}};
  for (int k = 0; k < FILES; ++k) snprintf(b->path[k], sizeof b->path[k], "%s/%s", out, NAMES[b->vat][k]);
  if (make_folders(out)) return fprintf(stderr, "skn: bake: cannot make %s: %s\n", out, strerror(errno)), EXIT_INPUT;
  struct stat st;
  if (stat(out, &st) || !S_ISDIR(st.st_mode)) return fprintf(stderr, "skn: bake: %s is not a folder\n", out), EXIT_INPUT;
  if (!access(b->path[2], F_OK) && !b->o->overwrite && !nested)
    return fprintf(stderr, "skn: bake: %s holds a bake (%s); --overwrite replaces it\n", out, b->path[2]), EXIT_INPUT;
  return EXIT_OK;
}

static void progress_of(const char *what, uint32_t done, uint32_t total) {
  static int terminal = -1;
  if (terminal < 0) terminal = isatty(STDERR_FILENO);
  if (!terminal) return; /* quiet where nobody watches */
  int width = 40, filled = (int)((uint64_t)done * width / total);
  fprintf(stderr, "\r%s [%.*s%*s] %u/%u frames", what, filled, "########################################", width - filled, "",
          done, total);
  if (done == total) fputc('\n', stderr);
}

static void progress(uint32_t done, uint32_t total) { progress_of("bake", done, total); }

/* Frames `from` on skinned and appended to the partial arrays (their
 * headers first, from frame 0), the writing on frame_writer's thread. */
static int write_frames(bake *b, FILE *const files[2], uint32_t from) {
  uint32_t n = b->m.info.vertex_count, frames = b->end - b->first;
  frame_writer *w = frame_writer_start((size_t)n * 3);
  int rc = w ? EXIT_OK : fail_input("bake: out of memory");
  for (int k = 0; !rc && !from && k < 1 + b->normals; ++k)
    if (!write_npy_header(files[k], frames, n)) rc = fail_write(b);
  for (uint32_t i = from; !rc && i < frames; ++i) {
    float *const *slot = frame_writer_slot(w);
    if (!slot) {
      rc = fail_write(b);
      break;
    }
    float t = b->start + (float)((double)(b->first + i) / b->fps);
    rc = posed_mesh_skin(&b->m, t, b->o->methods[0], b->o->dqs_scale, slot[0], slot[1]);
    if (!rc) frame_writer_push(w, files[0], b->normals ? files[1] : NULL);
    progress(i + 1, frames);
  }
  if (!frame_writer_stop(w) && !rc) rc = fail_write(b);
  return rc;
}

/* ---- --format zarr: a Zarr (v2) group of the same arrays ----
 * OUT is the group (OUT/.zgroup); OUT/positions and OUT/normals are arrays
 * of shape (frames, vertices, 3), float32 little-endian, C order, chunked
 * by --chunk frames (the last chunk padded with zeros, the fill value, as
 * Zarr stores edge chunks), uncompressed: chunk c is the file c.0.0 (the
 * Zarr v2 specification's key), written under a temporary name and renamed
 * when whole, so that a chunk file present is a whole chunk; a rerun of an
 * unfinished bake keeps those (fingerprint, below). Memory is one frame. */

/* Frame i's time: i / fps after the first frame's. */
static float time_of(const bake *b, uint32_t i) { return b->start + (float)((double)(b->first + i) / b->fps); }

static int write_text(const char *path, const char *text) {
  char tmp[4200];
  snprintf(tmp, sizeof tmp, "%s.tmp%ld", path, (long)getpid());
  FILE *f = fopen(tmp, "w");
  int ok = f && fputs(text, f) >= 0;
  if (f && fclose(f)) ok = 0;
  if (ok && rename(tmp, path)) ok = 0;
  int why = errno;
  if (!ok) unlink(tmp), errno = why; /* (the cause is the write's, not the unlink's) */
  return ok;
}

static int zarr_arrays(const bake *b, uint32_t chunk) {
  char text[512], path[4200];
  int ok = write_text(b->path[UV], "{\n  \"zarr_format\": 2\n}\n");
  for (int k = 0; ok && k < 1 + b->normals; ++k) {
    if (mkdir(b->path[k], 0777) && errno != EEXIST) return 0;
    snprintf(text, sizeof text,
             "{\n  \"zarr_format\": 2,\n  \"shape\": [%u, %u, 3],\n  \"chunks\": [%u, %u, 3],\n"
             "  \"dtype\": \"<f4\",\n  \"compressor\": null,\n  \"fill_value\": 0.0,\n  \"order\": \"C\",\n"
             "  \"filters\": null\n}\n",
             b->end - b->first, b->m.info.vertex_count, chunk, b->m.info.vertex_count);
    snprintf(path, sizeof path, "%s/.zarray", b->path[k]);
    ok = write_text(path, text);
  }
  return ok;
}

/* What the chunks were made of: every option that changes a frame's
 * numbers. OUT/.skn-progress holds it from the first chunk on; a rerun of a
 * bake that did not finish (no manifest) with the same text keeps the
 * chunk files already whole (each was renamed into place whole, so a file
 * of a whole chunk's size is one) and makes the others. */
static void fingerprint(const bake *b, uint32_t chunk, char *out, size_t size) {
  int len = snprintf(out, size, "skn %s\nformat %d\nfile %s\nprimitive %u\nanimation %u start %.9g\nfps %.9g\nframes %u %u\n"
                                "method %s\ndqs-scale %d\nblend %.9g\nlayout %d\nchunk %u\nvertices %u normals %d\nweights",
                     skn_version_string(), b->vat, b->o->file, b->m.primitive, b->m.animation, b->start, b->fps, b->first, b->end,
                     b->o->method_names[0], (int)b->o->dqs_scale, b->o->blend, (int)b->o->layout, chunk,
                     b->m.info.vertex_count, b->normals);
  for (uint32_t w = 0; len > 0 && (size_t)len < size && w < b->o->weight_count; ++w)
    len += snprintf(out + len, size - (size_t)len, " %.9g", b->o->weights[w]);
  if (len > 0 && (size_t)len < size) snprintf(out + len, size - (size_t)len, "\n");
}

/* 1: the chunk's files are whole from an unfinished run of this bake. */
static int chunk_whole(const bake *b, uint32_t c, uint32_t chunk) {
  char path[4200];
  struct stat st;
  for (int k = 0; k < 1 + b->normals; ++k) {
    snprintf(path, sizeof path, "%s/%u.0.0", b->path[k], c);
    if (stat(path, &st) || (uint64_t)st.st_size != (uint64_t)chunk * b->m.info.vertex_count * 12) return 0;
  }
  return 1;
}

/* The resumable chunks: whether OUT/.skn-progress is this bake's. */
static int resuming(const bake *b, const char *print, const char *path) {
  if (b->o->overwrite) return 0;
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  char was[8192];
  size_t n = fread(was, 1, sizeof was - 1, f);
  fclose(f);
  was[n] = 0;
  return !strcmp(was, print);
}

static int write_zarr_chunk(bake *b, frame_writer *w, uint32_t c, uint32_t chunk) {
  uint32_t n = b->m.info.vertex_count, frames = b->end - b->first;
  char final[2][4200], tmp[2][4300];
  FILE *f[2] = {NULL, NULL};
  int rc = EXIT_OK;
  for (int k = 0; k < 1 + b->normals; ++k) {
    if (snprintf(final[k], sizeof final[k], "%s/%u.0.0", b->path[k], c) >= (int)sizeof final[k] ||
        snprintf(tmp[k], sizeof tmp[k], "%s.tmp%ld", final[k], (long)getpid()) >= (int)sizeof tmp[k])
      rc = fail_input("bake: the path is too long");
    if (!rc && !(f[k] = fopen(tmp[k], "wb"))) rc = fail_write(b);
  }
  for (uint32_t i = c * chunk; !rc && i < (c + 1) * chunk; ++i) {
    float *const *slot = frame_writer_slot(w);
    if (!slot) {
      rc = fail_write(b);
      break;
    }
    if (i < frames) rc = posed_mesh_skin(&b->m, time_of(b, i), b->o->methods[0], b->o->dqs_scale, slot[0], slot[1]);
    else memset(slot[0], 0, (size_t)n * 12), memset(slot[1], 0, (size_t)n * 12); /* the edge chunk's fill */
    if (!rc) frame_writer_push(w, f[0], f[1]);
    if (i < frames) progress(i + 1, frames);
  }
  if (!frame_writer_drain(w) && !rc) rc = fail_write(b); /* the chunk's frames are in its files */
  for (int k = 0; k < 2; ++k) {
    if (f[k] && fclose(f[k]) && !rc) rc = fail_write(b);
    if (f[k] && !rc && rename(tmp[k], final[k])) rc = fail_write(b);
    if (f[k] && rc) unlink(tmp[k]);
  }
  return rc;
}

/* A new bake's arrays start empty: an earlier bake's chunk files (more of
 * them, or of another chunk size) and a killed run's temporary files go;
 * a resumed bake's, when it is whole, lose the temporaries (`temporaries`). */
static void clear_chunks(const bake *b, int temporaries) {
  char path[4400];
  for (int k = 0; k < 2; ++k) {
    DIR *d = opendir(b->path[k]);
    for (struct dirent *e; d && (e = readdir(d));)
      if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && strcmp(e->d_name, ".zarray") &&
          (!temporaries || strstr(e->d_name, ".tmp")) &&
          snprintf(path, sizeof path, "%s/%s", b->path[k], e->d_name) < (int)sizeof path)
        unlink(path);
    if (d) closedir(d);
  }
}

static int write_zarr(bake *b) {
  uint32_t n = b->m.info.vertex_count, frames = b->end - b->first, chunk = b->o->chunk ? b->o->chunk : DEFAULT_CHUNK;
  uint32_t chunks = (frames + chunk - 1) / chunk, kept = 0;
  char print[8192], progress_path[4200];
  fingerprint(b, chunk, print, sizeof print);
  snprintf(progress_path, sizeof progress_path, "%s/.skn-progress", b->o->out);
  int resume = resuming(b, print, progress_path);
  frame_writer *w = frame_writer_start((size_t)n * 3);
  int rc = w ? EXIT_OK : fail_input("bake: out of memory");
  if (!rc && !resume) clear_chunks(b, 0);
  if (!rc && !zarr_arrays(b, chunk)) rc = fail_write(b);
  if (!rc && !resume && !write_text(progress_path, print)) rc = fail_write(b);
  for (uint32_t c = 0; !rc && c < chunks; ++c) {
    if (resume && chunk_whole(b, c, chunk)) {
      ++kept;
      continue;
    }
    rc = write_zarr_chunk(b, w, c, chunk);
  }
  if (!rc && resume) clear_chunks(b, 1);
  if (!rc && kept) fprintf(stderr, "skn: bake: resumed: %u of %u chunks were whole and kept\n", kept, chunks);
  frame_writer_stop(w);
  return rc;
}

/* ---- --format npy, resumable ----
 * The arrays grow frame after frame as positions.npy.partial and
 * normals.npy.partial, renamed when whole; OUT/.skn-progress fingerprints
 * the bake (removed when it is whole). A rerun of an unfinished one (killed:
 * no manifest, the partial files there) with the same fingerprint keeps the
 * frames both files hold whole and goes on from the first missing one. */

/* The frames `path` holds whole after its header (NumPy 1.0: 10 bytes,
 * then the header's length); *offset: where its data starts. */
static uint32_t npy_frames_whole(const char *path, uint32_t n, long *offset) {
  unsigned char head[10];
  struct stat st;
  FILE *f = fopen(path, "rb");
  int ok = f && fread(head, 1, 10, f) == 10 && head[0] == 0x93 && head[6] == 1 && !fstat(fileno(f), &st);
  if (f) fclose(f);
  if (!ok) return 0;
  *offset = 10 + (long)(head[8] | head[9] << 8);
  return st.st_size > *offset ? (uint32_t)((uint64_t)(st.st_size - *offset) / ((uint64_t)n * 12)) : 0;
}

static int write_npy_bake(bake *b, char tmp[][4200], const char *progress_path) {
  uint32_t n = b->m.info.vertex_count, frames = b->end - b->first, kept = frames;
  char print[8192];
  fingerprint(b, 0, print, sizeof print);
  long offset[2] = {0, 0};
  int resume = resuming(b, print, progress_path), rc = EXIT_OK;
  for (int k = 0; resume && k < 1 + b->normals; ++k) {
    uint32_t whole = npy_frames_whole(tmp[k], n, &offset[k]);
    kept = whole < kept ? whole : kept;
  }
  if (!resume || kept == frames) kept = 0; /* all there but not renamed: the last frame again is cheapest */
  if (!kept && !write_text(progress_path, print)) return fail_write(b);
  FILE *files[2] = {NULL, NULL};
  for (int k = 0; !rc && k < 1 + b->normals; ++k) {
    files[k] = fopen(tmp[k], kept ? "r+b" : "wb");
    long at = offset[k] + (long)kept * (long)n * 12;
    if (!files[k] || (kept && (fseek(files[k], at, SEEK_SET) || ftruncate(fileno(files[k]), at)))) rc = fail_write(b);
  }
  if (!rc && kept) fprintf(stderr, "skn: bake: resumed: %u of %u frames were whole and kept\n", kept, frames);
  if (!rc) rc = write_frames(b, files, kept);
  for (int k = 0; k < 2; ++k)
    if (files[k] && fclose(files[k]) && !rc) rc = fail_write(b);
  return rc;
}

/* ---- --format bone-vat: the palette a frame ----
 * OUT/palette.exr (float RGBA): a row a frame, joint j's palette matrix
 * M_j = W_j^A (W_j^R)^-1 as its three rows in texels 3j to 3j + 2 (skn's
 * SKN_PALETTE_ROWS3X4, the layout of the GPU palette), and what a shader
 * blends them with: OUT/rest.npy (float32, vertices x 3, the rest mesh as
 * the rig skins it), OUT/joints.npy (uint16, vertices x k) and
 * OUT/weights.npy (float32, vertices x k; bind's pruned and normalized
 * weights), k the rig's most influences rounded up to 4. LBS: a vertex is
 * sum_i w_i M_j(i) rest. Morph targets cannot ride a palette: a primitive
 * with any is refused (bake vat-png or vat-exr). */

static int bone_influences(bake *b, const char *tmp_rest, const char *tmp_joints, const char *tmp_weights) {
  skn_rig_info ri = {sizeof ri};
  if (skn_rig_info_get(b->m.rig, &ri)) return fail_input("bake");
  uint32_t n = ri.vertex_count, k = (ri.max_influences_per_vertex + 3) / 4 * 4;
  k = k ? k : 4;
  if (k > 16)
    return fprintf(stderr, "skn: bake: bone-vat: %u influences a vertex; a shader reads at most 16\n",
                   ri.max_influences_per_vertex), EXIT_INPUT;
  float *rest = malloc((size_t)n * 12 + 4), *weights = malloc((size_t)n * k * 4 + 4);
  uint16_t *joints = malloc((size_t)n * k * 2 + 4);
  skn_gpu_attributes a = {sizeof a};
  a.influences = k, a.joint_bits = 16;
  a.joints.data = joints, a.weights.data = weights, a.positions.data = rest;
  int rc = rest && weights && joints ? EXIT_OK : fail_input("bake: out of memory");
  if (!rc && skn_rig_gpu_attributes(b->m.rig, &a)) rc = fail_input("bake");
  char shape[2][48];
  snprintf(shape[0], sizeof shape[0], "%u, 3", n), snprintf(shape[1], sizeof shape[1], "%u, %u", n, k);
  if (!rc && (!write_npy(tmp_rest, "<f4", shape[0], rest, (size_t)n * 12) ||
              !write_npy(tmp_joints, "<u2", shape[1], joints, (size_t)n * k * 2) ||
              !write_npy(tmp_weights, "<f4", shape[1], weights, (size_t)n * k * 4)))
    rc = fail_write(b);
  b->width = k; /* the manifest's influences */
  free(rest), free(weights), free(joints);
  return rc;
}

static int bone_palettes(bake *b, const char *tmp_palette) {
  uint32_t joints = b->m.info.joint_count, frames = b->end - b->first;
  float *row = malloc((size_t)joints * 48);
  exr_rgb *exr = row ? exr_rgb_open(tmp_palette, 3 * joints, frames, 0, 4) : NULL;
  int rc = row && exr ? EXIT_OK : fail_write(b);
  for (uint32_t i = 0; !rc && i < frames; ++i) {
    rc = posed_mesh_pose(&b->m, time_of(b, i));
    if (!rc && skn_pose_palette(b->m.pose, SKN_PALETTE_ROWS3X4, row, (size_t)joints * 48)) rc = fail_input("bake");
    if (!rc && !exr_rgb_row(exr, row)) rc = fail_write(b);
    progress(i + 1, frames);
  }
  if (exr && !exr_rgb_close(exr) && !rc) rc = fail_write(b);
  free(row);
  return rc;
}

/* ---- --format vat-png: vertex animation textures ----
 * One texel a vertex, one row of `width` texels after another for a frame
 * (width = min(vertices, --vat-width)), frame after frame: vertex v of
 * frame f at x = v % width, y = f * rows + v / width. Positions are 16-bit
 * RGB normalized to the bake's bounds, c = round((p - lo) / (hi - lo) *
 * 65535) (an axis of no extent: 0), normals (n + 1) / 2 likewise; both
 * decode to within 2^-17 of their range. The bounds need every frame
 * first: the staged frames (stage_frames) are read twice, memory is still
 * one frame. */

/* Frame i of the bake's frames, skinned here or read from --from-zarr's
 * chunk files (raw float32, C order: frame i at (i % chunk) * n * 12 of
 * chunk i / chunk), which are bit for bit what skinning gives. */
static int vat_frame(bake *b, uint32_t i, float *p, float *nrm) {
  if (!b->zarr_chunk) return posed_mesh_skin(&b->m, time_of(b, i), b->o->methods[0], b->o->dqs_scale, p, nrm);
  uint32_t n = b->m.info.vertex_count;
  for (int k = 0; k < 1 + b->normals; ++k) {
    char path[4200];
    snprintf(path, sizeof path, "%s/%s/%u.0.0", b->frames_dir, k ? "normals" : "positions", i / b->zarr_chunk);
    FILE *f = fopen(path, "rb");
    int ok = f && !fseek(f, (long)(i % b->zarr_chunk) * (long)n * 12, SEEK_SET) && fread(k ? nrm : p, 12, n, f) == n;
    if (f) fclose(f);
    if (!ok) return fprintf(stderr, "skn: bake: cannot read frame %u from %s\n", b->first + i, path), EXIT_INPUT;
  }
  return EXIT_OK;
}

/* --from-zarr DIR: a whole zarr bake (its manifest) of these very frames:
 * the same file's primitive, animation, fps, frames, method and vertices. */
static int open_zarr_frames(bake *b) {
  char path[4200];
  snprintf(path, sizeof path, "%s/manifest.json", b->o->from_zarr);
  FILE *f = fopen(path, "rb");
  char *text = f ? malloc(1 << 16) : NULL;
  size_t len = text ? fread(text, 1, (1 << 16) - 1, f) : 0;
  if (f) fclose(f);
  if (text) text[len] = 0;
  cJSON *m = text ? cJSON_Parse(text) : NULL, *frames = cJSON_GetObjectItem(m, "frames");
  cJSON *animation = cJSON_GetObjectItem(m, "animation"), *chunks = cJSON_GetObjectItem(m, "chunks");
  double fps = cJSON_GetNumberValue(cJSON_GetObjectItem(m, "fps"));
  const char *method = cJSON_GetStringValue(cJSON_GetObjectItem(m, "method"));
  uint32_t want_animation = cJSON_IsNull(animation) ? SKN_GLTF_NO_ANIMATION
                                                    : (uint32_t)cJSON_GetNumberValue(cJSON_GetObjectItem(animation, "index"));
  const char *format = cJSON_GetStringValue(cJSON_GetObjectItem(m, "format"));
  int ok = m && method && format && !strcmp(format, "zarr") && !strcmp(method, b->o->method_names[0]) &&
           cJSON_GetNumberValue(cJSON_GetObjectItem(m, "vertex_count")) == b->m.info.vertex_count &&
           cJSON_GetNumberValue(cJSON_GetObjectItem(m, "primitive")) == b->m.primitive &&
           want_animation == b->m.animation && (float)fps == b->fps &&
           cJSON_GetNumberValue(cJSON_GetArrayItem(frames, 0)) == b->first &&
           cJSON_GetNumberValue(cJSON_GetArrayItem(frames, 1)) == b->end &&
           (cJSON_GetObjectItem(cJSON_GetObjectItem(m, "arrays"), "normals") != NULL) == b->normals;
  b->zarr_chunk = ok ? (uint32_t)cJSON_GetNumberValue(cJSON_GetArrayItem(chunks, 0)) : 0;
  b->frames_dir = b->o->from_zarr;
  cJSON_Delete(m);
  free(text);
  if (ok && b->zarr_chunk) return EXIT_OK;
  fprintf(stderr, "skn: bake: --from-zarr %s: not a whole zarr bake of these frames (its manifest names another "
                  "primitive, animation, fps, frame range, method or mesh)\n", b->o->from_zarr);
  return EXIT_INPUT;
}

static int vat_bounds(bake *b, float *p, float *nrm) {
  uint32_t n = b->m.info.vertex_count, frames = b->end - b->first;
  for (int c = 0; c < 3; ++c) b->lo[c] = INFINITY, b->hi[c] = -INFINITY;
  for (uint32_t i = 0; i < frames; ++i) {
    int rc = vat_frame(b, i, p, nrm);
    if (rc) return rc;
    for (size_t k = 0; k < (size_t)n * 3; ++k)
      b->lo[k % 3] = fminf(b->lo[k % 3], p[k]), b->hi[k % 3] = fmaxf(b->hi[k % 3], p[k]);
  }
  return EXIT_OK;
}

static uint16_t quantize(float x, float lo, float hi) {
  if (!(hi > lo)) return 0;
  double c = floor((double)(x - lo) / ((double)hi - lo) * 65535.0 + 0.5);
  return (uint16_t)(c < 0 ? 0 : c > 65535 ? 65535 : c);
}

/* One frame's rows of a texture: `values` (3 a vertex) quantized to [lo, hi]. */
static int vat_rows(const bake *b, png16 *png, const float *values, const float *lo, const float *hi, uint16_t *row) {
  uint32_t n = b->m.info.vertex_count;
  for (uint32_t r = 0; r < b->rows; ++r) {
    for (uint32_t x = 0; x < b->width; ++x) {
      uint32_t v = r * b->width + x;
      for (int c = 0; c < 3; ++c) row[3 * x + c] = v < n ? quantize(values[3 * (size_t)v + c], lo[c], hi[c]) : 0;
    }
    if (!png16_row(png, row)) return 0;
  }
  return 1;
}

/* One frame's rows of an EXR: the values as they are, 0 past the last vertex. */
static int exr_rows(const bake *b, exr_rgb *exr, const float *values, float *row) {
  uint32_t n = b->m.info.vertex_count;
  for (uint32_t r = 0; r < b->rows; ++r) {
    for (uint32_t x = 0; x < b->width; ++x) {
      uint32_t v = r * b->width + x;
      for (int c = 0; c < 3; ++c) row[3 * x + c] = v < n ? values[3 * (size_t)v + c] : 0.0f;
    }
    if (!exr_rgb_row(exr, row)) return 0;
  }
  return 1;
}

/* The textures: PNG's after a pass for the bounds, EXR's at once. */
static int vat_textures(bake *b, const char *tmp_positions, const char *tmp_normals) {
  uint32_t n = b->m.info.vertex_count, frames = b->end - b->first, height = frames * b->rows;
  float *p = malloc((size_t)n * 12), *nrm = malloc((size_t)n * 12), *frow = malloc((size_t)b->width * 12);
  uint16_t *row = malloc((size_t)b->width * 6);
  static const float NLO[3] = {-1, -1, -1}, NHI[3] = {1, 1, 1};
  int rc = p && nrm && row && frow ? EXIT_OK : fail_input("bake: out of memory");
  if (!rc && b->vat == VAT_PNG) rc = vat_bounds(b, p, nrm);
  png16 *pos = NULL, *nor = NULL;
  exr_rgb *epos = NULL, *enor = NULL;
  if (!rc && b->vat == VAT_PNG &&
      (!(pos = png16_open(tmp_positions, b->width, height)) || (b->normals && !(nor = png16_open(tmp_normals, b->width, height)))))
    rc = fail_write(b);
  if (!rc && b->vat == VAT_EXR &&
      (!(epos = exr_rgb_open(tmp_positions, b->width, height, !b->exr_float, 3)) ||
       (b->normals && !(enor = exr_rgb_open(tmp_normals, b->width, height, !b->exr_float, 3)))))
    rc = fail_write(b);
  for (uint32_t i = 0; !rc && i < frames; ++i) {
    rc = vat_frame(b, i, p, nrm);
    int ok = b->vat == VAT_PNG ? vat_rows(b, pos, p, b->lo, b->hi, row) && (!nor || vat_rows(b, nor, nrm, NLO, NHI, row))
                               : exr_rows(b, epos, p, frow) && (!enor || exr_rows(b, enor, nrm, frow));
    if (!rc && !ok) rc = fail_write(b);
    progress_of("textures", i + 1, frames);
  }
  int closed = (!pos || png16_close(pos)) & (!nor || png16_close(nor)) & (!epos || exr_rgb_close(epos)) &
               (!enor || exr_rgb_close(enor));
  if (!closed && !rc) rc = fail_write(b);
  free(p), free(nrm), free(row), free(frow);
  return rc;
}

/* Each vertex's texel address in the first frame, u = (x + 0.5) / width,
 * v = (v / width + 0.5) / height (a frame f adds f * rows / height): as
 * OUT/uv.npy (float32, vertices x 2), and as a TEXCOORD_n of the baked
 * primitive in OUT/mesh.glb, the document again (not where it names files
 * beside itself: the mesh would lose them). */
static int vat_uv(bake *b, const char *tmp_uv, const char *tmp_mesh) {
  uint32_t n = b->m.info.vertex_count, height = (b->end - b->first) * b->rows;
  float *uv = malloc((size_t)n * 8 + 8);
  if (!uv) return fail_input("bake: out of memory");
  for (uint32_t v = 0; v < n; ++v)
    uv[2 * v] = ((float)(v % b->width) + 0.5f) / (float)b->width, uv[2 * v + 1] = ((float)(v / b->width) + 0.5f) / (float)height;
  char shape[32];
  snprintf(shape, sizeof shape, "%u, 2", n);
  int ok = write_npy(tmp_uv, "<f4", shape, uv, (size_t)n * 8);
  int rc = ok ? EXIT_OK : fail_write(b);
  gltf_edit e;
  int opened = rc ? -1 : gltf_edit_open(&e, "bake", b->o->file, b->path[MESH], 1);
  if (opened == EXIT_USAGE) { /* the document names files beside it: uv.npy alone */
    fprintf(stderr, "skn: bake: OUT/mesh.glb left out: %s names files beside it; OUT/uv.npy has the UV set\n",
            b->o->file);
  } else if (opened == EXIT_OK) {
    cJSON *prim = cJSON_GetArrayItem(
        cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(e.root, "meshes"), (int)b->m.info.mesh), "primitives"),
        (int)b->m.info.primitive_in_mesh);
    cJSON *attributes = cJSON_GetObjectItem(prim, "attributes");
    char name[24];
    int set = 0;
    do snprintf(name, sizeof name, "TEXCOORD_%d", set++);
    while (cJSON_GetObjectItem(attributes, name));
    int a = gltf_edit_accessor(&e, uv, (size_t)n * 8, 5126, n, "VEC2");
    if (a < 0) rc = fail_input("bake: out of memory");
    else cJSON_AddNumberToObject(attributes, name, a), rc = gltf_edit_write(&e, "bake", tmp_mesh);
    b->mesh = !rc;
    snprintf(b->uv_set, sizeof b->uv_set, "%s", name);
  } else if (!rc) {
    rc = opened;
  }
  if (opened != -1) gltf_edit_close(&e);
  free(uv);
  return rc;
}

/* s as a JSON string: quotes, backslashes and control characters escaped. */
static void put_json_string(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; ++s) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
    else if (c < 0x20) fprintf(f, "\\u%04x", c);
    else fputc(c, f);
  }
  fputc('"', f);
}

static int write_manifest(const bake *b, const char *tmp) {
  FILE *f = fopen(tmp, "w");
  if (!f) return fail_write(b);
  skn_gltf_animation_info ai = {sizeof ai};
  const char *animation = "";
  if (b->m.animation != SKN_GLTF_NO_ANIMATION && !skn_gltf_animation_info_get(b->m.gltf, b->m.animation, &ai))
    animation = ai.name;
  fprintf(f, "{\n  \"skn\": \"%s\",\n  \"file\": ", skn_version_string());
  put_json_string(f, b->o->file);
  fprintf(f, ",\n  \"primitive\": %u,\n", b->m.primitive);
  if (b->m.animation == SKN_GLTF_NO_ANIMATION) {
    fprintf(f, "  \"animation\": null,\n");
  } else {
    fprintf(f, "  \"animation\": {\"index\": %u, \"name\": ", b->m.animation);
    put_json_string(f, animation);
    fprintf(f, ", \"start\": %.9g},\n", b->start);
  }
  fprintf(f, "  \"fps\": %.9g,\n  \"frames\": [%u, %u],\n  \"vertex_count\": %u,\n  \"method\": \"%s\",\n", b->fps,
          b->first, b->end, b->m.info.vertex_count, b->o->method_names[0]);
  if (b->vat == BONE_VAT) {
    fprintf(f, "  \"format\": \"bone-vat\",\n  \"palette\": {\"texture\": \"palette.exr\", \"encoding\": \"float32 RGBA\",\n"
               "    \"joint_count\": %u, \"width\": %u, \"height\": %u,\n"
               "    \"texel\": \"row i: the bake's frame i (frame A + i); texels 3j, 3j + 1, 3j + 2: the rows of joint j's"
               " 3x4 matrix M_j\"},\n"
               "  \"influences\": %u,\n  \"arrays\": {\"rest\": \"rest.npy\", \"joints\": \"joints.npy\", "
               "\"weights\": \"weights.npy\"},\n"
               "  \"vertex\": \"sum over a vertex's influences of weight * M_joint * (rest, 1)\"\n}\n",
            b->m.info.joint_count, 3 * b->m.info.joint_count, b->end - b->first, b->width);
  } else if (b->vat == ZARR) {
    fprintf(f, "  \"format\": \"zarr\",\n  \"arrays\": {\"positions\": \"positions\"%s},\n"
               "  \"shape\": [%u, %u, 3],\n  \"chunks\": [%u, %u, 3],\n  \"dtype\": \"float32\"\n}\n",
            b->normals ? ", \"normals\": \"normals\"" : "", b->end - b->first, b->m.info.vertex_count,
            b->o->chunk ? b->o->chunk : DEFAULT_CHUNK, b->m.info.vertex_count);
  } else if (!b->vat) {
    fprintf(f, "  \"format\": \"npy\",\n  \"arrays\": {\"positions\": \"positions.npy\"%s},\n"
               "  \"shape\": [%u, %u, 3],\n  \"dtype\": \"float32\"\n}\n",
            b->normals ? ", \"normals\": \"normals.npy\"" : "", b->end - b->first, b->m.info.vertex_count);
  } else {
    const char *ext = b->vat == VAT_PNG ? "png" : "exr";
    fprintf(f, "  \"format\": \"vat-%s\",\n  \"textures\": {\"positions\": \"positions.%s\"", ext, ext);
    if (b->normals) fprintf(f, ", \"normals\": \"normals.%s\"", ext);
    if (b->vat == VAT_EXR)
      fprintf(f, "},\n  \"encoding\": \"%s RGB: the position, the normal\",\n  \"bounds\": null,\n",
              b->exr_float ? "float32" : "float16 (half)");
    else
      fprintf(f, "},\n  \"encoding\": \"16-bit RGB; position = lo + (hi - lo) * c / 65535, normal = 2 * c / 65535 - 1\",\n"
                 "  \"bounds\": {\"lo\": [%.9g, %.9g, %.9g], \"hi\": [%.9g, %.9g, %.9g]},\n",
              b->lo[0], b->lo[1], b->lo[2], b->hi[0], b->hi[1], b->hi[2]);
    fprintf(f, "  \"layout\": {\"width\": %u, \"rows_per_frame\": %u, \"height\": %u,\n"
               "    \"texel\": \"vertex v of the bake's frame i (frame A + i) at x = v %% width, y = i * rows_per_frame + v / width\"},\n"
               "  \"uv\": {\"array\": \"uv.npy\", \"mesh\": %s%s%s, \"set\": \"%s\",\n"
               "    \"value\": \"((x + 0.5) / width, (v / width + 0.5) / height); frame i adds i * rows_per_frame / height to v\"}\n}\n",
            b->width, b->rows, (b->end - b->first) * b->rows, b->mesh ? "\"" : "", b->mesh ? "mesh.glb" : "null",
            b->mesh ? "\"" : "", b->mesh ? b->uv_set : "");
  }
  return fclose(f) ? fail_write(b) : EXIT_OK;
}

/* ---- textures that resume ----
 * A texture is one file, PNG's zlib stream or OpenEXR's scanlines, made
 * whole or not at all. So a texture bake first bakes its frames as a zarr
 * bake into OUT/.skn-frames (write_zarr: each chunk renamed into place
 * whole, kept by a rerun of the same bake), then writes the textures from
 * those (vat_frame reads them, so PNG's pass for the bounds skins nothing
 * again), and removes them once the bake is whole: a killed texture bake's
 * rerun skins only the chunks it had not finished. Meanwhile the frames
 * take 24 bytes a vertex-frame, at most 1.6 GB for a texture a GPU loads
 * (16384 rows of 4096 texels). skn.bake on Dask bakes its frames into the
 * same folder and hands it over with --from-zarr. */
#define STAGED ".skn-frames"

static int stage_frames(bake *b, options *zo, char *dir, size_t size) {
  if (snprintf(dir, size, "%s/" STAGED, b->o->out) >= (int)size - 16) return fail_input("bake: the path is too long");
  *zo = *b->o, zo->out = dir;
  bake z = *b;
  z.o = zo, z.vat = ZARR;
  int rc = prepare_folder(&z, 1);
  if (!rc) rc = write_zarr(&z);
  b->m = z.m; /* (the same rig and pose) */
  b->frames_dir = dir, b->zarr_chunk = zo->chunk ? zo->chunk : DEFAULT_CHUNK;
  return rc;
}

/* The staged frames, once the textures are whole: their chunk files, the
 * arrays' and group's metadata, the fingerprint, then the folders. */
static void remove_staged(const bake *b, const char *dir) {
  bake z = *b;
  char path[4400];
  for (int k = 0; k < 2; ++k)
    if (snprintf(z.path[k], sizeof z.path[k], "%s/%s", dir, k ? "normals" : "positions") >= (int)sizeof z.path[k])
      return; /* (stage_frames made it: it fits) */
  clear_chunks(&z, 0);
  for (int k = 0; k < 2; ++k)
    if (snprintf(path, sizeof path, "%s/.zarray", z.path[k]) < (int)sizeof path) unlink(path), rmdir(z.path[k]);
  static const char *const FILES_THERE[] = {".zgroup", ".skn-progress"};
  for (int k = 0; k < 2; ++k)
    if (snprintf(path, sizeof path, "%s/%s", dir, FILES_THERE[k]) < (int)sizeof path) unlink(path);
  rmdir(dir);
}

/* The files under temporary names, renamed when whole; the manifest last. */
static int run(bake *b) {
  char tmp[FILES][4200];
  int rc = EXIT_OK, count = b->vat == ZARR ? 0 : b->vat ? FILES : MANIFEST + 1; /* Zarr's files are renamed as made */
  char progress_path[4200], frames_dir[4200] = "";
  options staged; /* the staged frames' bake (stage_frames) */
  for (int k = 0; k < FILES; ++k)
    if (b->vat == NPY && k < MANIFEST) snprintf(tmp[k], sizeof tmp[k], "%s.partial", b->path[k]); /* resumable */
    else snprintf(tmp[k], sizeof tmp[k], "%s.tmp%ld", b->path[k], (long)getpid());
  snprintf(progress_path, sizeof progress_path, "%s/.skn-progress", b->o->out);
  unlink(b->path[MANIFEST]); /* an old manifest goes first: the folder holds no whole bake until the new one */
  if (b->vat == ZARR) {
    rc = write_zarr(b);
  } else if (b->vat == BONE_VAT) {
    rc = bone_palettes(b, tmp[POSITIONS]);
    if (!rc) rc = bone_influences(b, tmp[NORMALS], tmp[UV], tmp[MESH]);
  } else if (b->vat) {
    if (!b->frames_dir) rc = stage_frames(b, &staged, frames_dir, sizeof frames_dir);
    if (!rc) rc = vat_textures(b, tmp[POSITIONS], tmp[NORMALS]);
    if (!rc) rc = vat_uv(b, tmp[UV], tmp[MESH]);
  } else {
    rc = write_npy_bake(b, tmp, progress_path);
  }
  if (!rc) rc = write_manifest(b, tmp[MANIFEST]);
  if (!rc && b->vat == ZARR && rename(tmp[MANIFEST], b->path[MANIFEST])) rc = fail_write(b);
  for (int k = 0; !rc && k < count; ++k) { /* the manifest's turn comes last */
    int file = k < MANIFEST ? k : k + 1 < count ? k + 1 : MANIFEST;
    int present = b->vat == BONE_VAT || ((file != NORMALS || b->normals) && (file != MESH || b->mesh));
    if (present && rename(tmp[file], b->path[file])) rc = fail_write(b);
    if (!present) unlink(b->path[file]); /* an older bake's */
  }
  for (int k = 0; rc && k < FILES; ++k) unlink(tmp[k]); /* a failed write's: not resumable, maybe not whole */
  if (b->vat == NPY) unlink(progress_path);               /* whole, or nothing left to resume */
  if (!rc && frames_dir[0]) remove_staged(b, frames_dir);
  return rc;
}

/* One bake: the primitive and animation `o` names into o->out (format: a
 * BAKE_* of cli.h); `nested`: a folder of a several-bake run, made afresh
 * whatever it holds (the run's own manifest guards the whole). */
int bake_one(const options *o, int format, int nested) {
  bake b;
  memset(&b, 0, sizeof b);
  b.o = o;
  int rc = posed_mesh_open(&b.m, o);
  if (rc) return rc;
  b.normals = (b.m.info.flags & SKN_GLTF_HAS_NORMALS) != 0;
  b.vat = format, b.exr_float = o->exr_float;
  if (format == BONE_VAT && b.m.info.morph_target_count) {
    fprintf(stderr, "skn: bake: bone-vat: primitive %u has %u morph targets, which a palette cannot carry; "
                    "bake vat-png or vat-exr\n", o->primitive, b.m.info.morph_target_count);
    posed_mesh_close(&b.m);
    return EXIT_INPUT;
  }
  uint32_t width = o->vat_width ? o->vat_width : DEFAULT_VAT_WIDTH;
  b.width = b.m.info.vertex_count < width ? b.m.info.vertex_count : width;
  b.rows = (b.m.info.vertex_count + b.width - 1) / b.width;
  rc = plan_frames(&b);
  if (!rc && o->from_zarr) rc = open_zarr_frames(&b);
  if (!rc) rc = prepare_folder(&b, nested);
  if (!rc) rc = run(&b);
  posed_mesh_close(&b.m);
  return rc;
}
