/* test_render_shell.c: the viewer's shell (render/viewer.c's main loop, its scripts and the mouse
 * pull's path through it), driven by scripts offscreen at 640 x 360 on the shipped scenes:
 *  - a ctrl-drag on heatshield (the capsule falling at 12 m/s from 2.7 km, output every 0.05 s,
 *    the camera tracking it), on freeze_thaw and on undock (7.7 km/s in orbit, at speed 2)
 *    advances the simulation while the button is held: the release is logged held time x speed
 *    after the first perturb, the energy budget closes, and the session replays headless to the
 *    same events.csv;
 *
 * Runs in the tests folder (CTest's working directory): the scenes are ../scenes/. */
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
#include "output.h"
#include "sims.h"
#include "viewer.h"

#define W 640
#define H 360

static void write_text(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

/* a test's folder, its script and an outputs folder in it */
typedef struct workspace {
  char dir[256], script[300], out[300], other[300];
} workspace;

static void workspace_new(workspace *w, const char *tag) {
  assert_int_equal(hg_test_temp_dir(tag, w->dir, sizeof w->dir), 0);
  snprintf(w->script, sizeof w->script, "%s/script.txt", w->dir);
  snprintf(w->out, sizeof w->out, "%s/viewer", w->dir);
  snprintf(w->other, sizeof w->other, "%s/replay", w->dir);
  assert_int_equal(mkdir(w->out, 0777), 0);
  assert_int_equal(mkdir(w->other, 0777), 0);
}

/* the viewer as `hinge view` opens it (paused), offscreen at W x H, the simulation to t_end,
 * its outputs into w->out, screenshots and the session into w->dir; the status */
static int view(const workspace *w, const char *scene, double t_end) {
  hg_viewer_options o;
  char err[512];
  hg_viewer_default_options(&o);
  o.offscreen = 1, o.script = w->script, o.width = W, o.height = H, o.finish = 1, o.paused = 1;
  o.sim.t_end = t_end;
  o.out.dir = w->out, o.out.plots = 0;
  o.screenshot_dir = w->dir;
  int rc = hg_viewer_run(scene, &o, err, sizeof err);
  if (rc) print_message("viewer: %s\n", err);
  return rc;
}

/* a value "KEY: NUMBER" of summary.txt */
static double summary_value(const char *dir, const char *key) {
  char path[512], line[1024];
  snprintf(path, sizeof path, "%s/summary.txt", dir);
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  double x = NAN;
  size_t n = strlen(key);
  while (fgets(line, sizeof line, f))
    if (!strncmp(line, key, n) && line[n] == ':') x = strtod(line + n + 1, NULL);
  fclose(f);
  return x;
}

/* the times of the first perturb and of the first release of the pull in events.csv */
static void pull_times(const char *dir, double *t_perturb, double *t_release) {
  char path[512], line[4096];
  snprintf(path, sizeof path, "%s/events.csv", dir);
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  *t_perturb = *t_release = NAN;
  while (fgets(line, sizeof line, f)) {
    char *comma = strchr(line, ',');
    if (!comma) continue;
    if (!strncmp(comma, ",\"perturb ", 10) && isnan(*t_perturb)) *t_perturb = strtod(line, NULL);
    if (!strncmp(comma, ",\"release\",\"release the pull\"", 29) && isnan(*t_release))
      *t_release = strtod(line, NULL);
  }
  fclose(f);
}

static int same_file(const char *da, const char *db, const char *name) {
  char pa[512], pb[512];
  size_t la, lb;
  snprintf(pa, sizeof pa, "%s/%s", da, name);
  snprintf(pb, sizeof pb, "%s/%s", db, name);
  char *a = hg_test_read_file(pa, &la), *b = hg_test_read_file(pb, &lb);
  int same = a && b && la == lb && !memcmp(a, b, la);
  free(a), free(b);
  return same;
}

/* ctrl-drags the body under the centre of the view of scene from clock 0.5 s to 2.5 s (held
 * 2 s) at speed (1 or 2: '=' doubles it), the camera tracking the first body; checks that the
 * pull acted for 2 s x speed of simulated time, that the budget closes, and that the session
 * replays headless to the same events.csv */
static void pull_on(const char *tag, const char *scene, double speed, double t_end) {
  workspace w;
  char text[1024], session[320];
  workspace_new(&w, tag);
  snprintf(text, sizeof text,
           "0.0 key Tab\n%s0.0 key space\n0.5 mousedown %d %d ctrl\n0.6 mousemove %d %d\n"
           "1.0 mousemove %d %d\n2.5 mouseup\n2.6 quit\n",
           speed == 2 ? "0.0 key =\n" : "", W / 2, H / 2, W / 2 + 10, H / 2 - 5, W / 2 + 20, H / 2 - 10);
  write_text(w.script, text);
  assert_int_equal(view(&w, scene, t_end), 0);
  double tp, tr;
  pull_times(w.out, &tp, &tr);
  double drift = summary_value(w.out, "energy_budget_drift");
  printf("# %s: perturb at %.4g s, release at %.4g s (held %.4g s of simulated time), budget drift %.3g\n",
         tag, tp, tr, tr - tp, drift);
  assert_false(isnan(tp));
  assert_false(isnan(tr));
  /* the pull acts while the button is held: 2 s of the clock at the speed. Both ends sit on the
   * output grid (0.05 s on heatshield and undock, 0.01 s on freeze_thaw) and the first perturb
   * waits for the frame after the press: one output step and one frame's advance (speed/60)
   * either way, 0.05 + 2/60 < 0.1 s */
  assert_true(fabs((tr - tp) - 2.0 * speed) < 0.1);
  /* the budget closes with the pull's work in it: the scenes' rtol is 1e-8 and a headless run
   * drifts by 1e-10 to 1e-9; 1e-7 is the bound of test_render_interact's pull */
  assert_true(drift < 1e-7);
  /* the session replays headless to the same events */
  snprintf(session, sizeof session, "%s/hinge-session.txt", w.dir);
  hg_scene *s = hg_test_scene(scene);
  hg_sim *sim = hg_test_sim(s, t_end, w.other);
  hg_command_list cl;
  hg_error err;
  if (hg_commands_load(s, session, &cl, &err)) fail_msg("%s", err.msg);
  for (int k = 0; k < cl.n; k++) assert_int_equal(hg_sim_schedule(sim, &cl.cmd[k]), HG_SIM_OK);
  hg_commands_free(&cl);
  assert_int_equal(hg_sim_run(sim, INFINITY), HG_SIM_OK);
  assert_int_equal(hg_sim_finish(sim), HG_SIM_OK);
  hg_sim_free(sim);
  hg_scene_free(s);
  assert_true(same_file(w.out, w.other, "events.csv"));
  hg_test_remove_dir(w.dir);
}

static void pull_advances_heatshield(void **state) {
  (void)state;
  pull_on("shell_pull_heatshield", "../scenes/heatshield.yaml", 1, 4);
}

static void pull_advances_freeze_thaw(void **state) {
  (void)state;
  pull_on("shell_pull_freeze_thaw", "../scenes/freeze_thaw.yaml", 1, 4);
}

static void pull_advances_in_orbit(void **state) {
  (void)state;
  pull_on("shell_pull_undock", "../scenes/undock.yaml", 2, 6);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(pull_advances_heatshield),
      cmocka_unit_test(pull_advances_freeze_thaw),
      cmocka_unit_test(pull_advances_in_orbit),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
