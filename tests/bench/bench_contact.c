/* bench_contact.c: the cost of contact. A pile of N free bodies (spheres and boxes, half each) on
 * a ground slab, each touching the ground and its neighbours, under one contact element between
 * the pile and the pile plus the ground (every pair once). For N = 10 to 100 it prints the
 * contact query (hg_collision_contacts: broad phase over all N (N + 1) / 2 pairs, FCL on the
 * pairs whose bounding spheres overlap) per call, per body and per pair, the points found, and
 * the whole right-hand side of the simulation (forces, contact, hybrid dynamics) with the
 * contact element on and off, against ABA; and the heap allocations per call after the first
 * calls (hinge's part makes none; FCL's narrow phase makes small ones of its own).
 *
 *   bench_contact [--quick] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int mkstemps(char *template_, int suffixlen); /* (POSIX leaves it out of _POSIX_C_SOURCE) */

#include "allocs.h"
#include "sim_internal.h"
#include "timing.h"


/* a scene of n bodies in a square grid of pitch 0.19 m, resting 1 mm deep in the ground and in
 * each other (spheres of radius 0.1, boxes of 0.2 m), written to path */
static void write_pile(const char *path, int n) {
  FILE *f = fopen(path, "w");
  int side = (int)ceil(sqrt(n));
  if (!f) {
    perror(path);
    exit(1);
  }
  fprintf(f, "gravity: [0, 0, -9.81]\nbodies:\n"
             "  - {name: ground, joint: fixed, inertia: {mass: 1, inertia: [1, 1, 1]},\n"
             "     geometry: [{type: box, size: [50, 50, 1], pos: [0, 0, -0.5], collision: true}]}\n");
  for (int k = 0; k < n; k++)
    fprintf(f, "  - {name: b%d, joint: free, inertia: {mass: 1, inertia: [0.004, 0.004, 0.004]},\n"
               "     geometry: [{type: %s, %s, collision: true}]}\n",
            k, k % 2 ? "box" : "sphere", k % 2 ? "size: [0.2, 0.2, 0.2]" : "radius: 0.1");
  fprintf(f, "forces:\n  - {name: pile, type: contact, stiffness: 1e6, dissipation: 1, "
             "friction: 0.5, between: [[");
  for (int k = 0; k < n; k++) fprintf(f, "%sb%d", k ? ", " : "", k);
  fprintf(f, "], [ground");
  for (int k = 0; k < n; k++) fprintf(f, ", b%d", k);
  fprintf(f, "]]}\ninitial:\n  bodies:\n");
  for (int k = 0; k < n; k++)
    fprintf(f, "    b%d: {pos: [%g, %g, 0.099], twist: [0.1, 0, 0.2, 0.01, 0, 0]}\n", k,
            0.19 * (k % side), 0.19 * (k / side));
  fprintf(f, "integrator: {method: cvode-bdf}\ntime: {start: 0, end: 1}\n");
  fclose(f);
}

/* best of five rounds of reps calls, ns per call */
#define TIME(best, reps, call)                                   \
  do {                                                           \
    best = INFINITY;                                             \
    for (int round_ = 0; round_ < 5; round_++) {                 \
      double t0_ = hg_test_now_ns();                                     \
      for (int k_ = 0; k_ < (reps); k_++) call;                  \
      best = fmin(best, (hg_test_now_ns() - t0_) / (reps));              \
    }                                                            \
  } while (0)

static void bench(int n, int reps) {
  char path[] = "/tmp/hinge-bench-contact-XXXXXX.yaml";
  int fd = mkstemps(path, 5);
  hg_error err;
  if (fd < 0) {
    perror("mkstemps");
    exit(1);
  }
  close(fd);
  write_pile(path, n);
  hg_scene *sc = hg_scene_load(path, &err);
  remove(path);
  hg_sim_options opt;
  hg_sim_default_options(&opt);
  hg_sim *s = sc ? hg_sim_new(sc, &opt, &err) : NULL;
  if (!s) {
    fprintf(stderr, "bench_contact: %s\n", err.msg);
    exit(1);
  }
  const hg_model *m = s->m;
  const hg_force_spec *fs = &sc->force[0];
  int na = fs->nside[0], nb = fs->nside[1], a[128], b[128];
  for (int k = 0; k < na; k++) a[k] = hg_model_body(m, fs->side[0][k]);
  for (int k = 0; k < nb; k++) b[k] = hg_model_body(m, fs->side[1][k]);
  const hg_contact *pts;
  hg_collision *coll = hg_collision_new(m, &err);
  double *tau = calloc((size_t)m->nv, sizeof(double)), *qdd = calloc((size_t)m->nv, sizeof(double));
  double q_ns, on_ns, off_ns, aba_ns, p;
  int npts = 0;

  /* the query, the right-hand side with and without contact, and ABA at the initial state */
  hg_kinematics(m, s->d, s->state.q, s->state.v);
  hg_collision_contacts(coll, m, s->d->T_world, a, na, b, nb, NULL, 0, NULL, 0, &pts); /* (warm) */
  hg_sim_eval(s, s->state.t, s->state.q, s->state.v, &p);
  long alloc0 = hg_allocs();
  TIME(q_ns, reps,
       npts = hg_collision_contacts(coll, m, s->d->T_world, a, na, b, nb, NULL, 0, NULL, 0, &pts));
  long q_allocs = hg_allocs() - alloc0;
  TIME(on_ns, reps, hg_sim_eval(s, s->state.t, s->state.q, s->state.v, &p));
  long allocs = hg_allocs() - alloc0 - q_allocs;
  hg_forces_set_enabled(s->forces, 0, 0);
  TIME(off_ns, reps, hg_sim_eval(s, s->state.t, s->state.q, s->state.v, &p));
  TIME(aba_ns, reps, hg_aba(m, s->d, s->state.q, s->state.v, tau, NULL, qdd));
  long pairs = (long)n * (n + 1) / 2;
  printf("%5d %6ld %6d %10.0f %9.0f %8.1f %11.0f %11.0f %9.0f %7.1f %8.2f %8.2f\n", n, pairs, npts,
         q_ns, q_ns / n, q_ns / pairs, on_ns, off_ns, aba_ns, on_ns / aba_ns,
         (double)q_allocs / (5.0 * reps), (double)allocs / (5.0 * reps));
  free(tau);
  free(qdd);
  hg_collision_free(coll);
  hg_sim_free(s);
  hg_scene_free(sc);
}

int main(int argc, char **argv) {
  int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
  const int sizes[] = {10, 20, 50, 100};
  printf("# contact on a resting pile of N bodies (spheres and boxes) on the ground; ns per call,"
         " best of 5\n");
  printf("# query: hg_collision_contacts over all pairs; rhs: the simulation's right-hand side "
         "with the contact element on / off\n");
  printf("# allocs: heap allocations per call (all of them inside FCL's narrow phase)\n");
  printf("%5s %6s %6s %10s %9s %8s %11s %11s %9s %7s %8s %8s\n", "N", "pairs", "points", "query_ns",
         "per_body", "per_pair", "rhs_on_ns", "rhs_off_ns", "aba_ns", "on/aba", "q_allocs",
         "rhs_allocs");
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
    bench(sizes[k], quick ? 5 : (int)(20000 / sizes[k]));
  return 0;
}
