/* summary.c: summary.txt, what a run did in a page: status, integrator statistics, events,
 * which invariants apply and how well they held, the energy budget, timing. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "run_outputs.h"

static void summary_integrator(FILE *f, const hg_sim *s) {
  const hg_integ_options *io = hg_sim_integ_options(s);
  hg_integ_stats st;
  hg_sim_stats(s, &st);
  fprintf(f, "method: %s\nrtol: %g\n", hg_integ_method_name(io->method), io->rtol);
  fprintf(f, "steps: %ld\nrhs_evals: %ld\njac_evals: %ld\nerr_test_fails: %ld\nconv_fails: %ld\n"
             "root_evals: %ld\nrecentres: %ld\nintegrator_events: %ld\nresets: %ld\n",
          st.steps, st.rhs_evals, st.jac_evals, st.err_test_fails, st.conv_fails, st.root_evals,
          st.recentres, st.events, st.resets);
}

static void summary_events(FILE *f, const hg_sim *s) {
  double worst = 0;
  int nc = 0, n = hg_sim_nevents(s);
  fprintf(f, "events: %d\n", n);
  for (int k = 0; k < n; k++) {
    const hg_sim_event *ev = hg_sim_event_at(s, k);
    double dh = hg_sim_event_momentum_change(ev);
    fprintf(f, "  t = %.9g  %s: %s (momentum change %.3g, energy %.9g -> %.9g J)\n", ev->t,
            ev->name, ev->details, dh, ev->e_before, ev->e_after);
    if (ev->conserves && (nc++ == 0 || dh > worst)) worst = dh;
  }
  fprintf(f, "momentum_change_across_events: %.3g (max over %d momentum-conserving events)\n",
          worst, nc);
}

/* which invariants hold for this scene, and how well */
static void summary_momentum(FILE *f, const hg_sim *s) {
  const hg_sim_momentum_track *mt = hg_sim_momentum_drift(s);
  if (mt->nstretch == 0) {
    fprintf(f, "invariants: energy budget (momentum is not conserved: %s)\n", mt->why);
    fprintf(f, "momentum_drift: n/a (the system is never isolated)\n");
    return;
  }
  fprintf(f, "invariants: energy budget; momentum while the system is isolated (%d stretch%s; "
             "the last from %s", mt->nstretch, mt->nstretch > 1 ? "es" : "", mt->since);
  if (!mt->isolated) fprintf(f, " to t = %.9g s", mt->t_out);
  fprintf(f, ")\n");
  if (mt->why[0])
    fprintf(f, "not_isolated: last at t = %.9g s: %s\n", mt->t_out, mt->why);
  int k = mt->scale[0] > 0 && mt->worst_abs[0] / mt->scale[0] >=
                                  (mt->scale[1] > 0 ? mt->worst_abs[1] / mt->scale[1] : 0)
              ? 0 : 1;
  fprintf(f, "momentum_drift: %.3g (max over the isolated stretches of |L - L0| and |p - p0|, "
             "L0, p0 at the start of each, relative to momentum_scale; the worst: %s in the "
             "stretch from t = %.9g s to t = %.9g s)\n",
          mt->drift, k == 0 ? "|L - L0|" : "|p - p0|", mt->worst_from[k], mt->worst_to[k]);
  fprintf(f, "momentum_drift_absolute: %.3g N m s (stretch from t = %.9g s to t = %.9g s), "
             "%.3g N s (stretch from t = %.9g s to t = %.9g s) (max |L - L0|, |p - p0|; L about "
             "the world origin)\n", mt->worst_abs[0], mt->worst_from[0], mt->worst_to[0],
          mt->worst_abs[1], mt->worst_from[1], mt->worst_to[1]);
  fprintf(f, "momentum_scale: %.6g N m s, %.6g N s (the run's peak of the bodies' summed "
             "|L about their tree's root| + |root position| |p|, and |p|, which bound the "
             "total's)\n", mt->scale[0], mt->scale[1]);
}

/* per output pair with collision geometry: the smallest clearance, and whether they touched */
static void summary_clearance(FILE *f, const hg_outputs *o, hg_sim *s) {
  const hg_output_spec *os = &hg_sim_scene(s)->output;
  for (int p = 0; p < os->npair; p++) {
    const hg_pair_clearance *c = &o->clear[p];
    if (c->rows == 0) continue;
    const char *a = os->pair[p].body_a, *b = os->pair[p].body_b;
    fprintf(f, "clearance_min: %s-%s %.6g m at t = %.9g s (collision geometry; < 0 overlapping)\n",
            a, b, c->min, c->t_min);
    if (!c->apart) {
      fprintf(f, "separation: %s-%s never apart at the output times\n", a, b);
      continue;
    }
    fprintf(f, "separation: %s-%s apart from t = %.9g s; minimum clearance after it %.6g m at "
               "t = %.9g s\n", a, b, c->t_apart, c->min_apart, c->t_min_apart);
    if (c->recontacts)
      fprintf(f, "recontact: %s-%s YES, clearance <= 0 again in %ld output rows, first at "
                 "t = %.9g s\n", a, b, c->recontacts, c->t_recontact);
    else
      fprintf(f, "recontact: %s-%s none at the output times\n", a, b);
  }
}

/* joints beyond their effort or velocity limits at some output row */
static void summary_limits(FILE *f, const hg_outputs *o) {
  fprintf(f, "limit_violations: %d\n", o->nlimit);
  for (int k = 0; k < o->nlimit; k++) {
    const hg_limit_record *r = &o->limit[k];
    fprintf(f, "  %s %s: beyond %.6g in %ld output rows, worst %.6g at t = %.9g s\n", r->joint,
            r->effort ? "effort (the load its lock or actuator carries)" : "velocity", r->limit,
            r->rows, r->worst, r->t_worst);
  }
}

static void summary_budget(FILE *f, hg_sim *s) {
  hg_sim_budget b;
  hg_sim_get_budget(s, &b);
  fprintf(f, "energy_kinetic: %.9g J\nenergy_potential: %.9g J\nenergy_elements: %.9g J\n"
             "energy_removed_by_locks: %.9g J\nwork_nonconservative: %.9g J\n"
             "energy_added_by_events: %.9g J\n",
          b.kinetic, b.potential, b.element, b.e_lock, b.work, b.work_event);
  fprintf(f, "energy_budget: initial %.12g J, final %.12g J, scale %.6g J\n", b.initial, b.value,
          b.scale);
  fprintf(f, "energy_budget_drift: %.3g (max |B - B0| over the outputs / the largest scale)\n",
          b.max_drift);
}

int hg_out_summary(hg_outputs *o, hg_sim *s, const char *path) {
  hg_outfile out;
  if (hg_outfile_replace(&out, path)) {
    hg_out_check(o, &out);
    remove(path); /* an older summary.txt would claim this run */
    return -1;
  }
  FILE *f = out.f;
  const hg_scene *sc = hg_sim_scene(s);
  const hg_model *m = hg_sim_model(s);
  double t = hg_sim_time(s), t0 = hg_sim_t_start(s), t1 = hg_sim_t_end(s);
  double wall = hg_sim_wall_time(s);
  fprintf(f, "hinge run summary\nscene: %s\n", sc->path ? sc->path : "?");
  if (sc->title) fprintf(f, "title: %s\n", sc->title);
  /* a file that could not be written fails the run's outputs, whatever the run did */
  if (o->werr)
    fprintf(f, "status: failed: %s%s%s\n", hg_outfile_full(o->werr) ? "disk full (" : "", o->msg,
            hg_outfile_full(o->werr) ? ")" : "");
  else
    fprintf(f, "status: %s\n", hg_sim_status(s) ? hg_sim_error(s)
                               : t >= t1           ? "completed"
                                                   : "stopped before the end");
  fprintf(f, "time: %.9g to %.9g s (end %.9g s)\n", t0, t, t1);
  fprintf(f, "bodies: %d\ndofs: %d\n", m->nbody - 1, m->nv);
  summary_integrator(f, s);
  summary_events(f, s);
  summary_momentum(f, s);
  fprintf(f, "refused_actions: %d\n", hg_sim_refused(s));
  summary_clearance(f, o, s);
  summary_limits(f, o);
  hg_out_loops_summary(o, s, f);
  hg_out_control_summary(o, s, f);
  summary_budget(f, s);
  fprintf(f, "wall_time: %.3f s\nreal_time_factor: %.4g\n", wall, wall > 0 ? (t - t0) / wall : 0);
  fprintf(f, "trajectory_rows: %ld\n", o->rows);
  if (!hg_out_close(o, &out)) return 0;
  remove(path);
  return -1;
}
