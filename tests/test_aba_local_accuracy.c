/* test_aba_local_accuracy.c: the accuracy of the default forward-dynamics pass (the body-local
 * pass of aba_local.h, which hg_aba runs on a model that has one) against M^-1 (tau - b) with
 * hinge's own M (hg_crba) and b (hg_rnea) in double as the reference system, solved in long
 * double: at joint angles of 1e9 and 1e15 rad, and, against the tree-frame pass's own error, on a
 * chain with rotated joint origins written to 12 digits as URDF files write them and on the
 * robot-style URDFs of assets/robots; and, against the long double oracle of reference.h (M and
 * b too in long double), on the leg of a wheeled quadruped, where hinge's M in double is itself
 * the larger error. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hinge.h"
#include "merge.h"
#include "models.h"
#include "reference.h"
#include "urdf.h"

static const hg_pass_options tree_frame = {.tree_frame = 1};

/* ---- the reference: hinge's M and b, solved in long double ---- */

/* qdd = M^-1 (tau - b) with M = hg_crba(q) and b = hg_rnea(q, v, 0) computed in double (the
 * reference system: both passes solve it, and its own round-off is not what is measured), and
 * the solve in long double: r = tau - b, M = L L^T (Cholesky), L y = r, L^T qdd = y. Returns 0,
 * or -1 when M is not positive definite. */
static int reference_fd(const hg_model *m, hg_data *d, const double *q, const double *v,
                        const double *tau, double *qdd) {
  int n = m->nv;
  double *M = calloc((size_t)n * n, sizeof *M), *b = calloc(n, sizeof *b);
  double *zero = calloc(n, sizeof *zero);
  long double *L = calloc((size_t)n * n, sizeof *L), *y = calloc(n, sizeof *y);
  int bad = 0;
  hg_crba(m, d, q, M);
  hg_rnea(m, d, q, v, zero, NULL, b);
  /* L: M = L L^T, row by row */
  for (int i = 0; i < n && !bad; i++)
    for (int j = 0; j <= i; j++) {
      long double s = M[i * n + j];
      for (int k = 0; k < j; k++) s -= L[i * n + k] * L[j * n + k];
      if (i == j) {
        if (!(s > 0)) {
          bad = 1;
          break;
        }
        L[i * n + i] = sqrtl(s);
      } else {
        L[i * n + j] = s / L[j * n + j];
      }
    }
  if (!bad) {
    /* L y = tau - b, then L^T qdd = y */
    for (int i = 0; i < n; i++) {
      long double s = (long double)tau[i] - b[i];
      for (int k = 0; k < i; k++) s -= L[i * n + k] * y[k];
      y[i] = s / L[i * n + i];
    }
    for (int i = n - 1; i >= 0; i--) {
      long double s = y[i];
      for (int k = i + 1; k < n; k++) s -= L[k * n + i] * y[k];
      y[i] = s / L[i * n + i];
    }
    for (int i = 0; i < n; i++) qdd[i] = (double)y[i];
  }
  free(M), free(b), free(zero), free(L), free(y);
  return bad ? -1 : 0;
}

/* ---- models ---- */

/* a robot of assets/robots as hinge dynamics reads it: fixed links merged (merge.h) */
static hg_model *robot_at(const char *path) {
  hg_error err;
  hg_model *u = hg_urdf_load(path, 0, NULL, &err);
  if (!u) fail_msg("%s: %s", path, err.msg);
  hg_model *m = hg_model_merge_fixed(u, NULL, NULL, &err);
  hg_model_free(u);
  if (!m) fail_msg("%s: %s", path, err.msg);
  if (!m->local) fail_msg("%s: no body-local pass", path);
  return m;
}
static hg_model *robot(const char *file) {
  char path[256];
  snprintf(path, sizeof path, "../assets/robots/%s", file);
  return robot_at(path);
}

/* three revolute joints about z behind origins turned by rpy angles written to 12 digits, as URDF
 * files write pi/2 and pi (1.57079632679 is 4.9e-12 short of pi/2, 3.14159265359 2.1e-13 past
 * pi): the factors of the joints' constant transforms then hold true terms of 1e-13 to 1e-12
 * beside their large ones, and the yaw of the origins is each joint's constant angle theta0 */
static hg_model *rotated_chain(void) {
  static const double xyz[3][3] = {{0, 0, 0.333}, {0, 0, 0}, {0, -0.316, 0.0825}};
  static const double rpy[3][3] = {
      {3.14159265359, 0, 0.4}, {-1.57079632679, 0, 1.1}, {1.57079632679, 0, -0.7}};
  static const double z[3] = {0, 0, 1};
  hg_rng r;
  hg_rng_seed(&r, 31);
  hg_builder *b = hg_builder_new();
  for (int i = 0; i < 3; i++) {
    hg_se3 T;
    hg_inertia G;
    hg_rpy_to_R(rpy[i], T.R);
    memcpy(T.p, xyz[i], sizeof T.p);
    hg_test_random_inertia(&r, &G);
    char name[8], parent[8];
    snprintf(name, sizeof name, "r%d", i);
    snprintf(parent, sizeof parent, "r%d", i - 1);
    hg_test_add_body(b, name, i ? parent : "world", HG_JOINT_REVOLUTE, z, NULL, 0, &T, &G);
  }
  hg_model *m = hg_test_compile(b);
  if (!m->local) fail_msg("rotated chain: no body-local pass");
  return m;
}

/* ---- the measurement ---- */

/* the largest relative error of hg_aba (the default pass) and of the tree-frame pass against
 * the reference over nstates random states: max_i |qdd_i - qdd_ref_i| / max(1, |qdd_ref|_inf).
 * q: hg_model_random, every revolute joint's angle then moved by big (1 + u), u in [0, 1); v in
 * [-2, 2], tau in [-5, 5]. The reference: reference_fd (hinge's M and b in double), or with
 * oracle set hg_test_forward_ld (reference.h: M and b in long double too; fixed bases only). */
static void worst_errors_ref(const hg_model *m, double big, int nstates, int oracle,
                             double *local, double *tree) {
  hg_data *d = hg_data_new(m);
  int nv = m->nv;
  double *q = calloc(m->nq, sizeof *q), *v = calloc(nv, sizeof *v), *tau = calloc(nv, sizeof *tau);
  double *ql = calloc(nv, sizeof *ql), *qt = calloc(nv, sizeof *qt), *qr = calloc(nv, sizeof *qr);
  hg_rng r;
  hg_rng_seed(&r, 41);
  *local = *tree = 0;
  for (int s = 0; s < nstates; s++) {
    hg_model_random(m, &r, q);
    for (int i = 1; i < m->nbody; i++)
      if (m->jnt[i].type == HG_JOINT_REVOLUTE) q[m->q_adr[i]] += big * (1 + hg_rng_uniform(&r));
    hg_test_random_vector(&r, v, nv, -2, 2);
    hg_test_random_vector(&r, tau, nv, -5, 5);
    if (oracle) assert_int_equal(hg_test_forward_ld(m, q, v, tau, NULL, qr), 0);
    else assert_int_equal(reference_fd(m, d, q, v, tau, qr), 0);
    assert_int_equal(hg_aba(m, d, q, v, tau, NULL, ql), 0);
    assert_int_equal(d->local_pass, 1);
    assert_int_equal(hg_aba_opt(m, d, &tree_frame, q, v, tau, NULL, qt), 0);
    double scale = 1, el = 0, et = 0;
    for (int i = 0; i < nv; i++) scale = fmax(scale, fabs(qr[i]));
    for (int i = 0; i < nv; i++)
      el = fmax(el, fabs(ql[i] - qr[i])), et = fmax(et, fabs(qt[i] - qr[i]));
    *local = fmax(*local, el / scale), *tree = fmax(*tree, et / scale);
  }
  free(q), free(v), free(tau), free(ql), free(qt), free(qr);
  hg_data_free(d);
}
static void worst_errors(const hg_model *m, double big, int nstates, double *local, double *tree) {
  worst_errors_ref(m, big, nstates, 0, local, tree);
}

/* the default pass within 3x the tree-frame pass's error on m, against the reference chosen by
 * oracle (worst_errors_ref). Below 1e-15, a few units of round-off of qdd ~ 1, the ratio of two
 * such errors says nothing, so the bound is 3 max(tree, 1e-15). */
static void within_3x_tree_frame(const hg_model *m, const char *name, double big, int oracle) {
  double local, tree;
  worst_errors_ref(m, big, 300, oracle, &local, &tree);
  printf("# %s, angles %g: default pass %.3g, tree-frame pass %.3g (%.2fx)\n", name, big, local,
         tree, local / tree);
  if (!(local <= 3 * fmax(tree, 1e-15)))
    fail_msg("%s: the default pass's error %.3g is %.1fx the tree-frame pass's %.3g", name, local,
             local / tree, tree);
}

/* ---- the tests ---- */

/* joint angles of 1e9 and 1e15 rad (a rotor's or a continuous wheel's), and of 30 to 60 (past
 * |q| = 4, where the pass turns by theta0 after sin and cos of q, still on hg_sincos's own
 * reduction): the default pass to 1e-13 of qdd's size. Before, at 1e9: 1.8e-7 off. The tolerance: the same models at angles in [-pi, pi] are within 2e-15
 * (rotated chain) and 5e-15 (quadruped-style), and the reference and both passes take sin and
 * cos of the same double q. (The arms of robot_urdfs are left to it: their worst states are
 * conditioned so that the tree-frame pass itself is 1e-13 to 3e-13 off there.) */
static void large_angles(void **state) {
  (void)state;
  hg_model *ms[2] = {rotated_chain(), robot("quadruped_style.urdf")};
  const char *names[2] = {"rotated chain", "quadruped-style"};
  static const double bigs[3] = {30, 1e9, 1e15};
  for (int k = 0; k < 2; k++) {
    for (int b = 0; b < 3; b++) {
      double local, tree;
      worst_errors(ms[k], bigs[b], 100, &local, &tree);
      printf("# %s, angles %g: default pass %.3g, tree-frame pass %.3g\n", names[k], bigs[b],
             local, tree);
      if (!(local <= 1e-13))
        fail_msg("%s at angles %g: the default pass is %.3g off M^-1 (tau - b)", names[k],
                 bigs[b], local);
    }
    hg_model_free(ms[k]);
  }
}

/* rotated origins written to 12 digits: the factored transforms had dropped their true terms
 * below 1e-12 (8.6e-13 off, 730x the tree-frame pass's error) */
static void rotated_origins(void **state) {
  (void)state;
  hg_model *m = rotated_chain();
  within_3x_tree_frame(m, "rotated chain", 0, 0);
  hg_model_free(m);
}

/* the robot-style URDFs of assets/robots, fixed links merged (the quadruped on its free root),
 * at angles in [-pi, pi] and near 1e15 rad. The fixed-base arms are measured against the long
 * double oracle: against hinge's own M in double, which loses digits on them as the tree-frame
 * pass does (wheel_leg below), the ratio measured M's round-off and moved with the compiler's
 * contractions (ur5-style 1.3x in Release, 4.4x in the sanitizer build without FMA). */
static void robot_urdfs(void **state) {
  (void)state;
  static const char *const files[3] = {"ur5_style.urdf", "panda_style.urdf",
                                       "quadruped_style.urdf"};
  for (int k = 0; k < 3; k++) {
    hg_model *m = robot(files[k]);
    int oracle = k < 2; /* hg_test_forward_ld takes fixed bases only */
    within_3x_tree_frame(m, files[k], 0, oracle);
    within_3x_tree_frame(m, files[k], 1e15, oracle);
    hg_model_free(m);
  }
}

/* the leg of a wheeled quadruped (b2w's front right leg, tests/data/robots/wheel_leg.urdf): a hip
 * about x, then thigh, calf and wheel about three parallel axes, the wheel 0.7 m from the hip,
 * S^T I S = 0.0078 about its axis. hinge's M in double (hg_crba, in the tree's frame) loses
 * digits on the wheel's entry: its composite inertia there has entries ~ m r^2 ~ 0.5 that cancel
 * down to 0.0078, the cancellation the tree-frame pass's D of the wheel goes through too. On the
 * whole robots (Unitree b2w and go2w, fixed base, 300 states), M^-1 (tau - b) with hinge's M and
 * b is 2.4e-14 and 1.8e-14 off the long double oracle, the tree-frame pass 2.5e-14 and 1.8e-14,
 * the body-local pass 1.9e-15 and 9.2e-16: against hinge's own M the body-local pass reads 4.1x
 * and 3.1x the tree-frame pass's error, where it is 14x and 20x closer to the exact solution.
 * So this model is checked against the oracle, which keeps both M and b in long double in body
 * frames: the default pass within 3x the tree-frame pass's error (or 3e-15), at angles in the
 * limits and with the wheel's angle near 1e15 rad. */
static void wheel_leg(void **state) {
  (void)state;
  hg_model *m = robot_at("data/robots/wheel_leg.urdf");
  static const double bigs[2] = {0, 1e15};
  for (int b = 0; b < 2; b++) {
    double local, tree, local_m, tree_m;
    worst_errors_ref(m, bigs[b], 300, 1, &local, &tree);
    worst_errors_ref(m, bigs[b], 300, 0, &local_m, &tree_m);
    printf("# wheel leg, angles %g, against the long double oracle: default pass %.3g, "
           "tree-frame pass %.3g; against hinge's M and b: %.3g, %.3g\n",
           bigs[b], local, tree, local_m, tree_m);
    if (!(local <= 3 * fmax(tree, 1e-15)))
      fail_msg("wheel leg at angles %g: the default pass's error %.3g is %.1fx the tree-frame "
               "pass's %.3g",
               bigs[b], local, local / tree, tree);
  }
  hg_model_free(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(large_angles),
      cmocka_unit_test(rotated_origins),
      cmocka_unit_test(robot_urdfs),
      cmocka_unit_test(wheel_leg),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
