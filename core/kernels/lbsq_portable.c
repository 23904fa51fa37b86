/* lbsq_portable.c — the LBS_QUATERNION kernel (lbsq_simd.h, on dqs_simd.h's
 * slot transposes) built for the compiler's baseline; the Makefile gives this file its
 * instruction set. */
#define SKN_LBSQ_KERNEL skn__lbsq_portable
#include "lbs_simd.h"
#include "dqs_simd.h"
#include "lbsq_simd.h"
