/* test_render_interact.c: interacting with a running simulation from the viewer, driven by
 * scripts offscreen (render/interact.h, render/viewer.h), on a floating bus with a boom swinging
 * on a hinge in zero gravity, seen from above:
 *  - clicking the boom's projected centre selects it (ID-buffer picking): shift+L previews the
 *    lock of its joint, Enter commits it, and events.csv equals, byte for byte, that of a
 *    headless run with the same lock written as a scene event;
 *  - the command line: a misspelt command shows its error and the viewer goes on; the right one
 *    gives the same events.csv again;
 *  - a ctrl-drag pulls the bus: its work enters the energy budget, which still closes, and the
 *    session the viewer writes replays headless to the same events.csv and trajectory.csv;
 *  - a four-bar closed by a revolute loop (tests/data/scenes/fourbar.yaml) shows the loop's glyph
 *    in the closed colour; 'open pin_c' typed on the command line (the name Tab-completed) turns
 *    it to the open colour; the session replays byte for byte;
 *  - control in the loop (tests/data/scenes/adcs_bus.yaml): a firing thruster draws its plume
 *    below its nozzle and an idle one none, the wheels' gauges fill with their speeds (red at
 *    95 % of max_speed), shift+A hides them; 'controller adcs off' (Tab-completed), 'set_gain'
 *    and 'actuate' typed on the command line are logged, turn the control panel's line off and
 *    replay byte for byte;
 *  - sensors (tests/data/scenes/sensor_bus.yaml): a star tracker's baffle, a sun sensor's plate
 *    and line and an IMU's cube show where their frames project, a tracker whose samples drop out
 *    is dimmed, the sun sensor's line goes when the sun leaves its view and comes back when the
 *    viewer steps back to an earlier frame, shift+S hides them.
 *
 * Runs in the tests folder (CTest's working directory). */
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

#include <stb_image.h>

#include "files.h"
#include "output.h"
#include "sims.h"
#include "viewer.h"

static const char scene_text[] =
    "title: interaction test\n"
    "bodies:\n"
    "  - name: bus\n"
    "    joint: {type: free}\n"
    "    inertia: {mass: 10, inertia: [1, 1, 1]}\n"
    "    geometry: [{type: box, size: [1, 1, 1], rgba: [0.8, 0.7, 0.2, 1]}]\n"
    "  - name: boom\n"
    "    parent: bus\n"
    "    joint: {type: revolute, name: hinge, axis: [0, 0, 1], pos: [0.5, 0, 0]}\n"
    "    inertia: {mass: 1, com: [1, 0, 0], inertia: [0.01, 0.1, 0.1]}\n"
    "    geometry: [{type: box, size: [2, 0.2, 0.2], pos: [1, 0, 0], rgba: [0.3, 0.5, 0.9, 1]}]\n"
    "initial:\n"
    "  joints:\n"
    "    hinge: {v: [0.5]}\n"
    "time: {start: 0, end: 1}\n"
    "output: {dt: 0.01}\n"
    "integrator: {rtol: 1e-9}\n";

#define W 800
#define H 600
static const char camera[] = "eye=0,0,8 target=0,0,0 up=0,1,0 fov=40";

static void write_text(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

/* the pixel where the camera sees world point p */
static void project(const double p[3], int *x, int *y) {
  hg_camera c;
  char err[256];
  double px[2];
  hg_camera_default(&c);
  assert_int_equal(hg_camera_parse(camera, &c, err, sizeof err), 0);
  assert_true(hg_camera_project(&c, W, H, p, px));
  *x = (int)lround(px[0]), *y = (int)lround(px[1]);
}

/* runs the viewer on scene with script, outputs into out, screenshots and the session in dir */
static void view(const char *scene, const char *script, const char *out, const char *dir) {
  hg_viewer_options o;
  char err[512];
  hg_viewer_default_options(&o);
  o.offscreen = 1, o.script = script, o.width = W, o.height = H, o.finish = 1, o.paused = 1;
  o.has_camera = 1;
  assert_int_equal(hg_camera_parse(camera, &o.camera, err, sizeof err), 0);
  o.out.dir = out, o.out.plots = 0;
  o.screenshot_dir = dir;
  if (hg_viewer_run(scene, &o, err, sizeof err)) fail_msg("%s", err);
}

/* a headless run of scene (with the command file commands, or NULL) into out */
static void headless(const char *scene, const char *commands, const char *out) {
  hg_scene *s = hg_test_scene(scene);
  hg_sim *sim = hg_test_sim(s, NAN, out);
  hg_command_list cl;
  hg_error err;
  if (commands) {
    if (hg_commands_load(s, commands, &cl, &err)) fail_msg("%s", err.msg);
    for (int k = 0; k < cl.n; k++) assert_int_equal(hg_sim_schedule(sim, &cl.cmd[k]), HG_SIM_OK);
    hg_commands_free(&cl);
  }
  assert_int_equal(hg_sim_run(sim, INFINITY), HG_SIM_OK);
  assert_int_equal(hg_sim_finish(sim), HG_SIM_OK);
  hg_sim_free(sim);
  hg_scene_free(s);
}

static void same_file(const char *da, const char *db, const char *name) {
  char pa[512], pb[512];
  size_t la, lb;
  snprintf(pa, sizeof pa, "%s/%s", da, name);
  snprintf(pb, sizeof pb, "%s/%s", db, name);
  char *a = hg_test_read_file(pa, &la), *b = hg_test_read_file(pb, &lb);
  assert_non_null(a);
  assert_non_null(b);
  if (la != lb || memcmp(a, b, la)) fail_msg("%s and %s differ", pa, pb);
  free(a), free(b);
}

/* the scene, and the same scene with "lock hinge" as a scene event at t = 0.02 */
static void scenes(const char *dir, char *scene, char *locked, size_t len) {
  char text[2048];
  snprintf(scene, len, "%s/scene.yaml", dir);
  write_text(scene, scene_text);
  snprintf(locked, len, "%s/locked.yaml", dir);
  snprintf(text, sizeof text, "%sevents:\n  - name: lock hinge\n    at: %.17g\n    do:\n"
           "      - set_mode: {joint: hinge, mode: locked}\n", scene_text, 0 + 2 * 0.01);
  write_text(locked, text);
}

/* a test's folders: dir (scenes, script, screenshots, the session), dir/viewer and dir/NAME2
 * for outputs; the scenes written */
typedef struct workspace {
  char dir[256], scene[300], locked[300], script[300], out[300], other[300];
} workspace;

static void workspace_new(workspace *w, const char *tag, const char *other) {
  assert_int_equal(hg_test_temp_dir(tag, w->dir, sizeof w->dir), 0);
  scenes(w->dir, w->scene, w->locked, sizeof w->scene);
  snprintf(w->out, sizeof w->out, "%s/viewer", w->dir);
  snprintf(w->other, sizeof w->other, "%s/%s", w->dir, other);
  snprintf(w->script, sizeof w->script, "%s/script.txt", w->dir);
  assert_int_equal(mkdir(w->out, 0777), 0);
  assert_int_equal(mkdir(w->other, 0777), 0);
}

/* the session the viewer wrote into w, replayed headless, writes the same events.csv and
 * trajectory.csv byte for byte; then w's folder goes */
static void replays_byte_for_byte(const workspace *w) {
  char session[320];
  snprintf(session, sizeof session, "%s/hinge-session.txt", w->dir);
  headless(w->scene, session, w->other);
  same_file(w->out, w->other, "events.csv");
  same_file(w->out, w->other, "trajectory.csv");
  hg_test_remove_dir(w->dir);
}

/* the number of pixels of the error colour (red text) in a PNG */
static int red_pixels(const char *path) {
  int w, h, n, red = 0;
  unsigned char *p = stbi_load(path, &w, &h, &n, 4);
  assert_non_null(p);
  for (int k = 0; k < w * h; k++) red += p[4 * k] > 200 && p[4 * k + 1] < 140 && p[4 * k + 2] < 140;
  stbi_image_free(p);
  return red;
}

static void click_selects_and_lock_matches_scene_event(void **state) {
  (void)state;
  workspace w;
  char text[512];
  workspace_new(&w, "interact_click", "ref");
  headless(w.locked, NULL, w.other);
  /* the boom's centre at t = 0.02: 0.01 rad round the hinge at (0.5, 0, 0) */
  int x, y;
  project((double[3]){0.5 + cos(0.01), sin(0.01), 0.1}, &x, &y);
    snprintf(text, sizeof text, "0.02 key Right\n0.04 key Right\n0.06 click %d %d\n"
           "0.08 key shift+L\n0.1 key Return\n0.12 quit\n", x, y);
  write_text(w.script, text);
  view(w.scene, w.script, w.out, w.dir);
  same_file(w.other, w.out, "events.csv");
  hg_test_remove_dir(w.dir);
}

static void command_line_errors_and_lock(void **state) {
  (void)state;
  workspace w;
  char shot[320], text[1024];
  workspace_new(&w, "interact_cmd", "ref");
  snprintf(shot, sizeof shot, "%s/error.png", w.dir);
  headless(w.locked, NULL, w.other);
    snprintf(text, sizeof text, "0.02 key Right\n0.04 key Right\n0.06 key :\n"
           "0.07 type lok hin\n0.08 key Return\n0.09 screenshot %s\n0.1 type lock hin\n"
           "0.11 key Tab\n0.12 key Return\n0.14 quit\n", shot);
  write_text(w.script, text);
  view(w.scene, w.script, w.out, w.dir);
  assert_true(red_pixels(shot) > 100); /* "unknown action 'lok' (did you mean 'lock')" */
  same_file(w.other, w.out, "events.csv");
  hg_test_remove_dir(w.dir);
}

/* a value "KEY: NUMBER" of summary.txt */
static double summary_value(const char *dir, const char *key) {
  char path[512], line[512];
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

static void mouse_pull_is_in_the_budget_and_replays(void **state) {
  (void)state;
  workspace w;
  char text[1024];
  workspace_new(&w, "interact_pull", "replay");
  int x, y;
  project((double[3]){0, 0, 0.5}, &x, &y); /* the bus's top face */
    snprintf(text, sizeof text, "0.0 key space\n0.0 mousedown %d %d ctrl\n0.1 mousemove %d %d\n0.3 mousemove %d %d\n"
           "0.5 mouseup\n0.6 quit\n", x, y, x + 40, y, x + 60, y - 20);
  write_text(w.script, text);
  view(w.scene, w.script, w.out, w.dir);
  double work = summary_value(w.out, "work_nonconservative"),
         drift = summary_value(w.out, "energy_budget_drift");
  printf("# pull: work %.6g J, budget drift %.3g\n", work, drift);
  assert_true(fabs(work) > 1e-4); /* the pull did work on the bus */
  assert_true(drift < 1e-7);      /* and the budget closes with it (rtol 1e-9) */
  replays_byte_for_byte(&w);
}

/* the angle of the rotation between two quaternions (w x y z) */
static double quat_angle(const double *a, const double *b) {
  double d = fabs(a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3]);
  return 2 * acos(fmin(1, d));
}

/* a right-button ctrl-drag turns the bus round its centre of mass: the pulled corner follows its
 * target round, the bus turns, the budget closes and the session replays */
static void turning_pull_turns_the_bus(void **state) {
  (void)state;
  workspace w;
  char text[1024];
  workspace_new(&w, "interact_turn", "replay");
  int x, y;
  project((double[3]){0.4, 0.4, 0.5}, &x, &y); /* near a corner of the bus's top face */
  snprintf(text, sizeof text, "0.0 key space\n0.05 mousedown %d %d ctrl right\n0.1 mousemove %d %d\n"
           "0.3 mousemove %d %d\n0.8 mouseup\n0.9 quit\n", x, y, x + 60, y, x + 120, y);
  write_text(w.script, text);
  view(w.scene, w.script, w.out, w.dir);
  /* the bus's orientation at the start and at the end of trajectory.csv (columns bus.qw..qz) */
  char path[512];
  snprintf(path, sizeof path, "%s/trajectory.csv", w.out);
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  static char line[65536];
  double q0[4] = {0}, q1[4] = {0};
  int rows = 0;
  assert_non_null(fgets(line, sizeof line, f)); /* header: time, bus.x, .y, .z, .qw, ... */
  while (fgets(line, sizeof line, f)) {
    double t, p[3], q[4];
    if (sscanf(line, "%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf", &t, &p[0], &p[1], &p[2], &q[0], &q[1], &q[2],
               &q[3]) != 8)
      continue;
    memcpy(rows++ ? q1 : q0, q, sizeof q);
  }
  fclose(f);
  double angle = quat_angle(q0, q1), drift = summary_value(w.out, "energy_budget_drift");
  printf("# turning pull: the bus turned %.3f rad, budget drift %.3g\n", angle, drift);
  assert_true(angle > 0.2);
  assert_true(drift < 1e-7);
  replays_byte_for_byte(&w);
}

/* while paused, the q slider of the selected boom's hinge, dragged to three quarters of its
 * range, sets q (+) pi/2: a 'set' command that replays headless byte for byte */
static void slider_sets_the_configuration(void **state) {
  (void)state;
  workspace w;
  char session[320], text[1024];
  workspace_new(&w, "interact_slider", "replay");
  int x, y;
  project((double[3]){0.5 + cos(0.01), sin(0.01), 0.1}, &x, &y);
  /* two sliders (dq0, v0) at the bottom right: 500..776 px, the first at y = 514 */
  snprintf(text, sizeof text, "0.02 key Right\n0.04 key Right\n0.06 click %d %d\n"
           "0.08 mousedown 638 514\n0.1 mousemove 707 514\n0.12 mouseup\n0.14 quit\n", x, y);
  write_text(w.script, text);
  view(w.scene, w.script, w.out, w.dir);
  snprintf(session, sizeof session, "%s/hinge-session.txt", w.dir);
  size_t n;
  char *cmds = hg_test_read_file(session, &n);
  assert_non_null(cmds);
  const char *set = strstr(cmds, "set hinge {q: [");
  assert_non_null(set);
  double q = strtod(set + strlen("set hinge {q: ["), NULL);
  /* the hinge turned 0.5 rad/s for 0.02 s from 0, then pi/2 more */
  printf("# slider: hinge q set to %.9f (expected about %.9f)\n", q, 0.01 + 3.14159265358979 / 2);
  assert_true(fabs(q - (0.01 + 3.14159265358979 / 2)) < 1e-6);
  free(cmds);
  replays_byte_for_byte(&w);
}

/* a command at the start time acts before the start's output row, as the same command scheduled
 * for t = 0 does: the session replays byte for byte */
static void command_at_the_start_replays(void **state) {
  (void)state;
  workspace w;
  workspace_new(&w, "interact_start", "replay");
  write_text(w.script, "0.0 type lock hinge\n0.0 key Return\n0.02 quit\n");
  view(w.scene, w.script, w.out, w.dir);
  replays_byte_for_byte(&w);
}

/* pixels near (x, y) (within r) that are the loop's closed colour (lime: green high, red about
 * 0.6 of it, little blue) and a neutral grey (its open colour), in a PNG */
static void loop_pixels(const char *path, int x0, int y0, int r, int *lime, int *grey) {
  int w, h, n;
  unsigned char *p = stbi_load(path, &w, &h, &n, 4);
  assert_non_null(p);
  *lime = *grey = 0;
  for (int y = y0 - r; y <= y0 + r; y++)
    for (int x = x0 - r; x <= x0 + r; x++) {
      if (x < 0 || y < 0 || x >= w || y >= h) continue;
      const unsigned char *q = p + 4 * (y * w + x);
      int R = q[0], G = q[1], B = q[2];
      *lime += G > 120 && 10 * R > 4 * G && 10 * R < 8 * G && 10 * B < 3 * G;
      *grey += abs(R - G) < 10 && abs(G - B) < 10 && R > 90;
    }
  stbi_image_free(p);
}

static void loop_opens_on_the_command_line(void **state) {
  (void)state;
  workspace w;
  workspace_new(&w, "interact_loop", "replay");
  snprintf(w.scene, sizeof w.scene, "data/scenes/fourbar.yaml");
  char closed[320], opened[320], text[1024];
  snprintf(closed, sizeof closed, "%s/closed.png", w.dir);
  snprintf(opened, sizeof opened, "%s/open.png", w.dir);
  snprintf(text, sizeof text,
           "0.05 screenshot %s\n0.1 type open pin\n0.1 key Tab\n0.1 key Return\n0.15 screenshot %s\n"
           "0.2 key space\n0.4 quit\n", closed, opened);
  write_text(w.script, text);
  view(w.scene, w.script, w.out, w.dir);
  /* the loop's frame A, the coupler's tip at the start */
  const double a[3] = {2.1723064575841753, 0.9850433922801537, 0};
  int x, y, lime[2], grey[2];
  project(a, &x, &y);
  loop_pixels(closed, x, y, 30, &lime[0], &grey[0]);
  loop_pixels(opened, x, y, 30, &lime[1], &grey[1]);
  printf("# loop glyph at (%d, %d): lime %d -> %d pixels, grey %d -> %d\n", x, y, lime[0], lime[1],
         grey[0], grey[1]);
  assert_true(lime[0] > 150);
  assert_true(lime[1] < 10);
  assert_true(grey[1] > 150 && grey[1] > 4 * grey[0]);
  const char *keep = getenv("HINGE_TEST_IMAGES"); /* a folder to keep the screenshots in */
  for (int k = 0; keep && k < 2; k++) {
    size_t len;
    char *png = hg_test_read_file(k ? opened : closed, &len), to[512];
    snprintf(to, sizeof to, "%s/loop_%s.png", keep, k ? "open" : "closed");
    FILE *out = fopen(to, "wb");
    if (png && out) fwrite(png, 1, len, out);
    if (out) fclose(out);
    free(png);
  }
  size_t n;
  char session[320];
  snprintf(session, sizeof session, "%s/hinge-session.txt", w.dir);
  char *cmds = hg_test_read_file(session, &n);
  assert_non_null(cmds);
  assert_non_null(strstr(cmds, " open pin_c"));
  free(cmds);
  replays_byte_for_byte(&w);
}

/* ---- control in the loop ---- */

static const char adcs_scene[] = "data/scenes/adcs_bus.yaml";
static const char ctl_camera[] = "eye=1,-3,5 target=0,0,-0.2 up=0,0,1 fov=30";

/* counts of pixels within r of (x0, y0) in a PNG: the plume's orange (red full, green about half,
 * little blue), the gauge's cyan and its red (the saturated colour) */
typedef struct ctl_pixels { int plume, cyan, red; } ctl_pixels;
static ctl_pixels count_ctl(const char *path, int x0, int y0, int r) {
  int w, h, n;
  ctl_pixels c = {0, 0, 0};
  unsigned char *p = stbi_load(path, &w, &h, &n, 4);
  if (!p) fail_msg("cannot read %s", path);
  for (int y = y0 - r; y <= y0 + r; y++)
    for (int x = x0 - r; x <= x0 + r; x++) {
      if (x < 0 || y < 0 || x >= w || y >= h) continue;
      const unsigned char *q = p + 4 * (y * w + x);
      int R = q[0], G = q[1], B = q[2];
      c.plume += R > 200 && G > 70 && G < 200 && B < 90 && R - G > 70;
      c.cyan += B > 150 && G > 120 && R < 130;
      c.red += R > 170 && G < 90 && B < 90;
    }
  stbi_image_free(p);
  return c;
}

/* the viewer on scene seen by camera cam, script text, outputs in w */
static void view_scene(workspace *w, const char *scene, const char *cam, const char *text) {
  hg_viewer_options o;
  char err[512];
  write_text(w->script, text);
  hg_viewer_default_options(&o);
  o.offscreen = 1, o.script = w->script, o.width = W, o.height = H, o.finish = 1, o.paused = 1;
  o.has_camera = 1;
  assert_int_equal(hg_camera_parse(cam, &o.camera, err, sizeof err), 0);
  o.out.dir = w->out, o.out.plots = 0;
  o.screenshot_dir = w->dir;
  if (hg_viewer_run(scene, &o, err, sizeof err)) fail_msg("%s", err);
}

/* the viewer on the ADCS bus seen from the side (camera cam), script text, outputs in w */
static void view_ctl(workspace *w, const char *cam, const char *text) {
  view_scene(w, adcs_scene, cam, text);
}

/* the pixel where camera cam sees p */
static void project_cam(const char *cam, const double p[3], int *x, int *y) {
  hg_camera c;
  char err[256];
  double px[2];
  hg_camera_default(&c);
  assert_int_equal(hg_camera_parse(cam, &c, err, sizeof err), 0);
  assert_true(hg_camera_project(&c, W, H, p, px));
  *x = (int)lround(px[0]), *y = (int)lround(px[1]);
}

/* copies a screenshot into $HINGE_TEST_IMAGES (when set) as name */
static void keep_image(const char *path, const char *name) {
  const char *keep = getenv("HINGE_TEST_IMAGES");
  if (!keep) return;
  size_t len;
  char *png = hg_test_read_file(path, &len), to[512];
  snprintf(to, sizeof to, "%s/%s", keep, name);
  FILE *out = fopen(to, "wb");
  if (png && out) fwrite(png, 1, len, out);
  if (out) fclose(out);
  free(png);
}

static void actuators_draw_plumes_and_gauges(void **state) {
  (void)state;
  workspace w;
  workspace_new(&w, "interact_ctl", "replay");
  char wheels[320], shown[320], hidden[320], text[2048];
  snprintf(wheels, sizeof wheels, "%s/wheels.png", w.dir);
  snprintf(shown, sizeof shown, "%s/actuators.png", w.dir);
  snprintf(hidden, sizeof hidden, "%s/hidden.png", w.dir);
  /* without the HUD: the wheels at the start; ten steps of 0.01 s on, t1 firing at full level
   * and t3 at half since 0.05 s; then shift+A (once the note of the screenshots has gone) */
  size_t at = (size_t)snprintf(text, sizeof text, "0.0 key u\n0.03 screenshot %s\n", wheels);
  for (int k = 0; k < 10; k++)
    at += (size_t)snprintf(text + at, sizeof text - at, "0.%d key Right\n", 10 + k);
  snprintf(text + at, sizeof text - at, "0.3 screenshot %s\n0.4 key shift+A\n3.5 screenshot %s\n"
           "3.6 quit\n", shown, hidden);
  view_ctl(&w, ctl_camera, text);
  keep_image(wheels, "wheels.png");
  keep_image(shown, "actuators.png");
  /* where the wheels are at the start and the thrusters at t = 0.1 s, from a headless run */
  hg_scene *sc = hg_test_scene(adcs_scene);
  hg_sim *sim = hg_test_sim(sc, NAN, NULL);
  ctl_pixels plume[4], gauge[4], offt[4], offw[4];
  for (int pass = 0; pass < 2; pass++) {
    if (pass) assert_int_equal(hg_sim_run(sim, 0.1), HG_SIM_OK);
    for (int k = 0; k < hg_sim_nactuator(sim); k++) {
      hg_sim_actuator_view av;
      hg_sim_actuator(sim, k, &av);
      int x, y;
      if (pass && av.type == HG_ACT_THRUSTER) { /* 0.3 m below the nozzle, along -dir */
        double p[3];
        for (int i = 0; i < 3; i++) p[i] = av.point[i] - 0.3 * av.dir[i];
        project_cam(ctl_camera, p, &x, &y);
        int t = av.name[1] - '1';
        plume[t] = count_ctl(shown, x, y, 12);
        offt[t] = count_ctl(hidden, x, y, 12);
        printf("# %s: level %.2f, plume pixels %d (hidden: %d)\n", av.name, av.level,
               plume[t].plume, offt[t].plume);
      } else if (!pass && av.type == HG_ACT_WHEEL) { /* the ring and its gauge */
        project_cam(ctl_camera, av.point, &x, &y);
        int r = av.name[2] - '1';
        gauge[r] = count_ctl(wheels, x, y, 46);
        offw[r] = count_ctl(hidden, x, y, 46);
        printf("# %s: %.0f rad/s, gauge pixels cyan %d red %d (hidden: %d %d)\n", av.name,
               av.speed, gauge[r].cyan, gauge[r].red, offw[r].cyan, offw[r].red);
      }
    }
  }
  hg_sim_free(sim);
  hg_scene_free(sc);
  /* t1 (full) and t3 (half) fire: their plumes; t2 and t4 are idle */
  assert_true(plume[0].plume > 40 && plume[2].plume > 20);
  assert_true(plume[1].plume < 5 && plume[3].plume < 5);
  assert_true(offt[0].plume < 5 && offt[2].plume < 5); /* shift+A hid them */
  /* the gauges fill with the speeds: rw1 12 %, rw2 25 %, rw3 50 % (cyan), rw4 95 % (red) */
  assert_true(gauge[0].cyan > 10);
  assert_true(gauge[1].cyan > 1.4 * gauge[0].cyan && gauge[2].cyan > 1.4 * gauge[1].cyan);
  assert_true(gauge[3].cyan < 10 && gauge[3].red > 1.4 * gauge[2].cyan); /* 95 % against 50 % */
  for (int r = 0; r < 3; r++) assert_true(gauge[r].red < 10);
  for (int r = 0; r < 4; r++) assert_true(offw[r].cyan < 5 && offw[r].red < 5);
  hg_test_remove_dir(w.dir);
}

/* ---- sensors ---- */

static const char sens_scene[] = "data/scenes/sensor_bus.yaml";
static const char sens_camera[] = "eye=3,-4,2.5 target=0,0,0 up=0,0,1 fov=35";

/* counts of pixels within r of (x0, y0) in a PNG in the sensors overlay's colours: a valid star
 * tracker's violet, a sun sensor's yellow, an IMU's pink */
typedef struct sens_pixels { int violet, yellow, pink; } sens_pixels;
static sens_pixels count_sens(const char *path, int x0, int y0, int r) {
  int w, h, n;
  sens_pixels c = {0, 0, 0};
  unsigned char *p = stbi_load(path, &w, &h, &n, 4);
  if (!p) fail_msg("cannot read %s", path);
  for (int y = y0 - r; y <= y0 + r; y++)
    for (int x = x0 - r; x <= x0 + r; x++) {
      if (x < 0 || y < 0 || x >= w || y >= h) continue;
      const unsigned char *q = p + 4 * (y * w + x);
      int R = q[0], G = q[1], B = q[2];
      c.violet += B > 120 && R > 0.55 * B && G < 0.8 * B && R > G + 25 && B > R + 15;
      c.yellow += R > 150 && G > 0.78 * R && B < 0.45 * G; /* not the markers' orange */
      c.pink += R > 170 && G > 50 && G < 170 && B > 100 && R > G + 60 && R > B + 30;
    }
  stbi_image_free(p);
  return c;
}

/* where marker name is at time t of a headless run, projected by the sensors' camera */
static void sens_marker_at(double t, const char *name, int *x, int *y) {
  hg_scene *sc = hg_test_scene(sens_scene);
  hg_sim *sim = hg_test_sim(sc, NAN, NULL);
  if (t > 0) assert_int_equal(hg_sim_run(sim, t), HG_SIM_OK);
  int found = 0;
  for (int k = 0; k < hg_sim_nmarker(sim); k++) {
    hg_sim_marker_view mv;
    hg_sim_marker(sim, k, &mv);
    if (strcmp(mv.name, name)) continue;
    project_cam(sens_camera, mv.pose.p, x, y);
    found = 1;
  }
  assert_true(found);
  hg_sim_free(sim);
  hg_scene_free(sc);
}

/* The sensors overlay on tests/data/scenes/sensor_bus.yaml: at t = 0.2 s the top tracker's
 * violet baffle, the sun sensor's yellow plate and line (the sun within its field of view) and
 * the IMU's pink cube show where their markers project, the tracker with dropout 1 shows no
 * violet (dimmed); at 1 s the turn has taken the sun out of the sun sensor's view: no yellow;
 * stepping back to 0.2 s shows the yellow again (the state captured then, not the sensor's
 * latest); shift+S hides it all. */
static void sensors_draw_and_replay(void **state) {
  (void)state;
  workspace w;
  workspace_new(&w, "interact_sens", "replay");
  char at02[320], at10[320], back[320], hidden[320], text[2048];
  snprintf(at02, sizeof at02, "%s/sensors_0.2.png", w.dir);
  snprintf(at10, sizeof at10, "%s/sensors_1.0.png", w.dir);
  snprintf(back, sizeof back, "%s/sensors_back.png", w.dir);
  snprintf(hidden, sizeof hidden, "%s/sensors_hidden.png", w.dir);
  size_t at = (size_t)snprintf(text, sizeof text, "0.0 key u\n0.01 key Right\n0.02 key Right\n"
                               "0.05 screenshot %s\n", at02);
  for (int k = 0; k < 8; k++) /* on to 1.0 s */
    at += (size_t)snprintf(text + at, sizeof text - at, "0.%d key Right\n", 10 + k);
  at += (size_t)snprintf(text + at, sizeof text - at, "0.3 screenshot %s\n", at10);
  for (int k = 0; k < 8; k++) /* back to 0.2 s */
    at += (size_t)snprintf(text + at, sizeof text - at, "0.%d key Left\n", 40 + k);
  snprintf(text + at, sizeof text - at, "0.6 screenshot %s\n0.7 key shift+S\n0.8 screenshot %s\n"
           "0.9 quit\n", back, hidden);
  view_scene(&w, sens_scene, sens_camera, text);
  keep_image(at02, "sensors_0.2.png");
  keep_image(at10, "sensors_1.0.png");
  int tx, ty, dx, dy, sx, sy, ix, iy, sx1, sy1;
  sens_marker_at(0.2, "top", &tx, &ty);
  sens_marker_at(0.2, "side", &dx, &dy);
  sens_marker_at(0.2, "sun_face", &sx, &sy);
  sens_marker_at(0.2, "imu_mount", &ix, &iy);
  sens_marker_at(1.0, "sun_face", &sx1, &sy1);
  sens_pixels top = count_sens(at02, tx, ty - 15, 20), dark = count_sens(at02, dx, dy, 16),
              sun = count_sens(at02, sx, sy, 14), imu = count_sens(at02, ix, iy, 12),
              sun1 = count_sens(at10, sx1, sy1, 14), sunb = count_sens(back, sx, sy, 14),
              topb = count_sens(back, tx, ty - 15, 20), off = count_sens(hidden, tx, ty - 15, 20),
              offs = count_sens(hidden, sx, sy, 14), offi = count_sens(hidden, ix, iy, 12);
  printf("# 0.2 s: tracker violet %d, dark tracker violet %d, sun yellow %d, imu pink %d\n",
         top.violet, dark.violet, sun.yellow, imu.pink);
  printf("# 1.0 s: sun yellow %d; back at 0.2 s: sun yellow %d, tracker violet %d\n", sun1.yellow,
         sunb.yellow, topb.violet);
  printf("# hidden: violet %d yellow %d pink %d\n", off.violet, offs.yellow, offi.pink);
  /* glyphs are sized on the screen: the bus's glyph size is 48 px here (0.27 m at its depth),
   * smaller than the 0.3 x the bodies' bounding radius it was, so the tracker's baffle shows 33
   * violet pixels where it showed 96 and the IMU's cube 15 pink where it showed 49 (measured
   * with the world-sized glyphs); the dimmed tracker and the hidden glyphs stay under 5 */
  assert_true(top.violet > 25);
  assert_true(dark.violet < 5); /* dropped out: dimmed */
  assert_true(sun.yellow > 15);
  assert_true(imu.pink > 10);
  assert_true(sun1.yellow < 5); /* out of view: a dim plate, no line */
  assert_true(sunb.yellow > 15 && abs(sunb.yellow - sun.yellow) <= sun.yellow / 10);
  assert_true(abs(topb.violet - top.violet) <= top.violet / 10);
  assert_true(off.violet < 5 && offs.yellow < 5 && offi.pink < 5);
  hg_test_remove_dir(w.dir);
}

/* the lime pixels (the control panel's "on") in the top-left quarter of a PNG */
static int panel_lime(const char *path) {
  int lime, grey;
  loop_pixels(path, 180, 150, 150, &lime, &grey);
  return lime;
}

static void control_commands_log_and_replay(void **state) {
  (void)state;
  workspace w;
  workspace_new(&w, "interact_ctlcmd", "replay");
  snprintf(w.scene, sizeof w.scene, "%s", adcs_scene);
  char on[320], offp[320], text[2048];
  snprintf(on, sizeof on, "%s/on.png", w.dir);
  snprintf(offp, sizeof offp, "%s/off.png", w.dir);
  snprintf(text, sizeof text,
           "0.02 key Right\n0.04 key Right\n0.05 screenshot %s\n"
           "0.06 type controller ad\n0.07 key Tab\n0.08 type off\n0.09 key Return\n"
           "0.1 type set_gain adcs kp 0.2\n0.11 key Return\n"
           "0.12 type actuate t2 1 0.05\n0.13 key Return\n"
           "0.14 key Right\n0.16 key Right\n0.18 screenshot %s\n0.2 key space\n0.5 quit\n",
           on, offp);
  view_ctl(&w, camera, text);
  keep_image(offp, "control_off.png");
  int lime_on = panel_lime(on), lime_off = panel_lime(offp);
  printf("# control panel: lime (adcs on) %d -> %d pixels\n", lime_on, lime_off);
  assert_true(lime_on > 30);
  assert_true(lime_off < lime_on / 4);
  /* the commands in the session and in the event log */
  size_t n;
  char path[320];
  snprintf(path, sizeof path, "%s/hinge-session.txt", w.dir);
  char *cmds = hg_test_read_file(path, &n);
  assert_non_null(cmds);
  assert_non_null(strstr(cmds, " controller adcs off"));
  assert_non_null(strstr(cmds, " set_gain adcs kp 0.2"));
  assert_non_null(strstr(cmds, " actuate t2 1 0.05"));
  free(cmds);
  snprintf(path, sizeof path, "%s/events.csv", w.out);
  char *events = hg_test_read_file(path, &n);
  assert_non_null(events);
  assert_non_null(strstr(events, "controller adcs off"));
  assert_non_null(strstr(events, "set_gain adcs kp 0.2"));
  assert_non_null(strstr(events, "actuate t2 1 0.05"));
  free(events);
  replays_byte_for_byte(&w);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(click_selects_and_lock_matches_scene_event),
      cmocka_unit_test(command_line_errors_and_lock),
      cmocka_unit_test(mouse_pull_is_in_the_budget_and_replays),
      cmocka_unit_test(turning_pull_turns_the_bus),
      cmocka_unit_test(slider_sets_the_configuration),
      cmocka_unit_test(command_at_the_start_replays),
      cmocka_unit_test(loop_opens_on_the_command_line),
      cmocka_unit_test(actuators_draw_plumes_and_gauges),
      cmocka_unit_test(control_commands_log_and_replay),
      cmocka_unit_test(sensors_draw_and_replay),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
