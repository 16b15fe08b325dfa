/* test_render_hud.c: the viewer's 2-D layer (render/hud.h, render/hud_layout.h).
 *
 * Without GL: the achieved rate against a clock the test drives (and the "behind" line), the
 * layout's rectangles pairwise disjoint at 1280x720, 1920x1080 and 800x450 with everything on,
 * the timeline's two labels apart, long numbers shortened and wrapped whole, each strip plot on
 * its own scale (the budget drift no longer on the energy's), 3-D labels nudged apart, the
 * animated mode named in the HUD panel, the columns :plot reads.
 * With GL (offscreen, Mesa): notes drawn green and errors red; a restart clears the last
 * command's result from the status line.
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

#include <stb_image.h>

#include "files.h"
#include "sims.h"
#include "hud.h"
#include "viewer.h"

/* ---- the achieved rate ---- */

/* A viewer frame costing 0.25 s of clock that shows 0.1 s more of simulated time achieves 0.4x
 * whatever the speed asked; at speed 4 the HUD says it is behind. Then frames of 1/60 s showing
 * 4/60 s each: after the window (1 s) has passed over the slow frames, 4x and not behind. */
static void test_rate_meter(void **state) {
  (void)state;
  hg_rate_meter m;
  hg_rate_meter_reset(&m);
  double clock = 0, t = 0, span;
  assert_true(isnan(hg_rate_meter_rate(&m, &span)));
  for (int k = 0; k < 12; k++, clock += 0.25, t += 0.1) hg_rate_meter_add(&m, clock, t);
  double rate = hg_rate_meter_rate(&m, &span);
  /* 0.1 / 0.25 in binary: sums of 0.1 and 0.25 carry round-off of a few ulps of 3 */
  assert_true(fabs(rate - 0.4) < 1e-12);
  assert_true(span >= 1 && span <= 1.25);
  char line[128];
  assert_int_equal(hg_hud_rate_line(line, sizeof line, 4, rate, span, 1, 60), 1);
  assert_string_equal(line, "behind: 0.4x of 4x   60 fps");
  /* paused: neither behind nor a rate */
  assert_int_equal(hg_hud_rate_line(line, sizeof line, 4, rate, span, 0, 60), 0);
  assert_string_equal(line, "speed 4x   60 fps");
  for (int k = 0; k < 90; k++) {
    clock += 1.0 / 60, t += 4.0 / 60;
    hg_hud_rate_line(line, sizeof line, 4, hg_rate_meter_rate(&m, &span), span, 1, 60);
    hg_rate_meter_add(&m, clock, t);
  }
  rate = hg_rate_meter_rate(&m, &span);
  assert_true(fabs(rate - 4) < 1e-9); /* sums of 1/60 over 90 frames: round-off ~1e-14 */
  assert_int_equal(hg_hud_rate_line(line, sizeof line, 4, rate, span, 1, 60), 0);
  assert_string_equal(line, "speed 4x   achieved 4x   60 fps");
  /* under half a second measured: no verdict yet */
  hg_rate_meter_reset(&m);
  hg_rate_meter_add(&m, 0, 0);
  hg_rate_meter_add(&m, 0.25, 0.1);
  rate = hg_rate_meter_rate(&m, &span);
  assert_int_equal(hg_hud_rate_line(line, sizeof line, 4, rate, span, 1, 60), 0);
  /* slower than real time asked for: 1/4x */
  assert_int_equal(hg_hud_rate_line(line, sizeof line, 0.25, 0.1, 1, 1, 30), 1);
  assert_string_equal(line, "behind: 0.1x of 1/4x   30 fps");
}

/* ---- layout ---- */

static const char *const area_name[HG_HUD_NAREA] = {"panel", "control", "selection", "events", "gauges",
                                                    "profiler", "plots", "bar", "sliders", "timeline",
                                                    "help", "message"};

/* everything on, as wide as the shipped scenes make it (the dock's gauges, the humanoid's
 * sliders, a long command error, the help) */
static void everything(int w, int h, int help, hg_hud_layout_in *in) {
  memset(in, 0, sizeof *in);
  in->w = w, in->h = h, in->lh = 18;
  static const int lines[HG_HUD_NAREA] = {12, 8, 7, 6, 3, 4, 7, 3, 12, 1, 28, 3};
  static const float width[HG_HUD_NAREA] = {380, 360, 330, 470, 560, 300, 0, 0, 110, 0, 640, 760};
  for (int a = 0; a < HG_HUD_NAREA; a++) in->lines[a] = lines[a], in->width[a] = width[a];
  in->lines[HG_HUD_HELP] = help ? 28 : 0;
}

static void check_disjoint(const hg_hud_layout *o, int w, int h) {
  for (int a = 0; a < HG_HUD_NAREA; a++) {
    const hg_hud_rect *r = &o->r[a];
    if (!(r->w > 0)) continue;
    if (r->x < 0 || r->y < 0 || r->x + r->w > w + 0.01f || r->y + r->h > h + 0.01f)
      fail_msg("%s outside the %dx%d image: %g %g %g %g", area_name[a], w, h, r->x, r->y, r->w, r->h);
    for (int b = a + 1; b < HG_HUD_NAREA; b++)
      if (hg_hud_rect_overlap(r, &o->r[b]))
        fail_msg("%dx%d: %s (%g %g %g %g) overlaps %s (%g %g %g %g)", w, h, area_name[a], r->x, r->y, r->w,
                 r->h, area_name[b], o->r[b].x, o->r[b].y, o->r[b].w, o->r[b].h);
  }
}

static void test_layout_disjoint(void **state) {
  (void)state;
  static const int size[3][2] = {{1280, 720}, {1920, 1080}, {800, 450}};
  for (int k = 0; k < 3; k++)
    for (int help = 0; help < 2; help++) {
      hg_hud_layout_in in;
      hg_hud_layout o;
      everything(size[k][0], size[k][1], help, &in);
      hg_hud_layout_compute(&in, &o);
      check_disjoint(&o, size[k][0], size[k][1]);
      /* what matters most is there at every size: the HUD panel (at least its first 4 lines),
       * the timeline, the bar, the sliders, the message */
      assert_true(o.lines[HG_HUD_PANEL] >= 4);
      assert_int_equal(o.lines[HG_HUD_TIMELINE], 1);
      assert_true(o.lines[HG_HUD_BAR] >= 1 && o.lines[HG_HUD_SLIDERS] >= 1 && o.lines[HG_HUD_MESSAGE] >= 1);
      assert_true(help ? o.lines[HG_HUD_HELP] > 0 && o.r[HG_HUD_PLOTS].w == 0 : o.lines[HG_HUD_PLOTS] > 0);
      if (k == 1 && !help) /* 1920x1080 shows everything at full length */
        for (int a = 0; a < HG_HUD_NAREA; a++)
          if (a != HG_HUD_PLOTS) assert_int_equal(o.lines[a], in.lines[a]);
      if (k == 2) /* 800x450 degrades: fewer lines than asked (the panels say "+N more") */
        assert_true(o.lines[HG_HUD_PLOTS] < in.lines[HG_HUD_PLOTS] && o.lines[HG_HUD_SLIDERS] < 12);
      /* the sliders are where hg_hud_slider_rect puts them */
      float x0, x1, y;
      for (int s = 0; s < o.lines[HG_HUD_SLIDERS]; s++) {
        hg_hud_slider_rect(size[k][0], size[k][1], s, o.lines[HG_HUD_SLIDERS], &x0, &x1, &y);
        const hg_hud_rect *r = &o.r[HG_HUD_SLIDERS];
        assert_true(x0 > r->x && x1 < r->x + r->w && y - 18 >= r->y && y + 8 <= r->y + r->h);
      }
    }
  /* a narrow window (the GL tests' 640x360) still shows the sliders a click can hit */
  {
    hg_hud_layout_in in;
    hg_hud_layout o;
    everything(640, 360, 0, &in);
    hg_hud_layout_compute(&in, &o);
    check_disjoint(&o, 640, 360);
    assert_int_equal(o.lines[HG_HUD_SLIDERS], hg_hud_slider_fit(360));
  }
  /* each overlay alone stays disjoint from the timeline and is shown */
  for (int a = 0; a < HG_HUD_NAREA; a++) {
    hg_hud_layout_in in, one;
    hg_hud_layout o;
    everything(1280, 720, 1, &in);
    one = in;
    for (int b = 0; b < HG_HUD_NAREA; b++) one.lines[b] = b == a || b == HG_HUD_TIMELINE ? in.lines[b] : 0;
    hg_hud_layout_compute(&one, &o);
    check_disjoint(&o, 1280, 720);
    assert_true(o.r[a].w > 0);
  }
}

/* the cursor's label and the end time's never meet: at the end (where the old timeline printed
 * "10.00010"), just before it, in the middle, at the start */
static void test_timeline_labels(void **state) {
  (void)state;
  static const double ts[] = {10, 9.999, 9.9, 9.5, 5, 0};
  for (int w = 640; w <= 1920; w += 640)
    for (size_t k = 0; k < sizeof ts / sizeof ts[0]; k++) {
      hg_hud_rect c, e;
      hg_hud_timeline_labels(w, 720, 18, ts[k], 0, 10, 70, 40, &c, &e);
      assert_true(c.w > 0 && e.w > 0);
      assert_false(hg_hud_rect_overlap(&c, &e));
      assert_true(c.x >= 16 && c.x + c.w <= (float)w - 16 && e.x + e.w <= (float)w - 16 + 0.01f);
      float x0, x1, y0, y1, cx;
      hg_hud_timeline_rect(w, 720, &x0, &x1, &y0, &y1);
      cx = x0 + (float)(ts[k] / 10) * (x1 - x0);
      if (ts[k] == 5) assert_true(fabsf(c.x + 35 - cx) < 0.01f); /* centred on the cursor */
    }
}

/* ---- text ---- */

/* 8 px per character, 16 px of margins (a monospace font) */
static float mono(const void *ctx, const char *s) {
  (void)ctx;
  return 8.0f * (float)strlen(s) + 16;
}

static void test_numbers_whole(void **state) {
  (void)state;
  char out[256];
  hg_hud_shorten_numbers("perturb chaser 0.123456789123 0.000012345678912 99.99999999 frame world", out, sizeof out);
  assert_string_equal(out, "perturb chaser 0.123457 1.23457e-05 100 frame world");
  hg_hud_shorten_numbers("t 10.000099999 s, body2 at -1234567.5 (q0=3.14159265) 42 1e-3 +0.5", out, sizeof out);
  assert_string_equal(out, "t 10.0001 s, body2 at -1.23457e+06 (q0=3.14159) 42 1e-3 +0.5");
  /* a long preview wrapped at 200 px: every number on a line is a number of the shortened text */
  const char *text = "preview: lock joint dock_target_port_chaser_port at t = 9.7312345678 s removes "
                     "0.86240399126 J of 1.00038164 J, momentum change 1.234567891e-16 (relative)";
  char lines[8][128], shortened[512];
  hg_hud_shorten_numbers(text, shortened, sizeof shortened);
  int n = hg_hud_wrap(text, 300, mono, NULL, lines, 8);
  assert_true(n >= 4 && n <= 8);
  for (int k = 0; k < n; k++) {
    assert_true(mono(NULL, lines[k]) <= 300);
    char copy[128], *save = NULL;
    snprintf(copy, sizeof copy, "%s", lines[k]);
    for (char *tok = strtok_r(copy, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
      char word[160];
      snprintf(word, sizeof word, " %s", tok); /* a whole word of the shortened text */
      if (!strstr(shortened, word) && strncmp(shortened, tok, strlen(tok)))
        fail_msg("line %d cuts a word: '%s' ('%s')", k, tok, lines[k]);
    }
  }
  /* three lines at most: the last says the text goes on, still cut between words */
  n = hg_hud_wrap(text, 200, mono, NULL, lines, 3);
  assert_int_equal(n, 3);
  size_t len = strlen(lines[2]);
  assert_true(len > 3 && !strcmp(lines[2] + len - 3, "..."));
  assert_true(mono(NULL, lines[2]) <= 200);
  /* newlines break lines */
  n = hg_hud_wrap("one\ntwo three", 400, mono, NULL, lines, 4);
  assert_int_equal(n, 2);
  assert_string_equal(lines[0], "one");
  assert_string_equal(lines[1], "two three");
}

/* ---- strip plots ---- */

/* A history where the energy stays near 1e6 J and the budget drifts by 1e-9 J: the drift's strip
 * spans 0 .. 1e-9 J (its own scale: on the energy's, 1e-9 of 1e6 is a flat line), the energy's
 * spans its own values; every strip has its unit. */
static void test_strip_scales(void **state) {
  (void)state;
  hg_history h;
  hg_frame fr[50];
  memset(&h, 0, sizeof h);
  memset(fr, 0, sizeof fr);
  for (int k = 0; k < 50; k++) {
    fr[k].t = 0.1 * k;
    fr[k].energy = 1e6 - 100.0 * k;
    fr[k].budget.initial = 5e5, fr[k].budget.value = 5e5 + 1e-9 * k / 49.0;
    fr[k].h[2] = 3, fr[k].h[3] = 4; /* |L| = 3, |p| = 4 */
  }
  h.n = 50, h.frame = fr;
  double lo, hi;
  assert_int_equal(hg_hud_strip_range(HG_STRIP_DRIFT, &h, 49, &lo, &hi), 0);
  /* B - B0 = 5e5 + 1e-9 k/49 - 5e5: the sum rounds to ulp(5e5) = 5.8e-11 */
  assert_true(fabs(lo) < 1e-10 && fabs(hi - 1e-9) < 1e-10);
  assert_int_equal(hg_hud_strip_range(HG_STRIP_ENERGY, &h, 49, &lo, &hi), 0);
  assert_true(lo == 1e6 - 4900 && hi == 1e6);
  /* up to the displayed frame only */
  assert_int_equal(hg_hud_strip_range(HG_STRIP_ENERGY, &h, 9, &lo, &hi), 0);
  assert_true(lo == 1e6 - 900);
  /* flat series: widened by half their size */
  assert_int_equal(hg_hud_strip_range(HG_STRIP_ANGULAR, &h, 49, &lo, &hi), 0);
  assert_true(fabs(lo - 1.5) < 1e-12 && fabs(hi - 4.5) < 1e-12);
  /* no pairs, no held joints: nothing to plot */
  assert_int_equal(hg_hud_strip_range(HG_STRIP_SEPARATION, &h, 49, &lo, &hi), -1);
  assert_int_equal(hg_hud_strip_range(HG_STRIP_FORCE, &h, 49, &lo, &hi), -1);
  assert_string_equal(hg_hud_strip_unit(HG_STRIP_DRIFT), "J");
  assert_string_equal(hg_hud_strip_unit(HG_STRIP_LINEAR), "kg m/s");
  assert_string_equal(hg_hud_strip_unit(HG_STRIP_MOMENT), "N m");
  for (int s = 0; s < HG_STRIP_COUNT; s++) assert_true(hg_hud_strip_unit(s)[0] && hg_hud_strip_title(s)[0]);
}

/* ---- 3-D labels ---- */

/* The dock's labels at one point (port names, distance, "selected"): apart after the nudge, none
 * moved up, the first where it was; a label elsewhere untouched. */
static void test_labels_apart(void **state) {
  (void)state;
  hg_hud_rect b[5] = {{600, 300, 90, 19}, {600, 302, 90, 19}, {605, 310, 60, 19}, {598, 300, 70, 19},
                      {100, 100, 50, 19}};
  hg_hud_rect before[5];
  memcpy(before, b, sizeof b);
  hg_hud_spread_labels(b, 5);
  for (int i = 0; i < 5; i++) {
    assert_true(b[i].y >= before[i].y && b[i].x == before[i].x);
    for (int j = i + 1; j < 5; j++) assert_false(hg_hud_rect_overlap(&b[i], &b[j]));
  }
  assert_true(b[0].y == 300 && b[4].y == 100);
}

/* ---- columns plotted on demand ---- */

/* :plot's columns read the simulation's state as trajectory.csv names it: a revolute joint's
 * angle and rate, a free joint's coordinates, a body's position, the energy columns; names that
 * are not columns are refused */
static void test_plot_columns(void **state) {
  (void)state;
  hg_scene *sc;
  hg_sim *sim = hg_test_shipped_at("freeze_thaw", NAN, 0.3, &sc);
  const hg_model *m = hg_sim_model(sim);
  hg_history h;
  hg_history_init(&h, 16);
  hg_frame *f = hg_history_capture(&h, sim, sc);
  hg_hud_column c;
  int a1 = -1, base = -1;
  for (int i = 1; i < m->nbody; i++) {
    if (!strcmp(m->jnt_name[i], "a1")) a1 = i;
    if (!strcmp(m->jnt_name[i], "base")) base = i;
  }
  assert_true(a1 > 0 && base > 0);
  assert_int_equal(hg_hud_column_resolve(m, "a1.q.angle", &c), 0);
  assert_true(hg_hud_column_value(&c, sim, f, &h) == hg_sim_q(sim)[m->q_adr[a1]]);
  assert_int_equal(hg_hud_column_resolve(m, "a1.v.rate", &c), 0);
  assert_true(hg_hud_column_value(&c, sim, f, &h) == hg_sim_v(sim)[m->v_adr[a1]]);
  assert_int_equal(hg_hud_column_resolve(m, "base.q.qz", &c), 0); /* a free joint's 7th */
  assert_true(hg_hud_column_value(&c, sim, f, &h) == hg_sim_q(sim)[m->q_adr[base] + 6]);
  assert_int_equal(hg_hud_column_resolve(m, "base.z", &c), 0); /* the body's position */
  int b = hg_frame_body(f, hg_history_intern(&h, "base"));
  assert_true(b > 0 && hg_hud_column_value(&c, sim, f, &h) == f->body[b].pose.p[2]);
  assert_int_equal(hg_hud_column_resolve(m, "kinetic", &c), 0);
  assert_true(hg_hud_column_value(&c, sim, f, &h) == f->budget.kinetic);
  assert_int_equal(hg_hud_column_resolve(m, "pz", &c), 0);
  assert_true(hg_hud_column_value(&c, sim, f, &h) == f->h[5]);
  assert_int_equal(hg_hud_column_resolve(m, "nosuch.q.angle", &c), -1);
  assert_int_equal(hg_hud_column_resolve(m, "a1.q.nosuch", &c), -1);
  assert_int_equal(hg_hud_column_resolve(m, "a1.q", &c), -1);
  assert_int_equal(hg_hud_column_resolve(m, "energy", &c), -1);
  /* Tab completion: body a1's position and joint a1's angle and rate, then the one; every
   * candidate resolves */
  char out[200], list[400];
  assert_int_equal(hg_hud_column_complete(m, "a1.", out, sizeof out, list, sizeof list), 5);
  assert_string_equal(out, "a1.");
  assert_string_equal(list, "a1.x a1.y a1.z a1.q.angle a1.v.rate");
  assert_int_equal(hg_hud_column_complete(m, "a1.q", out, sizeof out, list, sizeof list), 1);
  assert_string_equal(out, "a1.q.angle");
  assert_int_equal(hg_hud_column_complete(m, "remov", out, sizeof out, list, sizeof list), 1);
  assert_string_equal(out, "removed_by_locks");
  assert_int_equal(hg_hud_column_complete(m, "zzz", out, sizeof out, list, sizeof list), 0);
  int all = hg_hud_column_complete(m, "", out, sizeof out, list, sizeof list);
  assert_true(all > 20);
  for (char *save = NULL, *tok = strtok_r(list, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
    assert_int_equal(hg_hud_column_resolve(m, tok, &c), 0);
  hg_history_free(&h);
  hg_sim_free(sim);
  hg_scene_free(sc);
}

/* ---- the HUD panel ---- */

static void test_mode_line(void **state) {
  (void)state;
  hg_frame f;
  memset(&f, 0, sizeof f);
  hg_hud_state s = {.title = "t", .speed = 1, .rtf = NAN, .fps = 60, .paused = 1,
                    .mode = "mode 2, f = 1.5 Hz, eps = 0.1"};
  char lines[24][128];
  int behind = -1, n = hg_hud_panel_lines(&f, &s, lines, 24, &behind), found = 0;
  for (int k = 0; k < n; k++) found += !strcmp(lines[k], "mode 2, f = 1.5 Hz, eps = 0.1");
  assert_int_equal(found, 1);
  assert_int_equal(behind, 0);
}

/* ---- with GL: messages and the status line ---- */

static void write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

/* pixels of the error colour (r > 200, g and b < 140) and of the note colour (g > 200, r and
 * b < 190) in a PNG, in rows y0..y1 */
static void colours(const char *path, int y0, int y1, int *red, int *green) {
  int w, h, n;
  unsigned char *p = stbi_load(path, &w, &h, &n, 4);
  assert_non_null(p);
  *red = *green = 0;
  for (int y = y0 < 0 ? 0 : y0; y < h && y < y1; y++)
    for (int x = 0; x < w; x++) {
      const unsigned char *q = p + 4 * (y * w + x);
      *red += q[0] > 200 && q[1] < 140 && q[2] < 140;
      *green += q[1] > 200 && q[0] < 190 && q[2] < 190;
    }
  stbi_image_free(p);
}

static const char *const pendulum =
    "title: one pendulum\n"
    "bodies:\n"
    "  - name: bob\n"
    "    joint: {type: revolute, axis: [0, 1, 0]}\n"
    "    inertia: {mass: 1, com: [0, 0, -1], inertia: [0.01, 0.01, 0.01]}\n"
    "    geometry:\n"
    "      - {type: sphere, radius: 0.2, pos: [0, 0, -1], rgba: [0.2, 0.2, 0.9, 1]}\n"
    "time: {start: 0, end: 2}\n";

/* pixels of the :plot strip's colour (0.5, 1, 0.5) in the right quarter, above y1 */
static int plot_pixels(const char *path, int y1) {
  int w, h, n, count = 0;
  unsigned char *p = stbi_load(path, &w, &h, &n, 4);
  assert_non_null(p);
  for (int y = 0; y < h && y < y1; y++)
    for (int x = 3 * w / 4; x < w; x++) {
      const unsigned char *q = p + 4 * (y * w + x);
      count += q[1] > 230 && q[0] > 100 && q[0] < 150 && q[2] > 100 && q[2] < 150;
    }
  stbi_image_free(p);
  return count;
}

/* ":plot bob.q.angle" draws a strip of the pendulum's angle (right column, its own colour),
 * ":plot off" removes it, a name that is no column is an error in the status line */
static void test_plot_command(void **state) {
  (void)state;
  char dir[256], scene[300], script[300], s1[300], s2[300], s3[300], text[2048], err[512];
  assert_int_equal(hg_test_temp_dir("hud_plot", dir, sizeof dir), 0);
  snprintf(scene, sizeof scene, "%s/pendulum.yaml", dir);
  snprintf(script, sizeof script, "%s/script.txt", dir);
  snprintf(s1, sizeof s1, "%s/plot.png", dir);
  snprintf(s2, sizeof s2, "%s/off.png", dir);
  snprintf(s3, sizeof s3, "%s/bad.png", dir);
  write_file(scene, pendulum);
  snprintf(text, sizeof text,
           "0.0 type plot bob.q.angle\n0.05 key return\n0.1 key space\n1.0 key space\n1.1 screenshot %s\n"
           "1.2 type plot off\n1.25 key return\n1.3 screenshot %s\n"
           "1.4 type plot bob.q.nosuch\n1.45 key return\n1.5 screenshot %s\n1.6 quit\n",
           s1, s2, s3);
  write_file(script, text);
  hg_viewer_options o;
  hg_viewer_default_options(&o);
  o.offscreen = 1, o.script = script, o.width = 640, o.height = 360, o.paused = 1;
  assert_int_equal(hg_viewer_run(scene, &o, err, sizeof err), 0);
  int red, green;
  assert_true(plot_pixels(s1, 100) > 30);
  assert_true(plot_pixels(s2, 100) < 5);
  colours(s3, 250, 320, &red, &green);
  assert_true(red > 100);
  hg_test_remove_dir(dir);
}

/* F5's "reloaded" is a note (green, no red); a bad command's error shows red in the status line
 * above the timeline, and Backspace (restart) clears it */
static void test_messages_and_restart(void **state) {
  (void)state;
  char dir[256], scene[300], script[300], s1[300], s2[300], s3[300], text[2048], err[512];
  assert_int_equal(hg_test_temp_dir("hud_messages", dir, sizeof dir), 0);
  snprintf(scene, sizeof scene, "%s/pendulum.yaml", dir);
  snprintf(script, sizeof script, "%s/script.txt", dir);
  snprintf(s1, sizeof s1, "%s/reloaded.png", dir);
  snprintf(s2, sizeof s2, "%s/error.png", dir);
  snprintf(s3, sizeof s3, "%s/restarted.png", dir);
  write_file(scene, pendulum);
  snprintf(text, sizeof text,
           "0.1 key F5\n0.2 screenshot %s\n"
           "2.5 type frobnicate bob\n2.6 key return\n2.7 screenshot %s\n"
           "2.8 key backspace\n2.9 screenshot %s\n3.0 quit\n",
           s1, s2, s3);
  write_file(script, text);
  hg_viewer_options o;
  hg_viewer_default_options(&o);
  o.offscreen = 1, o.script = script, o.width = 640, o.height = 360, o.paused = 1;
  assert_int_equal(hg_viewer_run(scene, &o, err, sizeof err), 0);
  int red, green;
  colours(s1, 0, 360, &red, &green);
  assert_true(red < 20 && green > 100); /* the note, green */
  colours(s2, 250, 320, &red, &green);  /* the status line, above the timeline */
  assert_true(red > 100);
  colours(s3, 0, 360, &red, &green);
  assert_true(red < 20); /* the error gone; "restarted" is a note */
  assert_true(green > 100);
  hg_test_remove_dir(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rate_meter),          cmocka_unit_test(test_layout_disjoint),
      cmocka_unit_test(test_timeline_labels),     cmocka_unit_test(test_numbers_whole),
      cmocka_unit_test(test_strip_scales),        cmocka_unit_test(test_labels_apart),
      cmocka_unit_test(test_mode_line),           cmocka_unit_test(test_plot_columns),
      cmocka_unit_test(test_messages_and_restart), cmocka_unit_test(test_plot_command),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
