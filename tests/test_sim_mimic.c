/* test_sim_mimic.c: URDF mimic couplings in a simulation (tests/data/scenes/gripper_mimic.yaml: a
 * floating gripper in zero gravity whose right finger mimics the left, multiplier 1, with a
 * spring of stiffness k = 2 N/m and rest 0.02 m on the follower):
 *  - the fingers move as one DoF: q_right = q_left at every instant, and the coupled DoF follows
 *    the closed form q(t) = 0.02 (1 - cos w t), w = sqrt(k / (m_left + m_right)), the spring on
 *    the follower driving the leader too;
 *  - the system floats freely: momentum stays at zero and the energy budget closes;
 *  - locking the leader stops both fingers in one plastic impulse that removes exactly their
 *    kinetic energy (the palm does not move: the fingers open symmetrically) and conserves
 *    momentum;
 *  - the follower is never locked on its own: the command is refused and logged. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sims.h"

static const char scene_path[] = "data/scenes/gripper_mimic.yaml";

/* the q and v entries of joint name */
static void joint_state(hg_sim *sim, const char *name, double *q, double *v) {
  const hg_model *m = hg_sim_model(sim);
  int i = hg_model_joint(m, name);
  assert_true(i > 0);
  *q = hg_sim_q(sim)[m->q_adr[i]];
  *v = hg_sim_v(sim)[m->v_adr[i]];
}

static double momentum_norm(hg_sim *sim) {
  double h[6], n = 0;
  hg_sim_momentum(sim, h);
  for (int k = 0; k < 6; k++) n = fmax(n, fabs(h[k]));
  return n;
}

static void fingers_move_as_one_dof(void **state) {
  (void)state;
  hg_scene *s = hg_test_scene(scene_path);
  hg_sim *sim = hg_test_sim(s, NAN, NULL);
  const double k = 2, mass = 0.1 + 0.1, w = sqrt(k / mass), amp = 0.02;
  double worst_pair = 0, worst_closed = 0, worst_h = 0;
  for (int n = 1; n <= 100; n++) {
    double t = 0.01 * n, ql, vl, qr, vr;
    assert_int_equal(hg_sim_run(sim, t), HG_SIM_OK);
    joint_state(sim, "left_joint", &ql, &vl);
    joint_state(sim, "right_joint", &qr, &vr);
    worst_pair = fmax(worst_pair, fmax(fabs(ql - qr), fabs(vl - vr) * 0.01));
    worst_closed = fmax(worst_closed, fabs(ql - amp * (1 - cos(w * t))));
    worst_h = fmax(worst_h, momentum_norm(sim));
  }
  hg_sim_budget b;
  hg_sim_get_budget(sim, &b);
  printf("# |q_r - q_l| <= %.2g m, closed form to %.2g m, |h| <= %.2g, budget drift %.2g\n",
         worst_pair, worst_closed, worst_h, b.max_drift);
  /* q_f - q_l is a linear invariant of the integrator (A vdot = 0 exactly): round-off only */
  assert_true(worst_pair <= 1e-14);
  /* rtol 1e-10 on a 0.02 m motion over 1.6 periods */
  assert_true(worst_closed <= 1e-8);
  /* the fingers open symmetrically: the total momentum is zero up to round-off of 0.2 kg m/s */
  assert_true(worst_h <= 1e-13);
  /* atol (rtol x 1 m) on positions against a 4e-4 J spring energy: ~1e-7 relative */
  assert_true(b.max_drift <= 1e-6);
  hg_sim_free(sim);
  hg_scene_free(s);
}

static void locking_the_leader_stops_both(void **state) {
  (void)state;
  hg_scene *s = hg_test_scene(scene_path);
  hg_sim *sim = hg_test_sim(s, NAN, NULL);
  double ql, vl, qr, vr;
  assert_int_equal(hg_sim_run(sim, 0.3), HG_SIM_OK);
  joint_state(sim, "left_joint", &ql, &vl);
  double ke = 0.5 * 0.2 * vl * vl;

  /* the follower alone: refused, logged, nothing changes */
  const hg_sim_event *ev = hg_test_apply(sim, "lock right_joint");
  assert_non_null(strstr(ev->details, "REFUSED set_mode of joint right_joint: it follows joint "
                                      "left_joint"));
  assert_int_equal(hg_sim_refused(sim), 1);
  joint_state(sim, "right_joint", &qr, &vr);
  assert_true(fabs(vr - vl) <= 1e-14 * fabs(vl)); /* the refused command changed nothing */

  /* the leader: both stop in one plastic impulse */
  ev = hg_test_apply(sim, "lock left_joint");
  joint_state(sim, "left_joint", &ql, &vl);
  joint_state(sim, "right_joint", &qr, &vr);
  assert_true(vl == 0 && vr == 0);
  printf("# lock: removed %.12g J of %.12g J, momentum change %.2g\n", ev->e_lock, ke,
         hg_sim_event_momentum_change(ev));
  assert_true(fabs(ev->e_lock - ke) <= 1e-12 * ke);
  assert_true(momentum_norm(sim) <= 1e-13);
  /* and stay stopped while the spring pulls (the lock carries the coupled load) */
  assert_int_equal(hg_sim_run(sim, 0.6), HG_SIM_OK);
  double ql2, qr2;
  joint_state(sim, "left_joint", &ql2, &vl);
  joint_state(sim, "right_joint", &qr2, &vr);
  assert_true(ql2 == ql && qr2 == qr && vl == 0 && vr == 0);
  /* freed again, they move together */
  hg_test_apply(sim, "free left_joint");
  assert_int_equal(hg_sim_run(sim, 1.0), HG_SIM_OK);
  joint_state(sim, "left_joint", &ql, &vl);
  joint_state(sim, "right_joint", &qr, &vr);
  assert_true(fabs(ql - qr) <= 1e-14 && ql != ql2);
  hg_sim_free(sim);
  hg_scene_free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(fingers_move_as_one_dof),
                                     cmocka_unit_test(locking_the_leader_stops_both)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
