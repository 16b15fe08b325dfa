/* plot_style.h: the house style of hinge's PNG plots, drawn with PLplot's cairo PNG device
 * ("pngcairo"): one colour map, the frame of a panel, a padded data range, and a page's set-up
 * and teardown. The run's plots (plot.c), the campaign's and `hinge linearize`'s draw with it.
 * This header does not include <plplot.h>: code that draws includes it itself, code that does
 * not draw need not have PLplot. */
#ifndef HINGE_PLOT_STYLE_H
#define HINGE_PLOT_STYLE_H

#include <stddef.h>

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
 * end the process on it). PLplot draws into a temporary file beside path. Each page started
 * ends with hg_plot_end or hg_plot_close. */
int hg_plot_open(const char *path, int width, int height, int ncol, int nrow);
/* (after hg_plot_open failed, hg_plot_end gives its message and errno) */
/* ends the page: the temporary file, when it is a whole PNG (hg_png_complete), renamed over
 * path; otherwise removed, with "cannot write PATH: REASON (the PNG is incomplete)" in msg (NULL:
 * no message). 0, or the errno of the failure: ENOSPC when the file system has no free block
 * left, EIO for another cut, rename's errno. */
int hg_plot_end(char *msg, size_t len);

/* ---- what a panel shows (no drawing: these decide, the tests check them) ---- */

/* the corner of the box a legend sits in, inside the box (a legend outside it is clipped at the
 * page's edge by long labels) */
enum { HG_LEGEND_TOP_RIGHT, HG_LEGEND_TOP_LEFT, HG_LEGEND_BOTTOM_RIGHT, HG_LEGEND_BOTTOM_LEFT };

/* a time panel's world window and legend */
typedef struct hg_plot_plan {
  double x0, x1, y0, y1; /* the window: x the time axis, y the values (padded) */
  int data;              /* 1 when some line has a finite value */
  int legend;            /* 1: a legend (every panel with a line has one, one line too) */
  int corner;            /* HG_LEGEND_*: where it covers none of the lines (hg_plot_place_legend) */
} hg_plot_plan;

/* The plan of a panel drawing columns cols[0..ncol) of the row-major table rows (nrow x width,
 * column 0 the time) against time. The time axis spans every row with a finite time (a line
 * that ends, a load that stops at a release, leaves its gap visible, and every panel of a run
 * shares one axis); y spans the lines' finite values, padded 5 % (a flat line: 1e-6 of its
 * magnitude, or 1), then the legend is placed (hg_plot_place_legend). */
void hg_plot_time_plan(const double *rows, int nrow, int width, const int *cols, int ncol,
                       hg_plot_plan *p);

/* the part of the box's width and height a legend of n lines is given (hg_plot_legend: up to
 * four lines in one column, then two, beyond eight three; about 0.09 of a short panel a row) */
void hg_plot_legend_size(int n, double *fw, double *fh);

/* one line of a panel, for placing its legend: column col of the row-major table rows (nrow x
 * width, column 0 the time), drawn at (t - shift, y - ref) */
typedef struct hg_plot_line {
  const double *rows;
  int nrow, width, col;
  double shift, ref;
} hg_plot_line;

/* Places the legend of the n lines of p (y as log10 when logy). The first corner, in HG_LEGEND_*
 * order, whose legend box (hg_plot_legend_size) holds no point of the lines takes it. When every
 * corner holds some, the top corner whose band (the legend's width from the box's side) has the
 * lower highest point takes it, and y1 is raised until that point lies below the legend: the
 * lines keep clear of it, at the cost of some height. */
void hg_plot_place_legend(hg_plot_plan *p, const hg_plot_line *lines, int n, int logy);

/* The zoom panels after an event show the window [te - HG_PLOT_ZOOM_PRE w, te + w]: at least
 * HG_PLOT_ZOOM_ROWS output rows and at least HG_PLOT_ZOOM_S seconds, short enough that a
 * spring's push-off stroke (a tenth of a second) is a visible part of it. */
#define HG_PLOT_ZOOM_S 1.0
#define HG_PLOT_ZOOM_ROWS 20
#define HG_PLOT_ZOOM_PRE 0.1
/* a log axis of the zoom spans at most this many decades below its largest value */
#define HG_PLOT_ZOOM_DECADES 4

/* the window's length w after an event for output rows dt apart (dt <= 0: HG_PLOT_ZOOM_S) */
double hg_plot_zoom_length(double dt);

/* The range [*lo, *hi] of column col of the table over the rows with te - HG_PLOT_ZOOM_PRE w <=
 * t <= te + w: of the value itself (relative 0) or of its change from the value at the last row
 * at or before te (relative 1), padded as hg_plot_time_plan pads; with logscale 1, of log10 of
 * the positive values instead (a distance that grows from a centimetre stroke to metres shows
 * both), at most HG_PLOT_ZOOM_DECADES below the largest, padded 5 %. 0 when no row has a
 * (positive) finite value there. */
int hg_plot_zoom_range(const double *rows, int nrow, int width, int col, double te, double w,
                       int relative, int logscale, double *lo, double *hi);

/* 1 when the event at te starts or speeds up a separation: the distance in column col grows
 * over the window w after te by more than HG_PLOT_APART_M and by more than twice what it grew
 * over the same length before te (values at a time: those of the last row at or before it) */
#define HG_PLOT_APART_M 1e-3
int hg_plot_separation_event(const double *rows, int nrow, int width, int col, double te,
                             double w);

/* The real axis of the eigenvalue plane for eigenvalues re + i im (n of them): it always holds
 * Re = 0, the stability boundary, and at least +-5 % of the largest |lambda| on either side of
 * it, so that real parts of rounding size (1e-16 of |lambda|, stable poles on the imaginary
 * axis) sit on the boundary instead of filling an axis of +-1e-16 that makes them look unstable;
 * real parts further out widen it, padded 8 %. [-1, 1] when every eigenvalue is 0. */
void hg_plot_eigen_axis(const double *re, const double *im, int n, double *lo, double *hi);

/* ---- drawing ---- */

/* the legend of n lines (PLplot colour map 0 colours col[], line styles sty[]; boxes 1: colour
 * boxes instead of lines), inside the current box in the given corner, on a white background */
void hg_plot_legend(int corner, int n, const char *const *labels, const int *col,
                    const int *sty, int boxes);

/* vertical dashed markers at the times t[0..n) that lie in [x0, x1], over [y0, y1], each named
 * by names[k] at the top of the box when n <= HG_PLOT_EVENT_NAMES (names may be NULL) */
#define HG_PLOT_EVENT_NAMES 6
void hg_plot_events(const double *t, const char *const *names, int n, double x0, double x1,
                    double y0, double y1);

/* hg_plot_frame with a log10 y axis (the world window's y0, y1 are log10 of the values) */
void hg_plot_frame_logy(const double *viewport, double x0, double x1, double y0, double y1,
                        const char *xlabel, const char *ylabel, const char *title);

/* writes and ends the page hg_plot_open started (hg_plot_end without its message) */
void hg_plot_close(void);

/* starts the next panel of the page: its viewport (xmin, xmax, ymin, ymax of the subpage, or
 * NULL for PLplot's standard one), world window [x0, x1] x [y0, y1], grey grid, black box with
 * ticks and numbers, axis labels and title */
void hg_plot_frame(const double *viewport, double x0, double x1, double y0, double y1,
                   const char *xlabel, const char *ylabel, const char *title);

#endif
