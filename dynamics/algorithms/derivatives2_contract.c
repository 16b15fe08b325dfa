/* derivatives2_contract.c: the second-order derivatives of inverse, forward and hybrid dynamics
 * summed over their output with weights lam,
 *   H[m, k] = sum_l lam_l T[l, m, k]   (T a tensor of derivatives2.h),
 * the second derivatives of the one number lam . y (y = tau, qdd or the hybrid output): what a
 * Newton step on a Lagrangian, an adjoint sensitivity or DDP's backward pass (V'_x . f_xx) reads.
 * The forward-dynamics tensors are -M^-1 times a right-hand side X (derivatives2_forward.c), so
 *   lam . (-M^-1 X[., m, k]) = mu . X[., m, k],   mu = -M^-1 lam   (M^-1 symmetric),
 * one solve where the tensors take 4 nv^2. With P[p, m] = (dM/dq_m mu)_p (dM/dq_m symmetric:
 * mu . dM/dq_m x = P[., m] . x) the terms of X that hold dM/dq become products with P:
 *   H_qq   = mu . ID_qq + A_q^T P + (A_q^T P)^T,     A_q = d qdd / d q,
 *   H_vv   = mu . ID_vv,
 *   H_qv   = mu . ID_qv + A_v^T P,                   A_v = d qdd / d v,
 *   H_qtau = M^-1 P,                                 (d qdd / d tau = M^-1)
 * written here slice by slice, H[k nv + m] = (row k of A^T P)[m]. Hybrid dynamics has the same
 * X with the hybrid pass's A (rows of given accelerations zero) and u for tau; its free rows are
 * -M_FF^-1 X_F and the others X + M_.F (free rows), so lam . y'' = mu . X with
 *   mu_F = -M_FF^-1 (lam_F + M_F. lam_.) (the sum over the DoFs that are not free),  mu_i = lam_i
 * elsewhere. The inverse-dynamics tensors are formed on the tree's paths only (w->t_qq, ...,
 * zero elsewhere) and summed over R(k) per slice; the nv^3 forward-dynamics tensors are never
 * formed. */

#include <string.h>

#include "derivatives2.h"
#include "derivatives2_local.h"
#include "dynamics.h"
#include "lanes.h"

/* H[k nv + m] = sum_l mu_l T[l, m, k] for a tensor T whose slice k is zero off the rows R(k)
 * (w->rel: the DoFs sharing a path with k), T in derivatives2.h's layout. (Summing the entries
 * as the recursion forms them, without the tensors, took more instructions: 1.12 M against
 * 1.08 M a call on humanoid32, 2.47 M against 2.37 M on chain30; the entries run along strides
 * of nv and nv^2 there, whole rows here.) */
HG_HOT static void contract(const hg_deriv2 *w, const double *mu, const double *T, double *H) {
  size_t n = (size_t)w->nv;
  for (size_t k = 0; k < n; k++) {
    double *h = H + k * n;
    memset(h, 0, n * sizeof(double));
    for (int t = w->roff[k]; t < w->roff[k + 1]; t++) {
      size_t l = (size_t)w->rel[t];
      double a = mu[l];
      const double *row = T + (k * n + l) * n;
      for (size_t c = 0; c < n; c++) h[c] += a * row[c];
    }
  }
}

/* the inverse-dynamics tensors at (q, v, qdd) on their paths in w's scratch, summed with the
 * weights x into h_qq, h_vv, h_qv (any may be NULL) */
static void id_sums(const hg_model *m, hg_data *d, hg_deriv2 *w, const double *q,
                    const double *v, const double *qdd, const double *fext, const double *x,
                    double *h_qq, double *h_vv, double *h_qv) {
  hg_rnea_second_derivatives_paths(m, d, w, q, v, qdd, fext, h_qq ? w->t_qq : NULL,
                                   h_vv ? w->t_vv : NULL, h_qv ? w->t_qv : NULL, NULL);
  if (h_qq) contract(w, x, w->t_qq, h_qq);
  if (h_vv) contract(w, x, w->t_vv, h_vv);
  if (h_qv) contract(w, x, w->t_qv, h_qv);
}

/* C = A^T P (add: C += A^T P) for nv x nv row-major A, C and P = w->cP: A^T into w->cT (none
 * when A is symmetric, as M^-1 is), then the register-blocked product (hg_lane_gemm) */
HG_HOT static void AtP(const hg_deriv2 *w, const double *A, int symmetric, int add, double *C) {
  size_t n = (size_t)w->nv;
  const double *At = A;
  if (!symmetric) {
    for (size_t r = 0; r < n; r++)
      for (size_t c = 0; c < n; c++) w->cT[c * n + r] = A[r * n + c];
    At = w->cT;
  }
  hg_lane_gemm(add, w->nv, w->nv, 0, w->nv, 1, At, n, NULL, w->cP, n, C, n);
}

/* the sums from mu (w->cmu) at the state, the acceleration w->qdd and A_q, A_v, A_3 (d qdd /
 * d q, d qdd / d v, d qdd / d tau = M^-1, symmetric, or d u: sym3) into the outputs (any may be
 * NULL): the inverse-dynamics tensors summed with mu (id_sums), then the products with P */
static void sums(const hg_model *m, hg_data *d, hg_deriv2 *w, const double *q, const double *v,
                 const double *fext, const double *Aq, const double *Av, const double *A3,
                 int sym3, double *h_qq, double *h_vv, double *h_qv, double *h_q3) {
  size_t n = (size_t)m->nv;
  const double *mu = w->cmu;
  id_sums(m, d, w, q, v, w->qdd, fext, mu, h_qq, h_vv, h_qv);
  if (!h_qq && !h_qv && !h_q3) return;
  hg_deriv2_dM_setup(m, d, w);
  hg_deriv2_dM_vector(m, d, w, mu, w->cP);
  if (h_qq) {
    /* G = A_q^T P: H_qq[k, m] += G[k, m] + G[m, k] */
    AtP(w, Aq, 0, 0, w->cG);
    for (size_t k = 0; k < n; k++)
      for (size_t c = 0; c < n; c++) h_qq[k * n + c] += w->cG[k * n + c] + w->cG[c * n + k];
  }
  if (h_qv) AtP(w, Av, 0, 1, h_qv);
  if (h_q3) AtP(w, A3, sym3, 0, h_q3);
}

/* w->cmu = mu, the weights of the brackets X: mu = -M^-1 lam (forward dynamics: hybrid 0,
 * w->Minv = M^-1), or (hybrid dynamics, w->Minv = M_FF^-1 zero outside the free DoFs F, w->w1->M
 * the mass matrix) mu_F = -M_FF^-1 nu with nu = lam_F + M_F. lam_. summed over the DoFs that are
 * not free (in cmu + nv), and mu = lam at those DoFs */
static void weights(const hg_model *m, const hg_data *d, hg_deriv2 *w, const double *lam,
                    int hybrid) {
  size_t n = (size_t)m->nv;
  const double *nu = lam;
  if (hybrid) {
    const double *M = w->w1->M;
    double *x = w->cmu + n;
    for (size_t c = 0; c < n; c++) {
      double s = lam[c];
      for (size_t l = 0; l < n; l++)
        if (d->mode[m->dof_body[l]] != HG_MODE_FREE) s += M[c * n + l] * lam[l];
      x[c] = s;
    }
    nu = x;
  }
  for (size_t l = 0; l < n; l++) {
    if (hybrid && d->mode[m->dof_body[l]] != HG_MODE_FREE) {
      w->cmu[l] = lam[l];
      continue;
    }
    double s = 0;
    for (size_t c = 0; c < n; c++) s += w->Minv[l * n + c] * nu[c];
    w->cmu[l] = -s;
  }
}

void hg_rnea_second_derivatives_contract(const hg_model *m, hg_data *d, hg_deriv2 *w,
                                         const double *q, const double *v, const double *qdd,
                                         const double *fext, const double *lam, double *h_qq,
                                         double *h_vv, double *h_qv, double *h_M) {
  size_t n = (size_t)m->nv;
  id_sums(m, d, w, q, v, qdd, fext, lam, h_qq, h_vv, h_qv);
  if (h_M) {
    /* sum_l lam_l dM/dq_k[l, m] = (dM/dq_k lam)_m = P[m, k] */
    hg_deriv2_dM_setup(m, d, w);
    hg_deriv2_dM_vector(m, d, w, lam, w->cP);
    for (size_t k = 0; k < n; k++)
      for (size_t c = 0; c < n; c++) h_M[k * n + c] = w->cP[c * n + k];
  }
}

int hg_aba_second_derivatives_contract(const hg_model *m, hg_data *d, hg_deriv2 *w,
                                       const double *q, const double *v, const double *tau,
                                       const double *fext, const double *lam, double *qdd,
                                       double *h_qq, double *h_vv, double *h_qv,
                                       double *h_qtau) {
  size_t n = (size_t)m->nv;
  if (hg_aba_derivatives(m, d, w->w1, q, v, tau, fext, w->qdd, w->aq, w->av, w->Minv)) return -1;
  if (qdd) memcpy(qdd, w->qdd, n * sizeof(double));
  weights(m, d, w, lam, 0);
  sums(m, d, w, q, v, fext, w->aq, w->av, w->Minv, 1, h_qq, h_vv, h_qv, h_qtau);
  return 0;
}

int hg_hybrid_second_derivatives_contract(const hg_model *m, hg_data *d, hg_deriv2 *w,
                                          const double *q, const double *v, const double *u,
                                          const double *fext, const double *lam, double *y,
                                          double *h_qq, double *h_vv, double *h_qv,
                                          double *h_qu) {
  if (hg_deriv2_hybrid_first(m, d, w, q, v, u, fext, y)) return -1;
  weights(m, d, w, lam, 1);
  sums(m, d, w, q, v, fext, w->aq, w->av, w->au, 0, h_qq, h_vv, h_qv, h_qu);
  return 0;
}
