/* api.c — the ABI's shared mechanics: the function table for hosts that
 * dlopen() libskn (one dlsym("skn_get_api") gives every call, in abi/skn.h's
 * order), and the struct_size rule of the *_info calls. */
#include "internal.h"

#include <string.h>

skn_status skn__fill_info(void *out, const void *info, size_t size, size_t v1_size, const char *call) {
  uint32_t want;
  memcpy(&want, out, sizeof want);
  if (want < v1_size)
    return skn__fail(SKN_ERR_INVALID_ARGUMENT, "%s: struct_size %u is smaller than %zu", call, want, v1_size);
  memcpy(out, info, SKN_MIN((size_t)want, size));
  memcpy(out, &want, sizeof want); /* the caller's struct_size stays theirs */
  return SKN_OK;
}

static const skn_api api_v1 = {
    sizeof(skn_api),   SKN_VERSION_NUMBER, skn_version,      skn_version_string,
    skn_status_name,   skn_last_error,     skn_bind,         skn_rig_destroy,
    skn_rig_info_get,  skn_pose_create,    skn_pose_destroy, skn_pose_set_local,
    skn_pose_set_model, skn_pose_palette,  skn_skin,
    /* glTF (section 5 of skn.h) */
    skn_gltf_open, skn_gltf_close, skn_gltf_info_get, skn_gltf_primitive_info_get, skn_gltf_animation_info_get,
    skn_gltf_find_animation, skn_gltf_triangles, skn_gltf_bind, skn_gltf_pose,
    /* kernels */
    skn_set_simd, skn_get_simd,
    /* 1.1: errors, GPU skinning (section 6) */
    skn_set_error, skn_glsl_source, skn_gpu_layout_get, skn_pose_gpu_palette, skn_rig_gpu_attributes,
    skn_set_allocator, skn_gltf_open_memory,
    /* 1.2: morph targets */
    skn_pose_set_morph_weights, skn_pose_morph_weights, skn_gltf_morph_target_name,
    /* 1.3: which files a document may read */
    skn_gltf_open_with,
    /* 1.4: the compute shader's buffers */
    skn_rig_gpu_buffers,
    /* 1.5: weights */
    skn_compute_weights, skn_gltf_compute_weights,
};

SKN_API const skn_api *skn_get_api(uint32_t abi_major) {
  return abi_major == SKN_VERSION_MAJOR ? &api_v1 : 0;
}
