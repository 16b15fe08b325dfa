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
 *   d2qdd/dq_m dtau_k = -M^-1 dM_m M^-1[., k].
 * The products dM_m x come from the first-order formula of d(M x)/dq, four columns x at a time
 * (dM_columns), without the tensor dM/dq; -M^-1 is applied slice by slice, by products with M^-1
 * (cache-blocked), the articulated recursion (long chains) or the factors M = L^T D L on the
 * tree's sparsity (branched trees), and the symmetries of the results halve the work of three
 * of the four. */
#include <stdlib.h>
#include <string.h>

#include "derivatives2.h"
#include "dynamics.h"
#include "lanes.h"

/* the derivatives' pass (derivatives.c): every tree in the world's frame, tree-frame factors */
static const hg_pass_options world = {.tree_frame = 1, .world_frame = 1};

/* w->rel: R(m) per DoF m, the DoFs l on m's path from the root or with m on theirs (m itself
 * and its joint's other DoFs among them). Column m of a slice that -M^-1 multiplies is zero off
 * R(m) (off R(m) and R(k) in slice k of d2qdd/dq2's right-hand side), so the products read
 * only those rows of it; w->bidx: the union of R(m) over each block of eight columns from j */
static int related_lists(const hg_model *m, hg_deriv2 *w) {
  size_t n = (size_t)m->nv;
  char *r = calloc(n * n + 1, 1);
  w->roff = calloc(n + 1, sizeof(int));
  w->boff = calloc(n + 1, sizeof(int));
  if (!r || !w->roff || !w->boff) {
    free(r);
    return -1;
  }
  for (size_t l = 0; l < n; l++) {
    r[l * n + l] = 1;
    for (int t = w->poff[l]; t < w->poff[l + 1]; t++)
      r[l * n + (size_t)w->path[t]] = r[(size_t)w->path[t] * n + l] = 1;
  }
  size_t nr = 0, nb = 0;
  for (size_t c = 0; c < n * n; c++) nr += (size_t)r[c];
  w->rel = calloc(nr + 1, sizeof(int));
  for (size_t j = 0; j < n; j++)
    for (size_t c = 0; c < n; c++) {
      int any = 0;
      for (size_t x = j; x < j + 8 && x < n; x++) any |= r[x * n + c];
      nb += (size_t)any;
    }
  w->bidx = calloc(nb + 1, sizeof(int));
  if (!w->rel || !w->bidx) {
    free(r);
    return -1;
  }
  nr = nb = 0;
  for (size_t j = 0; j < n; j++) {
    w->roff[j] = (int)nr, w->boff[j] = (int)nb;
    for (size_t c = 0; c < n; c++) {
      int any = 0;
      for (size_t x = j; x < j + 8 && x < n; x++) any |= r[x * n + c];
      if (r[j * n + c]) w->rel[nr++] = (int)c;
      if (any) w->bidx[nb++] = (int)c;
    }
  }
  w->roff[n] = (int)nr, w->boff[n] = (int)nb;
  free(r);
  return 0;
}

hg_deriv2 *hg_deriv2_new(const hg_model *m) {
  hg_deriv2 *w = calloc(1, sizeof *w);
  if (!w) return NULL;
  size_t nv = (size_t)m->nv, nb = (size_t)m->nbody, n1 = 6 * nv + 1, n3 = nv * nv * nv + 1;
  w->nv = m->nv;
  w->nbody = m->nbody;
  double **dof[] = {&w->nu, &w->al, &w->mu};
  double **body36[] = {&w->Ic, &w->Bc, &w->BcT};
  double **sq[] = {&w->aq, &w->av, &w->Minv, &w->au};
  double **cube[] = {&w->t_qq, &w->t_vv, &w->t_qv, &w->X};
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
  ok &= !!(w->cis = calloc(n1, sizeof(double)));
  ok &= !!(w->U = calloc(4 * nv * nv + 1, sizeof(double)));
  ok &= !!(w->H = calloc(nv * nv + 1, sizeof(double)));
  ok &= !!(w->lam = calloc(nv + 1, sizeof(int)));
  ok &= !!(w->poff = calloc(nv + 1, sizeof(int)));
  ok &= !!(w->dneg = calloc(nv + 1, sizeof(double)));
  /* blocks of four lanes, 32-byte aligned */
  double **lane[] = {&w->cu, &w->cq, &w->ca, &w->cf};
  size_t nlane[] = {nv + 1, nv + 1, nb, nb};
  for (size_t k = 0; k < 4; k++)
    ok &= !!(*lane[k] = aligned_alloc(32, 24 * nlane[k] * sizeof(double)));
  ok &= !!(w->w1 = hg_deriv_new(m));
  if (!ok) {
    hg_deriv2_free(w);
    return NULL;
  }
  /* lam[k]: the DoF before k on its path from the root (the one before it in its joint, else
   * the last of the nearest ancestor joint with DoFs), -1 at the root; nnz: the entries of L */
  long nnz = 0;
  for (int k = 0; k < m->nv; k++) {
    int i = m->dof_body[k], p = m->parent[i];
    while (p > 0 && m->jnt_nv[p] == 0) p = m->parent[p];
    w->lam[k] = k > m->v_adr[i] ? k - 1 : p > 0 ? m->v_adr[p] + m->jnt_nv[p] - 1 : -1;
    w->poff[k] = (int)nnz;
    for (int j = w->lam[k]; j >= 0; j = w->lam[j]) nnz++;
  }
  w->poff[m->nv] = (int)nnz;
  /* each DoF's path as a list (the solves' inner loops run over it), and L's entries along it */
  w->path = calloc((size_t)nnz + 1, sizeof(int));
  w->Lp = calloc((size_t)nnz + 1, sizeof(double));
  if (!w->path || !w->Lp) {
    hg_deriv2_free(w);
    return NULL;
  }
  for (int k = 0; k < m->nv; k++) {
    int t = w->poff[k];
    for (int j = w->lam[k]; j >= 0; j = w->lam[j]) w->path[t++] = j;
  }
  if (related_lists(m, w)) {
    hg_deriv2_free(w);
    return NULL;
  }
  /* -M^-1 X by the factors costs 2 nnz + nv FMAs a column, by the product with M^-1 nv FMAs per
   * row of the column's block that it reads (w->bidx); the sweeps take about twice the
   * instructions per FMA of the product's register blocks. D2FD's instructions a call, products
   * against factors: humanoid32 (the rule's sides 992 and 630), 4.1e6 against 4.5e6; tree15 (166 against
   * 154), 6.0e5 against 6.2e5; tree63 (1158 against 1290), 2.4e7 against 2.1e7 */
  long rows = 0;
  for (int j = 0; j < m->nv; j++) rows += w->boff[j + 1] - w->boff[j];
  w->ltdl = 2 * (2 * nnz + m->nv) < rows;
  return w;
}

void hg_deriv2_free(hg_deriv2 *w) {
  if (!w) return;
  double *p[] = {w->nu, w->al, w->mu, w->Ic, w->Bc, w->BcT, w->tau, w->qdd, w->aq, w->av,
                 w->Minv, w->t_qq, w->t_vv, w->t_qv, w->X, w->soa, w->au,
                 w->cis, w->cu, w->cq, w->ca, w->cf, w->H, w->U, w->Lp, w->dneg};
  for (size_t k = 0; k < sizeof p / sizeof *p; k++) free(p[k]);
  free(w->idx);
  int *ip[] = {w->roff, w->rel, w->boff, w->bidx};
  for (size_t k = 0; k < sizeof ip / sizeof *ip; k++) free(ip[k]);
  free(w->lam);
  free(w->poff);
  free(w->path);
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

/* ---- M = L^T D L on the tree's sparsity ---- */

/* w->H = the factors of M = L^T D L (Featherstone, "Rigid Body Dynamics Algorithms", sec. 6.5):
 * L unit lower triangular with L[k, i] != 0 only for i on k's path (lam), held below H's
 * diagonal, and D on it. M's entries on the paths are M[l, j] = S_j . Ic S_l (j before l on
 * l's path, Ic of l's body: IS_l = w->cis, dM_setup) plus the armature on the diagonal. Then
 * for k from the last DoF up, for each i on k's path: a = H[k, i] / H[k, k], H[i, j] -= a H[k, j]
 * for j on i's path (i itself first), H[k, i] = a. Reads d->S (the world-frame pass). */
static void ltdl_factor(const hg_model *m, const hg_data *d, hg_deriv2 *w) {
  size_t n = (size_t)m->nv;
  double *H = w->H;
  const int *lam = w->lam;
  for (int l = 0; l < m->nv; l++) {
    const double *IS = w->cis + 6 * l;
    H[l * n + l] = hg_dot6(IS, d->S[l]) + m->armature[l];
    for (int j = lam[l]; j >= 0; j = lam[j]) H[l * n + j] = hg_dot6(IS, d->S[j]);
  }
  for (int k = m->nv - 1; k >= 0; k--)
    for (int i = lam[k]; i >= 0; i = lam[i]) {
      double a = H[k * n + i] / H[k * n + k];
      for (int j = i; j >= 0; j = lam[j]) H[i * n + j] -= a * H[k * n + j];
      H[k * n + i] = a;
    }
  /* the solves' copies: L along each path, -1 / D */
  for (int i = 0; i < m->nv; i++) {
    for (int t = w->poff[i]; t < w->poff[i + 1]; t++) w->Lp[t] = H[i * n + w->path[t]];
    w->dneg[i] = -1 / H[i * n + i];
  }
}

/* Y = -M^-1 X on the columns c0 .. nv - 1 of an nv x nv slice (row-major, rows nv apart) by the
 * factors: Y = X, then per block of eight or four columns (hg_lane_ltdl_solve: L^T y = Y, y =
 * -D^-1 y, L Y = y, each row's columns in registers); a last block that does not fill up is
 * formed over the columns before it, from X again; fewer than four columns one at a time */
HG_HOT static void ltdl_solve_neg(const hg_model *m, hg_deriv2 *w, size_t c0, const double *X,
                                  double *Y) {
  int nv = m->nv;
  size_t n = (size_t)nv, nc = n - c0;
  const int *off = w->poff, *path = w->path;
  const double *Lp = w->Lp, *dneg = w->dneg;
  for (size_t i = 0; i < n; i++) memcpy(Y + i * n + c0, X + i * n + c0, nc * sizeof(double));
  if (nc < 4) {
    for (size_t c = c0; c < n; c++) {
      for (int i = nv - 1; i >= 0; i--) {
        double y = Y[(size_t)i * n + c];
        if (y == 0) continue;
        for (int t = off[i]; t < off[i + 1]; t++) Y[(size_t)path[t] * n + c] -= Lp[t] * y;
      }
      for (int i = 0; i < nv; i++) {
        double y = dneg[i] * Y[(size_t)i * n + c];
        for (int t = off[i]; t < off[i + 1]; t++) y -= Lp[t] * Y[(size_t)path[t] * n + c];
        Y[(size_t)i * n + c] = y;
      }
    }
    return;
  }
  size_t c = c0;
  for (; c + 8 <= n; c += 8) hg_lane_ltdl_solve(8, nv, off, path, Lp, dneg, Y + c, n);
  if (c + 4 <= n) hg_lane_ltdl_solve(4, nv, off, path, Lp, dneg, Y + c, n), c += 4;
  if (c < n) {
    for (size_t i = 0; i < n; i++) memcpy(Y + i * n + n - 4, X + i * n + n - 4, 4 * sizeof(double));
    hg_lane_ltdl_solve(4, nv, off, path, Lp, dneg, Y + n - 4, n);
  }
}

/* the first column of slice k that minv_neg_tensor forms under sym (the others are copied) */
static inline size_t sym_first_column(const hg_model *m, int sym, size_t k) {
  return sym == 1 ? (size_t)m->v_adr[m->dof_body[k]] : sym == 2 ? k : 0;
}

/* Y[., ., k] = -M^-1 X[., ., k] for every slice k (each an nv x nv matrix; X and Y nv^3
 * tensors in the layout of derivatives2.h, not aliased), by the cheapest of three ways:
 * (a) the product with Minv, per block of eight columns b: Y_k[., b] = -Minv[., c] X_k[c, b]
 * over the rows c of the block's union of R(m) (w->bidx; with rk also R(k), for d2qdd/dq2),
 * the only rows of X_k not zero there, nv FMAs per row and column (a humanoid's block of one
 * or two limbs reads 12 to 18 of its 32 rows); (b) with solve set (long chains, hg_deriv's
 * choice for the first order), the articulated recursion with a dense right-hand side on the
 * last tree-frame articulated pass's factors (hg_minv_solve_neg), about 37 FMAs per body and
 * column, taken where the rows of X_k not zero cost more; (c) the factors L^T D L (branched
 * trees, w->ltdl).
 * sym: Y is symmetric in its last two indices, Y[l, m, k] = Y[l, k, m], for every m outside k's
 * joint (sym 1: the second derivatives along q, whose directions on two joints commute) or for
 * every m (sym 2: along v, a vector space); each slice k is then formed in the columns from
 * c0 = k's joint's first DoF (sym 1) or k (sym 2) on, and the columns before c0 are copied from
 * the slices before it: half of the products. X's columns before c0 are not read. With sym 3,
 * Y is symmetric in its first and last indices, Y[l, m, k] = Y[k, m, l] (-M^-1 dM_m M^-1 along
 * tau): slice k is formed in the rows from k on, and its rows before k are copied from the
 * slices before it. */
enum { SOLVE_PRODUCT, SOLVE_ARTICULATED, SOLVE_LTDL };

/* the rows of block j's union (w->bidx) and, with rk >= 0, of R(rk): *rows, their number
 * returned; merged into idx where neither list holds the other */
static inline int block_rows(const hg_deriv2 *w, size_t j, int rk, int *idx, const int **rows) {
  const int *a = w->bidx + w->boff[j], *ae = w->bidx + w->boff[j + 1];
  const int *b = rk >= 0 ? w->rel + w->roff[rk] : ae, *be = rk >= 0 ? w->rel + w->roff[rk + 1] : ae;
  if (b == be || ae - a == w->nv) return *rows = a, (int)(ae - a);
  if (be - b == w->nv) return *rows = b, (int)(be - b);
  int nz = 0;
  while (a < ae || b < be) {
    int x = a < ae && (b == be || *a <= *b) ? *a : *b;
    idx[nz++] = x;
    a += a < ae && *a == x, b += b < be && *b == x;
  }
  return *rows = idx, nz;
}

/* Y_k = -M^-1 X_k for one slice k (above), in the columns from c0; the products form only the
 * rows from r0 and read the rows of R(m) (and R(k) when rk) in column m */
HG_HOT static void minv_neg_slice(const hg_model *m, hg_data *d, hg_deriv2 *w, int solve,
                                  size_t c0, size_t r0, int rk, const double *Xk, double *Yk) {
  int nv = m->nv, *idx = w->idx;
  size_t n = (size_t)nv;
  if (solve == SOLVE_ARTICULATED) {
    size_t nz = 0;
    for (size_t c = 0; c < n; c++) {
      const double *x = Xk + c * n;
      size_t r = c0;
      while (r < n && x[r] == 0) r++;
      nz += r < n;
    }
    if ((long)nz * nv > 37L * (m->nbody - 1)) {
      hg_minv_solve_neg(m, d, w->w1, NULL, Xk, nv, Yk);
      return;
    }
  }
  if (solve == SOLVE_LTDL) {
    ltdl_solve_neg(m, w, c0, Xk, Yk);
    return;
  }
  /* per block of eight columns from c0 (the last one ends at nv, over columns already formed;
   * fewer than eight columns in all: one block) */
  for (size_t j0 = c0; j0 < n; j0 += 8) {
    size_t j1 = j0 + 8 < n ? j0 + 8 : n;
    if (j1 - j0 < 8 && n - c0 >= 8) j0 = n - 8;
    const int *rows;
    int nz = block_rows(w, j0, rk, idx, &rows);
    hg_lane_gemm(0, nv - (int)r0, nz, (int)j0, (int)j1, -1, w->Minv + r0 * n, n,
                 nz == nv ? NULL : rows, Xk, n, Yk + r0 * n, n);
  }
}

/* the entries of Y that sym lets minv_neg_slice leave out, from the others (P: nv^2 scratch) */
static void sym_fill(const hg_model *m, int sym, double *P, double *Y) {
  size_t n = (size_t)m->nv, n2 = n * n;
  /* the rows before k from the slices before: Y[l, ., k] = Y[k, ., l] (l < k) */
  for (size_t k = 0; sym == 3 && k < n; k++)
    for (size_t l = 0; l < k; l++)
      memcpy(Y + k * n2 + l * n, Y + l * n2 + k * n, n * sizeof(double));
  /* the columns before c0 from the slices before: Y[l, m, k] = Y[l, k, m] (k >= m's c0), one
   * l at a time: row l of every slice copied to P first, whole rows, since read in place the
   * entries nv^2 apart (8 KB at 32 DoFs) share one set of the cache and evict each other */
  for (size_t l = 0; (sym == 1 || sym == 2) && l < n; l++) {
    for (size_t c = 0; c < n; c++) memcpy(P + c * n, Y + c * n2 + l * n, n * sizeof(double));
    for (size_t k = 0; k < n; k++) {
      size_t c0 = sym_first_column(m, sym, k);
      for (size_t c = 0; c < c0; c++) Y[k * n2 + l * n + c] = P[c * n + k];
    }
  }
}

/* every slice (above); with_k: column m of slice k is zero off R(m) and R(k) (the right-hand
 * sides of d2qdd/dq2), else off R(m) */
static void minv_neg_tensor(const hg_model *m, hg_data *d, hg_deriv2 *w, int solve, int sym,
                            int with_k, const double *X, double *Y) {
  size_t n = (size_t)m->nv, n2 = n * n;
  for (size_t k = 0; k < n; k++)
    minv_neg_slice(m, d, w, solve, sym_first_column(m, sym, k), sym == 3 ? k : 0,
                   with_k ? (int)k : -1, X + k * n2, Y + k * n2);
  sym_fill(m, sym, w->U, Y);
}

/* ---- the products dM/dq_m x of the identities ---- */

/* Along q, M x (x an acceleration that does not move with q) is RNEA(q, 0, x) without gravity, so
 * its derivative is hg_rnea_derivatives' formula at v = 0 (nu = 0, Bc = 0), with c the deeper of
 * the bodies of l and m:
 *   (dM/dq_m x)_l = S_l . Ic_c u_m                     m carries l (c: l's body),
 *                 = S_l . (Ic_c u_m + S_m x* F_c)      l carries m (c: m's body),
 *   u_m = a_m x S_m,   F_c = sum over c's subtree of I_b a_b,
 * where a_b = a_parent + sum over b's DoFs of S_k x_k is the acceleration x gives body b and a_m
 * that of the frame DoF m turns (its parent body's, plus S_k x_k of the DoFs before m along a
 * chain joint). Per DoF l: IS_l = Ic S_l (w->cis, once per call), u_l and Q_l = Ic u_l + S_l x*
 * F (w->cu and w->cq), four columns x side by side: [6][4] per DoF. Per pair (l, m) on one path:
 * one 6-term dot product of IS_l with u_m or S_l with Q_m for the four columns: O(N d) a column
 * (a tree of N bodies and depth d), where a product with the tensor dM/dq, whose non-zeros are
 * O(N d^2), costs that much a column; the tensor is not formed. */

/* w->cis: IS_l = Ic S_l for every DoF (Ic of l's body, from values()) */
static void dM_setup(const hg_model *m, const hg_data *d, hg_deriv2 *w) {
  for (int l = 0; l < m->nv; l++) {
    double *IS = w->cis + 6 * l;
    v6_zero(IS);
    sym_mulv_add(w->Ic + 36 * (size_t)m->dof_body[l], d->S[l], IS);
  }
}

/* u and Q of every DoF (w->cu, w->cq) for the columns x_r = A[., k0 + r], r < nr <= 4 (the
 * lanes past nr are zero). Per body (w->ca, w->cf): the acceleration a_b, then G_b = sum over
 * the DoFs k of b's subtree of IS_k x_k, so that F_b = Ic_b a_parent + G_b (each DoF k below
 * the parent adds S_k x_k to the accelerations of the bodies its body's composite holds) */
HG_HOT static void dM_columns(const hg_model *m, const hg_data *d, hg_deriv2 *w, const double *A,
                              int k0, int nr) {
  size_t n = (size_t)m->nv;
  hg_lane(*a)[6] = (hg_lane(*)[6])w->ca, (*G)[6] = (hg_lane(*)[6])w->cf;
  hg_lane(*u)[6] = (hg_lane(*)[6])w->cu, (*Q)[6] = (hg_lane(*)[6])w->cq;
  const hg_lane zero = {0, 0, 0, 0}, rest[6] = {zero, zero, zero, zero, zero, zero};
  for (int i = 1; i < m->nbody; i++) {
    int p = m->parent[i], va = m->v_adr[i], chain = !w->w1->coupled[i];
    const hg_lane *ap = p > 0 ? a[p] : rest; /* no gravity: a root's parent is at rest */
    hg_lane am[6];
    for (int e = 0; e < 6; e++) am[e] = ap[e], G[i][e] = zero;
    for (int k = va; k < va + m->jnt_nv[i]; k++) {
      const double *S = d->S[k], *IS = w->cis + 6 * k, *Ak = A + (size_t)k * n + k0;
      hg_lane x = zero, s[6] = {S[0] + zero, S[1] + zero, S[2] + zero,
                                S[3] + zero, S[4] + zero, S[5] + zero};
      for (int r = 0; r < nr; r++) x[r] = Ak[r];
      /* u_k = a_k x S_k (a_k: the parent's for a spherical or free joint) */
      hg_lane_ad(chain ? am : ap, s, u[k]);
      for (int e = 0; e < 6; e++) am[e] += S[e] * x, G[i][e] += IS[e] * x;
    }
    for (int e = 0; e < 6; e++) a[i][e] = am[e];
  }
  for (int i = m->nbody - 1; i > 0; i--) {
    int p = m->parent[i], va = m->v_adr[i];
    const double *Ic = w->Ic + 36 * (size_t)i;
    hg_lane F[6];
    for (int e = 0; e < 6; e++) F[e] = G[i][e];
    if (p > 0) hg_lane_mat6_mulv_add(Ic, a[p], F); /* F_b = Ic_b a_parent + G_b */
    for (int k = va; k < va + m->jnt_nv[i]; k++) {
      const double *S = d->S[k];
      hg_lane s[6] = {S[0] + zero, S[1] + zero, S[2] + zero,
                      S[3] + zero, S[4] + zero, S[5] + zero};
      hg_lane_cross_star(s, F, Q[k]); /* Q_k = S_k x* F_b + Ic_b u_k */
      hg_lane_mat6_mulv_add(Ic, u[k], Q[k]);
    }
    if (p > 0)
      for (int e = 0; e < 6; e++) G[p][e] += G[i][e];
  }
}

/* (dM_j A)[l, k] for the columns k = k0 .. k0 + nr - 1 of A (nr <= 4) and every pair (l, j) on
 * one path, into the slices from Y: Y[(k - k0) nv^2 + l nv + j] (add: +=, else =); with X (the
 * whole tensor, for d2qdd/dq2's second term) also X[l, k, j] += (dM_j A)[l, k]. Entries of Y off
 * the paths are not written. */
HG_HOT static void dM_block(const hg_model *m, const hg_data *d, hg_deriv2 *w, const double *A,
                            int k0, int nr, int add, double *Y, double *X) {
  const hg_deriv *w1 = w->w1;
  size_t n = (size_t)m->nv, n2 = n * n;
  dM_columns(m, d, w, A, k0, nr);
  for (int l = 0; l < m->nv; l++) {
    int c = m->dof_body[l], ce = carrier_end(m, w1, l);
    const int *rg = w1->ranges + 2 * w1->range_adr[c];
    int nrg = w1->range_adr[c + 1] - w1->range_adr[c];
    const double *IS = w->cis + 6 * l, *S = d->S[l];
    for (int g = 0; g < nrg; g++) {
      /* j carries l (every range but the first, and the first up to ce): IS_l . u_j;
       * l carries j: S_l . Q_j */
      int j0 = rg[2 * g], j1 = rg[2 * g + 1], jc = g ? j1 : ce < j1 ? ce : j1;
      for (int part = 0; part < 2; part++) {
        int a0 = part ? jc : j0, a1 = part ? j1 : jc, j = a0;
        const double *a = part ? S : IS, *x = part ? w->cq : w->cu;
        double *y = Y + (size_t)l * n, *xs = X ? X + (size_t)l * n + (size_t)k0 : NULL;
        for (; j + 4 <= a1; j += 4)
          hg_lane_dot6_block4(a, x + 24 * (size_t)j, y + j, n2, nr, add,
                              xs ? xs + (size_t)j * n2 : NULL, n2);
        for (; j < a1; j++) {
          const double *aj[1] = {a}, *xj[1] = {x + 24 * (size_t)j};
          double t[4];
          hg_lane_soa_dot4(1, aj, xj, 4, 0, t);
          if (add)
            hg_lane_scatter4_add(t, y + j, n2, nr);
          else
            hg_lane_scatter4(t, 0, y + j, n2, nr);
          if (xs) hg_lane_scatter4_add(t, xs + (size_t)j * n2, 1, nr);
        }
      }
    }
  }
}

/* X[l, j, k] += (dM_j A)[l, k] for every k (and with swap X[l, k, j] += the same) */
static void add_dM_times(const hg_model *m, const hg_data *d, hg_deriv2 *w, const double *A,
                         int swap, double *X) {
  size_t n = (size_t)m->nv;
  for (int k0 = 0; k0 < m->nv; k0 += 4)
    dM_block(m, d, w, A, k0, m->nv - k0 < 4 ? m->nv - k0 : 4, 1, X + (size_t)k0 * n * n,
             swap ? X : NULL);
}

/* Y = -M^-1 (T + dM_. A) (T may be NULL: zero) four slices at a time through w->U, whose
 * entries off the paths stay zero (calloc; T and dM_block write none there): slices k0 .. k0 +
 * nr - 1 of T copied in, the products added, each slice multiplied into Y (with sym 3 in the
 * rows from k) */
static void minv_neg_dM(const hg_model *m, hg_data *d, hg_deriv2 *w, int solve, int sym,
                        const double *T, const double *A, double *Y) {
  size_t n = (size_t)m->nv, n2 = n * n;
  for (int k0 = 0; k0 < m->nv; k0 += 4) {
    int nr = m->nv - k0 < 4 ? m->nv - k0 : 4;
    if (T) memcpy(w->U, T + (size_t)k0 * n2, (size_t)nr * n2 * sizeof(double));
    dM_block(m, d, w, A, k0, nr, T != NULL, w->U, NULL);
    for (int r = 0; r < nr; r++) {
      size_t k = (size_t)(k0 + r);
      minv_neg_slice(m, d, w, solve, 0, sym == 3 ? k : 0, -1, w->U + (size_t)r * n2, Y + k * n2);
    }
  }
  sym_fill(m, sym, w->U, Y);
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
  int solve = w->ltdl ? SOLVE_LTDL : w->w1->product ? SOLVE_PRODUCT : SOLVE_ARTICULATED;
  if (qdd) memcpy(qdd, w->qdd, n * sizeof(double));
  /* the inverse-dynamics second derivatives at the acceleration ABA found */
  hg_rnea_second_derivatives_paths(m, d, w, q, v, w->qdd, fext, d2qdd_dq2 ? w->t_qq : NULL,
                                   d2qdd_dv2 ? w->t_vv : NULL, d2qdd_dqdv ? w->t_qv : NULL,
                                   NULL);
  dM_setup(m, d, w);
  if (solve == SOLVE_LTDL) ltdl_factor(m, d, w);
  if (d2qdd_dq2) {
    /* -M^-1 (ID_qq[., m, k] + dM_m a_q[., k] + dM_k a_q[., m]) */
    memcpy(w->X, w->t_qq, n3 * sizeof(double));
    add_dM_times(m, d, w, w->aq, 1, w->X);
    minv_neg_tensor(m, d, w, solve, 1, 1, w->X, d2qdd_dq2);
  }
  if (d2qdd_dv2) minv_neg_tensor(m, d, w, solve, 2, 0, w->t_vv, d2qdd_dv2);
  /* -M^-1 (ID_qv[., m, k] + dM_m a_v[., k]) */
  if (d2qdd_dqdv) minv_neg_dM(m, d, w, solve, 0, w->t_qv, w->av, d2qdd_dqdv);
  /* -M^-1 dM_m M^-1[., k] */
  if (d2qdd_dqdtau) minv_neg_dM(m, d, w, solve, 3, NULL, w->Minv, d2qdd_dqdtau);
  return 0;
}

/* out = the hybrid outputs' second derivative for X (see hg_hybrid_second_derivatives): rows of
 * free DoFs -M_FF^-1 X_F (Minv: M_FF^-1 embedded, zero elsewhere), the others X + M_.F out_F */
static void hybrid_map2(const hg_model *m, hg_data *d, hg_deriv2 *w, int with_k,
                        const double *X, double *out) {
  size_t n = (size_t)m->nv, n2 = n * n;
  const double *M = w->w1->M;
  minv_neg_tensor(m, d, w, SOLVE_PRODUCT, 0, with_k, X, out);
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
                                   d2y_dv2 ? w->t_vv : NULL, d2y_dqdv ? w->t_qv : NULL, NULL);
  dM_setup(m, d, w);
  if (d2y_dq2) {
    memcpy(w->X, w->t_qq, n3 * sizeof(double));
    add_dM_times(m, d, w, w->aq, 1, w->X);
    hybrid_map2(m, d, w, 1, w->X, d2y_dq2);
  }
  if (d2y_dv2) hybrid_map2(m, d, w, 0, w->t_vv, d2y_dv2);
  if (d2y_dqdv) {
    memcpy(w->X, w->t_qv, n3 * sizeof(double));
    add_dM_times(m, d, w, w->av, 0, w->X);
    hybrid_map2(m, d, w, 0, w->X, d2y_dqdv);
  }
  if (d2y_dqdu) {
    memset(w->X, 0, n3 * sizeof(double));
    add_dM_times(m, d, w, w->au, 0, w->X);
    hybrid_map2(m, d, w, 0, w->X, d2y_dqdu);
  }
  return 0;
}
