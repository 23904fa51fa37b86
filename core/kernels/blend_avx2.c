/* blend_avx2.c — the BLEND kernel (dqs_simd.h: LBS and DQS mixed per
 * vertex) built for AVX2 with FMA; the Makefile gives this file its instruction set. */
#define SKN_BLEND_KERNEL skn__blend_avx2
#include "lbs_simd.h"
#include "dqs_simd.h"
