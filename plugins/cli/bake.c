/* bake.c — `skn bake`: a primitive's animation skinned at a frame rate and
 * written as per-frame arrays. Frames are counted from 0 at the animation's
 * first key, frame k at k / fps seconds after it; --frames A:B bakes A to
 * B - 1, the whole animation (every frame at or before its last key) by
 * default. --format npy writes OUT/positions.npy and OUT/normals.npy (where
 * the primitive has normals), float32 of shape (frames, vertices, 3), row i
 * frame A + i (NumPy's format 1.0: a magic, a header dict, the data in C
 * order), then OUT/manifest.json. Memory is one frame: each is skinned and
 * appended. The arrays are written under temporary names and renamed when
 * whole, the manifest last, so that a folder with a manifest holds a whole
 * bake; a folder that holds one is replaced only with --overwrite. */
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DEFAULT_FPS 30.0f

typedef struct bake {
  posed_mesh m;
  const options *o;
  uint32_t first, end;          /* frames [first, end) */
  float start, fps;             /* the animation's first key; frames a second */
  int normals;
  char path[3][4096];           /* positions, normals, manifest: the final names */
} bake;

/* NumPy's .npy header (format 1.0) for float32 (frames, vertices, 3): the
 * dict padded with spaces so that the data starts at a multiple of 64. */
static int write_npy_header(FILE *f, uint32_t frames, uint32_t vertices) {
  char dict[128];
  int n = snprintf(dict, sizeof dict, "{'descr': '<f4', 'fortran_order': False, 'shape': (%u, %u, 3), }", frames,
                   vertices);
  size_t total = (10 + (size_t)n + 1 + 63) / 64 * 64, len = total - 10;
  unsigned char head[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)(len & 0xFF), (unsigned char)(len >> 8)};
  if (fwrite(head, 1, 10, f) != 10 || fwrite(dict, 1, (size_t)n, f) != (size_t)n) return 0;
  for (size_t k = 10 + (size_t)n; k + 1 < total; ++k)
    if (fputc(' ', f) == EOF) return 0;
  return fputc('\n', f) != EOF;
}

/* The frames to bake: --frames, or every frame of the animation. */
static int plan_frames(bake *b) {
  b->fps = b->o->fps > 0 ? b->o->fps : DEFAULT_FPS;
  float duration = 0;
  if (b->m.animation != SKN_GLTF_NO_ANIMATION) {
    skn_gltf_animation_info ai = {sizeof ai};
    if (skn_gltf_animation_info_get(b->m.gltf, b->m.animation, &ai)) return fail_input("bake");
    b->start = ai.start, duration = ai.end - ai.start;
  }
  b->first = b->o->has_range ? b->o->frame_first : 0;
  b->end = b->o->has_range ? b->o->frame_end : (uint32_t)floor((double)duration * b->fps + 1e-6) + 1;
  return EXIT_OK;
}

/* OUT: made, or refused where it holds a bake and --overwrite is not given. */
static int prepare_folder(bake *b) {
  const char *out = b->o->out;
  static const char *const NAMES[3] = {"positions.npy", "normals.npy", "manifest.json"};
  for (int k = 0; k < 3; ++k) snprintf(b->path[k], sizeof b->path[k], "%s/%s", out, NAMES[k]);
  if (mkdir(out, 0777) && errno != EEXIST) return fprintf(stderr, "skn: bake: cannot make %s\n", out), EXIT_INPUT;
  struct stat st;
  if (stat(out, &st) || !S_ISDIR(st.st_mode)) return fprintf(stderr, "skn: bake: %s is not a folder\n", out), EXIT_INPUT;
  if (!access(b->path[2], F_OK) && !b->o->overwrite)
    return fprintf(stderr, "skn: bake: %s holds a bake (%s); --overwrite replaces it\n", out, b->path[2]), EXIT_INPUT;
  return EXIT_OK;
}

static void progress(uint32_t done, uint32_t total) {
  static int terminal = -1;
  if (terminal < 0) terminal = isatty(STDERR_FILENO);
  if (!terminal) return; /* quiet where nobody watches */
  int width = 40, filled = (int)((uint64_t)done * width / total);
  fprintf(stderr, "\rbake [%.*s%*s] %u/%u frames", filled, "########################################", width - filled, "",
          done, total);
  if (done == total) fputc('\n', stderr);
}

/* Every frame skinned and appended to the temporary arrays. */
static int write_frames(bake *b, FILE *const files[2]) {
  uint32_t n = b->m.info.vertex_count, frames = b->end - b->first;
  float *p = malloc((size_t)n * 12), *nrm = malloc((size_t)n * 12);
  int rc = p && nrm ? EXIT_OK : fail_input("bake: out of memory");
  for (int k = 0; !rc && k < 1 + b->normals; ++k)
    if (!write_npy_header(files[k], frames, n)) rc = fail_input("bake: write");
  for (uint32_t i = 0; !rc && i < frames; ++i) {
    float t = b->start + (float)((double)(b->first + i) / b->fps);
    rc = posed_mesh_skin(&b->m, t, b->o->methods[0], b->o->dqs_scale, p, nrm);
    if (!rc && fwrite(p, 12, n, files[0]) != n) rc = fail_input("bake: write");
    if (!rc && b->normals && fwrite(nrm, 12, n, files[1]) != n) rc = fail_input("bake: write");
    progress(i + 1, frames);
  }
  free(p), free(nrm);
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
  if (!f) return fail_input("bake: write the manifest");
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
  fprintf(f, "  \"fps\": %.9g,\n  \"frames\": [%u, %u],\n  \"vertex_count\": %u,\n  \"method\": \"%s\",\n"
             "  \"format\": \"npy\",\n  \"arrays\": {\"positions\": \"positions.npy\"%s},\n"
             "  \"shape\": [%u, %u, 3],\n  \"dtype\": \"float32\"\n}\n",
          b->fps, b->first, b->end, b->m.info.vertex_count, b->o->method_names[0],
          b->normals ? ", \"normals\": \"normals.npy\"" : "", b->end - b->first, b->m.info.vertex_count);
  return fclose(f) ? fail_input("bake: write the manifest") : EXIT_OK;
}

/* The arrays under temporary names, renamed when whole; the manifest last. */
static int run(bake *b) {
  char tmp[3][4200];
  FILE *files[2] = {NULL, NULL};
  int rc = EXIT_OK;
  for (int k = 0; k < 3; ++k) snprintf(tmp[k], sizeof tmp[k], "%s.tmp%ld", b->path[k], (long)getpid());
  unlink(b->path[2]); /* an old manifest goes first: the folder holds no whole bake until the new one */
  for (int k = 0; !rc && k < 1 + b->normals; ++k)
    if (!(files[k] = fopen(tmp[k], "wb"))) rc = fail_input("bake: write");
  if (!rc) rc = write_frames(b, files);
  for (int k = 0; k < 2; ++k)
    if (files[k] && fclose(files[k]) && !rc) rc = fail_input("bake: write");
  if (!rc) rc = write_manifest(b, tmp[2]);
  for (int k = 0; !rc && k < 3; ++k)
    if ((k != 1 || b->normals) && rename(tmp[k], b->path[k])) rc = fail_input("bake: rename");
  if (!rc && !b->normals) unlink(b->path[1]); /* an older bake's */
  for (int k = 0; rc && k < 3; ++k) unlink(tmp[k]);
  return rc;
}

int cmd_bake(int argc, char **argv) {
  options o;
  int rc = parse_options(argc, argv, 2, "primitive animation fps frames method dqs-scale blend layout weights format "
                                        "overwrite any-path o", &o);
  if (rc) return rc;
  if (o.method_count != 1) return fprintf(stderr, "skn: bake takes one --method\n"), EXIT_USAGE;
  if (o.frames && !o.has_range) return fprintf(stderr, "skn: bake: --frames is a range A:B\n"), EXIT_USAGE;
  if (!o.format || strcmp(o.format, "npy"))
    return fprintf(stderr, "skn: bake: --format %s: this build bakes npy\n", o.format ? o.format : "(none)"), EXIT_USAGE;
  if (!o.out) return fprintf(stderr, "skn: bake: -o OUT, the folder, is required\n"), EXIT_USAGE;
  bake b;
  memset(&b, 0, sizeof b);
  b.o = &o;
  rc = posed_mesh_open(&b.m, &o);
  if (rc) return rc;
  b.normals = (b.m.info.flags & SKN_GLTF_HAS_NORMALS) != 0;
  rc = plan_frames(&b);
  if (!rc) rc = prepare_folder(&b);
  if (!rc) rc = run(&b);
  posed_mesh_close(&b.m);
  return rc;
}
