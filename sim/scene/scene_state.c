/* scene_state.c: the initial state, joint modes and the motion profiles of prescribed joints. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scene_internal.h"

/* ---- profiles ---- */

/* profile names in hg_profile_kind order, and every key a profile may have */
static const char *const profile_types[] = {"hold", "velocity", "move", "sinusoid", "spline"};
static const char *const profile_keys[] = {"type",  "target", "duration", "velocity", "amplitude",
                                           "omega", "phase",  "times",    "samples",  NULL};
/* each kind's keys beyond 'type'; the first nneed are required */
static const struct {
  int nneed;
  const char *keys[3];
} profile_shape[] = {
    {0, {NULL}},
    {1, {"velocity"}},
    {2, {"target", "duration"}},
    {2, {"amplitude", "omega", "phase"}},
    {2, {"times", "samples"}},
};

/* every key applies to the profile's kind, and the required ones are there */
static int profile_keys_apply(hg_sctx *c, const hg_ynode *n, int kind) {
  char what[64];
  for (int k = 0; k < hg_ydoc_len(n); k++) {
    const hg_ynode *key = hg_ydoc_pair_key(&c->doc, n, k);
    const char *name = hg_ydoc_text(key);
    int ok = strcmp(name, "type") == 0;
    for (int j = 0; j < 3 && profile_shape[kind].keys[j] && !ok; j++)
      ok = strcmp(name, profile_shape[kind].keys[j]) == 0;
    if (!ok)
      return hg_ydoc_fail(&c->doc, key, "'%s' does not apply to a %s profile", name,
                          profile_types[kind]);
  }
  snprintf(what, sizeof what, "%s profile", profile_types[kind]);
  for (int j = 0; j < profile_shape[kind].nneed; j++)
    if (hg_ydoc_require(&c->doc, n, profile_shape[kind].keys[j], what)) return -1;
  return 0;
}

/* spline samples: a list of n configurations, times the matching list of n times */
static int spline_tables(hg_sctx *c, const hg_ynode *n, const hg_joint *j, hg_profile_spec *p) {
  const hg_ynode *tn = hg_ydoc_get(&c->doc, n, "times"), *sn = hg_ydoc_get(&c->doc, n, "samples");
  int count = hg_ydoc_len(tn), nq = hg_joint_nq(j->type);
  if (hg_ydoc_expect_seq(&c->doc, tn, "'times'") || hg_ydoc_expect_seq(&c->doc, sn, "'samples'"))
    return -1;
  if (count < 2)
    return hg_ydoc_fail(&c->doc, tn, "a spline needs at least 2 samples, got %d", count);
  if (hg_ydoc_len(sn) != count)
    return hg_ydoc_fail(&c->doc, sn, "'samples' has %d entries but 'times' has %d", hg_ydoc_len(sn),
                        count);
  if (hg_sc_alloc(c, n, count, sizeof *p->times, (void **)&p->times) ||
      hg_sc_alloc(c, n, count * nq, sizeof *p->samples, (void **)&p->samples))
    return -1;
  p->nsamples = count;
  p->sample_width = nq;
  if (hg_ydoc_numbers(&c->doc, tn, "'times'", count, p->times, NULL)) return -1;
  for (int k = 0; k < count; k++)
    if (hg_sc_joint_q(c, hg_ydoc_item(&c->doc, sn, k), "a sample", j, p->samples + nq * k))
      return -1;
  return 0;
}

/* the numbers of each kind */
static int profile_values(hg_sctx *c, const hg_ynode *n, const hg_joint *j, hg_profile_spec *p) {
  int nv = hg_joint_nv(j->type);
  switch (p->kind) {
  case HG_PROFILE_HOLD: return 0;
  case HG_PROFILE_VELOCITY: return hg_yget_vec(&c->doc, n, "velocity", nv, p->velocity);
  case HG_PROFILE_MOVE:
    if (hg_sc_joint_q(c, hg_ydoc_get(&c->doc, n, "target"), "'target'", j, p->target) ||
        hg_sc_positive(c, n, "duration", &p->duration))
      return -1;
    return 0;
  case HG_PROFILE_SINUSOID:
    if (hg_yget_vec(&c->doc, n, "amplitude", nv, p->amplitude) ||
        hg_sc_positive(c, n, "omega", &p->omega) || hg_yget_number(&c->doc, n, "phase", &p->phase))
      return -1;
    return 0;
  case HG_PROFILE_SPLINE: return spline_tables(c, n, j, p);
  }
  return 0;
}

/* builds the profile from the neutral configuration, for its own checks */
static int profile_check(hg_sctx *c, const hg_ynode *n, const hg_joint *j,
                         const hg_profile_spec *p) {
  double q0[HG_JOINT_MAXNQ];
  const char *why = NULL;
  hg_profile *pr = NULL;
  hg_joint_neutral(j, q0);
  switch (p->kind) {
  case HG_PROFILE_HOLD: pr = hg_profile_hold(j, 0, q0, &why); break;
  case HG_PROFILE_VELOCITY: pr = hg_profile_velocity(j, 0, q0, p->velocity, &why); break;
  case HG_PROFILE_MOVE: pr = hg_profile_move(j, 0, q0, p->target, p->duration, &why); break;
  case HG_PROFILE_SINUSOID:
    pr = hg_profile_sinusoid(j, 0, q0, p->amplitude, p->omega, p->phase, &why);
    break;
  case HG_PROFILE_SPLINE: pr = hg_profile_spline(j, p->nsamples, p->times, p->samples, &why); break;
  }
  hg_profile_free(pr);
  return pr ? 0
            : hg_ydoc_fail(&c->doc, n, "%s profile: %s", profile_types[p->kind],
                           why ? why : "invalid");
}

/* a profile: kind, its keys, its values, then a trial construction */
int hg_sc_profile(hg_sctx *c, const hg_ynode *n, const hg_joint *j, hg_profile_spec *p) {
  const hg_ynode *tn;
  int kind;
  if (hg_ydoc_check_keys(&c->doc, n, "profile", profile_keys) ||
      !(tn = hg_sc_required(c, n, "type", "profile")) ||
      hg_ydoc_choice(&c->doc, tn, "profile type", profile_types, 5, &kind) ||
      profile_keys_apply(c, n, kind))
    return -1;
  p->kind = (hg_profile_kind)kind;
  if (profile_values(c, n, j, p) || profile_check(c, n, j, p)) return -1;
  return 0;
}

/* ---- modes ---- */

/* mode names in hg_mode order; the keys of a mode mapping ('joint' only in set_mode) */
static const char *const mode_names[] = {"free", "prescribed", "locked"};
static const char *const mode_keys[] = {"joint", "mode", "profile", NULL};

int hg_sc_mode(hg_sctx *c, const hg_ynode *n, const char *joint, const hg_joint *jnt,
               int with_joint, hg_mode_spec *out) {
  const hg_ynode *mn = hg_ydoc_is_scalar(n) ? n : hg_ydoc_get(&c->doc, n, "mode");
  const hg_ynode *pn = hg_ydoc_is_map(n) ? hg_ydoc_get(&c->doc, n, "profile") : NULL;
  int mode = HG_MODE_PRESCRIBED;
  out->src = hg_sc_src(c, n);
  if (hg_sc_strdup(c, n, joint, &out->joint)) return -1;
  if (jnt->type == HG_JOINT_FIXED)
    return hg_ydoc_fail(&c->doc, n, "joint '%s' is fixed: it has no mode", joint);
  if (!hg_ydoc_is_scalar(n) &&
      hg_ydoc_check_keys(&c->doc, n, "joint mode", mode_keys + !with_joint))
    return -1;
  if (!mn && !pn) return hg_ydoc_fail(&c->doc, n, "missing key 'mode' in joint mode");
  if (mn && hg_ydoc_choice(&c->doc, mn, "joint mode", mode_names, 3, &mode)) return -1;
  out->mode = (hg_mode)mode;
  if (!pn) return 0;
  if (mode != HG_MODE_PRESCRIBED)
    return hg_ydoc_fail(&c->doc, hg_ydoc_key(&c->doc, n, "profile"),
                        "a profile needs mode 'prescribed', not '%s'", mode_names[mode]);
  out->has_profile = 1;
  return hg_sc_profile(c, pn, jnt, &out->profile);
}

int hg_sc_modes(hg_sctx *c, const hg_ynode *map) {
  int n = hg_ydoc_len(map);
  if (hg_ydoc_expect_map(&c->doc, map, "'modes' (joint: mode)") ||
      hg_sc_alloc(c, map, n, sizeof *c->s->mode, (void **)&c->s->mode))
    return -1;
  for (int k = 0; k < n; k++) {
    const hg_ynode *key = hg_ydoc_pair_key(&c->doc, map, k),
                   *val = hg_ydoc_pair_value(&c->doc, map, k);
    const char *joint;
    hg_joint j;
    c->s->nmode = k + 1;
    if (hg_sc_joint_ref(c, key, "a joint", &joint, &j) ||
        hg_sc_present(c, key, hg_model_joint(c->m, joint),
                      "give its joint a mode by a set_mode action after its add"))
      return -1;
    for (int i = 0; i < k; i++)
      if (strcmp(c->s->mode[i].joint, joint) == 0)
        return hg_ydoc_fail(&c->doc, key, "joint '%s' is given a mode twice", joint);
    for (int i = 0, ji = hg_model_joint(c->m, joint); i < c->m->nmimic; i++)
      if (c->m->mimic_follower[i] == ji)
        return hg_ydoc_fail(&c->doc, key, "joint '%s' follows joint '%s' (mimic) and takes its "
                            "mode: give the mode to '%s'", joint,
                            c->m->jnt_name[c->m->mimic_leader[i]],
                            c->m->jnt_name[c->m->mimic_leader[i]]);
    if (hg_sc_mode(c, val, joint, &j, 0, &c->s->mode[k])) return -1;
  }
  return 0;
}

/* ---- the initial state ---- */

/* the keys of the initial state, of one joint's state and of one body's */
static const char *const initial_keys[] = {"joints", "bodies", NULL};
static const char *const jinit_keys[] = {"q", "v", "frame", NULL};
static const char *const binit_keys[] = {"pos", "quat", "rpy", "rpy_deg", "twist", "frame", NULL};

/* the frame a velocity is given in: 0 world axes, 1 the body's own (default: dflt); -1 with an
 * error at the 'frame' key */
static int velocity_frame(hg_sctx *c, const hg_ynode *map, int dflt, int *frame) {
  static const char *const names[] = {"world", "body"};
  const hg_ynode *n = hg_ydoc_get(&c->doc, map, "frame");
  *frame = dflt;
  return n && hg_ydoc_choice(&c->doc, n, "velocity frame", names, 2, frame) ? -1 : 0;
}

/* v = R x for the angular and the linear part of a twist (body axes to world axes) */
static void twist_to_world(const double R[9], double V[6]) {
  double w[3], u[3];
  hg_m3_mulv(R, V, w);
  hg_m3_mulv(R, V + 3, u);
  memcpy(V, w, sizeof w), memcpy(V + 3, u, sizeof u);
}

/* 1 when an earlier initial state (of a present or an absent joint) names the joint */
static int jinit_given(const hg_scene *s, const char *joint) {
  for (int k = 0; k < s->njinit; k++)
    if (strcmp(s->jinit[k].joint, joint) == 0) return 1;
  for (int k = 0; k < s->library.njinit; k++)
    if (strcmp(s->library.jinit[k].joint, joint) == 0) return 1;
  return 0;
}

/* where a joint's state goes: the scene's, or the library's for a joint absent at the start (not
 * the free joint of a body an add action places); NULL with an error */
static hg_joint_init_spec *jinit_slot(hg_sctx *c, const hg_ynode *key, const char *name,
                                      const hg_joint *j) {
  hg_scene *s = c->s;
  int i = hg_model_joint(c->m, name);
  if (!hg_sc_absent(c, i)) return &s->jinit[s->njinit++];
  if (j->type != HG_JOINT_FREE || hg_sc_absent(c, c->m->parent[i]))
    return &s->library.jinit[s->library.njinit++];
  hg_ydoc_fail(&c->doc, key,
               "joint '%s' is the free joint of body '%s', which is not present at the start: its "
               "add action places it ('pos', 'quat'/'rpy', 'twist')", name, c->m->body_name[i]);
  return NULL;
}

/* one joint's q and v */
static int joint_init(hg_sctx *c, const hg_ynode *key, const hg_ynode *val) {
  const char *name;
  hg_joint j;
  hg_joint_init_spec *ji;
  const hg_ynode *qn, *vn;
  if (hg_sc_joint_ref(c, key, "a joint", &name, &j) ||
      hg_ydoc_check_keys(&c->doc, val, "initial state of a joint", jinit_keys))
    return -1;
  if (jinit_given(c->s, name))
    return hg_ydoc_fail(&c->doc, key, "joint '%s' is given an initial state twice", name);
  if (j.type == HG_JOINT_FIXED)
    return hg_ydoc_fail(&c->doc, key, "joint '%s' is fixed: it has no state", name);
  if (!(ji = jinit_slot(c, key, name, &j))) return -1;
  ji->src = hg_sc_src(c, key);
  if (hg_sc_strdup(c, key, name, &ji->joint)) return -1;
  qn = hg_ydoc_get(&c->doc, val, "q");
  vn = hg_ydoc_get(&c->doc, val, "v");
  ji->has_q = qn != NULL;
  ji->has_v = vn != NULL;
  if (qn && hg_sc_joint_q(c, qn, "'q'", &j, ji->q)) return -1;
  if (vn && hg_sc_joint_v(c, vn, "'v'", &j, ji->v)) return -1;
  /* a free joint's v is its body twist in the body frame; frame: world gives it in world axes
   * (angular velocity, velocity of the body origin), which needs the world as the parent */
  int frame;
  const hg_ynode *fn = hg_ydoc_get(&c->doc, val, "frame");
  if (velocity_frame(c, val, 1, &frame)) return -1;
  if (fn && (j.type != HG_JOINT_FREE || c->m->parent[hg_model_joint(c->m, name)] != 0))
    return hg_ydoc_fail(&c->doc, fn, "'frame' applies to the v of a free joint on the world; "
                        "joint '%s' is a %s joint%s", name, hg_joint_type_name(j.type),
                        j.type == HG_JOINT_FREE ? " on another body" : "");
  if (frame == 0 && vn) {
    /* the body's world rotation: the joint's offset, then q's */
    double Rq[9], R[9], Rt[9], q4[4] = {1, 0, 0, 0};
    if (qn) memcpy(q4, ji->q + 3, sizeof q4);
    hg_quat_to_R(q4, Rq);
    hg_m3_mul(c->m->jnt_offset[hg_model_joint(c->m, name)].R, Rq, R);
    for (int a = 0; a < 3; a++)
      for (int b = 0; b < 3; b++) Rt[3 * a + b] = R[3 * b + a];
    twist_to_world(Rt, ji->v); /* (Rᵀ: world axes to body axes) */
  }
  return 0;
}

/* one free body's world pose and twist */
static int body_init(hg_sctx *c, const hg_ynode *key, const hg_ynode *val, hg_body_init *bi) {
  const char *name;
  int i;
  bi->src = hg_sc_src(c, key);
  if (hg_sc_body_ref(c, key, "a body", &name, &i) ||
      hg_sc_present(c, key, i, "its add action places it ('pos', 'quat'/'rpy', 'twist')") ||
      hg_sc_strdup(c, key, name, &bi->body) ||
      hg_ydoc_check_keys(&c->doc, val, "initial state of a body", binit_keys))
    return -1;
  for (hg_body_init *o = c->s->binit; o < bi; o++)
    if (strcmp(o->body, name) == 0)
      return hg_ydoc_fail(&c->doc, key, "body '%s' is given an initial state twice", name);
  if (c->m->jnt[i].type != HG_JOINT_FREE)
    return hg_ydoc_fail(&c->doc, key,
                        "body '%s' hangs on a %s joint: a world pose and twist need a free joint",
                        name, hg_joint_type_name(c->m->jnt[i].type));
  for (int k = 0; k < c->s->njinit; k++)
    if (strcmp(c->s->jinit[k].joint, c->m->jnt_name[i]) == 0)
      return hg_ydoc_fail(
          &c->doc, key, "body '%s' is given a pose and its joint '%s' a state (line %d): give one",
          name, c->m->jnt_name[i], c->s->jinit[k].src.line);
  int frame;
  if (hg_sc_pose(c, val, &bi->pose) || hg_sc_twist(c, val, bi->twist) ||
      velocity_frame(c, val, 0, &frame))
    return -1;
  /* frame: body gives the twist in the body's own axes at its initial pose */
  if (frame == 1) twist_to_world(bi->pose.R, bi->twist);
  return 0;
}

int hg_sc_initial(hg_sctx *c, const hg_ynode *map) {
  const hg_ynode *jn, *bn;
  if (hg_ydoc_check_keys(&c->doc, map, "'initial'", initial_keys)) return -1;
  jn = hg_ydoc_get(&c->doc, map, "joints");
  bn = hg_ydoc_get(&c->doc, map, "bodies");
  if ((jn && hg_ydoc_expect_map(&c->doc, jn, "'joints' (joint: {q, v})")) ||
      (bn && hg_ydoc_expect_map(&c->doc, bn, "'bodies' (body: {pos, quat, twist})")) ||
      hg_sc_alloc(c, map, hg_ydoc_len(jn), sizeof *c->s->jinit, (void **)&c->s->jinit) ||
      hg_sc_alloc(c, map, hg_ydoc_len(jn), sizeof *c->s->library.jinit,
                  (void **)&c->s->library.jinit) ||
      hg_sc_alloc(c, map, hg_ydoc_len(bn), sizeof *c->s->binit, (void **)&c->s->binit))
    return -1;
  for (int k = 0; k < hg_ydoc_len(jn); k++)
    if (joint_init(c, hg_ydoc_pair_key(&c->doc, jn, k), hg_ydoc_pair_value(&c->doc, jn, k)))
      return -1;
  for (int k = 0; k < hg_ydoc_len(bn); k++) {
    c->s->nbinit = k + 1;
    if (body_init(c, hg_ydoc_pair_key(&c->doc, bn, k), hg_ydoc_pair_value(&c->doc, bn, k),
                  &c->s->binit[k]))
      return -1;
  }
  return 0;
}

/* ---- freeing ---- */

void hg_sc_free_mode(hg_mode_spec *m) {
  free(m->joint);
  free(m->profile.times);
  free(m->profile.samples);
}
