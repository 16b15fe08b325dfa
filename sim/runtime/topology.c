/* topology.c: detaching, docking (with re-rooting) and removing subtrees by editing the builder,
 * and the state mapping that keeps every body's world pose and velocity across a recompile. */
#include "topology.h"

#include "grow.h"
#include "names.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* how closely a mapped state must reproduce the old poses and twists (relative to max(1, size)):
 * 1e-12, or the rounding of the two walks where long chains make that larger (verify_tolerance) */
#define HG_TOPOLOGY_TOL 1e-12
/* how far from a joint's motion subspace a relative twist may be (relative to the twists it is
 * the difference of): the old state's own rounding, which grows along long chains, as for the
 * reachability of poses (hg_joint_configuration) */
#define HG_TOPOLOGY_REACH 1e-9



/* replaces a builder-owned string of a spec (the builder frees its strings with free) */
static void replace_string(const char **field, char *s) {
  free((char *)*field);
  *field = s;
}

static int is_world(const char *name) { return strcmp(name, "world") == 0; }

/* 1 when T is exactly the identity */
static int is_identity(const hg_se3 *T) {
  hg_se3 I;
  hg_se3_identity(&I);
  return memcmp(T, &I, sizeof I) == 0;
}

/* ---- detach ---- */

int hg_topology_detach(hg_builder *b, const char *body, hg_error *err) {
  hg_body_spec *s = hg_builder_body(b, body);
  const char *why = NULL;
  char *world;
  if (!s) {
    hg_error_set(err, "detach: no body named '%s'", body);
    return -1;
  }
  if (!(world = hg_strdup("world"))) {
    hg_error_set(err, "out of memory");
    return -1;
  }
  /* a free joint (same name) from the world, no offsets, no limits */
  hg_joint_init(&s->joint, HG_JOINT_FREE, NULL, NULL, 0, &why);
  replace_string(&s->parent, world);
  hg_se3_identity(&s->offset);
  hg_se3_identity(&s->post);
  s->has_post = 0;
  memset(&s->limits, 0, sizeof s->limits);
  return 0;
}

/* ---- paths up the tree ---- */

typedef struct spec_path {
  int n, cap;
  hg_body_spec **spec; /* spec[0] the start, spec[n - 1] the body that hangs from the world */
} spec_path;

static int path_push(spec_path *p, hg_body_spec *s) {
  if (hg_grow((void **)&p->spec, p->n, &p->cap, 16, sizeof *p->spec)) return -1;
  p->spec[p->n++] = s;
  return 0;
}

/* Walks from s up to the body of its tree that hangs from the world (recording the path) and
 * returns it, or NULL with err set on an unknown parent or a cycle of parents (Brent's method). */
static hg_body_spec *walk_up(hg_builder *b, hg_body_spec *s, spec_path *path, hg_error *err) {
  hg_body_spec *mark = s;
  int power = 1, lam = 0;
  for (;;) {
    if (path_push(path, s)) {
      hg_error_set(err, "out of memory");
      return NULL;
    }
    if (is_world(s->parent)) return s;
    /* one step up */
    hg_body_spec *up = hg_builder_body(b, s->parent);
    if (!up) {
      hg_error_set(err, "body '%s' names an unknown parent '%s'", s->name, s->parent);
      return NULL;
    }
    s = up;
    if (s == mark) {
      hg_error_set(err, "body '%s' is part of a cycle of parents", s->name);
      return NULL;
    }
    if (++lam == power) {
      mark = s;
      power *= 2;
      lam = 0;
    }
  }
}

/* ---- attach (docking), with re-rooting ---- */

/* what a body on the re-rooted path becomes; strings are made before anything changes */
typedef struct new_spec {
  hg_joint joint;
  hg_se3 offset, post;
  int has_post;
  hg_joint_limits limits;
  double armature[HG_JOINT_MAXNV]; /* per DoF of the new joint (hg_body_spec.armature) */
  char *parent;           /* owned until applied */
  const char *joint_name; /* moved from the body below, or owned (the new joint) */
} new_spec;

/* position limits of a joint seen from the child: q' = -q for the R^n joints */
static hg_joint_limits reverse_limits(const hg_joint *j, hg_joint_limits l) {
  if (l.has_position && j->type != HG_JOINT_SPHERICAL && j->type != HG_JOINT_FREE) {
    double lower = l.lower;
    l.lower = -l.upper;
    l.upper = -lower;
  }
  return l;
}

/* the body above s on the path takes s's joint reversed: T_{s,above} = post^-1 T_j^-1 off^-1 */
static int plan_reversed(const hg_body_spec *s, new_spec *ns, hg_error *err) {
  if (hg_joint_reverse(&s->joint, NULL, NULL, &ns->joint, NULL, NULL)) {
    hg_error_set(err, "cannot re-root at this body: joint '%s' of body '%s' is %s, which cannot be "
              "reversed", s->joint_name, s->name, hg_joint_type_name(s->joint.type));
    return -1;
  }
  if (s->has_post) hg_se3_inv(&s->post, &ns->offset);
  else hg_se3_identity(&ns->offset);
  hg_se3_inv(&s->offset, &ns->post);
  ns->has_post = !is_identity(&s->offset);
  ns->limits = reverse_limits(&s->joint, s->limits);
  /* the armature goes with its DoF: qr = -q keeps each DoF's (M_kk is unchanged by a sign);
   * universal swaps its axes; spherical and free rotate their rates (vr = -R w), which keeps a
   * diagonal armature exactly only when it is the same on the rotated DoFs: kept as is */
  memcpy(ns->armature, s->armature, sizeof ns->armature);
  if (s->joint.type == HG_JOINT_UNIVERSAL)
    ns->armature[0] = s->armature[1], ns->armature[1] = s->armature[0];
  ns->joint_name = s->joint_name;
  ns->parent = hg_strdup(s->name);
  if (!ns->parent) hg_error_set(err, "out of memory");
  return ns->parent ? 0 : -1;
}

/* the docked body: a new free joint from 'parent' at T_parent_child */
static int plan_dock(const char *parent, const char *joint_name, const hg_se3 *T, new_spec *ns,
                     hg_error *err) {
  const char *why = NULL;
  hg_joint_init(&ns->joint, HG_JOINT_FREE, NULL, NULL, 0, &why);
  /* the offset's rotation comes from products of world rotations, orthogonal to ~eps each time;
   * put it back on SO(3) so that thousands of docks do not let the error grow */
  double quat[4];
  ns->offset = *T;
  hg_R_to_quat(T->R, quat);
  hg_quat_to_R(quat, ns->offset.R);
  hg_se3_identity(&ns->post);
  ns->has_post = 0;
  memset(&ns->limits, 0, sizeof ns->limits);
  memset(ns->armature, 0, sizeof ns->armature); /* a docking joint has no rotor */
  ns->parent = hg_strdup(parent);
  ns->joint_name = hg_strdup(joint_name);
  if (ns->parent && ns->joint_name) return 0;
  hg_error_set(err, "out of memory");
  return -1;
}

/* writes the plan into the specs of the path; the old root's joint (to the world) is dropped */
static void apply_plan(spec_path *p, new_spec *plan) {
  char *dropped = (char *)p->spec[p->n - 1]->joint_name;
  for (int i = 0; i < p->n; i++) {
    hg_body_spec *s = p->spec[i];
    s->joint = plan[i].joint;
    s->offset = plan[i].offset;
    s->post = plan[i].post;
    s->has_post = plan[i].has_post;
    s->limits = plan[i].limits;
    memcpy(s->armature, plan[i].armature, sizeof s->armature);
    s->joint_name = plan[i].joint_name;
    replace_string(&s->parent, plan[i].parent);
  }
  free(dropped);
}

/* frees the strings a plan owns (after a failure) */
static void discard_plan(new_spec *plan, int n) {
  for (int i = 0; i < n; i++) free(plan[i].parent);
  if (n > 0) free((char *)plan[0].joint_name);
}

/* 1 when T is finite and its rotation orthonormal to 1e-9 */
static int valid_pose(const hg_se3 *T) {
  double RtR[9], I[9];
  for (int i = 0; i < 12; i++)
    if (!isfinite(i < 9 ? T->R[i] : T->p[i - 9])) return 0;
  hg_m3_mulT(T->R, T->R, RtR);
  hg_m3_identity(I);
  for (int i = 0; i < 9; i++)
    if (!(fabs(RtR[i] - I[i]) <= 1e-9)) return 0;
  return 1;
}

/* checks the arguments of an attach; returns the child's spec or NULL with err set */
static hg_body_spec *attach_check(hg_builder *b, const char *parent, const char *child,
                                  const char *joint_name, const hg_se3 *T, hg_error *err) {
  hg_body_spec *c = hg_builder_body(b, child);
  if (!c) hg_error_set(err, "attach: no body named '%s'", child);
  else if (!is_world(parent) && !hg_builder_body(b, parent))
    hg_error_set(err, "attach: no body named '%s'", parent);
  else if (!joint_name || !joint_name[0])
    hg_error_set(err, "attach: the new joint needs a name");
  else if (!valid_pose(T))
    hg_error_set(err, "attach: the pose of '%s' in '%s' is not finite or not a rotation", child,
              parent);
  else
    return c;
  return NULL;
}

/* the plan for the path child ... root: each body above takes its lower joint reversed */
static int make_plan(spec_path *p, const char *parent, const char *joint_name, const hg_se3 *T,
                     new_spec *plan, hg_error *err) {
  int rc = plan_dock(parent, joint_name, T, &plan[0], err);
  int made = 1;
  for (int i = 1; i < p->n && !rc; i++, made++) rc = plan_reversed(p->spec[i - 1], &plan[i], err);
  if (rc) discard_plan(plan, made);
  return rc;
}

int hg_topology_attach(hg_builder *b, const char *parent, const char *child,
                       const char *joint_name, const hg_se3 *T_parent_child, hg_error *err) {
  spec_path path = {0, 0, NULL}, up = {0, 0, NULL};
  new_spec *plan = NULL;
  int rc = -1;
  hg_body_spec *c = attach_check(b, parent, child, joint_name, T_parent_child, err), *root;
  if (!c || !(root = walk_up(b, c, &path, err))) goto done;
  /* the parent may not be in the child's tree: that would close a loop */
  if (!is_world(parent)) {
    hg_body_spec *proot = walk_up(b, hg_builder_body(b, parent), &up, err);
    if (!proot) goto done;
    if (proot == root) {
      hg_error_set(err, "attach: '%s' and '%s' are in the same tree (root '%s'); docking them would "
                "close a loop", parent, child, root->name);
      goto done;
    }
  }
  /* plan every change first, so a refusal leaves the builder as it was */
  plan = calloc((size_t)path.n, sizeof *plan);
  if (!plan) {
    hg_error_set(err, "out of memory");
    goto done;
  }
  if (make_plan(&path, parent, joint_name, T_parent_child, plan, err)) goto done;
  apply_plan(&path, plan);
  rc = 0;
done:
  free(path.spec);
  free(up.spec);
  free(plan);
  return rc;
}

/* ---- remove ---- */

int hg_topology_remove(hg_builder *b, const char *body, hg_error *err) {
  return hg_builder_remove_body(b, body, err);
}

const char *hg_topology_reroot_blocker(const hg_model *m, int child) {
  for (int j = child; j > 0 && m->parent[j] != 0; j = m->parent[j]) {
    hg_joint jr;
    if (hg_joint_reverse(&m->jnt[j], NULL, NULL, &jr, NULL, NULL)) return m->jnt_name[j];
  }
  return NULL;
}

/* ---- state mapping ---- */

/* 1 when joint i1 of m1 is joint i0 of m0 unchanged: name, parent, type, parameters, offsets */
static int same_joint(const hg_model *m0, int i0, const hg_model *m1, int i1) {
  const hg_joint *a = &m0->jnt[i0], *b = &m1->jnt[i1];
  return strcmp(m0->jnt_name[i0], m1->jnt_name[i1]) == 0 &&
         strcmp(m0->body_name[m0->parent[i0]], m1->body_name[m1->parent[i1]]) == 0 &&
         a->type == b->type && memcmp(a->axis, b->axis, sizeof a->axis) == 0 &&
         memcmp(a->axis2, b->axis2, sizeof a->axis2) == 0 && a->pitch == b->pitch &&
         memcmp(&m0->jnt_offset[i0], &m1->jnt_offset[i1], sizeof(hg_se3)) == 0 &&
         m0->has_post[i0] == m1->has_post[i1] &&
         (!m0->has_post[i0] || memcmp(&m0->jnt_post[i0], &m1->jnt_post[i1], sizeof(hg_se3)) == 0);
}

/* T_{parent(i),i}(q) = offset T_joint(q) post */
static void joint_pose(const hg_model *m, int i, const double *q, hg_se3 *T) {
  hg_se3 Tj;
  hg_joint_transform(&m->jnt[i], q + m->q_adr[i], &Tj);
  hg_se3_mul(&m->jnt_offset[i], &Tj, T);
  if (m->has_post[i]) hg_se3_mul(T, &m->jnt_post[i], T);
}

/* the joint's twist in the moved joint frame, S(q) v */
static void joint_twist(const hg_model *m, int i, const double *q, const double *v, double V[6]) {
  double S[6 * HG_JOINT_MAXNV];
  hg_joint_motion(&m->jnt[i], q + m->q_adr[i], S);
  for (int r = 0; r < 6; r++) V[r] = 0;
  for (int k = 0; k < m->jnt_nv[i]; k++)
    for (int r = 0; r < 6; r++) V[r] += S[6 * k + r] * v[m->v_adr[i] + k];
}

/* max(1, max |x_k|) over 6 entries */
static double vec_size(const double x[6]) {
  double s = 1;
  for (int k = 0; k < 6; k++) s = fmax(s, fabs(x[k]));
  return s;
}

/* max |a - b| / max(1, max |b|) over n entries */
static double rel_diff(const double *a, const double *b, int n) {
  double e = 0, s = 1;
  for (int k = 0; k < n; k++) s = fmax(s, fabs(b[k]));
  for (int k = 0; k < n; k++) {
    double d = fabs(a[k] - b[k]) / s;
    if (!(d <= e)) e = d;
  }
  return e;
}

/* how far pose A is from pose B: rotation entries, translation relative to max(1, |p_B|) */
static double pose_diff(const hg_se3 *A, const hg_se3 *B) {
  double eR = 0, ep = rel_diff(A->p, B->p, 3);
  for (int k = 0; k < 9; k++) {
    double d = fabs(A->R[k] - B->R[k]);
    if (!(d <= eR)) eR = d;
  }
  return eR > ep || isnan(eR) ? eR : ep;
}

/* the work of one mapping: both models, the old kinematics in d0, the new body poses and body
 * twists built up in d1->T_world and d1->V (scratch until the final walk) */
typedef struct map_ctx {
  const hg_model *m0, *m1;
  hg_data *d0, *d1;
  const double *q0, *v0;
  double *q1, *v1;
  hg_name_index names;
  hg_error *err;
} map_ctx;

/* joint i's q from the relative pose of body i's old world pose seen from its new parent */
static int solve_position(map_ctx *c, int i, int k) {
  const hg_model *m1 = c->m1;
  hg_se3 Tp, Trel, Tj, Pi;
  if (m1->parent[i]) Tp = c->d1->T_world[m1->parent[i]];
  else hg_se3_identity(&Tp);
  /* T_joint = offset^-1 (Tp^-1 T_world) post^-1 */
  hg_se3_invmul(&Tp, &c->d0->T_world[k], &Trel);
  hg_se3_invmul(&m1->jnt_offset[i], &Trel, &Tj);
  if (m1->has_post[i]) {
    hg_se3_inv(&m1->jnt_post[i], &Pi);
    hg_se3_mul(&Tj, &Pi, &Tj);
  }
  if (hg_joint_configuration(&m1->jnt[i], &Tj, c->q1 + m1->q_adr[i]) == 0) return 0;
  hg_error_set(c->err, "state mapping: body '%s' cannot keep its pose: its %s joint '%s' cannot reach "
            "it", m1->body_name[i], hg_joint_type_name(m1->jnt[i].type), m1->jnt_name[i]);
  return -1;
}

/* joint i's v from body i's old twist relative to its new parent, in the moved joint frame */
static int solve_velocity(map_ctx *c, int i, int k, const double Vp[6]) {
  const hg_model *m1 = c->m1;
  double V0[6], Vrel[6], Vj[6], Vs[6];
  hg_body_twist(c->m0, c->d0, k, V0);
  for (int r = 0; r < 6; r++) Vrel[r] = V0[r] - Vp[r];
  if (m1->has_post[i]) hg_Ad(&m1->jnt_post[i], Vrel, Vj);
  else memcpy(Vj, Vrel, sizeof Vj);
  hg_joint_velocity(&m1->jnt[i], c->q1 + m1->q_adr[i], Vj, c->v1 + m1->v_adr[i]);
  /* the joint must realize the relative twist, not just its least-squares part */
  joint_twist(m1, i, c->q1, c->v1, Vs);
  if (rel_diff(Vs, Vj, 6) <= HG_TOPOLOGY_REACH * fmax(vec_size(V0), vec_size(Vp))) return 0;
  hg_error_set(c->err, "state mapping: body '%s' cannot keep its velocity: its relative twist is not "
            "a motion of its %s joint '%s'", m1->body_name[i], hg_joint_type_name(m1->jnt[i].type),
            m1->jnt_name[i]);
  return -1;
}

/* body i of m1: copy, solve or neutral state, then its new pose and body twist */
static int map_body(map_ctx *c, int i) {
  const hg_model *m0 = c->m0, *m1 = c->m1;
  int k = hg_names_find(&c->names, hg_name_of_string, c->m0->body_name, m1->body_name[i]), p = m1->parent[i];
  int keep = k > 0 && same_joint(m0, k, m1, i);
  double *qi = c->q1 + m1->q_adr[i], *vi = c->v1 ? c->v1 + m1->v_adr[i] : NULL, Vp[6], Vs[6];
  hg_se3 Trel;
  /* an unchanged joint keeps its state; a new body its neutral state */
  if (keep) {
    memcpy(qi, c->q0 + m0->q_adr[k], (size_t)m1->jnt_nq[i] * sizeof(double));
    if (vi) memcpy(vi, c->v0 + m0->v_adr[k], (size_t)m1->jnt_nv[i] * sizeof(double));
  } else if (k > 0) {
    if (solve_position(c, i, k)) return -1;
  } else {
    hg_joint_neutral(&m1->jnt[i], qi);
    if (vi) memset(vi, 0, (size_t)m1->jnt_nv[i] * sizeof(double));
  }
  /* the new pose */
  joint_pose(m1, i, c->q1, &Trel);
  if (p) hg_se3_mul(&c->d1->T_world[p], &Trel, &c->d1->T_world[i]);
  else c->d1->T_world[i] = Trel;
  if (!vi) return 0;
  /* the parent's twist seen in body i, the joint rates, then body i's twist */
  if (p) hg_Ad_inv(&Trel, c->d1->V[p], Vp);
  else memset(Vp, 0, sizeof Vp);
  if (k > 0 && !keep && solve_velocity(c, i, k, Vp)) return -1;
  joint_twist(m1, i, c->q1, c->v1, Vs);
  if (m1->has_post[i]) hg_Ad_inv(&m1->jnt_post[i], Vs, c->d1->V[i]);
  else memcpy(c->d1->V[i], Vs, sizeof Vs);
  for (int r = 0; r < 6; r++) c->d1->V[i][r] += Vp[r];
  return 0;
}

/* the verification tolerance: HG_TOPOLOGY_TOL, or 16 eps per body of both models (each walk
 * composes up to nbody transforms) when that is larger */
static double verify_tolerance(const hg_model *m0, const hg_model *m1) {
  return fmax(HG_TOPOLOGY_TOL, 16 * DBL_EPSILON * (m0->nbody + m1->nbody));
}

/* after the real walk on m1, every body that m0 has must sit and move as it did */
static int verify(map_ctx *c) {
  const hg_model *m1 = c->m1;
  double tol = verify_tolerance(c->m0, m1);
  hg_kinematics(m1, c->d1, c->q1, c->v1);
  for (int i = 1; i < m1->nbody; i++) {
    int k = hg_names_find(&c->names, hg_name_of_string, c->m0->body_name, m1->body_name[i]);
    double ep, ev = 0, V0[6], V1[6];
    if (k <= 0) continue;
    ep = pose_diff(&c->d1->T_world[i], &c->d0->T_world[k]);
    if (c->v1) {
      hg_body_twist(c->m0, c->d0, k, V0);
      hg_body_twist(m1, c->d1, i, V1);
      ev = rel_diff(V1, V0, 6);
    }
    if (ep <= tol && ev <= tol) continue;
    hg_error_set(c->err, "state mapping: body '%s' moved by %.3g (pose) and %.3g (twist), more than "
              "%.3g", m1->body_name[i], ep, ev, tol);
    return -1;
  }
  return 0;
}

int hg_topology_map_state(const hg_model *m0, hg_data *d0, const double *q0, const double *v0,
                          const hg_model *m1, hg_data *d1, double *q1, double *v1, hg_error *err) {
  map_ctx c = {m0, m1, d0, d1, q0, v0, q1, v0 ? v1 : NULL, {0, NULL}, err};
  int rc = 0;
  if (hg_names_of_strings(&c.names, m0->body_name, 0, m0->nbody)) {
    hg_error_set(err, "out of memory");
    return -1;
  }
  /* the old kinematics, then every new body in topological order, then the check */
  hg_kinematics(m0, d0, q0, v0);
  for (int i = 1; i < m1->nbody && !rc; i++) rc = map_body(&c, i);
  if (!rc) rc = verify(&c);
  if (v1 && !v0) memset(v1, 0, (size_t)m1->nv * sizeof(double));
  hg_names_free(&c.names);
  return rc;
}

/* ---- joint modes ---- */

/* 1 when joint i0 of m0 and joint i1 of m1 join the same two bodies, either way round */
static int same_pair(const hg_model *m0, int i0, const hg_model *m1, int i1) {
  const char *a0 = m0->body_name[m0->parent[i0]], *b0 = m0->body_name[i0];
  const char *a1 = m1->body_name[m1->parent[i1]], *b1 = m1->body_name[i1];
  return (strcmp(a0, a1) == 0 && strcmp(b0, b1) == 0) ||
         (strcmp(a0, b1) == 0 && strcmp(b0, a1) == 0);
}

int hg_topology_map_modes(const hg_model *m0, const hg_data *d0, const hg_model *m1, hg_data *d1,
                          int *from, hg_error *err) {
  hg_name_index joints = {0, NULL};
  if (hg_names_of_strings(&joints, m0->jnt_name, 1, m0->nbody)) {
    hg_error_set(err, "out of memory");
    return -1;
  }
  /* a joint keeps its mode while it joins the same two bodies; new or re-parented ones are free */
  for (int i = 1; i < m1->nbody; i++) {
    int k = hg_names_find(&joints, hg_name_of_string, m0->jnt_name, m1->jnt_name[i]);
    int kept = k > 0 && same_pair(m0, k, m1, i) && m0->jnt[k].type == m1->jnt[i].type;
    d1->mode[i] = kept ? d0->mode[k] : HG_MODE_FREE;
    if (from) from[i] = kept ? k : -1;
  }
  if (from) from[0] = -1;
  hg_names_free(&joints);
  return 0;
}
