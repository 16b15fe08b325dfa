/* local_oracle.c: the body-local articulated pass of local_oracle.h, written plainly with dense
 * 6x6 matrices (Featherstone, Rigid Body Dynamics Algorithms, ch. 7 and 9.2). */
#include "local_oracle.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dense.h"

typedef double mat6[6][6];

/* one body's terms, in J_i */
typedef struct oracle_body {
  mat6 X;         /* Ad_{P^-1}: motion from J_p to J_i (a floating root: from the world) */
  int k;          /* S = e_k: 2 revolute, 5 prismatic; -1 at a floating root (S = 1) */
  double v[6];    /* twist (relative to the tree's Galilean frame) */
  double c[6];    /* v x (S qd) */
  mat6 IA;        /* articulated inertia */
  double pA[6];   /* articulated bias wrench */
  double a[6];    /* acceleration, gravity offset */
  double U[6], D, u;
  double xi[6];   /* a floating root's transport term (hg_joint_galilean) */
  double R[9];    /* a floating root's rotation R_offset R(q) */
} oracle_body;

/* y = M x */
static void mat6_mulv(mat6 M, const double *x, double *y) {
  for (int r = 0; r < 6; r++) {
    double t = 0;
    for (int c = 0; c < 6; c++) t += M[r][c] * x[c];
    y[r] = t;
  }
}
/* y = M^T x */
static void mat6_mulTv(mat6 M, const double *x, double *y) {
  for (int r = 0; r < 6; r++) {
    double t = 0;
    for (int c = 0; c < 6; c++) t += M[c][r] * x[c];
    y[r] = t;
  }
}
/* A += X^T M X */
static void mat6_congruence_add(mat6 X, mat6 M, mat6 A) {
  mat6 MX;
  for (int r = 0; r < 6; r++)
    for (int c = 0; c < 6; c++) {
      double t = 0;
      for (int l = 0; l < 6; l++) t += M[r][l] * X[l][c];
      MX[r][c] = t;
    }
  for (int r = 0; r < 6; r++)
    for (int c = 0; c < 6; c++) {
      double t = 0;
      for (int l = 0; l < 6; l++) t += X[l][r] * MX[l][c];
      A[r][c] += t;
    }
}
/* X = Ad_{P^-1} as a matrix, column by column */
static void motion_matrix(const hg_se3 *P, mat6 X) {
  for (int c = 0; c < 6; c++) {
    double e[6] = {0, 0, 0, 0, 0, 0}, col[6];
    e[c] = 1;
    hg_Ad_inv(P, e, col);
    for (int r = 0; r < 6; r++) X[r][c] = col[r];
  }
}
/* v x m: the motion cross product (w x m_w, w x m_v + v x m_w) */
static void cross_motion(const double *v, const double *m, double *out) {
  double t[3];
  hg_v3_cross(v, m, out);
  hg_v3_cross(v, m + 3, out + 3);
  hg_v3_cross(v + 3, m, t);
  for (int r = 0; r < 3; r++) out[3 + r] += t[r];
}
/* v x* f: the force cross product (w x f_w + v x f_v, w x f_v) */
static void cross_force(const double *v, const double *f, double *out) {
  double t[3];
  hg_v3_cross(v, f, out);
  hg_v3_cross(v + 3, f + 3, t);
  for (int r = 0; r < 3; r++) out[r] += t[r];
  hg_v3_cross(v, f + 3, out + 3);
}

/* the pass: mode NULL, every joint free; bias 0, the impulsive form (no v, gravity or fext) */
static int oracle_pass(const hg_local_model *lm, const uint8_t *mode, const double *q,
                       const double *v, double *qdd, double *tau, const double *fext, int bias) {
  int n = lm->nbody;
  oracle_body *b = calloc((size_t)n, sizeof *b);
  if (!b) return -1;
  double g[6] = {0, 0, 0, 0, 0, 0}; /* a_0 = (0, -g) */
  if (bias)
    for (int r = 0; r < 3; r++) g[3 + r] = -lm->gravity[r];
  int ret = 0;

  /* forward: each joint's transform, the twists v_i = X_i v_p + S qd_i, c_i = v_i x S qd_i and
   * the bias wrenches pA_i = v_i x* I_i v_i - fext_i; IA_i = I_i */
  for (int i = 1; i < n; i++) {
    oracle_body *o = &b[i];
    const hg_joint *j = &lm->jnt[i];
    int p = lm->parent[i], va = lm->v_adr[i];
    double S[6] = {0, 0, 0, 0, 0, 0};
    hg_se3 P;
    if (lm->floating[i]) {
      /* a floating root: P = (R_offset R(q), 0) (its origin's motion is the Galilean frame's),
       * v = (w, 0) from hg_joint_galilean, c = 0 (S is constant in the body frame) */
      hg_se3 Tj;
      hg_joint_transform(j, q + lm->q_adr[i], &Tj);
      hg_m3_mul(lm->C[i].R, Tj.R, P.R);
      P.p[0] = P.p[1] = P.p[2] = 0;
      memcpy(o->R, P.R, sizeof o->R);
      o->k = -1;
      motion_matrix(&P, o->X);
      if (bias) hg_joint_galilean(j, v + va, o->v, o->xi);
    } else {
      /* revolute: P = (R_C Rz(q), p_C); prismatic: P = (R_C, p_C + q R_C e_z) */
      double qi = q[lm->q_adr[i]];
      o->k = hg_joint_local_axis(j) == 5 ? 5 : 2;
      if (o->k == 2) {
        double Rz[9] = {cos(qi), -sin(qi), 0, sin(qi), cos(qi), 0, 0, 0, 1};
        hg_m3_mul(lm->C[i].R, Rz, P.R);
        for (int r = 0; r < 3; r++) P.p[r] = lm->C[i].p[r];
      } else {
        memcpy(P.R, lm->C[i].R, sizeof P.R);
        for (int r = 0; r < 3; r++) P.p[r] = lm->C[i].p[r] + qi * lm->C[i].R[3 * r + 2];
      }
      motion_matrix(&P, o->X);
      if (bias) {
        double vp[6] = {0, 0, 0, 0, 0, 0};
        /* a prismatic root's slide is the Galilean frame's motion: left out of v */
        if (p || o->k == 2) S[o->k] = v[va];
        if (p) memcpy(vp, b[p].v, sizeof vp);
        mat6_mulv(o->X, vp, o->v);
        for (int r = 0; r < 6; r++) o->v[r] += S[r];
        cross_motion(o->v, S, o->c);
      }
    }
    for (int r = 0; r < 6; r++)
      for (int c = 0; c < 6; c++) o->IA[r][c] = lm->link[i].Isym[hg_sym6_index(r, c)];
    if (bias) {
      double h[6];
      mat6_mulv(o->IA, o->v, h);
      cross_force(o->v, h, o->pA);
      if (fext) {
        double fe[6];
        hg_coAd_inv(&lm->T_JB[i], fext + 6 * i, fe);
        for (int r = 0; r < 6; r++) o->pA[r] -= fe[r];
      }
    }
  }

  /* backward: free joints U = IA S, D = S^T U, u = tau - S^T pA, Pi = IA - U U^T / D and
   * beta = pA + Pi c + U u / D; prescribed and locked ones Pi = IA, beta = pA + IA (c + S qdd);
   * IA_p += X^T Pi X, pA_p += X^T beta. A floating root, its subtree projected onto it, takes
   * its acceleration right there. */
  for (int i = n - 1; i >= 1 && !ret; i--) {
    oracle_body *o = &b[i];
    int p = lm->parent[i], va = lm->v_adr[i], free_joint = !mode || mode[i] == HG_MODE_FREE;
    if (o->k < 0) {
      /* a' = X_i a_0; free: IA qg = tau - pA - IA a', qdd = qg - xi; prescribed: tau = IA a + pA
       * with a = a' + qdd + xi */
      double ap[6], w[6], Ia[6], qg[6], M[36];
      mat6_mulv(o->X, g, ap);
      if (free_joint) {
        mat6_mulv(o->IA, ap, Ia);
        for (int r = 0; r < 6; r++) w[r] = tau[va + r] - o->pA[r] - Ia[r];
        for (int r = 0; r < 36; r++) M[r] = o->IA[r / 6][r % 6];
        if (hg_test_spd_solve(6, M, w, qg)) ret = -1;
        for (int r = 0; r < 6; r++) qdd[va + r] = qg[r] - o->xi[r], o->a[r] = ap[r] + qg[r];
      } else {
        for (int r = 0; r < 6; r++) {
          if (bias && mode[i] == HG_MODE_LOCKED) qdd[va + r] = 0;
          o->a[r] = ap[r] + qdd[va + r] + o->xi[r];
        }
        mat6_mulv(o->IA, o->a, Ia);
        for (int r = 0; r < 6; r++) tau[va + r] = Ia[r] + o->pA[r];
      }
      continue;
    }
    int k = o->k;
    mat6 Pi;
    double beta[6];
    memcpy(Pi, o->IA, sizeof Pi);
    if (free_joint) {
      for (int r = 0; r < 6; r++) o->U[r] = o->IA[r][k];
      o->D = o->U[k];
      if (!(o->D > 0) || !isfinite(o->D)) ret = -1;
      o->u = tau[va] - o->pA[k];
      for (int r = 0; r < 6; r++)
        for (int c = 0; c < 6; c++) Pi[r][c] -= o->U[r] * o->U[c] / o->D;
      double Pc[6];
      mat6_mulv(Pi, o->c, Pc);
      for (int r = 0; r < 6; r++) beta[r] = o->pA[r] + Pc[r] + o->U[r] * o->u / o->D;
    } else {
      if (bias && mode[i] == HG_MODE_LOCKED) qdd[va] = 0;
      double ce[6], Ic[6];
      for (int r = 0; r < 6; r++) ce[r] = o->c[r] + (r == k ? qdd[va] : 0);
      mat6_mulv(o->IA, ce, Ic);
      for (int r = 0; r < 6; r++) beta[r] = o->pA[r] + Ic[r];
    }
    if (!p) continue;
    double Xb[6];
    mat6_congruence_add(o->X, Pi, b[p].IA);
    mat6_mulTv(o->X, beta, Xb);
    for (int r = 0; r < 6; r++) b[p].pA[r] += Xb[r];
  }

  /* forward: a_i = X_i a_p + c_i (a_0 = (0, -g)); free qdd_i = (u - U^T a_i) / D, prescribed
   * tau_i = S^T (IA a_i + pA_i) with a_i += S qdd_i */
  for (int i = 1; i < n && !ret; i++) {
    oracle_body *o = &b[i];
    if (o->k < 0) continue;
    int p = lm->parent[i], va = lm->v_adr[i], k = o->k;
    mat6_mulv(o->X, p ? b[p].a : g, o->a);
    for (int r = 0; r < 6; r++) o->a[r] += o->c[r];
    if (!mode || mode[i] == HG_MODE_FREE) {
      double Ua = 0;
      for (int r = 0; r < 6; r++) Ua += o->U[r] * o->a[r];
      qdd[va] = (o->u - Ua) / o->D;
    }
    o->a[k] += qdd[va];
    if (mode && mode[i] != HG_MODE_FREE) {
      double Ia[6];
      mat6_mulv(o->IA, o->a, Ia);
      tau[va] = Ia[k] + o->pA[k];
    }
  }
  for (int r = 0; r < lm->nv && !ret; r++)
    if (!isfinite(qdd[r]) || (mode && !isfinite(tau[r]))) ret = -1;
  free(b);
  return ret;
}

int hg_test_local_aba(const hg_local_model *lm, const double *q, const double *v,
                      const double *tau, const double *fext, double *qdd) {
  return oracle_pass(lm, NULL, q, v, qdd, (double *)tau, fext, 1);
}

int hg_test_local_hybrid(const hg_local_model *lm, const uint8_t *mode, const double *q,
                         const double *v, double *qdd, double *tau, const double *fext) {
  return oracle_pass(lm, mode, q, v, qdd, tau, fext, 1);
}

int hg_test_local_hybrid_impulse(const hg_local_model *lm, const uint8_t *mode, const double *q,
                                 double *dv, double *imp) {
  return oracle_pass(lm, mode, q, NULL, dv, imp, NULL, 0);
}
