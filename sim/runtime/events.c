/* events.c: the one path of every change a running simulation takes: scene events, docking
 * captures and commands fire here, apply their actions (modes, forces, impulses, topology
 * changes: detach, attach, undock, remove, add) and are logged with the momentum and energy
 * before and after (the observers are told by sim.c, which fires). The mode switches of
 * consecutive set_mode actions take effect together, in one impulse (locking several moving
 * joints at once is one plastic collision, not a sequence). */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "sim_internal.h"
#include "topology.h"

/* ---- actions ---- */

/* what an event is doing, for its log line; the actions it fires and where their mode specs
 * live (recipe source and index: a scene event's or a command's) */
typedef struct fire_ctx {
  hg_sim_event ev;
  double e_lock;
  const hg_action *action;
  int naction;
  int recipe_src, recipe_idx;
  int pending;   /* mode switches wait for their impulse */
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

/* the impulse that makes velocities fit the modes set since the last one */
static int flush_modes(hg_sim *s, fire_ctx *c) {
  int external = 0;
  if (!c->pending) return 0;
  c->pending = 0;
  if (hg_sim_mode_impulse(s, &c->e_lock, &external)) return s->failed;
  if (external) c->ev.conserves = 0;
  return 0;
}

/* the joint's mode from a spec, then the impulsive switch */
static int apply_mode(hg_sim *s, fire_ctx *c, int i, const hg_mode_spec *ms, int src, int e,
                      int a) {
  if (hg_sim_set_mode(s, i, ms, src, e, a)) return s->failed;
  detail(c, "joint %s %s", s->m->jnt_name[i], mode_name(ms->mode));
  c->pending = 1;
  return flush_modes(s, c);
}

/* "(a, b, ...)" of n numbers into buf */
static const char *numbers(const double *x, int n, char *buf, size_t len) {
  size_t at = 0;
  for (int k = 0; k < n && at < len; k++)
    at += (size_t)snprintf(buf + at, len - at, "%s%.6g%s", k ? ", " : "(", x[k],
                           k == n - 1 ? ")" : "");
  return buf;
}

/* A set_mode action: the mode now, its impulse with the next ones. A profile that would make the
 * joint jump (a spline whose first sample is not where the joint is) is refused: the joint keeps
 * its mode and the log says why, with both configurations. */
static int act_set_mode(hg_sim *s, fire_ctx *c, const hg_action *act, int a) {
  int i = act->joint ? hg_model_joint(s->m, act->joint) : -1;
  if (i < 1) return detail(c, "joint %s absent: skipped", act->joint ? act->joint : "?"), 0;
  const hg_model *m = s->m;
  int leader = hg_sim_mimic_leader(m, i);
  if (leader > 0) {
    s->tl.nrefused++;
    return detail(c, "REFUSED set_mode of joint %s: it follows joint %s (mimic), whose mode it "
                     "takes", m->jnt_name[i], m->jnt_name[leader]), 0;
  }
  uint8_t mode0 = s->d->mode[i];
  int latched = hg_sim_stop_latched(s, i); /* by state.q, before the new mode moves it */
  const hg_joint_limits *lim = &m->limits[i];
  double qi = s->state.q[m->q_adr[i]];
  const char *stop_side = qi - lim->lower > lim->upper - qi ? "upper" : "lower";
  hg_recipe rec0 = s->state.recipe[i];
  hg_profile *prof0 = s->state.prof[i];
  s->state.prof[i] = NULL; /* kept aside until the new one is accepted */
  if (hg_sim_set_mode(s, i, &act->mode, c->recipe_src, c->recipe_idx, a)) {
    hg_profile_free(prof0);
    return s->failed;
  }
  double qp[HG_JOINT_MAXNQ];
  if (s->state.prof[i] && hg_sim_profile_jump(s, i, qp) > HG_PROFILE_START_TOL) {
    char a_[160], b_[160];
    detail(c, "REFUSED set_mode of joint %s: its profile starts at %s but the joint is at %s "
              "(a prescribed motion must start where the joint is)",
           m->jnt_name[i], numbers(qp, m->jnt_nq[i], a_, sizeof a_),
           numbers(s->state.q + m->q_adr[i], m->jnt_nq[i], b_, sizeof b_));
    hg_profile_free(s->state.prof[i]);
    s->state.prof[i] = prof0;
    s->d->mode[i] = mode0;
    s->state.recipe[i] = rec0;
    s->tl.nrefused++;
    return 0;
  }
  hg_profile_free(prof0);
  /* a mode set by a command or an event replaces the latch's: say so, not silently */
  if (latched)
    detail(c, "joint %s unlatches from its %s stop (set_mode overrides the latch)",
           m->jnt_name[i], stop_side);
  detail(c, "joint %s %s", m->jnt_name[i], mode_name(act->mode.mode));
  c->pending = 1;
  return 0;
}

static int act_force(hg_sim *s, fire_ctx *c, const hg_action *act, int on) {
  int k = act->force ? hg_forces_find(s->forces, act->force) : -1;
  if (k < 0) return detail(c, "force %s absent: skipped", act->force ? act->force : "?"), 0;
  hg_forces_set_enabled(s->forces, k, on);
  detail(c, "%s %s", on ? "enable" : "disable", act->force);
  return 0;
}

static int act_impulse(hg_sim *s, fire_ctx *c, const hg_action *act) {
  const hg_model *m = s->m;
  int i = act->body ? hg_model_body(m, act->body) : -1, mb;
  hg_se3 M, Tm;
  double vel[3];
  if (i < 1) return detail(c, "impulse on %s absent: skipped", act->body ? act->body : "?"), 0;
  hg_kinematics(m, s->d, s->state.q, s->state.v);
  if (act->marker_a && !hg_sim_resolve_marker(s, act->marker_a, &mb, &M))
    hg_sim_marker_world(s, mb, &M, &Tm, vel);
  else Tm = s->d->T_world[i];
  /* the generalized impulse J^T (angular about the point, linear): free joints take it, the
   * others hold their velocities */
  double w[6];
  for (int k = 0; k < 3; k++) w[k] = act->angular[k], w[3 + k] = act->linear[k];
  if (act->body_axes) { /* frame: body: the body's axes now, turned into world axes */
    hg_m3_mulv(s->d->T_world[i].R, act->angular, w);
    hg_m3_mulv(s->d->T_world[i].R, act->linear, w + 3);
  }
  hg_sim_wrench_to_tau(s, s->d, i, Tm.p, w, s->rhs.imp);
  for (int k = 0; k < m->nv; k++) {
    if (s->d->mode[m->dof_body[k]] != HG_MODE_FREE) s->rhs.imp[k] = 0;
    s->rhs.dv[k] = 0;
  }
  if (hg_hybrid_impulse(m, s->d, s->state.q, s->rhs.dv, s->rhs.imp))
    return hg_sim_fail(s, HG_SIM_ERR_NUMERIC, "t = %.17g: impulse: %s", s->state.t, s->d->err);
  for (int k = 0; k < m->nv; k++) s->state.v[k] += s->rhs.dv[k];
  /* the closed loops carry their share: the constrained response is the tree's projected onto
   * G v = 0 in the mass metric (the constraint impulses do no work of their own: the event's
   * energy change is the impulse's work) */
  if (hg_sim_loops_impulse(s, s->state.v, NULL)) return s->failed;
  c->ev.conserves = 0;
  detail(c, "impulse on %s", act->body);
  return 0;
}

/* the world velocity of the material point of body i at world point p, for the velocities in
 * s->d (hg_kinematics) */
static void point_velocity(hg_sim *s, int i, const double p[3], double vel[3]) {
  hg_se3 T;
  double tw[6], r[3];
  hg_sim_body_world(s, i, &T, tw);
  for (int k = 0; k < 3; k++) r[k] = p[k] - T.p[k];
  hg_v3_cross(tw, r, vel);
  for (int k = 0; k < 3; k++) vel[k] += tw[3 + k];
}

/* the approach speed of contact element k's closest points along their normal n (from the
 * first side to the second) for velocities v: < 0 closing */
static double normal_speed(hg_sim *s, const hg_forces_impact *im, const double n[3],
                           const double *v) {
  double va[3], vb[3];
  hg_kinematics(s->m, s->d, s->state.q, v);
  point_velocity(s, im->body_a, im->pa, va);
  point_velocity(s, im->body_b, im->pb, vb);
  for (int k = 0; k < 3; k++) vb[k] -= va[k];
  return hg_v3_dot(vb, n);
}

/* Contact element k's impact (impact: impulsive): at the closest points of its sides, the Newton
 * impulse P along their normal n that turns the approach speed u into -e u, the rest of the system
 * free (free joints take it, as for an impulse action):
 *   dv = M^-1 J^T n (hybrid, per unit impulse),  G = n . (J dv),  P = -(1 + e) u / G.
 * A touch slower than the element's min_impact_speed is left to its compliant law. */
static int act_touch(hg_sim *s, fire_ctx *c, int k) {
  const hg_model *m = s->m;
  const char *name = s->scene->force[k].name;
  hg_forces_impact im;
  double n[3], w[6] = {0, 0, 0, 0, 0, 0};
  hg_kinematics(m, s->d, s->state.q, s->state.v);
  if (hg_forces_contact_impact(s->forces, k, m, s->d, &im) || !(im.gap > 0))
    return detail(c, "%s: touch without a normal (already in contact): compliant", name), 0;
  for (int r = 0; r < 3; r++) n[r] = (im.pb[r] - im.pa[r]) / im.gap;
  double u = normal_speed(s, &im, n, s->state.v);
  if (!(-u > im.min_speed))
    return detail(c, "%s: %s touches %s at %.3g m/s: compliant", name, m->body_name[im.body_a],
                  m->body_name[im.body_b], -u), 0;
  /* the generalized impulse of +n on b at pb and -n on a at pa, at free joints */
  for (int r = 0; r < 3; r++) w[3 + r] = n[r];
  hg_sim_wrench_to_tau(s, s->d, im.body_b, im.pb, w, s->rhs.imp);
  for (int r = 0; r < 3; r++) w[3 + r] = -n[r];
  hg_sim_wrench_to_tau(s, s->d, im.body_a, im.pa, w, s->rhs.dv);
  for (int j = 0; j < m->nv; j++) {
    s->rhs.imp[j] += s->rhs.dv[j];
    if (s->d->mode[m->dof_body[j]] != HG_MODE_FREE) s->rhs.imp[j] = 0;
    s->rhs.dv[j] = 0;
  }
  if (hg_hybrid_impulse(m, s->d, s->state.q, s->rhs.dv, s->rhs.imp))
    return hg_sim_fail(s, HG_SIM_ERR_NUMERIC, "t = %.17g: impact: %s", s->state.t, s->d->err);
  /* with closed loops, the response they allow (the mass-metric projection onto G v = 0) */
  if (hg_sim_loops_impulse(s, s->rhs.dv, NULL)) return s->failed;
  /* its normal speed change per unit impulse, and the impulse */
  double G = normal_speed(s, &im, n, s->rhs.dv);
  if (!(G > 0))
    return detail(c, "%s: %s cannot move against %s: compliant", name, m->body_name[im.body_a],
                  m->body_name[im.body_b]), 0;
  double P = -(1 + im.restitution) * u / G;
  for (int j = 0; j < m->nv; j++) s->state.v[j] += P * s->rhs.dv[j];
  detail(c, "%s: %s strikes %s at %.9g m/s, restitution %g, impulse %.9g N s", name,
         m->body_name[im.body_a], m->body_name[im.body_b], -u, im.restitution, P);
  return 0;
}

static const hg_mode_spec free_spec = {NULL, HG_MODE_FREE, 0, {0}, {NULL, 0, 0}};
static const hg_mode_spec locked_spec = {NULL, HG_MODE_LOCKED, 0, {0}, {NULL, 0, 0}};

/* detaches or removes body (type; verb in the log), skipped when it is absent; *done = 1 when it
 * happened; 0 or a failure status */
static int body_op(hg_sim *s, fire_ctx *c, hg_action_type type, const char *verb,
                   const char *body, int *done) {
  hg_topo_op op = {type, (char *)body, NULL, NULL, {{0}, {0}}, NULL};
  *done = 0;
  if (!body || hg_model_body(s->m, body) < 1)
    return detail(c, "%s %s absent: skipped", verb, body ? body : "?"), 0;
  int rc = hg_sim_topology(s, &op, 1);
  if (rc) return rc;
  *done = 1;
  detail(c, "%s %s", verb, body);
  return 0;
}

static int act_detach(hg_sim *s, fire_ctx *c, const char *body) {
  int b = body ? hg_model_body(s->m, body) : -1;
  /* a body on a free joint to the world is detached already: nothing to shield or free */
  if (b > 0 && s->m->parent[b] == 0 && s->m->jnt[b].type == HG_JOINT_FREE &&
      s->d->mode[b] == HG_MODE_FREE)
    return detail(c, "detach %s: already detached, skipped", body), 0;
  int done, rc = body_op(s, c, HG_ACTION_DETACH, "detach", body, &done);
  if (rc || !done) return rc;
  /* the new free joint to the world moves freely */
  return apply_mode(s, c, hg_model_body(s->m, body), &free_spec, HG_RECIPE_KEEP, -1, -1);
}

/* docks marker b's body to marker a's body by a locked free joint (named jname, or
 * dock_<ma>_<mb>) at their present relative pose */
/* closes loop r (a plastic impulse: its energy loss is booked as a lock's) or says why not */
static int close_loop(hg_sim *s, fire_ctx *c, int r) {
  double e = 0;
  char why[300];
  int rc = hg_sim_loop_close(s, r, &e, why, sizeof why);
  if (rc < 0) return s->failed;
  if (rc > 0) {
    s->tl.nrefused++;
    return detail(c, "REFUSED close %s: %s", s->loops.loop[r].name, why), 0;
  }
  c->e_lock += e;
  detail(c, "close loop %s (%.6g J removed%s%s)", s->loops.loop[r].name, e, why[0] ? "; " : "",
         why);
  return 0;
}

static int act_loop(hg_sim *s, fire_ctx *c, const hg_action *act, int close) {
  int r = hg_sim_loop_find(s, act->loop);
  if (r < 0) return detail(c, "%s %s: no such loop, skipped", close ? "close" : "open",
                           act->loop ? act->loop : "?"), 0;
  if (close) return close_loop(s, c, r);
  if (hg_sim_loop_open(s, r)) return detail(c, "open %s: not closed, skipped", act->loop), 0;
  detail(c, "open loop %s", act->loop);
  return 0;
}

/* docking two bodies of one tree closes a loop: a weld that holds the ports as they are */
static int dock_loop(hg_sim *s, fire_ctx *c, const char *ma, const char *mb, const char *name) {
  int r = hg_sim_loop_find(s, name);
  if (r >= 0 && s->loops.loop[r].active)
    return detail(c, "attach %s to %s: already docked, skipped", mb, ma), 0;
  if ((r = hg_sim_loop_dock(s, name, ma, mb)) < 0) return s->failed;
  detail(c, "dock %s to %s within one tree", mb, ma);
  return close_loop(s, c, r);
}

static int dock(hg_sim *s, fire_ctx *c, const char *ma, const char *mb, const char *jname) {
  int ia, ib;
  hg_se3 Ma, Mb, T;
  char joint[256];
  if (hg_sim_resolve_marker(s, ma, &ia, &Ma) || hg_sim_resolve_marker(s, mb, &ib, &Mb) || ib < 1)
    return detail(c, "attach %s to %s absent: skipped", mb ? mb : "?", ma ? ma : "?"), 0;
  if (jname) snprintf(joint, sizeof joint, "%s", jname);
  else snprintf(joint, sizeof joint, "dock_%s_%s", ma, mb);
  /* docking within one tree closes a loop */
  if (ia > 0 && s->m->root[ia] == s->m->root[ib]) return dock_loop(s, c, ma, mb, joint);
  /* re-rooting the child's tree must reverse every joint on the way up */
  const char *blocker = hg_topology_reroot_blocker(s->m, ib);
  if (blocker) {
    int j = hg_model_joint(s->m, blocker);
    s->tl.nrefused++;
    return detail(c, "REFUSED attach %s to %s: docking would re-root its tree through %s joint "
                     "%s, which cannot reverse", mb, ma,
                  hg_joint_type_name(s->m->jnt[j].type), blocker), 0;
  }
  hg_kinematics(s->m, s->d, s->state.q, s->state.v);
  if (ia > 0) hg_se3_invmul(&s->d->T_world[ia], &s->d->T_world[ib], &T);
  else T = s->d->T_world[ib];
  hg_topo_op op = {HG_ACTION_ATTACH, s->m->body_name[ib], s->m->body_name[ia], joint, T, NULL};
  char *child = hg_strdup(op.body), *parent = hg_strdup(op.parent);
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
  /* a dock that closed a loop opens it */
  int r = hg_sim_loop_find(s, act->joint);
  if (r >= 0 && !s->loops.loop[r].spec) {
    if (hg_sim_loop_open(s, r)) return detail(c, "undock %s: not docked, skipped", act->joint), 0;
    return detail(c, "undock %s: loop opened", act->joint), 0;
  }
  int i = act->joint ? hg_model_joint(s->m, act->joint) : -1;
  if (i < 1) return detail(c, "undock %s absent: skipped", act->joint ? act->joint : "?"), 0;
  if (!act->detach) return apply_mode(s, c, i, &free_spec, HG_RECIPE_KEEP, -1, -1);
  /* the body's name outlives the model that the detach replaces */
  char *body = hg_strdup(s->m->body_name[i]);
  int rc = body ? act_detach(s, c, body) : hg_sim_fail(s, HG_SIM_ERR_NUMERIC, "out of memory");
  free(body);
  return rc;
}

static int act_remove(hg_sim *s, fire_ctx *c, const char *body) {
  int done, rc = body_op(s, c, HG_ACTION_REMOVE, "remove", body, &done);
  if (done) c->ev.conserves = 0;
  return rc;
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
  /* the closed loops the added bodies complete: they close as a close action would (where their
   * markers meet, with the plastic impulse), not by appearing */
  int n = s->loops.n, *waiting = n ? calloc((size_t)n, sizeof *waiting) : NULL;
  if (n && !waiting) return hg_sim_fail(s, HG_SIM_ERR_NUMERIC, "out of memory");
  for (int r = 0; r < n; r++)
    if ((waiting[r] = s->loops.loop[r].k < 0 && s->loops.loop[r].active))
      s->loops.loop[r].active = 0; /* (absent: nothing compiled to update) */
  int rc = hg_sim_topology(s, &op, 1);
  if (!rc) {
    c->ev.conserves = 0;
    detail(c, "add %s", act->body);
  }
  for (int r = 0; r < n; r++) {
    if (!waiting[r]) continue;
    if (!rc && s->loops.loop[r].k >= 0) rc = close_loop(s, c, r);
    else if (s->loops.loop[r].k < 0) s->loops.loop[r].active = 1; /* still waiting */
  }
  free(waiting);
  return rc;
}

/* a joint's configuration and/or velocity set by hand (a perturbed state). A prescribed joint's
 * motion is its profile's, and a locked joint cannot move: those are refused. */
static int act_set_state(hg_sim *s, fire_ctx *c, const hg_action *act) {
  const hg_model *m = s->m;
  int i = act->joint ? hg_model_joint(m, act->joint) : -1;
  if (i < 1) return detail(c, "set_state %s absent: skipped", act->joint ? act->joint : "?"), 0;
  int mode = s->d->mode[i], moving = 0, leader = hg_sim_mimic_leader(m, i);
  if (leader > 0) {
    s->tl.nrefused++;
    return detail(c, "REFUSED set_state of joint %s: it follows joint %s (mimic): set the leader",
                  m->jnt_name[i], m->jnt_name[leader]), 0;
  }
  for (int k = 0; act->has_v && k < m->jnt_nv[i]; k++) moving |= act->v[k] != 0;
  if (mode == HG_MODE_PRESCRIBED || (mode == HG_MODE_LOCKED && moving)) {
    s->tl.nrefused++;
    return detail(c, "REFUSED set_state of joint %s: it is %s (free it first)", m->jnt_name[i],
                  mode_name((hg_mode)mode)), 0;
  }
  if (act->has_q) memcpy(s->state.q + m->q_adr[i], act->q, (size_t)m->jnt_nq[i] * sizeof(double));
  if (act->has_v) memcpy(s->state.v + m->v_adr[i], act->v, (size_t)m->jnt_nv[i] * sizeof(double));
  hg_mimic_project(m, s->state.q, s->state.v); /* a leader's followers come along */
  c->ev.conserves = 0;
  return detail(c, "joint %s set%s%s", m->jnt_name[i], act->has_q ? " q" : "",
                act->has_v ? " v" : ""), 0;
}

static int act_perturb(hg_sim *s, fire_ctx *c, const hg_action *act) {
  if (!act->body || hg_model_body(s->m, act->body) < 1)
    return detail(c, "perturb %s absent: skipped", act->body ? act->body : "?"), 0;
  if (act->frame && strcmp(act->frame, "com") != 0 && hg_model_body(s->m, act->frame) < 1)
    return detail(c, "perturb %s: its frame %s is absent: skipped", act->body, act->frame), 0;
  if (hg_sim_pull_start(s, act)) return s->failed;
  c->ev.conserves = 0;
  return detail(c, "pull %s to (%.6g, %.6g, %.6g) in %s", act->body, act->target[0], act->target[1],
                act->target[2], !act->frame ? "the world" : !strcmp(act->frame, "com")
                                                           ? "the centre of mass" : act->frame), 0;
}

static int act_release(hg_sim *s, fire_ctx *c) {
  int was = s->pull.forces != NULL;
  hg_sim_pull_release(s);
  c->ev.conserves = 0;
  return detail(c, was ? "release the pull" : "release: nothing pulls"), 0;
}

/* end stop k of the model: a free joint at its limit locks there (a plastic impact, whose
 * impulse waits in c->pending for the other stops of this instant: hg_sim_fire_stops), a held
 * one is released */
static int act_stop(hg_sim *s, fire_ctx *c, int k) {
  int i = s->tl.stop[k];
  const hg_joint_limits *l = &s->m->limits[i];
  double q = s->state.q[s->m->q_adr[i]];
  const char *which = q - l->lower > l->upper - q ? "upper" : "lower";
  if (s->d->mode[i] == HG_MODE_LOCKED && s->state.recipe[i].src == HG_RECIPE_STOP) {
    detail(c, "joint %s leaves its %s stop", s->m->jnt_name[i], which);
    return apply_mode(s, c, i, &free_spec, HG_RECIPE_KEEP, -1, -1);
  }
  double v = s->state.v[s->m->v_adr[i]];
  /* a rebound below 1e-6 (rad or m per second) would only start a cascade of ever smaller
   * bounces: the joint then stays at the stop */
  if (l->restitution > 0 && l->restitution * fabs(v) > 1e-6) {
    /* the impulse that reverses the joint's rate to -e v, the rest of the system free: the
     * joint prescribed for an instant at that velocity, then free again */
    static const hg_mode_spec keep = {NULL, HG_MODE_PRESCRIBED, 0, {0}, {NULL, 0, 0}};
    detail(c, "joint %s bounces off its %s stop", s->m->jnt_name[i], which);
    if (hg_sim_set_mode(s, i, &keep, HG_RECIPE_KEEP, -1, -1)) return s->failed;
    s->state.recipe[i].v0[0] = -l->restitution * v;
    if (hg_sim_build_profile(s, i)) return s->failed;
    c->pending = 1;
    int rc = flush_modes(s, c);
    return rc ? rc : hg_sim_set_mode(s, i, &free_spec, HG_RECIPE_KEEP, -1, -1) ? s->failed : 0;
  }
  detail(c, "joint %s %s its %s stop", s->m->jnt_name[i],
         hg_sim_stop_latches(s, i) ? "latches at" : "hits", which);
  if (hg_sim_set_mode(s, i, &locked_spec, HG_RECIPE_STOP, -1, -1)) return s->failed;
  detail(c, "joint %s %s", s->m->jnt_name[i], mode_name(HG_MODE_LOCKED));
  c->pending = 1; /* the impulse: hg_sim_fire's flush, with every stop of this instant */
  return 0;
}

/* actuate, set_gain, controller (sampling.c): commands and gains change what the actuators
 * apply from now on, never the state; a refused one is logged so */
static int act_control(hg_sim *s, fire_ctx *c, const hg_action *act) {
  char buf[400];
  int rc = hg_sim_control_action(s, act, buf, sizeof buf);
  if (rc == 1) {
    s->tl.nrefused++;
    return detail(c, "REFUSED %s", buf), 0;
  }
  if (rc) return rc;
  return detail(c, "%s", buf), 0;
}

static int apply_action(hg_sim *s, fire_ctx *c, int a) {
  const hg_action *act = &c->action[a];
  if (act->type != HG_ACTION_SET_MODE) {
    int rc = flush_modes(s, c);
    if (rc) return rc;
  }
  switch (act->type) {
  case HG_ACTION_SET_MODE: return act_set_mode(s, c, act, a);
  case HG_ACTION_ENABLE_FORCE: return act_force(s, c, act, 1);
  case HG_ACTION_DISABLE_FORCE: return act_force(s, c, act, 0);
  case HG_ACTION_IMPULSE: return act_impulse(s, c, act);
  case HG_ACTION_DETACH: return act_detach(s, c, act->body);
  case HG_ACTION_ATTACH: return dock(s, c, act->marker_a, act->marker_b, act->joint);
  case HG_ACTION_UNDOCK: return act_undock(s, c, act);
  case HG_ACTION_REMOVE: return act_remove(s, c, act->body);
  case HG_ACTION_ADD: return act_add(s, c, act);
  case HG_ACTION_SET_STATE: return act_set_state(s, c, act);
  case HG_ACTION_PERTURB: return act_perturb(s, c, act);
  case HG_ACTION_RELEASE: return act_release(s, c);
  case HG_ACTION_CLOSE_LOOP: return act_loop(s, c, act, 1);
  case HG_ACTION_OPEN_LOOP: return act_loop(s, c, act, 0);
  case HG_ACTION_ACTUATE:
  case HG_ACTION_SET_GAIN:
  case HG_ACTION_CONTROLLER: return act_control(s, c, act);
  }
  return 0;
}

/* ---- contact between parent and child ---- */

/* the most parent-child pairs of one contact element an event's log line names */
#define HELD_MAX 16

/* "parent\tchild\n" for each pair of parent and child each contact element leaves out now
 * (forces.h's hg_forces_contact_held), by name (names outlive topology changes); one malloc'd
 * string per element, NULL for the others; NULL when there is no contact element or no memory */
static char **held_pairs(const hg_sim *s) {
  int n = hg_forces_count(s->forces), pairs[2 * HELD_MAX];
  char **held = s->tl.ncontact ? calloc((size_t)(n > 0 ? n : 1), sizeof *held) : NULL;
  for (int k = 0; held && k < n; k++) {
    int np = hg_forces_contact_held(s->forces, k, s->m, s->d, pairs, HELD_MAX);
    size_t len = 1, at = 0;
    if (np > HELD_MAX) np = HELD_MAX;
    for (int r = 0; r < 2 * np; r++) len += strlen(s->m->body_name[pairs[r]]) + 1;
    if (!(held[k] = malloc(len))) continue;
    for (int r = 0; r < 2 * np; r++)
      at += (size_t)snprintf(held[k] + at, len - at, "%s%c", s->m->body_name[pairs[r]],
                             r % 2 ? '\n' : '\t');
    held[k][at] = 0;
  }
  return held;
}

/* 1 when the lines of list hold "parent\tchild\n", the line at pair */
static int has_line(const char *list, const char *pair) {
  size_t len = strcspn(pair, "\n") + 1;
  for (const char *p = list; p && *p; p += strcspn(p, "\n") + 1)
    if (strncmp(p, pair, len) == 0) return 1;
  return 0;
}

/* frees what held_pairs returned */
static void free_held(const hg_sim *s, char **held) {
  for (int k = 0; held && k < hg_forces_count(s->forces); k++) free(held[k]);
  free(held);
}

/* the log's word on each pair of parent and child a contact element leaves out now and did not
 * before the event (before: held_pairs then), and on each it tests again; frees before */
static void held_changes(hg_sim *s, fire_ctx *c, char **before) {
  char **after = before ? held_pairs(s) : NULL;
  int n = hg_forces_count(s->forces);
  for (int k = 0; after && k < n; k++) {
    const char *name = hg_forces_name(s->forces, k);
    char parent[256], child[256];
    for (const char *p = after[k]; p && *p; p += strcspn(p, "\n") + 1)
      if (!has_line(before[k], p) && sscanf(p, "%255[^\t]\t%255[^\n]", parent, child) == 2) {
        int j = hg_model_body(s->m, child);
        detail(c, "contact %s leaves out %s and its parent %s (joint %s %s)", name, child, parent,
               s->m->jnt_name[j], mode_name((hg_mode)s->d->mode[j]));
      }
    for (const char *p = before[k]; p && *p; p += strcspn(p, "\n") + 1)
      if (!has_line(after[k], p) && sscanf(p, "%255[^\t]\t%255[^\n]", parent, child) == 2)
        detail(c, "contact %s tests %s and %s again", name, child, parent);
  }
  free_held(s, before);
  free_held(s, after);
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
  hg_sim_momentum_scale(s, s->state.q, s->state.v, h, scale ? scale : sc);
  hg_sim_energy(s, s->state.q, s->state.v, &ke, &pe, &pel);
  *e = ke + pe + pel;
}

/* the log entry: budget terms, history, the events file */
double hg_sim_event_momentum_change(const hg_sim_event *ev) {
  double dL[3], dp[3];
  for (int k = 0; k < 3; k++) {
    dL[k] = ev->h_after[k] - ev->h_before[k];
    dp[k] = ev->h_after[3 + k] - ev->h_before[3 + k];
  }
  double a = ev->h_scale[0] > 0 ? hg_v3_norm(dL) / ev->h_scale[0] : hg_v3_norm(dL);
  double b = ev->h_scale[1] > 0 ? hg_v3_norm(dp) / ev->h_scale[1] : hg_v3_norm(dp);
  return fmax(a, b);
}

static int finish_fire(hg_sim *s, fire_ctx *c, int kind, int index) {
  measure(s, c->ev.h_after, &c->ev.e_after, NULL);
  if (!floating(s)) c->ev.conserves = 0;
  /* whatever the actions claim, an event whose momentum changed does not conserve it: events
   * that keep it do so to round-off (at most 2e-14 of the bodies' summed momenta, measured over
   * 80,000 random events in test_events_soak) */
  if (hg_sim_event_momentum_change(&c->ev) > 1e-12) c->ev.conserves = 0;
  c->ev.e_lock = c->e_lock;
  hg_sim_budget_book(s, &c->ev, c->e_lock);
  if ((kind != HG_FIRED_STOP && kind != HG_FIRED_TOUCH &&
       hg_sim_push_fired(s, kind, index, s->state.t)) ||
      hg_sim_push_log(s, &c->ev))
    return hg_sim_fail(s, HG_SIM_ERR_NUMERIC, "out of memory");
  hg_sim_resolve_triggers(s);
  s->tl.restart = 1;
  return 0;
}

static int fire_group(hg_sim *s, int kind, int index, const int *stop, int nstop);

int hg_sim_fire(hg_sim *s, int kind, int index) {
  return fire_group(s, kind, index, kind == HG_FIRED_STOP ? &index : NULL,
                    kind == HG_FIRED_STOP);
}

int hg_sim_fire_stops(hg_sim *s, const int *stop, int n) {
  return n > 0 ? fire_group(s, HG_FIRED_STOP, stop[0], stop, n) : 0;
}

/* one event: kind and index, or for stops the nstop stops stop[] */
static int fire_group(hg_sim *s, int kind, int index, const int *stop, int nstop) {
  s->views.view_ok = 0; /* a new state: the views evaluate it afresh */
  fire_ctx c;
  int rc = 0;
  memset(&c, 0, sizeof c);
  c.ev.t = s->state.t;
  c.ev.conserves = floating(s);
  if (kind == HG_FIRED_EVENT) {
    const hg_event_spec *e = &s->scene->event[index];
    c.ev.name = e->name ? e->name : "event";
    c.action = e->action, c.naction = e->naction;
    c.recipe_src = HG_RECIPE_ACTION, c.recipe_idx = index;
  } else if (kind == HG_FIRED_COMMAND) {
    const hg_command *cmd = &s->tl.cmd[index];
    c.ev.name = cmd->text ? cmd->text : "command";
    c.action = cmd->action, c.naction = cmd->naction;
    c.recipe_src = HG_RECIPE_COMMAND, c.recipe_idx = index;
  } else if (kind == HG_FIRED_STOP) {
    c.ev.name = "stop";
  } else if (kind == HG_FIRED_TOUCH) {
    c.ev.name = "impact";
  } else {
    c.ev.name = "capture";
  }
  measure(s, c.ev.h_before, &c.ev.e_before, c.ev.h_scale);
  /* (an impact changes no mode nor topology) */
  char **held = kind != HG_FIRED_TOUCH ? held_pairs(s) : NULL;
  for (int a = 0; a < c.naction && !rc; a++) rc = apply_action(s, &c, a);
  if (!rc) rc = flush_modes(s, &c);
  for (int k = 0; k < nstop && !rc; k++) rc = act_stop(s, &c, stop[k]);
  if (!rc) rc = flush_modes(s, &c); /* the stops' locks: one impulse */
  if (!rc && kind == HG_FIRED_TOUCH) rc = act_touch(s, &c, index);
  if (!rc && kind == HG_FIRED_CAPTURE)
    rc = dock(s, &c, s->scene->capture[index].marker_a, s->scene->capture[index].marker_b,
              s->scene->capture[index].joint);
  if (!rc) held_changes(s, &c, held);
  else free_held(s, held);
  if (rc) return rc;
  return finish_fire(s, &c, kind, index);
}

int hg_sim_drop_command(hg_sim *s, int k) {
  hg_sim_event ev;
  memset(&ev, 0, sizeof ev);
  ev.t = s->state.t;
  ev.name = s->tl.cmd[k].text ? s->tl.cmd[k].text : "command";
  measure(s, ev.h_before, &ev.e_before, ev.h_scale);
  memcpy(ev.h_after, ev.h_before, sizeof ev.h_after);
  ev.e_after = ev.e_before;
  ev.conserves = floating(s);
  snprintf(ev.details, sizeof ev.details,
           "REFUSED: dropped, its time %.9g s is after the end of the run (%.9g s)",
           s->tl.cmd[k].t, s->t_end);
  s->tl.cmd_fired[k] = 1; /* told once */
  s->tl.nrefused++;
  if (hg_sim_push_log(s, &ev)) return hg_sim_fail(s, HG_SIM_ERR_NUMERIC, "out of memory");
  return 0;
}
