/* test_sim.c: the simulation runner (sim/sim.h) on the shipped scenes and on small scenes written
 * here: every scene runs to its end; momentum is conserved across every event of the zero-gravity
 * scenes (1e-10 relative); the energy budget closes (1e-8 relative at rtol 1e-10); the heat
 * shield's clearance grows monotonically after the release; a resumed run repeats the
 * uninterrupted one bit for bit; time events, captures, impulses, failures and bad checkpoints.
 *
 * Runs in the tests folder (CTest's working directory): the scenes are ../scenes/NAME.yaml. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"
#include "sim_internal.h"
#include "files.h"
#include "sims.h"

static const char *const all_scenes[] = {"heatshield", "undock", "dock",     "freeze_thaw",
                                         "pendulum",   "chain",  "humanoid", "release"};
#define NSCENES ((int)(sizeof all_scenes / sizeof all_scenes[0]))

/* the scenes with zero uniform gravity whose trees all float */
static const char *const zero_g_scenes[] = {"undock", "dock", "freeze_thaw", "humanoid"};

/* ---- helpers ---- */

/* writes text to dir/name and returns the path in buf */
static const char *write_file(const char *dir, const char *name, const char *text, char *buf,
                              size_t len) {
  snprintf(buf, len, "%s/%s", dir, name);
  FILE *f = fopen(buf, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
  return buf;
}

/* |a - b| over three components */
static double dist3(const double *a, const double *b) {
  double d[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
  return sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
}

/* ---- every scene ---- */

/* each shipped scene runs (headless, no outputs) to its end time */
static void every_scene_runs_to_its_end(void **state) {
  for (int k = 0; k < NSCENES; k++) {
    hg_scene *s = hg_test_shipped(all_scenes[k]);
    hg_sim *sim = hg_test_sim(s, NAN, NULL);
    int rc = hg_sim_run(sim, INFINITY);
    if (rc) fail_msg("%s: %s", all_scenes[k], hg_sim_error(sim));
    assert_true(hg_sim_time(sim) == hg_sim_t_end(sim));
    hg_integ_stats st;
    hg_sim_stats(sim, &st);
    printf("# %-12s t = %5.1f s  %6ld steps  %2d events  %.3f s wall\n", all_scenes[k],
           hg_sim_time(sim), st.steps, hg_sim_nevents(sim), hg_sim_wall_time(sim));
    hg_sim_free(sim);
    hg_scene_free(s);
  }
}

/* the integrator's right-hand side (hg_sim_rhs) gives hg_sim_eval's accelerations, loads and
 * power to 1e-12 relative on every shipped scene, a quarter of the way into its run; on the
 * scenes of revolute and prismatic joints on fixed or floating bases whose only elements are
 * joint springs (pendulum, chain, dock, humanoid, release) it runs the body-local pass,
 * elsewhere the tree walk the force elements (or other joint types) need */
static void rhs_equals_eval(void **state) {
  (void)state;
  for (int k = 0; k < NSCENES; k++) {
    hg_scene *sc = hg_test_shipped(all_scenes[k]);
    hg_sim *s = hg_test_sim(sc, NAN, NULL);
    if (hg_sim_run(s, s->t_start + 0.25 * (s->t_end - s->t_start)))
      fail_msg("%s: %s", all_scenes[k], hg_sim_error(s));
    int nv = s->m->nv;
    double *qdd = malloc(nv * sizeof *qdd), *tau = malloc(nv * sizeof *tau), p0, p1;
    assert_int_equal(hg_sim_eval(s, s->state.t, s->state.q, s->state.v, &p0), 0);
    assert_int_equal(s->d->local_pass, 0);
    memcpy(qdd, s->rhs.qdd, nv * sizeof *qdd);
    memcpy(tau, s->rhs.tau, nv * sizeof *tau);
    assert_int_equal(hg_sim_rhs(s, s->state.t, s->state.q, s->state.v, &p1), 0);
    int local = !strcmp(all_scenes[k], "pendulum") || !strcmp(all_scenes[k], "chain") ||
                !strcmp(all_scenes[k], "dock") || !strcmp(all_scenes[k], "humanoid") ||
                !strcmp(all_scenes[k], "release");
    assert_int_equal(s->d->local_pass, local);
    double scale = 1, e = 0;
    for (int c = 0; c < nv; c++) {
      scale = fmax(scale, fmax(fabs(qdd[c]), fabs(tau[c])));
      e = fmax(e, fmax(fabs(qdd[c] - s->rhs.qdd[c]), fabs(tau[c] - s->rhs.tau[c])));
    }
    e = fmax(e / scale, fabs(p1 - p0) / fmax(1, fabs(p0)));
    printf("# %-12s %s pass: relative difference %.3g\n", all_scenes[k], local ? "body-local" : "tree-frame", e);
    assert_true(e <= 1e-12);
    free(qdd);
    free(tau);
    hg_sim_free(s);
    hg_scene_free(sc);
  }
}

/* momentum across every event of the zero-gravity scenes: the change is at most 1e-10 of the
 * bodies' summed momentum magnitudes (angular and linear separately) */
static void momentum_conserved_across_events(void **state) {
  for (size_t k = 0; k < sizeof zero_g_scenes / sizeof zero_g_scenes[0]; k++) {
    hg_scene *s;
    hg_sim *sim = hg_test_shipped_at(zero_g_scenes[k], NAN, INFINITY, &s);
    assert_true(hg_sim_nevents(sim) >= 1);
    double worst = 0;
    for (int e = 0; e < hg_sim_nevents(sim); e++) {
      const hg_sim_event *ev = hg_sim_event_at(sim, e);
      double dL[3], dp[3];
      for (int r = 0; r < 3; r++) {
        dL[r] = ev->h_after[r] - ev->h_before[r];
        dp[r] = ev->h_after[3 + r] - ev->h_before[3 + r];
      }
      double rl = dist3(dL, (double[3]){0, 0, 0}) / ev->h_scale[0];
      double rp = dist3(dp, (double[3]){0, 0, 0}) / ev->h_scale[1];
      assert_true(ev->conserves);
      if (!(rl <= 1e-10 && rp <= 1e-10))
        fail_msg("%s: event %s at t = %g changes momentum by %g (angular), %g (linear)",
                 zero_g_scenes[k], ev->name, ev->t, rl, rp);
      worst = fmax(worst, fmax(rl, rp));
    }
    printf("# %-12s %d events, largest relative momentum change %.2g\n", zero_g_scenes[k],
           hg_sim_nevents(sim), worst);
    hg_sim_free(sim);
    hg_scene_free(s);
  }
}

/* kinetic + potential + removed by locks - work stays at its initial value to 1e-8 relative at
 * rtol 1e-10; a lock event changes the energy by exactly what it books as removed */
static void energy_budget_closes(void **state) {
  for (int k = 0; k < NSCENES; k++) {
    hg_scene *s = hg_test_shipped(all_scenes[k]);
    hg_sim *sim = hg_test_sim_ck(s, 1e-10, NULL, 0);
    assert_int_equal(hg_sim_run(sim, INFINITY), HG_SIM_OK);
    hg_sim_budget b;
    hg_sim_get_budget(sim, &b);
    printf("# %-12s budget drift %.2g (scale %.4g J; removed by locks %.4g J, work %.4g J)\n",
           all_scenes[k], b.max_drift, b.scale, b.e_lock, b.work);
    if (!(b.max_drift < 1e-8)) fail_msg("%s: energy budget drift %g", all_scenes[k], b.max_drift);
    for (int e = 0; e < hg_sim_nevents(sim); e++) {
      const hg_sim_event *ev = hg_sim_event_at(sim, e);
      if (ev->e_lock > 0)
        assert_true(fabs(ev->e_after - ev->e_before + ev->e_lock) <= 1e-12 * b.scale);
    }
    hg_sim_free(sim);
    hg_scene_free(s);
  }
}

/* ---- heat shield ---- */

/* distance between the origins of two bodies of the current model */
static double separation(hg_sim *sim, hg_data **d, const char *a, const char *b) {
  const hg_model *m = hg_sim_model(sim);
  hg_data_free(*d);
  *d = hg_data_new(m);
  hg_kinematics(m, *d, hg_sim_q(sim), NULL);
  return dist3((*d)->T_world[hg_model_body(m, a)].p, (*d)->T_world[hg_model_body(m, b)].p);
}

static void heatshield_clearance_grows(void **state) {
  hg_scene *s = hg_test_shipped("heatshield");
  hg_sim *sim = hg_test_sim(s, NAN, NULL);
  hg_data *d = NULL;
  double t_release = -1, last = -1;
  int samples = 0;
  for (double t = 0.05; t <= hg_sim_t_end(sim) + 1e-9; t += 0.05) {
    assert_int_equal(hg_sim_run(sim, t), HG_SIM_OK);
    double c = separation(sim, &d, "capsule", "shield");
    if (t_release < 0 && hg_sim_nevents(sim) > 0) t_release = hg_sim_event_at(sim, 0)->t;
    if (t_release < 0) {
      assert_true(c < 1e-9); /* locked: no clearance */
      continue;
    }
    if (last >= 0 && !(c > last))
      fail_msg("clearance %.17g at t = %g does not exceed %.17g", c, hg_sim_time(sim), last);
    last = c;
    samples++;
  }
  assert_true(t_release > 10 && t_release < 25);
  assert_true(samples > 100);
  assert_true(last > 100);
  printf("# release at t = %.6f s; clearance %.1f m at the end, increasing at %d samples\n",
         t_release, last, samples);
  hg_data_free(d);
  hg_sim_free(sim);
  hg_scene_free(s);
}

/* ---- checkpoints ---- */

/* runs scene name to its end writing checkpoints every ck into dir */
static void run_with_checkpoints(const char *name, const char *dir, double ck, double *q,
                                 double *v, int *nq, int *nv) {
  hg_scene *s = hg_test_shipped(name);
  hg_sim *sim = hg_test_sim_ck(s, 0, dir, ck);
  assert_int_equal(hg_sim_run(sim, INFINITY), HG_SIM_OK);
  assert_int_equal(hg_sim_finish(sim), HG_SIM_OK);
  *nq = hg_sim_model(sim)->nq;
  *nv = hg_sim_model(sim)->nv;
  memcpy(q, hg_sim_q(sim), (size_t)*nq * sizeof(double));
  memcpy(v, hg_sim_v(sim), (size_t)*nv * sizeof(double));
  hg_sim_free(sim);
  hg_scene_free(s);
}

static void checkpoint_resume_bit_identical(void **state) {
  /* topology before/after the checkpoint, a capture, mode switches, a removal, an add */
  static const struct {
    const char *scene;
    double every;
    int ck[2];
  } cases[] = {{"undock", 3, {2, 4}}, {"dock", 4, {2, 3}}, {"freeze_thaw", 1.5, {3, 5}},
               {"chain", 2.5, {1, 3}}, {"heatshield", 5, {3, 4}}, {"release", 8, {1, 2}},
               {"probe_drogue", 4, {1, 2}}};
  double q[256], v[256];
  int nq, nv;
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    char dir_a[64];
    assert_int_equal(0, hg_test_temp_dir("sim", dir_a, sizeof dir_a));
    run_with_checkpoints(cases[k].scene, dir_a, cases[k].every, q, v, &nq, &nv);
    hg_scene *s = hg_test_shipped(cases[k].scene);
    for (int j = 0; j < 2; j++)
      hg_test_resume_matches(s, cases[k].scene, dir_a, cases[k].ck[j], q, v, nq, nv);
    hg_scene_free(s);
    hg_test_remove_dir(dir_a);
  }
}

/* a checkpoint of one scene does not resume another */
static void resume_rejects_other_scene(void **state) {
  char dir[64], ck[128];
  double q[256], v[256];
  int nq, nv;
  assert_int_equal(0, hg_test_temp_dir("sim", dir, sizeof dir));
  run_with_checkpoints("dock", dir, 5, q, v, &nq, &nv);
  snprintf(ck, sizeof ck, "%s/checkpoint-0001.txt", dir);
  hg_scene *s = hg_test_shipped("freeze_thaw");
  hg_sim *sim = hg_test_sim(s, NAN, NULL);
  hg_error err;
  assert_int_equal(hg_sim_resume(sim, ck, &err), HG_SIM_ERR_INPUT);
  assert_non_null(strstr(err.msg, "checkpoint-0001.txt:"));
  hg_sim_free(sim);
  hg_scene_free(s);
  hg_test_remove_dir(dir);
}

/* ---- events ---- */

/* time events fire at exactly their time; the undock release detaches the client */
static void time_events_fire_exactly(void **state) {
  hg_scene *s;
  hg_sim *sim = hg_test_shipped_at("undock", NAN, INFINITY, &s);
  assert_int_equal(hg_sim_nevents(sim), 2);
  for (int e = 0; e < 2; e++) assert_true(hg_sim_event_at(sim, e)->t == 10.0);
  const hg_model *m = hg_sim_model(sim);
  int client = hg_model_body(m, "client");
  assert_int_equal(m->parent[client], 0);
  assert_int_equal(m->jnt[client].type, HG_JOINT_FREE);
  hg_sim_free(sim);
  hg_scene_free(s);
}

/* the capture docks the chaser by a locked free joint at rest */
static void capture_docks_and_locks(void **state) {
  hg_scene *s;
  hg_sim *sim = hg_test_shipped_at("dock", NAN, INFINITY, &s);
  assert_int_equal(hg_sim_nevents(sim), 1);
  const hg_sim_event *ev = hg_sim_event_at(sim, 0);
  assert_string_equal(ev->name, "capture");
  assert_true(ev->t > 8 && ev->t < 12 && ev->e_lock > 0);
  const hg_model *m = hg_sim_model(sim);
  int j = hg_model_joint(m, "dock_target_port_chaser_port");
  assert_true(j > 0);
  assert_int_equal(m->parent[j], hg_model_body(m, "target"));
  for (int k = 0; k < 6; k++) assert_true(hg_sim_v(sim)[m->v_adr[j] + k] == 0);
  hg_sim_free(sim);
  hg_scene_free(s);
}

/* a floating body, an impulse at an offset marker: momentum changes by exactly the impulse */
static const char impulse_scene[] =
    "gravity: [0, 0, 0]\n"
    "bodies:\n"
    "  - name: box\n"
    "    joint: free\n"
    "    inertia: {mass: 2, com: [0.1, 0, 0], inertia: [0.1, 0.2, 0.3]}\n"
    "    markers: [{name: kick, pos: [0.5, 0.2, 0]}]\n"
    "initial:\n"
    "  bodies:\n"
    "    box: {pos: [1, 2, 3], rpy: [0.3, 0.2, 0.1], twist: [0.1, 0, 0.2, 0.5, 0, 0]}\n"
    "events:\n"
    "  - name: kick\n"
    "    at: 1\n"
    "    do: [{impulse: {marker: kick, linear: [1, 2, 3], angular: [0.1, 0, 0]}}]\n"
    "time: {start: 0, end: 2}\n";

static void impulse_changes_momentum_by_the_impulse(void **state) {
  char dir[64], path[128];
  assert_int_equal(0, hg_test_temp_dir("sim", dir, sizeof dir));
  hg_scene *s = hg_test_scene(write_file(dir, "impulse.yaml", impulse_scene, path, sizeof path));
  hg_sim *sim = hg_test_sim_ck(s, 1e-10, NULL, 0);
  assert_int_equal(hg_sim_run(sim, 1.0), HG_SIM_OK);
  /* the marker's world position at the kick */
  const hg_model *m = hg_sim_model(sim);
  hg_data *d = hg_data_new(m);
  hg_kinematics(m, d, hg_sim_q(sim), NULL);
  double p[3], x[3] = {0.5, 0.2, 0}, J[3] = {1, 2, 3}, A[3] = {0.1, 0, 0}, rxJ[3];
  hg_se3_apply(&d->T_world[1], x, p);
  hg_v3_cross(p, J, rxJ);
  assert_int_equal(hg_sim_run(sim, INFINITY), HG_SIM_OK);
  const hg_sim_event *ev = hg_sim_event_at(sim, 0);
  assert_false(ev->conserves);
  for (int r = 0; r < 3; r++) {
    assert_true(fabs(ev->h_after[3 + r] - ev->h_before[3 + r] - J[r]) < 1e-12);
    assert_true(fabs(ev->h_after[r] - ev->h_before[r] - rxJ[r] - A[r]) < 1e-12);
  }
  hg_data_free(d);
  hg_sim_free(sim);
  hg_scene_free(s);
  hg_test_remove_dir(dir);
}

/* a prescribed joint follows its profile exactly, from the moment its mode is set */
static void prescribed_joint_follows_profile(void **state) {
  hg_scene *s = hg_test_shipped("freeze_thaw");
  hg_sim *sim = hg_test_sim(s, NAN, NULL);
  assert_int_equal(hg_sim_run(sim, 4.0), HG_SIM_OK);
  const hg_model *m = hg_sim_model(sim);
  int b1 = hg_model_joint(m, "b1");
  assert_int_equal(hg_sim_run(sim, 4.0), HG_SIM_OK); /* the event at t = 4 has fired */
  double q0 = hg_sim_q(sim)[m->q_adr[b1]];
  for (double t = 4.25; t < 6; t += 0.25) {
    assert_int_equal(hg_sim_run(sim, t), HG_SIM_OK);
    double q = q0 + 0.4 * sin(3 * (t - 4)), v = 1.2 * cos(3 * (t - 4));
    assert_true(fabs(hg_sim_q(sim)[m->q_adr[b1]] - q) < 1e-12);
    assert_true(fabs(hg_sim_v(sim)[m->v_adr[b1]] - v) < 1e-12);
  }
  hg_sim_free(sim);
  hg_scene_free(s);
}

/* ---- failures ---- */

/* a stiff spring integrated by Lie-Euler with a huge step blows up: the run stops with a
 * numerical error naming the time, and the last good state is written */
static const char blowup_scene[] =
    "gravity: [0, 0, 0]\n"
    "bodies:\n"
    "  - name: slider\n"
    "    joint: {type: prismatic, axis: [1, 0, 0]}\n"
    "    inertia: {mass: 1}\n"
    "forces:\n"
    "  - {name: stiff, type: joint_spring, joint: slider, stiffness: 1e6}\n"
    "initial:\n"
    "  joints:\n"
    "    slider: {q: [1]}\n"
    "integrator: {method: lie-euler, step: 0.1}\n"
    "time: {start: 0, end: 1000}\n";

static void numerical_failure_stops_cleanly(void **state) {
  char dir[64], path[128];
  assert_int_equal(0, hg_test_temp_dir("sim", dir, sizeof dir));
  hg_scene *s = hg_test_scene(write_file(dir, "blowup.yaml", blowup_scene, path, sizeof path));
  hg_sim *sim = hg_test_sim_ck(s, 0, dir, 0);
  assert_int_equal(hg_sim_run(sim, INFINITY), HG_SIM_ERR_NUMERIC);
  assert_non_null(strstr(hg_sim_error(sim), "t = "));
  assert_true(hg_sim_time(sim) < 1000);
  assert_int_equal(hg_sim_finish(sim), HG_SIM_OK);
  snprintf(path, sizeof path, "%s/failure-state.txt", dir);
  char *text = hg_test_read_file(path, NULL);
  assert_non_null(text);
  assert_true(strncmp(text, "hinge-checkpoint 2\n", 19) == 0);
  free(text);
  snprintf(path, sizeof path, "%s/summary.txt", dir);
  text = hg_test_read_file(path, NULL);
  assert_non_null(strstr(text, "status: integration failed"));
  free(text);
  printf("# %s\n", hg_sim_error(sim));
  hg_sim_free(sim);
  hg_scene_free(s);
  hg_test_remove_dir(dir);
}

/* A thrust element's half-second pulse (solar_array.yaml: 200 N along the bus's y from 2 s to
 * 2.5 s) acts whatever the integrator's steps: they used to step over it, and nothing moved. The
 * total linear momentum after it is the pulse's 100 N s, less the little the force turned with
 * the bus (its y axis turns by 1e-3 rad while it pushes: cos of that is 1 - 5e-7). */
static void thrust_pulse_acts(void **state) {
  (void)state;
  hg_scene *s;
  hg_sim *sim = hg_test_shipped_at("solar_array", NAN, 4, &s);
  double h[6];
  hg_sim_momentum(sim, h);
  double p = sqrt(h[3] * h[3] + h[4] * h[4] + h[5] * h[5]);
  printf("solar_array after its pulse: p = (%.12g, %.12g, %.12g) N s, |p| %.12g (100)\n", h[3],
         h[4], h[5], p);
  assert_true(fabs(p - 100) < 1e-5 * 100);
  hg_sim_free(sim);
  hg_scene_free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(thrust_pulse_acts),
      cmocka_unit_test(every_scene_runs_to_its_end),
      cmocka_unit_test(rhs_equals_eval),
      cmocka_unit_test(momentum_conserved_across_events),
      cmocka_unit_test(energy_budget_closes),
      cmocka_unit_test(heatshield_clearance_grows),
      cmocka_unit_test(checkpoint_resume_bit_identical),
      cmocka_unit_test(resume_rejects_other_scene),
      cmocka_unit_test(time_events_fire_exactly),
      cmocka_unit_test(capture_docks_and_locks),
      cmocka_unit_test(impulse_changes_momentum_by_the_impulse),
      cmocka_unit_test(prescribed_joint_follows_profile),
      cmocka_unit_test(numerical_failure_stops_cleanly),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
