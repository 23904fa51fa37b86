/* dqs_portable.c — DQS, BLEND and COR (dqs_simd.h) and LBS_QUATERNION
 * (lbsq_simd.h, which shares their slot transposes) built for the compiler's baseline;
 * the Makefile gives this file its instruction set. LBS's group code
 * (lbs_simd.h) is included for BLEND's and COR's blend of M_i; the LBS
 * kernel itself is lbs_portable.c, and the pose kernels pose_portable.c. */
#define SKN_DQS_KERNEL skn__dqs_portable
#define SKN_BLEND_KERNEL skn__blend_portable
#define SKN_COR_KERNEL skn__cor_portable
#define SKN_LBSQ_KERNEL skn__lbsq_portable
#include "lbs_simd.h"
#include "dqs_simd.h"
#include "lbsq_simd.h"
