//! common
// Linear blend skinning, matrix form (Magnenat-Thalmann et al. 1988; skn.h,
// SKN_METHOD_LBS_MATRIX): A = sum_i w_i M_i with M_i's rows (its upper 3x4)
// at joint texels SKN_LBS_TEXEL + 0, 1, 2; v = A (v0, 1). With normals, in
// the same walk over the influences, B = sum_i w_i N_i, N_i the
// inverse-transpose of M_i's 3x3 (its rows at joint texels SKN_NORMAL_TEXEL
// + 0, 1, 2); n = normalize(B n0). The blend is made once a vertex,
// whichever skn_skin_* function asks first (as skn_dq_blend): the
// influences' and the palette's reads are most of a vertex's time.
struct SknLbs {
  vec4 a0, a1, a2;  // A's rows
  vec3 b0, b1, b2;  // B's rows
};

SknLbs skn_lbs;
bool skn_lbs_done = false;

SknLbs skn_lbs_blend() {
  if (skn_lbs_done) return skn_lbs;
  SknLbs c = SknLbs(vec4(0.0), vec4(0.0), vec4(0.0), vec3(0.0), vec3(0.0), vec3(0.0));
  for (int s = skn_first; s < skn_end; ++s) {
    int j = skn_joint(s);
    float w = skn_weight(s);
    c.a0 += w * skn_texel(j, SKN_LBS_TEXEL);
    c.a1 += w * skn_texel(j, SKN_LBS_TEXEL + 1);
    c.a2 += w * skn_texel(j, SKN_LBS_TEXEL + 2);
//! normal
    c.b0 += w * skn_texel(j, SKN_NORMAL_TEXEL).xyz;
    c.b1 += w * skn_texel(j, SKN_NORMAL_TEXEL + 1).xyz;
    c.b2 += w * skn_texel(j, SKN_NORMAL_TEXEL + 2).xyz;
//! common
  }
  skn_lbs = c;
  skn_lbs_done = true;
  return c;
}

//! compute
void skn_lbs_prepare() { skn_lbs_blend(); }
//! common

vec3 skn_lbs_position(vec3 p0) {
  SknLbs c = skn_lbs_blend();
  vec4 p = vec4(p0, 1.0);
  return vec3(dot(c.a0, p), dot(c.a1, p), dot(c.a2, p));
}
//! normal

vec3 skn_lbs_normal(vec3 n0) {
  SknLbs c = skn_lbs_blend();
  return skn_normalized(vec3(dot(c.b0, n0), dot(c.b1, n0), dot(c.b2, n0)));
}
//! tangent

// t.xyz = normalize(A t0.xyz); w negated where A mirrors (det A < 0).
vec4 skn_lbs_tangent(vec4 t0) {
  SknLbs c = skn_lbs_blend();
  vec3 t = vec3(dot(c.a0.xyz, t0.xyz), dot(c.a1.xyz, t0.xyz), dot(c.a2.xyz, t0.xyz));
  return vec4(skn_normalized(t), skn_det3(c.a0.xyz, c.a1.xyz, c.a2.xyz) < 0.0 ? -t0.w : t0.w);
}
