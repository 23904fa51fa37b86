/* kernels_avx2.c — the skinning kernels (lbs_simd.h, dqs_simd.h,
 * lbsq_simd.h) built for AVX2 with FMA; the Makefile gives this file its
 * instruction set (the pose kernels: pose_avx2.c). */
#define SKN_LBS_KERNEL skn__lbs_avx2
#define SKN_DQS_KERNEL skn__dqs_avx2
#define SKN_BLEND_KERNEL skn__blend_avx2
#define SKN_COR_KERNEL skn__cor_avx2
#define SKN_LBSQ_KERNEL skn__lbsq_avx2
#include "lbs_simd.h"
#include "dqs_simd.h"
#include "lbsq_simd.h"
