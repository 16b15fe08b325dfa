/* sim.c: the simulation runner, the one file that calls the parts of the runtime (sim_internal.h)
 * and the only one that tells the observers: creation from a scene, the run loop over output
 * times, the firing of time events, commands, roots and end stops, the invariants and the last
 * good state after each, checkpoints, failures. */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "sim_internal.h"

void hg_sim_default_options(hg_sim_options *o) {
  memset(o, 0, sizeof *o);
  o->t_end = NAN;
  o->method = -1;
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
  s->tl.dt_out = sc->output.dt > 0 ? sc->output.dt : 0.01;
  if (!(s->t_end > s->t_start) || !isfinite(s->t_end))
    return hg_error_set(err, "the end time %g must be finite and after the start time %g", s->t_end,
                   s->t_start), -1;
  if (!(s->opt.checkpoint_every >= 0) || !isfinite(s->opt.checkpoint_every))
    return hg_error_set(err, "the checkpoint interval must be finite and >= 0"), -1;
  if (!(s->opt.max_wall >= 0) || !isfinite(s->opt.max_wall))
    return hg_error_set(err, "the wall-time limit must be finite and >= 0"), -1;
  if (s->opt.max_wall == 0) s->opt.max_wall = sc->max_wall;
  if (hg_sim_check_interval(s, s->tl.dt_out, 1))
    return hg_error_set(err, "the output step %g s gives more than %g samples over the run",
                        s->tl.dt_out, HG_SIM_MAX_SAMPLES), -1;
  if (hg_sim_check_interval(s, s->opt.checkpoint_every, 0))
    return hg_error_set(err, "the checkpoint interval %g s gives more than %g checkpoints over the "
                   "run", s->opt.checkpoint_every, HG_SIM_MAX_CHECKPOINTS), -1;
  return 0;
}

/* model, state, modes, integrator and outputs */
static int sim_build(hg_sim *s, hg_error *err) {
  s->builder = hg_builder_copy(s->scene->builder, err);
  if (s->builder && (hg_sim_loops_init(s, err) || hg_sim_control_new(s, err))) return -1;
  hg_model *m = s->builder ? hg_builder_compile(s->builder, err) : NULL;
  if (!m || hg_sim_install_model(s, m, err)) return -1;
  s->state.t = s->t_start;
  if (hg_sim_initial_state(s, err) || hg_sim_loops_start(s, err) || hg_sim_control_open(s, err))
    return -1;
  hg_sim_budget_start(s);
  /* the work quadrature is held to rtol of the initial energy scale (fixed for the whole run,
   * so that restarts and resumed runs integrate alike) */
  if (!(s->integ.atol_quad > 0))
    s->integ.atol_quad = s->integ.rtol * (s->budget.b_scale > 0 ? s->budget.b_scale : 1);
  s->tl.k_ck = 1;
  if (hg_sim_new_integrator(s)) return hg_error_set(err, "%s", s->err), -1;
  return 0;
}

hg_sim *hg_sim_new(const hg_scene *sc, const hg_sim_options *opt, hg_error *err) {
  hg_sim *s = calloc(1, sizeof *s);
  if (!s) return hg_error_set(err, "out of memory"), NULL;
  s->scene = sc;
  if (sim_options(s, opt, err)) goto fail;
  if (hg_sim_timeline_new(s) || hg_sim_triggers_new(s)) {
    hg_error_set(err, "out of memory");
    goto fail;
  }
  if (sim_build(s, err)) goto fail;
  return s;
fail:
  hg_sim_free(s);
  return NULL;
}

void hg_sim_free(hg_sim *s) {
  if (!s) return;
  hg_sim_release_observers(s);
  hg_integrator_free(s->rhs.I);
  hg_sim_free_previews(s);
  hg_sim_pull_release(s);
  hg_sim_free_model(s);
  hg_sim_loops_free(s);
  hg_sim_control_close(s);
  hg_sim_control_free(s);
  hg_builder_free(s->builder);
  hg_sim_free_timeline(s);
  hg_ck_free(s);
  free(s);
}

int hg_sim_resume(hg_sim *s, const char *path, hg_error *err) {
  s->views.started = 1; /* observers saw the scene's initial model: they come before this */
  if (hg_ck_resume(s, path, err)) return HG_SIM_ERR_INPUT;
  /* the restart the uninterrupted run made at this time */
  hg_sim_resolve_triggers(s);
  s->tl.restart = 0;
  if (hg_sim_new_integrator(s) || hg_sim_restart(s))
    return hg_error_set(err, "%.200s: %.300s", path, s->err), HG_SIM_ERR_INPUT;
  return HG_SIM_OK;
}

/* ---- the run loop ---- */

/* 1 when output row k lies within the run (the last one is at t_end) */
static int row_exists(const hg_sim *s, long k) {
  return k == 0 || s->t_start + (double)(k - 1) * s->tl.dt_out < s->t_end;
}

/* 1 when checkpoint k lies inside the run */
static int ck_exists(const hg_sim *s, long k) {
  return s->opt.checkpoint_every > 0 && hg_sim_ck_time(s, k) < s->t_end;
}

/* the next time the integration must stop at: an output, a time event, a checkpoint, the end */
static double next_stop(const hg_sim *s, double tend) {
  double t = fmin(tend, hg_sim_next_time_event(s));
  if (s->ctl.any) t = fmin(t, hg_sim_control_next_time(s));
  /* a thrust element's pulse starts and ends where the integrator stops and restarts */
  t = fmin(t, hg_forces_next_switch(s->forces, s->state.t));
  if (row_exists(s, s->tl.k_out)) t = fmin(t, hg_sim_out_time(s, s->tl.k_out));
  if (ck_exists(s, s->tl.k_ck)) t = fmin(t, hg_sim_ck_time(s, s->tl.k_ck));
  return t;
}

/* ---- failures ---- */

/* 1 when every entry of q and v is finite; otherwise 0 with the first that is not (*is_v, *k) */
static int first_nonfinite(const hg_sim *s, int *is_v, int *k) {
  for (*is_v = 0, *k = 0; *k < s->m->nq; ++*k)
    if (!isfinite(s->state.q[*k])) return 0;
  for (*is_v = 1, *k = 0; *k < s->m->nv; ++*k)
    if (!isfinite(s->state.v[*k])) return 0;
  return 1;
}

static int finite_state(const hg_sim *s) {
  int is_v, k;
  return first_nonfinite(s, &is_v, &k);
}

/* "joint 'J' (TYPE, body 'B') q.NAME = X UNIT" for entry k of q (is_v 0) or v (is_v 1) */
static void describe_entry(const hg_sim *s, int is_v, int k, char *buf, size_t len) {
  const hg_model *m = s->m;
  int i = 1;
  if (is_v) i = m->dof_body[k];
  else
    while (i + 1 < m->nbody && k >= m->q_adr[i + 1]) i++;
  int e = k - (is_v ? m->v_adr[i] : m->q_adr[i]);
  const char *unit = "", *name = hg_joint_entry_name(m->jnt[i].type, is_v, e, &unit);
  snprintf(buf, len, "joint '%s' (%s, body '%s') %s.%s = %g %s", m->jnt_name[i],
           hg_joint_type_name(m->jnt[i].type), m->body_name[i], is_v ? "v" : "q",
           name ? name : "?", is_v ? s->state.v[k] : s->state.q[k], unit);
}

static int nonfinite_failure(hg_sim *s) {
  char what[300];
  int is_v, k;
  first_nonfinite(s, &is_v, &k);
  describe_entry(s, is_v, k, what, sizeof what);
  return hg_sim_fail(s, HG_SIM_ERR_NUMERIC, "the state is not finite at t = %.17g: %s is its "
                     "first entry that is not", s->state.t, what);
}

/* where a failed state went wrong: its first non-finite entry, or when the budget has diverged
 * its largest rate */
static void diagnose(hg_sim *s, char *buf, size_t len) {
  int is_v, k;
  char what[300];
  buf[0] = 0;
  if (!first_nonfinite(s, &is_v, &k)) {
    describe_entry(s, is_v, k, what, sizeof what);
    snprintf(buf, len, "; %.200s is the first entry of the state that is not finite", what);
    return;
  }
  if (hg_sim_budget_drift(s) <= HG_DIVERGED || s->m->nv == 0) return; /* (NaN: diverged) */
  int big = 0;
  for (int j = 1; j < s->m->nv; j++)
    if (fabs(s->state.v[j]) > fabs(s->state.v[big])) big = j;
  describe_entry(s, 1, big, what, sizeof what);
  double d = hg_sim_budget_drift(s);
  char off[64];
  if (isnan(d)) snprintf(off, sizeof off, "its energy is no longer finite");
  else snprintf(off, sizeof off, "energy budget off by %.3g of its scale", d);
  snprintf(buf, len, "; the state diverges (%s): its largest rate is %.200s", off, what);
}

/* An integration failure: what happened, where the state went wrong, and what to try. Hitting
 * max_steps with steps far shorter than the output interval (under 1 %) on a non-stiff method
 * means the step is held down by stability, not accuracy: the problem looks stiff. */
static int integration_failure(hg_sim *s, int ic, double t0, double stop) {
  char why[400];
  hg_sim_pull_state(s);
  diagnose(s, why, sizeof why);
  if (ic != HG_INTEG_ERR_WORK)
    return hg_sim_fail(s, HG_SIM_ERR_NUMERIC, "integration failed: %s%s",
                       hg_integrator_error_message(s->rhs.I), why);
  double h = (s->state.t - t0) / (double)s->integ.max_steps;
  int adams = s->integ.method == HG_INTEG_CVODE_ADAMS;
  const char *hint =
      adams && h < 1e-2 * s->tl.dt_out
          ? "the steps are far shorter than the output interval: the problem looks stiff (a "
            "stiff spring or damper, a fast mode); try method cvode-bdf (integrator: {method: "
            "cvode-bdf} in the scene, or --method cvode-bdf)"
      : s->integ.method == HG_INTEG_CVODE_BDF || adams
          ? "raise integrator.max_steps, or look for a motion that speeds up without bound"
          : "raise integrator.max_steps or the fixed step";
  return hg_sim_fail(s, HG_SIM_ERR_NUMERIC, "integration stopped at t = %.9g s: max_steps (%ld) "
                     "steps from t = %.9g s did not reach t = %.9g s (mean step %.3g s); %s%s",
                     s->state.t, s->integ.max_steps, t0, stop, h, hint, why);
}

/* keeps the current state as the last good one when it is finite and the budget still closes */
static void keep_good_state(hg_sim *s) {
  if (s->opt.out_dir && finite_state(s) && hg_sim_budget_drift(s) <= HG_DIVERGED)
    hg_ck_keep_good(s);
}

/* the last good state of a numerical failure, as a checkpoint (the failure's own state when no
 * good one was kept and it is finite) */
static void write_failure_state(hg_sim *s) {
  char path[4096], msg[4200];
  if (!s->opt.out_dir) return;
  hg_sim_path(s, "failure-state.txt", path, sizeof path);
  size_t n = strlen(s->err);
  if (s->ck.good) {
    if (hg_ck_write_text(s->ck.good, s->ck.good_len, path, msg, sizeof msg) == 0)
      snprintf(s->err + n, sizeof s->err - n, "; the last good state (t = %.9g s: finite, the "
               "energy budget closing) is in %s", s->ck.good_t, path);
    else
      snprintf(s->err + n, sizeof s->err - n, "; the last good state is lost: %s", msg);
  } else if (finite_state(s)) {
    if (hg_ck_write(s, path, msg, sizeof msg) == 0)
      snprintf(s->err + n, sizeof s->err - n, "; its state is in %s", path);
    else
      snprintf(s->err + n, sizeof s->err - n, "; its state is lost: %s", msg);
  }
}

/* ---- invariants ---- */

/* the drift of the energy budget and of the momentum at an output row, and the last good state */
static void track_invariants(hg_sim *s) {
  hg_sim_budget_track(s);
  keep_good_state(s);
}

/* ---- firing ---- */

/* fires an event (events.c); then the invariants, the last good state and the observers see it */
static int fire(hg_sim *s, int kind, int index) {
  int rc = hg_sim_fire(s, kind, index);
  if (rc) return rc;
  hg_sim_event ev = s->tl.log[s->tl.nlog - 1];
  hg_sim_track_momentum(s, &ev);
  keep_good_state(s);
  return hg_sim_notify_event(s, &ev);
}

/* the time events and commands due now: scene events first, then the commands in the order
 * given */
static int fire_due(hg_sim *s) {
  for (int e = 0; e < s->scene->nevent; e++) {
    const hg_event_spec *ev = &s->scene->event[e];
    if (ev->trigger != HG_TRIGGER_TIME || s->tl.fire_count[e] || ev->time > s->state.t) continue;
    int rc = fire(s, HG_FIRED_EVENT, e);
    if (rc) return rc;
  }
  for (int k = 0; k < s->tl.ncmd; k++) {
    if (s->tl.cmd_fired[k] || s->tl.cmd[k].t > s->state.t) continue;
    int rc = fire(s, HG_FIRED_COMMAND, k);
    if (rc) return rc;
  }
  return 0;
}

/* the n stops of one instant as one event (hg_sim_fire_stops), told as fire tells one */
static int fire_stop_group(hg_sim *s, int *stop, int n) {
  int rc = n ? hg_sim_fire_stops(s, stop, n) : 0;
  free(stop);
  if (rc || !n) return rc;
  hg_sim_event ev = s->tl.log[s->tl.nlog - 1];
  hg_sim_track_momentum(s, &ev);
  keep_good_state(s);
  return hg_sim_notify_event(s, &ev);
}

/* the end stops whose roots were hit (hit: nstop flags) and act now: every root the integrator
 * reported at this instant (CVODE flags each root within its time tolerance of the first) acts
 * in one event, so that simultaneous impacts are one impulse; 0 or an error status */
static int fire_stops(hg_sim *s, const int *hit) {
  int n = 0, *stop = malloc((size_t)(s->tl.nstop + 1) * sizeof *stop);
  if (!stop) return hg_sim_fail(s, HG_SIM_ERR_NUMERIC, "out of memory");
  for (int k = 0; k < s->tl.nstop; k++)
    if (hit[k] && hg_sim_stop_hit_acts(s, k)) stop[n++] = k;
  return fire_stop_group(s, stop, n);
}

/* after events: releases held joints whose stop would pull and stops free joints past a limit
 * moving outward, at the present state, all in one event; 0 or an error status */
static int settle_stops(hg_sim *s) {
  if (s->tl.nstop == 0 || hg_sim_stops_measure(s)) return 0;
  int n = 0, *stop = malloc((size_t)(s->tl.nstop + 1) * sizeof *stop);
  if (!stop) return hg_sim_fail(s, HG_SIM_ERR_NUMERIC, "out of memory");
  for (int k = 0; k < s->tl.nstop; k++)
    if (hg_sim_stop_settle_acts(s, k)) stop[n++] = k;
  return fire_stop_group(s, stop, n);
}

int hg_sim_command(hg_sim *s, const hg_command *cmd) {
  if (s->failed) return s->failed;
  /* what was due first: the state the command acts on is the one a run would have here */
  int rc = fire_due(s);
  int k = rc ? -1 : hg_sim_push_command(s, cmd, s->state.t);
  if (k < 0) return s->failed;
  rc = fire(s, HG_FIRED_COMMAND, k);
  if (!rc) rc = settle_stops(s);
  s->views.view_ok = 0;
  return rc;
}

/* ---- output rows and checkpoints ---- */

/* a checkpoint is a restart point: the integrator restarts here, then the state is written */
static int checkpoint(hg_sim *s) {
  char name[64], path[4096], msg[4200];
  if (hg_sim_restart(s)) return s->failed;
  snprintf(name, sizeof name, "checkpoint-%04ld.txt", s->tl.k_ck);
  s->tl.k_ck++;
  if (!s->opt.out_dir) return 0;
  hg_sim_path(s, name, path, sizeof path);
  if (hg_ck_write(s, path, msg, sizeof msg))
    return hg_sim_fail(s, HG_SIM_ERR_OUTPUT, "checkpoint: %s", msg);
  return 0;
}

/* 1 when an actuator pushes the system from outside now (a thruster firing) */
static int external_push(const hg_sim *s) {
  char why[8];
  return s->ctl.any && hg_sim_control_external(s, why, sizeof why);
}

/* everything due at the present time: time events, the output row, a checkpoint */
static int present(hg_sim *s) {
  int rc = fire_due(s);
  if (!rc && s->tl.restart) rc = settle_stops(s); /* what the events changed at once */
  if (!rc && s->tl.held) return 0; /* the caller's stop: the rest waits (step_to) */
  /* control in the loop: sensors sample the state the events left, controllers then command */
  int sampled = 0, ext = external_push(s);
  if (!rc && s->ctl.any) rc = hg_sim_control_due(s, &sampled);
  if (!rc && sampled) rc = hg_sim_notify_sample(s);
  int window = hg_forces_switches_at(s->forces, s->state.t);
  if (window) s->tl.restart = 1;
  /* what acts from outside changed here (a valve, a thrust window): momentum's stretches */
  if (!rc && (window || ext != external_push(s))) hg_sim_track_switch(s);
  if (!rc && s->tl.restart) rc = hg_sim_restart(s) ? s->failed : 0;
  if (!rc && row_exists(s, s->tl.k_out) && hg_sim_out_time(s, s->tl.k_out) <= s->state.t) {
    track_invariants(s);
    hg_sim_loops_row(s);
    rc = hg_sim_notify_row(s);
    s->tl.k_out++;
  }
  if (!rc && ck_exists(s, s->tl.k_ck) && hg_sim_ck_time(s, s->tl.k_ck) <= s->state.t)
    rc = checkpoint(s);
  hg_sim_notify_progress(s, 0);
  return rc;
}

/* the events whose roots the integrator stopped at */
static int fire_roots(hg_sim *s) {
  unsigned long version = s->model_version;
  memcpy(s->tl.root_hit, hg_integrator_roots(s->rhs.I),
         (size_t)(s->tl.nroot + s->tl.nstop) * sizeof(int));
  for (int k = 0; k < s->tl.nroot; k++) {
    /* (a touch of a compliant contact element only ended the step) */
    if (!s->tl.root_hit[k] || !s->tl.trig[k].active ||
        (s->tl.trig[k].kind == HG_FIRED_TOUCH && !s->scene->force[s->tl.trig[k].index].impulsive))
      continue;
    int rc = fire(s, s->tl.trig[k].kind, s->tl.trig[k].index);
    if (rc) return rc;
  }
  /* the end stops hit (unless a scene event changed the model: their roots were of the old one) */
  int rc = s->model_version == version ? fire_stops(s, s->tl.root_hit + s->tl.nroot) : 0;
  if (!rc && s->tl.restart) rc = settle_stops(s);
  if (rc) return rc;
  return s->tl.restart && hg_sim_restart(s) ? s->failed : 0;
}

/* ---- stopping by the wall-time limit or a signal ---- */

int hg_sim_stop_cause(const hg_sim *s) {
  return s->failed == HG_SIM_STOPPED ? s->halt.cause : 0;
}

/* The one way a run stops before its end (sim.h): the state becomes the integrator's last
 * accepted step when the stop came inside a stretch (pull: the integrator's callbacks refused to
 * evaluate past it), or stays the present one between stretches, and is written as a checkpoint to
 * OUT/stop-state.txt, and the run ends with HG_SIM_STOPPED. Nothing due at the stop is fired: a
 * resumed run restarts there and does it. */
static int halt(hg_sim *s, int pull) {
  char why[128], path[4096], msg[4200];
  if (pull) hg_sim_pull_state(s);
  if (!finite_state(s)) return nonfinite_failure(s);
  if (s->halt.cause == HG_SIM_STOP_WALL)
    snprintf(why, sizeof why, "the wall-time limit (%g s)", s->opt.max_wall);
  else
    snprintf(why, sizeof why, "signal %d (%s)", s->halt.cause, s->halt.cause == SIGINT ? "SIGINT"
                                                           : s->halt.cause == SIGTERM ? "SIGTERM"
                                                                                      : "a signal");
  if (!s->opt.out_dir)
    return hg_sim_fail(s, HG_SIM_STOPPED, "stopped at t = %.9g s by %s", s->state.t, why);
  hg_sim_path(s, "stop-state.txt", path, sizeof path);
  if (hg_ck_write(s, path, msg, sizeof msg))
    return hg_sim_fail(s, HG_SIM_STOPPED, "stopped at t = %.9g s by %s; %s", s->state.t, why,
                       msg);
  return hg_sim_fail(s, HG_SIM_STOPPED, "stopped at t = %.9g s by %s; the state is in %s (a "
                     "checkpoint: hinge run --resume %s continues from it)", s->state.t, why, path,
                     path);
}

/* One stretch of integration to the next stop, and what happens there. At the caller's own
 * stop (tend before the end of the run) the events due fire, but the restart, the output row and
 * the checkpoint of that instant wait for the next hg_sim_run (s->tl.held): a command given there
 * acts before them, exactly as a command scheduled for that time does. */
static int step_to(hg_sim *s, double tend) {
  double t0 = s->state.t, stop = next_stop(s, tend);
  s->halt.armed = 1;
  int ic = hg_sim_advance(s, stop);
  s->halt.armed = 0;
  /* (a stretch that ended anyway finishes its instant: the run loop stops after it) */
  if (s->halt.cause && ic < 0) return halt(s, 1);
  if (ic < 0) return integration_failure(s, ic, t0, stop);
  hg_sim_pull_state(s);
  if (!finite_state(s)) return nonfinite_failure(s);
  int rc = ic == HG_INTEG_ROOT ? fire_roots(s) : 0;
  if (!rc && ic == HG_INTEG_ROOT) hg_sim_track_switch(s); /* a touch may begin a contact */
  s->tl.held = s->state.t >= tend && tend < s->t_end;
  return rc ? rc : present(s);
}

int hg_sim_run(hg_sim *s, double until) {
  if (s->failed) return s->failed;
  double tend = fmin(until, s->t_end), w0 = hg_sim_clock();
  /* the wall-time limit counts the time spent in hg_sim_run, over every call */
  s->halt.deadline = s->opt.max_wall > 0 ? w0 + (s->opt.max_wall - s->views.wall) : INFINITY;
  s->halt.last = w0, s->halt.count = 0, s->halt.every = 1;
  /* a run to where it is (the start, say) is a caller's stop too: the row of this instant waits,
   * so that a command given now acts before it, as one scheduled for this time does */
  s->tl.held = s->state.t >= tend && tend < s->t_end;
  s->views.started = 1;
  int rc = present(s);
  while (!rc && s->state.t < tend) rc = hg_sim_halt_due(s, 1) ? halt(s, 0) : step_to(s, tend);
  /* at the end, the commands that would come after it: each said, not dropped silently */
  for (int k = 0; !rc && s->state.t >= s->t_end && k < s->tl.ncmd; k++) {
    if (s->tl.cmd_fired[k] || !(s->tl.cmd[k].t > s->t_end)) continue;
    rc = hg_sim_drop_command(s, k);
    if (!rc) {
      hg_sim_event ev = s->tl.log[s->tl.nlog - 1];
      rc = hg_sim_notify_event(s, &ev);
    }
  }
  s->views.wall += hg_sim_clock() - w0;
  s->views.view_ok = 0;
  if (rc == HG_SIM_ERR_NUMERIC) write_failure_state(s);
  hg_sim_notify_progress(s, 1);
  return rc;
}

int hg_sim_finish(hg_sim *s) {
  s->tl.held = 0;
  s->views.started = 1;
  if (!s->failed && s->state.t < s->t_end) present(s); /* what is due where the run was left */
  return hg_sim_notify_finish(s);
}

int hg_sim_write_checkpoint(const hg_sim *s, const char *path) {
  return hg_ck_write(s, path, NULL, 0) ? HG_SIM_ERR_OUTPUT : HG_SIM_OK;
}
