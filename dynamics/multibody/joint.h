/* joint.h: the one joint module of hinge.
 *
 * A joint moves its child frame relative to a joint frame fixed in the parent:
 *   T_{parent,child}(q) = T_offset * T_joint(q).
 * Every function here works in the joint's own terms: T_joint(q) is the child frame seen from the
 * joint frame, and the motion subspace S(q) (6 x nv) and the bias S'(q, v) v map joint velocities to
 * the relative twist of the child, expressed in the child frame (conventions.md).
 *
 *   type         nq nv  q                          v                        group
 *   fixed         0  0  -                          -                        -
 *   revolute      1  1  angle about axis           rate                     R
 *   prismatic     1  1  slide along axis           rate                     R
 *   helical       1  1  angle; slides pitch*angle  rate                     R
 *   cylindrical   2  2  angle, slide (same axis)   rates                    R^2
 *   universal     2  2  angle about axis, then     rates                    R^2
 *                       angle about axis2 (moved)
 *   planar        3  3  x, y in the plane normal   rates                    R^3
 *                       to axis, then angle about it
 *   spherical     4  3  quaternion (w, x, y, z)    body angular velocity    SO(3)
 *   free          7  6  position, quaternion       body twist (w, v)        SE(3)
 *
 * Configurations advance on their group: q (+) d = q * exp(d), and q1 (-) q0 = log(q0^-1 q1). */
#ifndef HINGE_JOINT_H
#define HINGE_JOINT_H

#include <math.h>
#include <stdint.h>

#include "spatial.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum hg_joint_type {
  HG_JOINT_FIXED = 0,
  HG_JOINT_REVOLUTE,
  HG_JOINT_PRISMATIC,
  HG_JOINT_HELICAL,
  HG_JOINT_CYLINDRICAL,
  HG_JOINT_UNIVERSAL,
  HG_JOINT_PLANAR,
  HG_JOINT_SPHERICAL,
  HG_JOINT_FREE,
  HG_JOINT_NTYPES
} hg_joint_type;

/* the largest nq and nv of any joint */
#define HG_JOINT_MAXNQ 7
#define HG_JOINT_MAXNV 6

/* A joint's constant parameters (in the joint frame). */
typedef struct hg_joint {
  hg_joint_type type;
  double axis[3];  /* unit axis: rotation/slide axis, planar normal (default z) */
  double axis2[3]; /* universal: second unit axis, orthogonal to axis; planar: in-plane x axis */
  double pitch;    /* helical: metres of slide per radian */
} hg_joint;

/* Fills in unit axes (normalized) and the derived in-plane axis of a planar joint; returns 0, or
 * -1 with a reason when an axis is zero, not finite, or (universal) parallel to the first. */
int hg_joint_init(hg_joint *j, hg_joint_type type, const double axis[3], const double axis2[3],
                  double pitch, const char **why);

int hg_joint_nq(hg_joint_type type);
int hg_joint_nv(hg_joint_type type);
const char *hg_joint_type_name(hg_joint_type type);
/* type from its name ("revolute", ...); -1 when unknown */
int hg_joint_type_from_name(const char *name);

/* k = 0, 1, 2 when the joint is revolute about +x, +y or +z (T_joint(q) = Rot(e_k, q),
 * S = (e_k, 0)); -1 for every other joint. */
int hg_joint_axis_index(const hg_joint *j);

/* The joint's body-local form (body_frames.h), decided once when a model is compiled: in a joint
 * frame with z on the joint's axis its motion subspace is S = e_k, k = 2 (a turn about z) for a
 * revolute joint and k = 5 (a slide along z) for a prismatic one; 6 for a free joint, whose S is
 * the identity in its child's (body) frame (v is the body twist, hg_joint_motion); -1 for every
 * other joint (no such form: the model keeps the tree-frame pass). */
int hg_joint_local_axis(const hg_joint *j);

/* How the kinematic walk moves a joint, its specialization decided once when a model is
 * compiled (hg_joint_walk), as Pinocchio's revolute X/Y/Z versus unaligned joints:
 *   HG_WALK_GENERAL     hg_joint_transform and hg_joint_motion (any joint; every joint with a
 *                       post-offset)
 *   HG_WALK_X, _Y, _Z   revolute about +x, +y, +z of an origin without rotation: the turn mixes
 *                       two columns of the parent's rotation
 *   HG_WALK_XR, _YR, _ZR  the same behind a rotated origin (walked as HG_WALK_FOLD, which is
 *                       cheaper on the lanes; the kind stays for reports)
 *   HG_WALK_FOLD        revolute about any axis behind any origin (hg_joint_fold)
 *   HG_WALK_PRISMATIC   prismatic along any axis behind any origin (hg_joint_walk_prismatic)
 *   HG_WALK_SPHERICAL   spherical behind any origin (hg_joint_walk_ball)
 *   HG_WALK_FREE        free behind any origin, a tree's root or not (hg_joint_walk_ball) */
enum {
  HG_WALK_GENERAL = 0,
  HG_WALK_X, HG_WALK_Y, HG_WALK_Z,
  HG_WALK_XR, HG_WALK_YR, HG_WALK_ZR,
  HG_WALK_FOLD,
  HG_WALK_PRISMATIC,
  HG_WALK_SPHERICAL,
  HG_WALK_FREE
};
/* the walk of joint j behind an origin with rotation Ro, with or without a post-offset */
int hg_joint_walk(const hg_joint *j, const double Ro[9], int has_post);

/* A revolute joint behind a constant origin rotation R_o, folded once when a model is compiled:
 * R_o Rot(axis, q) = C0 + cos q C1 + sin q C2 (Rodrigues' formula Rot(a, q) = a a^T +
 * cos q (1 - a a^T) + sin q a^, each term multiplied by R_o), so the kinematic walk turns a
 * general axis behind any origin without a rotation and a matrix product. Row r of term t is
 * C[t][r][0..2]; lane 3 of C0's rows holds the axis in the parent frame, R_o a (Rot(a, q) a = a),
 * of C1's and C2's zero, so that the rows times R_tree,p give R_tree,i a beside R_tree,i
 * (lanes.h's hg_lane3_fold_turn, which the walk of HG_WALK_FOLD runs: kinematics.c). */
typedef struct hg_joint_fold {
  double C[3][3][4];
} hg_joint_fold;

/* f for revolute joint j behind the origin rotation Ro (zeros for other joint types) */
void hg_joint_fold_init(const hg_joint *j, const double Ro[9], hg_joint_fold *f);

/* ---- the kinematic walk of one joint (hg_kinematics dispatches on hg_joint_walk) ----
 *
 * Each walk below writes, for a joint without a post-offset behind the constant origin off
 * (pure: off has no rotation) under a parent at Tp (its tree frame pose):
 *   Tr = T_{p,i} = off T_joint(q),
 *   Tt = T_tree,i = Tp Tr, except at a root (on the world: Tp the identity), whose tree frame has
 *        its origin at the body: Tt = (R_rel, 0),
 *   S  = the nv motion-subspace columns in the tree frame, Ad_{Tt} of the joint's own S (child
 *        frame), S[6c .. 6c + 5] column c.
 * The constant flags (k, pure, root, trans) let the compiler fold each inlined case. */

/* The origin part of a walk behind the constant origin off: Tr->p = o, Tt->p = p_p + R_p o
 * (zero at a root) */
HG_INLINE void hg_joint_walk_origin(int root, const hg_se3 *off, const hg_se3 *Tp, hg_se3 *Tr,
                                    hg_se3 *Tt) {
  double Ro[3];
  const double *o = off->p;
  Tr->p[0] = o[0], Tr->p[1] = o[1], Tr->p[2] = o[2];
  hg_m3_mulv(Tp->R, o, Ro);
  for (int r = 0; r < 3; r++) Tt->p[r] = Tp->p[r] + Ro[r];
  if (root) Tt->p[0] = Tt->p[1] = Tt->p[2] = 0;
}

/* A revolute joint about coordinate axis k behind an origin without rotation (HG_WALK_X, _Y,
 * _Z): T_joint = (Rot(e_k, q), 0), S = (w, p x w) with w = R_tree,i e_k (column k) and p the
 * body's origin; the turn only mixes two columns of R_tree,p. A revolute joint about any other
 * axis, or behind a rotated origin, is folded with its origin (hg_joint_fold) and walked on the
 * lanes (kinematics.c). */
HG_INLINE void hg_joint_walk_revolute(int k, int root, double q, const hg_se3 *off,
                                      const hg_se3 *Tp, hg_se3 *Tr, hg_se3 *Tt, double S[6]) {
  double c, s;
  hg_sincos(q, &s, &c);
  hg_joint_walk_origin(root, off, Tp, Tr, Tt);
  hg_m3_axis_rotation(k, c, s, Tr->R);
  hg_m3_mul_axis_rotation(Tp->R, k, c, s, Tt->R);
  S[0] = Tt->R[k], S[1] = Tt->R[3 + k], S[2] = Tt->R[6 + k];
  hg_v3_cross(Tt->p, S, S + 3);
}

/* A prismatic joint: T_joint = (1, axis q), so Tr = (R_o, o + q R_o axis) and S = (0, u) with
 * u = R_tree,i axis (the rotation does not depend on q). */
HG_INLINE void hg_joint_walk_prismatic(int pure, int root, double q, const hg_se3 *off,
                                       const double axis[3], const hg_se3 *Tp, hg_se3 *Tr,
                                       hg_se3 *Tt, double S[6]) {
  double a[3];
  /* the slide direction in the parent frame, and T_{p,i} */
  if (pure) {
    a[0] = axis[0], a[1] = axis[1], a[2] = axis[2];
    for (int r = 0; r < 9; r++) Tr->R[r] = r % 4 == 0;
  } else {
    hg_m3_mulv(off->R, axis, a);
    for (int r = 0; r < 9; r++) Tr->R[r] = off->R[r];
  }
  for (int r = 0; r < 3; r++) Tr->p[r] = off->p[r] + q * a[r];
  /* T_tree,i, and the slide direction in the tree frame */
  if (root) {
    for (int r = 0; r < 9; r++) Tt->R[r] = Tr->R[r];
    Tt->p[0] = Tt->p[1] = Tt->p[2] = 0;
    S[3] = a[0], S[4] = a[1], S[5] = a[2];
  } else {
    double x[3];
    hg_m3_mulv(Tp->R, Tr->p, x);
    for (int r = 0; r < 3; r++) Tt->p[r] = Tp->p[r] + x[r];
    if (pure) for (int r = 0; r < 9; r++) Tt->R[r] = Tp->R[r];
    else hg_m3_mul(Tp->R, Tr->R, Tt->R);
    hg_m3_mulv(Tp->R, a, S + 3);
  }
  S[0] = S[1] = S[2] = 0;
}

/* A spherical joint (trans = 0: T_joint = (R(quaternion q), 0), S = (1, 0) in the child frame)
 * or a free joint (trans = 1: T_joint = (R(q[3..6]), q[0..2]), S = 1): the columns of R_tree,i,
 * r_k, give S = (r_k, p x r_k) for each rotation rate and (0, r_k) for each body-frame linear
 * rate, p the body's origin in the tree frame (zero at a root). */
HG_INLINE void hg_joint_walk_ball(int trans, int pure, int root, const double *q,
                                  const hg_se3 *off, const hg_se3 *Tp, hg_se3 *Tr, hg_se3 *Tt,
                                  double *S) {
  /* T_{p,i} = (R_o R(quat), o + R_o p_joint) */
  if (pure) {
    hg_quat_to_R(q + 3 * trans, Tr->R);
    for (int r = 0; r < 3; r++) Tr->p[r] = off->p[r] + (trans ? q[r] : 0);
  } else {
    double Rj[9], x[3];
    hg_quat_to_R(q + 3 * trans, Rj);
    hg_m3_mul(off->R, Rj, Tr->R);
    if (trans) hg_m3_mulv(off->R, q, x);
    for (int r = 0; r < 3; r++) Tr->p[r] = off->p[r] + (trans ? x[r] : 0);
  }
  /* T_tree,i */
  if (root) {
    for (int r = 0; r < 9; r++) Tt->R[r] = Tr->R[r];
    Tt->p[0] = Tt->p[1] = Tt->p[2] = 0;
  } else {
    hg_se3_mul(Tp, Tr, Tt);
  }
  /* S: columns 0-2 for the rotation rates about the body's axes, 3-5 (free) for its linear rates */
  for (int k = 0; k < 3; k++) {
    double *Sw = S + 6 * k;
    Sw[0] = Tt->R[k], Sw[1] = Tt->R[3 + k], Sw[2] = Tt->R[6 + k];
    if (root) Sw[3] = Sw[4] = Sw[5] = 0;
    else hg_v3_cross(Tt->p, Sw, Sw + 3);
    if (trans) {
      double *Sv = S + 6 * (3 + k);
      Sv[0] = Sv[1] = Sv[2] = 0, Sv[3] = Sw[0], Sv[4] = Sw[1], Sv[5] = Sw[2];
    }
  }
}

/* The name and SI unit of entry k of a joint's configuration q (what = 0), rates v (what = 1),
 * generalized forces (what = 2, dual to v: at a free joint the wrench on the child, child frame,
 * moment about its origin) or tangent of q (what = 3, nv entries: the delta of q (+) delta, as
 * hinge linearize names its states; rotation vectors and a free joint's shift in the child
 * frame), as output files head their columns: revolute "angle" (rad), "rate" (rad/s), "torque"
 * (N m), "angle"; free "x".."qz", "wx".."vz", "mx".."fz", "rx", "ry", "rz", "dx", "dy", "dz";
 * ... NULL when k is out of range. unit may be NULL. */
const char *hg_joint_entry_name(hg_joint_type type, int what, int k, const char **unit);

/* T = T_joint(q): child frame in the joint frame */
void hg_joint_transform(const hg_joint *j, const double *q, hg_se3 *T);
/* S = motion subspace, nv columns of 6 (S[6k..6k+5] is column k), in the child frame */
void hg_joint_motion(const hg_joint *j, const double *q, double *S);
/* c = dS/dt v = sum_k (dS/dq_k qdot_k) v; zero except for universal and planar joints */
void hg_joint_bias(const hg_joint *j, const double *q, const double *v, double c[6]);

/* The Galilean split of the velocity of a joint on the world. vr is v without the uniform
 * translation the joint can give its child (free: the linear twist; planar: the in-plane rates;
 * prismatic: the slide; cylindrical: the slide), so that (q, vr) is the same motion seen from the
 * inertial frame that moves with the joint frame's origin; other types keep vr = v. xi (nv) gives
 * the accelerations of the real state from those of (q, vr): qdd = qdd_r - xi. Only a free joint
 * has xi != 0: its linear rates are body-frame, xi = (0, w x v_lin) (the transport term); the
 * others' translational accelerations are classical ones, the same in both frames. Returns 1 when
 * vr differs from v (the joint translates), 0 otherwise. */
int hg_joint_galilean(const hg_joint *j, const double *v, double *vr, double *xi);

/* qout = q (+) (h * dv); qout may alias q. Quaternions stay unit length. */
void hg_joint_integrate(const hg_joint *j, const double *q, const double *dv, double h,
                        double *qout);
/* dv = q1 (-) q0, the tangent vector with q0 (+) dv = q1. A revolute or prismatic joint's is
 * q1 - q0, inline (a joint spring's right-hand side calls it for every spring); every other
 * type goes through hg_joint_difference_any, which takes any type */
void hg_joint_difference_any(const hg_joint *j, const double *q0, const double *q1, double *dv);
static inline void hg_joint_difference(const hg_joint *j, const double *q0, const double *q1,
                                       double *dv) {
  if (j->type == HG_JOINT_REVOLUTE || j->type == HG_JOINT_PRISMATIC) dv[0] = q1[0] - q0[0];
  else hg_joint_difference_any(j, q0, q1, dv);
}
/* Local chart q = q_ref (+) xi: the rate of xi that realizes joint velocity v,
 * xidot = J_r(xi)^-1 v for spherical (SO(3)) and free (SE(3)) joints, xidot = v otherwise. */
void hg_joint_chart_rate(const hg_joint *j, const double *xi, const double *v, double *xidot);
/* 1 when tangent component k of a joint of this type is an angle (its velocity an angular
 * rate), 0 when it is a length (a linear velocity) */
int hg_joint_dof_is_angular(hg_joint_type type, int k);
/* the neutral configuration (zeros, identity rotation) */
void hg_joint_neutral(const hg_joint *j, double *q);
/* renormalize any quaternion in q */
void hg_joint_normalize(const hg_joint *j, double *q);

/* ---- a small deterministic random generator (xoshiro256**), for tests and dispersions ---- */
typedef struct hg_rng {
  uint64_t s[4];
} hg_rng;
void hg_rng_seed(hg_rng *r, uint64_t seed);
/* uniform on [0, 1) */
double hg_rng_uniform(hg_rng *r);
/* uniform on [lo, hi) */
double hg_rng_range(hg_rng *r, double lo, double hi);
/* a random configuration: angles in [-pi, pi], slides in [-1, 1], rotations uniform */
void hg_joint_random(const hg_joint *j, hg_rng *r, double *q);

/* ---- inverses of the joint map and joint reversal (topology changes) ---- */

/* q with T_joint(q) = T, exact when T is reachable by the joint: the angle fitted to the rotation
 * (revolute, cylindrical, planar; universal by its two axes), the slide along the axis
 * (prismatic, cylindrical; planar in its plane), helical's angle from the rotation plus the whole
 * turns its slide implies, the quaternion (w >= 0) of spherical and free joints. Returns 0 when
 * T_joint(q) matches T to 1e-9 (rotation entries; translation relative to max(1, |p|)), -1 when
 * T is unreachable beyond that (q is then the nearest fit described above). */
int hg_joint_configuration(const hg_joint *j, const hg_se3 *T, double *q);

/* v = the joint rates whose relative twist S(q) v (child frame) is nearest V in least squares
 * (the normal equations of S); exact when V lies in the motion subspace. */
void hg_joint_velocity(const hg_joint *j, const double *q, const double V[6], double *v);

/* The joint seen from the child: jr with T_jr(qr) = T_joint(q)^-1 and S_r(qr) vr the parent's
 * twist relative to the child, -Ad_{T_joint(q)} S(q) v. Revolute, prismatic, helical and
 * cylindrical keep their axis with qr = -q; universal swaps its axes with qr = (-q1, -q0);
 * spherical gives the conjugate quaternion and vr = -R w; free the inverse pose and
 * vr = -Ad_T V; fixed is unchanged. q and v may be NULL (v needs q). Returns 0, or -1 for a
 * planar joint (not reversed) or an unknown type. jr may not alias j. */
int hg_joint_reverse(const hg_joint *j, const double *q, const double *v, hg_joint *jr, double *qr,
                     double *vr);

/* 1 when perturbing tangent component k of a joint moves its motion-subspace column l rigidly
 * with the child (d S_l / d q_k = ad_{S_k} S_l in the parent's frame), 0 when column l stays put
 * (d S_l / d q_k = 0): always 1 for spherical and free joints (q (+) d = q exp(d) with a constant
 * body-frame S), k <= l for the others, chains of one-DoF motions in the order of their
 * coordinates (universal: the second axis rides on the first; planar: the turn on the slides). */
static inline int hg_joint_dof_carries(hg_joint_type type, int k, int l) {
  return type == HG_JOINT_SPHERICAL || type == HG_JOINT_FREE || k <= l;
}

/* D (nv x nv, row-major) with d/dt (q (-) q0(t)) = D (q (-) q0(t)) + (v - v0) to first order,
 * for q0(t) moving with velocity v0: -ad_{v0} on the groups of spherical (-w0^) and free joints,
 * zero for the others (linearization on the group). */
void hg_joint_tangent_drift(const hg_joint *j, const double *v0, double *D);

#ifdef __cplusplus
}
#endif

#endif
