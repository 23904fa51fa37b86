/* closest.c — distances to bones, and the closest-bone method's falloff
 * (abi/skn.h section 7): w_b = (d_min / d_b)^4, Maya's "Closest distance"
 * bind with its default dropoff rate of 4, from which the store keeps the
 * k heaviest joints and normalizes. */
#include "weights.h"

#include <math.h>

double skn__segment_closest(const float p[3], const float a[3], const float b[3], double y[3]) {
  double ab[3] = {(double)b[0] - a[0], (double)b[1] - a[1], (double)b[2] - a[2]};
  double ap[3] = {(double)p[0] - a[0], (double)p[1] - a[1], (double)p[2] - a[2]};
  double len2 = ab[0] * ab[0] + ab[1] * ab[1] + ab[2] * ab[2];
  double t = len2 > 0 ? (ap[0] * ab[0] + ap[1] * ab[1] + ap[2] * ab[2]) / len2 : 0;
  t = t < 0 ? 0 : t > 1 ? 1 : t;
  double d2 = 0;
  for (int c = 0; c < 3; ++c) {
    y[c] = a[c] + t * ab[c];
    double e = p[c] - y[c];
    d2 += e * e;
  }
  return sqrt(d2);
}

void skn__closest_values(const skn_wbones *bones, const float p[3], double *values) {
  double y[3], dmin = INFINITY;
  for (uint32_t b = 0; b < bones->count; ++b) {
    values[b] = skn__segment_closest(p, bones->heads + 3 * b, bones->tails + 3 * b, y);
    if (values[b] < dmin) dmin = values[b];
  }
  for (uint32_t b = 0; b < bones->count; ++b) {
    double d = values[b];
    if (dmin == 0) {
      values[b] = d == 0 ? 1 : 0;
    } else {
      double r = dmin / d;
      values[b] = (r * r) * (r * r);
    }
  }
}
