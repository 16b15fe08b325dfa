/* bench_dynamics.c: ns per call of the recursive algorithms on the benchmark models.
 *
 * Prints one line per model and algorithm, "BENCH <model> <algorithm> <ns_per_call>", the median
 * over repeats of calls that alternate between two states (so no call is served from the
 * previous one's cache lines of results), then ratios and the heap allocations counted inside
 * the timed calls (there must be none).
 *
 *   bench_dynamics                       the built-in models
 *   bench_dynamics --urdf FILE [--floating]   a robot of your own, as read and with its fixed
 *                                             links merged (merge.h)
 *   bench_dynamics --quick               fewer repeats (a smoke run)
 *   bench_dynamics --model MODEL         one built-in model only (no growth lines)
 *   bench_dynamics --calls MODEL         100 untimed calls of RNEA, CRBA, ABA, hybrid dynamics
 *                                        (every other moving joint prescribed) and the derivatives
 *                                        on one built-in model, or with --urdf FILE on the robot
 *                                        as read (MODEL urdf) or merged (urdf_merged), for
 *                                        instruction counts:
 *     valgrind --tool=callgrind --dump-instr=no bench_dynamics --calls humanoid32
 *     valgrind --tool=callgrind --dump-instr=no bench_dynamics --urdf FILE --calls urdf_merged
 *     callgrind_annotate --inclusive=yes callgrind.out.PID | grep hg_
 *   bench_dynamics --calls MODEL --alg NAME   the calls of one algorithm only (RNEA, CRBA, ABA,
 *                                        HYBRID50, DID, DIDM, DFD, MINV): tests/bench/bench_instructions.sh
 *   (each function's inclusive count / 100 is its cost per call) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hinge.h"
#include "models.h"
#include "merge.h"
#include "timing.h"
#include "urdf.h"

/* ---- heap allocations, counted by interposing the allocator (glibc) ---- */

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
static long allocations;
void *malloc(size_t n) { allocations++; return __libc_malloc(n); }
void *calloc(size_t n, size_t s) { allocations++; return __libc_calloc(n, s); }
void *realloc(void *p, size_t n) { allocations++; return __libc_realloc(p, n); }

/* ---- timing ---- */

/* RHS2 and RHS1: a right-hand side as the runtime evaluates one, hg_kinematics (which force
 * elements read) then hybrid dynamics with every joint free, walking the tree twice (hg_hybrid)
 * or once (hg_hybrid_on_kinematics); no force elements, so the difference is the walk. The
 * derivative algorithms (from ALG_DID on) are timed on every model but chain1000, with central
 * differences on the group (2 nv calls of RNEA or ABA per argument) beside them */
typedef enum { ALG_FK, ALG_RNEA, ALG_CRBA, ALG_ABA, ALG_HYB0, ALG_HYB50, ALG_HYB100, ALG_RHS2,
               ALG_RHS1, ALG_DID, ALG_DFD, ALG_MINV, ALG_CD_ID, ALG_CD_FD, ALG_D2ID, ALG_D2FD,
               ALG_DIDM, ALG_D2FDC, NALG } alg;
static const char *alg_name[NALG] = {"FK",        "RNEA",     "CRBA", "ABA",  "HYBRID0",
                                     "HYBRID50",  "HYBRID100", "RHS2WALKS", "RHS1WALK", "DID",
                                     "DFD",       "MINV",     "CD_ID", "CD_FD", "D2ID", "D2FD",
                                     "DIDM",      "D2FDC"};
/* DIDM: DID with M = dtau/dqdd as well, the outputs of Pinocchio's computeRNEADerivatives */
/* the second-order derivatives (D2ID: d2tau/dq2, dv2, dqdv and dM/dq; D2FD: d2qdd/dq2, dv2,
 * dqdv and dqdtau) write nv^3 numbers per tensor: timed up to D2_MAX_NV DoFs; D2FDC: D2FD's
 * four tensors summed over qdd with weights (hg_aba_second_derivatives_contract, nv^2 each) */
#define D2_MAX_NV 100

typedef struct {
  const hg_model *m;
  hg_data *d;
  double *q[2], *v[2], *a[2], *tau[2], *out, *out2, *M;
  hg_deriv *w;              /* derivatives: workspace, three nv x nv results */
  hg_deriv2 *w2;            /* second-order derivatives: workspace, four nv^3 results (or NULL
                               past D2_MAX_NV DoFs) */
  double *T[4];
  double *D[3], *qp, *vp, *yp, *ym;
  double *lam;              /* D2FDC's weights */
} bench_state;

/* central differences of RNEA (fd 0) or ABA (fd 1) in q (on the group) and v: D[0], D[1] */
static void central(bench_state *b, int s, int fd) {
  const hg_model *m = b->m;
  int nv = m->nv;
  const double h = 1e-6, *u = fd ? b->tau[s] : b->a[s];
  for (int arg = 0; arg < 2; arg++)
    for (int k = 0; k < nv; k++) {
      for (int sg = 0; sg < 2; sg++) {
        double e = sg ? -h : h, *y = sg ? b->ym : b->yp;
        memcpy(b->vp, b->v[s], (size_t)nv * sizeof(double));
        memset(b->out, 0, (size_t)nv * sizeof(double));
        b->out[k] = 1;
        if (arg == 0) hg_model_integrate(m, b->q[s], b->out, e, b->qp);
        else memcpy(b->qp, b->q[s], (size_t)m->nq * sizeof(double)), b->vp[k] += e;
        if (fd) hg_aba(m, b->d, b->qp, b->vp, u, NULL, y);
        else hg_rnea(m, b->d, b->qp, b->vp, u, NULL, y);
      }
      for (int l = 0; l < nv; l++) b->D[arg][l * nv + k] = (b->yp[l] - b->ym[l]) / (2 * h);
    }
}

/* one call of algorithm g on state s (bench_instructions.sh counts instructions inside this
 * function only: keep its name) */
static void call(bench_state *b, alg g, int s) {
  const hg_model *m = b->m;
  hg_data *d = b->d;
  switch (g) {
  case ALG_FK: hg_kinematics(m, d, b->q[s], b->v[s]); break;
  case ALG_RNEA: hg_rnea(m, d, b->q[s], b->v[s], b->a[s], NULL, b->out); break;
  case ALG_CRBA: hg_crba(m, d, b->q[s], b->M); break;
  case ALG_ABA: hg_aba(m, d, b->q[s], b->v[s], b->tau[s], NULL, b->out); break;
  case ALG_RHS2:
  case ALG_RHS1:
    memcpy(b->out, b->a[s], (size_t)m->nv * sizeof(double));
    memcpy(b->out2, b->tau[s], (size_t)m->nv * sizeof(double));
    hg_kinematics(m, d, b->q[s], b->v[s]);
    if (g == ALG_RHS2) hg_hybrid(m, d, b->q[s], b->v[s], b->out, b->out2, NULL);
    else hg_hybrid_on_kinematics(m, d, b->out, b->out2, NULL);
    break;
  case ALG_DID:
    hg_rnea_derivatives(m, d, b->w, b->q[s], b->v[s], b->a[s], NULL, b->D[0], b->D[1], NULL);
    break;
  case ALG_DIDM:
    hg_rnea_derivatives(m, d, b->w, b->q[s], b->v[s], b->a[s], NULL, b->D[0], b->D[1], b->D[2]);
    break;
  case ALG_DFD:
    hg_aba_derivatives(m, d, b->w, b->q[s], b->v[s], b->tau[s], NULL, b->out, b->D[0], b->D[1],
                       b->D[2]);
    break;
  case ALG_MINV: hg_minv(m, d, b->w, b->q[s], b->D[2]); break;
  case ALG_D2ID:
    hg_rnea_second_derivatives(m, d, b->w2, b->q[s], b->v[s], b->a[s], NULL, b->T[0], b->T[1],
                               b->T[2], b->T[3]);
    break;
  case ALG_D2FD:
    hg_aba_second_derivatives(m, d, b->w2, b->q[s], b->v[s], b->tau[s], NULL, b->out, b->T[0],
                              b->T[1], b->T[2], b->T[3]);
    break;
  case ALG_D2FDC:
    hg_aba_second_derivatives_contract(m, d, b->w2, b->q[s], b->v[s], b->tau[s], NULL, b->lam,
                                       b->out, b->D[0], b->D[1], b->D[2], b->M);
    break;
  case ALG_CD_ID: central(b, s, 0); break;
  case ALG_CD_FD: central(b, s, 1); break;
  default:
    /* hybrid reads qdd (prescribed) and tau (free) in place: refresh both halves */
    memcpy(b->out, b->a[s], (size_t)m->nv * sizeof(double));
    memcpy(b->out2, b->tau[s], (size_t)m->nv * sizeof(double));
    hg_hybrid(m, d, b->q[s], b->v[s], b->out, b->out2, NULL);
    break;
  }
}

/* set joint modes: fraction 0, 0.5 or 1 of the moving joints prescribed (every other one for 0.5) */
static void set_modes(bench_state *b, alg g) {
  int count = 0;
  for (int i = 1; i < b->m->nbody; i++) {
    int moving = b->m->jnt_nv[i] > 0;
    int pres = g == ALG_HYB100 || (g == ALG_HYB50 && moving && count++ % 2 == 1);
    b->d->mode[i] = pres ? HG_MODE_PRESCRIBED : HG_MODE_FREE;
  }
}

/* median ns per call over repeats; each repeat alternates between the two states */
static double time_alg(bench_state *b, alg g, int repeats, long *allocs) {
  set_modes(b, g);
  /* calls per repeat: aim at ~2 ms per repeat */
  double t0 = hg_test_now_ns();
  for (int k = 0; k < 8; k++) call(b, g, k & 1);
  double per = (hg_test_now_ns() - t0) / 8;
  long calls = (long)(2e6 / (per > 1 ? per : 1));
  if (calls < 2) calls = 2;
  double *samples = malloc((size_t)repeats * sizeof(double));
  long before = allocations;
  for (int r = 0; r < repeats; r++) {
    double start = hg_test_now_ns();
    for (long k = 0; k < calls; k++) call(b, g, (int)(k & 1));
    samples[r] = (hg_test_now_ns() - start) / (double)calls;
  }
  *allocs += allocations - before - 0;
  qsort(samples, (size_t)repeats, sizeof(double), hg_test_cmp_double);
  double med = samples[repeats / 2];
  free(samples);
  return med;
}

static double *rand_vec(hg_rng *r, int n, double lo, double hi) {
  double *x = malloc(((size_t)n + 1) * sizeof(double));
  for (int i = 0; i < n; i++) x[i] = hg_rng_range(r, lo, hi);
  return x;
}

/* with --calls MODEL --alg NAME: the one algorithm whose calls are made (-1: every one) */
/* 1: bench_model times D2ID alone (the second-order growth lines) */
static int d2_only;
static int calls_only = -1;

/* times every algorithm (the derivatives when derivs) on one model and prints its BENCH lines;
 * with calls > 0, makes that many untimed calls of RNEA, CRBA, ABA, hybrid, the two right-hand
 * sides and the derivatives instead (or of calls_only alone) */
static void bench_model(const char *name, hg_model *m, int repeats, double ns[NALG], long *allocs,
                        int derivs, int calls) {
  bench_state b;
  hg_rng r;
  hg_rng_seed(&r, 42);
  b.m = m;
  b.d = hg_data_new(m);
  for (int s = 0; s < 2; s++) {
    b.q[s] = malloc(((size_t)m->nq + 1) * sizeof(double));
    hg_model_random(m, &r, b.q[s]);
    b.v[s] = rand_vec(&r, m->nv, -1, 1);
    b.a[s] = rand_vec(&r, m->nv, -1, 1);
    b.tau[s] = rand_vec(&r, m->nv, -1, 1);
  }
  b.out = rand_vec(&r, m->nv, 0, 1);
  b.out2 = rand_vec(&r, m->nv, 0, 1);
  b.M = malloc(((size_t)m->nv * (size_t)m->nv + 1) * sizeof(double));
  b.w = hg_deriv_new(m);
  int d2 = derivs && m->nv <= D2_MAX_NV;
  b.w2 = d2 ? hg_deriv2_new(m) : NULL;
  for (int k = 0; k < 4; k++)
    b.T[k] = d2 ? malloc(((size_t)m->nv * (size_t)m->nv * (size_t)m->nv + 1) * sizeof(double))
                : NULL;
  for (int k = 0; k < 3; k++) b.D[k] = malloc(((size_t)m->nv * (size_t)m->nv + 1) * sizeof(double));
  b.qp = rand_vec(&r, m->nq, 0, 1);
  b.vp = rand_vec(&r, m->nv, 0, 1);
  b.yp = rand_vec(&r, m->nv, 0, 1);
  b.ym = rand_vec(&r, m->nv, 0, 1);
  b.lam = rand_vec(&r, m->nv, -1, 1);
  static const alg counted[] = {ALG_RNEA, ALG_CRBA, ALG_ABA, ALG_HYB50, ALG_RHS2, ALG_RHS1,
                                ALG_DID, ALG_DFD, ALG_MINV, ALG_D2ID, ALG_D2FD, ALG_DIDM,
                                ALG_D2FDC};
  for (int k = 0; k < (int)(sizeof counted / sizeof *counted) && calls > 0; k++) {
    if (calls_only >= 0 && counted[k] != (alg)calls_only) continue;
    if ((counted[k] == ALG_D2ID || counted[k] == ALG_D2FD || counted[k] == ALG_D2FDC) && !d2)
      continue;
    set_modes(&b, counted[k]);
    for (int c = 0; c < calls; c++) call(&b, counted[k], c & 1);
  }
  for (int g = 0; g < (derivs ? NALG : ALG_DID) && calls == 0; g++) {
    if (((g == ALG_D2ID || g == ALG_D2FD || g == ALG_D2FDC) && !d2) || (d2_only && g != ALG_D2ID))
      continue;
    ns[g] = time_alg(&b, (alg)g, repeats, allocs);
    printf("BENCH %s %s %.0f\n", name, alg_name[g], ns[g]);
    fflush(stdout);
  }
  if (d2_only) calls = -1; /* no ratio lines */
  if (calls == 0) printf("RATIO %s ABA/RNEA %.2f HYBRID0/ABA %.2f HYBRID50/ABA %.2f HYBRID100/ABA %.2f "
         "ABA_ns_per_dof %.1f\n",
         name, ns[ALG_ABA] / ns[ALG_RNEA], ns[ALG_HYB0] / ns[ALG_ABA], ns[ALG_HYB50] / ns[ALG_ABA],
         ns[ALG_HYB100] / ns[ALG_ABA], ns[ALG_ABA] / (m->nv ? m->nv : 1));
  if (calls == 0) printf("RATIO %s RHS2WALKS/ABA %.2f RHS1WALK/ABA %.2f\n", name, ns[ALG_RHS2] / ns[ALG_ABA],
         ns[ALG_RHS1] / ns[ALG_ABA]);
  if (derivs && calls == 0)
    printf("RATIO %s DID/RNEA %.2f DFD/ABA %.2f MINV/ABA %.2f CD_ID/DID %.1f CD_FD/DFD %.1f "
           "(targets: <= 3, <= 8, -, >= 5, >= 5 at 32 DoF)\n",
           name, ns[ALG_DID] / ns[ALG_RNEA], ns[ALG_DFD] / ns[ALG_ABA], ns[ALG_MINV] / ns[ALG_ABA],
           ns[ALG_CD_ID] / ns[ALG_DID], ns[ALG_CD_FD] / ns[ALG_DFD]);
  if (d2 && calls == 0)
    printf("RATIO %s D2ID/DID %.2f D2FD/D2ID %.2f D2ID/RNEA %.1f (targets: <= 8, <= 3)\n", name,
           ns[ALG_D2ID] / ns[ALG_DID], ns[ALG_D2FD] / ns[ALG_D2ID], ns[ALG_D2ID] / ns[ALG_RNEA]);
  if (d2 && calls == 0)
    printf("RATIO %s D2FDC/D2FD %.3f D2FDC/D2ID %.2f (D2FD summed over qdd)\n", name,
           ns[ALG_D2FDC] / ns[ALG_D2FD], ns[ALG_D2FDC] / ns[ALG_D2ID]);
  hg_deriv_free(b.w);
  hg_deriv2_free(b.w2);
  for (int k = 0; k < 4; k++) free(b.T[k]);
  for (int k = 0; k < 3; k++) free(b.D[k]);
  free(b.qp); free(b.vp); free(b.yp); free(b.ym); free(b.lam);
  hg_data_free(b.d);
  for (int s = 0; s < 2; s++) free(b.q[s]), free(b.v[s]), free(b.a[s]), free(b.tau[s]);
  free(b.out); free(b.out2); free(b.M);
}

int main(int argc, char **argv) {
  const char *urdf = NULL, *only = NULL;
  int calls = 0;
  int floating = 0, repeats = 31;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--urdf") == 0 && i + 1 < argc) urdf = argv[++i];
    else if (strcmp(argv[i], "--floating") == 0) floating = 1;
    else if (strcmp(argv[i], "--quick") == 0) repeats = 5;
    else if (strcmp(argv[i], "--calls") == 0 && i + 1 < argc) only = argv[++i], calls = 100;
    else if (strcmp(argv[i], "--model") == 0 && i + 1 < argc) only = argv[++i];
    else if (strcmp(argv[i], "--alg") == 0 && i + 1 < argc) {
      const char *a = argv[++i];
      for (int g = 0; g < NALG; g++)
        if (!strcmp(a, alg_name[g])) calls_only = g;
      if (calls_only < 0) {
        fprintf(stderr, "bench_dynamics: unknown algorithm '%s'\n", a);
        return 2;
      }
    }
    else {
      fprintf(stderr, "usage: %s [--urdf FILE [--floating]] [--quick] [--model MODEL] [--calls MODEL [--alg NAME]]\n", argv[0]);
      return 2;
    }
  }
  long allocs = 0;
  double ns[NALG];
  /* a model name that names nothing is a mistake, not an empty run */
  static const char *const names[] = {"arm7", "chain30", "chain100", "tree63", "humanoid32",
                                      "chain1000", "tree15"};
  int known = !only;
  if (only && urdf) known = !strcmp(only, "urdf") || !strcmp(only, "urdf_merged");
  for (int k = 0; only && !urdf && k < (int)(sizeof names / sizeof names[0]); k++)
    known |= !strcmp(only, names[k]);
  if (!known) {
    fprintf(stderr, "bench_dynamics: unknown model '%s': expected %s\n", only,
            urdf ? "urdf or urdf_merged (with --urdf)"
                 : "arm7, chain30, chain100, tree63, humanoid32, chain1000 or tree15");
    return 2;
  }
  if (urdf) {
    hg_error err;
    hg_model *m = hg_urdf_load(urdf, floating, NULL, &err);
    if (!m) {
      fprintf(stderr, "bench_dynamics: %s\n", err.msg);
      return 2;
    }
    if (!only || !strcmp(only, "urdf")) bench_model("urdf", m, repeats, ns, &allocs, 1, calls);
    /* the same robot with its fixed links merged into their parents (merge.h) */
    hg_model *mm = hg_model_merge_fixed(m, NULL, NULL, &err);
    if (mm) {
      double nu[NALG];
      memcpy(nu, ns, sizeof nu);
      if (!only || !strcmp(only, "urdf_merged"))
        bench_model("urdf_merged", mm, repeats, ns, &allocs, 1, calls);
      /* as read against merged, algorithm by algorithm: fixed links should cost nothing in the
       * body-local pass (ABA, HYBRID50, RHS2WALKS), target <= 1.05 */
      if (!only)
        printf("RATIO urdf bodies %d -> %d unmerged/merged ABA %.2f RNEA %.2f CRBA %.2f "
               "HYBRID50 %.2f RHS2WALKS %.2f RHS1WALK %.2f\n", m->nbody - 1, mm->nbody - 1,
               nu[ALG_ABA] / ns[ALG_ABA], nu[ALG_RNEA] / ns[ALG_RNEA], nu[ALG_CRBA] / ns[ALG_CRBA],
               nu[ALG_HYB50] / ns[ALG_HYB50], nu[ALG_RHS2] / ns[ALG_RHS2],
               nu[ALG_RHS1] / ns[ALG_RHS1]);
      hg_model_free(mm);
    }
    hg_model_free(m);
  } else {
    struct { const char *name; hg_model *m; } models[] = {
        {names[0], hg_test_arm7()},           {names[1], hg_test_chain(30)},
        {names[2], hg_test_chain(100)},       {names[3], hg_test_binary_tree(6)},
        {names[4], hg_test_humanoid()},       {names[5], hg_test_chain(1000)},
        /* the small tree of the Pinocchio comparison (docs/benchmarks.md) */
        {names[6], hg_test_binary_tree(4)},
    };
    int n = (int)(sizeof models / sizeof models[0]);
    for (int k = 0; k < n; k++) {
      if (!only || !strcmp(only, models[k].name))
        bench_model(models[k].name, models[k].m, repeats, ns, &allocs, models[k].m->nv <= 300,
                    calls);
      hg_model_free(models[k].m);
    }
  }
  if (!urdf && !only) {
    /* growth of the derivatives on chains: DID is O(N d) = O(N nv) on a chain, and so are
     * M^-1 and DFD's solves (flat ns per N nv) */
    for (int n = 10; n <= 300; n = n < 30 ? 30 : n < 100 ? 100 : 300) {
      hg_model *m = hg_test_chain(n);
      char name[32];
      snprintf(name, sizeof name, "growth_chain%d", n);
      bench_model(name, m, repeats, ns, &allocs, 1, 0);
      printf("GROWTH chain%d DID_ns_per_N_nv %.2f DFD_ns_per_N_nv %.2f\n", n,
             ns[ALG_DID] / ((double)n * m->nv), ns[ALG_DFD] / ((double)n * m->nv));
      hg_model_free(m);
      if (n == 300) break;
    }
    /* growth of the second-order derivatives on chains of 7 to 100 DoFs: the slope of log time
     * against log N by least squares (O(N d^2) = O(N^3) on a chain, and nv^3 outputs) */
    {
      static const int ns2[] = {7, 15, 30, 60, 100};
      double sx = 0, sy = 0, sxx = 0, sxy = 0;
      int n2 = (int)(sizeof ns2 / sizeof *ns2);
      for (int i = 0; i < n2; i++) {
        hg_model *m = hg_test_chain(ns2[i]);
        char name[32];
        snprintf(name, sizeof name, "growth2_chain%d", ns2[i]);
        d2_only = 1;
        bench_model(name, m, repeats, ns, &allocs, 1, 0);
        d2_only = 0;
        double x = log((double)ns2[i]), y = log(ns[ALG_D2ID]);
        sx += x, sy += y, sxx += x * x, sxy += x * y;
        hg_model_free(m);
      }
      printf("GROWTH2 D2ID log-log slope over chains of 7 to 100 DoFs: %.2f\n",
             (n2 * sxy - sx * sy) / (n2 * sxx - sx * sx));
    }
    /* model compilation (what a topology change costs) scales linearly: ns per body */
    for (int n = 1000; n <= 8000; n *= 2) {
      double t0 = hg_test_now_ns();
      hg_model *m = hg_test_chain(n);
      printf("BENCH chain%d COMPILE_per_body %.0f\n", n, (hg_test_now_ns() - t0) / n);
      hg_model_free(m);
    }
  }
  printf("ALLOCATIONS in timed calls: %ld\n", allocs);
  return allocs != 0;
}
