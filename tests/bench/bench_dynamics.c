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
 *   bench_dynamics --quick               fewer repeats (a smoke run) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hinge.h"
#include "models.h"
#include "merge.h"
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

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return 1e9 * (double)ts.tv_sec + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

typedef enum { ALG_FK, ALG_RNEA, ALG_CRBA, ALG_ABA, ALG_HYB0, ALG_HYB50, ALG_HYB100, NALG } alg;
static const char *alg_name[NALG] = {"FK", "RNEA", "CRBA", "ABA", "HYBRID0", "HYBRID50", "HYBRID100"};

typedef struct {
  const hg_model *m;
  hg_data *d;
  double *q[2], *v[2], *a[2], *tau[2], *out, *out2, *M;
} bench_state;

/* one call of algorithm g on state s */
static void call(bench_state *b, alg g, int s) {
  const hg_model *m = b->m;
  hg_data *d = b->d;
  switch (g) {
  case ALG_FK: hg_kinematics(m, d, b->q[s], b->v[s]); break;
  case ALG_RNEA: hg_rnea(m, d, b->q[s], b->v[s], b->a[s], NULL, b->out); break;
  case ALG_CRBA: hg_crba(m, d, b->q[s], b->M); break;
  case ALG_ABA: hg_aba(m, d, b->q[s], b->v[s], b->tau[s], NULL, b->out); break;
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
  double t0 = now_ns();
  for (int k = 0; k < 8; k++) call(b, g, k & 1);
  double per = (now_ns() - t0) / 8;
  long calls = (long)(2e6 / (per > 1 ? per : 1));
  if (calls < 2) calls = 2;
  double *samples = malloc((size_t)repeats * sizeof(double));
  long before = allocations;
  for (int r = 0; r < repeats; r++) {
    double start = now_ns();
    for (long k = 0; k < calls; k++) call(b, g, (int)(k & 1));
    samples[r] = (now_ns() - start) / (double)calls;
  }
  *allocs += allocations - before - 0;
  qsort(samples, (size_t)repeats, sizeof(double), cmp_double);
  double med = samples[repeats / 2];
  free(samples);
  return med;
}

static double *rand_vec(hg_rng *r, int n, double lo, double hi) {
  double *x = malloc(((size_t)n + 1) * sizeof(double));
  for (int i = 0; i < n; i++) x[i] = hg_rng_range(r, lo, hi);
  return x;
}

/* times every algorithm on one model and prints its BENCH lines; returns ABA ns */
static void bench_model(const char *name, hg_model *m, int repeats, double ns[NALG], long *allocs) {
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
  for (int g = 0; g < NALG; g++) {
    ns[g] = time_alg(&b, (alg)g, repeats, allocs);
    printf("BENCH %s %s %.0f\n", name, alg_name[g], ns[g]);
    fflush(stdout);
  }
  printf("RATIO %s ABA/RNEA %.2f HYBRID0/ABA %.2f HYBRID50/ABA %.2f HYBRID100/ABA %.2f "
         "ABA_ns_per_dof %.1f\n",
         name, ns[ALG_ABA] / ns[ALG_RNEA], ns[ALG_HYB0] / ns[ALG_ABA], ns[ALG_HYB50] / ns[ALG_ABA],
         ns[ALG_HYB100] / ns[ALG_ABA], ns[ALG_ABA] / (m->nv ? m->nv : 1));
  hg_data_free(b.d);
  for (int s = 0; s < 2; s++) free(b.q[s]), free(b.v[s]), free(b.a[s]), free(b.tau[s]);
  free(b.out); free(b.out2); free(b.M);
}

/* MuJoCo 2.2.2 on this kind of machine (the figures): mj_forward and mj_rne, ns */
typedef struct { const char *name; double mj_forward, mj_rne; } reference;
static const reference refs[] = {
    {"arm7", 2200, 1600}, {"chain30", 14000, 6600}, {"chain100", 154000, 24300},
    {"tree63", 18700, 14100}, {"humanoid32", 10000, 6500},
};

int main(int argc, char **argv) {
  const char *urdf = NULL;
  int floating = 0, repeats = 31;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--urdf") == 0 && i + 1 < argc) urdf = argv[++i];
    else if (strcmp(argv[i], "--floating") == 0) floating = 1;
    else if (strcmp(argv[i], "--quick") == 0) repeats = 5;
    else {
      fprintf(stderr, "usage: %s [--urdf FILE [--floating]] [--quick]\n", argv[0]);
      return 2;
    }
  }
  long allocs = 0;
  double ns[NALG];
  if (urdf) {
    hg_error err;
    hg_model *m = hg_urdf_load(urdf, floating, NULL, &err);
    if (!m) {
      fprintf(stderr, "bench_dynamics: %s\n", err.msg);
      return 2;
    }
    bench_model("urdf", m, repeats, ns, &allocs);
    /* the same robot with its fixed links merged into their parents (merge.h) */
    hg_model *mm = hg_model_merge_fixed(m, NULL, NULL, &err);
    if (mm) {
      double aba = ns[ALG_ABA];
      bench_model("urdf_merged", mm, repeats, ns, &allocs);
      printf("RATIO urdf bodies %d -> %d ABA_unmerged/ABA_merged %.2f\n", m->nbody - 1,
             mm->nbody - 1, aba / ns[ALG_ABA]);
      hg_model_free(mm);
    }
    hg_model_free(m);
  } else {
    struct { const char *name; hg_model *m; } models[] = {
        {"arm7", hg_test_arm7()},           {"chain30", hg_test_chain(30)},
        {"chain100", hg_test_chain(100)},   {"tree63", hg_test_binary_tree(6)},
        {"humanoid32", hg_test_humanoid()}, {"chain1000", hg_test_chain(1000)},
    };
    int n = (int)(sizeof models / sizeof models[0]);
    for (int k = 0; k < n; k++) {
      bench_model(models[k].name, models[k].m, repeats, ns, &allocs);
      for (size_t j = 0; j < sizeof refs / sizeof refs[0]; j++)
        if (strcmp(refs[j].name, models[k].name) == 0)
          printf("VERSUS %s ABA_vs_mj_forward %.1fx RNEA_vs_mj_rne %.1fx (targets: >= 3x)\n",
                 models[k].name, refs[j].mj_forward / ns[ALG_ABA], refs[j].mj_rne / ns[ALG_RNEA]);
      hg_model_free(models[k].m);
    }
  }
  if (!urdf) {
    /* model compilation (what a topology change costs) scales linearly: ns per body */
    for (int n = 1000; n <= 8000; n *= 2) {
      double t0 = now_ns();
      hg_model *m = hg_test_chain(n);
      printf("BENCH chain%d COMPILE_per_body %.0f\n", n, (now_ns() - t0) / n);
      hg_model_free(m);
    }
  }
  printf("ALLOCATIONS in timed calls: %ld\n", allocs);
  return allocs != 0;
}
