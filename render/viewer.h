/* viewer.h: the viewer's entry points: offscreen rendering of a scene to images and video, and
 * the interactive SDL2 viewer (docs/viewer.md). Both run the scene with the simulation library
 * (sim.h) and draw what its views show; neither changes the trajectory. */
#ifndef HINGE_RENDER_VIEWER_H
#define HINGE_RENDER_VIEWER_H

#include <stdio.h>

#include "camera.h"
#include "drawlist.h"
#include "output.h"
#include "sim.h"

typedef struct hg_render_options {
  int width, height;     /* pixels (default 1280 x 720) */
  double fps;            /* frames per second of simulated time (default 30) */
  double t_start, t_end; /* NaN: the scene's start and end */
  double time;           /* NaN, or the one instant to render (out is then a PNG file) */
  int has_camera;        /* 1: camera below, fixed in the world; 0: the default camera
                            (framing.h), keeping the bodies of interest in frame */
  hg_camera camera;
  const char *track;     /* a body the camera follows, translating with it from the fitted
                            start (NULL: as above) */
  int overlays;          /* HG_OV_* mask; 0 draws the geometry only, with no caption */
  int samples;           /* multisampling (default 4; 0 off) */
  int mode;              /* HG_RENDER_SHADED or HG_RENDER_FLAT */
  const char *out;       /* a folder for frame-NNNNN.png (and video.mp4), or a .png file */
  int video;             /* 1: also video.mp4 when ffmpeg is on the PATH */
  FILE *log;             /* progress and notes, or NULL */
  const char *commands;  /* a command file scheduled at the start (docs/commands.md), or NULL */
} hg_render_options;

void hg_render_default_options(hg_render_options *o);

/* Renders the scene at path offscreen. Returns 0, 2 for a bad scene or options (err says why),
 * 1 when an image cannot be written or no GL context can be made, 3 when the simulation fails
 * (the frames before the failure are written). */
int hg_render_scene(const char *path, const hg_render_options *o, char *err, size_t errlen);

typedef struct hg_viewer_options {
  int width, height;       /* the window (default 1280 x 720) */
  int paused;              /* start paused at t = 0 (hinge view) */
  double speed;            /* initial speed factor (default 1) */
  int overlays;            /* initial overlays (default HG_OV_DEFAULT) */
  int has_camera;
  hg_camera camera;
  const char *track;       /* body the camera follows, or NULL */
  hg_sim_options sim;      /* how the simulation runs (out_dir: checkpoints) */
  hg_output_options out;   /* what it writes (output.h; dir NULL: nothing) */
  const char *commands;    /* a command file scheduled at the start, or NULL */
  const char *script;      /* timed input events (keys) for tests and demonstrations, or NULL */
  const char *ghost;       /* a ghost direction (hg_interact_ghost_load), or NULL */
  const char *mode;        /* "MODES.csv:N": a linearization mode animated (hg_interact_ghost_mode) */
  const char *screenshot_dir; /* where the screenshot key writes (default ".") */
  int offscreen;           /* draw offscreen (tests): no window, same code otherwise */
  int finish;              /* on closing, run the rest of the simulation to its end without
                              drawing (hinge run: the outputs are complete) */
  const char *video;       /* NULL, or an MP4 file recording every frame drawn at the window's
                              size, 60 frames per second (video.h; needs ffmpeg) */
  long *frames_drawn;      /* NULL, or receives the number of frames drawn (a paused viewer
                              draws only when something changes; with a video, every turn) */
} hg_viewer_options;

void hg_viewer_default_options(hg_viewer_options *o);

/* Opens the viewer on the scene file at path and runs until the window closes (or quit, or
 * SIGINT, which SDL turns into a quit). A scene that does not load (at the start or on reload)
 * is shown as a message in the viewer, never an exit. Returns 0, 1 when no window or context
 * can be made or the video cannot be written (err says why), 2 for a bad script, ghost or mode,
 * or 3 when the simulation failed and the viewer was closed. */
int hg_viewer_run(const char *path, const hg_viewer_options *o, char *err, size_t errlen);

#endif
