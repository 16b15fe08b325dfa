/* actuation.c: the scene's actuators in the right-hand side (sim_control.h): what each applies as
 * a smooth function of (t, q, v) between control instants, the commands that change it at those
 * instants, the breakpoints of its ramps and valves, and the tanks that drain as thrusters fire.
 *
 * A joint actuator (motor, servo, reaction wheel) applies at its DoF
 *   tau = drive + friction,  friction = -c_v v - c_c sat(v / v_s)              (docs/control.md)
 * where the drive follows the held command clipped at the effort, moving towards it at the rate
 * limit, and is capped by the speed-torque line of back-EMF (|drive| <= effort (1 - v/v_0) in
 * the direction of motion) or, for a wheel, tapers to zero over the last 5 % below its maximum
 * speed. A thruster applies the force F u at the point p of its body, the thrust F rising at F/rise
 * after the valve opens and falling at F/fall after it closes; propellant drains at F / (Isp g0).
 * The reflected rotor inertia N^2 J_r is not a force: the scene reader puts it in the joint's
 * armature, so every algorithm has it exactly. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_internal.h"

/* standard gravity, m/s^2 (the definition of specific impulse) */
#define HG_G0 9.80665

/* ---- ramps ---- */

double hg_ramp_value(const hg_ramp *r, double t) {
  double gap = r->target - r->v0;
  if (gap == 0 || isinf(r->rate)) return r->target;
  double step = r->rate * (t - r->t0);
  if (!(step < fabs(gap))) return r->target;
  return r->v0 + (gap > 0 ? step : -step);
}

double hg_ramp_end(const hg_ramp *r) {
  double gap = fabs(r->target - r->v0);
  if (gap == 0) return r->t0;
  if (isinf(r->rate)) return -INFINITY;
  return r->t0 + gap / r->rate;
}

double hg_ramp_integral(const hg_ramp *r, double t) {
  double dt = t - r->t0;
  if (!(dt > 0)) return 0;
  double te = hg_ramp_end(r), tr = te > r->t0 ? fmin(te, t) - r->t0 : 0;
  /* the ramp's trapezoid up to its end, then the target's rectangle */
  double mid = hg_ramp_value(r, r->t0 + tr);
  return 0.5 * (r->v0 + mid) * tr + r->target * (dt - tr);
}

void hg_ramp_retarget(hg_ramp *r, double t, double target) {
  r->v0 = hg_ramp_value(r, t);
  r->t0 = t;
  r->target = target;
}

/* ---- creation and compilation ---- */

int hg_sim_control_new(hg_sim *s, hg_error *err) {
  const hg_scene *sc = s->scene;
  hg_rt_control *c = &s->ctl;
  c->nact = sc->nactuator, c->ntank = sc->ntank;
  c->nsensor = sc->nsensor, c->nctl = sc->ncontroller;
  c->any = c->nact || c->nsensor || c->nctl;
  c->seed = s->opt.has_seed ? s->opt.noise_seed : sc->noise_seed;
  c->nquad = 3 * c->nact;
  c->act = c->nact ? calloc((size_t)c->nact, sizeof *c->act) : NULL;
  c->tank = c->ntank ? calloc((size_t)c->ntank, sizeof *c->tank) : NULL;
  c->quad = calloc((size_t)c->nquad + 1, sizeof *c->quad);
  c->rate = calloc((size_t)c->nquad + 1, sizeof *c->rate);
  c->cache_rate = calloc((size_t)c->nquad + 1, sizeof *c->cache_rate);
  if ((c->nact && !c->act) || (c->ntank && !c->tank) || !c->quad || !c->rate || !c->cache_rate)
    return hg_error_set(err, "out of memory"), -1;
  for (int k = 0; k < c->nact; k++) {
    hg_rt_actuator *a = &c->act[k];
    const hg_actuator_spec *sp = &sc->actuator[k];
    a->spec = sp;
    a->va = -1, a->jbody = -1, a->body = -1, a->tank = -1;
    a->drive.rate = INFINITY;
    a->t_close = INFINITY;
    a->t_open = -INFINITY;
    if (sp->type == HG_ACT_THRUSTER) {
      /* the thrust moves at full scale over the rise and fall times */
      a->drive.rate = sp->rise > 0 ? sp->thrust / sp->rise : INFINITY;
      for (int j = 0; sp->tank && j < sc->ntank; j++)
        if (strcmp(sc->tank[j].name, sp->tank) == 0) a->tank = j;
    } else if (sp->rate_limit > 0 && isfinite(sp->rate_limit)) {
      a->drive.rate = sp->rate_limit;
    }
    a->drive.t0 = s->t_start;
  }
  for (int j = 0; j < c->ntank; j++) {
    c->tank[j].spec = &sc->tank[j];
    c->tank[j].body = -1;
    c->tank[j].mass = sc->tank[j].propellant;
    c->tank[j].mass_set = NAN;
  }
  for (int k = 0; k < c->nact; k++)
    if (sc->actuator[k].type == HG_ACT_THRUSTER) c->need_kinematics = 1;
  if (c->ntank) c->need_kinematics = 1;
  return 0;
}

void hg_sim_control_free(hg_sim *s) {
  free(s->ctl.act);
  free(s->ctl.tank);
  free(s->ctl.quad);
  free(s->ctl.rate);
  free(s->ctl.cache_rate);
}

/* R = exp([w]x), the rotation of a misalignment vector */
static void misalign(const double w[3], const double u[3], double out[3]) {
  double R[9];
  hg_so3_exp(w, R);
  hg_m3_mulv(R, u, out);
}

/* the inertia of tank j's body with m kg of propellant: its dry inertia and a uniform solid
 * sphere (2/5 m r^2 about its centre) at the tank's position */
static int tank_inertia(const hg_rt_tank *tk, double m, hg_inertia *out) {
  const hg_tank_spec *sp = tk->spec;
  double Ic[6] = {0}, k = 0.4 * m * sp->radius * sp->radius;
  Ic[0] = Ic[1] = Ic[2] = k;
  hg_inertia prop;
  char why[128];
  if (m > 0 && hg_inertia_from_com(m, sp->position, Ic, &prop, why, sizeof why)) return -1;
  *out = tk->dry;
  if (!(m > 0)) return 0;
  out->m += prop.m;
  for (int a = 0; a < 3; a++) out->h[a] += prop.h[a];
  for (int a = 0; a < 6; a++) out->I[a] += prop.I[a];
  return 0;
}

void hg_sim_control_compile(hg_sim *s) {
  const hg_model *m = s->m;
  hg_rt_control *c = &s->ctl;
  for (int k = 0; k < c->nact; k++) {
    hg_rt_actuator *a = &c->act[k];
    const hg_actuator_spec *sp = a->spec;
    a->present = 0, a->va = -1, a->jbody = -1, a->body = -1;
    if (sp->type == HG_ACT_THRUSTER) {
      hg_se3 M;
      int b = -1;
      if (sp->marker) {
        if (hg_sim_resolve_marker(s, sp->marker, &b, &M)) continue;
        double ez[3] = {M.R[2], M.R[5], M.R[8]}; /* the marker's +z in its body's frame */
        memcpy(a->p, M.p, sizeof a->p);
        misalign(sp->misalignment, ez, a->u);
      } else {
        if ((b = hg_model_body(m, sp->body)) < 1) continue;
        memcpy(a->p, sp->position, sizeof a->p);
        misalign(sp->misalignment, sp->direction, a->u);
      }
      a->body = b, a->present = 1;
      continue;
    }
    const char *jn = sp->type == HG_ACT_WHEEL ? sp->name : sp->joint;
    int i = hg_model_joint(m, jn);
    if (i < 1 || sp->dof >= m->jnt_nv[i]) continue;
    a->jbody = i, a->va = m->v_adr[i] + sp->dof, a->body = m->parent[i], a->present = 1;
    if (sp->type == HG_ACT_WHEEL) memcpy(a->u, sp->axis, sizeof a->u);
  }
  for (int j = 0; j < c->ntank; j++) {
    hg_rt_tank *tk = &c->tank[j];
    tk->body = hg_model_body(m, tk->spec->body);
    /* a new model holds the builder's (dry) inertia: the propellant goes back in at the next
     * evaluation */
    if (tk->body >= 1) tk->dry = m->inertia[tk->body];
    tk->mass_set = NAN;
  }
  /* the propellant of now back in at once: the energy of the state must not jump */
  if (c->ntank) hg_sim_control_tanks(s, s->state.t);
}

/* ---- what an actuator applies ---- */

/* the drive of joint actuator a at t and joint rate v, after the speed limits; *sat when a limit
 * holds it (effort, rate, back-EMF, wheel speed) */
static double joint_drive(const hg_rt_actuator *a, double t, double v, int *sat) {
  const hg_actuator_spec *sp = a->spec;
  double d = hg_ramp_value(&a->drive, t), dir = d > 0 ? 1 : -1;
  *sat = fabs(a->demand) > (sp->type == HG_ACT_WHEEL ? sp->max_torque : sp->effort) ||
         (d != a->drive.target);
  double lim = INFINITY;
  if (sp->type == HG_ACT_WHEEL) {
    /* the wheel tapers its drive to zero over the last 5 % below its maximum speed, in the
     * direction that would spin it faster */
    if (isfinite(sp->max_speed))
      lim = sp->max_torque * fmin(1, fmax(0, (sp->max_speed - dir * v) / (0.05 * sp->max_speed)));
  } else if (isfinite(sp->no_load_speed) && sp->no_load_speed > 0) {
    /* back-EMF: |drive| <= effort (1 - v / v_0) in the direction of motion */
    lim = sp->effort * fmin(1, fmax(0, 1 - dir * v / sp->no_load_speed));
  }
  if (fabs(d) > lim) d = dir * lim, *sat = 1;
  return d;
}

/* viscous and regularized Coulomb friction at joint rate v */
static double joint_friction(const hg_actuator_spec *sp, double v) {
  double vs = sp->stiction_velocity > 0 ? sp->stiction_velocity : 1e-3;
  return -sp->viscous * v - sp->coulomb * fmax(-1, fmin(1, v / vs));
}

double hg_sim_control_output(const hg_sim *s, int k, double t, const double *v) {
  const hg_rt_actuator *a = &s->ctl.act[k];
  if (!a->present) return 0;
  if (a->spec->type == HG_ACT_THRUSTER) return hg_ramp_value(&a->drive, t);
  int sat;
  double w = v[a->va];
  return joint_drive(a, t, w, &sat) + joint_friction(a->spec, w);
}

double hg_sim_control_propellant(const hg_sim *s, int j, double t) {
  const hg_rt_control *c = &s->ctl;
  double m = c->tank[j].spec->propellant;
  for (int k = 0; k < c->nact; k++) {
    const hg_rt_actuator *a = &c->act[k];
    if (a->tank != j || !(a->spec->isp > 0)) continue;
    /* m_p = m_p0 - (impulse so far) / (Isp g0) */
    m -= (a->impulse_before + hg_ramp_integral(&a->drive, t)) / (a->spec->isp * HG_G0);
  }
  return fmax(0, m);
}

/* the gravitational potential per unit mass at world point x: uniform gravity and the enabled
 * central-gravity elements */
static double potential(const hg_sim *s, const double x[3]) {
  return -hg_v3_dot(s->m->gravity, x) + hg_forces_central_field(s->forces, x, NULL, NULL);
}

/* tank j at t: its body's inertia set for the propellant then, and the power the propellant
 * leaving carries off: mdot (1/2 |v_c|^2 + 1/5 r^2 |w|^2 + phi(c)), the kinetic and potential
 * energy of the mass that leaves the body at the tank's centre (mdot <= 0) */
void hg_sim_control_tanks(hg_sim *s, double t) {
  for (int j = 0; j < s->ctl.ntank; j++) {
    hg_rt_tank *tk = &s->ctl.tank[j];
    if (tk->body < 1) continue;
    double mass = hg_sim_control_propellant(s, j, t);
    tk->mass = mass;
    hg_inertia I;
    if (mass != tk->mass_set && tank_inertia(tk, mass, &I) == 0 &&
        hg_model_set_body_inertia(s->m, tk->body, &I) == 0) {
      tk->mass_set = mass;
      /* (central gravity holds the bodies' mass properties) */
      hg_forces_body_inertia(s->forces, s->m, tk->body);
      hg_forces_body_inertia(s->pull.forces, s->m, tk->body);
    }
  }
}

static double tank_apply(hg_sim *s, int j, double t) {
  hg_rt_control *c = &s->ctl;
  hg_rt_tank *tk = &c->tank[j];
  if (tk->body < 1) return 0;
  double mass = tk->mass, mdot = 0;
  for (int k = 0; k < c->nact; k++) {
    const hg_rt_actuator *a = &c->act[k];
    if (a->tank == j && a->spec->isp > 0 && mass > 0)
      mdot -= hg_ramp_value(&a->drive, t) / (a->spec->isp * HG_G0);
  }
  if (mdot == 0) return 0;
  const double *pc = tk->spec->position;
  double V[6], vc[3], x[3];
  hg_body_twist(s->m, s->d, tk->body, V);
  hg_v3_cross(V, pc, vc);
  for (int a = 0; a < 3; a++) vc[a] += V[3 + a];
  const hg_se3 *T = &s->d->T_world[tk->body];
  hg_m3_mulv(T->R, pc, x);
  for (int a = 0; a < 3; a++) x[a] += T->p[a];
  double r = tk->spec->radius;
  return mdot * (0.5 * hg_v3_dot(vc, vc) + 0.2 * r * r * hg_v3_dot(V, V) + potential(s, x));
}

double hg_sim_control_apply(hg_sim *s, double t, const double *qs, const double *vs, double *tau,
                            double *fext, int *wrenches) {
  (void)qs;
  hg_rt_control *c = &s->ctl;
  double power = 0;
  for (int k = 0; k < c->nact; k++) {
    hg_rt_actuator *a = &c->act[k];
    double *rate = c->rate + 3 * k;
    rate[0] = rate[1] = rate[2] = 0;
    a->saturated = 0;
    if (!a->present) continue;
    const hg_actuator_spec *sp = a->spec;
    if (sp->type == HG_ACT_THRUSTER) {
      double F = hg_ramp_value(&a->drive, t);
      if (F == 0) continue;
      /* the wrench of F u at p about the body origin: (p x f, f), body frame */
      double *w = fext + 6 * a->body, f[3] = {F * a->u[0], F * a->u[1], F * a->u[2]}, V[6], vp[3];
      hg_v3_cross_add(a->p, f, w);
      for (int e = 0; e < 3; e++) w[3 + e] += f[e];
      *wrenches = 1;
      /* its power f . (v_o + w x p) */
      hg_body_twist(s->m, s->d, a->body, V);
      hg_v3_cross(V, a->p, vp);
      for (int e = 0; e < 3; e++) vp[e] += V[3 + e];
      rate[0] = hg_v3_dot(f, vp);
      power += rate[0];
      continue;
    }
    double v = vs[a->va], drive = joint_drive(a, t, v, &a->saturated);
    double fric = joint_friction(sp, v);
    tau[a->va] += drive + fric;
    rate[0] = drive * v, rate[1] = fric * v, rate[2] = a->saturated;
    power += rate[0] + rate[1];
  }
  for (int j = 0; j < c->ntank; j++) power += tank_apply(s, j, t);
  return power;
}

/* ---- commands and breakpoints ---- */

/* a tank holding less than this share of its initial propellant is empty (the breakpoints
 * below approach the instant it empties geometrically) */
#define HG_TANK_EMPTY 1e-12

static int tank_empty(const hg_sim *s, int j, double t) {
  const hg_tank_spec *sp = s->ctl.tank[j].spec;
  return hg_sim_control_propellant(s, j, t) <= HG_TANK_EMPTY * sp->propellant;
}

/* the earliest instant tank j can run dry at the largest flow of its thrusters that fire or
 * ramp (inf: none): m / sum(F_max / (Isp g0)); exact when they fire at full thrust, a lower
 * bound otherwise (the next breakpoint then looks again) */
static double tank_dry_bound(const hg_sim *s, int j, double t) {
  const hg_rt_control *c = &s->ctl;
  double flow = 0;
  for (int k = 0; k < c->nact; k++) {
    const hg_rt_actuator *a = &c->act[k];
    if (a->tank == j && a->spec->isp > 0 && (a->open || hg_ramp_value(&a->drive, t) > 0))
      flow += a->spec->thrust / (a->spec->isp * HG_G0);
  }
  if (!(flow > 0) || tank_empty(s, j, t)) return INFINITY;
  return t + hg_sim_control_propellant(s, j, t) / flow;
}

/* opens thruster a at t at level L for on-time dur (s; inf: until told) */
static int valve_open(hg_rt_actuator *a, double t, double L, double dur) {
  const hg_actuator_spec *sp = a->spec;
  int changed = 0;
  if (!a->open) {
    /* a valve that closed at this very instant and opens again has not closed at all */
    int reopen = a->t_close == t && a->firings > 0;
    a->open = 1, changed = 1;
    if (!reopen) {
      a->t_open = t;
      a->firings++;
    } else {
      a->on_before -= t - a->t_open; /* (the close added it: the pulse goes on) */
    }
  }
  if (L != a->level || a->drive.target != L * sp->thrust) {
    a->level = L;
    a->impulse_before += hg_ramp_integral(&a->drive, t);
    hg_ramp_retarget(&a->drive, t, L * sp->thrust);
    changed = 1;
  }
  /* the pulse lasts at least min_on from its opening, and at most max_on */
  double tc = isfinite(dur) ? fmax(t + dur, a->t_open + sp->min_on) : INFINITY;
  if (isfinite(sp->max_on)) tc = fmin(tc, a->t_open + sp->max_on);
  if (tc != a->t_close) a->t_close = tc, changed = 1;
  return changed;
}

/* closes thruster a at t (its thrust falls from now) */
static void valve_close(hg_rt_actuator *a, double t) {
  a->open = 0;
  a->on_before += t - a->t_open;
  a->t_close = t;
  a->impulse_before += hg_ramp_integral(&a->drive, t);
  hg_ramp_retarget(&a->drive, t, 0);
  a->drive.rate = a->spec->fall > 0 ? a->spec->thrust / a->spec->fall : INFINITY;
}

static int thruster_command(hg_sim *s, hg_rt_actuator *a, const double *cmd) {
  const hg_actuator_spec *sp = a->spec;
  double t = s->state.t, level = cmd[0], dur = cmd[1];
  if (!(level > 0)) {
    a->locked_out = 0; /* a command to close re-arms a valve max_on cut */
    if (!a->open) return 0;
    /* it closes now, or when its minimum pulse has lasted */
    double tc = fmax(t, a->t_open + sp->min_on);
    if (tc > t) {
      int changed = tc != a->t_close;
      a->t_close = tc;
      return changed;
    }
    valve_close(a, t);
    return 1;
  }
  if (a->locked_out) return 0;
  /* an empty tank gives nothing */
  if (a->tank >= 0 && sp->isp > 0 && tank_empty(s, a->tank, t)) return 0;
  double L = sp->proportional ? fmin(1, level) : 1;
  a->drive.rate = sp->rise > 0 ? sp->thrust / sp->rise : INFINITY;
  return valve_open(a, t, L, dur > 0 ? dur : isnan(dur) ? INFINITY : 0);
}

int hg_sim_control_command(hg_sim *s, int k, const double *cmd, int n) {
  hg_rt_actuator *a = &s->ctl.act[k];
  const hg_actuator_spec *sp = a->spec;
  int want = sp->type == HG_ACT_THRUSTER ? 2 : 1;
  double c[2] = {a->cmd[0], a->cmd[1]};
  for (int e = 0; e < want && e < n; e++)
    if (!isnan(cmd[e])) c[e] = cmd[e];
  a->cmd[0] = c[0], a->cmd[1] = c[1];
  switch (sp->type) {
  case HG_ACT_SERVO:
    a->setpoint = c[0]; /* the servo's loop acts at its next sample */
    return 0;
  case HG_ACT_THRUSTER:
    return thruster_command(s, a, c);
  case HG_ACT_MOTOR:
  case HG_ACT_WHEEL: return hg_sim_control_drive(s, k, c[0]);
  }
  return 0;
}

int hg_sim_control_drive(hg_sim *s, int k, double u) {
  hg_rt_actuator *a = &s->ctl.act[k];
  const hg_actuator_spec *sp = a->spec;
  double lim = sp->type == HG_ACT_WHEEL ? sp->max_torque : sp->effort;
  double target = fmax(-lim, fmin(lim, u));
  a->demand = u;
  if (target == a->drive.target) return 0;
  hg_ramp_retarget(&a->drive, s->state.t, target);
  return 1;
}

double hg_sim_control_next_breakpoint(const hg_sim *s) {
  const hg_rt_control *c = &s->ctl;
  double t = s->state.t, next = INFINITY;
  for (int k = 0; k < c->nact; k++) {
    const hg_rt_actuator *a = &c->act[k];
    double te = hg_ramp_end(&a->drive);
    if (te > t) next = fmin(next, te);
    if (a->open && a->t_close > t) next = fmin(next, a->t_close);
  }
  for (int j = 0; j < c->ntank; j++) next = fmin(next, tank_dry_bound(s, j, t));
  return next;
}

int hg_sim_control_breakpoints(hg_sim *s) {
  hg_rt_control *c = &s->ctl;
  double t = s->state.t;
  int changed = 0;
  for (int k = 0; k < c->nact; k++) {
    hg_rt_actuator *a = &c->act[k];
    if (hg_ramp_end(&a->drive) == t && a->drive.v0 != a->drive.target) changed = 1;
    if (a->open && a->t_close <= t) {
      /* max_on cut the pulse: the valve stays shut until a command closes it */
      if (isfinite(a->spec->max_on) && a->t_close >= a->t_open + a->spec->max_on)
        a->locked_out = 1;
      valve_close(a, t);
      changed = 1;
    }
    /* a tank run dry: its thrusters stop at once (their thrust falls to zero now) */
    if (a->tank >= 0 && a->spec->isp > 0 && tank_empty(s, a->tank, t) &&
        (a->open || a->drive.target > 0 || hg_ramp_value(&a->drive, t) > 0)) {
      if (a->open) valve_close(a, t);
      a->impulse_before += hg_ramp_integral(&a->drive, t);
      a->drive = (hg_ramp){0, t, 0, INFINITY};
      changed = 1;
    }
  }
  return changed;
}

int hg_sim_control_external(const hg_sim *s, char *why, size_t len) {
  const hg_rt_control *c = &s->ctl;
  for (int k = 0; k < c->nact; k++) {
    const hg_rt_actuator *a = &c->act[k];
    if (!a->present) continue;
    /* a thruster pushes while its valve is open and while its thrust falls after it closes */
    if (a->spec->type == HG_ACT_THRUSTER &&
        (a->open || hg_ramp_value(&a->drive, s->state.t) != 0))
      return snprintf(why, len, "thruster %s firing", a->spec->name), 1;
    if (a->jbody > 0 && s->m->parent[a->jbody] == 0)
      return snprintf(why, len, "actuator %s drives a joint to the world", a->spec->name), 1;
  }
  return 0;
}
