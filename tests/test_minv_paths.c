/* test_minv_paths.c: the paths of the M^-1 recursion (minv.c) that test_derivatives reaches only
 * through other routines: hg_minv_solve_neg with every joint free on branched trees (where the
 * wrenches of branch points and leaves have blocks of their own and chains share one), the
 * sweeps' masked last columns on rows of every length, and hg_minv's own factor pass failing on
 * a non-finite state with the joint named. */
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
#include "models.h"

static const hg_pass_options tree_frame = {.tree_frame = 1, .world_frame = 1};

/* Y = -M^-1 X by the recursion against -(M^-1) X with M^-1 from hg_minv, on random trees of 1 to
 * 24 bodies (every joint type, fixed and floating bases), ncol from 1 to nv */
static void solve_against_product(void **state) {
  (void)state;
  hg_rng r;
  hg_rng_seed(&r, 7);
  double worst = 0;
  for (int t = 0; t < 120; t++) {
    hg_model *m = hg_test_random_tree(&r, 1 + t % 24, t % 2);
    hg_data *d = hg_data_new(m);
    hg_deriv *w = hg_deriv_new(m);
    assert_non_null(w);
    int nv = m->nv, ncol = 1 + t % (nv > 0 ? nv : 1);
    if (ncol > nv) ncol = nv;
    size_t n2 = (size_t)nv * (size_t)nv + 1;
    double *q = calloc((size_t)m->nq + 1, sizeof(double)), *zero = calloc((size_t)nv + 1, sizeof(double));
    double *Minv = calloc(n2, sizeof(double)), *X = calloc(n2, sizeof(double));
    double *Y = calloc(n2, sizeof(double)), *qdd = calloc((size_t)nv + 1, sizeof(double));
    hg_model_random(m, &r, q);
    hg_test_random_vector(&r, X, nv * ncol, -1, 1);
    assert_int_equal(hg_minv(m, d, w, q, Minv), 0);
    /* the solve reads the factors of the last tree-frame pass */
    assert_int_equal(hg_aba_opt(m, d, &tree_frame, q, zero, zero, NULL, qdd), 0);
    hg_minv_solve_neg(m, d, w, NULL, X, ncol, Y);
    for (int l = 0; l < nv; l++)
      for (int c = 0; c < ncol; c++) {
        double ref = 0, scale = 0;
        for (int k = 0; k < nv; k++) {
          ref -= Minv[l * nv + k] * X[k * ncol + c];
          scale += fabs(Minv[l * nv + k] * X[k * ncol + c]);
        }
        double e = fabs(Y[l * ncol + c] - ref) / (scale > 0 ? scale : 1);
        if (!(e <= worst)) worst = e;
      }
    free(q); free(zero); free(Minv); free(X); free(Y); free(qdd);
    hg_deriv_free(w);
    hg_data_free(d);
    hg_model_free(m);
  }
  printf("solve_against_product: worst relative error %.3g\n", worst);
  /* both sides round differently, each term to eps relative, and the recursion's factors carry
   * M's condition (below 1e6 on these trees, as in test_derivatives): 1e-9 against the sum of
   * the terms' magnitudes; a wrong block or a lost column is an O(1) error */
  assert_true(worst < 1e-9);
}

/* a NaN in q: hg_minv fails and names a joint, as the articulated pass does */
static void nonfinite_state(void **state) {
  (void)state;
  hg_model *m = hg_test_chain(5);
  hg_data *d = hg_data_new(m);
  hg_deriv *w = hg_deriv_new(m);
  double q[5] = {0.1, 0.2, NAN, 0.4, 0.5}, Minv[25];
  assert_int_equal(hg_minv(m, d, w, q, Minv), -1);
  assert_non_null(strstr(d->err, "non-finite articulated inertia at joint"));
  hg_deriv_free(w);
  hg_data_free(d);
  hg_model_free(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(solve_against_product),
      cmocka_unit_test(nonfinite_state),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
