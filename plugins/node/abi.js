'use strict';
// abi.js — abi/skn.h in koffi's declarations: the structs, the enums' values,
// and each call's prototype. Nothing here is friendly; index.js is. The
// package's tests compare every struct's size and field offsets, every
// enum constant and every prototype with build/abi/layouts.txt (the header
// as the C compiler lays it out), so a field added to skn.h and not here
// fails `make check`.
const koffi = require('koffi');

const ABI_MAJOR = 1; // the SKN_VERSION_MAJOR this package was written for

const STATUS_NAMES = [
  'SKN_OK', 'SKN_ERR_INVALID_ARGUMENT', 'SKN_ERR_OUT_OF_MEMORY', 'SKN_ERR_INDEX_OUT_OF_RANGE',
  'SKN_ERR_BAD_HIERARCHY', 'SKN_ERR_NOT_FINITE', 'SKN_ERR_BAD_WEIGHTS', 'SKN_ERR_SINGULAR',
  'SKN_ERR_UNSUPPORTED', 'SKN_ERR_IO', 'SKN_ERR_PARSE',
];
// Each enum by its C name, with the package's spelling of each constant.
const ENUMS = {
  skn_method: { lbs: 0, 'lbs-quat': 1, dqs: 2, blend: 3, cor: 4 },
  skn_dqs_scale: { polar: 0, 'keep-y': 1 },
  skn_weight_mode: { normalize: 0, 'as-given': 1, 'require-unit': 2 },
  skn_bind_layout: { full: 0, compact: 1 },
  skn_stores: { auto: 0, cached: 1, streaming: 2 },
  skn_palette_format: { mat4: 0, rows3x4: 1, 'normal-rows3x4': 2, 'dual-quat': 3, 'dual-quat-scale': 4,
    'dual-quat-scale-keep-y': 5 },
  skn_simd: { auto: 0, scalar: 1, portable: 2, avx2: 3, avx512: 4 },
  skn_glsl_dialect: { '330': 0, '300 es': 1, '430': 2, '310 es': 3 },
  skn_glsl_palette: { 'uniform-block': 0, 'texture-buffer': 1, 'texture-2d': 2, 'storage-buffer': 3 },
  skn_weights_method: { heat: 0, closest: 1 },
};
const PALETTE_FLOATS = [16, 12, 12, 8, 20, 20]; // per joint, by skn_palette_format
const CONSTANTS = {
  SKN_RIG_HAS_NORMALS: 1, SKN_RIG_HAS_TANGENTS: 2, SKN_RIG_HAS_BLEND_WEIGHTS: 4,
  SKN_RIG_HAS_CENTERS_OF_ROTATION: 8, SKN_RIG_COMPACT: 16, SKN_GLTF_HAS_NORMALS: 1, SKN_GLTF_HAS_TANGENTS: 2,
  SKN_GPU_NORMALS: 1, SKN_GPU_TANGENTS: 2, SKN_GLSL_NO_VERSION: 1, SKN_GPU_NEEDS_BLEND_WEIGHTS: 1,
  SKN_GPU_NEEDS_CENTERS: 2, SKN_GLTF_NO_ANIMATION: 0xFFFFFFFF, SKN_VERSION_MAJOR: ABI_MAJOR,
  SKN_GLTF_OPEN_ANY_PATH: 1, SKN_GLSL_COMPUTE: 2, SKN_GLSL_MORPHS: 4, SKN_GLSL_PREVIOUS: 8, SKN_GLSL_MORPH_PASS: 16,
  SKN_GLSL_VAT_PLAYER: 32,
  SKN_GPU_ABSENT: 0xFFFFFFFF, SKN_WEIGHTS_WELD: 1, SKN_WEIGHTS_NON_MANIFOLD: 2, SKN_WEIGHTS_AS_BLENDER: 4,
};
// What the package leaves out of the header, and why.
const LEFT_OUT = {
  skn_allocator: "a host's allocator is native code; JavaScript's memory is V8's",
  skn_set_allocator: 'as skn_allocator',
  skn_api: 'koffi finds each call by its name; the table is for C hosts that dlopen',
  skn_get_api: 'as skn_api',
  SKN_VERSION_MINOR: 'the package checks the major only (a minor adds, never changes)',
  SKN_VERSION_PATCH: 'as SKN_VERSION_MINOR',
};

const u32 = 'uint32_t';
koffi.opaque('skn_rig');
koffi.opaque('skn_pose');
koffi.opaque('skn_gltf');
const STRUCTS = {
  skn_attrib: koffi.struct('skn_attrib', { data: 'const void *', stride: u32 }),
  skn_out_attrib: koffi.struct('skn_out_attrib', { data: 'void *', stride: u32 }),
  skn_transform: koffi.struct('skn_transform', { translation: 'float[3]', rotation: 'float[4]', scale: 'float[3]' }),
  skn_morph_target: koffi.struct('skn_morph_target', {
    count: u32, vertices: 'const uint32_t *', positions: 'skn_attrib', normals: 'skn_attrib', tangents: 'skn_attrib',
  }),
  skn_bind_desc: koffi.struct('skn_bind_desc', {
    struct_size: u32, joint_count: u32, parents: 'const int32_t *', inverse_bind_matrices: 'const float *',
    bind_matrices: 'const float *', rest_local: 'const skn_transform *', vertex_count: u32,
    positions: 'skn_attrib', normals: 'skn_attrib', tangents: 'skn_attrib', influences_per_vertex: u32,
    influence_offsets: 'const uint32_t *', influence_joints: 'const uint32_t *', influence_weights: 'const float *',
    weight_mode: u32, max_influences: u32, min_weight: 'float', blend_weights: 'const float *',
    triangles: 'const uint32_t *', triangle_count: u32, layout: u32,
    morph_targets: 'const skn_morph_target *', morph_weights: 'const float *', morph_target_count: u32,
  }),
  skn_rig_info: koffi.struct('skn_rig_info', {
    struct_size: u32, joint_count: u32, vertex_count: u32, influence_count: u32, max_influences_per_vertex: u32,
    flags: u32, morph_target_count: u32, morph_entry_count: u32,
  }),
  skn_skin_desc: koffi.struct('skn_skin_desc', {
    struct_size: u32, method: u32, first_vertex: u32, vertex_count: u32, positions: 'skn_out_attrib',
    normals: 'skn_out_attrib', tangents: 'skn_out_attrib', threads: u32, dqs_scale: u32, stores: u32,
  }),
  skn_gltf_info: koffi.struct('skn_gltf_info', {
    struct_size: u32, primitive_count: u32, skin_count: u32, animation_count: u32, node_count: u32, mesh_count: u32,
  }),
  skn_gltf_primitive_info: koffi.struct('skn_gltf_primitive_info', {
    struct_size: u32, mesh: u32, primitive_in_mesh: u32, node: u32, skin: u32, vertex_count: u32,
    triangle_count: u32, joint_count: u32, influences_per_vertex: u32, flags: u32, mesh_name: 'const char *',
    node_name: 'const char *', morph_target_count: u32,
  }),
  skn_gltf_animation_info: koffi.struct('skn_gltf_animation_info', {
    struct_size: u32, channel_count: u32, start: 'float', end: 'float', name: 'const char *',
  }),
  skn_gltf_bind_desc: koffi.struct('skn_gltf_bind_desc', {
    struct_size: u32, primitive: u32, centers_of_rotation: u32, max_influences: u32, min_weight: 'float',
    blend_weights: 'const float *', layout: u32, max_bytes: 'uint64_t',
  }),
  skn_gltf_open_desc: koffi.struct('skn_gltf_open_desc', {
    struct_size: u32, path: 'const char *', data: 'const void *', size: 'size_t', folder: 'const char *', flags: u32,
  }),
  skn_gpu_desc: koffi.struct('skn_gpu_desc', {
    struct_size: u32, method: u32, dqs_scale: u32, influences: u32, outputs: u32, dialect: u32, palette: u32,
    joint_count: u32, flags: u32, morph_target_count: u32,
  }),
  skn_gpu_layout: koffi.struct('skn_gpu_layout', {
    struct_size: u32, palette_vec4s: u32, needs: u32, rest_floats: u32, output_floats: u32, output_normal: u32,
    output_tangent: u32, output_previous: u32, morph_words: u32, morph_vec4s: u32,
  }),
  skn_gpu_attributes: koffi.struct('skn_gpu_attributes', {
    struct_size: u32, influences: u32, joint_bits: u32, joints: 'skn_out_attrib', weights: 'skn_out_attrib',
    blend_weights: 'skn_out_attrib', centers: 'skn_out_attrib', positions: 'skn_out_attrib',
    normals: 'skn_out_attrib', tangents: 'skn_out_attrib', morph_ranges: 'skn_out_attrib',
  }),
  skn_gpu_buffers: koffi.struct('skn_gpu_buffers', {
    struct_size: u32, rest: 'void *', influences: 'uint32_t *', morph_entries: 'uint32_t *', morph_first: 'uint32_t *',
    rest_bytes: 'size_t', influences_bytes: 'size_t', morph_entries_bytes: 'size_t', morph_first_bytes: 'size_t',
  }),
  skn_weights_desc: koffi.struct('skn_weights_desc', {
    struct_size: u32, method: u32, vertex_count: u32, positions: 'skn_attrib', triangle_count: u32,
    triangles: 'const uint32_t *', bone_count: u32, bone_heads: 'const float *', bone_tails: 'const float *',
    bone_joints: 'const uint32_t *', joint_count: u32, influences_per_vertex: u32, min_weight: 'float', flags: u32,
    threads: u32,
  }),
  skn_gltf_weights_desc: koffi.struct('skn_gltf_weights_desc', {
    struct_size: u32, node: u32, primitive_in_mesh: u32, method: u32, influences_per_vertex: u32, min_weight: 'float',
    flags: u32, threads: u32,
  }),
};

// Prototypes in C's words; enums are passed as their uint32_t.
const PROTOTYPES = [
  'uint32_t skn_version(void)',
  'const char *skn_version_string(void)',
  'const char *skn_status_name(uint32_t status)',
  'const char *skn_last_error(void)',
  'uint32_t skn_set_error(uint32_t status, const char *message)',
  'uint32_t skn_bind(const skn_bind_desc *desc, _Out_ skn_rig **out_rig)',
  'void skn_rig_destroy(skn_rig *rig)',
  'uint32_t skn_rig_info_get(const skn_rig *rig, _Inout_ skn_rig_info *out)',
  'uint32_t skn_pose_create(const skn_rig *rig, _Out_ skn_pose **out_pose)',
  'void skn_pose_destroy(skn_pose *pose)',
  'uint32_t skn_pose_set_local(skn_pose *pose, uint32_t first, uint32_t count, const float *local)',
  'uint32_t skn_pose_set_model(skn_pose *pose, uint32_t first, uint32_t count, const float *joint_to_model16)',
  'uint32_t skn_pose_palette(const skn_pose *pose, uint32_t format, void *dst, size_t dst_bytes)',
  'uint32_t skn_set_simd(uint32_t simd)',
  'uint32_t skn_get_simd(void)',
  'uint32_t skn_skin(const skn_rig *rig, const skn_pose *pose, const skn_skin_desc *desc)',
  'uint32_t skn_gltf_open(const char *path, _Out_ skn_gltf **out)',
  'uint32_t skn_gltf_open_memory(const void *data, size_t size, _Out_ skn_gltf **out)',
  'void skn_gltf_close(skn_gltf *gltf)',
  'uint32_t skn_gltf_info_get(const skn_gltf *gltf, _Inout_ skn_gltf_info *out)',
  'uint32_t skn_gltf_primitive_info_get(const skn_gltf *gltf, uint32_t primitive, _Inout_ skn_gltf_primitive_info *out)',
  'uint32_t skn_gltf_animation_info_get(const skn_gltf *gltf, uint32_t animation, _Inout_ skn_gltf_animation_info *out)',
  'uint32_t skn_gltf_find_animation(const skn_gltf *gltf, const char *name, _Out_ uint32_t *out_index)',
  'uint32_t skn_gltf_triangles(const skn_gltf *gltf, uint32_t primitive, uint32_t *dst, size_t dst_count)',
  'uint32_t skn_gltf_bind(const skn_gltf *gltf, const skn_gltf_bind_desc *desc, _Out_ skn_rig **out_rig)',
  'uint32_t skn_gltf_pose(const skn_gltf *gltf, uint32_t primitive, uint32_t animation, float time, skn_pose *pose)',
  'uint32_t skn_glsl_source(const skn_gpu_desc *desc, void *dst, size_t dst_bytes, _Out_ size_t *out_length)',
  'uint32_t skn_gpu_layout_get(const skn_gpu_desc *desc, _Inout_ skn_gpu_layout *out)',
  'uint32_t skn_pose_gpu_palette(const skn_pose *pose, const skn_gpu_desc *desc, void *dst, size_t dst_bytes)',
  'uint32_t skn_pose_set_morph_weights(skn_pose *pose, uint32_t first, uint32_t count, const float *weights)',
  'uint32_t skn_pose_morph_weights(const skn_pose *pose, uint32_t first, uint32_t count, _Out_ float *out)',
  'uint32_t skn_gltf_morph_target_name(const skn_gltf *gltf, uint32_t primitive, uint32_t target, _Out_ const char **out_name)',
  'uint32_t skn_rig_gpu_attributes(const skn_rig *rig, const skn_gpu_attributes *out)',
  'uint32_t skn_rig_gpu_buffers(const skn_rig *rig, const skn_gpu_desc *desc, _Inout_ skn_gpu_buffers *out)',
  'uint32_t skn_compute_weights(const skn_weights_desc *desc, uint32_t *joints, float *weights)',
  'uint32_t skn_gltf_compute_weights(const skn_gltf *gltf, const skn_gltf_weights_desc *desc, uint32_t *joints, ' +
    'float *weights, size_t capacity, _Out_ uint32_t *out_vertex_count)',
  'uint32_t skn_gltf_open_with(const skn_gltf_open_desc *desc, _Out_ skn_gltf **out)',
];

// The library: $SKN_LIBRARY, beside this package (an installed prefix's
// lib/, or the build tree's build/), then the loader's search path.
function candidates() {
  const path = require('path');
  const fs = require('fs');
  const found = [path.join(__dirname, 'libskn.so.1'), path.join(__dirname, '..', '..', 'build', 'libskn.so.1')];
  return [process.env.SKN_LIBRARY, ...found.filter((p) => fs.existsSync(p)), 'libskn.so.1'].filter(Boolean);
}

function load() {
  const errors = [];
  for (const where of candidates()) {
    let lib;
    try {
      lib = koffi.load(where);
    } catch (e) {
      errors.push(`${where}: ${e.message}`);
      continue;
    }
    const fn = {};
    for (const p of PROTOTYPES) {
      const name = p.match(/(skn_\w+)\(/)[1];
      fn[name] = lib.func(p);
    }
    const number = fn.skn_version();
    if (Math.floor(number / 10000) !== ABI_MAJOR) {
      throw new Error(`skn: ${where} is libskn ${fn.skn_version_string()}, but this package needs ABI ${ABI_MAJOR}.x; ` +
        'install a matching libskn or set SKN_LIBRARY');
    }
    return { fn, where };
  }
  throw new Error(`skn: cannot load libskn.so.1 (set SKN_LIBRARY to its path): ${errors.join('; ')}`);
}

module.exports = { ABI_MAJOR, STATUS_NAMES, ENUMS, PALETTE_FLOATS, CONSTANTS, LEFT_OUT, STRUCTS, PROTOTYPES, load };
