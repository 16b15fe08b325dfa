/* scene_bodies.c: the scene's bodies, joints, markers and URDF includes, and the model check. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scene_internal.h"
#include "urdf.h"
#include "mjcf.h"

/* ---- joints ---- */

/* the keys of a joint mapping and of its limits */
static const char *const joint_keys[] = {"type", "name", "axis",    "axis2",  "pitch", "pos",
                                         "quat", "rpy",  "rpy_deg", "limits", NULL};
static const char *const limit_keys[] = {"lower",       "upper", "effort", "velocity",
                                         "restitution", "latch", NULL};

/* 1 when a joint key has a meaning for the type */
static int joint_key_applies(const char *key, hg_joint_type t) {
  if (strcmp(key, "axis") == 0)
    return t != HG_JOINT_FIXED && t != HG_JOINT_SPHERICAL && t != HG_JOINT_FREE;
  if (strcmp(key, "axis2") == 0) return t == HG_JOINT_UNIVERSAL || t == HG_JOINT_PLANAR;
  if (strcmp(key, "pitch") == 0) return t == HG_JOINT_HELICAL;
  if (strcmp(key, "limits") == 0) return hg_joint_nv(t) == 1;
  return 1;
}

int hg_sc_joint_type(hg_sctx *c, const hg_ynode *n, hg_joint_type *t) {
  const char *names[HG_JOINT_NTYPES];
  int k;
  for (k = 0; k < HG_JOINT_NTYPES; k++) names[k] = hg_joint_type_name((hg_joint_type)k);
  if (hg_ydoc_choice(&c->doc, n, "joint type", names, HG_JOINT_NTYPES, &k)) return -1;
  *t = (hg_joint_type)k;
  return 0;
}

/* latch: true (both stops, as before one-sided latches existed), false, or the stop that latches:
 * lower, upper or both; into the mask of HG_LATCH_LOWER and HG_LATCH_UPPER */
static int joint_latch(hg_sctx *c, const hg_ynode *n, int *latch) {
  static const char *const sides[] = {"lower", "upper", "both"};
  static const char *const flags[] = {"true", "True", "TRUE", "yes", "Yes", "on", "On",
                                      "false", "False", "FALSE", "no", "No", "off", "Off"};
  const hg_ynode *v = hg_ydoc_get(&c->doc, n, "latch");
  const char *t = hg_ydoc_text(v);
  int on;
  *latch = 0;
  if (!v) return 0;
  for (int k = 0; t && k < 3; k++)
    if (strcmp(t, sides[k]) == 0) return *latch = k + 1, 0; /* 1, 2, 3: the masks */
  for (int k = 0; t && k < (int)(sizeof flags / sizeof flags[0]); k++)
    if (strcmp(t, flags[k]) == 0) {
      if (hg_ydoc_bool(&c->doc, v, "joint limits 'latch'", &on)) return -1;
      return *latch = on ? HG_LATCH_BOTH : 0, 0;
    }
  return hg_ydoc_fail(&c->doc, v, "joint limits: 'latch' must be true, false, lower, upper or "
                                  "both, got '%s'", t ? t : "a list or mapping");
}

/* limits: {lower, upper} together, effort and velocity each >= 0 */
static int joint_limits(hg_sctx *c, const hg_ynode *n, hg_joint_limits *L) {
  const hg_ynode *lo, *up;
  if (hg_ydoc_check_keys(&c->doc, n, "joint limits", limit_keys)) return -1;
  lo = hg_ydoc_get(&c->doc, n, "lower");
  up = hg_ydoc_get(&c->doc, n, "upper");
  if ((lo != NULL) != (up != NULL))
    return hg_ydoc_fail(&c->doc, n, "joint limits need both 'lower' and 'upper' (or neither)");
  if (hg_yget_number(&c->doc, n, "lower", &L->lower) ||
      hg_yget_number(&c->doc, n, "upper", &L->upper))
    return -1;
  if (lo && L->lower > L->upper)
    return hg_ydoc_fail(&c->doc, up, "joint limits: 'upper' (%g) is below 'lower' (%g)", L->upper,
                        L->lower);
  L->has_position = lo != NULL;
  L->has_effort = hg_ydoc_get(&c->doc, n, "effort") != NULL;
  L->has_velocity = hg_ydoc_get(&c->doc, n, "velocity") != NULL;
  if (hg_sc_nonneg(c, n, "effort", &L->effort) || hg_sc_nonneg(c, n, "velocity", &L->velocity) ||
      hg_sc_nonneg(c, n, "restitution", &L->restitution) || joint_latch(c, n, &L->latch))
    return -1;
  if (L->restitution > 1)
    return hg_ydoc_fail(&c->doc, hg_ydoc_get(&c->doc, n, "restitution"),
                        "joint limits: 'restitution' must be in [0, 1], got %g", L->restitution);
  if ((L->restitution > 0 || L->latch) && !lo)
    return hg_ydoc_fail(&c->doc, n, "joint limits: 'restitution' and 'latch' need 'lower' and 'upper'");
  if (L->restitution > 0 && L->latch)
    return hg_ydoc_fail(&c->doc, hg_ydoc_get(&c->doc, n, "latch"),
                        "joint limits: a latching stop does not rebound (restitution must be 0)");
  return 0;
}

int hg_sc_joint_keys_apply(hg_sctx *c, const hg_ynode *n, hg_joint_type t) {
  for (int k = 0; k < hg_ydoc_len(n); k++) {
    const hg_ynode *key = hg_ydoc_pair_key(&c->doc, n, k);
    if (!joint_key_applies(hg_ydoc_text(key), t))
      return hg_ydoc_fail(&c->doc, key, "'%s' does not apply to a %s joint", hg_ydoc_text(key),
                          hg_joint_type_name(t));
  }
  return 0;
}

int hg_sc_joint_axes(hg_sctx *c, const hg_ynode *n, hg_joint_type t, const char *what,
                     hg_joint *j) {
  double axis[3] = {0, 0, 1}, axis2[3], pitch = 0;
  const char *why = NULL;
  const hg_ynode *a2 = hg_ydoc_get(&c->doc, n, "axis2"), *a = hg_ydoc_get(&c->doc, n, "axis");
  const hg_ynode *where;
  if (hg_yget_vec(&c->doc, n, "axis", 3, axis) || hg_yget_vec(&c->doc, n, "axis2", 3, axis2) ||
      hg_yget_number(&c->doc, n, "pitch", &pitch))
    return -1;
  if (hg_joint_init(j, t, axis, a2 ? axis2 : NULL, pitch, &why) == 0) return 0;
  where = a ? a : n;
  if (a2 && t == HG_JOINT_UNIVERSAL && !strstr(why, "axis is zero")) where = a2;
  return hg_ydoc_fail(&c->doc, where, "%s: %s", what, why);
}

/* the joint of a body: a type name alone, or a mapping */
static int body_joint(hg_sctx *c, const hg_ynode *n, const char *body, hg_body_spec *spec) {
  char what[160];
  hg_joint_type t;
  const hg_ynode *type;
  snprintf(what, sizeof what, "joint of body '%s'", body);
  if (hg_ydoc_is_scalar(n)) {
    if (hg_sc_joint_type(c, n, &t)) return -1;
    return hg_sc_joint_axes(c, n, t, what, &spec->joint);
  }
  if (hg_ydoc_check_keys(&c->doc, n, what, joint_keys) ||
      !(type = hg_sc_required(c, n, "type", what)) || hg_sc_joint_type(c, type, &t) ||
      hg_sc_joint_keys_apply(c, n, t) || hg_sc_joint_axes(c, n, t, what, &spec->joint) ||
      hg_yget_name(&c->doc, n, "name", &spec->joint_name) || hg_sc_pose(c, n, &spec->offset))
    return -1;
  if (hg_ydoc_get(&c->doc, n, "limits"))
    return joint_limits(c, hg_ydoc_get(&c->doc, n, "limits"), &spec->limits);
  return 0;
}

/* ---- markers ---- */

/* the keys of a top-level marker and of a marker under a body */
static const char *const marker_keys[] = {"name", "body",    "pos",  "quat",
                                          "rpy",  "rpy_deg", "port", NULL};
static const char *const body_marker_keys[] = {"name",    "pos",  "quat", "rpy",
                                               "rpy_deg", "port", NULL};

/* appends a zeroed marker to the scene */
static hg_marker *new_marker(hg_sctx *c, const hg_ynode *n) {
  hg_marker *grown = realloc(c->s->marker, ((size_t)c->s->nmarker + 1) * sizeof *grown);
  if (!grown) {
    hg_ydoc_fail(&c->doc, n, "out of memory");
    return NULL;
  }
  c->s->marker = grown;
  memset(&grown[c->s->nmarker], 0, sizeof *grown);
  return &grown[c->s->nmarker++];
}

/* the marker's name, unique among markers */
static int marker_name(hg_sctx *c, const hg_ynode *n, const char **name) {
  const hg_ynode *node = hg_sc_required(c, n, "name", "marker");
  const hg_marker *first;
  if (!node || hg_ydoc_name(&c->doc, node, "'name'", name)) return -1;
  first = hg_scene_marker(c->s, *name);
  if (first)
    return hg_ydoc_fail(&c->doc, node, "duplicate marker name '%s' (first at line %d)", *name,
                        first->src.line);
  return 0;
}

/* one marker; body is its body when given by the enclosing body, else NULL (a 'body' key) */
static int marker(hg_sctx *c, const hg_ynode *n, const char *body) {
  const char *name, *port = NULL;
  hg_marker *mk;
  if (hg_ydoc_check_keys(&c->doc, n, "marker", body ? body_marker_keys : marker_keys) ||
      marker_name(c, n, &name))
    return -1;
  if (!body) {
    const hg_ynode *b = hg_sc_required(c, n, "body", "marker");
    if (!b || hg_sc_body_ref(c, b, "'body'", &body, NULL)) return -1;
  }
  if (hg_yget_name(&c->doc, n, "port", &port) || !(mk = new_marker(c, n))) return -1;
  mk->src = hg_sc_src(c, n);
  if (hg_sc_strdup(c, n, name, &mk->name) || hg_sc_strdup(c, n, body, &mk->body) ||
      hg_sc_strdup(c, n, port, &mk->port))
    return -1;
  return hg_sc_pose(c, n, &mk->pose);
}

int hg_sc_markers(hg_sctx *c, const hg_ynode *list, const char *body) {
  if (hg_ydoc_expect_seq(&c->doc, list, "'markers'")) return -1;
  for (int k = 0; k < hg_ydoc_len(list); k++)
    if (marker(c, hg_ydoc_item(&c->doc, list, k), body)) return -1;
  return 0;
}

/* ---- bodies ---- */

/* the keys of a body */
static const char *const body_keys[] = {"name",     "parent",  "joint",   "inertia",
                                        "geometry", "markers", "present", NULL};

/* the name of scene body i's joint */
static const char *sc_joint_name(const void *items, int i) {
  return ((const hg_sc_body *)items)[i].joint;
}

/* the body's name: not the world's, not taken by an earlier body of the scene */
static int body_name(hg_sctx *c, const hg_ynode *n, hg_sc_body *rec) {
  const hg_ynode *node = hg_sc_required(c, n, "name", "body");
  if (!node || hg_ydoc_name(&c->doc, node, "'name'", &rec->name)) return -1;
  rec->name_node = node;
  if (strcmp(rec->name, "world") == 0)
    return hg_ydoc_fail(&c->doc, node, "'world' is the ground body; give the body another name");
  int first = hg_names_insert(&c->body_index, hg_sc_body_name_of, c->body, (int)(rec - c->body));
  if (first >= 0) {
    int line, col;
    hg_ydoc_where(c->body[first].name_node, &line, &col);
    return hg_ydoc_fail(&c->doc, node, "duplicate body name '%s' (first at line %d)", rec->name,
                        line);
  }
  return 0;
}

/* the parent: world by default; other names are checked once every body is known */
static int body_parent(hg_sctx *c, const hg_ynode *n, const hg_sc_body *rec, hg_body_spec *spec) {
  const hg_ynode *p = hg_ydoc_get(&c->doc, n, "parent");
  if (!p) return 0;
  if (hg_ydoc_name(&c->doc, p, "'parent'", &spec->parent)) return -1;
  if (strcmp(spec->parent, "world") == 0) return 0;
  c->ref[c->nref++] = (hg_sc_ref){spec->parent, p, rec->absent};
  return 0;
}

/* present: true (the default) or false (the body waits for an add action) */
static int body_present(hg_sctx *c, const hg_ynode *n, hg_sc_body *rec) {
  int present = 1;
  if (hg_yget_bool(&c->doc, n, "present", &present)) return -1;
  rec->absent = !present;
  rec->present_node = hg_ydoc_get(&c->doc, n, "present");
  return 0;
}

/* one body: its spec goes to the builder, then its geometry and markers */
static int body(hg_sctx *c, const hg_ynode *n, int k) {
  hg_sc_body *rec = &c->body[k];
  hg_body_spec spec;
  hg_error e;
  const hg_ynode *jn, *in, *gn, *mn;
  const char *why;
  memset(&spec, 0, sizeof spec);
  hg_se3_identity(&spec.offset);
  hg_se3_identity(&spec.post);
  hg_joint_init(&spec.joint, HG_JOINT_FIXED, NULL, NULL, 0, &why);
  if (hg_ydoc_check_keys(&c->doc, n, "body", body_keys) || body_name(c, n, rec) ||
      body_present(c, n, rec) || body_parent(c, n, rec, &spec))
    return -1;
  spec.name = rec->name;
  jn = hg_ydoc_get(&c->doc, n, "joint");
  in = hg_ydoc_get(&c->doc, n, "inertia");
  if ((jn && body_joint(c, jn, rec->name, &spec)) ||
      (in && hg_sc_inertia(c, in, rec->name, &spec.inertia)))
    return -1;
  rec->joint = spec.joint_name ? spec.joint_name : rec->name;
  rec->joint_node =
      jn && hg_ydoc_get(&c->doc, jn, "name") ? hg_ydoc_get(&c->doc, jn, "name") : rec->name_node;
  if (hg_builder_add_body(c->s->builder, &spec, &e)) return hg_ydoc_fail(&c->doc, n, "%s", e.msg);
  gn = hg_ydoc_get(&c->doc, n, "geometry");
  mn = hg_ydoc_get(&c->doc, n, "markers");
  if ((gn && hg_sc_geometry(c, gn, rec->name)) || (mn && hg_sc_markers(c, mn, rec->name)))
    return -1;
  return 0;
}

/* room for the parent references of the bodies and the URDF includes */
static int reserve_refs(hg_sctx *c, const hg_ynode *list, int n) {
  hg_sc_ref *grown = realloc(c->ref, ((size_t)c->nref + (size_t)n + 1) * sizeof *grown);
  if (!grown) return hg_ydoc_fail(&c->doc, list, "out of memory");
  c->ref = grown;
  return 0;
}

int hg_sc_bodies(hg_sctx *c, const hg_ynode *list) {
  if (reserve_refs(c, list, hg_ydoc_len(list))) return -1;
  if (hg_names_reset(&c->body_index, hg_ydoc_len(list)))
    return hg_ydoc_fail(&c->doc, list, "out of memory");
  return hg_sc_seq(c, list, "'bodies'", sizeof *c->body, (void **)&c->body, &c->nbody, body);
}

/* ---- URDF includes ---- */

/* the keys of an include */
static const char *const urdf_keys[] = {"file",    "parent", "pos",      "quat",        "rpy",
                                        "rpy_deg", "prefix", "floating", "fix_inertia",
                                        "package_path", NULL};

/* one include: the robot's root hangs from parent at the pose */
static int urdf_include(hg_sctx *c, const hg_ynode *n) {
  const char *file, *parent = NULL, *prefix = NULL, *packages = NULL;
  const hg_ynode *fn, *pn;
  hg_urdf_options opt = {0};
  int rc;
  hg_se3 pose;
  hg_error e;
  char *path;
  if (hg_ydoc_check_keys(&c->doc, n, "urdf include", urdf_keys) ||
      !(fn = hg_sc_required(c, n, "file", "urdf include")) ||
      hg_ydoc_name(&c->doc, fn, "'file'", &file) || hg_yget_name(&c->doc, n, "parent", &parent) ||
      hg_yget_name(&c->doc, n, "prefix", &prefix) ||
      hg_yget_bool(&c->doc, n, "floating", &opt.floating) ||
      hg_yget_bool(&c->doc, n, "fix_inertia", &opt.fix_inertia) ||
      hg_yget_name(&c->doc, n, "package_path", &packages) || hg_sc_pose(c, n, &pose))
    return -1;
  pn = hg_ydoc_get(&c->doc, n, "parent");
  if (parent && strcmp(parent, "world") != 0) c->ref[c->nref++] = (hg_sc_ref){parent, pn, 0};
  if (!(path = hg_sc_resolve(c, fn, file))) return -1;
  /* package_path: one folder, relative to the scene file's folder unless absolute */
  char *pkgdir = packages ? malloc(strlen(c->dir) + strlen(packages) + 1) : NULL;
  if (pkgdir) {
    strcpy(pkgdir, packages[0] == '/' ? "" : c->dir);
    strcat(pkgdir, packages);
  }
  opt.package_path = pkgdir;
  opt.notes = stderr;
  rc = hg_urdf_add_opt(c->s->builder, path, parent, &pose, prefix, &opt, &e);
  free(pkgdir);
  free(path);
  return rc ? hg_ydoc_fail(&c->doc, fn, "in URDF include: %s", e.msg) : 0;
}

int hg_sc_urdf(hg_sctx *c, const hg_ynode *list) {
  if (hg_ydoc_expect_seq(&c->doc, list, "'urdf'") || reserve_refs(c, list, hg_ydoc_len(list)))
    return -1;
  for (int k = 0; k < hg_ydoc_len(list); k++)
    if (urdf_include(c, hg_ydoc_item(&c->doc, list, k))) return -1;
  return 0;
}

/* ---- MJCF includes ---- */

/* the keys of an MJCF include */
static const char *const mjcf_keys[] = {"file", "parent", "pos",    "quat",
                                        "rpy",  "rpy_deg", "prefix", NULL};

/* the include's joint springs and dampers as joint spring force elements named JOINT_spring,
 * appended to the scene's force list (scene.c's forces_and_mjcf puts the scene's own first) */
static int mjcf_springs(hg_sctx *c, const hg_ynode *n, const hg_mjcf_extras *x) {
  for (int k = 0; k < x->nspring; k++) {
    const hg_mjcf_spring *sp = &x->spring[k];
    hg_force_spec *grown = realloc(c->s->force, ((size_t)c->s->nforce + 1) * sizeof *grown);
    char name[300];
    if (!grown) return hg_ydoc_fail(&c->doc, n, "out of memory");
    c->s->force = grown;
    hg_force_spec *f = &grown[c->s->nforce++];
    memset(f, 0, sizeof *f);
    f->type = HG_FORCE_JOINT_SPRING;
    f->enabled = 1;
    f->src = hg_sc_src(c, n);
    f->stiffness = sp->stiffness;
    f->damping = sp->damping;
    f->nrest = sp->nrest;
    snprintf(name, sizeof name, "%s_spring", sp->joint);
    if (hg_sc_strdup(c, n, name, &f->name) || hg_sc_strdup(c, n, sp->joint, &f->joint) ||
        !(f->rest = malloc((size_t)sp->nrest * sizeof *f->rest)))
      return hg_ydoc_fail(&c->doc, n, "out of memory");
    memcpy(f->rest, sp->rest, (size_t)sp->nrest * sizeof *f->rest);
  }
  return 0;
}

/* one marker of an include (its name unique among markers) */
static int mjcf_marker(hg_sctx *c, const hg_ynode *n, const char *name, const char *body,
                       const hg_se3 *pose) {
  const hg_marker *first = hg_scene_marker(c->s, name);
  hg_marker *mk;
  if (first)
    return hg_ydoc_fail(&c->doc, n, "MJCF include: marker name '%s' already used (line %d)", name,
                        first->src.line);
  if (!(mk = new_marker(c, n))) return -1;
  mk->src = hg_sc_src(c, n);
  mk->pose = *pose;
  return hg_sc_strdup(c, n, name, &mk->name) || hg_sc_strdup(c, n, body, &mk->body) ? -1 : 0;
}

/* the include's connect and weld equalities as spherical and fixed loops between two markers
 * named LOOP_a and LOOP_b, appended to the scene's loop list (scene.c's loops_and_mjcf puts the
 * scene's own first) */
static int mjcf_loops(hg_sctx *c, const hg_ynode *n, const hg_mjcf_extras *x) {
  for (int k = 0; k < x->nloop; k++) {
    const hg_mjcf_loop *L = &x->loop[k];
    char name[2][300];
    snprintf(name[0], sizeof name[0], "%s_a", L->name);
    snprintf(name[1], sizeof name[1], "%s_b", L->name);
    for (int e = 0; e < 2; e++)
      if (mjcf_marker(c, n, name[e], L->body[e], &L->frame[e])) return -1;
    hg_loop_spec *grown = realloc(c->s->loop, ((size_t)c->s->nloop + 1) * sizeof *grown);
    if (!grown) return hg_ydoc_fail(&c->doc, n, "out of memory");
    c->s->loop = grown;
    hg_loop_spec *sp = &grown[c->s->nloop++];
    memset(sp, 0, sizeof *sp);
    sp->type = L->weld ? HG_JOINT_FIXED : HG_JOINT_SPHERICAL;
    sp->axis[2] = 1;
    sp->axis2[0] = 1;
    sp->active = L->active;
    sp->tol[0] = sp->tol[1] = 1e-3;
    sp->src = hg_sc_src(c, n);
    if (hg_sc_strdup(c, n, L->name, &sp->name) || hg_sc_strdup(c, n, name[0], &sp->marker[0]) ||
        hg_sc_strdup(c, n, name[1], &sp->marker[1]))
      return -1;
  }
  return 0;
}

/* the include's motors as hinge motors (the command is the joint's force or torque, MuJoCo's
 * gear * gain * ctrl), appended to the scene's actuator list (scene.c's actuators_and_mjcf puts
 * the scene's own first) */
static int mjcf_motors(hg_sctx *c, const hg_ynode *n, const hg_mjcf_extras *x) {
  for (int k = 0; k < x->nmotor; k++) {
    const hg_mjcf_motor *mo = &x->motor[k];
    hg_actuator_spec *grown =
        realloc(c->s->actuator, ((size_t)c->s->nactuator + 1) * sizeof *grown);
    if (!grown) return hg_ydoc_fail(&c->doc, n, "out of memory");
    c->s->actuator = grown;
    hg_actuator_spec *a = &grown[c->s->nactuator++];
    memset(a, 0, sizeof *a);
    /* a scene motor's defaults (scene_control.c): no limits but the effort, gear 1 */
    a->effort = a->rate_limit = a->no_load_speed = a->i_limit = INFINITY;
    a->max_torque = a->max_speed = a->max_on = INFINITY;
    a->gear = 1;
    a->stiction_velocity = 1e-3;
    a->type = HG_ACT_MOTOR;
    a->src = hg_sc_src(c, n);
    a->effort = mo->effort;
    if (hg_sc_strdup(c, n, mo->name, &a->name) || hg_sc_strdup(c, n, mo->joint, &a->joint))
      return -1;
  }
  return 0;
}

/* the include's joints whose MuJoCo qpos0 is not hinge's neutral q, kept as initial states
 * until scene.c joins them to the scene's 'initial' */
static int mjcf_q0(hg_sctx *c, const hg_ynode *n, const hg_mjcf_extras *x) {
  if (!x->nq0) return 0;
  hg_joint_init_spec *grown =
      realloc(c->mjcf_q0, ((size_t)c->nmjcf_q0 + (size_t)x->nq0) * sizeof *grown);
  if (!grown) return hg_ydoc_fail(&c->doc, n, "out of memory");
  c->mjcf_q0 = grown;
  for (int k = 0; k < x->nq0; k++) {
    hg_joint_init_spec *ji = &grown[c->nmjcf_q0];
    memset(ji, 0, sizeof *ji);
    ji->src = hg_sc_src(c, n);
    ji->has_q = 1;
    memcpy(ji->q, x->q0[k].q, (size_t)x->q0[k].nq * sizeof *ji->q);
    if (!(ji->joint = strdup(x->q0[k].joint))) return hg_ydoc_fail(&c->doc, n, "out of memory");
    c->nmjcf_q0++;
  }
  return 0;
}

/* one include: MuJoCo's world is parent at the pose */
static int mjcf_include(hg_sctx *c, const hg_ynode *n) {
  const char *file, *parent = NULL, *prefix = NULL;
  const hg_ynode *fn, *pn;
  hg_mjcf_options opt = {0, stderr};
  hg_mjcf_extras x;
  hg_se3 pose;
  hg_error e;
  char *path;
  int rc;
  if (hg_ydoc_check_keys(&c->doc, n, "mjcf include", mjcf_keys) ||
      !(fn = hg_sc_required(c, n, "file", "mjcf include")) ||
      hg_ydoc_name(&c->doc, fn, "'file'", &file) || hg_yget_name(&c->doc, n, "parent", &parent) ||
      hg_yget_name(&c->doc, n, "prefix", &prefix) || hg_sc_pose(c, n, &pose))
    return -1;
  pn = hg_ydoc_get(&c->doc, n, "parent");
  if (parent && strcmp(parent, "world") != 0) c->ref[c->nref++] = (hg_sc_ref){parent, pn, 0};
  if (!(path = hg_sc_resolve(c, fn, file))) return -1;
  rc = hg_mjcf_add(c->s->builder, path, parent, &pose, prefix, &opt, &x, &e);
  free(path);
  if (rc) return hg_ydoc_fail(&c->doc, fn, "in MJCF include: %s", e.msg);
  rc = 0;
  for (int k = 0; k < x.nsite && rc == 0; k++)
    rc = mjcf_marker(c, n, x.site[k].name, x.site[k].body, &x.site[k].pose);
  if (rc == 0)
    rc = mjcf_springs(c, n, &x) || mjcf_loops(c, n, &x) || mjcf_q0(c, n, &x) ||
                 mjcf_motors(c, n, &x)
             ? -1
             : 0;
  hg_mjcf_extras_free(&x);
  return rc;
}

int hg_sc_mjcf(hg_sctx *c, const hg_ynode *list) {
  if (hg_ydoc_expect_seq(&c->doc, list, "'mjcf'") || reserve_refs(c, list, hg_ydoc_len(list)))
    return -1;
  for (int k = 0; k < hg_ydoc_len(list); k++)
    if (mjcf_include(c, hg_ydoc_item(&c->doc, list, k))) return -1;
  return 0;
}

/* ---- the model check ---- */

/* every parent named by a body or an include is a body of the builder */
static int check_parents(hg_sctx *c) {
  for (int k = 0; k < c->nref; k++) {
    if (hg_builder_body(c->s->builder, c->ref[k].name)) continue;
    const char **names = malloc(((size_t)c->nbody + 1) * sizeof *names);
    for (int i = 0; names && i < c->nbody; i++) names[i] = c->body[i].name;
    hg_sc_unknown(c, c->ref[k].node, "parent body", c->ref[k].name, names, names ? c->nbody : 0);
    free(names);
    return -1;
  }
  return 0;
}

/* joint names of the scene's bodies are unique among themselves */
static int check_joint_names(hg_sctx *c) {
  hg_name_index joints = {0, NULL};
  if (c->nbody == 0) return 0;
  if (hg_names_reset(&joints, c->nbody))
    return hg_ydoc_fail(&c->doc, c->body[0].name_node, "out of memory");
  for (int i = 0; i < c->nbody; i++) {
    int k = hg_names_insert(&joints, sc_joint_name, c->body, i);
    if (k < 0) continue;
    hg_names_free(&joints);
    return hg_ydoc_fail(&c->doc, c->body[i].joint_node,
                        "duplicate joint name '%s' (bodies '%s' and '%s')", c->body[i].joint,
                        c->body[k].name, c->body[i].name);
  }
  hg_names_free(&joints);
  return 0;
}

/* the scene body a compiler message is about (its name or joint name quoted in it), or NULL */
static const hg_ynode *blame(const hg_sctx *c, const char *msg) {
  char q[160];
  for (int k = 0; k < c->nbody; k++) {
    snprintf(q, sizeof q, "'%s'", c->body[k].joint);
    if (strstr(msg, q)) return c->body[k].joint_node;
    snprintf(q, sizeof q, "'%s'", c->body[k].name);
    if (strstr(msg, q)) return c->body[k].name_node;
  }
  return NULL;
}

/* the builder compiled into *m, or an error at the body the compiler blames (context: what the
 * builder holds, "" for every body) */
static int compile(hg_sctx *c, const hg_ynode *root, const char *context, hg_model **m) {
  hg_error e;
  const hg_ynode *where;
  *m = hg_builder_compile(c->s->builder, &e);
  if (*m) return 0;
  where = blame(c, e.msg);
  if (!where) where = hg_ydoc_key(&c->doc, root, "bodies");
  if (!where) where = hg_ydoc_key(&c->doc, root, "urdf");
  if (!where) where = hg_ydoc_key(&c->doc, root, "mjcf");
  return hg_ydoc_fail(&c->doc, where, "%s%s", context, e.msg);
}

int hg_sc_compile(hg_sctx *c, const hg_ynode *root) {
  hg_model *present = NULL;
  int rc;
  if (check_parents(c) || check_joint_names(c) || compile(c, root, "", &c->m)) return -1;
  /* the bodies absent at the start leave for the library; the others must stand alone */
  if (hg_sc_library(c)) return -1;
  if (!c->s->library.model) return 0;
  rc = compile(c, root, "with only the bodies present at the start: ", &present);
  hg_model_free(present);
  return rc;
}
