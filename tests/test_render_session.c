/* test_render_session.c: the default camera in real sessions of `hinge run` (render/framing.h),
 * as a user meets it.
 *
 * `hinge run scenes/heatshield.yaml` with a --script at 8 x speed that saves the camera (`v`)
 * every 0.1 s of the session's clock up to t = 30 s of the run and more: each saved camera, with
 * the time of the frame it was shown with, projects the capsule's and the shield's positions
 * (their rows of the run's trajectory.csv at that time) inside the 1280 x 720 window. Once
 * offscreen (--offscreen: SDL's offscreen driver), once in the real window path under Xvfb
 * (xvfb-run: what `make run` does on a desktop; skipped with a message when xvfb-run is not
 * installed). The undocking scene in orbit (7.7 km/s, 6,771 km from the origin) the same way
 * offscreen: servicer and client in the window over the run.
 *
 * Runs in the tests folder (CTest's working directory); HG_HINGE is the hinge program. */
#define _DEFAULT_SOURCE /* realpath, popen */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "camera.h"
#include "files.h"

enum { W = 1280, H = 720, MAXCAM = 200 };

typedef struct session {
  int ncam;
  double t[MAXCAM];
  hg_camera cam[MAXCAM];
} session;

/* Runs `hinge run ../scenes/SCENE.yaml --script S --out DIR/out --no-plots` with the command
 * prefix `pre` (an environment or a wrapper) and `post` (more options), S saving the camera
 * every 0.1 s of the session's clock from 0.1 s to until (at 8 x speed), and reads the cameras
 * it printed ("camera at t = T s: --camera \"...\""). */
static void run_session(const char *scene, const char *pre, const char *post, double until,
                        const char *dir, session *s) {
  char script[600], cmd[16384], line[1024], abs_scene[PATH_MAX];
  snprintf(script, sizeof script, "%s/session.txt", dir);
  FILE *f = fopen(script, "w");
  assert_non_null(f);
  fprintf(f, "0 key =\n0 key =\n0 key =\n"); /* 8 x real time */
  for (int k = 1; k * 0.1 <= until + 1e-9; k++) fprintf(f, "%.2f key v\n", k * 0.1);
  fprintf(f, "%.2f quit\n", until + 0.05);
  fclose(f);
  snprintf(line, sizeof line, "../scenes/%s.yaml", scene);
  assert_non_null(realpath(line, abs_scene));
  snprintf(cmd, sizeof cmd, "cd '%s' && %s '%s' run '%s' --script '%s' --out '%s/out' --no-plots %s 2>&1", dir,
           pre, HG_HINGE, abs_scene, script, dir, post);
  FILE *p = popen(cmd, "r");
  assert_non_null(p);
  s->ncam = 0;
  while (fgets(line, sizeof line, p)) {
    double t;
    char text[900], err[200];
    if (sscanf(line, "camera at t = %lf s: --camera \"%899[^\"]\"", &t, text) == 2 && s->ncam < MAXCAM) {
      hg_camera_default(&s->cam[s->ncam]);
      assert_int_equal(hg_camera_parse(text, &s->cam[s->ncam], err, sizeof err), 0);
      s->t[s->ncam++] = t;
    } else if (!strncmp(line, "camera", 6)) {
      fail_msg("unexpected camera line: %s", line);
    }
  }
  int rc = pclose(p);
  if (rc != 0) fail_msg("%s: status %d", cmd, rc);
  assert_true(s->ncam > 10);
}

/* the position of body at time t in DIR/out/trajectory.csv (the row at t, to 1e-9 s) */
static void position_at(const char *csv, const char *body, double t, double x[3]) {
  char head[64];
  snprintf(head, sizeof head, "%s.x", body);
  const char *h = csv, *nl = strchr(csv, '\n');
  int col = 0, found = -1;
  for (const char *c = h; c < nl; col++) { /* the column of BODY.x */
    const char *e = c;
    while (e < nl && *e != ',') e++;
    if ((size_t)(e - c) == strlen(head) && !strncmp(c, head, strlen(head))) found = col;
    c = e + 1;
  }
  if (found < 0) fail_msg("no column %s", head);
  for (const char *r = nl + 1; *r; r = strchr(r, '\n') + 1) {
    char *end;
    double tr = strtod(r, &end);
    if (fabs(tr - t) < 1e-9) {
      const char *c = r;
      for (int k = 0; k < found; k++) c = strchr(c, ',') + 1;
      for (int k = 0; k < 3; k++) x[k] = strtod(c, &end), c = end + 1;
      return;
    }
    if (!strchr(r, '\n')) break;
  }
  fail_msg("no row at t = %.17g", t);
}

/* every camera of the session projects the bodies inside the window; the session reached t_min
 * and saved cameras within 0.5 s of each time in `near` */
static void check_session(const char *dir, const session *s, const char *const *bodies, int nbody,
                          const double *near, int nnear, double t_min) {
  char path[600];
  snprintf(path, sizeof path, "%s/out/trajectory.csv", dir);
  char *csv = hg_test_read_file(path, NULL);
  assert_non_null(csv);
  for (int i = 0; i < s->ncam; i++)
    for (int b = 0; b < nbody; b++) {
      double x[3], px[2];
      position_at(csv, bodies[b], s->t[i], x);
      int front = hg_camera_project(&s->cam[i], W, H, x, px);
      if (!front || !(px[0] >= 0 && px[0] <= W && px[1] >= 0 && px[1] <= H))
        fail_msg("t = %g s: %s at (%g, %g, %g) projects to (%g, %g), outside the window", s->t[i], bodies[b],
                 x[0], x[1], x[2], px[0], px[1]);
    }
  for (int k = 0; k < nnear; k++) {
    int hit = 0;
    for (int i = 0; i < s->ncam; i++) hit |= fabs(s->t[i] - near[k]) <= 0.5;
    if (!hit) fail_msg("no camera saved near t = %g s", near[k]);
  }
  assert_true(s->t[s->ncam - 1] >= t_min);
  print_message("# %d cameras from t = %g to %g s, every body in the window\n", s->ncam, s->t[0],
                s->t[s->ncam - 1]);
  free(csv);
}

static const char *const heat_bodies[] = {"capsule", "shield"};
static const double heat_times[] = {5, 17, 30};

static void test_heatshield_offscreen(void **state) {
  (void)state;
  char dir[512];
  session s;
  assert_int_equal(hg_test_temp_dir("session_off", dir, sizeof dir), 0);
  run_session("heatshield", "SDL_VIDEODRIVER=offscreen", "--offscreen", 6.5, dir, &s);
  check_session(dir, &s, heat_bodies, 2, heat_times, 3, 30);
  hg_test_remove_dir(dir);
}

/* `make run` in a display: the window path under Xvfb */
static void test_heatshield_xvfb(void **state) {
  (void)state;
  if (system("command -v xvfb-run > /dev/null 2>&1") != 0) {
    print_message("# xvfb-run is not installed (Debian: xvfb): the window path is not tested\n");
    skip();
  }
  char dir[512];
  session s;
  assert_int_equal(hg_test_temp_dir("session_x", dir, sizeof dir), 0);
  run_session("heatshield", "xvfb-run -a -s '-screen 0 1920x1080x24' env -u SDL_VIDEODRIVER", "", 6.5, dir, &s);
  check_session(dir, &s, heat_bodies, 2, heat_times, 3, 30);
  hg_test_remove_dir(dir);
}

static void test_undock_offscreen(void **state) {
  (void)state;
  static const char *const bodies[] = {"servicer", "client"};
  static const double times[] = {5, 20};
  char dir[512];
  session s;
  assert_int_equal(hg_test_temp_dir("session_orbit", dir, sizeof dir), 0);
  run_session("undock", "SDL_VIDEODRIVER=offscreen", "--offscreen", 5, dir, &s);
  check_session(dir, &s, bodies, 2, times, 2, 20);
  hg_test_remove_dir(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_heatshield_offscreen),
      cmocka_unit_test(test_heatshield_xvfb),
      cmocka_unit_test(test_undock_offscreen),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
