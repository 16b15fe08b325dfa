/* test_render_core.c: the viewer's core without GL (render/camera.h, frame.h, drawlist.h):
 * projection and picking rays are inverse to each other; the camera text form reads back exactly;
 * orbit, zoom and fit keep what they promise; overlay lists parse; frames copy the simulation's
 * views; the viewer's way of stepping (stops only at output times) reproduces trajectory.csv bit
 * for bit; draw lists hold each body's geometry and each overlay's items; a ray through a body's
 * projected centre picks that body; a closed loop's glyph sits at its frame A in the closed
 * colour and turns to the open colour, with the gap drawn, when the loop is opened; frames keep
 * the actuators and controllers of their instant, and the actuators overlay draws a nozzle per
 * thruster, a plume along -dir as long as its level says for a firing one, and a gauge per wheel
 * filling with its speed (red from 90 % of max_speed, never for a saturated torque alone: the
 * ring turns orange); the command line completes actuator and controller words; frames keep
 * the sensors' poses and samples of their instant and the sensors overlay draws a glyph per
 * sensor at its frame (tests/data/scenes/sensor_bus.yaml).
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
#include "interact.h"
#include "sims.h"

static const double PI = 3.14159265358979323846;

/* the index of the lowest set bit */
static int ctz(int m) {
  int k = 0;
  while (m > 1 && !(m & 1)) m >>= 1, k++;
  return k;
}

static double dist3(const double a[3], const double b[3]) {
  return sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
}

/* the pixel a point projects to, and the ray back through that pixel, passes through the point
 * (to 1e-12 of the distance: double precision through one division and one normalization); also
 * 7,000 km from the origin */
static void test_project_ray_inverse(void **state) {
  (void)state;
  hg_camera c;
  hg_camera_default(&c);
  const double base[2][3] = {{0, 0, 0}, {7.0e6, -1.2e5, 3.3e5}};
  for (int b = 0; b < 2; b++) {
    for (int k = 0; k < 3; k++) c.eye[k] += base[b][k], c.target[k] += base[b][k];
    double x[3] = {base[b][0] + 0.3, base[b][1] - 0.2, base[b][2] + 0.4}, px[2], o[3], d[3];
    assert_int_equal(hg_camera_project(&c, 640, 480, x, px), 1);
    hg_camera_ray(&c, 640, 480, px[0], px[1], o, d);
    double s = 0, p[3];
    for (int k = 0; k < 3; k++) s += (x[k] - o[k]) * d[k];
    for (int k = 0; k < 3; k++) p[k] = o[k] + s * d[k];
    assert_true(dist3(p, x) < 1e-12 * (dist3(o, x) + 1) + (b ? 1e-9 * 7e6 : 0));
  }
  /* the target projects to the image centre; a point behind the eye does not project */
  hg_camera_default(&c);
  double px[2], behind[3];
  assert_int_equal(hg_camera_project(&c, 300, 200, c.target, px), 1);
  assert_true(fabs(px[0] - 150) < 1e-9 && fabs(px[1] - 100) < 1e-9);
  for (int k = 0; k < 3; k++) behind[k] = 2 * c.eye[k] - c.target[k];
  assert_int_equal(hg_camera_project(&c, 300, 200, behind, px), 0);
}

/* a point on the upper edge of the vertical field of view lands on row 0 */
static void test_fov(void **state) {
  (void)state;
  hg_camera c = {.eye = {0, 0, 0}, .target = {1, 0, 0}, .up = {0, 0, 1}, .fovy = 60};
  double x[3] = {1, 0, tan(30 * PI / 180)}, px[2];
  hg_camera_project(&c, 400, 300, x, px);
  assert_true(fabs(px[1]) < 1e-9 && fabs(px[0] - 200) < 1e-9);
  double y[3] = {1, -tan(30 * PI / 180), 0}; /* right of the view: +x pixels (y points left) */
  hg_camera_project(&c, 400, 300, y, px);
  assert_true(fabs(px[0] - 350) < 1e-9);
}

static void test_parse_format(void **state) {
  (void)state;
  hg_camera c, d;
  char err[256], buf[512];
  hg_camera_default(&c);
  assert_int_equal(hg_camera_parse("eye=1,2,3 target=0.1,0.2,-0.3 up=0,0,1 fov=33.3", &c, err, sizeof err), 0);
  assert_true(c.eye[1] == 2 && c.target[2] == -0.3 && c.fovy == 33.3);
  c.eye[0] = 1.0 / 3;
  hg_camera_format(&c, buf, sizeof buf);
  hg_camera_default(&d);
  assert_int_equal(hg_camera_parse(buf, &d, err, sizeof err), 0);
  assert_memory_equal(&c, &d, sizeof c);
  /* errors name what was expected and leave the camera alone */
  assert_int_equal(hg_camera_parse("eye=1,2", &d, err, sizeof err), -1);
  assert_non_null(strstr(err, "three numbers"));
  assert_int_equal(hg_camera_parse("fov=200", &d, err, sizeof err), -1);
  assert_int_equal(hg_camera_parse("lens=3", &d, err, sizeof err), -1);
  assert_non_null(strstr(err, "unknown camera key"));
  assert_int_equal(hg_camera_parse("eye=0,0,0 target=0,0,0", &d, err, sizeof err), -1);
  assert_memory_equal(&c, &d, sizeof c);
}

/* orbit and pan keep the distance to the target, zoom scales it, the pitch stops short of the
 * pole, fit makes the sphere touch the narrower side of the view */
static void test_motions(void **state) {
  (void)state;
  hg_camera c;
  hg_camera_default(&c);
  double d0 = dist3(c.eye, c.target);
  hg_camera_orbit(&c, 0.7, 0.3);
  assert_true(fabs(dist3(c.eye, c.target) - d0) < 1e-12 * d0);
  hg_camera_orbit(&c, 0, 10); /* far past the pole */
  double s[3], u[3], f[3];
  hg_camera_basis(&c, s, u, f);
  assert_true(f[2] < -0.99 && f[2] > -0.99999); /* 89 degrees down */
  hg_camera_pan(&c, 0.1, -0.2);
  assert_true(fabs(dist3(c.eye, c.target) - d0) < 1e-12 * d0);
  hg_camera_zoom(&c, 0.5);
  assert_true(fabs(dist3(c.eye, c.target) - 0.5 * d0) < 1e-12 * d0);
  hg_camera_default(&c);
  double centre[3] = {1, 2, 3}, px[2];
  hg_camera_fit(&c, centre, 2, 800, 400);
  assert_true(dist3(c.target, centre) < 1e-12);
  /* the sphere's silhouette spans 1/1.05 of the image height (the fit's margin) */
  double half = 22.5 * PI / 180, dist = dist3(c.eye, c.target);
  assert_true(fabs(dist - 2 / sin(half) * 1.05) < 1e-9);
  hg_camera_project(&c, 800, 400, centre, px);
  assert_true(fabs(px[0] - 400) < 1e-9 && fabs(px[1] - 200) < 1e-9);
  hg_camera_preset_view(&c, HG_VIEW_TOP);
  hg_camera_basis(&c, s, u, f);
  assert_true(fabs(f[2] + 1) < 1e-12 && fabs(u[1] - 1) < 1e-12);
}

static void test_overlay_parse(void **state) {
  (void)state;
  int m;
  char err[512];
  assert_int_equal(hg_overlay_parse("none", &m, err, sizeof err), 0);
  assert_int_equal(m, 0);
  assert_int_equal(hg_overlay_parse("frames,joints, pairs", &m, err, sizeof err), 0);
  assert_int_equal(m, HG_OV_FRAMES | HG_OV_JOINTS | HG_OV_PAIRS);
  assert_int_equal(hg_overlay_parse("all", &m, err, sizeof err), 0);
  assert_int_equal(m, HG_OV_ALL);
  assert_int_equal(hg_overlay_parse("frames,torques", &m, err, sizeof err), -1);
  assert_non_null(strstr(err, "'torques'"));
  assert_non_null(strstr(err, "momentum"));
  for (int k = 0; k < HG_OV_COUNT; k++) {
    assert_int_equal(hg_overlay_parse(hg_overlay_name(k), &m, err, sizeof err), 0);
    assert_int_equal(m, 1 << k);
  }
}

/* a frame holds the views: body poses as hg_sim_body gives them, geometry posed on its body */
static void test_frame_views(void **state) {
  (void)state;
  hg_scene *sc;
  hg_sim *sim = hg_test_shipped_at("dock", NAN, 3, &sc);
  hg_history h;
  hg_history_init(&h, 16);
  hg_frame *f = hg_history_capture(&h, sim, sc);
  assert_non_null(f);
  const hg_model *m = hg_sim_model(sim);
  assert_int_equal(f->nbody, m->nbody);
  assert_int_equal(f->ngeom, m->ngeom);
  for (int i = 1; i < m->nbody; i++) {
    hg_se3 T;
    double tw[6];
    hg_sim_body(sim, i, &T, tw);
    assert_memory_equal(&T, &f->body[i].pose, sizeof T);
    assert_string_equal(hg_frame_name(&h, f->body[i].name), m->body_name[i]);
  }
  for (int g = 0; g < m->ngeom; g++) {
    hg_se3 W;
    hg_se3_mul(&f->body[m->geom[g].body].pose, &m->geom[g].pose, &W);
    assert_memory_equal(&W, &f->geom[g].pose, sizeof W);
  }
  /* equivalent inertia box of the chaser (principal moments 300, 300, 200 about its com, mass
   * 800): extents sqrt(6 (I2 + I3 - I1) / m) = sqrt(6 * 200 / 800) for x and y, sqrt(6 * 400 / 800)
   * for z (to 1e-12: one Jacobi sweep on a diagonal tensor is exact) */
  int ch = hg_frame_body(f, hg_history_intern(&h, "chaser"));
  assert_true(ch > 0);
  double e[3] = {f->body[ch].box[0], f->body[ch].box[1], f->body[ch].box[2]};
  assert_true(fabs(e[0] - sqrt(1.5)) < 1e-12 && fabs(e[1] - sqrt(1.5)) < 1e-12 && fabs(e[2] - sqrt(3.0)) < 1e-12);
  hg_history_free(&h);
  hg_sim_free(sim);
  hg_scene_free(sc);
}

/* the viewer's stepping: stops only at output times t_start + k dt; every frame it keeps equals
 * the trajectory.csv row of its time, and the file equals that of an uninterrupted run */
static void test_history_matches_trajectory(void **state) {
  (void)state;
  char dir_a[256], dir_b[256], path[512];
  assert_int_equal(hg_test_temp_dir("render_a", dir_a, sizeof dir_a), 0);
  assert_int_equal(hg_test_temp_dir("render_b", dir_b, sizeof dir_b), 0);
  hg_scene *sc = hg_test_shipped("dock");
  hg_test_run(sc, 12, dir_a);
  hg_sim *b = hg_test_sim(sc, 12, dir_b);
  hg_history h;
  hg_history_init(&h, 4096);
  double dt = sc->output.dt;
  for (long k = 0; k * dt <= 12; k += 7) { /* stops every 7 rows, as a viewer at some speed */
    assert_int_equal(hg_sim_run(b, hg_sim_t_start(b) + (double)k * dt), HG_SIM_OK);
    assert_non_null(hg_history_capture(&h, b, sc));
  }
  assert_int_equal(hg_sim_run(b, INFINITY), HG_SIM_OK);
  assert_int_equal(hg_sim_finish(b), HG_SIM_OK);
  hg_sim_free(b);
  size_t la, lb;
  snprintf(path, sizeof path, "%s/trajectory.csv", dir_a);
  char *ta = hg_test_read_file(path, &la);
  snprintf(path, sizeof path, "%s/trajectory.csv", dir_b);
  char *tb = hg_test_read_file(path, &lb);
  assert_non_null(ta);
  assert_non_null(tb);
  assert_int_equal(la, lb);
  assert_memory_equal(ta, tb, la);
  /* each kept frame against its row: the columns chaser.x, .y, .z (found in the header),
   * written with %.17g: they read back exactly */
  int chaser = hg_history_intern(&h, "chaser"), checked = 0, cx = 0;
  for (const char *p = ta; *p && *p != '\n' && strncmp(p, "chaser.x,", 9) != 0; p++)
    if (*p == ',') cx++;
  assert_true(cx > 0 && cx + 3 < 200);
  for (char *row = strchr(ta, '\n') + 1; row && *row; row = strchr(row, '\n') ? strchr(row, '\n') + 1 : NULL) {
    double v[200];
    char *p = row;
    for (int c = 0; c <= cx + 2; c++) {
      v[c] = strtod(p, &p);
      if (*p == ',') p++;
    }
    int k = hg_history_find(&h, v[0]);
    if (h.frame[k].t != v[0]) continue;
    const hg_frame *f = &h.frame[k];
    int b2 = hg_frame_body(f, chaser);
    assert_true(b2 > 0);
    assert_true(f->body[b2].pose.p[0] == v[cx] && f->body[b2].pose.p[1] == v[cx + 1] &&
                f->body[b2].pose.p[2] == v[cx + 2]);
    checked++;
  }
  assert_true(checked == h.n);
  free(ta), free(tb);
  hg_history_free(&h);
  hg_scene_free(sc);
  hg_test_remove_dir(dir_a);
  hg_test_remove_dir(dir_b);
}

/* each overlay adds items to the draw list; with none only the bodies' geometry is there */
static void test_draw_list_overlays(void **state) {
  (void)state;
  static const struct { const char *scene; double t; int bit; } cases[] = {
      {"dock", 1, HG_OV_FRAMES},     {"dock", 1, HG_OV_JOINTS},   {"dock", 1, HG_OV_COM},
      {"dock", 1, HG_OV_MARKERS},    {"dock", 1, HG_OV_INERTIA},  {"undock", 1, HG_OV_WRENCHES},
      {"undock", 1, HG_OV_SPRINGS},  {"heatshield", 1, HG_OV_FORCES}, {"dock", 1, HG_OV_TRAILS},
      {"dock", 1, HG_OV_PAIRS},      {"dock", 1, HG_OV_MOMENTUM}};
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    hg_scene *sc;
    hg_sim *sim = hg_test_shipped_at(cases[c].scene, NAN, 0, &sc);
    hg_history h;
    hg_history_init(&h, 64);
    for (int k = 1; k <= 5; k++) { /* a few frames: trails need a past */
      assert_int_equal(hg_sim_run(sim, cases[c].t * k / 5), HG_SIM_OK);
      hg_history_capture(&h, sim, sc);
    }
    const hg_frame *f = &h.frame[h.n - 1];
    hg_draw_list dl;
    hg_draw_list_init(&dl);
    hg_draw_options o = {.overlays = 0, .track = -1, .hist = &h, .frame_index = h.n - 1};
    assert_int_equal(hg_draw_list_build(&dl, f, &o), 0);
    assert_int_equal(dl.nshape, f->ngeom);
    assert_int_equal(dl.nline + dl.nlabel, 0);
    for (int k = 0; k < dl.nshape; k++) assert_int_equal(dl.shape[k].id, f->geom[k].body + 1);
    o.overlays = cases[c].bit;
    assert_int_equal(hg_draw_list_build(&dl, f, &o), 0);
    int added = dl.nshape - f->ngeom + dl.nline + dl.nlabel;
    if (added <= 0) fail_msg("overlay %s adds nothing in %s", hg_overlay_name(ctz(cases[c].bit)), cases[c].scene);
    hg_draw_list_free(&dl);
    hg_history_free(&h);
    hg_sim_free(sim);
    hg_scene_free(sc);
  }
}

/* the ray through the projected origin of each body of the humanoid... picks a body whose
 * geometry that ray meets first; for the two spacecraft of the dock scene, each body's own */
static void test_pick(void **state) {
  (void)state;
  hg_scene *sc;
  hg_sim *sim = hg_test_shipped_at("dock", NAN, 0, &sc);
  hg_history h;
  hg_history_init(&h, 4);
  hg_frame *f = hg_history_capture(&h, sim, sc);
  hg_draw_list dl;
  hg_draw_list_init(&dl);
  hg_draw_options o = {.overlays = 0, .track = -1, .hist = &h};
  assert_int_equal(hg_draw_list_build(&dl, f, &o), 0);
  hg_camera c = {.eye = {12, 0, 0}, .target = {0, 0, 0}, .up = {0, 0, 1}, .fovy = 50};
  const char *names[2] = {"target", "chaser"};
  double pts[2][3] = {{0, 0, -2}, {0.008, 0, 2.95}}; /* inside each body's geometry */
  for (int k = 0; k < 2; k++) {
    double px[2], org[3], dir[3], d;
    hg_camera_project(&c, 640, 480, pts[k], px);
    hg_camera_ray(&c, 640, 480, px[0], px[1], org, dir);
    int b = hg_draw_pick(&dl, org, dir, &d);
    assert_true(b > 0);
    assert_string_equal(hg_frame_name(&h, f->body[b].name), names[k]);
  }
  double org[3] = {12, 0, 30}, dir[3] = {-1, 0, 0}; /* above everything */
  assert_int_equal(hg_draw_pick(&dl, org, dir, NULL), -1);
  hg_draw_list_free(&dl);
  hg_history_free(&h);
  hg_sim_free(sim);
  hg_scene_free(sc);
}

/* the viewer's ghosts of joint a1 of the seed-000 mechanism at q (+) eps e_k: each body's
 * geometry sits where setting that configuration (a 'set' command) actually puts it */
static void test_ghosts_where_set_puts_them(void **state) {
  (void)state;
  hg_scene *sc;
  hg_sim *sim = hg_test_shipped_at("freeze_thaw", NAN, 0.5, &sc);
  hg_history h;
  hg_draw_list dl;
  hg_interact ia;
  hg_history_init(&h, 16);
  hg_draw_list_init(&dl);
  hg_interact_init(&ia);
  const hg_model *m = hg_sim_model(sim);
  int a1 = hg_model_joint(m, "a1");
  assert_true(a1 > 0);
  ia.ghost_dof = m->v_adr[a1], ia.ghost_k = 2, ia.ghost_eps = 0.2;
  const hg_frame *f = hg_history_capture(&h, sim, sc);
  assert_non_null(f);
  assert_int_equal(hg_interact_ghosts(&ia, sim, &dl, f), 0);
  hg_frame before; /* the capture after the set replaces f (the same instant) */
  assert_int_equal(hg_frame_copy(&before, f), 0);
  f = &before;
  char cmd[128];
  hg_command c;
  hg_error err;
  snprintf(cmd, sizeof cmd, "set a1 {q: [%.17g]}", hg_sim_q(sim)[m->q_adr[a1]] + 0.2);
  if (hg_sim_parse_command(sim, cmd, &c, &err)) fail_msg("%s", err.msg);
  assert_int_equal(hg_sim_command(sim, &c), HG_SIM_OK);
  hg_command_free(&c);
  const hg_frame *g = hg_history_capture(&h, sim, sc);
  /* only the geometry that moves is drawn (a1's subtree): a ghost over a body that stays would
   * wash out its colour */
  int nmove = 0;
  for (int k = 0; k < g->ngeom; k++) nmove += dist3(g->geom[k].pose.p, f->geom[k].pose.p) > 1e-9;
  assert_true(nmove > 0 && nmove < f->ngeom);
  assert_int_equal(dl.nshape, 2 * ia.ghost_k * nmove);
  /* k = +1 is the third block (k = -2, -1, +1, +2), the moving geometry in its order */
  const hg_draw_shape *ghost = dl.shape + 2 * nmove;
  double worst = 0;
  for (int k = 0, j = 0; k < g->ngeom; k++) {
    if (!(dist3(g->geom[k].pose.p, f->geom[k].pose.p) > 1e-9)) continue;
    worst = fmax(worst, dist3(ghost[j].pose.p, g->geom[k].pose.p));
    for (int r = 0; r < 9; r++) worst = fmax(worst, fabs(ghost[j].pose.R[r] - g->geom[k].pose.R[r]));
    j++;
  }
  printf("# ghosts of a1 at +0.2 rad against the set state: %.2g (%d of %d shapes move)\n", worst,
         nmove, f->ngeom);
  assert_true(worst <= 1e-12); /* two compositions of the same poses: round-off */
  hg_frame_free(&before);
  hg_draw_list_free(&dl);
  hg_history_free(&h);
  hg_sim_free(sim);
  hg_scene_free(sc);
}

/* a linearization mode (modes.csv) as the ghost direction, animated at its frequency: a quarter
 * period in, the one ghost is the mechanism at q (+) eps delta; a file that is not modes.csv is
 * FILE:LINE */
static void test_mode_ghosts(void **state) {
  (void)state;
  char dir[256], path[300], err[512];
  assert_int_equal(hg_test_temp_dir("modes", dir, sizeof dir), 0);
  snprintf(path, sizeof path, "%s/modes.csv", dir);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs("mode,re,im,omega_n,freq_hz,damping,a1.dq0,a1.dq0.im\n1,0,6.28,6.28,2,0,1,0\n", f);
  fclose(f);
  hg_scene *sc;
  hg_sim *sim = hg_test_shipped_at("freeze_thaw", NAN, 0.1, &sc);
  hg_interact ia;
  hg_interact_init(&ia);
  assert_int_equal(hg_interact_ghost_mode(&ia, sim, path, 2, err, sizeof err), -1);
  assert_non_null(strstr(err, "no mode 2"));
  assert_int_equal(hg_interact_ghost_mode(&ia, sim, path, 1, err, sizeof err), 0);
  const hg_model *m = hg_sim_model(sim);
  int a1 = hg_model_joint(m, "a1");
  assert_true(ia.ghost_delta[m->v_adr[a1]] == 1 && ia.ghost_hz == 2);
  hg_history h;
  hg_draw_list dl;
  hg_history_init(&h, 4);
  hg_draw_list_init(&dl);
  const hg_frame *fr = hg_history_capture(&h, sim, sc);
  ia.ghost_eps = 0.3, ia.ghost_clock = 0.125; /* a quarter of a 2 Hz period */
  assert_int_equal(hg_interact_ghosts(&ia, sim, &dl, fr), 0);
  const hg_se3 *T = hg_sim_ghost(sim, ia.ghost_delta, 0.3);
  /* one ghost, of the geometry that moves (a1's subtree); the shape of a1's first geometry */
  int g = 0, nmove = 0, at = -1;
  for (int k = 0; k < fr->ngeom; k++) {
    const hg_se3 *A = &T[fr->geom[k].body], *B = &fr->body[fr->geom[k].body].pose;
    double d = dist3(A->p, B->p);
    for (int r = 0; r < 9; r++) d = fmax(d, fabs(A->R[r] - B->R[r]));
    if (!(d > 1e-12)) continue;
    if (at < 0 && fr->geom[k].body == a1) at = nmove, g = k;
    nmove++;
  }
  assert_true(at >= 0 && nmove < fr->ngeom);
  assert_int_equal(dl.nshape, nmove);
  hg_se3 inv, rel, want;
  hg_se3_inv(&fr->body[a1].pose, &inv);
  hg_se3_mul(&inv, &fr->geom[g].pose, &rel);
  hg_se3_mul(&T[a1], &rel, &want);
  assert_true(dist3(want.p, dl.shape[at].pose.p) <= 1e-12);
  snprintf(path, sizeof path, "%s/not.csv", dir);
  f = fopen(path, "w");
  fputs("time,x\n0,1\n", f);
  fclose(f);
  assert_int_equal(hg_interact_ghost_mode(&ia, sim, path, 1, err, sizeof err), -1);
  assert_non_null(strstr(err, "not.csv:1: expected the header of hinge linearize's modes.csv"));
  /* hinge linearize names the shape's entries as its states, JOINT.q.NAME */
  snprintf(path, sizeof path, "%s/named.csv", dir);
  f = fopen(path, "w");
  fputs("mode,re,im,omega_n,freq_hz,damping,a1.q.angle,a1.q.angle.im\n1,0,6.28,6.28,2,0,0.5,0\n", f);
  fclose(f);
  assert_int_equal(hg_interact_ghost_mode(&ia, sim, path, 1, err, sizeof err), 0);
  assert_true(ia.ghost_delta[m->v_adr[a1]] == 0.5);
  hg_interact_free(&ia);
  hg_draw_list_free(&dl);
  hg_history_free(&h);
  hg_sim_free(sim);
  hg_scene_free(sc);
  hg_test_remove_dir(dir);
}

/* the loop glyph of frame f: the shape at loop k's frame A in one of the loop colours (NULL when
 * none) */
static const hg_draw_shape *loop_glyph(const hg_draw_list *dl, const hg_frame *f, int k) {
  for (int i = 0; i < dl->nshape; i++) {
    const hg_draw_shape *s = &dl->shape[i];
    if (dist3(s->pose.p, f->loop[k].frame_a.p) < 1e-12 &&
        (!memcmp(s->rgba, hg_loop_closed_rgba, sizeof s->rgba) || !memcmp(s->rgba, hg_loop_open_rgba, sizeof s->rgba)))
      return s;
  }
  return NULL;
}

/* the four-bar's revolute loop: captured with its frames on the markers, drawn as a disc along
 * z in the closed colour; a preview of 'open' and 'close' changes nothing (it previews mode
 * switches only) and does not fail; after 'open pin_c' the disc is grey and a dashed line shows
 * the gap; the loops overlay off draws none of it */
static void test_loop_glyph(void **state) {
  (void)state;
  hg_scene *sc = hg_test_scene("data/scenes/fourbar.yaml");
  hg_sim *sim = hg_test_sim(sc, NAN, NULL);
  assert_int_equal(hg_sim_run(sim, 0.05), HG_SIM_OK);
  hg_history h;
  hg_history_init(&h, 16);
  hg_frame *f = hg_history_capture(&h, sim, sc);
  assert_non_null(f);
  assert_int_equal(f->nloop, 1);
  assert_string_equal(hg_frame_name(&h, f->loop[0].name), "pin_c");
  assert_string_equal(hg_frame_name(&h, f->loop[0].type), "revolute");
  assert_true(f->loop[0].present && f->loop[0].active);
  for (int k = 0; k < hg_sim_nmarker(sim); k++) {
    hg_sim_marker_view mv;
    hg_sim_marker(sim, k, &mv);
    if (!strcmp(mv.name, "coupler_tip")) assert_true(dist3(mv.pose.p, f->loop[0].frame_a.p) < 1e-12);
    if (!strcmp(mv.name, "rocker_tip")) assert_true(dist3(mv.pose.p, f->loop[0].frame_b.p) < 1e-12);
  }
  hg_draw_list dl;
  hg_draw_list_init(&dl);
  hg_draw_options o = {.overlays = HG_OV_LOOPS, .track = -1, .hist = &h, .frame_index = h.n - 1};
  assert_int_equal(hg_draw_list_build(&dl, f, &o), 0);
  const hg_draw_shape *g = loop_glyph(&dl, f, 0);
  assert_non_null(g);
  assert_int_equal(g->type, HG_GEOM_CYLINDER);
  assert_memory_equal(g->rgba, hg_loop_closed_rgba, sizeof g->rgba);
  assert_true(fabs(fabs(g->pose.R[8]) - 1) < 1e-9); /* its axis (the third column) is z */
  assert_int_equal(dl.nline, 0);
  /* previews of open and of closing the closed loop: the loop's velocities already fit it, so
   * neither removes energy (to round-off of the kinetic energy), and the state is unchanged */
  const char *verbs[2] = {"open pin_c", "close pin_c"};
  double q0 = hg_sim_q(sim)[0], v0 = hg_sim_v(sim)[0];
  for (int k = 0; k < 2; k++) {
    hg_command cmd;
    hg_error err;
    hg_sim_preview_view pv;
    assert_int_equal(hg_sim_parse_command(sim, verbs[k], &cmd, &err), 0);
    assert_int_equal(hg_sim_preview(sim, &cmd, &pv), 0);
    assert_true(fabs(pv.energy_removed) <= 1e-12);
    hg_command_free(&cmd);
  }
  assert_true(hg_sim_q(sim)[0] == q0 && hg_sim_v(sim)[0] == v0);
  hg_interact ia;
  hg_interact_init(&ia);
  snprintf(ia.line, sizeof ia.line, "open pin");
  hg_interact_complete(&ia, sim);
  assert_string_equal(ia.line, "open pin_c ");
  assert_int_equal(hg_interact_apply(&ia, sim, "open pin_c"), 0);
  hg_interact_free(&ia);
  assert_int_equal(hg_sim_run(sim, 0.3), HG_SIM_OK);
  f = hg_history_capture(&h, sim, sc);
  assert_false(f->loop[0].active);
  assert_true(f->loop[0].wrench[3] == 0 && f->loop[0].wrench[4] == 0 && f->loop[0].wrench[5] == 0);
  o.overlays = HG_OV_LOOPS | HG_OV_WRENCHES;
  assert_int_equal(hg_draw_list_build(&dl, f, &o), 0);
  g = loop_glyph(&dl, f, 0);
  assert_non_null(g);
  assert_memory_equal(g->rgba, hg_loop_open_rgba, sizeof g->rgba);
  assert_int_equal(dl.nline, 8); /* the gap, dashed */
  assert_int_equal(dl.nlabel, 0); /* no wrench at an open loop */
  o.overlays = HG_OV_DEFAULT & ~HG_OV_LOOPS;
  assert_int_equal(hg_draw_list_build(&dl, f, &o), 0);
  assert_null(loop_glyph(&dl, f, 0));
  hg_draw_list_free(&dl);
  hg_history_free(&h);
  hg_sim_free(sim);
  hg_scene_free(sc);
}

/* the shapes of a draw list of one type and colour */
static int count_shapes(const hg_draw_list *dl, int type, const float *rgba) {
  int n = 0;
  for (int k = 0; k < dl->nshape; k++)
    n += dl->shape[k].type == type && (!rgba || !memcmp(dl->shape[k].rgba, rgba, 4 * sizeof(float)));
  return n;
}

/* the lines of a draw list of one colour */
static int count_lines(const hg_draw_list *dl, const float *rgba) {
  int n = 0;
  for (int k = 0; k < dl->nline; k++) n += !memcmp(dl->line[k].rgba, rgba, 4 * sizeof(float));
  return n;
}

/* the flame (outer plume cone) whose apex is nearest p, or NULL */
static const hg_draw_shape *flame_near(const hg_draw_list *dl, const double p[3]) {
  const hg_draw_shape *best = NULL;
  for (int k = 0; k < dl->nshape; k++) {
    const hg_draw_shape *s = &dl->shape[k];
    if (s->type != HG_GEOM_CONE || memcmp(s->rgba, hg_plume_rgba, sizeof s->rgba)) continue;
    double a[3], b[3];
    for (int i = 0; i < 3; i++) a[i] = s->pose.p[i] + s->size[1] * s->pose.R[3 * i + 2];
    if (best)
      for (int i = 0; i < 3; i++) b[i] = best->pose.p[i] + best->size[1] * best->pose.R[3 * i + 2];
    if (!best || dist3(a, p) < dist3(b, p)) best = s;
  }
  return best;
}

static void test_control_glyphs(void **state) {
  (void)state;
  hg_scene *sc = hg_test_scene("data/scenes/adcs_bus.yaml");
  hg_sim *sim = hg_test_sim(sc, NAN, NULL);
  assert_int_equal(hg_sim_run(sim, 0.1), HG_SIM_OK);
  hg_history h;
  hg_history_init(&h, 16);
  hg_frame *f = hg_history_capture(&h, sim, sc);
  assert_non_null(f);
  assert_int_equal(f->nact, 8);
  assert_int_equal(f->nctl, 1);
  assert_string_equal(hg_frame_name(&h, f->ctl[0].name), "adcs");
  assert_string_equal(hg_frame_name(&h, f->ctl[0].telemetry), "pointing_error");
  assert_true(f->ctl[0].enabled && f->ctl[0].value > 1); /* 20 degrees off at the start */
  double level[4] = {0}, speed[4] = {0};
  for (int k = 0; k < f->nact; k++) {
    const hg_fact *A = &f->act[k];
    const char *name = hg_frame_name(&h, A->name);
    hg_sim_actuator_view av;
    hg_sim_actuator(sim, k, &av);
    assert_string_equal(name, av.name);
    assert_true(A->present && A->body == 1);
    assert_true(dist3(A->point, av.point) < 1e-12);
    if (A->type == HG_ACT_THRUSTER) level[name[1] - '1'] = A->level;
    if (A->type == HG_ACT_WHEEL) {
      speed[name[2] - '1'] = A->speed;
      assert_true(A->max_speed == 400);
    }
  }
  assert_true(level[0] == 1 && fabs(level[2] - 0.5) < 1e-12 && level[1] == 0 && level[3] == 0);
  assert_true(fabs(speed[0] - 50) < 1 && fabs(speed[3] - 380) < 1);
  /* the overlay: four nozzles and two flames with their cores; gauges of 6, 12, 24 and 46 of 48
   * segments (12.5, 25, 50 and 95 % of max_speed) */
  hg_draw_list dl;
  hg_draw_list_init(&dl);
  hg_draw_options o = {.overlays = HG_OV_ACTUATORS, .track = -1, .hist = &h, .frame_index = h.n - 1};
  assert_int_equal(hg_draw_list_build(&dl, f, &o), 0);
  assert_int_equal(count_shapes(&dl, HG_GEOM_CONE, NULL), 8);
  assert_int_equal(count_shapes(&dl, HG_GEOM_CONE, hg_plume_rgba), 2);
  assert_int_equal(count_shapes(&dl, HG_GEOM_CONE, hg_plume_core_rgba), 2);
  assert_int_equal(count_shapes(&dl, HG_GEOM_CAPSULE, hg_gauge_rgba), 6 + 12 + 24);
  assert_int_equal(count_shapes(&dl, HG_GEOM_CAPSULE, hg_gauge_high_rgba), 46);
  double len[2];
  for (int k = 0, t = 0; k < f->nact; k++) {
    const hg_fact *A = &f->act[k];
    if (A->type != HG_ACT_THRUSTER || !(A->level > 0)) continue;
    const hg_draw_shape *fl = flame_near(&dl, A->point);
    assert_non_null(fl);
    /* it widens along -dir: its axis (the cone's z, the third column) along dir, from its base
     * downstream to its apex at the nozzle's exit, just below the point */
    const double *z = (double[3]){fl->pose.R[2], fl->pose.R[5], fl->pose.R[8]};
    double apex[3], below[3];
    for (int i = 0; i < 3; i++)
      apex[i] = fl->pose.p[i] + fl->size[1] * z[i], below[i] = A->point[i] - fl->size[1] * A->dir[i];
    assert_true(z[0] * A->dir[0] + z[1] * A->dir[1] + z[2] * A->dir[2] > 1 - 1e-9);
    assert_true(dist3(apex, A->point) < 0.2 && dist3(fl->pose.p, below) < 0.2);
    len[t++] = fl->size[1];
  }
  assert_true(len[0] > 1.5 * len[1]); /* t1 at full level, t3 at half */
  /* a wheel held at its torque limit at 12 % of max_speed: its gauge stays cyan (red says the
   * speed, from 90 % on), its ring and axis turn orange (48 segments and the axis line); rw4 at
   * 95 % stays red */
  for (int k = 0; k < f->nact; k++) f->act[k].saturated = 0;
  assert_int_equal(hg_draw_list_build(&dl, f, &o), 0);
  assert_int_equal(count_lines(&dl, hg_wheel_ring_sat_rgba), 0);
  for (int k = 0; k < f->nact; k++)
    if (!strcmp(hg_frame_name(&h, f->act[k].name), "rw1")) f->act[k].saturated = 1;
  assert_int_equal(hg_draw_list_build(&dl, f, &o), 0);
  assert_int_equal(count_shapes(&dl, HG_GEOM_CAPSULE, hg_gauge_rgba), 6 + 12 + 24);
  assert_int_equal(count_shapes(&dl, HG_GEOM_CAPSULE, hg_gauge_high_rgba), 46);
  assert_int_equal(count_lines(&dl, hg_wheel_ring_sat_rgba), 48 + 1);
  /* off: none of it */
  o.overlays = HG_OV_DEFAULT & ~HG_OV_ACTUATORS;
  assert_int_equal(hg_draw_list_build(&dl, f, &o), 0);
  assert_int_equal(count_shapes(&dl, HG_GEOM_CONE, hg_plume_rgba), 0);
  assert_int_equal(count_shapes(&dl, HG_GEOM_CAPSULE, hg_gauge_high_rgba), 0);
  /* the command line: completion of the control words and names */
  hg_interact ia;
  hg_interact_init(&ia);
  static const char *const cases[][3] = {
      {"contr", "controller ", ""},
      {"controller ad", "controller adcs ", ""},
      {"controller adcs o", "controller adcs o", "on  off"},
      {"controller adcs of", "controller adcs off ", ""},
      {"set_gain adcs k", "set_gain adcs k", "kp  kd"},
      {"set_gain adcs max_t", "set_gain adcs max_torque ", ""},
      {"actuate rw", "actuate rw", "rw1  rw2  rw3  rw4"},
      {"actuate t3", "actuate t3 ", ""},
      {"lock rw4", "lock rw4 ", ""}, /* a wheel's joint is named as the wheel */
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    snprintf(ia.line, sizeof ia.line, "%s", cases[k][0]);
    hg_interact_complete(&ia, sim);
    assert_string_equal(ia.line, cases[k][1]);
    assert_string_equal(ia.result, cases[k][2]);
  }
  /* a controller switched off: the new frame says so, the earlier one keeps its state */
  assert_int_equal(hg_interact_apply(&ia, sim, "controller adcs off"), 0);
  assert_non_null(strstr(ia.result, "controller adcs off"));
  hg_interact_free(&ia);
  assert_int_equal(hg_sim_run(sim, 0.2), HG_SIM_OK);
  f = hg_history_capture(&h, sim, sc);
  assert_false(f->ctl[0].enabled);
  assert_true(h.frame[0].ctl[0].enabled);
  hg_frame copy;
  assert_int_equal(hg_frame_copy(&copy, &h.frame[0]), 0);
  assert_true(copy.nact == 8 && copy.act[0].name == h.frame[0].act[0].name && copy.ctl[0].enabled);
  hg_frame_free(&copy);
  hg_draw_list_free(&dl);
  hg_history_free(&h);
  hg_sim_free(sim);
  hg_scene_free(sc);
}

/* the shapes of a draw list of one type whose colour is rgb (any alpha) */
static int count_rgb(const hg_draw_list *dl, int type, const float *rgb) {
  int n = 0;
  for (int k = 0; k < dl->nshape; k++)
    n += dl->shape[k].type == type && !memcmp(dl->shape[k].rgba, rgb, 3 * sizeof(float));
  return n;
}

/* the first line of a draw list of colour rgba, or NULL */
static const hg_draw_line *line_of(const hg_draw_list *dl, const float *rgba) {
  for (int k = 0; k < dl->nline; k++)
    if (!memcmp(dl->line[k].rgba, rgba, 4 * sizeof(float))) return &dl->line[k];
  return NULL;
}

/* frames keep each sensor's pose, valid flag and value of their instant; the sensors overlay
 * draws one glyph per sensor in its colour, at its frame: a tracker's baffle (dimmed after a
 * dropout), a sun sensor's plate and its line along the measured sun direction in the world
 * (none, and a dim plate, once the sun has left its view), an IMU's cube, an encoder's ring of
 * 16 ticks, a force/torque sensor's disc */
static void test_sensor_glyphs(void **state) {
  (void)state;
  hg_scene *sc = hg_test_scene("data/scenes/sensor_bus.yaml");
  hg_sim *sim = hg_test_sim(sc, NAN, NULL);
  assert_int_equal(hg_sim_run(sim, 0.2), HG_SIM_OK);
  hg_history h;
  hg_history_init(&h, 16);
  hg_frame *f = hg_history_capture(&h, sim, sc);
  assert_non_null(f);
  assert_int_equal(f->nsens, 6);
  static const char *const names[6] = {"st_top", "st_dark", "sun", "imu", "enc", "ft"};
  static const char *const marker[6] = {"top", "side", "sun_face", "imu_mount", NULL, NULL};
  for (int k = 0; k < 6; k++) {
    const hg_fsens *S = &f->sens[k];
    assert_string_equal(hg_frame_name(&h, S->name), names[k]);
    assert_true(S->present && S->sampled);
    assert_int_equal(S->body, k < 4 ? 1 : 2);
    assert_int_equal(S->joint, k < 4 ? -1 : 1);
    for (int m = 0; marker[k] && m < f->nmarker; m++)
      if (!strcmp(hg_frame_name(&h, f->marker[m].name), marker[k]))
        assert_true(dist3(S->pose.p, f->marker[m].pose.p) < 1e-12);
    if (!marker[k]) assert_true(dist3(S->pose.p, f->body[2].pose.p) < 1e-12);
  }
  assert_true(f->sens[0].valid && !f->sens[1].valid && f->sens[2].valid);
  hg_draw_list dl;
  hg_draw_list_init(&dl);
  hg_draw_options o = {.overlays = HG_OV_SENSORS, .track = -1, .hist = &h, .frame_index = h.n - 1};
  assert_int_equal(hg_draw_list_build(&dl, f, &o), 0);
  assert_int_equal(count_rgb(&dl, HG_GEOM_CONE, hg_tracker_rgba), 1);
  assert_int_equal(count_rgb(&dl, HG_GEOM_CONE, hg_sensor_dim_rgba), 1);
  assert_int_equal(count_shapes(&dl, HG_GEOM_BOX, hg_sun_sensor_rgba), 1);
  assert_int_equal(count_shapes(&dl, HG_GEOM_BOX, hg_imu_rgba), 1);
  assert_int_equal(count_shapes(&dl, HG_GEOM_CYLINDER, hg_ft_rgba), 1);
  assert_int_equal(count_lines(&dl, hg_encoder_rgba), 16);
  /* the valid tracker's baffle opens along its boresight (+z of its frame: up) from its frame */
  for (int k = 0; k < dl.nshape; k++) {
    const hg_draw_shape *c = &dl.shape[k];
    if (c->type != HG_GEOM_CONE || memcmp(c->rgba, hg_tracker_rgba, sizeof c->rgba)) continue;
    double apex[3];
    for (int i = 0; i < 3; i++) apex[i] = c->pose.p[i] + c->size[1] * c->pose.R[3 * i + 2];
    assert_true(dist3(apex, f->sens[0].pose.p) < 1e-9);
    assert_true(c->pose.p[2] > apex[2] + 0.5 * c->size[1]);
  }
  /* the sun line from the plate along the sun (+x in the world): the measured direction, in the
   * sensor's axes, rotated by the sensor's pose */
  const hg_draw_line *l = line_of(&dl, hg_sun_sensor_rgba);
  assert_non_null(l);
  double d[3] = {l->b[0] - l->a[0], l->b[1] - l->a[1], l->b[2] - l->a[2]};
  double n = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  printf("# sun line from %.3g m off the plate, along (%.6f %.6f %.6f)\n",
         dist3(l->a, f->sens[2].pose.p), d[0] / n, d[1] / n, d[2] / n);
  /* (the sample held may be one period old: the bus turned 0.6 rad/s x 0.1 s since) */
  assert_true(dist3(l->a, f->sens[2].pose.p) < 1e-12 && d[0] / n > cos(0.061));
  /* one second in: the sun out of the sensor's 20-degree view, a dim plate and no line; the
   * earlier frame (replay) keeps its valid sample */
  assert_int_equal(hg_sim_run(sim, 1.0), HG_SIM_OK);
  f = hg_history_capture(&h, sim, sc);
  assert_false(f->sens[2].valid);
  assert_true(h.frame[0].sens[2].valid);
  assert_int_equal(hg_draw_list_build(&dl, f, &o), 0);
  assert_int_equal(count_shapes(&dl, HG_GEOM_BOX, hg_sun_sensor_rgba), 0);
  assert_int_equal(count_shapes(&dl, HG_GEOM_BOX, hg_sensor_dim_rgba), 1);
  assert_null(line_of(&dl, hg_sun_sensor_rgba));
  o.frame_index = 0;
  assert_int_equal(hg_draw_list_build(&dl, &h.frame[0], &o), 0);
  assert_non_null(line_of(&dl, hg_sun_sensor_rgba));
  hg_frame copy;
  assert_int_equal(hg_frame_copy(&copy, &h.frame[0]), 0);
  assert_true(copy.nsens == 6 && copy.sens[2].valid);
  assert_true(copy.sens[2].name == h.frame[0].sens[2].name);
  hg_frame_free(&copy);
  /* off: none of it */
  o.overlays = HG_OV_ALL & ~HG_OV_SENSORS;
  assert_int_equal(hg_draw_list_build(&dl, f, &o), 0);
  assert_int_equal(count_rgb(&dl, HG_GEOM_CONE, hg_tracker_rgba), 0);
  assert_int_equal(count_lines(&dl, hg_encoder_rgba), 0);
  hg_draw_list_free(&dl);
  hg_history_free(&h);
  hg_sim_free(sim);
  hg_scene_free(sc);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_project_ray_inverse), cmocka_unit_test(test_fov),
      cmocka_unit_test(test_parse_format),        cmocka_unit_test(test_motions),
      cmocka_unit_test(test_overlay_parse),       cmocka_unit_test(test_frame_views),
      cmocka_unit_test(test_history_matches_trajectory), cmocka_unit_test(test_draw_list_overlays),
      cmocka_unit_test(test_pick), cmocka_unit_test(test_ghosts_where_set_puts_them),
      cmocka_unit_test(test_mode_ghosts), cmocka_unit_test(test_loop_glyph),
      cmocka_unit_test(test_control_glyphs), cmocka_unit_test(test_sensor_glyphs),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
