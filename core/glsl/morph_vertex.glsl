//! common
// Morph targets in the vertex shader (SKN_GLSL_MORPHS; glTF 2.0 §3.7.2.2):
//   v0' = v0 + sum_t w_t dv_t,  n0' = n0 + sum_t w_t dn_t,  t0'.xyz = t0.xyz + sum_t w_t dt_t
// then the method on v0', n0', t0', as skn_skin. The vertex's entries are
// skn_morph_range.y words-records from record skn_morph_range.x of the R32UI
// texture skn_morph_entries (one word a texel, in rows: skn_rig_gpu_buffers'
// morph_entries, vertex by vertex), SKN_MORPH_WORDS words a record: the
// target, then its position offset and its normal's and tangent's where the
// text has them (SKN_MORPH_NORMAL, SKN_MORPH_TANGENT); the pose's weights
// follow the joints in the palette (texel SKN_MORPH_WEIGHTS_TEXEL, four a
// texel). The work is the vertex's own entries; the sum is made once a
// vertex, whichever skn_skin_* function asks first. The host attaches the
// texture (GL_TEXTURE_MIN_FILTER GL_NEAREST) on texture unit u:
//   glUniform1i(glGetUniformLocation(program, "skn_morph_entries"), u);
in uvec2 skn_morph_range;
uniform highp usampler2D skn_morph_entries;

uint skn_morph_word(uint i) {
  uint width = uint(textureSize(skn_morph_entries, 0).x);
  return texelFetch(skn_morph_entries, ivec2(int(i % width), int(i / width)), 0).x;
}

vec3 skn_morph_vec3(uint i) {
  return vec3(uintBitsToFloat(skn_morph_word(i)), uintBitsToFloat(skn_morph_word(i + 1u)),
              uintBitsToFloat(skn_morph_word(i + 2u)));
}

float skn_morph_weight(uint target) {
  return skn_texel(0, SKN_MORPH_WEIGHTS_TEXEL + int(target / 4u))[target % 4u];
}

struct SknMorph {
  vec3 p, n, t;  // the summed offsets
};

SknMorph skn_morph;
bool skn_morph_done = false;

SknMorph skn_morph_sum() {
  if (skn_morph_done) return skn_morph;
  SknMorph m = SknMorph(vec3(0.0), vec3(0.0), vec3(0.0));
  for (uint e = skn_morph_range.x; e < skn_morph_range.x + skn_morph_range.y; ++e) {
    uint at = e * uint(SKN_MORPH_WORDS);
    float w = skn_morph_weight(skn_morph_word(at));
    if (w == 0.0) continue;  // an inactive target costs its entry's first word
    m.p += w * skn_morph_vec3(at + 1u);
//! normal
    m.n += w * skn_morph_vec3(at + uint(SKN_MORPH_NORMAL));
//! tangent
    m.t += w * skn_morph_vec3(at + uint(SKN_MORPH_TANGENT));
//! common
  }
  skn_morph = m;
  skn_morph_done = true;
  return m;
}

// skn_skin_*: the method's functions (renamed *_at_rest above) on the
// morphed rest attributes.
#undef skn_skin_position
#undef skn_skin_normal
#undef skn_skin_tangent
//! position
vec3 skn_skin_position(vec3 rest_position) { return skn_skin_position_at_rest(rest_position + skn_morph_sum().p); }
//! normal
vec3 skn_skin_normal(vec3 rest_normal) { return skn_skin_normal_at_rest(rest_normal + skn_morph_sum().n); }
//! tangent
vec4 skn_skin_tangent(vec4 rest_tangent) {
  return skn_skin_tangent_at_rest(vec4(rest_tangent.xyz + skn_morph_sum().t, rest_tangent.w));
}
