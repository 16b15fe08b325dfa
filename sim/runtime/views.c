/* views.c: what a viewer, a script or a report reads of the current state (sim.h, "views").
 * The kinematics and joint loads of the current state are evaluated once (view_state) and read
 * from s->d and s->rhs.tau until the state changes. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "controller_lib.h"
#include "sim_internal.h"

/* the current state's kinematics, loads and joint wrenches in s->d and s->rhs.tau */
static void view_state(hg_sim *s) {
  if (s->views.view_ok) return;
  int ok = hg_sim_eval(s, s->state.t, s->state.q, s->state.v, NULL) == 0;
  s->views.view_ok = 1;
  if (ok) return;
  hg_kinematics(s->m, s->d, s->state.q, s->state.v); /* poses at least; the loads are unknown */
  for (int k = 0; k < s->m->nv; k++) s->rhs.tau[k] = NAN;
}

const char *hg_sim_error(const hg_sim *s) { return s->err; }
double hg_sim_time(const hg_sim *s) { return s->state.t; }
double hg_sim_t_start(const hg_sim *s) { return s->t_start; }
double hg_sim_t_end(const hg_sim *s) { return s->t_end; }
const hg_model *hg_sim_model(const hg_sim *s) { return s->m; }
unsigned long hg_sim_model_version(const hg_sim *s) { return s->model_version; }
const double *hg_sim_q(const hg_sim *s) { return s->state.q; }
const double *hg_sim_v(const hg_sim *s) { return s->state.v; }
int hg_sim_nevents(const hg_sim *s) { return s->tl.nlog; }
const hg_sim_event *hg_sim_event_at(const hg_sim *s, int k) {
  return k >= 0 && k < s->tl.nlog ? &s->tl.log[k] : NULL;
}
double hg_sim_wall_time(const hg_sim *s) { return s->views.wall; }
int hg_sim_ncommands(const hg_sim *s) { return s->tl.ncmd; }
const hg_command *hg_sim_command_at(const hg_sim *s, int k, int *applied) {
  if (k < 0 || k >= s->tl.ncmd) return NULL;
  if (applied) *applied = s->tl.cmd_fired[k];
  return &s->tl.cmd[k];
}
int hg_sim_refused(const hg_sim *s) { return s->tl.nrefused; }

int hg_sim_write_commands(const hg_sim *s, const char *path) {
  FILE *f = fopen(path, "w");
  if (!f) return HG_SIM_ERR_OUTPUT;
  fprintf(f, "# hinge session of %s: the commands applied, 'TIME COMMAND' (docs/commands.md)\n",
          s->scene->path ? s->scene->path : "a scene");
  for (int k = 0; k < s->tl.ncmd; k++)
    if (s->tl.cmd_fired[k]) fprintf(f, "%.17g %s\n", s->tl.cmd[k].t, s->tl.cmd[k].text);
  int bad = ferror(f);
  return fclose(f) || bad ? HG_SIM_ERR_OUTPUT : HG_SIM_OK;
}

int hg_sim_parse_command(const hg_sim *s, const char *text, hg_command *cmd, hg_error *err) {
  const hg_model *m = s->m;
  if (!s->loops.n)
    return hg_command_parse(s->scene, text, (const char *const *)m->jnt_name + 1, m->nbody - 1,
                            cmd, err);
  /* the model's joints and the loops docking made (names that are not joints: loops) */
  int n = 0;
  const char **names = malloc((size_t)(m->nbody + s->loops.n) * sizeof *names);
  if (!names) return hg_error_set(err, "out of memory"), -1;
  for (int i = 1; i < m->nbody; i++) names[n++] = m->jnt_name[i];
  for (int k = 0; k < s->loops.n; k++)
    if (!s->loops.loop[k].spec) names[n++] = s->loops.loop[k].name;
  int rc = hg_command_parse(s->scene, text, names, n, cmd, err);
  free(names);
  return rc;
}

/* ---- bodies and joints ---- */

void hg_sim_body(hg_sim *s, int i, hg_se3 *T, double twist[6]) {
  view_state(s);
  hg_sim_body_world(s, i, T, twist);
}

void hg_sim_joint(hg_sim *s, int i, hg_sim_joint_view *jv) {
  const hg_model *m = s->m;
  const hg_joint *j = &m->jnt[i];
  hg_se3 Tp, Tj, Tq;
  double F[6], S[6 * HG_JOINT_MAXNV];
  view_state(s);
  memset(jv, 0, sizeof *jv);
  jv->name = m->jnt_name[i];
  jv->type = j->type;
  jv->mode = s->d->mode[i];
  jv->nq = m->jnt_nq[i];
  jv->nv = m->jnt_nv[i];
  jv->q = s->rhs.qs + m->q_adr[i]; /* the state with the prescribed joints on their profiles */
  jv->v = s->rhs.vs + m->v_adr[i];
  jv->load = s->rhs.tau + m->v_adr[i];
  /* the transmitted wrench, child frame -> world axes (still about the child origin) */
  const hg_se3 *Tc = &s->d->T_world[i];
  hg_joint_wrench(m, s->d, i, F);
  hg_m3_mulv(Tc->R, F, jv->wrench);
  hg_m3_mulv(Tc->R, F + 3, jv->wrench + 3);
  /* the joint frame, and the first DoF's axis in the moved joint frame */
  hg_se3_mul(&s->d->T_world[m->parent[i]], &m->jnt_offset[i], &Tp);
  jv->frame = Tp;
  if (jv->nv == 0 || j->type == HG_JOINT_SPHERICAL || j->type == HG_JOINT_FREE) return;
  hg_joint_transform(j, jv->q, &Tq);
  hg_se3_mul(&Tp, &Tq, &Tj);
  hg_joint_motion(j, jv->q, S);
  const double *ax = hg_v3_norm(S) > 0 ? S : S + 3;
  hg_m3_mulv(Tj.R, ax, jv->axis);
  double n = hg_v3_norm(jv->axis);
  for (int k = 0; k < 3 && n > 0; k++) jv->axis[k] /= n;
}

/* ---- markers, force elements, pairs ---- */

int hg_sim_nmarker(const hg_sim *s) { return s->scene->nmarker; }

void hg_sim_marker(hg_sim *s, int k, hg_sim_marker_view *mv) {
  const hg_marker *mk = &s->scene->marker[k];
  int body;
  hg_se3 M;
  view_state(s);
  memset(mv, 0, sizeof *mv);
  mv->name = mk->name;
  mv->body = mk->body;
  mv->port = mk->port && mk->port[0];
  mv->present = hg_sim_resolve_marker(s, mk->name, &body, &M) == 0;
  if (mv->present) hg_sim_marker_world(s, body, &M, &mv->pose, mv->velocity);
}

int hg_sim_nforce(const hg_sim *s) { return hg_forces_count(s->forces); }

void hg_sim_force(hg_sim *s, int k, hg_force_view *fv) {
  view_state(s);
  hg_forces_view(s->forces, s->m, s->d, s->state.t, s->state.q, s->state.v, k, fv);
}

int hg_sim_npair(const hg_sim *s) { return s->scene->output.npair; }

void hg_sim_pair(hg_sim *s, int k, hg_sim_pair_view *pv) {
  const hg_pair_spec *ps = &s->scene->output.pair[k];
  int a = hg_model_body(s->m, ps->body_a), b = hg_model_body(s->m, ps->body_b);
  hg_se3 Ta, Tb;
  double ta[6], tb[6], dp[3], dv[3];
  view_state(s);
  memset(pv, 0, sizeof *pv);
  pv->a = ps->body_a;
  pv->b = ps->body_b;
  pv->present = a >= 1 && b >= 1;
  pv->distance = pv->speed = pv->range_rate = pv->clearance = NAN;
  for (int r = 0; r < 3; r++) pv->ca[r] = pv->cb[r] = NAN;
  if (!pv->present) return;
  hg_sim_body_world(s, a, &Ta, ta);
  hg_sim_body_world(s, b, &Tb, tb);
  memcpy(pv->pa, Ta.p, sizeof pv->pa);
  memcpy(pv->pb, Tb.p, sizeof pv->pb);
  for (int r = 0; r < 3; r++) dp[r] = Tb.p[r] - Ta.p[r], dv[r] = tb[3 + r] - ta[3 + r];
  pv->distance = hg_v3_norm(dp);
  pv->speed = hg_v3_norm(dv);
  pv->range_rate = pv->distance > 0 ? hg_v3_dot(dp, dv) / pv->distance : pv->speed;
  /* the clearance of their collision geometry (built once per model) */
  hg_error err;
  hg_clearance c;
  if (!s->coll && !(s->coll = hg_collision_new(s->m, &err))) return;
  if (hg_collision_distance(s->coll, s->d->T_world, &a, 1, &b, 1, &c) || !isfinite(c.distance))
    return;
  pv->clearance = c.distance;
  memcpy(pv->ca, c.pa, sizeof pv->ca);
  memcpy(pv->cb, c.pb, sizeof pv->cb);
}

/* ---- invariants and statistics ---- */

void hg_sim_momentum(hg_sim *s, double h[6]) { hg_momentum(s->m, s->d, s->state.q, s->state.v, h); }

void hg_sim_get_budget(hg_sim *s, hg_sim_budget *b) {
  hg_sim_energy(s, s->state.q, s->state.v, &b->kinetic, &b->potential, &b->element);
  b->e_lock = s->budget.e_lock;
  b->work = s->state.quad;
  b->work_event = s->budget.w_event;
  b->value = hg_sim_budget_value(s);
  b->initial = s->budget.b0;
  b->scale = s->budget.b_scale;
  b->max_drift = s->budget.max_drift;
}

void hg_sim_stats(const hg_sim *s, hg_integ_stats *st) {
  *st = s->rhs.stats_done;
  if (s->rhs.I) {
    hg_integ_stats cur;
    hg_integrator_stats(s->rhs.I, &cur);
    hg_sim_add_stats(st, &cur);
  }
}

/* ---- closed loops ---- */

int hg_sim_nloop(const hg_sim *s) { return s->loops.n; }

void hg_sim_loop(hg_sim *s, int k, hg_sim_loop_view *lv) {
  memset(lv, 0, sizeof *lv);
  if (k < 0 || k >= s->loops.n) return;
  view_state(s);
  hg_rt_loops *l = &s->loops;
  const hg_rt_loop *r = &l->loop[k];
  const hg_loop_spec *sp = r->spec;
  lv->name = r->name;
  lv->type = sp && sp->coupling ? "coupling" : hg_joint_type_name(sp ? sp->type : HG_JOINT_FIXED);
  lv->active = r->active;
  lv->present = r->k >= 0;
  lv->nrow = sp && sp->coupling ? 1 : 6 - hg_joint_nv(sp ? sp->type : HG_JOINT_FIXED);
  lv->marker_a = sp ? (sp->coupling ? NULL : sp->marker[0]) : r->marker[0];
  lv->marker_b = sp ? (sp->coupling ? NULL : sp->marker[1]) : r->marker[1];
  hg_se3_identity(&lv->frame_a);
  hg_se3_identity(&lv->frame_b);
  if (!lv->present) return;
  const double *q = s->rhs.qs, *v = s->rhs.vs;
  int c = r->k;
  /* where the frames are */
  for (int side = 0; side < 2 && lv->marker_a; side++) {
    int b;
    hg_se3 M;
    if (hg_sim_resolve_marker(s, side ? lv->marker_b : lv->marker_a, &b, &M)) continue;
    if (b > 0) hg_se3_mul(&s->d->T_world[b], &M, side ? &lv->frame_b : &lv->frame_a);
    else *(side ? &lv->frame_b : &lv->frame_a) = M;
  }
  hg_loops_violation(l->L, s->d, q, c, &lv->distance, &lv->angle);
  /* the velocity violation |G_k v| of this loop's rows alone */
  memset(l->mask, 0, (size_t)l->nl);
  l->mask[c] = 1;
  int nr = hg_loops_rows(l->L, s->d, q, v, l->mask, l->G, NULL, NULL), nv = s->m->nv;
  double g2 = 0;
  for (int i = 0; i < nr; i++) {
    double gi = 0;
    for (int j = 0; j < nv; j++) gi += l->G[(size_t)i * (size_t)nv + (size_t)j] * v[j];
    g2 += gi * gi;
  }
  lv->speed = sqrt(g2);
  /* its wrench: its rows of the multipliers, stacked by closed loop that can act (one whose
   * path is all locked holds nothing: zero) */
  if (!r->active || !l->lambda_ok || !l->eff[c]) return;
  int off = 0;
  for (int j = 0; j < c; j++)
    if (l->eff[j]) off += hg_loops_nrow(l->L, j);
  hg_loops_wrench(l->L, s->d, c, l->lambda + off, lv->wrench);
  if (sp && sp->coupling) {
    lv->wrench[0] = l->lambda[off];
    memcpy(lv->wrench_world, lv->wrench, sizeof lv->wrench);
    return;
  }
  hg_m3_mulv(lv->frame_a.R, lv->wrench, lv->wrench_world);
  hg_m3_mulv(lv->frame_a.R, lv->wrench + 3, lv->wrench_world + 3);
}

/* the loops' violations at an output row (sim_loops.h) */
void hg_sim_loops_row(hg_sim *s) {
  hg_rt_loops *l = &s->loops;
  if (!hg_sim_loops_on(l)) return;
  int nloop = hg_sim_nloop(s);
  for (int k = 0; k < nloop; k++) {
    hg_sim_loop_view lv;
    hg_sim_loop(s, k, &lv);
    if (!lv.active || !lv.present) continue;
    l->max_pos = fmax(l->max_pos, fmax(lv.distance, lv.angle));
    l->max_vel = fmax(l->max_vel, lv.speed);
  }
  int rows, rank = hg_loops_rank(l->L, &rows);
  if (rows - rank > l->redundant) l->redundant = rows - rank;
}

/* ---- control in the loop ---- */

int hg_sim_nactuator(const hg_sim *s) { return s->ctl.nact; }

void hg_sim_actuator(hg_sim *s, int k, hg_sim_actuator_view *av) {
  const hg_rt_actuator *a = &s->ctl.act[k];
  const hg_actuator_spec *sp = a->spec;
  double t = s->state.t;
  memset(av, 0, sizeof *av);
  av->name = sp->name;
  av->type = sp->type;
  av->present = a->present;
  av->body = a->present ? a->body : -1;
  av->joint = a->present ? a->jbody : -1;
  av->ncommand = sp->type == HG_ACT_THRUSTER ? 2 : 1;
  memcpy(av->command, a->cmd, sizeof av->command);
  av->propellant = NAN;
  const double *q = s->ctl.quad + 1 + 3 * k;
  av->work = q[0], av->loss = q[1], av->saturated_time = q[2];
  if (sp->type == HG_ACT_THRUSTER) {
    av->firings = a->firings;
    av->on_time = a->on_before + (a->open ? t - a->t_open : 0);
    av->impulse = a->impulse_before + hg_ramp_integral(&a->drive, t);
    if (a->tank >= 0) av->propellant = hg_sim_control_propellant(s, a->tank, t);
  }
  if (!a->present) return;
  view_state(s);
  av->output = hg_sim_control_output(s, k, t, s->state.v);
  av->saturated = a->saturated;
  if (sp->type == HG_ACT_THRUSTER) {
    const hg_se3 *T = &s->d->T_world[a->body];
    hg_m3_mulv(T->R, a->p, av->point);
    for (int e = 0; e < 3; e++) av->point[e] += T->p[e];
    hg_m3_mulv(T->R, a->u, av->dir);
    av->level = sp->thrust > 0 ? av->output / sp->thrust : 0;
    return;
  }
  av->speed = s->state.v[a->va];
  if (sp->type == HG_ACT_WHEEL) {
    /* its centre and its true axis (misaligned or not) in the world, and its axial momentum
     * J (w_bus . a + Omega) */
    hg_sim_joint_view jv;
    hg_sim_joint(s, a->jbody, &jv);
    memcpy(av->point, s->d->T_world[a->jbody].p, sizeof av->point);
    memcpy(av->dir, jv.axis, sizeof av->dir);
    hg_se3 Tb;
    double tw[6];
    hg_sim_body(s, a->body, &Tb, tw);
    av->momentum = sp->inertia * (hg_v3_dot(tw, jv.axis) + av->speed);
  }
}

int hg_sim_nsensor(const hg_sim *s) { return s->ctl.nsensor; }

void hg_sim_sensor(hg_sim *s, int k, hg_sim_sensor_view *sv) {
  const hg_rt_sensor *se = &s->ctl.sensor[k];
  memset(sv, 0, sizeof *sv);
  sv->name = se->spec->name;
  sv->type = se->spec->type;
  sv->n = se->n;
  sv->value = se->value;
  sv->channel = se->channel;
  sv->valid = se->valid;
  sv->t = se->t;
  sv->samples = se->k;
}

int hg_sim_ncontroller(const hg_sim *s) { return s->ctl.nctl; }

void hg_sim_controller(hg_sim *s, int k, hg_sim_controller_view *cv) {
  const hg_rt_controller *r = &s->ctl.ctl[k];
  static const char *const att[] = {"pointing_error", "rate_x", "rate_y", "rate_z",
                                    "torque_x", "torque_y", "torque_z"};
  memset(cv, 0, sizeof *cv);
  cv->name = r->spec->name;
  cv->type = r->spec->type;
  cv->enabled = r->enabled;
  hg_ctl_timing tm = hg_ctl_get_timing(r->ctl);
  cv->steps = tm.count, cv->wall_total = tm.total, cv->wall_max = tm.max;
  cv->ntelemetry = r->ntelemetry;
  cv->telemetry_name = att;
  cv->telemetry = r->telemetry;
}

/* the centre of mass of the free-flying bodies (perturb ... com) */
double hg_sim_free_com(hg_sim *s, double c[3]) {
  const hg_model *m = s->m;
  double M = 0, tw[6];
  hg_se3 T;
  c[0] = c[1] = c[2] = 0;
  for (int b = 1; b < m->nbody; b++) {
    double mb = m->inertia[b].m;
    if (m->jnt[m->root[b]].type != HG_JOINT_FREE || !(mb > 0)) continue;
    hg_sim_body(s, b, &T, tw);
    for (int k = 0; k < 3; k++) /* p + R h / m */
      c[k] += mb * T.p[k] + T.R[3 * k] * m->inertia[b].h[0] + T.R[3 * k + 1] * m->inertia[b].h[1] +
              T.R[3 * k + 2] * m->inertia[b].h[2];
    M += mb;
  }
  for (int k = 0; M > 0 && k < 3; k++) c[k] /= M;
  return M;
}
