/* triggers.c: the conditions of the event timeline as root functions of the integrated system:
 * distances between markers, joint coordinates and loads, altitude and speed of bodies, and the
 * capture measure of docking ports. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_internal.h"

/* ---- what the conditions measure ---- */

/* altitude of a world point in the atmosphere's convention (z without a planet) */
static double altitude(const hg_sim *s, const double p[3]) {
  const hg_atmosphere *a = s->tl.atm;
  if (!a || !(a->radius > 0)) return p[2];
  double r[3] = {p[0] - a->centre[0], p[1] - a->centre[1], p[2] - a->centre[2]};
  return hg_v3_norm(r) - a->radius;
}

/* distance, angle and relative speed of two marker frames */
static void marker_pair(hg_sim *s, const hg_trig *g, double *dist, double *angle, double *speed) {
  hg_se3 Ta, Tb;
  double va[3], vb[3], dp[3], dv[3], Rr[9], w[3];
  hg_sim_marker_world(s, g->body_a, &g->mark_a, &Ta, va);
  hg_sim_marker_world(s, g->body_b, &g->mark_b, &Tb, vb);
  for (int k = 0; k < 3; k++) {
    dp[k] = Tb.p[k] - Ta.p[k];
    dv[k] = vb[k] - va[k];
  }
  *dist = hg_v3_norm(dp);
  *speed = hg_v3_norm(dv);
  if (!angle) return;
  /* ports face each other: mated when frame b is frame a turned half a turn about its x axis */
  for (int k = 0; k < 3; k++) {
    Ta.R[3 * k + 1] = -Ta.R[3 * k + 1];
    Ta.R[3 * k + 2] = -Ta.R[3 * k + 2];
  }
  hg_m3_mulT(Ta.R, Tb.R, Rr);
  hg_so3_log(Rr, w);
  *angle = hg_v3_norm(w);
}

/* ---- triggers ---- */

/* the atmosphere that defines altitude: the scene's, else the first drag element's */
static void atmosphere(hg_sim *s) {
  if (s->scene->has_atmosphere) s->tl.atm = &s->scene->atmosphere;
  for (int k = 0; k < s->scene->nforce && !s->tl.atm; k++) {
    const hg_force_spec *f = &s->scene->force[k];
    if (f->type == HG_FORCE_DRAG || f->type == HG_FORCE_PARACHUTE) s->tl.atm = &f->atm;
  }
}

int hg_sim_triggers_new(hg_sim *s) {
  const hg_scene *sc = s->scene;
  int n = sc->ncapture;
  for (int e = 0; e < sc->nevent; e++) n += sc->event[e].trigger != HG_TRIGGER_TIME;
  for (int f = 0; f < sc->nforce; f++) n += sc->force[f].type == HG_FORCE_CONTACT;
  atmosphere(s);
  s->tl.nroot = n;
  s->tl.trig = calloc((size_t)n + 1, sizeof *s->tl.trig);
  s->tl.root_dir = calloc((size_t)n + 1, sizeof(int));
  s->tl.root_hit = calloc((size_t)n + 1, sizeof(int));
  if (!s->tl.trig || !s->tl.root_dir || !s->tl.root_hit) return -1;
  n = 0;
  for (int e = 0; e < sc->nevent; e++) {
    if (sc->event[e].trigger == HG_TRIGGER_TIME) continue;
    s->tl.trig[n].kind = HG_FIRED_EVENT;
    s->tl.trig[n].index = e;
    s->tl.root_dir[n++] = sc->event[e].direction;
  }
  for (int c = 0; c < sc->ncapture; c++) {
    s->tl.trig[n].kind = HG_FIRED_CAPTURE;
    s->tl.trig[n].index = c;
    s->tl.root_dir[n++] = -1; /* the capture measure falls through zero */
  }
  for (int f = 0; f < sc->nforce; f++) {
    if (sc->force[f].type != HG_FORCE_CONTACT) continue;
    s->tl.ncontact++;
    s->tl.trig[n].kind = HG_FIRED_TOUCH;
    s->tl.trig[n].index = f;
    s->tl.root_dir[n++] = -1; /* the gap closes */
  }
  return 0;
}

/* an event's condition against the current model */
static void resolve_event(hg_sim *s, hg_trig *g) {
  const hg_event_spec *e = &s->scene->event[g->index];
  int ok = 0, j;
  g->active = !(e->once && s->tl.fire_count[g->index] > 0);
  switch (e->trigger) {
  case HG_TRIGGER_DISTANCE:
    ok = !hg_sim_resolve_marker(s, e->marker_a, &g->body_a, &g->mark_a) &&
         !hg_sim_resolve_marker(s, e->marker_b, &g->body_b, &g->mark_b);
    break;
  case HG_TRIGGER_JOINT_Q:
  case HG_TRIGGER_JOINT_LOAD:
    j = e->joint ? hg_model_joint(s->m, e->joint) : -1;
    ok = j > 0 && e->dof >= 0 &&
         e->dof < (e->trigger == HG_TRIGGER_JOINT_Q ? s->m->jnt_nq[j] : s->m->jnt_nv[j]);
    if (ok) g->dof_q = s->m->q_adr[j] + e->dof, g->dof_v = s->m->v_adr[j] + e->dof;
    if (ok && e->trigger == HG_TRIGGER_JOINT_LOAD) s->tl.any_load_trigger = 1;
    break;
  case HG_TRIGGER_ALTITUDE:
  case HG_TRIGGER_SPEED:
    g->body_a = e->body ? hg_model_body(s->m, e->body) : -1;
    ok = g->body_a > 0;
    break;
  case HG_TRIGGER_CLEARANCE:
    ok = s->coll != NULL;
    for (int k = 0; k < 2; k++) {
      /* the bodies of each side that are present now (a removed one drops out) */
      free(g->set[k]);
      g->set[k] = malloc((size_t)(e->nset[k] > 0 ? e->nset[k] : 1) * sizeof(int));
      g->nset[k] = 0;
      for (int b = 0; g->set[k] && b < e->nset[k]; b++) {
        int i = hg_model_body(s->m, e->set[k][b]);
        if (i > 0) g->set[k][g->nset[k]++] = i;
      }
      ok = ok && g->nset[k] > 0;
    }
    break;
  default:
    break;
  }
  if (!ok) g->active = 0;
}

/* a capture: both ports present on two bodies, not captured yet (ports on one tree close a loop) */
static void resolve_capture(hg_sim *s, hg_trig *g) {
  const hg_capture_spec *c = &s->scene->capture[g->index];
  g->active = !s->tl.captured[g->index] &&
              !hg_sim_resolve_marker(s, c->marker_a, &g->body_a, &g->mark_a) &&
              !hg_sim_resolve_marker(s, c->marker_b, &g->body_b, &g->mark_b) &&
              g->body_b > 0 && g->body_a != g->body_b;
}

void hg_sim_resolve_triggers(hg_sim *s) {
  s->tl.any_load_trigger = 0;
  for (int k = 0; k < s->tl.nroot; k++) {
    if (s->tl.trig[k].kind == HG_FIRED_EVENT) resolve_event(s, &s->tl.trig[k]);
    else if (s->tl.trig[k].kind == HG_FIRED_CAPTURE) resolve_capture(s, &s->tl.trig[k]);
    else s->tl.trig[k].active = 1; /* touch: the element says when it cannot touch */
  }
}

/* the root function of one trigger (kinematics and loads of the state in s->d, rhs.qs, rhs.tau) */
static double trig_value(hg_sim *s, const hg_trig *g) {
  double dist, angle, speed, tw[6];
  hg_se3 T;
  if (!g->active) return 1;
  if (g->kind == HG_FIRED_TOUCH) {
    double gap;
    return hg_forces_contact_gap(s->forces, g->index, s->m, s->d, &gap) ? 1 : gap;
  }
  if (g->kind == HG_FIRED_CAPTURE) {
    const hg_capture_spec *c = &s->scene->capture[g->index];
    marker_pair(s, g, &dist, &angle, &speed);
    return fmax(dist / c->position_tol, fmax(angle / c->angle_tol, speed / c->speed_tol)) - 1;
  }
  const hg_event_spec *e = &s->scene->event[g->index];
  switch (e->trigger) {
  case HG_TRIGGER_DISTANCE:
    marker_pair(s, g, &dist, NULL, &speed);
    return dist - e->value;
  case HG_TRIGGER_JOINT_Q: return s->rhs.qs[g->dof_q] - e->value;
  case HG_TRIGGER_JOINT_LOAD: return s->rhs.tau[g->dof_v] - e->value;
  case HG_TRIGGER_ALTITUDE:
    hg_sim_body_world(s, g->body_a, &T, tw);
    return altitude(s, T.p) - e->value;
  case HG_TRIGGER_SPEED:
    hg_sim_body_world(s, g->body_a, &T, tw);
    return hg_v3_norm(tw + 3) - e->value;
  case HG_TRIGGER_CLEARANCE: {
    hg_clearance cl;
    if (hg_collision_distance(s->coll, s->d->T_world, g->set[0], g->nset[0], g->set[1],
                              g->nset[1], &cl))
      return 1; /* no collision shape on a side: nothing to watch */
    return cl.distance - e->value;
  }
  default: return 1;
  }
}

int hg_sim_roots(void *user, double t, const double *q, const double *v, double *g) {
  hg_sim *s = user;
  const hg_model *m = s->m;
  /* a run that must stop refuses the evaluation, as the accelerations do (rhs.c) */
  if (s->halt.armed && hg_sim_halt_due(s, 0)) return -1;
  /* the state with the prescribed joints on their profiles (loads when a trigger needs them) */
  if (s->tl.any_load_trigger || hg_sim_stops_held(s)) {
    if (hg_sim_eval(s, t, q, v, NULL)) return -1;
  } else {
    memcpy(s->rhs.qs, q, (size_t)m->nq * sizeof(double));
    memcpy(s->rhs.vs, v, (size_t)m->nv * sizeof(double));
    if (hg_profiles_apply(m, s->d, s->state.prof, t, s->rhs.qs, s->rhs.vs, NULL)) return -1;
    hg_kinematics(m, s->d, s->rhs.qs, s->rhs.vs);
  }
  for (int k = 0; k < s->tl.nroot; k++) g[k] = trig_value(s, &s->tl.trig[k]);
  hg_sim_stop_roots(s, g + s->tl.nroot);
  return 0;
}
