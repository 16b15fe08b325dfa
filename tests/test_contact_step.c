/* test_contact_step.c: the contact element's step bound and the pairs it leaves out.
 *  - the step bound follows the relative motion of the bodies it could bring into contact: an
 *    undock and re-dock takes the same steps at rest and in a 7.67 km/s orbit (central gravity);
 *  - parent and child: a contact element that names the two alone on its sides acts between them
 *    once the joint between them is released (the heat-shield pattern, undock with detach: false),
 *    and stops again when that joint is locked; an element whose sides list them among others
 *    leaves them out; each case is said by a note at load or in the event log. */
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

#include "files.h"
#include "sims.h"

/* ---- the step bound in orbit ---- */

/* A 2000 kg servicer and a 1000 kg client docked by a locked free joint at 6771 km from a
 * point-mass Earth, the client carrying a 2 mm panel on its far face (the thinnest shape, which
 * sets the bound), given the common velocity vy. The latch opens at 0.5 s with a push of 50 N s,
 * a push of -100 N s at 4 s brings the client back and the ports capture it again. */
static hg_scene *redock_scene(const char *dir, const char *name, double vy) {
  char text[4096];
  snprintf(text, sizeof text,
           "gravity: [0, 0, 0]\n"
           "bodies:\n"
           "  - name: servicer\n"
           "    joint: free\n"
           "    inertia: {mass: 2000, inertia: [1500, 1800, 1200]}\n"
           "    geometry: [{type: box, size: [2, 2, 2], collision: true}]\n"
           "    markers: [{name: servicer_port, pos: [0, 0, 1], port: latch}]\n"
           "  - name: client\n"
           "    parent: servicer\n"
           "    joint: {type: free, name: latch, pos: [0, 0, 2]}\n"
           "    inertia: {mass: 1000, inertia: [600, 600, 500]}\n"
           "    geometry:\n"
           "      - {type: box, size: [2, 2, 2], collision: true}\n"
           "      - {type: box, size: [1, 1, 0.002], pos: [0, 0, 1.001], collision: true}\n"
           "    markers:\n"
           "      - {name: client_port, pos: [0, 0, -1], rpy_deg: [180, 0, 0], port: latch}\n"
           "forces:\n"
           "  - {name: earth, type: central_gravity, mu: 3.986004418e14}\n"
           "  - {name: bump, type: contact, between: [servicer, client], stiffness: 1e7,\n"
           "     restitution: 0.5, impact_speed: 0.05}\n"
           "initial:\n"
           "  bodies:\n"
           "    servicer: {pos: [6771000, 0, 0], twist: [0, 0, 0, 0, %.17g, 0]}\n"
           "modes: {latch: locked}\n"
           "capture:\n"
           "  - {ports: [servicer_port, client_port], position_tol: 0.005, speed_tol: 0.5,\n"
           "     joint: redock}\n"
           "events:\n"
           "  - {name: undock, at: 0.5, do: [{undock: {joint: latch, detach: true}},\n"
           "                                 {impulse: {body: client, linear: [0, 0, 50]}}]}\n"
           "  - {name: return, at: 4, do: [{impulse: {body: client, linear: [0, 0, -100]}}]}\n"
           "integrator: {method: cvode-adams, rtol: 1e-8}\n"
           "time: {start: 0, end: 8}\n"
           "output: {dt: 0.1}\n",
           vy);
  return hg_test_scene_text(dir, name, text);
}

/* steps taken so far */
static long steps_of(const hg_sim *sim) {
  hg_integ_stats st;
  hg_sim_stats(sim, &st);
  return st.steps;
}

/* runs s to its end in 0.1 s stretches, failing once it takes more than max_steps (a bound that
 * follows the common orbital speed would take millions); the steps and the capture's time */
static long run_counting(const hg_scene *s, long max_steps, double *t_capture) {
  hg_sim *sim = hg_test_sim(s, NAN, NULL);
  for (int k = 1; k <= 80; k++) {
    assert_int_equal(hg_sim_run(sim, 0.1 * k), HG_SIM_OK);
    if (steps_of(sim) > max_steps)
      fail_msg("%ld steps by t = %.1f s (more than %ld)", steps_of(sim), 0.1 * k, max_steps);
  }
  *t_capture = NAN;
  for (int k = 0; k < hg_sim_nevents(sim); k++)
    if (strcmp(hg_sim_event_at(sim, k)->name, "capture") == 0) *t_capture = hg_sim_event_at(sim, k)->t;
  long n = steps_of(sim);
  hg_sim_free(sim);
  return n;
}

/* The same relative motion at rest and at the circular speed 7672.6 m/s: the contact bound acts
 * on the relative speed of the pair (0.075 m/s apart, then 0.075 m/s back) and takes the same
 * steps in both. Measured: 424 steps at rest, 433 in orbit; the bound of absolute speeds took
 * 556,448 steps at rest (the fall reaches 70 m/s) and did not reach the end in 300 s of wall
 * time in orbit. The 10% allowed is CVODE's own step control, which sees the orbit's curvature
 * while the two are docked (38 steps at rest, 44 in orbit for this scene over 10 s without the
 * contact element, its panel and its undock at 1 s); both runs capture at the same instant to
 * 1e-6 s (measured 2.6e-8 s apart: the capture root's tolerance). */
static void orbit_takes_the_steps_of_rest(void **state) {
  (void)state;
  char dir[256];
  double tc_rest, tc_orbit;
  assert_int_equal(hg_test_temp_dir("contact_step_orbit", dir, sizeof dir), 0);
  hg_scene *rest = redock_scene(dir, "rest.yaml", 0);
  hg_scene *orbit = redock_scene(dir, "orbit.yaml", 7672.598648385013);
  long n_rest = run_counting(rest, 5000, &tc_rest);
  long n_orbit = run_counting(orbit, 2 * n_rest, &tc_orbit);
  printf("# undock and re-dock: %ld steps at rest, %ld at 7.67 km/s; capture at %.9f and %.9f s\n",
         n_rest, n_orbit, tc_rest, tc_orbit);
  assert_true(isfinite(tc_rest) && fabs(tc_orbit - tc_rest) < 1e-6);
  assert_true(labs(n_orbit - n_rest) <= n_rest / 10);
  hg_scene_free(rest);
  hg_scene_free(orbit);
  hg_test_remove_dir(dir);
}

/* ---- parent and child ---- */

/* The heat-shield pattern in free fall at 64 m/s: a 3000 kg capsule (a cone standing on its base
 * at its origin) and its 300 kg shield (a 0.2 m disc under it), the shield the capsule's child on
 * the locked free joint 'separation'. At 0.2 s the joint is freed without detaching (undock,
 * detach: false) and a 300 N s push sends the shield up into the capsule at 1 m/s; contact is
 * between the sides given; extra events follow. */
static hg_scene *shield_scene(const char *dir, const char *between, const char *events) {
  char text[4096];
  snprintf(text, sizeof text,
           "gravity: [0, 0, 0]\n"
           "bodies:\n"
           "  - name: capsule\n"
           "    joint: free\n"
           "    inertia: {mass: 3000, com: [0, 0, 1.0], inertia: [4000, 4000, 5000]}\n"
           "    geometry: [{type: cone, radius: 1.75, height: 2.4, collision: true}]\n"
           "  - name: shield\n"
           "    parent: capsule\n"
           "    joint: {type: free, name: separation}\n"
           "    inertia: {mass: 300, com: [0, 0, -0.1], inertia: [220, 220, 430]}\n"
           "    geometry: [{type: cylinder, radius: 1.75, length: 0.2, pos: [0, 0, -0.1],\n"
           "                collision: true}]\n"
           "  - name: probe\n"
           "    joint: free\n"
           "    inertia: {mass: 1, inertia: [0.01, 0.01, 0.01]}\n"
           "    geometry: [{type: sphere, radius: 0.1, collision: true}]\n"
           "forces:\n"
           "  - {name: guard, type: contact, between: %s, stiffness: 1e7, restitution: 0.5,\n"
           "     impact_speed: 1}\n"
           "initial:\n"
           "  bodies:\n"
           "    capsule: {pos: [0, 0, 2000], twist: [0, 0, 0, 0, 0, -64]}\n"
           "    probe: {pos: [10, 0, 2000], twist: [0, 0, 0, 0, 0, -64]}\n"
           "modes: {separation: locked}\n"
           "events:\n"
           "  - {name: release, at: 0.2, do: [{undock: {joint: separation, detach: false}},\n"
           "                                  {impulse: {body: shield, linear: [0, 0, 300]}}]}\n"
           "%s"
           "integrator: {method: cvode-bdf, rtol: 1e-8}\n"
           "time: {start: 0, end: 1.5}\n"
           "output: {dt: 0.01}\n",
           between, events);
  return hg_test_scene_text(dir, "shield.yaml", text);
}

/* shield_scene with what its loading wrote on stderr (its notes) into notes[0..len) */
static hg_scene *with_notes(const char *dir, const char *between, const char *events,
                            char *notes, size_t len) {
  char path[512];
  snprintf(path, sizeof path, "%s/notes.txt", dir);
  fflush(stderr);
  int saved = dup(2), fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  assert_true(saved >= 0 && fd >= 0);
  dup2(fd, 2);
  close(fd);
  hg_scene *s = shield_scene(dir, between, events);
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  size_t n = fread(notes, 1, len - 1, f);
  notes[n] = 0;
  fclose(f);
  printf("%s", notes);
  return s;
}

/* the details of the event named name, or fails */
static const char *details_of(const hg_sim *sim, const char *name) {
  for (int k = 0; k < hg_sim_nevents(sim); k++)
    if (strcmp(hg_sim_event_at(sim, k)->name, name) == 0) {
      printf("# %s: %s\n", name, hg_sim_event_at(sim, k)->details);
      return hg_sim_event_at(sim, k)->details;
    }
  fail_msg("no event '%s'", name);
  return NULL;
}

/* the shield's origin in the capsule's frame (z: up from the separation plane) and its velocity
 * along the capsule's axis relative to the capsule */
static void shield_in_capsule(hg_sim *sim, double *z, double *vz) {
  const hg_model *m = hg_sim_model(sim);
  hg_se3 Tc, Ts;
  double tc[6], ts[6];
  hg_sim_body(sim, hg_model_body(m, "capsule"), &Tc, tc);
  hg_sim_body(sim, hg_model_body(m, "shield"), &Ts, ts);
  *z = Ts.p[2] - Tc.p[2];
  *vz = ts[5] - tc[5];
}

/* Named alone on the two sides, the shield and the capsule touch once the latch is free: the
 * shield pushed up at 1 m/s strikes the capsule's base face and bounces back down at 0.5 m/s
 * relative (restitution 0.5 at 1 m/s; measured 0.50000). Without contact between
 * them it passes through: 1.3 m into the capsule by 1.5 s. The load note says the pair is left
 * out while the joint is locked, the release says it is tested again, and locking the joint
 * again at 1.2 s says it is left out again. */
static void named_pair_touches_after_release(void **state) {
  (void)state;
  char dir[256], notes[4096];
  double z, vz;
  assert_int_equal(hg_test_temp_dir("contact_step_named", dir, sizeof dir), 0);
  hg_scene *s = with_notes(dir, "[capsule, shield]",
                           "  - {name: relock, at: 1.2, do: [{set_mode: {joint: separation, "
                           "mode: locked}}]}\n", notes, sizeof notes);
  assert_non_null(strstr(notes, "shield.yaml:18:5: note: contact 'guard': 'shield' and its "
                                "parent 'capsule' touch only while joint 'separation' is not "
                                "locked"));
  hg_sim *sim = hg_test_sim(s, 1.1, NULL);
  assert_int_equal(hg_sim_run(sim, INFINITY), HG_SIM_OK);
  shield_in_capsule(sim, &z, &vz);
  printf("# named pair: shield at z = %.4f m in the capsule frame, moving at %.4f m/s\n", z, vz);
  /* below the separation plane, moving away at the restitution's speed (1e-3: the law's
   * restitution is that of a one-dimensional impact, test_contact's closed form; the strike
   * here is flat and central, so only round-off of the contact point's place can turn it) */
  assert_true(z < 0 && fabs(vz + 0.5) < 1e-3);
  assert_non_null(strstr(details_of(sim, "release"), "contact guard tests shield and capsule again"));
  hg_sim_free(sim);
  sim = hg_test_sim(s, NAN, NULL);
  assert_int_equal(hg_sim_run(sim, INFINITY), HG_SIM_OK);
  assert_non_null(strstr(details_of(sim, "relock"),
                         "contact guard leaves out shield and its parent capsule (joint "
                         "separation locked)"));
  hg_sim_free(sim);
  hg_scene_free(s);
  hg_test_remove_dir(dir);
}

/* Listed among other bodies (a side [capsule, probe]), the shield and its parent are left out:
 * the shield passes into the capsule, and the load note says so and how to name the pair. */
static void listed_pair_is_left_out_with_a_note(void **state) {
  (void)state;
  char dir[256], notes[4096];
  double z, vz;
  assert_int_equal(hg_test_temp_dir("contact_step_listed", dir, sizeof dir), 0);
  hg_scene *s = with_notes(dir, "[[capsule, probe], shield]", "", notes, sizeof notes);
  assert_non_null(strstr(notes, "shield.yaml:18:5: note: contact 'guard': 'shield' and its "
                                "parent 'capsule' (joint 'separation') never touch through it"));
  assert_non_null(strstr(notes, "'between: [capsule, shield]' would test them"));
  hg_sim *sim = hg_test_sim(s, NAN, NULL);
  assert_int_equal(hg_sim_run(sim, INFINITY), HG_SIM_OK);
  shield_in_capsule(sim, &z, &vz);
  printf("# listed pair: shield at z = %.4f m in the capsule frame\n", z);
  /* 1 m/s for 1.3 s (1.3 m), to CVODE's error at rtol 1e-8 on positions 2 km from the origin
   * (2e-5 m) */
  assert_true(fabs(z - 1.3) < 1e-4);
  assert_null(strstr(details_of(sim, "release"), "contact guard"));
  hg_sim_free(sim);
  hg_scene_free(s);
  hg_test_remove_dir(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(orbit_takes_the_steps_of_rest),
      cmocka_unit_test(named_pair_touches_after_release),
      cmocka_unit_test(listed_pair_is_left_out_with_a_note),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
