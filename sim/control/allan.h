/* allan.h: the overlapping Allan deviation of a rate record and the two numbers read off it.
 *
 * A rate record y_0 .. y_{n-1} (a gyro's rad/s, an accelerometer's m/s^2, any unit) sampled every
 * dt seconds. With the integrated record (the "angle") x_i = dt * sum_{j<i} y_j, the overlapping
 * Allan variance at cluster size m (averaging time tau = m dt) is
 *   sigma^2(tau) = sum_{i=0}^{n-2m} (x_{i+2m} - 2 x_{i+m} + x_i)^2 / (2 tau^2 (n - 2m + 1))
 * (IEEE Std 952, "Specification Format Guide and Test Procedure for Single-Axis Interferometric
 * Fiber Optic Gyros", Annex C; D. W. Allan, "Statistics of atomic frequency standards"). One pass
 * over the cumulative sums per cluster size: O(n) per m. The Allan deviation is its root, in the
 * unit of y. */
#ifndef HINGE_ALLAN_H
#define HINGE_ALLAN_H

#include <stddef.h>

/* IEEE Std 952's flicker-floor factor: the bias instability B is the Allan deviation's floor
 * divided by 0.664 (= sqrt(2 ln 2 / pi), the floor of flicker noise of PSD B^2 / (2 pi f)) */
#define HG_ALLAN_FLICKER_FLOOR 0.664

/* cluster sizes spaced per_octave to the octave (1, 2, 4, ... for 1), rounded and without
 * repeats, from 1 up to (n - 1) / 2; writes at most cap of them to m and returns how many */
size_t hg_allan_cluster_sizes(size_t n, int per_octave, size_t *m, size_t cap);

/* the overlapping Allan deviation adev[j] of y[0..n) at the cluster sizes m[j] (tau_j = m_j dt);
 * a size outside 1 .. (n - 1) / 2 gives NaN. The record's mean is taken out before summing
 * (the Allan variance ignores a constant) and the sums are compensated (Kahan), so an offset as
 * large as gravity costs no precision. Allocates n + 1 doubles; returns 0, or -1 when that
 * allocation fails. */
int hg_allan_deviation(const double *y, size_t n, double dt, const size_t *m, size_t nm,
                       double *adev);

/* the angle random walk N (unit of y times sqrt(s); rad/sqrt(s) for a gyro): the line
 * sigma(tau) = N / sqrt(tau) fitted (least squares in log-log, slope held at -1/2) to the points
 * with tau in [tau_lo, tau_hi], i.e. that line's value at tau = 1 s. Choose the range where the
 * curve's slope is -1/2 (hg_allan_slope); NaN when no point lies in it. */
double hg_allan_arw(const double *tau, const double *adev, size_t nm, double tau_lo, double tau_hi);

/* the slope of ln sigma against ln tau fitted (least squares) over tau in [tau_lo, tau_hi]:
 * -1/2 for white noise, 0 for flicker, +1/2 for rate random walk; NaN with fewer than 2 points */
double hg_allan_slope(const double *tau, const double *adev, size_t nm, double tau_lo,
                      double tau_hi);

/* the bias instability B (unit of y): the Allan deviation in its flat region, divided by 0.664.
 * The flat region is where the log-log slope is nearest zero within [tau_lo, tau_hi]: the floor
 * for flicker noise, the top of the hump for a Gauss-Markov bias (sensor_models.h). Its value is
 * the vertex of a parabola fitted in (ln tau, ln sigma) to the points within half an octave of
 * the flattest point either side (so noise in one point does not set it). With arw > 0 the white
 * part arw^2 / tau is first taken out of the variance: sigma_b^2 = sigma^2 - arw^2 / tau. Writes
 * the averaging time of the flat point to *tau_flat when it is not NULL. NaN when fewer than 3
 * points lie in the range. */
double hg_allan_bias_instability(const double *tau, const double *adev, size_t nm, double tau_lo,
                                 double tau_hi, double arw, double *tau_flat);

#endif
