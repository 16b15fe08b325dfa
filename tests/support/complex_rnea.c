/* complex_rnea.c: the complex-arithmetic inverse dynamics of complex_rnea.h. */
#include "complex_rnea.h"

#include <stdlib.h>

/* y = R x, y = R^T x, c = a x b for complex 3-vectors (R row-major) */
static void mulv(const cplx R[9], const cplx x[3], cplx y[3]) {
  for (int r = 0; r < 3; r++) y[r] = R[3 * r] * x[0] + R[3 * r + 1] * x[1] + R[3 * r + 2] * x[2];
}
static void mulTv(const cplx R[9], const cplx x[3], cplx y[3]) {
  for (int r = 0; r < 3; r++) y[r] = R[r] * x[0] + R[3 + r] * x[1] + R[6 + r] * x[2];
}
static void cross(const cplx a[3], const cplx b[3], cplx c[3]) {
  c[0] = a[1] * b[2] - a[2] * b[1];
  c[1] = a[2] * b[0] - a[0] * b[2];
  c[2] = a[0] * b[1] - a[1] * b[0];
}
/* ad_V W = (w x W_w, v x W_w + w x W_v); ad*_V F = (F_m x w + F_f x v, F_f x w) */
static void ad(const cplx V[6], const cplx W[6], cplx out[6]) {
  cplx t[3];
  cross(V, W, out);
  cross(V + 3, W, out + 3);
  cross(V, W + 3, t);
  for (int r = 0; r < 3; r++) out[3 + r] += t[r];
}
static void ad_star(const cplx V[6], const cplx F[6], cplx out[6]) {
  cplx t[3];
  cross(F, V, out);
  cross(F + 3, V + 3, t);
  for (int r = 0; r < 3; r++) out[r] += t[r];
  cross(F + 3, V, out + 3);
}
/* G V for the ten-number inertia (inertia.h) */
static void inertia_mulv(const hg_inertia *G, const cplx V[6], cplx o[6]) {
  const double *In = G->I, *h = G->h, m = G->m;
  o[0] = In[0] * V[0] + In[3] * V[1] + In[4] * V[2] + h[1] * V[5] - h[2] * V[4];
  o[1] = In[3] * V[0] + In[1] * V[1] + In[5] * V[2] + h[2] * V[3] - h[0] * V[5];
  o[2] = In[4] * V[0] + In[5] * V[1] + In[2] * V[2] + h[0] * V[4] - h[1] * V[3];
  o[3] = m * V[3] - (h[1] * V[2] - h[2] * V[1]);
  o[4] = m * V[4] - (h[2] * V[0] - h[0] * V[2]);
  o[5] = m * V[5] - (h[0] * V[1] - h[1] * V[0]);
}

/* tau = RNEA(q, v, qdd) in complex arithmetic, body frames, revolute joints only */
int hg_test_rnea_complex(const hg_model *m, const cplx *q, const cplx *v, const double *qdd, cplx *tau) {
  int nb = m->nbody;
  cplx (*R)[9] = malloc(sizeof(cplx[9]) * (size_t)nb), (*V)[6] = malloc(sizeof(cplx[6]) * (size_t)nb);
  cplx (*A)[6] = malloc(sizeof(cplx[6]) * (size_t)nb), (*F)[6] = malloc(sizeof(cplx[6]) * (size_t)nb);
  for (int r = 0; r < 6; r++) V[0][r] = 0, A[0][r] = r < 3 ? 0 : -m->gravity[r - 3];
  for (int r = 0; r < 9; r++) R[0][r] = r % 4 == 0;
  for (int i = 1; i < nb; i++) {
    const hg_joint *j = &m->jnt[i];
    int p = m->parent[i], k = m->v_adr[i];
    if (j->type != HG_JOINT_REVOLUTE || m->has_post[i]) {
      free(R), free(V), free(A), free(F);
      return -1;
    }
    /* R_i = R_offset Rot(a, q) (Rodrigues), the rotation of body i in its parent */
    const double *a = j->axis, *Ro = m->jnt_offset[i].R;
    cplx s = csin(q[k]), c = ccos(q[k]), Rj[9];
    double K[9] = {0, -a[2], a[1], a[2], 0, -a[0], -a[1], a[0], 0}, K2[9];
    for (int r = 0; r < 3; r++)
      for (int col = 0; col < 3; col++)
        K2[3 * r + col] = K[3 * r] * K[col] + K[3 * r + 1] * K[3 + col] + K[3 * r + 2] * K[6 + col];
    for (int e = 0; e < 9; e++) Rj[e] = (e % 4 == 0) + s * K[e] + (1 - c) * K2[e];
    for (int r = 0; r < 3; r++)
      for (int col = 0; col < 3; col++)
        R[i][3 * r + col] = Ro[3 * r] * Rj[col] + Ro[3 * r + 1] * Rj[3 + col] + Ro[3 * r + 2] * Rj[6 + col];
    /* parent quantities into the child: Ad_{T^-1} (w, v) = (R^T w, R^T (v - p x w)) */
    const double *pp = m->jnt_offset[i].p;
    cplx pc[3] = {pp[0], pp[1], pp[2]}, t[3], u[3], S[6] = {a[0], a[1], a[2], 0, 0, 0};
    cplx Vp[6], Ap[6], vj[6], cb[6], Gv[6], Ga[6], bias[6];
    for (int which = 0; which < 2; which++) {
      const cplx *X = which ? A[p] : V[p];
      cplx *Y = which ? Ap : Vp;
      cross(pc, X, t);
      for (int r = 0; r < 3; r++) u[r] = X[3 + r] - t[r];
      mulTv(R[i], X, Y);
      mulTv(R[i], u, Y + 3);
    }
    for (int r = 0; r < 6; r++) vj[r] = S[r] * v[k], V[i][r] = Vp[r] + vj[r];
    ad(V[i], vj, cb);
    for (int r = 0; r < 6; r++) A[i][r] = Ap[r] + S[r] * qdd[k] + cb[r];
    inertia_mulv(&m->inertia[i], A[i], Ga);
    inertia_mulv(&m->inertia[i], V[i], Gv);
    ad_star(V[i], Gv, bias);
    for (int r = 0; r < 6; r++) F[i][r] = Ga[r] - bias[r];
  }
  for (int i = nb - 1; i > 0; i--) {
    int p = m->parent[i], k = m->v_adr[i];
    const double *a = m->jnt[i].axis, *pp = m->jnt_offset[i].p;
    tau[k] = a[0] * F[i][0] + a[1] * F[i][1] + a[2] * F[i][2];
    if (p == 0) continue;
    /* the child's wrench in the parent: (R m + p x R f, R f) */
    cplx Rm[3], Rf[3], pc[3] = {pp[0], pp[1], pp[2]}, t[3];
    mulv(R[i], F[i], Rm);
    mulv(R[i], F[i] + 3, Rf);
    cross(pc, Rf, t);
    for (int r = 0; r < 3; r++) F[p][r] += Rm[r] + t[r], F[p][3 + r] += Rf[r];
  }
  free(R); free(V); free(A); free(F);
  return 0;
}
