//! common
// Optimized centers of rotation (Le & Hodgins 2016; skn.h, SKN_METHOD_COR).
// The vertex's center p* is skn_center.xyz (w = 0: no similar triangle, and
// LBS serves the vertex); with DQS's rotations and S_i and LBS's M_i rows:
//   q = normalize(sum +-w_i real_i), R = R(q)     (antipodality as DQS)
//   S = sum w_i S_i / sum w_i                     (S_i's 3x3)
//   v = R S (v0 - p*) + sum w_i M_i p* / sum w_i
//   n = normalize(R S^-T n0),  t = normalize(R S t0)
//! vertex
in vec4 skn_center;
//! compute
vec4 skn_center;  // from the rest record, set by main()
//! common

struct SknCor {
  vec4 q;
  vec3 s0, s1, s2;  // S's rows
  vec3 center;      // the center, skinned by LBS
};

SknCor skn_cor;  // the blend, made once a vertex (as skn_dq_blend)
bool skn_cor_done = false;

SknCor skn_cor_blend() {
  if (skn_cor_done) return skn_cor;
  SknCor c = SknCor(vec4(0.0), vec3(0.0), vec3(0.0), vec3(0.0), vec3(0.0));
  vec4 pc = vec4(skn_center.xyz, 1.0);
  float wsum = 0.0;
  for (int s = skn_first; s < skn_end; ++s) {
    int j = skn_joint(s);
    float w = skn_weight(s);
    vec4 real = skn_texel(j, SKN_DQ_TEXEL);
    c.q += (dot(c.q, real) < 0.0 ? -w : w) * real;
    c.s0 += w * skn_texel(j, SKN_DQ_TEXEL + 2).xyz;
    c.s1 += w * skn_texel(j, SKN_DQ_TEXEL + 3).xyz;
    c.s2 += w * skn_texel(j, SKN_DQ_TEXEL + 4).xyz;
    c.center += w * vec3(dot(skn_texel(j, SKN_LBS_TEXEL), pc), dot(skn_texel(j, SKN_LBS_TEXEL + 1), pc),
                         dot(skn_texel(j, SKN_LBS_TEXEL + 2), pc));
    wsum += w;
  }
  c.q *= inversesqrt(dot(c.q, c.q));
  c.s0 /= wsum;
  c.s1 /= wsum;
  c.s2 /= wsum;
  c.center /= wsum;
  skn_cor = c;
  skn_cor_done = true;
  return c;
}

vec3 skn_cor_position(SknCor c, vec3 p0) {
  vec3 d = p0 - skn_center.xyz;
  return skn_rotate(c.q, vec3(dot(c.s0, d), dot(c.s1, d), dot(c.s2, d))) + c.center;
}
//! normal

vec3 skn_cor_normal(SknCor c, vec3 n0) {
  return skn_normalized(skn_rotate(c.q, skn_normal_transform(c.s0, c.s1, c.s2, n0)));
}
//! tangent

vec4 skn_cor_tangent(SknCor c, vec4 t0) {
  vec3 x = vec3(dot(c.s0, t0.xyz), dot(c.s1, t0.xyz), dot(c.s2, t0.xyz));
  return vec4(skn_normalized(skn_rotate(c.q, x)), skn_det3(c.s0, c.s1, c.s2) < 0.0 ? -t0.w : t0.w);
}
