/* sim_model.c: installing a model (at creation and after each topology change): its data, the
 * state and workspace arrays, the force elements carried over, the pull, collision geometry, end
 * stops and triggers. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_internal.h"

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
  double **nvs[] = {&s->state.v, &s->rhs.vs, &s->rhs.qdd, &s->rhs.tau, &s->rhs.tau_el,
                    &s->rhs.vdot, &s->rhs.dv, &s->rhs.imp,
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

void hg_sim_free_model(hg_sim *s) {
  for (int i = 0; s->m && i < s->m->nbody; i++) hg_profile_free(s->state.prof[i]);
  hg_forces_free(s->forces);
  hg_mimic_ws_free(s->mimic);
  hg_collision_free(s->coll);
  hg_data_free(s->d);
  hg_model_free(s->m);
  double *arrays[] = {s->state.q,      s->state.v,     s->rhs.qs,         s->rhs.vs,
                      s->rhs.qdd,      s->rhs.tau,     s->rhs.tau_el,     s->rhs.fext,
                      s->rhs.vdot,     s->rhs.dv,      s->rhs.imp,        s->rhs.cache_q,
                      s->rhs.cache_v,  s->rhs.contact_tw};
  for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; k++) free(arrays[k]);
  free(s->state.prof);
  free(s->state.recipe);
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
  if (hg_sim_loops_compile(s, err)) return -1;
  hg_sim_control_compile(s);
  hg_sim_resolve_triggers(s);
  return 0;
}
