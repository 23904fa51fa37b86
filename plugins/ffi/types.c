/* types.c — the description (schema.c) read into libffi's types: each
 * struct an ffi_type whose offsets libffi computes (ffi_get_struct_offsets,
 * the platform's C layout rules), each function an ffi_cif. */
#define _POSIX_C_SOURCE 200809L /* strtok_r */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static ffi_type *scalar_type(type_kind k) {
  switch (k) {
    case K_STATUS:
    case K_U32: return &ffi_type_uint32;
    case K_I32: return &ffi_type_sint32;
    case K_U64: return &ffi_type_uint64;
    case K_F32: return &ffi_type_float;
    case K_SIZE: return sizeof(size_t) == 8 ? &ffi_type_uint64 : &ffi_type_uint32;
    case K_VOID: return &ffi_type_void;
    default: return &ffi_type_pointer; /* str, ptr, arrays, fn, handles, records, outs */
  }
}

static int scalar_kind(const char *s, type_kind *out) {
  static const struct { const char *name; type_kind kind; } kinds[] = {
      {"status", K_STATUS}, {"u32", K_U32}, {"i32", K_I32}, {"u64", K_U64}, {"f32", K_F32}, {"size", K_SIZE},
      {"str", K_STR}, {"ptr", K_PTR}, {"void", K_VOID}, {"fn", K_FN}};
  for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; ++i)
    if (!strcmp(s, kinds[i].name)) return *out = kinds[i].kind, 1;
  return 0;
}

static int array_elem(const char *s, int *elem) {
  static const char *const names[] = {"u8*", "u32*", "i32*", "f32*"}; /* in skn_ffi_elem's order */
  for (int i = 0; i < 4; ++i)
    if (!strcmp(s, names[i])) return *elem = i, 1;
  return 0;
}

int skn_ffi__struct(const skn_ffi *f, const char *name) {
  for (int i = 0; i < f->nstructs; ++i)
    if (!strcmp(f->structs[i].name, name)) return i;
  return -1;
}

const function_desc *skn_ffi__function(const skn_ffi *f, const char *name) {
  for (int i = 0; i < f->nfunctions; ++i)
    if (!strcmp(f->functions[i].name, name)) return &f->functions[i];
  return NULL;
}

const field *skn_ffi__field(const skn_ffi *f, int s, const char *path, size_t *offset) {
  size_t at = 0;
  for (;;) {
    const char *dot = strchr(path, '.');
    size_t n = dot ? (size_t)(dot - path) : strlen(path);
    const struct_desc *sd = &f->structs[s];
    const field *fd = NULL;
    for (int i = 0; i < sd->nfields && !fd; ++i)
      if (strlen(sd->fields[i].name) == n && !strncmp(sd->fields[i].name, path, n)) fd = &sd->fields[i];
    if (!fd) return NULL;
    at += fd->offset;
    if (!dot) return *offset = at, fd;
    if (fd->kind != K_STRUCT) return NULL;
    s = fd->sub, path = dot + 1;
  }
}

/* "KIND NAME" or "T[N] NAME" of a struct. */
static int read_field(skn_ffi *f, struct_desc *sd, const char *kind, const char *name) {
  if (sd->nfields == MAX_FIELDS) return 0;
  field *fd = &sd->fields[sd->nfields++];
  memset(fd, 0, sizeof *fd);
  snprintf(fd->name, sizeof fd->name, "%s", name);
  fd->count = 1;
  char base[16];
  int n;
  if (sscanf(kind, "%15[a-z0-9][%d]", base, &n) == 2 && scalar_kind(base, &fd->kind)) return fd->elem = fd->kind, fd->count = n, 1;
  if (scalar_kind(kind, &fd->kind)) return 1;
  if (array_elem(kind, &fd->elem)) return fd->kind = K_ARRAY, 1;
  if ((fd->sub = skn_ffi__struct(f, kind)) >= 0) return fd->kind = K_STRUCT, 1;
  return 0;
}

/* "KIND:name" of a function. */
static int read_param(skn_ffi *f, param *p, const char *text) {
  static const char *const handles[] = {NULL, "rig", "pose", "gltf"};
  char kind[NAME_MAX_], star[NAME_MAX_];
  memset(p, 0, sizeof *p);
  const char *colon = strrchr(text, ':'); /* the name follows the last one: out:rig:out_rig */
  if (!colon || colon == text || (size_t)(colon - text) >= sizeof kind || strlen(colon + 1) >= sizeof p->name) return 0;
  snprintf(kind, sizeof kind, "%.*s", (int)(colon - text), text);
  snprintf(p->name, sizeof p->name, "%s", colon + 1);
  const char *k = kind;
  int out = !strncmp(k, "out:", 4);
  if (out) k += 4;
  for (int h = H_RIG; h <= H_GLTF; ++h)
    if (!strcmp(k, handles[h])) return p->kind = out ? K_OUT : K_HANDLE, p->handle = h, 1;
  if (out) return p->kind = K_OUT, (!strcmp(k, "u32") || !strcmp(k, "size")) && scalar_kind(k, &p->scalar);
  if (scalar_kind(k, &p->kind)) return 1;
  if (array_elem(k, &p->elem)) return p->kind = K_ARRAY, 1;
  size_t n = strlen(k);
  if (n > 1 && k[n - 1] == '*') {
    snprintf(star, sizeof star, "%.*s", (int)(n - 1), k);
    if ((p->sub = skn_ffi__struct(f, star)) >= 0) return p->kind = K_STRUCT, 1;
  }
  return 0;
}

/* libffi lays the struct out; an array field is its element repeated. */
static int lay_out(skn_ffi *f, struct_desc *sd) {
  int first[MAX_FIELDS], ne = 0;
  for (int i = 0; i < sd->nfields; ++i) {
    const field *fd = &sd->fields[i];
    first[i] = ne;
    for (int c = 0; c < fd->count; ++c)
      sd->elements[ne++] = fd->kind == K_STRUCT ? &f->structs[fd->sub].type : scalar_type(fd->count > 1 ? (type_kind)fd->elem : fd->kind);
  }
  sd->elements[ne] = NULL;
  sd->type.size = 0, sd->type.alignment = 0, sd->type.type = FFI_TYPE_STRUCT, sd->type.elements = sd->elements;
  size_t offsets[MAX_FIELDS * 4];
  if (ffi_get_struct_offsets(FFI_DEFAULT_ABI, &sd->type, offsets) != FFI_OK) return 0;
  for (int i = 0; i < sd->nfields; ++i) {
    field *fd = &sd->fields[i];
    fd->offset = offsets[first[i]];
    fd->size = sd->elements[first[i]]->size * (size_t)fd->count;
  }
  return 1;
}

static int prepare(function_desc *fn) {
  for (int i = 0; i < fn->nparams; ++i) fn->args[i] = scalar_type(fn->params[i].kind);
  return ffi_prep_cif(&fn->cif, FFI_DEFAULT_ABI, (unsigned)fn->nparams, scalar_type(fn->ret), fn->args) == FFI_OK;
}

/* Where the reading is: inside a struct, or an enum of this name. */
typedef struct reading {
  int in_enum;
  char group[NAME_MAX_];
} reading;

static int add_constant(skn_ffi *f, const char *group, const char *name, unsigned long long value) {
  if (f->nconstants == MAX_CONSTANTS) return 0;
  constant *c = &f->constants[f->nconstants++];
  snprintf(c->group, sizeof c->group, "%s", group);
  snprintf(c->name, sizeof c->name, "%s", name);
  c->value = value;
  return 1;
}

static int read_line(skn_ffi *f, char *line, reading *at) {
  char a[64] = "", b[NAME_MAX_] = "";
  unsigned long long value;
  if (line[0] == ' ') { /* a field of the last struct, or a constant of the last enum */
    if (sscanf(line, "%63s %47s", a, b) != 2) return 0;
    if (!at->in_enum) return f->nstructs > 0 && read_field(f, &f->structs[f->nstructs - 1], a, b);
    return sscanf(b, "%llu", &value) == 1 && add_constant(f, at->group, a, value);
  }
  if (sscanf(line, "struct %47s", a) == 1) {
    if (f->nstructs == MAX_STRUCTS) return 0;
    snprintf(f->structs[f->nstructs++].name, NAME_MAX_, "%.47s", a);
    return at->in_enum = 0, 1;
  }
  if (sscanf(line, "enum %47s", a) == 1) {
    snprintf(at->group, sizeof at->group, "%.47s", a);
    return at->in_enum = 1, 1;
  }
  if (sscanf(line, "const %63s %llu", a, &value) == 2) return add_constant(f, "#define", a, value);
  if (!strncmp(line, "function ", 9) && f->nfunctions < MAX_FUNCTIONS) {
    function_desc *fn = &f->functions[f->nfunctions++];
    char *save = NULL, *w = strtok_r(line + 9, " ", &save), *ret = strtok_r(NULL, " ", &save);
    if (!w || !ret || !scalar_kind(ret, &fn->ret)) return 0;
    snprintf(fn->name, sizeof fn->name, "%s", w);
    while ((w = strtok_r(NULL, " ", &save)))
      if (fn->nparams == MAX_PARAMS || !read_param(f, &fn->params[fn->nparams++], w)) return 0;
    return prepare(fn);
  }
  return 0;
}

int skn_ffi__read_schema(skn_ffi *f, const char *text, char *error, size_t error_bytes) {
  reading at = {0, ""};
  int number = 0;
  for (const char *p = text; *p;) {
    const char *end = strchr(p, '\n');
    size_t n = end ? (size_t)(end - p) : strlen(p);
    char line[256];
    snprintf(line, sizeof line, "%.*s", (int)n, p);
    ++number;
    if (n >= sizeof line || !read_line(f, line, &at)) {
      snprintf(error, error_bytes, "skn_ffi: the description's line %d is not understood: %s", number, line);
      return 0;
    }
    p += n + (end != NULL);
  }
  for (int i = 0; i < f->nstructs; ++i)
    if (!lay_out(f, &f->structs[i])) {
      snprintf(error, error_bytes, "skn_ffi: libffi cannot lay out %s", f->structs[i].name);
      return 0;
    }
  return 1;
}

/* ---- the description as layouts.txt writes the header ---- */
static const char *kind_text(type_kind k) {
  switch (k) {
    case K_STATUS:
    case K_U32: return "u32";
    case K_I32: return "i32";
    case K_U64: return "u64";
    case K_F32: return "f32";
    case K_SIZE: return "size";
    case K_STR: return "str";
    case K_VOID: return "void";
    case K_FN: return "fn";
    default: return "ptr";
  }
}

void skn_ffi_write_layouts(skn_ffi *f, FILE *out) {
  for (int s = 0; s < f->nstructs; ++s) {
    const struct_desc *sd = &f->structs[s];
    fprintf(out, "struct %s %zu %u\n", sd->name, sd->type.size, (unsigned)sd->type.alignment);
    for (int i = 0; i < sd->nfields; ++i) {
      const field *fd = &sd->fields[i];
      fprintf(out, "field %s %s %zu %zu ", sd->name, fd->name, fd->offset, fd->size);
      if (fd->kind == K_STRUCT) fprintf(out, "%s\n", f->structs[fd->sub].name);
      else if (fd->count > 1) fprintf(out, "%s[%d]\n", kind_text((type_kind)fd->elem), fd->count);
      else fprintf(out, "%s\n", kind_text(fd->kind));
    }
  }
  for (int i = 0; i < f->nfunctions; ++i) {
    const function_desc *fn = &f->functions[i];
    fprintf(out, "function %s %s", fn->name, kind_text(fn->ret));
    for (int p = 0; p < fn->nparams; ++p) fprintf(out, " %s", kind_text(fn->params[p].kind));
    fprintf(out, "%s\n", fn->nparams ? "" : " -");
  }
  for (int i = 0; i < f->nconstants; ++i) {
    const constant *c = &f->constants[i];
    if (!strcmp(c->group, "#define")) fprintf(out, "const %s %llu\n", c->name, (unsigned long long)c->value);
    else fprintf(out, "enum %s %s %llu\n", c->group, c->name, (unsigned long long)c->value);
  }
}
