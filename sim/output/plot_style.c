/* plot_style.c: the house style of the PNG plots (see plot_style.h) */
#include "plot_style.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <plplot.h>

#include "outfile.h"

/* white background, black axes, light grey grid, the line colours (Tableau 10), then the dark
 * grey of the event markers */
static const PLINT cmap_r[16] = {255, 0, 215, 31, 214, 44, 148, 255, 140, 23, 227, 188, 127,
                                 90, 0, 0};
static const PLINT cmap_g[16] = {255, 0, 215, 119, 39, 160, 103, 127, 86, 190, 119, 189, 127,
                                 90, 0, 0};
static const PLINT cmap_b[16] = {255, 0, 215, 180, 40, 44, 189, 14, 75, 207, 194, 34, 127,
                                 90, 0, 0};
enum { EVENT_COLOUR = 13 };

/* the time panels' margin: 5 % of the span, a flat line 1e-6 of its magnitude */
static const hg_plot_margin time_margin = {0.05, 1e-12, 1e-6};

void hg_plot_pad(double *lo, double *hi, hg_plot_margin m) {
  double pad = m.frac * (*hi - *lo), mag = fmax(fabs(*lo), fabs(*hi));
  if (!(pad > m.tiny * mag)) pad = mag > 0 ? m.flat * mag : 1;
  *lo -= pad, *hi += pad;
}

void hg_plot_range(const double *x, int n, hg_plot_margin m, double *lo, double *hi) {
  *lo = INFINITY, *hi = -INFINITY;
  for (int k = 0; k < n; k++)
    if (isfinite(x[k])) *lo = fmin(*lo, x[k]), *hi = fmax(*hi, x[k]);
  if (!(*lo <= *hi)) *lo = -1, *hi = 1;
  hg_plot_pad(lo, hi, m);
}

void hg_plot_time_plan(const double *rows, int nrow, int width, const int *cols, int ncol,
                       hg_plot_plan *p) {
  double lo = INFINITY, hi = -INFINITY;
  p->x0 = INFINITY, p->x1 = -INFINITY;
  for (int r = 0; r < nrow; r++) {
    const double *row = rows + (size_t)r * (size_t)width;
    if (!isfinite(row[0])) continue;
    p->x0 = fmin(p->x0, row[0]), p->x1 = fmax(p->x1, row[0]);
    for (int l = 0; l < ncol; l++)
      if (isfinite(row[cols[l]])) lo = fmin(lo, row[cols[l]]), hi = fmax(hi, row[cols[l]]);
  }
  p->data = lo <= hi;
  if (!(p->x0 <= p->x1)) p->x0 = 0, p->x1 = 1;
  else if (p->x1 - p->x0 <= 0) p->x0 -= 0.5, p->x1 += 0.5;
  if (!p->data) lo = -1, hi = 1;
  p->y0 = lo, p->y1 = hi;
  hg_plot_pad(&p->y0, &p->y1, time_margin);
  p->legend = ncol > 0;
  enum { MAXL = 64 };
  hg_plot_line line[MAXL];
  for (int l = 0; l < ncol && l < MAXL; l++)
    line[l] = (hg_plot_line){rows, nrow, width, cols[l], 0, 0};
  hg_plot_place_legend(p, line, ncol < MAXL ? ncol : MAXL, 0);
}

/* the legend's columns for n lines: more than four lines in two, more than eight in three (a
 * legend of many lines in one column would cover half of a short panel) */
static int legend_columns(int n) { return n > 8 ? 3 : n > 4 ? 2 : 1; }

void hg_plot_legend_size(int n, double *fw, double *fh) {
  int nc = legend_columns(n), nr = (n + nc - 1) / nc;
  *fw = fmin(0.95, 0.32 * nc);
  *fh = fmin(0.7, 0.05 + 0.09 * nr);
}

void hg_plot_place_legend(hg_plot_plan *p, const hg_plot_line *lines, int n, int logy) {
  double fw, fh, sx = p->x1 - p->x0, sy = p->y1 - p->y0;
  long count[4] = {0, 0, 0, 0};
  double top[2] = {-INFINITY, -INFINITY}; /* the highest point in the right and left bands */
  hg_plot_legend_size(n, &fw, &fh);
  for (int l = 0; l < n; l++)
    for (int r = 0; r < lines[l].nrow; r++) {
      const double *row = lines[l].rows + (size_t)r * (size_t)lines[l].width;
      double x = row[0] - lines[l].shift, y = row[lines[l].col] - lines[l].ref;
      if (logy) y = y > 0 ? log10(y) : NAN;
      if (!isfinite(x) || !isfinite(y) || x < p->x0 || x > p->x1) continue;
      int right = x >= p->x1 - fw * sx, left = x <= p->x0 + fw * sx;
      int high = y >= p->y1 - fh * sy, low = y <= p->y0 + fh * sy;
      count[HG_LEGEND_TOP_RIGHT] += right && high;
      count[HG_LEGEND_TOP_LEFT] += left && high;
      count[HG_LEGEND_BOTTOM_RIGHT] += right && low;
      count[HG_LEGEND_BOTTOM_LEFT] += left && low;
      if (right) top[0] = fmax(top[0], y);
      if (left) top[1] = fmax(top[1], y);
    }
  for (int c = 0; c < 4; c++)
    if (count[c] == 0) {
      p->corner = c;
      return;
    }
  /* raise y1 so that the band's highest point is a 2 % margin below the legend:
   * (ymax - y0) / (y1 - y0) = 1 - fh - 0.02 */
  int c = top[1] < top[0];
  p->corner = c ? HG_LEGEND_TOP_LEFT : HG_LEGEND_TOP_RIGHT;
  p->y1 = p->y0 + (top[c] - p->y0) / (1 - fh - 0.02);
}

double hg_plot_zoom_length(double dt) {
  return dt > 0 ? fmax(HG_PLOT_ZOOM_S, HG_PLOT_ZOOM_ROWS * dt) : HG_PLOT_ZOOM_S;
}

int hg_plot_zoom_range(const double *rows, int nrow, int width, int col, double te, double w,
                       int relative, int logscale, double *lo, double *hi) {
  double ref = NAN, a = te - HG_PLOT_ZOOM_PRE * w, b = te + w;
  *lo = INFINITY, *hi = -INFINITY;
  /* the reference: the value at the last row at or before the event, else the window's first */
  for (int r = 0; r < nrow; r++) {
    const double *row = rows + (size_t)r * (size_t)width;
    if (row[0] <= te && isfinite(row[col])) ref = row[col];
    if (isnan(ref) && row[0] >= a && row[0] <= b && isfinite(row[col])) ref = row[col];
  }
  if (!relative) ref = 0;
  for (int r = 0; r < nrow; r++) {
    const double *row = rows + (size_t)r * (size_t)width;
    double y = row[col] - ref;
    if (!(row[0] >= a && row[0] <= b) || !isfinite(y) || (logscale && !(y > 0))) continue;
    if (logscale) y = log10(y);
    *lo = fmin(*lo, y), *hi = fmax(*hi, y);
  }
  if (!(*lo <= *hi)) return 0;
  if (logscale) *lo = fmax(*lo, *hi - HG_PLOT_ZOOM_DECADES);
  hg_plot_pad(lo, hi, time_margin);
  return 1;
}

/* the value of column col at time t: that of the last row at or before t with a finite one */
static double value_at(const double *rows, int nrow, int width, int col, double t) {
  double v = NAN;
  for (int r = 0; r < nrow; r++) {
    const double *row = rows + (size_t)r * (size_t)width;
    if (row[0] <= t && isfinite(row[col])) v = row[col];
  }
  return v;
}

int hg_plot_separation_event(const double *rows, int nrow, int width, int col, double te,
                             double w) {
  double d0 = value_at(rows, nrow, width, col, te - w), d1 = value_at(rows, nrow, width, col, te);
  double d2 = value_at(rows, nrow, width, col, te + w);
  double before = isfinite(d0) && isfinite(d1) ? fmax(d1 - d0, 0) : 0;
  return isfinite(d1) && isfinite(d2) && d2 - d1 > HG_PLOT_APART_M && d2 - d1 > 2 * before;
}

void hg_plot_eigen_axis(const double *re, const double *im, int n, double *lo, double *hi) {
  double big = 0, a = 0, b = 0;
  for (int k = 0; k < n; k++) {
    if (!isfinite(re[k]) || !isfinite(im[k])) continue;
    big = fmax(big, hypot(re[k], im[k]));
    a = fmin(a, re[k]), b = fmax(b, re[k]);
  }
  if (big == 0) {
    *lo = -1, *hi = 1;
    return;
  }
  /* the data's 8 % pad, and never less than 5 % of the largest |lambda| on either side of 0 */
  double pad = 0.08 * (b - a);
  *lo = fmin(a - pad, -0.05 * big), *hi = fmax(b + pad, 0.05 * big);
}

void hg_plot_legend(int corner, int n, const char *const *labels, const int *col,
                    const int *sty, int boxes) {
  enum { MAXL = 64 };
  PLINT opt[MAXL], tcol[MAXL], lcol[MAXL], lsty[MAXL], bpat[MAXL];
  PLFLT lw[MAXL], bscale[MAXL], bw[MAXL], w, h;
  if (n > MAXL) n = MAXL;
  if (n < 1) return;
  PLINT ncolumn = legend_columns(n), nrow = (n + ncolumn - 1) / ncolumn;
  for (int l = 0; l < n; l++) {
    opt[l] = boxes ? PL_LEGEND_COLOR_BOX : PL_LEGEND_LINE;
    tcol[l] = HG_PLOT_AXES;
    lcol[l] = col[l];
    lsty[l] = sty ? sty[l] : 1;
    lw[l] = 2, bscale[l] = 0.6, bw[l] = 1, bpat[l] = 0;
  }
  PLINT pos = PL_POSITION_INSIDE;
  pos |= corner == HG_LEGEND_TOP_RIGHT || corner == HG_LEGEND_TOP_LEFT ? PL_POSITION_TOP
                                                                        : PL_POSITION_BOTTOM;
  pos |= corner == HG_LEGEND_TOP_RIGHT || corner == HG_LEGEND_BOTTOM_RIGHT ? PL_POSITION_RIGHT
                                                                           : PL_POSITION_LEFT;
  pllegend(&w, &h, PL_LEGEND_BACKGROUND | PL_LEGEND_BOUNDING_BOX | PL_LEGEND_ROW_MAJOR, pos,
           0.01, 0.02, 0.05, 0, HG_PLOT_GRID, 1, nrow, ncolumn, n, opt, 0.5, 0.75, 1.4, 0,
           tcol, labels, lcol, bpat, bscale, bw, lcol, lsty, lw, NULL, NULL, NULL, NULL);
}

void hg_plot_events(const double *t, const char *const *names, int n, double x0, double x1,
                    double y0, double y1) {
  plcol0(EVENT_COLOUR);
  plwidth(1.5);
  pllsty(2);
  for (int k = 0; k < n; k++) {
    if (!(t[k] >= x0 && t[k] <= x1)) continue;
    PLFLT x[2] = {t[k], t[k]}, y[2] = {y0, y1};
    plline(2, x, y);
  }
  pllsty(1);
  if (names && n <= HG_PLOT_EVENT_NAMES) {
    plschr(0, 0.7);
    for (int k = 0; k < n; k++)
      if (names[k] && t[k] >= x0 && t[k] <= x1)
        plptex(t[k] + 0.005 * (x1 - x0), y1 - 0.08 * (y1 - y0), 1, 0, 0, names[k]);
    plschr(0, 1);
  }
  plwidth(1);
}

/* the page being drawn: its name, and the temporary file PLplot writes (outfile.h) */
static hg_outfile page;

int hg_plot_open(const char *path, int width, int height, int ncol, int nrow) {
  /* PLplot exits the process on an unwritable file, so the temporary is made first */
  if (hg_outfile_replace(&page, path)) return -1;
  fclose(page.f); /* PLplot opens it again by its name */
  page.f = NULL;
  plsdev("pngcairo");
  plsfnam(page.tmp);
  plspage(0, 0, width, height, 0, 0);
  plscmap0(cmap_r, cmap_g, cmap_b, 16);
  plinit();
  plssub(ncol, nrow);
  return 0;
}

int hg_plot_end(char *msg, size_t len) {
  int cut = 0;
  if (page.tmp[0]) {
    plend();
    /* cairo's write errors do not reach PLplot's caller: the file itself says whether it is
     * whole; a full file system is the usual cause of a cut one */
    struct statvfs fs;
    if ((cut = !hg_png_complete(page.tmp)))
      page.err = statvfs(page.tmp, &fs) == 0 && fs.f_bavail == 0 ? ENOSPC : EIO;
    else if (rename(page.tmp, page.path))
      page.err = errno;
    if (page.err) unlink(page.tmp);
  }
  /* (a page that could not start has page.err from hg_plot_open and nothing to end) */
  int e = page.err;
  if (e && msg)
    snprintf(msg, len, "cannot write %s: %s%s", page.path, strerror(e),
             cut ? " (the PNG is incomplete)" : "");
  page.tmp[0] = 0;
  page.err = 0;
  return e;
}

void hg_plot_close(void) { hg_plot_end(NULL, 0); }

/* the house frame with the y axis options yopt of plbox */
static void frame(const double *viewport, double x0, double x1, double y0, double y1,
                  const char *xlabel, const char *ylabel, const char *title, const char *yopt) {
  pladv(0);
  if (viewport) plvpor(viewport[0], viewport[1], viewport[2], viewport[3]);
  else plvsta();
  plwind(x0, x1, y0, y1);
  plwidth(1);
  plcol0(HG_PLOT_GRID);
  plbox("g", 0, 0, "g", 0, 0);
  plcol0(HG_PLOT_AXES);
  plbox("bcnst", 0, 0, yopt, 0, 0);
  pllab(xlabel, ylabel, title);
}

void hg_plot_frame(const double *viewport, double x0, double x1, double y0, double y1,
                   const char *xlabel, const char *ylabel, const char *title) {
  frame(viewport, x0, x1, y0, y1, xlabel, ylabel, title, "bcnstv");
}

void hg_plot_frame_logy(const double *viewport, double x0, double x1, double y0, double y1,
                        const char *xlabel, const char *ylabel, const char *title) {
  frame(viewport, x0, x1, y0, y1, xlabel, ylabel, title, "bcnstvl");
}
