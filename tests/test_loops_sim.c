/* test_loops_sim.c: closed kinematic loops in whole simulations (sim_loops.c on loops.h):
 *   - the four-bar of scenes/fourbar.yaml against an independent integration of its one-DoF
 *     reduced Lagrangian (closed-form kinematics, RK4), crank angle and energy;
 *   - the two-latch docking of scenes/two_latch_dock.yaml: momentum through the loop's closure,
 *     then the pair moving as one rigid body;
 *   - projection: a chaotic five-bar (tests/data/loops_chaos.yaml) stays on its manifold for
 *     1000 s through hinge, while the same equations integrated without the projection drift;
 *   - every shipped loop scene runs to its end on its manifold;
 *   - a loop whose markers are apart at the start is refused at its file:line:column.
 *
 * Runs in the tests folder (CTest's working directory). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "integrator.h"
#include "loops.h"
#include "sim.h"
#include "sim_internal.h"
#include "sims.h"

#define PI 3.14159265358979323846

/* ---- helpers ---- */

/* the largest position violation (m or rad) of the present, closed loops now */
static double violation_now(hg_sim *sim) {
  double worst = 0;
  for (int k = 0; k < hg_sim_nloop(sim); k++) {
    hg_sim_loop_view lv;
    hg_sim_loop(sim, k, &lv);
    if (!lv.present || !lv.active) continue;
    worst = fmax(worst, fmax(lv.distance, lv.angle));
  }
  return worst;
}

/* the first coordinate of joint name in q */
static int q_of(const hg_model *m, const char *name) {
  int j = hg_model_joint(m, name);
  assert_true(j > 0);
  return m->q_adr[j];
}
static int v_of(const hg_model *m, const char *name) {
  int j = hg_model_joint(m, name);
  assert_true(j > 0);
  return m->v_adr[j];
}

/* ---- the four-bar against its reduced Lagrangian ---- */

/* scenes/fourbar.yaml's numbers: links, masses, centres of mass along the links, Izz, gravity */
static const double FB_A = 0.1, FB_B = 0.35, FB_C = 0.3, FB_D = 0.4, FB_G = 9.81;
static const double FB_M[3] = {0.5, 1.2, 1.0}, FB_R[3] = {0.05, 0.175, 0.15};
static const double FB_I[3] = {4.33e-4, 0.01229, 0.007533};

/* solves [-b sin al, c sin ps; b cos al, -c cos ps] (x, y) = (r0, r1): the loop-closure
 * b x i e^(i al) - c y i e^(i ps) = r0 + i r1 (real, imaginary parts written as a system) */
static void fb_solve(double al, double ps, double r0, double r1, double *x, double *y) {
  double m00 = -FB_B * sin(al), m01 = FB_C * sin(ps), m10 = FB_B * cos(al),
         m11 = -FB_C * cos(ps);
  double det = m00 * m11 - m01 * m10;
  *x = (r0 * m11 - m01 * r1) / det;
  *y = (m00 * r1 - r0 * m10) / det;
}

/* The kinematics of the four-bar at crank angle th (open branch: the coupler tip above the
 * ground line): coupler's absolute angle al, rocker's ps, their first and second derivatives
 * with respect to th, from a e^(i th) + b e^(i al) - c e^(i ps) = d and its derivatives. */
static void fb_kin(double th, double ang[3], double d1[3], double d2[3]) {
  double ax = FB_A * cos(th), ay = FB_A * sin(th);
  double ex = FB_D - ax, ey = -ay, r = hypot(ex, ey);
  double al = atan2(ey, ex) + acos((FB_B * FB_B + r * r - FB_C * FB_C) / (2 * FB_B * r));
  double px = ax + FB_B * cos(al), py = ay + FB_B * sin(al);
  double ps = atan2(py, px - FB_D);
  ang[0] = th, ang[1] = al, ang[2] = ps;
  /* first: i b al' e^(i al) - i c ps' e^(i ps) = -i a e^(i th);
   * real: -b sin(al) al' + c sin(ps) ps' = a sin th; imag: b cos al al' - c cos ps ps' = -a cos th */
  double a1, p1;
  fb_solve(al, ps, FB_A * sin(th), -FB_A * cos(th), &a1, &p1);
  /* second: i b al'' e^(i al) - i c ps'' e^(i ps) = a e^(i th) + b al'^2 e^(i al)
   * - c ps'^2 e^(i ps) =: w, the same system with the right side (Re w, Im w) */
  double wr = FB_A * cos(th) + FB_B * a1 * a1 * cos(al) - FB_C * p1 * p1 * cos(ps);
  double wi = FB_A * sin(th) + FB_B * a1 * a1 * sin(al) - FB_C * p1 * p1 * sin(ps);
  double a2, p2;
  fb_solve(al, ps, wr, wi, &a2, &p2);
  d1[0] = 1, d1[1] = a1, d1[2] = p1;
  d2[0] = 0, d2[1] = a2, d2[2] = p2;
}

/* generalized mass m(th), its derivative m'(th), the potential V(th) and V'(th) */
static void fb_reduced(double th, double *mm, double *dm, double *V, double *dV) {
  double ang[3], d1[3], d2[3];
  fb_kin(th, ang, d1, d2);
  /* centre of mass k: base_k + R_k e^(i ang_k); base: 0, a e^(i th), d */
  double p[3][2], pd[3][2], pdd[3][2];
  for (int k = 0; k < 3; k++) {
    double c = cos(ang[k]), s = sin(ang[k]), r = FB_R[k];
    p[k][0] = r * c, p[k][1] = r * s;
    pd[k][0] = -r * s * d1[k], pd[k][1] = r * c * d1[k];
    pdd[k][0] = -r * s * d2[k] - r * c * d1[k] * d1[k];
    pdd[k][1] = r * c * d2[k] - r * s * d1[k] * d1[k];
  }
  /* the coupler's base is the crank tip */
  p[1][0] += FB_A * cos(th), p[1][1] += FB_A * sin(th);
  pd[1][0] += -FB_A * sin(th), pd[1][1] += FB_A * cos(th);
  pdd[1][0] += -FB_A * cos(th), pdd[1][1] += -FB_A * sin(th);
  p[2][0] += FB_D;
  *mm = *dm = *V = *dV = 0;
  for (int k = 0; k < 3; k++) {
    *mm += FB_M[k] * (pd[k][0] * pd[k][0] + pd[k][1] * pd[k][1]) + FB_I[k] * d1[k] * d1[k];
    *dm += 2 * FB_M[k] * (pd[k][0] * pdd[k][0] + pd[k][1] * pdd[k][1]) +
           2 * FB_I[k] * d1[k] * d2[k];
    *V += FB_M[k] * FB_G * p[k][1];
    *dV += FB_M[k] * FB_G * pd[k][1];
  }
}

/* (th, thd) -> (thd, thdd): thdd = (-m'/2 thd^2 - V') / m */
static void fb_rhs(const double x[2], double f[2]) {
  double mm, dm, V, dV;
  fb_reduced(x[0], &mm, &dm, &V, &dV);
  f[0] = x[1];
  f[1] = (-0.5 * dm * x[1] * x[1] - dV) / mm;
}

static void fb_rk4(double x[2], double h) {
  double k1[2], k2[2], k3[2], k4[2], y[2];
  fb_rhs(x, k1);
  for (int i = 0; i < 2; i++) y[i] = x[i] + 0.5 * h * k1[i];
  fb_rhs(y, k2);
  for (int i = 0; i < 2; i++) y[i] = x[i] + 0.5 * h * k2[i];
  fb_rhs(y, k3);
  for (int i = 0; i < 2; i++) y[i] = x[i] + h * k3[i];
  fb_rhs(y, k4);
  for (int i = 0; i < 2; i++) x[i] += h / 6 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
}

static double fb_energy(double th, double thd) {
  double mm, dm, V, dV;
  fb_reduced(th, &mm, &dm, &V, &dV);
  return 0.5 * mm * thd * thd + V;
}

/* the closed-form kinematics agree with the scene's assembled state (12 digits) and the
 * derivatives with central differences: the reference itself is checked before it is used */
static void fourbar_reference_is_consistent(void **state) {
  (void)state;
  double ang[3], d1[3], d2[3];
  fb_kin(PI / 3, ang, d1, d2);
  assert_true(fabs(ang[1] - ang[0] - -0.418482423551) < 1e-12);
  assert_true(fabs(ang[2] - 1.795774973396) < 1e-12);
  for (double th = 0; th < 2 * PI; th += 0.37) {
    double h = 1e-5, ap[3], am[3], e1[3], e2[3], f1[3], f2[3];
    fb_kin(th, ang, d1, d2);
    fb_kin(th + h, ap, e1, e2);
    fb_kin(th - h, am, f1, f2);
    for (int k = 1; k < 3; k++) {
      assert_true(fabs((ap[k] - am[k]) / (2 * h) - d1[k]) < 1e-8);
      assert_true(fabs((e1[k] - f1[k]) / (2 * h) - d2[k]) < 1e-7);
    }
    double mm, dm, V, dV, mp, dmp, Vp, dVp, mn, dmn, Vn, dVn;
    fb_reduced(th, &mm, &dm, &V, &dV);
    fb_reduced(th + h, &mp, &dmp, &Vp, &dVp);
    fb_reduced(th - h, &mn, &dmn, &Vn, &dVn);
    assert_true(fabs((mp - mn) / (2 * h) - dm) < 1e-8 * (1 + fabs(dm)));
    assert_true(fabs((Vp - Vn) / (2 * h) - dV) < 1e-7 * (1 + fabs(dV)));
  }
  /* RK4 at two steps agrees with itself over the test's 10 s */
  double x[2] = {PI / 3, 20}, y[2] = {PI / 3, 20};
  for (int i = 0; i < 100000; i++) fb_rk4(x, 1e-4);
  for (int i = 0; i < 200000; i++) fb_rk4(y, 5e-5);
  printf("# reduced four-bar: theta(10) = %.15g, RK4 h vs h/2: %.3g rad\n", y[0],
         fabs(x[0] - y[0]));
  assert_true(fabs(x[0] - y[0]) < 1e-9); /* so below 1e-11 at the test's 2.5e-5 s */
}

/* hinge's run of scenes/fourbar.yaml with the integrator method, rtol and step given against the
 * reduced Lagrangian (started from hinge's initial crank angle and rate, after its start
 * projection), every 0.05 s: the largest crank angle error (rad), reduced energy drift (J,
 * relative to the initial energy) and loop violation */
static void fourbar_run(hg_integ_method method, double rtol, double h, double *err, double *de,
                        double *viol) {
  hg_scene *sc = hg_test_shipped("fourbar");
  sc->integ.method = method;
  sc->integ.rtol = rtol;
  sc->integ.h = h;
  hg_sim *sim = hg_test_sim(sc, NAN, NULL);
  const hg_model *m = hg_sim_model(sim);
  int iq = q_of(m, "crank"), iv = v_of(m, "crank");
  double x[2] = {hg_sim_q(sim)[iq], hg_sim_v(sim)[iv]};
  double e0 = fb_energy(x[0], x[1]), t = hg_sim_t_start(sim), hr = 2.5e-5;
  *err = *de = 0;
  *viol = violation_now(sim);
  for (int k = 1; k <= 200; k++) {
    double tk = hg_sim_t_start(sim) + 0.05 * k;
    assert_int_equal(hg_sim_run(sim, tk), HG_SIM_OK);
    while (t < tk - 1e-12) {
      double step = fmin(hr, tk - t);
      fb_rk4(x, step);
      t += step;
    }
    double th = hg_sim_q(sim)[iq], thd = hg_sim_v(sim)[iv];
    *err = fmax(*err, fabs(th - x[0]));
    *de = fmax(*de, fabs(fb_energy(th, thd) - e0));
    *viol = fmax(*viol, violation_now(sim));
  }
  assert_true(hg_sim_time(sim) == hg_sim_t_end(sim));
  *de /= fabs(e0);
  printf("# four-bar, %s rtol %g h %g: |crank - reference| <= %.3g rad over %g turns; reduced "
         "energy drift %.3g (relative); loop violation <= %.3g\n",
         hg_integ_method_name(method), rtol, h, *err, x[0] / (2 * PI), *de, *viol);
  hg_sim_free(sim);
  hg_scene_free(sc);
}

/* hinge's crank angle follows the reduced Lagrangian's: to 1e-7 rad over 10 s (about 35 turns)
 * with RKMK4 at 1e-4 s (measured 9e-9; 1.1e-7 at 2e-4 s: fourth order, so the difference is
 * the integrator's, not the model's), and with CVODE Adams at rtol 1e-12 to 1e-6 (measured
 * 5e-7; its local error is relative to the joint rates, about 20 rad/s here); the reduced energy
 * of hinge's state stays constant to the same accuracy */
static void fourbar_matches_reduced_lagrangian(void **state) {
  (void)state;
  double err, de, viol;
  fourbar_run(HG_INTEG_RKMK4, 1e-10, 1e-4, &err, &de, &viol);
  assert_true(err <= 1e-7);
  assert_true(de <= 1e-9);
  assert_true(viol <= 1e-10);
  fourbar_run(HG_INTEG_CVODE_ADAMS, 1e-12, 0.001, &err, &de, &viol);
  assert_true(err <= 1e-6);
  assert_true(de <= 1e-8);
  assert_true(viol <= 1e-10);
}

/* ---- two latches ---- */

/* |h_after - h_before| relative to the bodies' summed momentum, angular and linear */
static double event_momentum_change(const hg_sim_event *e) {
  double dl = 0, dp = 0;
  for (int i = 0; i < 3; i++) {
    dl = fmax(dl, fabs(e->h_after[i] - e->h_before[i]));
    dp = fmax(dp, fabs(e->h_after[3 + i] - e->h_before[3 + i]));
  }
  return fmax(dl / fmax(e->h_scale[0], 1e-300), dp / fmax(e->h_scale[1], 1e-300));
}

/* The relative twist of chaser seen moving with target: (w_c - w_t, v_c - v_t - w_t x (p_c -
 * p_t)), world axes; its largest component */
static double relative_twist(hg_sim *sim, int it, int ic, hg_se3 *rel) {
  hg_se3 Tt, Tc;
  double vt[6], vc[6];
  hg_sim_body(sim, it, &Tt, vt);
  hg_sim_body(sim, ic, &Tc, vc);
  hg_se3_invmul(&Tt, &Tc, rel);
  double r[3] = {Tc.p[0] - Tt.p[0], Tc.p[1] - Tt.p[1], Tc.p[2] - Tt.p[2]};
  double wxr[3] = {vt[1] * r[2] - vt[2] * r[1], vt[2] * r[0] - vt[0] * r[2],
                   vt[0] * r[1] - vt[1] * r[0]};
  double worst = 0;
  for (int i = 0; i < 3; i++) {
    worst = fmax(worst, fabs(vc[i] - vt[i]));
    worst = fmax(worst, fabs(vc[3 + i] - vt[3 + i] - wxr[i]));
  }
  return worst;
}

static double pose_change(const hg_se3 *a, const hg_se3 *b) {
  double worst = 0;
  for (int i = 0; i < 3; i++) worst = fmax(worst, fabs(a->p[i] - b->p[i]));
  for (int i = 0; i < 9; i++) worst = fmax(worst, fabs(a->R[i] - b->R[i]));
  return worst;
}

static void two_latch_dock_holds_as_one_body(void **state) {
  (void)state;
  hg_scene *sc = hg_test_shipped("two_latch_dock");
  hg_sim *sim = hg_test_sim(sc, NAN, NULL);
  assert_int_equal(hg_sim_run(sim, 9.0), HG_SIM_OK);
  /* the capture, the release and the closure, in that order */
  int capture = -1, release = -1, close = -1;
  for (int k = 0; k < hg_sim_nevents(sim); k++) {
    const hg_sim_event *e = hg_sim_event_at(sim, k);
    printf("# t = %8.4f %-16s %s\n", e->t, e->name, e->details);
    if (!strcmp(e->name, "capture") && capture < 0) capture = k;
    if (!strcmp(e->name, "release_latch_1")) release = k;
    if (!strcmp(e->name, "close_latch_2")) close = k;
  }
  assert_true(capture >= 0 && release > capture && close > release);
  const hg_sim_event *ec = hg_sim_event_at(sim, capture), *el = hg_sim_event_at(sim, close);
  double dh_capture = event_momentum_change(ec), dh_close = event_momentum_change(el);
  printf("# capture at t = %.4f: momentum change %.3g (relative), %.6g J removed\n", ec->t,
         dh_capture, ec->e_lock);
  printf("# loop closed at t = %.4f: momentum change %.3g (relative), energy %.9g -> %.9g J\n",
         el->t, dh_close, el->e_before, el->e_after);
  assert_true(dh_capture <= 1e-12);
  assert_true(dh_close <= 1e-12);
  /* the closure removed the relative motion the release started: kinetic energy went down */
  assert_true(el->e_after < el->e_before);
  assert_int_equal(hg_sim_loop_find(sim, "dock_target_port2_chaser_port2") >= 0, 1);

  const hg_model *m = hg_sim_model(sim);
  int it = hg_model_body(m, "target"), ic = hg_model_body(m, "chaser");
  assert_true(it > 0 && ic > 0);
  hg_se3 rel0, rel;
  double tw = relative_twist(sim, it, ic, &rel0), dpose = 0, viol = 0;
  double h0[6];
  hg_sim_momentum(sim, h0);
  double hs = 0;
  for (int i = 0; i < 6; i++) hs = fmax(hs, fabs(h0[i]));
  double dh = 0;
  for (double t = 9.5; t <= hg_sim_t_end(sim) + 1e-9; t += 0.5) {
    assert_int_equal(hg_sim_run(sim, t), HG_SIM_OK);
    tw = fmax(tw, relative_twist(sim, it, ic, &rel));
    dpose = fmax(dpose, pose_change(&rel0, &rel));
    viol = fmax(viol, violation_now(sim));
    double h[6];
    hg_sim_momentum(sim, h);
    for (int i = 0; i < 6; i++) dh = fmax(dh, fabs(h[i] - h0[i]));
  }
  printf("# held by the loop to t = %g: relative twist <= %.3g, relative pose change <= %.3g, "
         "violation <= %.3g, momentum drift %.3g of %.6g\n",
         hg_sim_time(sim), tw, dpose, viol, dh, hs);
  assert_true(tw <= 1e-9);
  assert_true(dpose <= 1e-9);
  assert_true(viol <= 1e-10);
  /* the pair does tumble: the momentum is not trivially zero */
  assert_true(hs > 1);
  hg_sim_free(sim);
  hg_scene_free(sc);
}

/* ---- projection ---- */

typedef struct chaos_sys {
  const hg_model *m;
  hg_data *d;
  hg_loops *L;
  double *tau, *fext;
} chaos_sys;

static int chaos_accel(void *user, double t, const double *q, const double *v, double *vdot) {
  (void)t;
  chaos_sys *c = user;
  memset(vdot, 0, (size_t)c->m->nv * sizeof(double));
  memset(c->tau, 0, (size_t)c->m->nv * sizeof(double));
  hg_kinematics(c->m, c->d, q, v);
  return hg_loops_hybrid(c->L, c->d, q, v, NULL, vdot, c->tau, c->fext, NULL);
}

static int chaos_project(void *user, double t, double *q, double *v, double *eq, double *ev) {
  (void)t;
  chaos_sys *c = user;
  hg_kinematics(c->m, c->d, q, v);
  if (hg_loops_project(c->L, c->d, q, v, NULL, 1e-11, 20) < 0) return 1;
  if (eq) hg_loops_project_tangent(c->L, c->d, NULL, eq);
  if (ev) hg_loops_project_tangent(c->L, c->d, NULL, ev);
  return 0;
}

static double chaos_violation(chaos_sys *c, const double *q, const double *v) {
  double dist, ang;
  hg_kinematics(c->m, c->d, q, v);
  hg_loops_violation(c->L, c->d, q, 0, &dist, &ang);
  return fmax(dist, ang);
}

/* The chaotic five-bar's equations integrated by the integrator API directly, with and
 * without the projection: max violation over [0, t_end] */
static double chaos_run(const hg_sim *sim, int project, hg_integ_method method, double rtol,
                        double t_end) {
  const hg_model *m = hg_sim_model(sim);
  chaos_sys c = {.m = m};
  c.d = hg_data_new(m);
  c.tau = calloc((size_t)m->nv, sizeof(double));
  c.fext = calloc(6 * (size_t)m->nbody, sizeof(double));
  assert_non_null(c.d);
  hg_loop lp;
  memset(&lp, 0, sizeof lp);
  lp.kind = HG_LOOP_JOINT;
  assert_int_equal(hg_sim_resolve_marker(sim, "tip", &lp.body[0], &lp.M[0]), 0);
  assert_int_equal(hg_sim_resolve_marker(sim, "pivot_b", &lp.body[1], &lp.M[1]), 0);
  static const double z[3] = {0, 0, 1}, x[3] = {1, 0, 0};
  const char *why = NULL;
  assert_int_equal(hg_joint_init(&lp.joint, HG_JOINT_REVOLUTE, z, x, 0, &why), 0);
  hg_error err;
  c.L = hg_loops_new(m, &lp, 1, &err);
  if (!c.L) fail_msg("%s", err.msg);
  hg_system sys = {.m = m, .accel = chaos_accel, .user = &c,
                   .project = project ? chaos_project : NULL};
  hg_integ_options opt;
  hg_integ_default_options(&opt, method);
  opt.rtol = rtol;
  opt.h = 2e-3;
  hg_integrator *I = hg_integrator_new(&sys, &opt, 0, hg_sim_q(sim), hg_sim_v(sim), &err);
  if (!I) fail_msg("%s", err.msg);
  double worst = 0;
  for (double t = 1; t <= t_end + 1e-9; t += 1) {
    int rc = hg_integrator_advance(I, t);
    if (rc != HG_INTEG_OK) fail_msg("t = %g: %s", t, hg_integrator_error_message(I));
    worst = fmax(worst, chaos_violation(&c, hg_integrator_q(I), hg_integrator_v(I)));
  }
  hg_integrator_free(I);
  hg_loops_free(c.L);
  hg_data_free(c.d);
  free(c.tau);
  free(c.fext);
  return worst;
}

/* hinge keeps the chaotic five-bar within 1e-10 of its manifold for 1000 s; the same equations
 * without the projection drift off it (so the bound is the projection's doing) */
static void projection_keeps_the_manifold(void **state) {
  (void)state;
  hg_scene *sc = hg_test_scene("data/loops_chaos.yaml");
  hg_sim *sim = hg_test_sim(sc, NAN, NULL);
  double viol = violation_now(sim);
  /* the integrator API on the same model and initial state, 200 s at rtol 1e-8 */
  double with_adams = chaos_run(sim, 1, HG_INTEG_CVODE_ADAMS, 1e-8, 200);
  double without_adams = chaos_run(sim, 0, HG_INTEG_CVODE_ADAMS, 1e-8, 200);
  double with_rk = chaos_run(sim, 1, HG_INTEG_RKMK4, 1e-8, 200);
  double without_rk = chaos_run(sim, 0, HG_INTEG_RKMK4, 1e-8, 200);
  printf("# five-bar, 200 s by the integrator API: Adams rtol 1e-8 %.3g projected, %.3g not; "
         "RKMK4 h 2e-3 %.3g projected, %.3g not\n",
         with_adams, without_adams, with_rk, without_rk);
  assert_true(with_adams <= 1e-10);
  assert_true(with_rk <= 1e-10);
  assert_true(without_adams > 100 * 1e-10);
  assert_true(without_rk > with_rk);
  /* and hinge itself, 1000 s at the scene's rtol 1e-10 (100 s with HINGE_TEST_QUICK, as the
   * sanitizer build runs, where the 1000 s take three minutes) */
  double t_end = getenv("HINGE_TEST_QUICK") ? 100 : 1000;
  for (double t = 1; t <= t_end + 1e-9; t += 1) {
    int rc = hg_sim_run(sim, t);
    if (rc) fail_msg("t = %g: %s", t, hg_sim_error(sim));
    viol = fmax(viol, violation_now(sim));
  }
  double maxp, maxv;
  int red;
  hg_sim_loop_stats(sim, &maxp, &maxv, &red);
  printf("# five-bar, %g s through hinge: violation <= %.3g (stats %.3g m, %.3g m/s; %d "
         "redundant rows)\n",
         t_end, viol, maxp, maxv, red);
  assert_true(viol <= 1e-10);
  hg_sim_free(sim);
  hg_scene_free(sc);
}

/* ---- the shipped scenes ---- */

static const char *const loop_scenes[] = {"fourbar", "fivebar_spherical", "two_latch_dock",
                                          "array_ccl"};

static void loop_scenes_run_on_the_manifold(void **state) {
  (void)state;
  for (int k = 0; k < 4; k++) {
    hg_scene *sc = hg_test_shipped(loop_scenes[k]);
    hg_sim *sim = hg_test_sim(sc, NAN, NULL);
    double viol = violation_now(sim), t0 = hg_sim_t_start(sim), t1 = hg_sim_t_end(sim);
    for (int i = 1; i <= 200; i++) {
      int rc = hg_sim_run(sim, t0 + (t1 - t0) * i / 200);
      if (rc) fail_msg("%s: %s", loop_scenes[k], hg_sim_error(sim));
      viol = fmax(viol, violation_now(sim));
    }
    assert_true(hg_sim_time(sim) == t1);
    hg_integ_stats st;
    hg_sim_stats(sim, &st);
    printf("# %-18s t = %5.1f s  %7ld steps  %2d events  violation <= %.3g\n", loop_scenes[k],
           hg_sim_time(sim), st.steps, hg_sim_nevents(sim), viol);
    assert_true(viol <= 1e-10);
    hg_sim_free(sim);
    hg_scene_free(sc);
  }
}

/* the cable loop: h2 = -2 h1, h3 = -h2, h4 = -h3 all along, and the root latched at the end */
static void array_ccl_deploys_together(void **state) {
  (void)state;
  hg_scene *sc = hg_test_shipped("array_ccl");
  hg_sim *sim = hg_test_sim(sc, NAN, NULL);
  const hg_model *m = hg_sim_model(sim);
  int h[4] = {q_of(m, "h1"), q_of(m, "h2"), q_of(m, "h3"), q_of(m, "h4")};
  double worst = 0;
  for (double t = 0.5; t <= hg_sim_t_end(sim) + 1e-9; t += 0.5) {
    assert_int_equal(hg_sim_run(sim, t), HG_SIM_OK);
    const double *q = hg_sim_q(sim);
    worst = fmax(worst, fabs(q[h[1]] + 2 * q[h[0]]));
    worst = fmax(worst, fabs(q[h[2]] + q[h[1]]));
    worst = fmax(worst, fabs(q[h[3]] + q[h[2]]));
  }
  const double *q = hg_sim_q(sim);
  printf("# array: coupling error <= %.3g rad; at the end h1 = %.3g, h2 = %.3g rad\n", worst,
         q[h[0]], q[h[1]]);
  assert_true(worst <= 1e-10);
  assert_true(fabs(q[h[0]]) < 1e-6); /* latched at its deployed stop */
  hg_sim_free(sim);
  hg_scene_free(sc);
}

/* ---- a loop apart at the start ---- */

/* the largest velocity violation |G_k v| of the present, closed loops now */
static double speed_now(hg_sim *sim) {
  double worst = 0;
  for (int k = 0; k < hg_sim_nloop(sim); k++) {
    hg_sim_loop_view lv;
    hg_sim_loop(sim, k, &lv);
    if (lv.present && lv.active) worst = fmax(worst, lv.speed);
  }
  return worst;
}

/* the scene at path cannot start: hg_sim_new refuses it with a message holding every one of the
 * n strings want */
static void refused_at_start(const char *path, const char *const *want, int n) {
  hg_scene *sc = hg_test_scene(path);
  hg_sim_options opt;
  hg_error err;
  hg_sim_default_options(&opt);
  assert_null(hg_sim_new(sc, &opt, &err));
  printf("# %s\n", err.msg);
  for (int k = 0; k < n; k++)
    if (!strstr(err.msg, want[k])) fail_msg("'%s' is not in the message", want[k]);
  hg_scene_free(sc);
}

/* An impulse on a body of a closed loop moves the whole loop (the constrained response), and a
 * preview of opening and re-closing the loop says what the close would dissipate: the kinetic
 * energy of the relative motion the weld stops, which the run then removes exactly. */
static void impulse_and_preview_respect_loops(void **state) {
  (void)state;
  hg_scene *sc = hg_test_shipped("two_latch_dock");
  hg_sim *sim = hg_test_sim(sc, NAN, NULL);
  assert_int_equal(hg_sim_run(sim, 9.0), HG_SIM_OK);
  const char *const steps[] = {"impulse chaser 0 0 0.001  0.02 0 0",
                               "open dock_target_port2_chaser_port2"};
  hg_command cmd;
  hg_error err;
  /* the impulse with the loop closed: the velocities stay on the loop */
  assert_int_equal(hg_sim_parse_command(sim, steps[0], &cmd, &err), 0);
  assert_int_equal(hg_sim_command(sim, &cmd), HG_SIM_OK);
  hg_command_free(&cmd);
  double vs = speed_now(sim);
  printf("# after an impulse on the chaser: loop velocity violation %.3g\n", vs);
  assert_true(vs <= 1e-12);
  /* opened, the pair drifts apart; the preview of closing it again */
  assert_int_equal(hg_sim_parse_command(sim, steps[1], &cmd, &err), 0);
  assert_int_equal(hg_sim_command(sim, &cmd), HG_SIM_OK);
  hg_command_free(&cmd);
  assert_int_equal(hg_sim_parse_command(sim, "impulse chaser 0 0 0.002  0 0.01 0", &cmd, &err), 0);
  assert_int_equal(hg_sim_command(sim, &cmd), HG_SIM_OK);
  hg_command_free(&cmd);
  assert_int_equal(hg_sim_parse_command(sim, "close dock_target_port2_chaser_port2", &cmd, &err),
                   0);
  hg_sim_preview_view pv;
  assert_int_equal(hg_sim_preview(sim, &cmd, &pv), 0);
  printf("# preview of re-closing: %.9g J\n", pv.energy_removed);
  assert_true(pv.energy_removed > 0);
  assert_int_equal(hg_sim_command(sim, &cmd), HG_SIM_OK);
  hg_command_free(&cmd);
  const hg_sim_event *e = hg_sim_event_at(sim, hg_sim_nevents(sim) - 1);
  printf("# closed: %s; %.9g J removed\n", e->details, e->e_lock);
  assert_true(fabs(e->e_lock - pv.energy_removed) <= 1e-12 * fmax(1, pv.energy_removed));
  assert_true(speed_now(sim) <= 1e-12);
  hg_sim_free(sim);
  hg_scene_free(sc);
}

static void loop_apart_at_start_is_refused(void **state) {
  (void)state;
  static const char *const want[] = {"loops_apart.yaml:33:", "pin_c", "apart at the start",
                                     "rocker"};
  refused_at_start("data/loops_apart.yaml", want, 4);
}

/* markers within a loose assembly tolerance of a linkage that cannot close: refused at the
 * loop's position, saying how far the projection got */
static void loop_unreachable_is_refused(void **state) {
  (void)state;
  static const char *const want[] = {"loops_unreachable.yaml:34:5:", "no projection reaches",
                                     "residual is still"};
  refused_at_start("data/loops_unreachable.yaml", want, 3);
}

/* a loop whose body an add brings closes as a close action would, where its markers meet;
 * closing an absent loop is refused and logged */
static void add_completes_a_loop(void **state) {
  (void)state;
  hg_scene *sc = hg_test_scene("data/loops_add.yaml");
  hg_sim *sim = hg_test_sim(sc, NAN, NULL);
  assert_int_equal(hg_sim_run(sim, INFINITY), HG_SIM_OK);
  assert_int_equal(hg_sim_nevents(sim), 3);
  const char *d0 = hg_sim_event_at(sim, 0)->details, *d2 = hg_sim_event_at(sim, 2)->details;
  printf("# %s\n# %s\n", d0, d2);
  assert_non_null(strstr(d0, "close loop pin_c"));
  assert_non_null(strstr(d2, "REFUSED close pin_c"));
  double maxp, maxv;
  int red;
  hg_sim_loop_stats(sim, &maxp, &maxv, &red);
  assert_true(maxp <= 1e-10 && maxv <= 1e-10);
  hg_sim_free(sim);
  hg_scene_free(sc);
}

/* a scene loop closed across a gap its markers' capture tolerates: projected together first, the
 * projection's energy change logged, then on the manifold */
static void close_within_capture_projects(void **state) {
  (void)state;
  hg_scene *sc = hg_test_scene("data/loops_capture.yaml");
  hg_sim *sim = hg_test_sim(sc, NAN, NULL);
  assert_int_equal(hg_sim_run(sim, INFINITY), HG_SIM_OK);
  assert_true(hg_sim_nevents(sim) >= 1);
  const hg_sim_event *e = hg_sim_event_at(sim, 0);
  printf("# %s\n", e->details);
  assert_non_null(strstr(e->details, "close loop pin_c"));
  assert_non_null(strstr(e->details, "projected from 0.0149984 m"));
  assert_non_null(strstr(e->details, "energy change"));
  double maxp, maxv;
  int red;
  hg_sim_loop_stats(sim, &maxp, &maxv, &red);
  assert_true(maxp <= 1e-10 && maxv <= 1e-10);
  hg_sim_free(sim);
  hg_scene_free(sc);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(fourbar_reference_is_consistent),
      cmocka_unit_test(fourbar_matches_reduced_lagrangian),
      cmocka_unit_test(two_latch_dock_holds_as_one_body),
      cmocka_unit_test(projection_keeps_the_manifold),
      cmocka_unit_test(loop_scenes_run_on_the_manifold),
      cmocka_unit_test(array_ccl_deploys_together),
      cmocka_unit_test(impulse_and_preview_respect_loops),
      cmocka_unit_test(loop_apart_at_start_is_refused),
      cmocka_unit_test(loop_unreachable_is_refused),
      cmocka_unit_test(add_completes_a_loop),
      cmocka_unit_test(close_within_capture_projects),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
