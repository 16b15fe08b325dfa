/* cli_run.c: `hinge run [SCENE] [options]`: runs a scene and writes its outputs (sim.h). */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "output.h"
#include "sim.h"
#include "context.h"
#include "viewer.h"

/* The shipped scene `hinge run` runs without one: share/hinge/scenes/heatshield.yaml beside the
 * program's folder (PREFIX/bin/hinge reads PREFIX/share/hinge, cmake/install.cmake), or in it
 * (the build tree's hinge links BUILD/share/hinge to the sources' scenes and assets). Found from
 * /proc/self/exe, so the program holds no path of the machine it was built on. Writes the path
 * into path (len bytes); returns 0, or -1 when neither file exists (path then holds the first). */
static int default_scene(char *path, size_t len) {
  static const char *const tails[] = {"/../share/hinge/scenes/heatshield.yaml",
                                      "/share/hinge/scenes/heatshield.yaml"};
  char exe[4096];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) n = 0;
  exe[n] = '\0';
  char *slash = strrchr(exe, '/');
  if (slash) *slash = '\0';
  else snprintf(exe, sizeof exe, ".");
  for (int i = 1; i >= 0; i--) {
    snprintf(path, len, "%s%s", exe, tails[i]);
    if (access(path, R_OK) == 0) return 0;
  }
  return -1;
}

/* the command line */
typedef struct run_args {
  const char *scene, *out, *resume, *commands, *script, *screenshots, *video;
  double t_end, rtol, checkpoint_every, seed, max_wall;
  int method, headless, offscreen, quiet, no_plots, help, has_seed;
} run_args;

void hg_cli_run_usage(FILE *f) {
  fprintf(f,
          "usage: hinge run [SCENE] [--t-end T] [--out DIR] [--headless] [--rtol R]\n"
          "                 [--method M] [--checkpoint-every DT] [--resume FILE] [--seed N]\n"
          "                 [--commands FILE] [--script FILE] [--offscreen] [--screenshots DIR]\n"
          "                 [--video FILE.mp4]\n"
          "                 [--max-wall SECONDS] [--no-plots] [--quiet]\n"
          "\n"
          "Runs a scene (YAML, docs/scene-format.md; default scenes/heatshield.yaml of the\n"
          "source tree) through its events and writes into DIR (first removing the files an\n"
          "earlier run wrote there; other files stay), as docs/outputs.md describes:\n"
          "  trajectory.csv  per output time: each body's world pose and twist, each scene\n"
          "                  joint's mode (free, prescribed, locked), q, v and load, pair\n"
          "                  separations, energies and momentum (%%.17g)\n"
          "  joints.csv      per output time, one row per joint of the model as it is then\n"
          "  events.csv      per event: time, name, what it did, momentum and energy before and\n"
          "                  after, the energy removed by plastic locks\n"
          "  summary.txt     integrator statistics, which invariants apply and their drift,\n"
          "                  wall time, real-time factor\n"
          "  actuators.csv, sensors.csv, controllers.csv   with control in the loop: per output\n"
          "                  time each actuator's command, output, work, pulses, propellant;\n"
          "                  per sensor instant every sensor's latest sample; per output time\n"
          "                  each controller's steps and pointing error\n"
          "  *.png           energy, momentum, separations and prescribed-joint loads against\n"
          "                  time; control.png: attitude errors, rates, wheel speeds, pulses\n");
  fprintf(f,
          "options:\n"
          "  --t-end T              end time in seconds (default: the scene's)\n"
          "  --out DIR              output folder, created if needed (default: out/<scene name>/)\n"
          "  --headless             never open the viewer (without it the viewer opens when a\n"
          "                         display is available: DISPLAY or WAYLAND_DISPLAY is set;\n"
          "                         closing it runs the rest of the scene without drawing)\n"
          "  --script FILE          drive the viewer by timed input events (docs/viewer.md)\n"
          "  --offscreen            draw the viewer offscreen, without a window (with --script)\n"
          "  --screenshots DIR      the viewer's screenshots, saved camera and session\n"
          "                         (hinge-session.txt: the commands given in the viewer) go\n"
          "                         here, created if needed (default: the output folder)\n"
          "  --video FILE.mp4       record the viewer: every frame shown, at the window's size,\n"
          "                         60 per second, through ffmpeg (complete after quitting,\n"
          "                         closing the window or ctrl+C)\n"
          "  --rtol R               relative tolerance (default: the scene's)\n"
          "  --seed N               the sensors' noise seed (default: the scene's noise_seed)\n"
          "  --method M             cvode-adams, cvode-bdf, rkmk4 or lie-euler (default: the\n"
          "                         scene's)\n"
          "  --checkpoint-every DT  stop every DT seconds, restart the integrator there and write\n"
          "                         the full state to DIR/checkpoint-NNNN.txt (the restarts move\n"
          "                         the trajectory within the integration error: docs/outputs.md)\n"
          "  --resume FILE          continue from a checkpoint of this scene, bit for bit as the\n"
          "                         run that wrote it (its method, rtol and checkpoint interval\n"
          "                         apply; --rtol, --method and --checkpoint-every are refused)\n"
          "  --commands FILE        apply the commands of FILE at their times, one per line,\n"
          "                         'TIME ACTION ARGUMENTS' (docs/commands.md); a command does\n"
          "                         what a scene event {at: TIME, do: [...]} does\n"
          "  --max-wall SECONDS     wall-time limit (default: the scene's time.max_wall): the run\n"
          "                         stops where it is, even inside a slow step, writes its files\n"
          "                         and plots as at the end, its state to DIR/stop-state.txt (a\n"
          "                         checkpoint for --resume) and says so in summary.txt; SIGINT\n"
          "                         and SIGTERM stop a headless run the same way\n"
          "  --no-plots             skip the PNG plots\n"
          "  --quiet                no progress bar, no summary on standard output\n"
          "A progress bar goes to standard error when it is a terminal.\n"
          "exit status: 0 success, 1 output error, 2 bad usage or an invalid scene or checkpoint,\n"
          "             3 numerical failure (the last good state is in DIR/failure-state.txt),\n"
          "             4 stopped by the wall-time limit, 130 and 143 stopped by SIGINT and\n"
          "             SIGTERM (the state is in DIR/stop-state.txt)\n");
}

/* "hinge run: " message, the usage, and the usage exit status */
static int usage_error(const char *fmt, const char *arg) {
  return hg_cli_usage_error("run", hg_cli_run_usage, fmt, arg);
}

/* a finite number (positive when positive is set); 0 or -1 */
static int parse_number(const char *s, int positive, double *x) {
  return hg_cli_number(s, x) || (positive && !(*x > 0)) ? -1 : 0;
}

/* an option with a value: its value, or NULL after a usage error */
static const char *option_value(int argc, char **argv, int *i) {
  if (*i + 1 >= argc) return NULL;
  return argv[++*i];
}

/* one option with a number; 0 or an exit status */
static int number_option(int argc, char **argv, int *i, int positive, double *x) {
  const char *name = argv[*i], *v = option_value(argc, argv, i);
  if (!v) return usage_error("%s needs a value", name);
  if (parse_number(v, positive, x))
    return usage_error(positive ? "'%s' is not a positive number" : "'%s' is not a number", v);
  return 0;
}

/* one option; 0, or an exit status */
static int parse_option(int argc, char **argv, int *i, run_args *a) {
  const char *s = argv[*i], *v;
  if (!strcmp(s, "--help") || !strcmp(s, "-h")) a->help = 1;
  else if (!strcmp(s, "--headless")) a->headless = 1;
  else if (!strcmp(s, "--offscreen")) a->offscreen = 1;
  else if (!strcmp(s, "--quiet")) a->quiet = 1;
  else if (!strcmp(s, "--no-plots")) a->no_plots = 1;
  else if (!strcmp(s, "--t-end")) return number_option(argc, argv, i, 0, &a->t_end);
  else if (!strcmp(s, "--rtol")) return number_option(argc, argv, i, 1, &a->rtol);
  else if (!strcmp(s, "--seed")) {
    int rc = number_option(argc, argv, i, 0, &a->seed);
    if (rc) return rc;
    if (!(a->seed >= 0 && a->seed < 9007199254740992.0 && a->seed == floor(a->seed)))
      return usage_error("--seed '%s' must be a whole number from 0 to 2^53", argv[*i]);
    a->has_seed = 1;
  }
  else if (!strcmp(s, "--checkpoint-every"))
    return number_option(argc, argv, i, 1, &a->checkpoint_every);
  else if (!strcmp(s, "--max-wall")) return number_option(argc, argv, i, 1, &a->max_wall);
  else if (!strcmp(s, "--method")) {
    if (!(v = option_value(argc, argv, i))) return usage_error("%s needs a value", s);
    if ((a->method = hg_integ_method_from_name(v)) < 0)
      return usage_error("unknown method '%s'", v);
  } else if (!strcmp(s, "--out") || !strcmp(s, "--resume") || !strcmp(s, "--commands") ||
             !strcmp(s, "--script") || !strcmp(s, "--screenshots") || !strcmp(s, "--video")) {
    if (!(v = option_value(argc, argv, i))) return usage_error("%s needs a value", s);
    *(!strcmp(s, "--out") ? &a->out : !strcmp(s, "--resume") ? &a->resume
      : !strcmp(s, "--script") ? &a->script : !strcmp(s, "--screenshots") ? &a->screenshots
      : !strcmp(s, "--video") ? &a->video : &a->commands) = v;
  } else {
    return usage_error("unknown option '%s'", s);
  }
  return 0;
}

static int parse_args(int argc, char **argv, run_args *a) {
  memset(a, 0, sizeof *a);
  a->t_end = NAN;
  a->method = -1;
  for (int i = 1; i < argc; i++) {
    if (argv[i][0] == '-' && argv[i][1]) {
      int rc = parse_option(argc, argv, &i, a);
      if (rc) return rc;
    } else if (!a->scene) {
      a->scene = argv[i];
    } else {
      return usage_error("unexpected argument '%s'", argv[i]);
    }
  }
  if (a->video && (a->headless || a->resume))
    return usage_error("%s", "--video records the viewer: not with --headless or --resume");
  if (a->resume && (a->rtol > 0 || a->method >= 0 || a->checkpoint_every > 0 || a->has_seed))
    return usage_error("%s", "--resume takes the method, rtol, checkpoint interval and noise seed "
                             "from the checkpoint; do not give --rtol, --method, "
                             "--checkpoint-every or --seed");
  return 0;
}

/* ---- the output folder ---- */

/* ---- the run ---- */

static int status_of(int sim_status) {
  switch (sim_status) {
  case HG_SIM_OK: return HG_EXIT_OK;
  case HG_SIM_STOPPED: return HG_EXIT_WALL; /* (a signal's stop: run_scene) */
  case HG_SIM_ERR_INPUT: return HG_EXIT_USAGE;
  case HG_SIM_ERR_NUMERIC: return HG_EXIT_SINGULAR;
  default: return HG_EXIT_FAILURE;
  }
}

/* the summary on standard output */
static void report(hg_sim *sim, const char *out, const hg_scene *sc) {
  hg_sim_budget b;
  hg_integ_stats st;
  hg_sim_get_budget(sim, &b);
  hg_sim_stats(sim, &st);
  double wall = hg_sim_wall_time(sim), span = hg_sim_time(sim) - sc->t_start;
  printf("%s: t = %.6g s, %d events, %ld steps, wall %.3f s (%.3g x real time)\n",
         sc->title ? sc->title : sc->path, hg_sim_time(sim), hg_sim_nevents(sim), st.steps, wall,
         wall > 0 ? span / wall : 0);
  printf("energy budget drift %.3g; outputs in %s/\n", b.max_drift, out);
}

/* the commands of a command file, scheduled at their times; 0 or -1 (after a message) */
static int schedule_commands(hg_sim *sim, const hg_scene *sc, const char *path) {
  hg_command_list cl;
  hg_error err;
  if (!path) return 0;
  if (hg_commands_load(sc, path, &cl, &err)) return fprintf(stderr, "hinge: %s\n", err.msg), -1;
  int rc = 0;
  for (int k = 0; k < cl.n && !rc; k++)
    if ((rc = hg_sim_schedule(sim, &cl.cmd[k])))
      fprintf(stderr, "hinge: %s:%d: %s\n", path, cl.cmd[k].src.line, hg_sim_error(sim));
  hg_commands_free(&cl);
  return rc ? -1 : 0;
}

/* Every input of the run checked before anything in the output folder changes: the command
 * file read and scheduled, the checkpoint to resume read and matched against the scene, on a
 * simulation that writes nothing. The exit status, HG_EXIT_OK when all is well. */
static int check_inputs(hg_scene *sc, const run_args *a) {
  if (!a->commands && !a->resume) return HG_EXIT_OK;
  hg_sim_options opt;
  hg_error err;
  hg_sim_default_options(&opt);
  opt.t_end = a->t_end;
  hg_sim *sim = hg_sim_new(sc, &opt, &err);
  if (!sim) return fprintf(stderr, "hinge: %s\n", err.msg), HG_EXIT_USAGE;
  int rc = schedule_commands(sim, sc, a->commands) ? HG_EXIT_USAGE : HG_EXIT_OK;
  if (!rc && a->resume && hg_sim_resume(sim, a->resume, &err))
    fprintf(stderr, "hinge: %s\n", err.msg), rc = HG_EXIT_USAGE;
  hg_sim_free(sim);
  return rc;
}

/* the run in the viewer (render/viewer.h): it writes the same outputs; returns the exit status,
 * or -1 when no window could be opened and the run should go on headless */
static int run_viewer(const run_args *a, const char *out) {
  hg_viewer_options vo;
  char err[1024];
  hg_viewer_default_options(&vo);
  vo.sim.t_end = a->t_end, vo.sim.rtol = a->rtol, vo.sim.method = a->method;
  vo.sim.out_dir = out, vo.sim.checkpoint_every = a->checkpoint_every;
  vo.sim.max_wall = a->max_wall;
  vo.sim.has_seed = a->has_seed, vo.sim.noise_seed = (uint64_t)a->seed;
  vo.out.dir = out, vo.out.plots = !a->no_plots;
  vo.commands = a->commands, vo.script = a->script, vo.offscreen = a->offscreen, vo.finish = 1;
  /* screenshots and the session go with the run's outputs unless a folder is named */
  vo.screenshot_dir = a->screenshots ? a->screenshots : out;
  vo.video = a->video;
  if (a->screenshots && hg_cli_make_dirs(a->screenshots)) {
    fprintf(stderr, "hinge: cannot create the screenshot folder %s: %s\n", a->screenshots, strerror(errno));
    return HG_EXIT_FAILURE;
  }
  int rc = hg_viewer_run(a->scene, &vo, err, sizeof err);
  /* a display that is named but cannot be opened (render/context.c): the run goes on headless */
  if (rc == 1 && !a->script && (!strncmp(err, "cannot open the display", 23) ||
                                !strncmp(err, "no display", 10))) {
    fprintf(stderr, "hinge: %s; running headless\n", err);
    return -1;
  }
  if (rc == 1 || rc == 2) fprintf(stderr, "hinge: %s\n", err);
  if (!rc && !a->quiet) printf("outputs in %s/\n", out);
  return rc == 3 ? HG_EXIT_SINGULAR : rc == 2 ? HG_EXIT_USAGE : rc ? HG_EXIT_FAILURE : HG_EXIT_OK;
}

/* 1 when the run opens the viewer: a display (or a script) and no --headless, --resume */
static int wants_viewer(const run_args *a) {
  return !a->headless && !a->resume && (a->script || a->offscreen || hg_gl_display_available());
}

/* runs a loaded scene; returns the exit status */
static int run_scene(hg_scene *sc, const run_args *a, const char *out) {
  hg_sim_options opt;
  hg_error err;
  hg_sim_default_options(&opt);
  opt.t_end = a->t_end;
  opt.rtol = a->rtol;
  opt.method = a->method;
  opt.out_dir = out;
  opt.checkpoint_every = a->checkpoint_every;
  opt.has_seed = a->has_seed, opt.noise_seed = (uint64_t)a->seed;
  opt.max_wall = a->max_wall;
  opt.interrupt = &hg_cli_stop_signal; /* (cli.h) */
  hg_output_options oo;
  hg_output_default_options(&oo);
  oo.dir = out;
  oo.plots = !a->no_plots;
  oo.progress = !a->quiet && isatty(fileno(stderr)) ? stderr : NULL;
  hg_sim *sim = hg_sim_new(sc, &opt, &err);
  if (!sim) return fprintf(stderr, "hinge: %s\n", err.msg), HG_EXIT_USAGE;
  if (hg_output_attach(sim, &oo, &err)) {
    fprintf(stderr, "hinge: %s\n", err.msg);
    hg_sim_free(sim);
    return status_of(HG_SIM_ERR_OUTPUT);
  }
  if (schedule_commands(sim, sc, a->commands)) {
    hg_sim_free(sim);
    return HG_EXIT_USAGE;
  }
  if (a->resume && hg_sim_resume(sim, a->resume, &err)) {
    fprintf(stderr, "hinge: %s\n", err.msg);
    hg_sim_free(sim);
    return HG_EXIT_USAGE;
  }
  hg_cli_catch_stop_signals();
  int rc = hg_sim_run(sim, INFINITY);
  if (rc) fprintf(stderr, "hinge: %s\n", hg_sim_error(sim));
  int cause = hg_sim_stop_cause(sim);
  if (hg_sim_finish(sim) && !rc) {
    /* the outputs' first failed write: its file and why */
    fprintf(stderr, "hinge: %s\n", hg_sim_error(sim));
    rc = HG_SIM_ERR_OUTPUT;
  }
  if (!a->quiet && rc != HG_SIM_ERR_INPUT) report(sim, out, sc);
  hg_sim_free(sim);
  return rc == HG_SIM_STOPPED && cause > 0 ? 128 + cause : status_of(rc);
}

int hg_cli_run(int argc, char **argv) {
  run_args a;
  hg_error err;
  char out[4096];
  int status = parse_args(argc, argv, &a);
  if (status) return status;
  if (a.help) return hg_cli_run_usage(stdout), HG_EXIT_OK;
  char scene_path[4200];
  if (!a.scene) {
    if (default_scene(scene_path, sizeof scene_path))
      return fprintf(stderr, "hinge: no scene given and the shipped one is missing: %s\n", scene_path),
             HG_EXIT_USAGE;
    a.scene = scene_path;
  }
  if (a.out) snprintf(out, sizeof out, "%s", a.out);
  else hg_cli_default_out(a.scene, out, sizeof out);
  hg_scene *sc = hg_scene_load(a.scene, &err);
  if (!sc) return fprintf(stderr, "hinge: %s\n", err.msg), HG_EXIT_USAGE;
  if (hg_cli_make_dirs(out)) {
    fprintf(stderr, "hinge: cannot create the output folder %s: %s\n", out, strerror(errno));
    hg_scene_free(sc);
    return HG_EXIT_FAILURE;
  }
  /* a bad input leaves the earlier run's outputs as they were */
  if ((status = check_inputs(sc, &a))) return hg_scene_free(sc), status;
  /* files of an earlier run would mix with this one's (a checkpoint being resumed stays) */
  if (hg_output_clear(out, a.resume)) {
    fprintf(stderr, "hinge: cannot remove the outputs of an earlier run from %s: %s\n", out,
            strerror(errno));
    hg_scene_free(sc);
    return HG_EXIT_FAILURE;
  }
  status = wants_viewer(&a) ? run_viewer(&a, out) : -1;
  if (status < 0 && a.video) fprintf(stderr, "hinge: no viewer, so no video %s\n", a.video);
  if (status < 0) status = run_scene(sc, &a, out);
  hg_scene_free(sc);
  return status;
}
