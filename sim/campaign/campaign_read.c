/* campaign_read.c: reading a campaign file (docs/montecarlo.md) over the scene reader's typed
 * YAML reads, so that its errors read like the scene's: file:line:column and did-you-mean. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "campaign.h"
#include "scene.h"
#include "spatial.h"
#include "yaml_doc.h"

static const char *const top_keys[] = {"scene",   "runs",     "seed",  "t_end",  "max_wall",
                                       "dispersions", "metrics", "failures", NULL};
static const char *const disp_keys[] = {"path", "normal", "uniform", "list", "rotation", NULL};
static const char *const rotation_keys[] = {"std_deg", NULL};
static const char *const normal_keys[] = {"mean", "std", "min", "max", NULL};
static const char *const uniform_keys[] = {"min", "max", NULL};
static const char *const metric_keys[] = {"name",        "min_distance", "event_time",
                                          "event_count", "final_rate",   "final_speed",
                                          "peak_load",   "energy_drift", "min_clearance",
                                          "rate",        "pointing_error",
                                          "after",       "delay",       NULL};
static const char *const fail_keys[] = {"name", "metric", "below", "above", NULL};

static char *dupstr(const char *s) {
  size_t n = strlen(s) + 1;
  char *p = malloc(n);
  return p ? memcpy(p, s, n) : NULL;
}

/* the nominal orientation of the mapping at target: its quat, rpy or rpy_deg; 0 or -1 */
static int nominal_orientation(hg_ydoc *d, const hg_ynode *at, const char *scene,
                               hg_dispersion *p) {
  static const char *const forms[] = {"quat", "rpy", "rpy_deg"};
  char path[600];
  double v[4];
  hg_error serr;
  for (int f = 0; f < 3; f++) {
    int n = f == 0 ? 4 : 3, k = 0;
    for (; k < n; k++) {
      snprintf(path, sizeof path, "%s.%s.%d", p->target, forms[f], k);
      if (hg_scene_value(scene, path, &v[k], &serr)) break;
    }
    if (k == 0) continue;
    if (k < n) return hg_ydoc_fail(d, at, "%s", serr.msg);
    p->nopath = n, p->degrees = f == 2;
    for (k = 0; k < n; k++) {
      snprintf(path, sizeof path, "%s.%s.%d", p->target, forms[f], k);
      if (!(p->opath[k] = dupstr(path))) return hg_ydoc_fail(d, at, "out of memory");
    }
    if (f == 0) hg_quat_to_R(v, p->R0);
    else {
      for (k = 0; k < 3 && f == 2; k++) v[k] *= 3.14159265358979323846 / 180;
      hg_rpy_to_R(v, p->R0);
    }
    return 0;
  }
  return hg_ydoc_fail(d, at, "'%s' of %s holds no orientation to disperse: write its nominal one "
                             "(quat, rpy or rpy_deg, e.g. rpy_deg: [0, 0, 0])", p->target, scene);
}

/* a rotation: three dispersions (the rotation vector's components) at c->disp[c->ndisp..] */
static int read_rotation(hg_ydoc *d, const hg_ynode *n, const hg_ynode *rn, hg_campaign *c,
                         const char *target) {
  double std = 0;
  static const char *const axis[3] = {"rot_x_deg", "rot_y_deg", "rot_z_deg"};
  if (hg_ydoc_check_keys(d, rn, "'rotation'", rotation_keys) ||
      hg_ydoc_require(d, rn, "std_deg", "'rotation'") || hg_yget_number(d, rn, "std_deg", &std))
    return -1;
  if (!(std >= 0)) return hg_ydoc_fail(d, rn, "'std_deg' must be >= 0");
  for (int a = 0; a < 3; a++) {
    hg_dispersion *p = &c->disp[c->ndisp + a];
    char name[600];
    snprintf(name, sizeof name, "%s.%s", target, axis[a]);
    p->kind = HG_DIST_ROTATION, p->axis = a, p->std = std, p->lo = -INFINITY, p->hi = INFINITY;
    if (!(p->path = dupstr(name)) || !(p->target = dupstr(target)))
      return hg_ydoc_fail(d, n, "out of memory");
    if (a == 0 && nominal_orientation(d, hg_ydoc_get(d, n, "path"), c->scene, p)) return -1;
    if (a > 0) {
      memcpy(p->R0, c->disp[c->ndisp].R0, sizeof p->R0);
      p->nopath = c->disp[c->ndisp].nopath, p->degrees = c->disp[c->ndisp].degrees;
    }
  }
  c->ndisp += 2; /* the caller counts the first */
  return 0;
}

/* one dispersion: its path checked against the scene and its distribution */
static int read_disp(hg_ydoc *d, const hg_ynode *n, hg_campaign *c, hg_dispersion *p) {
  const char *path;
  hg_error serr;
  if (hg_ydoc_check_keys(d, n, "dispersion", disp_keys) ||
      hg_ydoc_require(d, n, "path", "dispersion") ||
      hg_yget_name(d, n, "path", &path))
    return -1;
  const hg_ynode *rn = hg_ydoc_get(d, n, "rotation");
  if (rn && (hg_ydoc_get(d, n, "normal") || hg_ydoc_get(d, n, "uniform") ||
             hg_ydoc_get(d, n, "list")))
    return hg_ydoc_fail(d, n, "a dispersion needs exactly one of 'normal', 'uniform', 'list', "
                              "'rotation'");
  if (rn) return read_rotation(d, n, rn, c, path);
  if (!(p->path = dupstr(path))) return hg_ydoc_fail(d, n, "out of memory");
  if (hg_scene_value(c->scene, path, &p->nominal, &serr))
    return hg_ydoc_fail(d, hg_ydoc_get(d, n, "path"), "%s", serr.msg);
  const hg_ynode *nn = hg_ydoc_get(d, n, "normal"), *un = hg_ydoc_get(d, n, "uniform"),
                 *ln = hg_ydoc_get(d, n, "list");
  if ((nn != NULL) + (un != NULL) + (ln != NULL) != 1)
    return hg_ydoc_fail(d, n, "a dispersion needs exactly one of 'normal', 'uniform', 'list', "
                              "'rotation'");
  p->lo = -INFINITY, p->hi = INFINITY;
  if (nn) {
    p->kind = HG_DIST_NORMAL;
    p->mean = p->nominal;
    if (hg_ydoc_check_keys(d, nn, "'normal'", normal_keys) ||
        hg_ydoc_require(d, nn, "std", "'normal'") || hg_yget_number(d, nn, "mean", &p->mean) ||
        hg_yget_number(d, nn, "std", &p->std) || hg_yget_number(d, nn, "min", &p->lo) ||
        hg_yget_number(d, nn, "max", &p->hi))
      return -1;
    if (!(p->std >= 0)) return hg_ydoc_fail(d, hg_ydoc_get(d, nn, "std"), "'std' must be >= 0");
    if (!(p->lo < p->hi) || p->mean < p->lo || p->mean > p->hi)
      return hg_ydoc_fail(d, nn, "the truncation needs min < mean < max");
  } else if (un) {
    p->kind = HG_DIST_UNIFORM;
    if (hg_ydoc_check_keys(d, un, "'uniform'", uniform_keys) ||
        hg_ydoc_require(d, un, "min", "'uniform'") || hg_ydoc_require(d, un, "max", "'uniform'") ||
        hg_yget_number(d, un, "min", &p->lo) || hg_yget_number(d, un, "max", &p->hi))
      return -1;
    if (!(p->lo < p->hi)) return hg_ydoc_fail(d, un, "'uniform' needs min < max");
  } else {
    p->kind = HG_DIST_LIST;
    if (hg_ydoc_expect_seq(d, ln, "'list'")) return -1;
    p->nlist = hg_ydoc_len(ln);
    if (p->nlist < 1) return hg_ydoc_fail(d, ln, "'list' needs at least one value");
    if (!(p->list = calloc((size_t)p->nlist, sizeof(double))))
      return hg_ydoc_fail(d, ln, "out of memory");
    for (int k = 0; k < p->nlist; k++)
      if (hg_ydoc_number(d, hg_ydoc_item(d, ln, k), "a list value", 0, &p->list[k])) return -1;
  }
  return 0;
}

/* one metric: its name and one kind key */
static int read_metric(hg_ydoc *d, const hg_ynode *n, hg_metric *m) {
  static const char *const kinds[] = {"min_distance", "event_time",   "event_count",
                                      "final_rate",   "final_speed",  "peak_load",
                                      "energy_drift", "min_clearance", "rate",
                                      "pointing_error"};
  const char *name;
  if (hg_ydoc_check_keys(d, n, "metric", metric_keys) || hg_ydoc_require(d, n, "name", "metric") ||
      hg_yget_name(d, n, "name", &name))
    return -1;
  if (!(m->name = dupstr(name))) return hg_ydoc_fail(d, n, "out of memory");
  int found = -1;
  for (int k = 0; k < 10; k++)
    if (hg_ydoc_get(d, n, kinds[k])) {
      if (found >= 0) return hg_ydoc_fail(d, n, "a metric needs exactly one kind");
      found = k;
    }
  if (found < 0)
    return hg_ydoc_fail(d, n, "metric '%s' needs one of min_distance, min_clearance, event_time, "
                              "event_count, rate, final_rate, final_speed, peak_load, "
                              "pointing_error, energy_drift", name);
  m->kind = (hg_metric_kind)found;
  const char *after = NULL;
  if (hg_yget_name(d, n, "after", &after) || hg_yget_number(d, n, "delay", &m->delay)) return -1;
  if (after && !(m->after = dupstr(after))) return hg_ydoc_fail(d, n, "out of memory");
  if ((after || hg_ydoc_get(d, n, "delay")) && m->kind != HG_METRIC_MIN_DISTANCE &&
      m->kind != HG_METRIC_PEAK_LOAD && m->kind != HG_METRIC_MIN_CLEARANCE &&
      m->kind != HG_METRIC_RATE && m->kind != HG_METRIC_POINTING)
    return hg_ydoc_fail(d, n, "'after' and 'delay' apply to min_distance, min_clearance, rate, "
                              "pointing_error and peak_load only");
  if (m->delay < 0) return hg_ydoc_fail(d, hg_ydoc_get(d, n, "delay"), "'delay' must be >= 0");
  const hg_ynode *v = hg_ydoc_get(d, n, kinds[found]);
  if (m->kind == HG_METRIC_MIN_DISTANCE || m->kind == HG_METRIC_MIN_CLEARANCE) {
    if (hg_ydoc_expect_seq(d, v, kinds[found]) || hg_ydoc_len(v) != 2)
      return hg_ydoc_fail(d, v, "'%s' needs two body names [A, B]", kinds[found]);
    const char *a, *b;
    if (hg_ydoc_name(d, hg_ydoc_item(d, v, 0), "a body name", &a) ||
        hg_ydoc_name(d, hg_ydoc_item(d, v, 1), "a body name", &b))
      return -1;
    m->a = dupstr(a), m->b = dupstr(b);
  } else if (m->kind == HG_METRIC_ENERGY_DRIFT) {
    int on;
    if (hg_ydoc_bool(d, v, "'energy_drift'", &on)) return -1;
    if (!on) return hg_ydoc_fail(d, v, "'energy_drift' takes true");
  } else {
    const char *a;
    if (hg_ydoc_name(d, v, "a name", &a)) return -1;
    m->a = dupstr(a);
  }
  return 0;
}

static int read_failure(hg_ydoc *d, const hg_ynode *n, hg_campaign *c, hg_failure *f) {
  const char *name, *metric;
  if (hg_ydoc_check_keys(d, n, "failure", fail_keys) || hg_ydoc_require(d, n, "name", "failure") ||
      hg_ydoc_require(d, n, "metric", "failure") || hg_yget_name(d, n, "name", &name) ||
      hg_yget_name(d, n, "metric", &metric))
    return -1;
  f->below = -INFINITY, f->above = INFINITY;
  if (hg_yget_number(d, n, "below", &f->below) || hg_yget_number(d, n, "above", &f->above))
    return -1;
  if (!(f->name = dupstr(name))) return hg_ydoc_fail(d, n, "out of memory");
  f->metric = -1;
  const char *names[64];
  int nn = c->nmetric < 64 ? c->nmetric : 64;
  for (int k = 0; k < c->nmetric; k++) {
    if (k < 64) names[k] = c->metric[k].name;
    if (!strcmp(c->metric[k].name, metric)) f->metric = k;
  }
  if (f->metric < 0) {
    const char *s = hg_ydoc_suggest(metric, names, nn);
    return hg_ydoc_fail(d, hg_ydoc_get(d, n, "metric"), "no metric '%s'%s%s%s", metric,
                        s ? " (did you mean '" : "", s ? s : "", s ? "'?)" : "");
  }
  return 0;
}

/* the scene path, relative to the campaign file's folder */
static char *scene_path(const char *campaign, const char *scene) {
  const char *slash = strrchr(campaign, '/');
  size_t nd = scene[0] == '/' || !slash ? 0 : (size_t)(slash - campaign + 1);
  char *p = malloc(nd + strlen(scene) + 1);
  if (!p) return NULL;
  memcpy(p, campaign, nd);
  strcpy(p + nd, scene);
  return p;
}

/* adds an input (path copied); 0 or -1 (out of memory) */
static int add_input(hg_campaign *c, const char *path, uint64_t hash) {
  hg_campaign_input *grown = realloc(c->input, ((size_t)c->ninput + 1) * sizeof *grown);
  if (!grown) return -1;
  c->input = grown;
  if (!(c->input[c->ninput].path = dupstr(path))) return -1;
  c->input[c->ninput++].hash = hash;
  return 0;
}

/* The scene's bytes (read once: every run parses them), the scene read from them, and the
 * files it names hashed into c's inputs after the campaign file's; 0, or -1 with err. */
static int read_scene_once(hg_campaign *c, hg_error *err) {
  FILE *f = fopen(c->scene, "rb");
  if (!f) return hg_error_set(err, "%s: cannot open: %s", c->scene, strerror(errno)), -1;
  size_t cap = 0, n = 0, got;
  char buf[65536];
  while ((got = fread(buf, 1, sizeof buf, f)) > 0) {
    if (n + got + 1 > cap) {
      size_t want = cap ? 2 * cap : 65536;
      while (want < n + got + 1) want *= 2;
      char *grown = realloc(c->scene_text, want);
      if (!grown) return fclose(f), hg_error_set(err, "%s: out of memory", c->scene), -1;
      c->scene_text = grown, cap = want;
    }
    memcpy(c->scene_text + n, buf, got);
    n += got;
  }
  int bad = ferror(f);
  fclose(f);
  if (bad) return hg_error_set(err, "%s: cannot read", c->scene), -1;
  if (!c->scene_text && !(c->scene_text = calloc(1, 1)))
    return hg_error_set(err, "%s: out of memory", c->scene), -1;
  c->scene_text[n] = 0;
  c->scene_len = n;
  hg_scene *s = hg_scene_load_text(c->scene, c->scene_text, n, NULL, 0, err);
  if (!s || hg_scene_hash_inputs(s, err)) return hg_scene_free(s), -1;
  int rc = 0;
  for (int k = 0; k < s->ninput && rc == 0; k++)
    if (add_input(c, s->input[k].path, s->input[k].hash))
      rc = -1, hg_error_set(err, "%s: out of memory", c->scene);
  hg_scene_free(s);
  return rc;
}

static int read_campaign(hg_ydoc *d, hg_campaign *c) {
  const hg_ynode *root = hg_ydoc_root(d);
  const char *scene;
  double seed = 1;
  if (hg_ydoc_check_keys(d, root, "the campaign", top_keys) ||
      hg_ydoc_require(d, root, "scene", "the campaign") || hg_yget_name(d, root, "scene", &scene) ||
      hg_yget_integer(d, root, "runs", &c->runs) || hg_yget_number(d, root, "seed", &seed) ||
      hg_yget_number(d, root, "t_end", &c->t_end) ||
      hg_yget_number(d, root, "max_wall", &c->max_wall))
    return -1;
  if (!(c->max_wall >= 0 && c->max_wall <= 1e10))
    return hg_ydoc_fail(d, hg_ydoc_get(d, root, "max_wall"),
                        "'max_wall' must be a wall time from 0 (none) to 1e10 s, got %g", c->max_wall);
  if (c->runs < 1 || c->runs > HG_CAMPAIGN_MAX_RUNS)
    return hg_ydoc_fail(d, hg_ydoc_get(d, root, "runs"),
                        "'runs' must be from 1 to %s, got %d (every finished run's result is "
                        "held in memory for runs.csv and the statistics)",
                        HG_CAMPAIGN_MAX_RUNS_TEXT, c->runs);
  if (!(seed >= 0 && seed < 18446744073709551616.0 && seed == floor(seed)))
    return hg_ydoc_fail(d, hg_ydoc_get(d, root, "seed"), "'seed' must be an integer >= 0");
  c->seed = (uint64_t)seed;
  if (!(c->scene = scene_path(c->path, scene))) return hg_ydoc_fail(d, root, "out of memory");
  hg_error serr;
  if (read_scene_once(c, &serr))
    return hg_ydoc_fail(d, hg_ydoc_get(d, root, "scene"), "the scene: %s", serr.msg);
  const hg_ynode *dn = hg_ydoc_get(d, root, "dispersions"), *mn = hg_ydoc_get(d, root, "metrics"),
                 *fn = hg_ydoc_get(d, root, "failures");
  if ((dn && hg_ydoc_expect_seq(d, dn, "'dispersions'")) ||
      (mn && hg_ydoc_expect_seq(d, mn, "'metrics'")) ||
      (fn && hg_ydoc_expect_seq(d, fn, "'failures'")))
    return -1;
  int nd = hg_ydoc_len(dn), nm = hg_ydoc_len(mn), nf = hg_ydoc_len(fn);
  c->disp = calloc(3 * (size_t)nd + 3, sizeof *c->disp); /* a rotation takes three */
  c->metric = calloc((size_t)nm + 1, sizeof *c->metric);
  c->fail = calloc((size_t)nf + 1, sizeof *c->fail);
  if (!c->disp || !c->metric || !c->fail) return hg_ydoc_fail(d, root, "out of memory");
  for (int k = 0; k < nd; k++, c->ndisp++)
    if (read_disp(d, hg_ydoc_item(d, dn, k), c, &c->disp[c->ndisp])) return -1;
  for (; c->nmetric < nm; c->nmetric++)
    if (read_metric(d, hg_ydoc_item(d, mn, c->nmetric), &c->metric[c->nmetric])) return -1;
  for (; c->nfail < nf; c->nfail++)
    if (read_failure(d, hg_ydoc_item(d, fn, c->nfail), c, &c->fail[c->nfail])) return -1;
  return 0;
}

hg_campaign *hg_campaign_load(const char *path, hg_error *err) {
  hg_ydoc d;
  hg_campaign *c = calloc(1, sizeof *c);
  memset(&d, 0, sizeof d);
  if (!c || !(c->path = dupstr(path))) {
    hg_error_set(err, "%s: out of memory", path);
    free(c);
    return NULL;
  }
  c->runs = 100;
  c->t_end = NAN;
  uint64_t hash = 0;
  int rc = hg_hash_file(path, &hash, err);
  if (rc == 0 && add_input(c, path, hash)) rc = -1, hg_error_set(err, "%s: out of memory", path);
  if (rc == 0) rc = hg_ydoc_load(&d, path, err);
  if (rc == 0) rc = read_campaign(&d, c);
  hg_ydoc_free(&d);
  if (rc == 0) return c;
  hg_campaign_free(c);
  return NULL;
}

void hg_campaign_free(hg_campaign *c) {
  if (!c) return;
  for (int k = 0; c->disp && k < c->ndisp + 3; k++) {
    free(c->disp[k].path), free(c->disp[k].list), free(c->disp[k].target);
    for (int i = 0; i < 4; i++) free(c->disp[k].opath[i]);
  }
  for (int k = 0; k <= c->nmetric && c->metric; k++)
    free(c->metric[k].name), free(c->metric[k].a), free(c->metric[k].b), free(c->metric[k].after);
  for (int k = 0; k <= c->nfail && c->fail; k++) free(c->fail[k].name);
  free(c->disp), free(c->metric), free(c->fail), free(c->path), free(c->scene);
  for (int k = 0; k < c->ninput; k++) free(c->input[k].path);
  free(c->input), free(c->scene_text);
  free(c);
}
