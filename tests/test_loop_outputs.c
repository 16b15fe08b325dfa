/* test_loop_outputs.c: the closed loops in a run's outputs (sim/output/loop_out.c) on a planar
 * four-bar closed by a revolute loop and two wheels turned together by a gear coupling
 * (tests/data/scenes/fourbar_loop.yaml; the loop opens at 0.5 s, the coupling at 0.75 s):
 *   - trajectory.csv has each scene loop's block, named as docs/outputs.md says, after the joints;
 *   - while closed the wrench is finite and non-zero, planar (no moment, no force out of the
 *     plane: the columns hold what their names say), the position violation <= 1e-10; once open
 *     the closed flag is 0 and the wrench exactly 0;
 *   - the wrench is the force that acts: at rest at t = 0 the rocker's and the follower wheel's
 *     angular accelerations (a finite difference of a run to 1e-4 s) match gravity plus the loop
 *     force of trajectory.csv's first row (1e-3 relative), which checks the sign, the side it
 *     acts on and the frame (A's axes) of the columns;
 *   - summary.txt has the closed_loops lines; loads.png is drawn with the loops alone.
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

#define SCENE "data/scenes/fourbar_loop.yaml"

/* ---- trajectory.csv as numbers ---- */

typedef struct table {
  int ncol, nrow;
  char **name;      /* ncol */
  double *x;        /* nrow x ncol; NaN for an empty or text field */
  unsigned char *empty; /* nrow x ncol */
} table;

static void table_read(const char *dir, table *t) {
  char path[512];
  snprintf(path, sizeof path, "%s/trajectory.csv", dir);
  size_t len;
  char *text = hg_test_read_file(path, &len);
  assert_non_null(text);
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
  t->x = calloc((size_t)t->nrow * (size_t)t->ncol, sizeof(double));
  t->empty = calloc((size_t)t->nrow * (size_t)t->ncol, 1);
  p = nl + 1;
  for (int r = 0; r < t->nrow; r++) {
    for (int c = 0; c < t->ncol; c++) {
      char *end;
      size_t i = (size_t)r * (size_t)t->ncol + (size_t)c;
      if (*p == ',' || *p == '\n') {
        t->x[i] = NAN, t->empty[i] = 1, end = p;
      } else {
        t->x[i] = strtod(p, &end);
        if (end == p) { /* text (a joint's mode) */
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
  free(t->empty);
}

/* the column named name (fails the test when there is none) */
static int col(const table *t, const char *name) {
  for (int c = 0; c < t->ncol; c++)
    if (!strcmp(t->name[c], name)) return c;
  fail_msg("no column %s in trajectory.csv", name);
  return -1;
}

static double at(const table *t, int r, int c) { return t->x[(size_t)r * (size_t)t->ncol + (size_t)c]; }

/* a run of the scene into a fresh folder (plots: loads.png too) */
static void run_scene(char *dir, size_t len, int plots) {
  hg_scene *s = hg_test_scene(SCENE);
  hg_sim_options opt;
  hg_output_options oo;
  hg_error err;
  assert_int_equal(0, hg_test_temp_dir("loop_outputs", dir, len));
  hg_sim_default_options(&opt);
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

/* ---- the columns ---- */

static void columns_are_the_loops_blocks(void **state) {
  (void)state;
  char dir[256];
  table t;
  run_scene(dir, sizeof dir, 0);
  table_read(dir, &t);
  static const char *const pin[] = {
      "pin_c.closed",  "pin_c.force.mx", "pin_c.force.my", "pin_c.force.mz",
      "pin_c.force.fx", "pin_c.force.fy", "pin_c.force.fz", "pin_c.violation.distance",
      "pin_c.violation.angle", "pin_c.violation.speed"};
  static const char *const gears[] = {"gears.closed", "gears.force", "gears.violation.position",
                                      "gears.violation.speed"};
  /* in this order, right after the last joint's block and before the energies */
  int c0 = col(&t, "wheel_b_j.load.torque") + 1;
  for (int k = 0; k < 10; k++) assert_string_equal(t.name[c0 + k], pin[k]);
  for (int k = 0; k < 4; k++) assert_string_equal(t.name[c0 + 10 + k], gears[k]);
  assert_string_equal(t.name[c0 + 14], "kinetic");
  assert_int_equal(t.nrow, 21);
  table_free(&t);
  hg_test_remove_dir(dir);
}

/* ---- closed, then open ---- */

static void forces_while_closed_zero_once_open(void **state) {
  (void)state;
  char dir[256], name[64];
  table t;
  run_scene(dir, sizeof dir, 0);
  table_read(dir, &t);
  int ct = col(&t, "time"), cl = col(&t, "pin_c.closed"), cg = col(&t, "gears.closed");
  int cf = col(&t, "pin_c.force.mx"), cgf = col(&t, "gears.force");
  int cd = col(&t, "pin_c.violation.distance"), ca = col(&t, "pin_c.violation.angle");
  int cgp = col(&t, "gears.violation.position");
  int nclosed = 0, nopen = 0;
  double worst = 0;
  for (int r = 0; r < t.nrow; r++) {
    double time = at(&t, r, ct);
    for (int c = cf; c < cd + 3; c++) {
      snprintf(name, sizeof name, "%s", t.name[c]);
      if (!isfinite(at(&t, r, c))) fail_msg("%s not finite at t = %g", name, time);
    }
    double m = hypot(hypot(at(&t, r, cf), at(&t, r, cf + 1)), at(&t, r, cf + 2));
    double fxy = hypot(at(&t, r, cf + 3), at(&t, r, cf + 4)), fz = fabs(at(&t, r, cf + 5));
    if (time < 0.5 - 1e-9) {
      /* closed: a planar mechanism under gravity in its plane pushes in the plane, no moment */
      nclosed++;
      assert_true(at(&t, r, cl) == 1);
      assert_true(fxy > 0.1);
      assert_true(m <= 1e-8 * fxy);
      assert_true(fz <= 1e-8 * fxy);
      worst = fmax(worst, fmax(at(&t, r, cd), at(&t, r, ca)));
    } else {
      /* open: nothing transmitted, the gap the loop would close is still reported */
      nopen++;
      assert_true(at(&t, r, cl) == 0);
      for (int c = cf; c < cf + 6; c++) assert_true(at(&t, r, c) == 0);
      assert_true(at(&t, r, cd) >= 0);
    }
    if (time < 0.75 - 1e-9) {
      assert_true(at(&t, r, cg) == 1);
      assert_true(fabs(at(&t, r, cgf)) > 1e-3);
      worst = fmax(worst, at(&t, r, cgp));
    } else {
      assert_true(at(&t, r, cg) == 0);
      assert_true(at(&t, r, cgf) == 0);
    }
  }
  printf("# %d rows closed, %d open; largest position violation while closed %.3g\n", nclosed,
         nopen, worst);
  assert_int_equal(nclosed, 10);
  assert_int_equal(nopen, 11);
  assert_true(worst <= 1e-10);
  /* once open the coupler and rocker fall apart: the gap grows */
  assert_true(at(&t, t.nrow - 1, cd) > 1e-3);
  table_free(&t);
  hg_test_remove_dir(dir);
}

/* ---- the force that acts ---- */

/* the angular rates of joints named a and b after a run of the scene from rest to t */
static void rates_at(double t, const char *a, const char *b, double *va, double *vb) {
  hg_scene *s = hg_test_scene(SCENE);
  hg_sim *sim = hg_test_sim(s, NAN, NULL);
  assert_int_equal(hg_sim_run(sim, t), HG_SIM_OK);
  assert_true(fabs(hg_sim_time(sim) - t) < 1e-15);
  const hg_model *m = hg_sim_model(sim);
  *va = hg_sim_v(sim)[m->v_adr[hg_model_joint(m, a)]];
  *vb = hg_sim_v(sim)[m->v_adr[hg_model_joint(m, b)]];
  hg_sim_free(sim);
  hg_scene_free(s);
}

static void wrench_is_the_force_that_acts(void **state) {
  (void)state;
  char dir[256];
  table t;
  run_scene(dir, sizeof dir, 0);
  table_read(dir, &t);
  const double g = 9.81, h = 1e-4;
  double w3, wb;
  rates_at(h, "rocker_j", "wheel_b_j", &w3, &wb);
  double alpha3 = w3 / h, alpha_b = wb / h; /* from rest */
  /* the rocker (B's side of pin_c) about its pivot D = (2.5, 0): I_D alpha = gravity's moment
   * + (C - D) x F, F the force on B (world) = R_z(coupler's world angle) (fx, fy) in A's axes */
  double th1 = at(&t, 0, col(&t, "crank_j.q.angle")), th2 = at(&t, 0, col(&t, "coupler_j.q.angle"));
  double th3 = at(&t, 0, col(&t, "rocker_j.q.angle"));
  double fx = at(&t, 0, col(&t, "pin_c.force.fx")), fy = at(&t, 0, col(&t, "pin_c.force.fy"));
  double phi = th1 + th2, Fx = cos(phi) * fx - sin(phi) * fy, Fy = sin(phi) * fx + cos(phi) * fy;
  double cx = 2 * cos(th3), cy = 2 * sin(th3); /* C - D */
  double predicted = (-1.0 * g * cos(th3) + cx * Fy - cy * Fx) / (0.3 + 1.0);
  printf("# rocker: alpha %.9g rad/s^2 (finite difference), %.9g from the loop force\n", alpha3,
         predicted);
  assert_true(fabs(alpha3 - predicted) <= 1e-3 * fabs(predicted));
  /* the follower wheel: I alpha = -m g 0.3 + the coupling's torque on it */
  double tau = at(&t, 0, col(&t, "gears.force"));
  double predicted_b = (-1.0 * g * 0.3 + tau) / (0.02 + 1.0 * 0.3 * 0.3);
  printf("# follower wheel: alpha %.9g rad/s^2, %.9g from the coupling torque %.9g N m\n",
         alpha_b, predicted_b, tau);
  assert_true(fabs(alpha_b - predicted_b) <= 1e-3 * fabs(predicted_b));
  table_free(&t);
  hg_test_remove_dir(dir);
}

/* ---- summary.txt and loads.png ---- */

static void summary_and_plot(void **state) {
  (void)state;
  char dir[256], path[512];
  run_scene(dir, sizeof dir, 1);
  snprintf(path, sizeof path, "%s/summary.txt", dir);
  size_t len;
  char *text = hg_test_read_file(path, &len);
  assert_non_null(text);
  assert_non_null(strstr(text, "\nclosed_loops: 2 (2 of the scene, 0 made by attach)\n"));
  assert_non_null(strstr(text, "\n  pin_c (revolute, 5 rows): open at the end; closed in 10 of "
                               "21 output rows; max violation "));
  assert_non_null(strstr(text, "\n  gears (coupling, 1 row): open at the end; closed in 15 of "
                               "21 output rows; max violation "));
  /* the tree turns in its plane: the loop's out-of-plane rows (fz, mx, my) are redundant */
  assert_non_null(strstr(text, "\nloop_redundant_rows: 3 "));
  const char *v = strstr(text, "\nloop_violation_max: position ");
  assert_non_null(v);
  double pos = strtod(v + strlen("\nloop_violation_max: position "), NULL);
  printf("# summary: loop_violation_max position %.3g\n", pos);
  assert_true(pos >= 0 && pos <= 1e-10);
  free(text);
  /* no joint is held: loads.png is the loops' panel alone */
  struct stat st;
  snprintf(path, sizeof path, "%s/loads.png", dir);
  assert_int_equal(stat(path, &st), 0);
  assert_true(st.st_size > 1000);
  if (getenv("HINGE_KEEP_PLOTS")) printf("# kept %s\n", dir);
  else hg_test_remove_dir(dir);
}

/* a scene without loops writes none of this */
static void no_loops_no_columns(void **state) {
  (void)state;
  char dir[256], path[512];
  hg_scene *s = hg_test_scene("data/scenes/hanging_pendulum.yaml");
  assert_int_equal(0, hg_test_temp_dir("loop_outputs", dir, sizeof dir));
  hg_test_run(s, 0.1, dir);
  hg_scene_free(s);
  table t;
  table_read(dir, &t);
  for (int c = 0; c < t.ncol; c++) assert_null(strstr(t.name[c], ".closed"));
  table_free(&t);
  snprintf(path, sizeof path, "%s/summary.txt", dir);
  size_t len;
  char *text = hg_test_read_file(path, &len);
  assert_non_null(text);
  assert_null(strstr(text, "closed_loops"));
  free(text);
  hg_test_remove_dir(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(columns_are_the_loops_blocks),
      cmocka_unit_test(forces_while_closed_zero_once_open),
      cmocka_unit_test(wrench_is_the_force_that_acts),
      cmocka_unit_test(summary_and_plot),
      cmocka_unit_test(no_loops_no_columns),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
