/* out_common.c: what the files of a run share (run_outputs.h): the plots' bounded series
 * (hg_series_push) and the record of the first write that failed (hg_out_check, hg_out_close,
 * hg_out_plot_end). Below output.c, control_out.c, loop_out.c, plot.c and summary.c, which all
 * call it. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "grow.h"
#include "plot_style.h"
#include "run_outputs.h"

/* the bucket (a, b: its first row, the largest values; its last, the smallest) widened by the
 * rows a2 and b2 (both the same row for one output row) */
static void bucket_widen(int width, double *a, double *b, const double *a2, const double *b2) {
  a[0] = fmin(a[0], a2[0]), b[0] = fmax(b[0], b2[0]); /* its first and last times */
  for (int k = 1; k < width; k++) a[k] = fmax(a[k], a2[k]), b[k] = fmin(b[k], b2[k]);
}

/* the rows at the bound, in buckets twice as long: four single rows (stride 1) or two buckets
 * (two rows each) make one bucket */
static void series_halve(hg_series *s) {
  int w = s->width, out = 0;
  for (int r = 0; r + 3 < s->n; r += 4, out += 2) {
    double a[w], b[w];
    memcpy(a, hg_series_row(s, r), sizeof a);
    memcpy(b, hg_series_row(s, r + (s->stride == 1 ? 0 : 1)), sizeof b);
    if (s->stride == 1)
      for (int j = 1; j < 4; j++)
        bucket_widen(w, a, b, hg_series_row(s, r + j), hg_series_row(s, r + j));
    else
      bucket_widen(w, a, b, hg_series_row(s, r + 2), hg_series_row(s, r + 3));
    memcpy(hg_series_row(s, out), a, sizeof a);
    memcpy(hg_series_row(s, out + 1), b, sizeof b);
  }
  s->n = out;
  s->stride = s->stride == 1 ? 4 : 2 * s->stride;
}

int hg_series_push(hg_series *s, const double *row) {
  int w = s->width;
  if (!w) return 0; /* a series not kept (no plots) */
  if (s->stride < 1) s->stride = 1;
  if (s->stride > 1 && s->pending > 0) {
    /* into the open bucket, its last two rows */
    bucket_widen(w, hg_series_row(s, s->n - 2), hg_series_row(s, s->n - 1), row, row);
    if (++s->pending == s->stride) s->pending = 0;
    return 0;
  }
  if (!s->exact && s->n + (s->stride > 1 ? 2 : 1) > HG_SERIES_ROWS) series_halve(s);
  int add = s->stride > 1 ? 2 : 1; /* a new bucket: the row twice, its largest and smallest */
  if (hg_grow((void **)&s->x, s->n + add - 1, &s->cap, 256, (size_t)w * sizeof(double)))
    return -1;
  for (int k = 0; k < add; k++) memcpy(hg_series_row(s, s->n++), row, (size_t)w * sizeof(double));
  if (s->stride > 1) s->pending = 1;
  return 0;
}

int hg_out_check(hg_outputs *o, hg_outfile *f) {
  if (!hg_outfile_check(f)) return 0;
  if (!o->werr) o->werr = f->err, hg_outfile_message(f, o->msg, sizeof o->msg);
  return -1;
}

int hg_out_close(hg_outputs *o, hg_outfile *f) {
  if (!hg_outfile_close(f)) return 0;
  if (!o->werr) o->werr = f->err, hg_outfile_message(f, o->msg, sizeof o->msg);
  return -1;
}

int hg_out_plot_end(hg_outputs *o) {
  char msg[sizeof o->msg];
  int e = hg_plot_end(msg, sizeof msg);
  if (!e) return 1;
  if (!o->werr) o->werr = e, snprintf(o->msg, sizeof o->msg, "%s", msg);
  return -1;
}
