/* err_record.c: a controller's pointing error per step in bounded memory (err_record.h). */
#include "err_record.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void hg_err_record_init(hg_err_record *r, double t0) {
  memset(r, 0, sizeof *r);
  r->t0 = t0;
  r->t_last = r->e_last = NAN;
}

/* the bin of time t */
static int bin_of(const hg_err_record *r, double t) {
  double b = floor((t - r->t0) / r->w);
  return b < 0 ? 0 : (int)b;
}

static void bin_add(hg_err_record *r, int b, double e) {
  r->bn[b]++;
  if (e > r->bmax[b] || isnan(e)) r->bmax[b] = e; /* a NaN error stays visible */
}

/* the exact steps into bins of width w: the current time in the middle of their range */
static int to_bins(hg_err_record *r, double t) {
  r->bmax = malloc(HG_ERR_BINS * sizeof *r->bmax);
  r->bn = calloc(HG_ERR_BINS, sizeof *r->bn);
  if (!r->bmax || !r->bn) return free(r->bmax), free(r->bn), r->bmax = NULL, r->bn = NULL, -1;
  for (int b = 0; b < HG_ERR_BINS; b++) r->bmax[b] = -INFINITY;
  r->w = 2 * (t - r->t0) / HG_ERR_BINS;
  if (!(r->w > 0)) r->w = 1e-9; /* every step at t0 */
  for (int k = 0; k < r->nx; k++) bin_add(r, bin_of(r, r->x[2 * k]), r->x[2 * k + 1]);
  free(r->x);
  r->x = NULL;
  r->nx = r->cap = 0;
  return 0;
}

int hg_err_record_push(hg_err_record *r, double t, double e) {
  r->steps++;
  r->t_last = t;
  r->e_last = e;
  if (r->w > 0) {
    /* past the bins: merge pairs (the width doubles) until t falls inside */
    while (t - r->t0 >= r->w * HG_ERR_BINS) {
      for (int b = 0; b < HG_ERR_BINS / 2; b++) {
        double m = r->bmax[2 * b];
        if (r->bmax[2 * b + 1] > m || isnan(r->bmax[2 * b + 1])) m = r->bmax[2 * b + 1];
        r->bmax[b] = m;
        r->bn[b] = r->bn[2 * b] + r->bn[2 * b + 1];
      }
      for (int b = HG_ERR_BINS / 2; b < HG_ERR_BINS; b++) r->bmax[b] = -INFINITY, r->bn[b] = 0;
      r->w *= 2;
    }
    bin_add(r, bin_of(r, t), e);
    return 0;
  }
  if (r->nx == r->cap) {
    /* the steps before the current half's start are never in the final window: drop them */
    double t_half = r->t0 + 0.5 * (t - r->t0);
    int k = 0;
    while (k < r->nx && r->x[2 * k] < t_half) k++;
    if (k) {
      memmove(r->x, r->x + 2 * k, (size_t)(r->nx - k) * 2 * sizeof *r->x);
      r->nx -= k;
    }
  }
  if (r->nx == r->cap) {
    if (r->cap >= HG_ERR_EXACT) {
      if (to_bins(r, t)) return -1;
      bin_add(r, bin_of(r, t), e);
      return 0;
    }
    int cap = r->cap ? 2 * r->cap : 64;
    double *x = realloc(r->x, (size_t)cap * 2 * sizeof *x);
    if (!x) return -1;
    r->x = x;
    r->cap = cap;
  }
  r->x[2 * r->nx] = t;
  r->x[2 * r->nx + 1] = e;
  r->nx++;
  return 0;
}

hg_err_max hg_err_record_max(const hg_err_record *r, double t_from) {
  hg_err_max a = {NAN, 1, t_from, 0};
  if (r->w > 0) {
    int s = bin_of(r, t_from);
    double lo = r->t0 + s * r->w; /* the straddling bin's start */
    double inside = -INFINITY, straddle = -INFINITY;
    long n_inside = 0;
    int first = lo < t_from ? s + 1 : s; /* the first bin wholly in the window */
    for (int b = first; b < HG_ERR_BINS; b++) {
      n_inside += r->bn[b];
      if (r->bn[b] && (r->bmax[b] > inside || isnan(r->bmax[b]))) inside = r->bmax[b];
    }
    if (first > s && r->bn[s]) straddle = r->bmax[s];
    a.n = -1;
    if (!(straddle > inside) && !isnan(straddle)) {
      /* the straddling bin cannot raise it: exact (NaN when no step at all) */
      if (n_inside) a.max = inside;
      else if (r->bn[s]) a.exact = 0, a.max = straddle, a.t_lo = lo;
    } else {
      a.exact = 0;
      a.max = straddle;
      a.t_lo = lo;
    }
    return a;
  }
  for (int k = 0; k < r->nx; k++) {
    const double *p = r->x + 2 * k;
    if (p[0] < t_from) continue;
    a.n++;
    if (!(p[1] <= a.max)) a.max = p[1];
  }
  return a;
}

size_t hg_err_record_bytes(const hg_err_record *r) {
  return (size_t)r->cap * 2 * sizeof *r->x +
         (r->bmax ? HG_ERR_BINS * (sizeof *r->bmax + sizeof *r->bn) : 0);
}

void hg_err_record_free(hg_err_record *r) {
  free(r->x);
  free(r->bmax);
  free(r->bn);
  r->x = NULL;
  r->bmax = NULL;
  r->bn = NULL;
}
