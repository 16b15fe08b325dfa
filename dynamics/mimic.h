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
 * Modes: a follower is never free, prescribed or locked on its own; these functions serve models
 * whose joints are all free. */
#ifndef HINGE_MIMIC_H
#define HINGE_MIMIC_H

#include "model.h"

/* the workspace of hg_mimic_aba for one model (allocated once) */
typedef struct hg_mimic_ws {
  int nv, k;
  double *a0, *tau, *Y, *S, *r; /* nv, nv, nv x k, k x k, k */
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

#endif
