/* error.c: hg_error_set and hg_error_fail (error.h). */
#include "error.h"

#include <stdarg.h>
#include <stdio.h>

static void error_vset(hg_error *err, const char *fmt, va_list ap) {
  if (err) vsnprintf(err->msg, sizeof err->msg, fmt, ap);
}

void hg_error_set(hg_error *err, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  error_vset(err, fmt, ap);
  va_end(ap);
}

int hg_error_fail(hg_error *err, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  error_vset(err, fmt, ap);
  va_end(ap);
  return -1;
}
