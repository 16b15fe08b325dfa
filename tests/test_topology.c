/* test_topology.c: topology changes (detach, dock with re-rooting, remove) and the state mapping
 * across them, and the joint inverses and reversal they rest on. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dense.h"
#include "models.h"
#include "topology.h"

/* the types a random tree may use (planar last, for trees that allow it) */
static const hg_joint_type kinds[] = {HG_JOINT_FIXED,     HG_JOINT_REVOLUTE,  HG_JOINT_PRISMATIC,
                                      HG_JOINT_HELICAL,   HG_JOINT_CYLINDRICAL, HG_JOINT_UNIVERSAL,
                                      HG_JOINT_SPHERICAL, HG_JOINT_FREE,      HG_JOINT_PLANAR};

static double *vec(int n) { return calloc((size_t)n + 1, sizeof(double)); }

static double maxd(double a, double b) { return a > b || isnan(a) ? a : b; }

/* ---- fixtures ---- */

/* adds body 'name' below 'parent': a random joint of the type, offset, inertia, and now and then
 * a post-offset */
static void add_body(hg_builder *b, hg_rng *r, const char *name, const char *parent,
                     hg_joint_type type) {
  hg_body_spec s;
  hg_error err;
  memset(&s, 0, sizeof s);
  s.name = name;
  s.parent = parent;
  hg_test_random_joint(r, type, &s.joint);
  hg_test_random_pose(r, &s.offset);
  hg_test_random_inertia(r, &s.inertia);
  if (hg_rng_uniform(r) < 0.3) {
    s.has_post = 1;
    hg_test_random_pose(r, &s.post);
  }
  if (hg_builder_add_body(b, &s, &err)) fail_msg("add_body: %s", err.msg);
}

/* a floating tree <prefix>0 .. <prefix>n-1: the first on a free joint to the world, the others on
 * random types (planar only when allowed) below random earlier bodies */
static void random_tree(hg_builder *b, hg_rng *r, const char *prefix, int n, int planar) {
  int ntypes = (int)(sizeof kinds / sizeof kinds[0]) - (planar ? 0 : 1);
  char name[32], parent[32];
  for (int i = 0; i < n; i++) {
    int p = (int)(hg_rng_uniform(r) * i), t = (int)(hg_rng_uniform(r) * ntypes);
    snprintf(name, sizeof name, "%s%d", prefix, i);
    snprintf(parent, sizeof parent, "%s%d", prefix, p);
    add_body(b, r, name, i ? parent : "world", i ? kinds[t] : HG_JOINT_FREE);
  }
}

/* a compiled model with its workspace and state */
typedef struct sys {
  hg_model *m;
  hg_data *d;
  double *q, *v;
} sys;

static void sys_compile(sys *s, const hg_builder *b, double gravity) {
  hg_error err;
  s->m = hg_builder_compile(b, &err);
  if (!s->m) fail_msg("compile: %s", err.msg);
  s->m->gravity[2] = gravity;
  s->d = hg_data_new(s->m);
  s->q = vec(s->m->nq);
  s->v = vec(s->m->nv);
  hg_model_neutral(s->m, s->q);
}

static void sys_free(sys *s) {
  hg_data_free(s->d);
  hg_model_free(s->m);
  free(s->q);
  free(s->v);
}

static void sys_random_state(sys *s, hg_rng *r) {
  hg_model_random(s->m, r, s->q);
  hg_test_random_vector(r, s->v, s->m->nv, -1, 1);
}

/* maps s0's state onto s1; fails the test on an error */
static void sys_map(sys *s0, sys *s1) {
  hg_error err;
  if (hg_topology_map_state(s0->m, s0->d, s0->q, s0->v, s1->m, s1->d, s1->q, s1->v, &err))
    fail_msg("map_state: %s", err.msg);
}

/* the largest change of world pose (ep) and body twist (ev) over the bodies s0 and s1 share */
static void motion_error(sys *s0, sys *s1, double *ep, double *ev) {
  hg_kinematics(s0->m, s0->d, s0->q, s0->v);
  hg_kinematics(s1->m, s1->d, s1->q, s1->v);
  *ep = *ev = 0;
  for (int i = 1; i < s1->m->nbody; i++) {
    int k = hg_model_body(s0->m, s1->m->body_name[i]);
    const hg_se3 *T1 = &s1->d->T_world[i], *T0;
    double V0[6], V1[6];
    if (k < 0) continue;
    T0 = &s0->d->T_world[k];
    *ep = maxd(*ep, maxd(hg_test_rel_err(T1->R, T0->R, 9), hg_test_rel_err(T1->p, T0->p, 3)));
    hg_body_twist(s0->m, s0->d, k, V0);
    hg_body_twist(s1->m, s1->d, i, V1);
    *ev = maxd(*ev, hg_test_rel_err(V1, V0, 6));
  }
}

/* the relative change of total momentum from s0 to s1 */
static double momentum_error(sys *s0, sys *s1) {
  double h0[6], h1[6];
  hg_momentum(s0->m, s0->d, s0->q, s0->v, h0);
  hg_momentum(s1->m, s1->d, s1->q, s1->v, h1);
  return hg_test_rel_err(h1, h0, 6);
}

static double kinetic(sys *s, const double *v) {
  double ke, pe;
  hg_energy(s->m, s->d, s->q, v, &ke, &pe);
  return ke;
}

/* 1 when two models have the same bodies, parents, joints and offsets (in the same order) */
static int same_model(const hg_model *a, const hg_model *b) {
  if (a->nbody != b->nbody || a->nq != b->nq) return 0;
  for (int i = 1; i < a->nbody; i++)
    if (strcmp(a->body_name[i], b->body_name[i]) || strcmp(a->jnt_name[i], b->jnt_name[i]) ||
        a->parent[i] != b->parent[i] || a->jnt[i].type != b->jnt[i].type ||
        memcmp(&a->jnt_offset[i], &b->jnt_offset[i], sizeof(hg_se3)) ||
        a->has_post[i] != b->has_post[i])
      return 0;
  return 1;
}

/* ---- joint inverses and reversal ---- */

/* how far T_joint(q) is from T */
static double transform_error(const hg_joint *j, const double *q, const hg_se3 *T) {
  hg_se3 Tq;
  hg_joint_transform(j, q, &Tq);
  return maxd(hg_test_rel_err(Tq.R, T->R, 9), hg_test_rel_err(Tq.p, T->p, 3));
}

/* the relative twist S(q) v */
static void subspace_twist(const hg_joint *j, const double *q, const double *v, double V[6]) {
  double S[6 * HG_JOINT_MAXNV];
  hg_joint_motion(j, q, S);
  memset(V, 0, 6 * sizeof(double));
  for (int k = 0; k < hg_joint_nv(j->type); k++)
    for (int r = 0; r < 6; r++) V[r] += S[6 * k + r] * v[k];
}

/* j: a random joint of type t at a random configuration q, with random rates v (v NULL: none) */
static void random_joint_state(hg_rng *r, hg_joint_type t, hg_joint *j, double *q, double *v) {
  hg_test_random_joint(r, t, j);
  hg_joint_random(j, r, q);
  if (v) hg_test_random_vector(r, v, hg_joint_nv(t), -2, 2);
}

static void test_joint_configuration(void **state) {
  hg_rng r;
  double emax = 0, eq = 0;
  (void)state;
  hg_rng_seed(&r, 11);
  for (int t = 0; t < HG_JOINT_NTYPES; t++)
    for (int n = 0; n < 200; n++) {
      hg_joint j;
      hg_se3 T;
      double q[HG_JOINT_MAXNQ], qs[HG_JOINT_MAXNQ];
      random_joint_state(&r, (hg_joint_type)t, &j, q, NULL);
      /* helical angles beyond one turn are recovered from the slide */
      if (t == HG_JOINT_HELICAL) q[0] *= 4;
      hg_joint_transform(&j, q, &T);
      assert_int_equal(hg_joint_configuration(&j, &T, qs), 0);
      emax = maxd(emax, transform_error(&j, qs, &T));
      /* R^n coordinates come back themselves (angles within (-pi, pi]) */
      if (t != HG_JOINT_SPHERICAL && t != HG_JOINT_FREE)
        eq = maxd(eq, hg_test_rel_err(qs, q, hg_joint_nq(j.type)));
    }
  print_message("configuration: transform error %.2e, coordinate error %.2e\n", emax, eq);
  assert_true(emax < 1e-14);
  assert_true(eq < 1e-13);
}

static void test_joint_unreachable(void **state) {
  static const hg_joint_type types[] = {HG_JOINT_FIXED, HG_JOINT_REVOLUTE, HG_JOINT_PRISMATIC,
                                        HG_JOINT_HELICAL, HG_JOINT_CYLINDRICAL,
                                        HG_JOINT_UNIVERSAL, HG_JOINT_PLANAR, HG_JOINT_SPHERICAL};
  hg_rng r;
  (void)state;
  hg_rng_seed(&r, 12);
  /* a generic pose is beyond every joint but the free one */
  for (size_t t = 0; t < sizeof types / sizeof types[0]; t++)
    for (int n = 0; n < 20; n++) {
      hg_joint j;
      hg_se3 T;
      double q[HG_JOINT_MAXNQ];
      hg_test_random_joint(&r, types[t], &j);
      hg_test_random_pose(&r, &T);
      assert_int_equal(hg_joint_configuration(&j, &T, q), -1);
    }
  /* a revolute joint cannot slide, a prismatic one cannot turn */
  {
    hg_joint j;
    hg_se3 T;
    double q[1];
    hg_test_random_joint(&r, HG_JOINT_REVOLUTE, &j);
    hg_joint_transform(&j, (double[]){0.7}, &T);
    T.p[0] += 1e-6;
    assert_int_equal(hg_joint_configuration(&j, &T, q), -1);
    hg_test_random_joint(&r, HG_JOINT_PRISMATIC, &j);
    hg_joint_transform(&j, (double[]){0.3}, &T);
    hg_so3_exp((double[]){1e-6, 0, 0}, T.R);
    assert_int_equal(hg_joint_configuration(&j, &T, q), -1);
  }
}

static void test_joint_velocity(void **state) {
  hg_rng r;
  double eexact = 0, enormal = 0;
  (void)state;
  hg_rng_seed(&r, 13);
  for (int t = 1; t < HG_JOINT_NTYPES; t++)
    for (int n = 0; n < 200; n++) {
      hg_joint j;
      double q[HG_JOINT_MAXNQ], v[HG_JOINT_MAXNV], vs[HG_JOINT_MAXNV], V[6], W[6], S[36];
      int nv = hg_joint_nv((hg_joint_type)t);
      random_joint_state(&r, (hg_joint_type)t, &j, q, v);
      /* exact for a twist in the motion subspace */
      subspace_twist(&j, q, v, V);
      hg_joint_velocity(&j, q, V, vs);
      eexact = maxd(eexact, hg_test_rel_err(vs, v, nv));
      /* least squares otherwise: the residual is orthogonal to S */
      hg_test_random_vector(&r, V, 6, -2, 2);
      hg_joint_velocity(&j, q, V, vs);
      subspace_twist(&j, q, vs, W);
      hg_joint_motion(&j, q, S);
      for (int r6 = 0; r6 < 6; r6++) W[r6] -= V[r6];
      for (int k = 0; k < nv; k++) enormal = maxd(enormal, fabs(hg_dot6(S + 6 * k, W)));
    }
  print_message("velocity: exact error %.2e, normal-equation residual %.2e\n", eexact, enormal);
  assert_true(eexact < 1e-13);
  assert_true(enormal < 1e-13);
}

/* one reversal check: T_r(qr) = T^-1, S_r vr = -Ad_T S v, and reversing twice gives j back */
static void check_reverse(hg_rng *r, hg_joint_type type, double *et, double *ev, double *e2) {
  hg_joint j, jr, jrr;
  hg_se3 T, Ti;
  double q[HG_JOINT_MAXNQ], v[HG_JOINT_MAXNV], qr[HG_JOINT_MAXNQ], vr[HG_JOINT_MAXNV];
  double qrr[HG_JOINT_MAXNQ], vrr[HG_JOINT_MAXNV], V[6], AV[6], Vr[6];
  int nv = hg_joint_nv(type);
  random_joint_state(r, type, &j, q, v);
  assert_int_equal(hg_joint_reverse(&j, q, v, &jr, qr, vr), 0);
  hg_joint_transform(&j, q, &T);
  hg_se3_inv(&T, &Ti);
  *et = maxd(*et, transform_error(&jr, qr, &Ti));
  /* the parent's twist relative to the child */
  subspace_twist(&j, q, v, V);
  hg_Ad(&T, V, AV);
  subspace_twist(&jr, qr, vr, Vr);
  for (int k = 0; k < 6; k++) AV[k] = -AV[k];
  *ev = maxd(*ev, hg_test_rel_err(Vr, AV, 6));
  /* twice is the identity (spherical and free: as a transform and a twist) */
  assert_int_equal(hg_joint_reverse(&jr, qr, vr, &jrr, qrr, vrr), 0);
  assert_int_equal(jrr.type, j.type);
  assert_memory_equal(jrr.axis, j.axis, sizeof j.axis);
  assert_memory_equal(jrr.axis2, j.axis2, sizeof j.axis2);
  assert_true(jrr.pitch == j.pitch);
  *e2 = maxd(*e2, maxd(transform_error(&j, qrr, &T), hg_test_rel_err(vrr, v, nv)));
}

static void test_joint_reverse(void **state) {
  hg_rng r;
  double et = 0, ev = 0, e2 = 0;
  (void)state;
  hg_rng_seed(&r, 14);
  for (int t = 0; t < HG_JOINT_NTYPES; t++)
    for (int n = 0; n < 200 && t != HG_JOINT_PLANAR; n++)
      check_reverse(&r, (hg_joint_type)t, &et, &ev, &e2);
  print_message("reverse: transform %.2e, twist %.2e, round trip %.2e\n", et, ev, e2);
  assert_true(et < 1e-14);
  assert_true(ev < 1e-14);
  assert_true(e2 < 1e-14);
  /* a planar joint is refused */
  {
    hg_joint j, jr;
    double q[3] = {0.1, 0.2, 0.3}, qr[3];
    hg_test_random_joint(&r, HG_JOINT_PLANAR, &j);
    assert_int_equal(hg_joint_reverse(&j, q, NULL, &jr, qr, NULL), -1);
  }
}

/* ---- detach ---- */

/* a chain l0 .. l7 of mixed joints, the first revolute (fixed base) or free (floating) */
static hg_builder *mixed_chain(hg_rng *r, int floating) {
  static const hg_joint_type types[] = {HG_JOINT_REVOLUTE,  HG_JOINT_UNIVERSAL,
                                        HG_JOINT_PRISMATIC, HG_JOINT_HELICAL,
                                        HG_JOINT_SPHERICAL, HG_JOINT_CYLINDRICAL,
                                        HG_JOINT_FIXED,     HG_JOINT_REVOLUTE};
  hg_builder *b = hg_builder_new();
  char name[16], parent[16];
  for (int i = 0; i < 8; i++) {
    snprintf(name, sizeof name, "l%d", i);
    snprintf(parent, sizeof parent, "l%d", i - 1);
    add_body(b, r, name, i ? parent : "world", i == 0 && floating ? HG_JOINT_FREE : types[i]);
  }
  return b;
}

static void test_detach_chain(void **state) {
  hg_rng r;
  double ep = 0, ev = 0, eh = 0;
  (void)state;
  hg_rng_seed(&r, 21);
  for (int trial = 0; trial < 40; trial++) {
    hg_builder *b = mixed_chain(&r, trial % 2);
    hg_error err;
    sys s0, s1;
    char cut[16];
    double e1, e2;
    sys_compile(&s0, b, 0);
    sys_random_state(&s0, &r);
    snprintf(cut, sizeof cut, "l%d", 1 + trial % 7);
    /* the subtree below 'cut' leaves; its joint (same name) becomes free */
    assert_int_equal(hg_topology_detach(b, cut, &err), 0);
    sys_compile(&s1, b, 0);
    sys_map(&s0, &s1);
    int i = hg_model_body(s1.m, cut);
    assert_int_equal(s1.m->parent[i], 0);
    assert_int_equal(s1.m->jnt[i].type, HG_JOINT_FREE);
    assert_int_equal(hg_model_joint(s1.m, cut), i);
    /* every other joint keeps its coordinates exactly */
    for (int k = 1; k < s1.m->nbody; k++) {
      int k0 = hg_model_body(s0.m, s1.m->body_name[k]);
      if (k == i) continue;
      assert_memory_equal(s1.q + s1.m->q_adr[k], s0.q + s0.m->q_adr[k0],
                          (size_t)s1.m->jnt_nq[k] * sizeof(double));
    }
    motion_error(&s0, &s1, &e1, &e2);
    ep = maxd(ep, e1);
    ev = maxd(ev, e2);
    eh = maxd(eh, momentum_error(&s0, &s1));
    sys_free(&s0);
    sys_free(&s1);
    hg_builder_free(b);
  }
  print_message("detach: pose %.2e, twist %.2e, momentum %.2e\n", ep, ev, eh);
  assert_true(ep < 1e-12);
  assert_true(ev < 1e-12);
  assert_true(eh < 1e-12);
}

/* ---- re-rooting ---- */

/* body accelerations in world terms (Ad_{T_world} of the body-frame ones) under zero torques */
static void world_accelerations(sys *s, double *A) {
  double *tau = vec(s->m->nv), *qdd = vec(s->m->nv), Ab[6];
  assert_int_equal(hg_aba(s->m, s->d, s->q, s->v, tau, NULL, qdd), 0);
  for (int i = 1; i < s->m->nbody; i++) {
    hg_body_acceleration(s->m, s->d, i, Ab);
    hg_Ad(&s->d->T_world[i], Ab, A + 6 * i);
  }
  free(tau);
  free(qdd);
}

/* the largest relative difference of world accelerations over the bodies of s1 */
static double acceleration_error(sys *s0, sys *s1) {
  double *A0 = vec(6 * s0->m->nbody), *A1 = vec(6 * s1->m->nbody), e = 0;
  world_accelerations(s0, A0);
  world_accelerations(s1, A1);
  for (int i = 1; i < s1->m->nbody; i++) {
    int k = hg_model_body(s0->m, s1->m->body_name[i]);
    e = maxd(e, hg_test_rel_err(A1 + 6 * i, A0 + 6 * k, 6));
  }
  free(A0);
  free(A1);
  return e;
}

/* a refused attach must leave the builder as it was */
static void check_unchanged(const hg_builder *b, const hg_model *m0) {
  sys s;
  sys_compile(&s, b, 0);
  assert_true(same_model(s.m, m0));
  sys_free(&s);
}

/* re-roots a floating tree at body c: the same free-floating system, hanging from c */
static void reroot_once(hg_rng *r, double e[5], int *done, int *refused) {
  hg_builder *b = hg_builder_new();
  hg_error err;
  sys s0, s1;
  char name[16];
  random_tree(b, r, "b", 12, 1);
  sys_compile(&s0, b, -9.81);
  sys_random_state(&s0, r);
  snprintf(name, sizeof name, "b%d", 1 + (int)(hg_rng_uniform(r) * 11));
  hg_kinematics(s0.m, s0.d, s0.q, s0.v);
  if (hg_topology_attach(b, "world", name, "float", &s0.d->T_world[hg_model_body(s0.m, name)],
                         &err)) {
    /* only a planar joint on the path may refuse */
    assert_non_null(strstr(err.msg, "planar"));
    check_unchanged(b, s0.m);
    (*refused)++;
  } else {
    sys_compile(&s1, b, -9.81);
    int c = hg_model_body(s1.m, name);
    assert_int_equal(s1.m->parent[c], 0);
    assert_int_equal(s1.m->root[c], c);
    assert_int_equal(s1.m->nbody, s0.m->nbody);
    assert_int_equal(hg_model_joint(s1.m, "b0"), -1);
    sys_map(&s0, &s1);
    motion_error(&s0, &s1, &e[0], &e[1]);
    e[2] = maxd(e[2], fabs(kinetic(&s1, s1.v) - kinetic(&s0, s0.v)) / maxd(1, kinetic(&s0, s0.v)));
    e[3] = maxd(e[3], momentum_error(&s0, &s1));
    e[4] = maxd(e[4], acceleration_error(&s0, &s1));
    (*done)++;
    sys_free(&s1);
  }
  sys_free(&s0);
  hg_builder_free(b);
}

static void test_reroot_random(void **state) {
  hg_rng r;
  double e[5], emax[5] = {0, 0, 0, 0, 0};
  int done = 0, refused = 0;
  (void)state;
  hg_rng_seed(&r, 31);
  for (int trial = 0; trial < 200; trial++) {
    memset(e, 0, sizeof e);
    reroot_once(&r, e, &done, &refused);
    for (int k = 0; k < 5; k++) emax[k] = maxd(emax[k], e[k]);
  }
  print_message("re-root (%d done, %d refused for planar joints): pose %.2e, twist %.2e, "
                "kinetic energy %.2e, momentum %.2e, world accelerations %.2e\n",
                done, refused, emax[0], emax[1], emax[2], emax[3], emax[4]);
  assert_true(done > 100);
  assert_true(refused > 0);
  assert_true(emax[0] < 1e-12);
  assert_true(emax[1] < 1e-12);
  assert_true(emax[2] < 1e-12);
  assert_true(emax[3] < 1e-12);
  assert_true(emax[4] < 1e-10);
}

/* a 2000-body chain re-rooted end to end: the mapping holds to the rounding of the long walks */
static void test_long_chain(void **state) {
  hg_rng r;
  hg_builder *b = hg_builder_new();
  hg_error err;
  sys s0, s1;
  char name[16], parent[16];
  double ep, ev;
  (void)state;
  hg_rng_seed(&r, 35);
  for (int i = 0; i < 2000; i++) {
    snprintf(name, sizeof name, "l%d", i);
    snprintf(parent, sizeof parent, "l%d", i - 1);
    add_body(b, &r, name, i ? parent : "world", i ? HG_JOINT_REVOLUTE : HG_JOINT_FREE);
  }
  sys_compile(&s0, b, 0);
  sys_random_state(&s0, &r);
  for (int k = 0; k < s0.m->nv; k++) s0.v[k] *= 0.01;
  hg_kinematics(s0.m, s0.d, s0.q, s0.v);
  assert_int_equal(hg_topology_attach(b, "world", "l1999", "f", &s0.d->T_world[2000], &err), 0);
  sys_compile(&s1, b, 0);
  sys_map(&s0, &s1);
  motion_error(&s0, &s1, &ep, &ev);
  print_message("2000-body chain re-rooted: pose %.2e, twist %.2e\n", ep, ev);
  assert_int_equal(s1.m->parent[hg_model_body(s1.m, "l0")], hg_model_body(s1.m, "l1"));
  assert_true(ep < 1e-10 && ev < 1e-10);
  sys_free(&s0);
  sys_free(&s1);
  hg_builder_free(b);
}

/* ---- docking ---- */

/* the twist of body c relative to body p, in c's frame (zero when the dock holds) */
static double dock_slip(sys *s, int p, int c) {
  double Vp[6], Vc[6], Vpc[6];
  hg_se3 Trel;
  hg_kinematics(s->m, s->d, s->q, s->v);
  hg_body_twist(s->m, s->d, p, Vp);
  hg_body_twist(s->m, s->d, c, Vc);
  hg_se3_invmul(&s->d->T_world[p], &s->d->T_world[c], &Trel);
  hg_Ad_inv(&Trel, Vp, Vpc);
  for (int k = 0; k < 6; k++) Vc[k] -= Vpc[k];
  return hg_test_rel_err(Vc, (double[6]){0, 0, 0, 0, 0, 0}, 6);
}

typedef struct dock_err {
  double pose, twist, momentum, slip, energy, identity;
} dock_err;

/* docks pname to cname (re-rooting cname's tree) and locks the dock plastically; s0 becomes the
 * locked state of the docked model */
static void dock_and_lock(hg_builder *b, sys *s0, const char *pname, const char *cname,
                          const char *jname, dock_err *e) {
  hg_error err;
  hg_se3 T;
  sys s1;
  double e1, e2, E, k0, k1, *va, *imp, *M, *dv, dMd = 0;
  hg_kinematics(s0->m, s0->d, s0->q, s0->v);
  hg_se3_invmul(&s0->d->T_world[hg_model_body(s0->m, pname)],
                &s0->d->T_world[hg_model_body(s0->m, cname)], &T);
  if (hg_topology_attach(b, pname, cname, jname, &T, &err)) fail_msg("attach: %s", err.msg);
  sys_compile(&s1, b, 0);
  sys_map(s0, &s1);
  motion_error(s0, &s1, &e1, &e2);
  e->pose = maxd(e->pose, e1);
  e->twist = maxd(e->twist, e2);
  e->momentum = maxd(e->momentum, momentum_error(s0, &s1));
  /* earlier locks hold (even reversed), the new dock is free until locked */
  if (hg_topology_map_modes(s0->m, s0->d, s1.m, s1.d, NULL, &err)) fail_msg("modes: %s", err.msg);
  int j = hg_model_joint(s1.m, jname), n = s1.m->nv;
  assert_int_equal(s1.d->mode[j], HG_MODE_FREE);
  for (int i = 1; i < s0->m->nbody; i++)
    if (s0->d->mode[i] != HG_MODE_FREE)
      assert_int_equal(s1.d->mode[hg_model_joint(s1.m, s0->m->jnt_name[i])], s0->d->mode[i]);
  /* the dock joint starts at the identity */
  double qid[7] = {0, 0, 0, 1, 0, 0, 0};
  e->identity = maxd(e->identity, hg_test_rel_err(s1.q + s1.m->q_adr[j], qid, 7));
  /* the plastic lock: momentum kept, dock at rest, energy lost = dv^T M dv / 2 */
  va = vec(n); imp = vec(n); M = vec(n * n); dv = vec(n);
  s1.d->mode[j] = HG_MODE_LOCKED;
  assert_int_equal(hg_plastic_lock(s1.m, s1.d, s1.q, s1.v, va, imp, &E), 0);
  hg_crba(s1.m, s1.d, s1.q, M);
  for (int k = 0; k < n; k++) dv[k] = va[k] - s1.v[k];
  for (int a = 0; a < n; a++)
    for (int c = 0; c < n; c++) dMd += 0.5 * dv[a] * M[a * n + c] * dv[c];
  k0 = kinetic(&s1, s1.v);
  k1 = kinetic(&s1, va);
  assert_true(E > 0);
  e->energy = maxd(e->energy, maxd(fabs(E - dMd), fabs(k0 - k1 - dMd)) / maxd(1, k0));
  memcpy(s1.v, va, (size_t)n * sizeof(double));
  e->momentum = maxd(e->momentum, momentum_error(s0, &s1));
  for (int i = 1; i < s1.m->nbody; i++)
    if (s1.d->mode[i] == HG_MODE_LOCKED) e->slip = maxd(e->slip, dock_slip(&s1, s1.m->parent[i], i));
  free(va); free(imp); free(M); free(dv);
  sys_free(s0);
  *s0 = s1;
}

/* undocks cname (its joint becomes free to the world); s0 becomes the undocked model */
static void undock(hg_builder *b, sys *s0, const char *cname, dock_err *e) {
  hg_error err;
  sys s1;
  double e1, e2;
  assert_int_equal(hg_topology_detach(b, cname, &err), 0);
  sys_compile(&s1, b, 0);
  sys_map(s0, &s1);
  /* the undocked joint is free again */
  assert_int_equal(hg_topology_map_modes(s0->m, s0->d, s1.m, s1.d, NULL, &err), 0);
  assert_int_equal(s1.d->mode[hg_model_body(s1.m, cname)], HG_MODE_FREE);
  motion_error(s0, &s1, &e1, &e2);
  e->pose = maxd(e->pose, e1);
  e->twist = maxd(e->twist, e2);
  e->momentum = maxd(e->momentum, momentum_error(s0, &s1));
  sys_free(s0);
  *s0 = s1;
}

static void test_dock_cycles(void **state) {
  hg_rng r;
  dock_err e = {0, 0, 0, 0, 0, 0};
  (void)state;
  hg_rng_seed(&r, 41);
  for (int trial = 0; trial < 20; trial++) {
    hg_builder *b = hg_builder_new();
    sys s;
    char pname[16], cname[16], jname[16];
    random_tree(b, &r, "a", 5, 0);
    random_tree(b, &r, "c", 6, 0);
    sys_compile(&s, b, 0);
    sys_random_state(&s, &r);
    /* dock, undock and dock again at other bodies, the trees drifting apart in between */
    for (int cycle = 0; cycle < 3; cycle++) {
      snprintf(pname, sizeof pname, "a%d", (int)(hg_rng_uniform(&r) * 5));
      snprintf(cname, sizeof cname, "c%d", (int)(hg_rng_uniform(&r) * 6));
      snprintf(jname, sizeof jname, "dock%d", cycle);
      dock_and_lock(b, &s, pname, cname, jname, &e);
      undock(b, &s, cname, &e);
      hg_test_random_vector(&r, s.v, s.m->nv, -1, 1);
    }
    sys_free(&s);
    hg_builder_free(b);
  }
  print_message("dock: pose %.2e, twist %.2e, momentum %.2e, dock slip %.2e, energy %.2e, "
                "initial dock q %.2e\n", e.pose, e.twist, e.momentum, e.slip, e.energy, e.identity);
  assert_true(e.pose < 1e-12);
  assert_true(e.twist < 1e-12);
  assert_true(e.momentum < 1e-12);
  assert_true(e.slip < 1e-12);
  assert_true(e.energy < 1e-12);
  assert_true(e.identity < 1e-12);
}

/* three trees: a to c, then e to a body of c, re-rooting a+c through the first (locked) dock */
static void test_dock_chain_of_three(void **state) {
  hg_rng r;
  dock_err e = {0, 0, 0, 0, 0, 0};
  (void)state;
  hg_rng_seed(&r, 43);
  for (int trial = 0; trial < 20; trial++) {
    hg_builder *b = hg_builder_new();
    sys s;
    char a[16], c[16], c2[16], x[16];
    random_tree(b, &r, "a", 4, 0);
    random_tree(b, &r, "c", 4, 0);
    random_tree(b, &r, "e", 4, 0);
    sys_compile(&s, b, 0);
    sys_random_state(&s, &r);
    snprintf(a, sizeof a, "a%d", (int)(hg_rng_uniform(&r) * 4));
    snprintf(c, sizeof c, "c%d", (int)(hg_rng_uniform(&r) * 4));
    snprintf(x, sizeof x, "e%d", (int)(hg_rng_uniform(&r) * 4));
    snprintf(c2, sizeof c2, "c%d", (int)(hg_rng_uniform(&r) * 4));
    dock_and_lock(b, &s, a, c, "dock0", &e);
    dock_and_lock(b, &s, x, c2, "dock1", &e);
    /* dock0 now hangs the a bodies from c: reversed, still locked */
    int j = hg_model_joint(s.m, "dock0");
    assert_string_equal(s.m->body_name[j], a);
    assert_int_equal(s.d->mode[j], HG_MODE_LOCKED);
    sys_free(&s);
    hg_builder_free(b);
  }
  print_message("three trees: pose %.2e, twist %.2e, momentum %.2e, dock slip %.2e, energy %.2e\n",
                e.pose, e.twist, e.momentum, e.slip, e.energy);
  assert_true(e.pose < 1e-12 && e.twist < 1e-12 && e.momentum < 1e-12);
  assert_true(e.slip < 1e-12 && e.energy < 1e-12);
}

/* ---- remove ---- */

/* kinetic energy of the bodies of s0 that s1 keeps, from s0's body twists */
static double kept_kinetic(sys *s0, const hg_model *m1) {
  double ke = 0, V[6], h[6];
  hg_kinematics(s0->m, s0->d, s0->q, s0->v);
  for (int i = 1; i < s0->m->nbody; i++) {
    if (hg_model_body(m1, s0->m->body_name[i]) < 0) continue;
    hg_body_twist(s0->m, s0->d, i, V);
    hg_inertia_mulv(&s0->m->inertia[i], V, h);
    ke += 0.5 * hg_dot6(V, h);
  }
  return ke;
}

/* gives every body of a builder tree a sphere whose radius encodes the body number */
static void add_marks(hg_builder *b, const char *prefix, int n) {
  hg_error err;
  char name[16];
  for (int i = 0; i < n; i++) {
    hg_geom g;
    memset(&g, 0, sizeof g);
    g.type = HG_GEOM_SPHERE;
    g.size[0] = i;
    hg_se3_identity(&g.pose);
    snprintf(name, sizeof name, "%s%d", prefix, i);
    assert_int_equal(hg_builder_add_geom(b, name, &g, &err), 0);
  }
}

static void test_remove_subtree(void **state) {
  hg_rng r;
  double ep = 0, ev = 0, ek = 0;
  (void)state;
  hg_rng_seed(&r, 51);
  for (int trial = 0; trial < 40; trial++) {
    hg_builder *b = hg_builder_new();
    hg_error err;
    sys s0, s1;
    char name[16];
    double e1, e2;
    random_tree(b, &r, "b", 12, 1);
    add_marks(b, "b", 12);
    sys_compile(&s0, b, 0);
    sys_random_state(&s0, &r);
    snprintf(name, sizeof name, "b%d", 1 + (int)(hg_rng_uniform(&r) * 11));
    int x = hg_model_body(s0.m, name), gone = s0.m->subtree_end[x] - x;
    assert_int_equal(hg_topology_remove(b, name, &err), 0);
    sys_compile(&s1, b, 0);
    /* the subtree and its geometry are gone, the rest keep theirs */
    assert_int_equal(s1.m->nbody, s0.m->nbody - gone);
    assert_int_equal(s1.m->ngeom, s0.m->ngeom - gone);
    for (int k = x; k < x + gone; k++)
      assert_int_equal(hg_model_body(s1.m, s0.m->body_name[k]), -1);
    for (int g = 0; g < s1.m->ngeom; g++) {
      snprintf(name, sizeof name, "b%d", (int)s1.m->geom[g].size[0]);
      assert_string_equal(s1.m->body_name[s1.m->geom[g].body], name);
    }
    sys_map(&s0, &s1);
    motion_error(&s0, &s1, &e1, &e2);
    ep = maxd(ep, e1);
    ev = maxd(ev, e2);
    double kk = kept_kinetic(&s0, s1.m);
    ek = maxd(ek, fabs(kinetic(&s1, s1.v) - kk) / maxd(1, kk));
    sys_free(&s0);
    sys_free(&s1);
    hg_builder_free(b);
  }
  print_message("remove: pose %.2e, twist %.2e, kinetic energy %.2e\n", ep, ev, ek);
  assert_true(ep < 1e-12);
  assert_true(ev < 1e-12);
  assert_true(ek < 1e-12);
}

/* ---- refusals and errors ---- */

static void test_planar_refused(void **state) {
  hg_rng r;
  hg_builder *b = hg_builder_new();
  hg_error err;
  hg_se3 T;
  sys s0;
  (void)state;
  hg_rng_seed(&r, 61);
  add_body(b, &r, "p0", "world", HG_JOINT_FREE);
  add_body(b, &r, "p1", "p0", HG_JOINT_PLANAR);
  add_body(b, &r, "p2", "p1", HG_JOINT_REVOLUTE);
  sys_compile(&s0, b, 0);
  hg_se3_identity(&T);
  /* re-rooting at p2 or p1 would reverse the planar joint p1 */
  assert_int_equal(hg_topology_attach(b, "world", "p2", "f", &T, &err), -1);
  print_message("refusal: %s\n", err.msg);
  assert_non_null(strstr(err.msg, "planar"));
  assert_non_null(strstr(err.msg, "'p1'"));
  check_unchanged(b, s0.m);
  assert_int_equal(hg_topology_attach(b, "world", "p1", "f", &T, &err), -1);
  check_unchanged(b, s0.m);
  /* the root itself needs no reversal */
  assert_int_equal(hg_topology_attach(b, "world", "p0", "f", &T, &err), 0);
  sys_free(&s0);
  hg_builder_free(b);
}

static void test_attach_errors(void **state) {
  hg_rng r;
  hg_builder *b = hg_builder_new();
  hg_error err;
  hg_se3 T;
  sys s0;
  (void)state;
  hg_rng_seed(&r, 62);
  random_tree(b, &r, "a", 6, 0);
  random_tree(b, &r, "c", 3, 0);
  sys_compile(&s0, b, 0);
  hg_se3_identity(&T);
  /* within one tree: a loop */
  assert_int_equal(hg_topology_attach(b, "a2", "a5", "j", &T, &err), -1);
  assert_non_null(strstr(err.msg, "same tree"));
  assert_int_equal(hg_topology_attach(b, "a3", "a3", "j", &T, &err), -1);
  /* unknown bodies, no joint name, a pose that is not finite or not a rotation */
  assert_int_equal(hg_topology_attach(b, "a1", "zz", "j", &T, &err), -1);
  assert_non_null(strstr(err.msg, "'zz'"));
  assert_int_equal(hg_topology_attach(b, "zz", "c1", "j", &T, &err), -1);
  assert_int_equal(hg_topology_attach(b, "a1", "c1", "", &T, &err), -1);
  T.p[1] = NAN;
  assert_int_equal(hg_topology_attach(b, "a1", "c1", "j", &T, &err), -1);
  T.p[1] = 0;
  T.R[0] = 1.1;
  assert_int_equal(hg_topology_attach(b, "a1", "c1", "j", &T, &err), -1);
  assert_non_null(strstr(err.msg, "not a rotation"));
  T.R[0] = 1;
  check_unchanged(b, s0.m);
  /* unknown bodies for detach and remove; the world cannot be removed */
  assert_int_equal(hg_topology_detach(b, "zz", &err), -1);
  assert_int_equal(hg_topology_remove(b, "zz", &err), -1);
  assert_int_equal(hg_topology_remove(b, "world", &err), -1);
  check_unchanged(b, s0.m);
  /* a duplicate joint name is found by the compiler */
  assert_int_equal(hg_topology_attach(b, "a1", "c1", "a4", &T, &err), 0);
  assert_null(hg_builder_compile(b, &err));
  assert_non_null(strstr(err.msg, "duplicate joint name"));
  sys_free(&s0);
  hg_builder_free(b);
}

static void test_map_unreachable(void **state) {
  hg_rng r;
  hg_builder *b = hg_builder_new();
  hg_error err;
  sys s0, s1;
  const char *why = NULL;
  (void)state;
  hg_rng_seed(&r, 63);
  add_body(b, &r, "x", "world", HG_JOINT_FREE);
  add_body(b, &r, "y", "x", HG_JOINT_REVOLUTE);
  hg_body_spec *x = hg_builder_body(b, "x");
  hg_se3_identity(&x->offset);
  x->has_post = 0;
  sys_compile(&s0, b, 0);
  sys_random_state(&s0, &r);
  /* x now on a revolute joint about z: its pose is out of reach */
  assert_int_equal(hg_joint_init(&x->joint, HG_JOINT_REVOLUTE, NULL, NULL, 0, &why), 0);
  sys_compile(&s1, b, 0);
  assert_int_equal(hg_topology_map_state(s0.m, s0.d, s0.q, s0.v, s1.m, s1.d, s1.q, s1.v, &err), -1);
  print_message("unreachable pose: %s\n", err.msg);
  assert_non_null(strstr(err.msg, "'x'"));
  /* a pose the revolute joint reaches, with a twist it cannot make */
  hg_quat_exp((double[]){0, 0, 0.4}, s0.q + 3);
  s0.q[0] = s0.q[1] = s0.q[2] = 0;
  assert_int_equal(hg_topology_map_state(s0.m, s0.d, s0.q, s0.v, s1.m, s1.d, s1.q, s1.v, &err), -1);
  print_message("unreachable twist: %s\n", err.msg);
  assert_non_null(strstr(err.msg, "'x'"));
  assert_non_null(strstr(err.msg, "velocity"));
  /* with a twist about z it maps, and y keeps its coordinates */
  memset(s0.v, 0, 6 * sizeof(double));
  s0.v[2] = 0.8;
  assert_int_equal(hg_topology_map_state(s0.m, s0.d, s0.q, s0.v, s1.m, s1.d, s1.q, s1.v, &err), 0);
  assert_true(fabs(s1.q[0] - 0.4) < 1e-15 && fabs(s1.v[0] - 0.8) < 1e-15);
  assert_true(s1.q[1] == s0.q[7] && s1.v[1] == s0.v[6]);
  sys_free(&s0);
  sys_free(&s1);
  hg_builder_free(b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_joint_configuration), cmocka_unit_test(test_joint_unreachable),
      cmocka_unit_test(test_joint_velocity),      cmocka_unit_test(test_joint_reverse),
      cmocka_unit_test(test_detach_chain),        cmocka_unit_test(test_reroot_random),
      cmocka_unit_test(test_long_chain),          cmocka_unit_test(test_dock_chain_of_three),
      cmocka_unit_test(test_dock_cycles),         cmocka_unit_test(test_remove_subtree),
      cmocka_unit_test(test_planar_refused),      cmocka_unit_test(test_attach_errors),
      cmocka_unit_test(test_map_unreachable),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
