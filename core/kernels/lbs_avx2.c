/* lbs_avx2.c — lbs_simd.h built for avx2. */
#define SKN_LBS_KERNEL skn__lbs_avx2
#include "lbs_simd.h"
