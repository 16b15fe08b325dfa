/* test_aba_local.c: the body-local ABA (dynamics/algorithms/aba_local.h) and its plain second
 * implementation (local_oracle.h: dense 6x6 transforms, the same frames) against a long double
 * oracle (reference.h: Newton-Euler, composite rigid bodies and a Cholesky solve) on
 * the revolute benchmark models and random revolute and revolute-prismatic chains and forests
 * with random axes and joint origins, with gravity, random states, forces and external wrenches;
 * its hybrid and impulsive forms against the oracle's hybrid form with random joint modes. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aba_local.h"
#include "local_oracle.h"
#include "models.h"
#include "reference.h"

/* the tree-frame pass, the reference the body-local pass is checked against */
static const hg_pass_options tree_frame = {.tree_frame = 1};

/* a random configuration: q in [-2, 2] for models of 1-DoF joints (nq = nv), else
 * hg_model_random (free roots: unit quaternions) */
static void random_q(const hg_model *m, hg_rng *r, double *q) {
  if (m->nq == m->nv) hg_test_random_vector(r, q, m->nq, -2, 2);
  else hg_model_random(m, r, q);
}

/* 1 when the long double oracle (reference.h: fixed bases) takes m; a floating base (a free
 * root) has the tree-frame pass (hg_pass_options.tree_frame) as its reference instead */
static int oracle_takes(const hg_model *m) {
  for (int i = 1; i < m->nbody; i++)
    if (m->jnt[i].type == HG_JOINT_FREE) return 0;
  return 1;
}

/* the pass variants: 0, the plain pass of local_oracle.h; 1, aba_local.h's sweeps */
static const char *const variant[2] = {"plain", "sweeps"};

/* the largest |qdd_local - qdd_ref| over max(1, |qdd_ref|_inf) over nstates random states of m
 * (q, v in [-2, 2], tau in [-5, 5]; fext random when with_fext), for one variant, qdd_ref from
 * the long double oracle. hg_aba is not the reference: working about each tree's root it loses
 * digits on bodies far from it (random prismatic chain 36: 1.01e-12 off the oracle where both
 * local variants are within 5e-16); it only guards the oracle (to 1e-11). On a floating base
 * qdd_ref is hg_aba's (the tree-frame pass). */
static double worst_error(const hg_model *m, int sweeps, int nstates, int with_fext, hg_rng *r) {
  hg_error err;
  hg_local_model *lm = hg_local_compile(m, &err);
  if (!lm) fail_msg("hg_local_compile: %s", err.msg);
  hg_local_data *ld = hg_local_data_new(lm);
  hg_data *d = hg_data_new(m);
  int nv = m->nv;
  double *q = calloc(m->nq, sizeof *q), *v = calloc(nv, sizeof *v), *tau = calloc(nv, sizeof *tau);
  double *qa = calloc(nv, sizeof *qa), *ql = calloc(nv, sizeof *ql), *qr = calloc(nv, sizeof *qr);
  double *fext = calloc(6 * (size_t)m->nbody, sizeof *fext);
  double worst = 0;
  for (int k = 0; k < nstates; k++) {
    random_q(m, r, q);
    hg_test_random_vector(r, v, nv, -2, 2);
    hg_test_random_vector(r, tau, nv, -5, 5);
    hg_test_random_vector(r, fext, 6 * m->nbody, -1, 1);
    const double *fe = with_fext ? fext : NULL;
    assert_int_equal(hg_aba_opt(m, d, &tree_frame, q, v, tau, fe, qa), 0);
    if (oracle_takes(m)) assert_int_equal(hg_test_forward_ld(m, q, v, tau, fe, qr), 0);
    else memcpy(qr, qa, (size_t)nv * sizeof *qr);
    if (sweeps) assert_int_equal(hg_local_aba(lm, ld, q, v, tau, fe, ql), 0);
    else assert_int_equal(hg_test_local_aba(lm, q, v, tau, fe, ql), 0);
    double scale = 1, e = 0, ea = 0;
    for (int i = 0; i < nv; i++) scale = fmax(scale, fabs(qr[i]));
    for (int i = 0; i < nv; i++)
      e = fmax(e, fabs(ql[i] - qr[i])), ea = fmax(ea, fabs(qa[i] - qr[i]));
    if (!(ea <= 1e-11 * scale)) fail_msg("the oracle is %.3g off hg_aba", ea / scale);
    worst = fmax(worst, e / scale);
  }
  free(q), free(v), free(tau), free(qa), free(ql), free(qr), free(fext);
  hg_data_free(d);
  hg_local_data_free(ld);
  hg_local_model_free(lm);
  return worst;
}

/* both variants on m, with and without external wrenches, to 1e-12 relative */
static void check_model(const hg_model *m, const char *name, hg_rng *r) {
  for (int w = 0; w < 2; w++)
    for (int fe = 0; fe < 2; fe++) {
      double e = worst_error(m, w, 20, fe, r);
      if (!(e <= 1e-12))
        fail_msg("%s, %s, fext %d: relative qdd error %.3g", name, variant[w], fe, e);
    }
}

static void benchmark_models(void **state) {
  (void)state;
  hg_rng r;
  hg_rng_seed(&r, 11);
  hg_model *ms[3] = {hg_test_chain(30), hg_test_binary_tree(6), hg_test_arm7()};
  const char *names[3] = {"chain30", "tree63", "arm7"};
  for (int k = 0; k < 3; k++) {
    check_model(ms[k], names[k], &r);
    hg_model_free(ms[k]);
  }
}

static void random_revolute_models(void **state) {
  (void)state;
  hg_rng r;
  hg_rng_seed(&r, 12);
  for (int k = 0; k < 60; k++) {
    /* up to 31 bodies (before the joint frames took the normal's direction from z x dc, the
     * unfactored variant drifted to ~1.5e-12 of hg_aba on random chains of 35-40; now 2.1e-13,
     * factored 6.1e-13, over 200 random 40-chains and forests) */
    int chain = k % 3 == 0, nbody = 1 + (int)(hg_rng_uniform(&r) * 31);
    hg_model *m = hg_test_random_revolute(&r, nbody, chain);
    char name[64];
    snprintf(name, sizeof name, "random %s %d (%d bodies)", chain ? "chain" : "forest", k, nbody);
    check_model(m, name, &r);
    hg_model_free(m);
  }
}

/* axes that meet, are parallel or coincide, and origins on the axes: the degenerate common
 * normals of the joint-frame choice */
static void degenerate_axes(void **state) {
  (void)state;
  static const double ax[5][3] = {{0, 0, 1}, {0, 0, 1}, {1, 0, 0}, {0, 0, -1}, {0, 1, 1}};
  static const double off[5][3] = {{0, 0, 0}, {0, 0, 0.4}, {0, 0, 0.3}, {0.2, 0, 0}, {0, 0, 0}};
  hg_rng r;
  hg_rng_seed(&r, 13);
  hg_builder *b = hg_builder_new();
  for (int i = 0; i < 5; i++) {
    hg_inertia G;
    hg_se3 T;
    hg_se3_identity(&T);
    for (int c = 0; c < 3; c++) T.p[c] = off[i][c];
    hg_test_random_inertia(&r, &G);
    char name[8], parent[8];
    snprintf(name, sizeof name, "d%d", i);
    snprintf(parent, sizeof parent, "d%d", i - 1);
    hg_test_add_body(b, name, i ? parent : "world", HG_JOINT_REVOLUTE, ax[i], NULL, 0, &T, &G);
  }
  hg_model *m = hg_test_compile(b);
  check_model(m, "degenerate", &r);
  hg_model_free(m);
}

/* random revolute-prismatic chains and forests (about a third of the joints prismatic) */
static void random_prismatic_models(void **state) {
  (void)state;
  hg_rng r;
  hg_rng_seed(&r, 14);
  for (int k = 0; k < 60; k++) {
    int chain = k % 3 == 0, nbody = 1 + (int)(hg_rng_uniform(&r) * 31);
    hg_model *m = hg_test_random_1dof(&r, nbody, chain, k % 5 == 4 ? 1.0 : 0.35);
    char name[64];
    snprintf(name, sizeof name, "random %s %d (%d bodies)", chain ? "chain" : "forest", k, nbody);
    check_model(m, name, &r);
    hg_model_free(m);
  }
}

/* max |x - y| over max(1, |y|_inf, |z|_inf) (z: the other half of a hybrid result, or NULL) */
static double rel_diff(const double *x, const double *y, const double *z, int n) {
  double scale = 1, e = 0;
  for (int i = 0; i < n; i++) scale = fmax(scale, fmax(fabs(y[i]), z ? fabs(z[i]) : 0));
  for (int i = 0; i < n; i++) e = fmax(e, fabs(x[i] - y[i]));
  return e / scale;
}

/* hg_local_hybrid (impulse 0) or hg_local_hybrid_impulse (impulse 1) against the long double
 * oracle's hybrid form on nstates random states with random modes (free 1/2, prescribed 3/10,
 * locked 1/5), both variants; fails beyond 1e-12 relative (rel_diff) in qdd or tau. hg_hybrid
 * or hg_hybrid_impulse guards the oracle (to 1e-11), as in worst_error. */
static void check_hybrid(const hg_model *m, const char *name, int nstates, int impulse, hg_rng *r) {
  hg_error err;
  hg_data *d = hg_data_new(m);
  int nv = m->nv, nb = m->nbody;
  double *q = calloc(m->nq, sizeof *q), *v = calloc(nv, sizeof *v);
  double *qdd0 = calloc(nv, sizeof *qdd0), *tau0 = calloc(nv, sizeof *tau0);
  double *qa = calloc(nv, sizeof *qa), *ta = calloc(nv, sizeof *ta);
  double *ql = calloc(nv, sizeof *ql), *tl = calloc(nv, sizeof *tl);
  double *qr = calloc(nv, sizeof *qr), *tr = calloc(nv, sizeof *tr);
  double *fext = calloc(6 * (size_t)nb, sizeof *fext);
  for (int w = 0; w < 2; w++) {
    hg_local_model *lm = hg_local_compile(m, &err);
    if (!lm) fail_msg("hg_local_compile: %s", err.msg);
    hg_local_data *ld = hg_local_data_new(lm);
    for (int k = 0; k < nstates; k++) {
      random_q(m, r, q);
      hg_test_random_vector(r, v, nv, -2, 2);
      hg_test_random_vector(r, qdd0, nv, -3, 3);
      hg_test_random_vector(r, tau0, nv, -5, 5);
      hg_test_random_vector(r, fext, 6 * nb, -1, 1);
      for (int i = 1; i < nb; i++) {
        double u = hg_rng_uniform(r);
        d->mode[i] = u < 0.5 ? HG_MODE_FREE : u < 0.8 ? HG_MODE_PRESCRIBED : HG_MODE_LOCKED;
      }
      /* every state also once with every joint free (the mode-free pass behind hg_hybrid) */
      if (k == 0)
        for (int i = 1; i < nb; i++) d->mode[i] = HG_MODE_FREE;
      const double *fe = k % 2 ? fext : NULL;
      for (int i = 0; i < nv; i++) qa[i] = ql[i] = qr[i] = qdd0[i], ta[i] = tl[i] = tr[i] = tau0[i];
      if (impulse) {
        assert_int_equal(hg_hybrid_impulse_opt(m, d, &tree_frame, q, qa, ta), 0);
        if (w) assert_int_equal(hg_local_hybrid_impulse(lm, ld, d->mode, q, ql, tl), 0);
        else assert_int_equal(hg_test_local_hybrid_impulse(lm, d->mode, q, ql, tl), 0);
      } else {
        assert_int_equal(hg_hybrid_opt(m, d, &tree_frame, q, v, qa, ta, fe), 0);
        if (w) assert_int_equal(hg_local_hybrid(lm, ld, d->mode, q, v, ql, tl, fe), 0);
        else assert_int_equal(hg_test_local_hybrid(lm, d->mode, q, v, ql, tl, fe), 0);
      }
      /* the reference: the oracle, or on a floating base the tree-frame pass */
      if (oracle_takes(m))
        assert_int_equal(hg_test_hybrid_ld(m, d->mode, q, impulse ? NULL : v, qr, tr, fe), 0);
      else
        for (int i = 0; i < nv; i++) qr[i] = qa[i], tr[i] = ta[i];
      /* qdd of free joints answers tau of the others (and the reverse): both errors are
       * measured against the larger of the two results */
      double eq = rel_diff(ql, qr, tr, nv), et = rel_diff(tl, tr, qr, nv);
      double ga = fmax(rel_diff(qa, qr, tr, nv), rel_diff(ta, tr, qr, nv));
      if (!(ga <= 1e-11)) fail_msg("%s: the oracle is %.3g off hg_hybrid", name, ga);
      if (!(eq <= 1e-12) || !(et <= 1e-12))
        fail_msg("%s, %s, %s, state %d: relative error qdd %.3g, tau %.3g", name,
                 impulse ? "impulse" : "hybrid", variant[w], k, eq, et);
    }
    hg_local_data_free(ld);
    hg_local_model_free(lm);
  }
  free(q), free(v), free(qdd0), free(tau0), free(qa), free(ta), free(ql), free(tl), free(qr);
  free(tr), free(fext);
  hg_data_free(d);
}

/* hybrid and impulsive forms with random modes on the benchmark models and on random revolute
 * and revolute-prismatic models */
static void hybrid_modes(void **state) {
  (void)state;
  hg_rng r;
  hg_rng_seed(&r, 15);
  hg_model *ms[3] = {hg_test_chain(30), hg_test_binary_tree(6), hg_test_arm7()};
  const char *names[3] = {"chain30", "tree63", "arm7"};
  for (int k = 0; k < 3; k++) {
    check_hybrid(ms[k], names[k], 20, 0, &r);
    check_hybrid(ms[k], names[k], 10, 1, &r);
    hg_model_free(ms[k]);
  }
  for (int k = 0; k < 60; k++) {
    int chain = k % 3 == 0, nbody = 1 + (int)(hg_rng_uniform(&r) * 31);
    hg_model *m = hg_test_random_1dof(&r, nbody, chain, k % 2 ? 0.35 : 0);
    char name[64];
    snprintf(name, sizeof name, "random %s %d (%d bodies)", chain ? "chain" : "forest", k, nbody);
    check_hybrid(m, name, 10, 0, &r);
    check_hybrid(m, name, 5, 1, &r);
    hg_model_free(m);
  }
}

/* a random chain (chain != 0) or forest of nbody 1-DoF joints in the style of URDF robots: each
 * axis a coordinate axis (either sign), each origin turned by 0 or a multiple of 90 degrees about
 * a coordinate axis and offset along each axis with probability 1/2; about a third prismatic */
static hg_model *random_aligned(hg_rng *r, int nbody, int chain) {
  hg_builder *b = hg_builder_new();
  for (int i = 0; i < nbody; i++) {
    int c = (int)(hg_rng_uniform(r) * 3), turn = (int)(hg_rng_uniform(r) * 4);
    double axis[3] = {0, 0, 0}, w[3] = {0, 0, 0};
    axis[c] = hg_rng_uniform(r) < 0.5 ? 1 : -1;
    w[(int)(hg_rng_uniform(r) * 3)] = turn * 1.5707963267948966;
    hg_se3 T;
    hg_so3_exp(w, T.R);
    for (int k = 0; k < 3; k++) T.p[k] = hg_rng_uniform(r) < 0.5 ? hg_rng_range(r, -0.5, 0.5) : 0;
    hg_inertia G;
    hg_test_random_inertia(r, &G);
    int p = chain ? i - 1 : (int)(hg_rng_uniform(r) * (i + 1)) - 1;
    char name[16], parent[16];
    snprintf(name, sizeof name, "b%d", i);
    snprintf(parent, sizeof parent, "b%d", p);
    hg_joint_type type = hg_rng_uniform(r) < 0.35 ? HG_JOINT_PRISMATIC : HG_JOINT_REVOLUTE;
    hg_test_add_body(b, name, p < 0 ? "world" : parent, type, axis, NULL, 0, &T, &G);
  }
  return hg_test_compile(b);
}

/* axis-aligned joints behind turned origins (URDF-style chains and forests): every kind of
 * HG_LOCAL_KINDS with factors (body_frames.h; each a copy of every sweep's step) turns up, and
 * agrees with the oracle, in ABA and in the hybrid and impulsive forms; a joint takes the kind of
 * exactly its factors, or its axis's HG_LOCAL_ANY kind when no kind has them */
static void aligned_shapes(void **state) {
  (void)state;
  hg_rng r;
  hg_rng_seed(&r, 19);
  int seen[64] = {0}, kinds[HG_KIND_COUNT] = {0};
  static const int kind_shape[] = {
#define SHAPE(kind, k, shape) shape,
      HG_LOCAL_KINDS(SHAPE)
#undef SHAPE
  };
  for (int k = 0; k < 80; k++) {
    int chain = k % 3 == 0, nbody = 1 + (int)(hg_rng_uniform(&r) * 20);
    hg_model *m = random_aligned(&r, nbody, chain);
    assert_non_null(m->local);
    for (int i = 1; i < m->nbody; i++) {
      const hg_local_link *l = &m->local->link[i];
      seen[l->factors & 63]++;
      kinds[l->kind]++;
      /* the kind of exactly the joint's factors, or the HG_LOCAL_ANY kind when none has them */
      assert_true(l->kind < HG_KIND_FLOATING);
      int listed = 0;
      for (int t = 0; t < HG_KIND_FLOATING; t++) listed |= kind_shape[t] == l->factors;
      if (kind_shape[l->kind] == HG_LOCAL_ANY) assert_false(listed);
      else assert_int_equal(kind_shape[l->kind], l->factors);
    }
    char name[64];
    snprintf(name, sizeof name, "aligned %s %d (%d bodies)", chain ? "chain" : "forest", k, nbody);
    check_model(m, name, &r);
    check_hybrid(m, name, 5, 0, &r);
    check_hybrid(m, name, 3, 1, &r);
    hg_model_free(m);
  }
  printf("# aligned_shapes: joints per factors:");
  for (int f = 0; f < 64; f++)
    if (seen[f]) printf(" %d:%d", f, seen[f]);
  printf("\n# joints per kind:");
  for (int t = 0; t < HG_KIND_COUNT; t++) printf(" %d:%d", t, kinds[t]);
  printf("\n");
#define SEEN(kind, k, shape)                                                                       \
  if (!((shape) & HG_LOCAL_RP) && !kinds[kind]) fail_msg("kind %s never compiled", #kind);
  HG_LOCAL_KINDS(SEEN)
#undef SEEN
}

/* a random chain of nbody joints, each axis turned by eps from its parent's about an axis normal
 * to both the parent's axis and the joint's offset, so the two axes nearly meet far away (the
 * common normal's foot at ~|offset| / eps); about half prismatic */
static hg_model *nearly_parallel(hg_rng *r, int nbody, double eps) {
  hg_builder *b = hg_builder_new();
  for (int i = 0; i < nbody; i++) {
    static const double z[3] = {0, 0, 1};
    double axis[3] = {sin(eps), 0, cos(eps)};
    hg_se3 T;
    hg_se3_identity(&T);
    T.p[0] = hg_rng_range(r, 0.2, 0.5), T.p[2] = hg_rng_range(r, -0.3, 0.3);
    hg_inertia G;
    hg_test_random_inertia(r, &G);
    char name[16], parent[16];
    snprintf(name, sizeof name, "n%d", i);
    snprintf(parent, sizeof parent, "n%d", i - 1);
    hg_joint_type type = hg_rng_uniform(r) < 0.5 ? HG_JOINT_PRISMATIC : HG_JOINT_REVOLUTE;
    hg_test_add_body(b, name, i ? parent : "world", type, i ? axis : z, NULL, 0, &T, &G);
  }
  return hg_test_compile(b);
}

/* nearly parallel axes: long b and d that cancel would lose digits in the factors, so such
 * joints take the (R, p) kinds (both axes turn up), which agree with the oracle in ABA and in
 * the hybrid and impulsive forms */
static void parallel_axes(void **state) {
  (void)state;
  hg_rng r;
  hg_rng_seed(&r, 21);
  int kinds[HG_KIND_COUNT] = {0};
  for (int k = 0; k < 12; k++) {
    double eps = k % 3 == 0 ? 0.05 : k % 3 == 1 ? 0.02 : 0.01;
    hg_model *m = nearly_parallel(&r, 3 + k % 5, eps);
    assert_non_null(m->local);
    for (int i = 1; i < m->nbody; i++) kinds[m->local->link[i].kind]++;
    char name[64];
    snprintf(name, sizeof name, "nearly parallel %d (eps %g)", k, eps);
    check_model(m, name, &r);
    check_hybrid(m, name, 5, 0, &r);
    check_hybrid(m, name, 3, 1, &r);
    hg_model_free(m);
  }
  printf("# parallel_axes: (R, p) joints: revolute %d, prismatic %d\n", kinds[HG_KIND_REV_RP],
         kinds[HG_KIND_PRI_RP]);
  assert_true(kinds[HG_KIND_REV_RP] > 0 && kinds[HG_KIND_PRI_RP] > 0);
}

/* lm->order on random forests with floating trees among fixed ones: each range between
 * floating_list's entries is a permutation of its own indices, by nondecreasing depth, so every
 * body comes after its parent (the sweeps' order, which the other tests check by results); and
 * lm->chain marks exactly the ranges with one body at each depth (a path, whose acceleration
 * sweep takes its own step: the oracle tests check its results) */
static void sweep_order(void **state) {
  (void)state;
  hg_rng r;
  hg_rng_seed(&r, 20);
  int nchain = 0, nbranched = 0;
  for (int k = 0; k < 40; k++) {
    int nbody = 2 + (int)(hg_rng_uniform(&r) * 40), ntrees = 1 + k % 4 < nbody ? 1 + k % 4 : nbody;
    hg_model *m = k % 2 ? hg_test_random_floating(&r, nbody, ntrees, 0.3)
                        : hg_test_random_1dof(&r, nbody, k % 4 == 0, 0.3);
    const hg_local_model *lm = m->local;
    assert_non_null(lm);
    int n = lm->nbody, *depth = calloc(n, sizeof *depth), *pos = calloc(n, sizeof *pos);
    for (int i = 1; i < n; i++) depth[i] = depth[m->parent[i]] + 1;
    const int *fl = lm->floating_list;
    assert_int_equal(fl[0], 0);
    assert_int_equal(fl[lm->nfloating + 1], n);
    for (int f = 0; f <= lm->nfloating; f++) {
      assert_int_equal(lm->order[fl[f]], fl[f]);
      for (int t = fl[f] + 1; t < fl[f + 1]; t++) {
        int i = lm->order[t];
        assert_true(i > fl[f] && i < fl[f + 1] && !pos[i]);
        pos[i] = t;
        if (t > fl[f] + 1) assert_true(depth[i] >= depth[lm->order[t - 1]]);
      }
      int path = 1;
      for (int t = fl[f] + 2; t < fl[f + 1]; t++)
        path &= depth[lm->order[t]] != depth[lm->order[t - 1]];
      assert_int_equal(lm->chain[f], path);
      if (fl[f + 1] - fl[f] > 2) path ? nchain++ : nbranched++;
    }
    /* parents first: the world, a floating root (swept on its own) or an earlier position */
    for (int i = 1; i < n; i++) {
      int p = m->parent[i];
      if (p && !lm->floating[p] && !lm->floating[i]) assert_true(pos[p] < pos[i]);
    }
    free(depth), free(pos);
    hg_model_free(m);
  }
  /* both kinds occurred (ranges of two bodies or more) */
  printf("  ranges: %d chains, %d branched\n", nchain, nbranched);
  assert_true(nchain > 0 && nbranched > 0);
}

/* prismatic roots sliding at 1e6 (the Galilean frame of hg_kinematics): the accelerations are
 * still those of hg_aba to 1e-12 relative */
static void fast_prismatic_roots(void **state) {
  (void)state;
  hg_rng r;
  hg_rng_seed(&r, 16);
  hg_error err;
  for (int k = 0; k < 10; k++) {
    hg_model *m = hg_test_random_1dof(&r, 12, k % 2, 0.5);
    hg_data *d = hg_data_new(m);
    int nv = m->nv;
    double q[12], v[12], tau[12], qa[12], ql[12];
    for (int w = 0; w < 2; w++) {
      hg_local_model *lm = hg_local_compile(m, &err);
      hg_local_data *ld = hg_local_data_new(lm);
      hg_test_random_vector(&r, q, nv, -2, 2);
      hg_test_random_vector(&r, v, nv, -2, 2);
      hg_test_random_vector(&r, tau, nv, -5, 5);
      for (int i = 1; i < m->nbody; i++)
        if (m->parent[i] == 0 && m->jnt[i].type == HG_JOINT_PRISMATIC) v[m->v_adr[i]] = 1e6;
      assert_int_equal(hg_aba_opt(m, d, &tree_frame, q, v, tau, NULL, qa), 0);
      if (w) assert_int_equal(hg_local_aba(lm, ld, q, v, tau, NULL, ql), 0);
      else assert_int_equal(hg_test_local_aba(lm, q, v, tau, NULL, ql), 0);
      double e = rel_diff(ql, qa, NULL, nv);
      if (!(e <= 1e-12)) fail_msg("model %d, %s: relative qdd error %.3g", k, variant[w], e);
      hg_local_data_free(ld);
      hg_local_model_free(lm);
    }
    hg_data_free(d);
    hg_model_free(m);
  }
}

/* floating bases (free root joints): the humanoid and random forests of one to three floating
 * trees with revolute and prismatic joints below, ABA (both variants, with and without external
 * wrenches), hybrid with random modes (the roots' too) and impulsive, to 1e-12 relative */
static void floating_models(void **state) {
  (void)state;
  hg_rng r;
  hg_rng_seed(&r, 17);
  for (int k = 0; k < 31; k++) {
    int nbody = 1 + (int)(hg_rng_uniform(&r) * 31);
    hg_model *m = k == 0 ? hg_test_humanoid()
                         : hg_test_random_floating(&r, nbody, 1 + k % 3 < nbody ? 1 + k % 3 : 1,
                                                   k % 2 ? 0.3 : 0);
    char name[64];
    snprintf(name, sizeof name, k ? "random floating %d (%d bodies)" : "humanoid", k, nbody);
    check_model(m, name, &r);
    check_hybrid(m, name, 10, 0, &r);
    check_hybrid(m, name, 5, 1, &r);
    hg_model_free(m);
  }
  /* a forest mixing floating, revolute and prismatic roots, the floating ones between the others
   * in index order */
  static const struct { const char *name, *parent; hg_joint_type type; } mix[9] = {
      {"a", "world", HG_JOINT_REVOLUTE}, {"b", "a", HG_JOINT_PRISMATIC},
      {"c", "world", HG_JOINT_FREE},     {"d", "c", HG_JOINT_REVOLUTE},
      {"e", "d", HG_JOINT_REVOLUTE},     {"f", "world", HG_JOINT_PRISMATIC},
      {"g", "f", HG_JOINT_REVOLUTE},     {"h", "world", HG_JOINT_FREE},
      {"i", "world", HG_JOINT_FREE}};
  hg_builder *b = hg_builder_new();
  for (int i = 0; i < 9; i++) {
    double axis[3];
    hg_se3 off;
    hg_inertia G;
    hg_test_random_vector(&r, axis, 3, -1, 1);
    hg_test_random_pose(&r, &off);
    hg_test_random_inertia(&r, &G);
    hg_test_add_body(b, mix[i].name, mix[i].parent, mix[i].type, axis, NULL, 0, &off, &G);
  }
  hg_model *m = hg_test_compile(b);
  assert_non_null(m->local);
  assert_int_equal(m->local->nfloating, 3);
  check_model(m, "mixed forest", &r);
  check_hybrid(m, "mixed forest", 20, 0, &r);
  check_hybrid(m, "mixed forest", 10, 1, &r);
  hg_model_free(m);
}

static double view_diff(const hg_model *m, const double (*x)[6], const double (*y)[6]);
static void views(const hg_model *m, const hg_data *d, double (*V)[6], double (*A)[6],
                  double (*F)[6]);

/* the buffers of one comparison of the dispatched (l), tree-frame (t) and direct body-local (o)
 * passes on one model: the state and inputs, each pass's results, the views after them */
typedef struct two_passes {
  double *q, *v, *fext, *in_q, *in_t, *ql, *tl, *qt, *tt, *qo, *to, *xi;
  double (*Vl)[6], (*Al)[6], (*Fl)[6], (*Vt)[6], (*At)[6], (*Ft)[6];
} two_passes;

static two_passes two_passes_new(const hg_model *m) {
  size_t nv = (size_t)m->nv, nb = (size_t)m->nbody;
  two_passes b = {
      calloc(m->nq, sizeof(double)), calloc(nv, sizeof(double)), calloc(6 * nb, sizeof(double)),
      calloc(nv, sizeof(double)),    calloc(nv, sizeof(double)), calloc(nv, sizeof(double)),
      calloc(nv, sizeof(double)),    calloc(nv, sizeof(double)), calloc(nv, sizeof(double)),
      calloc(nv, sizeof(double)),    calloc(nv, sizeof(double)), calloc(nv, sizeof(double)),
      calloc(nb, sizeof *b.Vl),      calloc(nb, sizeof *b.Al),   calloc(nb, sizeof *b.Fl),
      calloc(nb, sizeof *b.Vt),      calloc(nb, sizeof *b.At),   calloc(nb, sizeof *b.Ft)};
  return b;
}

static void two_passes_free(two_passes *b) {
  free(b->q), free(b->v), free(b->fext), free(b->in_q), free(b->in_t), free(b->ql), free(b->tl);
  free(b->qt), free(b->tt), free(b->qo), free(b->to), free(b->xi);
  free(b->Vl), free(b->Al), free(b->Fl), free(b->Vt), free(b->At), free(b->Ft);
}

/* after q: random v, inputs qdd and tau, and body wrenches */
static void two_passes_draw(two_passes *b, const hg_model *m, hg_rng *r) {
  hg_test_random_vector(r, b->v, m->nv, -2, 2);
  hg_test_random_vector(r, b->in_q, m->nv, -3, 3);
  hg_test_random_vector(r, b->in_t, m->nv, -5, 5);
  hg_test_random_vector(r, b->fext, 6 * m->nbody, -1, 1);
}

/* worst[1..3] = the largest differences so far of the twists (when twists), accelerations and
 * joint wrenches after the two passes in dl and dt */
static void two_passes_views(two_passes *b, const hg_model *m, const hg_data *dl,
                             const hg_data *dt, int twists, double worst[4]) {
  views(m, dl, b->Vl, b->Al, b->Fl);
  views(m, dt, b->Vt, b->At, b->Ft);
  typedef const double(*rows)[6];
  if (twists) worst[1] = fmax(worst[1], view_diff(m, (rows)b->Vl, (rows)b->Vt));
  worst[2] = fmax(worst[2], view_diff(m, (rows)b->Al, (rows)b->At));
  worst[3] = fmax(worst[3], view_diff(m, (rows)b->Fl, (rows)b->Ft));
}

/* floating bases at orbital speed (7.8 km/s on every free root's linear rates, random
 * directions) through hg_aba, hg_hybrid (each root free, prescribed and locked in turn, the other
 * joints' modes random) and hg_hybrid_impulse, body-local against the tree-frame pass
 * (hg_pass_options.tree_frame): the accelerations and forces to 1e-12 of their size at rest (the Galilean
 * accelerations qdd + xi: xi = (0, w x v) is ~1e4 here, and both passes subtract the same),
 * the real body twists and accelerations to 1e-12 of theirs, the joint wrenches to 1e-12 */
static void floating_orbital(void **state) {
  (void)state;
  hg_rng r;
  hg_rng_seed(&r, 18);
  double worst[4] = {0, 0, 0, 0}; /* results, twists, accelerations, wrenches */
  for (int k = 0; k < 24; k++) {
    hg_model *m = k == 0 ? hg_test_humanoid()
                         : hg_test_random_floating(&r, 2 + k, 1 + k % 2, k % 3 ? 0.3 : 0);
    assert_non_null(m->local);
    int nv = m->nv, nb = m->nbody;
    hg_data *dl = hg_data_new(m), *dt = hg_data_new(m);
    two_passes b = two_passes_new(m);
    double *q = b.q, *v = b.v, *fext = b.fext, *in_q = b.in_q, *in_t = b.in_t;
    double *ql = b.ql, *tl = b.tl, *qt = b.qt, *tt = b.tt, *xi = b.xi;
    hg_model_random(m, &r, q);
    two_passes_draw(&b, m, &r);
    for (int i = 1; i < nb; i++) {
      if (m->parent[i]) continue;
      double dir[3], n;
      hg_test_random_vector(&r, dir, 3, -1, 1);
      n = hg_v3_norm(dir);
      for (int c = 0; c < 3; c++) v[m->v_adr[i] + 3 + c] += 7.8e3 * dir[c] / n;
    }
    for (int form = 0; form < 5; form++) {
      /* 0: hg_aba; 1-3: hg_hybrid, the roots free, prescribed, locked; 4: hg_hybrid_impulse */
      for (int i = 1; i < nb; i++) {
        double u = hg_rng_uniform(&r);
        dl->mode[i] = dt->mode[i] = form == 0 ? HG_MODE_FREE
                                  : !m->parent[i] && form < 4 ? (uint8_t)(form - 1)
                                  : u < 0.5 ? HG_MODE_FREE : u < 0.8 ? HG_MODE_PRESCRIBED : HG_MODE_LOCKED;
      }
      for (int c = 0; c < nv; c++) ql[c] = qt[c] = in_q[c], tl[c] = tt[c] = in_t[c];
      if (form == 0) {
        assert_int_equal(hg_aba(m, dl, q, v, in_t, fext, ql), 0);
        assert_int_equal(hg_aba_opt(m, dt, &tree_frame, q, v, in_t, fext, qt), 0);
      } else if (form < 4) {
        assert_int_equal(hg_hybrid(m, dl, q, v, ql, tl, fext), 0);
        assert_int_equal(hg_hybrid_opt(m, dt, &tree_frame, q, v, qt, tt, fext), 0);
      } else {
        assert_int_equal(hg_hybrid_impulse(m, dl, q, ql, tl), 0);
        assert_int_equal(hg_hybrid_impulse_opt(m, dt, &tree_frame, q, qt, tt), 0);
      }
      assert_int_equal(dl->local_pass, 1);
      assert_int_equal(dt->local_pass, 0);
      /* the size at rest: the Galilean accelerations qdd + xi (no xi in the impulsive form) */
      for (int c = 0; c < nv; c++) xi[c] = form < 4 ? dt->xi[c] : 0;
      double scale = 1, e = 0;
      for (int c = 0; c < nv; c++) {
        scale = fmax(scale, fmax(fabs(qt[c] + xi[c]), fabs(tt[c])));
        e = fmax(e, fmax(fabs(ql[c] - qt[c]), fabs(tl[c] - tt[c])));
      }
      worst[0] = fmax(worst[0], e / scale);
      two_passes_views(&b, m, dl, dt, form < 4, worst);
    }
    two_passes_free(&b);
    hg_data_free(dl);
    hg_data_free(dt);
    hg_model_free(m);
  }
  printf("# floating bases at 7.8 km/s, body-local against the tree-frame pass: results %.3g (of "
         "their size at rest), twists %.3g, accelerations %.3g, joint wrenches %.3g (relative)\n",
         worst[0], worst[1], worst[2], worst[3]);
  for (int c = 0; c < 4; c++) assert_true(worst[c] <= 1e-12);
}

static hg_model *other_joints(int k);

/* the largest |x - y| over the 6-vectors of bodies 1..nbody-1, over max(1, the largest |y|) */
static double view_diff(const hg_model *m, const double (*x)[6], const double (*y)[6]) {
  double scale = 1, e = 0;
  for (int i = 1; i < m->nbody; i++)
    for (int k = 0; k < 6; k++) scale = fmax(scale, fabs(y[i][k])), e = fmax(e, fabs(x[i][k] - y[i][k]));
  return e / scale;
}

/* the body-frame views (twist, acceleration, joint wrench) of every body after the last pass */
static void views(const hg_model *m, const hg_data *d, double (*V)[6], double (*A)[6],
                  double (*F)[6]) {
  for (int i = 1; i < m->nbody; i++) {
    hg_body_twist(m, d, i, V[i]);
    hg_body_acceleration(m, d, i, A[i]);
    hg_joint_wrench(m, d, i, F[i]);
  }
}

/* hg_aba, hg_hybrid (all free and random modes) and hg_hybrid_impulse run the body-local pass on
 * the models that have one: their results are hg_local_*'s bit for bit, d->local_pass is set,
 * and they agree with the tree-frame pass (hg_pass_options.tree_frame) to 1e-12 relative, as do
 * hg_body_twist, hg_body_acceleration and hg_joint_wrench after them (the real twists and
 * accelerations, also in the trees of prismatic and floating roots, which both passes see from
 * Galilean frames). Models with other joint types have no body-local pass. Every fourth model
 * changes its gravity after compiling, which both passes must read. */
static void dispatch_and_views(void **state) {
  (void)state;
  hg_rng r;
  hg_rng_seed(&r, 31);
  double worst[4] = {0, 0, 0, 0}; /* results, twists, accelerations, wrenches */
  int nlocal = 0;
  for (int k = 0; k < 52; k++) {
    /* fixed bases (roots revolute or prismatic), then floating ones: the humanoid and random
     * forests of one or two floating trees */
    hg_model *m = k == 0 ? hg_test_chain(30) : k == 1 ? hg_test_binary_tree(6)
                : k == 2 ? hg_test_arm7()
                : k < 40 ? hg_test_random_1dof(&r, 3 + k, k % 2, k % 3 ? 0.35 : 0)
                : k == 40 ? hg_test_humanoid()
                : hg_test_random_floating(&r, 2 + k - 40, 1 + k % 2, k % 3 ? 0.3 : 0);
    assert_non_null(m->local);
    nlocal++;
    if (k % 4 == 3) m->gravity[0] = 1.5, m->gravity[1] = -2, m->gravity[2] = 7;
    int nv = m->nv, nb = m->nbody;
    hg_data *dl = hg_data_new(m), *dt = hg_data_new(m);
    hg_local_data *ld = hg_local_data_new(m->local);
    two_passes b = two_passes_new(m);
    double *q = b.q, *v = b.v, *fext = b.fext, *in_q = b.in_q, *in_t = b.in_t;
    double *ql = b.ql, *tl = b.tl, *qt = b.qt, *tt = b.tt, *qo = b.qo, *to = b.to;
    random_q(m, &r, q);
    two_passes_draw(&b, m, &r);
    for (int form = 0; form < 3; form++) {
      /* 0: hg_aba; 1: hg_hybrid with random modes; 2: hg_hybrid_impulse with the same */
      for (int i = 1; i < nb; i++) {
        double u = hg_rng_uniform(&r);
        dl->mode[i] = dt->mode[i] = form == 0 ? HG_MODE_FREE
                                  : u < 0.5 ? HG_MODE_FREE : u < 0.8 ? HG_MODE_PRESCRIBED : HG_MODE_LOCKED;
      }
      for (int c = 0; c < nv; c++) ql[c] = qt[c] = qo[c] = in_q[c], tl[c] = tt[c] = to[c] = in_t[c];
      if (form == 0) {
        assert_int_equal(hg_aba(m, dl, q, v, in_t, fext, ql), 0);
        assert_int_equal(hg_aba_opt(m, dt, &tree_frame, q, v, in_t, fext, qt), 0);
        assert_int_equal(hg_local_aba(m->local, ld, q, v, in_t, fext, qo), 0);
      } else if (form == 1) {
        assert_int_equal(hg_hybrid(m, dl, q, v, ql, tl, fext), 0);
        assert_int_equal(hg_hybrid_opt(m, dt, &tree_frame, q, v, qt, tt, fext), 0);
        /* all free: hg_hybrid runs hg_local_aba (the two are compiled apart, and may round
         * differently) */
        int all_free = 1;
        for (int i = 1; i < nb; i++) all_free &= dl->mode[i] == HG_MODE_FREE;
        if (all_free) assert_int_equal(hg_local_aba(m->local, ld, q, v, to, fext, qo), 0);
        else assert_int_equal(hg_local_hybrid(m->local, ld, dl->mode, q, v, qo, to, fext), 0);
      } else {
        assert_int_equal(hg_hybrid_impulse(m, dl, q, ql, tl), 0);
        assert_int_equal(hg_hybrid_impulse_opt(m, dt, &tree_frame, q, qt, tt), 0);
        assert_int_equal(hg_local_hybrid_impulse(m->local, ld, dl->mode, q, qo, to), 0);
      }
      assert_int_equal(dl->local_pass, 1);
      assert_int_equal(dt->local_pass, 0);
      assert_memory_equal(ql, qo, (size_t)nv * sizeof *ql);
      assert_memory_equal(tl, to, (size_t)nv * sizeof *tl);
      worst[0] = fmax(worst[0], fmax(rel_diff(ql, qt, NULL, nv), rel_diff(tl, tt, NULL, nv)));
      /* the impulsive pass has no velocities (both leave the last twists; not compared) */
      two_passes_views(&b, m, dl, dt, form < 2, worst);
    }
    two_passes_free(&b);
    hg_local_data_free(ld);
    hg_data_free(dl);
    hg_data_free(dt);
    hg_model_free(m);
  }
  printf("# dispatch: %d models with a body-local pass; against the tree-frame pass: results %.3g, "
         "twists %.3g, accelerations %.3g, joint wrenches %.3g (relative)\n",
         nlocal, worst[0], worst[1], worst[2], worst[3]);
  assert_true(nlocal == 52);
  for (int c = 0; c < 4; c++) assert_true(worst[c] <= 1e-12);
  /* a model with another joint type has none */
  for (int k = 0; k < 2; k++) {
    hg_model *h = other_joints(k);
    assert_null(h->local);
    hg_model_free(h);
  }
}

/* models the body-local pass refuses: k = 0, a floating base with a spherical joint below it;
 * k = 1, a free joint that is not a root */
static hg_model *other_joints(int k) {
  static const double z[3] = {0, 0, 1};
  hg_rng r;
  hg_rng_seed(&r, 19);
  hg_builder *b = hg_builder_new();
  hg_inertia G;
  hg_test_random_inertia(&r, &G);
  hg_test_add_body(b, "a", "world", k ? HG_JOINT_REVOLUTE : HG_JOINT_FREE, z, NULL, 0, NULL, &G);
  hg_test_random_inertia(&r, &G);
  hg_test_add_body(b, "b", "a", k ? HG_JOINT_FREE : HG_JOINT_SPHERICAL, z, NULL, 0, NULL, &G);
  return hg_test_compile(b);
}

/* a model with another joint type, or a free joint below a root, is refused */
static void refuses_other_joints(void **state) {
  (void)state;
  hg_error err;
  for (int k = 0; k < 2; k++) {
    hg_model *m = other_joints(k);
    assert_null(hg_local_compile(m, &err));
    hg_model_free(m);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(benchmark_models),
      cmocka_unit_test(random_revolute_models),
      cmocka_unit_test(degenerate_axes),
      cmocka_unit_test(random_prismatic_models),
      cmocka_unit_test(hybrid_modes),
      cmocka_unit_test(aligned_shapes),
      cmocka_unit_test(parallel_axes),
      cmocka_unit_test(sweep_order),
      cmocka_unit_test(fast_prismatic_roots),
      cmocka_unit_test(refuses_other_joints),
      cmocka_unit_test(dispatch_and_views),
      cmocka_unit_test(floating_models),
      cmocka_unit_test(floating_orbital),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
