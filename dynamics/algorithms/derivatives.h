/* derivatives.h: analytic first-order derivatives of inverse, forward and hybrid dynamics, and
 * the inverse mass matrix by a recursive algorithm.
 *
 * Perturbations live in the tangent space of each joint's group (joint.h): the derivative with
 * respect to tangent component k of q is d/de f(q (+) e e_k) at e = 0, with q (+) d = q exp(d).
 * For spherical and free joints this is the left-trivialized derivative (the perturbation acts in
 * the child's body frame, on the right of the joint's pose); for the other joints it is the plain
 * partial derivative. Every matrix is nv x nv, row-major, row = output component, column =
 * perturbation direction (a tangent component of q, a component of v, of qdd or of tau).
 *
 * The routines allocate nothing: hg_deriv_new sizes one workspace per model. They run the
 * underlying algorithm themselves (RNEA, ABA or hybrid) on d, so d's kinematic and dynamic fields
 * afterwards are those of that algorithm. They return 0, or -1 with d->err set when an
 * articulated inertia is singular or the state is not finite. See docs/linearization.md. */
#ifndef HINGE_DERIVATIVES_H
#define HINGE_DERIVATIVES_H

#include "model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The workspace of the derivative routines (allocated once by hg_deriv_new). Per body i, in its
 * tree's frame, a record of HG_DERIV_L_ROWS numbers at sums + HG_DERIV_L_ROWS i: first
 * HG_DERIV_SUMS sums over its subtree, Ic the composite inertia of
 * i's subtree (m, h (3), I (6) as in hg_inertia), and the two parts of the sum Bc over the
 * subtree of B_b = -G ad_V - (G ad_V)^T + [. x* G V] (how the bodies' wrenches change with a
 * common twist change, see derivatives.c): Qc the symmetric 3 x 3 sum of its angular block's
 * symmetric part (6: xx yy zz xy xz yz), hc the composite momentum sum G V (6); then its joint
 * wrench F (6, copied from hg_data). Per DoF k, in T (blocks
 * of four DoFs, each HG_DERIV_T_ROWS rows of four numbers, one quantity's component per row, so
 * that the pair loops sweep four DoFs at once): the twists alpha (6 rows), nu (its angular part,
 * 3) and mu (6) that enter the derivatives of all accelerations in joint k's subtree, S (6), the
 * wrench changes g (for q, 6) and h (for v, 6) at k's body, and the rows rI = Ic S (6) and rB =
 * Bc^T S (its angular part, 3) of k's body. L: per block of T, HG_DERIV_L_ROWS x 4 scratch, the
 * inputs of its four DoFs side by side. The derivative pass writes all of these. */
#define HG_DERIV_T_ROWS 42
#define HG_DERIV_L_ROWS 28
#define HG_DERIV_SUMS 22
typedef struct hg_deriv {
  int nv, nbody;
  double *sums;   /* nbody x HG_DERIV_L_ROWS: Ic, Qc, hc, F (above) */
  double *L;      /* ceil(nv / 4) blocks of HG_DERIV_L_ROWS x 4 */
  double *T;      /* ceil(nv / 4) blocks of HG_DERIV_T_ROWS x 4: the per-DoF columns above */
  double *Fm;     /* 6 nv nbody: the M^-1 recursion's wrenches and accelerations */
  double *X;      /* 6 nv: the M^-1 recursion's rows of one joint */
  double *dq, *dv, *M, *P, *Z; /* nv x nv scratch for the forward and hybrid derivatives */
  double *zero, *qdd, *tau, *tauh;     /* nv (and 3 more) */
  uint8_t *all_free;              /* nbody, every joint free (for hg_minv) */
  uint8_t *coupled;               /* nbody: 1 when every DoF of the joint carries every other
                                     (spherical, free; set by hg_deriv_new) */
  int *range_adr; /* nbody + 1: body i's column ranges are ranges[2 range_adr[i] ..
                     2 range_adr[i + 1]) */
  int *ranges;    /* per body (set by hg_deriv_new): the column ranges [lo, hi) where the rows of
                     its DoFs in an inverse-dynamics derivative may be non-zero, descending */
  int product;    /* 1: forward dynamics' -M^-1 dtau/dx as products with M^-1 (their sparsity
                     makes them cheaper than the recursion with a dense right-hand side) */
} hg_deriv;

hg_deriv *hg_deriv_new(const hg_model *m);
void hg_deriv_free(hg_deriv *w);

/* Inverse dynamics tau = RNEA(q, v, qdd, fext): dtau_dq = d tau / d q (tangent), dtau_dv =
 * d tau / d v, and, when M is not NULL, d tau / d qdd = M(q). External wrenches are fixed in
 * the bodies' frames (they turn with the bodies). Also leaves tau in w->tau. O(N d) for a tree of
 * depth d; cannot fail. */
void hg_rnea_derivatives(const hg_model *m, hg_data *d, hg_deriv *w, const double *q,
                         const double *v, const double *qdd, const double *fext, double *dtau_dq,
                         double *dtau_dv, double *M);

/* The inverse mass matrix M(q)^-1 by the articulated-body recursion (every joint free), O(N nv),
 * without forming or inverting M. Leaves in d the kinematics without velocities (world frame)
 * and the articulated pass's factors IA, U and Dinv of every joint free (minv.c: no bias
 * wrenches, accelerations or forces). */
int hg_minv(const hg_model *m, hg_data *d, hg_deriv *w, const double *q, double *Minv);

/* The same recursion on the factors (d->S, d->U, d->Dinv) the last tree-frame articulated pass
 * (hg_aba_opt or hg_hybrid_opt with the tree-frame pass, or on a model without a body-local
 * pass) left in d. mode NULL: every joint free, Minv = M^-1. Otherwise joints whose mode is
 * not free are held rigid and Minv = (M_FF)^-1 over the free DoFs F, embedded in nv x nv with
 * zero rows and columns at the other DoFs (the modes must be those of that pass). */
void hg_minv_factored(const hg_model *m, hg_data *d, hg_deriv *w, const uint8_t *mode,
                      double *Minv);

/* Y = -M^-1 X for X nv x ncol (row-major, ncol <= nv), by the same recursion with a dense
 * right-hand side, on the factors of the last tree-frame articulated pass: O(N ncol). mode as for
 * hg_minv_factored (NULL: every joint free; otherwise Y = -M_FF^-1 X_F at the free rows, zero at
 * the others, and X's other rows are not read). */
void hg_minv_solve_neg(const hg_model *m, hg_data *d, hg_deriv *w, const uint8_t *mode,
                       const double *X, int ncol, double *Y);

/* Forward dynamics qdd = ABA(q, v, tau, fext) and its derivatives: dqdd_dq (tangent), dqdd_dv
 * and dqdd_dtau = M^-1 (any of the three may be NULL). qdd may be NULL. */
int hg_aba_derivatives(const hg_model *m, hg_data *d, hg_deriv *w, const double *q,
                       const double *v, const double *tau, const double *fext, double *qdd,
                       double *dqdd_dq, double *dqdd_dv, double *dqdd_dtau);

/* Hybrid dynamics (hg_hybrid, joint modes in d->mode) and its derivatives. The input u is the
 * nv-vector that holds tau at free DoFs and qdd at prescribed DoFs (locked DoFs: ignored, their
 * qdd is zero); the output y holds qdd at free DoFs and tau at prescribed and locked DoFs. Writes
 * y (may be NULL), dy_dq (tangent), dy_dv and dy_du, each nv x nv (columns of locked DoFs in
 * dy_du are zero). With every joint free this is hg_aba_derivatives. */
int hg_hybrid_derivatives(const hg_model *m, hg_data *d, hg_deriv *w, const double *q,
                          const double *v, const double *u, const double *fext, double *y,
                          double *dy_dq, double *dy_dv, double *dy_du);

#ifdef __cplusplus
}
#endif

#endif
