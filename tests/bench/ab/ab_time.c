/* ab_time.c: two builds of libhinge timed in one process (see ab.sh, which builds them).
 *
 *   ab_time LIB_A LIB_B MODEL [ABA|RNEA|HYBRID] [ROUNDS]
 *
 * Each build is loaded with its own symbols (dlopen, RTLD_LOCAL) and builds its own copy of a
 * benchmark model (tests/support/models.h: arm7, chain30, chain100, tree15, tree63,
 * humanoid32). Each round times a block of calls of A, then of B, alternating two states; a
 * shared machine's slow spells then hit both builds alike, and the median of the per-round ratios
 * B/A is what to read (with its quartiles). Prints the min and median ns per call of each too.
 * Compile it against build A's dynamics/ headers (it reads nq and nv from A's hg_model). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "model.h"
#include "timing.h"

typedef hg_model *(*make0_t)(void);
typedef hg_model *(*make1_t)(int);
typedef hg_data *(*data_new_t)(const hg_model *);
typedef int (*aba_t)(const hg_model *, hg_data *, const double *, const double *, const double *,
                     const double *, double *);
typedef void (*rnea_t)(const hg_model *, hg_data *, const double *, const double *,
                       const double *, const double *, double *);
typedef int (*hybrid_t)(const hg_model *, hg_data *, const double *, const double *, double *,
                        double *, const double *);

typedef struct {
  hg_model *m;
  hg_data *d;
  aba_t aba;
  rnea_t rnea;
  hybrid_t hybrid;
} build;

static void *sym(void *h, const char *lib, const char *name) {
  void *f = dlsym(h, name);
  if (!f) {
    fprintf(stderr, "ab_time: %s has no %s\n", lib, name);
    exit(2);
  }
  return f;
}

/* loads one build and makes its copy of the model */
static void load(build *b, const char *lib, const char *model) {
  void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    fprintf(stderr, "ab_time: %s\n", dlerror());
    exit(2);
  }
  if (!strcmp(model, "arm7")) b->m = ((make0_t)sym(h, lib, "hg_test_arm7"))();
  else if (!strcmp(model, "humanoid32")) b->m = ((make0_t)sym(h, lib, "hg_test_humanoid"))();
  else if (!strcmp(model, "chain30")) b->m = ((make1_t)sym(h, lib, "hg_test_chain"))(30);
  else if (!strcmp(model, "chain100")) b->m = ((make1_t)sym(h, lib, "hg_test_chain"))(100);
  else if (!strcmp(model, "tree15")) b->m = ((make1_t)sym(h, lib, "hg_test_binary_tree"))(4);
  else if (!strcmp(model, "tree63")) b->m = ((make1_t)sym(h, lib, "hg_test_binary_tree"))(6);
  else {
    fprintf(stderr, "ab_time: unknown model '%s': expected arm7, chain30, chain100, tree15, "
                    "tree63 or humanoid32\n", model);
    exit(2);
  }
  b->d = ((data_new_t)sym(h, lib, "hg_data_new"))(b->m);
  b->aba = (aba_t)sym(h, lib, "hg_aba");
  b->rnea = (rnea_t)sym(h, lib, "hg_rnea");
  b->hybrid = (hybrid_t)sym(h, lib, "hg_hybrid");
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: %s LIB_A LIB_B MODEL [ABA|RNEA|HYBRID] [ROUNDS]\n", argv[0]);
    return 2;
  }
  const char *alg = argc > 4 ? argv[4] : "ABA";
  int rounds = argc > 5 ? atoi(argv[5]) : 300;
  if (strcmp(alg, "ABA") && strcmp(alg, "RNEA") && strcmp(alg, "HYBRID")) {
    fprintf(stderr, "ab_time: unknown algorithm '%s': expected ABA, RNEA or HYBRID\n", alg);
    return 2;
  }
  if (rounds < 1) {
    fprintf(stderr, "ab_time: ROUNDS must be a whole number >= 1\n");
    return 2;
  }
  build A, B;
  load(&A, argv[1], argv[3]);
  load(&B, argv[2], argv[3]);
  int nq = A.m->nq, nv = A.m->nv;

  /* two states (a free joint's quaternion part is taken as given: the dynamics normalize it) */
  double *q[2], *v[2], *u[2], *out = calloc((size_t)nv, sizeof(double));
  double *tau = calloc((size_t)nv, sizeof(double));
  srand(1);
  for (int s = 0; s < 2; s++) {
    q[s] = calloc((size_t)nq, sizeof(double));
    v[s] = calloc((size_t)nv, sizeof(double));
    u[s] = calloc((size_t)nv, sizeof(double));
    for (int k = 0; k < nq; k++) q[s][k] = rand() / (double)RAND_MAX - 0.5;
    for (int k = 0; k < nv; k++) v[s][k] = rand() / (double)RAND_MAX - 0.5;
    for (int k = 0; k < nv; k++) u[s][k] = rand() / (double)RAND_MAX - 0.5;
  }

  /* rounds of K calls of A then K of B, K about 20,000 DoF-calls */
  int K = 20000 / (nv + 5) + 1;
  double *ta = malloc((size_t)rounds * sizeof(double)), *tb = malloc((size_t)rounds * sizeof(double));
  double *ratio = malloc((size_t)rounds * sizeof(double));
  for (int r = 0; r < rounds; r++) {
    for (int w = 0; w < 2; w++) {
      build *x = w ? &B : &A;
      double t0 = hg_test_now_ns();
      for (int k = 0; k < K; k++) {
        int s = k & 1;
        if (alg[0] == 'A') x->aba(x->m, x->d, q[s], v[s], u[s], NULL, out);
        else if (alg[0] == 'R') x->rnea(x->m, x->d, q[s], v[s], u[s], NULL, out);
        else {
          memcpy(tau, u[s], (size_t)nv * sizeof(double));
          x->hybrid(x->m, x->d, q[s], v[s], out, tau, NULL);
        }
      }
      (w ? tb : ta)[r] = (hg_test_now_ns() - t0) / K;
    }
    ratio[r] = tb[r] / ta[r];
  }
  qsort(ta, (size_t)rounds, sizeof(double), hg_test_cmp_double);
  qsort(tb, (size_t)rounds, sizeof(double), hg_test_cmp_double);
  qsort(ratio, (size_t)rounds, sizeof(double), hg_test_cmp_double);
  printf("%s %s: A min %.0f med %.0f ns, B min %.0f med %.0f ns, B/A median %.3f (quartiles "
         "%.3f, %.3f) over %d rounds of %d calls\n", argv[3], alg, ta[0], ta[rounds / 2], tb[0],
         tb[rounds / 2], ratio[rounds / 2], ratio[rounds / 4], ratio[3 * rounds / 4], rounds, K);
  return 0;
}
