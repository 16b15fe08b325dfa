/* integration.c: the integrator of the system (rhs.c): its creation, restarts at events and
 * checkpoints, the advance to the next stop (each step bounded when contact elements act), the
 * state pulled from it, and its statistics. */
#include <math.h>
#include <string.h>

#include "sim_internal.h"

void hg_sim_add_stats(hg_integ_stats *a, const hg_integ_stats *b) {
  a->steps += b->steps;
  a->rhs_evals += b->rhs_evals;
  a->jac_evals += b->jac_evals;
  a->err_test_fails += b->err_test_fails;
  a->conv_fails += b->conv_fails;
  a->root_evals += b->root_evals;
  a->recentres += b->recentres;
  a->events += b->events;
  a->resets += b->resets;
  a->rhs_retries += b->rhs_retries;
  a->projections += b->projections;
}

/* frees the integrator, keeping its statistics */
static void sim_drop_integrator(hg_sim *s) {
  if (!s->rhs.I) return;
  hg_integ_stats st;
  hg_integrator_stats(s->rhs.I, &st);
  hg_sim_add_stats(&s->rhs.stats_done, &st);
  hg_integrator_free(s->rhs.I);
  s->rhs.I = NULL;
}

int hg_sim_new_integrator(hg_sim *s) {
  hg_error err;
  sim_drop_integrator(s);
  memset(&s->rhs.sys, 0, sizeof s->rhs.sys);
  s->rhs.sys.m = s->m;
  s->rhs.sys.accel = hg_sim_accel;
  s->rhs.sys.nroot = s->tl.nroot + s->tl.nstop;
  s->rhs.sys.roots = s->rhs.sys.nroot ? hg_sim_roots : NULL;
  s->rhs.sys.root_dir = s->tl.root_dir;
  s->rhs.sys.user = s;
  s->rhs.sys.nquad = 1 + s->ctl.nquad; /* W, then the actuators' (sim_control.h) */
  s->rhs.sys.quad = hg_sim_quad;
  /* a run with loops keeps its state on their manifold (a run without has no projection, and
   * integrates as it always did) */
  s->rhs.sys.project = s->loops.n ? hg_sim_loops_project : NULL;
  s->rhs.cache_ok = 0;
  s->rhs.contact_t = NAN;
  s->rhs.I = hg_integrator_new(&s->rhs.sys, &s->integ, s->state.t, s->state.q, s->state.v, &err);
  if (!s->rhs.I)
    return hg_sim_fail(s, HG_SIM_ERR_NUMERIC, "t = %.17g: %s", s->state.t, err.msg), -1;
  s->ctl.quad[0] = s->state.quad; /* (ctl.quad: W, then the actuators') */
  hg_integrator_set_quad(s->rhs.I, s->ctl.quad);
  return 0;
}

int hg_sim_restart(hg_sim *s) {
  /* the first loop closed while running (an attach within one tree, a dock of two markers of
   * one tree) needs the projection the integrator was made without: a new integrator has it */
  if (!s->rhs.sys.project != !s->loops.n) return hg_sim_new_integrator(s);
  s->rhs.cache_ok = 0;
  s->rhs.contact_t = NAN; /* the contact step bound starts afresh, as a resumed run's does */
  if (hg_integrator_reset(s->rhs.I, s->state.t, s->state.q, s->state.v))
    return hg_sim_fail(s, HG_SIM_ERR_NUMERIC, "restart at t = %.17g: %s", s->state.t,
                       hg_integrator_error_message(s->rhs.I)), -1;
  /* the integrator keeps its quadrature, which is s->state.quad */
  s->tl.restart = 0;
  return 0;
}

/* The integration to stop when contact elements act: one step at a time, each bounded so that
 * no body crosses the thinnest collision shape it could touch (hg_forces_contact_step, at the
 * state the last step ended in, with the accelerations seen over that step). */
static int advance_with_contact(hg_sim *s, double stop) {
  hg_integrator *I = s->rhs.I;
  int ic = HG_INTEG_OK;
  while (ic == HG_INTEG_OK && hg_integrator_t(I) < stop) {
    double t = hg_integrator_t(I), dt = t - s->rhs.contact_t;
    hg_kinematics(s->m, s->d, hg_integrator_q(I), hg_integrator_v(I));
    double h = hg_forces_contact_step(s->forces, s->m, s->d, s->rhs.contact_tw,
                                      s->rhs.contact_t < t ? dt : 0);
    s->rhs.contact_t = t;
    hg_integrator_limit_step(I, h);
    ic = hg_integrator_step(I, stop);
  }
  s->views.view_ok = 0; /* (d was used) */
  return ic;
}

int hg_sim_advance(hg_sim *s, double stop) {
  return s->tl.ncontact ? advance_with_contact(s, stop) : hg_integrator_advance(s->rhs.I, stop);
}

void hg_sim_pull_state(hg_sim *s) {
  s->views.view_ok = 0; /* a new state: the views evaluate it afresh */
  s->state.t = hg_integrator_t(s->rhs.I);
  memcpy(s->state.q, hg_integrator_q(s->rhs.I), (size_t)s->m->nq * sizeof(double));
  memcpy(s->state.v, hg_integrator_v(s->rhs.I), (size_t)s->m->nv * sizeof(double));
  memcpy(s->ctl.quad, hg_integrator_quad(s->rhs.I), (size_t)(1 + s->ctl.nquad) * sizeof(double));
  s->state.quad = s->ctl.quad[0];
  /* the tanks' inertias of this time (the integrator's last evaluation may lie ahead of it) */
  if (s->ctl.ntank) hg_sim_control_tanks(s, s->state.t);
  hg_profiles_apply(s->m, s->d, s->state.prof, s->state.t, s->state.q, s->state.v, NULL);
  if (s->m->nmimic) hg_mimic_follow(s->m, s->d, s->state.q, s->state.v, NULL);
}
