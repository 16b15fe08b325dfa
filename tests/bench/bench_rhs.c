/* bench_rhs.c: the cost of the simulation's right-hand side (force elements, profiles and hybrid
 * dynamics: hg_sim_rhs, what the integrator calls per acceleration), against ABA on the same model and
 * state, on the shipped scenes (the closed-loop ones included). Prints ns per call, the ratio to
 * ABA, and the heap allocations inside the timed calls (there must be none).
 *
 *   bench_rhs [--quick]   (run from the source tree's tests folder or give SCENES_DIR) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "allocs.h"
#include "sim_internal.h"
#include "timing.h"


/* ns per call of the RHS and of ABA at the state the scene reaches at time t */
static void bench(const char *dir, const char *name, double t, int reps) {
  char path[512];
  hg_error err;
  snprintf(path, sizeof path, "%s/%s.yaml", dir, name);
  hg_scene *sc = hg_scene_load(path, &err);
  if (!sc) {
    fprintf(stderr, "bench_rhs: %s\n", err.msg);
    exit(1);
  }
  hg_sim_options opt;
  hg_sim_default_options(&opt);
  hg_sim *s = hg_sim_new(sc, &opt, &err);
  if (!s || hg_sim_run(s, t)) {
    fprintf(stderr, "bench_rhs: %s\n", s ? hg_sim_error(s) : err.msg);
    exit(1);
  }
  const hg_model *m = s->m;
  double *tau = calloc((size_t)m->nv + 1, sizeof(double)), *qdd = calloc((size_t)m->nv + 1, sizeof(double));
  double best_rhs = INFINITY, best_aba = INFINITY, p;
  long alloc0 = hg_allocs();
  for (int round = 0; round < 5; round++) {
    double t0 = hg_test_now_ns();
    for (int k = 0; k < reps; k++) hg_sim_rhs(s, s->state.t, s->state.q, s->state.v, &p);
    double t1 = hg_test_now_ns();
    for (int k = 0; k < reps; k++) hg_aba(m, s->d, s->state.q, s->state.v, tau, NULL, qdd);
    double t2 = hg_test_now_ns();
    best_rhs = fmin(best_rhs, (t1 - t0) / reps);
    best_aba = fmin(best_aba, (t2 - t1) / reps);
  }
  long allocs = hg_allocs() - alloc0;
  printf("%-12s %5d %4d %10.0f %10.0f %7.2f %7ld\n", name, m->nbody - 1, m->nv, best_rhs, best_aba,
         best_rhs / best_aba, allocs);
  free(tau);
  free(qdd);
  hg_sim_free(s);
  hg_scene_free(sc);
}

int main(int argc, char **argv) {
  int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
  const char *dir = getenv("SCENES_DIR") ? getenv("SCENES_DIR") : "../scenes";
  /* each at t = 1 s, but two_latch_dock after its second latch closed a loop (t = 8.5 s) */
  const char *scenes[] = {"pendulum", "chain",   "freeze_thaw",       "humanoid",
                          "undock",   "heatshield", "fourbar",         "fivebar_spherical",
                          "two_latch_dock", "array_ccl"};
  const double at[] = {1, 1, 1, 1, 1, 1, 1, 1, 9, 1};
  printf("# right-hand side (forces, profiles, hybrid dynamics) vs ABA, ns per call, best of 5\n");
  printf("%-12s %5s %4s %10s %10s %7s %7s\n", "scene", "bodies", "nv", "rhs_ns", "aba_ns", "ratio",
         "allocs");
  for (size_t k = 0; k < sizeof scenes / sizeof scenes[0]; k++)
    bench(dir, scenes[k], at[k], quick ? 200 : 20000);
  return 0;
}
