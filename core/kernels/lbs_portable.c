/* lbs_portable.c — the LBS kernel (lbs_simd.h) built for the compiler's baseline;
 * the Makefile gives this file its instruction set. Apart from the kernels
 * built on dual quaternions (dqs_portable.c, blend_portable.c, cor_portable.c) because GCC builds it best
 * without the combiner limit those take (Makefile, KERNEL_COMBINE). */
#define SKN_LBS_KERNEL skn__lbs_portable
#include "lbs_simd.h"
