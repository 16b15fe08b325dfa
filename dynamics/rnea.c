/* rnea.c: recursive Newton-Euler inverse dynamics (seed 002 Table 2). */
#include "dynamics.h"

void hg_rnea(const hg_model *m, hg_data *d, const double *q, const double *v, const double *qdd,
             const double *fext, double *tau) {
  hg_kinematics(m, d, q, v);
  double *a0 = d->a[0];
  a0[0] = a0[1] = a0[2] = 0;
  for (int r = 0; r < 3; r++) a0[3 + r] = -m->gravity[r];

  /* forward: a_i = Ad_{T^-1} a_p + S_i qdd_i + c_i;  F_i = G_i a_i - ad*_{V_i} G_i V_i - fext_i */
  for (int i = 1; i < m->nbody; i++) {
    int va = m->v_adr[i];
    double *a = d->a[i], h[6], f[6];
    hg_Ad_inv(&d->T_rel[i], d->a[m->parent[i]], a);
    for (int r = 0; r < 6; r++) a[r] += d->c[i][r];
    for (int k = 0; k < m->jnt_nv[i]; k++)
      for (int r = 0; r < 6; r++) a[r] += d->S[va + k][r] * qdd[va + k];
    hg_inertia_mulv(&m->inertia[i], a, d->F[i]);
    hg_inertia_mulv(&m->inertia[i], d->V[i], h);
    hg_ad_star(d->V[i], h, f);
    for (int r = 0; r < 6; r++) d->F[i][r] -= f[r] + (fext ? fext[6 * i + r] : 0);
  }

  /* backward: tau_i = S_i^T F_i;  F_p += Ad_{T^-1}^T F_i */
  for (int i = m->nbody - 1; i > 0; i--) {
    int va = m->v_adr[i], p = m->parent[i];
    for (int k = 0; k < m->jnt_nv[i]; k++) {
      const double *s = d->S[va + k], *F = d->F[i];
      tau[va + k] = s[0] * F[0] + s[1] * F[1] + s[2] * F[2] + s[3] * F[3] + s[4] * F[4] + s[5] * F[5];
    }
    if (p > 0) {
      double f[6];
      hg_coAd_inv(&d->T_rel[i], d->F[i], f);
      for (int r = 0; r < 6; r++) d->F[p][r] += f[r];
    }
  }
}

void hg_bias(const hg_model *m, hg_data *d, const double *q, const double *v, const double *fext,
             double *b) {
  /* b = RNEA(q, v, 0): d->u serves as the zero acceleration (it is only scratch here) */
  for (int k = 0; k < m->nv; k++) d->u[k] = 0;
  hg_rnea(m, d, q, v, d->u, fext, b);
}
