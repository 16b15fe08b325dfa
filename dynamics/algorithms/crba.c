/* crba.c: composite-rigid-body algorithm for the joint-space mass matrix, in each tree's frame. */
#include <string.h>

#include "body_frames.h"
#include "dynamics.h"
#include "lanes.h"

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
   * (m->dof_parent); zero elsewhere. The rows of the trunk, the DoFs 0 .. t - 1 each on the path
   * of every later DoF (a chain's every row, a floating base's first six), have no zero: the
   * zeros are written below it only */
  int t = 0;
  while (t < nv && m->dof_parent[t] == t - 1 && m->subtree_end[m->dof_body[t]] == m->nbody) t++;
  memset(M + (size_t)t * nv, 0, (size_t)(nv - t) * (size_t)nv * sizeof(double));
  for (int k = 0; k < nv; k++) {
    int i = m->dof_body[k], r = m->root[i];
    /* a free joint on the tree's root has S = (R 0; 0 R), R its body's rotation (the tree
     * frame's origin is at that body): its six entries are (R^T f_w, R^T f_v), half the
     * products of six dot products */
    int free_last = m->jnt_walk[r] == HG_WALK_FREE ? m->v_adr[r] + 5 : -1;
    double *Mk = M + (size_t)k * nv;
    hg_v4 f03; /* f = Ic_i S_k in (f03, f45) = f[0..3], f[4..5] */
    hg_v2 f45;
    hg_lane3_inertia_mulv(&d->I[i], d->S[k], &f03, &f45);
    for (int l = k; l >= 0; l = m->dof_parent[l]) {
      if (l == free_last) {
        const double *R = d->T_tree[r].R;
        double f[6], x[6], *Mc = M + (size_t)(l - 5) * nv + k;
        HG_ST4(f, f03), HG_ST2(f + 4, f45);
        hg_m3_mulTv(R, f, x);
        hg_m3_mulTv(R, f + 3, x + 3);
        for (int e = 0; e < 6; e++) Mk[l - 5 + e] = Mc[(size_t)e * nv] = x[e];
        break;
      }
      Mk[l] = M[(size_t)l * nv + k] = hg_lane3_dot6(d->S[l], &f03, &f45);
    }
  }
  /* M_kk += armature_k: the reflected rotor inertia on the DoF's diagonal (model.h) */
  if (m->has_armature)
    for (int k = 0; k < nv; k++) M[k * nv + k] += m->armature[k];
}
