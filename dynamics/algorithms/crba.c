/* crba.c: composite-rigid-body algorithm for the joint-space mass matrix, in each tree's frame. */
#include <string.h>

#include "body_frames.h"
#include "dynamics.h"

HG_HOT void hg_crba(const hg_model *m, hg_data *d, const double *q, double *M) {
  int nv = m->nv;
  const hg_local_model *lm = m->local;
  if (lm && lm->nfixed) {
    /* a model with fixed joints: the swept bodies only, each with the inertias of those fixed
     * to it, each child added to its parent's carrier (body_frames.h), as on the merged model */
    hg_kinematics_carried(m, d, q, NULL);
    for (int t = lm->nswept - 2; t >= 0; t--) {
      int i = lm->swept[t], p = lm->parent[i];
      if (p > 0) hg_inertia_add(&d->I[p], &d->I[i]);
    }
  } else {
    hg_kinematics(m, d, q, NULL);
    /* composite inertias Ic_i = I_i + sum over children Ic_k: plain sums in the tree frame
     * (kept in d->I, which the next walk recomputes) */
    for (int i = m->nbody - 1; i > 0; i--)
      if (m->parent[i] > 0) hg_inertia_add(&d->I[m->parent[i]], &d->I[i]);
  }

  /* M_kl = S_l^T Ic_i S_k for DoF k of body i and DoF l = k or any DoF on its path to the root
   * (m->dof_parent); zero elsewhere */
  memset(M, 0, (size_t)nv * (size_t)nv * sizeof(double));
  for (int k = 0; k < nv; k++) {
    double f[6];
    hg_inertia_mulv(&d->I[m->dof_body[k]], d->S[k], f);
    for (int l = k; l >= 0; l = m->dof_parent[l]) M[k * nv + l] = M[l * nv + k] = hg_dot6(d->S[l], f);
  }
  /* M_kk += armature_k: the reflected rotor inertia on the DoF's diagonal (model.h) */
  if (m->has_armature)
    for (int k = 0; k < nv; k++) M[k * nv + k] += m->armature[k];
}
