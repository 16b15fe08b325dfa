/* test_commands.c: the runtime's one command path (sim.h "commands") and immutable scenes.
 *
 *  - a scene is never modified by a run: two simulations of one scene with topology events, one
 *    after the other and two at once in threads, give bit-identical states and event logs;
 *  - a command applied now at a stop (hg_sim_command) and the same command scheduled for that
 *    time (hg_sim_schedule) give bit-identical runs; so does a command at a time that is also an
 *    output time;
 *  - locking two moving joints in one command is one plastic impulse: momentum is kept to
 *    round-off and the energy removed equals the simultaneous lock of both computed directly by
 *    hg_plastic_lock (a sequence of two locks removes a different amount);
 *  - a profile that would make its joint jump is refused and logged, the joint keeps its mode;
 *  - detaching a body whose joint carries a spring turns the spring off (it used to keep
 *    pulling the free body towards the world origin, adding 50 J);
 *  - command files: every action reads, and bad lines give FILE:LINE with a suggestion;
 *  - close and open name a loop of the scene, a docking joint's name or a loop the running
 *    simulation passes, with the same checks in command files and typed commands;
 *  - a perturb whose target moves with the free-flying bodies' centre of mass (`com`) or is fixed
 *    in a body is an internal force: the total momentum stays to round-off, the pulled body
 *    moves as it does at rest when the whole scene flies at 7.7 km/s.
 *
 * Runs in the tests folder (CTest's working directory): scenes are ../scenes/NAME.yaml. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>

#include "dynamics.h"
#include "files.h"
#include "sims.h"

/* ---- helpers ---- */

static int mkdir_p(const char *path) { return mkdir(path, 0755); }

static hg_command parse(const hg_scene *s, const char *text) {
  hg_command c;
  hg_error err;
  if (hg_command_parse(s, text, NULL, 0, &c, &err)) fail_msg("'%s': %s", text, err.msg);
  return c;
}

/* 1 when two simulations hold the same model, state and event log, bit for bit */
static int same_run(const hg_sim *a, const hg_sim *b) {
  const hg_model *ma = hg_sim_model(a), *mb = hg_sim_model(b);
  if (ma->nq != mb->nq || ma->nv != mb->nv || hg_sim_time(a) != hg_sim_time(b)) return 0;
  if (memcmp(hg_sim_q(a), hg_sim_q(b), (size_t)ma->nq * sizeof(double)) ||
      memcmp(hg_sim_v(a), hg_sim_v(b), (size_t)ma->nv * sizeof(double)))
    return 0;
  if (hg_sim_nevents(a) != hg_sim_nevents(b)) return 0;
  for (int k = 0; k < hg_sim_nevents(a); k++) {
    const hg_sim_event *ea = hg_sim_event_at(a, k), *eb = hg_sim_event_at(b, k);
    if (ea->t != eb->t || strcmp(ea->details, eb->details) ||
        memcmp(ea->h_after, eb->h_after, sizeof ea->h_after) || ea->e_after != eb->e_after)
      return 0;
  }
  return 1;
}

/* ---- scenes are immutable ---- */

typedef struct job {
  const hg_scene *s;
  hg_sim *sim;
  int rc;
} job;

static void *run_job(void *arg) {
  job *j = arg;
  hg_error err;
  hg_sim_options opt;
  hg_sim_default_options(&opt);
  j->sim = hg_sim_new(j->s, &opt, &err);
  j->rc = j->sim ? hg_sim_run(j->sim, INFINITY) : -1;
  return NULL;
}

static void runs_repeat_bit_for_bit(void **state) {
  (void)state;
  /* undock: a docked pair undocks (a topology change); dock: a capture docks (another) */
  const char *scenes[] = {"../scenes/undock.yaml", "../scenes/dock.yaml",
                          "../scenes/release.yaml"};
  for (int k = 0; k < 3; k++) {
    hg_scene *s = hg_test_scene(scenes[k]);
    job j[4];
    for (int r = 0; r < 2; r++) {
      j[r].s = s;
      run_job(&j[r]);
      assert_int_equal(j[r].rc, HG_SIM_OK);
    }
    /* two more at once, from threads, on the same scene */
    pthread_t th[2];
    for (int r = 2; r < 4; r++) {
      j[r].s = s;
      assert_int_equal(pthread_create(&th[r - 2], NULL, run_job, &j[r]), 0);
    }
    for (int r = 2; r < 4; r++) pthread_join(th[r - 2], NULL);
    assert_true(hg_sim_nevents(j[0].sim) > 0);
    for (int r = 1; r < 4; r++) {
      assert_int_equal(j[r].rc, HG_SIM_OK);
      if (!same_run(j[0].sim, j[r].sim)) fail_msg("%s: run %d differs from run 0", scenes[k], r);
    }
    printf("# %s: 4 runs (2 in threads), %d events, identical\n", scenes[k],
           hg_sim_nevents(j[0].sim));
    for (int r = 0; r < 4; r++) hg_sim_free(j[r].sim);
    hg_scene_free(s);
  }
}

/* ---- a command now and the same command scheduled ---- */

static void command_now_equals_scheduled(void **state) {
  (void)state;
  hg_scene *s = hg_test_scene("../scenes/freeze_thaw.yaml");
  /* 1.234 s is no output time; 2.5 s is (output dt 0.01 s) */
  const double times[] = {1.234, 2.5};
  const char *texts[] = {"lock a2 b3", "prescribe c2 {type: move, target: [0.8], duration: 1}"};
  for (int k = 0; k < 2; k++) {
    hg_sim *now = hg_test_sim(s, 4, NULL), *sched = hg_test_sim(s, 4, NULL);
    hg_command c = parse(s, texts[k]);
    c.t = times[k];
    assert_int_equal(hg_sim_schedule(sched, &c), HG_SIM_OK);
    assert_int_equal(hg_sim_run(now, times[k]), HG_SIM_OK);
    assert_true(hg_sim_time(now) == times[k]);
    assert_int_equal(hg_sim_command(now, &c), HG_SIM_OK);
    assert_int_equal(hg_sim_run(now, INFINITY), HG_SIM_OK);
    assert_int_equal(hg_sim_run(sched, INFINITY), HG_SIM_OK);
    if (!same_run(now, sched)) fail_msg("'%s' at %g: applied now and scheduled differ", texts[k],
                                        times[k]);
    int applied = 0;
    assert_non_null(hg_sim_command_at(sched, 0, &applied));
    assert_true(applied);
    hg_command_free(&c);
    hg_sim_free(now);
    hg_sim_free(sched);
  }
  hg_scene_free(s);
}

/* ---- an interactive session replays byte for byte ---- */

/* a run of s writing its outputs into dir; interactive: commands applied at their times between
 * hg_sim_run calls; otherwise the session file is scheduled up front */
static void session_run(const hg_scene *s, const char *dir, const char *const *texts,
                        const double *times, int n, const char *session_in,
                        const char *session_out) {
  hg_error err;
  hg_sim *sim = hg_test_sim(s, 5, dir);
  if (session_in) {
    hg_command_list cl;
    if (hg_commands_load(s, session_in, &cl, &err)) fail_msg("%s", err.msg);
    for (int k = 0; k < cl.n; k++) assert_int_equal(hg_sim_schedule(sim, &cl.cmd[k]), HG_SIM_OK);
    hg_commands_free(&cl);
  }
  for (int k = 0; k < n; k++) {
    hg_command c;
    /* frames of a viewer: several stops before each command */
    for (int f = 1; f <= 3; f++)
      assert_int_equal(hg_sim_run(sim, times[k] - (3 - f) * 0.0123), HG_SIM_OK);
    if (hg_sim_parse_command(sim, texts[k], &c, &err)) fail_msg("%s", err.msg);
    assert_int_equal(hg_sim_command(sim, &c), HG_SIM_OK);
    hg_command_free(&c);
  }
  assert_int_equal(hg_sim_run(sim, INFINITY), HG_SIM_OK);
  assert_int_equal(hg_sim_finish(sim), HG_SIM_OK);
  if (session_out) assert_int_equal(hg_sim_write_commands(sim, session_out), HG_SIM_OK);
  hg_sim_free(sim);
}

static void session_replays_byte_for_byte(void **state) {
  (void)state;
  char dir[256], a[300], b[300], session[300], fa[400], fb[400];
  assert_int_equal(hg_test_temp_dir("session", dir, sizeof dir), 0);
  snprintf(a, sizeof a, "%s/live", dir);
  snprintf(b, sizeof b, "%s/replay", dir);
  snprintf(session, sizeof session, "%s/session.txt", dir);
  assert_int_equal(mkdir_p(a), 0);
  assert_int_equal(mkdir_p(b), 0);
  hg_scene *s = hg_test_scene("../scenes/freeze_thaw.yaml");
  /* times between output rows, on one, and commands of every kind a viewer sends */
  const char *texts[] = {"lock a2 b3", "perturb c2 0.1 0 0  1 1 1  20 1", "set a3 {v: [0.5]}",
                         "release", "free a2", "detach b1"};
  const double times[] = {0.8371, 1.5, 2.25, 2.6180339887, 3.0, 3.14159};
  session_run(s, a, texts, times, 6, NULL, session);
  session_run(s, b, NULL, NULL, 0, session, NULL);
  const char *files[] = {"trajectory.csv", "events.csv"};
  for (int k = 0; k < 2; k++) {
    size_t la, lb;
    snprintf(fa, sizeof fa, "%s/%s", a, files[k]);
    snprintf(fb, sizeof fb, "%s/%s", b, files[k]);
    char *xa = hg_test_read_file(fa, &la), *xb = hg_test_read_file(fb, &lb);
    assert_non_null(xa);
    assert_non_null(xb);
    if (la != lb || memcmp(xa, xb, la)) fail_msg("%s of the live session and its replay differ", files[k]);
    printf("# %s: %zu bytes, identical\n", files[k], la);
    free(xa);
    free(xb);
  }
  hg_scene_free(s);
  hg_test_remove_dir(dir);
}

/* ---- several locks, one impulse ---- */

static void simultaneous_lock_is_one_impulse(void **state) {
  (void)state;
  hg_scene *s;
  hg_sim *sim = hg_test_shipped_at("freeze_thaw", 10, 0.5, &s);
  /* the expected outcome: both joints locked at once by hg_plastic_lock on a copy of the state */
  const hg_model *m = hg_sim_model(sim);
  hg_data *d = hg_data_new(m);
  double *va = calloc((size_t)m->nv, sizeof(double)), *imp = calloc((size_t)m->nv, sizeof(double));
  double removed, ke0, pe;
  int a3 = hg_model_joint(m, "a3"), b2 = hg_model_joint(m, "b2");
  d->mode[a3] = d->mode[b2] = HG_MODE_LOCKED;
  /* (freeze_thaw locks a1 at t = 1 s; nothing else is locked at 0.5 s) */
  assert_int_equal(hg_plastic_lock(m, d, hg_sim_q(sim), hg_sim_v(sim), va, imp, &removed), 0);
  hg_energy(m, d, hg_sim_q(sim), hg_sim_v(sim), &ke0, &pe);
  hg_command c = parse(s, "lock a3 b2");
  assert_int_equal(hg_sim_command(sim, &c), HG_SIM_OK);
  const hg_sim_event *ev = hg_sim_event_at(sim, hg_sim_nevents(sim) - 1);
  /* the impulse is the one of the simultaneous lock: same velocities, same energy removed */
  double dv = 0;
  for (int k = 0; k < m->nv; k++) dv = fmax(dv, fabs(hg_sim_v(sim)[k] - va[k]));
  if (!(removed > 1e-2)) fail_msg("removed %g, ke %g", removed, ke0);
  assert_true(dv <= 1e-14 * 10);
  assert_true(fabs(ev->e_lock - removed) <= 1e-12 * ke0);
  /* momentum kept across the event to round-off; logged as conserving */
  double dh = 0, hs = 0;
  for (int k = 0; k < 6; k++) {
    dh = fmax(dh, fabs(ev->h_after[k] - ev->h_before[k]));
    hs = fmax(hs, fabs(ev->h_before[k]));
  }
  assert_true(dh <= 1e-13 * hs);
  assert_true(ev->conserves);
  printf("# lock a3 b2 at 0.5 s: %.6g J removed (direct: %.6g J), momentum change %.2g\n",
         ev->e_lock, removed, dh / hs);
  hg_command_free(&c);
  free(va);
  free(imp);
  hg_data_free(d);
  hg_sim_free(sim);
  hg_scene_free(s);
}

/* ---- a profile that would jump is refused ---- */

static void jumping_profile_is_refused(void **state) {
  (void)state;
  hg_scene *s;
  hg_sim *sim = hg_test_shipped_at("freeze_thaw", 3, 0.5, &s);
  /* b1 is near 0.3 rad, the spline starts at 1.4 rad */
  hg_command c = parse(s, "prescribe b1 {type: spline, times: [0, 1], samples: [[1.4], [1.5]]}");
  const hg_model *m = hg_sim_model(sim);
  int b1 = hg_model_joint(m, "b1");
  assert_int_equal(hg_sim_command(sim, &c), HG_SIM_OK);
  const hg_sim_event *ev = hg_sim_event_at(sim, hg_sim_nevents(sim) - 1);
  hg_sim_joint_view jv;
  hg_sim_joint(sim, b1, &jv);
  assert_int_equal(jv.mode, HG_MODE_FREE);
  assert_int_equal(hg_sim_refused(sim), 1);
  assert_non_null(strstr(ev->details, "REFUSED"));
  assert_non_null(strstr(ev->details, "(1.4)"));
  assert_true(fabs(ev->e_after - ev->e_before) <= 1e-12 * fabs(ev->e_before));
  printf("# %s\n", ev->details);
  /* a spline starting where the joint is, is accepted */
  char text[160];
  snprintf(text, sizeof text, "prescribe b1 {type: spline, times: [0, 1], samples: [[%.17g], [1]]}",
           jv.q[0]);
  hg_command ok = parse(s, text);
  assert_int_equal(hg_sim_command(sim, &ok), HG_SIM_OK);
  hg_sim_joint(sim, b1, &jv);
  assert_int_equal(jv.mode, HG_MODE_PRESCRIBED);
  assert_int_equal(hg_sim_run(sim, INFINITY), HG_SIM_OK);
  hg_command_free(&c);
  hg_command_free(&ok);
  hg_sim_free(sim);
  hg_scene_free(s);
}

/* ---- forces across a detach ---- */

static const char spring_scene[] =
    "gravity: [0, 0, 0]\n"
    "bodies:\n"
    "  - name: arm\n"
    "    joint: {type: revolute, name: hinge, axis: [0, 0, 1], pos: [0, 0, 0]}\n"
    "    inertia: {mass: 2, com: [0.5, 0, 0], inertia: [0.001, 0.1, 0.1]}\n"
    "forces:\n"
    "  - {name: hinge_spring, type: joint_spring, joint: hinge, stiffness: 3}\n"
    "initial:\n"
    "  joints: {hinge: {q: [0.4], v: [0]}}\n"
    "events:\n"
    "  - {name: let_go, at: 0.7, do: [{detach: arm}]}\n"
    "integrator: {method: cvode-adams, rtol: 1e-10}\n"
    "time: {start: 0, end: 3}\n"
    "output: {dt: 0.01}\n";

static void detach_turns_the_joint_spring_off(void **state) {
  (void)state;
  char dir[256];
  hg_scene *s = hg_test_scene_temp("commands", "spring.yaml", spring_scene, dir, sizeof dir);
  hg_sim *sim = hg_test_sim(s, 3, NULL);
  assert_int_equal(hg_sim_run(sim, 1.0), HG_SIM_OK);
  const hg_sim_event *ev = hg_sim_event_at(sim, 0);
  assert_non_null(ev);
  /* the spring's energy leaves with it; nothing is added */
  assert_true(ev->e_after <= ev->e_before + 1e-12);
  hg_force_view fv;
  hg_sim_force(sim, 0, &fv);
  assert_true(fv.inert || fv.magnitude == 0);
  /* the free arm moves with constant momentum from now on */
  double h1[6], h2[6];
  hg_sim_momentum(sim, h1);
  assert_int_equal(hg_sim_run(sim, INFINITY), HG_SIM_OK);
  hg_sim_momentum(sim, h2);
  double dh = 0, hs = 1e-300;
  for (int k = 0; k < 6; k++) dh = fmax(dh, fabs(h2[k] - h1[k])), hs = fmax(hs, fabs(h1[k]));
  /* 2.3 s at rtol 1e-10: the drift is integration error (measured 4.6e-9 relative); the spring
   * that kept acting on the free body before the fix moved the momentum by O(1) */
  if (!(dh <= 1e-6 * hs)) fail_msg("momentum drift %g of %g", dh, hs);
  printf("# detach: energy %.6g J -> %.6g J, momentum drift afterwards %.2g\n", ev->e_before,
         ev->e_after, dh / hs);
  hg_sim_free(sim);
  hg_scene_free(s);
  hg_test_remove_dir(dir);
}

/* ---- command files ---- */

static int load_commands(const hg_scene *s, const char *dir, const char *text,
                         hg_command_list *cl, hg_error *err) {
  char path[512];
  snprintf(path, sizeof path, "%s/cmds.txt", dir);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
  return hg_commands_load(s, path, cl, err);
}

static void every_action_reads(void **state) {
  (void)state;
  char dir[256];
  hg_command_list cl;
  hg_error err;
  assert_int_equal(hg_test_temp_dir("commands", dir, sizeof dir), 0);
  hg_scene *s = hg_test_scene("../scenes/undock.yaml");
  const char *text =
      "# every action once\n"
      "0.5 free arm_j1\n"
      "1 lock arm_j1   # freeze again\n"
      "1.5 prescribe arm_j2 {type: hold}\n"
      "2 disable pushoff_1\n"
      "2.5 enable pushoff_1\n"
      "3 impulse client 0 0 1  0 0 0.1\n"
      "3.5 undock latch detach\n"
      "4 attach servicer_port client_port redock\n"
      "4.5 undock redock\n"
      "5 detach arm_link6\n"
      "6 remove arm_link6\n";
  if (load_commands(s, dir, text, &cl, &err)) fail_msg("%s", err.msg);
  assert_int_equal(cl.n, 11);
  const hg_action_type types[] = {HG_ACTION_SET_MODE,     HG_ACTION_SET_MODE, HG_ACTION_SET_MODE,
                                  HG_ACTION_DISABLE_FORCE, HG_ACTION_ENABLE_FORCE,
                                  HG_ACTION_IMPULSE,      HG_ACTION_UNDOCK,   HG_ACTION_ATTACH,
                                  HG_ACTION_UNDOCK,       HG_ACTION_DETACH,   HG_ACTION_REMOVE};
  for (int k = 0; k < cl.n; k++) {
    assert_int_equal(cl.cmd[k].naction, 1);
    assert_int_equal(cl.cmd[k].action[0].type, types[k]);
  }
  assert_int_equal(cl.cmd[0].src.line, 2);
  assert_true(cl.cmd[5].action[0].linear[2] == 1 && cl.cmd[5].action[0].angular[2] == 0.1);
  assert_string_equal(cl.cmd[2].text, "prescribe arm_j2 {type: hold}");
  /* and the run goes through them all */
  hg_sim *sim = hg_test_sim(s, 7, NULL);
  for (int k = 0; k < cl.n; k++) assert_int_equal(hg_sim_schedule(sim, &cl.cmd[k]), HG_SIM_OK);
  assert_int_equal(hg_sim_run(sim, INFINITY), HG_SIM_OK);
  assert_true(hg_sim_nevents(sim) >= 11);
  hg_sim_free(sim);
  hg_commands_free(&cl);
  hg_scene_free(s);
  hg_test_remove_dir(dir);
}

static void bad_lines_name_file_and_line(void **state) {
  (void)state;
  char dir[256];
  hg_command_list cl;
  hg_error err;
  assert_int_equal(hg_test_temp_dir("commands", dir, sizeof dir), 0);
  hg_scene *s = hg_test_scene("../scenes/undock.yaml");
  static const struct {
    const char *text, *expect;
  } bad[] = {
      {"1 lock arm_j1\n\n2 lok arm_j1\n", "cmds.txt:3: unknown action 'lok' (did you mean 'lock')"},
      {"1 lock arm_j11\n", "cmds.txt:1: unknown joint 'arm_j11' (did you mean 'arm_j1'?)"},
      {"x lock arm_j1\n", "cmds.txt:1: expected 'TIME ACTION ARGUMENTS'"},
      {"# a comment\n1 impulse client 0 0 1\n", "cmds.txt:2: impulse MARKER_OR_BODY"},
      {"1 impulse client 0 0 one 0 0 0\n", "cmds.txt:1:"},
      {"1 enable pushof_1\n", "cmds.txt:1: unknown force element 'pushof_1' (did you mean 'pushoff_1'?)"},
      {"1 prescribe arm_j1 {type: move, target: [1]}\n", "cmds.txt:1:"},
      {"1 prescribe arm_j1 {type: move\n", "cmds.txt:1:"},
      {"1 undock latch now\n", "cmds.txt:1: undock JOINT [detach]"},
      {"-5 lock arm_j1\n", "cmds.txt:1: time -5 is before the scene's start time"},
      {"# only comments\n\n", "no command"},
      {"1 detach world\n", "cmds.txt:1:"},
  };
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    if (load_commands(s, dir, bad[k].text, &cl, &err) == 0)
      fail_msg("accepted: %s", bad[k].text);
    if (!strstr(err.msg, bad[k].expect)) fail_msg("'%s' for\n%s", err.msg, bad[k].text);
    /* FILE:LINE: message, never a column */
    const char *p = strstr(err.msg, "cmds.txt:");
    if (p && strstr(bad[k].expect, "cmds.txt:")) {
      long line = strtol(p + 9, (char **)&p, 10);
      assert_true(line > 0 && *p == ':' && p[1] == ' ');
    }
  }
  hg_scene_free(s);
  hg_test_remove_dir(dir);
}

/* close and open: a loop of the scene, a docking joint's name (an attach between bodies of one
 * tree closes a loop of that name), or a loop name the running simulation passes */
static void loop_commands(void **state) {
  (void)state;
  char dir[256];
  hg_command_list cl;
  hg_error err;
  hg_command c;
  hg_scene *s = hg_test_scene("data/scenes/loops.yaml");
  c = parse(s, "close pin_c");
  assert_int_equal(c.naction, 1);
  assert_int_equal(c.action[0].type, HG_ACTION_CLOSE_LOOP);
  assert_string_equal(c.action[0].loop, "pin_c");
  hg_command_free(&c);
  c = parse(s, "open gears");
  assert_int_equal(c.action[0].type, HG_ACTION_OPEN_LOOP);
  assert_string_equal(c.action[0].loop, "gears");
  hg_command copy;
  assert_int_equal(hg_command_copy(&copy, &c), 0);
  assert_string_equal(copy.action[0].loop, "gears");
  hg_command_free(&copy);
  hg_command_free(&c);
  /* the scene's attach makes dock_coupler_tip_plate_ball */
  c = parse(s, "open dock_coupler_tip_plate_ball");
  assert_string_equal(c.action[0].loop, "dock_coupler_tip_plate_ball");
  hg_command_free(&c);
  /* a loop the simulation made: known only when passed */
  const char *const made[] = {"crank_j", "dock_crank_ball_probe_tip"};
  assert_int_not_equal(hg_command_parse(s, "close dock_crank_ball_probe_tip", NULL, 0, &c, &err), 0);
  assert_non_null(strstr(err.msg, "command:1: unknown loop 'dock_crank_ball_probe_tip'"));
  if (hg_command_parse(s, "close dock_crank_ball_probe_tip", made, 2, &c, &err))
    fail_msg("%s", err.msg);
  assert_int_equal(c.action[0].type, HG_ACTION_CLOSE_LOOP);
  hg_command_free(&c);
  /* a joint of the model is no loop */
  assert_int_not_equal(hg_command_parse(s, "close crank_j", made, 2, &c, &err), 0);
  assert_non_null(strstr(err.msg, "unknown loop 'crank_j'"));
  assert_int_not_equal(hg_command_parse(s, "open pn_c", NULL, 0, &c, &err), 0);
  assert_string_equal(err.msg, "command:1: unknown loop 'pn_c' (did you mean 'pin_c'?)");
  assert_int_not_equal(hg_command_parse(s, "close", NULL, 0, &c, &err), 0);
  assert_string_equal(err.msg, "command:1: close and open take one loop name");
  assert_int_not_equal(hg_command_parse(s, "open pin_c weld", NULL, 0, &c, &err), 0);
  assert_string_equal(err.msg, "command:1: close and open take one loop name");
  /* command files: an attach command's docking joint is a loop name for later lines */
  assert_int_equal(hg_test_temp_dir("commands", dir, sizeof dir), 0);
  if (load_commands(s, dir,
                    "1 close weld\n2 attach coupler_tip rocker_tip\n3 open "
                    "dock_coupler_tip_rocker_tip\n",
                    &cl, &err))
    fail_msg("%s", err.msg);
  assert_int_equal(cl.n, 3);
  assert_int_equal(cl.cmd[0].action[0].type, HG_ACTION_CLOSE_LOOP);
  assert_string_equal(cl.cmd[0].action[0].loop, "weld");
  assert_int_equal(cl.cmd[2].action[0].type, HG_ACTION_OPEN_LOOP);
  assert_string_equal(cl.cmd[2].action[0].loop, "dock_coupler_tip_rocker_tip");
  hg_commands_free(&cl);
  assert_int_not_equal(load_commands(s, dir, "1 close weld\n\n2 open wld\n", &cl, &err), 0);
  assert_non_null(strstr(err.msg, "cmds.txt:3: unknown loop 'wld' (did you mean 'weld'?)"));
  assert_int_not_equal(load_commands(s, dir, "1 clse weld\n", &cl, &err), 0);
  assert_non_null(strstr(err.msg, "cmds.txt:1: unknown action 'clse' (did you mean 'close')"));
  hg_scene_free(s);
  hg_test_remove_dir(dir);
}

/* actuate, set_gain and controller: the words, their name checks, copies */
static void control_commands(void **state) {
  (void)state;
  hg_error err;
  hg_command c, copy;
  hg_scene *s = hg_test_scene("data/scenes/control.yaml");
  c = parse(s, "actuate m1 2.5");
  assert_int_equal(c.naction, 1);
  assert_int_equal(c.action[0].type, HG_ACTION_ACTUATE);
  assert_string_equal(c.action[0].device, "m1");
  assert_int_equal(c.action[0].nvalue, 1);
  assert_true(c.action[0].values[0] == 2.5);
  hg_command_free(&c);
  c = parse(s, "actuate t1 1 0.25");
  assert_int_equal(c.action[0].nvalue, 2);
  assert_true(c.action[0].values[0] == 1 && c.action[0].values[1] == 0.25);
  assert_int_equal(hg_command_copy(&copy, &c), 0);
  assert_string_equal(copy.action[0].device, "t1");
  assert_true(copy.action[0].values != c.action[0].values && copy.action[0].values[1] == 0.25);
  hg_command_free(&copy);
  hg_command_free(&c);
  c = parse(s, "set_gain adcs target 1 0 0 0");
  assert_int_equal(c.action[0].type, HG_ACTION_SET_GAIN);
  assert_string_equal(c.action[0].device, "adcs");
  assert_string_equal(c.action[0].param, "target");
  assert_int_equal(c.action[0].nvalue, 4);
  assert_int_equal(hg_command_copy(&copy, &c), 0);
  assert_string_equal(copy.action[0].param, "target");
  assert_true(copy.action[0].param != c.action[0].param);
  hg_command_free(&copy);
  hg_command_free(&c);
  c = parse(s, "set_gain mine gains 3 2 1");
  assert_int_equal(c.action[0].nvalue, 3);
  hg_command_free(&c);
  c = parse(s, "controller adcs on");
  assert_int_equal(c.action[0].type, HG_ACTION_CONTROLLER);
  assert_string_equal(c.action[0].device, "adcs");
  assert_int_equal(c.action[0].on, 1);
  hg_command_free(&c);
  c = parse(s, "controller ext off");
  assert_int_equal(c.action[0].on, 0);
  hg_command_free(&c);
  /* the words are listed */
  int found = 0;
  for (const char *const *w = hg_command_actions(); *w; w++)
    found += !strcmp(*w, "actuate") + !strcmp(*w, "set_gain") + !strcmp(*w, "controller");
  assert_int_equal(found, 3);
  /* the same name checks as a scene's events */
  static const struct {
    const char *text, *expect;
  } bad[] = {
      {"actuate m3 1", "command:1: unknown actuator 'm3' (did you mean 'm1'?)"},
      {"actuate m1", "command:1: actuate ACTUATOR V [V]"},
      {"actuate m1 1 2", "command:1: a motor's command is 1 number, got 2"},
      {"actuate t1 2", "command:1: a thruster's level is in [0, 1], got 2"},
      {"actuate m1 fast", "command:1: expected a number for 'command', got 'fast'"},
      {"set_gain adcs kpp 1", "command:1: unknown attitude_pd parameter 'kpp' (did you mean 'kp'?)"},
      {"set_gain mine gain 1", "command:1: unknown parameter 'gain' (did you mean 'gains'?)"},
      {"set_gain acds kp 1", "command:1: unknown controller 'acds' (did you mean 'adcs'?)"},
      {"set_gain adcs kp", "command:1: set_gain CONTROLLER PARAM V [V...]"},
      {"controller adcs maybe", "command:1: controller NAME on|off"},
      {"controller jet on", "command:1: unknown controller 'jet' (did you mean 'jets'?)"},
      {"actuat m1 1", "command:1: unknown action 'actuat' (did you mean 'actuate')"},
  };
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    if (hg_command_parse(s, bad[k].text, NULL, 0, &c, &err) == 0)
      fail_msg("accepted: %s", bad[k].text);
    if (!strstr(err.msg, bad[k].expect)) fail_msg("'%s' for '%s'", err.msg, bad[k].text);
  }
  hg_scene_free(s);
}

/* ---- a hand in orbit ---- */

/* two free boxes without gravity, at rest or both at 7.7 km/s along x (speed) */
static hg_scene *two_boxes(const char *tag, double speed, char *dir, size_t len) {
  char text[2048];
  snprintf(text, sizeof text,
           "gravity: [0, 0, 0]\n"
           "bodies:\n"
           "  - {name: station, joint: free, inertia: {mass: 5000, inertia: [9000, 9000, 4000]}}\n"
           "  - {name: chaser, joint: free, inertia: {mass: 800, inertia: [300, 300, 200]}}\n"
           "initial:\n"
           "  bodies:\n"
           "    station: {pos: [0, 0, 0], twist: [0, 0, 0, %.17g, 0, 0]}\n"
           "    chaser: {pos: [0, 0, 3], twist: [0, 0, 0, %.17g, 0, 0]}\n"
           "integrator: {method: cvode-adams, rtol: 1e-10}\n"
           "time: {start: 0, end: 2}\n"
           "output: {dt: 0.05}\n",
           speed, speed);
  return hg_test_scene_temp(tag, "boxes.yaml", text, dir, len);
}

/* the chaser's position relative to the station's after a 1.5 s pull of its corner towards a
 * target 1 m beside it (text: the perturb command), and the largest relative change of the
 * total linear momentum over the run */
static void pulled(double speed, const char *text, double rel[3], double *dp) {
  char dir[256];
  hg_scene *s = two_boxes(speed > 0 ? "pull_fast" : "pull_rest", speed, dir, sizeof dir);
  hg_sim *sim = hg_test_sim(s, 2, NULL);
  hg_command c = parse(s, text);
  double h0[6], h[6];
  assert_int_equal(hg_sim_run(sim, 0.25), HG_SIM_OK);
  hg_sim_momentum(sim, h0);
  assert_int_equal(hg_sim_command(sim, &c), HG_SIM_OK);
  *dp = 0;
  for (int k = 1; k <= 6; k++) {
    assert_int_equal(hg_sim_run(sim, 0.25 + 0.25 * k), HG_SIM_OK);
    hg_sim_momentum(sim, h);
    /* against the bodies' own momentum: at rest the total is 0, while the pull moves the
     * 800 kg chaser at about 0.5 m/s: 800 kg m/s (the scale hinge's momentum drift uses too) */
    double p0 = hg_v3_norm(h0 + 3) + 800;
    for (int j = 3; j < 6; j++) *dp = fmax(*dp, fabs(h[j] - h0[j]) / p0);
  }
  hg_se3 Ts, Tc;
  double tw[6];
  hg_sim_body(sim, 1, &Ts, tw);
  hg_sim_body(sim, 2, &Tc, tw);
  for (int k = 0; k < 3; k++) rel[k] = Tc.p[k] - Ts.p[k];
  hg_command_free(&c);
  hg_sim_free(sim);
  hg_scene_free(s);
  hg_test_remove_dir(dir);
}

static void pull_moves_with_the_mechanism(void **state) {
  (void)state;
  /* the chaser's corner pulled 1 m along +y: relative to the centre of mass (com), and in the
   * station's frame (the station sits at the origin: its frame and the world's agree at 0.25 s
   * at rest; at speed the target is given in the station's axes, the same numbers) */
  const char *texts[2] = {"perturb chaser 0.5 0.5 0.5 0.5 1.5 3.0862069 7000 3000 com",
                          "perturb chaser 0.5 0.5 0.5 0.5 1.5 3.5 7000 3000 station"};
  for (int k = 0; k < 2; k++) {
    double r0[3], r1[3], dp0, dp1;
    pulled(0, texts[k], r0, &dp0);
    pulled(7700, texts[k], r1, &dp1);
    printf("# '%s': chaser - station at rest (%.9f, %.9f, %.9f), at 7.7 km/s (%.9f, %.9f, %.9f);"
           " momentum change %.2g, %.2g\n", texts[k], r0[0], r0[1], r0[2], r1[0], r1[1], r1[2], dp0, dp1);
    /* the pull moved the chaser (by some 0.3 m along y) ... */
    assert_true(r0[1] > 0.05);
    /* ... as much at orbital speed as at rest: the states differ by the rounding of positions
     * near 15 km (2e-12 m) amplified by the run; rtol 1e-10 of the relative motion bounds it */
    for (int j = 0; j < 3; j++) assert_true(fabs(r1[j] - r0[j]) < 1e-6);
    /* an internal force: the total momentum stays to the integrator's tolerance (rtol 1e-10) */
    assert_true(dp0 < 1e-8 && dp1 < 1e-8);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(runs_repeat_bit_for_bit),
      cmocka_unit_test(command_now_equals_scheduled),
      cmocka_unit_test(session_replays_byte_for_byte),
      cmocka_unit_test(simultaneous_lock_is_one_impulse),
      cmocka_unit_test(jumping_profile_is_refused),
      cmocka_unit_test(detach_turns_the_joint_spring_off),
      cmocka_unit_test(every_action_reads),
      cmocka_unit_test(bad_lines_name_file_and_line),
      cmocka_unit_test(loop_commands),
      cmocka_unit_test(control_commands),
      cmocka_unit_test(pull_moves_with_the_mechanism),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
