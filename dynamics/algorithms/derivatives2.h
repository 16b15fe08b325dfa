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
 * perturbation (the column of the first-order matrix), k the second. An entry is non-zero only when the bodies of l, m and k lie on one path from a root
 * (each pair is ancestor and descendant or the same body): the routines write the zeros and
 * compute only those triples. See docs/linearization.md. */
#ifndef HINGE_DERIVATIVES2_H
#define HINGE_DERIVATIVES2_H

#include "derivatives.h"
#include "model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The workspace of the second-order routines (hg_deriv2_new, per model; the routines allocate
 * nothing; every call writes what it uses). Tree frame (the derivatives' world-frame pass). Per
 * DoF, 6 numbers each: the first-order twists of derivatives.c (Vb, ab, Vm, nu, alpha, mu), the
 * rows rI = Ic S and rB = Bc^T S of its body, y = Ic alpha + Bc nu, Inu = Ic nu, the wrench
 * changes g = y + S x* F and h = Ic mu + Bc S; along the current second direction the changes of S and the
 * twists (in the direction's subtree) and of rI, rB, g, h (on its path and subtree); soa, a
 * component-major copy of some of them. Per body: its inertia G and matrix B, the subtree sums
 * Ic and Bc (6 x 6, row-major; Bc also transposed, so that both products with it read rows), at
 * the direction's body j the sums' changes dIc and dBc (and dBc^T), and the
 * changes dV, da, dF of velocity, acceleration and joint wrench in j's subtree. w1 and the nv x
 * nv and nv^3 scratch and idx serve the forward- and hybrid-dynamics identities. */
typedef struct hg_deriv2 {
  int nv, nbody;
  double *Vb, *ab, *Vm, *nu, *al, *mu;       /* nv x 6 */
  double *rI, *rB, *y, *g, *h;               /* nv x 6: rows Ic S, Bc^T S, wrench changes */
  double *dS, *dVb, *dab, *dVm, *dnu, *dal, *dmu; /* nv x 6, along the current direction */
  double *drI, *drB, *dg, *dh;               /* nv x 6, along the current direction */
  double *soa;   /* 14 x 6 x nv: alpha, nu, mu, S, g, h, rI and the changes of alpha, nu, mu,
                    S, g, h, rI, component-major (a row of a slice sweeps consecutive DoFs) */
  double *Inu;                               /* nv x 6: Ic nu of the DoF's body */
  double *G, *B, *Ic, *Bc, *BcT, *dIc, *dBc, *dBcT; /* nbody x 36 (BcT, dBcT: Bc^T, dBc^T) */
  double *dV, *da, *dF;                      /* nbody x 6 */
  double *tau;                               /* nv */
  hg_deriv *w1;                              /* the first-order workspace */
  double *qdd, *aq, *av, *au, *Minv, *U;     /* nv, nv x nv (forward, hybrid dynamics) */
  double *t_qq, *t_vv, *t_qv, *t_M, *X;      /* nv^3 scratch (forward, hybrid dynamics) */
  int *idx;                                  /* nv: a slice's non-zero rows (M^-1 products) */
  int *path;                                 /* nbody: the current direction's body and its
                                                ancestors, deepest first */
} hg_deriv2;

hg_deriv2 *hg_deriv2_new(const hg_model *m);
void hg_deriv2_free(hg_deriv2 *w);

/* The second-order partials of tau = RNEA(q, v, qdd, fext) (external wrenches fixed in the
 * bodies' frames, as in hg_rnea_derivatives) above; any output may be NULL. Runs RNEA on d
 * (the derivatives' world-frame pass) and leaves tau in w->tau. Cannot fail. Cost
 * O(sum over DoFs k of the DoF pairs on paths through k's body): O(N d^2) for a tree of N
 * bodies and depth d, plus writing nv^3 numbers. */
void hg_rnea_second_derivatives(const hg_model *m, hg_data *d, hg_deriv2 *w, const double *q,
                                const double *v, const double *qdd, const double *fext,
                                double *d2tau_dq2, double *d2tau_dv2, double *d2tau_dqdv,
                                double *dM_dq);

/* The second-order partials of qdd = ABA(q, v, tau, fext) by the identities of
 * docs/linearization.md, from those of inverse dynamics at qdd and M^-1:
 *   d2qdd_dq2  [l, m, k] = d/dq_k (d qdd_l / d q_m)
 *   d2qdd_dv2  [l, m, k] = d/dv_k (d qdd_l / d v_m)
 *   d2qdd_dqdv [l, m, k] = d/dv_k (d qdd_l / d q_m)
 *   d2qdd_dqdtau[l, m, k] = d/dtau_k (d qdd_l / d q_m) = -(M^-1 dM/dq_m M^-1)[l, k]
 * (any may be NULL); qdd (may be NULL) gets the acceleration. The first-order matrices stay in
 * w->aq (d qdd / d q), w->av and w->Minv. Returns 0, or -1 with d->err set when an articulated
 * inertia is singular. The products with M^-1 skip the zero rows of each slice; O(nv^4) on a
 * chain, O(N nv^3) where the articulated recursion replaces them (long chains). */
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

#ifdef __cplusplus
}
#endif

#endif
