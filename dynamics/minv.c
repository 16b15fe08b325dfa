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

/* backward across free joint i: its rows of M^-1 in its subtree's columns, and P_parent */
static void minv_backward(const hg_model *m, const hg_data *d, int i, double *Pi, double *Pp,
                          double *Minv) {
  int nv = m->nv, va = m->v_adr[i], n = m->jnt_nv[i], c1 = subtree_vend(m, i);
  const double *Dinv = d->Dinv + m->D_adr[i];
  for (int c = va; c < c1; c++) {
    double u[HG_JOINT_MAXNV], x[HG_JOINT_MAXNV];
    for (int a = 0; a < n; a++) {
      const double *S = d->S[va + a];
      double t = (c == va + a);
      for (int r = 0; r < 6; r++) t -= S[r] * Pi[r * nv + c];
      u[a] = t;
    }
    for (int a = 0; a < n; a++) {
      double t = 0;
      for (int b = 0; b < n; b++) t += Dinv[a * n + b] * u[b];
      x[a] = t;
      Minv[(size_t)(va + a) * nv + c] = t;
    }
    if (!Pp) continue;
    for (int r = 0; r < 6; r++) {
      double t = Pi[r * nv + c];
      for (int a = 0; a < n; a++) t += d->U[va + a][r] * x[a];
      Pp[r * nv + c] += t;
    }
  }
}

/* forward across free joint i over its tree's columns [c0, c1): Ap NULL is the world (A = 0) */
static void minv_forward(const hg_model *m, const hg_data *d, int i, int c0, int c1,
                         const double *Ap, double *Ai, double *Minv) {
  int nv = m->nv, va = m->v_adr[i], n = m->jnt_nv[i];
  const double *Dinv = d->Dinv + m->D_adr[i];
  for (int c = c0; c < c1; c++) {
    double x[HG_JOINT_MAXNV], a6[6] = {0, 0, 0, 0, 0, 0};
    if (Ap) {
      for (int r = 0; r < 6; r++) a6[r] = Ap[r * nv + c];
      for (int a = 0; a < n; a++) x[a] = hg_dot6(d->U[va + a], a6);
      for (int a = 0; a < n; a++) {
        double t = 0;
        for (int b = 0; b < n; b++) t += Dinv[a * n + b] * x[b];
        Minv[(size_t)(va + a) * nv + c] -= t;
      }
    }
    for (int a = 0; a < n; a++) {
      const double *S = d->S[va + a], mi = Minv[(size_t)(va + a) * nv + c];
      for (int r = 0; r < 6; r++) a6[r] += S[r] * mi;
    }
    for (int r = 0; r < 6; r++) Ai[r * nv + c] = a6[r];
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
      minv_backward(m, d, i, Pi, Pp, Minv);
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
      minv_forward(m, d, i, c0, c1, Ap, Ai, Minv);
    } else {
      for (int r = 0; r < 6; r++)
        for (int c = c0; c < c1; c++) Ai[r * nv + c] = Ap ? Ap[r * nv + c] : 0;
    }
  }
}
