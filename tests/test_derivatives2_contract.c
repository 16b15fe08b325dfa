/* test_derivatives2_contract.c: the second-order derivatives summed over their output
 * (hg_*_second_derivatives_contract, derivatives2.h) against the tensors of the routines that
 * form them (checked against central differences in test_derivatives2.c) summed entry by entry,
 * on random trees mixing every joint type with fixed and floating bases and external wrenches,
 * with random weights; hybrid dynamics under random modes.
 *
 * Inverse dynamics sums the very entries the tensors hold (only the order of the sum changes),
 * and its h_M comes from the products dM/dq_k lam instead of the tensor dM/dq: rounding of the
 * sizes summed, below 1e-13 relative to sum_l |lam_l| |T[l, m, k]|. Forward and hybrid dynamics
 * sum (lam^T M^-1) X where the tensors hold M^-1 X, with M^-1 from its own rounding: the
 * difference grows with M's condition number kappa, as that of the tensor routines' three ways
 * of applying M^-1 does (test_derivatives2.c asserts 1e4 kappa eps there); the same bound is
 * asserted here, relative to the largest entry of the summed tensor. A term left out (a
 * product with P, or a wrong weight on a prescribed DoF) is an O(1) relative error. */
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

#define NTREES 240 /* random trees of 1 to 14 bodies, every other one floating */
static int ntrees(void) { return getenv("HINGE_TEST_QUICK") ? 40 : NTREES; }

typedef struct {
  hg_model *m;
  hg_data *d;
  hg_deriv2 *w;
  int nv;
  double *q, *v, *u, *lam, *fext;
} tree;

static tree tree_new(hg_rng *r, int nbody, int floating) {
  tree t;
  t.m = hg_test_random_tree(r, nbody, floating);
  t.d = hg_data_new(t.m);
  t.w = hg_deriv2_new(t.m);
  assert_non_null(t.w);
  t.nv = t.m->nv;
  hg_test_state s = hg_test_state_new(r, t.m);
  t.q = s.q, t.v = s.v, t.u = s.u, t.fext = s.fext;
  t.lam = calloc((size_t)t.nv + 1, sizeof(double));
  hg_test_random_vector(r, t.lam, t.nv, -1, 1);
  return t;
}

static void tree_free(tree *t) {
  hg_deriv2_free(t->w);
  hg_data_free(t->d);
  hg_model_free(t->m);
  free(t->q); free(t->v); free(t->u); free(t->lam); free(t->fext);
}

static double *alloc(size_t n) {
  double *x = malloc((n + 1) * sizeof(double));
  for (size_t k = 0; k <= n; k++) x[k] = NAN; /* every entry must be written */
  return x;
}

/* the largest |H[k nv + m] - sum_l lam_l T[l, m, k]| over the largest sum_l |lam_l T[l, m, k]|,
 * or over 1 when that is smaller (the trees are of unit scale, and a tensor that is zero, such
 * as dM/dq of a cylindrical joint alone, comes out as rounding of the unit-size terms that
 * cancel; hg_test_rel_err does the same) */
static double diff(const double *H, const double *T, const double *lam, int nv) {
  size_t n = (size_t)nv;
  double e = 0, s = 1;
  for (size_t k = 0; k < n; k++)
    for (size_t m = 0; m < n; m++) {
      double x = 0, a = 0;
      for (size_t l = 0; l < n; l++) {
        double y = lam[l] * T[(k * n + l) * n + m];
        x += y, a += fabs(y);
      }
      double dx = fabs(H[k * n + m] - x);
      if (!(dx <= e)) e = dx; /* NaN propagates */
      s = fmax(s, a);
    }
  return e / s;
}

/* kappa = |M_FF|_1 |M_FF^-1|_1 over the free DoFs F (all of them in forward dynamics), from
 * CRBA and the workspace's M^-1 (M_FF^-1 embedded in hybrid dynamics) */
static double kappa(tree *t) {
  size_t n = (size_t)t->nv;
  double *M = calloc(n * n + 1, sizeof(double)), nm = 0, ni = 0;
  hg_crba(t->m, t->d, t->q, M);
#define FREE(i) (t->d->mode[t->m->dof_body[i]] == HG_MODE_FREE)
  for (size_t c = 0; c < n; c++) {
    double a = 0, b = 0;
    for (size_t l = 0; l < n; l++)
      if (FREE(l) && FREE(c)) a += fabs(M[l * n + c]), b += fabs(t->w->Minv[l * n + c]);
    nm = fmax(nm, a), ni = fmax(ni, b);
  }
#undef FREE
  free(M);
  return fmax(nm * ni, 1); /* 1 with no free DoF */
}

/* inverse dynamics: the four sums against the tensors, and each output alone */
static void id_contract(void **state) {
  (void)state;
  hg_rng r;
  hg_rng_seed(&r, 31);
  double worst = 0;
  for (int tr = 0; tr < ntrees(); tr++) {
    tree t = tree_new(&r, 1 + tr % 14, tr % 2);
    size_t n = (size_t)t.nv, n2 = n * n, n3 = n2 * n;
    double *T[4], *H[4], *H1 = alloc(n2);
    for (int x = 0; x < 4; x++) T[x] = alloc(n3), H[x] = alloc(n2);
    hg_rnea_second_derivatives(t.m, t.d, t.w, t.q, t.v, t.u, t.fext, T[0], T[1], T[2], T[3]);
    hg_rnea_second_derivatives_contract(t.m, t.d, t.w, t.q, t.v, t.u, t.fext, t.lam, H[0], H[1],
                                        H[2], H[3]);
    for (int x = 0; x < 4; x++) {
      double ex = diff(H[x], T[x], t.lam, t.nv);
      worst = fmax(worst, ex);
      double *o[4] = {NULL, NULL, NULL, NULL};
      o[x] = H1;
      hg_rnea_second_derivatives_contract(t.m, t.d, t.w, t.q, t.v, t.u, t.fext, t.lam, o[0],
                                          o[1], o[2], o[3]);
      assert_memory_equal(H1, H[x], n2 * sizeof(double));
    }
    for (int x = 0; x < 4; x++) free(T[x]), free(H[x]);
    free(H1);
    tree_free(&t);
  }
  printf("# inverse dynamics, sums over tau against the tensors summed: worst relative "
         "difference %.3e\n", worst);
  assert_true(worst < 1e-13);
}

/* forward (hybrid 0) or hybrid dynamics under random modes (hybrid 1) */
static void fd_contract_run(int hybrid) {
  hg_rng r;
  hg_rng_seed(&r, hybrid ? 33 : 32);
  double worst = 0, worst_kappa = 0;
  for (int tr = 0; tr < ntrees(); tr++) {
    tree t = tree_new(&r, 1 + tr % 14, tr % 2);
    size_t n = (size_t)t.nv, n2 = n * n, n3 = n2 * n;
    if (hybrid)
      for (int i = 1; i < t.m->nbody; i++) {
        double x = hg_rng_uniform(&r);
        t.d->mode[i] = x < 0.5 ? HG_MODE_FREE : x < 0.8 ? HG_MODE_PRESCRIBED : HG_MODE_LOCKED;
        if (t.d->mode[i] == HG_MODE_LOCKED)
          for (int k = t.m->v_adr[i]; k < t.m->v_adr[i] + t.m->jnt_nv[i]; k++) t.v[k] = 0;
      }
    double *T[4], *H[4], *H1 = alloc(n2), *y = alloc(n), *y1 = alloc(n);
    for (int x = 0; x < 4; x++) T[x] = alloc(n3), H[x] = alloc(n2);
    if (hybrid) {
      assert_int_equal(hg_hybrid_second_derivatives(t.m, t.d, t.w, t.q, t.v, t.u, t.fext, y,
                                                    T[0], T[1], T[2], T[3]), 0);
      assert_int_equal(hg_hybrid_second_derivatives_contract(t.m, t.d, t.w, t.q, t.v, t.u,
                                                             t.fext, t.lam, y1, H[0], H[1],
                                                             H[2], H[3]), 0);
    } else {
      assert_int_equal(hg_aba_second_derivatives(t.m, t.d, t.w, t.q, t.v, t.u, t.fext, y, T[0],
                                                 T[1], T[2], T[3]), 0);
      assert_int_equal(hg_aba_second_derivatives_contract(t.m, t.d, t.w, t.q, t.v, t.u, t.fext,
                                                          t.lam, y1, H[0], H[1], H[2], H[3]),
                       0);
    }
    assert_memory_equal(y, y1, n * sizeof(double));
    double kap = kappa(&t);
    for (int x = 0; x < 4; x++) {
      double e = diff(H[x], T[x], t.lam, t.nv);
      worst = fmax(worst, e);
      worst_kappa = fmax(worst_kappa, e / kap);
      /* each output alone: the same numbers */
      double *o[4] = {NULL, NULL, NULL, NULL};
      o[x] = H1;
      if (hybrid)
        assert_int_equal(hg_hybrid_second_derivatives_contract(t.m, t.d, t.w, t.q, t.v, t.u,
                                                               t.fext, t.lam, NULL, o[0], o[1],
                                                               o[2], o[3]), 0);
      else
        assert_int_equal(hg_aba_second_derivatives_contract(t.m, t.d, t.w, t.q, t.v, t.u,
                                                            t.fext, t.lam, NULL, o[0], o[1],
                                                            o[2], o[3]), 0);
      assert_memory_equal(H1, H[x], n2 * sizeof(double));
    }
    for (int x = 0; x < 4; x++) free(T[x]), free(H[x]);
    free(H1), free(y), free(y1);
    tree_free(&t);
  }
  printf("# %s dynamics, sums over the output against the tensors summed: worst relative "
         "difference %.3e (%.3e kappa eps)\n", hybrid ? "hybrid" : "forward", worst,
         worst_kappa / 0x1p-52);
  assert_true(worst_kappa < 1e4 * 0x1p-52);
}

static void fd_contract(void **state) {
  (void)state;
  fd_contract_run(0);
}

static void hybrid_contract(void **state) {
  (void)state;
  fd_contract_run(1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(id_contract),
      cmocka_unit_test(fd_contract),
      cmocka_unit_test(hybrid_contract),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
