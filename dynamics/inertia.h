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

typedef struct hg_inertia {
  double m;    /* mass */
  double h[3]; /* first moment m c */
  double I[6]; /* rotational inertia about the frame origin: xx yy zz xy xz yz */
} hg_inertia;

/* Checks mass >= 0 and finite, I_c (about the centre of mass, xx yy zz xy xz yz) symmetric
 * positive semi-definite with principal moments obeying the triangle inequality (to a relative
 * 1e-9). Returns 0, or -1 with a one-line reason in why (if why is not NULL). */
int hg_inertia_validate(double m, const double Ic[6], char *why, size_t why_len);

/* Inertia about the frame origin from mass, centre of mass c and I_c about the centre of mass,
 * after hg_inertia_validate; returns its result. */
int hg_inertia_from_com(double m, const double c[3], const double Ic[6], hg_inertia *out,
                        char *why, size_t why_len);

/* centre of mass c (zero for a massless body) and I_c about it */
void hg_inertia_com(const hg_inertia *G, double c[3], double Ic[6]);

/* the 6x6 matrix G, row-major */
void hg_inertia_matrix(const hg_inertia *G, double M[36]);

/* out = G V (a momentum wrench from a twist, same frame): (I_o w + h x v, m v - h x w) */
static inline void hg_inertia_mulv(const hg_inertia *G, const double V[6], double out[6]) {
  const double *I = G->I, *h = G->h, *w = V, *v = V + 3;
  out[0] = I[0] * w[0] + I[3] * w[1] + I[4] * w[2] + h[1] * v[2] - h[2] * v[1];
  out[1] = I[3] * w[0] + I[1] * w[1] + I[5] * w[2] + h[2] * v[0] - h[0] * v[2];
  out[2] = I[4] * w[0] + I[5] * w[1] + I[2] * w[2] + h[0] * v[1] - h[1] * v[0];
  out[3] = G->m * v[0] - (h[1] * w[2] - h[2] * w[1]);
  out[4] = G->m * v[1] - (h[2] * w[0] - h[0] * w[2]);
  out[5] = G->m * v[2] - (h[0] * w[1] - h[1] * w[0]);
}

/* Ia = the inertia Ib of a body, given in frame {b}, expressed in frame {a}, T = T_ab. */
void hg_inertia_transform(const hg_se3 *T, const hg_inertia *Ib, hg_inertia *Ia);

/* A += B (both in one frame) */
void hg_inertia_add(hg_inertia *A, const hg_inertia *B);

/* eigenvalues of a symmetric 3x3 matrix (xx yy zz xy xz yz), ascending */
void hg_sym3_eigenvalues(const double S[6], double lambda[3]);

#endif
