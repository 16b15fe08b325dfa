/* scene_control.c: control in the loop (docs/scene-format.md: actuators, tanks, sensors,
 * controllers, noise_seed) and the actions that drive it (actuate, set_gain, controller).
 *
 * Reaction wheels are bodies: hg_sc_wheels adds each one to the builder before the model is
 * compiled (a rotor on a revolute joint named as the actuator); every other section is read once
 * the model, the markers and the initial state are known. Names are unique across actuators,
 * tanks, sensors and controllers, and every reference is checked with a did-you-mean. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scene_internal.h"

/* ---- names shared by the four sections ---- */

/* the kind of item that already holds name (actuator, tank, sensor, controller), its line in
 * *line; NULL when the name is free. Only the items read so far are searched. */
static const char *control_owner(const hg_scene *s, const char *name, int *line) {
  for (int k = 0; k < s->nactuator; k++)
    if (s->actuator[k].name && strcmp(s->actuator[k].name, name) == 0)
      return *line = s->actuator[k].src.line, "actuator";
  for (int k = 0; k < s->ntank; k++)
    if (s->tank[k].name && strcmp(s->tank[k].name, name) == 0)
      return *line = s->tank[k].src.line, "tank";
  for (int k = 0; k < s->nsensor; k++)
    if (s->sensor[k].name && strcmp(s->sensor[k].name, name) == 0)
      return *line = s->sensor[k].src.line, "sensor";
  for (int k = 0; k < s->ncontroller; k++)
    if (s->controller[k].name && strcmp(s->controller[k].name, name) == 0)
      return *line = s->controller[k].src.line, "controller";
  return NULL;
}

/* the required 'name' of item n (what: "actuator", ...), unique across the four sections; a copy
 * into *out */
static int control_name(hg_sctx *c, const hg_ynode *n, const char *what, char **out) {
  const hg_ynode *nn = hg_sc_required(c, n, "name", what);
  const char *name, *owner;
  int line = 0;
  if (!nn || hg_ydoc_name(&c->doc, nn, "'name'", &name)) return -1;
  if ((owner = control_owner(c->s, name, &line)))
    return hg_ydoc_fail(&c->doc, nn, "duplicate name '%s': the %s at line %d has it (actuators, "
                        "tanks, sensors and controllers share one set of names)", name, owner,
                        line);
  return hg_sc_strdup(c, nn, name, out);
}

/* -1 with an error at the first key of n that is not name, type or one of keys */
static int keys_apply(hg_sctx *c, const hg_ynode *n, const char *const *keys, const char *what) {
  for (int k = 0; k < hg_ydoc_len(n); k++) {
    const hg_ynode *key = hg_ydoc_pair_key(&c->doc, n, k);
    const char *name = hg_ydoc_text(key);
    int ok = strcmp(name, "name") == 0 || strcmp(name, "type") == 0;
    for (int j = 0; keys[j] && !ok; j++) ok = strcmp(name, keys[j]) == 0;
    if (!ok) return hg_ydoc_fail(&c->doc, key, "'%s' does not apply to %s", name, what);
  }
  return 0;
}

/* optional key: a number > 0, +inf allowed (absent: *out untouched) */
static int positive_inf(hg_sctx *c, const hg_ynode *map, const char *key, double *out) {
  const hg_ynode *v = hg_ydoc_get(&c->doc, map, key);
  char what[64];
  if (!v) return 0;
  snprintf(what, sizeof what, "'%s'", key);
  if (hg_ydoc_number(&c->doc, v, what, 1, out)) return -1;
  if (!(*out > 0)) return hg_ydoc_fail(&c->doc, v, "'%s' must be positive, got %g", key, *out);
  return 0;
}

/* a required rate (Hz, > 0) */
static int rate(hg_sctx *c, const hg_ynode *n, const char *what, double *out) {
  if (!hg_sc_required(c, n, "rate", what) || hg_sc_positive(c, n, "rate", out)) return -1;
  if (*out > HG_SC_MAX_RATE)
    return hg_ydoc_fail(&c->doc, hg_ydoc_get(&c->doc, n, "rate"),
                        "'rate' %g Hz is beyond the %g Hz a scene may give", *out, HG_SC_MAX_RATE);
  return 0;
}

/* optional 3-vector key, nonzero when given, scaled to unit length (absent: 0, *out untouched) */
static int unit_vec(hg_sctx *c, const hg_ynode *map, const char *key, double out[3]) {
  const hg_ynode *v = hg_ydoc_get(&c->doc, map, key);
  double x[3], len;
  if (!v) return 0;
  if (hg_yget_vec(&c->doc, map, key, 3, x)) return -1;
  len = sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
  if (!(len > 0)) return hg_ydoc_fail(&c->doc, v, "'%s' must be a nonzero vector", key);
  for (int k = 0; k < 3; k++) out[k] = x[k] / len;
  return 0;
}

/* a number or a list of numbers at n: between 1 and max of them (what: for messages) */
static int numbers(hg_sctx *c, const hg_ynode *n, const char *what, int max, double *out,
                   int *count) {
  if (hg_ydoc_is_seq(n)) return hg_ydoc_numbers(&c->doc, n, what, -max, out, count);
  *count = 1;
  return hg_ydoc_number(&c->doc, n, what, 0, out);
}

/* the mode syntax's profile for joint j at key 'profile' of n (when given) */
static int control_profile(hg_sctx *c, const hg_ynode *n, const hg_joint *j, int *has,
                           hg_profile_spec *p) {
  const hg_ynode *pn = hg_ydoc_get(&c->doc, n, "profile");
  if (!pn) return 0;
  *has = 1;
  return hg_sc_profile(c, pn, j, p);
}

/* ---- actuators ---- */

/* in hg_actuator_type order */
static const char *const actuator_types[] = {"motor", "servo", "reaction_wheel", "thruster"};
#define NACT 4
/* every key an actuator may have, and the keys of each type (beyond name and type) */
static const char *const actuator_keys[] = {
    "name", "type", "joint", "dof", "effort", "rate_limit", "gear", "rotor_inertia", "viscous",
    "coulomb", "stiction_velocity", "no_load_speed", "misalignment", "kp", "kd", "ki",
    "integral_limit", "rate", "loop", "profile", "body", "axis", "position", "inertia",
    "transverse_inertia", "mass", "max_torque", "max_speed", "speed", "direction", "marker",
    "thrust", "proportional", "min_on", "min_impulse", "max_on", "rise", "fall", "isp", "tank",
    NULL};
static const char *const motor_keys[] = {
    "joint", "dof", "effort", "rate_limit", "gear", "rotor_inertia", "viscous", "coulomb",
    "stiction_velocity", "no_load_speed", "misalignment", NULL};
static const char *const servo_keys[] = {
    "joint", "effort", "rate_limit", "gear", "rotor_inertia", "viscous", "coulomb",
    "stiction_velocity", "no_load_speed", "misalignment", "kp", "kd", "ki", "integral_limit",
    "rate", "loop", "profile", NULL};
static const char *const wheel_keys[] = {
    "body", "axis", "position", "inertia", "transverse_inertia", "mass", "max_torque",
    "max_speed", "rate_limit", "viscous", "coulomb", "stiction_velocity", "speed",
    "misalignment", NULL};
static const char *const thruster_keys[] = {
    "body", "position", "direction", "marker", "thrust", "proportional", "min_on", "min_impulse",
    "max_on", "rise", "fall", "isp", "tank", "misalignment", NULL};
static const char *const *const actuator_shape[NACT] = {motor_keys, servo_keys, wheel_keys,
                                                        thruster_keys};
static const char *const loops_[] = {"position", "velocity"};

/* the defaults of every actuator: no limits, gear 1 */
static void actuator_defaults(hg_actuator_spec *a) {
  a->effort = a->rate_limit = a->no_load_speed = a->i_limit = INFINITY;
  a->max_torque = a->max_speed = a->max_on = INFINITY;
  a->gear = 1;
  a->stiction_velocity = 1e-3;
}

/* keys, type and the keys of the type; the name is read by the caller */
static int actuator_type(hg_sctx *c, const hg_ynode *n, hg_actuator_spec *a) {
  const hg_ynode *tn;
  char what[64];
  int t;
  if (hg_ydoc_check_keys(&c->doc, n, "actuator", actuator_keys) ||
      !(tn = hg_sc_required(c, n, "type", "actuator")) ||
      hg_ydoc_choice(&c->doc, tn, "actuator type", actuator_types, NACT, &t))
    return -1;
  a->type = (hg_actuator_type)t;
  snprintf(what, sizeof what, "a %s", actuator_types[t]);
  return keys_apply(c, n, actuator_shape[t], what);
}

/* friction and drive limits common to motors, servos and wheels */
static int drive(hg_sctx *c, const hg_ynode *n, hg_actuator_spec *a) {
  if (positive_inf(c, n, "effort", &a->effort) ||
      positive_inf(c, n, "rate_limit", &a->rate_limit) ||
      hg_sc_nonneg(c, n, "viscous", &a->viscous) || hg_sc_nonneg(c, n, "coulomb", &a->coulomb) ||
      hg_sc_positive(c, n, "stiction_velocity", &a->stiction_velocity) ||
      positive_inf(c, n, "no_load_speed", &a->no_load_speed) ||
      hg_yget_vec(&c->doc, n, "misalignment", 3, a->misalignment))
    return -1;
  return 0;
}

/* the rotor's reflected inertia gear^2 J_r joins the armature of the joint's DoF (it adds to
 * what other motors on that DoF put there) */
static int armature(hg_sctx *c, const hg_ynode *n, const hg_actuator_spec *a) {
  const hg_ynode *rn = hg_ydoc_get(&c->doc, n, "rotor_inertia");
  int i = hg_model_joint(c->m, a->joint);
  const hg_body_spec *b = i > 0 ? hg_builder_body(c->s->builder, c->m->body_name[i]) : NULL;
  hg_error e;
  if (!b)
    return hg_ydoc_fail(&c->doc, rn, "joint '%s' is not in the model at the start (absent or a "
                        "docking joint): a rotor inertia cannot join its armature", a->joint);
  if (hg_builder_set_armature(c->s->builder, a->joint, a->dof,
                              b->armature[a->dof] + a->gear * a->gear * a->rotor_inertia, &e))
    return hg_ydoc_fail(&c->doc, rn, "%s", e.msg);
  return 0;
}

/* a motor's or a servo's joint and DoF, gear and rotor (the joint's armature) */
static int motor_joint(hg_sctx *c, const hg_ynode *n, hg_actuator_spec *a, hg_joint *j) {
  const hg_ynode *jn = hg_sc_required(c, n, "joint", actuator_types[a->type]);
  const char *name;
  int nv;
  if (!jn || hg_sc_joint_ref(c, jn, "'joint'", &name, j) || hg_sc_strdup(c, jn, name, &a->joint) ||
      hg_yget_integer(&c->doc, n, "dof", &a->dof))
    return -1;
  nv = hg_joint_nv(j->type);
  if (nv == 0)
    return hg_ydoc_fail(&c->doc, jn, "joint '%s' is fixed: a %s cannot drive it", name,
                        actuator_types[a->type]);
  if (a->type == HG_ACT_SERVO && nv != 1)
    return hg_ydoc_fail(&c->doc, jn, "a servo drives a 1-DoF joint, and '%s' is a %s joint (%d "
                        "DoF): use a motor with its 'dof'", name, hg_joint_type_name(j->type), nv);
  if (a->dof < 0 || a->dof >= nv)
    return hg_ydoc_fail(&c->doc, hg_ydoc_get(&c->doc, n, "dof"),
                        "'dof' must be in [0, %d] for joint '%s', got %d", nv - 1, name, a->dof);
  if (hg_sc_positive(c, n, "gear", &a->gear) ||
      hg_sc_nonneg(c, n, "rotor_inertia", &a->rotor_inertia))
    return -1;
  return a->rotor_inertia > 0 ? armature(c, n, a) : 0;
}

/* a motor: torque or force on one DoF of a joint */
static int motor(hg_sctx *c, const hg_ynode *n, hg_actuator_spec *a) {
  hg_joint j;
  return motor_joint(c, n, a, &j) || drive(c, n, a) ? -1 : 0;
}

/* a servo: a motor with its own PD(+I) loop on a 1-DoF joint, an optional setpoint profile */
static int servo(hg_sctx *c, const hg_ynode *n, hg_actuator_spec *a) {
  const hg_ynode *ln = hg_ydoc_get(&c->doc, n, "loop");
  hg_joint j;
  if (motor_joint(c, n, a, &j) || drive(c, n, a) || !hg_sc_required(c, n, "kp", "servo") ||
      rate(c, n, "servo", &a->rate) || hg_sc_nonneg(c, n, "kp", &a->kp) ||
      hg_sc_nonneg(c, n, "kd", &a->kd) || hg_sc_nonneg(c, n, "ki", &a->ki) ||
      positive_inf(c, n, "integral_limit", &a->i_limit) ||
      (ln && hg_ydoc_choice(&c->doc, ln, "servo loop", loops_, 2, &a->velocity_loop)))
    return -1;
  return control_profile(c, n, &j, &a->has_profile, &a->profile);
}

/* the wheel's rotor as a body of the builder: a child of its body on a revolute joint named as
 * the actuator, about the (misaligned) axis through 'position' */
static int wheel_body(hg_sctx *c, const hg_ynode *n, const hg_actuator_spec *a) {
  hg_body_spec spec;
  hg_error e;
  double R[9], ax[3], Ic[6];
  char why[256];
  const char *jwhy = NULL;
  memset(&spec, 0, sizeof spec);
  hg_so3_exp(a->misalignment, R);
  for (int r = 0; r < 3; r++) ax[r] = R[3 * r] * a->axis[0] + R[3 * r + 1] * a->axis[1] +
                                       R[3 * r + 2] * a->axis[2];
  /* principal moments (transverse, transverse, axial) about the centre, axial along ax */
  Ic[0] = a->transverse_inertia + (a->inertia - a->transverse_inertia) * ax[0] * ax[0];
  Ic[1] = a->transverse_inertia + (a->inertia - a->transverse_inertia) * ax[1] * ax[1];
  Ic[2] = a->transverse_inertia + (a->inertia - a->transverse_inertia) * ax[2] * ax[2];
  Ic[3] = (a->inertia - a->transverse_inertia) * ax[0] * ax[1];
  Ic[4] = (a->inertia - a->transverse_inertia) * ax[0] * ax[2];
  Ic[5] = (a->inertia - a->transverse_inertia) * ax[1] * ax[2];
  if (hg_inertia_validate(a->mass, Ic, why, sizeof why))
    return hg_ydoc_fail(&c->doc, hg_ydoc_get(&c->doc, n, "inertia"),
                        "wheel '%s': %s ('transverse_inertia' must be at least 'inertia' / 2)",
                        a->name, why);
  spec.name = a->name;
  spec.parent = a->body;
  hg_se3_identity(&spec.offset);
  hg_se3_identity(&spec.post);
  memcpy(spec.offset.p, a->position, sizeof spec.offset.p);
  if (hg_joint_init(&spec.joint, HG_JOINT_REVOLUTE, ax, NULL, 0, &jwhy))
    return hg_ydoc_fail(&c->doc, n, "wheel '%s': %s", a->name, jwhy ? jwhy : "bad axis");
  spec.inertia.m = a->mass;
  memcpy(spec.inertia.I, Ic, sizeof Ic);
  if (hg_builder_add_body(c->s->builder, &spec, &e))
    return hg_ydoc_fail(&c->doc, n, "wheel '%s': %s", a->name, e.msg);
  return 0;
}

/* a wheel's keys; before the model is compiled (build: add its body; the body it sits on is
 * checked against the builder) or after it (the body is checked against the model) */
static int wheel(hg_sctx *c, const hg_ynode *n, hg_actuator_spec *a, int build) {
  const hg_ynode *bn = hg_sc_required(c, n, "body", "reaction_wheel");
  const char *body;
  if (!bn || !hg_sc_required(c, n, "axis", "reaction_wheel") ||
      !hg_sc_required(c, n, "inertia", "reaction_wheel") ||
      !hg_sc_required(c, n, "mass", "reaction_wheel") ||
      hg_ydoc_name(&c->doc, bn, "'body'", &body))
    return -1;
  if (!build && hg_sc_body_ref(c, bn, "'body'", &body, NULL)) return -1;
  if (hg_sc_strdup(c, bn, body, &a->body) || hg_sc_strdup(c, n, a->name, &a->joint) ||
      unit_vec(c, n, "axis", a->axis) || hg_yget_vec(&c->doc, n, "position", 3, a->position) ||
      hg_sc_positive(c, n, "inertia", &a->inertia) || hg_sc_positive(c, n, "mass", &a->mass))
    return -1;
  a->transverse_inertia = a->inertia / 2;
  if (hg_sc_positive(c, n, "transverse_inertia", &a->transverse_inertia) ||
      positive_inf(c, n, "max_torque", &a->max_torque) ||
      positive_inf(c, n, "max_speed", &a->max_speed) ||
      hg_yget_number(&c->doc, n, "speed", &a->speed) || drive(c, n, a) ||
      hg_sc_bounded(c, n, "wheel speed", &a->speed, 1, HG_SC_MAX_RATE, "rad/s"))
    return -1;
  if (fabs(a->speed) > a->max_speed)
    return hg_ydoc_fail(&c->doc, hg_ydoc_get(&c->doc, n, "speed"),
                        "'speed' %g rad/s is beyond the wheel's 'max_speed' %g rad/s", a->speed,
                        a->max_speed);
  if (hg_sc_bounded(c, hg_ydoc_get(&c->doc, n, "position"), "position", a->position, 3,
                    HG_SC_MAX_LENGTH, "m"))
    return -1;
  return build ? wheel_body(c, n, a) : 0;
}

/* the tank a thruster draws from */
static int tank_ref(hg_sctx *c, const hg_ynode *n, char **out) {
  const char *name;
  const char **names;
  if (hg_ydoc_name(&c->doc, n, "'tank'", &name)) return -1;
  for (int k = 0; k < c->s->ntank; k++)
    if (strcmp(c->s->tank[k].name, name) == 0) return hg_sc_strdup(c, n, name, out);
  names = malloc(((size_t)c->s->ntank + 1) * sizeof *names);
  for (int k = 0; names && k < c->s->ntank; k++) names[k] = c->s->tank[k].name;
  hg_sc_unknown(c, n, "tank", name, names, names ? c->s->ntank : 0);
  free(names);
  return -1;
}

/* where a thruster pushes: body with direction (and position), or a marker (origin, +z) */
static int thruster_frame(hg_sctx *c, const hg_ynode *n, hg_actuator_spec *a) {
  const hg_ynode *mn = hg_ydoc_get(&c->doc, n, "marker"), *bn = hg_ydoc_get(&c->doc, n, "body");
  const char *body;
  const hg_marker *mk;
  if (mn) {
    static const char *const frame[] = {"body", "position", "direction"};
    for (int k = 0; k < 3; k++)
      if (hg_ydoc_key(&c->doc, n, frame[k]))
        return hg_ydoc_fail(&c->doc, hg_ydoc_key(&c->doc, n, frame[k]),
                            "give a thruster a 'marker' (its origin and +z) or 'body' with "
                            "'direction', not both");
    if (hg_sc_marker_ref(c, mn, "'marker'", &mk) || hg_sc_strdup(c, mn, mk->name, &a->marker) ||
        hg_sc_strdup(c, mn, mk->body, &a->body))
      return -1;
    memcpy(a->position, mk->pose.p, sizeof a->position);
    for (int r = 0; r < 3; r++) a->direction[r] = mk->pose.R[3 * r + 2];
    return 0;
  }
  if (!bn)
    return hg_ydoc_fail(&c->doc, n, "a thruster needs a 'body' with a 'direction', or a 'marker'");
  if (!hg_sc_required(c, n, "direction", "thruster on a body") ||
      hg_sc_body_ref(c, bn, "'body'", &body, NULL) || hg_sc_strdup(c, bn, body, &a->body) ||
      unit_vec(c, n, "direction", a->direction) ||
      hg_yget_vec(&c->doc, n, "position", 3, a->position))
    return -1;
  return hg_sc_bounded(c, hg_ydoc_get(&c->doc, n, "position"), "position", a->position, 3,
                       HG_SC_MAX_LENGTH, "m");
}

/* a thruster: frame, thrust, pulse limits, ramps, mass flow */
static int thruster(hg_sctx *c, const hg_ynode *n, hg_actuator_spec *a) {
  const hg_ynode *on = hg_ydoc_get(&c->doc, n, "min_on"), *ib = hg_ydoc_get(&c->doc, n, "min_impulse");
  const hg_ynode *tn = hg_ydoc_get(&c->doc, n, "tank");
  double impulse = 0;
  if (thruster_frame(c, n, a) || !hg_sc_required(c, n, "thrust", "thruster") ||
      hg_sc_positive(c, n, "thrust", &a->thrust) ||
      hg_yget_bool(&c->doc, n, "proportional", &a->proportional) ||
      hg_sc_nonneg(c, n, "min_on", &a->min_on) || hg_sc_nonneg(c, n, "min_impulse", &impulse) ||
      positive_inf(c, n, "max_on", &a->max_on) || hg_sc_nonneg(c, n, "rise", &a->rise) ||
      hg_sc_nonneg(c, n, "fall", &a->fall) || hg_sc_nonneg(c, n, "isp", &a->isp) ||
      hg_yget_vec(&c->doc, n, "misalignment", 3, a->misalignment) ||
      (tn && tank_ref(c, tn, &a->tank)))
    return -1;
  if (on && ib)
    return hg_ydoc_fail(&c->doc, hg_ydoc_key(&c->doc, n, "min_impulse"),
                        "give 'min_on' (s) or 'min_impulse' (N s), not both");
  if (ib) a->min_on = impulse / a->thrust;
  if (a->min_on > a->max_on)
    return hg_ydoc_fail(&c->doc, on ? on : ib,
                        "the shortest pulse (%g s) is longer than 'max_on' (%g s)", a->min_on,
                        a->max_on);
  return 0;
}

/* one actuator (after the model is compiled) */
static int actuator(hg_sctx *c, const hg_ynode *n, int k) {
  hg_actuator_spec *a = &c->s->actuator[k];
  actuator_defaults(a);
  a->src = hg_sc_src(c, n);
  if (actuator_type(c, n, a) || control_name(c, n, "actuator", &a->name)) return -1;
  switch (a->type) {
  case HG_ACT_MOTOR: return motor(c, n, a);
  case HG_ACT_SERVO: return servo(c, n, a);
  case HG_ACT_WHEEL: return wheel(c, n, a, 0);
  case HG_ACT_THRUSTER: return thruster(c, n, a);
  }
  return 0;
}

/* the wheel's name is free among bodies and joints (m: the builder before the wheels, or NULL
 * when it does not assemble: the compiler reports that) */
static int wheel_name_free(hg_sctx *c, const hg_ynode *n, const char *name, const hg_model *m) {
  const hg_ynode *nn = hg_ydoc_get(&c->doc, n, "name");
  if (strcmp(name, "world") == 0 || hg_builder_body(c->s->builder, name))
    return hg_ydoc_fail(&c->doc, nn, "wheel name '%s' is taken by a body (a wheel is a body and "
                        "a joint of that name)", name);
  int taken = m && hg_model_joint(m, name) >= 0;
  for (int k = 0; k < c->nbody; k++) taken |= strcmp(c->body[k].joint, name) == 0;
  if (taken)
    return hg_ydoc_fail(&c->doc, nn, "wheel name '%s' is taken by a joint (a wheel is a body and "
                        "a joint of that name)", name);
  return 0;
}

/* the body a wheel sits on is in the builder and present at the start */
static int wheel_parent(hg_sctx *c, const hg_ynode *n) {
  const hg_ynode *bn = hg_ydoc_get(&c->doc, n, "body");
  const char *body = hg_ydoc_text(bn);
  const char **names;
  if (!body) return hg_ydoc_fail(&c->doc, bn ? bn : n, "a reaction_wheel needs a 'body'");
  for (int k = 0; k < c->nbody; k++)
    if (strcmp(c->body[k].name, body) == 0 && c->body[k].absent)
      return hg_ydoc_fail(&c->doc, bn, "body '%s' is not present at the start: a wheel sits on "
                          "a body present from the start", body);
  if (hg_builder_body(c->s->builder, body)) return 0;
  names = malloc(((size_t)c->nbody + 1) * sizeof *names);
  for (int k = 0; names && k < c->nbody; k++) names[k] = c->body[k].name;
  hg_sc_unknown(c, bn, "body", body, names, names ? c->nbody : 0);
  free(names);
  return -1;
}

/* the spec's strings (for the scratch specs of hg_sc_wheels) */
static void actuator_free(hg_actuator_spec *a) {
  free(a->name);
  free(a->joint);
  free(a->body);
  free(a->marker);
  free(a->tank);
  free(a->profile.times);
  free(a->profile.samples);
}

int hg_sc_wheels(hg_sctx *c, const hg_ynode *list) {
  hg_model *m = NULL;
  hg_error e;
  int rc = 0;
  if (hg_ydoc_expect_seq(&c->doc, list, "'actuators'")) return -1;
  for (int k = 0; k < hg_ydoc_len(list) && rc == 0; k++) {
    const hg_ynode *n = hg_ydoc_item(&c->doc, list, k);
    const char *type = hg_ydoc_is_map(n) ? hg_ydoc_text(hg_ydoc_get(&c->doc, n, "type")) : NULL;
    const hg_ynode *nn;
    const char *name;
    hg_actuator_spec a;
    if (!type || strcmp(type, "reaction_wheel") != 0) continue;
    if (!m) m = hg_builder_assemble(c->s->builder, &e); /* (NULL: the compiler reports why) */
    memset(&a, 0, sizeof a);
    actuator_defaults(&a);
    rc = actuator_type(c, n, &a) || !(nn = hg_sc_required(c, n, "name", "actuator")) ||
                 hg_ydoc_name(&c->doc, nn, "'name'", &name) ||
                 hg_sc_strdup(c, nn, name, &a.name) || wheel_name_free(c, n, name, m) ||
                 wheel_parent(c, n) || wheel(c, n, &a, 1)
             ? -1
             : 0;
    actuator_free(&a);
  }
  hg_model_free(m);
  return rc;
}

/* each wheel's initial speed joins the initial joint states, unless 'initial' names its joint */
static int wheel_speeds(hg_sctx *c, const hg_ynode *list) {
  hg_scene *s = c->s;
  int nw = 0;
  for (int k = 0; k < s->nactuator; k++) nw += s->actuator[k].type == HG_ACT_WHEEL;
  if (nw == 0) return 0;
  hg_joint_init_spec *grown = realloc(s->jinit, ((size_t)s->njinit + (size_t)nw) * sizeof *grown);
  if (!grown) return hg_ydoc_fail(&c->doc, list, "out of memory");
  s->jinit = grown;
  for (int k = 0; k < s->nactuator; k++) {
    const hg_actuator_spec *a = &s->actuator[k];
    int given = 0;
    if (a->type != HG_ACT_WHEEL) continue;
    for (int j = 0; j < s->njinit; j++) given |= strcmp(s->jinit[j].joint, a->joint) == 0;
    if (given) continue;
    hg_joint_init_spec *ji = &s->jinit[s->njinit];
    memset(ji, 0, sizeof *ji);
    ji->src = a->src;
    ji->has_v = 1;
    ji->v[0] = a->speed;
    if (!(ji->joint = hg_strdup(a->joint))) return hg_ydoc_fail(&c->doc, list, "out of memory");
    s->njinit++;
  }
  return 0;
}

int hg_sc_actuators(hg_sctx *c, const hg_ynode *list) {
  if (hg_sc_seq(c, list, "'actuators'", sizeof *c->s->actuator, (void **)&c->s->actuator,
                &c->s->nactuator, actuator))
    return -1;
  return wheel_speeds(c, list);
}

/* ---- tanks ---- */

static const char *const tank_keys[] = {"name", "body", "propellant", "position", "radius", NULL};

/* one tank: a sphere of propellant in a body */
static int tank(hg_sctx *c, const hg_ynode *n, int k) {
  hg_tank_spec *t = &c->s->tank[k];
  const hg_ynode *bn;
  const char *body;
  t->src = hg_sc_src(c, n);
  if (hg_ydoc_check_keys(&c->doc, n, "tank", tank_keys) || control_name(c, n, "tank", &t->name) ||
      !(bn = hg_sc_required(c, n, "body", "tank")) ||
      !hg_sc_required(c, n, "propellant", "tank") ||
      hg_sc_body_ref(c, bn, "'body'", &body, NULL) || hg_sc_strdup(c, bn, body, &t->body) ||
      hg_sc_nonneg(c, n, "propellant", &t->propellant) ||
      hg_yget_vec(&c->doc, n, "position", 3, t->position) ||
      hg_sc_nonneg(c, n, "radius", &t->radius))
    return -1;
  return hg_sc_bounded(c, hg_ydoc_get(&c->doc, n, "position"), "position", t->position, 3,
                       HG_SC_MAX_LENGTH, "m");
}

int hg_sc_tanks(hg_sctx *c, const hg_ynode *list) {
  return hg_sc_seq(c, list, "'tanks'", sizeof *c->s->tank, (void **)&c->s->tank, &c->s->ntank,
                   tank);
}

/* ---- sensors ---- */

/* in hg_sensor_type order */
static const char *const sensor_types[] = {"encoder",     "joint_state", "gyro",
                                           "accelerometer", "star_tracker", "sun_sensor",
                                           "earth_sensor", "force_torque", "pose", "twist"};
#define NSENSOR 10
static const char *const sensor_keys[] = {
    "name", "type", "rate", "body", "marker", "joint", "dof", "resolution", "noise", "bias",
    "density", "random_walk", "bias_instability", "correlation_time", "scale_factor",
    "misalignment", "range", "lsb", "dropout", "fov", "sun", NULL};
/* each type's keys beyond name and type */
static const char *const enc_keys[] = {"rate", "joint", "dof", "resolution", "noise", "bias", NULL};
static const char *const js_keys[] = {"rate", "joint", NULL};
static const char *const imu_keys[] = {"rate", "body", "marker", "density", "random_walk", "bias",
                                       "bias_instability", "correlation_time", "scale_factor",
                                       "misalignment", "range", "lsb", NULL};
static const char *const st_keys[] = {"rate", "body", "marker", "noise", "bias", "dropout", NULL};
static const char *const sun_keys[] = {"rate", "body", "marker", "noise", "fov", "sun", NULL};
static const char *const earth_keys[] = {"rate", "body", "marker", "noise", "fov", NULL};
static const char *const ft_keys[] = {"rate", "joint", "marker", "noise", "bias", NULL};
static const char *const truth_keys[] = {"rate", "body", "marker", NULL};
static const char *const *const sensor_shape[NSENSOR] = {
    enc_keys, js_keys, imu_keys, imu_keys, st_keys, sun_keys, earth_keys, ft_keys, truth_keys,
    truth_keys};
/* how many numbers 'noise' and 'bias' take per type (0: the key does not apply); a star
 * tracker's single noise number applies to every axis */
static const int noise_len[NSENSOR] = {1, 0, 0, 0, 3, 1, 1, 2, 0, 0};
static const int bias_len[NSENSOR] = {1, 0, 3, 3, 3, 0, 0, 6, 0, 0};

/* the frame: a body or a marker (exactly one) */
static int sensor_frame(hg_sctx *c, const hg_ynode *n, hg_sensor_spec *s) {
  const hg_ynode *bn = hg_ydoc_get(&c->doc, n, "body"), *mn = hg_ydoc_get(&c->doc, n, "marker");
  const char *body;
  const hg_marker *mk;
  if (bn && mn)
    return hg_ydoc_fail(&c->doc, hg_ydoc_key(&c->doc, n, "marker"),
                        "give a sensor a 'body' or a 'marker', not both");
  if (!bn && !mn)
    return hg_ydoc_fail(&c->doc, n, "a %s sensor needs a 'body' or a 'marker'",
                        sensor_types[s->type]);
  if (bn) return hg_sc_body_ref(c, bn, "'body'", &body, NULL) || hg_sc_strdup(c, bn, body, &s->body);
  return hg_sc_marker_ref(c, mn, "'marker'", &mk) || hg_sc_strdup(c, mn, mk->name, &s->marker);
}

/* the joint of an encoder, a joint_state or a force_torque sensor (and an encoder's DoF) */
static int sensor_joint(hg_sctx *c, const hg_ynode *n, hg_sensor_spec *s) {
  const hg_ynode *jn = hg_ydoc_get(&c->doc, n, "joint");
  const char *name;
  hg_joint j;
  int nq;
  if (s->type == HG_SENSOR_FORCE_TORQUE) {
    const hg_ynode *mn = hg_ydoc_get(&c->doc, n, "marker");
    const hg_marker *mk;
    if (jn && mn)
      return hg_ydoc_fail(&c->doc, hg_ydoc_key(&c->doc, n, "marker"),
                          "give a force_torque sensor a 'joint' or a 'marker', not both");
    if (!jn && !mn)
      return hg_ydoc_fail(&c->doc, n, "a force_torque sensor needs a 'joint' or a 'marker'");
    if (mn)
      return hg_sc_marker_ref(c, mn, "'marker'", &mk) || hg_sc_strdup(c, mn, mk->name, &s->marker);
  }
  if (!jn && !(jn = hg_sc_required(c, n, "joint", sensor_types[s->type]))) return -1;
  if (hg_sc_joint_ref(c, jn, "'joint'", &name, &j) || hg_sc_strdup(c, jn, name, &s->joint) ||
      hg_yget_integer(&c->doc, n, "dof", &s->dof))
    return -1;
  nq = hg_joint_nq(j.type);
  if (s->type != HG_SENSOR_FORCE_TORQUE && nq == 0)
    return hg_ydoc_fail(&c->doc, jn, "joint '%s' is fixed: nothing to measure", name);
  if (s->type == HG_SENSOR_ENCODER && (s->dof < 0 || s->dof >= nq))
    return hg_ydoc_fail(&c->doc, hg_ydoc_get(&c->doc, n, "dof"),
                        "'dof' must be in [0, %d] for joint '%s', got %d", nq - 1, name, s->dof);
  return 0;
}

/* 'noise' and 'bias' of the lengths the type takes (nonnegative noise) */
static int noise_bias(hg_sctx *c, const hg_ynode *n, hg_sensor_spec *s) {
  const hg_ynode *nn = hg_ydoc_get(&c->doc, n, "noise"), *bn = hg_ydoc_get(&c->doc, n, "bias");
  int t = s->type, count = 0;
  if (nn) {
    int len = noise_len[t], ok;
    if (t == HG_SENSOR_STAR_TRACKER) {
      if (numbers(c, nn, "'noise'", 3, s->noise, &count)) return -1;
      ok = count == 1 || count == 3;
      if (count == 1) s->noise[1] = s->noise[2] = s->noise[0];

    } else {
      if (numbers(c, nn, "'noise'", len, s->noise, &count)) return -1;
      ok = count == len;
    }
    if (!ok)
      return hg_ydoc_fail(&c->doc, nn, "a %s sensor's 'noise' is %s, got %d number%s",
                          sensor_types[t],
                          t == HG_SENSOR_STAR_TRACKER ? "3 numbers (x, y, z, rad) or 1 (every axis)"
                          : t == HG_SENSOR_FORCE_TORQUE ? "2 numbers (force N, torque N m)"
                                                        : "1 number",
                          count, count == 1 ? "" : "s");
    for (int k = 0; k < 3; k++)
      if (s->noise[k] < 0)
        return hg_ydoc_fail(&c->doc, nn, "'noise' must be >= 0, got %g", s->noise[k]);
  }
  if (bn) {
    if (numbers(c, bn, "'bias'", bias_len[t], s->bias, &count)) return -1;
    if (count != bias_len[t])
      return hg_ydoc_fail(&c->doc, bn, "a %s sensor's 'bias' is %d number%s, got %d",
                          sensor_types[t], bias_len[t], bias_len[t] == 1 ? "" : "s", count);
  }
  return 0;
}

/* the IMU's error model */
static int imu(hg_sctx *c, const hg_ynode *n, hg_sensor_spec *s) {
  if (hg_sc_nonneg(c, n, "density", &s->density) ||
      hg_sc_nonneg(c, n, "random_walk", &s->random_walk) ||
      hg_sc_nonneg(c, n, "bias_instability", &s->bias_instability) ||
      hg_sc_nonneg(c, n, "correlation_time", &s->correlation_time) ||
      hg_yget_vec(&c->doc, n, "scale_factor", 3, s->scale_factor) ||
      hg_yget_vec(&c->doc, n, "misalignment", 3, s->misalignment) ||
      hg_sc_nonneg(c, n, "range", &s->range) || hg_sc_nonneg(c, n, "lsb", &s->lsb))
    return -1;
  if (s->bias_instability > 0 && !(s->correlation_time > 0))
    return hg_ydoc_fail(&c->doc, hg_ydoc_get(&c->doc, n, "bias_instability"),
                        "'bias_instability' needs a positive 'correlation_time' (s)");
  return 0;
}

/* the field of view (half-angle about +z, in [0, pi]) and the sun's direction */
static int optical(hg_sctx *c, const hg_ynode *n, hg_sensor_spec *s) {
  if (hg_sc_nonneg(c, n, "fov", &s->fov)) return -1;
  if (s->fov > HG_SC_PI)
    return hg_ydoc_fail(&c->doc, hg_ydoc_get(&c->doc, n, "fov"),
                        "'fov' is a half-angle in [0, pi] rad, got %g", s->fov);
  if (s->type != HG_SENSOR_SUN) return 0;
  if (!hg_sc_required(c, n, "sun", "sun_sensor")) return -1;
  return unit_vec(c, n, "sun", s->sun);
}

/* one sensor */
static int sensor(hg_sctx *c, const hg_ynode *n, int k) {
  hg_sensor_spec *s = &c->s->sensor[k];
  const hg_ynode *tn;
  char what[64];
  int t;
  s->src = hg_sc_src(c, n);
  if (hg_ydoc_check_keys(&c->doc, n, "sensor", sensor_keys) ||
      !(tn = hg_sc_required(c, n, "type", "sensor")) ||
      hg_ydoc_choice(&c->doc, tn, "sensor type", sensor_types, NSENSOR, &t))
    return -1;
  s->type = (hg_sensor_type)t;
  snprintf(what, sizeof what, "a %s sensor", sensor_types[t]);
  if (keys_apply(c, n, sensor_shape[t], what) || control_name(c, n, "sensor", &s->name) ||
      rate(c, n, "sensor", &s->rate))
    return -1;
  int at_joint = t == HG_SENSOR_ENCODER || t == HG_SENSOR_JOINT_STATE || t == HG_SENSOR_FORCE_TORQUE;
  if ((at_joint ? sensor_joint(c, n, s) : sensor_frame(c, n, s)) || noise_bias(c, n, s) ||
      hg_sc_nonneg(c, n, "resolution", &s->resolution))
    return -1;
  if (t == HG_SENSOR_GYRO || t == HG_SENSOR_ACCELEROMETER) return imu(c, n, s);
  if (t == HG_SENSOR_SUN || t == HG_SENSOR_EARTH) return optical(c, n, s);
  if (t == HG_SENSOR_STAR_TRACKER) {
    if (hg_sc_nonneg(c, n, "dropout", &s->dropout)) return -1;
    if (s->dropout > 1)
      return hg_ydoc_fail(&c->doc, hg_ydoc_get(&c->doc, n, "dropout"),
                          "'dropout' is a probability in [0, 1], got %g", s->dropout);
  }
  return 0;
}

int hg_sc_sensors(hg_sctx *c, const hg_ynode *list) {
  return hg_sc_seq(c, list, "'sensors'", sizeof *c->s->sensor, (void **)&c->s->sensor,
                   &c->s->nsensor, sensor);
}

/* ---- controllers ---- */

/* in hg_controller_type order */
static const char *const controller_types[] = {"attitude_pd", "joint_pd", "thruster_logic",
                                               "library", "external"};
#define NCTL 5
static const char *const controller_keys[] = {
    "name", "type", "rate", "inputs", "outputs", "params", "enabled", "profile", "library",
    "symbol", "command", "timeout", NULL};
static const char *const builtin_keys[] = {"rate", "inputs", "outputs", "params", "enabled", NULL};
static const char *const joint_pd_keys[] = {"rate", "inputs", "outputs", "params", "enabled",
                                            "profile", NULL};
static const char *const library_keys[] = {"rate", "inputs", "outputs", "params", "enabled",
                                           "library", "symbol", NULL};
static const char *const external_keys[] = {"rate", "inputs", "outputs", "params", "enabled",
                                            "command", "timeout", NULL};
static const char *const *const controller_shape[NCTL] = {builtin_keys, joint_pd_keys,
                                                          builtin_keys, library_keys,
                                                          external_keys};
/* the parameters of the built-in types (NULL: any name) */
static const char *const attitude_params[] = {"kp", "kd", "target", "max_rate", "max_torque"};
static const char *const joint_pd_params[] = {"kp", "kd", "target", "effort"};
static const char *const logic_params[] = {"on", "off", "min_on", "pwm"};
static const struct {
  int n;
  const char *const *names;
} builtin_params[NCTL] = {{5, attitude_params}, {4, joint_pd_params}, {4, logic_params}, {0, NULL},
                          {0, NULL}};
#define HG_SC_MAX_PARAM 64 /* numbers in one parameter */

/* the controller of the scene named name, or NULL */
static const hg_controller_spec *controller_named(const hg_scene *s, const char *name) {
  for (int k = 0; k < s->ncontroller; k++)
    if (s->controller[k].name && strcmp(s->controller[k].name, name) == 0) return &s->controller[k];
  return NULL;
}

/* a parameter name of a built-in controller type t (any name for the others, unless known is
 * given: then one of the controller's own params) */
static int param_name(hg_sctx *c, const hg_ynode *n, const hg_controller_spec *ctl,
                      const char *name, int own) {
  const char **names;
  int t = ctl->type;
  if (builtin_params[t].names) {
    for (int k = 0; k < builtin_params[t].n; k++)
      if (strcmp(builtin_params[t].names[k], name) == 0) return 0;
    char kind[64];
    snprintf(kind, sizeof kind, "%s parameter", controller_types[t]);
    return hg_sc_unknown(c, n, kind, name, builtin_params[t].names, builtin_params[t].n);
  }
  if (!own) return 0;
  for (int k = 0; k < ctl->nparam; k++)
    if (strcmp(ctl->param[k].name, name) == 0) return 0;
  names = malloc(((size_t)ctl->nparam + 1) * sizeof *names);
  for (int k = 0; names && k < ctl->nparam; k++) names[k] = ctl->param[k].name;
  hg_sc_unknown(c, n, "parameter", name, names, names ? ctl->nparam : 0);
  free(names);
  return -1;
}

/* 1 when a scalar reads as a number (a plain scalar strtod takes whole) */
static int numeric(const hg_ynode *n) {
  const char *t = hg_ydoc_text(n);
  char *end;
  if (!t || !t[0] || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE) return 0;
  strtod(t, &end);
  return *end == 0;
}

/* one parameter: a number, a list of numbers, or a string (library and external only) */
static int param(hg_sctx *c, const hg_ynode *key, const hg_ynode *v, hg_controller_spec *ctl,
                 hg_param_spec *p) {
  const char *name;
  p->src = hg_sc_src(c, key);
  if (hg_ydoc_name(&c->doc, key, "a parameter", &name) ||
      param_name(c, key, ctl, name, 0) || hg_sc_strdup(c, key, name, &p->name))
    return -1;
  if (hg_ydoc_is_scalar(v) && !numeric(v)) {
    if (builtin_params[ctl->type].names)
      return hg_ydoc_fail(&c->doc, v, "parameter '%s' of a %s controller is a number or a list "
                          "of numbers, got '%s'", name, controller_types[ctl->type],
                          hg_ydoc_text(v));
    return hg_sc_strdup(c, v, hg_ydoc_text(v), &p->text);
  }
  if (hg_sc_alloc(c, v, HG_SC_MAX_PARAM, sizeof *p->value, (void **)&p->value)) return -1;
  return numbers(c, v, "a parameter", HG_SC_MAX_PARAM, p->value, &p->n);
}

/* params: a mapping of name -> value */
static int params(hg_sctx *c, const hg_ynode *n, hg_controller_spec *ctl) {
  const hg_ynode *pn = hg_ydoc_get(&c->doc, n, "params");
  if (!pn) return 0;
  if (hg_ydoc_expect_map(&c->doc, pn, "'params' (name: value)") ||
      hg_sc_alloc(c, pn, hg_ydoc_len(pn), sizeof *ctl->param, (void **)&ctl->param))
    return -1;
  for (int k = 0; k < hg_ydoc_len(pn); k++) {
    const hg_ynode *key = hg_ydoc_pair_key(&c->doc, pn, k);
    ctl->nparam = k + 1;
    if (param(c, key, hg_ydoc_pair_value(&c->doc, pn, k), ctl, &ctl->param[k])) return -1;
    for (int j = 0; j < k; j++)
      if (strcmp(ctl->param[j].name, ctl->param[k].name) == 0)
        return hg_ydoc_fail(&c->doc, key, "parameter '%s' given twice (first at line %d)",
                            ctl->param[k].name, ctl->param[j].src.line);
  }
  return 0;
}

/* a list of names (inputs, outputs) copied into *names; checked once every controller is read */
static int name_list(hg_sctx *c, const hg_ynode *n, const char *key, int *count, char ***names) {
  const hg_ynode *ln = hg_ydoc_get(&c->doc, n, key);
  char what[64];
  snprintf(what, sizeof what, "'%s' (a list of names)", key);
  if (!ln) return 0;
  if (hg_ydoc_expect_seq(&c->doc, ln, what) ||
      hg_sc_alloc(c, ln, hg_ydoc_len(ln), sizeof **names, (void **)names))
    return -1;
  for (int k = 0; k < hg_ydoc_len(ln); k++) {
    const hg_ynode *item = hg_ydoc_item(&c->doc, ln, k);
    const char *name;
    *count = k + 1;
    if (hg_ydoc_name(&c->doc, item, what, &name) || hg_sc_strdup(c, item, name, &(*names)[k]))
      return -1;
  }
  return 0;
}

/* one controller: what is its own (the references are checked by controller_io) */
static int controller(hg_sctx *c, const hg_ynode *n, int k) {
  hg_controller_spec *ctl = &c->s->controller[k];
  const hg_ynode *tn;
  char what[64];
  int t;
  ctl->enabled = 1;
  ctl->timeout = 10;
  ctl->src = hg_sc_src(c, n);
  if (hg_ydoc_check_keys(&c->doc, n, "controller", controller_keys) ||
      !(tn = hg_sc_required(c, n, "type", "controller")) ||
      hg_ydoc_choice(&c->doc, tn, "controller type", controller_types, NCTL, &t))
    return -1;
  ctl->type = (hg_controller_type)t;
  snprintf(what, sizeof what, "a %s controller", controller_types[t]);
  if (keys_apply(c, n, controller_shape[t], what) ||
      control_name(c, n, "controller", &ctl->name) || rate(c, n, "controller", &ctl->rate) ||
      hg_yget_bool(&c->doc, n, "enabled", &ctl->enabled) ||
      name_list(c, n, "inputs", &ctl->ninput, &ctl->input) ||
      name_list(c, n, "outputs", &ctl->noutput, &ctl->output) || params(c, n, ctl))
    return -1;
  if (t == HG_CTL_LIBRARY) {
    const hg_ynode *ln = hg_sc_required(c, n, "library", "library controller");
    const hg_ynode *sn = hg_sc_required(c, n, "symbol", "library controller");
    const char *file, *symbol;
    if (!ln || !sn || hg_ydoc_name(&c->doc, ln, "'library'", &file) ||
        hg_ydoc_name(&c->doc, sn, "'symbol'", &symbol) ||
        hg_sc_strdup(c, sn, symbol, &ctl->symbol) || !(ctl->library = hg_sc_resolve(c, ln, file)))
      return -1;
  }
  if (t == HG_CTL_EXTERNAL) {
    const hg_ynode *cn = hg_sc_required(c, n, "command", "external controller");
    const char *command;
    if (!cn || hg_ydoc_name(&c->doc, cn, "'command'", &command) ||
        hg_sc_strdup(c, cn, command, &ctl->command) ||
        hg_sc_positive(c, n, "timeout", &ctl->timeout))
      return -1;
  }
  return 0;
}

/* what a name of inputs or outputs refers to */
typedef struct ref {
  const hg_actuator_spec *act;
  const hg_sensor_spec *sen;
  const hg_controller_spec *ctl;
} ref;

/* an input (a sensor or a controller) or an output (an actuator or a controller) of ctl */
static int io_ref(hg_sctx *c, const hg_ynode *item, const hg_controller_spec *ctl, int output,
                  ref *r) {
  const hg_scene *s = c->s;
  const char *name = hg_ydoc_text(item);
  const char **names;
  int nn = 0;
  memset(r, 0, sizeof *r);
  if (strcmp(name, ctl->name) == 0)
    return hg_ydoc_fail(&c->doc, item, "controller '%s' cannot name itself in its %s", name,
                        output ? "outputs" : "inputs");
  r->ctl = controller_named(s, name);
  for (int k = 0; !r->ctl && output && k < s->nactuator; k++)
    if (strcmp(s->actuator[k].name, name) == 0) r->act = &s->actuator[k];
  for (int k = 0; !r->ctl && !output && k < s->nsensor; k++)
    if (strcmp(s->sensor[k].name, name) == 0) r->sen = &s->sensor[k];
  if (r->ctl || r->act || r->sen) return 0;
  names = malloc(((size_t)s->nactuator + (size_t)s->nsensor + (size_t)s->ncontroller + 1) *
                 sizeof *names);
  for (int k = 0; names && output && k < s->nactuator; k++) names[nn++] = s->actuator[k].name;
  for (int k = 0; names && !output && k < s->nsensor; k++) names[nn++] = s->sensor[k].name;
  for (int k = 0; names && k < s->ncontroller; k++) names[nn++] = s->controller[k].name;
  hg_sc_unknown(c, item, output ? "output (an actuator or a controller)"
                                : "input (a sensor or a controller)", name, names, nn);
  free(names);
  return -1;
}

/* attitude_pd: inputs [attitude, rate], outputs every wheel or one thruster_logic controller */
static int attitude_io(hg_sctx *c, const hg_ynode *in, const hg_ynode *out, const ref *ri,
                       const ref *ro, int nin, int nout) {
  if (nin != 2 || !ri[0].sen ||
      (ri[0].sen->type != HG_SENSOR_STAR_TRACKER && ri[0].sen->type != HG_SENSOR_POSE) ||
      !ri[1].sen || (ri[1].sen->type != HG_SENSOR_GYRO && ri[1].sen->type != HG_SENSOR_TWIST))
    return hg_ydoc_fail(&c->doc, in, "an attitude_pd controller's inputs are [attitude, rate]: a "
                        "star_tracker or pose sensor, then a gyro or twist sensor");
  if (nout == 1 && ro[0].ctl && ro[0].ctl->type == HG_CTL_THRUSTER_LOGIC) return 0;
  for (int k = 0; k < nout; k++)
    if (!ro[k].act || ro[k].act->type != HG_ACT_WHEEL)
      return hg_ydoc_fail(&c->doc, hg_ydoc_item(&c->doc, out, k),
                          "an attitude_pd controller's outputs are reaction wheels, or one "
                          "thruster_logic controller");
  if (nout == 0)
    return hg_ydoc_fail(&c->doc, out, "an attitude_pd controller needs outputs (reaction wheels, "
                        "or one thruster_logic controller)");
  return 0;
}

/* thruster_logic: one controller input, thruster outputs */
static int logic_io(hg_sctx *c, const hg_ynode *in, const hg_ynode *out, const ref *ri,
                    const ref *ro, int nin, int nout) {
  if (nin != 1 || !ri[0].ctl)
    return hg_ydoc_fail(&c->doc, in, "a thruster_logic controller's input is one controller (its "
                        "torque or force demand)");
  if (nout == 0)
    return hg_ydoc_fail(&c->doc, out, "a thruster_logic controller needs thrusters as outputs");
  for (int k = 0; k < nout; k++)
    if (!ro[k].act || ro[k].act->type != HG_ACT_THRUSTER)
      return hg_ydoc_fail(&c->doc, hg_ydoc_item(&c->doc, out, k),
                          "a thruster_logic controller's outputs are thrusters");
  return 0;
}

/* joint_pd: motor outputs, one encoder or joint_state input per output on its joint */
static int joint_pd_io(hg_sctx *c, const hg_ynode *in, const hg_ynode *out, const ref *ri,
                       const ref *ro, int nin, int nout) {
  if (nout == 0) return hg_ydoc_fail(&c->doc, out, "a joint_pd controller needs motors as outputs");
  for (int k = 0; k < nout; k++)
    if (!ro[k].act || ro[k].act->type != HG_ACT_MOTOR)
      return hg_ydoc_fail(&c->doc, hg_ydoc_item(&c->doc, out, k),
                          "a joint_pd controller's outputs are motors");
  if (nin != nout)
    return hg_ydoc_fail(&c->doc, in, "a joint_pd controller takes one input per output (%d), got "
                        "%d", nout, nin);
  for (int k = 0; k < nin; k++) {
    const hg_sensor_spec *s = ri[k].sen;
    const hg_actuator_spec *a = ro[k].act;
    if (!s || (s->type != HG_SENSOR_ENCODER && s->type != HG_SENSOR_JOINT_STATE))
      return hg_ydoc_fail(&c->doc, hg_ydoc_item(&c->doc, in, k),
                          "a joint_pd controller's inputs are encoder or joint_state sensors");
    if (strcmp(s->joint, a->joint) != 0 || (s->type == HG_SENSOR_ENCODER && s->dof != a->dof))
      return hg_ydoc_fail(&c->doc, hg_ydoc_item(&c->doc, in, k),
                          "input '%s' measures joint '%s' (dof %d), but output '%s' drives joint "
                          "'%s' (dof %d)", s->name, s->joint, s->dof, a->name, a->joint, a->dof);
  }
  return 0;
}

/* the references of controller k, the rules of its type, its profile */
static int controller_io(hg_sctx *c, const hg_ynode *n, int k) {
  hg_controller_spec *ctl = &c->s->controller[k];
  const hg_ynode *in = hg_ydoc_get(&c->doc, n, "inputs"), *out = hg_ydoc_get(&c->doc, n, "outputs");
  ref *ri = calloc((size_t)ctl->ninput + 1, sizeof *ri), *ro = calloc((size_t)ctl->noutput + 1,
                                                                       sizeof *ro);
  int rc = ri && ro ? 0 : hg_ydoc_fail(&c->doc, n, "out of memory");
  const hg_ynode *at = in ? in : n, *ot = out ? out : n;
  for (int j = 0; rc == 0 && j < ctl->ninput; j++)
    rc = io_ref(c, hg_ydoc_item(&c->doc, in, j), ctl, 0, &ri[j]);
  for (int j = 0; rc == 0 && j < ctl->noutput; j++)
    rc = io_ref(c, hg_ydoc_item(&c->doc, out, j), ctl, 1, &ro[j]);
  if (rc == 0 && ctl->type == HG_CTL_ATTITUDE_PD)
    rc = attitude_io(c, at, ot, ri, ro, ctl->ninput, ctl->noutput);
  if (rc == 0 && ctl->type == HG_CTL_THRUSTER_LOGIC)
    rc = logic_io(c, at, ot, ri, ro, ctl->ninput, ctl->noutput);
  if (rc == 0 && ctl->type == HG_CTL_JOINT_PD)
    rc = joint_pd_io(c, at, ot, ri, ro, ctl->ninput, ctl->noutput);
  if (rc == 0 && ctl->type == HG_CTL_JOINT_PD && hg_ydoc_get(&c->doc, n, "profile")) {
    /* the reference every output joint follows: read as the first output's joint's profile */
    const char *jname = ro[0].act->joint;
    hg_joint j = c->m->jnt[hg_model_joint(c->m, jname) > 0 ? hg_model_joint(c->m, jname) : 0];
    for (int o = 1; rc == 0 && o < ctl->noutput; o++) {
      int i = hg_model_joint(c->m, ro[o].act->joint);
      if (i <= 0 || c->m->jnt[i].type != j.type)
        rc = hg_ydoc_fail(&c->doc, hg_ydoc_get(&c->doc, n, "profile"),
                          "a joint_pd profile drives every output joint alike: joints '%s' and "
                          "'%s' are of different types", jname, ro[o].act->joint);
    }
    if (rc == 0) rc = control_profile(c, n, &j, &ctl->has_profile, &ctl->profile);
  }
  free(ri);
  free(ro);
  return rc;
}

int hg_sc_controllers(hg_sctx *c, const hg_ynode *list) {
  if (hg_sc_seq(c, list, "'controllers'", sizeof *c->s->controller, (void **)&c->s->controller,
                &c->s->ncontroller, controller))
    return -1;
  for (int k = 0; k < c->s->ncontroller; k++)
    if (controller_io(c, hg_ydoc_item(&c->doc, list, k), k)) return -1;
  return 0;
}

/* ---- noise_seed ---- */

int hg_sc_noise_seed(hg_sctx *c, const hg_ynode *root) {
  const hg_ynode *n = hg_ydoc_get(&c->doc, root, "noise_seed");
  const char *t = hg_ydoc_text(n);
  char *end;
  c->s->noise_seed = 1;
  if (!n) return 0;
  if (!t || !t[0] || t[0] == '-' || t[0] == '+' || !numeric(n))
    return hg_ydoc_fail(&c->doc, n, "expected a non-negative integer for 'noise_seed', got '%s'",
                        t ? t : "a list or a mapping");
  c->s->noise_seed = (uint64_t)strtoull(t, &end, 10);
  if (*end)
    return hg_ydoc_fail(&c->doc, n, "expected a non-negative integer for 'noise_seed', got '%s'",
                        t);
  return 0;
}

/* ---- actions ---- */

static const char *const actuate_keys[] = {"actuator", "command", NULL};
static const char *const set_gain_keys[] = {"controller", "param", "value", NULL};
static const char *const switch_keys[] = {"name", "on", NULL};

/* the actuator a name refers to, with a did-you-mean */
static const hg_actuator_spec *actuator_ref(hg_sctx *c, const hg_ynode *n) {
  const hg_scene *s = c->s;
  const char *name;
  const char **names;
  if (hg_ydoc_name(&c->doc, n, "'actuator'", &name)) return NULL;
  for (int k = 0; k < s->nactuator; k++)
    if (strcmp(s->actuator[k].name, name) == 0) return &s->actuator[k];
  names = malloc(((size_t)s->nactuator + 1) * sizeof *names);
  for (int k = 0; names && k < s->nactuator; k++) names[k] = s->actuator[k].name;
  hg_sc_unknown(c, n, "actuator", name, names, names ? s->nactuator : 0);
  free(names);
  return NULL;
}

/* the controller a name refers to, with a did-you-mean */
static const hg_controller_spec *controller_ref(hg_sctx *c, const hg_ynode *n, const char *what) {
  const hg_scene *s = c->s;
  const hg_controller_spec *ctl;
  const char *name;
  const char **names;
  if (hg_ydoc_name(&c->doc, n, what, &name)) return NULL;
  if ((ctl = controller_named(s, name))) return ctl;
  names = malloc(((size_t)s->ncontroller + 1) * sizeof *names);
  for (int k = 0; names && k < s->ncontroller; k++) names[k] = s->controller[k].name;
  hg_sc_unknown(c, n, "controller", name, names, names ? s->ncontroller : 0);
  free(names);
  return NULL;
}

/* the numbers of an action into a->values (1 to max of them) */
static int action_values(hg_sctx *c, const hg_ynode *n, const char *what, int max, hg_action *a) {
  if (hg_sc_alloc(c, n, max, sizeof *a->values, (void **)&a->values)) return -1;
  return numbers(c, n, what, max, a->values, &a->nvalue);
}

int hg_sc_actuate(hg_sctx *c, const hg_ynode *n, hg_action *a) {
  const hg_ynode *an, *cn;
  const hg_actuator_spec *act;
  if (hg_ydoc_check_keys(&c->doc, n, "actuate", actuate_keys) ||
      !(an = hg_sc_required(c, n, "actuator", "actuate")) ||
      !(cn = hg_sc_required(c, n, "command", "actuate")) || !(act = actuator_ref(c, an)) ||
      hg_sc_strdup(c, an, act->name, &a->device) || action_values(c, cn, "'command'", 2, a))
    return -1;
  if (act->type != HG_ACT_THRUSTER && a->nvalue != 1)
    return hg_ydoc_fail(&c->doc, cn, "a %s's command is 1 number, got %d",
                        actuator_types[act->type], a->nvalue);
  if (act->type == HG_ACT_THRUSTER) {
    if (!(a->values[0] >= 0 && a->values[0] <= 1))
      return hg_ydoc_fail(&c->doc, cn, "a thruster's level is in [0, 1], got %g", a->values[0]);
    if (a->nvalue == 2 && a->values[1] < 0)
      return hg_ydoc_fail(&c->doc, cn, "a thruster's on-time is >= 0 s, got %g", a->values[1]);
  }
  return 0;
}

int hg_sc_set_gain(hg_sctx *c, const hg_ynode *n, hg_action *a) {
  const hg_ynode *cn, *pn, *vn;
  const hg_controller_spec *ctl;
  const char *param;
  if (hg_ydoc_check_keys(&c->doc, n, "set_gain", set_gain_keys) ||
      !(cn = hg_sc_required(c, n, "controller", "set_gain")) ||
      !(pn = hg_sc_required(c, n, "param", "set_gain")) ||
      !(vn = hg_sc_required(c, n, "value", "set_gain")) ||
      !(ctl = controller_ref(c, cn, "'controller'")) ||
      hg_ydoc_name(&c->doc, pn, "'param'", &param) || param_name(c, pn, ctl, param, 1) ||
      hg_sc_strdup(c, cn, ctl->name, &a->device) || hg_sc_strdup(c, pn, param, &a->param))
    return -1;
  return action_values(c, vn, "'value'", HG_SC_MAX_PARAM, a);
}

int hg_sc_controller_switch(hg_sctx *c, const hg_ynode *n, hg_action *a) {
  const hg_ynode *nn, *on;
  const hg_controller_spec *ctl;
  if (hg_ydoc_check_keys(&c->doc, n, "controller", switch_keys) ||
      !(nn = hg_sc_required(c, n, "name", "controller")) ||
      !(on = hg_sc_required(c, n, "on", "controller")) ||
      !(ctl = controller_ref(c, nn, "'name'")) || hg_sc_strdup(c, nn, ctl->name, &a->device) ||
      hg_ydoc_bool(&c->doc, on, "'on'", &a->on))
    return -1;
  return 0;
}

/* ---- freeing ---- */

void hg_sc_free_control(hg_scene *s) {
  for (int k = 0; k < s->nactuator; k++) actuator_free(&s->actuator[k]);
  for (int k = 0; k < s->ntank; k++) {
    free(s->tank[k].name);
    free(s->tank[k].body);
  }
  for (int k = 0; k < s->nsensor; k++) {
    free(s->sensor[k].name);
    free(s->sensor[k].body);
    free(s->sensor[k].marker);
    free(s->sensor[k].joint);
  }
  for (int k = 0; k < s->ncontroller; k++) {
    hg_controller_spec *ctl = &s->controller[k];
    for (int j = 0; j < ctl->ninput; j++) free(ctl->input[j]);
    for (int j = 0; j < ctl->noutput; j++) free(ctl->output[j]);
    for (int j = 0; j < ctl->nparam; j++) {
      free(ctl->param[j].name);
      free(ctl->param[j].value);
      free(ctl->param[j].text);
    }
    free(ctl->input);
    free(ctl->output);
    free(ctl->param);
    free(ctl->name);
    free(ctl->profile.times);
    free(ctl->profile.samples);
    free(ctl->library);
    free(ctl->symbol);
    free(ctl->command);
  }
  free(s->actuator);
  free(s->tank);
  free(s->sensor);
  free(s->controller);
}
