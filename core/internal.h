/* internal.h — what the core's files share and no host sees: the rig and
 * pose layouts, the error helpers, the worker pool and the kernel entry
 * points. Data flows one way: rig.c and pose.c build immutable state,
 * skin.c validates a request and runs a kernel over it. */
#ifndef SKN_INTERNAL_H
#define SKN_INTERNAL_H

#include "../abi/skn.h"

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#define SKN_MIN(a, b) ((a) < (b) ? (a) : (b))
#define SKN_MAX(a, b) ((a) > (b) ? (a) : (b))

/* Sizes of the first release's structs: struct_size below these is an error.
 * Later releases append fields; these numbers never change. */
#define SKN_BIND_DESC_V1_SIZE 168u
#define SKN_SKIN_DESC_V1_SIZE 72u
#define SKN_RIG_INFO_V1_SIZE 20u
#define SKN_GLTF_BIND_DESC_V1_SIZE 32u
#define SKN_GLTF_PRIMITIVE_INFO_V1_SIZE 48u
#define SKN_GLTF_OPEN_DESC_V1_SIZE 48u

/* The first release's layouts, pinned at compile time (C99 has no
 * _Static_assert: a negative array size fails the build instead). */
#define SKN_PIN(name, cond) typedef char skn_pin_##name[(cond) ? 1 : -1]
SKN_PIN(bind_desc, offsetof(skn_bind_desc, triangle_count) + 4 + 4 /* padding */ == SKN_BIND_DESC_V1_SIZE);
SKN_PIN(skin_desc, offsetof(skn_skin_desc, dqs_scale) + 4 == SKN_SKIN_DESC_V1_SIZE);
SKN_PIN(rig_info, offsetof(skn_rig_info, max_influences_per_vertex) + 4 == SKN_RIG_INFO_V1_SIZE);
SKN_PIN(gltf_bind_desc, offsetof(skn_gltf_bind_desc, blend_weights) + 8 == SKN_GLTF_BIND_DESC_V1_SIZE);
SKN_PIN(gltf_open_desc, offsetof(skn_gltf_open_desc, flags) + 4 + 4 /* padding */ == SKN_GLTF_OPEN_DESC_V1_SIZE);
/* 1.0's appended layout, and 1.1's max_bytes past its padding: a 1.0 caller's
 * struct_size (40) never reaches it */
SKN_PIN(gltf_bind_desc_1_1, offsetof(skn_gltf_bind_desc, max_bytes) == 40 && sizeof(skn_gltf_bind_desc) == 48);
SKN_PIN(transform, sizeof(skn_transform) == 40);
/* 1.2's appended fields start at 1.1's sizeof: a 1.1 caller's struct_size (168) never reaches them */
SKN_PIN(bind_desc_1_2, offsetof(skn_bind_desc, morph_targets) == 168);
SKN_PIN(primitive_info_1_2, offsetof(skn_gltf_primitive_info, node_name) == 48);

/* ---- errors (error.c) ---- */

/* Records the thread's message and returns status, so that a validator can
 * `return skn__fail(SKN_ERR_..., "joint %u: ...", j);`. */
skn_status skn__fail(skn_status status, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* ---- memory (alloc.c): every block, through the host's allocator ---- */

void *skn__alloc(size_t size);                             /* NULL on failure; 16-byte aligned */
void *skn__alloc_aligned(size_t size, size_t alignment);   /* alignment a power of two <= 64 */
void *skn__calloc(size_t count, size_t size);              /* zeroed; NULL on failure or overflow */
void skn__free(void *block);                               /* NULL is ignored */

/* ---- the ABI's conventions (api.c) ---- */

/* Copies `info`, whose first member is struct_size, into the caller's `out`
 * as far as out->struct_size reaches (at least v1_size, the first release's
 * size, else SKN_ERR_INVALID_ARGUMENT naming `call`). */
skn_status skn__fill_info(void *out, const void *info, size_t size, size_t v1_size, const char *call);

/* ---- the rig (rig.c) ---- */

/* A run of vertices whose influences the kernels read k at a time (kernels.h). */
typedef struct skn_block {
  uint32_t first, count, k;
  uint32_t offset;               /* into packed_joints / packed_weights */
} skn_block;

struct skn_rig {
  uint32_t joint_count;
  uint32_t vertex_count;
  uint32_t influence_count;
  uint32_t max_influences_per_vertex;
  uint32_t flags;                /* SKN_RIG_HAS_* (public and internal bits) */

  int32_t *parents;              /* bind's order */
  uint32_t *order;               /* joints breadth first (a level sorted by its parents' positions):
                                    forward kinematics walks this;
                                    SKN_JOINT_STRIDE long, UINT32_MAX past joint_count */
  uint32_t *position;            /* joint j's index in order */
  int32_t *parent_position;      /* per position, its parent's (-1: a root); SKN_JOINT_STRIDE long */
  uint32_t *level_start;         /* level d's positions are [level_start[d], level_start[d + 1]) */
  uint32_t level_count;
  size_t joint_stride;           /* SKN_JOINT_STRIDE(joint_count) */
  float (*bind)[16];             /* W_i^R, joint -> model at bind */
  float *inverse_bind;           /* (W_i^R)^-1's 3x4 by position (SKN_JOINT_STRIDE) */
  float *rest_local;             /* local matrices of the starting pose, likewise */
  uint8_t *joint_used;           /* 1 where some vertex has an influence of the joint */

  float *positions;              /* 3 per vertex, packed */
  float *normals;                /* 3 per vertex or NULL */
  float *tangents;               /* 4 per vertex or NULL */
  uint32_t *influence_offsets;   /* CSR: vertex_count + 1 */
  uint32_t *influence_joints;    /* in the order given at bind (DQS antipodality needs it) */
  float *influence_weights;      /* pruned and normalized per the weight mode */
  double (*bind_rotation)[2][9]; /* per joint, per skn_dqs_scale: the rotation of W_i^R's 3x3 */
  float *blend_weights;          /* SKN_METHOD_BLEND's b per vertex, or NULL */
  float *centers;                /* SKN_METHOD_COR's p* per vertex (3 each), or NULL */
  uint8_t *has_center;           /* 0 where no triangle is similar: COR falls back to LBS */
  /* the kernels' layout (kernels/pack.c); blocks == NULL: the scalar kernels serve */
  uint32_t block_count;
  skn_block *blocks;
  uint16_t *packed_joints;
  float *packed_weights;
  /* SKN_LAYOUT_COMPACT (compact.c; flags & SKN_RIG_COMPACT): the kernels
   * read these in place of packed_weights, normals and tangents, and of
   * packed_joints where joint_count < 255; the float arrays above hold the
   * decoded values, which the scalar reference reads */
  uint8_t *packed_joints8;
  uint16_t *packed_weights16;    /* weight * 65535 */
  uint32_t *oct_normals;         /* per vertex, then SKN_PACK_GROUP codes of padding; or NULL */
  uint32_t *oct_tangents;
  /* morph targets (morph.c) */
  uint32_t morph_count;
  struct skn_morph *morphs;      /* morph_count targets */
  float *morph_defaults;         /* a new pose's weights */
  uint32_t morph_entry_count;    /* over all targets */
  uint64_t gltf_skin;            /* skn_gltf_bind's: its skin's fingerprint, that skn_gltf_pose checks
                                    (0: bound by skn_bind) */
};

/* A morph target as the rig keeps it (morph.c): its entries in ascending
 * vertex order, the offsets planar — dp[3e..3e+2] the position offset of
 * entry e, dn the normal's, dt the tangent's (NULL where the target has
 * none), in one block `deltas` — so that a run of neighbouring vertices is
 * one contiguous stretch of each. */
typedef struct skn_morph {
  uint32_t count;
  uint32_t *vertices;
  float *deltas, *dp, *dn, *dt;
  uint32_t has_normals, has_tangents;
} skn_morph;

/* ---- the pose (pose.c, palette.c) ---- */

/* Per-joint 3x4 matrices as the pose kernels read them (pose_simd.h):
 * structure of arrays in the order forward kinematics walks (rig->order:
 * parents first, one level of the hierarchy after another), element (r, c)
 * of the joint at position k in row 3c + r, at [(3c + r) stride + k]. A
 * run of joints' element is one vector load; stride, joint_count rounded
 * up past a vector's worth of slack, lets a group of lanes start anywhere.
 * The stride is an odd number of 64-byte lines: a power of two (1,024
 * joints: 4 KB) would put a joint's twelve elements in one L1 set (eight
 * ways) and alias its loads with its stores 4 KB apart, which made a
 * 1,000-joint chain 3x slower a joint than a 200- or 4,000-joint one. */
#define SKN_JOINT_STRIDE(n) (((((size_t)(n) + 31u) >> 4) | 1u) << 4)
#define SKN_MAT_ROWS 12 /* a 3x4 matrix: row 3c + r holds element (r, c) */
#define SKN_TRS_ROWS 10 /* a skn_transform: translation, rotation, scale */

/* Per joint, SKN_PALETTE_FLOATS floats aligned to 64 bytes (the virtual
 * joint, index joint_count, is the identity):
 *   - lbs_palette: M_i's 3x4 as four padded columns (c0 c1 c2 t: M_i as a
 *     column-major affine float[16]), then its normal matrix N_i's three
 *     columns padded (M_i's 3x3 itself where that is a rotation to
 *     SKN_ROTATION_TOLERANCE: pose_simd.h), then a zero column, so that one
 *     16-lane vector holds a whole matrix;
 *   - dq_palette[split]: DQS's form of M_i under that skn_dqs_scale split,
 *     M_i = rigid_i S_i (abi/skn.h, skn_dqs_scale), the one copy the kernels and
 *     the scalar references read (SKN_DQ_*);
 *   - quat_palette: LBS_QUATERNION's A_i = s_i R(q_i) (9 floats, row-major),
 *     b_i, the bind origin c_i and 1/s_i^2 (0 where s_i = 0), then zeros. */
#define SKN_PALETTE_FLOATS 32u
/* A dq_palette entry: rigid_i's unit dual quaternion (real x y z w, then
 * the dual part), the bind-space scale/shear S_i as four padded columns
 * (element (r, c) at SKN_DQ_S + 4c + r, the columns' fourth elements
 * 0 0 0 1), 1.0f at SKN_DQ_SCALED where S_i != I (M_i's 3x3 is not a
 * rotation within SKN_DQ_RIGID_TOLERANCE), zeros, and at SKN_DQ_UNIFORM, where the pose is
 * scaled and every S_i is a uniform scale s_i about the bind origin
 * (dq_uniform), S_i's translation (1 - s_i) c_i and s_i: what the kernels
 * blend in that case instead of S_i's 3x4 (dqs_simd.h). */
#define SKN_DQ_REAL 0
#define SKN_DQ_DUAL 4
#define SKN_DQ_S 8
#define SKN_DQ_SCALED 24
#define SKN_DQ_UNIFORM 28
#define SKN_DQ_ENTRY(pose, split, j) ((pose)->dq_palette[split] + (size_t)(j) * SKN_PALETTE_FLOATS)
/* palette.c: the identity's entry — every entry's at pose_create, and the
 * part past the dual quaternion of every rigid joint's. */
extern const float skn__dq_identity[SKN_PALETTE_FLOATS];
#define SKN_ROTATION_TOLERANCE 4e-6f
/* Where the dual-quaternion forms take M_i's 3x3 A as a rotation (rigid_i =
 * M_i, S_i = I): G = A^T A within it of I, element by element, det A > 0.
 * The rounding that composing rotations leaves, no more: SKN_ROTATION_
 * TOLERANCE's 4e-6 in float (pose->lbs_rigid, which lets forms_simd.h skip
 * this test) plus double's view of its sums' rounding (~2e-7). What is
 * past it is scale, and the split keeps it (M_i = rigid_i S_i exactly). It
 * was 1e-4: a Rigify horse's stretched B-Bone segments (|G - I| up to
 * 4.7e-5) lost their stretch, 4.5e-5 at a vertex, 1.1e-5 of the horse's
 * size off Blender's Preserve Volume (which keeps a deform matrix's scale
 * past 1e-5 — measured in Blender 3.4: a bone scaled by 1 + 5e-6 keeps it,
 * by 1 + 4.5e-6 loses it; the Blender add-on applies that rule itself,
 * rules.preserve_volume_matrices). */
#define SKN_DQ_RIGID_TOLERANCE 5e-6
/* How far (relative to s) S_i's 3x3 may be from s I for DQS's kernels to
 * blend s_i alone: float rounding of a uniformly scaled pose's M_i, not a
 * modelling choice; palette.c then writes S_i as exactly s I, so that the
 * scalar reference and the GPU palette read the matrix the kernels blend. */
#define SKN_UNIFORM_TOLERANCE 1e-6
#define SKN_POSE_M(pose, j, r, c) ((pose)->lbs_palette[(size_t)(j) * SKN_PALETTE_FLOATS + (c) * 4 + (r)])
/* Element (r, c) of joint j's W_i^A. */
#define SKN_POSE_WORLD(pose, j, r, c) \
  ((pose)->world[((c) * 3 + (r)) * (pose)->rig->joint_stride + (pose)->rig->position[j]])
/* Element (r, c), c < 3, of joint j's normal matrix N_i: where every joint
 * is a rotation (lbs_rigid) N_i = M_i's 3x3, and only M_i is written
 * (pose_simd.h). */
#define SKN_POSE_N(pose, j, r, c) \
  ((pose)->lbs_palette[(size_t)(j) * SKN_PALETTE_FLOATS + ((pose)->lbs_rigid ? 0 : 16) + (c) * 4 + (r)])

/* A joint's LBS_QUATERNION form, derived from M_i on the first call that
 * needs it after a pose change (skn__pose_derive); DQS's lives in
 * dq_palette alone. */
typedef struct skn_joint_xform {
  float q[4];       /* LBS_QUATERNION: rotation of M_i ... */
  float s;          /* ... its uniform scale ... */
  float b[3];       /* ... and the joint's posed origin b_i = M_i c_i */
  uint32_t similar; /* 1 when M_i's 3x3 is s*R within 1e-4 with det > 0 */
} skn_joint_xform;

struct skn_pose {
  const skn_rig *rig;
  /* by position, SKN_JOINT_STRIDE: */
  float *local;                  /* local matrices (TRS composed) */
  float *staged;                 /* skn_pose_set_local's validated transforms, composed: the locals to be */
  float *world;                  /* W_i^A's 3x4 (SKN_POSE_WORLD) */
  uint8_t *pinned;               /* 1 where set_model gave W_i^A directly ... */
  uint32_t pinned_count;         /* ... and how many (0: forward kinematics writes whole groups) */
  float *lbs_palette;            /* (joint_count + 1) x SKN_PALETTE_FLOATS, set with the pose */
  float *dq_palette[2];          /* the same per skn_dqs_scale, derived with the rotation forms */
  float *quat_palette;           /* the same for LBS_QUATERNION, derived with its forms */
  skn_joint_xform *xforms;       /* LBS_QUATERNION's forms, per joint in bind's order */
  uint32_t dq_scaled[2];         /* 1 where some joint has S_i != I under that split (and only
                                  * then does an entry's S_i or SKN_DQ_SCALED differ from the
                                  * identity's: forms_simd.h leaves them where it is 0) */
  uint32_t dq_uniform[2];        /* 1 where dq_scaled and every S_i is s_i I to SKN_UNIFORM_TOLERANCE
                                  * (SKN_DQ_UNIFORM written for every entry, the virtual joint's too) */
  uint32_t lbs_rigid;            /* 1 where every joint's N_i is its M_i's 3x3: then the palette's N
                                  * entries are not written (SKN_POSE_N reads M's) */
  /* The rotation forms (xforms, dq_palette) are derived on the first call
   * that needs them after a pose change, each form (SKN_FORMS_*) apart and
   * under `lock`, so that LBS alone never pays for polar decompositions,
   * DQS for LBS_QUATERNION's forms or the other split, and concurrent
   * skn_skin calls on one pose stay safe. */
  pthread_mutex_t lock;
  uint32_t version;              /* atomic: moves on after every change of the palette */
  uint64_t derived;              /* atomic: the version the forms were derived from (high 32 bits)
                                    and the SKN_FORMS_* bits derived from it (low) */
  float *morph_weights;          /* per target (rig->morph_count) */
  uint32_t *morph_active;        /* the targets whose weight is not 0, ascending ... */
  uint32_t morph_active_count;   /* ... and how many */
};

/* The rotation forms, derived each on demand. */
enum {
  SKN_FORMS_QUATERNION = 1, /* q, s, b, similar and quat_palette: LBS_QUATERNION */
  SKN_FORMS_DQ = 2          /* dq_palette[split] and dq_scaled[split]: SKN_FORMS_DQ << split */
};

/* Derives the forms asked for that are not current (thread-safe). */
void skn__pose_derive(const skn_pose *pose, int forms);

/* palette.c: joint j's DQS form under `split` (its dq_palette entry, whole;
 * dq_scaled updated), rigid or split, in double; every joint's (the scalar
 * set's dq_forms, which writes every entry whole: s_identity unused). */
void skn__dq_form(skn_pose *pose, uint32_t j, int split);
void skn__dq_forms(skn_pose *pose, int split, int s_identity);
/* palette.c: every dq_palette entry, the virtual joint's included, the
 * identity's (pose_create). */
void skn__dq_palette_init(skn_pose *pose);
/* palette.c: joint j's LBS_QUATERNION form (xforms[j]'s q, s, b, similar)
 * and quat_palette entry, in double; every joint's (the scalar set's
 * quat_forms). */
void skn__quat_form(skn_pose *pose, uint32_t j);
void skn__quat_forms(skn_pose *pose);

/* The rotations bind needs for the DQS split: bind_rotation[j][split]. */
void skn__bind_rotations(skn_rig *rig);

/* ---- kernels (lbs.c, dqs.c, cor.c) ---- */

/* A job for one vertex range: [first, end) with outputs addressed by
 * absolute vertex index. Built and validated by skn_skin; cannot fail. */
typedef struct skn_skin_job {
  const skn_rig *rig;
  const skn_pose *pose;
  char *positions, *normals, *tangents;
  size_t position_stride, normal_stride, tangent_stride;
  int split;                     /* skn_dqs_scale, for DQS, BLEND and COR */
  int stream;                    /* streaming stores where the kernel can (skn_stores) */
  /* The rest attributes the kernels skin: vertex v's at rest_positions +
   * 3 (v - rest_first), rest_normals + 3 (...), rest_tangents + 4 (...):
   * the rig's arrays (rest_first 0), or, for the scalar reference, a span's
   * morphed copy (morph.c). */
  const float *rest_positions, *rest_normals, *rest_tangents;
  uint32_t rest_first;
  /* The vectorised kernels' way instead: the rig's rest attributes, and a
   * span's summed morph offsets that they add as they load (vertex v's at
   * offsets + 3 (v - offsets_first), ..._normals + 3 (...), ..._tangents +
   * 4 (...)), so that the span is never copied; NULL: none. */
  const float *offsets, *offsets_normals, *offsets_tangents;
  uint32_t offsets_first;
  int fused;                     /* the kernel takes offsets (set by skn_skin: a vectorised kernel) */
  /* The morph targets the call applies: the pose's active ones and their
   * weights as they stood when the call began, copied (skn_skin), so that
   * a weight set meanwhile — by a host breaking the one-thread rule — can
   * change the next call but never this one's cursors (morph.c). */
  const uint32_t *morph_targets; /* ascending */
  const float *morph_weights;    /* per entry of morph_targets */
  uint32_t morph_count;
} skn_skin_job;

/* One vertex's results; n and t are filled only where the job asks. */
typedef struct skn_vertex_out {
  float p[3], n[3], t[4];
} skn_vertex_out;

typedef void (*skn_kernel_fn)(const skn_skin_job *job, uint32_t first, uint32_t end);

/* Vertex v's rest attributes as the job skins them (above). */
#define SKN_REST_P(job, v) ((job)->rest_positions + (size_t)((v) - (job)->rest_first) * 3)
#define SKN_REST_N(job, v) ((job)->rest_normals + (size_t)((v) - (job)->rest_first) * 3)
#define SKN_REST_T(job, v) ((job)->rest_tangents + (size_t)((v) - (job)->rest_first) * 4)

/* ---- morph targets (morph.c) ---- */

/* Bind: validates desc's targets (bind_validate.c calls it first) and builds them. */
skn_status skn__morph_validate(const skn_bind_desc *d);
skn_status skn__morph_build(skn_rig *rig, const skn_bind_desc *d);
void skn__morph_free(skn_rig *rig);
/* Pose: the weights and their active list (pose_create, set_morph_weights). */
skn_status skn__morph_pose_init(skn_pose *pose);
/* Skin: the pose's active targets and weights copied into job (into
 * targets/weights where `room` entries suffice, else allocated: freed by
 * the caller where job->morph_targets != targets). */
skn_status skn__morph_snapshot(const skn_pose *pose, skn_skin_job *job, uint32_t *targets, float *weights,
                               uint32_t room);
/* Skin: kernel over [first, end) with the pose's morph targets applied to
 * the rest attributes span by span (or the kernel alone where no weight is
 * set). */
void skn__morph_run(const skn_skin_job *job, skn_kernel_fn kernel, uint32_t first, uint32_t end);

void skn__lbs_matrix(const skn_skin_job *job, uint32_t first, uint32_t end);
void skn__lbs_quaternion(const skn_skin_job *job, uint32_t first, uint32_t end);
void skn__dqs(const skn_skin_job *job, uint32_t first, uint32_t end);
void skn__blend(const skn_skin_job *job, uint32_t first, uint32_t end);
void skn__cor(const skn_skin_job *job, uint32_t first, uint32_t end);

/* Per-vertex forms the kernels share: LBS (matrix form) and DQS of vertex
 * v, which must have at least one influence; its rest attributes; storing. */
void skn__lbs_vertex(const skn_skin_job *job, uint32_t v, skn_vertex_out *o);
void skn__dqs_vertex(const skn_skin_job *job, uint32_t v, skn_vertex_out *o);
void skn__rest_vertex(const skn_skin_job *job, uint32_t v, skn_vertex_out *o);
void skn__store_vertex(const skn_skin_job *job, uint32_t v, const skn_vertex_out *o);

/* The scalar kernels' loop: vertices [first, end), each at rest where it
 * has no influence, else as `vertex` computes it, then stored. */
typedef void (*skn_vertex_fn)(const skn_skin_job *job, uint32_t v, skn_vertex_out *o);
void skn__each_vertex(const skn_skin_job *job, uint32_t first, uint32_t end, skn_vertex_fn vertex);

/* ---- the compact layout (compact.c) ---- */

#define SKN_WEIGHT_ONE 65535u          /* a compact weight q stands for q / 65535 */
#define SKN_COMPACT_MAX_INFLUENCES 32u /* bounds the kernels' decode buffer (blocks_simd.h) */
#define SKN_OCT_SCALE (1.0f / 32767.0f)   /* a normal's codes, and a tangent's x */
#define SKN_OCT_SCALE_Y (1.0f / 16383.0f) /* a tangent's y: 15 bits, the 16th its w's sign */

/* Quantizes the rig's pruned weights, normals and tangents (skn.h,
 * "Layout") and leaves the decoded values in its float arrays, so that every
 * kernel skins with the same inputs; the codes themselves are packed by
 * pack.c. SKN_ERR_UNSUPPORTED naming the vertex where a weight is above 1
 * or a vertex has more than SKN_COMPACT_MAX_INFLUENCES influences. */
skn_status skn__compact_quantize(skn_rig *rig);

/* A compact weight's value: q / 65535 as the kernels compute it. */
float skn__weight_decode(uint16_t q);

/* The octahedral code of direction v (tangent: of a tangent whose w has
 * w's sign) and back: out = unit xyz, and for a tangent w = +-1. */
uint32_t skn__oct_encode(const float v[3], int tangent, float w);
void skn__oct_decode(uint32_t code, int tangent, float out[4]);

/* ---- optimized centers of rotation (cor_bind.c) ---- */

/* Computes rig->centers and rig->has_center from bind's triangles
 * (Le & Hodgins 2016, eq. 4 with the similarity of eq. 3, sigma = 0.1). */
skn_status skn__cor_centers(skn_rig *rig, const uint32_t *triangles, uint32_t triangle_count);

/* ---- the worker pool (pool.c) ---- */

/* Calls fn(ctx, first, end) over the blocks [0, block_count), a block at
 * a time on up to `threads` threads (0 = all cores), the calling thread
 * among them, or in one call where the caller runs alone; returns when all
 * are done. Falls back to the calling thread alone when
 * the pool is busy with another caller's job. A `light` job (less work
 * than waking a sleeping thread costs, ~20 us) takes only the workers that
 * are awake. */
typedef void (*skn_pool_fn)(void *ctx, uint32_t first_block, uint32_t end_block);
void skn__pool_run(skn_pool_fn fn, void *ctx, uint32_t block_count, uint32_t threads, int light);
uint32_t skn__pool_size(void);

#endif
