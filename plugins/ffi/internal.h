/* internal.h — the adapter's own structures: the description read into
 * libffi's types (types.c), records (record.c), handles and calls (call.c),
 * and the length rules (checks.c). */
#ifndef SKN_FFI_INTERNAL_H
#define SKN_FFI_INTERNAL_H

#include <ffi.h>

#include "skn_ffi.h"

enum { NAME_MAX_ = 48, MAX_FIELDS = 48, MAX_PARAMS = 8, MAX_STRUCTS = 20, MAX_FUNCTIONS = 40, MAX_CONSTANTS = 96 };

/* What a field or parameter is. */
typedef enum type_kind {
  K_VOID, K_STATUS, K_U32, K_I32, K_U64, K_F32, K_SIZE, K_STR, K_PTR, /* scalars and pointers */
  K_ARRAY,  /* f32* u32* i32* u8*: `elem` */
  K_STRUCT, /* a struct by value (fields) or a record (parameters): `sub` */
  K_FN,     /* a function pointer (skn_api) */
  K_HANDLE, /* a parameter: `handle` is its kind */
  K_OUT     /* the final out-parameter: `handle` (a kind) or `scalar` */
} type_kind;

enum { H_NONE = 0, H_RIG, H_POSE, H_GLTF };

typedef struct field {
  char name[NAME_MAX_];
  type_kind kind;
  int elem;     /* K_ARRAY: skn_ffi_elem; a fixed array (f32[3]): its scalar kind */
  int count;    /* T[N]: N; else 1 */
  int sub;      /* K_STRUCT: the struct's index */
  size_t offset, size;
} field;

typedef struct struct_desc {
  char name[NAME_MAX_];
  field fields[MAX_FIELDS];
  int nfields;
  ffi_type type;
  ffi_type *elements[MAX_FIELDS * 4 + 1]; /* arrays as repeated elements: libffi has no array type */
} struct_desc;

typedef struct param {
  char name[NAME_MAX_];
  type_kind kind;
  int elem, sub, handle; /* as field; handle: H_* for K_HANDLE and K_OUT of a handle */
  type_kind scalar;      /* K_OUT of a value: K_U32 or K_SIZE */
} param;

typedef struct function_desc {
  char name[NAME_MAX_];
  type_kind ret;
  param params[MAX_PARAMS];
  int nparams;
  int api_field;     /* its field in skn_api, or -1 (skn_get_api, found by dlsym) */
  void (*address)(void);
  ffi_cif cif;
  ffi_type *args[MAX_PARAMS];
} function_desc;

typedef struct constant {
  char group[NAME_MAX_]; /* the enum's name, "-" for flags, "#define" for a const */
  char name[64];
  uint64_t value;
} constant;

typedef struct handle_slot {
  int kind;            /* H_*, H_NONE when free */
  void *ptr;
  uint32_t generation; /* bumped when freed: a stale handle names a freed slot */
  uint32_t rig;        /* a pose: its rig's slot */
  uint32_t poses;      /* a rig: its live poses */
} handle_slot;

/* A handle: the instance that made it, its slot's generation and the slot
 * (+ 1, so that 0 is none), so that a handle is recognised as stale, or as
 * another instance's, and never used as this one's. */
#define HANDLE_SLOT_BITS 20u  /* a million live handles an instance */
#define HANDLE_GENERATION_BITS 20u
#define HANDLE_INSTANCE_BITS 24u
#define HANDLE_FIELD(h, shift, bits) ((uint32_t)((h) >> (shift)) & ((1u << (bits)) - 1u))

struct skn_ffi {
  void *library;
  const unsigned char *api; /* the skn_api table */
  uint32_t api_size;
  struct_desc structs[MAX_STRUCTS];
  int nstructs;
  function_desc functions[MAX_FUNCTIONS];
  int nfunctions;
  constant constants[MAX_CONSTANTS];
  int nconstants;
  handle_slot *slots;
  uint32_t nslots, cap;
  uint32_t instance;  /* this instance's number in its handles (HANDLE_INSTANCE_BITS, never 0) */
  struct skn_ffi_record *records; /* live records, detached at close */
  struct { uint32_t invalid, no_memory, unsupported; } status; /* from the description's skn_status */
  char message[512];  /* the adapter's own last refusal, where the library cannot hold it */
  int own_message;
};

/* A reference from a record's pointer field to the caller's array. */
typedef struct array_ref {
  size_t offset; /* of the pointer field in the record */
  skn_ffi_value value;
} array_ref;

struct skn_ffi_record {
  skn_ffi *f;          /* NULL once its instance is closed: set, get and calls refuse it */
  struct skn_ffi_record *prev, *next; /* f->records */
  int s;               /* its struct */
  unsigned char *mem;  /* the struct's bytes, as C lays it out (libffi's offsets) */
  array_ref refs[MAX_FIELDS];
  int nrefs;
};

extern const char skn_ffi__schema[];

/* types.c */
int skn_ffi__read_schema(skn_ffi *f, const char *text, char *error, size_t error_bytes);
int skn_ffi__struct(const skn_ffi *f, const char *name);
const function_desc *skn_ffi__function(const skn_ffi *f, const char *name);
/* A dotted field path ("positions.stride") resolved to its leaf and absolute offset. */
const field *skn_ffi__field(const skn_ffi *f, int s, const char *path, size_t *offset);

/* record.c */
const skn_ffi_value *skn_ffi__record_array(const skn_ffi_record *r, const char *path);
uint64_t skn_ffi__record_uint(const skn_ffi_record *r, const char *path);
size_t skn_ffi__elem_size(int elem);
void skn_ffi__records_detach(skn_ffi *f); /* at close: its records refuse use from then on */

/* call.c */
int skn_ffi__fail(skn_ffi *f, int status, const char *format, ...);
int skn_ffi__status_call(skn_ffi *f, const char *name, void **args); /* a described call, unchecked */
void *skn_ffi__pointer(skn_ffi *f, skn_ffi_handle h, int kind);

/* checks.c: the lengths each call reads and writes, against its counts. */
int skn_ffi__check_lengths(skn_ffi *f, const function_desc *fn, const skn_ffi_value *args);

#endif
