/* sim_model.h: the model of the simulation runtime and what is compiled against it (not a public
 * header): s->m, s->d, s->forces, s->mimic, s->coll and s->model_version (sim_internal.h), the
 * functions that install a model (at creation and at each topology change) and those that read
 * bodies and markers of it.
 *
 * Frames: world poses T (hg_se3, body frame in the world); world twists tw = (angular velocity,
 * velocity of the body origin), world axes; marker frames M in their bodies' frames.
 *
 * Who writes each field:
 *   m, d, forces, mimic, model_version   hg_sim_install_model (sim_model.c); the forces' enabled
 *                  flags also the enable/disable actions (events.c) and hg_ck_resume
 *                  (checkpoint.c); d's modes the state part (state.h), its workspace every
 *                  evaluation
 *   coll           hg_sim_install_model when the scene watches a clearance, else the first
 *                  hg_sim_pair (views.c) or hg_sim_clearance (preview.c) */
#ifndef HINGE_RT_SIM_MODEL_H
#define HINGE_RT_SIM_MODEL_H

#include "sim.h"
#include "timeline.h"

/* ---- sim_model.c ---- */
/* installs model m (owned from now on): workspace, forces (enabled flags from the old forces by
 * name), the pull, collision geometry, end stops and triggers; profiles and modes are set by the
 * caller. 0 or -1 with err */
int hg_sim_install_model(hg_sim *s, hg_model *m, hg_error *err);
/* frees the model, what is compiled against it, and the state and workspace arrays sized for it */
void hg_sim_free_model(hg_sim *s);

/* ---- sim_topology.c ---- */
/* applies a topology op (edits the builder) and maps the state (with_state) or not; 0 or a
 * status. Adding (HG_ACTION_ADD) brings a root of the scene's library with its subtree; with
 * the state, the new joints take their initial states from the library and the root's free
 * joint the action's pose and twist; every other body keeps its state. */
int hg_sim_topology(hg_sim *s, const hg_topo_op *op, int with_state);

/* ---- frames.c: bodies and markers of the current model ---- */
/* world pose, and twist (angular velocity, velocity of the origin; world axes) of body i for the
 * kinematics in s->d */
void hg_sim_body_world(hg_sim *s, int i, hg_se3 *T, double tw[6]);
/* tau = J_i^T w: the joint forces of a wrench w (moment about world point p, force; world axes)
 * on body i, for the kinematics in d (a workspace of s->m, walked at the state's q) */
void hg_sim_wrench_to_tau(hg_sim *s, hg_data *d, int i, const double p[3], const double w[6],
                          double *tau);
/* a marker's body and frame in the current model; -1 when the marker or its body is absent */
int hg_sim_resolve_marker(const hg_sim *s, const char *name, int *body, hg_se3 *M);
/* world pose of a marker frame M on body and the world velocity of its origin (kinematics in
 * s->d) */
void hg_sim_marker_world(hg_sim *s, int body, const hg_se3 *M, hg_se3 *T, double vel[3]);

#endif
