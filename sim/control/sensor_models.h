/* sensor_models.h: the measurement models of control in the loop, as pure functions.
 *
 * The runtime computes each sensor's truth at each sample instant and calls one of these to turn
 * it into a measurement. Every random number is a function of (seed, sensor, channel, sample k)
 * only (stream.h's hg_stream_normal_at / hg_stream_uniform_at: Philox4x32-10, counter
 * (sensor, channel, k)), never of the order of calls, so a run resumed from a checkpoint at sample
 * k draws what the uninterrupted run drew. The channels each model uses are listed with it.
 *
 * A model with memory keeps it in a state struct of plain doubles that the runtime stores and
 * checkpoints. The calls of one sensor come with k = 0, 1, 2, ... in order; k = 0 (re)starts the
 * state (whatever it held), and a call at k > 0 advances the state of sample k - 1 to sample k.
 * Resuming: restore the struct saved after sample k - 1 and call at k. No function allocates.
 *
 * Units SI: m, rad, s; rates rad/s, accelerations m/s^2, forces N, moments N m. Quaternions are
 * Hamilton (w, x, y, z) as everywhere in hinge (docs/conventions.md). */
#ifndef HINGE_SENSOR_MODELS_H
#define HINGE_SENSOR_MODELS_H

#include <stdint.h>

/* ---- encoder: one joint coordinate and its rate ------------------------------------------ */

/* channels: 0 the position noise, 1 the rate noise */
typedef struct hg_encoder_params {
  double resolution; /* one count, rad (revolute) or m (prismatic); 0: not quantized */
  double noise;      /* sigma of white noise on the position, rad or m, added before the
                        quantization (the reading stays a whole number of counts); 0: none */
  double rate_noise; /* sigma of white noise on the rate, rad/s or m/s; 0: none */
} hg_encoder_params;

/* position = round((q + noise w0) / resolution) * resolution (ties away from zero);
 * rate = qdot + rate_noise w1: the true joint rate with its own white noise, not a difference of
 * positions (a controller that wants the difference forms it). Either output may be NULL. */
void hg_encoder_measure(const hg_encoder_params *p, uint64_t seed, uint32_t sensor, uint64_t k,
                        double q, double qdot, double *position, double *rate);

/* ---- inertial: a 3-axis gyro or accelerometer ------------------------------------------- */

/* The peak of the Allan deviation of a first-order Gauss-Markov process of stationary standard
 * deviation s and correlation time Tc (IEEE Std 952 Annex C, with q^2 Tc / 2 = s^2):
 *   sigma^2(tau) = (2 s^2 / x) [1 - (3 - 4 e^-x + e^-2x) / (2 x)],  x = tau / Tc,
 * is 0.6173643 s, at x = 1.892618 (golden-section search on the closed form, to 1e-12). Checked
 * against the exact Allan variance of the sampled process, an AR(1) (N. F. Zhang, "Allan variance
 * of time series models for measurement data", Metrologia 45, 2008): at dt = Tc / 3000 the
 * largest value over m is 0.6173643 s at tau = 1.8927 Tc. */
#define HG_GAUSS_MARKOV_ADEV_PEAK 0.6173643
/* so a Gauss-Markov bias whose Allan deviation peaks at 0.664 B (IEEE 952's bias-instability
 * reading) has s = (0.664 / 0.6173643) B = 1.0755400 B */
#define HG_GAUSS_MARKOV_SIGMA_PER_B (0.664 / HG_GAUSS_MARKOV_ADEV_PEAK)

/* The unit u below is that of the output: rad/s (gyro) or m/s^2 (accelerometer). Channels:
 * 0..2 the white noise of axes x, y, z; 3..5 the Gauss-Markov bias (the stationary draw at k = 0,
 * the innovation after); 6..8 the rate random walk. */
typedef struct hg_inertial_params {
  double scale_factor[3];  /* per-axis scale-factor errors, dimensionless: gain 1 + s_i */
  double misalignment[3];  /* rotation vector, rad: M_mis = exp(skew(misalignment)) turns the
                              truth (in the sensor's nominal frame) into the axes' frame */
  double bias[3];          /* constant bias b0, u */
  double white_density;    /* N, u sqrt(s) (gyro: angle random walk, rad/s/sqrt(Hz) =
                              rad/sqrt(s)); sample sigma N / sqrt(dt); 0: none */
  double bias_instability; /* B, u: the Gauss-Markov bias has stationary sigma
                              HG_GAUSS_MARKOV_SIGMA_PER_B * B; 0: none */
  double correlation_time; /* Tc of the Gauss-Markov bias, s (> 0 when B > 0) */
  double random_walk;      /* K, u / sqrt(s) (gyro: rate random walk, rad/s/sqrt(s)); 0: none */
  double range;            /* saturation |m_i| <= range, u; 0: none */
  double lsb;              /* quantization step, u; 0: none */
} hg_inertial_params;

typedef struct hg_inertial_state {
  double gauss_markov[3]; /* b_gm at the last sample, u */
  double random_walk[3];  /* b_rw at the last sample, u (0 at k = 0) */
} hg_inertial_state;

/* m = sat(quant((I + diag(scale_factor)) M_mis truth + b0 + b_gm + b_rw + white)), in the
 * sensor's axes, where truth is the sensor-frame angular rate (gyro) or specific force
 * (accelerometer), u. Per sample (dt > 0, s: the interval since sample k - 1, and the white
 * noise's sampling interval):
 *   white_i = (N / sqrt(dt)) w                                  (w standard normal)
 *   b_gm: at k = 0 a draw from its stationary law s_gm w; after, the exact discretization
 *         b_gm <- e^(-dt/Tc) b_gm + s_gm sqrt(1 - e^(-2 dt/Tc)) w
 *   b_rw: 0 at k = 0; after, b_rw <- b_rw + K sqrt(dt) w
 * quant rounds to a multiple of lsb, sat clips each axis to [-range, range]. Returns the set of
 * axes that clipped (bit i for axis i), 0 when none. */
int hg_inertial_measure(const hg_inertial_params *p, hg_inertial_state *s, uint64_t seed,
                        uint32_t sensor, uint64_t k, double dt, const double truth[3],
                        double out[3]);

/* ---- star tracker: an attitude quaternion ----------------------------------------------- */

/* channels: 0..2 the error about the sensor's x, y, z; 3 the dropout draw */
typedef struct hg_star_tracker_params {
  double sigma[3];        /* sigma of the error angle about x, y (across the boresight) and z (the
                             boresight, +z), rad */
  double dropout;         /* probability that a sample is invalid, in [0, 1] */
} hg_star_tracker_params;

typedef struct hg_star_tracker_state {
  double last[4]; /* the last valid measurement (w, x, y, z); (1, 0, 0, 0) until one */
} hg_star_tracker_state;

/* truth: the sensor frame's attitude, the unit quaternion q whose rotation takes sensor-frame
 * coordinates to the reference frame's. The measurement is q ⊗ exp(dtheta / 2), dtheta ~
 * N(0, diag(sigma_x^2, sigma_y^2, sigma_z^2)) in the sensor frame (as a
 * configuration advances, q ⊕ dtheta, conventions.md), normalized and with w >= 0. With
 * probability dropout (a uniform draw u < dropout) the sample is invalid: out is the last valid
 * measurement and *valid = 0. */
void hg_star_tracker_measure(const hg_star_tracker_params *p, hg_star_tracker_state *s,
                             uint64_t seed, uint32_t sensor, uint64_t k, const double truth[4],
                             double out[4], int *valid);

/* ---- sun or Earth sensor: a direction ----------------------------------------------------- */

/* channels: 0, 1 the error angles about two axes perpendicular to the direction */
typedef struct hg_direction_params {
  double sigma;          /* sigma of the error angle about each of two perpendicular axes, rad
                            (the total angle is Rayleigh, mean sigma sqrt(pi / 2)) */
  double fov_half_angle; /* the field of view's half-angle about +z, rad; 0 or >= pi: all sky */
} hg_direction_params;

/* truth: the direction of the Sun (or Earth) in the sensor frame (normalized here). The
 * measurement is exp(skew(d)) u, d = sigma (w0 e1 + w1 e2) with (e1, e2, u) a right-handed
 * orthonormal frame built from u alone. Invalid (*valid = 0, out = 0) when the true direction is
 * more than fov_half_angle from +z, or truth is zero. Stateless. */
void hg_direction_measure(const hg_direction_params *p, uint64_t seed, uint32_t sensor, uint64_t k,
                          const double truth[3], double out[3], int *valid);

/* ---- force/torque: a wrench --------------------------------------------------------------- */

/* channels: 0..5 the white noise of the six components, in the order of the wrench */
typedef struct hg_force_torque_params {
  double sigma_torque; /* sigma of white noise on each moment component, N m */
  double sigma_force;  /* sigma of white noise on each force component, N */
  double bias[6];      /* constant bias, moment first (N m, N m, N m, N, N, N) */
} hg_force_torque_params;

/* truth: the wrench (moment, force) in the sensor frame, moment about its origin (hinge's order,
 * conventions.md); out = truth + bias + white noise, same order. Stateless. */
void hg_force_torque_measure(const hg_force_torque_params *p, uint64_t seed, uint32_t sensor,
                             uint64_t k, const double truth[6], double out[6]);

/* ---- truth sensors (pose, twist): no model --------------------------------------------------- */

/* out[0..n) = truth[0..n): a pose (7) or twist (6) passed through, for uniformity */
void hg_truth_measure(const double *truth, int n, double *out);

#endif
