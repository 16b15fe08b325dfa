/* test_derivatives2_newton.c: why second-order terms matter. A 7-DoF revolute chain (random
 * axes and inertias, seed 5) held still under gravity, joint 0 and joints 4..6 given, seeks the
 * posture x = (q1, q2, q3) whose holding torques tau(q) = RNEA(q, 0, 0) come nearest a target
 * tau0 in least squares: f(x) = 1/2 |tau(q) - tau0|^2, seven residuals for three unknowns, so
 * the residual at the optimum is not zero (|r| = 10 against |tau0| = 44). Newton's method with
 * the exact Hessian, J^T J + sum_l r_l d2tau_l/dq2 (derivatives2.h), converges quadratically;
 * Gauss-Newton, which drops the second-order sum, only linearly, at a rate set by that sum's
 * size against J^T J. Both take full steps from one start 0.02 rad off the optimum (found first
 * by Gauss-Newton with step halving, then polished by Newton). The test asserts the iteration
 * counts (measured: Newton 3, Gauss-Newton 16 to |grad f| < 1e-10 |tau0(posture)|^2) and prints
 * both sequences of |grad f|; a Hessian without the second-order sum, or with a wrong one, loses
 * the quadratic rate and fails. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dense.h"
#include "derivatives2.h"
#include "models.h"

#define NX 3 /* unknowns: joints 1..3 (joints 4..6 held at xr) */
#define NT 7 /* residuals: all seven torques */


typedef struct {
  hg_model *m;
  hg_data *d;
  hg_deriv *w;
  hg_deriv2 *w2;
  double q0, tau0[NT];
  double zero[NT], J[NT * NT], T[NT * NT * NT];
} problem;

/* q of the unknowns x */
static const double xr[NT] = {0, 0, 0, 0, 0.5, -0.4, 0.3};
static void config(const problem *p, const double *x, double *q) {
  memcpy(q, xr, sizeof xr);
  q[0] = p->q0;
  for (int k = 0; k < NX; k++) q[k + 1] = x[k];
}

/* the residual r, the gradient g = J^T r and the Hessian H (exact: J^T J + sum_l r_l d2tau_l,
 * or Gauss-Newton's J^T J), over the unknowns; returns f */
static double model_at(problem *p, const double *x, int exact, double *g, double *H) {
  double q[NT], r[NT];
  config(p, x, q);
  /* J = dtau/dq (dtau/dv, not needed, goes to T, overwritten below) */
  hg_rnea_derivatives(p->m, p->d, p->w, q, p->zero, p->zero, NULL, p->J, p->T, NULL);
  hg_rnea(p->m, p->d, q, p->zero, p->zero, NULL, r);
  double f = 0;
  for (int l = 0; l < NT; l++) r[l] -= p->tau0[l], f += 0.5 * r[l] * r[l];
  if (exact)
    hg_rnea_second_derivatives(p->m, p->d, p->w2, q, p->zero, p->zero, NULL, p->T, NULL, NULL,
                               NULL);
  for (int a = 0; a < NX; a++) {
    g[a] = 0;
    for (int l = 0; l < NT; l++) g[a] += p->J[l * NT + a + 1] * r[l];
    for (int b = 0; b < NX; b++) {
      double h = 0;
      for (int l = 0; l < NT; l++) h += p->J[l * NT + a + 1] * p->J[l * NT + b + 1];
      /* + sum_l r_l d2tau_l / dq_a dq_b: entry [l, a, b] at (b nv + l) nv + a */
      if (exact)
        for (int l = 0; l < NT; l++) h += r[l] * p->T[((b + 1) * NT + l) * NT + a + 1];
      H[a * NX + b] = h;
    }
  }
  return f;
}

static double norm(const double *x, int n) {
  double s = 0;
  for (int k = 0; k < n; k++) s += x[k] * x[k];
  return sqrt(s);
}

/* iterations of Newton (exact) or Gauss-Newton from x until |g| < tol (at most cap); prints
 * |g| per iteration (when name is not NULL). With search, each step is halved until f falls
 * (the search for the optimum); without, full steps (the local convergence compared). */
static int solve(problem *p, double *x, int exact, int search, double tol, int cap,
                 const char *name) {
  double g[NX], H[NX * NX], dx[NX], g2[NX], H2[NX * NX], xt[NX];
  if (name) printf("# %s: |grad f| per iteration:", name);
  for (int it = 0; it <= cap; it++) {
    double f = model_at(p, x, exact, g, H);
    double gn = norm(g, NX);
    if (name && it < 12) printf(" %.1e", gn);
    if (gn < tol) {
      if (name) printf("\n");
      return it;
    }
    assert_int_equal(hg_test_spd_solve(NX, H, g, dx), 0);
    for (double s = 1; s > 1e-6; s *= 0.5) {
      for (int k = 0; k < NX; k++) xt[k] = x[k] - s * dx[k];
      if (!search || model_at(p, xt, 0, g2, H2) < f) break;
    }
    memcpy(x, xt, sizeof xt);
  }
  if (name) printf(" ...\n");
  return cap + 1;
}

static void newton_vs_gauss_newton(void **state) {
  (void)state;
  problem p;
  memset(&p, 0, sizeof p);
  hg_rng rng;
  hg_rng_seed(&rng, 5);
  p.m = hg_test_random_revolute(&rng, NT, 1);
  assert_int_equal(p.m->nv, NT);
  p.d = hg_data_new(p.m);
  p.w = hg_deriv_new(p.m);
  p.w2 = hg_deriv2_new(p.m);
  assert_non_null(p.w2);
  /* a target off the reachable set: the holding torques of one posture plus a push */
  double xt[NX] = {0.4, -0.7, 0.5}, q[NT];
  p.q0 = 0.3;
  config(&p, xt, q);
  hg_rnea(p.m, p.d, q, p.zero, p.zero, NULL, p.tau0);
  double scale = norm(p.tau0, NT);
  static const double push[NT] = {0.5, -0.3, 0.4, 0.2, -0.4, 0.3, -0.2};
  for (int l = 0; l < NT; l++) p.tau0[l] += 0.8 * scale * push[l];
  /* the optimum: Gauss-Newton with step halving from the posture, then Newton to the end */
  double xs[NX];
  memcpy(xs, xt, sizeof xs);
  double tol = 1e-10 * scale * scale;
  int its = solve(&p, xs, 0, 1, 1e-6 * scale * scale, 100000, NULL);
  printf("# Gauss-Newton with step halving reaches |grad f| < %.1e in %d iterations\n",
         1e-6 * scale * scale, its);
  assert_true(its <= 100000);
  assert_true(solve(&p, xs, 1, 0, tol, 50, NULL) <= 50);
  double g[NX], H[NX * NX];
  double fs = model_at(&p, xs, 1, g, H);
  printf("# optimum: f = %.6g, |r| = %.3g (|tau0| = %.3g)\n", fs, sqrt(2 * fs), norm(p.tau0, NT));
  /* both methods from one start 0.02 rad off the optimum */
  static const double off[NX] = {0.02, -0.02, 0.016};
  double xn[NX], xg[NX];
  for (int k = 0; k < NX; k++) xn[k] = xg[k] = xs[k] + off[k];
  int itn = solve(&p, xn, 1, 0, tol, 100, "Newton (exact Hessian)");
  int itg = solve(&p, xg, 0, 0, tol, 100, "Gauss-Newton (J^T J)");
  printf("# iterations to |grad f| < %.1e: Newton %d, Gauss-Newton %d\n", tol, itn, itg);
  /* quadratic convergence: a handful of steps; the linear rate: at least twice as many */
  assert_true(itn <= 5);
  assert_true(itg >= 2 * itn);
  /* both reach the same optimum */
  for (int k = 0; k < NX && itg <= 100; k++) assert_true(fabs(xn[k] - xg[k]) < 1e-6);
  hg_deriv2_free(p.w2);
  hg_deriv_free(p.w);
  hg_data_free(p.d);
  hg_model_free(p.m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(newton_vs_gauss_newton),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
