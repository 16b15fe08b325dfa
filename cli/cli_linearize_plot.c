/* cli_linearize_plot.c: modes.png of `hinge linearize`, drawn with PLplot's cairo PNG device:
 * the eigenvalues of A in the complex plane (the real axis chosen by hg_plot_eigen_axis, the
 * stability boundary Re = 0 drawn), and the shapes of the first elastic modes of
 * K phi = w^2 M phi against the free DoFs, named as the columns of modes_undamped.csv. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <plplot.h>

#include "cli.h"
#include "linearize.h"
#include "plot_style.h"

#define TWO_PI 6.283185307179586476925

#define NSHAPES 6

/* the data's margins: 8 % of the span, a flat range 10 % of its magnitude */
static const hg_plot_margin margin = {0.08, 1e-9, 0.1};

/* the panels' viewport */
static const double viewport[4] = {0.1, 0.95, 0.15, 0.88};

/* at most this many names along the shapes' axis (every k-th state beyond), each of at most
 * NAME_CHARS characters; below the axis a name takes NAME_ROOM of the panel's height a
 * character (measured on the 1000 x 900 page at character scale 0.7) */
#define NNAMES 40
#define NAME_CHARS 28
#define NAME_ROOM 0.0146

/* the eigenvalues of A as points */
static void eigen_panel(int n, const double *re, const double *im) {
  double x0, x1, y0, y1;
  hg_plot_eigen_axis(re, im, n, &x0, &x1);
  hg_plot_range(im, n, margin, &y0, &y1);
  hg_plot_frame(viewport, x0, x1, y0, y1, "Re #gl [1/s]", "Im #gl [rad/s]",
                "eigenvalues of A (dashed: Re #gl = 0, stable to its left)");
  /* the stability boundary */
  PLFLT bx[2] = {0, 0}, by[2] = {y0, y1};
  plcol0(HG_PLOT_AXES);
  pllsty(2);
  plline(2, bx, by);
  pllsty(1);
  plcol0(HG_PLOT_LINE0 + 1);
  plssym(0, 1.5);
  for (int k = 0; k < n; k++) {
    PLFLT x = re[k], y = im[k];
    plpoin(1, &x, &y, 4);
  }
}

/* the first elastic mode shapes (w^2 above 1e-8 of the largest) against the states, named */
static void shape_panel(int nf, const double *w2, const double *Phi, const char *const *names) {
  int first = 0, count = 0;
  double wmax = 0, lo = INFINITY, hi = -INFINITY;
  for (int k = 0; k < nf; k++) wmax = fmax(wmax, fabs(w2[k]));
  while (first < nf && fabs(w2[first]) <= 1e-8 * wmax) first++;
  count = nf - first < NSHAPES ? nf - first : NSHAPES;
  for (int k = first; k < first + count; k++)
    for (int a = 0; a < nf; a++)
      lo = fmin(lo, Phi[(size_t)a * nf + k]), hi = fmax(hi, Phi[(size_t)a * nf + k]);
  if (!(lo <= hi)) lo = -1, hi = 1;
  double pad = 0.08 * (hi - lo);
  if (!(pad > 1e-9 * fmax(fabs(lo), fabs(hi)))) pad = fmax(0.1 * fmax(fabs(lo), fabs(hi)), 1e-3);
  /* the labels get a band of their own above the shapes, one row per mode */
  double row = 0.1 * (hi - lo + 2 * pad), top = hi + pad + count * row;
  /* the house frame (plot_style.h) without numbers on x: the states' names instead, with room
   * below for the longest */
  size_t longest = 0;
  for (int a = 0; a < nf; a++) longest = fmax(longest, strlen(names[a]));
  if (longest > NAME_CHARS) longest = NAME_CHARS;
  pladv(0);
  plvpor(viewport[0], viewport[1], 0.06 + NAME_ROOM * (double)longest, viewport[3]);
  plwind(0.5, nf + 0.5, lo - pad, top);
  plwidth(1);
  plcol0(HG_PLOT_GRID);
  plbox("g", 1, 0, "g", 0, 0);
  plcol0(HG_PLOT_AXES);
  plbox("bct", 1, 0, "bcnstv", 0, 0);
  pllab("", "#gf (M-normalized)",
        count ? "elastic mode shapes, K #gf = #gw#u2#d M #gf" : "no elastic modes");
  int every = (nf + NNAMES - 1) / NNAMES;
  plschr(0, 0.7);
  for (int a = 0; a < nf; a += every) {
    char name[NAME_CHARS + 1];
    snprintf(name, sizeof name, "%s", names[a]);
    plmtex("bv", 0.8, (a + 0.5) / nf, 1, name);
  }
  plschr(0, 1);
  PLFLT x[1024], y[1024];
  int n = nf < 1024 ? nf : 1024;
  for (int c = 0; c < count; c++) {
    char label[64];
    double w = sqrt(fabs(w2[first + c])) / (TWO_PI);
    for (int a = 0; a < n; a++) x[a] = a + 1, y[a] = Phi[(size_t)a * nf + first + c];
    plcol0(HG_PLOT_LINE0 + c % HG_PLOT_NLINES);
    plwidth(2);
    plline(n, x, y);
    plpoin(n, x, y, 17);
    snprintf(label, sizeof label, "mode %d: %.4g Hz", first + c + 1, w);
    plptex(0.5 + 0.02 * nf, top - (c + 0.75) * row, 1, 0, 0, label);
  }
  plwidth(1);
}

int hg_cli_linearize_plot(const char *path, const hg_model *m, const hg_linear *L, int n,
                          const double *re, const double *im, const double *w2,
                          const double *Phi, const char *const *names) {
  (void)m;
  char msg[4400];
  if (hg_plot_open(path, 1000, 900, 1, w2 ? 2 : 1) < 0) {
    hg_plot_end(msg, sizeof msg);
    return fprintf(stderr, "hinge: %s\n", msg), -1;
  }
  eigen_panel(n, re, im);
  if (w2) shape_panel(L->nf, w2, Phi, names);
  /* a PNG the disk cut short is removed, not left as if whole */
  if (hg_plot_end(msg, sizeof msg)) return fprintf(stderr, "hinge: %s\n", msg), -1;
  return 0;
}
