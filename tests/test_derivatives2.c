/* test_derivatives2.c: the analytic second-order derivatives of inverse, forward and hybrid
 * dynamics (derivatives2.h) against central differences of hinge's analytic first-order derivatives
 * (derivatives.h) on the group, q (+) +-h e_k, on random trees mixing every joint type with
 * fixed and floating bases and external wrenches; dM/dq against central differences of CRBA
 * and against the rate of change of d tau / d q with qdd; the symmetries of d2tau/dv2 and
 * dM/dq.
 *
 * The reference is the five-point central difference of a first-order derivative J, whose
 * error against h is V-shaped: truncation ~ h^4 |J^(5)| / 30, rounding ~ eps |J| / h, the floor
 * near h = eps^(1/5) ~ 7e-4 at about eps^(4/5) ~ 3e-13 times the ratio of the derivatives'
 * sizes (below 1e2 on these unit-scale trees; forward dynamics adds M^-1's conditioning). Each
 * test prints the curve (the worst relative error over all trees at each h) and asserts 1e-7
 * relative at each tree's best h, a margin of 10 or more over the worst floor seen (9e-9), while
 * a missing or wrong term is an O(1) relative error. dM/dq against CRBA uses the two-point
 * stencil (floor eps^(2/3) ~ 4e-11 times the ratio) as test_derivatives.c does. */
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
/* HINGE_TEST_QUICK=1 (sanitizer builds) checks 40: every joint type still appears */
static int ntrees(void) { return getenv("HINGE_TEST_QUICK") ? 40 : NTREES; }
#define NH 10
static const double hs[NH] = {3e-2, 1e-2, 3e-3, 1e-3, 3e-4, 1e-4, 3e-5, 1e-5, 3e-6, 1e-6};

typedef struct {
  double worst[NH], best;
} vcurve;

static void print_curve(const char *what, const vcurve *vc) {
  printf("# %s vs central differences of the first-order derivatives: worst relative error "
         "over %d trees\n", what, ntrees());
  for (int t = 0; t < NH; t++) printf("#   h = %-6.0e  %.3e\n", hs[t], vc->worst[t]);
  printf("#   at each tree's best h: %.3e\n", vc->best);
}

/* one tree: model, workspaces, a random state, input (qdd or tau) and body wrenches */
typedef struct {
  hg_model *m;
  hg_data *d;
  hg_deriv *w;
  hg_deriv2 *w2;
  int nv;
  double *q, *v, *u, *fext, *qp, *vp, *up;
} tree;

static tree tree_new(hg_rng *r, int nbody, int floating) {
  tree t;
  t.m = hg_test_random_tree(r, nbody, floating);
  t.d = hg_data_new(t.m);
  t.w = hg_deriv_new(t.m);
  t.w2 = hg_deriv2_new(t.m);
  assert_non_null(t.w);
  assert_non_null(t.w2);
  t.nv = t.m->nv;
  hg_test_state s = hg_test_state_new(r, t.m);
  t.q = s.q, t.v = s.v, t.u = s.u, t.fext = s.fext;
  size_t nv = (size_t)t.nv + 1;
  t.qp = calloc((size_t)t.m->nq + 1, sizeof(double));
  t.vp = calloc(nv, sizeof(double));
  t.up = calloc(nv, sizeof(double));
  return t;
}

static void tree_free(tree *t) {
  hg_deriv2_free(t->w2);
  hg_deriv_free(t->w);
  hg_data_free(t->d);
  hg_model_free(t->m);
  free(t->q); free(t->qp); free(t->v); free(t->u); free(t->vp); free(t->up); free(t->fext);
}

static double *tensor(int nv) {
  size_t n = (size_t)nv * (size_t)nv * (size_t)nv + 1;
  double *x = malloc(n * sizeof(double));
  /* every entry must be written (the zeros too): start from NaN */
  for (size_t k = 0; k < n; k++) x[k] = NAN;
  return x;
}

/* the first-order matrices at (qp, vp, up): fd 0: dtau/dq, dtau/dv, M (ID with qdd = up);
 * fd 1: dqdd/dq, dqdd/dv, M^-1 (FD with tau = up); fd 2: dy/dq, dy/dv, dy/du (hybrid dynamics
 * in the modes of t->d) */
static void first(tree *t, int fd, double *A, double *B, double *C) {
  if (fd == 2)
    assert_int_equal(hg_hybrid_derivatives(t->m, t->d, t->w, t->qp, t->vp, t->up, t->fext, NULL,
                                           A, B, C), 0);
  else if (fd)
    assert_int_equal(hg_aba_derivatives(t->m, t->d, t->w, t->qp, t->vp, t->up, t->fext, NULL,
                                        A, B, C), 0);
  else
    hg_rnea_derivatives(t->m, t->d, t->w, t->qp, t->vp, t->up, t->fext, A, B, C);
}

/* the central differences of the three first-order matrices along direction k of argument
 * which (0: q on the group, 1: v, 2: the input u), step h, by the five-point stencil
 * (8 (J(h) - J(-h)) - (J(2h) - J(-2h))) / 12h, truncation error ~ h^4 |J^(5)| / 30: its floor,
 * near h = eps^(1/5) ~ 7e-4, lies at about eps^(4/5) ~ 3e-13 times the derivatives' size
 * ratio, so that forward dynamics on trees with a badly conditioned M (whose first-order
 * derivatives carry M^-1's rounding) keep a margin under 1e-7 too: D[x][l, m, k], x = 0, 1, 2 */
static void central(tree *t, int fd, int which, double h, double *D[3]) {
  int nv = t->nv;
  size_t n2 = (size_t)nv * (size_t)nv;
  static const double step[4] = {1, -1, 2, -2}, weight[4] = {8, -8, -1, 1};
  double *P[3], *dk = calloc((size_t)nv + 1, sizeof(double));
  for (int x = 0; x < 3; x++) P[x] = calloc(n2 + 1, sizeof(double));
  for (int k = 0; k < nv; k++) {
    for (int x = 0; x < 3; x++)
      for (size_t lm = 0; lm < n2; lm++) D[x][(size_t)k * n2 + lm] = 0;
    for (int s = 0; s < 4; s++) {
      double e = step[s] * h;
      memcpy(t->qp, t->q, sizeof(double) * (size_t)t->m->nq);
      memcpy(t->vp, t->v, sizeof(double) * (size_t)nv);
      memcpy(t->up, t->u, sizeof(double) * (size_t)nv);
      if (which == 0) {
        memset(dk, 0, sizeof(double) * (size_t)nv);
        dk[k] = 1;
        hg_model_integrate(t->m, t->q, dk, e, t->qp);
      } else if (which == 1) {
        t->vp[k] += e;
      } else {
        t->up[k] += e;
      }
      first(t, fd, P[0], P[1], P[2]);
      for (int x = 0; x < 3; x++)
        for (size_t lm = 0; lm < n2; lm++)
          D[x][(size_t)k * n2 + lm] += weight[s] * P[x][lm] / (12 * h);
    }
  }
  for (int x = 0; x < 3; x++) free(P[x]);
  free(dk);
}

/* the relative error of analytic tensor A against reference R (nv^3) */
static double err3(const double *A, const double *R, int nv) {
  return hg_test_rel_err(A, R, nv * nv * nv);
}

/* entry [l, m, k] of a tensor of derivatives2.h, with n = nv in scope */
#define IDX(l, m, k) (((k) * n + (l)) * n + (m))

/* R[l, m, k] = X[l, k, m] */
static void swap_mk(const double *X, int nv, double *R) {
  size_t n = (size_t)nv;
  for (size_t l = 0; l < n; l++)
    for (size_t a = 0; a < n; a++)
      for (size_t b = 0; b < n; b++) R[IDX(l, a, b)] = X[IDX(l, b, a)];
}

static void note(vcurve *c, int t, double e, double *best) {
  if (!(e <= c->worst[t])) c->worst[t] = e;
  if (e < best[0]) best[0] = e;
}
static void close_tree(vcurve *c, double best) {
  if (!(best <= c->best)) c->best = best;
}

/* inverse dynamics: d2tau/dq2, d2tau/dv2, d2tau/dqdv (both orders of the mixed derivative)
 * and dM/dq against central differences of d tau/d q, d tau/d v and M */
static void id_second(void **state) {
  (void)state;
  hg_rng r;
  hg_rng_seed(&r, 21);
  vcurve cqq = {{0}, 0}, cvv = {{0}, 0}, cqv = {{0}, 0}, cvq = {{0}, 0}, cM = {{0}, 0};
  double worst_sym_v = 0, worst_sym_M = 0, worst_qa = 0;
  int types[HG_JOINT_NTYPES] = {0};
  for (int tr = 0; tr < ntrees(); tr++) {
    tree t = tree_new(&r, 1 + tr % 14, tr % 2);
    int nv = t.nv;
    for (int i = 1; i < t.m->nbody; i++) types[t.m->jnt[i].type]++;
    double *qq = tensor(nv), *vv = tensor(nv), *qv = tensor(nv), *dM = tensor(nv);
    hg_rnea_second_derivatives(t.m, t.d, t.w2, t.q, t.v, t.u, t.fext, qq, vv, qv, dM);
    double *D[3] = {tensor(nv), tensor(nv), tensor(nv)}, *R = tensor(nv);
    double bqq = INFINITY, bvv = INFINITY, bqv = INFINITY, bvq = INFINITY, bM = INFINITY;
    for (int h = 0; h < NH; h++) {
      /* along q: dtau/dq -> d2tau/dq2, dtau/dv -> d2tau/dv dq (= qv with m, k swapped), M -> dM */
      central(&t, 0, 0, hs[h], D);
      note(&cqq, h, err3(qq, D[0], nv), &bqq);
      swap_mk(D[1], nv, R);
      note(&cvq, h, err3(qv, R, nv), &bvq);
      note(&cM, h, err3(dM, D[2], nv), &bM);
      /* along v: dtau/dq -> d2tau/dqdv, dtau/dv -> d2tau/dv2 */
      central(&t, 0, 1, hs[h], D);
      note(&cqv, h, err3(qv, D[0], nv), &bqv);
      note(&cvv, h, err3(vv, D[1], nv), &bvv);
    }
    close_tree(&cqq, bqq), close_tree(&cvv, bvv), close_tree(&cqv, bqv);
    close_tree(&cvq, bvq), close_tree(&cM, bM);
    /* dtau/dq is affine in qdd: its central difference along qdd_k is exact up to rounding and
     * is d2tau/dq_m dqdd_k = dM_lk/dq_m */
    central(&t, 0, 2, 1.0, D);
    swap_mk(dM, nv, R);
    double e = err3(R, D[0], nv);
    if (e > worst_qa) worst_qa = e;
    /* symmetries: d2tau/dv2 in (m, k), dM/dq in (l, m) */
    size_t n = (size_t)nv;
    double sv = 0, sM = 0, nvv = 1, nM = 1;
    for (size_t l = 0; l < n; l++)
      for (size_t a = 0; a < n; a++)
        for (size_t b = 0; b < n; b++) {
          double x = vv[IDX(l, a, b)], y = vv[IDX(l, b, a)];
          double u = dM[IDX(l, a, b)], z = dM[IDX(a, l, b)];
          sv = fmax(sv, fabs(x - y)), sM = fmax(sM, fabs(u - z));
          nvv = fmax(nvv, fabs(x)), nM = fmax(nM, fabs(u));
        }
    worst_sym_v = fmax(worst_sym_v, sv / nvv);
    worst_sym_M = fmax(worst_sym_M, sM / nM);
    for (int x = 0; x < 3; x++) free(D[x]);
    free(R); free(qq); free(vv); free(qv); free(dM);
    tree_free(&t);
  }
  print_curve("d2tau/dq2", &cqq);
  print_curve("d2tau/dv2", &cvv);
  print_curve("d2tau/dqdv (along v of dtau/dq)", &cqv);
  print_curve("d2tau/dqdv (along q of dtau/dv)", &cvq);
  print_curve("dM/dq", &cM);
  printf("# d2tau/dq dqdd vs dM/dq: worst relative difference %.3g\n", worst_qa);
  printf("# symmetry of d2tau/dv2 in (m, k): %.3g; of dM/dq in (l, m): %.3g\n", worst_sym_v,
         worst_sym_M);
  printf("# joints:");
  for (int k = 0; k < HG_JOINT_NTYPES; k++) printf(" %d", types[k]);
  printf("\n");
  for (int k = 0; k < HG_JOINT_NTYPES; k++) assert_true(types[k] > 0);
  assert_true(cqq.best < 1e-7);
  assert_true(cvv.best < 1e-7);
  assert_true(cqv.best < 1e-7);
  assert_true(cvq.best < 1e-7);
  assert_true(cM.best < 1e-7);
  /* an exact difference of an affine function (step 1): rounding of numbers of size ~1e2 */
  assert_true(worst_qa < 1e-11);
  /* the same products summed in another order: rounding only */
  assert_true(worst_sym_v < 1e-12);
  assert_true(worst_sym_M < 1e-12);
}

/* 1 when the bodies of DoFs a and b are one body, or one is an ancestor of the other */
static int related(const hg_model *m, int a, int b) {
  int i = m->dof_body[a], j = m->dof_body[b];
  if (i > j) {
    int x = i;
    i = j, j = x;
  }
  return j >= i && j < m->subtree_end[i];
}

/* hg_rnea_second_derivatives_paths writes entries whose three DoFs lie on one path from a root
 * (pairwise related bodies) only, each equal to hg_rnea_second_derivatives', and leaves every
 * other entry as it was (NaN here), where hg_rnea_second_derivatives writes zeros. On a path it
 * leaves those it knows to be zero too (dM/dq_k where k carries both DoFs: the rows turn
 * rigidly) */
static void id_paths(void **state) {
  (void)state;
  hg_rng r;
  hg_rng_seed(&r, 24);
  long written = 0, left = 0, zero = 0;
  for (int tr = 0; tr < ntrees(); tr++) {
    tree t = tree_new(&r, 1 + tr % 14, tr % 2);
    int nv = t.nv;
    size_t n = (size_t)nv;
    double *A[4], *P[4];
    for (int x = 0; x < 4; x++) A[x] = tensor(nv), P[x] = tensor(nv);
    hg_rnea_second_derivatives(t.m, t.d, t.w2, t.q, t.v, t.u, t.fext, A[0], A[1], A[2], A[3]);
    hg_rnea_second_derivatives_paths(t.m, t.d, t.w2, t.q, t.v, t.u, t.fext, P[0], P[1], P[2],
                                     P[3]);
    for (size_t k = 0; k < n; k++)
      for (size_t l = 0; l < n; l++)
        for (size_t mm = 0; mm < n; mm++) {
          int on = related(t.m, (int)l, (int)mm) && related(t.m, (int)l, (int)k) &&
                   related(t.m, (int)mm, (int)k);
          for (int x = 0; x < 4; x++) {
            double a = A[x][IDX(l, mm, k)], p = P[x][IDX(l, mm, k)];
            if (on && !isnan(p)) {
              assert_true(a == p);
              written++;
            } else if (on) {
              assert_true(a == 0);
              zero++;
            } else {
              assert_true(a == 0);
              assert_true(isnan(p));
              left++;
            }
          }
        }
    for (int x = 0; x < 4; x++) free(A[x]), free(P[x]);
    tree_free(&t);
  }
  printf("# paths only: %ld entries written, equal to the full routine's; %ld off the paths and "
         "%ld zeros on them left as they were\n", written, left, zero);
  assert_true(written > 0 && left > 0);
}

/* dM/dq against central differences of CRBA's M */
static void dM_crba(void **state) {
  (void)state;
  hg_rng r;
  hg_rng_seed(&r, 22);
  vcurve c = {{0}, 0};
  for (int tr = 0; tr < ntrees(); tr++) {
    tree t = tree_new(&r, 1 + tr % 14, tr % 2);
    int nv = t.nv;
    size_t n = (size_t)nv, n2 = n * n;
    double *dM = tensor(nv), *R = tensor(nv), *P = calloc(n2 + 1, sizeof(double));
    double *Q = calloc(n2 + 1, sizeof(double)), *dk = calloc(n + 1, sizeof(double));
    hg_rnea_second_derivatives(t.m, t.d, t.w2, t.q, t.v, t.u, NULL, NULL, NULL, NULL, dM);
    double best = INFINITY;
    for (int h = 0; h < NH; h++) {
      for (size_t k = 0; k < n; k++) {
        memset(dk, 0, n * sizeof(double));
        dk[k] = 1;
        hg_model_integrate(t.m, t.q, dk, hs[h], t.qp);
        hg_crba(t.m, t.d, t.qp, P);
        hg_model_integrate(t.m, t.q, dk, -hs[h], t.qp);
        hg_crba(t.m, t.d, t.qp, Q);
        for (size_t lm = 0; lm < n2; lm++) R[k * n2 + lm] = (P[lm] - Q[lm]) / (2 * hs[h]);
      }
      note(&c, h, err3(dM, R, nv), &best);
    }
    close_tree(&c, best);
    free(dM); free(R); free(P); free(Q); free(dk);
    tree_free(&t);
  }
  print_curve("dM/dq (CRBA)", &c);
  assert_true(c.best < 1e-7);
}

/* forward dynamics: d2qdd/dq2, d2qdd/dv2, d2qdd/dqdv and d2qdd/dqdtau against central
 * differences of d qdd/d q, d qdd/d v (ABA's analytic derivatives) */
static void fd_second(void **state) {
  (void)state;
  hg_rng r;
  hg_rng_seed(&r, 23);
  vcurve cqq = {{0}, 0}, cvv = {{0}, 0}, cqv = {{0}, 0}, cqt = {{0}, 0};
  for (int tr = 0; tr < ntrees(); tr++) {
    tree t = tree_new(&r, 1 + tr % 14, tr % 2);
    int nv = t.nv;
    double *qq = tensor(nv), *vv = tensor(nv), *qv = tensor(nv), *qt = tensor(nv);
    assert_int_equal(hg_aba_second_derivatives(t.m, t.d, t.w2, t.q, t.v, t.u, t.fext, NULL, qq,
                                               vv, qv, qt), 0);
    double *D[3] = {tensor(nv), tensor(nv), tensor(nv)};
    double bqq = INFINITY, bvv = INFINITY, bqv = INFINITY, bqt = INFINITY;
    for (int h = 0; h < NH; h++) {
      central(&t, 1, 0, hs[h], D);
      note(&cqq, h, err3(qq, D[0], nv), &bqq);
      central(&t, 1, 1, hs[h], D);
      note(&cqv, h, err3(qv, D[0], nv), &bqv);
      note(&cvv, h, err3(vv, D[1], nv), &bvv);
      central(&t, 1, 2, hs[h], D);
      note(&cqt, h, err3(qt, D[0], nv), &bqt);
    }
    close_tree(&cqq, bqq), close_tree(&cvv, bvv), close_tree(&cqv, bqv), close_tree(&cqt, bqt);
    for (int x = 0; x < 3; x++) free(D[x]);
    free(qq); free(vv); free(qv); free(qt);
    tree_free(&t);
  }
  print_curve("d2qdd/dq2", &cqq);
  print_curve("d2qdd/dv2", &cvv);
  print_curve("d2qdd/dqdv", &cqv);
  print_curve("d2qdd/dqdtau", &cqt);
  assert_true(cqq.best < 1e-7);
  assert_true(cvv.best < 1e-7);
  assert_true(cqv.best < 1e-7);
  assert_true(cqt.best < 1e-7);
}

/* the three ways hg_aba_second_derivatives applies -M^-1 (products with M^-1, the articulated
 * recursion, the factors M = L^T D L; the workspace's choice by the tree's shape), each forced in
 * turn on every random tree. The two solves never form M^-1 and agree to rounding (1.5e-12 seen):
 * 1e-10 asserted. The products carry M^-1's own rounding, which grows with M's condition number
 * kappa (1-norm; up to 1.2e5 on these trees): they differ from the solves by at most 452 kappa
 * eps (6.5e-9 on one tree), and 1e4 kappa eps is asserted. A wrong factor or sweep is an O(1)
 * error. The 63-body binary tree takes the factors, a 30-DoF chain and humanoid32 the products
 * (hg_deriv2_new's rule) */
static void fd_second_solvers(void **state) {
  (void)state;
  hg_rng r;
  hg_rng_seed(&r, 25);
  double worst_solves = 0, worst_products = 0;
  for (int tr = 0; tr < ntrees(); tr++) {
    tree t = tree_new(&r, 1 + tr % 14, tr % 2);
    int nv = t.nv;
    double *T[3][4];
    for (int way = 0; way < 3; way++) {
      t.w2->ltdl = way == 2;
      t.w2->w1->product = way == 0;
      for (int x = 0; x < 4; x++) T[way][x] = tensor(nv);
      assert_int_equal(hg_aba_second_derivatives(t.m, t.d, t.w2, t.q, t.v, t.u, t.fext, NULL,
                                                 T[way][0], T[way][1], T[way][2], T[way][3]),
                       0);
    }
    /* kappa = |M|_1 |M^-1|_1 */
    double *M = calloc((size_t)nv * nv + 1, sizeof(double)), nm = 0, ni = 0;
    hg_crba(t.m, t.d, t.q, M);
    for (int c = 0; c < nv; c++) {
      double a = 0, b = 0;
      for (int l = 0; l < nv; l++) a += fabs(M[l * nv + c]), b += fabs(t.w2->Minv[l * nv + c]);
      nm = a > nm ? a : nm, ni = b > ni ? b : ni;
    }
    free(M);
    for (int x = 0; x < 4; x++) {
      double es = err3(T[2][x], T[1][x], nv), ep = err3(T[0][x], T[1][x], nv) / (nm * ni);
      worst_solves = es > worst_solves ? es : worst_solves;
      worst_products = ep > worst_products ? ep : worst_products;
    }
    for (int way = 0; way < 3; way++)
      for (int x = 0; x < 4; x++) free(T[way][x]);
    tree_free(&t);
  }
  printf("# d2qdd tensors, factors against the articulated recursion: worst relative difference "
         "%.3e\n# products with M^-1 against it: worst relative difference / kappa %.3e eps\n",
         worst_solves, worst_products / 0x1p-52);
  assert_true(worst_solves < 1e-10);
  assert_true(worst_products < 1e4 * 0x1p-52);
  hg_model *bt = hg_test_binary_tree(6), *ch = hg_test_chain(30), *hu = hg_test_humanoid();
  hg_deriv2 *wb = hg_deriv2_new(bt), *wc = hg_deriv2_new(ch), *wh = hg_deriv2_new(hu);
  assert_true(wb->ltdl);
  assert_false(wc->ltdl);
  assert_false(wh->ltdl);
  hg_deriv2_free(wb), hg_deriv2_free(wc), hg_deriv2_free(wh);
  hg_model_free(bt), hg_model_free(ch), hg_model_free(hu);
}

/* hybrid dynamics under random modes (half free, the rest prescribed or locked, locked joints
 * at rest): d2y/dq2, d2y/dv2, d2y/dqdv and d2y/dqdu against central differences of
 * hg_hybrid_derivatives */
static void hybrid_second(void **state) {
  (void)state;
  hg_rng r;
  hg_rng_seed(&r, 24);
  vcurve cqq = {{0}, 0}, cvv = {{0}, 0}, cqv = {{0}, 0}, cqu = {{0}, 0};
  for (int tr = 0; tr < ntrees(); tr++) {
    tree t = tree_new(&r, 1 + tr % 14, tr % 2);
    int nv = t.nv;
    for (int i = 1; i < t.m->nbody; i++) {
      double x = hg_rng_uniform(&r);
      t.d->mode[i] = x < 0.5 ? HG_MODE_FREE : x < 0.8 ? HG_MODE_PRESCRIBED : HG_MODE_LOCKED;
      if (t.d->mode[i] == HG_MODE_LOCKED)
        for (int k = t.m->v_adr[i]; k < t.m->v_adr[i] + t.m->jnt_nv[i]; k++) t.v[k] = 0;
    }
    double *qq = tensor(nv), *vv = tensor(nv), *qv = tensor(nv), *qu = tensor(nv);
    assert_int_equal(hg_hybrid_second_derivatives(t.m, t.d, t.w2, t.q, t.v, t.u, t.fext, NULL,
                                                  qq, vv, qv, qu), 0);
    double *D[3] = {tensor(nv), tensor(nv), tensor(nv)};
    double bqq = INFINITY, bvv = INFINITY, bqv = INFINITY, bqu = INFINITY;
    for (int h = 0; h < NH; h++) {
      central(&t, 2, 0, hs[h], D);
      note(&cqq, h, err3(qq, D[0], nv), &bqq);
      central(&t, 2, 1, hs[h], D);
      note(&cqv, h, err3(qv, D[0], nv), &bqv);
      note(&cvv, h, err3(vv, D[1], nv), &bvv);
      central(&t, 2, 2, hs[h], D);
      note(&cqu, h, err3(qu, D[0], nv), &bqu);
    }
    close_tree(&cqq, bqq), close_tree(&cvv, bvv), close_tree(&cqv, bqv), close_tree(&cqu, bqu);
    for (int x = 0; x < 3; x++) free(D[x]);
    free(qq); free(vv); free(qv); free(qu);
    tree_free(&t);
  }
  print_curve("hybrid d2y/dq2", &cqq);
  print_curve("hybrid d2y/dv2", &cvv);
  print_curve("hybrid d2y/dqdv", &cqv);
  print_curve("hybrid d2y/dqdu", &cqu);
  assert_true(cqq.best < 1e-7);
  assert_true(cvv.best < 1e-7);
  assert_true(cqv.best < 1e-7);
  assert_true(cqu.best < 1e-7);
}

/* kind 0: hg_rnea_second_derivatives, 1: hg_aba_..., 2: hg_hybrid_... at the state st into T
 * (any NULL) */
static void second(int kind, const hg_model *m, hg_data *d, hg_deriv2 *w,
                   const hg_test_state *st, double *const *T) {
  if (kind == 0)
    hg_rnea_second_derivatives(m, d, w, st->q, st->v, st->u, st->fext, T[0], T[1], T[2], T[3]);
  else if (kind == 1)
    assert_int_equal(hg_aba_second_derivatives(m, d, w, st->q, st->v, st->u, st->fext, NULL,
                                               T[0], T[1], T[2], T[3]), 0);
  else
    assert_int_equal(hg_hybrid_second_derivatives(m, d, w, st->q, st->v, st->u, st->fext, NULL,
                                                  T[0], T[1], T[2], T[3]), 0);
}

/* the same for the sums over the output with weights lam (kinds 0 to 2 as above), into H (nv^2
 * each, any NULL) */
static void summed(int kind, const hg_model *m, hg_data *d, hg_deriv2 *w,
                   const hg_test_state *st, const double *lam, double *const *H) {
  if (kind == 0)
    hg_rnea_second_derivatives_contract(m, d, w, st->q, st->v, st->u, st->fext, lam, H[0], H[1],
                                        H[2], H[3]);
  else if (kind == 1)
    assert_int_equal(hg_aba_second_derivatives_contract(m, d, w, st->q, st->v, st->u, st->fext,
                                                        lam, NULL, H[0], H[1], H[2], H[3]), 0);
  else
    assert_int_equal(hg_hybrid_second_derivatives_contract(m, d, w, st->q, st->v, st->u,
                                                           st->fext, lam, NULL, H[0], H[1],
                                                           H[2], H[3]), 0);
}

/* the workspace keeps nothing from one call to the next that changes a result, on random trees
 * and chains:
 * - after a call at another state (and, for hybrid dynamics, other modes), the tensors at a
 *   state are the same bits as a fresh workspace's;
 * - each output asked for alone is the same bits as with all four, in the order d2/dq2,
 *   d2/dv2, d2/dqdtau, d2/dqdv (the first two fill in scratch under their symmetries, which
 *   once reached the third's right-hand sides: NaN here), forward dynamics under each of its
 *   three ways to apply -M^-1 (fd_second_solvers);
 * - the sums over the output on that workspace are the same bits as on a new one. */
static void reuse(void **state) {
  (void)state;
  hg_rng r;
  hg_rng_seed(&r, 28);
  for (int tr = 0; tr < ntrees(); tr++) {
    int nb = 2 + tr % 10, fl = tr % 2;
    hg_model *m = tr % 3 ? hg_test_random_tree(&r, nb, fl) : hg_test_random_chain(&r, nb, fl);
    hg_data *d = hg_data_new(m);
    hg_deriv2 *used = hg_deriv2_new(m), *fresh = hg_deriv2_new(m);
    assert_non_null(used);
    assert_non_null(fresh);
    size_t nv = (size_t)m->nv, n3 = nv * nv * nv;
    /* two states, and per state the modes of kind 2 (locked joints at rest) */
    hg_test_state x[2];
    uint8_t *modes = calloc(2 * (size_t)m->nbody, 1);
    for (int s = 0; s < 2; s++) {
      x[s] = hg_test_state_new(&r, m);
      for (int i = 1; i < m->nbody; i++) {
        double u = hg_rng_uniform(&r);
        uint8_t *mo = modes + s * m->nbody + i;
        *mo = u < 0.5 ? HG_MODE_FREE : u < 0.8 ? HG_MODE_PRESCRIBED : HG_MODE_LOCKED;
        if (*mo == HG_MODE_LOCKED)
          for (int k = m->v_adr[i]; k < m->v_adr[i] + m->jnt_nv[i]; k++) x[s].v[k] = 0;
      }
    }
    double *A[4], *B[4];
    for (int k = 0; k < 4; k++) A[k] = tensor(m->nv), B[k] = tensor(m->nv);
    for (int kind = 0; kind < 3; kind++) {
      for (int i = 1; i < m->nbody; i++)
        d->mode[i] = kind == 2 ? modes[i] : HG_MODE_FREE;
      second(kind, m, d, used, &x[0], A);
      if (kind == 2) memcpy(d->mode + 1, modes + m->nbody + 1, (size_t)m->nbody - 1);
      second(kind, m, d, used, &x[1], A);
      second(kind, m, d, fresh, &x[1], B);
      for (int k = 0; k < 4; k++) assert_memory_equal(A[k], B[k], n3 * sizeof(double));
      int ltdl = used->ltdl, product = used->w1->product;
      for (int way = 0; way < (kind == 1 ? 3 : 1); way++) {
        if (kind == 1) {
          used->ltdl = way == 2, used->w1->product = way == 0;
          second(kind, m, d, used, &x[1], B);
        }
        for (int o = 0; o < 4; o++) {
          int only = (int[]){0, 1, 3, 2}[o];
          double *O[4] = {NULL, NULL, NULL, NULL};
          O[only] = A[only];
          memset(A[only], 0xff, n3 * sizeof(double)); /* NaN */
          second(kind, m, d, used, &x[1], O);
          assert_memory_equal(A[only], B[only], n3 * sizeof(double));
        }
      }
      used->ltdl = ltdl, used->w1->product = product;
    }
    /* the sums at state 0 on the workspace every routine above used, and on a new one */
    hg_deriv2 *other = hg_deriv2_new(m);
    assert_non_null(other);
    double lam[64];
    assert_true(nv <= 64);
    hg_test_random_vector(&r, lam, (int)nv, -1, 1);
    for (int kind = 0; kind < 3; kind++) {
      for (int i = 1; i < m->nbody; i++) d->mode[i] = kind == 2 ? modes[i] : HG_MODE_FREE;
      summed(kind, m, d, used, &x[0], lam, A);
      summed(kind, m, d, other, &x[0], lam, B);
      for (int k = 0; k < 4; k++) assert_memory_equal(A[k], B[k], nv * nv * sizeof(double));
    }
    hg_deriv2_free(other);
    for (int k = 0; k < 4; k++) free(A[k]), free(B[k]);
    for (int s = 0; s < 2; s++) hg_test_state_free(&x[s]);
    free(modes);
    hg_deriv2_free(used), hg_deriv2_free(fresh);
    hg_data_free(d);
    hg_model_free(m);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(id_second),
      cmocka_unit_test(id_paths),
      cmocka_unit_test(dM_crba),
      cmocka_unit_test(fd_second),
      cmocka_unit_test(fd_second_solvers),
      cmocka_unit_test(hybrid_second),
      cmocka_unit_test(reuse),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
