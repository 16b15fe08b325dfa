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
 * and the joint wrench F_c (derivatives.c derives them). Every second derivative is the
 * derivative of one of these along a second direction, and the entries of three DoFs on one path
 * from a root (every other entry is zero) are products of a few 6-vectors, as Singh, Russell and
 * Wensing derive them ("On Second-Order Derivatives of Rigid-Body Dynamics: Theory &
 * Implementation", IDSVA-SO; Pinocchio's ComputeRNEASecondOrderDerivatives runs the same
 * recursion). With l the deepest of the three, j a carrier of l and k a carrier of j ("k
 * carries l": perturbing q_k turns S_l; l carries itself), the routine forms
 *   per DoF l: 6 x 6 matrices from its body's Ic, Bc and F (dof_matrices),
 *   per pair (l, j): twelve 6-vectors (pair_vectors),
 *   per triple (l, j, k): the dot products of those with S_k, psi'_k, psi''_k and mu_k, run
 *   over k's range four at a time (triples), each giving up to six entries,
 * where psi'_k = nu_k = Vb_k x S_k, psi''_k = alpha_k and mu_k = Vm_k x S_k + nu_k are the
 * twists of the first-order formulas. The DoFs of a spherical or free joint carry one another
 * (one group: their order along q does not commute, and the entries whose DoFs share a group take
 * the formulas' within-group cases); a universal, cylindrical or planar joint is a chain of
 * single DoFs, each carrying those after it. Cost O(N d^2) for a tree of N bodies and depth d:
 * O(N d) pairs of about 500 flops, O(N d^2) triples of about 100.
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
  double **dof[] = {&w->nu, &w->al, &w->mu};
  double **body36[] = {&w->Ic, &w->Bc, &w->BcT};
  double **sq[] = {&w->aq, &w->av, &w->Minv, &w->U, &w->au};
  double **cube[] = {&w->t_qq, &w->t_vv, &w->t_qv, &w->t_M, &w->X};
  int ok = 1;
  for (size_t k = 0; k < sizeof dof / sizeof *dof; k++) ok &= !!(*dof[k] = calloc(n1, sizeof(double)));
  for (size_t k = 0; k < sizeof body36 / sizeof *body36; k++)
    ok &= !!(*body36[k] = calloc(36 * nb, sizeof(double)));
  for (size_t k = 0; k < sizeof sq / sizeof *sq; k++)
    ok &= !!(*sq[k] = calloc(nv * nv + 1, sizeof(double)));
  for (size_t k = 0; k < sizeof cube / sizeof *cube; k++)
    ok &= !!(*cube[k] = calloc(n3, sizeof(double)));
  ok &= !!(w->tau = calloc(nv + 1, sizeof(double)));
  ok &= !!(w->soa = calloc(6 * 4 * nv + 4, sizeof(double))); /* + 3: the lane sweeps' reads */
  ok &= !!(w->qdd = calloc(nv + 1, sizeof(double)));
  ok &= !!(w->idx = calloc(nv + 1, sizeof(int)));
  ok &= !!(w->w1 = hg_deriv_new(m));
  if (!ok) {
    hg_deriv2_free(w);
    return NULL;
  }
  return w;
}

void hg_deriv2_free(hg_deriv2 *w) {
  if (!w) return;
  double *p[] = {w->nu, w->al, w->mu, w->Ic, w->Bc, w->BcT, w->tau, w->qdd, w->aq, w->av,
                 w->Minv, w->t_qq, w->t_vv, w->t_qv, w->t_M, w->X, w->soa, w->U,
                 w->au};
  for (size_t k = 0; k < sizeof p / sizeof *p; k++) free(p[k]);
  free(w->idx);
  hg_deriv_free(w->w1);
  free(w);
}

/* ---- 6-vectors and 6 x 6 matrices (row-major) ---- */

static inline void v6_zero(double *x) { memset(x, 0, 6 * sizeof(double)); }
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

/* Y = var_x(G) = -G ad_x - ad_x^T G, the change of a symmetric G whose bodies turn with x (G
 * symmetric: G ad_x + ad_x^T G = P + P^T with P = G ad_x); A gets ad_x */
HG_INLINE void var_matrix(const double *G, const double x[6], double *A, double *Y) {
  double P[36];
  hg_ad_matrix(x, A);
  hg_lane6_mul(G, A, P);
  memset(Y, 0, 36 * sizeof(double));
  m6_sub_sym(P, Y);
}

/* B = -G ad_V - ad_V^T G + C(G V) (the velocity products' change with a common twist change,
 * derivatives.c) */
HG_INLINE void body_B(const double *G, const double V[6], double *B) {
  double A[36], GV[6] = {0};
  var_matrix(G, V, A, B);
  sym_mulv_add(G, V, GV);
  coad_matrix_add(GV, B);
}

/* the rows of the structure-of-arrays copy w->soa: component r of quantity X of DoF m at
 * soa[(6 X + r) nv + m], so that the entries of consecutive DoFs are consecutive numbers */
enum { X_S, X_NU, X_AL, X_MU, X_N };
_Static_assert(X_N == 4, "hg_deriv2_new allocates 4 quantities of w->soa");
static inline double *soa(const hg_deriv2 *w, int X) { return w->soa + (size_t)6 * X * w->nv; }
/* DoF l's 6-vector x into quantity X of the SoA copy */
static inline void soa_put(hg_deriv2 *w, int X, int l, const double *x) {
  double *p = soa(w, X) + l;
  for (int r = 0; r < 6; r++) p[(size_t)r * w->nv] = x[r];
}

/* the values: subtree sums Ic and Bc (and Bc^T), and per DoF the twists nu = psi', alpha =
 * psi'' and mu = psi' + phi' with their SoA copies. Along a chain of DoFs Vb_{l+1} = Vb_l + S_l
 * v_l, ab_{l+1} = ab_l + S_l qdd_l + nu_l v_l from (V, a) of the parent; for spherical and free
 * joints every DoF has Vb = V_parent, and Vm = V of the body */
HG_INLINE void values(const hg_model *m, const hg_data *d, hg_deriv2 *w, const double *v,
                      const double *qdd) {
  static const double zero[6] = {0, 0, 0, 0, 0, 0};
  for (int i = 1; i < m->nbody; i++) {
    double *G = w->Ic + 36 * (size_t)i;
    hg_inertia_matrix(&d->I[i], G);
    body_B(G, d->V[i], w->Bc + 36 * (size_t)i);
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
    int chain = !w->w1->coupled[i];
    const double *Vp = p ? d->V[p] : zero;
    double Vb[6], ab[6];
    for (int r = 0; r < 6; r++) Vb[r] = Vp[r], ab[r] = d->a[p][r];
    for (int k = va; k < va + n; k++) {
      const double *S = d->S[k], *Vm = chain ? Vb : d->V[i];
      double *nu = w->nu + 6 * k, *al = w->al + 6 * k, *mu = w->mu + 6 * k, x[6];
      /* nu = Vb x S, alpha = ab x S - nu x Vb, mu = Vm x S + nu */
      hg_lane3_ad(Vb, S, nu);
      hg_lane3_ad(ab, S, al);
      hg_lane3_ad(nu, Vb, x);
      for (int r = 0; r < 6; r++) al[r] -= x[r];
      hg_lane3_ad(Vm, S, mu);
      for (int r = 0; r < 6; r++) mu[r] += nu[r];
      soa_put(w, X_S, k, S);
      soa_put(w, X_NU, k, nu);
      soa_put(w, X_AL, k, al);
      soa_put(w, X_MU, k, mu);
      if (chain) {
        /* the next DoF rides on this one: ab += S qdd + nu v, Vb += S v */
        for (int r = 0; r < 6; r++) ab[r] += S[r] * qdd[k] + nu[r] * v[k], Vb[r] += S[r] * v[k];
      }
    }
  }
}

/* the DoFs that carry DoF l, l among them, as ranges [m0, m1) of the ranges of l's body (its
 * ancestors' DoFs, ascending, then its own joint's): range r of rg, the first cut at the end
 * of l's group (the DoFs of its joint for spherical and free joints, l alone for the others) */
static inline int carrier_end(const hg_model *m, const hg_deriv *w1, int l) {
  int c = m->dof_body[l];
  return w1->coupled[c] ? m->v_adr[c] + m->jnt_nv[c] : l + 1;
}
/* the first DoF of l's group: every DoF of a group carries every other (w1->coupled: the
 * first-order workspace's flags of spherical and free joints) */
static inline int group_start(const hg_model *m, const hg_deriv *w1, int l) {
  int c = m->dof_body[l];
  return w1->coupled[c] ? m->v_adr[c] : l;
}

/* the 6 x 6 matrices of DoF l (body i, composite inertia I = Ic_i and Bc_i = B, joint wrench F
 * = F_i, S = S_l, psi' = nu_l): with var(x) y = x x* (I y) - I (x x y) (the change of I when its
 * bodies turn with x; symmetric) and C(f) y = y x* f (antisymmetric),
 *   r1 = var(S),   r3 = var(psi') + C(I psi') + S x* B - B (S x .),
 * and r3 transposed, r3T (the products with r3 read its rows) */
typedef struct {
  double r1[36], r3[36], r3T[36];
  double IS[6], BtS[6], f5[6], f7[6]; /* I S, B^T S, B psi' + S x* F + I psi'', B S + I mu */
} dof_terms;

HG_INLINE void dof_matrices(const hg_model *m, const hg_data *d, const hg_deriv2 *w, int l,
                            dof_terms *t) {
  int i = m->dof_body[l];
  const double *I = w->Ic + 36 * (size_t)i, *B = w->Bc + 36 * (size_t)i;
  const double *BT = w->BcT + 36 * (size_t)i, *S = d->S[l];
  const double *nu = w->nu + 6 * l, *al = w->al + 6 * l, *mu = w->mu + 6 * l;
  double A[36], P[36];
  var_matrix(I, S, A, t->r1); /* r1 = var(S); A = ad_S */
  /* r3 = var(psi') + C(I psi') - ad_S^T B - B ad_S (S x* = -ad_S^T; ad_S^T B = (B^T ad_S)^T) */
  body_B(I, nu, t->r3);
  hg_lane6_mul(B, A, P);
  for (int x = 0; x < 36; x++) t->r3[x] -= P[x];
  hg_lane6_mul(BT, A, P);
  for (int r = 0; r < 6; r++)
    for (int c = 0; c < 6; c++) t->r3[6 * r + c] -= P[6 * c + r];
  m6_transpose(t->r3, t->r3T);
  v6_zero(t->IS), v6_zero(t->f5), v6_zero(t->f7);
  sym_mulv_add(I, S, t->IS);
  gen_mulTv(B, S, t->BtS);
  /* f5 = B psi' + S x* F + I psi'',  f7 = B S + I mu */
  gen_mulv_add(BT, nu, t->f5);
  cross_star(S, d->F[i], t->f5, 1);
  sym_mulv_add(I, al, t->f5);
  gen_mulv_add(BT, S, t->f7);
  sym_mulv_add(I, mu, t->f7);
}

/* the 6-vectors of the pair (l, j), j a carrier of l (s = S_j, n = psi'_j, a = psi''_j, u = mu_j),
 * with l's matrices (dof_matrices), r0 y = y x* (I S) and r2 = r0 - r1 = -(r1 + r0)^T:
 *   u9 = r0 s,  u13 = r1 s,  u11 = -r2 s = u13 - u9,  u8 = s x* (B^T S),  u5 = r2 n,
 *   u1 = r3^T s,  u3 = r3 n + r1 a + s x* f5,  u6 = (r1 + r0) n + s x* f7,  u7 = r3 s + r1 u,
 *   u4 = u9 + S x* (I s) (only where j is in l's group) */
enum { U1, U3, U4, U5, U6, U7, U8, U9, U11, U13, U58, NU };
typedef struct { double u[NU][6]; } pair_terms;
HG_INLINE void pair_vectors(const hg_data *d, const hg_deriv2 *w, const double *I, int l, int j,
                         int same, const dof_terms *t, pair_terms *pt) {
  double (*u)[6] = pt->u;
  const double *s = d->S[j], *n = w->nu + 6 * j, *a = w->al + 6 * j, *mu = w->mu + 6 * j;
  double r1n[6] = {0}, x[6];
  for (int p = 0; p < NU; p++) v6_zero(u[p]);
  cross_star(s, t->IS, u[U9], 0);
  sym_mulv_add(t->r1, s, u[U13]);
  sym_mulv_add(t->r1, n, r1n);
  cross_star(n, t->IS, x, 0);
  cross_star(s, t->BtS, u[U8], 0);
  for (int r = 0; r < 6; r++) {
    u[U11][r] = u[U13][r] - u[U9][r];
    u[U5][r] = x[r] - r1n[r];
    u[U6][r] = x[r] + r1n[r];
  }
  cross_star(s, t->f7, u[U6], 1);
  gen_mulTv(t->r3, s, u[U1]);
  gen_mulv_add(t->r3T, n, u[U3]);
  sym_mulv_add(t->r1, a, u[U3]);
  cross_star(s, t->f5, u[U3], 1);
  gen_mulv_add(t->r3T, s, u[U7]);
  sym_mulv_add(t->r1, mu, u[U7]);
  for (int r = 0; r < 6; r++) u[U58][r] = u[U5][r] + u[U8][r];
  if (same) {
    double Is[6] = {0};
    sym_mulv_add(I, s, Is);
    memcpy(u[U4], u[U9], sizeof u[U4]);
    cross_star(d->S[l], Is, u[U4], 1);
  }
}

/* R[r] = sum over the n terms (a_p, X_p) of a_p . X_p[., k + r], r = 0..3 (hg_lane_soa_dot4 on
 * the SoA copies; n is a constant where this is inlined) */
HG_INLINE void dot4(const hg_deriv2 *w, int n, const double *const *a, const int *X, int k,
                    double R[4]) {
  const double *x[4];
  for (int i = 0; i < n; i++) x[i] = soa(w, X[i]);
  hg_lane_soa_dot4(n, a, x, (size_t)w->nv, k, R);
}

/* the address of entry [a, b, c] of an nv^3 tensor (derivatives2.h's layout) */
static inline double *at(double *T, size_t nv, int a, int b, int c) {
  return T + ((size_t)c * nv + (size_t)a) * nv + (size_t)b;
}

/* the tensors (any may be NULL) and the pair (l, j) whose triples a block writes */
typedef struct {
  double *qq, *vv, *qv, *M;
  size_t nv;
  int l, j, jd;
} outs;

/* the entries of the triples (l, j, k) for k = k0 .. k0 + n - 1 (n <= 4), all outside j's group
 * (kd) or all inside it (the formulas at triples below): their dot products four at a time,
 * stored kind by kind (k's place in [a, b, c] gives the stride along k, 1, nv or nv^2, from the
 * entry at k0). Not inlined: inside the pair loop gcc kept two dozen address streams on the
 * stack */
HG_HOT __attribute__((noinline)) static void triple_block(const hg_deriv2 *w, const outs *o,
                                                         const pair_terms *pt, int k0, int n,
                                                         int kd) {
  const double (*u)[6] = pt->u;
  size_t nv = o->nv, S2 = nv * nv, S1 = nv;
  int l = o->l, j = o->j, jd = o->jd, k = k0;
  const int XS[1] = {X_S}, XN[1] = {X_NU}, XAN[2] = {X_AL, X_NU}, XNA[2] = {X_NU, X_AL};
  const int XSM[2] = {X_S, X_MU};
  const double *a9[1] = {u[U9]}, *a11[1] = {u[U11]}, *a13[1] = {u[U13]}, *a3[1] = {u[U3]};
  const double *a6[1] = {u[U6]}, *a7[1] = {u[U7]}, *a4[1] = {u[U4]};
  const double *ap2[2] = {u[U9], u[U58]}, *a1[2] = {u[U1], u[U13]}, *ac[2] = {u[U58], u[U9]};
  double t[4], d3[4], p1[4], d9[4], d11[4], d13[4];
  if (o->qq) {
    dot4(w, 2, ap2, XAN, k, t); /* p2 */
    hg_lane_scatter4(t, 0, at(o->qq, nv, l, j, k), S2, n);
    if (kd) {
      hg_lane_scatter4(t, 0, at(o->qq, nv, l, k, j), 1, n);
      dot4(w, 1, a3, XS, k, d3);
      hg_lane_scatter4(d3, 0, at(o->qq, nv, k, l, j), S1, n);
      if (jd) hg_lane_scatter4(d3, 0, at(o->qq, nv, k, j, l), S1, n);
    }
    if (jd) {
      dot4(w, 2, a1, XNA, k, t); /* u1 . psi'_k + u13 . psi''_k */
      hg_lane_scatter4(t, 0, at(o->qq, nv, j, k, l), 1, n);
      hg_lane_scatter4(t, 0, at(o->qq, nv, j, l, k), S2, n);
    }
  }
  if (o->qv) {
    dot4(w, 1, a11, XN, k, p1);
    hg_lane_scatter4(p1, 1, at(o->qv, nv, l, k, j), 1, n);
    if (jd) {
      hg_lane_scatter4(p1, 0, at(o->qv, nv, j, k, l), 1, n);
      dot4(w, 2, a1, XSM, k, t); /* u1 . S_k + u13 . mu_k */
      hg_lane_scatter4(t, 0, at(o->qv, nv, j, l, k), S2, n);
    }
    if (kd) {
      dot4(w, 2, ac, XSM, k, t);
      hg_lane_scatter4(t, 0, at(o->qv, nv, l, j, k), S2, n);
      dot4(w, 1, a6, XS, k, t);
      hg_lane_scatter4(t, 0, at(o->qv, nv, k, j, l), S1, n);
      if (jd) {
        dot4(w, 1, a7, XS, k, t);
        hg_lane_scatter4(t, 0, at(o->qv, nv, k, l, j), S1, n);
      }
    }
  }
  if (!o->vv && !o->M) return;
  if (kd) dot4(w, 1, a9, XS, k, d9);
  if (jd || !kd) dot4(w, 1, a13, XS, k, d13);
  if (o->vv) {
    if (jd || kd) dot4(w, 1, a11, XS, k, d11);
    if (jd) {
      hg_lane_scatter4(d11, 0, at(o->vv, nv, j, k, l), 1, n);
      hg_lane_scatter4(d11, 0, at(o->vv, nv, j, l, k), S2, n);
    }
    if (kd) {
      hg_lane_scatter4(d11, 1, at(o->vv, nv, l, j, k), S2, n);
      hg_lane_scatter4(d11, 1, at(o->vv, nv, l, k, j), 1, n);
      if (jd) {
        for (int r = 0; r < 4; r++) t[r] = d9[r] + d13[r];
        hg_lane_scatter4(t, 0, at(o->vv, nv, k, l, j), S1, n);
        hg_lane_scatter4(t, 0, at(o->vv, nv, k, j, l), S1, n);
      } else {
        dot4(w, 1, a4, XS, k, t);
        hg_lane_scatter4(t, 0, at(o->vv, nv, k, j, l), S1, n);
      }
    } else {
      hg_lane_scatter4(d13, 1, at(o->vv, nv, l, j, k), S2, n);
    }
  }
  if (o->M) {
    if (kd) {
      hg_lane_scatter4(d9, 0, at(o->M, nv, k, l, j), S1, n);
      hg_lane_scatter4(d9, 0, at(o->M, nv, l, k, j), 1, n);
    }
    if (jd) {
      hg_lane_scatter4(d13, 0, at(o->M, nv, k, j, l), S1, n);
      hg_lane_scatter4(d13, 0, at(o->M, nv, j, k, l), 1, n);
    }
  }
}

/* the entries of the triples (l, j, k), l deepest, j a carrier of l, k of j, in the order of
 * Singh, Russell and Wensing's IDSVA-SO (their Algorithm 1, as Pinocchio's
 * ComputeRNEASecondOrderDerivatives runs it): with jd when j is outside l's group and kd when k
 * is outside j's, and the pair vectors above,
 *   d2tau_dq2 [l, j, k] = [l, k, j] (kd) = u9 . psi''_k + (u5 + u8) . psi'_k
 *   d2tau_dq2 [j, k, l] = [j, l, k] (jd) = u1 . psi'_k + u13 . psi''_k
 *   d2tau_dq2 [k, l, j] = [k, j, l] (kd; jd for the second) = u3 . S_k
 *   d2tau_dqdv[l, k, j] = -u11 . psi'_k,  [j, k, l] (jd) = u11 . psi'_k
 *   d2tau_dqdv[j, l, k] (jd) = u1 . S_k + u13 . mu_k,  [l, j, k] (kd) = (u5 + u8) . S_k + u9 . mu_k
 *   d2tau_dqdv[k, j, l] (kd) = u6 . S_k,  [k, l, j] (kd, jd) = u7 . S_k
 *   d2tau_dv2 [j, k, l] = [j, l, k] (jd) = u11 . S_k,  [l, j, k] = [l, k, j] (kd) = -u11 . S_k
 *             [k, l, j] = [k, j, l] (kd, jd) = (u9 + u13) . S_k,  [k, j, l] (kd, not jd) = u4 . S_k
 *             [l, j, k] (not kd) = -u13 . S_k
 *   dM_dq     [k, j, l] = [j, k, l] (jd) = u13 . S_k,  [k, l, j] = [l, k, j] (kd) = u9 . S_k */
HG_INLINE void triples(const hg_deriv2 *w, const outs *o, const pair_terms *pt, int k0, int k1,
                       int g0) {
  int ke = k1 < g0 ? k1 : g0; /* [k0, ke): kd */
  for (int k = k0; k < ke; k += 4) triple_block(w, o, pt, k, ke - k < 4 ? ke - k : 4, 1);
  for (int k = ke; k < k1; k += 4) triple_block(w, o, pt, k, k1 - k < 4 ? k1 - k : 4, 0);
}

/* the entries of every triple from the values of d (hg_rnea_opt's world-frame pass at v, qdd) */
HG_HOT static void entries(const hg_model *m, const hg_data *d, hg_deriv2 *w, const double *v,
                           const double *qdd, double *d2tau_dq2, double *d2tau_dv2,
                           double *d2tau_dqdv, double *dM_dq) {
  values(m, d, w, v, qdd);
  const hg_deriv *w1 = w->w1;
  for (int l = 0; l < m->nv; l++) {
    int c = m->dof_body[l];
    dof_terms t;
    dof_matrices(m, d, w, l, &t);
    const double *I = w->Ic + 36 * (size_t)c;
    const int *rg = w1->ranges + 2 * w1->range_adr[c];
    int nr = w1->range_adr[c + 1] - w1->range_adr[c], lg = group_start(m, w1, l);
    for (int r = 0; r < nr; r++) {
      int j0 = rg[2 * r], j1 = r ? rg[2 * r + 1] : carrier_end(m, w1, l);
      for (int j = j0; j < j1; j++) {
        int jd = j < lg;
        outs o = {d2tau_dq2, d2tau_dv2, d2tau_dqdv, dM_dq, (size_t)m->nv, l, j, jd};
        pair_terms u;
        pair_vectors(d, w, I, l, j, !jd, &t, &u);
        /* j's carriers: the ranges of its body from the one holding j on */
        int b = m->dof_body[j], g0 = group_start(m, w1, j);
        const int *rj = w1->ranges + 2 * w1->range_adr[b];
        int nrj = w1->range_adr[b + 1] - w1->range_adr[b];
        for (int s = 0; s < nrj; s++) {
          int k0 = rj[2 * s], k1 = s ? rj[2 * s + 1] : carrier_end(m, w1, j);
          triples(w, &o, &u, k0, k1, g0);
        }
      }
    }
  }
}

void hg_rnea_second_derivatives(const hg_model *m, hg_data *d, hg_deriv2 *w, const double *q,
                                const double *v, const double *qdd, const double *fext,
                                double *d2tau_dq2, double *d2tau_dv2, double *d2tau_dqdv,
                                double *dM_dq) {
  /* entries off the tree's paths are zero; the triples write every other one */
  size_t n3 = (size_t)m->nv * (size_t)m->nv * (size_t)m->nv;
  double *T[4] = {d2tau_dq2, d2tau_dv2, d2tau_dqdv, dM_dq};
  for (int p = 0; p < 4; p++)
    if (T[p]) memset(T[p], 0, n3 * sizeof(double));
  hg_rnea_second_derivatives_paths(m, d, w, q, v, qdd, fext, d2tau_dq2, d2tau_dv2, d2tau_dqdv,
                                   dM_dq);
}

void hg_rnea_second_derivatives_paths(const hg_model *m, hg_data *d, hg_deriv2 *w,
                                      const double *q, const double *v, const double *qdd,
                                      const double *fext, double *d2tau_dq2, double *d2tau_dv2,
                                      double *d2tau_dqdv, double *dM_dq) {
  hg_rnea_opt(m, d, &world, q, v, qdd, fext, w->tau);
  entries(m, d, w, v, qdd, d2tau_dq2, d2tau_dv2, d2tau_dqdv, dM_dq);
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
  hg_rnea_second_derivatives_paths(m, d, w, q, v, w->qdd, fext, d2qdd_dq2 ? w->t_qq : NULL,
                                   d2qdd_dv2 ? w->t_vv : NULL, d2qdd_dqdv ? w->t_qv : NULL,
                                   w->t_M);
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
  hg_rnea_second_derivatives_paths(m, d, w, q, v, w->qdd, fext, d2y_dq2 ? w->t_qq : NULL,
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
