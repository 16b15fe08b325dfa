/* test_invariants.c: physical laws on random trees: the power balance dE/dt = v . tau, and for a
 * floating tree without external forces the conservation of spatial momentum and kinetic energy
 * and the free fall of the centre of mass. */
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
#include "models.h"

#define G_ACC 9.81
#define NTREES 120

/* ---- a tree with its state ---- */

/* model, workspace, state (q, v, tau), acceleration a and scratch for curve_state */
typedef struct {
  hg_model *m;
  hg_data *d;
  double *q, *v, *tau, *a, *qt, *vt, *dv;
} tree;

/* a tree with zeroed state arrays (owning m) */
static tree tree_new(hg_model *m) {
  tree t;
  size_t nq = (size_t)m->nq + 1, nv = (size_t)m->nv + 1;
  t.m = m;
  t.d = hg_data_new(m);
  t.q = calloc(nq, sizeof(double));
  t.qt = calloc(nq, sizeof(double));
  t.v = calloc(nv, sizeof(double));
  t.tau = calloc(nv, sizeof(double));
  t.a = calloc(nv, sizeof(double));
  t.vt = calloc(nv, sizeof(double));
  t.dv = calloc(nv, sizeof(double));
  return t;
}

/* frees the tree, its model and its arrays */
static void tree_free(tree *t) {
  hg_data_free(t->d);
  hg_model_free(t->m);
  free(t->q); free(t->qt); free(t->v); free(t->tau); free(t->a); free(t->vt); free(t->dv);
}

/* a random floating tree in which every body descends from the free base (body 1), so that
 * nothing but gravity acts from outside */
static hg_model *floating_tree(hg_rng *r, int nbody) {
  for (;;) {
    hg_model *m = hg_test_random_tree(r, nbody, 1);
    if (m->subtree_end[1] == m->nbody) return m;
    hg_model_free(m);
  }
}

/* the state on the curve q(t) = q0 (+) (t v0 + t^2/2 a0), v(t) = v0 + t a0: it agrees with the
 * true motion to second order in t (the chart rate J_r^-1(xi) v has derivative ad_v v / 2 = 0 at
 * xi = 0), so its first and second derivatives at t = 0 are the true ones */
static void curve_state(tree *t, double s) {
  for (int k = 0; k < t->m->nv; k++) {
    t->dv[k] = s * t->v[k] + 0.5 * s * s * t->a[k];
    t->vt[k] = t->v[k] + s * t->a[k];
  }
  hg_model_integrate(t->m, t->q, t->dv, 1.0, t->qt);
}

/* first derivative at 0 of f(t) sampled at -2h, -h, h, 2h (fourth order):
 * (8 (f(h) - f(-h)) - (f(2h) - f(-2h))) / 12h, error h^4 f^(5) / 30 */
static double d1(const double f[4], double h) {
  return (8 * (f[2] - f[1]) - (f[3] - f[0])) / (12 * h);
}

/* second derivative at 0 from f(-2h), f(-h), f(0), f(h), f(2h) (fourth order):
 * (-f(2h) + 16 f(h) - 30 f(0) + 16 f(-h) - f(-2h)) / 12h^2, error h^4 f^(6) / 90 */
static double d2(const double f[5], double h) {
  return (-f[4] + 16 * f[3] - 30 * f[2] + 16 * f[1] - f[0]) / (12 * h * h);
}

/* sample times of the stencils, in units of h */
static const double OFFS4[4] = {-2, -1, 1, 2}, OFFS5[5] = {-2, -1, 0, 1, 2};

/* ---- power balance ---- */

/* relative error of dE/dt = v . tau at one random state; scaled by the largest of |dT/dt|,
 * |dU/dt| and sum |v_i tau_i|, the terms that must cancel */
static double power_balance(tree *t, hg_rng *r) {
  /* The random trees reach accelerations |a| ~ 5e3 (light bodies, |tau| <= 5), so the curve's time
   * scale is down to |a|^-1/2 ~ 0.015 s. With a fourth-order stencil and h = 1e-5 the truncation
   * is ~ (h / 0.015)^4 ~ 2e-13 and the round-off ~ eps E / h ~ 1e-11 (both relative to the
   * terms); measured on the worst tree, the error falls as h^4 from 0.75 at h = 1e-2 to 7e-8 at
   * h = 1e-4, and reaches its round-off floor ~ 1e-11 at h = 1e-5. */
  const double h = 1e-5;
  double K[4], U[4], E[4], power = 0, scale = 0;
  hg_model_random(t->m, r, t->q);
  hg_test_random_vector(r, t->v, t->m->nv, -2, 2);
  hg_test_random_vector(r, t->tau, t->m->nv, -5, 5);
  assert_int_equal(hg_aba(t->m, t->d, t->q, t->v, t->tau, NULL, t->a), 0);
  for (int k = 0; k < 4; k++) {
    curve_state(t, OFFS4[k] * h);
    hg_energy(t->m, t->d, t->qt, t->vt, &K[k], &U[k]);
    E[k] = K[k] + U[k];
  }
  for (int k = 0; k < t->m->nv; k++) {
    power += t->v[k] * t->tau[k];
    scale += fabs(t->v[k] * t->tau[k]);
  }
  scale = fmax(1, fmax(scale, fmax(fabs(d1(K, h)), fabs(d1(U, h)))));
  return fabs(d1(E, h) - power) / scale;
}

/* d/dt (kinetic + potential) = v . tau along the motion, fixed and floating bases */
static void energy_rate_is_power(void **state) {
  hg_rng r;
  hg_rng_seed(&r, 61);
  double worst = 0;
  for (int k = 0; k < NTREES; k++) {
    tree t = tree_new(hg_test_random_tree(&r, 1 + k % 12, k % 2));
    worst = fmax(worst, power_balance(&t, &r));
    tree_free(&t);
  }
  printf("# dE/dt vs v . tau: worst relative error %.3g over %d trees\n", worst, NTREES);
  assert_true(worst < 1e-8);
}

/* ---- a classical RK4 integrator on the group, for tests only ---- */

/* xidot = chart rate of every joint at chart point xi with velocity v */
static void chart_rate(const hg_model *m, const double *xi, const double *v, double *xd) {
  for (int i = 1; i < m->nbody; i++)
    hg_joint_chart_rate(&m->jnt[i], xi + m->v_adr[i], v + m->v_adr[i], xd + m->v_adr[i]);
}

/* chart point, stage velocity, stage slopes and the stage configuration */
typedef struct {
  double *xi, *vs, *kx[4], *kv[4], *q1;
} rk4_work;

/* RK4 workspace for nq, nv */
static rk4_work rk4_new(int nq, int nv) {
  rk4_work w;
  w.xi = calloc((size_t)nv + 1, sizeof(double));
  w.vs = calloc((size_t)nv + 1, sizeof(double));
  w.q1 = calloc((size_t)nq + 1, sizeof(double));
  for (int s = 0; s < 4; s++) {
    w.kx[s] = calloc((size_t)nv + 1, sizeof(double));
    w.kv[s] = calloc((size_t)nv + 1, sizeof(double));
  }
  return w;
}

/* frees the workspace */
static void rk4_free(rk4_work *w) {
  free(w->xi); free(w->vs); free(w->q1);
  for (int s = 0; s < 4; s++) free(w->kx[s]), free(w->kv[s]);
}

/* stage s: (kx, kv) = (chart rate, ABA) at xi = c kx[s-1], v = v + c kv[s-1] around q */
static void rk4_stage(tree *t, rk4_work *w, int s, double c) {
  int nv = t->m->nv;
  for (int k = 0; k < nv; k++) {
    w->xi[k] = s ? c * w->kx[s - 1][k] : 0;
    w->vs[k] = t->v[k] + (s ? c * w->kv[s - 1][k] : 0);
  }
  hg_model_integrate(t->m, t->q, w->xi, 1.0, w->q1);
  assert_int_equal(hg_aba(t->m, t->d, w->q1, w->vs, t->tau, NULL, w->kv[s]), 0);
  chart_rate(t->m, w->xi, w->vs, w->kx[s]);
}

/* one step of size h: classical RK4 for (xi, v) in the chart q (+) xi of the step start */
static void rk4_step(tree *t, rk4_work *w, double h) {
  static const double c[4] = {0, 0.5, 0.5, 1}, b[4] = {1, 2, 2, 1};
  int nv = t->m->nv;
  for (int s = 0; s < 4; s++) rk4_stage(t, w, s, c[s] * h);
  for (int k = 0; k < nv; k++) {
    double dx = 0, dvel = 0;
    for (int s = 0; s < 4; s++) dx += b[s] * w->kx[s][k], dvel += b[s] * w->kv[s][k];
    w->xi[k] = h * dx / 6;
    t->v[k] += h * dvel / 6;
  }
  hg_model_integrate(t->m, t->q, w->xi, 1.0, t->q);
}

/* ---- conservation without external forces ---- */

/* |x| for a 6-vector */
static double norm6(const double x[6]) {
  double s = 0;
  for (int i = 0; i < 6; i++) s += x[i] * x[i];
  return sqrt(s);
}

/* a floating tree (gravity off by the caller) under its constant joint torques t->tau for nstep
 * RK4 steps of h: the worst drift of the spatial momentum (relative to its norm), of the kinetic
 * energy (relative; conserved only without torques) and of the centre of mass from
 * com0 + t p / M (relative to the distance travelled plus 1 mm) */
static void free_flight(tree *t, int nstep, double h, double drift[3]) {
  rk4_work w = rk4_new(t->m->nq, t->m->nv);
  double h0[6], ht[6], K0, K, U, c0[3], c[3], mass;
  hg_momentum(t->m, t->d, t->q, t->v, h0);
  hg_energy(t->m, t->d, t->q, t->v, &K0, &U);
  mass = hg_center_of_mass(t->m, t->d, t->q, c0);
  drift[0] = drift[1] = drift[2] = 0;
  for (int n = 1; n <= nstep; n++) {
    rk4_step(t, &w, h);
    hg_momentum(t->m, t->d, t->q, t->v, ht);
    for (int i = 0; i < 6; i++) ht[i] -= h0[i];
    drift[0] = fmax(drift[0], norm6(ht) / norm6(h0));
    hg_energy(t->m, t->d, t->q, t->v, &K, &U);
    drift[1] = fmax(drift[1], fabs(K - K0) / K0);
    hg_center_of_mass(t->m, t->d, t->q, c);
    double e = 0, elapsed = n * h;
    for (int i = 0; i < 3; i++) e = fmax(e, fabs(c[i] - c0[i] - elapsed * h0[3 + i] / mass));
    drift[2] = fmax(drift[2], e / (1e-3 + elapsed * sqrt(hg_v3_dot(h0 + 3, h0 + 3)) / mass));
  }
  rk4_free(&w);
}

/* Momentum and kinetic energy of a free floating tree over 300 RK4 steps of 1 ms.
 * RK4's global error is O(h^4) ~ 1e-12 times fifth derivatives of the state; with |v| <= 1 and
 * the tree's inertias of O(0.01..1) those stay below ~1e2, so the drift of any smooth function of
 * the state is ~ 1e-10 or less; round-off adds ~ sqrt(steps) eps ~ 1e-15. */
static void free_floating_conserves_momentum(void **state) {
  hg_rng r;
  hg_rng_seed(&r, 62);
  double worst[3] = {0, 0, 0};
  for (int k = 0; k < 8; k++) {
    tree t = tree_new(floating_tree(&r, 3 + k));
    double drift[3];
    t.m->gravity[2] = 0;
    hg_model_random(t.m, &r, t.q);
    hg_test_random_vector(&r, t.v, t.m->nv, -1, 1);
    free_flight(&t, 300, 1e-3, drift);
    for (int i = 0; i < 3; i++) worst[i] = fmax(worst[i], drift[i]);
    tree_free(&t);
  }
  printf("# free floating tree, 300 RK4 steps: momentum drift %.3g, kinetic energy drift %.3g, "
         "com off its straight line %.3g (relative)\n",
         worst[0], worst[1], worst[2]);
  assert_true(worst[0] < 1e-10);
  assert_true(worst[1] < 1e-10);
  assert_true(worst[2] < 1e-10);
}

/* Internal joint torques (constant, random) do work but exert no net wrench: momentum is still
 * conserved (the energy is not). The torques speed the light bodies up, so the same 0.3 s are
 * run with h = 5e-4 (RK4's drift ~ h^4: 1.2e-10 measured at h = 1e-3, 16 times less here). */
static void internal_torques_conserve_momentum(void **state) {
  hg_rng r;
  hg_rng_seed(&r, 63);
  double worst = 0;
  for (int k = 0; k < 6; k++) {
    tree t = tree_new(floating_tree(&r, 3 + k));
    double drift[3];
    t.m->gravity[2] = 0;
    hg_model_random(t.m, &r, t.q);
    hg_test_random_vector(&r, t.v, t.m->nv, -1, 1);
    hg_test_random_vector(&r, t.tau + 6, t.m->nv - 6, -1, 1);
    free_flight(&t, 600, 5e-4, drift);
    worst = fmax(worst, drift[0]);
    tree_free(&t);
  }
  printf("# floating tree with internal torques: momentum drift %.3g\n", worst);
  assert_true(worst < 1e-10);
}

/* ---- centre of mass under gravity ---- */

/* The centre of mass of a floating tree falls with g whatever the internal torques (tau = 0 on the
 * free joint), its velocity is p / M, and the momentum changes at the rate of the gravity wrench:
 * d/dt (L_0, p) = (c x M gv, M gv) about the world origin. Derivatives along the curve of
 * curve_state, fourth-order stencils, time scale of the curve down to ~ 0.015 s (as in
 * power_balance): the first derivatives with h = 1e-5 as there; the second with h = 1e-4:
 * truncation ~ (h / 0.015)^4 ~ 2e-9, round-off ~ 5 eps |c| / h^2 ~ 1e-8 (relative to g: ~1e-9). */
static void com_rates(tree *t, double err[3]) {
  const double gv[3] = {0, 0, -G_ACC}, h1 = 1e-5, h2 = 1e-4;
  double c[5][3], c1[4][3], hm[4][6], mass = 0, p0[6], ref[6], c0[3];
  for (int s = 0; s < 5; s++) {
    curve_state(t, OFFS5[s] * h2);
    mass = hg_center_of_mass(t->m, t->d, t->qt, c[s]);
  }
  for (int s = 0; s < 4; s++) {
    curve_state(t, OFFS4[s] * h1);
    hg_center_of_mass(t->m, t->d, t->qt, c1[s]);
    hg_momentum(t->m, t->d, t->qt, t->vt, hm[s]);
  }
  hg_momentum(t->m, t->d, t->q, t->v, p0);
  hg_center_of_mass(t->m, t->d, t->q, c0);
  /* com acceleration = gv, com velocity = p / M */
  err[0] = err[1] = err[2] = 0;
  for (int i = 0; i < 3; i++) {
    double f[5] = {c[0][i], c[1][i], c[2][i], c[3][i], c[4][i]};
    double f4[4] = {c1[0][i], c1[1][i], c1[2][i], c1[3][i]}, vel = d1(f4, h1);
    err[0] = fmax(err[0], fabs(d2(f, h2) - gv[i]) / G_ACC);
    err[1] = fmax(err[1], fabs(vel - p0[3 + i] / mass) / fmax(1, fabs(vel)));
  }
  /* momentum rate = (c x M gv, M gv) */
  hg_v3_cross(c0, gv, ref);
  for (int i = 0; i < 3; i++) ref[i] *= mass, ref[3 + i] = mass * gv[i];
  for (int i = 0; i < 6; i++) {
    double f4[4] = {hm[0][i], hm[1][i], hm[2][i], hm[3][i]};
    err[2] = fmax(err[2], fabs(d1(f4, h1) - ref[i]) / (mass * G_ACC));
  }
}

/* random floating trees with internal torques under gravity */
static void com_falls_with_gravity(void **state) {
  hg_rng r;
  hg_rng_seed(&r, 64);
  double worst[3] = {0, 0, 0};
  for (int k = 0; k < 40; k++) {
    tree t = tree_new(floating_tree(&r, 2 + k % 10));
    double err[3];
    hg_model_random(t.m, &r, t.q);
    hg_test_random_vector(&r, t.v, t.m->nv, -2, 2);
    hg_test_random_vector(&r, t.tau + 6, t.m->nv - 6, -5, 5);
    assert_int_equal(hg_aba(t.m, t.d, t.q, t.v, t.tau, NULL, t.a), 0);
    com_rates(&t, err);
    for (int i = 0; i < 3; i++) worst[i] = fmax(worst[i], err[i]);
    tree_free(&t);
  }
  printf("# floating tree under gravity: com acceleration - g %.3g, com velocity - p/M %.3g, "
         "momentum rate - gravity wrench %.3g (relative)\n",
         worst[0], worst[1], worst[2]);
  assert_true(worst[0] < 1e-7);
  assert_true(worst[1] < 1e-9);
  assert_true(worst[2] < 1e-9);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(energy_rate_is_power),
      cmocka_unit_test(free_floating_conserves_momentum),
      cmocka_unit_test(internal_torques_conserve_momentum),
      cmocka_unit_test(com_falls_with_gravity),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
