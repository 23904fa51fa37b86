/* lbs_avx2.c — the LBS kernel (lbs_simd.h) built for AVX2 with FMA;
 * the Makefile gives this file its instruction set. Apart from the kernels
 * built on dual quaternions (dqs_avx2.c, blend_avx2.c, cor_avx2.c) because GCC builds it best
 * without the combiner limit those take (Makefile, KERNEL_COMBINE). */
#define SKN_LBS_KERNEL skn__lbs_avx2
#include "lbs_simd.h"
