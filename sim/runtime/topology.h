/* topology.h: run-time changes of the tree structure, and the state carried across them.
 *
 * Changes edit the scene's builder by name and the model is recompiled (O(N)); the state is then
 * mapped body by body so that every body keeps its world pose and spatial velocity. */
#ifndef HINGE_TOPOLOGY_H
#define HINGE_TOPOLOGY_H

#include "hinge.h"

/* The subtree of 'body' leaves its parent: its joint becomes a free joint to the world (the free
 * joint's configuration is set by hg_topology_map_state). */
int hg_topology_detach(hg_builder *b, const char *body, hg_error *err);

/* Docks 'child' to 'parent' by a new free joint named joint_name whose offset is T_parent_child0
 * (the child frame's pose in the parent frame at the moment of docking, so q = identity). When
 * 'child' is not the root of its tree, the tree is re-rooted at 'child' first: the joints on the
 * path from the old root reverse (revolute, prismatic, helical, cylindrical, universal, spherical,
 * free and fixed; planar joints cannot reverse and give an error). The old root's joint to the
 * world is removed. */
int hg_topology_attach(hg_builder *b, const char *parent, const char *child,
                       const char *joint_name, const hg_se3 *T_parent_child, hg_error *err);

/* The first joint on the path from body 'child' up to its tree's root that docking 'child' would
 * have to reverse but cannot (a planar joint), or NULL when re-rooting at child works. */
const char *hg_topology_reroot_blocker(const hg_model *m, int child);

/* Removes 'body' and its subtree. */
int hg_topology_remove(hg_builder *b, const char *body, hg_error *err);

/* Maps a state from model m0 (state q0, v0) to model m1: every body of m1 that exists in m0 (by
 * name) keeps its world pose and spatial velocity; bodies new to m1 keep their neutral joint
 * state. Joint coordinates are solved from relative poses (exact for free and spherical joints,
 * and for every joint whose relative pose its motion can reach), joint rates from relative twists
 * (least squares on S; exact when consistent). d0 and d1 are workspaces of m0 and m1. */
int hg_topology_map_state(const hg_model *m0, hg_data *d0, const double *q0, const double *v0,
                          const hg_model *m1, hg_data *d1, double *q1, double *v1, hg_error *err);

/* Carries the joint modes of d0 (model m0) to d1 (model m1) by joint name: a joint of the same
 * type that still joins the same two bodies, either way round, keeps its mode (so a locked joint
 * stays locked when re-rooting reverses it); new joints, joints whose parent changed (detached:
 * undocking) and joints whose type changed are free. With from (m1->nbody entries) not NULL,
 * from[i] is the joint of m0 whose mode joint i kept, or -1. This is the one rule every
 * topology change of a simulation follows. */
int hg_topology_map_modes(const hg_model *m0, const hg_data *d0, const hg_model *m1, hg_data *d1,
                          int *from, hg_error *err);

#endif
