/* dynamics.h: O(N) recursive algorithms on a compiled model (J. Kim, "Lie Group Formulation of
 * Articulated Rigid Body Dynamics", Tables 2-4), and the model compiler that checks a model with
 * them.
 *
 * All of them take the state explicitly (q: nq, v: nv), use only the workspace in d, allocate
 * nothing and walk the bodies in topological order. External wrenches fext (6 x nbody, body i at
 * fext + 6 i, or NULL) act on each body and are expressed in that body's frame about its origin. Gravity enters
 * as the base acceleration a_0 = (0, -g) with g = m->gravity.
 *
 * Uniform translation never enters a velocity product: a tree whose root joint translates is
 * computed in the inertial frame moving with that joint's origin (model.h, hg_joint_galilean),
 * so the accelerations of a spacecraft at orbital speed are those at rest (the transport term
 * -w x v of a free root's body-frame linear rate aside) to round-off of the at-rest size.
 *
 * Functions returning int give 0 on success and -1 (with d->err set) when an articulated inertia
 * is singular or not finite; the output is then unspecified. */
#ifndef HINGE_DYNAMICS_H
#define HINGE_DYNAMICS_H

#include "model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Compiles the bodies into a model (hg_builder_assemble, model.h) and runs hg_aba once in the
 * neutral configuration at rest: fails (NULL, err set) as hg_builder_assemble does, or on an
 * articulated inertia that is singular there (such as a massless leaf body on a moving joint),
 * unless hg_builder_allow_singular was set. */
hg_model *hg_builder_compile(const hg_builder *b, hg_error *err);

/* How the passes run: an argument of the *_opt entry points below, as MuJoCo's mjOption, never
 * workspace state. NULL (what hg_kinematics, hg_rnea, hg_aba, hg_hybrid and hg_hybrid_impulse
 * pass) means every field 0: the body-local pass where the model has one, and each tree whose
 * root translates seen from its Galilean frame (model.h, hg_joint_galilean). */
typedef struct hg_pass_options {
  int tree_frame;  /* 1: hg_aba, hg_hybrid and hg_hybrid_impulse run the tree-frame pass even where
                    * m->local is there, so its factors (d->U, d->Dinv, d->IA, ...) are left in d
                    * (hg_minv_factored reads them) */
  int world_frame; /* 1: every tree in the world's frame (d->vt = 0, d->Vg = d->V, d->a the real
                    * acceleration), the classic formulation the derivatives differentiate; the
                    * body-local pass, which has a Galilean frame at every translating root, then
                    * does not run on a model with such a root (m->local->galilean) */
} hg_pass_options;

/* Forward kinematics: d->T_rel, d->T_world, d->T_tree, d->S and d->I from q; when v is not NULL
 * also the spatial velocities d->V (real) and d->Vg (Galilean), the Galilean frames' velocities
 * d->vt, the root terms d->xi and the velocity-product accelerations d->c (tree frames, see
 * model.h). Every algorithm below starts with this walk. */
void hg_kinematics(const hg_model *m, hg_data *d, const double *q, const double *v);
void hg_kinematics_opt(const hg_model *m, hg_data *d, const hg_pass_options *opt, const double *q,
                       const double *v);

/* Body-frame views of the last walk: body i's twist (from d->V), its acceleration (from d->a,
 * including the gravity offset), and the wrench its joint transmits from the parent, each in
 * body i's own frame. The wrench is that of the last articulated pass (hg_aba, hg_hybrid,
 * hg_hybrid_on_kinematics; the impulse after hg_hybrid_impulse), formed on demand as
 * IA_i a_i + pA_i from d->IA, d->a and d->pA (not from d->F, which only hg_rnea writes); at a
 * fixed joint after a pass over the swept bodies (body_frames.h: pass_swept) from the rigid part
 * it carries and the swept bodies hanging from it. */
void hg_body_twist(const hg_model *m, const hg_data *d, int i, double V[6]);
void hg_body_acceleration(const hg_model *m, const hg_data *d, int i, double A[6]);
void hg_joint_wrench(const hg_model *m, const hg_data *d, int i, double F[6]);

/* Inverse dynamics (RNEA): tau = M(q) qdd + b(q, v) - J^T fext, where M includes the armature
 * (model.h: tau_k gains armature_k qdd_k). Also leaves the spatial accelerations in d->a and the
 * joint wrenches in d->F, with the kinematics of hg_kinematics, at every body of a model without
 * fixed joints. On a model with fixed joints (m->local with fixed bodies: a URDF's root link,
 * flanges, tool frames) it steps over the moving bodies only, as on the merged model
 * (hg_model_merge_fixed), and leaves the fixed bodies' fields to hg_rnea_fixed_bodies, as
 * Pinocchio leaves frames to updateFramePlacements. */
void hg_rnea(const hg_model *m, hg_data *d, const double *q, const double *v, const double *qdd,
             const double *fext, double *tau);
void hg_rnea_opt(const hg_model *m, hg_data *d, const hg_pass_options *opt, const double *q,
                 const double *v, const double *qdd, const double *fext, double *tau);

/* After hg_rnea or hg_bias (same fext) on a model with fixed joints: fills every fixed body's
 * pose (d->T_tree, d->T_world), twist (d->V, d->Vg), acceleration d->a, inertia d->I and the
 * wrench its fixed joint carries d->F, as the walk over every body gives them; a carrier's d->I
 * still holds the inertias fixed to it. Does nothing (returns 0) where d already holds every
 * body; returns -1 with d->err set after hg_crba, whose walk has no velocities. */
int hg_rnea_fixed_bodies(const hg_model *m, hg_data *d, const double *fext);

/* Joint forces of a wrench on one body: tau += J_i^T F, where F (moment about body i's origin,
 * force; body i's frame, like fext) acts on body i and J_i maps v to body i's twist. Only the
 * joints from body i up to its tree's root receive forces (O(depth)). Reads the kinematics of the
 * last hg_kinematics (d->T_tree, d->S; velocities not needed) and writes nothing in d. This is the
 * external-wrench part of hg_rnea: RNEA(fext) - RNEA(0) = -sum_i J_i^T fext_i. */
void hg_jacobian_transpose(const hg_model *m, const hg_data *d, int i, const double F[6],
                           double *tau);

/* Bias forces b = RNEA(q, v, 0, fext): Coriolis, centrifugal, gravity and external terms. */
void hg_bias(const hg_model *m, hg_data *d, const double *q, const double *v, const double *fext,
             double *b);

/* Joint-space mass matrix M(q) (CRBA), nv x nv row-major, both triangles filled; its diagonal
 * includes the armature (model.h). On a model with fixed joints it walks the moving bodies only
 * (as hg_rnea): the fixed bodies' poses in d are then those of an earlier walk
 * (hg_kinematics gives them). */
void hg_crba(const hg_model *m, hg_data *d, const double *q, double *M);

/* Forward dynamics (ABA): qdd = M^-1 (tau - b), M including the armature (model.h).
 * hg_aba, hg_hybrid and hg_hybrid_impulse run the body-local pass (aba_local.h) on a model that
 * has one (m->local: revolute and prismatic joints on revolute, prismatic or free roots) unless
 * the options of hg_aba_opt, hg_hybrid_opt or hg_hybrid_impulse_opt ask for the tree-frame pass
 * (or for the world's frame, in a model with a translating root).
 * That pass writes d->local and none of d's kinematic or articulated fields (d->T_*, d->S, d->V,
 * d->a, d->IA, d->pA, d->U, d->Dinv, d->u); hg_body_twist, hg_body_acceleration and
 * hg_joint_wrench give its values. The tree-frame pass runs hg_kinematics first and leaves all of
 * those fields. The two agree to round-off. */
int hg_aba(const hg_model *m, hg_data *d, const double *q, const double *v, const double *tau,
           const double *fext, double *qdd);
int hg_aba_opt(const hg_model *m, hg_data *d, const hg_pass_options *opt, const double *q,
               const double *v, const double *tau, const double *fext, double *qdd);

/* Hybrid dynamics (Kim, Table 4) with the joint modes in d->mode. On entry qdd holds the
 * accelerations of prescribed and locked joints (locked ones are taken as zero) and tau the
 * forces of free joints; on return qdd and tau are complete. The pass's accelerations,
 * articulated inertias and biases (d->a, d->IA, d->pA, or d->local after the body-local pass)
 * give every joint's spatial constraint wrench (parent on child), which hg_joint_wrench forms
 * in the child frame; d->F is not written. */
int hg_hybrid(const hg_model *m, hg_data *d, const double *q, const double *v, double *qdd,
              double *tau, const double *fext);
int hg_hybrid_opt(const hg_model *m, hg_data *d, const hg_pass_options *opt, const double *q,
                  const double *v, double *qdd, double *tau, const double *fext);

/* hg_hybrid on the kinematics already in d: d must hold hg_kinematics(m, d, q, v) of the state
 * (q, v) whose dynamics are wanted (with v, not NULL), unchanged since. Gives exactly what
 * hg_hybrid(m, d, q, v, ...) gives with the tree-frame pass (the body-local pass, where it runs,
 * agrees to round-off), without walking the tree again, so a caller that evaluates
 * force elements on d's kinematics walks once per right-hand side. Returns -1 with d->err set
 * when d holds the walk of hg_rnea, hg_bias or hg_crba on a model with fixed joints instead
 * (body_frames.h: hg_kinematics_carried), or when an articulated inertia is singular. */
int hg_hybrid_on_kinematics(const hg_model *m, hg_data *d, double *qdd, double *tau,
                            const double *fext);

/* Impulsive hybrid dynamics: the velocity jump of a perfectly plastic lock. On entry dv holds
 * the velocity jumps demanded at prescribed and locked joints (locked: -v) and imp the impulses
 * at free joints (usually zero); on return dv and imp are complete (imp at prescribed joints is
 * the impulse the lock applies). hg_joint_wrench then gives the spatial impulse across any joint
 * (d->F is not written).
 * Only positions matter: no gravity, no velocity products. The body-local pass runs when
 * m->local is there, as in hg_hybrid. */
int hg_hybrid_impulse(const hg_model *m, hg_data *d, const double *q, double *dv, double *imp);
int hg_hybrid_impulse_opt(const hg_model *m, hg_data *d, const hg_pass_options *opt,
                          const double *q, double *dv, double *imp);

/* Responses (response.c) of the articulated factors the last tree-frame pass left in d (d->IA, d->U, d->Dinv:
 * hg_hybrid_on_kinematics, hg_aba_opt or hg_hybrid_opt with tree_frame, hg_hybrid_impulse_opt
 * with tree_frame) to loads with zero velocity, zero gravity and zero forces otherwise: for each
 * right-hand side c, qdd_c = M_h^-1 tau_c, where tau_c are the joint forces of its loads and
 * M_h the mass matrix of the free DoFs (prescribed and locked DoFs do not move), and the change
 * of the load each non-free DoF carries. Featherstone's articulated-body method for several
 * right-hand sides at once: the backward sweep walks only the loaded bodies' paths to their
 * roots (a load on body b changes the biases there alone), the forward sweep every body (all)
 * or only those paths (all = 0: the accelerations of the loaded bodies, O(depth) each). */

/* a load of one right-hand side: the wrench w on body `body` (tree frame, moment about its
 * origin; as fext, what acts on the body), or with dof >= 0 the force w[0] at that DoF */
typedef struct hg_response_load {
  int col, body, dof;
  double w[6];
} hg_response_load;

/* the workspace and results of hg_hybrid_response for up to ncol right-hand sides (entry i of
 * right-hand side c at i * n + c, of pA, a and u, for a response to n right-hand sides) */
typedef struct hg_response {
  int ncol;
  hg_vec6 *pA; /* nbody x ncol: the response biases */
  hg_vec6 *a;  /* nbody x ncol: the response accelerations, tree frame (0 at the world) */
  double *u;   /* nv x ncol: the DoF forces, then u = f - S^T pA */
  double *qdd; /* ncol x nv (right-hand side c at c * nv): the accelerations */
  double *tau; /* ncol x nv: the load changes at non-free DoFs (0 at free ones) */
  uint8_t *on; /* nbody: 1 on a loaded body's path */
  uint64_t *live; /* nbody: bit c set when right-hand side c has a load in the body's subtree */
  int *path, *order; /* nbody, 2 ncol: hg_hybrid_response_gram's walk and sort */
  hg_vec6 *col;      /* 2 ncol + 4: hg_hybrid_response_gram's propagated responses, as six rows of
                      * 2 ncol rounded up to 4 doubles */
} hg_response;

/* allocates r for ncol right-hand sides (NULL when out of memory); frees it */
hg_response *hg_response_new(const hg_model *m, int ncol);
void hg_response_free(hg_response *r);

/* ncol (<= r->ncol) responses to the nload loads (modes in d->mode); with all = 0, qdd, tau and
 * a are written only on the paths of the loaded bodies (r->on) */
void hg_hybrid_response(const hg_model *m, const hg_data *d, const hg_response_load *load,
                        int nload, int ncol, int all, hg_response *r);

/* The Gram matrix of the same responses, Q = W^T M_h^-1 W (ncol x ncol, row-major): Q_jc the
 * work of right-hand side c's response against the loads of j, each load read as its wrench
 * (nload <= 2 ncol wrench loads, no DoF forces). Through the inverse operational-space inertias
 * Omega_i = K_i Omega_p K_i^T + S_i D_i^-1 S_i^T, K_i = 1 - S_i D_i^-1 U_i^T (K = 1 and no
 * second term across a prescribed joint; Chang and Khatib's recursion on the factors in d),
 * walked down to the deepest loaded body of each tree, each load's response carried further
 * down by K: O(depth) 6 x 6 updates, no sweep per right-hand side. Serves loads whose bodies
 * lie on one path from the root in each tree; returns -1 (Q unwritten) for any other set, 0
 * when Q is written, exactly symmetric (each pair of loads' work summed once into both
 * entries), with *scale the largest term summed into it (what its round-off is relative to,
 * where loads on one tree cancel). */
int hg_hybrid_response_gram(const hg_model *m, const hg_data *d, const hg_response_load *load,
                            int nload, int ncol, hg_response *r, double *Q, double *scale);

/* The perfectly plastic lock of every joint whose mode is not free: the momentum-conserving
 * impulse that brings those joints to rest relative to their parents. Writes the velocity after
 * the lock (v_after), the impulse at every DoF (imp: zero at free joints) and returns through
 * energy_removed the kinetic energy the lock dissipates (>= 0). */
int hg_plastic_lock(const hg_model *m, hg_data *d, const double *q, const double *v,
                    double *v_after, double *imp, double *energy_removed);

/* Kinetic and potential energy (potential of uniform gravity, zero at the world origin). The
 * kinetic energy is v^T M v / 2 with the armature: the bodies' plus sum armature_k v_k^2 / 2. */
void hg_energy(const hg_model *m, hg_data *d, const double *q, const double *v, double *kinetic,
               double *potential);

/* Total spatial momentum (angular about the world origin, linear), world axes: the bodies' only.
 * The armature model neglects the rotors' own momentum and gyroscopic torque (as MuJoCo's and
 * Pinocchio's do). Armature on joints between bodies adds to their rows of M only, so an
 * isolated system still conserves this momentum; armature on a root joint's DoFs is inertia
 * outside the bodies, and then it does not. */
void hg_momentum(const hg_model *m, hg_data *d, const double *q, const double *v, double h[6]);

/* Total mass and centre of mass in the world frame. */
double hg_center_of_mass(const hg_model *m, hg_data *d, const double *q, double com[3]);

#ifdef __cplusplus
}
#endif

#endif
