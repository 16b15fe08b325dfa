/* modes.c: eigenvalues and eigenvectors of a linearization through LAPACK (dgeev for A, dsygv
 * for K phi = w^2 M phi), and the minimum-norm least squares (dgelsd) of the equilibrium
 * search. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "linearize.h"
#include <complex.h>
#include <lapacke.h>
/* complex.h's I would clash with the inertia's field I: the imaginary unit is _Complex_I */
#undef I

typedef struct {
  double re, im;
  int k;
} eig_key;

/* by |lambda|, then the positive imaginary part of a pair first */
static int cmp_eig(const void *pa, const void *pb) {
  const eig_key *a = pa, *b = pb;
  double ma = hypot(a->re, a->im), mb = hypot(b->re, b->im);
  /* moduli equal to rounding (1e-12 relative) count as equal, so pairs stay together */
  if (fabs(ma - mb) > 1e-12 * (ma > mb ? ma : mb)) return ma < mb ? -1 : 1;
  if (a->im != b->im) return a->im > b->im ? -1 : 1;
  return a->k - b->k;
}

int hg_modes_eig(int n, const double *A, double *re, double *im, double *V) {
  if (n == 0) return 0;
  size_t nn = (size_t)n * (size_t)n;
  double *a = malloc(nn * sizeof(double)), *vr = malloc(nn * sizeof(double));
  double *wr = malloc((size_t)n * sizeof(double)), *wi = malloc((size_t)n * sizeof(double));
  eig_key *key = malloc((size_t)n * sizeof(eig_key));
  double complex *vec = malloc((size_t)n * sizeof(double complex));
  int rc = -1;
  if (!a || !vr || !wr || !wi || !key || !vec) goto done;
  memcpy(a, A, nn * sizeof(double));
  if (LAPACKE_dgeev(LAPACK_ROW_MAJOR, 'N', 'V', n, a, n, wr, wi, NULL, 1, vr, n) != 0) goto done;
  for (int k = 0; k < n; k++) key[k] = (eig_key){wr[k], wi[k], k};
  qsort(key, (size_t)n, sizeof *key, cmp_eig);
  for (int s = 0; s < n; s++) {
    int k = key[s].k;
    re[s] = wr[k];
    im[s] = wi[k];
    /* dgeev: a pair (k, k+1) with wi[k] > 0 has vectors vr[:, k] +- i vr[:, k+1] */
    for (int r = 0; r < n; r++) {
      double x = vr[(size_t)r * n + k], y = 0;
      if (wi[k] > 0) y = vr[(size_t)r * n + k + 1];
      else if (wi[k] < 0) x = vr[(size_t)r * n + k - 1], y = -vr[(size_t)r * n + k];
      vec[r] = x + _Complex_I * y;
    }
    /* unit length, the largest component real and positive */
    int big = 0;
    double norm = 0;
    for (int r = 0; r < n; r++) {
      norm += creal(vec[r] * conj(vec[r]));
      if (cabs(vec[r]) > cabs(vec[big])) big = r;
    }
    double complex scale = cabs(vec[big]) > 0 ? conj(vec[big]) / cabs(vec[big]) / sqrt(norm) : 1;
    for (int r = 0; r < n; r++) {
      double complex z = vec[r] * scale;
      V[2 * ((size_t)r * n + s)] = creal(z);
      V[2 * ((size_t)r * n + s) + 1] = cimag(z);
    }
  }
  rc = 0;
done:
  free(a); free(vr); free(wr); free(wi); free(key); free(vec);
  return rc;
}

int hg_modes_sym(int n, const double *K, const double *M, double *w2, double *Phi) {
  if (n == 0) return 0;
  size_t nn = (size_t)n * (size_t)n;
  double *mc = malloc(nn * sizeof(double));
  if (!mc) return -1;
  for (int r = 0; r < n; r++)
    for (int c = 0; c < n; c++) {
      size_t rc = (size_t)r * n + c, cr = (size_t)c * n + r;
      Phi[rc] = 0.5 * (K[rc] + K[cr]);
      mc[rc] = 0.5 * (M[rc] + M[cr]);
    }
  int info = LAPACKE_dsygv(LAPACK_ROW_MAJOR, 1, 'V', 'U', n, Phi, n, mc, n, w2);
  free(mc);
  return info == 0 ? 0 : -1;
}

int hg_lstsq_min_norm(int n, const double *A, const double *b, double rcond, double *x,
                      int *rank) {
  *rank = 0;
  if (n == 0) return 0;
  size_t nn = (size_t)n * (size_t)n;
  double *a = malloc(nn * sizeof(double)), *s = malloc((size_t)n * sizeof(double));
  int rc = -1;
  if (a && s) {
    lapack_int r = 0;
    memcpy(a, A, nn * sizeof(double));
    memcpy(x, b, (size_t)n * sizeof(double));
    rc = LAPACKE_dgelsd(LAPACK_ROW_MAJOR, n, n, 1, a, n, x, 1, s, rcond, &r) == 0 ? 0 : -1;
    *rank = (int)r;
  }
  free(a);
  free(s);
  return rc;
}
