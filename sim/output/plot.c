/* plot.c: the PNG plots of a run, drawn with PLplot's cairo PNG device ("pngcairo"):
 *   energy.png      kinetic, potential (gravity + elements) and total energy; budget drift
 *   momentum.png    total angular and linear momentum (world axes)
 *   separation.png  distance and relative speed of the output pairs (scene output.pairs)
 *   loads.png       the loads of joints that were prescribed or locked at some output, and the
 *                   force and moment magnitudes of the scene's closed loops (loop_out.c)
 *   control.png     attitude errors, body rates, wheel speeds, thruster firings and joint drives
 *                   of control in the loop (control_out.c)
 * A plot with nothing to draw (fewer than two samples, no pairs, no prescribed joints) is not
 * written; flat or partly missing (NaN) series are drawn with a padded range. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <plplot.h>

#include "run_outputs.h"
#include "plot_style.h"

#define PLOT_W 1000
#define PLOT_H 720
#define PLOT_MAXLINES 12

/* the lines of one panel: column cols[k] of series S against its column 0 */
typedef struct panel {
  const hg_series *S;
  int nline;
  int cols[PLOT_MAXLINES];
  const char *labels[PLOT_MAXLINES];
  const char *ylabel, *title;
  int full_time;  /* the time axis spans every row, not only those with values (gaps at the ends
                     show) */
} panel;

/* the finite range of the panel's lines (padded when flat); 0 when there is none */
static int panel_range(const panel *p, double *x0, double *x1, double *y0, double *y1) {
  const hg_series *S = p->S;
  *x0 = *y0 = INFINITY;
  *x1 = *y1 = -INFINITY;
  for (int r = 0; r < S->n; r++) {
    const double *row = S->x + (size_t)r * (size_t)S->width;
    for (int l = 0; l < p->nline; l++) {
      double y = row[p->cols[l]];
      if (p->full_time && isfinite(row[0])) *x0 = fmin(*x0, row[0]), *x1 = fmax(*x1, row[0]);
      if (!isfinite(y) || !isfinite(row[0])) continue;
      *x0 = fmin(*x0, row[0]), *x1 = fmax(*x1, row[0]);
      *y0 = fmin(*y0, y), *y1 = fmax(*y1, y);
    }
  }
  if (!(*x0 <= *x1)) return 0;
  if (*x1 - *x0 <= 0) *x0 -= 0.5, *x1 += 0.5;
  hg_plot_pad(y0, y1, (hg_plot_margin){0.05, 1e-12, 1e-6});
  return 1;
}

/* one line, in pieces between missing samples */
static void draw_line(const hg_series *S, int col) {
  PLFLT x[512], y[512];
  int n = 0;
  for (int r = 0; r <= S->n; r++) {
    const double *row = r < S->n ? S->x + (size_t)r * (size_t)S->width : NULL;
    int ok = row && isfinite(row[0]) && isfinite(row[col]);
    if (ok) x[n] = row[0], y[n] = row[col], n++;
    if ((!ok || n == 512) && n > 0) {
      plline(n, x, y);
      /* a full buffer continues from its last point */
      if (ok) x[0] = x[n - 1], y[0] = y[n - 1], n = 1;
      else n = 0;
    }
  }
}

static void draw_legend(const panel *p) {
  PLINT opt[PLOT_MAXLINES], tcol[PLOT_MAXLINES], lcol[PLOT_MAXLINES], lsty[PLOT_MAXLINES];
  PLFLT lw[PLOT_MAXLINES], w, h;
  for (int l = 0; l < p->nline; l++) {
    opt[l] = PL_LEGEND_LINE;
    tcol[l] = HG_PLOT_AXES;
    lcol[l] = HG_PLOT_LINE0 + l % HG_PLOT_NLINES;
    lsty[l] = 1 + (l / HG_PLOT_NLINES) % 8;
    lw[l] = 2;
  }
  pllegend(&w, &h, PL_LEGEND_BACKGROUND, PL_POSITION_RIGHT | PL_POSITION_OUTSIDE, 0.01, 0.0,
           0.04, 0, HG_PLOT_AXES, 1, 0, 0, p->nline, opt, 0.5, 0.6, 1.6, 0, tcol, p->labels,
           NULL, NULL, NULL, NULL, lcol, lsty, lw, NULL, NULL, NULL, NULL);
}

static void draw_panel(const panel *p) {
  double x0, x1, y0, y1;
  /* room on the right for the legend */
  static const double legend_room[4] = {0.1, 0.8, 0.15, 0.85};
  if (!panel_range(p, &x0, &x1, &y0, &y1)) x0 = 0, x1 = 1, y0 = -1, y1 = 1;
  hg_plot_frame(p->nline > 1 ? legend_room : NULL, x0, x1, y0, y1, "time [s]", p->ylabel,
                p->title);
  plwidth(2);
  for (int l = 0; l < p->nline; l++) {
    plcol0(HG_PLOT_LINE0 + l % HG_PLOT_NLINES);
    pllsty(1 + (l / HG_PLOT_NLINES) % 8);
    draw_line(p->S, p->cols[l]);
  }
  pllsty(1);
  if (p->nline > 1) draw_legend(p);
}

/* a page of panels stacked vertically; 1 written, 0 skipped, -1 when the file is not writable */
static int draw_page(const hg_outputs *o, const char *name, const panel *panels, int npanel) {
  char path[4096];
  hg_out_path(o, name, path, sizeof path);
  if (hg_plot_open(path, PLOT_W, PLOT_H, 1, npanel) < 0) return -1;
  for (int k = 0; k < npanel; k++) draw_panel(&panels[k]);
  hg_plot_close();
  return 1;
}

/* ---- the pages ---- */

static int page_energy(const hg_outputs *o, hg_sim *s) {
  (void)s;
  panel p[2] = {{&o->energy, 3, {1, 2, 3}, {"kinetic", "potential", "total"}, "energy [J]",
                 "Mechanical energy (potential: gravity and force elements)", 0},
                {&o->energy, 1, {4}, {"drift"}, "B - B0 [J]",
                 "Energy budget drift (kinetic + potential + removed by locks - work)", 0}};
  return draw_page(o, "energy.png", p, 2);
}

static int page_momentum(const hg_outputs *o, hg_sim *s) {
  (void)s;
  panel p[2] = {{&o->momentum, 3, {1, 2, 3}, {"Lx", "Ly", "Lz"}, "L [N m s]",
                 "Angular momentum about the world origin", 0},
                {&o->momentum, 3, {4, 5, 6}, {"px", "py", "pz"}, "p [N s]",
                 "Linear momentum", 0}};
  return draw_page(o, "momentum.png", p, 2);
}

static int page_pairs(const hg_outputs *o, hg_sim *s) {
  const hg_output_spec *os = &hg_sim_scene(s)->output;
  static char labels[PLOT_MAXLINES][96];
  panel p[3] = {{&o->pair, 0, {0}, {0}, "distance [m]", "Separation of the body origins", 0},
                {&o->pair, 0, {0}, {0}, "speed [m/s]", "Relative speed of the body origins", 0},
                {&o->pair, 0, {0}, {0}, "clearance [m]",
                 "Clearance of the collision geometry (< 0: overlapping)", 0}};
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
  return draw_page(o, "separation.png", p, clear ? 3 : 2);
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

static int page_loads(const hg_outputs *o, hg_sim *s) {
  static char labels[3][PLOT_MAXLINES][96];
  panel p[3] = {{&o->load, 0, {0}, {0}, "load [N m or N]",
                 "Loads of prescribed and locked 1-DoF joints", 0},
                {&o->load, 0, {0}, {0}, "load [N m, N]",
                 "Loads of prescribed and locked multi-DoF joints (child body frame)", 0},
                {&o->loopser, 0, {0}, {0}, "force [N], moment [N m]",
                 "Closed loops: force |F| and moment |M| transmitted (gaps: open)", 1}};
  load_lines(o, 0, &p[0], labels[0]);
  load_lines(o, 1, &p[1], labels[1]);
  loop_lines(o, s, &p[2], labels[2]);
  panel drawn[3];
  int n = 0;
  for (int k = 0; k < 3; k++)
    if (p[k].nline) drawn[n++] = p[k];
  return n ? draw_page(o, "loads.png", drawn, n) : 0;
}

int hg_plot_all(const hg_outputs *o, hg_sim *s) {
  int (*pages[])(const hg_outputs *, hg_sim *) = {page_energy, page_momentum, page_pairs,
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
