/* integ_internal.h: what the integrator front end (integrator.c) shares with its back ends
 * (cvode_lie.c, fixed_step.c): the integrator's struct, the back-end interface, and the helpers of
 * integ_shared.c. Not installed; callers use integrator.h. */
#ifndef HINGE_INTEG_INTERNAL_H
#define HINGE_INTEG_INTERNAL_H

#include "integrator.h"

/* the rotation part of a chart coordinate never exceeds this (rad); a right-hand side evaluated
 * beyond it is refused so CVODE retries a shorter step (dexp^-1 is singular at 2 pi and the chart
 * stops being one-to-one at pi) */
#define HG_INTEG_CHART_LIMIT 3.0
/* the largest allowed opt.recentre (rad), well inside HG_INTEG_CHART_LIMIT */
#define HG_INTEG_RECENTRE_MAX 2.5

/* a back end: advance to tout (or one internal step), restart from the state in I */
typedef struct hg_integ_backend {
  int (*advance)(hg_integrator *I, double tout, int one_step);
  int (*reset)(hg_integrator *I);
  void (*stats)(const hg_integrator *I, hg_integ_stats *s);
  void (*release)(hg_integrator *I);
  void (*limit_step)(hg_integrator *I, double h); /* largest step now (0: none); may be NULL */
} hg_integ_backend;

struct hg_integrator {
  hg_system sys;
  hg_integ_options opt;
  const hg_model *m;
  int nq, nv, nroot;
  int *root_dir;     /* nroot: copy of sys.root_dir (zeros when NULL) */
  int *roots_found;  /* nroot: +1 / -1 at the last event */
  double t, *q, *v;  /* the current (output) state */
  int nquad;         /* quadratures */
  double *w;         /* nquad: their current values */
  int failed;        /* the error code that stopped the integrator (0: none); cleared by reset */
  char msg[512];     /* the last error */
  double fail_t;     /* time of the last failed acceleration or root evaluation */
  char fail_why[192];/* what failed there */
  hg_integ_stats stats; /* counters kept by the shared layer (rhs, roots, events, resets) */
  const hg_integ_backend *ops;
  void *impl;
};

/* back-end constructors: set I->ops and I->impl; 0, or -1 with err set */
int hg_integ_cvode_init(hg_integrator *I, hg_error *err);
int hg_integ_fixed_init(hg_integrator *I, hg_error *err);

/* ---- integ_shared.c ---- */

/* vdot = f(t, q, v), counted; -1 (fail_t and fail_why set) when it fails or is not finite */
int hg_integ_accel(hg_integrator *I, double t, const double *q, const double *v, double *vdot);
/* vdot = f(t, q, v) and wdot = quad(t, q, v) (when nquad > 0): the whole right-hand side;
 * -1 as hg_integ_accel when either fails or is not finite */
int hg_integ_rates(hg_integrator *I, double t, const double *q, const double *v, double *vdot,
                   double *wdot);
/* g = roots(t, q, v), counted; -1 with the error message set when it fails or is not finite */
int hg_integ_roots(hg_integrator *I, double t, const double *q, const double *v, double *g);
/* sys.project(t, q, v, eq, ev), counted: 0, the callback's non-zero return, or -1 when the
 * projected state is not finite; on failure fail_t and fail_why are set */
int hg_integ_project(hg_integrator *I, double t, double *q, double *v, double *eq, double *ev);
/* HG_INTEG_ERR_SOLVER with "projection failed at t = ...: why" */
int hg_integ_fail_project(hg_integrator *I);
/* xidot = dexp^-1_xi(v) joint by joint: the rate of the chart coordinate xi (q = q_ref (+) xi)
 * that realizes the joint velocities v */
void hg_integ_chart_rate(const hg_model *m, const double *xi, const double *v, double *xidot);
/* the largest rotation angle |xi_w| over the spherical and free joints (rad) */
double hg_integ_chart_radius(const hg_model *m, const double *xi);
/* marks the integrator failed with a printf-style message; returns code */
int hg_integ_fail(hg_integrator *I, int code, const char *fmt, ...);
/* HG_INTEG_ERR_RHS with "right-hand side failed at t = ...: why; last good state at t = ..." */
int hg_integ_fail_rhs(hg_integrator *I);

#endif
