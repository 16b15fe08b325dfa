/* control_out.c: control in the loop in a run's outputs, read through the simulation's views of
 * actuators, sensors and controllers (sim.h, hg_sim_actuator, hg_sim_sensor, hg_sim_controller):
 *   actuators.csv    one row per output time: each actuator's command, what it applies, whether it
 *                    saturates, its speed, and what it has done so far (work, friction, pulses,
 *                    impulse, propellant)
 *   sensors.csv      one row per instant at which a sensor sampled (the observers' sample): every
 *                    sensor's latest sample, held for those that did not sample then
 *   controllers.csv  one row per output time: each controller's state, steps and telemetry
 *   control.png      attitude error, body rates, wheel speeds, thruster firings, joint drives
 *   summary.txt      the control lines: pointing after settling, saturation, firings, impulse,
 *                    propellant, step timing, work and friction of each actuator
 * Each CSV is written only when the scene has that kind of device; a scene without actuators,
 * sensors and controllers writes nothing of this. */
#include <math.h>
#include <stdlib.h>

#include <plplot.h>

#include "plot_style.h"
#include "err_record.h"
#include "run_outputs.h"

/* what control_out keeps of a run */
struct hg_ctl_out {
  hg_outfile file[3];      /* actuators.csv, sensors.csv, controllers.csv (outfile.h) */
  FILE *act, *sen, *ctl;   /* their streams (NULL: none) */
  int nact, nsen, nctl;
  long sensor_rows;        /* rows of sensors.csv */
  double t_sensor_row;     /* the time of its last row */
  /* plots, per output row: time, then per actuator one number (a wheel's speed, a thruster's
   * level, a motor's or servo's output; NaN while absent), and per controller four (attitude_pd:
   * pointing error, body rates x y z in deg/s; NaN for other types and before the first step) */
  hg_series actser, ctlser;
  double *row_act, *row_ctl;
  /* summary: per controller, its pointing error at its steps (attitude_pd), bounded
   * (err_record.h) */
  hg_err_record *err;
  long *steps_seen;
};

static void put(FILE *f, double x) { fprintf(f, ",%.17g", x); }

static void put_empty(FILE *f, int n) {
  for (int k = 0; k < n; k++) fputc(',', f);
}

/* appends one row of S's width (nothing for a series not kept: width 0); 0 or -1 */
static int push(hg_series *S, const double *row) { return hg_series_push(S, row); }

/* the telemetry columns of a controller (attitude_pd reports 7 from its first step on) */
static int telemetry_width(const hg_sim_controller_view *cv) {
  return cv->type == HG_CTL_ATTITUDE_PD ? 7 : 0;
}

/* a sensor that can drop out (or lose its target) whose channels do not say so gets a valid
 * column of its own */
static int extra_valid(const hg_sim_sensor_view *sv) {
  int can = sv->type == HG_SENSOR_STAR_TRACKER || sv->type == HG_SENSOR_SUN ||
            sv->type == HG_SENSOR_EARTH;
  for (int e = 0; e < sv->n && can; e++)
    if (!strcmp(sv->channel[e], "valid")) can = 0;
  return can;
}

/* ---- headers ---- */

static void header_actuators(hg_sim *s, FILE *f, int n) {
  const hg_scene *sc = hg_sim_scene(s);
  fprintf(f, "t");
  for (int k = 0; k < n; k++) {
    const hg_actuator_spec *sp = &sc->actuator[k];
    const char *a = sp->name;
    if (sp->type == HG_ACT_THRUSTER) {
      static const char *const th[5] = {"level", "on", "firings", "on_time", "impulse"};
      for (int j = 0; j < 5; j++) hg_csv_field(f, 1, "%s.%s", a, th[j]);
      if (sp->tank) hg_csv_field(f, 1, "%s.propellant", a);
      hg_csv_field(f, 1, "%s.work", a);
      continue;
    }
    static const char *const dr[4] = {"command", "output", "saturated", "speed"};
    for (int j = 0; j < 4; j++) hg_csv_field(f, 1, "%s.%s", a, dr[j]);
    if (sp->type == HG_ACT_WHEEL) hg_csv_field(f, 1, "%s.momentum", a);
    hg_csv_field(f, 1, "%s.work", a);
    hg_csv_field(f, 1, "%s.loss", a);
  }
  fputc('\n', f);
}

static void header_sensors(hg_sim *s, FILE *f, int n) {
  fprintf(f, "t");
  for (int k = 0; k < n; k++) {
    hg_sim_sensor_view sv;
    hg_sim_sensor(s, k, &sv);
    for (int e = 0; e < sv.n; e++) hg_csv_field(f, 1, "%s.%s", sv.name, sv.channel[e]);
    if (extra_valid(&sv)) hg_csv_field(f, 1, "%s.valid", sv.name);
  }
  fputc('\n', f);
}

static void header_controllers(hg_sim *s, FILE *f, int n) {
  fprintf(f, "t");
  for (int k = 0; k < n; k++) {
    hg_sim_controller_view cv;
    hg_sim_controller(s, k, &cv);
    hg_csv_field(f, 1, "%s.enabled", cv.name);
    hg_csv_field(f, 1, "%s.steps", cv.name);
    for (int j = 0; j < telemetry_width(&cv); j++)
      hg_csv_field(f, 1, "%s.%s", cv.name, cv.telemetry_name[j]);
  }
  fputc('\n', f);
}

/* ---- opening and closing ---- */

/* name in the output folder, created anew (never through a link), into *out; 0 or -1 with
 * o->msg */
static int open_file(hg_outputs *o, const char *name, hg_outfile *out, FILE **f) {
  char path[4096];
  hg_out_path(o, name, path, sizeof path);
  if (hg_outfile_stream(out, path)) return hg_out_check(o, out), -1;
  *f = out->f;
  return 0;
}

int hg_out_control_init(hg_outputs *o, hg_sim *s) {
  int na = hg_sim_nactuator(s), ns = hg_sim_nsensor(s), nc = hg_sim_ncontroller(s);
  if (!na && !ns && !nc) return 0;
  hg_ctl_out *c = calloc(1, sizeof *c);
  if (!c) return snprintf(o->msg, sizeof o->msg, "out of memory"), -1;
  o->ctl = c;
  c->nact = na, c->nsen = ns, c->nctl = nc;
  c->t_sensor_row = NAN;
  /* the plots' series, kept only when the plots will be drawn */
  c->actser.width = o->plot ? 1 + na : 0;
  c->ctlser.width = o->plot ? 1 + 4 * nc : 0;
  c->row_act = calloc(1 + (size_t)na, sizeof(double));
  c->row_ctl = calloc(1 + 4 * (size_t)nc, sizeof(double));
  c->err = calloc((size_t)nc + 1, sizeof *c->err);
  c->steps_seen = calloc((size_t)nc + 1, sizeof *c->steps_seen);
  if (!c->row_act || !c->row_ctl || !c->err || !c->steps_seen)
    return snprintf(o->msg, sizeof o->msg, "out of memory"), -1;
  for (int k = 0; k < nc; k++) hg_err_record_init(&c->err[k], hg_sim_t_start(s));
  c->actser.stride = c->ctlser.stride = 1;
  if ((na && open_file(o, "actuators.csv", &c->file[0], &c->act)) ||
      (ns && open_file(o, "sensors.csv", &c->file[1], &c->sen)) ||
      (nc && open_file(o, "controllers.csv", &c->file[2], &c->ctl)))
    return -1;
  if (c->act) header_actuators(s, c->act, na);
  if (c->sen) header_sensors(s, c->sen, ns);
  if (c->ctl) header_controllers(s, c->ctl, nc);
  return 0;
}

int hg_out_control_close(hg_outputs *o) {
  hg_ctl_out *c = o->ctl;
  int bad = 0;
  if (!c) return 0;
  for (int k = 0; k < 3; k++) bad |= hg_out_close(o, &c->file[k]);
  c->act = c->sen = c->ctl = NULL;
  return bad ? -1 : 0;
}

void hg_out_control_free(hg_outputs *o) {
  hg_ctl_out *c = o->ctl;
  if (!c) return;
  for (int k = 0; k < 3; k++) hg_outfile_discard(&c->file[k]);
  free(c->actser.x);
  free(c->ctlser.x);
  free(c->row_act);
  free(c->row_ctl);
  for (int k = 0; c->err && k < c->nctl; k++) hg_err_record_free(&c->err[k]);
  free(c->err);
  free(c->steps_seen);
  free(c);
  o->ctl = NULL;
}

/* ---- the instants sensors sampled ---- */

/* sensor k's block: its latest sample (empty before the first) */
static void row_sensor(FILE *f, const hg_sim_sensor_view *sv) {
  int extra = extra_valid(sv);
  if (isnan(sv->t)) {
    put_empty(f, sv->n + extra);
    return;
  }
  for (int e = 0; e < sv->n; e++) {
    if (!strcmp(sv->channel[e], "valid")) fprintf(f, ",%d", sv->valid ? 1 : 0);
    else put(f, sv->value[e]);
  }
  if (extra) fprintf(f, ",%d", sv->valid ? 1 : 0);
}

const char *hg_out_control_sample(hg_outputs *o, hg_sim *s) {
  hg_ctl_out *c = o->ctl;
  double t = hg_sim_time(s);
  if (!c) return NULL;
  /* the controllers' steps: the pointing error each reported (for the summary) */
  for (int k = 0; k < c->nctl; k++) {
    hg_sim_controller_view cv;
    hg_sim_controller(s, k, &cv);
    if (cv.steps == c->steps_seen[k]) continue;
    c->steps_seen[k] = cv.steps;
    if (cv.type != HG_CTL_ATTITUDE_PD || cv.ntelemetry < 1) continue;
    if (hg_err_record_push(&c->err[k], t, cv.telemetry[0]))
      return snprintf(o->msg, sizeof o->msg, "out of memory"), o->msg;
  }
  /* a row when a sensor sampled now (once per instant) */
  if (!c->sen || (c->sensor_rows && t == c->t_sensor_row)) return NULL;
  int now = 0;
  for (int k = 0; k < c->nsen && !now; k++) {
    hg_sim_sensor_view sv;
    hg_sim_sensor(s, k, &sv);
    now = sv.t == t;
  }
  if (!now) return NULL;
  fprintf(c->sen, "%.17g", t);
  for (int k = 0; k < c->nsen; k++) {
    hg_sim_sensor_view sv;
    hg_sim_sensor(s, k, &sv);
    row_sensor(c->sen, &sv);
  }
  fputc('\n', c->sen);
  c->sensor_rows++;
  c->t_sensor_row = t;
  return hg_out_check(o, &c->file[1]) ? o->msg : NULL;
}

/* ---- output rows ---- */

/* actuator k's block; its number for the plots */
static double row_actuator(FILE *f, const hg_actuator_spec *sp, const hg_sim_actuator_view *av) {
  if (sp->type == HG_ACT_THRUSTER) {
    if (av->present) put(f, av->level);
    else put_empty(f, 1);
    put(f, av->command[0]);
    fprintf(f, ",%ld", av->firings);
    put(f, av->on_time);
    put(f, av->impulse);
    if (sp->tank) put(f, av->propellant);
    put(f, av->work);
    return av->present ? av->level : NAN;
  }
  put(f, av->command[0]);
  if (av->present) {
    put(f, av->output);
    fprintf(f, ",%d", av->saturated ? 1 : 0);
    put(f, av->speed);
    if (sp->type == HG_ACT_WHEEL) put(f, av->momentum);
  } else {
    put_empty(f, sp->type == HG_ACT_WHEEL ? 4 : 3);
  }
  put(f, av->work);
  put(f, av->loss);
  if (!av->present) return NAN;
  return sp->type == HG_ACT_WHEEL ? av->speed : av->output;
}

/* controller k's block; its four plot numbers into pl */
static void row_controller(FILE *f, const hg_sim_controller_view *cv, double *pl) {
  int w = telemetry_width(cv);
  fprintf(f, ",%d,%ld", cv->enabled ? 1 : 0, cv->steps);
  for (int j = 0; j < w; j++) {
    if (j < cv->ntelemetry) put(f, cv->telemetry[j]);
    else fputc(',', f);
  }
  for (int j = 0; j < 4; j++) pl[j] = w && j < cv->ntelemetry ? cv->telemetry[j] : NAN;
}

int hg_out_control_row(hg_outputs *o, hg_sim *s) {
  hg_ctl_out *c = o->ctl;
  const hg_scene *sc = hg_sim_scene(s);
  double t = hg_sim_time(s);
  if (!c) return 0;
  c->row_act[0] = c->row_ctl[0] = t;
  if (c->act) {
    fprintf(c->act, "%.17g", t);
    for (int k = 0; k < c->nact; k++) {
      hg_sim_actuator_view av;
      hg_sim_actuator(s, k, &av);
      c->row_act[1 + k] = row_actuator(c->act, &sc->actuator[k], &av);
    }
    fputc('\n', c->act);
  }
  if (c->ctl) {
    fprintf(c->ctl, "%.17g", t);
    for (int k = 0; k < c->nctl; k++) {
      hg_sim_controller_view cv;
      hg_sim_controller(s, k, &cv);
      row_controller(c->ctl, &cv, c->row_ctl + 1 + 4 * k);
    }
    fputc('\n', c->ctl);
  }
  if (push(&c->actser, c->row_act) || push(&c->ctlser, c->row_ctl)) {
    snprintf(o->msg, sizeof o->msg, "out of memory");
    return -1;
  }
  return hg_out_check(o, &c->file[0]) || hg_out_check(o, &c->file[2]) ? -1 : 0;
}

/* ---- summary.txt ---- */

static void summary_controllers(const hg_ctl_out *c, hg_sim *s, FILE *f) {
  double t0 = hg_sim_t_start(s), t = hg_sim_time(s);
  /* settling: the last half of the run */
  double t_from = t0 + 0.5 * (t - t0);
  for (int k = 0; k < c->nctl; k++) {
    hg_sim_controller_view cv;
    hg_sim_controller(s, k, &cv);
    const char *n = cv.name;
    if (cv.type == HG_CTL_ATTITUDE_PD) {
      const hg_err_record *E = &c->err[k];
      hg_err_max a = hg_err_record_max(E, t_from);
      if (a.exact && a.n > 0)
        fprintf(f, "%s.pointing_error_max_after_settling_deg: %.6g (max of the truth pointing "
                   "error at its %ld steps from t = %.9g s, the last half of the run)\n",
                n, a.max, a.n, t_from);
      else if (a.exact && a.n < 0 && !isnan(a.max))
        fprintf(f, "%s.pointing_error_max_after_settling_deg: %.6g (max of the truth pointing "
                   "error at its steps from t = %.9g s, the last half of the run; its %ld steps "
                   "kept as the max of %d time bins of %.9g s)\n",
                n, a.max, t_from, E->steps, HG_ERR_BINS, E->w);
      else if (!a.exact)
        fprintf(f, "%s.pointing_error_max_after_settling_deg: %.6g at most (an upper bound of "
                   "the max of the truth pointing error at its steps from t = %.9g s, the last "
                   "half of the run: its %ld steps kept as the max of %d time bins of %.9g s, "
                   "the bin across t = %.9g s counted from its start t = %.9g s)\n",
                n, a.max, t_from, E->steps, HG_ERR_BINS, E->w, t_from, a.t_lo);
      else
        fprintf(f, "%s.pointing_error_max_after_settling_deg: n/a (no step from t = %.9g s)\n",
                n, t_from);
      if (E->steps)
        fprintf(f, "%s.pointing_error_final_deg: %.6g (at its last step, t = %.9g s)\n", n,
                E->e_last, E->t_last);
      else
        fprintf(f, "%s.pointing_error_final_deg: n/a (it never stepped)\n", n);
    }
    /* mean and longest wall-clock time of a step, microseconds */
    double mean = cv.steps ? 1e6 * cv.wall_total / (double)cv.steps : 0;
    fprintf(f, "%s.steps: %ld\n%s.step_wall_mean_us: %.4g\n%s.step_wall_max_us: %.4g\n", n,
            cv.steps, n, mean, n, 1e6 * cv.wall_max);
  }
}

static void summary_actuators(hg_sim *s, FILE *f) {
  const hg_scene *sc = hg_sim_scene(s);
  int n = hg_sim_nactuator(s);
  for (int k = 0; k < n; k++) {
    hg_sim_actuator_view av;
    hg_sim_actuator(s, k, &av);
    const char *a = av.name;
    fprintf(f, "%s.saturated_time_s: %.9g\n", a, av.saturated_time);
    if (av.type == HG_ACT_THRUSTER)
      fprintf(f, "%s.firings: %ld\n%s.impulse_Ns: %.9g\n%s.on_time_s: %.9g\n", a, av.firings, a,
              av.impulse, a, av.on_time);
    fprintf(f, "%s.work_J: %.9g (the drive's work on the system)\n", a, av.work);
    if (av.type != HG_ACT_THRUSTER)
      fprintf(f, "%s.friction_loss_J: %.9g (friction's work, <= 0)\n", a, av.loss);
  }
  /* a tank's propellant now: that of a thruster drawing from it */
  for (int t = 0; t < sc->ntank; t++) {
    const hg_tank_spec *tk = &sc->tank[t];
    double now = NAN;
    for (int k = 0; k < n && isnan(now); k++) {
      if (!sc->actuator[k].tank || strcmp(sc->actuator[k].tank, tk->name)) continue;
      hg_sim_actuator_view av;
      hg_sim_actuator(s, k, &av);
      now = av.propellant;
    }
    if (isnan(now))
      fprintf(f, "%s.propellant_used_kg: 0 (no thruster draws from it; %.9g kg left)\n",
              tk->name, tk->propellant);
    else /* used: what it held at the start less what is left */
      fprintf(f, "%s.propellant_used_kg: %.9g (of %.9g kg; %.9g kg left)\n", tk->name,
              tk->propellant - now, tk->propellant, now);
  }
}

void hg_out_control_summary(const hg_outputs *o, hg_sim *s, FILE *f) {
  const hg_ctl_out *c = o->ctl;
  const hg_scene *sc = hg_sim_scene(s);
  if (!c) return;
  fprintf(f, "control: %d actuator%s, %d tank%s, %d sensor%s, %d controller%s\n", c->nact,
          c->nact == 1 ? "" : "s", sc->ntank, sc->ntank == 1 ? "" : "s", c->nsen,
          c->nsen == 1 ? "" : "s", c->nctl, c->nctl == 1 ? "" : "s");
  summary_controllers(c, s, f);
  summary_actuators(s, f);
  if (c->nsen) fprintf(f, "sensor_instants: %ld (rows of sensors.csv)\n", c->sensor_rows);
}

/* ---- control.png ---- */

#define CTL_PLOT_W 1000
#define CTL_PLOT_MAXLINES 12

/* a line of a panel: column col of S, dashed lines at +-level (NaN: none) */
typedef struct ctl_line {
  const hg_series *S;
  int col;
  double level;
  char label[96];
} ctl_line;

typedef struct ctl_panel {
  int nline;
  ctl_line line[CTL_PLOT_MAXLINES];
  const char *ylabel, *title;
  int raster;      /* thrusters: a row per line, a bar while its value is > 0 */
  int maylog;      /* a log axis when the values span more than two decades ... */
  int logscale;    /* ... which panel_range decides */
} ctl_panel;

/* the panel's world window; sets p->logscale (y is then log10) */
static void panel_range(ctl_panel *p, double *x0, double *x1, double *y0, double *y1) {
  double lo = INFINITY, hi = -INFINITY, pos = INFINITY;
  *x0 = INFINITY, *x1 = -INFINITY;
  for (int l = 0; l < p->nline; l++) {
    const hg_series *S = p->line[l].S;
    for (int r = 0; r < S->n; r++) {
      const double *row = S->x + (size_t)r * (size_t)S->width;
      *x0 = fmin(*x0, row[0]), *x1 = fmax(*x1, row[0]);
      double y = row[p->line[l].col];
      if (!isfinite(y)) continue;
      lo = fmin(lo, y), hi = fmax(hi, y);
      if (y > 0) pos = fmin(pos, y);
    }
    double lv = p->line[l].level;
    if (isfinite(lv)) lo = fmin(lo, -lv), hi = fmax(hi, lv);
  }
  if (!(*x0 < *x1)) *x0 = 0, *x1 = 1;
  if (p->raster) {
    *y0 = 0, *y1 = p->nline;
    return;
  }
  /* a positive quantity spanning more than two decades: a log10 axis from its smallest positive
   * value, at most five decades below its peak (smaller values fall below the axis) */
  p->logscale = p->maylog && lo >= 0 && isfinite(pos) && hi > 100 * pos;
  if (p->logscale) {
    *y0 = fmax(log10(pos), log10(hi) - 5), *y1 = log10(hi);
    hg_plot_pad(y0, y1, (hg_plot_margin){0.05, 1e-12, 1e-6});
    return;
  }
  if (!(lo <= hi)) lo = -1, hi = 1;
  *y0 = lo, *y1 = hi;
  hg_plot_pad(y0, y1, (hg_plot_margin){0.05, 1e-12, 1e-6});
}

/* one line in pieces between missing samples (log10 of it on a log axis; values <= 0 are
 * missing there) */
static void draw_series(const hg_series *S, int col, int logscale) {
  PLFLT x[512], y[512];
  int n = 0;
  for (int r = 0; r <= S->n; r++) {
    const double *row = r < S->n ? S->x + (size_t)r * (size_t)S->width : NULL;
    double v = row ? row[col] : NAN;
    int ok = row && isfinite(v) && (!logscale || v > 0);
    if (ok) x[n] = row[0], y[n] = logscale ? log10(v) : v, n++;
    if ((!ok || n == 512) && n > 0) {
      if (n == 1) plpoin(1, x, y, 1);
      else plline(n, x, y);
      if (ok) x[0] = x[n - 1], y[0] = y[n - 1], n = 1;
      else n = 0;
    }
  }
}

/* a thruster's bars in row `at` of the raster: from each output row where its level is > 0 to
 * the next */
static void draw_bars(const hg_series *S, int col, int at) {
  for (int r = 0; r < S->n; r++) {
    const double *row = S->x + (size_t)r * (size_t)S->width;
    if (!(row[col] > 0)) continue;
    int e = r;
    while (e + 1 < S->n && S->x[(size_t)(e + 1) * (size_t)S->width + (size_t)col] > 0) e++;
    double ta = row[0];
    double tb = e + 1 < S->n ? S->x[(size_t)(e + 1) * (size_t)S->width] : row[0];
    PLFLT x[4] = {ta, tb, tb, ta}, y[4] = {at + 0.2, at + 0.2, at + 0.8, at + 0.8};
    if (tb > ta) plfill(4, x, y);
    else plline(2, x, y + 1);
    r = e;
  }
}

/* the legend's corner inside the box (hg_plot_place_legend, which may raise *y1) */
static int legend_corner(const ctl_panel *p, double x0, double x1, double y0, double *y1) {
  hg_plot_line line[CTL_PLOT_MAXLINES];
  hg_plot_plan pl = {x0, x1, y0, *y1, 1, 1, HG_LEGEND_TOP_RIGHT};
  for (int l = 0; l < p->nline; l++)
    line[l] = (hg_plot_line){p->line[l].S->x, p->line[l].S->n, p->line[l].S->width,
                             p->line[l].col, 0, 0};
  hg_plot_place_legend(&pl, line, p->nline, p->logscale);
  *y1 = pl.y1;
  return pl.corner;
}

static void draw_legend(const ctl_panel *p, int corner) {
  int col[CTL_PLOT_MAXLINES], sty[CTL_PLOT_MAXLINES];
  const char *labels[CTL_PLOT_MAXLINES];
  for (int l = 0; l < p->nline; l++) {
    col[l] = HG_PLOT_LINE0 + l % HG_PLOT_NLINES, sty[l] = 1;
    labels[l] = p->line[l].label;
  }
  hg_plot_legend(corner, p->nline, labels, col, sty, 0);
}

/* The raster's rows are named at the right of the box, each in its colour (a legend inside
 * would cover the bars): the box ends where the longest name fits, RASTER_CHAR of the page's
 * width a character at character scale 0.75 (0.6 beyond eight rows, which a 260-pixel panel
 * gives 15 pixels each). */
#define RASTER_CHAR 0.0075
static double raster_right(const ctl_panel *p) {
  size_t longest = 0;
  for (int l = 0; l < p->nline; l++) longest = fmax(longest, strlen(p->line[l].label));
  return fmax(0.5, 0.97 - RASTER_CHAR * (double)longest);
}

static void raster_names(const ctl_panel *p) {
  plschr(0, p->nline > 8 ? 0.6 : 0.75);
  for (int l = 0; l < p->nline; l++) {
    plcol0(HG_PLOT_LINE0 + l % HG_PLOT_NLINES);
    plmtex("rv", 0.5, (l + 0.5) / p->nline, 0, p->line[l].label);
  }
  plschr(0, 1);
}

static void draw_panel(ctl_panel *p, hg_sim *s) {
  double x0, x1, y0, y1;
  panel_range(p, &x0, &x1, &y0, &y1);
  int corner = p->raster ? 0 : legend_corner(p, x0, x1, y0, &y1);
  pladv(0);
  plvsta();
  if (p->raster) plvpor(0.1, raster_right(p), 0.2, 0.82);
  plwind(x0, x1, y0, y1);
  plwidth(1);
  /* (the house frame of hg_plot_frame, with a log y axis or none for the raster) */
  const char *yopt = p->raster ? "bc" : p->logscale ? "bcnstvl" : "bcnstv";
  plcol0(HG_PLOT_GRID);
  plbox("g", 0, 0, p->raster ? "" : "g", 0, 0);
  plcol0(HG_PLOT_AXES);
  plbox("bcnst", 0, 0, yopt, 0, 0);
  pllab("time [s]", p->ylabel, p->title);
  plwidth(2);
  for (int l = 0; l < p->nline; l++) {
    const ctl_line *ln = &p->line[l];
    plcol0(HG_PLOT_LINE0 + l % HG_PLOT_NLINES);
    if (p->raster) {
      draw_bars(ln->S, ln->col, l);
      continue;
    }
    pllsty(1);
    draw_series(ln->S, ln->col, p->logscale);
    if (!isfinite(ln->level)) continue;
    /* the limit: dashed at +-level */
    pllsty(2);
    for (int sgn = -1; sgn <= 1; sgn += 2) {
      PLFLT x[2] = {x0, x1}, y[2] = {sgn * ln->level, sgn * ln->level};
      plline(2, x, y);
    }
  }
  pllsty(1);
  plwidth(1);
  /* the run's events, dashed */
  hg_run_events ev;
  hg_out_events(s, &ev);
  hg_plot_events(ev.t, ev.names, ev.n, x0, x1, y0, y1);
  if (p->raster) raster_names(p);
  else draw_legend(p, corner);
}

/* adds a line to p (a label of up to 95 characters) */
static void add_line(ctl_panel *p, const hg_series *S, int col, double level, const char *label) {
  if (p->nline == CTL_PLOT_MAXLINES) return;
  ctl_line *l = &p->line[p->nline++];
  l->S = S, l->col = col, l->level = level;
  snprintf(l->label, sizeof l->label, "%.70s", label);
}

/* the peak |value| of line l */
static double line_peak(const ctl_line *l) {
  double peak = 0;
  for (int r = 0; r < l->S->n; r++) {
    double y = fabs(l->S->x[(size_t)r * (size_t)l->S->width + (size_t)l->col]);
    if (isfinite(y)) peak = fmax(peak, y);
  }
  return peak;
}

/* The limits of a panel's lines are drawn (dashed) when they are within twice the panel's
 * largest value; a limit further off would squash every line, and its line's label gives it
 * instead. */
static void panel_limits(ctl_panel *p) {
  double peak = 0;
  for (int l = 0; l < p->nline; l++) peak = fmax(peak, line_peak(&p->line[l]));
  for (int l = 0; l < p->nline; l++) {
    ctl_line *ln = &p->line[l];
    if (!isfinite(ln->level) || ln->level <= 2 * peak) continue;
    size_t n = strlen(ln->label);
    snprintf(ln->label + n, sizeof ln->label - n, " (max %.3g off scale)", ln->level);
    ln->level = NAN;
  }
}

int hg_out_control_plot(hg_outputs *o, hg_sim *s) {
  const hg_ctl_out *c = o->ctl;
  if (!c || c->actser.n < 2) return 0;
  const hg_scene *sc = hg_sim_scene(s);
  ctl_panel p[5];
  p[0] = (ctl_panel){.ylabel = "error [deg]", .maylog = 1,
                     .title = "Attitude error (truth, at the controllers' steps)"};
  p[1] = (ctl_panel){.ylabel = "rate [deg/s]", .title = "Body rates (body axes)"};
  p[2] = (ctl_panel){.ylabel = "speed [rad/s]",
                     .title = "Reaction wheel speeds relative to their bodies (dashed: +-max speed)"};
  p[3] = (ctl_panel){.ylabel = "", .raster = 1,
                     .title = "Thruster firings (bars: level > 0 at the output rows)"};
  p[4] = (ctl_panel){.ylabel = "output [N m or N]",
                     .title = "Joint motor and servo outputs (dashed: +-effort)"};
  char label[96];
  static const char *const axis[3] = {"x", "y", "z"};
  for (int k = 0; k < c->nctl; k++) {
    hg_sim_controller_view cv;
    hg_sim_controller(s, k, &cv);
    if (cv.type != HG_CTL_ATTITUDE_PD) continue;
    snprintf(label, sizeof label, "%.80s", cv.name);
    add_line(&p[0], &c->ctlser, 1 + 4 * k, NAN, label);
    for (int a = 0; a < 3; a++) {
      snprintf(label, sizeof label, "%.80s %s", cv.name, axis[a]);
      add_line(&p[1], &c->ctlser, 2 + 4 * k + a, NAN, label);
    }
  }
  for (int k = 0; k < c->nact; k++) {
    hg_sim_actuator_view av;
    const hg_actuator_spec *sp = &sc->actuator[k];
    switch (sp->type) {
    case HG_ACT_WHEEL:
      add_line(&p[2], &c->actser, 1 + k, sp->max_speed, sp->name);
      break;
    case HG_ACT_THRUSTER:
      hg_sim_actuator(s, k, &av);
      snprintf(label, sizeof label, "%.70s (%ld pulse%s)", sp->name, av.firings,
               av.firings == 1 ? "" : "s");
      add_line(&p[3], &c->actser, 1 + k, NAN, label);
      break;
    default:
      add_line(&p[4], &c->actser, 1 + k, sp->effort, sp->name);
    }
  }
  panel_limits(&p[2]);
  panel_limits(&p[4]);
  int n = 0;
  for (int k = 0; k < 5; k++)
    if (p[k].nline) p[n++] = p[k];
  if (!n) return 0;
  char path[4096];
  hg_out_path(o, "control.png", path, sizeof path);
  /* 260 pixels a panel, at least 400 */
  if (hg_plot_open(path, CTL_PLOT_W, n < 2 ? 400 : 260 * n, 1, n) < 0)
    return hg_out_plot_end(o);
  for (int k = 0; k < n; k++) draw_panel(&p[k], s);
  return hg_out_plot_end(o);
}
