/* integ_shared.c: what every integrator back end uses (integ_internal.h): the error messages, the
 * guarded evaluations of the system (accelerations, quadratures and root functions, counted and
 * checked for finite values) and the chart of the Lie-group state. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "integ_internal.h"

/* ---- errors ---- */


int hg_integ_fail(hg_integrator *I, int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(I->msg, sizeof I->msg, fmt, ap);
  va_end(ap);
  I->failed = code;
  return code;
}

int hg_integ_fail_rhs(hg_integrator *I) {
  return hg_integ_fail(I, HG_INTEG_ERR_RHS,
                       "right-hand side failed at t = %.17g: %s; last good state at t = %.17g",
                       I->fail_t, I->fail_why, I->t);
}

int hg_integ_fail_project(hg_integrator *I) {
  return hg_integ_fail(I, HG_INTEG_ERR_SOLVER, "projection failed at t = %.17g: %s", I->fail_t,
                       I->fail_why);
}

/* ---- guarded evaluations ---- */

int hg_integ_accel(hg_integrator *I, double t, const double *q, const double *v, double *vdot) {
  I->stats.rhs_evals++;
  int rc = I->sys.accel(I->sys.user, t, q, v, vdot);
  if (rc) {
    I->fail_t = t;
    snprintf(I->fail_why, sizeof I->fail_why, "the acceleration function returned %d", rc);
    return -1;
  }
  for (int k = 0; k < I->nv; k++)
    if (!isfinite(vdot[k])) {
      int b = I->m->dof_body[k];
      I->fail_t = t;
      snprintf(I->fail_why, sizeof I->fail_why,
               "acceleration %d (joint '%s') is %g", k, I->m->jnt_name[b], vdot[k]);
      return -1;
    }
  return 0;
}

int hg_integ_rates(hg_integrator *I, double t, const double *q, const double *v, double *vdot,
                   double *wdot) {
  if (hg_integ_accel(I, t, q, v, vdot)) return -1;
  if (!I->nquad) return 0;
  int rc = I->sys.quad(I->sys.user, t, q, v, wdot);
  for (int k = 0; !rc && k < I->nquad; k++)
    if (!isfinite(wdot[k])) rc = -1;
  if (rc) {
    I->fail_t = t;
    snprintf(I->fail_why, sizeof I->fail_why, "a quadrature rate failed or is not finite");
    return -1;
  }
  return 0;
}

int hg_integ_roots(hg_integrator *I, double t, const double *q, const double *v, double *g) {
  I->stats.root_evals++;
  int rc = I->sys.roots(I->sys.user, t, q, v, g);
  if (rc) {
    hg_integ_fail(I, HG_INTEG_ERR_ROOTFN, "root function failed at t = %.17g (returned %d)", t, rc);
    return -1;
  }
  for (int k = 0; k < I->nroot; k++)
    if (!isfinite(g[k])) {
      hg_integ_fail(I, HG_INTEG_ERR_ROOTFN, "root function %d is %g at t = %.17g", k, g[k], t);
      return -1;
    }
  return 0;
}

int hg_integ_project(hg_integrator *I, double t, double *q, double *v, double *eq, double *ev) {
  I->stats.projections++;
  int rc = I->sys.project(I->sys.user, t, q, v, eq, ev);
  if (rc) {
    I->fail_t = t;
    snprintf(I->fail_why, sizeof I->fail_why, "the projection returned %d", rc);
    return rc;
  }
  for (int k = 0; k < I->nq; k++)
    if (!isfinite(q[k])) rc = -1;
  for (int k = 0; k < I->nv; k++)
    if (!isfinite(v[k])) rc = -1;
  if (rc) {
    I->fail_t = t;
    snprintf(I->fail_why, sizeof I->fail_why, "the projected state is not finite");
  }
  return rc;
}

/* ---- chart ---- */

void hg_integ_chart_rate(const hg_model *m, const double *xi, const double *v, double *xidot) {
  for (int i = 1; i < m->nbody; i++) {
    int a = m->v_adr[i];
    hg_joint_chart_rate(&m->jnt[i], xi + a, v + a, xidot + a);
  }
}

double hg_integ_chart_radius(const hg_model *m, const double *xi) {
  double r = 0;
  for (int i = 1; i < m->nbody; i++) {
    hg_joint_type type = m->jnt[i].type;
    if (type != HG_JOINT_SPHERICAL && type != HG_JOINT_FREE) continue;
    double n = hg_v3_norm(xi + m->v_adr[i]); /* the rotation part comes first */
    if (!(n <= r)) r = n;                    /* NaN propagates */
  }
  return r;
}
