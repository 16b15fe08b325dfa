/* test_linearize.c: state-space linearization on the group and its modes, on systems with known
 * answers: a pendulum, a chain of springs, a free-free pair of rigid links, and a spacecraft with
 * its appendages locked and free. Also A against central differences of the hybrid right-hand
 * side on the group, on random trees with joint springs and body wrenches that depend on the
 * state. */
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

/* ---- force elements for the tests: joint springs and a body "drag" that depends on (q, v) ---- */

typedef struct {
  double k, c;   /* every DoF (but free joints' with no_free): tau = -k (q (-) rest) - c v */
  double rest;   /* rest = neutral + this on every DoF of a revolute joint */
  int no_free;
  double drag;   /* every body: f = -drag * (its twist), body frame, plus a pull along world x */
  int part;      /* 0: every element; 1: drag and free joints' springs; 2: the other springs */
} springs;

/* joint i's spring deflection q (-) rest */
static void deflection(const springs *s, const hg_model *m, int i, const double *q, double *dq) {
  double q0[HG_JOINT_MAXNQ];
  hg_joint_neutral(&m->jnt[i], q0);
  hg_joint_difference(&m->jnt[i], q0, q + m->q_adr[i], dq);
  if (m->jnt[i].type == HG_JOINT_REVOLUTE) dq[0] -= s->rest;
}

static void spring_forces(void *ctx, const hg_model *m, const hg_data *d, const double *q,
                          const double *v, double *fext, double *tau) {
  const springs *s = ctx;
  double dq[HG_JOINT_MAXNV];
  for (int i = 1; i < m->nbody; i++) {
    int va = m->v_adr[i], fr = m->jnt[i].type == HG_JOINT_FREE;
    deflection(s, m, i, q, dq);
    for (int k = 0; k < m->jnt_nv[i]; k++)
      if (!(s->no_free && fr) && (s->part == 0 || (s->part == 1) == fr))
        tau[va + k] -= s->k * dq[k] + s->c * v[va + k];
    if (s->drag != 0 && s->part != 2) {
      double V[6], pull[6] = {0, 0, 0, 1, 0, 0}, pb[6];
      hg_body_twist(m, d, i, V);
      /* a world-x pull expressed in the body frame turns with the body */
      hg_se3 T = d->T_world[i];
      hg_m3_mulTv(T.R, pull + 3, pb + 3);
      for (int r = 0; r < 6; r++) fext[6 * i + r] -= s->drag * V[r];
      for (int r = 0; r < 3; r++) fext[6 * i + 3 + r] += s->drag * pb[3 + r];
    }
  }
}

/* the derivatives of part 2 (springs on every joint but free ones): d dq / d delta has the chart
 * rates of unit velocities as its columns (J_r^-1 on SO(3), the identity on the others) */
static void spring_jac(void *ctx, const hg_model *m, const hg_data *d, const double *q,
                       const double *v, double *dQ_dq, double *dQ_dv) {
  const springs *s = ctx;
  (void)d, (void)v;
  size_t nv = (size_t)m->nv;
  for (int i = 1; i < m->nbody; i++) {
    int va = m->v_adr[i], n = m->jnt_nv[i];
    double dq[HG_JOINT_MAXNV], u[HG_JOINT_MAXNV], col[HG_JOINT_MAXNV];
    if (m->jnt[i].type == HG_JOINT_FREE) continue;
    deflection(s, m, i, q, dq);
    for (int c = 0; c < n; c++) {
      for (int r = 0; r < n; r++) u[r] = r == c;
      hg_joint_chart_rate(&m->jnt[i], dq, u, col);
      for (int r = 0; r < n; r++) dQ_dq[(va + r) * nv + (size_t)(va + c)] -= s->k * col[r];
      dQ_dv[(va + c) * nv + (size_t)(va + c)] -= s->c;
    }
  }
}

/* the test's elements split in two: numeric (part 1) and analytic (part 2) */
typedef struct {
  springs *num, *ana;
} split_ctx;

static void split_numeric(void *ctx, const hg_model *m, const hg_data *d, const double *q,
                          const double *v, double *fext, double *tau) {
  spring_forces(((split_ctx *)ctx)->num, m, d, q, v, fext, tau);
}

static void split_analytic(void *ctx, const hg_model *m, const hg_data *d, const double *q,
                           const double *v, double *fext, double *tau) {
  spring_forces(((split_ctx *)ctx)->ana, m, d, q, v, fext, tau);
}

static void split_jac(void *ctx, const hg_model *m, const hg_data *d, const double *q,
                      const double *v, double *dQ_dq, double *dQ_dv) {
  spring_jac(((split_ctx *)ctx)->ana, m, d, q, v, dQ_dq, dQ_dv);
}

/* the test's elements, every derivative by central differences */
static const hg_force_elements *numeric(springs *sp) {
  static hg_force_elements fe;
  fe = (hg_force_elements){spring_forces, NULL, NULL, sp};
  return &fe;
}

static hg_inertia rod_inertia(double m, double l, const double c[3]) {
  /* a slender rod of length l along the axis of c (its centre of mass at c) */
  hg_inertia G;
  double I = m * l * l / 12, Ic[6] = {I, I, I, 0, 0, 0};
  for (int k = 0; k < 3; k++)
    if (c[k] != 0) Ic[k] = 1e-6 * m; /* negligible inertia about its own axis */
  hg_inertia_from_com(m, c, Ic, &G, NULL, 0);
  return G;
}

static const double X[3] = {1, 0, 0}, Y[3] = {0, 1, 0}, Z[3] = {0, 0, 1};

static hg_model *compile(hg_builder *b) {
  hg_error err;
  hg_model *m = hg_builder_compile(b, &err);
  if (!m) fprintf(stderr, "%s\n", err.msg);
  assert_non_null(m);
  hg_builder_free(b);
  return m;
}

typedef struct {
  hg_model *m;
  hg_data *d;
  hg_deriv *w;
  hg_linear *L;
  double *q, *v;
} sys;

static sys make_sys(hg_model *m) {
  sys s = {m, hg_data_new(m), hg_deriv_new(m), hg_linear_new(m), NULL, NULL};
  s.q = calloc((size_t)m->nq + 1, sizeof(double));
  s.v = calloc((size_t)m->nv + 1, sizeof(double));
  hg_model_neutral(m, s.q);
  return s;
}

static void free_sys(sys *s) {
  hg_linear_free(s->L);
  hg_deriv_free(s->w);
  hg_data_free(s->d);
  hg_model_free(s->m);
  free(s->q);
  free(s->v);
}

/* the undamped problem's w^2 (ascending) of a linearized system */
static void sym_modes(sys *s, double *w2) {
  int nf = s->L->nf;
  double *Phi = malloc(sizeof(double) * ((size_t)nf * nf + 1));
  assert_int_equal(hg_modes_sym(nf, s->L->K, s->L->M, w2, Phi), 0);
  free(Phi);
}

/* ---- a pendulum: w^2 = m g l / I_o; with a damper, lambda = -c / 2 I_o +- i w_d ---- */
static void pendulum(void **state) {
  (void)state;
  const double m = 2, l = 0.7, g = 9.81, c = 0.3;
  double com[3] = {0, 0, -l};
  hg_builder *b = hg_builder_new();
  hg_inertia G = rod_inertia(m, 2 * l, com);
  hg_test_add_body(b, "bob", "world", HG_JOINT_REVOLUTE, Y, NULL, 0, NULL, &G);
  sys s = make_sys(compile(b));
  double Io = G.I[1], w2 = m * g * l / Io, w2s[1];
  springs sp = {.k = 0, .c = c};
  assert_int_equal(hg_linearize(s.m, s.d, s.w, s.L, s.q, s.v, NULL, numeric(&sp), 0), 0);
  sym_modes(&s, w2s);
  double re[2], im[2], V[8];
  assert_int_equal(hg_modes_eig(2, s.L->A, re, im, V), 0);
  double sigma = -c / (2 * Io), wd = sqrt(w2 - sigma * sigma);
  printf("# pendulum: w^2 %.15g (closed form %.15g); lambda %.15g +- %.15gi (closed form %.15g +- "
         "%.15gi)\n", w2s[0], w2, re[0], im[0], sigma, wd);
  /* the element's damping comes by central differences of a linear function (exact up to
   * rounding, 1e-16 / 1e-6 ~ 1e-10); everything else is analytic: 1e-9 relative */
  assert_true(fabs(w2s[0] - w2) < 1e-9 * w2);
  assert_true(fabs(re[0] - sigma) < 1e-9 * sqrt(w2) && fabs(im[0] - wd) < 1e-9 * sqrt(w2));
  assert_true(fabs(re[1] - sigma) < 1e-9 * sqrt(w2) && fabs(im[1] + wd) < 1e-9 * sqrt(w2));
  /* B = [0; 1 / I_o] */
  assert_true(fabs(s.L->B[0]) == 0 && fabs(s.L->B[1] - 1 / Io) < 1e-12 / Io);
  free_sys(&s);
}

/* ---- a fixed-free chain of n equal masses and springs (prismatic joints in series):
 * w_r = 2 sqrt(k/m) sin((2r - 1) pi / (2 (2n + 1))) ---- */
static void spring_chain(void **state) {
  (void)state;
  const int n = 8;
  const double m = 1.5, k = 40;
  hg_builder *b = hg_builder_new();
  double com[3] = {0, 0, 0};
  hg_inertia G;
  double Ic[6] = {0.01, 0.01, 0.01, 0, 0, 0};
  hg_inertia_from_com(m, com, Ic, &G, NULL, 0);
  char name[16], parent[16];
  for (int i = 0; i < n; i++) {
    snprintf(name, sizeof name, "m%d", i);
    snprintf(parent, sizeof parent, "m%d", i - 1);
    hg_test_add_body(b, name, i ? parent : "world", HG_JOINT_PRISMATIC, X, NULL, 0, NULL, &G);
  }
  sys s = make_sys(compile(b));
  springs sp = {.k = k};
  assert_int_equal(hg_linearize(s.m, s.d, s.w, s.L, s.q, s.v, NULL, numeric(&sp), 0), 0);
  double w2[8], worst = 0;
  sym_modes(&s, w2);
  for (int r = 1; r <= n; r++) {
    double w = 2 * sqrt(k / m) * sin((2 * r - 1) * 3.14159265358979323846 / (2 * (2 * n + 1)));
    double e = fabs(sqrt(w2[r - 1]) - w) / w;
    if (e > worst) worst = e;
  }
  printf("# spring chain (%d masses): worst relative error of the frequencies %.3g\n", n, worst);
  /* the stiffness comes by central differences of a linear function: rounding ~1e-10 */
  assert_true(worst < 1e-8);
  free_sys(&s);
}

/* ---- free-free: two equal rods joined end to end by a torsional spring, floating: six rigid
 * modes (w^2 = 0) and the bending mode w^2 = 2 k / I_c (each rod turns about its own centre of
 * mass, which stays put) ---- */
static void free_free_links(void **state) {
  (void)state;
  const double m = 3, l = 1.2, k = 25;
  double c1[3] = {-l / 2, 0, 0}, c2[3] = {l / 2, 0, 0};
  hg_builder *b = hg_builder_new();
  hg_inertia G1 = rod_inertia(m, l, c1), G2 = rod_inertia(m, l, c2);
  hg_test_add_body(b, "left", "world", HG_JOINT_FREE, NULL, NULL, 0, NULL, &G1);
  hg_test_add_body(b, "right", "left", HG_JOINT_REVOLUTE, Z, NULL, 0, NULL, &G2);
  sys s = make_sys(compile(b));
  for (int r = 0; r < 3; r++) s.m->gravity[r] = 0;
  springs sp = {.k = k, .no_free = 1}; /* on the revolute joint only */
  double w2[7];
  assert_int_equal(hg_linearize(s.m, s.d, s.w, s.L, s.q, s.v, NULL, numeric(&sp), 0), 0);
  sym_modes(&s, w2);
  double Ic = m * l * l / 12, want = 2 * k / Ic;
  printf("# free-free links: rigid w^2 up to %.3g, bending w^2 %.15g (closed form %.15g)\n",
         fabs(w2[5]) > fabs(w2[0]) ? fabs(w2[5]) : fabs(w2[0]), w2[6], want);
  /* rigid modes: exact zeros up to rounding of K = 0 (M entries of order 1) */
  for (int r = 0; r < 6; r++) assert_true(fabs(w2[r]) < 1e-9 * want);
  assert_true(fabs(w2[6] - want) < 1e-9 * want);
  free_sys(&s);
}

/* ---- a spacecraft: a bus on a free joint with two panels on hinges with torsional springs.
 * Locked, the panels leave six rigid modes; free, two elastic modes above the clamped-panel
 * frequency sqrt(k / I_hinge), which they approach as the bus grows heavy ---- */
static hg_model *spacecraft(double bus_mass) {
  hg_builder *b = hg_builder_new();
  double c0[3] = {0, 0, 0}, cp[3] = {0.75, 0, 0}, cn[3] = {-0.75, 0, 0};
  double s = bus_mass / 1000, Ib[6] = {400 * s, 300 * s, 350 * s, 0, 0, 0};
  hg_inertia Gb, Gp = rod_inertia(20, 1.5, cp), Gn = rod_inertia(20, 1.5, cn);
  hg_inertia_from_com(bus_mass, c0, Ib, &Gb, NULL, 0);
  hg_se3 op, on;
  hg_se3_identity(&op);
  hg_se3_identity(&on);
  op.p[0] = 1, on.p[0] = -1;
  hg_test_add_body(b, "bus", "world", HG_JOINT_FREE, NULL, NULL, 0, NULL, &Gb);
  hg_test_add_body(b, "panel_p", "bus", HG_JOINT_REVOLUTE, Z, NULL, 0, &op, &Gp);
  hg_test_add_body(b, "panel_n", "bus", HG_JOINT_REVOLUTE, Z, NULL, 0, &on, &Gn);
  hg_model *m = compile(b);
  for (int r = 0; r < 3; r++) m->gravity[r] = 0;
  return m;
}

static void spacecraft_modes(void **state) {
  (void)state;
  const double k = 50, Ih = 20 * 1.5 * 1.5 / 3; /* rod about its end */
  springs sp = {.k = k, .no_free = 1};
  double w2[8], clamped = k / Ih;
  /* locked panels: one rigid body, six rigid modes, nothing else */
  sys s = make_sys(spacecraft(1000));
  s.d->mode[2] = s.d->mode[3] = HG_MODE_LOCKED;
  assert_int_equal(hg_linearize(s.m, s.d, s.w, s.L, s.q, s.v, NULL, numeric(&sp), 0), 0);
  assert_int_equal(s.L->nf, 6);
  sym_modes(&s, w2);
  for (int r = 0; r < 6; r++) assert_true(fabs(w2[r]) < 1e-9 * clamped);
  /* free panels: 6 rigid + 2 elastic, above the clamped frequency */
  s.d->mode[2] = s.d->mode[3] = HG_MODE_FREE;
  assert_int_equal(hg_linearize(s.m, s.d, s.w, s.L, s.q, s.v, NULL, numeric(&sp), 0), 0);
  assert_int_equal(s.L->nf, 8);
  sym_modes(&s, w2);
  printf("# spacecraft, panels free: w^2 %.6g %.6g (clamped %.6g)\n", w2[6], w2[7], clamped);
  for (int r = 0; r < 6; r++) assert_true(fabs(w2[r]) < 1e-9 * clamped);
  assert_true(w2[6] > clamped && w2[7] > clamped);
  free_sys(&s);
  /* a bus 1e6 times heavier: the panels see a clamped root, to the ratio of the panels' inertia
   * about the bus centre (~1e2 kg m^2) to the bus's (~3e8): measured 3e-7, bound 1e-6 */
  s = make_sys(spacecraft(1e9));
  assert_int_equal(hg_linearize(s.m, s.d, s.w, s.L, s.q, s.v, NULL, numeric(&sp), 0), 0);
  sym_modes(&s, w2);
  printf("# spacecraft, heavy bus: w^2 %.12g %.12g (clamped %.12g)\n", w2[6], w2[7], clamped);
  assert_true(fabs(w2[6] - clamped) < 1e-6 * clamped && fabs(w2[7] - clamped) < 1e-6 * clamped);
  free_sys(&s);
}

/* ---- A against central differences of the hybrid right-hand side on the group, on random
 * trees with random modes, springs, dampers and state-dependent body wrenches, away from
 * equilibrium (the drift block included) ---- */
static void rhs(sys *s, springs *sp, const double *q, const double *v, const double *qdd_p,
                double *y) {
  const hg_model *m = s->m;
  int nv = m->nv;
  double *fext = calloc(6 * (size_t)m->nbody, sizeof(double)), *tau = calloc((size_t)nv + 1, sizeof(double));
  double *qdd = calloc((size_t)nv + 1, sizeof(double));
  hg_kinematics(m, s->d, q, v);
  spring_forces(sp, m, s->d, q, v, fext, tau);
  for (int k = 0; k < nv; k++) {
    int fr = s->d->mode[m->dof_body[k]] == HG_MODE_FREE;
    qdd[k] = fr ? 0 : qdd_p[k];
    if (!fr) tau[k] = 0;
  }
  assert_int_equal(hg_hybrid(m, s->d, q, v, qdd, tau, fext), 0);
  memcpy(y, qdd, (size_t)nv * sizeof(double));
  free(fext); free(tau); free(qdd);
}

/* the same linearization with the joint springs analytic (but free joints') and the rest by
 * central differences, against all of it by central differences; and the sprung pendulum with
 * its spring analytic, against the closed form to rounding */
static void analytic_elements(void **state) {
  (void)state;
  hg_rng r;
  hg_rng_seed(&r, 33);
  double worst = 0;
  for (int t = 0; t < 40; t++) {
    sys s = make_sys(hg_test_random_tree(&r, 2 + t % 8, t % 2));
    const hg_model *m = s.m;
    springs all = {.k = hg_rng_range(&r, 1, 5), .c = hg_rng_range(&r, 0, 1),
                   .drag = hg_rng_range(&r, 0, 0.5)};
    springs num = all, ana = all;
    num.part = 1, ana.part = 2;
    hg_model_random(m, &r, s.q);
    hg_test_random_vector(&r, s.v, m->nv, -1, 1);
    for (int i = 1; i < m->nbody; i++)
      s.d->mode[i] = hg_rng_uniform(&r) < 0.7 ? HG_MODE_FREE : HG_MODE_PRESCRIBED;
    assert_int_equal(hg_linearize(m, s.d, s.w, s.L, s.q, s.v, NULL, numeric(&all), 0), 0);
    int nx = 2 * s.L->nf;
    double *Acd = malloc(sizeof(double) * ((size_t)nx * nx + 1));
    memcpy(Acd, s.L->A, sizeof(double) * (size_t)nx * nx);
    /* one context for both parts: the split struct's ctx, with part chosen per call */
    split_ctx sc = {&num, &ana};
    hg_force_elements fe = {split_numeric, split_analytic, split_jac, &sc};
    assert_int_equal(hg_linearize(m, s.d, s.w, s.L, s.q, s.v, NULL, &fe, 0), 0);
    double e = hg_test_rel_err(s.L->A, Acd, nx * nx);
    if (!(e <= worst)) worst = e;
    free(Acd);
    free_sys(&s);
  }
  printf("# A with analytic joint springs vs all by central differences: worst relative error "
         "%.3g\n", worst);
  /* central differences of h = 1e-6: rounding ~1e-10 relative */
  assert_true(worst < 1e-8);

  /* the sprung pendulum: with the spring and damper analytic, A is the closed form to rounding */
  const double m = 2, l = 0.7, g = 9.81, k = 25, th = 0.6, c = 0.4;
  double com[3] = {0, 0, -l};
  hg_builder *b = hg_builder_new();
  hg_inertia G = rod_inertia(m, 2 * l, com);
  hg_test_add_body(b, "bob", "world", HG_JOINT_REVOLUTE, Y, NULL, 0, NULL, &G);
  sys s = make_sys(compile(b));
  s.q[0] = th;
  springs none = {.part = 1}, sp = {.k = k, .c = c, .part = 2};
  split_ctx sc = {&none, &sp};
  hg_force_elements fe = {split_numeric, split_analytic, split_jac, &sc};
  assert_int_equal(hg_linearize(s.m, s.d, s.w, s.L, s.q, s.v, NULL, &fe, 0), 0);
  double Io = G.I[1], a21 = -(k + m * g * l * cos(th)) / Io, a22 = -c / Io;
  printf("# sprung pendulum, analytic spring: A21 %.17g (closed form %.17g), A22 %.17g (%.17g)\n",
         s.L->A[2], a21, s.L->A[3], a22);
  assert_true(fabs(s.L->A[2] - a21) < 1e-13 * fabs(a21) && fabs(s.L->A[3] - a22) < 1e-13 * fabs(a22));
  free_sys(&s);
}

static void state_space_matches_differences(void **state) {
  (void)state;
  hg_rng r;
  hg_rng_seed(&r, 21);
  double worst = 0;
  for (int t = 0; t < 60; t++) {
    sys s = make_sys(hg_test_random_tree(&r, 2 + t % 8, t % 2));
    const hg_model *m = s.m;
    int nv = m->nv, nq = m->nq;
    springs sp = {.k = hg_rng_range(&r, 1, 5), .c = hg_rng_range(&r, 0, 1),
                  .drag = hg_rng_range(&r, 0, 0.5)};
    double *qdd = calloc((size_t)nv + 1, sizeof(double));
    hg_model_random(m, &r, s.q);
    hg_test_random_vector(&r, s.v, nv, -1, 1);
    hg_test_random_vector(&r, qdd, nv, -1, 1);
    for (int i = 1; i < m->nbody; i++) {
      s.d->mode[i] = hg_rng_uniform(&r) < 0.7 ? HG_MODE_FREE : HG_MODE_PRESCRIBED;
    }
    assert_int_equal(hg_linearize(m, s.d, s.w, s.L, s.q, s.v, qdd, numeric(&sp), 0), 0);
    int nf = s.L->nf, nx = 2 * nf;
    /* the state dx = (q (-) q0, v - v0) at F; prescribed DoFs follow their profile, so they move
     * with q0(t) and v0(t): central differences of d(dx)/dt = ((q (-) q0)', vdot - vdot0) along
     * each state direction, with the time derivative of q (-) q0 taken on the group */
    double *qp = calloc((size_t)nq + 1, sizeof(double)), *vp = calloc((size_t)nv + 1, sizeof(double));
    double *yp = calloc((size_t)nv + 1, sizeof(double)), *ym = calloc((size_t)nv + 1, sizeof(double));
    double *dx = calloc((size_t)nv + 1, sizeof(double));
    double *Acd = calloc((size_t)nx * nx + 1, sizeof(double));
    const double h = 1e-5;
    for (int c = 0; c < nx; c++) {
      double *dq[2], *dd[2];
      for (int sg = 0; sg < 2; sg++) {
        double e = sg ? -h : h;
        memset(dx, 0, sizeof(double) * (size_t)nv);
        memcpy(vp, s.v, sizeof(double) * (size_t)nv);
        if (c < nf) dx[s.L->dof[c]] = 1;
        else vp[s.L->dof[c - nf]] += e;
        hg_model_integrate(m, s.q, dx, c < nf ? e : 0, qp);
        rhs(&s, &sp, qp, vp, qdd, sg ? ym : yp);
        /* d/dt (q (-) q0) at t = 0 for q = q0 exp(dx), q0 moving with v0: small steps in time */
        dq[sg] = calloc((size_t)nv + 1, sizeof(double));
        dd[sg] = sg ? ym : yp;
        const double dt = 1e-6;
        double *q1 = calloc((size_t)nq + 1, sizeof(double)), *q0b = calloc((size_t)nq + 1, sizeof(double));
        double *a = calloc((size_t)nv + 1, sizeof(double)), *bm = calloc((size_t)nv + 1, sizeof(double));
        hg_model_integrate(m, qp, vp, dt, q1);
        hg_model_integrate(m, s.q, s.v, dt, q0b);
        hg_model_difference(m, q0b, q1, a);
        hg_model_integrate(m, qp, vp, -dt, q1);
        hg_model_integrate(m, s.q, s.v, -dt, q0b);
        hg_model_difference(m, q0b, q1, bm);
        for (int k = 0; k < nv; k++) dq[sg][k] = (a[k] - bm[k]) / (2 * dt);
        free(q1); free(q0b); free(a); free(bm);
      }
      for (int rr = 0; rr < nf; rr++) {
        int k = s.L->dof[rr];
        Acd[(size_t)rr * nx + c] = (dq[0][k] - dq[1][k]) / (2 * h);
        Acd[(size_t)(nf + rr) * nx + c] = (dd[0][k] - dd[1][k]) / (2 * h);
      }
      free(dq[0]); free(dq[1]);
    }
    double e = hg_test_rel_err(s.L->A, Acd, nx * nx);
    if (!(e <= worst)) worst = e;
    /* the drift: (v0, vdot0) at the free DoFs, the same arithmetic as the right-hand side */
    rhs(&s, &sp, s.q, s.v, qdd, yp);
    for (int a = 0; a < nf; a++) {
      assert_true(s.L->xdot0[a] == s.v[s.L->dof[a]]);
      assert_true(fabs(s.L->xdot0[nf + a] - yp[s.L->dof[a]]) <= 1e-12 * (1 + fabs(yp[s.L->dof[a]])));
    }
    free(qp); free(vp); free(yp); free(ym); free(dx); free(Acd); free(qdd);
    free_sys(&s);
  }
  printf("# A vs central differences of the hybrid right-hand side: worst relative error %.3g\n",
         worst);
  /* nested central differences (h = 1e-5 in the state, dt = 1e-6 in time): truncation ~1e-10,
   * rounding ~1e-16 / (h dt) ~ 1e-5 times |q| in the kinematic rows: 1e-5 relative bounds both
   * with a margin, and any wrong term (a missing drift, a missing element derivative) is O(1) */
  assert_true(worst < 1e-5);
}

/* ---- equilibria ---- */

/* a pendulum with a torsional spring whose rest angle th0 is off the vertical: k (th - th0) =
 * -m g l sin(th) (k > m g l: one root), and about it w^2 = (k + m g l cos th) / I_o */
static void equilibrium_pendulum(void **state) {
  (void)state;
  const double m = 2, l = 0.7, g = 9.81, k = 25, th0 = 1.1, c = 0.4;
  double com[3] = {0, 0, -l};
  hg_builder *b = hg_builder_new();
  hg_inertia G = rod_inertia(m, 2 * l, com);
  hg_test_add_body(b, "bob", "world", HG_JOINT_REVOLUTE, Y, NULL, 0, NULL, &G);
  sys s = make_sys(compile(b));
  double Io = G.I[1], mgl = m * g * l, th = th0;
  /* the closed form's root by a scalar Newton iteration, to rounding */
  for (int it = 0; it < 50; it++) th -= (k * (th - th0) + mgl * sin(th)) / (k + mgl * cos(th));
  springs sp = {.k = k, .c = c, .rest = th0};
  hg_equilibrium_info eq;
  assert_int_equal(hg_equilibrium(s.m, s.d, s.w, s.L, s.q, numeric(&sp), 0, 1e-13, 0, &eq),
                   0);
  printf("# equilibrium pendulum: theta %.17g (closed form %.17g), %d iterations, residual %.3g\n",
         s.q[0], th, eq.iterations, eq.residual);
  /* Newton converges quadratically: at a residual of 1e-13 rad/s^2 the angle is within
   * 1e-13 / (k + m g l cos th) * I_o of the root */
  assert_true(eq.converged && eq.rank == 1 && eq.iterations <= 8);
  assert_true(fabs(s.q[0] - th) < 1e-12);
  /* A there: lambda = -c / 2 I_o +- i sqrt(w^2 - sigma^2) */
  assert_int_equal(hg_linearize(s.m, s.d, s.w, s.L, s.q, s.v, NULL, numeric(&sp), 0), 0);
  double re[2], im[2], V[8], w2 = (k + mgl * cos(th)) / Io, sigma = -c / (2 * Io);
  double wd = sqrt(w2 - sigma * sigma);
  assert_int_equal(hg_modes_eig(2, s.L->A, re, im, V), 0);
  printf("# equilibrium pendulum: lambda %.15g +- %.15gi (closed form %.15g +- %.15gi)\n", re[0],
         im[0], sigma, wd);
  /* the spring and damper enter A by central differences of linear functions: 1e-9 */
  assert_true(fabs(re[0] - sigma) < 1e-9 * wd && fabs(im[0] - wd) < 1e-9 * wd);
  assert_true(fabs(re[1] - sigma) < 1e-9 * wd && fabs(im[1] + wd) < 1e-9 * wd);
  assert_true(fabs(s.L->xdot0[1]) < 1e-13);
  free_sys(&s);
}

/* U = gravity's potential plus the springs' 1/2 k (q - rest)^2 (two revolute joints) */
static double chain_potential(sys *s, const springs *sp, const double *q) {
  double T, U;
  hg_energy(s->m, s->d, q, s->v, &T, &U);
  for (int k = 0; k < s->m->nv; k++) U += 0.5 * sp->k * (q[k] - sp->rest) * (q[k] - sp->rest);
  return U;
}

/* a two-link chain with springs under gravity: at the equilibrium the gradient of the potential
 * vanishes and K is its Hessian, both by central differences of the energy (independent of the
 * dynamics and of their derivatives) */
static void equilibrium_chain(void **state) {
  (void)state;
  const double m = 1.5, l = 0.8;
  double c1[3] = {0, 0, -l / 2};
  hg_se3 off;
  hg_se3_identity(&off);
  off.p[2] = -l;
  hg_builder *b = hg_builder_new();
  hg_inertia G = rod_inertia(m, l, c1);
  hg_test_add_body(b, "upper", "world", HG_JOINT_REVOLUTE, Y, NULL, 0, NULL, &G);
  hg_test_add_body(b, "lower", "upper", HG_JOINT_REVOLUTE, Y, NULL, 0, &off, &G);
  sys s = make_sys(compile(b));
  springs sp = {.k = 12, .c = 0.1, .rest = 0.9};
  hg_equilibrium_info eq;
  assert_int_equal(hg_equilibrium(s.m, s.d, s.w, s.L, s.q, numeric(&sp), 0, 1e-12, 0, &eq),
                   0);
  double q[2] = {s.q[0], s.q[1]}, grad[2], H[4], hg = 1e-5, hh = 1e-4;
  for (int a = 0; a < 2; a++) {
    double qp[2] = {q[0], q[1]}, qm[2] = {q[0], q[1]};
    qp[a] += hg, qm[a] -= hg;
    grad[a] = (chain_potential(&s, &sp, qp) - chain_potential(&s, &sp, qm)) / (2 * hg);
    for (int c = 0; c < 2; c++) {
      double x[4][2];
      for (int n = 0; n < 4; n++) {
        x[n][0] = q[0], x[n][1] = q[1];
        x[n][a] += n < 2 ? hh : -hh;
        x[n][c] += n % 2 ? -hh : hh;
      }
      H[2 * a + c] = (chain_potential(&s, &sp, x[0]) - chain_potential(&s, &sp, x[1]) -
                      chain_potential(&s, &sp, x[2]) + chain_potential(&s, &sp, x[3])) /
                     (4 * hh * hh);
    }
  }
  assert_int_equal(hg_linearize(s.m, s.d, s.w, s.L, s.q, s.v, NULL, numeric(&sp), 0), 0);
  double e = hg_test_rel_err(s.L->K, H, 4);
  printf("# equilibrium chain: q (%.12g, %.12g), %d iterations, residual %.3g; |grad U| %.3g; "
         "K vs the energy's Hessian %.3g\n", q[0], q[1], eq.iterations, eq.residual,
         fabs(grad[0]) + fabs(grad[1]), e);
  assert_true(eq.converged && eq.rank == 2);
  /* the gradient: truncation ~hg^2 U''' ~ 1e-9, rounding ~1e-16 U / hg ~ 1e-11 */
  assert_true(fabs(grad[0]) < 1e-8 && fabs(grad[1]) < 1e-8);
  /* the Hessian: truncation ~hh^2 ~ 1e-8, rounding ~1e-16 U / hh^2 ~ 1e-8 (U ~ 10) */
  assert_true(e < 1e-6);
  free_sys(&s);
}

/* neutral directions: a floating spacecraft whose panels start bent converges, the six rigid
 * directions left alone (rank 2 of 8); a free body in gravity has nothing to balance it and
 * fails, saying so */
static void equilibrium_neutral(void **state) {
  (void)state;
  springs sp = {.k = 50, .no_free = 1};
  hg_equilibrium_info eq;
  sys s = make_sys(spacecraft(1000));
  s.q[7] = 0.4, s.q[8] = -0.3;
  double bus[7];
  memcpy(bus, s.q, sizeof bus);
  assert_int_equal(hg_equilibrium(s.m, s.d, s.w, s.L, s.q, numeric(&sp), 0, 0, 0, &eq), 0);
  printf("# equilibrium spacecraft: rank %d of %d, %d iterations, panels %.3g %.3g\n", eq.rank,
         eq.nf, eq.iterations, s.q[7], s.q[8]);
  assert_int_equal(eq.rank, 2);
  assert_true(fabs(s.q[7]) < 1e-9 && fabs(s.q[8]) < 1e-9);
  /* nothing depends on the bus's pose: its Jacobian columns are zero, and the minimum-norm
   * steps leave it where it was (to the SVD's rounding) */
  double moved = 0;
  for (int k = 0; k < 7; k++) moved = fmax(moved, fabs(s.q[k] - bus[k]));
  printf("# equilibrium spacecraft: the bus moved by %.3g\n", moved);
  assert_true(moved < 1e-12);
  free_sys(&s);

  double c0[3] = {0, 0, 0}, Ic[6] = {1, 2, 3, 0, 0, 0};
  hg_inertia G;
  hg_inertia_from_com(4, c0, Ic, &G, NULL, 0);
  hg_builder *b = hg_builder_new();
  hg_test_add_body(b, "box", "world", HG_JOINT_FREE, NULL, NULL, 0, NULL, &G);
  s = make_sys(compile(b));
  springs none = {0};
  assert_int_equal(hg_equilibrium(s.m, s.d, s.w, s.L, s.q, numeric(&none), 0, 0, 0, &eq),
                   -1);
  printf("# equilibrium of a falling box: %s\n", s.d->err);
  /* its body-frame acceleration R^T g turns with it (rank 2: the tilts), but no tilt shortens
   * it: the least-squares step is zero and no step lowers the residual */
  assert_true(!eq.converged && eq.rank == 2 && eq.iterations == 1);
  assert_true(fabs(eq.residual - 9.81) < 1e-12);
  assert_non_null(strstr(s.d->err, "rank 2 of 6"));
  assert_non_null(strstr(s.d->err, "neutral"));
  free_sys(&s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(pendulum),
      cmocka_unit_test(spring_chain),
      cmocka_unit_test(free_free_links),
      cmocka_unit_test(spacecraft_modes),
      cmocka_unit_test(state_space_matches_differences),
      cmocka_unit_test(analytic_elements),
      cmocka_unit_test(equilibrium_pendulum),
      cmocka_unit_test(equilibrium_chain),
      cmocka_unit_test(equilibrium_neutral),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
