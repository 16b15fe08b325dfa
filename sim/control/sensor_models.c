/* sensor_models.c: the measurement models of control in the loop (sensor_models.h). */
#include "sensor_models.h"

#include <math.h>

#include "stream.h"

#define HG_PI 3.14159265358979323846

/* the standard normal of (seed, sensor, channel, k) */
static double normal(uint64_t seed, uint32_t sensor, uint32_t channel, uint64_t k) {
  return hg_stream_normal_at(seed, sensor, channel, k);
}

/* x rounded to a multiple of step (ties away from zero); step 0: x */
static double quantize(double x, double step) { return step > 0 ? round(x / step) * step : x; }

void hg_encoder_measure(const hg_encoder_params *p, uint64_t seed, uint32_t sensor, uint64_t k,
                        double q, double qdot, double *position, double *rate) {
  if (position) {
    /* position = round((q + sigma w) / resolution) resolution */
    double x = p->noise > 0 ? q + p->noise * normal(seed, sensor, 0, k) : q;
    *position = quantize(x, p->resolution);
  }
  /* rate = qdot + sigma_rate w */
  if (rate) *rate = p->rate_noise > 0 ? qdot + p->rate_noise * normal(seed, sensor, 1, k) : qdot;
}

/* R = exp(skew(v)) by Rodrigues: I + sin(a)/a [v] + (1 - cos(a))/a^2 [v]^2, a = |v| (series below
 * 1e-4, where the truncation is below 1e-17) */
static void rotation_exp(const double v[3], double r[3][3]) {
  double a2 = v[0] * v[0] + v[1] * v[1] + v[2] * v[2], a = sqrt(a2), s, c;
  if (a < 1e-4) s = 1 - a2 / 6, c = 0.5 - a2 / 24;
  else s = sin(a) / a, c = (1 - cos(a)) / a2;
  double k[3][3] = {{0, -v[2], v[1]}, {v[2], 0, -v[0]}, {-v[1], v[0], 0}};
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      double kk = 0;
      for (int l = 0; l < 3; l++) kk += k[i][l] * k[l][j];
      r[i][j] = (i == j) + s * k[i][j] + c * kk;
    }
}

int hg_inertial_measure(const hg_inertial_params *p, hg_inertial_state *s, uint64_t seed,
                        uint32_t sensor, uint64_t k, double dt, const double truth[3],
                        double out[3]) {
  double gm_sigma = HG_GAUSS_MARKOV_SIGMA_PER_B * p->bias_instability;
  int gauss_markov = gm_sigma > 0 && p->correlation_time > 0;
  /* the biases of sample k */
  if (k == 0) {
    for (int i = 0; i < 3; i++) {
      /* b_gm(0) ~ N(0, s_gm^2): the record starts stationary */
      s->gauss_markov[i] = gauss_markov ? gm_sigma * normal(seed, sensor, 3 + (uint32_t)i, 0) : 0;
      s->random_walk[i] = 0;
    }
  } else {
    double phi = gauss_markov ? exp(-dt / p->correlation_time) : 0;
    /* the innovation's sigma, s_gm sqrt(1 - phi^2); -expm1 keeps its digits when dt << Tc */
    double innovation = gauss_markov ? gm_sigma * sqrt(-expm1(-2 * dt / p->correlation_time)) : 0;
    for (int i = 0; i < 3; i++) {
      /* b_gm <- e^(-dt/Tc) b_gm + s_gm sqrt(1 - e^(-2 dt/Tc)) w */
      if (gauss_markov)
        s->gauss_markov[i] =
            phi * s->gauss_markov[i] + innovation * normal(seed, sensor, 3 + (uint32_t)i, k);
      /* b_rw <- b_rw + K sqrt(dt) w */
      if (p->random_walk > 0)
        s->random_walk[i] += p->random_walk * sqrt(dt) * normal(seed, sensor, 6 + (uint32_t)i, k);
    }
  }
  double r[3][3];
  rotation_exp(p->misalignment, r);
  double white = p->white_density > 0 ? p->white_density / sqrt(dt) : 0;
  int clipped = 0;
  for (int i = 0; i < 3; i++) {
    /* m_i = (1 + sf_i) (M_mis truth)_i + b0_i + b_gm_i + b_rw_i + (N / sqrt(dt)) w */
    double m =
        (1 + p->scale_factor[i]) * (r[i][0] * truth[0] + r[i][1] * truth[1] + r[i][2] * truth[2]) +
        p->bias[i] + s->gauss_markov[i] + s->random_walk[i];
    if (white > 0) m += white * normal(seed, sensor, (uint32_t)i, k);
    m = quantize(m, p->lsb);
    /* |m_i| <= range */
    if (p->range > 0 && fabs(m) > p->range) m = copysign(p->range, m), clipped |= 1 << i;
    out[i] = m;
  }
  return clipped;
}

/* a = b ⊗ c (Hamilton, w first) */
static void quat_mul(const double b[4], const double c[4], double a[4]) {
  double w = b[0] * c[0] - b[1] * c[1] - b[2] * c[2] - b[3] * c[3];
  double x = b[0] * c[1] + b[1] * c[0] + b[2] * c[3] - b[3] * c[2];
  double y = b[0] * c[2] - b[1] * c[3] + b[2] * c[0] + b[3] * c[1];
  double z = b[0] * c[3] + b[1] * c[2] - b[2] * c[1] + b[3] * c[0];
  a[0] = w, a[1] = x, a[2] = y, a[3] = z;
}

void hg_star_tracker_measure(const hg_star_tracker_params *p, hg_star_tracker_state *s,
                             uint64_t seed, uint32_t sensor, uint64_t k, const double truth[4],
                             double out[4], int *valid) {
  if (k == 0) s->last[0] = 1, s->last[1] = s->last[2] = s->last[3] = 0;
  /* invalid with probability p: u < p, u uniform on [0, 1) */
  if (p->dropout > 0 && hg_stream_uniform_at(seed, sensor, 3, k) < p->dropout) {
    for (int i = 0; i < 4; i++) out[i] = s->last[i];
    *valid = 0;
    return;
  }
  /* dtheta ~ N(0, diag(sc^2, sc^2, sb^2)) in the sensor frame */
  double d[3] = {p->sigma[0] * normal(seed, sensor, 0, k),
                 p->sigma[1] * normal(seed, sensor, 1, k),
                 p->sigma[2] * normal(seed, sensor, 2, k)};
  /* exp(dtheta / 2) = (cos(a/2), sin(a/2) dtheta / a), a = |dtheta| */
  double a = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  double sinc = a > 1e-8 ? sin(0.5 * a) / a : 0.5 - a * a / 48;
  double e[4] = {cos(0.5 * a), sinc * d[0], sinc * d[1], sinc * d[2]}, m[4];
  /* q_meas = q_true ⊗ exp(dtheta / 2) */
  quat_mul(truth, e, m);
  double norm = sqrt(m[0] * m[0] + m[1] * m[1] + m[2] * m[2] + m[3] * m[3]);
  /* q and -q are one attitude: the one with w >= 0 */
  if (m[0] < 0) norm = -norm;
  for (int i = 0; i < 4; i++) out[i] = s->last[i] = m[i] / norm;
  *valid = 1;
}

void hg_direction_measure(const hg_direction_params *p, uint64_t seed, uint32_t sensor, uint64_t k,
                          const double truth[3], double out[3], int *valid) {
  double n = sqrt(truth[0] * truth[0] + truth[1] * truth[1] + truth[2] * truth[2]);
  out[0] = out[1] = out[2] = 0;
  *valid = 0;
  if (!(n > 0)) return;
  double u[3] = {truth[0] / n, truth[1] / n, truth[2] / n};
  /* in view when the angle to +z, acos(u_z), is at most the half-angle */
  double fov = p->fov_half_angle;
  if (fov > 0 && fov < HG_PI && acos(fmax(-1.0, fmin(1.0, u[2]))) > fov) return;
  /* e1 = normalize(a x u), a the axis of u's smallest component; e2 = u x e1 */
  double ax[3] = {0, 0, 0};
  int small = fabs(u[0]) <= fabs(u[1]) ? (fabs(u[0]) <= fabs(u[2]) ? 0 : 2)
                                       : (fabs(u[1]) <= fabs(u[2]) ? 1 : 2);
  ax[small] = 1;
  double e1[3] = {ax[1] * u[2] - ax[2] * u[1], ax[2] * u[0] - ax[0] * u[2],
                  ax[0] * u[1] - ax[1] * u[0]};
  double l = sqrt(e1[0] * e1[0] + e1[1] * e1[1] + e1[2] * e1[2]);
  for (int i = 0; i < 3; i++) e1[i] /= l;
  double e2[3] = {u[1] * e1[2] - u[2] * e1[1], u[2] * e1[0] - u[0] * e1[2],
                  u[0] * e1[1] - u[1] * e1[0]};
  /* d = sigma (w0 e1 + w1 e2), perpendicular to u */
  double w0 = p->sigma * normal(seed, sensor, 0, k), w1 = p->sigma * normal(seed, sensor, 1, k);
  double d[3] = {w0 * e1[0] + w1 * e2[0], w0 * e1[1] + w1 * e2[1], w0 * e1[2] + w1 * e2[2]};
  /* exp(skew(d)) u = cos(a) u + sin(a) (d / a) x u, a = |d| (d is perpendicular to u) */
  double a = sqrt(w0 * w0 + w1 * w1), sa = a > 0 ? sin(a) / a : 1, ca = cos(a);
  double dxu[3] = {d[1] * u[2] - d[2] * u[1], d[2] * u[0] - d[0] * u[2], d[0] * u[1] - d[1] * u[0]};
  double m[3], mn = 0;
  for (int i = 0; i < 3; i++) m[i] = ca * u[i] + sa * dxu[i], mn += m[i] * m[i];
  mn = sqrt(mn);
  for (int i = 0; i < 3; i++) out[i] = m[i] / mn;
  *valid = 1;
}

void hg_force_torque_measure(const hg_force_torque_params *p, uint64_t seed, uint32_t sensor,
                             uint64_t k, const double truth[6], double out[6]) {
  for (int i = 0; i < 6; i++) {
    /* out_i = truth_i + bias_i + sigma w, sigma that of the moment (i < 3) or of the force */
    double sigma = i < 3 ? p->sigma_torque : p->sigma_force;
    out[i] = truth[i] + p->bias[i] + (sigma > 0 ? sigma * normal(seed, sensor, (uint32_t)i, k) : 0);
  }
}

void hg_truth_measure(const double *truth, int n, double *out) {
  for (int i = 0; i < n; i++) out[i] = truth[i];
}
