/* model.c: building a model from named bodies, compiling it to flat arrays, and its workspace. */
#include "model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "body_frames.h"
#include "grow.h"
#include "names.h"

static const char *spec_name(const void *items, int i) { return ((const hg_body_spec *)items)[i].name; }
static const char *spec_joint(const void *items, int i) {
  return ((const hg_body_spec *)items)[i].joint_name;
}

struct hg_builder {
  int nbody, cap;
  hg_body_spec *body; /* names owned */
  hg_name_index names;   /* body names -> body numbers */
  int ngeom, gcap;
  hg_geom *geom;      /* body = builder body index, mesh owned */
  int allow_singular; /* compile skips the neutral-configuration ABA check */
  int nmimic, mcap;
  struct builder_mimic {
    char *follower, *leader; /* joint names, owned */
    double mult, offset;
  } *mimic;
};

int hg_builder_add_mimic(hg_builder *b, const char *follower, const char *leader,
                         double multiplier, double offset, hg_error *err) {
  if (!follower || !follower[0] || !leader || !leader[0]) {
    hg_error_set(err, "a mimic coupling needs two joint names");
    return -1;
  }
  for (int k = 0; k < b->nmimic; k++)
    if (strcmp(b->mimic[k].follower, follower) == 0) {
      hg_error_set(err, "joint '%s' already mimics '%s'", follower, b->mimic[k].leader);
      return -1;
    }
  if (b->nmimic == b->mcap) {
    int cap = b->mcap ? 2 * b->mcap : 4;
    struct builder_mimic *nm = realloc(b->mimic, (size_t)cap * sizeof *nm);
    if (!nm) {
      hg_error_set(err, "out of memory");
      return -1;
    }
    b->mimic = nm;
    b->mcap = cap;
  }
  struct builder_mimic *M = &b->mimic[b->nmimic];
  M->follower = strdup(follower);
  M->leader = strdup(leader);
  M->mult = multiplier;
  M->offset = offset;
  if (!M->follower || !M->leader) {
    free(M->follower), free(M->leader);
    hg_error_set(err, "out of memory");
    return -1;
  }
  b->nmimic++;
  return 0;
}


void hg_builder_allow_singular(hg_builder *b, int allow) { b->allow_singular = allow != 0; }
int hg_builder_allows_singular(const hg_builder *b) { return b->allow_singular; }

/* rebuilds the body-name index (after growth or removal); -1 when out of memory */
static int builder_reindex(hg_builder *b) {
  if (hg_names_reset(&b->names, b->cap)) return -1;
  for (int i = 0; i < b->nbody; i++) hg_names_insert(&b->names, spec_name, b->body, i);
  return 0;
}


hg_builder *hg_builder_new(void) { return calloc(1, sizeof(hg_builder)); }

void hg_builder_free(hg_builder *b) {
  if (!b) return;
  for (int i = 0; i < b->nbody; i++) {
    free((char *)b->body[i].name);
    free((char *)b->body[i].parent);
    free((char *)b->body[i].joint_name);
  }
  for (int i = 0; i < b->ngeom; i++) free(b->geom[i].mesh);
  for (int k = 0; k < b->nmimic; k++) free(b->mimic[k].follower), free(b->mimic[k].leader);
  free(b->mimic);
  free(b->body);
  free(b->geom);
  free(b->names.slot);
  free(b);
}

static int builder_find(const hg_builder *b, const char *name) {
  return hg_names_find(&b->names, spec_name, b->body, name);
}

hg_builder *hg_builder_copy(const hg_builder *src, hg_error *err) {
  hg_builder *b = hg_builder_new();
  if (!b) return hg_error_set(err, "out of memory"), NULL;
  for (int i = 0; i < src->nbody; i++)
    if (hg_builder_add_body(b, &src->body[i], err)) goto fail;
  for (int g = 0; g < src->ngeom; g++)
    if (hg_builder_add_geom(b, src->body[src->geom[g].body].name, &src->geom[g], err)) goto fail;
  for (int k = 0; k < src->nmimic; k++) {
    const struct builder_mimic *M = &src->mimic[k];
    if (hg_builder_add_mimic(b, M->follower, M->leader, M->mult, M->offset, err)) goto fail;
  }
  return b;
fail:
  hg_builder_free(b);
  return NULL;
}

int hg_builder_set_armature(hg_builder *b, const char *joint, int dof, double value,
                            hg_error *err) {
  int i = -1;
  for (int k = 0; k < b->nbody && i < 0; k++)
    if (strcmp(b->body[k].joint_name, joint ? joint : "") == 0) i = k;
  if (i < 0) return hg_error_set(err, "unknown joint '%s'", joint ? joint : "(null)"), -1;
  int nv = hg_joint_nv(b->body[i].joint.type);
  if (dof < 0 || dof >= nv)
    return hg_error_set(err, "joint '%s' has no DoF %d (it has %d)", joint, dof, nv), -1;
  if (!(value >= 0) || !isfinite(value))
    return hg_error_set(err, "armature %g of joint '%s' must be finite and >= 0", value, joint), -1;
  b->body[i].armature[dof] = value;
  return 0;
}

hg_body_spec *hg_builder_body(hg_builder *b, const char *name) {
  int i = builder_find(b, name);
  return i < 0 ? NULL : &b->body[i];
}

int hg_builder_add_body(hg_builder *b, const hg_body_spec *spec, hg_error *err) {
  if (!spec->name || !spec->name[0]) {
    hg_error_set(err, "a body needs a non-empty name");
    return -1;
  }
  if (strcmp(spec->name, "world") == 0) {
    hg_error_set(err, "'world' is the name of the ground body and cannot be used again");
    return -1;
  }
  if (builder_find(b, spec->name) >= 0) {
    hg_error_set(err, "duplicate body name '%s'", spec->name);
    return -1;
  }
  /* the inertia must be physical: recover I_c about the centre of mass and validate it. The
   * recovery subtracts m (|c|^2 1 - c c^T) from I_o, which carries a few ulps of m |c|^2 of
   * round-off: 1e-12 m |c|^2 (some 4500 eps) keeps a point mass off the frame origin valid. */
  {
    double c[3], Ic[6];
    char why[200];
    hg_inertia_com(&spec->inertia, c, Ic);
    if (hg_inertia_check(spec->inertia.m, Ic, 1e-12 * spec->inertia.m * hg_v3_dot(c, c), why,
                         sizeof why) ||
        (spec->inertia.m == 0 && (spec->inertia.h[0] != 0 || spec->inertia.h[1] != 0 || spec->inertia.h[2] != 0))) {
      hg_error_set(err, "body '%s' has an invalid inertia: %s", spec->name,
                spec->inertia.m == 0 ? "a massless body with a first moment" : why);
      return -1;
    }
  }
  if ((unsigned)spec->joint.type >= HG_JOINT_NTYPES) {
    hg_error_set(err, "body '%s' has an unknown joint type", spec->name);
    return -1;
  }
  for (int k = 0; k < hg_joint_nv(spec->joint.type); k++)
    if (!(spec->armature[k] >= 0) || !isfinite(spec->armature[k])) {
      hg_error_set(err, "body '%s' has an invalid armature %g at DoF %d (must be finite, >= 0)",
                   spec->name, spec->armature[k], k);
      return -1;
    }
  if (b->nbody == b->cap &&
      (hg_grow((void **)&b->body, b->nbody, &b->cap, 16, sizeof *b->body) || builder_reindex(b)))
    return hg_error_fail(err, "out of memory");
  hg_body_spec *s = &b->body[b->nbody];
  *s = *spec;
  s->name = hg_strdup(spec->name);
  s->parent = hg_strdup(spec->parent && spec->parent[0] ? spec->parent : "world");
  s->joint_name = hg_strdup(spec->joint_name && spec->joint_name[0] ? spec->joint_name : spec->name);
  /* entries past the joint's DoFs are unread: keep them zero */
  for (int k = hg_joint_nv(spec->joint.type); k < HG_JOINT_MAXNV; k++) s->armature[k] = 0;
  if (!s->name || !s->parent || !s->joint_name) {
    free((char *)s->name); free((char *)s->parent); free((char *)s->joint_name);
    hg_error_set(err, "out of memory");
    return -1;
  }
  hg_names_insert(&b->names, spec_name, b->body, b->nbody);
  b->nbody++;
  return 0;
}

int hg_builder_add_geom(hg_builder *b, const char *body, const hg_geom *g, hg_error *err) {
  int i = builder_find(b, body);
  if (i < 0) {
    hg_error_set(err, "geometry for unknown body '%s'", body);
    return -1;
  }
  if (hg_grow((void **)&b->geom, b->ngeom, &b->gcap, 16, sizeof *b->geom))
    return hg_error_fail(err, "out of memory");
  hg_geom *s = &b->geom[b->ngeom];
  *s = *g;
  s->body = i;
  s->mesh = hg_strdup(g->mesh);
  if (g->mesh && !s->mesh) {
    hg_error_set(err, "out of memory");
    return -1;
  }
  b->ngeom++;
  return 0;
}

/* ---- compiling ---- */

/* m->local: the body-local pass, for models of revolute and prismatic joints without
 * post-offsets whose roots are revolute, prismatic or free (floating bases; hg_local_compile
 * refuses the rest); returns -1 only when out of memory */
static int compile_local(hg_model *m, hg_error *err) {
  hg_error why = {{0}};
  m->local = hg_local_compile(m, &why);
  if (m->local || !strstr(why.msg, "out of memory")) return 0;
  hg_error_set(err, "out of memory");
  return -1;
}

static void *alloc_array(size_t n, size_t size, int *fail) {
  void *p = calloc(n ? n : 1, size);
  if (!p) *fail = 1;
  return p;
}

void hg_model_free(hg_model *m) {
  if (!m) return;
  for (int i = 0; i < m->nbody; i++) {
    free(m->body_name ? m->body_name[i] : NULL);
    free(m->jnt_name ? m->jnt_name[i] : NULL);
  }
  for (int g = 0; g < m->ngeom; g++) free(m->geom[g].mesh);
  free(m->parent); free(m->subtree_end); free(m->by_depth); free(m->root); free(m->jnt); free(m->jnt_offset); free(m->offset_pure); free(m->jnt_post); free(m->has_post);
  free(m->q_adr); free(m->v_adr); free(m->jnt_nq); free(m->jnt_nv); free(m->D_adr);
  free(m->inertia); free(m->inertia_c); free(m->jnt_walk); free(m->jnt_axis); free(m->jnt_fold); free(m->limits); free(m->body_name); free(m->jnt_name);
  free(m->dof_body); free(m->dof_parent); free(m->armature); free(m->geom);
  free(m->mimic_follower); free(m->mimic_leader); free(m->mimic_mult); free(m->mimic_offset);
  hg_local_model_free(m->local);
  hg_names_free(&m->body_index);
  hg_names_free(&m->jnt_index);
  free(m);
}

static hg_model *model_alloc(int nbody, int ngeom) {
  hg_model *m = calloc(1, sizeof *m);
  if (!m) return NULL;
  int fail = 0;
  size_t n = (size_t)nbody;
  m->nbody = nbody;
  m->parent = alloc_array(n, sizeof(int), &fail);
  m->subtree_end = alloc_array(n, sizeof(int), &fail);
  m->by_depth = alloc_array(n, sizeof(int), &fail);
  m->root = alloc_array(n, sizeof(int), &fail);
  m->jnt = alloc_array(n, sizeof(hg_joint), &fail);
  m->jnt_offset = alloc_array(n, sizeof(hg_se3), &fail);
  m->offset_pure = alloc_array(n, sizeof(uint8_t), &fail);
  m->jnt_post = alloc_array(n, sizeof(hg_se3), &fail);
  m->has_post = alloc_array(n, sizeof(uint8_t), &fail);
  m->q_adr = alloc_array(n, sizeof(int), &fail);
  m->v_adr = alloc_array(n, sizeof(int), &fail);
  m->jnt_nq = alloc_array(n, sizeof(int), &fail);
  m->jnt_nv = alloc_array(n, sizeof(int), &fail);
  m->D_adr = alloc_array(n, sizeof(int), &fail);
  m->inertia = alloc_array(n, sizeof(hg_inertia), &fail);
  m->inertia_c = alloc_array(n, sizeof(hg_inertia_c), &fail);
  m->jnt_walk = alloc_array(n, sizeof(uint8_t), &fail);
  m->jnt_axis = alloc_array(n, sizeof(int8_t), &fail);
  m->jnt_fold = alloc_array(n, sizeof(hg_joint_fold), &fail);
  m->limits = alloc_array(n, sizeof(hg_joint_limits), &fail);
  m->body_name = alloc_array(n, sizeof(char *), &fail);
  m->jnt_name = alloc_array(n, sizeof(char *), &fail);
  m->geom = alloc_array((size_t)ngeom, sizeof(hg_geom), &fail);
  if (fail) {
    hg_model_free(m);
    return NULL;
  }
  return m;
}

/* the model's mimic couplings from the builder's, by joint name; a coupling whose follower or
 * leader is no longer in the model (removed with its subtree, or detached: its joint replaced by
 * a free one) is dropped, and the follower moves on its own. 0, or -1 with err. */
static int compile_mimic(const hg_builder *b, hg_model *m, hg_error *err) {
  int fail = 0, n = 0;
  m->mimic_follower = alloc_array((size_t)b->nmimic, sizeof(int), &fail);
  m->mimic_leader = alloc_array((size_t)b->nmimic, sizeof(int), &fail);
  m->mimic_mult = alloc_array((size_t)b->nmimic, sizeof(double), &fail);
  m->mimic_offset = alloc_array((size_t)b->nmimic, sizeof(double), &fail);
  if (fail) return hg_error_set(err, "out of memory"), -1;
  for (int k = 0; k < b->nmimic; k++) {
    const struct builder_mimic *M = &b->mimic[k];
    int f = hg_model_joint(m, M->follower), l = hg_model_joint(m, M->leader);
    if (f < 0 || l < 0) continue;
    if (f == l) return hg_error_set(err, "joint '%s' mimics itself", M->follower), -1;
    if (m->jnt_nv[f] != 1 || m->jnt_nv[l] != 1)
      return hg_error_set(err, "mimic joints '%s' and '%s' must both have one DoF", M->follower,
                          M->leader), -1;
    m->mimic_follower[n] = f, m->mimic_leader[n] = l;
    m->mimic_mult[n] = M->mult, m->mimic_offset[n] = M->offset;
    n++;
  }
  m->nmimic = n;
  return 0;
}

hg_model *hg_builder_assemble(const hg_builder *b, hg_error *err) {
  int n = b->nbody;
  /* resolve parents: -1 is the world */
  int *par = malloc(((size_t)n + 1) * sizeof(int));
  int *order = malloc(((size_t)n + 1) * sizeof(int));
  int *stack = malloc(((size_t)n + 1) * sizeof(int));
  int *newidx = malloc(((size_t)n + 1) * sizeof(int));
  int *head = calloc((size_t)n + 2, sizeof(int)), *next = malloc(((size_t)n + 1) * sizeof(int));
  hg_name_index joints = {0, NULL};
  hg_model *m = NULL;
  if (!par || !order || !stack || !newidx || !head || !next || hg_names_reset(&joints, n)) {
    hg_error_set(err, "out of memory");
    goto done;
  }
  /* parents by name (hashed) and unique joint names: O(N) */
  for (int i = 0; i < n; i++) {
    const char *p = b->body[i].parent;
    par[i] = strcmp(p, "world") == 0 ? -1 : builder_find(b, p);
    if (par[i] < 0 && strcmp(p, "world") != 0) {
      hg_error_set(err, "body '%s' names an unknown parent '%s'", b->body[i].name, p);
      goto done;
    }
    int k = hg_names_insert(&joints, spec_joint, b->body, i);
    if (k >= 0) {
      hg_error_set(err, "duplicate joint name '%s' (bodies '%s' and '%s')", b->body[i].joint_name,
                b->body[k].name, b->body[i].name);
      goto done;
    }
  }
  /* child lists (head[p + 1] for parent p, the world at 0), newest first */
  for (int i = 0; i <= n; i++) head[i] = -1;
  for (int i = 0; i < n; i++) {
    next[i] = head[par[i] + 1];
    head[par[i] + 1] = i;
  }
  /* depth-first order from the world, children in the order they were added */
  int count = 0, top = 0;
  for (int k = head[0]; k >= 0; k = next[k]) stack[top++] = k;
  while (top > 0) {
    int i = stack[--top];
    newidx[i] = count + 1;
    order[count++] = i;
    for (int k = head[i + 1]; k >= 0; k = next[k]) stack[top++] = k;
  }
  if (count < n) {
    for (int i = 0; i < n; i++) newidx[i] = 0;
    for (int k = 0; k < count; k++) newidx[order[k]] = 1;
    for (int i = 0; i < n; i++)
      if (!newidx[i]) {
        hg_error_set(err, "body '%s' is part of a cycle of parents and never reaches the world",
                  b->body[i].name);
        goto done;
      }
  }
  m = model_alloc(n + 1, b->ngeom);
  if (!m) {
    hg_error_set(err, "out of memory");
    goto done;
  }
  /* the world: body 0 with a fixed placeholder joint */
  const char *why = NULL;
  m->parent[0] = -1;
  hg_joint_init(&m->jnt[0], HG_JOINT_FIXED, NULL, NULL, 0, &why);
  hg_se3_identity(&m->jnt_offset[0]);
  hg_se3_identity(&m->jnt_post[0]);
  m->jnt_walk[0] = HG_WALK_GENERAL;
  m->jnt_axis[0] = -1;
  m->body_name[0] = hg_strdup("world");
  m->jnt_name[0] = hg_strdup("world");
  m->gravity[2] = -9.81;
  /* bodies in topological order, with their q, v and D addresses */
  for (int k = 0; k < n; k++) {
    const hg_body_spec *s = &b->body[order[k]];
    int i = k + 1;
    m->parent[i] = par[order[k]] < 0 ? 0 : newidx[par[order[k]]];
    m->root[i] = m->parent[i] == 0 ? i : m->root[m->parent[i]];
    m->jnt[i] = s->joint;
    m->jnt_offset[i] = s->offset;
    m->has_post[i] = s->has_post != 0;
    if (s->has_post) m->jnt_post[i] = s->post;
    else hg_se3_identity(&m->jnt_post[i]);
    {
      const double *R = s->offset.R;
      m->offset_pure[i] = R[0] == 1 && R[4] == 1 && R[8] == 1 && R[1] == 0 && R[2] == 0 &&
                          R[3] == 0 && R[5] == 0 && R[6] == 0 && R[7] == 0;
    }
    m->inertia[i] = s->inertia;
    hg_inertia_to_c(&s->inertia, &m->inertia_c[i]);
    /* the joint's fast path (none after a post-offset, which moves the child frame) */
    m->jnt_walk[i] = (uint8_t)hg_joint_walk(&s->joint, s->offset.R, s->has_post);
    m->jnt_axis[i] = (int8_t)(s->has_post ? -1 : hg_joint_axis_index(&s->joint));
    hg_joint_fold_init(&s->joint, s->offset.R, &m->jnt_fold[i]);
    m->limits[i] = s->limits;
    m->jnt_nq[i] = hg_joint_nq(s->joint.type);
    m->jnt_nv[i] = hg_joint_nv(s->joint.type);
    m->q_adr[i] = m->nq;
    m->v_adr[i] = m->nv;
    m->D_adr[i] = m->nD;
    m->nq += m->jnt_nq[i];
    m->nv += m->jnt_nv[i];
    m->nD += m->jnt_nv[i] * m->jnt_nv[i];
    m->body_name[i] = hg_strdup(s->name);
    m->jnt_name[i] = hg_strdup(s->joint_name);
  }
  int names_ok = 1;
  for (int i = 0; i <= n; i++) names_ok &= m->body_name[i] && m->jnt_name[i];
  /* the name indices (a duplicate keeps its first body, as a scan from the root would) */
  names_ok = names_ok && !hg_names_of_strings(&m->body_index, m->body_name, 0, n + 1) &&
             !hg_names_of_strings(&m->jnt_index, m->jnt_name, 1, n + 1);
  if (!names_ok) {
    hg_error_set(err, "out of memory");
    hg_model_free(m);
    m = NULL;
    goto done;
  }
  /* subtree ranges: depth-first order makes every subtree contiguous */
  for (int i = n; i >= 0; i--) {
    if (m->subtree_end[i] == 0) m->subtree_end[i] = i + 1;
    int p = m->parent[i];
    if (p >= 0 && m->subtree_end[i] > m->subtree_end[p]) m->subtree_end[p] = m->subtree_end[i];
  }
  /* the moving bodies by depth, deepest first, then by decreasing index (a counting sort; a
   * parent comes before its children in depth-first order, so depth[p] is known at i) */
  {
    int *depth = m->by_depth, maxd = 0, *per = NULL;
    depth[0] = 0;
    for (int i = 1; i <= n; i++) {
      depth[i] = depth[m->parent[i]] + 1;
      if (depth[i] > maxd) maxd = depth[i];
    }
    per = calloc((size_t)maxd + 2, sizeof(int));
    int *sorted = malloc((size_t)(n > 0 ? n : 1) * sizeof(int));
    if (!per || !sorted) {
      free(per), free(sorted);
      hg_error_set(err, "out of memory");
      hg_model_free(m);
      m = NULL;
      goto done;
    }
    /* per[d]: first place of depth d, after every deeper body */
    for (int i = 1; i <= n; i++) per[depth[i]]++;
    for (int d = maxd, start = 0; d >= 1; d--) {
      int c = per[d];
      per[d] = start;
      start += c;
    }
    for (int i = n; i >= 1; i--) sorted[per[depth[i]]++] = i;
    memcpy(m->by_depth, sorted, (size_t)n * sizeof(int));
    free(per), free(sorted);
  }
  /* DoF owners */
  int fail = 0;
  m->dof_body = alloc_array((size_t)m->nv, sizeof(int), &fail);
  m->dof_parent = alloc_array((size_t)m->nv, sizeof(int), &fail);
  m->armature = alloc_array((size_t)m->nv, sizeof(double), &fail);
  if (fail) {
    hg_error_set(err, "out of memory");
    hg_model_free(m);
    m = NULL;
    goto done;
  }
  for (int i = 1; i <= n; i++)
    for (int k = 0; k < m->jnt_nv[i]; k++) m->dof_body[m->v_adr[i] + k] = i;
  /* armature per DoF, from each body's spec (order[i - 1] is body i's spec) */
  for (int i = 1; i <= n; i++)
    for (int k = 0; k < m->jnt_nv[i]; k++) {
      double a = b->body[order[i - 1]].armature[k];
      m->armature[m->v_adr[i] + k] = a;
      if (a != 0) m->has_armature = 1;
    }
  /* DoF parents: the last DoF on the path from each body to the world (-1: none), in last */
  {
    int *last = stack; /* reused: n + 1 entries, no longer needed */
    last[0] = -1;
    for (int i = 1; i <= n; i++) {
      int va = m->v_adr[i], nj = m->jnt_nv[i];
      for (int k = 0; k < nj; k++) m->dof_parent[va + k] = k ? va + k - 1 : last[m->parent[i]];
      last[i] = nj ? va + nj - 1 : last[m->parent[i]];
    }
  }
  /* geometry */
  m->ngeom = b->ngeom;
  for (int g = 0; g < b->ngeom; g++) {
    m->geom[g] = b->geom[g];
    m->geom[g].body = newidx[b->geom[g].body];
    m->geom[g].mesh = hg_strdup(b->geom[g].mesh);
  }
  if (compile_mimic(b, m, err)) {
    hg_model_free(m);
    m = NULL;
    goto done;
  }
  if (compile_local(m, err)) {
    hg_model_free(m);
    m = NULL;
    goto done;
  }
done:
  free(par); free(order); free(stack); free(newidx); free(head); free(next); free(joints.slot);
  return m;
}

int hg_model_set_body_inertia(hg_model *m, int body, const hg_inertia *I) {
  if (!m || !I || body < 1 || body >= m->nbody) return -1;
  /* physical: finite, positive mass, I_c about the centre of mass positive definite (the
   * builder's test, hg_builder_add_body, with its tolerance for the recovery of I_c) */
  double c[3], Ic[6];
  char why[200];
  if (!(I->m > 0) || !isfinite(I->m)) return -1;
  for (int r = 0; r < 3; r++)
    if (!isfinite(I->h[r])) return -1;
  for (int r = 0; r < 6; r++)
    if (!isfinite(I->I[r])) return -1;
  hg_inertia_com(I, c, Ic);
  if (hg_inertia_check(I->m, Ic, 1e-12 * I->m * hg_v3_dot(c, c), why, sizeof why)) return -1;
  /* positive definite (Sylvester: the leading minors of I_c positive) */
  double m2 = Ic[0] * Ic[1] - Ic[3] * Ic[3];
  double m3 = Ic[0] * (Ic[1] * Ic[2] - Ic[5] * Ic[5]) - Ic[3] * (Ic[3] * Ic[2] - Ic[5] * Ic[4]) +
              Ic[4] * (Ic[3] * Ic[5] - Ic[1] * Ic[4]);
  if (!(Ic[0] > 0 && m2 > 0 && m3 > 0)) return -1;
  /* what the compiler derives from it: the walk's inertia about the centre of mass and the
   * body-local pass's constants (the hg_data inertias are recomputed at every walk) */
  m->inertia[body] = *I;
  hg_inertia_to_c(I, &m->inertia_c[body]);
  if (m->local) hg_local_set_inertia(m->local, m, body);
  return 0;
}

/* ---- model queries and joint-by-joint group operations ---- */

int hg_model_body(const hg_model *m, const char *name) {
  return hg_names_find(&m->body_index, hg_name_of_string, m->body_name, name);
}

int hg_model_joint(const hg_model *m, const char *name) {
  return hg_names_find(&m->jnt_index, hg_name_of_string, m->jnt_name, name);
}

void hg_model_neutral(const hg_model *m, double *q) {
  for (int i = 1; i < m->nbody; i++) hg_joint_neutral(&m->jnt[i], q + m->q_adr[i]);
}

void hg_model_random(const hg_model *m, hg_rng *r, double *q) {
  for (int i = 1; i < m->nbody; i++) hg_joint_random(&m->jnt[i], r, q + m->q_adr[i]);
}

void hg_model_integrate(const hg_model *m, const double *q, const double *dv, double h, double *qout) {
  for (int i = 1; i < m->nbody; i++)
    hg_joint_integrate(&m->jnt[i], q + m->q_adr[i], dv + m->v_adr[i], h, qout + m->q_adr[i]);
}

void hg_model_difference(const hg_model *m, const double *q0, const double *q1, double *dv) {
  for (int i = 1; i < m->nbody; i++)
    hg_joint_difference(&m->jnt[i], q0 + m->q_adr[i], q1 + m->q_adr[i], dv + m->v_adr[i]);
}

/* ---- data ---- */

hg_data *hg_data_new(const hg_model *m) {
  hg_data *d = calloc(1, sizeof *d);
  if (!d) return NULL;
  int fail = 0;
  size_t nb = (size_t)m->nbody, nv = (size_t)m->nv;
  d->T_rel = alloc_array(nb, sizeof(hg_se3), &fail);
  d->T_world = alloc_array(nb, sizeof(hg_se3), &fail);
  d->T_tree = alloc_array(nb, sizeof(hg_se3), &fail);
  d->I = alloc_array(nb, sizeof(hg_inertia), &fail);
  d->S = alloc_array(nv, sizeof(hg_vec6), &fail);
  d->V = alloc_array(nb, sizeof(hg_vec6), &fail);
  d->vt = alloc_array(nb, sizeof(double[3]), &fail);
  d->Vg = alloc_array(nb, sizeof(hg_vec6), &fail);
  d->xi = alloc_array(nv, sizeof(double), &fail);
  d->c = alloc_array(nb, sizeof(hg_vec6), &fail);
  d->a = alloc_array(nb, sizeof(hg_vec6), &fail);
  d->F = alloc_array(nb, sizeof(hg_vec6), &fail);
  d->IA = alloc_array(nb, sizeof(hg_sym6), &fail);
  d->pA = alloc_array(nb, sizeof(hg_vec6), &fail);
  d->U = alloc_array(nv, sizeof(hg_vec6), &fail);
  d->Dinv = alloc_array((size_t)m->nD, sizeof(double), &fail);
  d->u = alloc_array(nv, sizeof(double), &fail);
  d->mode = alloc_array(nb, sizeof(uint8_t), &fail);
  if (m->local && !(d->local = hg_local_data_new(m->local))) fail = 1;
  if (fail) {
    hg_data_free(d);
    return NULL;
  }
  hg_se3_identity(&d->T_rel[0]);
  hg_se3_identity(&d->T_world[0]);
  hg_se3_identity(&d->T_tree[0]);
  return d;
}

void hg_data_free(hg_data *d) {
  if (!d) return;
  free(d->T_rel); free(d->T_world); free(d->T_tree); free(d->I); free(d->S); free(d->V); free(d->vt); free(d->Vg); free(d->xi); free(d->c); free(d->a); free(d->F);
  free(d->IA); free(d->pA); free(d->U); free(d->Dinv); free(d->u); free(d->mode);
  hg_local_data_free(d->local);
  free(d);
}

/* ---- editing a builder ---- */

/* 1 when body i lies in the subtree of body r: walks up the parents, memoizing each answer in
 * state (0 unknown, 1 in, 2 out, 3 on the current walk: a cycle of parents counts as out) */
static int in_subtree(const int *par, int r, int i, uint8_t *state) {
  int top = i, ans;
  /* walk up to a body whose answer is known, the removed body or the world */
  while (top >= 0 && top != r && state[top] == 0) {
    state[top] = 3;
    top = par[top];
  }
  ans = top == r ? 1 : (top < 0 || state[top] != 1) ? 2 : 1;
  /* write the answer along the walk */
  for (int k = i; k >= 0 && k != r && state[k] == 3; k = par[k]) state[k] = (uint8_t)ans;
  return ans == 1;
}

/* drops the geometry of removed bodies and renumbers the rest (newidx: -1 for removed) */
static void remove_geoms(hg_builder *b, const int *newidx) {
  int n = 0;
  for (int g = 0; g < b->ngeom; g++) {
    if (newidx[b->geom[g].body] < 0) {
      free(b->geom[g].mesh);
      continue;
    }
    b->geom[n] = b->geom[g];
    b->geom[n++].body = newidx[b->geom[g].body];
  }
  b->ngeom = n;
}

int hg_builder_remove_body(hg_builder *b, const char *name, hg_error *err) {
  int r = builder_find(b, name), n = b->nbody, count = 0;
  if (r < 0) {
    hg_error_set(err, "cannot remove '%s': no such body", name);
    return -1;
  }
  int *par = malloc((size_t)n * sizeof(int)), *newidx = malloc((size_t)n * sizeof(int));
  uint8_t *state = calloc((size_t)n, 1);
  if (!par || !newidx || !state) {
    free(par); free(newidx); free(state);
    hg_error_set(err, "out of memory");
    return -1;
  }
  /* parents by index (-1: the world or unknown), then the subtree of r */
  for (int i = 0; i < n; i++) par[i] = builder_find(b, b->body[i].parent);
  state[r] = 1;
  /* keep the others in order, freeing the names of the removed */
  for (int i = 0; i < n; i++) {
    if (in_subtree(par, r, i, state)) {
      newidx[i] = -1;
      free((char *)b->body[i].name); free((char *)b->body[i].parent);
      free((char *)b->body[i].joint_name);
      continue;
    }
    newidx[i] = count;
    b->body[count++] = b->body[i];
  }
  b->nbody = count;
  remove_geoms(b, newidx);
  if (builder_reindex(b)) {
    free(par); free(newidx); free(state);
    hg_error_set(err, "out of memory");
    return -1;
  }
  free(par); free(newidx); free(state);
  return 0;
}
