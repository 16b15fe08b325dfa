/* test_loops.c: closed kinematic loops (loops.h): the rows against finite differences of the
 * residual, the constrained hybrid dynamics against dense KKT solves, redundant loops, the
 * closing impulse and the projection onto the constraint manifold. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "body_frames.h"
#include "dense.h"
#include "loops.h"
#include "models.h"

#include <lapacke.h> /* after hinge's headers: it defines I (complex.h) */

static double *vec(int n) { return calloc((size_t)n + 1, sizeof(double)); }

static double norm_inf(const double *x, int n) {
  double t = 0;
  for (int i = 0; i < n; i++)
    if (!(fabs(x[i]) <= t)) t = fabs(x[i]);
  return t;
}

/* A random case: a random tree (floating or a forest), q random, and nloops loops of the given
 * joint type (type < 0: any) between random bodies (the world now and then), closed at q by
 * construction: marker A random on a, the loop joint at a random q*, marker B where it puts B. */
typedef struct {
  hg_model *m;
  hg_data *d;
  hg_loops *L;
  hg_loop loop[8];
  int nloops, nv, nq, maxrows;
  double *q, *v;
} loop_case;

static void close_loop(loop_case *c, hg_rng *r, int k, int type) {
  hg_loop *l = &c->loop[k];
  const hg_model *m = c->m;
  memset(l, 0, sizeof *l);
  l->kind = HG_LOOP_JOINT;
  hg_test_random_joint(r, (hg_joint_type)type, &l->joint);
  do {
    l->body[0] = (int)(hg_rng_uniform(r) * m->nbody);
    l->body[1] = (int)(hg_rng_uniform(r) * m->nbody);
  } while (l->body[0] == l->body[1]);
  hg_test_random_pose(r, &l->M[0]);
  /* B = A T_joint(q*);  M_B = T_0b^-1 B */
  double qs[HG_JOINT_MAXNQ];
  hg_se3 A, B, Tj;
  hg_joint_random(&l->joint, r, qs);
  hg_joint_transform(&l->joint, qs, &Tj);
  hg_se3_mul(&c->d->T_world[l->body[0]], &l->M[0], &A);
  if (!l->body[0]) A = l->M[0];
  hg_se3_mul(&A, &Tj, &B);
  if (l->body[1]) hg_se3_invmul(&c->d->T_world[l->body[1]], &B, &l->M[1]);
  else l->M[1] = B;
}

/* the case on model m (taken), with a coupling loop between two 1-DoF joints when coupling and
 * the model has them, q random (mimic couplings satisfied) */
static loop_case make_case_on(hg_rng *r, hg_model *m, int nloops, int type, int coupling) {
  loop_case c;
  memset(&c, 0, sizeof c);
  c.m = m;
  c.d = hg_data_new(c.m);
  c.nv = c.m->nv, c.nq = c.m->nq;
  c.q = vec(c.nq), c.v = vec(c.nv);
  hg_model_random(c.m, r, c.q);
  hg_mimic_project(c.m, c.q, c.v);
  hg_kinematics(c.m, c.d, c.q, NULL);
  c.nloops = nloops;
  for (int k = 0; k < nloops; k++) {
    int t = type >= 0 ? type : (int)(hg_rng_uniform(r) * HG_JOINT_NTYPES);
    if (t >= HG_JOINT_NTYPES) t = HG_JOINT_NTYPES - 1;
    close_loop(&c, r, k, t);
  }
  if (coupling) {
    /* the last two 1-DoF joints that follow no mimic leader, q_f = ratio q_l + offset at q */
    int f = -1, g = -1;
    for (int i = c.m->nbody - 1; i > 0; i--) {
      int follows = 0;
      for (int k = 0; k < c.m->nmimic; k++) follows |= c.m->mimic_follower[k] == i;
      if (c.m->jnt_nv[i] != 1 || follows) continue;
      if (f < 0) f = i;
      else if (g < 0) g = i;
    }
    if (g > 0) {
      hg_loop *l = &c.loop[c.nloops++];
      memset(l, 0, sizeof *l);
      l->kind = HG_LOOP_COUPLING;
      l->jnt[0] = g, l->jnt[1] = f;
      l->ratio = hg_rng_range(r, -2, 2);
      l->offset = c.q[c.m->q_adr[f]] - l->ratio * c.q[c.m->q_adr[g]];
    }
  }
  nloops = c.nloops;
  hg_error err;
  c.L = hg_loops_new(c.m, c.loop, nloops, &err);
  if (!c.L) fail_msg("hg_loops_new: %s", err.msg);
  c.maxrows = hg_loops_maxrows(c.L);
  return c;
}

static loop_case make_case(hg_rng *r, int nbody, int floating, int nloops, int type) {
  return make_case_on(r, hg_test_random_tree(r, nbody, floating), nloops, type, 0);
}

static void release(loop_case *c) {
  hg_loops_free(c->L);
  hg_data_free(c->d);
  hg_model_free(c->m);
  free(c->q), free(c->v);
}

/* N (n x k, row-major, k returned): an orthonormal basis of the null space of A (m x n) */
static int null_space(const double *A, int m, int n, double *N) {
  if (m == 0) {
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++) N[i * n + j] = i == j;
    return n;
  }
  double *a = vec(m * n), *s = vec(n + m), *u = vec(1), *vt = vec(n * n), *sup = vec(n + m);
  memcpy(a, A, (size_t)m * n * sizeof(double));
  int info = LAPACKE_dgesvd(LAPACK_ROW_MAJOR, 'N', 'A', m, n, a, n, s, u, 1, vt, n, sup);
  assert_int_equal(info, 0);
  int rank = 0, mn = m < n ? m : n;
  for (int i = 0; i < mn; i++)
    if (s[i] > 1e-9 * s[0]) rank++;
  int k = n - rank;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < k; j++) N[i * k + j] = vt[(rank + j) * n + i];
  free(a), free(s), free(u), free(vt), free(sup);
  return k;
}

/* v = a random vector of the null space of A (m x n) */
static void random_null(hg_rng *r, const double *A, int m, int n, double *v) {
  double *N = vec(n * n), *z = vec(n);
  int k = null_space(A, m, n, N);
  hg_test_random_vector(r, z, k, -1.5, 1.5);
  for (int i = 0; i < n; i++) {
    double t = 0;
    for (int j = 0; j < k; j++) t += N[i * k + j] * z[j];
    v[i] = t;
  }
  free(N), free(z);
}

/* the residual r at q (kinematics walked) */
static int residual_at(loop_case *c, const double *q, double *r) {
  hg_kinematics(c->m, c->d, q, NULL);
  return hg_loops_rows(c->L, c->d, q, NULL, NULL, NULL, NULL, r);
}

/* Gn (nc x nv): central differences of the residual in tangent coordinates */
static void numeric_G(loop_case *c, const double *q, int nc, double *Gn) {
  double h = 1e-6, *dv = vec(c->nv), *qp = vec(c->nq), *rp = vec(nc), *rm = vec(nc);
  for (int k = 0; k < c->nv; k++) {
    memset(dv, 0, (size_t)c->nv * sizeof(double));
    dv[k] = 1;
    hg_model_integrate(c->m, q, dv, h, qp);
    residual_at(c, qp, rp);
    hg_model_integrate(c->m, q, dv, -h, qp);
    residual_at(c, qp, rm);
    for (int i = 0; i < nc; i++) Gn[i * c->nv + k] = (rp[i] - rm[i]) / (2 * h);
  }
  free(dv), free(qp), free(rp), free(rm);
}

/* gamma_n = -(d/dt G(q (+) t v)) v by central differences */
static void numeric_gamma(loop_case *c, const double *q, const double *v, int nc, double *gn) {
  int nv = c->nv;
  double h = 1e-6, *qp = vec(c->nq), *Gp = vec(nc * nv), *Gm = vec(nc * nv);
  hg_model_integrate(c->m, q, v, h, qp);
  hg_kinematics(c->m, c->d, qp, NULL);
  hg_loops_rows(c->L, c->d, qp, NULL, NULL, Gp, NULL, NULL);
  hg_model_integrate(c->m, q, v, -h, qp);
  hg_kinematics(c->m, c->d, qp, NULL);
  hg_loops_rows(c->L, c->d, qp, NULL, NULL, Gm, NULL, NULL);
  for (int i = 0; i < nc; i++) {
    double t = 0;
    for (int k = 0; k < nv; k++) t += (Gp[i * nv + k] - Gm[i * nv + k]) / (2 * h) * v[k];
    gn[i] = -t;
  }
  free(qp), free(Gp), free(Gm);
}

/* G against differences of the residual along every tangent direction, and gamma against the
 * difference of G v along the motion, for loops of every joint type on random trees (floating
 * and fixed forests, loops within a tree, across trees and to the world) */
static void test_rows_match_differences(void **state) {
  (void)state;
  hg_rng r;
  hg_rng_seed(&r, 101);
  double worst_G = 0, worst_g = 0, worst_r = 0;
  for (int trial = 0; trial < 90; trial++) {
    int type = trial % HG_JOINT_NTYPES, nloops = 1 + trial % 3;
    loop_case c = make_case(&r, 4 + trial % 6, trial % 2, nloops, type);
    int nv = c.nv, mr = c.maxrows;
    double *G = vec(mr * nv), *Gn = vec(mr * nv), *gam = vec(mr), *gn = vec(mr), *res = vec(mr);
    /* the rows at q, with a velocity along the manifold */
    hg_kinematics(c.m, c.d, c.q, NULL);
    int nc = hg_loops_rows(c.L, c.d, c.q, NULL, NULL, G, NULL, res);
    int want = 0;
    for (int k = 0; k < nloops; k++) want += 6 - hg_joint_nv(c.loop[k].joint.type);
    assert_int_equal(nc, want);
    for (int k = 0; k < nloops; k++) assert_int_equal(hg_loops_nrow(c.L, k), 6 - hg_joint_nv(c.loop[k].joint.type));
    random_null(&r, G, nc, nv, c.v);
    hg_kinematics(c.m, c.d, c.q, c.v);
    hg_loops_rows(c.L, c.d, c.q, c.v, NULL, G, gam, res);
    numeric_G(&c, c.q, nc, Gn);
    numeric_gamma(&c, c.q, c.v, nc, gn);
    double sG = 1 + norm_inf(Gn, nc * nv), sg = 1 + norm_inf(gn, nc);
    double eG = hg_test_max_diff(G, Gn, nc * nv) / sG, eg = hg_test_max_diff(gam, gn, nc) / sg;
    double er = norm_inf(res, nc);
    if (eG > worst_G) worst_G = eG;
    if (eg > worst_g) worst_g = eg;
    if (er > worst_r) worst_r = er;
    if (eG > 1e-7 || eg > 1e-6 || er > 1e-9)
      fail_msg("trial %d (loop type %s): G error %.3g, gamma error %.3g, residual %.3g", trial,
               hg_joint_type_name((hg_joint_type)type), eG, eg, er);
    /* the violation of a closed loop is zero */
    hg_kinematics(c.m, c.d, c.q, NULL);
    for (int k = 0; k < nloops; k++) {
      double dist, ang;
      hg_loops_violation(c.L, c.d, c.q, k, &dist, &ang);
      assert_true(dist < 1e-9 && ang < 1e-9);
    }
    free(G), free(Gn), free(gam), free(gn), free(res);
    release(&c);
  }
  printf("rows vs differences: G %.2e, gamma %.2e (relative), residual %.2e\n", worst_G, worst_g,
         worst_r);
}

/* x (n) = the minimum-norm least-squares solution of A x = b (A m x n, row-major) */
static void lstsq(const double *A, int m, int n, const double *b, double *x) {
  int ld = m > n ? m : n, rank;
  double *a = vec(m * n), *bb = vec(ld), *s = vec(ld);
  memcpy(a, A, (size_t)m * n * sizeof(double));
  memcpy(bb, b, (size_t)m * sizeof(double));
  int info = LAPACKE_dgelsd(LAPACK_ROW_MAJOR, m, n, 1, a, n, bb, 1, s, 1e-11, &rank);
  assert_int_equal(info, 0);
  memcpy(x, bb, (size_t)n * sizeof(double));
  free(a), free(bb), free(s);
}

typedef struct {
  double qdd, lambda, tau, Gres, cond;
  int ambiguous;
} kkt_errors;

/* 1 when the n x n symmetric positive semi-definite A has an eigenvalue between 1e-13 and 1e-8
 * of its largest: a nearly singular set of rows, whose minimum-norm solution depends on where the
 * rank is cut (the solver drops eigenvalues below 1e-10 of the largest, a KKT solve singular
 * values: the square root of that) */
static int rank_ambiguous(const double *A, int n) {
  if (n == 0) return 0;
  double *a = vec(n * n), *w = vec(n);
  memcpy(a, A, (size_t)n * n * sizeof(double));
  assert_int_equal(LAPACKE_dsyev(LAPACK_ROW_MAJOR, 'N', 'U', n, a, n, w), 0);
  int amb = 0;
  for (int i = 0; i < n; i++)
    if (w[i] > 1e-13 * w[n - 1] && w[i] < 1e-8 * w[n - 1]) amb = 1;
  free(a), free(w);
  return amb;
}

/* the condition number of the n x n matrix A over its singular values above 1e-11 of the largest
 * (the ones a minimum-norm solve keeps) */
static double condition(const double *A, int n) {
  double *a = vec(n * n), *s = vec(n), *sup = vec(n), u, vt;
  memcpy(a, A, (size_t)n * n * sizeof(double));
  assert_int_equal(LAPACKE_dgesvd(LAPACK_ROW_MAJOR, 'N', 'N', n, n, a, n, s, &u, 1, &vt, 1, sup), 0);
  double lo = s[0];
  for (int i = 0; i < n; i++)
    if (s[i] > 1e-11 * s[0]) lo = s[i];
  double c = n ? s[0] / lo : 1;
  free(a), free(s), free(sup);
  return c;
}

/* One constrained hybrid problem on case c: modes (prescribed, locked) at random when modes,
 * v on the manifold (zero at locked DoFs), prescribed accelerations consistent with the loops,
 * random tau and fext; hg_loops_hybrid against the dense KKT system
 *   [M_FF  -G_F^T] [qdd_F ]   [tau_F - b_F - M_FP qdd_P]
 *   [G_F     0   ] [lambda] = [gamma - G_P qdd_P       ]
 * (minimum norm), tau_P = (M qdd + b - G^T lambda)_P. Returns the relative errors. */
static kkt_errors check_kkt(loop_case *c, hg_rng *r, int modes, int use_fext) {
  const hg_model *m = c->m;
  hg_data *d = c->d;
  int nv = c->nv, mr = c->maxrows;
  kkt_errors e = {0, 0, 0, 0, 0, 0};
  for (int i = 1; i < m->nbody; i++) {
    double u = hg_rng_uniform(r);
    d->mode[i] = !modes || u > 0.35 ? HG_MODE_FREE : (u < 0.2 ? HG_MODE_PRESCRIBED : HG_MODE_LOCKED);
  }
  hg_mimic_follow(m, d, c->q, c->v, NULL);
  double *G = vec(mr * nv), *gam = vec(mr), *A = vec((mr + nv) * nv), *rhs = vec(mr + nv);
  double *qdd = vec(nv), *tau = vec(nv), *lam = vec(mr), *fext = vec(6 * m->nbody);
  double *M = vec(nv * nv), *b = vec(nv), *K = vec((nv + mr) * (nv + mr)), *kr = vec(nv + mr);
  double *x = vec(nv + mr), *tau_ref = vec(nv), *qdd_ref = vec(nv);
  /* v in the null space of G and of the locked DoFs */
  hg_kinematics(m, d, c->q, NULL);
  int nc = hg_loops_rows(c->L, d, c->q, NULL, NULL, G, NULL, NULL);
  int na = nc;
  memcpy(A, G, (size_t)nc * nv * sizeof(double));
  for (int k = 0; k < nv; k++)
    if (d->mode[m->dof_body[k]] == HG_MODE_LOCKED) {
      memset(A + (size_t)na * nv, 0, (size_t)nv * sizeof(double));
      A[(size_t)na++ * nv + k] = 1;
    }
  random_null(r, A, na, nv, c->v);
  hg_kinematics(m, d, c->q, c->v);
  hg_loops_rows(c->L, d, c->q, c->v, NULL, G, gam, NULL);
  /* prescribed accelerations: those of some x with G x = gamma, x = 0 at locked DoFs */
  memcpy(rhs, gam, (size_t)nc * sizeof(double));
  for (int i = nc; i < na; i++) rhs[i] = 0;
  lstsq(A, na, nv, rhs, qdd_ref);
  double *z = vec(nv);
  random_null(r, A, na, nv, z);
  for (int k = 0; k < nv; k++) qdd_ref[k] += z[k];
  free(z);
  for (int k = 0; k < nv; k++) {
    int f = d->mode[m->dof_body[k]] == HG_MODE_FREE;
    qdd[k] = f ? 0 : qdd_ref[k];
    tau[k] = f ? hg_rng_range(r, -5, 5) : 0;
  }
  if (use_fext) hg_test_random_vector(r, fext + 6, 6 * (m->nbody - 1), -1, 1);
  memcpy(tau_ref, tau, (size_t)nv * sizeof(double));
  memcpy(qdd_ref, qdd, (size_t)nv * sizeof(double));
  /* the solver */
  if (hg_loops_hybrid(c->L, d, c->q, c->v, NULL, qdd, tau, use_fext ? fext : NULL, lam))
    fail_msg("hg_loops_hybrid: %s", d->err);
  /* the dense reference */
  hg_crba(m, d, c->q, M);
  hg_bias(m, d, c->q, c->v, use_fext ? fext : NULL, b);
  int F[64], P[64], nf = 0, np = 0;
  for (int k = 0; k < nv; k++) {
    if (d->mode[m->dof_body[k]] == HG_MODE_FREE) F[nf++] = k;
    else P[np++] = k;
  }
  int n = nf + nc;
  memset(K, 0, (size_t)n * n * sizeof(double));
  for (int i = 0; i < nf; i++) {
    double t = tau_ref[F[i]] - b[F[i]];
    for (int j = 0; j < np; j++) t -= M[F[i] * nv + P[j]] * qdd_ref[P[j]];
    kr[i] = t;
    for (int j = 0; j < nf; j++) K[i * n + j] = M[F[i] * nv + F[j]];
    for (int j = 0; j < nc; j++) K[i * n + nf + j] = -G[j * nv + F[i]];
  }
  for (int i = 0; i < nc; i++) {
    double t = gam[i];
    for (int j = 0; j < np; j++) t -= G[i * nv + P[j]] * qdd_ref[P[j]];
    kr[nf + i] = t;
    for (int j = 0; j < nf; j++) K[(nf + i) * n + j] = G[i * nv + F[j]];
  }
  e.cond = condition(K, n);
  {
    /* G_F M_FF^-1 G_F^T, densely */
    double *MF = vec(nf * nf), *GF = vec(nc * nf), *X = vec(nf), *GY = vec(nc * nc), *col = vec(nf);
    for (int i = 0; i < nf; i++)
      for (int j = 0; j < nf; j++) MF[i * nf + j] = M[F[i] * nv + F[j]];
    for (int i = 0; i < nc; i++)
      for (int j = 0; j < nf; j++) GF[i * nf + j] = G[i * nv + F[j]];
    for (int j = 0; j < nc; j++) {
      for (int i = 0; i < nf; i++) col[i] = GF[j * nf + i];
      if (nf) assert_int_equal(hg_test_spd_solve(nf, MF, col, X), 0);
      for (int i = 0; i < nc; i++) {
        double t = 0;
        for (int k = 0; k < nf; k++) t += GF[i * nf + k] * X[k];
        GY[i * nc + j] = t;
      }
    }
    e.ambiguous = rank_ambiguous(GY, nc);
    free(MF), free(GF), free(X), free(GY), free(col);
  }
  lstsq(K, n, n, kr, x);
  for (int i = 0; i < nf; i++) qdd_ref[F[i]] = x[i];
  for (int j = 0; j < np; j++) {
    int k = P[j];
    double t = b[k];
    for (int l = 0; l < nv; l++) t += M[k * nv + l] * qdd_ref[l];
    for (int i = 0; i < nc; i++) t -= G[i * nv + k] * x[nf + i];
    tau_ref[k] = t;
  }
  e.qdd = hg_test_rel_err(qdd, qdd_ref, nv);
  e.lambda = nc ? hg_test_rel_err(lam, x + nf, nc) : 0;
  /* tau relative to the largest of its terms, the loops' forces G^T lambda included */
  double ts = 1 + norm_inf(tau_ref, nv);
  for (int k = 0; k < nv; k++) {
    double t = 0;
    for (int i = 0; i < nc; i++) t += fabs(G[i * nv + k] * x[nf + i]);
    if (t + 1 > ts) ts = t + 1;
  }
  e.tau = hg_test_max_diff(tau, tau_ref, nv) / ts;
  double gs = 1 + norm_inf(gam, nc);
  for (int i = 0; i < nc; i++) {
    double t = -gam[i];
    for (int k = 0; k < nv; k++) t += G[i * nv + k] * qdd[k];
    if (fabs(t) / gs > e.Gres) e.Gres = fabs(t) / gs;
  }
  free(G), free(gam), free(A), free(rhs), free(qdd), free(tau), free(lam), free(fext), free(M);
  free(b), free(K), free(kr), free(x), free(tau_ref), free(qdd_ref);
  return e;
}

static void worst_of(kkt_errors *w, kkt_errors e) {
  if (!(e.qdd <= w->qdd)) w->qdd = e.qdd;
  if (!(e.lambda <= w->lambda)) w->lambda = e.lambda;
  if (!(e.tau <= w->tau)) w->tau = e.tau;
  if (!(e.Gres <= w->Gres)) w->Gres = e.Gres;
  if (!(e.cond <= w->cond)) w->cond = e.cond;
}

/* The accelerations, loads and G qdd - gamma to tol. The multipliers are the solution's most
 * sensitive part (the reference itself carries an error of about eps times the KKT matrix's
 * condition, and hinge's comes through G M^-1 G^T, whose condition can be the square of G's):
 * they are held to tol or 1e-14 times that condition, the backward-stable bound, whichever is
 * larger (the worst case measured: 1.3e-10 at condition 1.5e4 in the Debug build, whose
 * arithmetic contracts no multiply-adds; 5.2e-11 in Release). */
static void assert_kkt(kkt_errors e, double tol, const char *what, int trial) {
  double tol_lambda = fmax(tol, 1e-14 * e.cond);
  if (!(e.qdd <= tol && e.lambda <= tol_lambda && e.tau <= tol && e.Gres <= tol))
    fail_msg("%s, trial %d: qdd %.3g, lambda %.3g, tau %.3g, G qdd - gamma %.3g (KKT condition "
             "%.3g)", what, trial, e.qdd, e.lambda, e.tau, e.Gres, e.cond);
}

/* constrained hybrid dynamics against the dense KKT solve: random trees with 1-3 loops of every
 * joint type (and a coupling loop), free, prescribed and locked DoFs, external wrenches */
static void test_hybrid_matches_kkt(void **state) {
  (void)state;
  hg_rng r;
  hg_rng_seed(&r, 202);
  kkt_errors w = {0, 0, 0, 0, 0, 0};
  int ambiguous = 0;
  for (int trial = 0; trial < 180; trial++) {
    int type = trial % HG_JOINT_NTYPES, nloops = 1 + (trial / HG_JOINT_NTYPES) % 3;
    hg_model *m = hg_test_random_tree(&r, 5 + trial % 7, trial % 2);
    loop_case c = make_case_on(&r, m, nloops, type, trial % 3 == 0);
    kkt_errors e = check_kkt(&c, &r, trial % 4 != 0, trial % 2 == 0);
    if (e.ambiguous) {
      /* nearly singular rows: the two solves cut the rank at different places */
      ambiguous++;
      release(&c);
      continue;
    }
    worst_of(&w, e);
    assert_kkt(e, 1e-10, hg_joint_type_name((hg_joint_type)type), trial);
    release(&c);
  }
  printf("hybrid vs KKT: qdd %.2e, lambda %.2e, tau %.2e, G qdd - gamma %.2e (relative; worst KKT "
         "condition %.2e; %d of 180 nearly singular cases left out)\n",
         w.qdd, w.lambda, w.tau, w.Gres, w.cond, ambiguous);
  assert_true(ambiguous < 18);
}

/* the same with a random armature (model.h) on every DoF: the loops solvers read the articulated
 * factors and the Gram matrix of the operational-space recursion, which carry it, and the KKT
 * reference reads CRBA's M + diag(armature) */
static void test_hybrid_with_armature(void **state) {
  (void)state;
  hg_rng r;
  hg_rng_seed(&r, 211);
  kkt_errors w = {0, 0, 0, 0, 0, 0};
  int ambiguous = 0;
  for (int trial = 0; trial < 90; trial++) {
    int type = trial % HG_JOINT_NTYPES, nloops = 1 + (trial / HG_JOINT_NTYPES) % 3;
    hg_model *m = hg_test_random_tree(&r, 5 + trial % 7, trial % 2);
    hg_test_random_vector(&r, m->armature, m->nv, 0.05, 2);
    m->has_armature = 1;
    if (m->local) m->local->has_armature = 1;
    loop_case c = make_case_on(&r, m, nloops, type, trial % 3 == 0);
    kkt_errors e = check_kkt(&c, &r, trial % 4 != 0, trial % 2 == 0);
    if (e.ambiguous) {
      ambiguous++;
      release(&c);
      continue;
    }
    worst_of(&w, e);
    assert_kkt(e, 1e-10, hg_joint_type_name((hg_joint_type)type), trial);
    release(&c);
  }
  printf("hybrid with armature vs KKT: qdd %.2e, lambda %.2e, tau %.2e (%d of 90 nearly singular "
         "cases left out)\n", w.qdd, w.lambda, w.tau, ambiguous);
  assert_true(ambiguous < 9);
}

/* a revolute chain with a mimic coupling (and a loop closing it): the mimic row is solved with
 * the loop's */
static void test_hybrid_with_mimic(void **state) {
  (void)state;
  hg_rng r;
  hg_rng_seed(&r, 303);
  kkt_errors w = {0, 0, 0, 0, 0, 0};
  for (int trial = 0; trial < 20; trial++) {
    hg_builder *b = hg_builder_new();
    hg_error err;
    char name[16], parent[16];
    for (int i = 0; i < 6; i++) {
      double axis[3];
      hg_se3 off;
      hg_inertia G;
      hg_test_random_vector(&r, axis, 3, -1, 1);
      hg_test_random_pose(&r, &off);
      hg_test_random_inertia(&r, &G);
      snprintf(name, sizeof name, "l%d", i + 1);
      snprintf(parent, sizeof parent, "l%d", i);
      hg_test_add_body(b, name, i ? parent : "world", HG_JOINT_REVOLUTE, axis, NULL, 0, &off, &G);
    }
    assert_int_equal(hg_builder_add_mimic(b, "l5", "l2", hg_rng_range(&r, -2, 2), 0.1, &err), 0);
    loop_case c = make_case_on(&r, hg_test_compile(b), 1, trial % 2 ? HG_JOINT_SPHERICAL : HG_JOINT_REVOLUTE, trial % 2);
    assert_int_equal(c.m->nmimic, 1);
    kkt_errors e = check_kkt(&c, &r, trial % 3 == 0, 1);
    worst_of(&w, e);
    assert_kkt(e, 1e-10, "mimic", trial);
    release(&c);
  }
  printf("hybrid with a mimic coupling vs KKT: qdd %.2e, lambda %.2e, tau %.2e\n", w.qdd, w.lambda,
         w.tau);
}

/* a slender link of mass m and length l along x */
static void link(double m, double l, hg_inertia *G) {
  double c[3] = {0.5 * l, 0, 0}, r = 0.04;
  double Ic[6] = {0.5 * m * r * r, m * (3 * r * r + l * l) / 12, m * (3 * r * r + l * l) / 12, 0, 0, 0};
  hg_inertia_from_com(m, c, Ic, G, NULL, 0);
}

/* A planar four-bar: a chain of four links turning about z (lengths 1, 0.6, 0.9, 0.5), the last
 * one's tip welded to the world where it is at q (random angles). Closed at q. */
static const double bar_len[4] = {1.0, 0.6, 0.9, 0.5};
static loop_case four_bar(hg_rng *r, double far) {
  static const double Z[3] = {0, 0, 1};
  hg_builder *b = hg_builder_new();
  char name[16], parent[16];
  for (int i = 0; i < 4; i++) {
    hg_se3 off;
    hg_inertia G;
    hg_se3_identity(&off);
    off.p[0] = i ? bar_len[i - 1] : 0;
    link(1 + 0.3 * i, bar_len[i], &G);
    snprintf(name, sizeof name, "bar%d", i + 1);
    snprintf(parent, sizeof parent, "bar%d", i);
    hg_test_add_body(b, name, i ? parent : "world", HG_JOINT_REVOLUTE, Z, NULL, 0, &off, &G);
  }
  loop_case c;
  memset(&c, 0, sizeof c);
  c.m = hg_test_compile(b);
  c.d = hg_data_new(c.m);
  c.nv = c.m->nv, c.nq = c.m->nq;
  c.q = vec(c.nq), c.v = vec(c.nv);
  hg_test_random_vector(r, c.q, 4, -1.2, 1.2);
  hg_kinematics(c.m, c.d, c.q, NULL);
  hg_loop *l = &c.loop[0];
  memset(l, 0, sizeof *l);
  l->kind = HG_LOOP_JOINT;
  const char *why;
  assert_int_equal(hg_joint_init(&l->joint, HG_JOINT_FIXED, Z, NULL, 0, &why), 0);
  l->body[0] = 0, l->body[1] = 4;
  hg_se3_identity(&l->M[1]);
  l->M[1].p[0] = bar_len[3];
  hg_se3_mul(&c.d->T_world[4], &l->M[1], &l->M[0]);
  l->M[0].p[0] += far; /* far > 0: out of reach */
  c.nloops = 1;
  hg_error err;
  c.L = hg_loops_new(c.m, c.loop, 1, &err);
  assert_non_null(c.L);
  c.maxrows = hg_loops_maxrows(c.L);
  return c;
}

/* hybrid dynamics with rows G (nc x nv) only, all DoFs free: the dense KKT solution */
static void dense_kkt(loop_case *c, const double *G, const double *gam, int nc, const double *tau,
                      double *qdd, double *lam) {
  int nv = c->nv, n = nv + nc;
  double *M = vec(nv * nv), *b = vec(nv), *K = vec(n * n), *kr = vec(n), *x = vec(n);
  hg_crba(c->m, c->d, c->q, M);
  hg_bias(c->m, c->d, c->q, c->v, NULL, b);
  for (int i = 0; i < nv; i++) {
    kr[i] = tau[i] - b[i];
    for (int j = 0; j < nv; j++) K[i * n + j] = M[i * nv + j];
    for (int j = 0; j < nc; j++) K[i * n + nv + j] = -G[j * nv + i];
  }
  for (int i = 0; i < nc; i++) {
    kr[nv + i] = gam[i];
    for (int j = 0; j < nv; j++) K[(nv + i) * n + j] = G[i * nv + j];
  }
  lstsq(K, n, n, kr, x);
  memcpy(qdd, x, (size_t)nv * sizeof(double));
  memcpy(lam, x + nv, (size_t)nc * sizeof(double));
  free(M), free(b), free(K), free(kr), free(x);
}

/* A planar four-bar closed by a weld: of its six rows only the in-plane ones (moment z, forces x
 * and y) act, rank 3; the solve equals the one with those three rows alone, the others' lambda
 * zero */
static void test_redundant_four_bar(void **state) {
  (void)state;
  hg_rng r;
  hg_rng_seed(&r, 404);
  double worst = 0;
  for (int trial = 0; trial < 10; trial++) {
    loop_case c = four_bar(&r, 0);
    int nv = c.nv;
    double G[6 * 4], gam[6], Gm[3 * 4], gm[3], qdd[4], tau[4], lam[6], qref[4], lref[3];
    hg_kinematics(c.m, c.d, c.q, NULL);
    int nc = hg_loops_rows(c.L, c.d, c.q, NULL, NULL, G, NULL, NULL);
    assert_int_equal(nc, 6);
    random_null(&r, G, nc, nv, c.v);
    hg_kinematics(c.m, c.d, c.q, c.v);
    hg_loops_rows(c.L, c.d, c.q, c.v, NULL, G, gam, NULL);
    hg_test_random_vector(&r, tau, nv, -3, 3);
    memset(qdd, 0, sizeof qdd);
    double tau_in[4];
    memcpy(tau_in, tau, sizeof tau);
    assert_int_equal(hg_loops_hybrid(c.L, c.d, c.q, c.v, NULL, qdd, tau, NULL, lam), 0);
    int rows, rank = hg_loops_rank(c.L, &rows);
    assert_int_equal(rows, 6);
    assert_int_equal(rank, 3);
    /* the minimal rows: moment z, force x, force y (rows 2, 3, 4) */
    for (int i = 0; i < 3; i++) {
      memcpy(Gm + i * nv, G + (2 + i) * nv, (size_t)nv * sizeof(double));
      gm[i] = gam[2 + i];
    }
    dense_kkt(&c, Gm, gm, 3, tau_in, qref, lref);
    double e = hg_test_rel_err(qdd, qref, nv);
    double el = hg_test_rel_err(lam + 2, lref, 3);
    double ez = fabs(lam[0]) + fabs(lam[1]) + fabs(lam[5]);
    double eg = 0;
    for (int i = 0; i < nc; i++) {
      double t = -gam[i];
      for (int k = 0; k < nv; k++) t += G[i * nv + k] * qdd[k];
      if (fabs(t) > eg) eg = fabs(t);
    }
    if (!(e < 1e-10 && el < 1e-10 && ez < 1e-10 * (1 + norm_inf(lref, 3)) && eg < 1e-10))
      fail_msg("four-bar trial %d: qdd %.3g, lambda %.3g, out-of-plane lambda %.3g, G qdd - gamma %.3g",
               trial, e, el, ez, eg);
    if (e > worst) worst = e;
    if (el > worst) worst = el;
    release(&c);
  }
  printf("four-bar closed by a weld: rank 3 of 6, against the 3 minimal rows %.2e\n", worst);
}

/* Two welds between one rigid pair (a body floating on another): 12 rows of rank 6; the motion
 * and the generalized force G^T lambda equal those of one weld */
static void test_redundant_two_welds(void **state) {
  (void)state;
  hg_rng r;
  hg_rng_seed(&r, 505);
  double worst = 0;
  for (int trial = 0; trial < 10; trial++) {
    hg_builder *b = hg_builder_new();
    double axis[3];
    hg_se3 off;
    hg_inertia G1, G2;
    hg_test_random_vector(&r, axis, 3, -1, 1);
    hg_test_random_pose(&r, &off);
    hg_test_random_inertia(&r, &G1);
    hg_test_random_inertia(&r, &G2);
    hg_test_add_body(b, "base", "world", HG_JOINT_REVOLUTE, axis, NULL, 0, &off, &G1);
    hg_test_add_body(b, "dock", "base", HG_JOINT_FREE, axis, NULL, 0, NULL, &G2);
    hg_model *m = hg_test_compile(b);
    loop_case two = make_case_on(&r, m, 0, 0, 0);
    /* two welds base -> dock, closed at q */
    for (int k = 0; k < 2; k++) {
      close_loop(&two, &r, k, HG_JOINT_FIXED);
      two.loop[k].body[0] = 1, two.loop[k].body[1] = 2;
      hg_se3 A, B;
      hg_se3_mul(&two.d->T_world[1], &two.loop[k].M[0], &A);
      hg_se3_invmul(&two.d->T_world[2], &A, &two.loop[k].M[1]);
      (void)B;
    }
    hg_error err;
    hg_loops_free(two.L);
    two.L = hg_loops_new(m, two.loop, 2, &err);
    hg_loops *one = hg_loops_new(m, two.loop, 1, &err);
    assert_non_null(two.L);
    assert_non_null(one);
    int nv = two.nv;
    double G[12 * 7], gam[12], Gs[6 * 7], qdd[7] = {0}, qdd1[7] = {0}, tau[7], tau1[7], lam[12], lam1[6];
    hg_kinematics(m, two.d, two.q, NULL);
    int nc = hg_loops_rows(two.L, two.d, two.q, NULL, NULL, G, NULL, NULL);
    assert_int_equal(nc, 12);
    random_null(&r, G, nc, nv, two.v);
    hg_test_random_vector(&r, tau, nv, -3, 3);
    memcpy(tau1, tau, sizeof tau);
    hg_kinematics(m, two.d, two.q, two.v);
    hg_loops_rows(two.L, two.d, two.q, two.v, NULL, G, gam, NULL);
    assert_int_equal(hg_loops_hybrid(two.L, two.d, two.q, two.v, NULL, qdd, tau, NULL, lam), 0);
    int rows, rank = hg_loops_rank(two.L, &rows);
    assert_int_equal(rows, 12);
    assert_int_equal(rank, 6);
    hg_kinematics(m, two.d, two.q, two.v);
    hg_loops_rows(one, two.d, two.q, two.v, NULL, Gs, NULL, NULL);
    assert_int_equal(hg_loops_hybrid(one, two.d, two.q, two.v, NULL, qdd1, tau1, NULL, lam1), 0);
    assert_int_equal(hg_loops_rank(one, &rows), 6);
    /* the motions, and the generalized constraint forces G^T lambda */
    double f2[7] = {0}, f1[7] = {0}, eg = 0;
    for (int k = 0; k < nv; k++) {
      for (int i = 0; i < 12; i++) f2[k] += G[i * nv + k] * lam[i];
      for (int i = 0; i < 6; i++) f1[k] += Gs[i * nv + k] * lam1[i];
    }
    for (int i = 0; i < nc; i++) {
      double t = -gam[i];
      for (int k = 0; k < nv; k++) t += G[i * nv + k] * qdd[k];
      if (fabs(t) > eg) eg = fabs(t);
    }
    double e = hg_test_rel_err(qdd, qdd1, nv), ef = hg_test_rel_err(f2, f1, nv);
    if (!(e < 1e-10 && ef < 1e-10 && eg < 1e-10 * (1 + norm_inf(gam, nc))))
      fail_msg("two welds, trial %d: qdd %.3g, G^T lambda %.3g, G qdd - gamma %.3g", trial, e, ef, eg);
    if (e > worst) worst = e;
    if (ef > worst) worst = ef;
    hg_loops_free(one);
    release(&two);
  }
  printf("two welds on one pair: rank 6 of 12, against one weld %.2e\n", worst);
}

/* The closing impulse of a weld between two floating bodies (two trees, and one tree): momentum
 * kept, G v = 0 after, the energy it reports removed is what the kinetic energy lost */
static void test_impulse_closes_weld(void **state) {
  (void)state;
  hg_rng r;
  hg_rng_seed(&r, 606);
  double wm = 0, wg = 0, we = 0;
  for (int trial = 0; trial < 20; trial++) {
    hg_builder *b = hg_builder_new();
    double axis[3] = {0, 0, 1};
    hg_se3 off;
    hg_inertia G1, G2;
    hg_test_random_pose(&r, &off);
    hg_test_random_inertia(&r, &G1);
    hg_test_random_inertia(&r, &G2);
    hg_test_add_body(b, "one", "world", HG_JOINT_FREE, axis, NULL, 0, NULL, &G1);
    hg_test_add_body(b, "two", trial % 2 ? "one" : "world", HG_JOINT_FREE, axis, NULL, 0, &off, &G2);
    loop_case c = make_case_on(&r, hg_test_compile(b), 0, 0, 0);
    close_loop(&c, &r, 0, HG_JOINT_FIXED);
    c.loop[0].body[0] = 1, c.loop[0].body[1] = 2;
    hg_se3 A;
    hg_se3_mul(&c.d->T_world[1], &c.loop[0].M[0], &A);
    hg_se3_invmul(&c.d->T_world[2], &A, &c.loop[0].M[1]);
    hg_error err;
    hg_loops_free(c.L);
    c.L = hg_loops_new(c.m, c.loop, 1, &err);
    int nv = c.nv;
    hg_test_random_vector(&r, c.v, nv, -2, 2);
    for (int k = 3; k < 6; k++) c.v[k] += 50; /* a common drift: momentum large */
    double h0[6], h1[6], k0, k1, p, removed, mu[6], G[6 * 12];
    hg_momentum(c.m, c.d, c.q, c.v, h0);
    hg_energy(c.m, c.d, c.q, c.v, &k0, &p);
    assert_int_equal(hg_loops_impulse(c.L, c.d, c.q, c.v, NULL, mu, &removed), 0);
    hg_momentum(c.m, c.d, c.q, c.v, h1);
    hg_energy(c.m, c.d, c.q, c.v, &k1, &p);
    hg_kinematics(c.m, c.d, c.q, NULL);
    int nc = hg_loops_rows(c.L, c.d, c.q, NULL, NULL, G, NULL, NULL);
    double gv = 0, vs = norm_inf(c.v, nv);
    for (int i = 0; i < nc; i++) {
      double t = 0;
      for (int k = 0; k < nv; k++) t += G[i * nv + k] * c.v[k];
      if (fabs(t) > gv) gv = fabs(t);
    }
    double em = hg_test_max_diff(h1, h0, 6) / norm_inf(h0, 6), eg = gv / vs;
    double ee = fabs(removed - (k0 - k1)) / k0;
    if (!(em <= 1e-12 && eg <= 1e-12 && removed >= 0 && ee <= 1e-12))
      fail_msg("impulse trial %d: momentum %.3g, G v %.3g, energy removed %.6g vs %.6g (%.3g)",
               trial, em, eg, removed, k0 - k1, ee);
    if (em > wm) wm = em;
    if (eg > wg) wg = eg;
    if (ee > we) we = ee;
    release(&c);
  }
  printf("closing impulse: momentum %.2e, G v %.2e, energy bookkeeping %.2e (relative)\n", wm, wg,
         we);
}

/* Projection of a perturbed four-bar state onto the manifold, and of an impossible one */
static void test_project_four_bar(void **state) {
  (void)state;
  hg_rng r;
  hg_rng_seed(&r, 707);
  double wr = 0, wv = 0;
  for (int trial = 0; trial < 10; trial++) {
    loop_case c = four_bar(&r, 0);
    int nv = c.nv;
    double dq[4], G[24], res[6];
    hg_test_random_vector(&r, dq, nv, -1e-3, 1e-3);
    hg_model_integrate(c.m, c.q, dq, 1, c.q);
    hg_test_random_vector(&r, c.v, nv, -1, 1);
    int steps = hg_loops_project(c.L, c.d, c.q, c.v, NULL, 1e-13, 20);
    if (steps < 1) fail_msg("project: %d steps (%s)", steps, c.d->err);
    hg_kinematics(c.m, c.d, c.q, NULL);
    int nc = hg_loops_rows(c.L, c.d, c.q, NULL, NULL, G, NULL, res);
    double gv = 0;
    for (int i = 0; i < nc; i++) {
      double t = 0;
      for (int k = 0; k < nv; k++) t += G[i * nv + k] * c.v[k];
      if (fabs(t) > gv) gv = fabs(t);
    }
    double er = norm_inf(res, nc);
    if (!(er <= 1e-12 && gv <= 1e-12)) fail_msg("project trial %d: residual %.3g, G v %.3g", trial, er, gv);
    if (er > wr) wr = er;
    if (gv > wv) wv = gv;
    /* the tangent projection of a vector, and again: idempotent */
    double e1[4], e2[4];
    hg_test_random_vector(&r, e1, nv, -1, 1);
    hg_loops_project_tangent(c.L, c.d, NULL, e1);
    memcpy(e2, e1, sizeof e1);
    hg_loops_project_tangent(c.L, c.d, NULL, e2);
    assert_true(hg_test_max_diff(e1, e2, nv) < 1e-12);
    release(&c);
  }
  /* out of reach: the links cannot close */
  loop_case c = four_bar(&r, 10);
  int steps = hg_loops_project(c.L, c.d, c.q, c.v, NULL, 1e-12, 30);
  assert_int_equal(steps, -1);
  assert_non_null(strstr(c.d->err, "residual"));
  printf("projection: residual %.2e, G v %.2e; out of reach: %s\n", wr, wv, c.d->err);
  release(&c);
}

/* hg_loops_wrench: the wrench w (on b's side, about A's origin, A's axes) applied to body b and
 * its opposite to body a does the virtual work of G^T lambda: J_b^T Ad_{T_Ab}^T w -
 * J_a^T Ad_{T_Aa}^T w = G^T lambda, for loops of every joint type on random trees */
static void test_wrench_frames(void **state) {
  (void)state;
  hg_rng r;
  hg_rng_seed(&r, 808);
  double worst = 0;
  for (int trial = 0; trial < 40; trial++) {
    int type = trial % HG_JOINT_NTYPES;
    loop_case c = make_case(&r, 6, trial % 2, 1, type);
    int nv = c.nv, nr = hg_loops_nrow(c.L, 0);
    double lam[6], w[6], *G = vec(6 * nv), *f = vec(nv), *g = vec(nv);
    hg_test_random_vector(&r, lam, 6, -2, 2);
    hg_kinematics(c.m, c.d, c.q, NULL);
    int nc = hg_loops_rows(c.L, c.d, c.q, NULL, NULL, G, NULL, NULL);
    assert_int_equal(nc, nr);
    hg_loops_wrench(c.L, c.d, 0, lam, w);
    for (int k = 0; k < nv; k++)
      for (int i = 0; i < nc; i++) g[k] += G[i * nv + k] * lam[i];
    /* A in the world; the wrench on each body in its frame */
    const hg_loop *l = &c.loop[0];
    static const hg_se3 world = {{1, 0, 0, 0, 1, 0, 0, 0, 1}, {0, 0, 0}};
    hg_se3 A, TAb, TAa;
    hg_se3_mul(l->body[0] ? &c.d->T_world[l->body[0]] : &world, &l->M[0], &A);
    for (int side = 0; side < 2; side++) {
      int body = l->body[1 - side];
      if (!body) continue;
      double F[6];
      hg_se3_invmul(&A, &c.d->T_world[body], side ? &TAa : &TAb);
      hg_coAd(side ? &TAa : &TAb, w, F);
      if (side)
        for (int k = 0; k < 6; k++) F[k] = -F[k];
      hg_jacobian_transpose(c.m, c.d, body, F, f);
    }
    double e = hg_test_rel_err(f, g, nv);
    if (!(e < 1e-12)) fail_msg("wrench, trial %d (%s): %.3g", trial, hg_joint_type_name((hg_joint_type)type), e);
    if (e > worst) worst = e;
    free(G), free(f), free(g);
    release(&c);
  }
  printf("loop wrench vs G^T lambda: %.2e\n", worst);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rows_match_differences),
      cmocka_unit_test(test_hybrid_matches_kkt),
      cmocka_unit_test(test_hybrid_with_mimic),
      cmocka_unit_test(test_hybrid_with_armature),
      cmocka_unit_test(test_redundant_four_bar),
      cmocka_unit_test(test_redundant_two_welds),
      cmocka_unit_test(test_impulse_closes_weld),
      cmocka_unit_test(test_project_four_bar),
      cmocka_unit_test(test_wrench_frames),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
