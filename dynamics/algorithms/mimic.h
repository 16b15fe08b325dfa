/* mimic.h: forward dynamics with mimic couplings enforced (URDF <mimic>, hg_builder_add_mimic).
 *
 * A model keeps each mimic follower's DoF; the coupling q_f = mu q_l + offset is a constraint
 * A v = 0 with one row e_f - mu e_l per coupling (A is constant, so it also holds for v and vdot).
 * The motion is exact, as if the pair were one DoF:
 *   vdot = a0 + Y lambda,  a0 = FD(q, v, tau),  Y = M^-1 A^T,  (A Y) lambda = -A a0,
 * where each column of Y comes from one more articulated-body pass with a unit torque pair
 * (FD is linear in tau: Y_j = FD(q, v, tau + A_j^T) - a0). That is k + 1 O(N) passes for k
 * couplings, and a k x k solve. The torques of a pair add up on the shared DoF as
 * tau_l + mu tau_f (the virtual work of the coupled DoF); lambda is the coupling's force.
 * Modes: a follower is never free, prescribed or locked on its own. hg_mimic_aba serves models
 * whose joints are all free; hg_mimic_follow, hg_mimic_hybrid and hg_mimic_impulse serve a
 * simulation's joint modes: a coupling whose leader is prescribed or locked moves its follower
 * with it (the follower takes the leader's mode, and its q, v and qdd follow), and a coupling
 * whose leader is free is enforced by its force, as in hg_mimic_aba, with hybrid dynamics in
 * place of the articulated-body algorithm (the responses Y are the same linear map for
 * accelerations and for impulses, since bias terms cancel in the differences). */
#ifndef HINGE_MIMIC_H
#define HINGE_MIMIC_H

#include "model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* the workspace of hg_mimic_aba for one model (allocated once) */
typedef struct hg_mimic_ws {
  int nv, k;
  double *a0, *tau, *Y, *S, *r; /* nv, nv, nv x k, k x k, k */
  double *L, *t2;               /* nv x k (load responses, hybrid), nv (scratch) */
  int nact, *act;               /* the couplings enforced by their force (leader free), k */
} hg_mimic_ws;

hg_mimic_ws *hg_mimic_ws_new(const hg_model *m);
void hg_mimic_ws_free(hg_mimic_ws *w);

/* Sets each follower's q and v from its leader's (in coupling order, so a follower of a follower
 * follows the updated value). q and v as hg_aba takes them. */
void hg_mimic_project(const hg_model *m, double *q, double *v);

/* qdd = the accelerations with every coupling enforced (see above), for q and v that satisfy
 * the couplings (hg_mimic_project); fext as hg_aba. lambda (m->nmimic, may be NULL) receives the
 * coupling forces. Returns 0, or non-zero with d->err set when an articulated inertia or the
 * coupled mass A M^-1 A^T is singular. Without couplings this is hg_aba. */
int hg_mimic_aba(const hg_model *m, hg_data *d, hg_mimic_ws *w, const double *q, const double *v,
                 const double *tau, const double *fext, double *qdd, double *lambda);

/* Gives each follower its leader's mode (d->mode) and, where the leader is not free, sets the
 * follower's q, v and (qdd not NULL) qdd from the leader's, in coupling order. */
void hg_mimic_follow(const hg_model *m, hg_data *d, double *q, double *v, double *qdd);

/* hg_hybrid_on_kinematics (same contract: d holds the kinematics of the state, modes in d->mode
 * after hg_mimic_follow) with the couplings whose leaders are free enforced: qdd complete, and
 * tau at non-free joints the loads they carry, coupling forces included (tau at free joints is
 * left as given). k + 1 hybrid passes for k such couplings. 0, or -1 with d->err. */
int hg_mimic_hybrid(const hg_model *m, hg_data *d, hg_mimic_ws *w, double *qdd, double *tau,
                    const double *fext);

/* After an impulse that ignored the couplings (modes as for hg_mimic_hybrid, q the
 * configuration): v += Y mu with A (v + Y mu) = 0 for the couplings whose leaders are free, the
 * coupling impulse (internal: momentum is kept; kinetic energy can only fall). Walks d's
 * kinematics at (q, v). 0, or -1 with d->err. */
int hg_mimic_impulse(const hg_model *m, hg_data *d, hg_mimic_ws *w, const double *q, double *v);

#ifdef __cplusplus
}
#endif

#endif
