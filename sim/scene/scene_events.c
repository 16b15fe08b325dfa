/* scene_events.c: docking captures and the timeline of events (triggers and actions). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scene_internal.h"

/* ---- docking joints ---- */

/* "dock_A_B", malloc'd */
static char *dock_name(const char *a, const char *b) {
  size_t n = strlen(a) + strlen(b) + 7;
  char *s = malloc(n);
  if (s) snprintf(s, n, "dock_%s_%s", a, b);
  return s;
}

int hg_sc_add_dock(hg_sctx *c, char *name) {
  char **grown;
  if (!name) return -1;
  for (int k = 0; k < c->ndock; k++)
    if (strcmp(c->dock[k], name) == 0) {
      free(name);
      return 0;
    }
  grown = realloc(c->dock, ((size_t)c->ndock + 1) * sizeof *grown);
  if (!grown) {
    free(name);
    return -1;
  }
  c->dock = grown;
  c->dock[c->ndock++] = name;
  return 0;
}

/* the joint an attach mapping names, or dock_A_B from its markers; NULL when it names neither */
static char *attach_dock(hg_sctx *c, const hg_ynode *n) {
  const char *j = hg_ydoc_text(hg_ydoc_get(&c->doc, n, "joint"));
  const char *a = hg_ydoc_text(hg_ydoc_get(&c->doc, n, "parent_marker"));
  const char *b = hg_ydoc_text(hg_ydoc_get(&c->doc, n, "child_marker"));
  if (j) return hg_strdup(j);
  return a && b ? dock_name(a, b) : NULL;
}

/* the attach actions of one event's 'do' list (read in full later) */
static int docks_of_event(hg_sctx *c, const hg_ynode *ev) {
  const hg_ynode *list = hg_ydoc_is_map(ev) ? hg_ydoc_get(&c->doc, ev, "do") : NULL;
  for (int k = 0; hg_ydoc_is_seq(list) && k < hg_ydoc_len(list); k++) {
    const hg_ynode *at = hg_ydoc_get(&c->doc, hg_ydoc_item(&c->doc, list, k), "attach");
    char *name = hg_ydoc_is_map(at) ? attach_dock(c, at) : NULL;
    if (name && hg_sc_add_dock(c, name)) return hg_ydoc_fail(&c->doc, at, "out of memory");
  }
  return 0;
}

int hg_sc_docks(hg_sctx *c, const hg_ynode *events) {
  for (int k = 0; k < c->s->ncapture; k++)
    if (hg_sc_add_dock(c, hg_strdup(c->s->capture[k].joint)))
      return hg_ydoc_fail(&c->doc, events, "out of memory");
  for (int k = 0; hg_ydoc_is_seq(events) && k < hg_ydoc_len(events); k++)
    if (docks_of_event(c, hg_ydoc_item(&c->doc, events, k))) return -1;
  return 0;
}

/* the name of a new docking joint: given or dock_A_B, and not a joint of the model */
static int dock_joint(hg_sctx *c, const hg_ynode *n, const char *a, const char *b, char **out) {
  const hg_ynode *jn = hg_ydoc_get(&c->doc, n, "joint");
  const char *given = NULL;
  if (hg_yget_name(&c->doc, n, "joint", &given)) return -1;
  *out = given ? hg_strdup(given) : dock_name(a, b);
  if (!*out) return hg_ydoc_fail(&c->doc, n, "out of memory");
  if (hg_model_joint(c->m, *out) >= 0)
    return hg_ydoc_fail(&c->doc, jn ? jn : n,
                        "the docking joint's name '%s' is taken by a joint of the model%s", *out,
                        jn ? "" : "; name it with 'joint'");
  for (int k = 0; k < c->s->nloop; k++)
    if (strcmp(c->s->loop[k].name, *out) == 0)
      return hg_ydoc_fail(&c->doc, jn ? jn : n,
                          "the docking joint's name '%s' is taken by a loop%s", *out,
                          jn ? "" : "; name it with 'joint'");
  return 0;
}

/* two markers on different bodies (for a capture, ports of one type) */
static int marker_pair(hg_sctx *c, const hg_ynode *na, const hg_ynode *nb, int ports,
                       const hg_marker **a, const hg_marker **b) {
  if (hg_sc_marker_ref(c, na, "a marker", a) || hg_sc_marker_ref(c, nb, "a marker", b)) return -1;
  if (strcmp((*a)->body, (*b)->body) == 0)
    return hg_ydoc_fail(&c->doc, nb, "markers '%s' and '%s' are both on body '%s'", (*a)->name,
                        (*b)->name, (*a)->body);
  if (!ports) return 0;
  if (!(*a)->port || !(*b)->port || strcmp((*a)->port, (*b)->port) != 0)
    return hg_ydoc_fail(
        &c->doc, nb, "markers '%s' and '%s' are not docking ports of one type (port '%s' and '%s')",
        (*a)->name, (*b)->name, (*a)->port ? (*a)->port : "", (*b)->port ? (*b)->port : "");
  return 0;
}

/* ---- captures ---- */

/* the keys of a capture */
static const char *const capture_keys[] = {"ports",     "position_tol", "angle_tol",
                                           "speed_tol", "joint",        NULL};

/* one capture: two ports of one type, tolerances, the joint it creates */
static int capture(hg_sctx *c, const hg_ynode *n, int k) {
  hg_capture_spec *cap = &c->s->capture[k];
  const hg_ynode *pn;
  const hg_marker *a, *b;
  cap->position_tol = 0.01;
  cap->angle_tol = 0.05;
  cap->speed_tol = 0.1;
  cap->src = hg_sc_src(c, n);
  if (hg_ydoc_check_keys(&c->doc, n, "capture", capture_keys) ||
      !(pn = hg_sc_required(c, n, "ports", "capture")) ||
      hg_ydoc_expect_seq(&c->doc, pn, "'ports' (two docking-port markers)"))
    return -1;
  if (hg_ydoc_len(pn) != 2)
    return hg_ydoc_fail(&c->doc, pn, "expected two markers for 'ports', got %d", hg_ydoc_len(pn));
  if (marker_pair(c, hg_ydoc_item(&c->doc, pn, 0), hg_ydoc_item(&c->doc, pn, 1), 1, &a, &b) ||
      hg_sc_strdup(c, pn, a->name, &cap->marker_a) ||
      hg_sc_strdup(c, pn, b->name, &cap->marker_b) ||
      dock_joint(c, n, a->name, b->name, &cap->joint))
    return -1;
  if (hg_sc_positive(c, n, "position_tol", &cap->position_tol) ||
      hg_sc_positive(c, n, "angle_tol", &cap->angle_tol) ||
      hg_sc_positive(c, n, "speed_tol", &cap->speed_tol))
    return -1;
  return 0;
}

int hg_sc_capture(hg_sctx *c, const hg_ynode *list) {
  return hg_sc_seq(c, list, "'capture'", sizeof *c->s->capture, (void **)&c->s->capture,
                   &c->s->ncapture, capture);
}

/* ---- actions ---- */

/* in hg_action_type order */
static const char *const action_names[] = {"set_mode", "enable",    "disable", "impulse",
                                           "detach",   "attach",    "undock",  "remove",
                                           "add",      "set_state", "perturb", "release",
                                           "close",    "open",      "actuate", "set_gain",
                                           "controller"};
#define NACTION ((int)(sizeof action_names / sizeof action_names[0]))
/* the keys of the actions that take a mapping */
static const char *const set_mode_keys[] = {"joint", "mode", "profile", NULL};
static const char *const impulse_keys[] = {"body", "marker", "linear", "angular", "frame", NULL};
static const char *const attach_keys[] = {"parent_marker", "child_marker", "joint", NULL};
static const char *const undock_keys[] = {"joint", "detach", NULL};
static const char *const add_keys[] = {"body", "at_marker", "pos",   "quat",
                                       "rpy",  "rpy_deg",   "twist", NULL};
static const char *const set_state_keys[] = {"joint", "q", "v", NULL};
static const char *const perturb_keys[] = {"body", "point", "target", "stiffness", "damping", "frame", NULL};

/* an action on a joint (set_mode, undock): its keys checked, its required 'joint' (name and joint)
 * copied to a->joint */
static int joint_action(hg_sctx *c, const hg_ynode *n, const char *action,
                        const char *const *keys, hg_action *a, const char **joint, hg_joint *j) {
  const hg_ynode *jn;
  if (hg_ydoc_check_keys(&c->doc, n, action, keys) ||
      !(jn = hg_sc_required(c, n, "joint", action)) ||
      hg_sc_joint_ref(c, jn, "'joint'", joint, j) || hg_sc_strdup(c, jn, *joint, &a->joint))
    return -1;
  return 0;
}

/* set_mode: a joint and its new mode */
static int set_mode(hg_sctx *c, const hg_ynode *n, hg_action *a) {
  const char *joint;
  hg_joint j;
  if (joint_action(c, n, "set_mode", set_mode_keys, a, &joint, &j)) return -1;
  return hg_sc_mode(c, n, joint, &j, 1, &a->mode);
}

/* enable, disable: a force element by name */
static int force_switch(hg_sctx *c, const hg_ynode *n, hg_action *a) {
  const char *name;
  if (hg_sc_force_ref(c, n, "a force element", &name) || hg_sc_strdup(c, n, name, &a->force))
    return -1;
  return 0;
}

/* a body by name (detach, remove) */
static int body_action(hg_sctx *c, const hg_ynode *n, hg_action *a) {
  const char *name;
  if (hg_sc_body_ref(c, n, "a body", &name, NULL) || hg_sc_strdup(c, n, name, &a->body)) return -1;
  return 0;
}

/* impulse at a marker (its body) or at a body's origin */
static int impulse(hg_sctx *c, const hg_ynode *n, hg_action *a) {
  const hg_ynode *bn, *mn;
  const hg_marker *mk = NULL;
  const char *body = NULL;
  if (hg_ydoc_check_keys(&c->doc, n, "impulse", impulse_keys)) return -1;
  bn = hg_ydoc_get(&c->doc, n, "body");
  mn = hg_ydoc_get(&c->doc, n, "marker");
  if (!bn && !mn) return hg_ydoc_fail(&c->doc, n, "an impulse needs a 'body' or a 'marker'");
  if ((bn && hg_sc_body_ref(c, bn, "'body'", &body, NULL)) ||
      (mn && hg_sc_marker_ref(c, mn, "'marker'", &mk)))
    return -1;
  if (mk && body && strcmp(mk->body, body) != 0)
    return hg_ydoc_fail(&c->doc, mn, "marker '%s' is on body '%s', not '%s'", mk->name, mk->body,
                        body);
  if (hg_sc_strdup(c, n, mk ? mk->body : body, &a->body) ||
      (mk && hg_sc_strdup(c, mn, mk->name, &a->marker_a)))
    return -1;
  if (hg_yget_vec(&c->doc, n, "linear", 3, a->linear) ||
      hg_yget_vec(&c->doc, n, "angular", 3, a->angular))
    return -1;
  /* frame: world (default) or body, the axes of linear and angular */
  static const char *const frames[] = {"world", "body"};
  const hg_ynode *fn = hg_ydoc_get(&c->doc, n, "frame");
  return fn && hg_ydoc_choice(&c->doc, fn, "impulse frame", frames, 2, &a->body_axes) ? -1 : 0;
}

/* attach: two markers on different bodies and the docking joint's name */
static int attach(hg_sctx *c, const hg_ynode *n, hg_action *a) {
  const hg_ynode *pn, *cn;
  const hg_marker *ma, *mb;
  if (hg_ydoc_check_keys(&c->doc, n, "attach", attach_keys) ||
      !(pn = hg_sc_required(c, n, "parent_marker", "attach")) ||
      !(cn = hg_sc_required(c, n, "child_marker", "attach")) || marker_pair(c, pn, cn, 0, &ma, &mb))
    return -1;
  if (hg_sc_strdup(c, pn, ma->name, &a->marker_a) || hg_sc_strdup(c, cn, mb->name, &a->marker_b))
    return -1;
  return dock_joint(c, n, ma->name, mb->name, &a->joint);
}

/* undock: a joint (of the model or a docking one), detach or not */
static int undock(hg_sctx *c, const hg_ynode *n, hg_action *a) {
  const char *joint;
  hg_joint j;
  if (joint_action(c, n, "undock", undock_keys, a, &joint, &j)) return -1;
  return hg_yget_bool(&c->doc, n, "detach", &a->detach);
}

/* the keys that place an added body need it to hang on a free joint */
static int placement_applies(hg_sctx *c, const hg_ynode *n, int i) {
  const hg_joint *j = &c->m->jnt[i];
  if (j->type == HG_JOINT_FREE) return 0;
  for (int k = 1; add_keys[k]; k++) {
    const hg_ynode *key = hg_ydoc_key(&c->doc, n, add_keys[k]);
    if (key)
      return hg_ydoc_fail(&c->doc, key,
                          "'%s' places a body on a free joint, but '%s' hangs on a %s joint (give "
                          "its joint's state under initial: joints)",
                          add_keys[k], c->m->body_name[i], hg_joint_type_name(j->type));
  }
  return 0;
}

/* the marker an added body is placed at: on a body the add does not bring */
static int add_marker(hg_sctx *c, const hg_ynode *n, int i, hg_action *a) {
  const hg_ynode *mn = hg_ydoc_get(&c->doc, n, "at_marker");
  const hg_marker *mk;
  int b;
  if (!mn) return 0;
  if (hg_sc_marker_ref(c, mn, "'at_marker'", &mk)) return -1;
  b = hg_model_body(c->m, mk->body);
  if (b >= i && b < c->m->subtree_end[i])
    return hg_ydoc_fail(&c->doc, mn,
                        "marker '%s' is on body '%s', which this add brings: place '%s' at a "
                        "marker of a body already there", mk->name, mk->body, c->m->body_name[i]);
  return hg_sc_strdup(c, mn, mk->name, &a->marker_a);
}

/* add: a body absent at the start, with its pose and twist when it hangs on a free joint */
static int add(hg_sctx *c, const hg_ynode *n, hg_action *a) {
  const hg_ynode *bn;
  const char *name;
  int i;
  if (hg_ydoc_check_keys(&c->doc, n, "add", add_keys) ||
      !(bn = hg_sc_required(c, n, "body", "add")) || hg_sc_body_ref(c, bn, "'body'", &name, &i) ||
      hg_sc_add_root(c, bn, i) || placement_applies(c, n, i) || hg_sc_strdup(c, bn, name, &a->body))
    return -1;
  if (add_marker(c, n, i, a) || hg_sc_pose(c, n, &a->pose) || hg_sc_twist(c, n, a->twist))
    return -1;
  return 0;
}

/* set_state: a joint's new configuration (nq numbers, quaternions normalized) and/or velocity */
static int set_state(hg_sctx *c, const hg_ynode *n, hg_action *a) {
  const hg_ynode *jn, *qn, *vn;
  const char *joint;
  hg_joint j;
  if (hg_ydoc_check_keys(&c->doc, n, "set_state", set_state_keys) ||
      !(jn = hg_sc_required(c, n, "joint", "set_state")) ||
      hg_sc_joint_ref(c, jn, "'joint'", &joint, &j) || hg_sc_strdup(c, jn, joint, &a->joint))
    return -1;
  if (j.type == HG_JOINT_FIXED) return hg_ydoc_fail(&c->doc, jn, "joint '%s' is fixed", joint);
  qn = hg_ydoc_get(&c->doc, n, "q");
  vn = hg_ydoc_get(&c->doc, n, "v");
  if (!qn && !vn) return hg_ydoc_fail(&c->doc, n, "set_state needs 'q', 'v' or both");
  if (qn && hg_sc_joint_q(c, qn, "'q'", &j, a->q)) return -1;
  if (vn && hg_sc_joint_v(c, vn, "'v'", &j, a->v)) return -1;
  a->has_q = qn != NULL;
  a->has_v = vn != NULL;
  return 0;
}

/* perturb: a body's point pulled to a target by a spring-damper (a hand, a mouse); the target is
 * fixed in the world, or in the body named by frame */
static int perturb(hg_sctx *c, const hg_ynode *n, hg_action *a) {
  const hg_ynode *bn, *fn;
  const char *body, *frame;
  if (hg_ydoc_check_keys(&c->doc, n, "perturb", perturb_keys) ||
      !(bn = hg_sc_required(c, n, "body", "perturb")) ||
      hg_sc_body_ref(c, bn, "'body'", &body, NULL) || hg_sc_strdup(c, bn, body, &a->body) ||
      !hg_sc_required(c, n, "target", "perturb") || !hg_sc_required(c, n, "stiffness", "perturb"))
    return -1;
  if (hg_yget_vec(&c->doc, n, "point", 3, a->point) ||
      hg_yget_vec(&c->doc, n, "target", 3, a->target) ||
      hg_sc_positive(c, n, "stiffness", &a->stiffness) || hg_sc_nonneg(c, n, "damping", &a->damping))
    return -1;
  if ((fn = hg_ydoc_get(&c->doc, n, "frame")) && hg_ydoc_text(fn) && strcmp(hg_ydoc_text(fn), "world") != 0) {
    if (!strcmp(hg_ydoc_text(fn), "com")) return hg_sc_strdup(c, fn, "com", &a->frame);
    if (hg_sc_body_ref(c, fn, "'frame'", &frame, NULL) || hg_sc_strdup(c, fn, frame, &a->frame)) return -1;
    if (!strcmp(a->frame, a->body)) return hg_ydoc_fail(&c->doc, fn, "perturb: 'frame' is the pulled body itself");
  }
  return 0;
}

/* release: no arguments (an empty mapping or nothing) */
static int release(hg_sctx *c, const hg_ynode *n, hg_action *a) {
  (void)a;
  if (hg_ydoc_is_scalar(n) && hg_ydoc_text(n) && hg_ydoc_text(n)[0] &&
      strcmp(hg_ydoc_text(n), "~") != 0 && strcmp(hg_ydoc_text(n), "null") != 0)
    return hg_ydoc_fail(&c->doc, n, "release takes no arguments");
  if (hg_ydoc_is_map(n) && hg_ydoc_len(n) > 0)
    return hg_ydoc_fail(&c->doc, n, "release takes no arguments");
  return 0;
}

/* close, open: a loop by name (of the scene, or a docking joint's, which an attach between bodies
 * of one tree makes a loop) */
static int loop_switch(hg_sctx *c, const hg_ynode *n, hg_action *a) {
  const char *name;
  if (hg_sc_loop_ref(c, n, "a loop", &name) || hg_sc_strdup(c, n, name, &a->loop)) return -1;
  return 0;
}

/* one action: a mapping with a single key naming it */
int hg_sc_action(hg_sctx *c, const hg_ynode *n, hg_action *a) {
  static int (*const read[])(hg_sctx *, const hg_ynode *, hg_action *) = {
      set_mode, force_switch, force_switch, impulse, body_action, attach,
      undock,   body_action,  add,          set_state, perturb,   release,
      loop_switch, loop_switch, hg_sc_actuate, hg_sc_set_gain, hg_sc_controller_switch};
  const hg_ynode *key;
  int t;
  a->src = hg_sc_src(c, n);
  hg_se3_identity(&a->pose);
  if (hg_ydoc_expect_map(&c->doc, n, "an action")) return -1;
  if (hg_ydoc_len(n) != 1)
    return hg_ydoc_fail(&c->doc, n,
                        "an action is a mapping with one key (set_mode, enable, disable, impulse, "
                        "detach, attach, undock, remove, add, set_state, perturb, release, close, "
                        "open, actuate, set_gain or controller), got %d keys",
                        hg_ydoc_len(n));
  key = hg_ydoc_pair_key(&c->doc, n, 0);
  if (hg_ydoc_choice(&c->doc, key, "action", action_names, NACTION, &t)) return -1;
  a->type = (hg_action_type)t;
  return read[t](c, hg_ydoc_pair_value(&c->doc, n, 0), a);
}

/* ---- triggers ---- */

/* the keys of an event and of its condition */
static const char *const event_keys[] = {"name", "at", "when", "once", "do", NULL};
static const char *const when_keys[] = {"distance", "joint",     "load",  "altitude",
                                        "speed",    "clearance", "dof",   "crosses",
                                        "direction", "below",    "above", NULL};
/* the condition keys of 'when', in trigger order from HG_TRIGGER_DISTANCE */
static const char *const conditions[] = {"distance", "joint", "load", "altitude", "speed",
                                         "clearance"};
#define NCONDITION ((int)(sizeof conditions / sizeof conditions[0]))
static const char *const directions[] = {"either", "rising", "falling"};

/* which condition key a 'when' holds (exactly one) */
static int condition(hg_sctx *c, const hg_ynode *n, int *which) {
  *which = -1;
  for (int k = 0; k < NCONDITION; k++) {
    const hg_ynode *key = hg_ydoc_key(&c->doc, n, conditions[k]);
    if (!key) continue;
    if (*which >= 0)
      return hg_ydoc_fail(&c->doc, key,
                          "a condition watches one quantity: give '%s' or '%s', not both",
                          conditions[*which], conditions[k]);
    *which = k;
  }
  if (*which < 0)
    return hg_ydoc_fail(
        &c->doc, n,
        "a condition needs one of 'distance', 'joint', 'load', 'altitude', 'speed', 'clearance'");
  return 0;
}

/* joint and dof of a joint or load condition */
static int joint_dof(hg_sctx *c, const hg_ynode *n, const hg_ynode *jn, int coords,
                     hg_event_spec *e) {
  const char *joint;
  hg_joint j;
  int ndof;
  if (hg_sc_joint_ref(c, jn, "a joint", &joint, &j) || hg_sc_strdup(c, jn, joint, &e->joint) ||
      hg_yget_integer(&c->doc, n, "dof", &e->dof))
    return -1;
  ndof = coords ? hg_joint_nq(j.type) : hg_joint_nv(j.type);
  if (ndof == 0) return hg_ydoc_fail(&c->doc, jn, "joint '%s' is fixed: nothing to watch", joint);
  if (e->dof < 0 || e->dof >= ndof)
    return hg_ydoc_fail(&c->doc, hg_ydoc_get(&c->doc, n, "dof"),
                        "'dof' must be in [0, %d] for joint '%s', got %d", ndof - 1, joint, e->dof);
  return 0;
}

int hg_sc_body_set(hg_sctx *c, const hg_ynode *n, int *count, char ***names) {
  int seq = hg_ydoc_is_seq(n), len = seq ? hg_ydoc_len(n) : 1;
  if (seq && len == 0) return hg_ydoc_fail(&c->doc, n, "a side lists no body");
  if (hg_sc_alloc(c, n, len, sizeof **names, (void **)names)) return -1;
  for (int k = 0; k < len; k++) {
    const hg_ynode *item = seq ? hg_ydoc_item(&c->doc, n, k) : n;
    const char *body;
    *count = k + 1;
    if (hg_sc_body_ref(c, item, "a body", &body, NULL) ||
        hg_sc_strdup(c, item, body, &(*names)[k]))
      return -1;
  }
  return 0;
}

/* clearance: [A, B], each side a body or a list of bodies */
static int clearance(hg_sctx *c, const hg_ynode *v, hg_event_spec *e) {
  if (hg_ydoc_expect_seq(&c->doc, v, "'clearance' (two bodies or body lists)")) return -1;
  if (hg_ydoc_len(v) != 2)
    return hg_ydoc_fail(&c->doc, v, "expected two sides for 'clearance', got %d", hg_ydoc_len(v));
  for (int k = 0; k < 2; k++)
    if (hg_sc_body_set(c, hg_ydoc_item(&c->doc, v, k), &e->nset[k], &e->set[k])) return -1;
  return 0;
}

/* the quantity a condition watches */
static int watched(hg_sctx *c, const hg_ynode *n, int which, hg_event_spec *e) {
  const hg_ynode *v = hg_ydoc_get(&c->doc, n, conditions[which]);
  const hg_marker *a, *b;
  const char *body;
  e->trigger = (hg_trigger_type)(HG_TRIGGER_DISTANCE + which);
  if (which != 1 && which != 2 && hg_ydoc_get(&c->doc, n, "dof"))
    return hg_ydoc_fail(&c->doc, hg_ydoc_key(&c->doc, n, "dof"),
                        "'dof' applies to 'joint' and 'load' conditions only");
  if (which == 1 || which == 2) return joint_dof(c, n, v, which == 1, e);
  if (which == 5) return clearance(c, v, e);
  if (which >= 3) {
    if (hg_sc_body_ref(c, v, "a body", &body, NULL) || hg_sc_strdup(c, v, body, &e->body))
      return -1;
    return 0;
  }
  if (hg_ydoc_is_seq(v) && hg_ydoc_len(v) != 2)
    return hg_ydoc_fail(&c->doc, v, "expected two markers for 'distance', got %d", hg_ydoc_len(v));
  if (hg_ydoc_expect_seq(&c->doc, v, "'distance' (two markers)") ||
      marker_pair(c, hg_ydoc_item(&c->doc, v, 0), hg_ydoc_item(&c->doc, v, 1), 0, &a, &b))
    return -1;
  if (hg_sc_strdup(c, v, a->name, &e->marker_a) || hg_sc_strdup(c, v, b->name, &e->marker_b))
    return -1;
  return 0;
}

/* 'below: X' (falling through X) or 'above: X' (rising through X), instead of crosses and
 * direction; 0 when neither is given (*dir untouched), 1 when one was read, -1 on an error */
static int below_above(hg_sctx *c, const hg_ynode *n, hg_event_spec *e, int *dir) {
  const hg_ynode *bn = hg_ydoc_get(&c->doc, n, "below"), *an = hg_ydoc_get(&c->doc, n, "above");
  const hg_ynode *given = bn ? bn : an;
  if (!given) return 0;
  const char *other = bn && an ? "above" : hg_ydoc_get(&c->doc, n, "crosses") ? "crosses"
                                 : hg_ydoc_get(&c->doc, n, "direction")       ? "direction"
                                                                              : NULL;
  if (other)
    return hg_ydoc_fail(&c->doc, hg_ydoc_key(&c->doc, n, other),
                        "give 'below' or 'above' alone, or 'crosses' with 'direction'");
  if (hg_ydoc_number(&c->doc, given, bn ? "'below'" : "'above'", 0, &e->value)) return -1;
  *dir = bn ? 2 : 1;
  return 1;
}

/* when: {QUANTITY, crosses, direction} or {QUANTITY, below | above} */
static int when(hg_sctx *c, const hg_ynode *n, hg_event_spec *e) {
  const hg_ynode *cn = NULL;
  int which, dir = 0, ba;
  if (hg_ydoc_check_keys(&c->doc, n, "'when'", when_keys) || condition(c, n, &which) ||
      watched(c, n, which, e) || (ba = below_above(c, n, e, &dir)) < 0)
    return -1;
  if (ba) {
    e->direction = dir == 1 ? 1 : -1;
    return 0;
  }
  if (!(cn = hg_sc_required(c, n, "crosses", "'when'")) ||
      hg_ydoc_number(&c->doc, cn, "'crosses'", 0, &e->value))
    return -1;
  if ((e->trigger == HG_TRIGGER_DISTANCE || e->trigger == HG_TRIGGER_SPEED) && e->value < 0)
    return hg_ydoc_fail(&c->doc, cn, "a %s never crosses a negative value (%g)", conditions[which],
                        e->value);
  if (hg_ydoc_get(&c->doc, n, "direction") &&
      hg_ydoc_choice(&c->doc, hg_ydoc_get(&c->doc, n, "direction"), "direction", directions, 3,
                     &dir))
    return -1;
  e->direction = dir == 0 ? 0 : dir == 1 ? 1 : -1;
  return 0;
}

/* at: a time, or when: a condition */
static int trigger(hg_sctx *c, const hg_ynode *n, hg_event_spec *e) {
  const hg_ynode *at = hg_ydoc_get(&c->doc, n, "at"), *wn = hg_ydoc_get(&c->doc, n, "when");
  if (at && wn)
    return hg_ydoc_fail(&c->doc, hg_ydoc_key(&c->doc, n, "when"),
                        "give 'at' (a time) or 'when' (a condition), not both");
  if (!at && !wn)
    return hg_ydoc_fail(&c->doc, n, "an event needs 'at' (a time) or 'when' (a condition)");
  if (wn) return when(c, wn, e);
  e->trigger = HG_TRIGGER_TIME;
  if (hg_ydoc_number(&c->doc, at, "'at'", 0, &e->time) ||
      hg_sc_bounded(c, at, "event time", &e->time, 1, HG_SC_MAX_TIME, "s"))
    return -1;
  if (e->time < c->s->t_start)
    return hg_ydoc_fail(&c->doc, at, "event time %g is before the start time %g", e->time,
                        c->s->t_start);
  return 0;
}

/* ---- events ---- */

/* the name: given or "eventN"; unique among events */
static int event_name(hg_sctx *c, const hg_ynode *n, hg_event_spec *e, int k) {
  const hg_ynode *nn = hg_ydoc_get(&c->doc, n, "name");
  const char *name = NULL;
  char def[32];
  snprintf(def, sizeof def, "event%d", k + 1);
  if (hg_yget_name(&c->doc, n, "name", &name)) return -1;
  if (!name) name = def;
  for (int j = 0; j < k; j++)
    if (strcmp(c->s->event[j].name, name) == 0)
      return hg_ydoc_fail(&c->doc, nn ? nn : n, "duplicate event name '%s' (first at line %d)",
                          name, c->s->event[j].src.line);
  return hg_sc_strdup(c, n, name, &e->name);
}

/* do: a non-empty list of actions */
static int actions(hg_sctx *c, const hg_ynode *n, hg_event_spec *e) {
  const hg_ynode *list = hg_sc_required(c, n, "do", "event");
  int count = hg_ydoc_len(list);
  if (!list || hg_ydoc_expect_seq(&c->doc, list, "'do' (a list of actions)")) return -1;
  if (count == 0) return hg_ydoc_fail(&c->doc, list, "'do' lists no action");
  if (hg_sc_alloc(c, list, count, sizeof *e->action, (void **)&e->action)) return -1;
  for (int k = 0; k < count; k++) {
    e->naction = k + 1;
    if (hg_sc_action(c, hg_ydoc_item(&c->doc, list, k), &e->action[k])) return -1;
  }
  return 0;
}

/* one event: name, trigger, once, actions */
static int event(hg_sctx *c, const hg_ynode *n, int k) {
  hg_event_spec *e = &c->s->event[k];
  e->once = 1;
  e->src = hg_sc_src(c, n);
  if (hg_ydoc_check_keys(&c->doc, n, "event", event_keys) || event_name(c, n, e, k) ||
      trigger(c, n, e) || hg_yget_bool(&c->doc, n, "once", &e->once))
    return -1;
  return actions(c, n, e);
}

int hg_sc_events(hg_sctx *c, const hg_ynode *list) {
  return hg_sc_seq(c, list, "'events'", sizeof *c->s->event, (void **)&c->s->event,
                   &c->s->nevent, event);
}
