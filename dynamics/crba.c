/* crba.c: composite-rigid-body algorithm for the joint-space mass matrix, in each tree's frame. */
#include <string.h>

#include "dynamics.h"

HG_HOT void hg_crba(const hg_model *m, hg_data *d, const double *q, double *M) {
  int nv = m->nv;
  hg_kinematics(m, d, q, NULL);

  /* composite inertias Ic_i = I_i + sum over children Ic_k: plain sums in the tree frame
   * (kept in d->I, which the next walk recomputes) */
  for (int i = m->nbody - 1; i > 0; i--)
    if (m->parent[i] > 0) hg_inertia_add(&d->I[m->parent[i]], &d->I[i]);

  /* M_kl = S_l^T Ic_i S_k for DoF k of body i and DoF l of i or of any of its ancestors */
  memset(M, 0, (size_t)nv * (size_t)nv * sizeof(double));
  for (int i = 1; i < m->nbody; i++) {
    for (int k = m->v_adr[i]; k < m->v_adr[i] + m->jnt_nv[i]; k++) {
      double f[6];
      hg_inertia_mulv(&d->I[i], d->S[k], f);
      for (int l = m->v_adr[i]; l <= k; l++) M[k * nv + l] = M[l * nv + k] = hg_dot6(d->S[l], f);
      for (int j = m->parent[i]; j > 0; j = m->parent[j])
        for (int l = m->v_adr[j]; l < m->v_adr[j] + m->jnt_nv[j]; l++)
          M[k * nv + l] = M[l * nv + k] = hg_dot6(d->S[l], f);
    }
  }
}
