//! 4
// The influences, as skn_rig_gpu_attributes writes them: joint indices as
// unsigned integers (glVertexAttribIPointer from GL_UNSIGNED_SHORT or
// GL_UNSIGNED_BYTE) and their weights; a vertex's unused slots weigh 0.
in uvec4 skn_joints0;   // influences 0-3
in vec4 skn_weights0;

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

int skn_joint(int s) { return int(s < 4 ? skn_joints0[s] : skn_joints1[s - 4]); }
float skn_weight(int s) { return s < 4 ? skn_weights0[s] : skn_weights1[s - 4]; }

// A vertex bound with no influence stays at rest, as skn_skin leaves it.
bool skn_unbound() { return skn_weights0 == vec4(0.0) && skn_weights1 == vec4(0.0); }
