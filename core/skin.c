/* skin.c — skn_skin: validate the whole request, pick the method's kernel,
 * split the vertex range into blocks for the worker pool. */
#include "gpu.h"
#include "kernels/kernels.h"

#include <string.h>
#include <unistd.h>

#define SKN_WAKE_WORTH_NS 100000.0 /* the wake-up is ~20% of such a call */
#define SKN_SKIN_MORPH_ROOM 64u      /* active morph targets copied on the stack (more: allocated) */

/* Vertices per block handed to a thread: about four blocks per thread, so
 * that the threads finish together, but between 1,024 (the hand-off must
 * stay small beside the work) and 8,192 (blocks stay cache-sized); a
 * multiple of the kernels' 256-vertex layout blocks. */
static uint32_t block_vertices(uint32_t count, uint32_t threads) {
  uint32_t b = count / (threads * 4u);
  b = b < 1024u ? 1024u : b > 8192u ? 8192u : b;
  return b & ~255u;
}

static skn_status check_output(skn_out_attrib a, uint32_t width, int bound, const char *name) {
  if (!a.data) return SKN_OK;
  if (!bound)
    return skn__fail(SKN_ERR_INVALID_ARGUMENT, "skin: %s requested but the rig was bound without them", name);
  if (a.stride != 0 && a.stride < width * sizeof(float))
    return skn__fail(SKN_ERR_INVALID_ARGUMENT, "skin: %s stride %u is smaller than one element (%u bytes)",
                     name, a.stride, (unsigned)(width * sizeof(float)));
  return SKN_OK;
}

/* LBS_QUATERNION serves rotation + uniform scale only (abi/skn.h): every joint
 * that some vertex depends on must have a similarity M_i. */
skn_status skn__check_similar(const skn_rig *rig, const skn_pose *pose) {
  for (uint32_t j = 0; j < rig->joint_count; ++j) {
    const skn_joint_xform *x = &pose->xforms[j];
    if (rig->joint_used[j] && !x->similar)
      return skn__fail(SKN_ERR_UNSUPPORTED,
                       "joint %u: skinning transform has non-uniform scale, shear or a mirror; "
                       "SKN_METHOD_LBS_QUATERNION needs rotation and uniform scale (use LBS_MATRIX)", j);
  }
  return SKN_OK;
}

/* The scalar reference kernels, by skn_method. */
static const skn_kernel_fn kernels[] = {skn__lbs_matrix, skn__lbs_quaternion, skn__dqs, skn__blend, skn__cor};

/* The kernel that runs: the chosen instruction set's where the rig has the
 * kernels' layout, the scalar reference otherwise. */
static skn_kernel_fn pick_kernel(const skn_rig *rig, skn_method m) {
  const skn_kernel_set *k = skn__kernels();
  if (!rig->blocks) return kernels[m];
  switch (m) {
  case SKN_METHOD_LBS_MATRIX: return k->lbs;
  case SKN_METHOD_LBS_QUATERNION: return k->lbs_quaternion;
  case SKN_METHOD_DQS: return k->dqs;
  case SKN_METHOD_BLEND: return k->blend;
  default: return k->cor; /* SKN_METHOD_COR: check_request refused any other */
  }
}

static skn_status check_method(const skn_rig *rig, const skn_pose *pose, const skn_skin_desc *d) {
  if (d->method == SKN_METHOD_LBS_QUATERNION) skn__pose_derive(pose, SKN_FORMS_QUATERNION);
  else if (d->method != SKN_METHOD_LBS_MATRIX) skn__pose_derive(pose, SKN_FORMS_DQ << d->dqs_scale); /* once per pose change */
  switch (d->method) {
  case SKN_METHOD_LBS_QUATERNION: return skn__check_similar(rig, pose);
  case SKN_METHOD_BLEND:
    return rig->blend_weights ? SKN_OK
           : skn__fail(SKN_ERR_UNSUPPORTED, "skin: SKN_METHOD_BLEND needs blend_weights at bind; this rig has none");
  case SKN_METHOD_COR:
    return rig->centers ? SKN_OK
           : skn__fail(SKN_ERR_UNSUPPORTED, "skin: SKN_METHOD_COR needs triangles at bind to find the centers "
                       "of rotation; this rig was bound without triangles");
  default: return SKN_OK;
  }
}

static skn_status check_request(const skn_rig *rig, const skn_pose *pose, const skn_skin_desc *d) {
  if (pose->rig != rig)
    return skn__fail(SKN_ERR_INVALID_ARGUMENT, "skin: the pose was created from another rig");
  if ((unsigned)d->method >= sizeof kernels / sizeof kernels[0])
    return skn__fail(SKN_ERR_INVALID_ARGUMENT, "skin: method %u is not a skn_method", (unsigned)d->method);
  if ((unsigned)d->dqs_scale > SKN_DQS_SCALE_KEEP_Y)
    return skn__fail(SKN_ERR_INVALID_ARGUMENT, "skin: dqs_scale %u is not a skn_dqs_scale", (unsigned)d->dqs_scale);
  if ((unsigned)d->stores > SKN_STORES_STREAMING)
    return skn__fail(SKN_ERR_INVALID_ARGUMENT, "skin: stores %u is not a skn_stores", (unsigned)d->stores);
  if (d->first_vertex >= rig->vertex_count)
    return skn__fail(SKN_ERR_INDEX_OUT_OF_RANGE, "skin: first_vertex %u >= vertex_count %u", d->first_vertex,
                     rig->vertex_count);
  if ((uint64_t)d->first_vertex + d->vertex_count > rig->vertex_count)
    return skn__fail(SKN_ERR_INDEX_OUT_OF_RANGE, "skin: vertices [%u, %llu) run past vertex_count %u",
                     d->first_vertex, (unsigned long long)d->first_vertex + d->vertex_count, rig->vertex_count);
  if (!d->positions.data) return skn__fail(SKN_ERR_INVALID_ARGUMENT, "skin: positions output is required");
  skn_status s = check_output(d->positions, 3, 1, "positions");
  if (s == SKN_OK) s = check_output(d->normals, 3, rig->normals != NULL, "normals");
  if (s == SKN_OK) s = check_output(d->tangents, 4, rig->tangents != NULL, "tangents");
  if (s == SKN_OK) s = check_method(rig, pose, d);
  return s;
}

/* SKN_STORES_AUTO: stream where the call moves more than the last-level
 * cache holds, so that its outputs would be evicted before anyone reads
 * them (bytes as the benchmark counts them: rest attributes, influences,
 * results). */
static int use_streaming(const skn_rig *rig, const skn_skin_desc *d, uint32_t count) {
  if (d->stores != SKN_STORES_AUTO) return d->stores == SKN_STORES_STREAMING;
  static long llc = -1; /* racy but idempotent */
  if (llc < 0) {
    long c = sysconf(_SC_LEVEL3_CACHE_SIZE);
    llc = c > 0 ? c : 32l << 20;
  }
  int compact = (rig->flags & SKN_RIG_COMPACT) != 0; /* compact.c: 3 bytes an influence, 4 a direction */
  double per_vertex = 24.0 + (compact ? 3.0 : 6.0) * rig->max_influences_per_vertex;
  if (d->normals.data) per_vertex += compact ? 16.0 : 24.0;
  if (d->tangents.data) per_vertex += compact ? 20.0 : 32.0;
  return per_vertex * count > (double)llc;
}

/* Whether the call is worth less than waking a sleeping worker costs (a
 * futex call and, on a virtual machine, an interrupt: ~20 us for the caller
 * and as long before the worker runs; pool.c): a rough cost in nanoseconds
 * of one core, from `make bench` on a Zen 4 core: the SIMD kernels ~1 ns per
 * vertex and influence (LBS and DQS), BLEND and COR twice that, the scalar
 * reference ~8 times. */
static int light_call(const skn_rig *rig, const skn_skin_desc *d, skn_kernel_fn kernel, uint32_t count) {
  double ns = (double)count * rig->max_influences_per_vertex;
  if (kernel == kernels[d->method]) ns *= 8.0;
  else if (d->method == SKN_METHOD_BLEND || d->method == SKN_METHOD_COR) ns *= 2.0;
  return ns < SKN_WAKE_WORTH_NS;
}

typedef struct skin_run {
  skn_skin_job job;
  skn_kernel_fn kernel;
  uint32_t first, end, block;
} skin_run;

static void run_blocks(void *ctx, uint32_t first_block, uint32_t end_block) {
  const skin_run *run = ctx;
  uint64_t end = run->first + (uint64_t)end_block * run->block;
  skn__morph_run(&run->job, run->kernel, run->first + first_block * run->block, (uint32_t)SKN_MIN((uint64_t)run->end, end));
}

SKN_API skn_status skn_skin(const skn_rig *rig, const skn_pose *pose, const skn_skin_desc *desc) {
  if (!rig || !pose || !desc) return skn__fail(SKN_ERR_INVALID_ARGUMENT, "skin: rig, pose and desc are required");
  if (desc->struct_size < SKN_SKIN_DESC_V1_SIZE)
    return skn__fail(SKN_ERR_INVALID_ARGUMENT, "skin: struct_size %u is smaller than skn_skin_desc (%u)",
                     desc->struct_size, SKN_SKIN_DESC_V1_SIZE);
  skn_skin_desc d;
  memset(&d, 0, sizeof d);
  memcpy(&d, desc, SKN_MIN((size_t)desc->struct_size, sizeof d));
  skn_status s = check_request(rig, pose, &d);
  if (s != SKN_OK) return s;

  skin_run run = {{rig, pose, d.positions.data, d.normals.data, d.tangents.data,
                   d.positions.stride ? d.positions.stride : 3 * sizeof(float),
                   d.normals.stride ? d.normals.stride : 3 * sizeof(float),
                   d.tangents.stride ? d.tangents.stride : 4 * sizeof(float), (int)d.dqs_scale, 0,
                   rig->positions, rig->normals, rig->tangents, 0, NULL, NULL, NULL, 0, 0, NULL, NULL, 0},
                  pick_kernel(rig, d.method),
                  d.first_vertex,
                  d.vertex_count ? d.first_vertex + d.vertex_count : rig->vertex_count, 0};
  uint32_t targets[SKN_SKIN_MORPH_ROOM];
  float weights[SKN_SKIN_MORPH_ROOM];
  if ((s = skn__morph_snapshot(pose, &run.job, targets, weights, SKN_SKIN_MORPH_ROOM)) != SKN_OK) return s;
  run.job.stream = use_streaming(rig, &d, run.end - run.first);
  run.job.fused = run.kernel != kernels[d.method]; /* the vectorised kernels add morph offsets as they load */
  uint32_t threads = d.threads == 1 ? 1 : d.threads ? SKN_MIN(d.threads, skn__pool_size()) : skn__pool_size();
  run.block = block_vertices(run.end - run.first, threads);
  uint32_t blocks = (run.end - run.first + run.block - 1) / run.block;
  if (d.threads == 1 || blocks == 1)
    skn__morph_run(&run.job, run.kernel, run.first, run.end);
  else
    skn__pool_run(run_blocks, &run, blocks, d.threads, light_call(rig, &d, run.kernel, run.end - run.first));
  if (run.job.morph_targets != targets) skn__free((void *)run.job.morph_targets);
  return SKN_OK;
}
