/* test_events_soak.c: thousands of random commands (lock, free, detach, attach, undock) on a
 * 13-body floating tree with every joint type (tests/data/scenes/every_joint_tree.yaml), in zero
 * gravity, run to the end:
 *  - no event fails the run (a re-rooting through the planar joint is refused and logged);
 *  - momentum is conserved across each event to 1e-12 of the bodies' summed momenta (every one
 *    of these actions is internal: plastic locks, topology changes that keep every body's motion);
 *  - between events, the momentum drifts only by integration error.
 * An attach between bodies of one tree closes a weld loop (named like a docking joint), which
 * an undock opens again; the test keeps at most MAX_LOOPS loops closed (a tree held by dozens of
 * redundant welds is not what it tests), undocking one instead of attaching when it has that many.
 * 10,000 events (1,000 with HINGE_TEST_QUICK set, as the sanitizer build does). Prints the run time. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim.h"

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* a random joint of the current model that is neither fixed nor a tree's joint to the world
 * (locking that one would hold the tree to the world: an outside impulse) */
static const char *random_joint(const hg_model *m, hg_rng *r) {
  for (int tries = 0; tries < 1000; tries++) {
    int i = 1 + (int)(hg_rng_uniform(r) * (m->nbody - 1));
    if (m->jnt[i].type != HG_JOINT_FIXED && m->parent[i] != 0) return m->jnt_name[i];
  }
  return NULL;
}

#define MAX_LOOPS 4

/* the closed loops an attach made (their names start with "dock"), and one of them at random */
static int closed_docks(hg_sim *sim, hg_rng *r, const char **pick) {
  int n = 0;
  *pick = NULL;
  for (int k = 0; k < hg_sim_nloop(sim); k++) {
    hg_sim_loop_view lv;
    hg_sim_loop(sim, k, &lv);
    if (!lv.active || strncmp(lv.name, "dock", 4) != 0) continue;
    n++;
    if (hg_rng_uniform(r) * n < 1) *pick = lv.name; /* reservoir: each equally likely */
  }
  return n;
}

/* one random command for the current model into text */
static void random_command(hg_sim *sim, hg_rng *r, int k, char *text, size_t len) {
  const hg_model *m = hg_sim_model(sim);
  const char *loop;
  int nloop = closed_docks(sim, r, &loop);
  static const char *const bodies[] = {"base", "b1", "b2", "b3", "c1", "c2", "c3",
                                       "d1",   "d2", "d3", "e1", "e2", "e3"};
  double u = hg_rng_uniform(r);
  if (u < 0.55 && !random_joint(m, r)) u = 0.6; /* every body floats alone: detach or attach */
  if (u < 0.3) {
    /* lock one to three joints in one impulse */
    int n = 1 + (int)(hg_rng_uniform(r) * 3);
    size_t at = (size_t)snprintf(text, len, "lock");
    for (int j = 0; j < n; j++) at += (size_t)snprintf(text + at, len - at, " %s", random_joint(m, r));
  } else if (u < 0.55) {
    snprintf(text, len, "free %s %s", random_joint(m, r), random_joint(m, r));
  } else if (u < 0.7) {
    snprintf(text, len, "detach %s", bodies[1 + (int)(hg_rng_uniform(r) * 12)]);
  } else if (u < 0.9 && nloop < MAX_LOOPS) {
    int ia = (int)(hg_rng_uniform(r) * 13), ib = (ia + 1 + (int)(hg_rng_uniform(r) * 12)) % 13;
    const char *a = bodies[ia], *b = bodies[ib];
    snprintf(text, len, "attach m_%s m_%s dock%d", a, b, k);
  } else {
    /* undock a docking joint or open a dock loop if there is one, else free a joint */
    if (loop && (nloop >= MAX_LOOPS || hg_rng_uniform(r) < 0.5)) {
      snprintf(text, len, "undock %s", loop);
      return;
    }
    for (int i = m->nbody - 1; i > 0; i--)
      if (strncmp(m->jnt_name[i], "dock", 4) == 0) {
        snprintf(text, len, "undock %s%s", m->jnt_name[i], hg_rng_uniform(r) < 0.5 ? " detach" : "");
        return;
      }
    snprintf(text, len, "free %s", random_joint(m, r));
  }
}

static void thousands_of_events(void **state) {
  (void)state;
  int nev = getenv("HINGE_TEST_QUICK") ? 1000 : 10000;
  hg_error err;
  hg_scene *s = hg_scene_load("data/scenes/every_joint_tree.yaml", &err);
  if (!s) fail_msg("%s", err.msg);
  hg_sim_options opt;
  hg_sim_default_options(&opt);
  opt.t_end = 0.01 * nev + 0.01;
  hg_sim *sim = hg_sim_new(s, &opt, &err);
  if (!sim) fail_msg("%s", err.msg);
  hg_rng r;
  /* HG_SOAK_SEED explores other sequences (the test's own is 2026) */
  hg_rng_seed(&r, getenv("HG_SOAK_SEED") ? strtoull(getenv("HG_SOAK_SEED"), NULL, 10) : 2026);
  double worst = 0, w0 = now_s();
  int attaches = 0, refused_reroot = 0, skipped = 0;
  for (int k = 0; k < nev; k++) {
    char text[256];
    hg_command c;
    if (hg_sim_run(sim, 0.01 * (k + 1)) != HG_SIM_OK)
      fail_msg("event %d: the run failed: %s", k, hg_sim_error(sim));
    random_command(sim, &r, k, text, sizeof text);
    if (hg_sim_parse_command(sim, text, &c, &err)) fail_msg("'%s': %s", text, err.msg);
    if (hg_sim_command(sim, &c) != HG_SIM_OK)
      fail_msg("event %d '%s' at t = %g: %s", k, text, hg_sim_time(sim), hg_sim_error(sim));
    hg_command_free(&c);
    const hg_sim_event *ev = hg_sim_event_at(sim, hg_sim_nevents(sim) - 1);
    double dh = 0;
    for (int j = 0; j < 6; j++) dh = fmax(dh, fabs(ev->h_after[j] - ev->h_before[j]));
    double scale = fmax(ev->h_scale[0], ev->h_scale[1]);
    /* every action here is internal: momentum is kept to round-off (measured ~1e-15) */
    if (!(dh <= 1e-12 * scale))
      fail_msg("event %d '%s' at t = %g: momentum changed by %g of %g (%s)", k, text, ev->t, dh,
               scale, ev->details);
    worst = fmax(worst, dh / scale);
    attaches += strncmp(text, "attach", 6) == 0 && strstr(ev->details, "dock ") != NULL;
    refused_reroot += strstr(ev->details, "REFUSED attach") != NULL;
    skipped += strstr(ev->details, "skipped") != NULL;
  }
  assert_int_equal(hg_sim_run(sim, INFINITY), HG_SIM_OK);
  double wall = now_s() - w0;
  assert_int_equal(hg_sim_nevents(sim), nev);
  assert_true(attaches > nev / 100);
  if (!getenv("HG_SOAK_SEED")) assert_true(refused_reroot > 0);
  printf("# %d random events to t = %g s in %.2f s wall: %d docks, %d refused re-rootings "
         "(planar), %d skipped; worst momentum change across an event %.2g\n",
         nev, hg_sim_time(sim), wall, attaches, refused_reroot, skipped, worst);
  hg_sim_free(sim);
  hg_scene_free(s);
}

/* docking that would re-root through the planar joint is refused, logged, and the run goes on */
static void planar_reroot_is_refused(void **state) {
  (void)state;
  hg_error err;
  hg_scene *s = hg_scene_load("data/scenes/every_joint_tree.yaml", &err);
  if (!s) fail_msg("%s", err.msg);
  hg_sim_options opt;
  hg_sim_default_options(&opt);
  opt.t_end = 1;
  hg_sim *sim = hg_sim_new(s, &opt, &err);
  const char *texts[] = {"detach e1", "attach m_e1 m_c3", "attach m_c3 m_e1"};
  for (int k = 0; k < 3; k++) {
    hg_command c;
    assert_int_equal(hg_sim_run(sim, 0.2 * (k + 1)), HG_SIM_OK);
    if (hg_sim_parse_command(sim, texts[k], &c, &err)) fail_msg("%s", err.msg);
    assert_int_equal(hg_sim_command(sim, &c), HG_SIM_OK);
    hg_command_free(&c);
  }
  /* c3 hangs from c2 by the planar joint: it cannot become its tree's root */
  const hg_sim_event *ev = hg_sim_event_at(sim, 1);
  assert_non_null(strstr(ev->details, "REFUSED attach m_c3 to m_e1"));
  assert_non_null(strstr(ev->details, "planar joint j_c3"));
  /* the other way round, e1's tree docks under c3 (e1 is its own root: nothing reverses) */
  ev = hg_sim_event_at(sim, 2);
  assert_non_null(strstr(ev->details, "dock m_e1 to m_c3"));
  assert_int_equal(hg_sim_refused(sim), 1);
  assert_int_equal(hg_sim_run(sim, INFINITY), HG_SIM_OK);
  printf("# %s\n", hg_sim_event_at(sim, 1)->details);
  hg_sim_free(sim);
  hg_scene_free(s);
}

/* a loop closed while running (an attach within one tree, the scene starting with none) stays
 * closed: the integrator gains the projection a scene with loops starts with. Without it the
 * markers drifted apart by integration error (2.5e-10 m 0.03 s after the attach), and the next
 * closing event's projection pulled them together again, a momentum change of 2.6e-11 of the
 * bodies' summed momenta booked to that event. */
static void loop_closed_while_running_stays_closed(void **state) {
  (void)state;
  hg_error err;
  hg_scene *s = hg_scene_load("data/scenes/every_joint_tree.yaml", &err);
  if (!s) fail_msg("%s", err.msg);
  hg_sim_options opt;
  hg_sim_default_options(&opt);
  opt.t_end = 2;
  hg_sim *sim = hg_sim_new(s, &opt, &err);
  if (!sim) fail_msg("%s", err.msg);
  const char *texts[] = {"attach m_b3 m_d3 dock_a", "attach m_c2 m_e2 dock_b"};
  double worst = 0;
  for (int k = 0; k < 2; k++) {
    hg_command c;
    assert_int_equal(hg_sim_run(sim, 0.5 * (k + 1)), HG_SIM_OK);
    if (hg_sim_parse_command(sim, texts[k], &c, &err)) fail_msg("%s", err.msg);
    assert_int_equal(hg_sim_command(sim, &c), HG_SIM_OK);
    hg_command_free(&c);
    const hg_sim_event *ev = hg_sim_event_at(sim, hg_sim_nevents(sim) - 1);
    if (!strstr(ev->details, "close loop")) fail_msg("'%s': %s", texts[k], ev->details);
    worst = fmax(worst, hg_sim_event_momentum_change(ev));
  }
  assert_int_equal(hg_sim_run(sim, INFINITY), HG_SIM_OK);
  /* the projection holds each residual row to 1e-11 (m and rad); 1e-10 leaves room for the
   * rows' combination into a distance */
  for (int k = 0; k < hg_sim_nloop(sim); k++) {
    hg_sim_loop_view lv;
    hg_sim_loop(sim, k, &lv);
    if (!(lv.distance <= 1e-10 && lv.angle <= 1e-10))
      fail_msg("loop %s open by %g m %g rad at t = 2", lv.name, lv.distance, lv.angle);
  }
  if (!(worst <= 1e-12)) fail_msg("momentum changed by %g across a closing", worst);
  printf("# two loops closed while running: worst momentum change %.2g\n", worst);
  hg_sim_free(sim);
  hg_scene_free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(planar_reroot_is_refused),
                                     cmocka_unit_test(loop_closed_while_running_stays_closed),
                                     cmocka_unit_test(thousands_of_events)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
