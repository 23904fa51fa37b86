/* pose_portable.c — the pose kernels (pose_simd.h: validation, forward kinematics
 * and the LBS palette; forms_simd.h: the joints' rotation forms) built for
 * the compiler's baseline; the Makefile gives this file its instruction set. Apart
 * from the skinning kernels (lbs_portable.c, dqs_portable.c and the files beside it) so that each builds alone. */
#define SKN_POSE_STAGE_KERNEL skn__pose_stage_portable
#define SKN_POSE_KERNEL skn__pose_portable
#define SKN_DQ_FORMS_KERNEL skn__dq_forms_portable
#define SKN_QUAT_FORMS_KERNEL skn__quat_forms_portable
#include "pose_simd.h"
#include "forms_simd.h"
