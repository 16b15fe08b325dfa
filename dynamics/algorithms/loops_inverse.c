/* loops_inverse.c: inverse dynamics of closed chains with active and passive joints (loops.h):
 * the accelerations the loops allow, and the actuator torques and loop forces that produce them,
 * exact, redundant (minimum torque or minimum constraint force) or refused when under-actuated. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loops.h"
#include "loops_dense.h"

#define RTOL 1e-9

static int fail(hg_data *d, const char *why) {
  snprintf(d->err, sizeof d->err, "%s", why);
  return -1;
}
#define LAPACK_MSG "LAPACK (dgesvd) failed in the constrained inverse dynamics"

int hg_loops_complete_qdd(const hg_model *m, hg_loops *L, hg_data *d, const double *q,
                          const double *v, const unsigned char *active,
                          const unsigned char *given, double *qdd, double *residual,
                          int *undetermined) {
  int nv = m->nv, mr = hg_loops_maxrows(L), nu = 0;
  double *G = malloc(((size_t)mr * nv + 1) * sizeof(double));
  double *gam = malloc(((size_t)mr + 1) * sizeof(double));
  double *Gu = malloc(((size_t)mr * nv + 1) * sizeof(double));
  double *x = malloc(((size_t)nv + 1) * sizeof(double));
  int *u = malloc(((size_t)nv + 1) * sizeof(int));
  int rc = -1;
  if (!G || !gam || !Gu || !x || !u) {
    fail(d, "out of memory");
    goto out;
  }
  hg_kinematics(m, d, q, v);
  int nc = hg_loops_rows(L, d, q, v, active, G, gam, NULL);
  for (int k = 0; k < nv; k++)
    if (!given[k]) u[nu++] = k;
  /* G_U qdd_U = gamma - G_K qdd_K */
  for (int r = 0; r < nc; r++) {
    for (int k = 0; k < nv; k++)
      if (given[k]) gam[r] -= G[(size_t)r * nv + k] * qdd[k];
    for (int a = 0; a < nu; a++) Gu[(size_t)r * nu + a] = G[(size_t)r * nv + u[a]];
  }
  int rank = hg_ld_lstsq(nc, nu, Gu, gam, RTOL, x);
  if (rank < 0) {
    fail(d, LAPACK_MSG);
    goto out;
  }
  for (int a = 0; a < nu; a++) qdd[u[a]] = x[a];
  if (undetermined) *undetermined = nu - rank;
  /* the residual of the full rows, gamma afresh */
  hg_loops_rows(L, d, q, v, active, NULL, gam, NULL);
  double res = 0;
  for (int r = 0; r < nc; r++) {
    double s = -gam[r];
    for (int k = 0; k < nv; k++) s += G[(size_t)r * nv + k] * qdd[k];
    res = fmax(res, fabs(s));
  }
  if (residual) *residual = res;
  rc = 0;
out:
  free(G), free(gam), free(Gu), free(x), free(u);
  return rc;
}

int hg_loops_inverse(const hg_model *m, hg_loops *L, hg_data *d, const double *q,
                     const double *v, const double *qdd, const unsigned char *active,
                     const int *act, int na, int min_force, const double *fext,
                     const double *tau_ext, double *tau_a, double *lambda,
                     hg_loops_id_info *info) {
  int nv = m->nv, mr = hg_loops_maxrows(L), rc = -1;
  size_t big = (size_t)(mr > nv ? mr : nv) * (size_t)nv + 1;
  double *G = malloc(big * sizeof(double)), *Gt = malloc(big * sizeof(double));
  double *N = malloc(((size_t)nv * nv + 1) * sizeof(double));
  double *NS = malloc(((size_t)nv * (na > 0 ? na : 1) + 1) * sizeof(double));
  double *tid = malloc(((size_t)nv + 1) * sizeof(double));
  double *rhs = malloc(((size_t)nv + 1) * sizeof(double));
  double *lam = malloc(((size_t)mr + 1) * sizeof(double));
  double *ta = malloc(((size_t)na + 1) * sizeof(double));
  unsigned char *isact = calloc((size_t)nv + 1, 1);
  memset(info, 0, sizeof *info);
  if (!G || !Gt || !N || !NS || !tid || !rhs || !lam || !ta || !isact) {
    fail(d, "out of memory");
    goto out;
  }
  for (int j = 0; j < na; j++) isact[act[j]] = 1;
  /* tau_id = M qdd + b - J^T fext - tau_ext */
  hg_rnea(m, d, q, v, qdd, fext, tid);
  if (tau_ext)
    for (int k = 0; k < nv; k++) tid[k] -= tau_ext[k];
  hg_kinematics(m, d, q, v);
  int nc = hg_loops_rows(L, d, q, v, active, G, NULL, NULL);
  info->nc = nc;
  for (int r = 0; r < nc; r++) /* G^T, nv x nc */
    for (int k = 0; k < nv; k++) Gt[(size_t)k * nc + r] = G[(size_t)r * nv + k];
  int rG = hg_ld_split(nc, nv, G, RTOL, NULL, N);
  if (rG < 0) {
    fail(d, LAPACK_MSG);
    goto out;
  }
  int f = nv - rG;
  info->rank_G = rG;
  info->dof = f;
  /* N^T S_a (f x na) and N^T tau_id */
  for (int i = 0; i < f; i++) {
    for (int j = 0; j < na; j++) NS[(size_t)i * na + j] = N[(size_t)act[j] * f + i];
    rhs[i] = 0;
    for (int k = 0; k < nv; k++) rhs[i] += N[(size_t)k * f + i] * tid[k];
  }
  int ra = f > 0 && na > 0 ? hg_ld_lstsq(f, na, NS, rhs, RTOL, ta) : 0;
  if (ra < 0) {
    fail(d, LAPACK_MSG);
    goto out;
  }
  info->rank_act = ra;
  info->redundant = na - ra;
  if (ra < f) {
    snprintf(d->err, sizeof d->err,
             "under-actuated: the active DoFs drive %d of the mechanism's %d DoFs", ra, f);
    rc = 1;
    goto out;
  }
  if (!min_force) {
    /* the minimum-norm torques (ta above), then G^T lambda = tau_id - S_a tau_a */
    memcpy(rhs, tid, (size_t)nv * sizeof(double));
    for (int j = 0; j < na; j++) rhs[act[j]] -= ta[j];
    if (hg_ld_lstsq(nv, nc, Gt, rhs, RTOL, lam) < 0) {
      fail(d, LAPACK_MSG);
      goto out;
    }
  } else {
    /* the passive rows G_p^T lambda = tau_id,p, lambda of least norm; then the active rows */
    int np = 0;
    for (int k = 0; k < nv; k++) {
      if (isact[k]) continue;
      memcpy(G + (size_t)np * nc, Gt + (size_t)k * nc, (size_t)nc * sizeof(double));
      rhs[np++] = tid[k];
    }
    /* (G is free by now: it holds G_p^T, np x nc) */
    if (hg_ld_lstsq(np, nc, G, rhs, RTOL, lam) < 0) {
      fail(d, LAPACK_MSG);
      goto out;
    }
    for (int j = 0; j < na; j++) {
      double s = tid[act[j]];
      for (int r = 0; r < nc; r++) s -= Gt[(size_t)act[j] * nc + r] * lam[r];
      ta[j] = s;
    }
  }
  /* the residual of the full equations */
  double res = 0;
  for (int k = 0; k < nv; k++) {
    double s = tid[k];
    for (int r = 0; r < nc; r++) s -= Gt[(size_t)k * nc + r] * lam[r];
    rhs[k] = s;
  }
  for (int j = 0; j < na; j++) rhs[act[j]] -= ta[j];
  for (int k = 0; k < nv; k++) res = fmax(res, fabs(rhs[k]));
  info->residual = res;
  memcpy(tau_a, ta, (size_t)na * sizeof(double));
  memset(lambda, 0, (size_t)mr * sizeof(double));
  memcpy(lambda, lam, (size_t)nc * sizeof(double));
  rc = 0;
out:
  free(G), free(Gt), free(N), free(NS), free(tid), free(rhs), free(lam), free(ta), free(isact);
  return rc;
}
