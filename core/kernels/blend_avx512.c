/* blend_avx512.c — the BLEND kernel (dqs_simd.h: LBS and DQS mixed per
 * vertex) built for AVX-512; the Makefile gives this file its instruction set. */
#define SKN_BLEND_KERNEL skn__blend_avx512
#include "lbs_simd.h"
#include "dqs_simd.h"
