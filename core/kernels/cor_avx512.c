/* cor_avx512.c — the COR kernel (dqs_simd.h: optimized centers of rotation)
 * built for AVX-512; the Makefile gives this file its instruction set. */
#define SKN_COR_KERNEL skn__cor_avx512
#include "lbs_simd.h"
#include "dqs_simd.h"
