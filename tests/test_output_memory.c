/* test_output_memory.c: a run's outputs keep a bounded memory whatever the number of rows:
 *   - the plots' series (hg_series_push, sim/output/run_outputs.h) keep at most HG_SERIES_ROWS
 *     rows; past that they keep the largest and the smallest value of each bucket of rows, so a
 *     one-row spike, the extremes, the first and the last time survive, the times stay in order
 *     and a stretch of missing values stays missing;
 *   - a run writing its files keeps no memory per row: the heap in use (mallinfo2) grows by less
 *     than 8 bytes per output row, without plots between 2000 and 12000 rows, with plots between
 *     10000 and 30000 (past the bound); each row kept cost about 158 bytes before the series
 *     were bounded, and a run without plots kept them too. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <malloc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "files.h"
#include "output.h"
#include "run_outputs.h"
#include "sims.h"

static void series_bounded_keeps_extremes(void **state) {
  (void)state;
  hg_series s = {.width = 3, .stride = 1};
  const long n = 1000003; /* not a multiple of any bucket */
  double lo = INFINITY, hi = -INFINITY;
  for (long r = 0; r < n; r++) {
    double row[3] = {0.01 * (double)r, sin(1e-3 * (double)r), (double)r};
    if (r == 543210) row[1] = 1e3;                  /* a one-row spike */
    if (r == 765432) row[1] = -2e3;                 /* and a dip */
    if (r >= 300000 && r < 400000) row[2] = NAN;    /* a stretch of missing values */
    lo = fmin(lo, row[1]), hi = fmax(hi, row[1]);
    assert_int_equal(hg_series_push(&s, row), 0);
    assert_true(s.n <= HG_SERIES_ROWS);
  }
  assert_true(s.n >= HG_SERIES_ROWS / 4);
  double klo = INFINITY, khi = -INFINITY;
  int missing = 0;
  for (int r = 0; r < s.n; r++) {
    const double *row = s.x + 3 * (size_t)r;
    if (r > 0) assert_true(row[0] >= row[-3]);
    klo = fmin(klo, row[1]), khi = fmax(khi, row[1]);
    /* the missing stretch: missing rows inside it, none outside (buckets at its ends have a
     * value) */
    if (isnan(row[2])) {
      missing++;
      assert_true(row[0] >= 0.01 * 300000 && row[0] < 0.01 * 400000);
    }
  }
  assert_true(missing > 0);
  assert_true(klo == lo && khi == hi);
  assert_true(s.x[0] == 0 && s.x[3 * (size_t)(s.n - 1)] == 0.01 * (double)(n - 1));
  free(s.x);
  /* an exact series keeps every row */
  hg_series e = {.width = 1, .exact = 1};
  for (int r = 0; r < 3 * HG_SERIES_ROWS; r++) {
    double t = r;
    assert_int_equal(hg_series_push(&e, &t), 0);
  }
  assert_int_equal(e.n, 3 * HG_SERIES_ROWS);
  free(e.x);
}

/* the heap in use after running the pendulum with outputs to t1, then to t2 (output rows every
 * 0.01 s): bytes per row between them */
static double bytes_per_row(int plots, double t1, double t2) {
  char dir[256];
  hg_error err;
  hg_sim_options opt;
  hg_output_options oo;
  assert_int_equal(hg_test_temp_dir("output_memory", dir, sizeof dir), 0);
  hg_scene *s = hg_test_shipped("pendulum");
  hg_sim_default_options(&opt);
  opt.t_end = t2;
  opt.rtol = 1e-6; /* (a quick run: the rows matter here, not the trajectory) */
  opt.out_dir = dir;
  hg_sim *sim = hg_sim_new(s, &opt, &err);
  assert_non_null(sim);
  hg_output_default_options(&oo);
  oo.dir = dir;
  oo.plots = plots;
  assert_int_equal(hg_output_attach(sim, &oo, &err), 0);
  assert_int_equal(hg_sim_run(sim, t1), HG_SIM_OK);
  size_t a = mallinfo2().uordblks;
  assert_int_equal(hg_sim_run(sim, t2), HG_SIM_OK);
  size_t b = mallinfo2().uordblks;
  assert_int_equal(hg_sim_finish(sim), HG_SIM_OK);
  hg_sim_free(sim);
  hg_scene_free(s);
  hg_test_remove_dir(dir);
  double per = ((double)b - (double)a) / (100 * (t2 - t1));
  printf("plots %d: heap %zu -> %zu bytes, %.2f bytes per row\n", plots, a, b, per);
  return per;
}

static void run_keeps_no_memory_per_row(void **state) {
  (void)state;
  /* 8 bytes a row: far below one kept row (158 bytes), above the allocator's noise. Without
   * plots nothing is kept from the start; with plots the series fill up to HG_SERIES_ROWS rows
   * (8192), then stay at that size */
  assert_true(bytes_per_row(0, 20, 120) < 8);
  assert_true(bytes_per_row(1, 100, 300) < 8);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(series_bounded_keeps_extremes),
      cmocka_unit_test(run_keeps_no_memory_per_row),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
