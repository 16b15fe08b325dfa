/* observe.c: the observers of a run (sim.h, hg_sim_observe): who is told of each output time,
 * event, stop and the end, and the views only an observer needs. */
#include <string.h>

#include "sim_internal.h"

int hg_sim_observe(hg_sim *s, const hg_sim_observer *obs) {
  if (s->views.started || s->views.nobs == HG_SIM_MAX_OBSERVERS) {
    if (obs->release) obs->release(obs->user);
    return -1;
  }
  s->views.obs[s->views.nobs++] = *obs;
  return 0;
}

/* the first failure of an observer stops the run */
static int observer_failed(hg_sim *s, const char *msg) {
  return msg ? hg_sim_fail(s, HG_SIM_ERR_OUTPUT, "%s", msg) : 0;
}

int hg_sim_notify_row(hg_sim *s) {
  int rc = 0;
  for (int k = 0; k < s->views.nobs && !rc; k++)
    if (s->views.obs[k].row) rc = observer_failed(s, s->views.obs[k].row(s->views.obs[k].user, s));
  return rc;
}

int hg_sim_notify_sample(hg_sim *s) {
  int rc = 0;
  for (int k = 0; k < s->views.nobs && !rc; k++)
    if (s->views.obs[k].sample)
      rc = observer_failed(s, s->views.obs[k].sample(s->views.obs[k].user, s));
  return rc;
}

int hg_sim_notify_event(hg_sim *s, const hg_sim_event *ev) {
  int rc = 0;
  for (int k = 0; k < s->views.nobs && !rc; k++)
    if (s->views.obs[k].event)
      rc = observer_failed(s, s->views.obs[k].event(s->views.obs[k].user, s, ev));
  return rc;
}

void hg_sim_notify_progress(hg_sim *s, int final) {
  for (int k = 0; k < s->views.nobs; k++)
    if (s->views.obs[k].progress) s->views.obs[k].progress(s->views.obs[k].user, s, final);
}

int hg_sim_notify_finish(hg_sim *s) {
  int rc = 0;
  for (int k = 0; k < s->views.nobs; k++) {
    const hg_sim_observer *o = &s->views.obs[k];
    const char *msg = o->finish ? o->finish(o->user, s) : NULL;
    if (msg && !rc) rc = HG_SIM_ERR_OUTPUT, hg_sim_fail(s, HG_SIM_ERR_OUTPUT, "%s", msg);
  }
  return rc;
}

void hg_sim_release_observers(hg_sim *s) {
  for (int k = 0; k < s->views.nobs; k++)
    if (s->views.obs[k].release) s->views.obs[k].release(s->views.obs[k].user);
  s->views.nobs = 0;
}

void hg_sim_path(const hg_sim *s, const char *name, char *path, size_t len) {
  const char *dir = s->opt.out_dir ? s->opt.out_dir : ".";
  size_t n = strlen(dir);
  snprintf(path, len, "%s%s%s", dir, n && dir[n - 1] == '/' ? "" : "/", name);
}

/* ---- what observers read ---- */

int hg_sim_status(const hg_sim *s) { return s->failed; }
const hg_scene *hg_sim_scene(const hg_sim *s) { return s->scene; }
const hg_integ_options *hg_sim_integ_options(const hg_sim *s) { return &s->integ; }
const hg_sim_momentum_track *hg_sim_momentum_drift(const hg_sim *s) { return &s->budget.mt; }
