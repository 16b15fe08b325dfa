/* test_forces.c: force elements (forces.h) against hand computations on single bodies at known
 * poses and twists, world-frame equivalents of the body wrenches, equal and opposite spring
 * forces, the compression-only clamp, and energy consistency: the power of the applied wrenches
 * equals -dU/dt (central differences along q(t) = q (+) t v) for conservative elements and
 * hg_forces_power_nc for dissipative ones. Scenes are built in code (no YAML). */
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
#include "forces.h"
#include "models.h"

#define NMAX_FORCE 16
#define NMAX_MARKER 8
#define S2 0.70710678118654752440 /* sqrt(1/2): Rz(90 deg) = (S2, 0, 0, S2) */

/* ---- fixtures ---- */

/* a scene made in code, with room for markers and force elements */
typedef struct tscene {
  hg_scene s;
  hg_marker marker[NMAX_MARKER];
  hg_force_spec force[NMAX_FORCE];
} tscene;

/* a model with its workspace and state */
typedef struct tmodel {
  hg_model *m;
  hg_data *d;
  double *q, *v, *fext, *tau;
} tmodel;

/* adds a body with a joint of the given type (axis for 1-DoF joints) */
static void add_body(hg_builder *b, const char *name, const char *parent, hg_joint_type type,
                     const double axis[3], const hg_se3 *offset, const hg_inertia *G) {
  hg_test_add_body(b, name, parent, type, axis, NULL, 0, offset, G);
}

/* an inertia from mass, centre of mass and a diagonal I_c */
static hg_inertia inertia(double m, double cx, double cy, double cz, double ixx, double iyy,
                          double izz) {
  hg_inertia G;
  double c[3] = {cx, cy, cz}, Ic[6] = {ixx, iyy, izz, 0, 0, 0};
  assert_int_equal(hg_inertia_from_com(m, c, Ic, &G, NULL, 0), 0);
  return G;
}

/* an empty scene over builder b */
static void scene_init(tscene *t, hg_builder *b) {
  memset(t, 0, sizeof *t);
  t->s.path = "test.yaml";
  t->s.builder = b;
  t->s.marker = t->marker;
  t->s.force = t->force;
}

/* adds a marker at point (x, y, z) of a body */
static void add_marker(tscene *t, const char *name, const char *body, double x, double y,
                       double z) {
  hg_marker *mk = &t->marker[t->s.nmarker++];
  mk->name = (char *)name;
  mk->body = (char *)body;
  hg_se3_identity(&mk->pose);
  mk->pose.p[0] = x;
  mk->pose.p[1] = y;
  mk->pose.p[2] = z;
  mk->src = (hg_src){"test.yaml", 1, 1};
}

/* adds an enabled force element of the given type, from line 'line' of test.yaml */
static hg_force_spec *add_force(tscene *t, const char *name, hg_force_type type, int line) {
  hg_force_spec *sp = &t->force[t->s.nforce++];
  sp->name = (char *)name;
  sp->type = type;
  sp->enabled = 1;
  sp->src = (hg_src){"test.yaml", line, 5};
  sp->t_off = INFINITY;
  return sp;
}

/* compiles builder b (which stays the scene's) and allocates the state */
static tmodel model_make(hg_builder *b) {
  tmodel tm;
  hg_error err;
  tm.m = hg_builder_compile(b, &err);
  assert_non_null(tm.m);
  tm.d = hg_data_new(tm.m);
  tm.q = calloc((size_t)tm.m->nq, sizeof(double));
  tm.v = calloc((size_t)tm.m->nv + 1, sizeof(double));
  tm.fext = calloc((size_t)tm.m->nbody * 6, sizeof(double));
  tm.tau = calloc((size_t)tm.m->nv + 1, sizeof(double));
  hg_model_neutral(tm.m, tm.q);
  return tm;
}

static void model_free(tmodel *tm) {
  hg_data_free(tm->d);
  hg_model_free(tm->m);
  free(tm->q); free(tm->v); free(tm->fext); free(tm->tau);
}

/* sets the free joint of a root body: position, quaternion, body twist */
static void set_free(tmodel *tm, const char *body, const double p[3], const double quat[4],
                     const double twist[6]) {
  int i = hg_model_body(tm->m, body);
  assert_true(i > 0 && tm->m->jnt[i].type == HG_JOINT_FREE);
  memcpy(tm->q + tm->m->q_adr[i], p, 3 * sizeof(double));
  memcpy(tm->q + tm->m->q_adr[i] + 3, quat, 4 * sizeof(double));
  memcpy(tm->v + tm->m->v_adr[i], twist, 6 * sizeof(double));
}

/* kinematics, then fext and tau of the enabled elements at time t */
static void apply(const hg_forces *f, tmodel *tm, double t) {
  memset(tm->fext, 0, (size_t)tm->m->nbody * 6 * sizeof(double));
  memset(tm->tau, 0, (size_t)(tm->m->nv + 1) * sizeof(double));
  hg_kinematics(tm->m, tm->d, tm->q, tm->v);
  hg_forces_apply(f, tm->m, tm->d, t, tm->q, tm->v, tm->fext, tm->tau);
}

/* the wrench on body 'name' about the world origin in world axes (from its body-frame fext) */
static void world_wrench(const tmodel *tm, const char *name, double W[6]) {
  int i = hg_model_body(tm->m, name);
  assert_true(i > 0);
  hg_coAd_inv(&tm->d->T_world[i], tm->fext + 6 * i, W);
}

/* power of the applied wrenches and joint forces: sum V_body . fext + v . tau */
static double wrench_power(const tmodel *tm) {
  double P = 0, V[6];
  for (int i = 1; i < tm->m->nbody; i++) {
    hg_body_twist(tm->m, tm->d, i, V);
    P += hg_dot6(V, tm->fext + 6 * i);
  }
  for (int k = 0; k < tm->m->nv; k++) P += tm->v[k] * tm->tau[k];
  return P;
}

/* potential at q (+) h v */
static double potential_along(const hg_forces *f, tmodel *tm, double h, double *qs) {
  hg_model_integrate(tm->m, tm->q, tm->v, h, qs);
  hg_kinematics(tm->m, tm->d, qs, NULL);
  return hg_forces_potential(f, tm->m, tm->d, qs);
}

/* -dU/dt along q(t) = q (+) t v by central differences with step h */
static double potential_rate(const hg_forces *f, tmodel *tm, double h) {
  double *qs = calloc((size_t)tm->m->nq, sizeof(double));
  double up = potential_along(f, tm, h, qs), um = potential_along(f, tm, -h, qs);
  free(qs);
  return (up - um) / (2 * h);
}

static void assert_vec_near(const double *a, const double *b, int n, double tol) {
  for (int k = 0; k < n; k++) {
    if (fabs(a[k] - b[k]) > tol) {
      printf("# entry %d: %.17g vs %.17g\n", k, a[k], b[k]);
      fail();
    }
  }
}

static hg_forces *compile_ok(const tscene *t, const tmodel *tm) {
  hg_error err = {{0}};
  hg_forces *f = hg_forces_new(&t->s, tm->m, &err);
  if (!f) printf("# %s\n", err.msg);
  assert_non_null(f);
  return f;
}

/* ---- central gravity ---- */

/* Body a: m = 2, com c = (0, -1, 0), I_c = diag(1, 2, 3) (body axes), at p = (2, 4, 0) rotated
 * by Rz(90): R c = (1, 0, 0), so c_w = (3, 4, 0); world I_c = diag(2, 1, 3). mu = 3125, centre 0.
 *   r = (3, 4, 0), |r| = 5, I r = (6, 4, 0), A = tr I_c = 6, B = r.I r = 34
 *   monopole  -mu m r / r^3 = -25 * 2 * (3, 4, 0) = (-150, -200, 0)
 *   quadrupole -(3 mu / 2 r^5)((A - 5 B / r^2) r + 2 I r) = -1.5 ((-0.8)(3, 4, 0) + (12, 8, 0))
 *            = -1.5 (9.6, 4.8, 0) = (-14.4, -7.2, 0)           => F = (-164.4, -207.2, 0)
 *   torque about c_w: 3 mu / r^5 (r x I r) = 3 (0, 0, 3 * 4 - 4 * 6) = (0, 0, -36)
 *   moment about the origin: c_w x F + tau = (0, 0, 3 (-207.2) - 4 (-164.4)) - 36 = 0
 *   body frame (R^T = Rz(-90): (x, y) -> (y, -x)): f = (-207.2, 164.4, 0), tau = (0, 0, -36),
 *     moment about the body origin c x f + tau = (0, 0, -207.2) + (0, 0, -36) = (0, 0, -243.2)
 *   U = -mu m / r - mu / (2 r^3) (A - 3 B / r^2) = -1250 - 12.5 (6 - 4.08) = -1274.
 * Body b: m = 1, com 0, I_c = 0.1 * 1 (isotropic: no quadrupole), at (0, 0, 10), R = 1:
 *   f = -3125 (0, 0, 10) / 1000 = (0, 0, -31.25), U = -312.5. */
static void central_gravity_by_hand(void **state) {
  hg_builder *b = hg_builder_new();
  hg_inertia Ga = inertia(2, 0, -1, 0, 1, 2, 3), Gb = inertia(1, 0, 0, 0, 0.1, 0.1, 0.1);
  add_body(b, "a", NULL, HG_JOINT_FREE, NULL, NULL, &Ga);
  add_body(b, "b", NULL, HG_JOINT_FREE, NULL, NULL, &Gb);
  tscene t;
  scene_init(&t, b);
  hg_force_spec *sp = add_force(&t, "planet", HG_FORCE_CENTRAL_GRAVITY, 3);
  sp->mu = 3125;
  tmodel tm = model_make(b);
  hg_forces *f = compile_ok(&t, &tm);

  double pa[3] = {2, 4, 0}, qa[4] = {S2, 0, 0, S2}, pb[3] = {0, 0, 10}, qb[4] = {1, 0, 0, 0};
  double zero[6] = {0};
  set_free(&tm, "a", pa, qa, zero);
  set_free(&tm, "b", pb, qb, zero);
  apply(f, &tm, 0);

  /* body frames */
  double fa[6] = {0, 0, -243.2, -207.2, 164.4, 0}, fb[6] = {0, 0, 0, 0, 0, -31.25};
  assert_vec_near(tm.fext + 6 * hg_model_body(tm.m, "a"), fa, 6, 1e-11);
  assert_vec_near(tm.fext + 6 * hg_model_body(tm.m, "b"), fb, 6, 1e-12);
  /* world frame about the origin (= the centre: zero moment) */
  double W[6], Wa[6] = {0, 0, 0, -164.4, -207.2, 0};
  world_wrench(&tm, "a", W);
  assert_vec_near(W, Wa, 6, 1e-11);
  /* potential */
  double U = hg_forces_potential(f, tm.m, tm.d, tm.q);
  printf("# central gravity: U = %.15g (hand -1586.5)\n", U);
  assert_true(fabs(U + 1586.5) < 1e-10);
  assert_true(hg_forces_power_nc(f, tm.m, tm.d, 0, tm.q, tm.v) == 0);

  hg_forces_free(f);
  model_free(&tm);
  hg_builder_free(b);
}

/* the field is central: at random poses the total moment about the centre vanishes */
static void central_gravity_has_no_moment_about_centre(void **state) {
  hg_rng r;
  hg_rng_seed(&r, 5);
  hg_builder *b = hg_builder_new();
  hg_inertia G = inertia(3, 0.3, -0.2, 0.1, 0.5, 2, 2.2);
  add_body(b, "a", NULL, HG_JOINT_FREE, NULL, NULL, &G);
  tscene t;
  scene_init(&t, b);
  hg_force_spec *sp = add_force(&t, "planet", HG_FORCE_CENTRAL_GRAVITY, 3);
  sp->mu = 40;
  sp->centre[0] = 1, sp->centre[1] = -2, sp->centre[2] = 3;
  tmodel tm = model_make(b);
  hg_forces *f = compile_ok(&t, &tm);
  double worst = 0;
  for (int n = 0; n < 50; n++) {
    hg_model_random(tm.m, &r, tm.q);
    apply(f, &tm, 0);
    double W[6], M[3];
    world_wrench(&tm, "a", W);
    /* moment about the centre: M_0 - centre x F */
    hg_v3_cross(sp->centre, W + 3, M);
    for (int k = 0; k < 3; k++) M[k] = W[k] - M[k];
    double e = hg_v3_norm(M) / (hg_v3_norm(W + 3) * 4);
    if (e > worst) worst = e;
  }
  printf("# central gravity: |moment about centre| / (|F| * 4 m) <= %.3g\n", worst);
  assert_true(worst < 1e-14);
  hg_forces_free(f);
  model_free(&tm);
  hg_builder_free(b);
}

/* A spacecraft in low orbit: m = 500, com at the origin, I_c = diag(100, 200, 300), at
 * p = (7e6, 0, 0) rotated by Rz(30 deg); mu = 3.986004418e14, centre 0. In body axes
 * r^ = Rz(-30) (1, 0, 0) = (c, -s, 0) (c = cos 30, s = sin 30), I r^ = (100 c, -200 s, 0),
 * r^ x I r^ = (0, 0, -200 s c + 100 s c) = (0, 0, -25 sqrt 3): the gravity-gradient torque is
 * 3 mu / r^3 (0, 0, -25 sqrt 3) ~ -1.51e-4 N m, the force -mu m / r^2 r^ ~ 4067 N. Both come out
 * to round-off despite the 7e6 m lever arm. */
static void gravity_gradient_in_orbit(void **state) {
  hg_builder *b = hg_builder_new();
  hg_inertia G = inertia(500, 0, 0, 0, 100, 200, 300);
  add_body(b, "sat", NULL, HG_JOINT_FREE, NULL, NULL, &G);
  tscene t;
  scene_init(&t, b);
  const double mu = 3.986004418e14, r = 7e6;
  hg_force_spec *sp = add_force(&t, "earth", HG_FORCE_CENTRAL_GRAVITY, 3);
  sp->mu = mu;
  tmodel tm = model_make(b);
  hg_forces *f = compile_ok(&t, &tm);
  double p[3] = {r, 0, 0}, q[4] = {cos(0.5 * 0.5235987755982988), 0, 0,
                                   sin(0.5 * 0.5235987755982988)}, zero[6] = {0};
  set_free(&tm, "sat", p, q, zero);
  apply(f, &tm, 0);
  double c = sqrt(3.0) / 2, s = 0.5, g = mu * 500 / (r * r);
  double hand[6] = {0, 0, 3 * mu / (r * r * r) * (-25 * sqrt(3.0)), -g * c, g * s, 0};
  const double *w = tm.fext + 6;
  printf("# orbit: torque %.10g N m, relative error %.2g; force %.10g N\n", w[2],
         fabs(w[2] - hand[2]) / fabs(hand[2]), hg_v3_norm(w + 3));
  assert_true(fabs(w[2] - hand[2]) < 1e-12 * fabs(hand[2]));
  assert_true(fabs(w[0]) < 1e-18 && fabs(w[1]) < 1e-18);
  for (int k = 3; k < 6; k++) assert_true(fabs(w[k] - hand[k]) < 1e-12 * g);
  hg_forces_free(f);
  model_free(&tm);
  hg_builder_free(b);
}

/* ---- joint springs ---- */

/* Revolute: k = 3, c = 0.5, rest 0.2, q = 1.2, v = -2: tau = -3 (1.0) - 0.5 (-2) = -2,
 *   U = 1.5 * 1.0^2 = 1.5, damper power -0.5 * 4 = -2.
 * Spherical: k = 2, c = 0.25, rest = Rz(0.3), q = Rz(0.9): q (-) rest = (0, 0, 0.6);
 *   w = (1, 0, 2): tau = -2 (0, 0, 0.6) - 0.25 (1, 0, 2) = (-0.25, 0, -1.7), U = 0.36,
 *   damper power -0.25 * 5 = -1.25.
 * Free: k = 4, c = 0, rest neutral, q = (1, 2, 3; identity): xi = (0, 0, 0, 1, 2, 3) and
 *   J_r^-T xi = xi (ad_xi^T xi = 0 when the rotation part is 0): tau = (0, 0, 0, -4, -8, -12),
 *   U = 2 * 14 = 28. */
static void joint_springs_by_hand(void **state) {
  hg_builder *b = hg_builder_new();
  hg_inertia G = inertia(1, 0, 0, 0, 0.1, 0.2, 0.3);
  double z[3] = {0, 0, 1};
  add_body(b, "arm", NULL, HG_JOINT_REVOLUTE, z, NULL, &G);
  add_body(b, "ball", NULL, HG_JOINT_SPHERICAL, NULL, NULL, &G);
  add_body(b, "pod", NULL, HG_JOINT_FREE, NULL, NULL, &G);
  tscene t;
  scene_init(&t, b);
  double rest_arm[1] = {0.2}, rest_ball[4] = {cos(0.15), 0, 0, sin(0.15)};
  hg_force_spec *s1 = add_force(&t, "hinge", HG_FORCE_JOINT_SPRING, 4);
  s1->joint = "arm", s1->stiffness = 3, s1->damping = 0.5, s1->rest = rest_arm, s1->nrest = 1;
  hg_force_spec *s2 = add_force(&t, "neck", HG_FORCE_JOINT_SPRING, 5);
  s2->joint = "ball", s2->stiffness = 2, s2->damping = 0.25, s2->rest = rest_ball, s2->nrest = 4;
  hg_force_spec *s3 = add_force(&t, "bushing", HG_FORCE_JOINT_SPRING, 6);
  s3->joint = "pod", s3->stiffness = 4;
  tmodel tm = model_make(b);
  hg_forces *f = compile_ok(&t, &tm);

  const hg_model *m = tm.m;
  int ia = hg_model_joint(m, "arm"), ib = hg_model_joint(m, "ball"), ip = hg_model_joint(m, "pod");
  tm.q[m->q_adr[ia]] = 1.2;
  tm.v[m->v_adr[ia]] = -2;
  double qb[4] = {cos(0.45), 0, 0, sin(0.45)}, wb[3] = {1, 0, 2};
  memcpy(tm.q + m->q_adr[ib], qb, sizeof qb);
  memcpy(tm.v + m->v_adr[ib], wb, sizeof wb);
  tm.q[m->q_adr[ip]] = 1, tm.q[m->q_adr[ip] + 1] = 2, tm.q[m->q_adr[ip] + 2] = 3;
  apply(f, &tm, 0);

  double ta[1] = {-2}, tb[3] = {-0.25, 0, -1.7}, tp[6] = {0, 0, 0, -4, -8, -12};
  assert_vec_near(tm.tau + m->v_adr[ia], ta, 1, 1e-14);
  assert_vec_near(tm.tau + m->v_adr[ib], tb, 3, 1e-14);
  assert_vec_near(tm.tau + m->v_adr[ip], tp, 6, 1e-14);
  for (int k = 0; k < 6 * m->nbody; k++) assert_true(tm.fext[k] == 0);
  double U = hg_forces_potential(f, m, tm.d, tm.q);
  double P = hg_forces_power_nc(f, m, tm.d, 0, tm.q, tm.v);
  printf("# joint springs: U = %.17g (hand 29.86), damper power %.17g (hand -3.25)\n", U, P);
  assert_true(fabs(U - 29.86) < 1e-13);
  assert_true(fabs(P + 3.25) < 1e-14);

  /* a rest of the wrong size names the element and its place */
  hg_error err = {{0}};
  s1->nrest = 4;
  assert_null(hg_forces_new(&t.s, m, &err));
  printf("# %s\n", err.msg);
  assert_non_null(strstr(err.msg, "test.yaml:4:5"));
  assert_non_null(strstr(err.msg, "'hinge'"));

  hg_forces_free(f);
  model_free(&tm);
  hg_builder_free(b);
}

/* ---- marker springs ---- */

/* two free bodies a and b with markers ma = (1, 0, 0) on a and mb = (0, 1, 0) on b */
static hg_builder *two_bodies(tscene *t) {
  hg_builder *b = hg_builder_new();
  hg_inertia Ga = inertia(2, 0.1, 0, 0, 0.3, 0.4, 0.5), Gb = inertia(1, 0, 0.2, 0, 0.2, 0.2, 0.3);
  add_body(b, "a", NULL, HG_JOINT_FREE, NULL, NULL, &Ga);
  add_body(b, "b", NULL, HG_JOINT_FREE, NULL, NULL, &Gb);
  scene_init(t, b);
  add_marker(t, "ma", "a", 1, 0, 0);
  add_marker(t, "mb", "b", 0, 1, 0);
  return b;
}

/* a at the origin at rest; b at (5, 4, 0), Rz(90), body twist tw */
static void spring_pose(tmodel *tm, const double tw[6]) {
  double p0[3] = {0, 0, 0}, q0[4] = {1, 0, 0, 0}, z[6] = {0};
  double p1[3] = {5, 4, 0}, q1[4] = {S2, 0, 0, S2};
  set_free(tm, "a", p0, q0, z);
  set_free(tm, "b", p1, q1, tw);
}

/* pa = (1, 0, 0); pb = (5, 4, 0) + Rz(90) (0, 1, 0) = (4, 4, 0); d = (3, 4, 0), L = 5,
 * u = (0.6, 0.8, 0). b spins at w = (0, 0, 1): marker velocity Rz(90) (w x (0, 1, 0)) =
 * Rz(90) (-1, 0, 0) = (0, -1, 0), Ldot = -0.8. k = 10, c = 2, L0 = 4:
 *   s = 10 (1) + 2 (-0.8) = 8.4; on b: -8.4 u = (-5.04, -6.72, 0) at pb; on a: (5.04, 6.72, 0).
 *   a (R = 1): f = (5.04, 6.72, 0), moment (1, 0, 0) x f = (0, 0, 6.72)
 *   b: f = Rz(-90) (-5.04, -6.72, 0) = (-6.72, 5.04, 0), moment (0, 1, 0) x f = (0, 0, 6.72)
 *   world moments about 0: pa x Fa = (0, 0, 6.72), pb x Fb = (0, 0, -6.72): the sum is zero.
 *   U = 5 * 1 = 5; damper power -(s - k (L - L0)) Ldot = -(-1.6)(-0.8) = -1.28 = -c Ldot^2. */
static void marker_spring_by_hand(void **state) {
  tscene t;
  hg_builder *b = two_bodies(&t);
  hg_force_spec *sp = add_force(&t, "link", HG_FORCE_SPRING, 7);
  sp->marker_a = "ma", sp->marker_b = "mb", sp->stiffness = 10, sp->damping = 2;
  sp->free_length = 4;
  tmodel tm = model_make(b);
  hg_forces *f = compile_ok(&t, &tm);
  double tw[6] = {0, 0, 1, 0, 0, 0};
  spring_pose(&tm, tw);
  apply(f, &tm, 0);

  double fa[6] = {0, 0, 6.72, 5.04, 6.72, 0}, fb[6] = {0, 0, 6.72, -6.72, 5.04, 0};
  assert_vec_near(tm.fext + 6 * hg_model_body(tm.m, "a"), fa, 6, 1e-13);
  assert_vec_near(tm.fext + 6 * hg_model_body(tm.m, "b"), fb, 6, 1e-13);
  /* world wrenches about the origin: equal and opposite */
  double Wa[6], Wb[6], Wa_hand[6] = {0, 0, 6.72, 5.04, 6.72, 0};
  world_wrench(&tm, "a", Wa);
  world_wrench(&tm, "b", Wb);
  assert_vec_near(Wa, Wa_hand, 6, 1e-13);
  for (int k = 0; k < 6; k++) assert_true(fabs(Wa[k] + Wb[k]) < 1e-13);
  assert_true(fabs(hg_forces_potential(f, tm.m, tm.d, tm.q) - 5) < 1e-13);
  assert_true(fabs(hg_forces_power_nc(f, tm.m, tm.d, 0, tm.q, tm.v) + 1.28) < 1e-13);
  hg_forces_free(f);
  model_free(&tm);
  hg_builder_free(b);
}

/* Same geometry, compression only:
 *   L0 = 4 (L = 5 >= L0): nothing, U = 0.
 *   L0 = 6: s = 10 (-1) + 2 (-0.8) = -11.6 pushes b away: world force on b 11.6 u =
 *     (6.96, 9.28, 0); U = 5.
 *   L0 = 6, b translating at (6, 8, 0) (body v = Rz(-90) (6, 8, 0) = (8, -6, 0)): Ldot = 10,
 *     s = -10 + 20 = 10 > 0 would pull: clamped to 0; U = 5; power -(0 - (-10)) 10 = -100.
 * Then a sweep over L and Ldot: the force on b never points towards a. */
static void compression_only_never_pulls(void **state) {
  tscene t;
  hg_builder *b = two_bodies(&t);
  hg_force_spec *sp = add_force(&t, "separation", HG_FORCE_SPRING, 8);
  sp->marker_a = "ma", sp->marker_b = "mb", sp->stiffness = 10, sp->damping = 2;
  sp->free_length = 4, sp->compression_only = 1;
  tmodel tm = model_make(b);
  hg_forces *f = compile_ok(&t, &tm);
  double spin[6] = {0, 0, 1, 0, 0, 0}, W[6], zero[6] = {0};
  int ib = hg_model_body(tm.m, "b");

  /* out of contact */
  spring_pose(&tm, spin);
  apply(f, &tm, 0);
  assert_vec_near(tm.fext + 6 * ib, zero, 6, 0);
  assert_true(hg_forces_potential(f, tm.m, tm.d, tm.q) == 0);
  hg_forces_free(f);

  /* in contact, approaching */
  sp->free_length = 6;
  f = compile_ok(&t, &tm);
  apply(f, &tm, 0);
  world_wrench(&tm, "b", W);
  double Fb[3] = {6.96, 9.28, 0};
  assert_vec_near(W + 3, Fb, 3, 1e-13);
  assert_true(fabs(hg_forces_potential(f, tm.m, tm.d, tm.q) - 5) < 1e-13);

  /* in contact, separating fast: clamped */
  double sep[6] = {0, 0, 0, 8, -6, 0};
  spring_pose(&tm, sep);
  apply(f, &tm, 0);
  assert_vec_near(tm.fext + 6 * ib, zero, 6, 1e-15);
  assert_true(fabs(hg_forces_potential(f, tm.m, tm.d, tm.q) - 5) < 1e-13);
  assert_true(fabs(hg_forces_power_nc(f, tm.m, tm.d, 0, tm.q, tm.v) + 100) < 1e-12);
  hg_forces_free(f);

  /* sweep: b's origin along (1, 0, 0) from a's marker, translating at rate ldot */
  sp->free_length = 5;
  f = compile_ok(&t, &tm);
  int npush = 0, nzero = 0;
  for (int i = 0; i <= 40; i++)
    for (int j = 0; j <= 40; j++) {
      double L = 3 + 0.1 * i, ldot = -10 + 0.5 * j;
      double p1[3] = {1 + L, -1, 0}, q1[4] = {1, 0, 0, 0}, tw[6] = {0, 0, 0, ldot, 0, 0};
      set_free(&tm, "b", p1, q1, tw);
      apply(f, &tm, 0);
      world_wrench(&tm, "b", W);
      assert_true(W[3] >= 0); /* pushes b away from a along +x, or nothing */
      if (L >= 5) assert_true(W[3] == 0 && W[4] == 0 && W[5] == 0);
      assert_true(hg_forces_power_nc(f, tm.m, tm.d, 0, tm.q, tm.v) <= 0);
      npush += W[3] > 0;
      nzero += W[3] == 0;
    }
  printf("# compression only: %d pushing, %d zero of 1681\n", npush, nzero);
  assert_true(npush > 100 && nzero > 100);
  hg_forces_free(f);
  model_free(&tm);
  hg_builder_free(b);
}

/* ---- drag, parachute, thrust ---- */

/* Body a at p = (0, 0, 1000), Rz(90), cop (0, -0.5, 0): world point (0.5, 0, 1000).
 * Body twist (0, 0, 6, 0, -4, 0): w x cop = (3, 0, 0), point velocity Rz(90) (3, -4, 0) =
 * (4, 3, 0), |v| = 5. rho0 = 1.2, H = 1000, flat (h = z = 1000): rho = 1.2 / e; CdA = 2:
 *   F = -1/2 (1.2 / e) 2 * 5 (4, 3, 0) = -(6 / e)(4, 3, 0) at the point
 *   moment about 0: (0.5, 0, 1000) x F = (-1000 Fy, 1000 Fx, 0.5 Fy) = (18000, -24000, -9) / e
 *   power F . v = -(6 / e) 25 = -150 / e.
 * Planet (radius 6000, centre (0, 0, -6000)): h = sqrt(0.25 + 7000^2) - 6000, F = -5 rho (4, 3, 0).
 * Uniform (H = 0): rho = 1.2, F = -6 (4, 3, 0).
 * A parachute at a marker in the cop's place gives the flat-world wrench again. */
static void drag_and_parachute_by_hand(void **state) {
  tscene t;
  hg_builder *b = two_bodies(&t);
  add_marker(&t, "chute", "a", 0, -0.5, 0);
  hg_force_spec *sp = add_force(&t, "aero", HG_FORCE_DRAG, 9);
  sp->body = "a", sp->cd_area = 2, sp->cop[1] = -0.5;
  sp->atm.rho0 = 1.2, sp->atm.scale_height = 1000;
  hg_force_spec *pc = add_force(&t, "drogue", HG_FORCE_PARACHUTE, 10);
  pc->marker = "chute", pc->cd_area = 2, pc->atm = sp->atm;
  tmodel tm = model_make(b);
  double pa[3] = {0, 0, 1000}, qa[4] = {S2, 0, 0, S2}, tw[6] = {0, 0, 6, 0, -4, 0}, W[6];
  double e = exp(1.0);
  set_free(&tm, "a", pa, qa, tw);

  /* drag alone, flat world */
  hg_forces *f = compile_ok(&t, &tm);
  hg_forces_set_enabled(f, hg_forces_find(f, "drogue"), 0);
  apply(f, &tm, 0);
  world_wrench(&tm, "a", W);
  double Wh[6] = {18000 / e, -24000 / e, -9 / e, -24 / e, -18 / e, 0};
  assert_vec_near(W, Wh, 6, 1e-10);
  double P = hg_forces_power_nc(f, tm.m, tm.d, 0, tm.q, tm.v);
  assert_true(fabs(P + 150 / e) < 1e-12);
  assert_true(fabs(wrench_power(&tm) - P) < 1e-12);

  /* parachute alone: the same wrench */
  hg_forces_set_enabled(f, hg_forces_find(f, "aero"), 0);
  hg_forces_set_enabled(f, hg_forces_find(f, "drogue"), 1);
  apply(f, &tm, 0);
  world_wrench(&tm, "a", W);
  assert_vec_near(W, Wh, 6, 1e-10);
  assert_true(fabs(hg_forces_power_nc(f, tm.m, tm.d, 0, tm.q, tm.v) + 150 / e) < 1e-12);
  hg_forces_free(f);

  /* spherical planet */
  sp->atm.radius = 6000, sp->atm.centre[2] = -6000;
  pc->enabled = 0;
  f = compile_ok(&t, &tm);
  apply(f, &tm, 0);
  world_wrench(&tm, "a", W);
  double rho = 1.2 * exp(-(sqrt(0.25 + 7000.0 * 7000.0) - 6000) / 1000);
  double Fp[3] = {-20 * rho, -15 * rho, 0};
  assert_vec_near(W + 3, Fp, 3, 1e-13);
  hg_forces_free(f);

  /* uniform density */
  sp->atm.scale_height = 0;
  f = compile_ok(&t, &tm);
  apply(f, &tm, 0);
  world_wrench(&tm, "a", W);
  double Fu[3] = {-24, -18, 0};
  assert_vec_near(W + 3, Fu, 3, 1e-13);
  hg_forces_free(f);
  model_free(&tm);
  hg_builder_free(b);
}

/* Thrust on a at p = (1, 2, 3), Rz(90), body force (10, 0, 0), torque (0, 0, 1), on in [1, 2):
 *   fext = (0, 0, 1, 10, 0, 0); world force Rz(90) (10, 0, 0) = (0, 10, 0), moment about 0:
 *   (0, 0, 1) + (1, 2, 3) x (0, 10, 0) = (-30, 0, 11).
 *   Body twist (0, 0, 2, 3, 0, 0): power 2 * 1 + 3 * 10 = 32. Off at t = 0.5 and t = 2. */
static void thrust_by_hand(void **state) {
  tscene t;
  hg_builder *b = two_bodies(&t);
  hg_force_spec *sp = add_force(&t, "rcs", HG_FORCE_THRUST, 11);
  sp->body = "a", sp->force[0] = 10, sp->torque[2] = 1, sp->t_on = 1, sp->t_off = 2;
  tmodel tm = model_make(b);
  hg_forces *f = compile_ok(&t, &tm);
  double pa[3] = {1, 2, 3}, qa[4] = {S2, 0, 0, S2}, tw[6] = {0, 0, 2, 3, 0, 0}, W[6];
  set_free(&tm, "a", pa, qa, tw);
  int ia = hg_model_body(tm.m, "a");
  double on[6] = {0, 0, 1, 10, 0, 0}, Wh[6] = {-30, 0, 11, 0, 10, 0}, zero[6] = {0};
  double times[4] = {0.5, 1, 1.5, 2};
  for (int k = 0; k < 4; k++) {
    int firing = times[k] >= 1 && times[k] < 2;
    apply(f, &tm, times[k]);
    assert_vec_near(tm.fext + 6 * ia, firing ? on : zero, 6, 0);
    double P = hg_forces_power_nc(f, tm.m, tm.d, times[k], tm.q, tm.v);
    assert_true(fabs(P - (firing ? 32 : 0)) < 1e-13);
  }
  apply(f, &tm, 1.5);
  world_wrench(&tm, "a", W);
  assert_vec_near(W, Wh, 6, 1e-13);
  hg_forces_free(f);
  model_free(&tm);
  hg_builder_free(b);
}

/* ---- energy consistency on a small tree ---- */

/* base (free) - arm (revolute) - ball (spherical), and pod (free) on its own; markers on each */
static hg_builder *small_tree(tscene *t, hg_rng *r) {
  hg_builder *b = hg_builder_new();
  hg_inertia G[4];
  for (int k = 0; k < 4; k++) hg_test_random_inertia(r, &G[k]);
  hg_se3 off1, off2;
  hg_test_random_pose(r, &off1);
  hg_test_random_pose(r, &off2);
  double axis[3] = {0.3, 0.5, 0.8};
  add_body(b, "base", NULL, HG_JOINT_FREE, NULL, NULL, &G[0]);
  add_body(b, "arm", "base", HG_JOINT_REVOLUTE, axis, &off1, &G[1]);
  add_body(b, "ball", "arm", HG_JOINT_SPHERICAL, NULL, &off2, &G[2]);
  add_body(b, "pod", NULL, HG_JOINT_FREE, NULL, NULL, &G[3]);
  scene_init(t, b);
  add_marker(t, "m_base", "base", 0.1, 0.2, 0);
  add_marker(t, "m_ball", "ball", 0.3, -0.1, 0.2);
  add_marker(t, "m_pod", "pod", -0.2, 0, 0.1);
  add_marker(t, "m_arm", "arm", 0.25, 0.05, 0);
  return b;
}

/* the conservative elements of the small tree: central gravity, joint springs of every group,
 * a marker spring and a compression-only spring kept in contact; damping c on all of them */
static void conservative_elements(tscene *t, double c) {
  static double rest_arm[1] = {0.4};
  static double rest_ball[4] = {0.9, 0.3, -0.2, 0.1};
  static double rest_pod[7] = {0.1, 0.2, 0.3, 0.8, -0.1, 0.4, 0.3};
  hg_force_spec *sp = add_force(t, "planet", HG_FORCE_CENTRAL_GRAVITY, 20);
  sp->mu = 60, sp->centre[0] = 0.3, sp->centre[1] = -0.2, sp->centre[2] = -3;
  sp = add_force(t, "k_base", HG_FORCE_JOINT_SPRING, 21);
  sp->joint = "base", sp->stiffness = 0.7, sp->damping = c;
  sp = add_force(t, "k_arm", HG_FORCE_JOINT_SPRING, 22);
  sp->joint = "arm", sp->stiffness = 3, sp->damping = c, sp->rest = rest_arm, sp->nrest = 1;
  sp = add_force(t, "k_ball", HG_FORCE_JOINT_SPRING, 23);
  sp->joint = "ball", sp->stiffness = 2, sp->damping = c, sp->rest = rest_ball, sp->nrest = 4;
  sp = add_force(t, "k_pod", HG_FORCE_JOINT_SPRING, 24);
  sp->joint = "pod", sp->stiffness = 1.5, sp->damping = c, sp->rest = rest_pod, sp->nrest = 7;
  sp = add_force(t, "link", HG_FORCE_SPRING, 25);
  sp->marker_a = "m_base", sp->marker_b = "m_ball", sp->stiffness = 20, sp->free_length = 0.3;
  sp->damping = c;
  sp = add_force(t, "bumper", HG_FORCE_SPRING, 26);
  sp->marker_a = "m_pod", sp->marker_b = "m_arm", sp->stiffness = 50, sp->free_length = 10;
  sp->compression_only = 1, sp->damping = c;
}

/* relative error of the energy balance P + dU/dt = P_nc at random states, dU/dt by central
 * differences with step h (O(h^2)), or with Richardson's extrapolation from h and h/2 (O(h^4)) */
static double energy_balance(const hg_forces *f, tmodel *tm, hg_rng *r, int n, double h,
                             int richardson, double *worst_nc) {
  double worst = 0;
  *worst_nc = 0;
  for (int s = 0; s < n; s++) {
    hg_model_random(tm->m, r, tm->q);
    hg_test_random_vector(r, tm->v, tm->m->nv, -1, 1);
    double dU = potential_rate(f, tm, h);
    if (richardson) dU = (4 * potential_rate(f, tm, h / 2) - dU) / 3;
    apply(f, tm, 1.5);
    double P = wrench_power(tm), Pnc = hg_forces_power_nc(f, tm->m, tm->d, 1.5, tm->q, tm->v);
    double e = fabs(P + dU - Pnc) / (1 + fabs(P) + fabs(dU));
    if (e > worst) worst = e;
    if (fabs(Pnc) > *worst_nc) *worst_nc = fabs(Pnc);
  }
  return worst;
}

/* conservative: the applied power is -dU/dt to the O(h^2) truncation, and power_nc is 0 */
static void conservative_power_matches_potential(void **state) {
  hg_rng r;
  hg_rng_seed(&r, 7);
  tscene t;
  hg_builder *b = small_tree(&t, &r);
  conservative_elements(&t, 0);
  tmodel tm = model_make(b);
  hg_forces *f = compile_ok(&t, &tm);
  double hs[3] = {1e-3, 1e-4, 1e-5}, e[3], nc;
  for (int k = 0; k < 3; k++) {
    hg_rng_seed(&r, 70);
    e[k] = energy_balance(f, &tm, &r, 40, hs[k], 0, &nc);
    assert_true(nc == 0);
  }
  hg_rng_seed(&r, 70);
  double er = energy_balance(f, &tm, &r, 40, 1e-3, 1, &nc);
  printf("# conservative: |P + dU/dt| / (1 + |P| + |dU/dt|) = %.3g, %.3g, %.3g at h = 1e-3, "
         "1e-4, 1e-5; %.3g extrapolated from 1e-3\n", e[0], e[1], e[2], er);
  /* the error is the O(h^2) truncation (100x per decade of h), not a modelling gap */
  assert_true(e[0] > 50 * e[1] && e[1] > 50 * e[2]);
  assert_true(e[1] < 1e-6);
  assert_true(er < 1e-9);
  hg_forces_free(f);
  model_free(&tm);
  hg_builder_free(b);
}

/* every element alone: its power balance closes; a lumpy body near the planet makes the
 * gravity-gradient terms large */
static void each_element_balances(void **state) {
  hg_rng r;
  hg_rng_seed(&r, 8);
  tscene t;
  hg_builder *b = small_tree(&t, &r);
  conservative_elements(&t, 0.3);
  hg_force_spec *sp = add_force(&t, "aero", HG_FORCE_DRAG, 30);
  sp->body = "arm", sp->cd_area = 0.8, sp->cop[0] = 0.2, sp->cop[2] = -0.1;
  sp->atm.rho0 = 1.2, sp->atm.scale_height = 2, sp->atm.radius = 4, sp->atm.centre[2] = -5;
  sp = add_force(&t, "drogue", HG_FORCE_PARACHUTE, 31);
  sp->marker = "m_pod", sp->cd_area = 3, sp->atm.rho0 = 1.1, sp->atm.scale_height = 8;
  sp = add_force(&t, "rcs", HG_FORCE_THRUST, 32);
  sp->body = "ball", sp->force[1] = 2, sp->torque[0] = -0.5, sp->t_on = 1;
  tmodel tm = model_make(b);
  hg_forces *f = compile_ok(&t, &tm);
  int n = hg_forces_count(f);
  assert_int_equal(n, 10);

  for (int k = 0; k < n; k++) {
    for (int j = 0; j < n; j++) hg_forces_set_enabled(f, j, j == k);
    double nc, e = energy_balance(f, &tm, &r, 30, 1e-3, 1, &nc);
    printf("# %-8s balance error %.3g, max |P_nc| %.3g\n", t.force[k].name, e, nc);
    assert_true(e < 1e-9);
  }
  /* all at once */
  for (int j = 0; j < n; j++) hg_forces_set_enabled(f, j, 1);
  double nc, e = energy_balance(f, &tm, &r, 30, 1e-3, 1, &nc);
  printf("# all      balance error %.3g\n", e);
  assert_true(e < 1e-9);

  /* dampers and drag dissipate (thrust excluded) */
  hg_forces_set_enabled(f, hg_forces_find(f, "rcs"), 0);
  for (int s = 0; s < 200; s++) {
    hg_model_random(tm.m, &r, tm.q);
    hg_test_random_vector(&r, tm.v, tm.m->nv, -3, 3);
    hg_kinematics(tm.m, tm.d, tm.q, tm.v);
    assert_true(hg_forces_power_nc(f, tm.m, tm.d, 0, tm.q, tm.v) <= 0);
  }
  hg_forces_free(f);
  model_free(&tm);
  hg_builder_free(b);
}

/* hg_forces_apply_power is hg_forces_apply and hg_forces_power_nc in one pass (each element once):
 * the same fext and tau, the same power, for every element alone and for all; it returns 1 exactly
 * when an element that adds body wrenches is applied (joint springs alone: 0, fext untouched) */
static void apply_power_is_apply_and_power_nc(void **state) {
  hg_rng r;
  hg_rng_seed(&r, 11);
  tscene t;
  hg_builder *b = small_tree(&t, &r);
  conservative_elements(&t, 0.3);
  hg_force_spec *sp = add_force(&t, "aero", HG_FORCE_DRAG, 30);
  sp->body = "arm", sp->cd_area = 0.8, sp->cop[0] = 0.2, sp->cop[2] = -0.1;
  sp->atm.rho0 = 1.2, sp->atm.scale_height = 2, sp->atm.radius = 4, sp->atm.centre[2] = -5;
  sp = add_force(&t, "drogue", HG_FORCE_PARACHUTE, 31);
  sp->marker = "m_pod", sp->cd_area = 3, sp->atm.rho0 = 1.1, sp->atm.scale_height = 8;
  sp = add_force(&t, "rcs", HG_FORCE_THRUST, 32);
  sp->body = "ball", sp->force[1] = 2, sp->torque[0] = -0.5, sp->t_on = 1;
  tmodel tm = model_make(b);
  hg_forces *f = compile_ok(&t, &tm);
  int n = hg_forces_count(f), nb6 = 6 * tm.m->nbody, nv = tm.m->nv;
  double *fext = calloc((size_t)nb6, sizeof(double)), *tau = calloc((size_t)nv + 1, sizeof(double));
  double worst = 0;
  for (int k = 0; k <= n; k++) {
    /* element k alone, then (k = n) all of them */
    for (int j = 0; j < n; j++) hg_forces_set_enabled(f, j, k == n || j == k);
    int joint_springs_only = k < n && t.force[k].type == HG_FORCE_JOINT_SPRING;
    for (int s = 0; s < 20; s++) {
      hg_model_random(tm.m, &r, tm.q);
      hg_test_random_vector(&r, tm.v, nv, -2, 2);
      apply(f, &tm, 1.5);
      memset(fext, 0, (size_t)nb6 * sizeof(double));
      memset(tau, 0, ((size_t)nv + 1) * sizeof(double));
      double P, Pnc = hg_forces_power_nc(f, tm.m, tm.d, 1.5, tm.q, tm.v);
      int wrenches = hg_forces_apply_power(f, tm.m, tm.d, 1.5, tm.q, tm.v, fext, tau, &P);
      assert_int_equal(wrenches, !joint_springs_only);
      assert_memory_equal(fext, tm.fext, (size_t)nb6 * sizeof(double));
      assert_memory_equal(tau, tm.tau, (size_t)nv * sizeof(double));
      for (int i = 0; i < nb6 && joint_springs_only; i++) assert_true(fext[i] == 0);
      double e = fabs(P - Pnc) / (1 + fabs(Pnc));
      if (e > worst) worst = e;
    }
  }
  printf("# apply_power vs apply and power_nc: power off by %.3g (relative)\n", worst);
  assert_true(worst < 1e-13);
  free(fext);
  free(tau);
  hg_forces_free(f);
  model_free(&tm);
  hg_builder_free(b);
}

/* a rod (I_c = diag(1, 1, 0.01), m = 1) 2 m from a planet: the quadrupole terms are a quarter of
 * the monopole; the balance holds, and dropping the torque would break it by far more */
static void gravity_gradient_energy(void **state) {
  hg_rng r;
  hg_rng_seed(&r, 9);
  hg_builder *b = hg_builder_new();
  hg_inertia G = inertia(1, 0.2, 0, -0.1, 1, 1, 0.01);
  add_body(b, "rod", NULL, HG_JOINT_FREE, NULL, NULL, &G);
  tscene t;
  scene_init(&t, b);
  hg_force_spec *sp = add_force(&t, "planet", HG_FORCE_CENTRAL_GRAVITY, 3);
  sp->mu = 10, sp->centre[2] = -2.5;
  tmodel tm = model_make(b);
  hg_forces *f = compile_ok(&t, &tm);
  double nc, e = energy_balance(f, &tm, &r, 40, 1e-3, 1, &nc);

  /* the torque's share of the power at one state */
  apply(f, &tm, 0);
  double c[3], Ic[6], cf[3];
  const double *F = tm.fext + 6;
  hg_inertia_com(&tm.m->inertia[1], c, Ic);
  hg_v3_cross(c, F + 3, cf); /* moment of the force at the com about the origin */
  double tq[3] = {F[0] - cf[0], F[1] - cf[1], F[2] - cf[2]};
  printf("# gravity gradient: balance error %.3g, |torque about com| %.3g\n", e, hg_v3_norm(tq));
  assert_true(e < 1e-9);
  assert_true(hg_v3_norm(tq) > 1e-2);
  hg_forces_free(f);
  model_free(&tm);
  hg_builder_free(b);
}

/* ---- names, errors, inert elements ---- */

static void unknown_names_are_errors(void **state) {
  tscene t;
  hg_builder *b = two_bodies(&t);
  tmodel tm = model_make(b);
  hg_error err;
  struct {
    hg_force_type type;
    const char *field, *bad, *where;
  } cases[] = {
      {HG_FORCE_DRAG, "body", "nobody", "test.yaml:12:5"},
      {HG_FORCE_THRUST, "body", "ghost", "test.yaml:12:5"},
      {HG_FORCE_JOINT_SPRING, "joint", "nojoint", "test.yaml:12:5"},
      {HG_FORCE_SPRING, "marker_b", "nomarker", "test.yaml:12:5"},
      {HG_FORCE_PARACHUTE, "marker", "nomarker", "test.yaml:12:5"},
  };
  for (int k = 0; k < 5; k++) {
    t.s.nforce = 0;
    memset(t.force, 0, sizeof t.force);
    hg_force_spec *sp = add_force(&t, "broken", cases[k].type, 12);
    sp->marker_a = "ma", sp->marker_b = "mb", sp->marker = "ma";
    if (!strcmp(cases[k].field, "body")) sp->body = (char *)cases[k].bad;
    if (!strcmp(cases[k].field, "joint")) sp->joint = (char *)cases[k].bad;
    if (!strcmp(cases[k].field, "marker_b")) sp->marker_b = (char *)cases[k].bad;
    if (!strcmp(cases[k].field, "marker")) sp->marker = (char *)cases[k].bad;
    memset(&err, 0, sizeof err);
    assert_null(hg_forces_new(&t.s, tm.m, &err));
    printf("# %s\n", err.msg);
    assert_non_null(strstr(err.msg, cases[k].where));
    assert_non_null(strstr(err.msg, "'broken'"));
    assert_non_null(strstr(err.msg, cases[k].bad));
  }
  /* a marker on a body the scene never had */
  t.s.nforce = 0;
  add_marker(&t, "stray", "nowhere", 0, 0, 0);
  hg_force_spec *sp = add_force(&t, "chute", HG_FORCE_PARACHUTE, 13);
  sp->marker = "stray";
  assert_null(hg_forces_new(&t.s, tm.m, &err));
  assert_non_null(strstr(err.msg, "'nowhere'"));
  model_free(&tm);
  hg_builder_free(b);
}

/* elements on a removed body go inert; renew keeps the enabled flags */
static void removed_bodies_make_elements_inert(void **state) {
  tscene t;
  hg_builder *b = two_bodies(&t);
  hg_force_spec *sp = add_force(&t, "aero", HG_FORCE_DRAG, 14);
  sp->body = "b", sp->cd_area = 1, sp->atm.rho0 = 1;
  sp = add_force(&t, "rcs", HG_FORCE_THRUST, 15);
  sp->body = "b", sp->force[0] = 1;
  sp = add_force(&t, "link", HG_FORCE_SPRING, 16);
  sp->marker_a = "ma", sp->marker_b = "mb", sp->stiffness = 5;
  sp = add_force(&t, "k_b", HG_FORCE_JOINT_SPRING, 17);
  sp->joint = "b", sp->stiffness = 5;
  sp = add_force(&t, "rcs_a", HG_FORCE_THRUST, 18);
  sp->body = "a", sp->force[0] = 1;
  tmodel tm = model_make(b);
  hg_forces *f0 = compile_ok(&t, &tm);
  for (int k = 0; k < 5; k++) assert_false(hg_forces_inert(f0, k));
  hg_forces_set_enabled(f0, hg_forces_find(f0, "rcs_a"), 0);

  /* the model without b; the scene's builder (edited like topology.h's remove) lacks it too */
  hg_builder *b1 = hg_builder_new();
  hg_inertia Ga = inertia(2, 0.1, 0, 0, 0.3, 0.4, 0.5);
  add_body(b1, "a", NULL, HG_JOINT_FREE, NULL, NULL, &Ga);
  t.s.builder = b1;
  tmodel t1 = model_make(b1);
  hg_error err = {{0}};
  assert_null(hg_forces_new(&t.s, t1.m, &err)); /* never seen: an unknown name */
  hg_forces *f1 = hg_forces_renew(f0, &t.s, t1.m, &err);
  assert_non_null(f1);
  for (int k = 0; k < 4; k++) assert_true(hg_forces_inert(f1, k));
  assert_false(hg_forces_inert(f1, 4));
  assert_false(hg_forces_enabled(f1, hg_forces_find(f1, "rcs_a")));
  assert_true(hg_forces_enabled(f1, hg_forces_find(f1, "aero")));
  double p[3] = {0, 0, 0}, q[4] = {1, 0, 0, 0}, tw[6] = {1, 2, 3, 4, 5, 6};
  set_free(&t1, "a", p, q, tw);
  for (int j = 0; j < 5; j++) hg_forces_set_enabled(f1, j, 1);
  hg_forces_set_enabled(f1, 4, 0);
  apply(f1, &t1, 0);
  for (int k = 0; k < 6 * t1.m->nbody; k++) assert_true(t1.fext[k] == 0);
  for (int k = 0; k < t1.m->nv; k++) assert_true(t1.tau[k] == 0);
  assert_true(hg_forces_potential(f1, t1.m, t1.d, t1.q) == 0);
  assert_true(hg_forces_power_nc(f1, t1.m, t1.d, 0, t1.q, t1.v) == 0);

  /* a scene with a remove event explains the absence: inert for hg_forces_new too */
  hg_action act = {.type = HG_ACTION_REMOVE, .body = "b"};
  hg_event_spec ev = {.name = "drop", .naction = 1, .action = &act};
  t.s.nevent = 1, t.s.event = &ev;
  hg_forces *f3 = hg_forces_new(&t.s, t1.m, &err);
  assert_non_null(f3);
  for (int k = 0; k < 5; k++) assert_int_equal(hg_forces_inert(f3, k), k < 4);
  assert_true(hg_forces_enabled(f3, 4)); /* new: the scene's flag, not f0's */
  hg_forces_free(f3);
  t.s.nevent = 0;

  /* a body still in the scene's builder but not in the model: inert already for hg_forces_new */
  t.s.builder = b;
  hg_forces *f2 = hg_forces_new(&t.s, t1.m, &err);
  assert_non_null(f2);
  assert_true(hg_forces_inert(f2, 0) && !hg_forces_inert(f2, 4));

  /* lookups */
  assert_int_equal(hg_forces_count(f2), 5);
  assert_int_equal(hg_forces_find(f2, "link"), 2);
  assert_int_equal(hg_forces_find(f2, "none"), -1);
  hg_forces_free(f0);
  hg_forces_free(f1);
  hg_forces_free(f2);
  model_free(&tm);
  model_free(&t1);
  hg_builder_free(b);
  hg_builder_free(b1);
}

/* a joint detached into a free joint to the world loses its spring */
static void detached_joint_spring_goes_inert(void **state) {
  hg_inertia G = inertia(1, 0, 0, 0, 0.1, 0.2, 0.3);
  double z[3] = {0, 0, 1}, rest[1] = {0.3};
  hg_builder *b0 = hg_builder_new(), *b1 = hg_builder_new();
  add_body(b0, "a", NULL, HG_JOINT_FREE, NULL, NULL, &G);
  add_body(b0, "b", "a", HG_JOINT_REVOLUTE, z, NULL, &G);
  add_body(b1, "a", NULL, HG_JOINT_FREE, NULL, NULL, &G);
  add_body(b1, "b", NULL, HG_JOINT_FREE, NULL, NULL, &G); /* as hg_topology_detach leaves it */
  tscene t;
  scene_init(&t, b0);
  hg_force_spec *sp = add_force(&t, "k_rest", HG_FORCE_JOINT_SPRING, 40);
  sp->joint = "b", sp->stiffness = 2, sp->rest = rest, sp->nrest = 1;
  sp = add_force(&t, "k_plain", HG_FORCE_JOINT_SPRING, 41);
  sp->joint = "b", sp->stiffness = 2;
  tmodel t0 = model_make(b0), t1 = model_make(b1);
  hg_forces *f0 = compile_ok(&t, &t0);
  t.s.builder = b1;

  /* no topology events: the rest no longer fits, an error */
  hg_error err = {{0}};
  assert_null(hg_forces_new(&t.s, t1.m, &err));
  printf("# %s\n", err.msg);
  assert_non_null(strstr(err.msg, "test.yaml:40:5"));
  /* with a detach event: the misfit spring is inert; one without a rest cannot be told */
  hg_action act = {.type = HG_ACTION_DETACH, .body = "b"};
  hg_event_spec ev = {.name = "sep", .naction = 1, .action = &act};
  t.s.nevent = 1, t.s.event = &ev;
  hg_forces *f1 = hg_forces_new(&t.s, t1.m, &err);
  assert_non_null(f1);
  assert_true(hg_forces_inert(f1, 0) && !hg_forces_inert(f1, 1));
  /* renew sees the joint change type and hang from the world: both inert */
  hg_forces *f2 = hg_forces_renew(f0, &t.s, t1.m, &err);
  assert_non_null(f2);
  assert_true(hg_forces_inert(f2, 0) && hg_forces_inert(f2, 1));
  hg_forces_free(f0);
  hg_forces_free(f1);
  hg_forces_free(f2);
  model_free(&t0);
  model_free(&t1);
  hg_builder_free(b0);
  hg_builder_free(b1);
}

/* disabled elements add nothing and have no potential */
static void disabled_elements_do_nothing(void **state) {
  hg_rng r;
  hg_rng_seed(&r, 10);
  tscene t;
  hg_builder *b = small_tree(&t, &r);
  conservative_elements(&t, 0.5);
  for (int k = 0; k < t.s.nforce; k++) t.force[k].enabled = 0;
  tmodel tm = model_make(b);
  hg_forces *f = compile_ok(&t, &tm);
  hg_model_random(tm.m, &r, tm.q);
  hg_test_random_vector(&r, tm.v, tm.m->nv, -1, 1);
  apply(f, &tm, 0);
  for (int k = 0; k < 6 * tm.m->nbody; k++) assert_true(tm.fext[k] == 0);
  for (int k = 0; k < tm.m->nv; k++) assert_true(tm.tau[k] == 0);
  assert_true(hg_forces_potential(f, tm.m, tm.d, tm.q) == 0);
  assert_true(hg_forces_power_nc(f, tm.m, tm.d, 0, tm.q, tm.v) == 0);
  hg_forces_free(f);
  model_free(&tm);
  hg_builder_free(b);
}

/* ---- the joint springs' analytic derivatives (linearization) ---- */

/* a spring with a random rest on every joint type, at random states: hg_forces_derivatives
 * against central differences on the group of the analytic part; the free joint's spring is
 * left to the numeric part, and the two parts add up to every element */
static void joint_spring_derivatives(void **state) {
  (void)state;
  static const hg_joint_type types[] = {HG_JOINT_REVOLUTE,   HG_JOINT_PRISMATIC, HG_JOINT_HELICAL,
                                        HG_JOINT_CYLINDRICAL, HG_JOINT_UNIVERSAL, HG_JOINT_PLANAR,
                                        HG_JOINT_SPHERICAL,  HG_JOINT_FREE};
  enum { NT = sizeof types / sizeof *types };
  static const char *names[NT] = {"j0", "j1", "j2", "j3", "j4", "j5", "j6", "j7"};
  double x[3] = {1, 0, 0}, y[3] = {0, 1, 0};
  hg_rng r;
  hg_rng_seed(&r, 77);
  hg_builder *b = hg_builder_new();
  hg_inertia G = inertia(1, 0.1, 0, 0, 0.1, 0.2, 0.3);
  for (int k = 0; k < NT; k++) hg_test_add_body(b, names[k], NULL, types[k], x, y, 0.1, NULL, &G);
  tscene t;
  scene_init(&t, b);
  tmodel tm = model_make(b);
  const hg_model *m = tm.m;
  int nv = m->nv;
  double *rest = calloc((size_t)m->nq, sizeof(double));
  hg_model_random(m, &r, rest);
  for (int k = 0; k < NT; k++) {
    hg_force_spec *sp = add_force(&t, names[k], HG_FORCE_JOINT_SPRING, 10 + k);
    int j = hg_model_joint(m, names[k]);
    sp->joint = (char *)names[k];
    sp->stiffness = 1 + k, sp->damping = 0.1 * (k + 1);
    sp->rest = rest + m->q_adr[j], sp->nrest = m->jnt_nq[j];
  }
  hg_forces *f = compile_ok(&t, &tm);
  for (int k = 0; k < NT; k++) assert_int_equal(hg_forces_analytic(f, m, k), types[k] != HG_JOINT_FREE);

  size_t n2 = (size_t)nv * (size_t)nv;
  double *Dq = calloc(n2, sizeof(double)), *Dv = calloc(n2, sizeof(double));
  double *Cq = calloc(n2, sizeof(double)), *Cv = calloc(n2, sizeof(double));
  double *qp = calloc((size_t)m->nq, sizeof(double)), *vp = calloc((size_t)nv, sizeof(double));
  double *e = calloc((size_t)nv, sizeof(double)), *tp = calloc((size_t)nv, sizeof(double));
  double *tm_ = calloc((size_t)nv, sizeof(double)), *all = calloc((size_t)nv, sizeof(double));
  double *fx = calloc(6 * (size_t)m->nbody, sizeof(double));
  double worst = 0;
  for (int trial = 0; trial < 20; trial++) {
    hg_model_random(m, &r, tm.q);
    hg_test_random_vector(&r, tm.v, nv, -2, 2);
    memset(Dq, 0, n2 * sizeof(double));
    memset(Dv, 0, n2 * sizeof(double));
    hg_forces_derivatives(f, m, tm.q, Dq, Dv);
    /* central differences of the analytic part's tau in each tangent direction of q and of v */
    const double h = 1e-6;
    for (int arg = 0; arg < 2; arg++)
      for (int c = 0; c < nv; c++) {
        for (int sg = 0; sg < 2; sg++) {
          double *out = sg ? tm_ : tp, step = sg ? -h : h;
          memset(e, 0, (size_t)nv * sizeof(double));
          memcpy(vp, tm.v, (size_t)nv * sizeof(double));
          if (arg) {
            memcpy(qp, tm.q, (size_t)m->nq * sizeof(double));
            vp[c] += step;
          } else {
            e[c] = 1;
            hg_model_integrate(m, tm.q, e, step, qp);
          }
          memset(out, 0, (size_t)nv * sizeof(double));
          hg_kinematics(m, tm.d, qp, vp);
          hg_forces_apply_part(f, m, tm.d, 0, qp, vp, HG_FORCES_ANALYTIC, fx, out);
        }
        for (int l = 0; l < nv; l++)
          (arg ? Cv : Cq)[(size_t)l * nv + c] = (tp[l] - tm_[l]) / (2 * h);
      }
    double eq = hg_test_rel_err(Dq, Cq, nv * nv), ev = hg_test_rel_err(Dv, Cv, nv * nv);
    if (eq > worst) worst = eq;
    if (ev > worst) worst = ev;
    /* the parts add up to the whole */
    apply(f, &tm, 0);
    memset(all, 0, (size_t)nv * sizeof(double));
    hg_forces_apply_part(f, m, tm.d, 0, tm.q, tm.v, HG_FORCES_ANALYTIC, fx, all);
    hg_forces_apply_part(f, m, tm.d, 0, tm.q, tm.v, HG_FORCES_NUMERIC, fx, all);
    for (int l = 0; l < nv; l++) assert_true(fabs(all[l] - tm.tau[l]) <= 1e-15 * (1 + fabs(tm.tau[l])));
    /* the free joint's columns and rows are the numeric part's: zero here */
    int vf = m->v_adr[hg_model_joint(m, "j7")];
    for (int l = 0; l < nv; l++)
      for (int c = vf; c < vf + 6; c++) assert_true(Dq[(size_t)l * nv + c] == 0 && Dv[(size_t)c * nv + l] == 0);
  }
  printf("# joint springs: analytic derivatives vs central differences, worst relative error %.3g\n",
         worst);
  /* central differences of h = 1e-6 on tau ~ 10: truncation ~1e-12, rounding ~1e-16 * 10 / 1e-6
   * = 1e-9 relative to entries of order 1-10 */
  assert_true(worst < 1e-8);
  free(Dq); free(Dv); free(Cq); free(Cv); free(qp); free(vp); free(e); free(tp); free(tm_);
  free(all); free(fx); free(rest);
  hg_forces_free(f);
  model_free(&tm);
  hg_builder_free(b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(central_gravity_by_hand),
      cmocka_unit_test(central_gravity_has_no_moment_about_centre),
      cmocka_unit_test(gravity_gradient_in_orbit),
      cmocka_unit_test(joint_springs_by_hand),
      cmocka_unit_test(marker_spring_by_hand),
      cmocka_unit_test(compression_only_never_pulls),
      cmocka_unit_test(drag_and_parachute_by_hand),
      cmocka_unit_test(thrust_by_hand),
      cmocka_unit_test(conservative_power_matches_potential),
      cmocka_unit_test(each_element_balances),
      cmocka_unit_test(apply_power_is_apply_and_power_nc),
      cmocka_unit_test(gravity_gradient_energy),
      cmocka_unit_test(unknown_names_are_errors),
      cmocka_unit_test(removed_bodies_make_elements_inert),
      cmocka_unit_test(detached_joint_spring_goes_inert),
      cmocka_unit_test(disabled_elements_do_nothing),
      cmocka_unit_test(joint_spring_derivatives),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
