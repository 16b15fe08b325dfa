/* cli_linearize.c: `hinge linearize SCENE [--at T] [--rest] [--equilibrium] [--out DIR]`: the
 * state-space model of a scene at one instant or at an equilibrium found from it
 * (dynamics/algorithms/linearize.h), its modes, as CSV tables, a summary and a plot (cli_linearize_plot.c). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "cli_loops.h"
#include "forces.h"
#include "linearize.h"
#include "outfile.h"
#include "sim.h"

#define TWO_PI 6.283185307179586476925

/* the command line */
typedef struct lin_args {
  const char *scene, *out;
  double at, step, tol;
  int has_at, rest, equilibrium, help, no_plots;
} lin_args;

void hg_cli_linearize_usage(FILE *f) {
  fprintf(f,
          "usage: hinge linearize SCENE [--at T] [--rest] [--equilibrium [--tol R]] [--out DIR]\n"
          "                         [--step H] [--no-plots]\n"
          "\n"
          "Linearizes a scene's dynamics on the Lie group at time T (default: its start), after\n"
          "running it to T: d(dx)/dt = A dx + B du with dx = (q (-) q0, v - v0) over the joints\n"
          "that are free at T (prescribed and locked joints follow their profiles and are not\n"
          "part of the state; for spherical and free joints q (-) q0 is the rotation vector or\n"
          "twist of q0^-1 q in the child frame) and du the forces of those joints. Derivatives\n"
          "of the dynamics and of joint springs (but on free joints) are analytic; those of the\n"
          "other force elements are central differences on the group of step H (default 1e-6;\n"
          "H max(1, |position|) for lengths); the summary says which, element by element.\n"
          "Prints a summary and the modes; with --out writes into DIR (created if needed):\n"
          "  A.csv, B.csv          the matrices, a header row of column names and one named row\n"
          "                        per state: JOINT.q.NAME (tangent of q), JOINT.v.NAME, inputs\n"
          "                        JOINT.tau.NAME\n"
          "  point.csv             the operating point: JOINT.qK, JOINT.vK, JOINT.vdotK (prescribed\n"
          "                        joints) and JOINT.mode (0 free, 1 prescribed, 2 locked); fixed\n"
          "                        joints, which have none of these, are left out\n"
          "  modes.csv             eigenvalues of A (re, im), natural frequency |lambda|, damped\n"
          "                        frequency |im|/2pi (Hz), damping ratio -re/|lambda|, and the\n"
          "                        mode shape: the dq part of the eigenvector scaled so that its\n"
          "                        largest component is 1 (real parts in JOINT.q.NAME,\n"
          "                        imaginary parts in JOINT.q.NAME.im)\n"
          "  modes_undamped.csv    K phi = w^2 M phi (K = -M dvdot/dq, symmetric part, M the free\n"
          "                        joints' mass matrix): w^2, w, Hz, and M-orthonormal shapes\n"
          "  modes.png             the eigenvalues of A in the complex plane, and the shapes of\n"
          "                        the first elastic modes of K phi = w^2 M phi against the\n"
          "                        states' names (not with --no-plots)\n"
          "With closed loops (loops: in the scene) the states are independent coordinates\n"
          "z = N^T (q (-) q0) and zdot = N^T v (z1.., zdot1..), N an orthonormal basis of the\n"
          "null space of the loops' rows at the free DoFs (written to N.csv: dq = N z), A and\n"
          "B by central differences of the constrained dynamics, inputs the free DoFs' forces;\n"
          "--equilibrium runs Newton's method in z (docs/linearization.md).\n"
          "options:\n"
          "  --at T     linearize at time T (the scene runs from its start to T)\n"
          "  --rest     about the configuration at T with every velocity and prescribed\n"
          "             acceleration zero (modal analysis of a structure)\n"
          "  --equilibrium  about an equilibrium found from the configuration at T: with every\n"
          "             velocity zero and the prescribed and locked joints held where they are,\n"
          "             Newton's method on the group moves the free joints until their\n"
          "             accelerations vanish (gravity, joint springs and force elements\n"
          "             balanced); fails (status 3) when it does not converge\n"
          "  --tol R    the equilibrium's tolerance on max |vdot| (default 1e-10)\n"
          "  --out DIR  write the files above into DIR\n"
          "  --step H   central-difference step of the force elements' derivatives\n"
          "  --no-plots do not draw modes.png (the CSV files and summary.txt only)\n"
          "exit status: 0 success, 1 output error, 2 bad usage or an invalid scene,\n"
          "             3 numerical failure (simulation to T, singular inertia, LAPACK, no\n"
          "             equilibrium found)\n");
}

/* "hinge linearize: " message, the usage, and the usage exit status */
static int usage_error(const char *fmt, const char *arg) {
  return hg_cli_usage_error("linearize", hg_cli_linearize_usage, fmt, arg);
}

static int parse_args(int argc, char **argv, lin_args *a) {
  memset(a, 0, sizeof *a);
  for (int i = 1; i < argc; i++) {
    const char *s = argv[i];
    if (!strcmp(s, "--help") || !strcmp(s, "-h")) {
      a->help = 1;
    } else if (!strcmp(s, "--rest")) {
      a->rest = 1;
    } else if (!strcmp(s, "--no-plots")) {
      a->no_plots = 1;
    } else if (!strcmp(s, "--equilibrium")) {
      a->equilibrium = a->rest = 1;
    } else if (!strcmp(s, "--at") || !strcmp(s, "--step") || !strcmp(s, "--tol")) {
      if (i + 1 >= argc) return usage_error("%s needs a number", s);
      double x;
      if (hg_cli_number(argv[++i], &x) || (strcmp(s, "--at") && !(x > 0)))
        return usage_error("'%s' is not a valid number here", argv[i]);
      if (!strcmp(s, "--at")) a->at = x, a->has_at = 1;
      else if (!strcmp(s, "--tol")) a->tol = x;
      else a->step = x;
    } else if (!strcmp(s, "--out")) {
      if (i + 1 >= argc) return usage_error("%s needs a folder", s);
      a->out = argv[++i];
    } else if (s[0] == '-' && s[1]) {
      return usage_error("unknown option '%s'", s);
    } else if (!a->scene) {
      a->scene = s;
    } else {
      return usage_error("unexpected argument '%s'", s);
    }
  }
  if (!a->help && !a->scene) return usage_error("%s", "missing SCENE");
  return 0;
}

/* ---- the scene at T ---- */

/* what the linearization needs of the scene at T */
typedef struct lin_point {
  hg_scene *scene;
  hg_sim *sim;
  const hg_model *m;
  hg_data *d;
  hg_forces *forces;
  double t, *q, *v, *qdd;
  int qdd_note; /* 1: prescribed accelerations could not be differenced (set to zero) */
  hg_cli_loops loops; /* the scene's loops, compiled against m (loops.L NULL: none) */
  hg_loops_linear *Z; /* with closed loops: the linearization in independent coordinates */
} lin_point;

typedef struct force_ctx {
  const hg_forces *f;
  double t;
} force_ctx;

/* the elements left to central differences, those with analytic derivatives, and theirs */
static void numeric_forces(void *ctx, const hg_model *m, const hg_data *d, const double *q,
                           const double *v, double *fext, double *tau) {
  const force_ctx *c = ctx;
  hg_forces_apply_part(c->f, m, d, c->t, q, v, HG_FORCES_NUMERIC, fext, tau);
}

/* every enabled element (the closed-loop linearization differences them all) */
static void all_forces(void *ctx, const hg_model *m, const hg_data *d, const double *q,
                       const double *v, double *fext, double *tau) {
  const force_ctx *c = ctx;
  hg_forces_apply(c->f, m, d, c->t, q, v, fext, tau);
}

static void analytic_forces(void *ctx, const hg_model *m, const hg_data *d, const double *q,
                            const double *v, double *fext, double *tau) {
  const force_ctx *c = ctx;
  hg_forces_apply_part(c->f, m, d, c->t, q, v, HG_FORCES_ANALYTIC, fext, tau);
}

static void analytic_derivatives(void *ctx, const hg_model *m, const hg_data *d, const double *q,
                                 const double *v, double *dQ_dq, double *dQ_dv) {
  const force_ctx *c = ctx;
  (void)d, (void)v;
  hg_forces_derivatives(c->f, m, q, dQ_dq, dQ_dv);
}

/* runs the scene to T and copies its state, modes and enabled forces; 0 or an exit status */
static int load_point(const lin_args *a, lin_point *p) {
  hg_error err;
  hg_sim_options opt;
  memset(p, 0, sizeof *p);
  if (!(p->scene = hg_scene_load(a->scene, &err))) {
    fprintf(stderr, "hinge: %s\n", err.msg);
    return HG_EXIT_USAGE;
  }
  /* the prescribed accelerations at T: a one-sided three-point difference of the prescribed
   * velocities over T, T + dt, T + 2 dt (their profiles are smooth; error ~dt^2) */
  const double dt = 1e-4;
  hg_sim_default_options(&opt);
  p->t = a->has_at ? a->at : p->scene->t_start;
  if (p->t < p->scene->t_start) {
    fprintf(stderr, "hinge: --at %g is before the scene's start %g\n", p->t, p->scene->t_start);
    return HG_EXIT_USAGE;
  }
  if (p->t > p->scene->t_end) {
    fprintf(stderr, "hinge: %s: --at %g is after the scene's end %g (time: end): the scene's "
                    "events and commands stop there; extend time: end to linearize later\n",
            a->scene, p->t, p->scene->t_end);
    return HG_EXIT_USAGE;
  }
  opt.t_end = fmax(p->scene->t_end, p->t + 3 * dt);
  if (!(p->sim = hg_sim_new(p->scene, &opt, &err))) {
    fprintf(stderr, "hinge: %s\n", err.msg);
    return HG_EXIT_USAGE;
  }
  if (p->t > p->scene->t_start && hg_sim_run(p->sim, p->t) != HG_SIM_OK) {
    fprintf(stderr, "hinge: running the scene to t = %g: %s\n", p->t, hg_sim_error(p->sim));
    return HG_EXIT_SINGULAR;
  }
  p->m = hg_sim_model(p->sim);
  int nq = p->m->nq, nv = p->m->nv;
  p->d = hg_data_new(p->m);
  p->q = calloc((size_t)nq + 1, sizeof(double));
  p->v = calloc((size_t)nv + 1, sizeof(double));
  p->qdd = calloc(3 * (size_t)nv + 1, sizeof(double));
  if (!p->d || !p->q || !p->v || !p->qdd) return HG_EXIT_FAILURE;
  memcpy(p->q, hg_sim_q(p->sim), (size_t)nq * sizeof(double));
  memcpy(p->v, hg_sim_v(p->sim), (size_t)nv * sizeof(double));
  for (int i = 1; i < p->m->nbody; i++) {
    hg_sim_joint_view jv;
    hg_sim_joint(p->sim, i, &jv);
    p->d->mode[i] = (uint8_t)jv.mode;
  }
  /* the force elements, enabled as they are at T */
  hg_force_input in;
  hg_forces_input_of(p->scene, &in);
  in.lenient = 1;
  if (!(p->forces = hg_forces_build(&in, NULL, p->m, &err))) {
    fprintf(stderr, "hinge: %s\n", err.msg);
    return HG_EXIT_USAGE;
  }
  for (int k = 0; k < hg_sim_nforce(p->sim); k++) {
    hg_force_view fv;
    hg_sim_force(p->sim, k, &fv);
    int e = hg_forces_find(p->forces, fv.name);
    if (e >= 0) hg_forces_set_enabled(p->forces, e, fv.enabled);
  }
  /* the closed loops: compiled as the run compiles them, closed as at the start */
  if (hg_cli_loops_build(p->scene, p->m, &p->loops, &err)) {
    fprintf(stderr, "hinge: %s\n", err.msg);
    return HG_EXIT_USAGE;
  }
  if (p->loops.nactive && !(p->Z = hg_loops_linear_new(p->m, p->loops.L))) return HG_EXIT_FAILURE;
  if (a->rest) {
    memset(p->v, 0, (size_t)nv * sizeof(double));
    return 0;
  }
  double *v1 = p->qdd + nv, *v2 = p->qdd + 2 * nv;
  unsigned long version = hg_sim_model_version(p->sim);
  int ok = hg_sim_run(p->sim, p->t + dt) == HG_SIM_OK && hg_sim_model_version(p->sim) == version;
  if (ok) memcpy(v1, hg_sim_v(p->sim), (size_t)nv * sizeof(double));
  ok = ok && hg_sim_run(p->sim, p->t + 2 * dt) == HG_SIM_OK &&
       hg_sim_model_version(p->sim) == version;
  if (ok) memcpy(v2, hg_sim_v(p->sim), (size_t)nv * sizeof(double));
  for (int k = 0; k < nv; k++)
    p->qdd[k] = ok ? (-3 * p->v[k] + 4 * v1[k] - v2[k]) / (2 * dt) : 0;
  p->qdd_note = !ok;
  return 0;
}

static void free_point(lin_point *p) {
  hg_loops_linear_free(p->Z);
  hg_cli_loops_free(&p->loops);
  hg_forces_free(p->forces);
  hg_data_free(p->d);
  hg_sim_free(p->sim);
  hg_scene_free(p->scene);
  free(p->q); free(p->v); free(p->qdd);
}

/* ---- names and tables ---- */

/* the name of free DoF a's state (part 0: dq, 1: dv) or input (part 2: tau); with closed loops
 * (L->dof NULL) the independent coordinates za and their rates zdota */
static void state_name(const hg_model *m, const hg_linear *L, int a, int part, char *s, size_t n) {
  static const char *const what[] = {"q", "v", "tau"};
  static const int entry[] = {3, 1, 2}; /* hg_joint_entry_name: tangent of q, rates, forces */
  if (!L->dof) {
    snprintf(s, n, "%s%d", part ? "zdot" : "z", a + 1);
    return;
  }
  int k = L->dof[a], i = m->dof_body[k];
  snprintf(s, n, "%s.%s.%s", m->jnt_name[i], what[part],
           hg_joint_entry_name(m->jnt[i].type, entry[part], k - m->v_adr[i], NULL));
}

/* The CSV files and the summary are each written whole or not at all (outfile.h: a temporary
 * renamed over the name when complete, never through a link planted there), with every write
 * checked; names go into fields quoted as RFC 4180 says. lin_fail says which file failed and why
 * and returns -1. */
static int lin_fail(const hg_outfile *o) {
  char msg[4400];
  hg_outfile_message(o, msg, sizeof msg);
  fprintf(stderr, "hinge: %s\n", msg);
  return -1;
}
static int lin_close(hg_outfile *o) { return hg_outfile_close(o) ? lin_fail(o) : 0; }

/* a matrix with named rows (the states) and columns (states, or inputs when inputs) */
static int write_matrix(const char *path, const hg_model *m, const hg_linear *L, const double *X,
                        int inputs) {
  hg_outfile o;
  if (hg_outfile_replace(&o, path)) return lin_fail(&o);
  FILE *f = o.f;
  int nf = L->nf, ncol = inputs ? nf : 2 * nf;
  char name[256];
  fprintf(f, "state");
  for (int c = 0; c < ncol; c++) {
    state_name(m, L, c % nf, inputs ? 2 : c / nf, name, sizeof name);
    hg_csv_field(f, 1, "%s", name);
  }
  fputc('\n', f);
  for (int r = 0; r < 2 * nf; r++) {
    state_name(m, L, r % nf, r / nf, name, sizeof name);
    hg_csv_field(f, 0, "%s", name);
    for (int c = 0; c < ncol; c++) fprintf(f, ",%.17g", X[(size_t)r * ncol + c]);
    fputc('\n', f);
  }
  return lin_close(&o);
}

/* the name of model DoF k as a tangent of q or a force, as the states: JOINT.q.NAME,
 * JOINT.tau.NAME (what "q" or "tau") */
static void dof_name(const hg_model *m, int k, const char *what, char *s, size_t n) {
  int i = m->dof_body[k];
  snprintf(s, n, "%s.%s.%s", m->jnt_name[i], what,
           hg_joint_entry_name(m->jnt[i].type, what[0] == 'q' ? 3 : 2, k - m->v_adr[i], NULL));
}

/* with closed loops: B (rows z, zdot; columns the free DoFs' forces) and the basis N (rows the
 * model's DoFs, columns z1..zf): dq = N z maps the coordinates back to the joints */
static int write_loops_B(const char *path, const hg_model *m, const hg_linear *Ls,
                         const hg_loops_linear *Z) {
  hg_outfile o;
  if (hg_outfile_replace(&o, path)) return lin_fail(&o);
  FILE *f = o.f;
  char name[256];
  fprintf(f, "state");
  for (int c = 0; c < Z->nfree; c++) dof_name(m, Z->dof[c], "tau", name, sizeof name), hg_csv_field(f, 1, "%s", name);
  fputc('\n', f);
  for (int r = 0; r < 2 * Z->f; r++) {
    state_name(m, Ls, r % Z->f, r / Z->f, name, sizeof name);
    hg_csv_field(f, 0, "%s", name);
    for (int c = 0; c < Z->nfree; c++) fprintf(f, ",%.17g", Z->B[(size_t)r * Z->nfree + c]);
    fputc('\n', f);
  }
  return lin_close(&o);
}

static int write_basis(const char *path, const hg_model *m, const hg_loops_linear *Z) {
  hg_outfile o;
  if (hg_outfile_replace(&o, path)) return lin_fail(&o);
  FILE *f = o.f;
  char name[256];
  fprintf(f, "dof");
  for (int c = 0; c < Z->f; c++) fprintf(f, ",z%d", c + 1);
  fputc('\n', f);
  for (int k = 0; k < m->nv; k++) {
    dof_name(m, k, "q", name, sizeof name);
    hg_csv_field(f, 0, "%s", name);
    for (int c = 0; c < Z->f; c++) fprintf(f, ",%.17g", Z->N[(size_t)k * Z->f + c]);
    fputc('\n', f);
  }
  return lin_close(&o);
}

/* the operating point, one quantity per row: JOINT.qK, JOINT.vK, JOINT.vdotK (prescribed and
 * locked joints: the acceleration their profile gives) and JOINT.mode (0 free, 1 prescribed,
 * 2 locked) */
static int write_point(const char *path, const lin_point *p) {
  hg_outfile o;
  if (hg_outfile_replace(&o, path)) return lin_fail(&o);
  FILE *f = o.f;
  const hg_model *m = p->m;
  fprintf(f, "quantity,value\n");
  for (int i = 1; i < m->nbody; i++) {
    const char *j = m->jnt_name[i];
    int va = m->v_adr[i];
    if (m->jnt[i].type == HG_JOINT_FIXED) continue; /* no q, v or mode */
    for (int k = 0; k < m->jnt_nq[i]; k++)
      hg_csv_field(f, 0, "%s.q%d", j, k), fprintf(f, ",%.17g\n", p->q[m->q_adr[i] + k]);
    for (int k = 0; k < m->jnt_nv[i]; k++)
      hg_csv_field(f, 0, "%s.v%d", j, k), fprintf(f, ",%.17g\n", p->v[va + k]);
    if (p->d->mode[i] != HG_MODE_FREE)
      for (int k = 0; k < m->jnt_nv[i]; k++)
        hg_csv_field(f, 0, "%s.vdot%d", j, k), fprintf(f, ",%.17g\n", p->qdd[va + k]);
    hg_csv_field(f, 0, "%s.mode", j), fprintf(f, ",%d\n", p->d->mode[i]);
  }
  return lin_close(&o);
}

/* the modes of A and of K phi = w^2 M phi (workspace owned by the caller) */
typedef struct lin_modes {
  int n, nf;
  double *re, *im, *V;  /* n = 2 nf eigenpairs of A */
  double *w2, *Phi;     /* nf of K phi = w^2 M phi */
  int sym_ok;
} lin_modes;

static int write_modes(const char *path, const hg_model *m, const hg_linear *L,
                       const lin_modes *md) {
  hg_outfile o;
  if (hg_outfile_replace(&o, path)) return lin_fail(&o);
  FILE *f = o.f;
  int n = md->n, nf = md->nf;
  char name[256];
  fprintf(f, "mode,re,im,omega_n,freq_hz,damping");
  for (int a = 0; a < nf; a++) state_name(m, L, a, 0, name, sizeof name), hg_csv_field(f, 1, "%s", name);
  for (int a = 0; a < nf; a++) state_name(m, L, a, 0, name, sizeof name), hg_csv_field(f, 1, "%s.im", name);
  fputc('\n', f);
  for (int k = 0; k < n; k++) {
    double wn = hypot(md->re[k], md->im[k]), big = 0, cr = 1, ci = 0;
    fprintf(f, "%d,%.9g,%.9g,%.9g,%.9g,%.9g", k + 1, md->re[k], md->im[k], wn,
            fabs(md->im[k]) / (TWO_PI), wn > 0 ? -md->re[k] / wn : NAN);
    /* the shape: the dq part, scaled by the complex c that makes its largest component 1 */
    for (int a = 0; a < nf; a++) {
      double x = md->V[2 * ((size_t)a * n + k)], y = md->V[2 * ((size_t)a * n + k) + 1];
      if (hypot(x, y) > big) big = hypot(x, y), cr = x / (big * big), ci = -y / (big * big);
    }
    for (int part = 0; part < 2; part++)
      for (int a = 0; a < nf; a++) {
        double x = md->V[2 * ((size_t)a * n + k)], y = md->V[2 * ((size_t)a * n + k) + 1];
        fprintf(f, ",%.9g", part ? x * ci + y * cr : x * cr - y * ci);
      }
    fputc('\n', f);
  }
  return lin_close(&o);
}

static int write_undamped(const char *path, const hg_model *m, const hg_linear *L,
                          const lin_modes *md) {
  hg_outfile o;
  if (hg_outfile_replace(&o, path)) return lin_fail(&o);
  FILE *f = o.f;
  int nf = md->nf;
  char name[256];
  fprintf(f, "mode,omega2,omega,freq_hz");
  for (int a = 0; a < nf; a++) state_name(m, L, a, 0, name, sizeof name), hg_csv_field(f, 1, "%s", name);
  fputc('\n', f);
  for (int k = 0; k < nf; k++) {
    double w = md->w2[k] >= 0 ? sqrt(md->w2[k]) : -sqrt(-md->w2[k]);
    fprintf(f, "%d,%.9g,%.9g,%.9g", k + 1, md->w2[k], w, w / (TWO_PI));
    for (int a = 0; a < nf; a++) fprintf(f, ",%.9g", md->Phi[(size_t)a * nf + k]);
    fputc('\n', f);
  }
  return lin_close(&o);
}

/* ---- the summary ---- */

/* max |K - K^T| / max |K| */
static double asymmetry(int n, const double *K) {
  double d = 0, s = 0;
  for (int r = 0; r < n; r++)
    for (int c = 0; c < n; c++) {
      d = fmax(d, fabs(K[(size_t)r * n + c] - K[(size_t)c * n + r]));
      s = fmax(s, fabs(K[(size_t)r * n + c]));
    }
  return s > 0 ? d / s : 0;
}

/* x, or 0 when it is rounding against scale (below 1e-12 of it): no "-0" or -1e-31 in tables */
static double clean(double x, double scale) { return fabs(x) <= 1e-12 * scale ? 0 : x; }

static void print_summary(FILE *f, const lin_args *a, const lin_point *p, const hg_linear *L,
                          const lin_modes *md, double step, const hg_equilibrium_info *eq) {
  int nf = L->nf;
  double drift = 0;
  for (int k = 0; k < 2 * nf; k++) drift = fmax(drift, fabs(L->xdot0[k]));
  fprintf(f, "scene %s at t = %.9g%s\n", a->scene, p->t,
          a->equilibrium ? " (an equilibrium found from its configuration)"
          : a->rest ? " (at rest)" : "");
  if (a->equilibrium) {
    fprintf(f, "equilibrium: %d Newton iterations, residual max|%s| %.3g (tolerance %.3g), ",
            eq->iterations, p->Z ? "zddot" : "vdot", eq->residual, a->tol > 0 ? a->tol : 1e-10);
    if (eq->rank < 0) fprintf(f, "balanced at the start\n");
    else fprintf(f, "Jacobian rank %d of %d%s\n", eq->rank, eq->nf,
                 eq->rank < eq->nf ? " (the rest: neutral directions, left where they were)" : "");
  }
  if (p->Z) {
    int rows;
    hg_loops_rank(p->loops.L, &rows);
    fprintf(f, "closed loops %d (rank G %d at the free DoFs): states 2 x %d independent "
            "coordinates z = N^T (q (-) q0) of the closed mechanism (N.csv), of %d free DoFs "
            "(of %d), inputs %d (the free DoFs' forces)\n",
            p->loops.nactive, p->Z->rank_G, nf, p->Z->nfree, p->m->nv, p->Z->nfree);
  } else {
    fprintf(f, "states 2 x %d free DoFs (of %d), inputs %d\n", nf, p->m->nv, nf);
  }
  fprintf(f, "drift max |xdot0| %.3g (%s)\n", drift,
          drift == 0 ? "an equilibrium"
          : a->equilibrium && eq->converged ? "an equilibrium to the search's tolerance"
          : "not an equilibrium: A describes perturbations");
  if (p->Z)
    fprintf(f, "dynamics derivatives: central differences of the constrained dynamics in z, "
            "h = %g\n", p->Z->h);
  else
    fprintf(f, "dynamics derivatives: analytic\n");
  int nel = hg_forces_count(p->forces);
  if (nel > 0) fprintf(f, "force elements' derivatives:\n");
  for (int k = 0; k < nel; k++) {
    fprintf(f, "  %s: ", hg_forces_name(p->forces, k));
    if (!hg_forces_enabled(p->forces, k)) fprintf(f, "disabled at T\n");
    else if (hg_forces_inert(p->forces, k)) fprintf(f, "inert (its body or joint is absent)\n");
    else if (p->Z) fprintf(f, "with the dynamics, central differences in z\n");
    else if (hg_forces_analytic(p->forces, p->m, k)) fprintf(f, "analytic\n");
    else fprintf(f, "central differences on the group, h = %g (lengths: h max(1, |position|))\n",
                 step);
  }
  if (p->qdd_note)
    fprintf(f, "note: the prescribed accelerations at T could not be differenced (a change of "
               "topology right after T): taken as zero\n");
  fprintf(f, "stiffness asymmetry max|K - K^T| / max|K| = %.3g\n", asymmetry(nf, L->K));
  double smax = 0, wmax = 0;
  for (int k = 0; k < md->n; k++) smax = fmax(smax, hypot(md->re[k], md->im[k]));
  for (int k = 0; k < nf && md->sym_ok; k++) wmax = fmax(wmax, fabs(md->w2[k]));
  fprintf(f, "eigenvalues of A (damping - for a zero eigenvalue):\n");
  fprintf(f, "%5s %14s %14s %12s %10s\n", "mode", "re", "im", "freq [Hz]", "damping");
  for (int k = 0; k < md->n; k++) {
    double re = clean(md->re[k], smax), im = clean(md->im[k], smax), wn = hypot(re, im);
    fprintf(f, "%5d %14.6g %14.6g %12.6g ", k + 1, re + 0.0, im + 0.0, fabs(im) / TWO_PI);
    if (wn > 0) fprintf(f, "%10.4g\n", -re / wn + 0.0);
    else fprintf(f, "%10s\n", "-");
  }
  if (md->sym_ok) {
    fprintf(f, "undamped K phi = w^2 M phi (a negative w^2: an unstable direction, its\n"
               "frequency printed negative):\n%5s %14s %12s\n", "mode", "w^2", "freq [Hz]");
    for (int k = 0; k < nf; k++) {
      double w2 = clean(md->w2[k], wmax) + 0.0;
      fprintf(f, "%5d %14.6g %12.6g\n", k + 1, w2, (w2 >= 0 ? sqrt(w2) : -sqrt(-w2)) / TWO_PI);
    }
  }
}

/* ---- the command ---- */

/* mkdir -p for a folder path; 0 or -1 */
static int make_folder(const char *path) {
  char buf[4096];
  size_t n = strlen(path);
  if (n == 0 || n >= sizeof buf) return -1;
  memcpy(buf, path, n + 1);
  for (size_t k = 1; k <= n; k++)
    if (buf[k] == '/' || buf[k] == 0) {
      char c = buf[k];
      buf[k] = 0;
      if (mkdir(buf, 0777) != 0 && errno != EEXIST) return -1;
      buf[k] = c;
    }
  return 0;
}

/* modes.png, its shapes' axis named as modes_undamped.csv's columns; 0 or -1 */
static int plot_modes(const char *path, const hg_model *m, const hg_linear *L,
                      const lin_modes *md) {
  int nf = L->nf, rc = -1;
  char *text = calloc((size_t)nf + 1, 256);
  const char **names = calloc((size_t)nf + 1, sizeof *names);
  if (text && names) {
    for (int a = 0; a < nf; a++) {
      state_name(m, L, a, 0, text + (size_t)a * 256, 256);
      names[a] = text + (size_t)a * 256;
    }
    rc = hg_cli_linearize_plot(path, m, L, md->n, md->re, md->im, md->sym_ok ? md->w2 : NULL,
                               md->Phi, names);
  }
  free(text);
  free(names);
  return rc;
}

static int write_outputs(const char *dir, const lin_point *p, const hg_linear *L,
                         const lin_modes *md, const lin_args *a, double step,
                         const hg_equilibrium_info *eq) {
  char path[4096];
  int rc = 0;
  if (make_folder(dir)) {
    fprintf(stderr, "hinge: cannot create the folder %s: %s\n", dir, strerror(errno));
    return -1;
  }
#define OUT(name) (snprintf(path, sizeof path, "%s/%s", dir, name), path)
  rc |= write_matrix(OUT("A.csv"), p->m, L, L->A, 0);
  if (p->Z) {
    rc |= write_loops_B(OUT("B.csv"), p->m, L, p->Z);
    rc |= write_basis(OUT("N.csv"), p->m, p->Z);
  } else {
    rc |= write_matrix(OUT("B.csv"), p->m, L, L->B, 1);
  }
  rc |= write_point(OUT("point.csv"), p);
  rc |= write_modes(OUT("modes.csv"), p->m, L, md);
  if (md->sym_ok) rc |= write_undamped(OUT("modes_undamped.csv"), p->m, L, md);
  if (!a->no_plots && plot_modes(OUT("modes.png"), p->m, L, md)) rc = -1;
  /* the summary last, and only when everything else was written: its presence says the folder
   * is complete */
  hg_outfile o;
  if (!rc && hg_outfile_replace(&o, OUT("summary.txt"))) rc = lin_fail(&o);
  else if (!rc) {
    print_summary(o.f, a, p, L, md, step, eq);
    rc = lin_close(&o);
  }
  if (rc && !remove(OUT("summary.txt")))
    fprintf(stderr, "hinge: removed the %s of an earlier run\n", path);
#undef OUT
  return rc;
}

int hg_cli_linearize(int argc, char **argv) {
  lin_args a;
  lin_point p;
  int status = parse_args(argc, argv, &a);
  if (status) return status;
  if (a.help) {
    hg_cli_linearize_usage(stdout);
    return HG_EXIT_OK;
  }
  status = load_point(&a, &p);
  hg_deriv *w = status ? NULL : hg_deriv_new(p.m);
  hg_linear *L = status ? NULL : hg_linear_new(p.m), *L0 = L;
  lin_modes md = {0};
  double step = a.step > 0 ? a.step : 1e-6;
  if (!status && (!w || !L)) status = HG_EXIT_FAILURE;
  force_ctx fc = {p.forces, p.t};
  hg_force_elements fe = {numeric_forces, analytic_forces, analytic_derivatives, &fc};
  hg_equilibrium_info eq = {0};
  /* with closed loops: the same in the independent coordinates z, and a shell of L that holds
   * the matrices of z for the summary, the modes and the plot */
  hg_loops_forces lfe = {all_forces, &fc};
  hg_linear shell;
  hg_linear *Lz = L;
  if (!status && p.Z) {
    const hg_loops_linear *Z = p.Z;
    if (a.equilibrium &&
        hg_loops_equilibrium(p.Z, p.loops.L, p.d, p.loops.active, p.q, &lfe, step, a.tol, 0,
                             &eq)) {
      fprintf(stderr, "hinge: the equilibrium search from t = %g: %s\n", p.t, p.d->err);
      status = HG_EXIT_SINGULAR;
    } else if (hg_loops_linearize(p.Z, p.loops.L, p.d, p.loops.active, p.q, p.v, p.qdd, &lfe,
                                  step)) {
      fprintf(stderr, "hinge: linearizing at t = %g: %s\n", p.t, p.d->err);
      status = HG_EXIT_SINGULAR;
    }
    memset(&shell, 0, sizeof shell);
    shell.nv = Z->nv, shell.nf = Z->f, shell.dof = NULL;
    shell.A = Z->A, shell.B = Z->B, shell.M = Z->M, shell.K = Z->K, shell.C = Z->C;
    shell.xdot0 = Z->xdot0;
    Lz = &shell;
  } else {
    if (!status && a.equilibrium &&
        hg_equilibrium(p.m, p.d, w, L, p.q, &fe, step, a.tol, 0, &eq)) {
      fprintf(stderr, "hinge: the equilibrium search from t = %g: %s\n", p.t, p.d->err);
      status = HG_EXIT_SINGULAR;
    }
    if (!status && hg_linearize(p.m, p.d, w, L, p.q, p.v, p.qdd, &fe, step)) {
      fprintf(stderr, "hinge: linearizing at t = %g: %s\n", p.t, p.d->err);
      status = HG_EXIT_SINGULAR;
    }
  }
  if (!status) {
    L = Lz;
    int nf = L->nf, n = 2 * nf;
    md.n = n, md.nf = nf;
    md.re = calloc((size_t)n + 1, sizeof(double));
    md.im = calloc((size_t)n + 1, sizeof(double));
    md.V = calloc(2 * (size_t)n * n + 1, sizeof(double));
    md.w2 = calloc((size_t)nf + 1, sizeof(double));
    md.Phi = calloc((size_t)nf * nf + 1, sizeof(double));
    if (!md.re || !md.im || !md.V || !md.w2 || !md.Phi) status = HG_EXIT_FAILURE;
    else if (hg_modes_eig(n, L->A, md.re, md.im, md.V)) {
      fprintf(stderr, "hinge: LAPACK (dgeev) failed on A\n");
      status = HG_EXIT_SINGULAR;
    } else {
      md.sym_ok = hg_modes_sym(nf, L->K, L->M, md.w2, md.Phi) == 0;
    }
  }
  if (!status) {
    print_summary(stdout, &a, &p, L, &md, step, &eq);
    if (a.out && write_outputs(a.out, &p, L, &md, &a, step, &eq)) status = HG_EXIT_FAILURE;
    if (fflush(stdout) || ferror(stdout)) status = HG_EXIT_FAILURE;
  }
  free(md.re); free(md.im); free(md.V); free(md.w2); free(md.Phi);
  hg_linear_free(L0);
  hg_deriv_free(w);
  free_point(&p);
  return status;
}
