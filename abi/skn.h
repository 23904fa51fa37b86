/*
 * skn.h — libskn, skeletal mesh skinning behind a stable C ABI (v1).
 *
 * This header is the manual. Read it top to bottom:
 *
 *   1. Version and errors   skn_version, skn_status, skn_last_error
 *   2. Bind                 skeleton + rest mesh + weights  -> skn_rig
 *   3. Pose                 joint transforms                -> skinning palette
 *   4. Skin                 rig + pose                      -> deformed vertices
 *   5. glTF 2.0             files -> rigs, and poses at time t
 *   6. GPU skinning         GLSL text, per-vertex attributes, palettes (1.1);
 *                           compute shaders, any influence count, morph targets (1.4)
 *   7. Weights              bones + mesh -> influences for bind (1.5)
 *   8. Function table       skn_get_api, for hosts that dlopen the library
 *
 * Morph targets (blend shapes, 1.2) are part of bind (skn_morph_target),
 * pose (skn_pose_set_morph_weights) and glTF (section 5).
 *
 * Conventions (they hold for every call):
 *   - Matrices are float[16], column-major, acting on column vectors:
 *     p' = M * p (glTF 2.0 / OpenGL). Element (row r, column c) is m[c*4 + r].
 *   - Quaternions are {x, y, z, w}. Local transforms compose as
 *     local = T * R * S (glTF 2.0 §3.5.3).
 *   - Strides are in bytes; 0 means tightly packed.
 *   - Every *_desc struct starts with uint32_t struct_size, which the caller
 *     sets to sizeof the struct it was compiled with. Zero means "default" for
 *     every other field, so  skn_bind_desc d = { sizeof d };  is a valid start.
 *   - Every fallible call returns skn_status. On failure nothing the caller
 *     passed in is modified and no output buffer is written: the library
 *     validates the whole request first, then writes.
 *   - A rig is immutable after skn_bind and may be shared by any number of
 *     threads. A pose belongs to one thread at a time. skn_skin is reentrant:
 *     several threads may skin disjoint vertex ranges with one rig and pose.
 *
 * Skinning (Magnenat-Thalmann et al. 1988; Kavan et al. 2008 for the
 * notation): a joint's skinning matrix is
 *     M_i = W_i^A * (W_i^R)^-1
 * with W_i^A the joint's posed joint->model matrix and W_i^R its bind
 * (rest) joint->model matrix, whose inverse is glTF's inverseBindMatrix.
 */
#ifndef SKN_H
#define SKN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32) && defined(SKN_BUILDING)
#  define SKN_API __declspec(dllexport)
#elif defined(__GNUC__) && defined(SKN_BUILDING)
#  define SKN_API __attribute__((visibility("default")))
#else
#  define SKN_API
#endif

/* ------------------------------------------------------------------------
 * 1. Version and errors
 * ---------------------------------------------------------------------- */

#define SKN_VERSION_MAJOR 1 /* ABI major: changes only on a breaking change */
#define SKN_VERSION_MINOR 5
#define SKN_VERSION_PATCH 0
#define SKN_VERSION_NUMBER \
  (SKN_VERSION_MAJOR * 10000 + SKN_VERSION_MINOR * 100 + SKN_VERSION_PATCH)

/* Opaque objects. A rig owns a converted copy of everything given to
 * skn_bind; a pose owns its joint transforms and palette. */
typedef struct skn_rig skn_rig;
typedef struct skn_pose skn_pose;
typedef struct skn_api skn_api;

/* What a call returned. Values are fixed forever; new ones are appended. */
typedef enum skn_status {
  SKN_OK = 0,
  SKN_ERR_INVALID_ARGUMENT,   /* NULL where required, bad enum, struct_size too small, count 0 */
  SKN_ERR_OUT_OF_MEMORY,
  SKN_ERR_INDEX_OUT_OF_RANGE, /* joint index >= joint_count, vertex range past the end */
  SKN_ERR_BAD_HIERARCHY,      /* parent cycle, parent out of range */
  SKN_ERR_NOT_FINITE,         /* NaN or Inf in any input */
  SKN_ERR_BAD_WEIGHTS,        /* negative weight, or sums rejected by the weight mode */
  SKN_ERR_SINGULAR,           /* a bind matrix that cannot be inverted */
  SKN_ERR_UNSUPPORTED,        /* the method cannot serve these inputs */
  SKN_ERR_IO,                 /* a file cannot be read */
  SKN_ERR_PARSE,              /* a file is not valid (glTF, JSON, buffers) */
  SKN_STATUS_FORCE_U32 = 0x7FFFFFFF
} skn_status;

/* SKN_VERSION_NUMBER of the loaded library (which may be newer than the
 * header a host was compiled with: compare skn_version() / 10000). */
SKN_API uint32_t skn_version(void);

/* "1.5.0". Static storage; never NULL. */
SKN_API const char *skn_version_string(void);

/* The enumerator's name, "SKN_ERR_SINGULAR"; "SKN_STATUS_UNKNOWN" for a
 * value this library does not know. Static storage; never NULL. */
SKN_API const char *skn_status_name(skn_status status);

/* This thread's message for its last failed call, naming the offending item
 * ("joint 7: parent 12 is out of range"). It stays until the next failure on
 * the same thread: successful calls do not clear it. "" before any failure.
 * Thread-local storage owned by the library; valid until the thread's next
 * failing call. */
SKN_API const char *skn_last_error(void);

/* Records `message` (up to 511 bytes) as this thread's skn_last_error() and
 * returns `status`: for adapters built on libskn (plugins/gl, the language
 * bindings) that report their own failures, a shader's compile log say,
 * through the same two calls a host already reads. NULL records "". (1.1) */
SKN_API skn_status skn_set_error(skn_status status, const char *message);

/* Memory. By default skn allocates with the C library; a host that keeps
 * its own books gives skn its allocator instead. (1.1) */
typedef struct skn_allocator {
  uint32_t struct_size;
  void *user;  /* passed back to both functions */
  /* size (> 0) bytes aligned to `alignment` (a power of two from 16 to 64), or NULL */
  void *(*alloc)(void *user, size_t size, size_t alignment);
  void (*free)(void *user, void *block); /* a block alloc returned; never NULL */
} skn_allocator;

/* Routes every allocation skn makes — rigs, poses, documents and what
 * building them takes — through `allocator` (copied), or back to the C
 * library's with NULL. Two kinds stay outside it: the worker threads'
 * stacks, and the glTF loader's JSON tree, which cJSON allocates through
 * its own hooks (cJSON_InitHooks: the host's to set). An allocation that
 * fails is SKN_ERR_OUT_OF_MEMORY from the call that needed it, which then
 * leaves nothing allocated behind. Errors: SKN_ERR_UNSUPPORTED while blocks
 * of the current allocator are live (destroy every rig, pose and document
 * first), SKN_ERR_INVALID_ARGUMENT for a missing function or struct_size.
 * Not to be called while another thread is in skn. */
SKN_API skn_status skn_set_allocator(const skn_allocator *allocator);

/* ------------------------------------------------------------------------
 * 2. Bind: skeleton + rest mesh + weights -> rig
 * ---------------------------------------------------------------------- */

/* An input vertex attribute: element i is at (const char *)data + i*stride.
 * stride 0 means tightly packed; a non-zero stride must be at least the
 * element's size. No alignment is required. */
typedef struct skn_attrib {
  const void *data;
  uint32_t stride;
} skn_attrib;

/* An output vertex attribute, addressed the same way. */
typedef struct skn_out_attrib {
  void *data;
  uint32_t stride;
} skn_out_attrib;

/* A joint's transform relative to its parent: local = T * R * S.
 * rotation is a quaternion {x, y, z, w}; it is normalized on use, and a zero
 * quaternion is SKN_ERR_INVALID_ARGUMENT. */
typedef struct skn_transform {
  float translation[3];
  float rotation[4];
  float scale[3];
} skn_transform;

/* How bind treats each vertex's weights (see "Weights" under skn_bind). */
typedef enum skn_weight_mode {
  SKN_WEIGHTS_NORMALIZE = 0, /* divide by the vertex's sum; a vertex whose sum is 0 stays at rest */
  SKN_WEIGHTS_AS_GIVEN,      /* use as given: v = sum w_i M_i v0 literally */
  SKN_WEIGHTS_REQUIRE_UNIT,  /* SKN_ERR_BAD_WEIGHTS unless every sum is 1 within 1e-3 */
  SKN_WEIGHT_MODE_FORCE_U32 = 0x7FFFFFFF
} skn_weight_mode;

/* How the rig stores what the kernels stream per vertex (see "Layout" under
 * skn_bind). Positions stay float in both. */
typedef enum skn_bind_layout {
  SKN_LAYOUT_FULL = 0, /* full precision: float weights, normals and tangents, 16-bit joints */
  SKN_LAYOUT_COMPACT,  /* 16-bit fixed-point weights, 8-bit joints where they fit, octahedral
                          normals and tangents in 32 bits: ~52 bytes of traffic a vertex (4
                          influences, positions + normals) instead of ~72 */
  SKN_BIND_LAYOUT_FORCE_U32 = 0x7FFFFFFF
} skn_bind_layout;

/* A morph target (blend shape, glTF 2.0 §3.7.2.2): per-vertex offsets that
 * the pose's weight for it scales and adds to the rest mesh before any
 * skinning method runs (the order of glTF, UsdSkel, and Blender's shape
 * keys before the Armature modifier):
 *   v0' = v0 + sum_t w_t dv_t   n0' = n0 + sum_t w_t dn_t   t0'.xyz = t0.xyz + sum_t w_t dt_t
 * Every method then skins v0', n0' and t0' as it skins a rest mesh; the
 * normal and tangent sums need not be unit, as every method normalises its
 * results (a tangent keeps its w). A target lists only the vertices it
 * moves (sparse), or every vertex (dense, `vertices` NULL); bind keeps the
 * entries whose offsets are not all zero, so that skinning costs in
 * proportion to the entries of the targets whose weight is not 0, whatever
 * the number of targets. (1.2) */
typedef struct skn_morph_target {
  uint32_t count;              /* entries; a dense target's is the rig's vertex_count */
  const uint32_t *vertices;    /* count vertex indices in any order, each at most once; NULL: dense,
                                  entry i is vertex i */
  skn_attrib positions;        /* float[3] per entry: dv, required */
  skn_attrib normals;          /* float[3]: dn, optional; needs normals at bind */
  skn_attrib tangents;         /* float[3]: dt (xyz; the rest tangent's w is kept), optional; needs
                                  tangents at bind */
} skn_morph_target;

typedef struct skn_bind_desc {
  uint32_t struct_size;
  uint32_t joint_count;                /* >= 1 */
  const int32_t *parents;              /* joint_count entries; -1 = root; any order; NULL = all roots */
  const float *inverse_bind_matrices;  /* joint_count*16, model -> joint at bind (glTF) ... */
  const float *bind_matrices;          /* ... or joint -> model at bind (W^R); give exactly one */
  const skn_transform *rest_local;     /* optional starting pose; default: derived from the bind matrices */
  uint32_t vertex_count;               /* >= 1 */
  skn_attrib positions;                /* float[3] per vertex, required */
  skn_attrib normals;                  /* float[3], optional (need not be unit length) */
  skn_attrib tangents;                 /* float[4], optional, w = handedness (kept) */
  uint32_t influences_per_vertex;      /* fixed width k (glTF: 4 per JOINTS_n set) ... */
  const uint32_t *influence_offsets;   /* ... or CSR: vertex_count+1 offsets (then k is ignored) */
  const uint32_t *influence_joints;    /* required */
  const float *influence_weights;      /* required */
  skn_weight_mode weight_mode;
  uint32_t max_influences;             /* 0 = keep all; else keep the heaviest k and renormalize */
  float min_weight;                    /* drop influences below this before normalizing; >= 0 */
  const float *blend_weights;          /* optional per-vertex DQS amount in [0,1] for SKN_METHOD_BLEND;
                                          outside [0,1]: SKN_ERR_BAD_WEIGHTS */
  const uint32_t *triangles;           /* optional, 3 per triangle: needed by SKN_METHOD_COR, whose
                                          centers bind computes from them (multithreaded) */
  uint32_t triangle_count;
  /* appended: a caller passing struct_size 168 gets SKN_LAYOUT_FULL */
  skn_bind_layout layout;              /* what the kernels stream; 0 = SKN_LAYOUT_FULL */
  /* appended in 1.2: a 1.1 caller passing struct_size 168 gets no morph targets */
  const skn_morph_target *morph_targets; /* morph_target_count targets, or NULL */
  const float *morph_weights;          /* a new pose's weights, one per target (glTF's mesh.weights);
                                          NULL: all 0 */
  uint32_t morph_target_count;
} skn_bind_desc;

/* Builds a rig: validates everything, orders the joints parents-first,
 * prunes and normalizes the influences and converts the caller's layout into
 * the kernels' own. The rig owns copies; the caller's arrays may be freed.
 *
 * Hierarchy: parents[i] is -1 or another joint's index, in any order; a
 *   cycle or an index outside [-1, joint_count) is SKN_ERR_BAD_HIERARCHY.
 * Matrices: exactly one of inverse_bind_matrices / bind_matrices, each
 *   affine (bottom row 0 0 0 1 within 1e-6, else SKN_ERR_INVALID_ARGUMENT)
 *   and invertible: |det| <= 1e-7 * (product of its column lengths) is
 *   SKN_ERR_SINGULAR.
 * Influences: fixed width (vertex v owns entries [v*k, v*k+k)) or CSR
 *   (influence_offsets[0] == 0, never decreasing, last == the influence
 *   count). Every joint index is checked, also where its weight is 0.
 *   More than 2^32-1 influences in all is SKN_ERR_INVALID_ARGUMENT.
 * Weights: negative is SKN_ERR_BAD_WEIGHTS, NaN/Inf SKN_ERR_NOT_FINITE.
 *   REQUIRE_UNIT checks the sums as given. Then zero weights, weights below
 *   min_weight and (with max_influences = k) all but the k heaviest are
 *   dropped — the kept ones stay in the order given, which DQS's
 *   antipodality rule depends on — and NORMALIZE / REQUIRE_UNIT rescale
 *   the rest to sum to 1 while AS_GIVEN rescales them to the original sum.
 *   A vertex left with no influence stays at rest (under REQUIRE_UNIT it is
 *   SKN_ERR_BAD_WEIGHTS instead).
 * Layout: SKN_LAYOUT_COMPACT trades precision for memory traffic, for
 *   meshes whose skinning is bound by memory bandwidth (many cores, or a
 *   mesh far larger than the caches). After pruning, each vertex's weights
 *   become multiples of 1/65535 whose integers sum exactly to the sum's
 *   (1's, under NORMALIZE and REQUIRE_UNIT) 65535 multiple, rounded by
 *   largest remainder; joints take 8 bits where joint_count < 255; normals
 *   and tangents become octahedral unit vectors in 2 x 16 bits (Cigolle et
 *   al. 2014, the nearest of the four neighbouring codes), a tangent's w
 *   keeps its sign only (glTF's w is +-1), and a zero-length normal or
 *   tangent becomes +z. Every method, the scalar reference included, then
 *   skins with these values. Against SKN_LAYOUT_FULL, an LBS position moves
 *   by at most (sum of |weight error|, < k / 65535) x the spread of the
 *   vertex's M_i v0 — measured at most 4.3e-6 of the model's size on every
 *   frame of the sample models' animations, every method — and a decoded
 *   normal is within 4.3e-5 radians, a tangent within 7.5e-5 (its y has 15
 *   bits). The kernels decode as they stream, which costs ~16 instructions
 *   a vertex (LBS under AVX2: 95 against 79): it pays where memory
 *   bandwidth, not arithmetic, is the limit (docs/performance.md). Weights above 1, or more than 32 influences on
 *   a vertex: SKN_ERR_UNSUPPORTED naming the vertex. An unknown layout:
 *   SKN_ERR_INVALID_ARGUMENT.
 * Morph targets: a vertex index >= vertex_count is SKN_ERR_INDEX_OUT_OF_RANGE
 *   and one listed twice in a target SKN_ERR_INVALID_ARGUMENT, both naming
 *   the target and the entry; NaN/Inf in an offset or a default weight is
 *   SKN_ERR_NOT_FINITE; normal or tangent offsets without the rest mesh's
 *   normals or tangents, missing positions, or a dense target whose count
 *   is not vertex_count, SKN_ERR_INVALID_ARGUMENT. Weights may be any
 *   finite number: negative, or above 1, extrapolates. The offsets are kept
 *   in float whatever the layout; a compact rig adds them to its decoded
 *   normals and tangents. Centers of rotation are found on the rest mesh
 *   as given.
 * On success *out_rig is a new rig, freed by skn_rig_destroy. On failure
 * *out_rig is untouched. */
SKN_API skn_status skn_bind(const skn_bind_desc *desc, skn_rig **out_rig);

/* Frees a rig. NULL is ignored. Poses made from it must be destroyed first. */
SKN_API void skn_rig_destroy(skn_rig *rig);

/* Bits of skn_rig_info.flags: what the rig was bound with. */
enum {
  SKN_RIG_HAS_NORMALS = 1u << 0,
  SKN_RIG_HAS_TANGENTS = 1u << 1,
  SKN_RIG_HAS_BLEND_WEIGHTS = 1u << 2,        /* SKN_METHOD_BLEND is served */
  SKN_RIG_HAS_CENTERS_OF_ROTATION = 1u << 3,  /* SKN_METHOD_COR is served */
  SKN_RIG_COMPACT = 1u << 4                   /* bound with SKN_LAYOUT_COMPACT */
};

typedef struct skn_rig_info {
  uint32_t struct_size;               /* the caller sets sizeof; the library fills what fits */
  uint32_t joint_count;
  uint32_t vertex_count;
  uint32_t influence_count;           /* after pruning */
  uint32_t max_influences_per_vertex; /* after pruning */
  uint32_t flags;                     /* SKN_RIG_HAS_* */
  /* appended in 1.2 */
  uint32_t morph_target_count;        /* as bound */
  uint32_t morph_entry_count;         /* the targets' entries bind kept (offsets not all zero) */
} skn_rig_info;

/* Describes a rig. out->struct_size must be at least the first release's
 * size (20 bytes); fields past struct_size are not written. */
SKN_API skn_status skn_rig_info_get(const skn_rig *rig, skn_rig_info *out);

/* ------------------------------------------------------------------------
 * 3. Pose: joint transforms -> skinning palette
 *
 * A pose holds one transform per joint and the palette derived from it,
 * M_i = W_i^A * (W_i^R)^-1. Setting joints updates the palette at once,
 * descendants included, so set all the joints that change in one call.
 * ---------------------------------------------------------------------- */

/* Makes a pose of a rig, starting at the rig's rest pose (bind's rest_local,
 * or the bind matrices, where every M_i is the identity). The pose refers
 * to the rig, which must outlive it. */
SKN_API skn_status skn_pose_create(const skn_rig *rig, skn_pose **out_pose);

/* Frees a pose. NULL is ignored. */
SKN_API void skn_pose_destroy(skn_pose *pose);

/* Sets joints [first, first+count) (bind's joint indices) from transforms
 * relative to their parents, then runs forward kinematics:
 * W_i^A = W_parent(i)^A * local_i, a root's W^A = local. Joints earlier set
 * by skn_pose_set_model follow their parents again from this call on.
 * Errors: range past the joint count (SKN_ERR_INDEX_OUT_OF_RANGE), NaN/Inf,
 * a zero quaternion (SKN_ERR_INVALID_ARGUMENT); the pose is then unchanged. */
SKN_API skn_status skn_pose_set_local(skn_pose *pose, uint32_t first, uint32_t count,
                                      const skn_transform *local);

/* Sets joints [first, first+count) from joint->model matrices (16 floats
 * each, affine) for hosts that evaluate their own hierarchy. Such a joint
 * keeps the given matrix until skn_pose_set_local sets it again; the joints
 * outside the range keep their local transforms and follow their parents. */
SKN_API skn_status skn_pose_set_model(skn_pose *pose, uint32_t first, uint32_t count,
                                      const float *joint_to_model16);

/* Sets the weights of morph targets [first, first+count) (bind's order) for
 * every skn_skin with this pose; a new pose has bind's morph_weights. Any
 * finite weight is valid; skinning skips the targets whose weight is 0.
 * Errors: a range past the rig's morph_target_count
 * (SKN_ERR_INDEX_OUT_OF_RANGE), NaN/Inf (SKN_ERR_NOT_FINITE), NULL weights
 * with count > 0 (SKN_ERR_INVALID_ARGUMENT); the pose is then unchanged.
 * (1.2) */
SKN_API skn_status skn_pose_set_morph_weights(skn_pose *pose, uint32_t first, uint32_t count,
                                              const float *weights);

/* Copies the weights of targets [first, first+count) into out; the same
 * range errors. (1.2) */
SKN_API skn_status skn_pose_morph_weights(const skn_pose *pose, uint32_t first, uint32_t count, float *out);

/* The layouts skn_pose_palette writes, per joint, in bind's joint order. */
typedef enum skn_palette_format {
  SKN_PALETTE_MAT4 = 0,       /* 16 floats per joint, column-major M_i */
  SKN_PALETTE_ROWS3X4,        /* 12 floats: the three rows of M_i's upper 3x4 (std140 vec4[3]) */
  SKN_PALETTE_NORMAL_ROWS3X4, /* 12 floats: rows of the inverse-transpose of M_i's 3x3, each
                                 padded with a 0 (the cofactor matrix where the 3x3 is singular;
                                 the 3x3 itself where it is a rotation to 4e-6, A^T A = I within
                                 that: its inverse-transpose to the same order) */
  SKN_PALETTE_DUAL_QUAT,      /* 8 floats: real xyzw, dual xyzw of M_i's rigid part (POLAR split;
                                 exactly M_i where M_i is rigid) */
  SKN_PALETTE_DUAL_QUAT_SCALE,/* 20 floats: the dual quaternion, then the three rows of the 3x4
                                 bind-space scale/shear S_i, M_i = rigid_i * S_i (POLAR split) */
  SKN_PALETTE_DUAL_QUAT_SCALE_KEEP_Y, /* the same, split as SKN_DQS_SCALE_KEEP_Y */
  SKN_PALETTE_FORMAT_FORCE_U32 = 0x7FFFFFFF
} skn_palette_format;

/* Writes the pose's palette in a format for a GPU or a host's own kernel.
 * dst_bytes smaller than joint_count * (the format's size) is
 * SKN_ERR_INVALID_ARGUMENT and nothing is written. */
SKN_API skn_status skn_pose_palette(const skn_pose *pose, skn_palette_format format,
                                    void *dst, size_t dst_bytes);

/* ------------------------------------------------------------------------
 * 4. Skin: rig + pose -> deformed positions, normals, tangents
 * ---------------------------------------------------------------------- */

typedef enum skn_method {
  /* Linear blend skinning, matrix form (Magnenat-Thalmann 1988):
   *   v = sum_i w_i M_i v0                                       (eq. 4)
   *   n = normalize(sum_i w_i M_i^-T n0)                         (eq. 9)
   *   t.xyz = normalize((sum_i w_i M_i) t0.xyz), t.w = t0.w, negated where
   *   the blended 3x3 has a negative determinant (a mirrored frame). */
  SKN_METHOD_LBS_MATRIX = 0,
  /* Linear blend skinning, per-bone form: M_i = [s_i R_i | t_i] with R_i a
   * rotation (kept as a quaternion) and s_i a uniform scale,
   *   v = sum_i w_i (b_i + s_i R_i v'_i)                         (eq. 1-3)
   *   n = normalize(sum_i w_i s_i^-1 R_i n'_i)                   (eq. 6-7)
   * where v'_i = v0 - c_i is the vertex's offset from joint i's bind origin
   * c_i (precomputed at bind), b_i = M_i c_i the joint's posed origin and
   * n'_i = n0. It equals LBS_MATRIX wherever it applies. A joint with an
   * influence whose skinning 3x3 is not a rotation times a uniform scale
   * within 1e-4 (relative), or whose determinant is <= 0, is
   * SKN_ERR_UNSUPPORTED, naming the joint. */
  SKN_METHOD_LBS_QUATERNION = 1,
  /* Dual quaternion skinning (Kavan, Collins, Zara, O'Sullivan 2008,
   * "Geometric Skinning with Approximate Dual Quaternion Blending"): no
   * candy-wrapper collapse under twist. Each M_i = rigid_i * S_i (see
   * skn_dqs_scale); per vertex
   *   S = sum w_i S_i / sum w_i            scale/shear, blended linearly
   *   c = normalize(sum +-w_i q_i)         q_i the unit dual quaternion of rigid_i
   *   v = c (S v0),  n = normalize(R(c) S^-T n0),  t.xyz = normalize(R(c) S t0.xyz)
   * q_i is negated when its real part's dot product with the running sum of
   * the influences before it (in bind's order) is negative: Blender's rule.
   * With one influence, or with rigid M_i that all agree, DQS equals M_i v0.
   * The blend is always normalized, whatever the weight mode. */
  SKN_METHOD_DQS = 2,
  /* Per vertex, v = (1 - b) LBS + b DQS with b from bind's blend_weights
   * (Maya's "Weight Blended"); normals and tangents blended alike and
   * renormalized. A rig bound without blend_weights: SKN_ERR_UNSUPPORTED. */
  SKN_METHOD_BLEND = 3,
  /* Optimized centers of rotation (Le & Hodgins 2016, "Real-time Skeletal
   * Skinning with Optimized Centers of Rotation"): bind finds each vertex's
   * center p* from the similarity of skinning weights over the mesh's
   * triangles (their eq. 3-5, sigma = 0.1); per pose
   *   R = rotation of normalize(sum +-w_i q_i) (antipodality as in DQS)
   *   v = R S (v0 - p*) + sum w_i M_i p*   (S as in DQS; the paper's
   *                                         v = R v0 + t when S = I)
   *   n = R S^-T n0
   * No candy wrapper and less bulging at bends than DQS. Vertices with no
   * similar triangle (e.g. one influence) are skinned by LBS. A rig bound
   * without triangles: SKN_ERR_UNSUPPORTED. */
  SKN_METHOD_COR = 4,
  SKN_METHOD_FORCE_U32 = 0x7FFFFFFF
} skn_method;

/* How the dual-quaternion methods (DQS, BLEND, COR) split each M_i into a
 * rigid part and a bind-space scale/shear, M_i = rigid_i * S_i. With B_i the
 * bind matrix (joint -> model) and W_i the posed one, R_i below is a rotation
 * of W_i's 3x3 and Rb_i the same rotation of B_i's; then
 *   rigid_i = [R_i Rb_i^T | t(W_i) - R_i Rb_i^T c_i]   (c_i = B_i's origin)
 *   S_i     = rigid_i^-1 M_i                          (acts first, about c_i)
 * which for a rigid B_i is [R_i | t(W_i)] B_i^-1 and B_i [R_i | t(W_i)]^-1 W_i B_i^-1.
 * A joint whose M_i's 3x3 A is a rotation within 5e-6 (A^T A = I element
 * by element, det A > 0: the rounding composed rotations leave) has S_i = I
 * and rigid_i = M_i under both splits, so with rigid poses they agree; any
 * scale past it is kept. Zero is the default. */
typedef enum skn_dqs_scale {
  SKN_DQS_SCALE_POLAR = 0,    /* R_i = the polar factor of W_i's 3x3 (Higham's iteration) */
  SKN_DQS_SCALE_KEEP_Y,       /* R_i = W_i's frame orthonormalised keeping its Y axis, as
                                 Blender's "Preserve Volume" does (orthogonalize_m4(mat, 1)) */
  SKN_DQS_SCALE_FORCE_U32 = 0x7FFFFFFF
} skn_dqs_scale;

/* How the kernels write their outputs. Streaming (non-temporal) stores go
 * around the caches: they save the read-for-ownership of every output line
 * where the results are not read again soon (a mesh larger than the
 * last-level cache, uploaded elsewhere), and cost a trip to memory where
 * they are. The results are bit-identical either way. The vectorised
 * kernels (every method's, for rigs of fewer than 65535 joints) stream,
 * for whole groups (16 vertices under AVX-512, 8 under AVX2, 4 under SSE2) whose
 * packed output is aligned to the vector width; everything else is written
 * through the caches. */
typedef enum skn_stores {
  SKN_STORES_AUTO = 0,   /* streaming where the call's inputs and outputs exceed the last-level cache */
  SKN_STORES_CACHED,     /* always through the caches */
  SKN_STORES_STREAMING,  /* streaming wherever the kernel can */
  SKN_STORES_FORCE_U32 = 0x7FFFFFFF
} skn_stores;

typedef struct skn_skin_desc {
  uint32_t struct_size;
  skn_method method;
  uint32_t first_vertex;      /* < the rig's vertex count */
  uint32_t vertex_count;      /* 0 = to the last vertex; first + count <= the rig's count */
  skn_out_attrib positions;   /* float[3], required; addressed by absolute vertex index */
  skn_out_attrib normals;     /* float[3], optional; unit length; needs normals at bind */
  skn_out_attrib tangents;    /* float[4], optional; xyz unit, w kept, negated where mirrored;
                                 needs tangents at bind */
  uint32_t threads;           /* 0 = library default (all cores), 1 = the calling thread only;
                                 a small call (under ~100 us of work) that finds the library's
                                 workers asleep runs on the calling thread: waking one costs more */
  skn_dqs_scale dqs_scale;    /* how DQS splits each M_i into rigid part and scale/shear */
  /* appended: a caller passing struct_size 72 gets SKN_STORES_AUTO */
  skn_stores stores;          /* cached or streaming output stores; 0 = SKN_STORES_AUTO */
} skn_skin_desc;

/* The instruction sets skn's kernels come in. All give the same results
 * within float rounding (tested against the scalar reference); the pose's
 * palette is the same bit for bit under every choice. */
typedef enum skn_simd {
  SKN_SIMD_AUTO = 0,     /* the best this CPU has (the default) */
  SKN_SIMD_SCALAR,       /* the plain scalar reference kernels */
  SKN_SIMD_PORTABLE,     /* vectorised for the compiler's baseline (SSE2 on x86-64) */
  SKN_SIMD_AVX2,         /* AVX2 with FMA */
  SKN_SIMD_AVX512,       /* AVX-512 (F and VL) */
  SKN_SIMD_FORCE_U32 = 0x7FFFFFFF
} skn_simd;

/* Chooses the kernels for the whole process (benchmarks, tests,
 * reproducible runs). SKN_ERR_UNSUPPORTED when this CPU lacks the
 * instruction set, or this build of skn was made without its kernels (the
 * Makefile's KERNEL_SETS=native, which `make demo` uses, keeps the widest
 * set the building CPU runs); nothing changes then. Not to be called while
 * another thread is in skn_skin. */
SKN_API skn_status skn_set_simd(skn_simd simd);

/* The kernels in use: never SKN_SIMD_AUTO. */
SKN_API skn_simd skn_get_simd(void);

/* Deforms vertices [first_vertex, first_vertex + vertex_count) of a rig by a
 * pose made from it, writing vertex v's results at data + v*stride, so that
 * a host can split one mesh across its own threads. A vertex bound with no
 * influence is written at rest.
 * Errors: a pose of another rig, an output the rig was not bound with, an
 * unknown method (SKN_ERR_INVALID_ARGUMENT); a range past the end
 * (SKN_ERR_INDEX_OUT_OF_RANGE); a method that cannot serve this pose
 * (SKN_ERR_UNSUPPORTED). Nothing is written then. */
SKN_API skn_status skn_skin(const skn_rig *rig, const skn_pose *pose, const skn_skin_desc *desc);

/* ------------------------------------------------------------------------
 * 5. glTF 2.0: rigs and poses from .gltf and .glb files
 *
 * skn reads skinned glTF 2.0 (.gltf with external or data: URI buffers, and
 * .glb): meshes with their morph targets, skins, the node hierarchy and
 * animations of translation, rotation, scale and morph weights (LINEAR with
 * slerp, STEP, CUBICSPLINE), with KHR_mesh_quantization's integer
 * attributes. An asset whose extensionsRequired names any other extension
 * that changes geometry is SKN_ERR_UNSUPPORTED naming it (extensions that
 * only concern materials, textures, lights or cameras, which skn never
 * reads, are ignored). Skinning follows the specification (§3.7.3):
 * jointMatrix = globalTransform(joint) * inverseBindMatrix, so skinned
 * positions are in the scene's world space and the skinned mesh node's own
 * transform is not applied. Loading validates everything skinning relies on;
 * a malformed file is SKN_ERR_PARSE with a message that points into the
 * document ("accessors[7]: byteOffset + count*stride = 5120 exceeds
 * bufferViews[2].byteLength 4096"), a file that cannot be read SKN_ERR_IO.
 * Images are never opened. A skn_gltf is immutable once open and may be
 * shared by threads.
 * ---------------------------------------------------------------------- */

typedef struct skn_gltf skn_gltf;

/* Opens and validates a .gltf or .glb file (by content, not by name),
 * loading its buffers from inside its folder (skn_gltf_open_with below says
 * which files a URI may name). On success *out is freed by skn_gltf_close. Opening
 * costs time and memory in proportion to the file's bytes (and its
 * buffers'), whatever counts it declares: what a count makes large is
 * allocated by skn_gltf_bind, under its max_bytes. */
SKN_API skn_status skn_gltf_open(const char *path, skn_gltf **out);

/* The same from `size` bytes in memory (copied): a .glb, or a .gltf whose
 * buffers are data: URIs (a relative URI has no folder to be read from:
 * SKN_ERR_IO naming it). (1.1) */
SKN_API skn_status skn_gltf_open_memory(const void *data, size_t size, skn_gltf **out);

/* Which files a document's relative URIs may name (skn_gltf_open_desc.flags). By default a
 * buffer's URI is a path relative to the document's folder that stays inside it: an absolute
 * path, a ".." that climbs above the folder, a symbolic link that resolves outside it, a URI
 * of another scheme (file:, http:) or one that decodes to a NUL byte is SKN_ERR_IO naming the
 * buffer and its URI, before anything is read — so that a document from elsewhere cannot read
 * the host's files into its vertices. Whatever the flags, only regular files are read: a
 * directory, FIFO, socket or device (the document itself too) is SKN_ERR_IO naming its kind,
 * at once, never a read that blocks. Images are never opened. (1.3) */
enum {
  SKN_GLTF_OPEN_ANY_PATH = 1u << 0 /* relative URIs may also climb out of the folder and absolute
                                      paths are read: for a host that trusts its documents and
                                      keeps buffers in a shared folder */
};

typedef struct skn_gltf_open_desc {
  uint32_t struct_size;
  const char *path;      /* a .gltf or .glb file ... */
  const void *data;      /* ... or `size` bytes in memory (copied); give exactly one */
  size_t size;
  const char *folder;    /* a document in memory: the folder its relative URIs name files in
                            (NULL: none, as skn_gltf_open_memory); ignored with `path` */
  uint32_t flags;        /* SKN_GLTF_OPEN_* */
} skn_gltf_open_desc;

/* skn_gltf_open or skn_gltf_open_memory with the choices above: the same document, the same
 * errors. SKN_ERR_INVALID_ARGUMENT for neither or both of path and data, an unknown flag, or
 * struct_size 0. (1.3) */
SKN_API skn_status skn_gltf_open_with(const skn_gltf_open_desc *desc, skn_gltf **out);

/* Frees a document. NULL is ignored. Rigs made from it stay valid. */
SKN_API void skn_gltf_close(skn_gltf *gltf);

typedef struct skn_gltf_info {
  uint32_t struct_size;     /* the caller sets sizeof; the library fills what fits */
  uint32_t primitive_count; /* skinned primitives: the `primitive` numbers below */
  uint32_t skin_count;
  uint32_t animation_count;
  uint32_t node_count;
  uint32_t mesh_count;
} skn_gltf_info;

SKN_API skn_status skn_gltf_info_get(const skn_gltf *gltf, skn_gltf_info *out);

/* Bits of skn_gltf_primitive_info.flags. */
enum { SKN_GLTF_HAS_NORMALS = 1u << 0, SKN_GLTF_HAS_TANGENTS = 1u << 1 };

/* A skinned primitive: one with POSITION and JOINTS_0/WEIGHTS_0 of a mesh
 * that a node with a skin instantiates; a mesh that n such nodes use gives
 * n of each of its primitives, one per (node, skin). They are numbered from
 * 0 mesh by mesh, then node by node (in document order), then primitive by
 * primitive. */
typedef struct skn_gltf_primitive_info {
  uint32_t struct_size;
  uint32_t mesh;                 /* meshes[mesh] */
  uint32_t primitive_in_mesh;    /* its .primitives[primitive_in_mesh] */
  uint32_t node;                 /* the node that instantiates it with ... */
  uint32_t skin;                 /* ... skins[skin] */
  uint32_t vertex_count;         /* in accessor order */
  uint32_t triangle_count;       /* from indices and mode (strips and fans unrolled); 0 for points/lines */
  uint32_t joint_count;          /* the skin's */
  uint32_t influences_per_vertex;/* 4 per JOINTS_n/WEIGHTS_n set */
  uint32_t flags;                /* SKN_GLTF_HAS_* */
  const char *mesh_name;         /* "" when unnamed; valid while the document is open */
  /* appended in 1.2 */
  const char *node_name;         /* nodes[node].name, "" when unnamed */
  uint32_t morph_target_count;   /* the primitive's targets (skn_gltf_morph_target_name) */
} skn_gltf_primitive_info;

SKN_API skn_status skn_gltf_primitive_info_get(const skn_gltf *gltf, uint32_t primitive,
                                               skn_gltf_primitive_info *out);

/* The name of the primitive's morph target `target` from its mesh's
 * extras.targetNames (as Blender and most exporters write them), "" where
 * there is none; valid while the document is open. SKN_ERR_INDEX_OUT_OF_RANGE
 * for a target past morph_target_count. (1.2) */
SKN_API skn_status skn_gltf_morph_target_name(const skn_gltf *gltf, uint32_t primitive, uint32_t target,
                                              const char **out_name);

typedef struct skn_gltf_animation_info {
  uint32_t struct_size;
  uint32_t channel_count;
  float start, end;              /* seconds: the first and last key over its samplers */
  const char *name;              /* "" when unnamed; valid while the document is open */
} skn_gltf_animation_info;

SKN_API skn_status skn_gltf_animation_info_get(const skn_gltf *gltf, uint32_t animation,
                                               skn_gltf_animation_info *out);

/* The index of the first animation named `name`; SKN_ERR_INDEX_OUT_OF_RANGE
 * when there is none. */
SKN_API skn_status skn_gltf_find_animation(const skn_gltf *gltf, const char *name, uint32_t *out_index);

/* Writes the primitive's triangles (3 vertex indices each, triangle_count of
 * them); dst_count smaller than 3 * triangle_count is SKN_ERR_INVALID_ARGUMENT. */
SKN_API skn_status skn_gltf_triangles(const skn_gltf *gltf, uint32_t primitive, uint32_t *dst,
                                      size_t dst_count);

typedef struct skn_gltf_bind_desc {
  uint32_t struct_size;
  uint32_t primitive;            /* which skinned primitive */
  uint32_t centers_of_rotation;  /* nonzero: bind with the triangles, so that SKN_METHOD_COR is
                                    served (costs the centers' precomputation) */
  uint32_t max_influences;       /* as skn_bind_desc */
  float min_weight;              /* as skn_bind_desc */
  const float *blend_weights;    /* optional, vertex_count, for SKN_METHOD_BLEND */
  /* appended: a caller passing struct_size 32 gets SKN_LAYOUT_FULL */
  skn_bind_layout layout;        /* as skn_bind_desc */
  /* appended in 1.1: a caller passing struct_size 40 gets the default */
  uint64_t max_bytes;            /* the most binding may allocate for this primitive, estimated before
                                    anything is: (100 + 34 k) bytes a vertex of k influences, 12 a
                                    triangle with centers_of_rotation. 0: 2 GiB. A document declares
                                    counts its bytes need not back (an accessor without a bufferView
                                    is zeros): over this, SKN_ERR_UNSUPPORTED before any allocation */
} skn_gltf_bind_desc;

/* Binds a skinned primitive: its skin's joints in the skin's order (parents:
 * the nearest ancestor node that is also a joint), inverseBindMatrices
 * (identity when absent), positions, normals and tangents where present,
 * the JOINTS_n/WEIGHTS_n sets merged into one influence list per vertex,
 * weights normalized (SKN_WEIGHTS_NORMALIZE), and the primitive's morph
 * targets (their POSITION, NORMAL and TANGENT offsets, sparse accessors
 * kept sparse) with the node's weights, else the mesh's, as the new pose's
 * morph weights. A new pose of the rig is the
 * bind pose; skn_gltf_pose with SKN_GLTF_NO_ANIMATION gives the document's
 * own node transforms. */
SKN_API skn_status skn_gltf_bind(const skn_gltf *gltf, const skn_gltf_bind_desc *desc, skn_rig **out_rig);

#define SKN_GLTF_NO_ANIMATION 0xFFFFFFFFu

/* Poses a rig made by skn_gltf_bind for `primitive` at `time` seconds of
 * `animation` (SKN_GLTF_NO_ANIMATION: the nodes' own transforms), times
 * outside the animation clamped to its ends. Every joint's global transform,
 * non-joint ancestors included, is set with skn_pose_set_model, and the
 * morph weights with skn_pose_set_morph_weights: the animation's `weights`
 * channel of the primitive's node where it has one, else the node's
 * weights, else the mesh's, else zeros. The rig must be bound from this
 * primitive's skin: a rig bound by skn_bind, or from a skin with other
 * joints, hierarchy or inverse bind matrices (another document's, or
 * another skin of this one) is SKN_ERR_INVALID_ARGUMENT, whatever its joint
 * count. The same skin in another file passes (an animation file beside
 * its model, the document reopened). */
SKN_API skn_status skn_gltf_pose(const skn_gltf *gltf, uint32_t primitive, uint32_t animation, float time,
                                 skn_pose *pose);

/* ------------------------------------------------------------------------
 * 6. GPU skinning: GLSL text, per-vertex attributes, palettes (1.1)
 *
 * On a GPU, skinning belongs in the vertex shader: per frame the CPU poses
 * the rig and uploads one small palette (a few vec4 per joint), and the mesh
 * never moves again. skn gives a host the three things that takes, each
 * from one skn_gpu_desc:
 *   - skn_glsl_source: GLSL functions skn_skin_position(), skn_skin_normal(),
 *     skn_skin_tangent() for any method, to paste before the host's main();
 *   - skn_rig_gpu_attributes: the per-vertex inputs those functions read
 *     (joints, weights, BLEND's b, COR's centers), exactly the influences
 *     skn_skin uses, written once at bind;
 *   - skn_pose_gpu_palette: per pose, the palette they read, in one buffer.
 * The shader does the arithmetic of the CPU kernels in the same order, and
 * matches skn_skin to 1e-5 of the model's size (tests/gl, on Mesa). What
 * each method needs (vec4 = 16 bytes):
 *   method          per joint (palette_vec4s)         per vertex, beyond the rest mesh
 *   LBS_MATRIX      3: M_i's rows; +3 N_i's (normals)  joints, weights
 *   LBS_QUATERNION  2: q_i; t_i and s_i                joints, weights
 *   DQS             5: dual quaternion; S_i's rows     joints, weights
 *   BLEND           8: DQS's, M_i's; +3 N_i's          joints, weights, b
 *   COR             8: DQS's, M_i's; +3 N_i's          joints, weights, center
 * plugins/gl (skn_gl.h) does all of it for a host with an OpenGL 3.3 or
 * OpenGL ES 3.0 context. The vertex shader reads 4, 8, 12 or 16 (1.4) influences a
 * vertex; with SKN_GLSL_MORPHS (1.4) it applies morph targets too: each
 * vertex's entries (skn_rig_gpu_buffers, vertex by vertex) in a 2D R32UI
 * texture, the pose's weights after the joints in the palette — work in
 * proportion to the vertex's own entries.
 *
 * The compute shader (1.4; SKN_GLSL_COMPUTE, GLSL 4.30 or ES 3.10) skins
 * once a frame into a buffer that every pass draws from: any number of
 * influences a vertex (exactly those skn_skin uses), morph targets (a second
 * compute shader, SKN_GLSL_MORPH_PASS, sums the active targets' sparse
 * entries: work in proportion to them, as on the CPU), the previous frame's
 * positions on request (motion vectors), and any number of jobs a dispatch
 * — several rigs, many poses of one rig (a crowd) — each into its own range.
 * Per rig, skn_rig_gpu_buffers writes what it reads (the rest records, the
 * influences, the morph entries); per pose, skn_pose_gpu_palette (as for the
 * vertex shader; the palettes of a dispatch one after another in a storage
 * buffer) and skn_pose_morph_weights. The text's opening comment lists its
 * bindings, the jobs' table and how to dispatch it. plugins/gl runs it for a
 * host with OpenGL 4.3 or ES 3.1.
 * ---------------------------------------------------------------------- */

/* The GLSL the text is written in. */
typedef enum skn_glsl_dialect {
  SKN_GLSL_330 = 0,    /* #version 330 core (OpenGL 3.3 and later) */
  SKN_GLSL_300_ES,     /* #version 300 es (OpenGL ES 3.0 and later, WebGL 2) */
  SKN_GLSL_430,        /* 1.4: #version 430 core (OpenGL 4.3 and later): vertex or compute */
  SKN_GLSL_310_ES,     /* 1.4: #version 310 es (OpenGL ES 3.1 and later): vertex or compute */
  SKN_GLSL_DIALECT_FORCE_U32 = 0x7FFFFFFF
} skn_glsl_dialect;

/* Where the shader reads the palette from (skn_pose_gpu_palette's bytes in
 * each case, as they are). */
typedef enum skn_glsl_palette {
  SKN_GLSL_PALETTE_UNIFORM_BLOCK = 0, /* std140 block "SknPalette" { vec4 skn_palette[joint_count *
                                         palette_vec4s]; }: fastest; at least 16 KB, often 64 KB
                                         (GL_MAX_UNIFORM_BLOCK_SIZE) */
  SKN_GLSL_PALETTE_TEXTURE_BUFFER,    /* samplerBuffer skn_palette over a GL_RGBA32F texture buffer
                                         (330 only): millions of texels */
  SKN_GLSL_PALETTE_TEXTURE_2D,        /* sampler2D skn_palette, a GL_RGBA32F texture of any width,
                                         the texels in rows: for ES, and any palette too large for
                                         a uniform block */
  SKN_GLSL_PALETTE_STORAGE_BUFFER,    /* 1.4: a std430 storage buffer of vec4 at binding 1 (the
                                         compute shader's, whatever palette says; vertex shaders of
                                         GLSL 4.30 / ES 3.10 may read it too): any size */
  SKN_GLSL_PALETTE_FORCE_U32 = 0x7FFFFFFF
} skn_glsl_palette;

/* Bits of skn_gpu_desc.outputs: the functions the text defines beyond
 * skn_skin_position (and what the palette holds for them). */
enum { SKN_GPU_NORMALS = 1u << 0, SKN_GPU_TANGENTS = 1u << 1 };

/* Bits of skn_gpu_desc.flags. */
enum {
  SKN_GLSL_NO_VERSION = 1u << 0, /* leave out the #version line, for hosts that write their own
                                    preamble (Blender's gpu module) */
  /* 1.4, with dialect SKN_GLSL_430 or SKN_GLSL_310_ES: */
  SKN_GLSL_COMPUTE = 1u << 1,    /* the compute shader that skins every vertex of a dispatch's jobs
                                    into the output buffer: a whole shader, main() included; any
                                    number of influences (influences is ignored) */
  SKN_GLSL_MORPHS = 1u << 2,     /* morph targets: the compute shader adds the offsets the morph
                                    pass summed; the vertex shader sums the vertex's own entries
                                    (skn_morph_range, skn_morph_entries) with the weights that
                                    follow the joints in the palette (morph_target_count) */
  SKN_GLSL_PREVIOUS = 1u << 3,   /* (COMPUTE only) keep each vertex's last position in its output
                                    record */
  SKN_GLSL_MORPH_PASS = 1u << 4, /* (COMPUTE only) the morph pass's shader in place of the
                                    skinning one */
  /* 1.5, in any dialect: */
  SKN_GLSL_VAT_PLAYER = 1u << 5  /* the player of the animation textures `skn bake` writes, in
                                    place of the skinning text: vec3 skn_vat_position(int vertex,
                                    float frame), vec3 skn_vat_normal(int vertex, float frame) and
                                    int skn_vat_vertex(vec2 uv) for vat-png's textures (vat-exr's
                                    hold the values themselves, at the same texels);
                                    vec3 skn_vat_bones(vec3 rest, uvec4 joints, vec4 weights,
                                    float frame) for bone-vat; their uniforms described in the
                                    text; only dialect and SKN_GLSL_NO_VERSION count */
};

/* One GPU setup: the text, the palette and the layout all follow from it.
 * Zero is the default everywhere but in joint_count, which a uniform block
 * needs. */
typedef struct skn_gpu_desc {
  uint32_t struct_size;
  skn_method method;
  skn_dqs_scale dqs_scale;    /* the split the palette holds (DQS, BLEND, COR), as skn_skin_desc */
  uint32_t influences;        /* per vertex, as the attributes hold them: 4, 8, 12 or 16 (0 = 4); the
                                 compute shader reads any number and ignores it */
  uint32_t outputs;           /* SKN_GPU_NORMALS | SKN_GPU_TANGENTS */
  skn_glsl_dialect dialect;
  skn_glsl_palette palette;
  uint32_t joint_count;       /* the uniform block's length in joints (the rig's joint count);
                                 ignored by the texture palettes but with SKN_GLSL_MORPHS */
  uint32_t flags;             /* SKN_GLSL_* */
  /* appended in 1.4 */
  uint32_t morph_target_count; /* the vertex shader with SKN_GLSL_MORPHS: the rig's targets, whose
                                  weights follow joint_count joints in the palette */
} skn_gpu_desc;

/* Writes the GLSL for desc into dst, NUL-terminated, and its length
 * (without the NUL) into *out_length; dst NULL asks the length alone. The
 * text starts with a comment that lists everything it reads — the vertex
 * inputs (skn_joints0 as uvec4, skn_weights0 as vec4, ...), the palette's
 * block or sampler and how to bind it — then the #version line (unless
 * SKN_GLSL_NO_VERSION), so the host's own code goes after it. It defines
 *   vec3 skn_skin_position(vec3 rest_position);
 *   vec3 skn_skin_normal(vec3 rest_normal);      (with SKN_GPU_NORMALS)
 *   vec4 skn_skin_tangent(vec4 rest_tangent);    (with SKN_GPU_TANGENTS)
 * and names of its own that begin with skn_, Skn or SKN_.
 * With SKN_GLSL_COMPUTE the text is a whole compute shader instead: the
 * same arithmetic, its inputs and outputs in storage buffers (its comment
 * lists them), layout(local_size_x = 64).
 * Errors (SKN_ERR_INVALID_ARGUMENT, nothing written): an unknown method,
 * split, dialect, palette or bit; influences other than 4, 8, 12 or 16 (vertex
 * shader); a texture buffer in GLSL ES; a storage buffer before GLSL 4.30 /
 * ES 3.10; SKN_GLSL_COMPUTE in GLSL 3.30 or ES 3.00, or MORPHS, PREVIOUS or
 * MORPH_PASS without it; a uniform block with joint_count 0; dst_bytes
 * smaller than the length + 1. */
SKN_API skn_status skn_glsl_source(const skn_gpu_desc *desc, char *dst, size_t dst_bytes,
                                   size_t *out_length);

/* Bits of skn_gpu_layout.needs. */
enum {
  SKN_GPU_NEEDS_BLEND_WEIGHTS = 1u << 0, /* the vertex input skn_blend (float) */
  SKN_GPU_NEEDS_CENTERS = 1u << 1        /* the vertex input skn_center (vec4) */
};

/* A part a record does not hold (skn_gpu_layout). */
#define SKN_GPU_ABSENT 0xFFFFFFFFu

typedef struct skn_gpu_layout {
  uint32_t struct_size;   /* the caller sets sizeof; the library fills what fits */
  uint32_t palette_vec4s; /* per joint: the palette is joint_count * palette_vec4s * 16 bytes */
  uint32_t needs;         /* SKN_GPU_NEEDS_*: vertex inputs beyond joints and weights */
  /* 1.4: the compute shader's records (SKN_GLSL_COMPUTE; all 0 for a vertex shader), in floats:
   * where each part starts, SKN_GPU_ABSENT where the record has none. */
  uint32_t rest_floats;      /* a vertex's rest record (skn_gpu_buffers.rest): position, then the
                                normal, tangent, BLEND's b and COR's center where desc needs them */
  uint32_t output_floats;    /* a vertex's output record: position at 0, then ... */
  uint32_t output_normal;    /* ... the normal (SKN_GPU_NORMALS), */
  uint32_t output_tangent;   /* ... the tangent, w included (SKN_GPU_TANGENTS), */
  uint32_t output_previous;  /* ... the last dispatch's position (SKN_GLSL_PREVIOUS) */
  uint32_t morph_words;      /* 4-byte words of a morph entry and of a vertex's morph scratch
                                record: the vertex (the target, for the vertex shader; a stamp),
                                the position's offset (sum), then the normal's and the tangent's
                                (xyz) where outputs ask them: 4, 7 or 10 (with SKN_GLSL_MORPHS) */
  uint32_t morph_vec4s;      /* the vertex shader with SKN_GLSL_MORPHS: vec4 of morph weights after
                                the joints' in the palette, ceil(morph_target_count / 4) */
} skn_gpu_layout;

/* What desc's shader reads. The same errors as skn_glsl_source, less the
 * uniform block's joint_count. */
SKN_API skn_status skn_gpu_layout_get(const skn_gpu_desc *desc, skn_gpu_layout *out);

/* Writes the pose's palette for desc's shader: joint_count * palette_vec4s
 * vec4 (floats), joint j's at vec4 j * palette_vec4s, in bind's joint order;
 * for a vertex shader with SKN_GLSL_MORPHS, then layout.morph_vec4s vec4 of
 * the pose's morph weights, target t's at float t (desc's
 * morph_target_count must be the rig's, and joint_count its joints).
 * Errors: those of skn_gpu_layout_get; dst_bytes too small, or a uniform
 * block of fewer joints than the rig (SKN_ERR_INVALID_ARGUMENT); for
 * LBS_QUATERNION a joint that is not a rotation and uniform scale, as
 * skn_skin (SKN_ERR_UNSUPPORTED). Nothing is written then. */
SKN_API skn_status skn_pose_gpu_palette(const skn_pose *pose, const skn_gpu_desc *desc, void *dst,
                                        size_t dst_bytes);

/* The per-vertex inputs of the GLSL, in the order of the rest mesh; each an
 * skn_out_attrib (stride 0: packed) that is written where data is not NULL. */
typedef struct skn_gpu_attributes {
  uint32_t struct_size;
  uint32_t influences;          /* k per vertex: 4, 8, 12 or 16 (0 = 4), as skn_gpu_desc */
  uint32_t joint_bits;          /* 16 (0 = 16) or 8, for rigs of at most 256 joints */
  skn_out_attrib joints;        /* k unsigned indices of joint_bits (skn_joints0 = the first four,
                                   skn_joints1 the next); a vertex's unused slots are joint 0 */
  skn_out_attrib weights;       /* k floats (skn_weights0, skn_weights1); unused slots 0 */
  skn_out_attrib blend_weights; /* 1 float, BLEND's b (skn_blend): needs bind's blend_weights */
  skn_out_attrib centers;       /* 4 floats, COR's center (skn_center): xyz = p*, w = 1, or
                                   w = 0 where no triangle is similar and LBS serves the vertex;
                                   needs bind's triangles */
  skn_out_attrib positions;     /* float[3]: the rest mesh as the rig skins it (compact layouts:
                                   normals and tangents as decoded) */
  skn_out_attrib normals;       /* float[3]: needs normals at bind */
  skn_out_attrib tangents;      /* float[4]: needs tangents at bind */
  /* appended in 1.4 */
  skn_out_attrib morph_ranges;  /* uint32[2], the vertex shader's skn_morph_range: the vertex's first
                                   morph entry (skn_gpu_buffers.morph_entries, vertex by vertex) and
                                   their count */
} skn_gpu_attributes;

/* Writes the rig's per-vertex GPU inputs: its influences after bind's
 * pruning and normalizing (the weights the kernels use), up to k a vertex
 * in bind's order, padded with weight 0. Errors (nothing written): an
 * output the rig was not bound with, influences other than 4, 8, 12 or 16,
 * joint_bits other than 8 or 16, 8 with more than 256 joints, 16 with more
 * than 65536 (SKN_ERR_INVALID_ARGUMENT); a vertex of more than k influences
 * (SKN_ERR_UNSUPPORTED: bind with max_influences = k). */
SKN_API skn_status skn_rig_gpu_attributes(const skn_rig *rig, const skn_gpu_attributes *out);

/* 1.4: what the compute shader reads of a rig (SKN_GLSL_COMPUTE), laid out
 * for desc. Each array is written where its pointer is not NULL; the sizes
 * are written always, so a first call with NULLs asks them. */
typedef struct skn_gpu_buffers {
  uint32_t struct_size;
  void *rest;                /* SknRest: layout.rest_floats floats a vertex, the rest mesh as
                                skn_rig_gpu_attributes writes it (normals and tangents where desc's
                                outputs ask them: the rig must have them) */
  uint32_t *influences;      /* SknInfluences: vertex_count + 1 words, vertex v's first influence
                                and then the end, then per influence its joint and its weight's
                                bits: exactly skn_skin's influences, any number a vertex */
  uint32_t *morph_entries;   /* SknMorphEntries: every target's entries, target by target, each
                                layout.morph_words words: the vertex, then its position offset,
                                then its normal's and tangent's (xyz) where desc's outputs ask
                                them, as floats (zeros where the target has none). For a vertex
                                shader (SKN_GLSL_MORPHS): vertex by vertex, each vertex's in
                                ascending target order, word 0 the target; the texture
                                skn_morph_entries, one word a texel, in rows */
  uint32_t *morph_first;     /* compute: morph_target_count + 1: target t's first entry, then the
                                total (the vertex shader's are skn_gpu_attributes.morph_ranges) */
  size_t rest_bytes, influences_bytes, morph_entries_bytes, morph_first_bytes; /* written */
} skn_gpu_buffers;

/* A vertex shader's desc (SKN_GLSL_MORPHS) gets the morph entries alone;
 * rest and influences are the compute shader's (their sizes 0 else).
 * Errors (nothing written): desc invalid as for skn_glsl_source, a vertex
 * shader's without SKN_GLSL_MORPHS, normals or tangents asked of a rig
 * bound without them, BLEND without blend weights, COR without triangles
 * (SKN_ERR_INVALID_ARGUMENT). */
SKN_API skn_status skn_rig_gpu_buffers(const skn_rig *rig, const skn_gpu_desc *desc, skn_gpu_buffers *out);

/* ------------------------------------------------------------------------
 * 7. Weights: bones + mesh -> influences for bind (1.5)
 *
 * First weights for a mesh that has none (an importer's, a scan, a
 * generated body), as a DCC tool computes them when it binds a mesh:
 *
 *   SKN_WEIGHTS_HEAT     bone heat (I. Baran and J. Popovic, "Automatic
 *                        Rigging and Animation of 3D Characters", SIGGRAPH
 *                        2007): per bone, the surface's diffusion
 *                        (-L + H) w = H p, H from the distance to the nearest
 *                        bone the vertex sees, as Blender 3.4's "With
 *                        Automatic Weights" computes it (below);
 *   SKN_WEIGHTS_CLOSEST  from the distance d_b to each bone alone:
 *                        w_b = (d_min / d_b)^4 over the k nearest joints,
 *                        then normalized (Maya's "Closest distance" with its
 *                        dropoff rate of 4); a bone through the vertex takes it all.
 *
 * Bones are heat sources: segments from head to tail in the bind pose, in
 * the positions' space, each giving its weight to a joint (a B-Bone's
 * segments give theirs to one joint). The result is skn_bind's fixed-width
 * influences: vertex v's k joints and weights at [v*k, v*k+k), heaviest
 * first, unused slots joint 0 weight 0.
 *
 * Bone heat, as Blender computes it (the formulas, checked against
 * Blender 3.4: vertex normals n_i are the normalized sum of the unit
 * normals of the triangles around the vertex):
 *   D_ib = |x_i - y| / (0.5 (cos + 1.001)), y the closest point of bone b,
 *     cos = n_i . (x_i - y) / |x_i - y|: a bone behind the surface is far;
 *   bone b is nearest to vertex i where D_ib <= (1 + 1e-4) min_b D_ib and
 *     b is visible from x_i: the segment from x_i to y crosses no triangle
 *     facing it (its unit normal . the direction < -1e-5), past 1e-5 of
 *     its length at either end;
 *   with k_i nearest bones, H_i = k_i / max(min_b D_ib, 1e-4)^2 and
 *     p_i = 1 / k_i for them (H_i = 0 where no bone is visible);
 *   L's weights are the cotangents opposite an edge averaged over the
 *     edge's triangles, scaled per row by a_i = 1 / (4 A_i), A_i the
 *     vertex's mixed area (Meyer et al. 2003, "Discrete Differential-
 *     Geometry Operators for Triangulated 2-Manifolds": its Voronoi part of
 *     each triangle; of an obtuse one, half the area at the obtuse corner
 *     and a quarter at the others).
 *   One sparse Cholesky factorization (CHOLMOD, SuiteSparse, loaded at the
 *   first call from libcholmod.so.3: the library links nothing of it), one
 *   solve per bone, the bones spread over `threads`.
 * A joint's weight is its bone's solution u as Blender stores it: 0 below
 * 0.025, 2u - 0.05 below 0.05 (the diffusion's far tail cut, continuously),
 * u above; a joint of several bones, the sum of their positive solutions,
 * at most 1, where it is at least 0.025. Then min_weight, the k heaviest,
 * normalized. (Closest bone: the sum of a joint's bones' values, at most 1.)
 *
 * Fallbacks, never NaN: a mesh in several pieces is solved piece by piece;
 * a piece no bone is visible from (a loose part, a bone inside nothing),
 * and a vertex in no triangle or in zero-area triangles alone, take the
 * closest-bone weights; so does a vertex left with no weight.
 *
 * Refused, naming the item, nothing written: a count of 0, a triangle's
 * vertex out of range (SKN_ERR_INDEX_OUT_OF_RANGE) or repeated, for bone
 * heat an edge of three or more triangles without SKN_WEIGHTS_NON_MANIFOLD
 * (the message names a triangle and the edge's vertices), a bone of
 * zero length or out of range of joint_count, NaN or Inf
 * (SKN_ERR_NOT_FINITE), bone heat where libcholmod.so.3 cannot be loaded
 * (SKN_ERR_UNSUPPORTED; Debian: libcholmod3). A triangle of zero area
 * with three distinct vertices adds nothing (its cotangents are 0).
 * ---------------------------------------------------------------------- */

typedef enum skn_weights_method {
  SKN_WEIGHTS_HEAT = 0,
  SKN_WEIGHTS_CLOSEST = 1,
  SKN_WEIGHTS_METHOD_FORCE_U32 = 0x7FFFFFFF
} skn_weights_method;

enum {
  /* Vertices at the same position are one surface vertex for the solve
     (glTF's, split where normals or UVs are): same weights, and the seam
     joins the pieces it would otherwise split. A triangle two of whose
     corners weld into one is dropped. */
  SKN_WEIGHTS_WELD = 1u << 0,
  /* Accept edges of three or more triangles: the cotangents opposite an
     edge are averaged over its triangles, as Blender does. */
  SKN_WEIGHTS_NON_MANIFOLD = 1u << 1,
  /* The weights Blender stores, for a host that writes them where Blender
     would (vertex groups): a one-bone joint's solution u is dropped below
     0.025, becomes 2u - 0.05 below 0.05 and stays u above; a joint of
     several bones keeps the sum of its positive solutions, at most 1, if
     it is at least 0.025. Not normalized (Blender's modifier divides by
     the sum), min_weight ignored, no fallback for a vertex left with none;
     give k = joint_count to keep every weight. */
  SKN_WEIGHTS_AS_BLENDER = 1u << 2
};

typedef struct skn_weights_desc {
  uint32_t struct_size;
  skn_weights_method method;
  uint32_t vertex_count;               /* >= 1 */
  skn_attrib positions;                /* float[3] per vertex */
  uint32_t triangle_count;             /* bone heat needs >= 1 */
  const uint32_t *triangles;           /* 3 per triangle; counter-clockwise seen from outside */
  uint32_t bone_count;                 /* >= 1 */
  const float *bone_heads;             /* 3 per bone */
  const float *bone_tails;             /* 3 per bone */
  const uint32_t *bone_joints;         /* the joint each bone's weight goes to; NULL: bone b -> joint b */
  uint32_t joint_count;                /* joints are < joint_count; 0: bone_count (bone_joints NULL) */
  uint32_t influences_per_vertex;      /* k, the output's width; 0 = 4 */
  float min_weight;                    /* a joint's weight below it is dropped before normalizing; >= 0 */
  uint32_t flags;                      /* SKN_WEIGHTS_* */
  uint32_t threads;                    /* 0 = all cores, 1 = the calling thread only */
} skn_weights_desc;

/* Computes weights: joints and weights hold vertex_count * k entries each
 * (k = influences_per_vertex, or 4). Normalized to sum 1 (but under
 * SKN_WEIGHTS_AS_BLENDER): dropped below min_weight, the k heaviest kept. */
SKN_API skn_status skn_compute_weights(const skn_weights_desc *desc, uint32_t *joints, float *weights);

/* A glTF mesh's weights: the primitive `primitive_in_mesh` of the mesh of
 * `node`, a node with a skin (JOINTS_n or not: a mesh and a skeleton
 * without weights are what this is for), weighted by the skin's joints.
 * The joints are the skin's indices, for JOINTS_n. glTF has joints, not
 * bones: the bones are inferred, one a joint, in the mesh's space (glTF
 * 2.0 section 3.7.3: a joint at bind is its inverse bind matrix's inverse),
 * from each joint towards a child, with its bind frame's +Y as the hint it
 * is in Blender's exports (and most others'):
 *   - a joint with children runs to the child its +Y points at (within
 *     2.6 degrees); else to the one that goes on most straight from its
 *     parent (at a root: the one with the most descendants). Where +Y is
 *     within 45 degrees of that child but not at it, the bone runs along
 *     +Y as far as the child's projection (a Blender bone need not reach
 *     its child: a shoulder's);
 *   - a leaf runs along its +Y three fifths of the way to where that ray
 *     leaves the mesh (a head towards its crown, a toe towards its tip);
 *     where it leaves none, as far as the joint is from its parent (a
 *     tenth of the mesh's bounding-box diagonal for a joint on its parent,
 *     or a lone root);
 *   - children and joints closer than a millionth of the mesh's size are
 *     at one point (the rounding of inverting bind matrices).
 * A child is the nearest descendant node that is one of the skin's joints.
 * joints and weights hold `capacity` entries each; out_vertex_count (may be
 * NULL) receives POSITION's count n, and n x k entries are written. Both
 * NULL with capacity 0 asks for n alone; a capacity under n x k is
 * SKN_ERR_INVALID_ARGUMENT (n still given).
 * The triangles are the primitive's (strips and fans as TRIANGLES; points
 * and lines are SKN_ERR_UNSUPPORTED). flags: SKN_WEIGHTS_WELD (glTF
 * meshes split at UV and normal seams: usually wanted) and
 * SKN_WEIGHTS_NON_MANIFOLD; SKN_WEIGHTS_AS_BLENDER is refused. (1.5) */
typedef struct skn_gltf_weights_desc {
  uint32_t struct_size;
  uint32_t node;                       /* a node with a mesh and a skin */
  uint32_t primitive_in_mesh;
  skn_weights_method method;
  uint32_t influences_per_vertex;      /* k; 0 = 4 */
  float min_weight;
  uint32_t flags;
  uint32_t threads;
} skn_gltf_weights_desc;

SKN_API skn_status skn_gltf_compute_weights(const skn_gltf *gltf, const skn_gltf_weights_desc *desc,
                                            uint32_t *joints, float *weights, size_t capacity,
                                            uint32_t *out_vertex_count);

/* ------------------------------------------------------------------------
 * 8. Function table
 *
 * A host that dlopen()s libskn needs one dlsym("skn_get_api"). Functions
 * added in later minor versions are appended, never inserted; check
 * struct_size before calling past the first release's members.
 * ---------------------------------------------------------------------- */
struct skn_api {
  uint32_t struct_size; /* sizeof the table this library fills */
  uint32_t abi_version; /* SKN_VERSION_NUMBER of the library */
  uint32_t (*version)(void);
  const char *(*version_string)(void);
  const char *(*status_name)(skn_status status);
  const char *(*last_error)(void);
  skn_status (*bind)(const skn_bind_desc *desc, skn_rig **out_rig);
  void (*rig_destroy)(skn_rig *rig);
  skn_status (*rig_info_get)(const skn_rig *rig, skn_rig_info *out);
  skn_status (*pose_create)(const skn_rig *rig, skn_pose **out_pose);
  void (*pose_destroy)(skn_pose *pose);
  skn_status (*pose_set_local)(skn_pose *pose, uint32_t first, uint32_t count,
                               const skn_transform *local);
  skn_status (*pose_set_model)(skn_pose *pose, uint32_t first, uint32_t count,
                               const float *joint_to_model16);
  skn_status (*pose_palette)(const skn_pose *pose, skn_palette_format format,
                             void *dst, size_t dst_bytes);
  skn_status (*skin)(const skn_rig *rig, const skn_pose *pose, const skn_skin_desc *desc);
  /* glTF (section 5): */
  skn_status (*gltf_open)(const char *path, skn_gltf **out);
  void (*gltf_close)(skn_gltf *gltf);
  skn_status (*gltf_info_get)(const skn_gltf *gltf, skn_gltf_info *out);
  skn_status (*gltf_primitive_info_get)(const skn_gltf *gltf, uint32_t primitive, skn_gltf_primitive_info *out);
  skn_status (*gltf_animation_info_get)(const skn_gltf *gltf, uint32_t animation, skn_gltf_animation_info *out);
  skn_status (*gltf_find_animation)(const skn_gltf *gltf, const char *name, uint32_t *out_index);
  skn_status (*gltf_triangles)(const skn_gltf *gltf, uint32_t primitive, uint32_t *dst, size_t dst_count);
  skn_status (*gltf_bind)(const skn_gltf *gltf, const skn_gltf_bind_desc *desc, skn_rig **out_rig);
  skn_status (*gltf_pose)(const skn_gltf *gltf, uint32_t primitive, uint32_t animation, float time,
                          skn_pose *pose);
  /* kernels (section 4): */
  skn_status (*set_simd)(skn_simd simd);
  skn_simd (*get_simd)(void);
  /* 1.1: errors and memory (section 1), GPU skinning (section 6), glTF from memory (section 5) */
  skn_status (*set_error)(skn_status status, const char *message);
  skn_status (*glsl_source)(const skn_gpu_desc *desc, char *dst, size_t dst_bytes, size_t *out_length);
  skn_status (*gpu_layout_get)(const skn_gpu_desc *desc, skn_gpu_layout *out);
  skn_status (*pose_gpu_palette)(const skn_pose *pose, const skn_gpu_desc *desc, void *dst, size_t dst_bytes);
  skn_status (*rig_gpu_attributes)(const skn_rig *rig, const skn_gpu_attributes *out);
  skn_status (*set_allocator)(const skn_allocator *allocator);
  skn_status (*gltf_open_memory)(const void *data, size_t size, skn_gltf **out);
  /* 1.2: morph targets (sections 2, 3 and 5) */
  skn_status (*pose_set_morph_weights)(skn_pose *pose, uint32_t first, uint32_t count, const float *weights);
  skn_status (*pose_morph_weights)(const skn_pose *pose, uint32_t first, uint32_t count, float *out);
  skn_status (*gltf_morph_target_name)(const skn_gltf *gltf, uint32_t primitive, uint32_t target,
                                       const char **out_name);
  /* 1.3: which files a document may read (section 5) */
  skn_status (*gltf_open_with)(const skn_gltf_open_desc *desc, skn_gltf **out);
  /* 1.4: the compute shader's buffers (section 6) */
  skn_status (*rig_gpu_buffers)(const skn_rig *rig, const skn_gpu_desc *desc, skn_gpu_buffers *out);
  /* 1.5: weights (section 7) */
  skn_status (*compute_weights)(const skn_weights_desc *desc, uint32_t *joints, float *weights);
  skn_status (*gltf_compute_weights)(const skn_gltf *gltf, const skn_gltf_weights_desc *desc, uint32_t *joints,
                                     float *weights, size_t capacity, uint32_t *out_vertex_count);
};

/* The function table for ABI major abi_major (pass SKN_VERSION_MAJOR), or
 * NULL when this library does not implement that major. Static storage. */
SKN_API const skn_api *skn_get_api(uint32_t abi_major);

#ifdef __cplusplus
}
#endif
#endif /* SKN_H */
