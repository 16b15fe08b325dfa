/* derivatives.c: analytic first-order derivatives of inverse dynamics (RNEA) on the Lie group,
 * and from them those of forward and hybrid dynamics.
 *
 * Everything is in one tree's frame (model.h). tau does not depend on the frame, so its
 * derivative may be taken in the fixed frame that coincides with the tree frame now. Write x for
 * the spatial cross product ad and x* for its dual -ad^T. DoF k of joint j has the column S_k;
 * Vb_k and ab_k are the velocity and acceleration of what S_k moves relative to: the parent's
 * for spherical and free joints and for a first DoF, the parent's plus the earlier DoFs' for the
 * later DoFs of the chain joints (joint.h, hg_joint_dof_carries). Perturbing q (+) e e_k moves
 * j's subtree rigidly by exp(e S_k); with nu_k = Vb_k x S_k, every body b of the subtree has
 *   dV_b/dq_k = S_k x V_b + nu_k,         da_b/dq_k = S_k x a_b + alpha_k + nu_k x V_b,
 *   alpha_k = ab_k x S_k - nu_k x Vb_k,
 * and perturbing v_k,
 *   dV_b/dv_k = S_k,                     da_b/dv_k = S_k x V_b + mu_k,
 *   mu_k = 2 nu_k (chains), nu_k + V_j x S_k (spherical, free).
 * The body wrench f_b = G_b a_b + V_b x* G_b V_b - fext_b then changes by the rigid part
 * S_k x* f_b (fext turns with the body) plus G_b alpha_k + B_b nu_k, where
 *   B_b n = G_b (n x V_b) + n x* G_b V_b + V_b x* G_b n,
 * and by G_b mu_k + B_b S_k for v_k. Summed over the subtree of body i (the joint wrench F_i):
 *   dF_i/dq_k = S_k x* F_i + Ic_i alpha_k + Bc_i nu_k,   dF_i/dv_k = Ic_i mu_k + Bc_i S_k,
 * and tau_l = S_l^T F_i. Where S_l turns with the perturbation (l in the subtree) the rigid part
 * cancels against d S_l = S_k x S_l, leaving rI_l . alpha_k + rB_l . nu_k with rI_l = Ic_i S_l,
 * rB_l = Bc_i^T S_l; elsewhere (l at or above j) d tau_l = S_l . g_k with g_k = dF_j/dq_k.
 * This is the recursive structure of seed 000 (Bos et al.) and of Carpentier and Mansard's RNEA
 * derivatives, written for every joint type with the trivialization of joint.h.
 *
 * Forward dynamics: qdd = M^-1 (tau - b) gives dqdd/dx = -M^-1 dtau/dx at qdd (x = q, v).
 * Hybrid dynamics: with F the free and P the prescribed DoFs, tau = ID(q, v, qdd) splits into
 * dqdd_F = -M_FF^-1 (dID_F - dtau_F + M_FP dqdd_P) and dtau_P = dID_P + M_PF dqdd_F + M_PP dqdd_P;
 * both read Z = -M_FF^-1 X and X + M Z for X = dtau/dq, dtau/dv and the input columns. */
#include <stdlib.h>
#include <string.h>

#include "derivatives.h"
#include "dynamics.h"

hg_deriv *hg_deriv_new(const hg_model *m) {
  hg_deriv *w = calloc(1, sizeof *w);
  if (!w) return NULL;
  size_t nv = (size_t)m->nv, nb = (size_t)m->nbody, n2 = nv * nv + 1, n1 = nv + 1;
  w->nv = m->nv;
  w->nbody = m->nbody;
  w->Ic = calloc(nb, sizeof *w->Ic);
  w->Bc = calloc(nb, sizeof *w->Bc);
  hg_vec6 **v6[] = {&w->nu, &w->alpha, &w->mu, &w->g, &w->h, &w->rI, &w->rB};
  for (size_t k = 0; k < sizeof v6 / sizeof *v6; k++) *v6[k] = calloc(n1, sizeof(hg_vec6));
  w->Fm = calloc(6 * nv * nb + 1, sizeof(double));
  w->X = calloc(6 * nv + 1, sizeof(double));
  double **mat[] = {&w->dq, &w->dv, &w->M, &w->P, &w->Z};
  for (size_t k = 0; k < sizeof mat / sizeof *mat; k++) *mat[k] = calloc(n2, sizeof(double));
  double **vec[] = {&w->zero, &w->qdd, &w->tau, &w->tauh};
  for (size_t k = 0; k < sizeof vec / sizeof *vec; k++) *vec[k] = calloc(n1, sizeof(double));
  w->all_free = calloc(nb, 1);
  int ok = w->Ic && w->Bc && w->Fm && w->X && w->all_free;
  for (size_t k = 0; k < sizeof v6 / sizeof *v6; k++) ok = ok && *v6[k];
  for (size_t k = 0; k < sizeof mat / sizeof *mat; k++) ok = ok && *mat[k];
  for (size_t k = 0; k < sizeof vec / sizeof *vec; k++) ok = ok && *vec[k];
  if (!ok) {
    hg_deriv_free(w);
    return NULL;
  }
  return w;
}

void hg_deriv_free(hg_deriv *w) {
  if (!w) return;
  free(w->Ic); free(w->Bc); free(w->Fm); free(w->X); free(w->all_free);
  free(w->nu); free(w->alpha); free(w->mu); free(w->g); free(w->h); free(w->rI); free(w->rB);
  free(w->dq); free(w->dv); free(w->M); free(w->P); free(w->Z);
  free(w->zero); free(w->qdd); free(w->tau); free(w->tauh);
  free(w);
}

/* 1 when every DoF of joint i carries every other (spherical, free) */
static int coupled(const hg_model *m, int i) {
  return m->jnt_nv[i] > 1 && hg_joint_dof_carries(m->jnt[i].type, m->jnt_nv[i] - 1, 0);
}

/* per DoF k: nu_k = Vb_k x S_k, alpha_k = ab_k x S_k - nu_k x Vb_k, mu_k (see the top) */
static void dof_twists(const hg_model *m, const hg_data *d, hg_deriv *w, const double *v,
                       const double *qdd) {
  static const double zero[6] = {0, 0, 0, 0, 0, 0};
  for (int i = 1; i < m->nbody; i++) {
    int p = m->parent[i], va = m->v_adr[i], chain = !coupled(m, i);
    const double *Vp = p ? d->V[p] : zero;
    double Vb[6], ab[6], x[6];
    for (int r = 0; r < 6; r++) Vb[r] = Vp[r], ab[r] = d->a[p][r];
    for (int k = va; k < va + m->jnt_nv[i]; k++) {
      const double *S = d->S[k];
      double *nu = w->nu[k], *al = w->alpha[k], *mu = w->mu[k];
      hg_ad(Vb, S, nu);
      hg_ad(ab, S, al);
      hg_ad(nu, Vb, x);
      for (int r = 0; r < 6; r++) al[r] -= x[r];
      if (chain) {
        /* mu = 2 nu; the next DoF rides on this one: Vb += S v, ab += S qdd + nu v */
        for (int r = 0; r < 6; r++) {
          mu[r] = 2 * nu[r];
          ab[r] += S[r] * qdd[k] + nu[r] * v[k];
          Vb[r] += S[r] * v[k];
        }
      } else {
        hg_ad(d->V[i], S, mu);
        for (int r = 0; r < 6; r++) mu[r] += nu[r];
      }
    }
  }
}

/* B += -P - P^T + X with P = G ad_V and X n = n x* (G V) = -[[h_w^, h_v^], [h_v^, 0]] n */
static void add_coriolis(const hg_inertia *G, const double V[6], double *B) {
  double Gm[36], P[36], h[6], Sw[9], Sv[9];
  hg_inertia_matrix(G, Gm);
  /* row r of G ad_V is ad*_V applied to row r of the symmetric G */
  for (int r = 0; r < 6; r++) hg_ad_star(V, Gm + 6 * r, P + 6 * r);
  for (int r = 0; r < 6; r++)
    for (int c = 0; c < 6; c++) B[6 * r + c] -= P[6 * r + c] + P[6 * c + r];
  hg_inertia_mulv(G, V, h);
  hg_m3_skew(h, Sw);
  hg_m3_skew(h + 3, Sv);
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++) {
      B[6 * r + c] -= Sw[3 * r + c];
      B[6 * r + 3 + c] -= Sv[3 * r + c];
      B[6 * (3 + r) + c] -= Sv[3 * r + c];
    }
}

/* composite Ic_i and Bc_i: each body's own, summed over its subtree (one frame per tree) */
static void composites(const hg_model *m, const hg_data *d, hg_deriv *w) {
  for (int i = 1; i < m->nbody; i++) {
    w->Ic[i] = d->I[i];
    memset(w->Bc[i], 0, sizeof(hg_mat6));
    add_coriolis(&d->I[i], d->V[i], w->Bc[i]);
  }
  for (int i = m->nbody - 1; i > 0; i--) {
    int p = m->parent[i];
    if (p <= 0) continue;
    hg_inertia_add(&w->Ic[p], &w->Ic[i]);
    for (int r = 0; r < 36; r++) w->Bc[p][r] += w->Bc[i][r];
  }
}

/* per DoF k of body i: g_k = S_k x* F_i + Ic_i alpha_k + Bc_i nu_k, h_k = Ic_i mu_k + Bc_i S_k,
 * rI_k = Ic_i S_k, rB_k = Bc_i^T S_k */
static void dof_wrenches(const hg_model *m, const hg_data *d, hg_deriv *w) {
  for (int i = 1; i < m->nbody; i++) {
    const hg_inertia *Ic = &w->Ic[i];
    const double *Bc = w->Bc[i];
    for (int k = m->v_adr[i]; k < m->v_adr[i] + m->jnt_nv[i]; k++) {
      const double *S = d->S[k];
      double x[6], y[6];
      hg_ad_star(S, d->F[i], x);
      hg_inertia_mulv(Ic, w->alpha[k], y);
      hg_m6_mulv(Bc, w->nu[k], w->g[k]);
      for (int r = 0; r < 6; r++) w->g[k][r] += y[r] - x[r];
      hg_inertia_mulv(Ic, w->mu[k], y);
      hg_m6_mulv(Bc, S, w->h[k]);
      for (int r = 0; r < 6; r++) w->h[k][r] += y[r];
      hg_inertia_mulv(Ic, S, w->rI[k]);
      for (int c = 0; c < 6; c++) {
        double t = 0;
        for (int r = 0; r < 6; r++) t += Bc[6 * r + c] * S[r];
        w->rB[k][c] = t;
      }
    }
  }
}

static void rnea_derivatives_in_world(const hg_model *m, hg_data *d, hg_deriv *w, const double *q,
                         const double *v, const double *qdd, const double *fext, double *dtau_dq,
                         double *dtau_dv, double *M) {
  int nv = m->nv;
  size_t n2 = (size_t)nv * (size_t)nv * sizeof(double);
  hg_rnea(m, d, q, v, qdd, fext, w->tau);
  dof_twists(m, d, w, v, qdd);
  composites(m, d, w);
  dof_wrenches(m, d, w);
  memset(dtau_dq, 0, n2);
  memset(dtau_dv, 0, n2);
  if (M) memset(M, 0, n2);

  /* DoF l of body i against DoF k of i itself and of each ancestor j */
  for (int i = 1; i < m->nbody; i++) {
    hg_joint_type t = m->jnt[i].type;
    int va = m->v_adr[i], n = m->jnt_nv[i];
    for (int l = va; l < va + n; l++) {
      const double *rI = w->rI[l], *rB = w->rB[l], *Sl = d->S[l];
      double *Dq = dtau_dq + (size_t)l * nv, *Dv = dtau_dv + (size_t)l * nv;
      /* the same joint: S_l turns with q_k when k carries l */
      for (int k = va; k < va + n; k++) {
        Dq[k] = hg_joint_dof_carries(t, k - va, l - va)
                    ? hg_dot6(rI, w->alpha[k]) + hg_dot6(rB, w->nu[k])
                    : hg_dot6(Sl, w->g[k]);
        Dv[k] = hg_dot6(rI, w->mu[k]) + hg_dot6(rB, d->S[k]);
        if (M) M[(size_t)l * nv + k] = hg_dot6(rI, d->S[k]);
      }
      /* an ancestor's DoF k: l lies in k's subtree, and k sees l's perturbation through F_j */
      for (int j = m->parent[i]; j > 0; j = m->parent[j])
        for (int k = m->v_adr[j]; k < m->v_adr[j] + m->jnt_nv[j]; k++) {
          const double *Sk = d->S[k];
          Dq[k] = hg_dot6(rI, w->alpha[k]) + hg_dot6(rB, w->nu[k]);
          Dv[k] = hg_dot6(rI, w->mu[k]) + hg_dot6(rB, Sk);
          dtau_dq[(size_t)k * nv + l] = hg_dot6(Sk, w->g[l]);
          dtau_dv[(size_t)k * nv + l] = hg_dot6(Sk, w->h[l]);
          if (M) M[(size_t)l * nv + k] = M[(size_t)k * nv + l] = hg_dot6(rI, Sk);
        }
    }
  }
}

static int minv_in_world(const hg_model *m, hg_data *d, hg_deriv *w, const double *q, double *Minv) {
  /* the articulated pass leaves U = IA S and D^-1 (velocities and forces play no part in them) */
  if (hg_aba(m, d, q, w->zero, w->zero, NULL, w->qdd)) return -1;
  hg_minv_factored(m, d, w, NULL, Minv);
  return 0;
}

static int aba_derivatives_in_world(const hg_model *m, hg_data *d, hg_deriv *w, const double *q,
                       const double *v, const double *tau, const double *fext, double *qdd,
                       double *dqdd_dq, double *dqdd_dv, double *dqdd_dtau) {
  int nv = m->nv;
  if (hg_aba(m, d, q, v, tau, fext, w->qdd)) return -1;
  if (dqdd_dtau) hg_minv_factored(m, d, w, NULL, dqdd_dtau);
  if (qdd) memcpy(qdd, w->qdd, (size_t)nv * sizeof(double));
  if (!dqdd_dq && !dqdd_dv) return 0;
  /* dqdd/dx = -M^-1 dtau/dx at the acceleration ABA found, by the articulated recursion on
   * ABA's factors (O(N nv), where a product with M^-1 would cost nv^3) */
  rnea_derivatives_in_world(m, d, w, q, v, w->qdd, fext, w->dq, w->dv, NULL);
  if (dqdd_dq) hg_minv_solve_neg(m, d, w, NULL, w->dq, nv, dqdd_dq);
  if (dqdd_dv) hg_minv_solve_neg(m, d, w, NULL, w->dv, nv, dqdd_dv);
  return 0;
}

/* out = the hybrid outputs' derivative for the inverse-dynamics derivative X (see the top):
 * Z = -M_FF^-1 X at free rows, X + M Z at prescribed rows */
static void hybrid_map(const hg_model *m, hg_data *d, hg_deriv *w, const double *X,
                       double *out) {
  int nv = m->nv;
  hg_minv_solve_neg(m, d, w, d->mode, X, nv, w->Z);
  for (int l = 0; l < nv; l++) {
    double *o = out + (size_t)l * nv;
    const double *Z = w->Z + (size_t)l * nv, *Xl = X + (size_t)l * nv, *Ml = w->M + (size_t)l * nv;
    if (d->mode[m->dof_body[l]] == HG_MODE_FREE) {
      memcpy(o, Z, (size_t)nv * sizeof(double));
      continue;
    }
    memcpy(o, Xl, (size_t)nv * sizeof(double));
    for (int k = 0; k < nv; k++) {
      if (Ml[k] == 0 || d->mode[m->dof_body[k]] != HG_MODE_FREE) continue;
      const double *Zk = w->Z + (size_t)k * nv;
      for (int c = 0; c < nv; c++) o[c] += Ml[k] * Zk[c];
    }
  }
}

static int hybrid_derivatives_in_world(const hg_model *m, hg_data *d, hg_deriv *w, const double *q,
                          const double *v, const double *u, const double *fext, double *y,
                          double *dy_dq, double *dy_dv, double *dy_du) {
  int nv = m->nv;
  /* u splits into tau (free DoFs) and qdd (prescribed DoFs) */
  for (int k = 0; k < nv; k++) {
    int fr = d->mode[m->dof_body[k]] == HG_MODE_FREE;
    w->tauh[k] = fr ? u[k] : 0;
    w->qdd[k] = fr ? 0 : u[k];
  }
  if (hg_hybrid(m, d, q, v, w->qdd, w->tauh, fext)) return -1;
  if (y)
    for (int k = 0; k < nv; k++)
      y[k] = d->mode[m->dof_body[k]] == HG_MODE_FREE ? w->qdd[k] : w->tauh[k];
  rnea_derivatives_in_world(m, d, w, q, v, w->qdd, fext, w->dq, w->dv, w->M);
  if (dy_dq) hybrid_map(m, d, w, w->dq, dy_dq);
  if (dy_dv) hybrid_map(m, d, w, w->dv, dy_dv);
  if (!dy_du) return 0;
  /* the inputs' columns of dtau: -e_c for a free tau, M e_c for a prescribed qdd, 0 when locked */
  for (int l = 0; l < nv; l++)
    for (int c = 0; c < nv; c++) {
      int mode = d->mode[m->dof_body[c]];
      w->P[(size_t)l * nv + c] = mode == HG_MODE_FREE ? -(double)(l == c)
                                 : mode == HG_MODE_PRESCRIBED ? w->M[(size_t)l * nv + c] : 0;
    }
  hybrid_map(m, d, w, w->P, dy_du);
  return 0;
}

/* ---- the public entry points: every tree in the world's frame ----
 * The recursions above differentiate the classic formulation, in which a floating base's linear
 * velocity enters the velocity products; the Galilean frames the dynamics otherwise use
 * (model.h) would make a root's linear rates act through the transport term instead. */

void hg_rnea_derivatives(const hg_model *m, hg_data *d, hg_deriv *w, const double *q,
                         const double *v, const double *qdd, const double *fext, double *dtau_dq,
                         double *dtau_dv, double *M) {
  int keep = d->no_galilean;
  d->no_galilean = 1;
  rnea_derivatives_in_world(m, d, w, q, v, qdd, fext, dtau_dq, dtau_dv, M);
  d->no_galilean = keep;
}

int hg_minv(const hg_model *m, hg_data *d, hg_deriv *w, const double *q, double *Minv) {
  int keep = d->no_galilean;
  d->no_galilean = 1;
  int rc = minv_in_world(m, d, w, q, Minv);
  d->no_galilean = keep;
  return rc;
}

int hg_aba_derivatives(const hg_model *m, hg_data *d, hg_deriv *w, const double *q,
                       const double *v, const double *tau, const double *fext, double *qdd,
                       double *dqdd_dq, double *dqdd_dv, double *dqdd_dtau) {
  int keep = d->no_galilean;
  d->no_galilean = 1;
  int rc = aba_derivatives_in_world(m, d, w, q, v, tau, fext, qdd, dqdd_dq, dqdd_dv, dqdd_dtau);
  d->no_galilean = keep;
  return rc;
}

int hg_hybrid_derivatives(const hg_model *m, hg_data *d, hg_deriv *w, const double *q,
                          const double *v, const double *u, const double *fext, double *y,
                          double *dy_dq, double *dy_dv, double *dy_du) {
  int keep = d->no_galilean;
  d->no_galilean = 1;
  int rc = hybrid_derivatives_in_world(m, d, w, q, v, u, fext, y, dy_dq, dy_dv, dy_du);
  d->no_galilean = keep;
  return rc;
}
