/* scene.c: reading a scene file (docs/scene-format.md): the top level, freeing and lookups.
 * The sections are read by scene_bodies.c, scene_library.c, scene_inertia.c, scene_geometry.c,
 * scene_forces.c, scene_state.c, scene_events.c, scene_loops.c, scene_control.c and scene_run.c,
 * over the typed YAML reads of
 * yaml_doc.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scene_internal.h"

/* the keys of the top-level mapping */
static const char *const top_keys[] = {
    "title",   "description", "gravity", "atmosphere", "bodies",     "urdf", "markers", "forces", "mjcf",
    "initial", "modes",       "events",  "capture",    "integrator", "time", "output",  "loops",
    "actuators", "tanks",     "sensors", "controllers", "noise_seed", "view", NULL};

/* ---- the top level ---- */

int hg_sc_header(hg_sctx *c, const hg_ynode *root) {
  const hg_ynode *an = hg_ydoc_get(&c->doc, root, "atmosphere");
  if (hg_yget_strdup(&c->doc, root, "title", &c->s->title) ||
      hg_yget_strdup(&c->doc, root, "description", &c->s->description) ||
      hg_yget_vec(&c->doc, root, "gravity", 3, c->s->gravity))
    return -1;
  c->s->has_atmosphere = an != NULL;
  return an ? hg_sc_atmosphere(c, an, &c->s->atmosphere) : 0;
}

/* the bodies: written ones, URDF includes, reaction wheels (bodies the actuators add), then the
 * model compiled from them */
static int structure(hg_sctx *c, const hg_ynode *root) {
  const hg_ynode *bn = hg_ydoc_get(&c->doc, root, "bodies"),
                 *un = hg_ydoc_get(&c->doc, root, "urdf");
  const hg_ynode *xn = hg_ydoc_get(&c->doc, root, "mjcf");
  const hg_ynode *mn = hg_ydoc_get(&c->doc, root, "markers");
  const hg_ynode *an = hg_ydoc_get(&c->doc, root, "actuators");
  if ((bn && hg_sc_bodies(c, bn)) || (un && hg_sc_urdf(c, un))) return -1;
  if (xn && hg_sc_mjcf(c, xn)) return -1;
  if (hg_ydoc_len(bn) == 0 && hg_ydoc_len(un) == 0 && hg_ydoc_len(xn) == 0)
    return hg_ydoc_fail(&c->doc, root, "a scene needs at least one body ('bodies', 'urdf' or 'mjcf')");
  if ((an && hg_sc_wheels(c, an)) || hg_sc_compile(c, root) || (mn && hg_sc_markers(c, mn, NULL))) return -1;
  return 0;
}

/* the scene's 'forces' (list may be NULL), then the springs of the MJCF includes (hg_sc_mjcf),
 * which wait in the force list until the scene's own are read; names unique */
static int forces_and_mjcf(hg_sctx *c, const hg_ynode *list) {
  hg_force_spec *inc = c->s->force;
  int ninc = c->s->nforce, rc = 0, nown;
  c->s->force = NULL;
  c->s->nforce = 0;
  if (list) rc = hg_sc_forces(c, list);
  nown = c->s->nforce;
  if (ninc) {
    hg_force_spec *all = realloc(c->s->force, ((size_t)nown + (size_t)ninc) * sizeof *all);
    if (!all) {
      /* the scene frees its own list; the includes' go here */
      free(inc);
      return hg_ydoc_fail(&c->doc, list, "out of memory");
    }
    memcpy(all + nown, inc, (size_t)ninc * sizeof *inc);
    free(inc);
    c->s->force = all;
    c->s->nforce = nown + ninc;
  }
  if (rc) return rc;
  for (int k = nown; k < c->s->nforce; k++)
    for (int i = 0; i < nown; i++)
      if (strcmp(c->s->force[i].name, c->s->force[k].name) == 0)
        return hg_ydoc_fail(&c->doc, list, "force element '%s' is also the spring of an MJCF "
                            "include's joint (line %d): rename it", c->s->force[i].name,
                            c->s->force[k].src.line);
  return 0;
}

/* the scene's 'loops' (list may be NULL), then the loops of the MJCF includes' connect and weld
 * equalities (hg_sc_mjcf), which wait in the loop list until the scene's own are read; names
 * unique among loops */
static void loop_free(hg_loop_spec *L);
static int loops_and_mjcf(hg_sctx *c, const hg_ynode *list) {
  hg_loop_spec *inc = c->s->loop;
  int ninc = c->s->nloop, rc = 0, nown;
  c->s->loop = NULL;
  c->s->nloop = 0;
  if (list) rc = hg_sc_loops(c, list);
  nown = c->s->nloop;
  if (ninc) {
    hg_loop_spec *all = realloc(c->s->loop, ((size_t)nown + (size_t)ninc) * sizeof *all);
    if (!all) {
      for (int k = 0; k < ninc; k++) loop_free(&inc[k]);
      free(inc);
      return hg_ydoc_fail(&c->doc, hg_ydoc_root(&c->doc), "out of memory");
    }
    memcpy(all + nown, inc, (size_t)ninc * sizeof *inc);
    free(inc);
    c->s->loop = all;
    c->s->nloop = nown + ninc;
  }
  if (rc) return rc;
  for (int k = nown; k < c->s->nloop; k++)
    for (int i = 0; i < k; i++)
      if (strcmp(c->s->loop[i].name, c->s->loop[k].name) == 0)
        return hg_ydoc_fail(&c->doc, list ? list : hg_ydoc_root(&c->doc),
                            "loop '%s' is also an MJCF include's equality (line %d): rename it",
                            c->s->loop[i].name, c->s->loop[k].src.line);
  return 0;
}

/* the MJCF includes' joints start at MuJoCo's qpos0 unless the scene's 'initial' gives their q:
 * an entry of the scene's that gives only v takes the include's q; the others are appended */
static int initial_mjcf(hg_sctx *c) {
  for (int k = 0; k < c->nmjcf_q0; k++) {
    hg_joint_init_spec *q0 = &c->mjcf_q0[k], *given = NULL;
    for (int i = 0; i < c->s->njinit; i++)
      if (strcmp(c->s->jinit[i].joint, q0->joint) == 0) given = &c->s->jinit[i];
    if (given) {
      if (!given->has_q) memcpy(given->q, q0->q, sizeof given->q), given->has_q = 1;
      continue;
    }
    hg_joint_init_spec *grown = realloc(c->s->jinit, ((size_t)c->s->njinit + 1) * sizeof *grown);
    if (!grown) return hg_ydoc_fail(&c->doc, hg_ydoc_root(&c->doc), "out of memory");
    c->s->jinit = grown;
    grown[c->s->njinit++] = *q0;
    q0->joint = NULL; /* the scene owns it now */
  }
  return 0;
}

/* the scene's 'actuators' (list may be NULL), then the motors of the MJCF includes
 * (hg_sc_mjcf), which wait in the actuator list until the scene's own are read; names unique
 * among actuators */
static int actuators_and_mjcf(hg_sctx *c, const hg_ynode *list) {
  hg_actuator_spec *inc = c->s->actuator;
  int ninc = c->s->nactuator, rc = 0, nown;
  c->s->actuator = NULL;
  c->s->nactuator = 0;
  if (list) rc = hg_sc_actuators(c, list);
  nown = c->s->nactuator;
  if (ninc) {
    hg_actuator_spec *all = realloc(c->s->actuator, ((size_t)nown + (size_t)ninc) * sizeof *all);
    if (!all) {
      free(inc); /* (out of memory: the strings of the includes' motors are lost) */
      return hg_ydoc_fail(&c->doc, hg_ydoc_root(&c->doc), "out of memory");
    }
    memcpy(all + nown, inc, (size_t)ninc * sizeof *inc);
    free(inc);
    c->s->actuator = all;
    c->s->nactuator = nown + ninc;
  }
  if (rc) return rc;
  for (int k = nown; k < c->s->nactuator; k++)
    for (int i = 0; i < k; i++)
      if (strcmp(c->s->actuator[i].name, c->s->actuator[k].name) == 0)
        return hg_ydoc_fail(&c->doc, list ? list : hg_ydoc_root(&c->doc),
                            "actuator '%s' is also an MJCF include's motor (line %d): rename it",
                            c->s->actuator[i].name, c->s->actuator[k].src.line);
  return 0;
}

/* every section, in an order where each one's names are known before they are referred to */
static int read_scene(hg_sctx *c) {
  const hg_ynode *root = hg_ydoc_root(&c->doc);
  const hg_ynode *fn, *in, *mn, *cn, *en, *ln, *tn, *an, *sn, *kn;
  if (hg_ydoc_check_keys(&c->doc, root, "the scene", top_keys) || hg_sc_header(c, root) ||
      structure(c, root))
    return -1;
  fn = hg_ydoc_get(&c->doc, root, "forces");
  in = hg_ydoc_get(&c->doc, root, "initial");
  mn = hg_ydoc_get(&c->doc, root, "modes");
  cn = hg_ydoc_get(&c->doc, root, "capture");
  en = hg_ydoc_get(&c->doc, root, "events");
  ln = hg_ydoc_get(&c->doc, root, "loops");
  if (forces_and_mjcf(c, fn) || (in && hg_sc_initial(c, in)) || initial_mjcf(c) ||
      (mn && hg_sc_modes(c, mn)) ||
      (cn && hg_sc_capture(c, cn)) || hg_sc_run(c, root) || hg_sc_docks(c, en) ||
      loops_and_mjcf(c, ln))
    return -1;
  /* control: tanks before the thrusters that draw from them, sensors and actuators before the
   * controllers that name them, all before the events that act on them */
  tn = hg_ydoc_get(&c->doc, root, "tanks");
  an = hg_ydoc_get(&c->doc, root, "actuators");
  sn = hg_ydoc_get(&c->doc, root, "sensors");
  kn = hg_ydoc_get(&c->doc, root, "controllers");
  if (hg_sc_noise_seed(c, root) || (tn && hg_sc_tanks(c, tn)) || actuators_and_mjcf(c, an) ||
      (sn && hg_sc_sensors(c, sn)) || (kn && hg_sc_controllers(c, kn)))
    return -1;
  if (en && hg_sc_events(c, en)) return -1;
  const hg_ynode *vn = hg_ydoc_get(&c->doc, root, "view");
  if (vn && hg_sc_view(c, vn)) return -1;
  hg_sc_contact_notes(c, stderr);
  return 0;
}

/* ---- load ---- */

/* an empty scene with the defaults */
static hg_scene *scene_new(const char *path) {
  hg_scene *s = calloc(1, sizeof *s);
  if (!s) return NULL;
  s->path = hg_strdup(path);
  s->builder = hg_builder_new();
  s->gravity[2] = -9.81;
  hg_integ_default_options(&s->integ, HG_INTEG_CVODE_ADAMS);
  s->t_start = 0;
  s->t_end = 10;
  s->output.dt = 0.01;
  s->output.plots = 1;
  s->noise_seed = 1;
  s->view.up[2] = 1, s->view.fovy = 45;
  if (s->path && s->builder && !hg_sc_add_input(s, path)) return s;
  hg_scene_free(s);
  return NULL;
}

/* the folder of a path with its trailing '/', or "" */
static char *folder_of(const char *path) {
  const char *slash = strrchr(path, '/');
  size_t n = slash ? (size_t)(slash - path) + 1 : 0;
  char *dir = malloc(n + 1);
  if (!dir) return NULL;
  memcpy(dir, path, n);
  dir[n] = 0;
  return dir;
}

/* the name tables move from the reader to the scene (commands.c reads them later) */
static int keep_names(hg_sctx *c) {
  struct hg_scene_names *n = calloc(1, sizeof *n);
  if (!n) return -1;
  n->m = c->m, n->absent = c->absent, n->ndock = c->ndock, n->dock = c->dock;
  c->m = NULL, c->absent = NULL, c->ndock = 0, c->dock = NULL;
  c->s->names = n;
  return 0;
}

static void names_free(struct hg_scene_names *n) {
  if (!n) return;
  hg_model_free(n->m);
  for (int k = 0; k < n->ndock; k++) free(n->dock[k]);
  free(n->dock);
  free(n->absent);
  free(n);
}

/* what the reader kept besides the scene */
static void context_free(hg_sctx *c) {
  hg_model_free(c->m);
  for (int k = 0; k < c->ndock; k++) free(c->dock[k]);
  free(c->dock);
  free(c->absent);
  free(c->body);
  hg_names_free(&c->body_index);
  free(c->ref);
  free(c->dir);
  for (int k = 0; k < c->nmjcf_q0; k++) free(c->mjcf_q0[k].joint);
  free(c->mjcf_q0);
  hg_ydoc_free(&c->doc);
}

/* the numeric scalar at path of the document, or NULL with err "PATH: 'path': why" */
static hg_ynode *number_at(hg_ydoc *d, const char *path, double *value, hg_error *err) {
  char why[512];
  hg_ynode *n = hg_ydoc_at(d, hg_ydoc_root(d), path, why, sizeof why);
  if (!n) return hg_error_set(err, "%s: '%s': %s", d->path, path, why), NULL;
  hg_error *keep = d->err;
  d->err = NULL; /* the scene's own message would name only the scene */
  int bad = hg_ydoc_number(d, n, "", 0, value);
  d->err = keep;
  if (bad) {
    int line, col;
    hg_ydoc_where(n, &line, &col);
    hg_error_set(err, "%s: '%s' is not a number (%s:%d)", d->path, path, d->path, line);
    return NULL;
  }
  return n;
}

/* writes each override's value over its scalar */
static int apply_overrides(hg_ydoc *d, const hg_scene_override *ov, int nov, hg_error *err) {
  for (int k = 0; k < nov; k++) {
    double nominal;
    char text[64];
    hg_ynode *n = number_at(d, ov[k].path, &nominal, err);
    if (!n) return -1;
    snprintf(text, sizeof text, "%.17g", ov[k].value);
    if (hg_ydoc_set_text(d, n, text)) return hg_error_set(err, "%s: out of memory", d->path), -1;
  }
  return 0;
}

/* a scene from the file at path (text NULL) or from len bytes of text named path */
static hg_scene *load(const char *path, const char *text, size_t len, const hg_scene_override *ov,
                      int nov, hg_error *err) {
  hg_sctx c;
  int rc;
  memset(&c, 0, sizeof c);
  c.s = scene_new(path);
  c.dir = folder_of(path);
  if (!c.s || !c.dir) {
    hg_error_set(err, "%s: out of memory", path);
    hg_scene_free(c.s);
    free(c.dir);
    return NULL;
  }
  rc = text ? hg_ydoc_load_text(&c.doc, text, len, path, err) : hg_ydoc_load(&c.doc, path, err);
  c.s->input[0].hash = c.doc.hash; /* the scene's own hash: of the bytes parsed */
  if (rc == 0) rc = apply_overrides(&c.doc, ov, nov, err);
  if (rc == 0) rc = read_scene(&c);
  if (rc == 0 && (keep_names(&c) || hg_sc_model_inputs(c.s, c.s->names->m))) {
    hg_error_set(err, "%s: out of memory", path);
    rc = -1;
  }
  if (rc == 0 && !text) rc = hg_scene_hash_inputs(c.s, err);
  context_free(&c);
  if (rc == 0) return c.s;
  hg_scene_free(c.s);
  return NULL;
}

hg_scene *hg_scene_load_overrides(const char *path, const hg_scene_override *ov, int nov,
                                  hg_error *err) {
  return load(path, NULL, 0, ov, nov, err);
}

hg_scene *hg_scene_load_text(const char *path, const char *text, size_t len,
                             const hg_scene_override *ov, int nov, hg_error *err) {
  return load(path, text, len, ov, nov, err);
}

hg_scene *hg_scene_load(const char *path, hg_error *err) {
  return hg_scene_load_overrides(path, NULL, 0, err);
}

int hg_scene_value(const char *path, const char *value_path, double *value, hg_error *err) {
  hg_ydoc d;
  memset(&d, 0, sizeof d);
  int rc = hg_ydoc_load(&d, path, err);
  if (rc == 0 && !number_at(&d, value_path, value, err)) rc = -1;
  hg_ydoc_free(&d);
  return rc;
}

/* ---- free ---- */

/* the strings and arrays of one force element */
static void force_free(hg_force_spec *f) {
  free(f->name);
  free(f->joint);
  free(f->rest);
  free(f->marker_a);
  free(f->marker_b);
  free(f->body);
  free(f->marker);
  for (int k = 0; k < 2; k++) {
    for (int j = 0; j < f->nside[k]; j++) free(f->side[k][j]);
    free(f->side[k]);
  }
  for (int j = 0; j < 2 * f->nexclude; j++) free(f->exclude[j]);
  free(f->exclude);
}

void hg_action_free(hg_action *a) {
  free(a->joint);
  hg_sc_free_mode(&a->mode);
  free(a->force);
  free(a->body);
  free(a->marker_a);
  free(a->marker_b);
  free(a->frame);
  free(a->loop);
  free(a->device);
  free(a->param);
  free(a->values);
  memset(a, 0, sizeof *a);
}

/* a malloc'd copy of n doubles into *dst (NULL for none); 0 or -1 */
static int copy_doubles(double **dst, const double *src, size_t n) {
  *dst = NULL;
  if (!src || n == 0) return 0;
  *dst = malloc(n * sizeof(double));
  if (!*dst) return -1;
  memcpy(*dst, src, n * sizeof(double));
  return 0;
}

int hg_action_copy(hg_action *d, const hg_action *a) {
  const hg_profile_spec *p = &a->mode.profile;
  size_t ns = (size_t)(p->nsamples > 0 ? p->nsamples : 0);
  *d = *a;
  d->joint = hg_strdup(a->joint);
  d->mode.joint = hg_strdup(a->mode.joint);
  d->force = hg_strdup(a->force);
  d->body = hg_strdup(a->body);
  d->marker_a = hg_strdup(a->marker_a);
  d->marker_b = hg_strdup(a->marker_b);
  d->frame = hg_strdup(a->frame);
  d->loop = hg_strdup(a->loop);
  d->device = hg_strdup(a->device);
  d->param = hg_strdup(a->param);
  /* (each copy_doubles runs, so that no pointer of a is left in d to be freed twice) */
  int bad = copy_doubles(&d->values, a->values, (size_t)(a->nvalue > 0 ? a->nvalue : 0));
  bad |= copy_doubles(&d->mode.profile.times, p->times, ns);
  bad |= copy_doubles(&d->mode.profile.samples, p->samples, ns * (size_t)(p->sample_width > 0 ? p->sample_width : 0));
  if (!bad && (!a->joint || d->joint) && (!a->mode.joint || d->mode.joint) &&
      (!a->force || d->force) && (!a->body || d->body) && (!a->marker_a || d->marker_a) &&
      (!a->marker_b || d->marker_b) && (!a->frame || d->frame) && (!a->loop || d->loop) && (!a->device || d->device) &&
      (!a->param || d->param))
    return 0;
  hg_action_free(d);
  return -1;
}

/* the strings and arrays of one event and its actions */
static void event_free(hg_event_spec *e) {
  for (int k = 0; k < e->naction; k++) hg_action_free(&e->action[k]);
  free(e->action);
  for (int s = 0; s < 2; s++) {
    for (int k = 0; k < e->nset[s]; k++) free(e->set[s][k]);
    free(e->set[s]);
  }
  free(e->name);
  free(e->marker_a);
  free(e->marker_b);
  free(e->joint);
  free(e->body);
}

/* the strings of one loop */
static void loop_free(hg_loop_spec *L) {
  free(L->name);
  for (int k = 0; k < 2; k++) {
    free(L->marker[k]);
    free(L->joint[k]);
  }
}

/* markers, initial state, captures and output pairs */
static void small_parts_free(hg_scene *s) {
  for (int k = 0; k < s->nmarker; k++) {
    free(s->marker[k].name);
    free(s->marker[k].body);
    free(s->marker[k].port);
  }
  for (int k = 0; k < s->njinit; k++) free(s->jinit[k].joint);
  for (int k = 0; k < s->nbinit; k++) free(s->binit[k].body);
  for (int k = 0; k < s->ncapture; k++) {
    free(s->capture[k].marker_a);
    free(s->capture[k].marker_b);
    free(s->capture[k].joint);
  }
  for (int k = 0; k < s->view.ntrack; k++) free(s->view.track[k]);
  free(s->view.track);
  for (int k = 0; k < s->output.npair; k++) {
    free(s->output.pair[k].body_a);
    free(s->output.pair[k].body_b);
  }
  free(s->marker);
  free(s->jinit);
  free(s->binit);
  free(s->capture);
  free(s->output.pair);
}

void hg_scene_free(hg_scene *s) {
  if (!s) return;
  small_parts_free(s);
  for (int k = 0; k < s->nforce; k++) force_free(&s->force[k]);
  for (int k = 0; k < s->nmode; k++) hg_sc_free_mode(&s->mode[k]);
  for (int k = 0; k < s->nevent; k++) event_free(&s->event[k]);
  for (int k = 0; k < s->nloop; k++) loop_free(&s->loop[k]);
  hg_sc_free_control(s);
  free(s->loop);
  free(s->force);
  free(s->mode);
  free(s->event);
  hg_builder_free(s->builder);
  names_free(s->names);
  hg_sc_free_library(&s->library);
  hg_sc_free_inputs(s);
  free(s->title);
  free(s->description);
  free(s->path);
  free(s);
}
