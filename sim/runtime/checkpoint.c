/* checkpoint.c: the full state of a run as a text file (numbers with %.17g, so they read back
 * exactly), and resuming from one.
 *
 * One record per line, words separated by spaces; names are written with %XX escapes for spaces,
 * control characters and '%':
 *   hinge-checkpoint 2
 *   scene PATH
 *   input HASH PATH               (each file the scene was read from, scene.h's input: the
 *                                  64-bit FNV-1a of its bytes in hex; version 2 on)
 *   t_start T0 / t T / method NAME / rtol R / checkpoint_every DT / k_out K / k_ck K
 *   budget E_LOCK W_EVENT B0 B_SCALE MAX_DRIFT W [MAX_ABS]
 *   momentum H_REF(6) MAX_DRIFT [SCALE_L SCALE_P WORST_L WORST_P FROM_L TO_L FROM_P TO_P]
 *   topo detach BODY | topo remove BODY | topo add BODY | topo attach CHILD PARENT JOINT R(9) p(3)
 *   fired KIND INDEX T            (KIND 0: scene event, 1: capture)
 *   force NAME ON
 *   mode JOINT MODE SRC IDX ACT T0 NQ q0... NV v0...
 *   q NQ q... / v NV v...
 *   end */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "outfile.h"
#include "readfile.h"
#include "controller_lib.h"
#include "sim_internal.h"

#define CK_MAGIC "hinge-checkpoint"
#define CK_VERSION 2 /* 2: the inputs' hashes; version 1 (without them) is still read */

/* ---- writing ---- */

/* a name with %XX escapes */
static void put_name(FILE *f, const char *s) {
  fputc(' ', f);
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (*p <= ' ' || *p == '%' || *p >= 127) fprintf(f, "%%%02X", *p);
    else fputc(*p, f);
  }
}

static void put_numbers(FILE *f, const double *x, int n) {
  for (int k = 0; k < n; k++) fprintf(f, " %.17g", x[k]);
}

static void write_history(FILE *f, const hg_sim *s) {
  static const char *const kind[] = {[HG_ACTION_DETACH] = "detach", [HG_ACTION_ATTACH] = "attach",
                                     [HG_ACTION_REMOVE] = "remove", [HG_ACTION_ADD] = "add"};
  for (int k = 0; k < s->tl.ntopo; k++) {
    const hg_topo_op *op = &s->tl.topo[k];
    fprintf(f, "topo %s", kind[op->type]);
    put_name(f, op->body);
    if (op->type == HG_ACTION_ATTACH) {
      put_name(f, op->parent);
      put_name(f, op->joint);
      put_numbers(f, op->T.R, 9);
      put_numbers(f, op->T.p, 3);
    }
    fputc('\n', f);
  }
  for (int k = 0; k < s->tl.nfired; k++)
    fprintf(f, "fired %d %d %.17g\n", s->tl.fired[k].kind, s->tl.fired[k].index, s->tl.fired[k].t);
}

static void write_modes(FILE *f, const hg_sim *s) {
  const hg_model *m = s->m;
  if (s->pull.forces) {
    const hg_force_spec *p = &s->pull.spec;
    fprintf(f, "pull");
    put_name(f, s->pull.marker[0].body);
    put_numbers(f, s->pull.marker[0].pose.p, 3);
    put_numbers(f, s->pull.marker[1].pose.p, 3);
    put_numbers(f, &p->stiffness, 1);
    put_numbers(f, &p->damping, 1);
    put_name(f, hg_sim_pull_frame(s));
    fputc('\n', f);
  }
  /* the loops: closed or not; an attach-made one with its ports and held pose */
  for (int k = 0; k < s->loops.n; k++) {
    const hg_rt_loop *lp = &s->loops.loop[k];
    fprintf(f, lp->spec ? "loop" : "dockloop");
    put_name(f, lp->name);
    fprintf(f, " %d", lp->active);
    if (!lp->spec) {
      put_name(f, lp->marker[0]);
      put_name(f, lp->marker[1]);
      put_numbers(f, lp->hold.R, 9);
      put_numbers(f, lp->hold.p, 3);
    }
    fputc('\n', f);
  }
  for (int k = 0; k < hg_forces_count(s->forces); k++) {
    fprintf(f, "force");
    put_name(f, s->scene->force[k].name);
    fprintf(f, " %d\n", hg_forces_enabled(s->forces, k));
  }
  for (int i = 1; i < m->nbody; i++) {
    const hg_recipe *r = &s->state.recipe[i];
    if (s->d->mode[i] == HG_MODE_FREE) continue;
    fprintf(f, "mode");
    put_name(f, m->jnt_name[i]);
    fprintf(f, " %d %d %d %d %.17g %d", s->d->mode[i], r->src, r->idx, r->act, r->t0,
            m->jnt_nq[i]);
    put_numbers(f, r->q0, m->jnt_nq[i]);
    fprintf(f, " %d", m->jnt_nv[i]);
    put_numbers(f, r->v0, m->jnt_nv[i]);
    fputc('\n', f);
  }
}

/* control in the loop: the actuators' quadratures, what each actuator holds, each sensor's
 * latest sample and noise state, each controller's schedule, signals, outputs and own state
 * (through its save, when it has one) */
static void write_control(FILE *f, const hg_sim *s) {
  const hg_rt_control *c = &s->ctl;
  if (!c->any) return;
  fprintf(f, "noise_seed %llu\n", (unsigned long long)c->seed);
  fprintf(f, "actq %d", c->nquad);
  put_numbers(f, c->quad + 1, c->nquad);
  fputc('\n', f);
  for (int k = 0; k < c->nact; k++) {
    const hg_rt_actuator *a = &c->act[k];
    const double x[] = {a->cmd[0],     a->cmd[1],      a->demand,       a->drive.v0,
                        a->drive.t0,   a->drive.target, a->drive.rate,  a->setpoint,
                        a->integral,   (double)a->k_servo, a->open,     a->locked_out,
                        a->t_open,     a->t_close,     a->level,        (double)a->firings,
                        a->on_before,  a->impulse_before};
    fprintf(f, "act");
    put_name(f, a->spec->name);
    put_numbers(f, x, (int)(sizeof x / sizeof x[0]));
    fputc('\n', f);
  }
  for (int k = 0; k < c->nsensor; k++) {
    const hg_rt_sensor *se = &c->sensor[k];
    fprintf(f, "sensor");
    put_name(f, se->spec->name);
    fprintf(f, " %ld %d %.17g %d", se->k, se->valid, se->t, se->n);
    put_numbers(f, se->value, se->n);
    fprintf(f, " %d", HG_SENSOR_STATE);
    put_numbers(f, se->model_state, HG_SENSOR_STATE);
    fputc('\n', f);
  }
  for (int k = 0; k < c->nctl; k++) {
    const hg_rt_controller *r = &c->ctl[k];
    fprintf(f, "ctl");
    put_name(f, r->spec->name);
    fprintf(f, " %ld %d %d", r->k, r->enabled, r->nin);
    put_numbers(f, r->signal, r->nin);
    fprintf(f, " %d", r->nout);
    put_numbers(f, r->out, r->nout);
    double buf[256];
    char err[64];
    int n = hg_ctl_save(r->ctl, buf, 256, err, sizeof err);
    if (n < 0 || n > 256) n = 0; /* (a state too big for a checkpoint line: not kept) */
    fprintf(f, " %d", n);
    put_numbers(f, buf, n);
    fputc('\n', f);
  }
}

/* the checkpoint into an open stream; 0 or -1 */
static int ck_fwrite(const hg_sim *s, FILE *f) {
  fprintf(f, "%s %d\nscene", CK_MAGIC, CK_VERSION);
  put_name(f, s->scene->path ? s->scene->path : "?");
  for (int k = 0; k < s->scene->ninput; k++) {
    fprintf(f, "\ninput %016llx", (unsigned long long)s->scene->input[k].hash);
    put_name(f, s->scene->input[k].path);
  }
  fprintf(f, "\nt_start %.17g\nt %.17g\nmethod %s\nrtol %.17g\ncheckpoint_every %.17g\n",
          s->t_start, s->state.t, hg_integ_method_name(s->integ.method), s->integ.rtol,
          s->opt.checkpoint_every);
  fprintf(f, "k_out %ld\nk_ck %ld\n", s->tl.k_out, s->tl.k_ck);
  fprintf(f, "budget %.17g %.17g %.17g %.17g %.17g %.17g %.17g\n", s->budget.e_lock,
          s->budget.w_event, s->budget.b0, s->budget.b_scale, s->budget.max_drift, s->state.quad,
          s->budget.max_abs);
  fprintf(f, "momentum");
  put_numbers(f, s->budget.h_ref, 6);
  const hg_sim_momentum_track *mt = &s->budget.mt;
  fprintf(f, " %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g\n", mt->drift, mt->scale[0],
          mt->scale[1], mt->worst_abs[0], mt->worst_abs[1], mt->worst_from[0], mt->worst_to[0],
          mt->worst_from[1], mt->worst_to[1]);
  write_history(f, s);
  write_modes(f, s);
  write_control(f, s);
  fprintf(f, "q %d", s->m->nq);
  put_numbers(f, s->state.q, s->m->nq);
  fprintf(f, "\nv %d", s->m->nv);
  put_numbers(f, s->state.v, s->m->nv);
  fprintf(f, "\nend\n");
  return ferror(f) ? -1 : 0;
}

/* Both writers go through outfile.h's replacement: a temporary file beside path, every write
 * checked, synced and renamed over path when whole, so that a full disk or a kill mid-write
 * leaves the previous file under that name (never a cut one that --resume would read), and a
 * link planted under the name is replaced, not written through. */
int hg_ck_write(const hg_sim *s, const char *path, char *msg, size_t len) {
  hg_outfile o;
  if (hg_outfile_replace(&o, path) == 0) {
    ck_fwrite(s, o.f);
    if (hg_outfile_close(&o) == 0) return 0;
  }
  if (msg) hg_outfile_message(&o, msg, len);
  return -1;
}

int hg_ck_write_text(const char *text, size_t n, const char *path, char *msg, size_t len) {
  hg_outfile o;
  if (hg_outfile_replace(&o, path) == 0) {
    fwrite(text, 1, n, o.f);
    if (hg_outfile_close(&o) == 0) return 0;
  }
  if (msg) hg_outfile_message(&o, msg, len);
  return -1;
}

/* ---- reading ---- */

typedef struct ck_reader {
  FILE *f;
  const char *path;
  char *line;
  size_t cap;
  long lineno;
  char **word;        /* the words of the line (pointers into line) */
  int nword, capword;
  int got_t, got_q, got_v;  /* the records a resumable state needs */
  int ninput;               /* input records read so far */
  hg_error *err;
} ck_reader;

static int ck_error(ck_reader *r, const char *fmt, const char *arg) {
  int n = snprintf(r->err->msg, sizeof r->err->msg, "%.200s:%ld: ", r->path, r->lineno);
  if (n > 0 && (size_t)n < sizeof r->err->msg)
    snprintf(r->err->msg + n, sizeof r->err->msg - (size_t)n, fmt, arg);
  return -1;
}

/* decodes %XX escapes in place */
static void decode(char *s) {
  char *o = s;
  for (; *s; s++) {
    if (s[0] == '%' && isxdigit((unsigned char)s[1]) && isxdigit((unsigned char)s[2])) {
      char hex[3] = {s[1], s[2], 0};
      *o++ = (char)strtol(hex, NULL, 16);
      s += 2;
    } else {
      *o++ = *s;
    }
  }
  *o = 0;
}

/* the next line split into words; 0, or -1 at the end of the file */
static int next_line(ck_reader *r) {
  /* bounded (readfile.h): the file was at most HG_FILE_TEXT_MAX bytes when it was opened */
  if (hg_file_getline(&r->line, &r->cap, r->f, HG_FILE_TEXT_MAX) < 0) return -1;
  r->lineno++;
  r->nword = 0;
  for (char *p = strtok(r->line, " \t\r\n"); p; p = strtok(NULL, " \t\r\n")) {
    if (hg_grow((void **)&r->word, r->nword, &r->capword, 32, sizeof *r->word)) return -1;
    decode(p);
    r->word[r->nword++] = p;
  }
  return 0;
}

static int num(ck_reader *r, int k, double *x) {
  char *end;
  if (k >= r->nword) return ck_error(r, "%s: too few numbers", r->word[0]);
  *x = strtod(r->word[k], &end);
  if (*end || end == r->word[k]) return ck_error(r, "'%s' is not a number", r->word[k]);
  if (!isfinite(*x)) return ck_error(r, "'%s' is not a finite number", r->word[k]);
  return 0;
}

static int integer(ck_reader *r, int k, long *x) {
  double d;
  if (num(r, k, &d)) return -1;
  if (d != floor(d)) return ck_error(r, "'%s' is not an integer", r->word[k]);
  /* 2^53: every integer up to it is exact, and the cast to long is defined */
  if (fabs(d) > 9007199254740992.0) return ck_error(r, "'%s' is out of range", r->word[k]);
  *x = (long)d;
  return 0;
}

/* "name N x1 ... xN" starting at word k into x (at most max); the count through *n */
static int vector(ck_reader *r, int k, double *x, int max, int *n) {
  long c;
  if (integer(r, k, &c)) return -1;
  if (c < 0 || c > max || k + 1 + c > r->nword)
    return ck_error(r, "%s: bad vector length", r->word[0]);
  for (int j = 0; j < c; j++)
    if (num(r, k + 1 + j, &x[j])) return -1;
  *n = (int)c;
  return 0;
}

/* ---- applying ---- */

static int ck_options(hg_sim *s, ck_reader *r) {
  const char *w = r->word[0];
  double x;
  if (strcmp(w, "method") == 0) {
    int m = r->nword > 1 ? hg_integ_method_from_name(r->word[1]) : -1;
    if (m < 0) return ck_error(r, "unknown method '%s'", r->nword > 1 ? r->word[1] : "");
    s->integ.method = (hg_integ_method)m;
    return 0;
  }
  if (strcmp(w, "k_out") == 0 || strcmp(w, "k_ck") == 0) {
    long k;
    if (integer(r, 1, &k)) return -1;
    if (k < 0) return ck_error(r, "%s must be >= 0", w);
    *(w[2] == 'o' ? &s->tl.k_out : &s->tl.k_ck) = k;
    return 0;
  }
  if (num(r, 1, &x)) return -1;
  if (strcmp(w, "t_start") == 0 && x != s->t_start)
    return ck_error(r, "%s", "the checkpoint starts at another time than the scene");
  if (strcmp(w, "t") == 0) {
    if (!(x >= s->t_start && x <= s->t_end))
      return ck_error(r, "t %s is outside the scene's run (from its start to its end)", r->word[1]);
    s->state.t = x;
  } else if (strcmp(w, "rtol") == 0) {
    if (!(x > 0 && x < 1)) return ck_error(r, "rtol %s must be in (0, 1)", r->word[1]);
    s->integ.rtol = x;
  } else if (strcmp(w, "checkpoint_every") == 0) {
    if (hg_sim_check_interval(s, x, 0))
      return ck_error(r, "checkpoint_every %s: negative, or more than 1e6 checkpoints over the "
                      "run", r->word[1]);
    s->opt.checkpoint_every = x;
  }
  return 0;
}

/* momentum H_REF(6) DRIFT, then (since the drift is measured against the run's scale) SCALE(2)
 * WORST(2) and each worst's stretch FROM TO (2 x 2); a record without them (an older checkpoint)
 * keeps its drift as a floor */
static int ck_momentum(hg_sim *s, ck_reader *r) {
  hg_sim_momentum_track *mt = &s->budget.mt;
  double *x[] = {&mt->scale[0],      &mt->scale[1],    &mt->worst_abs[0], &mt->worst_abs[1],
                 &mt->worst_from[0], &mt->worst_to[0], &mt->worst_from[1], &mt->worst_to[1]};
  double drift;
  for (int k = 0; k < 7; k++)
    if (num(r, 1 + k, k < 6 ? &s->budget.h_ref[k] : &drift)) return -1;
  if (r->nword <= 8) return mt->drift_before = mt->drift = drift, 0;
  for (int k = 0; k < 8; k++)
    if (num(r, 8 + k, x[k])) return -1;
  mt->drift = drift;
  return 0;
}

/* budget E_LOCK W_EVENT B0 B_SCALE MAX_DRIFT W [MAX_ABS]: a record without MAX_ABS (written
 * before the drift was measured against the run's scale) gives it back as MAX_DRIFT B_SCALE */
static int ck_budget(hg_sim *s, ck_reader *r) {
  double *x[] = {&s->budget.e_lock,    &s->budget.w_event,    &s->budget.b0,
                 &s->budget.b_scale,   &s->budget.max_drift,  &s->state.quad,
                 &s->budget.max_abs};
  for (int k = 0; k < 6; k++)
    if (num(r, 1 + k, x[k])) return -1;
  if (r->nword <= 7) s->budget.max_abs = s->budget.max_drift * s->budget.b_scale;
  else if (num(r, 7, x[6])) return -1;
  return 0;
}

/* a topology op replayed on the builder (no state) */
static int ck_topo(hg_sim *s, ck_reader *r) {
  hg_topo_op op;
  memset(&op, 0, sizeof op);
  if (r->nword < 3) return ck_error(r, "%s", "topo: too few words");
  op.body = r->word[2];
  if (strcmp(r->word[1], "detach") == 0) op.type = HG_ACTION_DETACH;
  else if (strcmp(r->word[1], "remove") == 0) op.type = HG_ACTION_REMOVE;
  else if (strcmp(r->word[1], "add") == 0) op.type = HG_ACTION_ADD;
  else if (strcmp(r->word[1], "attach") == 0) op.type = HG_ACTION_ATTACH;
  else return ck_error(r, "unknown topology change '%s'", r->word[1]);
  if (op.type == HG_ACTION_ATTACH) {
    if (r->nword != 17) return ck_error(r, "%s", "topo attach: expected 3 names and 12 numbers");
    op.parent = r->word[3];
    op.joint = r->word[4];
    for (int k = 0; k < 12; k++)
      if (num(r, 5 + k, k < 9 ? &op.T.R[k] : &op.T.p[k - 9])) return -1;
  }
  if (hg_sim_topology(s, &op, 0)) return ck_error(r, "%.300s", s->err);
  return 0;
}

static int ck_fired(hg_sim *s, ck_reader *r) {
  long kind, index;
  double t;
  if (integer(r, 1, &kind) || integer(r, 2, &index) || num(r, 3, &t)) return -1;
  int n = kind == HG_FIRED_EVENT     ? s->scene->nevent
          : kind == HG_FIRED_CAPTURE ? s->scene->ncapture
                                     : s->tl.ncmd;
  if (kind == HG_FIRED_COMMAND && (index < 0 || index >= n))
    return ck_error(r, "%s", "fired: a command of the run that wrote the checkpoint is missing; "
                             "give the same command file (--commands) to resume it");
  if (kind < HG_FIRED_EVENT || kind > HG_FIRED_COMMAND || index < 0 || index >= n)
    return ck_error(r, "%s", "fired: no such event in the scene");
  return hg_sim_push_fired(s, (int)kind, (int)index, t) ? ck_error(r, "%s", "out of memory") : 0;
}

static int ck_force(hg_sim *s, ck_reader *r) {
  long on;
  if (r->nword < 3 || integer(r, 2, &on))
    return ck_error(r, "%s", "force: expected a name and 0 or 1");
  int k = hg_forces_find(s->forces, r->word[1]);
  if (k < 0) return ck_error(r, "unknown force element '%s'", r->word[1]);
  hg_forces_set_enabled(s->forces, k, on != 0);
  return 0;
}

static int ck_mode(hg_sim *s, ck_reader *r) {
  long mode, src, idx, act;
  int nq, nv;
  hg_recipe rec;
  memset(&rec, 0, sizeof rec);
  if (r->nword < 8 || integer(r, 2, &mode) || integer(r, 3, &src) || integer(r, 4, &idx) ||
      integer(r, 5, &act) || num(r, 6, &rec.t0) || vector(r, 7, rec.q0, HG_JOINT_MAXNQ, &nq) ||
      vector(r, 8 + nq, rec.v0, HG_JOINT_MAXNV, &nv))
    return ck_error(r, "%s", "mode: expected JOINT MODE SRC IDX ACT T0 NQ q... NV v...");
  int i = hg_model_joint(s->m, r->word[1]);
  if (i < 1 || nq != s->m->jnt_nq[i] || nv != s->m->jnt_nv[i] || mode < 0 || mode > 2)
    return ck_error(r, "joint '%s' does not fit the model", r->word[1]);
  rec.src = (int)src;
  rec.idx = (int)idx;
  rec.act = (int)act;
  s->state.recipe[i] = rec;
  s->d->mode[i] = (uint8_t)mode;
  return hg_sim_build_profile(s, i) ? ck_error(r, "%.300s", s->err) : 0;
}

/* a loop: NAME ACTIVE, or (attach-made) NAME ACTIVE MARKER_A MARKER_B R(9) p(3) */
static int ck_loop(hg_sim *s, ck_reader *r, int dock) {
  long on;
  if (r->nword != (dock ? 17 : 3) || integer(r, 2, &on))
    return ck_error(r, "%s", dock ? "dockloop: expected NAME 0|1 MARKER MARKER and 12 numbers"
                                  : "loop: expected NAME and 0 or 1");
  if (!dock) {
    int k = hg_sim_loop_find(s, r->word[1]);
    if (k < 0 || !s->loops.loop[k].spec) return ck_error(r, "unknown loop '%s'", r->word[1]);
    return hg_sim_loop_set(s, k, on != 0);
  }
  hg_se3 hold;
  for (int k = 0; k < 12; k++)
    if (num(r, 5 + k, k < 9 ? &hold.R[k] : &hold.p[k - 9])) return -1;
  if (hg_sim_loop_restore(s, r->word[1], r->word[3], r->word[4], &hold, on != 0) < 0)
    return ck_error(r, "%.300s", s->err);
  return 0;
}

/* the pull of a perturb action: BODY point target stiffness damping [FRAME] (checkpoints before
 * targets could be fixed in a body have no FRAME: the world) */
static int ck_pull(hg_sim *s, ck_reader *r) {
  hg_action a;
  memset(&a, 0, sizeof a);
  if (r->nword != 10 && r->nword != 11)
    return ck_error(r, "%s", "pull: expected BODY, 3 + 3 numbers, k, c and the target's frame");
  a.type = HG_ACTION_PERTURB;
  a.body = r->word[1];
  for (int k = 0; k < 3; k++)
    if (num(r, 2 + k, &a.point[k]) || num(r, 5 + k, &a.target[k])) return -1;
  if (num(r, 8, &a.stiffness) || num(r, 9, &a.damping)) return -1;
  if (r->nword == 11 && strcmp(r->word[10], "world") != 0) a.frame = r->word[10];
  return hg_sim_pull_start(s, &a) ? ck_error(r, "%.300s", s->err) : 0;
}

/* any number, inf and nan included (control records hold times that never come: inf) */
static int anynum(ck_reader *r, int k, double *x) {
  char *end;
  if (k >= r->nword) return ck_error(r, "%s: too few numbers", r->word[0]);
  *x = strtod(r->word[k], &end);
  if (*end || end == r->word[k]) return ck_error(r, "'%s' is not a number", r->word[k]);
  return 0;
}

/* "N x1 ... xN" at word *k into x (exactly want numbers unless want < 0: at most max) */
static int anyvec(ck_reader *r, int *k, double *x, int want, int max, int *n) {
  long c;
  if (integer(r, *k, &c)) return -1;
  if ((want >= 0 && c != want) || c < 0 || c > max || *k + 1 + c > r->nword)
    return ck_error(r, "%s: a vector's length does not fit the scene", r->word[0]);
  for (int j = 0; j < c; j++)
    if (anynum(r, *k + 1 + j, &x[j])) return -1;
  *k += 1 + (int)c;
  if (n) *n = (int)c;
  return 0;
}

/* the index of the actuator, sensor or controller of that name in the scene (-1: none) */
static int find_name(const hg_scene *sc, int kind, const char *name) {
  int n = kind == 0 ? sc->nactuator : kind == 1 ? sc->nsensor : sc->ncontroller;
  for (int k = 0; k < n; k++) {
    const char *nm = kind == 0   ? sc->actuator[k].name
                     : kind == 1 ? sc->sensor[k].name
                                 : sc->controller[k].name;
    if (strcmp(nm, name) == 0) return k;
  }
  return -1;
}

/* actq N x...; act NAME x(18); sensor NAME k valid t N x... M state...; ctl NAME k enabled N
 * signal... M out... L saved... */
static int ck_control(hg_sim *s, ck_reader *r) {
  hg_rt_control *c = &s->ctl;
  const char *w = r->word[0];
  int at = 1;
  if (strcmp(w, "actq") == 0) return anyvec(r, &at, c->quad + 1, c->nquad, c->nquad, NULL);
  if (strcmp(w, "noise_seed") == 0) {
    char *end;
    if (r->nword != 2) return ck_error(r, "%s", "noise_seed: expected one number");
    c->seed = strtoull(r->word[1], &end, 10);
    return *end ? ck_error(r, "'%s' is not a seed", r->word[1]) : 0;
  }
  if (r->nword < 2) return ck_error(r, "%s: expected a name", w);
  if (strcmp(w, "act") == 0) {
    int k = find_name(s->scene, 0, r->word[1]);
    double x[18];
    if (k < 0) return ck_error(r, "unknown actuator '%s'", r->word[1]);
    if (r->nword != 20) return ck_error(r, "%s", "act: expected NAME and 18 numbers");
    for (int j = 0; j < 18; j++)
      if (anynum(r, 2 + j, &x[j])) return -1;
    hg_rt_actuator *a = &c->act[k];
    a->cmd[0] = x[0], a->cmd[1] = x[1], a->demand = x[2];
    a->drive = (hg_ramp){x[3], x[4], x[5], x[6]};
    a->setpoint = x[7], a->integral = x[8], a->k_servo = (long)x[9];
    a->open = x[10] != 0, a->locked_out = x[11] != 0, a->t_open = x[12], a->t_close = x[13];
    a->level = x[14], a->firings = (long)x[15], a->on_before = x[16], a->impulse_before = x[17];
    return 0;
  }
  if (strcmp(w, "sensor") == 0) {
    int k = find_name(s->scene, 1, r->word[1]);
    long n, valid;
    if (k < 0) return ck_error(r, "unknown sensor '%s'", r->word[1]);
    hg_rt_sensor *se = &c->sensor[k];
    at = 5;
    if (integer(r, 2, &n) || integer(r, 3, &valid) || anynum(r, 4, &se->t) ||
        anyvec(r, &at, se->value, se->n, se->n, NULL) ||
        anyvec(r, &at, se->model_state, HG_SENSOR_STATE, HG_SENSOR_STATE, NULL))
      return -1;
    se->k = n, se->valid = (int)valid;
    return 0;
  }
  int k = find_name(s->scene, 2, r->word[1]);
  long n, on;
  if (k < 0) return ck_error(r, "unknown controller '%s'", r->word[1]);
  hg_rt_controller *q = &c->ctl[k];
  double saved[256];
  int nsaved;
  char err[256] = "";
  at = 4;
  if (integer(r, 2, &n) || integer(r, 3, &on) || anyvec(r, &at, q->signal, q->nin, q->nin, NULL) ||
      anyvec(r, &at, q->out, q->nout, q->nout, NULL) || anyvec(r, &at, saved, -1, 256, &nsaved))
    return -1;
  q->k = n, q->enabled = on != 0;
  if (nsaved && hg_ctl_load(q->ctl, saved, nsaved, err, sizeof err))
    return ck_error(r, "controller's state: %s", err);
  return 0;
}

static int ck_state(hg_sim *s, ck_reader *r, int is_q) {
  int n = is_q ? s->m->nq : s->m->nv, got;
  if (vector(r, 1, is_q ? s->state.q : s->state.v, n, &got) || got != n)
    return ck_error(r, "%s: the size does not fit the model", r->word[0]);
  return 0;
}

/* the file name of a path */
static const char *base_name(const char *path) {
  const char *b = strrchr(path, '/');
  return b ? b + 1 : path;
}

/* the checkpoint's scene must be this one (by file name) */
static int ck_scene(hg_sim *s, ck_reader *r) {
  const char *mine = s->scene->path ? base_name(s->scene->path) : "?";
  if (r->nword < 2 || strcmp(base_name(r->word[1]), mine) != 0)
    return ck_error(r, "the checkpoint is of scene '%s', not this one",
                    r->nword > 1 ? r->word[1] : "?");
  return 0;
}

/* Input k of the checkpoint: the same file as the scene's input k (its base name: the scene may
 * be read from another folder now), with the same hash. A file edited after the checkpoint was
 * written would mix two scenes in one run (a mass 1 before it and 3 after: an energy budget
 * that does not close). */
static int ck_input(hg_sim *s, ck_reader *r) {
  const hg_scene *sc = s->scene;
  int k = r->ninput++;
  char *end;
  if (r->nword != 3) return ck_error(r, "%s", "input: expected a hash and a path");
  unsigned long long was = strtoull(r->word[1], &end, 16);
  if (*end || end == r->word[1]) return ck_error(r, "input: '%s' is not a hash", r->word[1]);
  if (k >= sc->ninput || strcmp(base_name(sc->input[k].path), base_name(r->word[2])) != 0) {
    hg_error_set(r->err, "%.300s: the scene was read from other files than the checkpoint "
                         "(%.300s); rerun without --resume",
                 k < sc->ninput ? sc->input[k].path : sc->path, r->word[2]);
    return -1;
  }
  if (sc->input[k].hash != was) {
    hg_error_set(r->err, "%.400s: changed since the checkpoint was written (hash %016llx, now "
                         "%016llx); rerun without --resume",
                 sc->input[k].path, was, (unsigned long long)sc->input[k].hash);
    return -1;
  }
  return 0;
}

/* one record */
static int ck_record(hg_sim *s, ck_reader *r) {
  const char *w = r->word[0];
  if (strcmp(w, "scene") == 0) return ck_scene(s, r);
  if (strcmp(w, "input") == 0) return ck_input(s, r);
  if (strcmp(w, "budget") == 0) return ck_budget(s, r);
  if (strcmp(w, "momentum") == 0) return ck_momentum(s, r);
  if (strcmp(w, "fired") == 0) return ck_fired(s, r);
  if (strcmp(w, "force") == 0) return ck_force(s, r);
  if (strcmp(w, "mode") == 0) return ck_mode(s, r);
  if (strcmp(w, "pull") == 0) return ck_pull(s, r);
  if (strcmp(w, "loop") == 0 || strcmp(w, "dockloop") == 0) return ck_loop(s, r, w[0] == 'd');
  if (strcmp(w, "actq") == 0 || strcmp(w, "act") == 0 || strcmp(w, "sensor") == 0 ||
      strcmp(w, "ctl") == 0 || strcmp(w, "noise_seed") == 0)
    return ck_control(s, r);
  if (strcmp(w, "q") == 0 || strcmp(w, "v") == 0) {
    *(w[0] == 'q' ? &r->got_q : &r->got_v) = 1;
    return ck_state(s, r, w[0] == 'q');
  }
  if (strcmp(w, "t") == 0) r->got_t = 1;
  static const char *const opts[] = {"t_start", "t", "method", "rtol", "checkpoint_every",
                                     "k_out", "k_ck"};
  for (size_t k = 0; k < sizeof opts / sizeof opts[0]; k++)
    if (strcmp(w, opts[k]) == 0) return ck_options(s, r);
  return ck_error(r, "unknown record '%s'", w);
}

/* every joint free, no profiles (the checkpoint's modes follow) */
static void clear_modes(hg_sim *s) {
  for (int i = 1; i < s->m->nbody; i++) {
    s->d->mode[i] = HG_MODE_FREE;
    hg_profile_free(s->state.prof[i]);
    s->state.prof[i] = NULL;
  }
}

static int ck_read(hg_sim *s, ck_reader *r) {
  int version = 0;
  if (next_line(r) || r->nword != 2 || strcmp(r->word[0], CK_MAGIC) != 0 ||
      ((version = atoi(r->word[1])) != 1 && version != CK_VERSION))
    return ck_error(r, "%s", "not a hinge checkpoint (version 1 or 2)");
  clear_modes(s);
  while (!next_line(r)) {
    if (r->nword == 0) continue;
    /* version 2 names every input the scene has now (a file added since: another scene) */
    if (strcmp(r->word[0], "end") == 0 && version >= 2 && r->ninput != s->scene->ninput) {
      hg_error_set(r->err, "%.300s: the scene was read from other files than the checkpoint "
                           "(%d now, %d then); rerun without --resume",
                   s->scene->path, s->scene->ninput, r->ninput);
      return -1;
    }
    if (strcmp(r->word[0], "end") == 0)
      return r->got_t && r->got_q && r->got_v ? 0 : ck_error(r, "%s", "t, q or v is missing");
    /* topology changes come before the modes, which they would reset */
    if (strcmp(r->word[0], "topo") == 0 && ck_topo(s, r)) return -1;
    if (strcmp(r->word[0], "topo") == 0) {
      clear_modes(s);
      continue;
    }
    if (ck_record(s, r)) return -1;
  }
  return ck_error(r, "%s", "the file ends before 'end'");
}

int hg_ck_resume(hg_sim *s, const char *path, hg_error *err) {
  s->views.view_ok = 0; /* a new state: the views evaluate it afresh */
  ck_reader r;
  memset(&r, 0, sizeof r);
  r.path = path;
  r.err = err;
  /* a regular file of at most HG_FILE_TEXT_MAX bytes: not /dev/zero, a FIFO, a folder */
  r.f = hg_file_open(path, HG_FILE_TEXT_MAX, NULL, err);
  if (!r.f) return -1;
  int rc = ck_read(s, &r);
  free(r.line);
  free(r.word);
  fclose(r.f);
  return rc ? -1 : 0;
}

/* ---- the last good state ---- */

void hg_ck_keep_good(hg_sim *s) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  if (!f) return;
  int rc = ck_fwrite(s, f);
  if (fclose(f) || rc) {
    free(buf);
    return;
  }
  free(s->ck.good);
  s->ck.good = buf;
  s->ck.good_len = len;
  s->ck.good_t = s->state.t;
}

void hg_ck_free(hg_sim *s) {
  free(s->ck.good);
  s->ck.good = NULL;
}
