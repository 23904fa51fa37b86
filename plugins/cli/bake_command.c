/* bake_command.c — the `skn bake` command: its options checked, the bakes
 * they name (primitives × animations) made one after another by bake.c's
 * bake_one, or the whole handed to Python's skn.bake on Dask (--dask).
 *
 * --primitive N,M,...|all (default: every skinned primitive) and
 * --animation A,B,...|all|none (default: the first, none where there is
 * none; a name is matched whole first, for names that hold commas) choose
 * the bakes. One is baked into OUT itself; several each into OUT/pN-aA
 * (pN-none without an animation), then OUT/manifest.json lists them, last,
 * so that it proves the whole run as a single bake's manifest proves it.
 * Every choice, and --frames against every animation, is checked before
 * anything is baked. --from-zarr DIR makes vat-png or vat-exr of a zarr
 * bake's frames (DIR/pN-aA for several), as skn.bake does on Dask. */
#define _GNU_SOURCE /* dladdr */
#include "cli.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_BAKES 4096u

typedef struct bake_set {
  uint32_t primitives[MAX_BAKES], animations[MAX_BAKES]; /* animations: SKN_GLTF_NO_ANIMATION for none */
  uint32_t primitive_count, animation_count;
} bake_set;

/* One index of a comma list, text[0, len): 1 (in *out), 0 where it is not a
 * number, -1 (said) where it is not below count; `what` names it in messages. */
static int index_of(const char *text, size_t len, uint32_t count, const char *file, const char *what, uint32_t *out) {
  char buf[32], *end;
  if (!len || len >= sizeof buf || text[0] < '0' || text[0] > '9') return 0;
  memcpy(buf, text, len);
  buf[len] = 0;
  unsigned long n = strtoul(buf, &end, 10);
  if (*end) return 0;
  if (n >= count) {
    fprintf(stderr, "skn: %s: %s %lu >= %u %ss\n", file, what, n, count, what);
    return -1;
  }
  *out = (uint32_t)n;
  return 1;
}

static int choose_primitives(const options *o, const skn_gltf_info *info, bake_set *s) {
  const char *t = o->primitives;
  if (!t || !strcmp(t, "all")) {
    s->primitive_count = info->primitive_count < MAX_BAKES ? info->primitive_count : MAX_BAKES;
    for (uint32_t p = 0; p < s->primitive_count; ++p) s->primitives[p] = p;
    if (!s->primitive_count) return fprintf(stderr, "skn: %s: no skinned primitive to bake\n", o->file), EXIT_INPUT;
    return EXIT_OK;
  }
  for (const char *p = t; s->primitive_count < MAX_BAKES; ++p) {
    size_t len = strcspn(p, ",");
    int got = index_of(p, len, info->primitive_count, o->file, "skinned primitive", &s->primitives[s->primitive_count]);
    if (got < 0) return EXIT_INPUT;
    if (!got) return fprintf(stderr, "skn: bake: --primitive %s is not N,M,... or all\n", t), EXIT_USAGE;
    ++s->primitive_count;
    if (!p[len]) break;
    p += len;
  }
  return EXIT_OK;
}

/* One animation of the list: an index or a name. */
static int one_animation(const options *o, skn_gltf *g, const skn_gltf_info *info, const char *p, size_t len,
                         uint32_t *out) {
  int got = index_of(p, len, info->animation_count, o->file, "animation", out);
  if (got) return got < 0 ? EXIT_INPUT : EXIT_OK;
  char name[1024];
  if (len >= sizeof name) return fprintf(stderr, "skn: bake: --animation: a name is too long\n"), EXIT_USAGE;
  memcpy(name, p, len);
  name[len] = 0;
  if (!skn_gltf_find_animation(g, name, out)) return EXIT_OK;
  fprintf(stderr, "skn: %s: no animation is named \"%s\"; the document has ", o->file, name);
  for (uint32_t a = 0; a < info->animation_count; ++a) {
    skn_gltf_animation_info ai = {sizeof ai};
    if (!skn_gltf_animation_info_get(g, a, &ai)) fprintf(stderr, "%s%u \"%s\"", a ? ", " : "", a, ai.name);
  }
  fprintf(stderr, "%s (--animation A,B,..., all or none)\n", info->animation_count ? "" : "none");
  return EXIT_INPUT;
}

static int choose_animations(const options *o, skn_gltf *g, const skn_gltf_info *info, bake_set *s) {
  const char *t = o->animation;
  s->animation_count = 1;
  s->animations[0] = info->animation_count ? 0 : SKN_GLTF_NO_ANIMATION;
  if (!t) return EXIT_OK;
  if (!strcmp(t, "none")) return s->animations[0] = SKN_GLTF_NO_ANIMATION, EXIT_OK;
  if (!strcmp(t, "all")) {
    s->animation_count = info->animation_count ? (info->animation_count < MAX_BAKES ? info->animation_count : MAX_BAKES) : 1;
    for (uint32_t a = 0; info->animation_count && a < s->animation_count; ++a) s->animations[a] = a;
    return EXIT_OK;
  }
  if (!skn_gltf_find_animation(g, t, &s->animations[0])) return EXIT_OK; /* the whole text is a name */
  s->animation_count = 0;
  for (const char *p = t; s->animation_count < MAX_BAKES; ++p) {
    size_t len = strcspn(p, ",");
    int rc = one_animation(o, g, info, p, len, &s->animations[s->animation_count++]);
    if (rc) return rc;
    if (!p[len]) break;
    p += len;
  }
  return EXIT_OK;
}

/* --frames within every chosen animation, before any is baked. */
static int check_frames(const options *o, skn_gltf *g, const bake_set *s) {
  for (uint32_t k = 0; o->has_range && k < s->animation_count; ++k) {
    skn_gltf_animation_info ai = {sizeof ai};
    float seconds = 0;
    if (s->animations[k] != SKN_GLTF_NO_ANIMATION) {
      if (skn_gltf_animation_info_get(g, s->animations[k], &ai)) return fail_input(o->file);
      seconds = ai.end - ai.start;
    }
    float fps = o->fps > 0 ? o->fps : BAKE_DEFAULT_FPS;
    uint32_t count = bake_frame_count(seconds, fps);
    if (o->frame_end <= count) continue;
    fprintf(stderr, "skn: bake: --frames %u:%u: ", o->frame_first, o->frame_end);
    if (s->animations[k] == SKN_GLTF_NO_ANIMATION) fprintf(stderr, "without an animation there is one frame, 0\n");
    else fprintf(stderr, "animation %u (%s) has frames 0 to %u at %g fps\n", s->animations[k], ai.name, count - 1,
                 (double)fps);
    return EXIT_INPUT;
  }
  return EXIT_OK;
}

/* OUT/manifest.json of a several-bake run: the file, the format and each
 * bake's folder, primitive and animation (the folder's manifest has the
 * rest), under a temporary name and renamed. */
static int write_set_manifest(const options *o, const bake_set *s, skn_gltf *g) {
  cJSON *root = cJSON_CreateObject(), *bakes = cJSON_CreateArray();
  cJSON_AddStringToObject(root, "skn", skn_version_string());
  cJSON_AddStringToObject(root, "file", o->file);
  cJSON_AddStringToObject(root, "format", o->format);
  cJSON_AddItemToObject(root, "bakes", bakes);
  for (uint32_t p = 0; p < s->primitive_count; ++p)
    for (uint32_t a = 0; a < s->animation_count; ++a) {
      cJSON *b = cJSON_CreateObject();
      char folder[48];
      skn_gltf_animation_info ai = {sizeof ai};
      uint32_t anim = s->animations[a];
      if (anim == SKN_GLTF_NO_ANIMATION) snprintf(folder, sizeof folder, "p%u-none", s->primitives[p]);
      else snprintf(folder, sizeof folder, "p%u-a%u", s->primitives[p], anim);
      cJSON_AddStringToObject(b, "folder", folder);
      cJSON_AddNumberToObject(b, "primitive", s->primitives[p]);
      if (anim == SKN_GLTF_NO_ANIMATION || skn_gltf_animation_info_get(g, anim, &ai)) {
        cJSON_AddNullToObject(b, "animation");
      } else {
        cJSON *an = cJSON_AddObjectToObject(b, "animation");
        cJSON_AddNumberToObject(an, "index", anim);
        cJSON_AddStringToObject(an, "name", ai.name);
      }
      cJSON_AddItemToArray(bakes, b);
    }
  char *text = cJSON_Print(root), path[4200], tmp[4300];
  cJSON_Delete(root);
  snprintf(path, sizeof path, "%s/manifest.json", o->out);
  snprintf(tmp, sizeof tmp, "%s.tmp%ld", path, (long)getpid());
  FILE *f = text ? fopen(tmp, "w") : NULL;
  int ok = f && fputs(text, f) >= 0 && fputc('\n', f) != EOF;
  if (f && fclose(f)) ok = 0;
  if (ok && rename(tmp, path)) ok = 0;
  if (!ok) fprintf(stderr, "skn: bake: cannot write %s: %s\n", path, strerror(errno)), unlink(tmp);
  free(text);
  return ok ? EXIT_OK : EXIT_INPUT;
}

/* Every chosen bake: into OUT, or into its folder of OUT and the run's
 * manifest last. */
static int bake_all(const options *o, int format, const bake_set *s, skn_gltf *g) {
  uint32_t bakes = s->primitive_count * s->animation_count;
  char manifest[4200], folder[4200], frames_from[4200], animation[16];
  snprintf(manifest, sizeof manifest, "%s/manifest.json", o->out);
  if (bakes > 1) {
    struct stat st;
    if (make_folders(o->out))
      return fprintf(stderr, "skn: bake: cannot make %s: %s\n", o->out, strerror(errno)), EXIT_INPUT;
    if (stat(o->out, &st) || !S_ISDIR(st.st_mode)) return fprintf(stderr, "skn: bake: %s is not a folder\n", o->out), EXIT_INPUT;
    if (!access(manifest, F_OK) && !o->overwrite)
      return fprintf(stderr, "skn: bake: %s holds a bake (%s); --overwrite replaces it\n", o->out, manifest), EXIT_INPUT;
    unlink(manifest); /* no whole run until this one is */
  }
  int rc = EXIT_OK;
  for (uint32_t k = 0; !rc && k < bakes; ++k) {
    options one = *o;
    uint32_t p = s->primitives[k / s->animation_count], a = s->animations[k % s->animation_count];
    one.primitive = p;
    if (a == SKN_GLTF_NO_ANIMATION) snprintf(animation, sizeof animation, "none");
    else snprintf(animation, sizeof animation, "%u", a);
    one.animation = animation;
    if (bakes > 1) {
      if (a == SKN_GLTF_NO_ANIMATION) snprintf(folder, sizeof folder, "%s/p%u-none", o->out, p);
      else snprintf(folder, sizeof folder, "%s/p%u-a%u", o->out, p, a);
      one.out = folder;
      if (o->from_zarr) { /* the frames of a several-bake zarr run: its folder of the same name */
        snprintf(frames_from, sizeof frames_from, "%s/%s", o->from_zarr, strrchr(folder, '/') + 1);
        one.from_zarr = frames_from;
      }
    }
    rc = bake_one(&one, format, bakes > 1);
  }
  return rc || bakes == 1 ? rc : write_set_manifest(o, s, g);
}

/* ---- --dask: the bake spread over Dask distributed ----
 * Dask is Python's, so the command hands its arguments to the Python
 * package's form of itself, `python3 -m skn bake` (plugins/python/skn/
 * bake.py: npy and zarr, every task writing its own chunk), run against
 * this very library: SKN_LIBRARY names it, and PYTHONPATH starts with the
 * package beside it (the source tree's plugins/python, or an install's
 * LIBDIR/python3.X/dist-packages). $SKN_PYTHON names the interpreter
 * (default python3 on PATH); it needs Dask (Debian's python3-distributed). */
static void python_package_beside(const char *libdir, char *found, size_t size) {
  char path[4200];
  struct stat st;
  found[0] = 0;
  snprintf(path, sizeof path, "%s/../plugins/python/skn/bake.py", libdir);
  if (!stat(path, &st)) {
    snprintf(found, size, "%s/../plugins/python", libdir);
    return;
  }
  DIR *d = opendir(libdir);
  for (struct dirent *e; d && (e = readdir(d));) {
    if (strncmp(e->d_name, "python3", 7) ||
        snprintf(path, sizeof path, "%s/%s/dist-packages/skn/bake.py", libdir, e->d_name) >= (int)sizeof path || stat(path, &st))
      continue;
    if (snprintf(found, size, "%s/%s/dist-packages", libdir, e->d_name) >= (int)size) found[0] = 0;
    break;
  }
  if (d) closedir(d);
}

static int bake_on_dask(int argc, char **argv) {
  Dl_info info;
  char lib[4096], dir[4096], package[4200], paths[8600];
  if (!dladdr((void *)skn_version_string, &info) || !info.dli_fname || !realpath(info.dli_fname, lib))
    return fprintf(stderr, "skn: bake: --dask: cannot tell where libskn is\n"), EXIT_INPUT;
  snprintf(dir, sizeof dir, "%s", lib);
  *strrchr(dir, '/') = 0; /* realpath's answer is absolute */
  python_package_beside(dir, package, sizeof package);
  const char *old = getenv("PYTHONPATH");
  snprintf(paths, sizeof paths, "%s%s%s", package, *package && old && *old ? ":" : "", old ? old : "");
  if (setenv("SKN_LIBRARY", lib, 1) || setenv("PYTHONPATH", paths, 1)) return fail_input("bake: out of memory");
  const char *python = getenv("SKN_PYTHON") && *getenv("SKN_PYTHON") ? getenv("SKN_PYTHON") : "python3";
  char **args = calloc((size_t)argc + 3, sizeof *args);
  if (!args) return fail_input("bake: out of memory");
  args[0] = (char *)python, args[1] = "-m", args[2] = "skn", args[3] = "bake";
  for (int i = 2; i < argc; ++i) args[i + 2] = argv[i];
  fflush(NULL);
  execvp(python, args);
  fprintf(stderr, "skn: bake: --dask runs the bake with Python's Dask, and %s cannot be run (%s); set SKN_PYTHON\n",
          python, strerror(errno));
  free(args);
  return EXIT_INPUT;
}

int cmd_bake(int argc, char **argv) {
  options o;
  int rc = parse_options(argc, argv, 2, "primitive primitive-list animation fps frames method dqs-scale blend layout weights "
                                        "format vat-width exr-float chunk overwrite any-path o dask workers from-zarr", &o);
  if (rc) return rc;
  if (o.workers && !(o.dask && !strcmp(o.dask, "local")))
    return fprintf(stderr, "skn: bake: --workers is --dask local's\n"), EXIT_USAGE;
  if (o.dask) return bake_on_dask(argc, argv);
  if (o.method_count != 1) return fprintf(stderr, "skn: bake takes one --method\n"), EXIT_USAGE;
  if (o.frames && !o.has_range) return fprintf(stderr, "skn: bake: --frames is a range A:B\n"), EXIT_USAGE;
  static const char *const FORMATS[BAKE_FORMATS] = {"npy", "vat-png", "vat-exr", "zarr", "bone-vat"};
  int format = 0;
  while (format < BAKE_FORMATS && (!o.format || strcmp(o.format, FORMATS[format]))) ++format;
  if (format == BAKE_FORMATS)
    return fprintf(stderr, "skn: bake: --format %s: this build bakes npy, vat-png, vat-exr, zarr and bone-vat\n",
                   o.format ? o.format : "(none)"), EXIT_USAGE;
  if (format == BAKE_BONE_VAT && o.methods[0] != SKN_METHOD_LBS_MATRIX)
    return fprintf(stderr, "skn: bake: bone-vat is LBS's palette (--method lbs)\n"), EXIT_USAGE;
  if (o.chunk && format != BAKE_ZARR && ((format != BAKE_VAT_PNG && format != BAKE_VAT_EXR) || o.from_zarr))
    return fprintf(stderr, "skn: bake: --chunk is zarr's (and vat-png's and vat-exr's frames', baked first)\n"), EXIT_USAGE;
  if (o.exr_float && format != BAKE_VAT_EXR) return fprintf(stderr, "skn: bake: --exr-float is vat-exr's\n"), EXIT_USAGE;
  if (!o.out) return fprintf(stderr, "skn: bake: -o OUT, the folder, is required\n"), EXIT_USAGE;
  if (o.from_zarr && format != BAKE_VAT_PNG && format != BAKE_VAT_EXR)
    return fprintf(stderr, "skn: bake: --from-zarr makes vat-png or vat-exr of a zarr bake's frames\n"), EXIT_USAGE;
  skn_gltf *g;
  skn_gltf_info info = {sizeof info};
  if (open_document(&o, &g) || skn_gltf_info_get(g, &info)) return fail_input(o.file);
  static bake_set s; /* 32 KB: off the stack */
  memset(&s, 0, sizeof s);
  rc = choose_primitives(&o, &info, &s);
  if (!rc) rc = choose_animations(&o, g, &info, &s);
  if (!rc) rc = check_frames(&o, g, &s);
  if (!rc) rc = bake_all(&o, format, &s, g);
  skn_gltf_close(g);
  return rc;
}
