/* views.h: the views, previews and observers of the simulation runtime (not a public header; the
 * views and previews themselves are sim.h's).
 *
 * The kinematics and joint loads of the current state are evaluated once for the views and read
 * from s->d and rhs.tau while view_ok; whatever changes the state or evaluates another one clears
 * it. Previews work on a scratch workspace of the current model, never on the run's state.
 *
 * Frames: as sim.h's views (world poses and twists; loads in joint coordinates).
 *
 * Who writes each field:
 *   view_ok        set by view_state (views.c); cleared by sim_eval (rhs.c), hg_sim_pull_state and
 *                  hg_sim_advance (integration.c), hg_sim_fire (events.c), hg_ck_resume
 *                  (checkpoint.c), hg_sim_install_model (sim_model.c), hg_sim_run and
 *                  hg_sim_command (sim.c)
 *   pv_*           scratch (preview.c)
 *   nobs, obs      hg_sim_observe, hg_sim_release_observers (observe.c)
 *   started, wall  sim.c */
#ifndef HINGE_RT_VIEWS_H
#define HINGE_RT_VIEWS_H

#include "sim.h"

typedef struct hg_rt_views {
  int view_ok;            /* s->d and rhs.tau hold the current state's evaluation */
  /* previews: a scratch workspace of the model of version pv_version */
  hg_data *pv_d;
  double *pv_q, *pv_v;
  unsigned long pv_version;
  /* observers (hg_sim_observe) */
  int nobs;
  hg_sim_observer obs[HG_SIM_MAX_OBSERVERS];
  int started;            /* hg_sim_run was called: no more observers */
  double wall;            /* wall-clock time spent in hg_sim_run (s) */
} hg_rt_views;

/* ---- observe.c: the observers ---- */
/* each observer's row, event, progress, finish; 0 or the status */
int hg_sim_notify_row(hg_sim *s);
int hg_sim_notify_event(hg_sim *s, const hg_sim_event *ev);
/* the observers' sample callback (an instant of control in the loop) */
int hg_sim_notify_sample(hg_sim *s);
void hg_sim_notify_progress(hg_sim *s, int final);
int hg_sim_notify_finish(hg_sim *s);
void hg_sim_release_observers(hg_sim *s);
/* a file name in the run's folder (opt.out_dir) */
void hg_sim_path(const hg_sim *s, const char *name, char *path, size_t len);

/* ---- preview.c ---- */
/* frees the previews' scratch workspace */
void hg_sim_free_previews(hg_sim *s);

#endif
