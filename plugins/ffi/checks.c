/* checks.c — what each call reads and writes, held against the arrays it is
 * given: the lengths the header documents next to each count. libffi knows
 * types, not lengths; this is the part of a binding that keeps a short
 * array from becoming a read past its end. A NULL pointer is left to the
 * library, which names what is required. */
#include <stdio.h>
#include <string.h>

#include "internal.h"

static uint64_t bytes_of(const skn_ffi_value *v) {
  return v && v->kind == SKN_FFI_ARRAY ? (uint64_t)v->count * skn_ffi__elem_size(v->elem) : 0;
}

static int short_array(skn_ffi *f, const char *call, const char *what, uint64_t have, uint64_t need) {
  return skn_ffi__fail(f, f->status.invalid, "%s: %s holds %llu bytes, the call reads or writes %llu", call, what,
                       (unsigned long long)have, (unsigned long long)need);
}

/* A record's pointer field: `count` elements of `elem` bytes, where it is set. */
static int field_array(skn_ffi *f, const char *call, const skn_ffi_record *r, const char *path, uint64_t need) {
  const skn_ffi_value *a = skn_ffi__record_array(r, path);
  if (!a || bytes_of(a) >= need) return 0;
  return short_array(f, call, path, bytes_of(a), need);
}

/* An attribute (data + stride) of `vertices` elements of `elem` bytes. */
static int attrib(skn_ffi *f, const char *call, const skn_ffi_record *r, const char *name, uint64_t vertices, uint64_t elem) {
  char data[64], stride_path[64];
  snprintf(data, sizeof data, "%s.data", name);
  snprintf(stride_path, sizeof stride_path, "%s.stride", name);
  uint64_t stride = skn_ffi__record_uint(r, stride_path);
  if (stride < elem) stride = elem; /* 0 is packed; a smaller one the library refuses unread */
  return vertices ? field_array(f, call, r, data, (vertices - 1) * stride + elem) : 0;
}

/* The rig's vertex count, asked of the library through its own record. */
static uint64_t rig_vertices(skn_ffi *f, void *rig) {
  skn_ffi_record *info = skn_ffi_record_new(f, "skn_rig_info");
  if (!info) return 0;
  void *mem = info->mem, *args[] = {&rig, &mem};
  uint64_t v = skn_ffi__status_call(f, "skn_rig_info_get", args) ? 0 : skn_ffi__record_uint(info, "vertex_count");
  skn_ffi_record_free(info);
  return v;
}

static int check_bind(skn_ffi *f, const skn_ffi_value *a) {
  const skn_ffi_record *r = a[0].as.record;
  if (skn_ffi__record_array(r, "morph_targets") || skn_ffi__record_uint(r, "morph_target_count"))
    return skn_ffi__fail(f, f->status.invalid, "bind: morph_targets are not supported through the libffi adapter "
                         "(each target's arrays would go unchecked); bind them through the C ABI");
  const uint64_t j = skn_ffi__record_uint(r, "joint_count"), v = skn_ffi__record_uint(r, "vertex_count");
  int rc;
  if ((rc = field_array(f, "bind", r, "parents", 4 * j)) || (rc = field_array(f, "bind", r, "bind_matrices", 64 * j)) ||
      (rc = field_array(f, "bind", r, "inverse_bind_matrices", 64 * j)) ||
      (rc = field_array(f, "bind", r, "rest_local", 40 * j)) || (rc = attrib(f, "bind", r, "positions", v, 12)) ||
      (rc = attrib(f, "bind", r, "normals", v, 12)) || (rc = attrib(f, "bind", r, "tangents", v, 16)) ||
      (rc = field_array(f, "bind", r, "blend_weights", 4 * v)) ||
      (rc = field_array(f, "bind", r, "triangles", 12 * skn_ffi__record_uint(r, "triangle_count"))) ||
      (rc = field_array(f, "bind", r, "influence_offsets", 4 * (v + 1))))
    return rc;
  const skn_ffi_value *offsets = skn_ffi__record_array(r, "influence_offsets");
  uint64_t n = skn_ffi__record_uint(r, "influences_per_vertex") * v;
  if (offsets) n = ((const uint32_t *)offsets->as.data)[v]; /* its length was just checked */
  if ((rc = field_array(f, "bind", r, "influence_joints", 4 * n))) return rc;
  return field_array(f, "bind", r, "influence_weights", 4 * n);
}

static int check_skin(skn_ffi *f, const skn_ffi_value *a) {
  const skn_ffi_record *d = a[2].as.record;
  const uint64_t v = rig_vertices(f, skn_ffi__pointer(f, a[0].as.handle, H_RIG));
  const uint64_t first = skn_ffi__record_uint(d, "first_vertex"), count = skn_ffi__record_uint(d, "vertex_count");
  uint64_t end = count ? first + count : v;
  if (end > v) end = v; /* a range past the end is refused by the library, unwritten */
  if (first >= end) return 0;
  int rc;
  if ((rc = attrib(f, "skin", d, "positions", end, 12)) || (rc = attrib(f, "skin", d, "normals", end, 12))) return rc;
  return attrib(f, "skin", d, "tangents", end, 16);
}

/* An array argument against a count argument times `unit` bytes. */
static int array_vs_count(skn_ffi *f, const char *call, const skn_ffi_value *array, const skn_ffi_value *count,
                          uint64_t unit, const char *what) {
  uint64_t n = count->kind == SKN_FFI_U32 ? count->as.u32 : count->kind == SKN_FFI_SIZE ? count->as.size
             : count->kind == SKN_FFI_U64 ? count->as.u64 : count->kind == SKN_FFI_I32 ? (uint64_t)count->as.i32 : 0;
  return bytes_of(array) >= n * unit ? 0 : short_array(f, call, what, bytes_of(array), n * unit);
}

static int check_set_local(skn_ffi *f, const skn_ffi_value *a) { return array_vs_count(f, "pose_set_local", &a[3], &a[2], 40, "local"); }
static int check_set_model(skn_ffi *f, const skn_ffi_value *a) { return array_vs_count(f, "pose_set_model", &a[3], &a[2], 64, "joint_to_model16"); }
static int check_set_morph_weights(skn_ffi *f, const skn_ffi_value *a) {
  return array_vs_count(f, "pose_set_morph_weights", &a[3], &a[2], 4, "weights");
}
static int check_morph_weights(skn_ffi *f, const skn_ffi_value *a) {
  return array_vs_count(f, "pose_morph_weights", &a[3], &a[2], 4, "out");
}
static int check_palette(skn_ffi *f, const skn_ffi_value *a) { return array_vs_count(f, "pose_palette", &a[2], &a[3], 1, "dst"); }
static int check_gpu_palette(skn_ffi *f, const skn_ffi_value *a) { return array_vs_count(f, "pose_gpu_palette", &a[2], &a[3], 1, "dst"); }
static int check_glsl(skn_ffi *f, const skn_ffi_value *a) { return array_vs_count(f, "glsl_source", &a[1], &a[2], 1, "dst"); }
static int check_triangles(skn_ffi *f, const skn_ffi_value *a) { return array_vs_count(f, "gltf_triangles", &a[2], &a[3], 4, "dst"); }
static int check_open_memory(skn_ffi *f, const skn_ffi_value *a) { return array_vs_count(f, "gltf_open_memory", &a[0], &a[1], 1, "data"); }

static int check_open_with(skn_ffi *f, const skn_ffi_value *a) {
  const skn_ffi_record *d = a[0].as.record;
  return field_array(f, "gltf_open_with", d, "data", skn_ffi__record_uint(d, "size"));
}

static int check_gltf_bind(skn_ffi *f, const skn_ffi_value *a) {
  const skn_ffi_record *d = a[1].as.record;
  if (!skn_ffi__record_array(d, "blend_weights")) return 0;
  skn_ffi_record *p = skn_ffi_record_new(f, "skn_gltf_primitive_info");
  if (!p) return (int)f->status.no_memory;
  void *gltf = skn_ffi__pointer(f, a[0].as.handle, H_GLTF), *mem = p->mem;
  uint32_t primitive = (uint32_t)skn_ffi__record_uint(d, "primitive");
  void *args[] = {&gltf, &primitive, &mem};
  int rc = 0;
  if (!skn_ffi__status_call(f, "skn_gltf_primitive_info_get", args)) /* else the library names the primitive */
    rc = field_array(f, "gltf_bind", d, "blend_weights", 4 * skn_ffi__record_uint(p, "vertex_count"));
  skn_ffi_record_free(p);
  return rc;
}

static int check_gpu_attributes(skn_ffi *f, const skn_ffi_value *a) {
  const skn_ffi_record *r = a[1].as.record;
  const uint64_t v = rig_vertices(f, skn_ffi__pointer(f, a[0].as.handle, H_RIG));
  uint64_t k = skn_ffi__record_uint(r, "influences"), bits = skn_ffi__record_uint(r, "joint_bits");
  k = k == 8 ? 8 : 4, bits = bits == 8 ? 8 : 16; /* others are refused by the library */
  static const struct { const char *name; uint64_t bytes; } fixed[] = {
      {"blend_weights", 4}, {"centers", 16}, {"positions", 12}, {"normals", 12}, {"tangents", 16}};
  int rc;
  if ((rc = attrib(f, "rig_gpu_attributes", r, "joints", v, k * bits / 8)) ||
      (rc = attrib(f, "rig_gpu_attributes", r, "weights", v, 4 * k)))
    return rc;
  for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; ++i)
    if ((rc = attrib(f, "rig_gpu_attributes", r, fixed[i].name, v, fixed[i].bytes))) return rc;
  return 0;
}

/* A record's struct_size must not claim more than the record holds. */
static int check_records(skn_ffi *f, const function_desc *fn, const skn_ffi_value *args) {
  for (int i = 0; i < fn->nparams && fn->params[i].kind != K_OUT; ++i) {
    if (fn->params[i].kind != K_STRUCT) continue;
    const skn_ffi_record *r = args[i].as.record;
    uint64_t claimed = skn_ffi__record_uint(r, "struct_size"), size = f->structs[r->s].type.size;
    if (claimed > size)
      return skn_ffi__fail(f, f->status.invalid, "%s: %s.struct_size %llu is more than the record's %llu bytes", fn->name + 4,
                           fn->params[i].name, (unsigned long long)claimed, (unsigned long long)size);
  }
  return 0;
}

int skn_ffi__check_lengths(skn_ffi *f, const function_desc *fn, const skn_ffi_value *args) {
  static const struct { const char *name; int (*check)(skn_ffi *, const skn_ffi_value *); } rules[] = {
      {"skn_bind", check_bind}, {"skn_skin", check_skin}, {"skn_pose_set_local", check_set_local},
      {"skn_pose_set_model", check_set_model}, {"skn_pose_set_morph_weights", check_set_morph_weights},
      {"skn_pose_morph_weights", check_morph_weights}, {"skn_pose_palette", check_palette},
      {"skn_pose_gpu_palette", check_gpu_palette}, {"skn_glsl_source", check_glsl},
      {"skn_gltf_triangles", check_triangles}, {"skn_gltf_open_memory", check_open_memory},
      {"skn_gltf_open_with", check_open_with},
      {"skn_gltf_bind", check_gltf_bind}, {"skn_rig_gpu_attributes", check_gpu_attributes}};
  int rc = check_records(f, fn, args);
  for (size_t i = 0; !rc && i < sizeof rules / sizeof rules[0]; ++i)
    if (!strcmp(fn->name, rules[i].name)) rc = rules[i].check(f, args);
  return rc;
}
