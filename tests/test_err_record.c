/* test_err_record.c: the bounded record of a controller's pointing error (sim/output/
 * err_record.h) against the exact maximum over the last half of the run, recomputed from the
 * same synthetic steps: a short run (every step of its last half kept: exact, with its count), a
 * long settling run (a decreasing error, 100 Hz for a simulated day: the straddling bin may
 * raise the answer, which must then lie between the window's max and the max from the bin's
 * start, flagged, the widening under 2 (t - t0) / HG_ERR_BINS), a long growing and spiking one
 * (exact), the answer checked at
 * many ends of the run, and the memory: at most HG_ERR_EXACT steps' worth, no allocation once
 * binned (tests/support/allocs.c counts them). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>

#include "allocs.h"
#include "err_record.h"

typedef double (*err_fn)(long k);

static const double T0 = 10.0, DT = 0.01; /* a controller at 100 Hz from t = 10 s */

static double settling(long k) { return 5.0 * exp(-(double)k * DT / 3600.0); }

/* growing, with a spike every 12345 steps: the spikes' own steps decide the max */
static double spiking(long k) {
  return 1e-6 * (double)k + (k % 12345 == 0 ? 100.0 + 1e-3 * (double)(k / 12345) : 0.0);
}

static double step_t(long k) { return T0 + (double)k * DT; }

/* the exact max and count of steps 0..last from t_from on */
static double exact_max(err_fn f, long last, double t_from, long *n) {
  double m = NAN;
  *n = 0;
  for (long k = last; k >= 0 && step_t(k) >= t_from; k--) {
    (*n)++;
    if (!(f(k) <= m)) m = f(k);
  }
  return m;
}

/* the record's answer at the end of step last against the exact one */
static void check_at(const hg_err_record *r, err_fn f, long last) {
  double t = step_t(last), t_from = T0 + 0.5 * (t - T0);
  hg_err_max a = hg_err_record_max(r, t_from);
  long n;
  double want = exact_max(f, last, t_from, &n);
  if (a.exact) {
    assert_true(a.max == want);
    if (a.n >= 0) assert_int_equal(a.n, n);
  } else {
    /* an upper bound: at most the max from the straddling bin's start (at most: steps of that
     * bin before the half-way time of an earlier moment were dropped), the bin no wider than
     * 2 (t - t0) / HG_ERR_BINS (the bins span at most twice the run) */
    long n_lo;
    double hi = exact_max(f, last, a.t_lo, &n_lo);
    if (!(a.max <= hi && a.max >= want))
      fail_msg("t %.17g t_from %.17g t_lo %.17g: %.17g not in [%.17g, %.17g]", t, t_from, a.t_lo,
               a.max, want, hi);
    assert_true(a.t_lo < t_from && t_from - a.t_lo <= 2.0 * (t - T0) / HG_ERR_BINS);
  }
}

/* pushes steps 0..nsteps-1 of f, checking the answer at every check-th step; the exact answers
 * and bounds among them into *exact and *bound */
static void run(err_fn f, long nsteps, long check, int *exact, int *bound, size_t *bytes) {
  hg_err_record r;
  hg_err_record_init(&r, T0);
  long allocs_binned = -1;
  *exact = *bound = 0;
  *bytes = 0;
  for (long k = 0; k < nsteps; k++) {
    assert_int_equal(0, hg_err_record_push(&r, step_t(k), f(k)));
    if (r.w > 0 && allocs_binned < 0) allocs_binned = hg_allocs();
    if (hg_err_record_bytes(&r) > *bytes) *bytes = hg_err_record_bytes(&r);
    if ((k + 1) % check == 0 || k == nsteps - 1) {
      check_at(&r, f, k);
      hg_err_max a = hg_err_record_max(&r, T0 + 0.5 * (step_t(k) - T0));
      (a.exact ? (*exact)++ : (*bound)++);
    }
  }
  assert_true(r.e_last == f(nsteps - 1) && r.t_last == step_t(nsteps - 1));
  /* no allocation once binned */
  if (allocs_binned >= 0 && hg_allocs_counted()) assert_int_equal(hg_allocs(), allocs_binned);
  hg_err_record_free(&r);
}

static void short_run_is_exact(void **state) {
  (void)state;
  int exact, bound;
  size_t bytes;
  run(settling, 10000, 7, &exact, &bound, &bytes);
  assert_int_equal(bound, 0);
  printf("# 10000 steps: %d answers exact, %zu bytes at most\n", exact, bytes);
}

static void day_of_settling_is_bounded(void **state) {
  (void)state;
  int exact, bound;
  size_t bytes;
  long nsteps = 8640000; /* a day at 100 Hz: 138 MB as (t, error) pairs */
  run(settling, nsteps, 86400, &exact, &bound, &bytes);
  assert_true(bytes <= (size_t)HG_ERR_EXACT * 16);
  printf("# settling, %ld steps: %d answers exact, %d upper bounds, %zu bytes at most "
         "(%.0f as pairs)\n", nsteps, exact, bound, bytes, 16.0 * (double)nsteps);
}

static void growing_spikes_are_exact(void **state) {
  (void)state;
  int exact, bound;
  size_t bytes;
  long nsteps = 3000000;
  run(spiking, nsteps, 30011, &exact, &bound, &bytes);
  assert_int_equal(bound, 0);
  assert_true(bytes <= (size_t)HG_ERR_EXACT * 16);
  printf("# growing with spikes, %ld steps: %d answers exact, %zu bytes at most\n", nsteps,
         exact, bytes);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(short_run_is_exact),
      cmocka_unit_test(day_of_settling_is_bounded),
      cmocka_unit_test(growing_spikes_are_exact),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
