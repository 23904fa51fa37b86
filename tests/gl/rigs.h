/* rigs.h — the tests' rigs: random ones (testlib.h) made to exercise every
 * path of the shader, and the sample models through skn_gltf_bind. */
#ifndef SKN_GL_RIGS_H
#define SKN_GL_RIGS_H

#include "gltest.h"

/* A random rig of `joints` and `vertices` with k influences a vertex,
 * scale_mode as test_rig_random (2: non-uniform scale and shear), bound
 * with blend weights (0 and 1 among them) and triangles (so that BLEND and
 * COR serve it), vertex 0 without influences, and posed. */
int random_posed(posed *p, uint64_t seed, uint32_t joints, uint32_t vertices, uint32_t k, int scale_mode);

/* Morph targets for random_morphed: none; sparse (three targets: every
 * third vertex with all offsets, a run of neighbours with positions only,
 * a scattered few); dense (two of every vertex); both, with a target of
 * weight 0. Weights negative and above 1 among them. */
typedef enum morph_mode { MORPHS_NONE, MORPHS_SPARSE, MORPHS_DENSE, MORPHS_MIXED, MORPH_MODES } morph_mode;

/* random_posed with morph targets of `mode` bound and weighted in the pose. */
int random_morphed(posed *p, uint64_t seed, uint32_t joints, uint32_t vertices, uint32_t k, int scale_mode,
                   morph_mode mode);

/* Skinned primitive 0 of a glTF file, with centers and blend weights,
 * posed at `time` of its first animation. */
int gltf_posed(posed *p, const char *path, float time);

void posed_free(posed *p);

#endif
