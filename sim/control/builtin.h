/* builtin.h: hinge's built-in discrete-time controllers, on the controller ABI (hinge/control.h).
 *
 * Three controllers, each six functions with the ABI's signatures (init, step, set, save, load,
 * finish) and found by type name with hg_builtin_find. Everything a controller needs comes through
 * the setup: its parameters (the scene's, and the geometric ones the runtime derives from the
 * scene: input_frames, wheel_axes, thruster_force, thruster_torque) and its ports. Units are SI,
 * quaternions Hamilton (w, x, y, z) as in docs/conventions.md; "world<-body" is the quaternion
 * whose rotation matrix maps body coordinates to world coordinates.
 *
 * Rules common to the three:
 *  - init checks every parameter (its name among the controller's params list, its length, its
 *    sign) and every port (kind and size) and returns non-zero with a one-line message naming the
 *    controller, the parameter or port and what was expected. An unknown parameter name is an
 *    error (the list of accepted names is in the message and in hg_builtin_ops.params).
 *  - step allocates nothing and is deterministic: identical setups and identical input
 *    sequences give bit-identical outputs. A NaN in an input propagates to the outputs it feeds
 *    (NaN = "no command": the runtime holds the command in force).
 *  - set takes the gain-like parameters (listed per controller) during a run, checked as in
 *    init; the state is unchanged on error.
 *  - save writes the evolving state and the parameters set can change (as doubles); load
 *    restores it into an instance made by init with the same setup, so a run resumed from a
 *    checkpoint continues bit-identically.
 *
 * ---- attitude_pd: quaternion-error PD on one body ----
 * Inputs, in this order: an attitude source, "star_tracker" (n = 5: qw qx qy qz valid; the
 * attitude world<-sensor, valid != 0 when the sample is good) or "pose" (n = 7: x y z qw qx qy qz,
 * the sensor's pose in the world; always valid unless NaN); then a rate source, "gyro" (n = 3,
 * sensor axes, rad/s) or "twist" (n = 6: w then v, sensor axes; w is used).
 * Outputs: either n >= 3 ports of kind "reaction_wheel" (n = 1 each: wheel torque, N m; the body
 * feels minus that about the wheel axis), or exactly one port of kind "controller" (n = 3) that
 * receives the torque demand u itself (N m, body axes).
 * Params (units; default):
 *   kp           N m/rad, 1 or 3 numbers (one per body axis), >= 0; required
 *   kd           N m s/rad, 1 or 3 numbers, >= 0; required
 *   target       4 numbers, the target attitude world<-body (normalized at init); identity
 *   max_rate     rad/s, > 0: the limit on the commanded rate of approach; inf (no limit).
 *                A finite max_rate needs kd > 0 on every axis.
 *   max_torque   N m, > 0: the limit on the norm of u (u scaled, its direction kept); inf
 *   input_frames 4 numbers per input (runtime): the quaternion body<-sensor of each input's
 *                mounting; identity for every input
 *   wheel_axes   3 numbers per wheel output (runtime): the wheel's spin axis, body axes, unit
 *                (|a| within 1e-6 of 1); required with wheels
 * set takes kp, kd, target, max_rate, max_torque.
 *
 * The law, at each sample (one equation per line):
 *   q_b   = q_ws (x) conj(q_bs)                 body attitude world<-body from the sensor's
 *   w_b   = R(q_bs') w_s                         body rate from the rate sensor (mount q_bs')
 *   qe    = conj(target) (x) q_b                 error quaternion (target<-body)
 *   e     = 2 sgn(qe_w) qe_vec                   error vector, sgn(0) = +1 (shortest way round)
 *   p     = kp e   (per axis)                    proportional term
 *   r     = p / kd (per axis)                    the rate of approach p commands (u = 0 at w = -r)
 *   p    <- p max_rate / |r|   when |r| > max_rate   rate limit, direction of r kept
 *   u     = -p - kd w_b (per axis)               the PD law
 *   u    <- u max_torque / |u| when |u| > max_torque
 * With max_rate = inf this is bit for bit u = -kp e - kd w: for a small rotation theta about one
 * body axis e = 2 sin(theta/2) ~ theta and I theta'' + kd theta' + kp theta = 0. The rate-limited
 * form u = -kd (w - w_c), w_c = -sat(kp/kd e, max_rate), is the PD law written as a rate loop
 * whose commanded rate is saturated (Wie, "Space Vehicle Dynamics and Control", quaternion
 * feedback u = -K qe_vec - C w (K = 2 kp here) and its slew-rate-limited form after Wie & Lu,
 * "Feedback control logic for spacecraft eigenaxis rotations under slew rate and control
 * constraints"; checked against Markley & Crassidis, "Fundamentals of Spacecraft Attitude
 * Determination and Control", the quaternion PD law). sgn(qe_w) picks the shorter of the two
 * rotations to the target (Mayhew, Sanfelice & Teel, "Quaternion-based hybrid control for robust
 * global attitude tracking", on q and -q). Markley & Crassidis write quaternion products in the
 * opposite order (Shuster's convention); the orders here are Hamilton's (docs/conventions.md).
 * A measured quaternion is used as given when its norm is within 1e-9 of 1, else rescaled.
 *
 * Star tracker dropout: when the attitude sample is invalid (valid == 0, or a NaN) the last
 * attitude estimate is propagated over one sample period dt = 1/rate with the current body rate,
 * first order: q <- q (x) (1, w_b dt/2), then normalized (the kinematics q' = q (x) (0, w_b)/2
 * of a body rate in Hamilton's order: Sola, "Quaternion kinematics for the error-state Kalman
 * filter"; Markley & Crassidis in Shuster's order). Successive dropouts keep propagating the
 * estimate. Before the first valid sample every output is NaN (no command).
 *
 * Wheels: A = [a_1 ... a_n] (3 x n). The body feels -A tau, so tau = -A^+ u with the
 * minimum-norm pseudo-inverse A^+ = A^T (A A^T)^-1 (then A tau = -u up to rounding; Markley &
 * Crassidis, reaction wheel torque distribution; Sidi, "Spacecraft Dynamics and Control",
 * four-wheel pyramid).
 * rank(A) < 3 (det(A A^T) <= 1e-9 (trace/3)^3) is an init error.
 *
 * ---- joint_pd: PD (+ reference feedforward) on 1-DoF joints ----
 * Inputs: one joint input per output, in the outputs' order: "encoder" (n = 1: q) or
 * "joint_state" (n = 2: q, v); each may be followed by an input of kind "reference" (n = 2:
 * q_ref, v_ref) that is that joint's reference.
 * Outputs: "motor" ports (n = 1: N m or N).
 * Params (units; default):
 *   kp      N m/rad (N/m), 1 number or one per output, >= 0; required
 *   kd      N m s/rad (N s/m), 1 or one per output, >= 0; required
 *   target  rad (m), one per output: the constant reference (v_ref = 0) of joints without a
 *           reference input; default the joint's first measured q
 *   effort  N m (N), 1 or one per output, > 0: |tau| clamp; inf
 * set takes kp, kd, target, effort.
 *   v   = v from joint_state, or (q_k - q_{k-1}) * rate from an encoder (0 at the first sample)
 *   tau = kp * (q_ref - q) + kd * (v_ref - v)      evaluated in exactly this order
 *   tau <- min(max(tau, -effort), effort)
 *
 * ---- thruster_logic: Schmitt triggers with deadband and minimum on-time ----
 * Input: one port of kind "controller" with 3 numbers (torque demand, N m, body axes) or 6
 * (force demand, N, then torque demand, N m, body axes). Call its numbers u_a, a = 0..m-1.
 * Outputs: "thruster" ports (n = 2: level in [0, 1], on-time s).
 * Params (units; default):
 *   thruster_torque 3 per thruster (runtime), N m: its full-thrust torque about the body origin
 *   thruster_force  3 per thruster (runtime), N: its full-thrust force, body axes; required
 *                   when the demand has 6 numbers
 *   on      N m (N), 1 or m numbers, > 0: the demand that starts firing on an axis; required
 *   off     N m (N), 1 or m numbers, 0 <= off <= on: below it firing stops; on/2
 *   min_on  s, >= 0: the shortest pulse; 0 (with pwm, at most the period 1/rate)
 *   pwm     0 or 1: 1 = pulse-width modulation within each period; 0
 * set takes on, off, min_on, pwm.
 * The coefficient of thruster k on axis a is c_ka = its torque's component a (for a 3-number
 * demand), or its force's component a for a < 3 and its torque's component a-3 for a >= 3 (a
 * 6-number demand); |c_k| is the norm of that same vector (force or torque). Thruster k serves
 * (a, +) when c_ka > 0 and |c_ka| >= 0.5 |c_k| (the axis is dominant), (a, -) when c_ka < 0 and
 * |c_ka| >= 0.5 |c_k|. The full capability u_full(a, +-) is the sum of |c_ka| over the
 * thrusters serving (a, +-).
 * Per axis, the trigger state s_a in {-1, 0, +1} (0 at init) changes at each sample:
 *   s_a = +1 and u_a <  off_a      -> s_a = 0     (hysteresis: firing goes on while u_a >= off_a)
 *   s_a = -1 and -u_a < off_a      -> s_a = 0
 *   s_a = 0  and u_a >  on_a       -> s_a = +1    (deadband: starts above on_a)
 *   s_a = 0  and -u_a > on_a       -> s_a = -1    (the two last also right after a reset to 0)
 * The thrusters that fire are the union, over the axes with s_a != 0, of those serving
 * (a, s_a); a NaN demand on an axis resets it to 0. Commands: [1, on_time] to fire, [0, 0] off.
 *   pwm = 0: on_time = T = 1/rate. A pulse begins when a thruster goes from off to firing. A
 *            thruster the logic turns off before min_on has passed since its pulse began keeps
 *            firing, on_time = min(T, t_begin + min_on - t) (the same pulse).
 *   pwm = 1: on_time = clip(|u_a| / u_full(a, s_a) * T, min_on, T), the largest over the axes
 *            that select the thruster; every firing sample begins a pulse.
 * (Wie, "Space Vehicle Dynamics and Control", Schmitt trigger and pulse-width pulse-frequency
 * modulation of reaction jets; Sidi, "Spacecraft Dynamics and Control", reaction thruster logic.)
 */
#ifndef HINGE_BUILTIN_H
#define HINGE_BUILTIN_H

#include <stddef.h>

#include "hinge/control.h"

/* the functions of one built-in controller type and the parameter names it accepts */
typedef struct hg_builtin_ops {
  const char *type;             /* "attitude_pd", "joint_pd", "thruster_logic" */
  hg_control_init_fn *init;
  hg_control_step_fn *step;
  hg_control_finish_fn *finish;
  hg_control_set_fn *set;
  hg_control_save_fn *save;
  hg_control_load_fn *load;
  const char *const *params;    /* the accepted parameter names, NULL-terminated */
} hg_builtin_ops;

/* the built-in controller of that type, or NULL */
const hg_builtin_ops *hg_builtin_find(const char *type);
/* the built-in types, NULL-terminated (for did-you-mean messages) */
extern const char *const hg_builtin_types[];

/* attitude_pd (see above) */
int hg_attitude_pd_init(const hg_control_setup *setup, void **state, char *err, size_t errlen);
int hg_attitude_pd_step(void *state, double t, const double *in, double *out, char *err,
                        size_t errlen);
int hg_attitude_pd_set(void *state, const char *param, int n, const double *value, char *err,
                       size_t errlen);
int hg_attitude_pd_save(void *state, double *buf, int cap);
int hg_attitude_pd_load(void *state, const double *buf, int n, char *err, size_t errlen);
void hg_attitude_pd_finish(void *state);
/* the last step's measurement, for plots: out[0] the error angle 2 atan2(|qe_vec|, |qe_w|) in
 * [0, pi] (rad), out[1..3] the error vector e (rad, body axes), out[4..6] the measured body rate
 * w_b (rad/s). 0, or -1 (out untouched) before the first step with an attitude. */
int hg_attitude_pd_telemetry(void *state, double out[7]);

/* joint_pd (see above) */
int hg_joint_pd_init(const hg_control_setup *setup, void **state, char *err, size_t errlen);
int hg_joint_pd_step(void *state, double t, const double *in, double *out, char *err,
                     size_t errlen);
int hg_joint_pd_set(void *state, const char *param, int n, const double *value, char *err,
                    size_t errlen);
int hg_joint_pd_save(void *state, double *buf, int cap);
int hg_joint_pd_load(void *state, const double *buf, int n, char *err, size_t errlen);
void hg_joint_pd_finish(void *state);

/* thruster_logic (see above) */
int hg_thruster_logic_init(const hg_control_setup *setup, void **state, char *err,
                           size_t errlen);
int hg_thruster_logic_step(void *state, double t, const double *in, double *out, char *err,
                           size_t errlen);
int hg_thruster_logic_set(void *state, const char *param, int n, const double *value, char *err,
                          size_t errlen);
int hg_thruster_logic_save(void *state, double *buf, int cap);
int hg_thruster_logic_load(void *state, const double *buf, int n, char *err, size_t errlen);
void hg_thruster_logic_finish(void *state);
/* pulses begun so far by thruster k (output k), or -1 when k is out of range */
long hg_thruster_logic_pulses(void *state, int k);

#endif
