/* bench_constraints.c: the cost of closed-loop constrained dynamics (loops.h) against ABA.
 *
 * A 30-DoF spatial revolute chain (hg_test_chain) with weld loops closed at its state: one weld
 * (the last link to the world, or to link 1) and three welds (links 10, 20 and 30 to the world).
 * A constrained call is hg_kinematics and hg_loops_hybrid (the walk hg_loops_hybrid needs); ABA is
 * hg_aba (the body-local pass where the model has one, as a simulation calls it).
 *   bench_constraints                    ns per call and the ratio to ABA, median of blocks
 *   bench_constraints cg CASE [CALLS]    CALLS calls of one case inside call(), for callgrind
 *                                        (CASE: aba, weld1, weld_link1, weld3) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loops.h"
#include "models.h"
#include "timing.h"

typedef struct {
  const char *name;
  hg_model *m;
  hg_data *d;
  hg_loops *L;
  double *q, *v, *qdd, *tau, *lambda;
} bench_case;

/* welds from bodies b[k] to bodies a[k] (0: the world), closed at the case's q */
static void make(bench_case *c, const char *name, int n, const int *a, const int *b) {
  hg_rng r;
  hg_rng_seed(&r, 7);
  c->name = name;
  c->m = hg_test_chain(30);
  c->d = hg_data_new(c->m);
  c->q = calloc((size_t)c->m->nq, sizeof(double));
  c->v = calloc((size_t)c->m->nv, sizeof(double));
  c->qdd = calloc((size_t)c->m->nv, sizeof(double));
  c->tau = calloc((size_t)c->m->nv, sizeof(double));
  hg_test_random_vector(&r, c->q, c->m->nq, -0.5, 0.5);
  hg_test_random_vector(&r, c->v, c->m->nv, -0.5, 0.5);
  hg_kinematics(c->m, c->d, c->q, NULL);
  hg_loop loop[3];
  static const double z[3] = {0, 0, 1};
  const char *why;
  for (int k = 0; k < n; k++) {
    memset(&loop[k], 0, sizeof loop[k]);
    loop[k].kind = HG_LOOP_JOINT;
    hg_joint_init(&loop[k].joint, HG_JOINT_FIXED, z, NULL, 0, &why);
    loop[k].body[0] = a[k], loop[k].body[1] = b[k];
    hg_se3_identity(&loop[k].M[1]);
    loop[k].M[1].p[0] = 0.15;
    /* M_A = T_0a^-1 T_0b M_B: closed */
    hg_se3 B;
    hg_se3_mul(&c->d->T_world[b[k]], &loop[k].M[1], &B);
    if (a[k]) hg_se3_invmul(&c->d->T_world[a[k]], &B, &loop[k].M[0]);
    else loop[k].M[0] = B;
  }
  hg_error err;
  c->L = n ? hg_loops_new(c->m, loop, n, &err) : NULL;
  c->lambda = calloc(18, sizeof(double));
  /* a velocity along the manifold */
  if (c->L && hg_loops_project(c->L, c->d, c->q, c->v, NULL, 1e-12, 10) < 0) {
    fprintf(stderr, "bench_constraints: %s\n", c->d->err);
    exit(1);
  }
}

static void release(bench_case *c) {
  hg_loops_free(c->L);
  hg_data_free(c->d);
  hg_model_free(c->m);
  free(c->q), free(c->v), free(c->qdd), free(c->tau), free(c->lambda);
}

/* one call of the case */
static void once(bench_case *c) {
  if (!c->L) {
    hg_aba(c->m, c->d, c->q, c->v, c->tau, NULL, c->qdd);
    return;
  }
  hg_kinematics(c->m, c->d, c->q, c->v);
  hg_loops_hybrid(c->L, c->d, c->q, c->v, NULL, c->qdd, c->tau, NULL, c->lambda);
}

/* the calls callgrind counts (--toggle-collect=call) */
__attribute__((noinline)) void call(bench_case *c, int calls);
__attribute__((noinline)) void call(bench_case *c, int calls) {
  for (int k = 0; k < calls; k++) once(c);
}

/* the median over blocks of about 50 us each (short: a block the scheduler interrupts, on a
 * shared machine, is one outlier of many) */
static double ns_per_call(bench_case *c) {
  enum { BLOCKS = 2001 };
  static double t[BLOCKS];
  double t0 = hg_test_now_ns();
  for (int k = 0; k < 1000; k++) once(c);
  int calls = (int)(50e3 / ((hg_test_now_ns() - t0) / 1000)) + 1;
  for (int b = 0; b < BLOCKS; b++) {
    t0 = hg_test_now_ns();
    for (int k = 0; k < calls; k++) once(c);
    t[b] = (hg_test_now_ns() - t0) / calls;
  }
  qsort(t, BLOCKS, sizeof t[0], hg_test_cmp_double);
  return t[BLOCKS / 2];
}

int main(int argc, char **argv) {
  static const int a1[] = {0}, b1[] = {30}, al[] = {1}, a3[] = {0, 0, 0}, b3[] = {10, 20, 30};
  bench_case cs[4];
  make(&cs[0], "aba", 0, NULL, NULL);
  make(&cs[1], "weld1", 1, a1, b1);
  make(&cs[2], "weld_link1", 1, al, b1);
  make(&cs[3], "weld3", 3, a3, b3);
  if (argc > 2 && !strcmp(argv[1], "cg")) {
    int calls = argc > 3 ? atoi(argv[3]) : 100;
    for (int k = 0; k < 4; k++)
      if (!strcmp(argv[2], cs[k].name)) call(&cs[k], calls);
  } else {
    double t0 = ns_per_call(&cs[0]);
    printf("chain30 %-11s %9.0f ns\n", "aba", t0);
    for (int k = 1; k < 4; k++) {
      double t = ns_per_call(&cs[k]);
      printf("chain30 %-11s %9.0f ns  %5.2fx ABA\n", cs[k].name, t, t / t0);
    }
  }
  for (int k = 0; k < 4; k++) release(&cs[k]);
  return 0;
}
