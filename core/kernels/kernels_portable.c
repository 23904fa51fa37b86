/* kernels_portable.c — the skinning kernels (lbs_simd.h, dqs_simd.h,
 * lbsq_simd.h) built for the compiler's baseline; the Makefile gives this file its
 * instruction set (the pose kernels: pose_portable.c). */
#define SKN_LBS_KERNEL skn__lbs_portable
#define SKN_DQS_KERNEL skn__dqs_portable
#define SKN_BLEND_KERNEL skn__blend_portable
#define SKN_COR_KERNEL skn__cor_portable
#define SKN_LBSQ_KERNEL skn__lbsq_portable
#include "lbs_simd.h"
#include "dqs_simd.h"
#include "lbsq_simd.h"
