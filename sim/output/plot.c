/* plot.c: the PNG plots of a run, drawn with PLplot's cairo PNG device ("pngcairo"):
 *   energy.png      kinetic, potential (gravity + elements) and total energy; budget drift
 *   momentum.png    total angular and linear momentum (world axes)
 *   separation.png  distance and relative speed of the output pairs (scene output.pairs), and
 *                   zooms on the first seconds after each event that starts a separation
 *   loads.png       the loads of joints that were prescribed or locked at some output, and the
 *                   force and moment magnitudes of the scene's closed loops (loop_out.c)
 *   control.png     attitude errors, body rates, wheel speeds, thruster firings and joint drives
 *                   of control in the loop (control_out.c)
 * A plot with nothing to draw (fewer than two samples, no pairs, no prescribed joints) is not
 * written; flat or partly missing (NaN) series are drawn with a padded range. Every time panel
 * spans the run's output times, marks its events (dashed) and has a legend inside its box. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <plplot.h>

#include "run_outputs.h"
#include "plot_style.h"

#define PLOT_W 1000
#define PLOT_H 720
#define PLOT_PANEL_H 240 /* pixels a panel on pages of more than three */
#define PLOT_MAXLINES 12

/* The lines of one panel: column cols[k] of series S against its column 0, the time. A zoom
 * panel draws line k against the time since te[k] over [-HG_PLOT_ZOOM_PRE w, w] (relative: as
 * the change from its value at te[k]; logy: on a log10 axis), with one event marker at 0. */
typedef struct panel {
  const hg_series *S;
  int nline;
  int cols[PLOT_MAXLINES];
  const char *labels[PLOT_MAXLINES];
  const char *ylabel, *title;
  int zoom, relative, logy;
  double w, te[PLOT_MAXLINES];
} panel;

/* one line, in pieces between missing samples: the rows with a <= t <= b, drawn at (t - shift,
 * y - ref), or at (t - shift, log10(y - ref)) on a log axis (where y - ref > 0) */
static void draw_line(const hg_series *S, int col, double a, double b, double shift, double ref,
                      int logy) {
  PLFLT x[512], y[512];
  int n = 0;
  for (int r = 0; r <= S->n; r++) {
    const double *row = r < S->n ? S->x + (size_t)r * (size_t)S->width : NULL;
    double v = row ? row[col] - ref : NAN;
    int ok = row && isfinite(row[0]) && isfinite(v) && row[0] >= a && row[0] <= b &&
             (!logy || v > 0);
    if (ok) x[n] = row[0] - shift, y[n] = logy ? log10(v) : v, n++;
    if ((!ok || n == 512) && n > 0) {
      if (n == 1) plpoin(1, x, y, 1);
      else plline(n, x, y);
      /* a full buffer continues from its last point */
      if (ok) x[0] = x[n - 1], y[0] = y[n - 1], n = 1;
      else n = 0;
    }
  }
}

/* the value of column col at the last row at or before t (the zoom's reference) */
static double value_before(const hg_series *S, int col, double t) {
  double v = NAN;
  for (int r = 0; r < S->n; r++) {
    const double *row = S->x + (size_t)r * (size_t)S->width;
    if (row[0] <= t && isfinite(row[col])) v = row[col];
  }
  return v;
}

/* a zoom panel's window and legend (hg_plot_place_legend) */
static void zoom_plan(const panel *p, hg_plot_plan *pl) {
  double lo = INFINITY, hi = -INFINITY;
  pl->x0 = -HG_PLOT_ZOOM_PRE * p->w, pl->x1 = p->w;
  for (int l = 0; l < p->nline; l++) {
    double a, b;
    if (hg_plot_zoom_range(p->S->x, p->S->n, p->S->width, p->cols[l], p->te[l], p->w,
                           p->relative, p->logy, &a, &b))
      lo = fmin(lo, a), hi = fmax(hi, b);
  }
  pl->data = lo <= hi;
  pl->y0 = pl->data ? lo : -1, pl->y1 = pl->data ? hi : 1;
  pl->legend = p->nline > 0;
  hg_plot_line line[PLOT_MAXLINES];
  for (int l = 0; l < p->nline; l++)
    line[l] = (hg_plot_line){p->S->x, p->S->n, p->S->width, p->cols[l], p->te[l],
                             p->relative ? value_before(p->S, p->cols[l], p->te[l]) : 0};
  hg_plot_place_legend(pl, line, p->nline, p->logy);
}

static void draw_panel(const panel *p, const hg_run_events *ev) {
  hg_plot_plan pl;
  int col[PLOT_MAXLINES], sty[PLOT_MAXLINES];
  if (p->zoom) zoom_plan(p, &pl);
  else hg_plot_time_plan(p->S->x, p->S->n, p->S->width, p->cols, p->nline, &pl);
  (p->logy ? hg_plot_frame_logy : hg_plot_frame)(NULL, pl.x0, pl.x1, pl.y0, pl.y1,
                                                 p->zoom ? "time since the event [s]" : "time [s]",
                                                 p->ylabel, p->title);
  plwidth(2);
  for (int l = 0; l < p->nline; l++) {
    col[l] = HG_PLOT_LINE0 + l % HG_PLOT_NLINES;
    sty[l] = 1 + (l / HG_PLOT_NLINES) % 8;
    plcol0(col[l]);
    pllsty(sty[l]);
    if (p->zoom)
      draw_line(p->S, p->cols[l], p->te[l] + pl.x0, p->te[l] + pl.x1, p->te[l],
                p->relative ? value_before(p->S, p->cols[l], p->te[l]) : 0, p->logy);
    else draw_line(p->S, p->cols[l], -INFINITY, INFINITY, 0, 0, 0);
  }
  pllsty(1);
  double zero = 0;
  if (p->zoom) hg_plot_events(&zero, NULL, 1, pl.x0, pl.x1, pl.y0, pl.y1);
  else hg_plot_events(ev->t, ev->names, ev->n, pl.x0, pl.x1, pl.y0, pl.y1);
  if (pl.legend) hg_plot_legend(pl.corner, p->nline, p->labels, col, sty, 0);
}

/* a page of panels stacked vertically; 1 written, 0 skipped, -1 when the file is not writable */
static int draw_page(hg_outputs *o, hg_sim *s, const char *name, const panel *panels,
                     int npanel) {
  char path[4096];
  hg_run_events ev;
  hg_out_events(s, &ev);
  hg_out_path(o, name, path, sizeof path);
  int h = npanel > 3 ? PLOT_PANEL_H * npanel : PLOT_H;
  if (hg_plot_open(path, PLOT_W, h, 1, npanel) < 0) return hg_out_plot_end(o);
  for (int k = 0; k < npanel; k++) draw_panel(&panels[k], &ev);
  return hg_out_plot_end(o);
}

/* ---- the pages ---- */

static int page_energy(hg_outputs *o, hg_sim *s) {
  panel p[2] = {{.S = &o->energy, .nline = 3, .cols = {1, 2, 3},
                 .labels = {"kinetic", "potential", "total"}, .ylabel = "energy [J]",
                 .title = "Mechanical energy (potential: gravity and force elements)"},
                {.S = &o->energy, .nline = 1, .cols = {4}, .labels = {"drift"},
                 .ylabel = "B - B0 [J]",
                 .title = "Energy budget drift (kinetic + potential + removed by locks - work)"}};
  return draw_page(o, s, "energy.png", p, 2);
}

static int page_momentum(hg_outputs *o, hg_sim *s) {
  panel p[2] = {{.S = &o->momentum, .nline = 3, .cols = {1, 2, 3}, .labels = {"Lx", "Ly", "Lz"},
                 .ylabel = "L [N m s]", .title = "Angular momentum about the world origin"},
                {.S = &o->momentum, .nline = 3, .cols = {4, 5, 6}, .labels = {"px", "py", "pz"},
                 .ylabel = "p [N s]", .title = "Linear momentum"}};
  return draw_page(o, s, "momentum.png", p, 2);
}

/* the zoom panels of the pairs: distance change and relative speed in the first seconds after
 * each event that starts or speeds up a pair's separation (hg_plot_separation_event), one line
 * per pair and such event; 0 lines: no zoom */
static int zoom_lines(const hg_outputs *o, hg_sim *s, panel *z, char (*labels)[96]) {
  const hg_output_spec *os = &hg_sim_scene(s)->output;
  double w = hg_plot_zoom_length(os->dt);
  hg_run_events ev;
  hg_out_events(s, &ev);
  for (int e = 0; e < ev.n; e++) {
    for (int k = 0; k < os->npair && k < PLOT_MAXLINES; k++) {
      int col = 1 + 3 * k;
      if (z[0].nline == PLOT_MAXLINES ||
          !hg_plot_separation_event(o->zoom.x, o->zoom.n, o->zoom.width, col, ev.t[e], w))
        continue;
      int l = z[0].nline;
      char when[32];
      snprintf(when, sizeof when, "%.4g", ev.t[e]);
      snprintf(labels[l], sizeof labels[l], "%.20s - %.20s, %.24s at %.12s s", os->pair[k].body_a,
               os->pair[k].body_b, ev.name[e], when);
      for (int j = 0; j < 2; j++) {
        z[j].cols[l] = col + j, z[j].te[l] = ev.t[e], z[j].labels[l] = labels[l];
        z[j].nline++, z[j].w = w;
      }
    }
  }
  return z[0].nline;
}

static int page_pairs(hg_outputs *o, hg_sim *s) {
  const hg_output_spec *os = &hg_sim_scene(s)->output;
  static char labels[PLOT_MAXLINES][96], zlabels[PLOT_MAXLINES][96];
  panel p[5] = {{.S = &o->pair, .ylabel = "distance [m]",
                 .title = "Separation of the body origins"},
                {.S = &o->pair, .ylabel = "speed [m/s]",
                 .title = "Relative speed of the body origins"},
                {.S = &o->pair, .ylabel = "clearance [m]",
                 .title = "Clearance of the collision geometry (< 0: overlapping)"}};
  /* the zooms draw the exact rows around the events (o->zoom), the time panels the bounded
   * series of the whole run (o->pair) */
  panel z[2] = {{.S = &o->zoom, .ylabel = "distance change [m]", .zoom = 1, .relative = 1,
                 .logy = 1,
                 .title = "Zoom: separation in the first seconds after each separation event "
                          "(log axis)"},
                {.S = &o->zoom, .ylabel = "speed [m/s]", .zoom = 1,
                 .title = "Zoom: relative speed in the first seconds after each separation event"}};
  int clear = 0;
  for (int k = 0; k < os->npair && k < PLOT_MAXLINES; k++) {
    snprintf(labels[k], sizeof labels[k], "%s - %s", os->pair[k].body_a, os->pair[k].body_b);
    for (int j = 0; j < 3; j++) {
      if (j == 2 && o->clear[k].rows == 0) continue; /* no collision geometry */
      p[j].cols[p[j].nline] = 1 + 3 * k + j;
      p[j].labels[p[j].nline] = labels[k];
      p[j].nline++;
    }
    clear |= o->clear[k].rows > 0;
  }
  if (os->npair == 0) return 0;
  int n = clear ? 3 : 2;
  if (zoom_lines(o, s, z, zlabels)) p[n++] = z[0], p[n++] = z[1];
  return draw_page(o, s, "separation.png", p, n);
}

/* the load columns of joints with one DoF (group 0) or several (group 1) into a panel */
static void load_lines(const hg_outputs *o, int group, panel *p, char (*labels)[96]) {
  int at = 0;
  for (int c = 0; c < o->ncol; c++)
    for (int k = 0; k < o->col[c].nv; k++, at++) {
      if ((o->col[c].nv > 1) != group || !o->load_used[at] || p->nline == PLOT_MAXLINES)
        continue;
      const hg_col *col = &o->col[c];
      const char *unit = "", *name = hg_joint_entry_name(col->type, 2, k, &unit);
      snprintf(labels[p->nline], sizeof labels[0], "%.60s.%s [%s]", col->joint, name, unit);
      p->labels[p->nline] = labels[p->nline];
      p->cols[p->nline++] = 1 + at;
    }
}

/* the scene's loops that were closed at some output: |force| and |moment| (a coupling: |force
 * or torque|), gaps while open or absent */
static void loop_lines(const hg_outputs *o, hg_sim *s, panel *p, char (*labels)[96]) {
  const hg_scene *sc = hg_sim_scene(s);
  for (int k = 0; k < o->nloopcol && k < o->nloop; k++) {
    if (o->loop[k].closed_rows == 0) continue;
    const hg_loop_spec *sp = &sc->loop[k];
    /* a coupling's force is its follower's load: torque [N m] or force [N] */
    const char *unit = "N or N m", *what = "force";
    if (sp->coupling) {
      const hg_model *m = hg_sim_model(s);
      int i = hg_model_joint(m, sp->joint[1]);
      if (i > 0) what = hg_joint_entry_name(m->jnt[i].type, 2, 0, &unit);
    }
    for (int j = 0; j < (sp->coupling ? 1 : 2) && p->nline < PLOT_MAXLINES; j++) {
      if (sp->coupling)
        snprintf(labels[p->nline], sizeof labels[0], "%.40s |%s| [%s]", sp->name, what, unit);
      else
        snprintf(labels[p->nline], sizeof labels[0], "%.40s %s", sp->name,
                 j ? "|M| [N m]" : "|F| [N]");
      p->labels[p->nline] = labels[p->nline];
      p->cols[p->nline++] = 1 + 2 * k + j;
    }
  }
}

static int page_loads(hg_outputs *o, hg_sim *s) {
  static char labels[3][PLOT_MAXLINES][96];
  panel p[3] = {{.S = &o->load, .ylabel = "load [N m or N]",
                 .title = "Loads of prescribed and locked 1-DoF joints"},
                {.S = &o->load, .ylabel = "load [N m, N]",
                 .title = "Loads of prescribed and locked multi-DoF joints (child body frame)"},
                {.S = &o->loopser, .ylabel = "force [N], moment [N m]",
                 .title = "Closed loops: force |F| and moment |M| transmitted (gaps: open)"}};
  load_lines(o, 0, &p[0], labels[0]);
  load_lines(o, 1, &p[1], labels[1]);
  loop_lines(o, s, &p[2], labels[2]);
  panel drawn[3];
  int n = 0;
  for (int k = 0; k < 3; k++)
    if (p[k].nline) drawn[n++] = p[k];
  return n ? draw_page(o, s, "loads.png", drawn, n) : 0;
}

int hg_plot_all(hg_outputs *o, hg_sim *s) {
  int (*pages[])(hg_outputs *, hg_sim *) = {page_energy, page_momentum, page_pairs,
                                                  page_loads, hg_out_control_plot};
  int written = 0;
  if (o->energy.n < 2) return 0;
  for (size_t k = 0; k < sizeof pages / sizeof pages[0]; k++) {
    int rc = pages[k](o, s);
    if (rc < 0) return -1;
    written += rc;
  }
  return written;
}
