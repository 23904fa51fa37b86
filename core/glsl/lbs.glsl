//! common
// Linear blend skinning, matrix form (Magnenat-Thalmann et al. 1988; skn.h,
// SKN_METHOD_LBS_MATRIX): A = sum_i w_i M_i with M_i's rows (its upper 3x4)
// at joint texels SKN_LBS_TEXEL + 0, 1, 2; v = A (v0, 1).
void skn_lbs_blend(out vec4 a0, out vec4 a1, out vec4 a2) {
  a0 = vec4(0.0);
  a1 = vec4(0.0);
  a2 = vec4(0.0);
  for (int s = 0; s < SKN_INFLUENCES; ++s) {
    int j = skn_joint(s);
    float w = skn_weight(s);
    a0 += w * skn_texel(j, SKN_LBS_TEXEL);
    a1 += w * skn_texel(j, SKN_LBS_TEXEL + 1);
    a2 += w * skn_texel(j, SKN_LBS_TEXEL + 2);
  }
}

vec3 skn_lbs_position(vec3 p0) {
  vec4 a0, a1, a2;
  skn_lbs_blend(a0, a1, a2);
  vec4 p = vec4(p0, 1.0);
  return vec3(dot(a0, p), dot(a1, p), dot(a2, p));
}
//! normal

// n = normalize(sum_i w_i N_i n0), N_i the inverse-transpose of M_i's 3x3
// (its rows at joint texels SKN_NORMAL_TEXEL + 0, 1, 2).
vec3 skn_lbs_normal(vec3 n0) {
  vec3 b0 = vec3(0.0), b1 = vec3(0.0), b2 = vec3(0.0);
  for (int s = 0; s < SKN_INFLUENCES; ++s) {
    int j = skn_joint(s);
    float w = skn_weight(s);
    b0 += w * skn_texel(j, SKN_NORMAL_TEXEL).xyz;
    b1 += w * skn_texel(j, SKN_NORMAL_TEXEL + 1).xyz;
    b2 += w * skn_texel(j, SKN_NORMAL_TEXEL + 2).xyz;
  }
  return skn_normalized(vec3(dot(b0, n0), dot(b1, n0), dot(b2, n0)));
}
//! tangent

// t.xyz = normalize(A t0.xyz); w negated where A mirrors (det A < 0).
vec4 skn_lbs_tangent(vec4 t0) {
  vec4 a0, a1, a2;
  skn_lbs_blend(a0, a1, a2);
  vec3 t = vec3(dot(a0.xyz, t0.xyz), dot(a1.xyz, t0.xyz), dot(a2.xyz, t0.xyz));
  return vec4(skn_normalized(t), skn_det3(a0.xyz, a1.xyz, a2.xyz) < 0.0 ? -t0.w : t0.w);
}
