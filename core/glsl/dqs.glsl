//! common
// Dual quaternion skinning (Kavan, Collins, Zara, O'Sullivan 2008; skn.h,
// SKN_METHOD_DQS). Each M_i = rigid_i S_i: rigid_i's unit dual quaternion
// (real, dual) at joint texels SKN_DQ_TEXEL + 0, 1, the bind-space
// scale/shear S_i's rows at SKN_DQ_TEXEL + 2, 3, 4. Per vertex:
//   c = sum +-w_i q_i / |sum +-w_i real_i|, q_i negated where its real part
//       turns away from the running sum (Blender's antipodality rule)
//   S = sum w_i S_i / sum w_i
//   v = c (S v0),  n = normalize(R(c) S^-T n0),  t = normalize(R(c) S t0)
// The blend is made once a vertex, whichever skn_skin_* function asks first:
// the palette's reads are most of a vertex's time on a software rasterizer.
struct SknDq {
  vec4 real, dual;  // c
  vec4 s0, s1, s2;  // S's rows
};

SknDq skn_dq;
bool skn_dq_done = false;

SknDq skn_dq_blend() {
  if (skn_dq_done) return skn_dq;
  SknDq c = SknDq(vec4(0.0), vec4(0.0), vec4(0.0), vec4(0.0), vec4(0.0));
  float wsum = 0.0;
  for (int s = skn_first; s < skn_end; ++s) {
    int j = skn_joint(s);
    float w = skn_weight(s);
    vec4 real = skn_texel(j, SKN_DQ_TEXEL);
    float sw = dot(c.real, real) < 0.0 ? -w : w;
    c.real += sw * real;
    c.dual += sw * skn_texel(j, SKN_DQ_TEXEL + 1);
    c.s0 += w * skn_texel(j, SKN_DQ_TEXEL + 2);
    c.s1 += w * skn_texel(j, SKN_DQ_TEXEL + 3);
    c.s2 += w * skn_texel(j, SKN_DQ_TEXEL + 4);
    wsum += w;
  }
  float inv = inversesqrt(dot(c.real, c.real));
  c.real *= inv;
  c.dual *= inv;
  c.s0 /= wsum;
  c.s1 /= wsum;
  c.s2 /= wsum;
  skn_dq = c;
  skn_dq_done = true;
  return c;
}

// The translation of a unit dual quaternion: 2 (dual real*).xyz
vec3 skn_dq_translation(vec4 real, vec4 dual) {
  return 2.0 * (real.w * dual.xyz - dual.w * real.xyz + cross(real.xyz, dual.xyz));
}

vec3 skn_dqs_position(SknDq c, vec3 p0) {
  vec4 p = vec4(p0, 1.0);
  vec3 x = vec3(dot(c.s0, p), dot(c.s1, p), dot(c.s2, p));
  return skn_rotate(c.real, x) + skn_dq_translation(c.real, c.dual);
}
//! normal

vec3 skn_dqs_normal(SknDq c, vec3 n0) {
  return skn_normalized(skn_rotate(c.real, skn_normal_transform(c.s0.xyz, c.s1.xyz, c.s2.xyz, n0)));
}
//! tangent

vec4 skn_dqs_tangent(SknDq c, vec4 t0) {
  vec3 x = vec3(dot(c.s0.xyz, t0.xyz), dot(c.s1.xyz, t0.xyz), dot(c.s2.xyz, t0.xyz));
  float w = skn_det3(c.s0.xyz, c.s1.xyz, c.s2.xyz) < 0.0 ? -t0.w : t0.w;
  return vec4(skn_normalized(skn_rotate(c.real, x)), w);
}
