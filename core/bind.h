/* bind.h — shared by the two halves of skn_bind: bind_validate.c checks the
 * caller's description, rig.c converts it into a rig. */
#ifndef SKN_BIND_H
#define SKN_BIND_H

#include "internal.h"

/* Checks everything skn_bind reads; names the first offending item. */
skn_status skn__bind_validate(const skn_bind_desc *d);

/* Joints parents-first into order[joint_count] (NULL: validate only). */
skn_status skn__order_joints(const skn_bind_desc *d, uint32_t *order);

/* The caller's influences of vertex v: entries [*lo, *hi). Inline: bind
 * asks it of every vertex three times. */
static inline void skn__influence_range(const skn_bind_desc *d, uint32_t v, uint32_t *lo, uint32_t *hi) {
  if (d->influence_offsets) {
    *lo = d->influence_offsets[v];
    *hi = d->influence_offsets[v + 1];
  } else {
    *lo = v * d->influences_per_vertex;
    *hi = *lo + d->influences_per_vertex;
  }
}

/* Address of element i of an input attribute with elements of elem_size
 * (stride 0: packed). */
static inline const char *skn__attrib_at(skn_attrib a, size_t elem_size, uint32_t i) {
  size_t stride = a.stride ? a.stride : elem_size;
  return (const char *)a.data + (size_t)i * stride;
}

#endif
