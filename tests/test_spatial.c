/* test_spatial.c: the SO(3)/SE(3) algebra of spatial.h against references that do not use it:
 * Taylor series of matrix exponentials, 4x4 homogeneous matrices, the definitions of the
 * conventions (Ad, ad, ad*) and central finite differences on the group. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "axis.h"
#include "hinge.h"
#include "dense.h"
#include "models.h"

#define TEST_PI 3.14159265358979323846
#define NSAMPLE 40

/* rotation-vector magnitudes below pi: zero, the series branches (switch at 0.1), moderate angles
 * and the near-pi branch of the logarithm */
static const double MAGS[] = {0,   1e-9, 1e-5, 1e-2, 0.0999999, 0.1000001,      0.5,
                              1.0, 2.0,  2.5,  3.0,  TEST_PI - 1e-6, TEST_PI - 1e-10};
#define NMAGS ((int)(sizeof MAGS / sizeof MAGS[0]))

/* magnitudes for the Jacobians: the step of the finite differences must not cross |w| = pi */
static const double JMAGS[] = {0, 1e-9, 1e-5, 1e-3, 0.05, 0.0999999, 0.1000001, 1.0, 2.5, 3.0};
#define NJMAGS ((int)(sizeof JMAGS / sizeof JMAGS[0]))

/* ---- small dense helpers, independent of hinge ---- */

/* y = A x for an n x n matrix */
static void matvec(int n, const double *A, const double *x, double *y) {
  for (int i = 0; i < n; i++) {
    y[i] = 0;
    for (int k = 0; k < n; k++) y[i] += A[n * i + k] * x[k];
  }
}

/* A = 1 (n x n) */
static void identity(int n, double *A) {
  for (int i = 0; i < n * n; i++) A[i] = 0;
  for (int i = 0; i < n; i++) A[(n + 1) * i] = 1;
}

/* a . b */
static double dot(const double *a, const double *b, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += a[i] * b[i];
  return s;
}

/* S = w^ with S x = w x x (the test's own copy) */
static void hat3(const double w[3], double S[9]) {
  S[0] = 0;     S[1] = -w[2]; S[2] = w[1];
  S[3] = w[2];  S[4] = 0;     S[5] = -w[0];
  S[6] = -w[1]; S[7] = w[0];  S[8] = 0;
}

/* X = [[w^, v], [0, 0]] for xi = (w, v) */
static void hat4(const double xi[6], double X[16]) {
  double W[9];
  hat3(xi, W);
  for (int i = 0; i < 16; i++) X[i] = 0;
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) X[4 * i + j] = W[3 * i + j];
    X[4 * i + 3] = xi[3 + i];
  }
}

/* xi from X = [[w^, v], [0, 0]] */
static void vee4(const double X[16], double xi[6]) {
  xi[0] = X[9]; xi[1] = X[2]; xi[2] = X[4];
  xi[3] = X[3]; xi[4] = X[7]; xi[5] = X[11];
}

/* M = [[R, p], [0, 1]] */
static void homog(const hg_se3 *T, double M[16]) {
  for (int i = 0; i < 16; i++) M[i] = 0;
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) M[4 * i + j] = T->R[3 * i + j];
    M[4 * i + 3] = T->p[i];
  }
  M[15] = 1;
}

/* max difference between a pose and a 4x4 homogeneous matrix */
static double pose_diff(const hg_se3 *T, const double M[16]) {
  double H[16];
  homog(T, H);
  return hg_test_max_diff(H, M, 16);
}

/* A = ad_xi from the convention's definition [[w^, 0], [v^, w^]] */
static void ad6(const double xi[6], double A[36]) {
  double W[9], V[9];
  hat3(xi, W);
  hat3(xi + 3, V);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      A[6 * i + j] = W[3 * i + j];
      A[6 * i + j + 3] = 0;
      A[6 * (i + 3) + j] = V[3 * i + j];
      A[6 * (i + 3) + j + 3] = W[3 * i + j];
    }
}

/* E = exp(A) for n x n (n <= 6): scaling to entry-sum norm <= 1, 30 Taylor terms (remainder
 * below 1/31! ~ 1e-34), squaring back; each squaring doubles the rounding error, so at |w| = pi
 * (4 squarings) the reference itself is good to ~16 ulps */
static void expm(int n, const double *A, double *E) {
  double B[36], term[36], t[36], norm = 0;
  int s = 0;
  for (int i = 0; i < n * n; i++) norm += fabs(A[i]);
  while (norm > 1) norm *= 0.5, s++;
  for (int i = 0; i < n * n; i++) B[i] = ldexp(A[i], -s);
  identity(n, E);
  identity(n, term);
  for (int k = 1; k <= 30; k++) {
    hg_test_matmul(n, term, B, t);
    for (int i = 0; i < n * n; i++) term[i] = t[i] / k, E[i] += term[i];
  }
  for (int k = 0; k < s; k++) {
    hg_test_matmul(n, E, E, t);
    memcpy(E, t, (size_t)(n * n) * sizeof(double));
  }
}

/* J = sum_k (sign A)^k / (k+1)!: the left Jacobian series for A = ad_xi (or w^) with sign +1,
 * the right one with sign -1 */
static void jacobian_series(int n, const double *A, double sign, double *J) {
  double term[36], t[36];
  identity(n, J);
  identity(n, term);
  for (int k = 1; k <= 40; k++) {
    hg_test_matmul(n, term, A, t);
    for (int i = 0; i < n * n; i++) term[i] = sign * t[i] / (k + 1), J[i] += term[i];
  }
}

/* w = a random direction scaled to length mag */
static void random_rotvec(hg_rng *r, double mag, double w[3]) {
  double n;
  do {
    hg_test_random_vector(r, w, 3, -1, 1);
    n = hg_v3_norm(w);
  } while (n < 0.1 || n > 1);
  for (int i = 0; i < 3; i++) w[i] *= mag / n;
}

/* xi = (random rotation vector of length mag, random v in [-2, 2]^3) */
static void random_twist(hg_rng *r, double mag, double xi[6]) {
  random_rotvec(r, mag, xi);
  hg_test_random_vector(r, xi + 3, 3, -2, 2);
}

/* a random unit quaternion (either sign of w) */
static void random_quat(hg_rng *r, double q[4]) {
  double n;
  do {
    hg_test_random_vector(r, q, 4, -1, 1);
    n = sqrt(dot(q, q, 4));
  } while (n < 0.1 || n > 1);
  hg_quat_normalize(q);
}

/* ---- SO(3) ---- */

/* hg_so3_exp equals the Taylor-series exponential of w^ and is a proper rotation */
static void so3_exp_matches_series(void **state) {
  hg_rng r;
  hg_rng_seed(&r, 11);
  double worst = 0, worst_orth = 0;
  for (int k = 0; k <= NMAGS; k++) {
    double mag = k < NMAGS ? MAGS[k] : TEST_PI;
    for (int s = 0; s < NSAMPLE; s++) {
      double w[3], W[9], E[9], R[9], RRt[9], Rt[9], I[9];
      random_rotvec(&r, mag, w);
      hat3(w, W);
      expm(3, W, E);
      hg_so3_exp(w, R);
      worst = fmax(worst, hg_test_max_diff(R, E, 9));
      /* R R^T = 1 and det R = +1 */
      hg_test_transpose(3, R, Rt);
      hg_test_matmul(3, R, Rt, RRt);
      identity(3, I);
      double det = R[0] * (R[4] * R[8] - R[5] * R[7]) - R[1] * (R[3] * R[8] - R[5] * R[6]) +
                   R[2] * (R[3] * R[7] - R[4] * R[6]);
      worst_orth = fmax(worst_orth, fmax(hg_test_max_diff(RRt, I, 9), fabs(det - 1)));
    }
  }
  printf("# so3_exp vs Taylor series: worst %.3g; orthonormality worst %.3g\n", worst, worst_orth);
  assert_true(worst < 1e-14);
  assert_true(worst_orth < 1e-14);
}

/* |a - b| / |b| (|b| > 0), or |a| when b = 0 */
static double rel_diff(const double *a, const double *b, int n) {
  double s = sqrt(dot(b, b, n));
  return hg_test_max_diff(a, b, n) / (s > 0 ? s : 1);
}

/* log(exp(w)) = w for |w| < pi (relative to |w|, so that the series near 0 count), and +-w at
 * |w| = pi exactly */
static void so3_log_of_exp(void **state) {
  hg_rng r;
  hg_rng_seed(&r, 12);
  double worst = 0, worst_pi = 0, worst_mag = 0;
  for (int k = 0; k <= NMAGS; k++) {
    double mag = k < NMAGS ? MAGS[k] : TEST_PI;
    for (int s = 0; s < NSAMPLE; s++) {
      double w[3], R[9], l[3], mw[3];
      random_rotvec(&r, mag, w);
      hg_so3_exp(w, R);
      hg_so3_log(R, l);
      for (int i = 0; i < 3; i++) mw[i] = -w[i];
      double e = rel_diff(l, w, 3);
      if (k < NMAGS && e > worst) worst = e, worst_mag = mag;
      if (k == NMAGS) worst_pi = fmax(worst_pi, fmin(e, rel_diff(l, mw, 3)));
    }
  }
  printf("# so3 |log(exp(w)) - w| / |w|: worst %.3g (at |w| = %.9g) for |w| < pi, %.3g (up to "
         "sign) at |w| = pi\n",
         worst, worst_mag, worst_pi);
  assert_true(worst < 1e-14);
  assert_true(worst_pi < 1e-15);
}

/* exp(log(R)) = R for random rotations and half turns about the axes, with |log R| <= pi */
static void so3_exp_of_log(void **state) {
  hg_rng r;
  hg_rng_seed(&r, 13);
  double worst = 0;
  /* exact half turns diag(1, -1, -1), ... and random rotations */
  for (int s = 0; s < 3 + 200; s++) {
    double R[9], q[4], l[3], E[9];
    if (s < 3) {
      for (int i = 0; i < 9; i++) R[i] = 0;
      for (int i = 0; i < 3; i++) R[4 * i] = i == s ? 1 : -1;
    } else {
      random_quat(&r, q);
      hg_quat_to_R(q, R);
    }
    hg_so3_log(R, l);
    assert_true(hg_v3_norm(l) <= TEST_PI * (1 + 1e-15));
    hg_so3_exp(l, E);
    worst = fmax(worst, hg_test_max_diff(E, R, 9));
  }
  printf("# so3 exp(log(R)) - R: worst %.3g\n", worst);
  assert_true(worst < 1e-14);
}

/* ---- quaternions ---- */

/* the Hamilton product on the basis: i j = k, j k = i, k i = j, i i = -1 */
static void quat_mul_basis(void **state) {
  static const double e[4][4] = {{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}};
  static const double minus_one[4] = {-1, 0, 0, 0};
  double out[4];
  hg_quat_mul(e[1], e[2], out);
  assert_true(hg_test_max_diff(out, e[3], 4) == 0);
  hg_quat_mul(e[2], e[3], out);
  assert_true(hg_test_max_diff(out, e[1], 4) == 0);
  hg_quat_mul(e[3], e[1], out);
  assert_true(hg_test_max_diff(out, e[2], 4) == 0);
  for (int k = 1; k < 4; k++) {
    hg_quat_mul(e[k], e[k], out);
    assert_true(hg_test_max_diff(out, minus_one, 4) == 0);
  }
}

/* R(q) x = Im(q (0, x) q*), R(-q) = R(q), R(3q) = R(q) */
static void quat_to_R_is_the_sandwich(void **state) {
  hg_rng r;
  hg_rng_seed(&r, 14);
  double worst = 0;
  for (int s = 0; s < 200; s++) {
    double q[4], qc[4], x[4] = {0}, t[4], y[4], R[9], Rx[3], mq[4], tq[4], R2[9];
    random_quat(&r, q);
    hg_test_random_vector(&r, x + 1, 3, -1, 1);
    qc[0] = q[0], qc[1] = -q[1], qc[2] = -q[2], qc[3] = -q[3];
    hg_quat_mul(q, x, t);
    hg_quat_mul(t, qc, y);
    hg_quat_to_R(q, R);
    hg_m3_mulv(R, x + 1, Rx);
    worst = fmax(worst, hg_test_max_diff(Rx, y + 1, 3));
    for (int i = 0; i < 4; i++) mq[i] = -q[i], tq[i] = 3 * q[i];
    hg_quat_to_R(mq, R2);
    worst = fmax(worst, hg_test_max_diff(R2, R, 9));
    hg_quat_to_R(tq, R2);
    worst = fmax(worst, hg_test_max_diff(R2, R, 9));
  }
  printf("# quat_to_R vs q x q*: worst %.3g\n", worst);
  assert_true(worst < 1e-14);
}

/* R_to_quat(quat_to_R(q)) = +-q (w >= 0), over every branch of Shepperd's method */
static void quat_R_round_trip(void **state) {
  hg_rng r;
  hg_rng_seed(&r, 15);
  double worst = 0;
  for (int s = 0; s < 400; s++) {
    double q[4], R[9], back[4], sq[4];
    random_quat(&r, q);
    /* every fourth sample is a near half turn about x, y or z (trace < 0 branches) */
    if (s % 4 != 0) {
      int k = s % 4;
      for (int i = 0; i < 4; i++) q[i] *= 0.05;
      q[k] = 1;
      if (s % 8 < 4) q[0] = -q[0];
      hg_quat_normalize(q);
    }
    hg_quat_to_R(q, R);
    hg_R_to_quat(R, back);
    assert_true(back[0] >= 0);
    assert_true(fabs(dot(back, back, 4) - 1) < 1e-15);
    double sign = q[0] < 0 ? -1 : 1;
    for (int i = 0; i < 4; i++) sq[i] = sign * q[i];
    worst = fmax(worst, hg_test_max_diff(back, sq, 4));
  }
  printf("# R_to_quat(quat_to_R(q)) vs +-q: worst %.3g\n", worst);
  assert_true(worst < 1e-14);
}

/* R(quat_exp(w)) = so3_exp(w); quat_log inverts quat_exp for |w| < pi; log(-q) = log(q) */
static void quat_exp_log(void **state) {
  hg_rng r;
  hg_rng_seed(&r, 16);
  double worst_exp = 0, worst_log = 0, worst_sign = 0;
  for (int k = 0; k <= NMAGS; k++) {
    double mag = k < NMAGS ? MAGS[k] : TEST_PI;
    for (int s = 0; s < NSAMPLE; s++) {
      double w[3], q[4], mq[4], R[9], Rq[9], l[3], lm[3];
      random_rotvec(&r, mag, w);
      hg_quat_exp(w, q);
      assert_true(fabs(dot(q, q, 4) - 1) < 1e-15);
      hg_quat_to_R(q, Rq);
      hg_so3_exp(w, R);
      worst_exp = fmax(worst_exp, hg_test_max_diff(Rq, R, 9));
      for (int i = 0; i < 4; i++) mq[i] = -q[i];
      hg_quat_log(q, l);
      hg_quat_log(mq, lm);
      worst_sign = fmax(worst_sign, hg_test_max_diff(l, lm, 3));
      if (k < NMAGS) worst_log = fmax(worst_log, hg_test_max_diff(l, w, 3));
    }
  }
  printf("# quat_exp vs so3_exp %.3g; quat_log(quat_exp(w)) - w %.3g; log(-q) - log(q) %.3g\n",
         worst_exp, worst_log, worst_sign);
  assert_true(worst_exp < 1e-14);
  assert_true(worst_log < 1e-13);
  assert_true(worst_sign < 1e-15);
}

/* ---- SE(3) ---- */

/* hg_se3_exp equals the 4x4 matrix exponential; log(exp(xi)) = xi; exp(log(T)) = T */
static void se3_exp_log(void **state) {
  hg_rng r;
  hg_rng_seed(&r, 17);
  double worst_exp = 0, worst_log = 0, worst_back = 0;
  for (int k = 0; k < NMAGS; k++)
    for (int s = 0; s < NSAMPLE; s++) {
      double xi[6], X[16], E[16], l[6];
      hg_se3 T, B;
      random_twist(&r, MAGS[k], xi);
      hat4(xi, X);
      expm(4, X, E);
      hg_se3_exp(xi, &T);
      worst_exp = fmax(worst_exp, pose_diff(&T, E));
      hg_se3_log(&T, l);
      worst_log = fmax(worst_log, rel_diff(l, xi, 6));
      /* and from a random pose back */
      hg_test_random_pose(&r, &T);
      hg_se3_log(&T, l);
      hg_se3_exp(l, &B);
      homog(&T, E);
      worst_back = fmax(worst_back, pose_diff(&B, E));
    }
  printf("# se3_exp vs 4x4 series %.3g; |log(exp(xi)) - xi| / |xi| %.3g; exp(log(T)) - T %.3g\n",
         worst_exp, worst_log, worst_back);
  assert_true(worst_exp < 1e-14);
  assert_true(worst_log < 1e-14);
  assert_true(worst_back < 1e-14);
}

/* ---- adjoint actions ---- */

/* |Ad_A V - vee(A V^ A^-1)| and |Ad_{A^-1} Ad_A V - V| */
static double Ad_definition_error(const hg_se3 *A, const double V[6]) {
  hg_se3 Ai;
  double X[16], M[16], Mi[16], t[16], C[16], ref[6], out[6], back[6];
  hat4(V, X);
  homog(A, M);
  hg_se3_inv(A, &Ai);
  homog(&Ai, Mi);
  hg_test_matmul(4, M, X, t);
  hg_test_matmul(4, t, Mi, C);
  vee4(C, ref);
  hg_Ad(A, V, out);
  hg_Ad_inv(A, out, back);
  return fmax(hg_test_max_diff(out, ref, 6), hg_test_max_diff(back, V, 6));
}

/* the Ad matrix: it applies hg_Ad and hg_Ad_inv, Ad_{AB} = Ad_A Ad_B, Ad_{A^-1} Ad_A = 1 */
static double Ad_matrix_error(const hg_se3 *A, const hg_se3 *B, const double V[6]) {
  hg_se3 AB, Ai;
  double mA[36], mB[36], mAB[36], mAi[36], prod[36], I[36], MV[6], out[6], e;
  hg_Ad_matrix(A, mA);
  matvec(6, mA, V, MV);
  hg_Ad(A, V, out);
  e = hg_test_max_diff(MV, out, 6);
  hg_Ad_matrix(B, mB);
  hg_se3_mul(A, B, &AB);
  hg_Ad_matrix(&AB, mAB);
  hg_test_matmul(6, mA, mB, prod);
  e = fmax(e, hg_test_max_diff(prod, mAB, 36));
  hg_se3_inv(A, &Ai);
  hg_Ad_matrix(&Ai, mAi);
  hg_test_matmul(6, mAi, mA, prod);
  identity(6, I);
  e = fmax(e, hg_test_max_diff(prod, I, 36));
  matvec(6, mAi, V, MV);
  hg_Ad_inv(A, V, out);
  return fmax(e, hg_test_max_diff(MV, out, 6));
}

/* Ad_T V = vee(T V^ T^-1); Ad matrix; Ad_{AB} = Ad_A Ad_B; Ad_{T^-1} = Ad_T^-1 */
static void adjoint_homomorphism(void **state) {
  hg_rng r;
  hg_rng_seed(&r, 18);
  double worst = 0;
  for (int s = 0; s < 200; s++) {
    hg_se3 A, B;
    double V[6];
    hg_test_random_pose(&r, &A);
    hg_test_random_pose(&r, &B);
    hg_test_random_vector(&r, V, 6, -2, 2);
    worst = fmax(worst, fmax(Ad_definition_error(&A, V), Ad_matrix_error(&A, &B, V)));
  }
  printf("# Ad: definition, homomorphism and inverse: worst %.3g\n", worst);
  assert_true(worst < 1e-14);
}

/* d/dt Ad_{exp(tX)} Y at t = 0 equals ad_X Y = vee([X^, Y^]) */
static void ad_is_derivative_of_Ad(void **state) {
  hg_rng r;
  hg_rng_seed(&r, 19);
  /* central differences: truncation h^2 |X|^3 |Y| / 6 ~ 1e-10, round-off eps |Y| / h ~ 1e-11 */
  const double h = 1e-5;
  double worst_fd = 0, worst_br = 0;
  for (int s = 0; s < 200; s++) {
    double X[6], Y[6], hx[6], ap[6], am[6], fd[6], adv[6], Xh[16], Yh[16], XY[16], YX[16], br[6];
    double A[36], AY[6];
    hg_se3 Tp, Tm;
    hg_test_random_vector(&r, X, 6, -1, 1);
    hg_test_random_vector(&r, Y, 6, -1, 1);
    for (int i = 0; i < 6; i++) hx[i] = h * X[i];
    hg_se3_exp(hx, &Tp);
    for (int i = 0; i < 6; i++) hx[i] = -h * X[i];
    hg_se3_exp(hx, &Tm);
    hg_Ad(&Tp, Y, ap);
    hg_Ad(&Tm, Y, am);
    for (int i = 0; i < 6; i++) fd[i] = (ap[i] - am[i]) / (2 * h);
    hg_ad(X, Y, adv);
    worst_fd = fmax(worst_fd, hg_test_max_diff(adv, fd, 6));
    /* the Lie bracket of 4x4 matrices, and the ad matrix */
    hat4(X, Xh);
    hat4(Y, Yh);
    hg_test_matmul(4, Xh, Yh, XY);
    hg_test_matmul(4, Yh, Xh, YX);
    for (int i = 0; i < 16; i++) XY[i] -= YX[i];
    vee4(XY, br);
    hg_ad_matrix(X, A);
    matvec(6, A, Y, AY);
    worst_br = fmax(worst_br, fmax(hg_test_max_diff(adv, br, 6), hg_test_max_diff(AY, br, 6)));
  }
  printf("# ad vs d/dt Ad_exp(tX): worst %.3g; vs [X^, Y^] and ad matrix: worst %.3g\n", worst_fd,
         worst_br);
  assert_true(worst_fd < 1e-8);
  assert_true(worst_br < 1e-15);
}

/* ad*_V = ad_V^T; co-adjoint actions are the duals of the adjoint ones (power is invariant) */
static void coadjoint_duality(void **state) {
  hg_rng r;
  hg_rng_seed(&r, 20);
  double worst = 0;
  for (int s = 0; s < 200; s++) {
    double V[6], W[6], F[6], adw[6], adsF[6], A[36], At[36], AtF[6], Fa[6], Vb[6], Fb[6], Va[6];
    hg_se3 T;
    hg_test_random_vector(&r, V, 6, -1, 1);
    hg_test_random_vector(&r, W, 6, -1, 1);
    hg_test_random_vector(&r, F, 6, -1, 1);
    hg_test_random_pose(&r, &T);
    /* F . ad_V W = (ad*_V F) . W, and ad* against the transposed ad matrix */
    hg_ad(V, W, adw);
    hg_ad_star(V, F, adsF);
    worst = fmax(worst, fabs(dot(F, adw, 6) - dot(adsF, W, 6)));
    ad6(V, A);
    hg_test_transpose(6, A, At);
    matvec(6, At, F, AtF);
    worst = fmax(worst, hg_test_max_diff(adsF, AtF, 6));
    /* F_b . Ad_{T^-1} V_a = (Ad_{T^-1}^T F_b) . V_a, with V_a = W */
    hg_Ad_inv(&T, W, Vb);
    hg_coAd_inv(&T, F, Fa);
    worst = fmax(worst, fabs(dot(F, Vb, 6) - dot(Fa, W, 6)));
    /* F_a . Ad_T V_b = (Ad_T^T F_a) . V_b */
    hg_Ad(&T, V, Va);
    hg_coAd(&T, F, Fb);
    worst = fmax(worst, fabs(dot(F, Va, 6) - dot(Fb, V, 6)));
  }
  printf("# ad* and co-adjoint duality: worst %.3g\n", worst);
  assert_true(worst < 1e-14);
}

/* a force f at point x of frame {b} is, in frame {a}, the force R f at T x */
static void coadjoint_moves_point_forces(void **state) {
  hg_rng r;
  hg_rng_seed(&r, 21);
  double worst = 0;
  for (int s = 0; s < 200; s++) {
    hg_se3 T;
    double x[3], f[3], Fb[6], Fa[6], ref[6], Tx[3];
    hg_test_random_pose(&r, &T);
    hg_test_random_vector(&r, x, 3, -1, 1);
    hg_test_random_vector(&r, f, 3, -1, 1);
    hg_v3_cross(x, f, Fb);
    memcpy(Fb + 3, f, sizeof f);
    hg_coAd_inv(&T, Fb, Fa);
    hg_m3_mulv(T.R, f, ref + 3);
    hg_se3_apply(&T, x, Tx);
    hg_v3_cross(Tx, ref + 3, ref);
    worst = fmax(worst, hg_test_max_diff(Fa, ref, 6));
  }
  printf("# coAd_inv of a point force: worst %.3g\n", worst);
  assert_true(worst < 1e-15);
}

/* ---- Jacobians of exp ---- */

/* out = J_r d (right) or J_l d (left) by central differences of log on SO(3):
 * right: log(exp(w)^T exp(w +- h d)),  left: log(exp(w +- h d) exp(w)^T) */
static void so3_fd_jacobian(const double w[3], const double d[3], double h, int left,
                            double out[3]) {
  double R0[9], R[9], D[9], l[2][3];
  hg_so3_exp(w, R0);
  for (int k = 0; k < 2; k++) {
    double wp[3];
    for (int i = 0; i < 3; i++) wp[i] = w[i] + (k ? -h : h) * d[i];
    hg_so3_exp(wp, R);
    if (left)
      hg_m3_mul_T(R, R0, D);
    else
      hg_m3_mulT(R0, R, D);
    hg_so3_log(D, l[k]);
  }
  for (int i = 0; i < 3; i++) out[i] = (l[0][i] - l[1][i]) / (2 * h);
}

/* the same on SE(3) */
static void se3_fd_jacobian(const double xi[6], const double d[6], double h, int left,
                            double out[6]) {
  hg_se3 T0, T, D, T0i;
  double l[2][6];
  hg_se3_exp(xi, &T0);
  hg_se3_inv(&T0, &T0i);
  for (int k = 0; k < 2; k++) {
    double xp[6];
    for (int i = 0; i < 6; i++) xp[i] = xi[i] + (k ? -h : h) * d[i];
    hg_se3_exp(xp, &T);
    if (left)
      hg_se3_mul(&T, &T0i, &D);
    else
      hg_se3_invmul(&T0, &T, &D);
    hg_se3_log(&D, l[k]);
  }
  for (int i = 0; i < 6; i++) out[i] = (l[0][i] - l[1][i]) / (2 * h);
}

/* exp(w + h d) ~ exp(h J_l d) exp(w) ~ exp(w) exp(h J_r d) on SO(3) */
static void so3_dexp_finite_differences(void **state) {
  hg_rng r;
  hg_rng_seed(&r, 22);
  /* truncation O(h^2 |d|^3) ~ 1e-12, round-off O(eps / h) ~ 1e-10 */
  const double h = 1e-6;
  double worst = 0;
  for (int k = 0; k < NJMAGS; k++)
    for (int s = 0; s < NSAMPLE; s++) {
      double w[3], d[3], J[9], Jd[3], fd[3];
      random_rotvec(&r, JMAGS[k], w);
      hg_test_random_vector(&r, d, 3, -1, 1);
      hg_so3_jr(w, J);
      hg_m3_mulv(J, d, Jd);
      so3_fd_jacobian(w, d, h, 0, fd);
      worst = fmax(worst, hg_test_max_diff(Jd, fd, 3));
      hg_so3_jl(w, J);
      hg_m3_mulv(J, d, Jd);
      so3_fd_jacobian(w, d, h, 1, fd);
      worst = fmax(worst, hg_test_max_diff(Jd, fd, 3));
    }
  printf("# so3 J_l, J_r vs finite differences: worst %.3g\n", worst);
  assert_true(worst < 1e-8);
}

/* exp(xi + h d) ~ exp(h J_l d) exp(xi) ~ exp(xi) exp(h J_r d) on SE(3) */
static void se3_dexp_finite_differences(void **state) {
  hg_rng r;
  hg_rng_seed(&r, 23);
  /* as above; |v| <= 2 scales both errors by a few */
  const double h = 1e-6;
  double worst = 0;
  for (int k = 0; k < NJMAGS; k++)
    for (int s = 0; s < NSAMPLE; s++) {
      double xi[6], d[6], J[36], Jd[6], fd[6];
      random_twist(&r, JMAGS[k], xi);
      hg_test_random_vector(&r, d, 6, -1, 1);
      hg_se3_jr(xi, J);
      matvec(6, J, d, Jd);
      se3_fd_jacobian(xi, d, h, 0, fd);
      worst = fmax(worst, hg_test_max_diff(Jd, fd, 6));
      hg_se3_jl(xi, J);
      matvec(6, J, d, Jd);
      se3_fd_jacobian(xi, d, h, 1, fd);
      worst = fmax(worst, hg_test_max_diff(Jd, fd, 6));
    }
  printf("# se3 J_l, J_r vs finite differences: worst %.3g\n", worst);
  assert_true(worst < 1e-8);
}

/* worst of |J - series|, |J J^-1 - 1| for one SO(3) rotation vector, left and right */
static double so3_jacobian_errors(const double w[3]) {
  double W[9], S[9], J[9], Ji[9], P[9], I[9], e = 0;
  hat3(w, W);
  identity(3, I);
  for (int left = 0; left < 2; left++) {
    jacobian_series(3, W, left ? 1 : -1, S);
    (left ? hg_so3_jl : hg_so3_jr)(w, J);
    (left ? hg_so3_jl_inv : hg_so3_jr_inv)(w, Ji);
    e = fmax(e, hg_test_max_diff(J, S, 9));
    hg_test_matmul(3, J, Ji, P);
    e = fmax(e, hg_test_max_diff(P, I, 9));
  }
  /* J_l(w) = exp(w) J_r(w) */
  double R[9], Jr[9], RJr[9];
  hg_so3_exp(w, R);
  hg_so3_jr(w, Jr);
  hg_so3_jl(w, J);
  hg_test_matmul(3, R, Jr, RJr);
  return fmax(e, hg_test_max_diff(J, RJr, 9));
}

/* the same on SE(3), with J_l(xi) = Ad_exp(xi) J_r(xi) */
static double se3_jacobian_errors(const double xi[6]) {
  double A[36], S[36], J[36], Ji[36], P[36], I[36], e = 0;
  ad6(xi, A);
  identity(6, I);
  for (int left = 0; left < 2; left++) {
    jacobian_series(6, A, left ? 1 : -1, S);
    (left ? hg_se3_jl : hg_se3_jr)(xi, J);
    (left ? hg_se3_jl_inv : hg_se3_jr_inv)(xi, Ji);
    e = fmax(e, hg_test_max_diff(J, S, 36));
    hg_test_matmul(6, J, Ji, P);
    e = fmax(e, hg_test_max_diff(P, I, 36));
  }
  hg_se3 T;
  double Ad[36], Jr[36], AJr[36];
  hg_se3_exp(xi, &T);
  hg_Ad_matrix(&T, Ad);
  hg_se3_jr(xi, Jr);
  hg_se3_jl(xi, J);
  hg_test_matmul(6, Ad, Jr, AJr);
  return fmax(e, hg_test_max_diff(J, AJr, 36));
}

/* J = sum (+-ad)^k/(k+1)!, J J^-1 = 1 for J_l and J_r, near 0 (series), across the series switch
 * and at moderate angles */
static void jacobian_series_and_inverses(void **state) {
  hg_rng r;
  hg_rng_seed(&r, 24);
  double worst3 = 0, worst6 = 0;
  for (int k = 0; k < NJMAGS; k++)
    for (int s = 0; s < NSAMPLE; s++) {
      double xi[6];
      random_twist(&r, JMAGS[k], xi);
      worst3 = fmax(worst3, so3_jacobian_errors(xi));
      worst6 = fmax(worst6, se3_jacobian_errors(xi));
    }
  printf("# Jacobians vs series, J J^-1 = 1, J_l = Ad J_r: worst SO(3) %.3g, SE(3) %.3g\n", worst3,
         worst6);
  assert_true(worst3 < 1e-14);
  /* just above the series switch (|w| = 0.1) the closed forms of the SE(3) coefficients
   * (t^2 + 2 cos t - 2) / 2t^4 and (2t - 3 sin t + t cos t) / 2t^5 cancel ~ t^4 of their terms:
   * ~ 2 eps |v| / t ~ 4e-14 absolute, measured; hence 1e-13 here */
  assert_true(worst6 < 1e-13);
}

/* ---- 6x6 and 3x3 helpers ---- */

/* P + X^T A X with X = Ad_{T^-1} (the Ad matrix of the inverse pose), A symmetric */
static void congruence_matches_explicit(void **state) {
  hg_rng r;
  hg_rng_seed(&r, 25);
  double worst = 0;
  for (int s = 0; s < 200; s++) {
    hg_se3 T, Ti;
    double A[36], P[36], ref[36], X[36], Xt[36], t[36], XtAX[36];
    hg_test_random_pose(&r, &T);
    hg_test_random_vector(&r, A, 36, -1, 1);
    hg_test_random_vector(&r, P, 36, -1, 1);
    for (int i = 0; i < 6; i++)
      for (int j = 0; j < i; j++) A[6 * i + j] = A[6 * j + i], P[6 * i + j] = P[6 * j + i];
    hg_se3_inv(&T, &Ti);
    hg_Ad_matrix(&Ti, X);
    hg_test_transpose(6, X, Xt);
    hg_test_matmul(6, Xt, A, t);
    hg_test_matmul(6, t, X, XtAX);
    for (int i = 0; i < 36; i++) ref[i] = P[i] + XtAX[i];
    hg_m6_congruence_add(&T, A, P);
    worst = fmax(worst, hg_test_max_diff(P, ref, 36));
  }
  printf("# m6_congruence_add vs X^T A X: worst %.3g\n", worst);
  assert_true(worst < 1e-14);
}

/* X^T A X for X = Ad_{T^-1} as a dense 6x6 (A symmetric, dense): the reference of the packed forms */
static void congruence_dense(const hg_se3 *T, const double A[36], double out[36]) {
  hg_se3 Ti;
  double X[36], Xt[36], t[36];
  hg_se3_inv(T, &Ti);
  hg_Ad_matrix(&Ti, X);
  hg_test_transpose(6, X, Xt);
  hg_test_matmul(6, Xt, A, t);
  hg_test_matmul(6, t, X, out);
}

/* the largest difference between packed M and dense D */
static double packed_diff(const double M[21], const double D[36]) {
  double e = 0;
  for (int i = 0; i < 6; i++)
    for (int j = i; j < 6; j++) e = fmax(e, fabs(M[hg_sym6_index(i, j)] - D[6 * i + j]));
  return e;
}

/* The coordinate-axis transforms of the body-local pass against the general ones: a turn about
 * and a shift along each axis, on twists (hg_Ad_inv), wrenches (hg_coAd_inv) and symmetric 6x6
 * matrices (X^T A X, dense), and hg_sym6_congruence on random poses; also the reduced forms on
 * matrices whose row and column 2 are zero (the projected articulated inertia of a revolute
 * joint) and the translation along x right after that turn (row and column 2 still zero) */
static void axis_transforms_match_general(void **state) {
  hg_rng r;
  hg_rng_seed(&r, 41);
  double worst = 0;
  for (int s = 0; s < 300; s++) {
    int k = s % 3, zero2 = s % 2;
    double th = hg_rng_uniform(&r) * 6.3 - 3.15, c = cos(th), sn = sin(th), len = hg_rng_uniform(&r) * 4 - 2;
    double V[6], F[6], A[36], M[21], t[6], u[6], D[36];
    hg_test_random_vector(&r, V, 6, -1, 1);
    hg_test_random_vector(&r, F, 6, -1, 1);
    hg_test_random_vector(&r, A, 36, -1, 1);
    for (int i = 0; i < 6; i++)
      for (int j = 0; j < i; j++) A[6 * i + j] = A[6 * j + i];
    if (zero2)
      for (int i = 0; i < 6; i++) A[6 * i + 2] = A[6 * 2 + i] = 0;
    for (int i = 0; i < 6; i++)
      for (int j = i; j < 6; j++) M[hg_sym6_index(i, j)] = A[6 * i + j];
    /* the turn about axis k (reduced only about z, the axis the projection zeroes) */
    hg_se3 T = {{0}, {0, 0, 0}};
    hg_m3_axis_rotation(k, c, sn, T.R);
    hg_Ad_inv(&T, V, t);
    memcpy(u, V, sizeof u);
    hg_mot_rot_axis(k, c, sn, u);
    worst = fmax(worst, hg_test_max_diff(u, t, 6));
    hg_coAd_inv(&T, F, t);
    memcpy(u, F, sizeof u);
    hg_frc_rot_axis(k, c, sn, u);
    worst = fmax(worst, hg_test_max_diff(u, t, 6));
    hg_turn tu = hg_turn_make(c, sn);
    double Mr[21];
    memcpy(Mr, M, sizeof Mr);
    hg_sym6_rot_axis(k, &tu, Mr, zero2 && k == 2);
    congruence_dense(&T, A, D);
    worst = fmax(worst, packed_diff(Mr, D));
    /* the shift along axis k; after the reduced turn about z, the shift along x may take
     * jzero (its j = 2) */
    hg_se3 S = {{1, 0, 0, 0, 1, 0, 0, 0, 1}, {0, 0, 0}};
    S.p[k] = len;
    hg_Ad_inv(&S, V, t);
    memcpy(u, V, sizeof u);
    hg_mot_trans_axis(k, len, u);
    worst = fmax(worst, hg_test_max_diff(u, t, 6));
    hg_coAd_inv(&S, F, t);
    memcpy(u, F, sizeof u);
    hg_frc_trans_axis(k, len, u);
    worst = fmax(worst, hg_test_max_diff(u, t, 6));
    memcpy(Mr, M, sizeof Mr);
    hg_sym6_trans_axis(k, len, Mr, zero2 && k == 2, zero2 && k == 0);
    congruence_dense(&S, A, D);
    worst = fmax(worst, packed_diff(Mr, D));
    /* a general pose */
    hg_se3 P;
    hg_test_random_pose(&r, &P);
    memcpy(Mr, M, sizeof Mr);
    hg_sym6_congruence(&P, Mr, zero2);
    congruence_dense(&P, A, D);
    worst = fmax(worst, packed_diff(Mr, D));
  }
  printf("# axis transforms vs Ad, coAd and dense X^T A X: worst %.3g\n", worst);
  assert_true(worst < 1e-14);
}

/* A x = b for regular A (also badly scaled), -1 for singular A */
static void m3_solve(void **state) {
  hg_rng r;
  hg_rng_seed(&r, 26);
  double worst = 0;
  for (int s = 0; s < 200; s++) {
    double A[9], b[3], x[3], Ax[3], scale = s % 2 ? 1e-3 : 1;
    hg_test_random_vector(&r, A, 9, -1, 1);
    for (int i = 0; i < 3; i++) A[4 * i] += 3; /* diagonally dominant: well conditioned */
    for (int i = 0; i < 9; i++) A[i] *= scale;
    hg_test_random_vector(&r, b, 3, -1, 1);
    assert_int_equal(hg_m3_solve(A, b, x), 0);
    hg_m3_mulv(A, x, Ax);
    worst = fmax(worst, hg_test_max_diff(Ax, b, 3));
  }
  /* rank 2 (third row = first + second), zero matrix */
  double S[9] = {1, 2, 3, 4, 5, 6, 5, 7, 9}, Z[9] = {0}, b[3] = {1, 1, 1}, x[3];
  assert_int_equal(hg_m3_solve(S, b, x), -1);
  assert_int_equal(hg_m3_solve(Z, b, x), -1);
  printf("# m3_solve residual: worst %.3g\n", worst);
  assert_true(worst < 1e-14);
}

/* hg_sym6_solve against the dense Cholesky solve of tests/support on random symmetric positive
 * definite 6x6 matrices A = G G^T of condition numbers beyond 1e12 (G 6x6 with one column
 * scaled down, as a light limb on a heavy base), with its refusals: rank 5, indefinite, NaN */
static void sym6_solve(void **state) {
  hg_rng r;
  hg_rng_seed(&r, 27);
  double worst_res = 0, worst_fwd = 0, max_cond = 0;
  for (int s = 0; s < 3000; s++) {
    double G[36], A[36], P[21], b[6], x[6], xr[6], Ax[6];
    hg_test_random_vector(&r, G, 36, -1, 1);
    double small = pow(10, -hg_rng_range(&r, 0, 4));
    for (int i = 0; i < 6; i++) G[6 * i + s % 6] *= small;
    for (int i = 0; i < 6; i++)
      for (int j = 0; j < 6; j++) {
        double t = 0;
        for (int k = 0; k < 6; k++) t += G[6 * i + k] * G[6 * j + k];
        A[6 * i + j] = t;
      }
    for (int i = 0; i < 6; i++)
      for (int j = i; j < 6; j++) P[hg_sym6_index(i, j)] = A[6 * i + j];
    hg_test_random_vector(&r, b, 6, -1, 1);
    assert_int_equal(hg_sym6_solve(P, b, x), 0);
    assert_int_equal(hg_test_spd_solve(6, A, b, xr), 0);
    /* cond = |A| |A^-1| (max row sums; A^-1 column by column from the dense solve) */
    double na = 0, ni = 0, inv[36];
    for (int c = 0; c < 6; c++) {
      double e[6] = {0}, col[6];
      e[c] = 1;
      assert_int_equal(hg_test_spd_solve(6, A, e, col), 0);
      for (int i = 0; i < 6; i++) inv[6 * i + c] = col[i];
    }
    for (int i = 0; i < 6; i++) {
      double ra = 0, ri = 0;
      for (int k = 0; k < 6; k++) ra += fabs(A[6 * i + k]), ri += fabs(inv[6 * i + k]);
      na = fmax(na, ra), ni = fmax(ni, ri);
    }
    double nx = 0;
    for (int i = 0; i < 6; i++) nx = fmax(nx, fabs(xr[i]));
    matvec(6, A, x, Ax);
    max_cond = fmax(max_cond, na * ni);
    /* backward error |A x - b| / (|A| |x|), and the forward difference from the dense solution
     * in units of cond * eps */
    worst_res = fmax(worst_res, hg_test_max_diff(Ax, b, 6) / (na * nx));
    worst_fwd = fmax(worst_fwd, hg_test_max_diff(x, xr, 6) / nx / (na * ni * DBL_EPSILON));
  }
  printf("# sym6_solve: condition up to %.3g; worst backward error %.3g, worst difference from "
         "the dense solve %.3g cond eps\n", max_cond, worst_res, worst_fwd);
  assert_true(max_cond > 1e12);
  /* a backward-stable factorization: |dA| <= gamma_7 |L| D |L^T| (Higham, Thm 10.3), gamma_7 =
   * 7 eps / (1 - 7 eps) ~ 1.6e-15 with |L| D |L^T|'s max row sum within a few times |A|'s;
   * each solution within about cond eps of the exact one, so the two within 2 cond eps */
  assert_true(worst_res < 1.6e-15);
  assert_true(worst_fwd < 2);
  /* refusals: rank 5 (a zero row and column), indefinite, NaN; x may be b */
  double P[21] = {0}, b[6] = {1, 2, 3, 4, 5, 6}, x[6];
  for (int i = 0; i < 6; i++) P[hg_sym6_index(i, i)] = 2;
  for (int i = 0; i < 5; i++) P[hg_sym6_index(i, i + 1)] = 0.5;
  assert_int_equal(hg_sym6_solve(P, b, x), 0);
  for (int k = 0; k < 6; k++) {
    double Q[21];
    memcpy(Q, P, sizeof Q);
    for (int j = 0; j < 6; j++) Q[hg_sym6_index(k, j)] = 0;
    assert_int_equal(hg_sym6_solve(Q, b, x), -1);
    Q[hg_sym6_index(k, k)] = -1;
    assert_int_equal(hg_sym6_solve(Q, b, x), -1);
    memcpy(Q, P, sizeof Q);
    Q[hg_sym6_index(k, (k + 2) % 6)] = NAN;
    assert_int_equal(hg_sym6_solve(Q, b, x), -1);
  }
  double y[6];
  memcpy(y, b, sizeof y);
  assert_int_equal(hg_sym6_solve(P, b, x), 0);
  assert_int_equal(hg_sym6_solve(P, y, y), 0);
  assert_memory_equal(x, y, sizeof x);
}

/* hg_sincos against libm's sin and cos: random angles of every size up to 1e5, angles at and
 * around multiples of pi/2 (where the reduction cancels), tiny ones, and libm's range beyond */
static void sincos_matches_libm(void **state) {
  hg_rng r;
  hg_rng_seed(&r, 21);
  double worst = 0;
  for (int t = 0; t < 500000; t++) {
    double x;
    int kind = t % 5;
    if (kind == 0) x = hg_rng_range(&r, -4, 4);
    else if (kind == 1) x = hg_rng_range(&r, -1e5, 1e5);
    else if (kind == 2) x = pow(10, hg_rng_range(&r, -300, 5)) * (t % 2 ? 1 : -1);
    else if (kind == 3) /* k pi/2 to double precision, nudged by a few ulps */
      x = nextafter((double)(int)hg_rng_range(&r, -63000, 63000) * 1.5707963267948966,
                    t % 2 ? INFINITY : -INFINITY) + hg_rng_range(&r, -4, 4) * 2e-16;
    else x = hg_rng_range(&r, -1e7, 1e7);
    double s, c;
    hg_sincos(x, &s, &c);
    worst = fmax(worst, fmax(fabs(s - sin(x)), fabs(c - cos(x))));
  }
  printf("# hg_sincos vs libm: worst difference %.3g\n", worst);
  /* an ulp of the results in [0.5, 1): the two differ by rounding alone */
  assert_true(worst <= 0x1p-53);
  double s, c;
  hg_sincos(NAN, &s, &c);
  assert_true(isnan(s) && isnan(c));
  hg_sincos(0, &s, &c);
  assert_true(s == 0 && c == 1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(so3_exp_matches_series),
      cmocka_unit_test(sincos_matches_libm),
      cmocka_unit_test(so3_log_of_exp),
      cmocka_unit_test(so3_exp_of_log),
      cmocka_unit_test(quat_mul_basis),
      cmocka_unit_test(quat_to_R_is_the_sandwich),
      cmocka_unit_test(quat_R_round_trip),
      cmocka_unit_test(quat_exp_log),
      cmocka_unit_test(se3_exp_log),
      cmocka_unit_test(adjoint_homomorphism),
      cmocka_unit_test(ad_is_derivative_of_Ad),
      cmocka_unit_test(coadjoint_duality),
      cmocka_unit_test(coadjoint_moves_point_forces),
      cmocka_unit_test(so3_dexp_finite_differences),
      cmocka_unit_test(se3_dexp_finite_differences),
      cmocka_unit_test(jacobian_series_and_inverses),
      cmocka_unit_test(congruence_matches_explicit),
      cmocka_unit_test(axis_transforms_match_general),
      cmocka_unit_test(m3_solve),
      cmocka_unit_test(sym6_solve),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
