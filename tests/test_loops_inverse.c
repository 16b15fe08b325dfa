/* test_loops_inverse.c: constrained inverse dynamics of a closed chain (hg_loops_inverse) on a
 * planar five-bar (tests/data/scenes/five_bar.yaml): exact actuation by two joints, redundant
 * actuation by three (minimum torque and minimum loop force, each against its optimality
 * condition), under-actuation refused, and accelerations the loops do not allow detected. Each
 * solution is checked against constrained forward dynamics, against M qdd + b from the mass
 * matrix (CRBA, not the RNEA the solver uses), and its accelerations against the loop-closure
 * kinematics of the five-bar written here. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loops.h"
#include "scene.h"
#include "sim.h"

#define TOL 1e-10

typedef struct five_bar {
  hg_scene *sc;
  hg_sim *sim;
  const hg_model *m;
  hg_data *d;
  hg_loops *L;
  int nv, mr, dof[5]; /* dof[j]: the DoF of joint jj (1..4) */
  double q[8], v[8];
} five_bar;

static void five_bar_load(five_bar *f) {
  hg_error err;
  hg_sim_options opt;
  memset(f, 0, sizeof *f);
  f->sc = hg_scene_load("data/scenes/five_bar.yaml", &err);
  assert_non_null(f->sc);
  hg_sim_default_options(&opt);
  f->sim = hg_sim_new(f->sc, &opt, &err);
  assert_non_null(f->sim);
  f->m = hg_sim_model(f->sim);
  f->nv = f->m->nv;
  assert_int_equal(f->nv, 4);
  static const char *names[] = {NULL, "j1", "j2", "j3", "j4"};
  for (int j = 1; j <= 4; j++) f->dof[j] = f->m->v_adr[hg_model_joint(f->m, names[j])];
  memcpy(f->q, hg_sim_q(f->sim), (size_t)f->m->nq * sizeof(double));
  memcpy(f->v, hg_sim_v(f->sim), (size_t)f->nv * sizeof(double));
  /* the loop, as the scene gives it */
  hg_loop lp;
  assert_int_equal(hg_loop_spec_resolve(f->sc, &f->sc->loop[0], f->m, &lp, &err), 0);
  f->L = hg_loops_new(f->m, &lp, 1, &err);
  assert_non_null(f->L);
  f->mr = hg_loops_maxrows(f->L);
  f->d = hg_data_new(f->m);
}

static void five_bar_free(five_bar *f) {
  hg_loops_free(f->L);
  hg_data_free(f->d);
  hg_sim_free(f->sim);
  hg_scene_free(f->sc);
}

/* the tip accelerations of the two chains from the joints' (q, v, qdd), written from the
 * scene's geometry: left (0,0) + R(t1)(0,1) + R(t1+t2)(0.5,0.6), right (1,0) + R(t4)(0,1) +
 * R(t4+t3)(-0.5,0.6); returns |tip_left'' - tip_right''| (and the same for velocities) */
static void term(double phi, double w, double a, double cx, double cy, double p[2], double dp[2],
                 double ddp[2]) {
  double c = cos(phi), s = sin(phi), rx = c * cx - s * cy, ry = s * cx + c * cy;
  p[0] += rx, p[1] += ry;
  dp[0] += -w * ry, dp[1] += w * rx;
  ddp[0] += -a * ry - w * w * rx, ddp[1] += a * rx - w * w * ry;
}

static void tip_mismatch(const five_bar *f, const double *q, const double *v, const double *qdd,
                         double *dpos, double *dvel, double *dacc) {
  double pl[2] = {0, 0}, vl[2] = {0, 0}, al[2] = {0, 0}, pr[2] = {1, 0}, vr[2] = {0, 0},
         ar[2] = {0, 0};
  const hg_model *m = f->m;
#define Q(j) q[m->q_adr[m->dof_body[f->dof[j]]]]
#define V(x, j) x[f->dof[j]]
  term(Q(1), V(v, 1), V(qdd, 1), 0, 1, pl, vl, al);
  term(Q(1) + Q(2), V(v, 1) + V(v, 2), V(qdd, 1) + V(qdd, 2), 0.5, 0.6, pl, vl, al);
  term(Q(4), V(v, 4), V(qdd, 4), 0, 1, pr, vr, ar);
  term(Q(4) + Q(3), V(v, 4) + V(v, 3), V(qdd, 4) + V(qdd, 3), -0.5, 0.6, pr, vr, ar);
#undef Q
#undef V
  *dpos = hypot(pl[0] - pr[0], pl[1] - pr[1]);
  *dvel = hypot(vl[0] - vr[0], vl[1] - vr[1]);
  *dacc = hypot(al[0] - ar[0], al[1] - ar[1]);
}

static double norm2(const double *x, int n) {
  double s = 0;
  for (int k = 0; k < n; k++) s += x[k] * x[k];
  return sqrt(s);
}

static double dot(const double *x, const double *y, int n) {
  double s = 0;
  for (int k = 0; k < n; k++) s += x[k] * y[k];
  return s;
}

/* qdd with j1 = 1 and j4 = -0.5 given, the passive joints from the loop */
static void five_bar_qdd(five_bar *f, double *qdd) {
  unsigned char given[4] = {0};
  double res;
  int und;
  memset(qdd, 0, 4 * sizeof(double));
  qdd[f->dof[1]] = 1, given[f->dof[1]] = 1;
  qdd[f->dof[4]] = -0.5, given[f->dof[4]] = 1;
  assert_int_equal(hg_loops_complete_qdd(f->m, f->L, f->d, f->q, f->v, NULL, given, qdd, &res,
                                         &und), 0);
  assert_true(res <= TOL);
  assert_int_equal(und, 0);
  double dp, dv, da;
  tip_mismatch(f, f->q, f->v, qdd, &dp, &dv, &da);
  printf("five-bar at the start: tips apart %.3g m, %.3g m/s, %.3g m/s^2 (hand-written "
         "kinematics)\n", dp, dv, da);
  assert_true(dp <= 1e-10);
  assert_true(dv <= 1e-10);
  assert_true(da <= TOL);
  assert_true(fabs(f->v[f->dof[1]]) > 0.1); /* the state moves: gamma is not zero */
}

/* M qdd + b - S_a tau - G^T lambda by the CRBA and the bias, and constrained forward dynamics
 * with the torques against qdd: both max-norms */
static void check_solution(five_bar *f, const double *qdd, const int *act, int na,
                           const double *tau, const double *lam, double *eq, double *fd) {
  int nv = f->nv;
  double M[16], b[4], G[5 * 4], r[4], t[4] = {0}, a[4] = {0}, lfd[8];
  hg_crba(f->m, f->d, f->q, M);
  hg_bias(f->m, f->d, f->q, f->v, NULL, b);
  hg_kinematics(f->m, f->d, f->q, f->v);
  int nc = hg_loops_rows(f->L, f->d, f->q, f->v, NULL, G, NULL, NULL);
  for (int k = 0; k < nv; k++) {
    r[k] = b[k];
    for (int l = 0; l < nv; l++) r[k] += M[k * nv + l] * qdd[l];
    for (int i = 0; i < nc; i++) r[k] -= G[i * nv + k] * lam[i];
  }
  for (int j = 0; j < na; j++) r[act[j]] -= tau[j], t[act[j]] += tau[j];
  *eq = 0;
  for (int k = 0; k < nv; k++) *eq = fmax(*eq, fabs(r[k]));
  hg_kinematics(f->m, f->d, f->q, f->v);
  assert_int_equal(hg_loops_hybrid(f->L, f->d, f->q, f->v, NULL, a, t, NULL, lfd), 0);
  *fd = 0;
  for (int k = 0; k < nv; k++) *fd = fmax(*fd, fabs(a[k] - qdd[k]));
}

static void test_exact(void **state) {
  (void)state;
  five_bar f;
  five_bar_load(&f);
  double qdd[4], tau[2], tau_mf[2], lam[8], lam_mf[8], eq, fd;
  five_bar_qdd(&f, qdd);
  int act[2] = {f.dof[1], f.dof[4]};
  hg_loops_id_info info;
  assert_int_equal(hg_loops_inverse(f.m, f.L, f.d, f.q, f.v, qdd, NULL, act, 2, 0, NULL, NULL,
                                    tau, lam, &info), 0);
  assert_int_equal(info.dof, 2);
  assert_int_equal(info.rank_G, 2);
  assert_int_equal(info.rank_act, 2);
  assert_int_equal(info.redundant, 0);
  check_solution(&f, qdd, act, 2, tau, lam, &eq, &fd);
  printf("exact: tau (%.9g, %.9g), equations %.3g, forward dynamics %.3g\n", tau[0], tau[1], eq,
         fd);
  assert_true(eq <= TOL);
  assert_true(fd <= TOL);
  assert_true(info.residual <= TOL);
  /* unique: the minimum-force solve finds the same torques and forces */
  assert_int_equal(hg_loops_inverse(f.m, f.L, f.d, f.q, f.v, qdd, NULL, act, 2, 1, NULL, NULL,
                                    tau_mf, lam_mf, &info), 0);
  for (int j = 0; j < 2; j++) assert_true(fabs(tau_mf[j] - tau[j]) <= TOL);
  for (int i = 0; i < info.nc; i++) assert_true(fabs(lam_mf[i] - lam[i]) <= TOL);
  five_bar_free(&f);
}

static void test_redundant(void **state) {
  (void)state;
  five_bar f;
  five_bar_load(&f);
  double qdd[4], tau2[3] = {0}, lam2[8], tau[3], lam[8], tauf[3], lamf[8], eq, fd, diff[8];
  five_bar_qdd(&f, qdd);
  int act[3] = {f.dof[1], f.dof[4], f.dof[2]};
  hg_loops_id_info info;
  /* the exact two-actuator solution, padded with a zero third torque */
  assert_int_equal(hg_loops_inverse(f.m, f.L, f.d, f.q, f.v, qdd, NULL, act, 2, 0, NULL, NULL,
                                    tau2, lam2, &info), 0);
  /* minimum torque */
  assert_int_equal(hg_loops_inverse(f.m, f.L, f.d, f.q, f.v, qdd, NULL, act, 3, 0, NULL, NULL,
                                    tau, lam, &info), 0);
  assert_int_equal(info.rank_act, 2);
  assert_int_equal(info.redundant, 1);
  check_solution(&f, qdd, act, 3, tau, lam, &eq, &fd);
  printf("min torque: |tau| %.9g (two actuators: %.9g), equations %.3g, forward %.3g\n",
         norm2(tau, 3), norm2(tau2, 3), eq, fd);
  assert_true(eq <= TOL && fd <= TOL);
  assert_true(norm2(tau, 3) <= norm2(tau2, 3) + 1e-12);
  assert_true(norm2(tau, 3) < 0.9 * norm2(tau2, 3)); /* the third actuator helps here */
  /* optimality: tau is orthogonal to the difference of two solutions (a kernel vector) */
  for (int j = 0; j < 3; j++) diff[j] = tau2[j] - tau[j];
  printf("min torque optimality tau . (tau2 - tau) = %.3g\n", dot(tau, diff, 3));
  assert_true(fabs(dot(tau, diff, 3)) <= TOL * norm2(diff, 3));
  /* minimum loop force */
  assert_int_equal(hg_loops_inverse(f.m, f.L, f.d, f.q, f.v, qdd, NULL, act, 3, 1, NULL, NULL,
                                    tauf, lamf, &info), 0);
  check_solution(&f, qdd, act, 3, tauf, lamf, &eq, &fd);
  int nc = info.nc;
  printf("min force: |lambda| %.9g (min torque's: %.9g), equations %.3g, forward %.3g\n",
         norm2(lamf, nc), norm2(lam, nc), eq, fd);
  assert_true(eq <= TOL && fd <= TOL);
  assert_true(norm2(lamf, nc) <= norm2(lam, nc) + 1e-12);
  assert_true(norm2(lamf, nc) < norm2(lam, nc) - 1e-3); /* the two criteria differ here */
  /* optimality: the min-torque lambda also solves the passive rows; lamf is orthogonal to the
   * difference */
  for (int i = 0; i < nc; i++) diff[i] = lam[i] - lamf[i];
  assert_true(fabs(dot(lamf, diff, nc)) <= TOL * fmax(1, norm2(diff, nc)));
  five_bar_free(&f);
}

static void test_under_actuated(void **state) {
  (void)state;
  five_bar f;
  five_bar_load(&f);
  double qdd[4], tau[2] = {42, 0}, lam[8];
  five_bar_qdd(&f, qdd);
  int act[1] = {f.dof[1]};
  hg_loops_id_info info;
  assert_int_equal(hg_loops_inverse(f.m, f.L, f.d, f.q, f.v, qdd, NULL, act, 1, 0, NULL, NULL,
                                    tau, lam, &info), 1);
  assert_int_equal(info.rank_act, 1);
  assert_int_equal(info.dof, 2);
  assert_true(tau[0] == 42); /* nothing written */
  assert_non_null(strstr(f.d->err, "1 of the mechanism's 2"));
  /* two actuators on one side's joints still drive both DoFs; the two distal ones as well */
  int act2[2] = {f.dof[2], f.dof[3]};
  assert_int_equal(hg_loops_inverse(f.m, f.L, f.d, f.q, f.v, qdd, NULL, act2, 2, 0, NULL, NULL,
                                    tau, lam, &info), 0);
  five_bar_free(&f);
}

static void test_inconsistent_qdd(void **state) {
  (void)state;
  five_bar f;
  five_bar_load(&f);
  double qdd[4] = {0}, res;
  unsigned char given[4] = {0};
  int und;
  /* three of four accelerations fixed at values a two-DoF mechanism does not allow */
  qdd[f.dof[1]] = 1, qdd[f.dof[4]] = -0.5, qdd[f.dof[2]] = 3;
  given[f.dof[1]] = given[f.dof[4]] = given[f.dof[2]] = 1;
  assert_int_equal(hg_loops_complete_qdd(f.m, f.L, f.d, f.q, f.v, NULL, given, qdd, &res, &und),
                   0);
  printf("inconsistent qdd: residual %.3g\n", res);
  assert_true(res > 1e-3);
  /* none given: the minimum-norm accelerations satisfy the loop, two DoFs undetermined */
  memset(given, 0, sizeof given);
  assert_int_equal(hg_loops_complete_qdd(f.m, f.L, f.d, f.q, f.v, NULL, given, qdd, &res, &und),
                   0);
  assert_true(res <= TOL);
  assert_int_equal(und, 2);
  five_bar_free(&f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_exact),
      cmocka_unit_test(test_redundant),
      cmocka_unit_test(test_under_actuated),
      cmocka_unit_test(test_inconsistent_qdd),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
