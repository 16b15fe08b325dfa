/* pull.c: the perturbation a hand or a mouse applies (perturb and release actions): a point of a
 * body pulled towards a fixed world target by a spring-damper, F = k (target - p) - c p'.
 *
 * It is a marker spring of zero free length between a marker on the body and a marker on the
 * world, compiled as a force element of its own, so it adds its wrench, its potential k L^2 / 2
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
  in->force = &s->pull_spec;
  in->nmarker = 2;
  in->marker = s->pull_marker;
  in->lenient = 1; /* a pulled body that is removed makes the pull inert */
}

void hg_sim_pull_release(hg_sim *s) {
  hg_forces_free(s->pull);
  s->pull = NULL;
  free(s->pull_marker[0].body);
  s->pull_marker[0].body = NULL;
}

int hg_sim_pull_renew(hg_sim *s, const hg_model *m, hg_error *err) {
  hg_force_input in;
  if (!s->pull) return 0;
  pull_input(s, &in);
  hg_forces *f = hg_forces_build(&in, s->pull, m, err);
  if (!f) return -1;
  hg_forces_free(s->pull);
  s->pull = f;
  return 0;
}

int hg_sim_pull_start(hg_sim *s, const hg_action *act) {
  hg_error err;
  char *body = hg_strdup(act->body);
  if (!body) return hg_sim_fail(s, HG_SIM_ERR_NUMERIC, "out of memory"), -1;
  hg_sim_pull_release(s);
  s->pull_marker[0] = (hg_marker){.name = "pull_point", .body = body};
  hg_se3_identity(&s->pull_marker[0].pose);
  memcpy(s->pull_marker[0].pose.p, act->point, sizeof act->point);
  s->pull_marker[1] = (hg_marker){.name = "pull_target", .body = "world"};
  hg_se3_identity(&s->pull_marker[1].pose);
  memcpy(s->pull_marker[1].pose.p, act->target, sizeof act->target);
  s->pull_spec = (hg_force_spec){.name = "pull",
                                 .type = HG_FORCE_SPRING,
                                 .enabled = 1,
                                 .marker_a = "pull_target",
                                 .marker_b = "pull_point",
                                 .stiffness = act->stiffness,
                                 .damping = act->damping,
                                 .src = act->src};
  hg_force_input in;
  pull_input(s, &in);
  s->pull = hg_forces_build(&in, NULL, s->m, &err);
  if (!s->pull) {
    hg_sim_pull_release(s);
    return hg_sim_fail(s, HG_SIM_ERR_NUMERIC, "t = %.17g: perturb: %s", s->t, err.msg), -1;
  }
  return 0;
}

int hg_sim_pull(hg_sim *s, hg_force_view *fv) {
  if (!s->pull) return -1;
  hg_kinematics(s->m, s->d, s->q, s->v);
  hg_forces_view(s->pull, s->m, s->d, s->t, s->q, s->v, 0, fv);
  return 0;
}
