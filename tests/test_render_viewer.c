/* test_render_viewer.c: the interactive viewer driven by scripts, offscreen (render/viewer.h):
 * a scene that does not load shows its error inside the viewer, which stays up; reloading a
 * scene broken while the viewer runs keeps the viewer and the last simulation alive and shows
 * the message; a viewed run with pauses, steps, scrubbing and speed changes writes the same
 * trajectory.csv and events.csv, byte for byte, as a headless run.
 *
 * Runs in the tests folder (CTest's working directory): the scenes are ../scenes/NAME.yaml. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <stb_image.h>

#include "files.h"
#include "sims.h"
#include "viewer.h"

static void write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

/* pixels of the message colour (red text: r > 200, g and b < 140) in a PNG */
static int red_pixels(const char *path, int *bright) {
  int w, h, n;
  unsigned char *p = stbi_load(path, &w, &h, &n, 4);
  assert_non_null(p);
  int red = 0, lit = 0;
  for (int k = 0; k < w * h; k++) {
    const unsigned char *q = p + 4 * k;
    red += q[0] > 200 && q[1] < 140 && q[2] < 140;
    lit += q[0] + q[1] + q[2] > 200;
  }
  stbi_image_free(p);
  if (bright) *bright = lit;
  return red;
}

static const char *const good_scene =
    "title: one pendulum\n"
    "bodies:\n"
    "  - name: bob\n"
    "    joint: {type: revolute, axis: [0, 1, 0]}\n"
    "    inertia: {mass: 1, com: [0, 0, -1], inertia: [0.01, 0.01, 0.01]}\n"
    "    geometry:\n"
    "      - {type: sphere, radius: 0.2, pos: [0, 0, -1], rgba: [0.9, 0.9, 0.9, 1]}\n"
    "initial:\n"
    "  joints:\n"
    "    bob: {q: [0.5]}\n"
    "time: {start: 0, end: 2}\n";

static void test_broken_scene_at_start(void **state) {
  (void)state;
  char dir[256], scene[300], script[300], shot[300], text[1024], err[512];
  assert_int_equal(hg_test_temp_dir("viewer_broken", dir, sizeof dir), 0);
  snprintf(scene, sizeof scene, "%s/broken.yaml", dir);
  snprintf(script, sizeof script, "%s/script.txt", dir);
  snprintf(shot, sizeof shot, "%s/shot.png", dir);
  write_file(scene, "bodies:\n  - name: a\n    jiont: free\n");
  snprintf(text, sizeof text, "0.5 screenshot %s\n0.6 quit\n", shot);
  write_file(script, text);
  hg_viewer_options o;
  hg_viewer_default_options(&o);
  o.offscreen = 1, o.script = script, o.width = 640, o.height = 360;
  assert_int_equal(hg_viewer_run(scene, &o, err, sizeof err), 0);
  assert_true(red_pixels(shot, NULL) > 200); /* the message, a line of red text */
  hg_test_remove_dir(dir);
}

/* breaks the scene file once the first screenshot exists */
typedef struct breaker {
  const char *shot, *scene;
} breaker;

static void *break_scene(void *arg) {
  const breaker *b = arg;
  for (int k = 0; k < 20000 && access(b->shot, F_OK) != 0; k++) {
    struct timespec ts = {0, 1000000};
    nanosleep(&ts, NULL);
  }
  FILE *f = fopen(b->scene, "w");
  if (f) fputs("bodies: [\n", f), fclose(f);
  return NULL;
}

static void test_reload_broken_scene(void **state) {
  (void)state;
  char dir[256], scene[300], script[300], shot1[300], shot2[300], text[2048], err[512];
  assert_int_equal(hg_test_temp_dir("viewer_reload", dir, sizeof dir), 0);
  snprintf(scene, sizeof scene, "%s/pendulum.yaml", dir);
  snprintf(script, sizeof script, "%s/script.txt", dir);
  snprintf(shot1, sizeof shot1, "%s/before.png", dir);
  snprintf(shot2, sizeof shot2, "%s/after.png", dir);
  write_file(scene, good_scene);
  snprintf(text, sizeof text,
           "0.0 key space\n0.3 screenshot %s\n0.35 sleep 0.3\n0.4 key F5\n0.5 screenshot %s\n0.6 quit\n",
           shot1, shot2);
  write_file(script, text);
  breaker b = {shot1, scene};
  pthread_t th;
  assert_int_equal(pthread_create(&th, NULL, break_scene, &b), 0);
  hg_viewer_options o;
  hg_viewer_default_options(&o);
  o.offscreen = 1, o.script = script, o.width = 640, o.height = 360;
  int rc = hg_viewer_run(scene, &o, err, sizeof err);
  pthread_join(th, NULL);
  assert_int_equal(rc, 0);
  int lit1, lit2;
  assert_true(red_pixels(shot1, &lit1) < 50);
  assert_true(red_pixels(shot2, &lit2) > 200);
  assert_true(lit1 > 500 && lit2 > 500); /* the pendulum and the HUD are still drawn */
  hg_test_remove_dir(dir);
}

/* the same run headless and in the viewer with pauses, single steps, scrubbing back, replay and
 * speed changes: identical outputs */
static void test_viewed_run_writes_same_outputs(void **state) {
  (void)state;
  char da[256], db[256], script[300], p1[320], p2[320], err[512];
  assert_int_equal(hg_test_temp_dir("viewer_run_a", da, sizeof da), 0);
  assert_int_equal(hg_test_temp_dir("viewer_run_b", db, sizeof db), 0);
  hg_scene *sc = hg_test_shipped("dock");
  hg_test_run(sc, NAN, da);
  hg_scene_free(sc);
  snprintf(script, sizeof script, "%s/script.txt", db);
  write_file(script, "0.0 key =\n0.0 key =\n0.0 key =\n0.5 key space\n0.6 key Right\n0.7 key Right\n"
                     "0.8 key Left\n0.8 key Left\n0.8 key Left\n0.9 key space\n1.0 key PageDown\n"
                     "1.1 key Home\n1.2 key space\n1.3 key =\n1.3 key =\n1.3 key =\n1.5 click 400 690\n"
                     "1.6 key space\n2.0 quit\n");
  hg_viewer_options o;
  hg_viewer_default_options(&o);
  o.offscreen = 1, o.script = script, o.width = 800, o.height = 700, o.finish = 1;
  o.out.dir = db, o.out.plots = 0;
  assert_int_equal(hg_viewer_run("../scenes/dock.yaml", &o, err, sizeof err), 0);
  const char *files[2] = {"trajectory.csv", "events.csv"};
  for (int k = 0; k < 2; k++) {
    size_t la, lb;
    snprintf(p1, sizeof p1, "%s/%s", da, files[k]);
    snprintf(p2, sizeof p2, "%s/%s", db, files[k]);
    char *a = hg_test_read_file(p1, &la), *b = hg_test_read_file(p2, &lb);
    assert_non_null(a);
    assert_non_null(b);
    assert_int_equal(la, lb);
    assert_memory_equal(a, b, la);
    free(a), free(b);
  }
  hg_test_remove_dir(da);
  hg_test_remove_dir(db);
}

/* the camera key writes the camera in the --camera form, which reads back exactly */
static void test_saved_camera_reads_back(void **state) {
  (void)state;
  char dir[256], script[300], path[320], err[512];
  assert_int_equal(hg_test_temp_dir("viewer_camera", dir, sizeof dir), 0);
  snprintf(script, sizeof script, "%s/script.txt", dir);
  write_file(script, "0.1 key v\n0.2 quit\n");
  hg_viewer_options o;
  hg_viewer_default_options(&o);
  o.offscreen = 1, o.script = script, o.width = 320, o.height = 240, o.paused = 1;
  o.screenshot_dir = dir;
  o.has_camera = 1;
  assert_int_equal(hg_camera_parse("eye=3.25,-7.5,2.125 target=0.1,0.2,0.3 up=0,0,1 fov=37", &o.camera,
                                   err, sizeof err), 0);
  assert_int_equal(hg_viewer_run("../scenes/dock.yaml", &o, err, sizeof err), 0);
  snprintf(path, sizeof path, "%s/hinge-camera.txt", dir);
  size_t n;
  char *text = hg_test_read_file(path, &n);
  assert_non_null(text);
  hg_camera back = o.camera;
  back.fovy = 1, back.eye[0] = 0;
  assert_int_equal(hg_camera_parse(text, &back, err, sizeof err), 0);
  assert_memory_equal(back.eye, o.camera.eye, sizeof back.eye);
  assert_memory_equal(back.target, o.camera.target, sizeof back.target);
  assert_true(back.fovy == o.camera.fovy);
  free(text);
  hg_test_remove_dir(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_saved_camera_reads_back),
      cmocka_unit_test(test_broken_scene_at_start),
      cmocka_unit_test(test_reload_broken_scene),
      cmocka_unit_test(test_viewed_run_writes_same_outputs),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
