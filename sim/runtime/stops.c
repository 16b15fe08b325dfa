/* stops.c: end stops. A revolute, prismatic or helical joint with position limits (the scene's
 * `limits: {lower, upper}`, URDF <limit>) is held at its limits:
 *   - a free joint that reaches a limit moving outward stops there by a perfectly plastic impact:
 *     it locks, through the same momentum-conserving impulse as any lock, and the event log
 *     names the stop and the energy the impact removed;
 *   - a joint held at a stop is released (free again) when the force the stop carries would pull
 *     it off the limit, i.e. when the joint would move away from the limit by itself.
 * Both are found by the integrator's root finding, one root function per limited joint after
 * the scene's own (hg_sim_roots): while free min(q - lower, upper - q), which falls through zero
 * at a limit; while held, side * load (side +1 at the upper limit, -1 at the lower), the stop's
 * force in the direction it pushes, which rises through zero when the stop would start to pull.
 * A held joint's lock is marked by its recipe (HG_RECIPE_STOP), so it follows the joint across
 * topology changes and checkpoints like any mode. Root finding sees crossings between steps;
 * what an event changes at once (a force switched off that held a joint on its stop, a joint
 * set past its limit) is settled right after the event. This file says when a stop acts; sim.c
 * fires the stops that do (events.c, act_stop). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_internal.h"

int hg_sim_stops_install(hg_sim *s) {
  const hg_model *m = s->m;
  int n = 0;
  free(s->tl.stop_g);
  s->tl.stop_g = NULL;
  for (int i = 1; i < m->nbody; i++) {
    const hg_joint_limits *l = &m->limits[i];
    int one = m->jnt_nv[i] == 1 && m->jnt_nq[i] == 1;
    if (one && l->has_position && l->lower < l->upper) n++;
  }
  int *stop = realloc(s->tl.stop, (size_t)(n + 1) * sizeof *stop);
  int *dir = realloc(s->tl.root_dir, (size_t)(s->tl.nroot + n + 1) * sizeof *dir);
  if (stop) s->tl.stop = stop;
  if (dir) s->tl.root_dir = dir;
  s->tl.stop_g = malloc((size_t)(n + 1) * sizeof *s->tl.stop_g);
  if (!s->tl.stop_g) return -1;
  int *hit = dir ? realloc(s->tl.root_hit, (size_t)(s->tl.nroot + n + 1) * sizeof *hit) : NULL;
  if (hit) s->tl.root_hit = hit;
  if (!stop || !dir || !hit) return -1;
  s->tl.nstop = 0;
  for (int i = 1; i < m->nbody; i++) {
    const hg_joint_limits *l = &m->limits[i];
    int one = m->jnt_nv[i] == 1 && m->jnt_nq[i] == 1;
    if (!one || !l->has_position || !(l->lower < l->upper)) continue;
    /* hits fall, releases rise: both, sorted at firing */
    s->tl.root_dir[s->tl.nroot + s->tl.nstop] = 0;
    s->tl.stop[s->tl.nstop++] = i;
  }
  return 0;
}

/* +1 when joint i is at (or past) its upper limit's side, -1 at the lower's */
static int side(const hg_sim *s, int i, double q) {
  const hg_joint_limits *l = &s->m->limits[i];
  return q - l->lower > l->upper - q ? 1 : -1;
}

int hg_sim_stop_latches(const hg_sim *s, int i) {
  int sd = side(s, i, s->state.q[s->m->q_adr[i]]);
  return (s->m->limits[i].latch & (sd > 0 ? HG_LATCH_UPPER : HG_LATCH_LOWER)) != 0;
}

/* 1 when joint i is held at a stop (a latching stop holds for good: 2) */
static int held(const hg_sim *s, int i) {
  int h = s->d->mode[i] == HG_MODE_LOCKED && s->state.recipe[i].src == HG_RECIPE_STOP;
  return h && hg_sim_stop_latches(s, i) ? 2 : h;
}

int hg_sim_stop_latched(const hg_sim *s, int i) { return held(s, i) == 2; }

int hg_sim_stops_held(const hg_sim *s) {
  for (int k = 0; k < s->tl.nstop; k++)
    if (held(s, s->tl.stop[k])) return 1;
  return 0;
}

void hg_sim_stop_roots(hg_sim *s, double *g) {
  const hg_model *m = s->m;
  for (int k = 0; k < s->tl.nstop; k++) {
    int i = s->tl.stop[k];
    const hg_joint_limits *l = &m->limits[i];
    double q = s->rhs.qs[m->q_adr[i]];
    if (held(s, i) == 2) g[k] = -1; /* latched */
    else if (held(s, i)) g[k] = side(s, i, q) * s->rhs.tau[m->v_adr[i]];
    else if (s->d->mode[i] != HG_MODE_FREE) g[k] = 1; /* held by a command: not a stop's */
    else g[k] = fmin(q - l->lower, l->upper - q);
  }
}

int hg_sim_stop_hit_acts(const hg_sim *s, int k) {
  const hg_model *m = s->m;
  int i = s->tl.stop[k], h = held(s, i);
  if (h) return h == 1;
  /* a free joint moving inward (or held by a command) takes no impact: a graze */
  int sd = side(s, i, s->state.q[m->q_adr[i]]);
  return s->d->mode[i] == HG_MODE_FREE && !(sd * s->state.v[m->v_adr[i]] <= 0);
}

int hg_sim_stops_measure(hg_sim *s) {
  if (hg_sim_eval(s, s->state.t, s->state.q, s->state.v, NULL)) return -1;
  hg_sim_stop_roots(s, s->tl.stop_g);
  return 0;
}

int hg_sim_stop_settle_acts(const hg_sim *s, int k) {
  const hg_model *m = s->m;
  int i = s->tl.stop[k], sd = side(s, i, s->state.q[m->q_adr[i]]);
  if (held(s, i) == 1) return s->tl.stop_g[k] > 0;
  return s->d->mode[i] == HG_MODE_FREE && s->tl.stop_g[k] <= 0 && sd * s->state.v[m->v_adr[i]] > 0;
}
