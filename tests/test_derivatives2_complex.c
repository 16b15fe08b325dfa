/* test_derivatives2_complex.c: the second-order derivatives of inverse dynamics along the paths
 * where tau is a polynomial, against an exact reference. tau is quadratic in v and affine in qdd,
 * so along v and qdd a central difference of an exact first derivative has no truncation error.
 * The first derivatives come from the complex step (q_m + i h or v_m + i h, h = 1e-20: exact to
 * rounding) of an independent inverse dynamics in complex arithmetic (the complex-step RNEA of
 * test_complex_step.c, revolute joints, body frames, Featherstone's form). So
 *   d2tau/dq_m dv_k  = (T_m(v + e_k) - T_m(v - e_k)) / 2,    T_m = Im tau(q + i h e_m) / h,
 *   dM_lk/dq_m       = (T_m(qdd + e_k) - T_m(qdd - e_k)) / 2,
 *   d2tau/dv_m dv_k  = (U_m(v + e_k) - U_m(v - e_k)) / 2,    U_m = Im tau(v + i h e_m) / h,
 * are exact to rounding for any step (1 here, the least rounding). Along q no such path exists
 * (test_derivatives2.c covers it with central differences). Chains and binary trees of 2 to 100
 * revolute bodies; the metrics MAE and MRE of S. Singh, R. Russell and P. Wensing, "On
 * Second-Order Derivatives of Rigid-Body Dynamics: Theory & Implementation". */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "derivatives2.h"
#include "models.h"
#include "complex_rnea.h"

/* T[l, k] = d tau_l / d x_m by the complex step along q_m (arg 0) or v_m (arg 1) */
static void cstep(const hg_model *m, int arg, int mm, const double *q, const double *v,
                  const double *qdd, cplx *qc, cplx *vc, cplx *tc, double *T) {
  const double hc = 1e-20;
  int nv = m->nv;
  for (int l = 0; l < nv; l++) qc[l] = q[l], vc[l] = v[l];
  (arg ? vc : qc)[mm] += _Complex_I * hc;
  assert_int_equal(hg_test_rnea_complex(m, qc, vc, qdd, tc), 0);
  for (int l = 0; l < nv; l++) T[l] = cimag(tc[l]) / hc;
}

/* max |a - b|, max |a - b| / max(|b|, 1) entry by entry (the MRE) and max |a - b| / max(1,
 * max |b|) (relative to the tensor's size, as test_derivatives2.c measures) over n entries */
static void errs(const double *a, const double *b, size_t n, double *mae, double *mre,
                 double *rel) {
  double big = 1, e = 0;
  for (size_t k = 0; k < n; k++) {
    double d = fabs(a[k] - b[k]);
    *mae = fmax(*mae, d), *mre = fmax(*mre, d / fmax(fabs(b[k]), 1));
    e = fmax(e, d), big = fmax(big, fabs(b[k]));
  }
  *rel = fmax(*rel, e / big);
}

/* one model: the analytic tensors against the references; returns the worst error relative to
 * the tensors' sizes */
static double one_model(const char *name, hg_model *m, hg_rng *r) {
  int nv = m->nv;
  size_t n = (size_t)nv, n3 = n * n * n;
  hg_data *d = hg_data_new(m);
  hg_deriv2 *w = hg_deriv2_new(m);
  assert_non_null(w);
  double *q = calloc(n, sizeof(double)), *v = calloc(n, sizeof(double));
  double *qdd = calloc(n, sizeof(double)), *x = calloc(n, sizeof(double));
  double *Tp = calloc(n, sizeof(double)), *Tm = calloc(n, sizeof(double));
  double *vv = calloc(n3, sizeof(double)), *qv = calloc(n3, sizeof(double));
  double *dM = calloc(n3, sizeof(double)), *Rvv = calloc(n3, sizeof(double));
  double *Rqv = calloc(n3, sizeof(double)), *RdM = calloc(n3, sizeof(double));
  cplx *qc = calloc(n, sizeof(cplx)), *vc = calloc(n, sizeof(cplx)), *tc = calloc(n, sizeof(cplx));
  hg_test_random_vector(r, q, nv, -1, 1);
  hg_test_random_vector(r, v, nv, -1, 1);
  hg_test_random_vector(r, qdd, nv, -1, 1);
  hg_rnea_second_derivatives(m, d, w, q, v, qdd, NULL, NULL, vv, qv, dM);
  for (int mm = 0; mm < nv; mm++)
    for (int k = 0; k < nv; k++) {
      /* along v_k: d2tau/dq_m dv_k and d2tau/dv_m dv_k; along qdd_k: dM_lk/dq_m */
      for (int arg = 0; arg < 3; arg++) {
        for (int s = 0; s < 2; s++) {
          memcpy(x, arg == 2 ? qdd : v, n * sizeof(double));
          x[k] += s ? -1 : 1;
          cstep(m, arg == 1, mm, q, arg == 2 ? v : x, arg == 2 ? x : qdd, qc, vc, tc,
                s ? Tm : Tp);
        }
        for (int l = 0; l < nv; l++) {
          double dd = (Tp[l] - Tm[l]) / 2;
          /* [l, m, k] at (k nv + l) nv + m; dM_lk/dq_m is dM[l, k, m] */
          if (arg == 0) Rqv[((size_t)k * n + l) * n + mm] = dd;
          else if (arg == 1) Rvv[((size_t)k * n + l) * n + mm] = dd;
          else RdM[((size_t)mm * n + l) * n + k] = dd;
        }
      }
    }
  double mae = 0, rel = 0, e1 = 0, r1 = 0, e2 = 0, r2 = 0, e3 = 0, r3 = 0;
  errs(qv, Rqv, n3, &e1, &r1, &rel);
  errs(vv, Rvv, n3, &e2, &r2, &rel);
  errs(dM, RdM, n3, &e3, &r3, &rel);
  mae = fmax(e1, fmax(e2, e3));
  printf("# %-8s nv %3d  MRE d2tau/dqdv %.1e  d2tau/dv2 %.1e  dM/dq %.1e  MAE %.1e  "
         "relative to the tensors' size %.1e\n", name, nv, r1, r2, r3, mae, rel);
  free(q); free(v); free(qdd); free(x); free(Tp); free(Tm); free(vv); free(qv); free(dM);
  free(Rvv); free(Rqv); free(RdM); free(qc); free(vc); free(tc);
  hg_deriv2_free(w);
  hg_data_free(d);
  return rel;
}

static void complex_step_second(void **state) {
  (void)state;
  hg_rng r;
  hg_rng_seed(&r, 31);
  struct {
    const char *name;
    hg_model *m;
  } models[] = {{"chain2", hg_test_chain(2)},       {"chain20", hg_test_chain(20)},
                {"chain100", hg_test_chain(100)},   {"tree7", hg_test_binary_tree(3)},
                {"tree63", hg_test_binary_tree(6)}};
  double worst = 0;
  for (size_t k = 0; k < sizeof models / sizeof *models; k++) {
    worst = fmax(worst, one_model(models[k].name, models[k].m, &r));
    hg_model_free(models[k].m);
  }
  /* both sides are exact up to rounding: sums of O(nv) products along the chain, so the error
   * relative to the tensors' size grows with nv from ~1e-17 (chain2) to ~1e-14 (chain100,
   * measured); entry by entry (MRE) small entries of long chains reach 2e-11, the same rounding
   * floor as the first-order MRE of test_complex_step.c (6e-11 at chain100). 1e-12 relative to
   * the size fails on any wrong term (an O(1) error). */
  assert_true(worst < 1e-12);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(complex_step_second),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
