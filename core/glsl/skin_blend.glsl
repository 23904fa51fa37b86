//! common
// BLEND (skn.h, SKN_METHOD_BLEND): per vertex (1 - b) LBS + b DQS, b the
// vertex input skn_blend (skn_rig_gpu_attributes' blend_weights), computed as
// the CPU does: LBS alone where b = 0, DQS alone where b = 1, normals and
// tangents renormalized, a tangent's w from the method of the larger share.
//! vertex
in float skn_blend;
//! compute
float skn_blend;  // from the rest record, set by main()
// main() makes the vertex's blends first (skin_lbs.glsl says why).
void skn_prepare() {
  if (skn_blend != 1.0) skn_lbs_blend();
  if (skn_blend != 0.0) skn_dq_blend();
}
//! position
// The skinned position of the vertex whose rest position is rest_position.
vec3 skn_skin_position(vec3 rest_position) {
  if (skn_unbound()) return rest_position;
  if (skn_blend == 0.0) return skn_lbs_position(rest_position);
  vec3 d = skn_dqs_position(skn_dq_blend(), rest_position);
  if (skn_blend == 1.0) return d;
  vec3 l = skn_lbs_position(rest_position);
  return l + skn_blend * (d - l);
}
//! normal
// Its skinned normal, unit length (the rest normal need not be).
vec3 skn_skin_normal(vec3 rest_normal) {
  if (skn_unbound()) return skn_normalized(rest_normal);
  if (skn_blend == 0.0) return skn_lbs_normal(rest_normal);
  vec3 d = skn_dqs_normal(skn_dq_blend(), rest_normal);
  if (skn_blend == 1.0) return d;
  vec3 l = skn_lbs_normal(rest_normal);
  return skn_normalized(l + skn_blend * (d - l));
}
//! tangent
// Its skinned tangent: xyz unit length, w the rest w, negated where the
// skinning mirrors.
vec4 skn_skin_tangent(vec4 rest_tangent) {
  if (skn_unbound()) return vec4(skn_normalized(rest_tangent.xyz), rest_tangent.w);
  if (skn_blend == 0.0) return skn_lbs_tangent(rest_tangent);
  vec4 d = skn_dqs_tangent(skn_dq_blend(), rest_tangent);
  if (skn_blend == 1.0) return d;
  vec4 l = skn_lbs_tangent(rest_tangent);
  return vec4(skn_normalized(l.xyz + skn_blend * (d.xyz - l.xyz)), skn_blend >= 0.5 ? d.w : l.w);
}
