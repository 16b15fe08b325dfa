/* cvode_lie.c: SUNDIALS CVODE (BDF or Adams) on the Lie-group state through local charts.
 *
 * CVODE integrates y = (xi, v) in R^(2 nv) with
 *   q = q_ref (+) xi,   xidot = dexp^-1_xi(v) (joint by joint),   vdot = f(t, q, v),
 * where q_ref is the chart centre. Between internal steps, when the rotation part of some joint's
 * xi has grown past opt.recentre, the chart is re-centred: q_ref <- q_ref (+) xi, xi <- 0 and CVODE
 * restarts (CVodeReInit) from the same point. Events and resets re-centre too.
 *
 * Output: advance drives CVODE one internal step at a time (CV_ONE_STEP), re-centring between
 * steps, and interpolates (CVodeGetDky) back to tout once a step has passed it, so output times
 * never constrain the step size. A root found beyond tout is kept pending until it is reached.
 *
 * Projection (sys.project, closed kinematic loops):
 *   BDF    CVODE's own projection (CVodeSetProjFn, every step): after each step's corrector,
 *          cv_project maps y = (xi, v) to (q_ref (+) xi, v), projects it together with the error
 *          estimate's (xi, v) parts, maps the projected q back into the chart
 *          (xi' = q_ref^-1 q' in tangent coordinates) and hands CVODE the correction y' - y, so the
 *          error test and the history see the projected step. CVodeReInit keeps the projection
 *          function (re-centring and resets restart with it). An output interpolated between
 *          steps (and a root) is projected too, for the caller only: the steps already lie on the
 *          manifold. A positive return of the projection makes CVODE retry a shorter step.
 *   Adams  CVODE cannot project Adams steps, so the state is projected at the end of every
 *          advance or step call (at tout, at one step, at a root, at t_stop) and, when that moved
 *          it, CVODE restarts there (the restart of a reset), so each stretch between calls starts
 *          on the manifold; the drift within a stretch is the integration error's. A restart
 *          costs a return to order 1, so frequent outputs cost steps.
 * Without a projection none of this runs and the steps are those of an unprojected run. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cvode/cvode.h>
#include <cvode/cvode_proj.h>
#include <nvector/nvector_serial.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>
#include <sunnonlinsol/sunnonlinsol_fixedpoint.h>

#include "integ_internal.h"

/* failed accelerations tolerated (each answered "recoverable", so CVODE retries a shorter step)
 * before the failure is final, unless the integration gets past the first of them */
#define CV_RHS_RETRIES 5
/* the time scale (s) CVODE's first-step heuristic is given after a (re)start */
#define CV_HORIZON 1.0
/* steps that do not move t before the run is declared stalled */
#define CV_STALL_STEPS 10

typedef struct cvode_impl {
  SUNContext ctx;
  void *mem;
  SUNMatrix A;             /* BDF: dense Newton matrix */
  SUNLinearSolver LS;      /* BDF: dense LU */
  SUNNonlinearSolver NLS;  /* Adams: fixed-point iteration */
  N_Vector y;              /* (xi, v) at CVODE's internal time tn */
  N_Vector yout;           /* (xi, v) at an output time */
  N_Vector yroot;          /* (xi, v) at a pending root */
  N_Vector atol;           /* absolute tolerance per component */
  double *qref;            /* nq: the chart centre */
  double *qc;              /* nq: the configuration at a callback */
  double *qp, *vp;         /* nq, nv: the state being projected */
  double *eq, *ev;         /* nv each: the error estimate being projected */
  int *rootinfo;           /* nroot: CVODE's root report */
  double tn;               /* CVODE's internal time (end of the last step) */
  int pending;             /* a root at troot > the last output, not yet delivered */
  double troot;
  int stalled;             /* consecutive steps that did not move tn */
  int nfail;               /* failed accelerations since the integration got past fail_first */
  double fail_first;
  hg_integ_stats base;     /* CVODE counters of the runs before the last re-initialization */
  char cv_msg[256];        /* the last CVODE error message */
} cvode_impl;

static double *ydata(N_Vector y) { return N_VGetArrayPointer(y); }
/* the length of y = (xi, v, w) */
static sunindextype ysize(const hg_integrator *I) { return 2 * (sunindextype)I->nv + I->nquad; }

/* ---- callbacks ---- */

/* ydot = (dexp^-1_xi(v), f(t, q_ref (+) xi, v), quad(t, q_ref (+) xi, v)); 1 (retry shorter) or
 * -1 (stop) on failure */
static int cv_rhs(sunrealtype t, N_Vector y, N_Vector ydot, void *ud) {
  hg_integrator *I = ud;
  cvode_impl *c = I->impl;
  const double *xi = ydata(y), *v = xi + I->nv;
  double *xidot = ydata(ydot), *vdot = xidot + I->nv;
  double r = hg_integ_chart_radius(I->m, xi);
  if (!(r <= HG_INTEG_CHART_LIMIT)) {
    I->fail_t = t;
    snprintf(I->fail_why, sizeof I->fail_why, "a chart coordinate reached %g rad (step too long)",
             r);
    return 1;
  }
  hg_model_integrate(I->m, c->qref, xi, 1.0, c->qc);
  hg_integ_chart_rate(I->m, xi, v, xidot);
  if (hg_integ_rates(I, t, c->qc, v, vdot, vdot + I->nv) == 0) return 0;
  if (c->nfail++ == 0) c->fail_first = t;
  if (c->nfail >= CV_RHS_RETRIES) return -1;
  I->stats.rhs_retries++;
  return 1;
}

/* J = df/dy by forward differences, column by column into J's own storage (CVODE's built-in
 * difference quotient allocates a vector wrapper at every call; this allocates nothing and is
 * where an analytic Jacobian will go). The increments are CVODE's:
 *   dy_j = max(sqrt(u) |y_j|, min_inc / ewt_j),  min_inc = 1000 |h| u n |f|_wrms (1 if f = 0),
 * with u the unit round-off and ewt the error weights. */
static int cv_jac(sunrealtype t, N_Vector y, N_Vector fy, SUNMatrix J, void *ud, N_Vector t1,
                  N_Vector t2, N_Vector t3) {
  hg_integrator *I = ud;
  cvode_impl *c = I->impl;
  sunindextype n = ysize(I);
  sunrealtype h = 0;
  CVodeGetErrWeights(c->mem, t1);
  CVodeGetCurrentStep(c->mem, &h);
  double fnorm = N_VWrmsNorm(fy, t1);
  double min_inc = fnorm != 0 ? 1000 * fabs(h) * DBL_EPSILON * (double)n * fnorm : 1.0;
  double *yd = ydata(y), *ewt = ydata(t1), *f0 = ydata(fy), *f1 = ydata(t2);
  for (sunindextype j = 0; j < n; j++) {
    double yj = yd[j], inc = fmax(sqrt(DBL_EPSILON) * fabs(yj), min_inc / ewt[j]);
    yd[j] = yj + inc;
    inc = yd[j] - yj; /* the increment actually represented */
    int rc = cv_rhs(t, y, t2, ud);
    yd[j] = yj;
    if (rc) return rc;
    double *col = SUNDenseMatrix_Column(J, j);
    for (sunindextype i = 0; i < n; i++) col[i] = (f1[i] - f0[i]) / inc;
  }
  return 0;
}

/* g = roots(t, q_ref (+) xi, v) */
static int cv_roots(sunrealtype t, N_Vector y, sunrealtype *g, void *ud) {
  hg_integrator *I = ud;
  cvode_impl *c = I->impl;
  const double *xi = ydata(y);
  hg_model_integrate(I->m, c->qref, xi, 1.0, c->qc);
  return hg_integ_roots(I, t, c->qc, xi + I->nv, g) ? -1 : 0;
}

/* BDF projection: y = (xi, v, w) -> corr = y' - y with (q_ref (+) xi', v') = project(q_ref (+) xi,
 * v); err's (xi, v) parts projected in place (when CVODE passes it); 0, 1 (retry shorter) or -1 */
static int cv_project(sunrealtype t, N_Vector ycur, N_Vector corr, sunrealtype eps, N_Vector err,
                      void *ud) {
  (void)eps;
  hg_integrator *I = ud;
  cvode_impl *c = I->impl;
  int nv = I->nv;
  const double *xi = ydata(ycur);
  double *dc = ydata(corr), *de = err ? ydata(err) : NULL;
  hg_model_integrate(I->m, c->qref, xi, 1.0, c->qp);
  memcpy(c->vp, xi + nv, (size_t)nv * sizeof(double));
  if (de) {
    memcpy(c->eq, de, (size_t)nv * sizeof(double));
    memcpy(c->ev, de + nv, (size_t)nv * sizeof(double));
  }
  int rc = hg_integ_project(I, t, c->qp, c->vp, de ? c->eq : NULL, de ? c->ev : NULL);
  if (rc) return rc > 0 ? 1 : -1;
  hg_model_difference(I->m, c->qref, c->qp, dc); /* xi' */
  for (int k = 0; k < nv; k++) {
    dc[k] -= xi[k];
    dc[nv + k] = c->vp[k] - xi[nv + k];
  }
  for (int k = 0; k < I->nquad; k++) dc[2 * nv + k] = 0;
  if (de) {
    memcpy(de, c->eq, (size_t)nv * sizeof(double));
    memcpy(de + nv, c->ev, (size_t)nv * sizeof(double));
  }
  return 0;
}

/* keeps CVODE's error messages instead of printing them; warnings (such as t + h == t) are
 * dropped because an error return follows when they matter */
static void cv_error_handler(int code, const char *module, const char *function, char *msg,
                             void *ud) {
  cvode_impl *c = ud;
  if (code == CV_WARNING) return;
  snprintf(c->cv_msg, sizeof c->cv_msg, "%s: %s", function, msg);
}

/* ---- the state ---- */

/* the output state (t, q_ref (+) xi, v) from y */
static void cv_output(hg_integrator *I, double t, N_Vector y) {
  cvode_impl *c = I->impl;
  const double *yd = ydata(y);
  hg_model_integrate(I->m, c->qref, yd, 1.0, I->q);
  memcpy(I->v, yd + I->nv, (size_t)I->nv * sizeof(double));
  memcpy(I->w, yd + 2 * I->nv, (size_t)I->nquad * sizeof(double));
  I->t = t;
}

/* projects the output state (I->q, I->v) at I->t in place: 1 when that moved it, 0 when not, or
 * the failure (the output left as it was) */
static int cv_project_output(hg_integrator *I) {
  cvode_impl *c = I->impl;
  size_t nq = (size_t)I->nq * sizeof(double), nv = (size_t)I->nv * sizeof(double);
  memcpy(c->qp, I->q, nq);
  memcpy(c->vp, I->v, nv);
  if (hg_integ_project(I, I->t, I->q, I->v, NULL, NULL)) {
    memcpy(I->q, c->qp, nq);
    memcpy(I->v, c->vp, nv);
    return hg_integ_fail_project(I);
  }
  return memcmp(c->qp, I->q, nq) != 0 || memcmp(c->vp, I->v, nv) != 0;
}

/* the output state at t within the last internal step, by CVODE's interpolant (with a BDF
 * projection: projected, the interpolant being off the manifold between the projected steps) */
static int cv_interpolate(hg_integrator *I, double t) {
  cvode_impl *c = I->impl;
  int flag = CVodeGetDky(c->mem, t, 0, c->yout);
  if (flag != CV_SUCCESS)
    return hg_integ_fail(I, HG_INTEG_ERR_SOLVER, "CVODE could not interpolate at t = %.17g: %s",
                         t, c->cv_msg);
  cv_output(I, t, c->yout);
  if (I->sys.project && I->opt.method == HG_INTEG_CVODE_BDF) {
    int rc = cv_project_output(I);
    if (rc < 0) return rc;
  }
  return HG_INTEG_OK;
}

/* CVODE's counters since its last (re)initialization, in the fields they add to */
static hg_integ_stats cv_counters(const hg_integrator *I) {
  const cvode_impl *c = I->impl;
  long nst = 0, netf = 0, nncf = 0, nje = 0;
  hg_integ_stats k = {0};
  CVodeGetNumSteps(c->mem, &nst);
  CVodeGetNumErrTestFails(c->mem, &netf);
  CVodeGetNumNonlinSolvConvFails(c->mem, &nncf);
  /* the linear solver resets its counter at the first step after a re-initialization, so it
   * is stale (already folded) while no step has been taken */
  if (I->opt.method == HG_INTEG_CVODE_BDF && nst > 0) CVodeGetNumJacEvals(c->mem, &nje);
  k.steps = nst;
  k.err_test_fails = netf;
  k.conv_fails = nncf;
  k.jac_evals = nje;
  return k;
}

/* adds CVODE's counters to c->base before they restart */
static void cv_fold_stats(hg_integrator *I) {
  cvode_impl *c = I->impl;
  hg_integ_stats k = cv_counters(I);
  c->base.steps += k.steps;
  c->base.err_test_fails += k.err_test_fails;
  c->base.conv_fails += k.conv_fails;
  c->base.jac_evals += k.jac_evals;
}

/* CVODE restarts at t from c->y (the chart already centred) */
static int cv_reinit(hg_integrator *I, double t) {
  cvode_impl *c = I->impl;
  cv_fold_stats(I);
  I->stats.recentres++;
  c->tn = t;
  c->pending = 0;
  c->nfail = 0;
  c->stalled = 0;
  if (CVodeReInit(c->mem, t, c->y) != CV_SUCCESS)
    return hg_integ_fail(I, HG_INTEG_ERR_SOLVER, "CVODE could not restart at t = %.17g: %s", t,
                         c->cv_msg);
  if (isfinite(I->opt.t_stop) && t < I->opt.t_stop) CVodeSetStopTime(c->mem, I->opt.t_stop);
  return HG_INTEG_OK;
}

/* re-centres the chart on the state y at t: q_ref <- q_ref (+) xi, xi <- 0, then restarts */
static int cv_recentre(hg_integrator *I, double t, N_Vector y) {
  cvode_impl *c = I->impl;
  const double *src = ydata(y);
  double *dst = ydata(c->y);
  hg_model_integrate(I->m, c->qref, src, 1.0, c->qref);
  if (dst != src) memcpy(dst + I->nv, src + I->nv, (size_t)(I->nv + I->nquad) * sizeof(double));
  memset(dst, 0, (size_t)I->nv * sizeof(double));
  return cv_reinit(I, t);
}

/* ---- advancing ---- */

/* the output becomes the last good state (end of the last internal step), then the error */
static int cv_failure(hg_integrator *I, int flag) {
  cvode_impl *c = I->impl;
  if (c->tn > I->t) cv_output(I, c->tn, c->y);
  switch (flag) {
  case CV_RHSFUNC_FAIL:
  case CV_FIRST_RHSFUNC_ERR:
  case CV_REPTD_RHSFUNC_ERR:
  case CV_UNREC_RHSFUNC_ERR:
    return hg_integ_fail_rhs(I);
  case CV_RTFUNC_FAIL:
    return I->failed ? I->failed : hg_integ_fail(I, HG_INTEG_ERR_ROOTFN, "root function failed");
  case CV_PROJFUNC_FAIL:
  case CV_REPTD_PROJFUNC_ERR:
    return hg_integ_fail_project(I);
  default: {
    char *name = CVodeGetReturnFlagName(flag);
    hg_integ_fail(I, HG_INTEG_ERR_SOLVER, "CVODE failed after t = %.17g (%s): %s", c->tn,
                  name ? name : "?", c->cv_msg);
    free(name);
    return HG_INTEG_ERR_SOLVER;
  }
  }
}

static int cv_reset(hg_integrator *I);

/* hands out the pending root: the output at troot (projected, with a projection), then a restart
 * in a chart centred there */
static int cv_deliver_root(hg_integrator *I) {
  cvode_impl *c = I->impl;
  cv_output(I, c->troot, c->yroot);
  for (int k = 0; k < I->nroot; k++) I->roots_found[k] = c->rootinfo[k];
  int rc;
  if (I->sys.project) {
    rc = cv_project_output(I);
    if (rc < 0) return rc;
    rc = cv_reset(I);
  } else {
    rc = cv_recentre(I, c->troot, c->yroot);
  }
  return rc == HG_INTEG_OK ? HG_INTEG_ROOT : rc;
}

/* one CVODE step from tn; HG_INTEG_OK, HG_INTEG_ROOT (c->pending set) or an error */
static int cv_one_step(hg_integrator *I) {
  cvode_impl *c = I->impl;
  if (hg_integ_chart_radius(I->m, ydata(c->y)) > I->opt.recentre) {
    int rc = cv_recentre(I, c->tn, c->y);
    if (rc != HG_INTEG_OK) return rc;
  }
  /* CVODE sizes the first step after a (re)start from the distance to its tout, so it gets a
   * fixed horizon rather than the caller's tout: output times never change the steps */
  double horizon = c->tn + CV_HORIZON;
  if (horizon > I->opt.t_stop) horizon = I->opt.t_stop;
  sunrealtype tret;
  int flag = CVode(c->mem, horizon, c->yout, &tret, CV_ONE_STEP);
  if (flag < 0) return cv_failure(I, flag);
  if (flag == CV_ROOT_RETURN) {
    CVodeGetRootInfo(c->mem, c->rootinfo);
    CVodeGetCurrentTime(c->mem, &c->tn);
    N_VScale(1.0, c->yout, c->yroot);
    c->troot = tret;
    c->pending = 1;
    return HG_INTEG_ROOT;
  }
  /* a step (or the stop time, reached to round-off): y is the state at tn */
  c->stalled = tret > c->tn ? 0 : c->stalled + 1;
  c->tn = tret;
  N_VScale(1.0, c->yout, c->y);
  if (c->nfail && c->tn > c->fail_first) c->nfail = 0;
  /* CVODE answers even a "stop" from the right-hand side with ever shorter steps when it comes
   * from the fixed-point solver, so failures that persist end the run here */
  if (c->nfail >= CV_RHS_RETRIES) return cv_failure(I, CV_UNREC_RHSFUNC_ERR);
  if (c->stalled >= CV_STALL_STEPS) {
    if (c->tn > I->t) cv_output(I, c->tn, c->y);
    return hg_integ_fail(I, HG_INTEG_ERR_SOLVER, "the step size fell below round-off at t = %.17g",
                         c->tn);
  }
  return HG_INTEG_OK;
}

static int cv_advance_steps(hg_integrator *I, double tout, int one_step) {
  cvode_impl *c = I->impl;
  /* a root found by an earlier step past the last output */
  if (c->pending) return c->troot <= tout ? cv_deliver_root(I) : cv_interpolate(I, tout);
  for (long n = 0; c->tn < tout; n++) {
    if (n >= I->opt.max_steps) {
      if (c->tn > I->t) cv_output(I, c->tn, c->y);
      return hg_integ_fail(I, HG_INTEG_ERR_WORK, "%ld steps from t = %.17g did not reach %.17g",
                           n, I->t, tout);
    }
    int rc = cv_one_step(I);
    if (rc == HG_INTEG_ROOT)
      return c->troot <= tout ? cv_deliver_root(I) : cv_interpolate(I, tout);
    if (rc != HG_INTEG_OK) return rc;
    if (one_step && c->tn < tout) {
      cv_output(I, c->tn, c->y);
      return HG_INTEG_OK;
    }
  }
  if (c->tn == tout) {
    cv_output(I, tout, c->y);
    return HG_INTEG_OK;
  }
  return cv_interpolate(I, tout);
}

/* the steps to tout, and with an Adams projection the projection of the result: a restart from it
 * when that moved it (roots are projected and restarted from by cv_deliver_root) */
static int cv_advance(hg_integrator *I, double tout, int one_step) {
  int rc = cv_advance_steps(I, tout, one_step);
  if (!I->sys.project || I->opt.method != HG_INTEG_CVODE_ADAMS || rc < 0 || rc == HG_INTEG_ROOT)
    return rc;
  int moved = cv_project_output(I);
  if (moved < 0) return moved;
  if (moved) {
    int rr = cv_reset(I);
    if (rr != HG_INTEG_OK) return rr;
  }
  return rc;
}

/* y = (0, v, w) in the chart centred on the current q */
static void cv_load_state(hg_integrator *I) {
  cvode_impl *c = I->impl;
  double *yd = ydata(c->y);
  memcpy(c->qref, I->q, (size_t)I->nq * sizeof(double));
  memset(yd, 0, (size_t)I->nv * sizeof(double));
  memcpy(yd + I->nv, I->v, (size_t)I->nv * sizeof(double));
  memcpy(yd + 2 * I->nv, I->w, (size_t)I->nquad * sizeof(double));
}

static int cv_reset(hg_integrator *I) {
  cv_load_state(I);
  return cv_reinit(I, I->t);
}

static void cv_stats(const hg_integrator *I, hg_integ_stats *s) {
  const cvode_impl *c = I->impl;
  hg_integ_stats k = cv_counters(I);
  s->steps = c->base.steps + k.steps;
  s->err_test_fails = c->base.err_test_fails + k.err_test_fails;
  s->conv_fails = c->base.conv_fails + k.conv_fails;
  s->jac_evals = c->base.jac_evals + k.jac_evals;
}

static void cv_release(hg_integrator *I) {
  cvode_impl *c = I->impl;
  if (!c) return;
  if (c->mem) CVodeFree(&c->mem);
  if (c->LS) SUNLinSolFree(c->LS);
  if (c->A) SUNMatDestroy(c->A);
  if (c->NLS) SUNNonlinSolFree(c->NLS);
  if (c->y) N_VDestroy(c->y);
  if (c->yout) N_VDestroy(c->yout);
  if (c->yroot) N_VDestroy(c->yroot);
  if (c->atol) N_VDestroy(c->atol);
  if (c->ctx) SUNContext_Free(&c->ctx);
  free(c->qref);
  free(c->qc);
  free(c->qp);
  free(c->vp);
  free(c->eq);
  free(c->ev);
  free(c->rootinfo);
  free(c);
  I->impl = NULL;
}

/* CVODE's largest step (0: unbounded) for a bound h found at the state of I->t, from the next
 * step on. CVODE's hmax holds only the steps it sizes after its next one (that one was sized
 * with the last step), so a next step that would pass I->t + h is held by a stop time there
 * (CVODE shortens a step that would pass its stop time; the stop time is set only then, since
 * CVODE also shortens the step after it to end there). When an output left I->t inside the last
 * step and the bound ends before that step's end tn, the stop time is tn itself: the next step
 * call takes no step and gives the state at tn, where the caller bounds again. Otherwise the
 * stop time is t_stop. */
static void cv_limit_step(hg_integrator *I, double h) {
  cvode_impl *c = I->impl;
  double stop = I->opt.t_stop, next = 0;
  CVodeGetCurrentStep(c->mem, &next);
  if (h > 0 && I->t + h < stop && c->tn + next > I->t + h)
    stop = I->t + h > c->tn ? I->t + h : c->tn;
  CVodeSetMaxStep(c->mem, h);
  CVodeSetStopTime(c->mem, stop > c->tn ? stop : c->tn);
}

static const hg_integ_backend cvode_backend = {cv_advance, cv_reset, cv_stats, cv_release,
                                               cv_limit_step};

/* ---- construction ---- */

/* atol per component of y = (xi, v, w): angle or length for xi, angular or linear rate for v,
 * atol_quad for the quadratures */
static void cv_fill_atol(const hg_integrator *I, double *atol) {
  const hg_integ_options *o = &I->opt;
  double ang = o->atol_angle > 0 ? o->atol_angle : o->rtol;
  double len = o->atol_length > 0 ? o->atol_length : o->rtol;
  double angvel = o->atol_angvel > 0 ? o->atol_angvel : o->rtol;
  double linvel = o->atol_linvel > 0 ? o->atol_linvel : o->rtol;
  for (int i = 1; i < I->m->nbody; i++)
    for (int k = 0; k < I->m->jnt_nv[i]; k++) {
      int a = I->m->v_adr[i] + k, angular = hg_joint_dof_is_angular(I->m->jnt[i].type, k);
      atol[a] = angular ? ang : len;
      atol[I->nv + a] = angular ? angvel : linvel;
    }
  for (int k = 0; k < I->nquad; k++) atol[2 * I->nv + k] = o->atol_quad > 0 ? o->atol_quad : o->rtol;
}

/* 0 when flag is CV_SUCCESS, else -1 with err naming the call */
static int cv_check(int flag, const char *call, const cvode_impl *c, hg_error *err) {
  if (flag == CV_SUCCESS) return 0;
  if (err)
    hg_error_set(err, "CVODE setup: %s failed (%d): %s", call, flag,
             c ? c->cv_msg : "out of memory");
  return -1;
}

/* the linear solver (BDF: Newton with dense LU and the difference-quotient Jacobian cv_jac) or the
 * nonlinear solver (Adams: fixed-point iteration) */
static int cv_solvers(hg_integrator *I, hg_error *err) {
  cvode_impl *c = I->impl;
  if (I->opt.method == HG_INTEG_CVODE_BDF) {
    sunindextype n = ysize(I);
    c->A = SUNDenseMatrix(n, n, c->ctx);
    c->LS = c->A ? SUNLinSol_Dense(c->y, c->A, c->ctx) : NULL;
    if (!c->LS) return cv_check(-1, "SUNLinSol_Dense", c, err);
    if (cv_check(CVodeSetLinearSolver(c->mem, c->LS, c->A), "CVodeSetLinearSolver", c, err))
      return -1;
    return cv_check(CVodeSetJacFn(c->mem, cv_jac), "CVodeSetJacFn", c, err);
  }
  c->NLS = SUNNonlinSol_FixedPoint(c->y, 0, c->ctx);
  if (!c->NLS) return cv_check(-1, "SUNNonlinSol_FixedPoint", c, err);
  return cv_check(CVodeSetNonlinearSolver(c->mem, c->NLS), "CVodeSetNonlinearSolver", c, err);
}

/* root functions and their directions */
static int cv_root_setup(hg_integrator *I, hg_error *err) {
  cvode_impl *c = I->impl;
  if (I->nroot == 0) return 0;
  if (cv_check(CVodeRootInit(c->mem, I->nroot, cv_roots), "CVodeRootInit", c, err)) return -1;
  CVodeSetNoInactiveRootWarn(c->mem);
  return cv_check(CVodeSetRootDirection(c->mem, I->root_dir), "CVodeSetRootDirection", c, err);
}

/* workspace: vectors of 2 nv + nquad, the chart centre and the callback configuration */
static int cv_alloc(hg_integrator *I, hg_error *err) {
  cvode_impl *c = I->impl;
  sunindextype n = ysize(I);
  if (SUNContext_Create(NULL, &c->ctx) != 0) return cv_check(-1, "SUNContext_Create", c, err);
  c->y = N_VNew_Serial(n, c->ctx);
  c->yout = N_VNew_Serial(n, c->ctx);
  c->yroot = N_VNew_Serial(n, c->ctx);
  c->atol = N_VNew_Serial(n, c->ctx);
  c->qref = malloc((size_t)I->nq * sizeof(double));
  c->qc = malloc((size_t)I->nq * sizeof(double));
  c->qp = malloc((size_t)I->nq * sizeof(double));
  c->vp = malloc((size_t)I->nv * sizeof(double));
  c->eq = malloc((size_t)I->nv * sizeof(double));
  c->ev = malloc((size_t)I->nv * sizeof(double));
  c->rootinfo = calloc((size_t)I->nroot + 1, sizeof(int));
  if (!c->y || !c->yout || !c->yroot || !c->atol || !c->qref || !c->qc || !c->qp || !c->vp ||
      !c->eq || !c->ev || !c->rootinfo)
    return cv_check(-1, "allocation", c, err);
  return 0;
}

int hg_integ_cvode_init(hg_integrator *I, hg_error *err) {
  cvode_impl *c = calloc(1, sizeof *c);
  if (!c) return cv_check(-1, "allocation", c, err);
  I->impl = c;
  I->ops = &cvode_backend;
  if (cv_alloc(I, err)) return -1;
  /* y0 = (0, v0, w0) in the chart centred on q0 */
  cv_load_state(I);
  cv_fill_atol(I, ydata(c->atol));
  c->tn = I->t;
  int lmm = I->opt.method == HG_INTEG_CVODE_BDF ? CV_BDF : CV_ADAMS;
  c->mem = CVodeCreate(lmm, c->ctx);
  if (!c->mem) return cv_check(-1, "CVodeCreate", c, err);
  CVodeSetErrHandlerFn(c->mem, cv_error_handler, c);
  if (cv_check(CVodeInit(c->mem, cv_rhs, I->t, c->y), "CVodeInit", c, err) ||
      cv_check(CVodeSetUserData(c->mem, I), "CVodeSetUserData", c, err) ||
      cv_check(CVodeSVtolerances(c->mem, I->opt.rtol, c->atol), "CVodeSVtolerances", c, err) ||
      cv_check(CVodeSetMaxHnilWarns(c->mem, -1), "CVodeSetMaxHnilWarns", c, err))
    return -1;
  if (I->opt.max_step > 0 &&
      cv_check(CVodeSetMaxStep(c->mem, I->opt.max_step), "CVodeSetMaxStep", c, err))
    return -1;
  if (isfinite(I->opt.t_stop) && I->opt.t_stop > I->t &&
      cv_check(CVodeSetStopTime(c->mem, I->opt.t_stop), "CVodeSetStopTime", c, err))
    return -1;
  if (cv_solvers(I, err) || cv_root_setup(I, err)) return -1;
  /* BDF: CVODE projects every step (CVodeReInit keeps it); Adams projects in cv_advance */
  if (I->sys.project && I->opt.method == HG_INTEG_CVODE_BDF &&
      cv_check(CVodeSetProjFn(c->mem, cv_project), "CVodeSetProjFn", c, err))
    return -1;
  return 0;
}
