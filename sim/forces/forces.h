/* forces.h: force elements of a scene, compiled against the current model.
 *
 * Every element adds body wrenches (body frame, about the body origin, 6 per body as in
 * dynamics.h's fext) and joint forces (nv) for a state whose kinematics (hg_kinematics) are in d.
 * Applying allocates nothing. Uniform gravity is not an element: it is the model's gravity. */
#ifndef HINGE_FORCES_H
#define HINGE_FORCES_H

#include "scene.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hg_forces hg_forces;

/* What force elements are compiled from: plain specifications (scene.h), a scene's or a
 * program's own. */
typedef struct hg_force_input {
  int nforce;
  const hg_force_spec *force;
  int nmarker;
  const hg_marker *marker;  /* the markers the elements name */
  hg_builder *bodies;       /* every body the elements may name (absent from the model: inert,
                               not an error), or NULL */
  int lenient;              /* names absent from the model are inert, never errors (bodies may
                               come and go while the simulation runs) */
} hg_force_input;

/* Compiles the elements of in against model m. With prev (the elements of the model before a
 * topology change) each element keeps prev's enabled flag, an element prev had never errs on an
 * absent name (it is inert), and a joint spring whose joint changed type or was detached to the
 * world since prev is inert. NULL with err on an unknown name (err names the element and its
 * file:line:column). */
hg_forces *hg_forces_build(const hg_force_input *in, const hg_forces *prev, const hg_model *m,
                           hg_error *err);
/* the input of a scene: its elements, markers and bodies; lenient when its events or captures
 * change the topology */
void hg_forces_input_of(const hg_scene *s, hg_force_input *in);

/* Compiles the scene's force elements against model m, resolving body, joint and marker names.
 * Elements whose bodies are absent (removed) are kept but inert. NULL with err on an unknown name
 * (err->msg names the element and its file:line:column). */
hg_forces *hg_forces_new(const hg_scene *s, const hg_model *m, hg_error *err);
void hg_forces_free(hg_forces *f);

/* The enabled central-gravity elements at world point x, per unit mass: their potential
 * (returned, J/kg), their field g (world axes, m/s^2; NULL: not wanted), and the first one's
 * centre (world; NULL: not wanted; the world origin when there is none). */
double hg_forces_central_field(const hg_forces *f, const double x[3], double g[3],
                               double centre[3]);

/* The first time after t at which an enabled thrust element switches on or off (inf: none): the
 * force jumps there, so a simulation stops and restarts its integrator at that instant (an
 * integrator stepping over a short pulse would otherwise never see it). */
double hg_forces_next_switch(const hg_forces *f, double t);
/* 1 when an enabled thrust element switches on or off exactly at t */
int hg_forces_switches_at(const hg_forces *f, double t);

/* Body i's inertia in m changed (a tank drains): the elements that hold its mass properties
 * (central gravity: mass, centre of mass, central inertia) read them again. */
void hg_forces_body_inertia(hg_forces *f, const hg_model *m, int i);

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

/* hg_forces_apply, and (power_nc not NULL) hg_forces_power_nc of the same state in one pass:
 * each element is evaluated once for both (a contact element queries its contact points once).
 * Returns 1 when an element that adds body wrenches (any enabled, present element but a joint
 * spring) was applied, 0 when fext was left untouched. */
int hg_forces_apply_power(const hg_forces *f, const hg_model *m, const hg_data *d, double t,
                          const double *q, const double *v, double *fext, double *tau,
                          double *power_nc);

/* 1 when an enabled element present in the model reads the kinematics in d (every kind but the
 * joint spring, whose forces depend on q and v only); with 0, hg_forces_apply_power reads
 * nothing of d and may be given a workspace without kinematics. */
int hg_forces_need_kinematics(const hg_forces *f);

/* Which elements hg_forces_apply_part applies: all, those whose derivatives hg_forces_derivatives
 * gives (analytic), or the others (numeric). */
typedef enum { HG_FORCES_ALL, HG_FORCES_NUMERIC, HG_FORCES_ANALYTIC } hg_forces_part;

/* hg_forces_apply restricted to part of the elements. */
void hg_forces_apply_part(const hg_forces *f, const hg_model *m, const hg_data *d, double t,
                          const double *q, const double *v, hg_forces_part part, double *fext,
                          double *tau);

/* 1 when element k's derivatives are analytic: a joint spring on any joint but a free one (whose
 * force J_r(xi)^-T xi is left to central differences); 0 otherwise. */
int hg_forces_analytic(const hg_forces *f, const hg_model *m, int k);

/* Adds to dtau_dq (nv x nv, row-major, column = tangent component of q as in derivatives.h) and
 * dtau_dv the derivatives of the joint forces of the enabled analytic elements at q:
 * -k J_r(xi)^-1 (SO(3)) or -k (Euclidean joints), and -c. */
void hg_forces_derivatives(const hg_forces *f, const hg_model *m, const double *q,
                           double *dtau_dq, double *dtau_dv);

/* element k's name (NULL when k is out of range) */
const char *hg_forces_name(const hg_forces *f, int k);

/* Potential energy of the conservative elements (central gravity, springs, including disabled
 * ones' zero) for the kinematics in d. */
double hg_forces_potential(const hg_forces *f, const hg_model *m, const hg_data *d,
                           const double *q);

/* Power delivered to the system by the non-conservative parts (dampers, drag, parachutes,
 * thrusters): negative when they dissipate. With hg_forces_potential it closes the energy budget:
 * d/dt (kinetic + gravity potential + element potential) = power_nc + prescribed-joint power. */
double hg_forces_power_nc(const hg_forces *f, const hg_model *m, const hg_data *d, double t,
                          const double *q, const double *v);

/* The restitution of a contact element's normal law k d^n (1 + 3/2 c dd/dt) at impact speed v,
 * which depends only on cv = c v and n (scaled time integration; docs/contact.md), and the
 * dissipation c that gives restitution e in (0, 1] at impact speed v (the inverse, by bisection
 * to round-off). Gravity and other forces during the impact are neglected. */
double hg_contact_restitution(double cv, double n);
double hg_contact_dissipation(double e, double v, double n);

/* An impulsive contact element's impacts are found where its gap falls to this skin (m), so
 * that the closest points are apart and define the normal. */
#define HG_CONTACT_SKIN 1e-5

/* The root function of contact element k's touch-down for the kinematics in d: the signed
 * distance between the collision geometry of its two sides (the pairs it considers: collision.h's
 * hg_collision_contact_gap), > 0 apart, < 0 in contact, less HG_CONTACT_SKIN when its impacts are
 * impulsive. 0, or -1 when k is not an enabled, present contact element with shapes on both
 * sides. The simulation finds touch-downs as its zero crossings. */
int hg_forces_contact_gap(const hg_forces *f, int k, const hg_model *m, const hg_data *d,
                          double *gap);

/* where contact element k's sides are closest now, for an impact: */
typedef struct hg_forces_impact {
  double gap;            /* their signed distance, m */
  double pa[3], pb[3];   /* the closest points on the first and second side (world) */
  int body_a, body_b;    /* their bodies */
  int impulsive;         /* the element's impacts are impulses ... */
  double restitution;    /* ... of this coefficient ... */
  double min_speed;      /* ... when the sides approach faster than this (m/s) */
} hg_forces_impact;
/* 0, or -1 as hg_forces_contact_gap */
int hg_forces_contact_impact(const hg_forces *f, int k, const hg_model *m, const hg_data *d,
                             hg_forces_impact *out);

/* Contact element k's pairs of bodies, one on each side, that are parent and child in m and that
 * it leaves out for that: every such pair but the one it names alone on its sides while the joint
 * between them is neither fixed nor locked in d->mode (scene.h's hg_contact_names_pair). Returns
 * how many (each pair once), and the first max of them as (parent, child) in pairs[0..2 max). 0
 * when k is not a contact element or is inert. */
int hg_forces_contact_held(const hg_forces *f, int k, const hg_model *m, const hg_data *d,
                           int *pairs, int max);

/* The longest time step in which no pair of bodies that an enabled contact element tests (one
 * on each side, both with shapes, not left out: collision.h's hg_collision_excluded) closes by
 * more than the gap between their bounding spheres about their origins plus half the thinner of
 * their thinnest shapes, at their present relative speed (kinematics and velocities in d) and
 * the relative acceleration seen since the last call (tw: 6 per body of the model, the world
 * twists (w, v of the origin) the last call left, over dt seconds; dt <= 0: none known). Only
 * relative motion counts: bodies moving together (in orbit) or far apart do not shorten the step.
 * A bound that keeps a step from carrying a body through another (tunnelling); it writes the
 * present twists of the elements' bodies into tw. +inf when nothing closes or no contact element
 * is enabled. */
double hg_forces_contact_step(const hg_forces *f, const hg_model *m, const hg_data *d, double *tw,
                              double dt);

/* What element k does now, for drawing it (kinematics of the state in d): the points it acts at
 * (world), the force it applies there (world axes; for a spring, the force on b, and -force on
 * a) and its magnitude. Central gravity gives the planet centre as a and the total force on the
 * bodies as force; a joint spring gives its joint's child-body origin as a and b and the norm of
 * its joint forces as magnitude. */
typedef struct hg_force_view {
  const char *name;
  hg_force_type type;
  int enabled, inert;
  int body_a, body_b;   /* bodies it acts on (-1: none; 0: the world) */
  double a[3], b[3];    /* points of action, world */
  double force[3];      /* world axes */
  double magnitude;     /* N (joint spring: N or N m) */
  double length;        /* spring: the current length; drag/parachute: the airspeed; contact:
                           the deepest penetration, m */
  int ncontact;         /* contact: the points in contact (a = b = the deepest; force: the total
                           force on the second side, world) */
} hg_force_view;
void hg_forces_view(const hg_forces *f, const hg_model *m, const hg_data *d, double t,
                    const double *q, const double *v, int k, hg_force_view *out);

#ifdef __cplusplus
}
#endif

#endif
