/* frame.h: what the viewer shows of one instant, copied from the simulation's views (sim.h), and
 * the history of such frames that the viewer scrubs through.
 *
 * A frame owns everything it holds (poses in world coordinates, double precision), so it stays
 * valid after the simulation advances, changes topology or is freed: scrubbing back to a frame
 * shows exactly the state the simulation had then. Names are interned in the history's string
 * table (hg_frame_name), so comparing name indices compares names. No GL here. */
#ifndef HINGE_RENDER_FRAME_H
#define HINGE_RENDER_FRAME_H

#include "sim.h"

/* one shape of a body's display geometry, posed in the world */
typedef struct hg_fgeom {
  int type;          /* hg_geom_type */
  int body;          /* index into the frame's bodies */
  int mesh;          /* mesh file name (string table index), or -1 */
  double size[3];
  hg_se3 pose;       /* world */
  float rgba[4];
} hg_fgeom;

typedef struct hg_fbody {
  int name;          /* string table index */
  hg_se3 pose;       /* world */
  double twist[6];   /* (w, v of the origin), world axes */
  double mass;
  double com[3];     /* world */
  double box[3];     /* full extents of the equivalent inertia box (uniform box with the body's
                        mass and principal moments), along box_R's columns */
  double box_R[9];   /* principal axes, world (row-major, columns are the axes) */
} hg_fbody;

typedef struct hg_fjoint {
  int name, body;    /* body: the child body (index into bodies) */
  int type, mode, nv;/* hg_joint_type, hg_mode */
  hg_se3 frame;      /* joint frame, world */
  double axis[3];    /* first DoF axis, world (zero for spherical, free, fixed) */
  double wrench[6];  /* transmitted wrench (moment about the child origin, force), world */
  double q0, v0;     /* first coordinate and rate (0 for none) */
  int nq, parent;    /* parent: the parent body's index into bodies (0: the world) */
  double q[HG_JOINT_MAXNQ], v[HG_JOINT_MAXNV]; /* every coordinate and rate */
  double load[HG_JOINT_MAXNV]; /* what a locked or prescribed joint's lock or actuator adds, or
                        the force elements' joint forces at a free one (hg_sim_joint_view) */
  double effort;     /* the joint's effort limit (scene or URDF), 0: none */
} hg_fjoint;

/* the gauge of a scene's capture pair (sim.h, hg_sim_gauge) at the frame's instant */
typedef struct hg_fgauge {
  int a, b;          /* the two markers' names (string table indices) */
  int ok;            /* hg_sim_gauge answered */
  hg_sim_gauge_view g;
} hg_fgauge;

typedef struct hg_fmarker {
  int name, port, present;
  hg_se3 pose;
} hg_fmarker;

typedef struct hg_fforce {
  int name, type, enabled, inert;
  double a[3], b[3], force[3], magnitude, length;
  double radius;     /* central gravity: the planet's display radius (0: none given) */
} hg_fforce;

typedef struct hg_fpair {
  int a, b, present; /* body names */
  double pa[3], pb[3], distance, speed;
} hg_fpair;

/* a closed loop (sim.h, hg_sim_loop_view) */
typedef struct hg_floop {
  int name, type;    /* string table indices; type: the joint type's name, or "coupling" */
  int joint_type;    /* hg_joint_type of a joint loop (-1 for a coupling) */
  int present, active;
  hg_se3 frame_a, frame_b; /* joint loops: frames A and B, world */
  int jnt[2];        /* couplings: leader and follower joint names (string indices), else -1 */
  double axis[3];    /* joint loops: the joint's first axis, world (A's axes; 0 when none) */
  double wrench[6];  /* what a's side applies to b's side: moment about A's origin, force; world
                        axes (zero when open); a coupling's force or torque in wrench[0] */
  double distance, angle; /* position violation: m, rad */
} hg_floop;

/* an actuator (sim.h, hg_sim_actuator_view): what the actuators overlay and the control panel
 * draw of it */
typedef struct hg_fact {
  int name;          /* string table index */
  int type;          /* hg_actuator_type */
  int present;       /* its joint or body is in the simulation */
  int body;          /* the body it pushes (thruster) or is mounted on (wheel): index into the
                        frame's bodies, -1 */
  int saturated;     /* held at a limit now */
  double point[3], dir[3]; /* thruster: where its force acts and its direction (unit); wheel: its
                        centre and axis (unit); world */
  double level;      /* thruster: thrust now / full thrust (> 0: firing) */
  long firings;      /* thruster: the pulses begun so far */
  double speed;      /* wheel (motor, servo): the joint's rate, rad/s (wheel: relative to its
                        body) */
  double max_speed;  /* wheel: the scene's max_speed, rad/s (inf: none) */
  double momentum;   /* wheel: the rotor's axial angular momentum, N m s */
  double output;     /* what it applies now: N m or N */
  int ncommand;
  double command[2]; /* the command held now (sim.h) */
} hg_fact;

/* a controller (sim.h, hg_sim_controller_view) */
typedef struct hg_fctl {
  int name, type;    /* string table index; hg_controller_type */
  int enabled;
  long steps;
  int telemetry;     /* the name of its first telemetry value (string table index), -1: none */
  double value;      /* that value (attitude_pd: the pointing error, deg) */
} hg_fctl;

/* a sensor (sim.h, hg_sim_sensor_view, and the scene's hg_sensor_spec): where its frame is and
 * what it read last, as the sensors overlay draws it */
typedef struct hg_fsens {
  int name;          /* string table index */
  int type;          /* hg_sensor_type */
  int present;       /* its body (or marker's body, or joint) is in the simulation */
  int body;          /* the body it sits on (a joint's sensors: the joint's child), -1 */
  int joint;         /* encoder, joint state, force/torque at a joint: index into the frame's
                        joints, else -1 */
  hg_se3 pose;       /* its frame in the world (a marker's, else its body's) */
  int valid;         /* its last sample was valid (0: dropped out or out of view) */
  int sampled;       /* it has been sampled at least once */
  int n;             /* its numbers held in value (at most 7) */
  double value[7];   /* the latest sample, sensor axes (scene.h's hg_sensor_type) */
} hg_fsens;

typedef struct hg_frame {
  double t;
  unsigned long model_version;
  int nevents;       /* events logged up to this frame */
  int nbody, ngeom, njoint, nmarker, nforce, npair, nloop, nact, nctl, nsens, ngauge;
  hg_fbody *body;    /* bodies 1 .. nbody-1 of the model (index 0 unused: the world) */
  hg_fgeom *geom;
  hg_fjoint *joint;  /* njoint = nbody - 1 */
  hg_fmarker *marker;
  hg_fforce *force;
  hg_fpair *pair;
  hg_floop *loop;
  hg_fact *act;      /* actuators, in the scene's order */
  hg_fctl *ctl;      /* controllers, in the scene's order */
  hg_fsens *sens;    /* sensors, in the scene's order */
  hg_fgauge *gauge;  /* the scene's capture pairs, in its order */
  double h[6];       /* total momentum (angular about the origin, linear), world */
  double com[3];     /* centre of mass of all bodies, world */
  double energy;     /* kinetic + potentials */
  hg_sim_budget budget;
  hg_integ_stats stats;
  double gravity[3]; /* the model's uniform gravity */
} hg_frame;

/* an event logged by the simulation, kept by the history */
typedef struct hg_hevent {
  double t;
  char name[64];
  char details[512];
  double e_removed;  /* kinetic energy removed by plastic locks */
  double de;         /* e_after - e_before */
  double dh;         /* momentum change, relative (hg_sim_event_momentum_change) */
} hg_hevent;

/* frames in time order, at most cap (older halves are thinned out when full) */
typedef struct hg_history {
  int n, cap;
  hg_frame *frame;
  int nstr, capstr;
  char **str;        /* interned names */
  int nevent, capevent;
  hg_hevent *event;
} hg_history;

void hg_history_init(hg_history *h, int cap);
void hg_history_free(hg_history *h);
/* forgets the frames and events (a restart); keeps the string table */
void hg_history_clear(hg_history *h);
/* the index of a name in the string table (adding it) */
int hg_history_intern(hg_history *h, const char *s);
const char *hg_frame_name(const hg_history *h, int id);

/* Copies the simulation's current views into a new frame at the end of the history (replacing
 * the last frame when it has the same time and model), and the events logged since the last
 * capture. sc is the scene the simulation runs (for the planet's display radius). Returns the
 * frame, or NULL when out of memory. */
hg_frame *hg_history_capture(hg_history *h, hg_sim *sim, const hg_scene *sc);
/* the index of the last frame with t <= time (0 when none) */
int hg_history_find(const hg_history *h, double time);

void hg_frame_free(hg_frame *f);
/* a deep copy */
int hg_frame_copy(hg_frame *dst, const hg_frame *src);

/* the body index of a name in a frame, or -1 */
int hg_frame_body(const hg_frame *f, int name);

#endif
