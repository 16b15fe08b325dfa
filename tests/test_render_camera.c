/* test_render_camera.c: the default camera (render/framing.h) and glyphs sized in pixels
 * (render/drawlist.c), without GL.
 *
 * The framing camera is fed the heat-shield scene's frames as the viewer and hinge render feed
 * it: both the capsule and the shield project inside a 640 x 360 image at t = 5, 17 and 30 s, and
 * at every frame of the run no body moves more than a few pixels from one frame (1/30 s) to the
 * next (no jumps); the undocking scene's servicer and client, 6,771 km from the origin at
 * 7.7 km/s, stay in frame over the run; a scene's `view: {track: [...]}` frames those bodies only;
 * a user's orbit, zoom and pan are kept, and `a` (hg_framing_start) forgets zoom and pan.
 * Glyphs: after the separation (heatshield at t = 35 s, the bodies 280 m apart) and in orbit,
 * every overlay shape's projected extent is within its pixel budget; a joint's axis arrow is
 * no longer than 1.5 x its link (the chain); the same frame scaled 1000 times, seen by the
 * camera scaled with it, gives the same pixel sizes.
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

#include "camera.h"
#include "drawlist.h"
#include "files.h"
#include "frame.h"
#include "framing.h"
#include "sims.h"

enum { W = 640, H = 360 };

/* the pixel of world point x through cam; fails unless it is in front of the eye and inside the
 * image (margin: pixels kept clear of each edge) */
static void assert_in_frame(const hg_camera *cam, const double x[3], double margin, const char *what,
                            double t) {
  double px[2];
  int front = hg_camera_project(cam, W, H, x, px);
  if (!front || !(px[0] >= margin && px[0] <= W - margin && px[1] >= margin && px[1] <= H - margin))
    fail_msg("t = %g s: %s projects to (%g, %g), outside the %d x %d image", t, what, px[0], px[1], W, H);
}

/* the position of body name in frame f (fails when it is not there) */
static const double *body_at(const hg_frame *f, hg_history *h, const char *name) {
  int b = hg_frame_body(f, hg_history_intern(h, name));
  if (b < 1) fail_msg("no body %s at t = %g", name, f->t);
  return f->body[b].pose.p;
}

/* Runs scene sc from its start to t_end at fps frames per second of simulated time, the framing
 * camera updated at each frame as hinge render does (its clock: the simulated time); at every
 * frame the bodies named in `names` are in frame (2 px clear of the edges), and none moves more
 * than max_step pixels between consecutive frames; at the times `at` the camera is kept in
 * cams. */
static void run_framed(hg_scene *sc, double t_end, double fps, const char *const *names, int nname,
                       double max_step, const double *at, int nat, hg_camera *cams) {
  hg_sim *sim = hg_test_sim(sc, NAN, NULL);
  hg_history h;
  hg_history_init(&h, 64);
  hg_framing fr;
  hg_camera cam;
  double last[8][2];
  long n = (long)floor((t_end - hg_sim_t_start(sim)) * fps + 1e-9);
  for (long k = 0; k <= n; k++) {
    double t = hg_sim_t_start(sim) + (double)k / fps;
    assert_int_equal(hg_sim_run(sim, t), HG_SIM_OK);
    const hg_frame *f = hg_history_capture(&h, sim, sc);
    assert_non_null(f);
    if (k == 0) {
      hg_framing_init(&fr, sc, &h);
      hg_framing_first_camera(&fr, sc, f, &cam, W, H, f->t);
    }
    hg_framing_update(&fr, f, &cam, W, H, f->t);
    for (int i = 0; i < nname; i++) {
      const double *p = body_at(f, &h, names[i]);
      double px[2];
      assert_in_frame(&cam, p, 2, names[i], t);
      hg_camera_project(&cam, W, H, p, px);
      if (k > 0) {
        double step = hypot(px[0] - last[i][0], px[1] - last[i][1]);
        if (!(step <= max_step)) fail_msg("t = %g s: %s jumps %g px in one frame", t, names[i], step);
      }
      last[i][0] = px[0], last[i][1] = px[1];
    }
    for (int i = 0; i < nat; i++)
      if (fabs(t - at[i]) < 0.5 / fps) cams[i] = cam;
  }
  hg_history_free(&h);
  hg_sim_free(sim);
}

/* heatshield: capsule and shield in frame at every frame to 30 s (30 fps) and at 5, 17, 30 s;
 * no body moves more than 6 px per frame (the release pushes the shield off at 1 m/s and it
 * falls away at up to 16 m/s relative: at the framed scale of 0.03 m/px before the release that
 * is at most 0.55 m/frame = 18 px were the camera fixed; the framing keeps the two centred and
 * zooms out with them, leaving a drift of a pixel or two) */
static void test_framing_heatshield(void **state) {
  (void)state;
  hg_scene *sc = hg_test_shipped("heatshield");
  const char *const names[] = {"capsule", "shield"};
  const double at[3] = {5, 17, 30};
  hg_camera cams[3];
  memset(cams, 0, sizeof cams);
  run_framed(sc, 30, 30, names, 2, 6, at, 3, cams);
  for (int i = 0; i < 3; i++) {
    assert_true(cams[i].fovy > 0);
    print_message("# t = %g s: target %.6g %.6g %.6g, eye distance %.4g m\n", at[i], cams[i].target[0],
                  cams[i].target[1], cams[i].target[2],
                  hypot(hypot(cams[i].eye[0] - cams[i].target[0], cams[i].eye[1] - cams[i].target[1]),
                        cams[i].eye[2] - cams[i].target[2]));
  }
  hg_scene_free(sc);
}

/* undock in orbit: servicer and client 6,771 km from the origin at 7.7 km/s, in frame over the
 * whole run at 10 fps (the centre follows without lag: no more than 4 px per frame) */
static void test_framing_orbit(void **state) {
  (void)state;
  hg_scene *sc = hg_test_shipped("undock");
  const char *const names[] = {"servicer", "client"};
  run_framed(sc, sc->t_end, 10, names, 2, 4, NULL, 0, NULL);
  hg_scene_free(sc);
}

/* a scene's view section: track names the bodies kept in frame; a starting camera gives the
 * direction; unknown bodies and bad cameras are file:line errors */
static void test_view_section(void **state) {
  (void)state;
  char dir[512];
  static const char base[] =
      "gravity: [0, 0, 0]\n"
      "bodies:\n"
      "  - {name: a, joint: free, inertia: {mass: 1, inertia: [1, 1, 1]},\n"
      "     geometry: [{type: sphere, radius: 0.5}]}\n"
      "  - {name: b, joint: free, inertia: {mass: 1, inertia: [1, 1, 1]},\n"
      "     geometry: [{type: sphere, radius: 0.5}]}\n"
      "initial: {bodies: {a: {pos: [0, 0, 0]}, b: {pos: [0, 0, 0], twist: [0, 0, 0, 30, 0, 0]}}}\n"
      "time: {end: 10}\n";
  char text[2048];
  snprintf(text, sizeof text, "%sview: {track: [a], camera: {eye: [0, -10, 0], target: [0, 0, 0], fov: 30}}\n", base);
  hg_scene *sc = hg_test_scene_temp("view", "view.yaml", text, dir, sizeof dir);
  assert_int_equal(sc->view.ntrack, 1);
  assert_string_equal(sc->view.track[0], "a");
  assert_int_equal(sc->view.has_camera, 1);
  assert_true(sc->view.up[2] == 1 && sc->view.fovy == 30);
  /* b leaves at 30 m/s: the camera keeps a alone, in the middle, looking along +y */
  const char *const names[] = {"a"};
  const double at[1] = {10};
  hg_camera cam;
  run_framed(sc, 10, 10, names, 1, 1, at, 1, &cam);
  double px[2], s[3], u[3], f[3], a0[3] = {0, 0, 0};
  hg_camera_project(&cam, W, H, a0, px);
  assert_true(fabs(px[0] - W / 2.0) < 1e-6 && fabs(px[1] - H / 2.0) < 1e-6);
  hg_camera_basis(&cam, s, u, f);
  assert_true(fabs(f[1] - 1) < 1e-12);
  assert_true(cam.fovy == 30);
  hg_scene_free(sc);
  /* errors */
  static const struct { const char *view, *msg; } bad[] = {
      {"view: {track: [a, c]}\n", "view.yaml:9:"},
      {"view: {track: [a], zoom: 2}\n", "unknown key 'zoom'"},
      {"view: {camera: {eye: [0, 0, 1], target: [0, 0, 1]}}\n", "eye equals target"},
      {"view: {camera: {eye: [0, 0, 5], target: [0, 0, 0]}}\n", "parallel"},
      {"view: {camera: {eye: [0, -5, 0], target: [0, 0, 0], fov: 200}}\n", "fov"},
  };
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    char path[600];
    hg_error err;
    snprintf(text, sizeof text, "%s%s", base, bad[k].view);
    snprintf(path, sizeof path, "%s/view.yaml", dir);
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs(text, fp);
    fclose(fp);
    hg_scene *b = hg_scene_load(path, &err);
    assert_null(b);
    if (!strstr(err.msg, bad[k].msg)) fail_msg("'%s': %s", bad[k].view, err.msg);
  }
  hg_test_remove_dir(dir);
}

/* the eye's distance from the target */
static double eye_distance(const hg_camera *c) {
  return hypot(hypot(c->eye[0] - c->target[0], c->eye[1] - c->target[1]), c->eye[2] - c->target[2]);
}

/* What the user does is kept: after an orbit (0.8 rad of yaw) and a zoom in (x 0.5) at t = 16 s,
 * the heat-shield camera at t = 25 s still looks along the orbited direction (to 1e-12), from half
 * the distance the framing alone would take, at the bodies' centre; a pan of 10 % of the view
 * stays as the same offset; hg_framing_start (the viewer's `a`) forgets zoom and pan. */
static void test_framing_keeps_user_moves(void **state) {
  (void)state;
  hg_scene *sc;
  hg_sim *sim = hg_test_shipped_at("heatshield", NAN, 16, &sc);
  hg_history h;
  hg_history_init(&h, 8);
  const hg_frame *f = hg_history_capture(&h, sim, sc);
  hg_framing fr, ref;
  hg_camera cam, rcam;
  hg_framing_init(&fr, sc, &h);
  hg_framing_first_camera(&fr, sc, f, &cam, W, H, f->t);
  ref = fr, rcam = cam;
  hg_camera_orbit(&cam, 0.8, 0);
  hg_camera_zoom(&cam, 0.5);
  double s0[3], u0[3], f0[3];
  hg_camera_basis(&cam, s0, u0, f0);
  assert_int_equal(hg_sim_run(sim, 25), HG_SIM_OK);
  f = hg_history_capture(&h, sim, sc);
  hg_framing_update(&fr, f, &cam, W, H, f->t);
  hg_framing_update(&ref, f, &rcam, W, H, f->t); /* the same frames, untouched */
  double s1[3], u1[3], f1[3];
  hg_camera_basis(&cam, s1, u1, f1);
  for (int k = 0; k < 3; k++) assert_true(fabs(f1[k] - f0[k]) < 1e-12);
  assert_true(fabs(eye_distance(&cam) / eye_distance(&rcam) - 0.5) < 1e-12);
  for (int k = 0; k < 3; k++) assert_true(fabs(cam.target[k] - rcam.target[k]) < 1e-9);
  /* a pan: the offset stays as the bodies move on */
  hg_camera_pan(&cam, 0.1, 0);
  double off[3];
  for (int k = 0; k < 3; k++) off[k] = cam.target[k] - rcam.target[k];
  assert_int_equal(hg_sim_run(sim, 27), HG_SIM_OK);
  f = hg_history_capture(&h, sim, sc);
  hg_framing_update(&fr, f, &cam, W, H, f->t);
  hg_framing_update(&ref, f, &rcam, W, H, f->t);
  for (int k = 0; k < 3; k++) assert_true(fabs(cam.target[k] - rcam.target[k] - off[k]) < 1e-9);
  /* `a`: fitted again, the orbited direction kept */
  hg_framing_start(&fr, f, &cam, W, H, f->t);
  assert_true(fabs(eye_distance(&cam) / eye_distance(&rcam) - 1) < 1e-9);
  for (int k = 0; k < 3; k++) assert_true(fabs(cam.target[k] - rcam.target[k]) < 1e-9);
  hg_history_free(&h);
  hg_sim_free(sim);
  hg_scene_free(sc);
}

/* the metres per pixel at p through cam in an image H high */
static double metres_per_px(const hg_camera *cam, const double p[3]) {
  double s[3], u[3], f[3], d = 0;
  hg_camera_basis(cam, s, u, f);
  for (int k = 0; k < 3; k++) d += f[k] * (p[k] - cam->eye[k]);
  return fabs(d) * 2 * tan(0.5 * cam->fovy * 3.14159265358979323846 / 180) / H;
}

/* a shape's largest extent in metres: its bounding box's diagonal (an arrow's shaft and a cone
 * are their length and diameter) */
static double shape_extent(const hg_draw_shape *s) {
  switch (s->type) {
  case HG_GEOM_SPHERE: return 2 * s->size[0];
  case HG_GEOM_BOX: return sqrt(s->size[0] * s->size[0] + s->size[1] * s->size[1] + s->size[2] * s->size[2]);
  case HG_GEOM_CAPSULE: return s->size[1] + 2 * s->size[0];
  default: return hypot(2 * s->size[0], s->size[1]); /* cylinder, cone, shaft */
  }
}

/* the largest projected extent, in pixels, of the overlay shapes of list dl */
static double largest_glyph_px(const hg_draw_list *dl, const hg_camera *cam) {
  double worst = 0;
  for (int k = 0; k < dl->nshape; k++)
    if (dl->shape[k].overlay) worst = fmax(worst, shape_extent(&dl->shape[k]) / metres_per_px(cam, dl->shape[k].pose.p));
  return worst;
}

/* the draw list of frame f through cam with every overlay but the inertia boxes (body-sized, not
 * glyphs), the trails (paths) and those in `off` */
static void build(hg_draw_list *dl, const hg_frame *f, hg_history *h, const hg_camera *cam, int off) {
  hg_draw_options o = {.overlays = HG_OV_ALL & ~HG_OV_INERTIA & ~HG_OV_TRAILS & ~off, .track = -1, .hist = h,
                       .frame_index = h->n - 1, .cam = cam, .width = W, .height = H};
  assert_int_equal(hg_draw_list_build(dl, f, &o), 0);
}

/* After the separation (heatshield, t = 35 s: the shield 280 m below the capsule) and in orbit
 * (undock, t = 20 s), seen by the default camera and by a close-up of one body (the capsule from
 * 20 m, as `hinge render --time 35 --track capsule --camera "eye=12,-12,2330 target=0,0,2310"`
 * sees it; the servicer from 10 m): no overlay shape projects larger than the longest arrow's
 * budget (HG_ARROW_PX = 72 px) plus 15 % (the arrows of one kind share a metres-per-newton scale
 * set at the largest's depth, so a smaller force nearer the eye may project a little longer: the
 * bodies' depths differ by 15 % at most in these views) */
static void test_glyph_pixels(void **state) {
  (void)state;
  static const struct { const char *scene, *body; double t, eye[3]; } cases[] = {
      {"heatshield", "capsule", 35, {12, -12, 20}}, {"undock", "servicer", 20, {6, -6, 5}}};
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    hg_scene *sc;
    hg_sim *sim = hg_test_shipped_at(cases[c].scene, NAN, cases[c].t, &sc);
    hg_history h;
    hg_history_init(&h, 4);
    hg_draw_list dl;
    hg_draw_list_init(&dl);
    const hg_frame *f = hg_history_capture(&h, sim, sc);
    hg_framing fr;
    hg_camera cam;
    hg_framing_init(&fr, sc, &h);
    hg_framing_first_camera(&fr, sc, f, &cam, W, H, f->t);
    for (int view = 0; view < 2; view++) {
      if (view == 1) { /* the close-up */
        const double *p = body_at(f, &h, cases[c].body);
        for (int k = 0; k < 3; k++) cam.target[k] = p[k], cam.eye[k] = p[k] + cases[c].eye[k];
        cam.fovy = 40;
      }
      build(&dl, f, &h, &cam, 0);
      double worst = largest_glyph_px(&dl, &cam);
      print_message("# %s at t = %g s, %s: the largest glyph %.1f px\n", cases[c].scene, cases[c].t,
                    view ? "close-up" : "default camera", worst);
      assert_true(worst > 5);
      assert_true(worst <= 1.15 * HG_ARROW_PX);
    }
    hg_draw_list_free(&dl);
    hg_history_free(&h);
    hg_sim_free(sim);
    hg_scene_free(sc);
  }
}

/* every position and length of frame f times k (a scene k times larger, seen the same way) */
static void scale_frame(hg_frame *f, double k) {
  for (int i = 1; i < f->nbody; i++) {
    for (int j = 0; j < 3; j++) f->body[i].pose.p[j] *= k, f->body[i].com[j] *= k, f->body[i].box[j] *= k;
  }
  for (int g = 0; g < f->ngeom; g++)
    for (int j = 0; j < 3; j++) f->geom[g].pose.p[j] *= k, f->geom[g].size[j] *= k;
  for (int i = 0; i < f->njoint; i++)
    for (int j = 0; j < 3; j++) f->joint[i].frame.p[j] *= k;
  for (int i = 0; i < f->nmarker; i++)
    for (int j = 0; j < 3; j++) f->marker[i].pose.p[j] *= k;
  for (int i = 0; i < f->nforce; i++) {
    for (int j = 0; j < 3; j++) f->force[i].a[j] *= k, f->force[i].b[j] *= k;
    f->force[i].length *= k;
  }
  for (int i = 0; i < f->npair; i++)
    for (int j = 0; j < 3; j++) f->pair[i].pa[j] *= k, f->pair[i].pb[j] *= k;
  for (int i = 0; i < f->nloop; i++)
    for (int j = 0; j < 3; j++) f->loop[i].frame_a.p[j] *= k, f->loop[i].frame_b.p[j] *= k;
  for (int i = 0; i < f->nact; i++)
    for (int j = 0; j < 3; j++) f->act[i].point[j] *= k;
  for (int i = 0; i < f->nsens; i++)
    for (int j = 0; j < 3; j++) f->sens[i].pose.p[j] *= k;
  for (int j = 0; j < 3; j++) f->com[j] *= k;
}

/* heatshield at 17.5 s (the shield just released, springs, chute and drag arrows) and 1000
 * times larger: the same overlay shapes with the same pixel extents (to 1e-9: the sizes are
 * products and quotients of the same numbers, scaled) */
static void test_glyph_scale_free(void **state) {
  (void)state;
  hg_scene *sc;
  hg_sim *sim = hg_test_shipped_at("heatshield", NAN, 17.5, &sc);
  hg_history h;
  hg_history_init(&h, 4);
  hg_frame *f = hg_history_capture(&h, sim, sc), big;
  assert_int_equal(hg_frame_copy(&big, f), 0);
  scale_frame(&big, 1000);
  hg_framing fr;
  hg_camera cam, cbig;
  hg_framing_init(&fr, sc, &h);
  hg_framing_first_camera(&fr, sc, f, &cam, W, H, 0);
  hg_framing_first_camera(&fr, sc, &big, &cbig, W, H, 0);
  hg_draw_list a, b;
  hg_draw_list_init(&a), hg_draw_list_init(&b);
  /* a frame scaled by hand keeps its moments (wrenches, angular momentum about the origin): they
   * would scale with the lengths in a scene built 1000 times larger, so those overlays' arrows
   * are left out here */
  build(&a, f, &h, &cam, HG_OV_WRENCHES | HG_OV_MOMENTUM);
  build(&b, &big, &h, &cbig, HG_OV_WRENCHES | HG_OV_MOMENTUM);
  assert_int_equal(a.nshape, b.nshape);
  int n = 0;
  for (int k = 0; k < a.nshape; k++) {
    if (!a.shape[k].overlay) continue;
    double ea = shape_extent(&a.shape[k]) / metres_per_px(&cam, a.shape[k].pose.p);
    double eb = shape_extent(&b.shape[k]) / metres_per_px(&cbig, b.shape[k].pose.p);
    if (!(fabs(ea - eb) <= 1e-9 * ea))
      fail_msg("shape %d (type %d): %.12g px, %.12g px at 1000 x", k, a.shape[k].type, ea, eb);
    n++;
  }
  assert_true(n > 10);
  print_message("# %d glyphs of the same pixel size at 1 x and 1000 x\n", n);
  hg_draw_list_free(&a), hg_draw_list_free(&b);
  hg_frame_free(&big);
  hg_history_free(&h);
  hg_sim_free(sim);
  hg_scene_free(sc);
}

/* the chain (0.3 m links) and the undocking arm (0.15 m links): each one-DoF joint's axis arrow
 * is at most 1.5 x its link's length (the link's farthest point from its frame), seen by the
 * default camera and from 1 m */
static void test_joint_arrows_fit_links(void **state) {
  (void)state;
  static const char *const scenes[] = {"chain", "undock"};
  for (int c = 0; c < 2; c++) {
    hg_scene *sc;
    hg_sim *sim = hg_test_shipped_at(scenes[c], NAN, 0, &sc);
    hg_history h;
    hg_history_init(&h, 4);
    const hg_frame *f = hg_history_capture(&h, sim, sc);
    hg_framing fr;
    hg_camera cam;
    hg_framing_init(&fr, sc, &h);
    hg_framing_first_camera(&fr, sc, f, &cam, W, H, 0);
    for (int view = 0; view < 2; view++) {
      if (view == 1) hg_camera_zoom(&cam, 1 / hypot(hypot(cam.eye[0] - cam.target[0], cam.eye[1] - cam.target[1]),
                                                      cam.eye[2] - cam.target[2]));
      hg_draw_list dl;
      hg_draw_list_init(&dl);
      hg_draw_options o = {.overlays = HG_OV_JOINTS, .track = -1, .hist = &h, .frame_index = 0,
                           .cam = &cam, .width = W, .height = H};
      assert_int_equal(hg_draw_list_build(&dl, f, &o), 0);
      /* the arrows in joint order: a shaft (maybe) and a cone per one-DoF joint */
      int k = f->ngeom, checked = 0;
      for (int j = 0; j < f->njoint; j++) {
        const hg_fjoint *J = &f->joint[j];
        if (!(J->axis[0] || J->axis[1] || J->axis[2])) {
          if (J->type != HG_JOINT_FIXED) k++;
          continue;
        }
        double len = 0;
        if (dl.shape[k].type == HG_SHAPE_ARROW_SHAFT) len += dl.shape[k++].size[1];
        assert_int_equal(dl.shape[k].type, HG_GEOM_CONE);
        len += dl.shape[k++].size[1];
        double link = 0; /* the farthest point of the link's geometry from its frame */
        for (int g = 0; g < f->ngeom; g++)
          if (f->geom[g].body == J->body) {
            const hg_fgeom *G = &f->geom[g];
            double d = 0, r = G->type == HG_GEOM_CAPSULE ? G->size[0] + 0.5 * G->size[1]
                              : G->type == HG_GEOM_CYLINDER ? hypot(G->size[0], 0.5 * G->size[1]) : G->size[0];
            for (int i = 0; i < 3; i++) d += (G->pose.p[i] - f->body[J->body].pose.p[i]) * (G->pose.p[i] - f->body[J->body].pose.p[i]);
            link = fmax(link, sqrt(d) + r);
          }
        if (link > 0 && len > 1.5 * link && len > 1.2 * HG_GLYPH_MIN_PX * metres_per_px(&cam, J->frame.p) * 1.001)
          fail_msg("%s: joint %s's arrow is %g m, its link %g m", scenes[c], hg_frame_name(&h, J->name), len, link);
        checked++;
      }
      assert_true(checked >= 6);
      hg_draw_list_free(&dl);
    }
    hg_history_free(&h);
    hg_sim_free(sim);
    hg_scene_free(sc);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_framing_heatshield), cmocka_unit_test(test_framing_orbit),
      cmocka_unit_test(test_view_section),       cmocka_unit_test(test_framing_keeps_user_moves),
      cmocka_unit_test(test_glyph_pixels),
      cmocka_unit_test(test_glyph_scale_free),   cmocka_unit_test(test_joint_arrows_fit_links),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
