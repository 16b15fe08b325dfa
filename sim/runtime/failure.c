/* failure.c: the first failure of a run, the one it reports (hg_sim_error), and whether the run
 * must stop for its wall-time limit or a signal. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <time.h>

#include "sim_internal.h"

int hg_sim_fail(hg_sim *s, int status, const char *fmt, ...) {
  if (s->failed) return s->failed; /* the first failure is the one to report */
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(s->err, sizeof s->err, fmt, ap);
  va_end(ap);
  s->failed = status;
  return status;
}

double hg_sim_clock(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* the clock's reading interval in calls: 16 calls between readings cost one clock_gettime (about
 * 20 ns through the vDSO) per 16 evaluations of at least a microsecond each; once calls are over
 * 1 ms apart the clock is read at every one, so that a slow evaluation overshoots by one call */
#define HALT_EVERY 16
#define HALT_SLOW 1e-3

int hg_sim_halt_due(hg_sim *s, int clock) {
  if (s->halt.cause) return 1;
  if (s->opt.interrupt && *s->opt.interrupt) return s->halt.cause = (int)*s->opt.interrupt, 1;
  if (isinf(s->halt.deadline) || (!clock && ++s->halt.count < s->halt.every)) return 0;
  double now = hg_sim_clock(), per_call = (now - s->halt.last) / (s->halt.count ? s->halt.count : 1);
  s->halt.every = per_call > HALT_SLOW ? 1 : HALT_EVERY;
  s->halt.count = 0;
  s->halt.last = now;
  if (now >= s->halt.deadline) s->halt.cause = HG_SIM_STOP_WALL;
  return s->halt.cause != 0;
}
