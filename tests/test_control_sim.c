/* test_control_sim.c: control in the loop through whole simulations, against closed forms and
 * hand counts: a geared motor's step response with its reflected rotor inertia and saturation, a
 * reaction wheel's spin-up conserving angular momentum, a quaternion PD's continuous and
 * sampled-data responses, thruster pulses (minimum impulse bit, rise and fall), a user's
 * controller library bit for bit against the built-in joint_pd, a controller's error stopping the
 * run, reproducible sensor noise, and a resumed run continuing its controllers exactly. */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <cmocka.h>

#include "files.h"
#include "sims.h"

#define M_PI_6 (3.14159265358979323846 / 6)

#ifndef HG_TEST_SOURCE_DIR
#define HG_TEST_SOURCE_DIR "."
#endif
#ifndef HG_TEST_PD_LIBRARY
#define HG_TEST_PD_LIBRARY "pd_ctl.so"
#endif

static char dir[512];

/* a scene from printf-style text in a fresh folder */
static hg_scene *scene_f(const char *tag, const char *fmt, ...) {
  static char text[16384];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  return hg_test_scene_temp(tag, "scene.yaml", text, dir, sizeof dir);
}

static int find_actuator(hg_sim *sim, const char *name) {
  for (int k = 0; k < hg_sim_nactuator(sim); k++) {
    hg_sim_actuator_view av;
    hg_sim_actuator(sim, k, &av);
    if (strcmp(av.name, name) == 0) return k;
  }
  fail_msg("no actuator %s", name);
  return -1;
}

/* ---- a geared motor: (I + N^2 J_r) qdd = tau, clipped at the effort ---- */

/* A rod of mass m and length L about its end (I = m L^2 / 3), no gravity, driven by a motor of
 * gear N and rotor inertia J_r: a step command u from rest gives qdd = clip(u) / (I + N^2 J_r),
 * so q(t) = qdd t^2 / 2 and v(t) = qdd t. Without the reflected inertia (N^2 J_r = 0.5 kg m^2
 * here, half the rod's 1 kg m^2) the answer would be 50 % off. */
static void motor_case(double u, double effort) {
  const double m = 3, L = 1, I = m * L * L / 3, N = 50, Jr = 2e-4, T = 2;
  hg_scene *s = scene_f("ctl_motor",
                        "gravity: [0, 0, 0]\n"
                        "bodies:\n"
                        "  - name: rod\n"
                        "    joint: {type: revolute, name: hinge, axis: [0, 0, 1]}\n"
                        "    inertia: {mass: %.17g, com: [0.5, 0, 0], inertia: [0.001, %.17g, %.17g]}\n"
                        "actuators:\n"
                        "  - {name: m1, type: motor, joint: hinge, gear: %.17g, rotor_inertia: %.17g,"
                        " effort: %.17g}\n"
                        "integrator: {method: cvode-adams, rtol: 1e-12}\n"
                        "time: {start: 0, end: %.17g}\n",
                        m, m * L * L / 12, m * L * L / 12, N, Jr, effort, T);
  hg_sim *sim = hg_test_sim(s, NAN, NULL);
  char cmd[64];
  snprintf(cmd, sizeof cmd, "actuate m1 %.17g", u);
  hg_test_apply(sim, cmd);
  assert_int_equal(hg_sim_run(sim, T), HG_SIM_OK);
  double tau = fmax(-effort, fmin(effort, u)), qdd = tau / (I + N * N * Jr);
  double q = hg_sim_q(sim)[0], v = hg_sim_v(sim)[0];
  printf("motor u %g effort %g: q %.15g (closed form %.15g), v %.15g (%.15g)\n", u, effort, q,
         qdd * T * T / 2, v, qdd * T);
  /* the integrator at rtol 1e-12 on a polynomial motion: 1e-9 relative is far above its error
   * and far below the 33 % the missing armature would make */
  assert_true(fabs(q - qdd * T * T / 2) <= 1e-9 * fabs(qdd) * T * T / 2);
  assert_true(fabs(v - qdd * T) <= 1e-9 * fabs(qdd) * T);
  hg_sim_actuator_view av;
  hg_sim_actuator(sim, find_actuator(sim, "m1"), &av);
  assert_true(av.output == tau);
  assert_int_equal(av.saturated, fabs(u) > effort);
  /* the motor's work is the kinetic energy it gave: 1/2 (I + N^2 J_r) v^2 */
  double ke = 0.5 * (I + N * N * Jr) * v * v;
  printf("  work %.15g J, kinetic energy %.15g J\n", av.work, ke);
  assert_true(fabs(av.work - ke) <= 1e-8 * ke);
  hg_sim_free(sim);
  hg_scene_free(s);
}

static void test_motor_closed_form(void **state) {
  (void)state;
  motor_case(2, 10);   /* within the effort */
  motor_case(50, 10);  /* clipped exactly at it */
  motor_case(-50, 10);
}

/* ---- a servo holding a link against gravity ---- */

/* A 2 kg link (centre of mass 0.5 m out) held level by a position servo (kp 200 N m/rad, kd 20,
 * 1 kHz) sags to the angle where kp q = m g c cos q (0.0489 rad); with an integral term
 * (ki 200) the sag is taken out. */
static void test_servo_sag(void **state) {
  (void)state;
  const double mgc = 2 * 9.81 * 0.5, kp = 200;
  for (int integral = 0; integral < 2; integral++) {
    hg_scene *s = scene_f("ctl_servo",
                          "gravity: [0, 0, -9.81]\n"
                          "bodies:\n"
                          "  - name: link\n"
                          "    joint: {type: revolute, name: j, axis: [0, 1, 0]}\n"
                          "    inertia: {mass: 2, com: [0.5, 0, 0], inertia: [0.01, 0.1, 0.1]}\n"
                          "actuators:\n"
                          "  - {name: s, type: servo, joint: j, kp: %g, kd: 20, ki: %g,"
                          " rate: 1000, effort: 50}\n"
                          "integrator: {method: cvode-adams, rtol: 1e-12}\n"
                          "time: {start: 0, end: 40}\n",
                          kp, integral ? 200.0 : 0.0);
    hg_sim *sim = hg_test_sim(s, NAN, NULL);
    assert_int_equal(hg_sim_run(sim, 40), HG_SIM_OK);
    double q = hg_sim_q(sim)[0], qs = 0;
    for (int k = 0; k < 50; k++) qs -= (kp * qs - mgc * cos(qs)) / (kp + mgc * sin(qs));
    printf("servo %s: q %.12g rad (%s %.12g)\n", integral ? "PD+I" : "PD", q,
           integral ? "setpoint" : "sag", integral ? 0.0 : qs);
    assert_true(fabs(q - (integral ? 0 : qs)) < 1e-9);
    hg_sim_free(sim);
    hg_scene_free(s);
  }
}

/* ---- a reaction wheel: the bus turns back as the wheel spins up ---- */

/* A bus (moment I_b about z) carries a wheel (axial moment J_w) about z at its centre of mass; the
 * wheel's motor drives it at 0.05 N m. Nothing acts from outside, so the angular momentum stays
 * zero: (I_b + J_w) w + J_w Omega = 0, w = -J_w Omega / (I_b + J_w) with Omega the wheel's rate
 * relative to the bus (I_b: the bus about z; the wheel, centred on the axis through the bus's
 * centre of mass, adds only its axial moment about z). */
static void test_wheel_momentum(void **state) {
  (void)state;
  const double Ib = 20, Jw = 0.05, T = 30;
  hg_scene *s = scene_f("ctl_wheel",
                        "gravity: [0, 0, 0]\n"
                        "bodies:\n"
                        "  - name: bus\n"
                        "    joint: free\n"
                        "    inertia: {mass: 50, inertia: [18, 19, %.17g]}\n"
                        "actuators:\n"
                        "  - {name: rw, type: reaction_wheel, body: bus, axis: [0, 0, 1],"
                        " inertia: %.17g, transverse_inertia: 0.03, mass: 2, max_torque: 0.1,"
                        " max_speed: 1000}\n"
                        "integrator: {method: cvode-adams, rtol: 1e-12}\n"
                        "time: {start: 0, end: %.17g}\n",
                        Ib, Jw, T);
  hg_sim *sim = hg_test_sim(s, NAN, NULL);
  hg_test_apply(sim, "actuate rw 0.05");
  double hmax = 0, hscale = 0;
  for (int k = 1; k <= 30; k++) {
    assert_int_equal(hg_sim_run(sim, k * T / 30), HG_SIM_OK);
    double h[6];
    hg_sim_momentum(sim, h);
    hg_sim_actuator_view av;
    hg_sim_actuator(sim, find_actuator(sim, "rw"), &av);
    hmax = fmax(hmax, sqrt(h[0] * h[0] + h[1] * h[1] + h[2] * h[2]));
    hscale = fmax(hscale, fabs(av.momentum));
  }
  const hg_model *m = hg_sim_model(sim);
  int bus = hg_model_body(m, "bus"), rw = hg_model_joint(m, "rw");
  hg_se3 Tb;
  double tw[6];
  hg_sim_body(sim, bus, &Tb, tw);
  double Omega = hg_sim_v(sim)[m->v_adr[rw]], w = -Jw * Omega / (Ib + Jw);
  printf("wheel: |h| <= %.3g of the wheel's %.6g N m s; bus rate %.15g, by hand %.15g\n",
         hmax / hscale, hscale, tw[2], w);
  assert_true(hmax <= 1e-12 * hscale);
  assert_true(fabs(tw[2] - w) <= 1e-10 * fabs(w));
  /* the wheel's speed after T at 0.05 N m: the rotor's own equation J_w (w + Omega)' = tau */
  assert_true(fabs(Jw * (w + Omega) - 0.05 * T) <= 1e-10 * 0.05 * T);
  hg_sim_free(sim);
  hg_scene_free(s);
}

/* ---- a quaternion PD: I theta'' + kd theta' + kp theta = 0 ---- */

static const char *pd_scene =
    "gravity: [0, 0, 0]\n"
    "bodies:\n"
    "  - name: sat\n"
    "    joint: free\n"
    "    inertia: {mass: 100, inertia: [%.17g, %.17g, %.17g]}\n"
    "actuators:\n"
    "  - {name: wx, type: reaction_wheel, body: sat, axis: [1, 0, 0], inertia: 1e-6, mass: 1e-6,"
    " max_torque: 1e6}\n"
    "  - {name: wy, type: reaction_wheel, body: sat, axis: [0, 1, 0], inertia: 1e-6, mass: 1e-6,"
    " max_torque: 1e6}\n"
    "  - {name: wz, type: reaction_wheel, body: sat, axis: [0, 0, 1], inertia: 1e-6, mass: 1e-6,"
    " max_torque: 1e6}\n"
    "sensors:\n"
    "  - {name: att, type: pose, body: sat, rate: %.17g}\n"
    "  - {name: rates, type: twist, body: sat, rate: %.17g}\n"
    "controllers:\n"
    "  - {name: pd, type: attitude_pd, rate: %.17g, inputs: [att, rates], outputs: [wx, wy, wz],"
    " params: {kp: %.17g, kd: %.17g}}\n"
    "initial:\n"
    "  bodies:\n"
    "    sat: {pos: [0, 0, 0], rpy: [0, 0, %.17g]}\n"
    "integrator: {method: cvode-adams, rtol: 1e-11}\n"
    "time: {start: 0, end: %.17g}\n";

/* the continuous response from theta0 at rest, underdamped: theta(t) = theta0 e^(-z wn t)
 * (cos wd t + z / sqrt(1 - z^2) sin wd t), wd = wn sqrt(1 - z^2) */
static double pd_theta(double th0, double wn, double z, double t) {
  double wd = wn * sqrt(1 - z * z);
  return th0 * exp(-z * wn * t) * (cos(wd * t) + z / sqrt(1 - z * z) * sin(wd * t));
}

static void test_attitude_pd_continuous(void **state) {
  (void)state;
  /* I = 10 about z, wn = 1 rad/s, zeta = 0.5: overshoot e^(-pi z / sqrt(1 - z^2)) = 16.3 %, the
   * 2 % settling time; sampled at 1 kHz (a hold of 1 ms against a period of 7 s) */
  const double I = 10, wn = 1, z = 0.5, kp = I * wn * wn, kd = 2 * z * wn * I, th0 = 0.01;
  const double T = 12, rate = 1000;
  hg_scene *s = scene_f("ctl_pd", pd_scene, I, I, I, rate, rate, rate, kp, kd, th0, T);
  hg_sim *sim = hg_test_sim(s, NAN, NULL);
  int body = hg_model_body(hg_sim_model(sim), "sat");
  double peak = 0, t_peak = 0, t_settle = 0, dt = 1e-3;
  for (int k = 1; k * dt <= T + 1e-12; k++) {
    assert_int_equal(hg_sim_run(sim, k * dt), HG_SIM_OK);
    hg_se3 Tb;
    double tw[6];
    hg_sim_body(sim, body, &Tb, tw);
    double th = atan2(Tb.R[3], Tb.R[0]);
    if (-th > peak) peak = -th, t_peak = k * dt;
    if (fabs(th) > 0.02 * th0) t_settle = k * dt;
  }
  double os = exp(-3.14159265358979323846 * z / sqrt(1 - z * z)), tp = 3.14159265358979323846 / (wn * sqrt(1 - z * z));
  /* the 2 % settling time of this response, found on the closed form itself */
  double ts = 0;
  for (double t = 0; t <= T; t += 1e-4)
    if (fabs(pd_theta(th0, wn, z, t)) > 0.02 * th0) ts = t;
  printf("attitude PD: overshoot %.6f (closed form %.6f), peak at %.4f s (%.4f), settling %.4f s "
         "(%.4f)\n", peak / th0, os, t_peak, tp, t_settle, ts);
  assert_true(fabs(peak / th0 - os) <= 0.01 * os);
  assert_true(fabs(t_peak - tp) <= 0.01 * tp);
  assert_true(fabs(t_settle - ts) <= 0.01 * ts);
  hg_sim_free(sim);
  hg_scene_free(s);
}

/* At a coarse rate the hold shows: with the truth sampled at t_k and the torque held over T, the
 * double integrator I theta'' = u gives exactly x_{k+1} = (A - B K) x_k, A = [[1, T], [0, 1]],
 * B = [T^2 / (2 I), T / I], K = [kp, kd]: a different response from the continuous one (here
 * the hold at 2 Hz against wn = 1 rad/s raises the overshoot), which the run must follow. */
static void test_attitude_pd_sampled(void **state) {
  (void)state;
  const double I = 10, wn = 1, z = 0.5, kp = I * wn * wn, kd = 2 * z * wn * I, th0 = 0.01;
  const double rate = 2, Ts = 1 / rate, T = 10;
  hg_scene *s = scene_f("ctl_pdz", pd_scene, I, I, I, rate, rate, rate, kp, kd, th0, T);
  hg_sim *sim = hg_test_sim(s, NAN, NULL);
  int body = hg_model_body(hg_sim_model(sim), "sat");
  double x[2] = {th0, 0}, worst = 0, peak_d = 0, peak_c = 0;
  for (int k = 1; k * Ts <= T + 1e-12; k++) {
    /* u_k = -kp theta_k - kd w_k (small angles: e = 2 q_vec = theta to 1e-6 relative), held */
    double u = -kp * x[0] - kd * x[1];
    double th = x[0] + Ts * x[1] + Ts * Ts / (2 * I) * u, w = x[1] + Ts / I * u;
    x[0] = th, x[1] = w;
    assert_int_equal(hg_sim_run(sim, k * Ts), HG_SIM_OK);
    hg_se3 Tb;
    double tw[6];
    hg_sim_body(sim, body, &Tb, tw);
    double th_sim = atan2(Tb.R[3], Tb.R[0]);
    worst = fmax(worst, fabs(th_sim - x[0]));
    peak_d = fmax(peak_d, -x[0]);
    peak_c = fmax(peak_c, -pd_theta(th0, wn, z, k * Ts));
  }
  printf("sampled PD at %g Hz: largest gap to the discrete closed form %.3g rad (of %g); "
         "overshoot %.4f held, %.4f continuous\n", rate, worst, th0, peak_d / th0, peak_c / th0);
  /* the small-angle error e = 2 q_vec vs theta is th^3/24 ~ 4e-8 of th0; the integrator's 1e-11 */
  assert_true(worst <= 1e-5 * th0);
  assert_true(peak_d > 1.2 * peak_c); /* the hold is visible */
  hg_sim_free(sim);
  hg_scene_free(s);
}

/* ---- thruster pulses: minimum impulse bit, rise and fall ---- */

/* A 10 kg block, a 4 N thruster (20 ms minimum pulse, 5 ms rise and fall). Pulses commanded
 * 5 ms (shorter than the minimum: lasts 20 ms), 50 ms and 100 ms long: each pulse's impulse is
 * F (T_on - rise / 2 + fall / 2) = F T_on with equal ramps, so the total is 4 (0.02 + 0.05 + 0.1)
 * = 0.68 N s and the block's speed 0.068 m/s; three firings. */
static void test_thruster_pulses(void **state) {
  (void)state;
  hg_scene *s = scene_f("ctl_thr",
                        "gravity: [0, 0, 0]\n"
                        "bodies:\n"
                        "  - name: block\n"
                        "    joint: free\n"
                        "    inertia: {mass: 10, inertia: [1, 1, 1]}\n"
                        "actuators:\n"
                        "  - {name: t1, type: thruster, body: block, position: [0, 0, 0],"
                        " direction: [1, 0, 0], thrust: 4, min_on: 0.02, rise: 0.005, fall: 0.005}\n"
                        "integrator: {method: cvode-adams, rtol: 1e-12}\n"
                        "time: {start: 0, end: 2}\n");
  hg_sim *sim = hg_test_sim(s, NAN, NULL);
  const double at[3] = {0.1, 0.5, 1.0}, on[3] = {0.005, 0.05, 0.1};
  for (int p = 0; p < 3; p++) {
    assert_int_equal(hg_sim_run(sim, at[p]), HG_SIM_OK);
    char cmd[64];
    snprintf(cmd, sizeof cmd, "actuate t1 1 %.17g", on[p]);
    hg_test_apply(sim, cmd);
  }
  assert_int_equal(hg_sim_run(sim, 2), HG_SIM_OK);
  hg_sim_actuator_view av;
  hg_sim_actuator(sim, find_actuator(sim, "t1"), &av);
  int b = hg_model_body(hg_sim_model(sim), "block");
  hg_se3 T;
  double tw[6];
  hg_sim_body(sim, b, &T, tw);
  printf("thruster: %ld firings, impulse %.15g N s (hand 0.68), on %.15g s (0.17), speed %.15g "
         "m/s (0.068)\n", av.firings, av.impulse, av.on_time, tw[3]);
  assert_int_equal(av.firings, 3);
  assert_true(fabs(av.impulse - 0.68) <= 1e-12);
  assert_true(fabs(av.on_time - 0.17) <= 1e-12);
  assert_true(fabs(tw[3] - 0.068) <= 1e-10);
  assert_true(fabs(av.work - 0.5 * 10 * tw[3] * tw[3]) <= 1e-9);
  hg_sim_free(sim);
  hg_scene_free(s);
  /* max_on 0.3 s: a continuous firing from 0.1 s is cut at 0.4 s; told to fire again at 0.6 s it
   * stays shut until told to close (0.7 s); then a 0.1 s pulse at 0.8 s: two firings, 0.4 s */
  s = scene_f("ctl_maxon",
              "gravity: [0, 0, 0]\n"
              "bodies:\n"
              "  - {name: block, joint: free, inertia: {mass: 10, inertia: [1, 1, 1]}}\n"
              "actuators:\n"
              "  - {name: t1, type: thruster, body: block, direction: [1, 0, 0], thrust: 4,"
              " max_on: 0.3}\n"
              "integrator: {method: cvode-adams, rtol: 1e-12}\n"
              "time: {start: 0, end: 1.2}\n");
  sim = hg_test_sim(s, NAN, NULL);
  const double when[4] = {0.1, 0.6, 0.7, 0.8};
  const char *what[4] = {"actuate t1 1", "actuate t1 1", "actuate t1 0", "actuate t1 1 0.1"};
  for (int k = 0; k < 4; k++) {
    assert_int_equal(hg_sim_run(sim, when[k]), HG_SIM_OK);
    hg_test_apply(sim, what[k]);
  }
  assert_int_equal(hg_sim_run(sim, 1.2), HG_SIM_OK);
  hg_sim_actuator(sim, find_actuator(sim, "t1"), &av);
  printf("max_on: %ld firings, on %.15g s (0.4), impulse %.15g N s (1.6)\n", av.firings,
         av.on_time, av.impulse);
  assert_int_equal(av.firings, 2);
  assert_true(fabs(av.on_time - 0.4) <= 1e-12 && fabs(av.impulse - 1.6) <= 1e-12);
  hg_sim_free(sim);
  hg_scene_free(s);
}

/* Schmitt triggers counted by hand: a scripted demand about x (a process controller) drives
 * thruster_logic (on at 0.5 N m, off below 0.25 N m, each firing held one 0.1 s period) and two
 * pairs of 2 N thrusters 1 m off the axis (each pair gives 4 N m about x, no net force). The
 * demands 0, 0.3, 0.6, 0.4, 0.2, 0.1, 0.7, 0, -0.6, -0.3, 0: the +x pair fires over samples 2-3
 * (0.4 stays above the off level: one pulse each) and 6 (another), the -x pair over 8-9: six
 * firings; the +x pair fires 3 periods, the -x pair 2, so the body (I = 2 about x) ends at
 * w = 4 N m (3 - 2) 0.1 s / 2 = 0.2 rad/s, and the total impulse is 2 N x 2 x 5 x 0.1 s. */
static void test_thruster_logic_counts(void **state) {
  (void)state;
  hg_scene *s = scene_f("ctl_schmitt",
                        "gravity: [0, 0, 0]\n"
                        "bodies:\n"
                        "  - {name: sat, joint: free, inertia: {mass: 10, inertia: [2, 2, 2]}}\n"
                        "actuators:\n"
                        "  - {name: p1, type: thruster, body: sat, position: [0, 1, 0],"
                        " direction: [0, 0, 1], thrust: 2}\n"
                        "  - {name: p2, type: thruster, body: sat, position: [0, -1, 0],"
                        " direction: [0, 0, -1], thrust: 2}\n"
                        "  - {name: m1, type: thruster, body: sat, position: [0, 1, 0],"
                        " direction: [0, 0, -1], thrust: 2}\n"
                        "  - {name: m2, type: thruster, body: sat, position: [0, -1, 0],"
                        " direction: [0, 0, 1], thrust: 2}\n"
                        "controllers:\n"
                        "  - {name: script, type: external, command: \"python3 %s/control/demand.py\","
                        " rate: 10, outputs: [jets],"
                        " params: {demand: [0, 0.3, 0.6, 0.4, 0.2, 0.1, 0.7, 0, -0.6, -0.3, 0]}}\n"
                        "  - {name: jets, type: thruster_logic, rate: 10, inputs: [script],"
                        " outputs: [p1, p2, m1, m2], params: {on: 0.5, off: 0.25}}\n"
                        "integrator: {method: cvode-adams, rtol: 1e-12}\n"
                        "time: {start: 0, end: 1.5}\n",
                        HG_TEST_SOURCE_DIR);
  hg_sim *sim = hg_test_sim(s, NAN, NULL);
  assert_int_equal(hg_sim_run(sim, 1.5), HG_SIM_OK);
  long firings[4], total = 0;
  double impulse = 0;
  for (int k = 0; k < 4; k++) {
    hg_sim_actuator_view av;
    hg_sim_actuator(sim, k, &av);
    firings[k] = av.firings, total += av.firings, impulse += av.impulse;
  }
  hg_se3 T;
  double tw[6], wb[3];
  hg_sim_body(sim, 1, &T, tw);
  hg_m3_mulTv(T.R, tw, wb);
  printf("Schmitt triggers: firings %ld %ld %ld %ld (hand: 2 2 1 1), impulse %.15g N s (2), "
         "w_x %.15g rad/s (0.2)\n", firings[0], firings[1], firings[2], firings[3], impulse,
         wb[0]);
  assert_int_equal(firings[0], 2);
  assert_int_equal(firings[1], 2);
  assert_int_equal(firings[2], 1);
  assert_int_equal(firings[3], 1);
  assert_true(fabs(impulse - 2) <= 1e-12);
  assert_true(fabs(wb[0] - 0.2) <= 1e-10);
  hg_sim_free(sim);
  hg_scene_free(s);
}

/* A tank of 0.01 kg feeds a 10 N thruster of Isp 100 s fired without end: it runs dry when the
 * impulse reaches m_p Isp g0 = 9.80665 N s, and the thruster stops there. The block (20 kg dry)
 * loses mass as it accelerates, m v' = F with the propellant leaving at the body's velocity, so
 * it ends at Tsiolkovsky's Isp g0 ln(m0 / m_dry) = 0.49021 m/s, whatever the thrust's rise and
 * fall (the flow is proportional to the thrust), not at impulse / dry mass (0.49033 m/s). */
static void test_tank_runs_dry(void **state) {
  (void)state;
  hg_scene *s = scene_f("ctl_dry",
                        "gravity: [0, 0, 0]\n"
                        "bodies:\n"
                        "  - name: block\n"
                        "    joint: free\n"
                        "    inertia: {mass: 20, inertia: [1, 1, 1]}\n"
                        "tanks:\n"
                        "  - {name: tk, body: block, propellant: 0.01, position: [0.2, 0, 0],"
                        " radius: 0.05}\n"
                        "actuators:\n"
                        "  - {name: t1, type: thruster, body: block, position: [0, 0, 0],"
                        " direction: [1, 0, 0], thrust: 10, rise: 0.01, fall: 0.01, isp: 100,"
                        " tank: tk}\n"
                        "integrator: {method: cvode-adams, rtol: 1e-12}\n"
                        "time: {start: 0, end: 2}\n");
  hg_sim *sim = hg_test_sim(s, NAN, NULL);
  assert_int_equal(hg_sim_run(sim, 0.1), HG_SIM_OK);
  hg_test_apply(sim, "actuate t1 1");
  assert_int_equal(hg_sim_run(sim, 2), HG_SIM_OK);
  hg_sim_actuator_view av;
  hg_sim_actuator(sim, find_actuator(sim, "t1"), &av);
  int b = hg_model_body(hg_sim_model(sim), "block");
  hg_se3 T;
  double tw[6], J = 0.01 * 100 * 9.80665, dv = 100 * 9.80665 * log(20.01 / 20);
  hg_sim_body(sim, b, &T, tw);
  printf("dry tank: impulse %.15g N s (m Isp g0 = %.15g), propellant %.3g kg, on %.9g s, level "
         "%g, speed %.15g m/s (Tsiolkovsky %.15g)\n", av.impulse, J, av.propellant, av.on_time,
         av.level, tw[3], dv);
  assert_true(fabs(av.impulse - J) <= 1e-9 * J);
  assert_true(av.propellant <= 1e-12 * 0.01 && av.level == 0);
  assert_true(fabs(tw[3] - dv) <= 1e-9 * dv);
  hg_sim_free(sim);
  hg_scene_free(s);
}

/* ---- a user's controller library against the built-in joint_pd ---- */

static const char *pend_scene =
    "gravity: [0, 0, -9.81]\n"
    "bodies:\n"
    "  - name: link\n"
    "    joint: {type: revolute, name: j, axis: [0, 1, 0]}\n"
    "    inertia: {mass: 2, com: [0.5, 0, 0], inertia: [0.01, 0.2, 0.2]}\n"
    "actuators:\n"
    "  - {name: m, type: motor, joint: j, effort: 30, gear: 20, rotor_inertia: 1e-4}\n"
    "sensors:\n"
    "  - {name: js, type: joint_state, joint: j, rate: 100}\n"
    "controllers:\n"
    "%s"
    "integrator: {method: cvode-adams, rtol: 1e-10}\n"
    "time: {start: 0, end: 3}\n";

static void run_to_end(hg_scene *s, double *q, double *v) {
  hg_sim *sim = hg_test_sim(s, NAN, NULL);
  assert_int_equal(hg_sim_run(sim, 3), HG_SIM_OK);
  *q = hg_sim_q(sim)[0], *v = hg_sim_v(sim)[0];
  hg_sim_free(sim);
}

static void test_user_library_matches_builtin(void **state) {
  (void)state;
  double qa, va, qb, vb;
  hg_scene *a = scene_f("ctl_pd_builtin", pend_scene,
                        "  - {name: c, type: joint_pd, rate: 100, inputs: [js], outputs: [m],"
                        " params: {kp: 40, kd: 6, target: [0.7]}}\n");
  run_to_end(a, &qa, &va);
  hg_scene_free(a);
  char ctl[1024];
  snprintf(ctl, sizeof ctl,
           "  - {name: c, type: library, library: %s, symbol: pd_step, rate: 100, inputs: [js],"
           " outputs: [m], params: {kp: 40, kd: 6, target: 0.7}}\n",
           HG_TEST_PD_LIBRARY);
  hg_scene *b = scene_f("ctl_pd_library", pend_scene, ctl);
  run_to_end(b, &qb, &vb);
  hg_scene_free(b);
  printf("joint_pd q %.17g v %.17g; the library's q %.17g v %.17g\n", qa, va, qb, vb);
  assert_true(fabs(qa - 0.7) < 0.2); /* (it got there, against gravity's sag) */
  assert_memory_equal(&qa, &qb, sizeof qa);
  assert_memory_equal(&va, &vb, sizeof va);
  /* the same PD as an external process driven step by step (its numbers cross the pipes as
   * %.17g text, which reads back to the same doubles) */
  snprintf(ctl, sizeof ctl,
           "  - {name: c, type: external, command: \"python3 %s/control/pd_ctl.py\", rate: 100,"
           " inputs: [js], outputs: [m], params: {kp: 40, kd: 6, target: 0.7}}\n",
           HG_TEST_SOURCE_DIR);
  hg_scene *c = scene_f("ctl_pd_process", pend_scene, ctl);
  double qc, vc;
  run_to_end(c, &qc, &vc);
  hg_scene_free(c);
  printf("the process's q %.17g v %.17g\n", qc, vc);
  assert_memory_equal(&qa, &qc, sizeof qa);
  assert_memory_equal(&va, &vc, sizeof va);
}

static void test_user_library_errors(void **state) {
  (void)state;
  char ctl[1024];
  /* a step that returns an error stops the run with the controller's message */
  snprintf(ctl, sizeof ctl,
           "  - {name: c, type: library, library: %s, symbol: fail_step, rate: 100, inputs: [js],"
           " outputs: [m], params: {kp: 40, kd: 6, target: 0.7}}\n",
           HG_TEST_PD_LIBRARY);
  hg_scene *s = scene_f("ctl_fail", pend_scene, ctl);
  hg_sim *sim = hg_test_sim(s, NAN, NULL);
  int rc = hg_sim_run(sim, 3);
  printf("failing controller: %d, %s (t = %g)\n", rc, hg_sim_error(sim), hg_sim_time(sim));
  assert_int_not_equal(rc, HG_SIM_OK);
  assert_non_null(strstr(hg_sim_error(sim), "controller 'c'"));
  assert_true(hg_sim_time(sim) >= 0.5 && hg_sim_time(sim) < 0.52);
  hg_sim_free(sim);
  hg_scene_free(s);
  /* a missing library (the reader's error), a missing symbol or a built-in's rejected
   * parameters (the run's): at the controller's file:line, naming it once */
  const char *bad[3][2] = {{"no_such_lib.so", "pd_step"}, {HG_TEST_PD_LIBRARY, "no_such_step"},
                           {NULL, "controller 'c': joint_pd: parameter 'kd' is required"}};
  for (int k = 0; k < 3; k++) {
    char path[700], text[4096];
    if (bad[k][0])
      snprintf(ctl, sizeof ctl,
               "  - {name: c, type: library, library: %s, symbol: %s, rate: 100, inputs: [js],"
               " outputs: [m]}\n",
               bad[k][0], bad[k][1]);
    else
      snprintf(ctl, sizeof ctl,
               "  - {name: c, type: joint_pd, rate: 100, inputs: [js], outputs: [m],"
               " params: {kp: 40}}\n");
    snprintf(text, sizeof text, pend_scene, ctl);
    assert_int_equal(hg_test_temp_dir("ctl_missing", dir, sizeof dir), 0);
    snprintf(path, sizeof path, "%s/scene.yaml", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    hg_error err;
    s = hg_scene_load(path, &err);
    hg_sim *x = s ? hg_sim_new(s, NULL, &err) : NULL;
    printf("missing: %s\n", err.msg);
    assert_null(x);
    assert_non_null(strstr(err.msg, "scene.yaml:11:"));
    assert_non_null(strstr(err.msg, bad[k][k ? 1 : 0]));
    const char *named = strstr(err.msg, "controller 'c'");
    assert_true(!named || !strstr(named + 1, "controller 'c'"));
    hg_scene_free(s);
    hg_test_remove_dir(dir);
  }
}

/* ---- reproducible noise ---- */

typedef struct recorder {
  int n;
  double sum, sum2, first[8];
} recorder;

static const char *rec_sample(void *user, hg_sim *sim) {
  recorder *r = user;
  hg_sim_sensor_view sv;
  hg_sim_sensor(sim, 0, &sv);
  if (sv.t != hg_sim_time(sim)) return NULL;
  if (r->n < 8) r->first[r->n] = sv.value[0];
  r->sum += sv.value[0], r->sum2 += sv.value[0] * sv.value[0];
  r->n++;
  return NULL;
}

static void noise_run(hg_scene *s, int has_seed, uint64_t seed, recorder *r) {
  hg_sim_options o;
  hg_sim_default_options(&o);
  o.has_seed = has_seed, o.noise_seed = seed;
  hg_error err;
  hg_sim *sim = hg_sim_new(s, &o, &err);
  assert_non_null(sim);
  memset(r, 0, sizeof *r);
  hg_sim_observer obs = {0};
  obs.user = r, obs.sample = rec_sample;
  assert_int_equal(hg_sim_observe(sim, &obs), 0);
  assert_int_equal(hg_sim_run(sim, hg_sim_t_end(sim)), HG_SIM_OK);
  hg_sim_free(sim);
}

static void test_noise_reproducible(void **state) {
  (void)state;
  /* a gyro at rest with white noise only: per sample sigma = N / sqrt(dt) = 1e-3 rad/s */
  hg_scene *s = scene_f("ctl_noise",
                        "gravity: [0, 0, 0]\n"
                        "bodies:\n"
                        "  - {name: b, joint: free, inertia: {mass: 1, inertia: [1, 1, 1]}}\n"
                        "sensors:\n"
                        "  - {name: g, type: gyro, body: b, rate: 100, density: 1e-4}\n"
                        "time: {start: 0, end: 20}\n");
  recorder a, b, c;
  noise_run(s, 0, 0, &a);
  noise_run(s, 1, 1, &b); /* the scene's default seed is 1: the same streams */
  noise_run(s, 1, 99, &c);
  assert_int_equal(a.n, 2001);
  assert_memory_equal(a.first, b.first, sizeof a.first);
  assert_memory_equal(&a.sum2, &b.sum2, sizeof a.sum2);
  assert_memory_not_equal(a.first, c.first, sizeof a.first);
  double sa = sqrt(a.sum2 / a.n), sc = sqrt(c.sum2 / c.n);
  printf("noise: sigma %.6g and %.6g rad/s (specified 1e-3), means %.3g %.3g\n", sa, sc,
         a.sum / a.n, c.sum / c.n);
  /* 2001 samples: the standard deviation's estimate is within 3 / sqrt(2 n) = 4.7 % */
  assert_true(fabs(sa - 1e-3) < 0.047e-3 && fabs(sc - 1e-3) < 0.047e-3);
  assert_true(fabs(a.sum / a.n) < 3e-3 / sqrt(a.n));
  hg_scene_free(s);
}

/* ---- the shipped scenes: budget, momentum, resume ---- */

static void test_resume_with_control(void **state) {
  (void)state;
  hg_scene *s = hg_test_shipped("separation_thrusters");
  char da[600];
  assert_int_equal(hg_test_temp_dir("ctl_resume", da, sizeof da), 0);
  hg_sim *sim = hg_test_sim_ck(s, 0, da, 10);
  assert_int_equal(hg_sim_run(sim, hg_sim_t_end(sim)), HG_SIM_OK);
  const hg_model *m = hg_sim_model(sim);
  int nq = m->nq, nv = m->nv;
  double *q = malloc((size_t)nq * sizeof *q), *v = malloc((size_t)nv * sizeof *v);
  memcpy(q, hg_sim_q(sim), (size_t)nq * sizeof *q);
  memcpy(v, hg_sim_v(sim), (size_t)nv * sizeof *v);
  hg_sim_budget b;
  hg_sim_get_budget(sim, &b);
  printf("separation_thrusters: budget drift %.3g\n", b.max_drift);
  assert_true(b.max_drift < 1e-6);
  hg_sim_free(sim);
  hg_test_resume_matches(s, "separation_thrusters", da, 3, q, v, nq, nv);
  free(q);
  free(v);
  hg_scene_free(s);
  hg_test_remove_dir(da);
}

/* ---- what each sensor measures: its truth, in its frame ---- */

/* The truth sensors see (no noise): a turntable spun at w = 2 rad/s about z under gravity g
 * carries a marker at r = (0.5, 0, 0) turned 90 degrees about z (its x along the table's y):
 * its gyro reads (0, 0, w), its accelerometer the specific force a - g = (-w^2 r) + (0, 0, g)
 * in the marker's axes: (0, +w^2 r... ) rotated: table (-2, 0, 9.81) -> marker (0, 2, 9.81);
 * a freely falling block's accelerometer reads zero; a star tracker on the table reads the
 * table's attitude; a sun sensor on the block, the sun's direction in its axes; an encoder,
 * the angle rounded to its resolution; the turntable's force/torque sensor, the weight it
 * carries (the table: 3 kg). */
static void test_sensor_truth(void **state) {
  (void)state;
  hg_scene *s = scene_f("ctl_truth",
                        "gravity: [0, 0, -9.81]\n"
                        "bodies:\n"
                        "  - name: table\n"
                        "    joint: {type: revolute, name: spin, axis: [0, 0, 1]}\n"
                        "    inertia: {mass: 3, inertia: [0.1, 0.1, 0.2]}\n"
                        "    markers: [{name: imu, pos: [0.5, 0, 0], rpy_deg: [0, 0, 90]}]\n"
                        "  - {name: block, joint: free, inertia: {mass: 1, inertia: [1, 1, 1]}}\n"
                        "modes:\n"
                        "  spin: {profile: {type: velocity, velocity: [2]}}\n"
                        "initial:\n"
                        "  bodies:\n"
                        "    block: {pos: [0, 0, 10], rpy_deg: [0, 0, 30]}\n"
                        "sensors:\n"
                        "  - {name: g, type: gyro, marker: imu, rate: 10}\n"
                        "  - {name: a, type: accelerometer, marker: imu, rate: 10}\n"
                        "  - {name: fall, type: accelerometer, body: block, rate: 10}\n"
                        "  - {name: st, type: star_tracker, body: table, rate: 10, noise: 0}\n"
                        "  - {name: sun, type: sun_sensor, body: block, rate: 10, sun: [1, 0, 0]}\n"
                        "  - {name: enc, type: encoder, joint: spin, rate: 10, resolution: 0.01}\n"
                        "  - {name: ft, type: force_torque, joint: spin, rate: 10}\n"
                        "integrator: {method: cvode-adams, rtol: 1e-12}\n"
                        "time: {start: 0, end: 1}\n");
  hg_sim *sim = hg_test_sim(s, NAN, NULL);
  assert_int_equal(hg_sim_run(sim, 0.55), HG_SIM_OK); /* the samples of 0.5 s */
  double th = 2 * 0.5, expect[7][7] = {
      {0, 0, 2},                                              /* gyro, marker axes */
      {0, 2, 9.81},                                           /* accelerometer */
      {0, 0, 0},                                              /* free fall */
      {cos(th / 2), 0, 0, sin(th / 2), 1},                    /* star tracker */
      {cos(M_PI_6), -sin(M_PI_6), 0, 1},                      /* sun: (1, 0, 0) in a 30-degree yawed frame */
      {round(th / 0.01) * 0.01},                              /* encoder */
      {0, 0, 3 * 9.81, 0, 0, 0}};                             /* f/t: the table's weight, upwards */
  const int n[7] = {3, 3, 3, 5, 4, 1, 6};
  for (int k = 0; k < 7; k++) {
    hg_sim_sensor_view sv;
    hg_sim_sensor(sim, k, &sv);
    assert_int_equal(sv.n, n[k]);
    assert_true(sv.t == 0.5);
    for (int e = 0; e < n[k]; e++) {
      printf("%s.%s = %.15g (%.15g)\n", sv.name, sv.channel[e], sv.value[e], expect[k][e]);
      assert_true(fabs(sv.value[e] - expect[k][e]) <= 1e-9);
    }
  }
  hg_sim_free(sim);
  hg_scene_free(s);
  /* in orbit at 7.67 km/s, free fall reads zero: the accelerometer takes the central gravity at
   * its own point out of the body's acceleration (8.7 m/s^2 of it) to round-off */
  s = scene_f("ctl_orbit",
              "gravity: [0, 0, 0]\n"
              "bodies:\n"
              "  - {name: sat, joint: free, inertia: {mass: 100, inertia: [10, 12, 9]},"
              " markers: [{name: imu, pos: [0, 0, 0]}]}\n"
              "forces:\n"
              "  - {name: earth, type: central_gravity, mu: 3.986004418e14, centre: [0, 0, 0]}\n"
              "initial:\n"
              "  bodies:\n"
              "    sat: {pos: [6771000, 0, 0], twist: [0, 0, 0.001, 0, 7672.598648385013, 0]}\n"
              "sensors:\n"
              "  - {name: a, type: accelerometer, marker: imu, rate: 1}\n"
              "  - {name: g, type: gyro, marker: imu, rate: 1}\n"
              "integrator: {method: cvode-adams, rtol: 1e-12}\n"
              "time: {start: 0, end: 60}\n");
  sim = hg_test_sim(s, NAN, NULL);
  assert_int_equal(hg_sim_run(sim, 60), HG_SIM_OK);
  hg_sim_sensor_view a, g;
  hg_sim_sensor(sim, 0, &a);
  hg_sim_sensor(sim, 1, &g);
  /* (the gyro reads the body's rate in its own axes; the gravity gradient has changed it) */
  hg_se3 Tb;
  double tw[6], wb[3];
  hg_sim_body(sim, 1, &Tb, tw);
  hg_m3_mulTv(Tb.R, tw, wb);
  printf("in orbit: accelerometer (%.3g, %.3g, %.3g) m/s^2, gyro z %.15g rad/s (body %.15g)\n",
         a.value[0], a.value[1], a.value[2], g.value[2], wb[2]);
  for (int e = 0; e < 3; e++) assert_true(fabs(a.value[e]) < 1e-9);
  for (int e = 0; e < 3; e++) assert_true(fabs(g.value[e] - wb[e]) < 1e-15);
  hg_sim_free(sim);
  hg_scene_free(s);
}

/* ---- the shipped scenes do what they say ---- */

/* the angle (deg) between body b's attitude and the world axes */
static double tilt_deg(hg_sim *sim, const char *body) {
  hg_se3 T;
  double tw[6];
  hg_sim_body(sim, hg_model_body(hg_sim_model(sim), body), &T, tw);
  double c = 0.5 * (T.R[0] + T.R[4] + T.R[8] - 1);
  return acos(fmax(-1, fmin(1, c))) * 180 / 3.14159265358979323846;
}

/* runs a shipped scene to its end, sampling body's tilt: its largest after t_from and its last;
 * the commands (text lines) are given at the start */
static hg_sim *shipped_run(const char *name, const char *body, double t_from, const char *cmd,
                           double *max_tilt, double *final_tilt, hg_scene **s) {
  *s = hg_test_shipped(name);
  hg_sim *sim = hg_test_sim(*s, NAN, NULL);
  if (cmd) hg_test_apply(sim, cmd);
  double t_end = hg_sim_t_end(sim);
  *max_tilt = 0;
  for (int k = 1; k <= 200; k++) {
    assert_int_equal(hg_sim_run(sim, t_end * k / 200), HG_SIM_OK);
    if (hg_sim_time(sim) >= t_from) *max_tilt = fmax(*max_tilt, tilt_deg(sim, body));
  }
  *final_tilt = tilt_deg(sim, body);
  return sim;
}

static void test_shipped_scenes(void **state) {
  (void)state;
  hg_scene *s;
  double mx, fin, mx_open, fin_open;
  hg_sim_budget b;
  /* undocking: the tip-off is held within a couple of degrees and brought back; without control
   * the servicer keeps tumbling at the tip-off rate */
  hg_sim *sim = shipped_run("undock_adcs", "servicer", 10, NULL, &mx, &fin, &s);
  hg_sim_get_budget(sim, &b);
  printf("undock_adcs: largest tilt after the release %.4f deg, final %.4f deg, budget drift "
         "%.3g\n", mx, fin, b.max_drift);
  assert_true(mx < 3 && fin < 0.1 && b.max_drift < 1e-9);
  hg_sim_free(sim);
  hg_scene_free(s);
  sim = shipped_run("undock_adcs", "servicer", 10, "controller adcs off", &mx_open, &fin_open, &s);
  printf("  open loop: final tilt %.4f deg\n", fin_open);
  assert_true(fin_open > 10);
  hg_sim_free(sim);
  hg_scene_free(s);
  /* stage separation: the thrusters fire, the tank drains, the attitude comes back into the
   * deadband's limit cycle; the budget closes with the propellant's energy */
  sim = shipped_run("separation_thrusters", "upper", 5, NULL, &mx, &fin, &s);
  hg_sim_get_budget(sim, &b);
  long firings = 0;
  double prop = NAN;
  for (int k = 0; k < hg_sim_nactuator(sim); k++) {
    hg_sim_actuator_view av;
    hg_sim_actuator(sim, k, &av);
    firings += av.firings;
    prop = av.propellant;
  }
  printf("separation_thrusters: %ld firings, propellant left %.6g kg, largest tilt %.4f deg, "
         "final %.4f deg, budget drift %.3g\n", firings, prop, mx, fin, b.max_drift);
  assert_true(firings > 10 && prop < 40 && prop > 30 && fin < 0.1 && b.max_drift < 1e-8);
  hg_sim_free(sim);
  hg_scene_free(s);
  /* the arm: the servos follow their moves, the wheels keep the base within a fraction of a
   * degree, and the momentum (zero: all internal) stays zero */
  sim = shipped_run("arm_servo", "base", 0, NULL, &mx, &fin, &s);
  hg_sim_get_budget(sim, &b);
  const hg_model *m = hg_sim_model(sim);
  double q1 = hg_sim_q(sim)[m->q_adr[hg_model_joint(m, "j1")]];
  const hg_sim_momentum_track *mt = hg_sim_momentum_drift(sim);
  printf("arm_servo: j1 at %.6f rad (target 0.8), base tilt largest %.4f deg, final %.4f deg, "
         "momentum drift %.3g, budget drift %.3g\n", q1, mx, fin, mt->drift, b.max_drift);
  assert_true(fabs(q1 - 0.8) < 1e-3 && mx < 0.5 && mt->drift < 1e-5 && b.max_drift < 1e-7);
  hg_sim_free(sim);
  hg_scene_free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_motor_closed_form),
      cmocka_unit_test(test_servo_sag),
      cmocka_unit_test(test_wheel_momentum),
      cmocka_unit_test(test_attitude_pd_continuous),
      cmocka_unit_test(test_attitude_pd_sampled),
      cmocka_unit_test(test_thruster_pulses),
      cmocka_unit_test(test_tank_runs_dry),
      cmocka_unit_test(test_thruster_logic_counts),
      cmocka_unit_test(test_sensor_truth),
      cmocka_unit_test(test_user_library_matches_builtin),
      cmocka_unit_test(test_user_library_errors),
      cmocka_unit_test(test_noise_reproducible),
      cmocka_unit_test(test_resume_with_control),
      cmocka_unit_test(test_shipped_scenes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
