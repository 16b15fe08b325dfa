/* cli_view.c: `hinge render SCENE ...` (offscreen images and video) and `hinge view SCENE` (the
 * interactive viewer), both through libhinge_render (render/viewer.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "viewer.h"

void hg_cli_render_usage(FILE *f) {
  fprintf(f,
          "usage: hinge render SCENE --out DIR [--size WxH] [--fps F] [--t-start A --t-end B]\n"
          "                    [--camera \"eye=X,Y,Z target=X,Y,Z up=X,Y,Z fov=DEG\"]\n"
          "                    [--track BODY] [--overlays LIST|none] [--flat] [--samples N]\n"
          "                    [--no-video] [--commands FILE]\n"
          "       hinge render SCENE --time T --out FILE.png [same options]\n"
          "\n"
          "Renders a scene offscreen (no display needed) to DIR/frame-NNNNN.png, one frame every\n"
          "1/F s of simulated time, and to DIR/video.mp4 when ffmpeg is installed. Renders are\n"
          "deterministic for a given scene, size and camera. docs/viewer.md shows examples.\n"
          "options:\n"
          "  --size WxH       image size in pixels (default 1280x720)\n"
          "  --fps F          frames per simulated second (default 30)\n"
          "  --t-start A      first frame time (default: the scene's start)\n"
          "  --t-end B        last frame time (default: the scene's end)\n"
          "  --time T         one frame at time T, written to the .png file --out names\n"
          "  --camera TEXT    a fixed pinhole camera: eye, target and up in world coordinates,\n"
          "                   fov the vertical field of view in degrees (default: the viewer's\n"
          "                   camera, keeping the scene's bodies of interest in frame)\n"
          "  --track BODY     the camera follows this body's translation\n"
          "  --overlays LIST  comma-separated: frames joints com markers inertia wrenches\n"
          "                   springs forces trails pairs momentum loops actuators sensors,\n"
          "                   or all, default or none (none: the bodies' geometry only, no\n"
          "                   caption)\n"
          "  --flat           flat colours, no lighting or background (for measurements)\n"
          "  --samples N      multisampling (default 4; 0 off)\n"
          "  --no-video       no MP4 even when ffmpeg is installed\n"
          "  --commands FILE  apply the commands of FILE at their times, one per line,\n"
          "                   'TIME ACTION ARGUMENTS' (docs/commands.md), as hinge run does: a\n"
          "                   session saved in the viewer renders as it was played\n"
          "exit status: 0 success, 1 an image could not be written or no OpenGL context,\n"
          "             2 bad usage or scene, 3 numerical failure of the simulation\n");
}

void hg_cli_view_usage(FILE *f) {
  fprintf(f,
          "usage: hinge view SCENE [--size WxH] [--speed S] [--camera TEXT] [--track BODY]\n"
          "                  [--overlays LIST] [--commands FILE] [--script FILE]\n"
          "                  [--screenshots DIR] [--ghost FILE] [--mode MODES.csv:N] [--offscreen]\n"
          "                  [--video FILE.mp4]\n"
          "\n"
          "Opens the interactive viewer on a scene, paused at its start (space runs it; F1 lists\n"
          "every key). Nothing is written except screenshots, the session (hinge-session.txt)\n"
          "and --video. --offscreen draws without a window: with --script, the viewer runs in\n"
          "tests and on machines without a display.\n"
          "--script FILE plays timed input events, one per line, TIME in seconds of a virtual\n"
          "clock (1/60 s per frame; docs/viewer.md):\n"
          "  'TIME key [shift+][ctrl+]NAME'   a key (SDL's names: space, Right, F5, a, ...)\n"
          "  'TIME type TEXT'                 text into the command line (opened if needed)\n"
          "  'TIME click X Y [shift]'         a click at a pixel (shift: adds to the selection)\n"
          "  'TIME drag X0 Y0 X1 Y1'          a left-button drag\n"
          "  'TIME mousedown X Y [ctrl|shift] [right]'   press (ctrl: grab and pull; ctrl right:\n"
          "                                   turn), then 'TIME mousemove X Y', 'TIME mouseup'\n"
          "  'TIME screenshot FILE'           the frame shown, as a PNG\n"
          "  'TIME sleep SECONDS'             a wall-clock pause (a test edits files meanwhile)\n"
          "  'TIME quit'\n"
          "--ghost FILE shows ghosts of the mechanism at q (+) k eps delta for the direction delta\n"
          "in FILE (nv numbers in v's order: a mode shape, a base twist; up/down scale eps).\n"
          "--mode MODES.csv:N animates mode N of hinge linearize's modes.csv at its frequency.\n"
          "--screenshots DIR: where screenshots, the saved camera and the session go (created if\n"
          "needed; default: the current folder).\n"
          "--video FILE.mp4 records every frame shown, at the window's size, 60 frames per\n"
          "second, through ffmpeg (as hinge render); the file is complete after quitting,\n"
          "closing the window or ctrl+C.\n");
}

/* "WxH" */
static int parse_size(const char *s, int *w, int *h) {
  char *end;
  long a = strtol(s, &end, 10);
  if (*end != 'x' && *end != 'X') return -1;
  long b = strtol(end + 1, &end, 10);
  if (*end || a < 16 || b < 16 || a > 8192 || b > 8192) return -1;
  *w = (int)a, *h = (int)b;
  return 0;
}

/* "hinge render: " or "hinge view: " message, the usage, and the usage exit status */
static int render_error(const char *fmt, const char *arg) {
  return hg_cli_usage_error("render", hg_cli_render_usage, fmt, arg);
}

static int view_error(const char *fmt, const char *arg) {
  return hg_cli_usage_error("view", hg_cli_view_usage, fmt, arg);
}

/* the options both commands share; 1 when argv[*i] was one, 0 when not, or an exit status + 10 */
static int common_option(const char *cmd, int argc, char **argv, int *i, int *w, int *h,
                         int *has_camera, hg_camera *cam, const char **track, int *overlays,
                         void (*usage)(FILE *)) {
  const char *s = argv[*i];
  char err[512];
  int takes = !strcmp(s, "--size") || !strcmp(s, "--camera") || !strcmp(s, "--track") ||
              !strcmp(s, "--overlays");
  if (!takes) return 0;
  if (*i + 1 >= argc) return 10 + hg_cli_usage_error(cmd, usage, "%s needs a value", s);
  const char *v = argv[++*i];
  if (!strcmp(s, "--size") && parse_size(v, w, h))
    return 10 + hg_cli_usage_error(cmd, usage, "--size '%s': expected WxH, 16..8192 pixels each",
                                   v);
  if (!strcmp(s, "--camera")) {
    if (hg_camera_parse(v, cam, err, sizeof err))
      return 10 + hg_cli_usage_error(cmd, usage, "--camera: %s", err);
    *has_camera = 1;
  }
  if (!strcmp(s, "--track")) *track = v;
  if (!strcmp(s, "--overlays") && hg_overlay_parse(v, overlays, err, sizeof err))
    return 10 + hg_cli_usage_error(cmd, usage, "--overlays: %s", err);
  return 1;
}

int hg_cli_render(int argc, char **argv) {
  hg_render_options o;
  const char *scene = NULL;
  char err[1024];
  hg_render_default_options(&o);
  o.log = isatty(fileno(stderr)) ? stderr : NULL;
  for (int i = 1; i < argc; i++) {
    const char *s = argv[i];
    int c = common_option("render", argc, argv, &i, &o.width, &o.height, &o.has_camera, &o.camera,
                          &o.track, &o.overlays, hg_cli_render_usage);
    if (c >= 10) return c - 10;
    if (c) continue;
    if (!strcmp(s, "--help") || !strcmp(s, "-h")) return hg_cli_render_usage(stdout), HG_EXIT_OK;
    if (!strcmp(s, "--flat")) { o.mode = 1; continue; }
    if (!strcmp(s, "--no-video")) { o.video = 0; continue; }
    if (s[0] == '-' && s[1]) {
      double x;
      if (i + 1 >= argc) return render_error("%s needs a value", s);
      const char *v = argv[++i];
      if (!strcmp(s, "--out")) { o.out = v; continue; }
      if (!strcmp(s, "--commands")) { o.commands = v; continue; }
      if (hg_cli_number(v, &x)) return render_error("'%s' is not a number", v);
      if (!strcmp(s, "--fps") && x > 0 && x <= 1000) o.fps = x;
      else if (!strcmp(s, "--t-start")) o.t_start = x;
      else if (!strcmp(s, "--t-end")) o.t_end = x;
      else if (!strcmp(s, "--time")) o.time = x;
      else if (!strcmp(s, "--samples") && x >= 0 && x <= 16) o.samples = (int)x;
      else if (!strcmp(s, "--fps") || !strcmp(s, "--samples"))
        return render_error("%s: out of range", s);
      else return render_error("unknown option '%s'", s);
    } else if (!scene) {
      scene = s;
    } else {
      return render_error("unexpected argument '%s'", s);
    }
  }
  if (!scene) return render_error("%s", "a scene file is needed");
  if (!o.out) return render_error("%s", "--out is needed");
  if (!isnan(o.time) && (!isnan(o.t_start) || !isnan(o.t_end)))
    return render_error("%s", "--time renders one frame: do not give --t-start or --t-end");
  int rc = hg_render_scene(scene, &o, err, sizeof err);
  if (rc) fprintf(stderr, "hinge render: %s\n", err);
  return rc == 2 ? HG_EXIT_USAGE : rc == 3 ? HG_EXIT_SINGULAR : rc ? HG_EXIT_FAILURE : HG_EXIT_OK;
}

int hg_cli_view(int argc, char **argv) {
  hg_viewer_options o;
  const char *scene = NULL;
  char err[1024];
  hg_viewer_default_options(&o);
  o.paused = 1;
  for (int i = 1; i < argc; i++) {
    const char *s = argv[i];
    int c = common_option("view", argc, argv, &i, &o.width, &o.height, &o.has_camera, &o.camera,
                          &o.track, &o.overlays, hg_cli_view_usage);
    if (c >= 10) return c - 10;
    if (c) continue;
    if (!strcmp(s, "--help") || !strcmp(s, "-h")) return hg_cli_view_usage(stdout), HG_EXIT_OK;
    if (!strcmp(s, "--offscreen")) { o.offscreen = 1; continue; }
    if (s[0] == '-' && s[1]) {
      double x;
      if (i + 1 >= argc) return view_error("%s needs a value", s);
      const char *v = argv[++i];
      if (!strcmp(s, "--commands")) o.commands = v;
      else if (!strcmp(s, "--script")) o.script = v;
      else if (!strcmp(s, "--screenshots")) o.screenshot_dir = v;
      else if (!strcmp(s, "--ghost")) o.ghost = v;
      else if (!strcmp(s, "--mode")) o.mode = v;
      else if (!strcmp(s, "--video")) o.video = v;
      else if (!strcmp(s, "--speed")) {
        if (hg_cli_number(v, &x) || !(x >= 1.0 / 64 && x <= 64))
          return view_error("--speed '%s': expected 1/64 .. 64", v);
        o.speed = x;
      } else return view_error("unknown option '%s'", s);
    } else if (!scene) {
      scene = s;
    } else {
      return view_error("unexpected argument '%s'", s);
    }
  }
  if (!scene) return view_error("%s", "a scene file is needed");
  if (hg_cli_make_dirs(o.screenshot_dir)) {
    fprintf(stderr, "hinge view: cannot create the screenshot folder %s: %s\n", o.screenshot_dir, strerror(errno));
    return HG_EXIT_FAILURE;
  }
  int rc = hg_viewer_run(scene, &o, err, sizeof err);
  if (rc) fprintf(stderr, "hinge view: %s\n", rc == 3 ? "the simulation failed" : err);
  return rc == 2 ? HG_EXIT_USAGE : rc == 3 ? HG_EXIT_SINGULAR : rc ? HG_EXIT_FAILURE : HG_EXIT_OK;
}
