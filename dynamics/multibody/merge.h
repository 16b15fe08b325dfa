/* merge.h: fixed links merged into their parents, for the dynamics.
 *
 * A body on a fixed joint moves with its parent: the dynamics see only their combined inertia.
 * Merging every such body into the nearest ancestor on a moving joint (or the world) gives a
 * model with the same q and v layout and the same dynamics to round-off, walked over fewer
 * bodies. The merged bodies stay available as frames: frame i of the original model is
 * frame_pose[i] in body frame_body[i] of the merged one. */
#ifndef HINGE_MERGE_H
#define HINGE_MERGE_H

#include "model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Returns the merged model (its gravity copied), or NULL with err when out of memory. For every
 * original body i (m->nbody entries; either array may be NULL): frame_body[i] = the merged body
 * that carries it, frame_pose[i] = its frame in that body's frame. Bodies on moving joints keep
 * their names, joints, limits and DoF order; each inertia is the exact sum of its own and those
 * of the fixed bodies merged into it (hg_inertia_transform); geometry moves with its body. A
 * model without fixed joints comes back as an equal copy. Joint modes belong to hg_data: the
 * caller sets them on the merged model's workspace by joint name (fixed joints have none). */
hg_model *hg_model_merge_fixed(const hg_model *m, int *frame_body, hg_se3 *frame_pose,
                               hg_error *err);

#ifdef __cplusplus
}
#endif

#endif
