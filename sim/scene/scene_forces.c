/* scene_forces.c: force elements (central gravity, springs, drag, thrust, parachutes, contact)
 * and the exponential atmosphere they share. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scene_internal.h"

/* in hg_force_type order */
static const char *const force_types[] = {"central_gravity", "joint_spring", "spring", "drag",
                                          "thrust",          "parachute",   "contact"};
#define NTYPES 7

/* every key a force element may have (which apply depends on its type) */
static const char *const force_keys[] = {
    "name",      "type",    "enabled", "mu",      "centre",      "joint",
    "stiffness", "damping", "rest",    "markers", "free_length", "compression_only",
    "body",      "marker",  "cd_area", "cop",     "atmosphere",  "force",
    "torque",    "t_on",    "t_off",   "radius",  "between",     "exponent",
    "dissipation", "friction", "stiction_velocity", "exclude", "restitution", "impact_speed",
    "impact", "min_impact_speed", NULL};

/* the keys of each type beyond name, type and enabled; the first ones listed are required */
static const struct {
  int nneed;
  const char *keys[12];
} force_shape[NTYPES] = {
    {1, {"mu", "centre", "radius"}},
    {1, {"joint", "stiffness", "damping", "rest"}},
    {1, {"markers", "stiffness", "damping", "free_length", "compression_only"}},
    {2, {"body", "cd_area", "cop", "atmosphere"}},
    {1, {"body", "force", "torque", "t_on", "t_off"}},
    {2, {"marker", "cd_area", "atmosphere"}},
    {2, {"between", "stiffness", "exponent", "dissipation", "friction", "stiction_velocity",
         "exclude", "restitution", "impact_speed", "impact", "min_impact_speed"}},
};

/* ---- the atmosphere ---- */

/* the keys of an atmosphere */
static const char *const atm_keys[] = {"rho0", "scale_height", "centre", "radius", NULL};

int hg_sc_atmosphere(hg_sctx *c, const hg_ynode *map, hg_atmosphere *atm) {
  memset(atm, 0, sizeof *atm);
  if (hg_ydoc_check_keys(&c->doc, map, "atmosphere", atm_keys) ||
      !hg_sc_required(c, map, "rho0", "atmosphere") ||
      !hg_sc_required(c, map, "scale_height", "atmosphere"))
    return -1;
  if (hg_sc_positive(c, map, "rho0", &atm->rho0) ||
      hg_sc_positive(c, map, "scale_height", &atm->scale_height) ||
      hg_yget_vec(&c->doc, map, "centre", 3, atm->centre) ||
      hg_sc_nonneg(c, map, "radius", &atm->radius))
    return -1;
  return 0;
}

/* ---- keys by type ---- */

/* every key applies to type t, and the required ones are there */
static int force_keys_apply(hg_sctx *c, const hg_ynode *n, int t) {
  char what[64];
  for (int k = 0; k < hg_ydoc_len(n); k++) {
    const hg_ynode *key = hg_ydoc_pair_key(&c->doc, n, k);
    const char *name = hg_ydoc_text(key);
    int ok = strcmp(name, "name") == 0 || strcmp(name, "type") == 0 || strcmp(name, "enabled") == 0;
    for (int j = 0; j < 12 && force_shape[t].keys[j] && !ok; j++)
      ok = strcmp(name, force_shape[t].keys[j]) == 0;
    if (!ok)
      return hg_ydoc_fail(&c->doc, key, "'%s' does not apply to a %s force", name, force_types[t]);
  }
  snprintf(what, sizeof what, "%s force", force_types[t]);
  for (int j = 0; j < force_shape[t].nneed; j++)
    if (hg_ydoc_require(&c->doc, n, force_shape[t].keys[j], what)) return -1;
  return 0;
}

/* ---- the types' parameters ---- */

/* a point-mass planet: mu and its centre */
static int central_gravity(hg_sctx *c, const hg_ynode *n, hg_force_spec *f) {
  if (hg_sc_positive(c, n, "mu", &f->mu) || hg_yget_vec(&c->doc, n, "centre", 3, f->centre) ||
      hg_sc_nonneg(c, n, "radius", &f->radius))
    return -1;
  return 0;
}

/* a joint spring on a moving joint; rest is a configuration of that joint */
static int joint_spring(hg_sctx *c, const hg_ynode *n, hg_force_spec *f) {
  const hg_ynode *jn = hg_ydoc_get(&c->doc, n, "joint"), *rn = hg_ydoc_get(&c->doc, n, "rest");
  const char *name;
  hg_joint j;
  if (hg_sc_joint_ref(c, jn, "'joint'", &name, &j) || hg_sc_strdup(c, jn, name, &f->joint))
    return -1;
  if (j.type == HG_JOINT_FIXED)
    return hg_ydoc_fail(&c->doc, jn, "joint '%s' is fixed: a spring cannot act on it", name);
  if (hg_sc_nonneg(c, n, "stiffness", &f->stiffness) || hg_sc_nonneg(c, n, "damping", &f->damping))
    return -1;
  if (!rn) return 0;
  f->nrest = hg_joint_nq(j.type);
  if (hg_sc_alloc(c, rn, f->nrest, sizeof *f->rest, (void **)&f->rest)) return -1;
  return hg_sc_joint_q(c, rn, "'rest'", &j, f->rest);
}

/* a spring-damper between two distinct markers */
static int marker_spring(hg_sctx *c, const hg_ynode *n, hg_force_spec *f) {
  const hg_ynode *mn = hg_ydoc_get(&c->doc, n, "markers");
  const hg_marker *a, *b;
  if (hg_ydoc_is_seq(mn) && hg_ydoc_len(mn) != 2)
    return hg_ydoc_fail(&c->doc, mn, "expected two markers for 'markers', got %d", hg_ydoc_len(mn));
  if (hg_ydoc_expect_seq(&c->doc, mn, "'markers' (two marker names)") ||
      hg_sc_marker_ref(c, hg_ydoc_item(&c->doc, mn, 0), "'markers'", &a) ||
      hg_sc_marker_ref(c, hg_ydoc_item(&c->doc, mn, 1), "'markers'", &b))
    return -1;
  if (a == b)
    return hg_ydoc_fail(&c->doc, mn, "a spring needs two different markers, got '%s' twice",
                        a->name);
  if (hg_sc_strdup(c, mn, a->name, &f->marker_a) || hg_sc_strdup(c, mn, b->name, &f->marker_b))
    return -1;
  if (hg_sc_nonneg(c, n, "stiffness", &f->stiffness) ||
      hg_sc_nonneg(c, n, "damping", &f->damping) ||
      hg_sc_nonneg(c, n, "free_length", &f->free_length) ||
      hg_yget_bool(&c->doc, n, "compression_only", &f->compression_only))
    return -1;
  return 0;
}

/* the inline atmosphere, or the scene's top-level one */
static int force_atmosphere(hg_sctx *c, const hg_ynode *n, hg_force_spec *f) {
  const hg_ynode *an = hg_ydoc_get(&c->doc, n, "atmosphere");
  if (an) return hg_sc_atmosphere(c, an, &f->atm);
  if (!c->s->has_atmosphere)
    return hg_ydoc_fail(&c->doc, n, "a %s force needs an 'atmosphere' (here or at the top level)",
                        force_types[f->type]);
  f->atm = c->s->atmosphere;
  return 0;
}

/* drag on a body at a centre of pressure */
static int drag(hg_sctx *c, const hg_ynode *n, hg_force_spec *f) {
  const hg_ynode *bn = hg_ydoc_get(&c->doc, n, "body");
  const char *body;
  if (hg_sc_body_ref(c, bn, "'body'", &body, NULL) || hg_sc_strdup(c, bn, body, &f->body))
    return -1;
  if (hg_sc_positive(c, n, "cd_area", &f->cd_area) || hg_yget_vec(&c->doc, n, "cop", 3, f->cop) ||
      force_atmosphere(c, n, f))
    return -1;
  return 0;
}

/* a parachute at a marker */
static int parachute(hg_sctx *c, const hg_ynode *n, hg_force_spec *f) {
  const hg_ynode *mn = hg_ydoc_get(&c->doc, n, "marker");
  const hg_marker *mk;
  if (hg_sc_marker_ref(c, mn, "'marker'", &mk) || hg_sc_strdup(c, mn, mk->name, &f->marker))
    return -1;
  if (hg_sc_positive(c, n, "cd_area", &f->cd_area) || force_atmosphere(c, n, f)) return -1;
  return 0;
}

/* force and torque on a body, on during [t_on, t_off) */
static int thrust(hg_sctx *c, const hg_ynode *n, hg_force_spec *f) {
  const hg_ynode *bn = hg_ydoc_get(&c->doc, n, "body"), *off = hg_ydoc_get(&c->doc, n, "t_off");
  const char *body;
  if (hg_sc_body_ref(c, bn, "'body'", &body, NULL) || hg_sc_strdup(c, bn, body, &f->body) ||
      hg_yget_vec(&c->doc, n, "force", 3, f->force) ||
      hg_yget_vec(&c->doc, n, "torque", 3, f->torque) ||
      hg_yget_number(&c->doc, n, "t_on", &f->t_on) ||
      (off && hg_ydoc_number(&c->doc, off, "'t_off'", 1, &f->t_off)))
    return -1;
  if (!(f->t_off > f->t_on))
    return hg_ydoc_fail(&c->doc, off, "'t_off' (%g) must come after 't_on' (%g)", f->t_off,
                        f->t_on);
  return 0;
}

/* a pair of sides (contact's between) or of bodies (an exclude entry) */
static int two_of(hg_sctx *c, const hg_ynode *v, const char *what) {
  if (hg_ydoc_expect_seq(&c->doc, v, what)) return -1;
  if (hg_ydoc_len(v) != 2)
    return hg_ydoc_fail(&c->doc, v, "expected two entries for %s, got %d", what, hg_ydoc_len(v));
  return 0;
}

/* compliant contact between two sets of bodies; its numbers must keep the force finite */
static int contact(hg_sctx *c, const hg_ynode *n, hg_force_spec *f) {
  const hg_ynode *bn = hg_ydoc_get(&c->doc, n, "between"), *xn = hg_ydoc_get(&c->doc, n, "exclude");
  if (two_of(c, bn, "'between' (two bodies or body lists)")) return -1;
  for (int k = 0; k < 2; k++)
    if (hg_sc_body_set(c, hg_ydoc_item(&c->doc, bn, k), &f->nside[k], &f->side[k])) return -1;
  f->exponent = 1.5;
  f->stiction_velocity = 1e-3;
  if (hg_sc_positive(c, n, "stiffness", &f->stiffness) ||
      hg_sc_positive(c, n, "exponent", &f->exponent) ||
      hg_sc_nonneg(c, n, "dissipation", &f->dissipation) ||
      hg_sc_nonneg(c, n, "friction", &f->friction) ||
      hg_sc_positive(c, n, "stiction_velocity", &f->stiction_velocity))
    return -1;
  if (f->exponent < 1 || f->exponent > 3)
    return hg_ydoc_fail(&c->doc, hg_ydoc_get(&c->doc, n, "exponent"),
                        "'exponent' must be in [1, 3] (1: linear, 1.5: Hertz), got %g",
                        f->exponent);
  /* impacts: compliant (the law alone) or impulsive (Newton impulses with a restitution) */
  static const char *const impacts[] = {"compliant", "impulsive"};
  const hg_ynode *in = hg_ydoc_get(&c->doc, n, "impact");
  const hg_ynode *en = hg_ydoc_get(&c->doc, n, "restitution");
  const hg_ynode *vn = hg_ydoc_get(&c->doc, n, "impact_speed");
  f->min_impact_speed = 1e-3;
  if (in && hg_ydoc_choice(&c->doc, in, "impact", impacts, 2, &f->impulsive)) return -1;
  if (hg_sc_positive(c, n, "min_impact_speed", &f->min_impact_speed)) return -1;
  if (!f->impulsive && hg_ydoc_get(&c->doc, n, "min_impact_speed"))
    return hg_ydoc_fail(&c->doc, hg_ydoc_key(&c->doc, n, "min_impact_speed"),
                        "'min_impact_speed' applies to 'impact: impulsive' only");
  if (f->impulsive) {
    /* Newton's coefficient for the impulses; the compliant law keeps its dissipation */
    if (!en)
      return hg_ydoc_fail(&c->doc, in, "'impact: impulsive' needs a 'restitution' in [0, 1]");
    if (vn)
      return hg_ydoc_fail(&c->doc, vn, "'impact_speed' applies to compliant impacts only (an "
                          "impulsive impact has its restitution at every speed)");
    if (hg_ydoc_number(&c->doc, en, "'restitution'", 0, &f->restitution)) return -1;
    if (!(f->restitution >= 0 && f->restitution <= 1))
      return hg_ydoc_fail(&c->doc, en, "'restitution' must be in [0, 1], got %g", f->restitution);
  } else if (en || vn) {
    /* restitution at an impact speed: the dissipation that gives it (forces.c) */
    if (!en || !vn)
      return hg_ydoc_fail(&c->doc, en ? en : vn,
                          "'restitution' and 'impact_speed' go together (the restitution holds at "
                          "that impact speed)");
    if (hg_ydoc_get(&c->doc, n, "dissipation"))
      return hg_ydoc_fail(&c->doc, en,
                          "give either 'dissipation' or 'restitution' with 'impact_speed', not both");
    if (hg_sc_positive(c, n, "restitution", &f->restitution) ||
        hg_sc_positive(c, n, "impact_speed", &f->impact_speed))
      return -1;
    if (!(f->restitution >= 0.01 && f->restitution <= 1))
      return hg_ydoc_fail(&c->doc, en, "'restitution' must be in [0.01, 1], got %g (a compliant "
                          "contact cannot be perfectly plastic)", f->restitution);
  }
  if (!xn) return 0;
  /* exclude: [[a, b], ...] */
  if (hg_ydoc_expect_seq(&c->doc, xn, "'exclude' (a list of body pairs)") ||
      hg_sc_alloc(c, xn, 2 * hg_ydoc_len(xn), sizeof *f->exclude, (void **)&f->exclude))
    return -1;
  for (int k = 0; k < hg_ydoc_len(xn); k++) {
    const hg_ynode *pr = hg_ydoc_item(&c->doc, xn, k);
    if (two_of(c, pr, "an 'exclude' pair (two bodies)")) return -1;
    f->nexclude = k + 1; /* (calloc'd: the scene's free sees NULL for names not read yet) */
    for (int j = 0; j < 2; j++) {
      const hg_ynode *item = hg_ydoc_item(&c->doc, pr, j);
      const char *body;
      if (hg_sc_body_ref(c, item, "an 'exclude' pair", &body, NULL) ||
          hg_sc_strdup(c, item, body, &f->exclude[2 * k + j]))
        return -1;
    }
  }
  return 0;
}

/* ---- the list ---- */

/* the name: given, or the type's; unique among force elements */
static int force_name(hg_sctx *c, const hg_ynode *n, hg_force_spec *f, int k) {
  const char *name = force_types[f->type];
  const hg_ynode *nn = hg_ydoc_get(&c->doc, n, "name");
  if (hg_yget_name(&c->doc, n, "name", &name)) return -1;
  for (int j = 0; j < k; j++)
    if (strcmp(c->s->force[j].name, name) == 0)
      return hg_ydoc_fail(&c->doc, nn ? nn : n, "duplicate force name '%s' (first at line %d)%s",
                          name, c->s->force[j].src.line, nn ? "" : "; give each force a 'name'");
  return hg_sc_strdup(c, n, name, &f->name);
}

/* one element: type, keys of the type, name, enabled, then the type's values */
static int force(hg_sctx *c, const hg_ynode *n, int k) {
  static int (*const read[NTYPES])(hg_sctx *, const hg_ynode *, hg_force_spec *) = {
      central_gravity, joint_spring, marker_spring, drag, thrust, parachute, contact};
  hg_force_spec *f = &c->s->force[k];
  const hg_ynode *tn;
  int t;
  f->enabled = 1;
  f->t_off = INFINITY;
  f->src = hg_sc_src(c, n);
  if (hg_ydoc_check_keys(&c->doc, n, "force", force_keys) ||
      !(tn = hg_sc_required(c, n, "type", "force")) ||
      hg_ydoc_choice(&c->doc, tn, "force type", force_types, NTYPES, &t))
    return -1;
  f->type = (hg_force_type)t;
  if (force_keys_apply(c, n, t) || force_name(c, n, f, k) ||
      hg_yget_bool(&c->doc, n, "enabled", &f->enabled))
    return -1;
  return read[t](c, n, f);
}

int hg_sc_forces(hg_sctx *c, const hg_ynode *list) {
  return hg_sc_seq(c, list, "'forces'", sizeof *c->s->force, (void **)&c->s->force,
                   &c->s->nforce, force);
}

/* ---- contact between parent and child ---- */

int hg_contact_names_pair(const hg_force_spec *f) {
  return f->type == HG_FORCE_CONTACT && f->nside[0] == 1 && f->nside[1] == 1;
}

/* the mode joint i of m starts in (the scene's modes: free unless given) */
static hg_mode start_mode(const hg_sctx *c, int i) {
  for (int k = 0; k < c->s->nmode; k++)
    if (c->s->mode[k].joint && strcmp(c->s->mode[k].joint, c->m->jnt_name[i]) == 0)
      return c->s->mode[k].mode;
  return HG_MODE_FREE;
}

/* 1 when side s of contact element f names body */
static int on_side(const hg_force_spec *f, int s, const char *body) {
  for (int b = 0; b < f->nside[s]; b++)
    if (strcmp(f->side[s][b], body) == 0) return 1;
  return 0;
}

/* 1 when the body at place b of side s of contact element f is listed earlier on that side */
static int listed_before(const hg_force_spec *f, int s, int b) {
  for (int r = 0; r < b; r++)
    if (strcmp(f->side[s][r], f->side[s][b]) == 0) return 1;
  return 0;
}

/* the note on one contact element whose sides hold a parent and its child at the start */
static void contact_note(const hg_sctx *c, const hg_force_spec *f, FILE *notes) {
  const hg_model *m = c->m;
  int n = 0;
  for (int a = 0; a < f->nside[0]; a++)
    for (int b = 0; b < f->nside[1]; b++) {
      int i = hg_model_body(m, f->side[0][a]), j = hg_model_body(m, f->side[1][b]);
      if (i < 1 || j < 1 || i == j || (c->absent && (c->absent[i] || c->absent[j]))) continue;
      int child = m->parent[j] == i ? j : m->parent[i] == j ? i : 0;
      if (!child) continue;
      const char *cn = m->body_name[child], *pn = m->body_name[m->parent[child]];
      const char *jn = m->jnt_name[child];
      if (hg_contact_names_pair(f)) {
        /* the pair it names alone: left out only while the joint holds them together */
        if (m->jnt_nv[child] == 0)
          fprintf(notes, "%s:%d:%d: note: contact '%s': '%s' is fixed to its parent '%s' "
                  "(joint '%s'): they never touch\n", f->src.file, f->src.line, f->src.column,
                  f->name, cn, pn, jn);
        else if (start_mode(c, child) == HG_MODE_LOCKED)
          fprintf(notes, "%s:%d:%d: note: contact '%s': '%s' and its parent '%s' touch only "
                  "while joint '%s' is not locked (locked at the start)\n", f->src.file,
                  f->src.line, f->src.column, f->name, cn, pn, jn);
        continue;
      }
      /* (a pile lists the pair both ways: once, as i < j; a body listed twice: once) */
      if (i > j && on_side(f, 0, m->body_name[j]) && on_side(f, 1, m->body_name[i])) continue;
      if (listed_before(f, 0, a) || listed_before(f, 1, b)) continue;
      if (n++ < 3)
        fprintf(notes, "%s:%d:%d: note: contact '%s': '%s' and its parent '%s' (joint '%s') "
                "never touch through it (a body never touches the body it is jointed to; an "
                "element with 'between: [%s, %s]' would test them)\n", f->src.file, f->src.line,
                f->src.column, f->name, cn, pn, jn, pn, cn);
    }
  if (n > 3)
    fprintf(notes, "%s:%d:%d: note: contact '%s': %d more parent-child pairs never touch "
            "through it\n", f->src.file, f->src.line, f->src.column, f->name, n - 3);
}

void hg_sc_contact_notes(const hg_sctx *c, FILE *notes) {
  for (int k = 0; k < c->s->nforce; k++)
    if (c->s->force[k].type == HG_FORCE_CONTACT) contact_note(c, &c->s->force[k], notes);
}
