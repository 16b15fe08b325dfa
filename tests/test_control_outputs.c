/* test_control_outputs.c: control in the loop in a run's outputs (sim/output/control_out.c) on a
 * bus pointed by an attitude PD on three reaction wheels, with a thruster on a tank, a motor on a
 * boom, a gyro and a star tracker (tests/data/scenes/control_outputs.yaml):
 *   - actuators.csv, sensors.csv and controllers.csv have the columns docs/outputs.md names;
 *   - actuators.csv and controllers.csv have a row per output time, sensors.csv one per instant
 *     at which a sensor sampled (the union of the sensors' sample times; the controller's own
 *     instants add none), and a sensor that did not sample at a row holds its latest sample;
 *   - the same noise_seed gives byte-identical sensors.csv, another seed another one;
 *   - the thruster's firings, impulse and the tank's propellant add up; summary.txt has the
 *     control lines; control.png is drawn;
 *   - an open-loop scene writes none of this.
 *
 * Runs in the tests folder (CTest's working directory). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "files.h"
#include "output.h"
#include "sims.h"

#define SCENE "data/scenes/control_outputs.yaml"

/* ---- a CSV file as numbers ---- */

typedef struct table {
  int ncol, nrow;
  char **name;      /* ncol */
  double *x;        /* nrow x ncol; NaN for an empty field */
} table;

static void table_read(const char *dir, const char *file, table *t) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, file);
  size_t len;
  char *text = hg_test_read_file(path, &len);
  if (!text) fail_msg("no %s", path);
  memset(t, 0, sizeof *t);
  char *line = text, *nl = strchr(line, '\n');
  assert_non_null(nl);
  *nl = 0;
  for (char *p = line; p; p = strchr(p, ',')) t->ncol++, p++;
  t->name = calloc((size_t)t->ncol, sizeof *t->name);
  char *p = line;
  for (int c = 0; c < t->ncol; c++) {
    char *e = strchr(p, ',');
    if (e) *e = 0;
    t->name[c] = strdup(p);
    if (e) p = e + 1;
  }
  for (char *q = nl + 1; *q; q++) t->nrow += *q == '\n';
  t->x = calloc((size_t)t->nrow * (size_t)t->ncol + 1, sizeof(double));
  p = nl + 1;
  for (int r = 0; r < t->nrow; r++) {
    for (int c = 0; c < t->ncol; c++) {
      char *end = p;
      size_t i = (size_t)r * (size_t)t->ncol + (size_t)c;
      if (*p == ',' || *p == '\n') {
        t->x[i] = NAN;
      } else {
        t->x[i] = strtod(p, &end);
        if (end == p) { /* text (trajectory.csv's joint modes) */
          t->x[i] = NAN;
          end = p + strcspn(p, ",\n");
        }
      }
      assert_true(*end == (c + 1 < t->ncol ? ',' : '\n'));
      p = end + 1;
    }
  }
  free(text);
}

static void table_free(table *t) {
  for (int c = 0; c < t->ncol; c++) free(t->name[c]);
  free(t->name);
  free(t->x);
}

/* the column named name (fails the test when there is none) */
static int col(const table *t, const char *name) {
  for (int c = 0; c < t->ncol; c++)
    if (!strcmp(t->name[c], name)) return c;
  fail_msg("no column %s", name);
  return -1;
}

static double at(const table *t, int r, int c) {
  return t->x[(size_t)r * (size_t)t->ncol + (size_t)c];
}

/* the header is exactly names[0..n) */
static void header_is(const table *t, const char *const *names, int n) {
  assert_int_equal(t->ncol, n);
  for (int c = 0; c < n; c++) assert_string_equal(t->name[c], names[c]);
}

/* ---- runs ---- */

/* a run of the scene into a fresh folder with noise seed seed (0: the scene's) */
static void run_scene(const char *path, char *dir, size_t len, int plots, uint64_t seed) {
  hg_scene *s = hg_test_scene(path);
  hg_sim_options opt;
  hg_output_options oo;
  hg_error err;
  assert_int_equal(0, hg_test_temp_dir("control_outputs", dir, len));
  hg_sim_default_options(&opt);
  if (seed) opt.has_seed = 1, opt.noise_seed = seed;
  hg_sim *sim = hg_sim_new(s, &opt, &err);
  if (!sim) fail_msg("%s", err.msg);
  hg_output_default_options(&oo);
  oo.dir = dir;
  oo.plots = plots;
  if (hg_output_attach(sim, &oo, &err)) fail_msg("%s", err.msg);
  assert_int_equal(hg_sim_run(sim, INFINITY), HG_SIM_OK);
  assert_int_equal(hg_sim_finish(sim), HG_SIM_OK);
  hg_sim_free(sim);
  hg_scene_free(s);
}

static char *read_text(const char *dir, const char *file, size_t *len) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, file);
  return hg_test_read_file(path, len);
}

/* summary.txt's number after "\nKEY: " (fails when absent) */
static double summary_number(const char *text, const char *key) {
  char pat[160];
  snprintf(pat, sizeof pat, "\n%s: ", key);
  const char *p = strstr(text, pat);
  if (!p) fail_msg("summary.txt has no %s", key);
  return strtod(p + strlen(pat), NULL);
}

/* ---- the columns and rows ---- */

static void columns_and_rows(void **state) {
  (void)state;
  char dir[256];
  table a, s, c, tr;
  run_scene(SCENE, dir, sizeof dir, 0, 0);
  table_read(dir, "actuators.csv", &a);
  table_read(dir, "sensors.csv", &s);
  table_read(dir, "controllers.csv", &c);
  table_read(dir, "trajectory.csv", &tr);
  static const char *const act[] = {
      "t", "rw_x.command", "rw_x.output", "rw_x.saturated", "rw_x.speed", "rw_x.momentum",
      "rw_x.work", "rw_x.loss", "rw_y.command", "rw_y.output", "rw_y.saturated", "rw_y.speed",
      "rw_y.momentum", "rw_y.work", "rw_y.loss", "rw_z.command", "rw_z.output",
      "rw_z.saturated", "rw_z.speed", "rw_z.momentum", "rw_z.work", "rw_z.loss", "thr.level",
      "thr.on", "thr.firings", "thr.on_time", "thr.impulse", "thr.propellant", "thr.work",
      "boom_motor.command", "boom_motor.output", "boom_motor.saturated", "boom_motor.speed",
      "boom_motor.work", "boom_motor.loss"};
  static const char *const sen[] = {"t", "gyro.x", "gyro.y", "gyro.z", "st.qw", "st.qx",
                                    "st.qy", "st.qz", "st.valid"};
  static const char *const ctl[] = {"t", "adcs.enabled", "adcs.steps", "adcs.pointing_error",
                                    "adcs.rate_x", "adcs.rate_y", "adcs.rate_z", "adcs.torque_x",
                                    "adcs.torque_y", "adcs.torque_z"};
  header_is(&a, act, (int)(sizeof act / sizeof act[0]));
  header_is(&s, sen, (int)(sizeof sen / sizeof sen[0]));
  header_is(&c, ctl, (int)(sizeof ctl / sizeof ctl[0]));
  /* a row per output time: those of trajectory.csv */
  assert_int_equal(tr.nrow, 1201);
  assert_int_equal(a.nrow, tr.nrow);
  assert_int_equal(c.nrow, tr.nrow);
  for (int r = 0; r < tr.nrow; r++) {
    assert_true(at(&a, r, 0) == at(&tr, r, 0));
    assert_true(at(&c, r, 0) == at(&tr, r, 0));
  }
  /* sensors.csv: the union of t0 + k / rate over the gyro (20 Hz) and the star tracker (8 Hz),
   * the controller's instants (16 Hz) adding none: merged as the runtime computes them */
  double rate[2] = {20, 8};
  long k[2] = {0, 0};
  int n = 0;
  for (;;) {
    double t0 = (double)k[0] / rate[0], t1 = (double)k[1] / rate[1], t = fmin(t0, t1);
    if (t > 12) break;
    assert_true(n < s.nrow);
    assert_true(at(&s, n, 0) == t);
    /* a sensor that did not sample now holds its latest sample */
    if (t0 != t) for (int e = 1; e <= 3; e++) assert_true(at(&s, n, e) == at(&s, n - 1, e));
    if (t1 != t) for (int e = 4; e <= 8; e++) assert_true(at(&s, n, e) == at(&s, n - 1, e));
    n++;
    k[0] += t0 == t, k[1] += t1 == t;
  }
  assert_int_equal(s.nrow, n);
  assert_int_equal(n, 241 + 97 - 49);
  /* the star tracker drops out (valid 0) at some samples and not at most; the gyro measures */
  int invalid = 0;
  for (int r = 0; r < s.nrow; r++) {
    double v = at(&s, r, col(&s, "st.valid"));
    assert_true(v == 0 || v == 1);
    invalid += v == 0;
    assert_true(isfinite(at(&s, r, col(&s, "gyro.x"))));
  }
  printf("# sensors.csv: %d rows, star tracker invalid at %d\n", s.nrow, invalid);
  assert_true(invalid > 0 && invalid < s.nrow / 2);
  /* the controller steps at 16 Hz: 193 steps over [0, 12] s, enabled throughout */
  assert_true(at(&c, c.nrow - 1, col(&c, "adcs.steps")) == 193);
  assert_true(at(&c, 0, col(&c, "adcs.enabled")) == 1);
  table_free(&a);
  table_free(&s);
  table_free(&c);
  table_free(&tr);
  hg_test_remove_dir(dir);
}

/* ---- the thruster, the tank, the wheels ---- */

static void thruster_tank_wheels(void **state) {
  (void)state;
  char dir[256];
  table a;
  run_scene(SCENE, dir, sizeof dir, 0, 0);
  table_read(dir, "actuators.csv", &a);
  int lv = col(&a, "thr.level"), fi = col(&a, "thr.firings"), im = col(&a, "thr.impulse");
  int ot = col(&a, "thr.on_time"), pr = col(&a, "thr.propellant");
  int last = a.nrow - 1;
  /* two pulses: 0.3 s from 0.5 s and 0.05 s from 2.05 s at 2 N, no ramps */
  for (int r = 0; r < a.nrow; r++) {
    double t = at(&a, r, 0), l = at(&a, r, lv);
    int firing = (t >= 0.5 && t < 0.8 - 1e-9) || (t >= 2.05 && t < 2.1 - 1e-9);
    int clear = t < 0.5 - 1e-9 || (t > 0.8 + 1e-9 && t < 2.05 - 1e-9) || t > 2.1 + 1e-9;
    if (firing) assert_true(l > 0);
    if (clear) assert_true(l == 0);
  }
  assert_true(at(&a, last, fi) == 2);
  assert_true(fabs(at(&a, last, ot) - 0.35) < 1e-9);
  assert_true(fabs(at(&a, last, im) - 0.7) < 1e-9);
  /* the propellant that left: impulse / (isp g0) */
  double used = at(&a, 0, pr) - at(&a, last, pr);
  assert_true(at(&a, 0, pr) == 2);
  assert_true(fabs(used - 0.7 / (200 * 9.80665)) < 1e-6 * used);
  /* the wheels turn, saturate at first, and their momentum is J (w . a + Omega) */
  int sat = 0;
  for (int r = 0; r < a.nrow; r++) sat += at(&a, r, col(&a, "rw_x.saturated")) == 1;
  assert_true(sat > 0);
  assert_true(fabs(at(&a, last, col(&a, "rw_x.speed"))) > 0);
  for (int r = 0; r < a.nrow; r++)
    assert_true(fabs(at(&a, r, col(&a, "rw_x.output"))) <= 0.1 * (1 + 1e-12));
  /* the motor drives its command up to its effort (0.02 N m): saturated while commanded 0.05 */
  int m_sat = col(&a, "boom_motor.saturated");
  for (int r = 0; r < a.nrow; r++) {
    double t = at(&a, r, 0);
    if (t > 0.25 && t < 1.15) assert_true(at(&a, r, m_sat) == 1);
    if (t > 1.25) assert_true(at(&a, r, m_sat) == 0);
  }
  table_free(&a);
  hg_test_remove_dir(dir);
}

/* ---- noise seeds ---- */

static void same_seed_same_sensors(void **state) {
  (void)state;
  char d1[256], d2[256], d3[256];
  run_scene(SCENE, d1, sizeof d1, 0, 0);
  run_scene(SCENE, d2, sizeof d2, 0, 7); /* the scene's own seed, given */
  run_scene(SCENE, d3, sizeof d3, 0, 8);
  size_t n1, n2, n3;
  char *s1 = read_text(d1, "sensors.csv", &n1), *s2 = read_text(d2, "sensors.csv", &n2);
  char *s3 = read_text(d3, "sensors.csv", &n3);
  assert_non_null(s1);
  assert_non_null(s2);
  assert_non_null(s3);
  assert_int_equal(n1, n2);
  assert_memory_equal(s1, s2, n1);
  assert_true(n1 != n3 || memcmp(s1, s3, n1) != 0);
  /* only the noise differs: the same rows and header */
  const char *h = strchr(s1, '\n');
  assert_memory_equal(s1, s3, (size_t)(h - s1));
  long r1 = 0, r3 = 0;
  for (size_t i = 0; i < n1; i++) r1 += s1[i] == '\n';
  for (size_t i = 0; i < n3; i++) r3 += s3[i] == '\n';
  assert_int_equal(r1, r3);
  free(s1);
  free(s2);
  free(s3);
  hg_test_remove_dir(d1);
  hg_test_remove_dir(d2);
  hg_test_remove_dir(d3);
}

/* ---- summary.txt and control.png ---- */

static void summary_and_plot(void **state) {
  (void)state;
  char dir[256];
  run_scene(SCENE, dir, sizeof dir, 1, 0);
  size_t len;
  char *text = read_text(dir, "summary.txt", &len);
  assert_non_null(text);
  assert_non_null(strstr(text, "\ncontrol: 5 actuators, 1 tank, 2 sensors, 1 controller\n"));
  double settled = summary_number(text, "adcs.pointing_error_max_after_settling_deg");
  double final = summary_number(text, "adcs.pointing_error_final_deg");
  printf("# summary: pointing error after settling %.4g deg, final %.4g deg\n", settled, final);
  assert_true(settled >= final && final >= 0 && settled < 2 && final < 0.2);
  assert_true(summary_number(text, "adcs.steps") == 193);
  assert_true(summary_number(text, "adcs.step_wall_mean_us") > 0);
  assert_true(summary_number(text, "adcs.step_wall_max_us") >=
              summary_number(text, "adcs.step_wall_mean_us"));
  assert_true(summary_number(text, "thr.firings") == 2);
  assert_true(fabs(summary_number(text, "thr.impulse_Ns") - 0.7) < 1e-6);
  assert_true(fabs(summary_number(text, "thr.on_time_s") - 0.35) < 1e-6);
  double used = summary_number(text, "tank.propellant_used_kg");
  assert_true(fabs(used - 0.7 / (200 * 9.80665)) < 1e-6 * used);
  assert_true(summary_number(text, "rw_x.saturated_time_s") > 0);
  assert_true(summary_number(text, "boom_motor.saturated_time_s") > 0.9);
  assert_true(summary_number(text, "boom_motor.friction_loss_J") <= 0);
  assert_non_null(strstr(text, "\nrw_x.work_J: "));
  assert_non_null(strstr(text, "\nrw_x.friction_loss_J: "));
  assert_non_null(strstr(text, "\nthr.work_J: "));
  assert_true(summary_number(text, "sensor_instants") == 289);
  free(text);
  struct stat st;
  char path[512];
  snprintf(path, sizeof path, "%s/control.png", dir);
  assert_int_equal(stat(path, &st), 0);
  assert_true(st.st_size > 1000);
  if (getenv("HINGE_KEEP_PLOTS")) printf("# kept %s\n", dir);
  else hg_test_remove_dir(dir);
}

/* ---- an open-loop scene ---- */

static void open_loop_writes_none(void **state) {
  (void)state;
  char dir[256], path[512];
  static const char *const files[] = {"actuators.csv", "sensors.csv", "controllers.csv",
                                      "control.png"};
  run_scene("data/scenes/falling_box.yaml", dir, sizeof dir, 1, 0);
  struct stat st;
  snprintf(path, sizeof path, "%s/trajectory.csv", dir);
  assert_int_equal(stat(path, &st), 0);
  for (int k = 0; k < 4; k++) {
    snprintf(path, sizeof path, "%s/%s", dir, files[k]);
    assert_int_not_equal(stat(path, &st), 0);
  }
  size_t len;
  char *text = read_text(dir, "summary.txt", &len);
  assert_non_null(text);
  assert_null(strstr(text, "\ncontrol: "));
  assert_null(strstr(text, "sensor_instants"));
  free(text);
  hg_test_remove_dir(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(columns_and_rows),
      cmocka_unit_test(thruster_tank_wheels),
      cmocka_unit_test(same_seed_same_sensors),
      cmocka_unit_test(summary_and_plot),
      cmocka_unit_test(open_loop_writes_none),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
