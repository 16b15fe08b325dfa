/* hud_layout.h: the geometry and numbers behind the viewer's 2-D layer (hud.h), without GL: where
 * each overlay goes so that none covers another, the achieved simulated-time rate, the scales of
 * the strip plots, text wrapped and numbers shortened for the status line, and 3-D labels
 * nudged apart. Everything here is a pure function of its arguments (tests call them directly). */
#ifndef HINGE_RENDER_HUD_LAYOUT_H
#define HINGE_RENDER_HUD_LAYOUT_H

#include <stddef.h>

#include "frame.h"

/* ---- the achieved rate ---- */

/* Simulated seconds shown per second of a clock, over a sliding window: the viewer adds one
 * sample (clock, displayed time) per drawn frame while running, so the rate includes everything
 * a frame costs (simulating, drawing, waiting). The clock is the caller's: the wall clock, or
 * the virtual clock of a script (deterministic). */
#define HG_RATE_SAMPLES 256
typedef struct hg_rate_meter {
  double window;                 /* s of clock the rate is taken over (default 1) */
  double clock[HG_RATE_SAMPLES]; /* ring of samples, oldest at head */
  double sim[HG_RATE_SAMPLES];
  int n, head;
} hg_rate_meter;

/* empties the meter (a pause, a jump of the displayed time); window 1 s */
void hg_rate_meter_reset(hg_rate_meter *m);
/* one sample: the clock now and the simulated time displayed now */
void hg_rate_meter_add(hg_rate_meter *m, double clock, double sim_t);
/* simulated s per clock s between the newest sample and the oldest one not older than the window
 * (NaN with fewer than two samples); *span gets the clock seconds it covers (may be NULL) */
double hg_rate_meter_rate(const hg_rate_meter *m, double *span);

/* The HUD's speed line: "speed 4x   achieved 3.98x   60 fps", or, when the achieved rate is
 * under 90 % of the speed asked for while running and the window covers at least half a second,
 * "behind: 0.53x of 4x   60 fps". Returns 1 when behind (the HUD draws the line in the warning
 * colour). rate NaN: "speed 4x   60 fps". */
int hg_hud_rate_line(char *buf, size_t n, double speed, double rate, double span, int running,
                     double fps);

/* ---- layout ---- */

typedef struct hg_hud_rect {
  float x, y, w, h; /* pixels from the top-left corner; w = 0: not shown */
} hg_hud_rect;

/* the 2-D overlays */
enum {
  HG_HUD_PANEL,     /* the HUD panel, top left */
  HG_HUD_CONTROL,   /* the control panel, under it */
  HG_HUD_SELECTION, /* the selection panel, bottom left */
  HG_HUD_EVENTS,    /* the event list, top right */
  HG_HUD_GAUGES,    /* the capture pairs' gauges, under it */
  HG_HUD_PROFILER,  /* the profiler strip, under them */
  HG_HUD_PLOTS,     /* the strip plots, the rest of the right column */
  HG_HUD_BAR,       /* the command line, preview or last result, above the timeline */
  HG_HUD_SLIDERS,   /* the sliders, above the timeline on the right */
  HG_HUD_TIMELINE,  /* the timeline, bottom */
  HG_HUD_HELP,      /* the help, middle and right (over the plots' place) */
  HG_HUD_MESSAGE,   /* a message, middle, above the bar */
  HG_HUD_NAREA
};

/* what each overlay would show: lines of text (PLOTS: strips, SLIDERS: sliders, TIMELINE: 1),
 * 0 for off, and its width in pixels (SLIDERS: the width of the longest label) */
typedef struct hg_hud_layout_in {
  int w, h;             /* the image */
  float lh;             /* the line height, px */
  int lines[HG_HUD_NAREA];
  float width[HG_HUD_NAREA];
} hg_hud_layout_in;

/* where each goes and how many of its lines (strips, sliders) fit there: fewer than asked means
 * the overlay ends with a "+N more" line in its last line's place */
typedef struct hg_hud_layout {
  hg_hud_rect r[HG_HUD_NAREA];
  int lines[HG_HUD_NAREA];
} hg_hud_layout;

/* Lays the overlays out in a w x h image: a left column (HUD panel, control panel, selection
 * panel at its foot), a right column (events, gauges, profiler, strip plots), the timeline along
 * the bottom with the bar (left) and the sliders (right) above it, the message in the middle
 * above the bar, the help in the middle and the right column (the plots and profiler give it
 * their place). No two rectangles shown overlap; a panel that does not fit shows fewer lines
 * (down to none). The slider rectangle is the one hg_hud_slider_rect places sliders in. */
void hg_hud_layout_compute(const hg_hud_layout_in *in, hg_hud_layout *out);
/* 1 when two rectangles shown (w > 0) share pixels */
int hg_hud_rect_overlap(const hg_hud_rect *a, const hg_hud_rect *b);

/* the timeline's geometry in a w x h image: y of its bar and x range; what a click hits */
void hg_hud_timeline_rect(int w, int h, float *x0, float *x1, float *y0, float *y1);
/* The timeline's two labels: the cursor's (width cw, centred on the cursor at time t) and the
 * end time's (width ew, right-aligned at the bar's end), their baseline y and left x; the
 * cursor's label moves left of the end label when they would meet. lh: the line height. */
void hg_hud_timeline_labels(int w, int h, float lh, double t, double t0, double t1, float cw,
                            float ew, hg_hud_rect *cursor, hg_hud_rect *end);
/* slider k of n: its bar spans x0..x1 at height y (centre line) */
void hg_hud_slider_rect(int w, int h, int k, int n, float *x0, float *x1, float *y);
/* how many sliders fit in an image h pixels high */
int hg_hud_slider_fit(int h);

/* ---- text ---- */

/* text with every number of more than 6 significant digits rewritten as %.6g (1.234567891 ->
 * 1.23457, 10.000099999 -> 10.0001), the rest as it was; out has n bytes */
void hg_hud_shorten_numbers(const char *text, char *out, size_t n);
/* Text shortened as above and wrapped into lines no wider than maxw (width(ctx, s): the width
 * of s in pixels), breaking at spaces (a word wider than a line is cut only when it has no
 * space) and at newlines; at most max lines of 128 bytes, the last ending in "..." when the
 * text goes on. The number of lines. */
int hg_hud_wrap(const char *text, float maxw, float (*width)(const void *ctx, const char *s),
                const void *ctx, char (*lines)[128], int max);

/* ---- strip plots ---- */

/* the strips: each its own quantity, unit and scale */
enum {
  HG_STRIP_ENERGY,      /* total energy, J */
  HG_STRIP_DRIFT,       /* energy budget B - B0, J */
  HG_STRIP_ANGULAR,     /* |L| about the origin, kg m^2/s */
  HG_STRIP_LINEAR,      /* |p|, kg m/s */
  HG_STRIP_SEPARATION,  /* the first three separation pairs' distances, m */
  HG_STRIP_FORCE,       /* the largest constraint force of a locked or prescribed joint, N */
  HG_STRIP_MOMENT,      /* its largest constraint moment, N m */
  HG_STRIP_COUNT
};
/* the strip's title and its unit */
const char *hg_hud_strip_title(int strip);
const char *hg_hud_strip_unit(int strip);
/* series of a strip (separation: the frame's pairs, at most 3; others 1) */
int hg_hud_strip_nseries(int strip, const hg_frame *f);
/* series s of a strip at frame f (NaN: none) */
double hg_hud_strip_value(int strip, const hg_frame *f, int s);
/* The strip's value range over frames 0..upto of the history: lo..hi with a flat series widened
 * by half its magnitude (or 1e-9) each way. 0, or -1 when it has no finite value. */
int hg_hud_strip_range(int strip, const hg_history *h, int upto, double *lo, double *hi);

/* ---- columns plotted on demand (:plot) ---- */

/* a column of trajectory.csv the viewer can plot: JOINT.q.NAME, JOINT.v.NAME (NAME the joint
 * type's entry names, hg_joint_entry_name; the simulation's own coordinates), BODY.x, BODY.y,
 * BODY.z, or kinetic, potential, element, removed_by_locks, work, event_work, budget, Lx, Ly, Lz,
 * px, py, pz */
typedef struct hg_hud_column {
  char name[96];
  int kind;          /* HG_COLUMN_* */
  int k;             /* the entry, coordinate or scalar */
  char object[64];   /* the joint or body */
} hg_hud_column;
enum { HG_COLUMN_JOINT_Q, HG_COLUMN_JOINT_V, HG_COLUMN_BODY, HG_COLUMN_SCALAR };

/* the column of that name in model m; 0, or -1 when m has no such column */
int hg_hud_column_resolve(const hg_model *m, const char *name, hg_hud_column *c);
/* its value in the simulation's current state, whose frame (captured by the history h) is f;
 * NaN when its joint or body is not in the simulation now */
double hg_hud_column_value(const hg_hud_column *c, const hg_sim *sim, const hg_frame *f, hg_history *h);

/* Tab completion of a column name: the columns of model m that begin with prefix; out gets their
 * longest common beginning (n bytes), list the first of them separated by spaces (ln bytes).
 * Their number. */
int hg_hud_column_complete(const hg_model *m, const char *prefix, char *out, size_t n, char *list,
                           size_t ln);

/* ---- 3-D labels ---- */

/* Moves label boxes (projected, pixels) down, the fewest pixels, so that no two overlap, in
 * order of their y (ties: index); a box is never moved up. */
void hg_hud_spread_labels(hg_hud_rect *box, int n);

#endif
