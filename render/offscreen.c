/* offscreen.c: `hinge render`: a scene rendered to PNG frames (and an MP4) with no display. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "context.h"
#include "framing.h"
#include "gl_render.h"
#include "hud.h"
#include "video.h"
#include "viewer.h"

void hg_render_default_options(hg_render_options *o) {
  memset(o, 0, sizeof *o);
  o->width = 1280, o->height = 720, o->fps = 30;
  o->t_start = o->t_end = o->time = NAN;
  hg_camera_default(&o->camera);
  o->overlays = HG_OV_DEFAULT;
  o->samples = 4;
  o->video = 1;
}

/* the frames of o->out as o->out/video.mp4 (video.h); 0, or 1 with err */
static int encode_video(const hg_render_options *o, char *err, size_t errlen) {
  char input[4200], output[4200], rate[32];
  snprintf(input, sizeof input, "%s/frame-%%05d.png", o->out);
  snprintf(output, sizeof output, "%s/video.mp4", o->out);
  snprintf(rate, sizeof rate, "%g", o->fps);
  char *in[] = {"-framerate", rate, "-i", input, NULL};
  pid_t pid;
  if (hg_video_spawn(in, output, -1, &pid) || hg_video_wait(pid))
    return snprintf(err, errlen, "ffmpeg failed to write %s", output), 1;
  return 0;
}


typedef struct render_job {
  const hg_render_options *o;
  hg_scene *sc;
  hg_sim *sim;
  hg_history hist;
  hg_draw_list dl;
  hg_gl_context *ctx;
  hg_renderer *r;
  hg_camera cam;
  hg_framing framing; /* the default camera (framing.h), the viewer's: on without --camera and
                         --track */
  int track;       /* string index of the tracked body, -1 none */
  double last[3];  /* its last position */
  int have_last;
} render_job;

/* draws the simulation's present state into the renderer */
static int draw_now(render_job *j) {
  hg_frame *f = hg_history_capture(&j->hist, j->sim, j->sc);
  if (!f) return -1;
  /* the default camera's clock is the simulated time: a render's cameras depend on the frames
   * and the frame rate alone */
  hg_framing_update(&j->framing, f, &j->cam, j->o->width, j->o->height, f->t);
  if (j->track >= 0) { /* follow the tracked body's translation */
    int b = hg_frame_body(f, j->track);
    if (b > 0) {
      if (j->have_last) {
        double d[3];
        for (int k = 0; k < 3; k++) d[k] = f->body[b].pose.p[k] - j->last[k];
        hg_camera_translate(&j->cam, d);
      }
      memcpy(j->last, f->body[b].pose.p, sizeof j->last);
      j->have_last = 1;
    }
  }
  hg_draw_options dopt = {.overlays = j->o->overlays, .track = -1, .hist = &j->hist,
                          .frame_index = j->hist.n - 1, .cam = &j->cam, .width = j->o->width,
                          .height = j->o->height};
  if (hg_draw_list_build(&j->dl, f, &dopt)) return -1;
  hg_renderer_draw(j->r, &j->dl, &j->cam, &j->hist, j->o->mode);
  if (j->o->overlays && j->o->mode == HG_RENDER_SHADED) {
    float ch = hg_hud_caption(j->r, j->sc->title ? j->sc->title : j->sc->path, f, &j->hist);
    if (j->o->overlays & HG_OV_ACTUATORS) { /* the control panel under the caption */
      int w, hh;
      hg_renderer_size(j->r, &w, &hh);
      hg_hud_control(j->r, f, &j->hist, 12, 12 + ch + 6, 0.6f * (float)hh - ch);
    }
  }
  return 0;
}

static void job_free(render_job *j) {
  hg_draw_list_free(&j->dl);
  hg_history_free(&j->hist);
  if (j->r) hg_renderer_free(j->r);
  if (j->ctx) hg_gl_context_free(j->ctx);
  if (j->sim) hg_sim_free(j->sim);
  if (j->sc) hg_scene_free(j->sc);
}

/* the frames; returns the status of hg_render_scene */
static int frames(render_job *j, char *err, size_t errlen) {
  const hg_render_options *o = j->o;
  int single = !isnan(o->time);
  double t0 = single ? o->time : isnan(o->t_start) ? hg_sim_t_start(j->sim) : o->t_start;
  double t1 = single ? o->time : isnan(o->t_end) ? hg_sim_t_end(j->sim) : fmin(o->t_end, hg_sim_t_end(j->sim));
  if (t0 < hg_sim_t_start(j->sim) || t0 > hg_sim_t_end(j->sim) || t1 < t0)
    return snprintf(err, errlen, "times %g .. %g are outside the scene's %g .. %g", t0, t1,
                    hg_sim_t_start(j->sim), hg_sim_t_end(j->sim)), 2;
  long nframe = single ? 1 : (long)floor((t1 - t0) * o->fps * (1 + 1e-12)) + 1;
  char path[4200];
  for (long k = 0; k < nframe; k++) {
    double t = t0 + (double)k / o->fps;
    int rc = hg_sim_run(j->sim, t);
    if (rc) return snprintf(err, errlen, "%s", hg_sim_error(j->sim)), 3;
    if (k == 0) {
      hg_frame *f = hg_history_capture(&j->hist, j->sim, j->sc);
      if (!f) return snprintf(err, errlen, "out of memory"), 1;
      /* --camera: fixed in the world; else the default camera, fitted now, which keeps the
       * bodies of interest in frame unless --track names the body to follow */
      hg_framing_init(&j->framing, j->sc, &j->hist);
      if (o->has_camera) j->cam = o->camera, j->framing.on = 0;
      else hg_framing_first_camera(&j->framing, j->sc, f, &j->cam, o->width, o->height, f->t);
      if (o->track) j->framing.on = 0;
      j->track = o->track ? hg_history_intern(&j->hist, o->track) : -1;
      if (o->track && hg_frame_body(f, j->track) < 0)
        return snprintf(err, errlen, "--track: no body named '%s'", o->track), 2;
    }
    if (draw_now(j)) return snprintf(err, errlen, "out of memory"), 1;
    if (single) snprintf(path, sizeof path, "%s", o->out);
    else snprintf(path, sizeof path, "%s/frame-%05ld.png", o->out, k);
    if (hg_renderer_write_png(j->r, path)) return snprintf(err, errlen, "cannot write %s", path), 1;
    if (o->log && !single && (k % 25 == 0 || k == nframe - 1))
      fprintf(o->log, "\rhinge render: frame %ld of %ld (t = %.3f s)", k + 1, nframe, t), fflush(o->log);
  }
  if (o->log && !single) fprintf(o->log, "\n");
  if (!single && o->video && hg_video_available() && encode_video(o, err, errlen)) return 1;
  if (!single && o->video && o->log && hg_video_available())
    fprintf(o->log, "hinge render: %s/video.mp4\n", o->out);
  return 0;
}

/* the commands of the command file at path (NULL: none) scheduled at their times, as hinge run
 * --commands does; 0, or -1 with err ("FILE:LINE: why") */
static int schedule_commands(render_job *j, const char *path, char *err, size_t errlen) {
  hg_command_list cl;
  hg_error e;
  if (!path) return 0;
  if (hg_commands_load(j->sc, path, &cl, &e)) return snprintf(err, errlen, "%s", e.msg), -1;
  int rc = 0;
  for (int k = 0; k < cl.n && !rc; k++)
    if ((rc = hg_sim_schedule(j->sim, &cl.cmd[k])))
      snprintf(err, errlen, "%s:%d: %s", path, cl.cmd[k].src.line, hg_sim_error(j->sim));
  hg_commands_free(&cl);
  return rc ? -1 : 0;
}

int hg_render_scene(const char *path, const hg_render_options *o, char *err, size_t errlen) {
  render_job j;
  hg_error e;
  memset(&j, 0, sizeof j);
  j.o = o;
  j.track = -1;
  if (o->width < 16 || o->height < 16 || o->width > 8192 || o->height > 8192 || !(o->fps > 0))
    return snprintf(err, errlen, "the size must be 16..8192 pixels and fps positive"), 2;
  if (!o->out) return snprintf(err, errlen, "--out is needed"), 2;
  if (!(j.sc = hg_scene_load(path, &e))) return snprintf(err, errlen, "%s", e.msg), 2;
  hg_sim_options so;
  hg_sim_default_options(&so);
  if (!(j.sim = hg_sim_new(j.sc, &so, &e))) {
    snprintf(err, errlen, "%s", e.msg);
    job_free(&j);
    return 2;
  }
  if (schedule_commands(&j, o->commands, err, errlen)) {
    job_free(&j);
    return 2;
  }
  if (isnan(o->time)) {
    struct stat st;
    mkdir(o->out, 0777);
    if (stat(o->out, &st) || !S_ISDIR(st.st_mode)) {
      snprintf(err, errlen, "cannot create the folder %s", o->out);
      job_free(&j);
      return 1;
    }
  }
  hg_history_init(&j.hist, 4096);
  hg_draw_list_init(&j.dl);
  if (!(j.ctx = hg_gl_context_new(o->width, o->height, 0, 1, "hinge render", err, errlen)) ||
      !(j.r = hg_renderer_new(err, errlen)) || hg_renderer_resize(j.r, o->width, o->height, o->samples)) {
    if (j.r) snprintf(err, errlen, "cannot make a %d x %d framebuffer", o->width, o->height);
    job_free(&j);
    return 1;
  }
  int rc = frames(&j, err, errlen);
  job_free(&j);
  return rc;
}
