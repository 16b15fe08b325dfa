/* fixed_step.c: fixed-step integrators on the Lie group: semi-implicit Lie-Euler and RKMK4.
 *
 * Both step q with the group exponential (q (+) xi = q * exp(xi), hg_model_integrate):
 *   Lie-Euler:  v1 = v + h f(t, q, v),   q1 = q (+) h v1;
 *   RKMK4:      classic RK4 on the chart coordinate xi of q = q_n (+) xi centred at the step start,
 *               xi(0) = 0, xidot = dexp^-1_xi(v), together with vdot = f(t, q_n (+) xi, v);
 *               then q1 = q_n (+) xi(h).
 * Steps end on the grid t_base + n h (no drift of t by round-off); a step that would pass tout is
 * shortened to land on it exactly, and the grid restarts there (and at events and resets).
 *
 * Events: after each step the root functions are compared with their values at the step start;
 * for every allowed sign change the partial step s in (0, h] that reaches the zero is found by the
 * Illinois (modified regula falsi) iteration, each trial a step of length s from the step start,
 * to ~1e-14 (|t| + h). The integrator stops at the earliest, on the side where g has changed
 * sign.
 *
 * Projection: with sys.project, every step's end state (q1, v1) is projected onto the manifold
 * before anything looks at it, and so is every trial partial step of the event search: the root
 * functions and the caller only ever see projected states. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "integ_internal.h"

/* Illinois iterations before falling back to bisection */
#define FX_SECANT_ITERS 60
/* all iterations (bisection from FX_SECANT_ITERS on halves the bracket each time) */
#define FX_ROOT_ITERS 200

typedef struct fixed_impl {
  double *kxi[4], *kv[4]; /* nv each: stage rates of xi and v */
  double *kw[4];          /* nquad each: stage rates of the quadratures */
  double *xi, *vs;        /* nv: a stage's chart coordinate and velocity */
  double *qs;             /* nq: a stage's configuration */
  double *q1, *v1, *w1;   /* the state after the step */
  double *qt, *vt, *wt;   /* the state after a trial partial step (event location) */
  double *g0, *g1, *gt;   /* nroot: roots at the step start, end and trial */
  double t_base;          /* steps end at t_base + n h: no round-off drift of t */
  long n;                 /* whole steps since t_base */
  long steps;
} fixed_impl;

/* ---- the two methods ---- */

/* v1 = v + h f(t, q, v), w1 = w + h quad(t, q, v), q1 = q (+) h v1 */
static int lie_euler_step(hg_integrator *I, double t, const double *q, const double *v, double h,
                          double *q1, double *v1, double *w1) {
  fixed_impl *f = I->impl;
  if (hg_integ_rates(I, t, q, v, f->kv[0], f->kw[0])) return -1;
  for (int k = 0; k < I->nv; k++) v1[k] = v[k] + h * f->kv[0][k];
  for (int k = 0; k < I->nquad; k++) w1[k] = I->w[k] + h * f->kw[0][k];
  hg_model_integrate(I->m, q, v1, h, q1);
  return 0;
}

/* RK4 on (xi, v) in the chart centred on q: stage s at t + c_s h with
 * xi_s = h c_s kxi_{s-1}, v_s = v + h c_s kv_{s-1}, kxi_s = dexp^-1_{xi_s}(v_s),
 * kv_s = f(t + c_s h, q (+) xi_s, v_s); then xi(h) = h sum b_s kxi_s, q1 = q (+) xi(h); the
 * quadratures take the same weights, w1 = w + h sum b_s kw_s */
static int rkmk4_step(hg_integrator *I, double t, const double *q, const double *v, double h,
                      double *q1, double *v1, double *w1) {
  static const double c[4] = {0, 0.5, 0.5, 1};
  static const double b[4] = {1.0 / 6, 1.0 / 3, 1.0 / 3, 1.0 / 6};
  fixed_impl *f = I->impl;
  int nv = I->nv;
  for (int s = 0; s < 4; s++) {
    for (int k = 0; k < nv; k++) {
      f->xi[k] = s ? h * c[s] * f->kxi[s - 1][k] : 0;
      f->vs[k] = s ? v[k] + h * c[s] * f->kv[s - 1][k] : v[k];
    }
    hg_model_integrate(I->m, q, f->xi, 1.0, f->qs);
    hg_integ_chart_rate(I->m, f->xi, f->vs, f->kxi[s]);
    if (hg_integ_rates(I, t + c[s] * h, f->qs, f->vs, f->kv[s], f->kw[s])) return -1;
  }
  for (int k = 0; k < nv; k++) {
    double dxi = 0, dv = 0;
    for (int s = 0; s < 4; s++) {
      dxi += b[s] * f->kxi[s][k];
      dv += b[s] * f->kv[s][k];
    }
    f->xi[k] = h * dxi;
    v1[k] = v[k] + h * dv;
  }
  for (int k = 0; k < I->nquad; k++)
    w1[k] = I->w[k] + h * (b[0] * f->kw[0][k] + b[1] * f->kw[1][k] + b[2] * f->kw[2][k] + b[3] * f->kw[3][k]);
  hg_model_integrate(I->m, q, f->xi, 1.0, q1);
  return 0;
}

/* one step of the chosen method from the current state (I->t, I->q, I->v), projected onto the
 * manifold when the system has a projection; 0 or the error (the integrator failed) */
static int fx_step(hg_integrator *I, double h, double *q1, double *v1, double *w1) {
  int rc = I->opt.method == HG_INTEG_LIE_EULER ? lie_euler_step(I, I->t, I->q, I->v, h, q1, v1, w1)
                                               : rkmk4_step(I, I->t, I->q, I->v, h, q1, v1, w1);
  if (rc) return hg_integ_fail_rhs(I);
  /* a recoverable failure too is final: the fixed step is not shortened */
  if (I->sys.project && hg_integ_project(I, I->t + h, q1, v1, NULL, NULL))
    return hg_integ_fail_project(I);
  return 0;
}

/* ---- events ---- */

/* +1 / -1 when g went from a to b through zero rising / falling in an allowed direction, else 0 */
static int crossing(double a, double b, int dir) {
  if (a < 0 && b >= 0 && dir >= 0) return 1;
  if (a > 0 && b <= 0 && dir <= 0) return -1;
  return 0;
}

/* has g reached the far side of zero, starting from g0? */
static int crossed(double g0, double g) { return g0 < 0 ? g >= 0 : g <= 0; }

/* the state and roots after a partial step of length s: (qt, vt, gt) */
static int fx_trial(hg_integrator *I, double s) {
  fixed_impl *f = I->impl;
  int rc = fx_step(I, s, f->qt, f->vt, f->wt);
  if (rc) return rc;
  if (hg_integ_roots(I, I->t + s, f->qt, f->vt, f->gt)) return I->failed;
  return 0;
}

/* the partial step *s in (0, h] at which root k (crossing over the step) reaches the far side
 * of zero, to the bracket tolerance tol: Illinois iteration, then bisection */
static int fx_root_time(hg_integrator *I, int k, double h, double tol, double *s_out) {
  fixed_impl *f = I->impl;
  double a = 0, b = h, ga = f->g0[k], gb = f->g1[k];
  int side = 0;
  for (int it = 0; b - a > tol && it < FX_ROOT_ITERS; it++) {
    double s = it < FX_SECANT_ITERS ? b - gb * (b - a) / (gb - ga) : 0.5 * (a + b);
    double lo = a + 0.25 * tol, hi = b - 0.25 * tol;
    if (!(s > lo)) s = lo;
    if (!(s < hi)) s = hi;
    int rc = fx_trial(I, s);
    if (rc) return rc;
    double gs = f->gt[k];
    if (crossed(f->g0[k], gs)) {
      if (side < 0) ga *= 0.5; /* the same end moved twice: Illinois halving */
      b = s, gb = gs, side = -1;
    } else {
      if (side > 0) gb *= 0.5;
      a = s, ga = gs, side = 1;
    }
  }
  *s_out = b;
  return 0;
}

/* the earliest event inside the step of length h ending at t1: the state there becomes current,
 * with every root that has crossed by then marked */
static int fx_locate(hg_integrator *I, double h, double t1) {
  fixed_impl *f = I->impl;
  double tol = 100 * DBL_EPSILON * (fabs(I->t) + h), s_min = h;
  for (int k = 0; k < I->nroot; k++) {
    if (!crossing(f->g0[k], f->g1[k], I->root_dir[k])) continue;
    double s;
    int rc = fx_root_time(I, k, h, tol, &s);
    if (rc) return rc;
    if (s < s_min) s_min = s;
  }
  int rc = fx_trial(I, s_min);
  if (rc) return rc;
  for (int k = 0; k < I->nroot; k++)
    I->roots_found[k] = crossing(f->g0[k], f->gt[k], I->root_dir[k]);
  I->t = s_min == h ? t1 : I->t + s_min;
  memcpy(I->q, f->qt, (size_t)I->nq * sizeof(double));
  memcpy(I->v, f->vt, (size_t)I->nv * sizeof(double));
  memcpy(I->w, f->wt, (size_t)I->nquad * sizeof(double));
  memcpy(f->g0, f->gt, (size_t)I->nroot * sizeof(double));
  f->steps++;
  f->t_base = I->t, f->n = 0;
  return HG_INTEG_ROOT;
}

/* ---- advancing ---- */

static int fx_advance(hg_integrator *I, double tout, int one_step) {
  fixed_impl *f = I->impl;
  for (long n = 0; I->t < tout; n++) {
    if (n >= I->opt.max_steps)
      return hg_integ_fail(I, HG_INTEG_ERR_WORK, "%ld steps from t = %.17g did not reach %.17g",
                           n, I->t, tout);
    /* the next grid time t_base + (n + 1) h, or tout exactly when that is within 1e-6 h */
    double h = I->opt.h, t1 = f->t_base + (double)(f->n + 1) * h;
    int on_grid = !(t1 >= tout - 1e-6 * h);
    if (!on_grid) t1 = tout;
    h = t1 - I->t;
    int rc = fx_step(I, h, f->q1, f->v1, f->w1);
    if (rc) return rc;
    if (I->nroot) {
      if (hg_integ_roots(I, t1, f->q1, f->v1, f->g1)) return I->failed;
      for (int k = 0; k < I->nroot; k++)
        if (crossing(f->g0[k], f->g1[k], I->root_dir[k])) return fx_locate(I, h, t1);
      memcpy(f->g0, f->g1, (size_t)I->nroot * sizeof(double));
    }
    I->t = t1;
    memcpy(I->q, f->q1, (size_t)I->nq * sizeof(double));
    memcpy(I->v, f->v1, (size_t)I->nv * sizeof(double));
    memcpy(I->w, f->w1, (size_t)I->nquad * sizeof(double));
    f->steps++;
    f->n++;
    if (!on_grid) f->t_base = t1, f->n = 0; /* a shortened step starts a new grid */
    if (one_step) break;
  }
  return HG_INTEG_OK;
}

/* the roots at the new state start the sign comparison afresh */
static int fx_reset(hg_integrator *I) {
  fixed_impl *f = I->impl;
  f->t_base = I->t, f->n = 0;
  if (I->nroot && hg_integ_roots(I, I->t, I->q, I->v, f->g0)) return I->failed;
  return HG_INTEG_OK;
}

static void fx_stats(const hg_integrator *I, hg_integ_stats *s) {
  const fixed_impl *f = I->impl;
  s->steps = f->steps;
}

static void fx_release(hg_integrator *I) {
  fixed_impl *f = I->impl;
  if (!f) return;
  for (int s = 0; s < 4; s++) {
    free(f->kxi[s]);
    free(f->kv[s]);
    free(f->kw[s]);
  }
  free(f->xi); free(f->vs); free(f->qs);
  free(f->q1); free(f->v1); free(f->w1); free(f->qt); free(f->vt); free(f->wt);
  free(f->g0); free(f->g1); free(f->gt);
  free(f);
  I->impl = NULL;
}

static const hg_integ_backend fixed_backend = {fx_advance, fx_reset, fx_stats, fx_release, NULL};

static double *fx_array(int n, int *fail) {
  double *x = calloc((size_t)n + 1, sizeof(double));
  if (!x) *fail = 1;
  return x;
}

int hg_integ_fixed_init(hg_integrator *I, hg_error *err) {
  fixed_impl *f = calloc(1, sizeof *f);
  int fail = !f;
  if (f) {
    I->impl = f;
    I->ops = &fixed_backend;
    for (int s = 0; s < 4; s++) {
      f->kxi[s] = fx_array(I->nv, &fail);
      f->kv[s] = fx_array(I->nv, &fail);
      f->kw[s] = fx_array(I->nquad, &fail);
    }
    f->xi = fx_array(I->nv, &fail);
    f->vs = fx_array(I->nv, &fail);
    f->qs = fx_array(I->nq, &fail);
    f->q1 = fx_array(I->nq, &fail);
    f->v1 = fx_array(I->nv, &fail);
    f->w1 = fx_array(I->nquad, &fail);
    f->qt = fx_array(I->nq, &fail);
    f->vt = fx_array(I->nv, &fail);
    f->wt = fx_array(I->nquad, &fail);
    f->g0 = fx_array(I->nroot, &fail);
    f->g1 = fx_array(I->nroot, &fail);
    f->gt = fx_array(I->nroot, &fail);
  }
  if (fail) {
    hg_error_set(err, "out of memory");
    return -1;
  }
  if (fx_reset(I) != HG_INTEG_OK) {
    hg_error_set(err, "%s", I->msg);
    return -1;
  }
  return 0;
}
