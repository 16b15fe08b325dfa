/* bench_integrators.c: work against precision of the integrators over 10 s.
 *
 * Two systems, both with gravity and no joint torques: a 3-link spatial pendulum (three links on
 * spherical joints, 9 DoF, built here) swinging moderately, and the 32-DoF humanoid-like tree of
 * hg_test_humanoid() flying ballistically with its joints swinging. For each method and tolerance
 * (CVODE) or step (fixed-step methods) one run over [0, 10] s; the table gives internal steps,
 * accelerations evaluated (including CVODE's finite-difference Jacobians), wall time, and the final
 * error on the group, sqrt(|q (-) q_ref|^2 + |v - v_ref|^2), against a reference run of RKMK4 with
 * a tiny step, itself checked against CVODE Adams at rtol 1e-13 (the "reference" line).
 * Also counts heap allocations inside hg_integrator_advance after the first step (there must be
 * none; CVODE BDF's linear solver allocates once, at its first use).
 *
 *   bench_integrators           the full table (about a minute)
 *   bench_integrators --quick   fewer rows and a coarser reference (a smoke run) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "allocs.h"
#include "hinge.h"
#include "integrator.h"
#include "models.h"


static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return 1e3 * (double)ts.tv_sec + 1e-6 * (double)ts.tv_nsec;
}

static void die(const char *why) {
  fprintf(stderr, "bench_integrators: %s\n", why);
  exit(1);
}

/* ---- systems ---- */

typedef struct plant {
  const char *name;
  hg_model *m;
  hg_data *d;
  double *tau, *q0, *v0;
} plant;

/* vdot = ABA(q, v, tau = 0) */
static int plant_accel(void *user, double t, const double *q, const double *v, double *vdot) {
  plant *p = user;
  return hg_aba(p->m, p->d, q, v, p->tau, NULL, vdot);
}

static void plant_alloc(plant *p) {
  p->d = hg_data_new(p->m);
  p->tau = calloc((size_t)p->m->nv, sizeof(double));
  p->q0 = calloc((size_t)p->m->nq, sizeof(double));
  p->v0 = calloc((size_t)p->m->nv, sizeof(double));
  hg_model_neutral(p->m, p->q0);
}

/* three 0.5 m links in a chain on spherical joints (1 kg, asymmetric, centre of mass mid-link),
 * released tilted by 0.4 rad about different axes and spinning gently */
static plant three_link_pendulum(void) {
  static const double com[3] = {0, 0, -0.25}, Ic[6] = {0.02, 0.022, 0.004, 0, 0, 0};
  static const char *names[3] = {"link1", "link2", "link3"};
  hg_builder *b = hg_builder_new();
  for (int i = 0; i < 3; i++) {
    hg_body_spec s;
    hg_error err;
    const char *why;
    memset(&s, 0, sizeof s);
    s.name = names[i];
    s.parent = i ? names[i - 1] : "world";
    hg_joint_init(&s.joint, HG_JOINT_SPHERICAL, NULL, NULL, 0, &why);
    hg_se3_identity(&s.offset);
    s.offset.p[2] = i ? -0.5 : 0;
    if (hg_inertia_from_com(1.0, com, Ic, &s.inertia, NULL, 0) || hg_builder_add_body(b, &s, &err))
      die("3-link pendulum: bad link");
  }
  hg_error err;
  plant p = {"3-link pendulum", hg_builder_compile(b, &err), NULL, NULL, NULL, NULL};
  hg_builder_free(b);
  if (!p.m) die(err.msg);
  plant_alloc(&p);
  const double tilt[3][3] = {{0.4, 0, 0}, {0, 0.4, 0}, {0.2, 0.2, 0.2}};
  for (int i = 0; i < 3; i++) {
    hg_quat_exp(tilt[i], p.q0 + 4 * i);
    p.v0[3 * i + 2] = 0.5; /* spin about the link axis */
  }
  return p;
}

/* the humanoid thrown up at 3 m/s, tumbling at ~0.2 rad/s, joints swinging at up to 0.3 rad/s
 * (much faster and the floppy free-flying tree turns chaotic within 10 s: no run, not even the
 * reference, would then say anything about the methods) */
static plant humanoid(void) {
  plant p = {"humanoid 32-DoF", hg_test_humanoid(), NULL, NULL, NULL, NULL};
  plant_alloc(&p);
  hg_rng r;
  hg_rng_seed(&r, 7);
  const double base[6] = {0.1, -0.16, 0.06, 0, 0, 3.0};
  memcpy(p.v0, base, sizeof base);
  for (int k = 6; k < p.m->nv; k++) p.v0[k] = hg_rng_range(&r, -0.3, 0.3);
  return p;
}

static void plant_free(plant *p) {
  hg_data_free(p->d);
  hg_model_free(p->m);
  free(p->tau);
  free(p->q0);
  free(p->v0);
}

/* ---- runs ---- */

typedef struct result {
  hg_integ_stats st;
  double ms, err;
  long allocs;
  int rc;
} result;

/* one run of p over [0, T]; the final state in (q, v) */
static result run(plant *p, hg_integ_method method, double setting, double T, double *q,
                  double *v) {
  hg_system sys = {p->m, plant_accel, 0, NULL, NULL, p, 0, NULL, NULL};
  hg_integ_options o;
  hg_error err;
  result r;
  hg_integ_default_options(&o, method);
  if (method == HG_INTEG_RKMK4 || method == HG_INTEG_LIE_EULER) o.h = setting;
  else o.rtol = setting; /* absolute tolerances: rtol x 1 unit */
  hg_integrator *I = hg_integrator_new(&sys, &o, 0, p->q0, p->v0, &err);
  if (!I) die(err.msg);
  /* the first step is not counted: CVODE's linear solver allocates a copy of the Jacobian at
   * its first use (once per integrator) */
  double t0 = now_ms();
  r.rc = hg_integrator_step(I, T);
  long a0 = hg_allocs();
  if (r.rc == HG_INTEG_OK) r.rc = hg_integrator_advance(I, T);
  r.allocs = hg_allocs() - a0;
  r.ms = now_ms() - t0;
  if (r.rc != HG_INTEG_OK) fprintf(stderr, "%s\n", hg_integrator_error_message(I));
  hg_integrator_stats(I, &r.st);
  memcpy(q, hg_integrator_q(I), (size_t)p->m->nq * sizeof(double));
  memcpy(v, hg_integrator_v(I), (size_t)p->m->nv * sizeof(double));
  hg_integrator_free(I);
  return r;
}

/* sqrt(|q (-) qr|^2 + |v - vr|^2) */
static double state_error(const hg_model *m, const double *q, const double *v, const double *qr,
                          const double *vr, double *work) {
  double s = 0;
  hg_model_difference(m, qr, q, work);
  for (int k = 0; k < m->nv; k++) s += work[k] * work[k] + (v[k] - vr[k]) * (v[k] - vr[k]);
  return sqrt(s);
}

typedef struct row {
  hg_integ_method method;
  double setting;
} row;

static void print_row(const plant *p, hg_integ_method method, double setting, const result *r,
                      long *total_allocs) {
  int fixed = method == HG_INTEG_RKMK4 || method == HG_INTEG_LIE_EULER;
  printf("| %-15s | %-11s | %s %-7.0e | %8ld | %9ld | %9.1f | %9.2e |%s\n", p->name,
         hg_integ_method_name(method), fixed ? "h   " : "rtol", setting, r->st.steps,
         r->st.rhs_evals, r->ms, r->err, r->rc == HG_INTEG_OK ? "" : " FAILED");
  *total_allocs += r->allocs;
}

/* the table of one system; returns the allocations counted inside advance */
static long bench_system(plant *p, const row *rows, int nrows, double h_ref, int quick) {
  const double T = 10;
  int nq = p->m->nq, nv = p->m->nv;
  double *qr = calloc((size_t)nq, sizeof(double)), *vr = calloc((size_t)nv, sizeof(double));
  double *q = calloc((size_t)nq, sizeof(double)), *v = calloc((size_t)nv, sizeof(double));
  double *work = calloc((size_t)nv, sizeof(double));
  long allocs = 0;
  result ref = run(p, HG_INTEG_RKMK4, h_ref, T, qr, vr);
  result check = run(p, HG_INTEG_CVODE_ADAMS, quick ? 1e-10 : 1e-13, T, q, v);
  check.err = state_error(p->m, q, v, qr, vr, work);
  ref.err = 0;
  printf("| %-15s | reference: rkmk4 h %.1e (%.0f ms) vs cvode-adams rtol %.0e: %.2e |\n",
         p->name, h_ref, ref.ms, quick ? 1e-10 : 1e-13, check.err);
  for (int i = 0; i < nrows; i++) {
    result r = run(p, rows[i].method, rows[i].setting, T, q, v);
    r.err = state_error(p->m, q, v, qr, vr, work);
    print_row(p, rows[i].method, rows[i].setting, &r, &allocs);
  }
  free(qr); free(vr); free(q); free(v); free(work);
  return allocs;
}

int main(int argc, char **argv) {
  int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
  static const row full[] = {
      {HG_INTEG_CVODE_BDF, 1e-4},   {HG_INTEG_CVODE_BDF, 1e-6},   {HG_INTEG_CVODE_BDF, 1e-8},
      {HG_INTEG_CVODE_BDF, 1e-10},  {HG_INTEG_CVODE_ADAMS, 1e-4}, {HG_INTEG_CVODE_ADAMS, 1e-6},
      {HG_INTEG_CVODE_ADAMS, 1e-8}, {HG_INTEG_CVODE_ADAMS, 1e-10}, {HG_INTEG_RKMK4, 1e-2},
      {HG_INTEG_RKMK4, 3e-3},       {HG_INTEG_RKMK4, 1e-3},       {HG_INTEG_RKMK4, 3e-4},
      {HG_INTEG_LIE_EULER, 1e-3},   {HG_INTEG_LIE_EULER, 1e-4},
  };
  static const row short_rows[] = {
      {HG_INTEG_CVODE_BDF, 1e-6}, {HG_INTEG_CVODE_ADAMS, 1e-6}, {HG_INTEG_RKMK4, 3e-3},
      {HG_INTEG_LIE_EULER, 1e-3},
  };
  const row *rows = quick ? short_rows : full;
  int nrows = quick ? 4 : (int)(sizeof full / sizeof full[0]);
  printf("work-precision over 10 s (error on the group against the reference at t = 10)\n\n");
  printf("| %-15s | %-11s | %-12s | %8s | %9s | %9s | %9s |\n", "system", "method", "setting",
         "steps", "rhs evals", "wall ms", "error");
  printf("|-----------------|-------------|--------------|----------|-----------|-----------|"
         "-----------|\n");
  plant p = three_link_pendulum(), h = humanoid();
  long allocs = bench_system(&p, rows, nrows, quick ? 1e-4 : 2.5e-5, quick);
  allocs += bench_system(&h, rows, nrows, quick ? 1e-4 : 5e-5, quick);
  if (hg_allocs_counted())
    printf("\nheap allocations inside hg_integrator_advance after the first step: %ld\n", allocs);
  else
    printf("\nheap allocations not counted (AddressSanitizer build)\n");
  plant_free(&p);
  plant_free(&h);
  return allocs != 0;
}
