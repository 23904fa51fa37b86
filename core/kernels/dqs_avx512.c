/* dqs_avx512.c — DQS, BLEND and COR (dqs_simd.h) and LBS_QUATERNION
 * (lbsq_simd.h, which shares their slot transposes) built for AVX-512;
 * the Makefile gives this file its instruction set. LBS's group code
 * (lbs_simd.h) is included for BLEND's and COR's blend of M_i; the LBS
 * kernel itself is lbs_avx512.c, and the pose kernels pose_avx512.c. */
#define SKN_DQS_KERNEL skn__dqs_avx512
#define SKN_BLEND_KERNEL skn__blend_avx512
#define SKN_COR_KERNEL skn__cor_avx512
#define SKN_LBSQ_KERNEL skn__lbsq_avx512
#include "lbs_simd.h"
#include "dqs_simd.h"
#include "lbsq_simd.h"
