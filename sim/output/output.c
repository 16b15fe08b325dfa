/* output.c: the run's files: trajectory.csv (one row per output time), events.csv (one row per
 * event), summary.txt, the series the plots draw, and the progress bar. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim_internal.h"

void hg_out_path(const hg_sim *s, const char *name, char *path, size_t len) {
  const char *dir = s->opt.out_dir ? s->opt.out_dir : ".";
  size_t n = strlen(dir);
  snprintf(path, len, "%s%s%s", dir, n && dir[n - 1] == '/' ? "" : "/", name);
}

/* ---- series ---- */

static int series_init(hg_series *x, int width) {
  memset(x, 0, sizeof *x);
  x->width = width;
  return 0;
}

/* appends one row of width numbers; 0 or -1 */
static int series_push(hg_series *x, const double *row) {
  if (x->n == x->cap) {
    int cap = x->cap ? 2 * x->cap : 256;
    double *y = realloc(x->x, (size_t)cap * (size_t)x->width * sizeof(double));
    if (!y) return -1;
    x->x = y;
    x->cap = cap;
  }
  memcpy(x->x + (size_t)x->n * (size_t)x->width, row, (size_t)x->width * sizeof(double));
  x->n++;
  return 0;
}

/* ---- columns ---- */

static int name_in(const char *name, const char *a) { return a && strcmp(name, a) == 0; }

/* 1 when an action or capture may give body i (initial model) a free joint: detached, undocked
 * with detach, or docked (then its whole tree may be re-rooted) */
static int may_become_free(const hg_sim *s, int i) {
  const hg_scene *sc = s->scene;
  const hg_model *m = s->m;
  const char *name = m->body_name[i];
  for (int e = 0; e < sc->nevent; e++)
    for (int a = 0; a < sc->event[e].naction; a++) {
      const hg_action *act = &sc->event[e].action[a];
      if (act->type == HG_ACTION_DETACH && name_in(name, act->body)) return 1;
      if (act->type == HG_ACTION_UNDOCK && act->detach && name_in(m->jnt_name[i], act->joint))
        return 1;
      if (act->type == HG_ACTION_ATTACH) return 1;
    }
  return sc->ncapture > 0;
}

/* fills column c for body i of model m (the initial model, or the library of absent bodies) */
static int fill_column(hg_sim *s, hg_col *c, const hg_model *m, int i, int initial) {
  int wide = (!initial || may_become_free(s, i)) && m->jnt[i].type != HG_JOINT_FREE;
  c->nq = wide && m->jnt_nq[i] < HG_JOINT_MAXNQ ? HG_JOINT_MAXNQ : m->jnt_nq[i];
  c->nv = wide && m->jnt_nv[i] < HG_JOINT_MAXNV ? HG_JOINT_MAXNV : m->jnt_nv[i];
  size_t n = strlen(m->body_name[i]) + 1;
  if (!(c->body = malloc(n))) return -1;
  memcpy(c->body, m->body_name[i], n);
  s->out.nload += c->nv;
  return 0;
}

/* the column blocks: the bodies of the initial model, then those an 'add' may bring (empty
 * until then) */
static int make_columns(hg_sim *s) {
  const hg_model *m = s->m, *lib = s->scene->library.model;
  hg_outputs *o = &s->out;
  int nlib = lib ? lib->nbody - 1 : 0;
  o->ncol = m->nbody - 1 + nlib;
  o->col = calloc((size_t)o->ncol + 1, sizeof *o->col);
  if (!o->col) return -1;
  o->nload = 0;
  for (int i = 1; i < m->nbody; i++)
    if (fill_column(s, &o->col[i - 1], m, i, 1)) return -1;
  for (int i = 1; i <= nlib; i++)
    if (fill_column(s, &o->col[m->nbody - 2 + i], lib, i, 0)) return -1;
  o->load_used = calloc((size_t)o->nload + 1, 1);
  return o->load_used ? 0 : -1;
}

static void header_block(FILE *f, const hg_col *c) {
  static const char *const pose[] = {"x", "y", "z", "qw", "qx", "qy", "qz",
                                     "wx", "wy", "wz", "vx", "vy", "vz"};
  for (int k = 0; k < 13; k++) fprintf(f, ",%s.%s", c->body, pose[k]);
  for (int k = 0; k < c->nq; k++) fprintf(f, ",%s.q%d", c->body, k);
  for (int k = 0; k < c->nv; k++) fprintf(f, ",%s.v%d", c->body, k);
  if (c->nv) fprintf(f, ",%s.mode", c->body);
  for (int k = 0; k < c->nv; k++) fprintf(f, ",%s.load%d", c->body, k);
}

static void write_headers(hg_sim *s) {
  hg_outputs *o = &s->out;
  FILE *f = o->traj;
  fprintf(f, "time");
  for (int c = 0; c < o->ncol; c++) header_block(f, &o->col[c]);
  for (int p = 0; p < s->scene->output.npair; p++) {
    const hg_pair_spec *ps = &s->scene->output.pair[p];
    fprintf(f, ",%s-%s.distance,%s-%s.speed", ps->body_a, ps->body_b, ps->body_a, ps->body_b);
  }
  fprintf(f, ",kinetic,potential,element,removed_by_locks,work,event_work,budget,"
             "Lx,Ly,Lz,px,py,pz\n");
  fprintf(o->events, "time,event,details,Lx_before,Ly_before,Lz_before,px_before,py_before,"
                     "pz_before,energy_before,Lx_after,Ly_after,Lz_after,px_after,py_after,"
                     "pz_after,energy_after,removed_by_locks,momentum_change,conserves\n");
}

int hg_out_open(hg_sim *s) {
  hg_outputs *o = &s->out;
  char path[4096];
  if (!s->opt.out_dir) return 0;
  if (make_columns(s)) return hg_sim_fail(s, HG_SIM_ERR_OUTPUT, "out of memory");
  series_init(&o->energy, 5);
  series_init(&o->momentum, 7);
  series_init(&o->pair, 1 + 2 * s->scene->output.npair);
  series_init(&o->load, 1 + o->nload);
  o->row_load = calloc((size_t)o->nload + 1, sizeof(double));
  o->row_pair = calloc((size_t)o->pair.width, sizeof(double));
  if (!o->row_load || !o->row_pair) return hg_sim_fail(s, HG_SIM_ERR_OUTPUT, "out of memory");
  hg_out_path(s, "trajectory.csv", path, sizeof path);
  o->traj = fopen(path, "w");
  if (!o->traj) return hg_sim_fail(s, HG_SIM_ERR_OUTPUT, "cannot write %s", path);
  hg_out_path(s, "events.csv", path, sizeof path);
  o->events = fopen(path, "w");
  if (!o->events) return hg_sim_fail(s, HG_SIM_ERR_OUTPUT, "cannot write %s", path);
  write_headers(s);
  return 0;
}

void hg_out_close(hg_sim *s) {
  hg_outputs *o = &s->out;
  if (o->traj) fclose(o->traj);
  if (o->events) fclose(o->events);
  o->traj = o->events = NULL;
  for (int c = 0; c < o->ncol; c++) free(o->col[c].body);
  free(o->col);
  free(o->load_used);
  free(o->row_load);
  free(o->row_pair);
  free(o->energy.x);
  free(o->momentum.x);
  free(o->pair.x);
  free(o->load.x);
  memset(o, 0, sizeof *o);
}

/* ---- one row ---- */

static void put(FILE *f, double x) { fprintf(f, ",%.17g", x); }

/* n numbers of x, then empty fields up to width */
static void put_padded(FILE *f, const double *x, int n, int width) {
  for (int k = 0; k < width; k++) {
    if (k < n) put(f, x[k]);
    else fputc(',', f);
  }
}

static void put_empty(FILE *f, int n) {
  for (int k = 0; k < n; k++) fputc(',', f);
}

/* one body's block: world pose and twist, its joint's q, v, mode and load */
static void row_block(hg_sim *s, int c, double *loads) {
  hg_outputs *o = &s->out;
  const hg_col *col = &o->col[c];
  const hg_model *m = s->m;
  FILE *f = o->traj;
  int i = hg_model_body(m, col->body);
  if (i < 1) {
    put_empty(f, 13 + col->nq + 2 * col->nv + (col->nv > 0));
    return;
  }
  hg_se3 T;
  double tw[6], quat[4];
  hg_sim_body_world(s, i, &T, tw);
  hg_R_to_quat(T.R, quat);
  for (int k = 0; k < 3; k++) put(f, T.p[k]);
  for (int k = 0; k < 4; k++) put(f, quat[k]);
  for (int k = 0; k < 6; k++) put(f, tw[k]);
  int nq = m->jnt_nq[i], nv = m->jnt_nv[i], mode = s->d->mode[i];
  if ((nq > col->nq || nv > col->nv) && !o->warned_width) {
    fprintf(stderr, "hinge: note: joint '%s' of body '%s' now has %d coordinates; its columns "
            "hold %d\n", m->jnt_name[i], col->body, nq, col->nq);
    o->warned_width = 1;
  }
  put_padded(f, s->qs + m->q_adr[i], nq, col->nq);
  put_padded(f, s->vs + m->v_adr[i], nv, col->nv);
  if (col->nv) fprintf(f, ",%d", mode);
  for (int k = 0; k < col->nv; k++) {
    double load = k < nv && mode != HG_MODE_FREE ? s->tau[m->v_adr[i] + k] : 0;
    if (k < nv) put(f, load);
    else fputc(',', f);
    loads[k] = k < nv ? load : 0;
  }
}

/* separation and relative speed of the body origins of each pair */
static void row_pairs(hg_sim *s, double *pr) {
  for (int p = 0; p < s->scene->output.npair; p++) {
    const hg_pair_spec *ps = &s->scene->output.pair[p];
    int a = hg_model_body(s->m, ps->body_a), b = hg_model_body(s->m, ps->body_b);
    double dist = NAN, speed = NAN, ta[6], tb[6], d[3], w[3];
    hg_se3 Ta, Tb;
    if (a >= 1 && b >= 1) {
      hg_sim_body_world(s, a, &Ta, ta);
      hg_sim_body_world(s, b, &Tb, tb);
      for (int k = 0; k < 3; k++) d[k] = Tb.p[k] - Ta.p[k], w[k] = tb[3 + k] - ta[3 + k];
      dist = hg_v3_norm(d);
      speed = hg_v3_norm(w);
    }
    put(s->out.traj, dist);
    put(s->out.traj, speed);
    pr[1 + 2 * p] = dist;
    pr[2 + 2 * p] = speed;
  }
}

/* the invariants at the end of the row, and their series */
static int row_invariants(hg_sim *s) {
  FILE *f = s->out.traj;
  double ke, pe, pel, h[6];
  hg_sim_energy(s, s->q, s->v, &ke, &pe, &pel);
  double b = ke + pe + pel + s->e_lock - s->quad - s->w_event;
  double e[5] = {s->t, ke, pe + pel, ke + pe + pel, b - s->b0};
  double x[7] = {ke, pe, pel, s->e_lock, s->quad, s->w_event, b};
  for (int k = 0; k < 7; k++) put(f, x[k]);
  hg_momentum(s->m, s->d, s->q, s->v, h);
  for (int k = 0; k < 6; k++) put(f, h[k]);
  fputc('\n', f);
  double mo[7] = {s->t, h[0], h[1], h[2], h[3], h[4], h[5]};
  return series_push(&s->out.energy, e) || series_push(&s->out.momentum, mo);
}

int hg_out_row(hg_sim *s) {
  hg_outputs *o = &s->out;
  if (!o->traj) return 0;
  /* loads and the prescribed part of the state at this time (kinematics left in s->d) */
  if (hg_sim_eval(s, s->t, s->q, s->v, NULL))
    for (int k = 0; k < s->m->nv; k++) s->tau[k] = NAN;
  double *loads = o->row_load, *pr = o->row_pair;
  fprintf(o->traj, "%.17g", s->t);
  loads[0] = pr[0] = s->t;
  for (int c = 0, at = 1; c < o->ncol; at += o->col[c].nv, c++) {
    row_block(s, c, loads + at);
    for (int k = 0; k < o->col[c].nv; k++)
      if (loads[at + k] != 0) o->load_used[at - 1 + k] = 1;
  }
  row_pairs(s, pr);
  int rc = row_invariants(s) || series_push(&o->pair, pr) || series_push(&o->load, loads);
  o->rows++;
  if (rc || ferror(o->traj))
    return hg_sim_fail(s, HG_SIM_ERR_OUTPUT, "cannot write trajectory.csv");
  return 0;
}

/* ---- events ---- */

/* max over angular and linear parts of |change| / (sum of the bodies' magnitudes) */

/* a CSV field in double quotes (a command's name holds commas and braces) */
static void put_quoted(FILE *f, const char *text) {
  fputc('"', f);
  for (const char *p = text; *p; p++) {
    if (*p == '"') fputc('"', f);
    fputc(*p, f);
  }
  fputc('"', f);
}

int hg_out_event(hg_sim *s, const hg_sim_event *ev) {
  FILE *f = s->out.events;
  if (!f) return 0;
  fprintf(f, "%.17g,", ev->t);
  put_quoted(f, ev->name);
  fputc(',', f);
  put_quoted(f, ev->details);
  for (int k = 0; k < 6; k++) put(f, ev->h_before[k]);
  put(f, ev->e_before);
  for (int k = 0; k < 6; k++) put(f, ev->h_after[k]);
  put(f, ev->e_after);
  put(f, ev->e_lock);
  fprintf(f, ",%.3g,%d\n", hg_sim_event_momentum_change(ev), ev->conserves);
  fflush(f);
  return ferror(f) ? hg_sim_fail(s, HG_SIM_ERR_OUTPUT, "cannot write events.csv") : 0;
}

/* ---- summary ---- */

static void summary_integrator(FILE *f, const hg_sim *s) {
  hg_integ_stats st;
  hg_sim_stats(s, &st);
  fprintf(f, "method: %s\nrtol: %g\n", hg_integ_method_name(s->integ.method), s->integ.rtol);
  fprintf(f, "steps: %ld\nrhs_evals: %ld\njac_evals: %ld\nerr_test_fails: %ld\nconv_fails: %ld\n"
             "root_evals: %ld\nrecentres: %ld\nintegrator_events: %ld\nresets: %ld\n",
          st.steps, st.rhs_evals, st.jac_evals, st.err_test_fails, st.conv_fails, st.root_evals,
          st.recentres, st.events, st.resets);
}

static void summary_events(FILE *f, const hg_sim *s) {
  double worst = 0;
  int nc = 0;
  fprintf(f, "events: %d\n", s->nlog);
  for (int k = 0; k < s->nlog; k++) {
    const hg_sim_event *ev = &s->log[k];
    double dh = hg_sim_event_momentum_change(ev);
    fprintf(f, "  t = %.9g  %s: %s (momentum change %.3g, energy %.9g -> %.9g J)\n", ev->t,
            ev->name, ev->details, dh, ev->e_before, ev->e_after);
    if (ev->conserves && (nc++ == 0 || dh > worst)) worst = dh;
  }
  fprintf(f, "momentum_change_across_events: %.3g (max over %d momentum-conserving events)\n",
          worst, nc);
  fprintf(f, "momentum_drift: %.3g (max over the outputs of |h - h0| / the bodies' summed "
             "momenta; h0 resets at events that apply impulses or remove bodies; constant only "
             "when nothing acts from outside)\n", s->max_hdrift);
}

static void summary_budget(FILE *f, hg_sim *s) {
  hg_sim_budget b;
  hg_sim_get_budget(s, &b);
  fprintf(f, "energy_kinetic: %.9g J\nenergy_potential: %.9g J\nenergy_elements: %.9g J\n"
             "energy_removed_by_locks: %.9g J\nwork_nonconservative: %.9g J\n"
             "energy_added_by_events: %.9g J\n",
          b.kinetic, b.potential, b.element, b.e_lock, b.work, b.work_event);
  fprintf(f, "energy_budget: initial %.12g J, final %.12g J, scale %.6g J\n", b.initial, b.value,
          b.scale);
  fprintf(f, "energy_budget_drift: %.3g (max |B - B0| / scale over the outputs)\n", b.max_drift);
}

int hg_out_summary(hg_sim *s, const char *path) {
  FILE *f = fopen(path, "w");
  if (!f) return -1;
  double sim_time = s->t - s->t_start, wall = s->wall;
  fprintf(f, "hinge run summary\nscene: %s\n", s->scene->path ? s->scene->path : "?");
  if (s->scene->title) fprintf(f, "title: %s\n", s->scene->title);
  fprintf(f, "status: %s\n", s->failed          ? s->err
                             : s->t >= s->t_end ? "completed"
                                                : "stopped before the end");
  fprintf(f, "time: %.9g to %.9g s (end %.9g s)\n", s->t_start, s->t, s->t_end);
  fprintf(f, "bodies: %d\ndofs: %d\n", s->m->nbody - 1, s->m->nv);
  summary_integrator(f, s);
  summary_events(f, s);
  fprintf(f, "refused_actions: %d\n", hg_sim_refused(s));
  summary_budget(f, s);
  fprintf(f, "wall_time: %.3f s\nreal_time_factor: %.4g\n", wall, wall > 0 ? sim_time / wall : 0);
  fprintf(f, "trajectory_rows: %ld\n", s->out.rows);
  int rc = ferror(f);
  return fclose(f) || rc ? -1 : 0;
}

/* ---- progress ---- */

static double wall_clock(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void hg_progress(hg_sim *s, int final) {
  FILE *f = s->opt.progress;
  if (!f) return;
  double now = wall_clock();
  if (!final && now - s->progress_wall < 0.1) return;
  s->progress_wall = now;
  double frac = (s->t - s->t_start) / (s->t_end - s->t_start);
  int n = (int)(frac * 30 + 0.5);
  char bar[31];
  for (int k = 0; k < 30; k++) bar[k] = k < n ? '#' : '.';
  bar[30] = 0;
  fprintf(f, "\r[%s] %3.0f%%  t = %.4g / %.4g s  events %d", bar, 100 * frac, s->t, s->t_end,
          s->nlog);
  if (final) fputc('\n', f);
  fflush(f);
}
