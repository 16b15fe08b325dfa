/* dense.h: small dense linear algebra for tests (independent of hinge's recursive algorithms). */
#ifndef HINGE_TEST_DENSE_H
#define HINGE_TEST_DENSE_H

/* solves A x = b for symmetric positive definite A (n x n, row-major) by Cholesky; 0 or -1 */
int hg_test_spd_solve(int n, const double *A, const double *b, double *x);
/* C = A B and At = A^T for n x n row-major matrices (C distinct from A and B) */
void hg_test_matmul(int n, const double *A, const double *B, double *C);
void hg_test_transpose(int n, const double *A, double *At);
/* max_i |a_i - b_i| (NaN when any difference is NaN, so a NaN never passes a test) */
double hg_test_max_diff(const double *a, const double *b, int n);
/* max_i |a_i - b_i| / max(1, max_i |b_i|) */
double hg_test_rel_err(const double *a, const double *b, int n);

#endif
