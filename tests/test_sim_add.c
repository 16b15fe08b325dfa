/* test_sim_add.c: the 'add' event action (sim/events.c, sim/sim_topology.c): a spacecraft in zero
 * gravity releases a probe (with an antenna on a revolute joint) at a marker with a relative
 * velocity, then adds a panel on a hinge. Across each add the bodies already there keep their
 * world poses and twists (1e-12), the probe sits and moves as its marker placement says (1e-12),
 * the momentum after is the momentum before plus the new bodies' (1e-12 relative), the energy the
 * add brings is booked as event work and the budget closes (1e-8 at rtol 1e-10), a second add of
 * a present body is skipped, and a run resumed from checkpoints before, at and after the adds
 * repeats the uninterrupted run bit for bit.
 *
 * Runs in the tests folder (CTest's working directory); the scenes go to a temporary folder. */
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
#include "files.h"
#include "sims.h"

/* ---- the scene ---- */

/* a bus with a boom; the probe (and its antenna) and the panel are absent at the start */
static const char bodies_text[] =
    "gravity: [0, 0, 0]\n"
    "bodies:\n"
    "  - name: bus\n"
    "    joint: free\n"
    "    inertia: {mass: 500, com: [0.05, -0.02, 0.1], inertia: [120, 150, 90, 2, -1, 3]}\n"
    "    markers:\n"
    "      - {name: bay, pos: [0.3, 0.2, 1.1], rpy: [0.2, -0.3, 0.5]}\n"
    "  - name: boom\n"
    "    parent: bus\n"
    "    joint: {type: revolute, axis: [0, 1, 0], pos: [1, 0, 0]}\n"
    "    inertia: {mass: 5, com: [0.5, 0, 0], inertia: [0.01, 0.4, 0.4]}\n"
    "  - name: probe\n"
    "    present: false\n"
    "    joint: free\n"
    "    inertia: {mass: 20, com: [0, 0, 0.05], inertia: [0.8, 0.9, 0.5]}\n"
    "    geometry: [{type: cylinder, radius: 0.3, length: 0.4}]\n"
    "    markers: [{name: probe_tip, pos: [0, 0, 0.3]}]\n"
    "  - name: antenna\n"
    "    present: false\n"
    "    parent: probe\n"
    "    joint: {type: revolute, axis: [1, 0, 0], pos: [0, 0.3, 0]}\n"
    "    inertia: {mass: 1, com: [0, 0.2, 0], inertia: [0.01, 0.001, 0.01]}\n"
    "  - name: panel\n"
    "    present: false\n"
    "    parent: bus\n"
    "    joint: {type: revolute, axis: [0, 0, 1], pos: [-0.8, 0, 0]}\n"
    "    inertia: {mass: 3, com: [-0.4, 0, 0], inertia: [0.01, 0.2, 0.2]}\n"
    "initial:\n"
    "  bodies:\n"
    "    bus: {pos: [10, -5, 3], rpy: [0.1, 0.2, 0.3],\n"
    "          twist: [0.02, -0.03, 0.05, 0.4, 0.1, -0.2]}\n"
    "  joints:\n"
    "    boom: {q: [0.3], v: [0.1]}\n"
    "    antenna: {q: [0.4], v: [-0.2]}\n"
    "    panel: {q: [0.2], v: [0.3]}\n"
    "time: {start: 0, end: 6}\n"
    "output: {dt: 0.25, pairs: [[bus, probe]]}\n";

/* the events: the release at t = 2, the panel at t = 3, the probe again at t = 4 (skipped) */
static const char *const events_text[] = {
    "  - name: release\n"
    "    at: 2\n"
    "    do:\n"
    "      - add: {body: probe, at_marker: bay, pos: [0, 0, 0.4], rpy: [0, 0, 0.3],\n"
    "              twist: [0, 0, 0.1, 0, 0, 0.5]}\n",
    "  - name: deploy\n"
    "    at: 3\n"
    "    do: [{add: {body: panel}}]\n",
    "  - name: again\n"
    "    at: 4\n"
    "    do: [{add: {body: probe}}]\n"};

/* the placement of the release: pose in the marker frame, relative twist in its axes */
static const double rel_pos[3] = {0, 0, 0.4}, rel_yaw = 0.3;
static const double rel_twist[6] = {0, 0, 0.1, 0, 0, 0.5};

/* ---- helpers ---- */

/* the scene with its first nevent events written to dir/name, loaded */
static hg_scene *write_scene(const char *dir, const char *name, int nevent) {
  char path[256];
  hg_error err;
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(bodies_text, f);
  if (nevent > 0) fputs("events:\n", f);
  for (int k = 0; k < nevent; k++) fputs(events_text[k], f);
  fclose(f);
  hg_scene *s = hg_scene_load(path, &err);
  if (!s) fail_msg("%s", err.msg);
  return s;
}

/* world poses and twists (angular velocity, velocity of the origin; world axes) of a state */
typedef struct world {
  const hg_model *m;
  hg_data *d;
} world;

static world world_of(const hg_sim *sim) {
  world w = {hg_sim_model(sim), hg_data_new(hg_sim_model(sim))};
  hg_kinematics(w.m, w.d, hg_sim_q(sim), hg_sim_v(sim));
  return w;
}

/* body name's world pose and twist */
static void body_world(const world *w, const char *name, hg_se3 *T, double tw[6]) {
  int i = hg_model_body(w->m, name);
  double V[6];
  if (i < 1) fail_msg("no body '%s'", name);
  *T = w->d->T_world[i];
  hg_body_twist(w->m, w->d, i, V);
  hg_m3_mulv(T->R, V, tw);
  hg_m3_mulv(T->R, V + 3, tw + 3);
}

/* max |a - b| / max(1, |b|) over n entries */
static double rel_diff(const double *a, const double *b, int n) {
  double e = 0, s = 1;
  for (int k = 0; k < n; k++) s = fmax(s, fabs(b[k]));
  for (int k = 0; k < n; k++) e = fmax(e, fabs(a[k] - b[k]) / s);
  return e;
}

/* |x| of a 3-vector */
static double norm3(const double x[3]) { return sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]); }

/* the momentum (about the world origin, world axes) and kinetic energy of the bodies named */
static void bodies_momentum(const world *w, const char *const *names, int n, double h[6],
                            double *ke) {
  memset(h, 0, 6 * sizeof(double));
  *ke = 0;
  for (int k = 0; k < n; k++) {
    int i = hg_model_body(w->m, names[k]);
    double V[6], hb[6], L[3], p[3];
    hg_body_twist(w->m, w->d, i, V);
    hg_inertia_mulv(&w->m->inertia[i], V, hb);
    for (int r = 0; r < 6; r++) *ke += 0.5 * V[r] * hb[r];
    /* body-frame momentum (about the body origin) to the world origin */
    hg_m3_mulv(w->d->T_world[i].R, hb, L);
    hg_m3_mulv(w->d->T_world[i].R, hb + 3, p);
    hg_v3_cross_add(w->d->T_world[i].p, p, L);
    for (int r = 0; r < 3; r++) h[r] += L[r], h[3 + r] += p[r];
  }
}

/* every body of `before` sits and moves the same in `after` to 1e-12 */
static void bodies_unchanged(const world *before, const world *after, const char *when) {
  double worst = 0;
  for (int i = 1; i < before->m->nbody; i++) {
    hg_se3 T0, T1;
    double t0[6], t1[6];
    body_world(before, before->m->body_name[i], &T0, t0);
    body_world(after, before->m->body_name[i], &T1, t1);
    double e = fmax(fmax(rel_diff(T1.R, T0.R, 9), rel_diff(T1.p, T0.p, 3)), rel_diff(t1, t0, 6));
    if (!(e <= 1e-12))
      fail_msg("%s: body '%s' moved by %g across the add", when, before->m->body_name[i], e);
    worst = fmax(worst, e);
  }
  printf("# %s: the %d bodies already there keep pose and twist to %.2g\n", when,
         before->m->nbody - 1, worst);
}

/* h_after - h_before = h_new, relative to |h_before| + |h_new| (angular and linear parts) */
static void momentum_adds_up(const hg_sim_event *ev, const double hn[6], const char *when) {
  double e[2];
  for (int part = 0; part < 2; part++) {
    double d[3], hb[3], hnew[3];
    for (int r = 0; r < 3; r++) {
      d[r] = ev->h_after[3 * part + r] - ev->h_before[3 * part + r] - hn[3 * part + r];
      hb[r] = ev->h_before[3 * part + r];
      hnew[r] = hn[3 * part + r];
    }
    e[part] = norm3(d) / (norm3(hb) + norm3(hnew));
  }
  if (!(e[0] <= 1e-12 && e[1] <= 1e-12))
    fail_msg("%s: momentum after - before - new = %g (angular), %g (linear)", when, e[0], e[1]);
  printf("# %s: momentum after = before + new bodies' to %.2g (angular), %.2g (linear)\n", when,
         e[0], e[1]);
}

/* ---- placement, momentum, energy ---- */

/* the bay marker's frame in the bus frame: pos (0.3, 0.2, 1.1), rpy (0.2, -0.3, 0.5) */
static hg_se3 bay_marker(void) {
  double cr = cos(0.2), sr = sin(0.2), cp = cos(-0.3), sp = sin(-0.3), cy = cos(0.5), sy = sin(0.5);
  hg_se3 M = {{cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr, sy * cp,
               sy * sp * sr + cy * cr, sy * sp * cr - cy * sr, -sp, cp * sr, cp * cr},
              {0.3, 0.2, 1.1}};
  return M;
}

/* the probe at the bay: T = T_bay pose; w = w_bay + R_bay w_rel,
 * v = v_bay + w_bay x (p - p_bay) + R_bay v_rel, with v_bay = v_bus + w_bus x (p_bay - p_bus) */
static void probe_at_bay(const world *w) {
  hg_se3 Tbus, Tprobe, Tbay, Tpose, Texp, M = bay_marker();
  double tbus[6], tprobe[6], vbay[3], r[3], a[3], texp[6];
  body_world(w, "bus", &Tbus, tbus);
  body_world(w, "probe", &Tprobe, tprobe);
  hg_se3_mul(&Tbus, &M, &Tbay);
  hg_se3_identity(&Tpose);
  Tpose.R[0] = Tpose.R[4] = cos(rel_yaw);
  Tpose.R[1] = -sin(rel_yaw);
  Tpose.R[3] = sin(rel_yaw);
  memcpy(Tpose.p, rel_pos, sizeof rel_pos);
  hg_se3_mul(&Tbay, &Tpose, &Texp);
  double ep = fmax(rel_diff(Tprobe.R, Texp.R, 9), rel_diff(Tprobe.p, Texp.p, 3));
  /* the bay's origin velocity, then the probe's twist */
  for (int k = 0; k < 3; k++) r[k] = Tbay.p[k] - Tbus.p[k];
  hg_v3_cross(tbus, r, vbay);
  for (int k = 0; k < 3; k++) vbay[k] += tbus[3 + k];
  hg_m3_mulv(Tbay.R, rel_twist, a);
  for (int k = 0; k < 3; k++) texp[k] = tbus[k] + a[k];
  for (int k = 0; k < 3; k++) r[k] = Tprobe.p[k] - Tbay.p[k];
  hg_v3_cross(tbus, r, texp + 3);
  hg_m3_mulv(Tbay.R, rel_twist + 3, a);
  for (int k = 0; k < 3; k++) texp[3 + k] += vbay[k] + a[k];
  double et = rel_diff(tprobe, texp, 6);
  if (!(ep <= 1e-12 && et <= 1e-12)) fail_msg("the probe is off by %g (pose), %g (twist)", ep, et);
  printf("# the probe leaves the bay at %g m/s: pose to %.2g, twist to %.2g\n", rel_twist[5], ep,
         et);
}

/* a joint's q[0] and v[0] in the sim's state */
static void joint_state(const hg_sim *sim, const char *joint, double *q, double *v) {
  const hg_model *m = hg_sim_model(sim);
  int j = hg_model_joint(m, joint);
  if (j < 1) fail_msg("no joint '%s'", joint);
  *q = hg_sim_q(sim)[m->q_adr[j]];
  *v = hg_sim_v(sim)[m->v_adr[j]];
}

/* one add at time t: the bodies before it (from the run without events, identical up to t) stay,
 * the momentum adds up, the event books the new bodies' kinetic energy */
static void check_add(hg_sim *with, hg_sim *without, int event, double t,
                      const char *const *added, int nadded) {
  assert_int_equal(hg_sim_run(with, t), HG_SIM_OK);
  assert_int_equal(hg_sim_run(without, t), HG_SIM_OK);
  const hg_sim_event *ev = hg_sim_event_at(with, event);
  assert_non_null(ev);
  assert_true(ev->t == t);
  assert_false(ev->conserves);
  world before = world_of(without), after = world_of(with);
  bodies_unchanged(&before, &after, ev->name);
  double hn[6], ke;
  bodies_momentum(&after, added, nadded, hn, &ke);
  momentum_adds_up(ev, hn, ev->name);
  assert_true(fabs(ev->e_after - ev->e_before - ke) <= 1e-12 * ev->e_after);
  hg_data_free(before.d);
  hg_data_free(after.d);
}

/* the release and the deploy, each against a run without it (identical up to its time); the
 * second add of the probe is skipped */
static void add_keeps_bodies_and_adds_momentum(void **state) {
  static const char *const probe[] = {"probe", "antenna"}, *const panel[] = {"panel"};
  char dir[64];
  double q, v;
  assert_int_equal(0, hg_test_temp_dir("add", dir, sizeof dir));
  hg_scene *s3 = write_scene(dir, "all.yaml", 3), *s0 = write_scene(dir, "none.yaml", 0);
  hg_scene *s1 = write_scene(dir, "release.yaml", 1);
  hg_sim *a = hg_test_sim_ck(s3, 1e-10, NULL, 0), *b0 = hg_test_sim_ck(s0, 1e-10, NULL, 0);
  hg_sim *b1 = hg_test_sim_ck(s1, 1e-10, NULL, 0);
  check_add(a, b0, 0, 2.0, probe, 2);
  world w = world_of(a);
  probe_at_bay(&w);
  hg_data_free(w.d);
  joint_state(a, "antenna", &q, &v);
  assert_true(q == 0.4 && v == -0.2);
  check_add(a, b1, 1, 3.0, panel, 1);
  joint_state(a, "panel", &q, &v);
  assert_true(q == 0.2 && v == 0.3);
  /* the probe is there: the third event changes nothing */
  assert_int_equal(hg_sim_run(a, 4.0), HG_SIM_OK);
  const hg_sim_event *ev = hg_sim_event_at(a, 2);
  assert_non_null(strstr(ev->details, "add probe: probe is present, skipped"));
  assert_memory_equal(ev->h_after, ev->h_before, sizeof ev->h_before);
  assert_int_equal(hg_sim_model(a)->nbody, 6);
  hg_sim_free(a);
  hg_sim_free(b0);
  hg_sim_free(b1);
  hg_scene_free(s3);
  hg_scene_free(s0);
  hg_scene_free(s1);
  hg_test_remove_dir(dir);
}

/* A force element on a body that is absent at the start is inert until the add, then acts: a
 * 10 N thruster on the probe leaves the run identical to one without it up to the release, and
 * changes the total momentum by at most 10 N x 4 s after it (the thrust turns with the probe). */
static void force_on_absent_body_acts_after_add(void **state) {
  char dir[64], path[256];
  hg_error err;
  assert_int_equal(0, hg_test_temp_dir("add", dir, sizeof dir));
  snprintf(path, sizeof path, "%s/thrust.yaml", dir);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(bodies_text, f);
  fputs("forces:\n  - {name: kick, type: thrust, body: probe, force: [0, 0, 10]}\n", f);
  fputs("events:\n", f);
  fputs(events_text[0], f);
  fclose(f);
  hg_scene *st = hg_scene_load(path, &err);
  if (!st) fail_msg("%s", err.msg);
  hg_scene *s1 = write_scene(dir, "release.yaml", 1);
  hg_sim *a = hg_test_sim_ck(st, 1e-10, NULL, 0), *b = hg_test_sim_ck(s1, 1e-10, NULL, 0);
  double ha[6], hb[6], d[3];
  assert_int_equal(hg_sim_run(a, 2.0), HG_SIM_OK);
  assert_int_equal(hg_sim_run(b, 2.0), HG_SIM_OK);
  hg_sim_momentum(a, ha);
  hg_sim_momentum(b, hb);
  assert_memory_equal(ha, hb, sizeof ha);
  assert_int_equal(hg_sim_run(a, 6.0), HG_SIM_OK);
  assert_int_equal(hg_sim_run(b, 6.0), HG_SIM_OK);
  hg_sim_momentum(a, ha);
  hg_sim_momentum(b, hb);
  for (int k = 0; k < 3; k++) d[k] = ha[3 + k] - hb[3 + k];
  printf("# thruster on an added probe: momentum change %.6g N s (at most 40)\n", norm3(d));
  assert_true(norm3(d) > 1 && norm3(d) <= 40 + 1e-9);
  hg_sim_free(a);
  hg_sim_free(b);
  hg_scene_free(st);
  hg_scene_free(s1);
  hg_test_remove_dir(dir);
}

/* the energy the adds bring is event work, and the budget closes at rtol 1e-10 */
static void energy_budget_closes_across_adds(void **state) {
  char dir[64];
  assert_int_equal(0, hg_test_temp_dir("add", dir, sizeof dir));
  hg_scene *s = write_scene(dir, "all.yaml", 3);
  hg_sim *sim = hg_test_sim_ck(s, 1e-10, NULL, 0);
  assert_int_equal(hg_sim_run(sim, INFINITY), HG_SIM_OK);
  hg_sim_budget b;
  hg_sim_get_budget(sim, &b);
  double added = 0;
  for (int e = 0; e < hg_sim_nevents(sim); e++)
    added += hg_sim_event_at(sim, e)->e_after - hg_sim_event_at(sim, e)->e_before;
  assert_true(added > 0);
  assert_true(fabs(b.work_event - added) <= 1e-12 * b.scale);
  if (!(b.max_drift < 1e-8)) fail_msg("energy budget drift %g", b.max_drift);
  printf("# energy added by the adds %.6g J; budget drift %.2g (scale %.4g J)\n", added,
         b.max_drift, b.scale);
  hg_sim_free(sim);
  hg_scene_free(s);
  hg_test_remove_dir(dir);
}

/* ---- checkpoints ---- */

/* checkpoints every 1.5 s (before, between and after the adds) and every 1 s (at the adds) */
static void checkpoint_resume_across_adds(void **state) {
  static const double every[] = {1.5, 1.0};
  static const int first[] = {1, 2}, last[] = {3, 5};
  char scene_dir[64], dir_a[64];
  double q[64], v[64];
  assert_int_equal(0, hg_test_temp_dir("add", scene_dir, sizeof scene_dir));
  for (int c = 0; c < 2; c++) {
    assert_int_equal(0, hg_test_temp_dir("add", dir_a, sizeof dir_a));
    hg_scene *s = write_scene(scene_dir, "all.yaml", 3);
    hg_sim *sim = hg_test_sim_ck(s, 0, dir_a, every[c]);
    assert_int_equal(hg_sim_run(sim, INFINITY), HG_SIM_OK);
    assert_int_equal(hg_sim_finish(sim), HG_SIM_OK);
    int nq = hg_sim_model(sim)->nq, nv = hg_sim_model(sim)->nv;
    memcpy(q, hg_sim_q(sim), (size_t)nq * sizeof(double));
    memcpy(v, hg_sim_v(sim), (size_t)nv * sizeof(double));
    hg_sim_free(sim);
    for (int k = first[c]; k <= last[c]; k++)
      hg_test_resume_matches(s, "adds", dir_a, k, q, v, nq, nv);
    hg_scene_free(s);
    hg_test_remove_dir(dir_a);
  }
  hg_test_remove_dir(scene_dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(add_keeps_bodies_and_adds_momentum),
      cmocka_unit_test(energy_budget_closes_across_adds),
      cmocka_unit_test(checkpoint_resume_across_adds),
      cmocka_unit_test(force_on_absent_body_acts_after_add),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
