/* viewer.c: the interactive viewer (viewer.h): the SDL2 shell around the frame history, the
 * draw list and the renderer.
 *
 * Time: the display time advances at the wall clock times the speed factor while running. The
 * simulation is advanced only to times on its output grid (t_start + k dt, the rows of
 * trajectory.csv, where it stops anyway), so a viewed run computes exactly the trajectory of a
 * headless one, and each state shown is a row of it. Every state shown live is kept in the
 * history; when the display time is before the latest state the viewer replays the history.
 * A frame that takes long to compute makes the display wait for it: never faster than the
 * simulation can compute. With a script the clock is virtual (1/60 s per frame), so scripted
 * sessions are deterministic. */
#include <SDL.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "context.h"
#include "gl_render.h"
#include "grow.h"
#include "framing.h"
#include "hud.h"
#include "interact.h"
#include "readfile.h"
#include "video.h"
#include "viewer.h"

void hg_viewer_default_options(hg_viewer_options *o) {
  memset(o, 0, sizeof *o);
  o->width = 1280, o->height = 720, o->speed = 1;
  o->overlays = HG_OV_DEFAULT;
  hg_camera_default(&o->camera);
  hg_sim_default_options(&o->sim);
  hg_output_default_options(&o->out);
  o->screenshot_dir = ".";
}

/* one scripted input event */
typedef struct script_event {
  double t;                  /* virtual seconds since the start */
  char what[16];             /* key, type, click, drag, mousedown, mousemove, mouseup,
                                screenshot, sleep, quit */
  char arg[256];
  double x[4];               /* key: x[0] the modifiers (KMOD_*) */
} script_event;

typedef struct viewer {
  const hg_viewer_options *o;
  const char *path;
  hg_scene *sc;
  hg_sim *sim;
  int sim_failed;
  char message[1024];
  double message_until;      /* wall time the message disappears (INFINITY: stays) */
  int message_error;         /* the message is an error (red), else a note (green) */
  hg_history hist;
  hg_draw_list dl;
  hg_gl_context *ctx;
  hg_renderer *r;
  hg_camera cam;
  int w, h;
  int paused, cursor;
  double speed, display_t, dt_out;
  int overlays, plots, hud, help, quit;
  int track, track_orient, have_track;
  hg_se3 track_last;
  hg_framing framing;        /* the default camera (framing.h): on unless --camera, a tracked
                                body or `n`; `a` turns it on again */
  int drag, mx, my, scrub;
  time_t mtime;
  double clock, last_check, fps;
  /* the achieved rate (simulated s shown per s of the clock: wall, or a script's virtual one)
   * and the displayed time the meter saw last (a jump elsewhere restarts it) */
  hg_rate_meter rate;
  double rate_t;
  /* the profiler strip: the last frames' costs, oldest first; the counters at the last frame */
  int profiler, nprof;
  hg_hud_prof prof[120];
  hg_integ_stats prof_last;
  double prof_sim;           /* wall s simulating in this frame so far */
  int mode_n;                /* --mode's mode number (0: none) */
  /* columns plotted on demand (:plot COLUMN): their samples at the frames captured since */
  int nplot;
  struct plot_series {
    hg_hud_column col;
    int n, cap;
    double *t, *x;
  } plot[HG_HUD_MAXPLOT];
  char mode_text[96];
  long nshot;
  int dirty;                 /* something changed since the last frame drawn: draw again */
  long ndrawn;               /* frames drawn */
  hg_video *video;           /* --video: every frame drawn (opened at the first) */
  int video_failed;          /* ffmpeg could not start: no more tries */
  unsigned char *pixels;     /* a frame read back for it */
  size_t npixels;
  script_event *script;
  int nscript, kscript;
  /* interaction (interact.h): press position of the left button, a pull by ctrl-drag, the
   * commands given in this viewer (the session) */
  hg_interact ia;
  int press_x, press_y, pressed, ctrl;
  int grab_x, grab_y;        /* where a pull began (turning pulls measure the drag from it) */
  int nslider;               /* sliders shown (paused, a joint selected) */
  int ncmd_file;             /* commands scheduled from --commands: the rest were given here */
  int swallow;               /* the ':' that opened the command line comes as text too */
  char panel[16][128], gauge[12][128];
  double key_t[16];          /* keyframes: simulated times the session can go back to */
  int nkey;
} viewer;

static double wall(void) { return (double)SDL_GetPerformanceCounter() / (double)SDL_GetPerformanceFrequency(); }

/* A message for seconds of the viewer's clock: a note (drawn green), or an error (red) when it
 * stays (seconds infinite: a scene or simulation that failed) */
static void say(viewer *v, double seconds, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(v->message, sizeof v->message, fmt, ap);
  va_end(ap);
  v->message_until = isinf(seconds) ? INFINITY : v->clock + seconds;
  v->dirty = 1;
  v->message_error = isinf(seconds);
}

/* an error for seconds (red), one that goes away (a file that could not be written) */
static void say_error(viewer *v, double seconds, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(v->message, sizeof v->message, fmt, ap);
  va_end(ap);
  v->message_until = v->clock + seconds;
  v->message_error = 1;
  v->dirty = 1;
}

static time_t file_mtime(const char *path) {
  struct stat st;
  return stat(path, &st) ? 0 : st.st_mtime;
}

/* ---- the simulation ---- */

/* the keyframes of a session file (save_session) */
static void read_keyframes(viewer *v, const char *path);

/* the commands of the command file, scheduled (and its keyframes read); 0 or -1 with the
 * message set */
static int schedule(viewer *v) {
  hg_command_list cl;
  hg_error err;
  if (!v->o->commands) return 0;
  if (hg_commands_load(v->sc, v->o->commands, &cl, &err)) return say(v, INFINITY, "%s", err.msg), -1;
  read_keyframes(v, v->o->commands);
  int rc = 0;
  for (int k = 0; k < cl.n && !rc; k++)
    if ((rc = hg_sim_schedule(v->sim, &cl.cmd[k]))) say(v, INFINITY, "%s", hg_sim_error(v->sim));
  hg_commands_free(&cl);
  return rc ? -1 : 0;
}

/* (re)loads the scene file and starts its simulation at t_start; on failure the previous scene
 * and simulation stay and the message says why. 0 or -1. */
static int load(viewer *v) {
  hg_error err;
  v->mtime = file_mtime(v->path);
  hg_scene *sc = hg_scene_load(v->path, &err);
  if (!sc) return say(v, INFINITY, "%s", err.msg), -1;
  hg_sim *sim = hg_sim_new(sc, &v->o->sim, &err);
  if (sim && v->o->out.dir && hg_output_attach(sim, &v->o->out, &err)) hg_sim_free(sim), sim = NULL;
  if (!sim) {
    say(v, INFINITY, "%s", err.msg);
    hg_scene_free(sc);
    return -1;
  }
  if (v->sim) hg_sim_free(v->sim);
  if (v->sc) hg_scene_free(v->sc);
  v->sc = sc, v->sim = sim, v->sim_failed = 0;
  v->message[0] = 0;
  schedule(v);
  v->ncmd_file = hg_sim_ncommands(v->sim);
  v->dt_out = sc->output.dt > 0 ? sc->output.dt : 0.01;
  hg_history_clear(&v->hist);
  if (hg_sim_run(v->sim, hg_sim_t_start(v->sim))) { /* events at t_start */
    v->sim_failed = 1;
    say(v, INFINITY, "%s", hg_sim_error(v->sim));
  }
  hg_history_capture(&v->hist, v->sim, v->sc);
  v->display_t = hg_sim_time(v->sim);
  v->cursor = 0;
  v->have_track = 0;
  v->dirty = 1;
  v->ia.result[0] = 0, v->ia.result_error = 0; /* the last command's result was the old run's */
  hg_rate_meter_reset(&v->rate);
  v->framing.started = 0; /* a restart or reload: the next frame is fitted at once */
  return 0;
}

/* the latest simulated time */
static double latest(const viewer *v) { return v->hist.n ? v->hist.frame[v->hist.n - 1].t : 0; }

/* advances the simulation to the last output time <= t (at most the end) and keeps the state */
static void simulate_to(viewer *v, double t) {
  if (!v->sim || v->sim_failed) return;
  double t0 = hg_sim_t_start(v->sim), tend = hg_sim_t_end(v->sim);
  if (t > tend) t = tend;
  long k = (long)floor((t - t0) / v->dt_out + 1e-9);
  double until = t0 + (double)k * v->dt_out; /* the runtime's own output times */
  if (until > tend || t >= tend) until = tend;
  if (!(until > hg_sim_time(v->sim))) return;
  int rc = hg_sim_run(v->sim, until);
  if (rc) {
    v->sim_failed = 1;
    v->paused = 1;
    say(v, INFINITY, "%s", hg_sim_error(v->sim));
  }
  hg_history_capture(&v->hist, v->sim, v->sc);
}

/* ---- camera ---- */

/* `a`: back to the default camera (framing.h), fitted now: no tracked body, the user's zoom and
 * pan forgotten, the direction kept */
static void fit(viewer *v) {
  v->track = -1;
  hg_framing_start(&v->framing, &v->hist.frame[v->cursor], &v->cam, v->w, v->h, v->clock);
}

/* follows the tracked body from its last pose to the frame's; without one, the default camera
 * keeps the bodies of interest in frame */
static void follow(viewer *v, const hg_frame *f) {
  if (v->track < 0) {
    hg_framing_update(&v->framing, f, &v->cam, v->w, v->h, v->clock);
    return;
  }
  int b = hg_frame_body(f, v->track);
  if (b < 0) return;
  const hg_se3 *T = &f->body[b].pose;
  if (v->have_track) {
    if (v->track_orient) { /* rotate the camera with the body: R_delta = R_now R_last^T */
      double Rd[9], e[3], g[3], u[3];
      for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
          Rd[3 * i + j] = 0;
          for (int k = 0; k < 3; k++) Rd[3 * i + j] += T->R[3 * i + k] * v->track_last.R[3 * j + k];
        }
      for (int i = 0; i < 3; i++) e[i] = v->cam.eye[i] - v->track_last.p[i], g[i] = v->cam.target[i] - v->track_last.p[i], u[i] = v->cam.up[i];
      for (int i = 0; i < 3; i++) {
        v->cam.eye[i] = T->p[i] + Rd[3 * i] * e[0] + Rd[3 * i + 1] * e[1] + Rd[3 * i + 2] * e[2];
        v->cam.target[i] = T->p[i] + Rd[3 * i] * g[0] + Rd[3 * i + 1] * g[1] + Rd[3 * i + 2] * g[2];
        v->cam.up[i] = Rd[3 * i] * u[0] + Rd[3 * i + 1] * u[1] + Rd[3 * i + 2] * u[2];
      }
    } else {
      double d[3];
      for (int k = 0; k < 3; k++) d[k] = T->p[k] - v->track_last.p[k];
      hg_camera_translate(&v->cam, d);
    }
  }
  v->track_last = *T;
  v->have_track = 1;
}

/* tracks the next (dir +1) or previous body of the frame shown */
static void cycle_track(viewer *v, int dir) {
  const hg_frame *f = &v->hist.frame[v->cursor];
  if (f->nbody < 2) return;
  int cur = v->track >= 0 ? hg_frame_body(f, v->track) : 0;
  int next = cur + dir;
  if (next < 1) next = f->nbody - 1;
  if (next >= f->nbody) next = 1;
  v->track = f->body[next].name;
  v->have_track = 0;
  v->framing.on = 0;
  hg_camera_translate(&v->cam, (double[3]){0, 0, 0});
  double d[3];
  for (int k = 0; k < 3; k++) d[k] = f->body[next].pose.p[k] - v->cam.target[k];
  hg_camera_translate(&v->cam, d);
}

/* ---- input ---- */

static void fit_renderer(viewer *v);
static void draw(viewer *v, double now);

/* The frame shown into file (a script's screenshot: what the window shows, messages included, as
 * the tests and the docs' images want it), or into the next hinge-NNNN.png of the screenshot
 * folder (the screenshot key): drawn again without the transient message (the "saved ..." of
 * the last screenshot, a reload notice: those that time out); a message that stays (why a scene
 * does not load) stays in it. */
static void screenshot(viewer *v, const char *file) {
  char path[4200];
  if (file) snprintf(path, sizeof path, "%s", file);
  else snprintf(path, sizeof path, "%s/hinge-%04ld.png", v->o->screenshot_dir, v->nshot++);
  if (!file && v->sim && v->hist.n && v->message[0] && !isinf(v->message_until)) {
    v->message[0] = 0;
    fit_renderer(v);
    draw(v, v->clock);
  }
  if (hg_renderer_write_png(v->r, path)) say_error(v, 4, "cannot write the screenshot %s", path);
  else say(v, 2, "saved %s", path);
}

/* the camera, in the form --camera reads, into the screenshot folder (and on standard output) */
static void save_camera(viewer *v) {
  char path[4200], text[512];
  snprintf(path, sizeof path, "%s/hinge-camera.txt", v->o->screenshot_dir);
  hg_camera_format(&v->cam, text, sizeof text);
  FILE *f = fopen(path, "w");
  int ok = f && fprintf(f, "%s\n", text) > 0;
  if (f && fclose(f)) ok = 0;
  printf("camera at t = %.17g s: --camera \"%s\"\n", v->hist.n ? v->hist.frame[v->cursor].t : 0, text);
  fflush(stdout);
  if (ok) say(v, 3, "camera saved in %s (hinge view/render --camera \"$(cat %s)\")", path, path);
  else say_error(v, 4, "cannot write %s", path);
}

static void jump_event(viewer *v, int dir) {
  double t = v->display_t, best = dir > 0 ? INFINITY : -INFINITY;
  for (int k = 0; k < v->hist.nevent; k++) {
    double te = v->hist.event[k].t;
    if (dir > 0 && te > t + 1e-12 && te < best) best = te;
    if (dir < 0 && te < t - 1e-12 && te > best) best = te;
  }
  if (isinf(best)) return;
  v->paused = 1;
  if (best > latest(v)) simulate_to(v, best + 0.5 * v->dt_out);
  v->display_t = best;
  int k = hg_history_find(&v->hist, best);
  if (k + 1 < v->hist.n && v->hist.frame[k].t < best) k++; /* the first state after the event */
  v->cursor = k, v->display_t = v->hist.frame[k].t;
}

static void toggle_overlay(viewer *v, int bit) { v->overlays ^= bit; }

/* ---- interaction: every change is a command at the latest state ---- */

/* the display goes to the latest state, where commands act */
static void go_live(viewer *v) {
  v->cursor = v->hist.n - 1;
  v->display_t = latest(v);
}

/* after a command: the state it left becomes the latest frame */
static void after_command(viewer *v) {
  hg_history_capture(&v->hist, v->sim, v->sc);
  go_live(v);
  if (hg_sim_status(v->sim)) {
    v->sim_failed = 1, v->paused = 1;
    say(v, INFINITY, "%s", hg_sim_error(v->sim));
  }
}

static void command(viewer *v, const char *text) {
  go_live(v);
  hg_interact_apply(&v->ia, v->sim, text);
  after_command(v);
}

/* the session (every command applied) as a command file in the screenshot folder */
static void save_session(viewer *v) {
  char path[4200];
  snprintf(path, sizeof path, "%s/hinge-session.txt", v->o->screenshot_dir);
  int rc = hg_sim_write_commands(v->sim, path);
  FILE *f = rc ? NULL : fopen(path, "a");
  /* the keyframes as comments ("# keyframe T"): a replay ignores them, --commands reads them */
  for (int k = 0; f && k < v->nkey; k++) fprintf(f, "# keyframe %.17g\n", v->key_t[k]);
  if (!rc && (!f || fclose(f))) rc = -1;
  if (rc) say_error(v, 4, "cannot write %s", path);
  else say(v, 3, "session saved in %s (hinge run SCENE --commands %s replays it)", path, path);
}

/* the keyframes of a session file ("# keyframe T" lines, save_session), once per viewer */
static void read_keyframes(viewer *v, const char *path) {
  char line[256];
  hg_error e;
  FILE *f = v->nkey ? NULL : hg_file_open(path, HG_FILE_TEXT_MAX, NULL, &e);
  while (f && fgets(line, sizeof line, f)) {
    double t;
    if (sscanf(line, "# keyframe %lf", &t) == 1 && isfinite(t) &&
        v->nkey < (int)(sizeof v->key_t / sizeof v->key_t[0]))
      v->key_t[v->nkey++] = t;
  }
  if (f) fclose(f);
}

/* ---- columns plotted on demand (:plot) ---- */

/* a sample of every plotted column at each new latest frame; a restart starts them afresh */
static void plot_record(viewer *v) {
  if (!v->sim || !v->hist.n) return;
  double t = latest(v);
  for (int k = 0; k < v->nplot; k++) {
    struct plot_series *ps = &v->plot[k];
    if (ps->n && t < ps->t[ps->n - 1]) ps->n = 0; /* restarted */
    if (ps->n && t == ps->t[ps->n - 1]) continue;
    if (ps->n == ps->cap) {
      int cap = ps->cap ? 2 * ps->cap : 1024;
      double *nt = realloc(ps->t, (size_t)cap * sizeof *nt);
      if (nt) ps->t = nt;
      double *nx = nt ? realloc(ps->x, (size_t)cap * sizeof *nx) : NULL;
      if (!nx) continue;
      ps->x = nx, ps->cap = cap;
    }
    ps->t[ps->n] = t, ps->x[ps->n++] = hg_hud_column_value(&ps->col, v->sim, &v->hist.frame[v->hist.n - 1], &v->hist);
  }
}

/* ":plot COLUMN" adds a strip plot of a column of trajectory.csv, ":plot off" removes them */
static void plot_command(viewer *v, const char *arg) {
  hg_interact *ia = &v->ia;
  while (*arg == ' ') arg++;
  ia->result_error = 0;
  if (!strcmp(arg, "off")) {
    for (int k = 0; k < v->nplot; k++) free(v->plot[k].t), free(v->plot[k].x);
    v->nplot = 0;
    snprintf(ia->result, sizeof ia->result, "plots of columns removed");
    return;
  }
  struct plot_series ps;
  memset(&ps, 0, sizeof ps);
  if (!*arg || hg_hud_column_resolve(hg_sim_model(v->sim), arg, &ps.col)) {
    ia->result_error = 1;
    snprintf(ia->result, sizeof ia->result,
             "plot: no column '%s' (JOINT.q.NAME, JOINT.v.NAME, BODY.x|y|z, kinetic, potential, element, "
             "removed_by_locks, work, event_work, budget, Lx..pz; 'plot off' removes them)", arg);
    return;
  }
  if (v->nplot == HG_HUD_MAXPLOT) {
    free(v->plot[0].t), free(v->plot[0].x);
    memmove(v->plot, v->plot + 1, (HG_HUD_MAXPLOT - 1) * sizeof v->plot[0]);
    v->nplot--;
  }
  v->plot[v->nplot++] = ps;
  v->plots = 1;
  plot_record(v);
  snprintf(ia->result, sizeof ia->result, "plotting %s from t = %g s (strip plots: l)", arg, latest(v));
}

/* Tab after "plot ": the column name completed as far as it is one, the candidates listed */
static void plot_complete(viewer *v) {
  hg_interact *ia = &v->ia;
  char out[200], list[400];
  const char *prefix = ia->line + 5;
  while (*prefix == ' ') prefix++;
  int n = hg_hud_column_complete(hg_sim_model(v->sim), prefix, out, sizeof out, list, sizeof list);
  ia->result_error = n == 0;
  if (n == 0) snprintf(ia->result, sizeof ia->result, "plot: no column begins with '%s'", prefix);
  else snprintf(ia->result, sizeof ia->result, "%s", n == 1 ? "" : list);
  if (n > 0 && strlen(out) >= strlen(prefix))
    snprintf(ia->line + (prefix - ia->line), sizeof ia->line - (size_t)(prefix - ia->line), "%s", out);
}

/* a key while the command line is open */
static void cmdline_key(viewer *v, SDL_Keycode k) {
  hg_interact *ia = &v->ia;
  size_t n = strlen(ia->line);
  switch (k) {
  case SDLK_RETURN: case SDLK_KP_ENTER:
    ia->cmdline = 0;
    SDL_StopTextInput();
    if (n && (!strncmp(ia->line, "plot ", 5) || !strcmp(ia->line, "plot"))) { /* the viewer's own */
      plot_command(v, ia->line + 4);
    } else if (n) {
      char text[HG_CMDLINE_MAX];
      snprintf(text, sizeof text, "%s", ia->line);
      command(v, text);
    }
    break;
  case SDLK_ESCAPE: ia->cmdline = 0, ia->result[0] = 0; SDL_StopTextInput(); break;
  case SDLK_BACKSPACE: if (n) ia->line[n - 1] = 0; break;
  case SDLK_TAB:
    if (!strncmp(ia->line, "plot ", 5)) plot_complete(v);
    else hg_interact_complete(ia, v->sim);
    break;
  default: break;
  }
}

/* text typed into the open command line */
static void cmdline_text(viewer *v, const char *text) {
  size_t n = strlen(v->ia.line), add = strlen(text);
  v->swallow = 0;
  if (n + add < sizeof v->ia.line) memcpy(v->ia.line + n, text, add + 1);
}

/* the interaction keys; 1 when k was one of them */
static int interaction_key(viewer *v, SDL_Keycode k, Uint16 mod) {
  hg_interact *ia = &v->ia;
  int shift = (mod & KMOD_SHIFT) != 0, ctrl = (mod & KMOD_CTRL) != 0;
  if (k == SDLK_COLON || (k == SDLK_SEMICOLON && shift)) {
    ia->cmdline = 1, ia->line[0] = 0, ia->result[0] = 0;
    v->swallow = 1;
    SDL_StartTextInput();
    return 1;
  }
  if ((k == SDLK_RETURN || k == SDLK_KP_ENTER) && ia->preview) {
    go_live(v);
    hg_interact_commit(ia, v->sim);
    after_command(v);
    return 1;
  }
  if (k == SDLK_ESCAPE && (ia->preview || ia->nsel)) {
    if (ia->preview) hg_interact_cancel(ia);
    else hg_interact_select(ia, -1, 0);
    return 1;
  }
  if (shift && (k == SDLK_l || k == SDLK_f || k == SDLK_h)) {
    go_live(v);
    hg_interact_preview(ia, v->sim, &v->hist, k == SDLK_l ? "lock" : k == SDLK_f ? "free" : "hold");
    return 1;
  }
  if (ctrl && k == SDLK_s) return save_session(v), 1;
  if (shift && k == SDLK_g) {
    hg_interact_ghost_cycle(ia, v->sim, &v->hist);
    if (ia->ghost_dof >= 0)
      say(v, 3, "ghosts of %s, DoF %d, eps %g (up/down: eps x2, /2)",
          hg_sim_model(v->sim)->jnt_name[hg_sim_model(v->sim)->dof_body[ia->ghost_dof]],
          ia->ghost_dof - hg_sim_model(v->sim)->v_adr[hg_sim_model(v->sim)->dof_body[ia->ghost_dof]],
          ia->ghost_eps);
    return 1;
  }
  if ((k == SDLK_UP || k == SDLK_DOWN) && (ia->ghost_dof >= 0 || ia->ghost_delta)) {
    ia->ghost_eps *= k == SDLK_UP ? 2 : 0.5;
    say(v, 2, "ghost eps %g", ia->ghost_eps);
    return 1;
  }
  if (k == SDLK_b && !shift && !ctrl) return ia->gauges = !ia->gauges, 1;
  /* '<' and '>' (shift with comma, period): the selected joint's q, with ctrl its v, while paused */
  int less = k == SDLK_LESS || (shift && k == SDLK_COMMA), more = k == SDLK_GREATER || (shift && k == SDLK_PERIOD);
  if ((less || more) && ia->nsel) {
    if (!v->paused) return say(v, 3, "pause first (space): configurations are set while paused"), 1;
    go_live(v);
    hg_interact_nudge(ia, v->sim, &v->hist, ctrl, (more ? 1 : -1) * (ctrl ? 0.1 : 0.05));
    after_command(v);
    return 1;
  }
  if (k == SDLK_d && !shift && !ctrl) return ia->degrees = !ia->degrees, 1;
  if (k == SDLK_LEFTBRACKET || k == SDLK_RIGHTBRACKET) {
    hg_interact_walk(ia, v->sim, &v->hist, k == SDLK_LEFTBRACKET ? -1 : 1);
    return 1;
  }
  return 0;
}

/* shift+K: the displayed time becomes a keyframe */
static void keyframe_save(viewer *v) {
  double t = v->hist.frame[v->cursor].t;
  if (v->nkey == (int)(sizeof v->key_t / sizeof v->key_t[0]))
    memmove(v->key_t, v->key_t + 1, (size_t)--v->nkey * sizeof *v->key_t);
  v->key_t[v->nkey++] = t;
  say(v, 3, "keyframe %d at t = %.4f s (ctrl+K goes back to it)", v->nkey, t);
}

/* ctrl+K: back to the last keyframe. The simulation starts again and runs to it with the
 * commands given up to then (scheduled at their times, as a replay does), so running continues
 * from exactly that state, the later commands are dropped, and the session (and the outputs)
 * are those of the new branch: a replay of it is byte for byte what the viewer shows. */
static void keyframe_jump(viewer *v) {
  if (!v->nkey || !v->sim) {
    say(v, 3, "no keyframe (shift+K saves one)");
    return;
  }
  double t = v->key_t[v->nkey - 1];
  int n = hg_sim_ncommands(v->sim), nkeep = 0, from = v->ncmd_file;
  hg_command *keep = calloc((size_t)(n > 0 ? n : 1), sizeof *keep);
  if (!keep) {
    say(v, 3, "out of memory");
    return;
  }
  for (int k = from; k < n; k++) {
    int applied;
    const hg_command *c = hg_sim_command_at(v->sim, k, &applied);
    if (applied && c->t <= t && !hg_command_copy(&keep[nkeep], c)) nkeep++;
  }
  hg_interact_cancel(&v->ia);
  int rc = load(v);
  for (int k = 0; k < nkeep; k++) {
    if (!rc && hg_sim_schedule(v->sim, &keep[k])) rc = -1;
    hg_command_free(&keep[k]);
  }
  free(keep);
  if (rc || hg_sim_run(v->sim, t)) {
    v->sim_failed = 1, v->paused = 1;
    say(v, INFINITY, "%s", hg_sim_error(v->sim));
    return;
  }
  hg_history_capture(&v->hist, v->sim, v->sc);
  v->paused = 1;
  go_live(v);
  say(v, 3, "back to keyframe %d at t = %.4f s", v->nkey, t);
}

static void key(viewer *v, SDL_Keycode k, Uint16 mod) {
  if (v->sim && v->ia.cmdline) {
    cmdline_key(v, k);
    return;
  }
  if (v->sim && interaction_key(v, k, mod)) return;
  if (!v->sim && k != SDLK_F5 && k != SDLK_ESCAPE && k != SDLK_q && k != SDLK_F1) return;
  static const struct { SDL_Keycode key; int bit; } ov[] = {
      {SDLK_f, HG_OV_FRAMES}, {SDLK_j, HG_OV_JOINTS},   {SDLK_c, HG_OV_COM},     {SDLK_m, HG_OV_MARKERS},
      {SDLK_i, HG_OV_INERTIA}, {SDLK_w, HG_OV_WRENCHES}, {SDLK_k, HG_OV_SPRINGS}, {SDLK_g, HG_OV_FORCES},
      {SDLK_t, HG_OV_TRAILS}, {SDLK_s, HG_OV_PAIRS},     {SDLK_h, HG_OV_MOMENTUM}, {SDLK_e, HG_OV_LOOPS}};
  if (k == SDLK_k && (mod & (KMOD_SHIFT | KMOD_CTRL))) { /* keyframes ('k' alone: springs) */
    if (mod & KMOD_CTRL) keyframe_jump(v);
    else keyframe_save(v);
    return;
  }
  if (k == SDLK_a && (mod & KMOD_SHIFT)) { /* shift+A: actuators ('a' alone fits the view) */
    toggle_overlay(v, HG_OV_ACTUATORS);
    return;
  }
  if (k == SDLK_s && (mod & KMOD_SHIFT)) { /* shift+S: sensors ('s' alone: separations) */
    toggle_overlay(v, HG_OV_SENSORS);
    return;
  }
  for (size_t n = 0; n < sizeof ov / sizeof ov[0]; n++)
    if (k == ov[n].key) {
      toggle_overlay(v, ov[n].bit);
      return;
    }
  switch (k) {
  case SDLK_SPACE: v->paused = !v->paused; break;
  case SDLK_RIGHT: case SDLK_PERIOD:
    v->paused = 1;
    if (v->cursor + 1 < v->hist.n) v->cursor++;
    else simulate_to(v, latest(v) + v->dt_out * 1.000001), v->cursor = v->hist.n - 1;
    v->display_t = v->hist.frame[v->cursor].t;
    break;
  case SDLK_LEFT: case SDLK_COMMA:
    v->paused = 1;
    if (v->cursor > 0) v->cursor--;
    v->display_t = v->hist.frame[v->cursor].t;
    break;
  case SDLK_MINUS: case SDLK_KP_MINUS: v->speed = fmax(v->speed / 2, 1.0 / 64); break;
  case SDLK_EQUALS: case SDLK_PLUS: case SDLK_KP_PLUS: v->speed = fmin(v->speed * 2, 64); break;
  case SDLK_HOME: v->paused = 1, v->cursor = 0, v->display_t = v->hist.frame[0].t; break;
  case SDLK_END: v->cursor = v->hist.n - 1, v->display_t = latest(v); break;
  case SDLK_PAGEUP: jump_event(v, -1); break;
  case SDLK_PAGEDOWN: jump_event(v, +1); break;
  case SDLK_BACKSPACE: if (!load(v)) say(v, 2, "%s", "restarted"); break;
  case SDLK_F5: if (!load(v)) say(v, 2, "reloaded %s", v->path); break;
  case SDLK_F1: v->help = !v->help; break;
  case SDLK_F12: case SDLK_p: screenshot(v, NULL); break;
  case SDLK_v: save_camera(v); break;
  case SDLK_l: v->plots = !v->plots; break;
  case SDLK_F2: v->profiler = !v->profiler; break;
  case SDLK_u: v->hud = !v->hud; break;
  case SDLK_o: v->overlays = v->overlays ? 0 : HG_OV_ALL; break;
  case SDLK_a: fit(v); break;
  case SDLK_TAB: cycle_track(v, (mod & KMOD_SHIFT) ? -1 : 1); break;
  case SDLK_n: v->track = -1, v->framing.on = 0; break; /* a camera fixed in the world */
  case SDLK_r: v->track_orient = !v->track_orient; v->have_track = 0; break;
  case SDLK_KP_1: case SDLK_1: case SDLK_y: hg_camera_preset_view(&v->cam, HG_VIEW_FRONT); break;
  case SDLK_KP_3: case SDLK_3: case SDLK_x: hg_camera_preset_view(&v->cam, HG_VIEW_RIGHT); break;
  case SDLK_KP_7: case SDLK_7: case SDLK_z: hg_camera_preset_view(&v->cam, HG_VIEW_TOP); break;
  case SDLK_KP_9: case SDLK_9: hg_camera_preset_view(&v->cam, HG_VIEW_ISO); break;
  case SDLK_ESCAPE: case SDLK_q: v->quit = 1; break;
  default: break;
  }
}

/* a click or drag on the timeline moves the cursor there */
static int timeline_hit(viewer *v, int x, int y) {
  float x0, x1, y0, y1;
  hg_hud_timeline_rect(v->w, v->h, &x0, &x1, &y0, &y1);
  if (!v->scrub && !(y >= y0 - 12 && y <= y1 + 8 && x >= x0 - 4 && x <= x1 + 4)) return 0;
  double t0 = hg_sim_t_start(v->sim), t1 = hg_sim_t_end(v->sim);
  double t = t0 + (t1 - t0) * fmin(1, fmax(0, (x - x0) / (x1 - x0)));
  v->paused = 1;
  v->cursor = hg_history_find(&v->hist, t);
  v->display_t = v->hist.frame[v->cursor].t;
  return 1;
}

/* a press or drag on a slider (paused, a joint selected) sets its value; 1 when it hit one */
static int slider_hit(viewer *v, int x, int y) {
  int n = v->nslider, k = v->ia.slider;
  float x0, x1, yk;
  if (n <= 0 || !v->paused) return 0;
  if (k < 0) /* a press: on which slider? */
    for (int j = 0; j < n && k < 0; j++) {
      hg_hud_slider_rect(v->w, v->h, j, n, &x0, &x1, &yk);
      if (y >= yk - 10 && y <= yk + 10 && x >= x0 - 6 && x <= x1 + 6) k = j;
    }
  if (k < 0) return 0;
  char label[64];
  double range, value;
  if (v->ia.slider < 0) { /* the press takes the slider, at no change until the mouse moves */
    go_live(v);
    hg_interact_slider_drag(&v->ia, v->sim, &v->hist, k, 0);
    return 1;
  }
  if (abs(x - v->press_x) <= 2 && abs(y - v->press_y) <= 2) return 1; /* a click is no drag */
  hg_hud_slider_rect(v->w, v->h, k, n, &x0, &x1, &yk);
  hg_interact_slider(&v->ia, v->sim, &v->hist, k, label, sizeof label, &range, &value);
  go_live(v);
  hg_interact_slider_drag(&v->ia, v->sim, &v->hist, k, range * (2 * (x - x0) / (x1 - x0) - 1));
  return 1;
}

/* the mouse ray through pixel (x, y) and the camera's forward axis */
static void mouse_ray(const viewer *v, int x, int y, double o[3], double d[3], double f[3]) {
  double s[3], u[3];
  hg_camera_ray(&v->cam, v->w, v->h, x, y, o, d);
  hg_camera_basis(&v->cam, s, u, f);
}

/* the renderer at the window's size (multisampled on a GPU) */
static void fit_renderer(viewer *v) {
  hg_renderer_resize(v->r, v->w, v->h, v->o->offscreen || hg_renderer_software() ? 0 : 4);
}

/* the draw list of the frame shown (what picking looks at, and what draw() draws) */
static void build_list(viewer *v) {
  const hg_frame *f = &v->hist.frame[v->cursor];
  const hg_draw_options dopt = {.overlays = v->overlays, .track = v->track, .hist = &v->hist,
                                .frame_index = v->cursor, .cam = &v->cam, .width = v->w,
                                .height = v->h};
  hg_draw_list_build(&v->dl, f, &dopt);
  hg_interact_draw(&v->ia, &v->dl, f, &v->hist, &dopt);
  v->ia.ghost_clock = v->clock;
  if (v->sim && v->cursor == v->hist.n - 1) hg_interact_ghosts(&v->ia, v->sim, &v->dl, f);
}

/* a click (a press and release without moving): the body under the cursor, from the ID buffer,
 * is selected (shift: added to the selection); nothing there clears the selection */
static void click(viewer *v, int x, int y, int shift) {
  const hg_frame *f = &v->hist.frame[v->cursor];
  build_list(v);
  fit_renderer(v); /* a click before the first frame */
  int b = hg_renderer_pick(v->r, &v->dl, &v->cam, &v->hist, x, y) - 1; /* ids: body + 1 */
  if (b >= 1 && b < f->nbody) hg_interact_select(&v->ia, f->body[b].name, shift);
  else if (!shift) hg_interact_select(&v->ia, -1, 0);
}

/* ctrl and the left button: the body under the cursor is grabbed where the ray meets it (the
 * right button: to turn it, round its centre of mass) */
static void grab(viewer *v, int x, int y, int turn) {
  const hg_frame *f = &v->hist.frame[v->cursor];
  double o[3], d[3], fw[3], dist, p[3];
  build_list(v);
  mouse_ray(v, x, y, o, d, fw);
  int b = hg_draw_pick(&v->dl, o, d, &dist);
  if (b < 1 || b >= f->nbody || !isfinite(dist)) return;
  go_live(v);
  for (int k = 0; k < 3; k++) p[k] = o[k] + dist * d[k];
  hg_interact_grab(&v->ia, v->sim, &v->hist, f->body[b].name, p, dist * hg_v3_dot(d, fw));
  if (turn) hg_interact_grab_turn(&v->ia, f->body[b].com);
  v->grab_x = x, v->grab_y = y;
}

static void mouse_motion(viewer *v, int x, int y) {
  int dx = x - v->mx, dy = y - v->my;
  v->mx = x, v->my = y;
  if (v->scrub) {
    timeline_hit(v, x, y);
    return;
  }
  if (v->ia.slider >= 0) {
    slider_hit(v, x, y);
    return;
  }
  if (v->ia.pulling) {
    double o[3], d[3], fw[3], s[3], u[3];
    mouse_ray(v, x, y, o, d, fw);
    if (!v->ia.pull_turn) {
      hg_interact_drag(&v->ia, o, d, fw);
    } else {
      hg_camera_basis(&v->cam, s, u, fw);
      hg_interact_turn(&v->ia, x - v->grab_x, y - v->grab_y, s, u);
    }
    return;
  }
  if (v->drag == SDL_BUTTON_LEFT) hg_camera_orbit(&v->cam, -0.008 * dx, 0.008 * dy);
  else if (v->drag) hg_camera_pan(&v->cam, (double)dx / v->h, (double)dy / v->h);
}

static void event(viewer *v, const SDL_Event *e) {
  v->dirty = 1; /* a key, the mouse, the window shown again or resized: draw */
  if (!v->sim && e->type != SDL_QUIT && e->type != SDL_KEYDOWN) return; /* nothing to move yet */
  switch (e->type) {
  case SDL_QUIT: v->quit = 1; break;
  case SDL_KEYDOWN: key(v, e->key.keysym.sym, e->key.keysym.mod); break;
  case SDL_TEXTINPUT:
    if (v->ia.cmdline && !(v->swallow && !strcmp(e->text.text, ":"))) cmdline_text(v, e->text.text);
    v->swallow = 0;
    break;
  case SDL_MOUSEBUTTONDOWN:
    v->mx = e->button.x, v->my = e->button.y;
    v->press_x = e->button.x, v->press_y = e->button.y, v->pressed = e->button.button;
    if (e->button.button == SDL_BUTTON_LEFT && slider_hit(v, e->button.x, e->button.y)) break;
    if (e->button.button == SDL_BUTTON_LEFT && timeline_hit(v, e->button.x, e->button.y)) v->scrub = 1;
    else if ((e->button.button == SDL_BUTTON_LEFT || e->button.button == SDL_BUTTON_RIGHT) &&
             (v->ctrl == 1 || (SDL_GetModState() & KMOD_CTRL)))
      grab(v, e->button.x, e->button.y, e->button.button == SDL_BUTTON_RIGHT);
    else v->drag = e->button.button;
    break;
  case SDL_MOUSEBUTTONUP:
    if (v->ia.slider >= 0) {
      go_live(v);
      hg_interact_slider_release(&v->ia, v->sim, &v->hist);
      after_command(v);
    } else if (v->ia.pulling) {
      hg_interact_release(&v->ia, v->sim);
      after_command(v);
    } else if (v->pressed == SDL_BUTTON_LEFT && !v->scrub && abs(e->button.x - v->press_x) <= 2 &&
               abs(e->button.y - v->press_y) <= 2) {
      click(v, e->button.x, e->button.y, (v->ctrl & 2) || (SDL_GetModState() & KMOD_SHIFT));
    }
    v->drag = 0, v->scrub = 0, v->pressed = 0;
    break;
  case SDL_MOUSEMOTION: mouse_motion(v, e->motion.x, e->motion.y); break;
  case SDL_MOUSEWHEEL: hg_camera_zoom(&v->cam, pow(0.88, e->wheel.y)); break;
  default: break;
  }
}

/* ---- scripts ---- */

/* modifiers of a script's key or mouse event: "shift+", "ctrl+" prefixes of a key name (cut off
 * name), or a trailing word "shift" / "ctrl" of a mouse event; KMOD_* bits */
static int script_mods(char *name) {
  int mod = 0;
  for (;;) {
    if (!strncmp(name, "shift+", 6)) mod |= KMOD_SHIFT, memmove(name, name + 6, strlen(name + 6) + 1);
    else if (!strncmp(name, "ctrl+", 5)) mod |= KMOD_CTRL, memmove(name, name + 5, strlen(name + 5) + 1);
    else return mod;
  }
}

static int mouse_mods(const char *word) {
  return !strcmp(word, "shift") ? KMOD_SHIFT : !strcmp(word, "ctrl") ? KMOD_CTRL : !*word ? 0 : -1;
}

/* "TIME key [shift+][ctrl+]NAME", "TIME type TEXT", "TIME click X Y [shift]", "TIME drag X0 Y0
 * X1 Y1", "TIME mousedown X Y [ctrl|shift] [right]", "TIME mousemove X Y", "TIME mouseup",
 * "TIME screenshot FILE", "TIME sleep SECONDS", "TIME quit"; '#' comments. 0 or -1 with
 * err = "FILE:LINE: ..." */
static int script_load(viewer *v, const char *path, char *err, size_t errlen) {
  hg_error e;
  FILE *f = hg_file_open(path, HG_FILE_TEXT_MAX, NULL, &e);
  if (!f) return snprintf(err, errlen, "the script: %s", e.msg), -1;
  char line[512];
  int ln = 0, cap = 0;
  while (fgets(line, sizeof line, f)) {
    ln++;
    char *hash = strchr(line, '#');
    if (hash) *hash = 0;
    script_event ev;
    memset(&ev, 0, sizeof ev);
    int n = sscanf(line, "%lf %15s %255s", &ev.t, ev.what, ev.arg);
    if (n <= 0) continue;
    int ok = n >= 2 && ev.t >= 0;
    char word[32] = "";
    if (ok && !strcmp(ev.what, "key")) {
      ev.x[0] = n == 3 ? script_mods(ev.arg) : 0;
      ok = n == 3 && SDL_GetKeyFromName(ev.arg) != SDLK_UNKNOWN;
    } else if (ok && !strcmp(ev.what, "type")) { /* the rest of the line, as typed */
      char *p = strstr(line, "type") + 4;
      while (*p == ' ' || *p == '\t') p++;
      p[strcspn(p, "\r\n")] = 0;
      snprintf(ev.arg, sizeof ev.arg, "%s", p);
      ok = ev.arg[0] != 0;
    } else if (ok && (!strcmp(ev.what, "click") || !strcmp(ev.what, "mousedown"))) {
      char button[32] = "";
      ok = sscanf(line, "%*f %*s %lf %lf %31s %31s", &ev.x[0], &ev.x[1], word, button) >= 2;
      if (!strcmp(word, "right") && !button[0]) strcpy(button, "right"), word[0] = 0; /* no modifier */
      ok = ok &&
           (ev.x[2] = mouse_mods(word)) >= 0 && (!button[0] || !strcmp(button, "right"));
      ev.x[3] = !strcmp(button, "right");
    } else if (ok && !strcmp(ev.what, "mousemove")) {
      ok = sscanf(line, "%*f %*s %lf %lf", &ev.x[0], &ev.x[1]) == 2;
    } else if (ok && !strcmp(ev.what, "mouseup")) {
      ok = n == 2;
    } else if (ok && !strcmp(ev.what, "drag"))
      ok = sscanf(line, "%*f %*s %lf %lf %lf %lf", &ev.x[0], &ev.x[1], &ev.x[2], &ev.x[3]) == 4;
    else if (ok && !strcmp(ev.what, "screenshot")) ok = n == 3;
    else if (ok && !strcmp(ev.what, "sleep")) ok = sscanf(line, "%*f %*s %lf", &ev.x[0]) == 1 && ev.x[0] >= 0;
    else if (ok) ok = !strcmp(ev.what, "quit");
    if (!ok || (v->nscript > 0 && ev.t < v->script[v->nscript - 1].t)) {
      fclose(f);
      return snprintf(err, errlen, "%s:%d: expected 'TIME key NAME', 'TIME type TEXT', 'TIME click X Y', "
                      "'TIME drag X0 Y0 X1 Y1', 'TIME mousedown X Y [ctrl|shift] [right]', 'TIME mousemove X Y', "
                      "'TIME mouseup', 'TIME screenshot FILE', 'TIME sleep SECONDS' or 'TIME quit', times "
                      "not decreasing", path, ln), -1;
    }
    if (hg_grow((void **)&v->script, v->nscript, &cap, 32, sizeof *v->script))
      return fclose(f), snprintf(err, errlen, "out of memory"), -1;
    v->script[v->nscript++] = ev;
  }
  fclose(f);
  return 0;
}

static void script_step(viewer *v) {
  while (v->kscript < v->nscript && v->script[v->kscript].t <= v->clock + 1e-9) {
    const script_event *ev = &v->script[v->kscript++];
    v->dirty = 1;
    SDL_Event e;
    memset(&e, 0, sizeof e);
    if (!strcmp(ev->what, "key")) {
      key(v, SDL_GetKeyFromName(ev->arg), (Uint16)ev->x[0]);
    } else if (!strcmp(ev->what, "type")) {
      if (!v->ia.cmdline) key(v, SDLK_COLON, 0);
      cmdline_text(v, ev->arg);
    } else if (!strcmp(ev->what, "mousedown")) {
      v->ctrl = ((int)ev->x[2] & KMOD_CTRL) ? 1 : ((int)ev->x[2] & KMOD_SHIFT) ? 2 : 0;
      e.type = SDL_MOUSEBUTTONDOWN, e.button.x = (int)ev->x[0], e.button.y = (int)ev->x[1];
      e.button.button = ev->x[3] > 0 ? SDL_BUTTON_RIGHT : SDL_BUTTON_LEFT;
      event(v, &e);
    } else if (!strcmp(ev->what, "mousemove")) {
      e.type = SDL_MOUSEMOTION, e.motion.x = (int)ev->x[0], e.motion.y = (int)ev->x[1];
      event(v, &e);
    } else if (!strcmp(ev->what, "mouseup")) {
      e.type = SDL_MOUSEBUTTONUP, e.button.button = v->pressed ? (Uint8)v->pressed : SDL_BUTTON_LEFT;
      e.button.x = v->mx, e.button.y = v->my;
      event(v, &e);
      v->ctrl = 0;
    } else if (!strcmp(ev->what, "click") || !strcmp(ev->what, "drag")) {
      int drag = !strcmp(ev->what, "drag");
      v->ctrl = !drag && ((int)ev->x[2] & KMOD_SHIFT) ? 2 : 0;
      e.type = SDL_MOUSEBUTTONDOWN, e.button.button = SDL_BUTTON_LEFT, e.button.x = (int)ev->x[0], e.button.y = (int)ev->x[1];
      event(v, &e);
      if (drag) {
        e.type = SDL_MOUSEMOTION, e.motion.x = (int)ev->x[2], e.motion.y = (int)ev->x[3];
        event(v, &e);
      }
      memset(&e, 0, sizeof e);
      e.type = SDL_MOUSEBUTTONUP, e.button.button = SDL_BUTTON_LEFT;
      e.button.x = (int)ev->x[drag ? 2 : 0], e.button.y = (int)ev->x[drag ? 3 : 1];
      event(v, &e);
      v->ctrl = 0;
    } else if (!strcmp(ev->what, "screenshot")) {
      screenshot(v, ev->arg);
    } else if (!strcmp(ev->what, "sleep")) { /* wall-clock pause: lets a test edit files */
      SDL_Delay((Uint32)(ev->x[0] * 1000));
    } else if (!strcmp(ev->what, "quit")) {
      v->quit = 1;
    }
  }
}

/* ---- the frame ---- */

static void draw(viewer *v, double now) {
  const hg_frame *f = &v->hist.frame[v->cursor];
  follow(v, f);
  const char *tracked = v->track >= 0 ? hg_frame_name(&v->hist, v->track) : NULL;
  build_list(v);
  hg_renderer_draw(v->r, &v->dl, &v->cam, &v->hist, HG_RENDER_SHADED);
  if (v->message[0] && now > v->message_until) v->message[0] = 0;
  /* the interaction layer: the selection's panel (of the frame shown), the command line, previews */
  hg_hud_interact hi = {.panel = v->panel, .cmdline = v->ia.cmdline ? v->ia.line : NULL,
                        .preview = v->ia.preview ? v->ia.preview_text : NULL,
                        .result = v->ia.result, .result_error = v->ia.result_error};
  if (v->sim) hi.npanel = hg_interact_panel(&v->ia, f, &v->hist, &v->panel[0][0], 16, 128);
  if (v->sim && v->ia.gauges)
    hi.ngauge = hg_interact_gauges(&v->ia, v->sim, &v->hist, f, v->cursor == v->hist.n - 1,
                                   &v->gauge[0][0], 12, 128);
  hi.gauge = v->gauge;
  /* sliders of the selected joint while paused at the latest state, as many as fit */
  v->nslider = v->sim && v->paused && v->ia.nsel && v->cursor == v->hist.n - 1
                   ? hg_interact_sliders(&v->ia, v->sim, &v->hist) : 0;
  if (v->nslider > hg_hud_slider_fit(v->h)) v->nslider = hg_hud_slider_fit(v->h);
  char labels[HG_SLIDER_MAX][64];
  double range[HG_SLIDER_MAX], value[HG_SLIDER_MAX];
  for (int k = 0; k < v->nslider; k++)
    hg_interact_slider(&v->ia, v->sim, &v->hist, k, labels[k], sizeof labels[k], &range[k], &value[k]);
  /* the animated mode (--mode): its number, frequency and amplitude */
  v->mode_text[0] = 0;
  if (v->mode_n > 0 && v->ia.ghost_hz > 0)
    snprintf(v->mode_text, sizeof v->mode_text, "mode %d, f = %.4g Hz, eps = %.3g", v->mode_n, v->ia.ghost_hz,
             v->ia.ghost_eps);
  double span;
  double rate = hg_rate_meter_rate(&v->rate, &span);
  hg_hud_state s = {.title = v->sc ? (v->sc->title ? v->sc->title : v->sc->path) : v->path,
                    .speed = v->speed, .rtf = rate, .rtf_span = span, .fps = v->fps, .paused = v->paused,
                    .live = v->cursor == v->hist.n - 1, .overlays = v->overlays, .tracked = tracked,
                    .message = v->message, .message_error = v->message_error, .mode = v->mode_text,
                    .t_start = hg_sim_t_start(v->sim), .t_end = hg_sim_t_end(v->sim), .plots = v->plots,
                    .help = v->help, .ia = &hi, .nslider = v->nslider, .slider_active = v->ia.slider,
                    .slider_labels = labels, .slider_range = range, .slider_value = value,
                    .profiler = v->profiler, .nprof = v->nprof, .prof = v->prof, .nplot = v->nplot};
  for (int k = 0; k < v->nplot; k++)
    s.plot[k] = (hg_hud_series){v->plot[k].col.name, v->plot[k].t, v->plot[k].x, v->plot[k].n};
  s.bare = !v->hud; /* the HUD off: the interaction layer, sliders and message still show */
  hg_hud_draw(v->r, f, &v->hist, v->cursor, &s);
}

/* the profiler's record of the frame just drawn: the solver's work since the last one (from the
 * simulation's counters), the wall time simulating and drawing it */
static void profile_frame(viewer *v, double draw_s) {
  hg_integ_stats now = v->hist.n ? v->hist.frame[v->hist.n - 1].stats : v->prof_last;
  hg_hud_prof p = {.rhs = now.rhs_evals - v->prof_last.rhs_evals, .steps = now.steps - v->prof_last.steps,
                   .rejected = now.err_test_fails + now.conv_fails - v->prof_last.err_test_fails -
                               v->prof_last.conv_fails,
                   .sim_s = v->prof_sim, .draw_s = draw_s};
  if (p.rhs < 0 || p.steps < 0 || p.rejected < 0) p.rhs = p.steps = p.rejected = 0; /* a restart */
  v->prof_last = now, v->prof_sim = 0;
  if (v->nprof == 120) memmove(v->prof, v->prof + 1, 119 * sizeof *v->prof), v->nprof--;
  v->prof[v->nprof++] = p;
}

/* 1 when the next frame differs from the last one drawn: an event, a running simulation, an
 * animated mode ghost, a message timing out */
static int needs_redraw(const viewer *v) {
  return v->dirty || (v->o->video && !v->video_failed) || !v->paused || v->ia.ghost_hz > 0 || (v->message[0] && v->clock > v->message_until);
}

/* the time until the shown message times out (s; INFINITY: none) */
static double until_message(const viewer *v) {
  return v->message[0] && !isinf(v->message_until) ? fmax(0, v->message_until - v->clock) : INFINITY;
}

/* one turn of the loop: script events, time, simulation (drawing: hg_viewer_run) */
static void tick(viewer *v, double dt) {
  v->clock += dt;
  if (v->script) script_step(v);
  if (v->clock - v->last_check > 0.5) { /* the scene file changed: reload it */
    v->last_check = v->clock;
    time_t m = file_mtime(v->path);
    if (m && m != v->mtime && !load(v)) say(v, 2, "reloaded %s (changed on disk)", v->path);
    else if (m != v->mtime) v->mtime = m;
  }
  if (!v->paused && v->sim) {
    v->dirty = 1; /* the frame that pauses at the end is drawn too */
    double t_end = hg_sim_t_end(v->sim);
    if (v->display_t != v->rate_t) hg_rate_meter_reset(&v->rate); /* a jump: measure afresh */
    v->display_t = fmin(v->display_t + dt * v->speed, t_end);
    if (v->display_t > latest(v) && !v->sim_failed) {
      double w0 = wall();
      simulate_to(v, v->display_t);
      v->prof_sim += wall() - w0;
      /* the display runs ahead of the latest state by less than an output interval (the grid's
       * state before it is shown); further only when the simulation stopped short (failed) */
      if (v->display_t > latest(v) + v->dt_out) v->display_t = latest(v);
    }
    v->cursor = hg_history_find(&v->hist, v->display_t + 1e-9 * v->dt_out); /* simulate_to's rounding */
    /* the achieved rate: the displayed time against the clock, everything a frame costs included
     * (the wall clock; a script's virtual clock, so that scripted runs are deterministic) */
    hg_rate_meter_add(&v->rate, v->script ? v->clock : wall(), v->display_t);
    v->rate_t = v->display_t;
    if (v->display_t >= t_end || (v->sim_failed && v->display_t >= latest(v))) v->paused = 1;
  } else {
    hg_rate_meter_reset(&v->rate);
  }
  if (v->ia.pulling && v->sim && !v->sim_failed && hg_interact_pull_update(&v->ia, v->sim, &v->hist)) {
    /* the pull moved (one perturb per simulated time): its state is the latest frame, and a
     * running display keeps its time, which is at or past that state (going back to it at
     * every perturb would hold the simulation on one output time) */
    double shown = v->display_t;
    v->dirty = 1;
    after_command(v);
    if (!v->paused) v->display_t = fmax(shown, latest(v));
  }
  plot_record(v);
}

/* the frame just drawn into the video (opened at the first frame, at its size); a video that
 * cannot be written stops with a message */
static void record(viewer *v) {
  char err[512];
  if (!v->o->video || v->video_failed) return;
  if (!v->video && !(v->video = hg_video_open(v->o->video, v->w, v->h, 60, err, sizeof err))) {
    say(v, INFINITY, "%s", err);
    fprintf(stderr, "hinge: %s\n", err);
    v->video_failed = 1;
    return;
  }
  size_t n = (size_t)v->w * (size_t)v->h * 4;
  if (n > v->npixels) {
    unsigned char *p = realloc(v->pixels, n);
    if (!p) return;
    v->pixels = p, v->npixels = n;
  }
  if (hg_renderer_read(v->r, v->pixels) || hg_video_frame(v->video, v->pixels, v->w, v->h))
    say(v, 4, "the video %s lost a frame", v->o->video);
}

/* ends the video: complete after a quit, a closed window or SIGINT; 0 or -1 with err */
static int video_close(viewer *v, char *err, size_t errlen) {
  if (!v->video) return 0;
  long n = hg_video_frames(v->video);
  int rc = hg_video_close(v->video, err, errlen);
  v->video = NULL;
  if (!rc) fprintf(stderr, "hinge: video %s: %ld frames at 60 per second\n", v->o->video, n);
  return rc;
}

static void viewer_free(viewer *v) {
  char err[512];
  if (v->video && video_close(v, err, sizeof err)) fprintf(stderr, "hinge: %s\n", err);
  free(v->pixels);
  for (int k = 0; k < v->nplot; k++) free(v->plot[k].t), free(v->plot[k].x);
  hg_interact_free(&v->ia);
  hg_draw_list_free(&v->dl);
  hg_history_free(&v->hist);
  if (v->r) hg_renderer_free(v->r);
  if (v->ctx) hg_gl_context_free(v->ctx);
  if (v->sim) hg_sim_free(v->sim);
  if (v->sc) hg_scene_free(v->sc);
  free(v->script);
}

/* the camera at the start: --camera (fixed in the world), else the default camera (framing.h:
 * the scene's view camera or the oblique view, keeping the bodies of interest in frame; with
 * --track, fitted once and then following that body) */
static void first_camera(viewer *v) {
  hg_framing_init(&v->framing, v->sc, &v->hist);
  if (v->o->has_camera) {
    v->cam = v->o->camera;
    v->framing.on = 0;
    return;
  }
  hg_framing_first_camera(&v->framing, v->sc, &v->hist.frame[0], &v->cam, v->w, v->h, v->clock);
  if (v->track >= 0) v->framing.on = 0;
}

int hg_viewer_run(const char *path, const hg_viewer_options *o, char *err, size_t errlen) {
  viewer v;
  memset(&v, 0, sizeof v);
  v.o = o, v.path = path, v.w = o->width, v.h = o->height;
  v.paused = o->paused, v.speed = o->speed > 0 ? o->speed : 1, v.overlays = o->overlays;
  v.hud = 1, v.plots = 0, v.track = -1;
  hg_rate_meter_reset(&v.rate);
  hg_interact_init(&v.ia);
  hg_history_init(&v.hist, 6000);
  hg_draw_list_init(&v.dl);
  if (o->script && script_load(&v, o->script, err, errlen)) return viewer_free(&v), 2;
  if (o->video && !hg_video_available())
    return viewer_free(&v), snprintf(err, errlen, "--video %s: ffmpeg is not on the PATH (install it: "
                                     "apt-get install ffmpeg)", o->video), 1;
  if (!(v.ctx = hg_gl_context_new(v.w, v.h, !o->offscreen, o->offscreen, "hinge", err, errlen)) ||
      !(v.r = hg_renderer_new(err, errlen))) {
    viewer_free(&v);
    return 1;
  }
  if (load(&v)) { /* a scene that does not load: the viewer shows why and waits for a fix */
    v.sc = NULL;
  }
  if (v.track < 0 && o->track && v.hist.n) v.track = hg_history_intern(&v.hist, o->track);
  if (o->ghost && v.sim && hg_interact_ghost_load(&v.ia, v.sim, o->ghost, err, errlen))
    return viewer_free(&v), 2;
  if (o->mode && v.sim) { /* FILE:N */
    char file[4096];
    const char *colon = strrchr(o->mode, ':');
    char *end = NULL;
    long n = colon ? strtol(colon + 1, &end, 10) : 0;
    if (!colon || !*(colon + 1) || *end || n < 1 || (size_t)(colon - o->mode) >= sizeof file)
      return viewer_free(&v), snprintf(err, errlen, "--mode '%s': expected FILE:N, N >= 1", o->mode), 2;
    snprintf(file, sizeof file, "%.*s", (int)(colon - o->mode), o->mode);
    if (hg_interact_ghost_mode(&v.ia, v.sim, file, (int)n, err, errlen)) return viewer_free(&v), 2;
    v.mode_n = (int)n;
  }
  double last = wall(), last_drawn = 0, run_sim = 0, run_clock = 0;
  int started = 0;
  while (!v.quit) {
    if (!o->offscreen) SDL_GetWindowSize(hg_gl_context_window(v.ctx), &v.w, &v.h);
    if (!o->offscreen) hg_gl_context_size(v.ctx, &v.w, &v.h);
    SDL_Event e;
    while (SDL_PollEvent(&e)) event(&v, &e);
    if (!v.sim) { /* no scene yet: show the message, retry when the file changes */
      SDL_Delay(200);
      if (file_mtime(path) != v.mtime) load(&v);
      if (v.sim) first_camera(&v), started = 1;
      else {
        hg_renderer_resize(v.r, v.w, v.h, 0);
        hg_draw_list_clear(&v.dl);
        hg_renderer_draw(v.r, &v.dl, &v.cam, &v.hist, HG_RENDER_SHADED);
        char msg[1200];
        snprintf(msg, sizeof msg, "%s\n\nthe viewer loads %s again when it changes (or on F5)", v.message, path);
        hg_hud_message(v.r, msg, 1);
        hg_renderer_present(v.r, v.w, v.h);
        hg_gl_context_swap(v.ctx);
        if (o->script) v.clock += 0.2, script_step(&v);
        continue;
      }
    }
    if (!started) first_camera(&v), started = 1, v.dirty = 1;
    if (!o->script && !needs_redraw(&v)) {
      /* nothing changes: wait for an event, at most until the message times out or the next
       * look at the scene file (every 0.5 s), instead of drawing the same frame again; the
       * clock moves on by the time waited, the display time does not (it is paused) */
      double wait_s = fmin(until_message(&v), fmax(0, 0.5 - (v.clock - v.last_check)));
      if (SDL_WaitEventTimeout(&e, (int)ceil(1000 * wait_s) + 1)) event(&v, &e);
      double now = wall();
      v.clock += now - last, last = now;
    }
    double now = wall(), real = now - last, dt = o->script ? 1.0 / 60 : fmin(real, 0.1);
    last = now;
    int running = !v.paused && v.sim && !v.sim_failed;
    double shown = v.display_t;
    tick(&v, dt);
    if (running && v.display_t > shown) { /* the whole session's achieved rate, said at the end */
      run_sim += v.display_t - shown;
      run_clock += o->script ? dt : real;
    }
    if (needs_redraw(&v)) { /* a script's idle frames advance its clock, undrawn */
      /* the frame rate: frames drawn per wall second (undrawn turns of the loop do not count) */
      double since = now - last_drawn;
      if (last_drawn > 0 && since > 0) v.fps = v.fps > 0 ? 0.9 * v.fps + 0.1 / since : 1 / since;
      last_drawn = now;
      v.dirty = 0;
      fit_renderer(&v);
      double d0 = wall();
      draw(&v, v.clock);
      profile_frame(&v, wall() - d0);
      record(&v);
      hg_renderer_present(v.r, v.w, v.h);
      hg_gl_context_swap(v.ctx);
      v.ndrawn++;
      if (v.video && !o->script) { /* the video's 60 frames per second of the wall clock */
        double spare = 1.0 / 60 - (wall() - now);
        if (spare > 0) SDL_Delay((Uint32)(1000 * spare));
      }
    }
    if (o->offscreen && v.script && v.kscript >= v.nscript) v.quit = 1;
    if (o->offscreen && !v.script) v.quit = 1; /* nothing will ever press a key */
  }
  if (run_clock > 0) /* against the wall clock (a script's virtual clock with --script) */
    fprintf(stderr, "hinge: the viewer showed %.4g s of simulated time in %.4g s%s: %.3gx real time (asked %gx)\n",
            run_sim, run_clock, o->script ? " of the script's clock" : "", run_sim / run_clock, v.speed);
  int rc = v.sim_failed ? 3 : 0;
  if (o->frames_drawn) *o->frames_drawn = v.ndrawn;
  if (video_close(&v, err, errlen)) rc = rc ? rc : 1; /* before running the rest headless */
  if (v.video_failed && !rc) rc = 1, snprintf(err, errlen, "%s", v.message);
  if (v.sim && hg_sim_ncommands(v.sim) > v.ncmd_file) { /* what was done here, replayable */
    save_session(&v);
    fprintf(stderr, "hinge: %s\n", v.message);
  }
  if (o->finish && v.sim && !v.sim_failed) { /* the rest of the run, headless: complete outputs */
    if (hg_sim_time(v.sim) < hg_sim_t_end(v.sim))
      fprintf(stderr, "hinge: viewer closed at t = %g s; running to t = %g s without it\n", hg_sim_time(v.sim),
              hg_sim_t_end(v.sim));
    if (hg_sim_run(v.sim, INFINITY)) fprintf(stderr, "hinge: %s\n", hg_sim_error(v.sim)), rc = 3;
  }
  if (o->finish && v.sim && hg_sim_finish(v.sim) && !rc) rc = 1, snprintf(err, errlen, "cannot write the outputs");
  viewer_free(&v);
  return rc;
}
