/* body_frames.h: the body-local frames of a model of 1-DoF revolute and prismatic joints and fixed
 * joints on fixed or floating (free-joint) bases, compiled once (hg_local_compile) for the
 * body-local articulated pass (aba_local.h): each body's joint frame J_i, its constants there,
 * its kind, and the pass's workspace. A body on a fixed joint is no step of the pass: its
 * inertia is folded into its carrier's (the nearest ancestor on a moving joint), as
 * hg_model_merge_fixed merges it, so the sweeps step over the bodies of the merged model.
 *
 * Every quantity of body i is kept in its joint frame J_i (z along the joint axis, fixed in body
 * i), where the motion subspace is S = e_k (revolute: k = 2, angular z; prismatic: k = 5, linear
 * z) and the body inertia is constant (Featherstone, Rigid Body Dynamics Algorithms, ch. 7 and
 * 10). The pose of J_i in its parent's joint frame J_p is
 *   P_i(q) = C_i Rz(q_i)  (revolute)   or   C_i Tz(q_i)  (prismatic)   (J_0 is the world frame)
 * with C_i constant, factored as in Khalil and Kleinfinger, "A new geometric notation for open
 * and closed-loop robots":
 *   C_i = Rz(gamma) Tz(b) Rx(alpha) Tx(a) Tz(d) Rz(theta0),
 * J_p's x axis on the common normal to its first child's axis, so that child has gamma = b = 0.
 * The joint's motion merges into the last two factors (revolute: Rz(theta0 + q); prismatic:
 * Tz(d + q)); each factor turns about or slides along one coordinate axis, which mixes only two
 * rows and columns of a symmetric 6x6. Nearly parallel axes give long b and d that cancel; such
 * a joint keeps C_i as one rotation and one vector, (R, p), and so does a joint whose factors
 * rebuild C_i only to more than 1e-14 (axes within 1e-12 rad of parallel).
 * A free root joint (a floating base) has J_i = the body frame, where its S is the identity.
 *
 * Each body gets one kind when the model is compiled (hg_local_link.kind): its axis (revolute or
 * prismatic) and the factors its transform applies, or the (R, p) form, or the floating root.
 * HG_LOCAL_KINDS lists the kinds of the swept bodies (all but floating roots); the pass compiles
 * one copy of each sweep's step per kind, with the axis and factors as constants. */
#ifndef HINGE_BODY_FRAMES_H
#define HINGE_BODY_FRAMES_H

#include <stddef.h>
#include <stdint.h>

#include "model.h"

/* the factors of C_i other than Rz(theta0) (always applied), as bits of a kind's shape;
 * HG_LOCAL_RP: no factors, C_i as (R, p); HG_LOCAL_ANY: the joint's own factors
 * (hg_local_link.factors), each tested where it applies */
enum { HG_LOCAL_GAMMA = 1, HG_LOCAL_B = 2, HG_LOCAL_ALPHA = 4, HG_LOCAL_A = 8, HG_LOCAL_D = 16,
       HG_LOCAL_RP = 32, HG_LOCAL_ANY = 64 };

/* X(kind, k, shape): the kinds of a swept body, S = e_k and the factors of shape. A first
 * child's every shape (any of alpha, a and d: the joint origins of URDF arms and legs, which turn
 * by 90 degrees and slide along one axis), a later child's usual two (a floating root's legs, a
 * tree's branches: gamma with alpha, a and d, and with b too), the same with a prismatic joint
 * (whose slide is always a factor, d + q), any other shape of either axis (its factors tested
 * one by one) and the (R, p) form of either axis. */
#define HG_LOCAL_KINDS(X)                                                                          \
  X(HG_KIND_REV, 2, 0)                                                                             \
  X(HG_KIND_REV_ALPHA, 2, HG_LOCAL_ALPHA)                                                          \
  X(HG_KIND_REV_A, 2, HG_LOCAL_A)                                                                  \
  X(HG_KIND_REV_D, 2, HG_LOCAL_D)                                                                  \
  X(HG_KIND_REV_ALPHA_A, 2, HG_LOCAL_ALPHA | HG_LOCAL_A)                                           \
  X(HG_KIND_REV_ALPHA_D, 2, HG_LOCAL_ALPHA | HG_LOCAL_D)                                           \
  X(HG_KIND_REV_A_D, 2, HG_LOCAL_A | HG_LOCAL_D)                                                   \
  X(HG_KIND_REV_ALPHA_A_D, 2, HG_LOCAL_ALPHA | HG_LOCAL_A | HG_LOCAL_D)                            \
  X(HG_KIND_REV_GAMMA_ALPHA_A_D, 2, HG_LOCAL_GAMMA | HG_LOCAL_ALPHA | HG_LOCAL_A | HG_LOCAL_D)     \
  X(HG_KIND_REV_ALL, 2, HG_LOCAL_GAMMA | HG_LOCAL_B | HG_LOCAL_ALPHA | HG_LOCAL_A | HG_LOCAL_D)   \
  X(HG_KIND_PRI_D, 5, HG_LOCAL_D)                                                                  \
  X(HG_KIND_PRI_ALPHA_D, 5, HG_LOCAL_ALPHA | HG_LOCAL_D)                                           \
  X(HG_KIND_PRI_A_D, 5, HG_LOCAL_A | HG_LOCAL_D)                                                   \
  X(HG_KIND_PRI_ALPHA_A_D, 5, HG_LOCAL_ALPHA | HG_LOCAL_A | HG_LOCAL_D)                            \
  X(HG_KIND_PRI_GAMMA_ALPHA_A_D, 5, HG_LOCAL_GAMMA | HG_LOCAL_ALPHA | HG_LOCAL_A | HG_LOCAL_D)     \
  X(HG_KIND_PRI_ALL, 5, HG_LOCAL_GAMMA | HG_LOCAL_B | HG_LOCAL_ALPHA | HG_LOCAL_A | HG_LOCAL_D)   \
  X(HG_KIND_REV_OTHER, 2, HG_LOCAL_ANY)                                                            \
  X(HG_KIND_PRI_OTHER, 5, HG_LOCAL_ANY)                                                            \
  X(HG_KIND_REV_RP, 2, HG_LOCAL_RP)                                                                \
  X(HG_KIND_PRI_RP, 5, HG_LOCAL_RP)

/* the kinds: those of HG_LOCAL_KINDS in order, then a floating root's two (its offset's rotation
 * the identity or not) */
enum {
#define HG_KIND_ENUM(kind, k, shape) kind,
  HG_LOCAL_KINDS(HG_KIND_ENUM)
#undef HG_KIND_ENUM
  HG_KIND_FLOATING,
  HG_KIND_FLOATING_TURNED,
  HG_KIND_COUNT
};

/* one body's compiled constants, side by side (a step finds them from one index) */
typedef struct hg_local_link {
  hg_sym6 Isym;       /* body inertia about J_i's origin in J_i's axes, as a symmetric 6x6 (each
                       * pass starts IA_i from it) */
  hg_inertia I;       /* the same as mass, first moment and rotational inertia */
  double dh[8];       /* cos gamma, sin gamma, b, cos alpha, sin alpha, a, d, theta0 */
  double dh_turn[12]; /* alpha's then gamma's c, s, s^2, c s, cos 2t, sin 2t */
  double cs0[2];      /* cos, sin theta0 (a prismatic joint's constant turn; a revolute joint's
                       * turn Rz(theta0) Rz(q) at large angles, aba_local.c) */
  uint8_t kind;       /* HG_KIND_* */
  uint8_t factors;    /* the factors that are not the identity (HG_LOCAL_* bits: the kind's shape,
                       * or any for HG_KIND_*_OTHER; HG_LOCAL_RP when the joint goes as (R, p));
                       * 0 at floating roots */
} hg_local_link;

/* one swept body's step of the tree-frame RNEA on a model with fixed joints (rnea.c), in the
 * order of hg_local_model.swept */
typedef struct hg_local_step {
  /* byte offsets into d's arrays, so a step adds them to its arrays' bases (body times
   * sizeof(hg_vec6), parent times sizeof(hg_vec6), body times sizeof(hg_inertia), v_adr times
   * sizeof(hg_vec6)) */
  ptrdiff_t o_vec, o_parent, o_inertia, o_S;
  int body, parent; /* the body, its parent's carrier (0: the world) */
  int v_adr, nv;    /* m->v_adr, m->jnt_nv of the body */
  int root;         /* 1 when m->parent is 0 (a root: its DoFs carry xi) */
  int follows;      /* 1 when parent is the step before's body (a chain: its terms stay in
                     * registers) */
} hg_local_step;

/* the compiled constants (written once by hg_local_compile, read by the pass) */
typedef struct hg_local_model {
  int nbody;
  const double *gravity; /* m->gravity (read at every call: callers may change it) */
  int *parent;        /* nbody: the carrier of m->parent[i] (below; m->parent[i] itself on a
                       * model without fixed joints) */
  const int *mparent; /* m->parent (the model must outlive this) */
  int *carrier;       /* nbody: the swept body whose J frame carries body i: i itself for a body
                       * on a moving or free joint (a swept body), the carrier of its parent for
                       * a body on a fixed joint (0: fixed to the world) */
  int nfixed;         /* bodies on fixed joints: not swept; each one's inertia is folded into its
                       * carrier's (link[c].I, Isym), its frame a constant pose there (T_JB) */
  int *fixed_list;    /* nfixed: those bodies in index order */
  hg_se3 *T_CB;       /* nbody: at a fixed body, its frame in its carrier's body frame (the
                       * world's when the carrier is 0; moves its fext onto the carrier) */
  hg_inertia *Isub;   /* nbody: at a fixed body, the inertia of it and the bodies fixed below it,
                       * about J_c's origin in J_c's axes (hg_local_fixed_wrench) */
  int nswept;         /* 1 + the swept bodies: the positions of order */
  int *v_adr;         /* m->v_adr */
  const int *q_adr;   /* m->q_adr */
  int nv;             /* m->nv */
  const hg_joint *jnt;/* m->jnt */
  uint8_t *floating;  /* nbody: 1 for a free root joint (J_i = body frame, S = the identity) */
  int nfloating;      /* how many */
  int *floating_list; /* nfloating + 2: 0, the positions in order of those bodies (index order),
                       * nswept (the bounds of the ranges between them, which the sweeps run
                       * over); floating root f is body order[floating_list[f]] */
  int *order;         /* nswept: the world (0), then the swept bodies (fixed ones are not), in
                       * index order but each range between floating_list's entries
                       * breadth-first (by depth, index order within one), so that consecutive
                       * steps are mostly on different branches, which the CPU overlaps; a chain
                       * keeps index order. Without fixed joints, position = body index at each
                       * floating root */
  uint8_t *chain;     /* nfloating + 1: 1 when range f of floating_list is a chain (each body in
                       * order after the first is the child of the one before); the acceleration
                       * sweep then takes qdd off the wait on the parent (accel_step) */
  int galilean;       /* 1 when some root is floating (its tree is seen from a moving frame) */
  hg_se3 *C;          /* nbody: pose of J_i in J_p at q = 0 (p = parent[i], the carrier) */
  hg_local_link *link; /* nbody: each body's hg_local_link */
  hg_se3 *T_JB;       /* nbody: body frame in J_i (moves fext into J_i); at a fixed body, its
                       * frame in its carrier's J_c (the world's when the carrier is 0) */
  int *swept;         /* nswept - 1: the swept bodies in index order (the tree-frame RNEA and CRBA
                       * step over these on a model with fixed joints: hg_kinematics_carried) */
  hg_local_step *steps; /* nswept - 1: what the tree-frame RNEA reads of each, side by side */
  int nhung;          /* swept bodies whose parent is a fixed body */
  int *hung;          /* nhung: those bodies in index order (their joint wrenches reach their
                       * fixed parents' d->F, rnea.c) */
  uint8_t *massless;  /* nbody: 1 when m->inertia[i] is zero (a URDF flange or tool0 frame) */
  uint8_t *fixed_inner; /* nbody: 1 at a body fixed to a moving carrier that a swept body hangs
                       * from, directly or through other fixed bodies (hg_kinematics_carried
                       * poses it: the swept body's pose is made from it) */
  int *tree_order;    /* nswept - 1: the swept bodies by their depth in the tree of carriers
                       * (parent above), deepest first, each depth in decreasing index: the
                       * backward order of the tree-frame articulated pass on a model with fixed
                       * joints, reversed its forward one (articulated.c) */
  int *sweep_end;     /* nbody: at a swept body, one past the last swept body of its subtree (the
                       * tree of carriers' subtree_end: the pass's tests for a leaf and for the
                       * child that reaches its parent first) */
  int *carried_adr;   /* nbody + 1: the bodies fixed to swept body c (0: to the world) are
                       * carried[carried_adr[c]] .. carried[carried_adr[c + 1] - 1], index order */
  int *carried;       /* nfixed */
  int generation;     /* counts the calls of hg_local_set_inertia (the workspaces' constants
                       * of the walk, hg_local_data.tree_const, are then written again) */
  hg_inertia_c *Ic_fold; /* nbody: at a swept body, its inertia with those of the bodies fixed to
                       * it folded in (as link[i].I), about the centre of mass in body i's
                       * axes: m->inertia_c[i] itself when nothing is fixed to it */
  const double *armature; /* m->armature (per DoF, added to D = IA_kk of the DoF's joint) */
  int has_armature;       /* m->has_armature: 0 keeps every step in its armature-free form */
} hg_local_model;

/* one body's part of the workspace, in J_i: what the three sweeps write and read at body i,
 * side by side (a step finds it from one index) */
typedef struct hg_local_body {
  double IA[21];   /* articulated inertia (packed symmetric, hg_sym6_index) */
  double pA[6];    /* articulated bias wrench */
  double v[6];     /* spatial velocity */
  double a[6];     /* spatial acceleration, gravity offset (a_0 = (0, -g)); in a floating root's
                    * tree relative to its Galilean frame (the real one plus (0, w x u)) */
  double c[4];     /* v x (S qd): entries 0, 1, 3, 4 (the others are zero; prismatic: 0, 1 too) */
  double cs[2];    /* factored kinds: cos, sin of the last turn (revolute theta0 + q, prismatic
                    * theta0) */
  double dz;       /* factored kinds: the last slide (revolute d, prismatic d + q) */
  double Dinv, u;  /* free joints: 1 / IA_kk, tau - pA_k (not at floating roots) */
} hg_local_body;

/* the workspace of one hg_local_model (every array nbody long; each in J_i) */
typedef struct hg_local_data {
  hg_local_body *b; /* each body's terms above */
  hg_se3 *P;        /* the (R, p) kinds: the pose P of J_i in J_p (revolute (R_C Rz(q), p_C),
                     * prismatic (R_C, p_C + q R_C e_z)); a floating root's rotation R_offset
                     * R(quaternion) */
  double (*vt)[3];  /* at a floating root: the velocity u of its tree's Galilean frame, body axes
                     * (v_lin; zero after the impulsive form); zero elsewhere. v and a are seen
                     * from that frame: v relative to it, the real twist v + (0, u) */
  hg_vec6 *xi;      /* at a floating root: its transport term (hg_joint_galilean; zero in the
                     * impulsive form), qdd = qg - xi */
  double (*fext)[6];  /* models with fixed joints: the pass's fext with each fixed body's moved
                       * onto its carrier (body frames) */
  double (*ffix)[6];  /* at a fixed body: its own fext in J_c, as the last pass read it
                       * (hg_local_fixed_wrench) */
  int ffix_set;       /* models with fixed joints: 1 when the last pass read an fext (ffix
                       * holds it) */
  int impulsive;      /* models with fixed joints: 1 when the last pass was the impulsive form
                       * (no v, gravity or fext) */
  int tree_carried;   /* 1 when the last tree-frame walk was hg_kinematics_carried (hg_crba),
                       * 2 once hg_rnea's sweeps followed it (hg_rnea_fixed_bodies may then fill
                       * the fixed bodies in), 0 after hg_kinematics */
  int walk_swept;     /* 1 after hg_kinematics' walk over the swept bodies (in the tree frame),
                       * 0 after the walk over every body: the tree-frame articulated pass that
                       * follows steps over the bodies of its kind (articulated.c) */
  int pass_swept;     /* 1 when the last tree-frame articulated pass stepped over the swept
                       * bodies only: a fixed body's d->IA is then not written, its d->pA holds
                       * its own -fext (tree frame; zero when the pass had none) and
                       * hg_joint_wrench forms its fixed joint's wrench on demand */
  int tree_const;     /* generation + 1 of the model once d holds the constants
                       * hg_kinematics_carried writes once: every fixed body's T_rel and, of
                       * those fixed to the world, T_tree, T_world and d->I; 0 before */
} hg_local_data;

/* The local model of m, or NULL with err set when some joint is neither revolute nor prismatic
 * nor fixed nor a free root joint, or is a moving joint with a post-offset (other joint types:
 * use the tree-frame pass). Bodies on fixed joints are not swept: each is carried rigidly by its
 * nearest ancestor on a moving joint (or by the world), its inertia folded into that carrier's
 * and its frame a constant pose in the carrier's J_c, as hg_model_merge_fixed merges them; the
 * views read them from their carrier (hg_local_fixed_wrench). */
hg_local_model *hg_local_compile(const hg_model *m, hg_error *err);
void hg_local_model_free(hg_local_model *lm);
/* recomputes the inertia constants that body i's inertia enters (link[c].I and Isym of its
 * carrier c, in J_c, with every body fixed to c folded in; the Isub of c's fixed bodies) from
 * m->inertia (hg_model_set_body_inertia) */
void hg_local_set_inertia(hg_local_model *lm, const hg_model *m, int i);
hg_local_data *hg_local_data_new(const hg_local_model *lm);
void hg_local_data_free(hg_local_data *ld);

/* The tree-frame walk of hg_kinematics (kinematics.c) over the swept bodies of a model with
 * m->local: each swept body i gets every field hg_kinematics writes, but its inertia d->I[i] is
 * the folded Ic_fold[i] (so the recursions of hg_rnea and hg_crba step over the swept bodies
 * only, as on the merged model). The bodies on fixed joints get every field at the first call
 * (which writes the constants: tree_const) and after an inertia changes; later calls pose those
 * fixed to a moving carrier only where a swept body hangs from them (fixed_inner) and leave the
 * others as they were (hg_kinematics_fixed poses them). hg_kinematics runs the same walk over the
 * swept bodies on such a model (without folding, and with every fixed body filled in). */
void hg_kinematics_carried(const hg_model *m, hg_data *d, const double *q, const double *v);
/* after hg_kinematics_carried: the pose (d->T_tree, d->T_world) of each body fixed to a moving
 * carrier that the walk left (not fixed_inner), one product from its parent's, and with inertia
 * set the d->I of every body fixed to a moving carrier that has a mass */
void hg_kinematics_fixed(const hg_model *m, hg_data *d, int inertia);

#endif
