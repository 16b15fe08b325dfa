/* test_stops.c: end stops (sim/runtime/stops.c) against closed forms. A link on a revolute joint
 * limited to [-0.5, 0.5] rad, in zero gravity:
 *  - spinning at 2 rad/s from 0 it hits the upper stop at t = 0.25 s exactly, and the plastic
 *    impact removes all its kinetic energy, I w^2 / 2;
 *  - held there, it is released the instant a spring that pulls it the other way is switched on
 *    (t = 1 s), swings as a harmonic oscillator q = -1 + 1.5 cos(w (t - 1)) and hits the lower
 *    stop when q = -0.5, at t = 1 + acos(1/3) / w, where the spring then holds it;
 *  - the energy budget closes across all of it. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "files.h"
#include "sims.h"

static const char scene_text[] =
    "gravity: [0, 0, 0]\n"
    "bodies:\n"
    "  - name: panel\n"
    "    joint: {type: revolute, name: hinge, axis: [0, 0, 1], limits: {lower: -0.5, upper: 0.5}}\n"
    "    inertia: {mass: 2, com: [0.5, 0, 0], inertia: [0.01, 0.1, 0.1]}\n"
    "forces:\n"
    "  - {name: back, type: joint_spring, joint: hinge, stiffness: 3, rest: [-1], enabled: false}\n"
    "initial:\n"
    "  joints: {hinge: {q: [0], v: [2]}}\n"
    "events:\n"
    "  - {name: pull_back, at: 1, do: [{enable: back}]}\n"
    "integrator: {method: cvode-adams, rtol: 1e-11}\n"
    "time: {start: 0, end: 3}\n"
    "output: {dt: 0.01}\n";

static void stops_hold_and_release(void **state) {
  (void)state;
  char dir[256];
  assert_int_equal(hg_test_temp_dir("stops", dir, sizeof dir), 0);
  hg_scene *s = hg_test_scene_text(dir, "panel.yaml", scene_text);
  hg_sim *sim = hg_test_sim(s, NAN, NULL);
  assert_int_equal(hg_sim_run(sim, INFINITY), HG_SIM_OK);
  /* the inertia about the hinge axis: I_zz + m c^2 = 0.1 + 2 * 0.25 */
  const double I = 0.6, w = sqrt(3 / I), t_low = 1 + acos(1.0 / 3) / w;
  const double times[] = {0.25, 1, 1, t_low};
  const char *what[] = {"hits its upper stop", "enable back", "leaves its upper stop",
                        "hits its lower stop"};
  int n = hg_sim_nevents(sim);
  for (int k = 0; k < n; k++)
    printf("# %.12g %s: %s (removed %.9g J)\n", hg_sim_event_at(sim, k)->t,
           hg_sim_event_at(sim, k)->name, hg_sim_event_at(sim, k)->details,
           hg_sim_event_at(sim, k)->e_lock);
  assert_int_equal(n, 4);
  for (int k = 0; k < 4; k++) {
    const hg_sim_event *ev = hg_sim_event_at(sim, k);
    assert_non_null(strstr(ev->details, what[k]));
    /* root finding: ~1e-14 (|t| + h) s on the free swing; the harmonic swing is integrated at
     * rtol 1e-11, which puts its impact time within ~1e-9 s */
    if (!(fabs(ev->t - times[k]) <= 1e-8)) fail_msg("%s at %.12g s, expected %.12g", what[k], ev->t, times[k]);
  }
  /* the first impact removes all the kinetic energy: I w0^2 / 2 = 1.2 J */
  assert_true(fabs(hg_sim_event_at(sim, 0)->e_lock - 0.5 * I * 4) <= 1e-12);
  /* held at the lower stop by the spring at the end */
  const hg_model *m = hg_sim_model(sim);
  hg_sim_joint_view jv;
  hg_sim_joint(sim, hg_model_joint(m, "hinge"), &jv);
  assert_int_equal(jv.mode, HG_MODE_LOCKED);
  assert_true(fabs(jv.q[0] + 0.5) <= 1e-8);
  /* the stop holds the spring's torque k (q - rest) = 3 * 0.5 */
  assert_true(fabs(jv.load[0] - 1.5) <= 1e-9);
  hg_sim_budget b;
  hg_sim_get_budget(sim, &b);
  assert_true(fabs(b.value - b.initial) <= 1e-8 * b.scale);
  hg_sim_free(sim);
  hg_scene_free(s);
  hg_test_remove_dir(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(stops_hold_and_release)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
