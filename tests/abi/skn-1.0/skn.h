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
 *   6. Function table       skn_get_api, for hosts that dlopen the library
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
#define SKN_VERSION_MINOR 0
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

/* "1.0.0". Static storage; never NULL. */
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
  SKN_RIG_HAS_CENTERS_OF_ROTATION = 1u << 3   /* SKN_METHOD_COR is served */
};

typedef struct skn_rig_info {
  uint32_t struct_size;               /* the caller sets sizeof; the library fills what fits */
  uint32_t joint_count;
  uint32_t vertex_count;
  uint32_t influence_count;           /* after pruning */
  uint32_t max_influences_per_vertex; /* after pruning */
  uint32_t flags;                     /* SKN_RIG_HAS_* */
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

/* The layouts skn_pose_palette writes, per joint, in bind's joint order. */
typedef enum skn_palette_format {
  SKN_PALETTE_MAT4 = 0,       /* 16 floats per joint, column-major M_i */
  SKN_PALETTE_ROWS3X4,        /* 12 floats: the three rows of M_i's upper 3x4 (std140 vec4[3]) */
  SKN_PALETTE_NORMAL_ROWS3X4, /* 12 floats: rows of the inverse-transpose of M_i's 3x3, each
                                 padded with a 0 (the cofactor matrix where the 3x3 is singular) */
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
 * A joint whose M_i's 3x3 is a rotation within 1e-4 has S_i = I and
 * rigid_i = M_i under both splits, so with rigid poses they agree. Zero is
 * the default. */
typedef enum skn_dqs_scale {
  SKN_DQS_SCALE_POLAR = 0,    /* R_i = the polar factor of W_i's 3x3 (Higham's iteration) */
  SKN_DQS_SCALE_KEEP_Y,       /* R_i = W_i's frame orthonormalised keeping its Y axis, as
                                 Blender's "Preserve Volume" does (orthogonalize_m4(mat, 1)) */
  SKN_DQS_SCALE_FORCE_U32 = 0x7FFFFFFF
} skn_dqs_scale;

typedef struct skn_skin_desc {
  uint32_t struct_size;
  skn_method method;
  uint32_t first_vertex;      /* < the rig's vertex count */
  uint32_t vertex_count;      /* 0 = to the last vertex; first + count <= the rig's count */
  skn_out_attrib positions;   /* float[3], required; addressed by absolute vertex index */
  skn_out_attrib normals;     /* float[3], optional; unit length; needs normals at bind */
  skn_out_attrib tangents;    /* float[4], optional; xyz unit, w kept, negated where mirrored;
                                 needs tangents at bind */
  uint32_t threads;           /* 0 = library default (all cores), 1 = the calling thread only */
  skn_dqs_scale dqs_scale;    /* how DQS splits each M_i into rigid part and scale/shear */
} skn_skin_desc;

/* The instruction sets skn's kernels come in. All give the same results
 * within float rounding (tested against the scalar reference). */
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
 * instruction set; nothing changes then. Not to be called while another
 * thread is in skn_skin. */
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
 * .glb): meshes, skins, the node hierarchy and animations (LINEAR with slerp,
 * STEP, CUBICSPLINE). Skinning follows the specification (§3.7.3):
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
 * loading its buffers. On success *out is freed by skn_gltf_close. */
SKN_API skn_status skn_gltf_open(const char *path, skn_gltf **out);

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

/* A skinned primitive: one with JOINTS_0/WEIGHTS_0 of a mesh that a node
 * with a skin instantiates. They are numbered in document order, mesh by
 * mesh, primitive by primitive, from 0. */
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
} skn_gltf_primitive_info;

SKN_API skn_status skn_gltf_primitive_info_get(const skn_gltf *gltf, uint32_t primitive,
                                               skn_gltf_primitive_info *out);

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
} skn_gltf_bind_desc;

/* Binds a skinned primitive: its skin's joints in the skin's order (parents:
 * the nearest ancestor node that is also a joint), inverseBindMatrices
 * (identity when absent), positions, normals and tangents where present,
 * the JOINTS_n/WEIGHTS_n sets merged into one influence list per vertex,
 * weights normalized (SKN_WEIGHTS_NORMALIZE). A new pose of the rig is the
 * bind pose; skn_gltf_pose with SKN_GLTF_NO_ANIMATION gives the document's
 * own node transforms. */
SKN_API skn_status skn_gltf_bind(const skn_gltf *gltf, const skn_gltf_bind_desc *desc, skn_rig **out_rig);

#define SKN_GLTF_NO_ANIMATION 0xFFFFFFFFu

/* Poses a rig made by skn_gltf_bind for `primitive` at `time` seconds of
 * `animation` (SKN_GLTF_NO_ANIMATION: the nodes' own transforms), times
 * outside the animation clamped to its ends. Every joint's global transform,
 * non-joint ancestors included, is set with skn_pose_set_model. */
SKN_API skn_status skn_gltf_pose(const skn_gltf *gltf, uint32_t primitive, uint32_t animation, float time,
                                 skn_pose *pose);

/* ------------------------------------------------------------------------
 * 6. Function table
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
};

/* The function table for ABI major abi_major (pass SKN_VERSION_MAJOR), or
 * NULL when this library does not implement that major. Static storage. */
SKN_API const skn_api *skn_get_api(uint32_t abi_major);

#ifdef __cplusplus
}
#endif
#endif /* SKN_H */
