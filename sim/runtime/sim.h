/* sim.h: the simulation runner: a scene (scene.h) integrated through its event timeline.
 *
 * hg_sim_new compiles the scene's bodies into a model, sets gravity, the initial state (joint q/v,
 * world pose and twist of free bodies), the joint modes and their motion profiles, the force
 * elements (forces.h) and the integrator. The system it integrates is
 *   vdot = hybrid dynamics (q, v; tau and fext from the force elements; prescribed accelerations
 *          from the profiles), with the prescribed part of (q, v) taken from the profiles,
 * its root functions are the scene's condition events and docking captures, and one quadrature
 * carries the work W of the non-conservative forces and of the prescribed joints.
 *
 * hg_sim_run advances to each output time and stops exactly at every time event and checkpoint
 * time, and at every root. At an event it applies the actions in order:
 *   set_mode       the joint's mode; a switch that makes a velocity jump (locking a moving joint,
 *                  starting a profile at another velocity) applies the momentum-conserving impulse
 *                  of a perfectly plastic lock (hg_plastic_lock / hg_hybrid_impulse)
 *   enable/disable a force element
 *   impulse        a linear and angular impulse (world axes) at a marker
 *   detach         the subtree of a body leaves on a free joint to the world, keeping its world
 *                  pose and twist
 *   attach         marker b's body docks to marker a's body by a new free joint named
 *                  "dock_<marker_a>_<marker_b>", locked: the plastic impulse removes the
 *                  relative velocity and conserves momentum (docking captures do the same)
 *   undock         a docking joint becomes free, or its subtree detaches
 *   remove         a body and its subtree leave the simulation
 *   add            a body absent at the start (present: false) and its subtree join, placed by a
 *                  pose and twist relative to a marker, its parent or the world
 * A capture (scene.h) is a root function max(d / position_tol, angle / angle_tol,
 * speed / speed_tol) - 1 falling through zero, d and speed those of the port origins and angle the
 * rotation from port a's frame turned half a turn about its x axis to port b's frame (mated ports
 * face each other); it docks like attach. Conditions are found only if the integrator's steps are
 * short enough to see them (a scene's max_step). Time events and checkpoints are exact stops.
 * Topology changes edit the simulation's copy of the scene's bodies (topology.h), recompile, map the state (every body
 * keeps its world pose and spatial velocity) and rebuild forces, profiles and integrator. Joint
 * modes and profiles follow their joints by name. Every event is logged with the total momentum
 * (hg_momentum) and the mechanical energy before and after it.
 *
 * Energy budget: B = kinetic + gravity potential + element potential + E_lock - W - W_event,
 * where E_lock is the kinetic energy removed by impulsive mode switches (plastic locks) and
 * W_event the energy other events add (impulses, switching a loaded spring, removing bodies). B
 * stays at its initial value up to the integration error.
 *
 * Checkpoints: with checkpoint_every = DT the run stops at t_start + k DT, writes the full state
 * (%.17g) to OUT/checkpoint-KKKK.txt and restarts the integrator there. hg_sim_resume replays the
 * structural effects of the events fired before a checkpoint (topology, modes and profiles, force
 * switches) without integrating, loads its state and restarts the same way, so the resumed run
 * repeats the uninterrupted run's arithmetic bit for bit.
 *
 * Outputs (when out_dir is set): trajectory.csv, events.csv, summary.txt and PNG plots
 * (energy.png, momentum.png, separation.png, loads.png). */
#ifndef HINGE_SIM_H
#define HINGE_SIM_H

#include <stdio.h>

#include "forces.h"
#include "scene.h"

/* status of hg_sim_run and friends */
enum {
  HG_SIM_OK = 0,
  HG_SIM_ERR_OUTPUT = 1, /* an output file could not be written */
  HG_SIM_ERR_INPUT = 2,  /* a scene that cannot be simulated, or a bad checkpoint */
  HG_SIM_ERR_NUMERIC = 3 /* the integrator failed, a state went non-finite, or an event failed */
};

typedef struct hg_sim_options {
  double t_end;            /* NaN: the scene's */
  double rtol;             /* 0: the scene's */
  int method;              /* -1: the scene's (hg_integ_method) */
  const char *out_dir;     /* NULL: write nothing (the folder must exist) */
  double checkpoint_every; /* 0: no checkpoints */
  int plots;               /* write the PNG plots (with out_dir and the scene's output.plots) */
  FILE *progress;          /* a progress bar (a terminal), or NULL */
} hg_sim_options;

/* one logged event (events.csv) */
typedef struct hg_sim_event {
  double t;
  const char *name;    /* the event's name, or "capture" */
  char details[512];   /* what its actions did */
  double h_before[6], h_after[6]; /* total momentum (angular about the origin, linear), world */
  double e_before, e_after;       /* kinetic + gravity potential + element potential */
  double e_lock;       /* kinetic energy removed by plastic locks of this event */
  double h_scale[2];   /* sums of the bodies' angular and linear momentum magnitudes (before) */
  int conserves;       /* 1 when every tree floats freely, no action applies an outside impulse or
                          removes a body, and the momentum did not change (1e-12 relative) */
} hg_sim_event;

/* the momentum change across an event: max of |dL| and |dp|, each relative to the bodies'
 * summed angular or linear momentum magnitudes before it (events.csv's momentum_change) */
double hg_sim_event_momentum_change(const hg_sim_event *ev);

/* the energy budget */
typedef struct hg_sim_budget {
  double kinetic, potential, element; /* now */
  double e_lock, work, work_event;    /* accumulated since the start */
  double value, initial;              /* B now and at the start */
  double scale;                       /* the largest |term| seen, for relative drift */
  double max_drift;                   /* max |B - B0| / scale over the outputs so far */
} hg_sim_budget;

typedef struct hg_sim hg_sim;

void hg_sim_default_options(hg_sim_options *opt);

/* A simulation of scene s. The scene is only read, never modified (topology changes edit the
 * simulation's own copy of its bodies), so any number of simulations may be made from one scene,
 * also concurrently from several threads, and every run of the same scene and options is
 * bit-identical. s must outlive the simulation. NULL with err on a scene that cannot be simulated
 * (unknown names, a singular model, bad integrator options). A restart is hg_sim_free and
 * hg_sim_new: it costs one model compile, O(bodies). */
hg_sim *hg_sim_new(const hg_scene *s, const hg_sim_options *opt, hg_error *err);
void hg_sim_free(hg_sim *sim);

/* Continues from a checkpoint file written by a run of the same scene (before any hg_sim_run).
 * Returns HG_SIM_OK, or HG_SIM_ERR_INPUT with err on a file that does not fit the scene. */
int hg_sim_resume(hg_sim *sim, const char *path, hg_error *err);

/* Runs to min(until, t_end), writing outputs on the way. HG_SIM_OK, or an error status with
 * hg_sim_error naming the time and what failed; after a numerical failure the last good state is
 * in OUT/failure-state.txt (a checkpoint). */
int hg_sim_run(hg_sim *sim, double until);

/* ---- commands: the one path of every change (docs/commands.md) ----
 * Scene events, docking captures, command files, the viewer and scripts all change a running
 * simulation through the same actions (scene.h, hg_action), applied by one function and logged to
 * events.csv the same way. A command's consecutive set_mode actions take effect together, in one
 * impulse; a profile that would make its joint jump is refused (logged, the joint keeps its mode).
 *
 * hg_sim_command applies cmd's actions now, at hg_sim_time, as one event named by its text: after
 * whatever else is due at this instant (scene time events) and before the output row of this
 * instant, so that it does exactly what the same command scheduled for this time does.
 * hg_sim_schedule keeps cmd for time cmd->t (>= now): the run stops exactly there and applies it
 * after the scene's time events of that instant, as a scene event {at: t} would be applied.
 * Both copy cmd. HG_SIM_OK or an error status (hg_sim_error says why). */
int hg_sim_command(hg_sim *sim, const hg_command *cmd);
/* hg_command_parse against the simulation's scene and its current joints (docking joints made
 * while it runs included): what a viewer's command line uses. 0 or -1 with err. */
int hg_sim_parse_command(const hg_sim *sim, const char *text, hg_command *cmd, hg_error *err);
int hg_sim_schedule(hg_sim *sim, const hg_command *cmd);
/* the commands given so far (scheduled or applied), in order, and whether each has been applied */
int hg_sim_ncommands(const hg_sim *sim);
const hg_command *hg_sim_command_at(const hg_sim *sim, int k, int *applied);
/* actions refused so far (a profile that would make its joint jump, a re-rooting through a joint
 * that cannot reverse): each is in the event log's details, starting with "REFUSED" */
int hg_sim_refused(const hg_sim *sim);

/* Closes the outputs: summary.txt and the plots. Returns HG_SIM_OK or HG_SIM_ERR_OUTPUT. */
int hg_sim_finish(hg_sim *sim);

/* Writes a checkpoint of the current state to path; HG_SIM_OK or HG_SIM_ERR_OUTPUT. */
int hg_sim_write_checkpoint(const hg_sim *sim, const char *path);

/* ---- views ----
 * What a viewer, a script or a report reads of the current state (t, q, v). The kinematics and
 * joint loads of that state are evaluated inside the library once per state (one right-hand-side
 * evaluation, which never touches the integrator: viewing never changes a trajectory) the first
 * time a view needs them. Body and joint indices are those of hg_sim_model, which changes at
 * every topology change (hg_sim_model_version tells when); names stay. Strings and pointers stay
 * valid until the simulation next advances or changes. */

const char *hg_sim_error(const hg_sim *sim);
double hg_sim_time(const hg_sim *sim);
double hg_sim_t_start(const hg_sim *sim);
double hg_sim_t_end(const hg_sim *sim);
const hg_model *hg_sim_model(const hg_sim *sim);
/* a number that changes whenever the model is replaced (detach, attach, remove, add...) */
unsigned long hg_sim_model_version(const hg_sim *sim);
/* the current state (nq and nv of the current model) */
const double *hg_sim_q(const hg_sim *sim);
const double *hg_sim_v(const hg_sim *sim);

/* body i (1 <= i < nbody): world pose, and twist (angular velocity, velocity of the body origin;
 * world axes) */
void hg_sim_body(hg_sim *sim, int i, hg_se3 *T, double twist[6]);

/* joint i (the joint of body i, 1 <= i < nbody) */
typedef struct hg_sim_joint_view {
  const char *name;
  hg_joint_type type;
  hg_mode mode;
  int nq, nv;
  const double *q, *v;   /* its coordinates and rates (views into the state) */
  const double *load;    /* nv: at a free joint the force elements' joint forces; at a prescribed
                            or locked joint the force the actuator or lock adds (N or N m; what
                            trajectory.csv's load columns hold) */
  double wrench[6];      /* the wrench the joint transmits from parent to child: (moment about
                            the child frame origin, force), world axes, N m and N */
  hg_se3 frame;          /* the joint frame in the world (parent side, at q's origin) */
  double axis[3];        /* the first DoF's axis in the world (0 for spherical, free, fixed) */
} hg_sim_joint_view;
void hg_sim_joint(hg_sim *sim, int i, hg_sim_joint_view *jv);

/* markers of the scene, k < hg_sim_nmarker */
typedef struct hg_sim_marker_view {
  const char *name, *body;
  int present;           /* 0: its body is not in the simulation (removed, not yet added) */
  int port;              /* 1: a docking port */
  hg_se3 pose;           /* world */
  double velocity[3];    /* of its origin, world */
} hg_sim_marker_view;
int hg_sim_nmarker(const hg_sim *sim);
void hg_sim_marker(hg_sim *sim, int k, hg_sim_marker_view *mv);

/* force elements, k < hg_sim_nforce (forces.h says what each field means) */
int hg_sim_nforce(const hg_sim *sim);
void hg_sim_force(hg_sim *sim, int k, hg_force_view *fv);

/* the scene's output pairs, k < hg_sim_npair: separation of the body origins */
typedef struct hg_sim_pair_view {
  const char *a, *b;     /* body names */
  int present;           /* both bodies are in the simulation */
  double pa[3], pb[3];   /* the origins, world */
  double distance;       /* m */
  double speed;          /* rate of change of the distance, m/s */
} hg_sim_pair_view;
int hg_sim_npair(const hg_sim *sim);
void hg_sim_pair(hg_sim *sim, int k, hg_sim_pair_view *pv);

/* total momentum (angular about the world origin, linear; world axes) and the energy budget */
void hg_sim_momentum(hg_sim *sim, double h[6]);
void hg_sim_get_budget(hg_sim *sim, hg_sim_budget *b);
/* the event log */
int hg_sim_nevents(const hg_sim *sim);
const hg_sim_event *hg_sim_event_at(const hg_sim *sim, int k);
/* integrator statistics summed over every integrator of the run */
void hg_sim_stats(const hg_sim *sim, hg_integ_stats *st);
/* wall-clock seconds spent in hg_sim_run */
double hg_sim_wall_time(const hg_sim *sim);

#endif
