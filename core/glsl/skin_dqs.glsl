//! compute
// The compute shader's main() makes the vertex's blend first (skin_lbs.glsl says why).
void skn_prepare() { skn_dq_blend(); }
//! position
// The skinned position of the vertex whose rest position is rest_position.
vec3 skn_skin_position(vec3 rest_position) {
  return skn_unbound() ? rest_position : skn_dqs_position(skn_dq_blend(), rest_position);
}
//! normal
// Its skinned normal, unit length (the rest normal need not be).
vec3 skn_skin_normal(vec3 rest_normal) {
  return skn_unbound() ? skn_normalized(rest_normal) : skn_dqs_normal(skn_dq_blend(), rest_normal);
}
//! tangent
// Its skinned tangent: xyz unit length, w the rest w, negated where the
// skinning mirrors.
vec4 skn_skin_tangent(vec4 rest_tangent) {
  if (skn_unbound()) return vec4(skn_normalized(rest_tangent.xyz), rest_tangent.w);
  return skn_dqs_tangent(skn_dq_blend(), rest_tangent);
}
