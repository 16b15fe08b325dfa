/* plot_style.h: the house style of hinge's PNG plots, drawn with PLplot's cairo PNG device
 * ("pngcairo"): one colour map, the frame of a panel, a padded data range, and a page's set-up
 * and teardown. The run's plots (plot.c), the campaign's and `hinge linearize`'s draw with it.
 * This header does not include <plplot.h>: code that draws includes it itself, code that does
 * not draw need not have PLplot. */
#ifndef HINGE_PLOT_STYLE_H
#define HINGE_PLOT_STYLE_H

/* the colours of the map hg_plot_open sets (PLplot colour map 0 indices, for plcol0): index 0 is
 * the white background; the lines take HG_PLOT_LINE0 + k % HG_PLOT_NLINES */
enum { HG_PLOT_AXES = 1, HG_PLOT_GRID = 2, HG_PLOT_LINE0 = 3, HG_PLOT_NLINES = 10 };

/* how far a range is widened at each end */
typedef struct hg_plot_margin {
  double frac;  /* times the span */
  double tiny;  /* a margin at most tiny times the range's magnitude counts as flat ... */
  double flat;  /* ... and is flat times the magnitude instead (1 when the magnitude is 0) */
} hg_plot_margin;

/* [*lo, *hi] widened by the margin m at each end */
void hg_plot_pad(double *lo, double *hi, hg_plot_margin m);

/* the range of the finite values of x[0..n) ([-1, 1] when there are none), widened by m */
void hg_plot_range(const double *x, int n, hg_plot_margin m, double *lo, double *hi);

/* starts the PNG page path, width x height pixels, with the house colour map and ncol x nrow
 * panels; 0, or -1 when the file cannot be written (then nothing is started: PLplot would
 * end the process on it). Each page started ends with hg_plot_close. */
int hg_plot_open(const char *path, int width, int height, int ncol, int nrow);

/* writes and ends the page hg_plot_open started */
void hg_plot_close(void);

/* starts the next panel of the page: its viewport (xmin, xmax, ymin, ymax of the subpage, or
 * NULL for PLplot's standard one), world window [x0, x1] x [y0, y1], grey grid, black box with
 * ticks and numbers, axis labels and title */
void hg_plot_frame(const double *viewport, double x0, double x1, double y0, double y1,
                   const char *xlabel, const char *ylabel, const char *title);

#endif
