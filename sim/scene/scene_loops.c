/* scene_loops.c: closed kinematic loops (docs/scene-format.md, loops): a joint of the joint table
 * between two markers, or a coupling of two 1-DoF joints; and the loop names actions may use. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scene_internal.h"

/* the keys of a loop: both forms, then the ones each form alone takes */
static const char *const loop_keys[] = {"name",  "type",   "between", "axis",   "axis2",
                                        "pitch", "joints", "ratio",   "offset", "active",
                                        "assembly", NULL};
static const char *const joint_only[] = {"between", "axis", "axis2", "pitch", NULL};
static const char *const coupling_only[] = {"joints", "ratio", "offset", NULL};

/* ---- names ---- */

/* the loop's name: unique among loops, bodies, joints and docking joints */
static int loop_name(hg_sctx *c, const hg_ynode *n, int k, const char **name) {
  const hg_ynode *node = hg_sc_required(c, n, "name", "loop");
  if (!node || hg_ydoc_name(&c->doc, node, "'name'", name)) return -1;
  for (int j = 0; j < k; j++)
    if (strcmp(c->s->loop[j].name, *name) == 0)
      return hg_ydoc_fail(&c->doc, node, "duplicate loop name '%s' (first at line %d)", *name,
                          c->s->loop[j].src.line);
  if (hg_model_body(c->m, *name) >= 0)
    return hg_ydoc_fail(&c->doc, node, "loop name '%s' is taken by a body", *name);
  if (hg_model_joint(c->m, *name) >= 0)
    return hg_ydoc_fail(&c->doc, node, "loop name '%s' is taken by a joint", *name);
  for (int j = 0; j < c->ndock; j++)
    if (strcmp(c->dock[j], *name) == 0)
      return hg_ydoc_fail(&c->doc, node, "loop name '%s' is taken by a docking joint", *name);
  return 0;
}

int hg_sc_loop_ref(hg_sctx *c, const hg_ynode *n, const char *what, const char **name) {
  const char **names;
  int nn = 0;
  if (hg_ydoc_name(&c->doc, n, what, name)) return -1;
  for (int k = 0; k < c->s->nloop; k++)
    if (strcmp(c->s->loop[k].name, *name) == 0) return 0;
  for (int k = 0; k < c->ndock; k++)
    if (strcmp(c->dock[k], *name) == 0) return 0;
  names = malloc(((size_t)c->s->nloop + (size_t)c->ndock + 1) * sizeof *names);
  for (int k = 0; names && k < c->s->nloop; k++) names[nn++] = c->s->loop[k].name;
  for (int k = 0; names && k < c->ndock; k++) names[nn++] = c->dock[k];
  hg_sc_unknown(c, n, "loop", *name, names, nn);
  free(names);
  return -1;
}

/* ---- the two forms ---- */

/* -1 with an error at the first key of n among keys, which the loop's form does not take */
static int keys_absent(hg_sctx *c, const hg_ynode *n, const char *const *keys, const char *why) {
  for (int k = 0; keys[k]; k++) {
    const hg_ynode *key = hg_ydoc_key(&c->doc, n, keys[k]);
    if (key) return hg_ydoc_fail(&c->doc, key, "'%s' does not apply to %s", keys[k], why);
  }
  return 0;
}

/* 'type': a joint type other than free, or coupling */
static int loop_type(hg_sctx *c, const hg_ynode *n, hg_loop_spec *L) {
  const char *names[HG_JOINT_NTYPES + 1];
  const hg_ynode *tn = hg_sc_required(c, n, "type", "loop");
  int k;
  if (!tn) return -1;
  for (k = 0; k < HG_JOINT_NTYPES; k++) names[k] = hg_joint_type_name((hg_joint_type)k);
  names[HG_JOINT_NTYPES] = "coupling";
  if (hg_ydoc_choice(&c->doc, tn, "loop type", names, HG_JOINT_NTYPES + 1, &k)) return -1;
  L->coupling = k == HG_JOINT_NTYPES;
  L->type = L->coupling ? HG_JOINT_FIXED : (hg_joint_type)k;
  if (!L->coupling && L->type == HG_JOINT_FREE)
    return hg_ydoc_fail(&c->doc, tn,
                        "a free loop constrains nothing: give the joint the loop closes (fixed, "
                        "revolute, prismatic, helical, cylindrical, universal, planar, spherical)");
  return 0;
}

/* a joint loop: 'between' two markers on two bodies, the joint's axes */
static int joint_loop(hg_sctx *c, const hg_ynode *n, hg_loop_spec *L) {
  char what[160];
  const hg_ynode *bn;
  const hg_marker *mk[2];
  hg_joint j;
  snprintf(what, sizeof what, "loop '%s'", L->name);
  if (keys_absent(c, n, coupling_only, "a joint loop (a coupling's key)") ||
      hg_sc_joint_keys_apply(c, n, L->type) || !(bn = hg_sc_required(c, n, "between", "loop")) ||
      hg_ydoc_expect_seq(&c->doc, bn, "'between' (two markers)"))
    return -1;
  if (hg_ydoc_len(bn) != 2)
    return hg_ydoc_fail(&c->doc, bn, "expected two markers for 'between', got %d",
                        hg_ydoc_len(bn));
  for (int k = 0; k < 2; k++)
    if (hg_sc_marker_ref(c, hg_ydoc_item(&c->doc, bn, k), "a marker", &mk[k])) return -1;
  if (strcmp(mk[0]->body, mk[1]->body) == 0)
    return hg_ydoc_fail(&c->doc, hg_ydoc_item(&c->doc, bn, 1),
                        "markers '%s' and '%s' are both on body '%s': a loop joins two bodies",
                        mk[0]->name, mk[1]->name, mk[0]->body);
  for (int k = 0; k < 2; k++)
    if (hg_sc_strdup(c, bn, mk[k]->name, &L->marker[k])) return -1;
  if (hg_sc_joint_axes(c, n, L->type, what, &j)) return -1;
  memcpy(L->axis, j.axis, sizeof L->axis);
  memcpy(L->axis2, j.axis2, sizeof L->axis2);
  L->pitch = j.pitch;
  return 0;
}

/* a coupling: 'joints' [leader, follower], two different 1-DoF joints; ratio and offset */
static int coupling(hg_sctx *c, const hg_ynode *n, hg_loop_spec *L) {
  const hg_ynode *jn;
  const char *name[2];
  hg_joint j;
  L->ratio = 1;
  if (keys_absent(c, n, joint_only, "a coupling (it joins 'joints')") ||
      !(jn = hg_sc_required(c, n, "joints", "coupling")) ||
      hg_ydoc_expect_seq(&c->doc, jn, "'joints' (leader, follower)"))
    return -1;
  if (hg_ydoc_len(jn) != 2)
    return hg_ydoc_fail(&c->doc, jn, "expected two joints for 'joints' (leader, follower), got %d",
                        hg_ydoc_len(jn));
  for (int k = 0; k < 2; k++) {
    const hg_ynode *item = hg_ydoc_item(&c->doc, jn, k);
    if (hg_sc_joint_ref(c, item, "a joint", &name[k], &j)) return -1;
    if (j.type != HG_JOINT_REVOLUTE && j.type != HG_JOINT_PRISMATIC && j.type != HG_JOINT_HELICAL)
      return hg_ydoc_fail(&c->doc, item,
                          "joint '%s' is a %s joint: a coupling joins two 1-DoF joints "
                          "(revolute, prismatic or helical)",
                          name[k], hg_joint_type_name(j.type));
    if (k == 1 && strcmp(name[0], name[1]) == 0)
      return hg_ydoc_fail(&c->doc, item, "a coupling needs two different joints, got '%s' twice",
                          name[1]);
    if (hg_sc_strdup(c, item, name[k], &L->joint[k])) return -1;
  }
  return hg_yget_number(&c->doc, n, "ratio", &L->ratio) ||
                 hg_yget_number(&c->doc, n, "offset", &L->offset)
             ? -1
             : 0;
}

/* 'assembly': [m, rad], both positive */
static int assembly(hg_sctx *c, const hg_ynode *n, hg_loop_spec *L) {
  const hg_ynode *an = hg_ydoc_get(&c->doc, n, "assembly");
  L->tol[0] = L->tol[1] = 1e-3;
  if (hg_yget_vec(&c->doc, n, "assembly", 2, L->tol)) return -1;
  for (int k = 0; k < 2; k++)
    if (!(L->tol[k] > 0))
      return hg_ydoc_fail(&c->doc, an, "'assembly' ([m, rad]) must be positive, got %g",
                          L->tol[k]);
  return hg_sc_bounded(c, an, "assembly distance", L->tol, 1, HG_SC_MAX_LENGTH, "m");
}

/* one loop */
static int loop(hg_sctx *c, const hg_ynode *n, int k) {
  hg_loop_spec *L = &c->s->loop[k];
  const char *name;
  L->active = 1;
  L->src = hg_sc_src(c, n);
  if (hg_ydoc_check_keys(&c->doc, n, "loop", loop_keys) || loop_name(c, n, k, &name) ||
      hg_sc_strdup(c, n, name, &L->name) || loop_type(c, n, L))
    return -1;
  if (L->coupling ? coupling(c, n, L) : joint_loop(c, n, L)) return -1;
  return hg_yget_bool(&c->doc, n, "active", &L->active) || assembly(c, n, L) ? -1 : 0;
}

int hg_sc_loops(hg_sctx *c, const hg_ynode *list) {
  return hg_sc_seq(c, list, "'loops'", sizeof *c->s->loop, (void **)&c->s->loop, &c->s->nloop,
                   loop);
}

/* ---- a loop in a model's terms ---- */

int hg_loop_spec_resolve(const hg_scene *s, const hg_loop_spec *sp, const hg_model *m,
                         hg_loop *out, hg_error *err) {
  memset(out, 0, sizeof *out);
  if (sp->coupling) {
    out->kind = HG_LOOP_COUPLING;
    out->jnt[0] = hg_model_joint(m, sp->joint[0]);
    out->jnt[1] = hg_model_joint(m, sp->joint[1]);
    out->ratio = sp->ratio;
    out->offset = sp->offset;
    return out->jnt[0] > 0 && out->jnt[1] > 0 ? 0 : 1;
  }
  out->kind = HG_LOOP_JOINT;
  for (int k = 0; k < 2; k++) {
    const hg_marker *mk = hg_scene_marker(s, sp->marker[k]);
    out->body[k] = mk ? hg_model_body(m, mk->body) : -1;
    if (out->body[k] < 0) return 1;
    out->M[k] = mk->pose;
  }
  if (out->body[0] == out->body[1]) return 1;
  const char *why = NULL;
  if (hg_joint_init(&out->joint, sp->type, sp->axis, sp->axis2, sp->pitch, &why))
    return hg_error_set(err, "loop '%s': %s", sp->name, why ? why : "bad joint"), -1;
  return 0;
}
