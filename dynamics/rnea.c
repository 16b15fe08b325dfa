/* rnea.c: recursive Newton-Euler inverse dynamics (seed 002 Table 2), in each tree's frame. */
#include "dynamics.h"

HG_HOT void hg_rnea(const hg_model *m, hg_data *d, const double *q, const double *v, const double *qdd,
             const double *fext, double *tau) {
  hg_kinematics(m, d, q, v);
  double *a0 = d->a[0];
  a0[0] = a0[1] = a0[2] = 0;
  for (int r = 0; r < 3; r++) a0[3 + r] = -m->gravity[r];

  /* forward, in each tree's Galilean frame (model.h): a_i = a_p + c_i + S_i qdd_i (a root
   * adds xi to its qdd);  F_i = I_i a_i - ad*_{V_i} I_i V_i - fext_i */
  for (int i = 1; i < m->nbody; i++) {
    int va = m->v_adr[i], nv = m->jnt_nv[i], p = m->parent[i];
    const double *ap = d->a[p], *ci = d->c[i], *Vi = d->Vg[i];
    double a[6], h[6], f[6], F[6];
    for (int r = 0; r < 6; r++) a[r] = ap[r] + ci[r];
    for (int k = 0; k < nv; k++) {
      const double *S = d->S[va + k], qk = p ? qdd[va + k] : qdd[va + k] + d->xi[va + k];
      for (int r = 0; r < 6; r++) a[r] += S[r] * qk;
    }
    hg_inertia_mulv(&d->I[i], a, F);
    hg_inertia_mulv(&d->I[i], Vi, h);
    hg_ad_star(Vi, h, f);
    for (int r = 0; r < 6; r++) F[r] -= f[r];
    if (fext) {
      hg_coAd_inv(&d->T_tree[i], fext + 6 * i, f);
      for (int r = 0; r < 6; r++) F[r] -= f[r];
    }
    for (int r = 0; r < 6; r++) d->a[i][r] = a[r], d->F[i][r] = F[r];
  }

  /* backward: tau_i = S_i^T F_i;  F_p += F_i (one frame per tree) */
  for (int i = m->nbody - 1; i > 0; i--) {
    int va = m->v_adr[i], p = m->parent[i];
    const double *F = d->F[i];
    for (int k = 0; k < m->jnt_nv[i]; k++) tau[va + k] = hg_dot6(d->S[va + k], F);
    if (p > 0) {
      double *Fp = d->F[p];
      for (int r = 0; r < 6; r++) Fp[r] += F[r];
    }
  }
}

void hg_bias(const hg_model *m, hg_data *d, const double *q, const double *v, const double *fext,
             double *b) {
  /* b = RNEA(q, v, 0): d->u serves as the zero acceleration (it is only scratch here) */
  for (int k = 0; k < m->nv; k++) d->u[k] = 0;
  hg_rnea(m, d, q, v, d->u, fext, b);
}
