/* timing.c: the benchmarks' clock and sort order (timing.h). */
#define _POSIX_C_SOURCE 200809L
#include "timing.h"

#include <time.h>

double hg_test_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return 1e9 * (double)ts.tv_sec + (double)ts.tv_nsec;
}

int hg_test_cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}
