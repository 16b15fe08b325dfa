/* aba_local.h: the body-local articulated pass (forward, hybrid and impulsive dynamics) for models
 * of 1-DoF revolute and prismatic joints on fixed or floating (free-joint) bases, on the frames,
 * constants and kinds that body_frames.h compiles.
 *
 * hg_aba (dynamics.h) works in each tree's world-aligned frame: inertias are rotated into it on
 * every call and the motion subspace S is a general 6-vector. Here every quantity of body i is
 * instead kept in its joint frame J_i (body_frames.h), where S = e_k (revolute: k = 2, angular z;
 * prismatic: k = 5, linear z), U = IA S is IA's column k and the body inertia is constant
 * (Featherstone, Rigid Body Dynamics Algorithms, ch. 7 and 10). X_i = Ad_{P_i^-1} (motion
 * J_p -> J_i; its transpose takes wrenches and, as X^T M X, articulated inertias back to J_p) is
 * applied as the body's kind says: factor by factor (Khalil and Kleinfinger's Rz(gamma) Tz(b)
 * Rx(alpha) Tx(a) Tz(d) Rz(theta0), the joint's motion merged into the last two), each factor
 * mixing only two rows and columns of a symmetric 6x6; or, for nearly parallel axes, as one
 * rotation matrix and a vector, P = (R, p).
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
 * hg_builder_compile compiles the frames into m->local for the models it takes (model.h);
 * hg_aba, hg_hybrid and hg_hybrid_impulse then run the pass on d->local (dynamics.h), and the
 * views hg_body_twist, hg_body_acceleration and hg_joint_wrench read v, a, IA and pA there. It
 * writes nothing in hg_data's tree-frame fields (no d->U, d->Dinv, d->a). The tests check it
 * against a plain second implementation (tests/support/local_oracle.h).
 */
#ifndef HINGE_ABA_LOCAL_H
#define HINGE_ABA_LOCAL_H

#include "body_frames.h"

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

/* The wrench that fixed joint i (lm->carrier[i] != i) transmits, after a pass, in its carrier's
 * J_c (c = lm->carrier[i]; the world's frame when c = 0), the wrench hg_joint_wrench forms from
 * IA_i a_i + pA_i in the tree-frame pass: the rigid part's Isub A + V x* (Isub V) (V, A the
 * carrier's twist and acceleration as the pass saw them), less the fext of its bodies, plus
 * X_j^T (IA_j a_j + pA_j) of each swept body j whose parent lies in it (Featherstone, Rigid Body
 * Dynamics Algorithms, sec. 5.3: the joint force is the net force of the subtree). */
void hg_local_fixed_wrench(const hg_local_model *lm, const hg_local_data *ld, int i, double F[6]);

#endif
