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
 *   impulse        a linear and angular impulse (world axes, or the body's axes with frame: body)
 *                  at a marker
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
 * Files: with out_dir set the runtime writes its checkpoints and, after a numerical failure,
 * failure-state.txt there. Everything else a run writes (trajectory.csv, joints.csv, events.csv,
 * summary.txt, the plots) comes from observers (hg_sim_observe) that read the run through the
 * views below: the outputs of sim/output (output.h) are one. */
#ifndef HINGE_SIM_H
#define HINGE_SIM_H

#include <signal.h>
#include <stdio.h>

#include "collision.h"
#include "forces.h"
#include "scene.h"

#ifdef __cplusplus
extern "C" {
#endif

/* status of hg_sim_run and friends */
enum {
  HG_SIM_OK = 0,
  HG_SIM_ERR_OUTPUT = 1, /* an output file could not be written */
  HG_SIM_ERR_INPUT = 2,  /* a scene that cannot be simulated, or a bad checkpoint */
  HG_SIM_ERR_NUMERIC = 3, /* the integrator failed, a state went non-finite, or an event failed */
  HG_SIM_STOPPED = 4      /* stopped before the end by the wall-time limit or a signal: a clean
                             stop (hg_sim_stop_cause), not a failure */
};

/* what stopped a run (hg_sim_stop_cause): the wall-time limit, or a signal's number (> 0) */
#define HG_SIM_STOP_WALL (-1)

typedef struct hg_sim_options {
  double t_end;            /* NaN: the scene's */
  double rtol;             /* 0: the scene's */
  int method;              /* -1: the scene's (hg_integ_method) */
  const char *out_dir;     /* checkpoints and failure-state.txt; NULL: none (the folder must
                              exist) */
  double checkpoint_every; /* 0: no checkpoints */
  int has_seed;            /* 1: noise_seed replaces the scene's (hinge run --seed, campaigns) */
  uint64_t noise_seed;     /* the sensors' noise streams (scene.h) */
  double max_wall;         /* wall-time limit in seconds of hg_sim_run (0: the scene's
                              time.max_wall; none when that is 0 too) */
  const volatile sig_atomic_t *interrupt; /* NULL, or a flag a signal handler sets to the
                              signal's number: the run then stops as at the wall-time limit */
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

/* the version of the installed libhinge-sim.so (dynamics/version.c), "0.1.0" */
const char *hg_sim_version(void);

/* Continues from a checkpoint file written by a run of the same scene (before any hg_sim_run).
 * Returns HG_SIM_OK, or HG_SIM_ERR_INPUT with err on a file that does not fit the scene. */
int hg_sim_resume(hg_sim *sim, const char *path, hg_error *err);

/* Runs to min(until, t_end), writing outputs on the way. HG_SIM_OK, or an error status with
 * hg_sim_error naming the time and what failed; after a numerical failure the last good state is
 * in OUT/failure-state.txt (a checkpoint).
 *
 * Stopping: when the wall time spent in hg_sim_run reaches the limit (max_wall) or the interrupt
 * flag is set, the run stops at the integrator's last accepted step, also in the middle of a
 * stretch between outputs: the integrator's callbacks (accelerations and root functions: a slow
 * step or event search too) look at the flag at every evaluation and at the monotonic clock at
 * least every 16 evaluations (at every one once evaluations take over 1 ms). That state is
 * written to OUT/stop-state.txt (a checkpoint: hg_sim_resume continues from it, restarting the
 * integrator there), and hg_sim_run returns HG_SIM_STOPPED with hg_sim_error saying
 * "stopped at t = T s by the wall-time limit (L s)" or "... by signal N (NAME)". Every later
 * hg_sim_run returns the same; hg_sim_finish then writes the outputs as after any run. */
int hg_sim_run(hg_sim *sim, double until);
/* after HG_SIM_STOPPED: HG_SIM_STOP_WALL or the signal's number; otherwise 0 */
int hg_sim_stop_cause(const hg_sim *sim);

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
/* Writes the commands applied so far as a command file ('TIME TEXT' per line, times %.17g), so
 * that 'hinge run SCENE --commands FILE' repeats the session: the interactive viewer saves its
 * sessions this way. HG_SIM_OK or HG_SIM_ERR_OUTPUT. */
int hg_sim_write_commands(const hg_sim *sim, const char *path);
/* actions refused so far (a profile that would make its joint jump, a re-rooting through a joint
 * that cannot reverse): each is in the event log's details, starting with "REFUSED" */
int hg_sim_refused(const hg_sim *sim);

/* Ends the run where it was left: what is due at that instant (events, the output row), then
 * every observer's finish (summary.txt and the plots of the outputs). HG_SIM_OK, or
 * HG_SIM_ERR_OUTPUT when an observer failed. */
int hg_sim_finish(hg_sim *sim);

/* ---- observers ----
 * An observer follows a run from outside: it is called at every output time (the scene's
 * output.dt, after the events of that instant), after every logged event, after every stop of
 * hg_sim_run (for progress bars) and by hg_sim_finish, and it reads the simulation only through
 * the views below. Observers are called in the order they were added; each callback may be NULL.
 * A callback that fails returns a message (it must stay valid until the observer is released),
 * which stops the run with HG_SIM_ERR_OUTPUT; NULL means success. */
typedef struct hg_sim_observer {
  void *user;
  const char *(*row)(void *user, hg_sim *sim);
  const char *(*event)(void *user, hg_sim *sim, const hg_sim_event *ev);
  void (*progress)(void *user, hg_sim *sim, int final);
  const char *(*finish)(void *user, hg_sim *sim);
  void (*release)(void *user); /* by hg_sim_free */
  /* at every instant sensors were sampled and controllers stepped (control in the loop; after
   * the events of that instant, before its output row): hg_sim_sensor's t tells which sensors
   * sampled now (NULL: not wanted) */
  const char *(*sample)(void *user, hg_sim *sim);
} hg_sim_observer;
#define HG_SIM_MAX_OBSERVERS 8
/* Adds an observer (copied), before hg_sim_resume and the first hg_sim_run: it sees the model
 * the scene starts with, and its first row is the state the run starts from (t_start, or the
 * checkpoint a resumed run continues from). 0, or -1 when the run has begun or there are
 * HG_SIM_MAX_OBSERVERS already (the observer is released then). */
int hg_sim_observe(hg_sim *sim, const hg_sim_observer *obs);

/* Writes a checkpoint of the current state to path (replacing it whole: a temporary file beside
 * it, synced and renamed over it, never written through a link); HG_SIM_OK or HG_SIM_ERR_OUTPUT
 * (then the file under path is the one that was there before). */
int hg_sim_write_checkpoint(const hg_sim *sim, const char *path);

/* the monotonic wall clock, in seconds from an arbitrary origin (failure.c): what a run's
 * wall-time limit, its reported wall time and the progress bar read */
double hg_sim_clock(void);

/* ---- views ----
 * What a viewer, a script or a report reads of the current state (t, q, v). The kinematics and
 * joint loads of that state are evaluated inside the library once per state (one right-hand-side
 * evaluation, which never touches the integrator: viewing never changes a trajectory) the first
 * time a view needs them. Body and joint indices are those of hg_sim_model, which changes at
 * every topology change (hg_sim_model_version tells when); names stay. Strings and pointers stay
 * valid until the simulation next advances or changes. */

const char *hg_sim_error(const hg_sim *sim);
/* HG_SIM_OK, or the status of the run's first failure */
int hg_sim_status(const hg_sim *sim);
/* the scene simulated, and the integrator settings in use (the scene's, overridden by options) */
const hg_scene *hg_sim_scene(const hg_sim *sim);
const hg_integ_options *hg_sim_integ_options(const hg_sim *sim);
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
  const double *q, *v;   /* its coordinates and rates (the state, prescribed joints exactly on
                            their profiles) */
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

/* closed loops, k < hg_sim_nloop: the scene's loops, then those an attach between bodies of one
 * tree made (named dock_A_B, as a docking joint would be), in the order they appeared */
typedef struct hg_sim_loop_view {
  const char *name;
  const char *type;          /* the joint type's name, or "coupling" */
  int present;               /* its bodies (or joints) are in the simulation */
  int active;                /* closed: its constraint acts */
  int nrow;                  /* constraint rows (6 - nv of its joint; 1 for a coupling) */
  const char *marker_a, *marker_b; /* joint loops: the markers (NULL for a coupling) */
  hg_se3 frame_a, frame_b;   /* joint loops: world poses of frames A and B */
  double wrench[6];          /* what a's side applies to b's side: moment about A's origin, force;
                                A's axes (N m, N); zero when open; for a coupling wrench[0] is
                                the coupling's force or torque on the follower */
  double wrench_world[6];    /* the same in world axes, moment about A's origin */
  double distance, angle;    /* position violation now: m, rad (coupling: distance alone) */
  double speed;              /* velocity violation now: |G_k v| (m/s and rad/s rows) */
} hg_sim_loop_view;
int hg_sim_nloop(const hg_sim *sim);
void hg_sim_loop(hg_sim *sim, int k, hg_sim_loop_view *lv);
/* the largest position and velocity violation of any active loop over the output rows so far
 * (summary.txt), and the smallest rank deficiency seen (rows - rank of the constraint solve;
 * > 0: redundant or singular loops, solved in least squares) */
void hg_sim_loop_stats(const hg_sim *sim, double *max_position, double *max_velocity,
                       int *redundant);

/* ---- control in the loop (docs/control.md) ----
 * actuators, k < hg_sim_nactuator, in the scene's order: what each does now and has done */
typedef struct hg_sim_actuator_view {
  const char *name;
  hg_actuator_type type;
  int present;               /* its joint or body is in the simulation */
  int body;                  /* the body it pushes (thruster) or is mounted on (wheel), -1 */
  int joint;                 /* motor, servo, wheel: the body whose joint it drives, -1 */
  int ncommand;
  double command[2];         /* the command held now (motor, wheel: N m or N; servo: the
                                setpoint; thruster: level and on-time, s) */
  double output;             /* what it applies now: the joint force or torque (motor, servo,
                                wheel: drive less friction), the thrust (N) */
  int saturated;             /* held at a limit now (effort, rate, back-EMF, wheel speed) */
  double speed;              /* the joint's rate (wheel: relative to its body), rad/s or m/s */
  double momentum;           /* wheel: the rotor's axial angular momentum, N m s */
  double point[3], dir[3];   /* thruster: where the force acts and its direction; wheel: its
                                centre and axis (world) */
  double level;              /* thruster: thrust now / full thrust */
  long firings;              /* thruster: the pulses begun so far */
  double on_time, impulse;   /* thruster: the time open (s) and the impulse (N s) so far */
  double propellant;         /* thruster: its tank's propellant now, kg (NaN: no tank) */
  double work, loss;         /* J so far: the drive's work on the system, and friction's
                                (<= 0) */
  double saturated_time;     /* s spent saturated so far */
} hg_sim_actuator_view;
int hg_sim_nactuator(const hg_sim *sim);
void hg_sim_actuator(hg_sim *sim, int k, hg_sim_actuator_view *av);

/* sensors, k < hg_sim_nsensor: the latest sample (held between samples) */
typedef struct hg_sim_sensor_view {
  const char *name;
  hg_sensor_type type;
  int n;                     /* its numbers (scene.h's hg_sensor_type says which) */
  const double *value;       /* n: the measurement (NaN before the first sample) */
  const char *const *channel;/* n: each number's name ("x", "qw", "valid", ...) */
  int valid;                 /* 0: dropped out or out of view (value holds the last valid) */
  double t;                  /* when it was sampled (NaN: not yet) */
  long samples;              /* samples so far */
} hg_sim_sensor_view;
int hg_sim_nsensor(const hg_sim *sim);
void hg_sim_sensor(hg_sim *sim, int k, hg_sim_sensor_view *sv);

/* controllers, k < hg_sim_ncontroller */
typedef struct hg_sim_controller_view {
  const char *name;
  hg_controller_type type;
  int enabled;
  long steps;                /* steps so far */
  double wall_total, wall_max; /* wall-clock seconds its steps took: total and longest */
  /* what it reports of itself now: attitude_pd: the pointing error (truth, deg: the angle
   * between its body and the target attitude), its rate (deg/s, body axes), the torque demand
   * (N m, body axes) */
  int ntelemetry;
  const char *const *telemetry_name;
  const double *telemetry;
} hg_sim_controller_view;
int hg_sim_ncontroller(const hg_sim *sim);
void hg_sim_controller(hg_sim *sim, int k, hg_sim_controller_view *cv);

/* force elements, k < hg_sim_nforce (forces.h says what each field means) */
int hg_sim_nforce(const hg_sim *sim);
void hg_sim_force(hg_sim *sim, int k, hg_force_view *fv);

/* the scene's output pairs, k < hg_sim_npair: separation of the body origins */
typedef struct hg_sim_pair_view {
  const char *a, *b;     /* body names */
  int present;           /* both bodies are in the simulation */
  double pa[3], pb[3];   /* the origins, world */
  double distance;       /* m */
  double speed;          /* magnitude of the relative velocity of the origins, m/s */
  double range_rate;     /* rate of change of the distance, m/s (> 0 opening) */
  double clearance;      /* signed distance between the two bodies' collision geometry (shapes
                            with collision: true, URDF <collision>), m: < 0 overlapping; NaN
                            when either has no collision shape (hg_sim_clearance) */
  double ca[3], cb[3];   /* its witness points on a and on b, world */
} hg_sim_pair_view;
int hg_sim_npair(const hg_sim *sim);
void hg_sim_pair(hg_sim *sim, int k, hg_sim_pair_view *pv);

/* ---- previews: what-if views that change nothing ---- */

/* What the mode switches and loop closures of cmd (its set_mode, close and open actions) would
 * do now: the kinetic energy the impulse would remove (J, >= 0), the velocity jump and the
 * impulse at every DoF (nv each; impulses at the joints that hold; the closed loops' share of the
 * jump is in dv, not in impulse), and each body's twist jump (6 per body: angular velocity,
 * velocity of the origin; world axes) for drawing arrows. A newly prescribed joint is previewed
 * as holding still; a loop closing as if its markers met. Arrays stay valid until the next
 * preview. 0 or -1. */
typedef struct hg_sim_preview {
  double energy_removed;
  const double *dv, *impulse;  /* nv */
  const double *dtwist;        /* 6 x nbody */
} hg_sim_preview_view;
int hg_sim_preview(hg_sim *sim, const hg_command *cmd, hg_sim_preview_view *out);

/* The world poses of every body (nbody, the world first) at the configuration q (+) eps delta,
 * delta a direction in the tangent space (nv: a joint's DoF, a base twist, a mode shape): the
 * ghosts of a perturbed configuration. Valid until the next preview; NULL when out of memory. */
const hg_se3 *hg_sim_ghost(hg_sim *sim, const double *delta, double eps);

/* The gauge of two markers (docking ports) now: b's port origin in a's port frame (offset, m),
 * their distance, the angle between mated frames (a's turned half a turn about its x axis, as a
 * capture measures it), the relative speed of the origins and the speed at which they close,
 * the time to contact at that speed (inf when opening), the scene's capture of these ports with
 * its tolerances and measure (< 0: it would capture), and the kinetic energy a rigid capture now
 * would remove (the plastic loss; NaN when both are on one tree). 0, or -1 when a marker's body
 * is absent. */
typedef struct hg_sim_gauge_view {
  int present;
  double offset[3], distance, angle, speed, closing_speed, time_to_contact;
  int capture;                 /* index of the scene's capture of these ports, or -1 */
  double position_tol, angle_tol, speed_tol, measure;
  double plastic_loss;         /* J */
} hg_sim_gauge_view;
int hg_sim_gauge(hg_sim *sim, const char *marker_a, const char *marker_b, hg_sim_gauge_view *g);

/* the centre of mass of the bodies of the free-flying trees (those that hang from the world by a
 * free joint), world; what `perturb ... com` fixes its target to. The mass, 0 when none flies
 * free (c is then 0). */
double hg_sim_free_com(hg_sim *sim, double c[3]);

/* the pull of a perturb action (hg_force_view of a spring from the target to the body point),
 * 0; or -1 when nothing pulls */
int hg_sim_pull(hg_sim *sim, hg_force_view *fv);

/* The signed distance between the collision geometry of two sets of bodies (by name) now, with
 * witness points (sim/collision/collision.h: > 0 apart, < 0 overlapping): the clearance of a
 * separation. 0, or -1 when a side has no collision shape present (out->distance is +inf).
 * The collision geometry is built once per model, on the first call or for the scene's
 * clearance events. */
int hg_sim_clearance(hg_sim *sim, const char *const *a, int na, const char *const *b, int nb,
                     hg_clearance *out);

/* total momentum (angular about the world origin, linear; world axes) and the energy budget */
void hg_sim_momentum(hg_sim *sim, double h[6]);
void hg_sim_get_budget(hg_sim *sim, hg_sim_budget *b);

/* Momentum as an invariant: it is one only while the system is isolated (no external force
 * acts: uniform gravity is zero, every tree hangs from the world on a free joint in free mode, no
 * external force element, thruster or pull pushes). The run is cut into isolated stretches at the
 * windows where something acts from outside (a thruster firing, a thrust element's window, a
 * pull) and at events that change the momentum on purpose; within a stretch the drift is
 * |h - h_ref|, h_ref the momentum at the stretch's start. It is measured against a scale that
 * cannot vanish while anything moves: the run's peak of the bodies' summed momentum magnitudes
 * (which bounds the total's), so a run from rest, whose total momentum is zero, is measured
 * against what its bodies carry.
 * Written by budget.c (hg_sim_track_momentum, hg_sim_track_switch); checkpoint.c restores ref,
 * scale, worst_abs, worst_from, worst_to and drift_before. */
typedef struct hg_sim_momentum_track {
  int isolated;           /* the system was isolated at the last check (a stretch is open) */
  int nstretch;           /* stretches begun so far */
  double t0;              /* start of the open stretch */
  double t_last;          /* the last time the open stretch was checked */
  double ref[6];          /* the total momentum there (L about the world origin, p; world) */
  double dmax[2];         /* open stretch: max |L - L_ref| and |p - p_ref| */
  double scale[2];        /* the run's peak of the bodies' summed |L| (about the world origin)
                             and |p|, over every check, isolated or not */
  double worst_abs[2];    /* max |L - L_ref| and |p - p_ref| over every stretch */
  double worst_from[2], worst_to[2]; /* the stretch of each worst_abs: its start and the last
                                        time it was checked (s) */
  double t_out;           /* the last time the system was not isolated (NaN: never) */
  char why[240];          /* what made it not isolated then */
  char since[200];        /* what began the open (or last) stretch */
  double drift_before;    /* the drift a checkpoint of an older format carried (else 0) */
  double drift;           /* max over k of worst_abs[k] / scale[k] (and drift_before) */
} hg_sim_momentum_track;
const hg_sim_momentum_track *hg_sim_momentum_drift(const hg_sim *sim);
/* the event log */
int hg_sim_nevents(const hg_sim *sim);
const hg_sim_event *hg_sim_event_at(const hg_sim *sim, int k);
/* integrator statistics summed over every integrator of the run */
void hg_sim_stats(const hg_sim *sim, hg_integ_stats *st);
/* wall-clock seconds spent in hg_sim_run */
double hg_sim_wall_time(const hg_sim *sim);

#ifdef __cplusplus
}
#endif

#endif
