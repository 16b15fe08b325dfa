/* output.c: the run's files: trajectory.csv (one row per output time), events.csv (one row per
 * event), summary.txt, the series the plots draw, and the progress bar. */
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

/* ---- columns ----
 * One block per body of the scene (those present at the start, then those absent at the start, in
 * scene order): its world pose and twist. Then one block per joint of the scene (each body's joint
 * as the scene writes it): mode, q, v and load, entries named and sized by the scene's joint type.
 * The layout depends on the scene's bodies only, never on what the run does to them: a body that
 * is absent (not yet added, removed) leaves its block empty, and a joint's block holds values only
 * while that joint joins the two bodies the scene says it joins with the scene's type (re-rooting,
 * which turns it round, is undone for the output); after a detach or once absent, it is empty.
 * joints.csv holds every joint of the current model whatever happened (docking joints too). */

static char *dup_str(const char *x) {
  size_t n = strlen(x) + 1;
  char *c = malloc(n);
  if (c) memcpy(c, x, n);
  return c;
}

/* column c for body i of model m (the initial model, or the library of absent bodies whose scene
 * parents are lib_parent) */
static int fill_column(hg_sim *s, hg_col *c, const hg_model *m, int i, char *const *lib_parent) {
  const char *parent = lib_parent ? lib_parent[i] : m->body_name[m->parent[i]];
  if (lib_parent && m->parent[i] > 0) parent = m->body_name[m->parent[i]];
  c->type = m->jnt[i].type;
  c->nq = m->jnt_nq[i];
  c->nv = m->jnt_nv[i];
  c->body = dup_str(m->body_name[i]);
  c->joint = dup_str(m->jnt_name[i]);
  c->parent = dup_str(parent ? parent : "world");
  s->out.nload += c->nv;
  return c->body && c->joint && c->parent ? 0 : -1;
}

static int make_columns(hg_sim *s) {
  const hg_model *m = s->m, *lib = s->scene->library.model;
  hg_outputs *o = &s->out;
  int nlib = lib ? lib->nbody - 1 : 0;
  o->ncol = m->nbody - 1 + nlib;
  o->col = calloc((size_t)o->ncol + 1, sizeof *o->col);
  if (!o->col) return -1;
  o->nload = 0;
  for (int i = 1; i < m->nbody; i++)
    if (fill_column(s, &o->col[i - 1], m, i, NULL)) return -1;
  for (int i = 1; i <= nlib; i++)
    if (fill_column(s, &o->col[m->nbody - 2 + i], lib, i, s->scene->library.parent)) return -1;
  o->load_used = calloc((size_t)o->nload + 1, 1);
  return o->load_used ? 0 : -1;
}

static const char *const pose_names[13] = {"x",  "y",  "z",  "qw", "qx", "qy", "qz",
                                           "wx", "wy", "wz", "vx", "vy", "vz"};

/* JOINT.mode, JOINT.q.NAME..., JOINT.v.NAME..., JOINT.load.NAME... (none for a fixed joint) */
static void header_joint(FILE *f, const hg_col *c) {
  static const char *const part[3] = {"q", "v", "load"};
  int n[3] = {c->nq, c->nv, c->nv};
  if (!c->nv) return;
  fprintf(f, ",%s.mode", c->joint);
  for (int w = 0; w < 3; w++)
    for (int k = 0; k < n[w]; k++)
      fprintf(f, ",%s.%s.%s", c->joint, part[w], hg_joint_entry_name(c->type, w, k, NULL));
}

static void write_headers(hg_sim *s) {
  hg_outputs *o = &s->out;
  FILE *f = o->traj;
  fprintf(f, "time");
  for (int c = 0; c < o->ncol; c++)
    for (int k = 0; k < 13; k++) fprintf(f, ",%s.%s", o->col[c].body, pose_names[k]);
  for (int c = 0; c < o->ncol; c++) header_joint(f, &o->col[c]);
  for (int p = 0; p < s->scene->output.npair; p++) {
    const hg_pair_spec *ps = &s->scene->output.pair[p];
    fprintf(f, ",%s-%s.distance,%s-%s.speed", ps->body_a, ps->body_b, ps->body_a, ps->body_b);
  }
  fprintf(f, ",kinetic,potential,element,removed_by_locks,work,event_work,budget,"
             "Lx,Ly,Lz,px,py,pz\n");
  fprintf(o->joints, "time,joint,type,parent,child,mode,nq,nv");
  for (int k = 0; k < HG_JOINT_MAXNQ; k++) fprintf(o->joints, ",q%d", k);
  for (int k = 0; k < HG_JOINT_MAXNV; k++) fprintf(o->joints, ",v%d", k);
  for (int k = 0; k < HG_JOINT_MAXNV; k++) fprintf(o->joints, ",load%d", k);
  fputc('\n', o->joints);
  fprintf(o->events, "time,event,details,Lx_before,Ly_before,Lz_before,px_before,py_before,"
                     "pz_before,energy_before,Lx_after,Ly_after,Lz_after,px_after,py_after,"
                     "pz_after,energy_after,removed_by_locks,momentum_change,conserves\n");
}

/* the files a run writes (hg_sim_clear_outputs removes these and nothing else) */
static const char *const output_files[] = {"trajectory.csv", "joints.csv", "events.csv",
                                           "summary.txt", "energy.png", "momentum.png",
                                           "separation.png", "loads.png", "failure-state.txt",
                                           NULL};

/* 1 for checkpoint-NNNN.txt (four or more digits) */
static int is_checkpoint_name(const char *name) {
  const char *p = name + strlen("checkpoint-");
  if (strncmp(name, "checkpoint-", strlen("checkpoint-")) != 0) return 0;
  int n = 0;
  while (*p >= '0' && *p <= '9') p++, n++;
  return n >= 4 && strcmp(p, ".txt") == 0;
}

int hg_sim_clear_outputs(const char *dir, const char *keep) {
  struct stat ks;
  int have_keep = keep && stat(keep, &ks) == 0, rc = 0;
  DIR *d = opendir(dir);
  if (!d) return -1;
  struct dirent *e;
  while ((e = readdir(d))) {
    int ours = is_checkpoint_name(e->d_name);
    for (int k = 0; output_files[k] && !ours; k++) ours = strcmp(e->d_name, output_files[k]) == 0;
    if (!ours) continue;
    char path[4096];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    if (stat(path, &st) || !S_ISREG(st.st_mode)) continue;
    if (have_keep && st.st_dev == ks.st_dev && st.st_ino == ks.st_ino) continue;
    if (remove(path)) rc = -1;
  }
  closedir(d);
  return rc;
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
  hg_out_path(s, "joints.csv", path, sizeof path);
  o->joints = fopen(path, "w");
  if (!o->joints) return hg_sim_fail(s, HG_SIM_ERR_OUTPUT, "cannot write %s", path);
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
  if (o->joints) fclose(o->joints);
  o->traj = o->events = o->joints = NULL;
  for (int c = 0; c < o->ncol; c++) {
    free(o->col[c].body);
    free(o->col[c].joint);
    free(o->col[c].parent);
  }
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

static const char *mode_word(int mode) {
  return mode == HG_MODE_FREE ? "free" : mode == HG_MODE_LOCKED ? "locked" : "prescribed";
}

/* one body's block: world pose and twist, empty while it is absent */
static void row_body(hg_sim *s, const hg_col *col) {
  FILE *f = s->out.traj;
  int i = hg_model_body(s->m, col->body);
  if (i < 1) {
    put_empty(f, 13);
    return;
  }
  hg_se3 T;
  double tw[6], quat[4];
  hg_sim_body_world(s, i, &T, tw);
  hg_R_to_quat(T.R, quat);
  for (int k = 0; k < 3; k++) put(f, T.p[k]);
  for (int k = 0; k < 4; k++) put(f, quat[k]);
  for (int k = 0; k < 6; k++) put(f, tw[k]);
}

/* what an actuator or lock adds at joint i (0 at a free joint: nothing holds it) */
static double joint_load(const hg_sim *s, int i, int k) {
  return s->d->mode[i] == HG_MODE_FREE ? 0 : s->tau[s->m->v_adr[i] + k];
}

/* The scene's joint of column col now, as the scene writes it: q, v and load of the joint that
 * joins col's two bodies with the scene's type, turned back when re-rooting reversed it (the
 * reversed joint of the reversed joint is the scene's; its loads map by equal power, load_scene =
 * B^T load_now with v_now = B v_scene). Its index in the current model, or -1 when it does not
 * join them now. */
static int scene_joint(hg_sim *s, const hg_col *col, double *q, double *v, double *load) {
  const hg_model *m = s->m;
  int i = hg_model_joint(m, col->joint);
  if (i < 1 || m->jnt[i].type != col->type) return -1;
  const char *child = m->body_name[i], *parent = m->body_name[m->parent[i]];
  const double *qi = s->qs + m->q_adr[i], *vi = s->vs + m->v_adr[i];
  if (!strcmp(child, col->body) && !strcmp(parent, col->parent)) {
    memcpy(q, qi, (size_t)col->nq * sizeof(double));
    memcpy(v, vi, (size_t)col->nv * sizeof(double));
    for (int k = 0; k < col->nv; k++) load[k] = joint_load(s, i, k);
    return i;
  }
  if (strcmp(child, col->parent) || strcmp(parent, col->body)) return -1;
  hg_joint js, jn;
  double e[HG_JOINT_MAXNV] = {0}, b[HG_JOINT_MAXNV], qn[HG_JOINT_MAXNQ];
  if (hg_joint_reverse(&m->jnt[i], qi, vi, &js, q, v)) return -1;
  for (int k = 0; k < col->nv; k++) {
    e[k] = 1;
    hg_joint_reverse(&js, q, e, &jn, qn, b);
    e[k] = 0;
    load[k] = 0;
    for (int l = 0; l < col->nv; l++) load[k] += b[l] * joint_load(s, i, l);
  }
  return i;
}

/* one joint's block: mode, q, v and load (loads: also into the plot's row) */
static void row_joint(hg_sim *s, const hg_col *col, double *loads) {
  FILE *f = s->out.traj;
  double q[HG_JOINT_MAXNQ], v[HG_JOINT_MAXNV], load[HG_JOINT_MAXNV];
  if (!col->nv) return;
  int i = scene_joint(s, col, q, v, load);
  if (i < 1) {
    for (int k = 0; k < col->nv; k++) loads[k] = NAN;
    put_empty(f, 1 + col->nq + 2 * col->nv);
    return;
  }
  fprintf(f, ",%s", mode_word(s->d->mode[i]));
  put_padded(f, q, col->nq, col->nq);
  put_padded(f, v, col->nv, col->nv);
  put_padded(f, load, col->nv, col->nv);
  memcpy(loads, load, (size_t)col->nv * sizeof(double));
}

/* joints.csv: every joint of the current model, as it is now */
static void row_joints_file(hg_sim *s) {
  const hg_model *m = s->m;
  FILE *f = s->out.joints;
  for (int i = 1; i < m->nbody; i++) {
    fprintf(f, "%.17g,%s,%s,%s,%s,%s,%d,%d", s->t, m->jnt_name[i],
            hg_joint_type_name(m->jnt[i].type), m->body_name[m->parent[i]], m->body_name[i],
            mode_word(s->d->mode[i]), m->jnt_nq[i], m->jnt_nv[i]);
    put_padded(f, s->qs + m->q_adr[i], m->jnt_nq[i], HG_JOINT_MAXNQ);
    put_padded(f, s->vs + m->v_adr[i], m->jnt_nv[i], HG_JOINT_MAXNV);
    for (int k = 0; k < HG_JOINT_MAXNV; k++) {
      if (k < m->jnt_nv[i]) put(f, joint_load(s, i, k));
      else fputc(',', f);
    }
    fputc('\n', f);
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
  for (int c = 0; c < o->ncol; c++) row_body(s, &o->col[c]);
  for (int c = 0, at = 1; c < o->ncol; at += o->col[c].nv, c++) {
    row_joint(s, &o->col[c], loads + at);
    for (int k = 0; k < o->col[c].nv; k++)
      if (loads[at + k] != 0 && !isnan(loads[at + k])) o->load_used[at - 1 + k] = 1;
  }
  row_pairs(s, pr);
  row_joints_file(s);
  int rc = row_invariants(s) || series_push(&o->pair, pr) || series_push(&o->load, loads);
  o->rows++;
  if (rc || ferror(o->traj) || ferror(o->joints))
    return hg_sim_fail(s, HG_SIM_ERR_OUTPUT, "cannot write trajectory.csv or joints.csv");
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
  hg_sim_after_event(s, ev); /* the invariants and the last good state observe every event */
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
}

/* which invariants hold for this scene, and how well */
static void summary_momentum(FILE *f, const hg_sim *s) {
  const hg_momentum_track *mt = &s->mt;
  if (mt->nstretch == 0) {
    fprintf(f, "invariants: energy budget (momentum is not conserved: %s)\n", mt->why);
    fprintf(f, "momentum_drift: n/a (the system is never isolated)\n");
    return;
  }
  fprintf(f, "invariants: energy budget; momentum while the system is isolated (%d stretch%s; "
             "the last from %s", mt->nstretch, mt->nstretch > 1 ? "es" : "", mt->since);
  if (!mt->isolated) fprintf(f, " to t = %.9g s", mt->t_out);
  fprintf(f, ")\n");
  if (mt->why[0])
    fprintf(f, "not_isolated: last at t = %.9g s: %s\n", mt->t_out, mt->why);
  fprintf(f, "momentum_drift: %.3g (max over the isolated stretches of |L - L0| and |p - p0| "
             "relative to the stretch's peak |L| and |p|; L0, p0 at the start of each)\n",
          s->max_hdrift);
  fprintf(f, "momentum_drift_absolute: %.3g N m s, %.3g N s (max |L - L0|, |p - p0|; L about "
             "the world origin)\n", mt->worst_abs[0], mt->worst_abs[1]);
  fprintf(f, "momentum_scale: %.6g N m s (%s), %.6g N s (%s)\n", mt->worst_peak[0],
          mt->worst_zero[0] ? "the total is zero: the bodies' peak summed |L|" : "peak |L|",
          mt->worst_peak[1],
          mt->worst_zero[1] ? "the total is zero: the bodies' peak summed |p|" : "peak |p|");
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
  summary_momentum(f, s);
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
