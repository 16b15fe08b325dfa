/* dense.c: Cholesky solves and error measures for tests. */
#include "dense.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int hg_test_spd_solve(int n, const double *A, const double *b, double *x) {
  double *L = calloc((size_t)n * (size_t)n + 1, sizeof(double));
  if (!L) return -1;
  for (int j = 0; j < n; j++) {
    double s = A[j * n + j];
    for (int k = 0; k < j; k++) s -= L[j * n + k] * L[j * n + k];
    if (!(s > 0)) {
      free(L);
      return -1;
    }
    L[j * n + j] = sqrt(s);
    for (int i = j + 1; i < n; i++) {
      double t = A[i * n + j];
      for (int k = 0; k < j; k++) t -= L[i * n + k] * L[j * n + k];
      L[i * n + j] = t / L[j * n + j];
    }
  }
  for (int i = 0; i < n; i++) {
    double t = b[i];
    for (int k = 0; k < i; k++) t -= L[i * n + k] * x[k];
    x[i] = t / L[i * n + i];
  }
  for (int i = n - 1; i >= 0; i--) {
    double t = x[i];
    for (int k = i + 1; k < n; k++) t -= L[k * n + i] * x[k];
    x[i] = t / L[i * n + i];
  }
  free(L);
  return 0;
}

void hg_test_matmul(int n, const double *A, const double *B, double *C) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      double t = 0;
      for (int k = 0; k < n; k++) t += A[n * i + k] * B[n * k + j];
      C[n * i + j] = t;
    }
}

void hg_test_transpose(int n, const double *A, double *At) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) At[n * j + i] = A[n * i + j];
}

double hg_test_max_diff(const double *a, const double *b, int n) {
  double e = 0;
  for (int i = 0; i < n; i++) {
    double d = fabs(a[i] - b[i]);
    if (!(d <= e)) e = d;
  }
  return e;
}

double hg_test_rel_err(const double *a, const double *b, int n) {
  double e = 0, s = 1;
  for (int i = 0; i < n; i++) {
    if (fabs(b[i]) > s) s = fabs(b[i]);
    double d = fabs(a[i] - b[i]);
    if (!(d <= e)) e = d; /* NaN propagates */
  }
  return e / s;
}
