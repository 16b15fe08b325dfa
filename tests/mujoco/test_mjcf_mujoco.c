/* test_mjcf_mujoco: hinge's dynamics of MJCF models read through MuJoCo's compiler agree with
 * MuJoCo's own (mjcf_compare.h) on models that exercise every element the reader takes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include <cmocka.h>

#include "mjcf_compare.h"

/* Both sides compute the same equations in double precision with different recursions (MuJoCo:
 * composite rigid bodies and RNE in the centre-of-mass frame; hinge: its own frames), so they
 * differ by round-off: a few hundred ulps over these short chains at most. 1e-9 relative leaves
 * room for the conditioning of M^-1 in FD and nothing more. */
#define TOL 1e-9

static void agree(const char *file) {
  hg_mjcf_agreement a;
  int rc = hg_mjcf_compare(file, 50, 7u, &a);
  if (rc) fprintf(stderr, "%s: %s\n", file, a.why);
  assert_int_equal(rc, 0);
  fprintf(stderr, "%-28s nv %2d  M %.1e  bias %.1e  ID %.1e  FD %.1e\n", file, a.nv, a.err_M,
          a.err_bias, a.err_id, a.err_fd);
  assert_true(a.err_M <= TOL);
  assert_true(a.err_bias <= TOL);
  assert_true(a.err_id <= TOL);
  assert_true(a.err_fd <= TOL);
}

/* degrees, eulerseq zyx, default classes, inertia from geoms, ref, springs, damping, armature */
static void chain(void **state) {
  (void)state;
  agree("data/mjcf/chain.xml");
}

/* several joints in one body, a ball joint off the body origin, slides with ref, inertials */
static void multi(void **state) {
  (void)state;
  agree("data/mjcf/multi.xml");
}

/* free joints (MuJoCo's world-frame linear velocity), damping and armature on them, ball */
static void free_base(void **state) {
  (void)state;
  agree("data/mjcf/free.xml");
}

/* <include>, compiler meshdir and a mesh whose inertia MuJoCo computes, eulerseq XYZ */
static void include(void **state) {
  (void)state;
  agree("data/mjcf/include.xml");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(chain),
      cmocka_unit_test(multi),
      cmocka_unit_test(free_base),
      cmocka_unit_test(include),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
