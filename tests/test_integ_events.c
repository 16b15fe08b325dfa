/* test_integ_events.c: events, restarts and failures of the integrators: event location against
 * closed-form times, chart re-centring, mode switches and impulses in the middle of a run, a
 * right-hand side that turns NaN, the stop time, and output times that must not change the
 * trajectory.
 *
 * Hand-built systems: a planar pendulum and a double pendulum on revolute joints, and a spinning
 * free body thrown upwards under gravity. Accelerations come from hg_hybrid with the joint modes
 * in the plant's hg_data (all free: the ABA). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hinge.h"
#include "integrator.h"
#include "models.h"

#define MAXNV 16
#define PI 3.14159265358979323846
#define G 9.81

/* ---- systems ---- */

typedef struct plant {
  hg_model *m;
  hg_data *d;
  double tau[MAXNV]; /* the joint forces of the last acceleration (loads of locked joints) */
  double nan_after;  /* accelerations are NaN after this time */
  double fail_after; /* the acceleration function fails (returns 3) after this time */
  double q0[MAXNV], v0[MAXNV];
  /* root functions */
  double t_event;     /* a time event */
  double limit;       /* a load limit */
  double point[3];    /* a body point (body 1) and ... */
  double target[3];   /* ... a world point, and the distance ... */
  double distance;    /* ... they cross */
} plant;

/* vdot from hybrid dynamics: free joints unforced, locked joints at rest */
static int plant_accel(void *user, double t, const double *q, const double *v, double *vdot) {
  plant *p = user;
  if (t > p->fail_after) return 3;
  for (int k = 0; k < p->m->nv; k++) vdot[k] = t > p->nan_after ? NAN : 0, p->tau[k] = 0;
  if (t > p->nan_after) return 0;
  return hg_hybrid(p->m, p->d, q, v, vdot, p->tau, NULL);
}

/* a time event: g = t - t_event */
static int root_time(void *user, double t, const double *q, const double *v, double *g) {
  g[0] = t - ((plant *)user)->t_event;
  return 0;
}

/* a joint coordinate crossing zero: g = q of the last joint (a revolute angle) */
static int root_angle(void *user, double t, const double *q, const double *v, double *g) {
  plant *p = user;
  g[0] = q[p->m->nq - 1];
  return 0;
}

/* the load of the last (locked) joint crossing the limit: g = tau - limit */
static int root_load(void *user, double t, const double *q, const double *v, double *g) {
  plant *p = user;
  double vdot[MAXNV];
  if (plant_accel(p, t, q, v, vdot)) return -1;
  g[0] = p->tau[p->m->nv - 1] - p->limit;
  return 0;
}

/* the distance between a point of body 1 and a world point crossing a value */
static int root_distance(void *user, double t, const double *q, const double *v, double *g) {
  plant *p = user;
  double x[3], d[3];
  hg_kinematics(p->m, p->d, q, NULL);
  hg_se3_apply(&p->d->T_world[1], p->point, x);
  for (int r = 0; r < 3; r++) d[r] = x[r] - p->target[r];
  g[0] = hg_v3_norm(d) - p->distance;
  return 0;
}

/* adds a body on a joint to b */
static void add_body(hg_builder *b, const char *name, const char *parent, hg_joint_type type,
                     const double axis[3], const double offset[3], double mass,
                     const double com[3], const double Ic[6]) {
  hg_se3 off;
  hg_inertia inertia;
  hg_se3_identity(&off);
  memcpy(off.p, offset, sizeof off.p);
  assert_int_equal(hg_inertia_from_com(mass, com, Ic, &inertia, NULL, 0), 0);
  hg_test_add_body(b, name, parent, type, axis, NULL, 0, &off, &inertia);
}

static plant make_plant(hg_builder *b) {
  hg_error err;
  plant p;
  memset(&p, 0, sizeof p);
  p.m = hg_builder_compile(b, &err);
  hg_builder_free(b);
  assert_non_null(p.m);
  p.d = hg_data_new(p.m);
  p.m->gravity[0] = p.m->gravity[1] = 0;
  p.m->gravity[2] = -G;
  p.nan_after = p.fail_after = INFINITY;
  hg_model_neutral(p.m, p.q0);
  return p;
}

static const double Y[3] = {0, 1, 0}, ORIGIN[3] = {0, 0, 0};
static const double ROD_COM[3] = {0, 0, -0.3}, ROD_I[6] = {0.03, 0.03, 0.001, 0, 0, 0};

/* a pendulum: 1 kg, centre of mass 0.3 m below a y-axis hinge, released at rest from theta0 */
static plant pendulum(double theta0) {
  hg_builder *b = hg_builder_new();
  add_body(b, "rod", "world", HG_JOINT_REVOLUTE, Y, ORIGIN, 1.0, ROD_COM, ROD_I);
  plant p = make_plant(b);
  p.q0[0] = theta0;
  return p;
}

/* a double pendulum of two such rods about y, the second hinged 0.6 m below the first */
static plant double_pendulum(void) {
  static const double off[3] = {0, 0, -0.6};
  hg_builder *b = hg_builder_new();
  add_body(b, "upper", "world", HG_JOINT_REVOLUTE, Y, ORIGIN, 1.0, ROD_COM, ROD_I);
  add_body(b, "lower", "upper", HG_JOINT_REVOLUTE, Y, off, 1.0, ROD_COM, ROD_I);
  plant p = make_plant(b);
  p.q0[0] = 1.0;
  p.q0[1] = 0.5;
  return p;
}

/* an asymmetric body (centre of mass at its origin) thrown straight up at 1 m/s from 3 m while
 * spinning at (1, 3, -2) rad/s in its own frame */
static plant thrown_body(void) {
  static const double Ic[6] = {0.1, 0.2, 0.25, 0, 0, 0};
  hg_builder *b = hg_builder_new();
  add_body(b, "body", "world", HG_JOINT_FREE, NULL, ORIGIN, 2.0, ORIGIN, Ic);
  plant p = make_plant(b);
  const double w[3] = {0.4, -0.3, 0.8}, up[3] = {0, 0, 1};
  double R[9];
  hg_quat_exp(w, p.q0 + 3);
  p.q0[2] = 3.0;
  hg_quat_to_R(p.q0 + 3, R);
  p.v0[0] = 1, p.v0[1] = 3, p.v0[2] = -2;
  hg_m3_mulTv(R, up, p.v0 + 3); /* the world velocity (0, 0, 1) in the body frame */
  return p;
}

/* a free asymmetric body spinning at ~2 rad/s without gravity (the chart re-centres often) */
static plant spinning_body(void) {
  static const double Ic[6] = {1.0, 2.0, 2.8, 0, 0, 0};
  hg_builder *b = hg_builder_new();
  add_body(b, "body", "world", HG_JOINT_FREE, NULL, ORIGIN, 2.0, ORIGIN, Ic);
  plant p = make_plant(b);
  p.m->gravity[2] = 0;
  const double w[3] = {0.2, -0.6, 0.3}, v0[6] = {0.3, 2.0, 0.4, 0.1, -0.2, 0.3};
  hg_quat_exp(w, p.q0 + 3);
  memcpy(p.v0, v0, sizeof v0);
  return p;
}

static void plant_free(plant *p) {
  hg_data_free(p->d);
  hg_model_free(p->m);
}

/* ---- helpers ---- */

static hg_integrator *make(plant *p, hg_root_fn roots, const int *dir, hg_integ_method method,
                           double rtol_or_h, double t0, const double *q0, const double *v0) {
  hg_system sys;
  memset(&sys, 0, sizeof sys);
  sys.m = p->m;
  sys.accel = plant_accel;
  sys.nroot = roots ? 1 : 0;
  sys.roots = roots;
  sys.root_dir = dir;
  sys.user = p;
  hg_integ_options o;
  hg_integ_default_options(&o, method);
  if (method == HG_INTEG_RKMK4 || method == HG_INTEG_LIE_EULER) o.h = rtol_or_h;
  else o.rtol = rtol_or_h;
  hg_error err;
  hg_integrator *I = hg_integrator_new(&sys, &o, t0, q0, v0, &err);
  if (!I) fprintf(stderr, "hg_integrator_new: %s\n", err.msg);
  assert_non_null(I);
  return I;
}

/* advance that must succeed with the expected code */
static void expect(hg_integrator *I, double tout, int code) {
  int rc = hg_integrator_advance(I, tout);
  if (rc != code)
    fprintf(stderr, "advance to %g: %d, expected %d (%s)\n", tout, rc, code,
            hg_integrator_error_message(I));
  assert_int_equal(rc, code);
}

static double energy(plant *p, const double *q, const double *v) {
  double ke, pe;
  hg_energy(p->m, p->d, q, v, &ke, &pe);
  return ke + pe;
}

static const int FALLING = -1, RISING = 1, BOTH = 0;

/* ---- event location ---- */

/* the complete elliptic integral of the first kind K(k) = pi / (2 AGM(1, sqrt(1 - k^2))) */
static double elliptic_k(double k) {
  double a = 1, b = sqrt(1 - k * k);
  for (int i = 0; i < 40; i++) {
    double an = 0.5 * (a + b);
    b = sqrt(a * b);
    a = an;
  }
  return PI / (2 * a);
}

/* A pendulum released at rest from theta0 = 1.2 rad first passes theta = 0 (falling) after a
 * quarter period K(sin(theta0 / 2)) / omega0, omega0^2 = m g l / I_pivot; the next falling
 * crossing comes a full period later (the rising one in between is ignored by direction -1).
 * CVODE at rtol 1e-12 (global error ~1e-11 here) and RKMK4 with h = 1e-3 (error ~h^4) locate both
 * to 1e-9 s; Lie-Euler with h = 1e-4 is first order, its phase error ~1e-5 s, so it gets 1e-3. */
static void event_joint_coordinate(void **state) {
  const double theta0 = 1.2, l = 0.3, m = 1.0, Ip = ROD_I[1] + m * l * l;
  double quarter = elliptic_k(sin(theta0 / 2)) / sqrt(m * G * l / Ip);
  const hg_integ_method methods[4] = {HG_INTEG_CVODE_BDF, HG_INTEG_CVODE_ADAMS, HG_INTEG_RKMK4,
                                      HG_INTEG_LIE_EULER};
  const double setting[4] = {1e-12, 1e-12, 1e-3, 1e-4}, tol[4] = {1e-9, 1e-9, 1e-9, 1e-3};
  for (int i = 0; i < 4; i++) {
    plant p = pendulum(theta0);
    hg_integrator *I = make(&p, root_angle, &FALLING, methods[i], setting[i], 0, p.q0, p.v0);
    expect(I, 10, HG_INTEG_ROOT);
    double e1 = hg_integrator_t(I) - quarter, angle = hg_integrator_q(I)[0];
    assert_int_equal(hg_integrator_roots(I)[0], -1);
    expect(I, 10, HG_INTEG_ROOT);
    double e2 = hg_integrator_t(I) - 5 * quarter;
    expect(I, 6 * quarter, HG_INTEG_OK);
    printf("# %-11s theta = 0 at t - t* = %.2e s (angle there %.1e), a period later %.2e s\n",
           hg_integ_method_name(methods[i]), e1, angle, e2);
    assert_true(fabs(e1) < tol[i] && fabs(e2) < tol[i]);
    assert_true(angle <= 0 && angle > -1e-9);
    hg_integrator_free(I);
    plant_free(&p);
  }
}

/* The body point at the centre of mass of a spinning body thrown up from 3 m at 1 m/s falls to
 * 0.5 m from the world origin below it when 3 + t - g t^2 / 2 = 0.5. The tumbling couples the
 * body-frame equations, but the centre of mass still follows the parabola. Tolerances as above. */
static void event_body_distance(void **state) {
  double t_hit = (1 + sqrt(1 + 2 * G * 2.5)) / G;
  const hg_integ_method methods[3] = {HG_INTEG_CVODE_BDF, HG_INTEG_CVODE_ADAMS, HG_INTEG_RKMK4};
  const double setting[3] = {1e-12, 1e-12, 1e-3};
  for (int i = 0; i < 3; i++) {
    plant p = thrown_body();
    p.distance = 0.5;
    hg_integrator *I = make(&p, root_distance, &FALLING, methods[i], setting[i], 0, p.q0, p.v0);
    expect(I, 5, HG_INTEG_ROOT);
    double e = hg_integrator_t(I) - t_hit;
    hg_integ_stats st;
    hg_integrator_stats(I, &st);
    printf("# %-11s distance 0.5 m at t - t* = %.2e s (%ld root evaluations, %ld recentres)\n",
           hg_integ_method_name(methods[i]), e, st.root_evals, st.recentres);
    assert_true(fabs(e) < 1e-9);
    hg_integrator_free(I);
    plant_free(&p);
  }
}

/* Frequent output does not move an event: with outputs every 0.01 s the pendulum's event comes
 * back at the same time as with one long advance: to the bit for CVODE (the root is found by a
 * step that already passed output times and is held until the output reaches it), to round-off
 * for RKMK4 (its steps land on the output times, 0.01 s being ten steps up to round-off). */
static void events_between_outputs(void **state) {
  for (int method = HG_INTEG_CVODE_BDF; method <= HG_INTEG_RKMK4; method++) {
    plant p = pendulum(1.2);
    double setting = method == HG_INTEG_RKMK4 ? 1e-3 : 1e-6; /* CVODE steps of ~0.05 s */
    hg_integrator *A = make(&p, root_angle, &FALLING, (hg_integ_method)method, setting, 0, p.q0,
                            p.v0);
    hg_integrator *B = make(&p, root_angle, &FALLING, (hg_integ_method)method, setting, 0, p.q0,
                            p.v0);
    expect(A, 10, HG_INTEG_ROOT);
    int rc = HG_INTEG_OK, n = 0;
    while (rc == HG_INTEG_OK) {
      rc = hg_integrator_advance(B, hg_integrator_t(B) + 0.01);
      n++;
    }
    double dt = hg_integrator_t(A) - hg_integrator_t(B);
    printf("# %-11s event after %d outputs, time difference to one advance %.1e s\n",
           hg_integ_method_name((hg_integ_method)method), n, dt);
    assert_int_equal(rc, HG_INTEG_ROOT);
    assert_true(n > 30);
    if (method == HG_INTEG_RKMK4) assert_true(fabs(dt) < 1e-12);
    else assert_true(dt == 0 && hg_integrator_q(A)[0] == hg_integrator_q(B)[0]);
    hg_integrator_free(A);
    hg_integrator_free(B);
    plant_free(&p);
  }
}

/* ---- chart re-centring ---- */

/* the spinning body over [0, T] at rtol with chart radius r: final state in (q, v), the number
 * of re-centrings returned */
static long run_with_radius(plant *p, hg_integ_method method, double rtol, double r, double T,
                            double *q, double *v) {
  hg_system sys = {p->m, plant_accel, 0, NULL, NULL, p, 0, NULL, NULL};
  hg_integ_options o;
  hg_error err;
  hg_integ_default_options(&o, method);
  o.rtol = rtol;
  o.recentre = r;
  hg_integrator *I = hg_integrator_new(&sys, &o, 0, p->q0, p->v0, &err);
  assert_non_null(I);
  expect(I, T, HG_INTEG_OK);
  memcpy(q, hg_integrator_q(I), (size_t)p->m->nq * sizeof(double));
  memcpy(v, hg_integrator_v(I), (size_t)p->m->nv * sizeof(double));
  hg_integ_stats st;
  hg_integrator_stats(I, &st);
  hg_integrator_free(I);
  return st.recentres;
}

/* Re-centring does not change the trajectory beyond the tolerance. The spinning body runs 3 s
 * with a chart radius of 0.1 rad (~55 re-centrings) and of 2.5 rad (2), for BDF and Adams at
 * rtol 1e-7, 1e-9, 1e-11, against RKMK4 with h = 1e-4 (error ~1e-14). The two runs differ by about
 * their own global errors, and that difference vanishes with the tolerance: four decades of rtol
 * shrink it by more than two (observed three), and the frequent re-centring costs less than a
 * factor 10 in error (observed 1..5: each restart begins again at order 1). */
static void recentre_keeps_trajectory(void **state) {
  plant p = spinning_body();
  const double T = 3, rtol[3] = {1e-7, 1e-9, 1e-11};
  hg_integrator *R = make(&p, NULL, NULL, HG_INTEG_RKMK4, 1e-4, 0, p.q0, p.v0);
  expect(R, T, HG_INTEG_OK);
  const double *qr = hg_integrator_q(R), *vr = hg_integrator_v(R);
  for (int method = HG_INTEG_CVODE_BDF; method <= HG_INTEG_CVODE_ADAMS; method++) {
    double diff[3];
    for (int i = 0; i < 3; i++) {
      double q[2][MAXNV], v[2][MAXNV];
      long n0 = run_with_radius(&p, (hg_integ_method)method, rtol[i], 0.1, T, q[0], v[0]);
      long n1 = run_with_radius(&p, (hg_integ_method)method, rtol[i], 2.5, T, q[1], v[1]);
      double e0 = hg_test_state_error(p.m, q[0], v[0], qr, vr), e1 = hg_test_state_error(p.m, q[1], v[1], qr, vr);
      diff[i] = hg_test_state_error(p.m, q[0], v[0], q[1], v[1]);
      printf("# %-11s rtol %.0e: radius 0.1: %ld recentres, error %.2e; radius 2.5: %ld, error "
             "%.2e; difference %.2e\n", hg_integ_method_name((hg_integ_method)method), rtol[i],
             n0, e0, n1, e1, diff[i]);
      assert_true(n0 >= 40 && n1 <= 3);
      assert_true(e0 < 10 * e1);
    }
    assert_true(diff[2] < 1e-2 * diff[0]);
  }
  hg_integrator_free(R);
  plant_free(&p);
}

/* ---- mode switches and impulses ---- */

/* A double pendulum starts with its lower joint locked and releases it at a time event (t = 0.4).
 * The run through the event must equal two separate runs (locked to 0.4, then free from there)
 * to 1e-9 (both at rtol 1e-11, global errors ~1e-10). */
static void release_at_time_event(void **state) {
  plant p = double_pendulum();
  p.t_event = 0.4;
  p.d->mode[2] = HG_MODE_LOCKED;
  hg_integrator *I = make(&p, root_time, &RISING, HG_INTEG_CVODE_BDF, 1e-11, 0, p.q0, p.v0);
  expect(I, 2, HG_INTEG_ROOT);
  assert_true(fabs(hg_integrator_t(I) - 0.4) < 1e-12);
  assert_true(hg_integrator_v(I)[1] == 0); /* the lock held exactly */
  p.d->mode[2] = HG_MODE_FREE;
  assert_int_equal(hg_integrator_reset(I, hg_integrator_t(I), hg_integrator_q(I),
                                       hg_integrator_v(I)), HG_INTEG_OK);
  expect(I, 1.0, HG_INTEG_OK);
  /* the same in two separate runs */
  p.d->mode[2] = HG_MODE_LOCKED;
  hg_integrator *A = make(&p, NULL, NULL, HG_INTEG_CVODE_BDF, 1e-11, 0, p.q0, p.v0);
  expect(A, 0.4, HG_INTEG_OK);
  p.d->mode[2] = HG_MODE_FREE;
  hg_integrator *B = make(&p, NULL, NULL, HG_INTEG_CVODE_BDF, 1e-11, 0.4, hg_integrator_q(A),
                          hg_integrator_v(A));
  expect(B, 1.0, HG_INTEG_OK);
  double e = hg_test_state_error(p.m, hg_integrator_q(I), hg_integrator_v(I), hg_integrator_q(B),
                         hg_integrator_v(B));
  printf("# release at a time event vs two runs: %.2e\n", e);
  assert_true(e < 1e-9);
  hg_integrator_free(I);
  hg_integrator_free(A);
  hg_integrator_free(B);
  plant_free(&p);
}

/* the load of the locked lower joint over [t0, t0 + 1] sampled with RKMK4: its min and max */
static void load_range(plant *p, double t0, const double *q, const double *v, double *lo,
                       double *hi) {
  hg_integrator *I = make(p, NULL, NULL, HG_INTEG_RKMK4, 1e-3, t0, q, v);
  double vdot[MAXNV];
  *lo = INFINITY, *hi = -INFINITY;
  for (int k = 1; k <= 100; k++) {
    expect(I, t0 + 0.01 * k, HG_INTEG_OK);
    plant_accel(p, hg_integrator_t(I), hg_integrator_q(I), hg_integrator_v(I), vdot);
    *lo = fmin(*lo, p->tau[1]), *hi = fmax(*hi, p->tau[1]);
  }
  hg_integrator_free(I);
}

/* The free double pendulum locks its lower joint when the joint angle crosses zero (a state
 * event), with the perfectly plastic impulse of hg_plastic_lock; later the lock's load crosses
 * the midpoint of its range (a load event) and the joint is released again. Each restart is
 * clean: the locked joint stays exactly at rest, the energy drops by the reported dissipation
 * and is then conserved to 1e-8 (rtol 1e-11), the load at the event equals the limit, and the
 * restarted runs take few error-test failures. Runs for Adams and RKMK4 too (looser checks where
 * the fixed step sets the accuracy). */
static void lock_and_release_at_state_events(void **state) {
  const hg_integ_method methods[3] = {HG_INTEG_CVODE_BDF, HG_INTEG_CVODE_ADAMS, HG_INTEG_RKMK4};
  const double setting[3] = {1e-11, 1e-11, 1e-3}, etol[3] = {1e-8, 1e-8, 1e-6};
  for (int i = 0; i < 3; i++) {
    plant p = double_pendulum();
    double vafter[MAXNV], imp[MAXNV], removed, lo, hi, q[MAXNV];
    /* free swing until the lower joint angle crosses zero */
    hg_integrator *I = make(&p, root_angle, &BOTH, methods[i], setting[i], 0, p.q0, p.v0);
    expect(I, 5, HG_INTEG_ROOT);
    double t1 = hg_integrator_t(I), e_before = energy(&p, hg_integrator_q(I), hg_integrator_v(I));
    assert_true(fabs(hg_integrator_q(I)[1]) < 1e-9);
    /* lock it with the plastic impulse and restart */
    p.d->mode[2] = HG_MODE_LOCKED;
    assert_int_equal(hg_plastic_lock(p.m, p.d, hg_integrator_q(I), hg_integrator_v(I), vafter,
                                     imp, &removed), 0);
    memcpy(q, hg_integrator_q(I), (size_t)p.m->nq * sizeof(double));
    assert_int_equal(hg_integrator_reset(I, t1, q, vafter), HG_INTEG_OK);
    double e_locked = energy(&p, q, vafter);
    assert_true(fabs(e_before - removed - e_locked) < 1e-12 * fabs(e_before));
    assert_true(vafter[1] == 0 && removed > 0);
    hg_integrator_free(I);
    /* a load event in the locked phase */
    load_range(&p, t1, q, vafter, &lo, &hi);
    p.limit = 0.5 * (lo + hi);
    I = make(&p, root_load, &BOTH, methods[i], setting[i], t1, q, vafter);
    hg_integ_stats st0, st1;
    expect(I, t1 + 1, HG_INTEG_ROOT);
    double t2 = hg_integrator_t(I), g = NAN;
    assert_int_equal(root_load(&p, t2, hg_integrator_q(I), hg_integrator_v(I), &g), 0);
    double e_drift = fabs(energy(&p, hg_integrator_q(I), hg_integrator_v(I)) - e_locked);
    assert_true(hg_integrator_v(I)[1] == 0 && hg_integrator_q(I)[1] == q[1]);
    /* release it (no velocity jump) and go on */
    p.d->mode[2] = HG_MODE_FREE;
    assert_int_equal(hg_integrator_reset(I, t2, hg_integrator_q(I), hg_integrator_v(I)),
                     HG_INTEG_OK);
    hg_integrator_stats(I, &st0);
    expect(I, t2 + 1, HG_INTEG_OK);
    hg_integrator_stats(I, &st1);
    e_drift = fmax(e_drift, fabs(energy(&p, hg_integrator_q(I), hg_integrator_v(I)) - e_locked));
    printf("# %-11s lock at t = %.6f (removed %.4f J), load %.3f N m crossed at t = %.6f (miss "
           "%.1e), energy drift %.1e, %ld steps and %ld error-test failures after the release\n",
           hg_integ_method_name(methods[i]), t1, removed, p.limit, t2, g, e_drift / fabs(e_locked),
           st1.steps - st0.steps, st1.err_test_fails - st0.err_test_fails);
    assert_true(fabs(g) < 1e-9 * fmax(1, fabs(p.limit)));
    assert_true(e_drift < etol[i] * fabs(e_locked));
    assert_true(st1.err_test_fails - st0.err_test_fails < 20);
    hg_integrator_free(I);
    plant_free(&p);
  }
}

/* ---- failures ---- */

/* runs fn with stderr sent to a temporary file; returns the number of bytes written there */
static long stderr_bytes_during(void (*fn)(void *), void *arg) {
  char path[] = "/tmp/hinge_integ_stderrXXXXXX";
  int fd = mkstemp(path), saved = dup(2);
  assert_true(fd >= 0 && saved >= 0);
  fflush(stderr);
  dup2(fd, 2);
  fn(arg);
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  long n = (long)lseek(fd, 0, SEEK_END);
  close(fd);
  unlink(path);
  return n;
}

typedef struct nan_case {
  hg_integ_method method;
  int code;
  double t_fail, t_good, q_good;
  char msg[512];
} nan_case;

/* integrates the pendulum whose accelerations turn NaN after t = 0.3705 */
static void run_nan_case(void *arg) {
  nan_case *c = arg;
  plant p = pendulum(1.0);
  p.nan_after = 0.3705; /* off the fixed-step grids */
  hg_integrator *I = make(&p, NULL, NULL, c->method,
                          c->method >= HG_INTEG_RKMK4 ? 1e-3 : 1e-8, 0, p.q0, p.v0);
  c->code = hg_integrator_advance(I, 1.0);
  snprintf(c->msg, sizeof c->msg, "%s", hg_integrator_error_message(I));
  const char *at = strstr(c->msg, "failed at t = ");
  c->t_fail = at ? strtod(at + strlen("failed at t = "), NULL) : -1;
  c->t_good = hg_integrator_t(I);
  c->q_good = hg_integrator_q(I)[0];
  /* it stays stopped, then a reset past the trouble lets it go on */
  assert_int_equal(hg_integrator_advance(I, 1.0), c->code);
  p.nan_after = INFINITY;
  double q[1] = {c->q_good}, v[1] = {hg_integrator_v(I)[0]};
  assert_int_equal(hg_integrator_reset(I, c->t_good, q, v), HG_INTEG_OK);
  assert_int_equal(hg_integrator_advance(I, 1.0), HG_INTEG_OK);
  hg_integrator_free(I);
  plant_free(&p);
}

/* A right-hand side that turns NaN after t = 0.3705 stops every method with HG_INTEG_ERR_RHS and a
 * message naming a failure time just past it (CVODE first retries shorter steps, so the named
 * time is the last trial, within a step); the last good state (t <= 0.3705, finite) stays
 * readable (t_good <= t_fail; Lie-Euler evaluates only at step starts, so its last good step may
 * end past 0.3705), nothing is printed, and a reset lets the run continue. */
static void nan_rhs_stops_cleanly(void **state) {
  for (int method = HG_INTEG_CVODE_BDF; method <= HG_INTEG_LIE_EULER; method++) {
    nan_case c;
    memset(&c, 0, sizeof c);
    c.method = (hg_integ_method)method;
    long printed = stderr_bytes_during(run_nan_case, &c);
    printf("# %-11s code %d, last good t = %.6f, message: %s\n",
           hg_integ_method_name(c.method), c.code, c.t_good, c.msg);
    assert_int_equal(c.code, HG_INTEG_ERR_RHS);
    assert_non_null(strstr(c.msg, "right-hand side failed at t = "));
    assert_true(c.t_fail > 0.3705 && c.t_fail < 0.4);
    assert_true(c.t_good <= c.t_fail && c.t_good > 0.3 && isfinite(c.q_good));
    assert_int_equal(printed, 0);
  }
}

/* An acceleration function that reports failure (returns 3) stops the run the same way. */
static void failing_accel_stops_cleanly(void **state) {
  for (int method = HG_INTEG_CVODE_BDF; method <= HG_INTEG_LIE_EULER; method++) {
    plant p = pendulum(1.0);
    p.fail_after = 0.25;
    hg_integrator *I = make(&p, NULL, NULL, (hg_integ_method)method,
                            method >= HG_INTEG_RKMK4 ? 1e-3 : 1e-8, 0, p.q0, p.v0);
    assert_int_equal(hg_integrator_advance(I, 1.0), HG_INTEG_ERR_RHS);
    const char *msg = hg_integrator_error_message(I), *at = strstr(msg, "failed at t = ");
    assert_non_null(strstr(msg, "returned 3"));
    assert_non_null(at);
    double t_fail = strtod(at + strlen("failed at t = "), NULL);
    assert_true(t_fail > 0.25 && hg_integrator_t(I) <= t_fail);
    hg_integrator_free(I);
    plant_free(&p);
  }
}

/* a root function that fails after t = 0.2 */
static int root_failing(void *user, double t, const double *q, const double *v, double *g) {
  g[0] = 1;
  return t > 0.2 ? 5 : 0;
}

/* A root function that fails stops the run with HG_INTEG_ERR_ROOTFN and a message. */
static void failing_root_function_stops(void **state) {
  for (int method = HG_INTEG_CVODE_BDF; method <= HG_INTEG_LIE_EULER; method++) {
    plant p = pendulum(1.0);
    hg_integrator *I = make(&p, root_failing, &BOTH, (hg_integ_method)method,
                            method >= HG_INTEG_RKMK4 ? 1e-3 : 1e-8, 0, p.q0, p.v0);
    assert_int_equal(hg_integrator_advance(I, 1.0), HG_INTEG_ERR_ROOTFN);
    assert_non_null(strstr(hg_integrator_error_message(I), "root function failed at t = "));
    assert_true(hg_integrator_t(I) <= 0.2 + 0.1);
    hg_integrator_free(I);
    plant_free(&p);
  }
}

/* ---- the interface ---- */

/* The stop time is never passed: advance to 1 stops at t_stop = 0.7 exactly (HG_INTEG_TSTOP),
 * every method; one-step calls never pass their limit and add up to it. */
static void stop_time_and_single_steps(void **state) {
  for (int method = HG_INTEG_CVODE_BDF; method <= HG_INTEG_LIE_EULER; method++) {
    plant p = pendulum(1.0);
    hg_system sys = {p.m, plant_accel, 0, NULL, NULL, &p, 0, NULL, NULL};
    hg_integ_options o;
    hg_error err;
    hg_integ_default_options(&o, (hg_integ_method)method);
    o.t_stop = 0.7;
    o.h = 0.03; /* 0.7 is not a multiple of it */
    hg_integrator *I = hg_integrator_new(&sys, &o, 0, p.q0, p.v0, &err);
    assert_non_null(I);
    int n = 0;
    while (hg_integrator_t(I) < 0.05) {
      double t = hg_integrator_t(I);
      assert_int_equal(hg_integrator_step(I, 0.05), HG_INTEG_OK);
      assert_true(hg_integrator_t(I) > t && hg_integrator_t(I) <= 0.05);
      n++;
    }
    assert_true(hg_integrator_t(I) == 0.05 && n >= 2);
    expect(I, 1.0, HG_INTEG_TSTOP);
    assert_true(hg_integrator_t(I) == 0.7);
    expect(I, 1.0, HG_INTEG_TSTOP);
    expect(I, 0.7, HG_INTEG_OK);
    assert_int_equal(hg_integrator_advance(I, 0.5), HG_INTEG_ERR_INPUT); /* backwards */
    hg_integrator_free(I);
    plant_free(&p);
  }
}

/* Output times do not change CVODE's trajectory: 100 outputs on the way to t = 1 give the same
 * final state as a single advance, because output is interpolated and never limits the steps. */
static void output_times_do_not_change_the_run(void **state) {
  for (int method = HG_INTEG_CVODE_BDF; method <= HG_INTEG_CVODE_ADAMS; method++) {
    plant p = spinning_body();
    hg_integrator *A = make(&p, NULL, NULL, (hg_integ_method)method, 1e-8, 0, p.q0, p.v0);
    hg_integrator *B = make(&p, NULL, NULL, (hg_integ_method)method, 1e-8, 0, p.q0, p.v0);
    for (int k = 1; k <= 100; k++) expect(A, 0.01 * k, HG_INTEG_OK);
    expect(B, 1.0, HG_INTEG_OK);
    double e = hg_test_state_error(p.m, hg_integrator_q(A), hg_integrator_v(A), hg_integrator_q(B),
                           hg_integrator_v(B));
    assert_true(e < 1e-14);
    hg_integrator_free(A);
    hg_integrator_free(B);
    plant_free(&p);
  }
}

/* Bad options and systems are refused with a reason. */
static void bad_input_is_refused(void **state) {
  plant p = pendulum(1.0);
  hg_system sys = {p.m, plant_accel, 0, NULL, NULL, &p, 0, NULL, NULL};
  hg_integ_options o;
  hg_error err;
  hg_integ_default_options(&o, HG_INTEG_CVODE_BDF);
  o.recentre = 3.5;
  assert_null(hg_integrator_new(&sys, &o, 0, p.q0, p.v0, &err));
  assert_non_null(strstr(err.msg, "recentre"));
  hg_integ_default_options(&o, HG_INTEG_RKMK4);
  o.h = 0;
  assert_null(hg_integrator_new(&sys, &o, 0, p.q0, p.v0, &err));
  sys.nroot = 1;
  hg_integ_default_options(&o, HG_INTEG_CVODE_ADAMS);
  assert_null(hg_integrator_new(&sys, &o, 0, p.q0, p.v0, &err));
  assert_int_equal(hg_integ_method_from_name("rkmk4"), HG_INTEG_RKMK4);
  assert_int_equal(hg_integ_method_from_name("euler"), -1);
  plant_free(&p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(event_joint_coordinate),
      cmocka_unit_test(event_body_distance),
      cmocka_unit_test(events_between_outputs),
      cmocka_unit_test(recentre_keeps_trajectory),
      cmocka_unit_test(release_at_time_event),
      cmocka_unit_test(lock_and_release_at_state_events),
      cmocka_unit_test(nan_rhs_stops_cleanly),
      cmocka_unit_test(failing_accel_stops_cleanly),
      cmocka_unit_test(failing_root_function_stops),
      cmocka_unit_test(stop_time_and_single_steps),
      cmocka_unit_test(output_times_do_not_change_the_run),
      cmocka_unit_test(bad_input_is_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
