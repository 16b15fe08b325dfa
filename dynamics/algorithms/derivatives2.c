/* derivatives2.c: analytic second-order derivatives of inverse dynamics (RNEA) on the Lie group
 * and the derivative of the mass matrix, and the workspace of every second-order routine (those
 * of forward and hybrid dynamics: derivatives2_forward.c).
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
 * O(N d) pairs of about 500 flops, O(N d^2) triples of about 100. */

#include <stdlib.h>
#include <string.h>

#include "derivatives2.h"
#include "derivatives2_local.h"
#include "dynamics.h"
#include "lanes.h"

/* the derivatives' pass (derivatives.c): every tree in the world's frame, tree-frame factors */
static const hg_pass_options world = {.tree_frame = 1, .world_frame = 1};

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
