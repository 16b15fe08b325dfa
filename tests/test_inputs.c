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
#include <time.h>

#include <cmocka.h>

#include "campaign.h"
#include "files.h"
#include "scene.h"
#include "sim.h"
#include "sims.h"
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

/* this process's CPU time, s (the machine's other jobs do not count in it, as they do in wall
 * time) */
static double cpu_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* the shortest of three loads of a scene, CPU time */
static double load_time(const char *path) {
  double best = INFINITY;
  for (int rep = 0; rep < 3; rep++) {
    hg_error err;
    double t0 = cpu_now();
    hg_scene *s = hg_scene_load(path, &err);
    double t = cpu_now() - t0;
    if (!s) fail_msg("%s", err.msg);
    assert_int_equal(s->builder ? 0 : 1, 0);
    hg_scene_free(s);
    if (t < best) best = t;
  }
  return best;
}

/* Reading eight times the bodies takes about eight to fifteen times the time (more than eight:
 * the larger arrays leave the caches; four times the bodies measured 6-7 times the time). When
 * every body's name was compared with every earlier one's (duplicate names, parents, the
 * compiled model's lookups) it took sixty-four times. The bound 24 is about the geometric mean
 * of 8 and 64 (22.6); CPU time and the shortest of three loads keep the machine's other jobs out
 * of the ratio. (With four times the bodies and a bound of 8, a loaded machine crossed it.) */
static void scene_names_linear(void **state) {
  (void)state;
  char dir[256], p1[512], p2[512];
  assert_int_equal(hg_test_temp_dir("inputs_names", dir, sizeof dir), 0);
  write_bodies(dir, 2500, p1, sizeof p1);
  write_bodies(dir, 20000, p2, sizeof p2);
  double t1 = load_time(p1), t2 = load_time(p2);
  print_message("scene of 2500 bodies read in %.3f s, 20000 in %.3f s (ratio %.2f)\n", t1, t2,
                t2 / t1);
  assert_true(t2 < 24 * t1);
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

/* ---- inputs edited between a checkpoint or a journal and its resume ---- */

static const char pendulum_scene[] =
    "time: {end: 2}\noutput: {dt: 0.1}\n"
    "bodies:\n  - {name: a, joint: {type: revolute, name: h, axis: [0, 1, 0]}, "
    "inertia: {mass: 1, com: [0.5, 0, 0], inertia: [0.01, 0.1, 0.1]}}\n"
    "urdf:\n  - {file: arm.urdf, parent: world, pos: [0, 2, 0], prefix: arm_}\n"
    "initial:\n  joints:\n    h: {q: [0.5]}\n";

/* a scene (pendulum_scene with mass written in) and its URDF include in dir; the scene's path */
static void write_pendulum(const char *dir, const char *mass, char *path, size_t len) {
  char text[1024], urdf[512];
  size_t n;
  char *arm = hg_test_read_file("data/arm2.urdf", &n);
  assert_non_null(arm);
  snprintf(urdf, sizeof urdf, "%s/arm.urdf", dir);
  FILE *f = fopen(urdf, "r");
  if (f) fclose(f);
  else write_file(dir, "arm.urdf", arm, urdf, sizeof urdf);
  free(arm);
  snprintf(text, sizeof text, "%s", pendulum_scene);
  char *m = strstr(text, "mass: 1,");
  assert_non_null(m);
  memmove(m + 6 + strlen(mass), m + 7, strlen(m + 7) + 1);
  memcpy(m + 6, mass, strlen(mass));
  write_file(dir, "pendulum.yaml", text, path, len);
}

/* resumes the scene at path from ck; 0, or the error's message in msg */
static int resume_from(const char *path, const char *ck, char *msg, size_t len) {
  hg_error err;
  hg_scene *s = hg_scene_load(path, &err);
  if (!s) fail_msg("%s", err.msg);
  hg_sim *sim = hg_test_sim(s, NAN, NULL);
  int rc = hg_sim_resume(sim, ck, &err);
  snprintf(msg, len, "%s", rc ? err.msg : "");
  if (rc == 0) assert_int_equal(hg_sim_run(sim, INFINITY), HG_SIM_OK);
  hg_sim_free(sim);
  hg_scene_free(s);
  return rc;
}

/* A checkpoint records the hash of every file the scene was read from: the scene edited after
 * it (mass 1 -> 3: the resumed run finished with an energy drift of 0.667 and exit 0) or its
 * URDF include edited is refused; the same files resume; a version 1 checkpoint still reads. */
static void checkpoint_inputs_hashed(void **state) {
  (void)state;
  char dir[256], path[512], ck[512], msg[1024], urdf[512];
  assert_int_equal(hg_test_temp_dir("inputs_ck", dir, sizeof dir), 0);
  write_pendulum(dir, "1", path, sizeof path);
  hg_error err;
  hg_scene *s = hg_scene_load(path, &err);
  if (!s) fail_msg("%s", err.msg);
  assert_int_equal(s->ninput, 2); /* the scene and its URDF include */
  hg_sim *sim = hg_test_sim_ck(s, 0, dir, 1.0);
  assert_int_equal(hg_sim_run(sim, INFINITY), HG_SIM_OK);
  assert_int_equal(hg_sim_finish(sim), HG_SIM_OK);
  hg_sim_free(sim);
  hg_scene_free(s);
  snprintf(ck, sizeof ck, "%s/checkpoint-0001.txt", dir);

  assert_int_equal(resume_from(path, ck, msg, sizeof msg), 0);
  write_pendulum(dir, "3", path, sizeof path);
  assert_int_not_equal(resume_from(path, ck, msg, sizeof msg), 0);
  print_message("%s\n", msg);
  assert_true(strncmp(msg, path, strlen(path)) == 0);
  assert_non_null(strstr(msg, ": changed since the checkpoint was written (hash "));
  assert_non_null(strstr(msg, "rerun without --resume"));

  /* the scene as it was, its URDF edited (a comment added: any byte counts) */
  write_pendulum(dir, "1", path, sizeof path);
  snprintf(urdf, sizeof urdf, "%s/arm.urdf", dir);
  FILE *f = fopen(urdf, "a");
  assert_non_null(f);
  fputs("<!-- edited -->\n", f);
  assert_int_equal(fclose(f), 0);
  assert_int_not_equal(resume_from(path, ck, msg, sizeof msg), 0);
  print_message("%s\n", msg);
  assert_non_null(strstr(msg, "arm.urdf: changed since the checkpoint was written"));

  /* a version 1 checkpoint (no input records) resumes as before */
  size_t n;
  char *text = hg_test_read_file(ck, &n);
  assert_non_null(text);
  char v1[512];
  snprintf(v1, sizeof v1, "%s/v1.txt", dir);
  assert_non_null(f = fopen(v1, "w"));
  for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
    if (strncmp(line, "input ", 6) == 0) continue;
    fprintf(f, "%s\n", strcmp(line, "hinge-checkpoint 2") ? line : "hinge-checkpoint 1");
  }
  assert_int_equal(fclose(f), 0);
  free(text);
  assert_int_equal(resume_from(path, v1, msg, sizeof msg), 0);
  hg_test_remove_dir(dir);
}

/* a campaign of the pendulum: its mass dispersed, its energy drift measured */
static hg_campaign *pendulum_campaign(const char *dir, const char *extra) {
  char path[512], text[512];
  hg_error err;
  snprintf(text, sizeof text,
           "scene: pendulum.yaml\nruns: 4\nseed: 3\n%s"
           "dispersions:\n  - {path: bodies.a.inertia.mass, uniform: {min: 0.5, max: 2}}\n"
           "metrics:\n  - {name: drift, energy_drift: true}\n"
           "  - {name: speed, final_speed: a}\n", extra);
  write_file(dir, "campaign.yaml", text, path, sizeof path);
  hg_campaign *c = hg_campaign_load(path, &err);
  if (!c) fail_msg("%s", err.msg);
  return c;
}

/* The campaign reads its scene's bytes once: the file broken after the campaign was loaded
 * reaches none of its runs (each run read the file again: an edit mid-campaign changed 279 of
 * 300 rows, all 'ok'). */
static void campaign_scene_read_once(void **state) {
  (void)state;
  char dir[256], path[512];
  assert_int_equal(hg_test_temp_dir("inputs_once", dir, sizeof dir), 0);
  write_pendulum(dir, "1", path, sizeof path);
  hg_campaign *c = pendulum_campaign(dir, "");
  assert_int_equal(c->ninput, 3); /* the campaign, the scene, its URDF include */
  double buf[2][4];
  hg_run_result r[2] = {{.param = buf[0], .metric = buf[0] + 1},
                        {.param = buf[1], .metric = buf[1] + 1}};
  hg_campaign_run_one(c, 2, NULL, &r[0]);
  assert_true(r[0].ok);
  hg_error err;
  assert_int_equal(hg_campaign_check_inputs(c, &err), 0);
  write_file(dir, "pendulum.yaml", "bodies: [not a scene\n", path, sizeof path);
  hg_campaign_run_one(c, 2, NULL, &r[1]);
  if (!r[1].ok) fail_msg("the run read the edited file: %s", r[1].error);
  for (int j = 0; j < 3; j++) assert_true(memcmp(&buf[0][j], &buf[1][j], sizeof(double)) == 0);
  assert_int_equal(hg_campaign_check_inputs(c, &err), 0); /* the scene's bytes were read once */
  /* the URDF include is read by every run: its edit is found when the campaign ends */
  char urdf[512];
  snprintf(urdf, sizeof urdf, "%s/arm.urdf", dir);
  FILE *f = fopen(urdf, "a");
  assert_non_null(f);
  fputs("<!-- edited -->\n", f);
  assert_int_equal(fclose(f), 0);
  assert_int_equal(hg_campaign_check_inputs(c, &err), -1);
  print_message("%s\n", err.msg);
  assert_non_null(strstr(err.msg, "arm.urdf: changed during the campaign (hash "));
  hg_campaign_free(c);
  hg_test_remove_dir(dir);
}

/* A journal starts with its inputs' hashes: a resume after the campaign file or the scene was
 * edited is refused (the campaign file edited after a kill mixed both campaigns in runs.csv);
 * the same files continue; a journal without the hashes (an older hinge's) is refused. */
static void campaign_journal_inputs(void **state) {
  (void)state;
  char dir[256], path[512], journal[600];
  hg_error err;
  assert_int_equal(hg_test_temp_dir("inputs_journal", dir, sizeof dir), 0);
  write_pendulum(dir, "1", path, sizeof path);
  hg_campaign *c = pendulum_campaign(dir, "");
  snprintf(journal, sizeof journal, "%s/journal.csv", dir);
  unsigned char done[4] = {0, 1, 0, 1}; /* runs 0 and 2 made: a killed campaign */
  assert_int_equal(hg_campaign_run(c, done, 0, 1, 1, journal, NULL), 2);
  assert_int_equal(hg_campaign_check_journal(c, journal, &err), 0);
  hg_campaign_free(c);

  /* the campaign file edited (an end time added) */
  c = pendulum_campaign(dir, "t_end: 1.5\n");
  assert_int_equal(hg_campaign_check_journal(c, journal, &err), -1);
  print_message("%s\n", err.msg);
  assert_non_null(strstr(err.msg, "campaign.yaml: changed since the journal was written (hash "));
  hg_campaign_free(c);

  /* the campaign as it was, the scene edited */
  c = pendulum_campaign(dir, "");
  assert_int_equal(hg_campaign_check_journal(c, journal, &err), 0);
  hg_campaign_free(c);
  write_pendulum(dir, "3", path, sizeof path);
  c = pendulum_campaign(dir, "");
  assert_int_equal(hg_campaign_check_journal(c, journal, &err), -1);
  print_message("%s\n", err.msg);
  assert_non_null(strstr(err.msg, "pendulum.yaml: changed since the journal was written"));

  /* a journal of runs without the hashes */
  write_file(dir, "old.csv", "0,ok,1,0.1,0.2,\"\"\n", path, sizeof path);
  assert_int_equal(hg_campaign_check_journal(c, path, &err), -1);
  assert_non_null(strstr(err.msg, "without the hashes"));
  hg_campaign_free(c);
  hg_test_remove_dir(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(scene_names_linear),      cmocka_unit_test(yaml_alias_amplification),
      cmocka_unit_test(yaml_alias_ratio),        cmocka_unit_test(yaml_deep_nesting),
      cmocka_unit_test(yaml_aliases_allowed),    cmocka_unit_test(campaign_runs_bounded),
      cmocka_unit_test(checkpoint_inputs_hashed), cmocka_unit_test(campaign_scene_read_once),
      cmocka_unit_test(campaign_journal_inputs),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
