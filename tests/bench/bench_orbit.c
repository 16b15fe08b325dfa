/* bench_orbit.c: one low-Earth orbit of a tumbling rigid body under CVODE, the cost and the
 * attitude error as the tolerance falls.
 *
 * Two bodies fly the same circular orbit (central gravity, mu = 3.986004418e14 m^3/s^2, radius
 * 6778 km, one period ~5554 s) with the same slow tumble: a 1,000 kg spacecraft with a full
 * inertia tensor and its centre of mass 0.58 m from its frame origin, and a 1 kg body with its
 * centre of mass at the origin and a diagonal inertia. Gravity acts at the centre of mass (no
 * gravity-gradient torque), so the attitude is torque-free; the reference attitude is the same
 * body integrated at rest (no orbital velocity, no gravity) by RKMK4 with a small step. Each row:
 * CVODE Adams steps, accelerations, and the attitude error |log(R_ref^T R)| after one orbit, then
 * the steps and attitude error of the same body and tolerance at rest (what the integrator
 * achieves without the orbit).
 * A body whose accelerations depend on its orbital velocity (round-off eps m |v|^2 in the
 * velocity products) forces tiny steps and an attitude error that stalls whatever the rtol.
 * What remains at rtol 1e-12 for the spacecraft (~1e-9 rad) is round-off of the gravity force
 * at its offset centre of mass, eps |c x f| / I ~ 1e-15 rad/s^2 integrated over the orbit
 * (with the centre of mass at the origin the same row reaches ~2e-11 rad). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hinge.h"
#include "integrator.h"
#include "models.h"

#define MU 3.986004418e14
#define RADIUS 6778e3
#define PI 3.14159265358979323846

typedef struct body {
  const char *name;
  hg_model *m;
  hg_data *d;
  double mass, c[3];
  int orbit; /* 1: central gravity; 0: no force (the reference at rest) */
  double fext[12];
} body;

static void make_body(body *b, const char *name, double mass, const double c[3], const double Ic[6]) {
  hg_inertia G;
  hg_error err;
  hg_builder *bl = hg_builder_new();
  if (hg_inertia_from_com(mass, c, Ic, &G, NULL, 0)) exit(1);
  hg_test_add_body(bl, "body", "world", HG_JOINT_FREE, NULL, NULL, 0, NULL, &G);
  b->m = hg_builder_compile(bl, &err);
  hg_builder_free(bl);
  if (!b->m) exit(1);
  b->m->gravity[0] = b->m->gravity[1] = b->m->gravity[2] = 0;
  b->d = hg_data_new(b->m);
  b->name = name;
  b->mass = mass;
  memcpy(b->c, c, sizeof b->c);
}

/* body frame {b}: origin p, rotation R (q = p, quaternion); gravity at the centre of mass
 * r = p + R c, f = -mu m r / |r|^3, as a wrench in {b} about its origin (c x f_b, f_b) */
static int accel(void *user, double t, const double *q, const double *v, double *vdot) {
  (void)t;
  body *b = user;
  double tau[6] = {0, 0, 0, 0, 0, 0};
  memset(b->fext, 0, sizeof b->fext);
  if (b->orbit) {
    double R[9], Rc[3], r[3], fw[3], *F = b->fext + 6;
    hg_quat_to_R(q + 3, R);
    hg_m3_mulv(R, b->c, Rc);
    for (int k = 0; k < 3; k++) r[k] = q[k] + Rc[k];
    double rn = hg_v3_norm(r), s = -MU * b->mass / (rn * rn * rn);
    for (int k = 0; k < 3; k++) fw[k] = s * r[k];
    hg_m3_mulTv(R, fw, F + 3);
    hg_v3_cross(b->c, F + 3, F);
  }
  return hg_aba(b->m, b->d, q, v, tau, b->fext, vdot);
}

/* initial state: centre of mass at (R, 0, 0) moving at (0, vc, 0) (vc circular, or 0 at rest),
 * rotation R0, body angular velocity w */
static void initial_state(const body *b, double vc, const double quat[4], const double w[3],
                          double q[7], double v[6]) {
  double R[9], Rc[3], ww[3], u[3];
  hg_quat_to_R(quat, R);
  hg_m3_mulv(R, b->c, Rc);
  double rc[3] = {vc > 0 ? RADIUS : 0, 0, 0}, vcw[3] = {0, vc, 0};
  for (int k = 0; k < 3; k++) q[k] = rc[k] - Rc[k];
  memcpy(q + 3, quat, 4 * sizeof(double));
  /* origin velocity = v_com + w_world x (p - r_c) = v_com - w_world x R c */
  hg_m3_mulv(R, w, ww);
  hg_v3_cross(ww, Rc, u);
  for (int k = 0; k < 3; k++) u[k] = vcw[k] - u[k];
  memcpy(v, w, 3 * sizeof(double));
  hg_m3_mulTv(R, u, v + 3);
}

/* integrate over [0, T]; returns the final quaternion and the counters */
static int run(body *b, int orbit, double rtol, double T, const double q0[7], const double v0[6],
               double qT[7], hg_integ_stats *st) {
  hg_system sys = {.m = b->m, .accel = accel, .user = b};
  hg_integ_options opt;
  hg_error err;
  /* rtol > 0: CVODE Adams; rtol < 0: RKMK4 with the step -rtol (the reference) */
  hg_integ_default_options(&opt, rtol > 0 ? HG_INTEG_CVODE_ADAMS : HG_INTEG_RKMK4);
  if (rtol > 0) opt.rtol = rtol;
  else opt.h = -rtol;
  opt.max_steps = 5000000;
  b->orbit = orbit;
  hg_integrator *I = hg_integrator_new(&sys, &opt, 0, q0, v0, &err);
  if (!I) return -1;
  int rc = hg_integrator_advance(I, T);
  memcpy(qT, hg_integrator_q(I), 7 * sizeof(double));
  hg_integrator_stats(I, st);
  hg_integrator_free(I);
  return rc;
}

int main(void) {
  const double c_big[3] = {0.3, -0.2, 0.45}, Ic_big[6] = {1200, 900, 1500, 40, -25, 60};
  const double c_small[3] = {0, 0, 0}, Ic_small[6] = {0.02, 0.03, 0.04, 0, 0, 0};
  const double quat[4] = {0.9, 0.1, -0.3, 0.2}, w[3] = {0.01, -0.02, 0.015};
  double qn[4];
  memcpy(qn, quat, sizeof qn);
  hg_quat_normalize(qn);
  body bodies[2];
  make_body(&bodies[0], "1000 kg, full inertia, offset CoM", 1000, c_big, Ic_big);
  make_body(&bodies[1], "1 kg, CoM at origin, diagonal", 1, c_small, Ic_small);
  double vc = sqrt(MU / RADIUS), T = 2 * PI * sqrt(RADIUS * RADIUS * RADIUS / MU);
  printf("one circular orbit, r = %.0f km, v = %.1f m/s, T = %.1f s, CVODE Adams\n", RADIUS / 1e3,
         vc, T);
  printf("%-36s %8s %10s %10s %14s %10s %14s\n", "body", "rtol", "steps", "rhs", "attitude err",
         "rest steps", "rest att. err");
  for (int bi = 0; bi < 2; bi++) {
    body *b = &bodies[bi];
    double q0[7], v0[6], qr0[7], vr0[6], qref[7], qT[7], Rref[9], R[9], D[9], e[3];
    hg_integ_stats st;
    /* the reference: the same body and tumble, at rest, torque-free, RKMK4 with a 0.02 s step
     * (|w| h ~ 5e-4); its own error is estimated against the 0.04 s step */
    double qh[7], Rh[9];
    initial_state(b, 0, qn, w, qr0, vr0);
    if (run(b, 0, -0.02, T, qr0, vr0, qref, &st)) return 1;
    if (run(b, 0, -0.04, T, qr0, vr0, qh, &st)) return 1;
    hg_quat_to_R(qref + 3, Rref);
    hg_quat_to_R(qh + 3, Rh);
    hg_m3_mulT(Rref, Rh, D);
    hg_so3_log(D, e);
    printf("%-36s reference (RKMK4 h = 0.02 s) differs from h = 0.04 s by %.3g rad\n", b->name,
           hg_v3_norm(e));
    initial_state(b, vc, qn, w, q0, v0);
    for (double rtol = 1e-6; rtol > 1e-12 * 0.99; rtol *= 0.01) {
      /* the same tolerance at rest: what the integrator achieves without the orbit */
      hg_integ_stats sr;
      int rc = run(b, 0, rtol, T, qr0, vr0, qT, &sr);
      hg_quat_to_R(qT + 3, R);
      hg_m3_mulT(Rref, R, D);
      hg_so3_log(D, e);
      double er = hg_v3_norm(e);
      rc |= run(b, 1, rtol, T, q0, v0, qT, &st);
      hg_quat_to_R(qT + 3, R);
      hg_m3_mulT(Rref, R, D);
      hg_so3_log(D, e);
      printf("%-36s %8.0e %10ld %10ld %14.3g %10ld %14.3g%s\n", b->name, rtol, st.steps,
             st.rhs_evals, hg_v3_norm(e), sr.steps, er, rc ? "  (failed)" : "");
      fflush(stdout);
    }
  }
  for (int bi = 0; bi < 2; bi++) {
    hg_data_free(bodies[bi].d);
    hg_model_free(bodies[bi].m);
  }
  return 0;
}
