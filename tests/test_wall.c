/* test_wall.c: the stop of a run by its wall-time limit or a signal (sim.h's hg_sim_run): a
 * pendulum on Lie-Euler steps of 1e-7 s with outputs 100 s apart, so that one stretch between
 * outputs is 1e9 steps and the limit must stop the run inside the integrator's advance. The run
 * stops within the limit plus a margin, says why, leaves complete CSV files, a summary and a
 * checkpoint in stop-state.txt that a resumed run continues from; the scene's time.max_wall
 * does the same, and an interrupt flag stops it the same way. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "files.h"
#include "sims.h"

#define SCENE_HEAD                                                                                \
  "bodies:\n"                                                                                     \
  "  - name: rod\n"                                                                               \
  "    joint: {type: revolute, name: pivot, axis: [0, 1, 0], pos: [0, 0, 2]}\n"                   \
  "    inertia: {mass: 2, com: [0, 0, -0.5], inertia: [0.25, 0.25, 0.01]}\n"                      \
  "initial:\n"                                                                                    \
  "  joints: {pivot: {q: [0.5]}}\n"                                                               \
  "integrator: {method: lie-euler, step: 1e-7, max_steps: 1000000000}\n"                          \
  "output: {dt: 100}\n"

static const char scene_text[] = SCENE_HEAD "time: {start: 0, end: 10000}\n";
static const char scene_limited[] = SCENE_HEAD "time: {start: 0, end: 10000, max_wall: 0.3}\n";

/* the limit, and the margin past it a stop may take: the clock is read at least every 16
 * evaluations of about a microsecond each, so the stop itself costs microseconds; the margin is
 * for a loaded machine (2 cores shared by several builds) and the checkpoint's writing */
#define LIMIT 0.3
#define MARGIN 0.7

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* every line of a CSV file ends with a newline and has as many fields as the header */
static void assert_complete_csv(const char *path) {
  size_t len;
  char *text = hg_test_read_file(path, &len);
  assert_non_null(text);
  assert_true(len > 0 && text[len - 1] == '\n');
  int fields = -1, lines = 0;
  for (char *line = text; *line; lines++) {
    char *end = strchr(line, '\n');
    int n = 1;
    for (char *p = line; p < end; p++) n += *p == ',';
    if (fields < 0) fields = n;
    assert_int_equal(n, fields);
    line = end + 1;
  }
  assert_true(lines >= 2); /* the header and the row at t = 0 */
  free(text);
}

/* a run of s stopped by max_wall (0: the scene's) in dir; its stop time */
static double stopped_run(const hg_scene *s, double max_wall, const char *dir) {
  hg_sim_options opt;
  hg_error err;
  hg_sim_default_options(&opt);
  opt.out_dir = dir;
  opt.max_wall = max_wall;
  hg_sim *sim = hg_sim_new(s, &opt, &err);
  assert_non_null(sim);
  hg_test_outputs(sim, dir);
  double w0 = now();
  assert_int_equal(hg_sim_run(sim, INFINITY), HG_SIM_STOPPED);
  double wall = now() - w0, t = hg_sim_time(sim);
  printf("# stopped at t = %.9g s after %.3f s of wall time: %s\n", t, wall, hg_sim_error(sim));
  assert_true(wall >= LIMIT && wall < LIMIT + MARGIN);
  assert_int_equal(hg_sim_stop_cause(sim), HG_SIM_STOP_WALL);
  assert_non_null(strstr(hg_sim_error(sim), "wall-time limit (0.3 s)"));
  assert_true(t > 0 && t < 100); /* inside the first stretch */
  /* later runs report the same stop */
  assert_int_equal(hg_sim_run(sim, INFINITY), HG_SIM_STOPPED);
  assert_int_equal(hg_sim_finish(sim), HG_SIM_OK);
  hg_sim_free(sim);
  char path[512];
  snprintf(path, sizeof path, "%s/summary.txt", dir);
  char *summary = hg_test_read_file(path, NULL);
  assert_non_null(summary);
  assert_non_null(strstr(summary, "status: stopped at t = "));
  assert_non_null(strstr(summary, "by the wall-time limit"));
  free(summary);
  const char *csv[] = {"trajectory.csv", "joints.csv"};
  for (int k = 0; k < 2; k++) {
    snprintf(path, sizeof path, "%s/%s", dir, csv[k]);
    assert_complete_csv(path);
  }
  return t;
}

static void wall_limit_stops_inside_a_stretch(void **state) {
  (void)state;
  char dir[256], dir_b[256], ck[320];
  hg_scene *s = hg_test_scene_temp("wall", "long.yaml", scene_text, dir, sizeof dir);
  double t = stopped_run(s, LIMIT, dir);
  /* the checkpoint resumes: a further millisecond (1e4 steps) from the stop */
  snprintf(ck, sizeof ck, "%s/stop-state.txt", dir);
  assert_int_equal(0, hg_test_temp_dir("wall", dir_b, sizeof dir_b));
  hg_sim_options opt;
  hg_error err;
  hg_sim_default_options(&opt);
  opt.out_dir = dir_b;
  opt.t_end = t + 1e-3;
  hg_sim *sim = hg_sim_new(s, &opt, &err);
  assert_non_null(sim);
  assert_int_equal(hg_sim_resume(sim, ck, &err), HG_SIM_OK);
  assert_true(hg_sim_time(sim) == t); /* the checkpoint's time, exactly */
  assert_int_equal(hg_sim_run(sim, INFINITY), HG_SIM_OK);
  assert_true(hg_sim_time(sim) == t + 1e-3);
  hg_sim_free(sim);
  hg_scene_free(s);
  hg_test_remove_dir(dir);
  hg_test_remove_dir(dir_b);
}

static void scene_max_wall_stops_the_run(void **state) {
  (void)state;
  char dir[256];
  hg_scene *s = hg_test_scene_temp("wall", "limited.yaml", scene_limited, dir, sizeof dir);
  assert_true(s->max_wall == LIMIT);
  stopped_run(s, 0, dir);
  hg_scene_free(s);
  hg_test_remove_dir(dir);
}

/* the interrupt flag a signal handler sets stops the run the same way, naming the signal */
static void interrupt_flag_stops_the_run(void **state) {
  (void)state;
  char dir[256];
  static volatile sig_atomic_t flag = SIGINT;
  hg_scene *s = hg_test_scene_temp("wall", "long.yaml", scene_text, dir, sizeof dir);
  hg_sim_options opt;
  hg_error err;
  hg_sim_default_options(&opt);
  opt.out_dir = dir;
  opt.interrupt = &flag;
  hg_sim *sim = hg_sim_new(s, &opt, &err);
  assert_non_null(sim);
  hg_test_outputs(sim, dir);
  assert_int_equal(hg_sim_run(sim, INFINITY), HG_SIM_STOPPED);
  assert_int_equal(hg_sim_stop_cause(sim), SIGINT);
  assert_non_null(strstr(hg_sim_error(sim), "by signal 2 (SIGINT)"));
  assert_int_equal(hg_sim_finish(sim), HG_SIM_OK);
  hg_sim_free(sim);
  char path[300];
  snprintf(path, sizeof path, "%s/stop-state.txt", dir);
  char *ck = hg_test_read_file(path, NULL);
  assert_non_null(ck);
  free(ck);
  hg_scene_free(s);
  hg_test_remove_dir(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(wall_limit_stops_inside_a_stretch),
      cmocka_unit_test(scene_max_wall_stops_the_run),
      cmocka_unit_test(interrupt_flag_stops_the_run),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
