//! common
// Vectors and quaternions in the CPU kernels' order of operations
// (core/math/vec3.h), so that both round alike.

// v' = q v q* for a unit quaternion q = (x, y, z, w): v + 2w (q x v) + 2 q x (q x v)
vec3 skn_rotate(vec4 q, vec3 v) {
  vec3 t = 2.0 * cross(q.xyz, v);
  return v + q.w * t + cross(q.xyz, t);
}

// v / |v|, a zero vector left zero (GLSL's normalize() makes it NaN)
vec3 skn_normalized(vec3 v) {
  float len2 = dot(v, v);
  return len2 > 0.0 ? v * inversesqrt(len2) : v;
}
//! normal

// A^-T n up to a positive factor, A the 3x3 of rows r0, r1, r2: the cofactor
// matrix det(A) A^-T with det's sign undone, defined where A is singular too.
vec3 skn_normal_transform(vec3 r0, vec3 r1, vec3 r2, vec3 n) {
  vec3 c0 = cross(r1, r2);
  vec3 m = vec3(dot(c0, n), dot(cross(r2, r0), n), dot(cross(r0, r1), n));
  return dot(r0, c0) < 0.0 ? -m : m;
}
//! tangent

// det of the 3x3 of rows (or columns) r0, r1, r2
float skn_det3(vec3 r0, vec3 r1, vec3 r2) { return dot(r0, cross(r1, r2)); }
