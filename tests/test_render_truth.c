/* test_render_truth.c: what the viewer's panels and sliders say is true of the instant shown
 * (render/interact.h, frame.h), without GL:
 *  - the selection panel is built from the frame displayed: on heatshield, the capsule's child
 *    (the shield on its separation joint) read at a frame before the release says "locked" with
 *    that frame's q and v, equal to the panel of a fresh simulation stopped at that instant,
 *    while the simulation itself has already run past the release (the joint is free there);
 *  - the docking gauges of dock.yaml's capture pair read back from an early frame say what a
 *    fresh simulation stopped there measures, after the live one has captured;
 *  - a velocity slider is an offset from the velocity now, its span at least |v|: the capsule
 *    falling at 12 m/s is not pinned at the end of the slider; letting go of it unmoved sets
 *    nothing, and moving it by dv sets v + dv.
 *
 * Runs in the tests folder (CTest's working directory): the scenes are ../scenes/NAME.yaml. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frame.h"
#include "interact.h"
#include "sims.h"

#define NL 16
#define W 128

/* the panel of the body named body at frame f, as one string (lines joined by '\n') */
static void panel_text(hg_interact *ia, hg_history *h, const hg_frame *f, const char *body,
                       char *out, size_t len) {
  char lines[NL][W];
  hg_interact_select(ia, hg_history_intern(h, body), 0);
  int n = hg_interact_panel(ia, f, h, &lines[0][0], NL, W);
  size_t at = 0;
  out[0] = 0;
  for (int k = 0; k < n && at < len; k++) at += (size_t)snprintf(out + at, len - at, "%s\n", lines[k]);
}

static void panel_shows_the_displayed_time(void **state) {
  (void)state;
  hg_scene *s;
  /* the viewer's way: frames captured at output times as the simulation goes */
  hg_sim *sim = hg_test_shipped_at("heatshield", 25, 0, &s);
  hg_history h;
  hg_history_init(&h, 6000);
  hg_history_capture(&h, sim, s);
  for (int k = 1; k <= 402; k++) { /* to 20.1 s, past the release at 17 s */
    assert_int_equal(hg_sim_run(sim, 0.05 * k), HG_SIM_OK);
    hg_history_capture(&h, sim, s);
  }
  hg_interact ia;
  hg_interact_init(&ia);
  char early[2048], fresh[2048], live[2048];
  int k0 = hg_history_find(&h, 16.95);
  assert_true(fabs(h.frame[k0].t - 16.95) < 1e-9);
  panel_text(&ia, &h, &h.frame[k0], "shield", early, sizeof early);
  panel_text(&ia, &h, &h.frame[h.n - 1], "shield", live, sizeof live);
  printf("# at %.2f s:\n%s# at %.2f s:\n%s", h.frame[k0].t, early, h.frame[h.n - 1].t, live);
  assert_non_null(strstr(early, "joint separation: free, locked"));
  assert_non_null(strstr(live, "joint separation: free, free"));
  /* a fresh simulation stopped at 16.95 s shows the same panel, number for number */
  hg_scene *s2;
  hg_sim *sim2 = hg_test_shipped_at("heatshield", 25, 16.95, &s2);
  hg_history h2;
  hg_history_init(&h2, 16);
  hg_frame *f2 = hg_history_capture(&h2, sim2, s2);
  panel_text(&ia, &h2, f2, "shield", fresh, sizeof fresh);
  assert_string_equal(early, fresh);
  hg_history_free(&h2);
  hg_sim_free(sim2);
  hg_scene_free(s2);
  hg_interact_free(&ia);
  hg_history_free(&h);
  hg_sim_free(sim);
  hg_scene_free(s);
}

static void gauges_show_the_displayed_time(void **state) {
  (void)state;
  hg_scene *s;
  hg_sim *sim = hg_test_shipped_at("dock", 20, 0, &s);
  hg_history h;
  hg_history_init(&h, 6000);
  hg_history_capture(&h, sim, s);
  for (int k = 1; k <= 60; k++) { /* to 12 s, past the capture at 9.7 s */
    assert_int_equal(hg_sim_run(sim, 0.2 * k), HG_SIM_OK);
    hg_history_capture(&h, sim, s);
  }
  hg_interact ia;
  hg_interact_init(&ia);
  char lines[12][W], fresh[12][W];
  int k0 = hg_history_find(&h, 5.0);
  int n = hg_interact_gauges(&ia, sim, &h, &h.frame[k0], 0, &lines[0][0], 12, W);
  hg_scene *s2;
  hg_sim *sim2 = hg_test_shipped_at("dock", 20, 5.0, &s2);
  hg_history h2;
  hg_history_init(&h2, 16);
  hg_frame *f2 = hg_history_capture(&h2, sim2, s2);
  int n2 = hg_interact_gauges(&ia, sim2, &h2, f2, 1, &fresh[0][0], 12, W);
  printf("# the gauge at 5 s, read back after the capture:\n#   %s\n#   %s\n#   %s\n#   %s\n",
         lines[0], lines[1], lines[2], lines[3]);
  assert_int_equal(n, 4);
  assert_int_equal(n, n2);
  for (int k = 0; k < n; k++) assert_string_equal(lines[k], fresh[k]);
  assert_null(strstr(lines[3], "joined")); /* the live simulation has captured: one tree */
  hg_history_free(&h2);
  hg_sim_free(sim2);
  hg_scene_free(s2);
  hg_interact_free(&ia);
  hg_history_free(&h);
  hg_sim_free(sim);
  hg_scene_free(s);
}

static void velocity_slider_is_relative(void **state) {
  (void)state;
  hg_scene *s;
  hg_sim *sim = hg_test_shipped_at("heatshield", 25, 18, &s);
  hg_history h;
  hg_history_init(&h, 16);
  hg_history_capture(&h, sim, s);
  hg_interact ia;
  hg_interact_init(&ia);
  hg_interact_select(&ia, hg_history_intern(&h, "capsule"), 0);
  const hg_model *m = hg_sim_model(sim);
  int n = hg_interact_sliders(&ia, sim, &h), i = hg_model_body(m, "capsule");
  assert_int_equal(n, 12); /* a free joint: 6 q offsets, 6 velocities */
  int k = 6 + 5;            /* the velocity along z (the free joint's last DoF: v_z) */
  char label[64];
  double range, value, vz = hg_sim_v(sim)[m->v_adr[i] + 5];
  hg_interact_slider(&ia, sim, &h, k, label, sizeof label, &range, &value);
  printf("# slider '%s': range +-%.6g, value %.6g (vz %.6g)\n", label, range, value, vz);
  assert_true(vz < -5);
  assert_true(range >= fabs(vz));
  assert_true(value == 0);
  /* pressed and let go without moving: nothing set, nothing logged */
  int ncmd = hg_sim_ncommands(sim);
  hg_interact_slider_drag(&ia, sim, &h, k, 0);
  assert_int_equal(hg_interact_slider_release(&ia, sim, &h), 0);
  assert_int_equal(hg_sim_ncommands(sim), ncmd);
  assert_true(hg_sim_v(sim)[m->v_adr[i] + 5] == vz);
  /* moved by +2 m/s: v_z + 2 */
  hg_interact_slider_drag(&ia, sim, &h, k, 2);
  assert_int_equal(hg_interact_slider_release(&ia, sim, &h), 0);
  assert_int_equal(hg_sim_ncommands(sim), ncmd + 1);
  printf("# moved by +2: vz %.9g -> %.9g\n", vz, hg_sim_v(sim)[m->v_adr[i] + 5]);
  assert_true(fabs(hg_sim_v(sim)[m->v_adr[i] + 5] - (vz + 2)) < 1e-12 * fabs(vz));
  hg_interact_free(&ia);
  hg_history_free(&h);
  hg_sim_free(sim);
  hg_scene_free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(panel_shows_the_displayed_time),
      cmocka_unit_test(gauges_show_the_displayed_time),
      cmocka_unit_test(velocity_slider_is_relative),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
