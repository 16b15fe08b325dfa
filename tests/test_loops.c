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

static loop_case make_case(hg_rng *r, int nbody, int floating, int nloops, int type) {
  loop_case c;
  memset(&c, 0, sizeof c);
  c.m = hg_test_random_tree(r, nbody, floating);
  c.d = hg_data_new(c.m);
  c.nv = c.m->nv, c.nq = c.m->nq;
  c.q = vec(c.nq), c.v = vec(c.nv);
  hg_model_random(c.m, r, c.q);
  hg_kinematics(c.m, c.d, c.q, NULL);
  c.nloops = nloops;
  for (int k = 0; k < nloops; k++) {
    int t = type >= 0 ? type : (int)(hg_rng_uniform(r) * HG_JOINT_NTYPES);
    if (t >= HG_JOINT_NTYPES) t = HG_JOINT_NTYPES - 1;
    close_loop(&c, r, k, t);
  }
  hg_error err;
  c.L = hg_loops_new(c.m, c.loop, nloops, &err);
  assert_non_null(c.L);
  c.maxrows = hg_loops_maxrows(c.L);
  return c;
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

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rows_match_differences),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
