/* alloc.c — every block skn allocates, through the host's allocator
 * (skn_set_allocator) or the C library's, counted while it lives: an
 * allocator may be changed only while it holds nothing of skn's, so that no
 * block is ever freed by another allocator than the one that made it. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

#define SKN_ALLOCATOR_V1_SIZE 32u
SKN_PIN(allocator, sizeof(skn_allocator) == SKN_ALLOCATOR_V1_SIZE);

static skn_allocator current;  /* alloc NULL: the C library */
static size_t live;            /* blocks out (atomic) */

void *skn__alloc_aligned(size_t size, size_t alignment) {
  void *p = NULL;
  if (!size) size = 1;
  if (current.alloc) p = current.alloc(current.user, size, alignment);
  else if (alignment <= 16) p = malloc(size); /* glibc's malloc aligns to 16 on 64-bit targets */
  else if (posix_memalign(&p, alignment, size)) p = NULL;
  if (p) __atomic_add_fetch(&live, 1, __ATOMIC_RELAXED);
  return p;
}

void *skn__alloc(size_t size) { return skn__alloc_aligned(size, 16); }

void *skn__calloc(size_t count, size_t size) {
  if (size && count > SIZE_MAX / size) return NULL;
  size_t bytes = count * size;
  void *p = skn__alloc(bytes);
  if (p) memset(p, 0, bytes > 0 ? bytes : 1);
  return p;
}

void skn__free(void *p) {
  if (!p) return;
  __atomic_sub_fetch(&live, 1, __ATOMIC_RELAXED);
  if (current.free) current.free(current.user, p);
  else free(p);
}

SKN_API skn_status skn_set_allocator(const skn_allocator *a) {
  if (a && a->struct_size < SKN_ALLOCATOR_V1_SIZE)
    return skn__fail(SKN_ERR_INVALID_ARGUMENT, "set_allocator: struct_size %u is smaller than skn_allocator (%u)",
                     a->struct_size, SKN_ALLOCATOR_V1_SIZE);
  if (a && (!a->alloc || !a->free))
    return skn__fail(SKN_ERR_INVALID_ARGUMENT, "set_allocator: alloc and free are both required");
  size_t out = __atomic_load_n(&live, __ATOMIC_ACQUIRE);
  if (out)
    return skn__fail(SKN_ERR_UNSUPPORTED, "set_allocator: %zu blocks of the current allocator are live (destroy "
                     "every rig, pose and document first)", out);
  static const skn_allocator none;
  current = a ? *a : none;
  current.struct_size = SKN_ALLOCATOR_V1_SIZE;
  return SKN_OK;
}
