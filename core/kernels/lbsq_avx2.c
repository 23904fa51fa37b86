/* lbsq_avx2.c — the LBS_QUATERNION kernel (lbsq_simd.h, on dqs_simd.h's
 * slot transposes) built for AVX2 with FMA; the Makefile gives this file its
 * instruction set. */
#define SKN_LBSQ_KERNEL skn__lbsq_avx2
#include "lbs_simd.h"
#include "dqs_simd.h"
#include "lbsq_simd.h"
