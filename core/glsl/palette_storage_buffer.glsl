// The palettes of every job of a dispatch: a std430 storage buffer of vec4,
// SKN_PALETTE_VEC4S a joint; joint j's texel r of the job whose palette
// starts at texel skn_palette_base is skn_palette[skn_palette_base + j *
// SKN_PALETTE_VEC4S + r]: skn_pose_gpu_palette's bytes as they are, one
// pose's after another. The host binds it:
//   glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, buffer);
layout(std430, binding = 1) readonly buffer SknPalette { vec4 skn_palette[]; };

uint skn_palette_base = 0u;  // the job's, set by main() (0: one pose)

vec4 skn_texel(int joint, int row) { return skn_palette[skn_palette_base + uint(joint * SKN_PALETTE_VEC4S + row)]; }
