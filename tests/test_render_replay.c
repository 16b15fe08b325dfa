/* test_render_replay.c: a viewer session replays byte for byte (no GL: the viewer's own path to
 * the runtime). 50 sessions of scenes/freeze_thaw.yaml to 5 s, each stopping where a viewer
 * stops (output times, times between them, and at and around t = 4, where the scene's drive_b1
 * event fires: 4 exactly, one ulp either side, 1e-13 and 1e-9 away), capturing a frame at every
 * stop as the viewer does (hg_history_capture: every view of the state, the gauges), and at
 * random stops previewing and applying lock, free and prescribe commands "now"
 * (hg_sim_command). Each session's commands, written by hg_sim_write_commands, are then
 * scheduled on a fresh run (what 'hinge run --headless --commands hinge-session.txt' does): its
 * trajectory.csv and events.csv must equal the session's byte for byte. The stops and commands
 * come from a fixed xorshift seed, so a failure repeats.
 *
 * Keyframes (GL offscreen, the viewer itself): a keyframe saved after a lock at 0.02 s, a later
 * lock at 0.04 s, ctrl+K back to the keyframe and a third lock at 0.05 s: the session holds the
 * first and third locks only (and the keyframe, as a comment), and its headless replay gives the
 * viewer's events.csv and trajectory.csv byte for byte; played back in a new viewer it brings the
 * keyframe, so ctrl+K there goes back to 0.02 s. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "files.h"
#include "frame.h"
#include "sims.h"
#include "viewer.h"

static unsigned long long rng = 88172645463325252ULL;

/* uniform in [0, 1) (Marsaglia's xorshift64) */
static double urand(void) {
  rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
  return (double)(rng >> 11) / 9007199254740992.0;
}

static char *slurp(const char *dir, const char *name) {
  char path[512];
  size_t len;
  snprintf(path, sizeof path, "%s/%s", dir, name);
  char *t = hg_test_read_file(path, &len);
  if (!t) fail_msg("cannot read %s", path);
  return t;
}

/* the next stop after t: an output step, the next output time or one ulp before it, a random
 * time, or near t = 4 one of the instants round the drive_b1 event */
static double next_stop(double t) {
  double r = urand();
  if (r < 0.3) t += 0.01;
  else if (r < 0.5) t = ceil(t * 100 + 1e-9) / 100;
  else t += urand() * 0.05;
  if (t > 3.95 && t < 4.05 && urand() < 0.7) {
    const double near[] = {4.0, nextafter(4.0, 0), nextafter(4.0, 5), 4 - 1e-13, 4 + 1e-13,
                           4 - 1e-9, 4 + 1e-9, 3.99, 4.01};
    double c = near[(int)(urand() * 9)];
    if (c > t - 0.02) t = fmax(t, c);
  }
  if (urand() < 0.2) {
    double o = ceil(t * 100 - 1e-9) / 100;
    t = urand() < 0.5 ? o : nextafter(o, 0);
  }
  return t;
}

static const char *const commands[] = {"lock a1", "free a1", "prescribe b2", "free b2",
                                       "lock a2 b3", "free a2 b3", "lock c1", "free c1"};

/* one session and its replay; 1 when both files are the same */
static int session(const hg_scene *s, int number) {
  char da[128], db[128], cf[256];
  assert_int_equal(hg_test_temp_dir("session", da, sizeof da), 0);
  assert_int_equal(hg_test_temp_dir("replay", db, sizeof db), 0);
  hg_sim *sim = hg_test_sim(s, 5, da);
  hg_history h;
  hg_history_init(&h, 64);
  int nc = 0;
  for (double t = next_stop(0); t < 4.9; t = next_stop(t)) {
    assert_int_equal(hg_sim_run(sim, t), HG_SIM_OK);
    assert_non_null(hg_history_capture(&h, sim, s));
    if (urand() < 0.5) continue;
    hg_command c;
    hg_error err;
    hg_sim_preview_view pv;
    if (hg_sim_parse_command(sim, commands[nc++ % 8], &c, &err)) fail_msg("%s", err.msg);
    if (urand() < 0.5) assert_int_equal(hg_sim_preview(sim, &c, &pv), 0);
    if (urand() < 0.8) assert_int_equal(hg_sim_command(sim, &c), HG_SIM_OK);
    hg_command_free(&c);
    assert_non_null(hg_history_capture(&h, sim, s));
  }
  assert_int_equal(hg_sim_run(sim, INFINITY), HG_SIM_OK);
  assert_int_equal(hg_sim_finish(sim), HG_SIM_OK);
  snprintf(cf, sizeof cf, "%s/hinge-session.txt", da);
  assert_int_equal(hg_sim_write_commands(sim, cf), HG_SIM_OK);
  int ncmd = hg_sim_ncommands(sim);
  hg_sim_free(sim);
  hg_history_free(&h);
  hg_sim *r = hg_test_sim(s, 5, db);
  hg_command_list cl;
  hg_error err;
  if (ncmd) {
    if (hg_commands_load(s, cf, &cl, &err)) fail_msg("%s", err.msg);
    for (int k = 0; k < cl.n; k++) assert_int_equal(hg_sim_schedule(r, &cl.cmd[k]), HG_SIM_OK);
    hg_commands_free(&cl);
  }
  assert_int_equal(hg_sim_run(r, INFINITY), HG_SIM_OK);
  assert_int_equal(hg_sim_finish(r), HG_SIM_OK);
  hg_sim_free(r);
  int same = 1;
  const char *files[] = {"trajectory.csv", "events.csv"};
  for (int k = 0; k < 2; k++) {
    char *a = slurp(da, files[k]), *b = slurp(db, files[k]);
    if (strcmp(a, b)) {
      int line = 1;
      for (const char *p = a, *q = b; *p && *p == *q; p++, q++) line += *p == '\n';
      printf("# session %d (%d commands): %s differs from line %d\n", number, ncmd, files[k], line);
      same = 0;
    }
    free(a), free(b);
  }
  if (same) hg_test_remove_dir(da), hg_test_remove_dir(db);
  return same;
}

static void sessions_replay_byte_for_byte(void **state) {
  (void)state;
  hg_scene *s = hg_test_shipped("freeze_thaw");
  int bad = 0;
  for (int k = 0; k < 50; k++) bad += !session(s, k);
  printf("# %d of 50 sessions differ from their replays\n", bad);
  assert_int_equal(bad, 0);
  hg_scene_free(s);
}

static void keyframe_goes_back_and_replays(void **state) {
  (void)state;
  char dir[128], out[256], rep[256], script[300], session_path[300];
  assert_int_equal(hg_test_temp_dir("keyframe", dir, sizeof dir), 0);
  snprintf(out, sizeof out, "%s/out", dir);
  snprintf(rep, sizeof rep, "%s/replay", dir);
  snprintf(script, sizeof script, "%s/script.txt", dir);
  assert_int_equal(mkdir(out, 0755), 0);
  FILE *f = fopen(script, "w");
  assert_non_null(f);
  fputs("0.00 key Right\n0.05 key Right\n0.10 type lock a1\n0.10 key Return\n"
        "0.15 key shift+K\n0.20 key Right\n0.25 key Right\n0.30 type lock b1\n0.30 key Return\n"
        "0.40 key ctrl+K\n0.45 key Right\n0.50 key Right\n0.55 key Right\n"
        "0.60 type lock c1\n0.60 key Return\n0.70 quit\n", f);
  fclose(f);
  hg_viewer_options o;
  char err[512];
  hg_viewer_default_options(&o);
  o.offscreen = 1, o.script = script, o.width = 320, o.height = 180, o.finish = 1, o.paused = 1;
  o.out.dir = out, o.out.plots = 0;
  o.screenshot_dir = dir;
  if (hg_viewer_run("../scenes/freeze_thaw.yaml", &o, err, sizeof err)) fail_msg("%s", err);
  snprintf(session_path, sizeof session_path, "%s/hinge-session.txt", dir);
  char *session = slurp(dir, "hinge-session.txt");
  printf("# the session after going back:\n%s", session);
  assert_non_null(strstr(session, "0.02 lock a1"));
  assert_null(strstr(session, "lock b1"));
  assert_non_null(strstr(session, "\n0.050000000000000003 lock c1"));
  assert_non_null(strstr(session, "\n# keyframe 0.02")); /* kept with the session */
  free(session);
  /* the session played back in a new viewer brings its keyframe: ctrl+K goes back to 0.02 s,
   * where a new lock then acts (at t = 0 without the keyframe) */
  char dir2[128];
  assert_int_equal(hg_test_temp_dir("keyframe_again", dir2, sizeof dir2), 0);
  snprintf(script, sizeof script, "%s/script.txt", dir2);
  f = fopen(script, "w");
  assert_non_null(f);
  fputs("0.00 key ctrl+K\n0.05 type lock b2\n0.05 key Return\n0.10 quit\n", f);
  fclose(f);
  hg_viewer_default_options(&o);
  o.offscreen = 1, o.script = script, o.width = 320, o.height = 180, o.paused = 1;
  o.commands = session_path, o.screenshot_dir = dir2;
  if (hg_viewer_run("../scenes/freeze_thaw.yaml", &o, err, sizeof err)) fail_msg("%s", err);
  char *again = slurp(dir2, "hinge-session.txt");
  printf("# the session played back, ctrl+K, lock b2:\n%s", again);
  assert_non_null(strstr(again, "\n0.02 lock b2"));
  free(again);
  hg_test_remove_dir(dir2);
  /* the headless replay */
  hg_scene *s = hg_test_shipped("freeze_thaw");
  assert_int_equal(hg_test_temp_dir("keyframe_replay", rep, sizeof rep), 0);
  hg_sim *r = hg_test_sim(s, NAN, rep);
  hg_command_list cl;
  hg_error e;
  if (hg_commands_load(s, session_path, &cl, &e)) fail_msg("%s", e.msg);
  for (int k = 0; k < cl.n; k++) assert_int_equal(hg_sim_schedule(r, &cl.cmd[k]), HG_SIM_OK);
  hg_commands_free(&cl);
  assert_int_equal(hg_sim_run(r, INFINITY), HG_SIM_OK);
  assert_int_equal(hg_sim_finish(r), HG_SIM_OK);
  hg_sim_free(r);
  const char *files[] = {"trajectory.csv", "events.csv"};
  for (int k = 0; k < 2; k++) {
    char *a = slurp(out, files[k]), *b = slurp(rep, files[k]);
    if (strcmp(a, b)) fail_msg("%s: the viewer's differs from the replay's", files[k]);
    free(a), free(b);
  }
  hg_scene_free(s);
  hg_test_remove_dir(rep);
  hg_test_remove_dir(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(sessions_replay_byte_for_byte),
      cmocka_unit_test(keyframe_goes_back_and_replays),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
