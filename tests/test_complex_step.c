/* test_complex_step.c: the accuracy metrics (MAE, RMSAE, MRE, RMSRE) of S. Singh, R. Russell and
 * P. Wensing, "On Second-Order Derivatives of Rigid-Body Dynamics: Theory & Implementation", of
 * the analytic derivatives of inverse dynamics, and of central differences for comparison,
 * against a complex-step reference on serial chains and binary trees of 2 to 100 bodies.
 *
 * The reference is an independent inverse dynamics written here in complex arithmetic (RNEA in
 * body frames, Featherstone's form, for the revolute joints of these models): with q_k + i h,
 * Im tau / h is d tau / d q_k with no subtractive cancellation, exact to rounding for
 * h = 1e-20 (the truncation error is h^2 |f'''| ~ 1e-40). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* the four metrics of Singh, Russell and Wensing (eqs. 40-43) of X against the reference Xr,
 * n entries */
typedef struct {
  double mae, rmsae, mre, rmsre;
} metrics;

static metrics measure(const double *X, const double *Xr, int n) {
  metrics e = {0, 0, 0, 0};
  for (int k = 0; k < n; k++) {
    double d = fabs(X[k] - Xr[k]), rel = d / fmax(fabs(Xr[k]), 1);
    e.mae = fmax(e.mae, d), e.mre = fmax(e.mre, rel);
    e.rmsae += d * d, e.rmsre += rel * rel;
  }
  e.rmsae = sqrt(e.rmsae / n), e.rmsre = sqrt(e.rmsre / n);
  return e;
}

/* one model: the reference, the analytic derivatives and central differences; prints a row and
 * returns the analytic metrics */
static metrics one_model(const char *name, hg_model *m, hg_rng *r, metrics *cd_out) {
  int nv = m->nv, n2 = nv * nv;
  hg_data *d = hg_data_new(m);
  hg_deriv *w = hg_deriv_new(m);
  double *q = calloc((size_t)nv, sizeof(double)), *v = calloc((size_t)nv, sizeof(double));
  double *qdd = calloc((size_t)nv, sizeof(double)), *tp = calloc((size_t)nv, sizeof(double));
  double *tm = calloc((size_t)nv, sizeof(double)), *qp = calloc((size_t)nv, sizeof(double));
  double *An = calloc(2 * (size_t)n2, sizeof(double)), *Ar = calloc(2 * (size_t)n2, sizeof(double));
  double *Cd = calloc(2 * (size_t)n2, sizeof(double));
  cplx *qc = calloc((size_t)nv, sizeof(cplx)), *vc = calloc((size_t)nv, sizeof(cplx));
  cplx *tc = calloc((size_t)nv, sizeof(cplx));
  hg_test_random_vector(r, q, nv, -1, 1);
  hg_test_random_vector(r, v, nv, -1, 1);
  hg_test_random_vector(r, qdd, nv, -1, 1);
  hg_rnea_derivatives(m, d, w, q, v, qdd, NULL, An, An + n2, NULL);
  const double hc = 1e-20, h = 1e-6;
  for (int arg = 0; arg < 2; arg++)
    for (int k = 0; k < nv; k++) {
      /* the complex step */
      for (int l = 0; l < nv; l++) qc[l] = q[l], vc[l] = v[l];
      (arg ? vc : qc)[k] += _Complex_I * hc;
      rnea_c(m, qc, vc, qdd, tc);
      for (int l = 0; l < nv; l++) Ar[arg * n2 + l * nv + k] = cimag(tc[l]) / hc;
      /* central differences (revolute joints: q (+) d = q + d) */
      for (int s = 0; s < 2; s++) {
        memcpy(qp, arg ? v : q, sizeof(double) * (size_t)nv);
        qp[k] += s ? -h : h;
        hg_rnea(m, d, arg ? q : qp, arg ? qp : v, qdd, NULL, s ? tm : tp);
      }
      for (int l = 0; l < nv; l++) Cd[arg * n2 + l * nv + k] = (tp[l] - tm[l]) / (2 * h);
    }
  /* the complex RNEA itself against hinge's RNEA (both real here) */
  for (int l = 0; l < nv; l++) qc[l] = q[l], vc[l] = v[l];
  rnea_c(m, qc, vc, qdd, tc);
  hg_rnea(m, d, q, v, qdd, NULL, tp);
  for (int l = 0; l < nv; l++) assert_true(fabs(creal(tc[l]) - tp[l]) <= 1e-9 * fmax(1, fabs(tp[l])));
  metrics e = measure(An, Ar, 2 * n2), c = measure(Cd, Ar, 2 * n2);
  printf("# %-10s %4d  %9.2e %9.2e %9.2e %9.2e   %9.2e %9.2e %9.2e %9.2e\n", name, nv, e.mae,
         e.rmsae, e.mre, e.rmsre, c.mae, c.rmsae, c.mre, c.rmsre);
  *cd_out = c;
  hg_deriv_free(w);
  hg_data_free(d);
  free(q); free(v); free(qdd); free(tp); free(tm); free(qp); free(An); free(Ar); free(Cd);
  free(qc); free(vc); free(tc);
  return e;
}

static void accuracy_metrics(void **state) {
  (void)state;
  hg_rng r;
  hg_rng_seed(&r, 31);
  printf("# d tau/dq and d tau/dv against the complex step: analytic | central differences "
         "(h = 1e-6)\n#  model      nv       MAE     RMSAE       MRE     RMSRE         MAE     "
         "RMSAE       MRE     RMSRE\n");
  double worst_mre = 0;
  static const int chains[] = {2, 5, 10, 20, 50, 100};
  for (size_t k = 0; k < sizeof chains / sizeof *chains; k++) {
    char name[32];
    snprintf(name, sizeof name, "chain%d", chains[k]);
    hg_model *m = hg_test_chain(chains[k]);
    metrics cd, e = one_model(name, m, &r, &cd);
    worst_mre = fmax(worst_mre, e.mre);
    /* the analytic derivatives beat central differences by orders of magnitude */
    assert_true(e.rmsre < cd.rmsre);
    hg_model_free(m);
  }
  for (int depth = 2; depth <= 6; depth++) {
    char name[32];
    hg_model *m = hg_test_binary_tree(depth);
    snprintf(name, sizeof name, "tree%d", m->nbody - 1);
    metrics cd, e = one_model(name, m, &r, &cd);
    worst_mre = fmax(worst_mre, e.mre);
    assert_true(e.rmsre < cd.rmsre);
    hg_model_free(m);
  }
  /* both sides are exact to rounding: on the 100-link chain entries reach ~1e5 (lever arms of
   * 30 m over masses of 100 kg) and sums of ~nv^2 products lose ~nv eps relative to the largest,
   * measured 6e-11 relative to max(|ref|, 1); 1e-9 fails on any wrong term (an O(1) error) */
  printf("# worst MRE of the analytic derivatives: %.3g\n", worst_mre);
  assert_true(worst_mre < 1e-9);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(accuracy_metrics),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
