/* test_render_gl.c: the GL renderer offscreen (SDL's offscreen driver, Mesa llvmpipe; no display):
 * shapes of known pose appear where the camera model projects them (pixel centroid within 1 px,
 * flat colours), also 7,000 km from the origin; the ID pass gives each body's index; every
 * overlay changes the image when toggled; renders are deterministic; text draws.
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

#include "context.h"
#include "drawlist.h"
#include "gl_render.h"
#include "sims.h"

#define W 320
#define H 240

static hg_gl_context *ctx;
static hg_renderer *ren;
static unsigned char px[W * H * 4];

static int setup(void **state) {
  (void)state;
  char err[512];
  ctx = hg_gl_context_new(W, H, 0, 1, "test", err, sizeof err);
  if (!ctx) return fprintf(stderr, "%s\n", err), -1;
  ren = hg_renderer_new(err, sizeof err);
  if (!ren) return fprintf(stderr, "%s\n", err), -1;
  return hg_renderer_resize(ren, W, H, 0);
}

static int teardown(void **state) {
  (void)state;
  hg_renderer_free(ren);
  hg_gl_context_free(ctx);
  return 0;
}

/* centroid of the pixels of exactly this colour; returns their count */
static int centroid(const unsigned char rgb[3], double c[2]) {
  double sx = 0, sy = 0;
  int n = 0;
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      const unsigned char *p = px + 4 * (y * W + x);
      if (p[0] == rgb[0] && p[1] == rgb[1] && p[2] == rgb[2]) sx += x + 0.5, sy += y + 0.5, n++;
    }
  c[0] = n ? sx / n : NAN, c[1] = n ? sy / n : NAN;
  return n;
}

static void shape(hg_draw_list *dl, int type, double size0, double size1, const double p[3],
                  double yaw, float r, float g, float b) {
  hg_draw_shape s = {.type = type, .mesh = -1, .size = {size0, size1, size0}, .rgba = {r, g, b, 1}, .id = dl->nshape + 1};
  hg_se3_identity(&s.pose);
  s.pose.R[0] = cos(yaw), s.pose.R[1] = -sin(yaw), s.pose.R[3] = sin(yaw), s.pose.R[4] = cos(yaw);
  memcpy(s.pose.p, p, sizeof s.pose.p);
  assert_int_equal(hg_draw_shape_add(dl, &s), 0);
  dl->centre[0] = p[0], dl->centre[1] = p[1], dl->centre[2] = p[2], dl->radius = 3;
}

/* A sphere, a box and a vertical cylinder (each symmetric about its centre, so its silhouette's
 * centroid is its projected centre up to the perspective skew, below 0.05 px at these sizes and
 * distances), drawn flat at known poses: each colour's centroid is within 1 px of where
 * hg_camera_project puts the centre (rasterization of a 10-20 px wide silhouette moves the
 * centroid by a fraction of a pixel). The same 7,000 km from the origin, camera alongside. */
static void test_projection_centroids(void **state) {
  (void)state;
  const double base[2][3] = {{0, 0, 0}, {6.9e6, 1.1e6, -0.4e6}};
  for (int b = 0; b < 2; b++) {
    hg_camera c = {.eye = {6, -4, 2.5}, .target = {0, 0, 0.2}, .up = {0, 0, 1}, .fovy = 40};
    for (int k = 0; k < 3; k++) c.eye[k] += base[b][k], c.target[k] += base[b][k];
    hg_draw_list dl;
    hg_draw_list_init(&dl);
    double ps[3][3] = {{0.8, 0.6, 0.4}, {-1.1, -0.3, 0.2}, {0.3, -1.2, -0.5}};
    for (int k = 0; k < 3; k++)
      for (int i = 0; i < 3; i++) ps[k][i] += base[b][i];
    shape(&dl, HG_GEOM_SPHERE, 0.25, 0, ps[0], 0, 1, 0, 0);
    shape(&dl, HG_GEOM_BOX, 0.4, 0.3, ps[1], 0.4, 0, 1, 0);
    shape(&dl, HG_GEOM_CYLINDER, 0.15, 0.5, ps[2], 0, 0, 0, 1);
    hg_renderer_draw(ren, &dl, &c, NULL, HG_RENDER_FLAT);
    assert_int_equal(hg_renderer_read(ren, px), 0);
    const unsigned char col[3][3] = {{255, 0, 0}, {0, 255, 0}, {0, 0, 255}};
    for (int k = 0; k < 3; k++) {
      double got[2], want[2];
      int n = centroid(col[k], got);
      assert_true(n > 50);
      assert_int_equal(hg_camera_project(&c, W, H, ps[k], want), 1);
      if (!(fabs(got[0] - want[0]) < 1 && fabs(got[1] - want[1]) < 1))
        fail_msg("shape %d (base %d): centroid (%.3f, %.3f), projected (%.3f, %.3f)", k, b, got[0], got[1], want[0], want[1]);
    }
    hg_draw_list_free(&dl);
  }
}

/* the ID pass writes body index + 1 into red and green */
static void test_id_pass(void **state) {
  (void)state;
  hg_camera c = {.eye = {0, -6, 0}, .target = {0, 0, 0}, .up = {0, 0, 1}, .fovy = 40};
  hg_draw_list dl;
  hg_draw_list_init(&dl);
  double p1[3] = {-1, 0, 0}, p2[3] = {1, 0, 0};
  shape(&dl, HG_GEOM_SPHERE, 0.4, 0, p1, 0, 0.5f, 0.5f, 0.5f);
  shape(&dl, HG_GEOM_BOX, 0.6, 0.6, p2, 0, 0.5f, 0.5f, 0.5f);
  dl.shape[1].id = 300; /* needs the second byte */
  hg_renderer_draw(ren, &dl, &c, NULL, HG_RENDER_ID);
  assert_int_equal(hg_renderer_read(ren, px), 0);
  double q[2];
  hg_camera_project(&c, W, H, p1, q);
  const unsigned char *a = px + 4 * ((int)q[1] * W + (int)q[0]);
  assert_int_equal(a[0] + 256 * a[1], 1);
  hg_camera_project(&c, W, H, p2, q);
  a = px + 4 * ((int)q[1] * W + (int)q[0]);
  assert_int_equal(a[0] + 256 * a[1], 300);
  assert_int_equal(px[0] + px[1] + px[2], 0); /* the background is id 0 */
  hg_draw_list_free(&dl);
}

/* a frame of a shipped scene after a few output steps */
static void scene_frame(const char *name, double t, hg_history *h, hg_scene **sc) {
  *sc = hg_test_shipped(name);
  hg_sim *sim = hg_test_sim(*sc, NAN, NULL);
  hg_history_init(h, 64);
  for (int k = 1; k <= 5; k++) {
    assert_int_equal(hg_sim_run(sim, t * k / 5), HG_SIM_OK);
    assert_non_null(hg_history_capture(h, sim, *sc));
  }
  hg_sim_free(sim);
}

/* pixels that differ between two images */
static int differ(const unsigned char *a, const unsigned char *b) {
  int n = 0;
  for (int k = 0; k < W * H; k++) n += memcmp(a + 4 * k, b + 4 * k, 3) != 0;
  return n;
}

/* every overlay, toggled on, changes at least 20 pixels of the shaded image (a trail: 4); rendering the same
 * list twice gives the same bytes */
static void test_overlays_visible(void **state) {
  (void)state;
  static const struct { const char *scene; int bit; } cases[] = { /* trails: 8 s of 5 cm/s */
      {"dock", HG_OV_FRAMES},    {"dock", HG_OV_JOINTS},   {"dock", HG_OV_COM},
      {"dock", HG_OV_MARKERS},   {"dock", HG_OV_INERTIA},  {"undock", HG_OV_WRENCHES},
      {"undock", HG_OV_SPRINGS}, {"heatshield", HG_OV_FORCES}, {"dock", HG_OV_TRAILS},
      {"dock", HG_OV_PAIRS},     {"dock", HG_OV_MOMENTUM}};
  static unsigned char base[W * H * 4];
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    hg_history h;
    hg_scene *sc;
    scene_frame(cases[k].scene, cases[k].bit == HG_OV_TRAILS ? 8 : 1, &h, &sc);
    const hg_frame *f = &h.frame[h.n - 1];
    hg_draw_list dl;
    hg_draw_list_init(&dl);
    hg_draw_options o = {.overlays = 0, .track = -1, .hist = &h, .frame_index = h.n - 1};
    hg_camera c;
    hg_camera_default(&c);
    double ctr[3], r;
    hg_frame_bounds(f, ctr, &r);
    hg_camera_fit(&c, ctr, r, W, H);
    assert_int_equal(hg_draw_list_build(&dl, f, &o), 0);
    hg_renderer_draw(ren, &dl, &c, &h, HG_RENDER_SHADED);
    assert_int_equal(hg_renderer_read(ren, base), 0);
    hg_renderer_draw(ren, &dl, &c, &h, HG_RENDER_SHADED);
    assert_int_equal(hg_renderer_read(ren, px), 0);
    assert_int_equal(differ(base, px), 0);
    o.overlays = cases[k].bit;
    assert_int_equal(hg_draw_list_build(&dl, f, &o), 0);
    hg_renderer_draw(ren, &dl, &c, &h, HG_RENDER_SHADED);
    assert_int_equal(hg_renderer_read(ren, px), 0);
    int n = differ(base, px);
    /* a trail is a 1-pixel line: the chaser's 0.4 m spans about 7 px of this view */
    int need = cases[k].bit == HG_OV_TRAILS ? 4 : 20;
    if (n < need) fail_msg("overlay bit %d in %s changes %d pixels", cases[k].bit, cases[k].scene, n);
    hg_draw_list_free(&dl);
    hg_history_free(&h);
    hg_scene_free(sc);
  }
}

/* text lands where it is asked to, in its colour */
static void test_text(void **state) {
  (void)state;
  hg_draw_list dl;
  hg_draw_list_init(&dl);
  hg_camera c;
  hg_camera_default(&c);
  hg_renderer_draw(ren, &dl, &c, NULL, HG_RENDER_FLAT);
  const float yellow[4] = {1, 1, 0, 1};
  float x1 = hg_renderer_text(ren, 40, 100, "hinge 0.1", yellow);
  assert_true(fabsf(x1 - 40 - hg_renderer_text_width(ren, "hinge 0.1")) < 1e-3f);
  assert_int_equal(hg_renderer_read(ren, px), 0);
  int n = 0, outside = 0;
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      const unsigned char *p = px + 4 * (y * W + x);
      if (p[0] > 0 && p[0] == p[1] && p[2] == 0) {
        n++;
        outside += x < 39 || x > x1 + 1 || y < 100 - 16 || y > 100 + 5;
      }
    }
  assert_true(n > 60);
  assert_int_equal(outside, 0);
  hg_draw_list_free(&dl);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_projection_centroids),
      cmocka_unit_test(test_id_pass),
      cmocka_unit_test(test_overlays_visible),
      cmocka_unit_test(test_text),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
