/* test_inputs.c: the robustness of hinge's inputs: scene reading that scales linearly with the
 * bodies (names by hash), YAML alias expansion and nesting refused early, a campaign's number of
 * runs bounded and its results held for the finished runs only, and inputs edited between a
 * checkpoint (or a campaign's journal) and its resume refused by their content hashes. */
#define _DEFAULT_SOURCE /* realpath */
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
static void write_file(const char *dir, const char *name, const char *text, char *path,
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

/* ---- YAML: alias expansion and nesting refused before the document is read ---- */

/* loads path as a scene, expecting a refusal whose message holds want, in under a second of
 * wall time (a refusal on the event stream takes milliseconds; reading the expansion or the
 * nesting took seconds to minutes) */
static void refused_fast(const char *path, const char *want) {
  hg_error err;
  double t0 = hg_test_now_ns();
  hg_scene *s = hg_scene_load(path, &err);
  double t = (hg_test_now_ns() - t0) * 1e-9;
  if (s) {
    hg_scene_free(s);
    fail_msg("%s was read (in %.3f s), expected a refusal", path, t);
  }
  print_message("%.3f s: %s\n", t, err.msg);
  if (!strstr(err.msg, want)) fail_msg("message without '%s': %s", want, err.msg);
  assert_true(strncmp(err.msg, path, strlen(path)) == 0 && err.msg[strlen(path)] == ':');
  assert_true(t < 1.0);
}

/* A 17 KB scene: one spline profile of 1000 samples (each an alias of one row) set by 2000
 * aliases of one set_mode action: 6 million nodes for the reader, 2 million samples copied. */
static void yaml_alias_amplification(void **state) {
  (void)state;
  char dir[256], path[512];
  assert_int_equal(hg_test_temp_dir("inputs_alias", dir, sizeof dir), 0);
  snprintf(path, sizeof path, "%s/amplified.yaml", dir);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fprintf(f, "bodies:\n  - {name: arm, joint: {type: revolute, name: hinge, axis: [0, 0, 1]}, "
             "inertia: {mass: 1, inertia: [1, 1, 1]}}\ntime: {end: 0.1}\nmodes:\n  hinge:\n"
             "    profile: &P {type: spline, times: [0");
  for (int i = 1; i < 1000; i++) fprintf(f, ", %d", i);
  fprintf(f, "], samples: [&r [0]");
  for (int i = 1; i < 1000; i++) fprintf(f, ", *r");
  fprintf(f, "]}\nevents:\n  - name: e\n    at: 0.05\n"
             "    do: [&A {set_mode: {joint: hinge, profile: *P}}");
  for (int i = 1; i < 2000; i++) fprintf(f, ", *A");
  fprintf(f, "]\n");
  assert_int_equal(fclose(f), 0);
  refused_fast(path, "aliases add more than 1000000 nodes");
  hg_test_remove_dir(dir);
}

/* a small file whose aliases multiply it many times over stays under the absolute bound but
 * not under the ratio: 'a' nine times in b, b nine times in c, ... (9^5 = 59049 nodes) */
static void yaml_alias_ratio(void **state) {
  (void)state;
  char dir[256], path[512];
  assert_int_equal(hg_test_temp_dir("inputs_ratio", dir, sizeof dir), 0);
  write_file(dir, "ratio.yaml",
             "title: t\n"
             "description: [&a [x, x, x, x, x, x, x, x, x],\n"
             "  &b [*a, *a, *a, *a, *a, *a, *a, *a, *a], &c [*b, *b, *b, *b, *b, *b, *b, *b, *b],\n"
             "  &d [*c, *c, *c, *c, *c, *c, *c, *c, *c], [*d, *d, *d, *d, *d, *d, *d, *d, *d]]\n",
             path, sizeof path);
  refused_fast(path, "more than 16 times its own");
  hg_test_remove_dir(dir);
}

/* 100,000 levels of flow nesting (a 200 KB file) under a key the reader knows, and 1000 levels
 * of block nesting in a campaign file */
static void yaml_deep_nesting(void **state) {
  (void)state;
  char dir[256], path[512];
  const int n = 100000;
  assert_int_equal(hg_test_temp_dir("inputs_deep", dir, sizeof dir), 0);
  snprintf(path, sizeof path, "%s/deep.yaml", dir);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs("gravity: ", f);
  for (int i = 0; i < n; i++) fputc('[', f);
  for (int i = 0; i < n; i++) fputc(']', f);
  fputc('\n', f);
  assert_int_equal(fclose(f), 0);
  refused_fast(path, "nested more than 64 levels deep");
  /* the position is where the 65th level opens: the top mapping is the first, the first '['
   * (column 10) the second, so the 64th '[' at column 73 */
  hg_error err;
  assert_null(hg_scene_load(path, &err));
  assert_non_null(strstr(err.msg, ":1:73:"));

  snprintf(path, sizeof path, "%s/deep_campaign.yaml", dir);
  assert_non_null(f = fopen(path, "w"));
  fputs("scene: x.yaml\nmetrics:\n", f);
  for (int i = 0; i < 1000; i++) fprintf(f, "%*s- \n", 2 * i + 2, "");
  assert_int_equal(fclose(f), 0);
  double t0 = hg_test_now_ns();
  hg_campaign *c = hg_campaign_load(path, &err);
  assert_null(c);
  assert_non_null(strstr(err.msg, "nested more than 64 levels deep"));
  assert_true((hg_test_now_ns() - t0) * 1e-9 < 1.0);
  hg_test_remove_dir(dir);
}

/* anchors used as intended (a shape written once, used on every body) stay within the limits */
static void yaml_aliases_allowed(void **state) {
  (void)state;
  char dir[256], path[512];
  assert_int_equal(hg_test_temp_dir("inputs_anchor", dir, sizeof dir), 0);
  snprintf(path, sizeof path, "%s/anchors.yaml", dir);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fprintf(f, "time: {end: 0.01}\nbodies:\n");
  for (int i = 0; i < 200; i++)
    fprintf(f, "  - {name: b%d, joint: free, inertia: %s, geometry: %s}\n", i,
            i ? "*I" : "&I {mass: 1, inertia: [1, 1, 1]}",
            i ? "*G" : "&G [{type: box, size: [1, 1, 1]}, {type: sphere, radius: 0.5}]");
  assert_int_equal(fclose(f), 0);
  hg_error err;
  hg_scene *s = hg_scene_load(path, &err);
  if (!s) fail_msg("%s", err.msg);
  hg_scene_free(s);
  hg_test_remove_dir(dir);
}

/* ---- a campaign's runs: bounded, results held for the finished runs only ---- */

/* 'runs: 30000000' is refused where it is written (results for every run were allocated up
 * front: 16 GB in 60 s); --runs is bounded the same way (cli/cli_mc.c) */
static void campaign_runs_bounded(void **state) {
  (void)state;
  char dir[256], path[512], text[1024];
  hg_error err;
  assert_int_equal(hg_test_temp_dir("inputs_runs", dir, sizeof dir), 0);
  char *cwd = realpath("data/campaigns/pendulum_steps.yaml", NULL);
  assert_non_null(cwd);
  snprintf(text, sizeof text, "scene: %s\nruns: 30000000\nmetrics:\n"
                              "  - {name: e, energy_drift: true}\n", cwd);
  write_file(dir, "huge.yaml", text, path, sizeof path);
  hg_campaign *c = hg_campaign_load(path, &err);
  if (c) {
    hg_campaign_free(c);
    fail_msg("a campaign of 30000000 runs was accepted");
  }
  print_message("%s\n", err.msg);
  assert_non_null(strstr(err.msg, ":2:7: 'runs' must be from 1 to 1000000"));
  snprintf(text, sizeof text, "scene: %s\nruns: 1000000\nmetrics:\n"
                              "  - {name: e, energy_drift: true}\n", cwd);
  write_file(dir, "most.yaml", text, path, sizeof path);
  c = hg_campaign_load(path, &err);
  if (!c) fail_msg("%s", err.msg);

  /* a journal of two runs (0 and 5) of a million: the store covers the first 64 runs only, and
   * a run near the end grows it to cover that run */
  hg_campaign_results res;
  assert_int_equal(hg_campaign_results_init(&res, c), 0);
  snprintf(path, sizeof path, "%s/journal.csv", dir);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs("0,ok,0.25,\"\"\n5,failed,nan,\"it \"\"failed\"\"\"\n", f);
  assert_int_equal(fclose(f), 0);
  assert_int_equal(hg_campaign_read_journal(c, path, &res, &err), 2);
  assert_true(res.n <= 64);
  assert_true(res.done[0] && res.done[5] && !res.done[1]);
  assert_true(res.r[0].ok && !res.r[5].ok);
  assert_true(res.r[0].metric[0] == 0.25);
  assert_string_equal(res.r[5].error, "it \"failed\"");
  assert_non_null(f = fopen(path, "a"));
  fputs("999999,ok,1,\"\"\n", f);
  assert_int_equal(fclose(f), 0);
  hg_campaign_results_clear(&res, c);
  assert_int_equal(hg_campaign_read_journal(c, path, &res, &err), 3);
  assert_true(res.n >= 1000000 && res.done[999999] && res.r[999999].metric[0] == 1);
  hg_campaign_results_free(&res);
  hg_campaign_free(c);
  free(cwd);
  hg_test_remove_dir(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(scene_names_linear),      cmocka_unit_test(yaml_alias_amplification),
      cmocka_unit_test(yaml_alias_ratio),        cmocka_unit_test(yaml_deep_nesting),
      cmocka_unit_test(yaml_aliases_allowed),    cmocka_unit_test(campaign_runs_bounded),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
