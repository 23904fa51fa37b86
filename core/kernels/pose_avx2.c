/* pose_avx2.c — the pose kernels (pose_simd.h: validation, forward kinematics
 * and the LBS palette; forms_simd.h: the joints' rotation forms) built for
 * AVX2 with FMA; the Makefile gives this file its instruction set. Apart
 * from the skinning kernels (lbs_avx2.c, dqs_avx2.c and the files beside it) so that each builds alone. */
#define SKN_POSE_STAGE_KERNEL skn__pose_stage_avx2
#define SKN_POSE_KERNEL skn__pose_avx2
#define SKN_DQ_FORMS_KERNEL skn__dq_forms_avx2
#define SKN_QUAT_FORMS_KERNEL skn__quat_forms_avx2
#include "pose_simd.h"
#include "forms_simd.h"
