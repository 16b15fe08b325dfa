/* minv.c: the inverse mass matrix by the articulated-body recursion (seed 000 Table 9, the
 * operator-factorized M^-1 of seed 004), from the factors U_i = IA_i S_i and D_i^-1 of the last
 * articulated pass, without forming or inverting M.
 *
 * Column c of M^-1 is the ABA solution for tau = e_c with no velocity and no gravity. All columns
 * run at once, as 6 x nv blocks per body (w->Fm): backward, the bias wrenches P_i (only the
 * columns of i's subtree are non-zero) give
 *   M^-1[i, c] = D_i^-1 (e_c - S_i^T P_i[:, c]),   P_parent += P_i + U_i M^-1[i, :]   (c in i's subtree),
 * and forward, with A_i the accelerations (columns of i's whole tree),
 *   M^-1[i, :] -= D_i^-1 U_i^T A_parent,            A_i = A_parent + S_i M^-1[i, :].
 * Joints that are not free (hybrid modes, and fixed joints) pass P and A through unchanged and
 * have no rows or columns: the result is then M_FF^-1 embedded in an nv x nv matrix, with zeros
 * at prescribed rows and columns. O(N nv). */
#include <string.h>

#include "derivatives.h"

/* one past the last DoF of body i's subtree */
static int subtree_vend(const hg_model *m, int i) {
  int e = m->subtree_end[i];
  return e < m->nbody ? m->v_adr[e] : m->nv;
}

/* The loops below run over the columns c innermost, along contiguous rows of the 6 x nv blocks
 * and of M^-1 (X: n x nv scratch rows). */

/* backward across free joint i: its rows of M^-1 in its subtree's columns [va, c1), and P_parent:
 *   u = E - S^T P_i,  M^-1[i, :] = D^-1 u,  P_parent += P_i + U M^-1[i, :] */
static void minv_backward(const hg_model *m, const hg_data *d, int i, const double *Pi,
                          double *Pp, double *Minv, double *X) {
  int nv = m->nv, va = m->v_adr[i], n = m->jnt_nv[i], c1 = subtree_vend(m, i);
  const double *Dinv = d->Dinv + m->D_adr[i];
  for (int a = 0; a < n; a++) {
    double *restrict u = X + (size_t)a * nv;
    const double *S = d->S[va + a];
    for (int c = va; c < c1; c++) u[c] = 0;
    for (int r = 0; r < 6; r++) {
      const double *restrict P = Pi + (size_t)r * nv;
      double sr = S[r];
      if (sr != 0)
        for (int c = va; c < c1; c++) u[c] -= sr * P[c];
    }
    u[va + a] += 1;
  }
  for (int a = 0; a < n; a++) {
    double *restrict row = Minv + (size_t)(va + a) * nv;
    for (int c = va; c < c1; c++) row[c] = 0;
    for (int b = 0; b < n; b++) {
      const double *restrict u = X + (size_t)b * nv;
      double dab = Dinv[a * n + b];
      for (int c = va; c < c1; c++) row[c] += dab * u[c];
    }
  }
  if (!Pp) return;
  for (int r = 0; r < 6; r++) {
    double *restrict pp = Pp + (size_t)r * nv;
    const double *restrict pi = Pi + (size_t)r * nv;
    for (int c = va; c < c1; c++) pp[c] += pi[c];
    for (int a = 0; a < n; a++) {
      const double *restrict row = Minv + (size_t)(va + a) * nv;
      double uar = d->U[va + a][r];
      for (int c = va; c < c1; c++) pp[c] += uar * row[c];
    }
  }
}

/* forward across free joint i over its tree's columns [c0, c1) (Ap NULL: the world, A = 0):
 *   M^-1[i, :] -= D^-1 U^T A_parent,  A_i = A_parent + S M^-1[i, :] */
static void minv_forward(const hg_model *m, const hg_data *d, int i, int c0, int c1,
                         const double *Ap, double *Ai, double *Minv, double *X) {
  int nv = m->nv, va = m->v_adr[i], n = m->jnt_nv[i];
  const double *Dinv = d->Dinv + m->D_adr[i];
  if (Ap) {
    for (int a = 0; a < n; a++) {
      double *restrict x = X + (size_t)a * nv;
      const double *U = d->U[va + a];
      for (int c = c0; c < c1; c++) x[c] = 0;
      for (int r = 0; r < 6; r++) {
        const double *restrict ap = Ap + (size_t)r * nv;
        double ur = U[r];
        for (int c = c0; c < c1; c++) x[c] += ur * ap[c];
      }
    }
    for (int a = 0; a < n; a++) {
      double *restrict row = Minv + (size_t)(va + a) * nv;
      for (int b = 0; b < n; b++) {
        const double *restrict x = X + (size_t)b * nv;
        double dab = Dinv[a * n + b];
        for (int c = c0; c < c1; c++) row[c] -= dab * x[c];
      }
    }
  }
  for (int r = 0; r < 6; r++) {
    double *restrict ai = Ai + (size_t)r * nv;
    if (Ap)
      for (int c = c0; c < c1; c++) ai[c] = Ap[(size_t)r * nv + c];
    else
      for (int c = c0; c < c1; c++) ai[c] = 0;
    for (int a = 0; a < n; a++) {
      const double *restrict row = Minv + (size_t)(va + a) * nv;
      double sr = d->S[va + a][r];
      if (sr != 0)
        for (int c = c0; c < c1; c++) ai[c] += sr * row[c];
    }
  }
}

void hg_minv_factored(const hg_model *m, hg_data *d, hg_deriv *w, const uint8_t *mode,
                      double *Minv) {
  int nv = m->nv;
  size_t blk = 6 * (size_t)nv;
  memset(Minv, 0, (size_t)nv * (size_t)nv * sizeof(double));
  memset(w->Fm, 0, blk * (size_t)m->nbody * sizeof(double));

  /* backward: P_i, and the rows of M^-1 in each subtree's columns */
  for (int i = m->nbody - 1; i > 0; i--) {
    int p = m->parent[i], c1 = subtree_vend(m, i);
    double *Pi = w->Fm + blk * (size_t)i, *Pp = p > 0 ? w->Fm + blk * (size_t)p : NULL;
    if (m->jnt_nv[i] > 0 && (!mode || mode[i] == HG_MODE_FREE)) {
      minv_backward(m, d, i, Pi, Pp, Minv, w->X);
    } else if (Pp) {
      for (int r = 0; r < 6; r++)
        for (int c = m->v_adr[i]; c < c1; c++) Pp[r * nv + c] += Pi[r * nv + c];
    }
  }

  /* forward: accelerations A_i over the columns of i's tree, and the rest of M^-1's rows */
  for (int i = 1; i < m->nbody; i++) {
    int p = m->parent[i], root = m->root[i];
    int c0 = m->v_adr[root], c1 = subtree_vend(m, root);
    double *Ai = w->Fm + blk * (size_t)i;
    const double *Ap = p > 0 ? w->Fm + blk * (size_t)p : NULL;
    if (m->jnt_nv[i] > 0 && (!mode || mode[i] == HG_MODE_FREE)) {
      minv_forward(m, d, i, c0, c1, Ap, Ai, Minv, w->X);
    } else {
      for (int r = 0; r < 6; r++)
        for (int c = c0; c < c1; c++) Ai[r * nv + c] = Ap ? Ap[r * nv + c] : 0;
    }
  }
}

/* ---- M^-1 X for a dense X ----
 * The same recursion with a right-hand side in every column: X (nv x ncol, row-major) takes the
 * place of the identity, so no column is known to vanish in a subtree. Y = -M^-1 X. */

/* backward across free joint i: Y[i, :] = D^-1 (X[i, :] - S^T P_i), P_parent += P_i + U Y[i, :] */
static void solve_backward(const hg_model *m, const hg_data *d, int i, int ncol, const double *X,
                           const double *Pi, double *Pp, double *Y, double *T) {
  int va = m->v_adr[i], n = m->jnt_nv[i];
  const double *Dinv = d->Dinv + m->D_adr[i];
  for (int a = 0; a < n; a++) {
    double *restrict u = T + (size_t)a * ncol;
    const double *restrict x = X + (size_t)(va + a) * ncol, *S = d->S[va + a];
    for (int c = 0; c < ncol; c++) u[c] = x[c];
    for (int r = 0; r < 6; r++) {
      const double *restrict P = Pi + (size_t)r * ncol;
      double sr = S[r];
      if (sr != 0)
        for (int c = 0; c < ncol; c++) u[c] -= sr * P[c];
    }
  }
  for (int a = 0; a < n; a++) {
    double *restrict y = Y + (size_t)(va + a) * ncol;
    for (int c = 0; c < ncol; c++) y[c] = 0;
    for (int b = 0; b < n; b++) {
      const double *restrict u = T + (size_t)b * ncol;
      double dab = Dinv[a * n + b];
      for (int c = 0; c < ncol; c++) y[c] += dab * u[c];
    }
  }
  if (!Pp) return;
  for (int r = 0; r < 6; r++) {
    double *restrict pp = Pp + (size_t)r * ncol;
    const double *restrict pi = Pi + (size_t)r * ncol;
    for (int c = 0; c < ncol; c++) pp[c] += pi[c];
    for (int a = 0; a < n; a++) {
      const double *restrict y = Y + (size_t)(va + a) * ncol;
      double uar = d->U[va + a][r];
      for (int c = 0; c < ncol; c++) pp[c] += uar * y[c];
    }
  }
}

/* forward across free joint i: Y[i, :] -= D^-1 U^T A_parent, A_i = A_parent + S Y[i, :] */
static void solve_forward(const hg_model *m, const hg_data *d, int i, int ncol, const double *Ap,
                          double *Ai, double *Y, double *T) {
  int va = m->v_adr[i], n = m->jnt_nv[i];
  const double *Dinv = d->Dinv + m->D_adr[i];
  if (Ap) {
    for (int a = 0; a < n; a++) {
      double *restrict x = T + (size_t)a * ncol;
      const double *U = d->U[va + a];
      for (int c = 0; c < ncol; c++) x[c] = 0;
      for (int r = 0; r < 6; r++) {
        const double *restrict ap = Ap + (size_t)r * ncol;
        double ur = U[r];
        for (int c = 0; c < ncol; c++) x[c] += ur * ap[c];
      }
    }
    for (int a = 0; a < n; a++) {
      double *restrict y = Y + (size_t)(va + a) * ncol;
      for (int b = 0; b < n; b++) {
        const double *restrict x = T + (size_t)b * ncol;
        double dab = Dinv[a * n + b];
        for (int c = 0; c < ncol; c++) y[c] -= dab * x[c];
      }
    }
  }
  for (int r = 0; r < 6; r++) {
    double *restrict ai = Ai + (size_t)r * ncol;
    if (Ap)
      for (int c = 0; c < ncol; c++) ai[c] = Ap[(size_t)r * ncol + c];
    else
      for (int c = 0; c < ncol; c++) ai[c] = 0;
    for (int a = 0; a < n; a++) {
      const double *restrict y = Y + (size_t)(va + a) * ncol;
      double sr = d->S[va + a][r];
      if (sr != 0)
        for (int c = 0; c < ncol; c++) ai[c] += sr * y[c];
    }
  }
}

void hg_minv_solve_neg(const hg_model *m, hg_data *d, hg_deriv *w, const double *X, int ncol,
                       double *Y) {
  size_t blk = 6 * (size_t)ncol;
  memset(w->Fm, 0, blk * (size_t)m->nbody * sizeof(double));
  for (int k = 0; k < m->nv * ncol; k++) Y[k] = 0;
  for (int i = m->nbody - 1; i > 0; i--) {
    int p = m->parent[i];
    double *Pi = w->Fm + blk * (size_t)i, *Pp = p > 0 ? w->Fm + blk * (size_t)p : NULL;
    if (m->jnt_nv[i] > 0) {
      solve_backward(m, d, i, ncol, X, Pi, Pp, Y, w->X);
    } else if (Pp) {
      for (size_t k = 0; k < blk; k++) Pp[k] += Pi[k];
    }
  }
  for (int i = 1; i < m->nbody; i++) {
    int p = m->parent[i];
    double *Ai = w->Fm + blk * (size_t)i;
    const double *Ap = p > 0 ? w->Fm + blk * (size_t)p : NULL;
    if (m->jnt_nv[i] > 0) solve_forward(m, d, i, ncol, Ap, Ai, Y, w->X);
    else
      for (size_t k = 0; k < blk; k++) Ai[k] = Ap ? Ap[k] : 0;
  }
  for (int k = 0; k < m->nv * ncol; k++) Y[k] = -Y[k];
}
