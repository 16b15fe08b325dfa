/* timeline.c: the records of the timeline (timeline.h): the events, captures and commands
 * fired, the event log, the topology changes a resumed run replays, the commands given; and the
 * times of its schedule (output rows, checkpoints, time events). */
#include <math.h>
#include <stdlib.h>

#include "grow.h"
#include "sim_internal.h"

/* ---- the records ---- */

/* frees the names of a topology change */
static void free_topo(hg_topo_op *op) {
  free(op->body);
  free(op->parent);
  free(op->joint);
  op->body = op->parent = op->joint = NULL;
}

int hg_sim_timeline_new(hg_sim *s) {
  const hg_scene *sc = s->scene;
  s->tl.fire_count = calloc((size_t)sc->nevent + 1, sizeof(int));
  s->tl.captured = calloc((size_t)sc->ncapture + 1, sizeof(int));
  return s->tl.fire_count && s->tl.captured ? 0 : -1;
}

void hg_sim_free_timeline(hg_sim *s) {
  for (int k = 0; k < s->tl.ntopo; k++) free_topo(&s->tl.topo[k]);
  free(s->tl.topo);
  for (int k = 0; s->tl.trig && k < s->tl.nroot; k++)
    free(s->tl.trig[k].set[0]), free(s->tl.trig[k].set[1]);
  free(s->tl.trig);
  free(s->tl.root_dir);
  free(s->tl.stop);
  free(s->tl.stop_g);
  free(s->tl.root_hit);
  free(s->tl.fire_count);
  free(s->tl.captured);
  free(s->tl.fired);
  free(s->tl.log);
  for (int k = 0; k < s->tl.ncmd; k++) hg_command_free(&s->tl.cmd[k]);
  free(s->tl.cmd);
  free(s->tl.cmd_fired);
}

/* makes room for one more of n items of size in *arr (capacity *cap); 0 or -1 */
static int grow(void **arr, int n, int *cap, size_t size) { return hg_grow(arr, n, cap, 8, size); }

int hg_sim_push_fired(hg_sim *s, int kind, int index, double t) {
  if (grow((void **)&s->tl.fired, s->tl.nfired, &s->tl.capfired, sizeof *s->tl.fired)) return -1;
  s->tl.fired[s->tl.nfired++] = (hg_fired){kind, index, t};
  if (kind == HG_FIRED_EVENT) s->tl.fire_count[index]++;
  else if (kind == HG_FIRED_CAPTURE) s->tl.captured[index] = 1;
  else s->tl.cmd_fired[index] = 1;
  return 0;
}

int hg_sim_push_log(hg_sim *s, const hg_sim_event *ev) {
  if (grow((void **)&s->tl.log, s->tl.nlog, &s->tl.caplog, sizeof *s->tl.log)) return -1;
  s->tl.log[s->tl.nlog++] = *ev;
  return 0;
}

int hg_sim_push_topo(hg_sim *s, const hg_topo_op *op) {
  if (grow((void **)&s->tl.topo, s->tl.ntopo, &s->tl.captopo, sizeof *s->tl.topo)) return -1;
  hg_topo_op *c = &s->tl.topo[s->tl.ntopo];
  *c = *op;
  c->body = hg_strdup(op->body);
  c->parent = hg_strdup(op->parent);
  c->joint = hg_strdup(op->joint);
  if (!c->body || (op->parent && !c->parent) || (op->joint && !c->joint)) {
    free_topo(c);
    return -1;
  }
  s->tl.ntopo++;
  return 0;
}

int hg_sim_push_command(hg_sim *s, const hg_command *cmd, double t) {
  if (s->tl.ncmd == s->tl.capcmd) {
    int cap = s->tl.capcmd ? 2 * s->tl.capcmd : 16;
    hg_command *c = realloc(s->tl.cmd, (size_t)cap * sizeof *c);
    if (c) s->tl.cmd = c;
    unsigned char *f = c ? realloc(s->tl.cmd_fired, (size_t)cap) : NULL;
    if (f) s->tl.cmd_fired = f;
    if (!c || !f) return hg_sim_fail(s, HG_SIM_ERR_NUMERIC, "out of memory"), -1;
    s->tl.capcmd = cap;
  }
  if (hg_command_copy(&s->tl.cmd[s->tl.ncmd], cmd))
    return hg_sim_fail(s, HG_SIM_ERR_NUMERIC, "out of memory"), -1;
  s->tl.cmd[s->tl.ncmd].t = t;
  s->tl.cmd_fired[s->tl.ncmd] = 0;
  return s->tl.ncmd++;
}

int hg_sim_schedule(hg_sim *s, const hg_command *cmd) {
  if (s->failed) return s->failed;
  if (!(cmd->t >= s->state.t))
    return hg_sim_fail(s, HG_SIM_ERR_INPUT, "t = %.17g: a command scheduled for t = %.17g is "
                       "in the past", s->state.t, cmd->t);
  return hg_sim_push_command(s, cmd, cmd->t) < 0 ? s->failed : HG_SIM_OK;
}

/* ---- the schedule ---- */

double hg_sim_out_time(const hg_sim *s, long k) {
  double t = s->t_start + (double)k * s->tl.dt_out;
  return t < s->t_end ? t : s->t_end;
}

double hg_sim_ck_time(const hg_sim *s, long k) {
  return s->t_start + (double)k * s->opt.checkpoint_every;
}

int hg_sim_check_interval(const hg_sim *s, double dt, int output) {
  double span = s->t_end - s->t_start, most = output ? HG_SIM_MAX_SAMPLES : HG_SIM_MAX_CHECKPOINTS;
  if (!output && dt == 0) return 0; /* no checkpoints */
  return !(dt > 0 && isfinite(dt) && span / dt <= most);
}

double hg_sim_next_time_event(const hg_sim *s) {
  double tn = INFINITY;
  for (int e = 0; e < s->scene->nevent; e++) {
    const hg_event_spec *ev = &s->scene->event[e];
    if (ev->trigger == HG_TRIGGER_TIME && !s->tl.fire_count[e] && ev->time > s->state.t &&
        ev->time < tn)
      tn = ev->time;
  }
  for (int k = 0; k < s->tl.ncmd; k++)
    if (!s->tl.cmd_fired[k] && s->tl.cmd[k].t > s->state.t && s->tl.cmd[k].t < tn)
      tn = s->tl.cmd[k].t;
  return tn;
}
