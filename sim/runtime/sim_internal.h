/* sim_internal.h: the simulation runtime's struct hg_sim (the .c files of sim/runtime; not a
 * public header: everything outside the runtime, its outputs included, reads it through sim.h).
 *
 * A simulation is the scene it runs (const), the bodies present now (the builder), the run's
 * options, the model compiled from the builder with its data, and one member per part of the
 * runtime. Each part's header says what the part holds, in which frame, and which function
 * writes each field:
 *   state.h       state: t, q, v, the work quadrature, joint modes' recipes and profiles
 *   rhs.h         rhs: the right-hand side's workspace and the integrator
 *   timeline.h    tl: roots and triggers, end stops, the history of events, commands, schedule
 *   budget.h      budget: the energy budget and momentum tracking
 *   views.h       views: views, previews and observers
 *   checkpoint.h  ck: the last good state (checkpoints themselves are files)
 *   pull.h        pull: the perturbation spring
 *   sim_loops.h   loops: the closed loops, which are closed, and their compiled constraints
 *   sim_control.h ctl: actuators, tanks, sensors and controllers (control in the loop)
 *   sim_model.h   the model and what is compiled against it (the fields m to model_version)
 * sim.c orchestrates: it alone fires events, settles end stops, tells the observers and keeps the
 * last good state; a file calls only files below it (never sim.c, never one that calls it back):
 *   sim.c
 *   checkpoint.c events.c      (read back a run; fire events and apply their actions)
 *   sim_topology.c views.c     (topology changes; what the views read)
 *   integration.c sim_model.c  (the integrator; installing a model)
 *   sim_init.c triggers.c sampling.c (the initial state; the root functions; sensors, servos
 *                              and controllers at their instants)
 *   observe.c preview.c pull.c sim_modes.c stops.c timeline.c
 *   budget.c failure.c frames.c rhs.c sim_loops.c topology.c sensing.c
 *   actuation.c                (the actuators in the right-hand side) */
#ifndef HINGE_SIM_INTERNAL_H
#define HINGE_SIM_INTERNAL_H

#include "budget.h"
#include "checkpoint.h"
#include "collision.h"
#include "integrator.h"
#include "mimic.h"
#include "sim_control.h"
#include "sim_loops.h"
#include "sim_model.h"
#include "pull.h"
#include "rhs.h"
#include "sim.h"
#include "state.h"
#include "timeline.h"
#include "views.h"

struct hg_sim {
  const hg_scene *scene;  /* never modified: every run of a scene starts alike */
  hg_builder *builder;    /* the bodies present now: a copy of the scene's that topology changes edit */
  hg_sim_options opt;
  hg_integ_options integ;
  double t_start, t_end;

  /* the current model and what is compiled against it (sim_model.h) */
  hg_model *m;
  hg_data *d;
  hg_forces *forces;
  hg_mimic_ws *mimic;     /* mimic couplings' workspace (mimic.h), when the model has couplings */
  hg_collision *coll;     /* collision geometry of m, when wanted */
  unsigned long model_version; /* incremented by hg_sim_install_model */

  /* the parts */
  hg_rt_state state;
  hg_rt_rhs rhs;
  hg_rt_timeline tl;
  hg_rt_budget budget;
  hg_rt_views views;
  hg_rt_checkpoint ck;
  hg_rt_pull pull;
  hg_rt_loops loops;
  hg_rt_control ctl;

  int failed;             /* the status of a failure (0: none) */
  char err[512];          /* the first failure (as long as hg_error.msg) */

  /* the stop by the wall-time limit or a signal (sim.h's hg_sim_run) */
  struct {
    int armed;            /* 1 while sim.c's step_to advances the integrator: only then do its
                             callbacks (rhs.c, triggers.c) ask hg_sim_halt_due */
    int cause;            /* 0, HG_SIM_STOP_WALL or the signal's number (hg_sim_halt_due) */
    int every, count;     /* the clock is read every `every` calls; calls since (failure.c) */
    double last;          /* CLOCK_MONOTONIC seconds at the last reading (failure.c) */
    double deadline;      /* CLOCK_MONOTONIC seconds where the limit ends, INFINITY without one
                             (sim.c, at the start of each hg_sim_run) */
  } halt;
};

/* the status after recording a failure message (printf-style): the first failure is the one
 * reported (failure.c) */
int hg_sim_fail(hg_sim *s, int status, const char *fmt, ...);

/* 1 when the run must stop (the interrupt flag is set, or the deadline has passed), recording
 * the cause in s->halt.cause; it stays 1 from then on. The flag is read at every call, the clock
 * every halt.every calls (16, or 1 while calls are over 1 ms apart), and at every call with
 * clock set (failure.c) */
int hg_sim_halt_due(hg_sim *s, int clock);

#endif
