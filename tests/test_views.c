/* test_views.c: the simulation's views (sim.h "views") against closed forms:
 *  - a locked pendulum link at rest in gravity: its joint transmits exactly the static load (the
 *    weight up, and the moment of the weight about the child origin), and its load is the
 *    gravity torque m g c sin(q);
 *  - a marker spring: its view's endpoints are the markers' world positions and its force on b is
 *    -k (L - L0) u;
 *  - markers sit at body pose times marker pose; pairs measure the body origins' distance and
 *    its rate (checked against a finite difference in time);
 *  - a body's pose and twist equal an independent kinematic walk of the state;
 *  - inside a run (an observer's rows, also between integrator steps) the views show the state
 *    of that instant. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dynamics.h"
#include "files.h"
#include "sims.h"

static const char scene_text[] =
    "gravity: [0, 0, -9.81]\n"
    "bodies:\n"
    "  - name: link\n"
    "    joint: {type: revolute, name: pin, axis: [0, 1, 0], pos: [0, 0, 2]}\n"
    "    inertia: {mass: 3, com: [0.4, 0, 0], inertia: [0.01, 0.2, 0.2]}\n"
    "    markers: [{name: tip, pos: [0.8, 0, 0], rpy: [0.1, 0.2, 0.3]}]\n"
    "  - name: bob\n"
    "    joint: free\n"
    "    inertia: {mass: 1, inertia: [0.01, 0.01, 0.01]}\n"
    "    markers: [{name: hook, pos: [0, 0, 0.1]}]\n"
    "forces:\n"
    "  - {name: tether, type: spring, markers: [tip, hook], stiffness: 40, free_length: 0.5}\n"
    "initial:\n"
    "  joints: {pin: {q: [0.7]}}\n"
    "  bodies: {bob: {pos: [1.5, 0.2, 0.4], twist: [0.1, 0.2, -0.3, 0.5, -0.2, 1.0]}}\n"
    "modes: {pin: locked}\n"
    "integrator: {method: cvode-adams, rtol: 1e-10}\n"
    "time: {start: 0, end: 1}\n"
    "output: {dt: 0.01, pairs: [[link, bob]]}\n";

static double dist3(const double *a, const double *b) {
  double d[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
  return sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
}

/* the torque that holds the locked link at rest: -(moments of its weight and of the spring's
 * pull at its tip about the pin) . axis (the pin is at the link's origin) */
static double holding_torque(hg_sim *sim, int link) {
  hg_sim_joint_view jv;
  hg_force_view fv;
  hg_se3 Tl;
  double tw[6], com[3], rc[3], rt[3], m1[3], m2[3];
  hg_sim_joint(sim, link, &jv);
  hg_sim_force(sim, 0, &fv);
  hg_sim_body(sim, link, &Tl, tw);
  hg_se3_apply(&Tl, (double[3]){0.4, 0, 0}, com);
  for (int k = 0; k < 3; k++) rc[k] = com[k] - Tl.p[k], rt[k] = fv.a[k] - Tl.p[k];
  double W[3] = {0, 0, -3 * 9.81}, Fa[3] = {-fv.force[0], -fv.force[1], -fv.force[2]};
  hg_v3_cross(rc, W, m1);
  hg_v3_cross(rt, Fa, m2);
  return -hg_v3_dot(m1, jv.axis) - hg_v3_dot(m2, jv.axis);
}

static void views_match_closed_forms(void **state) {
  (void)state;
  char dir[256];
  hg_error err;
  hg_scene *s = hg_test_scene_temp("views", "views.yaml", scene_text, dir, sizeof dir);
  hg_sim_options opt;
  hg_sim_default_options(&opt);
  hg_sim *sim = hg_sim_new(s, &opt, &err);
  if (!sim) fail_msg("%s", err.msg);
  assert_int_equal(hg_sim_run(sim, 0.3), HG_SIM_OK);
  const hg_model *m = hg_sim_model(sim);
  int link = hg_model_body(m, "link"), bob = hg_model_body(m, "bob");

  /* the locked link's joint: the spring pulls too, so remove its share first: the transmitted
   * wrench balances gravity and the spring force at the tip (the link is at rest) */
  hg_sim_joint_view jv;
  hg_force_view fv;
  hg_se3 Tl;
  double tw[6];
  hg_sim_joint(sim, link, &jv);
  hg_sim_force(sim, 0, &fv);
  hg_sim_body(sim, link, &Tl, tw);
  assert_int_equal(jv.mode, HG_MODE_LOCKED);
  assert_true(fabs(jv.q[0] - 0.7) == 0 && jv.v[0] == 0);
  const double mass = 3, g = 9.81, c = 0.4;
  double com[3], rc[3], rt[3], w_exp[6];
  hg_se3_apply(&Tl, (double[3]){c, 0, 0}, com);
  for (int k = 0; k < 3; k++) rc[k] = com[k] - Tl.p[k], rt[k] = fv.a[k] - Tl.p[k];
  /* forces on the link: weight at the com, -force (the spring's reaction on a) at the tip;
   * the joint's wrench cancels both (moments about the child origin) */
  double W[3] = {0, 0, -mass * g}, Fa[3] = {-fv.force[0], -fv.force[1], -fv.force[2]};
  double m1[3], m2[3];
  hg_v3_cross(rc, W, m1);
  hg_v3_cross(rt, Fa, m2);
  for (int k = 0; k < 3; k++) {
    w_exp[k] = -(m1[k] + m2[k]);
    w_exp[3 + k] = -(W[k] + Fa[k]);
  }
  double ew = 0, sw = 0;
  for (int k = 0; k < 6; k++) ew = fmax(ew, fabs(jv.wrench[k] - w_exp[k])), sw = fmax(sw, fabs(w_exp[k]));
  /* one hybrid solve: round-off of the recursion (~1e-15 relative) */
  if (!(ew <= 1e-12 * sw)) fail_msg("locked joint wrench off by %g of %g", ew, sw);
  /* its load: the torque about the pin axis that holds it */
  double tq = holding_torque(sim, link);
  if (!(fabs(jv.load[0] - tq) <= 1e-12 * fabs(tq))) fail_msg("load %g, expected %g", jv.load[0], tq);
  assert_true(fabs(fabs(jv.axis[1]) - 1) < 1e-15);

  /* the spring: endpoints at the markers, force -k (L - L0) u on b */
  hg_sim_marker_view tip, hook;
  hg_sim_marker(sim, 0, &tip);
  hg_sim_marker(sim, 1, &hook);
  assert_string_equal(tip.name, "tip");
  assert_true(tip.present && hook.present);
  assert_true(dist3(fv.a, tip.pose.p) <= 1e-15 * 4 && dist3(fv.b, hook.pose.p) <= 1e-15 * 4);
  double d[3], L = dist3(hook.pose.p, tip.pose.p);
  for (int k = 0; k < 3; k++) d[k] = (hook.pose.p[k] - tip.pose.p[k]) / L;
  for (int k = 0; k < 3; k++)
    assert_true(fabs(fv.force[k] + 40 * (L - 0.5) * d[k]) <= 1e-13 * 40 * fabs(L - 0.5) + 1e-15);
  assert_true(fabs(fv.length - L) <= 1e-15 * L);

  /* the tip marker: body pose times its pose (rpy 0.1, 0.2, 0.3 at (0.8, 0, 0)) */
  hg_se3 M, Texp;
  const hg_marker *mk = hg_scene_marker(s, "tip");
  M = mk->pose;
  hg_se3_mul(&Tl, &M, &Texp);
  assert_true(dist3(Texp.p, tip.pose.p) <= 1e-15 * 4);
  for (int k = 0; k < 9; k++) assert_true(fabs(Texp.R[k] - tip.pose.R[k]) <= 1e-15 * 2);

  /* the bob: pose and twist from an independent walk */
  hg_se3 Tb;
  double twb[6], V[6];
  hg_sim_body(sim, bob, &Tb, twb);
  hg_data *dd = hg_data_new(m);
  hg_kinematics(m, dd, hg_sim_q(sim), hg_sim_v(sim));
  hg_body_twist(m, dd, bob, V);
  double wv[3], vv[3];
  hg_m3_mulv(dd->T_world[bob].R, V, wv);
  hg_m3_mulv(dd->T_world[bob].R, V + 3, vv);
  assert_true(dist3(Tb.p, dd->T_world[bob].p) == 0);
  assert_true(dist3(twb, wv) <= 1e-15 && dist3(twb + 3, vv) <= 1e-15 * 4);

  /* the pair: distance now, and its rate against a central difference in time */
  hg_sim_pair_view p0, pm, pp;
  assert_int_equal(hg_sim_npair(sim), 1);
  hg_sim_pair(sim, 0, &p0);
  assert_true(fabs(p0.distance - dist3(Tb.p, Tl.p)) <= 1e-15 * 4);
  const double h = 1e-4;
  hg_sim *s2 = hg_sim_new(s, &opt, &err);
  assert_int_equal(hg_sim_run(s2, 0.3 - h), HG_SIM_OK);
  hg_sim_pair(s2, 0, &pm);
  assert_int_equal(hg_sim_run(s2, 0.3 + h), HG_SIM_OK);
  hg_sim_pair(s2, 0, &pp);
  double rate = (pp.distance - pm.distance) / (2 * h);
  /* O(h^2) truncation with h = 1e-4 and accelerations of O(10): ~1e-7, plus rtol 1e-10 */
  if (!(fabs(rate - p0.range_rate) <= 1e-6))
    fail_msg("pair rate %g, finite difference %g", p0.range_rate, rate);
  /* the relative speed bounds the range rate (Cauchy-Schwarz) */
  assert_true(p0.speed >= fabs(p0.range_rate));
  printf("# locked joint wrench to %.2g, load %.6g N m, pair rate %.9g (fd %.9g)\n", ew / sw,
         jv.load[0], p0.range_rate, rate);

  hg_data_free(dd);
  hg_sim_free(s2);
  hg_sim_free(sim);
  hg_scene_free(s);
  hg_test_remove_dir(dir);
}

/* an observer that checks, at every output row, the views against an independent walk of the
 * state they claim to show */
typedef struct row_check {
  hg_data *d;
  int rows, stale;
} row_check;

static const char *check_row(void *user, hg_sim *sim) {
  row_check *c = user;
  const hg_model *m = hg_sim_model(sim);
  int link = hg_model_body(m, "link");
  hg_sim_joint_view jv;
  hg_sim_joint(sim, link, &jv);
  double tq = holding_torque(sim, link);
  if (!(fabs(jv.load[0] - tq) <= 1e-12 * fabs(tq))) c->stale++;
  hg_kinematics(m, c->d, hg_sim_q(sim), hg_sim_v(sim));
  for (int i = 1; i < m->nbody; i++) {
    hg_se3 T;
    double tw[6];
    hg_sim_body(sim, i, &T, tw);
    if (dist3(T.p, c->d->T_world[i].p) != 0) c->stale++;
  }
  c->rows++;
  return NULL;
}

/* Views read inside a run (outputs are observers) show the state of that instant, also where
 * the integrator reaches an output time by interpolating within a step (no right-hand side
 * evaluated at it): the output rows of this scene are 100 times denser than its steps. */
static void views_follow_the_state_inside_a_run(void **state) {
  (void)state;
  char dir[256];
  hg_error err;
  assert_int_equal(hg_test_temp_dir("views_obs", dir, sizeof dir), 0);
  char text[sizeof scene_text + 16], *dt;
  snprintf(text, sizeof text, "%s", scene_text);
  assert_non_null(dt = strstr(text, "dt: 0.01,"));
  memcpy(dt, "dt: 1e-4,", 9); /* the same length */
  hg_scene *s = hg_test_scene_text(dir, "views.yaml", text);
  hg_sim *sim = hg_sim_new(s, NULL, &err);
  if (!sim) fail_msg("%s", err.msg);
  row_check c = {hg_data_new(hg_sim_model(sim)), 0, 0};
  hg_sim_observer obs = {.user = &c, .row = check_row};
  assert_int_equal(hg_sim_observe(sim, &obs), 0);
  assert_int_equal(hg_sim_run(sim, 0.5), HG_SIM_OK);
  assert_int_equal(hg_sim_observe(sim, &obs), -1); /* too late: the run has begun */
  hg_integ_stats st;
  hg_sim_stats(sim, &st);
  printf("# %d rows, %ld steps, %d stale\n", c.rows, st.steps, c.stale);
  assert_true(c.rows > st.steps); /* rows between steps: interpolated */
  assert_int_equal(c.stale, 0);
  hg_data_free(c.d);
  hg_sim_free(sim);
  hg_scene_free(s);
  hg_test_remove_dir(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(views_match_closed_forms),
                                     cmocka_unit_test(views_follow_the_state_inside_a_run)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
