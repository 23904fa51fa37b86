/* dqs_avx512.c — the DQS kernel (dqs_simd.h) built for AVX-512; the
 * Makefile gives this file its instruction set. BLEND and COR, built on the
 * same dual-quaternion blend, are blend_avx512.c and cor_avx512.c, and
 * LBS_QUATERNION lbsq_avx512.c: a file a method, so that the build's cores
 * share them. LBS's group code (lbs_simd.h) is included for their blend of
 * M_i; the LBS kernel itself is lbs_avx512.c, and the pose kernels pose_avx512.c. */
#define SKN_DQS_KERNEL skn__dqs_avx512
#include "lbs_simd.h"
#include "dqs_simd.h"
