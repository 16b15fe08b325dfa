/* test_contact_step.c: the pairs the contact element leaves out.
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
      cmocka_unit_test(named_pair_touches_after_release),
      cmocka_unit_test(listed_pair_is_left_out_with_a_note),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
