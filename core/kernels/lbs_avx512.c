/* lbs_avx512.c — the LBS kernel (lbs_simd.h) built for AVX-512;
 * the Makefile gives this file its instruction set. Apart from the kernels
 * built on dual quaternions (dqs_avx512.c, blend_avx512.c, cor_avx512.c) because GCC builds it best
 * without the combiner limit those take (Makefile, KERNEL_COMBINE). */
#define SKN_LBS_KERNEL skn__lbs_avx512
#include "lbs_simd.h"
