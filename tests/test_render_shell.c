/* test_render_shell.c: the viewer's shell (render/viewer.c's main loop, its scripts and the mouse
 * pull's path through it), driven by scripts offscreen at 640 x 360 on the shipped scenes:
 *  - a ctrl-drag on heatshield (the capsule falling at 12 m/s from 2.7 km, output every 0.05 s,
 *    the camera tracking it), on freeze_thaw and on undock (7.7 km/s in orbit, at speed 2)
 *    advances the simulation while the button is held: the release is logged held time x speed
 *    after the first perturb, the energy budget closes, and the session replays headless to the
 *    same events.csv;
 *  - a screenshot shows the frame without the transient message: the "saved ..." of the
 *    screenshot before it is not in it;
 *  - a paused viewer draws only when something changes: an idle scripted second draws at most
 *    the first frame and the quit's, a running one every frame;
 *  - every script form `hinge view --help` names parses (with and without its optional words);
 *  - `hinge run` with the viewer writes hinge-session.txt into its output folder, or into the
 *    --screenshots folder when one is given, never into the current folder;
 *  - --video: a scripted session writes an MP4 with one frame per frame drawn, at the window's
 *    size; after SIGINT (which SDL turns into a quit) the MP4 is complete too; without ffmpeg
 *    on the PATH the viewer says so and returns 1 (skipped when ffmpeg or ffprobe is absent).
 *
 * Runs in the tests folder (CTest's working directory): the scenes are ../scenes/. */
#define _XOPEN_SOURCE 700 /* realpath, open_memstream */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include <stb_image.h>

#include "cli.h"
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

/* the largest change of body's speed over trajectory.csv of dir from its first row, m/s */
static double speed_change(const char *dir, const char *body) {
  char path[512], line[65536], name[96];
  snprintf(path, sizeof path, "%s/trajectory.csv", dir);
  snprintf(name, sizeof name, "%s.vx", body);
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  assert_non_null(fgets(line, sizeof line, f));
  int col = -1, k = 0;
  for (char *tok = strtok(line, ",\n"); tok; tok = strtok(NULL, ",\n"), k++)
    if (!strcmp(tok, name)) col = k;
  assert_true(col > 0);
  double v0 = NAN, worst = 0;
  while (fgets(line, sizeof line, f)) {
    double v[3];
    char *p = line;
    for (k = 0; k < col; k++) p = strchr(p, ',') + 1;
    for (k = 0; k < 3; k++) v[k] = strtod(p, &p), p++;
    double s = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (isnan(v0)) v0 = s;
    worst = fmax(worst, fabs(s - v0));
  }
  fclose(f);
  return worst;
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

/* A hand in orbit moves with the mechanism: the pulled servicer keeps its orbital speed. The
 * viewer fixes the target in the client (the other free tree): the pull is a spring between two
 * spacecraft, so their relative motion changes by a few m/s at most (1 Hz on a drag of some
 * 20 pixels, a metre or so at this zoom), while a target at rest in the inertial frame took the
 * servicer from 7,672 m/s to 68 m/s in 1 s. */
static void pull_in_orbit_keeps_the_orbit(void **state) {
  (void)state;
  workspace w;
  char text[1024];
  workspace_new(&w, "shell_pull_orbit_speed");
  snprintf(text, sizeof text,
           "0.0 key Tab\n0.0 key space\n0.5 mousedown %d %d ctrl\n0.6 mousemove %d %d\n"
           "1.0 mousemove %d %d\n2.5 mouseup\n2.6 quit\n",
           W / 2, H / 2, W / 2 + 10, H / 2 - 5, W / 2 + 20, H / 2 - 10);
  write_text(w.script, text);
  assert_int_equal(view(&w, "../scenes/undock.yaml", 4), 0);
  double tp, tr;
  pull_times(w.out, &tp, &tr);
  assert_false(isnan(tp));
  double dv = speed_change(w.out, "servicer");
  printf("# the servicer's speed changes by at most %.3g m/s while pulled from %.3g s to %.3g s\n", dv, tp, tr);
  assert_true(dv < 10);
  hg_test_remove_dir(w.dir);
}

/* the number of pixels of the messages' colours (red errors, green notes) in a PNG */
static int red_pixels(const char *path) {
  int w, h, n, red = 0;
  unsigned char *p = stbi_load(path, &w, &h, &n, 4);
  assert_non_null(p);
  for (int k = 0; k < w * h; k++) /* an error's red, and a note's green */
    red += (p[4 * k] > 200 && p[4 * k + 1] < 140 && p[4 * k + 2] < 140) ||
           (p[4 * k + 1] > 200 && p[4 * k] < 190 && p[4 * k + 2] < 190);
  stbi_image_free(p);
  return red;
}

static void screenshot_has_no_message(void **state) {
  (void)state;
  workspace w;
  char text[1024], a[320], b[320], c[320];
  workspace_new(&w, "shell_shot");
  snprintf(a, sizeof a, "%s/a.png", w.dir);
  snprintf(b, sizeof b, "%s/b.png", w.dir);
  snprintf(c, sizeof c, "%s/hinge-0001.png", w.dir);
  /* paused: every image shows the same frame; 'p' leaves "saved .../hinge-0000.png" (a note, in
   * green) on the screen for 2 s, over the next 'p'; a script's screenshot shows the window as it
   * is, the message included */
  snprintf(text, sizeof text, "0.1 screenshot %s\n0.2 key p\n0.3 screenshot %s\n0.4 key p\n0.5 quit\n", a, b);
  write_text(w.script, text);
  assert_int_equal(view(&w, "../scenes/heatshield.yaml", 1), 0);
  int ra = red_pixels(a), rb = red_pixels(b), rc = red_pixels(c);
  printf("# red pixels: before 'p' %d, after it %d, the next 'p' %d\n", ra, rb, rc);
  assert_true(rb > ra); /* the script's screenshot: the note is on the screen */
  assert_int_equal(rc, ra);
  hg_test_remove_dir(w.dir);
}

/* pixels of the selection's yellow tint ((r + g) / 2 - b > 40, r > 120) in the box x0..x1, y0..y1 */
static int yellow_pixels(const char *path, int x0, int x1, int y0, int y1) {
  int w, h, n, c = 0;
  unsigned char *p = stbi_load(path, &w, &h, &n, 4);
  assert_non_null(p);
  for (int y = y0; y < y1 && y < h; y++)
    for (int x = x0; x < x1 && x < w; x++) {
      const unsigned char *q = p + 4 * (y * w + x);
      c += (q[0] + q[1]) / 2 - q[2] > 40 && q[0] > 120;
    }
  stbi_image_free(p);
  return c;
}

/* a click on the capsule (tracked: at the centre of the view) tints it yellow */
static void selection_is_highlighted(void **state) {
  (void)state;
  workspace w;
  char text[1024], a[320], b[320];
  workspace_new(&w, "shell_highlight");
  snprintf(a, sizeof a, "%s/a.png", w.dir);
  snprintf(b, sizeof b, "%s/b.png", w.dir);
  snprintf(text, sizeof text, "0.0 key Tab\n0.1 screenshot %s\n0.2 click %d %d\n0.3 screenshot %s\n0.4 quit\n",
           a, W / 2, H / 2, b);
  write_text(w.script, text);
  assert_int_equal(view(&w, "../scenes/heatshield.yaml", 1), 0);
  /* the capsule's middle, left of the sliders (which cover the right half while paused) */
  int ya = yellow_pixels(a, W / 2 - 80, W / 2 + 80, H / 2 - 100, H / 2 + 40);
  int yb = yellow_pixels(b, W / 2 - 80, W / 2 + 80, H / 2 - 100, H / 2 + 40);
  printf("# yellow pixels on the capsule: not selected %d, selected %d\n", ya, yb);
  /* labels and markers are yellow too (some 200 pixels, and the selection's cross and label add
   * a few dozen); the tint turns the capsule's lit grey yellow: about 1,000 pixels at this size */
  assert_true(yb > 3 * ya && yb - ya > 500);
  hg_test_remove_dir(w.dir);
}

/* the frames a scripted viewer draws (paused at the start unless the script runs it) */
static long frames_drawn(const workspace *w, const char *script) {
  hg_viewer_options o;
  char err[512];
  long n = -1;
  write_text(w->script, script);
  hg_viewer_default_options(&o);
  o.offscreen = 1, o.script = w->script, o.width = W, o.height = H, o.paused = 1;
  o.screenshot_dir = w->dir, o.frames_drawn = &n;
  if (hg_viewer_run("../scenes/heatshield.yaml", &o, err, sizeof err)) fail_msg("%s", err);
  return n;
}

static void paused_viewer_draws_on_change_only(void **state) {
  (void)state;
  workspace w;
  workspace_new(&w, "shell_idle");
  long idle = frames_drawn(&w, "1.0 quit\n"), running = frames_drawn(&w, "0.0 key space\n1.0 quit\n");
  printf("# frames drawn in a scripted second: paused %ld, running %ld\n", idle, running);
  assert_true(idle <= 2);     /* the first frame and the quit's */
  assert_true(running >= 60); /* 60 frames of 1/60 s, every one moves */
  hg_test_remove_dir(w.dir);
}

/* a form of the help ("TIME mousedown X Y [ctrl|shift] [right]") as a script line at time t:
 * optional words kept (their first alternative) or dropped, the placeholders given values */
static void form_line(const char *form, int keep, double t, const char *file, char *out, size_t len) {
  char word[128];
  size_t n = (size_t)snprintf(out, len, "%g", t);
  for (const char *p = form + 4; *p;) { /* after "TIME" */
    while (*p == ' ') p++;
    size_t k = strcspn(p, " ");
    if (!k) break;
    size_t m = 0;
    int in = 0, skip = 0;
    for (size_t j = 0; j < k && m + 1 < sizeof word; j++) { /* brackets and alternatives */
      if (p[j] == '[') in = 1, skip = !keep;
      else if (p[j] == ']') in = 0, skip = 0;
      else if (p[j] == '|' && in) skip = 1;
      else if (!skip) word[m++] = p[j];
    }
    word[m] = 0;
    p += k;
    const char *v = !strcmp(word, "NAME") ? "space" : !strcmp(word, "TEXT") ? "lock separation"
                    : !strcmp(word, "FILE") ? file : !strcmp(word, "SECONDS") ? "0"
                    : (word[0] == 'X' || word[0] == 'Y') && strlen(word) <= 2 ? "20" : word;
    if (strstr(word, "NAME")) { /* "shift+ctrl+NAME" */
      word[strlen(word) - 4] = 0;
      n += (size_t)snprintf(out + n, len - n, " %sspace", word);
    } else if (*v) {
      n += (size_t)snprintf(out + n, len - n, " %s", v);
    }
  }
  snprintf(out + n, len - n, "\n");
}

static void every_script_form_of_the_help_parses(void **state) {
  (void)state;
  workspace w;
  char *help = NULL, shot[320], line[512];
  size_t len = 0;
  workspace_new(&w, "shell_forms");
  snprintf(shot, sizeof shot, "%s/form.png", w.dir);
  FILE *m = open_memstream(&help, &len);
  assert_non_null(m);
  hg_cli_view_usage(m);
  fclose(m);
  FILE *f = fopen(w.script, "w");
  assert_non_null(f);
  int nform = 0, quit = 0;
  double t = 0;
  for (char *p = strstr(help, "'TIME "); p; p = strstr(p + 1, "'TIME ")) {
    char form[256];
    size_t k = strcspn(p + 1, "'");
    snprintf(form, sizeof form, "%.*s", (int)k, p + 1);
    if (!strcmp(form, "TIME quit")) { quit = 1; continue; } /* last */
    for (int keep = 1; keep >= 0; keep--) {
      form_line(form, keep, t += 0.05, shot, line, sizeof line);
      fputs(line, f);
    }
    nform++;
  }
  fprintf(f, "%g quit\n", t + 0.05);
  fclose(f);
  printf("# %d script forms in the help (and quit)\n", nform);
  assert_true(quit);
  assert_true(nform >= 9); /* key type click drag mousedown mousemove mouseup screenshot sleep */
  hg_viewer_options o;
  char err[512];
  hg_viewer_default_options(&o);
  o.offscreen = 1, o.script = w.script, o.width = W, o.height = H, o.paused = 1, o.screenshot_dir = w.dir;
  int rc = hg_viewer_run("../scenes/heatshield.yaml", &o, err, sizeof err);
  if (rc) fail_msg("%s\n%s", err, help);
  free(help);
  hg_test_remove_dir(w.dir);
}

/* `hinge run SCENE --offscreen --script S --out out [--screenshots shots]` in folder dir */
static int run_in(const char *dir, const char *scene, const char *script, const char *shots) {
  char cwd[4096];
  assert_non_null(getcwd(cwd, sizeof cwd));
  assert_int_equal(chdir(dir), 0);
  char *argv[] = {"run", (char *)scene, "--offscreen", "--script", (char *)script, "--out", "out",
                  "--no-plots", "--quiet", "--t-end", "1", shots ? "--screenshots" : NULL, (char *)shots, NULL};
  int rc = hg_cli_run(shots ? 13 : 11, argv);
  assert_int_equal(chdir(cwd), 0);
  return rc;
}

static int exists(const char *dir, const char *name) {
  char path[600];
  struct stat st;
  snprintf(path, sizeof path, "%s/%s", dir, name);
  return stat(path, &st) == 0;
}

static void run_writes_the_session_with_its_outputs(void **state) {
  (void)state;
  workspace w;
  char scene[4096];
  workspace_new(&w, "shell_run");
  assert_non_null(realpath("../scenes/heatshield.yaml", scene));
  /* a command given in the viewer: the session holds it */
  write_text(w.script, "0.1 type disable capsule_drag\n0.1 key Return\n0.3 quit\n");
  assert_int_equal(run_in(w.dir, scene, w.script, NULL), 0);
  assert_true(exists(w.dir, "out/hinge-session.txt"));
  assert_false(exists(w.dir, "hinge-session.txt"));
  assert_int_equal(run_in(w.dir, scene, w.script, "shots/a"), 0);
  assert_true(exists(w.dir, "shots/a/hinge-session.txt"));
  assert_false(exists(w.dir, "hinge-session.txt"));
  hg_test_remove_dir(w.dir);
}

/* 1 when the program is on the PATH */
static int on_path(const char *program) {
  char cmd[256];
  snprintf(cmd, sizeof cmd, "command -v %s > /dev/null 2>&1", program);
  return system(cmd) == 0;
}

/* the frames of an MP4 (ffprobe decodes and counts them), its width and height */
static long mp4_frames(const char *path, int *w, int *h) {
  char cmd[1024], line[256];
  long n = -1;
  snprintf(cmd, sizeof cmd, "ffprobe -v error -select_streams v:0 -count_frames -show_entries "
           "stream=width,height,nb_read_frames -of csv=p=0 '%s'", path);
  FILE *p = popen(cmd, "r");
  assert_non_null(p);
  if (!fgets(line, sizeof line, p) || sscanf(line, "%d,%d,%ld", w, h, &n) != 3) n = -1;
  pclose(p);
  return n;
}

/* the viewer on heatshield with script and --video path; its status, the frames drawn */
static int view_video(const workspace *w, const char *script, const char *path, long *drawn, char *err,
                      size_t errlen) {
  hg_viewer_options o;
  write_text(w->script, script);
  hg_viewer_default_options(&o);
  o.offscreen = 1, o.script = w->script, o.width = W, o.height = H, o.paused = 1;
  o.screenshot_dir = w->dir, o.frames_drawn = drawn, o.video = path;
  return hg_viewer_run("../scenes/heatshield.yaml", &o, err, errlen);
}

static void video_has_every_frame(void **state) {
  (void)state;
  if (!on_path("ffmpeg") || !on_path("ffprobe")) skip();
  workspace w;
  char path[320], err[512];
  long drawn = -1;
  int vw, vh;
  workspace_new(&w, "shell_video");
  snprintf(path, sizeof path, "%s/session.mp4", w.dir);
  if (view_video(&w, "0.0 key Tab\n0.0 key space\n1.0 quit\n", path, &drawn, err, sizeof err)) fail_msg("%s", err);
  long n = mp4_frames(path, &vw, &vh);
  printf("# video: %ld frames drawn, %ld in the MP4, %d x %d\n", drawn, n, vw, vh);
  assert_int_equal(n, drawn);
  assert_true(n >= 60); /* a second of 1/60 s frames (the quit's frame too) */
  assert_int_equal(vw, W);
  assert_int_equal(vh, H);
  hg_test_remove_dir(w.dir);
}

/* sends SIGINT to this process once the file (the script's marker screenshot) exists */
static void *interrupt_when(void *file) {
  struct stat st;
  struct timespec tick = {0, 10000000}; /* 10 ms, for at most a minute */
  for (int k = 0; k < 6000 && stat((const char *)file, &st); k++) nanosleep(&tick, NULL);
  kill(getpid(), SIGINT);
  return NULL;
}

static void video_is_complete_after_sigint(void **state) {
  (void)state;
  if (!on_path("ffmpeg") || !on_path("ffprobe")) skip();
  workspace w;
  char path[320], marker[320], script[1024], err[512];
  long drawn = -1;
  int vw, vh;
  pthread_t th;
  workspace_new(&w, "shell_video_int");
  snprintf(path, sizeof path, "%s/session.mp4", w.dir);
  snprintf(marker, sizeof marker, "%s/marker.png", w.dir);
  /* SDL turns SIGINT into a quit when it finds the default disposition (a shell may have
   * ignored SIGINT for a background job) */
  signal(SIGINT, SIG_DFL);
  snprintf(script, sizeof script, "0.0 key space\n0.4 screenshot %s\n0.5 sleep 1\n3.0 quit\n", marker);
  assert_int_equal(pthread_create(&th, NULL, interrupt_when, marker), 0);
  int rc = view_video(&w, script, path, &drawn, err, sizeof err);
  pthread_join(th, NULL);
  if (rc) fail_msg("%s", err);
  long n = mp4_frames(path, &vw, &vh);
  printf("# video after SIGINT: %ld frames drawn, %ld in the MP4\n", drawn, n);
  assert_true(drawn < 60); /* the quit came at about 0.5 s, long before the script's 3 s */
  assert_int_equal(n, drawn);
  hg_test_remove_dir(w.dir);
}

static void video_without_ffmpeg_says_so(void **state) {
  (void)state;
  workspace w;
  char path[320], err[512] = "", *old = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
  long drawn = -1;
  workspace_new(&w, "shell_video_none");
  snprintf(path, sizeof path, "%s/session.mp4", w.dir);
  setenv("PATH", w.dir, 1); /* a folder without ffmpeg */
  int rc = view_video(&w, "0.5 quit\n", path, &drawn, err, sizeof err);
  if (old) setenv("PATH", old, 1), free(old);
  printf("# without ffmpeg: status %d, '%s'\n", rc, err);
  assert_int_equal(rc, 1);
  assert_non_null(strstr(err, "ffmpeg is not on the PATH"));
  hg_test_remove_dir(w.dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(pull_advances_heatshield),
      cmocka_unit_test(pull_advances_freeze_thaw),
      cmocka_unit_test(pull_advances_in_orbit),
      cmocka_unit_test(pull_in_orbit_keeps_the_orbit),
      cmocka_unit_test(screenshot_has_no_message),
      cmocka_unit_test(selection_is_highlighted),
      cmocka_unit_test(paused_viewer_draws_on_change_only),
      cmocka_unit_test(every_script_form_of_the_help_parses),
      cmocka_unit_test(run_writes_the_session_with_its_outputs),
      cmocka_unit_test(video_has_every_frame),
      cmocka_unit_test(video_is_complete_after_sigint),
      cmocka_unit_test(video_without_ffmpeg_says_so),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
