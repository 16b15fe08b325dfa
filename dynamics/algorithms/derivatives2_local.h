/* derivatives2_local.h: what the parts of the second-order derivatives share, inside
 * dynamics/algorithms: derivatives2.c (inverse dynamics), derivatives2_forward.c (forward and
 * hybrid dynamics from it) and derivatives2_contract.c (their sums over the output). */
#ifndef HINGE_DERIVATIVES2_LOCAL_H
#define HINGE_DERIVATIVES2_LOCAL_H

#include "derivatives.h"
#include "derivatives2.h"
#include "model.h"

/* the DoFs that carry DoF l, l among them, as ranges [m0, m1) of the ranges of l's body (its
 * ancestors' DoFs, ascending, then its own joint's): range r of rg, the first cut at the end
 * of l's group (the DoFs of its joint for spherical and free joints, l alone for the others) */
static inline int carrier_end(const hg_model *m, const hg_deriv *w1, int l) {
  int c = m->dof_body[l];
  return w1->coupled[c] ? m->v_adr[c] + m->jnt_nv[c] : l + 1;
}

/* derivatives2_forward.c, after hg_rnea_second_derivatives_paths (its subtree inertias Ic) on
 * the same d: w->cis = Ic S_l for every DoF l, which hg_deriv2_dM_vector reads */
void hg_deriv2_dM_setup(const hg_model *m, const hg_data *d, hg_deriv2 *w);

/* derivatives2_forward.c: P[l nv + j] = (dM/dq_j x)_l (nv x nv, row-major), non-zero only for
 * the pairs (l, j) on one path, O(N d) for a tree of N bodies and depth d; after
 * hg_deriv2_dM_setup. dM/dq_j is symmetric, so P[l nv + j] is also x . dM/dq_j e_l. */
void hg_deriv2_dM_vector(const hg_model *m, const hg_data *d, hg_deriv2 *w, const double *x,
                         double *P);

/* derivatives2_forward.c: the first-order part of the hybrid second derivatives: y (may be
 * NULL), w->Minv = M_FF^-1 (zero outside the free DoFs), and the whole acceleration w->qdd with
 * its derivatives w->aq, w->av, w->au (rows of given accelerations zero, d qdd / d u_k = e_k at
 * a prescribed k), w->w1->M the mass matrix. Returns -1 with d->err set when M_FF is singular. */
int hg_deriv2_hybrid_first(const hg_model *m, hg_data *d, hg_deriv2 *w, const double *q,
                           const double *v, const double *u, const double *fext, double *y);

#endif
