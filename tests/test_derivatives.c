/* test_derivatives.c: the analytic derivatives of inverse, forward and hybrid dynamics against
 * central differences on the group (q (+) +-h e_k), and the recursive M^-1 against ABA columns
 * and the inverse of CRBA's M, on random trees mixing every joint type with fixed and floating
 * bases and external wrenches.
 *
 * Central differences have a truncation error ~ h^2 |f'''| / 6 and a rounding error
 * ~ eps |f| / h, so the error against h is V-shaped with its floor near h = eps^(1/3) ~ 6e-6
 * (Bos, Traversaro, Pucci, Saccon, "Efficient geometric linearization of moving-base rigid
 * robot dynamics", J. Geometric Mechanics 2022, Figure 5). Each test prints that curve (the
 * worst relative error over all trees at each h) and asserts agreement to 1e-7 relative at each
 * tree's best h: the floor is eps^(2/3) ~ 4e-11 times the ratio of |f'''| and |f| to |f'|, which
 * stays below 1e2 on these trees (unit-scale inertias, lengths, rates), so 1e-7 leaves a margin
 * of 10 and fails on any wrong term (a missing term is an O(1) relative error). */
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

/* the tree-frame pass, whose factors hg_minv_factored reads */
static const hg_pass_options tree_frame = {.tree_frame = 1};

#define NTREES 240 /* at least 200 random trees; sizes 1 to 14 bodies */
/* HINGE_TEST_QUICK=1 (sanitizer builds, where this program runs 100 times slower) checks 40:
 * enough to exercise every joint type for memory errors */
static int ntrees(void) { return getenv("HINGE_TEST_QUICK") ? 40 : NTREES; }
#define NH 12
static const double hs[NH] = {1e-2, 3e-3, 1e-3, 3e-4, 1e-4, 3e-5, 1e-5, 3e-6, 1e-6, 1e-7, 1e-8, 1e-9};

typedef struct {
  hg_model *m;
  hg_data *d;
  hg_deriv *w;
  double *q, *v, *u, *fext;         /* state, input (qdd, tau or hybrid input), wrenches */
  double *A, *B, *C, *y0, *yp, *ym, *qp, *dx, *x;
} fixture;

/* buffers, a random state, input and wrenches for model m */
static fixture fixture_for(hg_model *m, hg_rng *r) {
  fixture f;
  f.m = m;
  f.d = hg_data_new(f.m);
  f.w = hg_deriv_new(f.m);
  assert_non_null(f.w);
  size_t nq = (size_t)f.m->nq + 1, nv = (size_t)f.m->nv + 1, n2 = nv * nv;
  f.q = calloc(nq, sizeof(double));
  f.qp = calloc(nq, sizeof(double));
  double **vecs[] = {&f.v, &f.u, &f.y0, &f.yp, &f.ym, &f.dx, &f.x};
  for (size_t k = 0; k < 7; k++) *vecs[k] = calloc(nv, sizeof(double));
  f.A = calloc(n2, sizeof(double));
  f.B = calloc(n2, sizeof(double));
  f.C = calloc(n2, sizeof(double));
  f.fext = calloc(6 * (size_t)f.m->nbody, sizeof(double));
  hg_model_random(f.m, r, f.q);
  hg_test_random_vector(r, f.v, f.m->nv, -2, 2);
  hg_test_random_vector(r, f.u, f.m->nv, -3, 3);
  for (int i = 1; i < f.m->nbody; i++) hg_test_random_vector(r, f.fext + 6 * i, 6, -1, 1);
  return f;
}

static fixture make(hg_rng *r, int nbody, int floating) {
  return fixture_for(hg_test_random_tree(r, nbody, floating), r);
}

static void release(fixture *f) {
  hg_deriv_free(f->w);
  hg_data_free(f->d);
  hg_model_free(f->m);
  free(f->q); free(f->qp); free(f->v); free(f->u); free(f->y0); free(f->yp); free(f->ym);
  free(f->dx); free(f->x); free(f->A); free(f->B); free(f->C); free(f->fext);
}

/* the function differentiated: y = ID, FD or hybrid dynamics of (q, v, u) */
typedef enum { FN_ID, FN_FD, FN_HYBRID } fn_kind;

static void eval(fn_kind kind, fixture *f, const double *q, const double *v, const double *u,
                 double *y) {
  int nv = f->m->nv;
  if (kind == FN_ID) {
    hg_rnea(f->m, f->d, q, v, u, f->fext, y);
  } else if (kind == FN_FD) {
    assert_int_equal(hg_aba(f->m, f->d, q, v, u, f->fext, y), 0);
  } else {
    /* hybrid: u holds tau at free DoFs and qdd at the others (hg_hybrid_derivatives) */
    double *qdd = f->dx, *tau = f->x;
    for (int k = 0; k < nv; k++) {
      int fr = f->d->mode[f->m->dof_body[k]] == HG_MODE_FREE;
      tau[k] = fr ? u[k] : 0;
      qdd[k] = fr ? 0 : u[k];
    }
    assert_int_equal(hg_hybrid(f->m, f->d, q, v, qdd, tau, f->fext), 0);
    for (int k = 0; k < nv; k++)
      y[k] = f->d->mode[f->m->dof_body[k]] == HG_MODE_FREE ? qdd[k] : tau[k];
  }
}

/* J = central differences of y with respect to argument which (0: q on the group, 1: v, 2: u),
 * step h */
static void central(fn_kind kind, fixture *f, int which, double h, double *J) {
  int nv = f->m->nv;
  double *vp = malloc(sizeof(double) * ((size_t)nv + 1)), *up = malloc(sizeof(double) * ((size_t)nv + 1));
  for (int k = 0; k < nv; k++) {
    for (int s = 0; s < 2; s++) {
      double e = s ? -h : h, *y = s ? f->ym : f->yp;
      memcpy(vp, f->v, sizeof(double) * (size_t)nv);
      memcpy(up, f->u, sizeof(double) * (size_t)nv);
      memcpy(f->qp, f->q, sizeof(double) * (size_t)f->m->nq);
      if (which == 0) {
        double *dk = calloc((size_t)nv, sizeof(double));
        dk[k] = 1;
        hg_model_integrate(f->m, f->q, dk, e, f->qp);
        free(dk);
      } else if (which == 1) {
        vp[k] += e;
      } else {
        up[k] += e;
      }
      eval(kind, f, f->qp, vp, up, y);
    }
    for (int l = 0; l < nv; l++) J[l * nv + k] = (f->yp[l] - f->ym[l]) / (2 * h);
  }
  free(vp);
  free(up);
}

/* the V curve: worst[h] = max over trees of the relative error at h; best = the worst over
 * trees of each tree's best error */
typedef struct {
  double worst[NH], best;
} vcurve;

static void compare(fn_kind kind, fixture *f, int which, const double *An, vcurve *vc) {
  int nv = f->m->nv;
  double best = INFINITY;
  for (int t = 0; t < NH; t++) {
    central(kind, f, which, hs[t], f->C);
    double e = hg_test_rel_err(An, f->C, nv * nv);
    if (!(e <= vc->worst[t])) vc->worst[t] = e;
    if (e < best) best = e;
  }
  if (!(best <= vc->best)) vc->best = best;
}

static void print_curve(const char *what, const vcurve *vc) {
  printf("# %s vs central differences on the group: worst relative error over %d trees\n", what,
         ntrees());
  for (int t = 0; t < NH; t++) printf("#   h = %-6.0e  %.3e\n", hs[t], vc->worst[t]);
  printf("#   at each tree's best h: %.3e\n", vc->best);
}

/* d tau / d q, d tau / d v and M against central differences and CRBA */
static void rnea_derivatives(void **state) {
  (void)state;
  hg_rng r;
  hg_rng_seed(&r, 11);
  vcurve cq = {{0}, 0}, cv = {{0}, 0};
  double worst_M = 0;
  for (int t = 0; t < ntrees(); t++) {
    fixture f = make(&r, 1 + t % 14, t % 2);
    int nv = f.m->nv;
    double *M = calloc((size_t)nv * (size_t)nv + 1, sizeof(double));
    /* every entry is written (the zeros too): start from NaN */
    for (int k = 0; k < nv * nv; k++) f.A[k] = f.B[k] = M[k] = NAN;
    hg_rnea_derivatives(f.m, f.d, f.w, f.q, f.v, f.u, f.fext, f.A, f.B, M);
    compare(FN_ID, &f, 0, f.A, &cq);
    compare(FN_ID, &f, 1, f.B, &cv);
    hg_crba(f.m, f.d, f.q, f.C);
    double e = hg_test_rel_err(M, f.C, nv * nv);
    if (e > worst_M) worst_M = e;
    free(M);
    release(&f);
  }
  print_curve("d tau / d q", &cq);
  print_curve("d tau / d v", &cv);
  printf("# d tau / d qdd vs CRBA: worst relative error %.3g\n", worst_M);
  assert_true(cq.best < 1e-7);
  assert_true(cv.best < 1e-7);
  /* the same sums of the same products, in another order: rounding only */
  assert_true(worst_M < 1e-12);
}

/* d qdd / d q, d qdd / d v and d qdd / d tau = M^-1 against central differences of ABA */
static void aba_derivatives(void **state) {
  (void)state;
  hg_rng r;
  hg_rng_seed(&r, 12);
  vcurve cq = {{0}, 0}, cv = {{0}, 0}, cu = {{0}, 0};
  double ways = 0;
  for (int t = 0; t < ntrees(); t++) {
    fixture f = make(&r, 1 + t % 14, t % 2);
    int nv = f.m->nv;
    double *Minv = calloc((size_t)nv * (size_t)nv + 1, sizeof(double));
    assert_int_equal(hg_aba_derivatives(f.m, f.d, f.w, f.q, f.v, f.u, f.fext, f.y0, f.A, f.B,
                                        Minv), 0);
    /* the other way to -M^-1 dtau/dx (products with M^-1, or the recursion with a dense
     * right-hand side): the same up to rounding */
    size_t n2 = (size_t)nv * (size_t)nv + 1;
    double *A2 = calloc(n2, sizeof(double)), *B2 = calloc(n2, sizeof(double));
    f.w->product = !f.w->product;
    assert_int_equal(hg_aba_derivatives(f.m, f.d, f.w, f.q, f.v, f.u, f.fext, NULL, A2, B2, NULL),
                     0);
    f.w->product = !f.w->product;
    double e = fmax(hg_test_rel_err(A2, f.A, nv * nv), hg_test_rel_err(B2, f.B, nv * nv));
    if (!(e <= ways)) ways = e;
    free(A2);
    free(B2);
    compare(FN_FD, &f, 0, f.A, &cq);
    compare(FN_FD, &f, 1, f.B, &cv);
    compare(FN_FD, &f, 2, Minv, &cu);
    free(Minv);
    release(&f);
  }
  print_curve("d qdd / d q", &cq);
  print_curve("d qdd / d v", &cv);
  print_curve("d qdd / d tau", &cu);
  printf("# d qdd / d (q, v) by products with M^-1 vs by the recursion: worst relative difference "
         "%.3g\n", ways);
  /* rounding in both, amplified by M's condition (below 1e6 on these trees) */
  assert_true(ways < 1e-9);
  assert_true(cq.best < 1e-7);
  assert_true(cv.best < 1e-7);
  assert_true(cu.best < 1e-7);
}

/* M^-1 by the recursion against ABA's columns (tau = e_k, no velocity, no gravity) and against
 * the inverse of CRBA's M (M M^-1 = 1) */
static void minv_recursive(void **state) {
  (void)state;
  hg_rng r;
  hg_rng_seed(&r, 13);
  double worst_col = 0, worst_inv = 0, worst_ff = 0;
  for (int t = 0; t < ntrees(); t++) {
    fixture f = make(&r, 1 + t % 14, t % 2);
    int nv = f.m->nv;
    double g[3];
    for (int k = 0; k < 3; k++) g[k] = f.m->gravity[k], f.m->gravity[k] = 0;
    assert_int_equal(hg_minv(f.m, f.d, f.w, f.q, f.A), 0);
    for (int k = 0; k < nv; k++) {
      memset(f.x, 0, sizeof(double) * (size_t)nv);
      memset(f.dx, 0, sizeof(double) * (size_t)nv);
      f.x[k] = 1;
      assert_int_equal(hg_aba(f.m, f.d, f.q, f.dx, f.x, NULL, f.y0), 0);
      for (int l = 0; l < nv; l++) {
        double e = fabs(f.A[l * nv + k] - f.y0[l]);
        if (!(e <= worst_col)) worst_col = e;
      }
    }
    hg_crba(f.m, f.d, f.q, f.B);
    hg_test_matmul(nv, f.B, f.A, f.C);
    for (int k = 0; k < nv; k++) f.C[k * nv + k] -= 1;
    for (int k = 0; k < nv * nv; k++)
      if (!(fabs(f.C[k]) <= worst_inv)) worst_inv = fabs(f.C[k]);
    /* with random modes, on the hybrid pass's factors: (M_FF)^-1 at the free DoFs, zero at
     * the others */
    for (int i = 1; i < f.m->nbody; i++)
      f.d->mode[i] = hg_rng_uniform(&r) < 0.6 ? HG_MODE_FREE : HG_MODE_PRESCRIBED;
    memset(f.x, 0, sizeof(double) * (size_t)nv);
    memset(f.dx, 0, sizeof(double) * (size_t)nv);
    /* the factors hg_minv_factored reads are the tree-frame pass's (floating bases of revolute
     * joints now have a body-local pass, which leaves none) */
    assert_int_equal(hg_hybrid_opt(f.m, f.d, &tree_frame, f.q, f.v, f.dx, f.x, NULL), 0);
    for (int k = 0; k < nv * nv; k++) f.A[k] = NAN;
    hg_minv_factored(f.m, f.d, f.w, f.d->mode, f.A);
    for (int a = 0; a < nv; a++) {
      int fa = f.d->mode[f.m->dof_body[a]] == HG_MODE_FREE;
      for (int b = 0; b < nv; b++) {
        int fb = f.d->mode[f.m->dof_body[b]] == HG_MODE_FREE;
        double e = 0;
        if (!fa || !fb) {
          e = fabs(f.A[a * nv + b]);
        } else {
          for (int c = 0; c < nv; c++)
            if (f.d->mode[f.m->dof_body[c]] == HG_MODE_FREE) e += f.B[a * nv + c] * f.A[c * nv + b];
          e = fabs(e - (a == b));
        }
        if (!(e <= worst_ff)) worst_ff = e;
      }
    }
    for (int k = 0; k < 3; k++) f.m->gravity[k] = g[k];
    release(&f);
  }
  printf("# M^-1 (recursive) vs ABA columns: worst absolute difference %.3g\n", worst_col);
  printf("# M M^-1 - 1 (CRBA times recursive M^-1): worst entry %.3g\n", worst_inv);
  printf("# M_FF (M_FF)^-1 - 1 with random modes (and zeros elsewhere): worst entry %.3g\n",
         worst_ff);
  assert_true(worst_ff < 1e-9);
  /* both are rounding: unit-scale masses give entries of M^-1 of order 1 to 1e2, and the
   * condition numbers of these M stay below 1e6, so 1e-9 is far from any real error */
  assert_true(worst_col < 1e-9);
  assert_true(worst_inv < 1e-9);
}

/* hybrid dynamics with random modes: d y / d q, d y / d v, d y / d u against central differences
 * of hg_hybrid (y: qdd at free DoFs, tau elsewhere; u: tau at free DoFs, qdd elsewhere). Holding
 * joints rigid can leave the free subsystem badly conditioned (a light free body far out on a
 * prescribed arm), which raises the floor of the V for d y / d q to 5e-8 on the worst of these
 * trees (measured): still under 1e-7, kept. */
static void hybrid_derivatives(void **state) {
  (void)state;
  hg_rng r;
  hg_rng_seed(&r, 14);
  vcurve cq = {{0}, 0}, cv = {{0}, 0}, cu = {{0}, 0};
  for (int t = 0; t < ntrees(); t++) {
    fixture f = make(&r, 1 + t % 14, t % 2);
    int nv = f.m->nv;
    double *Du = calloc((size_t)nv * (size_t)nv + 1, sizeof(double));
    for (int i = 1; i < f.m->nbody; i++) {
      double x = hg_rng_uniform(&r);
      f.d->mode[i] = x < 0.5 ? HG_MODE_FREE : x < 0.8 ? HG_MODE_PRESCRIBED : HG_MODE_LOCKED;
      if (f.d->mode[i] == HG_MODE_LOCKED)
        for (int k = f.m->v_adr[i]; k < f.m->v_adr[i] + f.m->jnt_nv[i]; k++) f.v[k] = 0;
    }
    assert_int_equal(hg_hybrid_derivatives(f.m, f.d, f.w, f.q, f.v, f.u, f.fext, f.y0, f.A, f.B,
                                           Du), 0);
    compare(FN_HYBRID, &f, 0, f.A, &cq);
    compare(FN_HYBRID, &f, 1, f.B, &cv);
    compare(FN_HYBRID, &f, 2, Du, &cu);
    free(Du);
    release(&f);
  }
  print_curve("hybrid d y / d q", &cq);
  print_curve("hybrid d y / d v", &cv);
  print_curve("hybrid d y / d u", &cu);
  assert_true(cq.best < 1e-7);
  assert_true(cv.best < 1e-7);
  assert_true(cu.best < 1e-7);
}

/* ---- Bos et al.'s validation case (Figure 4): the branched moving base (a free base with
 * branches of revolute, prismatic and helical joints) in the perturbed configuration, every joint
 * at 0.3, the base at a random pose and twist ---- */
static hg_model *moving_base(void) {
  static const struct {
    const char *name, *parent;
    hg_joint_type type;
    double axis[3], pitch, pos[3], mass, com[3];
  } b[] = {
      {"base", "world", HG_JOINT_FREE, {0, 0, 1}, 0, {0, 0, 0}, 10, {0, 0, 0}},
      {"a1", "base", HG_JOINT_REVOLUTE, {0, 0, 1}, 0, {0.2, 0, 0}, 2, {0.15, 0, 0}},
      {"a2", "a1", HG_JOINT_PRISMATIC, {1, 0, 0}, 0, {0.3, 0, 0}, 1.5, {0.1, 0, 0}},
      {"a3", "a2", HG_JOINT_HELICAL, {1, 0, 0}, 0.02, {0.2, 0, 0}, 1, {0.1, 0.05, 0}},
      {"b1", "base", HG_JOINT_REVOLUTE, {0, 1, 0}, 0, {-0.2, 0, 0}, 2, {-0.15, 0, 0}},
      {"b2", "b1", HG_JOINT_HELICAL, {0, 0, 1}, 0.05, {-0.3, 0, 0}, 1.5, {-0.1, 0, 0}},
      {"b3", "b2", HG_JOINT_PRISMATIC, {0, 1, 0}, 0, {-0.2, 0, 0}, 1, {0, 0.1, 0}},
      {"c1", "base", HG_JOINT_PRISMATIC, {0, 0, 1}, 0, {0, 0, 0.1}, 1.5, {0, 0, 0.1}},
      {"c2", "c1", HG_JOINT_REVOLUTE, {1, 0, 0}, 0, {0, 0, 0.2}, 1, {0, 0.15, 0}},
  };
  hg_builder *bl = hg_builder_new();
  for (size_t k = 0; k < sizeof b / sizeof b[0]; k++) {
    hg_se3 off;
    hg_inertia G;
    double Ic[6] = {0.01 * b[k].mass, 0.02 * b[k].mass, 0.015 * b[k].mass, 0, 0, 0};
    hg_se3_identity(&off);
    for (int r = 0; r < 3; r++) off.p[r] = b[k].pos[r];
    hg_inertia_from_com(b[k].mass, b[k].com, Ic, &G, NULL, 0);
    hg_test_add_body(bl, b[k].name, b[k].parent, b[k].type, b[k].axis, NULL, b[k].pitch, &off, &G);
  }
  hg_error err;
  hg_model *m = hg_builder_compile(bl, &err);
  hg_builder_free(bl);
  assert_non_null(m);
  return m;
}

static void bos_moving_base(void **state) {
  (void)state;
  hg_rng r;
  hg_rng_seed(&r, 15);
  vcurve c[5] = {{{0}, 0}};
  for (int t = 0; t < 20; t++) {
    fixture f = fixture_for(moving_base(), &r);
    int nq = f.m->nq, nv = f.m->nv;
    memset(f.fext, 0, sizeof(double) * 6 * (size_t)f.m->nbody);
    /* the base: a random pose and twist; every other joint at 0.3 with a random rate */
    hg_se3 T;
    hg_test_random_pose(&r, &T);
    for (int k = 0; k < 3; k++) f.q[k] = T.p[k];
    hg_R_to_quat(T.R, f.q + 3);
    for (int k = 7; k < nq; k++) f.q[k] = 0.3;
    hg_test_random_vector(&r, f.v, nv, -1, 1);
    hg_test_random_vector(&r, f.u, nv, -2, 2);
    double *Minv = calloc((size_t)nv * nv + 1, sizeof(double));
    hg_rnea_derivatives(f.m, f.d, f.w, f.q, f.v, f.u, NULL, f.A, f.B, NULL);
    compare(FN_ID, &f, 0, f.A, &c[0]);
    compare(FN_ID, &f, 1, f.B, &c[1]);
    assert_int_equal(hg_aba_derivatives(f.m, f.d, f.w, f.q, f.v, f.u, NULL, NULL, f.A, f.B, Minv), 0);
    compare(FN_FD, &f, 0, f.A, &c[2]);
    compare(FN_FD, &f, 1, f.B, &c[3]);
    compare(FN_FD, &f, 2, Minv, &c[4]);
    free(Minv);
    release(&f);
  }
  static const char *what[5] = {"Bos et al. moving base: d tau / d q", "d tau / d v", "d qdd / d q",
                                "d qdd / d v", "d qdd / d tau"};
  for (int k = 0; k < 5; k++) {
    printf("# %s: best-h relative error %.3e\n", what[k], c[k].best);
    assert_true(c[k].best < 1e-7);
  }
}

/* kind FN_ID: hg_rnea_derivatives (qdd = u; the third output M), FN_FD: hg_aba_derivatives
 * (the third dqdd/dtau), FN_HYBRID: hg_hybrid_derivatives (the third dy/du), at (q, v, u) into
 * y (ID: unused) and O[0..2] (any NULL), on the workspace w */
static void first_order(fn_kind kind, fixture *f, hg_deriv *w, const double *q, const double *v,
                        const double *u, double *y, double *const *O) {
  if (kind == FN_ID)
    hg_rnea_derivatives(f->m, f->d, w, q, v, u, f->fext, O[0], O[1], O[2]);
  else if (kind == FN_FD)
    assert_int_equal(hg_aba_derivatives(f->m, f->d, w, q, v, u, f->fext, y, O[0], O[1], O[2]), 0);
  else
    assert_int_equal(hg_hybrid_derivatives(f->m, f->d, w, q, v, u, f->fext, y, O[0], O[1], O[2]),
                     0);
}

/* the workspace keeps nothing from one call to the next that changes a result: after calls at
 * another state on the same workspace, each derivative asked for alone (in every order of the
 * three; inverse dynamics: with or without M) is the same bits as all three on a new
 * workspace, on random trees (hybrid dynamics in random modes) and 80- to 84-link chains,
 * where forward dynamics takes the articulated recursion */
static void outputs_alone(void **state) {
  (void)state;
  hg_rng r;
  hg_rng_seed(&r, 17);
  for (int tr = 0; tr < ntrees() / 4; tr++) {
    fixture f = tr % 8 == 7 ? fixture_for(hg_test_chain(80 + tr % 5), &r)
                            : make(&r, 1 + tr % 14, tr % 2);
    if (tr % 8 == 7) assert_false(f.w->product); /* the articulated recursion */
    int nv = f.m->nv;
    size_t n2 = (size_t)nv * (size_t)nv;
    hg_deriv *fresh = hg_deriv_new(f.m);
    assert_non_null(fresh);
    double *q0 = calloc((size_t)f.m->nq + 1, 8), *v0 = calloc((size_t)nv + 1, 8);
    double *u0 = calloc((size_t)nv + 1, 8), *y = calloc((size_t)nv + 1, 8);
    hg_model_random(f.m, &r, q0);
    hg_test_random_vector(&r, v0, nv, -2, 2);
    hg_test_random_vector(&r, u0, nv, -3, 3);
    double *R[3], *O1 = calloc(n2 + 1, 8);
    for (int k = 0; k < 3; k++) R[k] = calloc(n2 + 1, 8);
    for (int kind = FN_ID; kind <= FN_HYBRID; kind++) {
      for (int i = 1; i < f.m->nbody; i++) {
        double x = kind == FN_HYBRID ? hg_rng_uniform(&r) : 0;
        f.d->mode[i] = x < 0.5 ? HG_MODE_FREE : x < 0.8 ? HG_MODE_PRESCRIBED : HG_MODE_LOCKED;
        if (f.d->mode[i] == HG_MODE_LOCKED)
          for (int k = f.m->v_adr[i]; k < f.m->v_adr[i] + f.m->jnt_nv[i]; k++) f.v[k] = v0[k] = 0;
      }
      double *all[3] = {f.A, f.B, f.C};
      first_order((fn_kind)kind, &f, f.w, q0, v0, u0, y, all);
      first_order((fn_kind)kind, &f, fresh, f.q, f.v, f.u, y, R);
      static const int orders[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2},
                                       {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
      for (int o = 0; o < 6; o++)
        for (int s = 0; s < 3; s++) {
          int k = orders[o][s];
          double *O[3] = {NULL, NULL, NULL};
          /* inverse dynamics always writes d tau/d q and d tau/d v: M is the one left out */
          if (kind == FN_ID) O[0] = f.A, O[1] = f.B;
          O[k] = O1;
          memset(O1, 0xff, n2 * sizeof(double)); /* NaN */
          first_order((fn_kind)kind, &f, f.w, f.q, f.v, f.u, NULL, O);
          assert_memory_equal(O1, R[k], n2 * sizeof(double));
        }
    }
    for (int k = 0; k < 3; k++) free(R[k]);
    free(O1), free(q0), free(v0), free(u0), free(y);
    hg_deriv_free(fresh);
    release(&f);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(rnea_derivatives),
      cmocka_unit_test(aba_derivatives),
      cmocka_unit_test(minv_recursive),
      cmocka_unit_test(hybrid_derivatives),
      cmocka_unit_test(bos_moving_base),
      cmocka_unit_test(outputs_alone),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
