/* failure.c: the first failure of a run, the one it reports (hg_sim_error). */
#include <stdarg.h>
#include <stdio.h>

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
