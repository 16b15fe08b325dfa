/* sim.c: the simulation runner: creation from a scene, the run loop over output times, time
 * events, roots and checkpoints. */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim_internal.h"

void hg_sim_default_options(hg_sim_options *o) {
  memset(o, 0, sizeof *o);
  o->t_end = NAN;
  o->method = -1;
  o->plots = 1;
}

int hg_sim_fail(hg_sim *s, int status, const char *fmt, ...) {
  if (s->failed) return s->failed; /* the first failure is the one to report */
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(s->err, sizeof s->err, fmt, ap);
  va_end(ap);
  s->failed = status;
  return status;
}

double hg_sim_out_time(const hg_sim *s, long k) {
  double t = s->t_start + (double)k * s->dt_out;
  return t < s->t_end ? t : s->t_end;
}

double hg_sim_ck_time(const hg_sim *s, long k) {
  return s->t_start + (double)k * s->opt.checkpoint_every;
}

static double wall_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int hg_sim_grow(void **arr, int n, int *cap, size_t size) {
  if (n < *cap) return 0;
  int nc = *cap ? 2 * *cap : 8;
  void *p = realloc(*arr, (size_t)nc * size);
  if (!p) return -1;
  *arr = p;
  *cap = nc;
  return 0;
}

/* ---- creation ---- */

/* run options: the scene's, overridden by the caller's */
static int sim_options(hg_sim *s, const hg_sim_options *opt, hg_error *err) {
  const hg_scene *sc = s->scene;
  if (opt) s->opt = *opt;
  else hg_sim_default_options(&s->opt);
  s->integ = sc->integ;
  if (s->opt.rtol > 0) s->integ.rtol = s->opt.rtol;
  if (s->opt.method >= 0) s->integ.method = (hg_integ_method)s->opt.method;
  s->integ.t_stop = INFINITY; /* the runner stops where it must */
  s->t_start = sc->t_start;
  s->t_end = isnan(s->opt.t_end) ? sc->t_end : s->opt.t_end;
  s->dt_out = sc->output.dt > 0 ? sc->output.dt : 0.01;
  if (!(s->t_end > s->t_start) || !isfinite(s->t_end))
    return hg_error_set(err, "the end time %g must be finite and after the start time %g", s->t_end,
                   s->t_start), -1;
  if (!(s->opt.checkpoint_every >= 0) || !isfinite(s->opt.checkpoint_every))
    return hg_error_set(err, "the checkpoint interval must be finite and >= 0"), -1;
  return 0;
}

/* one root per condition event and per capture */
static int sim_roots(hg_sim *s) {
  const hg_scene *sc = s->scene;
  int n = sc->ncapture;
  for (int e = 0; e < sc->nevent; e++) n += sc->event[e].trigger != HG_TRIGGER_TIME;
  s->nroot = n;
  s->trig = calloc((size_t)n + 1, sizeof *s->trig);
  s->root_dir = calloc((size_t)n + 1, sizeof(int));
  s->root_hit = calloc((size_t)n + 1, sizeof(int));
  s->fire_count = calloc((size_t)sc->nevent + 1, sizeof(int));
  s->captured = calloc((size_t)sc->ncapture + 1, sizeof(int));
  if (!s->trig || !s->root_dir || !s->root_hit || !s->fire_count || !s->captured) return -1;
  n = 0;
  for (int e = 0; e < sc->nevent; e++) {
    if (sc->event[e].trigger == HG_TRIGGER_TIME) continue;
    s->trig[n].kind = HG_FIRED_EVENT;
    s->trig[n].index = e;
    s->root_dir[n++] = sc->event[e].direction;
  }
  for (int c = 0; c < sc->ncapture; c++) {
    s->trig[n].kind = HG_FIRED_CAPTURE;
    s->trig[n].index = c;
    s->root_dir[n++] = -1; /* the capture measure falls through zero */
  }
  return 0;
}

/* the atmosphere that defines altitude: the scene's, else the first drag element's */
static void sim_atmosphere(hg_sim *s) {
  if (s->scene->has_atmosphere) s->atm = &s->scene->atmosphere;
  for (int k = 0; k < s->scene->nforce && !s->atm; k++) {
    const hg_force_spec *f = &s->scene->force[k];
    if (f->type == HG_FORCE_DRAG || f->type == HG_FORCE_PARACHUTE) s->atm = &f->atm;
  }
}

/* model, state, modes, integrator and outputs */
static int sim_build(hg_sim *s, hg_error *err) {
  s->builder = hg_builder_copy(s->scene->builder, err);
  hg_model *m = s->builder ? hg_builder_compile(s->builder, err) : NULL;
  if (!m || hg_sim_install_model(s, m, err)) return -1;
  s->t = s->t_start;
  if (hg_sim_initial_state(s, err)) return -1;
  s->b0 = hg_sim_budget_value(s);
  hg_sim_momentum(s, s->h_ref);
  /* the work quadrature is held to rtol of the initial energy scale (fixed for the whole run,
   * so that restarts and resumed runs integrate alike) */
  if (!(s->integ.atol_quad > 0))
    s->integ.atol_quad = s->integ.rtol * (s->b_scale > 0 ? s->b_scale : 1);
  s->k_ck = 1;
  if (hg_sim_new_integrator(s)) return hg_error_set(err, "%s", s->err), -1;
  if (hg_out_open(s)) return hg_error_set(err, "%s", s->err), -1;
  return 0;
}

hg_sim *hg_sim_new(const hg_scene *sc, const hg_sim_options *opt, hg_error *err) {
  hg_sim *s = calloc(1, sizeof *s);
  if (!s) return hg_error_set(err, "out of memory"), NULL;
  s->scene = sc;
  if (sim_options(s, opt, err)) goto fail;
  if (sim_roots(s)) {
    hg_error_set(err, "out of memory");
    goto fail;
  }
  sim_atmosphere(s);
  if (sim_build(s, err)) goto fail;
  return s;
fail:
  hg_sim_free(s);
  return NULL;
}

void hg_sim_free(hg_sim *s) {
  if (!s) return;
  hg_out_close(s);
  hg_integrator_free(s->I);
  for (int i = 0; s->m && i < s->m->nbody; i++) hg_profile_free(s->prof[i]);
  hg_forces_free(s->forces);
  hg_data_free(s->d);
  hg_model_free(s->m);
  hg_builder_free(s->builder);
  double *arrays[] = {s->q, s->v, s->qs, s->vs, s->qdd, s->tau, s->tau_el, s->fext, s->vdot,
                      s->dv, s->imp, s->cache_q, s->cache_v};
  for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; k++) free(arrays[k]);
  for (int k = 0; k < s->ntopo; k++) hg_sim_free_topo(&s->topo[k]);
  free(s->topo);
  free(s->prof);
  free(s->recipe);
  free(s->trig);
  free(s->root_dir);
  free(s->root_hit);
  free(s->fire_count);
  free(s->captured);
  free(s->fired);
  free(s->log);
  for (int k = 0; k < s->ncmd; k++) hg_command_free(&s->cmd[k]);
  free(s->cmd);
  free(s->cmd_fired);
  free(s);
}

int hg_sim_resume(hg_sim *s, const char *path, hg_error *err) {
  return hg_ck_resume(s, path, err) ? HG_SIM_ERR_INPUT : HG_SIM_OK;
}

/* ---- the run loop ---- */

/* 1 when output row k lies within the run (the last one is at t_end) */
static int row_exists(const hg_sim *s, long k) {
  return k == 0 || s->t_start + (double)(k - 1) * s->dt_out < s->t_end;
}

/* 1 when checkpoint k lies inside the run */
static int ck_exists(const hg_sim *s, long k) {
  return s->opt.checkpoint_every > 0 && hg_sim_ck_time(s, k) < s->t_end;
}

/* the next time the integration must stop at: an output, a time event, a checkpoint, the end */
static double next_stop(const hg_sim *s, double tend) {
  double t = fmin(tend, hg_sim_next_time_event(s));
  if (row_exists(s, s->k_out)) t = fmin(t, hg_sim_out_time(s, s->k_out));
  if (ck_exists(s, s->k_ck)) t = fmin(t, hg_sim_ck_time(s, s->k_ck));
  return t;
}

/* the drift of the energy budget and of the momentum at the current state */
static void track_invariants(hg_sim *s) {
  double b = hg_sim_budget_value(s), h[6], sc[2], dL[3], dp[3];
  double drift = fabs(b - s->b0) / (s->b_scale > 0 ? s->b_scale : 1);
  if (!(drift <= s->max_drift)) s->max_drift = drift;
  hg_sim_momentum_scale(s, s->q, s->v, h, sc);
  for (int k = 0; k < 3; k++) dL[k] = h[k] - s->h_ref[k], dp[k] = h[3 + k] - s->h_ref[3 + k];
  double hd = fmax(sc[0] > 0 ? hg_v3_norm(dL) / sc[0] : 0, sc[1] > 0 ? hg_v3_norm(dp) / sc[1] : 0);
  if (!(hd <= s->max_hdrift)) s->max_hdrift = hd;
}

/* a checkpoint is a restart point: the integrator restarts here, then the state is written */
static int checkpoint(hg_sim *s) {
  char name[64], path[4096];
  if (hg_sim_restart(s)) return s->failed;
  snprintf(name, sizeof name, "checkpoint-%04ld.txt", s->k_ck);
  s->k_ck++;
  if (!s->opt.out_dir) return 0;
  hg_out_path(s, name, path, sizeof path);
  if (hg_ck_write(s, path))
    return hg_sim_fail(s, HG_SIM_ERR_OUTPUT, "cannot write the checkpoint %s", path);
  return 0;
}

/* everything due at the present time: time events, the output row, a checkpoint */
static int present(hg_sim *s) {
  int rc = hg_sim_fire_due(s);
  if (!rc && s->held) return 0; /* the caller's stop: the rest waits (step_to) */
  if (!rc && s->restart) rc = hg_sim_restart(s) ? s->failed : 0;
  if (!rc && row_exists(s, s->k_out) && hg_sim_out_time(s, s->k_out) <= s->t) {
    track_invariants(s);
    rc = hg_out_row(s);
    s->k_out++;
  }
  if (!rc && ck_exists(s, s->k_ck) && hg_sim_ck_time(s, s->k_ck) <= s->t) rc = checkpoint(s);
  hg_progress(s, 0);
  return rc;
}

/* the events whose roots the integrator stopped at */
static int fire_roots(hg_sim *s) {
  memcpy(s->root_hit, hg_integrator_roots(s->I), (size_t)s->nroot * sizeof(int));
  for (int k = 0; k < s->nroot; k++) {
    if (!s->root_hit[k] || !s->trig[k].active) continue;
    int rc = hg_sim_fire(s, s->trig[k].kind, s->trig[k].index);
    if (rc) return rc;
  }
  return s->restart && hg_sim_restart(s) ? s->failed : 0;
}

static int finite_state(const hg_sim *s) {
  for (int k = 0; k < s->m->nq; k++)
    if (!isfinite(s->q[k])) return 0;
  for (int k = 0; k < s->m->nv; k++)
    if (!isfinite(s->v[k])) return 0;
  return 1;
}

/* an integration failure: the last good state and the integrator's message */
static int integration_failure(hg_sim *s) {
  hg_sim_pull_state(s);
  return hg_sim_fail(s, HG_SIM_ERR_NUMERIC, "integration failed: %s",
                     hg_integrator_error_message(s->I));
}

/* the last good state of a numerical failure, as a checkpoint */
static void write_failure_state(hg_sim *s) {
  char path[4096];
  if (!s->opt.out_dir || !finite_state(s)) return;
  hg_out_path(s, "failure-state.txt", path, sizeof path);
  hg_ck_write(s, path);
}

/* One stretch of integration to the next stop, and what happens there. At the caller's own
 * stop (tend before the end of the run) the events due fire, but the restart, the output row and
 * the checkpoint of that instant wait for the next hg_sim_run (s->held): a command given there
 * acts before them, exactly as a command scheduled for that time does. */
static int step_to(hg_sim *s, double tend) {
  int ic = hg_integrator_advance(s->I, next_stop(s, tend));
  if (ic < 0) return integration_failure(s);
  hg_sim_pull_state(s);
  if (!finite_state(s))
    return hg_sim_fail(s, HG_SIM_ERR_NUMERIC, "the state is not finite at t = %.17g", s->t);
  int rc = ic == HG_INTEG_ROOT ? fire_roots(s) : 0;
  s->held = s->t >= tend && tend < s->t_end;
  return rc ? rc : present(s);
}

int hg_sim_run(hg_sim *s, double until) {
  if (s->failed) return s->failed;
  double tend = fmin(until, s->t_end), w0 = wall_now();
  s->held = 0;
  int rc = present(s);
  while (!rc && s->t < tend) rc = step_to(s, tend);
  s->wall += wall_now() - w0;
  s->view_ok = 0;
  if (rc == HG_SIM_ERR_NUMERIC) write_failure_state(s);
  hg_progress(s, 1);
  return rc;
}

int hg_sim_finish(hg_sim *s) {
  char path[4096];
  int rc = HG_SIM_OK;
  s->held = 0;
  if (!s->failed && s->t < s->t_end) present(s); /* what is due where the run was left */
  if (!s->opt.out_dir) return rc;
  if (s->opt.plots && s->scene->output.plots && hg_plot_all(s) < 0) rc = HG_SIM_ERR_OUTPUT;
  hg_out_path(s, "summary.txt", path, sizeof path);
  if (hg_out_summary(s, path)) rc = HG_SIM_ERR_OUTPUT;
  hg_out_close(s);
  return rc;
}

int hg_sim_write_checkpoint(const hg_sim *s, const char *path) {
  return hg_ck_write(s, path) ? HG_SIM_ERR_OUTPUT : HG_SIM_OK;
}
