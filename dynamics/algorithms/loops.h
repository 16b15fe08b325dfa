/* loops.h: closed kinematic loops as exact constraints on a tree model: the constraint rows, the
 * constrained forward and hybrid dynamics, the plastic impulse that closes a loop, and the
 * projection that keeps a state on the constraint manifold (docs/constraints.md).
 *
 * A loop is one of:
 *   HG_LOOP_JOINT     a joint of the joint table (joint.h) from marker frame A on body a to marker
 *                     frame B on body b (either may be the world, body 0): closed means
 *                     T_AB = A^-1 B is a configuration T_joint(q*) of that joint, its axes given in
 *                     frame A. Its rows are the 6 - nv directions of the relative twist of B
 *                     (in frame B) that the joint does not allow: with C (6 - nv rows) spanning the
 *                     complement of S(q*) (C S = 0), the velocity constraint is C V_rel = 0,
 *                     V_rel = V_B - Ad_{B^-1 A} V_A, and the acceleration constraint is
 *                     C (A_rel - c_J) = 0, A_rel = d/dt V_rel = V'_B - Ad_{B^-1 A} V'_A
 *                     - ad_{V_B} V_rel, c_J = S'(q*, v*) v* the joint's bias (hg_joint_bias) at
 *                     v* = S^+ V_rel (the term -C' V_rel = C S' v* written with C S = 0).
 *                     The position residual is C log(T_joint(q*)^-1 T_AB), q* fitted to T_AB by
 *                     hg_joint_configuration.
 *   HG_LOOP_COUPLING  one row between two 1-DoF joints, q_f = ratio q_l + offset (a cable or gear
 *                     loop that synchronizes two hinges): G = e_f - ratio e_l, gamma = 0.
 * Mimic couplings of the model (hg_builder_add_mimic) whose leader is free are appended as
 * coupling rows, so one solve enforces both.
 *
 * Stacked over the active loops, the rows are G v = 0 (nc x nv) and G vdot = gamma with
 * gamma = -G' v. Constrained dynamics is
 *     M vdot + b = tau + G^T lambda,   G vdot = gamma,
 * with the joint modes of d->mode: prescribed and locked DoFs keep their accelerations and carry
 * the loads that hold them. It is solved without M (Featherstone's articulated-body method with
 * constraint forces, as for mimic couplings in mimic.h):
 *     vdot = a0 + Y lambda,  a0 = hybrid(q, v, tau, fext),  Y = M_h^-1 G^T (nv x nc),
 *     (G Y) lambda = gamma - G a0,
 * each column of Y the response of the factored articulated inertias in d to the unit wrench pair
 * (or DoF force pair) of one row: O(N nc) after the hybrid pass, plus the nc x nc solve. G Y is
 * symmetric positive semi-definite; a redundant or singular set of rows (a planar four-bar closed
 * by a weld, two latches on one rigid dock) is solved in the minimum-norm least-squares sense
 * (LAPACK dsyevr: eigenvalues below 1e-10 of the largest dropped) and its rank reported.
 *
 * Frames: G's rows act on v (joint rates; body twists of spherical and free joints in the child
 * frame); lambda is in the rows' own directions (frame B, moment rows before force rows);
 * hg_loops_wrench turns a loop's lambda into the wrench that a's side applies to b's side
 * (moment about the origin of A, force; axes of A), N m and N.
 *
 * Who writes each field: hg_loops_new the constants and the workspace; every function below only
 * its outputs and the workspace (the last solve's rank in L->rank, lambda in L->lambda). */
#ifndef HINGE_LOOPS_H
#define HINGE_LOOPS_H

#include "dynamics.h"

typedef enum hg_loop_kind { HG_LOOP_JOINT = 0, HG_LOOP_COUPLING = 1 } hg_loop_kind;

/* one loop, in the terms of a compiled model */
typedef struct hg_loop {
  hg_loop_kind kind;
  hg_joint joint;  /* JOINT: the loop joint; axes in frame A (hg_joint_init) */
  int body[2];     /* JOINT: the bodies of markers A and B (0: the world) */
  hg_se3 M[2];     /* JOINT: frames A and B in their bodies' frames */
  int jnt[2];      /* COUPLING: the joints (bodies) of leader and follower, 1-DoF each */
  double ratio;    /* COUPLING: q_f = ratio q_l + offset */
  double offset;
} hg_loop;

/* the loops of one model, compiled, with their workspace (opaque) */
typedef struct hg_loops hg_loops;

/* Compiles n loops against model m (kept by pointer: it must outlive the result). NULL with err
 * when a body or joint index is out of range, a loop's bodies are one body, a coupling joint is
 * not 1-DoF, or memory runs out. Allocates everything the functions below use. */
hg_loops *hg_loops_new(const hg_model *m, const hg_loop *loop, int n, hg_error *err);
void hg_loops_free(hg_loops *L);

/* the number of loops, the rows of loop k (6 - nv for a joint, 1 for a coupling), and the most
 * rows all loops (and the model's mimic couplings) can stack */
int hg_loops_count(const hg_loops *L);
int hg_loops_nrow(const hg_loops *L, int k);
int hg_loops_maxrows(const hg_loops *L);

/* The position violation of loop k at the kinematics in d (hg_kinematics at q): the distance of
 * B's origin from where the fitted joint puts it (m) and the rotation angle between them (rad);
 * for a coupling, |q_f - ratio q_l - offset| in dist (m or rad), 0 in angle. */
void hg_loops_violation(const hg_loops *L, const hg_data *d, const double *q, int k, double *dist,
                        double *angle);

/* Stacks the rows of the active loops (active: count entries, NULL = all; model mimic rows last)
 * at the kinematics in d (hg_kinematics at (q, v), v not NULL): G (nc x nv, row-major, may be
 * NULL), gamma = -G' v (nc, may be NULL), the position residual r (nc, may be NULL). Returns nc. */
int hg_loops_rows(const hg_loops *L, const hg_data *d, const double *q, const double *v,
                  const unsigned char *active, double *G, double *gamma, double *r);

/* Constrained hybrid dynamics on the kinematics in d (as hg_hybrid_on_kinematics: d holds
 * hg_kinematics(m, d, q, v), modes in d->mode, qdd holds the prescribed accelerations, tau the
 * forces at free joints): on return qdd satisfies G qdd = gamma, tau at non-free joints is the
 * load each carries with the loops' forces, lambda (hg_loops_maxrows entries, may be NULL) the
 * loops' multipliers by row. 0, or -1 with d->err (a singular articulated inertia). */
int hg_loops_hybrid(hg_loops *L, hg_data *d, const double *q, const double *v,
                    const unsigned char *active, double *qdd, double *tau, const double *fext,
                    double *lambda);

/* The perfectly plastic impulse that makes G v = 0 (closing loops, or a state whose velocity
 * left the tangent space): v += Y mu with (G Y) mu = -G v, the momentum-conserving impulse
 * G^T mu of least kinetic energy (joint modes as for hybrid: prescribed and locked DoFs do not
 * jump). Walks d's kinematics at (q, v). *energy_removed (may be NULL) gets the kinetic energy it
 * removes (>= 0); mu (maxrows, may be NULL) the impulses by row. 0 or -1 with d->err. */
int hg_loops_impulse(hg_loops *L, hg_data *d, const double *q, double *v,
                     const unsigned char *active, double *mu, double *energy_removed);

/* Projects the state onto the constraint manifold: q by Gauss-Newton steps in the mass metric on
 * the group (q <- q (+) (-Y (G Y)^+ r), prescribed and locked DoFs fixed) until every residual is
 * below tol (m and rad) or maxit steps, then v onto the tangent space (v <- v - Y (G Y)^+ G v).
 * v may be NULL (q only). Returns the number of Gauss-Newton steps taken (0 when q already
 * satisfied tol), or -1 when the residual did not fall below tol (d->err says how far it got). */
int hg_loops_project(hg_loops *L, hg_data *d, double *q, double *v, const unsigned char *active,
                     double tol, int maxit);

/* The same projection applied to a tangent vector e (nv): e <- e - Y (G Y)^+ G e, the part of a
 * velocity (or of an error estimate) that the constraints allow. d must hold the factors of the
 * last hg_loops_hybrid, hg_loops_impulse or hg_loops_project at the same q. */
void hg_loops_project_tangent(hg_loops *L, hg_data *d, const unsigned char *active, double *e);

/* The wrench of loop k from its multipliers lam (its rows of a lambda or mu): what a's side
 * applies to b's side, moment about A's origin then force, in A's axes (zero for a coupling,
 * whose single value is lam[0], N m or N). */
void hg_loops_wrench(const hg_loops *L, const hg_data *d, int k, const double *lam, double w[6]);

/* the rank of the last solve's G Y, and its number of rows (rank < rows: redundant or singular
 * loops, solved in least squares) */
int hg_loops_rank(const hg_loops *L, int *nrows);

#endif
