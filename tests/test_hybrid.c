/* test_hybrid.c: hybrid and impulsive hybrid dynamics against dense partitioned solves, and the
 * momentum and energy bookkeeping of plastic locks. */
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

/* the tree-frame pass, the reference the body-local pass is checked against */
static const hg_pass_options tree_frame = {.tree_frame = 1};

#define NTREES 240

typedef struct {
  hg_model *m;
  hg_data *d;
  int nv;
  double *q, *v, *qdd, *tau, *b, *M, *x, *y, *z, *fext;
} fixture;

static double *vec(int n) { return calloc((size_t)n + 1, sizeof(double)); }

static fixture make(hg_rng *r, int nbody, int floating) {
  fixture f;
  f.m = hg_test_random_tree(r, nbody, floating);
  f.d = hg_data_new(f.m);
  f.nv = f.m->nv;
  f.q = vec(f.m->nq);
  f.v = vec(f.nv); f.qdd = vec(f.nv); f.tau = vec(f.nv); f.b = vec(f.nv);
  f.x = vec(f.nv); f.y = vec(f.nv); f.z = vec(f.nv);
  f.M = vec(f.nv * f.nv);
  f.fext = vec(6 * f.m->nbody);
  hg_model_random(f.m, r, f.q);
  hg_test_random_vector(r, f.v, f.nv, -2, 2);
  hg_test_random_vector(r, f.qdd, f.nv, -3, 3);
  hg_test_random_vector(r, f.tau, f.nv, -5, 5);
  hg_test_random_vector(r, f.fext + 6, 6 * (f.m->nbody - 1), -1, 1);
  return f;
}

static void release(fixture *f) {
  hg_data_free(f->d);
  hg_model_free(f->m);
  free(f->q); free(f->v); free(f->qdd); free(f->tau); free(f->b); free(f->M);
  free(f->x); free(f->y); free(f->z); free(f->fext);
}

/* is DoF k prescribed under the modes in d? */
static int prescribed(const fixture *f, int k) {
  return f->d->mode[f->m->dof_body[k]] != HG_MODE_FREE;
}

/* Dense partitioned solve of M qdd + b = tau with qdd given on the prescribed set P and tau on
 * the free set F: qdd_F = M_FF^-1 (tau_F - b_F - M_FP qdd_P), tau_P = (M qdd + b)_P. Writes the
 * completed (qdd, tau) into (x, y). */
static void dense_hybrid(fixture *f, const double *qdd_in, const double *tau_in, const double *b) {
  int n = f->nv, nf = 0, idx[256];
  double *A = vec(n * n), *rhs = vec(n), *sol = vec(n);
  for (int k = 0; k < n; k++)
    if (!prescribed(f, k)) idx[nf++] = k;
  for (int a = 0; a < nf; a++) {
    int i = idx[a];
    rhs[a] = tau_in[i] - b[i];
    for (int k = 0; k < n; k++)
      if (prescribed(f, k)) rhs[a] -= f->M[i * n + k] * qdd_in[k];
    for (int c = 0; c < nf; c++) A[a * nf + c] = f->M[i * n + idx[c]];
  }
  if (nf) assert_int_equal(hg_test_spd_solve(nf, A, rhs, sol), 0);
  for (int k = 0; k < n; k++) f->x[k] = prescribed(f, k) ? qdd_in[k] : 0;
  for (int a = 0; a < nf; a++) f->x[idx[a]] = sol[a];
  for (int i = 0; i < n; i++) {
    f->y[i] = b[i];
    for (int k = 0; k < n; k++) f->y[i] += f->M[i * n + k] * f->x[k];
    if (!prescribed(f, i)) f->y[i] = tau_in[i];
  }
  free(A); free(rhs); free(sol);
}

/* every joint free is ABA, every joint prescribed is RNEA, to round-off */
static void extremes_equal_aba_and_rnea(void **state) {
  hg_rng r;
  hg_rng_seed(&r, 11);
  double worst_fd = 0, worst_id = 0;
  for (int t = 0; t < NTREES; t++) {
    fixture f = make(&r, 1 + t % 14, t % 2);
    /* all free */
    memcpy(f.x, f.tau, (size_t)f.nv * sizeof(double));
    assert_int_equal(hg_hybrid(f.m, f.d, f.q, f.v, f.y, f.x, f.fext), 0);
    assert_int_equal(hg_aba(f.m, f.d, f.q, f.v, f.tau, f.fext, f.z), 0);
    double e = hg_test_rel_err(f.y, f.z, f.nv);
    if (e > worst_fd) worst_fd = e;
    /* all prescribed */
    for (int i = 1; i < f.m->nbody; i++) f.d->mode[i] = HG_MODE_PRESCRIBED;
    memcpy(f.y, f.qdd, (size_t)f.nv * sizeof(double));
    assert_int_equal(hg_hybrid(f.m, f.d, f.q, f.v, f.y, f.x, f.fext), 0);
    hg_rnea(f.m, f.d, f.q, f.v, f.qdd, f.fext, f.z);
    e = hg_test_rel_err(f.x, f.z, f.nv);
    if (e > worst_id) worst_id = e;
    release(&f);
  }
  printf("# hybrid all free vs ABA: %.3g; all prescribed vs RNEA: %.3g\n", worst_fd, worst_id);
  assert_true(worst_fd == 0);    /* the same pass, the same arithmetic */
  assert_true(worst_id < 1e-12); /* two algorithms: round-off only */
}

/* random mixes of free, prescribed and locked joints equal the dense partitioned solve */
static void mixes_equal_dense_partitioned_solve(void **state) {
  hg_rng r;
  hg_rng_seed(&r, 12);
  double worst = 0;
  int nfloating = 0, nmulti = 0;
  for (int t = 0; t < NTREES; t++) {
    fixture f = make(&r, 2 + t % 13, t % 2);
    nfloating += t % 2;
    for (int i = 1; i < f.m->nbody; i++) {
      double u = hg_rng_uniform(&r);
      f.d->mode[i] = u < 0.45 ? HG_MODE_FREE : u < 0.85 ? HG_MODE_PRESCRIBED : HG_MODE_LOCKED;
      if (f.m->jnt_nv[i] > 1 && f.d->mode[i] != HG_MODE_FREE) nmulti++;
      if (f.d->mode[i] == HG_MODE_LOCKED)
        for (int k = f.m->v_adr[i]; k < f.m->v_adr[i] + f.m->jnt_nv[i]; k++) f.v[k] = f.qdd[k] = 0;
    }
    hg_crba(f.m, f.d, f.q, f.M);
    hg_bias(f.m, f.d, f.q, f.v, f.fext, f.b);
    dense_hybrid(&f, f.qdd, f.tau, f.b);
    /* hinge: inputs in place */
    double *qdd = vec(f.nv), *tau = vec(f.nv);
    for (int k = 0; k < f.nv; k++) {
      qdd[k] = prescribed(&f, k) ? f.qdd[k] : NAN;
      tau[k] = prescribed(&f, k) ? NAN : f.tau[k];
    }
    assert_int_equal(hg_hybrid(f.m, f.d, f.q, f.v, qdd, tau, f.fext), 0);
    double e = fmax(hg_test_rel_err(qdd, f.x, f.nv), hg_test_rel_err(tau, f.y, f.nv));
    if (e > worst) worst = e;
    free(qdd); free(tau);
    release(&f);
  }
  printf("# hybrid vs dense partitioned solve: worst relative error %.3g (%d trees, %d floating, "
         "%d multi-DoF joints prescribed or locked)\n", worst, NTREES, nfloating, nmulti);
  assert_true(nmulti > 50);
  assert_true(worst < 1e-10);
}

/* one joint not free anywhere in a tree of 20 bodies (the first, inside the words the pass scans
 * eight modes at a time, or in the tail), the rest free: the dense partitioned solve; and every
 * joint free again gives ABA's result bit for bit */
static void one_joint_not_free_anywhere(void **state) {
  hg_rng r;
  hg_rng_seed(&r, 15);
  double worst = 0;
  for (int t = 0; t < 6; t++) {
    fixture f = make(&r, 20, t % 2);
    for (int j = 1; j < f.m->nbody; j++) {
      if (f.m->jnt_nv[j] == 0) continue;
      for (int i = 1; i < f.m->nbody; i++) f.d->mode[i] = HG_MODE_FREE;
      f.d->mode[j] = t % 3 == 2 ? HG_MODE_LOCKED : HG_MODE_PRESCRIBED;
      double *v = vec(f.nv), *qdd = vec(f.nv), *tau = vec(f.nv);
      memcpy(v, f.v, (size_t)f.nv * sizeof(double));
      for (int k = 0; k < f.nv; k++) {
        int fixed = prescribed(&f, k);
        if (fixed && f.d->mode[j] == HG_MODE_LOCKED) f.v[k] = f.qdd[k] = 0;
        qdd[k] = fixed ? f.qdd[k] : NAN;
        tau[k] = fixed ? NAN : f.tau[k];
      }
      hg_crba(f.m, f.d, f.q, f.M);
      hg_bias(f.m, f.d, f.q, f.v, f.fext, f.b);
      dense_hybrid(&f, f.qdd, f.tau, f.b);
      assert_int_equal(hg_hybrid(f.m, f.d, f.q, f.v, qdd, tau, f.fext), 0);
      double e = fmax(hg_test_rel_err(qdd, f.x, f.nv), hg_test_rel_err(tau, f.y, f.nv));
      if (e > worst) worst = e;
      memcpy(f.v, v, (size_t)f.nv * sizeof(double));
      free(v); free(qdd); free(tau);
    }
    /* all free: ABA's pass */
    for (int i = 1; i < f.m->nbody; i++) f.d->mode[i] = HG_MODE_FREE;
    memcpy(f.x, f.tau, (size_t)f.nv * sizeof(double));
    assert_int_equal(hg_hybrid(f.m, f.d, f.q, f.v, f.y, f.x, f.fext), 0);
    assert_int_equal(hg_aba(f.m, f.d, f.q, f.v, f.tau, f.fext, f.z), 0);
    assert_memory_equal(f.y, f.z, (size_t)f.nv * sizeof(double));
    assert_memory_equal(f.x, f.tau, (size_t)f.nv * sizeof(double));
    release(&f);
  }
  printf("# one joint not free, anywhere in 20 bodies, vs dense: worst relative error %.3g\n",
         worst);
  assert_true(worst < 1e-10);
}

/* hg_hybrid_on_kinematics after hg_kinematics gives exactly hg_hybrid's tree-frame results (bit for bit:
 * the same arithmetic), also when another state's kinematics were computed in between */
static void on_kinematics_equals_hybrid(void **state) {
  hg_rng r;
  hg_rng_seed(&r, 14);
  for (int t = 0; t < NTREES; t++) {
    fixture f = make(&r, 2 + t % 13, t % 2);
    for (int i = 1; i < f.m->nbody; i++) f.d->mode[i] = (uint8_t)(hg_rng_uniform(&r) * 3);
    double *qdd0 = vec(f.nv), *tau0 = vec(f.nv), *qdd1 = vec(f.nv), *tau1 = vec(f.nv);
    for (int k = 0; k < f.nv; k++) qdd0[k] = qdd1[k] = f.qdd[k], tau0[k] = tau1[k] = f.tau[k];
    assert_int_equal(hg_hybrid_opt(f.m, f.d, &tree_frame, f.q, f.v, qdd0, tau0, f.fext), 0);
    hg_kinematics(f.m, f.d, f.q, f.v);
    assert_int_equal(hg_hybrid_on_kinematics(f.m, f.d, qdd1, tau1, f.fext), 0);
    assert_memory_equal(qdd0, qdd1, (size_t)f.nv * sizeof(double));
    assert_memory_equal(tau0, tau1, (size_t)f.nv * sizeof(double));
    free(qdd0); free(tau0); free(qdd1); free(tau1);
    release(&f);
  }
}

/* hg_joint_wrench after hg_hybrid (random modes) and after hg_aba is the joint wrench RNEA finds
 * for the completed accelerations (d->F, child frame), although the articulated pass does not
 * write d->F: an RNEA of another state runs first, so a wrench read from d->F would be stale */
static void joint_wrenches_equal_rnea(void **state) {
  hg_rng r;
  hg_rng_seed(&r, 17);
  double worst = 0;
  for (int t = 0; t < NTREES; t++) {
    fixture f = make(&r, 2 + t % 13, t % 2);
    int aba = t % 3 == 0;
    for (int i = 1; i < f.m->nbody; i++) {
      f.d->mode[i] = aba ? HG_MODE_FREE : (uint8_t)(hg_rng_uniform(&r) * 3);
      if (f.d->mode[i] == HG_MODE_LOCKED)
        for (int k = f.m->v_adr[i]; k < f.m->v_adr[i] + f.m->jnt_nv[i]; k++) f.v[k] = 0;
    }
    double *qdd = vec(f.nv), *tau = vec(f.nv), *W = vec(6 * f.m->nbody);
    hg_rnea(f.m, f.d, f.q, f.b, f.qdd, NULL, f.x); /* another state's wrenches in d->F */
    memcpy(qdd, f.qdd, (size_t)f.nv * sizeof(double));
    memcpy(tau, f.tau, (size_t)f.nv * sizeof(double));
    if (aba) assert_int_equal(hg_aba(f.m, f.d, f.q, f.v, f.tau, f.fext, qdd), 0);
    else assert_int_equal(hg_hybrid(f.m, f.d, f.q, f.v, qdd, tau, f.fext), 0);
    for (int i = 1; i < f.m->nbody; i++) hg_joint_wrench(f.m, f.d, i, W + 6 * i);
    hg_rnea(f.m, f.d, f.q, f.v, qdd, f.fext, f.y);
    assert_int_equal(hg_rnea_fixed_bodies(f.m, f.d, f.fext), 0); /* (fixed joints' wrenches) */
    for (int i = 1; i < f.m->nbody; i++) {
      double F[6];
      hg_coAd(&f.d->T_tree[i], f.d->F[i], F);
      double e = hg_test_rel_err(W + 6 * i, F, 6);
      if (e > worst) worst = e;
    }
    free(qdd); free(tau); free(W);
    release(&f);
  }
  printf("# joint wrenches after hybrid and ABA vs RNEA's: worst relative error %.3g\n", worst);
  assert_true(worst < 1e-10);
}

/* the impulsive form equals the dense partitioned solve of M dv = imp */
static void impulse_equals_dense(void **state) {
  hg_rng r;
  hg_rng_seed(&r, 13);
  double worst = 0;
  double *zero = vec(4096);
  for (int t = 0; t < NTREES; t++) {
    fixture f = make(&r, 2 + t % 13, t % 2);
    for (int i = 1; i < f.m->nbody; i++)
      f.d->mode[i] = hg_rng_uniform(&r) < 0.5 ? HG_MODE_FREE : HG_MODE_PRESCRIBED;
    hg_crba(f.m, f.d, f.q, f.M);
    dense_hybrid(&f, f.qdd, f.tau, zero);
    double *dv = vec(f.nv), *imp = vec(f.nv);
    memcpy(dv, f.qdd, (size_t)f.nv * sizeof(double));
    memcpy(imp, f.tau, (size_t)f.nv * sizeof(double));
    assert_int_equal(hg_hybrid_impulse(f.m, f.d, f.q, dv, imp), 0);
    double e = fmax(hg_test_rel_err(dv, f.x, f.nv), hg_test_rel_err(imp, f.y, f.nv));
    if (e > worst) worst = e;
    free(dv); free(imp);
    release(&f);
  }
  free(zero);
  printf("# impulsive hybrid vs dense: worst relative error %.3g\n", worst);
  assert_true(worst < 1e-10);
}

/* relative size of a momentum change: |dh| / (|h| + m_total |v| scale) */
static double momentum_change(const double h0[6], const double h1[6]) {
  double d = 0, s = 0;
  for (int r = 0; r < 6; r++) {
    d = fmax(d, fabs(h1[r] - h0[r]));
    s = fmax(s, fabs(h0[r]));
  }
  return d / s;
}

/* Locking moving joints of a free-floating, gravity-free tree keeps its total momentum and
 * removes exactly the energy of the plastic collision, 1/2 dv^T M dv. */
static void plastic_lock_conserves_momentum(void **state) {
  hg_rng r;
  hg_rng_seed(&r, 14);
  double worst_h = 0, worst_e = 0;
  for (int t = 0; t < NTREES; t++) {
    fixture f = make(&r, 2 + t % 13, 1);
    f.m->gravity[2] = 0;
    for (int i = 1; i < f.m->nbody; i++)
      f.d->mode[i] = i > 1 && hg_rng_uniform(&r) < 0.5 ? HG_MODE_LOCKED : HG_MODE_FREE;
    double h0[6], h1[6], removed;
    double *v1 = vec(f.nv), *imp = vec(f.nv);
    hg_momentum(f.m, f.d, f.q, f.v, h0);
    assert_int_equal(hg_plastic_lock(f.m, f.d, f.q, f.v, v1, imp, &removed), 0);
    hg_momentum(f.m, f.d, f.q, v1, h1);
    /* the locked joints are at rest, the free ones received no impulse */
    for (int k = 0; k < f.nv; k++) {
      if (prescribed(&f, k)) assert_true(fabs(v1[k]) < 1e-12);
      else assert_true(imp[k] == 0);
    }
    /* energy of the plastic collision: 1/2 dv^T M dv */
    hg_crba(f.m, f.d, f.q, f.M);
    double e = 0, ke = 0;
    for (int i = 0; i < f.nv; i++)
      for (int k = 0; k < f.nv; k++) {
        e += 0.5 * (v1[i] - f.v[i]) * f.M[i * f.nv + k] * (v1[k] - f.v[k]);
        ke += 0.5 * f.v[i] * f.M[i * f.nv + k] * f.v[k];
      }
    assert_true(removed >= 0);
    worst_h = fmax(worst_h, momentum_change(h0, h1));
    worst_e = fmax(worst_e, fabs(removed - e) / ke);
    free(v1); free(imp);
    release(&f);
  }
  printf("# plastic lock: momentum change %.3g relative, energy vs 1/2 dv^T M dv %.3g of KE\n",
         worst_h, worst_e);
  assert_true(worst_h < 1e-12);
  assert_true(worst_e < 1e-12);
}

/* classical RK4 on the group (chart at the step start) with hybrid dynamics, tau = 0 at free
 * joints and qdd = 0 at locked ones */
static void rk4_step(fixture *f, double h) {
  int nv = f->nv, nq = f->m->nq;
  double *k1 = vec(nv), *k2 = vec(nv), *k3 = vec(nv), *k4 = vec(nv), *qs = vec(nq), *vs = vec(nv),
         *dx = vec(nv), *tau = vec(nv);
  double *kv[4] = {k1, k2, k3, k4}, *kx[4];
  double *x1 = vec(nv), *x2 = vec(nv), *x3 = vec(nv), *x4 = vec(nv);
  kx[0] = x1; kx[1] = x2; kx[2] = x3; kx[3] = x4;
  static const double c[4] = {0, 0.5, 0.5, 1};
  for (int s = 0; s < 4; s++) {
    /* stage state: q (+) c h kx[s-1], v + c h kv[s-1] (exact for the chart's first order) */
    for (int k = 0; k < nv; k++) {
      dx[k] = s ? kx[s - 1][k] : 0;
      vs[k] = f->v[k] + (s ? c[s] * h * kv[s - 1][k] : 0);
      tau[k] = 0;
      kv[s][k] = 0;
    }
    hg_model_integrate(f->m, f->q, dx, s ? c[s] * h : 0, qs);
    assert_int_equal(hg_hybrid(f->m, f->d, qs, vs, kv[s], tau, NULL), 0);
    /* the chart rate of xi = c h dx is dexp^-1(xi) vs */
    for (int i = 1; i < f->m->nbody; i++) {
      int va = f->m->v_adr[i];
      double xi[6];
      for (int k = 0; k < f->m->jnt_nv[i]; k++) xi[k] = (s ? c[s] * h : 0) * dx[va + k];
      hg_joint_chart_rate(&f->m->jnt[i], xi, vs + va, kx[s] + va);
    }
  }
  for (int k = 0; k < nv; k++) {
    dx[k] = (x1[k] + 2 * x2[k] + 2 * x3[k] + x4[k]) / 6;
    f->v[k] += h * (k1[k] + 2 * k2[k] + 2 * k3[k] + k4[k]) / 6;
  }
  hg_model_integrate(f->m, f->q, dx, h, f->q);
  free(k1); free(k2); free(k3); free(k4); free(qs); free(vs); free(dx); free(tau);
  free(x1); free(x2); free(x3); free(x4);
}

/* Freeze, thaw, freeze while moving: each lock is a plastic impulse that keeps momentum; in
 * between the flow keeps momentum and energy (RK4 error only). */
static void freeze_thaw_sequence_keeps_invariants(void **state) {
  hg_rng r;
  hg_rng_seed(&r, 15);
  double worst_h = 0, worst_e = 0;
  for (int t = 0; t < 12; t++) {
    fixture f = make(&r, 4 + t % 6, 1);
    f.m->gravity[2] = 0;
    double h0[6], h1[6], k0, k1, pe, removed, total_removed = 0, e0;
    double *v1 = vec(f.nv), *imp = vec(f.nv);
    hg_momentum(f.m, f.d, f.q, f.v, h0);
    hg_energy(f.m, f.d, f.q, f.v, &e0, &pe);
    for (int phase = 0; phase < 3; phase++) {
      /* freeze a random set (phases 0 and 2), thaw everything (phase 1) */
      for (int i = 2; i < f.m->nbody; i++)
        f.d->mode[i] = phase != 1 && hg_rng_uniform(&r) < 0.5 ? HG_MODE_LOCKED : HG_MODE_FREE;
      assert_int_equal(hg_plastic_lock(f.m, f.d, f.q, f.v, v1, imp, &removed), 0);
      memcpy(f.v, v1, (size_t)f.nv * sizeof(double));
      total_removed += removed;
      for (int s = 0; s < 100; s++) rk4_step(&f, 1e-3);
    }
    hg_momentum(f.m, f.d, f.q, f.v, h1);
    hg_energy(f.m, f.d, f.q, f.v, &k1, &pe);
    worst_h = fmax(worst_h, momentum_change(h0, h1));
    k0 = e0;
    worst_e = fmax(worst_e, fabs(k1 + total_removed - k0) / k0);
    free(v1); free(imp);
    release(&f);
  }
  printf("# freeze/thaw/freeze: momentum drift %.3g, energy budget error %.3g (relative)\n",
         worst_h, worst_e);
  /* RK4 with h = 1e-3 over 0.3 s at speeds of a few rad/s: local error ~ (h w)^5 ~ 1e-13 per
   * step, so 1e-9 leaves room for the fastest random trees. */
  assert_true(worst_h < 1e-9);
  assert_true(worst_e < 1e-9);
}

/* A locked 6-DoF docking joint makes two bodies move as one: the hybrid accelerations of the
 * carrier equal those of a single body with the merged inertia, and the docked body has the
 * same body acceleration as the rigid composite. */
static void locked_docking_joint_is_one_rigid_body(void **state) {
  hg_rng r;
  hg_rng_seed(&r, 16);
  double worst = 0;
  for (int t = 0; t < 50; t++) {
    hg_inertia GA, GB, GBa, Gm;
    hg_se3 dock, off;
    hg_test_random_inertia(&r, &GA);
    hg_test_random_inertia(&r, &GB);
    hg_test_random_pose(&r, &dock);
    hg_se3_identity(&off);
    /* two-body model: A on a free joint, B on a free joint to A (the docking joint) */
    hg_builder *b = hg_builder_new();
    hg_body_spec s;
    hg_error err;
    const char *why;
    memset(&s, 0, sizeof s);
    s.name = "A"; s.parent = "world"; s.offset = off; s.inertia = GA;
    hg_joint_init(&s.joint, HG_JOINT_FREE, NULL, NULL, 0, &why);
    assert_int_equal(hg_builder_add_body(b, &s, &err), 0);
    s.name = "B"; s.parent = "A"; s.offset = dock; s.inertia = GB;
    assert_int_equal(hg_builder_add_body(b, &s, &err), 0);
    hg_model *m = hg_builder_compile(b, &err);
    hg_builder_free(b);
    assert_non_null(m);
    /* merged body: B's inertia moved into A's frame and added */
    hg_inertia_transform(&dock, &GB, &GBa);
    Gm = GA;
    hg_inertia_add(&Gm, &GBa);
    b = hg_builder_new();
    s.name = "AB"; s.parent = "world"; s.offset = off; s.inertia = Gm;
    assert_int_equal(hg_builder_add_body(b, &s, &err), 0);
    hg_model *mm = hg_builder_compile(b, &err);
    hg_builder_free(b);
    assert_non_null(mm);
    /* same state: A's pose and twist, B at rest in the dock (q_B neutral, v_B = 0) */
    hg_data *d = hg_data_new(m), *dm = hg_data_new(mm);
    double q[14], v[12], qdd[12], tau[12], qm[7], vm[6], qddm[6], zero[6] = {0};
    hg_joint_random(&m->jnt[1], &r, q);
    hg_joint_neutral(&m->jnt[2], q + 7);
    hg_test_random_vector(&r, v, 6, -1, 1);
    memset(v + 6, 0, 6 * sizeof(double));
    memcpy(qm, q, sizeof qm);
    memcpy(vm, v, sizeof vm);
    d->mode[2] = HG_MODE_LOCKED;
    memset(tau, 0, sizeof tau);
    assert_int_equal(hg_hybrid(m, d, q, v, qdd, tau, NULL), 0);
    assert_int_equal(hg_aba(mm, dm, qm, vm, zero, NULL, qddm), 0);
    worst = fmax(worst, hg_test_rel_err(qdd, qddm, 6));
    /* B's body acceleration equals the composite's, moved to B's frame */
    double aB[6], aAB[6], aBh[6];
    hg_body_acceleration(mm, dm, 1, aAB);
    hg_Ad_inv(&dock, aAB, aB);
    hg_body_acceleration(m, d, 2, aBh);
    worst = fmax(worst, hg_test_rel_err(aBh, aB, 6));
    hg_data_free(d); hg_data_free(dm);
    hg_model_free(m); hg_model_free(mm);
  }
  printf("# locked docking joint vs merged rigid body: worst relative error %.3g\n", worst);
  assert_true(worst < 1e-12);
}

/* A massless leaf on a moving joint is rejected when the model is compiled, naming the joint;
 * a state that makes an articulated inertia non-finite (NaN in q) fails cleanly at run time. */
static void singular_articulated_inertia_is_reported(void **state) {
  hg_builder *b = hg_builder_new();
  hg_body_spec s;
  hg_error err;
  const char *why;
  hg_rng r;
  hg_rng_seed(&r, 17);
  memset(&s, 0, sizeof s);
  s.name = "arm"; s.parent = "world";
  hg_se3_identity(&s.offset);
  hg_test_random_inertia(&r, &s.inertia);
  hg_joint_init(&s.joint, HG_JOINT_REVOLUTE, NULL, NULL, 0, &why);
  assert_int_equal(hg_builder_add_body(b, &s, &err), 0);
  s.name = "tip"; s.parent = "arm"; s.joint_name = "wrist";
  memset(&s.inertia, 0, sizeof s.inertia);
  assert_int_equal(hg_builder_add_body(b, &s, &err), 0);
  assert_null(hg_builder_compile(b, &err));
  printf("# compile: %s\n", err.msg);
  assert_non_null(strstr(err.msg, "'wrist'"));
  assert_non_null(strstr(err.msg, "singular"));
  hg_builder_free(b);

  fixture f = make(&r, 5, 1);
  f.q[3] = NAN; /* the root's orientation (its position alone does not enter the dynamics) */
  assert_int_not_equal(hg_aba(f.m, f.d, f.q, f.v, f.tau, NULL, f.qdd), 0);
  printf("# NaN state: %s\n", f.d->err);
  assert_non_null(strstr(f.d->err, "non-finite"));
  release(&f);
}

/* A pass that fails part-way (a NaN input torque; a NaN angle deep in the tree, which stops the
 * backward sweep at that joint after it has already handed its projection to its parent) leaves
 * nothing that a later pass reads: the next call on the same workspace gives bit for bit what a
 * fresh workspace gives, for hg_aba and for hg_hybrid. */
static void failed_pass_leaves_no_trace(void **state) {
  (void)state;
  hg_rng r;
  hg_rng_seed(&r, 23);
  fixture f = make(&r, 12, 1);
  hg_data *fresh = hg_data_new(f.m);
  double *ref = vec(f.nv), *ref_tau = vec(f.nv), *tau = vec(f.nv);
  int last = f.m->nbody - 1, qa = f.m->q_adr[last], kf = -1;
  for (int i = 1; i < f.m->nbody; i++)
    fresh->mode[i] = f.d->mode[i] = i % 3 == 0 ? HG_MODE_PRESCRIBED : HG_MODE_FREE;
  /* the NaN torque goes to the last DoF of a free joint (a prescribed one's is an output) */
  for (int k = 0; k < f.nv; k++)
    if (!prescribed(&f, k)) kf = k;
  assert_true(kf > 0);
  for (int pass = 0; pass < 2; pass++) {
    /* pass 0: hg_aba; pass 1: hg_hybrid (qdd given at the prescribed joints) */
    for (int k = 0; k < f.nv; k++) ref[k] = f.qdd[k], ref_tau[k] = f.tau[k];
    assert_int_equal(pass ? hg_hybrid(f.m, fresh, f.q, f.v, ref, ref_tau, NULL)
                          : hg_aba(f.m, fresh, f.q, f.v, f.tau, NULL, ref), 0);
    for (int fail = 0; fail < 2; fail++) {
      double keep_tau = f.tau[kf], keep_q = f.q[qa];
      if (fail) f.q[qa] = NAN;
      else f.tau[kf] = NAN;
      double *x = f.x;
      for (int k = 0; k < f.nv; k++) x[k] = f.qdd[k], tau[k] = f.tau[k];
      assert_int_not_equal(pass ? hg_hybrid(f.m, f.d, f.q, f.v, x, tau, NULL)
                                : hg_aba(f.m, f.d, f.q, f.v, f.tau, NULL, x), 0);
      assert_non_null(strstr(f.d->err, "non-finite"));
      f.tau[kf] = keep_tau, f.q[qa] = keep_q;
      for (int k = 0; k < f.nv; k++) x[k] = f.qdd[k], tau[k] = f.tau[k];
      assert_int_equal(pass ? hg_hybrid(f.m, f.d, f.q, f.v, x, tau, NULL)
                            : hg_aba(f.m, f.d, f.q, f.v, f.tau, NULL, x), 0);
      for (int k = 0; k < f.nv; k++) {
        assert_true(x[k] == ref[k]);
        if (pass) assert_true(tau[k] == ref_tau[k]);
      }
    }
  }
  free(ref); free(ref_tau); free(tau);
  hg_data_free(fresh);
  release(&f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(extremes_equal_aba_and_rnea),
      cmocka_unit_test(mixes_equal_dense_partitioned_solve),
      cmocka_unit_test(one_joint_not_free_anywhere),
      cmocka_unit_test(on_kinematics_equals_hybrid),
      cmocka_unit_test(joint_wrenches_equal_rnea),
      cmocka_unit_test(impulse_equals_dense),
      cmocka_unit_test(plastic_lock_conserves_momentum),
      cmocka_unit_test(freeze_thaw_sequence_keeps_invariants),
      cmocka_unit_test(locked_docking_joint_is_one_rigid_body),
      cmocka_unit_test(singular_articulated_inertia_is_reported),
      cmocka_unit_test(failed_pass_leaves_no_trace),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
