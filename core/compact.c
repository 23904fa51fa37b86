/* compact.c — SKN_LAYOUT_COMPACT at bind (skn.h, "Layout"): weights as
 * 16-bit fixed point summing exactly, normals and tangents as octahedral
 * codes in 32 bits. The rig's float arrays are overwritten with the decoded
 * values, so that the scalar reference and every vectorised kernel skin with
 * the very inputs the kernels decode from the codes (blocks_simd.h computes
 * skn__weight_decode and skn__oct_decode with the same float operations, in
 * lanes). pack.c lays the codes out for the kernels. */
#include "kernels/kernels.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

float skn__weight_decode(uint16_t q) { return (float)q * (1.0f / (float)SKN_WEIGHT_ONE); }

/* Vertex v's weights as multiples of 1/65535 whose integers sum to the
 * weights' sum rounded (65535 for normalized weights): each rounded down,
 * then the units left over go to the largest remainders, ties to the
 * earlier influence (Hamilton's method), so each weight moves by less than
 * 1/65535 and the sum not at all. */
static skn_status quantize_weights(skn_rig *rig, uint32_t v) {
  uint32_t lo = rig->influence_offsets[v], n = rig->influence_offsets[v + 1] - lo, q[SKN_COMPACT_MAX_INFLUENCES];
  double x[SKN_COMPACT_MAX_INFLUENCES], sum = 0.0, total = 0.0;
  float *w = rig->influence_weights + lo;
  if (n > SKN_COMPACT_MAX_INFLUENCES)
    return skn__fail(SKN_ERR_UNSUPPORTED, "vertex %u: %u influences; SKN_LAYOUT_COMPACT holds up to %u "
                     "(max_influences prunes)", v, n, SKN_COMPACT_MAX_INFLUENCES);
  for (uint32_t i = 0; i < n; ++i) {
    if (w[i] > 1.0f)
      return skn__fail(SKN_ERR_UNSUPPORTED, "vertex %u: weight %g of joint %u is above 1, which "
                       "SKN_LAYOUT_COMPACT cannot hold", v, w[i], rig->influence_joints[lo + i]);
    x[i] = w[i] * (double)SKN_WEIGHT_ONE;
    q[i] = (uint32_t)floor(x[i]);
    sum += x[i], total += q[i];
  }
  double target = floor(sum + 0.5);
  if (n && target < 1.0) target = 1.0; /* a vertex with influences keeps some weight */
  for (; total < target; total += 1.0) {
    uint32_t best = n;
    for (uint32_t i = 0; i < n; ++i)
      if (q[i] < SKN_WEIGHT_ONE && (best == n || x[i] - q[i] > x[best] - q[best])) best = i;
    if (best == n) break; /* (cannot happen: every weight <= 1 leaves room) */
    q[best] += 1;
  }
  for (uint32_t i = 0; i < n; ++i) w[i] = skn__weight_decode((uint16_t)q[i]);
  return SKN_OK;
}

/* A code's two halves as signed 16-bit integers. */
static int32_t code_half(uint32_t code, int high) {
  uint32_t h = high ? code >> 16 : code & 0xFFFFu;
  return (int32_t)h - (h & 0x8000u ? 0x10000 : 0);
}

/* The decoder (Cigolle et al. 2014, "A Survey of Efficient Representations
 * for Independent Unit Vectors", JCGT 3(2), listing 2): (x, y) on the
 * square, z = 1 - |x| - |y|, and where z < 0 the corner folded back,
 * x' = (1 - |y|) sign x — written as x - t sign x with t = -z, which is the
 * same point and needs no branch in lanes. Then normalised as lanes_unit3. */
void skn__oct_decode(uint32_t code, int tangent, float out[4]) {
  int32_t cx = code_half(code, 0), cy = code_half(code, 1);
  float x = (float)cx * SKN_OCT_SCALE, y, w = 1.0f;
  if (tangent) {
    w = (uint32_t)cy & 1u ? -1.0f : 1.0f;
    y = (float)((cy - (int32_t)((uint32_t)cy & 1u)) / 2) * SKN_OCT_SCALE_Y;
  } else {
    y = (float)cy * SKN_OCT_SCALE;
  }
  float z = 1.0f - fabsf(x) - fabsf(y);
  float t = -z > 0.0f ? -z : 0.0f;
  x += x >= 0.0f ? -t : t;
  y += y >= 0.0f ? -t : t;
  float l2 = x * x + y * y + z * z;
  float s = 1.0f / sqrtf(l2 > FLT_MIN ? l2 : FLT_MIN);
  out[0] = x * s, out[1] = y * s, out[2] = z * s, out[3] = w;
}

static uint32_t oct_code(int32_t cx, int32_t cy, int tangent, float w) {
  if (tangent) cy = 2 * cy + (w < 0.0f);
  return (uint32_t)(cx & 0xFFFF) | (uint32_t)(cy & 0xFFFF) << 16;
}

/* The encoder: v onto the octahedron |x| + |y| + |z| = 1, its lower half
 * (z < 0) unfolded onto the square's corners (Meyer et al. 2010), then of
 * the four codes around that point the one whose decoded direction is
 * nearest to v (Cigolle et al.'s "precise" variant): its error is the
 * decoder's, not the rounding's alone. A zero vector encodes as +z. */
uint32_t skn__oct_encode(const float v[3], int tangent, float w) {
  double x = v[0], y = v[1], z = v[2], l1 = fabs(x) + fabs(y) + fabs(z);
  if (!(l1 > 0.0)) return oct_code(0, 0, tangent, w);
  x /= l1, y /= l1, z /= l1;
  if (z < 0.0) {
    double fx = (1.0 - fabs(y)) * (x >= 0.0 ? 1.0 : -1.0), fy = (1.0 - fabs(x)) * (y >= 0.0 ? 1.0 : -1.0);
    x = fx, y = fy;
  }
  const double sx = 32767.0, sy = tangent ? 16383.0 : 32767.0;
  double len = sqrt((double)v[0] * v[0] + (double)v[1] * v[1] + (double)v[2] * v[2]), best = 9.0;
  uint32_t code = 0;
  for (int c = 0; c < 4; ++c) {
    double ax = (c & 1 ? ceil : floor)(x * sx), ay = (c & 2 ? ceil : floor)(y * sy);
    uint32_t k = oct_code((int32_t)fmin(fmax(ax, -sx), sx), (int32_t)fmin(fmax(ay, -sy), sy), tangent, w);
    float d[4];
    skn__oct_decode(k, tangent, d);
    /* the chord between the unit directions: a dot product would rank by
     * the decoded vector's float length (~1e-7) rather than its angle */
    double dl = sqrt((double)d[0] * d[0] + (double)d[1] * d[1] + (double)d[2] * d[2]), e = 0.0;
    for (int i = 0; i < 3; ++i) e += (d[i] / dl - v[i] / len) * (d[i] / dl - v[i] / len);
    if (e < best) best = e, code = k;
  }
  return code;
}

/* One attribute's codes (per vertex, then SKN_PACK_GROUP of padding, which
 * decode to +z), its float array overwritten with their decoded values. */
static uint32_t *quantize_directions(float *attr, uint32_t count, int tangent) {
  uint32_t *codes = skn__calloc((size_t)count + SKN_PACK_GROUP, sizeof *codes);
  const uint32_t width = tangent ? 4 : 3;
  for (uint32_t v = 0; codes && v < count; ++v) {
    float *a = attr + (size_t)v * width, d[4];
    codes[v] = skn__oct_encode(a, tangent, tangent ? a[3] : 0.0f);
    skn__oct_decode(codes[v], tangent, d);
    for (uint32_t c = 0; c < width; ++c) a[c] = d[c];
  }
  return codes;
}

skn_status skn__compact_quantize(skn_rig *rig) {
  for (uint32_t v = 0; v < rig->vertex_count; ++v) {
    skn_status s = quantize_weights(rig, v);
    if (s != SKN_OK) return s;
  }
  if (rig->normals && !(rig->oct_normals = quantize_directions(rig->normals, rig->vertex_count, 0)))
    return skn__fail(SKN_ERR_OUT_OF_MEMORY, "bind: out of memory for the compact normals");
  if (rig->tangents && !(rig->oct_tangents = quantize_directions(rig->tangents, rig->vertex_count, 1)))
    return skn__fail(SKN_ERR_OUT_OF_MEMORY, "bind: out of memory for the compact tangents");
  rig->flags |= SKN_RIG_COMPACT;
  return SKN_OK;
}
