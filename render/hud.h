/* hud.h: the viewer's 2-D layer drawn over the scene: caption, heads-up display, timeline with
 * events, strip plots, help and messages (gl_render.h's 2-D calls). */
#ifndef HINGE_RENDER_HUD_H
#define HINGE_RENDER_HUD_H

#include "frame.h"
#include "gl_render.h"

/* the caption of rendered images: the scene's title, the time and the last event; its height
 * in pixels (hinge render draws the control panel under it) */
float hg_hud_caption(hg_renderer *r, const char *title, const hg_frame *f, const hg_history *h);

/* The control panel at (x, y), at most maxh pixels high: the controllers (name, on or off, an
 * attitude controller's pointing error in degrees), the reaction wheels (rpm, % of max_speed, a
 * bar: red from 90 % of max_speed on; SAT and orange text while held at its torque or another
 * limit) and the thrusters firing now (name, level, pulses so far).
 * Its height in pixels; 0 (nothing drawn) when the frame has no actuator or controller. */
float hg_hud_control(hg_renderer *r, const hg_frame *f, const hg_history *h, float x, float y,
                     float maxh);

/* what the heads-up display shows besides the frame */
typedef struct hg_hud_state {
  const char *title;
  double speed;          /* speed factor */
  double rtf;            /* measured real-time factor (simulated s per wall s) */
  double fps;            /* frames drawn per second */
  int paused, live;      /* live: the frame shown is the simulation's latest */
  int overlays;
  const char *tracked;   /* tracked body name, or NULL */
  const char *message;   /* an error or note shown in a box (NULL: none) */
  double t_start, t_end;
  int plots, help;
} hg_hud_state;

/* the HUD panel (top left), the event list (top right), the timeline (bottom), the strip plots
 * (right, with plots), the help (with help) and the message */
void hg_hud_draw(hg_renderer *r, const hg_frame *f, const hg_history *h, int frame_index,
                 const hg_hud_state *s);

/* the interaction layer (interact.h): the selection panel (bottom left, above the timeline), and
 * a bar above the timeline with the command line (when open), the pending preview or the last
 * command's result (red when it failed or was refused) */
typedef struct hg_hud_interact {
  char (*panel)[128];    /* panel lines */
  int npanel;
  char (*gauge)[128];    /* the gauges' lines (right, under the event list) */
  int ngauge;
  const char *cmdline;   /* the command line's text, or NULL when closed */
  const char *preview;   /* the pending preview, or NULL */
  const char *result;    /* the last command's result, or NULL */
  int result_error;
} hg_hud_interact;
void hg_hud_interact_draw(hg_renderer *r, const hg_hud_interact *s);

/* Sliders (bottom right, above the timeline): slider k of n spans x0..x1 at height y (its bar's
 * centre line); hg_hud_sliders draws them with their labels, ranges (-range .. range) and
 * values, the active one (-1: none) highlighted. */
void hg_hud_slider_rect(int w, int h, int k, int n, float *x0, float *x1, float *y);
void hg_hud_sliders(hg_renderer *r, int n, char (*labels)[64], const double *range,
                    const double *value, int active);

/* a message box in the middle of the image (lines wrapped at 110 characters and at newlines) */
void hg_hud_message(hg_renderer *r, const char *message);

/* the timeline's geometry in a w x h image: y of its bar and x range; what a click hits */
void hg_hud_timeline_rect(int w, int h, float *x0, float *x1, float *y0, float *y1);

#endif
