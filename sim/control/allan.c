/* allan.c: overlapping Allan deviation and its readings (allan.h). */
#include "allan.h"

#include <math.h>
#include <stdlib.h>

size_t hg_allan_cluster_sizes(size_t n, int per_octave, size_t *m, size_t cap) {
  size_t count = 0, last = 0, top = n >= 3 ? (n - 1) / 2 : 0;
  if (per_octave < 1) per_octave = 1;
  for (int j = 0; count < cap; j++) {
    /* m_j = round(2^(j / per_octave)) */
    double v = floor(pow(2.0, (double)j / per_octave) + 0.5);
    if (v > (double)top) break;
    size_t s = (size_t)v;
    if (s != last) m[count++] = s, last = s;
  }
  return count;
}

int hg_allan_deviation(const double *y, size_t n, double dt, const size_t *m, size_t nm,
                       double *adev) {
  double *x = malloc((n + 1) * sizeof *x);
  if (!x) return -1;
  /* the mean, taken out: the Allan variance of y - c is that of y */
  double mean = 0;
  for (size_t i = 0; i < n; i++) mean += (y[i] - mean) / (double)(i + 1);
  /* x_i = sum_{j<i} (y_j - mean), compensated; the factor dt is applied at the end */
  double sum = 0, carry = 0;
  x[0] = 0;
  for (size_t i = 0; i < n; i++) {
    double term = (y[i] - mean) - carry, next = sum + term;
    carry = (next - sum) - term;
    sum = next;
    x[i + 1] = sum;
  }
  for (size_t j = 0; j < nm; j++) {
    size_t s = m[j];
    if (s < 1 || 2 * s > n - 1 || n < 3) {
      adev[j] = NAN;
      continue;
    }
    /* sigma^2 = sum (x_{i+2m} - 2 x_{i+m} + x_i)^2 / (2 m^2 (n - 2m + 1)) in units of y^2
     * (the dt of x cancels that of tau = m dt) */
    size_t terms = n - 2 * s + 1;
    double acc = 0;
    for (size_t i = 0; i < terms; i++) {
      double d = x[i + 2 * s] - 2 * x[i + s] + x[i];
      acc += d * d;
    }
    adev[j] = sqrt(acc / (2.0 * (double)s * (double)s * (double)terms));
  }
  (void)dt;
  free(x);
  return 0;
}

double hg_allan_arw(const double *tau, const double *adev, size_t nm, double tau_lo,
                    double tau_hi) {
  /* ln sigma = ln N - ln(tau) / 2: ln N is the mean of ln sigma + ln(tau) / 2 */
  double acc = 0;
  size_t count = 0;
  for (size_t j = 0; j < nm; j++)
    if (tau[j] >= tau_lo && tau[j] <= tau_hi && adev[j] > 0)
      acc += log(adev[j]) + 0.5 * log(tau[j]), count++;
  return count ? exp(acc / (double)count) : NAN;
}

double hg_allan_slope(const double *tau, const double *adev, size_t nm, double tau_lo,
                      double tau_hi) {
  /* least squares line through (ln tau, ln sigma) */
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  size_t count = 0;
  for (size_t j = 0; j < nm; j++) {
    if (!(tau[j] >= tau_lo && tau[j] <= tau_hi && adev[j] > 0)) continue;
    double u = log(tau[j]), v = log(adev[j]);
    sx += u, sy += v, sxx += u * u, sxy += u * v, count++;
  }
  if (count < 2) return NAN;
  double c = (double)count;
  return (c * sxy - sx * sy) / (c * sxx - sx * sx);
}

double hg_allan_bias_instability(const double *tau, const double *adev, size_t nm, double tau_lo,
                                 double tau_hi, double arw, double *tau_flat) {
  /* the points in range: ln tau and ln sigma_b, sigma_b^2 = sigma^2 - arw^2 / tau */
  size_t lo = nm, hi = 0;
  for (size_t j = 0; j < nm; j++)
    if (tau[j] >= tau_lo && tau[j] <= tau_hi) {
      if (lo == nm) lo = j;
      hi = j;
    }
  if (lo == nm || hi < lo + 2) return NAN;
#define LOG_B(j) (0.5 * log(fmax(adev[j] * adev[j] - arw * arw / tau[j], 1e-300)))
  /* the flattest point: the smallest |central difference of ln sigma_b over ln tau| */
  size_t flat = lo + 1;
  double best = INFINITY;
  for (size_t j = lo + 1; j < hi; j++) {
    double slope = (LOG_B(j + 1) - LOG_B(j - 1)) / (log(tau[j + 1]) - log(tau[j - 1]));
    if (fabs(slope) < best) best = fabs(slope), flat = j;
  }
  /* the parabola v = c0 + c1 u + c2 u^2, u = ln(tau / tau_flat), least squares over the points
   * within half an octave either side (at least the two neighbours) */
  double u0 = log(tau[flat]), half = 0.5 * log(2.0);
  double s[5] = {0}, t[3] = {0};
  for (size_t j = lo; j <= hi; j++) {
    double u = log(tau[j]) - u0;
    if (fabs(u) > half && j + 1 != flat && j != flat + 1) continue;
    double v = LOG_B(j), p = 1;
    for (int e = 0; e < 5; e++) {
      s[e] += p;
      if (e < 3) t[e] += p * v;
      p *= u;
    }
  }
#undef LOG_B
  /* the normal equations [s0 s1 s2; s1 s2 s3; s2 s3 s4] c = t, by Cramer's rule */
  double a[3][3] = {{s[0], s[1], s[2]}, {s[1], s[2], s[3]}, {s[2], s[3], s[4]}}, c[3];
  double det = a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) -
               a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0]) +
               a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]);
  for (int k = 0; k < 3; k++) {
    double b[3][3];
    for (int r = 0; r < 3; r++)
      for (int q = 0; q < 3; q++) b[r][q] = q == k ? t[r] : a[r][q];
    c[k] = (b[0][0] * (b[1][1] * b[2][2] - b[1][2] * b[2][1]) -
            b[0][1] * (b[1][0] * b[2][2] - b[1][2] * b[2][0]) +
            b[0][2] * (b[1][0] * b[2][1] - b[1][1] * b[2][0])) /
           det;
  }
  /* the vertex u* = -c1 / (2 c2), kept within the points used; else the fit's value at u = 0 */
  double u = c[2] != 0 ? -c[1] / (2 * c[2]) : 0;
  if (!(fabs(u) <= half)) u = 0;
  if (tau_flat) *tau_flat = exp(u0 + u);
  return exp(c[0] + c[1] * u + c[2] * u * u) / HG_ALLAN_FLICKER_FLOOR;
}
