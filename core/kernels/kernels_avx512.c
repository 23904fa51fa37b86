/* lbs_avx512.c — the vectorised kernels (lbs_simd.h, dqs_simd.h, lbsq_simd.h,
 * pose_simd.h) built for
 * avx512; the Makefile gives this file its instruction set. */
#define SKN_LBS_KERNEL skn__lbs_avx512
#define SKN_DQS_KERNEL skn__dqs_avx512
#define SKN_BLEND_KERNEL skn__blend_avx512
#define SKN_COR_KERNEL skn__cor_avx512
#define SKN_POSE_KERNEL skn__pose_avx512
#define SKN_LBSQ_KERNEL skn__lbsq_avx512
#include "lbs_simd.h"
#include "dqs_simd.h"
#include "lbsq_simd.h"
#include "pose_simd.h"
