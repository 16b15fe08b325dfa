/* model.h: the compiled multibody model (constant) and its data workspace (mutable).
 *
 * A model is a forest of trees under the world body, built from named bodies with hg_builder and
 * compiled into flat arrays in topological order: body 0 is the world, every body's parent has a
 * smaller index, and each non-world body i has exactly one joint, also numbered i, connecting it to
 * its parent: T_{parent(i),i}(q) = jnt_offset[i] * T_joint(q_i) * jnt_post[i], where the constant
 * post-offset is the identity except for joints reversed by re-rooting a tree (a reversed joint
 * gives T^-1 = post^-1 T_joint(q)^-1 offset^-1). Bodies are laid out depth first,
 * so each subtree occupies a contiguous range of indices [i, subtree_end[i]).
 *
 * hg_data holds everything an algorithm writes; algorithms never allocate. */
#ifndef HINGE_MODEL_H
#define HINGE_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "inertia.h"
#include "joint.h"
#include "names.h"
#include "spatial.h"

#ifdef __cplusplus
extern "C" {
#endif

/* joint limits: data for the dynamics; a simulation makes position limits end stops (sim/runtime/stops.c) */
typedef struct hg_joint_limits {
  int has_position, has_effort, has_velocity;
  double lower, upper, effort, velocity;
  double restitution; /* end stops: the rebound speed over the impact speed, in [0, 1] */
  int latch;          /* end stops: which stops hold a joint that reaches them for good, a mask of
                       * HG_LATCH_LOWER and HG_LATCH_UPPER (0: neither latches) */
} hg_joint_limits;

/* the stops of hg_joint_limits.latch */
enum { HG_LATCH_LOWER = 1, HG_LATCH_UPPER = 2, HG_LATCH_BOTH = 3 };

/* display and collision geometry of a body, in the body frame */
typedef enum hg_geom_type {
  HG_GEOM_BOX = 0, /* size = full extents x, y, z */
  HG_GEOM_SPHERE,  /* size[0] = radius */
  HG_GEOM_CYLINDER,/* size[0] = radius, size[1] = length along z */
  HG_GEOM_CAPSULE, /* size[0] = radius, size[1] = length of the cylinder part along z */
  HG_GEOM_CONE,    /* size[0] = base radius, size[1] = height along z */
  HG_GEOM_MESH     /* mesh file, size = scale x, y, z */
} hg_geom_type;

typedef struct hg_geom {
  hg_geom_type type;
  int body;        /* body index (set by the compiler) */
  int collision;   /* 0: visual, 1: collision */
  double size[3];
  hg_se3 pose;     /* geometry frame in the body frame */
  float rgba[4];
  char *mesh;      /* mesh file path, or NULL */
} hg_geom;

/* what hg_builder_add_body takes; names are copied */
typedef struct hg_body_spec {
  const char *name;       /* unique body name */
  const char *parent;     /* parent body name; NULL or "world" for the world */
  const char *joint_name; /* unique joint name; NULL gives the body's name */
  hg_joint joint;         /* from hg_joint_init */
  hg_se3 offset;          /* joint frame in the parent frame */
  int has_post;           /* 0: the child frame is the moved joint frame (the usual case) */
  hg_se3 post;            /* with has_post: child frame in the moved joint frame */
  hg_inertia inertia;     /* about the body frame (see inertia.h) */
  hg_joint_limits limits;
  /* reflected rotor inertia ("armature") of each of the joint's DoFs, >= 0 (zero: none): a motor
   * with gear ratio N and rotor inertia J_r adds N^2 J_r to the DoF's diagonal of the mass
   * matrix (kg m^2 for a rotation, kg for a translation). The rotor's own gyroscopic torque and
   * momentum are neglected, as in MuJoCo and Pinocchio. Entries past the joint's nv are unread. */
  double armature[HG_JOINT_MAXNV];
} hg_body_spec;

typedef struct hg_builder hg_builder;

hg_builder *hg_builder_new(void);
void hg_builder_free(hg_builder *b);
/* an independent copy of b (bodies, geometry, names); NULL with err when out of memory */
hg_builder *hg_builder_copy(const hg_builder *b, hg_error *err);
/* adds a body (copying it); returns 0, or -1 with err set when the name is empty or taken */
int hg_builder_add_body(hg_builder *b, const hg_body_spec *spec, hg_error *err);
/* adds geometry to a named body (the mesh path is copied); -1 with err when the body is unknown */
int hg_builder_add_geom(hg_builder *b, const char *body, const hg_geom *g, hg_error *err);
/* the spec of a body already added, or NULL (for readers that fix up bodies after adding them) */
hg_body_spec *hg_builder_body(hg_builder *b, const char *name);
/* Assembles the bodies into a model in depth-first topological order, with its body-local
 * frames. Fails (NULL, err set) on an unknown parent, a cycle or a duplicate joint name. Most
 * callers want hg_builder_compile (dynamics.h), which also refuses a singular articulated
 * inertia; a model that merges another's fixed links (merge.c) has the articulated inertias of
 * the model it came from, so it is assembled only. */
struct hg_model *hg_builder_assemble(const hg_builder *b, hg_error *err);
/* Couples joint follower to joint leader as URDF <mimic> does: q_f = multiplier q_l + offset
 * (both 1-DoF joints, names copied). The model keeps the follower's DoF; hg_mimic_aba (mimic.h)
 * computes the motion with the coupling enforced. -1 with err on an empty name or a joint that
 * already follows another. Checked at compile time: both joints exist and have one DoF. */
int hg_builder_add_mimic(hg_builder *b, const char *follower, const char *leader,
                         double multiplier, double offset, hg_error *err);

/* Sets the armature (reflected rotor inertia, see hg_body_spec) of DoF dof of a named joint to
 * value (it replaces, it does not add). Returns 0, or -1 with err set when the joint is unknown,
 * dof is not in [0, the joint's nv) or value is negative or not finite. */
int hg_builder_set_armature(hg_builder *b, const char *joint, int dof, double value,
                            hg_error *err);

/* allow != 0: hg_builder_compile accepts a singular articulated inertia (a reader that has
 * already told the user; hg_aba and hg_hybrid then fail at that joint, the other algorithms
 * work); hg_builder_allows_singular reads the setting */
void hg_builder_allow_singular(hg_builder *b, int allow);
int hg_builder_allows_singular(const hg_builder *b);

typedef struct hg_model {
  int nbody;  /* bodies including the world (body 0) */
  int nq, nv; /* configuration and velocity dimensions */
  int nD;     /* sum over joints of nv_i^2 (ABA workspace) */
  double gravity[3];

  /* per body i (index 0 is the world; its joint entries are a fixed placeholder) */
  int *parent;          /* parent body, -1 for the world */
  int *subtree_end;     /* one past the last body of i's subtree */
  int *by_depth;        /* nbody - 1: the moving bodies deepest first, each depth in decreasing
                         * index (the articulated pass's backward order, and reversed its forward
                         * one: bodies of one depth never wait on each other, so the processor
                         * overlaps their projections) */
  int *root;            /* the body of i's tree that hangs from the world (0 for the world) */
  hg_joint *jnt;        /* joint i: parent(i) -> i */
  hg_se3 *jnt_offset;   /* joint frame in the parent frame */
  uint8_t *offset_pure; /* 1 when jnt_offset has no rotation (a shortcut for the walk) */
  hg_se3 *jnt_post;     /* child frame in the moved joint frame (usually the identity) */
  uint8_t *has_post;    /* 0 when jnt_post is the identity */
  int *q_adr, *v_adr;   /* first entry of joint i in q and in v */
  int *jnt_nq, *jnt_nv; /* its dimensions */
  int *D_adr;           /* first entry of joint i in the ABA workspace Dinv */
  hg_inertia *inertia;  /* in the body frame */
  /* derived from the above by hg_builder_compile, for the kinematic walk (which reads these) */
  hg_inertia_c *inertia_c; /* inertia[i] about the centre of mass */
  uint8_t *jnt_walk;       /* hg_joint_walk of joint i: how the kinematic walk moves it */
  int8_t *jnt_axis;        /* hg_joint_axis_index of joint i (0, 1, 2: revolute about +x, +y,
                            * +z), -1 for other joints and after a post-offset (for reports; the
                            * walk reads jnt_walk) */
  hg_joint_fold *jnt_fold;  /* hg_joint_fold_init of revolute joint i behind its offset's
                             * rotation (zeros for other joints) */
  hg_joint_limits *limits;
  char **body_name;
  char **jnt_name;
  hg_name_index body_index; /* body_name -> body number (hg_model_body), by hash */
  hg_name_index jnt_index;  /* jnt_name[1..] -> body number (hg_model_joint), by hash */

  /* per DoF */
  int *dof_body; /* the body whose joint owns the DoF */
  int *dof_parent; /* the next DoF towards the root: the one before it in its joint, else the
                    * last DoF of the nearest ancestor joint that has any; -1 at a tree's first */
  double *armature; /* the DoF's reflected rotor inertia (hg_body_spec.armature; zeros when none):
                     * added to the diagonal of the joint-space mass matrix, M + diag(armature),
                     * by every algorithm; written by the compiler only */
  int has_armature; /* 1 when some armature entry is non-zero (the passes skip the term when 0) */

  /* geometry */
  int ngeom;
  hg_geom *geom;

  /* mimic couplings (hg_builder_add_mimic): DoF mimic_follower[k] = mimic_mult[k] * DoF
   * mimic_leader[k] + mimic_offset[k], as v indices (1-DoF joints: q and v entries coincide
   * in meaning) */
  int nmimic;
  int *mimic_follower, *mimic_leader; /* joint (body) indices */
  double *mimic_mult, *mimic_offset;

  /* the body-local articulated pass's frames (body_frames.h; the pass: aba_local.h), compiled
   * by hg_builder_compile when every joint is revolute or prismatic without post-offset, except
   * root joints, which may also be free (fixed-base arms, chains and trees; floating bases such
   * as humanoids); NULL otherwise.
   * hg_aba, hg_hybrid and hg_hybrid_impulse run it when it is there, the tree-frame pass
   * (articulated.c) when not. */
  struct hg_local_model *local;
} hg_model;

void hg_model_free(hg_model *m);
/* Replaces body's inertia (about the body frame, inertia.h) in a compiled model at run time, e.g.
 * a propellant tank whose mass decreases, and everything derived from it: m->inertia,
 * m->inertia_c and the body-local pass's frames (m->local). Every later algorithm sees the new
 * inertia; an hg_data keeps no inertia between calls. When the model merged fixed links
 * (merge.h), body is the merged body and I is the merged body's total inertia about its frame.
 * Returns 0, or -1 (the model unchanged) for a body index not in [1, nbody) or a non-physical
 * inertia (mass <= 0 or not finite, rotational inertia about the centre of mass not positive
 * definite or violating the triangle inequality). */
int hg_model_set_body_inertia(hg_model *m, int body, const hg_inertia *I);
/* index of a body / joint by name, or -1 */
int hg_model_body(const hg_model *m, const char *name);
int hg_model_joint(const hg_model *m, const char *name);
/* neutral configuration (nq entries) */
void hg_model_neutral(const hg_model *m, double *q);
/* random configuration (see hg_joint_random) */
void hg_model_random(const hg_model *m, hg_rng *r, double *q);
/* qout = q (+) h dv, joint by joint (qout may alias q) */
void hg_model_integrate(const hg_model *m, const double *q, const double *dv, double h, double *qout);
/* dv = q1 (-) q0, joint by joint */
void hg_model_difference(const hg_model *m, const double *q0, const double *q1, double *dv);

/* joint modes (hybrid dynamics, conventions.md) */
typedef enum hg_mode {
  HG_MODE_FREE = 0,       /* tau given, acceleration computed */
  HG_MODE_PRESCRIBED = 1, /* acceleration given, tau computed */
  HG_MODE_LOCKED = 2      /* prescribed with zero velocity and acceleration */
} hg_mode;

/* The mutable workspace of one model; every array is allocated once by hg_data_new.
 *
 * The recursions work in each tree's spatial frame: world axes, origin at the current origin of
 * the tree's root body (the body that hangs from the world). Within one tree every quantity is
 * then in a single frame, so inertias and wrenches accumulate without transformations, and
 * positions stay small even for a spacecraft thousands of kilometres from the world origin.
 * hg_body_twist, hg_body_acceleration and hg_joint_wrench (dynamics.h) give body-frame values. */
typedef struct hg_data {
  /* kinematics */
  hg_se3 *T_rel;   /* nbody: T_{parent(i),i} */
  hg_se3 *T_world; /* nbody: T_{0,i}, pose of body i in the world */
  hg_se3 *T_tree;  /* nbody: pose of body i in its tree's spatial frame (p relative to the root) */
  hg_vec6 *S;      /* nv: motion subspace columns, tree frame */
  hg_vec6 *V;      /* nbody: spatial velocity, tree frame (Ad_T_tree of the body twist) */
  /* Galilean frames: a tree whose root joint translates (free, planar, prismatic, cylindrical
   * root) is seen from the inertial frame that moves with the root joint frame's origin, so a
   * uniform (orbital) velocity never enters a velocity product. The recursions read Vg and c. */
  double (*vt)[3]; /* nbody: at a root body, the velocity of its tree's Galilean frame (world
                    * axes; zero when the root joint does not translate); unused elsewhere */
  hg_vec6 *Vg;     /* nbody: V relative to the tree's Galilean frame, V - (0, vt[root]) */
  double *xi;      /* nv: at the DoFs of root joints, qdd = qdd_g - xi where qdd_g are the
                    * accelerations seen from the Galilean frame (hg_joint_galilean); else 0 */
  hg_vec6 *c;      /* nbody: velocity-product acceleration Sdot qdot, tree frame, from Vg */
  hg_inertia *I;   /* nbody: body inertia in the tree frame */

  /* dynamics */
  hg_vec6 *a;  /* nbody: spatial acceleration relative to the tree's Galilean frame (the real one
                * plus (0, w x vt[root])), tree frame, offset by gravity (a_0 = (0, -g)) */
  hg_vec6 *F;  /* nbody: wrench that joint i transmits from its parent to body i, tree frame;
                * written by hg_rnea (and hg_bias) only: after an articulated pass the wrench is
                * IA a + pA (hg_joint_wrench) */
  hg_sym6 *IA; /* nbody: articulated (ABA) inertia, tree frame, packed (spatial.h) */
  hg_vec6 *pA; /* nbody: articulated bias wrench, tree frame */
  hg_vec6 *U;  /* nv: IA S */
  double *Dinv;/* nD: (S^T IA S)^-1 per free joint */
  double *u;   /* nv: tau - S^T pA */

  /* the body-local pass's workspace (hg_data_new, when m->local) and which pass ran last:
   * local_pass is 1 after hg_aba, hg_hybrid or hg_hybrid_impulse ran the body-local pass (which
   * writes none of the kinematic and articulated fields above: hg_body_twist,
   * hg_body_acceleration and hg_joint_wrench then read d->local), 0 after hg_kinematics and
   * every tree-frame pass */
  struct hg_local_data *local;
  int local_pass;

  /* joint modes, per body/joint; hg_data_new sets all free */
  uint8_t *mode;

  /* the last error of an algorithm that returned non-zero */
  char err[256];
} hg_data;

hg_data *hg_data_new(const hg_model *m);
void hg_data_free(hg_data *d);

/* ---- editing a builder (topology changes) ---- */

/* Removes a body, every body below it (its subtree, by parent names) and their geometry from the
 * builder; the other bodies keep their specs. Returns 0, or -1 with err set when the body is
 * unknown or is the world. */
int hg_builder_remove_body(hg_builder *b, const char *name, hg_error *err);

#ifdef __cplusplus
}
#endif

#endif
