/* test_galilean.c: the dynamics at orbital speed. A uniform translational velocity of a whole
 * tree changes nothing physical: every joint acceleration (and every joint force) is the one at
 * rest, except that a free root's body-frame linear rate carries the transport term -w x v.
 * Checked on random trees mixing every joint type, for ABA, hybrid and inverse dynamics, and on
 * the one-body case of a spacecraft with full inertia and an offset centre of mass. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dense.h"
#include "models.h"

#define NTREES 200
#define ORBITAL 7500.0 /* m/s, low Earth orbit */

/* x rounded to a multiple of 2^-bits: inputs with short mantissas make the transport term
 * w x v and the shifted accelerations exact, so the two states describe exactly one motion */
static double quantize(double x, int bits) { return ldexp(round(ldexp(x, bits)), -bits); }

static void random_quantized(hg_rng *r, double *x, int n, double lo, double hi, int bits) {
  for (int k = 0; k < n; k++) x[k] = quantize(hg_rng_range(r, lo, hi), bits);
}

/* max_k |a_k| */
static double norm_inf(const double *a, int n) {
  double s = 0;
  for (int k = 0; k < n; k++) s = fmax(s, fabs(a[k]));
  return s;
}

/* vf = v with every translating root joint moving at orbital speed on top (a uniform velocity
 * of its whole tree, in integer m/s); xs = the change that brings the real accelerations of the
 * fast state to those at rest: (0, w x shift) for a free root's linear rates, 0 elsewhere */
static void add_orbital_speed(const hg_model *m, hg_rng *r, const double *v, double *vf,
                              double *xs) {
  memcpy(vf, v, (size_t)m->nv * sizeof(double));
  memset(xs, 0, (size_t)m->nv * sizeof(double));
  for (int i = 1; i < m->nbody; i++) {
    if (m->parent[i] != 0) continue;
    double w[3], dir[3];
    int va = m->v_adr[i];
    hg_test_random_vector(r, dir, 3, -1, 1);
    double n = hg_v3_norm(dir);
    for (int k = 0; k < 3; k++) w[k] = round(ORBITAL * dir[k] / n);
    switch (m->jnt[i].type) {
    case HG_JOINT_FREE:
      for (int k = 0; k < 3; k++) vf[va + 3 + k] += w[k];
      hg_v3_cross(v + va, w, xs + va + 3);
      break;
    case HG_JOINT_PLANAR: vf[va] += w[0], vf[va + 1] += w[1]; break;
    case HG_JOINT_PRISMATIC: vf[va] += w[0]; break;
    case HG_JOINT_CYLINDRICAL: vf[va + 1] += w[0]; break;
    default: break;
    }
  }
}

typedef struct {
  hg_model *m;
  hg_data *d;
  int nq, nv;
  double *q, *v, *vf, *xs, *tau, *fext, *a0, *a1, *t0, *t1, *qp;
} case_t;

static case_t make(hg_rng *r, int t) {
  case_t c;
  c.m = hg_test_random_tree(r, 1 + t % 14, t % 3 != 2);
  c.d = hg_data_new(c.m);
  c.nq = c.m->nq, c.nv = c.m->nv;
  size_t nv = (size_t)c.nv + 1;
  double **arrays[] = {&c.v, &c.vf, &c.xs, &c.tau, &c.a0, &c.a1, &c.t0, &c.t1, &c.qp};
  for (size_t k = 0; k < sizeof arrays / sizeof *arrays; k++) *arrays[k] = calloc(nv, sizeof(double));
  c.q = calloc((size_t)c.nq + 1, sizeof(double));
  c.fext = calloc(6 * (size_t)c.m->nbody, sizeof(double));
  hg_model_random(c.m, r, c.q);
  random_quantized(r, c.v, c.nv, -2, 2, 10);
  random_quantized(r, c.tau, c.nv, -5, 5, 30);
  random_quantized(r, c.qp, c.nv, -3, 3, 30);
  for (int i = 1; i < c.m->nbody; i++) hg_test_random_vector(r, c.fext + 6 * i, 6, -1, 1);
  add_orbital_speed(c.m, r, c.v, c.vf, c.xs);
  return c;
}

static void release(case_t *c) {
  hg_data_free(c->d);
  hg_model_free(c->m);
  free(c->q); free(c->v); free(c->vf); free(c->xs); free(c->tau); free(c->fext);
  free(c->a0); free(c->a1); free(c->t0); free(c->t1); free(c->qp);
}

/* ABA and hybrid dynamics: qdd(fast) + xs = qdd(rest), to 1e-14 of the accelerations' size
 * (the one rounding of the transport term; the old formulation was off by eps m |v|^2 / I,
 * ~1e-9 relative here) */
static void forward_dynamics_at_orbital_speed(void **state) {
  (void)state;
  hg_rng r;
  hg_rng_seed(&r, 71);
  double worst = 0, worst_tau = 0;
  for (int t = 0; t < NTREES; t++) {
    case_t c = make(&r, t);
    for (int pass = 0; pass < 2; pass++) {
      if (pass == 0) {
        assert_int_equal(hg_aba(c.m, c.d, c.q, c.v, c.tau, c.fext, c.a0), 0);
        assert_int_equal(hg_aba(c.m, c.d, c.q, c.vf, c.tau, c.fext, c.a1), 0);
        memcpy(c.t0, c.tau, (size_t)c.nv * sizeof(double));
        memcpy(c.t1, c.tau, (size_t)c.nv * sizeof(double));
      } else {
        /* random modes; a prescribed joint's acceleration is given as the real one of each
         * state (exact: quantized) */
        for (int i = 1; i < c.m->nbody; i++) c.d->mode[i] = (uint8_t)(hg_rng_uniform(&r) * 3);
        /* a root at orbital speed is not at rest: prescribe it instead of locking it */
        for (int i = 1; i < c.m->nbody; i++)
          if (c.m->parent[i] == 0 && c.d->mode[i] == HG_MODE_LOCKED) c.d->mode[i] = HG_MODE_PRESCRIBED;
        for (int k = 0; k < c.nv; k++) {
          c.a0[k] = c.qp[k];
          c.a1[k] = c.qp[k] - c.xs[k];
          c.t0[k] = c.t1[k] = c.tau[k];
        }
        /* locked joints are at rest: their rates are zero in both states */
        for (int i = 1; i < c.m->nbody; i++)
          if (c.d->mode[i] == HG_MODE_LOCKED)
            for (int k = c.m->v_adr[i]; k < c.m->v_adr[i] + c.m->jnt_nv[i]; k++) c.v[k] = c.vf[k] = 0;
        memset(c.xs, 0, (size_t)c.nv * sizeof(double));
        add_orbital_speed(c.m, &r, c.v, c.vf, c.xs);
        for (int k = 0; k < c.nv; k++) c.a1[k] = c.qp[k] - c.xs[k];
        assert_int_equal(hg_hybrid(c.m, c.d, c.q, c.v, c.a0, c.t0, c.fext), 0);
        assert_int_equal(hg_hybrid(c.m, c.d, c.q, c.vf, c.a1, c.t1, c.fext), 0);
      }
      double scale = fmax(norm_inf(c.a1, c.nv), 1e-300), e = 0;
      for (int k = 0; k < c.nv; k++) e = fmax(e, fabs(c.a1[k] + c.xs[k] - c.a0[k]) / scale);
      worst = fmax(worst, e);
      double ts = fmax(norm_inf(c.t0, c.nv), 1e-300);
      worst_tau = fmax(worst_tau, hg_test_max_diff(c.t1, c.t0, c.nv) / ts);
    }
    release(&c);
  }
  printf("# ABA and hybrid at 7.5 km/s vs at rest: worst relative difference %.3g (accelerations), "
         "%.3g (forces)\n", worst, worst_tau);
  assert_true(worst <= 1e-14);
  assert_true(worst_tau <= 1e-14);
}

/* inverse dynamics: tau(q, v_fast, qdd_rest - xs) = tau(q, v_rest, qdd_rest), and so the bias */
static void inverse_dynamics_at_orbital_speed(void **state) {
  (void)state;
  hg_rng r;
  hg_rng_seed(&r, 72);
  double worst = 0;
  for (int t = 0; t < NTREES; t++) {
    case_t c = make(&r, t);
    for (int k = 0; k < c.nv; k++) c.a1[k] = c.qp[k] - c.xs[k];
    hg_rnea(c.m, c.d, c.q, c.v, c.qp, c.fext, c.t0);
    hg_rnea(c.m, c.d, c.q, c.vf, c.a1, c.fext, c.t1);
    worst = fmax(worst, hg_test_max_diff(c.t1, c.t0, c.nv) / fmax(norm_inf(c.t0, c.nv), 1e-300));
    /* b(fast) = b(rest) + M xs: the zero acceleration of the fast state is qdd_rest = xs */
    hg_bias(c.m, c.d, c.q, c.vf, c.fext, c.t1);
    hg_rnea(c.m, c.d, c.q, c.v, c.xs, c.fext, c.t0);
    worst = fmax(worst, hg_test_max_diff(c.t1, c.t0, c.nv) / fmax(norm_inf(c.t0, c.nv), 1e-300));
    release(&c);
  }
  printf("# RNEA at 7.5 km/s vs at rest: worst relative difference %.3g\n", worst);
  assert_true(worst <= 1e-14);
}

/* body-frame accelerations (hg_body_acceleration) carry the transport term of every body:
 * A_fast = A_rest - (0, w_b x R^T u) for a tree moving at u (world axes) */
static void body_accelerations_at_orbital_speed(void **state) {
  (void)state;
  hg_rng r;
  hg_rng_seed(&r, 73);
  double worst = 0;
  for (int t = 0; t < 60; t++) {
    case_t c = make(&r, t);
    if (c.m->jnt[1].type != HG_JOINT_FREE) {
      release(&c);
      continue;
    }
    int nb = c.m->nbody;
    double *A0 = calloc(6 * (size_t)nb, sizeof(double)), *u = calloc(3 * (size_t)nb, sizeof(double));
    /* the poses from a walk of their own (a body-local pass, which floating bases of revolute and
     * prismatic joints have, writes no d->T_world) */
    hg_data *kin = hg_data_new(c.m);
    hg_kinematics(c.m, kin, c.q, NULL);
    assert_int_equal(hg_aba(c.m, c.d, c.q, c.v, c.tau, c.fext, c.a0), 0);
    for (int i = 1; i < nb; i++) {
      double V[6];
      hg_body_acceleration(c.m, c.d, i, A0 + 6 * i);
      hg_body_twist(c.m, c.d, i, V);
      /* the world velocity of body i's origin at rest */
      hg_m3_mulv(kin->T_world[i].R, V + 3, u + 3 * i);
    }
    assert_int_equal(hg_aba(c.m, c.d, c.q, c.vf, c.tau, c.fext, c.a1), 0);
    for (int i = 1; i < nb; i++) {
      double V[6], A[6], uw[3], ub[3], tr[3];
      hg_body_twist(c.m, c.d, i, V);
      hg_body_acceleration(c.m, c.d, i, A);
      /* the uniform velocity the fast state adds, in body i's axes */
      hg_m3_mulv(kin->T_world[i].R, V + 3, uw);
      for (int e = 0; e < 3; e++) uw[e] -= u[3 * i + e];
      hg_m3_mulTv(kin->T_world[i].R, uw, ub);
      hg_v3_cross(V, ub, tr);
      double s = fmax(norm_inf(A, 6), 1);
      for (int k = 0; k < 3; k++) {
        worst = fmax(worst, fabs(A[k] - A0[6 * i + k]) / s);
        worst = fmax(worst, fabs(A[3 + k] + tr[k] - A0[6 * i + 3 + k]) / s);
      }
    }
    free(A0);
    free(u);
    hg_data_free(kin);
    release(&c);
  }
  printf("# body accelerations at 7.5 km/s: worst relative difference %.3g\n", worst);
  /* the fast state's velocity is known to eps |u| (its sum with the relative motion rounds), so
   * the transport term w x u carries eps |w| |u| */
  assert_true(worst <= 1e-13);
}

/* One rigid body on a free joint, full inertia, centre of mass off its origin, spinning at 1e-12
 * rad/s and flying at (5000, 6000, 1000) m/s: its angular acceleration is the torque-free
 * I^-1 (I w x w), of order 1e-24, not the 1e-9 of round-off in m |v|^2 */
static void spacecraft_at_orbital_speed(void **state) {
  (void)state;
  hg_builder *b = hg_builder_new();
  hg_inertia G;
  double c[3] = {0.3, -0.2, 0.5}, Ic[6] = {1200, 900, 1500, 40, -25, 60};
  assert_int_equal(hg_inertia_from_com(1000, c, Ic, &G, NULL, 0), 0);
  hg_test_add_body(b, "sc", "world", HG_JOINT_FREE, NULL, NULL, 0, NULL, &G);
  hg_error err;
  hg_model *m = hg_builder_compile(b, &err);
  hg_builder_free(b);
  assert_non_null(m);
  m->gravity[0] = m->gravity[1] = m->gravity[2] = 0; /* in orbit */
  hg_data *d = hg_data_new(m);
  double q[7] = {0, 0, 0, 1, 0, 0, 0}, v[6] = {1e-12, 0, 0, 5000, 6000, 1000}, tau[6] = {0};
  double qdd[6], rest[6], v0[6] = {1e-12, 0, 0, 0, 0, 0};
  assert_int_equal(hg_aba(m, d, q, v, tau, NULL, qdd), 0);
  assert_int_equal(hg_aba(m, d, q, v0, tau, NULL, rest), 0);
  printf("# spacecraft at orbital speed: angular acceleration %.3g %.3g %.3g\n", qdd[0], qdd[1],
         qdd[2]);
  for (int k = 0; k < 3; k++) {
    assert_true(fabs(qdd[k]) < 1e-20);
    assert_true(qdd[k] == rest[k]);
  }
  /* the linear rate: v' = -w x v (no force) plus the origin's ~1e-24 centripetal terms */
  double wv[3];
  hg_v3_cross(v, v + 3, wv);
  for (int k = 0; k < 3; k++) assert_true(fabs(qdd[3 + k] + wv[k]) <= 1e-14 * fabs(wv[k]) + 1e-20);
  hg_data_free(d);
  hg_model_free(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(forward_dynamics_at_orbital_speed),
      cmocka_unit_test(inverse_dynamics_at_orbital_speed),
      cmocka_unit_test(body_accelerations_at_orbital_speed),
      cmocka_unit_test(spacecraft_at_orbital_speed),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
