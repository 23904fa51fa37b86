/* dualquat.h — unit dual quaternions for rigid motions (Kavan, Collins,
 * Žára, O'Sullivan 2008, "Geometric Skinning with Approximate Dual
 * Quaternion Blending", §3): real part q0 is the rotation, dual part
 * qe = 1/2 (t, 0) q0 carries the translation t. Quaternions are {x,y,z,w}. */
#ifndef SKN_MATH_DUALQUAT_H
#define SKN_MATH_DUALQUAT_H

/* The dual part of rotation q0 followed by translation t:
 * qe = 1/2 (t,0) q0 = 1/2 (t q0.w + t x q0.xyz, -t . q0.xyz). */
static inline void skn_dq_dual_part(float qe[4], const float q0[4], const float t[3]) {
  qe[0] = 0.5f * (t[0] * q0[3] + t[1] * q0[2] - t[2] * q0[1]);
  qe[1] = 0.5f * (t[1] * q0[3] + t[2] * q0[0] - t[0] * q0[2]);
  qe[2] = 0.5f * (t[2] * q0[3] + t[0] * q0[1] - t[1] * q0[0]);
  qe[3] = -0.5f * (t[0] * q0[0] + t[1] * q0[1] + t[2] * q0[2]);
}

/* The translation of a unit dual quaternion: t = 2 (qe q0*).xyz
 * = 2 (q0.w qe.xyz - qe.w q0.xyz + q0.xyz x qe.xyz). */
static inline void skn_dq_translation(float t[3], const float q0[4], const float qe[4]) {
  t[0] = 2.0f * (q0[3] * qe[0] - qe[3] * q0[0] + q0[1] * qe[2] - q0[2] * qe[1]);
  t[1] = 2.0f * (q0[3] * qe[1] - qe[3] * q0[1] + q0[2] * qe[0] - q0[0] * qe[2]);
  t[2] = 2.0f * (q0[3] * qe[2] - qe[3] * q0[2] + q0[0] * qe[1] - q0[1] * qe[0]);
}

#endif
