/* sim_modes.c: joint modes, the motion profiles of prescribed joints, and the impulsive switch
 * that makes velocities consistent with new modes (the perfectly plastic lock). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_internal.h"

/* the mode spec a recipe refers to, or NULL */
static const hg_mode_spec *recipe_spec(const hg_sim *s, const hg_recipe *r) {
  const hg_scene *sc = s->scene;
  if (r->src == HG_RECIPE_INITIAL && r->idx >= 0 && r->idx < sc->nmode) return &sc->mode[r->idx];
  if (r->src == HG_RECIPE_ACTION && r->idx >= 0 && r->idx < sc->nevent &&
      r->act >= 0 && r->act < sc->event[r->idx].naction)
    return &sc->event[r->idx].action[r->act].mode;
  if (r->src == HG_RECIPE_COMMAND && r->idx >= 0 && r->idx < s->tl.ncmd && r->act >= 0 &&
      r->act < s->tl.cmd[r->idx].naction)
    return &s->tl.cmd[r->idx].action[r->act].mode;
  return NULL;
}

/* a spline whose sample times count from t0 */
static hg_profile *spline_from(const hg_joint *j, double t0, const hg_profile_spec *ps,
                               const char **why) {
  int n = ps->nsamples;
  double *times = malloc((size_t)(n > 0 ? n : 1) * sizeof(double));
  if (!times) return *why = "out of memory", NULL;
  for (int k = 0; k < n; k++) times[k] = t0 + ps->times[k];
  hg_profile *p = hg_profile_spline(j, n, times, ps->samples, why);
  free(times);
  return p;
}

hg_profile *hg_sim_profile_new(const hg_joint *j, const hg_profile_spec *ps, double t0,
                               const double *q0, const double *v0, const char **why) {
  if (!ps) return hg_profile_velocity(j, t0, q0, v0, why);
  switch (ps->kind) {
  case HG_PROFILE_HOLD: return hg_profile_hold(j, t0, q0, why);
  case HG_PROFILE_VELOCITY: return hg_profile_velocity(j, t0, q0, ps->velocity, why);
  case HG_PROFILE_MOVE: return hg_profile_move(j, t0, q0, ps->target, ps->duration, why);
  case HG_PROFILE_SINUSOID:
    return hg_profile_sinusoid(j, t0, q0, ps->amplitude, ps->omega, ps->phase, why);
  case HG_PROFILE_SPLINE: return spline_from(j, t0, ps, why);
  }
  *why = "unknown profile kind";
  return NULL;
}

/* the profile a mode spec describes, from (t0, q0); without one the joint keeps velocity v0 */
static hg_profile *make_profile(const hg_joint *j, const hg_mode_spec *ms, const hg_recipe *r,
                                const char **why) {
  return hg_sim_profile_new(j, ms && ms->has_profile ? &ms->profile : NULL, r->t0, r->q0, r->v0,
                            why);
}

int hg_sim_build_profile(hg_sim *s, int i) {
  const hg_model *m = s->m;
  const char *why = "";
  hg_profile_free(s->state.prof[i]);
  s->state.prof[i] = NULL;
  if (s->d->mode[i] != HG_MODE_PRESCRIBED) return 0;
  const hg_recipe *r = &s->state.recipe[i];
  s->state.prof[i] = make_profile(&m->jnt[i], recipe_spec(s, r), r, &why);
  if (s->state.prof[i]) return 0;
  return hg_sim_fail(s, HG_SIM_ERR_INPUT, "t = %.17g: the profile of joint '%s': %s", s->state.t,
                     m->jnt_name[i], why), -1;
}

double hg_sim_profile_jump(const hg_sim *s, int i, double *qp) {
  const hg_model *m = s->m;
  double dq[HG_JOINT_MAXNV], jump = 0, q[HG_JOINT_MAXNQ];
  if (!qp) qp = q;
  hg_profile_eval(s->state.prof[i], s->state.t, qp, NULL, NULL);
  hg_joint_difference(&m->jnt[i], s->state.q + m->q_adr[i], qp, dq);
  for (int k = 0; k < m->jnt_nv[i]; k++) jump = fmax(jump, fabs(dq[k]));
  return jump;
}

int hg_sim_mimic_leader(const hg_model *m, int i) {
  for (int k = 0; k < m->nmimic; k++)
    if (m->mimic_follower[k] == i) return m->mimic_leader[k];
  return -1;
}

int hg_sim_set_mode(hg_sim *s, int i, const hg_mode_spec *ms, int src, int idx, int act) {
  const hg_model *m = s->m;
  hg_recipe *r = &s->state.recipe[i];
  s->d->mode[i] = (uint8_t)ms->mode;
  r->src = src;
  r->idx = idx;
  r->act = act;
  r->t0 = s->state.t;
  memcpy(r->q0, s->state.q + m->q_adr[i], (size_t)m->jnt_nq[i] * sizeof(double));
  memcpy(r->v0, s->state.v + m->v_adr[i], (size_t)m->jnt_nv[i] * sizeof(double));
  return hg_sim_build_profile(s, i);
}

/* 1 when dof k of a joint that is not free must jump (its target differs from v) */
static int needs_jump(const hg_sim *s, const double *target) {
  for (int k = 0; k < s->m->nv; k++)
    if (s->d->mode[s->m->dof_body[k]] != HG_MODE_FREE && target[k] != s->state.v[k]) return 1;
  return 0;
}

int hg_sim_mode_impulse(hg_sim *s, double *e_lock, int *external) {
  const hg_model *m = s->m;
  hg_data *d = s->d;
  double *target = s->rhs.vdot, ke0, ke1, pe, removed;
  int all_zero = 1, actuated = 0;
  /* profiles set q and the target velocities of the non-free joints */
  memcpy(target, s->state.v, (size_t)m->nv * sizeof(double));
  if (hg_profiles_apply(m, d, s->state.prof, s->state.t, s->state.q, target, NULL))
    return hg_sim_fail(s, HG_SIM_ERR_NUMERIC, "t = %.17g: %s", s->state.t, d->err), -1;
  /* followers take their leaders' modes */
  if (m->nmimic) hg_mimic_follow(m, d, s->state.q, target, NULL);
  if (!needs_jump(s, target)) return 0;
  for (int k = 0; k < m->nv; k++) {
    int fixed = d->mode[m->dof_body[k]] != HG_MODE_FREE;
    s->rhs.dv[k] = fixed ? target[k] - s->state.v[k] : 0;
    s->rhs.imp[k] = 0;
    if (fixed && target[k] != 0) all_zero = 0;
    /* a profile that starts at another velocity than the joint has */
    if (d->mode[m->dof_body[k]] == HG_MODE_PRESCRIBED && s->rhs.dv[k] != 0) actuated = 1;
  }
  hg_energy(m, d, s->state.q, s->state.v, &ke0, &pe);
  /* every target at rest: the plastic lock; otherwise the general impulsive hybrid step */
  int rc = all_zero ? hg_plastic_lock(m, d, s->state.q, s->state.v, target, s->rhs.imp, &removed)
                    : hg_hybrid_impulse(m, d, s->state.q, s->rhs.dv, s->rhs.imp);
  if (rc)
    return hg_sim_fail(s, HG_SIM_ERR_NUMERIC, "t = %.17g: impulse: %s", s->state.t, d->err), -1;
  if (!all_zero)
    for (int k = 0; k < m->nv; k++) target[k] = s->state.v[k] + s->rhs.dv[k];
  /* the closed loops (with the couplings), or the couplings with free leaders alone, which the
   * impulse above did not see */
  if (hg_sim_loops_on(&s->loops)) {
    if (hg_sim_loops_impulse(s, target, NULL)) return -1;
  } else if (m->nmimic && hg_mimic_impulse(m, d, s->mimic, s->state.q, target))
    return hg_sim_fail(s, HG_SIM_ERR_NUMERIC, "t = %.17g: impulse: %s", s->state.t, d->err), -1;
  for (int k = 0; k < m->nv; k++) {
    s->rhs.dv[k] = target[k] - s->state.v[k];
    int b = m->dof_body[k];
    if (m->parent[b] == 0 && d->mode[b] != HG_MODE_FREE && s->rhs.dv[k] != 0) *external = 1;
  }
  memcpy(s->state.v, target, (size_t)m->nv * sizeof(double));
  /* a plastic lock removes energy; a profile started at another velocity adds or removes what
   * its impulse does, which the event books as event work (prescribed joints already move on
   * their profiles, so only new ones make velocity jumps) */
  hg_energy(m, d, s->state.q, s->state.v, &ke1, &pe);
  if (!actuated) *e_lock += ke0 - ke1;
  return 0;
}
