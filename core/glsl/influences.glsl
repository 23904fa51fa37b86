//! vertex
// The influences, as skn_rig_gpu_attributes writes them: joint indices as
// unsigned integers (glVertexAttribIPointer from GL_UNSIGNED_SHORT or
// GL_UNSIGNED_BYTE) and their weights, four a vertex input (skn_joints0 and
// skn_weights0 influences 0-3, skn_joints1 and skn_weights1 4-7, ...); a
// vertex's unused slots weigh 0. (The inputs, skn_joint(), skn_weight() and
// skn_unbound() for SKN_INFLUENCES follow, written by glsl.c.)
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
