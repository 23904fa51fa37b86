//! common
// Skinning in a compute shader: one invocation a vertex of every job of the
// dispatch, each job a posed rig (a rig, or one instance of it) written to
// its own range of the output. The buffers, bound by the host:
//   0 SknJobs      two uvec4 a job, in ascending first invocation:
//                    (first invocation, vertex count, rest record of vertex 0,
//                     palette texel of joint 0),
//                    (influence word of vertex 0, output record of vertex 0,
//                     morph scratch record of vertex 0 or 0xFFFFFFFF, 0)
//   1 SknPalette   the poses' palettes (above)
//   2 SknRest      SKN_REST_FLOATS floats a vertex: skn_rig_gpu_buffers' rest
//   3 SknInfluences skn_rig_gpu_buffers' influences (above)
//   4 SknOutput    SKN_OUT_FLOATS floats a vertex, written: the position at
//                  0, the normal at SKN_OUT_NORMAL, the tangent at
//                  SKN_OUT_TANGENT, the last dispatch's position at
//                  SKN_OUT_PREVIOUS (where those are >= 0)
//   5 SknMorphScratch (with morphs) SKN_MORPH_WORDS words a vertex, that the
//                  morph pass fills: a stamp, then the summed position
//                  offset, then the normal's and tangent's at
//                  SKN_MORPH_NORMAL and SKN_MORPH_TANGENT (where >= 0);
//                  they apply where the stamp is skn_frame
// and the uniforms skn_job_count and skn_frame (the dispatch's number, that
// the morph pass stamps with; 1 for the first, whose previous position is
// its own). Dispatch ceil(invocations / 64) groups as (x, y) with x at most
// GL_MAX_COMPUTE_WORK_GROUP_COUNT[0]: invocation (y * x_groups + x) * 64 + i.
layout(local_size_x = 64) in;

layout(std430, binding = 0) readonly buffer SknJobs { uvec4 skn_jobs[]; };
layout(std430, binding = 2) readonly buffer SknRest { float skn_rest[]; };
layout(std430, binding = 4) buffer SknOutput { float skn_out[]; };
//! morphs
layout(std430, binding = 5) readonly buffer SknMorphScratch { uint skn_scratch[]; };
//! common

uniform uint skn_job_count;
uniform uint skn_frame;

// The job of invocation i: the last whose first invocation is at most i.
uint skn_job_of(uint i) {
  uint lo = 0u, hi = skn_job_count;
  while (hi - lo > 1u) {
    uint mid = (lo + hi) / 2u;
    if (skn_jobs[2u * mid].x <= i) lo = mid; else hi = mid;
  }
  return lo;
}

vec3 skn_rest3(uint at) { return vec3(skn_rest[at], skn_rest[at + 1u], skn_rest[at + 2u]); }
void skn_put3(uint at, vec3 x) { skn_out[at] = x.x; skn_out[at + 1u] = x.y; skn_out[at + 2u] = x.z; }
//! morphs
vec3 skn_offset3(uint at) {
  return vec3(uintBitsToFloat(skn_scratch[at]), uintBitsToFloat(skn_scratch[at + 1u]), uintBitsToFloat(skn_scratch[at + 2u]));
}
//! common

void main() {
  uint i = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 64u + gl_LocalInvocationID.x;
  if (skn_job_count == 0u) return;
  uint job = skn_job_of(i);
  uvec4 a = skn_jobs[2u * job], b = skn_jobs[2u * job + 1u];
  uint v = i - a.x;
  if (v >= a.y) return;  // past the last job's vertices
  uint rest = (a.z + v) * uint(SKN_REST_FLOATS), out_at = (b.y + v) * uint(SKN_OUT_FLOATS);
  skn_palette_base = a.w;
  skn_first = int(skn_influences[b.x + v]);
  skn_end = int(skn_influences[b.x + v + 1u]);
  skn_influence_pairs = b.x + a.y + 1u;
  vec3 p0 = skn_rest3(rest);
  vec3 n0 = vec3(0.0), dn = vec3(0.0), dt = vec3(0.0);
  vec4 t0 = vec4(0.0);
  if (SKN_REST_NORMAL >= 0) n0 = skn_rest3(rest + uint(SKN_REST_NORMAL));
  if (SKN_REST_TANGENT >= 0) t0 = vec4(skn_rest3(rest + uint(SKN_REST_TANGENT)), skn_rest[rest + uint(SKN_REST_TANGENT) + 3u]);
//! blend
  skn_blend = skn_rest[rest + uint(SKN_REST_BLEND)];
//! center
  skn_center = vec4(skn_rest3(rest + uint(SKN_REST_CENTER)), skn_rest[rest + uint(SKN_REST_CENTER) + 3u]);
//! morphs
  uint m = (b.z + v) * uint(SKN_MORPH_WORDS);
  if (b.z != 0xFFFFFFFFu && skn_scratch[m] == skn_frame) {  // offsets the morph pass summed this frame
    p0 += skn_offset3(m + 1u);
    if (SKN_MORPH_NORMAL >= 0) dn = skn_offset3(m + uint(SKN_MORPH_NORMAL));
    if (SKN_MORPH_TANGENT >= 0) dt = skn_offset3(m + uint(SKN_MORPH_TANGENT));
  }
//! common
  skn_prepare();
  vec3 p = skn_skin_position(p0);
//! previous
  vec3 last = skn_frame == 1u ? p : vec3(skn_out[out_at], skn_out[out_at + 1u], skn_out[out_at + 2u]);
  skn_put3(out_at + uint(SKN_OUT_PREVIOUS), last);
//! common
  skn_put3(out_at, p);
//! normal
  skn_put3(out_at + uint(SKN_OUT_NORMAL), skn_skin_normal(n0 + dn));
//! tangent
  vec4 t = skn_skin_tangent(vec4(t0.xyz + dt, t0.w));
  skn_put3(out_at + uint(SKN_OUT_TANGENT), t.xyz);
  skn_out[out_at + uint(SKN_OUT_TANGENT) + 3u] = t.w;
//! common
}
