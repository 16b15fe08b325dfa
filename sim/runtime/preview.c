/* preview.c: what-if views that change nothing (sim.h "previews"): what a mode switch would do
 * now, the bodies at a perturbed configuration (ghosts), and the gauge of two docking ports.
 * They work on a scratch workspace of the current model, never on the simulation's state. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_internal.h"

/* the scratch workspace and arrays for the current model (allocated when the model changes) */
static int scratch(hg_sim *s) {
  const hg_model *m = s->m;
  if (s->views.pv_d && s->views.pv_version == s->model_version) return 0;
  hg_data_free(s->views.pv_d);
  free(s->views.pv_q);
  free(s->views.pv_v);
  s->views.pv_d = hg_data_new(m);
  s->views.pv_q = malloc(((size_t)m->nq + 1) * sizeof(double));
  s->views.pv_v = malloc((3 * (size_t)m->nv + 6 * (size_t)m->nbody + 1) * sizeof(double));
  s->views.pv_version = s->model_version;
  if (s->views.pv_d && s->views.pv_q && s->views.pv_v) return 0;
  hg_data_free(s->views.pv_d);
  s->views.pv_d = NULL;
  return -1;
}

void hg_sim_free_previews(hg_sim *s) {
  hg_data_free(s->views.pv_d);
  free(s->views.pv_q);
  free(s->views.pv_v);
  s->views.pv_d = NULL;
  s->views.pv_q = s->views.pv_v = NULL;
}

/* world twist (angular velocity, velocity of the body origin) of body i for velocities V in d */
static void world_twist(const hg_model *m, const hg_data *d, int i, double tw[6]) {
  double V[6];
  hg_body_twist(m, d, i, V);
  hg_m3_mulv(d->T_world[i].R, V, tw);
  hg_m3_mulv(d->T_world[i].R, V + 3, tw + 3);
}

/* the bodies' twist jumps (world axes) of the velocity jump dv into tw (6 nbody) */
static void twist_jumps(hg_sim *s, const double *dv, double *tw) {
  const hg_model *m = s->m;
  hg_data *d = s->views.pv_d;
  memcpy(d->mode, s->d->mode, (size_t)m->nbody);
  hg_kinematics(m, d, s->state.q, dv);
  memset(tw, 0, 6 * sizeof(double));
  for (int i = 1; i < m->nbody; i++) world_twist(m, d, i, tw + 6 * i);
}

/* A command of mode switches alone, previewed by committing it: its modes set and its impulse
 * made by the very functions an event uses (hg_sim_set_mode with the command's profile,
 * hg_sim_mode_impulse), what they did read off, and the simulation's modes, recipes, profiles,
 * q, v and failure status put back as they were. So a preview predicts the commit exactly: a
 * hold (prescribe, keeping the velocity) makes no impulse and removes nothing, where a lock
 * stops the joint. A profile the commit would refuse (it would make its joint jump) makes the
 * preview fail. */
static int preview_modes(hg_sim *s, const hg_command *cmd, hg_sim_preview_view *out) {
  const hg_model *m = s->m;
  size_t nb = (size_t)m->nbody, nq = (size_t)m->nq, nv = (size_t)m->nv;
  double *dv = s->views.pv_v, *imp = dv + nv, *tw = imp + 2 * nv;
  uint8_t *mode0 = malloc(nb);
  hg_recipe *rec0 = malloc(nb * sizeof *rec0);
  hg_profile **prof0 = malloc(nb * sizeof *prof0);
  double *q0 = malloc((nq + nv + 1) * sizeof(double)), *v0 = q0 ? q0 + nq : NULL;
  int failed0 = s->failed, rc = 0;
  char err0[sizeof s->err];
  if (!mode0 || !rec0 || !prof0 || !q0) {
    free(mode0), free(rec0), free(prof0), free(q0);
    return hg_sim_fail(s, HG_SIM_ERR_NUMERIC, "out of memory"), -1;
  }
  memcpy(mode0, s->d->mode, nb);
  memcpy(rec0, s->state.recipe, nb * sizeof *rec0);
  memcpy(prof0, s->state.prof, nb * sizeof *prof0);
  memcpy(q0, s->state.q, nq * sizeof(double));
  memcpy(v0, s->state.v, nv * sizeof(double));
  memcpy(err0, s->err, sizeof err0);
  for (int a = 0; a < cmd->naction && !rc; a++) {
    const hg_action *act = &cmd->action[a];
    int i = act->type == HG_ACTION_SET_MODE && act->joint ? hg_model_joint(m, act->joint) : -1;
    if (i < 1 || hg_sim_mimic_leader(m, i) > 0) continue; /* the commit skips these too */
    if (s->state.prof[i] == prof0[i]) s->state.prof[i] = NULL; /* kept aside, as the commit does */
    rc = hg_sim_set_mode(s, i, &act->mode, HG_RECIPE_KEEP, -1, a);
    if (!rc && act->mode.mode == HG_MODE_PRESCRIBED && act->mode.has_profile) {
      const char *why = "";
      const hg_recipe *r = &s->state.recipe[i];
      hg_profile_free(s->state.prof[i]);
      s->state.prof[i] = hg_sim_profile_new(&m->jnt[i], &act->mode.profile, r->t0, r->q0, r->v0, &why);
      rc = s->state.prof[i] ? 0 : -1;
    }
    if (!rc && s->state.prof[i] && hg_sim_profile_jump(s, i, NULL) > HG_PROFILE_START_TOL) rc = -1;
  }
  double ke0, ke1, pe, e_lock = 0;
  int external = 0;
  memset(s->rhs.imp, 0, nv * sizeof(double));
  if (!rc) rc = hg_sim_mode_impulse(s, &e_lock, &external);
  if (!rc) {
    hg_energy(m, s->d, q0, v0, &ke0, &pe);
    hg_energy(m, s->d, s->state.q, s->state.v, &ke1, &pe);
    for (size_t k = 0; k < nv; k++) dv[k] = s->state.v[k] - v0[k], imp[k] = s->rhs.imp[k];
    out->energy_removed = ke0 - ke1;
  }
  /* everything as it was */
  for (size_t i = 1; i < nb; i++)
    if (s->state.prof[i] != prof0[i]) hg_profile_free(s->state.prof[i]);
  memcpy(s->state.prof, prof0, nb * sizeof *prof0);
  memcpy(s->d->mode, mode0, nb);
  memcpy(s->state.recipe, rec0, nb * sizeof *rec0);
  memcpy(s->state.q, q0, nq * sizeof(double));
  memcpy(s->state.v, v0, nv * sizeof(double));
  s->failed = failed0;
  memcpy(s->err, err0, sizeof err0);
  hg_sim_loops_solve(s);
  s->views.view_ok = 0;
  free(mode0), free(rec0), free(prof0), free(q0);
  if (rc) return -1;
  twist_jumps(s, dv, tw);
  out->dv = dv;
  out->impulse = imp;
  out->dtwist = tw;
  return 0;
}

int hg_sim_preview(hg_sim *s, const hg_command *cmd, hg_sim_preview_view *out) {
  const hg_model *m = s->m;
  memset(out, 0, sizeof *out);
  if (scratch(s)) return hg_sim_fail(s, HG_SIM_ERR_NUMERIC, "out of memory"), -1;
  int loops = 0;
  for (int a = 0; a < cmd->naction; a++)
    loops |= cmd->action[a].type == HG_ACTION_CLOSE_LOOP || cmd->action[a].type == HG_ACTION_OPEN_LOOP;
  if (!loops) return preview_modes(s, cmd, out);
  hg_data *d = s->views.pv_d;
  double *dv = s->views.pv_v, *imp = dv + m->nv, *va = imp + m->nv, *tw = va + m->nv;
  /* the modes the command would set (other actions do not enter a preview) */
  memcpy(d->mode, s->d->mode, (size_t)m->nbody);
  int nset = 0;
  for (int a = 0; a < cmd->naction; a++) {
    const hg_action *act = &cmd->action[a];
    int i = act->type == HG_ACTION_SET_MODE && act->joint ? hg_model_joint(m, act->joint) : -1;
    if (i < 1) continue;
    d->mode[i] = (uint8_t)act->mode.mode; /* a new prescribed joint keeps its velocity here */
    nset++;
  }
  /* the loops it would close or open */
  hg_rt_loops *l = &s->loops;
  unsigned char *closed = l->L ? malloc((size_t)l->nl) : NULL;
  int nclosed = 0;
  if (l->L && !closed) return hg_sim_fail(s, HG_SIM_ERR_NUMERIC, "out of memory"), -1;
  if (closed) memcpy(closed, l->active, (size_t)l->nl);
  /* (a closed loop whose path the preview's modes leave without a free DoF adds nothing) */
  for (int a = 0; closed && a < cmd->naction; a++) {
    const hg_action *act = &cmd->action[a];
    int r = act->type == HG_ACTION_CLOSE_LOOP || act->type == HG_ACTION_OPEN_LOOP
                ? hg_sim_loop_find(s, act->loop) : -1;
    if (r < 0 || l->loop[r].k < 0) continue;
    closed[l->loop[r].k] = act->type == HG_ACTION_CLOSE_LOOP;
    nset++;
  }
  for (int c = 0; closed && c < l->nl; c++) nclosed += closed[c];
  if (nset == 0) return free(closed), 0;
  /* the impulse: joints that were not free keep their velocity, newly locked ones stop */
  for (int k = 0; k < m->nv; k++) {
    int b = m->dof_body[k];
    dv[k] = d->mode[b] == HG_MODE_LOCKED && s->d->mode[b] != HG_MODE_LOCKED ? -s->state.v[k] : 0;
    imp[k] = 0;
  }
  int rc = hg_hybrid_impulse(m, d, s->state.q, dv, imp);
  for (int k = 0; k < m->nv; k++) va[k] = s->state.v[k] + dv[k];
  /* the closed loops' plastic impulse on top (the one the run would apply) */
  if (!rc && nclosed) {
    rc = hg_loops_impulse(l->L, d, s->state.q, va, closed, NULL, NULL);
    for (int k = 0; k < m->nv; k++) dv[k] = va[k] - s->state.v[k];
  }
  free(closed);
  if (rc)
    return hg_sim_fail(s, HG_SIM_ERR_NUMERIC, "t = %.17g: preview: %s", s->state.t, d->err), -1;
  double ke0, ke1, pe;
  hg_energy(m, d, s->state.q, s->state.v, &ke0, &pe);
  hg_energy(m, d, s->state.q, va, &ke1, &pe);
  /* the bodies' twist jumps, world axes */
  hg_kinematics(m, d, s->state.q, dv);
  memset(tw, 0, 6 * sizeof(double));
  for (int i = 1; i < m->nbody; i++) world_twist(m, d, i, tw + 6 * i);
  out->energy_removed = ke0 - ke1;
  out->dv = dv;
  out->impulse = imp;
  out->dtwist = tw;
  return 0;
}

const hg_se3 *hg_sim_ghost(hg_sim *s, const double *delta, double eps) {
  const hg_model *m = s->m;
  if (scratch(s)) return NULL;
  /* q (+) eps delta, joint by joint on its group */
  for (int i = 1; i < m->nbody; i++)
    hg_joint_integrate(&m->jnt[i], s->state.q + m->q_adr[i], delta + m->v_adr[i], eps,
                       s->views.pv_q + m->q_adr[i]);
  hg_kinematics(m, s->views.pv_d, s->views.pv_q, NULL);
  return s->views.pv_d->T_world;
}

/* ---- the docking gauge ---- */

/* relative twist of frame b against frame a at b's origin (world axes): angular velocity
 * difference and the velocity difference of the point, for velocities v (kinematics in d) */
static void relative_twist(const hg_model *m, const hg_data *d, int ia, int ib, const double pb[3],
                           double rel[6]) {
  double ta[6] = {0}, tb[6] = {0}, r[3];
  if (ia > 0) world_twist(m, d, ia, ta);
  if (ib > 0) world_twist(m, d, ib, tb);
  /* the velocity of point pb on each body: v_origin + w x (pb - origin) */
  for (int k = 0; k < 3; k++) r[k] = pb[k] - d->T_world[ib].p[k];
  hg_v3_cross_add(tb, r, tb + 3);
  if (ia > 0) {
    for (int k = 0; k < 3; k++) r[k] = pb[k] - d->T_world[ia].p[k];
    hg_v3_cross_add(ta, r, ta + 3);
  }
  for (int k = 0; k < 6; k++) rel[k] = tb[k] - ta[k];
}

/* solves the 6x6 system A x = b by Gaussian elimination with partial pivoting; -1 if singular */
static int solve6(double A[36], double b[6]) {
  for (int c = 0; c < 6; c++) {
    int p = c;
    for (int r = c + 1; r < 6; r++)
      if (fabs(A[6 * r + c]) > fabs(A[6 * p + c])) p = r;
    if (!(fabs(A[6 * p + c]) > 0)) return -1;
    for (int k = 0; k < 6 && p != c; k++) {
      double t = A[6 * c + k];
      A[6 * c + k] = A[6 * p + k], A[6 * p + k] = t;
    }
    double t = b[c];
    b[c] = b[p], b[p] = t;
    for (int r = c + 1; r < 6; r++) {
      double f = A[6 * r + c] / A[6 * c + c];
      for (int k = c; k < 6; k++) A[6 * r + k] -= f * A[6 * c + k];
      b[r] -= f * b[c];
    }
  }
  for (int c = 5; c >= 0; c--) {
    for (int k = c + 1; k < 6; k++) b[c] -= A[6 * c + k] * b[k];
    b[c] /= A[6 * c + c];
  }
  return 0;
}

/* The kinetic energy a rigid capture of b's frame by a's removes now: 1/2 dV^T L dV with dV the
 * relative twist at b's origin and L^-1 the relative twist a unit wrench pair (+w on b, -w on a,
 * at b's origin) makes through the impulsive hybrid dynamics with the current modes. */
static double capture_loss(hg_sim *s, int ia, int ib, const double pb[3], const double rel[6]) {
  const hg_model *m = s->m;
  hg_data *d = s->views.pv_d;
  double *dv = s->views.pv_v, *imp = dv + m->nv, *ta = imp + m->nv, Linv[36], x[6];
  memcpy(d->mode, s->d->mode, (size_t)m->nbody);
  for (int c = 0; c < 6; c++) {
    double w[6] = {0, 0, 0, 0, 0, 0};
    w[c] = 1;
    hg_kinematics(m, d, s->state.q, NULL);
    hg_sim_wrench_to_tau(s, d, ib, pb, w, imp);
    if (ia > 0) {
      hg_sim_wrench_to_tau(s, d, ia, pb, w, ta);
      for (int k = 0; k < m->nv; k++) imp[k] -= ta[k];
    }
    for (int k = 0; k < m->nv; k++) {
      int held = d->mode[m->dof_body[k]] != HG_MODE_FREE;
      if (held) imp[k] = 0;
      dv[k] = 0;
    }
    if (hg_hybrid_impulse(m, d, s->state.q, dv, imp)) return NAN;
    hg_kinematics(m, d, s->state.q, dv);
    double r[6];
    relative_twist(m, d, ia, ib, pb, r);
    for (int k = 0; k < 6; k++) Linv[6 * k + c] = r[k];
  }
  memcpy(x, rel, sizeof x);
  if (solve6(Linv, x)) return NAN;
  double e = 0;
  for (int k = 0; k < 6; k++) e += 0.5 * rel[k] * x[k];
  return e;
}

int hg_sim_clearance(hg_sim *s, const char *const *a, int na, const char *const *b, int nb,
                     hg_clearance *out) {
  hg_error err;
  int ia[64], ib[64], ma = 0, mb = 0;
  out->distance = INFINITY;
  out->body_a = out->body_b = -1;
  if (!s->coll && !(s->coll = hg_collision_new(s->m, &err)))
    return hg_sim_fail(s, HG_SIM_ERR_INPUT, "%s", err.msg), -1;
  for (int k = 0; k < na && ma < 64; k++)
    if ((ia[ma] = hg_model_body(s->m, a[k])) > 0) ma++;
  for (int k = 0; k < nb && mb < 64; k++)
    if ((ib[mb] = hg_model_body(s->m, b[k])) > 0) mb++;
  hg_kinematics(s->m, s->d, s->state.q, s->state.v);
  return hg_collision_distance(s->coll, s->d->T_world, ia, ma, ib, mb, out);
}

int hg_sim_gauge(hg_sim *s, const char *marker_a, const char *marker_b, hg_sim_gauge_view *g) {
  const hg_model *m = s->m;
  int ia, ib;
  hg_se3 Ma, Mb, Ta, Tb, Tab;
  double va[3], vb[3], dp[3], w[3], Rr[9];
  memset(g, 0, sizeof *g);
  g->capture = -1;
  g->time_to_contact = INFINITY;
  g->plastic_loss = NAN;
  if (hg_sim_resolve_marker(s, marker_a, &ia, &Ma) || hg_sim_resolve_marker(s, marker_b, &ib, &Mb))
    return -1;
  if (scratch(s)) return -1;
  hg_kinematics(m, s->d, s->state.q, s->state.v);
  hg_sim_marker_world(s, ia, &Ma, &Ta, va);
  hg_sim_marker_world(s, ib, &Mb, &Tb, vb);
  g->present = 1;
  /* position of b's port in a's port frame, closing speed along the line */
  for (int k = 0; k < 3; k++) dp[k] = Tb.p[k] - Ta.p[k];
  hg_se3_invmul(&Ta, &Tb, &Tab);
  memcpy(g->offset, Tab.p, sizeof g->offset);
  g->distance = hg_v3_norm(dp);
  double dvel[3] = {vb[0] - va[0], vb[1] - va[1], vb[2] - va[2]};
  g->speed = hg_v3_norm(dvel);
  g->closing_speed = g->distance > 0 ? -hg_v3_dot(dp, dvel) / g->distance : 0;
  if (g->closing_speed > 0) g->time_to_contact = g->distance / g->closing_speed;
  /* mated ports face each other: a's frame turned half a turn about its x axis (as captures) */
  for (int k = 0; k < 3; k++) Ta.R[3 * k + 1] = -Ta.R[3 * k + 1], Ta.R[3 * k + 2] = -Ta.R[3 * k + 2];
  hg_m3_mulT(Ta.R, Tb.R, Rr);
  hg_so3_log(Rr, w);
  g->angle = hg_v3_norm(w);
  /* the scene's capture of these two ports, if any: its tolerances and measure */
  for (int c = 0; c < s->scene->ncapture; c++) {
    const hg_capture_spec *cs = &s->scene->capture[c];
    int same = !strcmp(cs->marker_a, marker_a) && !strcmp(cs->marker_b, marker_b);
    int swap = !strcmp(cs->marker_a, marker_b) && !strcmp(cs->marker_b, marker_a);
    if (!same && !swap) continue;
    g->capture = c;
    g->position_tol = cs->position_tol;
    g->angle_tol = cs->angle_tol;
    g->speed_tol = cs->speed_tol;
    g->measure = fmax(g->distance / cs->position_tol,
                      fmax(g->angle / cs->angle_tol, g->speed / cs->speed_tol)) - 1;
    break;
  }
  /* the loss of a capture now: only between two trees (one tree would close a loop) */
  if (ib > 0 && (ia <= 0 || m->root[ia] != m->root[ib])) {
    double rel[6];
    relative_twist(m, s->d, ia, ib, Tb.p, rel);
    g->plastic_loss = capture_loss(s, ia, ib, Tb.p, rel);
  }
  return 0;
}
