/* test_inertia.c: rigid-body spatial inertia against the formulas of the conventions (G built by
 * hand from m, c and I_c), congruence with the adjoint, validation and symmetric eigenvalues. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "hinge.h"
#include "dense.h"
#include "lanes.h"
#include "models.h"

#define NSAMPLE 200

/* ---- helpers, independent of hinge ---- */

/* S = c^ */
static void hat3(const double c[3], double S[9]) {
  S[0] = 0;     S[1] = -c[2]; S[2] = c[1];
  S[3] = c[2];  S[4] = 0;     S[5] = -c[0];
  S[6] = -c[1]; S[7] = c[0];  S[8] = 0;
}

/* full 3x3 from (xx yy zz xy xz yz) and back */
static void sym_full(const double S[6], double M[9]) {
  M[0] = S[0]; M[1] = S[3]; M[2] = S[4];
  M[3] = S[3]; M[4] = S[1]; M[5] = S[5];
  M[6] = S[4]; M[7] = S[5]; M[8] = S[2];
}

/* S = R diag(P) R^T in (xx yy zz xy xz yz) */
static void rotated_diag(const double R[9], const double P[3], double S[6]) {
  static const int row[6] = {0, 1, 2, 0, 0, 1}, col[6] = {0, 1, 2, 1, 2, 2};
  for (int k = 0; k < 6; k++) {
    S[k] = 0;
    for (int l = 0; l < 3; l++) S[k] += R[3 * row[k] + l] * P[l] * R[3 * col[k] + l];
  }
}

/* a random rotation */
static void random_rotation(hg_rng *r, double R[9]) {
  hg_se3 T;
  hg_test_random_pose(r, &T);
  memcpy(R, T.R, sizeof T.R);
}

/* random mass, centre of mass and a valid I_c (principal moments from a solid ellipsoid) */
static void random_body(hg_rng *r, double *m, double c[3], double Ic[6]) {
  double R[9], a = hg_rng_range(r, 0.05, 0.4), b = hg_rng_range(r, 0.05, 0.4),
         e = hg_rng_range(r, 0.05, 0.4);
  *m = hg_rng_range(r, 0.2, 5);
  double P[3] = {*m * (b * b + e * e) / 5, *m * (a * a + e * e) / 5, *m * (a * a + b * b) / 5};
  random_rotation(r, R);
  rotated_diag(R, P, Ic);
  hg_test_random_vector(r, c, 3, -0.5, 0.5);
}

/* G = [[I_c - m c^ c^, m c^], [-m c^, m 1]] written out from the convention */
static void convention_matrix(double m, const double c[3], const double Ic[6], double G[36]) {
  double C[9], CC[9], I[9];
  hat3(c, C);
  hg_test_matmul(3, C, C, CC);
  sym_full(Ic, I);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      G[6 * i + j] = I[3 * i + j] - m * CC[3 * i + j];
      G[6 * i + j + 3] = m * C[3 * i + j];
      G[6 * (i + 3) + j] = -m * C[3 * i + j];
      G[6 * (i + 3) + j + 3] = i == j ? m : 0;
    }
}

/* ---- tests ---- */

/* hg_inertia_matrix equals the convention's formula; hg_inertia_com recovers c and I_c */
/* ref = X^T G X with X = Ad_{T^-1}: the body's inertia matrix (m, c, I_c in body b) seen from
 * frame a, T = T_ab, by congruence */
static void congruence(double m, const double c[3], const double Ic[6], const hg_se3 *T,
                       double ref[36]) {
  double Gb[36], X[36], Xt[36], t[36];
  hg_se3 Ti;
  hg_se3_inv(T, &Ti);
  hg_Ad_matrix(&Ti, X);
  hg_test_transpose(6, X, Xt);
  convention_matrix(m, c, Ic, Gb);
  hg_test_matmul(6, Xt, Gb, t);
  hg_test_matmul(6, t, X, ref);
}

static void matrix_matches_convention(void **state) {
  hg_rng r;
  hg_rng_seed(&r, 31);
  double worst = 0, worst_com = 0;
  for (int s = 0; s < NSAMPLE; s++) {
    double m, c[3], Ic[6], G[36], ref[36], c2[3], Ic2[6];
    hg_inertia in;
    random_body(&r, &m, c, Ic);
    assert_int_equal(hg_inertia_from_com(m, c, Ic, &in, NULL, 0), 0);
    hg_inertia_matrix(&in, G);
    convention_matrix(m, c, Ic, ref);
    worst = fmax(worst, hg_test_max_diff(G, ref, 36));
    hg_inertia_com(&in, c2, Ic2);
    worst_com = fmax(worst_com, fmax(hg_test_max_diff(c2, c, 3), hg_test_max_diff(Ic2, Ic, 6)));
    assert_true(in.m == m);
  }
  printf("# inertia matrix vs convention: worst %.3g; com / I_c round trip worst %.3g\n", worst,
         worst_com);
  assert_true(worst < 1e-14);
  assert_true(worst_com < 1e-14);
}

/* hg_inertia_mulv(G, V) = G V with the matrix of the convention */
static void mulv_is_matrix_product(void **state) {
  hg_rng r;
  hg_rng_seed(&r, 32);
  double worst = 0;
  for (int s = 0; s < NSAMPLE; s++) {
    double m, c[3], Ic[6], G[36], V[6], ref[6], out[6];
    hg_inertia in;
    random_body(&r, &m, c, Ic);
    hg_inertia_from_com(m, c, Ic, &in, NULL, 0);
    convention_matrix(m, c, Ic, G);
    hg_test_random_vector(&r, V, 6, -2, 2);
    for (int i = 0; i < 6; i++) {
      ref[i] = 0;
      for (int k = 0; k < 6; k++) ref[i] += G[6 * i + k] * V[k];
    }
    hg_inertia_mulv(&in, V, out);
    worst = fmax(worst, hg_test_max_diff(out, ref, 6));
  }
  printf("# inertia mulv vs matrix product: worst %.3g\n", worst);
  assert_true(worst < 1e-14);
}

/* G_a = X^T G_b X with X = Ad_{T_ab^-1} (a twist in {a} seen in {b}); mass kept; c_a = T c_b;
 * I_c rotates as R I_c R^T */
static void transform_is_congruence(void **state) {
  hg_rng r;
  hg_rng_seed(&r, 33);
  double worst = 0, worst_com = 0;
  for (int s = 0; s < NSAMPLE; s++) {
    double m, c[3], Ic[6], Ga[36], ref[36];
    double ca[3], Ica[6], ref_c[3], Icb_full[9], tmp[9], Ra[9], Ica_full[9];
    hg_inertia ib, ia;
    hg_se3 T;
    random_body(&r, &m, c, Ic);
    hg_inertia_from_com(m, c, Ic, &ib, NULL, 0);
    hg_test_random_pose(&r, &T);
    hg_inertia_transform(&T, &ib, &ia);
    /* the congruence */
    congruence(m, c, Ic, &T, ref);
    hg_inertia_matrix(&ia, Ga);
    worst = fmax(worst, hg_test_max_diff(Ga, ref, 36));
    /* mass, centre of mass and rotated I_c */
    assert_true(ia.m == m);
    hg_inertia_com(&ia, ca, Ica);
    for (int i = 0; i < 3; i++)
      ref_c[i] = T.R[3 * i] * c[0] + T.R[3 * i + 1] * c[1] + T.R[3 * i + 2] * c[2] + T.p[i];
    sym_full(Ic, Icb_full);
    hg_test_matmul(3, T.R, Icb_full, tmp);
    hg_test_transpose(3, T.R, Ra);
    hg_test_matmul(3, tmp, Ra, Ica_full);
    sym_full(Ica, tmp);
    worst_com = fmax(worst_com, fmax(hg_test_max_diff(ca, ref_c, 3), hg_test_max_diff(tmp, Ica_full, 9)));
  }
  printf("# inertia transform vs X^T G X: worst %.3g; com and I_c worst %.3g\n", worst, worst_com);
  assert_true(worst < 1e-13);
  assert_true(worst_com < 1e-14);
}

/* The kinematic walk's transforms from the centre-of-mass form, the scalar one and the lanes'
 * (hg_lane3_inertia_transform_c), against X^T G X, on bodies with products of inertia, diagonal
 * ones and massless ones, up to 1 km from the frame's origin (a long tree); and the diagonal
 * entries of I_o, sums of non-negative terms in both, to a few eps of each other */
static void com_forms_agree(void **state) {
  hg_rng r;
  hg_rng_seed(&r, 34);
  double worst = 0, worst_diag = 0;
  for (int s = 0; s < NSAMPLE; s++) {
    double m, c[3], Ic[6], ref[36], G1[36], G2[36];
    hg_inertia ib, i1, i2;
    hg_inertia_c ibc;
    hg_se3 T;
    random_body(&r, &m, c, Ic);
    if (s % 5 == 0) Ic[3] = Ic[4] = Ic[5] = 0;                        /* principal axes */
    if (s % 7 == 0) m = 0, Ic[0] = Ic[1] = Ic[2] = Ic[3] = Ic[4] = Ic[5] = 0; /* a frame */
    hg_inertia_from_com(m, c, Ic, &ib, NULL, 0);
    hg_inertia_to_c(&ib, &ibc);
    hg_test_random_pose(&r, &T);
    for (int k = 0; k < 3; k++) T.p[k] *= pow(10, s % 4);
    hg_inertia_transform_c(&T, &ibc, &i1);
    hg_lane3_inertia_transform_c(&T, &ibc, &i2);
    congruence(m, c, Ic, &T, ref);
    hg_inertia_matrix(&i1, G1);
    hg_inertia_matrix(&i2, G2);
    double scale = 1e-300;
    for (int e = 0; e < 36; e++) scale = fmax(scale, fabs(ref[e]));
    worst = fmax(worst, fmax(hg_test_max_diff(G1, ref, 36), hg_test_max_diff(G2, ref, 36)) / scale);
    assert_true(i2.m == m);
    for (int k = 0; k < 3; k++)
      worst_diag = fmax(worst_diag, fabs(i1.I[k] - i2.I[k]) / fmax(fabs(i1.I[k]), 1e-300));
  }
  printf("# centre-of-mass transforms vs X^T G X: worst %.3g of the largest entry; the two "
         "diagonals %.3g apart\n", worst, worst_diag);
  assert_true(worst < 1e-14);
  assert_true(worst_diag < 1e-14);
}

/* hg_inertia_add sums the matrices */
static void add_sums_matrices(void **state) {
  hg_rng r;
  hg_rng_seed(&r, 34);
  double worst = 0;
  for (int s = 0; s < NSAMPLE; s++) {
    hg_inertia A, B;
    double GA[36], GB[36], GS[36];
    hg_test_random_inertia(&r, &A);
    hg_test_random_inertia(&r, &B);
    hg_inertia_matrix(&A, GA);
    hg_inertia_matrix(&B, GB);
    hg_inertia_add(&A, &B);
    hg_inertia_matrix(&A, GS);
    for (int i = 0; i < 36; i++) GA[i] += GB[i];
    worst = fmax(worst, hg_test_max_diff(GS, GA, 36));
  }
  printf("# inertia add: worst %.3g\n", worst);
  assert_true(worst < 1e-15);
}

/* validate returns -1 and a reason for bad input */
static void expect_rejected(double m, const double Ic[6]) {
  char why[256] = "";
  assert_int_equal(hg_inertia_validate(m, Ic, why, sizeof why), -1);
  assert_true(strlen(why) > 0);
  assert_int_equal(hg_inertia_validate(m, Ic, NULL, 0), -1);
}

/* validate accepts good input and leaves no complaint */
static void expect_accepted(double m, const double Ic[6]) {
  char why[256] = "";
  assert_int_equal(hg_inertia_validate(m, Ic, why, sizeof why), 0);
}

/* negative or non-finite mass, NaN, non-PSD and triangle violations rejected; point mass, thin
 * rod and flat plate (triangle equality) accepted, also when rotated */
static void validation(void **state) {
  static const double zero[6] = {0, 0, 0, 0, 0, 0}, unit[6] = {1, 1, 1, 0, 0, 0};
  static const double nan_ic[6] = {1, 1, 1, NAN, 0, 0};
  static const double indefinite[6] = {1, 1, 1, 2, 0, 0}; /* eigenvalues -1, 1, 3 */
  static const double triangle[6] = {1, 1, 2.01, 0, 0, 0};
  static const double rod[6] = {0, 1, 1, 0, 0, 0}, plate[6] = {1, 2, 3, 0, 0, 0};
  double R[9], rot[6], P[3];
  hg_rng r;
  hg_rng_seed(&r, 35);
  expect_rejected(-1, unit);
  expect_rejected(NAN, unit);
  expect_rejected(INFINITY, unit);
  expect_rejected(1, nan_ic);
  expect_rejected(1, indefinite);
  expect_rejected(1, triangle);
  expect_accepted(1, zero); /* point mass */
  expect_accepted(0, zero); /* massless */
  expect_accepted(1, rod);
  expect_accepted(1, plate);
  /* the same shapes in rotated axes */
  random_rotation(&r, R);
  P[0] = 0, P[1] = 1, P[2] = 1;
  rotated_diag(R, P, rot);
  expect_accepted(2, rot);
  P[0] = 1, P[1] = 1, P[2] = 2.01;
  rotated_diag(R, P, rot);
  expect_rejected(2, rot);
  P[0] = -0.1, P[1] = 1, P[2] = 1;
  rotated_diag(R, P, rot);
  expect_rejected(2, rot);
  /* from_com also rejects a non-finite centre of mass */
  double c[3] = {0, NAN, 0};
  hg_inertia in;
  assert_int_equal(hg_inertia_from_com(1, c, unit, &in, NULL, 0), -1);
}

/* rotated shapes at the triangle equality: thin rods (0, 1, 1), discs (1, 1, 2), plates
 * (1, 2, 3), scaled; all are physical and must pass validation in any axes */
static void validation_accepts_rotated_limits(void **state) {
  static const double shapes[3][3] = {{0, 1, 1}, {1, 1, 2}, {1, 2, 3}};
  hg_rng r;
  hg_rng_seed(&r, 37);
  int rejected[3] = {0, 0, 0};
  for (int s = 0; s < NSAMPLE; s++)
    for (int k = 0; k < 3; k++) {
      double R[9], P[3], Ic[6], scale = hg_rng_range(&r, 0.01, 10);
      random_rotation(&r, R);
      for (int i = 0; i < 3; i++) P[i] = scale * shapes[k][i];
      rotated_diag(R, P, Ic);
      if (hg_inertia_validate(1, Ic, NULL, 0)) rejected[k]++;
    }
  printf("# validation of rotated limit shapes: rejected rods %d, discs %d, plates %d of %d each\n",
         rejected[0], rejected[1], rejected[2], NSAMPLE);
  assert_int_equal(rejected[0] + rejected[1] + rejected[2], 0);
}

/* |lambda - expected| relative to the largest |expected|; counts results out of order */
static double eig_err(const double S[6], const double expect[3], int *misordered) {
  double l[3], scale = fmax(fabs(expect[0]), fmax(fabs(expect[1]), fabs(expect[2])));
  hg_sym3_eigenvalues(S, l);
  if (!(l[0] <= l[1] && l[1] <= l[2])) (*misordered)++;
  return hg_test_max_diff(l, expect, 3) / (scale > 0 ? scale : 1);
}

/* sort 3 numbers ascending */
static void sort3(double a[3]) {
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 2 - i; j++)
      if (a[j] > a[j + 1]) {
        double t = a[j];
        a[j] = a[j + 1], a[j + 1] = t;
      }
}

/* eigenvalues of known matrices: diagonal and hand-computed (characteristic polynomials:
 * [[2,1,0],[1,2,0],[0,0,3]] -> (2-l)^2 - 1 = 0 and l = 3; [[4,1,1],[1,4,1],[1,1,4]] = 3 + ones
 * -> 3, 3, 6; [[0,1,0],[1,0,0],[0,0,0]] -> -1, 0, 1) */
static void sym3_eigenvalues_known(void **state) {
  static const double diag[6] = {3, 1, 2, 0, 0, 0}, diag_e[3] = {1, 2, 3};
  static const double block[6] = {2, 2, 3, 1, 0, 0}, block_e[3] = {1, 3, 3};
  static const double ones[6] = {4, 4, 4, 1, 1, 1}, ones_e[3] = {3, 3, 6};
  static const double swap[6] = {0, 0, 0, 1, 0, 0}, swap_e[3] = {-1, 0, 1};
  int mis = 0;
  double e[4] = {eig_err(diag, diag_e, &mis), eig_err(block, block_e, &mis),
                 eig_err(ones, ones_e, &mis), eig_err(swap, swap_e, &mis)};
  printf("# sym3 eigenvalues of known matrices: diagonal %.3g, 2x2 block %.3g, 3 + ones %.3g, "
         "swap %.3g; misordered %d\n",
         e[0], e[1], e[2], e[3], mis);
  /* symmetric eigenvalues are perfectly conditioned (Weyl: |dl| <= |dS|): a stable method is
   * good to a few ulps of the largest */
  for (int k = 0; k < 4; k++) assert_true(e[k] < 1e-14);
  assert_int_equal(mis, 0);
}

/* rotated diagonals R diag(P) R^T: distinct, double and triple eigenvalues, ascending order */
static void sym3_eigenvalues_rotated(void **state) {
  hg_rng r;
  hg_rng_seed(&r, 36);
  double worst_distinct = 0, worst_repeated = 0;
  int mis = 0;
  for (int s = 0; s < NSAMPLE; s++) {
    double R[9], P[3], S[6];
    random_rotation(&r, R);
    hg_test_random_vector(&r, P, 3, -2, 2);
    rotated_diag(R, P, S);
    sort3(P);
    worst_distinct = fmax(worst_distinct, eig_err(S, P, &mis));
    /* a double (low or high) and now and then a triple eigenvalue */
    if (s % 2) P[1] = P[0];
    else P[1] = P[2];
    if (s % 5 == 0) P[2] = P[0] = P[1];
    rotated_diag(R, P, S);
    sort3(P);
    worst_repeated = fmax(worst_repeated, eig_err(S, P, &mis));
  }
  printf("# sym3 eigenvalues of rotated diagonals: distinct %.3g, repeated %.3g; misordered %d of "
         "%d\n",
         worst_distinct, worst_repeated, mis, 2 * NSAMPLE);
  assert_true(worst_distinct < 1e-13);
  /* as above: perfectly conditioned, whatever the multiplicity */
  assert_true(worst_repeated < 1e-13);
  assert_int_equal(mis, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(matrix_matches_convention),
      cmocka_unit_test(mulv_is_matrix_product),
      cmocka_unit_test(transform_is_congruence),
      cmocka_unit_test(com_forms_agree),
      cmocka_unit_test(add_sums_matrices),
      cmocka_unit_test(validation),
      cmocka_unit_test(validation_accepts_rotated_limits),
      cmocka_unit_test(sym3_eigenvalues_known),
      cmocka_unit_test(sym3_eigenvalues_rotated),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
