/* response.c: responses of the factored articulated inertias to loads (several right-hand sides),
 * what closed loops (loops.c) need after one tree-frame hybrid pass: the joint accelerations (and
 * the load changes at non-free joints) that body wrenches or DoF forces alone cause, with zero
 * velocity, gravity and joint forces, and G M^-1 G^T directly through the operational-space
 * inertias (K. W. Chang and O. Khatib, "Efficient Recursive Algorithm for the Operational Space
 * Inertia Matrix of Branching Mechanisms"). Both read the factors d->IA, d->U, d->Dinv, d->S and
 * d->T_tree that articulated.c's tree-frame pass leaves (dynamics.h says who writes them). The
 * armature (model.h) is in D; only K's vanishing across six DoFs needs it to be zero there. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dynamics.h"
#include "lanes.h"

/* ---- responses of the factored articulated inertias (several right-hand sides) ---- */

hg_response *hg_response_new(const hg_model *m, int ncol) {
  hg_response *r = calloc(1, sizeof *r);
  size_t nb = (size_t)m->nbody, nv = (size_t)m->nv + 1, nc = (size_t)(ncol > 0 ? ncol : 1);
  if (!r) return NULL;
  r->ncol = (int)nc;
  r->pA = calloc(nb * nc, sizeof(hg_vec6));
  r->a = calloc(nb * nc, sizeof(hg_vec6));
  r->u = calloc(nv * nc, sizeof(double));
  r->qdd = calloc(nv * nc, sizeof(double));
  r->tau = calloc(nv * nc, sizeof(double));
  r->on = calloc(nb, 1);
  r->live = calloc(nb, sizeof(uint64_t));
  r->path = calloc(nb, sizeof(int));
  r->order = calloc(2 * nc, sizeof(int));
  r->col = calloc(2 * nc + 4, sizeof(hg_vec6));
  if (!r->pA || !r->a || !r->u || !r->qdd || !r->tau || !r->on || !r->live || !r->path ||
      !r->order || !r->col) {
    hg_response_free(r);
    return NULL;
  }
  return r;
}

void hg_response_free(hg_response *r) {
  if (!r) return;
  free(r->pA), free(r->a), free(r->u), free(r->qdd), free(r->tau), free(r->on), free(r->live);
  free(r->path), free(r->order), free(r->col);
  free(r);
}

/* 1 when right-hand side c has a load in the subtree of the body whose mask is live (more than
 * 64 right-hand sides: always) */
static inline int col_live(uint64_t live, int c, int nc) {
  return nc > 64 || (live >> c & 1);
}

/* x = D^-1 w across a joint of n DoFs (n = 6, a free joint's: sizes fixed, so that it unrolls) */
HG_INLINE void dinv_mulv(const double *Dinv, int n, const double *w, double *x) {
  if (n == 6) {
    for (int k = 0; k < 6; k++) {
      double t = 0;
HG_UNROLL(6)
      for (int l = 0; l < 6; l++) t += Dinv[k * 6 + l] * w[l];
      x[k] = t;
    }
    return;
  }
  for (int k = 0; k < n; k++) {
    double t = 0;
    for (int l = 0; l < n; l++) t += Dinv[k * n + l] * w[l];
    x[k] = t;
  }
}

/* With no velocity, gravity or force but the loads, the articulated pass keeps its factors and
 * only its biases change: backward, pA_i = -(loads on i) + sum of the children's beta, and across
 * a free joint u = f - S^T pA, beta = pA + U D^-1 u (c = 0); across a prescribed one beta = pA.
 * Bodies off every loaded path keep pA = 0, u = 0 and are not visited, nor is a right-hand side
 * at a body with none of its loads below (r->live). Forward, a free joint's
 * qdd = D^-1 (u - U^T a_p), a = a_p + S qdd; a prescribed one's qdd = 0, a = a_p and its load
 * tau = S^T (IA a + pA) - f, f the force applied at the DoF itself. */
HG_INLINE void response(const hg_model *m, const hg_data *d, const hg_response_load *load,
                        int nload, int ncol, int all, hg_response *r) {
  const int nb = m->nbody, nv = m->nv, nc = ncol;
  uint8_t *on = r->on;
  uint64_t *live = r->live;
  hg_vec6 *pA = r->pA, *A = r->a;
  double *u = r->u;

  /* the loaded bodies' paths to their roots, their biases and DoF forces zero, then the loads;
   * live[i]: the right-hand sides with a load in i's subtree */
  memset(on, 0, (size_t)nb);
  if (nc == 1) {
    /* one right-hand side: every DoF force zero (none is read unset), every path live */
    memset(u, 0, (size_t)nv * sizeof(double));
    for (int l = 0; l < nload; l++)
      for (int b = load[l].body; b > 0 && !on[b]; b = m->parent[b]) {
        on[b] = 1, live[b] = 1;
        for (int k = 0; k < 6; k++) pA[b][k] = 0;
      }
  } else {
    for (int l = 0; l < nload; l++)
      for (int b = load[l].body; b > 0; b = m->parent[b]) {
        uint64_t bit = nc > 64 ? 0 : (uint64_t)1 << load[l].col;
        if (!on[b]) {
          on[b] = 1, live[b] = 0;
          memset(pA + (size_t)b * nc, 0, (size_t)nc * sizeof(hg_vec6));
          memset(u + (size_t)m->v_adr[b] * nc, 0, (size_t)(m->jnt_nv[b] * nc) * sizeof(double));
        } else if (live[b] & bit && bit) {
          break; /* the rest of the path has it already */
        }
        live[b] |= bit;
      }
  }
  for (int l = 0; l < nload; l++) {
    const hg_response_load *L = &load[l];
    if (L->dof >= 0) u[(size_t)L->dof * nc + L->col] += L->w[0];
    else if (L->body > 0)
      for (int k = 0; k < 6; k++) pA[(size_t)L->body * nc + L->col][k] -= L->w[k];
  }

  /* backward along the paths (decreasing index: children before parents) */
  for (int i = nb - 1; i > 0; i--) {
    if (!on[i]) continue;
    int n = m->jnt_nv[i], va = m->v_adr[i], p = m->parent[i];
    int free_joint = n > 0 && d->mode[i] == HG_MODE_FREE;
    const double *Dinv = d->Dinv + m->D_adr[i];
    uint64_t lv = live[i];
    hg_vec6 *pai = pA + (size_t)i * nc, *pap = pA + (size_t)p * nc;
    if (free_joint && n == 1) {
      /* u = f - s^T pA;  beta = pA + U u / D */
      const double *s = d->S[va], *U = d->U[va];
      double *ui = u + (size_t)va * nc, Di = Dinv[0];
      for (int c = 0; c < nc; c++) {
        if (!col_live(lv, c, nc)) continue;
        double *pa = pai[c];
        double uk = ui[c] - hg_dot6(s, pa);
        ui[c] = uk;
        double x = Di * uk;
        if (p) {
          /* on the lanes: pA_p += pA + U x */
          HG_ST4(pap[c], HG_LD4(pap[c]) + HG_LD4(pa) + HG_LD4(U) * x);
          HG_ST2(pap[c] + 4, HG_LD2(pap[c] + 4) + HG_LD2(pa + 4) + HG_LD2(U + 4) * x);
        }
      }
      continue;
    }
    for (int c = 0; c < nc; c++) {
      if (!col_live(lv, c, nc)) continue;
      double *pa = pai[c], beta[6];
      for (int k = 0; k < 6; k++) beta[k] = pa[k];
      if (free_joint) {
        /* u = f - S^T pA;  beta = pA + U D^-1 u */
        double uk[HG_JOINT_MAXNV], x[HG_JOINT_MAXNV];
        for (int k = 0; k < n; k++) {
          double *uc = &u[(size_t)(va + k) * nc + c];
          *uc -= hg_dot6(d->S[va + k], pa);
          uk[k] = *uc;
        }
        dinv_mulv(Dinv, n, uk, x);
        for (int k = 0; k < n; k++)
          for (int e = 0; e < 6; e++) beta[e] += d->U[va + k][e] * x[k];
      }
      if (p)
        for (int e = 0; e < 6; e++) pap[c][e] += beta[e];
    }
  }

  /* forward: every body (all), or the paths only, from the world's a = 0 */
  memset(A, 0, (size_t)nc * sizeof(hg_vec6));
  for (int i = 1; i < nb; i++) {
    if (!all && !on[i]) continue;
    int n = m->jnt_nv[i], va = m->v_adr[i], p = m->parent[i];
    int free_joint = n > 0 && d->mode[i] == HG_MODE_FREE;
    const double *Dinv = d->Dinv + m->D_adr[i];
    uint64_t lv = on[i] ? live[i] : 0;
    hg_vec6 *Ai = A + (size_t)i * nc, *Ap = A + (size_t)p * nc;
    if (free_joint && n == 1) {
      /* qdd = (u - U^T a_p) / D;  a = a_p + s qdd */
      const double *s = d->S[va], *U = d->U[va];
      const double *ui = u + (size_t)va * nc;
      double Di = Dinv[0];
      for (int c = 0; c < nc; c++) {
        const double *ap = Ap[c];
        double w = (nc == 1 || (on[i] && col_live(lv, c, nc)) ? ui[c] : 0) - hg_dot6(U, ap);
        double qk = Di * w;
        r->qdd[(size_t)c * nv + va] = qk, r->tau[(size_t)c * nv + va] = 0;
        HG_ST4(Ai[c], HG_LD4(ap) + HG_LD4(s) * qk);
        HG_ST2(Ai[c] + 4, HG_LD2(ap + 4) + HG_LD2(s + 4) * qk);
      }
      continue;
    }
    for (int c = 0; c < nc; c++) {
      const double *ap = Ap[c];
      double *a = Ai[c], *qdd = r->qdd + (size_t)c * nv, *tau = r->tau + (size_t)c * nv;
      int lc = on[i] && col_live(lv, c, nc);
      for (int e = 0; e < 6; e++) a[e] = ap[e];
      if (free_joint) {
        /* qdd = D^-1 (u - U^T a_p);  a = a_p + S qdd */
        double w[HG_JOINT_MAXNV], x[HG_JOINT_MAXNV];
        for (int k = 0; k < n; k++)
          w[k] = (lc ? u[(size_t)(va + k) * nc + c] : 0) - hg_dot6(d->U[va + k], ap);
        dinv_mulv(Dinv, n, w, x);
        for (int k = 0; k < n; k++) {
          double t = x[k];
          qdd[va + k] = t, tau[va + k] = 0;
          for (int e = 0; e < 6; e++) a[e] += d->S[va + k][e] * t;
        }
      } else if (n > 0) {
        /* the load F = IA a + pA, tau = S^T F */
        double F[6];
        hg_sym6_mulv(d->IA[i], a, F);
        if (lc)
          for (int e = 0; e < 6; e++) F[e] += pA[(size_t)i * nc + c][e];
        for (int k = 0; k < n; k++) {
          /* less the force applied at the DoF itself (held in u, untouched backward here) */
          double f = lc ? u[(size_t)(va + k) * nc + c] : 0;
          qdd[va + k] = 0, tau[va + k] = hg_dot6(d->S[va + k], F) - f;
        }
      }
    }
  }
}

/* the responses, compiled apart for one right-hand side (Y lambda: no loop over columns) */
HG_HOT void hg_hybrid_response(const hg_model *m, const hg_data *d, const hg_response_load *load,
                               int nload, int ncol, int all, hg_response *r) {
  if (ncol == 1 && all) response(m, d, load, nload, 1, 1, r);
  else if (ncol == 1) response(m, d, load, nload, 1, 0, r);
  else response(m, d, load, nload, ncol, all, r);
}

/* Omega, symmetric 6 x 6, in seven lanes (lanes.h): A4[r] row r's entries 0..3 (r = 0..5: rows 4
 * and 5 hold, by symmetry, the entries 4 and 5 of rows 0..3), C the corner (O44, O45, O54, O55) */
typedef struct omega_lanes {
  hg_v4 A4[6];
  hg_v4 C;
} omega_lanes;

/* entry (r, c) of Omega, read and written (the packed step of more DoFs) */
HG_INLINE double *omega_at(omega_lanes *O, int r, int c) {
  if (c < 4) return (double *)&O->A4[r] + c;
  if (r < 4) return (double *)&O->A4[c] + r;
  return (double *)&O->C + 2 * (r - 4) + (c - 4);
}

/* y = Omega x: entries 0..3 the columns' sum weighted by x, entries 4 and 5 rows 4 and 5 dotted
 * with x */
HG_INLINE void omega_mulv(const omega_lanes *O, const double x[6], double y[6]) {
  hg_v4 x03 = HG_LD4(x), y4 = O->A4[0] * x[0];
HG_UNROLL(5)
  for (int k = 1; k < 6; k++) y4 += O->A4[k] * x[k];
  hg_v4 p4 = O->A4[4] * x03, p5 = O->A4[5] * x03, x45 = {x[4], x[5], x[4], x[5]};
  hg_v4 c = O->C * x45;
  HG_ST4(y, y4);
  y[4] = (p4[0] + p4[1]) + (p4[2] + p4[3]) + (c[0] + c[1]);
  y[5] = (p5[0] + p5[1]) + (p5[2] + p5[3]) + (c[2] + c[3]);
}

/* 1 when K = 1 - S D^-1 U^T is zero across joint i: six DoFs (S invertible) and no armature,
 * D = S^T IA S; the armature A makes D = S^T IA S + A and K = S D^-1 A S^-1, not zero */
static inline int k_zero(const hg_model *m, int i) {
  if (m->jnt_nv[i] != 6) return 0;
  if (!m->has_armature) return 1;
  for (int k = 0; k < 6; k++)
    if (m->armature[m->v_adr[i] + k] != 0) return 0;
  return 1;
}

/* Omega <- K Omega K^T + S D^-1 S^T (omega_step below) across a joint of n > 1 DoFs, on Omega
 * packed symmetric: with T = Omega U and X = S D^-1, Omega - X T^T - T X^T + X (U^T T) X^T
 * + X S^T */
HG_INLINE void omega_step_n(const hg_model *m, const hg_data *d, int i, double *Om) {
  int n = m->jnt_nv[i], va = m->v_adr[i];
  const double *Dinv = d->Dinv + m->D_adr[i];
  double T[6][HG_JOINT_MAXNV], X[6][HG_JOINT_MAXNV], UT[HG_JOINT_MAXNV][HG_JOINT_MAXNV];
  double XB[6][HG_JOINT_MAXNV];
  if (k_zero(m, i)) {
    /* S spans every motion: K = 0 exactly, Omega = S D^-1 S^T (no cancellation); X = S D^-1
     * with the sizes fixed, so that the products unroll */
    double X6[6][6];
    for (int r = 0; r < 6; r++)
      for (int k = 0; k < 6; k++) {
        double x = 0;
HG_UNROLL(6)
        for (int l = 0; l < 6; l++) x += d->S[va + l][r] * Dinv[l * 6 + k];
        X6[r][k] = x;
      }
    for (int r = 0; r < 6; r++)
      for (int c = r; c < 6; c++) {
        double t = 0;
HG_UNROLL(6)
        for (int k = 0; k < 6; k++) t += X6[r][k] * d->S[va + k][c];
        Om[hg_sym6_index(r, c)] = t;
      }
    return;
  }
  for (int r = 0; r < 6; r++)
    for (int k = 0; k < n; k++) {
      double x = 0;
      for (int l = 0; l < n; l++) x += d->S[va + l][r] * Dinv[l * n + k];
      X[r][k] = x;
    }
  for (int k = 0; k < n; k++) {
    double t[6];
    hg_sym6_mulv(Om, d->U[va + k], t);
    for (int r = 0; r < 6; r++) T[r][k] = t[r];
  }
  for (int k = 0; k < n; k++)
    for (int l = 0; l < n; l++) {
      double t = 0;
      for (int r = 0; r < 6; r++) t += d->U[va + k][r] * T[r][l];
      UT[k][l] = t;
    }
  /* XB = X (U^T T) - T + S: then Omega += XB X^T - X T^T, symmetric by construction */
  for (int r = 0; r < 6; r++)
    for (int k = 0; k < n; k++) {
      double t = 0;
      for (int l = 0; l < n; l++) t += X[r][l] * UT[l][k];
      XB[r][k] = t - T[r][k] + d->S[va + k][r];
    }
  for (int r = 0; r < 6; r++)
    for (int c = r; c < 6; c++) {
      double t = 0;
      for (int k = 0; k < n; k++) t += XB[r][k] * X[c][k] - X[r][k] * T[c][k];
      Om[hg_sym6_index(r, c)] += t;
    }
}

/* Omega <- K Omega K^T + S D^-1 S^T across free joint i, K = 1 - S D^-1 U^T. One DoF: with
 * t = Omega U and g = D^-2 U^T t + D^-1, Omega += (g s - D^-1 t) s^T - D^-1 s t^T, on the lanes;
 * more DoFs: the packed step above */
HG_INLINE void omega_step(const hg_model *m, const hg_data *d, int i, omega_lanes *O) {
  int va = m->v_adr[i];
  if (m->jnt_nv[i] == 1) {
    const double *s = d->S[va], *U = d->U[va], Di = d->Dinv[m->D_adr[i]];
    /* t = Omega U: entries 0..3 by columns, 4 and 5 by rows */
    hg_v4 U03 = HG_LD4(U), t03 = O->A4[0] * U[0];
HG_UNROLL(5)
    for (int k = 1; k < 6; k++) t03 += O->A4[k] * U[k];
    hg_v4 p4 = O->A4[4] * U03, p5 = O->A4[5] * U03, U45 = {U[4], U[5], U[4], U[5]};
    hg_v4 c = O->C * U45, ut = U03 * t03;
    double t4 = (p4[0] + p4[1]) + (p4[2] + p4[3]) + (c[0] + c[1]);
    double t5 = (p5[0] + p5[1]) + (p5[2] + p5[3]) + (c[2] + c[3]);
    /* g = D^-2 U^T t + D^-1 */
    double g = Di * Di * ((ut[0] + ut[1]) + (ut[2] + ut[3]) + U[4] * t4 + U[5] * t5) + Di;
    /* Omega += (g s - D^-1 t) s^T - D^-1 s t^T, its rows' entries 0..3 then the corner */
    hg_v4 s03 = HG_LD4(s), dt03 = t03 * Di;
    double dt[6] = {dt03[0], dt03[1], dt03[2], dt03[3], Di * t4, Di * t5};
HG_UNROLL(6)
    for (int r = 0; r < 6; r++) O->A4[r] += (g * s[r] - dt[r]) * s03 - s[r] * dt03;
    double gs4 = g * s[4] - dt[4], gs5 = g * s[5] - dt[5];
    hg_v4 gs = {gs4, gs4, gs5, gs5}, sc = {s[4], s[5], s[4], s[5]};
    hg_v4 ss = {s[4], s[4], s[5], s[5]}, dc = {dt[4], dt[5], dt[4], dt[5]};
    O->C += gs * sc - ss * dc;
    return;
  }
  /* packed, the generic step, and back (six DoFs without armature do not read Omega) */
  double P[21];
  if (!k_zero(m, i))
    for (int r = 0; r < 6; r++)
      for (int c = r; c < 6; c++) P[hg_sym6_index(r, c)] = *omega_at(O, r, c);
  omega_step_n(m, d, i, P);
  for (int r = 0; r < 6; r++)
    for (int c = 0; c < 6; c++) *omega_at(O, r, c) = P[hg_sym6_index(r < c ? r : c, r < c ? c : r)];
}

/* a <- K a = a - S D^-1 (U^T a) across free joint i (more than one DoF: carry does one) */
HG_INLINE void k_step(const hg_model *m, const hg_data *d, int i, double *a) {
  int n = m->jnt_nv[i], va = m->v_adr[i];
  const double *Dinv = d->Dinv + m->D_adr[i];
  double w[HG_JOINT_MAXNV];
  if (k_zero(m, i)) {
    for (int e = 0; e < 6; e++) a[e] = 0; /* K = 0 */
    return;
  }
  for (int k = 0; k < n; k++) w[k] = hg_dot6(d->U[va + k], a);
  for (int k = 0; k < n; k++) {
    double x = 0;
    for (int l = 0; l < n; l++) x += Dinv[k * n + l] * w[l];
    for (int e = 0; e < 6; e++) a[e] -= d->S[va + k][e] * x;
  }
}

/* the carried responses k0 .. done - 1 (rows of lanes, stride cs) across free joint i: a <- K a.
 * One DoF: four responses a lane, from the lane that holds k0 (the lanes it shares, earlier
 * trees' finished responses or ones not yet written, take the same harmless step) */
HG_INLINE void carry(const hg_model *m, const hg_data *d, int i, double *col, int cs, int k0,
                     int done) {
  int va = m->v_adr[i];
  if (m->jnt_nv[i] == 1) {
    const double *s = d->S[va], *U = d->U[va], Di = d->Dinv[m->D_adr[i]];
    for (int g = k0 & ~3; g < done; g += 4) {
      /* x = D^-1 U^T a;  a -= s x */
      hg_v4 w = U[0] * HG_LD4(col + g);
HG_UNROLL(5)
      for (int e = 1; e < 6; e++) w += U[e] * HG_LD4(col + e * cs + g);
      hg_v4 x = w * Di;
HG_UNROLL(6)
      for (int e = 0; e < 6; e++) HG_ST4(col + e * cs + g, HG_LD4(col + e * cs + g) - s[e] * x);
    }
    return;
  }
  for (int k = k0; k < done; k++) {
    double a[6];
    for (int e = 0; e < 6; e++) a[e] = col[e * cs + k];
    k_step(m, d, i, a);
    for (int e = 0; e < 6; e++) col[e * cs + k] = a[e];
  }
}

HG_HOT int hg_hybrid_response_gram(const hg_model *m, const hg_data *d,
                                   const hg_response_load *load, int nload, int ncol,
                                   hg_response *r, double *Q, double *scale) {
  int *ord = r->order, nl = 0;
  /* the wrench loads on moving bodies, by tree then body (insertion sort: a few loads) */
  for (int l = 0; l < nload; l++) {
    if (load[l].dof >= 0) return -1;
    if (load[l].body <= 0) continue;
    int b = load[l].body, key = m->root[b], k = nl++;
    while (k > 0) {
      int c = load[ord[k - 1]].body, kc = m->root[c];
      if (kc < key || (kc == key && c <= b)) break;
      ord[k] = ord[k - 1], k--;
    }
    ord[k] = l;
  }
  /* in each tree, every loaded body below the one before it */
  for (int k = 1; k < nl; k++) {
    int p = load[ord[k - 1]].body, b = load[ord[k]].body;
    if (m->root[p] == m->root[b] && !(b >= p && b < m->subtree_end[p])) return -1;
  }
  memset(Q, 0, (size_t)ncol * ncol * sizeof(double));
  double big = 0;
  /* the carried responses by rows of lanes: entry e of load k's at col[e cs + k] */
  double *col = r->col[0];
  int cs = (nl + 3) & ~3;
  for (int k0 = 0; k0 < nl;) {
    /* one tree: loads k0 .. k1 - 1, the deepest body last */
    int k1 = k0 + 1, root = m->root[load[ord[k0]].body];
    while (k1 < nl && m->root[load[ord[k1]].body] == root) k1++;
    int np = 0;
    for (int b = load[ord[k1 - 1]].body; b > 0; b = m->parent[b]) r->path[np++] = b;
    omega_lanes Om;
    memset(&Om, 0, sizeof Om);
    /* loads whose responses are carried: k0 .. done - 1, zero below k (a 6-DoF joint's K = 0,
     * without armature, ends every response from above it: their work against the loads
     * below is 0) */
    int next = k0, done = k0, k = k0;
    for (int o = np - 1; o >= 0; o--) {
      int i = r->path[o];
      if (m->jnt_nv[i] > 0 && d->mode[i] == HG_MODE_FREE) {
        omega_step(m, d, i, &Om);
        if (k_zero(m, i)) k = done;
        else carry(m, d, i, col, cs, k, done);
      }
      if (next >= k1 || load[ord[next]].body != i) continue;
      /* the loads on body i: their responses Omega_i w, and their work against every response
       * carried so far (from above: both orders, Omega is symmetric) and against each other */
      int first = next;
      while (next < k1 && load[ord[next]].body == i) {
        double y[6];
        omega_mulv(&Om, load[ord[next]].w, y);
        for (int e = 0; e < 6; e++) col[e * cs + next] = y[e];
        next++;
      }
      for (int a = first; a < next; a++) {
        const hg_response_load *A = &load[ord[a]];
        /* w_A^T (response b), four b a lane: those of k .. a summed into Q in both orders
         * (Q exactly symmetric) */
        for (int g = k & ~3; g <= a; g += 4) {
          hg_v4 t4 = A->w[0] * HG_LD4(col + g);
HG_UNROLL(5)
          for (int e = 1; e < 6; e++) t4 += A->w[e] * HG_LD4(col + e * cs + g);
          for (int l = 0; l < 4; l++) {
            int b = g + l;
            if (b < k || b > a) continue;
            double t = t4[l];
            int bc = load[ord[b]].col;
            if (fabs(t) > big) big = fabs(t);
            Q[A->col * ncol + bc] += t;
            if (b < a) Q[bc * ncol + A->col] += t;
          }
        }
      }
      done = next;
    }
    k0 = k1;
  }
  *scale = big;
  return 0;
}
