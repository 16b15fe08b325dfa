/* sim_internal.h: what the parts of the simulation runtime share (the .c files of sim/runtime;
 * not a public header: everything outside the runtime, its outputs included, reads it through
 * sim.h). */
#ifndef HINGE_SIM_INTERNAL_H
#define HINGE_SIM_INTERNAL_H

#include <stdio.h>

#include "collision.h"
#include "integrator.h"
#include "mimic.h"
#include "sim.h"

/* where a prescribed joint's profile comes from, enough to rebuild it after a topology change or
 * from a checkpoint */
enum {
  HG_RECIPE_KEEP = -1,
  HG_RECIPE_INITIAL = 0,
  HG_RECIPE_ACTION = 1,
  HG_RECIPE_COMMAND = 2,
  HG_RECIPE_STOP = 3 /* locked by an end stop (stops.c) */
};

typedef struct hg_recipe {
  int src;                      /* HG_RECIPE_*: keep the velocity, scene->mode[idx],
                                   scene->event[idx].action[act].mode or
                                   cmd[idx].action[act].mode */
  int idx, act;
  double t0;                    /* start time */
  double q0[HG_JOINT_MAXNQ];    /* the joint's configuration at the start */
  double v0[HG_JOINT_MAXNV];    /* and its velocity (HG_RECIPE_KEEP) */
} hg_recipe;

/* a topology change, kept so that a resumed run can replay it */
typedef struct hg_topo_op {
  hg_action_type type;          /* HG_ACTION_DETACH, _ATTACH, _REMOVE or _ADD */
  char *body;                   /* detach, remove, add: the body; attach: the child */
  char *parent, *joint;         /* attach */
  hg_se3 T;                     /* attach: the child frame in the parent frame */
  const hg_action *add;         /* add: the action that places the new bodies (NULL when
                                   replayed: the checkpoint holds their state) */
} hg_topo_op;

/* a fired event or capture */
enum { HG_FIRED_EVENT = 0, HG_FIRED_CAPTURE = 1, HG_FIRED_COMMAND = 2, HG_FIRED_STOP = 3,
       HG_FIRED_TOUCH = 4 /* a contact element's sides meet: a root that only ends the step */ };
typedef struct hg_fired {
  int kind, index;
  double t;
} hg_fired;

/* a trigger resolved against the current model (root k of the system) */
typedef struct hg_trig {
  int kind;               /* HG_FIRED_EVENT, HG_FIRED_CAPTURE or HG_FIRED_TOUCH */
  int index;              /* event, capture or (touch) force element index */
  int active;             /* 0: inert (fired once, bodies removed, docked): g = 1 */
  int body_a, body_b;     /* markers' bodies, or the body of altitude/speed */
  hg_se3 mark_a, mark_b;  /* marker frames in their bodies */
  int dof_q, dof_v;       /* joint_q: entry of q; joint_load: entry of v */
  int nset[2], *set[2];   /* clearance: the two sets' bodies present in the model */
} hg_trig;

struct hg_sim {
  const hg_scene *scene;  /* never modified: every run of a scene starts alike */
  hg_builder *builder;    /* the bodies present now: a copy of the scene's that topology changes edit */
  hg_sim_options opt;
  hg_integ_options integ;
  double t_start, t_end;

  /* the current model and what is compiled against it */
  hg_model *m;
  hg_data *d;
  hg_forces *forces;
  hg_mimic_ws *mimic;     /* mimic couplings' workspace (mimic.h), when the model has couplings */
  hg_collision *coll;     /* collision geometry of m, when the scene watches a clearance */
  /* the pull of a perturb action: a spring-damper from a body point to a fixed world target,
   * compiled as a force element of its own (pull.c); NULL when nothing pulls */
  hg_forces *pull;
  hg_force_spec pull_spec;
  hg_marker pull_marker[2]; /* the body point, the world target */
  hg_profile **prof;      /* nbody: profile of each prescribed joint, or NULL */
  hg_recipe *recipe;      /* nbody */
  hg_integrator *I;
  hg_system sys;

  /* the state */
  double t, *q, *v;
  double quad;            /* the work W of the non-conservative forces and prescribed joints */

  /* right-hand side workspace (preallocated) */
  double *qs, *vs, *qdd, *tau, *tau_el, *fext, *vdot;
  double *dv, *imp;       /* impulses at events */
  int cache_ok;           /* the power cache holds (cache_t, cache_q, cache_v) */
  double cache_t, *cache_q, *cache_v, cache_power;

  /* roots: one per condition event, per capture and per contact element (nroot: the integrator
   * stops where a contact element's sides touch, so that no step leaps over the contact), then
   * one per end stop of the model
   * (nstop; stops.c): root_dir and root_hit hold nroot + nstop */
  int nstop, *stop;       /* the limited joints of the model */
  double *stop_g;         /* nstop: their functions (stops.c scratch) */
  int nroot;
  int ncontact;           /* contact elements of the scene (their steps are bounded: sim.c) */
  double *contact_tw;     /* 6 nbody: the bodies' world twists at the last contact step bound */
  double contact_t;       /* its time (NaN: none yet for this model) */
  int *root_dir;
  int *root_hit;          /* nroot: the roots of the last stop (a copy) */
  hg_trig *trig;
  int any_load_trigger;
  const hg_atmosphere *atm; /* altitude convention, or NULL (altitude = z) */

  /* event history */
  int *fire_count;        /* per scene event */
  int *captured;          /* per capture */
  int nfired, capfired;   hg_fired *fired;
  int ntopo, captopo;     hg_topo_op *topo;
  int nlog, caplog;       hg_sim_event *log;
  /* commands (hg_sim_command, hg_sim_schedule): owned copies, in the order given; fired or not */
  int ncmd, capcmd;       hg_command *cmd;
  unsigned char *cmd_fired; /* ncmd (capacity capcmd) */
  int nrefused;           /* actions refused (logged "REFUSED ...") */

  /* energy budget */
  double e_lock, w_event, b0, b_scale, max_drift;
  /* momentum: the reference (the start of the current isolated stretch) and the stretches */
  double h_ref[6];
  hg_sim_momentum_track mt;

  /* schedule */
  double dt_out;          /* trajectory interval */
  long k_out;             /* next output row */
  long k_ck;              /* next checkpoint (1, 2, ...) */
  int restart;            /* the integrator must restart at the current time */
  int held;               /* hg_sim_run stopped at the caller's time: restart, output row and
                             checkpoint of this instant wait for the next call (sim.c) */

  /* views (views.c): the current state's kinematics and loads are in d and tau while view_ok;
   * whatever changes the state or evaluates another one clears it (hg_sim_eval, hg_sim_pull_state,
   * hg_sim_fire, hg_ck_resume, hg_sim_install_model) */
  unsigned long model_version; /* incremented by hg_sim_install_model */
  int view_ok;
  /* previews (preview.c): a scratch workspace of the model of version pv_version */
  hg_data *pv_d;
  double *pv_q, *pv_v;
  unsigned long pv_version;

  /* bookkeeping */
  hg_integ_stats stats_done; /* statistics of integrators already freed */
  double wall, wall_mark;
  int nobs;               /* observers (hg_sim_observe) */
  hg_sim_observer obs[HG_SIM_MAX_OBSERVERS];
  int started;            /* hg_sim_run was called: no more observers */
  int failed;             /* the status of a failure (0: none) */
  /* the last good state (sim.c): a checkpoint of the last output row or event whose state was
   * finite with the energy budget still closing, for failure-state.txt */
  char *good;
  size_t good_len;
  double good_t;
  char err[512];          /* the first failure (as long as hg_error.msg) */
};

/* ---- sim.c ---- */
/* the status after recording a failure message (printf-style) */
int hg_sim_fail(hg_sim *s, int status, const char *fmt, ...);
/* makes room for one more of n items of size in *arr (capacity *cap); 0 or -1 */
int hg_sim_grow(void **arr, int n, int *cap, size_t size);
/* momentum tracking (hg_sim_momentum_track) at an event that was just applied (ev) or, with ev NULL,
 * at the current state */
void hg_sim_track_momentum(hg_sim *s, const hg_sim_event *ev);
/* what the invariants and the last good state (failure-state.txt) note after event ev */
void hg_sim_after_event(hg_sim *s, const hg_sim_event *ev);
/* time of output row k and of checkpoint k */
double hg_sim_out_time(const hg_sim *s, long k);
double hg_sim_ck_time(const hg_sim *s, long k);

/* ---- sim_system.c: the integrated system and the model-dependent parts ---- */
/* installs model m (owned from now on): workspace, forces (enabled flags from the old forces by
 * name), roots; profiles and modes are set by the caller. 0 or -1 with err */
int hg_sim_install_model(hg_sim *s, hg_model *m, hg_error *err);
/* a new integrator at (t, q, v) with the current quadrature; 0 or -1 with s->err */
int hg_sim_new_integrator(hg_sim *s);
/* restarts the integrator at the current state (an event or a checkpoint) */
int hg_sim_restart(hg_sim *s);
/* pulls (t, q, v, W) from the integrator and puts the prescribed joints on their profiles */
void hg_sim_pull_state(hg_sim *s);
/* the full evaluation at (t, q, v): s->qs/vs (profiles applied), qdd, tau (loads at prescribed
 * joints, element forces at free ones), returns the power of the non-conservative forces and
 * prescribed joints through *power; 0 or -1. s->d holds that state's kinematics after it. */
int hg_sim_eval(hg_sim *s, double t, const double *q, const double *v, double *power);
/* the integrator's right-hand side: hg_sim_eval's qdd, tau and power, without the promise of
 * kinematics in s->d */
int hg_sim_rhs(hg_sim *s, double t, const double *q, const double *v, double *power);
/* kinetic, gravity potential and element potential of (q, v) */
void hg_sim_energy(hg_sim *s, const double *q, const double *v, double *ke, double *pe,
                   double *pel);
/* momentum (world) and the sums of the bodies' angular and linear momentum magnitudes */
void hg_sim_momentum_scale(hg_sim *s, const double *q, const double *v, double h[6],
                           double scale[2]);
/* the budget value B of the current state */
double hg_sim_budget_value(hg_sim *s);
/* world pose, and twist (angular velocity, velocity of the origin; world axes) of body i for the
 * kinematics in s->d */
void hg_sim_body_world(hg_sim *s, int i, hg_se3 *T, double tw[6]);
/* tau = J_i^T w: the joint forces of a wrench w (moment about world point p, force; world axes)
 * on body i, for the kinematics in d (a workspace of s->m, walked at s->q) */
void hg_sim_wrench_to_tau(hg_sim *s, hg_data *d, int i, const double p[3], const double w[6],
                          double *tau);
/* the integrator statistics so far */
void hg_sim_add_stats(hg_integ_stats *acc, const hg_integ_stats *st);

/* ---- sim_modes.c: joint modes and profiles ---- */
/* the mode spec a recipe refers to, or NULL */
const hg_mode_spec *hg_sim_recipe_spec(const hg_sim *s, const hg_recipe *r);
/* (re)builds joint i's profile from its recipe; 0 or -1 with s->err */
int hg_sim_build_profile(hg_sim *s, int i);
/* sets joint i's mode from a spec starting now; recipe source src/idx/act; 0 or -1 */
int hg_sim_set_mode(hg_sim *s, int i, const hg_mode_spec *ms, int src, int idx, int act);
/* the impulsive switch: velocities of the non-free joints jump to their targets by the
 * momentum-conserving impulse; adds the removed kinetic energy to *e_lock; *external is set when
 * a joint to the world took an impulse. 0 or -1 */
int hg_sim_mode_impulse(hg_sim *s, double *e_lock, int *external);

/* ---- stops.c: end stops ---- */
/* the limited joints of the current model, and room for their roots; 0 or -1 */
int hg_sim_stops_install(hg_sim *s);
/* the stops' root functions (kinematics, s->qs and, when a stop holds, loads in s->tau) */
void hg_sim_stop_roots(hg_sim *s, double *g);
/* 1 when a stop holds a joint (its root needs the loads) */
int hg_sim_stops_held(const hg_sim *s);
/* the stops whose roots were hit (hit: nstop flags); 0 or an error status */
int hg_sim_stops_fire(hg_sim *s, const int *hit);
/* after events: releases held joints whose stop would pull and stops free joints past a limit
 * moving outward, at the present state; 0 or an error status */
int hg_sim_stops_settle(hg_sim *s);

/* ---- pull.c: the perturbation spring (perturb and release actions) ---- */
/* starts or moves the pull of act on its body; 0 or -1 with s->err */
int hg_sim_pull_start(hg_sim *s, const hg_action *act);
void hg_sim_pull_release(hg_sim *s);
/* recompiles the pull against a new model (inert when its body is gone); 0 or -1 */
int hg_sim_pull_renew(hg_sim *s, const hg_model *m, hg_error *err);

/* ---- sim_init.c ---- */
/* the scene's initial state and modes at t_start; 0 or -1 with err */
int hg_sim_initial_state(hg_sim *s, hg_error *err);

/* ---- triggers.c: conditions as root functions ---- */
/* resolves the triggers against the current model */
void hg_sim_resolve_triggers(hg_sim *s);
/* the root functions */
int hg_sim_roots(void *user, double t, const double *q, const double *v, double *g);
/* a marker's body and frame in the current model; -1 when the marker or its body is absent */
int hg_sim_resolve_marker(const hg_sim *s, const char *name, int *body, hg_se3 *M);
/* world pose of a marker frame M on body and the world velocity of its origin (kinematics in
 * s->d) */
void hg_sim_marker_world(hg_sim *s, int body, const hg_se3 *M, hg_se3 *T, double vel[3]);

/* ---- events.c: time events, commands, firing, actions ---- */
/* fires scene event e or capture c at the current state; 0 or an error status */
int hg_sim_fire(hg_sim *s, int kind, int index);
/* the next time event after t (inf when none), and firing those due at t */
double hg_sim_next_time_event(const hg_sim *s);
int hg_sim_fire_due(hg_sim *s);
/* appends to the history of fired events */
int hg_sim_push_fired(hg_sim *s, int kind, int index, double t);

/* ---- sim_topology.c ---- */
/* applies a topology op (edits the builder) and maps the state (with_state) or not; 0 or a
 * status. Adding (HG_ACTION_ADD) brings a root of the scene's library with its subtree; with
 * the state, the new joints take their initial states from the library and the root's free
 * joint the action's pose and twist; every other body keeps its state. */
int hg_sim_topology(hg_sim *s, const hg_topo_op *op, int with_state);
/* the replay list of topology changes */
int hg_sim_push_topo(hg_sim *s, const hg_topo_op *op);
void hg_sim_free_topo(hg_topo_op *op);

/* ---- observe.c: the observers ---- */
/* each observer's row, event (after hg_sim_after_event), progress, finish; 0 or the status */
int hg_sim_notify_row(hg_sim *s);
int hg_sim_notify_event(hg_sim *s, const hg_sim_event *ev);
void hg_sim_notify_progress(hg_sim *s, int final);
int hg_sim_notify_finish(hg_sim *s);
void hg_sim_release_observers(hg_sim *s);
/* a file name in the run's folder (opt.out_dir) */
void hg_sim_path(const hg_sim *s, const char *name, char *path, size_t len);

/* ---- checkpoint.c ---- */
int hg_ck_write(const hg_sim *s, const char *path);
/* the same into an open stream; 0 or -1 */
int hg_ck_fwrite(const hg_sim *s, FILE *f);
int hg_ck_resume(hg_sim *s, const char *path, hg_error *err);

/* A run's output step and checkpoint interval must leave it a finite amount of work: at most
 * this many samples (a 1e-300 s output step would never end) and checkpoints. */
#define HG_SIM_MAX_SAMPLES 1e9
#define HG_SIM_MAX_CHECKPOINTS 1e6
/* 0 when dt (an output step with output != 0, else a checkpoint interval, 0 for none) fits the
 * run from t_start to t_end within those bounds (sim.c) */
int hg_sim_check_interval(const hg_sim *s, double dt, int output);

#endif
