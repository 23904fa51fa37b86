/* call.c — loading libskn and calling it through libffi: dlopen, the
 * function table from skn_get_api(1), handles, and one generic call that
 * checks every argument against the description before ffi_call. */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

enum { OK = 0 };

/* ---- errors: the library's own skn_set_error holds the adapter's too ---- */
int skn_ffi__fail(skn_ffi *f, int status, const char *format, ...) {
  va_list ap;
  va_start(ap, format);
  vsnprintf(f->message, sizeof f->message, format, ap);
  va_end(ap);
  const function_desc *set = skn_ffi__function(f, "skn_set_error");
  f->own_message = 1;
  if (set && set->address) { /* 1.1: skn_last_error() then says it, as for the library's own */
    uint32_t s = (uint32_t)status;
    const char *m = f->message;
    void *args[] = {&s, &m};
    ffi_arg rc;
    ffi_call((ffi_cif *)&set->cif, set->address, &rc, args);
    f->own_message = 0;
  }
  return status;
}

const char *skn_ffi_last_error(skn_ffi *f) {
  if (f->own_message) return f->message;
  const function_desc *fn = skn_ffi__function(f, "skn_last_error");
  const char *text = "";
  ffi_call((ffi_cif *)&fn->cif, fn->address, &text, NULL);
  return text;
}

const char *skn_ffi_status_name(skn_ffi *f, int status) {
  const function_desc *fn = skn_ffi__function(f, "skn_status_name");
  uint32_t s = (uint32_t)status;
  void *args[] = {&s};
  const char *text = "";
  ffi_call((ffi_cif *)&fn->cif, fn->address, &text, args);
  return text;
}

int skn_ffi_enum(skn_ffi *f, const char *name, uint32_t *out) {
  for (int i = 0; i < f->nconstants; ++i)
    if (!strcmp(f->constants[i].name, name)) return *out = (uint32_t)f->constants[i].value, OK;
  return skn_ffi__fail(f, f->status.invalid, "no constant %s in the description", name);
}

/* ---- handles: a slot and its generation, so a stale one is recognised ---- */
static const char *const handle_names[] = {"none", "rig", "pose", "gltf"};

static skn_ffi_handle new_handle(skn_ffi *f, int kind, void *ptr, uint32_t rig) {
  uint32_t i = 0;
  while (i < f->nslots && f->slots[i].kind != H_NONE) ++i;
  if (i + 1 >= 1u << HANDLE_SLOT_BITS) return 0; /* as many live handles as a handle can number */
  if (i == f->cap) {
    uint32_t cap = f->cap ? 2 * f->cap : 16;
    handle_slot *s = realloc(f->slots, cap * sizeof *s);
    if (!s) return 0;
    memset(s + f->cap, 0, (cap - f->cap) * sizeof *s);
    f->slots = s, f->cap = cap;
  }
  if (i == f->nslots) ++f->nslots;
  handle_slot *s = &f->slots[i];
  s->kind = kind, s->ptr = ptr, s->rig = rig, s->poses = 0;
  if (kind == H_POSE) ++f->slots[rig].poses;
  const uint32_t generation = s->generation & ((1u << HANDLE_GENERATION_BITS) - 1u);
  return (uint64_t)f->instance << (HANDLE_SLOT_BITS + HANDLE_GENERATION_BITS) |
         (uint64_t)generation << HANDLE_SLOT_BITS | (i + 1);
}

static int of_this_instance(const skn_ffi *f, skn_ffi_handle h) {
  return HANDLE_FIELD(h, HANDLE_SLOT_BITS + HANDLE_GENERATION_BITS, HANDLE_INSTANCE_BITS) == f->instance;
}

/* The slot index of a handle (its own field, less the + 1). */
static uint32_t slot_index(skn_ffi_handle h) { return HANDLE_FIELD(h, 0, HANDLE_SLOT_BITS) - 1u; }

static handle_slot *slot_of(skn_ffi *f, skn_ffi_handle h, int kind) {
  uint32_t i = slot_index(h);
  if (!h || !of_this_instance(f, h) || i >= f->nslots || f->slots[i].kind != kind ||
      (f->slots[i].generation & ((1u << HANDLE_GENERATION_BITS) - 1u)) != HANDLE_FIELD(h, HANDLE_SLOT_BITS, HANDLE_GENERATION_BITS))
    return NULL;
  return &f->slots[i];
}

/* Why h is not a live handle of `kind`, for a message. */
static const char *not_live(const skn_ffi *f, skn_ffi_handle h) {
  return h && !of_this_instance(f, h) ? "a handle of another skn_ffi instance"
                                      : "not a live handle of that kind (destroyed, or another kind)";
}

void *skn_ffi__pointer(skn_ffi *f, skn_ffi_handle h, int kind) {
  handle_slot *s = slot_of(f, h, kind);
  return s ? s->ptr : NULL;
}

static void free_slot(skn_ffi *f, handle_slot *s) {
  if (s->kind == H_POSE) --f->slots[s->rig].poses;
  s->kind = H_NONE, s->ptr = NULL, ++s->generation;
}

/* ---- the generic call ---- */
typedef union slot_value {
  uint32_t u32;
  int32_t i32;
  uint64_t u64;
  float f32;
  size_t size;
  const void *ptr;
} slot_value;

/* One argument, checked against its parameter and converted to C. */
static int convert(skn_ffi *f, const function_desc *fn, const param *p, const skn_ffi_value *v, slot_value *c) {
  const char *fname = fn->name + 4; /* the name without skn_ */
  switch (p->kind) {
    case K_HANDLE: {
      void *ptr = v->kind == SKN_FFI_HANDLE ? skn_ffi__pointer(f, v->as.handle, p->handle) : NULL;
      if (!ptr)
        return skn_ffi__fail(f, f->status.invalid, "%s: %s: %s", fname, p->name,
                             v->kind != SKN_FFI_HANDLE ? "a handle is needed" : not_live(f, v->as.handle));
      c->ptr = ptr;
      return OK;
    }
    case K_STRUCT:
      if (v->kind != SKN_FFI_RECORD || !v->as.record || v->as.record->s != p->sub)
        return skn_ffi__fail(f, f->status.invalid, "%s: %s: a %s record is needed", fname, p->name, f->structs[p->sub].name);
      if (v->as.record->f != f)
        return skn_ffi__fail(f, f->status.invalid, "%s: %s: a record of another skn_ffi instance (or of a closed one)",
                             fname, p->name);
      c->ptr = v->as.record->mem;
      return OK;
    case K_ARRAY:
      if (v->kind == SKN_FFI_NONE) return c->ptr = NULL, OK;
      if (v->kind != SKN_FFI_ARRAY || (p->elem != SKN_FFI_BYTE && (int)v->elem != p->elem))
        return skn_ffi__fail(f, f->status.invalid, "%s: %s: an array of the parameter's element type is needed", fname, p->name);
      c->ptr = v->as.data;
      return OK;
    case K_STR:
      if (v->kind != SKN_FFI_STR || !v->as.str) return skn_ffi__fail(f, f->status.invalid, "%s: %s: a string is needed", fname, p->name);
      c->ptr = v->as.str;
      return OK;
    default: { /* a scalar: an integer kind that fits, or a float32 for f32 */
      uint64_t u = 0;
      int negative = v->kind == SKN_FFI_I32 && v->as.i32 < 0;
      if (p->kind == K_F32) {
        if (v->kind != SKN_FFI_F32) return skn_ffi__fail(f, f->status.invalid, "%s: %s: a float32 is needed", fname, p->name);
        c->f32 = v->as.f32;
        return OK;
      }
      if (v->kind == SKN_FFI_U32) u = v->as.u32;
      else if (v->kind == SKN_FFI_U64) u = v->as.u64;
      else if (v->kind == SKN_FFI_SIZE) u = v->as.size;
      else if (v->kind == SKN_FFI_I32 && !negative) u = (uint64_t)v->as.i32;
      else return skn_ffi__fail(f, f->status.invalid, "%s: %s: a non-negative integer is needed", fname, p->name);
      if (p->kind == K_U32 && u > UINT32_MAX) return skn_ffi__fail(f, f->status.invalid, "%s: %s: %llu is out of the uint32 range", fname, p->name, (unsigned long long)u);
      if (p->kind == K_U32) c->u32 = (uint32_t)u;
      else if (p->kind == K_SIZE) c->size = (size_t)u;
      else c->u64 = u;
      return OK;
    }
  }
}

/* Destroying: a rig only when its poses are gone (C's rule, kept here). */
static int destroys(skn_ffi *f, const function_desc *fn, const skn_ffi_value *args) {
  int kind = !strcmp(fn->name, "skn_rig_destroy") ? H_RIG : !strcmp(fn->name, "skn_pose_destroy") ? H_POSE
           : !strcmp(fn->name, "skn_gltf_close") ? H_GLTF : H_NONE;
  if (kind == H_NONE) return -1;
  handle_slot *s = args[0].kind == SKN_FFI_HANDLE ? slot_of(f, args[0].as.handle, kind) : NULL;
  if (!s)
    return skn_ffi__fail(f, f->status.invalid, "%s: not a live %s handle%s", fn->name + 4, handle_names[kind],
                         args[0].kind == SKN_FFI_HANDLE && args[0].as.handle && !of_this_instance(f, args[0].as.handle)
                             ? " (a handle of another skn_ffi instance)" : "");
  if (kind == H_RIG && s->poses)
    return skn_ffi__fail(f, f->status.invalid, "rig_destroy: %u poses of this rig are alive; destroy them first", s->poses);
  void *ptr = s->ptr, *argv[] = {&ptr};
  ffi_call((ffi_cif *)&fn->cif, fn->address, NULL, argv);
  free_slot(f, s);
  return OK;
}

int skn_ffi_call(skn_ffi *f, const char *name, const skn_ffi_value *args, size_t nargs, skn_ffi_value *result) {
  const function_desc *fn = skn_ffi__function(f, name);
  if (!fn || !strcmp(name, "skn_get_api")) return skn_ffi__fail(f, f->status.invalid, "%s: not a call in the description", name);
  if (!fn->address) return skn_ffi__fail(f, f->status.unsupported, "%s: the loaded libskn is older than this call", name);
  const int has_out = fn->nparams > 0 && fn->params[fn->nparams - 1].kind == K_OUT;
  const size_t want = (size_t)(fn->nparams - has_out);
  if (nargs != want) return skn_ffi__fail(f, f->status.invalid, "%s: %zu arguments, the call takes %zu", name + 4, nargs, want);
  if (has_out && !result) /* a handle made and not returned could never be freed */
    return skn_ffi__fail(f, f->status.invalid, "%s: result is required: the call's %s goes there", name + 4,
                         fn->params[want].name);
  int rc = destroys(f, fn, args);
  if (rc >= 0) return rc;
  slot_value values[MAX_PARAMS];
  void *argv[MAX_PARAMS], *out_ptr = NULL;
  slot_value out_value = {0};
  for (size_t i = 0; i < want; ++i) {
    if ((rc = convert(f, fn, &fn->params[i], &args[i], &values[i]))) return rc;
    argv[i] = &values[i];
  }
  if ((rc = skn_ffi__check_lengths(f, fn, args))) return rc;
  if (has_out) argv[want] = &out_ptr, out_ptr = &out_value;
  f->own_message = 0;
  union { ffi_arg u; void *p; } ret = {0};
  ffi_call((ffi_cif *)&fn->cif, fn->address, &ret, argv);
  if (result) memset(result, 0, sizeof *result);
  if (fn->ret == K_STR || fn->ret == K_PTR) {
    if (result) result->kind = SKN_FFI_STR, result->as.str = ret.p;
    return OK;
  }
  if (fn->ret == K_U32 || fn->ret == K_VOID) { /* a value (skn_version), not a status */
    if (result && fn->ret == K_U32) result->kind = SKN_FFI_U32, result->as.u32 = (uint32_t)ret.u;
    return OK;
  }
  int status = (int)(uint32_t)ret.u;
  if (status || !has_out || !result) return status;
  const param *out = &fn->params[want];
  if (out->handle) {
    uint32_t rig = 0;
    if (out->handle == H_POSE) rig = slot_index(args[0].as.handle);
    skn_ffi_handle h = new_handle(f, out->handle, (void *)out_value.ptr, rig);
    if (!h) return skn_ffi__fail(f, f->status.no_memory, "%s: out of memory for a handle", name + 4);
    result->kind = SKN_FFI_HANDLE, result->as.handle = h;
  } else if (out->scalar == K_U32) {
    result->kind = SKN_FFI_U32, result->as.u32 = out_value.u32;
  } else {
    result->kind = SKN_FFI_SIZE, result->as.size = out_value.size;
  }
  return OK;
}

/* A described call made by the adapter itself (checks.c), unchecked. */
int skn_ffi__status_call(skn_ffi *f, const char *name, void **args) {
  const function_desc *fn = skn_ffi__function(f, name);
  ffi_arg rc = 0;
  ffi_call((ffi_cif *)&fn->cif, fn->address, &rc, args);
  return (int)(uint32_t)rc;
}

/* ---- loading ---- */
static void find_functions(skn_ffi *f) {
  int api = skn_ffi__struct(f, "skn_api");
  const struct_desc *sd = &f->structs[api];
  for (int i = 0; i < f->nfunctions; ++i) {
    function_desc *fn = &f->functions[i];
    fn->api_field = -1;
    for (int k = 0; k < sd->nfields; ++k) {
      const field *fd = &sd->fields[k];
      if (fd->kind != K_FN || strcmp(fd->name, fn->name + 4)) continue;
      fn->api_field = k;
      if (fd->offset + sizeof(void *) <= f->api_size) memcpy(&fn->address, f->api + fd->offset, sizeof(void *));
    }
  }
}

skn_ffi *skn_ffi_open(const char *path, char *error, size_t error_bytes) {
  if (!path) path = getenv("SKN_LIBRARY");
  if (!path) path = "libskn.so.1";
  skn_ffi *f = calloc(1, sizeof *f);
  if (!f) return snprintf(error, error_bytes, "skn_ffi: out of memory"), NULL;
  if (!skn_ffi__read_schema(f, skn_ffi__schema, error, error_bytes)) return free(f), NULL;
  skn_ffi_enum(f, "SKN_ERR_INVALID_ARGUMENT", &f->status.invalid); /* its own refusals in skn's words */
  skn_ffi_enum(f, "SKN_ERR_OUT_OF_MEMORY", &f->status.no_memory);
  skn_ffi_enum(f, "SKN_ERR_UNSUPPORTED", &f->status.unsupported);
  if (!(f->library = dlopen(path, RTLD_NOW | RTLD_LOCAL))) {
    snprintf(error, error_bytes, "skn_ffi: cannot load %s: %s", path, dlerror());
    return free(f), NULL;
  }
  /* skn_get_api(1), itself called through libffi: the one symbol looked up */
  function_desc *get = (function_desc *)skn_ffi__function(f, "skn_get_api");
  union { void *p; void (*fn)(void); } sym = {dlsym(f->library, "skn_get_api")};
  uint32_t major = 1;
  void *args[] = {&major};
  if (sym.p) ffi_call(&get->cif, sym.fn, &f->api, args);
  if (!f->api) {
    snprintf(error, error_bytes, "skn_ffi: %s has no skn_get_api, or not ABI 1 (this adapter's major)", path);
    return dlclose(f->library), free(f), NULL;
  }
  get->address = sym.fn;
  memcpy(&f->api_size, f->api, 4);
  static uint32_t instances; /* numbers instances apart in their handles (wrapping, never 0) */
  do f->instance = __atomic_add_fetch(&instances, 1, __ATOMIC_RELAXED) & ((1u << HANDLE_INSTANCE_BITS) - 1u);
  while (!f->instance);
  find_functions(f);
  uint32_t version = 0;
  const function_desc *v = skn_ffi__function(f, "skn_version");
  ffi_arg rc = 0;
  if (v->address) ffi_call((ffi_cif *)&v->cif, v->address, &rc, NULL), version = (uint32_t)rc;
  if (version / 10000 != 1) {
    snprintf(error, error_bytes, "skn_ffi: %s is libskn %u.%u.%u; this adapter is for ABI 1.x", path, version / 10000,
             version / 100 % 100, version % 100);
    return dlclose(f->library), free(f), NULL;
  }
  return f;
}

void skn_ffi_close(skn_ffi *f) {
  if (!f) return;
  static const char *const closers[] = {NULL, "skn_rig_destroy", "skn_pose_destroy", "skn_gltf_close"};
  static const int order[] = {H_POSE, H_GLTF, H_RIG}; /* poses before their rigs */
  for (int k = 0; k < 3; ++k)
    for (uint32_t i = 0, kind = (uint32_t)order[k]; i < f->nslots; ++i)
      if (f->slots[i].kind == (int)kind) {
        const function_desc *fn = skn_ffi__function(f, closers[kind]);
        void *ptr = f->slots[i].ptr, *argv[] = {&ptr};
        ffi_call((ffi_cif *)&fn->cif, fn->address, NULL, argv);
        free_slot(f, &f->slots[i]);
      }
  skn_ffi__records_detach(f);
  dlclose(f->library);
  free(f->slots);
  free(f);
}
