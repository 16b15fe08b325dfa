/* test_integ_quad.c: quadratures integrated along with the state close an energy budget. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "integrator.h"
#include "models.h"

/* a damped spherical pendulum: tau = -c v */
typedef struct {
  hg_model *m;
  hg_data *d;
  double c;
  double tau[3];
} pend;

static int accel(void *u, double t, const double *q, const double *v, double *vdot) {
  pend *p = u;
  for (int k = 0; k < 3; k++) p->tau[k] = -p->c * v[k];
  return hg_aba(p->m, p->d, q, v, p->tau, NULL, vdot);
}

/* the power the damper takes out, c |v|^2 (>= 0) */
static int dissipation(void *u, double t, const double *q, const double *v, double *w) {
  pend *p = u;
  w[0] = p->c * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  return 0;
}

static pend make(void) {
  pend p;
  hg_builder *b = hg_builder_new();
  hg_body_spec s;
  hg_error err;
  const char *why;
  double com[3] = {0.1, 0.05, -0.6}, Ic[6] = {0.02, 0.03, 0.015, 0, 0, 0};
  memset(&s, 0, sizeof s);
  s.name = "bob";
  hg_joint_init(&s.joint, HG_JOINT_SPHERICAL, NULL, NULL, 0, &why);
  hg_se3_identity(&s.offset);
  hg_inertia_from_com(2.0, com, Ic, &s.inertia, NULL, 0);
  hg_builder_add_body(b, &s, &err);
  p.m = hg_builder_compile(b, &err);
  hg_builder_free(b);
  p.d = hg_data_new(p.m);
  p.c = 0.3;
  return p;
}

static double energy(pend *p, const double *q, const double *v) {
  double k, u;
  hg_energy(p->m, p->d, q, v, &k, &u);
  return k + u;
}

/* E(t) + W(t) = E(0) for every method, to its own accuracy */
static void energy_budget_closes(void **state) {
  static const struct { hg_integ_method method; double rtol, h, tol; } runs[] = {
      /* CVODE at rtol 1e-10: Adams closes the budget to ~2e-9 of E over 5 s; BDF's global
       * error per rtol is ~10x larger (as in test_integrators' invariant runs), ~1.5e-8 */
      {HG_INTEG_CVODE_ADAMS, 1e-10, 0, 1e-8},
      {HG_INTEG_CVODE_BDF, 1e-10, 0, 5e-8},
      /* RKMK4 with h = 1e-3: local error ~ (h w)^5, global ~1e-11 */
      {HG_INTEG_RKMK4, 0, 1e-3, 1e-9},
      /* Lie-Euler is first order: O(h) = 1e-3 of E */
      {HG_INTEG_LIE_EULER, 0, 1e-4, 1e-2},
  };
  for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++) {
    pend p = make();
    hg_system sys = {p.m, accel, 0, NULL, NULL, &p, 1, dissipation, NULL};
    hg_integ_options o;
    hg_error err;
    hg_integ_default_options(&o, runs[r].method);
    if (runs[r].rtol > 0) o.rtol = runs[r].rtol, o.atol_quad = 1e-12;
    if (runs[r].h > 0) o.h = runs[r].h;
    double q0[4] = {0.9, 0.3, 0.2, 0.1}, v0[3] = {1.0, -2.0, 0.5};
    hg_quat_normalize(q0);
    hg_integrator *I = hg_integrator_new(&sys, &o, 0, q0, v0, &err);
    assert_non_null(I);
    double e0 = energy(&p, q0, v0), worst = 0;
    for (int k = 1; k <= 50; k++) {
      assert_int_equal(hg_integrator_advance(I, 0.1 * k), HG_INTEG_OK);
      double e = energy(&p, hg_integrator_q(I), hg_integrator_v(I));
      worst = fmax(worst, fabs(e + hg_integrator_quad(I)[0] - e0) / fabs(e0));
    }
    /* a reset keeps the quadrature; set_quad replaces it */
    double w = hg_integrator_quad(I)[0];
    assert_true(w > 0);
    hg_integrator_reset(I, hg_integrator_t(I), hg_integrator_q(I), hg_integrator_v(I));
    assert_true(hg_integrator_quad(I)[0] == w);
    double zero = 0;
    hg_integrator_set_quad(I, &zero);
    assert_true(hg_integrator_quad(I)[0] == 0);
    printf("# %-11s energy budget closes to %.2e of E over 5 s (dissipated %.3g of %.3g J)\n",
           hg_integ_method_name(runs[r].method), worst, w, fabs(e0));
    assert_true(worst < runs[r].tol);
    hg_integrator_free(I);
    hg_data_free(p.d);
    hg_model_free(p.m);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(energy_budget_closes)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
