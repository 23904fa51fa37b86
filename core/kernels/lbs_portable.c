/* lbs_portable.c — lbs_simd.h built for the compiler's baseline. */
#define SKN_LBS_KERNEL skn__lbs_portable
#include "lbs_simd.h"
