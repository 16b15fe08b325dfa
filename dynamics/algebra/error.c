/* error.c: hg_error_set (error.h). */
#include "error.h"

#include <stdarg.h>
#include <stdio.h>

void hg_error_set(hg_error *err, const char *fmt, ...) {
  if (!err) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err->msg, sizeof err->msg, fmt, ap);
  va_end(ap);
}
