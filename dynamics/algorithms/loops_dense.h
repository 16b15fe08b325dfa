/* loops_dense.h: the small dense linear algebra of loops_inverse.c and loops_linear.c (LAPACK's
 * SVD): null spaces and minimum-norm least squares of rectangular matrices, row-major. Not a
 * public header. Ranks: singular values at most rtol max(1, s_max) count as zero. */
#ifndef HINGE_LOOPS_DENSE_H
#define HINGE_LOOPS_DENSE_H

/* The right singular vectors of A (m x n): W (n x rank, the row space) and N (n x (n - rank), the
 * null space), both orthonormal, row-major with those many columns (either may be NULL). Returns
 * the rank, or -1 when LAPACK fails or memory runs out. */
int hg_ld_split(int m, int n, const double *A, double rtol, double *W, double *N);

/* x (n) = the minimum-norm least-squares solution of A x = b (A m x n). Returns the rank, or -1. */
int hg_ld_lstsq(int m, int n, const double *A, const double *b, double rtol, double *x);

#endif
