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
#include <complex.h>
/* complex.h's I would clash with the inertia's field I: the imaginary unit is _Complex_I */
#undef I

typedef double complex cplx;

/* y = R x, y = R^T x, c = a x b for complex 3-vectors (R row-major) */
static void mulv(const cplx R[9], const cplx x[3], cplx y[3]) {
  for (int r = 0; r < 3; r++) y[r] = R[3 * r] * x[0] + R[3 * r + 1] * x[1] + R[3 * r + 2] * x[2];
}
static void mulTv(const cplx R[9], const cplx x[3], cplx y[3]) {
  for (int r = 0; r < 3; r++) y[r] = R[r] * x[0] + R[3 + r] * x[1] + R[6 + r] * x[2];
}
static void cross(const cplx a[3], const cplx b[3], cplx c[3]) {
  c[0] = a[1] * b[2] - a[2] * b[1];
  c[1] = a[2] * b[0] - a[0] * b[2];
  c[2] = a[0] * b[1] - a[1] * b[0];
}
/* ad_V W = (w x W_w, v x W_w + w x W_v); ad*_V F = (F_m x w + F_f x v, F_f x w) */
static void ad(const cplx V[6], const cplx W[6], cplx out[6]) {
  cplx t[3];
  cross(V, W, out);
  cross(V + 3, W, out + 3);
  cross(V, W + 3, t);
  for (int r = 0; r < 3; r++) out[3 + r] += t[r];
}
static void ad_star(const cplx V[6], const cplx F[6], cplx out[6]) {
  cplx t[3];
  cross(F, V, out);
  cross(F + 3, V + 3, t);
  for (int r = 0; r < 3; r++) out[r] += t[r];
  cross(F + 3, V, out + 3);
}
/* G V for the ten-number inertia (inertia.h) */
static void inertia_mulv(const hg_inertia *G, const cplx V[6], cplx o[6]) {
  const double *In = G->I, *h = G->h, m = G->m;
  o[0] = In[0] * V[0] + In[3] * V[1] + In[4] * V[2] + h[1] * V[5] - h[2] * V[4];
  o[1] = In[3] * V[0] + In[1] * V[1] + In[5] * V[2] + h[2] * V[3] - h[0] * V[5];
  o[2] = In[4] * V[0] + In[5] * V[1] + In[2] * V[2] + h[0] * V[4] - h[1] * V[3];
  o[3] = m * V[3] - (h[1] * V[2] - h[2] * V[1]);
  o[4] = m * V[4] - (h[2] * V[0] - h[0] * V[2]);
  o[5] = m * V[5] - (h[0] * V[1] - h[1] * V[0]);
}

/* tau = RNEA(q, v, qdd) in complex arithmetic, body frames, revolute joints only */
static void rnea_c(const hg_model *m, const cplx *q, const cplx *v, const double *qdd, cplx *tau) {
  int nb = m->nbody;
  cplx (*R)[9] = malloc(sizeof(cplx[9]) * (size_t)nb), (*V)[6] = malloc(sizeof(cplx[6]) * (size_t)nb);
  cplx (*A)[6] = malloc(sizeof(cplx[6]) * (size_t)nb), (*F)[6] = malloc(sizeof(cplx[6]) * (size_t)nb);
  for (int r = 0; r < 6; r++) V[0][r] = 0, A[0][r] = r < 3 ? 0 : -m->gravity[r - 3];
  for (int r = 0; r < 9; r++) R[0][r] = r % 4 == 0;
  for (int i = 1; i < nb; i++) {
    const hg_joint *j = &m->jnt[i];
    int p = m->parent[i], k = m->v_adr[i];
    assert_int_equal(j->type, HG_JOINT_REVOLUTE);
    assert_int_equal(m->has_post[i], 0);
    /* R_i = R_offset Rot(a, q) (Rodrigues), the rotation of body i in its parent */
    const double *a = j->axis, *Ro = m->jnt_offset[i].R;
    cplx s = csin(q[k]), c = ccos(q[k]), Rj[9];
    double K[9] = {0, -a[2], a[1], a[2], 0, -a[0], -a[1], a[0], 0}, K2[9];
    for (int r = 0; r < 3; r++)
      for (int col = 0; col < 3; col++)
        K2[3 * r + col] = K[3 * r] * K[col] + K[3 * r + 1] * K[3 + col] + K[3 * r + 2] * K[6 + col];
    for (int e = 0; e < 9; e++) Rj[e] = (e % 4 == 0) + s * K[e] + (1 - c) * K2[e];
    for (int r = 0; r < 3; r++)
      for (int col = 0; col < 3; col++)
        R[i][3 * r + col] = Ro[3 * r] * Rj[col] + Ro[3 * r + 1] * Rj[3 + col] + Ro[3 * r + 2] * Rj[6 + col];
    /* parent quantities into the child: Ad_{T^-1} (w, v) = (R^T w, R^T (v - p x w)) */
    const double *pp = m->jnt_offset[i].p;
    cplx pc[3] = {pp[0], pp[1], pp[2]}, t[3], u[3], S[6] = {a[0], a[1], a[2], 0, 0, 0};
    cplx Vp[6], Ap[6], vj[6], cb[6], Gv[6], Ga[6], bias[6];
    for (int which = 0; which < 2; which++) {
      const cplx *X = which ? A[p] : V[p];
      cplx *Y = which ? Ap : Vp;
      cross(pc, X, t);
      for (int r = 0; r < 3; r++) u[r] = X[3 + r] - t[r];
      mulTv(R[i], X, Y);
      mulTv(R[i], u, Y + 3);
    }
    for (int r = 0; r < 6; r++) vj[r] = S[r] * v[k], V[i][r] = Vp[r] + vj[r];
    ad(V[i], vj, cb);
    for (int r = 0; r < 6; r++) A[i][r] = Ap[r] + S[r] * qdd[k] + cb[r];
    inertia_mulv(&m->inertia[i], A[i], Ga);
    inertia_mulv(&m->inertia[i], V[i], Gv);
    ad_star(V[i], Gv, bias);
    for (int r = 0; r < 6; r++) F[i][r] = Ga[r] - bias[r];
  }
  for (int i = nb - 1; i > 0; i--) {
    int p = m->parent[i], k = m->v_adr[i];
    const double *a = m->jnt[i].axis, *pp = m->jnt_offset[i].p;
    tau[k] = a[0] * F[i][0] + a[1] * F[i][1] + a[2] * F[i][2];
    if (p == 0) continue;
    /* the child's wrench in the parent: (R m + p x R f, R f) */
    cplx Rm[3], Rf[3], pc[3] = {pp[0], pp[1], pp[2]}, t[3];
    mulv(R[i], F[i], Rm);
    mulv(R[i], F[i] + 3, Rf);
    cross(pc, Rf, t);
    for (int r = 0; r < 3; r++) F[p][r] += Rm[r] + t[r], F[p][3 + r] += Rf[r];
  }
  free(R); free(V); free(A); free(F);
}

/* T[l, k] = d tau_l / d x_m by the complex step along q_m (arg 0) or v_m (arg 1) */
static void cstep(const hg_model *m, int arg, int mm, const double *q, const double *v,
                  const double *qdd, cplx *qc, cplx *vc, cplx *tc, double *T) {
  const double hc = 1e-20;
  int nv = m->nv;
  for (int l = 0; l < nv; l++) qc[l] = q[l], vc[l] = v[l];
  (arg ? vc : qc)[mm] += _Complex_I * hc;
  rnea_c(m, qc, vc, qdd, tc);
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
