/* frame.c: frames copied from the simulation's views, and their history (frame.h). */
#include "frame.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"

/* ---- string table ---- */

int hg_history_intern(hg_history *h, const char *s) {
  if (!s) s = "";
  for (int k = h->nstr - 1; k >= 0; k--)
    if (!strcmp(h->str[k], s)) return k;
  if (hg_grow((void **)&h->str, h->nstr, &h->capstr, 64, sizeof *h->str)) return 0;
  char *c = malloc(strlen(s) + 1);
  if (!c) return 0;
  strcpy(c, s);
  h->str[h->nstr] = c;
  return h->nstr++;
}

const char *hg_frame_name(const hg_history *h, int id) {
  return id >= 0 && id < h->nstr ? h->str[id] : "";
}

/* ---- frames ---- */

void hg_frame_free(hg_frame *f) {
  free(f->body), free(f->geom), free(f->joint), free(f->marker), free(f->force), free(f->pair), free(f->loop);
  free(f->gauge);
  free(f->act), free(f->ctl), free(f->sens);
  memset(f, 0, sizeof *f);
}

/* a copy of n items of size sz (NULL for none); 0 or -1 */
static int dup_array(void **dst, const void *src, int n, size_t sz) {
  *dst = NULL;
  if (n <= 0) return 0;
  if (!(*dst = malloc((size_t)n * sz))) return -1;
  memcpy(*dst, src, (size_t)n * sz);
  return 0;
}

int hg_frame_copy(hg_frame *dst, const hg_frame *src) {
  *dst = *src;
  void *b, *g, *j, *m, *f, *p, *l, *a, *c, *se, *ga;
  int rc = dup_array(&b, src->body, src->nbody, sizeof *src->body) |
           dup_array(&a, src->act, src->nact, sizeof *src->act) |
           dup_array(&c, src->ctl, src->nctl, sizeof *src->ctl) |
           dup_array(&se, src->sens, src->nsens, sizeof *src->sens) |
           dup_array(&l, src->loop, src->nloop, sizeof *src->loop) |
           dup_array(&g, src->geom, src->ngeom, sizeof *src->geom) |
           dup_array(&j, src->joint, src->njoint, sizeof *src->joint) |
           dup_array(&m, src->marker, src->nmarker, sizeof *src->marker) |
           dup_array(&f, src->force, src->nforce, sizeof *src->force) |
           dup_array(&p, src->pair, src->npair, sizeof *src->pair) |
           dup_array(&ga, src->gauge, src->ngauge, sizeof *src->gauge);
  dst->body = b, dst->geom = g, dst->joint = j, dst->marker = m, dst->force = f, dst->pair = p;
  dst->loop = l, dst->act = a, dst->ctl = c, dst->sens = se, dst->gauge = ga;
  if (rc) hg_frame_free(dst);
  return rc ? -1 : 0;
}

int hg_frame_body(const hg_frame *f, int name) {
  for (int i = 1; i < f->nbody; i++)
    if (f->body[i].name == name) return i;
  return -1;
}

/* eigen-decomposition of a symmetric 3x3 (xx yy zz xy xz yz) by cyclic Jacobi rotations:
 * S = V diag(l) V^T, V's columns the eigenvectors (row-major) */
static void sym3_eigen(const double S6[6], double l[3], double V[9]) {
  double A[3][3] = {{S6[0], S6[3], S6[4]}, {S6[3], S6[1], S6[5]}, {S6[4], S6[5], S6[2]}};
  double W[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  for (int sweep = 0; sweep < 50; sweep++) {
    double off = fabs(A[0][1]) + fabs(A[0][2]) + fabs(A[1][2]);
    if (off <= 1e-15 * (fabs(A[0][0]) + fabs(A[1][1]) + fabs(A[2][2])) || off == 0) break;
    for (int p = 0; p < 2; p++)
      for (int q = p + 1; q < 3; q++) {
        if (A[p][q] == 0) continue;
        double theta = 0.5 * (A[q][q] - A[p][p]) / A[p][q];
        double t = (theta >= 0 ? 1 : -1) / (fabs(theta) + sqrt(theta * theta + 1));
        double c = 1 / sqrt(t * t + 1), s = t * c;
        for (int k = 0; k < 3; k++) { /* A <- A J */
          double akp = A[k][p], akq = A[k][q];
          A[k][p] = c * akp - s * akq, A[k][q] = s * akp + c * akq;
        }
        for (int k = 0; k < 3; k++) { /* A <- J^T A */
          double apk = A[p][k], aqk = A[q][k];
          A[p][k] = c * apk - s * aqk, A[q][k] = s * apk + c * aqk;
        }
        for (int k = 0; k < 3; k++) {
          double wkp = W[k][p], wkq = W[k][q];
          W[k][p] = c * wkp - s * wkq, W[k][q] = s * wkp + c * wkq;
        }
      }
  }
  for (int k = 0; k < 3; k++) {
    l[k] = A[k][k];
    for (int j = 0; j < 3; j++) V[3 * k + j] = W[k][j];
  }
}

/* the equivalent inertia box of body i: extents and principal axes (world) */
static void inertia_box(const hg_model *m, int i, const hg_se3 *T, hg_fbody *b) {
  const hg_inertia_c *ic = &m->inertia_c[i];
  double l[3], V[9];
  b->mass = ic->m;
  sym3_eigen(ic->Ic, l, V);
  for (int k = 0; k < 3; k++) {
    double s = l[(k + 1) % 3] + l[(k + 2) % 3] - l[k];
    b->box[k] = ic->m > 0 && s > 0 ? sqrt(6 * s / ic->m) : 0;
  }
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++) {
      double x = 0;
      for (int k = 0; k < 3; k++) x += T->R[3 * r + k] * V[3 * k + c];
      b->box_R[3 * r + c] = x;
    }
  hg_se3_apply(T, ic->c, b->com);
}

/* allocates the arrays of a frame with these counts; 0 or -1 */
static int frame_alloc(hg_frame *f) {
  f->body = calloc((size_t)(f->nbody > 0 ? f->nbody : 1), sizeof *f->body);
  f->geom = calloc((size_t)(f->ngeom > 0 ? f->ngeom : 1), sizeof *f->geom);
  f->joint = calloc((size_t)(f->njoint > 0 ? f->njoint : 1), sizeof *f->joint);
  f->marker = calloc((size_t)(f->nmarker > 0 ? f->nmarker : 1), sizeof *f->marker);
  f->force = calloc((size_t)(f->nforce > 0 ? f->nforce : 1), sizeof *f->force);
  f->pair = calloc((size_t)(f->npair > 0 ? f->npair : 1), sizeof *f->pair);
  f->loop = calloc((size_t)(f->nloop > 0 ? f->nloop : 1), sizeof *f->loop);
  f->act = calloc((size_t)(f->nact > 0 ? f->nact : 1), sizeof *f->act);
  f->ctl = calloc((size_t)(f->nctl > 0 ? f->nctl : 1), sizeof *f->ctl);
  f->sens = calloc((size_t)(f->nsens > 0 ? f->nsens : 1), sizeof *f->sens);
  f->gauge = calloc((size_t)(f->ngauge > 0 ? f->ngauge : 1), sizeof *f->gauge);
  return f->body && f->geom && f->joint && f->marker && f->force && f->pair && f->loop && f->act &&
                 f->ctl && f->sens && f->gauge
             ? 0
             : -1;
}

/* bodies, their geometry and joints */
static void capture_bodies(hg_history *h, hg_sim *sim, hg_frame *f) {
  const hg_model *m = hg_sim_model(sim);
  double mtot = 0;
  for (int i = 1; i < m->nbody; i++) {
    hg_fbody *b = &f->body[i];
    b->name = hg_history_intern(h, m->body_name[i]);
    hg_sim_body(sim, i, &b->pose, b->twist);
    inertia_box(m, i, &b->pose, b);
    mtot += b->mass;
    for (int k = 0; k < 3; k++) f->com[k] += b->mass * b->com[k];
    hg_sim_joint_view jv;
    hg_sim_joint(sim, i, &jv);
    hg_fjoint *j = &f->joint[i - 1];
    j->name = hg_history_intern(h, jv.name);
    j->body = i, j->type = (int)jv.type, j->mode = (int)jv.mode, j->nv = jv.nv;
    j->frame = jv.frame;
    memcpy(j->axis, jv.axis, sizeof j->axis);
    memcpy(j->wrench, jv.wrench, sizeof j->wrench);
    j->q0 = jv.nq > 0 ? jv.q[0] : 0, j->v0 = jv.nv > 0 ? jv.v[0] : 0;
    j->nq = jv.nq, j->parent = m->parent[i] > 0 ? m->parent[i] : 0;
    memcpy(j->q, jv.q, (size_t)jv.nq * sizeof(double));
    memcpy(j->v, jv.v, (size_t)jv.nv * sizeof(double));
    memcpy(j->load, jv.load, (size_t)jv.nv * sizeof(double));
    j->effort = m->limits[i].has_effort && m->limits[i].effort > 0 ? m->limits[i].effort : 0;
  }
  for (int k = 0; k < 3; k++) f->com[k] = mtot > 0 ? f->com[k] / mtot : 0;
  for (int g = 0; g < m->ngeom; g++) {
    const hg_geom *src = &m->geom[g];
    hg_fgeom *dst = &f->geom[g];
    dst->type = (int)src->type, dst->body = src->body;
    dst->mesh = src->mesh ? hg_history_intern(h, src->mesh) : -1;
    memcpy(dst->size, src->size, sizeof dst->size);
    memcpy(dst->rgba, src->rgba, sizeof dst->rgba);
    if (src->body > 0) hg_se3_mul(&f->body[src->body].pose, &src->pose, &dst->pose);
    else dst->pose = src->pose;
  }
}

/* markers, force elements and pairs */
static void capture_elements(hg_history *h, hg_sim *sim, const hg_scene *sc, hg_frame *f) {
  for (int k = 0; k < f->nmarker; k++) {
    hg_sim_marker_view mv;
    hg_sim_marker(sim, k, &mv);
    f->marker[k].name = hg_history_intern(h, mv.name);
    f->marker[k].port = mv.port, f->marker[k].present = mv.present, f->marker[k].pose = mv.pose;
  }
  for (int k = 0; k < f->nforce; k++) {
    hg_force_view fv;
    hg_fforce *o = &f->force[k];
    hg_sim_force(sim, k, &fv);
    o->name = hg_history_intern(h, fv.name);
    o->type = (int)fv.type, o->enabled = fv.enabled, o->inert = fv.inert;
    memcpy(o->a, fv.a, sizeof o->a), memcpy(o->b, fv.b, sizeof o->b);
    memcpy(o->force, fv.force, sizeof o->force);
    o->magnitude = fv.magnitude, o->length = fv.length;
    const hg_force_spec *spec = sc ? hg_scene_force(sc, fv.name) : NULL;
    o->radius = 0;
    if (spec && fv.type == HG_FORCE_CENTRAL_GRAVITY) {
      o->radius = spec->radius;
      if (o->radius <= 0 && sc->has_atmosphere && sc->atmosphere.radius > 0) /* same planet */
        o->radius = sc->atmosphere.radius;
    }
  }
  for (int k = 0; k < f->npair; k++) {
    hg_sim_pair_view pv;
    hg_sim_pair(sim, k, &pv);
    hg_fpair *p = &f->pair[k];
    p->a = hg_history_intern(h, pv.a), p->b = hg_history_intern(h, pv.b);
    p->present = pv.present, p->distance = pv.distance, p->speed = pv.speed;
    memcpy(p->pa, pv.pa, sizeof p->pa), memcpy(p->pb, pv.pb, sizeof p->pb);
  }
}

/* closed loops: their frames, the joint's axis (the scene's, in A's axes) and wrench */
static void capture_loops(hg_history *h, hg_sim *sim, hg_frame *f) {
  const hg_scene *sc = hg_sim_scene(sim);
  for (int k = 0; k < f->nloop; k++) {
    hg_sim_loop_view lv;
    hg_floop *o = &f->loop[k];
    hg_sim_loop(sim, k, &lv);
    const hg_loop_spec *sp = NULL;
    for (int i = 0; sc && lv.name && i < sc->nloop && !sp; i++)
      if (sc->loop[i].name && !strcmp(sc->loop[i].name, lv.name)) sp = &sc->loop[i];
    int coupling = lv.type && !strcmp(lv.type, "coupling");
    o->name = hg_history_intern(h, lv.name);
    o->type = hg_history_intern(h, lv.type);
    o->joint_type = coupling ? -1 : hg_joint_type_from_name(lv.type ? lv.type : "");
    o->present = lv.present, o->active = lv.active;
    o->frame_a = lv.frame_a, o->frame_b = lv.frame_b;
    o->jnt[0] = o->jnt[1] = -1;
    if (coupling && sp)
      for (int s = 0; s < 2; s++) o->jnt[s] = hg_history_intern(h, sp->joint[s]);
    memcpy(o->wrench, lv.wrench_world, sizeof o->wrench);
    o->distance = lv.distance, o->angle = lv.angle;
    /* the axis: the scene's (A's axes), or A's z for a loop made by an attach */
    double ax[3] = {0, 0, 1};
    if (sp) memcpy(ax, sp->axis, sizeof ax);
    double n = sqrt(ax[0] * ax[0] + ax[1] * ax[1] + ax[2] * ax[2]);
    for (int r = 0; r < 3; r++) {
      o->axis[r] = 0;
      for (int c = 0; c < 3 && n > 0 && !coupling; c++) o->axis[r] += lv.frame_a.R[3 * r + c] * ax[c] / n;
    }
  }
}

/* a unit copy of v (zero stays zero) */
static void unit3(const double v[3], double u[3]) {
  double n = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  for (int k = 0; k < 3; k++) u[k] = n > 0 ? v[k] / n : 0;
}

/* control in the loop: the actuators (with their scene's wheel speed limits) and controllers,
 * everything the actuators overlay and the control panel draw, so that a replayed instant shows
 * the state it had */
static void capture_control(hg_history *h, hg_sim *sim, hg_frame *f) {
  const hg_scene *sc = hg_sim_scene(sim);
  for (int k = 0; k < f->nact; k++) {
    hg_sim_actuator_view av;
    hg_fact *o = &f->act[k];
    hg_sim_actuator(sim, k, &av);
    o->name = hg_history_intern(h, av.name);
    o->type = (int)av.type, o->present = av.present, o->saturated = av.saturated;
    o->body = av.present && av.body >= 1 && av.body < f->nbody ? av.body : -1;
    memcpy(o->point, av.point, sizeof o->point);
    unit3(av.dir, o->dir);
    o->level = av.level, o->firings = av.firings;
    o->speed = av.speed, o->momentum = av.momentum, o->output = av.output;
    o->ncommand = av.ncommand > 2 ? 2 : av.ncommand;
    memcpy(o->command, av.command, sizeof o->command);
    o->max_speed = INFINITY;
    for (int i = 0; sc && av.name && i < sc->nactuator; i++)
      if (sc->actuator[i].name && !strcmp(sc->actuator[i].name, av.name)) {
        if (sc->actuator[i].max_speed > 0) o->max_speed = sc->actuator[i].max_speed;
        break;
      }
  }
  for (int k = 0; k < f->nctl; k++) {
    hg_sim_controller_view cv;
    hg_fctl *o = &f->ctl[k];
    hg_sim_controller(sim, k, &cv);
    o->name = hg_history_intern(h, cv.name);
    o->type = (int)cv.type, o->enabled = cv.enabled, o->steps = cv.steps;
    o->telemetry = -1, o->value = NAN;
    if (cv.ntelemetry > 0 && cv.telemetry) {
      o->telemetry = hg_history_intern(h, cv.telemetry_name ? cv.telemetry_name[0] : "");
      o->value = cv.telemetry[0];
    }
  }
}

/* Control in the loop: the sensors, each with the world pose of its frame (as the simulation's
 * sampling places it: a marker's frame, else its body's; a joint's sensors on the joint's child
 * body) and its latest sample, so that a replayed instant shows what they read then. */
static void capture_sensors(hg_history *h, hg_sim *sim, hg_frame *f) {
  const hg_scene *sc = hg_sim_scene(sim);
  const hg_model *m = hg_sim_model(sim);
  for (int k = 0; k < f->nsens; k++) {
    hg_sim_sensor_view sv;
    hg_fsens *o = &f->sens[k];
    hg_sim_sensor(sim, k, &sv);
    o->name = hg_history_intern(h, sv.name);
    o->type = (int)sv.type, o->valid = sv.valid, o->sampled = sv.samples > 0;
    o->n = sv.n < 7 ? sv.n : 7;
    for (int i = 0; i < 7; i++) o->value[i] = i < o->n && sv.value ? sv.value[i] : NAN;
    o->body = o->joint = -1, o->present = 0;
    hg_se3_identity(&o->pose);
    const hg_sensor_spec *sp = sc && k < sc->nsensor ? &sc->sensor[k] : NULL;
    if (!sp) continue;
    if (sp->marker) { /* its marker's frame, as captured for the markers overlay */
      for (int i = 0; i < f->nmarker; i++) {
        hg_sim_marker_view mv;
        hg_sim_marker(sim, i, &mv);
        if (mv.name && !strcmp(mv.name, sp->marker)) {
          o->present = mv.present, o->pose = mv.pose;
          for (int b = 1; mv.body && b < m->nbody; b++)
            if (m->body_name[b] && !strcmp(m->body_name[b], mv.body)) o->body = b;
          break;
        }
      }
    } else if (sp->body) {
      for (int b = 1; b < m->nbody; b++)
        if (m->body_name[b] && !strcmp(m->body_name[b], sp->body)) o->body = b;
    } else if (sp->joint) {
      for (int b = 1; b < m->nbody; b++)
        if (m->jnt_name[b] && !strcmp(m->jnt_name[b], sp->joint)) o->body = b;
    }
    if (sp->joint && o->body >= 1) o->joint = o->body - 1; /* joint j is body j + 1's */
    if (!sp->marker && o->body >= 1) o->present = 1, o->pose = f->body[o->body].pose;
  }
}

/* the events logged since the history last looked */
static void capture_events(hg_history *h, hg_sim *sim) {
  int n = hg_sim_nevents(sim);
  for (int k = h->nevent; k < n; k++) {
    if (hg_grow((void **)&h->event, h->nevent, &h->capevent, 16, sizeof *h->event)) return;
    const hg_sim_event *ev = hg_sim_event_at(sim, k);
    hg_hevent *o = &h->event[h->nevent++];
    o->t = ev->t;
    snprintf(o->name, sizeof o->name, "%.63s", ev->name ? ev->name : "");
    snprintf(o->details, sizeof o->details, "%s", ev->details);
    o->e_removed = ev->e_lock;
    o->de = ev->e_after - ev->e_before;
    o->dh = hg_sim_event_momentum_change(ev);
  }
}

/* keeps every other frame of the older half when the history is full */
static void thin(hg_history *h) {
  int half = h->n / 2, w = 0;
  for (int k = 0; k < h->n; k++) {
    if (k < half && (k % 2) == 1) {
      hg_frame_free(&h->frame[k]);
      continue;
    }
    h->frame[w++] = h->frame[k];
  }
  h->n = w;
}

hg_frame *hg_history_capture(hg_history *h, hg_sim *sim, const hg_scene *sc) {
  const hg_model *m = hg_sim_model(sim);
  hg_frame f;
  memset(&f, 0, sizeof f);
  f.t = hg_sim_time(sim);
  f.model_version = hg_sim_model_version(sim);
  f.nbody = m->nbody, f.ngeom = m->ngeom, f.njoint = m->nbody - 1;
  f.nmarker = hg_sim_nmarker(sim), f.nforce = hg_sim_nforce(sim), f.npair = hg_sim_npair(sim);
  f.nloop = hg_sim_nloop(sim);
  f.nact = hg_sim_nactuator(sim), f.nctl = hg_sim_ncontroller(sim), f.nsens = hg_sim_nsensor(sim);
  f.ngauge = sc ? sc->ncapture : 0;
  if (frame_alloc(&f)) return hg_frame_free(&f), NULL;
  capture_bodies(h, sim, &f);
  capture_elements(h, sim, sc, &f);
  capture_loops(h, sim, &f);
  capture_control(h, sim, &f);
  capture_sensors(h, sim, &f);
  for (int c = 0; c < f.ngauge; c++) { /* the capture pairs' gauges, for the panels of replays */
    hg_fgauge *g = &f.gauge[c];
    g->a = hg_history_intern(h, sc->capture[c].marker_a);
    g->b = hg_history_intern(h, sc->capture[c].marker_b);
    g->ok = !hg_sim_gauge(sim, sc->capture[c].marker_a, sc->capture[c].marker_b, &g->g);
  }
  capture_events(h, sim);
  f.nevents = h->nevent;
  hg_sim_momentum(sim, f.h);
  hg_sim_get_budget(sim, &f.budget);
  f.energy = f.budget.kinetic + f.budget.potential + f.budget.element;
  hg_sim_stats(sim, &f.stats);
  memcpy(f.gravity, m->gravity, sizeof f.gravity);
  if (h->n > 0 && h->frame[h->n - 1].t == f.t) { /* the same instant: keep the newer state */
    hg_frame_free(&h->frame[h->n - 1]);
    h->n--;
  }
  if (h->n == h->cap) thin(h);
  h->frame[h->n] = f;
  return &h->frame[h->n++];
}

int hg_history_find(const hg_history *h, double time) {
  int lo = 0, hi = h->n - 1;
  if (h->n == 0 || time < h->frame[0].t) return 0;
  while (lo < hi) { /* the last frame with t <= time */
    int mid = (lo + hi + 1) / 2;
    if (h->frame[mid].t <= time) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

void hg_history_init(hg_history *h, int cap) {
  memset(h, 0, sizeof *h);
  h->cap = cap > 4 ? cap : 4;
  h->frame = calloc((size_t)h->cap, sizeof *h->frame);
  if (!h->frame) h->cap = 0;
}

void hg_history_clear(hg_history *h) {
  for (int k = 0; k < h->n; k++) hg_frame_free(&h->frame[k]);
  h->n = 0;
  h->nevent = 0;
}

void hg_history_free(hg_history *h) {
  hg_history_clear(h);
  free(h->frame);
  for (int k = 0; k < h->nstr; k++) free(h->str[k]);
  free(h->str);
  free(h->event);
  memset(h, 0, sizeof *h);
}
