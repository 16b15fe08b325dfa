/* sim_loops.c: the closed loops of a run: the scene's and the attach-made, compiled against each
 * model, checked and projected at the start, closed and opened by events, and the projection the
 * integrator calls after its steps (sim_loops.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "names.h"
#include "sim_internal.h"

#define HG_DEG (180 / 3.14159265358979323846) /* degrees per radian */

/* ---- the run's loops ---- */

static int loops_grow(hg_rt_loops *l) {
  if (l->n < l->cap) return 0;
  int cap = l->cap ? 2 * l->cap : 8;
  hg_rt_loop *p = realloc(l->loop, (size_t)cap * sizeof *p);
  if (!p) return -1;
  l->loop = p;
  l->cap = cap;
  return 0;
}

int hg_sim_loops_init(hg_sim *s, hg_error *err) {
  hg_rt_loops *l = &s->loops;
  memset(l, 0, sizeof *l);
  for (int k = 0; k < s->scene->nloop; k++) {
    const hg_loop_spec *sp = &s->scene->loop[k];
    if (loops_grow(l) || !(l->loop[l->n].name = hg_strdup(sp->name)))
      return hg_error_set(err, "out of memory"), -1;
    hg_rt_loop *r = &l->loop[l->n++];
    r->spec = sp;
    r->marker[0] = r->marker[1] = NULL;
    hg_se3_identity(&r->hold);
    r->active = sp->active;
    r->k = -1;
  }
  return 0;
}

static void loops_free_compiled(hg_rt_loops *l) {
  hg_loops_free(l->L);
  l->L = NULL;
  free(l->rt);
  free(l->active);
  free(l->lambda);
  free(l->G);
  free(l->mask);
  free(l->end);
  free(l->eff);
  l->end = NULL;
  l->eff = NULL;
  l->neff = 0;
  l->G = NULL;
  l->mask = NULL;
  l->rt = NULL;
  l->active = NULL;
  l->lambda = NULL;
  l->nl = l->nactive = 0;
  l->lambda_ok = 0;
}

void hg_sim_loops_free(hg_sim *s) {
  hg_rt_loops *l = &s->loops;
  loops_free_compiled(l);
  for (int k = 0; k < l->n; k++) {
    free(l->loop[k].name);
    free(l->loop[k].marker[0]);
    free(l->loop[k].marker[1]);
  }
  free(l->loop);
  memset(l, 0, sizeof *l);
}

int hg_sim_loop_find(const hg_sim *s, const char *name) {
  for (int k = 0; name && k < s->loops.n; k++)
    if (strcmp(s->loops.loop[k].name, name) == 0) return k;
  return -1;
}

/* loop r of the run in the terms of the current model; 0, or -1 when it is absent */
static int loop_resolve(const hg_sim *s, const hg_rt_loop *r, hg_loop *out, hg_error *err) {
  if (r->spec) {
    int rc = hg_loop_spec_resolve(s->scene, r->spec, s->m, out, err);
    return rc < 0 ? -2 : rc ? -1 : 0;
  }
  /* an attach-made weld between two ports holds B at A hold: B' = B hold^-1 meets A */
  memset(out, 0, sizeof *out);
  out->kind = HG_LOOP_JOINT;
  if (hg_sim_resolve_marker(s, r->marker[0], &out->body[0], &out->M[0]) ||
      hg_sim_resolve_marker(s, r->marker[1], &out->body[1], &out->M[1]) ||
      out->body[0] == out->body[1])
    return -1;
  const char *why = NULL;
  static const double z[3] = {0, 0, 1}, x[3] = {1, 0, 0};
  if (hg_joint_init(&out->joint, HG_JOINT_FIXED, z, x, 0, &why))
    return hg_error_set(err, "loop '%s': %s", r->name, why ? why : "bad joint"), -2;
  hg_se3 Hi;
  hg_se3_inv(&r->hold, &Hi);
  hg_se3_mul(&out->M[1], &Hi, &out->M[1]);
  return 0;
}

int hg_sim_loops_compile(hg_sim *s, hg_error *err) {
  hg_rt_loops *l = &s->loops;
  loops_free_compiled(l);
  for (int k = 0; k < l->n; k++) l->loop[k].k = -1;
  if (!l->n) return 0;
  hg_loop *def = calloc((size_t)l->n, sizeof *def);
  l->rt = calloc((size_t)l->n, sizeof *l->rt);
  l->active = calloc((size_t)l->n, 1);
  l->eff = calloc((size_t)l->n, 1);
  l->end = calloc(2 * (size_t)l->n, sizeof *l->end);
  if (!def || !l->rt || !l->active || !l->eff || !l->end) {
    free(def);
    return hg_error_set(err, "out of memory"), -1;
  }
  for (int k = 0; k < l->n; k++) {
    int rc = loop_resolve(s, &l->loop[k], &def[l->nl], err);
    if (rc == -2) return free(def), -1;
    if (rc) continue;
    l->loop[k].k = l->nl;
    l->rt[l->nl] = k;
    int coupling = def[l->nl].kind == HG_LOOP_COUPLING;
    l->end[2 * l->nl] = coupling ? def[l->nl].jnt[0] : def[l->nl].body[0];
    l->end[2 * l->nl + 1] = coupling ? def[l->nl].jnt[1] : def[l->nl].body[1];
    l->active[l->nl] = (unsigned char)l->loop[k].active;
    l->nactive += l->loop[k].active;
    l->nl++;
  }
  if (l->nl) l->L = hg_loops_new(s->m, def, l->nl, err);
  free(def);
  if (l->nl && !l->L) return -1;
  if (l->L) {
    size_t rows = (size_t)hg_loops_maxrows(l->L) + 1;
    l->lambda = calloc(rows, sizeof(double));
    l->G = calloc(rows * ((size_t)s->m->nv + 1), sizeof(double));
    l->mask = calloc((size_t)l->nl, 1);
    if (!l->lambda || !l->G || !l->mask) return hg_error_set(err, "out of memory"), -1;
  }
  return 0;
}

/* The bodies whose joints join bodies a and b, one per call: those between each of them and their
 * last common ancestor (or the world). Bodies come after their parents (parent[i] < i), so the
 * larger index of the two is never the other's ancestor: step it to its parent. 0 when the two
 * walks meet. */
static int path_next(const hg_model *m, int *a, int *b) {
  if (*a == *b) return 0;
  int *up = *a > *b ? a : b, i = *up;
  *up = m->parent[i];
  return i;
}

/* 1 when a DoF that joins bodies a and b is free */
static int path_free(const hg_model *m, const hg_data *d, int a, int b) {
  for (int i; (i = path_next(m, &a, &b));)
    if (m->jnt_nv[i] > 0 && d->mode[i] == HG_MODE_FREE) return 1;
  return 0;
}

int hg_sim_loops_solve(hg_sim *s) {
  hg_rt_loops *l = &s->loops;
  l->neff = 0;
  if (!hg_sim_loops_on(l)) return 0;
  const hg_model *m = s->m;
  for (int c = 0; c < l->nl; c++) {
    int a = l->end[2 * c], b = l->end[2 * c + 1];
    int coupling = l->loop[l->rt[c]].spec && l->loop[l->rt[c]].spec->coupling;
    int acts = coupling ? s->d->mode[a] == HG_MODE_FREE || s->d->mode[b] == HG_MODE_FREE
                        : path_free(m, s->d, a, b);
    l->eff[c] = (unsigned char)(l->active[c] && acts);
    l->neff += l->eff[c];
  }
  return l->neff;
}

/* ---- the constrained state ---- */

/* q with the prescribed joints on their profiles at t into rhs.qs, v likewise into rhs.vs */
static int profiled(hg_sim *s, double t, const double *q, const double *v) {
  const hg_model *m = s->m;
  memcpy(s->rhs.qs, q, (size_t)m->nq * sizeof(double));
  memcpy(s->rhs.vs, v, (size_t)m->nv * sizeof(double));
  if (hg_profiles_apply(m, s->d, s->state.prof, t, s->rhs.qs, s->rhs.vs, NULL)) return -1;
  if (m->nmimic) hg_mimic_follow(m, s->d, s->rhs.qs, s->rhs.vs, NULL);
  return 0;
}

int hg_sim_loops_project(void *user, double t, double *q, double *v, double *eq, double *ev) {
  hg_sim *s = user;
  hg_rt_loops *l = &s->loops;
  if (!hg_sim_loops_solve(s)) return 0;
  s->views.view_ok = 0;
  s->rhs.cache_ok = 0;
  const hg_model *m = s->m;
  /* the profiles fix the prescribed joints; the projection moves only the free ones */
  if (profiled(s, t, q, v)) return -1;
  int rc = hg_loops_project(l->L, s->d, s->rhs.qs, s->rhs.vs, l->eff, HG_LOOP_PROJECT_TOL, 20);
  if (rc < 0) return 1; /* recoverable: a shorter step starts nearer the manifold */
  memcpy(q, s->rhs.qs, (size_t)m->nq * sizeof(double));
  memcpy(v, s->rhs.vs, (size_t)m->nv * sizeof(double));
  if (eq) hg_loops_project_tangent(l->L, s->d, l->eff, eq);
  if (ev) hg_loops_project_tangent(l->L, s->d, l->eff, ev);
  return 0;
}

int hg_sim_loops_impulse(hg_sim *s, double *v, double *e_removed) {
  hg_rt_loops *l = &s->loops;
  if (e_removed) *e_removed = 0;
  if (!hg_sim_loops_solve(s)) return 0;
  s->views.view_ok = 0;
  if (hg_loops_impulse(l->L, s->d, s->state.q, v, l->eff, NULL, e_removed))
    return hg_sim_fail(s, HG_SIM_ERR_NUMERIC, "t = %.17g: loop impulse: %s", s->state.t,
                       s->d->err), -1;
  return 0;
}

/* the joints on the path between bodies a and b (the ones that move b relative to a) */
static void path_joints(const hg_model *m, int a, int b, char *buf, size_t len) {
  size_t n = 0;
  buf[0] = 0;
  for (int i; (i = path_next(m, &a, &b));) {
    if (m->jnt_nv[i] == 0) continue;
    int w = snprintf(buf + n, len - n, "%s%s", n ? ", " : "", m->jnt_name[i]);
    if (w < 0 || (size_t)w >= len - n) return;
    n += (size_t)w;
  }
}

int hg_sim_loops_start(hg_sim *s, hg_error *err) {
  hg_rt_loops *l = &s->loops;
  if (!hg_sim_loops_on(l)) return 0;
  const hg_model *m = s->m;
  if (profiled(s, s->state.t, s->state.q, s->state.v))
    return hg_error_set(err, "%s", s->d->err), -1;
  hg_kinematics(m, s->d, s->rhs.qs, s->rhs.vs);
  for (int c = 0; c < l->nl; c++) {
    if (!l->active[c]) continue;
    const hg_rt_loop *r = &l->loop[l->rt[c]];
    const hg_loop_spec *sp = r->spec;
    double dist, ang;
    hg_loops_violation(l->L, s->d, s->rhs.qs, c, &dist, &ang);
    if (!sp || (dist <= sp->tol[0] && ang <= sp->tol[1])) continue;
    char joints[512];
    hg_loop lp;
    loop_resolve(s, r, &lp, err);
    if (sp->coupling)
      return hg_error_set(err, "%s:%d:%d: loop '%s': joints '%s' and '%s' are %.6g apart at the "
                          "start (%s = %g %s + %g), more than its assembly tolerance %g; set their "
                          "initial q (initial: joints) to agree",
                          sp->src.file ? sp->src.file : "", sp->src.line, sp->src.column, r->name,
                          sp->joint[0], sp->joint[1], dist, sp->joint[1], sp->ratio, sp->joint[0],
                          sp->offset, sp->tol[0]), -1;
    path_joints(m, lp.body[0], lp.body[1], joints, sizeof joints);
    return hg_error_set(err, "%s:%d:%d: loop '%s': markers '%s' and '%s' are %.6g m and %.6g deg "
                        "apart at the start, more than its assembly tolerance (%g m, %g rad); set "
                        "the initial q of %s (initial: joints, or bodies: pose) so that they meet",
                        sp->src.file ? sp->src.file : "", sp->src.line, sp->src.column, r->name,
                        sp->marker[0], sp->marker[1], dist, ang * HG_DEG, sp->tol[0],
                        sp->tol[1], joints[0] ? joints : "the bodies between them"), -1;
  }
  hg_sim_loops_solve(s);
  int rc = hg_loops_project(l->L, s->d, s->rhs.qs, s->rhs.vs, l->eff, HG_LOOP_PROJECT_TOL, 50);
  if (rc < 0) {
    const hg_loop_spec *sp = NULL;
    for (int c = 0; c < l->nl && !sp; c++)
      if (l->active[c]) sp = l->loop[l->rt[c]].spec;
    return hg_error_set(err, "%s:%d:%d: no projection reaches a configuration where every closed "
                        "loop is closed from the initial state (%s); check the loops' markers and "
                        "the initial joint values",
                        sp && sp->src.file ? sp->src.file : s->scene->path, sp ? sp->src.line : 1,
                        sp ? sp->src.column : 1, s->d->err), -1;
  }
  memcpy(s->state.q, s->rhs.qs, (size_t)m->nq * sizeof(double));
  memcpy(s->state.v, s->rhs.vs, (size_t)m->nv * sizeof(double));
  s->views.view_ok = 0;
  return 0;
}

/* ---- closing and opening ---- */

/* the scene's capture of ports ma and mb (either order), or NULL */
static const hg_capture_spec *capture_of(const hg_sim *s, const char *ma, const char *mb) {
  for (int k = 0; ma && mb && k < s->scene->ncapture; k++) {
    const hg_capture_spec *c = &s->scene->capture[k];
    if ((!strcmp(c->marker_a, ma) && !strcmp(c->marker_b, mb)) ||
        (!strcmp(c->marker_a, mb) && !strcmp(c->marker_b, ma)))
      return c;
  }
  return NULL;
}

static void set_active(hg_rt_loops *l, int r, int on) {
  hg_rt_loop *lp = &l->loop[r];
  if (lp->active == on) return;
  lp->active = on;
  if (lp->k >= 0) {
    l->active[lp->k] = (unsigned char)on;
    l->nactive += on ? 1 : -1;
  }
}

int hg_sim_loop_close(hg_sim *s, int r, double *e_removed, char *msg, size_t len) {
  hg_rt_loops *l = &s->loops;
  hg_rt_loop *lp = &l->loop[r];
  *e_removed = 0;
  msg[0] = 0;
  if (lp->active) return snprintf(msg, len, "loop %s is already closed", lp->name), 1;
  if (lp->k < 0)
    return snprintf(msg, len, "loop %s is absent (a body of it is not here)", lp->name), 1;
  const hg_model *m = s->m;
  s->views.view_ok = 0;
  double dist, ang;
  hg_kinematics(m, s->d, s->state.q, s->state.v);
  hg_loops_violation(l->L, s->d, s->state.q, lp->k, &dist, &ang);
  if (dist > HG_LOOP_MEET || ang > HG_LOOP_MEET) {
    const hg_loop_spec *sp = lp->spec;
    const hg_capture_spec *c = sp && !sp->coupling ? capture_of(s, sp->marker[0], sp->marker[1])
                                                   : NULL;
    if (!c || dist > c->position_tol || ang > c->angle_tol)
      return snprintf(msg, len, "loop %s: its markers are %.6g m and %.6g deg apart%s", lp->name,
                      dist, ang * HG_DEG,
                      c ? ", beyond the capture tolerances" : " (no capture of these markers)"),
             1;
  }
  set_active(l, r, 1);
  /* onto the closed configuration (a no-op to round-off where the markers met), then the
   * plastic impulse that removes the relative velocity the loop forbids; a refusal leaves q as
   * it was */
  memcpy(s->rhs.qs, s->state.q, (size_t)m->nq * sizeof(double));
  hg_sim_loops_solve(s);
  if (hg_loops_project(l->L, s->d, s->rhs.qs, NULL, l->eff, HG_LOOP_PROJECT_TOL, 50) < 0) {
    set_active(l, r, 0);
    return snprintf(msg, len, "loop %s: no projection closes it (%s)", lp->name, s->d->err), 1;
  }
  /* a gap a capture's tolerance let close: the projection moved the bodies, and what that did to
   * the energy is logged (the event's energy before and after include it) */
  if (dist > HG_LOOP_MEET || ang > HG_LOOP_MEET) {
    double k0, p0, e0, k1, p1, e1;
    hg_sim_energy(s, s->state.q, s->state.v, &k0, &p0, &e0);
    hg_sim_energy(s, s->rhs.qs, s->state.v, &k1, &p1, &e1);
    snprintf(msg, len, "projected from %.6g m and %.6g deg apart (energy change %.6g J)", dist,
             ang * HG_DEG, (k1 + p1 + e1) - (k0 + p0 + e0));
  }
  memcpy(s->state.q, s->rhs.qs, (size_t)m->nq * sizeof(double));
  if (hg_sim_loops_impulse(s, s->state.v, e_removed)) return -1;
  return 0;
}

int hg_sim_loop_open(hg_sim *s, int r) {
  if (!s->loops.loop[r].active) return 1;
  set_active(&s->loops, r, 0);
  s->views.view_ok = 0;
  return 0;
}

int hg_sim_loop_restore(hg_sim *s, const char *name, const char *ma, const char *mb,
                        const hg_se3 *hold, int active) {
  hg_rt_loops *l = &s->loops;
  int r = hg_sim_loop_find(s, name);
  if (r < 0) {
    if (loops_grow(l)) return hg_sim_fail(s, HG_SIM_ERR_NUMERIC, "out of memory"), -1;
    hg_rt_loop *n = &l->loop[l->n];
    memset(n, 0, sizeof *n);
    n->name = hg_strdup(name);
    n->marker[0] = hg_strdup(ma);
    n->marker[1] = hg_strdup(mb);
    if (!n->name || !n->marker[0] || !n->marker[1]) {
      free(n->name), free(n->marker[0]), free(n->marker[1]);
      return hg_sim_fail(s, HG_SIM_ERR_NUMERIC, "out of memory"), -1;
    }
    n->k = -1;
    r = l->n++;
  } else if (l->loop[r].spec) {
    return hg_sim_fail(s, HG_SIM_ERR_INPUT, "dock: '%s' names a loop of the scene", name), -1;
  }
  l->loop[r].hold = *hold;
  l->loop[r].active = active;
  hg_error err;
  if (hg_sim_loops_compile(s, &err)) return hg_sim_fail(s, HG_SIM_ERR_NUMERIC, "%s", err.msg), -1;
  return r;
}

int hg_sim_loop_dock(hg_sim *s, const char *name, const char *ma, const char *mb) {
  int ia, ib;
  hg_se3 Ma, Mb, A, B, hold;
  if (hg_sim_resolve_marker(s, ma, &ia, &Ma) || hg_sim_resolve_marker(s, mb, &ib, &Mb))
    return hg_sim_fail(s, HG_SIM_ERR_INPUT, "dock %s: a marker is absent", name), -1;
  hg_kinematics(s->m, s->d, s->state.q, s->state.v);
  s->views.view_ok = 0;
  if (ia > 0) hg_se3_mul(&s->d->T_world[ia], &Ma, &A);
  else A = Ma;
  hg_se3_mul(&s->d->T_world[ib], &Mb, &B);
  /* the weld holds B where it is now, seen from A */
  hg_se3_invmul(&A, &B, &hold);
  return hg_sim_loop_restore(s, name, ma, mb, &hold, 0);
}

int hg_sim_loop_set(hg_sim *s, int r, int active) {
  set_active(&s->loops, r, active);
  s->views.view_ok = 0;
  return 0;
}

/* ---- statistics ---- */

void hg_sim_loop_stats(const hg_sim *s, double *max_position, double *max_velocity,
                       int *redundant) {
  if (max_position) *max_position = s->loops.max_pos;
  if (max_velocity) *max_velocity = s->loops.max_vel;
  if (redundant) *redundant = s->loops.redundant;
}
