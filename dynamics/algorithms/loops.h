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

#ifdef __cplusplus
extern "C" {
#endif

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


/* ==== constrained inverse dynamics and linearization with loops (loops_inverse.c,
 * loops_linear.c) ====
 *
 * Inverse dynamics of a closed chain driven by some of its DoFs (the active ones, selection S_a,
 * nv x na) with the others passive: given (q, v) on the manifold and qdd with G qdd = gamma, the
 * torques tau_a and the loop multipliers lambda solve
 *     M qdd + b - Q = tau_id = S_a tau_a + G^T lambda,
 * tau_id = RNEA(q, v, qdd, fext) - tau_ext (gravity in the model; fext, tau_ext the applied
 * forces). With N (nv x f) an orthonormal basis of the null space of G (f = nv - rank G, the
 * mechanism's DoFs), lambda drops out: N^T S_a tau_a = N^T tau_id. rank(N^T S_a) < f: the active
 * DoFs cannot drive every motion (under-actuated, refused); na > rank = f: redundant actuation,
 * solved by the minimum-norm torques, or (min_force) by the loop forces of least norm: lambda of
 * least norm solving the passive rows G_p^T lambda = tau_id,p, then tau_a from the active rows.
 * Ranks: singular values below 1e-9 of the largest (and of 1) count as zero. m is the model L
 * was compiled against. */

#ifdef __cplusplus
}
#endif

#include "linearize.h"

#ifdef __cplusplus
extern "C" {
#endif

/* what one inverse-dynamics solve found */
typedef struct hg_loops_id_info {
  int nc;          /* stacked rows */
  int rank_G;      /* rank of G */
  int dof;         /* f = nv - rank_G */
  int rank_act;    /* rank of N^T S_a (< dof: under-actuated) */
  int redundant;   /* na - rank_act: extra actuators (0: exact actuation) */
  double residual; /* max |tau_id - S_a tau_a - G^T lambda| of the returned solution */
} hg_loops_id_info;

/* Fills the DoFs of qdd where given[k] == 0 from G qdd = gamma (least squares, minimum norm over
 * those DoFs) at the kinematics of (q, v), the given ones kept. *residual gets max |G qdd -
 * gamma| afterwards (given values the loops do not allow leave it large), *undetermined the
 * number of filled DoFs that neither the loops nor the given values fix (chosen by minimum norm).
 * Runs hg_kinematics. 0, or -1 with d->err (LAPACK, memory). */
int hg_loops_complete_qdd(const hg_model *m, hg_loops *L, hg_data *d, const double *q,
                          const double *v, const unsigned char *active,
                          const unsigned char *given, double *qdd, double *residual,
                          int *undetermined);

/* Constrained inverse dynamics at (q, v, qdd): act (na model DoFs) the actuated DoFs; fext (6 per
 * body, body frames) and tau_ext (nv) the applied forces (either may be NULL). Writes tau_a (na)
 * and lambda (hg_loops_maxrows entries; the stacked rows of the active loops, then mimic rows)
 * and info. Returns 0; 1 when under-actuated (info->rank_act < info->dof; nothing written but
 * info); -1 with d->err on a LAPACK or memory failure. */
int hg_loops_inverse(const hg_model *m, hg_loops *L, hg_data *d, const double *q,
                     const double *v, const double *qdd, const unsigned char *active,
                     const int *act, int na, int min_force, const double *fext,
                     const double *tau_ext, double *tau_a, double *lambda,
                     hg_loops_id_info *info);

/* ---- linearization in independent coordinates ----
 * About (q0, v0) on the manifold with the modes in d->mode, the state is (z, zdot) in R^2f:
 * z = N^T (q (-) q0), zdot = N^T v, N (nv x f) an orthonormal basis of the null space of G(q0)
 * restricted to the free DoFs (zero rows elsewhere). The state (z, zdot) maps to
 *     q(z) = hg_loops_project(q0 (+) N z),
 *     v(z, zdot) = N zdot + W y with G(q(z)) v = 0 (W: the free DoFs' complement of N),
 * so that N^T v = zdot exactly, and zddot = N^T vdot with vdot from hg_loops_hybrid under the
 * force elements. A = [[0, 1], [dzddot/dz, dzddot/dzdot]] and B = [[0], [N^T dvdot/dtau_F]] (the
 * inputs: the forces of the nfree free DoFs) by central differences of step h. The second-order
 * form uses M_z = N^T M N (the mass matrix in z at q0), K = -M_z dzddot/dz, C = -M_z dzddot/dzdot. */
typedef struct hg_loops_linear {
  int nv, nfree, f;
  int *dof;          /* nfree: the model DoF of free DoF a */
  double *N;         /* nv x f, row-major */
  double *A, *B;     /* 2f x 2f, 2f x nfree */
  double *M, *K, *C; /* f x f */
  double *xdot0;     /* 2f: (zdot0, zddot0) */
  int rank_G;        /* rank of G's free columns at the last basis */
  double h;          /* the step used */
  /* private: the model and scratch */
  const hg_model *m;
  double *W, *ws;
} hg_loops_linear;

hg_loops_linear *hg_loops_linear_new(const hg_model *m, hg_loops *L);
void hg_loops_linear_free(hg_loops_linear *Z);

/* The force elements of a linearization with loops: fn adds fext and tau at (q, v) (d holds their
 * kinematics); NULL: gravity alone. */
typedef struct hg_loops_forces {
  hg_force_fn fn;
  void *ctx;
} hg_loops_forces;

/* Linearizes at (q0, v0) (on the manifold: hg_loops_project first), qdd0 the prescribed DoFs'
 * accelerations (NULL: zero), modes in d->mode, step h (<= 0: 1e-6). Fills Z. 0, or -1 with
 * d->err (a projection that fails, a singular inertia, LAPACK). */
int hg_loops_linearize(hg_loops_linear *Z, hg_loops *L, hg_data *d, const unsigned char *active,
                       const double *q0, const double *v0, const double *qdd0,
                       const hg_loops_forces *fe, double h);

/* An equilibrium of the closed mechanism near q (in: the start, out: the last iterate, on the
 * manifold): Newton's method in z with v = 0, J = dzddot/dz by central differences, the step
 * delta = -J^+ zddot (minimum norm; singular values below 1e-9 of the largest dropped),
 * q <- project(q (+) s N delta) with s = 1, 1/2, ... until |zddot| falls; N is recomputed at
 * every iterate. Stops when max |zddot| <= tol (<= 0: 1e-10) or after max_iter (<= 0: 50).
 * info as for hg_equilibrium (residual: max |zddot|; rank of J of f). 0 when converged, -1
 * otherwise with d->err. */
int hg_loops_equilibrium(hg_loops_linear *Z, hg_loops *L, hg_data *d,
                         const unsigned char *active, double *q, const hg_loops_forces *fe,
                         double h, double tol, int max_iter, hg_equilibrium_info *info);

#ifdef __cplusplus
}
#endif

#endif
