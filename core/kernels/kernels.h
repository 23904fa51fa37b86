/* kernels.h — the vectorised kernels. One source per family (lbs_simd.h,
 * lbsq_simd.h, dqs_simd.h for DQS, BLEND and COR, pose_simd.h for forward
 * kinematics, forms_simd.h for the joints' rotation forms) is compiled once
 * per instruction set — portable (the compiler's baseline), AVX2+FMA and
 * AVX-512 — a file a method (<method>_<isa>.c, so that a build's cores
 * share them) — and simd.c picks one set at run time, so that one libskn.so.1
 * runs everywhere and fast where it can.
 * Every kernel is tested against the scalar reference (lbs.c, dqs.c, cor.c;
 * the pose against a double-precision one and the forms against palette.c's
 * joint-at-a-time derivation, bit for bit, test_pose.c).
 *
 * The data they read is laid out at bind (pack.c) and per pose (palette):
 *   - vertices in blocks of SKN_PACK_BLOCK; a block's influences padded to
 *     the block's widest vertex, k slots per vertex, joints as uint16 and
 *     weights as float; padding and vertices without influences point at a
 *     virtual joint (index joint_count) whose transform is the identity, and
 *     a group's worth of such slots follows the last vertex;
 *   - or, for a rig bound with SKN_LAYOUT_COMPACT, the same slots with
 *     joints in 8 bits (where they fit) and weights in 16, and normals and
 *     tangents octahedral (compact.c); the kernels decode a chunk at a time
 *     into the stack (blocks_simd.h) and run their float code on it;
 *   - per joint, the pose's palettes (internal.h): SKN_PALETTE_FLOATS floats
 *     aligned to 64 bytes, matrices as padded columns, so that one 16-lane
 *     vector holds a whole matrix. */
#ifndef SKN_KERNELS_H
#define SKN_KERNELS_H

#include "../internal.h"

#define SKN_PACK_BLOCK 256u
#define SKN_PACK_GROUP 16u /* the widest kernels' group (soa.h): the layout ends in a group's worth of padding */
#define SKN_PACK_TAIL_SLOTS 16u /* and 16 slots more: the compact joints' decode reads 16 at a time */

/* What a kernel reads for a run of vertices, indexed from vertex `first`:
 * vertex v's k influence slots at joints/weights + (v - first) k, its rest
 * position at positions + 3 (v - first), its normal at normals + 3
 * (v - first), its tangent at tangents + 4 (v - first). The rig's own
 * arrays (SKN_LAYOUT_FULL), or a chunk of the compact layout decoded
 * (blocks_simd.h); the rest attributes are the job's, plus a morphed
 * span's offsets where it has them (morph.c). */
typedef struct skn_src {
  uint32_t first, k;
  const uint16_t *joints;
  const float *weights;
  const float *positions;
  const float *normals, *tangents; /* NULL where the job does not skin them */
  /* a morphed span's offsets to add, indexed alike (tangents: 4 floats a
   * vertex, the fourth 0); NULL where there are none (morph.c) */
  const float *dpositions, *dnormals, *dtangents;
} skn_src;

typedef struct skn_kernel_set {
  const char *name;
  skn_kernel_fn lbs, lbs_quaternion, dqs, blend, cor;
  /* validates the transforms of joints [first, first + count) and stages
   * their local matrices (pose->staged); returns the index in `local` of
   * the first with a NaN or infinity or a zero rotation, or count when all
   * are valid */
  uint32_t (*pose_stage)(skn_pose *pose, uint32_t first, uint32_t count, const skn_transform *local);
  /* the staged locals of [first, first + count) become the pose's (count
   * 0: none), then forward kinematics and the LBS palette (pose_simd.h) */
  void (*pose)(skn_pose *pose, uint32_t first, uint32_t count);
  /* every joint's DQS form under `split` (s_identity: the entries' S_i
   * are the identity's, internal.h), and every joint's LBS_QUATERNION
   * form, from the LBS palette, bit for bit palette.c's (forms_simd.h) */
  void (*dq_forms)(skn_pose *pose, int split, int s_identity);
  void (*quat_forms)(skn_pose *pose);
} skn_kernel_set;

extern const skn_kernel_set skn__kernels_portable, skn__kernels_avx2, skn__kernels_avx512;

/* The set skn_skin uses now (simd.c). */
const skn_kernel_set *skn__kernels(void);

/* pack.c: the blocked layout (rig->blocks ...), float or compact as the rig
 * was bound, or nothing where it cannot serve (65535 joints or more);
 * returns SKN_ERR_OUT_OF_MEMORY only. */
skn_status skn__pack_influences(skn_rig *rig);


#endif
