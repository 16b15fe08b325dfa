/* test_merge.c: fixed links merged into their parents (merge.h): the same q and v layout, the same
 * dynamics to round-off, and every original body kept as a frame on its carrier. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hinge.h"
#include "merge.h"
#include "urdf.h"

/* |a - b| <= tol (1 + |b|) for n entries */
static void assert_close(const double *a, const double *b, int n, double tol, const char *what) {
  for (int k = 0; k < n; k++)
    if (!(fabs(a[k] - b[k]) <= tol * (1 + fabs(b[k]))))
      fail_msg("%s[%d]: %.17g vs %.17g", what, k, a[k], b[k]);
}

static hg_model *load(const char *path, int floating) {
  hg_error err;
  hg_model *m = hg_urdf_load(path, floating, NULL, &err);
  if (!m) fail_msg("%s", err.msg);
  return m;
}

/* 6 moving and 20 fixed joints (3 of them under the root link, whose own joint to the world is
 * fixed too, or free with floating): the merged model has the 6 (+1) moving bodies, the same
 * layout, and FD, ID, M and b agree on random states. The tolerance: both models sum the same
 * terms in another order and frame, so they differ by a few hundred eps of each quantity's scale
 * (measured ~1e-15); 1e-12 leaves room and still catches any wrong transform (errors ~1e-3). */
static void merged_dynamics_agree(void **state) {
  for (int floating = 0; floating < 2; floating++) {
    hg_model *m = load("data/robots/fixed_links.urdf", floating);
    int *fb = malloc((size_t)m->nbody * sizeof(int));
    hg_se3 *fp = malloc((size_t)m->nbody * sizeof(hg_se3));
    hg_error err;
    hg_model *mm = hg_model_merge_fixed(m, fb, fp, &err);
    if (!mm) fail_msg("%s", err.msg);
    assert_int_equal(m->nbody, 28);
    assert_int_equal(mm->nbody, 7 + floating);
    assert_int_equal(mm->nq, m->nq);
    assert_int_equal(mm->nv, m->nv);
    /* every moving joint keeps its name and its place in q and v */
    for (int i = 1; i < m->nbody; i++) {
      if (m->jnt[i].type == HG_JOINT_FIXED) continue;
      int j = hg_model_joint(mm, m->jnt_name[i]);
      assert_true(j > 0);
      assert_int_equal(mm->q_adr[j], m->q_adr[i]);
      assert_int_equal(mm->v_adr[j], m->v_adr[i]);
      assert_int_equal(fb[i], j);
    }
    /* the total mass is kept (less what is fixed to the world without floating) */
    double mass = 0, mmass = 0;
    for (int i = 1; i < m->nbody; i++) mass += fb[i] ? m->inertia[i].m : 0;
    for (int i = 1; i < mm->nbody; i++) mmass += mm->inertia[i].m;
    assert_true(fabs(mass - mmass) <= 1e-14 * mass);
    hg_data *d = hg_data_new(m), *dd = hg_data_new(mm);
    int nq = m->nq, nv = m->nv;
    double *q = malloc((size_t)nq * sizeof(double)), *v = malloc((size_t)nv * sizeof(double));
    double *x = malloc((size_t)nv * sizeof(double)), *a = malloc((size_t)nv * sizeof(double));
    double *b = malloc((size_t)nv * sizeof(double)), *M = malloc((size_t)(nv * nv) * sizeof(double));
    double *M2 = malloc((size_t)(nv * nv) * sizeof(double)), *a2 = malloc((size_t)nv * sizeof(double));
    hg_rng rng;
    hg_rng_seed(&rng, 7);
    for (int t = 0; t < 20; t++) {
      hg_model_random(m, &rng, q);
      for (int k = 0; k < nv; k++) v[k] = hg_rng_range(&rng, -2, 2), x[k] = hg_rng_range(&rng, -5, 5);
      assert_int_equal(hg_aba(m, d, q, v, x, NULL, a), 0);
      assert_int_equal(hg_aba(mm, dd, q, v, x, NULL, a2), 0);
      assert_close(a2, a, nv, 1e-12, "fd");
      hg_rnea(m, d, q, v, x, NULL, a);
      hg_rnea(mm, dd, q, v, x, NULL, a2);
      assert_close(a2, a, nv, 1e-12, "id");
      hg_bias(m, d, q, v, NULL, b);
      hg_bias(mm, dd, q, v, NULL, a2);
      assert_close(a2, b, nv, 1e-12, "bias");
      hg_crba(m, d, q, M);
      hg_crba(mm, dd, q, M2);
      assert_close(M2, M, nv * nv, 1e-12, "mass");
      /* frames: T_world of every original body is its carrier's pose times its frame pose */
      hg_kinematics(m, d, q, v);
      hg_kinematics(mm, dd, q, v);
      for (int i = 1; i < m->nbody; i++) {
        hg_se3 T;
        hg_se3_mul(&dd->T_world[fb[i]], &fp[i], &T);
        assert_close(T.R, d->T_world[i].R, 9, 1e-13, "frame R");
        assert_close(T.p, d->T_world[i].p, 3, 1e-13, "frame p");
      }
    }
    free(q), free(v), free(x), free(a), free(b), free(M), free(M2), free(a2);
    hg_data_free(d);
    hg_data_free(dd);
    free(fb);
    free(fp);
    hg_model_free(mm);
    hg_model_free(m);
  }
}

/* by hand: two unit point masses, one at the moving body's origin and one fixed 1 m along x
 * from it, rotated; merged, the carrier has m = 2, h = (1, 0, 0) and I_zz = 1 about its origin,
 * and the geometry of the fixed body moves onto it at the fixed joint's offset */
static void merged_inertia_by_hand(void **state) {
  hg_builder *b = hg_builder_new();
  hg_body_spec s;
  hg_error err;
  const char *why;
  memset(&s, 0, sizeof s);
  s.name = "arm";
  hg_joint_init(&s.joint, HG_JOINT_REVOLUTE, (double[]){0, 0, 1}, NULL, 0, &why);
  hg_se3_identity(&s.offset);
  s.inertia.m = 1;
  assert_int_equal(hg_builder_add_body(b, &s, &err), 0);
  s.name = "weight";
  s.parent = "arm";
  hg_joint_init(&s.joint, HG_JOINT_FIXED, NULL, NULL, 0, &why);
  double w[3] = {0, 0, 1.2};
  hg_so3_exp(w, s.offset.R);
  s.offset.p[0] = 1;
  assert_int_equal(hg_builder_add_body(b, &s, &err), 0);
  hg_geom g;
  memset(&g, 0, sizeof g);
  g.type = HG_GEOM_SPHERE;
  g.size[0] = 0.1;
  hg_se3_identity(&g.pose);
  assert_int_equal(hg_builder_add_geom(b, "weight", &g, &err), 0);
  hg_model *m = hg_builder_compile(b, &err);
  assert_non_null(m);
  hg_model *mm = hg_model_merge_fixed(m, NULL, NULL, &err);
  assert_non_null(mm);
  assert_int_equal(mm->nbody, 2);
  const hg_inertia *G = &mm->inertia[1];
  assert_true(G->m == 2 && fabs(G->h[0] - 1) < 1e-15 && fabs(G->h[1]) < 1e-15);
  assert_true(fabs(G->I[2] - 1) < 1e-15 && fabs(G->I[1] - 1) < 1e-15 && fabs(G->I[0]) < 1e-15);
  assert_int_equal(mm->ngeom, 1);
  assert_int_equal(mm->geom[0].body, 1);
  assert_true(fabs(mm->geom[0].pose.p[0] - 1) < 1e-15);
  assert_true(fabs(mm->geom[0].pose.R[0] - cos(1.2)) < 1e-15);
  hg_model_free(mm);
  hg_model_free(m);
  hg_builder_free(b);
}

/* the robots of assets/robots (UR5-, Panda- and A1-style URDFs, see its README): each loads with
 * the bodies its file has (world + links; the quadruped's "world" link is the world itself and its
 * trunk hangs on the file's floating joint), merges to world + the links on moving joints, and
 * ABA, RNEA and CRBA on the merged model agree with the unmerged one at random states (q from
 * hg_model_random, v in [-2, 2], tau or vdot in [-5, 5]). The tolerance is relative to the
 * largest entry of each result: the two models sum the same terms in another order and frame,
 * and the light fingers and calves give accelerations of 1e3-1e4 next to O(1) ones, so an
 * entry-wise relative test would measure the round-off of the large ones against the small ones.
 * Measured (seed 11): up to 1e-13 (UR5 ABA, whose wrist_3 is 4 orders lighter than the upper
 * arm), 1.4e-14 (Panda), 2e-15 (quadruped); 1e-12 still fails any wrong merge, whose errors (a
 * COM or rotation off) are 1e-3 and more of the largest entry. */
static void robots_merge(void **state) {
  static const struct {
    const char *path;
    int nbody, nbody_merged, nv;
  } robots[] = {
      {"../assets/robots/ur5_style.urdf", 12, 7, 6},         /* 5 fixed links, 6 revolute */
      {"../assets/robots/panda_style.urdf", 14, 10, 9},      /* 4 fixed, 7 revolute, 2 fingers */
      {"../assets/robots/quadruped_style.urdf", 19, 14, 18}, /* imu, 4 feet, free + 12 revolute */
  };
  for (size_t r = 0; r < sizeof robots / sizeof robots[0]; r++) {
    hg_model *m = load(robots[r].path, 0);
    hg_error err;
    hg_model *mm = hg_model_merge_fixed(m, NULL, NULL, &err);
    if (!mm) fail_msg("%s", err.msg);
    assert_int_equal(m->nbody, robots[r].nbody);
    assert_int_equal(mm->nbody, robots[r].nbody_merged);
    assert_int_equal(mm->nv, robots[r].nv);
    assert_int_equal(mm->nq, m->nq);
    /* no moving body is massless */
    for (int i = 1; i < mm->nbody; i++) assert_true(mm->inertia[i].m > 0);
    hg_data *d = hg_data_new(m), *dd = hg_data_new(mm);
    int nq = m->nq, nv = m->nv;
    double *q = malloc((size_t)nq * sizeof(double)), *v = malloc((size_t)nv * sizeof(double));
    double *x = malloc((size_t)nv * sizeof(double)), *a = malloc((size_t)nv * sizeof(double));
    double *a2 = malloc((size_t)nv * sizeof(double));
    double *M = malloc((size_t)(nv * nv) * sizeof(double)), *M2 = malloc((size_t)(nv * nv) * sizeof(double));
    hg_rng rng;
    hg_rng_seed(&rng, 11);
    double worst = 0;
    for (int t = 0; t < 20; t++) {
      hg_model_random(m, &rng, q);
      for (int k = 0; k < nv; k++) v[k] = hg_rng_range(&rng, -2, 2), x[k] = hg_rng_range(&rng, -5, 5);
      for (int which = 0; which < 3; which++) {
        int n = which == 2 ? nv * nv : nv;
        double *p = which == 2 ? M : a, *p2 = which == 2 ? M2 : a2;
        if (which == 0) {
          assert_int_equal(hg_aba(m, d, q, v, x, NULL, a), 0);
          assert_int_equal(hg_aba(mm, dd, q, v, x, NULL, a2), 0);
        } else if (which == 1) {
          hg_rnea(m, d, q, v, x, NULL, a);
          hg_rnea(mm, dd, q, v, x, NULL, a2);
        } else {
          hg_crba(m, d, q, M);
          hg_crba(mm, dd, q, M2);
        }
        double scale = 0, diff = 0;
        for (int k = 0; k < n; k++) scale = fmax(scale, fabs(p[k])), diff = fmax(diff, fabs(p2[k] - p[k]));
        if (!(diff <= 1e-12 * scale))
          fail_msg("%s, %s: max |merged - unmerged| %.3g of max %.3g", robots[r].path,
                   which == 0 ? "aba" : which == 1 ? "rnea" : "crba", diff, scale);
        worst = fmax(worst, diff / scale);
      }
    }
    print_message("%s: nbody %d -> %d, nv %d, worst relative difference %.2g\n", robots[r].path,
                  m->nbody, mm->nbody, nv, worst);
    free(q), free(v), free(x), free(a), free(a2), free(M), free(M2);
    hg_data_free(d);
    hg_data_free(dd);
    hg_model_free(mm);
    hg_model_free(m);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(merged_dynamics_agree),
      cmocka_unit_test(merged_inertia_by_hand),
      cmocka_unit_test(robots_merge),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
