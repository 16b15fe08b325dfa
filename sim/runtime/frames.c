/* frames.c: bodies and markers of the current model in the world (poses, twists, the velocity
 * of points) and wrenches on a body as joint forces, for the kinematics in a workspace. */
#include <string.h>

#include "sim_internal.h"

void hg_sim_body_world(hg_sim *s, int i, hg_se3 *T, double tw[6]) {
  double V[6];
  *T = s->d->T_world[i];
  hg_body_twist(s->m, s->d, i, V);
  hg_m3_mulv(T->R, V, tw);
  hg_m3_mulv(T->R, V + 3, tw + 3);
}

void hg_sim_wrench_to_tau(hg_sim *s, hg_data *d, int i, const double p[3], const double w[6],
                          double *tau) {
  const hg_model *m = s->m;
  double Fw[6], Fb[6];
  /* the wrench about the world origin, then in body i's frame about its origin */
  memcpy(Fw, w, sizeof Fw);
  hg_v3_cross_add(p, w + 3, Fw);
  hg_coAd(&d->T_world[i], Fw, Fb);
  memset(tau, 0, (size_t)m->nv * sizeof(double));
  hg_jacobian_transpose(m, d, i, Fb, tau);
}

/* a marker's body and frame in the current model; -1 when the marker or its body is absent */
int hg_sim_resolve_marker(const hg_sim *s, const char *name, int *body, hg_se3 *M) {
  const hg_marker *mk = name ? hg_scene_marker(s->scene, name) : NULL;
  *body = mk ? hg_model_body(s->m, mk->body) : -1;
  if (mk) *M = mk->pose;
  return *body >= 0 ? 0 : -1;
}

/* world pose of a marker frame and the world velocity of its origin (kinematics in s->d) */
void hg_sim_marker_world(hg_sim *s, int body, const hg_se3 *M, hg_se3 *T, double vel[3]) {
  double tw[6], r[3];
  hg_se3 Tb;
  if (body <= 0) {
    *T = *M;
    vel[0] = vel[1] = vel[2] = 0;
    return;
  }
  hg_sim_body_world(s, body, &Tb, tw);
  hg_se3_mul(&Tb, M, T);
  /* v_point = v_origin + w x (p_point - p_origin) */
  for (int k = 0; k < 3; k++) r[k] = T->p[k] - Tb.p[k];
  hg_v3_cross(tw, r, vel);
  for (int k = 0; k < 3; k++) vel[k] += tw[3 + k];
}
