/* state.h: the state part of the simulation runtime (not a public header): the time, the
 * configuration and velocity, the work quadrature, and the joint modes' recipes and profiles.
 *
 * Frames: q and v are the joint coordinates and rates of the current model (m->q_adr, m->v_adr;
 * each joint's own frame convention, hg_joint_*); the modes themselves are d->mode (one per body,
 * HG_MODE_*), written only by the functions below and the topology change that carries them.
 *
 * Who writes each field:
 *   t, q, v, quad  hg_sim_pull_state (integration.c: from the integrator after each stretch),
 *                  hg_sim_new (sim.c: t at the start), hg_sim_initial_state (sim_init.c), the actions of hg_sim_fire (events.c:
 *                  impulses and set_state change v and q), hg_sim_mode_impulse (v), hg_sim_topology
 *                  (sim_topology.c: the state mapped onto the new model), hg_ck_resume
 *                  (checkpoint.c); sized by hg_sim_install_model (sim_model.c)
 *   prof, recipe   hg_sim_set_mode and hg_sim_build_profile (sim_modes.c), the set_mode and stop
 *                  actions of events.c (which put a refused mode back), hg_sim_topology (carried by
 *                  joint name), hg_ck_resume (read back); sized by hg_sim_install_model */
#ifndef HINGE_RT_STATE_H
#define HINGE_RT_STATE_H

#include "sim.h"

/* where a prescribed joint's profile comes from, enough to rebuild it after a topology change or
 * from a checkpoint */
enum {
  HG_RECIPE_KEEP = -1,
  HG_RECIPE_INITIAL = 0,
  HG_RECIPE_ACTION = 1,
  HG_RECIPE_COMMAND = 2,
  HG_RECIPE_STOP = 3 /* locked by an end stop (stops.c) */
};

typedef struct hg_recipe {
  int src;                      /* HG_RECIPE_*: keep the velocity, scene->mode[idx],
                                   scene->event[idx].action[act].mode or
                                   cmd[idx].action[act].mode */
  int idx, act;
  double t0;                    /* start time */
  double q0[HG_JOINT_MAXNQ];    /* the joint's configuration at the start */
  double v0[HG_JOINT_MAXNV];    /* and its velocity (HG_RECIPE_KEEP) */
} hg_recipe;

typedef struct hg_rt_state {
  double t;               /* time (s) */
  double *q, *v;          /* nq, nv: joint coordinates and rates of the current model */
  double quad;            /* the work W of the non-conservative forces and prescribed joints (J) */
  hg_profile **prof;      /* nbody: profile of each prescribed joint, or NULL */
  hg_recipe *recipe;      /* nbody: where each joint's mode came from */
} hg_rt_state;

/* ---- sim_modes.c: joint modes and profiles ---- */
/* the profile ps describes for joint j from (t0, q0); ps NULL: the joint keeps velocity v0. NULL
 * with *why when it cannot be made (the one way a profile spec becomes a profile: modes, servos'
 * setpoints, joint_pd references) */
hg_profile *hg_sim_profile_new(const hg_joint *j, const hg_profile_spec *ps, double t0,
                               const double *q0, const double *v0, const char **why);
/* (re)builds joint i's profile from its recipe; 0 or -1 with s->err */
int hg_sim_build_profile(hg_sim *s, int i);
/* sets joint i's mode from a spec starting now; recipe source src/idx/act; 0 or -1 */
int hg_sim_set_mode(hg_sim *s, int i, const hg_mode_spec *ms, int src, int idx, int act);
/* the impulsive switch: velocities of the non-free joints jump to their targets by the
 * momentum-conserving impulse; adds the removed kinetic energy to *e_lock; *external is set when
 * a joint to the world took an impulse. 0 or -1 */
int hg_sim_mode_impulse(hg_sim *s, double *e_lock, int *external);
/* a new profile starts where its joint is when its start is within this of the joint's
 * configuration (rad or m): splines through measured samples round at ~1e-12 */
#define HG_PROFILE_START_TOL 1e-9
/* the largest coordinate difference between joint i's profile at the current time and its
 * configuration; the profile's configuration into qp (nq of the joint) when qp is not NULL */
double hg_sim_profile_jump(const hg_sim *s, int i, double *qp);
/* the leader of joint i when a mimic coupling makes it a follower, else -1 */
int hg_sim_mimic_leader(const hg_model *m, int i);

/* ---- sim_init.c ---- */
/* the scene's initial state and modes at t_start; 0 or -1 with err */
int hg_sim_initial_state(hg_sim *s, hg_error *err);

#endif
