/* linearize.h: state-space linearization of hybrid dynamics on the Lie group, and its modes.
 *
 * About an operating point (q0, v0) with joint modes d->mode, the free DoFs F (nf of them) carry
 * the state and the prescribed and locked DoFs follow their profiles (they are not part of it):
 *   dx = (q (-) q0 at F, v - v0 at F)   (2 nf),   du = tau - tau0 at F   (nf),
 *   d(dx)/dt = A dx + B du,
 *   A = [[D, 1], [dvdot/dq, dvdot/dv]],  B = [[0], [M_FF^-1]],
 * where D = -ad_{v0} on spherical and free joints (hg_joint_tangent_drift) and the derivatives of
 * the free accelerations are those of hg_hybrid_derivatives plus the force elements' own change
 * with (q, v): analytic for the elements whose derivatives the caller gives, central differences
 * on the group for the others (hg_force_elements). The second-order form
 * M_FF ddq + C dv + K dq = du gives K = -M_FF dvdot/dq and C = -M_FF dvdot/dv. hg_equilibrium
 * finds an operating point with v = 0 and vdot_F = 0.
 * See docs/linearization.md. */
#ifndef HINGE_LINEARIZE_H
#define HINGE_LINEARIZE_H

#include "derivatives.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Adds the force elements' body wrenches (fext: 6 per body, body frames, about the body origin)
 * and joint forces (tau: nv) for the state (q, v); d holds the kinematics of (q, v) when it is
 * called. ctx is the caller's. */
typedef void (*hg_force_fn)(void *ctx, const hg_model *m, const hg_data *d, const double *q,
                            const double *v, double *fext, double *tau);

/* Adds to dQ_dq (tangent of q, as in derivatives.h) and dQ_dv, nv x nv row-major, the
 * derivatives of the generalized force Q = tau + J(q0)^T fext of an analytic force function's
 * elements at (q, v), with J held at the operating point's; d holds the kinematics of (q, v). */
typedef void (*hg_force_jac_fn)(void *ctx, const hg_model *m, const hg_data *d, const double *q,
                                const double *v, double *dQ_dq, double *dQ_dv);

/* The force elements of a linearization, split by how their derivatives are taken. */
typedef struct hg_force_elements {
  hg_force_fn numeric;  /* differenced by central differences on the group (NULL: none) */
  hg_force_fn analytic; /* differentiated by jac (NULL: none) */
  hg_force_jac_fn jac;  /* the derivatives of analytic's elements (needed with analytic) */
  void *ctx;            /* passed to all three */
} hg_force_elements;

/* The linearization and its workspace (hg_linear_new sizes it for a model; nf and the free DoF
 * list are set by each hg_linearize from d->mode). */
typedef struct hg_linear {
  int nv, nf;
  int *dof;          /* nf: the model DoF of free DoF a */
  double *A, *B;     /* 2nf x 2nf and 2nf x nf, row-major */
  double *M, *K, *C; /* nf x nf: mass, stiffness, damping of the free DoFs */
  double *xdot0;     /* 2nf: the drift (v0, vdot0) at F: zero at an equilibrium */
  double *Gq, *Gv;   /* nv x nv: the force elements' generalized forces' derivatives */
  /* scratch */
  double *Yq, *Yv, *Yu, *y, *u, *qp, *vp, *tp, *tm, *fp, *fm, *zero;
  double *hq;        /* nv: the central-difference step of each tangent component of q */
} hg_linear;

hg_linear *hg_linear_new(const hg_model *m);
void hg_linear_free(hg_linear *L);

/* Linearizes hybrid dynamics at (q, v) with the modes in d->mode. qdd holds the prescribed
 * DoFs' accelerations (others ignored; NULL: zero); fe (may be NULL) gives the force elements:
 * the analytic ones with their derivatives, the numeric ones differentiated by central
 * differences on the group of step h (h <= 0: 1e-6) for angles and velocities, h max(1, |p|)
 * for lengths (p: the world position of the DoF's body, so that a spacecraft far from the origin
 * keeps its gravity gradient above the rounding).
 * Fills every field of L. 0, or -1 with d->err. */
int hg_linearize(const hg_model *m, hg_data *d, hg_deriv *w, hg_linear *L, const double *q,
                 const double *v, const double *qdd, const hg_force_elements *fe, double h);

/* ---- equilibria ---- */

/* How an equilibrium search ended (hg_equilibrium). */
typedef struct hg_equilibrium_info {
  int iterations;  /* Newton steps taken */
  double residual; /* max |vdot_F| at the returned q (rad/s^2 or m/s^2) */
  int rank, nf;    /* the numerical rank of the last Jacobian dvdot_F/dq_F, of nf free DoFs
                      (-1: balanced at the start, no Jacobian needed) */
  int converged;   /* 1 when residual <= tol */
} hg_equilibrium_info;

/* An equilibrium of hybrid dynamics near q (in: the start, out: the last iterate): with v = 0
 * and the prescribed and locked joints held still where q has them, it finds the free DoFs'
 * q_F* with vdot_F(q*) = 0 under gravity and the force elements (fe, h as for
 * hg_linearize). Newton's method on the group: J = dvdot_F/dq_F (the lower left block of A at
 * v = 0), the step delta solves J delta = -vdot_F in the least-squares, minimum-norm sense (a
 * neutral direction, along which nothing restores, is left where it is: singular values below
 * 1e-9 of the largest count as zero), and q <- q (+) s delta with s = 1, 1/2, ... until |vdot_F|_2
 * falls. Stops when max |vdot_F| <= tol (tol <= 0: 1e-10), after max_iter steps (<= 0: 50), or
 * when no step along delta lowers the residual (a neutral direction that does not balance, such as
 * a free-floating body in gravity). On return L holds the linearization at the last Jacobian
 * evaluated (not at q*: call hg_linearize there). 0 when converged, -1 otherwise with d->err
 * saying why and info filled either way. Allocates its own workspace. */
int hg_equilibrium(const hg_model *m, hg_data *d, hg_deriv *w, hg_linear *L, double *q,
                   const hg_force_elements *fe, double h, double tol, int max_iter,
                   hg_equilibrium_info *info);

/* ---- modes (LAPACK) ---- */

/* Eigenvalues of A (n x n, row-major; not modified): lambda = re + i im, sorted by |lambda| then
 * by im (a conjugate pair: positive im first), with right eigenvectors as the columns of
 * V (n x n, complex as re/im pairs: V[2 (n r + k)] + i V[2 (n r + k) + 1] is component r of
 * vector k), each scaled to unit length with its largest component real and positive. 0, or -1
 * when LAPACK fails. Allocates its own workspace. */
int hg_modes_eig(int n, const double *A, double *re, double *im, double *V);

/* The generalized symmetric problem K phi = w2 M phi (n x n, symmetric parts of K and M used;
 * M positive definite): w2 ascending, phi the columns of Phi (n x n), M-orthonormal. 0, or -1
 * when M is not positive definite or LAPACK fails. */
int hg_modes_sym(int n, const double *K, const double *M, double *w2, double *Phi);

/* The minimum-norm least-squares solution x of A x = b (A n x n row-major, not modified), by the
 * SVD (dgelsd): singular values below rcond times the largest count as zero; rank gets the
 * number of the others. 0, or -1 when LAPACK fails. Allocates its own workspace. */
int hg_lstsq_min_norm(int n, const double *A, const double *b, double rcond, double *x,
                      int *rank);

#ifdef __cplusplus
}
#endif

#endif
