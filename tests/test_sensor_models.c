/* test_sensor_models.c: the sensor models of control in the loop (sim/control/sensor_models.h)
 * and the Allan deviation (allan.h): a static gyro's Allan plot gives back the angle random walk
 * and bias instability it was specified with, every draw depends on (seed, sensor, channel,
 * sample) only, and each model's statistics and deterministic parts match their definitions. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "allan.h"
#include "sensor_models.h"
#include "stream.h"

#define PI 3.14159265358979323846
#define DEG (PI / 180)

/* one hour at 100 Hz */
#define HOUR_N 360000
#define HOUR_DT 0.01

/* the record of one axis of an inertial sensor at rest (truth zero) */
static void static_record(const hg_inertial_params *p, uint64_t seed, uint32_t sensor, int axis,
                          size_t n, double dt, double *y) {
  hg_inertial_state s;
  const double truth[3] = {0, 0, 0};
  for (size_t k = 0; k < n; k++) {
    double m[3];
    hg_inertial_measure(p, &s, seed, sensor, k, dt, truth, m);
    y[k] = m[axis];
  }
}

/* the stateless draws are the stream's: the k-th draw of hg_stream_init(seed, a, b), and the
 * high word of k is part of the counter */
static void stream_at(void **state) {
  (void)state;
  hg_stream u, g;
  hg_stream_init(&u, 77, 3, 5);
  hg_stream_init(&g, 77, 3, 5);
  for (uint64_t k = 0; k < 100; k++) {
    double a = hg_stream_uniform(&u), b = hg_stream_normal(&g);
    assert_true(a == hg_stream_uniform_at(77, 3, 5, k));
    assert_true(b == hg_stream_normal_at(77, 3, 5, k));
  }
  assert_true(hg_stream_normal_at(77, 3, 5, 7) != hg_stream_normal_at(77, 3, 5, 7 + (1ull << 32)));
  assert_true(hg_stream_normal_at(77, 3, 5, 7) != hg_stream_normal_at(78, 3, 5, 7));
}

/* the cumulative-sum Allan deviation against the definition summed directly (averages of
 * clusters, overlapping), on a short record with a large offset */
static void allan_definition(void **state) {
  (void)state;
  enum { n = 1000 };
  double y[n];
  for (int i = 0; i < n; i++)
    y[i] = 9.81 + 0.01 * hg_stream_normal_at(5, 0, 0, (uint64_t)i) + 1e-3 * sin(0.05 * i);
  size_t m[] = {1, 3, 10, 50, 499, 500, 0};
  double adev[7];
  assert_int_equal(hg_allan_deviation(y, n, 0.1, m, 7, adev), 0);
  for (int j = 0; j < 5; j++) {
    size_t s = m[j], terms = n - 2 * s + 1;
    double acc = 0;
    for (size_t i = 0; i < terms; i++) {
      double a = 0, b = 0;
      for (size_t l = 0; l < s; l++) a += y[i + l], b += y[i + s + l];
      acc += (b / s - a / s) * (b / s - a / s);
    }
    double direct = sqrt(acc / (2.0 * terms));
    assert_true(fabs(adev[j] - direct) < 1e-9 * direct);
  }
  assert_true(isnan(adev[5]) && isnan(adev[6])); /* m > (n - 1) / 2, m = 0 */
  size_t sizes[64];
  size_t count = hg_allan_cluster_sizes(n, 1, sizes, 64);
  assert_int_equal(count, 9); /* 1, 2, ..., 256 (<= 499) */
  assert_int_equal(sizes[8], 256);
}

/* White noise of density N: sigma(tau) = N / sqrt(tau). The relative standard error of an Allan
 * deviation from K = n / m non-overlapping clusters is 1 / sqrt(2 (K - 1)) (the overlapping
 * estimate does better); each point must lie within 4 of them. */
static void allan_white(void **state) {
  (void)state;
  double *y = malloc(HOUR_N * sizeof *y);
  assert_non_null(y);
  hg_inertial_params p = {.white_density = 0.01 * DEG / 60};
  static_record(&p, 31, 0, 1, HOUR_N, HOUR_DT, y);
  size_t m[] = {1, 10, 100, 1000, 3600};
  double adev[5], tau[5];
  assert_int_equal(hg_allan_deviation(y, HOUR_N, HOUR_DT, m, 5, adev), 0);
  for (int j = 0; j < 5; j++) {
    tau[j] = m[j] * HOUR_DT;
    double expect = p.white_density / sqrt(tau[j]);
    double se = 1 / sqrt(2.0 * ((double)HOUR_N / m[j] - 1));
    printf("white: tau %6.2f s  adev / (N / sqrt(tau)) = %.4f (4 se %.4f)\n", tau[j],
           adev[j] / expect, 4 * se);
    assert_true(fabs(adev[j] / expect - 1) < 4 * se);
  }
  assert_true(fabs(hg_allan_slope(tau, adev, 5, 0.01, 36) + 0.5) < 0.02);
  assert_true(fabs(hg_allan_arw(tau, adev, 5, 0.01, 36) / p.white_density - 1) < 0.01);
  free(y);
}

/* The Gauss-Markov bias alone against the exact Allan variance of the sampled process, an AR(1)
 * of coefficient phi = e^(-dt/Tc) and stationary variance s^2 (N. F. Zhang, "Allan variance of
 * time series models for measurement data", Metrologia 45, 2008):
 *   sigma^2(m) = s^2 (m - 3 phi - m phi^2 + 4 phi^(m+1) - phi^(2m+1)) / (m^2 (1 - phi)^2)
 * and its peak, 0.664 B. Tc = 0.5 s keeps the hour's record about 3600 correlation times long;
 * the three axes' variances are averaged (independent channels), which leaves a standard error
 * near 1% at the peak: a tolerance of 3% catches an s of B instead of 1.0755 B (7% low). */
static void gauss_markov_exact(void **state) {
  (void)state;
  double *y = malloc(HOUR_N * sizeof *y);
  assert_non_null(y);
  const double b = 1 * DEG / 3600, tc = 0.5, dt = HOUR_DT;
  hg_inertial_params p = {.bias_instability = b, .correlation_time = tc};
  size_t m[64];
  size_t nm = hg_allan_cluster_sizes(HOUR_N, 4, m, 64);
  double var[64] = {0}, adev[64], tau[64];
  for (int axis = 0; axis < 3; axis++) {
    static_record(&p, 2024, 4, axis, HOUR_N, dt, y);
    assert_int_equal(hg_allan_deviation(y, HOUR_N, dt, m, nm, adev), 0);
    for (size_t j = 0; j < nm; j++) var[j] += adev[j] * adev[j] / 3;
  }
  const double s = HG_GAUSS_MARKOV_SIGMA_PER_B * b, phi = exp(-dt / tc);
  double peak = 0;
  for (size_t j = 0; j < nm; j++) {
    tau[j] = m[j] * dt;
    adev[j] = sqrt(var[j]);
    double mm = (double)m[j];
    double exact =
        s * sqrt((mm - 3 * phi - mm * phi * phi + 4 * pow(phi, mm + 1) - pow(phi, 2 * mm + 1)) /
                 (mm * mm * (1 - phi) * (1 - phi)));
    if (exact > peak) peak = exact;
    if (tau[j] >= 0.1 && tau[j] <= 4) {
      printf("gauss-markov: tau %6.3f s  adev / exact = %.4f\n", tau[j], adev[j] / exact);
      assert_true(fabs(adev[j] / exact - 1) < 0.03);
    }
  }
  /* the closed form's peak is 0.664 B (the sampled process's to 1e-4 at dt = Tc / 50) */
  assert_true(fabs(peak / (0.664 * b) - 1) < 2e-3);
  double flat, read = hg_allan_bias_instability(tau, adev, nm, 0.2, 4, 0, &flat);
  printf("gauss-markov: B read %.4f of specified, flat at %.3f s (1.89 Tc = %.3f s)\n", read / b,
         flat, 1.8926 * tc);
  assert_true(fabs(read / b - 1) < 0.03);
  free(y);
}

/* the record starts stationary: the Gauss-Markov bias at k = 0, over 20000 sensors, has the
 * stationary sigma s = 1.0755 B (standard error of a sigma 0.5%; 5 of them), and so it has at a
 * sample long after (k = 100 at dt = Tc: the start forgotten) */
static void gauss_markov_start(void **state) {
  (void)state;
  const double b = 1e-5;
  hg_inertial_params p = {.bias_instability = b, .correlation_time = 2};
  const double truth[3] = {0, 0, 0}, s = HG_GAUSS_MARKOV_SIGMA_PER_B * b;
  const int n = 20000;
  double sq0 = 0, sq1 = 0;
  for (int i = 0; i < n; i++) {
    hg_inertial_state st;
    double m[3];
    hg_inertial_measure(&p, &st, 5, (uint32_t)i, 0, 2, truth, m);
    sq0 += m[0] * m[0] / n;
    for (uint64_t k = 1; k <= 100; k++)
      hg_inertial_measure(&p, &st, 5, (uint32_t)i, k, 2, truth, m);
    sq1 += m[0] * m[0] / n;
  }
  assert_true(fabs(sqrt(sq0) / s - 1) < 5 / sqrt(2.0 * n));
  assert_true(fabs(sqrt(sq1) / s - 1) < 5 / sqrt(2.0 * n));
}

/* The static gyro of the brief: N = 0.01 deg/sqrt(h), B = 1 deg/h (a tactical-grade fibre-optic
 * gyro), one hour at 100 Hz, truth zero. Tc = 5 s: the hump's top is at 1.89 Tc = 9.5 s, 380
 * hump widths inside the hour. The spread of the reading grows as sqrt(Tc / T): over 40 seeds the
 * rms error of B read off one axis was 3.0% at Tc = 5 s, 5.9% at 10 s and 10.5% at 20 s, so at
 * Tc = 20 to 50 s an hour cannot decide 10% (it would need several hours). N is read on the
 * -1/2 slope at 0.01 to 0.3 s (the Gauss-Markov part is below 1% of the variance there) and the
 * white part N^2 / tau is taken out before B is read over 0.5 Tc to 8 Tc. All three axes (three
 * independent records) must give both within 10%. */
static void allan_static_gyro(void **state) {
  (void)state;
  double *y = malloc(HOUR_N * sizeof *y);
  assert_non_null(y);
  const double n_arw = 0.01 * DEG / 60, b = 1 * DEG / 3600, tc = 5;
  hg_inertial_params p = {.white_density = n_arw,
                          .bias_instability = b,
                          .correlation_time = tc,
                          .bias = {1e-3, -2e-3, 5e-4}};
  size_t m[128];
  size_t nm = hg_allan_cluster_sizes(HOUR_N, 8, m, 128);
  double adev[128], tau[128];
  for (size_t j = 0; j < nm; j++) tau[j] = m[j] * HOUR_DT;
  for (int axis = 0; axis < 3; axis++) {
    static_record(&p, 7, 1, axis, HOUR_N, HOUR_DT, y);
    assert_int_equal(hg_allan_deviation(y, HOUR_N, HOUR_DT, m, nm, adev), 0);
    double slope = hg_allan_slope(tau, adev, nm, 0.01, 0.3);
    double arw = hg_allan_arw(tau, adev, nm, 0.01, 0.3), flat;
    double bi = hg_allan_bias_instability(tau, adev, nm, 0.5 * tc, 8 * tc, arw, &flat);
    printf(
        "static gyro axis %d: slope %.3f  N %.4f deg/sqrt(h) (spec 0.01)  B %.4f deg/h (spec 1), "
        "flat at %.1f s\n",
        axis, slope, arw / DEG * 60, bi / DEG * 3600, flat);
    assert_true(fabs(slope + 0.5) < 0.05);
    assert_true(fabs(arw / n_arw - 1) < 0.10);
    assert_true(fabs(bi / b - 1) < 0.10);
  }
  free(y);
}

/* rate random walk K alone: sigma(tau) = K sqrt(tau / 3) (IEEE Std 952 Annex C) */
static void allan_random_walk(void **state) {
  (void)state;
  double *y = malloc(HOUR_N * sizeof *y);
  assert_non_null(y);
  hg_inertial_params p = {.random_walk = 1e-6};
  size_t m[] = {10, 100, 1000};
  double adev[3];
  double var[3] = {0};
  for (int axis = 0; axis < 3; axis++) {
    static_record(&p, 99, 2, axis, HOUR_N, HOUR_DT, y);
    assert_int_equal(hg_allan_deviation(y, HOUR_N, HOUR_DT, m, 3, adev), 0);
    for (int j = 0; j < 3; j++) var[j] += adev[j] * adev[j] / 3;
  }
  for (int j = 0; j < 3; j++) {
    double tau = m[j] * HOUR_DT, expect = p.random_walk * sqrt(tau / 3);
    printf("random walk: tau %5.1f s  adev / (K sqrt(tau / 3)) = %.4f\n", tau,
           sqrt(var[j]) / expect);
    assert_true(fabs(sqrt(var[j]) / expect - 1) < 0.10);
  }
  free(y);
}

/* same (seed, sensor, sample): the same bits; a run resumed from the state saved after sample
 * k - 1 continues bit for bit; another seed gives other numbers of the same law */
static void reproducible(void **state) {
  (void)state;
  enum { n = 4000, cut = 1733 };
  hg_inertial_params p = {.white_density = 1e-4,
                          .bias_instability = 1e-4,
                          .correlation_time = 3,
                          .random_walk = 1e-5,
                          .scale_factor = {1e-3, 0, -1e-3},
                          .misalignment = {1e-3, 2e-3, -1e-3}};
  static double a[n][3], b[n][3];
  hg_inertial_state s, saved, fresh;
  const double truth[3] = {0.1, -0.2, 0.3};
  for (int k = 0; k < n; k++) {
    hg_inertial_measure(&p, &s, 11, 3, (uint64_t)k, 0.01, truth, a[k]);
    if (k == cut - 1) saved = s;
  }
  /* the same run again */
  for (int k = 0; k < n; k++) hg_inertial_measure(&p, &s, 11, 3, (uint64_t)k, 0.01, truth, b[k]);
  assert_memory_equal(a, b, sizeof a);
  /* resumed at cut from a fresh struct holding the saved numbers */
  memset(&fresh, 0xff, sizeof fresh);
  memcpy(&fresh, &saved, sizeof fresh);
  for (int k = cut; k < n; k++)
    hg_inertial_measure(&p, &fresh, 11, 3, (uint64_t)k, 0.01, truth, b[k]);
  assert_memory_equal(a[cut], b[cut], sizeof(double[3]) * (n - cut));

  /* the star tracker resumed likewise (its state: the last valid quaternion) */
  hg_star_tracker_params st = {.sigma = {1e-4, 1e-4, 5e-4}, .dropout = 0.3};
  hg_star_tracker_state ss, ssaved;
  static double qa[n][4], qb[n][4];
  int va[n], vb[n];
  const double q[4] = {0.5, 0.5, -0.5, 0.5};
  for (int k = 0; k < n; k++) {
    hg_star_tracker_measure(&st, &ss, 8, 1, (uint64_t)k, q, qa[k], &va[k]);
    if (k == cut - 1) ssaved = ss;
  }
  for (int k = cut; k < n; k++)
    hg_star_tracker_measure(&st, &ssaved, 8, 1, (uint64_t)k, q, qb[k], &vb[k]);
  assert_memory_equal(qa[cut], qb[cut], sizeof(double[4]) * (n - cut));
  assert_memory_equal(va + cut, vb + cut, sizeof(int) * (n - cut));

  /* seeds 1 and 2: the white noise differs sample by sample, its mean and sigma agree (standard
   * errors sigma / sqrt(n) and sigma / sqrt(2 n); 5 of them) */
  hg_inertial_params w = {.white_density = 1e-3};
  const double zero[3] = {0, 0, 0}, sigma = 1e-3 / sqrt(0.01);
  const int nw = 100000;
  double mean[2] = {0}, sq[2] = {0};
  int same = 0;
  for (int k = 0; k < nw; k++) {
    double m1[3], m2[3];
    hg_inertial_measure(&w, &s, 1, 0, (uint64_t)k, 0.01, zero, m1);
    hg_inertial_measure(&w, &fresh, 2, 0, (uint64_t)k, 0.01, zero, m2);
    same += m1[0] == m2[0];
    mean[0] += m1[0] / nw, mean[1] += m2[0] / nw, sq[0] += m1[0] * m1[0] / nw,
        sq[1] += m2[0] * m2[0] / nw;
  }
  assert_int_equal(same, 0);
  for (int i = 0; i < 2; i++) {
    assert_true(fabs(mean[i]) < 5 * sigma / sqrt(nw));
    assert_true(fabs(sqrt(sq[i]) / sigma - 1) < 5 / sqrt(2.0 * nw));
  }
}

/* the encoder's reading is a whole number of counts, exactly round(q / resolution) of them */
static void encoder(void **state) {
  (void)state;
  hg_encoder_params p = {.resolution = 2 * PI / 4096};
  for (int i = -2000; i <= 2000; i++) {
    double q = 0.00123 * i + 1e-7, pos, rate;
    hg_encoder_measure(&p, 1, 0, (uint64_t)(i + 2000), q, 0.5, &pos, &rate);
    assert_true(pos == round(q / p.resolution) * p.resolution);
    assert_true(fabs(pos - q) <= 0.5 * p.resolution);
    assert_true(rate == 0.5);
  }
  /* half a count rounds away from zero */
  double pos;
  hg_encoder_measure(&p, 1, 0, 0, 2.5 * p.resolution, 0, &pos, NULL);
  assert_true(pos == 3 * p.resolution);
  /* resolution 0: the truth; noise: sigma within 5 standard errors */
  hg_encoder_params r = {.noise = 1e-3, .rate_noise = 2e-3};
  const int n = 50000;
  double sp = 0, sr = 0;
  for (int k = 0; k < n; k++) {
    double x, v;
    hg_encoder_measure(&r, 4, 2, (uint64_t)k, 1.0, -1.0, &x, &v);
    sp += (x - 1) * (x - 1) / n, sr += (v + 1) * (v + 1) / n;
  }
  assert_true(fabs(sqrt(sp) / 1e-3 - 1) < 5 / sqrt(2.0 * n));
  assert_true(fabs(sqrt(sr) / 2e-3 - 1) < 5 / sqrt(2.0 * n));
}

/* without noise the inertial model is (I + diag(sf)) exp(skew(theta)) truth + b0; lsb rounds,
 * range clips and says which axes clipped */
static void inertial_deterministic(void **state) {
  (void)state;
  const double a = 0.01;
  hg_inertial_params p = {
      .scale_factor = {0.02, -0.01, 0}, .misalignment = {0, 0, a}, .bias = {0.1, 0.2, 0.3}};
  hg_inertial_state s;
  const double truth[3] = {1, 0, 2};
  double m[3];
  assert_int_equal(hg_inertial_measure(&p, &s, 1, 0, 0, 0.01, truth, m), 0);
  /* exp(skew(a z)) turns x into (cos a, sin a, 0) */
  assert_true(fabs(m[0] - (1.02 * cos(a) + 0.1)) < 1e-15);
  assert_true(fabs(m[1] - (0.99 * sin(a) + 0.2)) < 1e-15);
  assert_true(fabs(m[2] - (2 + 0.3)) < 1e-15);
  /* saturation at 1.5 clips x (1.1) no, z (2.3) yes; quantization */
  p.range = 1.5, p.lsb = 0.25;
  assert_int_equal(hg_inertial_measure(&p, &s, 1, 0, 1, 0.01, truth, m), 4);
  assert_true(m[0] == 1.0 && m[1] == 0.25 && m[2] == 1.5);
  const double neg[3] = {-5, -5, 0};
  assert_int_equal(hg_inertial_measure(&p, &s, 1, 0, 2, 0.01, neg, m), 3);
  assert_true(m[0] == -1.5 && m[1] == -1.5);
}

/* the angle vector of q0^-1 q1 (2 atan2(|v|, w) v / |v|) */
static void rotation_between(const double q0[4], const double q1[4], double d[3]) {
  double w = q0[0] * q1[0] + q0[1] * q1[1] + q0[2] * q1[2] + q0[3] * q1[3];
  double v[3] = {q0[0] * q1[1] - q0[1] * q1[0] - (q0[2] * q1[3] - q0[3] * q1[2]),
                 q0[0] * q1[2] - q0[2] * q1[0] - (q0[3] * q1[1] - q0[1] * q1[3]),
                 q0[0] * q1[3] - q0[3] * q1[0] - (q0[1] * q1[2] - q0[2] * q1[1])};
  if (w < 0) w = -w, v[0] = -v[0], v[1] = -v[1], v[2] = -v[2];
  double n = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]), f = n > 0 ? 2 * atan2(n, w) / n : 2;
  for (int i = 0; i < 3; i++) d[i] = f * v[i];
}

/* the star tracker's error angles about the sensor's axes have the specified sigmas (3%; the
 * standard error of a sigma from 40000 samples is 0.35%), its outputs are unit with w >= 0, and
 * the fraction of dropped samples is p within 3 binomial standard deviations */
static void star_tracker(void **state) {
  (void)state;
  hg_star_tracker_params p = {.sigma = {2e-4, 3e-4, 1e-3}, .dropout = 0.1};
  hg_star_tracker_state s;
  const int n = 40000;
  double sq[3] = {0}, last[4] = {1, 0, 0, 0};
  int dropped = 0;
  for (int k = 0; k < n; k++) {
    /* a truth that turns, so that w and its sign vary */
    double t = 0.001 * k, q[4] = {cos(t), sin(t) * 0.6, sin(t) * 0.0, sin(t) * 0.8}, m[4], d[3];
    int valid;
    hg_star_tracker_measure(&p, &s, 3, 6, (uint64_t)k, q, m, &valid);
    assert_true(m[0] >= 0);
    assert_true(fabs(m[0] * m[0] + m[1] * m[1] + m[2] * m[2] + m[3] * m[3] - 1) < 1e-14);
    if (!valid) {
      dropped++;
      assert_memory_equal(m, last, sizeof last);
      continue;
    }
    memcpy(last, m, sizeof last);
    rotation_between(q, m, d);
    for (int i = 0; i < 3; i++) sq[i] += d[i] * d[i];
  }
  int good = n - dropped;
  double want[3] = {p.sigma[0], p.sigma[1], p.sigma[2]};
  for (int i = 0; i < 3; i++) {
    printf("star tracker: axis %d sigma / specified = %.4f\n", i, sqrt(sq[i] / good) / want[i]);
    assert_true(fabs(sqrt(sq[i] / good) / want[i] - 1) < 0.03);
  }
  double sd = sqrt(n * p.dropout * (1 - p.dropout));
  printf("star tracker: dropped %d of %d (expected %.0f +- %.0f)\n", dropped, n, n * p.dropout,
         3 * sd);
  assert_true(fabs(dropped - n * p.dropout) < 3 * sd);
  /* no dropout, no noise: the truth with w >= 0 */
  hg_star_tracker_params z = {0};
  double q[4] = {-0.5, 0.5, 0.5, 0.5}, m[4];
  int valid;
  hg_star_tracker_measure(&z, &s, 1, 0, 0, q, m, &valid);
  assert_true(valid && m[0] == 0.5 && m[1] == -0.5 && m[2] == -0.5 && m[3] == -0.5);
}

/* the direction sensor: valid inside the field of view only; the error angle's mean square is
 * 2 sigma^2 and the error is perpendicular to the truth (the output is unit) */
static void direction(void **state) {
  (void)state;
  hg_direction_params p = {.sigma = 1e-3, .fov_half_angle = 20 * DEG};
  double out[3];
  int valid;
  const double in_view[3] = {sin(19 * DEG), 0, cos(19 * DEG)},
               out_view[3] = {0, sin(21 * DEG), cos(21 * DEG)}, behind[3] = {0, 0, -1};
  hg_direction_measure(&p, 1, 0, 0, in_view, out, &valid);
  assert_true(valid);
  hg_direction_measure(&p, 1, 0, 0, out_view, out, &valid);
  assert_true(!valid && out[0] == 0 && out[1] == 0 && out[2] == 0);
  p.fov_half_angle = 0;
  hg_direction_measure(&p, 1, 0, 0, behind, out, &valid);
  assert_true(valid);
  const int n = 40000;
  double sq = 0;
  const double u[3] = {0.48, -0.6, 0.64};
  for (int k = 0; k < n; k++) {
    hg_direction_measure(&p, 2, 5, (uint64_t)k, u, out, &valid);
    assert_true(valid);
    assert_true(fabs(out[0] * out[0] + out[1] * out[1] + out[2] * out[2] - 1) < 1e-14);
    double c = out[0] * u[0] + out[1] * u[1] + out[2] * u[2];
    double cx[3] = {out[1] * u[2] - out[2] * u[1], out[2] * u[0] - out[0] * u[2],
                    out[0] * u[1] - out[1] * u[0]};
    double ang = atan2(sqrt(cx[0] * cx[0] + cx[1] * cx[1] + cx[2] * cx[2]), c);
    sq += ang * ang / n;
  }
  /* the mean of a chi-square of 2 degrees of freedom: standard error 1 / sqrt(n) relative */
  printf("direction: mean square angle / (2 sigma^2) = %.4f\n", sq / (2 * p.sigma * p.sigma));
  assert_true(fabs(sq / (2 * p.sigma * p.sigma) - 1) < 5 / sqrt((double)n));
}

/* the force/torque sensor: truth + bias + white noise of the moment's and the force's sigma */
static void force_torque(void **state) {
  (void)state;
  hg_force_torque_params p = {.sigma_torque = 0.01, .sigma_force = 0.5, .bias = {1, 2, 3, 4, 5, 6}};
  const double truth[6] = {0.1, 0.2, 0.3, 10, 20, 30};
  const int n = 50000;
  double mean[6] = {0}, sq[6] = {0};
  for (int k = 0; k < n; k++) {
    double out[6];
    hg_force_torque_measure(&p, 9, 2, (uint64_t)k, truth, out);
    for (int i = 0; i < 6; i++) {
      double e = out[i] - truth[i] - p.bias[i];
      mean[i] += e / n, sq[i] += e * e / n;
    }
  }
  for (int i = 0; i < 6; i++) {
    double sigma = i < 3 ? p.sigma_torque : p.sigma_force;
    assert_true(fabs(mean[i]) < 5 * sigma / sqrt((double)n));
    assert_true(fabs(sqrt(sq[i]) / sigma - 1) < 5 / sqrt(2.0 * n));
  }
  double pose[7] = {1, 2, 3, 1, 0, 0, 0}, copy[7];
  hg_truth_measure(pose, 7, copy);
  assert_memory_equal(pose, copy, sizeof pose);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(stream_at),
      cmocka_unit_test(allan_definition),
      cmocka_unit_test(allan_white),
      cmocka_unit_test(gauss_markov_exact),
      cmocka_unit_test(gauss_markov_start),
      cmocka_unit_test(allan_static_gyro),
      cmocka_unit_test(allan_random_walk),
      cmocka_unit_test(reproducible),
      cmocka_unit_test(encoder),
      cmocka_unit_test(inertial_deterministic),
      cmocka_unit_test(star_tracker),
      cmocka_unit_test(direction),
      cmocka_unit_test(force_torque),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
