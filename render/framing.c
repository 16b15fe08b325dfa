/* framing.c: the default camera of framing.h: the bodies of interest kept in frame, smoothly. */
#include "framing.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "drawlist.h"

static const double deg = 3.14159265358979323846 / 180;

void hg_framing_init(hg_framing *fr, const hg_scene *sc, hg_history *h) {
  memset(fr, 0, sizeof *fr);
  fr->on = 1, fr->zoom = 1;
  for (int k = 0; sc && k < sc->view.ntrack && fr->ntrack < HG_FRAMING_MAX; k++)
    fr->track[fr->ntrack++] = hg_history_intern(h, sc->view.track[k]);
}

int hg_framing_bounds(const hg_framing *fr, const hg_frame *f, double centre[3], double *radius) {
  unsigned char *use = fr->ntrack && f->nbody > 0 ? calloc((size_t)f->nbody, 1) : NULL;
  int n = 0;
  for (int k = 0; use && k < fr->ntrack; k++) {
    int b = hg_frame_body(f, fr->track[k]);
    if (b >= 1 && !use[b]) use[b] = 1, n++;
  }
  if (n == 0) { /* no names, or none of them in the simulation now: every body */
    free(use), use = NULL;
    n = f->nbody > 1 ? f->nbody - 1 : 0;
  }
  hg_frame_bounds_of(f, use, centre, radius);
  free(use);
  return n;
}

/* the distance at which a sphere of radius r fills the narrower half-angle of the view, with a
 * 20 % margin: D(r) = 1.2 r / sin(min(fovy/2, fovx/2)), tan(fovx/2) = tan(fovy/2) w/h */
static double fit_distance(const hg_camera *cam, double r, int w, int h) {
  double half = 0.5 * cam->fovy * deg, halfx = atan(tan(half) * (double)w / (h > 0 ? h : 1));
  return 1.2 * (r > 0 ? r : 1) / sin(fmin(half, halfx));
}

/* target and eye from the framed centre, radius, the user's pan and zoom, along the camera's
 * own forward axis */
static void place(hg_framing *fr, hg_camera *cam, int w, int h) {
  double s[3], u[3], f[3];
  hg_camera_basis(cam, s, u, f);
  double dist = fr->zoom * fit_distance(cam, fr->radius, w, h);
  for (int k = 0; k < 3; k++) {
    cam->target[k] = fr->centre[k] + fr->offset[k] + fr->pan[k];
    cam->eye[k] = cam->target[k] - dist * f[k];
  }
  memcpy(fr->set_target, cam->target, sizeof fr->set_target);
  fr->set_dist = dist;
}

void hg_framing_start(hg_framing *fr, const hg_frame *f, hg_camera *cam, int w, int h, double clock) {
  fr->on = 1, fr->started = 1, fr->clock = clock, fr->zoom = 1;
  fr->nframed = hg_framing_bounds(fr, f, fr->centre, &fr->radius);
  fr->radius_rate = 0;
  for (int k = 0; k < 3; k++) fr->offset[k] = fr->offset_rate[k] = fr->pan[k] = 0;
  place(fr, cam, w, h);
}

void hg_framing_first_camera(hg_framing *fr, const hg_scene *sc, const hg_frame *f, hg_camera *cam,
                             int w, int h, double clock) {
  hg_camera_default(cam);
  if (sc && sc->view.has_camera) {
    memcpy(cam->eye, sc->view.eye, sizeof cam->eye), memcpy(cam->target, sc->view.target, sizeof cam->target);
    memcpy(cam->up, sc->view.up, sizeof cam->up);
    cam->fovy = sc->view.fovy;
  } else { /* the oblique view: from (+1, -1.4, +0.7), z up */
    cam->target[0] = cam->target[1] = cam->target[2] = 0;
    cam->eye[0] = 1, cam->eye[1] = -1.4, cam->eye[2] = 0.7;
  }
  hg_framing_start(fr, f, cam, w, h, clock);
}

/* one step dt of the critically damped decay x'' = -w^2 x - 2 w x' from (x, v), exactly:
 *   x(t) = (x0 + (v0 + w x0) t) e^{-wt},   v(t) = (v0 - w (v0 + w x0) t) e^{-wt} */
static void damp(double *x, double *v, double w, double dt) {
  double e = exp(-w * dt), a = *v + w * *x;
  *x = (*x + a * dt) * e;
  *v = (*v - w * a * dt) * e;
}

void hg_framing_update(hg_framing *fr, const hg_frame *f, hg_camera *cam, int w, int h, double clock) {
  if (!fr->on) return;
  if (!fr->started) {
    hg_framing_start(fr, f, cam, w, h, clock);
    return;
  }
  double dt = fmax(0, clock - fr->clock), c[3], r;
  fr->clock = clock;
  /* what the user did since the last update: a zoom changes the eye's distance, a pan the
   * target (an orbit or a preset view changes the direction only, which place() keeps) */
  double d2 = 0;
  for (int k = 0; k < 3; k++) d2 += (cam->eye[k] - cam->target[k]) * (cam->eye[k] - cam->target[k]);
  if (fr->set_dist > 0 && d2 > 0) fr->zoom *= sqrt(d2) / fr->set_dist;
  for (int k = 0; k < 3; k++) fr->pan[k] += cam->target[k] - fr->set_target[k];
  int n = hg_framing_bounds(fr, f, c, &r);
  if (n != fr->nframed) /* a new set of bodies: the offset takes up the centre's jump */
    for (int k = 0; k < 3; k++) fr->offset[k] += fr->centre[k] - c[k];
  fr->nframed = n;
  memcpy(fr->centre, c, sizeof fr->centre);
  for (int k = 0; k < 3; k++) damp(&fr->offset[k], &fr->offset_rate[k], HG_FRAMING_RATE, dt);
  if (r >= fr->radius) { /* growing: at once, so that the bodies never leave the frame */
    fr->radius = r, fr->radius_rate = 0;
  } else { /* shrinking: the excess decays */
    double x = fr->radius - r;
    damp(&x, &fr->radius_rate, HG_FRAMING_RATE, dt);
    fr->radius = r + fmax(x, 0);
  }
  place(fr, cam, w, h);
}
