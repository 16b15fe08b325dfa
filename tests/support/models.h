/* models.h: models made in code for tests and benchmarks. */
#ifndef HINGE_TEST_MODELS_H
#define HINGE_TEST_MODELS_H

#include "hinge.h"

/* A random forest of nbody bodies mixing every joint type (fixed included), with random offsets
 * and valid random inertias. With floating != 0 it is one tree whose root (the first body) hangs
 * on a free joint, so nothing else touches the world. */
hg_model *hg_test_random_tree(hg_rng *r, int nbody, int floating);
/* the same drawn as one chain: each body hangs from the one before it (the first from the
 * world) */
hg_model *hg_test_random_chain(hg_rng *r, int nbody, int floating);

/* adds a body on a joint (axis2 and pitch as hg_joint_init; off NULL: identity); aborts with a
 * message when the joint or body is refused (test fixtures only) */
void hg_test_add_body(hg_builder *b, const char *name, const char *parent, hg_joint_type type,
                      const double axis[3], const double axis2[3], double pitch, const hg_se3 *off,
                      const hg_inertia *G);
/* the model of b, which it frees; aborts with the builder's message when b does not compile
 * (test fixtures only) */
hg_model *hg_test_compile(hg_builder *b);

/* A fixed-base model of nbody revolute bodies with random unit axes, random joint origins
 * (hg_test_random_pose) and random inertias: a chain when chain != 0, else a random forest (each
 * body's parent the world now and then, else any earlier body). */
hg_model *hg_test_random_revolute(hg_rng *r, int nbody, int chain);
/* the same with each joint prismatic (along its random axis) with probability prismatic */
hg_model *hg_test_random_1dof(hg_rng *r, int nbody, int chain, double prismatic);
/* A forest of nbody bodies whose first ntrees (>= 1) float on free joints (random origins) and
 * whose others hang on any earlier body on a revolute joint, or a prismatic one with probability
 * prismatic (random axes, origins and inertias) */
hg_model *hg_test_random_floating(hg_rng *r, int nbody, int ntrees, double prismatic);

/* benchmark models */
hg_model *hg_test_arm7(void);            /* 7-DoF revolute arm */
hg_model *hg_test_chain(int n);          /* n-link spatial revolute chain (alternating axes) */
hg_model *hg_test_binary_tree(int depth);/* 2^depth - 1 bodies, revolute */
hg_model *hg_test_humanoid(void);        /* free base + 26 revolute DoF (32 DoF) */

/* a random valid inertia: mass in [0.5, 2], centre of mass within 0.2 m, random principal axes */
void hg_test_random_inertia(hg_rng *r, hg_inertia *G);
/* a joint of the given type with random axes (the second orthogonal to the first) and a pitch in
 * [-0.2, 0.2]; aborts when hg_joint_init refuses it (test fixtures only) */
void hg_test_random_joint(hg_rng *r, hg_joint_type type, hg_joint *j);
/* a random pose: uniform rotation, translation in [-0.5, 0.5]^3 */
void hg_test_random_pose(hg_rng *r, hg_se3 *T);
/* the distance between two states of m on the group: sqrt(|q (-) qr|^2 + |v - vr|^2) */
double hg_test_state_error(const hg_model *m, const double *q, const double *v, const double *qr,
                           const double *vr);
/* fill x[n] with uniform numbers in [lo, hi) */
void hg_test_random_vector(hg_rng *r, double *x, int n, double lo, double hi);
/* a random state of m, drawn in this order: q on the joints' groups (hg_model_random), v in
 * [-2, 2], an input u (qdd or tau) in [-3, 3], and a wrench in [-1, 1] on every body but the
 * world (fext: 6 nbody numbers, body 0's left as it is) */
void hg_test_random_state(hg_rng *r, const hg_model *m, double *q, double *v, double *u,
                          double *fext);
/* a random state of m in buffers of its own: q (nq), v and u (nv), fext (6 nbody), each with
 * one spare entry, drawn by hg_test_random_state; aborts when out of memory (test fixtures
 * only). hg_test_state_free frees the four. */
typedef struct {
  double *q, *v, *u, *fext;
} hg_test_state;
hg_test_state hg_test_state_new(hg_rng *r, const hg_model *m);
void hg_test_state_free(hg_test_state *s);

#endif
