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
#include "lanes.h"

/* the derivatives' pass (derivatives.c): every tree in the world's frame, tree-frame factors */
static const hg_pass_options world = {.tree_frame = 1, .world_frame = 1};

hg_deriv2 *hg_deriv2_new(const hg_model *m) {
  hg_deriv2 *w = calloc(1, sizeof *w);
  if (!w) return NULL;
  size_t nv = (size_t)m->nv, nb = (size_t)m->nbody, n1 = 6 * nv + 1, n3 = nv * nv * nv + 1;
  w->nv = m->nv;
  w->nbody = m->nbody;
  double **dof[] = {&w->Vb, &w->ab, &w->Vm, &w->nu, &w->al, &w->mu, &w->rI, &w->rB,
                    &w->y,  &w->g,  &w->h,  &w->dS, &w->dVb, &w->dab, &w->dVm, &w->dnu,
                    &w->dal, &w->dmu, &w->drI, &w->drB, &w->dg, &w->dh, &w->Inu};
  double **body36[] = {&w->G, &w->B, &w->Ic, &w->Bc, &w->BcT, &w->dIc, &w->dBc, &w->dBcT};
  double **body6[] = {&w->dV, &w->da, &w->dF};
  double **sq[] = {&w->aq, &w->av, &w->Minv, &w->U, &w->au};
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
  ok &= !!(w->soa = calloc(6 * 15 * nv + 4, sizeof(double))); /* + 3: the lane sweeps' reads */
  ok &= !!(w->qdd = calloc(nv + 1, sizeof(double)));
  ok &= !!(w->idx = calloc(nv + 1, sizeof(int)));
  ok &= !!(w->path = calloc(nb + 1, sizeof(int)));
  ok &= !!(w->w1 = hg_deriv_new(m));
  if (!ok) {
    hg_deriv2_free(w);
    return NULL;
  }
  return w;
}

void hg_deriv2_free(hg_deriv2 *w) {
  if (!w) return;
  double *p[] = {w->Vb, w->ab, w->Vm, w->nu, w->al, w->mu, w->rI, w->rB, w->y, w->g, w->h,
                 w->dS, w->dVb, w->dab, w->dVm, w->dnu, w->dal, w->dmu, w->drI, w->drB, w->dg,
                 w->dh, w->Inu, w->G, w->B, w->Ic, w->Bc, w->BcT, w->dIc, w->dBc, w->dBcT, w->dV,
                 w->da, w->dF, w->tau, w->qdd, w->aq, w->av, w->Minv, w->t_qq, w->t_vv,
                 w->t_qv, w->t_M, w->X, w->soa, w->U, w->au};
  for (size_t k = 0; k < sizeof p / sizeof *p; k++) free(p[k]);
  free(w->idx);
  free(w->path);
  hg_deriv_free(w->w1);
  free(w);
}

/* ---- 6-vectors and 6 x 6 matrices (row-major) ---- */

static inline void v6_zero(double *x) { memset(x, 0, 6 * sizeof(double)); }
static inline void v6_axpy(double s, const double *x, double *y) {
  for (int r = 0; r < 6; r++) y[r] += s * x[r];
}
/* y += A x for a symmetric A (an inertia, a sum of them, its change): A's rows are its columns */
HG_INLINE void sym_mulv_add(const double *A, const double *x, double *y) {
  hg_lane6_mulTv_add(A, x, y);
}
/* y += A x and y = A^T x for a general A given as A itself and AT = A^T, both row-major (the
 * products read rows: hg_lane6_mulTv) */
HG_INLINE void gen_mulv_add(const double *AT, const double *x, double *y) {
  hg_lane6_mulTv_add(AT, x, y);
}
HG_INLINE void gen_mulTv(const double *A, const double *x, double *y) { hg_lane6_mulTv(A, x, y); }
/* AT = A^T (6 x 6) */
static inline void m6_transpose(const double *A, double *AT) {
  for (int r = 0; r < 6; r++)
    for (int c = 0; c < 6; c++) AT[6 * c + r] = A[6 * r + c];
}
/* Y -= P + P^T */
static inline void m6_sub_sym(const double *P, double *Y) {
  for (int r = 0; r < 6; r++)
    for (int c = 0; c < 6; c++) Y[6 * r + c] -= P[6 * r + c] + P[6 * c + r];
}
/* y = V x* F = -ad_V^T F (add: y += V x* F) */
static inline void cross_star(const double V[6], const double F[6], double y[6], int add) {
  double t[6];
  hg_lane3_ad_star(V, F, t);
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
  /* G symmetric: G ad_V + ad_V^T G = P + P^T with P = G ad_V */
  double A[36], P[36], GV[6] = {0};
  hg_ad_matrix(V, A);
  hg_lane6_mul(G, A, P);
  memset(B, 0, 36 * sizeof(double));
  m6_sub_sym(P, B);
  sym_mulv_add(G, V, GV);
  coad_matrix_add(GV, B);
}

/* 1 when DoF k carries DoF l (perturbing q_k turns S_l): k's body a strict ancestor of l's, or
 * one joint and hg_joint_dof_carries; bodies of k and l must be related */
static inline int carries(const hg_model *m, int k, int l) {
  int j = m->dof_body[k], i = m->dof_body[l];
  if (j != i) return j < i;
  return hg_joint_dof_carries(m->jnt[j].type, k - m->v_adr[j], l - m->v_adr[j]);
}

/* the rows of the structure-of-arrays copy w->soa: component r of quantity X of DoF m at
 * soa[(6 X + r) nv + m], so that a row of a slice sweeps consecutive DoFs */
enum { X_AL, X_NU, X_MU, X_S, X_G, X_H, X_RI, X_DAL, X_DNU, X_DMU, X_DS, X_DG, X_DH, X_DRI,
       X_DGP, X_N };
_Static_assert(X_N == 15, "hg_deriv2_new allocates 15 quantities of w->soa");
static inline double *soa(const hg_deriv2 *w, int X) { return w->soa + (size_t)6 * X * w->nv; }
/* DoF l's 6-vector x into quantity X of the SoA copy */
static inline void soa_put(hg_deriv2 *w, int X, int l, const double *x) {
  double *p = soa(w, X) + l;
  for (int r = 0; r < 6; r++) p[(size_t)r * w->nv] = x[r];
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
  for (int i = 1; i < m->nbody; i++) m6_transpose(w->Bc + 36 * (size_t)i, w->BcT + 36 * (size_t)i);
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
      hg_lane3_ad(Vb, S, nu);
      hg_lane3_ad(ab, S, al);
      hg_lane3_ad(nu, Vb, x);
      for (int r = 0; r < 6; r++) al[r] -= x[r];
      hg_lane3_ad(w->Vm + 6 * k, S, mu);
      for (int r = 0; r < 6; r++) mu[r] += nu[r];
      if (chain) {
        /* the next DoF rides on this one: ab += S qdd + nu v, Vb += S v */
        for (int r = 0; r < 6; r++) ab[r] += S[r] * qdd[k] + nu[r] * v[k], Vb[r] += S[r] * v[k];
      }
    }
  }
  /* per DoF l of body i: rI = Ic_i S_l, rB = Bc_i^T S_l, Inu = Ic_i nu_l, y = Ic_i alpha_l + Bc_i
   * nu_l, g = y + S_l x* F_i, h = Ic_i mu_l + Bc_i S_l (the first-order rows and wrench changes) */
  for (int l = 0; l < m->nv; l++) {
    int i = m->dof_body[l];
    const double *Ic = w->Ic + 36 * (size_t)i, *Bc = w->Bc + 36 * (size_t)i, *S = d->S[l];
    const double *BcT = w->BcT + 36 * (size_t)i;
    double *rI = w->rI + 6 * l, *y = w->y + 6 * l, *g = w->g + 6 * l, *h = w->h + 6 * l;
    double *Inu = w->Inu + 6 * l;
    v6_zero(rI), v6_zero(y), v6_zero(h), v6_zero(Inu);
    sym_mulv_add(Ic, S, rI);
    gen_mulTv(Bc, S, w->rB + 6 * l);
    sym_mulv_add(Ic, w->nu + 6 * l, Inu);
    sym_mulv_add(Ic, w->al + 6 * l, y);
    gen_mulv_add(BcT, w->nu + 6 * l, y);
    cross_star(S, d->F[i], g, 0);
    v6_axpy(1, y, g);
    sym_mulv_add(Ic, w->mu + 6 * l, h);
    gen_mulv_add(BcT, S, h);
    soa_put(w, X_AL, l, w->al + 6 * l);
    soa_put(w, X_NU, l, w->nu + 6 * l);
    soa_put(w, X_MU, l, w->mu + 6 * l);
    soa_put(w, X_S, l, S);
    soa_put(w, X_G, l, g);
    soa_put(w, X_H, l, h);
    soa_put(w, X_RI, l, rI);
  }
}

/* the changes along direction k (dq: a tangent component of q, else a rate v_k) of the DoFs'
 * twists in the subtree of k's body j: dS, dVb, dab, dVm, dnu, dalpha, dmu per DoF, from the
 * recursion of the velocities and accelerations (along a chain Vb_{m+1} = Vb_m + S_m v_m,
 * ab_{m+1} = ab_m + S_m qdd_m + nu_m v_m from (V, a) of the parent, the body's (V, a) after its
 * last DoF; for spherical and free joints every DoF has Vb = V_parent and (V, a) of the body are
 * the sums over all its DoFs); dV, da per body; and dF for the bodies of the subtree */
HG_HOT static void tangents(const hg_model *m, const hg_data *d, hg_deriv2 *w, const double *v,
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
      if (dq && carries(m, k, l)) hg_lane3_ad(Sk, S, dS);
      else v6_zero(dS);
      memcpy(w->dVb + 6 * l, dVb, sizeof dVb);
      memcpy(w->dab + 6 * l, dab, sizeof dab);
      /* dnu = dVb x S + Vb x dS (dS = 0 along v_k) */
      hg_lane3_ad(dVb, S, dnu);
      if (dq) {
        hg_lane3_ad(Vb, dS, x);
        for (int r = 0; r < 6; r++) dnu[r] += x[r];
      }
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
      const double *Vb = w->Vb + 6 * l, *ab = w->ab + 6 * l;
      const double *nu = w->nu + 6 * l, *dnu = w->dnu + 6 * l;
      const double *dVbl = w->dVb + 6 * l, *dabl = w->dab + 6 * l;
      double *dVm = w->dVm + 6 * l, *dal = w->dal + 6 * l, *dmu = w->dmu + 6 * l, x[6];
      /* dalpha = dab x S + ab x dS - dnu x Vb - nu x dVb */
      hg_lane3_ad(dabl, S, dal);
      if (dq) {
        hg_lane3_ad(ab, dS, x);
        v6_axpy(1, x, dal);
      }
      hg_lane3_ad(dnu, Vb, x);
      v6_axpy(-1, x, dal);
      hg_lane3_ad(nu, dVbl, x);
      v6_axpy(-1, x, dal);
      /* dmu = dVm x S + Vm x dS + dnu, along v_k only (no slice along q_k reads it), where dS = 0 */
      if (dq) continue;
      memcpy(dVm, chain ? dVbl : dV, 6 * sizeof(double));
      hg_lane3_ad(dVm, S, dmu);
      for (int r = 0; r < 6; r++) dmu[r] += dnu[r];
    }
    /* dF_b = S_k x* F_b + Ic_b alpha_k + Bc_b nu_k (q), Ic_b mu_k + Bc_b S_k (v) */
    double *dF = w->dF + 6 * b;
    const double *Ic = w->Ic + 36 * (size_t)b, *BcT = w->BcT + 36 * (size_t)b;
    if (dq) {
      cross_star(Sk, d->F[b], dF, 0);
      sym_mulv_add(Ic, w->al + 6 * k, dF);
      gen_mulv_add(BcT, w->nu + 6 * k, dF);
    } else {
      v6_zero(dF);
      sym_mulv_add(Ic, w->mu + 6 * k, dF);
      gen_mulv_add(BcT, Sk, dF);
    }
  }
}

/* the changes along direction k of the rows of c's DoFs l: drI_l = d(Ic_c S_l), drB_l =
 * d(Bc_c^T S_l), dg_l = d(Ic_c alpha_l + Bc_c nu_l + S_l x* F_c), dh_l = d(Ic_c mu_l + Bc_c S_l).
 * In j's subtree (sub) everything moves rigidly by exp(e S_k) with the common twist change n
 * (nu_k along q_k, S_k along v_k), so X = Ic or Bc change as dX y = S_k x* (X y) - X (S_k x y)
 * (q only) plus, for Bc, P y with P = B_Ic(n); writing e_l = dS_l - S_k x S_l (zero where k
 * carries l) and y = Ic alpha_l + Bc nu_l:
 *   drI = S_k x* rI + Ic e_l,   drB = S_k x* rB + Bc^T e_l + P^T S_l,
 *   dg = S_k x* y + Ic (dalpha - S_k x alpha) + Bc (dnu - S_k x nu) + P nu + dS x* F + S x* dF,
 *   dh = S_k x* h + Ic (dmu - S_k x mu) + Bc e_l + P S_l
 * (along v_k: S_k x terms dropped, e_l = 0). Above j (not sub) only the sums change, by the
 * matrices dIc, dBc of j's subtree (in w->dIc, w->dBc at j) and dF_j. Each pass forms what its
 * slices read (pairs): along q_k drI, drB and dg (dh enters no slice of d2tau_dq2 or dM_dq),
 * along v_k drB, dg and dh (drI = 0: dIc is zero). In j's subtree the columns' changes beyond
 * the turn go to the SoA copy (X_DAL, X_DNU, X_DS along q_k; X_DAL, X_DNU, X_DMU along v_k). */
HG_HOT static void row_changes(const hg_model *m, const hg_data *d, hg_deriv2 *w, int dq, int k, int c,
                        int sub) {
  int j = m->dof_body[k], vc = m->v_adr[c], nc = m->jnt_nv[c];
  const double *Sk = d->S[k];
  const double *Ic = w->Ic + 36 * (size_t)c, *Bc = w->Bc + 36 * (size_t)c;
  const double *BcT = w->BcT + 36 * (size_t)c;
  const double *F = d->F[c], *dF = w->dF + 6 * (sub ? c : j);
  const double *n = dq ? w->nu + 6 * k : Sk;
  /* in j's subtree: Gn = Ic n, shared by the rows' P terms (B_Ic(n) x = -Ic (n x x) + n x* (Ic
   * x) + x x* (Ic n), and P^T x = n x* (Ic x) - Ic (n x x) - x x* (Ic n)) */
  double Gn[6] = {0, 0, 0, 0, 0, 0};
  if (sub) sym_mulv_add(Ic, n, Gn);
  for (int l = vc; l < vc + nc; l++) {
    const double *S = d->S[l], *al = w->al + 6 * l, *nu = w->nu + 6 * l;
    double *drI = w->drI + 6 * l, *drB = w->drB + 6 * l, *dg = w->dg + 6 * l, *dh = w->dh + 6 * l;
    double t[6];
    if (!sub) {
      const double *dIc = w->dIc + 36 * (size_t)j, *dBc = w->dBc + 36 * (size_t)j;
      const double *dBcT = w->dBcT + 36 * (size_t)j;
      v6_zero(dg);
      gen_mulTv(dBc, S, drB);
      gen_mulv_add(dBcT, nu, dg);
      cross_star(S, dF, dg, 1);
      if (dq) {
        v6_zero(drI);
        sym_mulv_add(dIc, S, drI);
        sym_mulv_add(dIc, al, dg);
      } else {
        gen_mulTv(dBcT, S, dh); /* dBc S: the rows of dBc^T */
      }
      continue;
    }
    const double *dS = w->dS + 6 * l, *dal = w->dal + 6 * l, *dnu = w->dnu + 6 * l;
    double el[6], xa[6], xn[6];
    if (dq) {
      hg_lane3_ad(Sk, S, t);
      for (int r = 0; r < 6; r++) el[r] = dS[r] - t[r];
      hg_lane3_ad(Sk, al, t);
      for (int r = 0; r < 6; r++) xa[r] = dal[r] - t[r];
      hg_lane3_ad(Sk, nu, t);
      for (int r = 0; r < 6; r++) xn[r] = dnu[r] - t[r];
      cross_star(Sk, w->rI + 6 * l, drI, 0);
      cross_star(Sk, w->rB + 6 * l, drB, 0);
      cross_star(Sk, w->y + 6 * l, dg, 0);
      /* where k does not carry l (within j's joint): the Ic e_l and Bc^T e_l terms */
      if (!carries(m, k, l)) {
        sym_mulv_add(Ic, el, drI);
        gen_mulTv(Bc, el, t);
        v6_axpy(1, t, drB);
      }
      soa_put(w, X_DS, l, el);
    } else {
      const double *dmu = w->dmu + 6 * l;
      memcpy(xa, dal, sizeof xa), memcpy(xn, dnu, sizeof xn);
      v6_zero(drB), v6_zero(dg), v6_zero(dh);
      sym_mulv_add(Ic, dmu, dh);
      soa_put(w, X_DMU, l, dmu);
    }
    /* the columns' changes beyond the turn (pairs): along q_k a product of two quantities that
     * both turn with j's subtree keeps its value under the turn alone, so only these parts of
     * the column's changes enter it (along v_k nothing turns: they are the whole changes) */
    soa_put(w, X_DAL, l, xa);
    soa_put(w, X_DNU, l, xn);
    /* the P terms from IP = Ic (n x S), n x* rI, S x* Gn:
     *   drB += P^T S = n x* rI - IP - S x* Gn,   dh += P S = -IP + n x* rI + S x* Gn,
     *   dg += Ic xa + Bc xn + P nu = Ic (xa - n x nu) + Bc xn + n x* Inu + nu x* Gn */
    double IP[6] = {0, 0, 0, 0, 0, 0}, nrI[6], SGn[6];
    hg_lane3_ad(n, S, t);
    sym_mulv_add(Ic, t, IP);
    cross_star(n, w->rI + 6 * l, nrI, 0);
    cross_star(S, Gn, SGn, 0);
    for (int r = 0; r < 6; r++) drB[r] += nrI[r] - IP[r] - SGn[r];
    if (!dq)
      for (int r = 0; r < 6; r++) dh[r] += nrI[r] - IP[r] + SGn[r];
    hg_lane3_ad(n, nu, t);
    for (int r = 0; r < 6; r++) xa[r] -= t[r];
    sym_mulv_add(Ic, xa, dg);
    gen_mulv_add(BcT, xn, dg);
    cross_star(n, w->Inu + 6 * l, dg, 1);
    cross_star(nu, Gn, dg, 1);
    cross_star(dS, F, dg, 1);
    cross_star(S, dF, dg, 1);
  }
}

/* R[i] = sum over the n terms (a_p, X_p) of a_p . X_p[., i] for i in [m0, m1) (R may be NULL):
 * hg_lane_soa_dots on the SoA copies (n is a constant where this is inlined) */
HG_INLINE void dots(const hg_deriv2 *w, int n, const double *const *a, const int *X, int m0,
                    int m1, double *R) {
  if (!R || m0 >= m1) return;
  const double *x[4];
  for (int i = 0; i < n; i++) x[i] = soa(w, X[i]);
  hg_lane_soa_dots(n, a, x, (size_t)w->nv, m0, m1, R);
}

/* columns [a, b) of the rows R1 and R2 (either may be NULL) = 0: where neither the column's
 * DoF nor the row's is related to direction k's, the tensors are zero */
static inline void zero_cols(double *R1, double *R2, int a, int b) {
  if (a >= b) return;
  if (R1) memset(R1 + a, 0, (size_t)(b - a) * sizeof(double));
  if (R2) memset(R2 + a, 0, (size_t)(b - a) * sizeof(double));
}

/* the outputs of one direction k, slice k of the tensors (T[l, m, k] at (k nv + l) nv + m),
 * row by row, each entry written once: a row l on body c is non-zero only when c is in the
 * subtree of k's body j or on j's path, and then only in the columns of c's ancestors (the
 * first-order ranges), of c's path toward j and of j's subtree (or of c's subtree when c is in
 * j's); the other entries are written as zeros. With the first-order entries of derivatives2.c's
 * top, along k:
 *   columns m of c and its ancestors (m carries l, or one joint):
 *     d tau_l/d q_m: drI_l . alpha_m + rI_l . dalpha_m + drB_l . nu_m + rB_l . dnu_m (and, where
 *     m does not carry l, d(S_l . S_m x* F_c)); M_lm: drI_l . S_m + rI_l . dS_m;
 *     d tau_l/d v_m: drI_l . mu_m + rI_l . dmu_m + drB_l . S_m;
 *   columns m below c: d tau_l/d q_m: dS_l . g_m + S_l . dg_m; M_lm: dS_l . rI_m + S_l . drI_m;
 *     d tau_l/d v_m: S_l . dh_m.
 * The changes of m's twists (dalpha, dnu, dmu, dS) vanish outside j's subtree (m below j's first
 * DoF jv) and dS_l outside it, so those columns take the products with the row's changes only;
 * along v_k nothing turns (dS = 0) and dIc = 0, so drI = 0 as well. dq: T1 = d2tau_dq2, T2 =
 * dM_dq; else T1 = d2tau_dqdv, T2 = d2tau_dv2. */
HG_HOT static void pairs(const hg_model *m, const hg_data *d, hg_deriv2 *w, int dq, int k,
                         double *T1, double *T2) {
  static const double zero[6] = {0, 0, 0, 0, 0, 0};
  size_t nv = (size_t)m->nv;
  int j = m->dof_body[k], e = m->subtree_end[j];
  int jv = m->v_adr[j], je = e < m->nbody ? m->v_adr[e] : m->nv, jn = jv + m->jnt_nv[j];
  /* the sums' changes above j: dIc_j = -ad^T Ic_j - Ic_j ad (ad = ad_{S_k}, q only), dBc_j =
   * -ad^T Bc_j - Bc_j ad + B_{Ic_j}(n) (n = nu_k along q_k, S_k along v_k) */
  if (m->parent[j] > 0) {
    const double *Ic = w->Ic + 36 * (size_t)j, *Bc = w->Bc + 36 * (size_t)j;
    double *dIc = w->dIc + 36 * (size_t)j, *dBc = w->dBc + 36 * (size_t)j;
    memset(dIc, 0, 36 * sizeof(double));
    body_B(Ic, dq ? w->nu + 6 * k : d->S[k], dBc);
    if (dq) {
      double A[36];
      hg_ad_matrix(d->S[k], A);
      /* Ic symmetric: ad^T Ic + Ic ad = P + P^T with P = Ic ad; ad^T Bc = (Bc^T ad)^T */
      double P[36];
      hg_lane6_mul(Ic, A, P);
      m6_sub_sym(P, dIc);
      hg_lane6_mul(Bc, A, P);
      for (int x = 0; x < 36; x++) dBc[x] -= P[x];
      hg_lane6_mul(w->BcT + 36 * (size_t)j, A, P);
      for (int r = 0; r < 6; r++)
        for (int c = 0; c < 6; c++) dBc[6 * r + c] -= P[6 * c + r];
    }
    m6_transpose(dBc, w->dBcT + 36 * (size_t)j);
  }
  /* the SoA copies of the changes the sweeps read: the twists' of j's subtree (row_changes), the
   * rows' of j's path and subtree, and along q_k in j's subtree dg less its turn, dg - S_k x* g */
  int np = 0;
  for (int c = j; c > 0; c = m->parent[c]) {
    int sub = c == j;
    w->path[np++] = c;
    for (int b = c; b < (sub ? e : c + 1); b++) {
      row_changes(m, d, w, dq, k, b, sub);
      for (int l = m->v_adr[b]; l < m->v_adr[b] + m->jnt_nv[b]; l++) {
        soa_put(w, X_DG, l, w->dg + 6 * l);
        if (dq) soa_put(w, X_DRI, l, w->drI + 6 * l);
        else soa_put(w, X_DH, l, w->dh + 6 * l);
        if (dq && sub) {
          double t[6];
          cross_star(d->S[k], w->g + 6 * l, t, 0);
          for (int r = 0; r < 6; r++) t[r] = w->dg[6 * l + r] - t[r];
          soa_put(w, X_DGP, l, t);
        }
      }
    }
  }
  /* the rows, body by body: t indexes c in the path (deepest first) when c is above j */
  const hg_deriv *w1 = w->w1;
  double *S1 = T1 ? T1 + (size_t)k * nv * nv : NULL, *S2 = T2 ? T2 + (size_t)k * nv * nv : NULL;
  for (int c = 1, t = np - 1; c < m->nbody; c++) {
    int vc = m->v_adr[c], nc = m->jnt_nv[c], l0 = vc + nc;
    int sub = c >= j && c < e, above = c < j && m->subtree_end[c] > j;
    if (!sub && !above) {
      /* off j's path and subtree: zero rows */
      if (S1) memset(S1 + (size_t)vc * nv, 0, (size_t)nc * nv * sizeof(double));
      if (S2) memset(S2 + (size_t)vc * nv, 0, (size_t)nc * nv * sizeof(double));
      continue;
    }
    if (above)
      while (w->path[t] != c) t--;
    int ce = m->subtree_end[c], cend = ce < m->nbody ? m->v_adr[ce] : m->nv;
    const int *rg = w1->ranges + 2 * w1->range_adr[c];
    int nr = w1->range_adr[c + 1] - w1->range_adr[c];
    const double *F = d->F[c], *dF = w->dF + 6 * (sub ? c : j);
    for (int l = vc; l < l0; l++) {
      const double *Sl = d->S[l], *dSl = sub ? w->dS + 6 * l : zero;
      const double *rI = w->rI + 6 * l, *rB = w->rB + 6 * l;
      const double *drI = w->drI + 6 * l, *drB = w->drB + 6 * l;
      double *R1 = S1 ? S1 + (size_t)l * nv : NULL, *R2 = S2 ? S2 + (size_t)l * nv : NULL;
      int col = 0; /* the columns before col are written */
      /* along q_k in j's subtree: the row's changes less their turn (drI - S_k x* rI, drB -
       * S_k x* rB), and lcar when k carries l (then S_l turns, dS_l = S_k x S_l, and drI has
       * nothing beyond its turn) */
      int lcar = dq && sub && carries(m, k, l);
      double drIp[6], drBp[6];
      if (dq && sub) {
        cross_star(d->S[k], rI, drIp, 0);
        cross_star(d->S[k], rB, drBp, 0);
        for (int r = 0; r < 6; r++) drIp[r] = drI[r] - drIp[r], drBp[r] = drB[r] - drBp[r];
      }
      /* c and its ancestors: the ranges (ascending), the first cut at c's last DoF; the part
       * before jv, then the part in j's subtree */
      for (int r = nr - 1; r >= 0; r--) {
        int m0 = rg[2 * r], m1 = r ? rg[2 * r + 1] : l0;
        int o1 = m1 < jv ? m1 : jv, i0 = m0 > jv ? m0 : jv;
        zero_cols(R1, R2, col, m0);
        col = m1;
        if (dq) {
          const double *a1[2] = {drI, drB}, *a2[1] = {drI};
          const int X1[2] = {X_AL, X_NU}, X2[1] = {X_S};
          dots(w, 2, a1, X1, m0, o1, R1);
          dots(w, 1, a2, X2, m0, o1, R2);
          /* m in j's joint or below (l in j's subtree): both factors of each product turn with
           * the subtree, so the turn's parts cancel and the parts beyond it remain (the
           * columns' X_DAL, X_DNU, X_DS: row_changes). Where k carries l, drI has none, and the
           * columns' dS - S_k x S_m is zero past j's joint: dM's entries there vanish */
          if (lcar) {
            const double *b1[3] = {rI, drBp, rB}, *b2[1] = {rI};
            const int Y1[3] = {X_DAL, X_NU, X_DNU}, Y2[1] = {X_DS};
            int i1 = m1 < jn ? m1 : jn;
            dots(w, 3, b1, Y1, i0, m1, R1);
            dots(w, 1, b2, Y2, i0, i1, R2);
            zero_cols(NULL, R2, i1 > i0 ? i1 : i0, m1);
          } else {
            const double *b1[4] = {drIp, rI, drBp, rB}, *b2[2] = {drIp, rI};
            const int Y1[4] = {X_AL, X_DAL, X_NU, X_DNU}, Y2[2] = {X_S, X_DS};
            dots(w, 4, b1, Y1, i0, m1, R1);
            dots(w, 2, b2, Y2, i0, m1, R2);
          }
        } else {
          const double *a1[1] = {drB}, *a2[1] = {drB};
          const int X1[1] = {X_NU}, X2[1] = {X_S};
          dots(w, 1, a1, X1, m0, o1, R1);
          dots(w, 1, a2, X2, m0, o1, R2);
          const double *b1[3] = {rI, drB, rB}, *b2[2] = {rI, drB};
          const int Y1[3] = {X_DAL, X_NU, X_DNU}, Y2[2] = {X_DMU, X_S};
          dots(w, 3, b1, Y1, i0, m1, R1);
          dots(w, 2, b2, Y2, i0, m1, R2);
        }
      }
      /* within c's joint, where m does not carry l: + d(S_l . S_m x* F_c) */
      for (int mm = vc; R1 && mm < l0; mm++) {
        if (carries(m, mm, l)) continue;
        const double *Sm = d->S[mm], *dSm = sub ? w->dS + 6 * mm : zero;
        double x[6], dx[6];
        cross_star(Sm, F, x, 0);
        cross_star(dSm, F, dx, 0);
        cross_star(Sm, dF, dx, 1);
        R1[mm] += hg_dot6(dSl, x) + hg_dot6(Sl, dx);
      }
      /* below c: c's subtree (c in j's subtree), else the DoFs of the path from c toward j
       * (path[t - 1] .. path[1]) and j's subtree, in runs of consecutive DoFs */
      for (int s = sub ? 0 : t - 1; s >= 0; s--) {
        int s0, s1;
        if (sub) s0 = l0, s1 = cend;
        else if (s == 0) s0 = jv, s1 = je;
        else s0 = m->v_adr[w->path[s]], s1 = s0 + m->jnt_nv[w->path[s]];
        /* the next path bodies' DoFs that follow on */
        while (!sub && s > 0) {
          int p = w->path[s - 1], a = s - 1 ? m->v_adr[p] : jv;
          int b = s - 1 ? a + m->jnt_nv[p] : je;
          if (a != s1) break;
          s1 = b, s--;
        }
        if (s0 >= s1) continue;
        zero_cols(R1, R2, col, s0);
        col = s1;
        if (lcar) {
          /* dS_l . g_m + S_l . dg_m = S_l . (dg_m - S_k x* g_m); dM: S_l . (drI_m - S_k x*
           * rI_m) = 0, as m below c is carried by k */
          const double *a1[1] = {Sl};
          const int X1[1] = {X_DGP};
          dots(w, 1, a1, X1, s0, s1, R1);
          zero_cols(NULL, R2, s0, s1);
        } else {
          const double *a1[1] = {Sl}, *a2[1] = {Sl};
          const int X1[1] = {X_DG}, X2[1] = {dq ? X_DRI : X_DH};
          dots(w, 1, a1, X1, s0, s1, R1);
          dots(w, 1, a2, X2, s0, s1, R2);
        }
        if (sub) break;
      }
      zero_cols(R1, R2, col, m->nv);
    }
  }
}

void hg_rnea_second_derivatives(const hg_model *m, hg_data *d, hg_deriv2 *w, const double *q,
                                const double *v, const double *qdd, const double *fext,
                                double *d2tau_dq2, double *d2tau_dv2, double *d2tau_dqdv,
                                double *dM_dq) {
  hg_rnea_opt(m, d, &world, q, v, qdd, fext, w->tau);
  values(m, d, w, v, qdd);
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

/* the first column of slice k that minv_neg_tensor forms under sym (the others are copied) */
static inline size_t sym_first_column(const hg_model *m, int sym, size_t k) {
  return sym == 1 ? (size_t)m->v_adr[m->dof_body[k]] : sym == 2 ? k : 0;
}

/* Y[., ., k] = -M^-1 X[., ., k] for every slice k (each an nv x nv matrix; X and Y nv^3
 * tensors in the layout of derivatives2.h, not aliased). Per slice the rows c of X_k that are
 * not zero (the tree's sparsity: c's body on the path or in the subtree of k's) are listed once
 * in w->idx; then, as in hg_aba_derivatives, the cheaper of (a) the product with Minv: row l of
 * Y_k = -sum over the listed c of Minv[l, c] X_k[c, .], accumulated in cache while the rows of
 * X_k stream past two at a time, nv^2 FMAs per listed row, and (b) with solve set (long
 * chains, hg_deriv's choice for the first order), the articulated recursion with a dense right-hand side on the last tree-frame articulated pass's
 * factors (hg_minv_solve_neg), about 37 FMAs per body and column (long chains).
 * sym: Y is symmetric in its last two indices, Y[l, m, k] = Y[l, k, m], for every m outside k's
 * joint (sym 1: the second derivatives along q, whose directions on two joints commute) or for
 * every m (sym 2: along v, a vector space); each slice k is then formed in the columns from
 * c0 = k's joint's first DoF (sym 1) or k (sym 2) on, and the columns before c0 are copied from
 * the slices before it: half of the products. X's columns before c0 are not read. */
HG_HOT static void minv_neg_tensor(const hg_model *m, hg_data *d, hg_deriv2 *w, int solve,
                                   int sym, const double *X, double *Y) {
  int nv = m->nv, *idx = w->idx;
  const double *Minv = w->Minv;
  size_t n = (size_t)nv, n2 = n * n;
  for (size_t k = 0; k < n; k++) {
    const double *Xk = X + k * n2;
    double *Yk = Y + k * n2;
    size_t c0 = sym_first_column(m, sym, k);
    size_t nz = 0;
    for (size_t c = 0; c < n; c++) {
      const double *x = Xk + c * n;
      size_t r = c0;
      while (r < n && x[r] == 0) r++;
      if (r < n) idx[nz++] = (int)c;
    }
    if (solve && (long)nz * nv > 37L * (m->nbody - 1)) {
      hg_minv_solve_neg(m, d, w->w1, NULL, Xk, nv, Yk);
      continue;
    }
    /* Y_k = -Minv[., idx] X_k[idx, .] in the columns from c0 */
    hg_lane_gemm(0, nv, (int)nz, (int)c0, nv, -1, Minv, n, idx, Xk, n, Yk, n);
  }
  /* the columns before c0 from the slices before: Y[l, m, k] = Y[l, k, m] (k >= m's c0) */
  for (size_t k = 0; sym && k < n; k++) {
    size_t c0 = sym_first_column(m, sym, k);
    for (size_t l = 0; l < n; l++)
      for (size_t c = 0; c < c0; c++) Y[k * n2 + l * n + c] = Y[c * n2 + l * n + k];
  }
}

/* the terms dM_m A[., k] of the identities, with dM_m = dM/dq_m (slice m of dM): X[l, m, k] +=
 * (dM_m A)[l, k]; with swap, X[l, m, k] += (dM_k A)[l, m]. U (nv^2 scratch) holds, per l, the
 * rows U[s, .] = dM_s[l, .] A, added to X transposed; idx (nv scratch) the inner indices that are
 * not zero. The products are hg_lane_gemm's. */
HG_HOT static void add_dM_times(int nv, const double *dM, const double *A, int swap, double *X,
                         double *U, int *idx) {
  size_t n = (size_t)nv, n2 = n * n;
  if (swap) {
    for (size_t s = 0; s < n; s++) {
      const double *D = dM + s * n2; /* dM_s: D[l, c] */
      /* slice s (= k) += dM_s A over the columns c of dM_s that are not zero (the tree's
       * sparsity: c and s related) */
      int nz = 0;
      for (size_t c = 0; c < n; c++) {
        size_t l = 0;
        while (l < n && D[l * n + c] == 0) l++;
        if (l < n) idx[nz++] = (int)c;
      }
      hg_lane_gemm(1, nv, nz, 0, nv, 1, D, n, idx, A, n, X + s * n2, n);
    }
    return;
  }
  for (size_t l = 0; l < n; l++) {
    /* U[s, .] = dM_s[l, .] A: rows s of the product of the matrix dM_.[l, .] (rows n^2 apart)
     * with A, over its columns c that are not zero (c related to l) */
    int nz = 0;
    for (size_t c = 0; c < n; c++) {
      size_t s = 0;
      while (s < n && dM[s * n2 + l * n + c] == 0) s++;
      if (s < n) idx[nz++] = (int)c;
    }
    hg_lane_gemm(0, nv, nz, 0, nv, 1, dM + l * n, n2, idx, A, n, U, n);
    /* X[k, l, s] += U[s, k] */
    for (size_t k = 0; k < n; k++) {
      double *restrict y = X + k * n2 + l * n;
      for (size_t s = 0; s < n; s++) y[s] += U[s * n + k];
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
  /* the recursion for -M^-1 X where the first-order routines chose it (long chains): with
   * products, humanoid32 ran 1.70e9 instructions per 100 calls, with the recursion on every
   * slice the size test passes 2.31e9 */
  int solve = !w->w1->product;
  if (qdd) memcpy(qdd, w->qdd, n * sizeof(double));
  /* the inverse-dynamics second derivatives at the acceleration ABA found */
  hg_rnea_second_derivatives(m, d, w, q, v, w->qdd, fext, d2qdd_dq2 ? w->t_qq : NULL,
                             d2qdd_dv2 ? w->t_vv : NULL, d2qdd_dqdv ? w->t_qv : NULL, w->t_M);
  if (d2qdd_dq2) {
    /* -M^-1 (ID_qq[., m, k] + dM_m a_q[., k] + dM_k a_q[., m]) */
    memcpy(w->X, w->t_qq, n3 * sizeof(double));
    add_dM_times(nv, w->t_M, w->aq, 0, w->X, w->U, w->idx);
    add_dM_times(nv, w->t_M, w->aq, 1, w->X, w->U, w->idx);
    minv_neg_tensor(m, d, w, solve, 1, w->X, d2qdd_dq2);
  }
  if (d2qdd_dv2) minv_neg_tensor(m, d, w, solve, 2, w->t_vv, d2qdd_dv2);
  if (d2qdd_dqdv) {
    /* -M^-1 (ID_qv[., m, k] + dM_m a_v[., k]) */
    memcpy(w->X, w->t_qv, n3 * sizeof(double));
    add_dM_times(nv, w->t_M, w->av, 0, w->X, w->U, w->idx);
    minv_neg_tensor(m, d, w, solve, 0, w->X, d2qdd_dqdv);
  }
  if (d2qdd_dqdtau) {
    /* -M^-1 dM_m M^-1[., k] */
    memset(w->X, 0, n3 * sizeof(double));
    add_dM_times(nv, w->t_M, w->Minv, 0, w->X, w->U, w->idx);
    minv_neg_tensor(m, d, w, solve, 0, w->X, d2qdd_dqdtau);
  }
  return 0;
}

/* out = the hybrid outputs' second derivative for X (see hg_hybrid_second_derivatives): rows of
 * free DoFs -M_FF^-1 X_F (Minv: M_FF^-1 embedded, zero elsewhere), the others X + M_.F out_F */
static void hybrid_map2(const hg_model *m, hg_data *d, hg_deriv2 *w, const double *X,
                        double *out) {
  size_t n = (size_t)m->nv, n2 = n * n;
  const double *M = w->w1->M;
  minv_neg_tensor(m, d, w, 0, 0, X, out);
  for (size_t k = 0; k < n; k++)
    for (size_t l = 0; l < n; l++) {
      if (d->mode[m->dof_body[l]] == HG_MODE_FREE) continue;
      double *o = out + k * n2 + l * n;
      memcpy(o, X + k * n2 + l * n, n * sizeof(double));
      for (size_t c = 0; c < n; c++) {
        double x = M[l * n + c];
        if (x == 0 || d->mode[m->dof_body[c]] != HG_MODE_FREE) continue;
        const double *z = out + k * n2 + c * n;
        for (size_t r = 0; r < n; r++) o[r] += x * z[r];
      }
    }
}

int hg_hybrid_second_derivatives(const hg_model *m, hg_data *d, hg_deriv2 *w, const double *q,
                                 const double *v, const double *u, const double *fext,
                                 double *y, double *d2y_dq2, double *d2y_dv2, double *d2y_dqdv,
                                 double *d2y_dqdu) {
  int nv = m->nv;
  size_t n = (size_t)nv, n2 = n * n, n3 = n2 * n;
  /* the first-order derivatives (into aq, av, au), y into qdd */
  if (hg_hybrid_derivatives(m, d, w->w1, q, v, u, fext, w->qdd, w->aq, w->av, w->au)) return -1;
  if (y) memcpy(y, w->qdd, n * sizeof(double));
  /* M_FF^-1 on the hybrid pass's factors, before the inverse dynamics below overwrite d */
  hg_minv_factored(m, d, w->w1, d->mode, w->Minv);
  /* the whole acceleration and its derivatives: y at free DoFs, u at prescribed ones, zero at
   * locked ones; the rows of d qdd / d x are zero where qdd is given (x = q, v), and d qdd / d u
   * is e_k at a prescribed DoF k */
  for (size_t l = 0; l < n; l++) {
    int mode = d->mode[m->dof_body[l]];
    if (mode != HG_MODE_FREE) {
      w->qdd[l] = mode == HG_MODE_PRESCRIBED ? u[l] : 0;
      for (size_t c = 0; c < n; c++) {
        w->aq[l * n + c] = w->av[l * n + c] = 0;
        w->au[l * n + c] = mode == HG_MODE_PRESCRIBED && c == l;
      }
    }
  }
  hg_rnea_second_derivatives(m, d, w, q, v, w->qdd, fext, d2y_dq2 ? w->t_qq : NULL,
                             d2y_dv2 ? w->t_vv : NULL, d2y_dqdv ? w->t_qv : NULL, w->t_M);
  if (d2y_dq2) {
    memcpy(w->X, w->t_qq, n3 * sizeof(double));
    add_dM_times(nv, w->t_M, w->aq, 0, w->X, w->U, w->idx);
    add_dM_times(nv, w->t_M, w->aq, 1, w->X, w->U, w->idx);
    hybrid_map2(m, d, w, w->X, d2y_dq2);
  }
  if (d2y_dv2) hybrid_map2(m, d, w, w->t_vv, d2y_dv2);
  if (d2y_dqdv) {
    memcpy(w->X, w->t_qv, n3 * sizeof(double));
    add_dM_times(nv, w->t_M, w->av, 0, w->X, w->U, w->idx);
    hybrid_map2(m, d, w, w->X, d2y_dqdv);
  }
  if (d2y_dqdu) {
    memset(w->X, 0, n3 * sizeof(double));
    add_dM_times(nv, w->t_M, w->au, 0, w->X, w->U, w->idx);
    hybrid_map2(m, d, w, w->X, d2y_dqdu);
  }
  return 0;
}
