/* integrator.h: the one time-integration interface of hinge.
 *
 * The state is x = (q, v): q lives on the joints' groups G_1 x ... x G_N (nq numbers, unit
 * quaternions for rotations) and v in R^nv (joint rates; body twists of spherical and free joints
 * in the child frame). A system supplies the acceleration vdot = f(t, q, v) and, optionally, root
 * functions g(t, q, v) whose zero crossings are events. Every method keeps q on the group: q only
 * ever changes as q (+) xi = q * exp(xi) (hg_model_integrate), so rotations stay orthonormal and no
 * Euler-angle chart appears.
 *
 * Methods
 *   HG_INTEG_CVODE_BDF    SUNDIALS CVODE, variable-order BDF, Newton iteration with a dense
 *                         linear solver and a finite-difference Jacobian. For stiff systems
 *                         (stiff springs, tiny bodies on long chains).
 *   HG_INTEG_CVODE_ADAMS  CVODE, variable-order Adams-Moulton with fixed-point iteration (no
 *                         Jacobian). The usual production choice for non-stiff multibody systems.
 *   HG_INTEG_RKMK4        Runge-Kutta-Munthe-Kaas, 4th order, fixed step h (4 accelerations per
 *                         step). For the real-time viewer and reproducible fixed-rate runs.
 *   HG_INTEG_LIE_EULER    semi-implicit Lie-Euler, 1st order, fixed step h (1 acceleration per
 *                         step): v += h f(t, q, v), then q = q (+) h v. Cheap and robust for
 *                         interactive use; its error is O(h), so not for measurements.
 *
 * Choosing: CVODE Adams unless the system is stiff (then BDF); RKMK4 when a fixed rate matters
 * (viewer, hardware in the loop) or for cross-checks; Lie-Euler for previews. Measured on a
 * 3-link spatial pendulum and a 32-DoF humanoid (tests/bench/bench_integrators.c), Adams reaches
 * a given error with about half the accelerations of BDF, and RKMK4 needs 2-5x the accelerations
 * of Adams (with less bookkeeping per step). Each re-centring restarts CVODE at order 1, so a
 * larger opt.recentre (up to 2.5 rad) saves steps on fast-spinning bodies.
 *
 * CVODE integrates local coordinates y = (xi, v) with q = q_ref (+) xi and xidot = dexp^-1_xi(v)
 * joint by joint (hg_joint_chart_rate). The chart is re-centred (q_ref <- q_ref (+) xi, xi <- 0,
 * CVodeReInit) when the rotation part of some xi grows past opt.recentre, at every event, and
 * at every hg_integrator_reset; never on ordinary steps. The fixed-step methods re-centre at every
 * step by construction.
 *
 * Events: the root functions are located by CVODE's root finder, or, for the fixed-step methods,
 * by detecting a sign change over a step and solving for the partial step that reaches the zero
 * (Illinois iteration, each trial a re-integrated partial step). Either way advance stops at the
 * event, which is the first time at which g has changed sign (located to ~1e-14 (|t| + h) s), and
 * returns HG_INTEG_ROOT. The caller may then change joint modes, apply an impulse, or edit the
 * state, and must call hg_integrator_reset so integration restarts cleanly from the new state; a
 * change of topology that changes nq or nv needs a new integrator.
 *
 * Errors: when the acceleration fails (non-zero return) or is not finite, the integrator stops and
 * advance returns HG_INTEG_ERR_RHS; hg_integrator_error_message names the time ("right-hand
 * side failed at t = ..."), and hg_integrator_t/q/v give the last good state. CVODE messages are
 * captured, never printed. After any error the integrator refuses to advance (returning the same
 * code) until hg_integrator_reset. */
#ifndef HINGE_INTEGRATOR_H
#define HINGE_INTEGRATOR_H

#include "model.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum hg_integ_method {
  HG_INTEG_CVODE_BDF = 0,
  HG_INTEG_CVODE_ADAMS,
  HG_INTEG_RKMK4,
  HG_INTEG_LIE_EULER
} hg_integ_method;

/* return codes of hg_integrator_advance and hg_integrator_step */
enum {
  HG_INTEG_OK = 0,            /* reached tout (or took one step) */
  HG_INTEG_ROOT = 1,          /* stopped at an event: see hg_integrator_roots */
  HG_INTEG_TSTOP = 2,         /* stopped at opt.t_stop, which lies before tout */
  HG_INTEG_ERR_INPUT = -1,    /* bad argument (tout behind t, a failed integrator) */
  HG_INTEG_ERR_RHS = -2,      /* the acceleration failed or was not finite */
  HG_INTEG_ERR_ROOTFN = -3,   /* a root function failed or was not finite */
  HG_INTEG_ERR_WORK = -4,     /* opt.max_steps steps without reaching tout */
  HG_INTEG_ERR_SOLVER = -5    /* CVODE failed (repeated error-test or convergence failures,
                                 a step size below round-off) */
};

/* vdot = f(t, q, v): nv accelerations; non-zero return means failure */
typedef int (*hg_accel_fn)(void *user, double t, const double *q, const double *v, double *vdot);
/* g = nroot root functions of (t, q, v); non-zero return means failure */
typedef int (*hg_root_fn)(void *user, double t, const double *q, const double *v, double *g);
/* wdot = nquad quadrature rates of (t, q, v), integrated along with the state (the work of
 * non-conservative forces, say); non-zero return means failure */
typedef int (*hg_quad_fn)(void *user, double t, const double *q, const double *v, double *wdot);

/* Projection onto an invariant manifold (closed kinematic loops: constraint rows c(q) = 0 and
 * G(q) v = 0). Projects (q, v) in place: q on its group onto c(q) = 0, v onto G v = 0; eq and ev
 * (nv each, or NULL) are tangent vectors (an error estimate's position part, in tangent
 * coordinates at q, and its velocity part) to project onto the tangent spaces at the projected
 * state. Returns 0; > 0 for a recoverable failure (the step is retried shorter); < 0 fatal. */
typedef int (*hg_project_fn)(void *user, double t, double *q, double *v, double *eq, double *ev);

typedef struct hg_system {
  const hg_model *m;   /* for the joint groups and dimensions (not modified) */
  hg_accel_fn accel;   /* required */
  int nroot;           /* number of root functions (0: none) */
  hg_root_fn roots;    /* required when nroot > 0 */
  const int *root_dir; /* nroot entries: +1 report rising zeros only, -1 falling only, 0 both;
                          NULL: both for all */
  void *user;          /* passed to accel, roots and quad */
  int nquad;           /* number of quadratures w (0: none); they start at zero */
  hg_quad_fn quad;     /* required when nquad > 0 */
  hg_project_fn project; /* NULL: none. CVODE BDF projects after every step through CVODE's own
                          projection (CVodeSetProjFn: error control sees the projected step),
                          and the outputs it interpolates between steps;
                          CVODE Adams, which CVODE cannot project, at the end of every advance
                          or step call, restarting there; the fixed-step methods after every
                          step (and every partial step of an event search) */
} hg_system;

typedef struct hg_integ_options {
  hg_integ_method method;
  /* CVODE: relative tolerance and absolute tolerances per kind of component of y = (xi, v);
   * an absolute tolerance of 0 (the default) means rtol x one unit */
  double rtol;        /* default 1e-6 */
  double atol_angle;  /* rad: rotation parts of xi, revolute and other angles */
  double atol_length; /* m: translation parts of xi, slides */
  double atol_angvel; /* rad/s: angular velocities and joint rates of angles */
  double atol_linvel; /* m/s: linear velocities and slide rates */
  double atol_quad;   /* quadratures, in their own units */
  double max_step;    /* CVODE: largest internal step, 0 for no limit (default 0) */
  double recentre;    /* CVODE: chart radius in rad, in (0, 2.5], default 1.0 */
  double h;           /* fixed-step methods: the step, default 1e-3 s */
  double t_stop;      /* never integrate past this time; default +inf (none) */
  long max_steps;     /* most internal steps per advance call, default 1000000 */
} hg_integ_options;

/* run statistics, cumulative since hg_integrator_new */
typedef struct hg_integ_stats {
  long steps;          /* internal steps taken */
  long rhs_evals;      /* accelerations evaluated (including the finite-difference Jacobians) */
  long jac_evals;      /* CVODE BDF: Jacobian evaluations */
  long err_test_fails; /* CVODE: local error test failures */
  long conv_fails;     /* CVODE: nonlinear solver convergence failures */
  long root_evals;     /* root function evaluations */
  long recentres;      /* chart re-centrings (threshold, events and resets) */
  long events;         /* HG_INTEG_ROOT returns */
  long resets;         /* hg_integrator_reset calls */
  long rhs_retries;    /* accelerations that failed and were retried with a smaller step */
  long projections;    /* calls of sys.project (0 without one) */
} hg_integ_stats;

typedef struct hg_integrator hg_integrator;

/* the defaults above with the given method */
void hg_integ_default_options(hg_integ_options *opt, hg_integ_method method);
/* "cvode-bdf", "cvode-adams", "rkmk4", "lie-euler" */
const char *hg_integ_method_name(hg_integ_method method);
/* method from its name, -1 when unknown */
int hg_integ_method_from_name(const char *name);

/* Integrator for sys from time t0 and state (q0, v0); opt NULL for the defaults (CVODE Adams).
 * Preallocates everything: advancing allocates nothing. NULL with err set on bad options or a
 * failure of the first root-function evaluation. The system is copied; sys->m, sys->user and
 * sys->root_dir must outlive the integrator. */
hg_integrator *hg_integrator_new(const hg_system *sys, const hg_integ_options *opt, double t0,
                                 const double *q0, const double *v0, hg_error *err);
void hg_integrator_free(hg_integrator *I);

/* Integrates to tout >= t. Returns HG_INTEG_OK with the state at tout, HG_INTEG_ROOT at an event
 * before tout, HG_INTEG_TSTOP at opt.t_stop before tout, or a negative error. */
int hg_integrator_advance(hg_integrator *I, double tout);
/* Takes one internal step, but ends at tlimit > t if the step would pass it (CVODE interpolates
 * back to tlimit; a fixed-step method shortens its step). Same return codes as advance. */
int hg_integrator_step(hg_integrator *I, double tlimit);
/* Restarts from (t, q, v) after a discontinuity (mode switch, impulse, edited state): re-centres
 * the chart, re-initializes CVODE, re-evaluates the root functions and clears a failure. */
int hg_integrator_reset(hg_integrator *I, double t, const double *q, const double *v);

/* Bounds the steps from now on by h as well as opt.max_step (h <= 0 or infinite: opt.max_step
 * alone). For a caller whose own knowledge limits the step, such as contact, where a step must
 * not carry a body through another. CVODE only: the fixed-step methods keep their step. */
void hg_integrator_limit_step(hg_integrator *I, double h);

/* the quadratures w (nquad) at the current time, and setting them (a resumed run carries
 * them over; this restarts the integrator like hg_integrator_reset) */
const double *hg_integrator_quad(const hg_integrator *I);
void hg_integrator_set_quad(hg_integrator *I, const double *w);

/* the current state (after an error: the last good state) */
double hg_integrator_t(const hg_integrator *I);
const double *hg_integrator_q(const hg_integrator *I);
const double *hg_integrator_v(const hg_integrator *I);
/* after HG_INTEG_ROOT: nroot entries, +1 for a rising zero, -1 falling, 0 not at an event */
const int *hg_integrator_roots(const hg_integrator *I);
void hg_integrator_stats(const hg_integrator *I, hg_integ_stats *stats);
/* what went wrong last ("" when nothing did) */
const char *hg_integrator_error_message(const hg_integrator *I);

#ifdef __cplusplus
}
#endif

#endif
