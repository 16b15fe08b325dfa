/* bench_render.c: frames per second of the viewer's renderer, offscreen at 1280 x 720 (SDL's
 * offscreen driver; on a machine without a GPU that is Mesa's llvmpipe), for every shipped scene
 * and a 100-body chain: with the default overlays, with all of them, with all of them and the HUD
 * with strip plots, all without multisampling (what the viewer uses on a software renderer), and
 * the default overlays with 4x multisampling (the viewer on a GPU, and hinge render's images). A frame is the draw list built from the
 * frame's views, drawn, the HUD drawn, and the result resolved and finished (glFinish). The
 * simulation is advanced to the middle of each scene first (its cost is not counted here; the
 * viewer's real-time factor shows it). Usage: bench_render [SCENES_DIR] [FRAMES] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "context.h"
#include "gl_render.h"
#include "hud.h"
#include "viewer.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* a chain of n capsule links on revolute joints with alternating axes, bent, under gravity */
static int write_chain(const char *path, int n) {
  FILE *f = fopen(path, "w");
  if (!f) return -1;
  fprintf(f, "title: %d-link chain\ngravity: [0, 0, -9.81]\nbodies:\n", n);
  for (int i = 1; i <= n; i++) {
    fprintf(f, "  - name: link%d\n", i);
    if (i > 1) fprintf(f, "    parent: link%d\n", i - 1);
    fprintf(f, "    joint: {type: revolute, axis: [%d, %d, 0], pos: [0, 0, %g]}\n", i % 2, 1 - i % 2,
            i == 1 ? 0.0 : -0.1);
    fprintf(f, "    inertia: {mass: 0.1, com: [0, 0, -0.05], inertia: [1e-4, 1e-4, 1e-5]}\n");
    fprintf(f, "    geometry:\n      - {type: capsule, radius: 0.012, length: 0.076, pos: [0, 0, -0.05], "
               "rgba: [%.2f, 0.55, 0.85, 1]}\n", 0.3 + 0.6 * i / n);
  }
  fprintf(f, "initial:\n  joints:\n");
  for (int i = 1; i <= n; i++) fprintf(f, "    link%d: {q: [0.05]}\n", i);
  fprintf(f, "time: {start: 0, end: 1}\noutput: {dt: 0.01, plots: false}\n");
  return fclose(f);
}

/* fps of one scene with these overlays; -1 on failure */
static double bench(hg_renderer *r, const char *path, int overlays, int frames, int hud) {
  hg_error e;
  hg_scene *sc = hg_scene_load(path, &e);
  if (!sc) return fprintf(stderr, "%s\n", e.msg), -1;
  hg_sim_options o;
  hg_sim_default_options(&o);
  hg_sim *sim = hg_sim_new(sc, &o, &e);
  if (!sim) return fprintf(stderr, "%s\n", e.msg), hg_scene_free(sc), -1;
  hg_history h;
  hg_history_init(&h, 256);
  double t0 = hg_sim_t_start(sim), t1 = hg_sim_t_end(sim);
  for (int k = 1; k <= 50; k++) { /* a history for the trails and plots */
    hg_sim_run(sim, t0 + 0.5 * (t1 - t0) * k / 50);
    hg_history_capture(&h, sim, sc);
  }
  const hg_frame *f = &h.frame[h.n - 1];
  hg_camera cam;
  hg_camera_default(&cam);
  double c[3], rad;
  hg_frame_bounds(f, c, &rad);
  hg_camera_fit(&cam, c, rad, 1280, 720);
  hg_draw_list dl;
  hg_draw_list_init(&dl);
  hg_draw_options d = {.overlays = overlays, .track = -1, .hist = &h, .frame_index = h.n - 1,
                       .cam = &cam, .width = 1280, .height = 720}; /* glyphs in pixels, as drawn */
  hg_hud_state s = {.title = sc->title, .speed = 1, .rtf = 1, .fps = 60, .live = 1, .overlays = overlays,
                    .t_start = t0, .t_end = t1, .plots = 1};
  double w0 = 0;
  for (int k = -5; k < frames; k++) { /* 5 frames to warm up */
    if (k == 0) w0 = now();
    hg_camera_orbit(&cam, 0.01, 0);
    hg_draw_list_build(&dl, f, &d);
    hg_renderer_draw(r, &dl, &cam, &h, HG_RENDER_SHADED);
    if (hud) hg_hud_draw(r, f, &h, h.n - 1, &s);
    hg_renderer_finish(r);
  }
  double fps = frames / (now() - w0);
  hg_draw_list_free(&dl);
  hg_history_free(&h);
  hg_sim_free(sim);
  hg_scene_free(sc);
  return fps;
}

int main(int argc, char **argv) {
  const char *dir = argc > 1 ? argv[1] : "scenes";
  int frames = argc > 2 ? atoi(argv[2]) : 60;
  static const char *const scenes[] = {"heatshield", "undock", "dock", "freeze_thaw",
                                       "pendulum",   "chain",  "humanoid", "release"};
  char err[512], path[512], chain[] = "/tmp/hinge_bench_chain100.yaml";
  hg_gl_context *ctx = hg_gl_context_new(1280, 720, 0, 1, "bench", err, sizeof err);
  hg_renderer *r = ctx ? hg_renderer_new(err, sizeof err) : NULL;
  if (!r || hg_renderer_resize(r, 1280, 720, 0)) return fprintf(stderr, "bench_render: %s\n", err), 1;
  printf("bench_render: 1280x720, %d frames each, renderer \"%s\"\n", frames, hg_renderer_gl_name());
  printf("%-22s %6s %9s %9s %9s %9s\n", "scene", "geoms", "default", "all", "all+HUD", "4xMSAA");
  for (int k = 0; k < (int)(sizeof scenes / sizeof scenes[0]) + 1; k++) {
    const char *name = k < 8 ? scenes[k] : "chain100 (generated)";
    if (k < 8) snprintf(path, sizeof path, "%s/%s.yaml", dir, scenes[k]);
    else if (write_chain(chain, 100)) return 1;
    const char *p = k < 8 ? path : chain;
    hg_renderer_resize(r, 1280, 720, 0);
    double a = bench(r, p, HG_OV_DEFAULT, frames, 0), b = bench(r, p, HG_OV_ALL, frames, 0);
    double c = bench(r, p, HG_OV_ALL, frames, 1);
    hg_renderer_resize(r, 1280, 720, 4);
    double d = bench(r, p, HG_OV_DEFAULT, frames, 0);
    hg_error e;
    hg_scene *sc = hg_scene_load(p, &e);
    hg_model *m = sc ? hg_builder_compile(sc->builder, &e) : NULL;
    printf("%-22s %6d %9.1f %9.1f %9.1f %9.1f\n", name, m ? m->ngeom : 0, a, b, c, d);
    fflush(stdout);
    if (m) hg_model_free(m);
    if (sc) hg_scene_free(sc);
  }
  remove(chain);
  hg_renderer_free(r);
  hg_gl_context_free(ctx);
  return 0;
}
