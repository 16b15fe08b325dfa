/* pull.c: the perturbation a hand or a mouse applies (perturb and release actions): a point p of
 * a body pulled towards a target x by a spring-damper along the line between them,
 * F = k (x - p) + c (dL/dt) u, u the unit vector from p to x and L their distance.
 *
 * The target is fixed in the world (a hand on the ground) or in another body (a hand in orbit:
 * fixed in the station, it moves with it, so the pull is an internal force that keeps the
 * total momentum and never drags a spacecraft at 7.7 km/s towards a point at rest in the
 * inertial frame). It is a marker spring of zero free length between a marker on the body and a
 * marker on the world or on the frame body, compiled as a force element of its own, so it adds its wrench, its potential k L^2 / 2
 * and its damper's power exactly as the scene's springs do: between two perturb actions the
 * energy budget closes, and moving the target (a new perturb action, an event) changes the
 * potential by an amount the event books as its work. */
#include <stdlib.h>
#include <string.h>

#include "sim_internal.h"

/* the input of the pull's one element */
static void pull_input(hg_sim *s, hg_force_input *in) {
  memset(in, 0, sizeof *in);
  in->nforce = 1;
  in->force = &s->pull.spec;
  in->nmarker = 2;
  in->marker = s->pull.marker;
  in->lenient = 1; /* a pulled body that is removed makes the pull inert */
}

void hg_sim_pull_release(hg_sim *s) {
  hg_forces_free(s->pull.forces);
  s->pull.forces = NULL;
  free(s->pull.marker[0].body);
  s->pull.marker[0].body = NULL;
  if (s->pull.marker[1].body && strcmp(s->pull.marker[1].body, "world") != 0) free(s->pull.marker[1].body);
  s->pull.marker[1].body = NULL;
}

int hg_sim_pull_renew(hg_sim *s, const hg_model *m, hg_error *err) {
  hg_force_input in;
  if (!s->pull.forces) return 0;
  pull_input(s, &in);
  hg_forces *f = hg_forces_build(&in, s->pull.forces, m, err);
  if (!f) return -1;
  hg_forces_free(s->pull.forces);
  s->pull.forces = f;
  return 0;
}

int hg_sim_pull_start(hg_sim *s, const hg_action *act) {
  hg_error err;
  int com = act->frame && !strcmp(act->frame, "com");
  char *body = hg_strdup(act->body), *frame = act->frame && !com ? hg_strdup(act->frame) : NULL;
  if (!body || (act->frame && !com && !frame))
    return free(body), free(frame), hg_sim_fail(s, HG_SIM_ERR_NUMERIC, "out of memory"), -1;
  hg_sim_pull_release(s);
  s->pull.marker[0] = (hg_marker){.name = "pull_point", .body = body};
  hg_se3_identity(&s->pull.marker[0].pose);
  memcpy(s->pull.marker[0].pose.p, act->point, sizeof act->point);
  s->pull.marker[1] = (hg_marker){.name = "pull_target", .body = frame ? frame : "world"};
  hg_se3_identity(&s->pull.marker[1].pose);
  memcpy(s->pull.marker[1].pose.p, act->target, sizeof act->target);
  s->pull.spec = (hg_force_spec){.name = "pull",
                                 .type = HG_FORCE_SPRING,
                                 .enabled = 1,
                                 .marker_a = "pull_target",
                                 .marker_b = "pull_point",
                                 .stiffness = act->stiffness,
                                 .damping = act->damping,
                                 .anchor_com = com,
                                 .src = act->src};
  hg_force_input in;
  pull_input(s, &in);
  s->pull.forces = hg_forces_build(&in, NULL, s->m, &err);
  if (!s->pull.forces) {
    hg_sim_pull_release(s);
    return hg_sim_fail(s, HG_SIM_ERR_NUMERIC, "t = %.17g: perturb: %s", s->state.t, err.msg), -1;
  }
  return 0;
}

const char *hg_sim_pull_frame(const hg_sim *s) {
  return !s->pull.forces ? NULL : s->pull.spec.anchor_com ? "com" : s->pull.marker[1].body;
}

int hg_sim_pull_anchored(const hg_sim *s) {
  if (!s->pull.forces) return 0;
  if (s->pull.spec.anchor_com) { /* internal when the pulled body flies free with the others */
    int i = hg_model_body(s->m, s->pull.marker[0].body);
    return !(i > 0 && s->m->jnt[s->m->root[i]].type == HG_JOINT_FREE);
  }
  return !strcmp(s->pull.marker[1].body, "world");
}

int hg_sim_pull(hg_sim *s, hg_force_view *fv) {
  if (!s->pull.forces) return -1;
  hg_kinematics(s->m, s->d, s->state.q, s->state.v);
  hg_forces_view(s->pull.forces, s->m, s->d, s->state.t, s->state.q, s->state.v, 0, fv);
  return 0;
}
