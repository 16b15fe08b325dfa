/* test_fixed_local.c: models with fixed joints run the body-local pass (body_frames.h: each fixed
 * body folded into its carrier, the nearest ancestor on a moving joint or the world), as fast as
 * their merged twin (hg_model_merge_fixed: the sweeps step over the same bodies) and with the
 * tree-frame pass's answers to round-off: accelerations, forces, and every body's twist,
 * acceleration and joint wrench, the fixed bodies' included. The tree-frame pass after
 * hg_kinematics steps over the moving bodies too (fixed joints' wrenches formed on demand); the
 * world-frame pass over every body is the reference for both.
 *
 * The models: the robots of assets/robots as hg_urdf_load reads them (a base link fixed to the
 * world, fixed flanges and feet), a scene's URDF include, and random forests mixing fixed, revolute and prismatic
 * joints (fixed chains, fixed bodies fixed to the world and below floating roots, moving
 * children of fixed bodies). The tolerance is dispatch_and_views' of test_aba_local.c: 1e-12 of
 * max(1, the largest value), the two passes' round-off on these sizes (measured below 1e-13).
 * hg_rnea and hg_crba step over the swept bodies too: tau, M, poses and views against the merged
 * twin and the walk over every body, to the same tolerance (the sums of inertias and wrenches
 * taken in another order: measured below 1e-13). */
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
#include "hinge.h"
#include "merge.h"
#include "models.h"
#include "sims.h"
#include "urdf.h"

static const hg_pass_options tree_frame = {.tree_frame = 1};
/* the world-frame walk and pass step over every body (the reference for the tree-frame pass,
 * which steps over the swept bodies on a model with fixed joints) */
static const hg_pass_options every_body = {.tree_frame = 1, .world_frame = 1};

/* the largest |x - y| over n numbers, over max(1, the largest |y|) */
static double rel_diff(const double *x, const double *y, int n) {
  double scale = 1, e = 0;
  for (int k = 0; k < n; k++) scale = fmax(scale, fabs(y[k])), e = fmax(e, fabs(x[k] - y[k]));
  return e / scale;
}

/* a random forest of nbody bodies: fixed joints with probability 0.35, prismatic 0.15, else
 * revolute (random axes, origins and inertias); with floating, the first body floats on a free
 * joint. A parent is the world now and then, else any earlier body. */
static hg_model *random_fixed(hg_rng *r, int nbody, int floating) {
  hg_builder *b = hg_builder_new();
  char name[16], parent[16];
  for (int k = 0; k < nbody; k++) {
    hg_inertia G;
    hg_se3 off;
    double axis[3];
    hg_test_random_inertia(r, &G);
    hg_test_random_pose(r, &off);
    hg_test_random_vector(r, axis, 3, -1, 1);
    double u = hg_rng_uniform(r);
    hg_joint_type type = u < 0.35 ? HG_JOINT_FIXED : u < 0.5 ? HG_JOINT_PRISMATIC : HG_JOINT_REVOLUTE;
    int p = k == 0 || hg_rng_uniform(r) < 0.15 ? -1 : (int)(hg_rng_uniform(r) * k);
    if (floating && k == 0) type = HG_JOINT_FREE;
    if (floating && p < 0 && k > 0) p = 0; /* one tree, on the free root */
    snprintf(name, sizeof name, "b%d", k);
    if (p < 0) snprintf(parent, sizeof parent, "world");
    else snprintf(parent, sizeof parent, "b%d", p);
    hg_test_add_body(b, name, parent, type, axis, NULL, 0, &off, &G);
  }
  return hg_test_compile(b);
}

/* the twist, acceleration and joint wrench of every body after the last pass (nbody rows) */
static void views(const hg_model *m, const hg_data *d, double *out) {
  for (int i = 1; i < m->nbody; i++) {
    hg_body_twist(m, d, i, out + 18 * i);
    hg_body_acceleration(m, d, i, out + 18 * i + 6);
    hg_joint_wrench(m, d, i, out + 18 * i + 12);
  }
}

/* hg_aba (with and without fext), hg_hybrid (random modes) and hg_hybrid_impulse on m: the
 * body-local pass runs (d->local_pass), and its results and views agree with the tree-frame
 * pass's (over the swept bodies, fixed joints' wrenches formed on demand) and with the
 * world-frame pass's over every body; worst[0] results, worst[1] views */
static void compare_passes(const hg_model *m, hg_rng *r, double worst[2]) {
  int nv = m->nv, nb = m->nbody;
  hg_data *dl = hg_data_new(m), *dt = hg_data_new(m), *dw = hg_data_new(m);
  double *qw = calloc((size_t)nv + 1, sizeof *qw), *tw = calloc((size_t)nv + 1, sizeof *tw);
  double *ww = calloc(18 * (size_t)nb, sizeof *ww);
  double *q = calloc((size_t)m->nq + 1, sizeof *q), *v = calloc((size_t)nv + 1, sizeof *v);
  double *fext = calloc(6 * (size_t)nb, sizeof *fext), *in_q = calloc((size_t)nv + 1, sizeof *in_q);
  double *in_t = calloc((size_t)nv + 1, sizeof *in_t), *ql = calloc((size_t)nv + 1, sizeof *ql);
  double *tl = calloc((size_t)nv + 1, sizeof *tl), *qt = calloc((size_t)nv + 1, sizeof *qt);
  double *tt = calloc((size_t)nv + 1, sizeof *tt);
  double *wl = calloc(18 * (size_t)nb, sizeof *wl), *wt = calloc(18 * (size_t)nb, sizeof *wt);
  for (int s = 0; s < 3; s++) {
    hg_model_random(m, r, q);
    hg_test_random_vector(r, v, nv, -2, 2);
    hg_test_random_vector(r, in_q, nv, -3, 3);
    hg_test_random_vector(r, in_t, nv, -5, 5);
    hg_test_random_vector(r, fext, 6 * nb, -1, 1);
    for (int form = 0; form < 4; form++) {
      /* 0: hg_aba; 1: with fext; 2: hg_hybrid, random modes, fext; 3: hg_hybrid_impulse */
      for (int i = 1; i < nb; i++) {
        double u = hg_rng_uniform(r);
        dl->mode[i] = dt->mode[i] = dw->mode[i] = form < 2 ? HG_MODE_FREE
                                  : u < 0.5 ? HG_MODE_FREE : u < 0.8 ? HG_MODE_PRESCRIBED : HG_MODE_LOCKED;
      }
      for (int c = 0; c < nv; c++)
        ql[c] = qt[c] = qw[c] = in_q[c], tl[c] = tt[c] = tw[c] = in_t[c];
      const double *f = form ? fext : NULL;
      if (form < 2) {
        assert_int_equal(hg_aba(m, dl, q, v, in_t, f, ql), 0);
        assert_int_equal(hg_aba_opt(m, dt, &tree_frame, q, v, in_t, f, qt), 0);
        assert_int_equal(hg_aba_opt(m, dw, &every_body, q, v, in_t, f, qw), 0);
      } else if (form == 2) {
        assert_int_equal(hg_hybrid(m, dl, q, v, ql, tl, f), 0);
        assert_int_equal(hg_hybrid_opt(m, dt, &tree_frame, q, v, qt, tt, f), 0);
        assert_int_equal(hg_hybrid_opt(m, dw, &every_body, q, v, qw, tw, f), 0);
      } else {
        assert_int_equal(hg_hybrid_impulse(m, dl, q, ql, tl), 0);
        assert_int_equal(hg_hybrid_impulse_opt(m, dt, &tree_frame, q, qt, tt), 0);
        assert_int_equal(hg_hybrid_impulse_opt(m, dw, &every_body, q, qw, tw), 0);
      }
      /* the fast paths ran: the body-local pass, and the tree-frame pass over the swept bodies
       * where some are fixed */
      assert_int_equal(dl->local_pass, 1);
      assert_int_equal(dt->local_pass, 0);
      assert_int_equal(dt->local->pass_swept, m->local->nfixed > 0);
      assert_int_equal(dw->local->pass_swept, 0);
      worst[0] = fmax(worst[0], fmax(rel_diff(ql, qt, nv), rel_diff(tl, tt, nv)));
      worst[0] = fmax(worst[0], fmax(rel_diff(qt, qw, nv), rel_diff(tt, tw, nv)));
      views(m, dl, wl);
      views(m, dt, wt);
      views(m, dw, ww);
      /* the impulsive pass has no velocities (both leave the last twists): accelerations
       * (velocity jumps) and wrenches (impulses) only */
      for (int i = 1; i < nb; i++)
        for (int c = form == 3 ? 6 : 0; c < 18; c += 6) {
          worst[1] = fmax(worst[1], rel_diff(wl + 18 * i + c, wt + 18 * i + c, 6));
          worst[1] = fmax(worst[1], rel_diff(wt + 18 * i + c, ww + 18 * i + c, 6));
        }
    }
  }
  free(q), free(v), free(fext), free(in_q), free(in_t), free(ql), free(tl), free(qt), free(tt);
  free(wl), free(wt), free(qw), free(tw), free(ww);
  hg_data_free(dl);
  hg_data_free(dt);
  hg_data_free(dw);
}

/* m and its merged twin: the same accelerations (to round-off) from the same sweeps */
static void compare_twin(const hg_model *m, hg_rng *r, double *worst) {
  hg_error err;
  hg_model *mm = hg_model_merge_fixed(m, NULL, NULL, &err);
  assert_non_null(mm);
  assert_non_null(mm->local);
  /* the sweeps step over the twin's bodies, no more */
  assert_int_equal(m->local->nswept, mm->nbody);
  assert_int_equal(m->local->nswept + m->local->nfixed, m->nbody);
  int nv = m->nv;
  hg_data *d = hg_data_new(m), *dm = hg_data_new(mm);
  double *q = calloc((size_t)m->nq + 1, sizeof *q), *v = calloc((size_t)nv + 1, sizeof *v);
  double *tau = calloc((size_t)nv + 1, sizeof *tau), *a = calloc((size_t)nv + 1, sizeof *a);
  double *am = calloc((size_t)nv + 1, sizeof *am);
  for (int s = 0; s < 3; s++) {
    hg_model_random(m, r, q);
    hg_test_random_vector(r, v, nv, -2, 2);
    hg_test_random_vector(r, tau, nv, -5, 5);
    assert_int_equal(hg_aba(m, d, q, v, tau, NULL, a), 0);
    assert_int_equal(hg_aba(mm, dm, q, v, tau, NULL, am), 0);
    assert_int_equal(d->local_pass, 1);
    *worst = fmax(*worst, rel_diff(a, am, nv));
  }
  free(q), free(v), free(tau), free(a), free(am);
  hg_data_free(d);
  hg_data_free(dm);
  hg_model_free(mm);
}

/* hg_rnea and hg_crba on m, which step over the swept bodies only (hg_kinematics_carried),
 * against the merged twin's and against the walk over every body (hg_rnea_opt in the world's
 * frame, the derivatives' path; M's column k from it as RNEA(q, 0, e_k) - RNEA(q, 0, 0)): tau
 * with and without fext, M, and after the RNEA and hg_rnea_fixed_bodies every body's pose,
 * twist, acceleration and joint wrench (d->F), the fixed bodies' included. CRBA runs first on a fresh workspace, so the
 * constants are written by a walk without velocities. worst[0]: tau and M; worst[1]: poses,
 * views and wrenches */
static void compare_inverse(const hg_model *m, hg_rng *r, double worst[2]) {
  static const hg_pass_options world = {.world_frame = 1};
  hg_error err;
  hg_model *mm = hg_model_merge_fixed(m, NULL, NULL, &err);
  assert_non_null(mm);
  int nv = m->nv, nb = m->nbody;
  size_t n2 = (size_t)nv * (size_t)nv + 1;
  hg_data *d = hg_data_new(m), *dm = hg_data_new(mm), *dw = hg_data_new(m);
  double *q = calloc((size_t)m->nq + 1, sizeof *q), *v = calloc((size_t)nv + 1, sizeof *v);
  double *qdd = calloc((size_t)nv + 1, sizeof *qdd), *z = calloc((size_t)nv + 1, sizeof *z);
  double *e = calloc((size_t)nv + 1, sizeof *e), *fext = calloc(6 * (size_t)nb, sizeof *fext);
  double *t = calloc((size_t)nv + 1, sizeof *t), *tm = calloc((size_t)nv + 1, sizeof *tm);
  double *tw = calloc((size_t)nv + 1, sizeof *tw), *t0 = calloc((size_t)nv + 1, sizeof *t0);
  double *M = calloc(n2, sizeof *M), *Mm = calloc(n2, sizeof *Mm), *Mw = calloc(n2, sizeof *Mw);
  for (int s = 0; s < 3; s++) {
    hg_model_random(m, r, q);
    hg_test_random_vector(r, v, nv, -2, 2);
    hg_test_random_vector(r, qdd, nv, -3, 3);
    hg_test_random_vector(r, fext, 6 * nb, -1, 1);
    hg_crba(m, d, q, M);
    assert_int_equal(d->local->tree_carried, 1); /* the swept bodies only */
    assert_int_equal(hg_rnea_fixed_bodies(m, d, NULL), -1); /* no velocities to fill in */
    hg_crba(mm, dm, q, Mm);
    hg_rnea_opt(m, dw, &world, q, z, z, NULL, t0);
    for (int k = 0; k < nv; k++) {
      e[k] = 1;
      hg_rnea_opt(m, dw, &world, q, z, e, NULL, tw);
      e[k] = 0;
      for (int c = 0; c < nv; c++) Mw[(size_t)c * nv + k] = tw[c] - t0[c];
    }
    worst[0] = fmax(worst[0], fmax(rel_diff(M, Mw, nv * nv), rel_diff(Mm, Mw, nv * nv)));
    for (int form = 0; form < 2; form++) {
      const double *f = form ? fext : NULL;
      hg_rnea(m, d, q, v, qdd, f, t);
      assert_int_equal(d->local->tree_carried, 2);
      assert_int_equal(hg_rnea_fixed_bodies(m, d, f), 0);
      hg_rnea_opt(m, dw, &world, q, v, qdd, f, tw);
      assert_int_equal(dw->local->tree_carried, 0);
      worst[0] = fmax(worst[0], rel_diff(t, tw, nv));
      if (!f) {
        hg_rnea(mm, dm, q, v, qdd, NULL, tm);
        worst[0] = fmax(worst[0], rel_diff(tm, tw, nv));
      }
      for (int i = 1; i < nb; i++) {
        double x[12], y[12];
        hg_body_twist(m, d, i, x), hg_body_acceleration(m, d, i, x + 6);
        hg_body_twist(m, dw, i, y), hg_body_acceleration(m, dw, i, y + 6);
        worst[1] = fmax(worst[1], rel_diff(x, y, 12));
        worst[1] = fmax(worst[1], rel_diff(d->T_world[i].R, dw->T_world[i].R, 9));
        worst[1] = fmax(worst[1], rel_diff(d->T_world[i].p, dw->T_world[i].p, 3));
        /* the joint wrench (d->F: what each joint carries, fixed ones included), body frame */
        hg_coAd(&d->T_tree[i], d->F[i], x), hg_coAd(&dw->T_tree[i], dw->F[i], y);
        worst[1] = fmax(worst[1], rel_diff(x, y, 6));
      }
    }
    /* hg_kinematics, which on this model walks the swept bodies and fills the fixed ones in:
     * every body's pose, twist and mass against the walk over every body */
    hg_kinematics(m, d, q, v);
    assert_int_equal(d->local->tree_carried, 0);
    for (int i = 1; i < nb; i++) {
      double x[7], y[7];
      hg_body_twist(m, d, i, x), hg_body_twist(m, dw, i, y);
      x[6] = d->I[i].m, y[6] = dw->I[i].m;
      worst[1] = fmax(worst[1], rel_diff(x, y, 7));
      worst[1] = fmax(worst[1], rel_diff(d->T_world[i].R, dw->T_world[i].R, 9));
      worst[1] = fmax(worst[1], rel_diff(d->T_world[i].p, dw->T_world[i].p, 3));
    }
    /* and what reads every body's inertia after it: kinetic energy and momentum, against the
     * twin's (not the potential: the twin has no bodies fixed to the world, whose constant
     * share it drops) */
    double x[8], y[8];
    hg_energy(m, d, q, v, x, x + 1), hg_momentum(m, d, q, v, x + 2);
    hg_energy(mm, dm, q, v, y, y + 1), hg_momentum(mm, dm, q, v, y + 2);
    x[1] = y[1] = 0;
    worst[1] = fmax(worst[1], rel_diff(x, y, 8));
  }
  free(q), free(v), free(qdd), free(z), free(e), free(fext), free(t), free(tm), free(tw);
  free(t0), free(M), free(Mm), free(Mw);
  hg_data_free(d);
  hg_data_free(dm);
  hg_data_free(dw);
  hg_model_free(mm);
}

/* the robots of assets/robots as read, fixed links kept */
static void robots_as_read(void **state) {
  (void)state;
  static const char *const files[] = {"ur5_style.urdf", "panda_style.urdf", "quadruped_style.urdf"};
  hg_rng r;
  hg_rng_seed(&r, 5);
  double worst[2] = {0, 0}, twin = 0, inv[2] = {0, 0};
  for (int k = 0; k < 3; k++) {
    char path[256];
    hg_error err;
    snprintf(path, sizeof path, "../assets/robots/%s", files[k]);
    hg_model *m = hg_urdf_load(path, 0, NULL, &err);
    if (!m) fail_msg("%s: %s", path, err.msg);
    assert_non_null(m->local);
    assert_true(m->local->nfixed > 0);
    compare_passes(m, &r, worst);
    compare_twin(m, &r, &twin);
    compare_inverse(m, &r, inv);
    hg_model_free(m);
  }
  printf("# robots as read against the tree-frame pass: results %.3g, views %.3g; against the "
         "merged twin %.3g\n", worst[0], worst[1], twin);
  printf("# robots as read, RNEA and CRBA against the twin and the walk over every body: tau and "
         "M %.3g, poses, views and d->F %.3g\n", inv[0], inv[1]);
  assert_true(worst[0] <= 1e-12 && worst[1] <= 1e-12 && twin <= 1e-12);
  assert_true(inv[0] <= 1e-12 && inv[1] <= 1e-12);
}

/* random forests with fixed joints, fixed and floating bases; then each fixed body's inertia
 * changed after compiling (hg_model_set_body_inertia folds it into its carrier again) */
static void random_fixed_models(void **state) {
  (void)state;
  hg_rng r;
  hg_rng_seed(&r, 11);
  double worst[2] = {0, 0}, twin = 0, inv[2] = {0, 0};
  for (int k = 0; k < 40; k++) {
    hg_model *m = random_fixed(&r, 2 + k % 20, k % 3 == 2);
    assert_non_null(m->local);
    if (k % 4 == 3) m->gravity[0] = 1.5, m->gravity[1] = -2, m->gravity[2] = 7;
    compare_passes(m, &r, worst);
    compare_twin(m, &r, &twin);
    if (m->local->nfixed) compare_inverse(m, &r, inv);
    for (int i = 1; i < m->nbody; i++) {
      if (m->jnt[i].type != HG_JOINT_FIXED) continue;
      hg_inertia G;
      hg_test_random_inertia(&r, &G);
      assert_int_equal(hg_model_set_body_inertia(m, i, &G), 0);
    }
    compare_passes(m, &r, worst);
    if (m->local->nfixed) compare_inverse(m, &r, inv);
    hg_model_free(m);
  }
  printf("# random models with fixed joints against the tree-frame pass: results %.3g, views "
         "%.3g; against the merged twin %.3g\n", worst[0], worst[1], twin);
  printf("# random models, RNEA and CRBA against the twin and the walk over every body: tau and "
         "M %.3g, poses, views and d->F %.3g\n", inv[0], inv[1]);
  assert_true(worst[0] <= 1e-12 && worst[1] <= 1e-12 && twin <= 1e-12);
  assert_true(inv[0] <= 1e-12 && inv[1] <= 1e-12);
}

/* a scene's URDF include (data/scenes/example.yaml: a two-link arm hung from a floating
 * spacecraft by a fixed joint, among free bodies) runs the body-local pass too */
static void scene_include(void **state) {
  (void)state;
  hg_scene *s = hg_test_scene("data/scenes/example.yaml");
  hg_sim *sim = hg_test_sim(s, NAN, NULL);
  const hg_model *m = hg_sim_model(sim);
  int fixed = 0;
  for (int i = 1; i < m->nbody; i++) fixed += m->jnt[i].type == HG_JOINT_FIXED;
  assert_true(fixed > 0);
  assert_non_null(m->local);
  hg_rng r;
  hg_rng_seed(&r, 13);
  double worst[2] = {0, 0}, twin = 0;
  double inv[2] = {0, 0};
  compare_passes(m, &r, worst);
  compare_twin(m, &r, &twin);
  compare_inverse(m, &r, inv);
  printf("# scene with a URDF include against the tree-frame pass: results %.3g, views %.3g; "
         "against the merged twin %.3g; RNEA and CRBA: tau and M %.3g, poses, views and d->F %.3g\n",
         worst[0], worst[1], twin, inv[0], inv[1]);
  assert_true(worst[0] <= 1e-12 && worst[1] <= 1e-12 && twin <= 1e-12);
  assert_true(inv[0] <= 1e-12 && inv[1] <= 1e-12);
  hg_sim_free(sim);
  hg_scene_free(s);
}

/* hg_hybrid_on_kinematics asks for hg_kinematics' walk: after hg_rnea's and hg_crba's walk over
 * the swept bodies (each carrier's d->I holds its fixed bodies) it refuses, and after
 * hg_kinematics it gives hg_hybrid's result again */
static void on_kinematics_after_rnea(void **state) {
  (void)state;
  hg_error err;
  hg_model *m = hg_urdf_load("../assets/robots/panda_style.urdf", 0, NULL, &err);
  if (!m) fail_msg("%s", err.msg);
  assert_true(m->local && m->local->nfixed > 0);
  hg_rng r;
  hg_rng_seed(&r, 21);
  int nv = m->nv;
  double q[64], v[64], a[64], tau[64], qdd0[64], tau0[64], qdd[64], t2[64], M[64 * 64];
  assert_true(m->nq <= 64 && nv <= 64);
  hg_model_random(m, &r, q);
  for (int k = 0; k < nv; k++) v[k] = hg_rng_range(&r, -1, 1), a[k] = hg_rng_range(&r, -1, 1);
  hg_data *d = hg_data_new(m);
  for (int k = 0; k < nv; k++) tau0[k] = hg_rng_range(&r, -1, 1);
  memcpy(t2, tau0, sizeof t2);
  assert_int_equal(hg_hybrid(m, d, q, v, qdd0, t2, NULL), 0);
  for (int pass = 0; pass < 2; pass++) {
    if (pass == 0) hg_rnea(m, d, q, v, a, NULL, tau);
    else hg_crba(m, d, q, M);
    memcpy(t2, tau0, sizeof t2);
    assert_int_equal(hg_hybrid_on_kinematics(m, d, qdd, t2, NULL), -1);
    assert_non_null(strstr(d->err, "hg_kinematics first"));
    hg_kinematics(m, d, q, v);
    memcpy(t2, tau0, sizeof t2);
    assert_int_equal(hg_hybrid_on_kinematics(m, d, qdd, t2, NULL), 0);
    for (int k = 0; k < nv; k++) assert_true(fabs(qdd[k] - qdd0[k]) <= 1e-12 * (1 + fabs(qdd0[k])));
  }
  hg_data_free(d);
  hg_model_free(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(robots_as_read),
      cmocka_unit_test(random_fixed_models),
      cmocka_unit_test(scene_include),
      cmocka_unit_test(on_kinematics_after_rnea),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
