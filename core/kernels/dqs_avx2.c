/* dqs_avx2.c — DQS, BLEND and COR (dqs_simd.h) and LBS_QUATERNION
 * (lbsq_simd.h, which shares their slot transposes) built for AVX2 with FMA;
 * the Makefile gives this file its instruction set. LBS's group code
 * (lbs_simd.h) is included for BLEND's and COR's blend of M_i; the LBS
 * kernel itself is lbs_avx2.c, and the pose kernels pose_avx2.c. */
#define SKN_DQS_KERNEL skn__dqs_avx2
#define SKN_BLEND_KERNEL skn__blend_avx2
#define SKN_COR_KERNEL skn__cor_avx2
#define SKN_LBSQ_KERNEL skn__lbsq_avx2
#include "lbs_simd.h"
#include "dqs_simd.h"
#include "lbsq_simd.h"
