/* forces.h: force elements of a scene, compiled against the current model.
 *
 * Every element adds body wrenches (body frame, about the body origin, 6 per body as in
 * dynamics.h's fext) and joint forces (nv) for a state whose kinematics (hg_kinematics) are in d.
 * Applying allocates nothing. Uniform gravity is not an element: it is the model's gravity. */
#ifndef HINGE_FORCES_H
#define HINGE_FORCES_H

#include "scene.h"

typedef struct hg_forces hg_forces;

/* Compiles the scene's force elements against model m, resolving body, joint and marker names.
 * Elements whose bodies are absent (removed) are kept but inert. NULL with err on an unknown name
 * (err->msg names the element and its file:line:column). */
hg_forces *hg_forces_new(const hg_scene *s, const hg_model *m, hg_error *err);
void hg_forces_free(hg_forces *f);

/* number of elements, index by name (-1 if none), and enabling */
int hg_forces_count(const hg_forces *f);
int hg_forces_find(const hg_forces *f, const char *name);
void hg_forces_set_enabled(hg_forces *f, int k, int on);
int hg_forces_enabled(const hg_forces *f, int k);

/* After a change of topology: compiles s against the new model m like hg_forces_new, and also
 * keeps prev's enabled flags (by name); a name that prev's element of the same name had but m
 * lacks makes it inert rather than an error, and so does a joint spring whose joint changed type
 * or was detached to the world since prev. prev stays valid. (hg_forces_new makes an element with
 * an absent body or joint inert when s->builder still has the name or the scene has topology
 * events or captures; an error otherwise. forces.c lists the rules.) */
hg_forces *hg_forces_renew(const hg_forces *prev, const hg_scene *s, const hg_model *m,
                           hg_error *err);
/* 1 when element k is inert (a body or joint it needs is absent from the model) */
int hg_forces_inert(const hg_forces *f, int k);

/* Adds every enabled element's wrenches to fext (6 x nbody, body frames) and joint forces to tau
 * (nv) at time t, for the state (q, v) whose kinematics d holds. */
void hg_forces_apply(const hg_forces *f, const hg_model *m, const hg_data *d, double t,
                     const double *q, const double *v, double *fext, double *tau);

/* Potential energy of the conservative elements (central gravity, springs, including disabled
 * ones' zero) for the kinematics in d. */
double hg_forces_potential(const hg_forces *f, const hg_model *m, const hg_data *d,
                           const double *q);

/* Power delivered to the system by the non-conservative parts (dampers, drag, parachutes,
 * thrusters): negative when they dissipate. With hg_forces_potential it closes the energy budget:
 * d/dt (kinetic + gravity potential + element potential) = power_nc + prescribed-joint power. */
double hg_forces_power_nc(const hg_forces *f, const hg_model *m, const hg_data *d, double t,
                          const double *q, const double *v);

#endif
