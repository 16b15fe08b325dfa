/* test_complex_step.c: the accuracy metrics (MAE, RMSAE, MRE, RMSRE) of S. Singh, R. Russell and
 * P. Wensing, "On Second-Order Derivatives of Rigid-Body Dynamics: Theory & Implementation", of
 * the analytic derivatives of inverse dynamics, and of central differences for comparison,
 * against a complex-step reference on serial chains and binary trees of 2 to 100 bodies.
 *
 * The reference is an independent inverse dynamics written here in complex arithmetic (RNEA in
 * body frames, Featherstone's form, for the revolute joints of these models): with q_k + i h,
 * Im tau / h is d tau / d q_k with no subtractive cancellation, exact to rounding for
 * h = 1e-20 (the truncation error is h^2 |f'''| ~ 1e-40). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models.h"
#include "complex_rnea.h"

/* the four metrics of Singh, Russell and Wensing (eqs. 40-43) of X against the reference Xr,
 * n entries */
typedef struct {
  double mae, rmsae, mre, rmsre;
} metrics;

static metrics measure(const double *X, const double *Xr, int n) {
  metrics e = {0, 0, 0, 0};
  for (int k = 0; k < n; k++) {
    double d = fabs(X[k] - Xr[k]), rel = d / fmax(fabs(Xr[k]), 1);
    e.mae = fmax(e.mae, d), e.mre = fmax(e.mre, rel);
    e.rmsae += d * d, e.rmsre += rel * rel;
  }
  e.rmsae = sqrt(e.rmsae / n), e.rmsre = sqrt(e.rmsre / n);
  return e;
}

/* one model: the reference, the analytic derivatives and central differences; prints a row and
 * returns the analytic metrics */
static metrics one_model(const char *name, hg_model *m, hg_rng *r, metrics *cd_out) {
  int nv = m->nv, n2 = nv * nv;
  hg_data *d = hg_data_new(m);
  hg_deriv *w = hg_deriv_new(m);
  double *q = calloc((size_t)nv, sizeof(double)), *v = calloc((size_t)nv, sizeof(double));
  double *qdd = calloc((size_t)nv, sizeof(double)), *tp = calloc((size_t)nv, sizeof(double));
  double *tm = calloc((size_t)nv, sizeof(double)), *qp = calloc((size_t)nv, sizeof(double));
  double *An = calloc(2 * (size_t)n2, sizeof(double)), *Ar = calloc(2 * (size_t)n2, sizeof(double));
  double *Cd = calloc(2 * (size_t)n2, sizeof(double));
  cplx *qc = calloc((size_t)nv, sizeof(cplx)), *vc = calloc((size_t)nv, sizeof(cplx));
  cplx *tc = calloc((size_t)nv, sizeof(cplx));
  hg_test_random_vector(r, q, nv, -1, 1);
  hg_test_random_vector(r, v, nv, -1, 1);
  hg_test_random_vector(r, qdd, nv, -1, 1);
  hg_rnea_derivatives(m, d, w, q, v, qdd, NULL, An, An + n2, NULL);
  const double hc = 1e-20, h = 1e-6;
  for (int arg = 0; arg < 2; arg++)
    for (int k = 0; k < nv; k++) {
      /* the complex step */
      for (int l = 0; l < nv; l++) qc[l] = q[l], vc[l] = v[l];
      (arg ? vc : qc)[k] += _Complex_I * hc;
      assert_int_equal(hg_test_rnea_complex(m, qc, vc, qdd, tc), 0);
      for (int l = 0; l < nv; l++) Ar[arg * n2 + l * nv + k] = cimag(tc[l]) / hc;
      /* central differences (revolute joints: q (+) d = q + d) */
      for (int s = 0; s < 2; s++) {
        memcpy(qp, arg ? v : q, sizeof(double) * (size_t)nv);
        qp[k] += s ? -h : h;
        hg_rnea(m, d, arg ? q : qp, arg ? qp : v, qdd, NULL, s ? tm : tp);
      }
      for (int l = 0; l < nv; l++) Cd[arg * n2 + l * nv + k] = (tp[l] - tm[l]) / (2 * h);
    }
  /* the complex RNEA itself against hinge's RNEA (both real here) */
  for (int l = 0; l < nv; l++) qc[l] = q[l], vc[l] = v[l];
  assert_int_equal(hg_test_rnea_complex(m, qc, vc, qdd, tc), 0);
  hg_rnea(m, d, q, v, qdd, NULL, tp);
  for (int l = 0; l < nv; l++) assert_true(fabs(creal(tc[l]) - tp[l]) <= 1e-9 * fmax(1, fabs(tp[l])));
  metrics e = measure(An, Ar, 2 * n2), c = measure(Cd, Ar, 2 * n2);
  printf("# %-10s %4d  %9.2e %9.2e %9.2e %9.2e   %9.2e %9.2e %9.2e %9.2e\n", name, nv, e.mae,
         e.rmsae, e.mre, e.rmsre, c.mae, c.rmsae, c.mre, c.rmsre);
  *cd_out = c;
  hg_deriv_free(w);
  hg_data_free(d);
  free(q); free(v); free(qdd); free(tp); free(tm); free(qp); free(An); free(Ar); free(Cd);
  free(qc); free(vc); free(tc);
  return e;
}

static void accuracy_metrics(void **state) {
  (void)state;
  hg_rng r;
  hg_rng_seed(&r, 31);
  printf("# d tau/dq and d tau/dv against the complex step: analytic | central differences "
         "(h = 1e-6)\n#  model      nv       MAE     RMSAE       MRE     RMSRE         MAE     "
         "RMSAE       MRE     RMSRE\n");
  double worst_mre = 0;
  static const int chains[] = {2, 5, 10, 20, 50, 100};
  for (size_t k = 0; k < sizeof chains / sizeof *chains; k++) {
    char name[32];
    snprintf(name, sizeof name, "chain%d", chains[k]);
    hg_model *m = hg_test_chain(chains[k]);
    metrics cd, e = one_model(name, m, &r, &cd);
    worst_mre = fmax(worst_mre, e.mre);
    /* the analytic derivatives beat central differences by orders of magnitude */
    assert_true(e.rmsre < cd.rmsre);
    hg_model_free(m);
  }
  for (int depth = 2; depth <= 6; depth++) {
    char name[32];
    hg_model *m = hg_test_binary_tree(depth);
    snprintf(name, sizeof name, "tree%d", m->nbody - 1);
    metrics cd, e = one_model(name, m, &r, &cd);
    worst_mre = fmax(worst_mre, e.mre);
    assert_true(e.rmsre < cd.rmsre);
    hg_model_free(m);
  }
  /* both sides are exact to rounding: on the 100-link chain entries reach ~1e5 (lever arms of
   * 30 m over masses of 100 kg) and sums of ~nv^2 products lose ~nv eps relative to the largest,
   * measured 6e-11 relative to max(|ref|, 1); 1e-9 fails on any wrong term (an O(1) error) */
  printf("# worst MRE of the analytic derivatives: %.3g\n", worst_mre);
  assert_true(worst_mre < 1e-9);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(accuracy_metrics),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
