/* test_armature.c: the reflected rotor inertia ("armature", model.h) in every algorithm, and
 * hg_model_set_body_inertia.
 *
 * The armature adds diag(armature) to the joint-space mass matrix. CRBA is anchored to the
 * armature-free model (M_a - M_0 = diag(a) exactly), every other algorithm to CRBA: ABA solves
 * (M + diag(a)) qdd = tau - b, RNEA inverts it, hybrid dynamics agrees with RNEA, M^-1 inverts M,
 * the kinetic energy is v^T M v / 2, the body-local pass agrees with the tree-frame one, and the
 * derivatives agree with central differences. A single link geared to a motor has the closed
 * form qdd = tau / (I_link + N^2 J_r). Tolerances: 1e-12 relative for the random trees (each
 * algorithm is backward stable and these matrices are well conditioned: the worst seen is
 * 2.5e-14, some 100 eps), a few eps for the closed form, 1e-6 for central differences. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "body_frames.h"
#include "dense.h"
#include "derivatives.h"
#include "merge.h"
#include "models.h"
#include "topology.h"

#define NTREES 120

static const hg_pass_options tree = {.tree_frame = 1};

/* a random armature in [0.05, 2] on every DoF of a compiled model, as the compiler would have
 * written it from the bodies' specs (m->armature, m->has_armature and the body-local pass's
 * copy of the flag; the builder's path is checked by closed_form and builder_paths) */
static void give_armature(hg_model *m, hg_rng *r) {
  hg_test_random_vector(r, m->armature, m->nv, 0.05, 2);
  m->has_armature = m->nv > 0;
  if (m->local) m->local->has_armature = m->has_armature;
}

/* switches the armature off (on) without touching its values */
static void armature_on(hg_model *m, int on) {
  m->has_armature = on;
  if (m->local) m->local->has_armature = on;
}

typedef struct {
  hg_model *m;
  hg_data *d;
  double *q, *v, *tau, *qdd, *x, *y, *b, *M, *M0, *fext;
} fixture;

static fixture make(hg_model *m, hg_rng *r) {
  fixture f;
  int nv = m->nv, n2 = nv * nv + 1;
  f.m = m;
  f.d = hg_data_new(m);
  f.q = calloc((size_t)m->nq + 1, sizeof(double));
  f.v = calloc((size_t)nv + 1, sizeof(double));
  f.tau = calloc((size_t)nv + 1, sizeof(double));
  f.qdd = calloc((size_t)nv + 1, sizeof(double));
  f.x = calloc((size_t)nv + 1, sizeof(double));
  f.y = calloc((size_t)nv + 1, sizeof(double));
  f.b = calloc((size_t)nv + 1, sizeof(double));
  f.M = calloc((size_t)n2, sizeof(double));
  f.M0 = calloc((size_t)n2, sizeof(double));
  f.fext = calloc(6 * (size_t)m->nbody, sizeof(double));
  give_armature(m, r);
  hg_model_random(m, r, f.q);
  hg_test_random_vector(r, f.v, nv, -2, 2);
  hg_test_random_vector(r, f.tau, nv, -5, 5);
  for (int i = 1; i < m->nbody; i++) hg_test_random_vector(r, f.fext + 6 * i, 6, -1, 1);
  return f;
}

static void release(fixture *f) {
  hg_data_free(f->d);
  hg_model_free(f->m);
  free(f->q), free(f->v), free(f->tau), free(f->qdd), free(f->x), free(f->y), free(f->b);
  free(f->M), free(f->M0), free(f->fext);
}

static double maxd(double a, double b) { return a > b ? a : b; }
/* n zeros (one more, so that n = 0 allocates) */
static double *vec(int n) { return calloc((size_t)n + 1, sizeof(double)); }

/* (a) every algorithm on random trees mixing every joint type, fixed and floating bases */
static void random_trees(void **state) {
  (void)state;
  hg_rng r;
  hg_rng_seed(&r, 11);
  double w_crba = 0, w_aba = 0, w_rnea = 0, w_hyb = 0, w_minv = 0, w_ke = 0, w_imp = 0;
  for (int t = 0; t < NTREES; t++) {
    fixture f = make(hg_test_random_tree(&r, 2 + t % 12, t % 2), &r);
    hg_model *m = f.m;
    int nv = m->nv;
    /* CRBA: M_a - M_0 = diag(a), exactly (the armature is added once, to the diagonal) */
    armature_on(m, 0);
    hg_crba(m, f.d, f.q, f.M0);
    armature_on(m, 1);
    hg_crba(m, f.d, f.q, f.M);
    for (int k = 0; k < nv; k++) f.M0[k * nv + k] += m->armature[k];
    w_crba = maxd(w_crba, hg_test_max_diff(f.M, f.M0, nv * nv));
    /* the oracle below is M_0 + diag(a), formed here, not CRBA's M */
    memcpy(f.M, f.M0, (size_t)nv * nv * sizeof(double));
    /* ABA = (M + diag(a))^-1 (tau - b) */
    assert_int_equal(hg_aba(m, f.d, f.q, f.v, f.tau, f.fext, f.qdd), 0);
    hg_bias(m, f.d, f.q, f.v, f.fext, f.b);
    for (int k = 0; k < nv; k++) f.y[k] = f.tau[k] - f.b[k];
    assert_int_equal(hg_test_spd_solve(nv, f.M, f.y, f.x), 0);
    w_aba = maxd(w_aba, hg_test_rel_err(f.qdd, f.x, nv));
    /* RNEA(ABA(tau)) = tau */
    hg_rnea(m, f.d, f.q, f.v, f.qdd, f.fext, f.x);
    w_rnea = maxd(w_rnea, hg_test_rel_err(f.x, f.tau, nv));
    /* the kinetic energy is v^T M v / 2 */
    double ke, pe, vMv = 0;
    hg_energy(m, f.d, f.q, f.v, &ke, &pe);
    for (int k = 0; k < nv; k++)
      for (int l = 0; l < nv; l++) vMv += f.v[k] * f.M[k * nv + l] * f.v[l];
    w_ke = maxd(w_ke, fabs(ke - 0.5 * vMv) / maxd(1, fabs(ke)));
    /* M^-1 (minv.c, from the articulated factors) times M = 1 */
    {
      hg_deriv *w = hg_deriv_new(m);
      double *Mi = vec(nv * nv), *P = vec(nv * nv);
      assert_int_equal(hg_minv(m, f.d, w, f.q, Mi), 0);
      hg_test_matmul(nv, Mi, f.M, P);
      for (int k = 0; k < nv; k++) P[k * nv + k] -= 1;
      for (int k = 0; k < nv * nv; k++) w_minv = maxd(w_minv, fabs(P[k]));
      free(Mi), free(P);
      hg_deriv_free(w);
    }
    /* hybrid: some joints prescribed (their qdd given), the others free; RNEA of the complete
     * qdd gives the complete tau */
    {
      double *qh = vec(nv), *th = vec(nv);
      hg_test_random_vector(&r, qh, nv, -3, 3);
      memcpy(th, f.tau, (size_t)nv * sizeof(double));
      for (int i = 1; i < m->nbody; i++)
        f.d->mode[i] = hg_rng_uniform(&r) < 0.4 ? HG_MODE_PRESCRIBED : HG_MODE_FREE;
      assert_int_equal(hg_hybrid(m, f.d, f.q, f.v, qh, th, f.fext), 0);
      hg_rnea(m, f.d, f.q, f.v, qh, f.fext, f.x);
      w_hyb = maxd(w_hyb, hg_test_rel_err(f.x, th, nv));
      /* the impulsive form, every joint free: M dv = imp */
      for (int i = 1; i < m->nbody; i++) f.d->mode[i] = HG_MODE_FREE;
      hg_test_random_vector(&r, th, nv, -1, 1);
      assert_int_equal(hg_hybrid_impulse(m, f.d, f.q, qh, th), 0);
      for (int k = 0; k < nv; k++) {
        double s = 0;
        for (int l = 0; l < nv; l++) s += f.M[k * nv + l] * qh[l];
        f.x[k] = s;
      }
      w_imp = maxd(w_imp, hg_test_rel_err(f.x, th, nv));
      free(qh), free(th);
    }
    release(&f);
  }
  printf("# armature on %d random trees (every joint type), worst errors:\n", NTREES);
  printf("#   CRBA - (M_0 + diag a)      %.3g (absolute)\n", w_crba);
  printf("#   ABA vs dense solve          %.3g\n", w_aba);
  printf("#   RNEA(ABA(tau)) vs tau       %.3g\n", w_rnea);
  printf("#   hybrid vs RNEA              %.3g\n", w_hyb);
  printf("#   impulse: M dv vs imp        %.3g\n", w_imp);
  printf("#   minv M - 1                  %.3g\n", w_minv);
  printf("#   KE vs v^T M v / 2           %.3g\n", w_ke);
  assert_true(w_crba == 0);
  assert_true(w_aba < 1e-12);
  assert_true(w_rnea < 1e-12);
  assert_true(w_hyb < 1e-12);
  assert_true(w_imp < 1e-12);
  assert_true(w_minv < 1e-12);
  assert_true(w_ke < 1e-12);
}

/* (a) the body-local pass (revolute and prismatic chains and trees, floating bases) against the
 * tree-frame pass, for forward, hybrid and impulsive dynamics */
static void local_pass(void **state) {
  (void)state;
  hg_rng r;
  hg_rng_seed(&r, 12);
  double w_aba = 0, w_hyb = 0, w_imp = 0, w_dense = 0;
  for (int t = 0; t < NTREES; t++) {
    int n = 2 + t % 10;
    hg_model *m = t % 3 == 0   ? hg_test_random_revolute(&r, n, 1)
                  : t % 3 == 1 ? hg_test_random_1dof(&r, n, t % 2, 0.4)
                               : hg_test_random_floating(&r, n + 1, 1 + t % 2, 0.3);
    assert_non_null(m->local);
    fixture f = make(m, &r);
    int nv = m->nv;
    double *qt = vec(nv), *tl = vec(nv);
    double *tt = vec(nv);
    /* forward */
    assert_int_equal(hg_aba(m, f.d, f.q, f.v, f.tau, f.fext, f.qdd), 0);
    assert_int_equal(f.d->local_pass, 1);
    assert_int_equal(hg_aba_opt(m, f.d, &tree, f.q, f.v, f.tau, f.fext, qt), 0);
    w_aba = maxd(w_aba, hg_test_rel_err(f.qdd, qt, nv));
    /* the oracle: M_0 (CRBA without the armature) + diag(a), formed here */
    armature_on(m, 0);
    hg_crba(m, f.d, f.q, f.M);
    armature_on(m, 1);
    for (int k = 0; k < nv; k++) f.M[k * nv + k] += m->armature[k];
    hg_bias(m, f.d, f.q, f.v, f.fext, f.b);
    for (int k = 0; k < nv; k++) f.y[k] = f.tau[k] - f.b[k];
    assert_int_equal(hg_test_spd_solve(nv, f.M, f.y, f.x), 0);
    w_dense = maxd(w_dense, hg_test_rel_err(f.qdd, f.x, nv));
    /* hybrid, some joints prescribed */
    for (int i = 1; i < m->nbody; i++)
      f.d->mode[i] = hg_rng_uniform(&r) < 0.4 ? HG_MODE_PRESCRIBED : HG_MODE_FREE;
    hg_test_random_vector(&r, f.qdd, nv, -3, 3);
    memcpy(qt, f.qdd, (size_t)nv * sizeof(double));
    memcpy(tl, f.tau, (size_t)nv * sizeof(double));
    memcpy(tt, f.tau, (size_t)nv * sizeof(double));
    assert_int_equal(hg_hybrid(m, f.d, f.q, f.v, f.qdd, tl, f.fext), 0);
    assert_int_equal(hg_hybrid_opt(m, f.d, &tree, f.q, f.v, qt, tt, f.fext), 0);
    w_hyb = maxd(w_hyb, maxd(hg_test_rel_err(f.qdd, qt, nv), hg_test_rel_err(tl, tt, nv)));
    /* impulsive, same modes */
    hg_test_random_vector(&r, f.qdd, nv, -1, 1);
    hg_test_random_vector(&r, tl, nv, -1, 1);
    memcpy(qt, f.qdd, (size_t)nv * sizeof(double));
    memcpy(tt, tl, (size_t)nv * sizeof(double));
    assert_int_equal(hg_hybrid_impulse(m, f.d, f.q, f.qdd, tl), 0);
    assert_int_equal(hg_hybrid_impulse_opt(m, f.d, &tree, f.q, qt, tt), 0);
    w_imp = maxd(w_imp, maxd(hg_test_rel_err(f.qdd, qt, nv), hg_test_rel_err(tl, tt, nv)));
    free(qt), free(tl), free(tt);
    release(&f);
  }
  printf("# armature, body-local vs tree-frame pass over %d models, worst relative errors:\n",
         NTREES);
  printf("#   ABA %.3g (dense solve %.3g), hybrid %.3g, impulse %.3g\n", w_aba, w_dense, w_hyb,
         w_imp);
  assert_true(w_aba < 1e-12);
  assert_true(w_dense < 1e-12);
  assert_true(w_hyb < 1e-12);
  assert_true(w_imp < 1e-12);
}

/* (b) a rod of mass mr and length L about a revolute joint at one end (no gravity), geared to a
 * motor: gear ratio N, rotor inertia Jr. qdd = tau / (mr L^2 / 3 + N^2 Jr), exactly */
static void closed_form(void **state) {
  (void)state;
  const double mr = 1.7, L = 0.8, N = 50, Jr = 3.2e-5, tau = 2.5, qd = 1.3;
  const double Ilink = mr * L * L / 3, Itot = Ilink + N * N * Jr;
  hg_builder *b = hg_builder_new();
  hg_inertia G;
  double c[3] = {L / 2, 0, 0}, Ic[6] = {0, mr * L * L / 12, mr * L * L / 12, 0, 0, 0};
  assert_int_equal(hg_inertia_from_com(mr, c, Ic, &G, NULL, 0), 0);
  const double z[3] = {0, 0, 1};
  hg_test_add_body(b, "link", NULL, HG_JOINT_REVOLUTE, z, NULL, 0, NULL, &G);
  hg_error err;
  /* the setter's refusals */
  assert_int_equal(hg_builder_set_armature(b, "nope", 0, 1, &err), -1);
  assert_int_equal(hg_builder_set_armature(b, "link", 1, 1, &err), -1);
  assert_int_equal(hg_builder_set_armature(b, "link", -1, 1, &err), -1);
  assert_int_equal(hg_builder_set_armature(b, "link", 0, -1e-9, &err), -1);
  assert_int_equal(hg_builder_set_armature(b, "link", 0, NAN, &err), -1);
  assert_int_equal(hg_builder_set_armature(b, "link", 0, INFINITY, &err), -1);
  /* it sets, it does not add */
  assert_int_equal(hg_builder_set_armature(b, "link", 0, 7, &err), 0);
  assert_int_equal(hg_builder_set_armature(b, "link", 0, N * N * Jr, &err), 0);
  hg_model *m = hg_test_compile(b);
  m->gravity[0] = m->gravity[1] = m->gravity[2] = 0;
  assert_int_equal(m->has_armature, 1);
  assert_true(m->armature[0] == N * N * Jr);
  assert_non_null(m->local);
  hg_data *d = hg_data_new(m);
  double q = 0.4, v = qd, t = tau, a_local, a_tree, M, tr, ke, pe;
  assert_int_equal(hg_aba(m, d, &q, &v, &t, NULL, &a_local), 0);
  assert_int_equal(hg_aba_opt(m, d, &tree, &q, &v, &t, NULL, &a_tree), 0);
  hg_crba(m, d, &q, &M);
  hg_rnea(m, d, &q, &v, &a_tree, NULL, &tr);
  hg_energy(m, d, &q, &v, &ke, &pe);
  double expect = tau / Itot;
  printf("# rod with a geared motor: qdd %.17g (local), %.17g (tree), closed form %.17g\n",
         a_local, a_tree, expect);
  assert_true(fabs(a_local - expect) <= 8 * DBL_EPSILON * fabs(expect));
  assert_true(fabs(a_tree - expect) <= 8 * DBL_EPSILON * fabs(expect));
  assert_true(fabs(M - Itot) <= 8 * DBL_EPSILON * Itot);
  assert_true(fabs(tr - tau) <= 8 * DBL_EPSILON * tau);
  assert_true(fabs(ke - 0.5 * Itot * qd * qd) <= 8 * DBL_EPSILON * ke);
  /* the same motor on a prescribed joint needs tau = Itot qdd */
  d->mode[1] = HG_MODE_PRESCRIBED;
  double qp = 3, tp = 0;
  assert_int_equal(hg_hybrid(m, d, &q, &v, &qp, &tp, NULL), 0);
  assert_true(fabs(tp - Itot * qp) <= 8 * DBL_EPSILON * Itot * qp);
  tp = 0;
  assert_int_equal(hg_hybrid_opt(m, d, &tree, &q, &v, &qp, &tp, NULL), 0);
  assert_true(fabs(tp - Itot * qp) <= 8 * DBL_EPSILON * Itot * qp);
  hg_data_free(d);
  hg_model_free(m);
}

/* the builder's paths keep the armature: a copy, a fixed link merged into its parent (merge.c),
 * and an invalid armature in a spec is refused */
static void builder_paths(void **state) {
  (void)state;
  hg_builder *b = hg_builder_new();
  hg_inertia G = {1, {0, 0, 0}, {0.1, 0.2, 0.3, 0, 0, 0}};
  const double x[3] = {1, 0, 0}, y[3] = {0, 1, 0};
  hg_se3 off;
  hg_se3_identity(&off);
  off.p[0] = 0.3;
  hg_test_add_body(b, "a", NULL, HG_JOINT_UNIVERSAL, x, y, 0, NULL, &G);
  hg_test_add_body(b, "bolt", "a", HG_JOINT_FIXED, NULL, NULL, 0, &off, &G);
  hg_test_add_body(b, "c", "bolt", HG_JOINT_REVOLUTE, y, NULL, 0, &off, &G);
  hg_error err;
  assert_int_equal(hg_builder_set_armature(b, "a", 1, 0.25, &err), 0);
  assert_int_equal(hg_builder_set_armature(b, "c", 0, 0.5, &err), 0);
  assert_int_equal(hg_builder_set_armature(b, "bolt", 0, 0.5, &err), -1); /* no DoF */
  hg_body_spec bad = *hg_builder_body(b, "c");
  bad.name = "d", bad.joint_name = "d", bad.armature[0] = -1;
  assert_int_equal(hg_builder_add_body(b, &bad, &err), -1);
  hg_builder *b2 = hg_builder_copy(b, &err);
  assert_non_null(b2);
  hg_model *m = hg_test_compile(b), *m2 = hg_test_compile(b2);
  hg_model *mm = hg_model_merge_fixed(m, NULL, NULL, &err);
  assert_non_null(mm);
  const hg_model *all[3] = {m, m2, mm};
  for (int k = 0; k < 3; k++) {
    assert_int_equal(all[k]->nv, 3);
    assert_true(all[k]->armature[0] == 0 && all[k]->armature[1] == 0.25 &&
                all[k]->armature[2] == 0.5);
    assert_int_equal(all[k]->has_armature, 1);
  }
  hg_model_free(m), hg_model_free(m2), hg_model_free(mm);
}

/* re-rooting at a docking (topology.c) moves each reversed joint's armature with it (a universal
 * joint's two swap), drops the old root joint's with that joint, and gives the docking's new
 * free joint none */
static void docking(void **state) {
  (void)state;
  hg_builder *b = hg_builder_new();
  hg_inertia G = {1, {0, 0, 0}, {0.1, 0.2, 0.3, 0, 0, 0}};
  const double x[3] = {1, 0, 0}, y[3] = {0, 1, 0};
  hg_se3 off, T;
  hg_se3_identity(&off);
  hg_se3_identity(&T);
  off.p[0] = 0.3;
  T.p[1] = 2;
  hg_test_add_body(b, "base", NULL, HG_JOINT_FREE, NULL, NULL, 0, NULL, &G);
  hg_test_add_body(b, "a", NULL, HG_JOINT_REVOLUTE, x, NULL, 0, NULL, &G);
  hg_test_add_body(b, "c", "a", HG_JOINT_UNIVERSAL, x, y, 0, &off, &G);
  hg_error err;
  assert_int_equal(hg_builder_set_armature(b, "a", 0, 0.3, &err), 0);
  assert_int_equal(hg_builder_set_armature(b, "c", 0, 0.1, &err), 0);
  assert_int_equal(hg_builder_set_armature(b, "c", 1, 0.2, &err), 0);
  /* dock c to base: the tree re-roots at c, a hangs from c on joint "c" reversed */
  assert_int_equal(hg_topology_attach(b, "base", "c", "dock", &T, &err), 0);
  hg_model *m = hg_test_compile(b);
  int jc = hg_model_joint(m, "c"), jd = hg_model_joint(m, "dock"), ja = hg_model_joint(m, "a");
  assert_true(jc > 0 && jd > 0 && ja < 0);
  assert_int_equal(m->jnt[jc].type, HG_JOINT_UNIVERSAL);
  assert_true(m->armature[m->v_adr[jc]] == 0.2 && m->armature[m->v_adr[jc] + 1] == 0.1);
  for (int k = 0; k < 6; k++) assert_true(m->armature[m->v_adr[jd] + k] == 0);
  assert_int_equal(m->has_armature, 1);
  hg_model_free(m);
}

/* (c) the derivatives of ABA, RNEA (M) and hybrid dynamics with armature against central
 * differences (step 1e-6: truncation ~1e-12, round-off ~eps / h ~ 1e-10, relative) */
static void derivatives(void **state) {
  (void)state;
  hg_rng r;
  hg_rng_seed(&r, 13);
  const double h = 1e-6;
  double w_q = 0, w_v = 0, w_t = 0, w_M = 0, w_u = 0;
  for (int t = 0; t < 40; t++) {
    fixture f = make(hg_test_random_tree(&r, 2 + t % 8, t % 2), &r);
    hg_model *m = f.m;
    int nv = m->nv;
    hg_deriv *w = hg_deriv_new(m);
    double *A = vec(nv * nv), *B = vec(nv * nv), *C = vec(nv * nv);
    double *Mr = vec(nv * nv), *Dq = vec(nv * nv), *Dv = vec(nv * nv);
    double *J = vec(nv * nv), *qp = vec(m->nq);
    double *yp = vec(nv), *ym = vec(nv);
    double *vp = vec(nv), *up = vec(nv);
    double *dk = vec(nv);
    assert_int_equal(hg_aba_derivatives(m, f.d, w, f.q, f.v, f.tau, f.fext, f.qdd, A, B, C), 0);
    /* dtau/dqdd = M (with the armature) */
    hg_rnea_derivatives(m, f.d, w, f.q, f.v, f.qdd, f.fext, Dq, Dv, Mr);
    /* against M_0 (CRBA without the armature) + diag(a), formed here */
    armature_on(m, 0);
    hg_crba(m, f.d, f.q, f.M);
    armature_on(m, 1);
    for (int k = 0; k < nv; k++) f.M[k * nv + k] += m->armature[k];
    w_M = maxd(w_M, hg_test_rel_err(Mr, f.M, nv * nv));
    /* central differences of ABA in q (on the group), v and tau */
    for (int which = 0; which < 3; which++) {
      for (int k = 0; k < nv; k++) {
        for (int s = 0; s < 2; s++) {
          double e = s ? -h : h;
          memcpy(qp, f.q, (size_t)m->nq * sizeof(double));
          memcpy(vp, f.v, (size_t)nv * sizeof(double));
          memcpy(up, f.tau, (size_t)nv * sizeof(double));
          if (which == 0) {
            memset(dk, 0, (size_t)nv * sizeof(double));
            dk[k] = 1;
            hg_model_integrate(m, f.q, dk, e, qp);
          } else if (which == 1) {
            vp[k] += e;
          } else {
            up[k] += e;
          }
          assert_int_equal(hg_aba(m, f.d, qp, vp, up, f.fext, s ? ym : yp), 0);
        }
        for (int l = 0; l < nv; l++) J[l * nv + k] = (yp[l] - ym[l]) / (2 * h);
      }
      double e = hg_test_rel_err(which == 0 ? A : which == 1 ? B : C, J, nv * nv);
      if (which == 0) w_q = maxd(w_q, e);
      else if (which == 1) w_v = maxd(w_v, e);
      else w_t = maxd(w_t, e);
    }
    /* hybrid with some prescribed joints: dy/du against central differences in u (the
     * prescribed columns carry M with the armature) */
    {
      double *u = vec(nv), *y = vec(nv);
      for (int i = 1; i < m->nbody; i++)
        f.d->mode[i] = hg_rng_uniform(&r) < 0.4 ? HG_MODE_PRESCRIBED : HG_MODE_FREE;
      hg_test_random_vector(&r, u, nv, -2, 2);
      assert_int_equal(hg_hybrid_derivatives(m, f.d, w, f.q, f.v, u, f.fext, y, NULL, NULL, A), 0);
      for (int k = 0; k < nv; k++) {
        for (int s = 0; s < 2; s++) {
          double *o = s ? ym : yp, *qh = vec(nv);
          double *th = vec(nv);
          memcpy(up, u, (size_t)nv * sizeof(double));
          up[k] += s ? -h : h;
          for (int l = 0; l < nv; l++) {
            int fr = f.d->mode[m->dof_body[l]] == HG_MODE_FREE;
            th[l] = fr ? up[l] : 0, qh[l] = fr ? 0 : up[l];
          }
          assert_int_equal(hg_hybrid(m, f.d, f.q, f.v, qh, th, f.fext), 0);
          for (int l = 0; l < nv; l++)
            o[l] = f.d->mode[m->dof_body[l]] == HG_MODE_FREE ? qh[l] : th[l];
          free(qh), free(th);
        }
        for (int l = 0; l < nv; l++) J[l * nv + k] = (yp[l] - ym[l]) / (2 * h);
      }
      w_u = maxd(w_u, hg_test_rel_err(A, J, nv * nv));
      free(u), free(y);
    }
    free(A), free(B), free(C), free(Mr), free(Dq), free(Dv), free(J), free(qp), free(yp);
    free(ym), free(vp), free(up), free(dk);
    hg_deriv_free(w);
    release(&f);
  }
  printf("# armature, derivatives vs central differences (h = %g), worst relative errors:\n", h);
  printf("#   dqdd/dq %.3g, dqdd/dv %.3g, dqdd/dtau %.3g, hybrid dy/du %.3g;"
         " RNEA's M vs M_0 + diag a %.3g\n",
         w_q, w_v, w_t, w_u, w_M);
  assert_true(w_q < 1e-6);
  assert_true(w_v < 1e-6);
  assert_true(w_t < 1e-6);
  assert_true(w_u < 1e-6);
  assert_true(w_M < 1e-12);
}

/* the operational-space Gram matrix (response.c, Chang and Khatib's recursion, which loops.c
 * uses) against the responses of the articulated sweeps on the same factors, on floating trees
 * with armature on the free root: K = 1 - S D^-1 U^T across the root is then not zero */
static void response_gram(void **state) {
  (void)state;
  hg_rng r;
  hg_rng_seed(&r, 15);
  double worst = 0;
  for (int t = 0; t < NTREES; t++) {
    fixture f = make(hg_test_random_tree(&r, 2 + t % 10, 1), &r);
    hg_model *m = f.m;
    int nv = m->nv, b = m->nbody - 1;
    hg_response_load load[2] = {{.col = 0, .body = 1, .dof = -1}, {.col = 1, .body = b, .dof = -1}};
    hg_test_random_vector(&r, load[0].w, 6, -1, 1);
    hg_test_random_vector(&r, load[1].w, 6, -1, 1);
    /* the factors at q (no velocity), every joint free */
    double *dv = vec(nv), *imp = vec(nv);
    assert_int_equal(hg_hybrid_impulse_opt(m, f.d, &tree, f.q, dv, imp), 0);
    hg_response *rs = hg_response_new(m, 2);
    double Q[4], Qr[4], scale;
    assert_int_equal(hg_hybrid_response_gram(m, f.d, load, 2, 2, rs, Q, &scale), 0);
    /* Q_jc = w_j . (the acceleration of body_j in response c), each response alone */
    for (int c = 0; c < 2; c++) {
      hg_response_load one = load[c];
      one.col = 0;
      hg_hybrid_response(m, f.d, &one, 1, 1, 1, rs);
      for (int j = 0; j < 2; j++) Qr[j * 2 + c] = hg_dot6(load[j].w, rs->a[load[j].body]);
    }
    worst = maxd(worst, hg_test_rel_err(Q, Qr, 4));
    hg_response_free(rs);
    free(dv), free(imp);
    release(&f);
  }
  printf("# armature, operational-space Gram matrix vs the responses: worst relative error %.3g\n",
         worst);
  assert_true(worst < 1e-12);
}

/* (d) a model drawn from random stream s with body k's inertia Gk (NULL: its random one):
 * revolute bodies (the body-local pass) or every joint type on a floating root (the tree-frame
 * pass) */
static hg_model *build(uint64_t s, int n, int revolute, int k, const hg_inertia *Gk) {
  hg_rng r;
  hg_rng_seed(&r, s);
  hg_builder *b = hg_builder_new();
  static const hg_joint_type types[] = {HG_JOINT_REVOLUTE,   HG_JOINT_PRISMATIC, HG_JOINT_HELICAL,
                                        HG_JOINT_CYLINDRICAL, HG_JOINT_UNIVERSAL, HG_JOINT_PLANAR,
                                        HG_JOINT_SPHERICAL};
  char name[16], parent[16];
  for (int i = 1; i <= n; i++) {
    hg_inertia G;
    hg_joint j;
    hg_se3 off;
    hg_test_random_inertia(&r, &G);
    hg_test_random_pose(&r, &off);
    hg_joint_type type = revolute ? HG_JOINT_REVOLUTE : i == 1 ? HG_JOINT_FREE : types[i % 7];
    hg_test_random_joint(&r, type, &j);
    snprintf(name, sizeof name, "b%d", i);
    snprintf(parent, sizeof parent, "b%d", i - 1);
    hg_test_add_body(b, name, i == 1 ? NULL : parent, type, j.axis, j.axis2, j.pitch, &off,
                     i == k && Gk ? Gk : &G);
  }
  return hg_test_compile(b);
}

static void set_body_inertia(void **state) {
  (void)state;
  hg_rng r;
  hg_rng_seed(&r, 14);
  int bits = 1;
  double worst = 0;
  for (int t = 0; t < 40; t++) {
    int revolute = t % 2, n = 3 + t % 6, k = 1 + t % n;
    hg_model *m = build(100 + (uint64_t)t, n, revolute, 0, NULL);
    assert_true(revolute ? m->local != NULL : m->local == NULL);
    /* a lighter tank: the same centre of mass, mass and rotational inertia scaled */
    hg_inertia G = m->inertia[k];
    double s = 0.3 + 0.5 * hg_rng_uniform(&r);
    G.m *= s;
    for (int e = 0; e < 3; e++) G.h[e] *= s;
    for (int e = 0; e < 6; e++) G.I[e] *= s;
    /* refusals leave the model as it was */
    hg_inertia bad = G;
    bad.m = 0;
    assert_int_equal(hg_model_set_body_inertia(m, k, &bad), -1);
    bad = G;
    bad.m = -1;
    assert_int_equal(hg_model_set_body_inertia(m, k, &bad), -1);
    bad = G;
    bad.I[0] = bad.I[1] = bad.I[2] = 0, bad.h[0] = bad.h[1] = bad.h[2] = 0;
    assert_int_equal(hg_model_set_body_inertia(m, k, &bad), -1);
    bad = G;
    bad.I[1] = NAN;
    assert_int_equal(hg_model_set_body_inertia(m, k, &bad), -1);
    assert_int_equal(hg_model_set_body_inertia(m, 0, &G), -1);
    assert_int_equal(hg_model_set_body_inertia(m, m->nbody, &G), -1);
    assert_int_equal(hg_model_set_body_inertia(m, k, &G), 0);
    hg_model *f = build(100 + (uint64_t)t, n, revolute, k, &G);
    hg_data *dm = hg_data_new(m), *df = hg_data_new(f);
    int nv = m->nv;
    double *q = vec(m->nq), *v = vec(nv);
    double *tau = vec(nv), *a1 = vec(nv);
    double *a2 = vec(nv);
    hg_model_random(m, &r, q);
    hg_test_random_vector(&r, v, nv, -2, 2);
    hg_test_random_vector(&r, tau, nv, -5, 5);
    for (int pass = 0; pass < 2; pass++) {
      const hg_pass_options *opt = pass ? &tree : NULL;
      assert_int_equal(hg_aba_opt(m, dm, opt, q, v, tau, NULL, a1), 0);
      assert_int_equal(hg_aba_opt(f, df, opt, q, v, tau, NULL, a2), 0);
      bits &= memcmp(a1, a2, (size_t)nv * sizeof(double)) == 0;
      worst = maxd(worst, hg_test_rel_err(a1, a2, nv));
    }
    free(q), free(v), free(tau), free(a1), free(a2);
    hg_data_free(dm), hg_data_free(df);
    hg_model_free(m), hg_model_free(f);
  }
  printf("# hg_model_set_body_inertia vs a model compiled with the inertia: %s, worst %.3g\n",
         bits ? "bit for bit" : "not bit for bit", worst);
  assert_true(worst == 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(random_trees),     cmocka_unit_test(local_pass),
      cmocka_unit_test(closed_form),      cmocka_unit_test(builder_paths),
      cmocka_unit_test(docking),
      cmocka_unit_test(derivatives),      cmocka_unit_test(response_gram),
      cmocka_unit_test(set_body_inertia),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
