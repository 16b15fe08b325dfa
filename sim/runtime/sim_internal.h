/* sim_internal.h: what the parts of the simulation runner share (sim*.c, triggers.c, events.c,
 * output.c, plot.c, checkpoint.c; not a public header). */
#ifndef HINGE_SIM_INTERNAL_H
#define HINGE_SIM_INTERNAL_H

#include <stdio.h>

#include "integrator.h"
#include "sim.h"

/* where a prescribed joint's profile comes from, enough to rebuild it after a topology change or
 * from a checkpoint */
enum { HG_RECIPE_KEEP = -1, HG_RECIPE_INITIAL = 0, HG_RECIPE_ACTION = 1, HG_RECIPE_COMMAND = 2 };

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
enum { HG_FIRED_EVENT = 0, HG_FIRED_CAPTURE = 1, HG_FIRED_COMMAND = 2 };
typedef struct hg_fired {
  int kind, index;
  double t;
} hg_fired;

/* a trigger resolved against the current model (root k of the system) */
typedef struct hg_trig {
  int kind;               /* HG_FIRED_EVENT or HG_FIRED_CAPTURE */
  int index;              /* event or capture index */
  int active;             /* 0: inert (fired once, bodies removed, docked): g = 1 */
  int body_a, body_b;     /* markers' bodies, or the body of altitude/speed */
  hg_se3 mark_a, mark_b;  /* marker frames in their bodies */
  int dof_q, dof_v;       /* joint_q: entry of q; joint_load: entry of v */
} hg_trig;

/* the trajectory columns of one body of the initial model */
typedef struct hg_col {
  char *body;             /* the body's name */
  int nq, nv;             /* widths of its joint's q, v and load columns */
} hg_col;

/* growable series for the plots */
typedef struct hg_series {
  int n, cap, width;      /* rows, allocated rows, numbers per row */
  double *x;              /* n x width */
} hg_series;

typedef struct hg_outputs {
  FILE *traj, *events;
  int ncol;  hg_col *col;          /* per initial body */
  int warned_width;                /* one warning for a joint wider than its columns */
  long rows;
  /* plots: time, energies (kinetic, potential+element, total, budget drift), momentum (6),
   * separations (2 per pair), loads (per load column) */
  hg_series energy, momentum, pair, load;
  int nload;                       /* load columns (sum of col[].nv) */
  unsigned char *load_used;        /* nload: the column was not free at some output */
  double *row_load, *row_pair;     /* one row of the load and pair series */
} hg_outputs;

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

  /* roots: one per condition event and per capture */
  int nroot;
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
  /* momentum: the reference (the start, or after the last event that changes it) and the
   * largest drift from it over the outputs, relative to the bodies' summed magnitudes */
  double h_ref[6], max_hdrift;

  /* schedule */
  double dt_out;          /* trajectory interval */
  long k_out;             /* next output row */
  long k_ck;              /* next checkpoint (1, 2, ...) */
  int restart;            /* the integrator must restart at the current time */
  int held;               /* hg_sim_run stopped at the caller's time: restart, output row and
                             checkpoint of this instant wait for the next call (sim.c) */

  /* views (views.c): the current state's kinematics and loads are in d and tau while view_ok */
  unsigned long model_version; /* incremented by hg_sim_install_model */
  int view_ok;

  /* bookkeeping */
  hg_integ_stats stats_done; /* statistics of integrators already freed */
  double wall, wall_mark;
  double progress_wall;   /* wall time of the last progress update */
  int failed;             /* the status of a failure (0: none) */
  char err[512];          /* the first failure (as long as hg_error.msg) */
  hg_outputs out;
};

/* ---- sim.c ---- */
/* the status after recording a failure message (printf-style) */
int hg_sim_fail(hg_sim *s, int status, const char *fmt, ...);
/* makes room for one more of n items of size in *arr (capacity *cap); 0 or -1 */
int hg_sim_grow(void **arr, int n, int *cap, size_t size);
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
 * prescribed joints through *power; 0 or -1 */
int hg_sim_eval(hg_sim *s, double t, const double *q, const double *v, double *power);
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

/* ---- output.c ---- */
int hg_out_open(hg_sim *s);
int hg_out_row(hg_sim *s);
int hg_out_event(hg_sim *s, const hg_sim_event *ev);
int hg_out_summary(hg_sim *s, const char *path);
void hg_out_close(hg_sim *s);
void hg_progress(hg_sim *s, int final);
/* a file name in the output folder */
void hg_out_path(const hg_sim *s, const char *name, char *path, size_t len);

/* ---- plot.c ---- */
/* the PNG plots; returns the number written, -1 on an error */
int hg_plot_all(hg_sim *s);

/* ---- checkpoint.c ---- */
int hg_ck_write(const hg_sim *s, const char *path);
int hg_ck_resume(hg_sim *s, const char *path, hg_error *err);

#endif
