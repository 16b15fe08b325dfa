/* sim_system.c: the system the runner integrates (accelerations, the work quadrature, roots), the
 * parts compiled against the current model, and the invariants of a state. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_internal.h"

/* ---- the right-hand side ---- */

/* kin: the caller reads the kinematics of the state in s->d afterwards (the views, the roots,
 * the stops); without, a model with a body-local pass (m->local) whose enabled force elements
 * need no kinematics (joint springs only) skips the tree walk and runs hybrid dynamics body-local */
static int sim_eval(hg_sim *s, double t, const double *q, const double *v, double *power,
                    int kin) {
  s->views.view_ok = 0; /* s->d and s->rhs.tau now hold this evaluation (views.c) */
  const hg_model *m = s->m;
  hg_data *d = s->d;
  int local = !kin && m->local && !m->nmimic && !hg_forces_need_kinematics(s->forces) &&
              !(s->pull.forces && hg_forces_need_kinematics(s->pull.forces));
  size_t nq = (size_t)m->nq, nv = (size_t)m->nv;
  /* the prescribed part of the state and its accelerations from the profiles */
  memcpy(s->rhs.qs, q, nq * sizeof(double));
  memcpy(s->rhs.vs, v, nv * sizeof(double));
  memset(s->rhs.qdd, 0, nv * sizeof(double));
  if (hg_profiles_apply(m, d, s->state.prof, t, s->rhs.qs, s->rhs.vs, s->rhs.qdd)) return -1;
  if (m->nmimic) hg_mimic_follow(m, d, s->rhs.qs, s->rhs.vs, s->rhs.qdd); /* followers move with leaders */
  /* force elements on the kinematics of that state */
  if (!local) hg_kinematics(m, d, s->rhs.qs, s->rhs.vs);
  memset(s->rhs.fext, 0, 6 * (size_t)m->nbody * sizeof(double));
  memset(s->rhs.tau, 0, nv * sizeof(double));
  double p, pp = 0;
  int wrenches = hg_forces_apply_power(s->forces, m, d, t, s->rhs.qs, s->rhs.vs, s->rhs.fext, s->rhs.tau, &p);
  if (s->pull.forces)
    wrenches |= hg_forces_apply_power(s->pull.forces, m, d, t, s->rhs.qs, s->rhs.vs, s->rhs.fext, s->rhs.tau, &pp);
  memcpy(s->rhs.tau_el, s->rhs.tau, nv * sizeof(double));
  p += pp;
  /* hybrid dynamics on the same kinematics (one tree walk per evaluation): tau at prescribed
   * joints becomes the load the joint carries; no body wrenches (fext all zero) are passed as
   * none, which spares the pass their transformation at every body */
  const double *fext = wrenches ? s->rhs.fext : NULL;
  int rc = local       ? hg_hybrid(m, d, s->rhs.qs, s->rhs.vs, s->rhs.qdd, s->rhs.tau, fext)
           : m->nmimic ? hg_mimic_hybrid(m, d, s->mimic, s->rhs.qdd, s->rhs.tau, fext)
                       : hg_hybrid_on_kinematics(m, d, s->rhs.qdd, s->rhs.tau, fext);
  if (rc) return -1;
  for (int i = 1; i < m->nbody; i++) {
    if (d->mode[i] == HG_MODE_FREE) continue;
    for (int k = m->v_adr[i]; k < m->v_adr[i] + m->jnt_nv[i]; k++) {
      s->rhs.tau[k] -= s->rhs.tau_el[k]; /* what the actuator adds to the element forces */
      p += s->rhs.tau[k] * s->rhs.vs[k];
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

/* vdot = f(t, q, v); the power is cached for the quadrature at the same point */
static int sim_accel(void *user, double t, const double *q, const double *v, double *vdot) {
  hg_sim *s = user;
  double p;
  if (hg_sim_rhs(s, t, q, v, &p)) return -1;
  memcpy(vdot, s->rhs.qdd, (size_t)s->m->nv * sizeof(double));
  s->rhs.cache_ok = 1;
  s->rhs.cache_t = t;
  s->rhs.cache_power = p;
  memcpy(s->rhs.cache_q, q, (size_t)s->m->nq * sizeof(double));
  memcpy(s->rhs.cache_v, v, (size_t)s->m->nv * sizeof(double));
  return 0;
}

/* Wdot = power of the non-conservative forces and prescribed joints */
static int sim_quad(void *user, double t, const double *q, const double *v, double *wdot) {
  hg_sim *s = user;
  if (s->rhs.cache_ok && s->rhs.cache_t == t &&
      memcmp(s->rhs.cache_q, q, (size_t)s->m->nq * sizeof(double)) == 0 &&
      memcmp(s->rhs.cache_v, v, (size_t)s->m->nv * sizeof(double)) == 0) {
    *wdot = s->rhs.cache_power;
    return 0;
  }
  return hg_sim_rhs(s, t, q, v, wdot);
}

/* ---- the integrator ---- */

void hg_sim_add_stats(hg_integ_stats *a, const hg_integ_stats *b) {
  a->steps += b->steps;
  a->rhs_evals += b->rhs_evals;
  a->jac_evals += b->jac_evals;
  a->err_test_fails += b->err_test_fails;
  a->conv_fails += b->conv_fails;
  a->root_evals += b->root_evals;
  a->recentres += b->recentres;
  a->events += b->events;
  a->resets += b->resets;
  a->rhs_retries += b->rhs_retries;
}

/* frees the integrator, keeping its statistics */
static void sim_drop_integrator(hg_sim *s) {
  if (!s->rhs.I) return;
  hg_integ_stats st;
  hg_integrator_stats(s->rhs.I, &st);
  hg_sim_add_stats(&s->rhs.stats_done, &st);
  hg_integrator_free(s->rhs.I);
  s->rhs.I = NULL;
}

int hg_sim_new_integrator(hg_sim *s) {
  hg_error err;
  sim_drop_integrator(s);
  memset(&s->rhs.sys, 0, sizeof s->rhs.sys);
  s->rhs.sys.m = s->m;
  s->rhs.sys.accel = sim_accel;
  s->rhs.sys.nroot = s->tl.nroot + s->tl.nstop;
  s->rhs.sys.roots = s->rhs.sys.nroot ? hg_sim_roots : NULL;
  s->rhs.sys.root_dir = s->tl.root_dir;
  s->rhs.sys.user = s;
  s->rhs.sys.nquad = 1;
  s->rhs.sys.quad = sim_quad;
  s->rhs.cache_ok = 0;
  s->rhs.contact_t = NAN;
  s->rhs.I = hg_integrator_new(&s->rhs.sys, &s->integ, s->state.t, s->state.q, s->state.v, &err);
  if (!s->rhs.I) return hg_sim_fail(s, HG_SIM_ERR_NUMERIC, "t = %.17g: %s", s->state.t, err.msg), -1;
  hg_integrator_set_quad(s->rhs.I, &s->state.quad);
  return 0;
}

int hg_sim_restart(hg_sim *s) {
  s->rhs.cache_ok = 0;
  s->rhs.contact_t = NAN; /* the contact step bound starts afresh, as a resumed run's does */
  if (hg_integrator_reset(s->rhs.I, s->state.t, s->state.q, s->state.v))
    return hg_sim_fail(s, HG_SIM_ERR_NUMERIC, "restart at t = %.17g: %s", s->state.t,
                       hg_integrator_error_message(s->rhs.I)), -1;
  /* the integrator keeps its quadrature, which is s->state.quad */
  s->tl.restart = 0;
  return 0;
}

void hg_sim_pull_state(hg_sim *s) {
  s->views.view_ok = 0; /* a new state: the views evaluate it afresh */
  s->state.t = hg_integrator_t(s->rhs.I);
  memcpy(s->state.q, hg_integrator_q(s->rhs.I), (size_t)s->m->nq * sizeof(double));
  memcpy(s->state.v, hg_integrator_v(s->rhs.I), (size_t)s->m->nv * sizeof(double));
  s->state.quad = hg_integrator_quad(s->rhs.I)[0];
  hg_profiles_apply(s->m, s->d, s->state.prof, s->state.t, s->state.q, s->state.v, NULL);
  if (s->m->nmimic) hg_mimic_follow(s->m, s->d, s->state.q, s->state.v, NULL);
}

/* ---- the model-dependent parts ---- */

/* (re)allocates n doubles; 0 or -1 */
static int sim_realloc(double **x, size_t n) {
  double *y = realloc(*x, (n ? n : 1) * sizeof(double));
  if (!y) return -1;
  *x = y;
  return 0;
}

/* the state and workspace arrays for model m */
static int sim_alloc_work(hg_sim *s, const hg_model *m) {
  size_t nq = (size_t)m->nq, nv = (size_t)m->nv, nb = (size_t)m->nbody;
  double **nqs[] = {&s->state.q, &s->rhs.qs, &s->rhs.cache_q};
  double **nvs[] = {&s->state.v, &s->rhs.vs, &s->rhs.qdd, &s->rhs.tau, &s->rhs.tau_el, &s->rhs.vdot, &s->rhs.dv, &s->rhs.imp,
                    &s->rhs.cache_v};
  for (size_t k = 0; k < sizeof nqs / sizeof nqs[0]; k++)
    if (sim_realloc(nqs[k], nq)) return -1;
  for (size_t k = 0; k < sizeof nvs / sizeof nvs[0]; k++)
    if (sim_realloc(nvs[k], nv)) return -1;
  if (sim_realloc(&s->rhs.fext, 6 * nb) || sim_realloc(&s->rhs.contact_tw, 6 * nb)) return -1;
  s->rhs.contact_t = NAN;
  hg_profile **prof = realloc(s->state.prof, nb * sizeof *prof);
  if (prof) s->state.prof = prof;
  hg_recipe *rec = realloc(s->state.recipe, nb * sizeof *rec);
  if (rec) s->state.recipe = rec;
  if (!prof || !rec) return -1;
  memset(s->state.prof, 0, nb * sizeof *prof);
  memset(s->state.recipe, 0, nb * sizeof *rec);
  return 0;
}

/* Forces for model m. After a topology change they are carried over by the one rule of
 * hg_forces_renew: enabled as before (by name), inert where a body or joint is gone, and a joint
 * spring whose joint was detached to the world or changed type is off. */
static hg_forces *sim_forces(hg_sim *s, const hg_model *m, hg_error *err) {
  return s->forces ? hg_forces_renew(s->forces, s->scene, m, err)
                   : hg_forces_new(s->scene, m, err);
}

/* 1 when an event of the scene watches a clearance */
static int watches_clearance(const hg_scene *sc) {
  for (int e = 0; e < sc->nevent; e++)
    if (sc->event[e].trigger == HG_TRIGGER_CLEARANCE) return 1;
  return 0;
}

int hg_sim_install_model(hg_sim *s, hg_model *m, hg_error *err) {
  hg_data *d = hg_data_new(m);
  hg_mimic_ws_free(s->mimic);
  s->mimic = NULL;
  if (d && m->nmimic && !(s->mimic = hg_mimic_ws_new(m))) hg_data_free(d), d = NULL;
  hg_forces *f = d ? sim_forces(s, m, err) : NULL;
  if (f && hg_sim_pull_renew(s, m, err)) {
    hg_forces_free(f);
    f = NULL;
  }
  if (!d) hg_error_set(err, "out of memory");
  if (!f) {
    hg_data_free(d);
    hg_model_free(m);
    return -1;
  }
  /* the old parts go; profiles of the old model are freed by the caller's mode transfer */
  for (int i = 0; s->m && i < s->m->nbody; i++) hg_profile_free(s->state.prof[i]);
  hg_forces_free(s->forces);
  hg_data_free(s->d);
  hg_model_free(s->m);
  s->m = m;
  s->d = d;
  s->forces = f;
  /* collision geometry, for the clearances the scene watches */
  hg_collision_free(s->coll);
  s->coll = NULL;
  if (watches_clearance(s->scene) && !(s->coll = hg_collision_new(m, err))) return -1;
  s->model_version++;
  s->views.view_ok = 0;
  memcpy(m->gravity, s->scene->gravity, sizeof m->gravity);
  if (sim_alloc_work(s, m) || hg_sim_stops_install(s))
    return hg_error_set(err, "out of memory"), -1;
  hg_sim_resolve_triggers(s);
  return 0;
}

/* ---- invariants ---- */

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
  /* each body's momentum about the world origin (hg_momentum's terms) */
  for (int i = 1; i < m->nbody; i++) {
    const double *p0 = d->T_world[m->root[i]].p;
    double hb[6];
    hg_inertia_mulv(&d->I[i], d->V[i], hb);
    hg_v3_cross_add(p0, hb + 3, hb);
    scale[0] += hg_v3_norm(hb);
    scale[1] += hg_v3_norm(hb + 3);
  }
}

double hg_sim_budget_value(hg_sim *s) {
  double ke, pe, pel;
  hg_sim_energy(s, s->state.q, s->state.v, &ke, &pe, &pel);
  double b = ke + pe + pel + s->budget.e_lock - s->state.quad - s->budget.w_event;
  double sc = fabs(ke) + fabs(pe) + fabs(pel) + fabs(s->budget.e_lock) + fabs(s->state.quad) + fabs(s->budget.w_event);
  if (sc > s->budget.b_scale) s->budget.b_scale = sc;
  return b;
}

void hg_sim_wrench_to_tau(hg_sim *s, hg_data *d, int i, const double p[3], const double w[6],
                          double *tau) {
  const hg_model *m = s->m;
  double Fw[6], Fb[6];
  /* the wrench about the world origin, then in body i's frame about its origin */
  memcpy(Fw, w, sizeof Fw);
  hg_v3_cross_add(p, w + 3, Fw);
  hg_coAd(&d->T_world[i], Fw, Fb);
  memset(tau, 0, (size_t)m->nv * sizeof(double));
  hg_jacobian_transpose(m, d, i, Fb, tau);
}

void hg_sim_body_world(hg_sim *s, int i, hg_se3 *T, double tw[6]) {
  double V[6];
  *T = s->d->T_world[i];
  hg_body_twist(s->m, s->d, i, V);
  hg_m3_mulv(T->R, V, tw);
  hg_m3_mulv(T->R, V + 3, tw + 3);
}
