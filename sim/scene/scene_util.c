/* scene_util.c: reads the scene sections share: poses, ranges, files and name references. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "scene_internal.h"

hg_src hg_sc_src(const hg_sctx *c, const hg_ynode *n) {
  hg_src s = {c->src_path ? c->src_path : c->s->path, 1, 1};
  hg_ydoc_where(n, &s.line, &s.column);
  return s;
}

/* ---- poses ---- */

int hg_sc_unit_quat(hg_sctx *c, const hg_ynode *n, double q[4]) {
  double norm = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  if (!(norm > 1e-9)) return hg_ydoc_fail(&c->doc, n, "a quaternion (w, x, y, z) must not be zero");
  for (int k = 0; k < 4; k++) q[k] /= norm;
  return 0;
}

/* the one orientation key given among quat, rpy and rpy_deg (NULL: none); -1 when two are */
static int orientation_key(hg_sctx *c, const hg_ynode *map, const char **which) {
  static const char *const keys[] = {"quat", "rpy", "rpy_deg"};
  *which = NULL;
  for (int k = 0; k < 3; k++) {
    const hg_ynode *key = hg_ydoc_key(&c->doc, map, keys[k]);
    if (!key) continue;
    if (*which)
      return hg_ydoc_fail(&c->doc, key,
                          "give one of 'quat', 'rpy' and 'rpy_deg', not both '%s' and '%s'", *which,
                          keys[k]);
    *which = keys[k];
  }
  return 0;
}

int hg_sc_pose(hg_sctx *c, const hg_ynode *map, hg_se3 *T) {
  const char *which;
  double v[4];
  hg_se3_identity(T);
  if (hg_yget_vec(&c->doc, map, "pos", 3, T->p) ||
      hg_sc_bounded(c, hg_ydoc_get(&c->doc, map, "pos"), "position", T->p, 3, HG_SC_MAX_LENGTH,
                    "m") ||
      orientation_key(c, map, &which))
    return -1;
  if (!which) return 0;
  if (strcmp(which, "quat") == 0) {
    if (hg_yget_vec(&c->doc, map, "quat", 4, v) ||
        hg_sc_unit_quat(c, hg_ydoc_get(&c->doc, map, "quat"), v))
      return -1;
    hg_quat_to_R(v, T->R);
    return 0;
  }
  if (hg_yget_vec(&c->doc, map, which, 3, v)) return -1;
  if (strcmp(which, "rpy_deg") == 0)
    for (int k = 0; k < 3; k++) v[k] *= HG_SC_PI / 180;
  hg_rpy_to_R(v, T->R);
  return 0;
}

/* ---- values ---- */

int hg_sc_bounded(hg_sctx *c, const hg_ynode *n, const char *what, const double *x, int count,
                  double limit, const char *unit) {
  for (int k = 0; k < count; k++)
    if (!(fabs(x[k]) <= limit))
      return hg_ydoc_fail(&c->doc, n, "%s %g %s is beyond the %g %s a scene may give", what, x[k],
                          unit, limit, unit);
  return 0;
}

int hg_sc_positive(hg_sctx *c, const hg_ynode *map, const char *key, double *out) {
  double x = *out;
  if (hg_yget_number(&c->doc, map, key, &x)) return -1;
  if (!(x > 0))
    return hg_ydoc_fail(&c->doc, hg_ydoc_get(&c->doc, map, key), "'%s' must be positive, got %g",
                        key, x);
  *out = x;
  return 0;
}

int hg_sc_nonneg(hg_sctx *c, const hg_ynode *map, const char *key, double *out) {
  double x = *out;
  if (hg_yget_number(&c->doc, map, key, &x)) return -1;
  if (!(x >= 0))
    return hg_ydoc_fail(&c->doc, hg_ydoc_get(&c->doc, map, key),
                        "'%s' must be zero or positive, got %g", key, x);
  *out = x;
  return 0;
}

const hg_ynode *hg_sc_required(hg_sctx *c, const hg_ynode *map, const char *key, const char *what) {
  if (hg_ydoc_require(&c->doc, map, key, what)) return NULL;
  return hg_ydoc_get(&c->doc, map, key);
}

int hg_sc_strdup(hg_sctx *c, const hg_ynode *n, const char *str, char **out) {
  *out = hg_strdup(str);
  return *out || !str ? 0 : hg_ydoc_fail(&c->doc, n, "out of memory");
}

int hg_sc_alloc(hg_sctx *c, const hg_ynode *node, int n, size_t size, void **out) {
  *out = n > 0 ? calloc((size_t)n, size) : NULL;
  return *out || n <= 0 ? 0 : hg_ydoc_fail(&c->doc, node, "out of memory");
}

int hg_sc_seq(hg_sctx *c, const hg_ynode *list, const char *what, size_t size, void **items,
              int *count, int (*read)(hg_sctx *c, const hg_ynode *n, int k)) {
  int n = hg_ydoc_len(list);
  if (hg_ydoc_expect_seq(&c->doc, list, what) || hg_sc_alloc(c, list, n, size, items)) return -1;
  for (int k = 0; k < n; k++) {
    *count = k + 1;
    if (read(c, hg_ydoc_item(&c->doc, list, k), k)) return -1;
  }
  return 0;
}

/* ---- files ---- */

/* 1 when path opens and reads (a folder opens but does not read); a device, FIFO or socket
 * counts as found without being opened (a FIFO's open waits for a writer): the reader it is
 * given refuses it as no regular file (readfile.h) */
static int readable(const char *path) {
  struct stat st;
  if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) return 1;
  FILE *f = fopen(path, "rb");
  int ok;
  if (!f) return 0;
  ok = getc(f) != EOF || !ferror(f);
  fclose(f);
  return ok;
}

/* malloc'd dir + up times "../" + file */
static char *candidate(const char *dir, int up, const char *file) {
  size_t n = strlen(dir) + 3 * (size_t)up + strlen(file) + 1;
  char *s = malloc(n);
  if (!s) return NULL;
  strcpy(s, dir);
  for (int k = 0; k < up; k++) strcat(s, "../");
  strcat(s, file);
  return s;
}

char *hg_sc_resolve(hg_sctx *c, const hg_ynode *n, const char *file) {
  int absolute = file[0] == '/', levels = absolute ? 1 : HG_SC_SEARCH_UP + 1;
  for (int up = 0; up < levels; up++) {
    char *path = candidate(absolute ? "" : c->dir, up, file);
    if (!path) {
      hg_ydoc_fail(&c->doc, n, "out of memory");
      return NULL;
    }
    if (readable(path)) {
      /* every file a scene names is found here: the one place its inputs are collected */
      if (!hg_sc_add_input(c->s, path)) return path;
      free(path);
      hg_ydoc_fail(&c->doc, n, "out of memory");
      return NULL;
    }
    free(path);
  }
  if (absolute)
    hg_ydoc_fail(&c->doc, n, "cannot open '%s'", file);
  else
    hg_ydoc_fail(&c->doc, n, "cannot open '%s' (looked in '%s' and the folders above it)", file,
                 c->dir[0] ? c->dir : "./");
  return NULL;
}

/* ---- name references ---- */

const char *hg_sc_body_name_of(const void *items, int i) {
  return ((const hg_sc_body *)items)[i].name;
}

int hg_sc_body_index(const hg_sctx *c, const char *name) {
  return hg_names_find(&c->body_index, hg_sc_body_name_of, c->body, name);
}

int hg_sc_unknown(hg_sctx *c, const hg_ynode *n, const char *kind, const char *name,
                  const char *const *cand, int ncand) {
  const char *near = hg_ydoc_suggest(name, cand, ncand);
  if (near)
    return hg_ydoc_fail(&c->doc, n, "unknown %s '%s' (did you mean '%s'?)", kind, name, near);
  return hg_ydoc_fail(&c->doc, n, "unknown %s '%s'", kind, name);
}

int hg_sc_body_ref(hg_sctx *c, const hg_ynode *n, const char *what, const char **name, int *index) {
  const hg_model *m = c->m;
  int i;
  if (hg_ydoc_name(&c->doc, n, what, name)) return -1;
  i = hg_model_body(m, *name);
  if (i == 0) return hg_ydoc_fail(&c->doc, n, "%s must be a body, not the world", what);
  if (i < 0)
    return hg_sc_unknown(c, n, "body", *name, (const char *const *)m->body_name + 1, m->nbody - 1);
  if (index) *index = i;
  return 0;
}

/* the joint names of the model (without the world's) followed by the docking joints; malloc'd */
static const char **joint_names(const hg_sctx *c, int *n) {
  const char **names = malloc(((size_t)c->m->nbody + (size_t)c->ndock) * sizeof *names);
  *n = 0;
  if (!names) return NULL;
  for (int i = 1; i < c->m->nbody; i++) names[(*n)++] = c->m->jnt_name[i];
  for (int k = 0; k < c->ndock; k++) names[(*n)++] = c->dock[k];
  return names;
}

int hg_sc_joint_ref(hg_sctx *c, const hg_ynode *n, const char *what, const char **name,
                    hg_joint *jnt) {
  const char *why;
  int i, nnames;
  if (hg_ydoc_name(&c->doc, n, what, name)) return -1;
  i = hg_model_joint(c->m, *name);
  if (i >= 1) {
    *jnt = c->m->jnt[i];
    return 0;
  }
  for (int k = 0; k < c->ndock; k++)
    if (strcmp(c->dock[k], *name) == 0)
      return hg_joint_init(jnt, HG_JOINT_FREE, NULL, NULL, 0, &why);
  const char **names = joint_names(c, &nnames);
  hg_sc_unknown(c, n, "joint", *name, names, names ? nnames : 0);
  free(names);
  return -1;
}

int hg_sc_marker_ref(hg_sctx *c, const hg_ynode *n, const char *what, const hg_marker **mk) {
  const char *name, **names;
  if (hg_ydoc_name(&c->doc, n, what, &name)) return -1;
  *mk = hg_scene_marker(c->s, name);
  if (*mk) return 0;
  names = malloc(((size_t)c->s->nmarker + 1) * sizeof *names);
  for (int k = 0; names && k < c->s->nmarker; k++) names[k] = c->s->marker[k].name;
  hg_sc_unknown(c, n, "marker", name, names, names ? c->s->nmarker : 0);
  free(names);
  return -1;
}

int hg_sc_force_ref(hg_sctx *c, const hg_ynode *n, const char *what, const char **name) {
  const char **names;
  if (hg_ydoc_name(&c->doc, n, what, name)) return -1;
  if (hg_scene_force(c->s, *name)) return 0;
  names = malloc(((size_t)c->s->nforce + 1) * sizeof *names);
  for (int k = 0; names && k < c->s->nforce; k++) names[k] = c->s->force[k].name;
  hg_sc_unknown(c, n, "force element", *name, names, names ? c->s->nforce : 0);
  free(names);
  return -1;
}

/* ---- joint configurations ---- */

/* -1 with an error at n unless each length (m) and speed (m/s) of joint entries x (configuration:
 * what = 0, rates: what = 1) is within the scene's bounds */
static int joint_entries_bounded(hg_sctx *c, const hg_ynode *n, hg_joint_type type, int what,
                                 const double *x, int count) {
  for (int k = 0; k < count; k++) {
    const char *unit = "";
    hg_joint_entry_name(type, what, k, &unit);
    if (unit && !strcmp(unit, "m") && hg_sc_bounded(c, n, "position", x + k, 1, HG_SC_MAX_LENGTH, "m"))
      return -1;
    if (unit && !strcmp(unit, "m/s") && hg_sc_bounded(c, n, "speed", x + k, 1, HG_SC_MAX_SPEED, "m/s"))
      return -1;
    if (unit && !strcmp(unit, "rad/s") &&
        hg_sc_bounded(c, n, "angular rate", x + k, 1, HG_SC_MAX_RATE, "rad/s"))
      return -1;
  }
  return 0;
}

int hg_sc_joint_v(hg_sctx *c, const hg_ynode *n, const char *what, const hg_joint *j, double *v) {
  int nv = hg_joint_nv(j->type);
  if (hg_ydoc_numbers(&c->doc, n, what, nv, v, NULL)) return -1;
  return joint_entries_bounded(c, n, j->type, 1, v, nv);
}

int hg_sc_twist(hg_sctx *c, const hg_ynode *map, double twist[6]) {
  const hg_ynode *n = hg_ydoc_get(&c->doc, map, "twist");
  if (hg_yget_vec(&c->doc, map, "twist", 6, twist)) return -1;
  return n && (hg_sc_bounded(c, n, "angular rate", twist, 3, HG_SC_MAX_RATE, "rad/s") ||
               hg_sc_bounded(c, n, "speed", twist + 3, 3, HG_SC_MAX_SPEED, "m/s"))
             ? -1
             : 0;
}

int hg_sc_joint_q(hg_sctx *c, const hg_ynode *n, const char *what, const hg_joint *j, double *q) {
  int nq = hg_joint_nq(j->type);
  if (nq == 0) return hg_ydoc_fail(&c->doc, n, "%s: a fixed joint has no configuration", what);
  if (hg_ydoc_numbers(&c->doc, n, what, nq, q, NULL) ||
      joint_entries_bounded(c, n, j->type, 0, q, nq))
    return -1;
  if (j->type == HG_JOINT_SPHERICAL) return hg_sc_unit_quat(c, n, q);
  if (j->type == HG_JOINT_FREE) return hg_sc_unit_quat(c, n, q + 3);
  return 0;
}
