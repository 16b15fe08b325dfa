/* test_builtin_controllers.c: the built-in controllers of sim/control/builtin.h against hand
 * computations: the quaternion PD law and its sign convention, the wheels' pseudo-inverse, the
 * rate limit, star tracker dropout, joint_pd's exact expression and encoder differencing, the
 * thrusters' Schmitt triggers counted by hand, checkpoints and init errors. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "builtin.h"

#define TEST_PI 3.14159265358979323846

/* ---- building setups ---- */

#define MAXP 8
typedef struct setup {
  hg_control_setup s;
  hg_control_port in[MAXP], out[MAXP];
  hg_control_param p[MAXP];
  double val[MAXP][32];
} setup;

static void su_init(setup *x, double rate) {
  memset(x, 0, sizeof *x);
  x->s.abi = HG_CONTROL_ABI;
  x->s.name = "ctl";
  x->s.rate = rate;
  x->s.input = x->in;
  x->s.output = x->out;
  x->s.param = x->p;
}

static void su_in(setup *x, const char *kind, int n) {
  hg_control_port *p = &x->in[x->s.ninput++];
  p->name = kind, p->kind = kind, p->offset = x->s.nin, p->n = n;
  x->s.nin += n;
}

static void su_out(setup *x, const char *kind, int n) {
  hg_control_port *p = &x->out[x->s.noutput++];
  p->name = kind, p->kind = kind, p->offset = x->s.nout, p->n = n;
  x->s.nout += n;
}

static void su_param(setup *x, const char *name, int n, ...) {
  int k = x->s.nparam++;
  va_list ap;
  va_start(ap, n);
  for (int i = 0; i < n; i++) x->val[k][i] = va_arg(ap, double);
  va_end(ap);
  x->p[k].name = name, x->p[k].n = n, x->p[k].value = x->val[k];
}

static void su_paramv(setup *x, const char *name, int n, const double *v) {
  int k = x->s.nparam++;
  memcpy(x->val[k], v, (size_t)n * sizeof(double));
  x->p[k].name = name, x->p[k].n = n, x->p[k].value = x->val[k];
}

static void *make(const hg_builtin_ops *ops, const setup *x) {
  char err[256] = "";
  void *st = NULL;
  int rc = ops->init(&x->s, &st, err, sizeof err);
  if (rc) fail_msg("init failed: %s", err);
  return st;
}

static void step(const hg_builtin_ops *ops, void *st, double t, const double *in, double *out) {
  char err[256] = "";
  assert_int_equal(ops->step(st, t, in, out, err, sizeof err), 0);
}

/* init fails with a message containing `want` */
static void expect_init_error(const hg_builtin_ops *ops, const setup *x, const char *want) {
  char err[256] = "";
  void *st = NULL;
  int rc = ops->init(&x->s, &st, err, sizeof err);
  if (rc == 0) {
    ops->finish(st);
    fail_msg("init succeeded; expected an error with '%s'", want);
  }
  assert_null(st);
  if (!strstr(err, want)) fail_msg("error '%s' does not contain '%s'", err, want);
}

static int same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

/* Hamilton product, written out here independently of hinge */
static void qmul(const double a[4], const double b[4], double r[4]) {
  r[0] = a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3];
  r[1] = a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2];
  r[2] = a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1];
  r[3] = a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0];
}

/* ---- lookup ---- */

static void test_find(void **unused) {
  const char *types[] = {"attitude_pd", "joint_pd", "thruster_logic"};
  for (int i = 0; i < 3; i++) {
    const hg_builtin_ops *o = hg_builtin_find(types[i]);
    assert_non_null(o);
    assert_string_equal(o->type, types[i]);
    assert_non_null(o->init), assert_non_null(o->step), assert_non_null(o->finish);
    assert_non_null(o->set), assert_non_null(o->save), assert_non_null(o->load);
    assert_non_null(o->params[0]);
  }
  assert_null(hg_builtin_find("attitude_PD"));
  assert_null(hg_builtin_find(NULL));
  const char *const *p = hg_builtin_find("attitude_pd")->params;
  int has_kp = 0, has_rate = 0;
  for (; *p; p++) has_kp |= strcmp(*p, "kp") == 0, has_rate |= strcmp(*p, "max_rate") == 0;
  assert_true(has_kp && has_rate);
}

/* ---- attitude_pd ---- */

/* star tracker + gyro -> one controller output (the torque demand) */
static void attitude_setup(setup *x, double kp, double kd) {
  su_init(x, 10);
  su_in(x, "star_tracker", 5);
  su_in(x, "gyro", 3);
  su_out(x, "controller", 3);
  su_param(x, "kp", 1, kp);
  su_param(x, "kd", 1, kd);
}

static void test_attitude_small_angle(void **unused) {
  const hg_builtin_ops *A = hg_builtin_find("attitude_pd");
  double kp = 2.5, kd = 3.25, th = 1e-3, w = 0.01;
  setup x;
  attitude_setup(&x, kp, kd);
  void *st = make(A, &x);
  double in[8] = {cos(th / 2), sin(th / 2), 0, 0, 1, w, 0, 0}, out[3];
  step(A, st, 0, in, out);
  /* exactly u = -kp e - kd w with e = 2 qe_vec (target identity: qe = q) */
  double e = 2 * in[1];
  assert_true(same_bits(out[0], -kp * e - kd * w));
  assert_true(out[1] == 0 && out[2] == 0);
  /* and to first order the linear law -kp theta - kd theta' */
  assert_true(fabs(out[0] - (-kp * th - kd * w)) < 1e-9);
  /* -q is the same attitude: the same command (sgn(qe_w)) */
  double in2[8] = {-in[0], -in[1], -in[2], -in[3], 1, w, 0, 0}, out2[3];
  step(A, st, 0.1, in2, out2);
  assert_true(same_bits(out2[0], out[0]));
  double tel[7];
  assert_int_equal(hg_attitude_pd_telemetry(st, tel), 0);
  assert_true(fabs(tel[0] - th) < 1e-15);
  assert_true(tel[1] == e && tel[4] == w);
  A->finish(st);
}

static void test_attitude_sign_90(void **unused) {
  const hg_builtin_ops *A = hg_builtin_find("attitude_pd");
  double kp = 1, kd = 1, c = sqrt(0.5);
  /* body turned +90 deg about z from the target (identity): the torque turns it back (-z) */
  setup x;
  attitude_setup(&x, kp, kd);
  void *st = make(A, &x);
  double in[8] = {c, 0, 0, c, 1, 0, 0, 0}, out[3];
  step(A, st, 0, in, out);
  assert_true(fabs(out[2] + 2 * c) < 1e-15 && out[0] == 0 && out[1] == 0);
  A->finish(st);
  /* target +90 deg about z, body at identity: the torque is +z */
  attitude_setup(&x, kp, kd);
  su_param(&x, "target", 4, c, 0.0, 0.0, c);
  st = make(A, &x);
  double in2[8] = {1, 0, 0, 0, 1, 0, 0, 0};
  step(A, st, 0, in2, out);
  assert_true(fabs(out[2] - 2 * c) < 1e-15 && out[0] == 0 && out[1] == 0);
  double tel[7];
  hg_attitude_pd_telemetry(st, tel);
  assert_true(fabs(tel[0] - TEST_PI / 2) < 1e-14);
  /* the body at target (x) (30 deg about x): qe = conj(target) (x) q is 30 deg about body x
   * (q (x) conj(target) would be about y) */
  double tq[4] = {c, 0, 0, c}, qx[4] = {cos(TEST_PI / 12), sin(TEST_PI / 12), 0, 0}, qb0[4];
  qmul(tq, qx, qb0);
  double in3[8] = {qb0[0], qb0[1], qb0[2], qb0[3], 1, 0, 0, 0};
  step(A, st, 0.1, in3, out);
  assert_true(fabs(out[0] + kp * 2 * sin(TEST_PI / 12)) < 1e-15);
  assert_true(fabs(out[1]) < 1e-15 && fabs(out[2]) < 1e-15);
  A->finish(st);
  /* a star tracker mounted 90 deg about x, and a gyro mounted 90 deg about y: the same body
   * attitude and rate give the same command as sensors on the body frame */
  double qb[4] = {cos(0.2), sin(0.2) * 0.6, 0, sin(0.2) * 0.8}, wb[3] = {0.1, -0.2, 0.3};
  double qbs1[4] = {c, c, 0, 0}, qbs2[4] = {c, 0, c, 0}, qws[4];
  qmul(qb, qbs1, qws); /* q_ws = q_wb q_bs */
  /* w_s = R(q_bs2)^T w_b: 90 deg about y maps body (x, y, z) to sensor (-z, y, x) */
  double ws[3] = {-wb[2], wb[1], wb[0]};
  attitude_setup(&x, 0.7, 1.3);
  st = make(A, &x);
  double inb[8] = {qb[0], qb[1], qb[2], qb[3], 1, wb[0], wb[1], wb[2]}, ub[3];
  step(A, st, 0, inb, ub);
  A->finish(st);
  attitude_setup(&x, 0.7, 1.3);
  double fr[8] = {qbs1[0], qbs1[1], qbs1[2], qbs1[3], qbs2[0], qbs2[1], qbs2[2], qbs2[3]};
  su_paramv(&x, "input_frames", 8, fr);
  st = make(A, &x);
  double ins[8] = {qws[0], qws[1], qws[2], qws[3], 1, ws[0], ws[1], ws[2]}, us[3];
  step(A, st, 0, ins, us);
  for (int i = 0; i < 3; i++) assert_true(fabs(us[i] - ub[i]) < 1e-14);
  A->finish(st);
}

static void test_attitude_wheels(void **unused) {
  const hg_builtin_ops *A = hg_builtin_find("attitude_pd");
  /* four wheels in a pyramid: elevation beta, azimuths 45 + 90 k deg */
  double beta = atan(1 / sqrt(2)), ax[12];
  for (int k = 0; k < 4; k++) {
    double az = TEST_PI / 4 + k * TEST_PI / 2;
    ax[3 * k] = cos(beta) * cos(az), ax[3 * k + 1] = cos(beta) * sin(az), ax[3 * k + 2] = sin(beta);
  }
  double q[4] = {cos(0.3), sin(0.3) * 0.48, sin(0.3) * 0.6, sin(0.3) * 0.64};
  double in[8] = {q[0], q[1], q[2], q[3], 1, 0.05, -0.02, 0.01};
  setup x;
  su_init(&x, 10);
  su_in(&x, "star_tracker", 5);
  su_in(&x, "gyro", 3);
  su_param(&x, "kp", 3, 1.0, 2.0, 3.0);
  su_param(&x, "kd", 3, 4.0, 5.0, 6.0);
  setup xc = x;
  xc.s.output = xc.out, xc.s.input = xc.in, xc.s.param = xc.p;
  for (int k = 0; k < xc.s.nparam; k++) xc.p[k].value = xc.val[k];
  su_out(&xc, "controller", 3);
  for (int k = 0; k < 4; k++) su_out(&x, "reaction_wheel", 1);
  su_paramv(&x, "wheel_axes", 12, ax);
  void *sw = make(A, &x), *sc = make(A, &xc);
  double tau[4], u[3];
  step(A, sw, 0, in, tau);
  step(A, sc, 0, in, u);
  /* the body feels -A tau = u */
  for (int i = 0; i < 3; i++) {
    double s = 0;
    for (int k = 0; k < 4; k++) s += ax[3 * k + i] * tau[k];
    assert_true(fabs(s + u[i]) < 1e-12);
  }
  /* minimum norm: tau has no part along the null space of A, (1, -1, 1, -1) */
  assert_true(fabs(tau[0] - tau[1] + tau[2] - tau[3]) < 1e-12);
  assert_true(fabs(u[0]) > 0.1);
  A->finish(sw), A->finish(sc);
  /* three orthogonal wheels: tau = -u */
  setup x3;
  su_init(&x3, 10);
  su_in(&x3, "star_tracker", 5);
  su_in(&x3, "gyro", 3);
  su_param(&x3, "kp", 3, 1.0, 2.0, 3.0);
  su_param(&x3, "kd", 3, 4.0, 5.0, 6.0);
  for (int k = 0; k < 3; k++) su_out(&x3, "reaction_wheel", 1);
  su_param(&x3, "wheel_axes", 9, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0);
  void *s3 = make(A, &x3);
  step(A, s3, 0, in, tau);
  for (int i = 0; i < 3; i++) assert_true(fabs(tau[i] + u[i]) < 1e-15);
  A->finish(s3);
  /* four wheels in one plane: rank 2 */
  setup xr;
  su_init(&xr, 10);
  su_in(&xr, "star_tracker", 5);
  su_in(&xr, "gyro", 3);
  su_param(&xr, "kp", 1, 1.0);
  su_param(&xr, "kd", 1, 1.0);
  for (int k = 0; k < 4; k++) su_out(&xr, "reaction_wheel", 1);
  double c = sqrt(0.5);
  su_param(&xr, "wheel_axes", 12, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, c, c, 0.0, c, -c, 0.0);
  expect_init_error(A, &xr, "rank < 3");
}

static void test_attitude_max_rate(void **unused) {
  const hg_builtin_ops *A = hg_builtin_find("attitude_pd");
  double kp = 10, kd = 2, mr = 0.1, th = 0.5;
  setup x;
  attitude_setup(&x, kp, kd);
  su_param(&x, "max_rate", 1, mr);
  void *st = make(A, &x);
  /* kp/kd e = 5 e ~ 2.5 rad/s > 0.1: the commanded approach is -0.1 rad/s about x */
  double in[8] = {cos(th / 2), sin(th / 2), 0, 0, 1, 0, 0, 0}, out[3];
  step(A, st, 0, in, out);
  assert_true(fabs(out[0] - (-kd * mr)) < 1e-14);
  /* approaching at max_rate: no torque; faster: a braking torque */
  in[5] = -mr;
  step(A, st, 0.1, in, out);
  assert_true(fabs(out[0]) < 1e-14);
  in[5] = -2 * mr;
  step(A, st, 0.2, in, out);
  assert_true(fabs(out[0] - kd * mr) < 1e-14);
  A->finish(st);
  /* below the limit: the plain law, bit for bit; max_rate = inf: the same */
  double small = 0.01;
  double in2[8] = {cos(small / 2), sin(small / 2), 0, 0, 1, 0.003, 0, 0}, o1[3], o2[3];
  st = make(A, &x);
  step(A, st, 0, in2, o1);
  A->finish(st);
  assert_true(same_bits(o1[0], -kp * (2 * in2[1]) - kd * in2[5]));
  attitude_setup(&x, kp, kd);
  su_param(&x, "max_rate", 1, INFINITY);
  st = make(A, &x);
  step(A, st, 0, in, o2);
  assert_true(same_bits(o2[0], -kp * (2 * in[1]) - kd * in[5]));
  A->finish(st);
  /* a finite max_rate with kd = 0 */
  attitude_setup(&x, kp, 0);
  su_param(&x, "max_rate", 1, mr);
  expect_init_error(A, &x, "kd > 0");
  /* max_torque scales the vector */
  attitude_setup(&x, kp, kd);
  su_param(&x, "max_torque", 1, 0.5);
  st = make(A, &x);
  double in3[8] = {cos(0.5), sin(0.5) * 0.6, sin(0.5) * 0.8, 0, 1, 0, 0, 0};
  step(A, st, 0, in3, out);
  assert_true(fabs(sqrt(out[0] * out[0] + out[1] * out[1] + out[2] * out[2]) - 0.5) < 1e-14);
  assert_true(fabs(out[0] / out[1] - 0.75) < 1e-14);
  A->finish(st);
}

static void test_attitude_dropout(void **unused) {
  const hg_builtin_ops *A = hg_builtin_find("attitude_pd");
  double kp = 2, kd = 0.5, wz = 0.2, dt = 0.1;
  setup x;
  attitude_setup(&x, kp, kd);
  void *st = make(A, &x);
  double out[3];
  /* before any valid sample: no command */
  double bad[8] = {1, 0, 0, 0, 0, 0, 0, wz};
  step(A, st, 0, bad, out);
  assert_true(isnan(out[0]) && isnan(out[1]) && isnan(out[2]));
  assert_int_equal(hg_attitude_pd_telemetry(st, (double[7]){0}), -1);
  double good[8] = {1, 0, 0, 0, 1, 0, 0, wz};
  step(A, st, 0.1, good, out);
  assert_true(same_bits(out[2], -kd * wz));
  /* dropout: q = (1, 0, 0, wz dt/2), normalized, then the law */
  double q[4] = {1, 0, 0, wz * dt / 2}, nq = sqrt(1 + q[3] * q[3]);
  double e1 = 2 * q[3] / nq;
  bad[0] = 0.3; /* an invalid sample's numbers are ignored */
  step(A, st, 0.2, bad, out);
  assert_true(fabs(out[2] - (-kp * e1 - kd * wz)) < 1e-15);
  /* a second dropout propagates the estimate again */
  double q1[4] = {1 / nq, 0, 0, q[3] / nq}, q2[4];
  qmul(q1, q, q2);
  double n2 = sqrt(q2[0] * q2[0] + q2[3] * q2[3]), e2 = 2 * q2[3] / n2;
  step(A, st, 0.3, bad, out);
  assert_true(fabs(out[2] - (-kp * e2 - kd * wz)) < 1e-15);
  assert_true(fabs(e2 - 2 * sin(wz * 2 * dt / 2)) < 1e-4);
  /* about x by 0.5 rad, turning about z: q (x) dq, not dq (x) q */
  double qa[4] = {cos(0.25), sin(0.25), 0, 0};
  double ga[8] = {qa[0], qa[1], qa[2], qa[3], 1, 0, 0, wz}, ba[8] = {0, 0, 0, 0, 0, 0, 0, wz};
  step(A, st, 0.35, ga, out);
  step(A, st, 0.36, ba, out);
  double qp[4];
  qmul(qa, q, qp);
  double np = sqrt(qp[0] * qp[0] + qp[1] * qp[1] + qp[2] * qp[2] + qp[3] * qp[3]);
  for (int i = 0; i < 3; i++)
    assert_true(fabs(out[i] - (-kp * 2 * qp[1 + i] / np - (i == 2 ? kd * wz : 0))) < 1e-15);
  /* a good sample again replaces the estimate */
  step(A, st, 0.4, good, out);
  assert_true(same_bits(out[2], -kd * wz));
  A->finish(st);
}

/* pose and twist sources give the command of star_tracker and gyro */
static void test_attitude_pose_twist(void **unused) {
  const hg_builtin_ops *A = hg_builtin_find("attitude_pd");
  double q[4] = {cos(0.4), sin(0.4) * 0.36, sin(0.4) * 0.48, sin(0.4) * 0.8};
  setup x;
  attitude_setup(&x, 1.7, 0.9);
  void *st = make(A, &x);
  double in[8] = {q[0], q[1], q[2], q[3], 1, 0.01, 0.02, -0.03}, u[3];
  step(A, st, 0, in, u);
  A->finish(st);
  su_init(&x, 10);
  su_in(&x, "pose", 7);
  su_in(&x, "twist", 6);
  su_out(&x, "controller", 3);
  su_param(&x, "kp", 1, 1.7);
  su_param(&x, "kd", 1, 0.9);
  st = make(A, &x);
  double in2[13] = {5, 6, 7, q[0], q[1], q[2], q[3], 0.01, 0.02, -0.03, 9, 9, 9}, u2[3];
  step(A, st, 0, in2, u2);
  assert_memory_equal(u, u2, sizeof u);
  A->finish(st);
}

/* closed loop, one axis, small angle: I theta'' = u follows I theta'' + kd theta' + kp theta = 0
 * (I = 2, kp = 2, kd = 2: omega_n = 1 rad/s, zeta = 0.5), sampled at 1 kHz with the torque held */
static void test_attitude_closed_loop(void **unused) {
  const hg_builtin_ops *A = hg_builtin_find("attitude_pd");
  double I = 2, kp = 2, kd = 2, rate = 1000, dt = 1 / rate, th = 0.01, w = 0;
  setup x;
  attitude_setup(&x, kp, kd);
  x.s.rate = rate;
  void *st = make(A, &x);
  int n = 3000;
  for (int k = 0; k < n; k++) {
    double in[8] = {cos(th / 2), 0, sin(th / 2), 0, 1, 0, w, 0}, u[3];
    step(A, st, k * dt, in, u);
    /* the torque held over the sample: exact for a constant acceleration */
    double a = u[1] / I;
    th += w * dt + 0.5 * a * dt * dt;
    w += a * dt;
  }
  A->finish(st);
  double wn = sqrt(kp / I), z = kd / (2 * sqrt(kp * I)), wd = wn * sqrt(1 - z * z), t = n * dt;
  double ref = 0.01 * exp(-z * wn * t) * (cos(wd * t) + z * wn / wd * sin(wd * t));
  assert_true(fabs(th - ref) < 2e-3 * 0.01);
  assert_true(fabs(ref) > 1e-3 * 0.01 * 10);
}

/* ---- joint_pd ---- */

static void test_joint_pd_bits(void **unused) {
  const hg_builtin_ops *J = hg_builtin_find("joint_pd");
  double kp[2] = {37.3, 0.731}, kd[2] = {1.3337, 0.0913}, tg[2] = {0.3, -1.7};
  setup x;
  su_init(&x, 1000);
  su_in(&x, "joint_state", 2);
  su_in(&x, "joint_state", 2);
  su_in(&x, "reference", 2);
  su_out(&x, "motor", 1);
  su_out(&x, "motor", 1);
  su_paramv(&x, "kp", 2, kp);
  su_paramv(&x, "kd", 2, kd);
  su_paramv(&x, "target", 2, tg);
  void *st = make(J, &x);
  double in[6], out[2];
  for (int k = 0; k < 50; k++) {
    double t = k * 1e-3;
    in[0] = 0.1 * sin(3.1 * t) + 1e-7 * k, in[1] = 0.31 * cos(3.1 * t) - 0.0123;
    in[2] = -1.1 + t * t, in[3] = 2 * t + 0.017;
    in[4] = 0.5 * t, in[5] = 0.5;
    step(J, st, t, in, out);
    /* a user's library: kp * (q_ref - q) + kd * (0.0 - v) for a constant target */
    volatile double q = in[0], v = in[1];
    double user0 = kp[0] * (tg[0] - q) + kd[0] * (0.0 - v);
    double user1 = kp[1] * (in[4] - in[2]) + kd[1] * (in[5] - in[3]);
    assert_true(same_bits(out[0], user0));
    assert_true(same_bits(out[1], user1));
  }
  J->finish(st);
}

static void test_joint_pd_encoder(void **unused) {
  const hg_builtin_ops *J = hg_builtin_find("joint_pd");
  double kp = 2.0, kd = 0.25, rate = 100;
  setup x;
  su_init(&x, rate);
  su_in(&x, "encoder", 1);
  su_out(&x, "motor", 1);
  su_param(&x, "kp", 1, kp);
  su_param(&x, "kd", 1, kd);
  su_param(&x, "effort", 1, 1.0);
  void *st = make(J, &x);
  double qs[5] = {0.1, 0.12, 0.125, 0.125, -0.5}, out[1], prev = 0;
  for (int k = 0; k < 5; k++) {
    step(J, st, k / rate, &qs[k], out);
    /* target = the first measured q; v by differencing, 0 at the first sample */
    double v = k == 0 ? 0.0 : (qs[k] - prev) * rate;
    double tau = kp * (qs[0] - qs[k]) + kd * (0.0 - v);
    if (tau > 1) tau = 1;
    if (tau < -1) tau = -1;
    assert_true(same_bits(out[0], tau));
    prev = qs[k];
  }
  assert_true(out[0] == 1.0); /* the last one clamped by effort */
  J->finish(st);
}

/* ---- thruster_logic ---- */

/* four thrusters: T0 torque +z, T1 -z, T2 (1, 0, 0.3) (serves +x only: 0.3 < 0.5 |c|), T3 (0.6,
 * 0, 0.8) (serves +x and +z) */
static void thruster_setup(setup *x, double rate) {
  su_init(x, rate);
  su_in(x, "controller", 3);
  for (int k = 0; k < 4; k++) su_out(x, "thruster", 2);
  su_param(x, "thruster_torque", 12, 0.0, 0.0, 1.0, 0.0, 0.0, -1.0, 1.0, 0.0, 0.3, 0.6, 0.0, 0.8);
  su_param(x, "on", 1, 0.2);
}

static void test_thruster_count(void **unused) {
  const hg_builtin_ops *L = hg_builtin_find("thruster_logic");
  setup x;
  thruster_setup(&x, 10);
  void *st = make(L, &x);
  /* z demands; on 0.2, off 0.1 (default on/2) */
  double uz[9] = {0, 0.3, 0.15, 0.05, 0.25, -0.3, -0.15, 0.05, 0};
  /* expected firing (T0, T1, T2, T3) at each sample, by hand:
   *  0: 0 < on: none                     1: 0.3 > on: +z (T0, T3) pulse 1
   *  2: 0.15 between off and on: keeps    3: 0.05 < off: stops
   *  4: 0.25: +z again, pulse 2           5: -0.3: +z stops, -z starts (T1) pulse 1
   *  6: -0.15: keeps -z                   7: 0.05: stops;  8: none */
  int fire[9][4] = {{0, 0, 0, 0}, {1, 0, 0, 1}, {1, 0, 0, 1}, {0, 0, 0, 0}, {1, 0, 0, 1},
                    {0, 1, 0, 0}, {0, 1, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}};
  double out[8];
  for (int k = 0; k < 8; k++) out[k] = NAN;
  for (int s = 0; s < 9; s++) {
    double in[3] = {0, 0, uz[s]};
    step(L, st, s / 10.0, in, out);
    for (int k = 0; k < 4; k++) {
      assert_true(out[2 * k] == fire[s][k]);
      assert_true(out[2 * k + 1] == (fire[s][k] ? 0.1 : 0));
    }
  }
  long want[4] = {2, 1, 0, 2};
  for (int k = 0; k < 4; k++) assert_int_equal(hg_thruster_logic_pulses(st, k), want[k]);
  assert_int_equal(hg_thruster_logic_pulses(st, 4), -1);
  L->finish(st);
  /* an x demand fires T2 and T3: they union with a z demand's T0, T3 */
  st = make(L, &x);
  double in[3] = {0.5, 0, 0.5};
  step(L, st, 0, in, out);
  assert_true(out[0] == 1 && out[2] == 0 && out[4] == 1 && out[6] == 1);
  L->finish(st);
  /* min_on 0.25 s at 10 Hz: a pulse the logic ends after one sample lasts on */
  thruster_setup(&x, 10);
  su_param(&x, "min_on", 1, 0.25);
  st = make(L, &x);
  double d[5] = {0.3, 0, 0, 0, 0.3};
  double on0[5] = {0.1, 0.1, 0.05, 0, 0.1};
  for (int s = 0; s < 5; s++) {
    double u3[3] = {0, 0, d[s]};
    step(L, st, 0.1 + s / 10.0, u3, out);
    assert_true(out[0] == (on0[s] > 0));
    assert_true(fabs(out[1] - on0[s]) < 1e-12);
  }
  assert_int_equal(hg_thruster_logic_pulses(st, 0), 2);
  L->finish(st);
}

static void test_thruster_pwm(void **unused) {
  const hg_builtin_ops *L = hg_builtin_find("thruster_logic");
  setup x;
  thruster_setup(&x, 10);
  su_param(&x, "pwm", 1, 1.0);
  su_param(&x, "min_on", 1, 0.02);
  void *st = make(L, &x);
  /* u_full(z, +) = 1 (T0) + 0.8 (T3) = 1.8 N m; T = 0.1 s */
  double uz[3] = {0.3, 1.2, 3.0};
  double want[3] = {0.02 /* 0.0167 clipped to min_on */, 1.2 / 1.8 * 0.1, 0.1 /* clipped */};
  double out[8];
  for (int s = 0; s < 3; s++) {
    double in[3] = {0, 0, uz[s]};
    step(L, st, s / 10.0, in, out);
    assert_true(out[0] == 1 && out[6] == 1);
    assert_true(fabs(out[1] - want[s]) < 1e-15 && fabs(out[7] - want[s]) < 1e-15);
    assert_true(out[2] == 0 && out[3] == 0);
  }
  /* every firing sample begins a pulse */
  assert_int_equal(hg_thruster_logic_pulses(st, 0), 3);
  L->finish(st);
  /* pwm with min_on beyond the period */
  thruster_setup(&x, 10);
  su_param(&x, "pwm", 1, 1.0);
  su_param(&x, "min_on", 1, 0.2);
  expect_init_error(L, &x, "min_on");
}

/* a 6-number demand: force axes served by the thrusters' forces, torque axes by their torques */
static void test_thruster_six(void **unused) {
  const hg_builtin_ops *L = hg_builtin_find("thruster_logic");
  setup x;
  su_init(&x, 10);
  su_in(&x, "controller", 6);
  su_out(&x, "thruster", 2);
  su_out(&x, "thruster", 2);
  /* T0: force +x, torque +z; T1: force -x, torque -z (0.5 >= 0.5 |c|: both dominant) */
  su_param(&x, "thruster_torque", 6, 0.0, 0.0, 0.5, 0.0, 0.0, -0.5);
  su_param(&x, "on", 1, 1.0);
  setup bad = x;
  bad.s.input = bad.in, bad.s.output = bad.out, bad.s.param = bad.p;
  for (int k = 0; k < bad.s.nparam; k++) bad.p[k].value = bad.val[k];
  expect_init_error(L, &bad, "needs parameter 'thruster_force'");
  su_param(&x, "thruster_force", 6, 1.0, 0.0, 0.0, -1.0, 0.0, 0.0);
  void *st = make(L, &x);
  double out[4];
  double f[6] = {2, 0, 0, 0, 0, 0}, tz[6] = {0, 0, 0, 0, 0, -2}, none[6] = {0};
  step(L, st, 0, f, out);
  assert_true(out[0] == 1 && out[2] == 0);
  step(L, st, 0.1, none, out);
  step(L, st, 0.2, tz, out);
  assert_true(out[0] == 0 && out[2] == 1);
  L->finish(st);
}

/* ---- checkpoints ---- */

/* runs n1 steps, saves, loads into a fresh instance, then runs both n2 steps: identical bits */
static void round_trip(const hg_builtin_ops *ops, const setup *x, int nin, int nout,
                       void (*input)(int k, double *in), int n1, int n2) {
  void *a = make(ops, x);
  double in[16], oa[16], ob[16];
  for (int i = 0; i < nout; i++) oa[i] = ob[i] = NAN;
  for (int k = 0; k < n1; k++) {
    input(k, in);
    step(ops, a, k * 0.1, in, oa);
  }
  int n = ops->save(a, NULL, 0);
  assert_true(n > 0);
  double buf[128];
  assert_true(n <= 128);
  assert_int_equal(ops->save(a, buf, n), n);
  void *b = make(ops, x);
  char err[256] = "";
  assert_int_equal(ops->load(b, buf, n, err, sizeof err), 0);
  assert_int_not_equal(ops->load(b, buf, n - 1, err, sizeof err), 0);
  memcpy(ob, oa, sizeof oa);
  for (int k = n1; k < n1 + n2; k++) {
    input(k, in);
    step(ops, a, k * 0.1, in, oa);
    step(ops, b, k * 0.1, in, ob);
    assert_memory_equal(oa, ob, (size_t)nout * sizeof(double));
  }
  if (ops == hg_builtin_find("thruster_logic"))
    for (int k = 0; k < nout / 2; k++)
      assert_int_equal(hg_thruster_logic_pulses(a, k), hg_thruster_logic_pulses(b, k));
  (void)nin;
  ops->finish(a), ops->finish(b);
}

static void attitude_input(int k, double *in) {
  double a = 0.05 * k;
  in[0] = cos(a), in[1] = sin(a) * 0.6, in[2] = 0, in[3] = sin(a) * 0.8;
  in[4] = (k % 4) != 3 && k < 6; /* dropouts from sample 6 on: the estimate matters */
  in[5] = 0.1, in[6] = -0.2 + 0.01 * k, in[7] = 0.05;
}

static void joint_input(int k, double *in) { in[0] = 0.3 * sin(0.7 * k); }

static void thruster_input(int k, double *in) {
  static const double z[12] = {0, 0.3, 0.15, 0.05, 0.25, 0.15, 0.12, -0.3, -0.15, 0.05, 0.3, 0.11};
  in[0] = 0, in[1] = 0, in[2] = z[k % 12];
}

static void test_save_load(void **unused) {
  setup x;
  attitude_setup(&x, 1.5, 2.5);
  su_param(&x, "max_rate", 1, 0.05);
  round_trip(hg_builtin_find("attitude_pd"), &x, 8, 3, attitude_input, 5, 8);
  round_trip(hg_builtin_find("attitude_pd"), &x, 8, 3, attitude_input, 7, 6);
  su_init(&x, 10);
  su_in(&x, "encoder", 1);
  su_out(&x, "motor", 1);
  su_param(&x, "kp", 1, 3.0);
  su_param(&x, "kd", 1, 0.7);
  round_trip(hg_builtin_find("joint_pd"), &x, 1, 1, joint_input, 3, 6);
  thruster_setup(&x, 10);
  su_param(&x, "min_on", 1, 0.35);
  round_trip(hg_builtin_find("thruster_logic"), &x, 3, 8, thruster_input, 2, 12);
  round_trip(hg_builtin_find("thruster_logic"), &x, 3, 8, thruster_input, 6, 12);
}

/* ---- set ---- */

static void test_set(void **unused) {
  const hg_builtin_ops *J = hg_builtin_find("joint_pd");
  setup x;
  su_init(&x, 10);
  su_in(&x, "joint_state", 2);
  su_out(&x, "motor", 1);
  su_param(&x, "kp", 1, 3.0);
  su_param(&x, "kd", 1, 0.5);
  su_param(&x, "target", 1, 1.0);
  void *st = make(J, &x);
  char err[256] = "";
  double in[2] = {0.5, 0.1}, out[1];
  step(J, st, 0, in, out);
  assert_true(same_bits(out[0], 3.0 * (1.0 - 0.5) + 0.5 * (0.0 - 0.1)));
  assert_int_equal(J->set(st, "kp", 1, (double[]){4.0}, err, sizeof err), 0);
  assert_int_not_equal(J->set(st, "kd", 1, (double[]){-1.0}, err, sizeof err), 0);
  assert_non_null(strstr(err, "kd"));
  assert_int_not_equal(J->set(st, "gain", 1, (double[]){1.0}, err, sizeof err), 0);
  step(J, st, 0.1, in, out);
  assert_true(same_bits(out[0], 4.0 * (1.0 - 0.5) + 0.5 * (0.0 - 0.1)));
  J->finish(st);
  const hg_builtin_ops *A = hg_builtin_find("attitude_pd");
  attitude_setup(&x, 1, 1);
  st = make(A, &x);
  /* kd = 0 with a finite max_rate is refused; the state is unchanged */
  assert_int_equal(A->set(st, "max_rate", 1, (double[]){0.1}, err, sizeof err), 0);
  assert_int_not_equal(A->set(st, "kd", 1, (double[]){0.0}, err, sizeof err), 0);
  double ina[8] = {1, 0, 0, 0, 1, 0.2, 0, 0}, oa[3];
  step(A, st, 0, ina, oa);
  assert_true(same_bits(oa[0], -1 * 0.2));
  A->finish(st);
}

/* ---- init errors ---- */

static void test_init_errors(void **unused) {
  const hg_builtin_ops *A = hg_builtin_find("attitude_pd"), *J = hg_builtin_find("joint_pd"),
                       *L = hg_builtin_find("thruster_logic");
  setup x;
  /* wrong sizes */
  su_init(&x, 10);
  su_in(&x, "star_tracker", 5);
  su_in(&x, "gyro", 3);
  su_out(&x, "controller", 3);
  su_param(&x, "kp", 2, 1.0, 2.0);
  su_param(&x, "kd", 1, 1.0);
  expect_init_error(A, &x, "'kp' has 2 numbers (expected 1 or 3)");
  attitude_setup(&x, 1, 1);
  su_param(&x, "target", 3, 1.0, 0.0, 0.0);
  expect_init_error(A, &x, "'target' has 3 numbers");
  attitude_setup(&x, 1, 1);
  su_param(&x, "input_frames", 4, 1.0, 0.0, 0.0, 0.0);
  expect_init_error(A, &x, "'input_frames' has 4 numbers");
  /* negative gains */
  attitude_setup(&x, -1, 1);
  expect_init_error(A, &x, "'kp'[0] = -1 must be >= 0");
  /* unknown parameter, missing gains */
  attitude_setup(&x, 1, 1);
  su_param(&x, "kpp", 1, 1.0);
  expect_init_error(A, &x, "unknown parameter 'kpp'");
  su_init(&x, 10);
  su_in(&x, "star_tracker", 5);
  su_in(&x, "gyro", 3);
  su_out(&x, "controller", 3);
  su_param(&x, "kp", 1, 1.0);
  expect_init_error(A, &x, "'kd' is required");
  /* ports */
  su_init(&x, 10);
  su_in(&x, "gyro", 3);
  su_in(&x, "star_tracker", 5);
  su_out(&x, "controller", 3);
  su_param(&x, "kp", 1, 1.0);
  su_param(&x, "kd", 1, 1.0);
  expect_init_error(A, &x, "kind 'gyro'");
  su_init(&x, 10);
  su_in(&x, "star_tracker", 5);
  su_in(&x, "gyro", 3);
  su_out(&x, "reaction_wheel", 1);
  su_out(&x, "reaction_wheel", 1);
  su_param(&x, "kp", 1, 1.0);
  su_param(&x, "kd", 1, 1.0);
  expect_init_error(A, &x, "at least 3");
  /* joint_pd: an unknown input kind, a count mismatch, a stray reference, negative kd */
  su_init(&x, 10);
  su_in(&x, "lidar", 1);
  su_out(&x, "motor", 1);
  su_param(&x, "kp", 1, 1.0);
  su_param(&x, "kd", 1, 1.0);
  expect_init_error(J, &x, "unknown kind 'lidar'");
  su_init(&x, 10);
  su_in(&x, "encoder", 1);
  su_out(&x, "motor", 1);
  su_out(&x, "motor", 1);
  su_param(&x, "kp", 1, 1.0);
  su_param(&x, "kd", 1, 1.0);
  expect_init_error(J, &x, "1 joint inputs for 2 motor outputs");
  su_init(&x, 10);
  su_in(&x, "reference", 2);
  su_in(&x, "encoder", 1);
  su_out(&x, "motor", 1);
  su_param(&x, "kp", 1, 1.0);
  su_param(&x, "kd", 1, 1.0);
  expect_init_error(J, &x, "does not follow a joint input");
  su_init(&x, 10);
  su_in(&x, "encoder", 1);
  su_out(&x, "motor", 1);
  su_param(&x, "kp", 1, 1.0);
  su_param(&x, "kd", 1, -0.5);
  expect_init_error(J, &x, "'kd'[0] = -0.5 must be >= 0");
  su_init(&x, 10);
  su_in(&x, "encoder", 1);
  su_out(&x, "motor", 1);
  su_param(&x, "kp", 1, 1.0);
  su_param(&x, "kd", 1, 1.0);
  su_param(&x, "target", 2, 1.0, 2.0);
  expect_init_error(J, &x, "'target' has 2 numbers (expected one per output: 1)");
  /* thruster_logic: geometry size, off above on, a wrong input kind, a string parameter */
  thruster_setup(&x, 10);
  x.p[0].n = 9;
  expect_init_error(L, &x, "'thruster_torque' has 9 numbers");
  thruster_setup(&x, 10);
  su_param(&x, "off", 1, 0.3);
  expect_init_error(L, &x, "off[0] = 0.3 exceeds on[0] = 0.2");
  thruster_setup(&x, 10);
  x.in[0].kind = "gyro";
  expect_init_error(L, &x, "kind 'gyro'");
  thruster_setup(&x, 10);
  x.p[1].n = 0, x.p[1].value = NULL, x.p[1].text = "big";
  expect_init_error(L, &x, "'on' must be numbers");
  thruster_setup(&x, 0);
  expect_init_error(L, &x, "rate 0 Hz");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_find),
      cmocka_unit_test(test_attitude_small_angle),
      cmocka_unit_test(test_attitude_sign_90),
      cmocka_unit_test(test_attitude_wheels),
      cmocka_unit_test(test_attitude_max_rate),
      cmocka_unit_test(test_attitude_dropout),
      cmocka_unit_test(test_attitude_pose_twist),
      cmocka_unit_test(test_attitude_closed_loop),
      cmocka_unit_test(test_joint_pd_bits),
      cmocka_unit_test(test_joint_pd_encoder),
      cmocka_unit_test(test_thruster_count),
      cmocka_unit_test(test_thruster_pwm),
      cmocka_unit_test(test_thruster_six),
      cmocka_unit_test(test_save_load),
      cmocka_unit_test(test_set),
      cmocka_unit_test(test_init_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
