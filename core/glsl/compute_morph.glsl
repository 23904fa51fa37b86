// The morph pass (SKN_GLSL_MORPH_PASS): before the skinning dispatch, one
// dispatch a round, round a adding the a-th active morph target of every
// job (its weight times its offsets) into the job's scratch records, each
// round followed by glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT): every
// vertex sums its targets in ascending order, as the CPU does. A record last
// stamped by an earlier frame counts as zeros and is stamped skn_frame: the
// work is the active targets' entries, as on the CPU, and a vertex no
// active target moves is never touched (the skinning pass reads its stamp,
// 4 bytes). Within a round no two entries of a job share a vertex, and the
// jobs' scratch ranges are apart.
//   5 SknMorphScratch  the jobs' scratch records (SKN_MORPH_WORDS words a vertex)
//   6 SknMorphEntries  the rigs' entries (skn_rig_gpu_buffers' morph_entries,
//                      SKN_MORPH_WORDS words an entry: the vertex, offsets)
//   7 SknMorphTasks    uvec4 a job and target: (its first entry, its entry
//                      count, the job's scratch record of vertex 0, the
//                      weight's bits)
// Uniforms: skn_task_first (the round's first task), skn_frame. Dispatch
// (x, n) groups for a round of n tasks: task i is work group row i; the x
// groups stride over its entries (x up to GL_MAX_COMPUTE_WORK_GROUP_COUNT[0]).
layout(local_size_x = 64) in;

layout(std430, binding = 5) buffer SknMorphScratch { uint skn_scratch[]; };
layout(std430, binding = 6) readonly buffer SknMorphEntries { uint skn_entries[]; };
layout(std430, binding = 7) readonly buffer SknMorphTasks { uvec4 skn_tasks[]; };

uniform uint skn_task_first, skn_frame;

void main() {
  uvec4 task = skn_tasks[skn_task_first + gl_WorkGroupID.y];
  float weight = uintBitsToFloat(task.w);
  for (uint e = gl_WorkGroupID.x * 64u + gl_LocalInvocationID.x; e < task.y; e += gl_NumWorkGroups.x * 64u) {
    uint at = (task.x + e) * uint(SKN_MORPH_WORDS);
    uint m = (task.z + skn_entries[at]) * uint(SKN_MORPH_WORDS);
    bool fresh = skn_scratch[m] != skn_frame;
    for (uint k = 1u; k < uint(SKN_MORPH_WORDS); ++k) {
      float sum = fresh ? 0.0 : uintBitsToFloat(skn_scratch[m + k]);
      skn_scratch[m + k] = floatBitsToUint(sum + weight * uintBitsToFloat(skn_entries[at + k]));
    }
    skn_scratch[m] = skn_frame;
  }
}
