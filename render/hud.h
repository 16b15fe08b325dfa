/* hud.h: the viewer's 2-D layer drawn over the scene: caption, heads-up display, timeline with
 * events, strip plots, profiler, help and messages (gl_render.h's 2-D calls), placed by
 * hud_layout.h. */
#ifndef HINGE_RENDER_HUD_H
#define HINGE_RENDER_HUD_H

#include "frame.h"
#include "gl_render.h"
#include "hud_layout.h"

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

/* the interaction layer (interact.h): the selection panel, the gauges, and the bar above the
 * timeline with the command line (when open), the pending preview or the last command's result
 * (red when it failed or was refused) */
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

/* what one drawn frame cost (the profiler strip): the solver's work done for it and the wall
 * time spent simulating and drawing it */
typedef struct hg_hud_prof {
  long rhs, steps, rejected; /* right-hand sides, steps, rejected steps and failures */
  double sim_s, draw_s;      /* wall seconds simulating, drawing */
} hg_hud_prof;

/* a column plotted on demand (:plot): samples (t, x) in time order */
#define HG_HUD_MAXPLOT 4
typedef struct hg_hud_series {
  const char *name;
  const double *t, *x;
  int n;
} hg_hud_series;

/* what the heads-up display shows besides the frame; written by the viewer's draw() */
typedef struct hg_hud_state {
  const char *title;
  double speed;          /* speed factor asked for */
  double rtf;            /* achieved rate: simulated s shown per wall s (hg_rate_meter; NaN:
                            not measured) */
  double rtf_span;       /* the clock seconds the rate was measured over */
  double fps;            /* frames drawn per second */
  int paused, live;      /* live: the frame shown is the simulation's latest */
  int overlays;
  const char *tracked;   /* tracked body name, or NULL */
  const char *message;   /* an error or note shown in a box (NULL: none) */
  int message_error;     /* 1: the message is an error (red), 0: a note (green) */
  const char *mode;      /* the animated mode ("mode 2, f = 1.5 Hz, eps = 0.1"), or NULL */
  double t_start, t_end;
  int plots, help;
  int bare;              /* 1: the HUD off: only the interaction layer, sliders and message */
  const hg_hud_interact *ia; /* the interaction layer, or NULL */
  /* sliders (hg_hud_slider_rect): labels, ranges (-range .. range), values, the active one */
  int nslider, slider_active;
  char (*slider_labels)[64];
  const double *slider_range, *slider_value;
  /* the profiler strip: the last nprof frames, oldest first (profiler: shown) */
  int profiler, nprof;
  const hg_hud_prof *prof;
  /* columns plotted on demand, drawn up to the displayed time above the other strips (plots) */
  int nplot;
  hg_hud_series plot[HG_HUD_MAXPLOT];
} hg_hud_state;

/* The whole 2-D layer, laid out by hg_hud_layout_compute so that nothing covers anything: the
 * HUD panel, the control panel (with the actuators overlay), the event list, the interaction
 * layer, the sliders, the strip plots (with plots), the profiler strip, the timeline, the help
 * (with help) and the message. */
void hg_hud_draw(hg_renderer *r, const hg_frame *f, const hg_history *h, int frame_index,
                 const hg_hud_state *s);

/* the HUD panel's lines (title, time, speed, solver, energy, momentum, mode, tracking,
 * overlays, help); *behind set when the speed line says the viewer falls behind. Their number
 * (at most max). */
int hg_hud_panel_lines(const hg_frame *f, const hg_hud_state *s, char (*lines)[128], int max,
                       int *behind);

/* a message box in the middle of the image (lines wrapped at 110 characters and at newlines);
 * error: red, else a note (green) */
void hg_hud_message(hg_renderer *r, const char *message, int error);

/* the colours of messages: errors and notes */
extern const float hg_hud_error_rgba[4], hg_hud_note_rgba[4], hg_hud_warn_rgba[4];

#endif
