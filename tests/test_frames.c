/* test_frames.c: one initial motion of a free body given in world axes and in the body's own
 * (sim/scene/scene_state.c, 'frame'): an asymmetric box tumbling in zero gravity, its world
 * pose turned 0.7 rad about (1, 2, 3), given
 *   (a) initial.bodies with a world-axes twist (the default),
 *   (b) initial.bodies with frame: body and the same twist in body axes (R^T w, R^T v),
 *   (c) initial.joints with the free joint's v in the body frame (the default),
 *   (d) initial.joints with frame: world and the world-axes twist,
 * runs the same trajectory: final q and v agree to round-off. An impulse at t = 0.5 s given in
 * world axes and in the body's axes of that instant (sim/runtime/events.c) makes the same jump.
 * Also: a 'frame' on a joint that is not a free joint on the world is refused at its key. */
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

#define HEAD                                                                                      \
  "gravity: [0, 0, 0]\n"                                                                          \
  "bodies:\n"                                                                                     \
  "  - name: box\n"                                                                               \
  "    joint: {type: free, name: float}\n"                                                        \
  "    inertia: {mass: 4, com: [0.1, 0, 0], inertia: [1, 2, 3]}\n"                                \
  "integrator: {method: cvode-adams, rtol: 1e-10}\n"                                              \
  "time: {start: 0, end: 2}\n"

/* the world twist and the pose: quaternion of 0.7 rad about (1, 2, 3)/|.| */
static const double W[6] = {0.3, -1.2, 2.0, 0.5, 0.25, -0.4};

static void pose(double quat[4], double R[9]) {
  double n = sqrt(14.0), h = 0.35;
  quat[0] = cos(h), quat[1] = sin(h) / n, quat[2] = 2 * sin(h) / n, quat[3] = 3 * sin(h) / n;
  hg_quat_to_R(quat, R);
}

/* final q and v (7 + 6) of the scene text's run */
static void final_state(const char *text, const char *tag, double *x) {
  char dir[256];
  hg_scene *s = hg_test_scene_temp("frames", tag, text, dir, sizeof dir);
  hg_sim *sim = hg_test_sim(s, NAN, NULL);
  assert_int_equal(hg_sim_run(sim, INFINITY), HG_SIM_OK);
  memcpy(x, hg_sim_q(sim), 7 * sizeof(double));
  memcpy(x + 7, hg_sim_v(sim), 6 * sizeof(double));
  hg_sim_free(sim);
  hg_scene_free(s);
  hg_test_remove_dir(dir);
}

static void same_motion_in_world_and_body_frames(void **state) {
  (void)state;
  double q4[4], R[9], B[6], x[4][13];
  pose(q4, R);
  hg_m3_mulTv(R, W, B);
  hg_m3_mulTv(R, W + 3, B + 3);
  char text[4][2048], quat[128], tw[160], tb[160], p[] = "[1, -2, 0.5]";
  snprintf(quat, sizeof quat, "[%.17g, %.17g, %.17g, %.17g]", q4[0], q4[1], q4[2], q4[3]);
  snprintf(tw, sizeof tw, "[%.17g, %.17g, %.17g, %.17g, %.17g, %.17g]", W[0], W[1], W[2], W[3],
           W[4], W[5]);
  snprintf(tb, sizeof tb, "[%.17g, %.17g, %.17g, %.17g, %.17g, %.17g]", B[0], B[1], B[2], B[3],
           B[4], B[5]);
  snprintf(text[0], sizeof text[0], HEAD "initial:\n  bodies: {box: {pos: %s, quat: %s, twist: %s}}\n",
           p, quat, tw);
  snprintf(text[1], sizeof text[1],
           HEAD "initial:\n  bodies: {box: {pos: %s, quat: %s, twist: %s, frame: body}}\n", p, quat, tb);
  snprintf(text[2], sizeof text[2],
           HEAD "initial:\n  joints: {float: {q: [1, -2, 0.5, %.17g, %.17g, %.17g, %.17g], v: %s}}\n",
           q4[0], q4[1], q4[2], q4[3], tb);
  snprintf(text[3], sizeof text[3],
           HEAD "initial:\n  joints: {float: {q: [1, -2, 0.5, %.17g, %.17g, %.17g, %.17g], v: %s, "
                "frame: world}}\n",
           q4[0], q4[1], q4[2], q4[3], tw);
  for (int k = 0; k < 4; k++) final_state(text[k], "box.yaml", x[k]);
  /* the four initial states differ by the rounding of one rotation of the twist (~1e-16 of
   * |V|); over 2 s of a tumbling motion at rtol 1e-10 the integrator carries that to ~1e-14,
   * and its step choices may differ at a few ulps: 1e-11 absolute on q (~1 m, unit quaternions)
   * and v (~2 rad/s) is round-off, far below the 1e-10 integration tolerance */
  for (int k = 1; k < 4; k++) {
    double d = 0;
    for (int e = 0; e < 13; e++) d = fmax(d, fabs(x[k][e] - x[0][e]));
    printf("# case %c against (a): max |difference| %.3g\n", 'a' + k, d);
    assert_true(d < 1e-11);
  }
  /* and it did move: the box turned and travelled */
  assert_true(fabs(x[0][0] - 1) > 0.1);
}

/* the box at rest at the pose, an impulse at t = 0.5 s: in world axes J, or in body axes R^T J
 * (the box does not turn before it, so R is the initial pose's) */
static void same_impulse_in_world_and_body_frames(void **state) {
  (void)state;
  double q4[4], R[9], J[6] = {0.2, -0.1, 0.4, 3, -1, 2}, B[6], x[2][13];
  pose(q4, R);
  hg_m3_mulTv(R, J, B);
  hg_m3_mulTv(R, J + 3, B + 3);
  char text[2][2048];
  for (int k = 0; k < 2; k++) {
    const double *I = k ? B : J;
    snprintf(text[k], sizeof text[k],
             HEAD "initial:\n  bodies: {box: {pos: [1, -2, 0.5], quat: [%.17g, %.17g, %.17g, %.17g]}}\n"
                  "events:\n  - {name: kick, at: 0.5, do: [{impulse: {body: box, angular: [%.17g, "
                  "%.17g, %.17g], linear: [%.17g, %.17g, %.17g]%s}}]}\n",
             q4[0], q4[1], q4[2], q4[3], I[0], I[1], I[2], I[3], I[4], I[5],
             k ? ", frame: body" : "");
    final_state(text[k], "kick.yaml", x[k]);
  }
  /* the two impulses differ by the rounding of R^T then R (~1e-16 of |J|); carried over 1.5 s
   * at rtol 1e-10 that stays round-off: 1e-11 as above */
  double d = 0;
  for (int e = 0; e < 13; e++) d = fmax(d, fabs(x[1][e] - x[0][e]));
  printf("# impulse in body axes against world axes: max |difference| %.3g\n", d);
  assert_true(d < 1e-11);
  assert_true(fabs(x[0][7]) > 0.01); /* it spins */
}

static void frame_refused_off_a_world_free_joint(void **state) {
  (void)state;
  char dir[256], path[300];
  hg_error err;
  assert_int_equal(hg_test_temp_dir("frames", dir, sizeof dir), 0);
  snprintf(path, sizeof path, "%s/bad.yaml", dir);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs("bodies:\n"
        "  - name: rod\n"
        "    joint: {type: revolute, name: pivot, axis: [0, 1, 0]}\n"
        "    inertia: {mass: 2, inertia: [0.25, 0.25, 0.01]}\n"
        "initial:\n"
        "  joints: {pivot: {v: [1], frame: world}}\n", f);
  fclose(f);
  assert_null(hg_scene_load(path, &err));
  printf("# %s\n", err.msg);
  assert_non_null(strstr(err.msg, "bad.yaml:6:"));
  assert_non_null(strstr(err.msg, "'frame' applies to the v of a free joint on the world"));
  hg_test_remove_dir(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(same_motion_in_world_and_body_frames),
      cmocka_unit_test(same_impulse_in_world_and_body_frames),
      cmocka_unit_test(frame_refused_off_a_world_free_joint),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
