/* test_integrators.c: accuracy and invariants of the integrators on the Lie-group state:
 * convergence orders of RKMK4 and Lie-Euler, CVODE's error against its tolerance, orthonormal
 * rotations after 10^5 steps, and energy and momentum of a torque-free asymmetric rigid body.
 *
 * Two hand-built systems: a free asymmetric rigid body without gravity (SE(3)), and a spherical
 * pendulum (SO(3)) whose centre of mass hangs 0.5 m below the pivot. Errors are measured on the
 * group: |q (-) q_ref| (hg_model_difference) together with |v - v_ref|.
 *
 * HINGE_TEST_QUICK=1 (for sanitizer builds) shortens the 100 s invariant run to 20 s. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hinge.h"
#include "integrator.h"
#include "models.h"

#define MAXNV 16

/* ---- systems ---- */

typedef struct plant {
  hg_model *m;
  hg_data *d;
  double tau[MAXNV]; /* zero: no actuation */
  double q0[MAXNV], v0[MAXNV];
} plant;

/* vdot = ABA(q, v, tau = 0) */
static int plant_accel(void *user, double t, const double *q, const double *v, double *vdot) {
  plant *p = user;
  return hg_aba(p->m, p->d, q, v, p->tau, NULL, vdot);
}

/* one body hanging from the world on a joint of the given type at the world origin */
static hg_model *one_body(hg_joint_type type, double mass, const double com[3], const double Ic[6],
                          const double gravity[3]) {
  hg_body_spec s;
  hg_error err;
  const char *why = NULL;
  memset(&s, 0, sizeof s);
  s.name = "body";
  s.parent = "world";
  assert_int_equal(hg_joint_init(&s.joint, type, NULL, NULL, 0, &why), 0);
  hg_se3_identity(&s.offset);
  assert_int_equal(hg_inertia_from_com(mass, com, Ic, &s.inertia, NULL, 0), 0);
  hg_builder *b = hg_builder_new();
  assert_int_equal(hg_builder_add_body(b, &s, &err), 0);
  hg_model *m = hg_builder_compile(b, &err);
  hg_builder_free(b);
  assert_non_null(m);
  memcpy(m->gravity, gravity, sizeof m->gravity);
  return m;
}

/* a torque-free asymmetric rigid body (principal moments 1, 2, 2.8) spinning near its unstable
 * middle axis and drifting, without gravity */
static plant free_body(void) {
  static const double com[3] = {0, 0, 0}, Ic[6] = {1.0, 2.0, 2.8, 0, 0, 0}, g[3] = {0, 0, 0};
  plant p;
  memset(&p, 0, sizeof p);
  p.m = one_body(HG_JOINT_FREE, 2.0, com, Ic, g);
  p.d = hg_data_new(p.m);
  const double q0[7] = {0.1, -0.2, 0.3, 0.9, 0.1, -0.3, 0.2};
  const double v0[6] = {0.3, 2.0, 0.4, 0.1, -0.2, 0.3};
  memcpy(p.q0, q0, sizeof q0);
  hg_quat_normalize(p.q0 + 3);
  memcpy(p.v0, v0, sizeof v0);
  return p;
}

/* a spherical pendulum: mass 1 kg, centre of mass 0.5 m below the pivot, asymmetric I_c,
 * tilted 0.6 rad and spinning */
static plant spherical_pendulum(void) {
  static const double com[3] = {0, 0, -0.5}, Ic[6] = {0.02, 0.03, 0.04, 0, 0, 0};
  static const double g[3] = {0, 0, -9.81};
  plant p;
  memset(&p, 0, sizeof p);
  p.m = one_body(HG_JOINT_SPHERICAL, 1.0, com, Ic, g);
  p.d = hg_data_new(p.m);
  const double w[3] = {0.6, 0.2, 0.0}, v0[3] = {0.5, 1.0, 2.0};
  hg_quat_exp(w, p.q0);
  memcpy(p.v0, v0, sizeof v0);
  return p;
}

static void plant_free(plant *p) {
  hg_data_free(p->d);
  hg_model_free(p->m);
}

static hg_system plant_system(plant *p) {
  hg_system s;
  memset(&s, 0, sizeof s);
  s.m = p->m;
  s.accel = plant_accel;
  s.user = p;
  return s;
}

/* ---- running and measuring ---- */

/* integrates p from (0, q0, v0) to T with opt; the final state in (q, v), stats in st */
static void run(plant *p, const hg_integ_options *opt, double T, double *q, double *v,
                hg_integ_stats *st) {
  hg_system sys = plant_system(p);
  hg_error err;
  hg_integrator *I = hg_integrator_new(&sys, opt, 0.0, p->q0, p->v0, &err);
  if (!I) fprintf(stderr, "hg_integrator_new: %s\n", err.msg);
  assert_non_null(I);
  int rc = hg_integrator_advance(I, T);
  if (rc != HG_INTEG_OK) fprintf(stderr, "advance: %s\n", hg_integrator_error_message(I));
  assert_int_equal(rc, HG_INTEG_OK);
  assert_true(hg_integrator_t(I) == T);
  memcpy(q, hg_integrator_q(I), (size_t)p->m->nq * sizeof(double));
  memcpy(v, hg_integrator_v(I), (size_t)p->m->nv * sizeof(double));
  if (st) hg_integrator_stats(I, st);
  hg_integrator_free(I);
}

static void fixed_options(hg_integ_options *o, hg_integ_method method, double h) {
  hg_integ_default_options(o, method);
  o->h = h;
}

static void cvode_options(hg_integ_options *o, hg_integ_method method, double rtol) {
  hg_integ_default_options(o, method);
  o->rtol = rtol; /* absolute tolerances default to rtol x 1 unit */
}

/* least-squares slope of log(e) against log(h) */
static double fitted_order(const double *h, const double *e, int n) {
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (int i = 0; i < n; i++) {
    double x = log(h[i]), y = log(e[i]);
    sx += x, sy += y, sxx += x * x, sxy += x * y;
  }
  return (n * sxy - sx * sy) / (n * sxx - sx * sx);
}

static int quick(void) {
  const char *s = getenv("HINGE_TEST_QUICK");
  return s && *s && strcmp(s, "0") != 0;
}

/* ---- convergence orders ---- */

/* measured order of a fixed-step method on p over [0, T] with steps h0, h0/2, h0/4; the
 * reference is RKMK4 with h0/128 (RKMK4's error there is 128^4 ~ 3e8 times below its error at
 * h0, far below every measured error) */
static double measure_order(plant *p, hg_integ_method method, double h0, double T,
                            const char *name) {
  double qr[MAXNV], vr[MAXNV], q[MAXNV], v[MAXNV], h[3], e[3];
  hg_integ_options o;
  fixed_options(&o, HG_INTEG_RKMK4, h0 / 128);
  run(p, &o, T, qr, vr, NULL);
  for (int i = 0; i < 3; i++) {
    h[i] = h0 / (1 << i);
    fixed_options(&o, method, h[i]);
    run(p, &o, T, q, v, NULL);
    e[i] = hg_test_state_error(p->m, q, v, qr, vr);
  }
  double order = fitted_order(h, e, 3);
  printf("# %-10s %-19s h = %.3g..%.3g: errors %.3e %.3e %.3e, order %.3f\n",
         hg_integ_method_name(method), name, h[0], h[2], e[0], e[1], e[2], order);
  return order;
}

/* RKMK4 converges with order 4 +- 0.3. Steps 0.02..0.005 s keep the errors (1e-7..1e-10) in the
 * asymptotic regime (|omega| h <= 0.1 for the body, omega_pendulum h <= 0.09) and far above
 * round-off (~1e-14 after a few hundred steps). */
static void rkmk4_order(void **state) {
  plant b = free_body(), s = spherical_pendulum();
  assert_true(fabs(measure_order(&b, HG_INTEG_RKMK4, 0.02, 2.0, "free body") - 4) < 0.3);
  assert_true(fabs(measure_order(&s, HG_INTEG_RKMK4, 0.02, 2.0, "spherical pendulum") - 4) < 0.3);
  plant_free(&b);
  plant_free(&s);
}

/* Lie-Euler converges with order 1 +- 0.1. Steps 1e-3..2.5e-4 s: the O(h^2) part of its error
 * is below 1% of the O(h) part there (|omega| h <= 5e-3). */
static void lie_euler_order(void **state) {
  plant b = free_body(), s = spherical_pendulum();
  assert_true(fabs(measure_order(&b, HG_INTEG_LIE_EULER, 1e-3, 2.0, "free body") - 1) < 0.1);
  assert_true(fabs(measure_order(&s, HG_INTEG_LIE_EULER, 1e-3, 2.0, "spherical pendulum") - 1) <
              0.1);
  plant_free(&b);
  plant_free(&s);
}

/* ---- CVODE against its tolerance ---- */

/* CVODE's global error shrinks as rtol does, for BDF and Adams on both systems. The reference
 * is RKMK4 with h = 1e-4 (error ~1e-14). Six decades of rtol must buy at least three decades of
 * error (the global error of a tolerance-controlled multistep method is roughly proportional to
 * rtol, with a slowly varying factor), and each decade must reduce it. */
static void cvode_error_tracks_rtol(void **state) {
  plant sys[2] = {free_body(), spherical_pendulum()};
  const char *names[2] = {"free body", "spherical pendulum"};
  const double rtol[4] = {1e-4, 1e-6, 1e-8, 1e-10}, T = 2.0;
  for (int s = 0; s < 2; s++) {
    double qr[MAXNV], vr[MAXNV], q[MAXNV], v[MAXNV];
    hg_integ_options o;
    fixed_options(&o, HG_INTEG_RKMK4, 1e-4);
    run(&sys[s], &o, T, qr, vr, NULL);
    for (int method = HG_INTEG_CVODE_BDF; method <= HG_INTEG_CVODE_ADAMS; method++) {
      double e[4];
      hg_integ_stats st;
      for (int i = 0; i < 4; i++) {
        cvode_options(&o, (hg_integ_method)method, rtol[i]);
        run(&sys[s], &o, T, q, v, &st);
        e[i] = hg_test_state_error(sys[s].m, q, v, qr, vr);
        printf("# %-11s %-19s rtol %.0e: error %.3e, %ld steps, %ld rhs, %ld recentres\n",
               hg_integ_method_name((hg_integ_method)method), names[s], rtol[i], e[i], st.steps,
               st.rhs_evals, st.recentres);
        if (i > 0) assert_true(e[i] < e[i - 1]);
      }
      assert_true(e[3] < 1e-3 * e[0]);
    }
  }
  plant_free(&sys[0]);
  plant_free(&sys[1]);
}

/* ---- rotations stay on SO(3) ---- */

/* the largest deviation from orthonormality of R(q) for a quaternion taken as unit (no
 * rescaling, so a drifting norm shows): max |R^T R - 1| */
static double orthonormality_error(const double *quat) {
  double w = quat[0], x = quat[1], y = quat[2], z = quat[3], R[9], RtR[9], e = 0;
  R[0] = 1 - 2 * (y * y + z * z); R[1] = 2 * (x * y - w * z);     R[2] = 2 * (x * z + w * y);
  R[3] = 2 * (x * y + w * z);     R[4] = 1 - 2 * (x * x + z * z); R[5] = 2 * (y * z - w * x);
  R[6] = 2 * (x * z - w * y);     R[7] = 2 * (y * z + w * x);     R[8] = 1 - 2 * (x * x + y * y);
  hg_m3_mulT(R, R, RtR);
  for (int i = 0; i < 9; i++) e = fmax(e, fabs(RtR[i] - (i % 4 == 0)));
  return e;
}

/* takes n steps of opt from p's initial state; returns the orthonormality error of the
 * quaternion at offset qa */
static double orthonormality_after(plant *p, const hg_integ_options *opt, long n, int qa) {
  hg_system sys = plant_system(p);
  hg_error err;
  hg_integrator *I = hg_integrator_new(&sys, opt, 0.0, p->q0, p->v0, &err);
  assert_non_null(I);
  for (long k = 0; k < n; k++) assert_int_equal(hg_integrator_step(I, 1e9), HG_INTEG_OK);
  hg_integ_stats st;
  hg_integrator_stats(I, &st);
  assert_int_equal(st.steps, n);
  double e = orthonormality_error(hg_integrator_q(I) + qa);
  printf("# %-11s after %ld steps (t = %.4g s): |R^T R - 1| = %.2e\n",
         hg_integ_method_name(opt->method), n, hg_integrator_t(I), e);
  hg_integrator_free(I);
  return e;
}

/* After 10^5 steps rotations are orthonormal to 1e-12: every update is q * exp(xi) followed by
 * normalization (hg_joint_integrate), so the quaternion norm stays 1 to a few ulps instead of
 * drifting like an integrated quaternion would. */
static void rotations_stay_orthonormal(void **state) {
  plant b = free_body(), s = spherical_pendulum();
  hg_integ_options o;
  const long n = 100000;
  fixed_options(&o, HG_INTEG_LIE_EULER, 1e-3);
  assert_true(orthonormality_after(&b, &o, n, 3) < 1e-12);
  fixed_options(&o, HG_INTEG_RKMK4, 1e-3);
  assert_true(orthonormality_after(&s, &o, n, 0) < 1e-12);
  cvode_options(&o, HG_INTEG_CVODE_ADAMS, 1e-8);
  o.max_step = 1e-3; /* forces 10^5 steps over 100 s */
  assert_true(orthonormality_after(&b, &o, n, 3) < 1e-12);
  plant_free(&b);
  plant_free(&s);
}

/* ---- invariants of the torque-free body ---- */

/* the invariants of a torque-free body: energy and spin (angular momentum about the centre of
 * mass, world axes). The world-frame linear momentum m R v is conserved too, but its error is the
 * orientation error, which grows with the tumbling motion's phase error rather than drifting. */
typedef struct invariants {
  double energy, spin[3];
} invariants;

static invariants invariants_of(plant *p, const double *q, const double *v) {
  invariants x;
  double ke, pe, h[6], c[3], cxp[3];
  hg_energy(p->m, p->d, q, v, &ke, &pe);
  hg_momentum(p->m, p->d, q, v, h);
  hg_center_of_mass(p->m, p->d, q, c);
  hg_v3_cross(c, h + 3, cxp); /* h_origin = h_com + c x p */
  x.energy = ke + pe;
  for (int r = 0; r < 3; r++) x.spin[r] = h[r] - cxp[r];
  return x;
}

static double rel3(const double *a, const double *b) {
  double d[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
  return hg_v3_norm(d) / hg_v3_norm(b);
}

/* integrates p over [0, T] with a CVODE method at rtol (atol = rtol x 1 unit), checking the
 * invariants every second; returns the worst relative drift of the two */
static double invariant_drift(plant *p, hg_integ_method method, double rtol, double atol_scale,
                              double recentre, double T) {
  hg_system sys = plant_system(p);
  hg_integ_options o;
  hg_error err;
  cvode_options(&o, method, rtol);
  o.atol_angle = o.atol_length = o.atol_angvel = o.atol_linvel = atol_scale * rtol;
  o.recentre = recentre;
  hg_integrator *I = hg_integrator_new(&sys, &o, 0.0, p->q0, p->v0, &err);
  assert_non_null(I);
  invariants x0 = invariants_of(p, p->q0, p->v0);
  double de = 0, ds = 0;
  for (int k = 1; k <= (int)T; k++) {
    assert_int_equal(hg_integrator_advance(I, k), HG_INTEG_OK);
    invariants x = invariants_of(p, hg_integrator_q(I), hg_integrator_v(I));
    de = fmax(de, fabs(x.energy - x0.energy) / fabs(x0.energy));
    ds = fmax(ds, rel3(x.spin, x0.spin));
  }
  hg_integ_stats st;
  hg_integrator_stats(I, &st);
  printf("# %-11s %g s at rtol %.0e, atol %.0e, chart %.1f rad: drift of energy %.2e, spin %.2e "
         "(%ld steps, %ld rhs, %ld recentres)\n", hg_integ_method_name(method), T, rtol,
         atol_scale * rtol, recentre, de, ds, st.steps, st.rhs_evals, st.recentres);
  hg_integrator_free(I);
  return fmax(de, ds);
}

/* The torque-free asymmetric body (tumbling about its unstable middle axis at ~2 rad/s, and
 * drifting) keeps its energy and spin angular momentum over 100 s. Neither invariant is built
 * into the method, so this checks the chart dynamics and ~200 re-centrings as well.
 *
 * Tolerance-controlled steps commit a local error of up to ~rtol each, so the drift of an
 * invariant grows like (number of steps) x rtol with partial cancellation: at rtol 1e-10 the
 * drift is 8e-9 (Adams, 7400 steps) to 4e-8 (BDF, 14000 steps) here. Plain CVODE Adams on
 * Euler's three equations for the same body drifts 5e-9..2e-8 in energy at rtol 1e-10 too, so
 * that is a property of the error control, not of the chart. Every re-centring restarts CVODE
 * at order 1, which costs accuracy too. With absolute tolerances at rtol/1000 and the widest
 * chart (2.5 rad: ~80 restarts instead of ~200), Adams at rtol 1e-10 keeps both invariants below
 * 1e-9 (observed 4.1e-10 and 5.0e-10; at rtol/100 they are 9.3e-10 and 9.9e-10, too close). With the default options the drift stays below 1e-7 for both methods
 * (observed 8e-9 Adams, 2.5e-8 BDF), and at rtol 1e-12 below 1e-9 (observed 2.4e-10). */
static void torque_free_invariants(void **state) {
  plant p = free_body();
  double T = quick() ? 20 : 100;
  assert_true(invariant_drift(&p, HG_INTEG_CVODE_ADAMS, 1e-10, 1e-3, 2.5, T) < 1e-9);
  assert_true(invariant_drift(&p, HG_INTEG_CVODE_BDF, 1e-10, 1.0, 1.0, T) < 1e-7);
  assert_true(invariant_drift(&p, HG_INTEG_CVODE_ADAMS, 1e-10, 1.0, 1.0, T) < 1e-7);
  assert_true(invariant_drift(&p, HG_INTEG_CVODE_ADAMS, 1e-12, 1.0, 1.0, T) < 1e-9);
  plant_free(&p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(rkmk4_order),
      cmocka_unit_test(lie_euler_order),
      cmocka_unit_test(cvode_error_tracks_rtol),
      cmocka_unit_test(rotations_stay_orthonormal),
      cmocka_unit_test(torque_free_invariants),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
