/* rhs.h: the integrated system of the simulation runtime (not a public header): the workspace of
 * the right-hand side f(t, q, v) and the integrator that calls it.
 *
 * Frames: qs, vs, qdd, tau, tau_el, dv, imp, vdot are in the joint coordinates and rates of the
 * current model (nq or nv entries); fext holds one body wrench per body (6 nbody: moment, force,
 * in the body frame about its origin, as hg_hybrid takes them); contact_tw one world twist per
 * body (angular velocity, velocity of the origin; world axes).
 *
 * Who writes each field:
 *   qs, vs, qdd, tau, tau_el, fext  sim_eval (rhs.c: hg_sim_eval, hg_sim_rhs); the roots
 *                  (hg_sim_roots, triggers.c) write qs and vs when no trigger needs the loads;
 *                  view_state (views.c) marks the loads unknown (NaN) when the state cannot be
 *                  evaluated
 *   dv, imp, vdot  impulse scratch: hg_sim_mode_impulse (sim_modes.c), the impulse and impact
 *                  actions of events.c
 *   cache_*        hg_sim_accel (rhs.c); cleared by hg_sim_new_integrator and hg_sim_restart
 *   I, sys, stats_done, contact_tw, contact_t   integration.c (contact_t also reset to NaN
 *                  for each new model)
 * All arrays are sized by hg_sim_install_model (sim_model.c) and freed by hg_sim_free_model. */
#ifndef HINGE_RT_RHS_H
#define HINGE_RT_RHS_H

#include "integrator.h"
#include "sim.h"

typedef struct hg_rt_rhs {
  /* the right-hand side's workspace */
  double *qs, *vs;        /* the evaluated state with the prescribed joints on their profiles */
  double *qdd;            /* accelerations */
  double *tau;            /* loads at prescribed joints, element forces at free ones */
  double *tau_el;         /* the element forces alone */
  double *fext;           /* 6 nbody: the elements' body wrenches */
  double *vdot;           /* target velocities of the mode impulse */
  double *dv, *imp;       /* impulses at events */
  int cache_ok;           /* the power cache holds (cache_t, cache_q, cache_v) */
  double cache_t, *cache_q, *cache_v, cache_power;

  /* the integrator */
  hg_integrator *I;
  hg_system sys;
  hg_integ_stats stats_done; /* statistics of integrators already freed */
  double *contact_tw;     /* 6 nbody: the bodies' world twists at the last contact step bound */
  double contact_t;       /* its time (NaN: none yet for this model) */
} hg_rt_rhs;

/* ---- rhs.c: the right-hand side ---- */
/* the full evaluation at (t, q, v): rhs.qs/vs (profiles applied), qdd, tau (loads at prescribed
 * joints, element forces at free ones), returns the power of the non-conservative forces and
 * prescribed joints through *power; 0 or -1. s->d holds that state's kinematics after it. */
int hg_sim_eval(hg_sim *s, double t, const double *q, const double *v, double *power);
/* the integrator's right-hand side: hg_sim_eval's qdd, tau and power, without the promise of
 * kinematics in s->d */
int hg_sim_rhs(hg_sim *s, double t, const double *q, const double *v, double *power);
/* the integrated system's callbacks (hg_system): vdot = f(t, q, v), caching the power for the
 * quadrature Wdot at the same point */
int hg_sim_accel(void *user, double t, const double *q, const double *v, double *vdot);
int hg_sim_quad(void *user, double t, const double *q, const double *v, double *wdot);

/* ---- integration.c: the integrator ---- */
/* a new integrator at (t, q, v) with the current quadrature; 0 or -1 with s->err */
int hg_sim_new_integrator(hg_sim *s);
/* restarts the integrator at the current state (an event or a checkpoint) */
int hg_sim_restart(hg_sim *s);
/* integrates to stop (the contact elements bound each step when the scene has some): the
 * integrator's status */
int hg_sim_advance(hg_sim *s, double stop);
/* pulls (t, q, v, W) from the integrator and puts the prescribed joints on their profiles */
void hg_sim_pull_state(hg_sim *s);
/* the integrator statistics so far */
void hg_sim_add_stats(hg_integ_stats *acc, const hg_integ_stats *st);

#endif
