/* animation.c — glTF 2.0 animation (§3.11 and Appendix C): each channel's
 * sampler at time t (clamped to its first and last keys), LINEAR with
 * spherical linear interpolation for rotations, STEP, and CUBICSPLINE
 * (Hermite, tangents scaled by the key interval); then every node's local
 * transform and, parents first, its global transform; and morph weights. */
#include "gltf.h"

#include "../math/mat4.h"

#include <math.h>
#include <string.h>

static float key_time(const skn_gltf *g, const gltf_sampler *s, uint32_t k) {
  float t;
  skn__gltf_read_float(g, (uint32_t)s->input, k, &t);
  return t;
}

/* Output element e of the sampler (a key's value, or a CUBICSPLINE tangent). */
static void output(const skn_gltf *g, const gltf_sampler *s, uint32_t e, float *out) {
  skn__gltf_read_float(g, (uint32_t)s->output, e, out);
}

/* q0 to q1 along the shorter arc (Appendix C: s = sign of the dot product). */
static void slerp(float r[4], const float a[4], const float b[4], float u) {
  double dot = (double)a[0] * b[0] + (double)a[1] * b[1] + (double)a[2] * b[2] + (double)a[3] * b[3];
  double sign = dot < 0 ? -1.0 : 1.0, ca = fabs(dot), wa, wb;
  if (ca > 0.9999995) { /* nearly equal: the chord is the arc */
    wa = 1.0 - u;
    wb = sign * u;
  } else {
    double angle = acos(ca), s = sin(angle);
    wa = sin((1.0 - u) * angle) / s;
    wb = sign * sin(u * angle) / s;
  }
  for (int c = 0; c < 4; ++c) r[c] = (float)(wa * a[c] + wb * b[c]);
}

static void normalize4(float q[4]) {
  float len = sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  if (len > 0)
    for (int c = 0; c < 4; ++c) q[c] /= len;
}

/* The sampler's value at t for a channel of n components (3, or 4 for rotations). */
static void sample(const skn_gltf *g, const gltf_sampler *s, int n, float t, float *out) {
  uint32_t keys = g->accessors[s->input].count, cubic = s->interpolation == GLTF_CUBICSPLINE;
  uint32_t per_key = cubic ? 3 : 1, value = cubic ? 1 : 0; /* CUBICSPLINE: in-tangent, value, out-tangent */
  if (keys == 1 || t <= key_time(g, s, 0)) {
    output(g, s, value, out);
  } else if (t >= key_time(g, s, keys - 1)) {
    output(g, s, (keys - 1) * per_key + value, out);
  } else {
    uint32_t lo = 0, hi = keys - 1; /* t_lo <= t < t_hi */
    while (hi - lo > 1) {
      uint32_t mid = (lo + hi) / 2;
      if (key_time(g, s, mid) <= t) lo = mid; else hi = mid;
    }
    float t0 = key_time(g, s, lo), d = key_time(g, s, hi) - t0, u = (t - t0) / d;
    float a[4], b[4];
    if (s->interpolation == GLTF_STEP) {
      output(g, s, lo, out);
    } else if (!cubic) {
      output(g, s, lo, a);
      output(g, s, hi, b);
      if (n == 4) slerp(out, a, b, u);
      else for (int c = 0; c < n; ++c) out[c] = a[c] + u * (b[c] - a[c]);
    } else {
      float m0[4], m1[4], u2 = u * u, u3 = u2 * u;
      output(g, s, lo * 3 + 1, a);
      output(g, s, lo * 3 + 2, m0); /* out-tangent of key lo */
      output(g, s, hi * 3 + 1, b);
      output(g, s, hi * 3, m1);     /* in-tangent of key hi */
      for (int c = 0; c < n; ++c)
        out[c] = (2 * u3 - 3 * u2 + 1) * a[c] + (u3 - 2 * u2 + u) * d * m0[c] + (-2 * u3 + 3 * u2) * b[c] +
                 (u3 - u2) * d * m1[c];
    }
  }
  if (n == 4) normalize4(out);
}

/* Node i's local matrix at time t of animation a (a >= animation_count: none). */
static void local_matrix(const skn_gltf *g, uint32_t i, uint32_t a, float t, float m[16]) {
  const gltf_node *n = &g->nodes[i];
  if (n->has_matrix) {
    memcpy(m, n->matrix, 16 * sizeof(float));
    return;
  }
  float tr[3], rot[4], sc[3];
  memcpy(tr, n->translation, sizeof tr);
  memcpy(rot, n->rotation, sizeof rot);
  memcpy(sc, n->scale, sizeof sc);
  if (a < g->animation_count) {
    const gltf_animation *an = &g->animations[a];
    for (uint32_t c = 0; c < an->channel_count; ++c) {
      const gltf_channel *ch = &an->channels[c];
      if (ch->node != (int32_t)i) continue;
      const gltf_sampler *s = &an->samplers[ch->sampler];
      if (ch->path == GLTF_PATH_TRANSLATION) sample(g, s, 3, t, tr);
      else if (ch->path == GLTF_PATH_ROTATION) sample(g, s, 4, t, rot);
      else if (ch->path == GLTF_PATH_SCALE) sample(g, s, 3, t, sc);
    }
  }
  if (rot[0] * rot[0] + rot[1] * rot[1] + rot[2] * rot[2] + rot[3] * rot[3] == 0.0f) /* no rotation rather than NaN */
    rot[0] = rot[1] = rot[2] = 0, rot[3] = 1;
  skn_mat4_from_trs(m, tr, rot, sc);
}

void skn__gltf_globals(const skn_gltf *g, uint32_t a, float t, float (*global)[16]) {
  for (uint32_t k = 0; k < g->node_count; ++k) {
    uint32_t i = g->node_order[k];
    float local[16];
    local_matrix(g, i, a, t, local);
    if (g->nodes[i].parent < 0)
      memcpy(global[i], local, sizeof local);
    else
      skn_mat4_mul_affine(global[i], global[g->nodes[i].parent], local);
  }
}

/* Morph weights (§3.11: a weights channel's keys each hold n scalars, one
 * per target; CUBICSPLINE's hold n in-tangents, n values, n out-tangents),
 * sampled as the other channels are, component by component, without the
 * rotations' slerp and normalisation. */
static float weight_output(const skn_gltf *g, const gltf_sampler *s, uint32_t e) {
  float w;
  output(g, s, e, &w);
  return w;
}

static void sample_weights(const skn_gltf *g, const gltf_sampler *s, uint32_t n, float t, float *out) {
  uint32_t keys = g->accessors[s->input].count, cubic = s->interpolation == GLTF_CUBICSPLINE;
  uint32_t per_key = cubic ? 3 * n : n, value = cubic ? n : 0;
  if (keys == 1 || t <= key_time(g, s, 0) || t >= key_time(g, s, keys - 1)) {
    uint32_t k = keys == 1 || t <= key_time(g, s, 0) ? 0 : keys - 1;
    for (uint32_t c = 0; c < n; ++c) out[c] = weight_output(g, s, k * per_key + value + c);
    return;
  }
  uint32_t lo = 0, hi = keys - 1; /* t_lo <= t < t_hi */
  while (hi - lo > 1) {
    uint32_t mid = (lo + hi) / 2;
    if (key_time(g, s, mid) <= t) lo = mid; else hi = mid;
  }
  float t0 = key_time(g, s, lo), d = key_time(g, s, hi) - t0, u = (t - t0) / d, u2 = u * u, u3 = u2 * u;
  for (uint32_t c = 0; c < n; ++c) {
    if (s->interpolation == GLTF_STEP) {
      out[c] = weight_output(g, s, lo * n + c);
    } else if (!cubic) {
      float a = weight_output(g, s, lo * n + c), b = weight_output(g, s, hi * n + c);
      out[c] = a + u * (b - a);
    } else { /* Hermite: value, out-tangent of lo; value, in-tangent of hi (Appendix C) */
      float a = weight_output(g, s, lo * per_key + n + c), m0 = weight_output(g, s, lo * per_key + 2 * n + c);
      float b = weight_output(g, s, hi * per_key + n + c), m1 = weight_output(g, s, hi * per_key + c);
      out[c] = (2 * u3 - 3 * u2 + 1) * a + (u3 - 2 * u2 + u) * d * m0 + (-2 * u3 + 3 * u2) * b + (u3 - u2) * d * m1;
    }
  }
}

int skn__gltf_animated_weights(const skn_gltf *g, uint32_t a, float t, uint32_t node, uint32_t n, float *out) {
  if (a >= g->animation_count || !n) return 0;
  const gltf_animation *an = &g->animations[a];
  for (uint32_t c = 0; c < an->channel_count; ++c) {
    const gltf_channel *ch = &an->channels[c];
    if (ch->node == (int32_t)node && ch->path == GLTF_PATH_WEIGHTS) {
      sample_weights(g, &an->samplers[ch->sampler], n, t, out);
      return 1;
    }
  }
  return 0;
}
