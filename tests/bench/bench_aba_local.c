/* bench_aba_local: the tree-frame pass (hg_aba_opt, hg_hybrid_opt with tree_frame set) against the
 * body-local pass (dynamics/algorithms/aba_local.h) and its plain second implementation
 * (tests/support/local_oracle.h: dense 6x6 transforms, "general") on one model.
 *
 *   bench_aba_local MODEL cg FUNC [CALLS]   FUNC (aba, general, factored; hybrid, hgeneral,
 *                                           hfactored: hg_hybrid / hg_local_hybrid with random
 *                                           modes) called CALLS times (default 1000) on two
 *                                           alternating states, for valgrind --toggle-collect=
 *                                           hg_aba / hg_local_aba / hg_hybrid / hg_local_hybrid
 *   bench_aba_local MODEL ab [BLOCKS] [CALLS]  in-process A/B timing: BLOCKS (default 400) rounds
 *                                           of CALLS (default 200) calls of each function, order
 *                                           rotated every round; prints the median over rounds
 *                                           of each local variant's time over hg_aba's
 *   bench_aba_local MODEL abh [BLOCKS] [CALLS]  the same for hg_hybrid and hg_local_hybrid with
 *                                           random modes (free 1/2, prescribed 3/10, locked 1/5)
 * MODEL: chain30 (hg_test_chain), tree63 (hg_test_binary_tree(6)), arm7, rchain30 (30 bodies,
 * random axes and joint origins, seed 7), rtree63 (random revolute forest of 63 bodies),
 * pchain30, ptree63 (the same with about a third of the joints prismatic), humanoid
 * (hg_test_humanoid: a floating base). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "aba_local.h"
#include "local_oracle.h"
#include "models.h"

/* the tree-frame pass, the reference the body-local pass is checked against */
static const hg_pass_options tree_frame = {.tree_frame = 1};

static hg_model *model_named(const char *name) {
  hg_rng r;
  hg_rng_seed(&r, 7);
  if (!strcmp(name, "chain30")) return hg_test_chain(30);
  if (!strcmp(name, "tree63")) return hg_test_binary_tree(6);
  if (!strcmp(name, "arm7")) return hg_test_arm7();
  if (!strcmp(name, "rchain30")) return hg_test_random_revolute(&r, 30, 1);
  if (!strcmp(name, "rtree63")) return hg_test_random_revolute(&r, 63, 0);
  if (!strcmp(name, "pchain30")) return hg_test_random_1dof(&r, 30, 1, 0.35);
  if (!strcmp(name, "ptree63")) return hg_test_random_1dof(&r, 63, 0, 0.35);
  if (!strcmp(name, "humanoid")) return hg_test_humanoid();
  fprintf(stderr, "unknown model %s\n", name);
  exit(2);
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s MODEL cg FUNC [CALLS] | MODEL ab [BLOCKS] [CALLS]\n", argv[0]);
    return 2;
  }
  hg_model *m = model_named(argv[1]);
  hg_error err;
  hg_local_model *lf = hg_local_compile(m, &err);
  if (!lf) {
    fprintf(stderr, "%s\n", err.msg);
    return 1;
  }
  hg_data *d = hg_data_new(m);
  hg_local_data *df = hg_local_data_new(lf);
  int nv = m->nv, nq = m->nq;
  /* two states, A and B (q of a floating base: hg_model_random) */
  double *q = malloc(2 * nq * sizeof *q), *v = malloc(2 * nv * sizeof *v);
  double *tau = malloc(2 * nv * sizeof *tau), *qdd = malloc(3 * nv * sizeof *qdd);
  hg_rng r;
  hg_rng_seed(&r, 99);
  if (nq == nv) hg_test_random_vector(&r, q, 2 * nv, -2, 2);
  else hg_model_random(m, &r, q), hg_model_random(m, &r, q + nq);
  hg_test_random_vector(&r, v, 2 * nv, -2, 2);
  hg_test_random_vector(&r, tau, 2 * nv, -5, 5);
  /* the three agree (relative to max |qdd|) */
  double e = 0, s = 1;
  hg_aba_opt(m, d, &tree_frame, q, v, tau, NULL, qdd);
  hg_test_local_aba(lf, q, v, tau, NULL, qdd + nv);
  hg_local_aba(lf, df, q, v, tau, NULL, qdd + 2 * nv);
  for (int k = 0; k < nv; k++) s = fmax(s, fabs(qdd[k]));
  for (int k = 0; k < nv; k++)
    e = fmax(e, fmax(fabs(qdd[nv + k] - qdd[k]), fabs(qdd[2 * nv + k] - qdd[k])));
  /* hybrid: random modes, inputs and a buffer pair (qdd, tau) per function */
  int hyb = !strcmp(argv[2], "abh") ||
            (!strcmp(argv[2], "cg") && argc > 3 && (argv[3][0] == 'h'));
  double *hq = malloc(3 * nv * sizeof *hq), *ht = malloc(3 * nv * sizeof *ht);
  {
    hg_rng rm;
    hg_rng_seed(&rm, 5);
    for (int i = 1; i < m->nbody; i++) {
      double u = hg_rng_uniform(&rm);
      d->mode[i] = u < 0.5 ? HG_MODE_FREE : u < 0.8 ? HG_MODE_PRESCRIBED : HG_MODE_LOCKED;
    }
    hg_test_random_vector(&rm, hq, nv, -3, 3);
    for (int k = 0; k < 3; k++)
      for (int j = 0; j < nv; j++) hq[k * nv + j] = hq[j], ht[k * nv + j] = tau[j];
    hg_hybrid_opt(m, d, &tree_frame, q, v, hq, ht, NULL);
    hg_test_local_hybrid(lf, d->mode, q, v, hq + nv, ht + nv, NULL);
    hg_local_hybrid(lf, df, d->mode, q, v, hq + 2 * nv, ht + 2 * nv, NULL);
    double eh = 0, sh = 1;
    for (int k = 0; k < nv; k++) sh = fmax(sh, fmax(fabs(hq[k]), fabs(ht[k])));
    for (int w = 1; w < 3; w++)
      for (int k = 0; k < nv; k++)
        eh = fmax(eh, fmax(fabs(hq[w * nv + k] - hq[k]), fabs(ht[w * nv + k] - ht[k])));
    if (hyb) fprintf(stderr, "hybrid: max relative difference %.2g\n", eh / sh);
  }
  int nfac[6] = {0};
  for (int i = 1; i < m->nbody; i++)
    for (int b = 0; b < 5; b++) nfac[b] += (lf->link[i].factors >> b) & 1;
  fprintf(stderr, "%s: %d bodies, max relative qdd difference %.2g; factors gamma %d b %d alpha %d "
          "a %d d %d\n", argv[1], m->nbody - 1, e / s, nfac[0], nfac[1], nfac[2], nfac[3], nfac[4]);

  if (!strcmp(argv[2], "cg")) {
    const char *f = argc > 3 ? argv[3] : "aba";
    int calls = argc > 4 ? atoi(argv[4]) : 1000;
    for (int k = 0; k < calls; k++) {
      int o = (k & 1) * nv, oq = (k & 1) * nq;
      if (!strcmp(f, "aba")) hg_aba_opt(m, d, &tree_frame, q + oq, v + o, tau + o, NULL, qdd);
      else if (!strcmp(f, "general")) hg_test_local_aba(lf, q + oq, v + o, tau + o, NULL, qdd);
      else if (!strcmp(f, "factored")) hg_local_aba(lf, df, q + oq, v + o, tau + o, NULL, qdd);
      else if (!strcmp(f, "hybrid")) hg_hybrid_opt(m, d, &tree_frame, q + oq, v + o, hq, ht, NULL);
      else if (!strcmp(f, "hgeneral"))
        hg_test_local_hybrid(lf, d->mode, q + oq, v + o, hq + nv, ht + nv, NULL);
      else hg_local_hybrid(lf, df, d->mode, q + oq, v + o, hq + 2 * nv, ht + 2 * nv, NULL);
    }
  } else {
    int blocks = argc > 3 ? atoi(argv[3]) : 400, calls = argc > 4 ? atoi(argv[4]) : 200;
    double *rg = malloc(blocks * sizeof *rg), *rf = malloc(blocks * sizeof *rf), tsum[3] = {0};
    for (int b = 0; b < blocks; b++) {
      double t[3];
      for (int w = 0; w < 3; w++) {
        int f = (w + b) % 3; /* rotate the order every round */
        double t0 = now();
        for (int k = 0; k < calls; k++) {
          int o = (k & 1) * nv, oq = (k & 1) * nq;
          if (hyb) {
            if (f == 0) hg_hybrid_opt(m, d, &tree_frame, q + oq, v + o, hq, ht, NULL);
            else if (f == 1) hg_test_local_hybrid(lf, d->mode, q + oq, v + o, hq + nv, ht + nv, NULL);
            else hg_local_hybrid(lf, df, d->mode, q + oq, v + o, hq + 2 * nv, ht + 2 * nv, NULL);
          } else {
            if (f == 0) hg_aba_opt(m, d, &tree_frame, q + oq, v + o, tau + o, NULL, qdd);
            else if (f == 1) hg_test_local_aba(lf, q + oq, v + o, tau + o, NULL, qdd);
            else hg_local_aba(lf, df, q + oq, v + o, tau + o, NULL, qdd);
          }
        }
        t[f] = now() - t0;
      }
      rg[b] = t[1] / t[0], rf[b] = t[2] / t[0];
      for (int f = 0; f < 3; f++) tsum[f] += t[f];
    }
    qsort(rg, blocks, sizeof *rg, cmp);
    qsort(rf, blocks, sizeof *rf, cmp);
    printf("%s %s: median time ratio over %d blocks of %d calls: general/ref %.3f (quartiles %.3f "
           "%.3f), factored/ref %.3f (quartiles %.3f %.3f); mean us per call: ref %.2f general "
           "%.2f factored %.2f\n",
           argv[1], hyb ? "hybrid" : "aba", blocks, calls, rg[blocks / 2], rg[blocks / 4], rg[3 * blocks / 4], rf[blocks / 2],
           rf[blocks / 4], rf[3 * blocks / 4], 1e6 * tsum[0] / blocks / calls,
           1e6 * tsum[1] / blocks / calls, 1e6 * tsum[2] / blocks / calls);
    free(rg), free(rf);
  }
  free(q), free(v), free(tau), free(qdd), free(hq), free(ht);
  hg_local_data_free(df), hg_data_free(d);
  hg_local_model_free(lf), hg_model_free(m);
  return 0;
}
