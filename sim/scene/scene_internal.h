/* scene_internal.h: what the parts of the scene reader share (scene*.c; not a public header).
 *
 * The reader fills an hg_scene section by section from one YAML document. Every section function
 * returns 0, or -1 with the document's error set to "file:line:column: message"; whatever it has
 * allocated by then already hangs off the scene, so hg_scene_free releases it. */
#ifndef HINGE_SCENE_INTERNAL_H
#define HINGE_SCENE_INTERNAL_H

#include <stdio.h>

#include "scene.h"
#include "yaml_doc.h"

/* a body written in the scene (not read from a URDF), for parent checks and messages */
typedef struct hg_sc_body {
  const char *name, *joint; /* borrowed from the document */
  const hg_ynode *name_node, *joint_node;
  int absent;               /* present: false */
  const hg_ynode *present_node; /* its 'present' value, or NULL */
} hg_sc_body;

/* a reference to a body that must exist once every body is in the builder */
typedef struct hg_sc_ref {
  const char *name;
  const hg_ynode *node;
  int absent;       /* the body that refers to it is absent at the start */
} hg_sc_ref;

typedef struct hg_sctx {
  hg_ydoc doc;
  hg_scene *s;
  hg_model *m;      /* every body of the scene compiled at load time, present at the start or
                       not: names, joint types */
  unsigned char *absent; /* per body of m: 1 when absent at the start (NULL: none is) */
  char *dir;        /* the scene file's folder, with a trailing '/' ("" for the current one) */
  int nbody;        /* bodies written in the scene */
  hg_sc_body *body;
  hg_name_index body_index; /* their names -> their index in body (hg_sc_body_index) */
  int nref;         /* parent references, checked after the URDF includes */
  hg_sc_ref *ref;
  int ndock;        /* docking joints that captures and attach actions create */
  char **dock;
  const char *src_path; /* the file hg_src values name, when it is not the scene (commands) */
  int nmjcf_q0;         /* the MJCF includes' joints that start at MuJoCo's qpos0 (hg_sc_mjcf), */
  hg_joint_init_spec *mjcf_q0; /* joined to the scene's 'initial' by scene.c */
} hg_sctx;

/* What the reader keeps in the scene for reading commands later (commands.c): every body
 * compiled (present at the start or not), which are absent, and the docking joints' names. */
struct hg_scene_names {
  hg_model *m;
  unsigned char *absent;
  int ndock;
  char **dock;
};

/* the scene body named name (an index into c->body), or -1: by hash, so that reading n bodies
 * takes time linear in n */
int hg_sc_body_index(const hg_sctx *c, const char *name);
/* the name of item i of an array of hg_sc_body (the name index's getter) */
const char *hg_sc_body_name_of(const void *items, int i);

/* scene_inputs.c: adds path to s's inputs (once; hash 0 until hashed), and every mesh of m's
 * geometry (those URDF files name); 0 or -1 (out of memory). Frees them. */
int hg_sc_add_input(hg_scene *s, const char *path);
int hg_sc_model_inputs(hg_scene *s, const hg_model *m);
void hg_sc_free_inputs(hg_scene *s);

#define HG_SC_PI 3.14159265358979323846

/* ---- scene_util.c: shared reads ---- */

/* a node's position as an hg_src of the scene */
hg_src hg_sc_src(const hg_sctx *c, const hg_ynode *n);
/* pose from optional pos and one of quat, rpy (radians), rpy_deg; identity when absent */
int hg_sc_pose(hg_sctx *c, const hg_ynode *map, hg_se3 *T);
/* a quaternion scaled to unit length; -1 with an error at n when it is zero */
int hg_sc_unit_quat(hg_sctx *c, const hg_ynode *n, double q[4]);
/* Bounds of physical quantities a scene may give: beyond them a value can only be a mistake, and
 * it is refused at its key rather than met as a failure inside the integrator. */
#define HG_SC_MAX_TIME 1e10    /* s: 317 years, for times and spans */
#define HG_SC_MAX_LENGTH 1e13  /* m: 67 astronomical units, for positions and lengths */
#define HG_SC_MAX_SPEED 3e8    /* m/s: the speed of light */
#define HG_SC_MAX_RATE 1e6     /* rad/s, for angular velocities */
#define HG_SC_MAX_SAMPLES 1e9  /* output rows of a run */
/* -1 with an error at n unless |x[k]| <= limit for each of the n numbers (what, unit: for the
 * message) */
int hg_sc_bounded(hg_sctx *c, const hg_ynode *n, const char *what, const double *x, int count,
                  double limit, const char *unit);
/* optional numbers with a range: > 0, >= 0 */
int hg_sc_positive(hg_sctx *c, const hg_ynode *map, const char *key, double *out);
int hg_sc_nonneg(hg_sctx *c, const hg_ynode *map, const char *key, double *out);
/* the value of a required key (its absence is an error naming what) */
const hg_ynode *hg_sc_required(hg_sctx *c, const hg_ynode *map, const char *key, const char *what);
/* A file named in the scene: a relative path is tried in the scene's folder, then in each folder
 * above it (up to HG_SC_SEARCH_UP levels), nearest first. A malloc'd path, or NULL with an error
 * at n when none can be opened. */
#define HG_SC_SEARCH_UP 16
char *hg_sc_resolve(hg_sctx *c, const hg_ynode *n, const char *file);
/* "unknown KIND 'name' (did you mean 'x'?)" at n; returns -1 */
int hg_sc_unknown(hg_sctx *c, const hg_ynode *n, const char *kind, const char *name,
                  const char *const *cand, int ncand);
/* Name references resolved against the compiled model and the scene: a body other than the
 * world (its index in the model when index is not NULL); a joint of the model or a docking joint
 * (its joint parameters; a docking joint is free); a marker; a force element. */
int hg_sc_body_ref(hg_sctx *c, const hg_ynode *n, const char *what, const char **name, int *index);
int hg_sc_joint_ref(hg_sctx *c, const hg_ynode *n, const char *what, const char **name,
                    hg_joint *jnt);
int hg_sc_marker_ref(hg_sctx *c, const hg_ynode *n, const char *what, const hg_marker **mk);
/* one side of a clearance or contact: a body name or a list of them (n), as malloc'd names */
int hg_sc_body_set(hg_sctx *c, const hg_ynode *n, int *count, char ***names);
int hg_sc_force_ref(hg_sctx *c, const hg_ynode *n, const char *what, const char **name);
/* reads a joint configuration (nq numbers; quaternions normalized) */
int hg_sc_joint_q(hg_sctx *c, const hg_ynode *n, const char *what, const hg_joint *j, double *q);
/* a joint's rates at n (nv numbers, speeds within the scene's bounds) */
int hg_sc_joint_v(hg_sctx *c, const hg_ynode *n, const char *what, const hg_joint *j, double *v);
/* the optional 'twist' of map: angular velocity then velocity, within the scene's bounds */
int hg_sc_twist(hg_sctx *c, const hg_ynode *map, double twist[6]);
/* a copy of a string into *out; -1 with "out of memory" at n */
int hg_sc_strdup(hg_sctx *c, const hg_ynode *n, const char *str, char **out);
/* a zeroed array of n items (n may be 0: NULL); -1 with "out of memory" at node */
int hg_sc_alloc(hg_sctx *c, const hg_ynode *node, int n, size_t size, void **out);
/* a section that is a sequence (what: its name in messages): *items gets one zeroed item of size
 * bytes for each entry, and read(c, entry, k) reads entry k into item k; *count is the number of
 * items begun, so that what a failure leaves is freed with them */
int hg_sc_seq(hg_sctx *c, const hg_ynode *list, const char *what, size_t size, void **items,
              int *count, int (*read)(hg_sctx *c, const hg_ynode *n, int k));

/* ---- the sections (scene.c runs them in an order where names are known before use) ---- */

/* scene.c: title, description, gravity, atmosphere */
int hg_sc_header(hg_sctx *c, const hg_ynode *root);
/* scene_bodies.c: bodies, markers (body NULL: top level, with a 'body' key), URDF includes and
 * the compiled model */
int hg_sc_bodies(hg_sctx *c, const hg_ynode *list);
int hg_sc_markers(hg_sctx *c, const hg_ynode *list, const char *body);
int hg_sc_urdf(hg_sctx *c, const hg_ynode *list);
/* the MJCF includes (scene-format.md, mjcf): bodies into the builder, sites as markers, joint
 * springs and dampers as joint spring force elements (held in the scene's force list until
 * scene.c puts them after the scene's own) */
int hg_sc_mjcf(hg_sctx *c, const hg_ynode *list);
int hg_sc_compile(hg_sctx *c, const hg_ynode *root);
/* A joint's type and axes as a body's joint reads them (loops read theirs the same way): the type
 * of a name node, with a did-you-mean; every key of the mapping n has a meaning for type t
 * ('axis' on a spherical joint is an error); axis, axis2 and pitch of n (defaults: axis z, no
 * pitch) through hg_joint_init, whose complaint is reported after what. */
int hg_sc_joint_type(hg_sctx *c, const hg_ynode *n, hg_joint_type *t);
int hg_sc_joint_keys_apply(hg_sctx *c, const hg_ynode *n, hg_joint_type t);
int hg_sc_joint_axes(hg_sctx *c, const hg_ynode *n, hg_joint_type t, const char *what,
                     hg_joint *j);
/* scene_library.c: the bodies absent at the start move from the builder to the library (with
 * their checks). Lookups on them: 1 when body i of c->m, or the body of a joint, is absent at the
 * start; -1 with an error at n unless body i is one an add action may name (absent, its parent
 * present); -1 with an error at n ending in hint unless body i is present at the start. */
int hg_sc_library(hg_sctx *c);
int hg_sc_absent(const hg_sctx *c, int i);
int hg_sc_absent_joint(const hg_sctx *c, const char *joint);
int hg_sc_add_root(hg_sctx *c, const hg_ynode *n, int i);
int hg_sc_present(hg_sctx *c, const hg_ynode *n, int i, const char *hint);
/* scene_geometry.c, scene_inertia.c: a body's shapes and its inertia */
int hg_sc_geometry(hg_sctx *c, const hg_ynode *list, const char *body);
int hg_sc_inertia(hg_sctx *c, const hg_ynode *map, const char *body, hg_inertia *out);
/* scene_forces.c: an atmosphere, the force elements */
int hg_sc_atmosphere(hg_sctx *c, const hg_ynode *map, hg_atmosphere *atm);
int hg_sc_forces(hg_sctx *c, const hg_ynode *list);
/* a note ("file:line:column: note: ...") for each contact element whose sides hold a parent and
 * its child that it leaves out at the start (after the modes are read) */
void hg_sc_contact_notes(const hg_sctx *c, FILE *notes);
/* scene_state.c: the initial state, the modes, and one mode with an optional profile as in
 * modes: and set_mode actions (with_joint: the mapping also holds the 'joint' key) */
int hg_sc_initial(hg_sctx *c, const hg_ynode *map);
int hg_sc_modes(hg_sctx *c, const hg_ynode *map);
int hg_sc_mode(hg_sctx *c, const hg_ynode *n, const char *joint, const hg_joint *jnt,
               int with_joint, hg_mode_spec *out);
/* a profile mapping ({type: move, target, duration}, ...) for joint j, as modes read it */
int hg_sc_profile(hg_sctx *c, const hg_ynode *n, const hg_joint *j, hg_profile_spec *p);
/* scene_events.c: captures; the names of the docking joints that captures (already read) and
 * attach actions create; the events */
int hg_sc_capture(hg_sctx *c, const hg_ynode *list);
int hg_sc_docks(hg_sctx *c, const hg_ynode *events);
/* adds a docking joint's name (owned by c from now on) unless known; -1 when out of memory */
int hg_sc_add_dock(hg_sctx *c, char *name);
/* one action of an event's 'do' list */
int hg_sc_action(hg_sctx *c, const hg_ynode *n, hg_action *a);
int hg_sc_events(hg_sctx *c, const hg_ynode *list);
/* scene_loops.c: the closed loops (after the docking joints' names are known, before the events
 * that close and open them); a loop name an action or a command may use: a loop of the scene or
 * a docking joint's name (an attach between bodies of one tree closes a loop of that name) */
int hg_sc_loops(hg_sctx *c, const hg_ynode *list);
int hg_sc_loop_ref(hg_sctx *c, const hg_ynode *n, const char *what, const char **name);
/* scene_control.c: control in the loop. hg_sc_wheels adds each reaction wheel of 'actuators'
 * to the builder as a body (before the model is compiled); the others read their sections once
 * the model, markers and initial state are known, in the order tanks, actuators, sensors,
 * controllers (each one's names are known before use; a wheel's initial speed joins the initial
 * joint states); noise_seed (default 1). The actions actuate, set_gain and controller. */
int hg_sc_wheels(hg_sctx *c, const hg_ynode *list);
int hg_sc_tanks(hg_sctx *c, const hg_ynode *list);
int hg_sc_actuators(hg_sctx *c, const hg_ynode *list);
int hg_sc_sensors(hg_sctx *c, const hg_ynode *list);
int hg_sc_controllers(hg_sctx *c, const hg_ynode *list);
int hg_sc_noise_seed(hg_sctx *c, const hg_ynode *root);
int hg_sc_actuate(hg_sctx *c, const hg_ynode *n, hg_action *a);
int hg_sc_set_gain(hg_sctx *c, const hg_ynode *n, hg_action *a);
int hg_sc_controller_switch(hg_sctx *c, const hg_ynode *n, hg_action *a);
/* scene_run.c: integrator, time, output */
int hg_sc_run(hg_sctx *c, const hg_ynode *root);
/* scene_view.c: the view section (its bodies must exist) */
int hg_sc_view(hg_sctx *c, const hg_ynode *n);

/* freeing the parts of a scene */
void hg_sc_free_mode(hg_mode_spec *m);
void hg_sc_free_library(hg_library *lib);
void hg_sc_free_control(hg_scene *s);

#endif
