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
 * This is the recursive structure of Bos, Traversaro, Pucci and Saccon ("Efficient geometric
 * linearization of moving-base rigid robot dynamics") and of Carpentier and Mansard's RNEA
 * derivatives, written for every joint type with the trivialization of joint.h.
 *
 * The armature (model.h) adds diag(armature) to M only: tau gains armature qdd, which depends on
 * neither q nor v.
 * Forward dynamics: qdd = M^-1 (tau - b) gives dqdd/dx = -M^-1 dtau/dx at qdd (x = q, v).
 * Hybrid dynamics: with F the free and P the prescribed DoFs, tau = ID(q, v, qdd) splits into
 * dqdd_F = -M_FF^-1 (dID_F - dtau_F + M_FP dqdd_P) and dtau_P = dID_P + M_PF dqdd_F + M_PP dqdd_P;
 * both read Z = -M_FF^-1 X and X + M Z for X = dtau/dq, dtau/dv and the input columns. */
#include <stdlib.h>
#include <string.h>

#include "derivatives.h"
#include "dynamics.h"
#include "lanes.h"

/* Every entry point works with every tree in the world's frame: the recursions differentiate the
 * classic formulation, in which a floating base's linear velocity enters the velocity products;
 * the Galilean frames the dynamics otherwise use (model.h) would make a root's linear rates act
 * through the transport term instead. They read the factors of the tree-frame articulated pass,
 * not the body-local one. */
static const hg_pass_options world = {.tree_frame = 1, .world_frame = 1};

/* the columns where the rows of body i's DoFs in an inverse-dynamics derivative (dtau/dq,
 * dtau/dv, M) may be non-zero: the DoFs of i's joint, of its subtree and of its ancestors, as
 * merged ranges [r[2k], r[2k + 1]) in descending order (the first holds i's own DoFs); returns
 * their number (at most the depth of i). r may be NULL (only the number). */
static int id_row_ranges(const hg_model *m, int i, int *r) {
  int e = m->subtree_end[i], n = 0;
  int lo = m->v_adr[i], hi = e < m->nbody ? m->v_adr[e] : m->nv;
  for (int j = m->parent[i]; j > 0; j = m->parent[j]) {
    int a = m->v_adr[j], b = a + m->jnt_nv[j];
    if (a == b) continue; /* no DoFs (a fixed joint) */
    if (b == lo) {
      lo = a;
      continue;
    }
    if (r) r[2 * n] = lo, r[2 * n + 1] = hi;
    n++;
    lo = a, hi = b;
  }
  if (r) r[2 * n] = lo, r[2 * n + 1] = hi;
  return n + 1;
}

/* 1 when every DoF of joint i carries every other (spherical, free) */
static int coupled(const hg_model *m, int i) {
  return m->jnt_nv[i] > 1 && hg_joint_dof_carries(m->jnt[i].type, m->jnt_nv[i] - 1, 0);
}

hg_deriv *hg_deriv_new(const hg_model *m) {
  hg_deriv *w = calloc(1, sizeof *w);
  if (!w) return NULL;
  size_t nv = (size_t)m->nv, nb = (size_t)m->nbody, n2 = nv * nv + 1, n1 = nv + 4;
  w->nv = m->nv;
  w->nbody = m->nbody;
  w->sums = calloc(nb * HG_DERIV_L_ROWS, sizeof(double));
  /* T: blocks of four DoFs, 32-byte aligned (a block is 33 x 32 bytes) */
  size_t tsize = (nv + 3) / 4 * HG_DERIV_T_ROWS * 4 * sizeof(double);
  w->T = aligned_alloc(32, tsize > 0 ? tsize : 32);
  if (w->T) memset(w->T, 0, tsize);
  w->Fm = calloc(6 * nv * nb + 1, sizeof(double));
  w->X = calloc(6 * nv + 1, sizeof(double));
  double **mat[] = {&w->dq, &w->dv, &w->M, &w->P, &w->Z};
  for (size_t k = 0; k < sizeof mat / sizeof *mat; k++) *mat[k] = calloc(n2, sizeof(double));
  double **vec[] = {&w->zero, &w->qdd, &w->tau, &w->tauh};
  for (size_t k = 0; k < sizeof vec / sizeof *vec; k++) *vec[k] = calloc(n1, sizeof(double));
  w->all_free = calloc(nb, 1);
  w->coupled = calloc(nb, 1);
  size_t lsize = (nv + 3) / 4 * HG_DERIV_L_ROWS * 4 * sizeof(double);
  w->L = aligned_alloc(32, lsize > 0 ? lsize : 32);
  if (w->L) memset(w->L, 0, lsize);
  w->range_adr = calloc(nb + 1, sizeof(int));
  int ok = w->sums && w->T && w->Fm && w->X && w->all_free && w->coupled && w->L &&
           w->range_adr;
  for (size_t k = 0; k < sizeof mat / sizeof *mat; k++) ok = ok && *mat[k];
  for (size_t k = 0; k < sizeof vec / sizeof *vec; k++) ok = ok && *vec[k];
  /* every body's row ranges, once */
  for (int i = 1; ok && i < m->nbody; i++)
    w->range_adr[i + 1] = w->range_adr[i] + id_row_ranges(m, i, NULL);
  if (ok) w->ranges = calloc(2 * (size_t)w->range_adr[nb] + 2, sizeof(int));
  if (!ok || !w->ranges) {
    hg_deriv_free(w);
    return NULL;
  }
  for (int i = 1; i < m->nbody; i++) {
    id_row_ranges(m, i, w->ranges + 2 * w->range_adr[i]);
    w->coupled[i] = (uint8_t)coupled(m, i);
  }
  /* a product with M^-1 costs nv FMAs per non-zero of dtau/dx; the recursion with a dense
   * right-hand side about 37 per body and column (1-DoF joints): products win on branched trees
   * and short chains (arm7, humanoid32, tree63, chain30), the recursion on long chains (chain100) */
  long nnz = 0;
  for (int l = 0; l < m->nv; l++) {
    int i = m->dof_body[l];
    for (int k = w->range_adr[i]; k < w->range_adr[i + 1]; k++)
      nnz += w->ranges[2 * k + 1] - w->ranges[2 * k];
  }
  w->product = nnz < 37L * (m->nbody - 1);
  return w;
}

void hg_deriv_free(hg_deriv *w) {
  if (!w) return;
  free(w->sums); free(w->T); free(w->Fm); free(w->X); free(w->all_free);
  free(w->coupled); free(w->L); free(w->range_adr); free(w->ranges);
  free(w->dq); free(w->dv); free(w->M); free(w->P); free(w->Z);
  free(w->zero); free(w->qdd); free(w->tau); free(w->tauh);
  free(w);
}

/* the rows of w->T (derivatives.h): per DoF k, alpha_k, the angular part of nu_k, mu_k, S_k,
 * g_k, h_k, rI_k and rB_k (see lane_wrenches); component r of quantity X of DoF k is
 * t_col(T, k)[4 (X + r)] */
enum { T_AL = 0, T_NU = 6, T_MU = 9, T_S = 15, T_G = 21, T_H = 27, T_RI = 33, T_RB = 39 };
static inline double *t_col(double *T, int k) {
  return T + (size_t)(k >> 2) * (HG_DERIV_T_ROWS * 4) + (k & 3);
}

/* The matrix B of one body, G = [[I, h^], [-h^, m]] with first moment h and V = (w, v), has a
 * simple form: with the momentum G V = (L, p) (angular, linear),
 *   B = [[Q - L^, 0], [-2 p^, 0]],   Q = -(I w^ + (I w^)^T) - (v h^T + h v^T) + 2 (h.v) 1,
 * (-G ad_V - (G ad_V)^T has the blocks Q, p^, -p^, 0, and [. x* G V] the blocks -L^, -p^, -p^, 0).
 * Q is symmetric, and B is linear in (Q, G V), so a subtree's sum needs only the sums of both.
 * Row r of I w^ is I_r x w. */
static inline void body_coriolis(const hg_inertia *G, const double V[6], double Q[6],
                                 double hv[6]) {
  const double *I = G->I, *h = G->h, *w = V, *v = V + 3;
  double R[3][3], Ir[3][3] = {{I[0], I[3], I[4]}, {I[3], I[1], I[5]}, {I[4], I[5], I[2]}};
  for (int r = 0; r < 3; r++) hg_v3_cross(Ir[r], w, R[r]);
  double hdv = 2 * hg_v3_dot(h, v);
  static const int ri[6] = {0, 1, 2, 0, 0, 1}, ci[6] = {0, 1, 2, 1, 2, 2};
  for (int k = 0; k < 6; k++) {
    int a = ri[k], b = ci[k];
    Q[k] = -(R[a][b] + R[b][a]) - (v[a] * h[b] + h[a] * v[b]) + (k < 3 ? hdv : 0);
  }
  hg_inertia_mulv(G, V, hv);
}

/* the rows of L: for the twists, each DoF's Vb, ab and Vm (see dof_twists); for the wrenches,
 * its body's sums Ic (m, h, I), Qc, hc (in the order of w->sums) and joint wrench F */
enum { L_VB = 0, L_AB = 6, L_VM = 12 };
enum { L_M = 0, L_H = 1, L_I = 4, L_Q = 10, L_HV = 16, L_F = 22 };
_Static_assert(L_F == HG_DERIV_SUMS && L_F + 6 == HG_DERIV_L_ROWS && HG_DERIV_L_ROWS % 4 == 0 &&
                   sizeof(hg_inertia) == L_Q * sizeof(double),
               "a body's record (sums, F) is L's rows");

/* block t of T from L: nu = Vb x S, alpha = ab x S - nu x Vb, mu = Vm x S + nu */
HG_HOT static void lane_twists(double *t, const double *L) {
  hg_lane Vb[6], ab[6], Vm[6], S[6], nu[6], al[6], mu[6], x[6];
  HG_UNROLL(6)
  for (int r = 0; r < 6; r++) {
    Vb[r] = HG_CLANE(L, L_VB + r), ab[r] = HG_CLANE(L, L_AB + r), Vm[r] = HG_CLANE(L, L_VM + r);
    S[r] = HG_CLANE(t, T_S + r);
  }
  hg_lane_ad(Vb, S, nu);
  hg_lane_ad(ab, S, al);
  hg_lane_ad(nu, Vb, x);
  hg_lane_ad(Vm, S, mu);
  HG_UNROLL(6)
  for (int r = 0; r < 6; r++) HG_LANE(t, T_AL + r) = al[r] - x[r], HG_LANE(t, T_MU + r) = mu[r] + nu[r];
  HG_UNROLL(6)
  for (int r = 0; r < 3; r++) HG_LANE(t, T_NU + r) = nu[r];
}

/* forward, per body: its own Ic, Qc and hc (summed over the subtrees later), and per DoF k the
 * twists nu_k = Vb_k x S_k, alpha_k = ab_k x S_k - nu_k x Vb_k and mu_k = Vm_k x S_k + nu_k
 * (Vm = Vb for the chain joints: mu = 2 nu; V_i for spherical and free joints, see the top),
 * into column k of T with S_k: the DoFs' Vb, ab and Vm into L's lanes, then lane_twists on each
 * block. */
HG_HOT static void dof_twists(const hg_model *m, const hg_data *d, hg_deriv *w, const double *v,
                              const double *qdd) {
  static const double zero[6] = {0, 0, 0, 0, 0, 0};
  for (int i = 1; i < m->nbody; i++) {
    double *sum = w->sums + (size_t)i * HG_DERIV_L_ROWS;
    memcpy(sum, &d->I[i], sizeof d->I[i]);
    body_coriolis(&d->I[i], d->V[i], sum + L_Q, sum + L_HV);
    int p = m->parent[i], va = m->v_adr[i], n = m->jnt_nv[i], chain = !w->coupled[i];
    const double *Vp = p ? d->V[p] : zero;
    double Vb[6], ab[6];
    for (int r = 0; r < 6; r++) Vb[r] = Vp[r], ab[r] = d->a[p][r];
    for (int k = va; k < va + n; k++) {
      const double *S = d->S[k], *Vm = chain ? Vb : d->V[i];
      double *t = t_col(w->T, k), *L = w->L + (size_t)(k >> 2) * (HG_DERIV_L_ROWS * 4);
      int u = k & 3;
      for (int r = 0; r < 6; r++) {
        L[4 * (L_VB + r) + u] = Vb[r], L[4 * (L_AB + r) + u] = ab[r];
        L[4 * (L_VM + r) + u] = Vm[r], t[4 * (T_S + r)] = S[r];
      }
      if (chain && k + 1 < va + n) {
        /* the next DoF rides on this one: Vb += S v, ab += S qdd + nu v */
        double nu[6];
        hg_ad(Vb, S, nu);
        for (int r = 0; r < 6; r++) {
          ab[r] += S[r] * qdd[k] + nu[r] * v[k];
          Vb[r] += S[r] * v[k];
        }
      }
    }
  }
  /* the blocks' products, after every gathered number is stored */
  for (int c = 0; c < m->nv; c += 4) {
    double *tb = w->T + (size_t)(c >> 2) * (HG_DERIV_T_ROWS * 4);
    double *L = w->L + (size_t)(c >> 2) * (HG_DERIV_L_ROWS * 4);
    lane_twists(tb, L);
  }
}

/* block t of T from L: for DoF k of body i, g_k = S_k x* F_i + Ic_i alpha_k + Bc_i nu_k, h_k =
 * Ic_i mu_k + Bc_i S_k, rI_k = Ic_i S_k and rB_k = Bc_i^T S_k (its angular part; the linear
 * part is zero), with B x = (Q x_w + x_w x L, 2 x_w x p) and B^T x = (Q x_w + L x x_w + 2 p x
 * x_v, 0) for the sums (Q, (L, p)) (only x's angular part x_w acts in B x) */
HG_HOT static void lane_wrenches(double *t, const double *L) {
  hg_lane m, h[3], I[6], Q[6], hv[6], F[6], S[6], al[6], nu[3], mu[6];
  hg_lane x[6], y[6], z[6], qx[3], ri[6], rb[3];
  m = HG_CLANE(L, L_M);
  HG_UNROLL(6)
  for (int r = 0; r < 3; r++) h[r] = HG_CLANE(L, L_H + r), nu[r] = HG_CLANE(t, T_NU + r);
  HG_UNROLL(6)
  for (int r = 0; r < 6; r++) {
    I[r] = HG_CLANE(L, L_I + r), Q[r] = HG_CLANE(L, L_Q + r), hv[r] = HG_CLANE(L, L_HV + r);
    F[r] = HG_CLANE(L, L_F + r), S[r] = HG_CLANE(t, T_S + r), al[r] = HG_CLANE(t, T_AL + r);
    mu[r] = HG_CLANE(t, T_MU + r);
  }
  /* x = S x* F = (w x m + v x f, w x f) for F = (m, f), S = (w, v) */
  hg_lane_cross_star(S, F, x);
  /* g = Ic alpha + B nu + x */
  hg_lane_inertia_mulv(&m, h, I, al, y);
  qx[0] = Q[0] * nu[0] + Q[3] * nu[1] + Q[4] * nu[2];
  qx[1] = Q[3] * nu[0] + Q[1] * nu[1] + Q[5] * nu[2];
  qx[2] = Q[4] * nu[0] + Q[5] * nu[1] + Q[2] * nu[2];
  hg_lane_cross_add(nu, hv, qx);
  hg_lane_cross(nu, hv + 3, z + 3);
  HG_UNROLL(6)
  for (int r = 0; r < 3; r++) {
    HG_LANE(t, T_G + r) = y[r] + qx[r] + x[r];
    HG_LANE(t, T_G + 3 + r) = y[3 + r] + 2 * z[3 + r] + x[3 + r];
  }
  /* h = Ic mu + B S, rI = Ic S, rB = B^T S (B S and B^T S share Q S_w) */
  hg_lane_inertia_mulv(&m, h, I, mu, y);
  hg_lane_inertia_mulv(&m, h, I, S, ri);
  qx[0] = Q[0] * S[0] + Q[3] * S[1] + Q[4] * S[2];
  qx[1] = Q[3] * S[0] + Q[1] * S[1] + Q[5] * S[2];
  qx[2] = Q[4] * S[0] + Q[5] * S[1] + Q[2] * S[2];
  HG_UNROLL(6)
  for (int r = 0; r < 3; r++) z[r] = rb[r] = qx[r];
  hg_lane_cross_add(S, hv, z);
  hg_lane_cross(S, hv + 3, z + 3);
  hg_lane_cross_add(hv, S, rb);
  hg_lane_cross(hv + 3, S + 3, x);
  HG_UNROLL(6)
  for (int r = 0; r < 3; r++) {
    HG_LANE(t, T_H + r) = y[r] + z[r];
    HG_LANE(t, T_H + 3 + r) = y[3 + r] + 2 * z[3 + r];
    HG_LANE(t, T_RB + r) = rb[r] + 2 * x[r];
  }
  HG_UNROLL(6)
  for (int r = 0; r < 6; r++) HG_LANE(t, T_RI + r) = ri[r];
}

/* the wrenches of every DoF (lane_wrenches), once every body's sums are complete: each body's
 * joint wrench F after its sums (a record of L's rows), the records of a block's four DoFs
 * transposed into L's lanes (past nv: body 0's record, zeros), then the blocks' products */
HG_HOT static void dof_wrenches(const hg_model *m, const hg_data *d, hg_deriv *w) {
  for (int i = 1; i < m->nbody; i++)
    memcpy(w->sums + (size_t)i * HG_DERIV_L_ROWS + L_F, d->F[i], sizeof d->F[i]);
  for (int c = 0; c < m->nv; c += 4) {
    double *L = w->L + (size_t)(c >> 2) * (HG_DERIV_L_ROWS * 4);
    const double *s[4];
    for (int u = 0; u < 4; u++)
      s[u] = w->sums + (c + u < m->nv ? (size_t)m->dof_body[c + u] * HG_DERIV_L_ROWS : 0);
    /* four rows at a time: pairs of records interleaved, then the pairs' halves joined */
    for (int r = 0; r < HG_DERIV_L_ROWS; r += 4) {
      hg_lane a0, a1, a2, a3;
      a0 = HG_LD4(s[0] + r), a1 = HG_LD4(s[1] + r), a2 = HG_LD4(s[2] + r), a3 = HG_LD4(s[3] + r);
      hg_lane t0 = __builtin_shufflevector(a0, a1, 0, 4, 2, 6);
      hg_lane t1 = __builtin_shufflevector(a0, a1, 1, 5, 3, 7);
      hg_lane t2 = __builtin_shufflevector(a2, a3, 0, 4, 2, 6);
      hg_lane t3 = __builtin_shufflevector(a2, a3, 1, 5, 3, 7);
      HG_LANE(L, r) = __builtin_shufflevector(t0, t2, 0, 1, 4, 5);
      HG_LANE(L, r + 1) = __builtin_shufflevector(t1, t3, 0, 1, 4, 5);
      HG_LANE(L, r + 2) = __builtin_shufflevector(t0, t2, 2, 3, 6, 7);
      HG_LANE(L, r + 3) = __builtin_shufflevector(t1, t3, 2, 3, 6, 7);
    }
  }
  /* the blocks' products, after every gathered number is stored */
  for (int c = 0; c < m->nv; c += 4) {
    double *tb = w->T + (size_t)(c >> 2) * (HG_DERIV_T_ROWS * 4);
    double *L = w->L + (size_t)(c >> 2) * (HG_DERIV_L_ROWS * 4);
    lane_wrenches(tb, L);
  }
}

/* four doubles, the pair loops' unit: DoF columns k .. k + 3 of a row of T (an hg_v4, lanes.h) */
typedef hg_v4 d4;
/* (the helpers take vectors by pointer: passing AVX vectors by value in the baseline clone would
 * change the calling convention) */
/* acc = s p[0 .. 4) */
static inline void d4_mul(d4 *acc, double s, const double *p) { *acc = s * HG_LD4(p); }
/* acc += s p[0 .. 4) */
static inline void d4_fma(d4 *acc, double s, const double *p) { *acc += s * HG_LD4(p); }
/* A row of an inverse-dynamics derivative is written in ascending column order, in segments
 * that together cover it: zeros (zero_span), and ranges of pairs computed by T's blocks. A block's numbers
 * below the range start (lanes below s) keep what is in the row; those past the range end are
 * written too and overwritten by the segments after it, except past the row's end (lim numbers
 * of the row remain from p). p[u] = v's number u for u in [s, min(4, lim)). */
HG_INLINE void d4_store_from(double *p, const d4 *v, int s, int lim) {
  if (lim >= 4 && s == 0) {
    HG_ST4(p, *v);
    return;
  }
  if (lim >= 4) {
    typedef long long i4 __attribute__((vector_size(32)));
    const i4 idx = {0, 1, 2, 3};
    i4 keep = idx < (i4){s, s, s, s}, old, nw;
    memcpy(&old, p, sizeof old);
    memcpy(&nw, v, sizeof nw);
    nw = (old & keep) | (nw & ~keep);
    memcpy(p, &nw, sizeof nw);
    return;
  }
  /* (constant lane numbers: a variable one would keep v in memory on every path) */
  if (s <= 0 && lim > 0) p[0] = (*v)[0];
  if (s <= 1 && lim > 1) p[1] = (*v)[1];
  if (s <= 2 && lim > 2) p[2] = (*v)[2];
  if (s <= 3 && lim > 3) p[3] = (*v)[3];
}

/* the pairs of one block t of T with one row: for the DoF l of the row (col 0, x = rI_l then
 * rB_l), out[0][k] = rI . alpha_k + rB . nu_k, out[1][k] = rI . mu_k + rB . S_k and, when wm,
 * out[2][k] = rI . S_k; for the DoF k of the row (col 1, x = S_k), out[0][l] = S . g_l,
 * out[1][l] = S . h_l and, when wm, out[2][l] = S . rI_l (M's upper triangle, the same products
 * in the same order as its mirror entry rI_l . S_k) */
HG_INLINE void pair_block(const double *t, const double *x, int col, int wm, d4 out[3]) {
  if (col) {
    d4_mul(&out[0], x[0], t + 4 * T_G), d4_mul(&out[1], x[0], t + 4 * T_H);
    if (wm) d4_mul(&out[2], x[0], t + 4 * T_RI);
    for (int r = 1; r < 6; r++) {
      d4_fma(&out[0], x[r], t + 4 * (T_G + r));
      d4_fma(&out[1], x[r], t + 4 * (T_H + r));
      if (wm) d4_fma(&out[2], x[r], t + 4 * (T_RI + r));
    }
    return;
  }
  const double *rI = x, *rB = x + 6;
  d4_mul(&out[0], rB[0], t + 4 * T_NU), d4_mul(&out[1], rB[0], t + 4 * T_S);
  if (wm) d4_mul(&out[2], rI[0], t + 4 * T_S);
  for (int r = 1; r < 3; r++) {
    d4_fma(&out[0], rB[r], t + 4 * (T_NU + r));
    d4_fma(&out[1], rB[r], t + 4 * (T_S + r));
  }
  for (int r = 0; r < 6; r++) {
    d4_fma(&out[0], rI[r], t + 4 * (T_AL + r));
    d4_fma(&out[1], rI[r], t + 4 * (T_MU + r));
    if (wm && r) d4_fma(&out[2], rI[r], t + 4 * (T_S + r));
  }
}

/* one row's pairs (pair_block) with the columns [k0, k1) into Dq, Dv and, when wm, Ml (see
 * above): a first block that starts before k0 or ends past the row's end, the whole blocks, and
 * a last one past the row's end */
HG_INLINE void pairs(const double *T, const double *x, int col, int k0, int k1, int nv,
                         double *Dq, double *Dv, double *Ml, int wm) {
  if (k0 >= k1) return;
  int c = k0 & ~3, e = k1 < nv - 3 ? k1 : nv - 3;
  const double *t = T + (size_t)(c >> 2) * (HG_DERIV_T_ROWS * 4);
  d4 o[3] = {{0}};  /* (o[2] is only written when wm; zeroed for the compiler's flow analysis) */
  if (c < k0 || c >= e) {
    pair_block(t, x, col, wm, o);
    d4_store_from(Dq + c, &o[0], k0 - c, nv - c);
    d4_store_from(Dv + c, &o[1], k0 - c, nv - c);
    if (wm) d4_store_from(Ml + c, &o[2], k0 - c, nv - c);
    c += 4, t += HG_DERIV_T_ROWS * 4;
  }
  for (; c < e; c += 4, t += HG_DERIV_T_ROWS * 4) {
    pair_block(t, x, col, wm, o);
    HG_ST4(Dq + c, o[0]), HG_ST4(Dv + c, o[1]);
    if (wm) HG_ST4(Ml + c, o[2]);
  }
  if (c < k1) {
    pair_block(t, x, col, wm, o);
    d4_store_from(Dq + c, &o[0], 0, nv - c);
    d4_store_from(Dv + c, &o[1], 0, nv - c);
    if (wm) d4_store_from(Ml + c, &o[2], 0, nv - c);
  }
}

/* columns [c0, c1) = 0 in row l of dtau/dq, dtau/dv and, when wm, M (rows of nv numbers), four
 * at a time from z, zeros the compiler cannot see (it would make the loop calls of memset,
 * slower on these short spans); like a pair block it writes past c1, where the segments after it
 * write, but not past the row's end */
HG_INLINE void zero_span(double *Dq, double *Dv, double *Ml, int wm, int c0, int c1, int nv,
                             const d4 *z) {
  int c = c0, e = c1 < nv - 3 ? c1 : nv - 3;
  for (; c < e; c += 4) {
    HG_ST4(Dq + c, *z), HG_ST4(Dv + c, *z);
    if (wm) HG_ST4(Ml + c, *z);
  }
  /* fewer than four left before the row's end (unrolled: a loop would become memset calls) */
  if (c < c1)
    for (int u = 0; u < 3; u++)
      if (c + u < c1) {
        Dq[c + u] = Dv[c + u] = 0;
        if (wm) Ml[c + u] = 0;
      }
}

/* a body's sums y += x (HG_DERIV_SUMS numbers) */
static inline void add_sums(double *y, const double *x) {
  for (int k = 0; k + 4 <= HG_DERIV_SUMS; k += 4) {
    HG_ST4(y + k, HG_LD4(y + k) + HG_LD4(x + k));
  }
  for (int k = HG_DERIV_SUMS & ~3; k < HG_DERIV_SUMS; k++) y[k] += x[k];
}

/* the rows of dtau/dq, dtau/dv and, when wm, M (not NULL) from T, backward, each row whole from
 * T alone; wm is a constant where this is inlined (always: in the HG_HOT clones) */
HG_INLINE void id_rows(const hg_model *m, const hg_data *d,
                                                          const hg_deriv *w, int wm,
                                                          double *dtau_dq, double *dtau_dv,
                                                          double *M) {
  int nv = m->nv;
  double *T = w->T;
  /* (w->zero holds at least four zeros) */
  d4 z;
  memcpy(&z, w->zero, sizeof z);
  /* the rows one at a time, descending (one loop over the rows: in a loop per body the compiler
   * prepared the rare store paths' conditions for each body, about 135 instructions) */
  for (int l = nv - 1; l >= 0; l--) {
    int i = m->dof_body[l];
    int va = m->v_adr[i], n = m->jnt_nv[i], all = w->coupled[i];
    const int *rg = w->ranges + 2 * w->range_adr[i];
    int nr = w->range_adr[i + 1] - w->range_adr[i];
    int e = m->subtree_end[i], l0 = va + n, l1 = e < m->nbody ? m->v_adr[e] : nv;
    /* row l of body i, ascending: DoF l against DoF k of each ancestor and of i itself (the
     * ranges, the first up to i's last DoF), where S_l turns with q_k when k carries l (all of
     * them, or k <= l), else d tau_l / d q_k = S_l . g_k; then against each DoF k below i, which
     * l sees through F_i (the DoFs of i's subtree after its own, contiguous); zeros between */
    const double *tl = t_col(T, l);
    /* rI_l, rB_l (the next rows of T) and S_l in registers (the rows' stores might alias d->S) */
    double rIB[9], Sl[6];
    for (int r = 0; r < 9; r++) rIB[r] = tl[4 * (T_RI + r)];
    for (int r = 0; r < 6; r++) Sl[r] = d->S[l][r];
    double *Dq = dtau_dq + (size_t)l * nv, *Dv = dtau_dv + (size_t)l * nv;
    double *Ml = wm ? M + (size_t)l * nv : NULL;
    for (int r = nr - 1, c = 0; r >= 0; r--) {
      int k0 = rg[2 * r], k1 = r ? rg[2 * r + 1] : l0;
      zero_span(Dq, Dv, Ml, wm, c, k0, nv, &z);
      pairs(T, rIB, 0, k0, k1, nv, Dq, Dv, Ml, wm);
      c = k1;
    }
    for (int k = l + 1; !all && k < l0; k++) {
      const double *t = t_col(T, k);
      double s = 0;
      for (int r = 0; r < 6; r++) s += Sl[r] * t[4 * (T_G + r)];
      Dq[k] = s;
    }
    pairs(T, Sl, 1, l0, l1, nv, Dq, Dv, Ml, wm);
    zero_span(Dq, Dv, Ml, wm, l1, nv, nv, &z);
  }
}

HG_HOT static void rnea_derivatives_in_world(const hg_model *m, hg_data *d, hg_deriv *w,
                         const double *q, const double *v, const double *qdd, const double *fext,
                         double *dtau_dq, double *dtau_dv, double *M) {
  hg_rnea_opt(m, d, &world, q, v, qdd, fext, w->tau);
  dof_twists(m, d, w, v, qdd);
  /* the sums over each subtree, then every DoF's wrenches */
  for (int i = m->nbody - 1; i > 0; i--) {
    int p = m->parent[i];
    if (p <= 0) continue;
    add_sums(w->sums + (size_t)p * HG_DERIV_L_ROWS, w->sums + (size_t)i * HG_DERIV_L_ROWS);
  }
  dof_wrenches(m, d, w);
  /* the rows, with or without M */
  if (M) id_rows(m, d, w, 1, dtau_dq, dtau_dv, M);
  else id_rows(m, d, w, 0, dtau_dq, dtau_dv, NULL);
  /* M_kk += armature_k (dtau/dqdd; the armature's term armature qdd depends on neither q nor
   * v, so dtau/dq and dtau/dv keep the bodies' terms only) */
  if (M && m->has_armature)
    for (int k = 0; k < m->nv; k++) M[(size_t)k * m->nv + k] += m->armature[k];
}

/* Y = -Minv X for X an inverse-dynamics derivative (nv x nv), Minv symmetric, through its
 * transpose: row c of Y^T is -sum_l X[l, c] Minv[l, :] over the l where X[l, c] may be non-zero,
 * which are the columns of row c's ranges (the pattern is symmetric), a loop along whole rows of
 * Minv; two rows l at a time share the stores. Every entry is written, nothing is zeroed. */
HG_HOT static void minv_mul_neg(const hg_model *m, hg_deriv *w, const double *Minv, const double *X,
                         double *Y) {
  size_t nv = (size_t)m->nv;
  double *restrict Yt = w->Z;
  for (int i = 1; i < m->nbody; i++) {
    int nr = w->range_adr[i + 1] - w->range_adr[i];
    const int *rg = w->ranges + 2 * w->range_adr[i];
    for (size_t c = (size_t)m->v_adr[i]; c < (size_t)(m->v_adr[i] + m->jnt_nv[i]); c++) {
      double *restrict y = Yt + c * nv;
      int first = 1;
      for (int k = 0; k < nr; k++) {
        size_t l = (size_t)rg[2 * k], e = (size_t)rg[2 * k + 1];
        for (; l + 1 < e; l += 2) {
          const double *restrict M0 = Minv + l * nv, *restrict M1 = M0 + nv;
          double a = -X[l * nv + c], b = -X[(l + 1) * nv + c];
          if (first)
            for (size_t r = 0; r < nv; r++) y[r] = a * M0[r] + b * M1[r];
          else
            for (size_t r = 0; r < nv; r++) y[r] += a * M0[r] + b * M1[r];
          first = 0;
        }
        if (l < e) {
          const double *restrict M0 = Minv + l * nv;
          double a = -X[l * nv + c];
          if (first)
            for (size_t r = 0; r < nv; r++) y[r] = a * M0[r];
          else
            for (size_t r = 0; r < nv; r++) y[r] += a * M0[r];
          first = 0;
        }
      }
    }
  }
  for (size_t r = 0; r < nv; r++)
    for (size_t c = 0; c < nv; c++) Y[r * nv + c] = Yt[c * nv + r];
}

int hg_aba_derivatives(const hg_model *m, hg_data *d, hg_deriv *w, const double *q,
                       const double *v, const double *tau, const double *fext, double *qdd,
                       double *dqdd_dq, double *dqdd_dv, double *dqdd_dtau) {
  int nv = m->nv;
  if (hg_aba_opt(m, d, &world, q, v, tau, fext, w->qdd)) return -1;
  int derivs = dqdd_dq || dqdd_dv;
  double *Minv = dqdd_dtau ? dqdd_dtau : w->M;
  if (dqdd_dtau || (derivs && w->product)) hg_minv_factored(m, d, w, NULL, Minv);
  if (qdd) memcpy(qdd, w->qdd, (size_t)nv * sizeof(double));
  if (!derivs) return 0;
  /* dqdd/dx = -M^-1 dtau/dx at the acceleration ABA found: products with M^-1 over the
   * non-zeros of dtau/dx, or (long chains, w->product 0) the articulated recursion on ABA's
   * factors with a dense right-hand side, O(N nv) */
  rnea_derivatives_in_world(m, d, w, q, v, w->qdd, fext, w->dq, w->dv, NULL);
  if (w->product) {
    if (dqdd_dq) minv_mul_neg(m, w, Minv, w->dq, dqdd_dq);
    if (dqdd_dv) minv_mul_neg(m, w, Minv, w->dv, dqdd_dv);
  } else {
    if (dqdd_dq) hg_minv_solve_neg(m, d, w, NULL, w->dq, nv, dqdd_dq);
    if (dqdd_dv) hg_minv_solve_neg(m, d, w, NULL, w->dv, nv, dqdd_dv);
  }
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

int hg_hybrid_derivatives(const hg_model *m, hg_data *d, hg_deriv *w, const double *q,
                          const double *v, const double *u, const double *fext, double *y,
                          double *dy_dq, double *dy_dv, double *dy_du) {
  int nv = m->nv;
  /* u splits into tau (free DoFs) and qdd (prescribed DoFs) */
  for (int k = 0; k < nv; k++) {
    int fr = d->mode[m->dof_body[k]] == HG_MODE_FREE;
    w->tauh[k] = fr ? u[k] : 0;
    w->qdd[k] = fr ? 0 : u[k];
  }
  if (hg_hybrid_opt(m, d, &world, q, v, w->qdd, w->tauh, fext)) return -1;
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

void hg_rnea_derivatives(const hg_model *m, hg_data *d, hg_deriv *w, const double *q,
                         const double *v, const double *qdd, const double *fext, double *dtau_dq,
                         double *dtau_dv, double *M) {
  rnea_derivatives_in_world(m, d, w, q, v, qdd, fext, dtau_dq, dtau_dv, M);
}
