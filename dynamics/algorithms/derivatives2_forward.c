/* derivatives2_forward.c: the second-order derivatives of forward and hybrid dynamics, from
 * those of inverse dynamics (derivatives2.c) and M^-1.
 *
 * ID(q, v, FD(q, v, tau)) = tau at every state (docs/linearization.md) gives,
 * with a_x = d qdd / d x = -M^-1 ID_x at qdd and dM_m = dM/dq_m,
 *   d2qdd/dq_m dq_k   = -M^-1 (ID_qq[., m, k] + dM_m a_q[., k] + dM_k a_q[., m]),
 *   d2qdd/dv_m dv_k   = -M^-1 ID_vv[., m, k],
 *   d2qdd/dq_m dv_k   = -M^-1 (ID_qv[., m, k] + dM_m a_v[., k]),
 *   d2qdd/dq_m dtau_k = -M^-1 dM_m M^-1[., k].
 * The products dM_m x come from the first-order formula of d(M x)/dq, four columns x at a time
 * (dM_columns), without the tensor dM/dq; -M^-1 is applied slice by slice, by products with M^-1
 * over the rows each block of columns can have non-zero (register-blocked), the articulated
 * recursion (long chains) or the factors M = L^T D L on the tree's sparsity (branched trees),
 * and the symmetries of the results halve the work of three of the four. The workspace
 * (derivatives2.h) is allocated by hg_deriv2_new; the lists this half reads are made once there,
 * by hg_deriv2_forward_init. */

#include <stdlib.h>
#include <string.h>

#include "derivatives2.h"
#include "derivatives2_local.h"
#include "dynamics.h"
#include "lanes.h"

/* ---- M = L^T D L on the tree's sparsity ---- */

/* w->H = the factors of M = L^T D L (Featherstone, "Rigid Body Dynamics Algorithms", sec. 6.5):
 * L unit lower triangular with L[k, i] != 0 only for i on k's path (lam), held below H's
 * diagonal, and D on it. M's entries on the paths are M[l, j] = S_j . Ic S_l (j before l on
 * l's path, Ic of l's body: IS_l = w->cis, hg_deriv2_dM_setup) plus the armature on the
 * diagonal. Then for k from the last DoF up, for each i on k's path: a = H[k, i] / H[k, k],
 * H[i, j] -= a H[k, j] for j on i's path (i itself first), H[k, i] = a. Reads d->S (the
 * world-frame pass). */
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

/* the entries of Y that sym lets minv_neg_slice leave out, from the others (P: nv^2 scratch,
 * w->fill; not w->U, whose entries off the paths minv_neg_dM needs zero) */
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
  sym_fill(m, sym, w->fill, Y);
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

void hg_deriv2_dM_setup(const hg_model *m, const hg_data *d, hg_deriv2 *w) {
  for (int l = 0; l < m->nv; l++) {
    double *IS = w->cis + 6 * l;
    /* Ic is symmetric: Ic S = Ic^T S */
    hg_lane6_mulTv(w->Ic + 36 * (size_t)m->dof_body[l], d->S[l], IS);
  }
}

/* u and Q of every DoF (w->cu, w->cq) for the columns x_r = A[., k0 + r], r < nr <= 4, of A
 * (rows lda apart; the lanes past nr are zero). Per body (w->ca, w->cf): the acceleration a_b,
 * then G_b = sum over the DoFs k of b's subtree of IS_k x_k, so that F_b = Ic_b a_parent + G_b
 * (each DoF k below the parent adds S_k x_k to the accelerations of the bodies its body's
 * composite holds) */
HG_HOT static void dM_columns(const hg_model *m, const hg_data *d, hg_deriv2 *w, const double *A,
                              size_t lda, int k0, int nr) {
  hg_lane(*a)[6] = (hg_lane(*)[6])w->ca, (*G)[6] = (hg_lane(*)[6])w->cf;
  hg_lane(*u)[6] = (hg_lane(*)[6])w->cu, (*Q)[6] = (hg_lane(*)[6])w->cq;
  const hg_lane zero = {0, 0, 0, 0}, rest[6] = {zero, zero, zero, zero, zero, zero};
  for (int i = 1; i < m->nbody; i++) {
    int p = m->parent[i], va = m->v_adr[i], chain = !w->w1->coupled[i];
    const hg_lane *ap = p > 0 ? a[p] : rest; /* no gravity: a root's parent is at rest */
    hg_lane am[6];
    for (int e = 0; e < 6; e++) am[e] = ap[e], G[i][e] = zero;
    for (int k = va; k < va + m->jnt_nv[i]; k++) {
      const double *S = d->S[k], *IS = w->cis + 6 * k, *Ak = A + (size_t)k * lda + k0;
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

/* (dM_j A)[l, k] for the columns k = k0 .. k0 + nr - 1 of A (nr <= 4; rows lda apart) and every
 * pair (l, j) on one path, into the slices from Y: Y[(k - k0) nv^2 + l nv + j] (add: +=, else
 * =); with X (the whole tensor, for d2qdd/dq2's second term) also X[l, k, j] += (dM_j A)[l, k].
 * Entries of Y off the paths are not written. */
HG_HOT static void dM_block(const hg_model *m, const hg_data *d, hg_deriv2 *w, const double *A,
                            size_t lda, int k0, int nr, int add, double *Y, double *X) {
  const hg_deriv *w1 = w->w1;
  size_t n = (size_t)m->nv, n2 = n * n;
  dM_columns(m, d, w, A, lda, k0, nr);
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
    dM_block(m, d, w, A, n, k0, m->nv - k0 < 4 ? m->nv - k0 : 4, 1, X + (size_t)k0 * n * n,
             swap ? X : NULL);
}

void hg_deriv2_dM_vector(const hg_model *m, const hg_data *d, hg_deriv2 *w, const double *x,
                         double *P) {
  memset(P, 0, (size_t)m->nv * (size_t)m->nv * sizeof(double));
  dM_block(m, d, w, x, 1, 0, 1, 0, P, NULL);
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
    dM_block(m, d, w, A, n, k0, nr, T != NULL, w->U, NULL);
    for (int r = 0; r < nr; r++) {
      size_t k = (size_t)(k0 + r);
      minv_neg_slice(m, d, w, solve, 0, sym == 3 ? k : 0, -1, w->U + (size_t)r * n2, Y + k * n2);
    }
  }
  sym_fill(m, sym, w->fill, Y);
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
  hg_deriv2_dM_setup(m, d, w);
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

int hg_deriv2_hybrid_first(const hg_model *m, hg_data *d, hg_deriv2 *w, const double *q,
                           const double *v, const double *u, const double *fext, double *y) {
  size_t n = (size_t)m->nv;
  /* the first-order derivatives (into aq, av, au), y into qdd */
  if (hg_hybrid_derivatives(m, d, w->w1, q, v, u, fext, w->qdd, w->aq, w->av, w->au)) return -1;
  if (y) memcpy(y, w->qdd, n * sizeof(double));
  /* M_FF^-1 on the hybrid pass's factors, before the inverse dynamics overwrite d */
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
  return 0;
}

int hg_hybrid_second_derivatives(const hg_model *m, hg_data *d, hg_deriv2 *w, const double *q,
                                 const double *v, const double *u, const double *fext,
                                 double *y, double *d2y_dq2, double *d2y_dv2, double *d2y_dqdv,
                                 double *d2y_dqdu) {
  size_t n = (size_t)m->nv, n3 = n * n * n;
  if (hg_deriv2_hybrid_first(m, d, w, q, v, u, fext, y)) return -1;
  hg_rnea_second_derivatives_paths(m, d, w, q, v, w->qdd, fext, d2y_dq2 ? w->t_qq : NULL,
                                   d2y_dv2 ? w->t_vv : NULL, d2y_dqdv ? w->t_qv : NULL, NULL);
  hg_deriv2_dM_setup(m, d, w);
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
