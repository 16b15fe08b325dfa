/* sim_loops.h: the closed loops part of the simulation runtime (not a public header): the loops of
 * the run (the scene's, then those an attach between bodies of one tree makes), which of them are
 * closed, and their constraint core (loops.h) compiled against the current model.
 *
 * A loop is present when its markers' bodies (a coupling's joints) are in the model; only present
 * loops are compiled, and only present closed loops act. A loop an attach makes is a weld that
 * holds the two ports at the relative pose they had at the instant of docking (as a docking
 * joint, locked, does), so closing it moves nothing; a scene loop closes only where its markers
 * already meet (within HG_LOOP_MEET m and rad), or within the tolerances of the scene's capture of
 * those two markers, in which case the state is projected onto the closed configuration first.
 *
 * Frames: as loops.h (lambda in the rows' frames; views turn it into A's axes and the world's).
 *
 * Who writes each field:
 *   n, cap, loop        hg_sim_loops_init (sim_loops.c: the scene's), hg_sim_loop_dock (the
 *                       attach-made), hg_ck_resume through the replayed events
 *   loop[].active       hg_sim_loops_init (the scene's 'active'), hg_sim_loop_close and
 *                       hg_sim_loop_open (the close, open, attach and undock actions of events.c)
 *   L, nl, rt, active, end   hg_sim_loops_compile, at every hg_sim_install_model (sim_model.c);
 *                       active and nactive also hg_sim_loop_close and hg_sim_loop_open
 *   eff, neff           hg_sim_loops_solve, before every use of the compiled loops (the joint
 *                       modes decide it)
 *   lambda, lambda_ok   sim_eval (rhs.c) at every evaluation with closed loops
 *   max_pos, max_vel, redundant   hg_sim_loops_row (views.c; sim.c calls it at every output row) */
#ifndef HINGE_RT_SIM_LOOPS_H
#define HINGE_RT_SIM_LOOPS_H

#include "loops.h"
#include "sim.h"

/* how close (m and rad) a scene loop's markers must be to close without a capture's tolerance */
#define HG_LOOP_MEET 1e-6
/* the residual (m and rad) the projection brings every closed loop below */
#define HG_LOOP_PROJECT_TOL 1e-11

typedef struct hg_rt_loop {
  char *name;                /* owned */
  const hg_loop_spec *spec;  /* the scene's loop, or NULL for one an attach made */
  char *marker[2];           /* attach-made: the two ports (owned) */
  hg_se3 hold;               /* attach-made: frame B seen from frame A when it docked */
  int active;                /* closed */
  int k;                     /* its index among the compiled loops, -1 when absent */
} hg_rt_loop;

typedef struct hg_rt_loops {
  int n, cap;
  hg_rt_loop *loop;
  hg_loops *L;               /* the present loops compiled against s->m; NULL when none */
  int nl;                    /* present loops */
  int *rt;                   /* nl: the run's loop of each compiled loop */
  unsigned char *active;     /* nl: closed */
  int nactive;
  int *end;                  /* 2 nl: the bodies of each compiled loop (a coupling's joints) */
  unsigned char *eff;        /* nl: closed and able to act: some DoF between its ends is free
                                (a loop whose path is all locked or prescribed holds nothing the
                                locks do not; the solve leaves it out, as its least-squares
                                multipliers would be zero) */
  int neff;
  double *lambda;            /* the multipliers of the last evaluation, stacked by active loop */
  int lambda_ok;             /* lambda holds the current state's (with rhs.tau) */
  double *G;                 /* scratch: one loop's rows (maxrows x nv) */
  unsigned char *mask;       /* scratch: nl */
  double max_pos, max_vel;   /* the largest violations at the output rows so far */
  int redundant;             /* the largest rank deficiency of a solve at the output rows */
} hg_rt_loops;

/* the scene's loops (names and active flags); 0 or -1 with err */
int hg_sim_loops_init(hg_sim *s, hg_error *err);
void hg_sim_loops_free(hg_sim *s);
/* compiles the present loops against s->m (from hg_sim_install_model); 0 or -1 with err */
int hg_sim_loops_compile(hg_sim *s, hg_error *err);
/* 1 when a closed loop is compiled against the current model (hg_sim_loops_solve says whether
 * one can act now) */
static inline int hg_sim_loops_on(const hg_rt_loops *l) { return l->L && l->nactive > 0; }
/* the closed loops that can act under the current joint modes into eff; their number */
int hg_sim_loops_solve(hg_sim *s);
/* the run's loop named name, or -1 */
int hg_sim_loop_find(const hg_sim *s, const char *name);

/* the start: every closed loop's markers meet within its assembly tolerance (else err at the
 * loop's file:line:column with the distance, the angle and the joints that move them), then the
 * state is projected onto the closed configuration. 0 or -1 with err */
int hg_sim_loops_start(hg_sim *s, hg_error *err);

/* Closes loop r now: refused (1, why in msg) when absent or apart; else the state is projected
 * (where a capture's tolerance allowed the gap: msg then says how far and the projection's energy
 * change; else msg is empty) and the plastic impulse applied; *e_removed gets its kinetic energy
 * loss. 0, 1, or -1 on a numerical failure (s->err). */
int hg_sim_loop_close(hg_sim *s, int r, double *e_removed, char *msg, size_t len);
/* opens loop r (velocities kept); 0, or 1 when it was not closed */
int hg_sim_loop_open(hg_sim *s, int r);
/* A weld between ports ma and mb (on bodies of one tree) holding their relative pose now,
 * named name; closed by hg_sim_loop_close. The loop's index, or -1 (s->err) out of memory. */
int hg_sim_loop_dock(hg_sim *s, const char *name, const char *ma, const char *mb);

/* the attach-made loop name (made if new) holding B at hold seen from A, closed or not (a
 * checkpoint's record); its index or -1 (s->err) */
int hg_sim_loop_restore(hg_sim *s, const char *name, const char *ma, const char *mb,
                        const hg_se3 *hold, int active);
/* sets loop r closed or open without an impulse (a checkpoint's record); 0 */
int hg_sim_loop_set(hg_sim *s, int r, int active);

/* after an impulse that ignored the loops: the plastic impulse onto G v = 0 (v of the current
 * model); *e_removed (may be NULL) its kinetic energy loss. 0 or -1 (s->err) */
int hg_sim_loops_impulse(hg_sim *s, double *v, double *e_removed);

/* the integrator's projection (hg_project_fn) */
int hg_sim_loops_project(void *user, double t, double *q, double *v, double *eq, double *ev);

/* the statistics at an output row (the current state, evaluated by the views) */
void hg_sim_loops_row(hg_sim *s);

#endif
