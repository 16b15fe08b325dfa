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
 * Topology changes edit the scene's builder (topology.h), recompile, map the state (every body
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

/* one logged event */
typedef struct hg_sim_event {
  double t;
  const char *name;    /* the event's name, or "capture" */
  char details[512];   /* what its actions did */
  double h_before[6], h_after[6]; /* total momentum (angular about the origin, linear), world */
  double e_before, e_after;       /* kinetic + gravity potential + element potential */
  double e_lock;       /* kinetic energy removed by plastic locks of this event */
  double h_scale[2];   /* sums of the bodies' angular and linear momentum magnitudes (before) */
  int conserves;       /* 1 when no action applies an outside impulse or removes a body */
} hg_sim_event;

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

/* A simulation of scene s (borrowed: it must outlive the simulation, whose topology changes edit
 * s->builder). NULL with err on a scene that cannot be simulated (unknown names, a singular
 * model, bad integrator options). */
hg_sim *hg_sim_new(hg_scene *s, const hg_sim_options *opt, hg_error *err);
void hg_sim_free(hg_sim *sim);

/* Continues from a checkpoint file written by a run of the same scene (before any hg_sim_run).
 * Returns HG_SIM_OK, or HG_SIM_ERR_INPUT with err on a file that does not fit the scene. */
int hg_sim_resume(hg_sim *sim, const char *path, hg_error *err);

/* Runs to min(until, t_end), writing outputs on the way. HG_SIM_OK, or an error status with
 * hg_sim_error naming the time and what failed; after a numerical failure the last good state is
 * in OUT/failure-state.txt (a checkpoint). */
int hg_sim_run(hg_sim *sim, double until);

/* Closes the outputs: summary.txt and the plots. Returns HG_SIM_OK or HG_SIM_ERR_OUTPUT. */
int hg_sim_finish(hg_sim *sim);

/* Writes a checkpoint of the current state to path; HG_SIM_OK or HG_SIM_ERR_OUTPUT. */
int hg_sim_write_checkpoint(const hg_sim *sim, const char *path);

/* ---- views ---- */

const char *hg_sim_error(const hg_sim *sim);
double hg_sim_time(const hg_sim *sim);
double hg_sim_t_end(const hg_sim *sim);
const hg_model *hg_sim_model(const hg_sim *sim);
/* the current state (nq and nv of the current model) */
const double *hg_sim_q(const hg_sim *sim);
const double *hg_sim_v(const hg_sim *sim);
/* total momentum and the energy budget of the current state */
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
