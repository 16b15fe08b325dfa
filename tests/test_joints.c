/* test_joints.c: every joint type against central finite differences on the group: the motion
 * subspace is the body velocity of T_joint(q (+) t v), the bias is the rate of S(q(t)) v, the chart
 * rate realizes the joint velocity, and integrate / difference are inverse group operations.
 *
 * Step and tolerance of the central differences: h = 1e-6 gives a truncation error O(h^2 f''')
 * ~ 1e-12 |v|^3 and a round-off error O(eps / h) ~ 1e-10 (poses are O(1)); 1e-8 leaves a margin of
 * ~100 over both, while a wrong sign, axis or factor shows up at O(1). */
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
#include "models.h"

#define TEST_PI 3.14159265358979323846
#define NSAMPLE 100
#define FD_H 1e-6
#define FD_TOL 1e-8

/* every type, fixed included */
static const hg_joint_type TYPES[] = {HG_JOINT_FIXED,     HG_JOINT_REVOLUTE,  HG_JOINT_PRISMATIC,
                                      HG_JOINT_HELICAL,   HG_JOINT_CYLINDRICAL, HG_JOINT_UNIVERSAL,
                                      HG_JOINT_PLANAR,    HG_JOINT_SPHERICAL, HG_JOINT_FREE};
#define NTYPES ((int)(sizeof TYPES / sizeof TYPES[0]))

/* ---- helpers ---- */

/* max difference between two poses */
static double pose_diff(const hg_se3 *A, const hg_se3 *B) {
  return fmax(hg_test_max_diff(A->R, B->R, 9), hg_test_max_diff(A->p, B->p, 3));
}

/* S v: the sum of the motion-subspace columns weighted by v */
static void motion_times(const hg_joint *j, const double *q, const double *v, double out[6]) {
  double S[6 * HG_JOINT_MAXNV];
  int nv = hg_joint_nv(j->type);
  hg_joint_motion(j, q, S);
  for (int r = 0; r < 6; r++) {
    out[r] = 0;
    for (int k = 0; k < nv; k++) out[r] += S[6 * k + r] * v[k];
  }
}

/* log(T(q0)^-1 T(q)) */
static void relative_log(const hg_joint *j, const double *q0, const double *q, double xi[6]) {
  hg_se3 T0, T, D;
  hg_joint_transform(j, q0, &T0);
  hg_joint_transform(j, q, &T);
  hg_se3_invmul(&T0, &T, &D);
  hg_se3_log(&D, xi);
}

/* body velocity of T(q(t)) at t = 0 from the poses at qp = q(h), qm = q(-h):
 * (log(T0^-1 T(h)) - log(T0^-1 T(-h))) / 2h = V + O(h^2) */
static void fd_twist(const hg_joint *j, const double *q0, const double *qp, const double *qm,
                     double h, double V[6]) {
  double lp[6], lm[6];
  relative_log(j, q0, qp, lp);
  relative_log(j, q0, qm, lm);
  for (int r = 0; r < 6; r++) V[r] = (lp[r] - lm[r]) / (2 * h);
}

/* random velocity in [-2, 2] */
static void random_velocity(hg_rng *r, const hg_joint *j, double *v) {
  hg_test_random_vector(r, v, hg_joint_nv(j->type), -2, 2);
}

/* ---- tests ---- */

/* nq, nv, names, angular DoF kinds and the neutral configuration (identity pose) */
static void dimensions_and_neutral(void **state) {
  static const int nq[NTYPES] = {0, 1, 1, 1, 2, 2, 3, 4, 7};
  static const int nv[NTYPES] = {0, 1, 1, 1, 2, 2, 3, 3, 6};
  /* bit k set: tangent component k is an angle */
  static const int angular[NTYPES] = {0, 1, 0, 1, 1, 3, 4, 7, 7};
  hg_rng r;
  hg_rng_seed(&r, 41);
  for (int t = 0; t < NTYPES; t++) {
    hg_joint j;
    hg_se3 T, I;
    double q[HG_JOINT_MAXNQ];
    assert_int_equal(hg_joint_nq(TYPES[t]), nq[t]);
    assert_int_equal(hg_joint_nv(TYPES[t]), nv[t]);
    assert_int_equal(hg_joint_type_from_name(hg_joint_type_name(TYPES[t])), (int)TYPES[t]);
    for (int k = 0; k < nv[t]; k++)
      assert_int_equal(hg_joint_dof_is_angular(TYPES[t], k), (angular[t] >> k) & 1);
    hg_test_random_joint(&r, TYPES[t], &j);
    hg_joint_neutral(&j, q);
    hg_joint_transform(&j, q, &T);
    hg_se3_identity(&I);
    assert_true(pose_diff(&T, &I) < 1e-15);
  }
  assert_int_equal(hg_joint_type_from_name("hinge"), -1);
}

/* random configurations: unit quaternions, angles in [-pi, pi], slides in [-1, 1]; quaternions
 * stay unit over many integration steps */
static void random_configurations_valid(void **state) {
  hg_rng r;
  hg_rng_seed(&r, 42);
  double worst = 0;
  for (int t = 0; t < NTYPES; t++)
    for (int s = 0; s < NSAMPLE; s++) {
      hg_joint j;
      double q[HG_JOINT_MAXNQ], v[HG_JOINT_MAXNV];
      hg_test_random_joint(&r, TYPES[t], &j);
      hg_joint_random(&j, &r, q);
      for (int k = 0; k < hg_joint_nq(TYPES[t]); k++) assert_true(fabs(q[k]) <= TEST_PI);
      for (int step = 0; step < (s == 0 ? 1000 : 1); step++) {
        const double *quat = TYPES[t] == HG_JOINT_FREE ? q + 3 : q;
        if (TYPES[t] == HG_JOINT_SPHERICAL || TYPES[t] == HG_JOINT_FREE)
          worst = fmax(worst, fabs(sqrt(quat[0] * quat[0] + quat[1] * quat[1] + quat[2] * quat[2] +
                                        quat[3] * quat[3]) - 1));
        random_velocity(&r, &j, v);
        hg_joint_integrate(&j, q, v, 0.01, q);
      }
    }
  printf("# quaternion norm - 1 after random draws and 1000 steps: worst %.3g\n", worst);
  assert_true(worst < 1e-15);
}

/* S(q) v equals the body velocity of T_joint(q (+) t v) by central differences */
static void motion_subspace_is_body_velocity(void **state) {
  hg_rng r;
  hg_rng_seed(&r, 43);
  double worst[NTYPES] = {0}, all = 0;
  for (int t = 0; t < NTYPES; t++)
    for (int s = 0; s < NSAMPLE; s++) {
      hg_joint j;
      double q[HG_JOINT_MAXNQ], qp[HG_JOINT_MAXNQ], qm[HG_JOINT_MAXNQ], v[HG_JOINT_MAXNV];
      double Sv[6], fd[6];
      hg_test_random_joint(&r, TYPES[t], &j);
      hg_joint_random(&j, &r, q);
      random_velocity(&r, &j, v);
      hg_joint_integrate(&j, q, v, FD_H, qp);
      hg_joint_integrate(&j, q, v, -FD_H, qm);
      fd_twist(&j, q, qp, qm, FD_H, fd);
      motion_times(&j, q, v, Sv);
      worst[t] = fmax(worst[t], hg_test_max_diff(Sv, fd, 6));
    }
  printf("# S(q) v vs finite-difference body velocity:");
  for (int t = 0; t < NTYPES; t++) printf(" %s %.2g", hg_joint_type_name(TYPES[t]), worst[t]);
  printf("\n");
  for (int t = 0; t < NTYPES; t++) all = fmax(all, worst[t]);
  assert_true(all < FD_TOL);
}

/* the bias c = d/dt [S(q(t)) v] at constant v along q(t) = q (+) t v */
static void bias_is_rate_of_motion_subspace(void **state) {
  hg_rng r;
  hg_rng_seed(&r, 44);
  double worst[NTYPES] = {0}, all = 0, largest = 0;
  for (int t = 0; t < NTYPES; t++)
    for (int s = 0; s < NSAMPLE; s++) {
      hg_joint j;
      double q[HG_JOINT_MAXNQ], qp[HG_JOINT_MAXNQ], qm[HG_JOINT_MAXNQ], v[HG_JOINT_MAXNV];
      double Sp[6], Sm[6], fd[6], c[6];
      hg_test_random_joint(&r, TYPES[t], &j);
      hg_joint_random(&j, &r, q);
      random_velocity(&r, &j, v);
      hg_joint_integrate(&j, q, v, FD_H, qp);
      hg_joint_integrate(&j, q, v, -FD_H, qm);
      motion_times(&j, qp, v, Sp);
      motion_times(&j, qm, v, Sm);
      for (int k = 0; k < 6; k++) fd[k] = (Sp[k] - Sm[k]) / (2 * FD_H);
      hg_joint_bias(&j, q, v, c);
      worst[t] = fmax(worst[t], hg_test_max_diff(c, fd, 6));
      for (int k = 0; k < 6; k++) largest = fmax(largest, fabs(c[k]));
    }
  printf("# bias vs d/dt S(q(t)) v:");
  for (int t = 0; t < NTYPES; t++) printf(" %s %.2g", hg_joint_type_name(TYPES[t]), worst[t]);
  printf(" (largest |c| %.3g)\n", largest);
  for (int t = 0; t < NTYPES; t++) all = fmax(all, worst[t]);
  assert_true(all < FD_TOL);
  assert_true(largest > 0.1); /* universal and planar joints do have a bias */
}

/* q0 (+) (q1 (-) q0) = q1 (as poses: q and -q are one rotation); (q0 (+) d) (-) q0 = d for
 * rotations below pi; on the groups, T(q (+) d) = T(q) exp(d) */
static void integrate_difference_round_trip(void **state) {
  hg_rng r;
  hg_rng_seed(&r, 45);
  double worst_pose = 0, worst_tangent = 0, worst_exp = 0;
  for (int t = 0; t < NTYPES; t++)
    for (int s = 0; s < NSAMPLE; s++) {
      hg_joint j;
      double q0[HG_JOINT_MAXNQ], q1[HG_JOINT_MAXNQ], q2[HG_JOINT_MAXNQ], d[HG_JOINT_MAXNV],
          back[HG_JOINT_MAXNV], xi[6] = {0, 0, 0, 0, 0, 0};
      hg_se3 T1, T2, T0, E, TE;
      int nv = hg_joint_nv(TYPES[t]);
      hg_test_random_joint(&r, TYPES[t], &j);
      hg_joint_random(&j, &r, q0);
      hg_joint_random(&j, &r, q1);
      hg_joint_difference(&j, q0, q1, d);
      hg_joint_integrate(&j, q0, d, 1.0, q2);
      hg_joint_transform(&j, q1, &T1);
      hg_joint_transform(&j, q2, &T2);
      worst_pose = fmax(worst_pose, pose_diff(&T1, &T2));
      /* a tangent step of rotation below 2.5 rad comes back */
      hg_test_random_vector(&r, d, nv, -1.4, 1.4);
      hg_joint_integrate(&j, q0, d, 1.0, q2);
      hg_joint_difference(&j, q0, q2, back);
      worst_tangent = fmax(worst_tangent, hg_test_max_diff(back, d, nv));
      /* on SO(3) and SE(3): T(q0 (+) d) = T(q0) exp(d) */
      if (TYPES[t] != HG_JOINT_SPHERICAL && TYPES[t] != HG_JOINT_FREE) continue;
      memcpy(xi, d, (size_t)nv * sizeof(double));
      hg_joint_transform(&j, q0, &T0);
      hg_se3_exp(xi, &E);
      hg_se3_mul(&T0, &E, &TE);
      hg_joint_transform(&j, q2, &T2);
      worst_exp = fmax(worst_exp, pose_diff(&T2, &TE));
    }
  printf("# integrate/difference: pose round trip %.3g, tangent round trip %.3g, T exp(d) %.3g\n",
         worst_pose, worst_tangent, worst_exp);
  assert_true(worst_pose < 1e-14);
  assert_true(worst_tangent < 1e-14);
  assert_true(worst_exp < 1e-14);
}

/* chart q(t) = q_ref (+) xi(t) with xi' = chart_rate(xi, v): the joint velocity is v, measured
 * both as (q(t) (-) q(0)) rates and as the body velocity S(q) v of the pose */
static void chart_rate_realizes_velocity(void **state) {
  hg_rng r;
  hg_rng_seed(&r, 46);
  double worst_tan = 0, worst_twist = 0;
  for (int t = 0; t < NTYPES; t++)
    for (int s = 0; s < NSAMPLE; s++) {
      hg_joint j;
      double qr[HG_JOINT_MAXNQ], q0[HG_JOINT_MAXNQ], qp[HG_JOINT_MAXNQ], qm[HG_JOINT_MAXNQ];
      double xi[HG_JOINT_MAXNV], xd[HG_JOINT_MAXNV], x[HG_JOINT_MAXNV], v[HG_JOINT_MAXNV];
      double dp[HG_JOINT_MAXNV], dm[HG_JOINT_MAXNV], fd[HG_JOINT_MAXNV], Sv[6], tw[6];
      int nv = hg_joint_nv(TYPES[t]);
      hg_test_random_joint(&r, TYPES[t], &j);
      hg_joint_random(&j, &r, qr);
      /* chart points up to |rotation| ~ 2.5 rad, where J_r^-1 is far from 1 */
      hg_test_random_vector(&r, xi, nv, -1.4, 1.4);
      random_velocity(&r, &j, v);
      hg_joint_chart_rate(&j, xi, v, xd);
      hg_joint_integrate(&j, qr, xi, 1.0, q0);
      for (int k = 0; k < nv; k++) x[k] = xi[k] + FD_H * xd[k];
      hg_joint_integrate(&j, qr, x, 1.0, qp);
      for (int k = 0; k < nv; k++) x[k] = xi[k] - FD_H * xd[k];
      hg_joint_integrate(&j, qr, x, 1.0, qm);
      hg_joint_difference(&j, q0, qp, dp);
      hg_joint_difference(&j, q0, qm, dm);
      for (int k = 0; k < nv; k++) fd[k] = (dp[k] - dm[k]) / (2 * FD_H);
      worst_tan = fmax(worst_tan, hg_test_max_diff(fd, v, nv));
      fd_twist(&j, q0, qp, qm, FD_H, tw);
      motion_times(&j, q0, v, Sv);
      worst_twist = fmax(worst_twist, hg_test_max_diff(tw, Sv, 6));
    }
  printf("# chart rate: tangent rate vs v %.3g, body velocity vs S v %.3g\n", worst_tan,
         worst_twist);
  assert_true(worst_tan < FD_TOL);
  assert_true(worst_twist < FD_TOL);
}

/* init: zero, non-finite or (universal) parallel axes fail with a reason; axes come out unit;
 * a planar joint's in-plane axis is made orthogonal (and found when axis2 is parallel) */
static void init_errors_and_normalization(void **state) {
  static const double zero[3] = {0, 0, 0}, nan3[3] = {NAN, 0, 0}, a[3] = {0, 3, 4};
  static const double twice[3] = {0, 6, 8}, opposite[3] = {0, -0.3, -0.4}, x[3] = {2, 0, 0};
  static const double slanted[3] = {1, 1, 0};
  hg_joint j;
  const char *why = NULL;
  assert_int_equal(hg_joint_init(&j, HG_JOINT_REVOLUTE, zero, NULL, 0, &why), -1);
  assert_non_null(why);
  why = NULL;
  assert_int_equal(hg_joint_init(&j, HG_JOINT_PRISMATIC, nan3, NULL, 0, &why), -1);
  assert_non_null(why);
  assert_int_equal(hg_joint_init(&j, HG_JOINT_UNIVERSAL, a, twice, 0, &why), -1);
  assert_int_equal(hg_joint_init(&j, HG_JOINT_UNIVERSAL, a, opposite, 0, &why), -1);
  assert_int_equal(hg_joint_init(&j, HG_JOINT_UNIVERSAL, a, zero, 0, &why), -1);
  assert_int_equal(hg_joint_init(&j, HG_JOINT_UNIVERSAL, a, NULL, 0, &why), -1);
  assert_int_equal(hg_joint_init(&j, HG_JOINT_HELICAL, a, NULL, NAN, &why), -1);
  /* unit axes, direction kept */
  assert_int_equal(hg_joint_init(&j, HG_JOINT_UNIVERSAL, a, x, 0, &why), 0);
  assert_true(fabs(j.axis[1] - 0.6) < 1e-15 && fabs(j.axis[2] - 0.8) < 1e-15 && j.axis[0] == 0);
  assert_true(fabs(j.axis2[0] - 1) < 1e-15);
  /* default axis z */
  assert_int_equal(hg_joint_init(&j, HG_JOINT_REVOLUTE, NULL, NULL, 0, &why), 0);
  assert_true(j.axis[2] == 1);
  /* planar: axis2 projected into the plane, or any in-plane direction when parallel */
  const double *planar_axis2[3] = {slanted, twice, NULL};
  for (int k = 0; k < 3; k++) {
    assert_int_equal(hg_joint_init(&j, HG_JOINT_PLANAR, a, planar_axis2[k], 0, &why), 0);
    assert_true(fabs(hg_v3_dot(j.axis, j.axis2)) < 1e-15);
    assert_true(fabs(hg_v3_norm(j.axis2) - 1) < 1e-15);
  }
}

/* every entry of q, v and the generalized forces has a name and a unit, and nothing past them:
 * the output columns and failure messages are named from these */
static void entry_names(void **state) {
  (void)state;
  for (int t = 0; t < HG_JOINT_NTYPES; t++) {
    int n[3] = {hg_joint_nq((hg_joint_type)t), hg_joint_nv((hg_joint_type)t),
                hg_joint_nv((hg_joint_type)t)};
    for (int what = 0; what < 3; what++) {
      for (int k = 0; k < n[what]; k++) {
        const char *unit = NULL, *name = hg_joint_entry_name((hg_joint_type)t, what, k, &unit);
        assert_non_null(name);
        assert_non_null(unit);
        /* names are unique within their kind */
        for (int j = 0; j < k; j++)
          assert_string_not_equal(name, hg_joint_entry_name((hg_joint_type)t, what, j, NULL));
      }
      assert_null(hg_joint_entry_name((hg_joint_type)t, what, n[what], NULL));
    }
  }
  const char *unit;
  assert_string_equal(hg_joint_entry_name(HG_JOINT_FREE, 2, 3, &unit), "fx");
  assert_string_equal(unit, "N");
  assert_string_equal(hg_joint_entry_name(HG_JOINT_REVOLUTE, 0, 0, &unit), "angle");
  assert_string_equal(unit, "rad");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(dimensions_and_neutral),
      cmocka_unit_test(entry_names),
      cmocka_unit_test(random_configurations_valid),
      cmocka_unit_test(motion_subspace_is_body_velocity),
      cmocka_unit_test(bias_is_rate_of_motion_subspace),
      cmocka_unit_test(integrate_difference_round_trip),
      cmocka_unit_test(chart_rate_realizes_velocity),
      cmocka_unit_test(init_errors_and_normalization),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
