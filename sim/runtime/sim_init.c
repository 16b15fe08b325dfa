/* sim_init.c: a scene's initial state (joint q and v, world pose and twist of free bodies) and its
 * initial joint modes. */
#include <math.h>
#include <string.h>

#include "sim_internal.h"

/* the joint of a scene name, or -1 with err */
static int find_joint(const hg_sim *s, const char *name, const hg_src *src, hg_error *err) {
  int i = hg_model_joint(s->m, name);
  if (i < 1)
    hg_error_set(err, "%s:%d:%d: unknown joint '%s'", src->file ? src->file : "",
             src->line, src->column, name);
  return i;
}

/* joint coordinates and rates given by name */
static int init_joints(hg_sim *s, hg_error *err) {
  const hg_model *m = s->m;
  for (int k = 0; k < s->scene->njinit; k++) {
    const hg_joint_init_spec *ji = &s->scene->jinit[k];
    int i = find_joint(s, ji->joint, &ji->src, err);
    if (i < 1) return -1;
    if (ji->has_q) {
      memcpy(s->state.q + m->q_adr[i], ji->q, (size_t)m->jnt_nq[i] * sizeof(double));
      hg_joint_normalize(&m->jnt[i], s->state.q + m->q_adr[i]);
    }
    if (ji->has_v) memcpy(s->state.v + m->v_adr[i], ji->v, (size_t)m->jnt_nv[i] * sizeof(double));
  }
  return 0;
}

/* body i on its free joint at a world pose and twist (angular velocity, velocity of its origin,
 * world axes), relative to the parent's current pose and twist */
static void place_body(hg_sim *s, int i, const hg_body_init *bi) {
  const hg_model *m = s->m;
  hg_se3 Tp, Trel, Tj;
  double Vp[6] = {0, 0, 0, 0, 0, 0}, Vw[6], Vb[6], Vpb[6];
  int p = m->parent[i];
  hg_kinematics(m, s->d, s->state.q, s->state.v);
  if (p) {
    Tp = s->d->T_world[p];
    hg_body_twist(m, s->d, p, Vp);
  } else {
    hg_se3_identity(&Tp);
  }
  /* pose: T_joint = offset^-1 Tp^-1 T_world (free joints have no post-offset unless reversed) */
  hg_se3_invmul(&Tp, &bi->pose, &Trel);
  hg_se3_invmul(&m->jnt_offset[i], &Trel, &Tj);
  if (m->has_post[i]) {
    hg_se3 Pi;
    hg_se3_inv(&m->jnt_post[i], &Pi);
    hg_se3_mul(&Tj, &Pi, &Tj);
  }
  double *q = s->state.q + m->q_adr[i], *v = s->state.v + m->v_adr[i];
  memcpy(q, Tj.p, sizeof Tj.p);
  hg_R_to_quat(Tj.R, q + 3);
  /* twist: the body twist minus the parent's twist seen in the body */
  hg_m3_mulTv(bi->pose.R, bi->twist, Vw);
  hg_m3_mulTv(bi->pose.R, bi->twist + 3, Vw + 3);
  hg_se3_invmul(&Tp, &bi->pose, &Trel);
  hg_Ad_inv(&Trel, Vp, Vpb);
  for (int r = 0; r < 6; r++) Vb[r] = Vw[r] - Vpb[r];
  if (m->has_post[i]) hg_Ad(&m->jnt_post[i], Vb, v);
  else memcpy(v, Vb, sizeof Vb);
}

/* free bodies at world poses and twists, parents first */
static int init_bodies(hg_sim *s, hg_error *err) {
  const hg_model *m = s->m;
  for (int i = 1; i < m->nbody; i++)
    for (int k = 0; k < s->scene->nbinit; k++) {
      const hg_body_init *bi = &s->scene->binit[k];
      if (strcmp(bi->body, m->body_name[i]) != 0) continue;
      if (m->jnt[i].type != HG_JOINT_FREE) {
        hg_error_set(err, "%s:%d:%d: body '%s' is given a world pose but its "
                 "joint is %s, not free", bi->src.file ? bi->src.file : "", bi->src.line,
                 bi->src.column, bi->body, hg_joint_type_name(m->jnt[i].type));
        return -1;
      }
      place_body(s, i, bi);
    }
  return 0;
}

/* the modes of the scene, with profiles starting at t_start */
static int init_modes(hg_sim *s, hg_error *err) {
  for (int k = 0; k < s->scene->nmode; k++) {
    const hg_mode_spec *ms = &s->scene->mode[k];
    int i = find_joint(s, ms->joint, &ms->src, err);
    if (i < 1) return -1;
    if (hg_sim_set_mode(s, i, ms, HG_RECIPE_INITIAL, k, 0)) {
      hg_error_set(err, "%s", s->err);
      return -1;
    }
  }
  return 0;
}

int hg_sim_initial_state(hg_sim *s, hg_error *err) {
  double e_lock = 0;
  int external = 0;
  hg_model_neutral(s->m, s->state.q);
  memset(s->state.v, 0, (size_t)s->m->nv * sizeof(double));
  if (init_joints(s, err) || init_bodies(s, err) || init_modes(s, err)) return -1;
  /* mimic followers start where their leaders put them */
  hg_mimic_project(s->m, s->state.q, s->state.v);
  /* locked joints start at rest relative to their parents (momentum kept) */
  if (hg_sim_mode_impulse(s, &e_lock, &external)) {
    hg_error_set(err, "%s", s->err);
    return -1;
  }
  return 0;
}
