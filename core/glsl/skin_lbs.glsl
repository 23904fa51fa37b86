//! common
// Both forms of LBS: skn_lbs_position(), skn_lbs_normal() and
// skn_lbs_tangent() are the matrix form's (lbs.glsl) or the per-bone form's
// (lbs_quaternion.glsl), whichever the text holds.
//! compute
// The compute shader's main() makes the vertex's blend first, unconditionally,
// so that the skn_skin_* calls after it find it made (a blend made only where
// a call happens to come first costs llvmpipe up to twice the time).
void skn_prepare() { skn_lbs_prepare(); }
//! position
// The skinned position of the vertex whose rest position is rest_position.
vec3 skn_skin_position(vec3 rest_position) {
  return skn_unbound() ? rest_position : skn_lbs_position(rest_position);
}
//! normal
// Its skinned normal, unit length (the rest normal need not be).
vec3 skn_skin_normal(vec3 rest_normal) {
  return skn_unbound() ? skn_normalized(rest_normal) : skn_lbs_normal(rest_normal);
}
//! tangent
// Its skinned tangent: xyz unit length, w the rest w, negated where the
// skinning mirrors.
vec4 skn_skin_tangent(vec4 rest_tangent) {
  if (skn_unbound()) return vec4(skn_normalized(rest_tangent.xyz), rest_tangent.w);
  return skn_lbs_tangent(rest_tangent);
}
