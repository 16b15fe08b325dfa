/* derivatives2_local.h: what the two halves of the second-order derivatives share, inside
 * dynamics/algorithms: derivatives2.c (inverse dynamics) and derivatives2_forward.c (forward
 * and hybrid dynamics from it). */
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

#endif
