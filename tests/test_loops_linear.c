/* test_loops_linear.c: linearization of a closed mechanism in independent coordinates
 * (hg_loops_equilibrium, hg_loops_linearize) on a crank-rocker four-bar hanging under gravity
 * (tests/data/scenes/four_bar.yaml), against the one-DoF reduced Lagrangian written here from the
 * loop-closure kinematics: with the crank angle t, T = m(t) t'^2 / 2 and V(t) the potential, the
 * stable equilibrium t* has V'(t*) = 0 and small oscillations at w^2 = V''(t*) / m(t*). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linearize.h"
#include "loops.h"
#include "scene.h"
#include "sim.h"

/* the scene's four-bar: crank a from (0,0), coupler b, rocker c from (d,0); masses at the links'
 * midpoints, inertias about them (z) */
static const double A_ = 0.3, B_ = 1.0, C_ = 0.8, D_ = 0.9, G_ = 9.81;
static const double M1 = 1, M2 = 1.5, M3 = 1.2, I1 = 0.01, I2 = 0.1, I3 = 0.07;

typedef struct fourbar_state {
  double phi, psi;   /* coupler and rocker absolute angles */
  double dphi, dpsi; /* their derivatives in t */
} fourbar_state;

/* the closure at crank angle t, on the branch with the pin below (as the scene hangs) */
static fourbar_state closure(double t) {
  fourbar_state s;
  double px = A_ * cos(t), py = A_ * sin(t), dx = px - D_, dy = py, r = hypot(dx, dy);
  double x = (C_ * C_ - B_ * B_ + r * r) / (2 * r), h = sqrt(C_ * C_ - x * x);
  double ux = dx / r, uy = dy / r;
  double q1x = D_ + x * ux - h * uy, q1y = x * uy + h * ux;
  double q2x = D_ + x * ux + h * uy, q2y = x * uy - h * ux;
  double qx = q1y < q2y ? q1x : q2x, qy = q1y < q2y ? q1y : q2y;
  s.phi = atan2(qy - py, qx - px);
  s.psi = atan2(qy, qx - D_);
  /* a e'(t) + b phi' e'(phi) = c psi' e'(psi), e'(x) = (-sin x, cos x) */
  double a11 = -B_ * sin(s.phi), a12 = C_ * sin(s.psi), a21 = B_ * cos(s.phi),
         a22 = -C_ * cos(s.psi), r1 = A_ * sin(t), r2 = -A_ * cos(t), det = a11 * a22 - a12 * a21;
  s.dphi = (r1 * a22 - a12 * r2) / det;
  s.dpsi = (a11 * r2 - a21 * r1) / det;
  return s;
}

static double dV(double t) {
  fourbar_state s = closure(t);
  return G_ * (M1 * A_ / 2 * cos(t) + M2 * (A_ * cos(t) + B_ / 2 * cos(s.phi) * s.dphi) +
               M3 * C_ / 2 * cos(s.psi) * s.dpsi);
}

static double mass(double t) {
  fourbar_state s = closure(t);
  double vx = -A_ * sin(t) - B_ / 2 * sin(s.phi) * s.dphi,
         vy = A_ * cos(t) + B_ / 2 * cos(s.phi) * s.dphi;
  return M1 * A_ * A_ / 4 + I1 + M2 * (vx * vx + vy * vy) + I2 * s.dphi * s.dphi +
         (M3 * C_ * C_ / 4 + I3) * s.dpsi * s.dpsi;
}

/* V'' by central differences of V', Richardson-extrapolated (error ~h^4) */
static double ddV(double t) {
  double h = 1e-3, d1 = (dV(t + h) - dV(t - h)) / (2 * h),
         d2 = (dV(t + h / 2) - dV(t - h / 2)) / h;
  return (4 * d2 - d1) / 3;
}

typedef struct fourbar {
  hg_scene *sc;
  hg_sim *sim;
  const hg_model *m;
  hg_data *d;
  hg_loops *L;
  int crank, coupler, rocker; /* DoFs */
  double q[4], v[4];
} fourbar;

static void fourbar_load(fourbar *f) {
  hg_error err;
  hg_sim_options opt;
  memset(f, 0, sizeof *f);
  f->sc = hg_scene_load("data/scenes/four_bar.yaml", &err);
  assert_non_null(f->sc);
  hg_sim_default_options(&opt);
  f->sim = hg_sim_new(f->sc, &opt, &err);
  assert_non_null(f->sim);
  f->m = hg_sim_model(f->sim);
  assert_int_equal(f->m->nv, 3);
  f->crank = f->m->v_adr[hg_model_joint(f->m, "crank_j")];
  f->coupler = f->m->v_adr[hg_model_joint(f->m, "coupler_j")];
  f->rocker = f->m->v_adr[hg_model_joint(f->m, "rocker_j")];
  memcpy(f->q, hg_sim_q(f->sim), 3 * sizeof(double));
  hg_loop lp;
  assert_int_equal(hg_loop_spec_resolve(f->sc, &f->sc->loop[0], f->m, &lp, &err), 0);
  f->L = hg_loops_new(f->m, &lp, 1, &err);
  assert_non_null(f->L);
  f->d = hg_data_new(f->m);
}

static void fourbar_free(fourbar *f) {
  hg_loops_free(f->L);
  hg_data_free(f->d);
  hg_sim_free(f->sim);
  hg_scene_free(f->sc);
}

static void test_fourbar_frequency(void **state) {
  (void)state;
  fourbar f;
  fourbar_load(&f);
  /* the closed form: Newton on V'(t) = 0 from the scene's crank angle */
  double t = f.q[f.crank];
  for (int it = 0; it < 50; it++) t -= dV(t) / ddV(t);
  double w2_ref = ddV(t) / mass(t);
  assert_true(fabs(dV(t)) < 1e-12);
  assert_true(w2_ref > 0); /* a stable equilibrium */
  /* hinge: the equilibrium in z, then A */
  hg_loops_linear *Z = hg_loops_linear_new(f.m, f.L);
  assert_non_null(Z);
  hg_equilibrium_info info;
  int rc = hg_loops_equilibrium(Z, f.L, f.d, NULL, f.q, NULL, 0, 0, 0, &info);
  printf("equilibrium: %d iterations, residual %.3g, crank %.12f (closed form %.12f)\n",
         info.iterations, info.residual, f.q[f.crank], t);
  assert_int_equal(rc, 0);
  assert_true(info.iterations >= 1); /* the scene starts off the equilibrium */
  assert_true(fabs(f.q[f.crank] - t) < 1e-8);
  fourbar_state s = closure(t);
  assert_true(fabs(remainder(f.q[f.coupler] - (s.phi - t), 6.283185307179586)) < 1e-8);
  assert_true(fabs(remainder(f.q[f.rocker] - s.psi, 6.283185307179586)) < 1e-8);
  memset(f.v, 0, sizeof f.v);
  assert_int_equal(hg_loops_linearize(Z, f.L, f.d, NULL, f.q, f.v, NULL, NULL, 0), 0);
  assert_int_equal(Z->f, 1);
  assert_int_equal(Z->nfree, 3);
  /* A = [[0, 1], [-w^2, 0]]: the eigenvalues +-i w */
  double re[2], im[2], V[8];
  assert_int_equal(hg_modes_eig(2, Z->A, re, im, V), 0);
  double w2 = -Z->A[2], w = fabs(im[0]), w_ref = sqrt(w2_ref);
  printf("four-bar: w^2 %.12g (closed form %.12g), |w - w_ref|/w_ref %.3g, damping %.3g\n", w2,
         w2_ref, fabs(w - w_ref) / w_ref, Z->A[3]);
  assert_true(fabs(w - w_ref) <= 1e-6 * w_ref);
  assert_true(fabs(re[0]) <= 1e-6 * w_ref && fabs(Z->A[3]) <= 1e-6 * w_ref);
  /* the basis maps z to the joints along the closure: dq = N z with the crank's share n1 moving
   * the coupler and the rocker by phi' - 1 and psi' */
  double n1 = Z->N[f.crank];
  assert_true(fabs(n1) > 0.1);
  assert_true(fabs(Z->N[f.coupler] / n1 - (s.dphi - 1)) < 1e-9);
  assert_true(fabs(Z->N[f.rocker] / n1 - s.dpsi) < 1e-9);
  /* the mass in z, m(t*) n1^2, and the crank torque's acceleration in z, n1 / m_z */
  double mz = mass(t) * n1 * n1;
  printf("m_z %.12g (closed form %.12g), B crank %.12g (closed form %.12g)\n", Z->M[0], mz,
         Z->B[1 * Z->nfree + f.crank], n1 / mz);
  assert_true(fabs(Z->M[0] - mz) <= 1e-9 * mz);
  assert_true(fabs(Z->B[1 * Z->nfree + f.crank] - n1 / mz) <= 1e-6 * fabs(n1 / mz));
  /* the undamped problem gives the same frequency */
  double w2s[1], Phi[1];
  assert_int_equal(hg_modes_sym(1, Z->K, Z->M, w2s, Phi), 0);
  assert_true(fabs(w2s[0] - w2_ref) <= 2e-6 * w2_ref);
  hg_loops_linear_free(Z);
  fourbar_free(&f);
}

/* away from the equilibrium, with the crank turning: zddot of the drift against the reduced
 * equation of motion m(t) t'' + m'(t) t'^2 / 2 + V'(t) = 0 */
static void test_fourbar_drift(void **state) {
  (void)state;
  fourbar f;
  fourbar_load(&f);
  hg_loops_linear *Z = hg_loops_linear_new(f.m, f.L);
  assert_non_null(Z);
  double t = f.q[f.crank], td = 0.7;
  fourbar_state s = closure(t);
  f.v[f.crank] = td, f.v[f.coupler] = (s.dphi - 1) * td, f.v[f.rocker] = s.dpsi * td;
  assert_int_equal(hg_loops_linearize(Z, f.L, f.d, NULL, f.q, f.v, NULL, NULL, 0), 0);
  double h = 1e-4, dm = (mass(t + h) - mass(t - h)) / (2 * h);
  double tdd = -(dm * td * td / 2 + dV(t)) / mass(t);
  /* the joints' accelerations along the closure: q'' = q'(t) t'' + q''(t) t'^2 with
   * q(t) = (t, phi - t, psi) */
  fourbar_state sp = closure(t + h), sm = closure(t - h);
  double qdd[3];
  qdd[f.crank] = tdd;
  qdd[f.coupler] = (s.dphi - 1) * tdd + (sp.dphi - sm.dphi) / (2 * h) * td * td;
  qdd[f.rocker] = s.dpsi * tdd + (sp.dpsi - sm.dpsi) / (2 * h) * td * td;
  double zdd_ref = 0, zd_ref = 0;
  for (int k = 0; k < 3; k++) zdd_ref += Z->N[k] * qdd[k], zd_ref += Z->N[k] * f.v[k];
  double zd = Z->xdot0[0], zdd = Z->xdot0[1];
  printf("drift: zdot %.12g (%.12g), zddot %.12g (reduced Lagrangian %.12g)\n", zd, zd_ref, zdd,
         zdd_ref);
  assert_true(fabs(zd - zd_ref) < 1e-12);
  assert_true(fabs(zdd - zdd_ref) <= 1e-7 * fabs(zdd_ref));
  assert_true(fabs(zdd_ref) > 0.1);
  /* with velocity: zddot = N^T (q' t'' + q'' t'^2) at t' = zdot / (N^T q'), so
   * dzddot/dzdot = -m'(t) t' / m(t) + 2 t' (N^T q'') / (N^T q') */
  double nq1 = Z->N[f.crank] + Z->N[f.coupler] * (s.dphi - 1) + Z->N[f.rocker] * s.dpsi;
  double nq2 = Z->N[f.coupler] * (sp.dphi - sm.dphi) / (2 * h) +
               Z->N[f.rocker] * (sp.dpsi - sm.dpsi) / (2 * h);
  double c_ref = -dm * td / mass(t) + 2 * td * nq2 / nq1;
  printf("dzddot/dzdot %.12g (reduced Lagrangian %.12g)\n", Z->A[3], c_ref);
  assert_true(fabs(Z->A[3] - c_ref) <= 1e-6 * fabs(c_ref));
  fourbar_free(&f);
  hg_loops_linear_free(Z);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_fourbar_frequency),
      cmocka_unit_test(test_fourbar_drift),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
