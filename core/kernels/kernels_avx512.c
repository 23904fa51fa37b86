/* kernels_avx512.c — the skinning kernels (lbs_simd.h, dqs_simd.h,
 * lbsq_simd.h) built for AVX-512; the Makefile gives this file its
 * instruction set (the pose kernels: pose_avx512.c). */
#define SKN_LBS_KERNEL skn__lbs_avx512
#define SKN_DQS_KERNEL skn__dqs_avx512
#define SKN_BLEND_KERNEL skn__blend_avx512
#define SKN_COR_KERNEL skn__cor_avx512
#define SKN_LBSQ_KERNEL skn__lbsq_avx512
#include "lbs_simd.h"
#include "dqs_simd.h"
#include "lbsq_simd.h"
