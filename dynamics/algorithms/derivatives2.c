/* derivatives2.c: analytic second-order derivatives of inverse dynamics (RNEA) on the Lie group,
 * the derivative of the mass matrix, and from them those of forward dynamics.
 *
 * The first-order derivatives (derivatives.c) are closed formulas in the tree's kinematic
 * quantities. With c the deeper of the bodies of DoFs l and m (one is an ancestor of the other,
 * or both are one body), and "m carries l" when perturbing q_m turns S_l (m's body a strict
 * ancestor of l's, or hg_joint_dof_carries within one joint):
 *   d tau_l / d q_m = S_l . (Ic_c alpha_m + Bc_c nu_m + [m does not carry l] S_m x* F_c),
 *   d tau_l / d v_m = S_l . (Ic_c mu_m + Bc_c S_m),
 *   M_lm           = S_l . Ic_c S_m,
 * with the twists nu_m = Vb_m x S_m, alpha_m = ab_m x S_m - nu_m x Vb_m, mu_m = Vm_m x S_m + nu_m,
 * the composite inertia Ic_c and the composite Bc_c = sum over c's subtree of
 *   B_b = -G_b ad_{V_b} - ad_{V_b}^T G_b + C(G_b V_b),   C(f) n = n x* f,
 * and the joint wrench F_c (derivatives.c derives them). These formulas hold at every q and v,
 * so each second derivative is the derivative of one of them along a second direction x (a
 * tangent component q_k or a rate v_k), by the product rule, from the changes of the
 * ingredients along x (this is the structure of Singh, Russell and Wensing, "On Second-Order
 * Derivatives of Rigid-Body Dynamics: Theory & Implementation": derivatives of the first-order
 * recursion's quantities, non-zero only for index triples on one path of the tree). With j the
 * body of DoF k, perturbing q_k moves j's subtree rigidly by exp(e S_k), so for b in it
 *   dS_l = S_k x S_l (k carries l),   dG_b = -ad_{S_k}^T G_b - G_b ad_{S_k},
 * and the velocities and accelerations change through their recursion (below) with dS; along
 * v_k only the rates change (dv_k = 1). Outside j's subtree nothing moves, and a body c above j
 * sees the changes of its subtree sums only: dIc_c = dIc_j, dBc_c = dBc_j, dF_c = dF_j, where
 *   dF_c / dq_k = S_k x* F_c + Ic_c alpha_k + Bc_c nu_k,  dF_c / dv_k = Ic_c mu_k + Bc_c S_k
 * (c in j's subtree; the first-order wrench changes of derivatives.c). The changes of B_b are
 *   dB_b = -dG ad_V - G ad_dV + C(dG V + G dV) - ad_dV^T G - ad_V^T dG.
 * So a direction k touches the pairs (l, m) whose deeper body c lies in j's subtree or above j,
 * and only those are visited: O(sum over c of depth(c)) pairs per direction.
 *
 * Forward dynamics (docs/linearization.md): ID(q, v, FD(q, v, tau)) = tau at every state gives,
 * with a_x = d qdd / d x = -M^-1 ID_x at qdd and dM_m = dM/dq_m,
 *   d2qdd/dq_m dq_k   = -M^-1 (ID_qq[., m, k] + dM_m a_q[., k] + dM_k a_q[., m]),
 *   d2qdd/dv_m dv_k   = -M^-1 ID_vv[., m, k],
 *   d2qdd/dq_m dv_k   = -M^-1 (ID_qv[., m, k] + dM_m a_v[., k]),
 *   d2qdd/dq_m dtau_k = -M^-1 dM_m M^-1[., k]. */
#include <stdlib.h>
#include <string.h>

#include "derivatives2.h"
#include "dynamics.h"

/* the derivatives' pass (derivatives.c): every tree in the world's frame, tree-frame factors */
static const hg_pass_options world = {.tree_frame = 1, .world_frame = 1};

hg_deriv2 *hg_deriv2_new(const hg_model *m) {
  hg_deriv2 *w = calloc(1, sizeof *w);
  if (!w) return NULL;
  size_t nv = (size_t)m->nv, nb = (size_t)m->nbody, n1 = 6 * nv + 1, n3 = nv * nv * nv + 1;
  w->nv = m->nv;
  w->nbody = m->nbody;
  double **dof[] = {&w->Vb, &w->ab, &w->Vm, &w->nu, &w->al, &w->mu, &w->dS,
                    &w->dVb, &w->dab, &w->dVm, &w->dnu, &w->dal, &w->dmu};
  double **body36[] = {&w->G, &w->B, &w->Ic, &w->Bc, &w->dIc, &w->dBc};
  double **body6[] = {&w->dV, &w->da, &w->dF};
  double **sq[] = {&w->aq, &w->av, &w->Minv};
  double **cube[] = {&w->t_qq, &w->t_vv, &w->t_qv, &w->t_M, &w->X};
  int ok = 1;
  for (size_t k = 0; k < sizeof dof / sizeof *dof; k++) ok &= !!(*dof[k] = calloc(n1, sizeof(double)));
  for (size_t k = 0; k < sizeof body36 / sizeof *body36; k++)
    ok &= !!(*body36[k] = calloc(36 * nb, sizeof(double)));
  for (size_t k = 0; k < sizeof body6 / sizeof *body6; k++)
    ok &= !!(*body6[k] = calloc(6 * nb, sizeof(double)));
  for (size_t k = 0; k < sizeof sq / sizeof *sq; k++)
    ok &= !!(*sq[k] = calloc(nv * nv + 1, sizeof(double)));
  for (size_t k = 0; k < sizeof cube / sizeof *cube; k++)
    ok &= !!(*cube[k] = calloc(n3, sizeof(double)));
  ok &= !!(w->tau = calloc(nv + 1, sizeof(double)));
  ok &= !!(w->qdd = calloc(nv + 1, sizeof(double)));
  ok &= !!(w->w1 = hg_deriv_new(m));
  if (!ok) {
    hg_deriv2_free(w);
    return NULL;
  }
  return w;
}

void hg_deriv2_free(hg_deriv2 *w) {
  if (!w) return;
  double *p[] = {w->Vb, w->ab, w->Vm, w->nu, w->al, w->mu, w->dS, w->dVb, w->dab, w->dVm,
                 w->dnu, w->dal, w->dmu, w->G, w->B, w->Ic, w->Bc, w->dIc, w->dBc, w->dV,
                 w->da, w->dF, w->tau, w->qdd, w->aq, w->av, w->Minv, w->t_qq, w->t_vv,
                 w->t_qv, w->t_M, w->X};
  for (size_t k = 0; k < sizeof p / sizeof *p; k++) free(p[k]);
  hg_deriv_free(w->w1);
  free(w);
}

/* ---- 6-vectors and 6 x 6 matrices (row-major) ---- */

static inline void v6_zero(double *x) { memset(x, 0, 6 * sizeof(double)); }
static inline void v6_axpy(double s, const double *x, double *y) {
  for (int r = 0; r < 6; r++) y[r] += s * x[r];
}
/* y += A x */
static inline void m6_mulv_add(const double *A, const double *x, double *y) {
  for (int r = 0; r < 6; r++) y[r] += hg_dot6(A + 6 * r, x);
}
/* y += s A^T B (or A B when !ta); s = +-1 */
static void m6_mul_add(const double *A, int ta, const double *B, double s, double *Y) {
  for (int r = 0; r < 6; r++)
    for (int c = 0; c < 6; c++) {
      double t = 0;
      for (int k = 0; k < 6; k++) t += (ta ? A[6 * k + r] : A[6 * r + k]) * B[6 * k + c];
      Y[6 * r + c] += s * t;
    }
}
/* y = V x* F = -ad_V^T F (add: y += V x* F) */
static inline void cross_star(const double V[6], const double F[6], double y[6], int add) {
  double t[6];
  hg_ad_star(V, F, t);
  for (int r = 0; r < 6; r++) y[r] = (add ? y[r] : 0) - t[r];
}
/* Y += C(f), the matrix of n -> n x* f: for f = (m, p), [[-m^, -p^], [-p^, 0]] */
static void coad_matrix_add(const double f[6], double *Y) {
  const double *mm = f, *p = f + 3;
  double sm[9], sp[9];
  hg_m3_skew(mm, sm);
  hg_m3_skew(p, sp);
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++) {
      Y[6 * r + c] -= sm[3 * r + c];
      Y[6 * r + c + 3] -= sp[3 * r + c];
      Y[6 * (r + 3) + c] -= sp[3 * r + c];
    }
}

/* B = -G ad_V - ad_V^T G + C(G V) (the velocity products' change with a common twist change,
 * derivatives.c) */
static void body_B(const double *G, const double V[6], double *B) {
  double A[36], GV[6] = {0};
  hg_ad_matrix(V, A);
  memset(B, 0, 36 * sizeof(double));
  m6_mul_add(G, 0, A, -1, B);
  m6_mul_add(A, 1, G, -1, B);
  m6_mulv_add(G, V, GV);
  coad_matrix_add(GV, B);
}

/* dB = -dG ad_V - G ad_dV - ad_dV^T G - ad_V^T dG + C(dG V + G dV) (dG may be NULL: zero) */
static void body_dB(const double *G, const double *dG, const double V[6], const double dV[6],
                    double *dB) {
  double A[36], dA[36], f[6] = {0};
  hg_ad_matrix(V, A);
  hg_ad_matrix(dV, dA);
  memset(dB, 0, 36 * sizeof(double));
  m6_mul_add(G, 0, dA, -1, dB);
  m6_mul_add(dA, 1, G, -1, dB);
  m6_mulv_add(G, dV, f);
  if (dG) {
    m6_mul_add(dG, 0, A, -1, dB);
    m6_mul_add(A, 1, dG, -1, dB);
    m6_mulv_add(dG, V, f);
  }
  coad_matrix_add(f, dB);
}

/* 1 when DoF k carries DoF l (perturbing q_k turns S_l): k's body a strict ancestor of l's, or
 * one joint and hg_joint_dof_carries; bodies of k and l must be related */
static inline int carries(const hg_model *m, int k, int l) {
  int j = m->dof_body[k], i = m->dof_body[l];
  if (j != i) return j < i;
  return hg_joint_dof_carries(m->jnt[j].type, k - m->v_adr[j], l - m->v_adr[j]);
}

/* the values: body matrices G and B, subtree sums Ic and Bc, and per DoF Vb, ab, Vm, nu,
 * alpha, mu (the recursion of the tangent pass below without the changes) */
static void values(const hg_model *m, const hg_data *d, hg_deriv2 *w, const double *v,
                   const double *qdd) {
  static const double zero[6] = {0, 0, 0, 0, 0, 0};
  for (int i = 1; i < m->nbody; i++) {
    double *G = w->G + 36 * (size_t)i, *B = w->B + 36 * (size_t)i;
    hg_inertia_matrix(&d->I[i], G);
    body_B(G, d->V[i], B);
    memcpy(w->Ic + 36 * (size_t)i, G, 36 * sizeof(double));
    memcpy(w->Bc + 36 * (size_t)i, B, 36 * sizeof(double));
  }
  for (int i = m->nbody - 1; i > 0; i--) {
    int p = m->parent[i];
    if (p <= 0) continue;
    for (int r = 0; r < 36; r++) {
      w->Ic[36 * (size_t)p + r] += w->Ic[36 * (size_t)i + r];
      w->Bc[36 * (size_t)p + r] += w->Bc[36 * (size_t)i + r];
    }
  }
  for (int i = 1; i < m->nbody; i++) {
    int p = m->parent[i], va = m->v_adr[i], n = m->jnt_nv[i];
    int chain = !(n > 1 && hg_joint_dof_carries(m->jnt[i].type, n - 1, 0));
    const double *Vp = p ? d->V[p] : zero;
    double Vb[6], ab[6];
    for (int r = 0; r < 6; r++) Vb[r] = Vp[r], ab[r] = d->a[p][r];
    for (int k = va; k < va + n; k++) {
      const double *S = d->S[k];
      double *nu = w->nu + 6 * k, *al = w->al + 6 * k, *mu = w->mu + 6 * k, x[6];
      memcpy(w->Vb + 6 * k, Vb, sizeof Vb);
      memcpy(w->ab + 6 * k, ab, sizeof ab);
      memcpy(w->Vm + 6 * k, chain ? Vb : d->V[i], sizeof Vb);
      /* nu = Vb x S, alpha = ab x S - nu x Vb, mu = Vm x S + nu */
      hg_ad(Vb, S, nu);
      hg_ad(ab, S, al);
      hg_ad(nu, Vb, x);
      for (int r = 0; r < 6; r++) al[r] -= x[r];
      hg_ad(w->Vm + 6 * k, S, mu);
      for (int r = 0; r < 6; r++) mu[r] += nu[r];
      if (chain) {
        /* the next DoF rides on this one: ab += S qdd + nu v, Vb += S v */
        for (int r = 0; r < 6; r++) ab[r] += S[r] * qdd[k] + nu[r] * v[k], Vb[r] += S[r] * v[k];
      }
    }
  }
}

/* the changes of every ingredient along direction k (dq: a tangent component of q, else a rate
 * v_k) in the subtree of k's body j: dS, dVb, dab, dVm, dnu, dalpha, dmu per DoF; dV, da, dIc,
 * dBc and dF per body. The recursion of the velocities and accelerations: along a chain,
 *   Vb_{m+1} = Vb_m + S_m v_m,  ab_{m+1} = ab_m + S_m qdd_m + nu_m v_m,
 * from (V, a) of the parent, with the body's (V, a) after its last DoF; for spherical and free
 * joints every DoF has Vb = V_parent and (V, a) of the body are the sums over all its DoFs. */
static void tangents(const hg_model *m, const hg_data *d, hg_deriv2 *w, const double *v,
                     const double *qdd, int dq, int k) {
  int j = m->dof_body[k], e = m->subtree_end[j];
  const double *Sk = d->S[k];
  for (int b = j; b < e; b++) {
    int p = m->parent[b], va = m->v_adr[b], n = m->jnt_nv[b];
    int chain = !(n > 1 && hg_joint_dof_carries(m->jnt[b].type, n - 1, 0));
    double dVp[6] = {0}, dap[6] = {0};
    if (p >= j && p < e) memcpy(dVp, w->dV + 6 * p, sizeof dVp), memcpy(dap, w->da + 6 * p, sizeof dap);
    double dVb[6], dab[6], dVs[6] = {0}, das[6] = {0};
    memcpy(dVb, dVp, sizeof dVb);
    memcpy(dab, dap, sizeof dab);
    for (int l = va; l < va + n; l++) {
      const double *S = d->S[l], *Vb = w->Vb + 6 * l, *nu = w->nu + 6 * l;
      double *dS = w->dS + 6 * l, *dnu = w->dnu + 6 * l, x[6];
      /* dS_l = S_k x S_l when k carries l (q directions only) */
      if (dq && carries(m, k, l)) hg_ad(Sk, S, dS);
      else v6_zero(dS);
      memcpy(w->dVb + 6 * l, dVb, sizeof dVb);
      memcpy(w->dab + 6 * l, dab, sizeof dab);
      /* dnu = dVb x S + Vb x dS */
      hg_ad(dVb, S, dnu);
      hg_ad(Vb, dS, x);
      for (int r = 0; r < 6; r++) dnu[r] += x[r];
      /* d(S v) and d(S qdd + nu v), with dv_k = 1 along v_k */
      double one = !dq && l == k;
      for (int r = 0; r < 6; r++) {
        double sv = dS[r] * v[l] + S[r] * one;
        double sa = dS[r] * qdd[l] + dnu[r] * v[l] + nu[r] * one;
        if (chain) dVb[r] += sv, dab[r] += sa;
        else dVs[r] += sv, das[r] += sa;
      }
    }
    double *dV = w->dV + 6 * b, *da = w->da + 6 * b;
    for (int r = 0; r < 6; r++) {
      dV[r] = chain ? dVb[r] : dVp[r] + dVs[r];
      da[r] = chain ? dab[r] : dap[r] + das[r];
    }
    for (int l = va; l < va + n; l++) {
      const double *S = d->S[l], *dS = w->dS + 6 * l;
      const double *Vb = w->Vb + 6 * l, *ab = w->ab + 6 * l, *Vm = w->Vm + 6 * l;
      const double *nu = w->nu + 6 * l, *dnu = w->dnu + 6 * l;
      const double *dVbl = w->dVb + 6 * l, *dabl = w->dab + 6 * l;
      double *dVm = w->dVm + 6 * l, *dal = w->dal + 6 * l, *dmu = w->dmu + 6 * l, x[6];
      memcpy(dVm, chain ? dVbl : dV, 6 * sizeof(double));
      /* dalpha = dab x S + ab x dS - dnu x Vb - nu x dVb */
      hg_ad(dabl, S, dal);
      hg_ad(ab, dS, x);
      v6_axpy(1, x, dal);
      hg_ad(dnu, Vb, x);
      v6_axpy(-1, x, dal);
      hg_ad(nu, dVbl, x);
      v6_axpy(-1, x, dal);
      /* dmu = dVm x S + Vm x dS + dnu */
      hg_ad(dVm, S, dmu);
      hg_ad(Vm, dS, x);
      for (int r = 0; r < 6; r++) dmu[r] += x[r] + dnu[r];
    }
    /* the body's dG (q directions) and dB, the start of the subtree sums */
    const double *G = w->G + 36 * (size_t)b;
    double *dIc = w->dIc + 36 * (size_t)b, *dBc = w->dBc + 36 * (size_t)b;
    memset(dIc, 0, 36 * sizeof(double));
    if (dq) {
      double A[36];
      hg_ad_matrix(Sk, A);
      m6_mul_add(A, 1, G, -1, dIc);
      m6_mul_add(G, 0, A, -1, dIc);
    }
    body_dB(G, dq ? dIc : NULL, d->V[b], dV, dBc);
  }
  for (int b = e - 1; b > j; b--) {
    int p = m->parent[b];
    for (int r = 0; r < 36; r++) {
      w->dIc[36 * (size_t)p + r] += w->dIc[36 * (size_t)b + r];
      w->dBc[36 * (size_t)p + r] += w->dBc[36 * (size_t)b + r];
    }
  }
  /* dF_c for c in j's subtree (the first-order wrench changes) */
  for (int c = j; c < e; c++) {
    double *dF = w->dF + 6 * c;
    const double *Ic = w->Ic + 36 * (size_t)c, *Bc = w->Bc + 36 * (size_t)c;
    v6_zero(dF);
    if (dq) {
      hg_ad_star(Sk, d->F[c], dF);
      for (int r = 0; r < 6; r++) dF[r] = -dF[r]; /* S x* F = -ad_S^T F */
      m6_mulv_add(Ic, w->al + 6 * k, dF);
      m6_mulv_add(Bc, w->nu + 6 * k, dF);
    } else {
      m6_mulv_add(Ic, w->mu + 6 * k, dF);
      m6_mulv_add(Bc, Sk, dF);
    }
  }
}

/* the outputs of one direction k: every pair (l, m) whose deeper body c is in the subtree of
 * k's body j or above j (the others do not change along k). Column k of the tensors: T[l, m, k]
 * at (l nv + m) nv + k. dq: T1 = d2tau_dq2, T2 = dM_dq; else T1 = d2tau_dqdv, T2 = d2tau_dv2. */
static void pairs(const hg_model *m, const hg_data *d, hg_deriv2 *w, int dq, int k, double *T1,
                  double *T2) {
  static const double zero[6] = {0, 0, 0, 0, 0, 0};
  size_t nv = (size_t)m->nv;
  int j = m->dof_body[k], e = m->subtree_end[j];
  /* c runs over j's ancestors bottom up (their sums change as j's do), then j's subtree */
  int c = m->parent[j];
  int sub = 0;
  if (c <= 0) c = j, sub = 1;
  for (;;) {
    int cc = sub ? c : j; /* whose sums' changes c sees */
    const double *Ic = w->Ic + 36 * (size_t)c, *Bc = w->Bc + 36 * (size_t)c;
    const double *dIc = w->dIc + 36 * (size_t)cc, *dBc = w->dBc + 36 * (size_t)cc;
    const double *F = d->F[c], *dF = w->dF + 6 * cc;
    int vc = m->v_adr[c], nc = m->jnt_nv[c];
    for (int a = c; a > 0; a = m->parent[a]) {
      int insub_a = a >= j && a < e, va = m->v_adr[a], na = m->jnt_nv[a];
      for (int mm = va; mm < va + na; mm++) {
        /* the DoF m of body a (a = c or an ancestor of c) and its changes (zero above j) */
        const double *Sm = d->S[mm];
        const double *dSm = insub_a ? w->dS + 6 * mm : zero;
        const double *alm = w->al + 6 * mm, *num = w->nu + 6 * mm, *mum = w->mu + 6 * mm;
        const double *dalm = insub_a ? w->dal + 6 * mm : zero;
        const double *dnum = insub_a ? w->dnu + 6 * mm : zero;
        const double *dmum = insub_a ? w->dmu + 6 * mm : zero;
        /* (l on c, m on a): y = Ic alpha_m + Bc nu_m (+ S_m x* F when m does not carry l),
         * yv = Ic mu_m + Bc S_m, yM = Ic S_m, and their changes */
        double y[6] = {0}, dy[6] = {0}, x[6], dx[6] = {0}, yv[6] = {0}, dyv[6] = {0};
        double yM[6] = {0}, dyM[6] = {0};
        m6_mulv_add(Ic, alm, y);
        m6_mulv_add(Bc, num, y);
        m6_mulv_add(dIc, alm, dy);
        m6_mulv_add(Ic, dalm, dy);
        m6_mulv_add(dBc, num, dy);
        m6_mulv_add(Bc, dnum, dy);
        cross_star(Sm, F, x, 0);
        cross_star(dSm, F, dx, 0);
        cross_star(Sm, dF, dx, 1);
        if (dq) {
          m6_mulv_add(Ic, Sm, yM);
          m6_mulv_add(dIc, Sm, dyM);
          m6_mulv_add(Ic, dSm, dyM);
        } else {
          m6_mulv_add(Ic, mum, yv);
          m6_mulv_add(Bc, Sm, yv);
          m6_mulv_add(dIc, mum, dyv);
          m6_mulv_add(Ic, dmum, dyv);
          m6_mulv_add(dBc, Sm, dyv);
          m6_mulv_add(Bc, dSm, dyv);
        }
        for (int l = vc; l < vc + nc; l++) {
          const double *Sl = d->S[l];
          const double *dSl = sub ? w->dS + 6 * l : zero;
          int extra = !carries(m, mm, l);
          double t1 = hg_dot6(dSl, y) + hg_dot6(Sl, dy);
          if (extra) t1 += hg_dot6(dSl, x) + hg_dot6(Sl, dx);
          double t2 = dq ? hg_dot6(dSl, yM) + hg_dot6(Sl, dyM) : hg_dot6(Sl, dyv);
          size_t at = ((size_t)l * nv + (size_t)mm) * nv + (size_t)k;
          if (T1) T1[at] = t1;
          if (T2) T2[at] = t2;
          if (a == c) continue;
          /* (m on a, l on c; l does not carry m, a being above c): S_m . g_l
           * with g_l = Ic alpha_l + Bc nu_l + S_l x* F; S_m . h_l, h_l = Ic mu_l + Bc S_l;
           * M symmetric */
          const double *all = w->al + 6 * l, *nul = w->nu + 6 * l, *mul = w->mu + 6 * l;
          const double *dall = sub ? w->dal + 6 * l : zero, *dnul = sub ? w->dnu + 6 * l : zero;
          const double *dmul = sub ? w->dmu + 6 * l : zero;
          double g[6] = {0}, dg[6] = {0};
          m6_mulv_add(Ic, all, g);
          m6_mulv_add(Bc, nul, g);
          cross_star(Sl, F, g, 1);
          m6_mulv_add(dIc, all, dg);
          m6_mulv_add(Ic, dall, dg);
          m6_mulv_add(dBc, nul, dg);
          m6_mulv_add(Bc, dnul, dg);
          cross_star(dSl, F, dg, 1);
          cross_star(Sl, dF, dg, 1);
          double r1 = hg_dot6(dSm, g) + hg_dot6(Sm, dg), r2 = t2;
          if (!dq) {
            double h[6] = {0}, dh[6] = {0};
            m6_mulv_add(Ic, mul, h);
            m6_mulv_add(Bc, Sl, h);
            m6_mulv_add(dIc, mul, dh);
            m6_mulv_add(Ic, dmul, dh);
            m6_mulv_add(dBc, Sl, dh);
            m6_mulv_add(Bc, dSl, dh);
            r2 = hg_dot6(Sm, dh);
          }
          size_t ra = ((size_t)mm * nv + (size_t)l) * nv + (size_t)k;
          if (T1) T1[ra] = r1;
          if (T2) T2[ra] = r2;
        }
      }
    }
    /* next c: up the ancestors' list, then j's subtree in order */
    if (!sub) {
      c = m->parent[c];
      if (c <= 0) c = j, sub = 1;
      continue;
    }
    if (++c >= e) break;
  }
}

void hg_rnea_second_derivatives(const hg_model *m, hg_data *d, hg_deriv2 *w, const double *q,
                                const double *v, const double *qdd, const double *fext,
                                double *d2tau_dq2, double *d2tau_dv2, double *d2tau_dqdv,
                                double *dM_dq) {
  size_t n3 = (size_t)m->nv * (size_t)m->nv * (size_t)m->nv;
  hg_rnea_opt(m, d, &world, q, v, qdd, fext, w->tau);
  values(m, d, w, v, qdd);
  double *outs[] = {d2tau_dq2, d2tau_dv2, d2tau_dqdv, dM_dq};
  for (size_t k = 0; k < 4; k++)
    if (outs[k]) memset(outs[k], 0, n3 * sizeof(double));
  for (int k = 0; k < m->nv; k++) {
    if (d2tau_dq2 || dM_dq) {
      tangents(m, d, w, v, qdd, 1, k);
      pairs(m, d, w, 1, k, d2tau_dq2, dM_dq);
    }
    if (d2tau_dv2 || d2tau_dqdv) {
      tangents(m, d, w, v, qdd, 0, k);
      pairs(m, d, w, 0, k, d2tau_dqdv, d2tau_dv2);
    }
  }
}

/* Y[., m, k] = -Minv X[., m, k] for every (m, k): X and Y are nv^3 tensors (may not alias) */
static void minv_neg_tensor(int nv, const double *Minv, const double *X, double *Y) {
  size_t n = (size_t)nv, n2 = n * n;
  memset(Y, 0, n2 * n * sizeof(double));
  for (size_t l = 0; l < n; l++)
    for (size_t c = 0; c < n; c++) {
      double s = -Minv[l * n + c];
      if (s == 0) continue;
      const double *x = X + c * n2;
      double *y = Y + l * n2;
      for (size_t r = 0; r < n2; r++) y[r] += s * x[r];
    }
}

/* X[l, m, k] += sum_c dM[l, c, m] A[c, k] (the term dM_m a_x[., k]); with swap, X[l, m, k] +=
 * sum_c dM[l, c, k] A[c, m] (dM_k a_x[., m]) */
static void add_dM_times(int nv, const double *dM, const double *A, int swap, double *X) {
  size_t n = (size_t)nv, n2 = n * n;
  for (size_t l = 0; l < n; l++)
    for (size_t c = 0; c < n; c++) {
      const double *dMlc = dM + l * n2 + c * n; /* dM[l, c, .] */
      const double *Ac = A + c * n;
      double *Xl = X + l * n2;
      for (size_t a = 0; a < n; a++) {
        double s = dMlc[a];
        if (s == 0) continue;
        /* a plays m (no swap) or k (swap) */
        if (!swap)
          for (size_t b = 0; b < n; b++) Xl[a * n + b] += s * Ac[b];
        else
          for (size_t b = 0; b < n; b++) Xl[b * n + a] += s * Ac[b];
      }
    }
}

int hg_aba_second_derivatives(const hg_model *m, hg_data *d, hg_deriv2 *w, const double *q,
                              const double *v, const double *tau, const double *fext,
                              double *qdd, double *d2qdd_dq2, double *d2qdd_dv2,
                              double *d2qdd_dqdv, double *d2qdd_dqdtau) {
  int nv = m->nv;
  size_t n = (size_t)nv, n3 = n * n * n;
  /* the first-order derivatives, M^-1 and qdd */
  if (hg_aba_derivatives(m, d, w->w1, q, v, tau, fext, w->qdd, w->aq, w->av, w->Minv))
    return -1;
  if (qdd) memcpy(qdd, w->qdd, n * sizeof(double));
  /* the inverse-dynamics second derivatives at the acceleration ABA found */
  hg_rnea_second_derivatives(m, d, w, q, v, w->qdd, fext, d2qdd_dq2 ? w->t_qq : NULL,
                             d2qdd_dv2 ? w->t_vv : NULL, d2qdd_dqdv ? w->t_qv : NULL, w->t_M);
  if (d2qdd_dq2) {
    /* -M^-1 (ID_qq[., m, k] + dM_m a_q[., k] + dM_k a_q[., m]) */
    memcpy(w->X, w->t_qq, n3 * sizeof(double));
    add_dM_times(nv, w->t_M, w->aq, 0, w->X);
    add_dM_times(nv, w->t_M, w->aq, 1, w->X);
    minv_neg_tensor(nv, w->Minv, w->X, d2qdd_dq2);
  }
  if (d2qdd_dv2) minv_neg_tensor(nv, w->Minv, w->t_vv, d2qdd_dv2);
  if (d2qdd_dqdv) {
    /* -M^-1 (ID_qv[., m, k] + dM_m a_v[., k]) */
    memcpy(w->X, w->t_qv, n3 * sizeof(double));
    add_dM_times(nv, w->t_M, w->av, 0, w->X);
    minv_neg_tensor(nv, w->Minv, w->X, d2qdd_dqdv);
  }
  if (d2qdd_dqdtau) {
    /* -M^-1 dM_m M^-1[., k] */
    memset(w->X, 0, n3 * sizeof(double));
    add_dM_times(nv, w->t_M, w->Minv, 0, w->X);
    minv_neg_tensor(nv, w->Minv, w->X, d2qdd_dqdtau);
  }
  return 0;
}
