/* plot_style.c: the house style of the PNG plots (see plot_style.h) */
#include "plot_style.h"

#include <math.h>
#include <stdio.h>

#include <plplot.h>

/* white background, black axes, light grey grid, then the line colours (Tableau 10) */
static const PLINT cmap_r[16] = {255, 0, 215, 31, 214, 44, 148, 255, 140, 23, 227, 188, 127,
                                 0, 0, 0};
static const PLINT cmap_g[16] = {255, 0, 215, 119, 39, 160, 103, 127, 86, 190, 119, 189, 127,
                                 0, 0, 0};
static const PLINT cmap_b[16] = {255, 0, 215, 180, 40, 44, 189, 14, 75, 207, 194, 34, 127,
                                 0, 0, 0};

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

int hg_plot_open(const char *path, int width, int height, int ncol, int nrow) {
  /* PLplot exits the process on an unwritable file, so check first */
  FILE *f = fopen(path, "wb");
  if (!f) return -1;
  fclose(f);
  plsdev("pngcairo");
  plsfnam(path);
  plspage(0, 0, width, height, 0, 0);
  plscmap0(cmap_r, cmap_g, cmap_b, 16);
  plinit();
  plssub(ncol, nrow);
  return 0;
}

void hg_plot_close(void) { plend(); }

void hg_plot_frame(const double *viewport, double x0, double x1, double y0, double y1,
                   const char *xlabel, const char *ylabel, const char *title) {
  pladv(0);
  if (viewport) plvpor(viewport[0], viewport[1], viewport[2], viewport[3]);
  else plvsta();
  plwind(x0, x1, y0, y1);
  plwidth(1);
  plcol0(HG_PLOT_GRID);
  plbox("g", 0, 0, "g", 0, 0);
  plcol0(HG_PLOT_AXES);
  plbox("bcnst", 0, 0, "bcnstv", 0, 0);
  pllab(xlabel, ylabel, title);
}
