/* sim_control.h: the control part of the simulation runtime (not a public header): the scene's
 * actuators compiled against the current model with what they hold and have done, the tanks'
 * propellant, the sensors' latest samples and noise states, the controllers' instances, and the
 * schedule of the instants at which they act (docs/control.md).
 *
 * Control is sampled as flight software runs: sensors, servos and controllers each at their own
 * rate, at the exact times t_start + k / rate (the integrator stops there); commands change only
 * at those instants and at the actuators' own breakpoints (a ramp that reaches its target, a
 * valve that closes), and are held in between (zero-order hold). Between two instants the
 * actuators' forces are smooth functions of (t, q, v), so the integrator's error control holds.
 *
 * Frames: an actuator's point and direction are in its body's frame (p, u); joint forces are in
 * the joint's DoF units (N m or N, at the joint); thrust wrenches are body wrenches (moment about
 * the body origin, force; body frame), as rhs.h's fext.
 *
 * Who writes each field:
 *   n*, act[].spec/src... (the scene's)  hg_sim_control_new (actuation.c, at creation)
 *   act[].va, jbody, body, p, u, present, tank    hg_sim_control_compile (actuation.c, at each
 *                  model install: names resolved again after every topology change)
 *   act[] commands, ramps, valves, totals   hg_sim_control_command (actuation.c: called by the
 *                  controllers' and servos' steps in sampling.c and by the actuate action of
 *                  events.c), hg_sim_control_breakpoints (actuation.c, at their times)
 *   tank[].mass    hg_sim_control_apply (actuation.c: the propellant at the evaluated time; the
 *                  body's inertia is set for it)
 *   quad, rate     the integrator (through hg_sim_quad, rhs.c, and hg_sim_pull_state,
 *                  integration.c): work, friction loss and saturated time per actuator; rate by
 *                  hg_sim_control_apply at each evaluation
 *   sensor states, values   hg_sim_sensor_sample (sensing.c, called by hg_sim_control_due)
 *   controller instances, signals, enabled   hg_sim_control_new (sampling.c: instances opened),
 *                  hg_sim_control_due (steps), the set_gain and controller actions (events.c
 *                  through hg_sim_control_action)
 *   next_*, k_*    hg_sim_control_due (sampling.c); hg_ck_resume (checkpoint.c) reads all of
 *                  this back from a checkpoint */
#ifndef HINGE_RT_SIM_CONTROL_H
#define HINGE_RT_SIM_CONTROL_H

#include "sim.h"

struct hg_ctl;
struct hg_ctl_lib;

/* room for a sensor model's state (biases, random walks), doubles */
#define HG_SENSOR_STATE 16

/* a value that moves at a bounded rate towards a target: value(t) = v0 + sign(target - v0)
 * min(|target - v0|, rate (t - t0)); rate inf jumps at once */
typedef struct hg_ramp {
  double v0, t0, target, rate;
} hg_ramp;
double hg_ramp_value(const hg_ramp *r, double t);
/* the time the ramp reaches its target (t0 when it starts there; -inf for an instant jump) */
double hg_ramp_end(const hg_ramp *r);
/* the integral of the value from t0 to t (t >= t0) */
double hg_ramp_integral(const hg_ramp *r, double t);
/* restarts the ramp at t from where it is towards a new target */
void hg_ramp_retarget(hg_ramp *r, double t, double target);

typedef struct hg_rt_actuator {
  const hg_actuator_spec *spec;
  /* compiled against the current model */
  int present;            /* its joint or body is in the model */
  int va;                 /* motor, servo, wheel: its DoF's entry of v (-1: absent) */
  int jbody;              /* motor, servo, wheel: the body whose joint it is */
  int body;               /* thruster: the body pushed; wheel: the body it is mounted on */
  double p[3], u[3];      /* thruster: point and unit direction, body frame (misaligned);
                             wheel: u is its axis in the bus frame */
  int tank;               /* thruster: its tank, -1 */
  /* what it holds */
  double cmd[2];          /* the command held */
  double demand;          /* motor, servo, wheel: the drive asked for (before the effort) */
  hg_ramp drive;          /* motor, servo, wheel: the drive at the joint (rate-limited);
                             thruster: the thrust (N), rising and falling */
  /* servo: its loop */
  double setpoint, integral;
  long k_servo;           /* next servo sample */
  /* thruster: the valve */
  int open, locked_out;   /* open; closed by max_on, until a command closes it */
  double t_open, t_close; /* the last opening; when it closes (inf: held open) */
  double level;           /* the level while open */
  long firings;
  double on_before;       /* time open before the last opening (s) */
  double impulse_before;  /* impulse before the thrust ramp's t0 (N s) */
  int saturated;          /* at the last evaluation */
} hg_rt_actuator;

typedef struct hg_rt_tank {
  const hg_tank_spec *spec;
  int body;               /* in the current model, -1 */
  hg_inertia dry;         /* the body's inertia without propellant */
  double mass;            /* propellant at the last evaluation (kg) */
  double mass_set;        /* the propellant the body's inertia holds now */
} hg_rt_tank;

typedef struct hg_rt_sensor {
  const hg_sensor_spec *spec;
  int n;                  /* its numbers */
  double *value;          /* n: the latest measurement */
  const char **channel;   /* n: each number's name */
  int valid;
  double t;               /* when (NaN: never) */
  long k;                 /* next sample */
  double model_state[HG_SENSOR_STATE]; /* its noise model's state (sensor_models.h) */
} hg_rt_sensor;

typedef struct hg_rt_controller {
  const hg_controller_spec *spec;
  struct hg_ctl *ctl;     /* the instance (controller_lib.h) */
  struct hg_ctl_lib *lib; /* a user's library it runs (NULL: built in, or a process) */
  int enabled;
  long k;                 /* next step */
  int nin, nout;
  double *in, *out;       /* the input vector assembled at a step; the outputs it holds */
  /* per scene input p: its source (a sensor index, or -1 - a producing controller's index), its
   * offset and size in the input vector; ref[p], a joint_pd's reference profile whose q and v
   * follow the port's numbers (NULL: none) */
  int *in_src, *in_off, *in_n;
  hg_profile **ref;
  /* per scene output p: its destination (an actuator, or -1 - a consuming controller), whether
   * it is an actuator, its offset and size in the output vector */
  int *out_dst, *out_is_act, *out_off, *out_n;
  double *signal;         /* nin: what producers wrote to it, at its input ports' offsets */
  int body;               /* attitude_pd: the body it points (its attitude sensor's), -1 */
  double target[4];       /* attitude_pd: the target attitude (world <- body) */
  double telemetry[8];    /* hg_sim_controller_view's telemetry */
  int ntelemetry;
} hg_rt_controller;

typedef struct hg_rt_control {
  int nact, ntank, nsensor, nctl;
  hg_rt_actuator *act;
  hg_rt_tank *tank;
  hg_rt_sensor *sensor;
  hg_rt_controller *ctl;
  uint64_t seed;          /* the noise streams' key */
  int any;                /* the scene has actuators, sensors or controllers */
  int need_kinematics;    /* an actuator reads the kinematics (thrusters, tanks) */
  int need_accel;         /* a sensor reads accelerations (accelerometers) */
  hg_profile **servo_prof;/* nact: a servo's setpoint profile, or NULL */
  int nquad;              /* 3 nact: work, friction loss, saturated time of each actuator */
  double *quad;           /* the integrated values (from the integrator) */
  double *rate;           /* their rates at the last evaluation */
  double *cache_rate;     /* their rates at the integrator's last accel (rhs.c's cache) */
} hg_rt_control;

/* ---- actuation.c: the actuators in the right-hand side ---- */
/* the scene's actuators and tanks, and room for the quadratures; 0 or -1 with err */
int hg_sim_control_new(hg_sim *s, hg_error *err);
void hg_sim_control_free(hg_sim *s);
/* resolves actuators and tanks against the current model (after each install) */
void hg_sim_control_compile(hg_sim *s);
/* the tanks' bodies' inertias for their propellant at t (before the kinematics of an
 * evaluation: the walk reads the inertias) */
void hg_sim_control_tanks(hg_sim *s, double t);
/* adds the actuators' joint forces to tau and thrust wrenches to fext at (t, qs, vs) whose
 * kinematics d holds (when need_kinematics), sets the tanks' inertias for the propellant at t,
 * writes the quadratures' rates (rate) and returns the power the actuators and the propellant
 * leaving put into the system (W's rate); *wrenches is set when fext was written */
double hg_sim_control_apply(hg_sim *s, double t, const double *qs, const double *vs, double *tau,
                            double *fext, int *wrenches);
/* actuator k takes command c (ncommand numbers; NaN entries keep the held value) at the
 * present time: 1 when what it applies changes (the integrator must restart), 0 when not */
int hg_sim_control_command(hg_sim *s, int k, const double *c, int n);
/* joint actuator k's drive moves towards u (clipped at its effort) from now: what a servo's
 * loop sets; 1 when it changed */
int hg_sim_control_drive(hg_sim *s, int k, double u);
/* the earliest breakpoint after t of any actuator: a ramp reaching its target, a valve closing
 * (inf: none) */
double hg_sim_control_next_breakpoint(const hg_sim *s);
/* the breakpoints due at the present time; 1 when one changed what an actuator applies */
int hg_sim_control_breakpoints(hg_sim *s);
/* the thrust of a thruster and the drive of a joint actuator at t (views) */
double hg_sim_control_output(const hg_sim *s, int k, double t, const double *v);
/* the propellant of tank k at t */
double hg_sim_control_propellant(const hg_sim *s, int k, double t);
/* 1 when the actuators act on the system from outside at the present time (a thruster whose
 * valve is open or whose thrust is still falling; a motor on a joint to the world): momentum is
 * then not tracked as conserved */
int hg_sim_control_external(const hg_sim *s, char *why, size_t len);

/* ---- sensing.c: the sensors ---- */
/* the numbers sensor sp gives (scene.h's hg_sensor_type) in the current model */
int hg_sim_sensor_size(const hg_sim *s, const hg_sensor_spec *sp);
/* where sensor sp sits in the current model: its body (-1: absent) and its frame M in that body
 * (a marker's, the body's own, or a joint's child body's) */
int hg_sim_sensor_frame(const hg_sim *s, const hg_sensor_spec *sp, hg_se3 *M);
/* sensor k samples the present state (its kinematics, and for accelerometers and force/torque
 * sensors its accelerations and loads, in s->d): 1 when it sampled, 0 when it is absent */
int hg_sim_sensor_sample(hg_sim *s, int k);
/* the names of sensor k's numbers (sensor[k].channel); 0 or -1 when out of memory */
int hg_sim_sensor_channels(hg_sim *s, int k);

/* ---- sampling.c: sensors, servos and controllers at their instants ---- */
/* opens the controllers (users' libraries and processes) and sizes the sensors; 0 or -1 with
 * err naming the scene's file:line */
int hg_sim_control_open(hg_sim *s, hg_error *err);
void hg_sim_control_close(hg_sim *s);
/* the next instant after the present at which a sensor, servo or controller samples, or an
 * actuator has a breakpoint (inf: none) */
double hg_sim_control_next_time(const hg_sim *s);
/* everything due at the present time: breakpoints, sensor samples, servo and controller steps,
 * in that order (controllers in the scene's order). Sets s->tl.restart when what the actuators
 * apply changed. *sampled is set when a sensor or controller acted (the observers' sample).
 * 0 or an error status (a controller's error stops the run with its message). */
int hg_sim_control_due(hg_sim *s, int *sampled);
/* the actuate, set_gain and controller actions: what was done into buf; 0, or 1 when refused
 * (buf says why), or an error status */
int hg_sim_control_action(hg_sim *s, const hg_action *a, char *buf, size_t len);

#endif
