//! 4
// The influences, as skn_rig_gpu_attributes writes them: joint indices as
// unsigned integers (glVertexAttribIPointer from GL_UNSIGNED_SHORT or
// GL_UNSIGNED_BYTE) and their weights; a vertex's unused slots weigh 0.
in uvec4 skn_joints0;   // influences 0-3
in vec4 skn_weights0;

const int skn_first = 0, skn_end = SKN_INFLUENCES;  // the slots the blends walk
int skn_joint(int s) { return int(skn_joints0[s]); }
float skn_weight(int s) { return skn_weights0[s]; }

// A vertex bound with no influence stays at rest, as skn_skin leaves it.
bool skn_unbound() { return skn_weights0 == vec4(0.0); }
//! 8
// The influences, as skn_rig_gpu_attributes writes them: joint indices as
// unsigned integers (glVertexAttribIPointer from GL_UNSIGNED_SHORT or
// GL_UNSIGNED_BYTE) and their weights; a vertex's unused slots weigh 0.
in uvec4 skn_joints0;   // influences 0-3
in vec4 skn_weights0;
in uvec4 skn_joints1;   // influences 4-7
in vec4 skn_weights1;

const int skn_first = 0, skn_end = SKN_INFLUENCES;  // the slots the blends walk
int skn_joint(int s) { return int(s < 4 ? skn_joints0[s] : skn_joints1[s - 4]); }
float skn_weight(int s) { return s < 4 ? skn_weights0[s] : skn_weights1[s - 4]; }

// A vertex bound with no influence stays at rest, as skn_skin leaves it.
bool skn_unbound() { return skn_weights0 == vec4(0.0) && skn_weights1 == vec4(0.0); }
//! compute
// The influences, as skn_rig_gpu_buffers writes them (any number a vertex,
// exactly those skn_skin uses): the job's words start at skn_influence_base;
// word v is vertex v's first influence, word vertex_count its end, then two
// words an influence: the joint, the weight's bits. main() sets the range.
layout(std430, binding = 3) readonly buffer SknInfluences { uint skn_influences[]; };

int skn_first, skn_end;     // the vertex's influences, [skn_first, skn_end)
uint skn_influence_pairs;   // the word of the job's influence 0

int skn_joint(int s) { return int(skn_influences[skn_influence_pairs + 2u * uint(s)]); }
float skn_weight(int s) { return uintBitsToFloat(skn_influences[skn_influence_pairs + 2u * uint(s) + 1u]); }

// A vertex bound with no influence stays at rest, as skn_skin leaves it.
bool skn_unbound() { return skn_first == skn_end; }
