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
 * The same recursion applies -M^-1 to any right-hand side X (nv x ncol) in place of the
 * identity (hg_minv_solve_neg: the backward pass starts from -X): then no column is known to
 * vanish in a subtree, and every pass runs over all columns.
 *
 * Where the wrenches P live. For the identity, P_i is non-zero only at the columns of i's
 * subtree, and the subtrees of siblings are disjoint column ranges: one 6 x nv block holds every
 * P_i at once, and P_parent += P_i + U_i M^-1[i, :] becomes P += U_i M^-1[i, :] in place (zeroed
 * once, nothing copied). For a right-hand side X, P_i spans every column, but a parent with one
 * child has P_parent = P_child + U_child Y[child, :]: a chain without branches shares one block,
 * updated in place, and only leaves and branch points have blocks of their own to zero. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "derivatives.h"
#include "dynamics.h"
#include "lanes.h"

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
  const double *X; /* nv x ld right-hand side, entering negated (-X), or NULL for the identity */
} sweep;

/* sweep_backward for a 1-DoF joint, four columns at a time with the six rows of P in
 * registers; the last, partial block as the four columns that end the range, its columns
 * before c left as they are (hg_v4_from; one at a time when the row is shorter than four).
 * Pp == Pi updates P in place:
 *   u = -X[i, :] - S^T P_i,  Y[i, :] = D^-1 u,  P_parent = (P_parent +) P_i + U Y[i, :] */
HG_HOT static void sweep_backward1(const hg_model *m, const hg_data *d, int i, const sweep *sw,
                            const double *Pi, double *Pp, double *Y) {
  int va = m->v_adr[i], ld = sw->ld, c0 = sw->c0, c1 = sw->c1, add = Pp && Pp != Pi;
  double dinv = d->Dinv[m->D_adr[i]], S[6], U[6];
  double *y = Y + (size_t)va * ld;
  const double *x = sw->X ? sw->X + (size_t)va * ld : NULL;
  for (int r = 0; r < 6; r++) S[r] = d->S[va][r], U[r] = d->U[va][r];
  int c = c0;
  for (; c + 4 <= c1; c += 4) {
    hg_v4 p[6], u = {0, 0, 0, 0};
    for (int r = 0; r < 6; r++) p[r] = HG_LD4(Pi + (size_t)r * ld + c);
    if (x) u = -HG_LD4(x + c);
    else if (c == va) u[0] = 1; /* the identity's column va */
    u -= S[0] * p[0] + S[1] * p[1] + S[2] * p[2] + S[3] * p[3] + S[4] * p[4] + S[5] * p[5];
    hg_v4 yc = dinv * u;
    HG_ST4(y + c, yc);
    if (!Pp) continue;
    for (int r = 0; r < 6; r++) {
      hg_v4 n = p[r] + U[r] * yc;
      if (add) n += HG_LD4(Pp + (size_t)r * ld + c);
      HG_ST4(Pp + (size_t)r * ld + c, n);
    }
  }
  if (c < c1 && c1 >= 4) {
    int w = c1 - 4, s = c - w;
    hg_v4 p[6], u;
    if (x) u = -HG_LD4(x + w);
    else hg_v4_unit(&u, va - w);
    for (int r = 0; r < 6; r++) p[r] = HG_LD4(Pi + (size_t)r * ld + w);
    u -= S[0] * p[0] + S[1] * p[1] + S[2] * p[2] + S[3] * p[3] + S[4] * p[4] + S[5] * p[5];
    hg_v4 yc = dinv * u, old = HG_LD4(y + w);
    hg_v4_from(&yc, &yc, &old, s);
    HG_ST4(y + w, yc);
    if (Pp)
      for (int r = 0; r < 6; r++) {
        hg_v4 n = p[r] + U[r] * yc, o = HG_LD4(Pp + (size_t)r * ld + w);
        if (add) n += o;
        hg_v4_from(&n, &n, &o, s);
        HG_ST4(Pp + (size_t)r * ld + w, n);
      }
    c = c1;
  }
  for (; c < c1; c++) {
    double u = x ? -x[c] : c == va;
    for (int r = 0; r < 6; r++) u -= S[r] * Pi[(size_t)r * ld + c];
    y[c] = dinv * u;
    if (!Pp) continue;
    for (int r = 0; r < 6; r++)
      Pp[(size_t)r * ld + c] = (add ? Pp[(size_t)r * ld + c] : 0) + Pi[(size_t)r * ld + c] +
                               U[r] * y[c];
  }
}

/* backward across free joint i:
 *   u = -X[i, :] - S^T P_i,  Y[i, :] = D^-1 u,  P_parent += P_i + U Y[i, :] */
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
      for (int c = c0; c < c1; c++) u[c] = -sw->X[(size_t)(va + a) * ld + c];
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
    double *pp = Pp + (size_t)r * ld;
    const double *pi = Pi + (size_t)r * ld;
    if (pp != pi)
      for (int c = c0; c < c1; c++) pp[c] += pi[c];
    for (int a = 0; a < n; a++) {
      const double *restrict y = Y + (size_t)(va + a) * ld;
      double uar = d->U[va + a][r];
      for (int c = c0; c < c1; c++) pp[c] += uar * y[c];
    }
  }
}

/* sweep_forward for a 1-DoF joint below another body, four columns at a time with the six rows
 * of A_parent in registers (the last, partial block as in sweep_backward1) */
HG_HOT static void sweep_forward1(const hg_model *m, const hg_data *d, int i, const sweep *sw,
                           const double *Ap, double *Ai, double *Y) {
  int va = m->v_adr[i], ld = sw->ld, c0 = sw->c0, c1 = sw->c1;
  double dinv = d->Dinv[m->D_adr[i]], S[6], U[6];
  double *y = Y + (size_t)va * ld;
  for (int r = 0; r < 6; r++) S[r] = d->S[va][r], U[r] = d->U[va][r];
  int c = c0;
  for (; c + 4 <= c1; c += 4) {
    hg_v4 a[6];
    for (int r = 0; r < 6; r++) a[r] = HG_LD4(Ap + (size_t)r * ld + c);
    hg_v4 yc = HG_LD4(y + c) - dinv * (U[0] * a[0] + U[1] * a[1] + U[2] * a[2] + U[3] * a[3] +
                                        U[4] * a[4] + U[5] * a[5]);
    HG_ST4(y + c, yc);
    for (int r = 0; r < 6; r++) HG_ST4(Ai + (size_t)r * ld + c, a[r] + S[r] * yc);
  }
  if (c < c1 && c1 >= 4) {
    int w = c1 - 4, s = c - w;
    hg_v4 a[6], yo = HG_LD4(y + w);
    for (int r = 0; r < 6; r++) a[r] = HG_LD4(Ap + (size_t)r * ld + w);
    hg_v4 yc = yo - dinv * (U[0] * a[0] + U[1] * a[1] + U[2] * a[2] + U[3] * a[3] +
                            U[4] * a[4] + U[5] * a[5]);
    hg_v4 ys;
    hg_v4_from(&ys, &yc, &yo, s);
    HG_ST4(y + w, ys);
    for (int r = 0; r < 6; r++) {
      hg_v4 n = a[r] + S[r] * yc, o = HG_LD4(Ai + (size_t)r * ld + w);
      hg_v4_from(&n, &n, &o, s);
      HG_ST4(Ai + (size_t)r * ld + w, n);
    }
    c = c1;
  }
  for (; c < c1; c++) {
    double ua = 0;
    for (int r = 0; r < 6; r++) ua += U[r] * Ap[(size_t)r * ld + c];
    double yc = y[c] - dinv * ua;
    y[c] = yc;
    for (int r = 0; r < 6; r++) Ai[(size_t)r * ld + c] = Ap[(size_t)r * ld + c] + S[r] * yc;
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

/* 1 when body i has exactly one child (then i + 1) */
static int one_child(const hg_model *m, int i) {
  return i + 1 < m->subtree_end[i] && m->subtree_end[i + 1] == m->subtree_end[i];
}

/* the whole recursion, Y = M^-1 (X NULL) or Y = -M^-1 X; identity: columns restricted to
 * subtrees (backward) and to the upper triangle of each tree (forward), the lower triangle
 * mirrored at the end */
HG_HOT static void recursion(const hg_model *m, hg_data *d, hg_deriv *w, const uint8_t *mode,
                      const double *X, int ld, double *Y) {
  size_t blk = 6 * (size_t)ld;
  if (X) {
    /* the rows of joints that are not free (the backward pass writes the others whole), and the
     * blocks of P of leaves and branch points (chains add into their child's, see the top) */
    for (int i = 1; i < m->nbody; i++) {
      if (!(m->jnt_nv[i] > 0 && (!mode || mode[i] == HG_MODE_FREE)))
        memset(Y + (size_t)m->v_adr[i] * ld, 0, (size_t)m->jnt_nv[i] * (size_t)ld * sizeof(double));
      if (!one_child(m, i)) memset(w->Fm + blk * (size_t)i, 0, blk * sizeof(double));
    }
  } else {
    /* the one block of P (body 0's), and the parts of rows the passes read before writing: the
     * passes write the upper triangle of the rows of free joints up to the end of their subtree
     * (the mirror does the lower one): zero the rest of those rows, and whole rows elsewhere */
    memset(w->Fm, 0, blk * sizeof(double));
    for (int i = 1; i < m->nbody; i++) {
      int c0 = m->v_adr[i], c1 = subtree_vend(m, i), n = m->jnt_nv[i];
      int z = n > 0 && (!mode || mode[i] == HG_MODE_FREE) ? c1 : c0;
      for (int a = c0; a < c0 + n; a++)
        memset(Y + (size_t)a * ld + z, 0, (size_t)(m->nv - z) * sizeof(double));
    }
  }

  /* backward: P_i, and Y's rows before the parent's acceleration is known; b is the block of
   * P_i (X: i's own, or its only child's) */
  for (int i = m->nbody - 1, b = 0; i > 0; i--) {
    int p = m->parent[i];
    sweep sw = {ld, X ? 0 : m->v_adr[i], X ? ld : subtree_vend(m, i), X};
    double *Pi, *Pp;
    if (X) {
      b = one_child(m, i) ? b : i;
      Pi = w->Fm + blk * (size_t)b;
      Pp = p <= 0 ? NULL : one_child(m, p) ? Pi : w->Fm + blk * (size_t)p;
    } else {
      Pi = w->Fm, Pp = p > 0 ? w->Fm : NULL;
    }
    if (m->jnt_nv[i] > 0 && (!mode || mode[i] == HG_MODE_FREE)) {
      sweep_backward(m, d, i, &sw, Pi, Pp, Y, w->X);
    } else if (Pp && Pp != Pi) {
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
}

/* The factors M^-1 needs, from the articulated-body recursion with no velocity, force or gravity:
 * its bias wrenches are then zero, and what remains is the articulated inertias (Featherstone,
 * "Rigid Body Dynamics Algorithms", ch. 7, without the bias terms), backward in index order
 * (children after their parent, each parent's children reached in decreasing index order, as in
 * the articulated pass, so the sums are the same):
 *   IA_i = I_i + sum over the children c of (IA_c - U_c D_c^-1 U_c^T),
 *   U_i = IA_i S_i,   D_i = S_i^T U_i + diag(armature_i).
 * Writes d->IA, d->U and d->Dinv (every joint free); returns -1 with d->err when a D_i is
 * singular or not finite, naming the joint as the articulated pass does. */
HG_HOT static int articulated_inertias(const hg_model *m, hg_data *d) {
  for (int i = 1; i < m->nbody; i++) hg_inertia_sym6(&d->I[i], d->IA[i]);
  for (int i = m->nbody - 1; i > 0; i--) {
    int va = m->v_adr[i], n = m->jnt_nv[i], p = m->parent[i], rc = 0;
    const double *IA = d->IA[i];
    double *Dinv = d->Dinv + m->D_adr[i], Pi[21];
    if (n == 0) {
      memcpy(Pi, IA, sizeof Pi);
    } else if (n == 1) {
      /* U = IA s, D = s^T U; scale bounds D from above for the singularity test */
      const double *s = d->S[va];
      double *U = d->U[va], scale = 0;
      hg_sym6_mulv(IA, s, U);
      double D = hg_dot6(s, U);
      HG_UNROLL(6)
      for (int r = 0; r < 6; r++) scale += fabs(IA[hg_sym6_index(r, r)]) * s[r] * s[r];
      if (m->has_armature) D += m->armature[va], scale += m->armature[va];
      if (!isfinite(D) || !isfinite(scale)) rc = -2;
      else if (!(D > 1e-12 * scale)) rc = -1;
      Dinv[0] = 1 / D;
      /* Pi = IA - W U^T with W = U D^-1 (its upper triangle) */
      HG_UNROLL(6)
      for (int r = 0; r < 6; r++) {
        double wr = U[r] * Dinv[0];
        HG_UNROLL(6)
        for (int k = r; k < 6; k++) Pi[hg_sym6_index(r, k)] = IA[hg_sym6_index(r, k)] - wr * U[k];
      }
    } else {
      /* U = IA S, D = S^T U, Dinv by Cholesky; Pi = IA - W U^T with W = U D^-1 */
      double D[36], scale[6], W[36];
      hg_vec6 *U = d->U + va;
      for (int k = 0; k < n; k++) {
        const double *s = d->S[va + k];
        hg_sym6_mulv(IA, s, U[k]);
        scale[k] = 0;
        for (int r = 0; r < 6; r++) scale[k] += fabs(IA[hg_sym6_index(r, r)]) * s[r] * s[r];
        for (int l = 0; l <= k; l++) D[k * n + l] = D[l * n + k] = hg_dot6(d->S[va + l], U[k]);
      }
      if (m->has_armature)
        for (int k = 0; k < n; k++) D[k * n + k] += m->armature[va + k], scale[k] += m->armature[va + k];
      rc = hg_spd_inverse(n, D, scale, Dinv);
      if (!rc) {
        for (int r = 0; r < 6; r++)
          for (int k = 0; k < n; k++) {
            double t = 0;
            for (int l = 0; l < n; l++) t += U[l][r] * Dinv[l * n + k];
            W[r * n + k] = t;
          }
        for (int r = 0; r < 6; r++)
          for (int c = r; c < 6; c++) {
            double t = IA[hg_sym6_index(r, c)];
            for (int k = 0; k < n; k++) t -= W[r * n + k] * U[k][c];
            Pi[hg_sym6_index(r, c)] = t;
          }
      }
    }
    if (rc) {
      if (rc == -1)
        snprintf(d->err, sizeof d->err,
                 "articulated inertia is singular at joint '%s' (body '%s'): the subtree it moves "
                 "has no mass or inertia along the joint's motion",
                 m->jnt_name[i], m->body_name[i]);
      else
        snprintf(d->err, sizeof d->err,
                 "non-finite articulated inertia at joint '%s' (body '%s'): check the state",
                 m->jnt_name[i], m->body_name[i]);
      return -1;
    }
    if (p > 0) {
      double *IAp = d->IA[p];
      for (int e = 0; e < 21; e++) IAp[e] += Pi[e];
    }
  }
  return 0;
}

int hg_minv(const hg_model *m, hg_data *d, hg_deriv *w, const double *q, double *Minv) {
  static const hg_pass_options world = {.tree_frame = 1, .world_frame = 1};
  hg_kinematics_opt(m, d, &world, q, NULL);
  if (articulated_inertias(m, d)) return -1;
  hg_minv_factored(m, d, w, NULL, Minv);
  return 0;
}
