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

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(merged_dynamics_agree),
      cmocka_unit_test(merged_inertia_by_hand),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
