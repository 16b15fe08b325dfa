/* profile.h: motion profiles of prescribed joints (hybrid dynamics, conventions.md).
 *
 * A profile gives one joint's configuration q(t) (nq), velocity v(t) (nv) and acceleration
 * vdot(t) (nv), consistent with one another: v is the derivative of q on the joint's group and
 * vdot the time derivative of v. Velocities follow hinge's convention: joint rates for the
 * Euclidean joints (revolute ... planar), the body angular velocity w of a spherical joint and the
 * body twist (w, R^T pdot) of a free joint, all in the child frame. Configurations move on the
 * group, q (+) d = q * exp(d); rotations never pass through Euler angles.
 *
 * Every profile except the spline is a path q(t) = q0 (+) s(t) dir along one fixed tangent
 * direction dir. Since J_r(s dir) dir = dir, its velocity is exactly sdot dir and its acceleration
 * sddot dir, on every group:
 *   hold      q = q0,                                 v = 0,            vdot = 0
 *   velocity  q = q0 (+) (t - t0) v                    v = v,            vdot = 0
 *   move      q = q0 (+) s(tau) dq, dq = q1 (-) q0,    tau = (t - t0) / T clamped to [0, 1],
 *             s = 10 tau^3 - 15 tau^4 + 6 tau^5 (minimum jerk: zero v and vdot at both ends)
 *   sinusoid  q = q0 (+) (sin(w (t - t0) + phi) - sin(phi)) A   (starts at q0)
 * A move takes the shortest path on the group (rotation angle <= pi); a free joint's move is a
 * screw motion (constant twist direction), not a straight line of its origin. The velocity and
 * sinusoid profiles are defined for every t (t < t0 included); the move holds q0 before t0 and
 * q1 after t0 + T.
 *
 * The spline interpolates N samples (t_k, q_k) by a clamped cubic spline with zero end slopes,
 * per coordinate of a chart centred on the first sample q_ref = q_0:
 *   Euclidean  xi = q - q_ref                       q(t) = q_ref + xi(t)
 *   spherical  xi = log(q_ref^-1 q)                  q(t) = q_ref exp(xi(t))
 *   free       xi = (p - p_ref, log(R_ref^-1 R))     position in the parent frame, and rotation
 * The rotation coordinates are unwrapped: each sample takes the branch of log nearest the previous
 * sample's, so a table may turn through any angle as long as consecutive samples are less than pi
 * apart. q(t) is C2 inside [t_0, t_N-1] (v and vdot are continuous); outside it the profile holds
 * the end samples with v = vdot = 0, so v stays continuous at the ends and vdot jumps there (the
 * spline's end accelerations are generally non-zero).
 *
 * Profiles own their arrays; hg_profile_eval allocates nothing. */
#ifndef HINGE_PROFILE_H
#define HINGE_PROFILE_H

#include "joint.h"
#include "model.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum hg_profile_kind {
  HG_PROFILE_HOLD = 0, /* lock at q0 */
  HG_PROFILE_VELOCITY, /* constant joint velocity */
  HG_PROFILE_MOVE,     /* quintic minimum-jerk move from q0 to q1 over T */
  HG_PROFILE_SINUSOID, /* sinusoid of amplitude A (nv), angular frequency w, phase phi */
  HG_PROFILE_SPLINE    /* clamped cubic spline through tabulated samples */
} hg_profile_kind;

typedef struct hg_profile {
  hg_profile_kind kind;
  hg_joint jnt; /* copy of the joint (only its type matters) */
  int nq, nv;   /* joint dimensions */
  double t0;    /* start time (spline: first sample time) */
  double *q0;   /* nq: start configuration (spline: first sample q_ref) */
  double *dir;  /* nv: velocity v, move dq = q1 (-) q0, or sinusoid amplitude A */
  double T;     /* move: duration */
  double w, phi;/* sinusoid: angular frequency (rad/s) and phase (rad) */
  double sin_phi; /* sinusoid: sin(phi), kept by hg_profile_sinusoid */
  int n;        /* spline: number of samples */
  double *time; /* n: sample times, strictly increasing */
  double *xi;   /* n x nv: samples in the chart (free: 3 position, then 3 rotation coordinates) */
  double *ddxi; /* n x nv: second derivatives of the spline at the samples */
} hg_profile;

/* Constructors. Each copies its inputs and returns a new profile, or NULL with a reason in *why
 * (when why is not NULL) on bad input: a fixed or unknown joint type, a missing or non-finite
 * number, a quaternion whose norm is not within 1e-6 of 1 (quaternions are normalized on copy), a
 * non-positive move duration, fewer than 2 spline samples or sample times not strictly
 * increasing. q0, q1 and samples are nq numbers per configuration; v and A are nv numbers. */
hg_profile *hg_profile_hold(const hg_joint *j, double t0, const double *q0, const char **why);
hg_profile *hg_profile_velocity(const hg_joint *j, double t0, const double *q0, const double *v,
                                const char **why);
hg_profile *hg_profile_move(const hg_joint *j, double t0, const double *q0, const double *q1,
                            double T, const char **why);
hg_profile *hg_profile_sinusoid(const hg_joint *j, double t0, const double *q0, const double *A,
                                double w, double phi, const char **why);
/* n samples: times[k] and configurations qs[nq k .. nq k + nq - 1] */
hg_profile *hg_profile_spline(const hg_joint *j, int n, const double *times, const double *qs,
                              const char **why);
void hg_profile_free(hg_profile *p);

/* q(t) (nq), v(t) (nv) and vdot(t) (nv) in the joint's convention (see above); any output may be
 * NULL. Allocates nothing. */
void hg_profile_eval(const hg_profile *p, double t, double *q, double *v, double *vdot);

/* Writes the prescribed part of a model state at time t. For each joint i >= 1 (per_joint has
 * nbody entries, per_joint[0] unused): when d->mode[i] is locked, v and qdd of joint i become zero
 * and q is kept; when it is prescribed and per_joint[i] is not NULL, its q, v and qdd slices become
 * the profile's q(t), v(t) and vdot(t); every other slice is left alone. The result feeds
 * hg_hybrid (qdd) and overwrites the prescribed part of the integrated state (q, v). Returns 0,
 * or -1 with d->err set when a profile's joint type differs from the model's (that joint is
 * then left alone). */
int hg_profiles_apply(const hg_model *m, hg_data *d, hg_profile *const *per_joint, double t,
                      double *q, double *v, double *qdd);

#ifdef __cplusplus
}
#endif

#endif
