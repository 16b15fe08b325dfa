/* scene_run.c: how a scene runs: integrator settings, the time span and the outputs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scene_internal.h"

/* ---- integrator ---- */

/* the keys of the integrator settings and of a per-kind atol */
static const char *const integ_keys[] = {"method", "rtol",     "atol",      "max_step",
                                         "step",   "recentre", "max_steps", NULL};
static const char *const atol_keys[] = {"angle", "length", "angular_velocity", "linear_velocity",
                                        NULL};

/* atol: one number for every kind, or a mapping by kind */
static int abs_tol(hg_sctx *c, const hg_ynode *n, hg_integ_options *o) {
  double a = 0;
  if (hg_ydoc_is_scalar(n)) {
    if (hg_ydoc_number(&c->doc, n, "'atol'", 0, &a)) return -1;
    if (!(a > 0)) return hg_ydoc_fail(&c->doc, n, "'atol' must be positive, got %g", a);
    o->atol_angle = o->atol_length = o->atol_angvel = o->atol_linvel = a;
    return 0;
  }
  /* each kind given is checked where it is written; the others keep their default (0: rtol
   * times one unit of the kind) */
  double *kind[] = {&o->atol_angle, &o->atol_length, &o->atol_angvel, &o->atol_linvel};
  if (hg_ydoc_check_keys(&c->doc, n, "'atol'", atol_keys)) return -1;
  for (int k = 0; atol_keys[k]; k++)
    if (hg_ydoc_get(&c->doc, n, atol_keys[k]) && hg_sc_positive(c, n, atol_keys[k], kind[k]))
      return -1;
  return 0;
}

/* the method first (it sets the defaults), then each setting */
static int integrator(hg_sctx *c, const hg_ynode *n, hg_integ_options *o) {
  const char *methods[HG_INTEG_LIE_EULER + 1];
  const hg_ynode *mn, *an, *rn, *sn;
  int method = HG_INTEG_CVODE_ADAMS, steps;
  for (int k = 0; k <= HG_INTEG_LIE_EULER; k++)
    methods[k] = hg_integ_method_name((hg_integ_method)k);
  if (hg_ydoc_check_keys(&c->doc, n, "'integrator'", integ_keys)) return -1;
  mn = hg_ydoc_get(&c->doc, n, "method");
  if (mn &&
      hg_ydoc_choice(&c->doc, mn, "integration method", methods, HG_INTEG_LIE_EULER + 1, &method))
    return -1;
  hg_integ_default_options(o, (hg_integ_method)method);
  an = hg_ydoc_get(&c->doc, n, "atol");
  rn = hg_ydoc_get(&c->doc, n, "recentre");
  if (hg_sc_positive(c, n, "rtol", &o->rtol) || (an && abs_tol(c, an, o)) ||
      hg_sc_nonneg(c, n, "max_step", &o->max_step) || hg_sc_positive(c, n, "step", &o->h) ||
      hg_sc_positive(c, n, "recentre", &o->recentre))
    return -1;
  if (o->recentre > 2.5)
    return hg_ydoc_fail(&c->doc, rn, "'recentre' must be in (0, 2.5] rad, got %g", o->recentre);
  if (!(sn = hg_ydoc_get(&c->doc, n, "max_steps"))) return 0;
  if (hg_ydoc_integer(&c->doc, sn, "'max_steps'", &steps)) return -1;
  if (steps < 1) return hg_ydoc_fail(&c->doc, sn, "'max_steps' must be at least 1, got %d", steps);
  o->max_steps = steps;
  return 0;
}

/* ---- time ---- */

/* the keys of the time span */
static const char *const time_keys[] = {"start", "end", "max_wall", NULL};

/* start and end, end after start; the wall-time limit */
static int time_span(hg_sctx *c, const hg_ynode *n, hg_scene *s) {
  if (hg_ydoc_check_keys(&c->doc, n, "'time'", time_keys) ||
      hg_yget_number(&c->doc, n, "start", &s->t_start) ||
      hg_yget_number(&c->doc, n, "end", &s->t_end) ||
      hg_sc_bounded(c, hg_ydoc_get(&c->doc, n, "start"), "start time", &s->t_start, 1,
                    HG_SC_MAX_TIME, "s") ||
      hg_sc_bounded(c, hg_ydoc_get(&c->doc, n, "end"), "end time", &s->t_end, 1, HG_SC_MAX_TIME,
                    "s") ||
      hg_sc_nonneg(c, n, "max_wall", &s->max_wall) ||
      hg_sc_bounded(c, hg_ydoc_get(&c->doc, n, "max_wall"), "wall-time limit", &s->max_wall, 1,
                    HG_SC_MAX_TIME, "s"))
    return -1;
  if (s->t_end > s->t_start) return 0;
  return hg_ydoc_fail(&c->doc, hg_ydoc_get(&c->doc, n, "end") ? hg_ydoc_get(&c->doc, n, "end") : n,
                      "'end' (%g) must come after 'start' (%g)", s->t_end, s->t_start);
}

/* ---- outputs ---- */

/* the keys of the outputs */
static const char *const output_keys[] = {"dt", "pairs", "plots", NULL};

/* one pair: two different bodies */
static int pair(hg_sctx *c, const hg_ynode *n, hg_pair_spec *p) {
  const char *a, *b;
  if (hg_ydoc_is_seq(n) && hg_ydoc_len(n) != 2)
    return hg_ydoc_fail(&c->doc, n, "expected two bodies for a pair, got %d", hg_ydoc_len(n));
  if (hg_ydoc_expect_seq(&c->doc, n, "a pair (two bodies)") ||
      hg_sc_body_ref(c, hg_ydoc_item(&c->doc, n, 0), "a body", &a, NULL) ||
      hg_sc_body_ref(c, hg_ydoc_item(&c->doc, n, 1), "a body", &b, NULL))
    return -1;
  if (strcmp(a, b) == 0)
    return hg_ydoc_fail(&c->doc, n, "a pair needs two different bodies, got '%s' twice", a);
  if (hg_sc_strdup(c, n, a, &p->body_a) || hg_sc_strdup(c, n, b, &p->body_b)) return -1;
  return 0;
}

/* sampling interval, plots and the plotted pairs */
static int output(hg_sctx *c, const hg_ynode *n, hg_output_spec *o) {
  const hg_ynode *pn;
  if (hg_ydoc_check_keys(&c->doc, n, "'output'", output_keys) ||
      hg_sc_positive(c, n, "dt", &o->dt) || hg_yget_bool(&c->doc, n, "plots", &o->plots))
    return -1;
  pn = hg_ydoc_get(&c->doc, n, "pairs");
  if (!pn) return 0;
  if (hg_ydoc_expect_seq(&c->doc, pn, "'pairs'") ||
      hg_sc_alloc(c, pn, hg_ydoc_len(pn), sizeof *o->pair, (void **)&o->pair))
    return -1;
  for (int k = 0; k < hg_ydoc_len(pn); k++) {
    o->npair = k + 1;
    if (pair(c, hg_ydoc_item(&c->doc, pn, k), &o->pair[k])) return -1;
  }
  return 0;
}

int hg_sc_run(hg_sctx *c, const hg_ynode *root) {
  const hg_ynode *in = hg_ydoc_get(&c->doc, root, "integrator"),
                 *tn = hg_ydoc_get(&c->doc, root, "time");
  const hg_ynode *on = hg_ydoc_get(&c->doc, root, "output");
  if ((in && integrator(c, in, &c->s->integ)) || (tn && time_span(c, tn, c->s)) ||
      (on && output(c, on, &c->s->output)))
    return -1;
  /* a finite number of output rows (the runtime holds runs to the same bound) */
  double dt = c->s->output.dt > 0 ? c->s->output.dt : 0.01, rows = (c->s->t_end - c->s->t_start) / dt;
  if (rows <= HG_SC_MAX_SAMPLES) return 0;
  const hg_ynode *at = on && hg_ydoc_get(&c->doc, on, "dt") ? hg_ydoc_get(&c->doc, on, "dt")
                       : tn && hg_ydoc_get(&c->doc, tn, "end") ? hg_ydoc_get(&c->doc, tn, "end")
                                                                : root;
  return hg_ydoc_fail(&c->doc, at, "an output step of %g s over %g s of simulation gives %.3g rows, "
                      "more than %g: raise output.dt or shorten the run", dt,
                      c->s->t_end - c->s->t_start, rows, HG_SC_MAX_SAMPLES);
}
