/* pose_avx512.c — the pose kernels (pose_simd.h: validation, forward kinematics
 * and the LBS palette; forms_simd.h: the joints' rotation forms) built for
 * AVX-512; the Makefile gives this file its instruction set. Apart
 * from the skinning kernels (lbs_avx512.c, dqs_avx512.c and the files beside it) so that each builds alone. */
#define SKN_POSE_STAGE_KERNEL skn__pose_stage_avx512
#define SKN_POSE_KERNEL skn__pose_avx512
#define SKN_DQ_FORMS_KERNEL skn__dq_forms_avx512
#define SKN_QUAT_FORMS_KERNEL skn__quat_forms_avx512
#include "pose_simd.h"
#include "forms_simd.h"
