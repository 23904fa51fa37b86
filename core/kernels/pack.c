/* pack.c — the kernels' layout, built once at bind (see kernels.h). */
#include "kernels.h"

#include <stdlib.h>
#include <string.h>

skn_status skn__pack_influences(skn_rig *rig) {
  if (rig->joint_count >= 0xFFFFu) return SKN_OK; /* uint16 joints and the virtual one must fit */
  uint32_t n = rig->vertex_count, blocks = (n + SKN_PACK_BLOCK - 1) / SKN_PACK_BLOCK;
  const uint32_t *off = rig->influence_offsets;
  size_t slots = 0, widest = 1;
  rig->blocks = malloc(blocks * sizeof *rig->blocks);
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
   * past the last vertex this tail of virtual-joint slots. */
  size_t tail = SKN_PACK_GROUP * widest;
  rig->packed_joints = malloc((slots + tail) * sizeof *rig->packed_joints);
  rig->packed_weights = malloc((slots + tail) * sizeof *rig->packed_weights);
  if (!rig->packed_joints || !rig->packed_weights)
    return skn__fail(SKN_ERR_OUT_OF_MEMORY, "bind: out of memory for the kernels' layout");
  for (size_t i = slots; i < slots + tail; ++i) {
    rig->packed_joints[i] = (uint16_t)rig->joint_count;
    rig->packed_weights[i] = 0.0f;
  }
  for (uint32_t b = 0; b < blocks; ++b) {
    const skn_block *bl = &rig->blocks[b];
    for (uint32_t v = bl->first; v < bl->first + bl->count; ++v) {
      size_t at = bl->offset + (size_t)(v - bl->first) * bl->k;
      uint32_t have = off[v + 1] - off[v];
      for (uint32_t i = 0; i < bl->k; ++i) {
        rig->packed_joints[at + i] = (uint16_t)(i < have ? rig->influence_joints[off[v] + i] : rig->joint_count);
        rig->packed_weights[at + i] = i < have ? rig->influence_weights[off[v] + i] : (have == 0 && i == 0 ? 1.0f : 0.0f);
      }
    }
  }
  rig->block_count = blocks;
  return SKN_OK;
}
