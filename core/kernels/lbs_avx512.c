/* lbs_avx512.c — lbs_simd.h built for avx512. */
#define SKN_LBS_KERNEL skn__lbs_avx512
#include "lbs_simd.h"
