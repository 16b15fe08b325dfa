/* test_model.c: building and compiling models: topological order, subtree ranges, lookups, and
 * every error the builder and compiler report. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "models.h"

/* a body spec with a revolute joint and a unit-ish inertia */
static hg_body_spec body(const char *name, const char *parent) {
  hg_body_spec s;
  const char *why;
  double c[3] = {0.1, 0, 0}, Ic[6] = {0.01, 0.02, 0.02, 0, 0, 0};
  memset(&s, 0, sizeof s);
  s.name = name;
  s.parent = parent;
  hg_joint_init(&s.joint, HG_JOINT_REVOLUTE, NULL, NULL, 0, &why);
  hg_se3_identity(&s.offset);
  s.offset.p[0] = 0.2;
  hg_inertia_from_com(1.0, c, Ic, &s.inertia, NULL, 0);
  return s;
}

/* bodies added out of order come out depth first, parents before children */
static void topological_order_and_subtrees(void **state) {
  hg_builder *b = hg_builder_new();
  hg_error err;
  const char *names[][2] = {{"c", "b"}, {"a", "world"}, {"b", "a"}, {"d", "a"}, {"e", "world"}};
  hg_body_spec s;
  for (int k = 0; k < 5; k++) {
    s = body(names[k][0], names[k][1]);
    assert_int_equal(hg_builder_add_body(b, &s, &err), 0);
  }
  hg_model *m = hg_builder_compile(b, &err);
  assert_non_null(m);
  assert_int_equal(m->nbody, 6);
  for (int i = 1; i < m->nbody; i++) assert_true(m->parent[i] < i);
  /* a's subtree is a, b, c, d; e is its own tree */
  int a = hg_model_body(m, "a"), e = hg_model_body(m, "e");
  assert_int_equal(m->subtree_end[a] - a, 4);
  assert_int_equal(m->subtree_end[e], e + 1);
  assert_int_equal(m->root[hg_model_body(m, "c")], a);
  assert_int_equal(m->root[e], e);
  assert_int_equal(hg_model_joint(m, "d"), hg_model_body(m, "d"));
  assert_int_equal(hg_model_body(m, "nope"), -1);
  assert_int_equal(m->nq, 5);
  hg_model_free(m);
  hg_builder_free(b);
}

/* compiles bodies (name, parent) and returns the compiler's message */
static const char *compile_error(const char *(*names)[2], int n, hg_error *err) {
  hg_builder *b = hg_builder_new();
  for (int k = 0; k < n; k++) {
    hg_body_spec s = body(names[k][0], names[k][1]);
    if (hg_builder_add_body(b, &s, err)) {
      hg_builder_free(b);
      return err->msg;
    }
  }
  hg_model *m = hg_builder_compile(b, err);
  hg_builder_free(b);
  if (m) {
    hg_model_free(m);
    return NULL;
  }
  return err->msg;
}

/* compiling bodies (name, parent) fails with a message that contains what */
static void expect_compile_error(const char *(*names)[2], int n, const char *what) {
  hg_error err;
  const char *msg = compile_error(names, n, &err);
  assert_non_null(msg);
  assert_non_null(strstr(msg, what));
}

static void builder_errors(void **state) {
  hg_error err;
  const char *unknown[][2] = {{"a", "world"}, {"b", "ghost"}};
  const char *cycle[][2] = {{"a", "world"}, {"b", "c"}, {"c", "b"}};
  const char *dup[][2] = {{"a", "world"}, {"a", "world"}};
  const char *world[][2] = {{"world", "world"}};
  expect_compile_error(unknown, 2, "unknown parent 'ghost'");
  expect_compile_error(cycle, 3, "cycle");
  expect_compile_error(dup, 2, "duplicate body name 'a'");
  expect_compile_error(world, 1, "'world'");

  /* duplicate joint names */
  hg_builder *b = hg_builder_new();
  hg_body_spec s = body("a", "world");
  s.joint_name = "j";
  assert_int_equal(hg_builder_add_body(b, &s, &err), 0);
  s = body("b", "a");
  s.joint_name = "j";
  assert_int_equal(hg_builder_add_body(b, &s, &err), 0);
  assert_null(hg_builder_compile(b, &err));
  assert_non_null(strstr(err.msg, "duplicate joint name 'j'"));
  hg_builder_free(b);

  /* invalid inertias: negative mass, a non-physical rotational inertia, NaN */
  b = hg_builder_new();
  s = body("a", "world");
  s.inertia.m = -1;
  assert_int_equal(hg_builder_add_body(b, &s, &err), -1);
  assert_non_null(strstr(err.msg, "invalid inertia"));
  s = body("a", "world");
  s.inertia.I[0] = 10; /* Ixx > Iyy + Izz */
  assert_int_equal(hg_builder_add_body(b, &s, &err), -1);
  assert_non_null(strstr(err.msg, "triangle"));
  s = body("a", "world");
  s.inertia.I[2] = NAN;
  assert_int_equal(hg_builder_add_body(b, &s, &err), -1);
  s = body("a", "world");
  s.name = "";
  assert_int_equal(hg_builder_add_body(b, &s, &err), -1);
  assert_int_equal(hg_builder_add_geom(b, "ghost", &(hg_geom){.type = HG_GEOM_BOX}, &err), -1);
  hg_builder_free(b);
}

/* q (+) (q1 (-) q0) = q1 over whole random models */
static void model_group_operations(void **state) {
  hg_rng r;
  hg_rng_seed(&r, 5);
  for (int t = 0; t < 20; t++) {
    hg_model *m = hg_test_random_tree(&r, 8, t % 2);
    double q0[64], q1[64], q2[64], dv[64];
    hg_model_random(m, &r, q0);
    hg_model_random(m, &r, q1);
    hg_model_difference(m, q0, q1, dv);
    hg_model_integrate(m, q0, dv, 1.0, q2);
    /* compare poses, not coordinates (q and -q are one rotation) */
    hg_data *d1 = hg_data_new(m), *d2 = hg_data_new(m);
    hg_kinematics(m, d1, q1, NULL);
    hg_kinematics(m, d2, q2, NULL);
    for (int i = 1; i < m->nbody; i++) {
      for (int k = 0; k < 9; k++) assert_true(fabs(d1->T_world[i].R[k] - d2->T_world[i].R[k]) < 1e-12);
      for (int k = 0; k < 3; k++) assert_true(fabs(d1->T_world[i].p[k] - d2->T_world[i].p[k]) < 1e-12);
    }
    hg_data_free(d1);
    hg_data_free(d2);
    hg_model_free(m);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(topological_order_and_subtrees),
      cmocka_unit_test(builder_errors),
      cmocka_unit_test(model_group_operations),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
