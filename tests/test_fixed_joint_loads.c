/* test_fixed_joint_loads.c: the wrench a fixed joint transmits, in trajectory.csv
 * (JOINT.load.mx..fz, sim/output/output.c), against Newton-Euler on the mounted body in closed
 * form and against the old way round, a locked free joint in its place.
 *
 * An arm swings on a revolute joint about the world's y axis at a constant 2 rad/s (prescribed),
 * in gravity, carrying a payload on a fixed mount 1.5 m out, turned and with its centre of mass
 * off the mount. The payload's rotation rate w is constant (w' = 0), so the mount's wrench on it
 * (moment about its origin o, force; world axes) is
 *   f = m (a_c - g),   a_c = w x (w x c)                 (c: its centre of mass, on the axis's
 *                                                          point at the world origin)
 *   n = (c - o) x f + w x (I_c w)                          (I_c its central inertia, world axes)
 * and the columns hold (R^T n, R^T f), R the payload's orientation. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "files.h"
#include "sims.h"
#include "spatial.h"

static const char head[] =
    "gravity: [0.3, 0, -9.81]\n"
    "bodies:\n"
    "  - {name: arm, joint: {type: revolute, name: swing, axis: [0, 1, 0]},\n"
    "     inertia: {mass: 3, com: [0.75, 0, 0], inertia: [0.01, 0.6, 0.6]}}\n";
/* the payload on a fixed mount, or on a free joint that the modes lock */
static const char fixed_mount[] =
    "  - {name: payload, parent: arm, joint: {type: fixed, name: mount, pos: [1.5, 0, 0],\n"
    "     rpy: [0.3, -0.5, 0.8]}, inertia: {mass: 5, com: [0.1, 0.2, -0.05],\n"
    "     inertia: [0.3, 0.4, 0.5]}}\n"
    "modes: {swing: {profile: {type: velocity, velocity: [2]}}}\n";
static const char locked_mount[] =
    "  - {name: payload, parent: arm, joint: {type: free, name: mount, pos: [1.5, 0, 0],\n"
    "     rpy: [0.3, -0.5, 0.8]}, inertia: {mass: 5, com: [0.1, 0.2, -0.05],\n"
    "     inertia: [0.3, 0.4, 0.5]}}\n"
    "modes: {swing: {profile: {type: velocity, velocity: [2]}}, mount: locked}\n";
static const char tail[] = "integrator: {rtol: 1e-10}\ntime: {start: 0, end: 2}\noutput: {dt: 0.1}\n";

/* runs head + mount + tail into a fresh folder (dir); its trajectory.csv (malloc'd) */
static char *run(const char *tag, const char *mount, char *dir, size_t len) {
  char text[4096], path[512];
  snprintf(text, sizeof text, "%s%s%s", head, mount, tail);
  hg_scene *s = hg_test_scene_temp(tag, "mount.yaml", text, dir, len);
  hg_test_run(s, NAN, dir);
  hg_scene_free(s);
  snprintf(path, sizeof path, "%s/trajectory.csv", dir);
  char *csv = hg_test_read_file(path, NULL);
  assert_non_null(csv);
  return csv;
}

/* the value of column name in data row `row` (0: the first after the header) of csv */
static double value(const char *csv, const char *name, int row) {
  const char *p = csv;
  int col = 0;
  size_t n = strlen(name);
  for (;;) {
    const char *e = p + strcspn(p, ",\n");
    if ((size_t)(e - p) == n && !strncmp(p, name, n)) break;
    if (*e != ',') fail_msg("no column %s", name);
    p = e + 1, col++;
  }
  p = strchr(csv, '\n') + 1;
  for (int r = 0; r < row; r++) p = strchr(p, '\n') + 1;
  for (int c = 0; c < col; c++) p = strchr(p, ',') + 1;
  if (*p == ',' || *p == '\n') return NAN;
  return strtod(p, NULL);
}

static const char *const wname[6] = {"mount.load.mx", "mount.load.my", "mount.load.mz",
                                     "mount.load.fx", "mount.load.fy", "mount.load.fz"};

/* the closed form of the header comment at row `row`, from the payload's pose and rate there */
static void closed_form(const char *csv, int row, double F[6]) {
  const double m = 5, com[3] = {0.1, 0.2, -0.05}, Ic[3] = {0.3, 0.4, 0.5};
  const double g[3] = {0.3, 0, -9.81};
  double o[3], qt[4], w[3], R[9], c[3], rc[3], ac[3], wc[3], f[3], n[3] = {0, 0, 0};
  static const char *const pn[3] = {"payload.x", "payload.y", "payload.z"};
  static const char *const qn[4] = {"payload.qw", "payload.qx", "payload.qy", "payload.qz"};
  static const char *const wn[3] = {"payload.wx", "payload.wy", "payload.wz"};
  for (int k = 0; k < 3; k++) o[k] = value(csv, pn[k], row), w[k] = value(csv, wn[k], row);
  for (int k = 0; k < 4; k++) qt[k] = value(csv, qn[k], row);
  hg_quat_to_R(qt, R);
  /* c = o + R com; a_c = w x (w x c) */
  hg_m3_mulv(R, com, rc);
  for (int k = 0; k < 3; k++) c[k] = o[k] + rc[k];
  hg_v3_cross(w, c, wc);
  hg_v3_cross(w, wc, ac);
  for (int k = 0; k < 3; k++) f[k] = m * (ac[k] - g[k]);
  /* n = (c - o) x f + w x (I_c w), I_c w in world axes = R diag(Ic) R^T w */
  double wb[3], Iw[3], Iww[3];
  hg_m3_mulTv(R, w, wb);
  for (int k = 0; k < 3; k++) wb[k] *= Ic[k];
  hg_m3_mulv(R, wb, Iw);
  hg_v3_cross(w, Iw, Iww);
  hg_v3_cross_add(rc, f, n);
  for (int k = 0; k < 3; k++) n[k] += Iww[k];
  hg_m3_mulTv(R, n, F);
  hg_m3_mulTv(R, f, F + 3);
}

static void fixed_mount_closed_form(void **state) {
  (void)state;
  char dir[256];
  char *csv = run("fixed_mount", fixed_mount, dir, sizeof dir);
  double worst = 0;
  for (int row = 0; row <= 20; row++) {
    double F[6];
    closed_form(csv, row, F);
    for (int k = 0; k < 6; k++) {
      double x = value(csv, wname[k], row);
      worst = fmax(worst, fabs(x - F[k]));
      if (row == 7) printf("# t = 0.7 s %s: %.12g (closed form %.12g)\n", wname[k], x, F[k]);
    }
  }
  printf("# fixed mount: worst |column - closed form| %.3g over 21 rows\n", worst);
  /* The motion is prescribed (exact), so the wrench is one Newton-Euler solve on exact states: a
   * few ulps of its ~70 N and ~20 N m, times the steps of the recursion; the poses are read back
   * from %.17g text, exact (measured: 4e-14). 1e-9 leaves room for that and catches any wrong
   * term (the smallest, w x I_c w, is ~0.4 N m). */
  assert_true(worst < 1e-9);
  free(csv);
  hg_test_remove_dir(dir);
}

static void fixed_mount_as_locked_free_joint(void **state) {
  (void)state;
  char dir_f[256], dir_l[256];
  char *fx = run("fixed_vs_locked_f", fixed_mount, dir_f, sizeof dir_f);
  char *lk = run("fixed_vs_locked_l", locked_mount, dir_l, sizeof dir_l);
  double worst = 0;
  for (int row = 0; row <= 20; row++)
    for (int k = 0; k < 6; k++)
      worst = fmax(worst, fabs(value(fx, wname[k], row) - value(lk, wname[k], row)));
  printf("# fixed mount against a locked free joint: worst difference %.3g\n", worst);
  /* the same solve on the same prescribed motion, through a different joint: round-off only
   * (measured: 2e-14 of loads of ~70 N) */
  assert_true(worst < 1e-9);
  free(fx);
  free(lk);
  hg_test_remove_dir(dir_f);
  hg_test_remove_dir(dir_l);
}

/* A chaser whose docking port is on a probe fixed to it docks with a target: the capture joins
 * the probe to the target, which re-roots the chaser's tree and turns the mount round (the
 * chaser then hangs from the probe). The mount's columns still give the wrench on the probe, the
 * scene's child, and equal those of a locked free joint in its place (whose loads are mapped back
 * by equal power), before and after the capture. */
static const char dock_head[] =
    "gravity: [0, 0, 0]\n"
    "bodies:\n"
    "  - {name: target, joint: free, inertia: {mass: 5000, com: [0, 0, -0.5],\n"
    "     inertia: [12000, 12000, 4000]},\n"
    "     markers: [{name: target_port, pos: [0, 0, 1.5], port: androgynous}]}\n"
    "  - {name: chaser, joint: free, inertia: {mass: 800, com: [0, 0, 0.2],\n"
    "     inertia: [300, 300, 200]}}\n";
static const char dock_fixed[] =
    "  - {name: probe, parent: chaser, joint: {type: fixed, name: mount, pos: [0, 0, -0.85]},\n"
    "     inertia: {mass: 30, com: [0.05, 0, -0.03], inertia: [1, 2, 3]},\n"
    "     markers: [{name: chaser_port, pos: [0, 0, -0.1], rpy_deg: [180, 0, 0],\n"
    "                port: androgynous}]}\n";
static const char dock_locked[] =
    "  - {name: probe, parent: chaser, joint: {type: free, name: mount, pos: [0, 0, -0.85]},\n"
    "     inertia: {mass: 30, com: [0.05, 0, -0.03], inertia: [1, 2, 3]},\n"
    "     markers: [{name: chaser_port, pos: [0, 0, -0.1], rpy_deg: [180, 0, 0],\n"
    "                port: androgynous}]}\n"
    "modes: {mount: locked}\n";
static const char dock_tail[] =
    "initial:\n"
    "  bodies:\n"
    "    chaser: {pos: [0.008, 0, 3.05], rpy_deg: [1, 0, 0],\n"
    "             twist: [0.001, 0.0006, 0.0004, 0, 0, -0.05]}\n"
    "capture:\n"
    "  - {ports: [target_port, chaser_port], position_tol: 0.03, angle_tol: 0.05, speed_tol: 0.1}\n"
    "integrator: {rtol: 1e-10, max_step: 0.05}\n"
    "time: {start: 0, end: 14}\n"
    "output: {dt: 0.1}\n";

static char *run_dock(const char *tag, const char *probe, char *dir, size_t len) {
  char text[4096], path[512];
  snprintf(text, sizeof text, "%s%s%s", dock_head, probe, dock_tail);
  hg_scene *s = hg_test_scene_temp(tag, "dock.yaml", text, dir, len);
  hg_test_run(s, NAN, dir);
  hg_scene_free(s);
  snprintf(path, sizeof path, "%s/events.csv", dir);
  char *ev = hg_test_read_file(path, NULL);
  assert_non_null(ev);
  assert_non_null(strstr(ev, "dock chaser_port to target_port")); /* (captured at 11.78 s) */
  free(ev);
  snprintf(path, sizeof path, "%s/trajectory.csv", dir);
  char *csv = hg_test_read_file(path, NULL);
  assert_non_null(csv);
  return csv;
}

static void fixed_mount_turned_round(void **state) {
  (void)state;
  char dir_f[256], dir_l[256];
  char *fx = run_dock("rerooted_f", dock_fixed, dir_f, sizeof dir_f);
  char *lk = run_dock("rerooted_l", dock_locked, dir_l, sizeof dir_l);
  double worst = 0, after = 0;
  for (int row = 0; row <= 140; row++)
    for (int k = 0; k < 6; k++) {
      double a = value(fx, wname[k], row), b = value(lk, wname[k], row);
      assert_false(isnan(a));
      worst = fmax(worst, fabs(a - b));
      if (row > 118) after = fmax(after, fabs(a));
    }
  printf("# fixed mount turned round by a dock: worst difference from a locked free joint %.3g "
         "(wrenches up to %.3g after the capture)\n", worst, after);
  /* the same dynamics on both sides (the capture's time is the same to the bit); the wrenches
   * are ~1e-5 N in the slow drift: round-off of those, measured 2e-20 */
  assert_true(worst < 1e-15);
  assert_true(after > 0);
  free(fx);
  free(lk);
  hg_test_remove_dir(dir_f);
  hg_test_remove_dir(dir_l);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(fixed_mount_closed_form),
      cmocka_unit_test(fixed_mount_as_locked_free_joint),
      cmocka_unit_test(fixed_mount_turned_round),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
