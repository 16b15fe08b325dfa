/* events.c: the event timeline: time events, firing an event, and the actions it applies
 * (modes, forces, impulses, topology changes: detach, attach, undock, remove, add), each logged
 * with the momentum and energy before and after. */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "sim_internal.h"
#include "topology.h"

/* ---- history ---- */

int hg_sim_push_fired(hg_sim *s, int kind, int index, double t) {
  if (hg_sim_grow((void **)&s->fired, s->nfired, &s->capfired, sizeof *s->fired)) return -1;
  s->fired[s->nfired++] = (hg_fired){kind, index, t};
  if (kind == HG_FIRED_EVENT) s->fire_count[index]++;
  else s->captured[index] = 1;
  return 0;
}

/* ---- actions ---- */

/* what an event is doing, for its log line */
typedef struct fire_ctx {
  hg_sim_event ev;
  double e_lock;
} fire_ctx;

static void detail(fire_ctx *c, const char *fmt, ...) {
  size_t n = strlen(c->ev.details);
  if (n + 3 >= sizeof c->ev.details) return;
  if (n) {
    memcpy(c->ev.details + n, "; ", 3);
    n += 2;
  }
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(c->ev.details + n, sizeof c->ev.details - n, fmt, ap);
  va_end(ap);
}

static const char *mode_name(hg_mode mode) {
  return mode == HG_MODE_FREE ? "free" : mode == HG_MODE_LOCKED ? "locked" : "prescribed";
}

/* the joint's mode from a spec, then the impulsive switch */
static int apply_mode(hg_sim *s, fire_ctx *c, int i, const hg_mode_spec *ms, int src, int e,
                      int a) {
  int external = 0;
  if (hg_sim_set_mode(s, i, ms, src, e, a) || hg_sim_mode_impulse(s, &c->e_lock, &external))
    return s->failed;
  if (external) c->ev.conserves = 0;
  detail(c, "joint %s %s", s->m->jnt_name[i], mode_name(ms->mode));
  return 0;
}

static int act_set_mode(hg_sim *s, fire_ctx *c, int e, int a) {
  const hg_action *act = &s->scene->event[e].action[a];
  int i = act->joint ? hg_model_joint(s->m, act->joint) : -1;
  if (i < 1) return detail(c, "joint %s absent: skipped", act->joint ? act->joint : "?"), 0;
  return apply_mode(s, c, i, &act->mode, HG_RECIPE_ACTION, e, a);
}

static int act_force(hg_sim *s, fire_ctx *c, const hg_action *act, int on) {
  int k = act->force ? hg_forces_find(s->forces, act->force) : -1;
  if (k < 0) return detail(c, "force %s absent: skipped", act->force ? act->force : "?"), 0;
  hg_forces_set_enabled(s->forces, k, on);
  detail(c, "%s %s", on ? "enable" : "disable", act->force);
  return 0;
}

/* the generalized impulse of a world impulse (angular about point p, linear) on body i */
static void generalized_impulse(hg_sim *s, int i, const double p[3], const hg_action *act) {
  hg_model *m = s->m;
  double Fw[6], g[3];
  for (int k = 0; k < 3; k++) Fw[k] = act->angular[k], Fw[3 + k] = act->linear[k];
  hg_v3_cross_add(p, act->linear, Fw);
  memset(s->fext, 0, 6 * (size_t)m->nbody * sizeof(double));
  hg_coAd(&s->d->T_world[i], Fw, s->fext + 6 * i);
  /* tau = -J^T fext from the inverse dynamics at rest without gravity */
  memcpy(g, m->gravity, sizeof g);
  memset(m->gravity, 0, sizeof m->gravity);
  memset(s->vs, 0, (size_t)m->nv * sizeof(double));
  memset(s->qdd, 0, (size_t)m->nv * sizeof(double));
  hg_rnea(m, s->d, s->q, s->vs, s->qdd, s->fext, s->tau);
  memcpy(m->gravity, g, sizeof g);
}

static int act_impulse(hg_sim *s, fire_ctx *c, const hg_action *act) {
  const hg_model *m = s->m;
  int i = act->body ? hg_model_body(m, act->body) : -1, mb;
  hg_se3 M, Tm;
  double vel[3];
  if (i < 1) return detail(c, "impulse on %s absent: skipped", act->body ? act->body : "?"), 0;
  hg_kinematics(m, s->d, s->q, s->v);
  if (act->marker_a && !hg_sim_resolve_marker(s, act->marker_a, &mb, &M))
    hg_sim_marker_world(s, mb, &M, &Tm, vel);
  else Tm = s->d->T_world[i];
  generalized_impulse(s, i, Tm.p, act);
  /* free joints take the impulse, the others hold their velocities */
  for (int k = 0; k < m->nv; k++) {
    int fixed = s->d->mode[m->dof_body[k]] != HG_MODE_FREE;
    s->imp[k] = fixed ? 0 : -s->tau[k];
    s->dv[k] = 0;
  }
  if (hg_hybrid_impulse(m, s->d, s->q, s->dv, s->imp))
    return hg_sim_fail(s, HG_SIM_ERR_NUMERIC, "t = %.17g: impulse: %s", s->t, s->d->err);
  for (int k = 0; k < m->nv; k++) s->v[k] += s->dv[k];
  c->ev.conserves = 0;
  detail(c, "impulse on %s", act->body);
  return 0;
}

static const hg_mode_spec free_spec = {NULL, HG_MODE_FREE, 0, {0}, {NULL, 0, 0}};
static const hg_mode_spec locked_spec = {NULL, HG_MODE_LOCKED, 0, {0}, {NULL, 0, 0}};

static int act_detach(hg_sim *s, fire_ctx *c, const char *body) {
  hg_topo_op op = {HG_ACTION_DETACH, (char *)body, NULL, NULL, {{0}, {0}}, NULL};
  if (!body || hg_model_body(s->m, body) < 1)
    return detail(c, "detach %s absent: skipped", body ? body : "?"), 0;
  int rc = hg_sim_topology(s, &op, 1);
  if (rc) return rc;
  detail(c, "detach %s", body);
  /* the new free joint to the world moves freely */
  return apply_mode(s, c, hg_model_body(s->m, body), &free_spec, HG_RECIPE_KEEP, -1, -1);
}

/* docks marker b's body to marker a's body by a locked free joint (named jname, or
 * dock_<ma>_<mb>) at their present relative pose */
static int dock(hg_sim *s, fire_ctx *c, const char *ma, const char *mb, const char *jname) {
  int ia, ib;
  hg_se3 Ma, Mb, T;
  char joint[256];
  if (hg_sim_resolve_marker(s, ma, &ia, &Ma) || hg_sim_resolve_marker(s, mb, &ib, &Mb) || ib < 1)
    return detail(c, "attach %s to %s absent: skipped", mb ? mb : "?", ma ? ma : "?"), 0;
  /* docking within one tree would close a loop */
  if (ia > 0 && s->m->root[ia] == s->m->root[ib])
    return detail(c, "attach %s to %s: already connected, skipped", mb, ma), 0;
  hg_kinematics(s->m, s->d, s->q, s->v);
  if (ia > 0) hg_se3_invmul(&s->d->T_world[ia], &s->d->T_world[ib], &T);
  else T = s->d->T_world[ib];
  if (jname) snprintf(joint, sizeof joint, "%s", jname);
  else snprintf(joint, sizeof joint, "dock_%s_%s", ma, mb);
  hg_topo_op op = {HG_ACTION_ATTACH, s->m->body_name[ib], s->m->body_name[ia], joint, T, NULL};
  char *child = hg_sim_strdup(op.body), *parent = hg_sim_strdup(op.parent);
  op.body = child;
  op.parent = parent;
  int rc = child && parent ? hg_sim_topology(s, &op, 1)
                           : hg_sim_fail(s, HG_SIM_ERR_NUMERIC, "out of memory");
  free(child);
  free(parent);
  if (rc) return rc;
  detail(c, "dock %s to %s", mb, ma);
  return apply_mode(s, c, hg_model_joint(s->m, joint), &locked_spec, HG_RECIPE_KEEP, -1, -1);
}

static int act_undock(hg_sim *s, fire_ctx *c, const hg_action *act) {
  int i = act->joint ? hg_model_joint(s->m, act->joint) : -1;
  if (i < 1) return detail(c, "undock %s absent: skipped", act->joint ? act->joint : "?"), 0;
  if (!act->detach) return apply_mode(s, c, i, &free_spec, HG_RECIPE_KEEP, -1, -1);
  /* the body's name outlives the model that the detach replaces */
  char *body = hg_sim_strdup(s->m->body_name[i]);
  int rc = body ? act_detach(s, c, body) : hg_sim_fail(s, HG_SIM_ERR_NUMERIC, "out of memory");
  free(body);
  return rc;
}

static int act_remove(hg_sim *s, fire_ctx *c, const char *body) {
  hg_topo_op op = {HG_ACTION_REMOVE, (char *)body, NULL, NULL, {{0}, {0}}, NULL};
  if (!body || hg_model_body(s->m, body) < 1)
    return detail(c, "remove %s absent: skipped", body ? body : "?"), 0;
  int rc = hg_sim_topology(s, &op, 1);
  if (rc) return rc;
  c->ev.conserves = 0;
  detail(c, "remove %s", body);
  return 0;
}

/* 1 when an add cannot happen now (a body it brings is present; its parent or its marker is
 * absent), with the reason in the log */
static int add_blocked(hg_sim *s, fire_ctx *c, const hg_action *act) {
  const hg_library *lib = &s->scene->library;
  const hg_model *L = lib->model;
  int r = L && act->body ? hg_model_body(L, act->body) : -1, b;
  hg_se3 M;
  if (r < 1 || L->parent[r] != 0)
    return detail(c, "add %s: not absent at the start, skipped", act->body ? act->body : "?"), 1;
  for (int i = r; i < L->subtree_end[r]; i++)
    if (hg_model_body(s->m, L->body_name[i]) >= 0)
      return detail(c, "add %s: %s is present, skipped", act->body, L->body_name[i]), 1;
  if (hg_model_body(s->m, lib->parent[r]) < 0)
    return detail(c, "add %s: parent %s absent, skipped", act->body, lib->parent[r]), 1;
  if (act->marker_a && hg_sim_resolve_marker(s, act->marker_a, &b, &M))
    return detail(c, "add %s: marker %s absent, skipped", act->body, act->marker_a), 1;
  return 0;
}

/* a body of the library and its subtree join the model at the action's placement */
static int act_add(hg_sim *s, fire_ctx *c, const hg_action *act) {
  hg_topo_op op = {HG_ACTION_ADD, act->body, NULL, NULL, {{0}, {0}}, act};
  if (add_blocked(s, c, act)) return 0;
  int rc = hg_sim_topology(s, &op, 1);
  if (rc) return rc;
  c->ev.conserves = 0;
  detail(c, "add %s", act->body);
  return 0;
}

static int apply_action(hg_sim *s, fire_ctx *c, int e, int a) {
  const hg_action *act = &s->scene->event[e].action[a];
  switch (act->type) {
  case HG_ACTION_SET_MODE: return act_set_mode(s, c, e, a);
  case HG_ACTION_ENABLE_FORCE: return act_force(s, c, act, 1);
  case HG_ACTION_DISABLE_FORCE: return act_force(s, c, act, 0);
  case HG_ACTION_IMPULSE: return act_impulse(s, c, act);
  case HG_ACTION_DETACH: return act_detach(s, c, act->body);
  case HG_ACTION_ATTACH: return dock(s, c, act->marker_a, act->marker_b, act->joint);
  case HG_ACTION_UNDOCK: return act_undock(s, c, act);
  case HG_ACTION_REMOVE: return act_remove(s, c, act->body);
  case HG_ACTION_ADD: return act_add(s, c, act);
  }
  return 0;
}

/* ---- firing ---- */

/* 1 when every tree floats (its root hangs on a free joint in free mode), so that no impulse
 * can reach the world and an event must conserve momentum */
static int floating(const hg_sim *s) {
  for (int i = 1; i < s->m->nbody; i++)
    if (s->m->parent[i] == 0 &&
        (s->m->jnt[i].type != HG_JOINT_FREE || s->d->mode[i] != HG_MODE_FREE))
      return 0;
  return 1;
}

/* momentum and energy of the current state into the log entry */
static void measure(hg_sim *s, double h[6], double *e, double *scale) {
  double ke, pe, pel, sc[2];
  hg_sim_momentum_scale(s, s->q, s->v, h, scale ? scale : sc);
  hg_sim_energy(s, s->q, s->v, &ke, &pe, &pel);
  *e = ke + pe + pel;
}

/* the log entry: budget terms, history, the events file */
static int finish_fire(hg_sim *s, fire_ctx *c, int kind, int index) {
  measure(s, c->ev.h_after, &c->ev.e_after, NULL);
  if (!floating(s)) c->ev.conserves = 0;
  c->ev.e_lock = c->e_lock;
  s->e_lock += c->e_lock;
  s->w_event += c->ev.e_after - c->ev.e_before + c->e_lock;
  if (hg_sim_push_fired(s, kind, index, s->t) ||
      hg_sim_grow((void **)&s->log, s->nlog, &s->caplog, sizeof *s->log))
    return hg_sim_fail(s, HG_SIM_ERR_NUMERIC, "out of memory");
  s->log[s->nlog++] = c->ev;
  /* momentum drift counts from here when the event changed the momentum on purpose */
  if (!c->ev.conserves) memcpy(s->h_ref, c->ev.h_after, sizeof s->h_ref);
  hg_sim_resolve_triggers(s);
  s->restart = 1;
  return hg_out_event(s, &c->ev);
}

int hg_sim_fire(hg_sim *s, int kind, int index) {
  fire_ctx c;
  int rc = 0;
  memset(&c, 0, sizeof c);
  c.ev.t = s->t;
  c.ev.conserves = floating(s);
  c.ev.name = kind == HG_FIRED_EVENT ? s->scene->event[index].name : "capture";
  if (!c.ev.name) c.ev.name = "event";
  measure(s, c.ev.h_before, &c.ev.e_before, c.ev.h_scale);
  if (kind == HG_FIRED_EVENT)
    for (int a = 0; a < s->scene->event[index].naction && !rc; a++)
      rc = apply_action(s, &c, index, a);
  else
    rc = dock(s, &c, s->scene->capture[index].marker_a, s->scene->capture[index].marker_b,
              s->scene->capture[index].joint);
  if (rc) return rc;
  return finish_fire(s, &c, kind, index);
}

/* ---- time events ---- */

double hg_sim_next_time_event(const hg_sim *s) {
  double tn = INFINITY;
  for (int e = 0; e < s->scene->nevent; e++) {
    const hg_event_spec *ev = &s->scene->event[e];
    if (ev->trigger == HG_TRIGGER_TIME && !s->fire_count[e] && ev->time > s->t && ev->time < tn)
      tn = ev->time;
  }
  return tn;
}

int hg_sim_fire_due(hg_sim *s) {
  for (int e = 0; e < s->scene->nevent; e++) {
    const hg_event_spec *ev = &s->scene->event[e];
    if (ev->trigger != HG_TRIGGER_TIME || s->fire_count[e] || ev->time > s->t) continue;
    int rc = hg_sim_fire(s, HG_FIRED_EVENT, e);
    if (rc) return rc;
  }
  return 0;
}
