/* derivatives2.h: analytic second-order partial derivatives of inverse dynamics (RNEA) and of
 * forward dynamics (ABA) on the Lie group, and the derivative of the mass matrix.
 *
 * Perturbations are those of derivatives.h: tangent component k of q is d/de f(q (+) e e_k) at
 * e = 0 with q (+) d = q exp(d), the left-trivialized (body-frame) derivative for spherical and
 * free joints, the plain partial derivative for the others. A second derivative is the
 * derivative of a first-order one (derivatives.h's matrices) along a second direction:
 *
 *   d2tau_dq2 [l, m, k] = d/dq_k (d tau_l / d q_m)      (not symmetric in m, k within one
 *                                                          spherical or free joint: exp does not
 *                                                          commute there)
 *   d2tau_dv2 [l, m, k] = d/dv_k (d tau_l / d v_m)      (symmetric in m, k)
 *   d2tau_dqdv[l, m, k] = d/dv_k (d tau_l / d q_m)      (= d/dq_m (d tau_l / d v_k))
 *   dM_dq     [l, m, k] = d/dq_k M_lm                   (= d2tau / dq_k dqdd_m: symmetric in
 *                                                          l, m)
 *
 * Every tensor is nv x nv x nv, stored as nv slices: slice k is the nv x nv matrix of the
 * derivative along direction k of the first-order matrix, row-major as derivatives.h's. Entry
 * [l, m, k] is at (k nv + l) nv + m: l the output component (tau or qdd), m the first
 * perturbation (the column of the first-order matrix), k the second. An entry is non-zero
 * only when the bodies of l, m and k lie on one path from a root (each pair is ancestor and
 * descendant or the same body): the routines write the zeros and compute only those triples.
 * See docs/linearization.md. */
#ifndef HINGE_DERIVATIVES2_H
#define HINGE_DERIVATIVES2_H

#include "derivatives.h"
#include "model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The workspace of the second-order routines (hg_deriv2_new, per model; the routines allocate
 * nothing; every call writes what it uses). Tree frame (the derivatives' world-frame pass). Per
 * DoF, 6 numbers each: the twists nu = psi', alpha = psi'' and mu = psi' + phi' of the entries
 * (derivatives2.c), and soa, a component-major copy of S, nu, alpha and mu; per body the
 * subtree sums Ic and Bc (6 x 6, row-major) and Bc^T. The nv x nv and nv^3 scratch and idx
 * serve the forward- and hybrid-dynamics identities. */
typedef struct hg_deriv2 {
  int nv, nbody;
  double *nu, *al, *mu;                      /* nv x 6 (values) */
  double *soa;                               /* 4 x 6 x nv: S, nu, alpha, mu, component-major */
  double *Ic, *Bc, *BcT;                     /* nbody x 36 (values) */
  double *tau;                               /* nv */
  hg_deriv *w1;                              /* the first-order workspace */
  double *qdd, *aq, *av, *au, *Minv;         /* nv, nv x nv (forward, hybrid dynamics) */
  double *t_qq, *t_vv, *t_qv, *X;            /* nv^3 scratch (forward, hybrid dynamics) */
  double *U;                                 /* 4 nv^2: four slices (zero off the paths) */
  double *fill;                              /* nv^2: rows copied under the symmetries */
  int *idx;                                  /* nv: a block's rows, merged (M^-1 products) */
  int *roff, *rel;                           /* nv + 1, sum |R|: R(m), the DoFs sharing a path
                                                with DoF m (m among them), ascending */
  int *boff, *bidx;                          /* nv + 1, <= nv^2: per DoF j, the union of R(m)
                                                over m = j .. j + 7 (< nv), ascending */
  double *cis;                               /* nv x 6: Ic S per DoF (the dM/dq x products) */
  double *cu, *cq;                           /* nv x 6 x 4: u and Q per DoF, four columns */
  double *ca, *cf;                           /* nbody x 4 x 6: a and F per body and column */
  double *H;                                 /* nv x nv: M's factors L^T D L (when ltdl) */
  int *lam;                                  /* nv: the DoF before each on its path, or -1 */
  int *poff, *path;                          /* nv + 1, nnz(L): each DoF's path, as a list */
  double *Lp, *dneg;                         /* nnz(L), nv: L along the paths, -1 / D */
  int ltdl;                                  /* 1: -M^-1 X by the factors (branched trees) */
  double *cP, *cG, *cT, *cmu;                /* 3 x nv x nv, 2 nv: the sums over the output
                                                (derivatives2_contract.c): dM/dq . mu, A_q^T
                                                times it, a transpose, the weights mu and nu */
} hg_deriv2;

hg_deriv2 *hg_deriv2_new(const hg_model *m);
void hg_deriv2_free(hg_deriv2 *w);

/* The second-order partials of tau = RNEA(q, v, qdd, fext) (external wrenches fixed in the
 * bodies' frames, as in hg_rnea_derivatives) above; any output may be NULL. Runs RNEA on d
 * (the derivatives' world-frame pass) and leaves tau in w->tau. Cannot fail. The entries come
 * from 6-vectors formed once per pair of DoFs on one path (derivatives2.c): O(N d^2) for a
 * tree of N bodies and depth d, plus writing 4 nv^3 numbers, zeros included. */
void hg_rnea_second_derivatives(const hg_model *m, hg_data *d, hg_deriv2 *w, const double *q,
                                const double *v, const double *qdd, const double *fext,
                                double *d2tau_dq2, double *d2tau_dv2, double *d2tau_dqdv,
                                double *dM_dq);

/* hg_rnea_second_derivatives writing only entries whose three DoFs lie on one path from a
 * root, the tensors' non-zero pattern (fixed by the tree; on a path, entries known to be zero,
 * such as dM/dq_k where k carries both DoFs, are skipped too): the other entries are left as they
 * are. Tensors that hold zeros there (from calloc, or from an earlier call of either routine on
 * this model) come out equal to hg_rnea_second_derivatives', without the zeros written again
 * (4 nv^3 numbers: 8 MB on a 63-DoF tree). The forward- and hybrid-dynamics routines below run
 * it on their scratch. */
void hg_rnea_second_derivatives_paths(const hg_model *m, hg_data *d, hg_deriv2 *w,
                                      const double *q, const double *v, const double *qdd,
                                      const double *fext, double *d2tau_dq2, double *d2tau_dv2,
                                      double *d2tau_dqdv, double *dM_dq);

/* The second-order partials of qdd = ABA(q, v, tau, fext) by the identities of
 * docs/linearization.md, from those of inverse dynamics at qdd and M^-1:
 *   d2qdd_dq2  [l, m, k] = d/dq_k (d qdd_l / d q_m)
 *   d2qdd_dv2  [l, m, k] = d/dv_k (d qdd_l / d v_m)
 *   d2qdd_dqdv [l, m, k] = d/dv_k (d qdd_l / d q_m)
 *   d2qdd_dqdtau[l, m, k] = d/dtau_k (d qdd_l / d q_m) = -(M^-1 dM/dq_m M^-1)[l, k]
 * (any may be NULL); qdd (may be NULL) gets the acceleration. The first-order matrices stay in
 * w->aq (d qdd / d q), w->av and w->Minv. Returns 0, or -1 with d->err set when an articulated
 * inertia is singular. The products dM/dq_m x take O(N d) per column x (3 nv columns); -M^-1 is
 * applied to 4 nv^2 columns (half of them where a result is symmetric): by products with M^-1,
 * nv per row that the column's block of eight can have non-zero (nv^2 on a chain: O(nv^4) in
 * all), by the articulated recursion on long chains, or by the factors M = L^T D L, O(N d)
 * each, on branched trees (hg_deriv2_new chooses; w->ltdl). In derivatives2_forward.c, as is
 * hg_hybrid_second_derivatives. */
int hg_aba_second_derivatives(const hg_model *m, hg_data *d, hg_deriv2 *w, const double *q,
                              const double *v, const double *tau, const double *fext,
                              double *qdd, double *d2qdd_dq2, double *d2qdd_dv2,
                              double *d2qdd_dqdv, double *d2qdd_dqdtau);

/* The second-order partials of hybrid dynamics (hg_hybrid_derivatives: joint modes in d->mode,
 * input u = tau at free DoFs and qdd at prescribed ones, output y = qdd at free DoFs and tau at
 * prescribed and locked ones): d2y_dq2, d2y_dv2, d2y_dqdv and d2y_dqdu[l, m, k] = d/du_k (d y_l /
 * d q_m) (columns of locked DoFs zero), any may be NULL; y (may be NULL) gets the output. With F
 * the free DoFs, X the forward-dynamics bracket above with the whole acceleration's derivatives
 * (rows of given accelerations zero, d qdd / d u_k = e_k at a prescribed k):
 *   free rows: -M_FF^-1 X_F,   the others: X + M_.F (free rows).
 * Returns 0, or -1 with d->err set. With every joint free this is hg_aba_second_derivatives. */
int hg_hybrid_second_derivatives(const hg_model *m, hg_data *d, hg_deriv2 *w, const double *q,
                                 const double *v, const double *u, const double *fext,
                                 double *y, double *d2y_dq2, double *d2y_dv2, double *d2y_dqdv,
                                 double *d2y_dqdu);

/* The tensors above summed over their output with weights lam (nv numbers):
 *   h[k nv + m] = sum_l lam_l T[l, m, k] = d/dx_k (lam . d y / d x_m),
 * the second derivatives of the one number lam . y (y = tau, qdd or the hybrid output), slice k
 * of the nv x nv result being the derivative along direction k of the row lam . (d y / d x_m)
 * over m: h_qq from d2*_dq2, h_vv from d2*_dv2, h_qv from d2*_dqdv, and h_M from dM_dq (inverse
 * dynamics), h_qtau from d2qdd_dqdtau (forward dynamics), h_qu from d2y_dqdu (hybrid dynamics).
 * Any output may be NULL; they agree with the tensors summed to rounding. Forward and hybrid
 * dynamics take one solve with M^-1 (or M_FF^-1) for the weights and never form their nv^3
 * tensors: the cost is about that of hg_rnea_second_derivatives_paths plus 3 nv^3 multiply-adds
 * (derivatives2_contract.c). Return values, qdd and y as in the routines above; the first-order
 * matrices stay in w->aq, w->av, w->Minv (and w->au). */
void hg_rnea_second_derivatives_contract(const hg_model *m, hg_data *d, hg_deriv2 *w,
                                         const double *q, const double *v, const double *qdd,
                                         const double *fext, const double *lam, double *h_qq,
                                         double *h_vv, double *h_qv, double *h_M);
int hg_aba_second_derivatives_contract(const hg_model *m, hg_data *d, hg_deriv2 *w,
                                       const double *q, const double *v, const double *tau,
                                       const double *fext, const double *lam, double *qdd,
                                       double *h_qq, double *h_vv, double *h_qv,
                                       double *h_qtau);
int hg_hybrid_second_derivatives_contract(const hg_model *m, hg_data *d, hg_deriv2 *w,
                                          const double *q, const double *v, const double *u,
                                          const double *fext, const double *lam, double *y,
                                          double *h_qq, double *h_vv, double *h_qv,
                                          double *h_qu);

#ifdef __cplusplus
}
#endif

#endif
