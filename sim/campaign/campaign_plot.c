/* campaign_plot.c: the campaign's plots (PLplot's cairo PNG device), one page per metric,
 * metric-NAME.png: its histogram over the runs that finished, then the metric against each
 * dispersed value (one point per run). Failed runs and missing values (NaN) are left out. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <plplot.h>

#include "campaign.h"
#include "plot_style.h"

#define PAGE_W 1200
#define PAGE_H 900
#define NBIN 30

/* the data's margins: 5 % of the span, a flat range 0.1 % of its magnitude */
static const hg_plot_margin margin = {0.05, 1e-12, 1e-3};

static void histogram(const double *y, int n, const char *name) {
  double lo, hi, centre[NBIN], count[NBIN] = {0}, top = 1;
  hg_plot_range(y, n, margin, &lo, &hi);
  double w = (hi - lo) / NBIN;
  for (int i = 0; i < n; i++) {
    int b = (int)((y[i] - lo) / w);
    count[b < 0 ? 0 : b >= NBIN ? NBIN - 1 : b] += 1;
  }
  for (int b = 0; b < NBIN; b++) centre[b] = lo + (b + 0.5) * w, top = fmax(top, count[b]);
  char title[160];
  snprintf(title, sizeof title, "%s: histogram of %d runs", name, n);
  hg_plot_frame(NULL, lo, hi, 0, 1.1 * top, name, "runs", title);
  plcol0(HG_PLOT_LINE0);
  plwidth(2);
  plbin(NBIN, centre, count, PL_BIN_CENTRED);
  plwidth(1);
}

static void scatter(const double *x, const double *y, int n, const char *xl, const char *yl) {
  double x0, x1, y0, y1;
  hg_plot_range(x, n, margin, &x0, &x1);
  hg_plot_range(y, n, margin, &y0, &y1);
  hg_plot_frame(NULL, x0, x1, y0, y1, xl, yl, "");
  plcol0(HG_PLOT_LINE0);
  plpoin(n, x, y, 17);
}

/* the page of metric j; 0, or -1 with err when the file cannot be written */
static int page(const hg_campaign *c, const hg_run_result *res, const unsigned char *done,
                int j, const char *dir, double *buf, hg_error *err) {
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
  int npanel = 1 + c->ndisp, ncol = (int)ceil(sqrt((double)npanel));
  int nrow = (npanel + ncol - 1) / ncol;
  if (hg_plot_open(path, PAGE_W, PAGE_H, ncol, nrow) < 0)
    return hg_plot_end(err ? err->msg : NULL, sizeof err->msg), -1;
  plschr(0, npanel > 4 ? 0.7 : 0.9);
  histogram(y, n, c->metric[j].name);
  for (int i = 0; i < c->ndisp; i++)
    scatter(x + (size_t)i * (size_t)c->runs, y, n, c->disp[i].path, c->metric[j].name);
  /* PLplot does not check its writes: the file is checked whole, or removed */
  return hg_plot_end(err ? err->msg : NULL, sizeof err->msg) ? -1 : 0;
}

int hg_campaign_write_plots(const hg_campaign *c, const hg_run_result *results,
                            const unsigned char *done, const char *dir, hg_error *err) {
  double *buf = malloc(sizeof(double) * (size_t)c->runs * (size_t)(c->ndisp + 1));
  if (!buf) return hg_error_fail(err, "out of memory");
  int rc = 0;
  for (int j = 0; j < c->nmetric && !rc; j++) rc = page(c, results, done, j, dir, buf, err);
  free(buf);
  return rc;
}
