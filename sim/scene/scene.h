/* scene.h: a simulation scene as read from a YAML file (docs/scene-format.md).
 *
 * A scene is a forest of named bodies under the world (hg_builder specs, display geometry), a
 * library of bodies absent at the start that add actions bring in, markers (named frames on
 * bodies), force elements, the initial state, joint modes and prescribed
 * profiles, a timeline of events, integrator settings and outputs. Everything refers to bodies,
 * joints, markers and force elements by name, so a scene survives topology changes: the running
 * simulation (sim.h) resolves names against whichever model is current.
 *
 * Units are SI; every pose is in the frame its field names (conventions.md). */
#ifndef HINGE_SCENE_H
#define HINGE_SCENE_H

#include <stdint.h>

#include "hinge.h"
#include "integrator.h"
#include "loops.h"

#ifdef __cplusplus
extern "C" {
#endif

/* where a value came from, for messages: file:line:column (1-based) */
typedef struct hg_src {
  const char *file; /* the scene's path (owned by the scene) */
  int line, column;
} hg_src;

/* ---- markers ---- */

/* a named frame fixed on a body: a docking port, a spring attachment, a sensor */
typedef struct hg_marker {
  char *name;
  char *body;
  hg_se3 pose; /* marker frame in the body frame */
  /* docking port: ports with the same non-empty 'port' type may be captured together */
  char *port;
  hg_src src;
} hg_marker;

/* ---- force elements ---- */

typedef enum hg_force_type {
  HG_FORCE_CENTRAL_GRAVITY = 0, /* point-mass planet: f = -mu m r / |r|^3 at each body's com */
  HG_FORCE_JOINT_SPRING,        /* tau = -k (q (-) rest) - c v on every DoF of one joint */
  HG_FORCE_SPRING,              /* spring-damper between two markers, optionally compression only */
  HG_FORCE_DRAG,                /* exponential-atmosphere drag on one body at a centre of pressure */
  HG_FORCE_THRUST,              /* constant or scheduled force and torque on one body (body frame) */
  HG_FORCE_PARACHUTE,           /* drag element attached at a marker, pulling along the flow */
  HG_FORCE_CONTACT              /* compliant contact (Hunt-Crossley, regularized Coulomb friction)
                                   between the collision geometry of two sets of bodies */
} hg_force_type;

/* exponential atmosphere rho(h) = rho0 exp(-h / scale_height), h = altitude above the planet
 * (|r - centre| - radius) or, without a planet (radius 0), the world z coordinate */
typedef struct hg_atmosphere {
  double rho0;         /* kg/m^3 at h = 0 */
  double scale_height; /* m */
  double centre[3];    /* planet centre, world frame */
  double radius;       /* planet radius; 0 means a flat world, h = z */
} hg_atmosphere;

typedef struct hg_force_spec {
  char *name;           /* unique among force elements */
  hg_force_type type;
  int enabled;          /* at the start (events may toggle it) */
  hg_src src;

  /* central gravity */
  double mu;            /* m^3/s^2 */
  double centre[3];     /* world frame */
  double radius;        /* the planet's radius, m, for drawing it (0: not given) */

  /* joint spring: on joint 'joint' */
  char *joint;
  double stiffness;     /* N/m or N m/rad, every DoF */
  double damping;       /* N s/m or N m s/rad */
  double *rest;         /* nq of the joint (NULL: neutral) */
  int nrest;

  /* marker spring: between markers a and b; force k (L - L0) + c Ldot along the line */
  char *marker_a, *marker_b;
  double free_length;   /* L0, m */
  int compression_only; /* 1: pushes only while L < L0 (a separation spring) */
  int anchor_com;       /* 1: end a is not marker a's point but the centre of mass of the bodies
                           of the free-flying trees plus marker a's position (world axes, on the
                           world), and its force spreads over those bodies in proportion to their
                           masses, as gravity does: an internal force (the pull of a hand that
                           moves with the mechanism; set by the runtime's pull only) */

  /* drag and parachute */
  char *body;           /* drag: the body */
  char *marker;         /* parachute: the attachment marker */
  double cd_area;       /* Cd A, m^2 */
  double cop[3];        /* drag: centre of pressure in the body frame */
  hg_atmosphere atm;

  /* thrust: body frame force and torque about the body origin, on during [t_on, t_off) */
  double force[3], torque[3];
  double t_on, t_off;   /* defaults 0 and +inf */

  /* contact between the bodies of side[0] and side[1] (stiffness is k): per contact point of
   * depth d, normal force k d^exponent (1 + 3/2 dissipation dd/dt), friction up to friction
   * times it, regularized below stiction_velocity (docs/contact.md) */
  int nside[2];
  char **side[2];
  double exponent;          /* default 1.5 (Hertz) */
  double dissipation;       /* s/m (or from restitution at impact_speed, when restitution > 0) */
  double restitution;       /* 0: not given */
  double impact_speed;      /* m/s: the speed at which restitution holds (compliant impacts) */
  int impulsive;            /* impact: impulsive: impacts faster than min_impact_speed are
                               Newton impulses with this restitution; the compliant law carries
                               slower touches and sustained contact */
  double min_impact_speed;  /* m/s, default 1e-3 */
  double friction;          /* Coulomb coefficient */
  double stiction_velocity; /* m/s, default 1e-3 */
  int nexclude;             /* pairs of bodies never in contact: exclude[2k], exclude[2k+1] */
  char **exclude;
} hg_force_spec;

/* 1 when contact element f names a pair alone: each side of its 'between' is one body (a name,
 * or a list of one). A body never touches its parent or child through a contact element, except
 * through one that names the two alone, while the joint between them is neither fixed nor locked
 * (forces.c keeps that pair; docs/contact.md). */
int hg_contact_names_pair(const hg_force_spec *f);

/* ---- initial state ---- */

/* (the typedef is not hg_joint_init, which joint.h already names as a function) */
typedef struct hg_joint_init {
  char *joint;
  double q[HG_JOINT_MAXNQ];
  double v[HG_JOINT_MAXNV];
  int has_q, has_v;
  hg_src src;
} hg_joint_init_spec;

/* a free-floating body given by its world pose and twist (its joint must be free) */
typedef struct hg_body_init {
  char *body;
  hg_se3 pose;         /* world frame */
  double twist[6];     /* (w, v) of the body frame origin, world axes */
  hg_src src;
} hg_body_init;

/* ---- joint modes and profiles ---- */

typedef struct hg_profile_spec {
  hg_profile_kind kind;
  double target[HG_JOINT_MAXNQ]; /* move */
  double duration;               /* move */
  double velocity[HG_JOINT_MAXNV];/* velocity */
  double amplitude[HG_JOINT_MAXNV], omega, phase; /* sinusoid */
  int nsamples;                  /* spline */
  int sample_width;              /* spline: numbers per sample (the joint's nq) */
  double *times, *samples;       /* spline: n, n x nq */
} hg_profile_spec;

typedef struct hg_mode_spec {
  char *joint;
  hg_mode mode;
  int has_profile;      /* prescribed: a profile starting when the mode is set */
  hg_profile_spec profile;
  hg_src src;
} hg_mode_spec;

/* ---- events ---- */

typedef enum hg_trigger_type {
  HG_TRIGGER_TIME = 0,   /* at time t */
  HG_TRIGGER_DISTANCE,   /* distance between two markers crosses value */
  HG_TRIGGER_JOINT_Q,    /* coordinate 'dof' of a joint crosses value */
  HG_TRIGGER_JOINT_LOAD, /* force on DoF 'dof' of a prescribed joint crosses value */
  HG_TRIGGER_ALTITUDE,   /* altitude of a body's origin (atmosphere convention) crosses value */
  HG_TRIGGER_SPEED,      /* speed of a body's origin crosses value */
  HG_TRIGGER_CLEARANCE   /* signed distance between the collision geometry of two sets of bodies
                            crosses value (sim/collision/collision.h) */
} hg_trigger_type;

typedef enum hg_action_type {
  HG_ACTION_SET_MODE = 0, /* mode (free, prescribed with a profile, locked) of a joint */
  HG_ACTION_ENABLE_FORCE, /* turn a force element on */
  HG_ACTION_DISABLE_FORCE,/* turn a force element off */
  HG_ACTION_IMPULSE,      /* a linear and angular impulse on a body at a marker (world axes) */
  HG_ACTION_DETACH,       /* a body's subtree leaves on a free joint to the world */
  HG_ACTION_ATTACH,       /* dock: marker b's body joins marker a's body by a locked free joint */
  HG_ACTION_UNDOCK,       /* release a docking joint: free (stays in the tree) or detach */
  HG_ACTION_REMOVE,       /* remove a body and its subtree */
  HG_ACTION_ADD,          /* add a body absent at the start (present: false) with its subtree */
  HG_ACTION_SET_STATE,    /* set a joint's configuration and/or velocity (a perturbed state) */
  HG_ACTION_PERTURB,      /* pull a point of a body towards a world target by a spring-damper */
  HG_ACTION_RELEASE,      /* end the pull */
  HG_ACTION_CLOSE_LOOP,   /* close a loop (loops:) by its name, with a plastic impulse */
  HG_ACTION_OPEN_LOOP,    /* open a loop: its constraint no longer acts, velocities kept */
  HG_ACTION_ACTUATE,      /* set an actuator's command (held until a controller or command
                             writes it again) */
  HG_ACTION_SET_GAIN,     /* set a controller's parameter */
  HG_ACTION_CONTROLLER    /* turn a controller on or off (off: its outputs are zero) */
} hg_action_type;

typedef struct hg_action {
  hg_action_type type;
  char *joint;          /* set_mode, undock; attach: the name of the new docking joint */
  hg_mode_spec mode;    /* set_mode */
  char *force;          /* enable/disable */
  char *body;           /* detach, remove, impulse, add */
  char *marker_a, *marker_b; /* attach (a: the body that stays parent), impulse point (a),
                                add: the marker the pose and twist are relative to (a, or NULL) */
  double linear[3], angular[3]; /* impulse, N s and N m s: world axes, or the body's own axes
                                   at the instant it acts when body_axes is set */
  int body_axes;        /* impulse: 1 for frame: body (scene_events.c) */
  hg_se3 pose;          /* add: the added body's frame in the reference frame (the marker's
                           frame, else its parent's frame, else the world) */
  double twist[6];      /* add: (w, v) of the added body relative to the reference frame, in its
                           axes: relative angular velocity and rate of the body origin's position */
  int detach;           /* undock: 1 detaches the subtree, 0 leaves the joint free */
  double q[HG_JOINT_MAXNQ], v[HG_JOINT_MAXNV]; /* set_state: the joint's new q and v */
  int has_q, has_v;     /* set_state: which of them are given */
  double point[3];      /* perturb: the pulled point in the body frame */
  double target[3];     /* perturb: where it is pulled to, in the frame of `frame` */
  char *frame;          /* perturb: the body the target is fixed in (NULL: the world), or "com":
                           the centre of mass of the free-flying bodies, world axes */
  double stiffness, damping; /* perturb: N/m and N s/m */
  char *loop;           /* close_loop, open_loop: the loop's name */
  char *device;         /* actuate: the actuator; set_gain, controller: the controller */
  char *param;          /* set_gain: the parameter's name */
  int nvalue;           /* actuate: the command (a thruster: level in [0, 1], then optionally
                           its on-time in s; the others: 1 number); set_gain: the parameter's
                           numbers */
  double *values;
  int on;               /* controller: 1 on, 0 off */
  hg_src src;
} hg_action;

typedef struct hg_event_spec {
  char *name;
  hg_trigger_type trigger;
  double time;           /* time trigger */
  char *marker_a, *marker_b; /* distance */
  char *joint;           /* joint_q, joint_load */
  int dof;
  char *body;            /* altitude, speed */
  int nset[2];           /* clearance: the two sets of bodies */
  char **set[2];
  double value;          /* threshold of a condition */
  int direction;         /* +1 rising, -1 falling, 0 either */
  int once;              /* fire at most once (default 1) */
  int naction;
  hg_action *action;
  hg_src src;
} hg_event_spec;

/* automatic docking capture between two docking-port markers */
typedef struct hg_capture_spec {
  char *marker_a, *marker_b;
  double position_tol; /* m: distance between the port origins */
  double angle_tol;    /* rad: angle between the port frames */
  double speed_tol;    /* m/s: relative speed of the port origins */
  char *joint;         /* name of the docking joint a capture creates (default dock_A_B) */
  hg_src src;
} hg_capture_spec;

/* ---- closed loops (docs/constraints.md) ----
 * A loop is a joint of the joint table between two markers (frame A of marker[0], frame B of
 * marker[1]; the axes in A's frame), or a coupling between two 1-DoF joints (type: coupling,
 * q_follower = ratio q_leader + offset). Active loops are exact constraints from the start;
 * close/open actions switch them while the simulation runs. */
typedef struct hg_loop_spec {
  char *name;
  int coupling;          /* 1: type coupling (joint[], ratio, offset); 0: a joint loop */
  hg_joint_type type;    /* joint loop: the joint's type (fixed: a weld) */
  char *marker[2];       /* joint loop: 'between: [A, B]' */
  double axis[3], axis2[3], pitch; /* joint loop: as a body's joint (defaults alike) */
  char *joint[2];        /* coupling: 'joints: [leader, follower]' */
  double ratio, offset;  /* coupling: default 1 and 0 */
  int active;            /* default 1 */
  double tol[2];         /* 'assembly: [m, rad]': how far apart the markers may be at the start
                            and still be projected together (default 1e-3 m, 1e-3 rad) */
  hg_src src;
} hg_loop_spec;


/* ---- control in the loop (docs/control.md) ----
 * Actuators act on joints and bodies; sensors measure the state at their own rates; controllers
 * read sensors (and other controllers' outputs) and write actuator commands at their own rates,
 * held between samples. Everything is named, so a scene's control survives topology changes. */

typedef enum hg_actuator_type {
  HG_ACT_MOTOR = 0,     /* torque/force on one DoF of a joint (command: N m or N at the joint) */
  HG_ACT_SERVO,         /* a motor with its own PD(+I) loop (command: the setpoint) */
  HG_ACT_WHEEL,         /* a reaction wheel: a rotor body the reader adds on a revolute joint
                           named as the actuator (command: the torque on the rotor, N m) */
  HG_ACT_THRUSTER       /* a force along a direction at a point of a body (command: level in
                           [0, 1] and on-time, s) */
} hg_actuator_type;

typedef struct hg_actuator_spec {
  char *name;           /* unique among actuators, sensors, controllers (and, for a wheel,
                           bodies and joints: the wheel's body and joint take its name) */
  hg_actuator_type type;
  hg_src src;

  /* motor, servo: the joint and its DoF; wheel: the wheel's own joint (= name) */
  char *joint;
  int dof;
  double effort;        /* |output| limit at the joint, N m or N (inf: none) */
  double rate_limit;    /* |d output/dt| limit, N m/s or N/s (inf: none); the output ramps */
  double gear;          /* N: joint speed = motor speed / N (default 1) */
  double rotor_inertia; /* J_r, kg m^2 at the motor: N^2 J_r is the joint's armature */
  double viscous;       /* N m s/rad (N s/m) at the joint */
  double coulomb;       /* N m (N) at the joint, regularized below stiction_velocity */
  double stiction_velocity; /* rad/s or m/s, default 1e-3 */
  double no_load_speed; /* back-EMF: the joint speed at which no torque is left to drive
                           further (inf: none); the torque available falls linearly to it */

  /* servo: PD(+I) on the joint position (or velocity) at its own rate */
  int velocity_loop;    /* 'loop: velocity' (default: position) */
  double kp, kd, ki;    /* N m/rad, N m s/rad, N m/(rad s) */
  double i_limit;       /* |integral term| limit, N m (anti-windup; inf: none) */
  double rate;          /* Hz (servo sample rate) */
  int has_profile;      /* the setpoint follows this profile from the start (else the initial
                           q, until a controller or command writes it) */
  hg_profile_spec profile;

  /* wheel: rotor on 'body' about 'axis' (body frame, unit) centred at 'position' */
  char *body;
  double axis[3], position[3]; /* axis scaled to unit length by the reader */
  double inertia;       /* axial moment, kg m^2 */
  double transverse_inertia; /* kg m^2 (default inertia / 2: a disc) */
  double mass;          /* kg */
  double max_torque;    /* N m (the wheel's effort) */
  double max_speed;     /* rad/s relative to the body (inf: none): no drive beyond it */
  double speed;         /* initial relative speed, rad/s */

  /* thruster on 'body' (or at 'marker'): force thrust * level along 'direction' (unit) at
   * 'position' (body frame; a marker gives both: its origin and its +z axis, and the reader fills
   * body, position and direction from it) */
  char *marker;
  double direction[3];
  double thrust;        /* N at full level */
  int proportional;     /* 0: on/off (level > 0 is full thrust) */
  double min_on;        /* s: the shortest pulse (minimum impulse bit / thrust); shorter
                           commanded pulses last this long */
  double max_on;        /* s: continuous firing is cut after this long (inf: none) */
  double rise, fall;    /* s: linear ramps of the thrust after opening and closing */
  double isp;           /* s: specific impulse (0: no mass flow) */
  char *tank;           /* the tank (tanks:) it draws from, or NULL */

  double misalignment[3]; /* rad: a rotation vector applied to axis/direction (dispersions); a
                             wheel's: the reader builds its joint and inertia about the rotated
                             axis (axis above stays the nominal one), so the runtime does not
                             apply it again; a motor's and a servo's: no effect */
} hg_actuator_spec;

/* propellant in a body: a uniform solid sphere of the propellant's mass at 'position' (body
 * frame) of radius 'radius', added to the body's dry inertia and draining as thrusters fire */
typedef struct hg_tank_spec {
  char *name, *body;
  double propellant;    /* kg at the start */
  double position[3];   /* m, body frame */
  double radius;        /* m (0: a point mass) */
  hg_src src;
} hg_tank_spec;

typedef enum hg_sensor_type {
  HG_SENSOR_ENCODER = 0,  /* joint coordinate dof, quantized: 1 number */
  HG_SENSOR_JOINT_STATE,  /* truth q and v of a joint: nq + nv numbers */
  HG_SENSOR_GYRO,         /* angular velocity, sensor axes, rad/s: 3 */
  HG_SENSOR_ACCELEROMETER,/* specific force (acceleration less gravity), sensor axes, m/s^2: 3 */
  HG_SENSOR_STAR_TRACKER, /* attitude quaternion (w, x, y, z) world <- sensor and valid: 5 */
  HG_SENSOR_SUN,          /* unit vector to the sun, sensor axes, and valid: 4 */
  HG_SENSOR_EARTH,        /* unit vector to the planet centre, sensor axes, and valid: 4 */
  HG_SENSOR_FORCE_TORQUE, /* the wrench the joint (or marker's body) transmits: force then
                             torque, sensor axes, about the sensor origin: 6 */
  HG_SENSOR_POSE,         /* truth: position (world) and quaternion world <- sensor: 7 */
  HG_SENSOR_TWIST         /* truth: angular and linear velocity of the sensor origin, sensor
                             axes: 6 */
} hg_sensor_type;

typedef struct hg_sensor_spec {
  char *name;
  hg_sensor_type type;
  hg_src src;
  double rate;          /* Hz */
  char *body, *marker;  /* where it sits: a marker (its frame) or a body (its frame) */
  char *joint;          /* encoder, joint_state, force_torque at a joint */
  int dof;              /* encoder */
  /* encoder */
  double resolution;    /* rad or m per count (0: none) */
  /* every sensor: white noise (per sample, sensor units) and a constant bias (3) */
  double noise[3];      /* star tracker: about x, y, z (rad; one number given: all three);
                           sun/earth: [angle]; f/t: [force, torque]; encoder: [q] */
  double bias[6];       /* encoder: [q]; gyro, accelerometer, star tracker: x, y, z; f/t: force
                           then torque (6); zeros when not given */
  /* gyro and accelerometer (IMU): densities and stabilities */
  double density;       /* white noise density: angle random walk rad/sqrt(s) (gyro), velocity
                           random walk m/s/sqrt(s) (accelerometer) */
  double random_walk;   /* bias random walk density (rad/s/sqrt(s), m/s^2/sqrt(s)) */
  double bias_instability; /* rad/s or m/s^2 (the Allan floor / 0.664) ... */
  double correlation_time; /* ... of a Gauss-Markov bias with this correlation time, s */
  double scale_factor[3];  /* relative errors */
  double misalignment[3];  /* rad: rotation vector of the sensing axes */
  double range;         /* saturation, sensor units (0: none) */
  double lsb;           /* quantization step (0: none) */
  double dropout;       /* star tracker: probability that a sample is invalid */
  double fov;           /* sun/earth: half-angle of the field of view about +z, rad (0: all) */
  double sun[3];        /* sun: the direction to the sun, world (unit) */
} hg_sensor_spec;

/* one entry of a controller's params: n numbers, or a string (n = 0) */
typedef struct hg_param_spec {
  char *name;
  int n;
  double *value;
  char *text;
  hg_src src;
} hg_param_spec;

typedef enum hg_controller_type {
  HG_CTL_ATTITUDE_PD = 0, /* quaternion-error PD on a body: inputs attitude then rate sources;
                             outputs wheels, or one thruster_logic controller (torque demand) */
  HG_CTL_JOINT_PD,        /* PD on joints tracking profiles: inputs joint measurements; outputs
                             motors */
  HG_CTL_THRUSTER_LOGIC,  /* Schmitt triggers mapping a demand to thrusters: input a demand;
                             outputs thrusters */
  HG_CTL_LIBRARY,         /* the user's shared library (hinge/control.h) */
  HG_CTL_EXTERNAL         /* an external process driven line by line (hinge/control.h) */
} hg_controller_type;

typedef struct hg_controller_spec {
  char *name;
  hg_controller_type type;
  hg_src src;
  double rate;          /* Hz */
  int enabled;          /* at the start (default 1) */
  int ninput;  char **input;   /* sensors or controllers, in the order of the input vector */
  int noutput; char **output;  /* actuators or controllers (a controller's input) */
  int nparam;  hg_param_spec *param;
  int has_profile;      /* joint_pd: the reference (every output joint), from the start */
  hg_profile_spec profile;
  char *library, *symbol; /* library: the path (resolved against the scene's folder) and the
                             step function's name */
  char *command;        /* external: the shell command */
  double timeout;       /* external: s per step (default 10) */
} hg_controller_spec;

/* ---- outputs ---- */

typedef struct hg_pair_spec {
  char *body_a, *body_b; /* separation distance and relative speed of two bodies' origins */
} hg_pair_spec;

typedef struct hg_output_spec {
  double dt;            /* trajectory sampling interval, s (default 0.01) */
  int npair;
  hg_pair_spec *pair;   /* plotted separations */
  int plots;            /* write PNG plots (default 1) */
} hg_output_spec;

/* ---- bodies absent at the start ---- */

/* The bodies a scene defines with 'present: false': absent at the start, brought in with their
 * subtrees by add actions. They are compiled on their own: each root (an absent body whose parent
 * is present at the start, or the world) hangs from the world in this model, and from its scene
 * parent parent[i] once added; its subtree is the bodies [i, subtree_end[i]) with their geometry.
 * Initial joint states of absent joints wait here until their bodies are added. */
typedef struct hg_library {
  hg_model *model;      /* NULL when every body is present at the start */
  char **parent;        /* model->nbody: each body's parent in the scene, a body or "world"
                           (NULL at 0) */
  int njinit;           /* initial joint states (initial: joints) of absent joints */
  hg_joint_init_spec *jinit;
} hg_library;

/* ---- the view ---- */

/* view: how the viewer and hinge render frame the scene (docs/scene-format.md, `view`); read by
 * scene_view.c, used by render/ only */
typedef struct hg_view_spec {
  int ntrack;           /* the bodies the default camera keeps in frame (0: every body) */
  char **track;         /* their names */
  int has_camera;       /* a starting camera was given: its direction, up and field of view */
  double eye[3], target[3], up[3]; /* world */
  double fovy;          /* vertical field of view, degrees (default 45) */
} hg_view_spec;

/* ---- the scene ---- */

/* a file a scene was read from and the 64-bit FNV-1a hash of its bytes (0: could not be read) */
typedef struct hg_scene_input {
  char *path;
  uint64_t hash;
} hg_scene_input;

typedef struct hg_scene {
  char *path;           /* the file it was read from */
  char *title, *description;
  hg_builder *builder;  /* bodies present at the start: joints, inertias, limits, geometry */
  hg_library library;   /* bodies absent at the start (present: false) */
  double gravity[3];    /* uniform gravity, default (0, 0, -9.81) */
  int has_atmosphere;   /* a top-level atmosphere was given (it also defines altitude) */
  hg_atmosphere atmosphere;

  int nmarker;   hg_marker *marker;
  int nforce;    hg_force_spec *force;
  int njinit;    hg_joint_init_spec *jinit;
  int nbinit;    hg_body_init *binit;
  int nmode;     hg_mode_spec *mode;
  int nevent;    hg_event_spec *event;
  int ncapture;  hg_capture_spec *capture;
  int nloop;     hg_loop_spec *loop;
  int nactuator; hg_actuator_spec *actuator;
  int ntank;     hg_tank_spec *tank;
  int nsensor;   hg_sensor_spec *sensor;
  int ncontroller; hg_controller_spec *controller;
  uint64_t noise_seed;  /* the sensors' noise streams (default 1; runs and campaigns override) */

  hg_integ_options integ;
  double t_start, t_end;
  double max_wall;      /* time.max_wall: wall-time limit of a run in seconds (0: none) */
  hg_output_spec output;
  hg_view_spec view;    /* view: (no section: every body in frame, the default camera) */

  struct hg_scene_names *names; /* the reader's name tables, for reading commands (private) */

  /* the files the scene was read from (scene_inputs.c): input[0] the scene file, hashed from
   * the bytes parsed; then every file its keys name (URDF includes, meshes, controller
   * libraries) and the meshes its URDF files name, hashed by hg_scene_load and
   * hg_scene_hash_inputs (0 until then). Written by the reader only. */
  int ninput;
  hg_scene_input *input;
} hg_scene;

/* Reads a scene. NULL on error with err->msg = "file:line:column: what was expected". Unknown
 * keys are errors with a did-you-mean suggestion. URDF subtrees are read through hg_urdf_add. */
hg_scene *hg_scene_load(const char *path, hg_error *err);
void hg_scene_free(hg_scene *s);
/* Loop sp of scene s in the terms of model m (loops.h's hg_loop: marker frames and bodies, or a
 * coupling's joints, by name): 0; 1 when a body or joint of it is not in m (absent: not added
 * yet, or removed); -1 with err when its joint cannot be made (hg_joint_init). The one way the
 * runtime and the command line turn a scene's loop into the constraint core's. */
int hg_loop_spec_resolve(const hg_scene *s, const hg_loop_spec *sp, const hg_model *m,
                         hg_loop *out, hg_error *err);

/* A value of the scene file replaced before the scene is read: path addresses a numeric scalar
 * ("bodies.shield.inertia.mass", "forces.pushoff_1.stiffness", "bodies.shield.inertia.com.2":
 * keys of mappings, and list items by index or by their 'name'). */
typedef struct hg_scene_override {
  const char *path;
  double value;
} hg_scene_override;
/* hg_scene_load with the values at nov paths replaced first (Monte Carlo campaigns); the scene's
 * checks apply to the replaced values. A path that is missing or not a number is an error
 * "FILE: 'path': why". */
hg_scene *hg_scene_load_overrides(const char *path, const hg_scene_override *ov, int nov,
                                  hg_error *err);
/* hg_scene_load_overrides of a scene held in memory (len bytes of text; path names it in
 * messages, and its folder resolves the files it names): a campaign reads its scene's bytes once.
 * The files the scene names are not hashed (hg_scene_hash_inputs does that). */
hg_scene *hg_scene_load_text(const char *path, const char *text, size_t len,
                             const hg_scene_override *ov, int nov, hg_error *err);
/* hashes s->input[1..] from the files as they are now (0 for a file that cannot be read: a
 * missing mesh of a URDF file, whose display shape the reader leaves out); returns 0 */
int hg_scene_hash_inputs(hg_scene *s, hg_error *err);

/* 64-bit FNV-1a over n bytes, continuing from h (HG_HASH_START for a fresh hash) */
#define HG_HASH_START 14695981039346656037ULL
uint64_t hg_hash_bytes(const void *bytes, size_t n, uint64_t h);
/* the hash of a file's bytes; 0, or -1 with err "PATH: cannot open: why" */
int hg_hash_file(const char *path, uint64_t *hash, hg_error *err);

/* the number at value_path of a scene file (its nominal value); 0, or -1 with err */
int hg_scene_value(const char *path, const char *value_path, double *value, hg_error *err);

/* a deep copy of an action (0, or -1 when out of memory: dst is then empty), and freeing one */
int hg_action_copy(hg_action *dst, const hg_action *src);
void hg_action_free(hg_action *a);

/* ---- commands (docs/commands.md) ----
 * A command applies event actions now or at a time: 'lock J1 J2', 'attach PM CM', ... Each is
 * read into the same actions a scene event {at: T, do: [...]} with those actions holds, with the
 * same name checks. */
typedef struct hg_command {
  double t;             /* when (command files); NaN for a command without a time */
  char *text;           /* the command as written, without its time and comment */
  int naction;
  hg_action *action;
  hg_src src;           /* the file and line it was read from (file NULL: typed) */
} hg_command;

typedef struct hg_command_list {
  char *path;           /* the file (the commands' src.file) */
  int n;
  hg_command *cmd;      /* in file order */
} hg_command_list;

/* Reads a command file of scene s: one command per line, 'TIME ACTION ARGUMENTS', '#' starts a
 * comment. close and open name a loop of the scene or a docking joint the scene or an earlier
 * attach command creates (an attach between bodies of one tree closes a loop of that name).
 * 0, or -1 with err = "FILE:LINE: what was expected". */
int hg_commands_load(const hg_scene *s, const char *path, hg_command_list *out, hg_error *err);
/* Reads one command without a time, 'ACTION ARGUMENTS' (a viewer's command line). joints (may
 * be NULL) are further names a command may use: the docking joints a running simulation made
 * (hg_sim_parse_command passes them), and the loops it made (an attach between bodies already in
 * one tree closes a loop dock_A_B instead of adding a joint). Each name of joints that is not a
 * joint of the scene's model is taken as both a docking joint (free) and a loop name, so one list
 * carries both; names of the scene's model are ignored. close and open accept a loop of the
 * scene, a docking joint's name the scene or earlier commands create, or such a name.
 * 0, or -1 with err = "command:1: ...". */
int hg_command_parse(const hg_scene *s, const char *text, const char *const *joints, int njoints,
                     hg_command *out, hg_error *err);
int hg_command_copy(hg_command *dst, const hg_command *src);
void hg_command_free(hg_command *cmd);
/* the action words of a command line ("lock", "free", ...), NULL-terminated */
const char *const *hg_command_actions(void);
void hg_commands_free(hg_command_list *list);

/* lookups by name; NULL when absent */
const hg_marker *hg_scene_marker(const hg_scene *s, const char *name);
const hg_force_spec *hg_scene_force(const hg_scene *s, const char *name);

#ifdef __cplusplus
}
#endif

#endif
