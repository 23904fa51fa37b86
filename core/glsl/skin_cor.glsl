//! compute
// The compute shader's main() makes the vertex's blend first (skin_lbs.glsl says why).
void skn_prepare() {
  if (skn_center.w == 0.0) skn_lbs_blend(); else skn_cor_blend();
}
//! position
// The skinned position of the vertex whose rest position is rest_position.
vec3 skn_skin_position(vec3 rest_position) {
  if (skn_unbound()) return rest_position;
  if (skn_center.w == 0.0) return skn_lbs_position(rest_position);
  return skn_cor_position(skn_cor_blend(), rest_position);
}
//! normal
// Its skinned normal, unit length (the rest normal need not be).
vec3 skn_skin_normal(vec3 rest_normal) {
  if (skn_unbound()) return skn_normalized(rest_normal);
  if (skn_center.w == 0.0) return skn_lbs_normal(rest_normal);
  return skn_cor_normal(skn_cor_blend(), rest_normal);
}
//! tangent
// Its skinned tangent: xyz unit length, w the rest w, negated where the
// skinning mirrors.
vec4 skn_skin_tangent(vec4 rest_tangent) {
  if (skn_unbound()) return vec4(skn_normalized(rest_tangent.xyz), rest_tangent.w);
  if (skn_center.w == 0.0) return skn_lbs_tangent(rest_tangent);
  return skn_cor_tangent(skn_cor_blend(), rest_tangent);
}
