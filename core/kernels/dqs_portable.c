/* dqs_portable.c — the DQS kernel (dqs_simd.h) built for the compiler's baseline; the
 * Makefile gives this file its instruction set. BLEND and COR, built on the
 * same dual-quaternion blend, are blend_portable.c and cor_portable.c, and
 * LBS_QUATERNION lbsq_portable.c: a file a method, so that the build's cores
 * share them. LBS's group code (lbs_simd.h) is included for their blend of
 * M_i; the LBS kernel itself is lbs_portable.c, and the pose kernels pose_portable.c. */
#define SKN_DQS_KERNEL skn__dqs_portable
#include "lbs_simd.h"
#include "dqs_simd.h"
