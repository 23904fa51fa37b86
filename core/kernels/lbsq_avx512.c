/* lbsq_avx512.c — the LBS_QUATERNION kernel (lbsq_simd.h, on dqs_simd.h's
 * slot transposes) built for AVX-512; the Makefile gives this file its
 * instruction set. */
#define SKN_LBSQ_KERNEL skn__lbsq_avx512
#include "lbs_simd.h"
#include "dqs_simd.h"
#include "lbsq_simd.h"
