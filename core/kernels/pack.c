/* pack.c — the kernels' layout, built once at bind (see kernels.h). */
#include "kernels.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The slot arrays in the rig's layout: float weights and 16-bit joints, or
 * (compact) 16-bit weights and 8-bit joints where joint_count < 255. */
static int alloc_slots(skn_rig *rig, size_t count) {
  if (!(rig->flags & SKN_RIG_COMPACT)) {
    rig->packed_joints = skn__alloc(count * sizeof *rig->packed_joints);
    rig->packed_weights = skn__alloc(count * sizeof *rig->packed_weights);
    return rig->packed_joints && rig->packed_weights;
  }
  if (rig->joint_count < 0xFFu) rig->packed_joints8 = skn__alloc(count);
  else rig->packed_joints = skn__alloc(count * sizeof *rig->packed_joints);
  rig->packed_weights16 = skn__alloc(count * sizeof *rig->packed_weights16);
  return (rig->packed_joints8 || rig->packed_joints) && rig->packed_weights16;
}

/* Slot i holds joint j with weight w (compact: w is a decoded 16-bit weight,
 * q / 65535, and q comes back exactly by rounding w * 65535). */
static void put_slot(skn_rig *rig, size_t i, uint32_t j, float w) {
  if (rig->packed_joints8) rig->packed_joints8[i] = (uint8_t)j;
  else rig->packed_joints[i] = (uint16_t)j;
  if (rig->packed_weights16) rig->packed_weights16[i] = (uint16_t)lrint(w * (double)SKN_WEIGHT_ONE);
  else rig->packed_weights[i] = w;
}

/* Each vertex's k slots, block by block: its influences, then the virtual
 * joint (weight 1 in the first slot of a vertex without any, else 0). The
 * full layout, as most rigs are bound, has a loop of its own, put_slot's
 * tests of the layout out of it: bind 28% faster on a Rigify body
 * (docs/blender.md, Speed). */
static void pack_full(skn_rig *rig, uint32_t blocks) {
  const uint32_t *off = rig->influence_offsets;
  uint16_t none = (uint16_t)rig->joint_count;
  for (uint32_t b = 0; b < blocks; ++b) {
    const skn_block *bl = &rig->blocks[b];
    uint16_t *joints = rig->packed_joints + bl->offset;
    float *weights = rig->packed_weights + bl->offset;
    for (uint32_t v = bl->first; v < bl->first + bl->count; ++v, joints += bl->k, weights += bl->k) {
      uint32_t have = off[v + 1] - off[v], i = 0;
      for (; i < have; ++i) {
        joints[i] = (uint16_t)rig->influence_joints[off[v] + i];
        weights[i] = rig->influence_weights[off[v] + i];
      }
      for (; i < bl->k; ++i) {
        joints[i] = none;
        weights[i] = have == 0 && i == 0 ? 1.0f : 0.0f;
      }
    }
  }
}

static void pack_compact(skn_rig *rig, uint32_t blocks) {
  const uint32_t *off = rig->influence_offsets;
  for (uint32_t b = 0; b < blocks; ++b) {
    const skn_block *bl = &rig->blocks[b];
    for (uint32_t v = bl->first; v < bl->first + bl->count; ++v) {
      size_t at = bl->offset + (size_t)(v - bl->first) * bl->k;
      uint32_t have = off[v + 1] - off[v];
      for (uint32_t i = 0; i < bl->k; ++i) {
        if (i < have) put_slot(rig, at + i, rig->influence_joints[off[v] + i], rig->influence_weights[off[v] + i]);
        else put_slot(rig, at + i, rig->joint_count, have == 0 && i == 0 ? 1.0f : 0.0f);
      }
    }
  }
}

skn_status skn__pack_influences(skn_rig *rig) {
  if (rig->joint_count >= 0xFFFFu) return SKN_OK; /* uint16 joints and the virtual one must fit */
  uint32_t n = rig->vertex_count, blocks = (n + SKN_PACK_BLOCK - 1) / SKN_PACK_BLOCK;
  const uint32_t *off = rig->influence_offsets;
  size_t slots = 0, widest = 1;
  rig->blocks = skn__alloc(blocks * sizeof *rig->blocks);
  if (!rig->blocks) return skn__fail(SKN_ERR_OUT_OF_MEMORY, "bind: out of memory for the kernels' layout");
  for (uint32_t b = 0; b < blocks; ++b) {
    uint32_t first = b * SKN_PACK_BLOCK, count = SKN_MIN(SKN_PACK_BLOCK, n - first), k = 1;
    for (uint32_t v = first; v < first + count; ++v) k = SKN_MAX(k, off[v + 1] - off[v]);
    rig->blocks[b] = (skn_block){first, count, k, (uint32_t)slots};
    slots += (size_t)count * k;
    widest = SKN_MAX(widest, k);
  }
  /* A group kernel reads SKN_PACK_GROUP vertices' slots from any vertex: past
   * a range's end it reads the next vertices' (valid joints, unused lanes),
   * past the last vertex this tail of virtual-joint slots (and a few more
   * for the compact joints' decode, blocks_simd.h). */
  size_t tail = SKN_PACK_GROUP * widest + SKN_PACK_TAIL_SLOTS;
  if (!alloc_slots(rig, slots + tail))
    return skn__fail(SKN_ERR_OUT_OF_MEMORY, "bind: out of memory for the kernels' layout");
  for (size_t i = slots; i < slots + tail; ++i) put_slot(rig, i, rig->joint_count, 0.0f);
  if (rig->flags & SKN_RIG_COMPACT) pack_compact(rig, blocks);
  else pack_full(rig, blocks);
  rig->block_count = blocks;
  return SKN_OK;
}
