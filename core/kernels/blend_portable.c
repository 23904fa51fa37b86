/* blend_portable.c — the BLEND kernel (dqs_simd.h: LBS and DQS mixed per
 * vertex) built for the compiler's baseline; the Makefile gives this file its instruction set. */
#define SKN_BLEND_KERNEL skn__blend_portable
#include "lbs_simd.h"
#include "dqs_simd.h"
