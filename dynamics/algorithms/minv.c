/* minv.c: the inverse mass matrix by the articulated-body recursion (M. Bos, S. Traversaro,
 * D. Pucci, A. Saccon, "Efficient geometric linearization of moving-base rigid robot dynamics",
 * Table 9; the operator-factorized M^-1 of A. Jain's spatial operator algebra), from the factors
 * U_i = IA_i S_i and D_i^-1 of the last articulated pass, without forming or inverting M.
 *
 * Column c of M^-1 is the ABA solution for tau = e_c with no velocity and no gravity. All columns
 * run at once, as 6 x nv blocks per body (w->Fm): backward, the bias wrenches P_i (only the
 * columns of i's subtree are non-zero) give
 *   M^-1[i, c] = D_i^-1 (e_c - S_i^T P_i[:, c]),   P_parent += P_i + U_i M^-1[i, :]   (c in i's subtree),
 * and forward, with A_i the accelerations (columns of i's whole tree),
 *   M^-1[i, :] -= D_i^-1 U_i^T A_parent,            A_i = A_parent + S_i M^-1[i, :].
 * Joints that are not free (hybrid modes, and fixed joints) pass P and A through unchanged and
 * have no rows or columns: the result is then M_FF^-1 embedded in an nv x nv matrix, with zeros
 * at prescribed rows and columns. O(N nv).
 *
 * M^-1 is symmetric, so the forward pass of body i needs only the columns from i's first DoF to
 * the end of its tree (the rows of i's descendants need no earlier ones): it fills the upper
 * triangle, and the lower one is its mirror. Only the parts of the wrenches P_i a pass reads are
 * zeroed.
 *
 * The same recursion applies M^-1 to any right-hand side X (nv x ncol) in place of the identity
 * (hg_minv_solve_neg): then no column is known to vanish in a subtree, and every pass runs over
 * all columns. */
#include <string.h>

#include "derivatives.h"

/* one past the last DoF of body i's subtree */
static int subtree_vend(const hg_model *m, int i) {
  int e = m->subtree_end[i];
  return e < m->nbody ? m->v_adr[e] : m->nv;
}

/* One recursion serves both: blocks are 6 x ld (row r of a block at r ld), the rows of Y are
 * ld long, a pass touches the columns [c0, c1), and X NULL stands for the identity. The loops run
 * over the columns innermost, along contiguous rows; T holds one joint's n rows. */
typedef struct sweep {
  int ld, c0, c1;
  const double *X; /* nv x ld right-hand side, or NULL for the identity */
} sweep;

/* sweep_backward for a 1-DoF joint, one pass over the columns with the six rows in registers */
HG_HOT static void sweep_backward1(const hg_model *m, const hg_data *d, int i, const sweep *sw,
                            const double *Pi, double *Pp, double *Y) {
  int va = m->v_adr[i], ld = sw->ld, c0 = sw->c0, c1 = sw->c1;
  double dinv = d->Dinv[m->D_adr[i]], S[6], U[6];
  const double *restrict P[6];
  double *restrict y = Y + (size_t)va * ld;
  for (int r = 0; r < 6; r++) S[r] = d->S[va][r], U[r] = d->U[va][r], P[r] = Pi + (size_t)r * ld;
  /* Y[i, :] = D^-1 (X[i, :] - S^T P_i) */
  for (int c = c0; c < c1; c++) {
    double u = sw->X ? sw->X[(size_t)va * ld + c] : 0;
    u -= S[0] * P[0][c] + S[1] * P[1][c] + S[2] * P[2][c] + S[3] * P[3][c] + S[4] * P[4][c] +
         S[5] * P[5][c];
    y[c] = dinv * u;
  }
  if (!sw->X) y[va] += dinv;
  if (!Pp) return;
  /* P_parent += P_i + U Y[i, :] */
  for (int r = 0; r < 6; r++) {
    double *restrict pp = Pp + (size_t)r * ld;
    const double *restrict pi = P[r];
    double ur = U[r];
    for (int c = c0; c < c1; c++) pp[c] += pi[c] + ur * y[c];
  }
}

/* backward across free joint i:
 *   u = X[i, :] - S^T P_i,  Y[i, :] = D^-1 u,  P_parent += P_i + U Y[i, :] */
HG_HOT static void sweep_backward(const hg_model *m, const hg_data *d, int i, const sweep *sw,
                           const double *Pi, double *Pp, double *Y, double *T) {
  int va = m->v_adr[i], n = m->jnt_nv[i], ld = sw->ld, c0 = sw->c0, c1 = sw->c1;
  const double *Dinv = d->Dinv + m->D_adr[i];
  if (n == 1) {
    sweep_backward1(m, d, i, sw, Pi, Pp, Y);
    return;
  }
  for (int a = 0; a < n; a++) {
    double *restrict u = T + (size_t)a * ld;
    const double *S = d->S[va + a];
    if (sw->X)
      for (int c = c0; c < c1; c++) u[c] = sw->X[(size_t)(va + a) * ld + c];
    else
      for (int c = c0; c < c1; c++) u[c] = c == va + a;
    for (int r = 0; r < 6; r++) {
      const double *restrict P = Pi + (size_t)r * ld;
      double sr = S[r];
      if (sr != 0)
        for (int c = c0; c < c1; c++) u[c] -= sr * P[c];
    }
  }
  for (int a = 0; a < n; a++) {
    double *restrict y = Y + (size_t)(va + a) * ld;
    for (int c = c0; c < c1; c++) y[c] = 0;
    for (int b = 0; b < n; b++) {
      const double *restrict u = T + (size_t)b * ld;
      double dab = Dinv[a * n + b];
      for (int c = c0; c < c1; c++) y[c] += dab * u[c];
    }
  }
  if (!Pp) return;
  for (int r = 0; r < 6; r++) {
    double *restrict pp = Pp + (size_t)r * ld;
    const double *restrict pi = Pi + (size_t)r * ld;
    for (int c = c0; c < c1; c++) pp[c] += pi[c];
    for (int a = 0; a < n; a++) {
      const double *restrict y = Y + (size_t)(va + a) * ld;
      double uar = d->U[va + a][r];
      for (int c = c0; c < c1; c++) pp[c] += uar * y[c];
    }
  }
}

/* sweep_forward for a 1-DoF joint below another body, one pass over the columns */
HG_HOT static void sweep_forward1(const hg_model *m, const hg_data *d, int i, const sweep *sw,
                           const double *Ap, double *Ai, double *Y) {
  int va = m->v_adr[i], ld = sw->ld, c0 = sw->c0, c1 = sw->c1;
  double dinv = d->Dinv[m->D_adr[i]], S[6], U[6];
  const double *restrict A[6];
  double *restrict B[6];
  double *restrict y = Y + (size_t)va * ld;
  for (int r = 0; r < 6; r++) {
    S[r] = d->S[va][r], U[r] = d->U[va][r];
    A[r] = Ap + (size_t)r * ld, B[r] = Ai + (size_t)r * ld;
  }
  for (int c = c0; c < c1; c++) {
    double a0 = A[0][c], a1 = A[1][c], a2 = A[2][c], a3 = A[3][c], a4 = A[4][c], a5 = A[5][c];
    double yc = y[c] - dinv * (U[0] * a0 + U[1] * a1 + U[2] * a2 + U[3] * a3 + U[4] * a4 +
                               U[5] * a5);
    y[c] = yc;
    B[0][c] = a0 + S[0] * yc, B[1][c] = a1 + S[1] * yc, B[2][c] = a2 + S[2] * yc;
    B[3][c] = a3 + S[3] * yc, B[4][c] = a4 + S[4] * yc, B[5][c] = a5 + S[5] * yc;
  }
}

/* forward across free joint i (Ap NULL: the world, A = 0):
 *   Y[i, :] -= D^-1 U^T A_parent,  A_i = A_parent + S Y[i, :] */
HG_HOT static void sweep_forward(const hg_model *m, const hg_data *d, int i, const sweep *sw,
                          const double *Ap, double *Ai, double *Y, double *T) {
  int va = m->v_adr[i], n = m->jnt_nv[i], ld = sw->ld, c0 = sw->c0, c1 = sw->c1;
  const double *Dinv = d->Dinv + m->D_adr[i];
  if (n == 1 && Ap) {
    sweep_forward1(m, d, i, sw, Ap, Ai, Y);
    return;
  }
  if (Ap) {
    for (int a = 0; a < n; a++) {
      double *restrict x = T + (size_t)a * ld;
      const double *U = d->U[va + a];
      for (int c = c0; c < c1; c++) x[c] = 0;
      for (int r = 0; r < 6; r++) {
        const double *restrict ap = Ap + (size_t)r * ld;
        double ur = U[r];
        for (int c = c0; c < c1; c++) x[c] += ur * ap[c];
      }
    }
    for (int a = 0; a < n; a++) {
      double *restrict y = Y + (size_t)(va + a) * ld;
      for (int b = 0; b < n; b++) {
        const double *restrict x = T + (size_t)b * ld;
        double dab = Dinv[a * n + b];
        for (int c = c0; c < c1; c++) y[c] -= dab * x[c];
      }
    }
  }
  for (int r = 0; r < 6; r++) {
    double *restrict ai = Ai + (size_t)r * ld;
    if (Ap)
      for (int c = c0; c < c1; c++) ai[c] = Ap[(size_t)r * ld + c];
    else
      for (int c = c0; c < c1; c++) ai[c] = 0;
    for (int a = 0; a < n; a++) {
      const double *restrict y = Y + (size_t)(va + a) * ld;
      double sr = d->S[va + a][r];
      if (sr != 0)
        for (int c = c0; c < c1; c++) ai[c] += sr * y[c];
    }
  }
}

/* the whole recursion; identity: columns restricted to subtrees (backward) and to the upper
 * triangle of each tree (forward), the lower triangle mirrored at the end */
HG_HOT static void recursion(const hg_model *m, hg_data *d, hg_deriv *w, const uint8_t *mode,
                      const double *X, int ld, double *Y) {
  size_t blk = 6 * (size_t)ld;
  if (X) {
    memset(Y, 0, (size_t)m->nv * (size_t)ld * sizeof(double));
    memset(w->Fm, 0, blk * (size_t)m->nbody * sizeof(double));
  } else {
    /* the backward pass reads P_i over i's subtree's columns only, and the passes write the
     * upper triangle of the rows of free joints up to the end of their subtree (the mirror does
     * the lower one): zero the rest of those rows, and whole rows elsewhere */
    for (int i = 1; i < m->nbody; i++) {
      int c0 = m->v_adr[i], c1 = subtree_vend(m, i), n = m->jnt_nv[i];
      int z = n > 0 && (!mode || mode[i] == HG_MODE_FREE) ? c1 : c0;
      for (int r = 0; r < 6; r++) memset(w->Fm + blk * (size_t)i + (size_t)r * ld + c0, 0,
                                         (size_t)(c1 - c0) * sizeof(double));
      for (int a = c0; a < c0 + n; a++)
        memset(Y + (size_t)a * ld + z, 0, (size_t)(m->nv - z) * sizeof(double));
    }
  }

  /* backward: P_i, and Y's rows before the parent's acceleration is known */
  for (int i = m->nbody - 1; i > 0; i--) {
    int p = m->parent[i];
    sweep sw = {ld, X ? 0 : m->v_adr[i], X ? ld : subtree_vend(m, i), X};
    double *Pi = w->Fm + blk * (size_t)i, *Pp = p > 0 ? w->Fm + blk * (size_t)p : NULL;
    if (m->jnt_nv[i] > 0 && (!mode || mode[i] == HG_MODE_FREE)) {
      sweep_backward(m, d, i, &sw, Pi, Pp, Y, w->X);
    } else if (Pp) {
      for (int r = 0; r < 6; r++)
        for (int c = sw.c0; c < sw.c1; c++) Pp[(size_t)r * ld + c] += Pi[(size_t)r * ld + c];
    }
  }

  /* forward: the accelerations A_i, and the rest of Y's rows */
  for (int i = 1; i < m->nbody; i++) {
    int p = m->parent[i], root = m->root[i];
    sweep sw = {ld, X ? 0 : m->v_adr[i], X ? ld : subtree_vend(m, root), X};
    double *Ai = w->Fm + blk * (size_t)i;
    const double *Ap = p > 0 ? w->Fm + blk * (size_t)p : NULL;
    if (m->jnt_nv[i] > 0 && (!mode || mode[i] == HG_MODE_FREE)) {
      sweep_forward(m, d, i, &sw, Ap, Ai, Y, w->X);
    } else {
      for (int r = 0; r < 6; r++)
        for (int c = sw.c0; c < sw.c1; c++)
          Ai[(size_t)r * ld + c] = Ap ? Ap[(size_t)r * ld + c] : 0;
    }
  }
  if (X) return;

  /* the lower triangle */
  for (int r = 1; r < m->nv; r++)
    for (int c = 0; c < r; c++) Y[(size_t)r * ld + c] = Y[(size_t)c * ld + r];
}

void hg_minv_factored(const hg_model *m, hg_data *d, hg_deriv *w, const uint8_t *mode,
                      double *Minv) {
  recursion(m, d, w, mode, NULL, m->nv, Minv);
}

void hg_minv_solve_neg(const hg_model *m, hg_data *d, hg_deriv *w, const uint8_t *mode,
                       const double *X, int ncol, double *Y) {
  recursion(m, d, w, mode, X, ncol, Y);
  for (int k = 0; k < m->nv * ncol; k++) Y[k] = -Y[k];
}
