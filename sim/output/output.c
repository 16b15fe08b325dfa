/* output.c: the outputs as an observer of the run (output.h): trajectory.csv and joints.csv (one
 * row per output time), events.csv (one row per event) and the series the plots draw, all read
 * through the simulation's views; summary.txt (summary.c) and the plots (plot.c) at the end. */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "grow.h"
#include "plot_style.h"
#include "run_outputs.h"

void hg_output_default_options(hg_output_options *o) {
  memset(o, 0, sizeof *o);
  o->plots = 1;
  o->notices = stderr;
}

/* ---- series ---- */

static void series_init(hg_series *x, int width) {
  memset(x, 0, sizeof *x);
  x->width = width;
  x->stride = 1;
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

/* column c for body i of model m (the initial model, or the library of absent bodies whose scene
 * parents are lib_parent) */
static int fill_column(hg_outputs *o, hg_col *c, const hg_model *m, int i,
                       char *const *lib_parent) {
  const char *parent = lib_parent ? lib_parent[i] : m->body_name[m->parent[i]];
  if (lib_parent && m->parent[i] > 0) parent = m->body_name[m->parent[i]];
  c->type = m->jnt[i].type;
  c->nq = m->jnt_nq[i];
  c->nv = m->jnt_nv[i];
  c->body = hg_strdup(m->body_name[i]);
  c->joint = hg_strdup(m->jnt_name[i]);
  c->parent = hg_strdup(parent ? parent : "world");
  o->nload += c->nv;
  return c->body && c->joint && c->parent ? 0 : -1;
}

static int make_columns(hg_outputs *o, hg_sim *s) {
  const hg_model *m = hg_sim_model(s), *lib = hg_sim_scene(s)->library.model;
  int nlib = lib ? lib->nbody - 1 : 0;
  o->ncol = m->nbody - 1 + nlib;
  o->col = calloc((size_t)o->ncol + 1, sizeof *o->col);
  if (!o->col) return -1;
  o->nload = 0;
  for (int i = 1; i < m->nbody; i++)
    if (fill_column(o, &o->col[i - 1], m, i, NULL)) return -1;
  for (int i = 1; i <= nlib; i++)
    if (fill_column(o, &o->col[m->nbody - 2 + i], lib, i, hg_sim_scene(s)->library.parent))
      return -1;
  o->load_used = calloc((size_t)o->nload + 1, 1);
  return o->load_used ? 0 : -1;
}

static const char *const pose_names[13] = {"x",  "y",  "z",  "qw", "qx", "qy", "qz",
                                           "wx", "wy", "wz", "vx", "vy", "vz"};

/* JOINT.mode, JOINT.q.NAME..., JOINT.v.NAME..., JOINT.load.NAME...; a fixed joint has no mode,
 * q or v, and the load columns of a free joint: the wrench it transmits, JOINT.load.mx..fz */
static void header_joint(FILE *f, const hg_col *c) {
  static const char *const part[3] = {"q", "v", "load"};
  int n[3] = {c->nq, c->nv, c->nv};
  if (c->type == HG_JOINT_FIXED) {
    for (int k = 0; k < 6; k++)
      hg_csv_field(f, 1, "%s.load.%s", c->joint, hg_joint_entry_name(HG_JOINT_FREE, 2, k, NULL));
    return;
  }
  if (!c->nv) return;
  hg_csv_field(f, 1, "%s.mode", c->joint);
  for (int w = 0; w < 3; w++)
    for (int k = 0; k < n[w]; k++)
      hg_csv_field(f, 1, "%s.%s.%s", c->joint, part[w],
                   hg_joint_entry_name(c->type, w, k, NULL));
}

static void write_headers(hg_outputs *o, hg_sim *s) {
  const hg_scene *sc = hg_sim_scene(s);
  FILE *f = o->traj;
  fprintf(f, "time");
  for (int c = 0; c < o->ncol; c++)
    for (int k = 0; k < 13; k++) hg_csv_field(f, 1, "%s.%s", o->col[c].body, pose_names[k]);
  for (int c = 0; c < o->ncol; c++) header_joint(f, &o->col[c]);
  hg_out_loops_header(o, s, f);
  for (int p = 0; p < sc->output.npair; p++) {
    const hg_pair_spec *ps = &sc->output.pair[p];
    static const char *const part[] = {"distance", "speed", "clearance", "clearance_ax",
                                       "clearance_ay", "clearance_az", "clearance_bx",
                                       "clearance_by", "clearance_bz"};
    for (int k = 0; k < 9; k++) hg_csv_field(f, 1, "%s-%s.%s", ps->body_a, ps->body_b, part[k]);
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

/* the files a run writes (hg_output_clear removes these and nothing else) */
static const char *const output_files[] = {"trajectory.csv", "joints.csv", "events.csv",
                                           "summary.txt", "energy.png", "momentum.png",
                                           "separation.png", "loads.png", "failure-state.txt",
                                           "stop-state.txt",
                                           "actuators.csv", "sensors.csv", "controllers.csv",
                                           "control.png", NULL};

/* 1 for checkpoint-NNNN.txt (four or more digits) */
static int is_checkpoint_name(const char *name) {
  const char *p = name + strlen("checkpoint-");
  if (strncmp(name, "checkpoint-", strlen("checkpoint-")) != 0) return 0;
  int n = 0;
  while (*p >= '0' && *p <= '9') p++, n++;
  return n >= 4 && strcmp(p, ".txt") == 0;
}

int hg_output_clear(const char *dir, const char *keep) {
  struct stat ks;
  int have_keep = keep && stat(keep, &ks) == 0, rc = 0;
  DIR *d = opendir(dir);
  if (!d) return -1;
  struct dirent *e;
  while ((e = readdir(d))) {
    int ours = is_checkpoint_name(e->d_name);
    for (int k = 0; output_files[k] && !ours; k++) {
      size_t n = strlen(output_files[k]);
      /* the file, or a temporary of it left by a run killed while writing it (outfile.h) */
      const char *rest = e->d_name + n;
      ours = !strncmp(e->d_name, output_files[k], n) &&
             (!*rest || (!strncmp(rest, ".tmp-", 5) && strlen(rest) == 11));
    }
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

static void outputs_free(void *user) {
  hg_outputs *o = user;
  for (int k = 0; k < 3; k++) hg_outfile_discard(&o->file[k]);
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
  free(o->zoom.x);
  free(o->recent.x);
  free(o->clear);
  hg_out_loops_free(o);
  hg_out_control_free(o);
  for (int k = 0; k < o->nlimit; k++) free(o->limit[k].joint);
  free(o->limit);
  free(o->dir);
  free(o);
}

/* opens the three CSV files (created anew, never through a link); 0 or -1 with o->msg */
static int open_files(hg_outputs *o) {
  static const char *const name[3] = {"trajectory.csv", "joints.csv", "events.csv"};
  FILE **f[3] = {&o->traj, &o->joints, &o->events};
  char path[4096];
  for (int k = 0; k < 3; k++) {
    hg_out_path(o, name[k], path, sizeof path);
    if (hg_outfile_stream(&o->file[k], path)) return hg_out_check(o, &o->file[k]), -1;
    *f[k] = o->file[k].f;
  }
  return 0;
}

static const char *on_row(void *user, hg_sim *s);
static const char *on_event(void *user, hg_sim *s, const hg_sim_event *ev);

/* an instant sensors sampled or controllers stepped (control_out.c) */
static const char *on_sample(void *user, hg_sim *s) { return hg_out_control_sample(user, s); }

/* The CSV files are closed (flushed, every failure checked), then the plots are drawn, and
 * summary.txt is written last, with the status of the outputs: a write that failed anywhere
 * skips the plots, makes the status "failed: ..." and the message (the first failure: its file
 * and reason) the finish's; a summary that cannot be written is removed, so that no summary.txt
 * claims a run whose files are incomplete. NULL or the message. */
static const char *on_finish(void *user, hg_sim *s) {
  hg_outputs *o = user;
  char path[4096];
  if (!o->dir || o->finished) return NULL;
  o->finished = 1;
  for (int k = 0; k < 3; k++) hg_out_close(o, &o->file[k]);
  o->traj = o->joints = o->events = NULL;
  hg_out_control_close(o);
  if (o->plot && !o->werr) hg_plot_all(o, s);
  hg_out_path(o, "summary.txt", path, sizeof path);
  hg_out_summary(o, s, path);
  return o->werr ? o->msg : NULL;
}

int hg_output_attach(hg_sim *s, const hg_output_options *opt, hg_error *err) {
  hg_outputs *o = calloc(1, sizeof *o);
  const hg_scene *sc = hg_sim_scene(s);
  if (!o) return hg_error_set(err, "out of memory"), -1;
  o->opt = *opt;
  o->dir = opt->dir ? hg_strdup(opt->dir) : NULL;
  o->opt.dir = o->dir;
  if (opt->dir && !o->dir) return outputs_free(o), hg_error_set(err, "out of memory"), -1;
  if (o->dir) {
    /* the series are kept for the plots only (a run without plots keeps no row in memory) */
    o->plot = o->opt.plots && sc->output.plots;
    series_init(&o->energy, o->plot ? 5 : 0);
    series_init(&o->momentum, o->plot ? 7 : 0);
    series_init(&o->pair, o->plot ? 1 + 3 * sc->output.npair : 0);
    o->clear = calloc((size_t)sc->output.npair + 1, sizeof *o->clear);
    if (!o->clear) return outputs_free(o), hg_error_set(err, "out of memory"), -1;
    if (make_columns(o, s)) return outputs_free(o), hg_error_set(err, "out of memory"), -1;
    series_init(&o->load, o->plot ? 1 + o->nload : 0);
    /* the zoom panels' exact rows around events (separation.png: scenes with pairs) */
    series_init(&o->zoom, o->plot && sc->output.npair ? o->pair.width : 0);
    series_init(&o->recent, o->zoom.width);
    o->zoom.exact = o->recent.exact = 1;
    o->zoom_w = hg_plot_zoom_length(sc->output.dt);
    o->zoom_until = -INFINITY;
    o->row_load = calloc((size_t)o->nload + 1, sizeof(double));
    o->row_pair = calloc(1 + 3 * (size_t)sc->output.npair, sizeof(double));
    if (!o->row_load || !o->row_pair || hg_out_loops_init(o, s))
      return outputs_free(o), hg_error_set(err, "out of memory"), -1;
    if (open_files(o) || hg_out_control_init(o, s))
      return hg_error_set(err, "%s", o->msg), outputs_free(o), -1;
    write_headers(o, s);
  }
  hg_sim_observer obs = {.user = o,
                         .row = o->dir ? on_row : NULL,
                         .event = o->dir ? on_event : NULL,
                         .sample = o->ctl ? on_sample : NULL,
                         .progress = o->opt.progress ? hg_out_progress : NULL,
                         .finish = on_finish,
                         .release = outputs_free};
  if (hg_sim_observe(s, &obs))
    return hg_error_set(err, "outputs must be attached before the run begins"), -1;
  return 0;
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
static void row_body(FILE *f, hg_sim *s, const hg_col *col) {
  int i = hg_model_body(hg_sim_model(s), col->body);
  if (i < 1) {
    put_empty(f, 13);
    return;
  }
  hg_se3 T;
  double tw[6], quat[4];
  hg_sim_body(s, i, &T, tw);
  hg_R_to_quat(T.R, quat);
  for (int k = 0; k < 3; k++) put(f, T.p[k]);
  for (int k = 0; k < 4; k++) put(f, quat[k]);
  for (int k = 0; k < 6; k++) put(f, tw[k]);
}

/* what an actuator or lock adds at a joint (0 at a free joint: nothing holds it) */
static double joint_load(const hg_sim_joint_view *jv, int k) {
  return jv->mode == HG_MODE_FREE ? 0 : jv->load[k];
}

/* The scene's joint of column col now, as the scene writes it: q, v and load of the joint that
 * joins col's two bodies with the scene's type, turned back when re-rooting reversed it (the
 * reversed joint of the reversed joint is the scene's; its loads map by equal power, load_scene =
 * B^T load_now with v_now = B v_scene). Its view (jv), and its index in the current model, or -1
 * when it does not join them now. */
static int scene_joint(hg_sim *s, const hg_col *col, hg_sim_joint_view *jv, double *q, double *v,
                       double *load) {
  const hg_model *m = hg_sim_model(s);
  int i = hg_model_joint(m, col->joint);
  if (i < 1 || m->jnt[i].type != col->type) return -1;
  const char *child = m->body_name[i], *parent = m->body_name[m->parent[i]];
  hg_sim_joint(s, i, jv);
  if (!strcmp(child, col->body) && !strcmp(parent, col->parent)) {
    memcpy(q, jv->q, (size_t)col->nq * sizeof(double));
    memcpy(v, jv->v, (size_t)col->nv * sizeof(double));
    for (int k = 0; k < col->nv; k++) load[k] = joint_load(jv, k);
    return i;
  }
  if (strcmp(child, col->parent) || strcmp(parent, col->body)) return -1;
  hg_joint js, jn;
  double e[HG_JOINT_MAXNV] = {0}, b[HG_JOINT_MAXNV], qn[HG_JOINT_MAXNQ];
  if (hg_joint_reverse(&m->jnt[i], jv->q, jv->v, &js, q, v)) return -1;
  for (int k = 0; k < col->nv; k++) {
    e[k] = 1;
    hg_joint_reverse(&js, q, e, &jn, qn, b);
    e[k] = 0;
    load[k] = 0;
    for (int l = 0; l < col->nv; l++) load[k] += b[l] * joint_load(jv, l);
  }
  return i;
}

/* The wrench a fixed joint of the scene (column col) applies to the scene's child body: moment
 * about that body's origin, then force, in that body's frame (as a free joint's loads). The view's
 * wrench is the one on the current child, world axes, about its origin; re-rooting may have made
 * the scene's parent the current child, and then the scene's child takes its opposite (Newton's
 * third law), moved to its own origin: m_c = m + (o_p - o_c) x f. 0, or -1 (F unset) when the
 * joint does not join col's bodies now. */
static int fixed_wrench(hg_sim *s, const hg_col *col, double F[6]) {
  const hg_model *m = hg_sim_model(s);
  int i = hg_model_joint(m, col->joint);
  if (i < 1 || m->jnt[i].type != HG_JOINT_FIXED) return -1;
  const char *child = m->body_name[i], *parent = m->body_name[m->parent[i]];
  int same = !strcmp(child, col->body) && !strcmp(parent, col->parent);
  if (!same && (strcmp(child, col->parent) || strcmp(parent, col->body))) return -1;
  hg_sim_joint_view jv;
  hg_se3 Tc, Tp;
  double tw[6], w[6], r[3];
  hg_sim_joint(s, i, &jv);
  hg_sim_body(s, same ? i : m->parent[i], &Tc, tw); /* the scene's child */
  memcpy(w, jv.wrench, sizeof w);
  if (!same) {
    hg_sim_body(s, i, &Tp, tw); /* the current child: the scene's parent */
    for (int k = 0; k < 6; k++) w[k] = -w[k];
    for (int k = 0; k < 3; k++) r[k] = Tp.p[k] - Tc.p[k];
    hg_v3_cross_add(r, w + 3, w);
  }
  /* world axes into the child's: R^T w */
  hg_m3_mulTv(Tc.R, w, F);
  hg_m3_mulTv(Tc.R, w + 3, F + 3);
  return 0;
}

/* one joint's block: mode, q, v and load (loads: also into the plot's row); a fixed joint's block
 * is its transmitted wrench only (not in the plot's row) */
static void row_joint(FILE *f, hg_sim *s, const hg_col *col, double *loads) {
  hg_sim_joint_view jv;
  double q[HG_JOINT_MAXNQ], v[HG_JOINT_MAXNV], load[HG_JOINT_MAXNV];
  if (col->type == HG_JOINT_FIXED) {
    double F[6];
    if (fixed_wrench(s, col, F)) put_empty(f, 6);
    else put_padded(f, F, 6, 6);
    return;
  }
  if (!col->nv) return;
  if (scene_joint(s, col, &jv, q, v, load) < 1) {
    for (int k = 0; k < col->nv; k++) loads[k] = NAN;
    put_empty(f, 1 + col->nq + 2 * col->nv);
    return;
  }
  fprintf(f, ",%s", mode_word(jv.mode));
  put_padded(f, q, col->nq, col->nq);
  put_padded(f, v, col->nv, col->nv);
  put_padded(f, load, col->nv, col->nv);
  memcpy(loads, load, (size_t)col->nv * sizeof(double));
}

/* joints.csv: every joint of the current model, as it is now */
static void row_joints_file(FILE *f, hg_sim *s) {
  const hg_model *m = hg_sim_model(s);
  for (int i = 1; i < m->nbody; i++) {
    hg_sim_joint_view jv;
    hg_sim_joint(s, i, &jv);
    fprintf(f, "%.17g", hg_sim_time(s));
    hg_csv_field(f, 1, "%s", jv.name);
    fprintf(f, ",%s", hg_joint_type_name(jv.type));
    hg_csv_field(f, 1, "%s", m->body_name[m->parent[i]]);
    hg_csv_field(f, 1, "%s", m->body_name[i]);
    fprintf(f, ",%s,%d,%d", mode_word(jv.mode), jv.nq, jv.nv);
    put_padded(f, jv.q, jv.nq, HG_JOINT_MAXNQ);
    put_padded(f, jv.v, jv.nv, HG_JOINT_MAXNV);
    for (int k = 0; k < HG_JOINT_MAXNV; k++) {
      if (k < jv.nv) put(f, joint_load(&jv, k));
      else fputc(',', f);
    }
    fputc('\n', f);
  }
}

/* x (|v| or |load|) beyond a joint's limit at time t into the records */
static int limit_exceeded(hg_outputs *o, const char *joint, int effort, double limit, double x,
                          double t) {
  hg_limit_record *r = NULL;
  for (int k = 0; k < o->nlimit && !r; k++)
    if (o->limit[k].effort == effort && !strcmp(o->limit[k].joint, joint)) r = &o->limit[k];
  if (!r) {
    if (hg_grow((void **)&o->limit, o->nlimit, &o->caplimit, 8, sizeof *o->limit)) return -1;
    r = &o->limit[o->nlimit++];
    *r = (hg_limit_record){.joint = hg_strdup(joint), .effort = effort, .limit = limit};
    if (!r->joint) return o->nlimit--, -1;
  }
  r->rows++;
  if (x > r->worst) r->worst = x, r->t_worst = t;
  return 0;
}

/* the effort and velocity limits of every joint of the current model at this row: a held joint's
 * load (what its lock or actuator adds) against the effort limit, every joint's rates against
 * the velocity limit (the largest entry of each) */
static int row_limits(hg_outputs *o, hg_sim *s) {
  const hg_model *m = hg_sim_model(s);
  double t = hg_sim_time(s);
  for (int i = 1; i < m->nbody; i++) {
    const hg_joint_limits *L = &m->limits[i];
    if (!L->has_effort && !L->has_velocity) continue;
    hg_sim_joint_view jv;
    hg_sim_joint(s, i, &jv);
    double load = 0, rate = 0;
    for (int k = 0; k < jv.nv; k++) {
      rate = fmax(rate, fabs(jv.v[k]));
      if (jv.mode != HG_MODE_FREE) load = fmax(load, fabs(jv.load[k]));
    }
    if (L->has_velocity && rate > L->velocity && limit_exceeded(o, jv.name, 0, L->velocity, rate, t))
      return -1;
    if (L->has_effort && load > L->effort && limit_exceeded(o, jv.name, 1, L->effort, load, t))
      return -1;
  }
  return 0;
}

/* a pair's clearance x at time t into its record over the run */
static void clearance_track(hg_pair_clearance *c, double x, double t) {
  if (!isfinite(x)) return;
  if (c->rows++ == 0 || x < c->min) c->min = x, c->t_min = t;
  if (x > 0 && !c->apart) c->apart = 1, c->t_apart = t, c->min_apart = x, c->t_min_apart = t;
  if (!c->apart) return;
  if (x < c->min_apart) c->min_apart = x, c->t_min_apart = t;
  if (x <= 0 && c->recontacts++ == 0) c->t_recontact = t;
}

/* separation and relative speed of the body origins of each pair, and the clearance of their
 * collision geometry with its witness points (and its minimum over the run) */
static void row_pairs(hg_outputs *o, FILE *f, hg_sim *s, double *pr) {
  for (int p = 0; p < hg_sim_npair(s); p++) {
    hg_sim_pair_view pv;
    hg_sim_pair(s, p, &pv);
    put(f, pv.distance);
    put(f, pv.speed);
    put(f, pv.clearance);
    for (int k = 0; k < 3; k++) put(f, pv.ca[k]);
    for (int k = 0; k < 3; k++) put(f, pv.cb[k]);
    pr[1 + 3 * p] = pv.distance;
    pr[2 + 3 * p] = pv.speed;
    pr[3 + 3 * p] = pv.clearance;
    clearance_track(&o->clear[p], pv.clearance, hg_sim_time(s));
  }
}

/* the invariants at the end of the row, and their series */
static int row_invariants(hg_outputs *o, hg_sim *s) {
  FILE *f = o->traj;
  hg_sim_budget bu;
  double h[6], t = hg_sim_time(s);
  hg_sim_get_budget(s, &bu);
  double ke = bu.kinetic, pe = bu.potential, pel = bu.element;
  double b = ke + pe + pel + bu.e_lock - bu.work - bu.work_event;
  double e[5] = {t, ke, pe + pel, ke + pe + pel, b - bu.initial};
  double x[7] = {ke, pe, pel, bu.e_lock, bu.work, bu.work_event, b};
  for (int k = 0; k < 7; k++) put(f, x[k]);
  hg_sim_momentum(s, h);
  for (int k = 0; k < 6; k++) put(f, h[k]);
  fputc('\n', f);
  double mo[7] = {t, h[0], h[1], h[2], h[3], h[4], h[5]};
  return hg_series_push(&o->energy, e) || hg_series_push(&o->momentum, mo);
}

/* The pair row pr (time first) for the zoom panels: kept as it is while an event's window is
 * open, and in recent for the window before the next event. 0, or -1 out of memory. */
static int zoom_row(hg_outputs *o, const double *pr) {
  hg_series *r = &o->recent;
  if (!o->zoom.width) return 0;
  if (pr[0] <= o->zoom_until && hg_series_push(&o->zoom, pr)) return -1;
  /* recent: the rows of the last zoom_w seconds (older ones dropped once they are half) */
  int old = 0;
  while (old < r->n && hg_series_row(r, old)[0] < pr[0] - o->zoom_w) old++;
  if (old > 0 && 2 * old >= r->n) {
    size_t keep = (size_t)(r->n - old) * (size_t)r->width;
    memmove(r->x, hg_series_row(r, old), keep * sizeof(double));
    r->n -= old;
  }
  return hg_series_push(r, pr);
}

/* an event at te opens a zoom window [te - zoom_w, te + zoom_w]: the recent rows in it are kept
 * (at most HG_OUT_MAXEVENTS windows, as many as the plots mark). 0, or -1 out of memory. */
static int zoom_event(hg_outputs *o, double te) {
  if (!o->zoom.width || o->nzoom >= HG_OUT_MAXEVENTS) return 0;
  o->nzoom++;
  double last = o->zoom.n ? hg_series_row(&o->zoom, o->zoom.n - 1)[0] : -INFINITY;
  for (int r = 0; r < o->recent.n; r++) {
    const double *row = hg_series_row(&o->recent, r);
    if (row[0] > last && row[0] >= te - o->zoom_w && hg_series_push(&o->zoom, row)) return -1;
  }
  o->zoom_until = fmax(o->zoom_until, te + o->zoom_w);
  return 0;
}

static const char *on_row(void *user, hg_sim *s) {
  hg_outputs *o = user;
  double *loads = o->row_load, *pr = o->row_pair, t = hg_sim_time(s);
  fprintf(o->traj, "%.17g", t);
  loads[0] = pr[0] = t;
  for (int c = 0; c < o->ncol; c++) row_body(o->traj, s, &o->col[c]);
  for (int c = 0, at = 1; c < o->ncol; at += o->col[c].nv, c++) {
    row_joint(o->traj, s, &o->col[c], loads + at);
    for (int k = 0; k < o->col[c].nv; k++)
      if (loads[at + k] != 0 && !isnan(loads[at + k])) o->load_used[at - 1 + k] = 1;
  }
  int bad = hg_out_loops_row(o, s, o->traj);
  row_pairs(o, o->traj, s, pr);
  bad = row_limits(o, s) || bad;
  row_joints_file(o->joints, s);
  int rc = bad || row_invariants(o, s) || hg_series_push(&o->pair, pr) || zoom_row(o, pr) ||
           hg_series_push(&o->load, loads);
  o->rows++;
  if (rc) return snprintf(o->msg, sizeof o->msg, "out of memory"), o->msg;
  if (hg_out_check(o, &o->file[0]) || hg_out_check(o, &o->file[1]) || hg_out_control_row(o, s))
    return o->msg;
  return NULL;
}

/* ---- events ---- */

/* a CSV field in double quotes (a command's name holds commas and braces) */
static void put_quoted(FILE *f, const char *text) {
  fputc('"', f);
  for (const char *p = text; *p; p++) {
    if (*p == '"') fputc('"', f);
    fputc(*p, f);
  }
  fputc('"', f);
}

static const char *on_event(void *user, hg_sim *s, const hg_sim_event *ev) {
  hg_outputs *o = user;
  FILE *f = o->events;
  (void)s;
  fprintf(f, "%.17g,", ev->t);
  put_quoted(f, ev->name);
  fputc(',', f);
  put_quoted(f, ev->details);
  /* what was refused or skipped, on the console too (summary.txt counts the refusals) */
  if (o->opt.notices && (strstr(ev->details, "REFUSED") || strstr(ev->details, "skipped")))
    fprintf(o->opt.notices, "hinge: t = %.9g s: %s: %s\n", ev->t, ev->name, ev->details);
  for (int k = 0; k < 6; k++) put(f, ev->h_before[k]);
  put(f, ev->e_before);
  for (int k = 0; k < 6; k++) put(f, ev->h_after[k]);
  put(f, ev->e_after);
  put(f, ev->e_lock);
  fprintf(f, ",%.3g,%d\n", hg_sim_event_momentum_change(ev), ev->conserves);
  fflush(f);
  if (zoom_event(o, ev->t)) return snprintf(o->msg, sizeof o->msg, "out of memory"), o->msg;
  return hg_out_check(o, &o->file[2]) ? o->msg : NULL;
}

