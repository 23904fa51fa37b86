/* gpu.h — what gpu.c (the desc, the palette, the attributes) and glsl.c
 * (the text) share: a skn_gpu_desc resolved into where each part of a
 * joint's palette lies. */
#ifndef SKN_GPU_H
#define SKN_GPU_H

#include "internal.h"

#define SKN_GPU_DESC_V1_SIZE 36u   /* the first release's skn_gpu_desc (1.1) */
#define SKN_GPU_ATTRIBUTES_V1_SIZE 128u
#define SKN_GPU_LAYOUT_V1_SIZE 12u
#define SKN_GPU_VERTEX_INFLUENCES 16u /* the most a vertex the vertex shader reads (4 vertex inputs of 4) */
SKN_PIN(gpu_desc, offsetof(skn_gpu_desc, morph_target_count) == SKN_GPU_DESC_V1_SIZE);
SKN_PIN(gpu_attributes, offsetof(skn_gpu_attributes, morph_ranges) == SKN_GPU_ATTRIBUTES_V1_SIZE);

/* A desc with its defaults filled in, and its palette's layout: per joint
 * `vec4s` texels, the parts at these texels (-1 where the method has none):
 *   dq     rigid_i's real and dual parts, then S_i's three rows (5 texels)
 *   lbs    M_i's three rows (its upper 3x4)
 *   normal N_i's three rows, padded with 0 (LBS-served normals)
 *   quat   q_i, then (t_i, s_i): LBS_QUATERNION's M_i = [s_i R(q_i) | t_i] */
typedef struct skn_gpu_plan {
  skn_gpu_desc d;
  uint32_t vec4s;
  int dq, lbs, normal, quat;
  /* the compute shader's records (SKN_GLSL_COMPUTE), in floats: a vertex's
   * rest record and where its parts start, and its output record; -1 where
   * a record has no such part */
  int compute;
  uint32_t rest_floats, out_floats;
  int rest_normal, rest_tangent, rest_blend, rest_center;
  int out_normal, out_tangent, out_previous;
  /* a morph entry (the vertex, then offsets) and a scratch record (a
   * stamp, then sums), in words: the position's at 1, the normal's and
   * tangent's where the outputs ask them (-1 else) */
  uint32_t morph_words;
  int morph_normal, morph_tangent;
  /* the vertex shader's morph weights (SKN_GLSL_MORPHS): vec4s after the
   * joints' in the palette, at texel joint_count * vec4s */
  uint32_t morph_vec4s;
} skn_gpu_plan;

/* Validates desc for `call` (the whole first release's struct; the fields
 * past its struct_size are zero) and lays out its palette. The uniform
 * block's joint_count is the text's business: checked by glsl.c. */
skn_status skn__gpu_plan(const skn_gpu_desc *desc, const char *call, skn_gpu_plan *plan);

/* skin.c: LBS_QUATERNION's check that every joint a vertex uses is a
 * rotation and uniform scale (its forms derived). */
skn_status skn__check_similar(const skn_rig *rig, const skn_pose *pose);

#endif
