//! common
// Linear blend skinning, per-bone form (skn.h, SKN_METHOD_LBS_QUATERNION):
// M_i = [s_i R(q_i) | t_i], the rotation q_i at joint texel 0 and (t_i, s_i)
// at texel 1;  v = sum_i w_i (s_i R(q_i) v0 + t_i).
//! compute
void skn_lbs_prepare() {}  // nothing is shared between its calls
//! common
vec3 skn_lbs_position(vec3 p0) {
  vec3 p = vec3(0.0);
  for (int s = skn_first; s < skn_end; ++s) {
    int j = skn_joint(s);
    vec4 ts = skn_texel(j, 1);
    p += skn_weight(s) * (ts.w * skn_rotate(skn_texel(j, 0), p0) + ts.xyz);
  }
  return p;
}
//! normal
// n = normalize(sum_i (w_i / s_i) R(q_i) n0)
vec3 skn_lbs_normal(vec3 n0) {
  vec3 n = vec3(0.0);
  for (int s = skn_first; s < skn_end; ++s) {
    int j = skn_joint(s);
    n += (skn_weight(s) / skn_texel(j, 1).w) * skn_rotate(skn_texel(j, 0), n0);
  }
  return skn_normalized(n);
}
//! tangent
// A = sum_i w_i s_i R(q_i), column by column: t.xyz = normalize(A t0.xyz),
// w negated where det A < 0.
vec4 skn_lbs_tangent(vec4 t0) {
  vec3 c0 = vec3(0.0), c1 = vec3(0.0), c2 = vec3(0.0);
  for (int s = skn_first; s < skn_end; ++s) {
    int j = skn_joint(s);
    vec4 q = skn_texel(j, 0);
    float ws = skn_weight(s) * skn_texel(j, 1).w;
    c0 += ws * skn_rotate(q, vec3(1.0, 0.0, 0.0));
    c1 += ws * skn_rotate(q, vec3(0.0, 1.0, 0.0));
    c2 += ws * skn_rotate(q, vec3(0.0, 0.0, 1.0));
  }
  vec3 t = c0 * t0.x + c1 * t0.y + c2 * t0.z;
  return vec4(skn_normalized(t), skn_det3(c0, c1, c2) < 0.0 ? -t0.w : t0.w);
}
