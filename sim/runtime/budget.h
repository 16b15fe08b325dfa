/* budget.h: the energy and momentum budget of the simulation runtime (not a public header).
 *
 * The energy budget B = KE + PE + PE_elements + E_lock - W - W_event stays at its initial value
 * b0 as long as the integration is exact: E_lock is the kinetic energy the plastic locks removed,
 * W the work of the non-conservative forces and prescribed joints (state.quad, integrated with
 * the state), W_event the change of energy the events made on purpose. Momentum is tracked over
 * the stretches in which nothing acts on the system from outside (hg_sim_momentum_track, sim.h),
 * split at every window where something does (thrusters firing, thrust windows, pulls), and
 * measured against the run's peak of the bodies' summed momenta.
 *
 * Frames: h_ref and the tracker's momenta are world momenta (angular about the world origin,
 * linear; world axes); energies in J.
 *
 * Who writes each field (hg_ck_resume, checkpoint.c, reads all but mt's stretches back):
 *   b0, h_ref      hg_sim_budget_start (budget.c, at creation); h_ref also hg_sim_budget_book
 *   e_lock, w_event   hg_sim_budget_book (budget.c, for each event hg_sim_fire applies)
 *   b_scale        hg_sim_budget_value (budget.c: the largest scale seen)
 *   max_abs, max_drift   hg_sim_budget_track (budget.c, at each output row)
 *   mt             hg_sim_track_momentum, hg_sim_track_switch (budget.c) */
#ifndef HINGE_RT_BUDGET_H
#define HINGE_RT_BUDGET_H

#include "sim.h"

typedef struct hg_rt_budget {
  double e_lock;          /* kinetic energy removed by plastic locks (J) */
  double w_event;         /* energy the events changed on purpose (J) */
  double b0;              /* the initial budget value */
  double b_scale;         /* its scale: the largest sum of the terms' magnitudes seen */
  double max_abs;         /* the largest |B - b0| at output rows (J) */
  double max_drift;       /* max_abs / b_scale: the drift relative to the run's scale so far (a
                             run from rest is measured against the energies it reaches, never
                             against the near-zero ones of its first rows) */
  /* momentum: the reference (the start of the current isolated stretch) and the stretches */
  double h_ref[6];
  hg_sim_momentum_track mt;
} hg_rt_budget;

/* A budget off by more than 1 % of its scale: the run has left the physics (a blow-up injects
 * energy; integration error at any tolerance a scene uses stays orders of magnitude below). */
#define HG_DIVERGED 1e-2

/* kinetic, gravity potential and element potential of (q, v) */
void hg_sim_energy(hg_sim *s, const double *q, const double *v, double *ke, double *pe,
                   double *pel);
/* momentum (world) and the sums of the bodies' angular and linear momentum magnitudes */
void hg_sim_momentum_scale(hg_sim *s, const double *q, const double *v, double h[6],
                           double scale[2]);
/* the budget value B of the current state */
double hg_sim_budget_value(hg_sim *s);
/* the energy budget's drift at the current state, relative to its scale */
double hg_sim_budget_drift(hg_sim *s);
/* the initial budget and momentum reference, at the initial state */
void hg_sim_budget_start(hg_sim *s);
/* books event ev, whose locks removed e_lock: its energy change as event work, its momentum as
 * the new reference when it does not conserve it */
void hg_sim_budget_book(hg_sim *s, const hg_sim_event *ev, double e_lock);
/* the drift of the energy budget and of the momentum at the current state (an output row) */
void hg_sim_budget_track(hg_sim *s);
/* momentum tracking (hg_sim_momentum_track) at an event that was just applied (ev) or, with ev
 * NULL, at the current state; needs the kinematics of the current state in s->d */
void hg_sim_track_momentum(hg_sim *s, const hg_sim_event *ev);
/* momentum tracking at an instant where what acts from outside may have changed (a thruster's
 * valve or ramp, a thrust element's window, a touch): the momentum is continuous across it, so
 * the present state ends the open stretch when the system stops being isolated here */
void hg_sim_track_switch(hg_sim *s);

#endif
