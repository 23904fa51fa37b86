/* skn_ffi.h — libskn called the way an interpreter calls C: through libffi.
 *
 * An interpreter without a compiler (a Lisp, a Tcl, a game's script VM, or
 * ctypes itself inside) cannot include skn.h. It loads libskn.so.1 at run
 * time, finds the calls through skn_get_api(1), and builds each call's
 * ffi_cif from a description of the signature: a table of argument types
 * that it ships in its own words. This adapter is that binding, written in
 * C so that every other one can follow it step by step:
 *
 *   1. the description (schema.c): every struct field by field, every
 *      function's parameters, every enum constant, as text;
 *   2. the types (types.c): the text becomes ffi_types, whose offsets libffi
 *      computes (ffi_get_struct_offsets) and plugins/ffi/tests compares with the
 *      header's own (build/abi/layouts.txt);
 *   3. the values (record.c): structs are records set field by field from
 *      typed values that carry their lengths, as an interpreter's arrays do;
 *   4. the calls (call.c): each argument checked against the description,
 *      every array's length against the counts it goes with (checks.c),
 *      handles looked up in a table that knows a destroyed one, then
 *      ffi_call through the function table.
 * Nothing here includes skn.h: the description is the only knowledge of
 * the ABI, which is what makes the comparison with the header mean
 * something.
 *
 * Errors are reported as skn reports its own: a status from skn_status, and
 * the message through the library's skn_set_error, so skn_ffi_last_error()
 * (skn_last_error, called through libffi) reads both kinds.
 *
 * A skn_ffi and its records belong to one thread at a time (its handle
 * table has no lock), as an interpreter's state does; open one per thread,
 * or hold a lock around the calls. */
#ifndef SKN_FFI_H
#define SKN_FFI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct skn_ffi skn_ffi;               /* a loaded libskn: its calls, structs, enums, handles */
typedef struct skn_ffi_record skn_ffi_record; /* a struct value, set and read by field name */
typedef uint64_t skn_ffi_handle;              /* a rig, pose or document of one skn_ffi; 0 is none */

/* What a value is, as an interpreter tags its values. */
typedef enum skn_ffi_kind {
  SKN_FFI_NONE = 0,
  SKN_FFI_U32,
  SKN_FFI_I32,
  SKN_FFI_U64,
  SKN_FFI_F32,
  SKN_FFI_SIZE,
  SKN_FFI_STR,    /* a NUL-terminated string */
  SKN_FFI_ARRAY,  /* elements of `elem`, `count` of them, at `as.data` */
  SKN_FFI_RECORD, /* a struct (skn_ffi_record_new) */
  SKN_FFI_HANDLE  /* a rig, pose or document */
} skn_ffi_kind;

typedef enum skn_ffi_elem { SKN_FFI_BYTE = 0, SKN_FFI_UINT32, SKN_FFI_INT32, SKN_FFI_FLOAT32 } skn_ffi_elem;

typedef struct skn_ffi_value {
  skn_ffi_kind kind;
  skn_ffi_elem elem; /* SKN_FFI_ARRAY */
  size_t count;      /* SKN_FFI_ARRAY: elements, not bytes */
  union {
    uint32_t u32;
    int32_t i32;
    uint64_t u64;
    float f32;
    size_t size;
    const char *str;
    void *data;
    skn_ffi_record *record;
    skn_ffi_handle handle;
  } as;
} skn_ffi_value;

/* Loads libskn (`path`, or NULL: $SKN_LIBRARY, else "libskn.so.1" on the
 * loader's path), takes its table through skn_get_api(1), refuses another
 * ABI major, and prepares every call and struct of the description. NULL on
 * failure, with the reason in `error` (at least 256 bytes). */
skn_ffi *skn_ffi_open(const char *path, char *error, size_t error_bytes);

/* Destroys every handle still open (poses before their rigs), then unloads.
 * Records made by it stay to be freed by skn_ffi_record_free; setting or
 * reading one is refused from then on. */
void skn_ffi_close(skn_ffi *f);

/* Calls `function` (its name in skn.h, "skn_bind") with `args`: every
 * parameter in order except a final out-parameter, whose value (a handle, a
 * u32 index, a size) is written to *result, which is then required (a
 * handle made and not returned could never be freed); a function that
 * returns something other than a status writes that there instead.
 * Returns the call's status (0 = SKN_OK), or, when the arguments do not fit
 * the description, SKN_ERR_INVALID_ARGUMENT (1) with a message naming the
 * argument, before anything is called. Handles and records are this
 * instance's own: another instance's are refused. */
int skn_ffi_call(skn_ffi *f, const char *function, const skn_ffi_value *args, size_t nargs,
                 skn_ffi_value *result);

/* The library's skn_last_error() and skn_status_name(status). */
const char *skn_ffi_last_error(skn_ffi *f);
const char *skn_ffi_status_name(skn_ffi *f, int status);

/* An enum constant by its name in skn.h ("SKN_METHOD_DQS"): 0 and *out, or
 * SKN_ERR_INVALID_ARGUMENT for a name the description has not. */
int skn_ffi_enum(skn_ffi *f, const char *name, uint32_t *out);

/* A struct value, zeroed but for struct_size (its size in the description). */
skn_ffi_record *skn_ffi_record_new(skn_ffi *f, const char *struct_name);
void skn_ffi_record_free(skn_ffi_record *r);

/* Sets a field ("joint_count", or "positions.stride" inside a nested
 * struct; "positions" alone sets positions.data) from a value of its kind:
 * an array for a pointer, of the element type the description gives it.
 * The array is referenced, not copied, until the record is freed or set
 * again. SKN_ERR_INVALID_ARGUMENT names the field and both kinds. */
int skn_ffi_record_set(skn_ffi_record *r, const char *field, skn_ffi_value value);

/* Reads a field back as a value (strings as SKN_FFI_STR). */
int skn_ffi_record_get(const skn_ffi_record *r, const char *field, skn_ffi_value *out);

/* Writes what the adapter understands of the ABI, in the format of
 * build/abi/layouts.txt (scripts/abi_layouts): a struct line and its field
 * lines with libffi's offsets, enum, function and const lines. Its tests
 * compare the two, so the description cannot drift from skn.h unseen. */
void skn_ffi_write_layouts(skn_ffi *f, FILE *out);

/* Values, for brevity. */
static inline skn_ffi_value skn_ffi_u32(uint32_t x) {
  skn_ffi_value v = {SKN_FFI_U32, SKN_FFI_BYTE, 0, {0}};
  v.as.u32 = x;
  return v;
}
static inline skn_ffi_value skn_ffi_f32(float x) {
  skn_ffi_value v = {SKN_FFI_F32, SKN_FFI_BYTE, 0, {0}};
  v.as.f32 = x;
  return v;
}
static inline skn_ffi_value skn_ffi_size(size_t x) {
  skn_ffi_value v = {SKN_FFI_SIZE, SKN_FFI_BYTE, 0, {0}};
  v.as.size = x;
  return v;
}
static inline skn_ffi_value skn_ffi_str(const char *s) {
  skn_ffi_value v = {SKN_FFI_STR, SKN_FFI_BYTE, 0, {0}};
  v.as.str = s;
  return v;
}
static inline skn_ffi_value skn_ffi_array(skn_ffi_elem elem, const void *data, size_t count) {
  skn_ffi_value v = {SKN_FFI_ARRAY, elem, count, {0}};
  v.as.data = (void *)data;
  return v;
}
static inline skn_ffi_value skn_ffi_record_value(skn_ffi_record *r) {
  skn_ffi_value v = {SKN_FFI_RECORD, SKN_FFI_BYTE, 0, {0}};
  v.as.record = r;
  return v;
}
static inline skn_ffi_value skn_ffi_handle_value(skn_ffi_handle h) {
  skn_ffi_value v = {SKN_FFI_HANDLE, SKN_FFI_BYTE, 0, {0}};
  v.as.handle = h;
  return v;
}

#ifdef __cplusplus
}
#endif
#endif /* SKN_FFI_H */
