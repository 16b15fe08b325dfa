/* test_integ_project.c: the projection of a system (hg_system.project) keeps the state on its
 * constraint manifold, for every method.
 *
 * The plant needs no loop code: a point mass on two prismatic joints (x, then y) held on the
 * circle x^2 + y^2 = L^2, a planar pendulum in Cartesian coordinates. The acceleration is the
 * exact constrained one, vdot = -g e_y - mu (x, y) with the multiplier
 *   mu = (|v|^2 - g y) / (x^2 + y^2)
 * (from d^2/dt^2 (x^2 + y^2) = 0, centripetal term included), so the exact flow keeps the radius
 * and only the integration error moves it off the circle. The projection scales (x, y) back to
 * radius L and removes the radial part of v (and of the error estimate's two parts). A root
 * function on x (rising) times the periods. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "allocs.h"
#include "integrator.h"
#include "models.h"

#define G 9.81
#define L 1.3
#define PI 3.14159265358979323846
#define THETA0 1.0 /* initial angle from the bottom (rad), released at rest */
#define T_END 100.0
#define DT_OUT 0.1

typedef struct pend {
  hg_model *m;
  long with_err; /* projections that were given an error estimate */
  double worst_in; /* largest |r - L| / L handed to the projection: the drift between two */
} pend;

static int accel(void *u, double t, const double *q, const double *v, double *vdot) {
  (void)u, (void)t;
  double mu = (v[0] * v[0] + v[1] * v[1] - G * q[1]) / (q[0] * q[0] + q[1] * q[1]);
  vdot[0] = -mu * q[0];
  vdot[1] = -G - mu * q[1];
  return 0;
}

/* the bob passing the bottom moving right: x rising through zero */
static int root_x(void *u, double t, const double *q, const double *v, double *g) {
  (void)u, (void)t, (void)v;
  g[0] = q[0];
  return 0;
}

/* removes the component of a along the unit vector n */
static void tangent(double *a, const double n[2]) {
  double an = a[0] * n[0] + a[1] * n[1];
  a[0] -= an * n[0];
  a[1] -= an * n[1];
}

static int project(void *u, double t, double *q, double *v, double *eq, double *ev) {
  (void)t;
  pend *p = u;
  double r = hypot(q[0], q[1]);
  if (!(r > 0)) return -1;
  p->worst_in = fmax(p->worst_in, fabs(r - L) / L);
  double n[2] = {q[0] / r, q[1] / r};
  q[0] = L * n[0];
  q[1] = L * n[1];
  tangent(v, n);
  if (eq) tangent(eq, n), p->with_err++;
  if (ev) tangent(ev, n);
  return 0;
}

static pend make(void) {
  pend p = {0};
  hg_builder *b = hg_builder_new();
  hg_error err;
  const char *why;
  static const char *names[2] = {"slide_x", "slide_y"};
  double axes[2][3] = {{1, 0, 0}, {0, 1, 0}};
  for (int k = 0; k < 2; k++) {
    hg_body_spec s;
    double com[3] = {0, 0, 0}, Ic[6] = {1e-3, 1e-3, 1e-3, 0, 0, 0};
    memset(&s, 0, sizeof s);
    s.name = names[k];
    s.parent = k ? names[0] : NULL;
    assert_int_equal(hg_joint_init(&s.joint, HG_JOINT_PRISMATIC, axes[k], NULL, 0, &why), 0);
    hg_se3_identity(&s.offset);
    hg_inertia_from_com(k ? 1.0 : 1e-3, com, Ic, &s.inertia, NULL, 0);
    assert_int_equal(hg_builder_add_body(b, &s, &err), 0);
  }
  p.m = hg_builder_compile(b, &err);
  hg_builder_free(b);
  assert_non_null(p.m);
  assert_int_equal(p.m->nq, 2);
  assert_int_equal(p.m->nv, 2);
  return p;
}

/* the complete elliptic integral of the first kind K(k), by the arithmetic-geometric mean */
static double ellip_k(double k) {
  double a = 1, b = sqrt(1 - k * k);
  for (int i = 0; i < 40; i++) {
    double an = 0.5 * (a + b);
    b = sqrt(a * b);
    a = an;
  }
  return PI / (2 * a);
}

static double energy(const double *q, const double *v) {
  return 0.5 * (v[0] * v[0] + v[1] * v[1]) + G * q[1];
}

typedef struct run {
  double worst_radius; /* largest |r - L| / L at the outputs (and events) */
  double period;       /* mean spacing of the events */
  double energy_drift; /* |E(T) - E(0)| / (g L) */
  double worst_in;     /* the drift between projections (pend.worst_in) */
  int events;
  hg_integ_stats st;
} run;

static run simulate(hg_integ_method method, double rtol, double h, int with_projection) {
  pend p = make();
  hg_system sys = {p.m, accel, 1, root_x, NULL, &p, 0, NULL, NULL};
  static const int dir[1] = {1};
  sys.root_dir = dir;
  if (with_projection) sys.project = project;
  hg_integ_options o;
  hg_error err;
  hg_integ_default_options(&o, method);
  if (rtol > 0) o.rtol = rtol;
  if (h > 0) o.h = h;
  double q0[2] = {L * sin(THETA0), -L * cos(THETA0)}, v0[2] = {0, 0};
  hg_integrator *I = hg_integrator_new(&sys, &o, 0, q0, v0, &err);
  assert_non_null(I);
  run r = {0};
  double e0 = energy(q0, v0), t_first = 0, t_last = 0;
  for (int k = 1; k <= (int)(T_END / DT_OUT + 0.5); k++) {
    double tout = k * DT_OUT;
    for (;;) {
      int rc = hg_integrator_advance(I, tout);
      if (rc != HG_INTEG_OK && rc != HG_INTEG_ROOT) fail_msg("%s", hg_integrator_error_message(I));
      const double *q = hg_integrator_q(I);
      r.worst_radius = fmax(r.worst_radius, fabs(hypot(q[0], q[1]) - L) / L);
      if (rc == HG_INTEG_OK) break;
      if (r.events++ == 0) t_first = hg_integrator_t(I);
      t_last = hg_integrator_t(I);
    }
  }
  assert_true(r.events > 2);
  r.period = (t_last - t_first) / (r.events - 1);
  r.energy_drift = fabs(energy(hg_integrator_q(I), hg_integrator_v(I)) - e0) / (G * L);
  hg_integrator_stats(I, &r.st);
  r.worst_in = p.worst_in;
  if (with_projection && method == HG_INTEG_CVODE_BDF) assert_true(p.with_err > 0);
  hg_integrator_free(I);
  hg_model_free(p.m);
  return r;
}

/* on the circle to round-off with the projection, visibly off it without; the period and the
 * energy as accurate either way */
static void projection_keeps_the_circle(void **state) {
  (void)state;
  static const struct {
    hg_integ_method method;
    double rtol, h;
    double drift_min;  /* the unprojected radius error exceeds this */
    double period_tol; /* relative error of the period, either run */
    double energy_tol; /* energy error over T_END, either run (in g L) */
  } runs[] = {
      /* measured over 100 s (about 45 periods) from 1 rad: projected, the radius is off by
       * ~2e-16 for every method; unprojected by 3e-3 (BDF), 1e-2 (Adams), 4e-4 (RKMK4 at
       * h = 1e-2) and 0.15 (Lie-Euler). The period and energy errors are those of the method,
       * smaller with the projection: BDF 4e-5 / 4e-4 (projected / not), Adams 1.4e-5 / 9e-4,
       * RKMK4 7e-10 / 6e-5, Lie-Euler 1.1e-2 / 2.7e-2 */
      {HG_INTEG_CVODE_BDF, 1e-6, 0, 1e-8, 1e-3, 1e-2},
      {HG_INTEG_CVODE_ADAMS, 1e-6, 0, 1e-8, 2e-3, 2e-2},
      {HG_INTEG_RKMK4, 0, 1e-2, 1e-6, 1e-4, 1e-3},
      {HG_INTEG_LIE_EULER, 0, 1e-3, 1e-2, 5e-2, 0.5},
  };
  double exact = 4 * sqrt(L / G) * ellip_k(sin(0.5 * THETA0));
  for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
    run free_run = simulate(runs[i].method, runs[i].rtol, runs[i].h, 0);
    run proj = simulate(runs[i].method, runs[i].rtol, runs[i].h, 1);
    printf("# %-11s radius error %.2e projected, %.2e not; period error %.2e / %.2e, "
           "energy %.2e / %.2e; %ld projections (drift between %.2e), %ld / %ld steps\n",
           hg_integ_method_name(runs[i].method), proj.worst_radius, free_run.worst_radius,
           fabs(proj.period - exact) / exact, fabs(free_run.period - exact) / exact,
           proj.energy_drift, free_run.energy_drift, proj.st.projections, proj.worst_in, proj.st.steps,
           free_run.st.steps);
    assert_true(proj.worst_radius <= 1e-12);
    /* each stretch starts on the circle (Adams: the restart at every output), so the drift a
     * projection undoes is far below the unprojected run's (Adams without the restart: 6e-5,
     * the drift of one period between the restarts at the events; with it 1.3e-6) */
    assert_true(proj.worst_in < 1e-3 * free_run.worst_radius);
    assert_true(free_run.worst_radius > runs[i].drift_min);
    assert_true(proj.st.projections > 0);
    assert_true(free_run.st.projections == 0);
    assert_int_equal(proj.events, free_run.events);
    assert_true(fabs(proj.period - exact) / exact < runs[i].period_tol);
    assert_true(fabs(free_run.period - exact) / exact < runs[i].period_tol);
    assert_true(fabs(proj.period - free_run.period) / exact < runs[i].period_tol);
    assert_true(proj.energy_drift < runs[i].energy_tol);
    assert_true(free_run.energy_drift < runs[i].energy_tol);
  }
}

/* CVODE: advancing with a projection allocates nothing (the first step, where CVODE's linear
 * solver allocates its Jacobian copy, aside) */
static void projection_allocates_nothing(void **state) {
  (void)state;
  if (!hg_allocs_counted()) skip();
  hg_integ_method methods[] = {HG_INTEG_CVODE_BDF, HG_INTEG_CVODE_ADAMS, HG_INTEG_RKMK4,
                               HG_INTEG_LIE_EULER};
  for (size_t i = 0; i < sizeof methods / sizeof methods[0]; i++) {
    pend p = make();
    hg_system sys = {p.m, accel, 1, root_x, NULL, &p, 0, NULL, NULL};
    sys.project = project;
    hg_integ_options o;
    hg_error err;
    hg_integ_default_options(&o, methods[i]);
    double q0[2] = {L * sin(THETA0), -L * cos(THETA0)}, v0[2] = {0, 0};
    hg_integrator *I = hg_integrator_new(&sys, &o, 0, q0, v0, &err);
    assert_non_null(I);
    assert_int_equal(hg_integrator_step(I, 1.0), HG_INTEG_OK);
    long a0 = hg_allocs();
    for (int k = 1; k <= 50; k++)
      while (hg_integrator_advance(I, 0.1 * k) == HG_INTEG_ROOT) continue;
    long allocs = hg_allocs() - a0;
    assert_true(hg_integrator_t(I) == 5.0);
    printf("# %-11s %ld allocations over 5 s with projection\n", hg_integ_method_name(methods[i]),
           allocs);
    assert_int_equal(allocs, 0);
    hg_integrator_free(I);
    hg_model_free(p.m);
  }
}

/* a projection that fails after t = 1: fatal (< 0) at every call, which stops every method with
 * a message naming the projection; recoverable (> 0) once, which CVODE BDF answers with a shorter
 * step and the others, which cannot retry, with the same stop */
static int fail_code, fail_once, failed;
static int project_failing(void *u, double t, double *q, double *v, double *eq, double *ev) {
  if (t > 1.0 && !(fail_once && failed)) {
    failed = 1;
    return fail_code;
  }
  return project(u, t, q, v, eq, ev);
}

static void projection_failure_stops(void **state) {
  (void)state;
  hg_integ_method methods[] = {HG_INTEG_CVODE_BDF, HG_INTEG_CVODE_ADAMS, HG_INTEG_RKMK4,
                               HG_INTEG_LIE_EULER};
  int codes[] = {-1, 1};
  for (size_t c = 0; c < 2; c++)
    for (size_t i = 0; i < sizeof methods / sizeof methods[0]; i++) {
      fail_code = codes[c], fail_once = codes[c] > 0, failed = 0;
      pend p = make();
      hg_system sys = {p.m, accel, 0, NULL, NULL, &p, 0, NULL, NULL};
      sys.project = project_failing;
      hg_integ_options o;
      hg_error err;
      hg_integ_default_options(&o, methods[i]);
      double q0[2] = {L * sin(THETA0), -L * cos(THETA0)}, v0[2] = {0, 0};
      hg_integrator *I = hg_integrator_new(&sys, &o, 0, q0, v0, &err);
      assert_non_null(I);
      int rc = hg_integrator_advance(I, 2.0);
      printf("# %-11s projection returning %d: %s\n", hg_integ_method_name(methods[i]), codes[c],
             rc ? hg_integrator_error_message(I) : "retried, reached t = 2");
      assert_true(failed);
      if (codes[c] > 0 && methods[i] == HG_INTEG_CVODE_BDF) {
        assert_int_equal(rc, HG_INTEG_OK);
        const double *q = hg_integrator_q(I);
        assert_true(fabs(hypot(q[0], q[1]) - L) <= 1e-12 * L);
        hg_integrator_free(I);
        hg_model_free(p.m);
        continue;
      }
      assert_int_equal(rc, HG_INTEG_ERR_SOLVER);
      assert_non_null(strstr(hg_integrator_error_message(I), "projection"));
      assert_int_equal(hg_integrator_advance(I, 2.0), HG_INTEG_ERR_SOLVER);
      hg_integrator_free(I);
      hg_model_free(p.m);
    }
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(projection_keeps_the_circle),
                                     cmocka_unit_test(projection_allocates_nothing),
                                     cmocka_unit_test(projection_failure_stops)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
