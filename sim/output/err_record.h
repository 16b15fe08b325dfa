/* err_record.h: a controller's per-step pointing error, kept for the summary's
 * pointing_error_max_after_settling_deg (the largest error at the steps in the last half of the
 * run, [t0 + (t - t0) / 2, t], t the run's end, known only at the end) and
 * pointing_error_final_deg (the last step's), in bounded memory (err_record.c).
 *
 * The window's start t_from = (t0 + t) / 2 only moves forward as the run goes, so a step before
 * (t0 + t_now) / 2 is never in it and is dropped. Every step of the current last half is kept
 * exactly (t, error) up to HG_ERR_EXACT steps; a run with more steps in its last half (a
 * controller at 100 Hz beyond about 160 s) switches to HG_ERR_BINS time bins over [t0, ...), each
 * keeping the largest error and the number of its steps, two bins merged into one when the run
 * outgrows them (the width doubles). The answer then is exact from the bins wholly inside the
 * window; the one bin that straddles t_from (under 2 (t - t0) / HG_ERR_BINS wide, 0.05 % of the
 * run) decides nothing when its largest error is not above theirs, and otherwise the answer is
 * its largest error: an upper bound, between the window's max and the max over the window
 * widened back to that bin's start, which hg_err_record_max says (exact 0) and the summary
 * line states. A settling error (decreasing) gets that bound; a growing or oscillating one whose
 * last half holds its largest values gets the exact max.
 *
 * Every field is written by hg_err_record_push (the conversion to bins in it) and read by
 * hg_err_record_max; hg_err_record_free releases it. */
#ifndef HINGE_ERR_RECORD_H
#define HINGE_ERR_RECORD_H

#include <stddef.h>

#define HG_ERR_EXACT 8192 /* exact steps kept at most (16 bytes each) */
#define HG_ERR_BINS 4096  /* time bins after that (16 bytes each) */

typedef struct hg_err_record {
  double t0;              /* the run's start: the bins' origin */
  long steps;             /* steps pushed */
  double t_last, e_last;  /* the last step */
  double *x;              /* exact mode: (t, error) of nx steps, in time order */
  int nx, cap;
  double w;               /* bin mode (w > 0): the bins' width, s */
  double *bmax;           /* largest error of each bin (-inf: no step) */
  long *bn;               /* steps of each bin */
} hg_err_record;

/* the answer over [t_from, t_last] */
typedef struct hg_err_max {
  double max;             /* the largest error (NaN: no step in the window) */
  int exact;              /* 1: exactly the window's max; 0: an upper bound, at most the max
                             of the steps from t_lo */
  double t_lo;            /* the start of the steps it covers (t_from when exact) */
  long n;                 /* the steps it covers (-1 when binned: not known exactly) */
} hg_err_max;

/* an empty record of a run starting at t0 */
void hg_err_record_init(hg_err_record *r, double t0);
/* one step at time t (not before the last) with error e; 0, or -1 out of memory */
int hg_err_record_push(hg_err_record *r, double t, double e);
/* the largest error at the steps from t_from on (t_from >= (t0 + t_last) / 2 for an exact
 * answer: earlier steps are dropped) */
hg_err_max hg_err_record_max(const hg_err_record *r, double t_from);
/* bytes it holds */
size_t hg_err_record_bytes(const hg_err_record *r);
void hg_err_record_free(hg_err_record *r);

#endif
