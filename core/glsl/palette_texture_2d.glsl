// The palette: a GL_RGBA32F 2D texture of any width, SKN_PALETTE_VEC4S texels
// a joint; texel i = j * SKN_PALETTE_VEC4S + r of joint j lies at
// (i % width, i / width): skn_pose_gpu_palette's bytes cut into rows. It is
// read texel by texel, so GL_TEXTURE_MIN_FILTER must be GL_NEAREST (a float
// texture with mipmap filtering and no mipmaps is incomplete). The host
// attaches it on texture unit u:
//   glUniform1i(glGetUniformLocation(program, "skn_palette"), u);
uniform highp sampler2D skn_palette;

vec4 skn_texel(int joint, int row) {
  int i = joint * SKN_PALETTE_VEC4S + row;
  int width = textureSize(skn_palette, 0).x;
  return texelFetch(skn_palette, ivec2(i % width, i / width), 0);
}
