/* budget.c: the energy budget and the momentum of a run (budget.h): energies and momenta of a
 * state, the budget value and its drift, the events booked, and the stretches of isolation over
 * which momentum must hold. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "sim_internal.h"

void hg_sim_energy(hg_sim *s, const double *q, const double *v, double *ke, double *pe,
                   double *pel) {
  hg_energy(s->m, s->d, q, v, ke, pe);
  *pel = hg_forces_potential(s->forces, s->m, s->d, q);
  if (s->pull.forces) *pel += hg_forces_potential(s->pull.forces, s->m, s->d, q);
}

void hg_sim_momentum_scale(hg_sim *s, const double *q, const double *v, double h[6],
                           double scale[2]) {
  const hg_model *m = s->m;
  hg_data *d = s->d;
  hg_momentum(m, d, q, v, h);
  scale[0] = scale[1] = 0;
  /* each body's momentum (hg_momentum's terms): about its tree's root, h_i = I_i V_i, and moved
   * to the world origin by the root's position p0, L_i = h_i,ang + p0 x p_i. The scale adds
   * |h_i,ang| + |p0| |p_i|, not |L_i|: an integration error of the position (relative, ~ rtol
   * |p0|) turns p0 x p_i by |p0| |p_i| times it whatever the angle between them. A tree flying
   * along its own position vector (7.7 km/s in a free-floating frame) has |p0 x p_i| ~ 0, and
   * |L_i| as the scale read 1.8e-3 for a run integrated to 1.8e-8 of its distance. */
  for (int i = 1; i < m->nbody; i++) {
    const double *p0 = d->T_world[m->root[i]].p;
    double hb[6];
    hg_inertia_mulv(&d->I[i], d->V[i], hb);
    scale[0] += hg_v3_norm(hb) + hg_v3_norm(p0) * hg_v3_norm(hb + 3);
    scale[1] += hg_v3_norm(hb + 3);
  }
}

double hg_sim_budget_value(hg_sim *s) {
  double ke, pe, pel;
  hg_sim_energy(s, s->state.q, s->state.v, &ke, &pe, &pel);
  double b = ke + pe + pel + s->budget.e_lock - s->state.quad - s->budget.w_event;
  double sc = fabs(ke) + fabs(pe) + fabs(pel) + fabs(s->budget.e_lock) + fabs(s->state.quad) +
              fabs(s->budget.w_event);
  if (sc > s->budget.b_scale) s->budget.b_scale = sc;
  return b;
}

double hg_sim_budget_drift(hg_sim *s) {
  double b = hg_sim_budget_value(s);
  return fabs(b - s->budget.b0) / (s->budget.b_scale > 0 ? s->budget.b_scale : 1);
}

/* appends "; " and a printf-style reason to why (len bytes) */
static void add_reason(char *why, size_t len, const char *fmt, ...) {
  size_t n = strlen(why);
  if (n + 3 >= len) return;
  if (n) memcpy(why + n, "; ", 3), n += 2;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why + n, len - n, fmt, ap);
  va_end(ap);
}

static const char *const force_kind[] = {"central gravity", "joint spring", "spring", "drag",
                                         "thrust", "parachute", "contact"};

/* 1 when nothing acts on the system from outside now: zero uniform gravity, every tree on a free
 * joint in free mode to the world, no enabled element that acts from outside (central gravity,
 * drag and parachutes always do; thrust inside its window; a spring when it is anchored to the
 * world or sits on a joint to the world; contact while it touches the world), no thruster firing
 * and no pull. Otherwise 0 with the reasons in why. Needs the kinematics of
 * the current state in s->d. */
static int isolated(hg_sim *s, char *why, size_t len) {
  const hg_model *m = s->m;
  why[0] = 0;
  if (m->gravity[0] != 0 || m->gravity[1] != 0 || m->gravity[2] != 0)
    add_reason(why, len, "uniform gravity (%g, %g, %g) m/s^2", m->gravity[0], m->gravity[1],
               m->gravity[2]);
  for (int i = 1; i < m->nbody; i++)
    if (m->parent[i] == 0 && (m->jnt[i].type != HG_JOINT_FREE || s->d->mode[i] != HG_MODE_FREE))
      /* a fixed joint has no mode: it is named by its type alone */
      add_reason(why, len, "%s%s%s joint '%s' holds body '%s' to the world",
                 m->jnt[i].type == HG_JOINT_FIXED ? ""
                 : s->d->mode[i] == HG_MODE_FREE  ? "free"
                 : s->d->mode[i] == HG_MODE_LOCKED ? "locked" : "prescribed",
                 m->jnt[i].type == HG_JOINT_FIXED ? "" : " ",
                 hg_joint_type_name(m->jnt[i].type), m->jnt_name[i], m->body_name[i]);
  for (int k = 0; k < hg_forces_count(s->forces); k++) {
    hg_force_view fv;
    hg_forces_view(s->forces, m, s->d, s->state.t, s->state.q, s->state.v, k, &fv);
    if (!fv.enabled || fv.inert) continue;
    /* (contact forces are equal and opposite at one point: internal, like springs between
     * bodies; contact with a body held to the world is caught by that body's joint) */
    int outside = fv.type != HG_FORCE_JOINT_SPRING && fv.type != HG_FORCE_SPRING &&
                  fv.type != HG_FORCE_CONTACT;
    if (fv.type == HG_FORCE_JOINT_SPRING) outside = fv.body_a > 0 && m->parent[fv.body_a] == 0;
    if (fv.type == HG_FORCE_SPRING) outside = fv.body_a == 0 || fv.body_b == 0;
    /* a thrust element pushes only inside its window (its view's force is zero outside it) */
    if (fv.type == HG_FORCE_THRUST) outside = fv.magnitude > 0;
    /* contact pushes from outside while it touches the world itself (the ground) */
    if (fv.type == HG_FORCE_CONTACT)
      outside = fv.ncontact > 0 && (fv.body_a == 0 || fv.body_b == 0);
    if (outside)
      add_reason(why, len, "%s '%s'%s", force_kind[fv.type], fv.name,
                 fv.type == HG_FORCE_THRUST ? " firing" : fv.type == HG_FORCE_CONTACT
                                                          ? " touching the world" : "");
  }
  /* the hand's pull (perturb) is external when its target is fixed in the world (a target fixed
   * in a body makes it a spring between two bodies) */
  if (hg_sim_pull_anchored(s)) add_reason(why, len, "the pull of a perturb action");
  /* actuators: thrusters push from outside, motors on a joint to the world react on it (wheels
   * and motors between bodies are internal) */
  char act[160];
  if (hg_sim_control_external(s, act, sizeof act)) add_reason(why, len, "%s", act);
  return why[0] == 0;
}

/* the run's drift: the worst |L - L_ref| and |p - p_ref| of any stretch over the run's peak of
 * the bodies' summed |L| and |p| (a scale that vanishes only when nothing has moved yet, and then
 * so does the drift); at least what an older checkpoint carried */
static void update_drift(hg_sim_momentum_track *mt) {
  double r = mt->drift_before;
  for (int k = 0; k < 2; k++)
    if (mt->scale[k] > 0) r = fmax(r, mt->worst_abs[k] / mt->scale[k]);
  mt->drift = r;
}

/* momentum h of the present state in the open stretch */
static void stretch_add(hg_sim *s, const double h[6]) {
  hg_sim_momentum_track *mt = &s->budget.mt;
  double d[2] = {0, 0};
  for (int k = 0; k < 3; k++) {
    d[0] += (h[k] - mt->ref[k]) * (h[k] - mt->ref[k]);
    d[1] += (h[3 + k] - mt->ref[3 + k]) * (h[3 + k] - mt->ref[3 + k]);
  }
  mt->t_last = s->state.t;
  for (int k = 0; k < 2; k++) {
    mt->dmax[k] = fmax(mt->dmax[k], sqrt(d[k]));
    /* the open stretch is the worst so far (or was, and has been checked again) */
    if (mt->dmax[k] > mt->worst_abs[k] || mt->worst_from[k] == mt->t0) {
      mt->worst_abs[k] = fmax(mt->worst_abs[k], mt->dmax[k]);
      mt->worst_from[k] = mt->t0;
      mt->worst_to[k] = mt->t_last;
    }
  }
}

/* a new stretch from momentum h */
static void stretch_begin(hg_sim *s, const double h[6], const char *since) {
  hg_sim_momentum_track *mt = &s->budget.mt;
  memcpy(mt->ref, h, sizeof mt->ref);
  mt->isolated = 1;
  mt->nstretch++;
  mt->t0 = s->state.t;
  memset(mt->dmax, 0, sizeof mt->dmax);
  for (int k = 0; k < 2; k++)
    if (mt->worst_abs[k] == 0) mt->worst_from[k] = mt->worst_to[k] = mt->t0;
  snprintf(mt->since, sizeof mt->since, "%s", since);
  stretch_add(s, h);
}

/* The momentum check at the present state. ev: the event just applied (NULL: none). switched:
 * what acts from outside may have changed at this very instant (a valve, a thrust window, a
 * touch), and the momentum is continuous across it, so the present state still closes the open
 * stretch. At an output row the system may have stopped being isolated anywhere since the last
 * check: the stretch then ends at that check. */
static void track(hg_sim *s, const hg_sim_event *ev, int switched) {
  hg_sim_momentum_track *mt = &s->budget.mt;
  double h[6], sc[2];
  char why[sizeof mt->why], since[sizeof mt->since];
  /* the integration up to the event belongs to the open stretch; or the system was not
   * isolated up to the event (isolation changes only at events and switches) */
  if (ev && mt->isolated) stretch_add(s, ev->h_before);
  else if (ev && mt->why[0]) mt->t_out = ev->t;
  if (ev) {
    mt->scale[0] = fmax(mt->scale[0], ev->h_scale[0]);
    mt->scale[1] = fmax(mt->scale[1], ev->h_scale[1]);
  }
  hg_sim_momentum_scale(s, s->state.q, s->state.v, h, sc);
  mt->scale[0] = fmax(mt->scale[0], sc[0]);
  mt->scale[1] = fmax(mt->scale[1], sc[1]);
  if (switched && !ev && mt->isolated) stretch_add(s, h);
  if (!isolated(s, why, sizeof why)) {
    mt->isolated = 0;
    mt->t_out = s->state.t;
    memcpy(mt->why, why, sizeof why);
  } else if (mt->isolated && (!ev || ev->conserves)) {
    stretch_add(s, h);
  } else {
    if (ev) snprintf(since, sizeof since, "after '%s' at t = %.9g s", ev->name, ev->t);
    else if (mt->nstretch == 0 && s->state.t == s->t_start)
      snprintf(since, sizeof since, "the start");
    else snprintf(since, sizeof since, "t = %.9g s", s->state.t);
    stretch_begin(s, h, since);
  }
  update_drift(mt);
}

void hg_sim_track_momentum(hg_sim *s, const hg_sim_event *ev) { track(s, ev, 0); }

void hg_sim_track_switch(hg_sim *s) { track(s, NULL, 1); }

void hg_sim_budget_track(hg_sim *s) {
  double off = fabs(hg_sim_budget_value(s) - s->budget.b0);
  if (!(off <= s->budget.max_abs)) s->budget.max_abs = off; /* (NaN stays) */
  s->budget.max_drift = s->budget.max_abs / (s->budget.b_scale > 0 ? s->budget.b_scale : 1);
  hg_sim_track_momentum(s, NULL);
}

void hg_sim_budget_start(hg_sim *s) {
  s->budget.b0 = hg_sim_budget_value(s);
  hg_momentum(s->m, s->d, s->state.q, s->state.v, s->budget.h_ref);
}

void hg_sim_budget_book(hg_sim *s, const hg_sim_event *ev, double e_lock) {
  s->budget.e_lock += e_lock;
  s->budget.w_event += ev->e_after - ev->e_before + e_lock;
  /* momentum drift counts from here when the event changed the momentum on purpose */
  if (!ev->conserves) memcpy(s->budget.h_ref, ev->h_after, sizeof s->budget.h_ref);
}
