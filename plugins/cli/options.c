/* options.c — `--name value` and `--name=value` (the second for negative
 * numbers: --time=-0.5), checked against what each subcommand takes. */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

static const struct { const char *name; skn_method method; } METHODS[] = {
    {"lbs", SKN_METHOD_LBS_MATRIX}, {"lbs-quat", SKN_METHOD_LBS_QUATERNION}, {"dqs", SKN_METHOD_DQS},
    {"blend", SKN_METHOD_BLEND},    {"cor", SKN_METHOD_COR}};

static int usage_error(const char *fmt, const char *arg) {
  fprintf(stderr, "skn: ");
  fprintf(stderr, fmt, arg);
  fprintf(stderr, " (see --help)\n");
  return EXIT_USAGE;
}

static int parse_number(const char *s, double lo, double hi, double *out) {
  char *end;
  *out = strtod(s, &end);
  return *s && !*end && *out >= lo && *out <= hi;
}

/* A comma-separated list of method names. */
static int parse_methods(const char *list, options *o) {
  o->method_count = 0;
  const char *p = list;
  while (*p) {
    size_t n = strcspn(p, ",");
    size_t k = 0;
    while (k < sizeof METHODS / sizeof METHODS[0] && !(strlen(METHODS[k].name) == n && !strncmp(p, METHODS[k].name, n))) ++k;
    if (k == sizeof METHODS / sizeof METHODS[0] || o->method_count == MAX_METHODS)
      return usage_error("unknown method in \"%s\" (lbs, lbs-quat, dqs, blend, cor)", list);
    o->methods[o->method_count] = METHODS[k].method;
    o->method_names[o->method_count++] = METHODS[k].name;
    p += n + (p[n] == ',');
  }
  return o->method_count ? EXIT_OK : usage_error("no method in \"%s\"", list);
}

static int apply(options *o, const char *name, const char *value) {
  double x;
  if (!strcmp(name, "primitive")) {
    if (!parse_number(value, 0, 4294967295.0, &x) || x != (uint32_t)x) return usage_error("--primitive %s is not an index", value);
    o->primitive = (uint32_t)x;
  } else if (!strcmp(name, "time")) {
    if (!parse_number(value, -1e30, 1e30, &x)) return usage_error("--time %s is not a number", value);
    o->time = (float)x;
    o->has_time = 1;
  } else if (!strcmp(name, "blend")) {
    if (!parse_number(value, 0, 1, &x)) return usage_error("--blend %s is not in [0, 1]", value);
    o->blend = (float)x;
  } else if (!strcmp(name, "frames") && strchr(value, ':')) { /* bake's range A:B */
    unsigned a, b;
    char extra;
    if (sscanf(value, "%u:%u%c", &a, &b, &extra) != 2 || a >= b || b > 100000000u)
      return usage_error("--frames %s is not A:B, frames A to B - 1 (A < B)", value);
    o->frame_first = a, o->frame_end = b, o->has_range = 1;
  } else if (!strcmp(name, "frames")) {
    if (!parse_number(value, 1, 64, &x) || x != (int)x) return usage_error("--frames %s is not a count from 1 to 64", value);
    o->frames = (int)x;
  } else if (!strcmp(name, "fps")) {
    if (!parse_number(value, 1e-3, 1e6, &x)) return usage_error("--fps %s is not a rate above 0", value);
    o->fps = (float)x;
  } else if (!strcmp(name, "size")) {
    int w, h;
    char extra;
    if (sscanf(value, "%dx%d%c", &w, &h, &extra) != 2 || w < 16 || h < 16 || w > 4096 || h > 4096)
      return usage_error("--size %s is not WIDTHxHEIGHT (16 to 4096)", value);
    o->width = w;
    o->height = h;
  } else if (!strcmp(name, "method") || !strcmp(name, "compare")) {
    return parse_methods(value, o);
  } else if (!strcmp(name, "dqs-scale")) {
    if (strcmp(value, "polar") && strcmp(value, "keep-y")) return usage_error("--dqs-scale %s is not polar or keep-y", value);
    o->dqs_scale = strcmp(value, "polar") ? SKN_DQS_SCALE_KEEP_Y : SKN_DQS_SCALE_POLAR;
  } else if (!strcmp(name, "layout")) {
    if (strcmp(value, "full") && strcmp(value, "compact")) return usage_error("--layout %s is not full or compact", value);
    o->layout = strcmp(value, "full") ? SKN_LAYOUT_COMPACT : SKN_LAYOUT_FULL;
  } else if (!strcmp(name, "format")) {
    o->format = value; /* checked by the subcommand, which knows its formats */
  } else if (!strcmp(name, "weights")) {
    o->weight_count = 0;
    for (const char *p = value; *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] == ',')) {
      char item[64];
      size_t n = strcspn(p, ",");
      if (n >= sizeof item || o->weight_count == MAX_WEIGHTS) return usage_error("--weights %s: too long", value);
      memcpy(item, p, n);
      item[n] = 0;
      if (!parse_number(item, -1e30, 1e30, &x)) return usage_error("--weights %s is not a list of numbers", value);
      o->weights[o->weight_count++] = (float)x;
    }
  } else if (!strcmp(name, "weights-method")) { /* skn weights --method */
    if (strcmp(value, "heat") && strcmp(value, "closest")) return usage_error("--method %s is not heat or closest", value);
    o->weights_method = strcmp(value, "heat") ? SKN_WEIGHTS_CLOSEST : SKN_WEIGHTS_HEAT;
  } else if (!strcmp(name, "chunk")) {
    if (!parse_number(value, 1, 1e6, &x) || x != (uint32_t)x) return usage_error("--chunk %s is not 1 to 1000000 frames", value);
    o->chunk = (uint32_t)x;
  } else if (!strcmp(name, "vat-width")) {
    if (!parse_number(value, 1, 65536, &x) || x != (uint32_t)x) return usage_error("--vat-width %s is not 1 to 65536", value);
    o->vat_width = (uint32_t)x;
  } else if (!strcmp(name, "max-influences")) {
    if (!parse_number(value, 1, 64, &x) || x != (uint32_t)x) return usage_error("--max-influences %s is not 1 to 64", value);
    o->max_influences = (uint32_t)x;
  } else if (!strcmp(name, "min-weight")) {
    if (!parse_number(value, 0, 1, &x)) return usage_error("--min-weight %s is not in [0, 1]", value);
    o->min_weight = (float)x;
  } else if (!strcmp(name, "threads")) {
    if (!parse_number(value, 0, 4096, &x) || x != (uint32_t)x) return usage_error("--threads %s is not a count", value);
    o->threads = (uint32_t)x;
  } else if (!strcmp(name, "workers")) {
    if (!parse_number(value, 1, 4096, &x) || x != (uint32_t)x) return usage_error("--workers %s is not 1 to 4096", value);
    o->workers = (uint32_t)x;
  } else if (!strcmp(name, "dask")) {
    o->dask = value;
  } else if (!strcmp(name, "from-zarr")) {
    o->from_zarr = value;
  } else if (!strcmp(name, "animation")) {
    o->animation = value;
  } else if (!strcmp(name, "o")) {
    o->out = value;
  }
  return EXIT_OK;
}

int output_extension(const char *path, const char *const *known, int n) {
  const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
  if (!dot || (slash && slash > dot)) return -1;
  for (int k = 0; k < n; ++k)
    if (!strcmp(dot + 1, known[k])) return k;
  return -1;
}

/* Is `name` a word of the space-separated list `allowed`? */
static int allowed_here(const char *allowed, const char *name) {
  size_t n = strlen(name);
  for (const char *p = allowed; (p = strstr(p, name)); p += n)
    if ((p == allowed || p[-1] == ' ') && (p[n] == ' ' || p[n] == 0)) return 1;
  return 0;
}

int parse_options(int argc, char **argv, int first, const char *allowed, options *o) {
  memset(o, 0, sizeof *o);
  o->blend = 0.5f;
  o->methods[0] = SKN_METHOD_LBS_MATRIX;
  o->method_names[0] = "lbs";
  o->method_count = 1;
  for (int i = first; i < argc; ++i) {
    const char *a = argv[i];
    if (a[0] != '-' || !a[1]) {
      if (o->file) return usage_error("unexpected argument \"%s\"", a);
      o->file = a;
      continue;
    }
    char name[32];
    const char *value = NULL, *body = a + (a[1] == '-' ? 2 : 1), *eq = strchr(body, '=');
    size_t n = eq ? (size_t)(eq - body) : strlen(body);
    if (n >= sizeof name) return usage_error("unknown option %s", a);
    memcpy(name, body, n);
    name[n] = 0;
    if (!strcmp(name, "method") && allowed_here(allowed, "weights-method")) strcpy(name, "weights-method");
    if (!allowed_here(allowed, name)) return usage_error("unknown option %s", a);
    static const char *const FLAGS[] = {"gpu", "any-path", "overwrite", "non-manifold", "no-weld", "exr-float"};
    int *flag_of[] = {&o->gpu, &o->any_path, &o->overwrite, &o->non_manifold, &o->no_weld, &o->exr_float};
    size_t f = 0;
    while (f < sizeof FLAGS / sizeof FLAGS[0] && strcmp(name, FLAGS[f])) ++f;
    if (f < sizeof FLAGS / sizeof FLAGS[0]) { /* no value */
      if (eq) return usage_error("%s takes no value", a);
      *flag_of[f] = 1;
      continue;
    }
    if (eq) value = eq + 1;
    else if (i + 1 < argc) value = argv[++i];
    else return usage_error("%s needs a value", a);
    if (!strcmp(name, "primitive") && allowed_here(allowed, "primitive-list")) { /* bake's N,M,...|all */
      o->primitives = value;
      continue;
    }
    int rc = apply(o, name, value);
    if (rc != EXIT_OK) return rc;
  }
  return o->file ? EXIT_OK : usage_error("%s", "no FILE given");
}
