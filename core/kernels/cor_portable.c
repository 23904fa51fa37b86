/* cor_portable.c — the COR kernel (dqs_simd.h: optimized centers of rotation)
 * built for the compiler's baseline; the Makefile gives this file its instruction set. */
#define SKN_COR_KERNEL skn__cor_portable
#include "lbs_simd.h"
#include "dqs_simd.h"
