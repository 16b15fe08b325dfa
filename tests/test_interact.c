/* test_interact.c: the runtime's interaction pieces (sim.h: set, perturb and release commands,
 * previews, ghosts, the docking gauge), each against what actually happens when the command is
 * applied:
 *  - a lock preview gives the energy and the velocities of the lock that follows, to round-off;
 *  - every mode switch's preview (lock of several joints, hold, free, a prescribed move) is what
 *    its commit does: velocities, impulses and energy, and the preview changes nothing; a hold
 *    removes nothing where the lock of the same joint removes energy;
 *  - the gauge's plastic loss of two ports is the energy the attach that follows removes;
 *  - ghosts at q (+) eps delta sit where a 'set' of that configuration puts the bodies;
 *  - a pull (perturb) adds its work to the energy budget, which still closes; moving its target
 *    is an event whose work is booked; release ends it;
 *  - set refuses a prescribed joint and a moving locked one. */
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
#include "sims.h"

static void lock_preview_matches_the_lock(void **state) {
  (void)state;
  hg_scene *s;
  hg_sim *sim = hg_test_shipped_at("freeze_thaw", 3, 0.4, &s);
  const hg_model *m = hg_sim_model(sim);
  hg_command c;
  hg_error err;
  hg_sim_preview_view pv;
  if (hg_sim_parse_command(sim, "lock a2 b2 c2", &c, &err)) fail_msg("%s", err.msg);
  assert_int_equal(hg_sim_preview(sim, &c, &pv), 0);
  double *v0 = malloc((size_t)m->nv * sizeof(double)), *dv = malloc((size_t)m->nv * sizeof(double));
  memcpy(v0, hg_sim_v(sim), (size_t)m->nv * sizeof(double));
  memcpy(dv, pv.dv, (size_t)m->nv * sizeof(double));
  double e = pv.energy_removed;
  assert_int_equal(hg_sim_command(sim, &c), HG_SIM_OK);
  const hg_sim_event *ev = hg_sim_event_at(sim, hg_sim_nevents(sim) - 1);
  double err_v = 0, sv = 0;
  for (int k = 0; k < m->nv; k++) {
    err_v = fmax(err_v, fabs(hg_sim_v(sim)[k] - (v0[k] + dv[k])));
    sv = fmax(sv, fabs(v0[k]));
  }
  /* the preview and the lock are the same impulse computed twice (plastic lock vs the
   * impulsive hybrid step): round-off of each, ~1e-15 relative */
  if (!(err_v <= 1e-13 * sv)) fail_msg("velocities after the lock differ by %g", err_v);
  if (!(fabs(e - ev->e_lock) <= 1e-12 * ev->e_lock)) fail_msg("energy %g vs %g", e, ev->e_lock);
  printf("# lock preview: %.9g J removed, the lock removed %.9g J\n", e, ev->e_lock);
  hg_command_free(&c);
  free(v0);
  free(dv);
  hg_sim_free(sim);
  hg_scene_free(s);
}

/* the kinetic energy of the simulation's state */
static void kinetic(hg_sim *sim, double *ke, double *pe) {
  const hg_model *m = hg_sim_model(sim);
  hg_data *d = hg_data_new(m);
  assert_non_null(d);
  hg_energy(m, d, hg_sim_q(sim), hg_sim_v(sim), ke, pe);
  hg_data_free(d);
}

/* the preview of text on sim, then its commit: the velocities after and the energy removed agree;
 * the energy the preview says is removed */
static double preview_then_commit(hg_sim *sim, const char *text) {
  const hg_model *m = hg_sim_model(sim);
  hg_command c;
  hg_error err;
  hg_sim_preview_view pv;
  if (hg_sim_parse_command(sim, text, &c, &err)) fail_msg("%s", err.msg);
  size_t nv = (size_t)m->nv;
  double *v0 = malloc(nv * sizeof(double)), *dv = malloc(nv * sizeof(double));
  double *q0 = malloc((size_t)m->nq * sizeof(double));
  memcpy(v0, hg_sim_v(sim), nv * sizeof(double));
  memcpy(q0, hg_sim_q(sim), (size_t)m->nq * sizeof(double));
  assert_int_equal(hg_sim_preview(sim, &c, &pv), 0);
  /* the preview changed nothing */
  assert_memory_equal(hg_sim_v(sim), v0, nv * sizeof(double));
  assert_memory_equal(hg_sim_q(sim), q0, (size_t)m->nq * sizeof(double));
  memcpy(dv, pv.dv, nv * sizeof(double));
  double e = pv.energy_removed, ke0, ke1, pe;
  kinetic(sim, &ke0, &pe);
  assert_int_equal(hg_sim_command(sim, &c), HG_SIM_OK);
  kinetic(sim, &ke1, &pe);
  double err_v = 0, sv = 1e-300;
  for (size_t k = 0; k < nv; k++) {
    err_v = fmax(err_v, fabs(hg_sim_v(sim)[k] - (v0[k] + dv[k])));
    sv = fmax(sv, fabs(v0[k]));
  }
  /* the same functions ran twice on the same numbers: bit for bit */
  printf("# '%s': preview removes %.9g J, the commit %.9g J; velocities differ by %.3g\n", text, e,
         ke0 - ke1, err_v);
  assert_true(err_v == 0);
  assert_true(e == ke0 - ke1);
  hg_command_free(&c);
  free(v0), free(dv), free(q0);
  return e;
}

static void every_preview_is_its_commit(void **state) {
  (void)state;
  hg_scene *s;
  hg_sim *sim = hg_test_shipped_at("freeze_thaw", 3, 0.4, &s);
  /* a hold keeps the joint's velocity: nothing removed, where the lock of it removes energy */
  double hold = preview_then_commit(sim, "prescribe a1");
  assert_true(hold == 0);
  assert_int_equal(hg_sim_run(sim, 0.6), HG_SIM_OK);
  double lock = preview_then_commit(sim, "lock a1 b2 c2");
  assert_true(lock > 0);
  assert_int_equal(hg_sim_run(sim, 0.8), HG_SIM_OK);
  assert_true(preview_then_commit(sim, "free a1 b2") == 0);
  assert_int_equal(hg_sim_run(sim, 1.0), HG_SIM_OK);
  preview_then_commit(sim, "prescribe b2 {type: velocity, velocity: [0.5]}");
  hg_sim_free(sim);
  hg_scene_free(s);
}

static void gauge_loss_is_the_capture_loss(void **state) {
  (void)state;
  /* dock.yaml: a chaser closes on a target; capture happens later, attach it by hand now */
  hg_scene *s;
  hg_sim *sim = hg_test_shipped_at("dock", 20, 1.0, &s);
  hg_sim_gauge_view g;
  assert_int_equal(hg_sim_gauge(sim, "target_port", "chaser_port", &g), 0);
  assert_true(g.present && g.capture == 0);
  assert_true(g.measure > 0);           /* not within the capture tolerances yet */
  assert_true(g.closing_speed > 0 && isfinite(g.time_to_contact));
  assert_true(g.plastic_loss > 0);
  const hg_sim_event *ev = hg_test_apply(sim, "attach target_port chaser_port");
  /* one 6x6 solve of the operational-space inertia vs the plastic lock of the new joint */
  if (!(fabs(g.plastic_loss - ev->e_lock) <= 1e-10 * ev->e_lock))
    fail_msg("gauge %g J, attach removed %g J", g.plastic_loss, ev->e_lock);
  printf("# gauge at 1 s: %.3g m apart, closing at %.3g m/s (contact in %.3g s), capture loss "
         "%.9g J; the attach removed %.9g J\n", g.distance, g.closing_speed, g.time_to_contact,
         g.plastic_loss, ev->e_lock);
  hg_sim_free(sim);
  hg_scene_free(s);
}

static void ghosts_sit_where_set_puts_the_bodies(void **state) {
  (void)state;
  hg_scene *s;
  hg_sim *sim = hg_test_shipped_at("freeze_thaw", 3, 0.5, &s);
  const hg_model *m = hg_sim_model(sim);
  int b1 = hg_model_joint(m, "b1");
  double *delta = calloc((size_t)m->nv, sizeof(double));
  delta[m->v_adr[b1]] = 1;
  const double eps = 0.25;
  hg_se3 *ghost = malloc((size_t)m->nbody * sizeof *ghost);
  memcpy(ghost, hg_sim_ghost(sim, delta, eps), (size_t)m->nbody * sizeof *ghost);
  char text[128];
  snprintf(text, sizeof text, "set b1 {q: [%.17g]}", hg_sim_q(sim)[m->q_adr[b1]] + eps);
  hg_test_apply(sim, text);
  double e = 0;
  for (int i = 1; i < m->nbody; i++) {
    hg_se3 T;
    double tw[6];
    hg_sim_body(sim, i, &T, tw);
    for (int k = 0; k < 3; k++) e = fmax(e, fabs(T.p[k] - ghost[i].p[k]));
    for (int k = 0; k < 9; k++) e = fmax(e, fabs(T.R[k] - ghost[i].R[k]));
  }
  assert_true(e <= 1e-15 * 8);
  /* a spherical joint's ghost turns on the group: b's frame by exp(eps w) */
  printf("# ghosts at q (+) 0.25 e_b1 match the set configuration to %.2g\n", e);
  free(delta);
  free(ghost);
  hg_sim_free(sim);
  hg_scene_free(s);
}

static void pull_work_closes_the_budget(void **state) {
  (void)state;
  hg_scene *s;
  hg_sim *sim = hg_test_shipped_at("freeze_thaw", 3, 0.5, &s);
  double h0[6], h1[6];
  hg_sim_momentum(sim, h0);
  const hg_sim_event *ev = hg_test_apply(sim, "perturb b3 0.1 0 0  1 2 0.5  30 2");
  assert_false(ev->conserves);
  hg_force_view fv;
  assert_int_equal(hg_sim_pull(sim, &fv), 0);
  assert_true(fv.magnitude > 0);
  assert_int_equal(hg_sim_run(sim, 1.5), HG_SIM_OK);
  hg_sim_momentum(sim, h1);
  double dh = 0;
  for (int k = 0; k < 6; k++) dh = fmax(dh, fabs(h1[k] - h0[k]));
  assert_true(dh > 1e-3); /* the pull acts from outside */
  /* move the target: an event, its work booked */
  ev = hg_test_apply(sim, "perturb b3 0.1 0 0  -1 0 0  30 2");
  assert_true(fabs(ev->e_after - ev->e_before) > 1e-3);
  assert_int_equal(hg_sim_run(sim, 2.5), HG_SIM_OK);
  ev = hg_test_apply(sim, "release");
  assert_int_equal(hg_sim_pull(sim, &fv), -1);
  assert_int_equal(hg_sim_run(sim, INFINITY), HG_SIM_OK);
  hg_sim_budget b;
  hg_sim_get_budget(sim, &b);
  double drift = fabs(b.value - b.initial) / b.scale;
  /* the scene's rtol 1e-10: the budget closes to the integration error (1e-8 as test_sim) */
  if (!(drift <= 1e-8)) fail_msg("budget drift %g with a pull", drift);
  printf("# pull: momentum changed by %.3g, budget drift %.2g (damper work %.4g J)\n", dh, drift,
         b.work);
  hg_sim_free(sim);
  hg_scene_free(s);
}

static void set_refuses_held_joints(void **state) {
  (void)state;
  hg_scene *s;
  hg_sim *sim = hg_test_shipped_at("freeze_thaw", 5, 1.5, &s); /* a1 locked at 1 s */
  const hg_sim_event *ev = hg_test_apply(sim, "set a1 {v: [1]}");
  assert_non_null(strstr(ev->details, "REFUSED set_state of joint a1"));
  ev = hg_test_apply(sim, "set a1 {q: [0.1]}"); /* a locked joint may be moved while still */
  assert_null(strstr(ev->details, "REFUSED"));
  assert_int_equal(hg_sim_run(sim, 4.5), HG_SIM_OK); /* b1 prescribed at 4 s */
  ev = hg_test_apply(sim, "set b1 {q: [0.1]}");
  assert_non_null(strstr(ev->details, "REFUSED set_state of joint b1: it is prescribed"));
  assert_int_equal(hg_sim_refused(sim), 2);
  assert_int_equal(hg_sim_run(sim, INFINITY), HG_SIM_OK);
  hg_sim_free(sim);
  hg_scene_free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(lock_preview_matches_the_lock),
      cmocka_unit_test(every_preview_is_its_commit),
      cmocka_unit_test(gauge_loss_is_the_capture_loss),
      cmocka_unit_test(ghosts_sit_where_set_puts_the_bodies),
      cmocka_unit_test(pull_work_closes_the_budget),
      cmocka_unit_test(set_refuses_held_joints),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
