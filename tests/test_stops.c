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
#include <stdlib.h>
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
  hg_scene *s = hg_test_scene_temp("stops", "panel.yaml", scene_text, dir, sizeof dir);
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

/* a floating base and a panel: the stop is internal, so the impact keeps the momentum, and the
 * panel's rate relative to the base reverses to -e times its impact value */
static const char bounce_text[] =
    "gravity: [0, 0, 0]\n"
    "bodies:\n"
    "  - name: bus\n"
    "    joint: free\n"
    "    inertia: {mass: 20, inertia: [2, 2, 2]}\n"
    "  - name: panel\n"
    "    parent: bus\n"
    "    joint: {type: revolute, name: hinge, axis: [0, 0, 1], pos: [0.5, 0, 0],\n"
    "            limits: {lower: -0.5, upper: 0.5, restitution: 0.5}}\n"
    "    inertia: {mass: 2, com: [0.5, 0, 0], inertia: [0.01, 0.1, 0.1]}\n"
    "  - name: boom\n"
    "    parent: bus\n"
    "    joint: {type: revolute, name: latch, axis: [0, 0, 1], pos: [-0.5, 0, 0], rpy: [0, 0, 3.14159],\n"
    "            limits: {lower: -0.3, upper: 0.3, latch: true}}\n"
    "    inertia: {mass: 1, com: [0.5, 0, 0], inertia: [0.01, 0.05, 0.05]}\n"
    "initial:\n"
    "  joints: {hinge: {q: [0], v: [2]}, latch: {q: [0], v: [-1]}}\n"
    "integrator: {method: cvode-adams, rtol: 1e-11}\n"
    "time: {start: 0, end: 4}\n"
    "output: {dt: 0.01}\n";

static void restitution_and_latch(void **state) {
  (void)state;
  char dir[256];
  hg_scene *s = hg_test_scene_temp("stops", "bounce.yaml", bounce_text, dir, sizeof dir);
  hg_sim *sim = hg_test_sim(s, NAN, NULL);
  const hg_model *m = hg_sim_model(sim);
  int latch = hg_model_joint(m, "latch");
  int bounces = 0, latched = 0;
  double worst = 0;
  for (int k = 0; k < 400; k++) {
    int n0 = hg_sim_nevents(sim);
    assert_int_equal(hg_sim_run(sim, 0.01 * (k + 1)), HG_SIM_OK);
    for (int e = n0; e < hg_sim_nevents(sim); e++) {
      const hg_sim_event *ev = hg_sim_event_at(sim, e);
      worst = fmax(worst, hg_sim_event_momentum_change(ev));
      assert_true(ev->conserves);
      if (strstr(ev->details, "bounces")) {
        bounces++;
        printf("# %.9g s: %s\n", ev->t, ev->details);
      }
      if (strstr(ev->details, "latches")) latched++;
      assert_true(ev->details[0] != 0);
    }
  }
  /* the hinge bounces off both stops (the bus recoils: relative rates differ from 2, -1, ...),
   * the boom latched once and stays */
  assert_true(bounces >= 2);
  assert_int_equal(latched, 1);
  hg_sim_joint_view jv;
  hg_sim_joint(sim, latch, &jv);
  assert_int_equal(jv.mode, HG_MODE_LOCKED);
  /* momentum of the free system across every impact: round-off */
  if (!(worst <= 1e-12)) fail_msg("momentum changed by %g across an impact", worst);
  hg_sim_free(sim);
  hg_scene_free(s);
  hg_test_remove_dir(dir);
}

/* the rebound rate is -e times the impact rate: a fixed base, so the hinge's rate is absolute */
static void rebound_is_e_times_impact(void **state) {
  (void)state;
  char dir[256], text[sizeof scene_text + 64];
  assert_int_equal(hg_test_temp_dir("stops", dir, sizeof dir), 0);
  /* the panel of the first test with restitution 0.5 and no spring event */
  snprintf(text, sizeof text, "%s", scene_text);
  char *l = strstr(text, "upper: 0.5}");
  assert_non_null(l);
  memmove(l + strlen("upper: 0.5, restitution: 0.5}"), l + strlen("upper: 0.5}"),
          strlen(l + strlen("upper: 0.5}")) + 1);
  memcpy(l, "upper: 0.5, restitution: 0.5}", strlen("upper: 0.5, restitution: 0.5}"));
  hg_scene *s = hg_test_scene_text(dir, "rebound.yaml", text);
  hg_sim *sim = hg_test_sim(s, 0.9, NULL);
  assert_int_equal(hg_sim_run(sim, INFINITY), HG_SIM_OK);
  /* free at 2 rad/s: the upper stop at 0.25 s, back at -1 rad/s, the lower stop 1 s later */
  const hg_sim_event *ev = hg_sim_event_at(sim, 0);
  assert_non_null(ev);
  assert_non_null(strstr(ev->details, "bounces off its upper stop"));
  assert_true(fabs(ev->t - 0.25) <= 1e-9);
  const hg_model *m = hg_sim_model(sim);
  double v = hg_sim_v(sim)[m->v_adr[hg_model_joint(m, "hinge")]];
  assert_true(fabs(v + 1) <= 1e-12);
  /* the energy the bounce removed: I (2^2 - 1^2) / 2 = 0.9 J, booked as the event's work */
  assert_true(fabs(ev->e_before - ev->e_after - 0.9) <= 1e-12);
  hg_sim_budget b;
  hg_sim_get_budget(sim, &b);
  assert_true(fabs(b.value - b.initial) <= 1e-10 * b.scale);
  hg_sim_free(sim);
  hg_scene_free(s);
  hg_test_remove_dir(dir);
}

/* effort and velocity limits are checked at the output rows and counted in the summary: a
 * pendulum released from horizontal passes 1 rad/s (its lowest point reaches sqrt(3 g / l)
 * = 5.42 rad/s for a uniform 1 m rod), and a second one, locked horizontal, carries its weight's
 * moment m g l / 2 = 4.905 N m against an effort limit of 2 N m */
static void effort_and_velocity_limits_counted(void **state) {
  (void)state;
  static const char text[] =
      "gravity: [0, 0, -9.81]\n"
      "bodies:\n"
      "  - name: swing\n"
      "    joint: {type: revolute, axis: [0, 1, 0], limits: {velocity: 1}}\n"
      "    inertia: {mass: 1, com: [0.5, 0, 0], inertia: [0.0001, 0.0834, 0.0834]}\n"
      "  - name: held\n"
      "    joint: {type: revolute, axis: [0, 1, 0], pos: [0, 2, 0], limits: {effort: 2}}\n"
      "    inertia: {mass: 1, com: [0.5, 0, 0], inertia: [0.0001, 0.0834, 0.0834]}\n"
      "modes:\n"
      "  held: locked\n"
      "time: {start: 0, end: 1}\n"
      "output: {dt: 0.01}\n";
  char dir[256], path[320];
  hg_scene *s = hg_test_scene_temp("limits", "limits.yaml", text, dir, sizeof dir);
  hg_sim *sim = hg_test_sim(s, NAN, dir);
  assert_int_equal(hg_sim_run(sim, INFINITY), HG_SIM_OK);
  assert_int_equal(hg_sim_finish(sim), HG_SIM_OK);
  snprintf(path, sizeof path, "%s/summary.txt", dir);
  char *sum = hg_test_read_file(path, NULL);
  assert_non_null(sum);
  assert_non_null(strstr(sum, "limit_violations: 2"));
  const char *v = strstr(sum, "  swing velocity: beyond 1 in ");
  const char *e = strstr(sum, "  held effort (the load its lock or actuator carries): beyond 2 in 101 ");
  assert_non_null(v);
  assert_non_null(e);
  double worst = strtod(strstr(e, "worst ") + 6, NULL);
  printf("# held: worst load %.9g N m (m g l / 2 = 4.905)\n", worst);
  assert_true(fabs(worst - 4.905) <= 1e-9 * 4.905);
  free(sum);
  hg_sim_free(sim);
  hg_scene_free(s);
  hg_test_remove_dir(dir);
}

/* the shipped deployment (scenes/deploy.yaml): both hinges reach their stops and latch, each by
 * a momentum-conserving plastic impact; afterwards they are locked at 0 and the energy left is
 * the springs' preload, 2 x k (0.5 rad)^2 / 2 = 1.5 J (the panels at rest on the bus, the bus
 * at rest: the system's momentum is zero) */
static void deployment_latches(void **state) {
  (void)state;
  hg_scene *s;
  hg_sim *sim = hg_test_shipped_at("deploy", NAN, INFINITY, &s);
  assert_int_equal(hg_sim_nevents(sim), 3);
  for (int k = 1; k < 3; k++) {
    const hg_sim_event *ev = hg_sim_event_at(sim, k);
    assert_non_null(strstr(ev->details, "latches"));
    assert_true(ev->conserves && hg_sim_event_momentum_change(ev) < 1e-12);
  }
  const hg_model *m = hg_sim_model(sim);
  for (int k = 0; k < 2; k++) {
    hg_sim_joint_view jv;
    hg_sim_joint(sim, hg_model_joint(m, k ? "tip" : "root"), &jv);
    assert_int_equal(jv.mode, HG_MODE_LOCKED);
    assert_true(fabs(jv.q[0]) < 1e-9 && jv.v[0] == 0);
  }
  const hg_sim_event *last = hg_sim_event_at(sim, 2);
  hg_sim_budget b;
  hg_sim_get_budget(sim, &b);
  printf("# deploy: latches at %.6f s and %.6f s; energy after %.12g J (1.5); budget drift %.2g\n",
         hg_sim_event_at(sim, 1)->t, last->t, last->e_after, b.max_drift);
  assert_true(fabs(last->e_after - 1.5) < 1e-8); /* the stop's q to 1e-9 rad: k q dq ~ 1e-8 J */
  assert_true(b.max_drift < 1e-7);
  hg_sim_free(sim);
  hg_scene_free(s);
}

/* two mirror-image booms on a free bus, in zero gravity: mirror images across the bus's x-z
 * plane (boom a at +y turning +z, boom b at -y turning -z), so both reach their latching stops
 * at the same instant. Locked one after the other, they were two events that split the energy
 * removed unequally between the mirror latches (1.589 J to the first listed, 4.189 J to the
 * second, measured); the state after both is the same either way (the second projection's
 * subspace lies in the first's, so the M-orthogonal projections compose to the second), but the
 * log blamed whichever was listed first. Now both are one event, one impulse, in either order,
 * and the result keeps the mirror symmetry. %s and %s are the two booms in the order listed; boom c, on the bus's x axis
 * turning about y (its own mirror image), stays free, so the bus is not rigid after the
 * latches. */
static const char mirror_fmt[] =
    "gravity: [0, 0, 0]\n"
    "bodies:\n"
    "  - name: bus\n"
    "    joint: free\n"
    "    inertia: {mass: 20, inertia: [2, 2, 3]}\n"
    "%s%s"
    "  - name: boom_c\n"
    "    parent: bus\n"
    "    joint: {type: revolute, name: c, axis: [0, 1, 0], pos: [0.5, 0, 0]}\n"
    "    inertia: {mass: 2, com: [0.8, 0, 0], inertia: [0.01, 0.2, 0.2]}\n"
    "initial:\n"
    "  joints: {a: {q: [0], v: [1.5]}, b: {q: [0], v: [-1.5]}, c: {q: [0], v: [0.5]}}\n"
    "integrator: {method: cvode-adams, rtol: 1e-11, atol: 1e-13}\n"
    "time: {start: 0, end: 1}\n"
    "output: {dt: 0.01}\n";
static const char boom_a[] =
    "  - name: boom_a\n"
    "    parent: bus\n"
    "    joint: {type: revolute, name: a, axis: [0, 0, 1], pos: [0, 0.5, 0],\n"
    "            limits: {lower: -0.3, upper: 0.3, latch: upper}}\n"
    "    inertia: {mass: 3, com: [0, 1, 0], inertia: [0.2, 0.01, 0.2]}\n";
static const char boom_b[] =
    "  - name: boom_b\n"
    "    parent: bus\n"
    "    joint: {type: revolute, name: b, axis: [0, 0, 1], pos: [0, -0.5, 0],\n"
    "            limits: {lower: -0.3, upper: 0.3, latch: lower}}\n"
    "    inertia: {mass: 3, com: [0, -1, 0], inertia: [0.2, 0.01, 0.2]}\n";

/* the closed form of a perfectly plastic latch, at the mirror scene's latched configuration q:
 * the lock's velocity v+ is the mass-metric projection of v- onto the motions that keep the
 * latched joints at rest, so v- - v+ is M-orthogonal to v+ and the kinetic energy removed is
 * dv^T M dv / 2 (dv = v- - v+; Carnot's theorem, Brogliato, "Nonsmooth Mechanics"). The
 * lock of both latches at once removes what the two locks one after the other remove together
 * (nested projections), and, the two being mirror images, locking either one first removes the
 * same energy. */
static void plastic_latch_closed_form(const hg_model *m, const double *q) {
  hg_data *d = hg_data_new(m);
  assert_non_null(d);
  int nv = m->nv, a = hg_model_joint(m, "a"), b = hg_model_joint(m, "b");
  double *v = calloc((size_t)nv, sizeof *v), *v1 = calloc((size_t)nv, sizeof *v);
  double *v2 = calloc((size_t)nv, sizeof *v), *imp = calloc((size_t)nv, sizeof *v);
  double *M = calloc((size_t)nv * nv, sizeof *M);
  assert_true(v && v1 && v2 && imp && M);
  v[m->v_adr[a]] = 1.5, v[m->v_adr[b]] = -1.5, v[m->v_adr[hg_model_joint(m, "c")]] = 0.5;
  hg_crba(m, d, q, M);
  double both, first[2], second[2], ke = 0;
  d->mode[a] = d->mode[b] = HG_MODE_LOCKED;
  assert_int_equal(hg_plastic_lock(m, d, q, v, v2, imp, &both), 0);
  double quad = 0;
  for (int i = 0; i < nv; i++)
    for (int j = 0; j < nv; j++) {
      quad += (v[i] - v2[i]) * M[i * nv + j] * (v[j] - v2[j]) / 2;
      ke += v[i] * M[i * nv + j] * v[j] / 2;
    }
  for (int k = 0; k < 2; k++) {
    d->mode[a] = d->mode[b] = HG_MODE_FREE;
    d->mode[k ? b : a] = HG_MODE_LOCKED;
    assert_int_equal(hg_plastic_lock(m, d, q, v, v1, imp, &first[k]), 0);
    d->mode[a] = d->mode[b] = HG_MODE_LOCKED;
    assert_int_equal(hg_plastic_lock(m, d, q, v1, v2, imp, &second[k]), 0);
  }
  printf("# plastic latch: %.15g J removed (dv^T M dv / 2 = %.15g J); one after the other "
         "%.15g + %.15g (a first), %.15g + %.15g (b first)\n", both, quad, first[0], second[0],
         first[1], second[1]);
  /* round-off of sums of O(10) terms of size ~ke: 1e-13 relative to the kinetic energy */
  double tol = 1e-13 * ke;
  assert_true(fabs(both - quad) <= tol);
  assert_true(fabs(first[0] + second[0] - both) <= tol);
  assert_true(fabs(first[1] + second[1] - both) <= tol);
  assert_true(fabs(first[0] - first[1]) <= tol); /* mirror images */
  free(v), free(v1), free(v2), free(imp), free(M);
  hg_data_free(d);
}

/* runs the mirror scene with the booms in one order; the energy after the latches, the bus's
 * angular rate about z after, and the number of stop events */
static void mirror_run(int b_first, double *e_after, double *wz, int *nstop_events) {
  char dir[256], text[sizeof mirror_fmt + sizeof boom_a + sizeof boom_b];
  snprintf(text, sizeof text, mirror_fmt, b_first ? boom_b : boom_a, b_first ? boom_a : boom_b);
  hg_scene *s = hg_test_scene_temp("stops", "mirror.yaml", text, dir, sizeof dir);
  hg_sim *sim = hg_test_sim(s, NAN, NULL);
  assert_int_equal(hg_sim_run(sim, INFINITY), HG_SIM_OK);
  const hg_model *m = hg_sim_model(sim);
  *nstop_events = 0;
  int latches = 0;
  for (int e = 0; e < hg_sim_nevents(sim); e++) {
    const hg_sim_event *ev = hg_sim_event_at(sim, e);
    printf("# %s first: %.12g s: %s (%.15g J -> %.15g J)\n", b_first ? "b" : "a", ev->t,
           ev->details, ev->e_before, ev->e_after);
    if (strstr(ev->details, "stop")) ++*nstop_events, *e_after = ev->e_after;
    for (const char *p = ev->details; (p = strstr(p, "latches at")); p++) latches++;
  }
  assert_int_equal(latches, 2);
  for (int k = 0; k < 2; k++) {
    hg_sim_joint_view jv;
    hg_sim_joint(sim, hg_model_joint(m, k ? "b" : "a"), &jv);
    assert_int_equal(jv.mode, HG_MODE_LOCKED);
  }
  *wz = hg_sim_v(sim)[m->v_adr[hg_model_body(m, "bus")] + 2]; /* body twist (w, v): w_z */
  if (!b_first) plastic_latch_closed_form(m, hg_sim_q(sim));
  hg_sim_free(sim);
  hg_scene_free(s);
  hg_test_remove_dir(dir);
}

static void simultaneous_latches_one_impulse(void **state) {
  (void)state;
  double e[2], wz[2];
  int n[2];
  for (int k = 0; k < 2; k++) mirror_run(k, &e[k], &wz[k], &n[k]);
  printf("# energy after the latches: %.15g J (a first), %.15g J (b first); bus w_z %.3g, %.3g\n",
         e[0], e[1], wz[0], wz[1]);
  /* both stops of the instant fire as one event */
  assert_int_equal(n[0], 1);
  assert_int_equal(n[1], 1);
  /* the same physics listed in another order: the integrator's tolerances (rtol 1e-11 over
   * a second, the roots located to ~1e-12 s) bound the difference */
  if (!(fabs(e[0] - e[1]) <= 1e-9 * fabs(e[0])))
    fail_msg("energy after the latches depends on the order: %.15g vs %.15g J", e[0], e[1]);
  /* mirror symmetry: the bus does not turn (its rate is zero before the latches; a mirror-
   * symmetric impulse keeps it zero to round-off of the ~1 rad/s rates) */
  for (int k = 0; k < 2; k++)
    if (!(fabs(wz[k]) <= 1e-12)) fail_msg("the bus turns at %g rad/s after mirror latches", wz[k]);
}

/* latch: lower latches only at the lower stop: the boom hits its upper stop, is held, and is
 * released when a spring pulls it back, then latches at the lower stop for good */
static void one_sided_latch(void **state) {
  (void)state;
  char dir[256], text[sizeof scene_text + 64];
  snprintf(text, sizeof text, "%s", scene_text);
  char *l = strstr(text, "upper: 0.5}");
  assert_non_null(l);
  memmove(l + strlen("upper: 0.5, latch: lower}"), l + strlen("upper: 0.5}"),
          strlen(l + strlen("upper: 0.5}")) + 1);
  memcpy(l, "upper: 0.5, latch: lower}", strlen("upper: 0.5, latch: lower}"));
  hg_scene *s = hg_test_scene_temp("stops", "onesided.yaml", text, dir, sizeof dir);
  hg_sim *sim = hg_test_sim(s, NAN, NULL);
  assert_int_equal(hg_sim_run(sim, INFINITY), HG_SIM_OK);
  int hits = 0, leaves = 0, latches = 0;
  for (int e = 0; e < hg_sim_nevents(sim); e++) {
    const char *d = hg_sim_event_at(sim, e)->details;
    printf("# %.9g s: %s\n", hg_sim_event_at(sim, e)->t, d);
    hits += strstr(d, "hits its upper stop") != NULL;
    leaves += strstr(d, "leaves its upper stop") != NULL;
    latches += strstr(d, "latches at its lower stop") != NULL;
  }
  assert_int_equal(hits, 1);
  assert_int_equal(leaves, 1);
  assert_int_equal(latches, 1);
  hg_sim_free(sim);
  hg_scene_free(s);
  hg_test_remove_dir(dir);
}

/* a latch value that is not true, false, lower, upper or both: FILE:LINE:COLUMN and the choices */
static void bad_latch_value(void **state) {
  (void)state;
  char dir[256], path[300], text[sizeof scene_text + 64];
  snprintf(text, sizeof text, "%s", scene_text);
  char *l = strstr(text, "upper: 0.5}");
  assert_non_null(l);
  memmove(l + strlen("upper: 0.5, latch: up}"), l + strlen("upper: 0.5}"),
          strlen(l + strlen("upper: 0.5}")) + 1);
  memcpy(l, "upper: 0.5, latch: up}", strlen("upper: 0.5, latch: up}"));
  assert_int_equal(hg_test_temp_dir("stops", dir, sizeof dir), 0);
  snprintf(path, sizeof path, "%s/bad_latch.yaml", dir);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
  hg_error err;
  hg_scene *s = hg_scene_load(path, &err);
  assert_null(s);
  printf("# %s\n", err.msg);
  assert_non_null(strstr(err.msg, "bad_latch.yaml:4:"));
  assert_non_null(strstr(err.msg, "'latch' must be true, false, lower, upper or both, got 'up'"));
  hg_test_remove_dir(dir);
}

/* a set_mode of a latched joint replaces the latch, and its log line says so */
static void set_mode_unlatches(void **state) {
  (void)state;
  char dir[256], text[sizeof scene_text + 128];
  snprintf(text, sizeof text, "%s", scene_text);
  char *l = strstr(text, "upper: 0.5}");
  assert_non_null(l);
  memmove(l + strlen("upper: 0.5, latch: true}"), l + strlen("upper: 0.5}"),
          strlen(l + strlen("upper: 0.5}")) + 1);
  memcpy(l, "upper: 0.5, latch: true}", strlen("upper: 0.5, latch: true}"));
  const char *from = "do: [{enable: back}]", *to = "do: [{set_mode: {joint: hinge, mode: free}}]";
  char *e = strstr(text, from);
  assert_non_null(e);
  memmove(e + strlen(to), e + strlen(from), strlen(e + strlen(from)) + 1);
  memcpy(e, to, strlen(to));
  hg_scene *s = hg_test_scene_temp("stops", "unlatch.yaml", text, dir, sizeof dir);
  hg_sim *sim = hg_test_sim(s, NAN, NULL);
  assert_int_equal(hg_sim_run(sim, INFINITY), HG_SIM_OK);
  int told = 0;
  for (int k = 0; k < hg_sim_nevents(sim); k++) {
    printf("# %.9g s: %s\n", hg_sim_event_at(sim, k)->t, hg_sim_event_at(sim, k)->details);
    told += strstr(hg_sim_event_at(sim, k)->details,
                   "joint hinge unlatches from its upper stop") != NULL;
  }
  assert_int_equal(told, 1);
  hg_sim_free(sim);
  hg_scene_free(s);
  hg_test_remove_dir(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(stops_hold_and_release),
                                     cmocka_unit_test(restitution_and_latch),
                                     cmocka_unit_test(rebound_is_e_times_impact),
                                     cmocka_unit_test(effort_and_velocity_limits_counted),
                                     cmocka_unit_test(deployment_latches),
                                     cmocka_unit_test(simultaneous_latches_one_impulse),
                                     cmocka_unit_test(one_sided_latch),
                                     cmocka_unit_test(bad_latch_value),
                                     cmocka_unit_test(set_mode_unlatches)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
