/* test_dynamics.c: the recursive algorithms checked against each other and against dense algebra
 * on random trees mixing every joint type, with fixed and floating bases. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "dense.h"
#include "models.h"

#define NTREES 240

typedef struct {
  hg_model *m;
  hg_data *d;
  double *q, *v, *qdd, *tau, *b, *M, *x, *y;
  double *fext;
} fixture;

static fixture make(hg_rng *r, int nbody, int floating) {
  fixture f;
  f.m = hg_test_random_tree(r, nbody, floating);
  f.d = hg_data_new(f.m);
  int nq = f.m->nq, nv = f.m->nv;
  f.q = calloc((size_t)nq + 1, sizeof(double));
  f.v = calloc((size_t)nv + 1, sizeof(double));
  f.qdd = calloc((size_t)nv + 1, sizeof(double));
  f.tau = calloc((size_t)nv + 1, sizeof(double));
  f.b = calloc((size_t)nv + 1, sizeof(double));
  f.x = calloc((size_t)nv + 1, sizeof(double));
  f.y = calloc((size_t)nv + 1, sizeof(double));
  f.M = calloc((size_t)nv * (size_t)nv + 1, sizeof(double));
  f.fext = calloc(6 * (size_t)f.m->nbody, sizeof(double));
  hg_model_random(f.m, r, f.q);
  hg_test_random_vector(r, f.v, nv, -2, 2);
  hg_test_random_vector(r, f.qdd, nv, -3, 3);
  hg_test_random_vector(r, f.tau, nv, -5, 5);
  for (int i = 1; i < f.m->nbody; i++) hg_test_random_vector(r, f.fext + 6 * i, 6, -1, 1);
  return f;
}

static void release(fixture *f) {
  hg_data_free(f->d);
  hg_model_free(f->m);
  free(f->q); free(f->v); free(f->qdd); free(f->tau); free(f->b); free(f->x); free(f->y);
  free(f->M); free(f->fext);
}

/* 1 when DoF l is k or on k's path to its tree's root */
static int on_path(const hg_model *m, int k, int l) {
  for (; k >= 0; k = m->dof_parent[k])
    if (k == l) return 1;
  return 0;
}

/* RNEA(q, v, qdd) = M(q) qdd + b(q, v), with external wrenches in both; hg_crba writes every
 * entry of M (it starts from NaN), and exactly zero where neither DoF is on the other's path */
static void rnea_equals_crba(void **state) {
  hg_rng r;
  hg_rng_seed(&r, 1);
  double worst = 0;
  for (int t = 0; t < NTREES; t++) {
    fixture f = make(&r, 1 + t % 14, t % 2);
    int nv = f.m->nv;
    hg_rnea(f.m, f.d, f.q, f.v, f.qdd, f.fext, f.tau);
    hg_bias(f.m, f.d, f.q, f.v, f.fext, f.b);
    for (int i = 0; i < nv * nv; i++) f.M[i] = NAN;
    hg_crba(f.m, f.d, f.q, f.M);
    for (int k = 0; k < nv; k++)
      for (int l = 0; l < nv; l++)
        if (!on_path(f.m, k, l) && !on_path(f.m, l, k)) assert_true(f.M[k * nv + l] == 0);
    for (int i = 0; i < nv; i++) {
      f.x[i] = f.b[i];
      for (int j = 0; j < nv; j++) f.x[i] += f.M[i * nv + j] * f.qdd[j];
    }
    double e = hg_test_rel_err(f.x, f.tau, nv);
    if (e > worst) worst = e;
    /* M is symmetric positive definite */
    for (int i = 0; i < nv; i++)
      for (int j = 0; j < nv; j++) assert_true(f.M[i * nv + j] == f.M[j * nv + i]);
    assert_int_equal(hg_test_spd_solve(nv, f.M, f.b, f.x), 0);
    release(&f);
  }
  printf("# RNEA vs M qdd + b: worst relative error %.3g over %d trees\n", worst, NTREES);
  assert_true(worst < 1e-12);
}

/* ABA(q, v, tau) = M^-1 (tau - b) */
static void aba_equals_dense(void **state) {
  hg_rng r;
  hg_rng_seed(&r, 2);
  double worst = 0;
  for (int t = 0; t < NTREES; t++) {
    fixture f = make(&r, 1 + t % 14, t % 2);
    int nv = f.m->nv;
    assert_int_equal(hg_aba(f.m, f.d, f.q, f.v, f.tau, f.fext, f.qdd), 0);
    hg_bias(f.m, f.d, f.q, f.v, f.fext, f.b);
    hg_crba(f.m, f.d, f.q, f.M);
    for (int i = 0; i < nv; i++) f.y[i] = f.tau[i] - f.b[i];
    assert_int_equal(hg_test_spd_solve(nv, f.M, f.y, f.x), 0);
    double e = hg_test_rel_err(f.qdd, f.x, nv);
    if (e > worst) worst = e;
    release(&f);
  }
  printf("# ABA vs M^-1 (tau - b): worst relative error %.3g over %d trees\n", worst, NTREES);
  assert_true(worst < 1e-10);
}

/* ABA then RNEA returns the torque it started from */
static void aba_inverts_rnea(void **state) {
  hg_rng r;
  hg_rng_seed(&r, 3);
  double worst = 0;
  for (int t = 0; t < NTREES; t++) {
    fixture f = make(&r, 1 + t % 14, t % 2);
    assert_int_equal(hg_aba(f.m, f.d, f.q, f.v, f.tau, NULL, f.qdd), 0);
    hg_rnea(f.m, f.d, f.q, f.v, f.qdd, NULL, f.x);
    double e = hg_test_rel_err(f.x, f.tau, f.m->nv);
    if (e > worst) worst = e;
    release(&f);
  }
  printf("# RNEA(ABA(tau)) vs tau: worst relative error %.3g\n", worst);
  assert_true(worst < 1e-10);
}

/* J^T F (hg_jacobian_transpose) is the external-wrench part of RNEA: a wrench F on body i alone
 * changes RNEA's tau by -J_i^T F */
static void jacobian_transpose_equals_rnea(void **state) {
  hg_rng r;
  hg_rng_seed(&r, 4);
  double worst = 0;
  for (int t = 0; t < NTREES; t++) {
    fixture f = make(&r, 1 + t % 14, t % 2);
    int nv = f.m->nv, i = 1 + (int)(hg_rng_uniform(&r) * (f.m->nbody - 1));
    double F[6];
    hg_test_random_vector(&r, F, 6, -1, 1);
    for (int k = 0; k < 6 * f.m->nbody; k++) f.fext[k] = 0;
    for (int k = 0; k < 6; k++) f.fext[6 * i + k] = F[k];
    hg_rnea(f.m, f.d, f.q, f.v, f.qdd, NULL, f.x);
    hg_rnea(f.m, f.d, f.q, f.v, f.qdd, f.fext, f.y);
    for (int k = 0; k < nv; k++) f.b[k] = f.x[k] - f.y[k], f.tau[k] = 0.5;
    /* it adds to tau: start from 0.5 everywhere */
    hg_kinematics(f.m, f.d, f.q, NULL);
    hg_jacobian_transpose(f.m, f.d, i, F, f.tau);
    for (int k = 0; k < nv; k++) f.tau[k] -= 0.5;
    double e = hg_test_max_diff(f.tau, f.b, nv);
    if (e > worst) worst = e;
    release(&f);
  }
  printf("# J^T F vs RNEA(fext) - RNEA(0): worst difference %.3g\n", worst);
  /* both sum the same O(1) products of unit-size numbers on paths of <= 14 joints */
  assert_true(worst < 1e-12);
}

/* virtual work: tau_k = F . (d/de of body i's pose along DoF k, as a body twist), by central
 * differences of log(T_i(q)^-1 T_i(q (+) e e_k)) */
static void jacobian_transpose_virtual_work(void **state) {
  hg_rng r;
  hg_rng_seed(&r, 5);
  double worst = 0;
  const double h = 1e-6;
  for (int t = 0; t < 120; t++) {
    fixture f = make(&r, 1 + t % 14, t % 2);
    int nv = f.m->nv, nq = f.m->nq, i = 1 + (int)(hg_rng_uniform(&r) * (f.m->nbody - 1));
    double F[6], *qp = calloc((size_t)nq + 1, sizeof(double)), *qm = calloc((size_t)nq + 1, sizeof(double));
    hg_test_random_vector(&r, F, 6, -1, 1);
    for (int k = 0; k < nv; k++) f.tau[k] = 0;
    hg_kinematics(f.m, f.d, f.q, NULL);
    hg_se3 T0 = f.d->T_world[i], Tp, Tm, D;
    hg_jacobian_transpose(f.m, f.d, i, F, f.tau);
    for (int k = 0; k < nv; k++) {
      double xp[6], xm[6], J[6];
      for (int l = 0; l < nv; l++) f.x[l] = l == k;
      hg_model_integrate(f.m, f.q, f.x, h, qp);
      hg_model_integrate(f.m, f.q, f.x, -h, qm);
      hg_kinematics(f.m, f.d, qp, NULL);
      Tp = f.d->T_world[i];
      hg_kinematics(f.m, f.d, qm, NULL);
      Tm = f.d->T_world[i];
      hg_se3_invmul(&T0, &Tp, &D);
      hg_se3_log(&D, xp);
      hg_se3_invmul(&T0, &Tm, &D);
      hg_se3_log(&D, xm);
      for (int c = 0; c < 6; c++) J[c] = (xp[c] - xm[c]) / (2 * h);
      double e = fabs(hg_dot6(J, F) - f.tau[k]);
      if (e > worst) worst = e;
    }
    free(qp);
    free(qm);
    release(&f);
  }
  printf("# J^T F vs virtual work by central differences: worst difference %.3g\n", worst);
  /* central differences: h^2 |J''| ~ 1e-12 truncation plus eps / h ~ 1e-10 round-off */
  assert_true(worst < 1e-8);
}

/* the walk's fast paths for revolute joints about a coordinate axis, behind a rotated origin or
 * not (hg_joint_walk), equal the fold and the general walk (the same model with the fast paths
 * turned off) */
static void axis_fast_path_equals_general(void **state) {
  hg_rng r;
  hg_rng_seed(&r, 6);
  double worst = 0;
  for (int t = 0; t < 60; t++) {
    hg_builder *b = hg_builder_new();
    int n = 2 + t % 12;
    for (int i = 0; i < n; i++) {
      char name[16], parent[16];
      double axis[3] = {0, 0, 0};
      hg_se3 off;
      hg_inertia G;
      axis[(int)(hg_rng_uniform(&r) * 3) % 3] = 1;
      hg_test_random_pose(&r, &off);
      /* now and then an origin without rotation (the other fast case) */
      if (hg_rng_uniform(&r) < 0.3) hg_m3_identity(off.R);
      hg_test_random_inertia(&r, &G);
      snprintf(name, sizeof name, "b%d", i);
      snprintf(parent, sizeof parent, "b%d", (int)(hg_rng_uniform(&r) * i));
      hg_joint_type type = i == 0 && t % 2 ? HG_JOINT_FREE : HG_JOINT_REVOLUTE;
      hg_test_add_body(b, name, i ? parent : "world", type, axis, NULL, 0, &off, &G);
    }
    hg_error err;
    hg_model *m = hg_builder_compile(b, &err);
    hg_builder_free(b);
    assert_non_null(m);
    int fast = 0;
    for (int i = 1; i < m->nbody; i++)
      fast += m->jnt_walk[i] >= HG_WALK_X && m->jnt_walk[i] <= HG_WALK_ZR;
    assert_true(fast > 0);
    hg_data *d = hg_data_new(m);
    int nv = m->nv;
    double *q = calloc((size_t)m->nq, sizeof(double)), *v = calloc((size_t)nv, sizeof(double));
    double *tau = calloc((size_t)nv, sizeof(double)), *a0 = calloc((size_t)nv, sizeof(double));
    double *a1 = calloc((size_t)nv, sizeof(double)), *t0 = calloc((size_t)nv, sizeof(double));
    double *t1 = calloc((size_t)nv, sizeof(double));
    hg_model_random(m, &r, q);
    hg_test_random_vector(&r, v, nv, -2, 2);
    hg_test_random_vector(&r, tau, nv, -5, 5);
    assert_int_equal(hg_aba(m, d, q, v, tau, NULL, a0), 0);
    hg_rnea(m, d, q, v, a0, NULL, t0);
    hg_se3 Tlast = d->T_world[m->nbody - 1];
    /* the same joints by the fold (any axis), then by the general walk (the joint's own
     * transform and motion subspace) */
    for (int pass = 0; pass < 2; pass++) {
      for (int i = 1; i < m->nbody; i++)
        if (m->jnt[i].type == HG_JOINT_REVOLUTE || pass)
          m->jnt_walk[i] = pass ? HG_WALK_GENERAL : HG_WALK_FOLD;
      assert_int_equal(hg_aba(m, d, q, v, tau, NULL, a1), 0);
      hg_rnea(m, d, q, v, a0, NULL, t1);
      worst = fmax(worst, hg_test_rel_err(a1, a0, nv));
      worst = fmax(worst, hg_test_rel_err(t1, t0, nv));
      worst = fmax(worst, hg_test_max_diff(d->T_world[m->nbody - 1].R, Tlast.R, 9));
      worst = fmax(worst, hg_test_max_diff(d->T_world[m->nbody - 1].p, Tlast.p, 3));
    }
    free(q); free(v); free(tau); free(a0); free(a1); free(t0); free(t1);
    hg_data_free(d);
    hg_model_free(m);
  }
  printf("# coordinate-axis walk vs fold and general walk: worst relative difference %.3g\n", worst);
  /* the paths round differently (Rodrigues and two products vs a column turn): round-off
   * of poses composed over <= 13 joints, amplified by ABA's solves */
  assert_true(worst < 1e-12);
}

/* the walks of prismatic, spherical and free joints (hg_joint_walk: any axis, coordinate axes
 * either way, behind origins with and without rotation, at a tree's root and below it) give the
 * poses, motion subspaces, ABA, RNEA and CRBA of the general walk (the same model with every
 * joint's walk turned general) */
static void joint_walks_equal_general(void **state) {
  static const hg_joint_type types[4] = {HG_JOINT_PRISMATIC, HG_JOINT_SPHERICAL, HG_JOINT_FREE,
                                         HG_JOINT_REVOLUTE};
  hg_rng r;
  hg_rng_seed(&r, 7);
  double worst = 0, worst_kin = 0;
  /* how often each new walk ran: [walk - HG_WALK_PRISMATIC][root][pure] */
  int seen[3][2][2] = {{{0}}};
  for (int t = 0; t < 80; t++) {
    hg_builder *b = hg_builder_new();
    int n = 2 + t % 12;
    for (int i = 0; i < n; i++) {
      char name[16], parent[16];
      double axis[3];
      hg_se3 off;
      hg_inertia G;
      hg_joint_type type = types[(int)(hg_rng_uniform(&r) * 4) % 4];
      /* a coordinate axis (either sign) half of the time, else any axis */
      if (hg_rng_uniform(&r) < 0.5) {
        axis[0] = axis[1] = axis[2] = 0;
        axis[(int)(hg_rng_uniform(&r) * 3) % 3] = hg_rng_uniform(&r) < 0.5 ? 1 : -1;
      } else {
        hg_test_random_vector(&r, axis, 3, -1, 1);
      }
      hg_test_random_pose(&r, &off);
      if (hg_rng_uniform(&r) < 0.4) hg_m3_identity(off.R);
      hg_test_random_inertia(&r, &G);
      /* the parent: the world now and then (more roots), else any earlier body */
      int p = i == 0 || hg_rng_uniform(&r) < 0.15 ? -1 : (int)(hg_rng_uniform(&r) * i) % i;
      snprintf(name, sizeof name, "b%d", i);
      snprintf(parent, sizeof parent, "b%d", p);
      hg_test_add_body(b, name, p >= 0 ? parent : "world", type, axis, NULL, 0, &off, &G);
    }
    hg_error err;
    hg_model *m = hg_builder_compile(b, &err);
    hg_builder_free(b);
    assert_non_null(m);
    for (int i = 1; i < m->nbody; i++)
      if (m->jnt_walk[i] >= HG_WALK_PRISMATIC)
        seen[m->jnt_walk[i] - HG_WALK_PRISMATIC][m->parent[i] == 0][m->offset_pure[i]]++;
    hg_data *d = hg_data_new(m);
    int nv = m->nv, nb = m->nbody;
    double *q = calloc((size_t)m->nq, sizeof(double)), *v = calloc((size_t)nv, sizeof(double));
    double *tau = calloc((size_t)nv, sizeof(double)), *a0 = calloc((size_t)nv, sizeof(double));
    double *a1 = calloc((size_t)nv, sizeof(double)), *t0 = calloc((size_t)nv, sizeof(double));
    double *t1 = calloc((size_t)nv, sizeof(double));
    double *M0 = calloc((size_t)nv * (size_t)nv, sizeof(double));
    double *M1 = calloc((size_t)nv * (size_t)nv, sizeof(double));
    double *S0 = calloc(6 * (size_t)nv, sizeof(double)), *T0 = calloc(12 * (size_t)nb, sizeof(double));
    hg_model_random(m, &r, q);
    hg_test_random_vector(&r, v, nv, -2, 2);
    hg_test_random_vector(&r, tau, nv, -5, 5);
    /* the fast walks, then the general walk */
    for (int pass = 0; pass < 2; pass++) {
      if (pass)
        for (int i = 1; i < nb; i++) m->jnt_walk[i] = HG_WALK_GENERAL;
      double *a = pass ? a1 : a0, *tq = pass ? t1 : t0, *M = pass ? M1 : M0;
      hg_crba(m, d, q, M);
      assert_int_equal(hg_aba(m, d, q, v, tau, NULL, a), 0);
      for (int i = 1; i < nb; i++)
        for (int k = 0; k < 12; k++) {
          double x = k < 9 ? d->T_world[i].R[k] : d->T_world[i].p[k - 9];
          if (pass) worst_kin = fmax(worst_kin, fabs(x - T0[12 * i + k]));
          else T0[12 * i + k] = x;
        }
      for (int k = 0; k < nv; k++)
        for (int c = 0; c < 6; c++) {
          if (pass) worst_kin = fmax(worst_kin, fabs(d->S[k][c] - S0[6 * k + c]));
          else S0[6 * k + c] = d->S[k][c];
        }
      hg_rnea(m, d, q, v, a0, NULL, tq);
    }
    worst = fmax(worst, hg_test_rel_err(a1, a0, nv));
    worst = fmax(worst, hg_test_rel_err(t1, t0, nv));
    worst = fmax(worst, hg_test_rel_err(M1, M0, nv * nv));
    free(q); free(v); free(tau); free(a0); free(a1); free(t0); free(t1);
    free(M0); free(M1); free(S0); free(T0);
    hg_data_free(d);
    hg_model_free(m);
  }
  for (int w = 0; w < 3; w++)
    for (int root = 0; root < 2; root++)
      for (int pure = 0; pure < 2; pure++) assert_true(seen[w][root][pure] > 0);
  printf("# prismatic, spherical and free walks vs the general walk: poses and S %.3g, ABA, RNEA "
         "and CRBA (relative) %.3g\n", worst_kin, worst);
  /* the same products in another order: round-off of poses composed over <= 13 joints (unit
   * sized), amplified in ABA by the solves of random trees' articulated inertias */
  assert_true(worst_kin < 1e-13);
  assert_true(worst < 1e-11);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(rnea_equals_crba),
      cmocka_unit_test(aba_equals_dense),
      cmocka_unit_test(aba_inverts_rnea),
      cmocka_unit_test(jacobian_transpose_equals_rnea),
      cmocka_unit_test(jacobian_transpose_virtual_work),
      cmocka_unit_test(axis_fast_path_equals_general),
      cmocka_unit_test(joint_walks_equal_general),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
