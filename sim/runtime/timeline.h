/* timeline.h: the timeline part of the simulation runtime (not a public header): the roots the
 * integrator watches (conditions, captures, contact touches, end stops), the history of what fired
 * (scene events, captures, commands, topology changes, the event log), the commands, and the
 * schedule of output rows and checkpoints.
 *
 * Frames: trig[k].mark_a/mark_b are marker frames in their bodies' frames; the atmosphere's centre
 * is a world point; times are seconds of simulation time.
 *
 * Who writes each field:
 *   nroot, trig, root_dir, ncontact, atm   hg_sim_triggers_new (triggers.c, at creation);
 *                  trig[].active and the resolved bodies, markers, dofs and sets, any_load_trigger:
 *                  hg_sim_resolve_triggers (triggers.c)
 *   nstop, stop, stop_g   hg_sim_stops_install and hg_sim_stops_measure (stops.c); the install also
 *                  sizes root_dir and root_hit for nroot + nstop roots
 *   root_hit       fire_roots (sim.c: the integrator's roots of the last stop)
 *   fire_count, captured, nfired, fired, cmd_fired   hg_sim_push_fired (timeline.c)
 *   nlog, log      hg_sim_push_log (timeline.c)
 *   ntopo, topo    hg_sim_push_topo (timeline.c)
 *   ncmd, cmd      hg_sim_push_command (timeline.c)
 *   nrefused       the actions of hg_sim_fire (events.c)
 *   dt_out, k_out, k_ck, held   sim.c (k_out and k_ck also hg_ck_resume, checkpoint.c)
 *   restart        set by hg_sim_fire (events.c), cleared by hg_sim_restart (integration.c) and
 *                  hg_sim_resume (sim.c) */
#ifndef HINGE_RT_TIMELINE_H
#define HINGE_RT_TIMELINE_H

#include "sim.h"

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

typedef struct hg_rt_timeline {
  /* roots: one per condition event, per capture and per contact element (nroot: the integrator
   * stops where a contact element's sides touch, so that no step leaps over the contact), then
   * one per end stop of the model (nstop; stops.c): root_dir and root_hit hold nroot + nstop */
  int nroot;
  hg_trig *trig;          /* nroot */
  int *root_dir;
  int *root_hit;          /* the roots of the last stop (a copy) */
  int any_load_trigger;   /* a trigger reads joint loads: the roots evaluate the loads */
  int ncontact;           /* contact elements of the scene (their steps are bounded) */
  const hg_atmosphere *atm; /* altitude convention, or NULL (altitude = z) */
  int nstop, *stop;       /* the limited joints of the model */
  double *stop_g;         /* nstop: their functions (stops.c scratch) */

  /* history */
  int *fire_count;        /* per scene event */
  int *captured;          /* per capture */
  int nfired, capfired;   hg_fired *fired;
  int ntopo, captopo;     hg_topo_op *topo;
  int nlog, caplog;       hg_sim_event *log;
  /* commands (hg_sim_command, hg_sim_schedule): owned copies, in the order given; fired or not */
  int ncmd, capcmd;       hg_command *cmd;
  unsigned char *cmd_fired; /* ncmd (capacity capcmd) */
  int nrefused;           /* actions refused (logged "REFUSED ...") */

  /* schedule */
  double dt_out;          /* trajectory interval */
  long k_out;             /* next output row */
  long k_ck;              /* next checkpoint (1, 2, ...) */
  int restart;            /* the integrator must restart at the current time */
  int held;               /* hg_sim_run stopped at the caller's time: restart, output row and
                             checkpoint of this instant wait for the next call (sim.c) */
} hg_rt_timeline;

/* A run's output step and checkpoint interval must leave it a finite amount of work: at most
 * this many samples (a 1e-300 s output step would never end) and checkpoints. */
#define HG_SIM_MAX_SAMPLES 1e9
#define HG_SIM_MAX_CHECKPOINTS 1e6

/* ---- timeline.c: the records and the schedule ---- */
/* appends to the history of fired events (and marks the event, capture or command fired); 0 or
 * -1 */
int hg_sim_push_fired(hg_sim *s, int kind, int index, double t);
/* appends to the event log; 0 or -1 */
int hg_sim_push_log(hg_sim *s, const hg_sim_event *ev);
/* the replay list of topology changes (copies of the names); 0 or -1 */
int hg_sim_push_topo(hg_sim *s, const hg_topo_op *op);
/* a copy of cmd at time t into the command list; its index, or -1 with a failure */
int hg_sim_push_command(hg_sim *s, const hg_command *cmd, double t);
/* the counts of the scene's events and captures fired; 0 or -1 */
int hg_sim_timeline_new(hg_sim *s);
/* frees the records, the triggers and the stops */
void hg_sim_free_timeline(hg_sim *s);
/* time of output row k and of checkpoint k */
double hg_sim_out_time(const hg_sim *s, long k);
double hg_sim_ck_time(const hg_sim *s, long k);
/* 0 when dt (an output step with output != 0, else a checkpoint interval, 0 for none) fits the
 * run from t_start to t_end within those bounds */
int hg_sim_check_interval(const hg_sim *s, double dt, int output);
/* the next time event or command after t (inf when none) */
double hg_sim_next_time_event(const hg_sim *s);

/* ---- triggers.c: conditions as root functions ---- */
/* one root per condition event, per capture and per contact element, and the atmosphere that
 * defines altitude; 0 or -1 */
int hg_sim_triggers_new(hg_sim *s);
/* resolves the triggers against the current model */
void hg_sim_resolve_triggers(hg_sim *s);
/* the root functions */
int hg_sim_roots(void *user, double t, const double *q, const double *v, double *g);

/* ---- stops.c: end stops ---- */
/* the limited joints of the current model, and room for their roots; 0 or -1 */
int hg_sim_stops_install(hg_sim *s);
/* the stops' root functions (kinematics, rhs.qs and, when a stop holds, loads in rhs.tau) */
void hg_sim_stop_roots(hg_sim *s, double *g);
/* 1 when a stop holds a joint (its root needs the loads) */
int hg_sim_stops_held(const hg_sim *s);
/* 1 when joint i's stop on the side it is at (by state.q) latches (limits.latch) */
int hg_sim_stop_latches(const hg_sim *s, int i);
/* 1 when joint i is held for good by a latching stop */
int hg_sim_stop_latched(const hg_sim *s, int i);
/* 1 when stop k, whose root was hit, acts now: a moving free joint at its limit stops, a held
 * one whose stop would pull is released */
int hg_sim_stop_hit_acts(const hg_sim *s, int k);
/* the stops' functions at the present state into stop_g (loads included); 0, or -1 when the
 * state cannot be evaluated */
int hg_sim_stops_measure(hg_sim *s);
/* 1 when stop k acts right after events (stop_g from hg_sim_stops_measure): a held joint whose
 * stop would pull is released, a free joint past a limit moving outward stops */
int hg_sim_stop_settle_acts(const hg_sim *s, int k);

/* ---- events.c: firing and actions ---- */
/* fires scene event e, capture c, command k, stop k or touch k at the current state, appending
 * its entry to the log (the observers are the caller's); 0 or an error status */
int hg_sim_fire(hg_sim *s, int kind, int index);
/* fires the n stops stop[0..n) that act at this one instant as one event: every plastic stop
 * (a hit, a latch) locks its joint through one impulse, the multi-joint lock of
 * hg_sim_mode_impulse, so that the result does not depend on which stop is listed first; a
 * bounce or a release acts in the same event; 0 or an error status */
int hg_sim_fire_stops(hg_sim *s, const int *stop, int n);
/* logs command k, whose time is after the run's end, as dropped (a refused action: nrefused)
 * at the present state, and marks it fired so it is told once; 0 or an error status */
int hg_sim_drop_command(hg_sim *s, int k);

#endif
