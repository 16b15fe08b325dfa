/* sampling.c: control in the loop at its instants (sim_control.h): the sensors sample the state
 * (sensing.c), the servos run their loops, the controllers step, and the
 * commands they write are held until their next step. Each sensor, servo and controller samples
 * at t_start + k / rate exactly, k = 0, 1, ...; the integrator stops at each such time. At one
 * instant the order is: the actuators' breakpoints, the sensors, the servos, the controllers in
 * the scene's order (a controller sees what one before it wrote at the same instant). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "builtin.h"
#include "controller_lib.h"
#include "controller_proc.h"
#include "sim_internal.h"

/* the time of sample k at rate r */
static double sample_time(const hg_sim *s, long k, double rate) {
  return s->t_start + (double)k / rate;
}

/* ---- servos ---- */

/* servo k's loop at its sample: a PD(+I) on the joint's position (or rate) towards its setpoint
 * (its profile's, when it has one), the integral held while the drive saturates in the direction
 * it would grow (conditional integration); 1 when the drive changed */
static int servo_step(hg_sim *s, int k) {
  hg_rt_actuator *a = &s->ctl.act[k];
  const hg_actuator_spec *sp = a->spec;
  a->k_servo++;
  if (!a->present) return 0;
  const hg_model *m = s->m;
  double q = s->state.q[m->q_adr[a->jbody] + sp->dof], v = s->state.v[a->va];
  double qr = a->setpoint, vr = 0, dt = 1 / sp->rate;
  if (s->ctl.servo_prof && s->ctl.servo_prof[k]) {
    double qp[HG_JOINT_MAXNQ], vp[HG_JOINT_MAXNV];
    hg_profile_eval(s->ctl.servo_prof[k], s->state.t, qp, vp, NULL);
    qr = qp[0], vr = vp[0];
  }
  /* position loop: u = kp (q_r - q) + kd (v_r - v) + I; velocity loop: u = kp (v_r - v) + I,
   * with I += ki e dt */
  double e = sp->velocity_loop ? (sp->has_profile ? vr : qr) - v : qr - q;
  double pd = sp->velocity_loop ? sp->kp * e : sp->kp * e + sp->kd * (vr - v);
  double I = a->integral + sp->ki * e * dt;
  double lim = isfinite(sp->i_limit) ? sp->i_limit : INFINITY;
  I = fmax(-lim, fmin(lim, I));
  double u = pd + I;
  if (!(fabs(u) > sp->effort && u * e > 0)) a->integral = I; /* (anti-windup) */
  u = pd + a->integral;
  return hg_sim_control_drive(s, k, u);
}

/* ---- controllers ---- */

/* the index of name among sensors (>= 0), controllers (-1 - index) or actuators (>= 0, with
 * *is_act); -2^30 when none */
static int port_target(const hg_sim *s, const char *name, int *is_act) {
  const hg_scene *sc = s->scene;
  *is_act = 0;
  for (int k = 0; k < sc->nsensor; k++)
    if (strcmp(sc->sensor[k].name, name) == 0) return k;
  for (int k = 0; k < sc->ncontroller; k++)
    if (strcmp(sc->controller[k].name, name) == 0) return -1 - k;
  for (int k = 0; k < sc->nactuator; k++)
    if (strcmp(sc->actuator[k].name, name) == 0) return *is_act = 1, k;
  return -(1 << 30);
}

/* a controller-to-controller signal: a torque demand (N m, body axes) */
#define HG_SIGNAL_SIZE 3

/* the offset in consumer j's input vector of the port that names controller c */
static int signal_offset(const hg_sim *s, int j, int c) {
  const hg_rt_controller *r = &s->ctl.ctl[j];
  for (int p = 0; p < r->spec->ninput; p++)
    if (r->in_src[p] == -1 - c) return r->in_off[p];
  return -1;
}

/* the truth the controller reports of itself: attitude_pd's pointing error (deg) between its
 * body and its target, the body's rate (deg/s, body axes) and the torque it asks for (N m) */
static void telemetry(hg_sim *s, int c) {
  hg_rt_controller *r = &s->ctl.ctl[c];
  if (r->spec->type != HG_CTL_ATTITUDE_PD || r->body < 1 || r->body >= s->m->nbody) return;
  double q[4], qe[4], qt_inv[4] = {r->target[0], -r->target[1], -r->target[2], -r->target[3]};
  double V[6];
  hg_R_to_quat(s->d->T_world[r->body].R, q);
  hg_quat_mul(qt_inv, q, qe);
  double deg = 180 / 3.14159265358979323846;
  r->telemetry[0] = 2 * atan2(sqrt(qe[1] * qe[1] + qe[2] * qe[2] + qe[3] * qe[3]), fabs(qe[0])) *
                    deg;
  hg_body_twist(s->m, s->d, r->body, V);
  for (int a = 0; a < 3; a++) r->telemetry[1 + a] = V[a] * deg;
  /* the torque demand: what it wrote to a consumer, or what its wheels' commands put on the
   * body (-sum tau_k a_k) */
  double u[3] = {0, 0, 0};
  for (int p = 0; p < r->spec->noutput; p++) {
    const double *o = r->out + r->out_off[p];
    if (r->out_dst[p] < 0) {
      for (int a = 0; a < 3; a++) u[a] = o[a];
    } else if (r->out_is_act[p]) {
      const hg_rt_actuator *w = &s->ctl.act[r->out_dst[p]];
      if (w->spec->type == HG_ACT_WHEEL && !isnan(o[0]))
        for (int a = 0; a < 3; a++) u[a] -= o[0] * w->spec->axis[a];
    }
  }
  for (int a = 0; a < 3; a++) r->telemetry[4 + a] = u[a];
  r->ntelemetry = 7;
}

/* controller c steps now; 1 when an actuator's command changed, 0, or an error status */
static int controller_step(hg_sim *s, int c, int *changed) {
  hg_rt_controller *r = &s->ctl.ctl[c];
  const hg_controller_spec *sp = r->spec;
  r->k++;
  if (!r->enabled) return 0;
  /* the input vector: sensors' latest samples, what producers wrote, profile references */
  for (int p = 0; p < sp->ninput; p++) {
    double *in = r->in + r->in_off[p];
    int src = r->in_src[p];
    if (src >= 0) {
      const hg_rt_sensor *se = &s->ctl.sensor[src];
      memcpy(in, se->value, (size_t)r->in_n[p] * sizeof(double));
    } else {
      memcpy(in, r->signal + r->in_off[p], (size_t)r->in_n[p] * sizeof(double));
    }
    if (r->ref && r->ref[p]) { /* joint_pd: the reference follows the joint's port */
      double qp[HG_JOINT_MAXNQ], vp[HG_JOINT_MAXNV];
      hg_profile_eval(r->ref[p], s->state.t, qp, vp, NULL);
      in[r->in_n[p]] = qp[0], in[r->in_n[p] + 1] = vp[0];
    }
  }
  char err[512] = "";
  if (hg_ctl_step(r->ctl, s->state.t, r->in, r->out, err, sizeof err))
    return hg_sim_fail(s, HG_SIM_ERR_NUMERIC, "%s:%d:%d: %s", sp->src.file, sp->src.line,
                       sp->src.column, err);
  for (int p = 0; p < sp->noutput; p++) {
    const double *o = r->out + r->out_off[p];
    int dst = r->out_dst[p];
    if (r->out_is_act[p]) {
      *changed |= hg_sim_control_command(s, dst, o, r->out_n[p]);
    } else {
      int j = -1 - dst, off = signal_offset(s, j, c);
      if (off >= 0) memcpy(s->ctl.ctl[j].signal + off, o, (size_t)r->out_n[p] * sizeof(double));
    }
  }
  telemetry(s, c);
  return 0;
}

/* a controller off commands nothing: its actuators' commands go to zero, its consumers' demands
 * too */
static int controller_silence(hg_sim *s, int c) {
  hg_rt_controller *r = &s->ctl.ctl[c];
  int changed = 0;
  static const double zero[2] = {0, 0};
  for (int p = 0; p < r->spec->noutput; p++) {
    memset(r->out + r->out_off[p], 0, (size_t)r->out_n[p] * sizeof(double));
    if (r->out_is_act[p]) {
      const hg_rt_actuator *a = &s->ctl.act[r->out_dst[p]];
      if (a->spec->type != HG_ACT_SERVO) changed |= hg_sim_control_command(s, r->out_dst[p], zero, 2);
    } else {
      int j = -1 - r->out_dst[p], off = signal_offset(s, j, c);
      if (off >= 0) memset(s->ctl.ctl[j].signal + off, 0, (size_t)r->out_n[p] * sizeof(double));
    }
  }
  return changed;
}

/* ---- the instants ---- */

double hg_sim_control_next_time(const hg_sim *s) {
  const hg_rt_control *c = &s->ctl;
  double next = hg_sim_control_next_breakpoint(s);
  for (int k = 0; k < c->nsensor; k++)
    next = fmin(next, sample_time(s, c->sensor[k].k, c->sensor[k].spec->rate));
  for (int k = 0; k < c->nact; k++)
    if (c->act[k].spec->type == HG_ACT_SERVO)
      next = fmin(next, sample_time(s, c->act[k].k_servo, c->act[k].spec->rate));
  for (int k = 0; k < c->nctl; k++)
    next = fmin(next, sample_time(s, c->ctl[k].k, c->ctl[k].spec->rate));
  return next;
}

/* 1 when sample k at rate r is due at t; a sample left behind (a run resumed between two) is
 * skipped to the first one after t */
static int due(const hg_sim *s, long *k, double rate) {
  double t = s->state.t;
  if (sample_time(s, *k, rate) > t) return 0;
  if (sample_time(s, *k, rate) < t) {
    long j = (long)floor((t - s->t_start) * rate);
    while (sample_time(s, j, rate) < t) j++;
    if (sample_time(s, j, rate) > t) return *k = j, 0;
    *k = j;
  }
  return 1;
}

int hg_sim_control_due(hg_sim *s, int *sampled) {
  hg_rt_control *c = &s->ctl;
  int changed = hg_sim_control_breakpoints(s), any = 0;
  /* the state now for the sensors: its kinematics, and its accelerations and joint wrenches
   * (a whole evaluation of the dynamics) only when an accelerometer or a force/torque sensor
   * samples */
  int loads = 0;
  for (int k = 0; k < c->nsensor; k++) {
    if (!due(s, &c->sensor[k].k, c->sensor[k].spec->rate)) continue;
    any = 1;
    hg_sensor_type t = c->sensor[k].spec->type;
    loads |= t == HG_SENSOR_ACCELEROMETER || t == HG_SENSOR_FORCE_TORQUE;
  }
  if (any && !loads) hg_kinematics(s->m, s->d, s->state.q, s->state.v);
  if (any && loads) {
    double p;
    if (hg_sim_eval(s, s->state.t, s->state.q, s->state.v, &p))
      return hg_sim_fail(s, HG_SIM_ERR_NUMERIC, "t = %.17g: the sensors cannot evaluate the state",
                         s->state.t);
    /* the articulated pass leaves the bodies' accelerations in d->a; a constrained (closed-loop)
     * pass need not, so there they are walked again from the complete qdd */
    if (c->need_accel && s->loops.n) {
      /* (with fixed joints, RNEA steps over the moving bodies: the fixed ones are filled in) */
      hg_rnea(s->m, s->d, s->rhs.qs, s->rhs.vs, s->rhs.qdd, NULL, s->rhs.dv);
      if (hg_rnea_fixed_bodies(s->m, s->d, NULL))
        return hg_sim_fail(s, HG_SIM_ERR_NUMERIC, "t = %.17g: %s", s->state.t, s->d->err);
    }
  }
  if (any) {
    for (int k = 0; k < c->nsensor; k++)
      if (due(s, &c->sensor[k].k, c->sensor[k].spec->rate)) *sampled |= hg_sim_sensor_sample(s, k);
    s->views.view_ok = 0;
  }
  for (int k = 0; k < c->nact; k++)
    if (c->act[k].spec->type == HG_ACT_SERVO && due(s, &c->act[k].k_servo, c->act[k].spec->rate))
      changed |= servo_step(s, k);
  for (int k = 0; k < c->nctl; k++) {
    if (!due(s, &c->ctl[k].k, c->ctl[k].spec->rate)) continue;
    if (!any) { /* (the telemetry reads the kinematics of the present state) */
      hg_kinematics(s->m, s->d, s->state.q, s->state.v);
      s->views.view_ok = 0;
      any = 1;
    }
    int rc = controller_step(s, k, &changed);
    if (rc) return rc;
    *sampled = 1;
  }
  if (changed) s->tl.restart = 1;
  return 0;
}

/* ---- actions ---- */

/* the actuator (controllers 0) or controller (1) of that name in the scene; -1: none */
static int find_named(const hg_scene *sc, int controllers, const char *name) {
  int n = controllers ? sc->ncontroller : sc->nactuator;
  for (int k = 0; name && k < n; k++)
    if (strcmp(controllers ? sc->controller[k].name : sc->actuator[k].name, name) == 0) return k;
  return -1;
}

int hg_sim_control_action(hg_sim *s, const hg_action *a, char *buf, size_t len) {
  const hg_scene *sc = s->scene;
  hg_rt_control *c = &s->ctl;
  if (a->type == HG_ACTION_ACTUATE) {
    int k = find_named(sc, 0, a->device);
    if (k < 0 || !c->act[k].present)
      return snprintf(buf, len, "actuate %s: not in the simulation", a->device), 1;
    /* a thruster told only its level fires until told otherwise */
    double cmd[2] = {a->nvalue > 0 ? a->values[0] : NAN, a->nvalue > 1 ? a->values[1] : NAN};
    if (sc->actuator[k].type == HG_ACT_THRUSTER && a->nvalue == 1) cmd[1] = INFINITY;
    if (hg_sim_control_command(s, k, cmd, 2)) s->tl.restart = 1;
    if (a->nvalue > 1)
      return snprintf(buf, len, "actuate %s %.9g %.9g", a->device, a->values[0], a->values[1]), 0;
    return snprintf(buf, len, "actuate %s %.9g", a->device, a->nvalue ? a->values[0] : NAN), 0;
  }
  int k = find_named(sc, 1, a->device);
  if (k < 0) return snprintf(buf, len, "controller %s: no such controller", a->device), 1;
  hg_rt_controller *r = &c->ctl[k];
  if (a->type == HG_ACTION_CONTROLLER) {
    r->enabled = a->on;
    if (!a->on && controller_silence(s, k)) s->tl.restart = 1;
    return snprintf(buf, len, "controller %s %s", a->device, a->on ? "on" : "off"), 0;
  }
  char err[256] = "";
  if (hg_ctl_set(r->ctl, a->param, a->nvalue, a->values, err, sizeof err))
    return snprintf(buf, len, "set_gain %s %s: %s", a->device, a->param, err), 1;
  return snprintf(buf, len, "set_gain %s %s %.9g%s", a->device, a->param,
                  a->nvalue ? a->values[0] : NAN, a->nvalue > 1 ? " ..." : ""), 0;
}

/* ---- opening and closing ---- */

static const char *sensor_kind(hg_sensor_type t) {
  static const char *const names[] = {"encoder", "joint_state", "gyro", "accelerometer",
                                      "star_tracker", "sun_sensor", "earth_sensor",
                                      "force_torque", "pose", "twist"};
  return names[t];
}

static const char *actuator_kind(hg_actuator_type t) {
  static const char *const names[] = {"motor", "servo", "reaction_wheel", "thruster"};
  return names[t];
}

static const char *controller_kind(hg_controller_type t) {
  static const char *const names[] = {"attitude_pd", "joint_pd", "thruster_logic", "library",
                                      "external"};
  return names[t];
}

/* the joint's configuration at the start (the state after the initial one is set) */
static const double *joint_q(const hg_sim *s, const char *joint, int *i) {
  *i = hg_model_joint(s->m, joint);
  return *i > 0 ? s->state.q + s->m->q_adr[*i] : NULL;
}

/* a parameter the runtime derives for a built-in controller */
typedef struct derived {
  int n;
  hg_control_param param[4];
  double *value[4];
} derived;

static int derive(derived *dv, const char *name, int n) {
  double *x = calloc((size_t)(n > 0 ? n : 1), sizeof *x);
  if (!x) return -1;
  dv->param[dv->n] = (hg_control_param){name, n, x, NULL};
  dv->value[dv->n++] = x;
  return 0;
}

/* the frame of sensor sp in its body, from the scene (marker pose, or the identity) */
static void sensor_mount(const hg_sim *s, const hg_sensor_spec *sp, double q[4]) {
  const hg_marker *mk = sp->marker ? hg_scene_marker(s->scene, sp->marker) : NULL;
  q[0] = 1, q[1] = q[2] = q[3] = 0;
  if (mk) hg_R_to_quat(mk->pose.R, q);
}

/* the nominal force (N) and torque about the body origin (N m) of thruster sp, body frame */
static void thruster_nominal(const hg_sim *s, const hg_actuator_spec *sp, double f[3],
                             double n[3]) {
  double p[3], u[3];
  const hg_marker *mk = sp->marker ? hg_scene_marker(s->scene, sp->marker) : NULL;
  if (mk) {
    memcpy(p, mk->pose.p, sizeof p);
    u[0] = mk->pose.R[2], u[1] = mk->pose.R[5], u[2] = mk->pose.R[8];
  } else {
    memcpy(p, sp->position, sizeof p);
    memcpy(u, sp->direction, sizeof u);
  }
  for (int a = 0; a < 3; a++) f[a] = sp->thrust * u[a];
  hg_v3_cross(p, f, n);
}

/* the ports of controller c and their vectors; 0 or -1 with err */
static int controller_ports(hg_sim *s, int c, hg_control_port **inp, hg_control_port **outp,
                            int *npin, hg_error *err) {
  hg_rt_controller *r = &s->ctl.ctl[c];
  const hg_controller_spec *sp = r->spec;
  int ni = sp->ninput, no = sp->noutput, refs = sp->type == HG_CTL_JOINT_PD && sp->has_profile;
  r->in_src = calloc((size_t)ni + 1, sizeof(int));
  r->in_off = calloc((size_t)ni + 1, sizeof(int));
  r->in_n = calloc((size_t)ni + 1, sizeof(int));
  r->ref = calloc((size_t)ni + 1, sizeof *r->ref);
  r->out_dst = calloc((size_t)no + 1, sizeof(int));
  r->out_is_act = calloc((size_t)no + 1, sizeof(int));
  r->out_off = calloc((size_t)no + 1, sizeof(int));
  r->out_n = calloc((size_t)no + 1, sizeof(int));
  *inp = calloc((size_t)(2 * ni + 1), sizeof **inp);
  *outp = calloc((size_t)no + 1, sizeof **outp);
  if (!r->in_src || !r->in_off || !r->in_n || !r->ref || !r->out_dst || !r->out_is_act ||
      !r->out_off || !r->out_n || !*inp || !*outp)
    return hg_error_set(err, "out of memory"), -1;
  int off = 0, np = 0, is_act;
  for (int p = 0; p < ni; p++) {
    int src = port_target(s, sp->input[p], &is_act);
    r->in_src[p] = src;
    r->in_off[p] = off;
    r->in_n[p] = src >= 0 ? s->ctl.sensor[src].n : HG_SIGNAL_SIZE;
    (*inp)[np++] = (hg_control_port){sp->input[p],
                                     src >= 0 ? sensor_kind(s->scene->sensor[src].type)
                                              : "controller",
                                     off, r->in_n[p]};
    off += r->in_n[p];
    if (refs && p < no) {
      /* joint_pd: the reference of output p's joint from its profile, after the joint's port */
      int a = port_target(s, sp->output[p], &is_act), i;
      const char *jn = is_act && a >= 0 ? s->scene->actuator[a].joint : NULL;
      const double *q0 = jn ? joint_q(s, jn, &i) : NULL;
      const char *why = "";
      if (!q0 || !(r->ref[p] = hg_sim_profile_new(&s->m->jnt[i], &sp->profile, s->t_start, q0,
                                                   NULL, &why)))
        return hg_error_set(err, "%s:%d:%d: controller '%s': the profile of output '%s': %s",
                            sp->src.file, sp->src.line, sp->src.column, sp->name, sp->output[p],
                            q0 ? why : "its joint is not in the simulation at the start"),
               -1;
      (*inp)[np++] = (hg_control_port){"reference", "reference", off, 2};
      off += 2;
    }
  }
  r->nin = off;
  *npin = np;
  off = 0;
  for (int p = 0; p < no; p++) {
    int dst = port_target(s, sp->output[p], &is_act);
    r->out_dst[p] = dst;
    r->out_is_act[p] = is_act;
    r->out_off[p] = off;
    r->out_n[p] = is_act ? (s->scene->actuator[dst].type == HG_ACT_THRUSTER ? 2 : 1)
                         : HG_SIGNAL_SIZE;
    (*outp)[p] = (hg_control_port){sp->output[p],
                                   is_act ? actuator_kind(s->scene->actuator[dst].type)
                                          : "controller",
                                   off, r->out_n[p]};
    off += r->out_n[p];
  }
  r->nout = off;
  r->in = calloc((size_t)r->nin + 2, sizeof(double));
  r->out = calloc((size_t)r->nout + 1, sizeof(double));
  r->signal = calloc((size_t)r->nin + 1, sizeof(double));
  if (!r->in || !r->out || !r->signal) return hg_error_set(err, "out of memory"), -1;
  return 0;
}

/* the parameters the runtime derives for built-in controller c from the scene */
static int controller_derived(hg_sim *s, int c, derived *dv) {
  hg_rt_controller *r = &s->ctl.ctl[c];
  const hg_controller_spec *sp = r->spec;
  const hg_scene *sc = s->scene;
  int is_act;
  if (sp->type == HG_CTL_ATTITUDE_PD) {
    int nw = 0;
    for (int p = 0; p < sp->noutput; p++)
      nw += r->out_is_act[p] && sc->actuator[r->out_dst[p]].type == HG_ACT_WHEEL;
    if (derive(dv, "input_frames", 4 * sp->ninput) || (nw && derive(dv, "wheel_axes", 3 * nw)))
      return -1;
    for (int p = 0; p < sp->ninput; p++)
      if (r->in_src[p] >= 0) sensor_mount(s, &sc->sensor[r->in_src[p]], dv->value[0] + 4 * p);
    for (int p = 0, w = 0; p < sp->noutput; p++)
      if (r->out_is_act[p] && sc->actuator[r->out_dst[p]].type == HG_ACT_WHEEL)
        memcpy(dv->value[1] + 3 * w++, sc->actuator[r->out_dst[p]].axis, 3 * sizeof(double));
    /* the body it points: its attitude sensor's */
    r->body = -1;
    if (sp->ninput > 0 && r->in_src[0] >= 0) {
      hg_se3 M;
      r->body = hg_sim_sensor_frame(s, &sc->sensor[r->in_src[0]], &M);
    }
    r->target[0] = 1, r->target[1] = r->target[2] = r->target[3] = 0;
    for (int k = 0; k < sp->nparam; k++)
      if (strcmp(sp->param[k].name, "target") == 0 && sp->param[k].n == 4)
        memcpy(r->target, sp->param[k].value, sizeof r->target);
  } else if (sp->type == HG_CTL_THRUSTER_LOGIC) {
    if (derive(dv, "thruster_force", 3 * sp->noutput) ||
        derive(dv, "thruster_torque", 3 * sp->noutput))
      return -1;
    for (int p = 0; p < sp->noutput; p++) {
      int a = port_target(s, sp->output[p], &is_act);
      if (is_act && a >= 0)
        thruster_nominal(s, &sc->actuator[a], dv->value[0] + 3 * p, dv->value[1] + 3 * p);
    }
  }
  return 0;
}

/* opens controller c (its instance, through its kind's operations); 0 or -1 with err */
static int controller_open(hg_sim *s, int c, hg_error *err) {
  hg_rt_controller *r = &s->ctl.ctl[c];
  const hg_controller_spec *sp = r->spec;
  hg_control_port *inp = NULL, *outp = NULL;
  hg_control_param *par = NULL;
  derived dv = {0};
  int npin = 0, rc = -1;
  char msg[512] = "";
  r->enabled = sp->enabled;
  r->body = -1;
  if (controller_ports(s, c, &inp, &outp, &npin, err)) goto out;
  if (controller_derived(s, c, &dv)) {
    hg_error_set(err, "out of memory");
    goto out;
  }
  par = calloc((size_t)(sp->nparam + dv.n + 1), sizeof *par);
  if (!par) {
    hg_error_set(err, "out of memory");
    goto out;
  }
  for (int k = 0; k < sp->nparam; k++)
    par[k] = (hg_control_param){sp->param[k].name, sp->param[k].n, sp->param[k].value,
                                sp->param[k].text};
  for (int k = 0; k < dv.n; k++) par[sp->nparam + k] = dv.param[k];
  hg_control_setup setup = {HG_CONTROL_ABI, sp->name, sp->rate, s->t_start,
                            sp->nparam + dv.n, par, npin, inp, r->nin,
                            sp->noutput, outp, r->nout};
  int bad;
  if (sp->type == HG_CTL_LIBRARY) {
    bad = hg_ctl_lib_open(sp->library, sp->symbol, NULL, NULL, &r->lib, msg, sizeof msg) ||
          hg_ctl_new(hg_ctl_lib_ops(r->lib), &setup, &r->ctl, msg, sizeof msg);
  } else if (sp->type == HG_CTL_EXTERNAL) {
    /* the process runs in the scene's folder */
    char folder[4096];
    const char *path = s->scene->path ? s->scene->path : ".", *slash = strrchr(path, '/');
    snprintf(folder, sizeof folder, "%.*s", slash ? (int)(slash - path) : 1,
             slash ? path : ".");
    bad = hg_ctl_proc_new(sp->command, folder, sp->timeout > 0 ? sp->timeout : HG_CTL_PROC_TIMEOUT,
                          &setup, &r->ctl, msg, sizeof msg);
  } else {
    const hg_builtin_ops *b = hg_builtin_find(controller_kind(sp->type));
    hg_ctl_ops ops = {b->init, b->step, b->finish, b->set, b->save, b->load};
    bad = hg_ctl_new(&ops, &setup, &r->ctl, msg, sizeof msg);
  }
  if (bad) {
    /* the constructors name the controller in most of their messages: name it once */
    char own[256];
    snprintf(own, sizeof own, "controller '%s': ", sp->name);
    hg_error_set(err, "%s:%d:%d: %s%s", sp->src.file, sp->src.line, sp->src.column,
                 strncmp(msg, own, strlen(own)) == 0 ? "" : own, msg);
    goto out;
  }
  rc = 0;
out:
  for (int k = 0; k < dv.n; k++) free(dv.value[k]);
  free(par);
  free(inp);
  free(outp);
  return rc;
}

int hg_sim_control_open(hg_sim *s, hg_error *err) {
  hg_rt_control *c = &s->ctl;
  const hg_scene *sc = s->scene;
  c->sensor = c->nsensor ? calloc((size_t)c->nsensor, sizeof *c->sensor) : NULL;
  c->ctl = c->nctl ? calloc((size_t)c->nctl, sizeof *c->ctl) : NULL;
  c->servo_prof = c->nact ? calloc((size_t)c->nact, sizeof *c->servo_prof) : NULL;
  if ((c->nsensor && !c->sensor) || (c->nctl && !c->ctl) || (c->nact && !c->servo_prof))
    return hg_error_set(err, "out of memory"), -1;
  for (int k = 0; k < c->nsensor; k++) {
    hg_rt_sensor *se = &c->sensor[k];
    se->spec = &sc->sensor[k];
    se->n = hg_sim_sensor_size(s, se->spec);
    se->t = NAN;
    if (se->spec->type == HG_SENSOR_ACCELEROMETER) c->need_accel = 1;
    if (!(se->value = malloc((size_t)se->n * sizeof(double))) || hg_sim_sensor_channels(s, k))
      return hg_error_set(err, "out of memory"), -1;
    for (int e = 0; e < se->n; e++) se->value[e] = NAN;
  }
  for (int k = 0; k < c->nact; k++) {
    hg_rt_actuator *a = &c->act[k];
    const hg_actuator_spec *sp = a->spec;
    if (sp->type != HG_ACT_SERVO) continue;
    int i;
    const double *q0 = joint_q(s, sp->joint, &i);
    a->setpoint = q0 ? q0[sp->dof] : 0; /* a servo holds where it starts */
    a->cmd[0] = a->setpoint;
    const char *why = "";
    if (sp->has_profile && q0 &&
        !(c->servo_prof[k] = hg_sim_profile_new(&s->m->jnt[i], &sp->profile, s->t_start, q0,
                                                NULL, &why)))
      return hg_error_set(err, "%s:%d:%d: servo '%s': its profile: %s", sp->src.file,
                          sp->src.line, sp->src.column, sp->name, why),
             -1;
  }
  for (int k = 0; k < c->nctl; k++) {
    c->ctl[k].spec = &sc->controller[k];
    if (controller_open(s, k, err)) return -1;
  }
  return 0;
}

void hg_sim_control_close(hg_sim *s) {
  hg_rt_control *c = &s->ctl;
  for (int k = 0; c->sensor && k < c->nsensor; k++) {
    free(c->sensor[k].value);
    free(c->sensor[k].channel);
  }
  for (int k = 0; c->ctl && k < c->nctl; k++) {
    hg_rt_controller *r = &c->ctl[k];
    hg_ctl_free(r->ctl);
    hg_ctl_lib_close(r->lib);
    for (int p = 0; r->ref && p < r->spec->ninput; p++) hg_profile_free(r->ref[p]);
    free(r->ref);
    free(r->in_src), free(r->in_off), free(r->in_n);
    free(r->out_dst), free(r->out_is_act), free(r->out_off), free(r->out_n);
    free(r->in), free(r->out), free(r->signal);
  }
  for (int k = 0; c->servo_prof && k < c->nact; k++) hg_profile_free(c->servo_prof[k]);
  free(c->servo_prof);
  free(c->sensor);
  free(c->ctl);
  c->sensor = NULL, c->ctl = NULL, c->servo_prof = NULL;
}
