/* to_weights.c — skn_gltf_compute_weights: a glTF mesh primitive and its
 * node's skin as skn_compute_weights' mesh and bones (abi/skn.h section 7,
 * the bone rule beside the call). */
#include "gltf.h"
#include "../math/mat4.h"

#include <math.h>
#include <string.h>

/* The skin's joints at bind, in the mesh's space. */
typedef struct skeleton {
  uint32_t J;
  const int32_t *parents;
  const float (*at)[3], (*y_axis)[3];
  double near;      /* joints this close are at one point: a millionth of the mesh's size, the rounding
                       of inverting their bind matrices */
  double diagonal;  /* the mesh's bounding-box diagonal */
  const float *positions;
  const uint32_t *triangles;
  uint32_t triangle_count;
} skeleton;

/* How far the ray from p along unit u goes before it leaves the mesh: the
 * nearest crossing of a triangle facing along u (Moller-Trumbore), or -1
 * where it crosses none (p outside, or the mesh open there). */
static double surface_reach(const skeleton *k, const float *p, const double *u) {
  double best = -1;
  for (uint32_t t = 0; t < k->triangle_count; ++t) {
    const float *a = k->positions + 3 * (size_t)k->triangles[3 * t], *b = k->positions + 3 * (size_t)k->triangles[3 * t + 1],
                *c = k->positions + 3 * (size_t)k->triangles[3 * t + 2];
    double e1[3], e2[3], s[3];
    for (int i = 0; i < 3; ++i) e1[i] = (double)b[i] - a[i], e2[i] = (double)c[i] - a[i], s[i] = (double)p[i] - a[i];
    double n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
    double det = n[0] * u[0] + n[1] * u[1] + n[2] * u[2]; /* facing along u: det > 0 (the exit) */
    if (!(det > 0)) continue;
    double q[3] = {s[1] * e1[2] - s[2] * e1[1], s[2] * e1[0] - s[0] * e1[2], s[0] * e1[1] - s[1] * e1[0]};
    double pv[3] = {u[1] * e2[2] - u[2] * e2[1], u[2] * e2[0] - u[0] * e2[2], u[0] * e2[1] - u[1] * e2[0]};
    double d = e1[0] * pv[0] + e1[1] * pv[1] + e1[2] * pv[2];
    if (d == 0) continue;
    double bu = (s[0] * pv[0] + s[1] * pv[1] + s[2] * pv[2]) / d, bv = (u[0] * q[0] + u[1] * q[1] + u[2] * q[2]) / d;
    double h = (e2[0] * q[0] + e2[1] * q[1] + e2[2] * q[2]) / d;
    if (bu >= 0 && bv >= 0 && bu + bv <= 1 && h > 0 && (best < 0 || h < best)) best = h;
  }
  return best;
}

static int same_point(const skeleton *k, const float *a, const float *b) {
  double d2 = 0;
  for (int c = 0; c < 3; ++c) d2 += ((double)a[c] - b[c]) * ((double)a[c] - b[c]);
  return d2 <= k->near * k->near;
}

/* Joint j's descendants among the joints (for the choice at a root). */
static uint32_t descendants(const skeleton *k, uint32_t j) {
  uint32_t count = 0;
  for (uint32_t c = 0; c < k->J; ++c)
    for (int32_t a = k->parents[c]; a >= 0; a = k->parents[a])
      if ((uint32_t)a == j) {
        ++count;
        break;
      }
  return count;
}

static double cosine(const float *from, const float *to, const float *axis) {
  double d[3] = {(double)to[0] - from[0], (double)to[1] - from[1], (double)to[2] - from[2]};
  double ld = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  double la = sqrt((double)axis[0] * axis[0] + (double)axis[1] * axis[1] + (double)axis[2] * axis[2]);
  return ld > 0 && la > 0 ? (d[0] * axis[0] + d[1] * axis[1] + d[2] * axis[2]) / (ld * la) : -1;
}

/* The child joint j's bone runs to (see skn.h): the one its bind frame's
 * +Y points at (within 2.6 degrees: a Blender bone's connected child);
 * else the one that goes on most straight from j's parent; at a root, the
 * one with the most descendants. -1 where no child sits apart from j. */
static int32_t bone_child(const skeleton *k, uint32_t j) {
  const float(*at)[3] = k->at;
  int32_t best = -1, aimed = -1, p = k->parents[j];
  double best_score = -INFINITY, best_aim = 0.999;
  int straight = p >= 0 && !same_point(k, at[j], at[p]);
  float incoming[3] = {0, 0, 0}; /* the way from j's parent */
  for (int c = 0; straight && c < 3; ++c) incoming[c] = at[j][c] - at[p][c];
  for (uint32_t c = 0; c < k->J; ++c) {
    if (k->parents[c] != (int32_t)j || same_point(k, at[c], at[j])) continue;
    double aim = cosine(at[j], at[c], k->y_axis[j]);
    if (aim > best_aim) best_aim = aim, aimed = (int32_t)c;
    double score = straight ? cosine(at[j], at[c], incoming) : (double)descendants(k, c);
    if (score > best_score) best_score = score, best = (int32_t)c;
  }
  return aimed >= 0 ? aimed : best;
}

/* The bones, one a joint (see skn.h): to its chosen child (along +Y as
 * far as the child's projection where +Y points within 45 degrees of the
 * child but not at it: Blender's bones run along +Y, and a bone need not
 * reach its child); else (a leaf)
 * along its bind frame's +Y, three fifths of the way to where that ray
 * leaves the mesh (a head's bone towards the crown, a finger's towards its
 * tip), or, where the ray leaves none, as long as the way from its parent
 * (a tenth of the mesh's diagonal where it sits on its parent or is a lone
 * root). */
static void skin_bones(const skeleton *k, float *heads, float *tails) {
  for (uint32_t j = 0; j < k->J; ++j) {
    int32_t c = bone_child(k, j), p = k->parents[j];
    const float *at = k->at[j], *y = k->y_axis[j];
    memcpy(heads + 3 * j, at, 12);
    if (c >= 0) {
      memcpy(tails + 3 * j, k->at[c], 12);
      double cy = cosine(at, k->at[c], y);
      if (cy > 0.7071 && cy <= 0.999) { /* +Y towards the child, not at it: along +Y, as far as the child's projection */
        double ly2 = (double)y[0] * y[0] + (double)y[1] * y[1] + (double)y[2] * y[2], dot = 0;
        for (int e = 0; e < 3; ++e) dot += ((double)k->at[c][e] - at[e]) * y[e];
        for (int e = 0; e < 3; ++e) tails[3 * j + e] = at[e] + (float)(y[e] * dot / ly2);
      }
      continue;
    }
    double ly = sqrt((double)y[0] * y[0] + (double)y[1] * y[1] + (double)y[2] * y[2]);
    double u[3] = {ly > 0 ? y[0] / ly : 0, ly > 0 ? y[1] / ly : 1, ly > 0 ? y[2] / ly : 0};
    double length = 0.6 * surface_reach(k, at, u);
    if (!(length > k->near)) {
      length = k->diagonal * 0.1;
      if (p >= 0 && !same_point(k, at, k->at[p])) {
        length = 0;
        for (int e = 0; e < 3; ++e) length += ((double)at[e] - k->at[p][e]) * ((double)at[e] - k->at[p][e]);
        length = sqrt(length);
      }
    }
    for (int e = 0; e < 3; ++e) tails[3 * j + e] = at[e] + (float)(u[e] * length);
  }
}

static skn_status check_desc(const skn_gltf *g, const skn_gltf_weights_desc *d, const gltf_primitive **out) {
  if (d->node >= g->node_count)
    return skn__fail(SKN_ERR_INDEX_OUT_OF_RANGE, "gltf_compute_weights: node %u >= %u nodes", d->node, g->node_count);
  const gltf_node *nd = &g->nodes[d->node];
  if (nd->mesh < 0 || nd->skin < 0)
    return skn__fail(SKN_ERR_INVALID_ARGUMENT, "gltf_compute_weights: nodes[%u] has %s", d->node,
                     nd->mesh < 0 ? "no mesh" : "no skin");
  const gltf_mesh *me = &g->meshes[nd->mesh];
  if (d->primitive_in_mesh >= me->primitive_count)
    return skn__fail(SKN_ERR_INDEX_OUT_OF_RANGE, "gltf_compute_weights: meshes[%d] has %u primitives, not %u", nd->mesh,
                     me->primitive_count, d->primitive_in_mesh + 1);
  const gltf_primitive *p = &g->primitives[me->first_primitive + d->primitive_in_mesh];
  if (p->position < 0)
    return skn__fail(SKN_ERR_INVALID_ARGUMENT, "gltf_compute_weights: meshes[%d].primitives[%u] has no POSITION",
                     nd->mesh, d->primitive_in_mesh);
  if (p->mode < 4)
    return skn__fail(SKN_ERR_UNSUPPORTED, "gltf_compute_weights: meshes[%d].primitives[%u] is points or lines (mode %u)",
                     nd->mesh, d->primitive_in_mesh, p->mode);
  if (d->flags & SKN_WEIGHTS_AS_BLENDER)
    return skn__fail(SKN_ERR_INVALID_ARGUMENT, "gltf_compute_weights: SKN_WEIGHTS_AS_BLENDER is for Blender's groups");
  *out = p;
  return SKN_OK;
}

typedef struct inputs {
  float *positions, *heads, *tails, (*at)[3], (*y_axis)[3];
  uint32_t *triangles;
  int32_t *parents;
} inputs;

static void inputs_free(inputs *in) {
  skn__free(in->positions), skn__free(in->heads), skn__free(in->tails), skn__free(in->at);
  skn__free(in->y_axis), skn__free(in->triangles), skn__free(in->parents);
}

/* Each joint's bind position and +Y axis in the mesh's space: the inverse
 * bind matrix's inverse, translation and second column. */
static void joint_frames(const skn_gltf *g, const gltf_skin *sk, inputs *in) {
  for (uint32_t j = 0; j < sk->joint_count; ++j) {
    float ibm[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}, bind[16];
    if (sk->inverse_bind >= 0) skn__gltf_read_float(g, (uint32_t)sk->inverse_bind, j, ibm);
    skn_mat4_invert_affine(bind, ibm);
    for (int k = 0; k < 3; ++k) in->at[j][k] = bind[12 + k], in->y_axis[j][k] = bind[4 + k];
  }
}

SKN_API skn_status skn_gltf_compute_weights(const skn_gltf *g, const skn_gltf_weights_desc *caller, uint32_t *joints,
                                            float *weights, size_t capacity, uint32_t *out_vertex_count) {
  if (!g || !caller) return skn__fail(SKN_ERR_INVALID_ARGUMENT, "gltf_compute_weights: gltf and desc are required");
  if (caller->struct_size < sizeof *caller)
    return skn__fail(SKN_ERR_INVALID_ARGUMENT, "gltf_compute_weights: struct_size %u is smaller than %zu",
                     caller->struct_size, sizeof *caller);
  const skn_gltf_weights_desc *d = caller;
  const gltf_primitive *p = NULL;
  skn_status s = check_desc(g, d, &p);
  if (s != SKN_OK) return s;
  const gltf_skin *sk = &g->skins[g->nodes[d->node].skin];
  uint32_t n = g->accessors[p->position].count, J = sk->joint_count, tris = skn__gltf_triangle_count(g, p);
  uint32_t k = d->influences_per_vertex ? d->influences_per_vertex : 4;
  if (out_vertex_count) *out_vertex_count = n;
  if (!joints && !weights && !capacity) return SKN_OK;
  if (!joints || !weights)
    return skn__fail(SKN_ERR_INVALID_ARGUMENT, "gltf_compute_weights: joints and weights are required (or both NULL)");
  if (capacity / k < n)
    return skn__fail(SKN_ERR_INVALID_ARGUMENT, "gltf_compute_weights: capacity %zu < %u vertices x %u influences",
                     capacity, n, k);
  inputs in = {0};
  in.positions = skn__alloc((size_t)n * 3 * sizeof(float) + 1);
  in.triangles = skn__alloc((size_t)tris * 3 * sizeof(uint32_t) + 1);
  in.at = skn__alloc(sizeof *in.at * J), in.y_axis = skn__alloc(sizeof *in.y_axis * J);
  in.parents = skn__alloc(sizeof *in.parents * J);
  in.heads = skn__alloc(sizeof(float) * 3 * J), in.tails = skn__alloc(sizeof(float) * 3 * J);
  if (!in.positions || !in.triangles || !in.at || !in.y_axis || !in.parents || !in.heads || !in.tails ||
      !skn__gltf_joint_parents(g, sk, in.parents)) {
    inputs_free(&in);
    return skn__fail(SKN_ERR_OUT_OF_MEMORY, "gltf_compute_weights: out of memory");
  }
  float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (uint32_t v = 0; v < n; ++v) {
    float *x = in.positions + (size_t)v * 3;
    skn__gltf_read_float(g, (uint32_t)p->position, v, x);
    for (int k = 0; k < 3; ++k) lo[k] = fminf(lo[k], x[k]), hi[k] = fmaxf(hi[k], x[k]);
  }
  float diagonal = n ? sqrtf((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) +
                             (hi[2] - lo[2]) * (hi[2] - lo[2]))
                     : 1.0f;
  skn__gltf_write_triangles(g, p, in.triangles);
  joint_frames(g, sk, &in);
  skn_weights_desc w;
  memset(&w, 0, sizeof w);
  w.struct_size = sizeof w;
  w.method = d->method;
  w.vertex_count = n;
  w.positions.data = in.positions;
  w.triangle_count = tris;
  w.triangles = in.triangles;
  skeleton sk_ = {J, in.parents, (const float(*)[3])in.at, (const float(*)[3])in.y_axis, 1e-6 * diagonal,
                  diagonal > 0 ? diagonal : 1.0, in.positions, in.triangles, tris};
  skin_bones(&sk_, in.heads, in.tails);
  w.bone_count = J;
  w.bone_heads = in.heads, w.bone_tails = in.tails;
  w.influences_per_vertex = d->influences_per_vertex;
  w.min_weight = d->min_weight;
  w.flags = d->flags;
  w.threads = d->threads;
  s = skn_compute_weights(&w, joints, weights);
  inputs_free(&in);
  return s;
}
