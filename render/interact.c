/* interact.c: selection, command line, freeze/thaw previews and the mouse pull (interact.h),
 * all through the runtime's command API. */
#include "interact.h"
#include "readfile.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void hg_interact_init(hg_interact *ia) {
  memset(ia, 0, sizeof *ia);
  ia->pull_sent_t = NAN;
  ia->ghost_dof = -1, ia->ghost_k = 2, ia->ghost_eps = 0.1;
  ia->slider = -1;
}

void hg_interact_free(hg_interact *ia) {
  free(ia->slider_delta);
  ia->slider_delta = NULL;
  free(ia->ghost_file);
  ia->ghost_file = NULL;
  ia->ghost_delta = NULL;
}

/* ---- selection ---- */

void hg_interact_select(hg_interact *ia, int name, int add) {
  if (name < 0) {
    ia->nsel = ia->sel_cursor = 0;
    return;
  }
  for (int k = 0; k < ia->nsel; k++)
    if (ia->sel[k] == name) { /* clicked again: shown; with add, deselected */
      if (add) {
        memmove(ia->sel + k, ia->sel + k + 1, (size_t)(ia->nsel - k - 1) * sizeof *ia->sel);
        ia->nsel--;
        ia->sel_cursor = ia->nsel ? ia->nsel - 1 : 0;
      } else {
        ia->sel[0] = name, ia->nsel = 1, ia->sel_cursor = 0;
      }
      return;
    }
  if (!add) ia->nsel = 0;
  if (ia->nsel < HG_SEL_MAX) ia->sel[ia->nsel++] = name;
  ia->sel_cursor = ia->nsel - 1;
}

/* the model index of the shown selected body, or -1 */
static int shown_body(const hg_interact *ia, hg_sim *sim, const hg_history *h) {
  if (ia->nsel == 0) return -1;
  return hg_model_body(hg_sim_model(sim), hg_frame_name(h, ia->sel[ia->sel_cursor]));
}

static const char *mode_word(int mode) {
  return mode == HG_MODE_FREE ? "free" : mode == HG_MODE_LOCKED ? "locked" : "prescribed";
}

/* n numbers into buf, angles (unit "rad") in degrees when deg */
static void numbers(char *buf, size_t len, const double *x, int n, hg_joint_type type, int what,
                    int deg) {
  size_t at = 0;
  buf[0] = 0;
  for (int k = 0; k < n && at < len; k++) {
    const char *unit = "";
    hg_joint_entry_name(type, what, k, &unit);
    int ang = deg && unit && (!strcmp(unit, "rad") || !strcmp(unit, "rad/s"));
    at += (size_t)snprintf(buf + at, len - at, "%s%.5g%s", k ? " " : "",
                           ang ? x[k] * 180 / 3.14159265358979 : x[k],
                           ang ? (what ? " deg/s" : " deg") : "");
  }
}

int hg_interact_panel(const hg_interact *ia, const hg_frame *f, const hg_history *h, char *lines,
                      int n, int w) {
  int k = 0;
  size_t W = (size_t)w;
#define LINE(...) (k < n ? snprintf(lines + (size_t)k++ * W, W, __VA_ARGS__) : 0)
  if (ia->nsel == 0) return 0;
  int i = hg_frame_body(f, ia->sel[ia->sel_cursor]);
  if (i < 1) {
    LINE("%s: not in the simulation at t = %.6g s", hg_frame_name(h, ia->sel[ia->sel_cursor]), f->t);
    return k;
  }
  const hg_fjoint *j = &f->joint[i - 1];
  char buf[256];
  LINE("%s  (%d of %d selected)  %.6g kg  at t = %.6g s", hg_frame_name(h, f->body[i].name),
       ia->sel_cursor + 1, ia->nsel, f->body[i].mass, f->t);
  LINE("joint %s: %s, %s", hg_frame_name(h, j->name), hg_joint_type_name((hg_joint_type)j->type),
       mode_word(j->mode));
  if (j->nv) {
    numbers(buf, sizeof buf, j->q, j->nq, (hg_joint_type)j->type, 0, ia->degrees);
    LINE("q  %s", buf);
    numbers(buf, sizeof buf, j->v, j->nv, (hg_joint_type)j->type, 1, ia->degrees);
    LINE("v  %s", buf);
    if (j->mode != HG_MODE_FREE) {
      numbers(buf, sizeof buf, j->load, j->nv, (hg_joint_type)j->type, 2, 0);
      double worst = 0;
      for (int d = 0; d < j->nv; d++) worst = fmax(worst, fabs(j->load[d]));
      if (j->effort > 0) /* latch sizing: the load against the effort limit */
        LINE("load  %s  (%.0f%% of the %.4g limit%s)", buf, 100 * worst / j->effort, j->effort,
             worst > j->effort ? ": EXCEEDED" : "");
      else
        LINE("load  %s", buf);
    }
  }
  LINE("wrench  m %.4g %.4g %.4g N m  f %.4g %.4g %.4g N", j->wrench[0], j->wrench[1],
       j->wrench[2], j->wrench[3], j->wrench[4], j->wrench[5]);
  size_t at = 0;
  buf[0] = 0;
  for (int c = i + 1; c < f->nbody && at < sizeof buf; c++)
    if (f->joint[c - 1].parent == i)
      at += (size_t)snprintf(buf + at, sizeof buf - at, " %s", hg_frame_name(h, f->body[c].name));
  LINE("parent %s; children%s", j->parent > 0 ? hg_frame_name(h, f->body[j->parent].name) : "world",
       at ? buf : " none");
#undef LINE
  return k;
}

void hg_interact_walk(hg_interact *ia, hg_sim *sim, hg_history *h, int dir) {
  const hg_model *m = hg_sim_model(sim);
  int i = shown_body(ia, sim, h), to = -1;
  if (i < 1) return;
  if (dir < 0) to = m->parent[i];
  for (int c = i + 1; dir > 0 && c < m->nbody && to < 0; c++)
    if (m->parent[c] == i) to = c;
  if (to >= 1) hg_interact_select(ia, hg_history_intern(h, m->body_name[to]), 0);
}

/* ---- commands ---- */

int hg_interact_apply(hg_interact *ia, hg_sim *sim, const char *text) {
  hg_command cmd;
  hg_error err;
  ia->result_error = 1;
  if (hg_sim_parse_command(sim, text, &cmd, &err))
    return snprintf(ia->result, sizeof ia->result, "%s", err.msg), -1;
  int n0 = hg_sim_nevents(sim), rc = hg_sim_command(sim, &cmd);
  hg_command_free(&cmd);
  if (rc) return snprintf(ia->result, sizeof ia->result, "%s", hg_sim_error(sim)), -1;
  const hg_sim_event *ev = hg_sim_nevents(sim) > n0 ? hg_sim_event_at(sim, hg_sim_nevents(sim) - 1) : NULL;
  ia->result_error = ev && strstr(ev->details, "REFUSED") != NULL;
  if (ev)
    snprintf(ia->result, sizeof ia->result, "t = %.4f s  %.60s: %.300s (energy %+.4g J, removed %.4g J)",
             ev->t, text, ev->details, ev->e_after - ev->e_before, ev->e_lock);
  else
    snprintf(ia->result, sizeof ia->result, "%s: done", text);
  return 0;
}

static int listed(const char **cand, int k, const char *s) {
  for (int j = 0; j < k; j++)
    if (!strcmp(cand[j], s)) return 1;
  return 0;
}

/* the parameters of the built-in controller types (hg_controller_type order; the scene reader
 * checks set_gain's against the same lists, sim/scene/scene_control.c) */
static const char *const builtin_params[][6] = {
    {"kp", "kd", "target", "max_rate", "max_torque", NULL}, /* attitude_pd */
    {"kp", "kd", "target", "effort", NULL},                 /* joint_pd */
    {"on", "off", "min_on", "pwm", NULL},                   /* thruster_logic */
};

/* the scene's controller named name, or NULL */
static const hg_controller_spec *controller_spec(hg_sim *sim, const char *name) {
  const hg_scene *sc = hg_sim_scene(sim);
  for (int k = 0; sc && k < sc->ncontroller; k++)
    if (sc->controller[k].name && !strcmp(sc->controller[k].name, name)) return &sc->controller[k];
  return NULL;
}

/* The names that complete the prefix p (length n), word number `word` of the line whose earlier
 * words are w[0], w[1] (empty when fewer), into cand (at most max, each once); the count. The
 * first word: the actions; after actuate: the actuators; after controller and set_gain: the
 * controllers, then on/off or the controller's parameters; elsewhere the joint, body, marker,
 * force element, loop, actuator and controller names. */
static int candidates(hg_sim *sim, const char *p, size_t n, int word, char w[2][64],
                      const char **cand, int max) {
  const hg_model *m = hg_sim_model(sim);
  int k = 0;
#define TRY(s) do { const char *s_ = (s); if (s_ && !strncmp(s_, p, n) && k < max && !listed(cand, k, s_)) cand[k++] = s_; } while (0)
  if (word == 0) {
    for (const char *const *a = hg_command_actions(); *a; a++) TRY(*a);
    return k;
  }
  int actuate = !strcmp(w[0], "actuate"), ctl = !strcmp(w[0], "controller"),
      gain = !strcmp(w[0], "set_gain");
  if (word == 1 && actuate) {
    for (int i = 0; i < hg_sim_nactuator(sim); i++) {
      hg_sim_actuator_view av;
      hg_sim_actuator(sim, i, &av);
      TRY(av.name);
    }
    return k;
  }
  if (word == 1 && (ctl || gain)) {
    for (int i = 0; i < hg_sim_ncontroller(sim); i++) {
      hg_sim_controller_view cv;
      hg_sim_controller(sim, i, &cv);
      TRY(cv.name);
    }
    return k;
  }
  if (word == 2 && ctl) {
    TRY("on");
    TRY("off");
    return k;
  }
  if (word == 2 && gain) { /* the controller's own params, then its type's */
    const hg_controller_spec *c = controller_spec(sim, w[1]);
    for (int i = 0; c && i < c->nparam; i++) TRY(c->param[i].name);
    if (c && (int)c->type < (int)(sizeof builtin_params / sizeof builtin_params[0]))
      for (int i = 0; builtin_params[c->type][i]; i++) TRY(builtin_params[c->type][i]);
    return k;
  }
  if ((actuate || ctl || gain) && word >= 2) return 0; /* numbers */
  for (int i = 1; i < m->nbody; i++) TRY(m->jnt_name[i]);
  for (int i = 1; i < m->nbody; i++) TRY(m->body_name[i]);
  for (int i = 0; i < hg_sim_nmarker(sim); i++) TRY(hg_sim_scene(sim)->marker[i].name);
  for (int i = 0; i < hg_sim_nforce(sim); i++) {
    hg_force_view fv;
    hg_sim_force(sim, i, &fv);
    TRY(fv.name);
  }
  for (int i = 0; i < hg_sim_nloop(sim); i++) { /* close and open name loops */
    hg_sim_loop_view lv;
    hg_sim_loop(sim, i, &lv);
    TRY(lv.name);
  }
  for (int i = 0; i < hg_sim_nactuator(sim); i++) {
    hg_sim_actuator_view av;
    hg_sim_actuator(sim, i, &av);
    TRY(av.name);
  }
  for (int i = 0; i < hg_sim_ncontroller(sim); i++) {
    hg_sim_controller_view cv;
    hg_sim_controller(sim, i, &cv);
    TRY(cv.name);
  }
#undef TRY
  return k;
}

void hg_interact_complete(hg_interact *ia, hg_sim *sim) {
  size_t len = strlen(ia->line), start = len;
  while (start > 0 && ia->line[start - 1] != ' ') start--;
  /* the words before the one completed: how many, and the first two */
  char w[2][64] = {"", ""};
  int word = 0;
  for (size_t c = 0; c < start;) {
    while (c < start && ia->line[c] == ' ') c++;
    size_t b = c;
    while (c < start && ia->line[c] != ' ') c++;
    if (c == b) break;
    if (word < 2) snprintf(w[word], sizeof w[word], "%.*s", (int)(c - b), ia->line + b);
    word++;
  }
  const char *cand[64];
  int n = candidates(sim, ia->line + start, len - start, word, w, cand, 64);
  if (n == 0 && word >= 2 && (!strcmp(w[0], "actuate") || !strcmp(w[0], "set_gain"))) {
    ia->result_error = 0;
    snprintf(ia->result, sizeof ia->result, "%s", !strcmp(w[0], "actuate")
             ? "actuate ACTUATOR V [V]: a thruster's level in [0, 1] and on-time (s), else one number"
             : "set_gain CONTROLLER PARAM V [V...]: the parameter's numbers");
    return;
  }
  if (n == 0) {
    ia->result_error = 1;
    snprintf(ia->result, sizeof ia->result, "no name starts with '%s'", ia->line + start);
    return;
  }
  /* the longest common prefix of the candidates */
  size_t common = strlen(cand[0]);
  for (int k = 1; k < n; k++) {
    size_t c = 0;
    while (c < common && cand[k][c] == cand[0][c]) c++;
    common = c;
  }
  if (start + common + 2 < sizeof ia->line) {
    memcpy(ia->line + start, cand[0], common);
    ia->line[start + common] = 0;
    if (n == 1) strcat(ia->line, " ");
  }
  ia->result_error = 0;
  ia->result[0] = 0;
  if (n > 1) {
    size_t at = 0;
    for (int k = 0; k < n && at < sizeof ia->result; k++)
      at += (size_t)snprintf(ia->result + at, sizeof ia->result - at, "%s%s", k ? "  " : "", cand[k]);
  }
}

/* ---- freezing and thawing ---- */

int hg_interact_preview(hg_interact *ia, hg_sim *sim, const hg_history *h, const char *verb) {
  const hg_model *m = hg_sim_model(sim);
  hg_interact_cancel(ia);
  ia->result_error = 1;
  if (ia->nsel == 0) return snprintf(ia->result, sizeof ia->result, "select a body first (click)"), -1;
  /* one command for every selected joint: one impulse */
  int hold = !strcmp(verb, "hold");
  size_t at = (size_t)snprintf(ia->preview_cmd, sizeof ia->preview_cmd, "%s",
                               hold ? "prescribe" : verb);
  int njoint = 0;
  for (int s = 0; s < ia->nsel; s++) {
    int i = hg_model_body(m, hg_frame_name(h, ia->sel[s]));
    if (i < 1 || m->jnt_nv[i] == 0) continue;
    if (hold && njoint) break; /* prescribe takes one joint */
    at += (size_t)snprintf(ia->preview_cmd + at, sizeof ia->preview_cmd - at, " %s", m->jnt_name[i]);
    njoint++;
  }
  if (njoint == 0 || at >= sizeof ia->preview_cmd)
    return snprintf(ia->result, sizeof ia->result, "no moving joint selected"), -1;
  hg_command cmd;
  hg_error err;
  hg_sim_preview_view pv;
  if (hg_sim_parse_command(sim, ia->preview_cmd, &cmd, &err))
    return snprintf(ia->result, sizeof ia->result, "%s", err.msg), -1;
  int rc = hg_sim_preview(sim, &cmd, &pv);
  hg_command_free(&cmd);
  if (rc) return snprintf(ia->result, sizeof ia->result, "%s: cannot preview", ia->preview_cmd), -1;
  /* the impulse at each DoF that takes one */
  char imp[256] = "";
  size_t ai = 0;
  for (int k = 0; k < m->nv && ai < sizeof imp; k++)
    if (pv.impulse[k] != 0)
      ai += (size_t)snprintf(imp + ai, sizeof imp - ai, " %s[%d] %.3g", m->jnt_name[m->dof_body[k]],
                             k - m->v_adr[m->dof_body[k]], pv.impulse[k]);
  snprintf(ia->preview_text, sizeof ia->preview_text,
           "Enter: %.120s (removes %.6g J), Esc: cancel; impulses (N s, N m s):%.250s",
           ia->preview_cmd, pv.energy_removed, ai ? imp : " none");
  /* the bodies' velocity jumps, as arrows from their origins */
  ia->npv = 0;
  for (int i = 1; i < m->nbody && ia->npv < (int)(sizeof ia->pv_p / sizeof ia->pv_p[0]); i++) {
    const double *dt = pv.dtwist + 6 * i;
    if (fabs(dt[3]) + fabs(dt[4]) + fabs(dt[5]) == 0) continue;
    hg_se3 T;
    double tw[6];
    hg_sim_body(sim, i, &T, tw);
    memcpy(ia->pv_p[ia->npv], T.p, sizeof T.p);
    memcpy(ia->pv_v[ia->npv], dt + 3, 3 * sizeof(double));
    ia->npv++;
  }
  ia->preview = 1;
  ia->result_error = 0;
  ia->result[0] = 0;
  return 0;
}

int hg_interact_commit(hg_interact *ia, hg_sim *sim) {
  if (!ia->preview) return 0;
  char cmd[HG_CMDLINE_MAX];
  snprintf(cmd, sizeof cmd, "%s", ia->preview_cmd);
  hg_interact_cancel(ia);
  return hg_interact_apply(ia, sim, cmd);
}

void hg_interact_cancel(hg_interact *ia) {
  ia->preview = 0;
  ia->npv = 0;
  ia->preview_text[0] = 0;
}

/* ---- the mouse pull ---- */

/* where the pull's target of body i is fixed (hg_interact_grab says why): 0 the world, 1 the
 * free-flying bodies' centre of mass */
static int pull_frame(const hg_model *m, int i) {
  return m->jnt[m->root[i]].type == HG_JOINT_FREE && !(hg_v3_norm(m->gravity) > 0);
}

void hg_interact_grab(hg_interact *ia, hg_sim *sim, const hg_history *h, int body,
                      const double p[3], double depth) {
  const hg_model *m = hg_sim_model(sim);
  int i = hg_model_body(m, hg_frame_name(h, body));
  if (i < 1) return;
  hg_se3 T;
  double tw[6], d[3];
  hg_sim_body(sim, i, &T, tw);
  for (int k = 0; k < 3; k++) d[k] = p[k] - T.p[k];
  for (int k = 0; k < 3; k++) /* R^T (p - o) */
    ia->pull_point[k] = T.R[k] * d[0] + T.R[3 + k] * d[1] + T.R[6 + k] * d[2];
  /* the whole tree the body belongs to moves with it: 1 Hz on its mass, critically damped */
  double mass = 0, w = 2 * 3.14159265358979;
  for (int b = 1; b < m->nbody; b++)
    if (m->root[b] == m->root[i]) mass += m->inertia[b].m;
  if (!(mass > 0)) mass = 1;
  ia->pull_k = mass * w * w;
  ia->pull_c = 2 * sqrt(ia->pull_k * mass);
  ia->pulling = 1, ia->pull_body = body, ia->pull_depth = depth, ia->pull_turn = 0;
  ia->pull_frame = pull_frame(m, i);
  memcpy(ia->pull_target, p, sizeof ia->pull_target);
  ia->pull_sent_t = NAN;
}

void hg_interact_drag(hg_interact *ia, const double origin[3], const double dir[3],
                      const double forward[3]) {
  if (!ia->pulling) return;
  double c = dir[0] * forward[0] + dir[1] * forward[1] + dir[2] * forward[2];
  if (!(c > 1e-6)) return;
  double s = ia->pull_depth / c;
  for (int k = 0; k < 3; k++) ia->pull_target[k] = origin[k] + s * dir[k];
}

void hg_interact_grab_turn(hg_interact *ia, const double c[3]) {
  if (!ia->pulling) return;
  ia->pull_turn = 1;
  memcpy(ia->pull_centre, c, sizeof ia->pull_centre);
  memcpy(ia->pull_grab, ia->pull_target, sizeof ia->pull_grab);
}

/* x rotated by angle about the unit axis a (Rodrigues) */
static void rotate(const double a[3], double angle, const double x[3], double y[3]) {
  double c = cos(angle), s = sin(angle), d = a[0] * x[0] + a[1] * x[1] + a[2] * x[2], ax[3];
  hg_v3_cross(a, x, ax);
  for (int k = 0; k < 3; k++) y[k] = c * x[k] + s * ax[k] + (1 - c) * d * a[k];
}

void hg_interact_turn(hg_interact *ia, double dx, double dy, const double s[3], const double u[3]) {
  if (!ia->pulling || !ia->pull_turn) return;
  double r[3], r1[3], r2[3];
  for (int k = 0; k < 3; k++) r[k] = ia->pull_grab[k] - ia->pull_centre[k];
  rotate(u, 0.01 * dx, r, r1);
  rotate(s, 0.01 * dy, r1, r2);
  for (int k = 0; k < 3; k++) ia->pull_target[k] = ia->pull_centre[k] + r2[k];
}

int hg_interact_pull_update(hg_interact *ia, hg_sim *sim, const hg_history *h) {
  if (!ia->pulling) return 0;
  double t = hg_sim_time(sim);
  int sent = !isnan(ia->pull_sent_t);
  if (sent && !memcmp(ia->pull_sent, ia->pull_target, sizeof ia->pull_sent)) return 0;
  if (sent && t == ia->pull_sent_t) return 0; /* one per simulation time: the next frame's */
  char text[HG_CMDLINE_MAX];
  const double *a = ia->pull_point;
  double b[3], c[3];
  memcpy(b, ia->pull_target, sizeof b);
  if (ia->pull_frame) { /* the target relative to the free-flying bodies' centre of mass */
    hg_sim_free_com(sim, c);
    for (int k = 0; k < 3; k++) b[k] -= c[k];
  }
  snprintf(text, sizeof text, "perturb %s %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g%s",
           hg_frame_name(h, ia->pull_body), a[0], a[1], a[2], b[0], b[1], b[2], ia->pull_k,
           ia->pull_c, ia->pull_frame ? " com" : "");
  ia->pull_sent_t = t;
  memcpy(ia->pull_sent, ia->pull_target, sizeof ia->pull_sent);
  return hg_interact_apply(ia, sim, text) ? -1 : 1;
}

int hg_interact_release(hg_interact *ia, hg_sim *sim) {
  if (!ia->pulling) return 0;
  ia->pulling = 0;
  if (isnan(ia->pull_sent_t)) return 0; /* never pulled */
  ia->pull_sent_t = NAN;
  return hg_interact_apply(ia, sim, "release");
}

/* ---- perturbed configurations ---- */

/* "[x0, x1, ...]" of n numbers into buf */
static void flow_list(char *buf, size_t len, const double *x, int n) {
  size_t at = (size_t)snprintf(buf, len, "[");
  for (int k = 0; k < n && at < len; k++)
    at += (size_t)snprintf(buf + at, len - at, "%s%.17g", k ? ", " : "", x[k]);
  if (at < len) snprintf(buf + at, len - at, "]");
}

int hg_interact_nudge(hg_interact *ia, hg_sim *sim, const hg_history *h, int what, double step) {
  const hg_model *m = hg_sim_model(sim);
  int i = shown_body(ia, sim, h);
  ia->result_error = 1;
  if (i < 1 || m->jnt_nv[i] == 0)
    return snprintf(ia->result, sizeof ia->result, "select a body on a moving joint first"), -1;
  int a = m->v_adr[i], n = m->jnt_nv[i];
  int k = ia->ghost_dof >= a && ia->ghost_dof < a + n ? ia->ghost_dof - a : 0;
  double x[HG_JOINT_MAXNQ > HG_JOINT_MAXNV ? HG_JOINT_MAXNQ : HG_JOINT_MAXNV];
  double e[HG_JOINT_MAXNV] = {0};
  char list[512], text[HG_CMDLINE_MAX + 512];
  if (what == 0) { /* q (+) step e_k, on the group */
    e[k] = 1;
    hg_joint_integrate(&m->jnt[i], hg_sim_q(sim) + m->q_adr[i], e, step, x);
    flow_list(list, sizeof list, x, m->jnt_nq[i]);
    snprintf(text, sizeof text, "set %s {q: %s}", m->jnt_name[i], list);
  } else {
    memcpy(x, hg_sim_v(sim) + a, (size_t)n * sizeof(double));
    x[k] += step;
    flow_list(list, sizeof list, x, n);
    snprintf(text, sizeof text, "set %s {v: %s}", m->jnt_name[i], list);
  }
  if (strlen(text) >= HG_CMDLINE_MAX)
    return snprintf(ia->result, sizeof ia->result, "the joint's state is too long to set"), -1;
  return hg_interact_apply(ia, sim, text);
}

/* ---- sliders ---- */

int hg_interact_sliders(const hg_interact *ia, hg_sim *sim, const hg_history *h) {
  int i = shown_body(ia, sim, h);
  if (i < 1) return 0;
  int n = 2 * hg_sim_model(sim)->jnt_nv[i];
  return n > HG_SLIDER_MAX ? HG_SLIDER_MAX : n;
}

void hg_interact_slider(const hg_interact *ia, hg_sim *sim, const hg_history *h, int k,
                        char *label, size_t len, double *range, double *value) {
  const hg_model *m = hg_sim_model(sim);
  int i = shown_body(ia, sim, h), nv = m->jnt_nv[i], what = k >= nv, d = k % nv;
  const char *unit = "", *name = hg_joint_entry_name(m->jnt[i].type, 1, d, &unit);
  int angular = unit && !strcmp(unit, "rad/s");
  double v = hg_sim_v(sim)[m->v_adr[i] + d];
  /* offsets from the state now: q (+) delta, v + dv; a velocity's span grows with it, so a
   * capsule falling at 12 m/s is not pinned at the end of a +-1 m/s slider */
  *range = what ? fmax(angular ? 2 : 1, fabs(v)) : (angular ? 3.14159265358979 : 1);
  *value = ia->slider == k ? ia->slider_value : 0;
  if (what) snprintf(label, len, "dv%d %s [%s] from %.6g", d, name ? name : "?", unit, v);
  else snprintf(label, len, "dq%d [%s]", d, angular ? "rad" : "m");
}

void hg_interact_slider_drag(hg_interact *ia, hg_sim *sim, const hg_history *h, int k,
                             double value) {
  const hg_model *m = hg_sim_model(sim);
  char label[64];
  double range, v0;
  int i = shown_body(ia, sim, h);
  if (i < 1 || k < 0 || k >= hg_interact_sliders(ia, sim, h)) return;
  hg_interact_slider(ia, sim, h, k, label, sizeof label, &range, &v0);
  ia->slider = k;
  ia->slider_value = fmax(-range, fmin(range, value));
  if (k >= m->jnt_nv[i]) return; /* a velocity: no ghost */
  if (ia->slider_nv != m->nv) {
    free(ia->slider_delta);
    ia->slider_delta = calloc((size_t)m->nv + 1, sizeof(double));
    ia->slider_nv = ia->slider_delta ? m->nv : 0;
  }
  if (!ia->slider_delta) return;
  memset(ia->slider_delta, 0, (size_t)m->nv * sizeof(double));
  ia->slider_delta[m->v_adr[i] + k] = ia->slider_value;
  ia->ghost_delta = ia->slider_delta; /* q (+) delta: one ghost, eps = 1 */
}

int hg_interact_slider_release(hg_interact *ia, hg_sim *sim, const hg_history *h) {
  const hg_model *m = hg_sim_model(sim);
  int k = ia->slider, i = shown_body(ia, sim, h);
  ia->slider = -1;
  if (ia->ghost_delta == ia->slider_delta) ia->ghost_delta = ia->ghost_file;
  if (k < 0 || i < 1) return 0;
  int nv = m->jnt_nv[i], d = k % nv;
  double x[HG_JOINT_MAXNQ > HG_JOINT_MAXNV ? HG_JOINT_MAXNQ : HG_JOINT_MAXNV];
  double e[HG_JOINT_MAXNV] = {0};
  char list[512], text[HG_CMDLINE_MAX + 512];
  if (ia->slider_value == 0) return 0; /* not moved: nothing to set */
  if (k < nv) {
    e[d] = 1;
    hg_joint_integrate(&m->jnt[i], hg_sim_q(sim) + m->q_adr[i], e, ia->slider_value, x);
    flow_list(list, sizeof list, x, m->jnt_nq[i]);
    snprintf(text, sizeof text, "set %s {q: %s}", m->jnt_name[i], list);
  } else {
    memcpy(x, hg_sim_v(sim) + m->v_adr[i], (size_t)nv * sizeof(double));
    x[d] += ia->slider_value;
    flow_list(list, sizeof list, x, nv);
    snprintf(text, sizeof text, "set %s {v: %s}", m->jnt_name[i], list);
  }
  if (strlen(text) >= HG_CMDLINE_MAX)
    return snprintf(ia->result, sizeof ia->result, "the joint's state is too long to set"), -1;
  return hg_interact_apply(ia, sim, text);
}

/* ---- ghosts and gauges ---- */

int hg_interact_ghost_load(hg_interact *ia, hg_sim *sim, const char *path, char *err,
                           size_t errlen) {
  int nv = hg_sim_model(sim)->nv, n = 0, line = 0;
  hg_error e;
  FILE *f = hg_file_open(path, HG_FILE_TEXT_MAX, NULL, &e);
  if (!f) return snprintf(err, errlen, "the ghost direction: %s", e.msg), -1;
  double *x = calloc((size_t)nv + 1, sizeof *x);
  char buf[4096];
  while (x && fgets(buf, sizeof buf, f)) {
    line++;
    buf[strcspn(buf, "#")] = 0;
    for (char *tok = strtok(buf, " \t,\r\n"); tok; tok = strtok(NULL, " \t,\r\n")) {
      char *end;
      double v = strtod(tok, &end);
      if (*end || !isfinite(v) || n >= nv) {
        fclose(f), free(x);
        if (n >= nv)
          return snprintf(err, errlen, "%s:%d: more than the model's %d numbers (one per DoF), "
                          "from '%s'", path, line, nv, tok), -1;
        return snprintf(err, errlen, "%s:%d: expected a number, got '%s'", path, line, tok), -1;
      }
      x[n++] = v;
    }
  }
  fclose(f);
  if (!x) return snprintf(err, errlen, "out of memory"), -1;
  if (n != nv) {
    free(x);
    return snprintf(err, errlen, "%s:%d: expected %d numbers (one per DoF, in v's order), got %d",
                    path, line, nv, n), -1;
  }
  free(ia->ghost_file);
  ia->ghost_file = x;
  ia->ghost_delta = x;
  return 0;
}

/* splits a CSV line in place at commas (hinge's files quote nothing); the number of fields */
static int split_csv(char *line, char **col, int cap) {
  int n = 0;
  line[strcspn(line, "\r\n")] = 0;
  for (char *p = line; p && n < cap; p = strchr(p, ',')) {
    if (*p == ',') *p++ = 0;
    col[n++] = p;
  }
  return n;
}

int hg_interact_ghost_mode(hg_interact *ia, hg_sim *sim, const char *path, int mode, char *err,
                           size_t errlen) {
  enum { CAP = 1024, LINE = 1 << 16 };
  static char head[LINE], row[LINE];
  char *hc[CAP], *rc[CAP];
  const hg_model *m = hg_sim_model(sim);
  hg_error why;
  FILE *f = hg_file_open(path, HG_FILE_TEXT_MAX, NULL, &why);
  if (!f) return snprintf(err, errlen, "the modes: %s", why.msg), -1;
  int nh = fgets(head, LINE, f) ? split_csv(head, hc, CAP) : 0, nr = 0, line = 1, found = 0;
  while (!found && fgets(row, LINE, f)) {
    line++;
    nr = split_csv(row, rc, CAP);
    found = nr == nh && atoi(rc[0]) == mode;
  }
  fclose(f);
  int fq = -1;
  for (int c = 0; c < nh; c++)
    if (!strcmp(hc[c], "freq_hz")) fq = c;
  if (nh < 2 || strcmp(hc[0], "mode") || fq < 0)
    return snprintf(err, errlen, "%s:1: expected the header of hinge linearize's modes.csv", path), -1;
  if (!found) return snprintf(err, errlen, "%s:%d: no mode %d", path, line, mode), -1;
  double *d = calloc((size_t)m->nv + 1, sizeof *d);
  if (!d) return snprintf(err, errlen, "out of memory"), -1;
  int used = 0;
  for (int c = 0; c < nh; c++) { /* JOINT.q.NAME (or JOINT.dqK of older files): the real parts */
    char *dot = strrchr(hc[c], '.');
    int k = -1, i = 1, old = dot && sscanf(dot, ".dq%d", &k) == 1;
    if (!old) { /* JOINT.q.NAME: NAME a tangent entry (hg_joint_entry_name, what 3) */
      if (!dot || dot - hc[c] < 3 || strncmp(dot - 2, ".q", 2)) continue;
      dot -= 2;
    }
    *dot = 0;
    while (i < m->nbody && strcmp(m->jnt_name[i], hc[c])) i++;
    *dot = '.';
    for (int e = 0; !old && i < m->nbody && e < m->jnt_nv[i]; e++)
      if (!strcmp(dot + 3, hg_joint_entry_name(m->jnt[i].type, 3, e, NULL))) k = e;
    if (i == m->nbody || k < 0 || k >= m->jnt_nv[i]) {
      free(d);
      return snprintf(err, errlen, "%s:1: column '%s' is not a DoF of this scene's joints", path,
                      hc[c]), -1;
    }
    d[m->v_adr[i] + k] = strtod(rc[c], NULL);
    used++;
  }
  if (!used) return free(d), snprintf(err, errlen, "%s:1: no JOINT.q.NAME columns", path), -1;
  double hz = strtod(rc[fq], NULL);
  free(ia->ghost_file);
  ia->ghost_file = d;
  ia->ghost_delta = d;
  ia->ghost_hz = isfinite(hz) && hz > 0 ? hz : 0;
  return 0;
}

void hg_interact_ghost_cycle(hg_interact *ia, hg_sim *sim, const hg_history *h) {
  const hg_model *m = hg_sim_model(sim);
  int i = shown_body(ia, sim, h);
  ia->ghost_delta = NULL;
  if (i < 1 || m->jnt_nv[i] == 0) {
    ia->ghost_dof = -1;
    return;
  }
  int a = m->v_adr[i], n = m->jnt_nv[i];
  if (ia->ghost_dof < a || ia->ghost_dof >= a + n) ia->ghost_dof = a;  /* this joint's first */
  else ia->ghost_dof = ia->ghost_dof + 1 < a + n ? ia->ghost_dof + 1 : -1;
}

/* 1 when two poses agree to round-off (1e-12 of the position's size, 1e-12 in rotation) */
static int same_pose(const hg_se3 *a, const hg_se3 *b) {
  double s = 1;
  for (int k = 0; k < 3; k++) s = fmax(s, fabs(a->p[k]));
  for (int k = 0; k < 3; k++)
    if (fabs(a->p[k] - b->p[k]) > 1e-12 * s) return 0;
  for (int k = 0; k < 9; k++)
    if (fabs(a->R[k] - b->R[k]) > 1e-12) return 0;
  return 1;
}

int hg_interact_ghosts(const hg_interact *ia, hg_sim *sim, hg_draw_list *dl, const hg_frame *f) {
  const hg_model *m = hg_sim_model(sim);
  double delta[HG_SEL_MAX * 8];
  const double *dir = ia->ghost_delta;
  if (!dir) {
    if (ia->ghost_dof < 0 || ia->ghost_dof >= m->nv || m->nv > (int)(sizeof delta / sizeof delta[0]))
      return 0;
    memset(delta, 0, (size_t)m->nv * sizeof(double));
    delta[ia->ghost_dof] = 1;
    dir = delta;
  }
  if (f->model_version != hg_sim_model_version(sim) || f->nbody != m->nbody) return 0;
  int sliding = ia->slider >= 0 && dir == ia->slider_delta;
  /* one ghost: a dragged slider's q (+) delta, or a mode swinging at its frequency */
  int one = sliding || (ia->ghost_hz > 0 && dir == ia->ghost_file);
  double swing = ia->ghost_eps * sin(2 * 3.14159265358979 * ia->ghost_hz * ia->ghost_clock);
  for (int k = one ? 1 : -ia->ghost_k; k <= (one ? 1 : ia->ghost_k); k++) {
    if (k == 0) continue;
    const hg_se3 *T = hg_sim_ghost(sim, dir, sliding ? 1.0 : one ? swing : k * ia->ghost_eps);
    if (!T) return -1;
    float alpha = 0.45f - 0.12f * (float)(abs(k) - 1);
    for (int g = 0; g < f->ngeom; g++) {
      const hg_fgeom *fg = &f->geom[g];
      const hg_se3 *Tb = &f->body[fg->body].pose;
      if (same_pose(Tb, &T[fg->body])) continue; /* a ghost over the body itself hides it */
      hg_se3 Tinv, rel;
      hg_se3_inv(Tb, &Tinv);
      hg_se3_mul(&Tinv, &fg->pose, &rel); /* the geometry in its body's frame */
      hg_draw_shape s = {.type = fg->type, .mesh = fg->mesh, .overlay = 0, .id = 0};
      memcpy(s.size, fg->size, sizeof s.size);
      hg_se3_mul(&T[fg->body], &rel, &s.pose);
      s.rgba[0] = k > 0 ? 0.55f : 0.35f, s.rgba[1] = 0.85f, s.rgba[2] = k > 0 ? 0.6f : 1.0f;
      s.rgba[3] = fmaxf(alpha, 0.15f);
      if (hg_draw_shape_add(dl, &s)) return -1;
    }
  }
  return 0;
}

/* a marker of body (a port first, else any), or NULL */
static const char *body_marker(hg_sim *sim, const char *body) {
  const char *any = NULL;
  for (int k = 0; k < hg_sim_nmarker(sim); k++) {
    hg_sim_marker_view mv;
    hg_sim_marker(sim, k, &mv);
    if (!mv.present || strcmp(mv.body, body)) continue;
    if (mv.port) return mv.name;
    if (!any) any = mv.name;
  }
  return any;
}

/* one gauge's four lines at l (ok: the gauge g was measured), each short enough for the HUD's
 * right column at 1280 px; the number of lines written */
static int gauge_lines(const hg_sim_gauge_view *gv, int ok, const char *a, const char *b, char *l,
                       int w) {
  const double deg = 180 / 3.14159265358979;
  const hg_sim_gauge_view g = *gv;
  char contact[64], loss[64];
  if (!ok || !g.present) {
    snprintf(l, (size_t)w, "%s - %s: not in the simulation", a, b);
    return 1;
  }
  snprintf(l, (size_t)w, "%s - %s  %s", a, b,
           g.capture < 0 ? "(no capture)" : g.measure < 0 ? "WITHIN CAPTURE" : "");
  if (g.capture >= 0) {
    snprintf(l + w, (size_t)w, "  d %.4g m (tol %.3g)  angle %.3g deg (tol %.3g)", g.distance,
             g.position_tol, g.angle * deg, g.angle_tol * deg);
    snprintf(l + 2 * w, (size_t)w, "  speed %.3g m/s (tol %.3g)  closing %.3g m/s", g.speed, g.speed_tol,
             g.closing_speed);
  } else {
    snprintf(l + w, (size_t)w, "  d %.4g m  angle %.3g deg", g.distance, g.angle * deg);
    snprintf(l + 2 * w, (size_t)w, "  speed %.3g m/s  closing %.3g m/s", g.speed, g.closing_speed);
  }
  if (g.time_to_contact < 1e6) snprintf(contact, sizeof contact, "contact in %.3g s", g.time_to_contact);
  else snprintf(contact, sizeof contact, "not closing");
  if (isnan(g.plastic_loss)) snprintf(loss, sizeof loss, "joined (one tree)");
  else snprintf(loss, sizeof loss, "capture now removes %.4g J", g.plastic_loss);
  snprintf(l + 3 * w, (size_t)w, "  %s  %s", contact, loss);
  return 4;
}

int hg_interact_gauges(const hg_interact *ia, hg_sim *sim, const hg_history *h, const hg_frame *f,
                       int live, char *lines, int n, int w) {
  int k = 0;
  /* two selected bodies: their ports (or markers), measured now */
  if (ia->nsel >= 2 && k + 4 <= n) {
    const char *a = body_marker(sim, hg_frame_name(h, ia->sel[0])),
               *b = body_marker(sim, hg_frame_name(h, ia->sel[1]));
    hg_sim_gauge_view g;
    if (a && b && live) k += gauge_lines(&g, !hg_sim_gauge(sim, a, b, &g), a, b, lines + (size_t)k * (size_t)w, w);
    else if (a && b) snprintf(lines + (size_t)k++ * (size_t)w, (size_t)w, "%s - %s: measured at the latest state (End)", a, b);
  }
  /* the scene's capture pairs, as the frame shown captured them */
  for (int c = 0; c < f->ngauge && k + 4 <= n; c++)
    k += gauge_lines(&f->gauge[c].g, f->gauge[c].ok, hg_frame_name(h, f->gauge[c].a),
                     hg_frame_name(h, f->gauge[c].b), lines + (size_t)k * (size_t)w, w);
  return k;
}

/* ---- drawing ---- */

/* the selected bodies' tint: a translucent shell a few pixels larger than each of their shapes */
static int tint(hg_draw_list *dl, const hg_frame *f, int b, const hg_draw_options *o) {
  static const float shell[4] = {1, 0.85f, 0.1f, 0.35f};
  for (int g = 0; g < f->ngeom; g++) {
    const hg_fgeom *fg = &f->geom[g];
    if (fg->body != b) continue;
    double m = hg_draw_px(o, fg->pose.p), grow = 1.04;
    double r = fmax(fmax(fg->size[0], fg->size[1]), fg->size[2]);
    if (m > 0 && r > 0) grow = fmax(grow, 1 + 3 * m / r); /* at least 3 pixels out */
    hg_draw_shape sh = {.type = fg->type, .mesh = fg->mesh, .overlay = 0, .id = 0, .pose = fg->pose};
    for (int k = 0; k < 3; k++) sh.size[k] = fg->size[k] * grow;
    memcpy(sh.rgba, shell, sizeof sh.rgba);
    if (hg_draw_shape_add(dl, &sh)) return -1;
  }
  return 0;
}

int hg_interact_draw(const hg_interact *ia, hg_draw_list *dl, const hg_frame *f,
                     const hg_history *h, const hg_draw_options *o) {
  static const float sel_col[4] = {1, 0.85f, 0.1f, 1}, jump_col[4] = {1, 0.3f, 0.9f, 1},
                     pull_col[4] = {1, 1, 1, 1};
  double r = 0;
  hg_frame_bounds(f, (double[3]){0}, &r);
  /* without a camera, sizes in the world from the bodies' extent; with one, in pixels */
  double rad_w = fmax(r, 1e-3) * 0.006, cross_w = fmax(r, 1e-3) * 0.05;
  (void)h;
  /* the selected bodies: tinted, a cross of lines along their axes and a label */
  for (int s = 0; s < ia->nsel; s++) {
    int b = hg_frame_body(f, ia->sel[s]);
    if (b < 1) continue;
    const hg_se3 *T = &f->body[b].pose;
    if (tint(dl, f, b, o)) return -1;
    double m = hg_draw_px(o, T->p), e = m > 0 ? HG_GLYPH_PX * m : cross_w;
    for (int k = 0; k < 3; k++) {
      double a[3], c[3];
      for (int j = 0; j < 3; j++) a[j] = T->p[j] - e * T->R[3 * j + k], c[j] = T->p[j] + e * T->R[3 * j + k];
      if (hg_draw_line_add(dl, a, c, sel_col)) return -1;
    }
    if (hg_draw_label_add(dl, T->p, s == ia->sel_cursor ? "selected" : "+", sel_col)) return -1;
  }
  /* the preview's velocity jumps: 1 s of motion per m/s, or with a camera the largest
   * HG_ARROW_PX pixels long and the others in proportion */
  double vmax = 0;
  for (int k = 0; k < ia->npv; k++) vmax = fmax(vmax, hg_v3_norm(ia->pv_v[k]));
  for (int k = 0; k < ia->npv; k++) {
    double m = hg_draw_px(o, ia->pv_p[k]), v[3], unit = m > 0 && vmax > 0 ? HG_ARROW_PX * m / vmax : 1;
    for (int j = 0; j < 3; j++) v[j] = unit * ia->pv_v[k][j];
    if (hg_draw_arrow(dl, ia->pv_p[k], v, m > 0 ? 1.5 * m : rad_w, jump_col)) return -1;
  }
  /* the pull: from the grabbed point to the target */
  if (ia->pulling) {
    int b = hg_frame_body(f, ia->pull_body);
    if (b >= 1) {
      const hg_se3 *T = &f->body[b].pose;
      double p[3], d[3];
      hg_se3_apply(T, ia->pull_point, p);
      for (int k = 0; k < 3; k++) d[k] = ia->pull_target[k] - p[k];
      double m = hg_draw_px(o, p);
      if (hg_draw_arrow(dl, p, d, m > 0 ? 1.5 * m : rad_w, pull_col)) return -1;
    }
  }
  return 0;
}
