/* test_plot_style.c: what the plots show, decided before anything is drawn (plot_style.h):
 *   - modes.png's real axis holds Re = 0 and +-5 % of the largest |lambda|: stable poles whose
 *     real parts are rounding (1e-16) sit on the boundary, not on an axis of +-1e-16 that shows
 *     them as unstable; real parts further out (stable, unstable) stay inside the axis;
 *   - a time panel has a legend with one line too, spans every output time (a load that stops
 *     at a release leaves its gap, the axis goes on), puts its legend in a corner its lines
 *     leave free, and when none is free raises its axis until the lines pass under it;
 *   - separation.png's zoom after a spring push-off: a heat-shield-like separation (a 1 m/s
 *     stroke over 0.07 s, then 5 m/s^2 of differential drag to 17 m/s, 300 m apart at the end)
 *     is invisible on the run's linear axes and a visible part of the zoom's axes; the release
 *     counts as a separation event, an instant of steady drift or of rest does not.
 * No drawing: PLplot is not called. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>

#include "plot_style.h"

/* ---- modes.png's real axis ---- */

static void eigen_axis_rounding(void **state) {
  (void)state;
  /* an undamped structure: +-i w with real parts of rounding size, of either sign */
  const double re[4] = {2.8e-16, 2.8e-16, -8.6e-16, -8.6e-16};
  const double im[4] = {1.0, -1.0, 2.5, -2.5};
  double lo, hi;
  hg_plot_eigen_axis(re, im, 4, &lo, &hi);
  /* 5 % of the largest |lambda| (2.5) either side of 0 */
  assert_true(lo <= -0.125 && hi >= 0.125);
  /* the poles sit within 1e-14 of the axis' width from the boundary: on it, to the eye */
  assert_true(fabs(re[0]) / (hi - lo) < 1e-14);
}

static void eigen_axis_spread(void **state) {
  (void)state;
  /* a damped pair at -2, an unstable real pole at +1, the rest on the boundary */
  const double re[5] = {-2, -2, 1, 1e-16, 1e-16};
  const double im[5] = {3, -3, 0, 4, -4};
  double lo, hi;
  hg_plot_eigen_axis(re, im, 5, &lo, &hi);
  assert_true(lo < -2 && hi > 1);
  /* every eigenvalue 0 (a free body): a unit axis */
  const double z[2] = {0, 0};
  hg_plot_eigen_axis(z, z, 2, &lo, &hi);
  assert_true(lo == -1 && hi == 1);
}

/* ---- time panels ---- */

/* a two-column table (time, value) of n rows at t = k dt */
static double *table(int n, double dt, double (*f)(double)) {
  double *x = malloc(2 * (size_t)n * sizeof(double));
  assert_non_null(x);
  for (int k = 0; k < n; k++) x[2 * k] = k * dt, x[2 * k + 1] = f(k * dt);
  return x;
}

/* a lock's load until its release at 17 s, missing after it */
static double latch_load(double t) { return t < 17 ? 7850 : NAN; }
static double ramp(double t) { return t; }

static void time_plan(void **state) {
  (void)state;
  const int col = 1;
  hg_plot_plan p;
  double *x = table(801, 0.05, latch_load);
  hg_plot_time_plan(x, 801, 2, &col, 1, &p);
  assert_int_equal(p.legend, 1);
  assert_int_equal(p.data, 1);
  /* the axis spans the run, not only the rows with a value */
  assert_true(p.x0 == 0 && fabs(p.x1 - 40) < 1e-12);
  /* a flat line still gets a range around it */
  assert_true(p.y0 < 7850 && p.y1 > 7850);
  free(x);
  /* a line rising from bottom left to top right leaves the top left free (the first of the
   * empty corners in HG_LEGEND_* order after the top right) */
  x = table(101, 0.1, ramp);
  hg_plot_time_plan(x, 101, 2, &col, 1, &p);
  assert_int_equal(p.corner, HG_LEGEND_TOP_LEFT);
  free(x);
}

/* an energy page: the potential and total near the top and the kinetic near the bottom all the
 * run long leave no corner free; the axis is raised so that the lines pass under the legend */
static void legend_headroom(void **state) {
  (void)state;
  enum { N = 401 };
  static double x[4 * N];
  const int cols[3] = {1, 2, 3};
  for (int k = 0; k < N; k++) {
    double t = 0.1 * k;
    x[4 * k] = t, x[4 * k + 1] = 1e4 * t;                        /* kinetic, ~0 to 4e5 */
    x[4 * k + 2] = 8.7e7 - 3.75e5 * t, x[4 * k + 3] = 8.7e7 - 3.65e5 * t; /* potential, total */
  }
  hg_plot_plan p;
  hg_plot_time_plan(x, N, 4, cols, 3, &p);
  double fw, fh, top = 8.7e7;
  hg_plot_legend_size(3, &fw, &fh);
  assert_true(p.corner == HG_LEGEND_TOP_RIGHT || p.corner == HG_LEGEND_TOP_LEFT);
  /* the highest point of the legend's band lies below the legend's bottom edge; at the right
   * that is the lines' value at the end of the run */
  if (p.corner == HG_LEGEND_TOP_RIGHT) top = 8.7e7 - 3.65e5 * 40 * (1 - fw);
  assert_true((top - p.y0) / (p.y1 - p.y0) <= 1 - fh + 1e-12);
}

/* ---- separation.png's zoom ---- */

#define T_RELEASE 16.98
#define T_END 40.0
#define DT 0.05

/* relative speed: 0 while latched, the springs' 1 m/s over 0.07 s, then 5 m/s^2 to 17 m/s */
static double speed(double t) {
  double s = t - T_RELEASE;
  if (s <= 0) return 0;
  return fmin(fmin(s / 0.07, 1) + 5 * s, 17);
}

/* time, distance, speed at the output rows (distance: the speed integrated by the trapezoidal
 * rule on 1000 substeps a row) */
static double *separation(int *n) {
  *n = (int)(T_END / DT) + 1;
  double *x = malloc(3 * (size_t)*n * sizeof(double)), d = 0;
  assert_non_null(x);
  for (int k = 0; k < *n; k++) {
    double t = k * DT;
    if (k > 0)
      for (int j = 0; j < 1000; j++) {
        double a = t - DT + j * DT / 1000, b = a + DT / 1000;
        d += 0.5 * (speed(a) + speed(b)) * (b - a);
      }
    x[3 * k] = t, x[3 * k + 1] = d, x[3 * k + 2] = speed(t);
  }
  return x;
}

static void zoom_shows_stroke(void **state) {
  (void)state;
  int n, cd = 1, cv = 2;
  double *x = separation(&n);
  double w = hg_plot_zoom_length(DT), lo, hi;
  /* 20 rows of 0.05 s: 1 s; sparser rows lengthen it */
  assert_true(fabs(w - 1.0) < 1e-12);
  assert_true(fabs(hg_plot_zoom_length(0.5) - 10.0) < 1e-12);
  /* the run's linear axes: the 5 cm stroke is under 1e-3 of the distance axis, the 1 m/s under
   * 7 % of the speed axis */
  hg_plot_plan p;
  hg_plot_time_plan(x, n, 3, &cd, 1, &p);
  assert_true(p.y1 - p.y0 > 300 && 0.05 / (p.y1 - p.y0) < 1e-3);
  hg_plot_time_plan(x, n, 3, &cv, 1, &p);
  assert_true(1.0 / (p.y1 - p.y0) < 0.07);
  /* the zoom's log axis of the distance change: 5 cm at least a fifth of the axis up from its
   * bottom, the largest change (about 3 m) inside it */
  assert_int_equal(hg_plot_zoom_range(x, n, 3, cd, T_RELEASE, w, 1, 1, &lo, &hi), 1);
  assert_true((log10(0.05) - lo) / (hi - lo) > 0.2);
  assert_true(hi > log10(3.0) && hi - lo <= HG_PLOT_ZOOM_DECADES * 1.2);
  /* the zoom's linear speed axis: 1 m/s is more than a tenth of it */
  assert_int_equal(hg_plot_zoom_range(x, n, 3, cv, T_RELEASE, w, 0, 0, &lo, &hi), 1);
  assert_true(1.0 / (hi - lo) > 0.1 && lo <= 0);
  /* the release starts the separation; steady drift at 30 s and rest at 5 s do not */
  assert_int_equal(hg_plot_separation_event(x, n, 3, cd, T_RELEASE, w), 1);
  assert_int_equal(hg_plot_separation_event(x, n, 3, cd, 30, w), 0);
  assert_int_equal(hg_plot_separation_event(x, n, 3, cd, 5, w), 0);
  free(x);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(eigen_axis_rounding),
      cmocka_unit_test(eigen_axis_spread),
      cmocka_unit_test(time_plan),
      cmocka_unit_test(legend_headroom),
      cmocka_unit_test(zoom_shows_stroke),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
