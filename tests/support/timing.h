/* timing.h: the clock and the sort order of the benchmarks' timings. */
#ifndef HINGE_TEST_TIMING_H
#define HINGE_TEST_TIMING_H

/* the monotonic clock in ns */
double hg_test_now_ns(void);
/* qsort's order of two doubles (ascending) */
int hg_test_cmp_double(const void *a, const void *b);

#endif
