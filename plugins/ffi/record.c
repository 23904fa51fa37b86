/* record.c — struct values as an interpreter builds them: zeroed bytes laid
 * out as libffi says C lays them out, set and read field by field from
 * typed values. A pointer field keeps the array it was set from (its kind
 * and length), which is what lets checks.c hold every count against the
 * array it describes. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

size_t skn_ffi__elem_size(int elem) { return elem == SKN_FFI_BYTE ? 1 : 4; }

skn_ffi_record *skn_ffi_record_new(skn_ffi *f, const char *struct_name) {
  int s = skn_ffi__struct(f, struct_name);
  if (s < 0) {
    skn_ffi__fail(f, f->status.invalid, "record: no struct %s in the description", struct_name);
    return NULL;
  }
  skn_ffi_record *r = calloc(1, sizeof *r);
  if (!r || !(r->mem = calloc(1, f->structs[s].type.size))) {
    free(r);
    skn_ffi__fail(f, f->status.no_memory, "record: out of memory");
    return NULL;
  }
  r->f = f, r->s = s;
  r->next = f->records;
  if (r->next) r->next->prev = r;
  f->records = r;
  const field *first = &f->structs[s].fields[0];
  if (!strcmp(first->name, "struct_size")) {
    uint32_t size = (uint32_t)f->structs[s].type.size;
    memcpy(r->mem + first->offset, &size, 4);
  }
  return r;
}

void skn_ffi_record_free(skn_ffi_record *r) {
  if (!r) return;
  if (r->f) { /* unlinked from a live instance; a closed one's records are loose already */
    if (r->prev) r->prev->next = r->next;
    else r->f->records = r->next;
    if (r->next) r->next->prev = r->prev;
  }
  free(r->mem), free(r);
}

void skn_ffi__records_detach(skn_ffi *f) {
  for (skn_ffi_record *r = f->records, *next; r; r = next) {
    next = r->next;
    r->f = NULL, r->prev = r->next = NULL;
  }
  f->records = NULL;
}

/* Any integer kind, as a value and whether it is negative. */
static int integer_of(skn_ffi_value v, uint64_t *u, int *negative) {
  *negative = 0;
  switch (v.kind) {
    case SKN_FFI_U32: return *u = v.as.u32, 1;
    case SKN_FFI_U64: return *u = v.as.u64, 1;
    case SKN_FFI_SIZE: return *u = v.as.size, 1;
    case SKN_FFI_I32: return *negative = v.as.i32 < 0, *u = (uint64_t)(int64_t)v.as.i32, 1;
    default: return 0;
  }
}

static const char *kind_name(skn_ffi_kind k) {
  static const char *const names[] = {"none", "u32", "i32", "u64", "f32", "size", "string", "array", "record", "handle"};
  return (unsigned)k < sizeof names / sizeof names[0] ? names[k] : "unknown";
}

static void set_ref(skn_ffi_record *r, size_t offset, skn_ffi_value v) {
  for (int i = 0; i < r->nrefs; ++i)
    if (r->refs[i].offset == offset) {
      r->refs[i].value = v;
      return;
    }
  r->refs[r->nrefs].offset = offset, r->refs[r->nrefs++].value = v;
}

/* A scalar into `at`: what the field's kind says, from any value that fits. */
static int set_scalar(skn_ffi_record *r, const char *path, type_kind k, unsigned char *at, skn_ffi_value v) {
  uint64_t u;
  int negative;
  if (k == K_F32) {
    float x;
    if (v.kind == SKN_FFI_F32) x = v.as.f32;
    else if (integer_of(v, &u, &negative)) x = negative ? (float)(int64_t)u : (float)u;
    else return skn_ffi__fail(r->f, r->f->status.invalid, "%s: a number is needed, not a %s", path, kind_name(v.kind));
    memcpy(at, &x, 4);
    return 0;
  }
  if (!integer_of(v, &u, &negative))
    return skn_ffi__fail(r->f, r->f->status.invalid, "%s: an integer is needed, not a %s", path, kind_name(v.kind));
  if (k == K_I32) {
    if (negative ? (int64_t)u < INT32_MIN : u > INT32_MAX) return skn_ffi__fail(r->f, r->f->status.invalid, "%s: out of the int32 range", path);
    int32_t x = (int32_t)(int64_t)u;
    memcpy(at, &x, 4);
  } else if (negative) {
    return skn_ffi__fail(r->f, r->f->status.invalid, "%s: %lld is negative", path, (long long)(int64_t)u);
  } else if (k == K_U32) {
    if (u > UINT32_MAX) return skn_ffi__fail(r->f, r->f->status.invalid, "%s: %llu is out of the uint32 range", path, (unsigned long long)u);
    uint32_t x = (uint32_t)u;
    memcpy(at, &x, 4);
  } else if (k == K_SIZE) {
    size_t x = (size_t)u;
    memcpy(at, &x, sizeof x);
  } else {
    memcpy(at, &u, 8);
  }
  return 0;
}

int skn_ffi_record_set(skn_ffi_record *r, const char *path, skn_ffi_value v) {
  if (!r || !r->f) return 1; /* SKN_ERR_INVALID_ARGUMENT, as skn_ffi.h says: no instance to name it from */
  size_t offset;
  const field *fd = skn_ffi__field(r->f, r->s, path, &offset);
  if (!fd) return skn_ffi__fail(r->f, r->f->status.invalid, "%s has no field %s", r->f->structs[r->s].name, path);
  while (fd->kind == K_STRUCT) fd = &r->f->structs[fd->sub].fields[0]; /* "positions": positions.data */
  unsigned char *at = r->mem + offset;
  switch (fd->kind) {
    case K_ARRAY: {
      if (v.kind == SKN_FFI_NONE) {
        memset(at, 0, sizeof(void *));
        set_ref(r, offset, v);
        return 0;
      }
      if (v.kind != SKN_FFI_ARRAY || (fd->elem != SKN_FFI_BYTE && (int)v.elem != fd->elem))
        return skn_ffi__fail(r->f, r->f->status.invalid, "%s: an array of %s is needed", path,
                             fd->elem == SKN_FFI_BYTE ? "any elements" : fd->elem == SKN_FFI_FLOAT32 ? "float32" :
                             fd->elem == SKN_FFI_UINT32 ? "uint32" : "int32");
      memcpy(at, &v.as.data, sizeof(void *));
      set_ref(r, offset, v);
      return 0;
    }
    case K_STR:
      if (v.kind != SKN_FFI_STR) return skn_ffi__fail(r->f, r->f->status.invalid, "%s: a string is needed, not a %s", path, kind_name(v.kind));
      memcpy(at, &v.as.str, sizeof(char *));
      return 0;
    case K_FN:
    case K_PTR: return skn_ffi__fail(r->f, r->f->status.invalid, "%s: not settable through this adapter", path);
    default:
      if (fd->count > 1) { /* T[N]: an array of exactly N */
        if (v.kind != SKN_FFI_ARRAY || v.elem != SKN_FFI_FLOAT32 || v.count != (size_t)fd->count)
          return skn_ffi__fail(r->f, r->f->status.invalid, "%s: an array of %d float32 is needed", path, fd->count);
        memcpy(at, v.as.data, 4 * (size_t)fd->count);
        return 0;
      }
      return set_scalar(r, path, fd->kind, at, v);
  }
}

int skn_ffi_record_get(const skn_ffi_record *r, const char *path, skn_ffi_value *out) {
  size_t offset;
  if (!r || !r->f) return 1; /* SKN_ERR_INVALID_ARGUMENT: no instance to name it from */
  const field *fd = skn_ffi__field(r->f, r->s, path, &offset);
  if (!fd || fd->kind == K_STRUCT) return skn_ffi__fail(r->f, r->f->status.invalid, "%s: not a field with a value", path);
  const unsigned char *at = r->mem + offset;
  memset(out, 0, sizeof *out);
  switch (fd->kind) {
    case K_U32: out->kind = SKN_FFI_U32, memcpy(&out->as.u32, at, 4); break;
    case K_I32: out->kind = SKN_FFI_I32, memcpy(&out->as.i32, at, 4); break;
    case K_U64: out->kind = SKN_FFI_U64, memcpy(&out->as.u64, at, 8); break;
    case K_SIZE: out->kind = SKN_FFI_SIZE, memcpy(&out->as.size, at, sizeof(size_t)); break;
    case K_F32:
      if (fd->count > 1) *out = skn_ffi_array(SKN_FFI_FLOAT32, at, (size_t)fd->count);
      else out->kind = SKN_FFI_F32, memcpy(&out->as.f32, at, 4);
      break;
    case K_STR: out->kind = SKN_FFI_STR, memcpy(&out->as.str, at, sizeof(char *)); break;
    case K_ARRAY: {
      const skn_ffi_value *ref = skn_ffi__record_array(r, path);
      if (ref) *out = *ref;
      break;
    }
    default: return skn_ffi__fail(r->f, r->f->status.invalid, "%s: not readable through this adapter", path);
  }
  return 0;
}

/* The array a pointer field was set from (NULL when it was not). */
const skn_ffi_value *skn_ffi__record_array(const skn_ffi_record *r, const char *path) {
  size_t offset;
  const field *fd = skn_ffi__field(r->f, r->s, path, &offset);
  if (!fd) return NULL;
  for (int i = 0; i < r->nrefs; ++i)
    if (r->refs[i].offset == offset && r->refs[i].value.kind == SKN_FFI_ARRAY) return &r->refs[i].value;
  return NULL;
}

/* An integer field's value (0 for any other). */
uint64_t skn_ffi__record_uint(const skn_ffi_record *r, const char *path) {
  skn_ffi_value v;
  if (skn_ffi_record_get(r, path, &v)) return 0;
  switch (v.kind) {
    case SKN_FFI_U32: return v.as.u32;
    case SKN_FFI_U64: return v.as.u64;
    case SKN_FFI_SIZE: return v.as.size;
    default: return 0;
  }
}
