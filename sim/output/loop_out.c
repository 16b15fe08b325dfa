/* loop_out.c: the closed loops in a run's outputs, read through the simulation's loop views
 * (sim.h, hg_sim_loop):
 *   trajectory.csv  a block per loop of the scene: closed (0/1), the wrench the loop transmits
 *                   (a's side on b's side, moment about frame A's origin then force, A's axes;
 *                   a coupling: its force or torque on the follower), the position and velocity
 *                   violation; empty while the loop is absent
 *   loads.png       |force| and |moment| of each scene loop while it is closed (plot.c draws them)
 *   summary.txt     closed_loops: each loop of the run (attach-made too), whether it is closed
 *                   at the end, its largest violations and forces while closed, and the
 *                   redundancy of the constraint solve
 * Like docking joints, the loops an attach makes at run time have no trajectory columns: the
 * columns depend on the scene alone. Runs without loops write nothing of this. */
#include <math.h>
#include <stdlib.h>

#include "grow.h"
#include "run_outputs.h"

static double norm3(const double *x) { return sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]); }

int hg_out_loops_init(hg_outputs *o, hg_sim *s) {
  const hg_scene *sc = hg_sim_scene(s);
  o->nloopcol = sc->nloop;
  memset(&o->loopser, 0, sizeof o->loopser);
  o->loopser.width = 1 + 2 * o->nloopcol;
  o->loopser.stride = 1;
  if (!o->nloopcol) return 0;
  o->row_loop = calloc((size_t)o->loopser.width, sizeof(double));
  return o->row_loop ? 0 : -1;
}

void hg_out_loops_free(hg_outputs *o) {
  free(o->loop);
  free(o->loopser.x);
  free(o->row_loop);
}

/* LOOP.closed, LOOP.force.mx my mz fx fy fz (a coupling: LOOP.force), then
 * LOOP.violation.distance, .angle (a coupling: .position) and .speed */
void hg_out_loops_header(const hg_outputs *o, hg_sim *s, FILE *f) {
  static const char *const w[6] = {"mx", "my", "mz", "fx", "fy", "fz"};
  const hg_scene *sc = hg_sim_scene(s);
  for (int k = 0; k < o->nloopcol; k++) {
    const hg_loop_spec *sp = &sc->loop[k];
    const char *n = sp->name;
    hg_csv_field(f, 1, "%s.closed", n);
    if (sp->coupling) {
      hg_csv_field(f, 1, "%s.force", n);
      hg_csv_field(f, 1, "%s.violation.position", n);
      hg_csv_field(f, 1, "%s.violation.speed", n);
      continue;
    }
    for (int j = 0; j < 6; j++) hg_csv_field(f, 1, "%s.force.%s", n, w[j]);
    hg_csv_field(f, 1, "%s.violation.distance", n);
    hg_csv_field(f, 1, "%s.violation.angle", n);
    hg_csv_field(f, 1, "%s.violation.speed", n);
  }
}

static void put(FILE *f, double x) { fprintf(f, ",%.17g", x); }

/* the record of loop k (grown as attach makes loops); NULL when out of memory */
static hg_loop_record *record(hg_outputs *o, int k) {
  while (o->nloop <= k) {
    if (hg_grow((void **)&o->loop, o->nloop, &o->caploop, 8, sizeof *o->loop)) return NULL;
    o->loop[o->nloop++] = (hg_loop_record){0};
  }
  return &o->loop[k];
}

/* loop k's view now into its record */
static void track(hg_loop_record *r, const hg_sim_loop_view *lv, int coupling, double t) {
  if (!lv->present) return;
  r->present_rows++;
  if (!lv->active) return;
  r->closed_rows++;
  double pos = fmax(lv->distance, lv->angle);
  if (r->closed_rows == 1 || pos > fmax(r->max_distance, r->max_angle)) r->t_max = t;
  r->max_distance = fmax(r->max_distance, lv->distance);
  r->max_angle = fmax(r->max_angle, lv->angle);
  r->max_speed = fmax(r->max_speed, lv->speed);
  if (coupling) {
    r->max_force = fmax(r->max_force, fabs(lv->wrench[0]));
    return;
  }
  r->max_moment = fmax(r->max_moment, norm3(lv->wrench));
  r->max_force = fmax(r->max_force, norm3(lv->wrench + 3));
}

int hg_out_loops_row(hg_outputs *o, hg_sim *s, FILE *f) {
  const hg_scene *sc = hg_sim_scene(s);
  int n = hg_sim_nloop(s);
  double t = hg_sim_time(s), *pl = o->row_loop;
  for (int k = 0; k < n; k++) {
    hg_sim_loop_view lv;
    hg_loop_record *r = record(o, k);
    if (!r) return -1;
    hg_sim_loop(s, k, &lv);
    int coupling = lv.type && !strcmp(lv.type, "coupling");
    track(r, &lv, coupling, t);
    if (k >= o->nloopcol) continue;
    /* the scene's loop: its trajectory block and plot row */
    coupling = sc->loop[k].coupling;
    int nw = coupling ? 1 : 6, nviol = coupling ? 2 : 3;
    pl[1 + 2 * k] = pl[2 + 2 * k] = NAN;
    if (!lv.present) {
      for (int j = 0; j < 1 + nw + nviol; j++) fputc(',', f);
      continue;
    }
    fprintf(f, ",%d", lv.active ? 1 : 0);
    for (int j = 0; j < nw; j++) put(f, lv.active ? lv.wrench[j] : 0.0);
    put(f, lv.distance);
    if (!coupling) put(f, lv.angle);
    put(f, lv.speed);
    if (!lv.active) continue;
    pl[1 + 2 * k] = coupling ? fabs(lv.wrench[0]) : norm3(lv.wrench + 3);
    if (!coupling) pl[2 + 2 * k] = norm3(lv.wrench);
  }
  if (!o->nloopcol || !o->plot) return 0; /* the series is for the plots only */
  pl[0] = t;
  return hg_series_push(&o->loopser, pl);
}

/* closed_loops: N, a line per loop, the largest violations of any closed loop and the
 * redundancy (hg_sim_loop_stats) */
void hg_out_loops_summary(const hg_outputs *o, hg_sim *s, FILE *f) {
  int n = hg_sim_nloop(s), nscene = hg_sim_scene(s)->nloop;
  if (n == 0) return;
  fprintf(f, "closed_loops: %d (%d of the scene, %d made by attach)\n", n, nscene, n - nscene);
  for (int k = 0; k < n; k++) {
    hg_sim_loop_view lv;
    hg_sim_loop(s, k, &lv);
    static const hg_loop_record none;
    const hg_loop_record *r = k < o->nloop ? &o->loop[k] : &none;
    int coupling = lv.type && !strcmp(lv.type, "coupling");
    fprintf(f, "  %s (%s, %d row%s): %s at the end; closed in %ld of %ld output rows", lv.name,
            lv.type, lv.nrow, lv.nrow == 1 ? "" : "s",
            !lv.present ? "absent" : lv.active ? "closed" : "open", r->closed_rows, o->rows);
    if (r->closed_rows == 0) {
      fputc('\n', f);
      continue;
    }
    if (coupling)
      fprintf(f, "; max violation %.3g (m or rad) at t = %.9g s, velocity %.3g; max |force| "
                 "%.6g (N or N m)\n", r->max_distance, r->t_max, r->max_speed, r->max_force);
    else
      fprintf(f, "; max violation %.3g m, %.3g rad at t = %.9g s, velocity %.3g; max |force| "
                 "%.6g N, |moment| %.6g N m\n", r->max_distance, r->max_angle, r->t_max,
              r->max_speed, r->max_force, r->max_moment);
  }
  double pos, vel;
  int red;
  hg_sim_loop_stats(s, &pos, &vel, &red);
  fprintf(f, "loop_violation_max: position %.3g (m and rad), velocity %.3g (m/s and rad/s) "
             "(max over the output rows of every closed loop)\n", pos, vel);
  fprintf(f, "loop_redundant_rows: %d (constraint rows beyond the rank of the solve, max over "
             "the output rows; > 0: redundant or singular loops, solved in least squares)\n",
          red);
}
