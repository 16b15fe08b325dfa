/* aba_local.h: the body-local articulated pass (forward, hybrid and impulsive dynamics) for models
 * of 1-DoF revolute and prismatic joints on fixed or floating (free-joint) bases.
 *
 * hg_aba (dynamics.h) works in each tree's world-aligned frame: inertias are rotated into it on
 * every call and the motion subspace S is a general 6-vector. Here every quantity of body i is
 * instead kept in its joint frame J_i (z along the joint axis, fixed in body i), where S = e_k
 * (revolute: k = 2, angular z; prismatic: k = 5, linear z), U = IA S is IA's column k and the
 * body inertia is constant (RBDA ch. 7 and 10). The pose of J_i in its parent's joint frame J_p is
 *   P_i(q) = C_i Rz(q_i)  (revolute)   or   C_i Tz(q_i)  (prismatic)   (J_0 is the world frame)
 * with C_i constant. Two ways of applying X_i = Ad_{P_i^-1} (motion J_p -> J_i; its transpose
 * takes wrenches and, as X^T M X, articulated inertias back to J_p) are compiled:
 *   factored 0: P = (R, p) as one rotation matrix and a vector;
 *   factored 1: C_i = Rz(gamma) Tz(b) Rx(alpha) Tx(a) Tz(d) Rz(theta0), the joint's motion
 *               merged into the last two (revolute: Rz(theta0 + q); prismatic: Tz(d + q)), each
 *               factor a rotation about or translation along one coordinate axis, which mixes
 *               only two rows/columns of a symmetric 6x6 (Khalil-Kleinfinger: J_p's x axis lies
 *               on the common normal to its first child's axis, so that child has gamma = b = 0).
 * A tree whose root joint is prismatic is seen from the inertial frame moving with the root's
 * joint origin, as hg_kinematics does (model.h, hg_joint_galilean): the slide's velocity is left
 * out of the root body's twist (the accelerations are the same, xi = 0 for prismatic joints).
 * A free root joint (a floating base, hg_joint_local_axis 6) has J_i = the body frame, where its
 * S is the identity (v = the body twist (w, v_lin)): P_i = offset_i T_joint(q_i), of which the
 * pass needs the rotation only (the tree is seen from the Galilean frame moving with the body's
 * origin: its twist there is (w, 0), hg_joint_galilean, and gravity is a pure linear
 * acceleration). Its 6x6 articulated inertia is factored (hg_sym6_solve) once every child has
 * been projected onto it, which gives its acceleration a_i = a_i' + qg_i right there; the real
 * qdd_i = qg_i - xi_i (xi_i = (0, w x v_lin), the transport term).
 * hg_builder_compile compiles the factored form into m->local for the models it takes (model.h);
 * hg_aba, hg_hybrid and hg_hybrid_impulse then run it on d->local (dynamics.h), and the views
 * hg_body_twist, hg_body_acceleration and hg_joint_wrench read v, a, IA and pA below. It writes
 * nothing in hg_data's tree-frame fields (no d->U, d->Dinv, d->a). The unfactored form (factored
 * 0) is there for the tests and benchmarks, as a second way to the same results.
 */
#ifndef HINGE_ABA_LOCAL_H
#define HINGE_ABA_LOCAL_H

#include <stdint.h>

#include "model.h"

/* one body's compiled constants, side by side (a step finds them from one index) */
typedef struct hg_local_link {
  hg_sym6 Isym;       /* body inertia about J_i's origin in J_i's axes, as a symmetric 6x6 (each
                       * pass starts IA_i from it) */
  hg_inertia I;       /* the same as mass, first moment and rotational inertia */
  double dh[8];       /* cos gamma, sin gamma, b, cos alpha, sin alpha, a, d, theta0 */
  double dh_turn[12]; /* alpha's then gamma's c, s, s^2, c s, cos 2t, sin 2t */
  double cs0[2];      /* cos, sin theta0 (the prismatic joint's constant turn) */
  uint8_t dh_flags;   /* which factors are not the identity (HG_LOCAL_* bits); at a floating
                       * root HG_LOCAL_GENERAL when C's rotation is not the identity */
  uint8_t prism;      /* 1 for a prismatic joint (S = e_5), 0 for a revolute one */
} hg_local_link;

/* the compiled constants (written once by hg_local_compile, read by hg_local_aba) */
typedef struct hg_local_model {
  int nbody, factored;
  const double *gravity; /* m->gravity (read at every call: callers may change it) */
  const int *parent;  /* m->parent (the model must outlive this) */
  int *v_adr;         /* m->v_adr */
  const int *q_adr;   /* m->q_adr */
  int nv;             /* m->nv */
  const hg_joint *jnt;/* m->jnt */
  uint8_t *floating;  /* nbody: 1 for a free root joint (J_i = body frame, S = the identity) */
  int nfloating;      /* how many */
  int *floating_list; /* nfloating + 2: 0, those bodies in index order, nbody (the bounds of the
                       * index ranges between them, which the sweeps run over) */
  int *order;         /* nbody: the sweeps' order of the bodies between floating_list's entries:
                       * each such index range breadth-first (by depth, index order within one),
                       * so that consecutive steps are mostly on different branches, which the
                       * CPU overlaps; a chain keeps index order. order[fl] = fl for each entry */
  uint8_t *chain;     /* nfloating + 1: 1 when range f of floating_list is a chain (each body in
                       * order after the first is the child of the one before); the acceleration
                       * sweep then takes qdd off the wait on the parent (accel_step) */
  int galilean;       /* 1 when some root is floating (its tree is seen from a moving frame) */
  hg_se3 *C;          /* nbody: pose of J_i in J_p at q = 0 */
  hg_local_link *link; /* nbody: each body's hg_local_link */
  hg_se3 *T_JB;       /* nbody: body frame in J_i (moves fext into J_i) */
} hg_local_model;

/* HG_LOCAL_GENERAL: b and d too long to be exact (nearly parallel axes): the factored variant
 * applies this joint as (R, p) */
enum { HG_LOCAL_GAMMA = 1, HG_LOCAL_B = 2, HG_LOCAL_ALPHA = 4, HG_LOCAL_A = 8, HG_LOCAL_D = 16,
       HG_LOCAL_GENERAL = 32 };
/* the shapes (dh_flags) whose chains the factored pass compiles (in optimized builds) as copies
 * without flag tests, each keeping its factors' entries in registers from one factor to the
 * next: a first child's every shape (any of alpha, a and d: the joint origins of URDF arms and
 * legs, which turn by 90 degrees and slide along one axis) and a later child's usual two (a
 * floating root's legs, a tree's branches: gamma with alpha, a and d, and with b too). Any other
 * shape tests its flags at each factor. X is applied to each. */
#define HG_LOCAL_SHAPES(X)                                                                         \
  X(0) X(HG_LOCAL_ALPHA) X(HG_LOCAL_A) X(HG_LOCAL_D) X(HG_LOCAL_ALPHA | HG_LOCAL_A)                \
  X(HG_LOCAL_ALPHA | HG_LOCAL_D) X(HG_LOCAL_A | HG_LOCAL_D)                                        \
  X(HG_LOCAL_ALPHA | HG_LOCAL_A | HG_LOCAL_D)                                                      \
  X(HG_LOCAL_GAMMA | HG_LOCAL_ALPHA | HG_LOCAL_A | HG_LOCAL_D)                                     \
  X(HG_LOCAL_GAMMA | HG_LOCAL_B | HG_LOCAL_ALPHA | HG_LOCAL_A | HG_LOCAL_D)

/* one body's part of the workspace, in J_i: what the three sweeps write and read at body i,
 * side by side (a step finds it from one index) */
typedef struct hg_local_body {
  double IA[21];   /* articulated inertia (packed symmetric, hg_sym6_index) */
  double pA[6];    /* articulated bias wrench */
  double v[6];     /* spatial velocity */
  double a[6];     /* spatial acceleration, gravity offset (a_0 = (0, -g)); in a floating root's
                    * tree relative to its Galilean frame (the real one plus (0, w x u)) */
  double c[4];     /* v x (S qd): entries 0, 1, 3, 4 (the others are zero; prismatic: 0, 1 too) */
  double cs[2];    /* factored: cos, sin of the last turn (revolute theta0 + q, prismatic theta0) */
  double dz;       /* factored: the last slide (revolute d, prismatic d + q) */
  double Dinv, u;  /* free joints: 1 / IA_kk, tau - pA_k (not at floating roots) */
} hg_local_body;

/* the workspace of one hg_local_model (every array nbody long; each in J_i) */
typedef struct hg_local_data {
  hg_local_body *b; /* each body's terms above */
  hg_se3 *P;        /* not factored (or HG_LOCAL_GENERAL): the pose P of J_i in J_p (revolute
                     * (R_C Rz(q), p_C), prismatic (R_C, p_C + q R_C e_z)); a floating root's
                     * rotation R_offset R(quaternion), either form */
  double (*vt)[3];  /* at a floating root: the velocity u of its tree's Galilean frame, body axes
                     * (v_lin; zero after the impulsive form); zero elsewhere. v and a are seen
                     * from that frame: v relative to it, the real twist v + (0, u) */
  hg_vec6 *xi;      /* at a floating root: its transport term (hg_joint_galilean; zero in the
                     * impulsive form), qdd = qg - xi */
} hg_local_data;

/* The local model of m, or NULL with err set when some joint is neither revolute nor prismatic
 * nor a free root joint, or has a post-offset (other joint types: use the tree-frame pass). */
hg_local_model *hg_local_compile(const hg_model *m, int factored, hg_error *err);
void hg_local_model_free(hg_local_model *lm);
hg_local_data *hg_local_data_new(const hg_local_model *lm);
void hg_local_data_free(hg_local_data *ld);

/* qdd = M^-1 (tau - b), as hg_aba, fext as hg_aba's (body frames, about body origins; or NULL).
 * Returns 0, or -1 when an articulated inertia is singular or a result is not finite. */
int hg_local_aba(const hg_local_model *lm, hg_local_data *ld, const double *q, const double *v,
                 const double *tau, const double *fext, double *qdd);

/* Hybrid dynamics as hg_hybrid with the joint modes in mode (nbody entries, hg_mode, as d->mode):
 * on entry qdd holds the accelerations of prescribed joints (locked ones are set to zero) and tau
 * the forces of free joints; on return both are complete. Returns as hg_local_aba. */
int hg_local_hybrid(const hg_local_model *lm, hg_local_data *ld, const uint8_t *mode,
                    const double *q, const double *v, double *qdd, double *tau,
                    const double *fext);

/* The impulsive form as hg_hybrid_impulse: no velocities, gravity or external wrenches; on entry
 * dv holds the velocity jumps of prescribed and locked joints (locked too: as given) and imp the
 * impulses of free joints; on return both are complete. */
int hg_local_hybrid_impulse(const hg_local_model *lm, hg_local_data *ld, const uint8_t *mode,
                            const double *q, double *dv, double *imp);

/* u = the velocity of body i's tree's Galilean frame (ld->vt at its root) in J_i's axes, after a
 * pass (zero in a tree whose root is not floating): the real twist of body i is ld->b[i].v +
 * (0, u), its real acceleration ld->b[i].a - (0, w_i x u) (hg_body_twist, hg_body_acceleration) */
void hg_local_galilean(const hg_local_model *lm, const hg_local_data *ld, int i, double u[3]);

#endif
