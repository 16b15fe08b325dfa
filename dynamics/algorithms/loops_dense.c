/* loops_dense.c: null spaces and minimum-norm least squares by LAPACK's SVD (loops_dense.h). */
#include "loops_dense.h"

#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* the full SVD A = U diag(s) Vt (U m x m, s min(m, n), Vt n x n); 0 or -1 */
static int svd(int m, int n, const double *A, double *U, double *s, double *Vt) {
  int k = m < n ? m : n;
  double *a = malloc(((size_t)m * n + 1) * sizeof(double));
  double *sup = malloc(((size_t)k + 1) * sizeof(double));
  int rc = -1;
  if (a && sup) {
    memcpy(a, A, (size_t)m * n * sizeof(double));
    rc = LAPACKE_dgesvd(LAPACK_ROW_MAJOR, 'A', 'A', m, n, a, n, s, U, m, Vt, n, sup) == 0 ? 0 : -1;
  }
  free(a);
  free(sup);
  return rc;
}

static int rank_of(int k, const double *s, double rtol) {
  double smax = k > 0 ? s[0] : 0, cut = rtol * fmax(1, smax);
  int r = 0;
  while (r < k && s[r] > cut) r++;
  return r;
}

int hg_ld_split(int m, int n, const double *A, double rtol, double *W, double *N) {
  if (n <= 0) return 0;
  if (m <= 0) { /* no rows: everything is null */
    if (N)
      for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) N[(size_t)i * n + j] = i == j;
    return 0;
  }
  int k = m < n ? m : n;
  double *U = malloc((size_t)m * m * sizeof(double)), *s = malloc((size_t)k * sizeof(double));
  double *Vt = malloc((size_t)n * n * sizeof(double));
  int r = -1;
  if (U && s && Vt && svd(m, n, A, U, s, Vt) == 0) {
    r = rank_of(k, s, rtol);
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < r && W; j++) W[(size_t)i * r + j] = Vt[(size_t)j * n + i];
      for (int j = r; j < n && N; j++) N[(size_t)i * (n - r) + (j - r)] = Vt[(size_t)j * n + i];
    }
  }
  free(U), free(s), free(Vt);
  return r;
}

int hg_ld_lstsq(int m, int n, const double *A, const double *b, double rtol, double *x) {
  if (n <= 0) return 0;
  memset(x, 0, (size_t)n * sizeof(double));
  if (m <= 0) return 0;
  int k = m < n ? m : n;
  double *U = malloc((size_t)m * m * sizeof(double)), *s = malloc((size_t)k * sizeof(double));
  double *Vt = malloc((size_t)n * n * sizeof(double));
  int r = -1;
  if (U && s && Vt && svd(m, n, A, U, s, Vt) == 0) {
    r = rank_of(k, s, rtol);
    for (int j = 0; j < r; j++) { /* x += v_j (u_j . b) / s_j */
      double c = 0;
      for (int i = 0; i < m; i++) c += U[(size_t)i * m + j] * b[i];
      c /= s[j];
      for (int i = 0; i < n; i++) x[i] += Vt[(size_t)j * n + i] * c;
    }
  }
  free(U), free(s), free(Vt);
  return r;
}
