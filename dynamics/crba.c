/* crba.c: composite-rigid-body algorithm for the joint-space mass matrix. */
#include <string.h>

#include "dynamics.h"

/* s^T f for 6-vectors */
static double dot6(const double *s, const double *f) {
  return s[0] * f[0] + s[1] * f[1] + s[2] * f[2] + s[3] * f[3] + s[4] * f[4] + s[5] * f[5];
}

void hg_crba(const hg_model *m, hg_data *d, const double *q, double *M) {
  int nv = m->nv;
  hg_kinematics(m, d, q, NULL);

  /* composite inertias: Ic_i = G_i + sum over children Ad^T Ic_k Ad, in d->IA */
  for (int i = 1; i < m->nbody; i++) hg_inertia_matrix(&m->inertia[i], d->IA[i]);
  for (int i = m->nbody - 1; i > 0; i--)
    if (m->parent[i] > 0) hg_m6_congruence_add(&d->T_rel[i], d->IA[i], d->IA[m->parent[i]]);

  /* M_ij = S_j^T (X^T ... Ic_i S_i) for every ancestor j of i (and i itself) */
  memset(M, 0, (size_t)nv * (size_t)nv * sizeof(double));
  for (int i = 1; i < m->nbody; i++) {
    for (int k = m->v_adr[i]; k < m->v_adr[i] + m->jnt_nv[i]; k++) {
      double f[6], g[6];
      hg_m6_mulv(d->IA[i], d->S[k], f);
      for (int l = m->v_adr[i]; l <= k; l++) M[k * nv + l] = M[l * nv + k] = dot6(d->S[l], f);
      for (int j = i; m->parent[j] > 0; j = m->parent[j]) {
        hg_coAd_inv(&d->T_rel[j], f, g);
        memcpy(f, g, sizeof f);
        int p = m->parent[j];
        for (int l = m->v_adr[p]; l < m->v_adr[p] + m->jnt_nv[p]; l++)
          M[k * nv + l] = M[l * nv + k] = dot6(d->S[l], f);
      }
    }
  }
}
