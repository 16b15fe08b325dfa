/* reference.c: the long double forward-dynamics oracle of reference.h. */
#include "reference.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef long double ld;

/* v x u for spatial motion vectors (angular first) */
static void cross_motion(const ld *v, const ld *u, ld *y) {
  const ld *w = v, *l = v + 3;
  y[0] = w[1] * u[2] - w[2] * u[1];
  y[1] = w[2] * u[0] - w[0] * u[2];
  y[2] = w[0] * u[1] - w[1] * u[0];
  y[3] = w[1] * u[5] - w[2] * u[4] + l[1] * u[2] - l[2] * u[1];
  y[4] = w[2] * u[3] - w[0] * u[5] + l[2] * u[0] - l[0] * u[2];
  y[5] = w[0] * u[4] - w[1] * u[3] + l[0] * u[1] - l[1] * u[0];
}
/* v x* f for a wrench f (moment first) */
static void cross_force(const ld *v, const ld *f, ld *y) {
  const ld *w = v, *l = v + 3;
  y[0] = w[1] * f[2] - w[2] * f[1] + l[1] * f[5] - l[2] * f[4];
  y[1] = w[2] * f[0] - w[0] * f[2] + l[2] * f[3] - l[0] * f[5];
  y[2] = w[0] * f[1] - w[1] * f[0] + l[0] * f[4] - l[1] * f[3];
  y[3] = w[1] * f[5] - w[2] * f[4];
  y[4] = w[2] * f[3] - w[0] * f[5];
  y[5] = w[0] * f[4] - w[1] * f[3];
}

/* one body's joint in long double: pose (R, p) of body i in its parent and S in body i */
typedef struct ref_joint {
  ld R[9], p[3], S[6];
} ref_joint;

/* T_{p,i}(q) = offset Rot(axis, q) or offset Tz(q axis); the axis is the same in joint and body
 * frame, so S = (axis, 0) or (0, axis) */
static void joint_pose(const hg_model *m, int i, double qi, ref_joint *J) {
  const hg_se3 *O = &m->jnt_offset[i];
  const double *x = m->jnt[i].axis;
  int prism = m->jnt[i].type == HG_JOINT_PRISMATIC;
  ld Q[9], c = cosl(qi), s = sinl(qi), t = 1 - c;
  if (prism) {
    for (int e = 0; e < 9; e++) Q[e] = e % 4 == 0;
  } else {
    /* Rodrigues: c 1 + s x^ + (1 - c) x x^T */
    for (int a = 0; a < 3; a++)
      for (int b = 0; b < 3; b++) Q[3 * a + b] = t * x[a] * x[b] + (a == b) * c;
    Q[1] -= s * x[2], Q[2] += s * x[1], Q[3] += s * x[2];
    Q[5] -= s * x[0], Q[6] -= s * x[1], Q[7] += s * x[0];
  }
  for (int a = 0; a < 3; a++) {
    for (int b = 0; b < 3; b++) {
      ld r = 0;
      for (int k = 0; k < 3; k++) r += (ld)O->R[3 * a + k] * Q[3 * k + b];
      J->R[3 * a + b] = r;
    }
    ld p = O->p[a];
    if (prism)
      for (int k = 0; k < 3; k++) p += (ld)O->R[3 * a + k] * x[k] * (ld)qi;
    J->p[a] = p;
  }
  for (int k = 0; k < 3; k++) J->S[k] = prism ? 0 : x[k], J->S[3 + k] = prism ? x[k] : 0;
}

/* motion parent -> child: (R^T w, R^T (v - p x w)) */
static void motion_in(const ref_joint *J, const ld *V, ld *out) {
  ld d[3] = {V[3] - (J->p[1] * V[2] - J->p[2] * V[1]), V[4] - (J->p[2] * V[0] - J->p[0] * V[2]),
             V[5] - (J->p[0] * V[1] - J->p[1] * V[0])};
  for (int a = 0; a < 3; a++) {
    out[a] = J->R[a] * V[0] + J->R[3 + a] * V[1] + J->R[6 + a] * V[2];
    out[3 + a] = J->R[a] * d[0] + J->R[3 + a] * d[1] + J->R[6 + a] * d[2];
  }
}
/* wrench child -> parent: (R m + p x R f, R f) */
static void force_out(const ref_joint *J, const ld *F, ld *out) {
  ld m[3], f[3];
  for (int a = 0; a < 3; a++) {
    m[a] = J->R[3 * a] * F[0] + J->R[3 * a + 1] * F[1] + J->R[3 * a + 2] * F[2];
    f[a] = J->R[3 * a] * F[3] + J->R[3 * a + 1] * F[4] + J->R[3 * a + 2] * F[5];
  }
  out[0] = m[0] + J->p[1] * f[2] - J->p[2] * f[1];
  out[1] = m[1] + J->p[2] * f[0] - J->p[0] * f[2];
  out[2] = m[2] + J->p[0] * f[1] - J->p[1] * f[0];
  for (int a = 0; a < 3; a++) out[3 + a] = f[a];
}

/* tau = ID(q, v, qdd) by Newton-Euler in body frames with gravity and fext (or NULL); V, A, F:
 * nbody 6-vectors of scratch */
static void rnea(const hg_model *m, const ref_joint *J, const double *v, const ld *qdd,
                 const double *fext, ld (*V)[6], ld (*A)[6], ld (*F)[6], ld *tau) {
  int n = m->nbody;
  for (int i = 1; i < n; i++) {
    int p = m->parent[i], va = m->v_adr[i];
    ld Vp[6] = {0}, Ap[6] = {0, 0, 0, 0, 0, 0}, vj[6], c[6], G[36], h[6], g[6];
    if (p) {
      for (int r = 0; r < 6; r++) Vp[r] = V[p][r], Ap[r] = A[p][r];
    } else {
      for (int r = 0; r < 3; r++) Ap[3 + r] = -(ld)m->gravity[r];
    }
    motion_in(&J[i], Vp, V[i]);
    motion_in(&J[i], Ap, A[i]);
    ld qd = v[va];
    for (int r = 0; r < 6; r++) vj[r] = J[i].S[r] * qd;
    for (int r = 0; r < 6; r++) V[i][r] += vj[r];
    cross_motion(V[i], vj, c);
    for (int r = 0; r < 6; r++) A[i][r] += c[r] + J[i].S[r] * qdd[va];
    double Gd[36];
    hg_inertia_matrix(&m->inertia[i], Gd);
    for (int e = 0; e < 36; e++) G[e] = Gd[e];
    for (int r = 0; r < 6; r++) {
      h[r] = g[r] = 0;
      for (int k = 0; k < 6; k++) h[r] += G[6 * r + k] * V[i][k], g[r] += G[6 * r + k] * A[i][k];
    }
    cross_force(V[i], h, F[i]);
    for (int r = 0; r < 6; r++) F[i][r] += g[r] - (fext ? (ld)fext[6 * i + r] : 0);
  }
  for (int i = n - 1; i > 0; i--) {
    int p = m->parent[i];
    ld t = 0, Fp[6];
    for (int r = 0; r < 6; r++) t += J[i].S[r] * F[i][r];
    tau[m->v_adr[i]] = t;
    if (!p) continue;
    force_out(&J[i], F[i], Fp);
    for (int r = 0; r < 6; r++) F[p][r] += Fp[r];
  }
}

/* M by the composite-rigid-body pass in body frames: Ic_i = I_i + sum of X^T Ic_c X over the
 * children, M_ii = S_i^T Ic_i S_i, then F = Ic_i S_i moved up the path to the root for the
 * entries of i's ancestors; Ic: nbody 6x6 of scratch */
static void crba(const hg_model *m, const ref_joint *J, ld (*Ic)[36], ld *M) {
  int n = m->nbody, nv = m->nv;
  for (int i = 1; i < n; i++) {
    double Gd[36];
    hg_inertia_matrix(&m->inertia[i], Gd);
    for (int e = 0; e < 36; e++) Ic[i][e] = Gd[e];
  }
  for (int i = n - 1; i > 0; i--) {
    int p = m->parent[i], va = m->v_adr[i];
    ld F[6];
    for (int r = 0; r < 6; r++) {
      F[r] = 0;
      for (int k = 0; k < 6; k++) F[r] += Ic[i][6 * r + k] * J[i].S[k];
    }
    /* up the path: F in the frame of body j, entry (v_adr[j], va) = S_j^T F */
    for (int j = i; j > 0; j = m->parent[j]) {
      ld t = 0, Fp[6];
      for (int r = 0; r < 6; r++) t += J[j].S[r] * F[r];
      M[m->v_adr[j] * nv + va] = M[va * nv + m->v_adr[j]] = t;
      force_out(&J[j], F, Fp);
      for (int r = 0; r < 6; r++) F[r] = Fp[r];
    }
    if (!p) continue;
    /* Ic_p += X^T Ic_i X: both sides as wrenches moved out, column by column */
    ld T[36], col[6], out[6];
    for (int c = 0; c < 6; c++) {
      for (int r = 0; r < 6; r++) col[r] = Ic[i][6 * r + c];
      force_out(&J[i], col, out);
      for (int r = 0; r < 6; r++) T[6 * r + c] = out[r];
    }
    for (int r = 0; r < 6; r++) {
      for (int c = 0; c < 6; c++) col[c] = T[6 * r + c];
      force_out(&J[i], col, out);
      for (int c = 0; c < 6; c++) Ic[p][6 * r + c] += out[c];
    }
  }
}

int hg_test_hybrid_ld(const hg_model *m, const uint8_t *mode, const double *q, const double *v,
                      double *qdd, double *tau, const double *fext) {
  int n = m->nbody, nv = m->nv, rc = -1;
  for (int i = 1; i < n; i++)
    if ((m->jnt[i].type != HG_JOINT_REVOLUTE && m->jnt[i].type != HG_JOINT_PRISMATIC) ||
        m->has_post[i])
      return -1;
  ref_joint *J = calloc(n, sizeof *J);
  ld (*V)[6] = calloc(n, sizeof *V), (*A)[6] = calloc(n, sizeof *A), (*F)[6] = calloc(n, sizeof *F);
  ld (*Ic)[36] = calloc(n, sizeof *Ic);
  ld *M = calloc((size_t)nv * nv + 1, sizeof *M), *b = calloc(nv + 1, sizeof *b);
  ld *a = calloc(nv + 1, sizeof *a), *x = calloc(nv + 1, sizeof *x);
  ld *L = calloc((size_t)nv * nv + 1, sizeof *L);
  int *fr = calloc(nv + 1, sizeof *fr), nf = 0;
  if (!J || !V || !A || !F || !Ic || !M || !b || !a || !x || !L || !fr) goto out;
  for (int i = 1; i < n; i++) joint_pose(m, i, q[m->v_adr[i]], &J[i]);
  /* b = ID(q, v, 0) with gravity and fext (zero in the impulsive form); M by the
   * composite-rigid-body pass */
  if (v) rnea(m, J, v, a, fext, V, A, F, b);
  crba(m, J, Ic, M);
  /* the free joints' indices; the others' accelerations as given (locked: zero, but in the
   * impulsive form) */
  for (int i = 1; i < n; i++) {
    int va = m->v_adr[i];
    if (!mode || mode[i] == HG_MODE_FREE) fr[nf++] = va;
    else a[va] = v && mode[i] == HG_MODE_LOCKED ? 0 : qdd[va];
  }
  /* x_F = tau_F - b_F - M_FP a_P (a_F still zero) */
  for (int e = 0; e < nf; e++) {
    ld t = tau[fr[e]] - b[fr[e]];
    for (int k = 0; k < nv; k++) t -= M[fr[e] * nv + k] * a[k];
    x[e] = t;
  }
  /* M_FF = L L^T (Cholesky on the free rows and columns, L nf x nf), then two triangular
   * solves */
  for (int j = 0; j < nf; j++) {
    ld t = M[fr[j] * nv + fr[j]];
    for (int k = 0; k < j; k++) t -= L[j * nf + k] * L[j * nf + k];
    if (!(t > 0)) goto out;
    L[j * nf + j] = sqrtl(t);
    for (int r = j + 1; r < nf; r++) {
      ld u = M[fr[r] * nv + fr[j]];
      for (int k = 0; k < j; k++) u -= L[r * nf + k] * L[j * nf + k];
      L[r * nf + j] = u / L[j * nf + j];
    }
  }
  for (int r = 0; r < nf; r++) {
    for (int k = 0; k < r; k++) x[r] -= L[r * nf + k] * x[k];
    x[r] /= L[r * nf + r];
  }
  for (int r = nf - 1; r >= 0; r--) {
    for (int k = r + 1; k < nf; k++) x[r] -= L[k * nf + r] * x[k];
    x[r] /= L[r * nf + r];
  }
  for (int e = 0; e < nf; e++) a[fr[e]] = x[e];
  /* tau of every joint = M a + b (the free ones' given tau, to round-off, kept as given) */
  for (int i = 1; i < n; i++) {
    int va = m->v_adr[i];
    qdd[va] = (double)a[va];
    if (!mode || mode[i] == HG_MODE_FREE) continue;
    ld t = b[va];
    for (int k = 0; k < nv; k++) t += M[va * nv + k] * a[k];
    tau[va] = (double)t;
  }
  rc = 0;
out:
  free(J), free(V), free(A), free(F), free(Ic), free(M), free(b), free(a), free(x), free(L);
  free(fr);
  return rc;
}

int hg_test_forward_ld(const hg_model *m, const double *q, const double *v, const double *tau,
                       const double *fext, double *qdd) {
  return hg_test_hybrid_ld(m, NULL, q, v, qdd, (double *)tau, fext);
}
