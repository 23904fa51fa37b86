// The palette: a std140 uniform block, SKN_PALETTE_VEC4S vec4 a joint; joint
// j's texel r is skn_palette[j * SKN_PALETTE_VEC4S + r], at byte 16 times
// that: skn_pose_gpu_palette's bytes as they are. GLSL 3.30 and ES 3.00 give a
// block no binding in the text; the host attaches it:
//   glUniformBlockBinding(program, glGetUniformBlockIndex(program, "SknPalette"), binding);
//   glBindBufferRange(GL_UNIFORM_BUFFER, binding, buffer, 0, bytes);
layout(std140) uniform SknPalette {
  vec4 skn_palette[SKN_PALETTE_JOINTS * SKN_PALETTE_VEC4S + SKN_MORPH_VEC4S];  // morph weights last
};

vec4 skn_texel(int joint, int row) { return skn_palette[joint * SKN_PALETTE_VEC4S + row]; }
