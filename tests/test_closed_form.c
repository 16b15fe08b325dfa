/* test_closed_form.c: small mechanisms whose equations of motion are derived by hand (Lagrange,
 * Newton-Euler about the centre of mass or a fixed point), compared with hg_aba, hg_rnea and
 * hg_crba on models built with hg_builder. Only round-off separates the two sides, so the
 * tolerance is 1e-12 relative (to max(1, |expected|)).
 *
 * Notation: g = 9.81 m/s^2, gravity vector gv = (0, 0, -g); m mass; c centre of mass in body
 * coordinates; I_c inertia about the centre of mass; R the body's orientation in the world; for
 * a unit axis a, I_a = a^T I_c a. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "dense.h"
#include "hinge.h"
#include "models.h"

#define G_ACC 9.81
#define NSTATE 50
#define TOL 1e-12

/* ---- building models ---- */

/* what add_body needs for one body */
typedef struct {
  const char *name, *parent;
  hg_joint_type type;
  double axis[3], pitch;
  hg_se3 offset;
  double m, c[3], Ic[6];
} body_def;

/* a body definition with identity offset, axis z and no inertia yet */
static body_def base_def(const char *name, const char *parent, hg_joint_type type, double m) {
  body_def def;
  memset(&def, 0, sizeof def);
  def.name = name;
  def.parent = parent;
  def.type = type;
  def.axis[2] = 1;
  hg_se3_identity(&def.offset);
  def.m = m;
  return def;
}

/* adds one body to the builder (asserting every step succeeds) */
static void add_body(hg_builder *b, const body_def *def) {
  hg_body_spec s;
  hg_error err;
  const char *why = NULL;
  memset(&s, 0, sizeof s);
  s.name = def->name;
  s.parent = def->parent;
  assert_int_equal(hg_joint_init(&s.joint, def->type, def->axis, NULL, def->pitch, &why), 0);
  s.offset = def->offset;
  assert_int_equal(hg_inertia_from_com(def->m, def->c, def->Ic, &s.inertia, NULL, 0), 0);
  assert_int_equal(hg_builder_add_body(b, &s, &err), 0);
}

/* compiles n bodies with gravity (0, 0, -g_z) */
static hg_model *build(const body_def *defs, int n, double g_z) {
  hg_builder *b = hg_builder_new();
  hg_error err;
  for (int i = 0; i < n; i++) add_body(b, &defs[i]);
  hg_model *m = hg_builder_compile(b, &err);
  hg_builder_free(b);
  if (!m) printf("# compile: %s\n", err.msg);
  assert_non_null(m);
  m->gravity[0] = m->gravity[1] = 0;
  m->gravity[2] = -g_z;
  return m;
}

/* ---- small algebra written out for the hand formulas ---- */

/* y = I x for I stored (xx yy zz xy xz yz) */
static void sym_mul(const double I[6], const double x[3], double y[3]) {
  y[0] = I[0] * x[0] + I[3] * x[1] + I[4] * x[2];
  y[1] = I[3] * x[0] + I[1] * x[1] + I[5] * x[2];
  y[2] = I[4] * x[0] + I[5] * x[1] + I[2] * x[2];
}

/* x = I^-1 y for a symmetric I stored (xx yy zz xy xz yz) */
static void sym_solve(const double I[6], const double y[3], double x[3]) {
  const double full[9] = {I[0], I[3], I[4], I[3], I[1], I[5], I[4], I[5], I[2]};
  assert_int_equal(hg_m3_solve(full, y, x), 0);
}

/* I_o = I_c + m (|c|^2 1 - c c^T): the parallel-axis theorem */
static void parallel_axis(const double Ic[6], double m, const double c[3], double Io[6]) {
  double cc = hg_v3_dot(c, c);
  Io[0] = Ic[0] + m * (cc - c[0] * c[0]);
  Io[1] = Ic[1] + m * (cc - c[1] * c[1]);
  Io[2] = Ic[2] + m * (cc - c[2] * c[2]);
  Io[3] = Ic[3] - m * c[0] * c[1];
  Io[4] = Ic[4] - m * c[0] * c[2];
  Io[5] = Ic[5] - m * c[1] * c[2];
}

/* R = rotation by angle t about the unit axis u (Rodrigues, written out) */
static void axis_angle(const double u[3], double t, double R[9]) {
  double s = sin(t), k = 1 - cos(t);
  double x = u[0], y = u[1], z = u[2];
  R[0] = 1 - k * (y * y + z * z); R[1] = k * x * y - s * z;       R[2] = k * x * z + s * y;
  R[3] = k * x * y + s * z;       R[4] = 1 - k * (x * x + z * z); R[5] = k * y * z - s * x;
  R[6] = k * x * z - s * y;       R[7] = k * y * z + s * x;       R[8] = 1 - k * (x * x + y * y);
}

/* a random unit vector */
static void random_unit(hg_rng *r, double u[3]) {
  double n;
  do {
    hg_test_random_vector(r, u, 3, -1, 1);
    n = sqrt(hg_v3_dot(u, u));
  } while (n < 0.1 || n > 1);
  for (int i = 0; i < 3; i++) u[i] /= n;
}

/* a valid random I_c (solid-ellipsoid principal moments in random axes), mass m */
static void random_Ic(hg_rng *r, double m, double Ic[6]) {
  double c[3];
  hg_inertia G;
  hg_test_random_inertia(r, &G);
  /* reuse the fixture's rotational part, rescaled to mass m */
  hg_inertia_com(&G, c, Ic);
  for (int i = 0; i < 6; i++) Ic[i] *= m / G.m;
}

/* relative error of scalars, as hg_test_rel_err */
static double rel1(double a, double b) { return fabs(a - b) / fmax(1, fabs(b)); }

/* ---- compound pendulum ---- */

/* One body on a revolute joint about a horizontal axis a = s x (s = +-1) through the pivot;
 * the offset turns the joint frame about z by psi (axis stays horizontal) and moves it.
 * Height of the centre of mass (only its height matters, gv = (0, 0, -g)):
 *   hanging, c = (cx, 0, -l): R_x(s q) c has z = -l cos q                => U = -m g l cos q
 *   level,   c = (cx, l, 0):  R_x(s q) c has z = s l sin q               => U = s m g l sin q
 * Kinetic energy T = I_o qd^2 / 2 with I_o = I_xx + m l^2 about the pivot axis (cx lies along
 * the axis and adds nothing). Lagrange: I_o qdd = tau - dU/dq, so
 *   hanging: qdd = (tau - m g l sin q) / I_o,   level: qdd = (tau - s m g l cos q) / I_o,
 * independent of qd (one fixed axis: no velocity terms). */
static double pendulum_qdd(int hanging, double s, double q, double tau, double m, double l,
                           double Io) {
  double dU = hanging ? m * G_ACC * l * sin(q) : s * m * G_ACC * l * cos(q);
  return (tau - dU) / Io;
}

/* worst error of ABA, RNEA and CRBA against the hand formula for one pendulum */
static double pendulum_case(hg_rng *r, int hanging, double s) {
  body_def def = base_def("bob", NULL, HG_JOINT_REVOLUTE, 1.7);
  double l = 0.8, psi = hg_rng_range(r, -3, 3), z[3] = {0, 0, 1}, worst = 0;
  def.axis[0] = s, def.axis[2] = 0;
  axis_angle(z, psi, def.offset.R);
  hg_test_random_vector(r, def.offset.p, 3, -1, 1);
  def.c[0] = 0.05;
  def.c[hanging ? 2 : 1] = hanging ? -l : l;
  random_Ic(r, def.m, def.Ic);
  hg_model *m = build(&def, 1, G_ACC);
  hg_data *d = hg_data_new(m);
  double Io = def.Ic[0] + def.m * l * l;
  for (int k = 0; k < NSTATE; k++) {
    double q = hg_rng_range(r, -3, 3), v = hg_rng_range(r, -3, 3), tau = hg_rng_range(r, -5, 5);
    double qdd, M, t, expect = pendulum_qdd(hanging, s, q, tau, def.m, l, Io);
    assert_int_equal(hg_aba(m, d, &q, &v, &tau, NULL, &qdd), 0);
    hg_rnea(m, d, &q, &v, &expect, NULL, &t);
    hg_crba(m, d, &q, &M);
    worst = fmax(worst, fmax(rel1(qdd, expect), fmax(rel1(t, tau), rel1(M, Io))));
  }
  hg_data_free(d);
  hg_model_free(m);
  return worst;
}

/* the four pendulums: hanging and level, axis +x and -x */
static void compound_pendulum(void **state) {
  hg_rng r;
  hg_rng_seed(&r, 51);
  double worst = 0;
  for (int hanging = 0; hanging < 2; hanging++)
    for (int k = 0; k < 2; k++) worst = fmax(worst, pendulum_case(&r, hanging, k ? -1 : 1));
  printf("# compound pendulum vs I_o qdd = tau - m g l sin q (cos q level): worst %.3g\n", worst);
  assert_true(worst < TOL);
}

/* ---- planar double pendulum ---- */

/* Two uniform rods (length L_i, radius 0.05, com at c_i = L_i / 2 along the rod) hanging along -z,
 * both joints about +x; link 2's joint sits at (0, 0, -l1) in link 1. q1 is link 1's angle from
 * the downward vertical, q2 link 2's angle relative to link 1 (positive: towards +y).
 * Centres of mass in the (y, z) plane (com offsets along x change nothing):
 *   p1 = c1 (sin q1, -cos q1),  p2 = l1 (sin q1, -cos q1) + c2 (sin(q1+q2), -cos(q1+q2)).
 * Kinetic energy T = qd^T M qd / 2 with (I_i = I_xx of link i about its com)
 *   M11 = I1 + I2 + m1 c1^2 + m2 (l1^2 + c2^2 + 2 l1 c2 cos q2)
 *   M12 = M21 = I2 + m2 (c2^2 + l1 c2 cos q2),   M22 = I2 + m2 c2^2.
 * Coriolis (Christoffel symbols; only dM11/dq2 = -2h and dM12/dq2 = -h are non-zero, with
 * h = m2 l1 c2 sin q2):
 *   b1 = -h (2 qd1 qd2 + qd2^2),   b2 = h qd1^2.
 * Gravity: U = -m1 g c1 cos q1 - m2 g (l1 cos q1 + c2 cos(q1+q2)), so
 *   g1 = (m1 c1 + m2 l1) g sin q1 + m2 g c2 sin(q1+q2),   g2 = m2 g c2 sin(q1+q2).
 * Lagrange: M qdd + b + g = tau. */
typedef struct {
  double m1, m2, l1, c1, c2, I1, I2;
} dpend;

/* M, and b + g, from the formulas above */
static void dpend_terms(const dpend *p, const double q[2], const double qd[2], double M[4],
                        double bg[2]) {
  double h = p->m2 * p->l1 * p->c2 * sin(q[1]), cq2 = cos(q[1]);
  M[0] = p->I1 + p->I2 + p->m1 * p->c1 * p->c1 +
         p->m2 * (p->l1 * p->l1 + p->c2 * p->c2 + 2 * p->l1 * p->c2 * cq2);
  M[1] = M[2] = p->I2 + p->m2 * (p->c2 * p->c2 + p->l1 * p->c2 * cq2);
  M[3] = p->I2 + p->m2 * p->c2 * p->c2;
  double s12 = sin(q[0] + q[1]);
  bg[0] = -h * (2 * qd[0] * qd[1] + qd[1] * qd[1]) +
          (p->m1 * p->c1 + p->m2 * p->l1) * G_ACC * sin(q[0]) + p->m2 * G_ACC * p->c2 * s12;
  bg[1] = h * qd[0] * qd[0] + p->m2 * G_ACC * p->c2 * s12;
}

/* a uniform rod of mass m and length L along -z from its joint, with products of inertia
 * (which must not matter for motion about x) and its com moved along x by cx */
static void rod(body_def *def, double m, double L, double cx) {
  double rr = 0.05;
  def->m = m;
  def->c[0] = cx, def->c[1] = 0, def->c[2] = -L / 2;
  def->Ic[0] = def->Ic[1] = m * (3 * rr * rr + L * L) / 12;
  def->Ic[2] = m * rr * rr / 2;
  def->Ic[3] = 1e-4 * m, def->Ic[4] = -5e-5 * m, def->Ic[5] = 2e-5 * m;
}

/* CRBA, RNEA and ABA of the double pendulum against M, b and g above */
static void double_pendulum(void **state) {
  hg_rng r;
  hg_rng_seed(&r, 52);
  body_def defs[2] = {base_def("upper", NULL, HG_JOINT_REVOLUTE, 0),
                      base_def("lower", "upper", HG_JOINT_REVOLUTE, 0)};
  dpend p = {1.3, 0.7, 0.9, 0.45, 0.35, 0, 0};
  rod(&defs[0], p.m1, p.l1, 0.02);
  rod(&defs[1], p.m2, 2 * p.c2, -0.03);
  p.I1 = defs[0].Ic[0], p.I2 = defs[1].Ic[0];
  for (int i = 0; i < 2; i++) defs[i].axis[0] = 1, defs[i].axis[2] = 0;
  defs[0].offset.p[2] = 2.0;
  defs[1].offset.p[2] = -p.l1;
  hg_model *m = build(defs, 2, G_ACC);
  hg_data *d = hg_data_new(m);
  double worst_M = 0, worst_tau = 0, worst_qdd = 0;
  for (int k = 0; k < NSTATE; k++) {
    double q[2], qd[2], qdd[2], tau[2], M[4], bg[2], Mh[4], t[2], a[2];
    hg_test_random_vector(&r, q, 2, -3, 3);
    hg_test_random_vector(&r, qd, 2, -3, 3);
    hg_test_random_vector(&r, qdd, 2, -3, 3);
    dpend_terms(&p, q, qd, M, bg);
    /* inverse dynamics: tau = M qdd + b + g */
    for (int i = 0; i < 2; i++) tau[i] = M[2 * i] * qdd[0] + M[2 * i + 1] * qdd[1] + bg[i];
    hg_rnea(m, d, q, qd, qdd, NULL, t);
    worst_tau = fmax(worst_tau, hg_test_rel_err(t, tau, 2));
    hg_crba(m, d, q, Mh);
    worst_M = fmax(worst_M, hg_test_rel_err(Mh, M, 4));
    /* forward dynamics: the 2x2 solve of M qdd = tau - b - g comes back to qdd */
    assert_int_equal(hg_aba(m, d, q, qd, tau, NULL, a), 0);
    worst_qdd = fmax(worst_qdd, hg_test_rel_err(a, qdd, 2));
  }
  printf("# double pendulum vs Lagrange: M %.3g, RNEA %.3g, ABA %.3g\n", worst_M, worst_tau,
         worst_qdd);
  hg_data_free(d);
  hg_model_free(m);
  assert_true(worst_M < TOL && worst_tau < TOL && worst_qdd < TOL);
}

/* ---- one free rigid body ---- */

/* Newton-Euler about the centre of mass, in body axes. The free joint's velocity is the body
 * twist (w, v) (v: velocity of the body origin), so the com moves with R (v + w x c) and
 *   com acceleration (body axes)  a_c = vd + wd x c + w x (v + w x c)
 *   Newton                        m a_c = f_ext + f_joint + m R^T gv
 *   Euler about the com           I_c wd + w x I_c w = n_ext + n_joint - c x (f_ext + f_joint)
 * for wrenches (n, f) given about the body origin (their moment about the com is n - c x f).
 * Forward (no joint wrench):
 *   wd = I_c^-1 (n_ext - c x f_ext - w x I_c w),
 *   vd = f_ext / m + R^T gv - wd x c - w x (v + w x c)
 * which for c = 0, no wrench and no gravity are Euler's equations I wd + w x I w = 0, vd = -w x v.
 * Inverse (the joint wrench that produces a given (wd, vd)):
 *   f_joint = m a_c - f_ext - m R^T gv,
 *   n_joint = I_c wd + w x I_c w - n_ext + c x (f_ext + f_joint) */
typedef struct {
  double m, c[3], Ic[6], R[9], gb[3]; /* gb = R^T gv */
} rigid;

/* forward: (wd, vd) from the state and the external wrench */
static void rigid_forward(const rigid *b, const double V[6], const double F[6], double A[6]) {
  const double *w = V, *v = V + 3;
  double Iw[3], t[3], n[3], wc[3], vc[3], u[3], wdc[3];
  sym_mul(b->Ic, w, Iw);
  hg_v3_cross(w, Iw, t);
  hg_v3_cross(b->c, F + 3, n);
  for (int i = 0; i < 3; i++) n[i] = F[i] - n[i] - t[i];
  sym_solve(b->Ic, n, A);
  hg_v3_cross(w, b->c, wc);
  for (int i = 0; i < 3; i++) vc[i] = v[i] + wc[i];
  hg_v3_cross(w, vc, u);
  hg_v3_cross(A, b->c, wdc);
  for (int i = 0; i < 3; i++) A[3 + i] = F[3 + i] / b->m + b->gb[i] - wdc[i] - u[i];
}

/* inverse: the joint wrench for accelerations (wd, vd) */
static void rigid_inverse(const rigid *b, const double V[6], const double A[6], const double F[6],
                          double tau[6]) {
  const double *w = V, *v = V + 3;
  double wc[3], vc[3], u[3], wdc[3], Iwd[3], Iw[3], t[3], fs[3], cf[3];
  hg_v3_cross(w, b->c, wc);
  for (int i = 0; i < 3; i++) vc[i] = v[i] + wc[i];
  hg_v3_cross(w, vc, u);
  hg_v3_cross(A, b->c, wdc);
  for (int i = 0; i < 3; i++) tau[3 + i] = b->m * (A[3 + i] + wdc[i] + u[i] - b->gb[i]) - F[3 + i];
  sym_mul(b->Ic, A, Iwd);
  sym_mul(b->Ic, w, Iw);
  hg_v3_cross(w, Iw, t);
  for (int i = 0; i < 3; i++) fs[i] = F[3 + i] + tau[3 + i];
  hg_v3_cross(b->c, fs, cf);
  for (int i = 0; i < 3; i++) tau[i] = Iwd[i] + t[i] - F[i] + cf[i];
}

/* one free-body case: com offset or not, gravity or not, external wrench or not */
static double free_body_case(hg_rng *r, int offset_com, double g_z, int wrench) {
  body_def def = base_def("body", NULL, HG_JOINT_FREE, 2.3);
  rigid b;
  hg_test_random_pose(r, &def.offset);
  if (offset_com) hg_test_random_vector(r, def.c, 3, -0.4, 0.4);
  random_Ic(r, def.m, def.Ic);
  hg_model *m = build(&def, 1, g_z);
  hg_data *d = hg_data_new(m);
  b.m = def.m;
  memcpy(b.c, def.c, sizeof b.c);
  memcpy(b.Ic, def.Ic, sizeof b.Ic);
  double worst = 0;
  for (int k = 0; k < NSTATE; k++) {
    double q[7], V[6], fext[12] = {0}, A[6], qdd[6], zero[6] = {0}, Rq[9], gv[3] = {0, 0, -g_z};
    double Aref[6], tref[6], t[6];
    hg_joint_random(&m->jnt[1], r, q);
    hg_test_random_vector(r, V, 6, -3, 3);
    if (wrench) hg_test_random_vector(r, fext + 6, 6, -4, 4);
    hg_quat_to_R(q + 3, Rq);
    hg_m3_mul(def.offset.R, Rq, b.R);
    hg_m3_mulTv(b.R, gv, b.gb);
    /* forward dynamics against Newton-Euler */
    assert_int_equal(hg_aba(m, d, q, V, zero, fext, qdd), 0);
    rigid_forward(&b, V, fext + 6, Aref);
    worst = fmax(worst, hg_test_rel_err(qdd, Aref, 6));
    /* inverse dynamics at random accelerations */
    hg_test_random_vector(r, A, 6, -3, 3);
    hg_rnea(m, d, q, V, A, fext, t);
    rigid_inverse(&b, V, A, fext + 6, tref);
    worst = fmax(worst, hg_test_rel_err(t, tref, 6));
  }
  hg_data_free(d);
  hg_model_free(m);
  return worst;
}

/* torque-free body: Euler's equations with the frame at the com, then with an offset com */
static void torque_free_body(void **state) {
  hg_rng r;
  hg_rng_seed(&r, 53);
  double at_com = free_body_case(&r, 0, 0, 0), offset = free_body_case(&r, 1, 0, 0);
  printf("# torque-free body vs Euler's equations: frame at com %.3g, offset com %.3g\n", at_com,
         offset);
  assert_true(at_com < TOL && offset < TOL);
}

/* an external wrench in the body frame, with gravity, against Newton-Euler by hand */
static void external_wrench_newton_euler(void **state) {
  hg_rng r;
  hg_rng_seed(&r, 54);
  double worst = fmax(free_body_case(&r, 1, G_ACC, 1), free_body_case(&r, 0, G_ACC, 1));
  printf("# free body with external wrench and gravity vs Newton-Euler: worst %.3g\n", worst);
  assert_true(worst < TOL);
}

/* ---- helical joint ---- */

/* Helical joint about unit axis a (joint frame), pitch h: T(q) = (R_a(q), h q a). The offset
 * turns a into the world axis a_w = R0 a. With c the com in body axes, the com moves with
 * body velocity qd (h a + a x c) (h a and a x c are orthogonal), so
 *   T = (I_a + m |a x c|^2 + m h^2) qd^2 / 2        (I_a + m |a x c|^2 = I_o about the axis)
 * and its height: com_w = p0 + R0 (h q a + R_a(q) c), so U = -m gv . com_w and
 *   dU/dq = -m gv . R0 (h a + a x R_a(q) c).
 * Case 1, com on the axis (c = s a, a x c = 0), any axis: qdd = (tau + m h gv.a_w) / (I_a + m h^2).
 * Case 2, vertical axis (a_w = +-z), com off the axis: a x R_a c is horizontal, so
 *   qdd = (tau + m h gv.a_w) / (I_a + m |a x c|^2 + m h^2).
 * In both cases M is constant, so there are no velocity terms. */
static double helical_case(hg_rng *r, int vertical) {
  body_def def = base_def("screw", NULL, HG_JOINT_HELICAL, 1.1);
  double aw[3], axc[3], worst = 0, z[3] = {0, 0, 1};
  def.pitch = hg_rng_range(r, -0.3, 0.3);
  random_Ic(r, def.m, def.Ic);
  if (vertical) {
    /* joint frame turned about z only; a = +-z; com anywhere */
    axis_angle(z, hg_rng_range(r, -3, 3), def.offset.R);
    def.axis[2] = hg_rng_uniform(r) < 0.5 ? -1 : 1; /* axis[0] = axis[1] = 0 */
    hg_test_random_vector(r, def.c, 3, -0.4, 0.4);
  } else {
    hg_se3 T;
    hg_test_random_pose(r, &T);
    memcpy(def.offset.R, T.R, sizeof T.R);
    random_unit(r, def.axis);
    double s = hg_rng_range(r, -0.4, 0.4);
    for (int i = 0; i < 3; i++) def.c[i] = s * def.axis[i];
  }
  hg_test_random_vector(r, def.offset.p, 3, -1, 1);
  hg_m3_mulv(def.offset.R, def.axis, aw);
  hg_v3_cross(def.axis, def.c, axc);
  double Ia, Iax[3];
  sym_mul(def.Ic, def.axis, Iax);
  Ia = hg_v3_dot(def.axis, Iax);
  double Meff = Ia + def.m * hg_v3_dot(axc, axc) + def.m * def.pitch * def.pitch;
  hg_model *m = build(&def, 1, G_ACC);
  hg_data *d = hg_data_new(m);
  for (int k = 0; k < NSTATE; k++) {
    double q = hg_rng_range(r, -3, 3), v = hg_rng_range(r, -3, 3), tau = hg_rng_range(r, -5, 5);
    double qdd, t, M, expect = (tau + def.m * def.pitch * (-G_ACC * aw[2])) / Meff;
    assert_int_equal(hg_aba(m, d, &q, &v, &tau, NULL, &qdd), 0);
    hg_rnea(m, d, &q, &v, &expect, NULL, &t);
    hg_crba(m, d, &q, &M);
    worst = fmax(worst, fmax(rel1(qdd, expect), fmax(rel1(t, tau), rel1(M, Meff))));
  }
  hg_data_free(d);
  hg_model_free(m);
  return worst;
}

/* both helical cases, ten models each */
static void helical_joint(void **state) {
  hg_rng r;
  hg_rng_seed(&r, 55);
  double worst_axis = 0, worst_vertical = 0;
  for (int k = 0; k < 10; k++) {
    worst_axis = fmax(worst_axis, helical_case(&r, 0));
    worst_vertical = fmax(worst_vertical, helical_case(&r, 1));
  }
  printf("# helical joint vs (I + m h^2) qdd = tau + m h gv.a: com on axis %.3g, vertical axis "
         "%.3g\n",
         worst_axis, worst_vertical);
  assert_true(worst_axis < TOL && worst_vertical < TOL);
}

/* ---- spherical pendulum ---- */

/* A body on a spherical joint (a fixed point at the pivot), com c, I_o = I_c + m (|c|^2 - c c^T)
 * about the pivot. Euler's equations about a fixed point, body axes, with the joint torque tau:
 *   I_o wd + w x I_o w = tau + c x (m R^T gv)
 * so wd = I_o^-1 (tau + m c x R^T gv - w x I_o w), and tau = I_o wd + w x I_o w - m c x R^T gv.
 * R = R0 R(q), the offset's rotation times the joint's.
 * For a point-like bob I_o is badly conditioned (its smallest eigenvalue, along c, is that of the
 * 1 cm ball, >= I_c,min; the largest <= trace I_o), and both sides of the forward comparison carry
 * a round-off of ~ eps cond(I_o) |rhs|: that error is divided by trace(I_o) / I_c,min. A torque
 * about c then spins the bob up at ~ 1e5 rad/s^2, and the inverse dynamics cancel products of
 * I_o's O(1) entries with it: its error is taken relative to
 * max(1, trace(I_o) |wd|, |w x I_o w|). */
/* wd from the hand formula, and the round-off scale of the inverse dynamics */
static void spherical_expected(const body_def *def, const double Io[6], const double q[4],
                               const double w[3], const double tau[3], double wd[3],
                               double *tscale) {
  double Rq[9], R[9], gv[3] = {0, 0, -G_ACC}, gb[3], Iw[3], wIw[3], cg[3], rhs[3];
  hg_quat_to_R(q, Rq);
  hg_m3_mul(def->offset.R, Rq, R);
  hg_m3_mulTv(R, gv, gb);
  sym_mul(Io, w, Iw);
  hg_v3_cross(w, Iw, wIw);
  hg_v3_cross(def->c, gb, cg);
  for (int i = 0; i < 3; i++) rhs[i] = tau[i] + def->m * cg[i] - wIw[i];
  sym_solve(Io, rhs, wd);
  *tscale = 1;
  for (int i = 0; i < 3; i++)
    *tscale = fmax(*tscale, fmax((Io[0] + Io[1] + Io[2]) * fabs(wd[i]), fabs(wIw[i])));
}

/* worst error of ABA, RNEA and CRBA of one spherical pendulum against the formulas above */
static double spherical_case(hg_rng *r, int point_like) {
  body_def def = base_def("bob", NULL, HG_JOINT_SPHERICAL, 0.9);
  double Io[6], Mref[9], worst = 0;
  hg_test_random_pose(r, &def.offset);
  hg_test_random_vector(r, def.c, 3, -0.2, 0.2);
  def.c[2] -= 1.0;
  if (point_like) {
    /* a small solid sphere of radius 1 cm */
    def.Ic[0] = def.Ic[1] = def.Ic[2] = 0.4 * def.m * 1e-4;
  } else {
    random_Ic(r, def.m, def.Ic);
  }
  parallel_axis(def.Ic, def.m, def.c, Io);
  for (int i = 0; i < 3; i++) sym_mul(Io, (double[3]){i == 0, i == 1, i == 2}, Mref + 3 * i);
  double cond = point_like ? (Io[0] + Io[1] + Io[2]) / def.Ic[0] : 1;
  hg_model *m = build(&def, 1, G_ACC);
  hg_data *d = hg_data_new(m);
  for (int k = 0; k < NSTATE; k++) {
    double q[4], w[3], tau[3], wd[3], qdd[3], t[3], Mh[9], tscale;
    hg_joint_random(&m->jnt[1], r, q);
    hg_test_random_vector(r, w, 3, -3, 3);
    hg_test_random_vector(r, tau, 3, -5, 5);
    spherical_expected(&def, Io, q, w, tau, wd, &tscale);
    assert_int_equal(hg_aba(m, d, q, w, tau, NULL, qdd), 0);
    hg_rnea(m, d, q, w, wd, NULL, t);
    hg_crba(m, d, q, Mh);
    worst = fmax(worst, hg_test_rel_err(qdd, wd, 3) / cond);
    worst = fmax(worst, fmax(hg_test_max_diff(t, tau, 3) / tscale, hg_test_rel_err(Mh, Mref, 9)));
  }
  hg_data_free(d);
  hg_model_free(m);
  return worst;
}

/* point-like and general bobs, five models each */
static void spherical_pendulum(void **state) {
  hg_rng r;
  hg_rng_seed(&r, 56);
  double worst_point = 0, worst_body = 0;
  for (int k = 0; k < 5; k++) {
    worst_point = fmax(worst_point, spherical_case(&r, 1));
    worst_body = fmax(worst_body, spherical_case(&r, 0));
  }
  printf("# spherical pendulum vs Euler about the pivot: point-like %.3g (forward / cond), general "
         "%.3g\n",
         worst_point, worst_body);
  assert_true(worst_point < TOL && worst_body < TOL);
}

/* ---- prismatic joint ---- */

/* A body sliding along a unit axis a (world a_w = R0 a) without rotating: T = m qd^2 / 2,
 * U = -m gv . (p0 + R0 (q a + c)), so m qdd = tau + m gv . a_w (the com, the inertia and the
 * velocity do not enter). */
static void prismatic_under_gravity(void **state) {
  hg_rng r;
  hg_rng_seed(&r, 57);
  double worst = 0;
  for (int c = 0; c < 10; c++) {
    body_def def = base_def("slider", NULL, HG_JOINT_PRISMATIC, hg_rng_range(&r, 0.3, 3));
    double aw[3];
    random_unit(&r, def.axis);
    hg_test_random_pose(&r, &def.offset);
    hg_test_random_vector(&r, def.c, 3, -0.5, 0.5);
    random_Ic(&r, def.m, def.Ic);
    hg_m3_mulv(def.offset.R, def.axis, aw);
    hg_model *m = build(&def, 1, G_ACC);
    hg_data *d = hg_data_new(m);
    for (int k = 0; k < NSTATE; k++) {
      double q = hg_rng_range(&r, -1, 1), v = hg_rng_range(&r, -3, 3);
      double tau = hg_rng_range(&r, -5, 5);
      double qdd, t, M, expect = tau / def.m - G_ACC * aw[2];
      assert_int_equal(hg_aba(m, d, &q, &v, &tau, NULL, &qdd), 0);
      hg_rnea(m, d, &q, &v, &expect, NULL, &t);
      hg_crba(m, d, &q, &M);
      worst = fmax(worst, fmax(rel1(qdd, expect), fmax(rel1(t, tau), rel1(M, def.m))));
    }
    hg_data_free(d);
    hg_model_free(m);
  }
  printf("# prismatic joint vs qdd = tau / m + gv . a: worst %.3g\n", worst);
  assert_true(worst < TOL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(compound_pendulum),
      cmocka_unit_test(double_pendulum),
      cmocka_unit_test(torque_free_body),
      cmocka_unit_test(external_wrench_newton_euler),
      cmocka_unit_test(helical_joint),
      cmocka_unit_test(spherical_pendulum),
      cmocka_unit_test(prismatic_under_gravity),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
