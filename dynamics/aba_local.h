/* aba_local.h: an experimental body-local ABA for fixed-base models of 1-DoF revolute joints.
 *
 * hg_aba (dynamics.h) works in each tree's world-aligned frame: inertias are rotated into it on
 * every call and the motion subspace S is a general 6-vector. Here every quantity of body i is
 * instead kept in its joint frame J_i (z along the joint axis, fixed in body i), where S = e_z
 * (the third, angular-z coordinate), U = IA S is IA's third column and the body inertia is
 * constant (RBDA ch. 7 and 10). The pose of J_i in its parent's joint frame J_p is
 *   P_i(q) = C_i Rz(q_i)     (J_0 is the world frame)
 * with C_i constant. Two ways of applying X_i = Ad_{P_i^-1} (motion J_p -> J_i; its transpose
 * takes wrenches and, as X^T M X, articulated inertias back to J_p) are compiled:
 *   factored 0: R = R_C Rz(q) as one rotation matrix and the translation p_C as a vector;
 *   factored 1: C_i Rz(q) = Rz(gamma) Tz(b) Rx(alpha) Tx(a) Tz(d) Rz(theta0 + q), each factor a
 *               rotation about or translation along one coordinate axis, which mixes only two
 *               rows/columns of a symmetric 6x6 (Khalil-Kleinfinger: J_p's x axis lies on the
 *               common normal to its first child's axis, so that child has gamma = b = 0).
 * This is measured groundwork, not wired into the simulator: it computes qdd only and writes
 * nothing that other algorithms read (no d->U, d->Dinv, d->a). */
#ifndef HINGE_ABA_LOCAL_H
#define HINGE_ABA_LOCAL_H

#include <stdint.h>

#include "model.h"

/* the compiled constants (written once by hg_local_compile, read by hg_local_aba) */
typedef struct hg_local_model {
  int nbody, factored;
  double gravity[3];  /* m->gravity */
  const int *parent;  /* m->parent (the model must outlive this) */
  int *v_adr;         /* m->v_adr */
  hg_se3 *C;          /* nbody: pose of J_i in J_p at q = 0 */
  double (*dh)[8];    /* nbody: cos gamma, sin gamma, b, cos alpha, sin alpha, a, d, theta0 */
  uint8_t *dh_flags;  /* nbody: which factors are not the identity (HG_LOCAL_* bits) */
  double (*dh_turn)[12]; /* nbody: alpha's then gamma's c, s, s^2, c s, cos 2t, sin 2t */
  hg_se3 *T_JB;       /* nbody: body frame in J_i (moves fext into J_i) */
  hg_inertia *I;      /* nbody: body inertia about J_i's origin in J_i's axes */
} hg_local_model;

enum { HG_LOCAL_GAMMA = 1, HG_LOCAL_B = 2, HG_LOCAL_ALPHA = 4, HG_LOCAL_A = 8, HG_LOCAL_D = 16 };

/* the workspace of one hg_local_model (every array nbody long; each in J_i) */
typedef struct hg_local_data {
  double (*cs)[2];  /* cos, sin of the turn of Rz (theta0 + q, or q when not factored) */
  double (*R)[9];   /* not factored: R_C Rz(q) */
  hg_vec6 *v;       /* spatial velocity of body i */
  double (*c)[4];   /* v x (e_z qd): entries 0, 1, 3, 4 (the others are zero) */
  hg_sym6 *IA;      /* articulated inertia */
  hg_vec6 *pA;      /* articulated bias wrench */
  double *Dinv, *u; /* 1 / IA_22, tau - pA_2 */
  hg_vec6 *a;       /* spatial acceleration, gravity offset (a_0 = (0, -g)) */
} hg_local_data;

/* The local model of m, or NULL with err set when some joint is not a 1-DoF revolute one
 * without a post-offset (free or floating roots, other joint types: use hg_aba). */
hg_local_model *hg_local_compile(const hg_model *m, int factored, hg_error *err);
void hg_local_model_free(hg_local_model *lm);
hg_local_data *hg_local_data_new(const hg_local_model *lm);
void hg_local_data_free(hg_local_data *ld);

/* qdd = M^-1 (tau - b), as hg_aba, fext as hg_aba's (body frames, about body origins; or NULL).
 * Returns 0, or -1 when an articulated inertia is singular or a result is not finite. */
int hg_local_aba(const hg_local_model *lm, hg_local_data *ld, const double *q, const double *v,
                 const double *tau, const double *fext, double *qdd);

#endif
