/* test_invariant_checks.c: the energy budget and the momentum drift of a run (sim/runtime/budget.c)
 * never cry wolf on a valid run, and do flag a run that genuinely drifts.
 *
 *  - scenes/servicing_arm.yaml: a floating bus whose arm follows prescribed minimum-jerk moves from
 *    rest. Its total momentum is zero throughout and its energy starts at zero, so a drift taken
 *    relative to the total momentum or to the first rows' energy reads order one; relative to the
 *    run's peak of the bodies' summed momenta (and the energy scale it reaches) it is the
 *    integrator's, far below 1e-6 at rtol 1e-10.
 *  - the same run with a 1-s thrust window on the bus, and with a thruster fired for 1 s: two
 *    isolated stretches, before and after the window, each checked against its own start.
 *  - the same run at 7.7 km/s: the position's integration error turns r x p about the world
 *    origin, and is measured against |r| |p|, not |r x p|.
 *  - the same run integrated by Lie-Euler at a 20 ms step: its momentum and energy do drift, and
 *    both checks say so. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "files.h"
#include "sims.h"

/* the arm of scenes/servicing_arm.yaml (which servicing_arm_from_rest runs as shipped), with extra
 * keys appended */
static const char arm_text[] =
    "gravity: [0, 0, 0]\n"
    "bodies:\n"
    "  - {name: bus, joint: free, inertia: {mass: 1200, inertia: [900, 1000, 800]}}\n"
    "  - {name: shoulder, parent: bus, joint: {type: revolute, name: j1, axis: [0, 0, 1],\n"
    "     pos: [0.8, 0, 0.8]}, inertia: {mass: 8, com: [0, 0, 0.1], inertia: [0.04, 0.04, 0.03]}}\n"
    "  - {name: upper_arm, parent: shoulder, joint: {type: revolute, name: j2, axis: [0, 1, 0],\n"
    "     pos: [0, 0, 0.2]}, inertia: {mass: 14, com: [0.75, 0, 0], inertia: [0.03, 2.6, 2.6]}}\n"
    "  - {name: forearm, parent: upper_arm, joint: {type: revolute, name: j3, axis: [0, 1, 0],\n"
    "     pos: [1.5, 0, 0]}, inertia: {mass: 10, com: [0.75, 0, 0], inertia: [0.02, 1.9, 1.9]}}\n"
    "  - {name: payload, parent: forearm, joint: {type: fixed, name: grasp, pos: [1.8, 0, 0]},\n"
    "     inertia: {mass: 60, inertia: [3.6, 3.6, 3.6]}}\n"
    "modes:\n"
    "  j1: {profile: {type: move, target: [1.2], duration: 8}}\n"
    "  j2: {profile: {type: move, target: [-0.7], duration: 8}}\n"
    "  j3: {profile: {type: move, target: [1.4], duration: 8}}\n"
    "time: {start: 0, end: 10}\n"
    "output: {dt: 0.01}\n";

/* the run of arm_text followed by extra (its scene in *sc) */
static hg_sim *run_arm(const char *tag, const char *extra, hg_scene **sc) {
  char dir[256], *text = malloc(sizeof arm_text + strlen(extra));
  assert_non_null(text);
  strcpy(text, arm_text);
  strcat(text, extra);
  hg_scene *s = hg_test_scene_temp(tag, "arm.yaml", text, dir, sizeof dir);
  free(text);
  *sc = s;
  hg_sim *sim = hg_test_sim(s, NAN, NULL);
  assert_int_equal(hg_sim_run(sim, INFINITY), HG_SIM_OK);
  return sim;
}

static void report(const char *label, hg_sim *sim) {
  hg_sim_budget b;
  hg_sim_get_budget(sim, &b);
  const hg_sim_momentum_track *mt = hg_sim_momentum_drift(sim);
  printf("# %s: energy drift %.3g (scale %.4g J); momentum drift %.3g: |dL| %.3g of %.4g N m s "
         "(stretch %g to %g s), |dp| %.3g of %.4g N s (stretch %g to %g s); %d stretch(es)\n",
         label, b.max_drift, b.scale, mt->drift, mt->worst_abs[0], mt->scale[0],
         mt->worst_from[0], mt->worst_to[0], mt->worst_abs[1], mt->scale[1], mt->worst_from[1],
         mt->worst_to[1], mt->nstretch);
}

/* Integration at rtol 1e-10 leaves errors of ~1e-9 of what the bodies carry (measured: energy
 * 8.5e-10, momentum 8.4e-9): 1e-6 is two orders above that and orders below a real leak. */
#define VALID 1e-6

static void servicing_arm_from_rest(void **state) {
  (void)state;
  hg_scene *s = hg_test_shipped("servicing_arm");
  hg_sim *sim = hg_test_sim(s, NAN, NULL);
  assert_int_equal(hg_sim_run(sim, INFINITY), HG_SIM_OK);
  report("servicing_arm", sim);
  hg_sim_budget b;
  hg_sim_get_budget(sim, &b);
  const hg_sim_momentum_track *mt = hg_sim_momentum_drift(sim);
  assert_true(b.max_drift < VALID);
  assert_int_equal(mt->nstretch, 1);
  assert_true(mt->drift < VALID);
  /* the bodies do carry momentum: the scale is the arm's and the bus's, not zero */
  assert_true(mt->scale[0] > 10 && mt->scale[1] > 10);
  hg_sim_free(sim);
  hg_scene_free(s);
}

/* The same arm flying at 7.7 km/s (a free-floating frame, gravity off): its trees' roots travel
 * 77 km along their own velocity, so each body's |r x p| about the world origin stays that of the
 * arm's offsets (~1e6 N m s) while an integration error of the position, ~ rtol of 77 km, turns
 * r x p by 1e7 N s times it. The check measures it against |r| |p| (budget.c): 2.8e-7, the
 * integrator's at the scene's default rtol (its energy drift: 4.2e-7). Against the bodies' |L_i|
 * it read 0.12 (|dL| 2.1e5 of 1.7e6 N m s), flagging a valid run. */
static void orbital_speed(void **state) {
  (void)state;
  hg_scene *s;
  hg_sim *sim = run_arm("orbit", "initial:\n  joints:\n    bus: {v: [0, 0, 0, 7700, 0, 0]}\n", &s);
  report("arm at 7.7 km/s", sim);
  const hg_sim_momentum_track *mt = hg_sim_momentum_drift(sim);
  assert_int_equal(mt->nstretch, 1);
  assert_true(mt->drift < VALID);
  /* the bodies carry 1292 kg at 7.7 km/s: 9.95e6 N s */
  assert_true(mt->scale[1] > 9e6);
  hg_sim_free(sim);
  hg_scene_free(s);
}

/* A thrust element on the bus from 2 s to 3 s: isolated before and after, not during. The step
 * that lands on t_on evaluates the force at t_on, where the window [t_on, t_off) is already on,
 * so the state at 2 s carries a sliver of its impulse (measured at 50 N: |dp| 9.9e-5 N s, 2e-6 s
 * worth, 8.8e-7 of the bodies' momentum); the check counts it, rightly, in the first stretch. At
 * 10 N it stays below the integration error of the stretch after the window (measured: the
 * worst is |dL| 6.7e-6 N m s of 196 in [3, 10] s, a drift of 3.9e-8). */
static void thrust_window(void **state) {
  (void)state;
  hg_scene *sc;
  hg_sim *sim = run_arm("thrust_window", "integrator: {rtol: 1e-10}\n"
                        "forces:\n  - {name: kick, type: thrust, body: bus, force: [10, 0, 0],\n"
                        "     torque: [0, 0, 4], t_on: 2, t_off: 3}\n", &sc);
  report("thrust window", sim);
  const hg_sim_momentum_track *mt = hg_sim_momentum_drift(sim);
  assert_int_equal(mt->nstretch, 2);
  assert_true(mt->drift < VALID);
  /* the worst stretch is one of the two: [0, 2] or [3, 10] */
  for (int k = 0; k < 2; k++)
    assert_true((mt->worst_from[k] == 0 && mt->worst_to[k] == 2) ||
                (mt->worst_from[k] == 3 && mt->worst_to[k] == 10));
  hg_sim_free(sim);
  hg_scene_free(sc);
}

/* a thruster on the bus fired for 1 s at t = 2 s by an actuate action */
static void thruster_firing(void **state) {
  (void)state;
  hg_scene *sc;
  hg_sim *sim = run_arm("thruster_firing", "integrator: {rtol: 1e-10}\n"
                        "actuators:\n  - {name: thr, type: thruster, body: bus, position: [0, 0.8, 0],\n"
                        "     direction: [1, 0, 0], thrust: 40}\n"
                        "events:\n  - {name: fire, at: 2, do: [{actuate: {actuator: thr, "
                        "command: [1, 1]}}]}\n", &sc);
  report("thruster firing", sim);
  const hg_sim_momentum_track *mt = hg_sim_momentum_drift(sim);
  assert_int_equal(mt->nstretch, 2);
  assert_true(mt->drift < VALID);
  /* the last stretch begins where the valve closes */
  assert_true(fabs(mt->t0 - 3) < 1e-12);
  hg_sim_free(sim);
  hg_scene_free(sc);
}

/* Lie-Euler at 20 ms: first order, so its errors are of order h = 0.02 of the motion's scale per
 * unit time (measured: momentum ~3e-4, energy ~1e-4 of their scales); both checks flag it, far
 * above the valid run's 1e-6 */
static void drifting_run_flagged(void **state) {
  (void)state;
  hg_scene *sc;
  hg_sim *sim = run_arm("drifting", "integrator: {method: lie-euler, step: 0.02}\n", &sc);
  report("lie-euler 20 ms", sim);
  hg_sim_budget b;
  hg_sim_get_budget(sim, &b);
  const hg_sim_momentum_track *mt = hg_sim_momentum_drift(sim);
  assert_int_equal(mt->nstretch, 1);
  assert_true(mt->drift > 1e-5);
  assert_true(b.max_drift > 1e-5);
  hg_sim_free(sim);
  hg_scene_free(sc);
}

/* path's record `word ...` cut to its first n numbers, in place */
static void cut_record(const char *path, const char *word, int n) {
  size_t len, wl = strlen(word);
  char *text = hg_test_read_file(path, &len);
  assert_non_null(text);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  for (char *p = text; *p;) {
    size_t l = strcspn(p, "\n");
    if (!strncmp(p, word, wl) && p[wl] == ' ') {
      /* the word, then n numbers: up to the (n + 1)-th space */
      size_t k = wl;
      for (int sp = 0; k < l; k++)
        if (p[k] == ' ' && ++sp == n + 1) break;
      fwrite(p, 1, k, f);
    } else {
      fwrite(p, 1, l, f);
    }
    fputc('\n', f);
    p += l + (p[l] == '\n');
  }
  fclose(f);
  free(text);
}

/* A run with the thruster, resumed from its checkpoint at 5 s: the resumed run keeps the scale
 * and the worst drifts found before (the stretch from 3 s is then checked from 5 s, so its drift
 * can only be smaller), a checkpoint of the older format (a momentum record of 7 numbers, a
 * budget record of 6) still resumes, its drift kept as a floor (its scale is lost: the resumed
 * run measures against the peaks it sees from 5 s on). */
static void resumed_keeps_drift(void **state) {
  (void)state;
  char dir_a[256], dir_b[64], ck[300];
  hg_error err;
  static const char thr[] =
      "integrator: {rtol: 1e-10}\n"
      "actuators:\n  - {name: thr, type: thruster, body: bus, position: [0, 0.8, 0],\n"
      "     direction: [1, 0, 0], thrust: 40}\n"
      "events:\n  - {name: fire, at: 2, do: [{actuate: {actuator: thr, command: [1, 1]}}]}\n";
  char *text = malloc(sizeof arm_text + sizeof thr);
  assert_non_null(text);
  strcpy(text, arm_text);
  strcat(text, thr);
  hg_scene *s = hg_test_scene_temp("resume_drift", "arm.yaml", text, dir_a, sizeof dir_a);
  free(text);
  hg_sim *a = hg_test_sim_ck(s, 0, dir_a, 1);
  assert_int_equal(hg_sim_run(a, INFINITY), HG_SIM_OK);
  hg_sim_momentum_track ta = *hg_sim_momentum_drift(a);
  hg_sim_budget ba;
  hg_sim_get_budget(a, &ba);
  snprintf(ck, sizeof ck, "%s/checkpoint-0005.txt", dir_a);
  for (int old = 0; old < 2; old++) {
    if (old) {
      cut_record(ck, "momentum", 7);
      cut_record(ck, "budget", 6);
    }
    assert_int_equal(0, hg_test_temp_dir("resume_drift_b", dir_b, sizeof dir_b));
    hg_sim *b = hg_test_sim_ck(s, 0, dir_b, 0);
    if (hg_sim_resume(b, ck, &err)) fail_msg("%s", err.msg);
    assert_int_equal(hg_sim_run(b, INFINITY), HG_SIM_OK);
    const hg_sim_momentum_track *tb = hg_sim_momentum_drift(b);
    hg_sim_budget bb;
    hg_sim_get_budget(b, &bb);
    printf("# resumed at 5 s%s: momentum drift %.3g (whole run %.3g), scale %.6g %.6g "
           "(%.6g %.6g); energy drift %.3g (%.3g)\n", old ? " (older format)" : "", tb->drift,
           ta.drift, tb->scale[0], tb->scale[1], ta.scale[0], ta.scale[1], bb.max_drift,
           ba.max_drift);
    assert_true(tb->drift < VALID && bb.max_drift < VALID);
    if (old) {
      /* the floor: what the checkpoint carried */
      assert_true(tb->drift >= tb->drift_before && tb->drift_before > 0);
    } else {
      assert_true(tb->drift <= ta.drift * (1 + 1e-9));
      /* the same trajectory: the same peaks and the worst |dL|, |dp| of the stretches before */
      assert_true(fabs(tb->scale[0] - ta.scale[0]) <= 1e-12 * ta.scale[0]);
      assert_true(fabs(tb->scale[1] - ta.scale[1]) <= 1e-12 * ta.scale[1]);
      assert_true(tb->worst_abs[0] > 0 && tb->worst_abs[1] > 0);
    }
    hg_sim_free(b);
    hg_test_remove_dir(dir_b);
  }
  hg_sim_free(a);
  hg_scene_free(s);
  hg_test_remove_dir(dir_a);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(servicing_arm_from_rest),
      cmocka_unit_test(orbital_speed),
      cmocka_unit_test(thrust_window),
      cmocka_unit_test(thruster_firing),
      cmocka_unit_test(drifting_run_flagged),
      cmocka_unit_test(resumed_keeps_drift),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
