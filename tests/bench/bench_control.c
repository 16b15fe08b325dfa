/* bench_control.c: the cost of control in the loop on a 50-DoF spacecraft.
 *
 * The spacecraft: a free-floating bus (6 DoF) with four reaction wheels (4), two solar-array wings
 * of ten hinged panels each on joint springs (20), a 7-DoF arm (7) and a 13-link antenna boom on
 * joint springs (13): 50 DoF. It carries twelve thrusters on a draining tank, an IMU (gyro and
 * accelerometer at 100 Hz), a star tracker (100 Hz), and an attitude controller at 10 Hz that
 * drives the wheels to slew the bus by 2 degrees about z, while the arm's joints swing free and
 * the wings and boom flex (the bus carries a flexible, articulated load). The same spacecraft runs
 * open-loop (the same actuators, no sensors and no controllers: the wheels idle) and closed-loop.
 * Printed: wall-clock seconds per simulated second of each, and their ratio (control's overhead:
 * the target is at most 1.3). One run of each, under CVODE Adams at rtol 1e-8 and under RKMK4 at
 * a fixed 5 ms step; 20 simulated seconds.
 *
 * usage: bench_control [SECONDS [open|closed [adams|rkmk4]]]: one variant alone (for callgrind's
 * instruction counts) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* appends printf-style text to buf */
static void put(char *buf, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
#include <stdarg.h>
static void put(char *buf, size_t cap, const char *fmt, ...) {
  size_t n = strlen(buf);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf + n, cap - n, fmt, ap);
  va_end(ap);
}

/* the scene; closed: with sensors and controllers */
static void scene_text(char *b, size_t cap, int closed, double t_end, const char *integ) {
  b[0] = 0;
  put(b, cap, "gravity: [0, 0, 0]\nbodies:\n"
              "  - {name: bus, joint: free, inertia: {mass: 1500, inertia: [1200, 1400, 1000]},"
              " markers: [{name: imu, pos: [0.2, 0.1, 0.3]}]}\n");
  /* two wings of ten panels, hinged about y, each on a joint spring */
  for (int w = 0; w < 2; w++)
    for (int k = 0; k < 10; k++) {
      double y = w ? -1 : 1;
      if (k == 0)
        put(b, cap, "  - {name: w%d_%d, parent: bus, joint: {type: revolute, name: wj%d_%d,"
                    " axis: [1, 0, 0], pos: [0, %g, 0]},", w, k, w, k, 1.0 * y);
      else
        put(b, cap, "  - {name: w%d_%d, parent: w%d_%d, joint: {type: revolute, name: wj%d_%d,"
                    " axis: [1, 0, 0], pos: [0, %g, 0]},", w, k, w, k - 1, w, k, 1.0 * y);
      put(b, cap, " inertia: {mass: 5, com: [0, %g, 0], inertia: [0.5, 0.1, 0.5]}}\n", 0.5 * y);
    }
  /* a 7-DoF arm */
  const char *axes[7] = {"[0, 0, 1]", "[0, 1, 0]", "[0, 1, 0]", "[1, 0, 0]", "[0, 1, 0]",
                         "[1, 0, 0]", "[0, 0, 1]"};
  char parent[16];
  for (int k = 0; k < 7; k++) {
    snprintf(parent, sizeof parent, k ? "a%d" : "bus", k - 1);
    put(b, cap, "  - {name: a%d, parent: %s, joint: {type: revolute, name: aj%d, axis: %s,"
                " pos: [%g, 0, %g]}, inertia: {mass: 6, com: [0.3, 0, 0],"
                " inertia: [0.02, 0.2, 0.2]}}\n",
        k, parent, k, axes[k], k ? 0.6 : 0.9, k ? 0.0 : 0.9);
  }
  /* a 13-link boom */
  for (int k = 0; k < 13; k++) {
    snprintf(parent, sizeof parent, k ? "b%d" : "bus", k - 1);
    put(b, cap, "  - {name: b%d, parent: %s, joint: {type: revolute, name: bj%d,"
                " axis: [%d, %d, 0], pos: [0, 0, %g]}, inertia: {mass: 1, com: [0, 0, -0.15],"
                " inertia: [0.01, 0.01, 0.001]}}\n",
        k, parent, k, k % 2, 1 - k % 2, k ? -0.3 : -0.9);
  }
  put(b, cap, "forces:\n");
  for (int w = 0; w < 2; w++)
    for (int k = 0; k < 10; k++)
      put(b, cap, "  - {name: s%d_%d, type: joint_spring, joint: wj%d_%d, stiffness: 40,"
                  " damping: 0.2}\n", w, k, w, k);
  for (int k = 0; k < 13; k++)
    put(b, cap, "  - {name: sb%d, type: joint_spring, joint: bj%d, stiffness: 20, damping: 0.1}\n",
        k, k);
  put(b, cap, "tanks:\n  - {name: tank, body: bus, propellant: 30, position: [0, 0, 0],"
              " radius: 0.3}\nactuators:\n");
  const double ax[4][3] = {{1, 1, 1}, {-1, -1, 1}, {-1, 1, -1}, {1, -1, -1}};
  for (int k = 0; k < 4; k++)
    put(b, cap, "  - {name: rw%d, type: reaction_wheel, body: bus, axis: [%g, %g, %g],"
                " inertia: 0.1, mass: 4, max_torque: 0.3, max_speed: 600}\n",
        k, ax[k][0] * 0.5773502691896258, ax[k][1] * 0.5773502691896258,
        ax[k][2] * 0.5773502691896258);
  for (int k = 0; k < 12; k++) {
    int a = k / 4, s = k % 2 ? -1 : 1, end = (k / 2) % 2 ? -1 : 1;
    double p[3] = {0, 0, 0}, d[3] = {0, 0, 0};
    p[a] = end;           /* at the ends of each axis ... */
    d[(a + 1) % 3] = s;   /* ... pushing across it */
    put(b, cap, "  - {name: t%d, type: thruster, body: bus, position: [%g, %g, %g],"
                " direction: [%g, %g, %g], thrust: 5, min_on: 0.02, rise: 0.005, fall: 0.005,"
                " isp: 220, tank: tank}\n", k, p[0], p[1], p[2], d[0], d[1], d[2]);
  }
  if (closed) {
    put(b, cap, "sensors:\n"
                "  - {name: gyro, type: gyro, marker: imu, rate: 100, density: 3e-6,"
                " bias_instability: 3e-8, correlation_time: 100}\n"
                "  - {name: acc, type: accelerometer, marker: imu, rate: 100, density: 1e-4}\n"
                "  - {name: st, type: star_tracker, body: bus, rate: 100, noise: [2e-5, 2e-5, 1e-4]}\n"
                "controllers:\n"
                "  - {name: adcs, type: attitude_pd, rate: 10, inputs: [st, gyro],"
                " outputs: [rw0, rw1, rw2, rw3], params: {kp: 12, kd: 170,"
                " target: [0.9998476951563913, 0, 0, 0.01745240643728351], max_torque: 0.5}}\n");
  }
  /* both start tumbling with their wings and boom deflected: the same motion to integrate */
  put(b, cap, "initial:\n  bodies:\n    bus: {pos: [0, 0, 0], twist: [0.01, -0.02, 0.015, 0, 0, 0]}\n"
              "  joints:\n    aj1: {q: [0.3]}\n    aj3: {q: [-0.5]}\n    wj0_0: {q: [0.1]}\n"
              "    wj1_0: {q: [-0.08]}\n    bj0: {q: [0.05]}\n"
              "integrator: %s\ntime: {start: 0, end: %g}\n"
              "output: {dt: 0.1, plots: false}\n", integ, t_end);
}

/* wall-clock seconds per simulated second of one run */
static double run(int closed, double t_end, const char *dir, const char *integ) {
  static char text[65536];
  char path[600];
  scene_text(text, sizeof text, closed, t_end, integ);
  snprintf(path, sizeof path, "%s/%s.yaml", dir, closed ? "closed" : "open");
  FILE *f = fopen(path, "w");
  if (!f || fputs(text, f) < 0 || fclose(f)) return fprintf(stderr, "cannot write %s\n", path), -1;
  hg_error err;
  hg_scene *s = hg_scene_load(path, &err);
  if (!s) return fprintf(stderr, "%s\n", err.msg), -1;
  hg_sim *sim = hg_sim_new(s, NULL, &err);
  if (!sim) return fprintf(stderr, "%s\n", err.msg), -1;
  double t0 = now();
  int rc = hg_sim_run(sim, t_end);
  double wall = now() - t0;
  hg_integ_stats st;
  hg_sim_stats(sim, &st);
  printf("  %-11s %3d DoF: %.4f s wall per simulated second (%ld steps, %ld accelerations, %ld restarts)\n",
         closed ? "closed-loop" : "open-loop", hg_sim_model(sim)->nv, wall / t_end, st.steps,
         st.rhs_evals, st.resets);
  if (rc) fprintf(stderr, "%s\n", hg_sim_error(sim));
  hg_sim_free(sim);
  hg_scene_free(s);
  return rc ? -1 : wall / t_end;
}

int main(int argc, char **argv) {
  double t_end = argc > 1 ? atof(argv[1]) : 20;
  const char *only = argc > 2 ? argv[2] : NULL, *integ_only = argc > 3 ? argv[3] : NULL;
  if (!(t_end > 0) || (only && strcmp(only, "open") && strcmp(only, "closed")) ||
      (integ_only && strcmp(integ_only, "adams") && strcmp(integ_only, "rkmk4")))
    return fprintf(stderr, "usage: bench_control [SECONDS [open|closed [adams|rkmk4]]]\n"), 2;
  char dir[] = "/tmp/hinge_bench_control_XXXXXX";
  if (!mkdtemp(dir)) return perror("mkdtemp"), 1;
  printf("bench_control: 50-DoF spacecraft, 4 wheels, 12 thrusters, IMU and star tracker at "
         "100 Hz, attitude control at 10 Hz; %g simulated seconds\n", t_end);
  /* CVODE Adams (variable order and step: every command change restarts it at order 1) and
   * RKMK4 at a fixed 5 ms step (a restart costs nothing: the flight-software simulators' way) */
  static const char *const integ[2][2] = {
      {"CVODE Adams, rtol 1e-8", "{method: cvode-adams, rtol: 1e-8}"},
      {"RKMK4, 5 ms step", "{method: rkmk4, step: 0.005}"}};
  int rc = 0;
  for (int k = 0; k < 2; k++) {
    if (integ_only && (k == 0) != (strcmp(integ_only, "adams") == 0)) continue;
    printf(" %s:\n", integ[k][0]);
    if (only) {
      if (run(strcmp(only, "closed") == 0, t_end, dir, integ[k][1]) <= 0) rc = 1;
      continue;
    }
    double open = run(0, t_end, dir, integ[k][1]), closed = run(1, t_end, dir, integ[k][1]);
    if (open <= 0 || closed <= 0) {
      rc = 1;
      continue;
    }
    printf("  overhead of control in the loop: %.3fx (target <= 1.3x)\n", closed / open);
  }
  char cmd[700];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd)) fprintf(stderr, "could not remove %s\n", dir);
  return rc;
}
