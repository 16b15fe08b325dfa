/* sim_topology.c: run-time topology changes of a simulation (topology.h on the scene's builder,
 * and bodies added from the scene's library): recompile, map the state, place added bodies, carry
 * joint modes and profiles across by joint name, and keep the changes so that a resumed run can
 * replay them. */
#include <stdlib.h>
#include <string.h>

#include "sim_internal.h"
#include "topology.h"

/* ---- modes across a recompile ---- */

/* a carried recipe of a prescribed joint that re-rooting reversed (rebuild_profiles resolves it) */
enum { RECIPE_REVERSED = -2 };

/* The joint modes and their recipes on the new model, by the one rule of topology.h
 * (hg_topology_map_modes): a joint that still joins the same two bodies keeps its mode and its
 * profile. A prescribed joint that re-rooting reversed keeps its velocity from now on (its
 * profile was written in the other direction). d1 holds the new modes; rec1 the recipes. */
static int carry_modes(hg_sim *s, const hg_model *m1, hg_data *d1, hg_recipe *rec1,
                       hg_error *err) {
  const hg_model *m0 = s->m;
  int *from = malloc((size_t)m1->nbody * sizeof *from);
  if (!from) return hg_error_set(err, "out of memory"), -1;
  int rc = hg_topology_map_modes(m0, s->d, m1, d1, from, err);
  for (int i = 1; !rc && i < m1->nbody; i++) {
    memset(&rec1[i], 0, sizeof rec1[i]);
    if (from[i] < 1) continue;
    rec1[i] = s->state.recipe[from[i]];
    int reversed = strcmp(m0->body_name[from[i]], m1->body_name[i]) != 0;
    if (reversed && d1->mode[i] == HG_MODE_PRESCRIBED) rec1[i].src = RECIPE_REVERSED;
  }
  free(from);
  return rc;
}

/* profiles for the carried modes (after the new model and state are installed) */
static int rebuild_profiles(hg_sim *s, const hg_data *d1, const hg_recipe *rec1) {
  const hg_model *m = s->m;
  for (int i = 1; i < m->nbody; i++) {
    s->d->mode[i] = d1->mode[i];
    s->state.recipe[i] = rec1[i];
    if (rec1[i].src == RECIPE_REVERSED) {
      /* reversed: keep the velocity it has now, in its new coordinates */
      hg_recipe *r = &s->state.recipe[i];
      r->src = HG_RECIPE_KEEP;
      r->t0 = s->state.t;
      memcpy(r->q0, s->state.q + m->q_adr[i], (size_t)m->jnt_nq[i] * sizeof(double));
      memcpy(r->v0, s->state.v + m->v_adr[i], (size_t)m->jnt_nv[i] * sizeof(double));
    }
    if (hg_sim_build_profile(s, i)) return -1;
  }
  return 0;
}

/* ---- bodies added from the library ---- */

/* the builder spec of library body i, on its parent in the scene */
static hg_body_spec library_spec(const hg_library *lib, int i) {
  const hg_model *L = lib->model;
  hg_body_spec spec = {.name = L->body_name[i],   .parent = lib->parent[i],
                       .joint_name = L->jnt_name[i], .joint = L->jnt[i],
                       .offset = L->jnt_offset[i],   .has_post = L->has_post[i],
                       .post = L->jnt_post[i],       .inertia = L->inertia[i],
                       .limits = L->limits[i]};
  /* the joint's armature, per DoF */
  for (int k = 0; k < L->jnt_nv[i]; k++) spec.armature[k] = L->armature[L->v_adr[i] + k];
  return spec;
}

/* a root of the library and its subtree into the builder, parents first, then their geometry */
static int add_subtree(hg_builder *b, const hg_library *lib, const char *root, hg_error *err) {
  const hg_model *L = lib->model;
  int r = L ? hg_model_body(L, root) : -1, end;
  if (r < 1 || L->parent[r] != 0) {
    hg_error_set(err, "no body '%s' waits to be added", root);
    return -1;
  }
  end = L->subtree_end[r];
  for (int i = r; i < end; i++) {
    hg_body_spec spec = library_spec(lib, i);
    if (hg_builder_add_body(b, &spec, err)) return -1;
  }
  for (int g = 0; g < L->ngeom; g++) {
    int i = L->geom[g].body;
    if (i >= r && i < end && hg_builder_add_geom(b, L->body_name[i], &L->geom[g], err)) return -1;
  }
  return 0;
}

/* the library's initial joint states on the joints of bodies [r, end) */
static void initial_joints(hg_sim *s, int r, int end) {
  const hg_model *m = s->m;
  const hg_library *lib = &s->scene->library;
  for (int k = 0; k < lib->njinit; k++) {
    const hg_joint_init_spec *ji = &lib->jinit[k];
    int i = hg_model_joint(m, ji->joint);
    if (i < r || i >= end) continue;
    if (ji->has_q) {
      memcpy(s->state.q + m->q_adr[i], ji->q, (size_t)m->jnt_nq[i] * sizeof(double));
      hg_joint_normalize(&m->jnt[i], s->state.q + m->q_adr[i]);
    }
    if (ji->has_v) memcpy(s->state.v + m->v_adr[i], ji->v, (size_t)m->jnt_nv[i] * sizeof(double));
  }
}

/* world pose and body twist of body b (the world: identity, at rest; kinematics in s->d) */
static void body_motion(hg_sim *s, int b, hg_se3 *T, double V[6]) {
  hg_se3_identity(T);
  memset(V, 0, 6 * sizeof(double));
  if (b <= 0) return;
  *T = s->d->T_world[b];
  hg_body_twist(s->m, s->d, b, V);
}

/* Through the world, for a frame R = (body b, frame M on it) other than the parent p's: the added
 * body at T = T_b M pose with body twist V = Ad_{(M pose)^-1} V_b + V_rel, then seen from p:
 * T_pr = T_p^-1 T and V_rel <- V - Ad_{T_pr^-1} V_p */
static void via_world(hg_sim *s, int b, const hg_se3 *M, const hg_se3 *pose, int p, hg_se3 *Tpr,
                      double Vrel[6]) {
  hg_se3 Tb, Tp, Tw;
  double Vb[6], Vp[6], Vr[6];
  hg_kinematics(s->m, s->d, s->state.q, s->state.v);
  body_motion(s, b, &Tb, Vb);
  body_motion(s, p, &Tp, Vp);
  hg_se3_mul(M, pose, Tpr);
  hg_se3_mul(&Tb, Tpr, &Tw);
  hg_Ad_inv(Tpr, Vb, Vr);
  for (int k = 0; k < 6; k++) Vrel[k] += Vr[k];
  hg_se3_invmul(&Tp, &Tw, Tpr);
  hg_Ad_inv(Tpr, Vp, Vr);
  for (int k = 0; k < 6; k++) Vrel[k] -= Vr[k];
}

/* Root r's free joint at the action's pose and twist relative to the frame R: the action's marker
 * (frame M on body b), else r's parent p. The twist is the body's motion relative to R in R's axes,
 * so its body twist relative to R is V_rel = (R_pose^T w, R_pose^T v). When R is fixed on p, the
 * joint sees T_pr = M pose and V_rel directly; otherwise they go through the world. Then
 * T_joint = offset^-1 T_pr post^-1 and V_joint = Ad_post V_rel. */
static void place_root(hg_sim *s, const hg_action *act, int r) {
  const hg_model *m = s->m;
  int p = m->parent[r], b = p;
  hg_se3 M, Tpr, Tj, Pi;
  double Vrel[6], Vj[6];
  hg_se3_identity(&M);
  if (act->marker_a && hg_sim_resolve_marker(s, act->marker_a, &b, &M)) {
    b = p;
    hg_se3_identity(&M);
  }
  hg_m3_mulTv(act->pose.R, act->twist, Vrel);
  hg_m3_mulTv(act->pose.R, act->twist + 3, Vrel + 3);
  if (b == p) hg_se3_mul(&M, &act->pose, &Tpr);
  else via_world(s, b, &M, &act->pose, p, &Tpr, Vrel);
  hg_se3_invmul(&m->jnt_offset[r], &Tpr, &Tj);
  if (m->has_post[r]) {
    hg_se3_inv(&m->jnt_post[r], &Pi);
    hg_se3_mul(&Tj, &Pi, &Tj);
  }
  hg_joint_configuration(&m->jnt[r], &Tj, s->state.q + m->q_adr[r]);
  if (m->has_post[r]) hg_Ad(&m->jnt_post[r], Vrel, Vj);
  else memcpy(Vj, Vrel, sizeof Vj);
  hg_joint_velocity(&m->jnt[r], s->state.q + m->q_adr[r], Vj, s->state.v + m->v_adr[r]);
}

/* the states of the bodies an add brought: initial joint states, then the root's placement */
static void place_added(hg_sim *s, const hg_topo_op *op) {
  int r = hg_model_body(s->m, op->body);
  if (r < 1) return;
  initial_joints(s, r, s->m->subtree_end[r]);
  if (s->m->jnt[r].type == HG_JOINT_FREE) place_root(s, op->add, r);
}

/* ---- topology changes ---- */

/* the builder edit of an op */
static int edit_builder(hg_sim *s, const hg_topo_op *op, hg_error *err) {
  hg_builder *b = s->builder;
  if (op->type == HG_ACTION_ADD) return add_subtree(b, &s->scene->library, op->body, err);
  if (op->type == HG_ACTION_DETACH) return hg_topology_detach(b, op->body, err);
  if (op->type == HG_ACTION_ATTACH)
    return hg_topology_attach(b, op->parent, op->body, op->joint, &op->T, err);
  return hg_topology_remove(b, op->body, err);
}

int hg_sim_topology(hg_sim *s, const hg_topo_op *op, int with_state) {
  static const char *const what[] = {[HG_ACTION_DETACH] = "detach", [HG_ACTION_ATTACH] = "attach",
                                     [HG_ACTION_REMOVE] = "remove", [HG_ACTION_ADD] = "add"};
  hg_error err;
  double *q1 = NULL, *v1 = NULL;
  hg_recipe *rec1 = NULL;
  hg_data *d1 = NULL;
  hg_model *m1 = NULL;
  int rc = edit_builder(s, op, &err);
  if (!rc) rc = !(m1 = hg_builder_compile(s->builder, &err));
  if (!rc) {
    d1 = hg_data_new(m1);
    q1 = malloc(((size_t)m1->nq + 1) * sizeof(double));
    v1 = malloc(((size_t)m1->nv + 1) * sizeof(double));
    rec1 = calloc((size_t)m1->nbody, sizeof *rec1);
    if (!d1 || !q1 || !v1 || !rec1) rc = -1, hg_error_set(&err, "out of memory");
  }
  /* the state: every body keeps its world pose and velocity; the modes by joint */
  if (!rc && with_state)
    rc = hg_topology_map_state(s->m, s->d, s->state.q, s->state.v, m1, d1, q1, v1, &err) ||
         carry_modes(s, m1, d1, rec1, &err);
  if (rc) {
    hg_sim_fail(s, HG_SIM_ERR_NUMERIC, "t = %.17g: %s '%s': %s", s->state.t, what[op->type],
                op->body, err.msg);
    hg_model_free(m1);
    goto done;
  }
  /* the new model, then its state, modes and profiles, and a new integrator */
  if (hg_sim_install_model(s, m1, &err)) {
    hg_sim_fail(s, HG_SIM_ERR_NUMERIC, "t = %.17g: %s", s->state.t, err.msg);
    goto done;
  }
  if (with_state) {
    memcpy(s->state.q, q1, (size_t)s->m->nq * sizeof(double));
    memcpy(s->state.v, v1, (size_t)s->m->nv * sizeof(double));
    if (rebuild_profiles(s, d1, rec1)) goto done;
    if (op->type == HG_ACTION_ADD && op->add) place_added(s, op);
  }
  if (hg_sim_push_topo(s, op)) hg_sim_fail(s, HG_SIM_ERR_NUMERIC, "out of memory");
  else if (with_state) hg_sim_new_integrator(s);
done:
  hg_data_free(d1);
  free(q1);
  free(v1);
  free(rec1);
  return s->failed;
}
