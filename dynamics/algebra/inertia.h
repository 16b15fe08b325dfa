/* inertia.h: rigid-body spatial inertia.
 *
 * A body's inertia is kept as ten numbers about its own frame origin: mass m, first moment
 * h = m c (c is the centre of mass in body coordinates) and the rotational inertia I_o about the
 * frame origin in body axes, stored (xx, yy, zz, xy, xz, yz). As a 6x6 matrix (conventions.md):
 *   G = [[I_c - m c^ c^, m c^], [-m c^, m 1]] = [[I_o, h^], [-h^, m 1]]. */
#ifndef HINGE_INERTIA_H
#define HINGE_INERTIA_H

#include <stddef.h>

#include "spatial.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hg_inertia {
  double m;    /* mass */
  double h[3]; /* first moment m c */
  double I[6]; /* rotational inertia about the frame origin: xx yy zz xy xz yz */
} hg_inertia;

/* Checks mass >= 0 and finite, I_c (about the centre of mass, xx yy zz xy xz yz) symmetric
 * positive semi-definite with principal moments obeying the triangle inequality (to a relative
 * 1e-9). Returns 0, or -1 with a one-line reason in why (if why is not NULL). */
int hg_inertia_validate(double m, const double Ic[6], char *why, size_t why_len);

/* hg_inertia_validate with an absolute tolerance floor added to the relative 1e-9: the
 * round-off a caller's arithmetic may have put into I_c (e.g. ~eps m |c|^2 when I_c was
 * recovered from an inertia about a frame origin at distance |c|). */
int hg_inertia_check(double m, const double Ic[6], double atol, char *why, size_t why_len);

/* Repairs a rotational inertia I_c (xx yy zz xy xz yz) in place, keeping its principal axes:
 * negative principal moments are clamped to zero, then when the largest exceeds the sum of the
 * other two, the two smaller are raised by the same amount until their sum equals it (the least
 * change along the principal axes that makes I_c physical; MuJoCo's balanceinertia raises the
 * smallest moments similarly). before and after (may be NULL) receive the principal moments,
 * ascending. Returns 1 when I_c was changed, 0 when it already passed hg_inertia_validate. */
int hg_inertia_balance(double Ic[6], double before[3], double after[3]);

/* Inertia about the frame origin from mass, centre of mass c and I_c about the centre of mass,
 * after hg_inertia_validate; returns its result. */
int hg_inertia_from_com(double m, const double c[3], const double Ic[6], hg_inertia *out,
                        char *why, size_t why_len);

/* centre of mass c (zero for a massless body) and I_c about it */
void hg_inertia_com(const hg_inertia *G, double c[3], double Ic[6]);

/* the 6x6 matrix G, row-major: [[I_o, h^], [-h^, m 1]] written out */
static inline void hg_inertia_matrix(const hg_inertia *G, double M[36]) {
  const double *I = G->I, *h = G->h, m = G->m;
  M[0] = I[0];   M[1] = I[3];   M[2] = I[4];   M[3] = 0;     M[4] = -h[2]; M[5] = h[1];
  M[6] = I[3];   M[7] = I[1];   M[8] = I[5];   M[9] = h[2];  M[10] = 0;    M[11] = -h[0];
  M[12] = I[4];  M[13] = I[5];  M[14] = I[2];  M[15] = -h[1]; M[16] = h[0]; M[17] = 0;
  M[18] = 0;     M[19] = h[2];  M[20] = -h[1]; M[21] = m;    M[22] = 0;    M[23] = 0;
  M[24] = -h[2]; M[25] = 0;     M[26] = h[0];  M[27] = 0;    M[28] = m;    M[29] = 0;
  M[30] = h[1];  M[31] = -h[0]; M[32] = 0;     M[33] = 0;    M[34] = 0;    M[35] = m;
}

/* the same matrix packed as a symmetric one (spatial.h's hg_sym6) */
static inline void hg_inertia_sym6(const hg_inertia *G, double M[21]) {
  const double *I = G->I, *h = G->h, m = G->m;
  M[0] = I[0];  M[1] = I[3];  M[2] = I[4];   M[3] = 0;     M[4] = -h[2]; M[5] = h[1];
  M[6] = I[1];  M[7] = I[5];  M[8] = h[2];   M[9] = 0;     M[10] = -h[0];
  M[11] = I[2]; M[12] = -h[1]; M[13] = h[0]; M[14] = 0;
  M[15] = m;    M[16] = 0;    M[17] = 0;
  M[18] = m;    M[19] = 0;
  M[20] = m;
}

/* M = the packed G + P (P packed too; M may be P): the sum without G's zeros */
static inline void hg_inertia_sym6_add(const hg_inertia *G, const double P[21], double M[21]) {
  const double *I = G->I, *h = G->h, m = G->m;
  M[0] = I[0] + P[0];   M[1] = I[3] + P[1];   M[2] = I[4] + P[2];   M[3] = P[3];
  M[4] = P[4] - h[2];   M[5] = h[1] + P[5];
  M[6] = I[1] + P[6];   M[7] = I[5] + P[7];   M[8] = h[2] + P[8];   M[9] = P[9];
  M[10] = P[10] - h[0];
  M[11] = I[2] + P[11]; M[12] = P[12] - h[1]; M[13] = h[0] + P[13]; M[14] = P[14];
  M[15] = m + P[15];    M[16] = P[16];        M[17] = P[17];
  M[18] = m + P[18];    M[19] = P[19];
  M[20] = m + P[20];
}

/* out = G V (a momentum wrench from a twist, same frame): (I_o w + h x v, m v - h x w) */
static inline void hg_inertia_mulv(const hg_inertia *G, const double V[6], double out[6]) {
  const double *I = G->I, *h = G->h, m = G->m;
  double w0 = V[0], w1 = V[1], w2 = V[2], v0 = V[3], v1 = V[4], v2 = V[5];
  double o0 = I[0] * w0 + I[3] * w1 + I[4] * w2 + h[1] * v2 - h[2] * v1;
  double o1 = I[3] * w0 + I[1] * w1 + I[5] * w2 + h[2] * v0 - h[0] * v2;
  double o2 = I[4] * w0 + I[5] * w1 + I[2] * w2 + h[0] * v1 - h[1] * v0;
  double o3 = m * v0 - (h[1] * w2 - h[2] * w1);
  double o4 = m * v1 - (h[2] * w0 - h[0] * w2);
  double o5 = m * v2 - (h[0] * w1 - h[1] * w0);
  out[0] = o0, out[1] = o1, out[2] = o2, out[3] = o3, out[4] = o4, out[5] = o5;
}

/* out = G (w, 0), hg_inertia_mulv for a pure rotation: (I_o w, w x h) */
static inline void hg_inertia_mulw(const hg_inertia *G, const double w[3], double out[6]) {
  const double *I = G->I, *h = G->h;
  double w0 = w[0], w1 = w[1], w2 = w[2];
  out[0] = I[0] * w0 + I[3] * w1 + I[4] * w2;
  out[1] = I[3] * w0 + I[1] * w1 + I[5] * w2;
  out[2] = I[4] * w0 + I[5] * w1 + I[2] * w2;
  out[3] = w1 * h[2] - w2 * h[1];
  out[4] = w2 * h[0] - w0 * h[2];
  out[5] = w0 * h[1] - w1 * h[0];
}

/* Ia = the inertia Ib of a body, given in frame {b}, expressed in frame {a}, T = T_ab. */
void hg_inertia_transform(const hg_se3 *T, const hg_inertia *Ib, hg_inertia *Ia);

/* The same inertia about the centre of mass: the form that moves to another frame most cheaply
 * (the kinematic walk keeps one per body). diagonal is 1 when I_c has no products of inertia. */
typedef struct hg_inertia_c {
  double m;     /* mass */
  double c[3];  /* centre of mass, body coordinates (zero for a massless body) */
  double Ic[6]; /* rotational inertia about the centre of mass: xx yy zz xy xz yz */
  int diagonal; /* Ic[3..5] are all zero */
  /* I_c = l0 1 + a a^T + b b^T: l0 its smallest principal moment, a and b the other two
   * principal axes scaled by the square roots of their moments' excess over l0 (a rotation
   * turns two vectors instead of a matrix) */
  double l0, a[3], b[3];
  /* row k: (a_k, b_k, c_k, 0), the three vectors side by side for the lanes
   * (hg_lane3_inertia_transform_c) */
  double abc[3][4];
} hg_inertia_c;

/* the centre-of-mass form of G */
void hg_inertia_to_c(const hg_inertia *G, hg_inertia_c *out);

/* Ia = hg_inertia_transform(T, Ib) from the centre-of-mass form: the centre of mass moves to
 * c_a = R c + p, I_c rotates to R I_c R^T (R diag R^T when I_c is diagonal, else
 * l0 1 + (R a)(R a)^T + (R b)(R b)^T), and the parallel-axis theorem gives
 * h = m c_a, I_o = R I_c R^T + m (|c_a|^2 1 - c_a c_a^T). */
static inline void hg_inertia_transform_c(const hg_se3 *T, const hg_inertia_c *Ib, hg_inertia *Ia) {
  const double *R = T->R, m = Ib->m;
  double Ir[6], ca[3], h[3];
  if (Ib->diagonal) {
    /* t = R I_c (a column scaling), I_r = t R^T (six entries) */
    const double *Ic = Ib->Ic;
    double t[9];
    t[0] = R[0] * Ic[0], t[1] = R[1] * Ic[1], t[2] = R[2] * Ic[2];
    t[3] = R[3] * Ic[0], t[4] = R[4] * Ic[1], t[5] = R[5] * Ic[2];
    t[6] = R[6] * Ic[0], t[7] = R[7] * Ic[1], t[8] = R[8] * Ic[2];
    Ir[0] = t[0] * R[0] + t[1] * R[1] + t[2] * R[2];
    Ir[1] = t[3] * R[3] + t[4] * R[4] + t[5] * R[5];
    Ir[2] = t[6] * R[6] + t[7] * R[7] + t[8] * R[8];
    Ir[3] = t[0] * R[3] + t[1] * R[4] + t[2] * R[5];
    Ir[4] = t[0] * R[6] + t[1] * R[7] + t[2] * R[8];
    Ir[5] = t[3] * R[6] + t[4] * R[7] + t[5] * R[8];
  } else {
    double x[3], y[3], l0 = Ib->l0;
    hg_m3_mulv(R, Ib->a, x);
    hg_m3_mulv(R, Ib->b, y);
    Ir[0] = l0 + x[0] * x[0] + y[0] * y[0];
    Ir[1] = l0 + x[1] * x[1] + y[1] * y[1];
    Ir[2] = l0 + x[2] * x[2] + y[2] * y[2];
    Ir[3] = x[0] * x[1] + y[0] * y[1];
    Ir[4] = x[0] * x[2] + y[0] * y[2];
    Ir[5] = x[1] * x[2] + y[1] * y[2];
  }
  /* centre of mass and first moment in frame {a}, and the parallel-axis term */
  hg_m3_mulv(R, Ib->c, ca);
  for (int r = 0; r < 3; r++) ca[r] += T->p[r], h[r] = m * ca[r];
  Ia->I[0] = Ir[0] + h[1] * ca[1] + h[2] * ca[2];
  Ia->I[1] = Ir[1] + h[0] * ca[0] + h[2] * ca[2];
  Ia->I[2] = Ir[2] + h[0] * ca[0] + h[1] * ca[1];
  Ia->I[3] = Ir[3] - h[0] * ca[1];
  Ia->I[4] = Ir[4] - h[0] * ca[2];
  Ia->I[5] = Ir[5] - h[1] * ca[2];
  Ia->m = m;
  for (int r = 0; r < 3; r++) Ia->h[r] = h[r];
}

/* A += B (both in one frame) */
static inline void hg_inertia_add(hg_inertia *A, const hg_inertia *B) {
  A->m += B->m;
  for (int i = 0; i < 3; i++) A->h[i] += B->h[i];
  for (int i = 0; i < 6; i++) A->I[i] += B->I[i];
}

/* eigenvalues of a symmetric 3x3 matrix (xx yy zz xy xz yz), ascending */
void hg_sym3_eigenvalues(const double S[6], double lambda[3]);

/* the same with the unit eigenvectors as the columns of V (row-major): S = V diag(lambda) V^T */
void hg_sym3_eigen(const double S[6], double lambda[3], double V[9]);

#ifdef __cplusplus
}
#endif

#endif
