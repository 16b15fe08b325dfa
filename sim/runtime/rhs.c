/* rhs.c: the right-hand side of the integrated system: the accelerations of a state with the
 * prescribed joints on their profiles, the joint loads, and the power of the non-conservative
 * forces and prescribed joints that the work quadrature integrates. */
#include <string.h>

#include "sim_internal.h"

/* kin: the caller reads the kinematics of the state in s->d afterwards (the views, the roots,
 * the stops); without, a model with a body-local pass (m->local) whose enabled force elements
 * need no kinematics (joint springs only) skips the tree walk and runs hybrid dynamics body-local */
static int sim_eval(hg_sim *s, double t, const double *q, const double *v, double *power,
                    int kin) {
  s->views.view_ok = 0; /* s->d and rhs.tau now hold this evaluation (views.c) */
  const hg_model *m = s->m;
  hg_data *d = s->d;
  hg_rt_rhs *w = &s->rhs;
  int loops = hg_sim_loops_solve(s) > 0;
  int local = !kin && !loops && m->local && !m->nmimic && !hg_forces_need_kinematics(s->forces) &&
              !(s->pull.forces && hg_forces_need_kinematics(s->pull.forces)) &&
              !s->ctl.need_kinematics;
  size_t nq = (size_t)m->nq, nv = (size_t)m->nv;
  /* the prescribed part of the state and its accelerations from the profiles */
  memcpy(w->qs, q, nq * sizeof(double));
  memcpy(w->vs, v, nv * sizeof(double));
  memset(w->qdd, 0, nv * sizeof(double));
  if (hg_profiles_apply(m, d, s->state.prof, t, w->qs, w->vs, w->qdd)) return -1;
  /* followers move with leaders */
  if (m->nmimic) hg_mimic_follow(m, d, w->qs, w->vs, w->qdd);
  /* the tanks' propellant at t, in their bodies' inertias before the walk reads them */
  if (s->ctl.ntank) hg_sim_control_tanks(s, t);
  /* force elements on the kinematics of that state */
  if (!local) hg_kinematics(m, d, w->qs, w->vs);
  memset(w->fext, 0, 6 * (size_t)m->nbody * sizeof(double));
  memset(w->tau, 0, nv * sizeof(double));
  double p, pp = 0;
  int wrenches = hg_forces_apply_power(s->forces, m, d, t, w->qs, w->vs, w->fext, w->tau, &p);
  if (s->pull.forces)
    wrenches |= hg_forces_apply_power(s->pull.forces, m, d, t, w->qs, w->vs, w->fext, w->tau, &pp);
  /* the actuators: joint forces beside the elements', thrust among the body wrenches */
  if (s->ctl.nact || s->ctl.ntank) pp += hg_sim_control_apply(s, t, w->qs, w->vs, w->tau, w->fext,
                                                             &wrenches);
  memcpy(w->tau_el, w->tau, nv * sizeof(double));
  p += pp;
  /* hybrid dynamics on the same kinematics (one tree walk per evaluation): tau at prescribed
   * joints becomes the load the joint carries; no body wrenches (fext all zero) are passed as
   * none, which spares the pass their transformation at every body */
  const double *fext = wrenches ? w->fext : NULL;
  /* with closed loops, the constrained pass (loops.h; it enforces the mimic couplings too) */
  s->loops.lambda_ok = 0;
  int rc = loops       ? hg_loops_hybrid(s->loops.L, d, w->qs, w->vs, s->loops.eff, w->qdd,
                                         w->tau, fext, s->loops.lambda)
           : local     ? hg_hybrid(m, d, w->qs, w->vs, w->qdd, w->tau, fext)
           : m->nmimic ? hg_mimic_hybrid(m, d, s->mimic, w->qdd, w->tau, fext)
                       : hg_hybrid_on_kinematics(m, d, w->qdd, w->tau, fext);
  if (rc) return -1;
  s->loops.lambda_ok = loops;
  for (int i = 1; i < m->nbody; i++) {
    if (d->mode[i] == HG_MODE_FREE) continue;
    for (int k = m->v_adr[i]; k < m->v_adr[i] + m->jnt_nv[i]; k++) {
      w->tau[k] -= w->tau_el[k]; /* what the actuator adds to the element forces */
      p += w->tau[k] * w->vs[k];
    }
  }
  if (power) *power = p;
  return 0;
}

int hg_sim_eval(hg_sim *s, double t, const double *q, const double *v, double *power) {
  return sim_eval(s, t, q, v, power, 1);
}

int hg_sim_rhs(hg_sim *s, double t, const double *q, const double *v, double *power) {
  return sim_eval(s, t, q, v, power, 0);
}

/* vdot = f(t, q, v); the power is cached for the quadrature at the same point. A run that must
 * stop (its wall-time limit, a signal: failure.c) refuses the evaluation, which ends the
 * integrator's advance at its last accepted step. */
int hg_sim_accel(void *user, double t, const double *q, const double *v, double *vdot) {
  hg_sim *s = user;
  double p;
  if (s->halt.armed && hg_sim_halt_due(s, 0)) return -1;
  if (hg_sim_rhs(s, t, q, v, &p)) return -1;
  memcpy(vdot, s->rhs.qdd, (size_t)s->m->nv * sizeof(double));
  s->rhs.cache_ok = 1;
  s->rhs.cache_t = t;
  s->rhs.cache_power = p;
  if (s->ctl.nquad)
    memcpy(s->ctl.cache_rate, s->ctl.rate, (size_t)s->ctl.nquad * sizeof(double));
  memcpy(s->rhs.cache_q, q, (size_t)s->m->nq * sizeof(double));
  memcpy(s->rhs.cache_v, v, (size_t)s->m->nv * sizeof(double));
  return 0;
}

/* Wdot = power of the non-conservative forces, prescribed joints and actuators, then each
 * actuator's work, friction loss and saturated time (sim_control.h) */
int hg_sim_quad(void *user, double t, const double *q, const double *v, double *wdot) {
  hg_sim *s = user;
  size_t nc = (size_t)s->ctl.nquad;
  if (s->rhs.cache_ok && s->rhs.cache_t == t &&
      memcmp(s->rhs.cache_q, q, (size_t)s->m->nq * sizeof(double)) == 0 &&
      memcmp(s->rhs.cache_v, v, (size_t)s->m->nv * sizeof(double)) == 0) {
    *wdot = s->rhs.cache_power;
    if (nc) memcpy(wdot + 1, s->ctl.cache_rate, nc * sizeof(double));
    return 0;
  }
  int rc = hg_sim_rhs(s, t, q, v, wdot);
  if (nc) memcpy(wdot + 1, s->ctl.rate, nc * sizeof(double));
  return rc;
}
