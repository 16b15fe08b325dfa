/* campaign_plot.c: the campaign's plots (PLplot's cairo PNG device), one page per metric,
 * metric-NAME.png: its histogram over the runs that finished, then the metric against each
 * dispersed value (one point per run). Failed runs and missing values (NaN) are left out. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <plplot.h>

#include "campaign.h"

#define PAGE_W 1200
#define PAGE_H 900
#define NBIN 30

/* white background, black axes, grey grid, blue bars and points */
static const PLINT cmap_r[4] = {255, 0, 200, 31}, cmap_g[4] = {255, 0, 200, 119},
                   cmap_b[4] = {255, 0, 200, 180};

/* [lo, hi] of n values, padded when flat */
static void range(const double *x, int n, double *lo, double *hi) {
  *lo = INFINITY, *hi = -INFINITY;
  for (int i = 0; i < n; i++) *lo = fmin(*lo, x[i]), *hi = fmax(*hi, x[i]);
  double pad = 0.05 * (*hi - *lo), mag = fmax(fabs(*lo), fabs(*hi));
  if (!(pad > 1e-12 * mag)) pad = mag > 0 ? 1e-3 * mag : 1;
  *lo -= pad, *hi += pad;
}

/* axes of one panel */
static void axes(double x0, double x1, double y0, double y1, const char *xl, const char *yl,
                 const char *title) {
  pladv(0);
  plvsta();
  plwind(x0, x1, y0, y1);
  plcol0(2);
  plbox("g", 0, 0, "g", 0, 0);
  plcol0(1);
  plbox("bcnst", 0, 0, "bcnstv", 0, 0);
  pllab(xl, yl, title);
}

static void histogram(const double *y, int n, const char *name) {
  double lo, hi, centre[NBIN], count[NBIN] = {0}, top = 1;
  range(y, n, &lo, &hi);
  double w = (hi - lo) / NBIN;
  for (int i = 0; i < n; i++) {
    int b = (int)((y[i] - lo) / w);
    count[b < 0 ? 0 : b >= NBIN ? NBIN - 1 : b] += 1;
  }
  for (int b = 0; b < NBIN; b++) centre[b] = lo + (b + 0.5) * w, top = fmax(top, count[b]);
  char title[160];
  snprintf(title, sizeof title, "%s: histogram of %d runs", name, n);
  axes(lo, hi, 0, 1.1 * top, name, "runs", title);
  plcol0(3);
  plwidth(2);
  plbin(NBIN, centre, count, PL_BIN_CENTRED);
  plwidth(1);
}

static void scatter(const double *x, const double *y, int n, const char *xl, const char *yl) {
  double x0, x1, y0, y1;
  range(x, n, &x0, &x1);
  range(y, n, &y0, &y1);
  axes(x0, x1, y0, y1, xl, yl, "");
  plcol0(3);
  plpoin(n, x, y, 17);
}

/* the page of metric j; 0, or -1 when the file cannot be written */
static int page(const hg_campaign *c, const hg_run_result *res, const unsigned char *done,
                int j, const char *dir, double *buf) {
  char path[4400], name[128];
  snprintf(name, sizeof name, "%s", c->metric[j].name);
  for (char *p = name; *p; p++)
    if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
          *p == '_' || *p == '-'))
      *p = '_';
  snprintf(path, sizeof path, "%s/metric-%s.png", dir, name);
  /* the runs with a value: y, then each dispersed value's column */
  int n = 0;
  double *y = buf, *x = buf + c->runs;
  for (int k = 0; k < c->runs; k++) {
    if (!done[k] || !res[k].ok || !isfinite(res[k].metric[j])) continue;
    y[n] = res[k].metric[j];
    for (int i = 0; i < c->ndisp; i++) x[(size_t)i * (size_t)c->runs + (size_t)n] = res[k].param[i];
    n++;
  }
  remove(path);
  if (n < 2) return 0; /* nothing to draw */
  /* PLplot exits the process on an unwritable file, so check first */
  FILE *f = fopen(path, "wb");
  if (!f) return -1;
  fclose(f);
  int npanel = 1 + c->ndisp, ncol = (int)ceil(sqrt((double)npanel));
  int nrow = (npanel + ncol - 1) / ncol;
  plsdev("pngcairo");
  plsfnam(path);
  plspage(0, 0, PAGE_W, PAGE_H, 0, 0);
  plscmap0(cmap_r, cmap_g, cmap_b, 4);
  plinit();
  plssub(ncol, nrow);
  plschr(0, npanel > 4 ? 0.7 : 0.9);
  histogram(y, n, c->metric[j].name);
  for (int i = 0; i < c->ndisp; i++)
    scatter(x + (size_t)i * (size_t)c->runs, y, n, c->disp[i].path, c->metric[j].name);
  plend();
  return 0;
}

int hg_campaign_write_plots(const hg_campaign *c, const hg_run_result *results,
                            const unsigned char *done, const char *dir) {
  double *buf = malloc(sizeof(double) * (size_t)c->runs * (size_t)(c->ndisp + 1));
  if (!buf) return -1;
  int rc = 0;
  for (int j = 0; j < c->nmetric && !rc; j++) rc = page(c, results, done, j, dir, buf);
  free(buf);
  return rc;
}
