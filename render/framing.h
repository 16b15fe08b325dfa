/* framing.h: the default camera of the viewer and of hinge render (no GL): it keeps the scene's
 * bodies of interest in frame, smoothly, whatever the scene's scale or speed.
 *
 * The bodies of interest are the scene's `view: {track: [...]}` (docs/scene-format.md), else
 * every body. Each update frames the bounding sphere of their geometry (hg_frame_bounds_of):
 *   target = centre + offset + pan,   eye = target - zoom * D(radius) * f,
 *   D(r) = 1.2 r / sin(min(fovy/2, fovx/2))   (the sphere fills the narrower half-angle, 20 % margin)
 * with f the camera's own forward axis and its own up, so the user's orbits and the preset views
 * stay. The offset is zero while the same bodies are framed; when the framed set changes (a body
 * arrives or leaves) it takes up the jump of the centre and decays critically damped,
 *   x'' = -w^2 x - 2 w x',   solved exactly over each step (any step is stable),
 * so the centre never lags a moving body (a spacecraft at 7.7 km/s stays centred) and never jumps.
 * The radius grows at once with the bodies' sphere (so they never leave the frame: the sphere is
 * continuous in time, and so is the zoom) and shrinks back with the same critically damped law.
 * The user's zoom (the ratio of the eye's distance to the distance the last update set) and pan
 * (the target's move since then) are read back from the camera at each update and kept. All of
 * it is a function of the frames and the times passed in: deterministic for scripted sessions
 * and renders. */
#ifndef HINGE_RENDER_FRAMING_H
#define HINGE_RENDER_FRAMING_H

#include "camera.h"
#include "frame.h"
#include "scene.h"

enum { HG_FRAMING_MAX = 64 };

typedef struct hg_framing {
  int on;                    /* 1: hg_framing_update moves the camera (the viewer's `a` sets it,
                                tracking a body or `n` clears it) */
  int ntrack;                /* bodies of interest (0: every body) */
  int track[HG_FRAMING_MAX]; /* their names (the history's string indices) */
  /* written by hg_framing_update (hg_framing_start resets them) */
  int started;               /* the state below is valid */
  int nframed;               /* how many bodies the last update framed (a change: a new set) */
  double clock;              /* the time of the last update, s */
  double centre[3];          /* the bodies' centre at the last update, world */
  double offset[3], offset_rate[3]; /* framed centre minus the bodies' centre, world; its rate */
  double radius, radius_rate;/* the framed radius, m; its rate */
  double zoom;               /* the user's zoom: eye distance over D(radius) (1: fitted) */
  double pan[3];             /* the user's pan: target minus the framed centre, world */
  double set_target[3], set_dist; /* what the last update set the camera to */
} hg_framing;

/* the rate w of the critically damped follow, 1/s: a jump is 90 % taken up in 3.9/w = 1.3 s */
#define HG_FRAMING_RATE 3.0

/* The framing of a scene: its view section's bodies (names interned in h), on, not started. */
void hg_framing_init(hg_framing *fr, const hg_scene *sc, hg_history *h);
/* The first camera of a scene without --camera: the scene's view camera (eye, target, up, fov)
 * or the default oblique view from (+1, -1.4, +0.7), fitted at once to the bodies of interest of
 * frame f in a w x h image; framing on. */
void hg_framing_first_camera(hg_framing *fr, const hg_scene *sc, const hg_frame *f, hg_camera *cam,
                             int w, int h, double clock);
/* Fits the camera at once (no smoothing), forgets the user's zoom and pan, framing on (the
 * viewer's `a`). Keeps the camera's direction, up and field of view. */
void hg_framing_start(hg_framing *fr, const hg_frame *f, hg_camera *cam, int w, int h, double clock);
/* Moves the camera to frame f's bodies of interest at time clock (s; the step is clock minus
 * the last update's, never negative), as described above. Does nothing when framing is off. */
void hg_framing_update(hg_framing *fr, const hg_frame *f, hg_camera *cam, int w, int h, double clock);
/* The bounding sphere of the bodies of interest in frame f (every body when none of them is in
 * it); returns how many bodies it framed. */
int hg_framing_bounds(const hg_framing *fr, const hg_frame *f, double centre[3], double *radius);

#endif
