/* accessor.c — reading one element of a validated accessor: byteStride,
 * byteOffset, matrix column padding (§3.6.2.4), sparse substitution
 * (§3.6.2.3) and integer normalization (§3.11: c / 255, max(c / 127, -1), ...).
 * Bytes are assembled little-endian whatever the host. */
#include "gltf.h"

#include <string.h>

static uint32_t le(const uint8_t *p, size_t n) {
  uint32_t v = 0;
  for (size_t k = n; k-- > 0;) v = v << 8 | p[k];
  return v;
}

/* Where component e of element i lies: view data + offset + i*stride + column padding. */
static const uint8_t *component(const skn_gltf *g, const gltf_accessor *a, int32_t view, size_t offset, uint32_t i,
                                uint32_t e) {
  const gltf_view *v = &g->views[view];
  size_t c = skn__gltf_component_size(a->component_type), rows = a->components / a->columns;
  size_t column = a->columns == 1 ? rows * c : (rows * c + 3) & ~(size_t)3;
  size_t stride = v->stride ? v->stride : column * a->columns;
  return g->buffers[v->buffer].data + v->offset + offset + (size_t)i * stride + (e / rows) * column + (e % rows) * c;
}

/* The element's source: the sparse values where i is substituted, else the view; NULL for zeros. */
static const uint8_t *element_source(const skn_gltf *g, const gltf_accessor *a, uint32_t i, uint32_t e) {
  if (a->sparse_count) {
    const gltf_view *iv = &g->views[a->sparse_index_view];
    size_t isize = skn__gltf_component_size(a->sparse_index_type);
    const uint8_t *base = g->buffers[iv->buffer].data + iv->offset + a->sparse_index_offset;
    uint32_t lo = 0, hi = a->sparse_count;
    while (lo < hi) { /* indices strictly increase (validate.c) */
      uint32_t mid = (lo + hi) / 2;
      if (le(base + mid * isize, isize) < i) lo = mid + 1; else hi = mid;
    }
    if (lo < a->sparse_count && le(base + lo * isize, isize) == i)
      return component(g, a, a->sparse_value_view, a->sparse_value_offset, lo, e);
  }
  return a->view >= 0 ? component(g, a, a->view, a->offset, i, e) : NULL;
}

void skn__gltf_read_float(const skn_gltf *g, uint32_t accessor, uint32_t i, float *out) {
  const gltf_accessor *a = &g->accessors[accessor];
  for (uint32_t e = 0; e < a->components; ++e) {
    const uint8_t *p = element_source(g, a, i, e);
    uint32_t raw = p ? le(p, skn__gltf_component_size(a->component_type)) : 0;
    float f;
    switch (a->component_type) {
    case GLTF_FLOAT: memcpy(&f, &raw, 4); break;
    case GLTF_UNSIGNED_BYTE: f = a->normalized ? raw / 255.0f : (float)raw; break;
    case GLTF_UNSIGNED_SHORT: f = a->normalized ? raw / 65535.0f : (float)raw; break;
    case GLTF_BYTE: f = a->normalized ? (float)(int8_t)raw / 127.0f : (float)(int8_t)raw; break;
    case GLTF_SHORT: f = a->normalized ? (float)(int16_t)raw / 32767.0f : (float)(int16_t)raw; break;
    default: f = (float)raw; break;
    }
    out[e] = f < -1.0f && a->normalized ? -1.0f : f;
  }
}

void skn__gltf_read_uint(const skn_gltf *g, uint32_t accessor, uint32_t i, uint32_t *out) {
  const gltf_accessor *a = &g->accessors[accessor];
  for (uint32_t e = 0; e < a->components; ++e) {
    const uint8_t *p = element_source(g, a, i, e);
    out[e] = p ? le(p, skn__gltf_component_size(a->component_type)) : 0;
  }
}

/* An accessor without a bufferView is zeros but where sparse substitutes
 * (§3.6.2.3): only its sparse elements have bytes of their own. */
uint32_t skn__gltf_stored_count(const skn_gltf *g, uint32_t accessor) {
  const gltf_accessor *a = &g->accessors[accessor];
  return a->view >= 0 ? a->count : a->sparse_count;
}

uint32_t skn__gltf_stored_index(const skn_gltf *g, uint32_t accessor, uint32_t k) {
  const gltf_accessor *a = &g->accessors[accessor];
  if (a->view >= 0) return k;
  const gltf_view *iv = &g->views[a->sparse_index_view];
  size_t isize = skn__gltf_component_size(a->sparse_index_type);
  return le(g->buffers[iv->buffer].data + iv->offset + a->sparse_index_offset + (size_t)k * isize, isize);
}
