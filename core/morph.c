/* morph.c — morph targets (blend shapes, glTF 2.0 §3.7.2.2) before skinning:
 *   v0' = v0 + sum_t w_t dv_t,  n0' = n0 + sum_t w_t dn_t,  t0' = t0 + sum_t w_t dt_t
 * then any method on v0', n0', t0' (abi/skn.h, skn_morph_target).
 *
 * Bind keeps each target sparse: its entries with a non-zero offset, in
 * ascending vertex order, the offsets planar (internal.h, skn_morph).
 * Skinning walks the range in spans of SKN_MORPH_SPAN vertices aligned to
 * absolute multiples of it, so that every thread count and range split
 * morphs the same spans the same way (bit-identical results). A span that
 * no active target touches is skinned as if there were no targets, in one
 * kernel call with its untouched neighbours. For a touched one the active
 * targets' entries are summed, times their weights, into a buffer on the
 * stack (~10 KB, in L1 when the kernel reads it): the offsets alone, which
 * the vectorised kernels add to the rig's rest attributes as they load
 * them (kernels.h, skn_src), or the rest attributes copied and offset, which
 * the scalar reference skins as it would a rest mesh. The work is a
 * multiply-add per offset of the entries of the targets whose weight is
 * not 0 — a vector one over a run of neighbouring vertices — and a span's
 * bookkeeping where one is touched: independent of how many targets there
 * are. What it costs on top of skinning is in docs/guide.md ("Morph targets"). */
#include "internal.h"
#include "bind.h"
#include "kernels/kernels.h"

#include <immintrin.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SKN_MORPH_SPAN SKN_PACK_BLOCK /* a block of the kernels' layout: a span never splits one */
#define SKN_MORPH_CURSORS 256u        /* active targets whose place is kept from span to span; any
                                         after them are found by binary search in each span */
#define SKN_MORPH_PREFETCH 128u       /* entries ahead: a target's streams are read in short bursts, span
                                         by span, too short for the hardware prefetchers to follow ten */

/* ---- bind ---- */

static int all_finite(const float *f, int n) {
  for (int i = 0; i < n; ++i)
    if (!isfinite(f[i])) return 0;
  return 1;
}

/* Target t's entries: indices in range, none twice (seen: a bitmap of the
 * rig's vertices, left clear), offsets finite. */
static skn_status check_entries(const skn_bind_desc *d, uint32_t t, uint8_t *seen) {
  const skn_morph_target *m = &d->morph_targets[t];
  const skn_attrib *attrs[3] = {&m->positions, &m->normals, &m->tangents};
  static const char *names[3] = {"position", "normal", "tangent"};
  skn_status s = SKN_OK;
  uint32_t e = 0;
  for (; e < m->count && s == SKN_OK; ++e) {
    uint32_t v = m->vertices ? m->vertices[e] : e;
    if (v >= d->vertex_count) {
      s = skn__fail(SKN_ERR_INDEX_OUT_OF_RANGE, "morph target %u: entry %u: vertex %u >= vertex_count %u", t, e, v,
                    d->vertex_count);
      break;
    }
    if (m->vertices && (seen[v >> 3] >> (v & 7) & 1)) {
      s = skn__fail(SKN_ERR_INVALID_ARGUMENT, "morph target %u: entry %u: vertex %u is listed twice", t, e, v);
      break;
    }
    if (m->vertices) seen[v >> 3] |= (uint8_t)(1u << (v & 7));
    for (int a = 0; a < 3; ++a)
      if (attrs[a]->data && !all_finite((const float *)skn__attrib_at(*attrs[a], 12, e), 3)) {
        s = skn__fail(SKN_ERR_NOT_FINITE, "morph target %u: entry %u (vertex %u): %s offset is not finite", t, e, v,
                      names[a]);
        break;
      }
  }
  for (uint32_t k = 0; m->vertices && k < e && k < m->count; ++k) seen[m->vertices[k] >> 3] = 0; /* clear what was set */
  return s;
}

static skn_status check_target(const skn_bind_desc *d, uint32_t t) {
  const skn_morph_target *m = &d->morph_targets[t];
  const skn_attrib *attrs[3] = {&m->positions, &m->normals, &m->tangents};
  static const char *names[3] = {"positions", "normals", "tangents"};
  if (!m->positions.data) return skn__fail(SKN_ERR_INVALID_ARGUMENT, "morph target %u: positions are required", t);
  if (m->normals.data && !d->normals.data)
    return skn__fail(SKN_ERR_INVALID_ARGUMENT, "morph target %u has normal offsets but the rest mesh has no normals", t);
  if (m->tangents.data && !d->tangents.data)
    return skn__fail(SKN_ERR_INVALID_ARGUMENT, "morph target %u has tangent offsets but the rest mesh has no tangents", t);
  for (int a = 0; a < 3; ++a)
    if (attrs[a]->data && attrs[a]->stride && attrs[a]->stride < 12)
      return skn__fail(SKN_ERR_INVALID_ARGUMENT, "morph target %u: %s stride %u is smaller than one element (12 bytes)",
                       t, names[a], attrs[a]->stride);
  if (!m->vertices && m->count != d->vertex_count)
    return skn__fail(SKN_ERR_INVALID_ARGUMENT, "morph target %u is dense (no vertices) with count %u, not vertex_count %u",
                     t, m->count, d->vertex_count);
  return SKN_OK;
}

skn_status skn__morph_validate(const skn_bind_desc *d) {
  if (!d->morph_target_count) return SKN_OK;
  if (!d->morph_targets)
    return skn__fail(SKN_ERR_INVALID_ARGUMENT, "bind: morph_target_count %u without morph_targets", d->morph_target_count);
  for (uint32_t t = 0; t < d->morph_target_count; ++t) {
    if (d->morph_weights && !isfinite(d->morph_weights[t]))
      return skn__fail(SKN_ERR_NOT_FINITE, "morph_weights[%u] is not finite", t);
    skn_status s = check_target(d, t);
    if (s != SKN_OK) return s;
  }
  uint8_t *seen = skn__calloc(((size_t)d->vertex_count + 7) / 8, 1);
  if (!seen) return skn__fail(SKN_ERR_OUT_OF_MEMORY, "bind: out of memory checking morph targets");
  skn_status s = SKN_OK;
  for (uint32_t t = 0; s == SKN_OK && t < d->morph_target_count; ++t) s = check_entries(d, t, seen);
  skn__free(seen);
  return s;
}

/* Entry e's offsets (3 per attribute the target has; the others zero) into out[9]. */
static void entry_offsets(const skn_morph_target *m, uint32_t e, float out[9]) {
  const skn_attrib *attrs[3] = {&m->positions, &m->normals, &m->tangents};
  for (int a = 0; a < 3; ++a) {
    if (attrs[a]->data) memcpy(out + 3 * a, skn__attrib_at(*attrs[a], 12, e), 12);
    else memset(out + 3 * a, 0, 12);
  }
}

/* Whether entry e moves nothing: every offset it has is zero. */
static int entry_zero(const skn_morph_target *m, uint32_t e) {
  const skn_attrib *attrs[3] = {&m->positions, &m->normals, &m->tangents};
  for (int a = 0; a < 3; ++a) {
    if (!attrs[a]->data) continue;
    float f[3];
    memcpy(f, skn__attrib_at(*attrs[a], 12, e), 12);
    if (f[0] != 0.0f || f[1] != 0.0f || f[2] != 0.0f) return 0;
  }
  return 1;
}

static int by_key(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* Target t into the rig's form: the entries whose offsets are not all zero,
 * by ascending vertex (keys: vertex << 32 | entry). */
static skn_status build_target(skn_morph *out, const skn_morph_target *m, uint32_t t) {
  uint64_t *keys = skn__alloc((m->count ? m->count : 1) * sizeof *keys);
  if (!keys) return skn__fail(SKN_ERR_OUT_OF_MEMORY, "bind: out of memory for morph target %u", t);
  uint32_t n = 0;
  int ascending = 1; /* as hosts mostly give them (glTF's sparse indices must be): no sort needed */
  for (uint32_t e = 0; e < m->count; ++e) {
    if (entry_zero(m, e)) continue;
    keys[n] = (uint64_t)(m->vertices ? m->vertices[e] : e) << 32 | e;
    if (n && keys[n] < keys[n - 1]) ascending = 0;
    ++n;
  }
  if (!ascending) qsort(keys, n, sizeof *keys, by_key);
  out->has_normals = m->normals.data != NULL;
  out->has_tangents = m->tangents.data != NULL;
  out->vertices = skn__alloc((n ? n : 1) * sizeof *out->vertices);
  out->deltas = skn__alloc(((size_t)n * 3 * (1u + out->has_normals + out->has_tangents) + 1) * sizeof(float));
  if (!out->vertices || !out->deltas) {
    skn__free(keys);
    return skn__fail(SKN_ERR_OUT_OF_MEMORY, "bind: out of memory for morph target %u (%u entries)", t, n);
  }
  out->dp = out->deltas;
  out->dn = out->has_normals ? out->dp + (size_t)n * 3 : NULL;
  out->dt = out->has_tangents ? out->dp + (size_t)n * 3 * (1u + out->has_normals) : NULL;
  for (uint32_t k = 0; k < n; ++k) {
    float f[9];
    entry_offsets(m, (uint32_t)keys[k], f);
    out->vertices[k] = (uint32_t)(keys[k] >> 32);
    memcpy(out->dp + (size_t)k * 3, f, 12);
    if (out->dn) memcpy(out->dn + (size_t)k * 3, f + 3, 12);
    if (out->dt) memcpy(out->dt + (size_t)k * 3, f + 6, 12);
  }
  out->count = n;
  skn__free(keys);
  return SKN_OK;
}

skn_status skn__morph_build(skn_rig *rig, const skn_bind_desc *d) {
  uint32_t n = d->morph_target_count;
  if (!n) return SKN_OK;
  rig->morphs = skn__calloc(n, sizeof *rig->morphs);
  rig->morph_defaults = skn__calloc(n, sizeof(float));
  if (!rig->morphs || !rig->morph_defaults) return skn__fail(SKN_ERR_OUT_OF_MEMORY, "bind: out of memory for %u morph targets", n);
  rig->morph_count = n; /* with the array: skn__morph_free walks it */
  if (d->morph_weights) memcpy(rig->morph_defaults, d->morph_weights, n * sizeof(float));
  for (uint32_t t = 0; t < n; ++t) {
    skn_status s = build_target(&rig->morphs[t], &d->morph_targets[t], t);
    if (s != SKN_OK) return s;
    rig->morph_entry_count += rig->morphs[t].count;
  }
  return SKN_OK;
}

void skn__morph_free(skn_rig *rig) {
  for (uint32_t t = 0; rig->morphs && t < rig->morph_count; ++t) {
    skn__free(rig->morphs[t].vertices);
    skn__free(rig->morphs[t].deltas);
  }
  skn__free(rig->morphs);
  skn__free(rig->morph_defaults);
}

/* ---- pose ---- */

static void update_active(skn_pose *pose) {
  uint32_t n = 0;
  for (uint32_t t = 0; t < pose->rig->morph_count; ++t)
    if (pose->morph_weights[t] != 0.0f && pose->rig->morphs[t].count) pose->morph_active[n++] = t;
  pose->morph_active_count = n;
}

skn_status skn__morph_pose_init(skn_pose *pose) {
  uint32_t n = pose->rig->morph_count;
  pose->morph_weights = skn__alloc((n ? n : 1) * sizeof(float));
  pose->morph_active = skn__alloc((n ? n : 1) * sizeof(uint32_t));
  if (!pose->morph_weights || !pose->morph_active) return SKN_ERR_OUT_OF_MEMORY;
  if (n) memcpy(pose->morph_weights, pose->rig->morph_defaults, n * sizeof(float));
  update_active(pose);
  return SKN_OK;
}

static skn_status check_morph_range(const skn_pose *pose, uint32_t first, uint32_t count, const void *data,
                                    const char *call) {
  if (!pose) return skn__fail(SKN_ERR_INVALID_ARGUMENT, "%s: pose is required", call);
  if (count && !data) return skn__fail(SKN_ERR_INVALID_ARGUMENT, "%s: weights are required", call);
  if ((uint64_t)first + count > pose->rig->morph_count)
    return skn__fail(SKN_ERR_INDEX_OUT_OF_RANGE, "%s: targets [%u, %llu) run past morph_target_count %u", call, first,
                     (unsigned long long)first + count, pose->rig->morph_count);
  return SKN_OK;
}

SKN_API skn_status skn_pose_set_morph_weights(skn_pose *pose, uint32_t first, uint32_t count, const float *weights) {
  skn_status s = check_morph_range(pose, first, count, weights, "pose_set_morph_weights");
  if (s != SKN_OK) return s;
  for (uint32_t i = 0; i < count; ++i)
    if (!isfinite(weights[i]))
      return skn__fail(SKN_ERR_NOT_FINITE, "pose_set_morph_weights: weight of target %u is not finite", first + i);
  if (count) memcpy(pose->morph_weights + first, weights, count * sizeof(float));
  update_active(pose);
  return SKN_OK;
}

skn_status skn__morph_snapshot(const skn_pose *pose, skn_skin_job *job, uint32_t *targets, float *weights,
                               uint32_t room) {
  uint32_t n = __atomic_load_n(&pose->morph_active_count, __ATOMIC_RELAXED); /* once: the count the copies hold */
  if (n > room) {
    targets = skn__alloc(n * (sizeof *targets + sizeof *weights));
    if (!targets) return skn__fail(SKN_ERR_OUT_OF_MEMORY, "skin: out of memory for %u morph targets' weights", n);
    weights = (float *)(targets + n);
  }
  for (uint32_t a = 0; a < n; ++a) {
    uint32_t t = pose->morph_active[a]; /* an index below morph_count, whatever a writer is doing */
    targets[a] = t;
    weights[a] = pose->morph_weights[t];
  }
  job->morph_targets = targets, job->morph_weights = weights, job->morph_count = n;
  return SKN_OK;
}

SKN_API skn_status skn_pose_morph_weights(const skn_pose *pose, uint32_t first, uint32_t count, float *out) {
  skn_status s = check_morph_range(pose, first, count, out, "pose_morph_weights");
  if (s == SKN_OK && count) memcpy(out, pose->morph_weights + first, count * sizeof(float));
  return s;
}

/* ---- skin ---- */

/* The first entry of m at or after vertex v. */
static uint32_t lower_bound(const skn_morph *m, uint32_t v) {
  uint32_t lo = 0, hi = m->count;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (m->vertices[mid] < v) lo = mid + 1; else hi = mid;
  }
  return lo;
}

/* A span's morphed rest attributes, and where each active target stands. */
typedef struct morph_span {
  float positions[3 * SKN_MORPH_SPAN], normals[3 * SKN_MORPH_SPAN], tangents[4 * SKN_MORPH_SPAN];
  uint32_t cursor[SKN_MORPH_CURSORS];
} morph_span;

static uint32_t cursor_at(const morph_span *sp, const skn_morph *m, uint32_t a, uint32_t v) {
  return a < SKN_MORPH_CURSORS ? sp->cursor[a] : lower_bound(m, v);
}

/* Whether some active target moves a vertex before `end` (the cursors are
 * at or after the span's first vertex). */
static int span_touched(const skn_skin_job *job, const morph_span *sp, uint32_t first, uint32_t end) {
  for (uint32_t a = 0; a < job->morph_count; ++a) {
    const skn_morph *m = &job->rig->morphs[job->morph_targets[a]];
    uint32_t i = cursor_at(sp, m, a, first);
    if (i < m->count && m->vertices[i] < end) return 1;
  }
  return 0;
}

typedef float v4f __attribute__((vector_size(16)));

/* y[0, n) += w x[0, n), 4 floats at a time: a target's run of neighbouring
 * vertices is one contiguous stretch of its offsets and of the span's
 * attributes (planar offsets, internal.h). The same float operations as
 * the entry-by-entry loop, so that a run and scattered entries round alike. */
static void add_run(float *restrict y, const float *restrict x, size_t n, float w) {
  size_t j = 0;
  const v4f ww = {w, w, w, w};
  for (; j + 4 <= n; j += 4) {
    if (!(j & 15)) __builtin_prefetch(x + j + 3 * SKN_MORPH_PREFETCH); /* a line a time, into the next span's */
    v4f a, b;
    memcpy(&a, y + j, sizeof a);
    memcpy(&b, x + j, sizeof b);
    a = a + ww * b;
    memcpy(y + j, &a, sizeof a);
  }
  for (; j < n; ++j) y[j] = y[j] + w * x[j];
}

/* Adds target m's entries in [first, end), from entry i, times w; returns
 * the entry after them. Where they are a run of neighbouring vertices (a
 * region, as most shapes move: checked in O(1), the vertices being
 * strictly increasing), each attribute is one add_run. Otherwise entry by
 * entry, in scalars: neighbouring 3-float records overlap a 4-float
 * read-modify-write, defeating store-to-load forwarding; the target's
 * streams are prefetched ahead, as they are read in bursts too short for
 * the hardware prefetchers to follow ten of them. */
static uint32_t add_target(const skn_skin_job *job, morph_span *sp, const skn_morph *m, float w, uint32_t i,
                           uint32_t first, uint32_t end) {
  const uint32_t *restrict vertices = m->vertices;
  const float *restrict dp = m->dp, *restrict dn = job->normals ? m->dn : NULL, *restrict dt = job->tangents ? m->dt : NULL;
  float *restrict p = sp->positions, *restrict n = sp->normals, *restrict t = sp->tangents;
  uint32_t last = i;
  while (last < m->count && vertices[last] < end) ++last;
  if (last > i && vertices[last - 1] - vertices[i] == last - 1 - i) {
    size_t k = vertices[i] - first, len = last - i;
    add_run(p + 3 * k, dp + 3 * (size_t)i, 3 * len, w);
    if (dn) add_run(n + 3 * k, dn + 3 * (size_t)i, 3 * len, w);
    for (size_t j = 0; dt && j < len; ++j)
      for (int c = 0; c < 3; ++c) t[4 * (k + j) + c] = t[4 * (k + j) + c] + w * dt[3 * (i + j) + c];
    return last;
  }
  for (; i < last; ++i) {
    size_t k = 3 * (size_t)(vertices[i] - first), e = 3 * (size_t)i;
    __builtin_prefetch(dp + e + 3 * SKN_MORPH_PREFETCH);
    __builtin_prefetch(vertices + i + 4 * SKN_MORPH_PREFETCH);
    float p0 = p[k] + w * dp[e], p1 = p[k + 1] + w * dp[e + 1], p2 = p[k + 2] + w * dp[e + 2];
    p[k] = p0, p[k + 1] = p1, p[k + 2] = p2;
    if (dn) {
      __builtin_prefetch(dn + e + 3 * SKN_MORPH_PREFETCH);
      float n0 = n[k] + w * dn[e], n1 = n[k + 1] + w * dn[e + 1], n2 = n[k + 2] + w * dn[e + 2];
      n[k] = n0, n[k + 1] = n1, n[k + 2] = n2;
    }
    if (dt) {
      size_t q = k / 3 * 4;
      float t0 = t[q] + w * dt[e], t1 = t[q + 1] + w * dt[e + 1], t2 = t[q + 2] + w * dt[e + 2];
      t[q] = t0, t[q + 1] = t1, t[q + 2] = t2;
    }
  }
  return last;
}

/* The span [first, end) in sp: the rest attributes the call skins, with
 * the active targets added in ascending target order (one order for every
 * split of the range) — or, for a vectorised kernel (job->fused), zeros
 * with the targets added: the offsets alone, which the kernel adds to the
 * rig's rest attributes as it loads them, so that the span is not copied
 * (a copy waits on memory where the kernel's own loads are prefetched). */
static void morph_span_build(const skn_skin_job *job, morph_span *sp, uint32_t first, uint32_t end) {
  size_t n = end - first;
  if (job->fused) {
    memset(sp->positions, 0, n * 3 * sizeof(float));
    if (job->normals) memset(sp->normals, 0, n * 3 * sizeof(float));
    if (job->tangents) memset(sp->tangents, 0, n * 4 * sizeof(float));
  } else {
    memcpy(sp->positions, SKN_REST_P(job, first), n * 3 * sizeof(float));
    if (job->normals) memcpy(sp->normals, SKN_REST_N(job, first), n * 3 * sizeof(float));
    if (job->tangents) memcpy(sp->tangents, SKN_REST_T(job, first), n * 4 * sizeof(float));
  }
  for (uint32_t a = 0; a < job->morph_count; ++a) {
    const skn_morph *m = &job->rig->morphs[job->morph_targets[a]];
    uint32_t i = add_target(job, sp, m, job->morph_weights[a], cursor_at(sp, m, a, first), first, end);
    if (a < SKN_MORPH_CURSORS) sp->cursor[a] = i;
  }
}

void skn__morph_run(const skn_skin_job *job, skn_kernel_fn kernel, uint32_t first, uint32_t end) {
  if (!job->morph_count) {
    kernel(job, first, end);
    return;
  }
  morph_span sp;
  for (uint32_t a = 0; a < job->morph_count && a < SKN_MORPH_CURSORS; ++a)
    sp.cursor[a] = lower_bound(&job->rig->morphs[job->morph_targets[a]], first);
  skn_skin_job morphed = *job;
  if (job->fused) {
    morphed.offsets = sp.positions;
    morphed.offsets_normals = sp.normals;
    morphed.offsets_tangents = sp.tangents;
  } else {
    morphed.rest_positions = sp.positions;
    morphed.rest_normals = job->normals ? sp.normals : NULL;
    morphed.rest_tangents = job->tangents ? sp.tangents : NULL;
  }
  uint32_t plain = first; /* the untouched spans since the last touched one: one kernel call */
  for (uint32_t s = first, e; s < end; s = e) {
    e = SKN_MIN(end, (s / SKN_MORPH_SPAN + 1) * SKN_MORPH_SPAN);
    if (!span_touched(job, &sp, s, e)) continue;
    if (plain < s) kernel(job, plain, s);
    morph_span_build(job, &sp, s, e);
    morphed.rest_first = job->fused ? job->rest_first : s;
    morphed.offsets_first = s;
    kernel(&morphed, s, e); /* without its store fence: one below does for every span */
    plain = e;
  }
  if (plain < end) kernel(job, plain, end);
  if (job->stream) _mm_sfence(); /* streaming stores are weakly ordered: done before the caller goes on */
}
