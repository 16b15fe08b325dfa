/* articulated.c: the articulated-body pass behind forward (ABA), hybrid and impulsive dynamics.
 *
 * One routine serves all three (seed 002 Tables 3 and 4; seed 004 "hybrid dynamics"):
 * each joint is either free (its force is given, its acceleration solved) or prescribed (its
 * acceleration is given, its force recovered). Backward, each body's articulated inertia IA_i and
 * bias pA_i are projected across its joint and passed to the parent:
 *   free:        Pi = IA - U D^-1 U^T,  beta = pA + Pi c + U D^-1 u,   U = IA S, D = S^T U,
 *                                                                       u = tau - S^T pA
 *   prescribed:  Pi = IA,               beta = pA + IA (c + S qdd)
 * Forward, a_i = Ad_{T^-1} a_p + c_i + S_i qdd_i with qdd_i = D^-1 (u - U^T (Ad a_p + c)) for free
 * joints, and F_i = IA_i a_i + pA_i is the wrench the joint transmits; prescribed joints read
 * tau_i = S_i^T F_i. The impulsive form is the same pass with velocities, gravity and external
 * wrenches set to zero (accelerations become velocity jumps, forces become impulses). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "dynamics.h"

/* Dinv = D^-1 for the n x n symmetric D (n <= 6) by Cholesky. scale[k] bounds D_kk from above;
 * a pivot below 1e-12 scale[k] (or not finite) means a singular articulated inertia: -1. */
static int spd_inverse(int n, const double *D, const double *scale, double *Dinv) {
  double L[36], Li[36];
  for (int j = 0; j < n; j++) {
    double s = D[j * n + j];
    for (int k = 0; k < j; k++) s -= L[j * n + k] * L[j * n + k];
    if (!(s > 1e-12 * scale[j]) || !isfinite(s)) return -1;
    L[j * n + j] = sqrt(s);
    for (int i = j + 1; i < n; i++) {
      double t = D[i * n + j];
      for (int k = 0; k < j; k++) t -= L[i * n + k] * L[j * n + k];
      L[i * n + j] = t / L[j * n + j];
    }
  }
  /* Li = L^-1 (lower triangular), Dinv = Li^T Li */
  for (int j = 0; j < n; j++) {
    Li[j * n + j] = 1 / L[j * n + j];
    for (int i = j + 1; i < n; i++) {
      double t = 0;
      for (int k = j; k < i; k++) t -= L[i * n + k] * Li[k * n + j];
      Li[i * n + j] = t / L[i * n + i];
    }
  }
  for (int i = 0; i < n; i++)
    for (int j = 0; j <= i; j++) {
      double t = 0;
      for (int k = i; k < n; k++) t += Li[k * n + i] * Li[k * n + j];
      Dinv[i * n + j] = Dinv[j * n + i] = t;
    }
  return 0;
}

static double dot6(const double *s, const double *f) {
  return s[0] * f[0] + s[1] * f[1] + s[2] * f[2] + s[3] * f[3] + s[4] * f[4] + s[5] * f[5];
}

/* Backward projection of a free joint i: fills U, Dinv, u and turns IA, pA (copied to Pi, beta)
 * into what the parent sees. Returns -1 when D is singular. */
static int project_free(const hg_model *m, hg_data *d, int i, const double *tau, double Pi[36],
                        double beta[6]) {
  int va = m->v_adr[i], n = m->jnt_nv[i];
  const double *IA = d->IA[i], *pA = d->pA[i];
  double *Dinv = d->Dinv + m->D_adr[i], D[36], scale[6], W[36];

  /* U = IA S, D = S^T U, u = tau - S^T pA */
  for (int k = 0; k < n; k++) {
    const double *s = d->S[va + k];
    hg_m6_mulv(IA, s, d->U[va + k]);
    d->u[va + k] = tau[va + k] - dot6(s, pA);
    scale[k] = 0;
    for (int r = 0; r < 6; r++) scale[k] += fabs(IA[7 * r]) * s[r] * s[r];
    for (int l = 0; l <= k; l++) D[k * n + l] = D[l * n + k] = dot6(d->S[va + l], d->U[va + k]);
  }
  if (spd_inverse(n, D, scale, Dinv)) return -1;

  /* W = U D^-1 (6 x n), Pi = IA - W U^T, beta = pA + Pi c + W u */
  for (int r = 0; r < 6; r++)
    for (int k = 0; k < n; k++) {
      double t = 0;
      for (int l = 0; l < n; l++) t += d->U[va + l][r] * Dinv[l * n + k];
      W[r * n + k] = t;
    }
  for (int r = 0; r < 6; r++)
    for (int s = r; s < 6; s++) {
      double t = IA[6 * r + s];
      for (int k = 0; k < n; k++) t -= W[r * n + k] * d->U[va + k][s];
      Pi[6 * r + s] = Pi[6 * s + r] = t;
    }
  hg_m6_mulv(Pi, d->c[i], beta);
  for (int r = 0; r < 6; r++) {
    double t = pA[r];
    for (int k = 0; k < n; k++) t += W[r * n + k] * d->u[va + k];
    beta[r] += t;
  }
  return 0;
}

/* the articulated-body pass; mode NULL means every joint is free; bias 0 is the impulsive form */
static int articulated(const hg_model *m, hg_data *d, const double *q, const double *v,
                       const uint8_t *mode, double *qdd, double *tau, const double *fext,
                       int bias) {
  hg_kinematics(m, d, q, bias ? v : NULL);

  /* IA_i = G_i, pA_i = -ad*_{V_i} G_i V_i - fext_i (zero without bias) */
  for (int i = 1; i < m->nbody; i++) {
    hg_inertia_matrix(&m->inertia[i], d->IA[i]);
    if (bias) {
      double h[6];
      hg_inertia_mulv(&m->inertia[i], d->V[i], h);
      hg_ad_star(d->V[i], h, d->pA[i]);
      for (int r = 0; r < 6; r++) d->pA[i][r] = -d->pA[i][r] - (fext ? fext[6 * i + r] : 0);
    } else {
      memset(d->pA[i], 0, sizeof(hg_vec6));
      memset(d->c[i], 0, sizeof(hg_vec6));
    }
  }

  /* backward: project each subtree across its joint and add it to the parent */
  for (int i = m->nbody - 1; i > 0; i--) {
    int va = m->v_adr[i], n = m->jnt_nv[i], p = m->parent[i];
    int free_joint = n > 0 && (!mode || mode[i] == HG_MODE_FREE);
    double Pi[36], beta[6];
    if (free_joint) {
      if (project_free(m, d, i, tau, Pi, beta)) {
        snprintf(d->err, sizeof d->err,
                 "articulated inertia is singular at joint '%s' (body '%s'): the subtree it moves "
                 "has no mass or inertia along the joint's motion",
                 m->jnt_name[i], m->body_name[i]);
        return -1;
      }
    } else {
      double ci[6];
      if (bias && mode && mode[i] == HG_MODE_LOCKED)
        for (int k = 0; k < n; k++) qdd[va + k] = 0;
      memcpy(ci, d->c[i], sizeof ci);
      for (int k = 0; k < n; k++)
        for (int r = 0; r < 6; r++) ci[r] += d->S[va + k][r] * qdd[va + k];
      memcpy(Pi, d->IA[i], sizeof Pi);
      hg_m6_mulv(Pi, ci, beta);
      for (int r = 0; r < 6; r++) beta[r] += d->pA[i][r];
    }
    if (p > 0) {
      double f[6];
      hg_m6_congruence_add(&d->T_rel[i], Pi, d->IA[p]);
      hg_coAd_inv(&d->T_rel[i], beta, f);
      for (int r = 0; r < 6; r++) d->pA[p][r] += f[r];
    }
  }

  /* forward: accelerations, joint wrenches, and the unknown half of (qdd, tau) */
  double *a0 = d->a[0];
  for (int r = 0; r < 6; r++) a0[r] = 0;
  if (bias)
    for (int r = 0; r < 3; r++) a0[3 + r] = -m->gravity[r];
  for (int i = 1; i < m->nbody; i++) {
    int va = m->v_adr[i], n = m->jnt_nv[i];
    int free_joint = n > 0 && (!mode || mode[i] == HG_MODE_FREE);
    double *a = d->a[i];
    hg_Ad_inv(&d->T_rel[i], d->a[m->parent[i]], a);
    for (int r = 0; r < 6; r++) a[r] += d->c[i][r];
    if (free_joint) {
      /* qdd = D^-1 (u - U^T a') */
      const double *Dinv = d->Dinv + m->D_adr[i];
      double w[6];
      for (int k = 0; k < n; k++) w[k] = d->u[va + k] - dot6(d->U[va + k], a);
      for (int k = 0; k < n; k++) {
        double t = 0;
        for (int l = 0; l < n; l++) t += Dinv[k * n + l] * w[l];
        qdd[va + k] = t;
      }
    }
    for (int k = 0; k < n; k++)
      for (int r = 0; r < 6; r++) a[r] += d->S[va + k][r] * qdd[va + k];
    hg_m6_mulv(d->IA[i], a, d->F[i]);
    for (int r = 0; r < 6; r++) d->F[i][r] += d->pA[i][r];
    if (!free_joint)
      for (int k = 0; k < n; k++) tau[va + k] = dot6(d->S[va + k], d->F[i]);
    /* a non-finite state or input stops here, named, instead of spreading NaN */
    for (int k = 0; k < n; k++)
      if (!isfinite(qdd[va + k]) || !isfinite(tau[va + k])) {
        snprintf(d->err, sizeof d->err, "non-finite %s at joint '%s' (body '%s'): check the state and inputs",
                 free_joint ? "acceleration" : "force", m->jnt_name[i], m->body_name[i]);
        return -1;
      }
  }
  return 0;
}

int hg_aba(const hg_model *m, hg_data *d, const double *q, const double *v, const double *tau,
           const double *fext, double *qdd) {
  /* with every joint free the pass only reads tau */
  return articulated(m, d, q, v, NULL, qdd, (double *)tau, fext, 1);
}

int hg_hybrid(const hg_model *m, hg_data *d, const double *q, const double *v, double *qdd,
              double *tau, const double *fext) {
  return articulated(m, d, q, v, d->mode, qdd, tau, fext, 1);
}

int hg_hybrid_impulse(const hg_model *m, hg_data *d, const double *q, double *dv, double *imp) {
  return articulated(m, d, q, NULL, d->mode, dv, imp, NULL, 0);
}

int hg_plastic_lock(const hg_model *m, hg_data *d, const double *q, const double *v,
                    double *v_after, double *imp, double *energy_removed) {
  /* demand dv = -v at every joint that is not free, zero impulse at free joints */
  for (int i = 1; i < m->nbody; i++)
    for (int k = m->v_adr[i]; k < m->v_adr[i] + m->jnt_nv[i]; k++) {
      int locked = d->mode[i] != HG_MODE_FREE;
      v_after[k] = locked ? -v[k] : 0;
      imp[k] = 0;
    }
  if (hg_hybrid_impulse(m, d, q, v_after, imp)) return -1;
  for (int k = 0; k < m->nv; k++) v_after[k] += v[k];
  double k0, k1, pe;
  hg_energy(m, d, q, v, &k0, &pe);
  hg_energy(m, d, q, v_after, &k1, &pe);
  *energy_removed = k0 - k1;
  return 0;
}
