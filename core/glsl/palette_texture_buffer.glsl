// The palette: a texture buffer of GL_RGBA32F texels, SKN_PALETTE_VEC4S a
// joint; joint j's texel r is texel j * SKN_PALETTE_VEC4S + r, over
// skn_pose_gpu_palette's bytes as they are. The host attaches it:
//   glTexBuffer(GL_TEXTURE_BUFFER, GL_RGBA32F, buffer) on texture unit u,
//   glUniform1i(glGetUniformLocation(program, "skn_palette"), u);
uniform highp samplerBuffer skn_palette;

vec4 skn_texel(int joint, int row) { return texelFetch(skn_palette, joint * SKN_PALETTE_VEC4S + row); }
