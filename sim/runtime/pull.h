/* pull.h: the pull of a perturb action (not a public header): a spring-damper from a body point to
 * a target fixed in the world or in another body, compiled as a force element of its own (pull.c
 * says how).
 *
 * Frames: marker[0] is the body point (its pose in the body frame), marker[1] the target (its pose
 * in its body's frame: the world's, or the frame body's).
 *
 * Who writes each field: hg_sim_pull_start, hg_sim_pull_release and hg_sim_pull_renew (pull.c);
 * forces is NULL when nothing pulls. */
#ifndef HINGE_RT_PULL_H
#define HINGE_RT_PULL_H

#include "sim.h"

typedef struct hg_rt_pull {
  hg_forces *forces;      /* the one element, or NULL */
  hg_force_spec spec;
  hg_marker marker[2];    /* the body point, the target (marker[1].body: "world" or a body) */
} hg_rt_pull;

/* starts or moves the pull of act on its body; 0 or -1 with s->err */
int hg_sim_pull_start(hg_sim *s, const hg_action *act);
void hg_sim_pull_release(hg_sim *s);
/* 1 when a pull acts and is an external force: its target is fixed in the world, or moves with
 * the free-flying bodies' centre of mass while the pulled body is not one of them */
int hg_sim_pull_anchored(const hg_sim *s);
/* the frame the pull's target is fixed in: "world", a body's name or "com"; NULL: no pull */
const char *hg_sim_pull_frame(const hg_sim *s);
/* recompiles the pull against a new model (inert when its body is gone); 0 or -1 */
int hg_sim_pull_renew(hg_sim *s, const hg_model *m, hg_error *err);

#endif
