/* hud.c: caption, heads-up display, timeline, strip plots and help (hud.h). */
#include "hud.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "drawlist.h"
#include "hud_layout.h"

static const float white[4] = {0.95f, 0.96f, 0.98f, 1}, dim[4] = {0.7f, 0.74f, 0.8f, 1},
                   panel[4] = {0.05f, 0.06f, 0.08f, 0.62f}, accent[4] = {1, 0.75f, 0.25f, 1},
                   red[4] = {1, 0.35f, 0.3f, 1};
const float hg_hud_error_rgba[4] = {1, 0.35f, 0.3f, 1}, hg_hud_note_rgba[4] = {0.55f, 0.95f, 0.55f, 1},
            hg_hud_warn_rgba[4] = {1, 0.62f, 0.15f, 1};

/* cuts a line to maxw pixels: at its last space that fits (a number is never cut in two), or
 * at a character when it has no space */
static void cut_to(const hg_renderer *r, char *line, float maxw) {
  size_t len = strlen(line);
  while (len > 0 && hg_renderer_text_width(r, line) > maxw) {
    char *sp = strrchr(line, ' ');
    while (sp && sp > line && sp[-1] == ' ') sp--;
    if (sp && sp > line) len = (size_t)(sp - line);
    else len--;
    line[len] = 0;
  }
}

/* a panel of lines of text at (x, y), width w (0: fitted); returns its height */
static float text_panel(hg_renderer *r, float x, float y, float w, char lines[][128], int n,
                        const float *const *colours) {
  float lh = hg_renderer_line_height(r);
  if (w <= 0)
    for (int k = 0; k < n; k++) w = fmaxf(w, hg_renderer_text_width(r, lines[k]) + 16);
  hg_renderer_rect(r, x, y, w, lh * n + 10, panel);
  for (int k = 0; k < n; k++) hg_renderer_text(r, x + 8, y + 5 + lh * (k + 1) - 4, lines[k], colours ? colours[k] : white);
  return lh * n + 10;
}

/* ---- the control panel ---- */

/* The control panel at (x, y), at most maxh pixels high: a title, then the controllers (name, on
 * or off, the pointing error of an attitude controller, or another one's first telemetry value),
 * the reaction wheels (speed in rpm, % of max_speed, and a bar filling with it: red from 90 % on;
 * SAT and an orange line while held at a limit), and the thrusters firing now (name, level,
 * pulses so far; or one line saying they are idle), as many lines as fit, the rest counted. Its
 * height, 0 when the frame has no actuator or controller. */
enum { CTL_MAXL = 24 };

/* the control panel's lines, at most fit (>= 2): their text, colours and the actuator whose
 * gauge each has (-1); their number (0: no actuator or controller) */
static int control_lines(const hg_frame *f, const hg_history *h, int fit, char (*lines)[128],
                         const float **cols, int *wheel_of) {
  static const float on[4] = {0.62f, 1, 0.05f, 1}, fire[4] = {1, 0.7f, 0.2f, 1};
  enum { MAXL = CTL_MAXL };
  int n = 0, total = 0, firing = 0, thrusters = 0;
  long pulses = 0;
  if (!h || f->nact + f->nctl == 0) return 0;
  if (fit > MAXL) fit = MAXL;
  if (fit < 2) return 0;
  for (int k = 0; k < f->nact; k++) {
    const hg_fact *A = &f->act[k];
    if (!A->present || A->type != HG_ACT_THRUSTER) continue;
    thrusters++, pulses += A->firings;
    firing += A->level > 0;
  }
  total = f->nctl + firing + (thrusters && !firing);
  for (int k = 0; k < f->nact; k++) total += f->act[k].present && f->act[k].type == HG_ACT_WHEEL;
  for (int k = 0; k < MAXL; k++) wheel_of[k] = -1;
  snprintf(lines[n], 128, "control");
  cols[n++] = accent;
  int shown = 0;
#define HG_ROOM() (n < fit - 1 || total - shown <= 1)
  for (int k = 0; k < f->nctl && HG_ROOM(); k++, shown++) {
    const hg_fctl *C = &f->ctl[k];
    const char *name = hg_frame_name(h, C->name), *tn = hg_frame_name(h, C->telemetry);
    if (!C->enabled)
      snprintf(lines[n], 128, "  %-12.12s off", name);
    else if (C->telemetry >= 0 && !strcmp(tn, "pointing_error") && isfinite(C->value))
      snprintf(lines[n], 128, "  %-12.12s on   error %.3g deg", name, C->value);
    else if (C->telemetry >= 0 && isfinite(C->value))
      snprintf(lines[n], 128, "  %-12.12s on   %.20s %.3g", name, tn, C->value);
    else
      snprintf(lines[n], 128, "  %-12.12s on", name);
    cols[n++] = C->enabled ? on : dim;
  }
  for (int k = 0; k < f->nact && HG_ROOM(); k++) {
    const hg_fact *A = &f->act[k];
    if (!A->present || A->type != HG_ACT_WHEEL) continue;
    double rpm = A->speed * 60 / (2 * 3.14159265358979), fill = hg_wheel_fill(f, k);
    if (isfinite(A->max_speed))
      snprintf(lines[n], 128, "  %-12.12s %+7.0f rpm %4.0f%%%s", hg_frame_name(h, A->name), rpm,
               100 * fill, A->saturated ? " SAT" : "");
    else
      snprintf(lines[n], 128, "  %-12.12s %+7.0f rpm%s", hg_frame_name(h, A->name), rpm,
               A->saturated ? " SAT" : "");
    /* red: the speed at 90 % of max_speed or more; orange: held at its torque (or another
     * limit) below that, as the wheel's ring in the actuators overlay */
    cols[n] = isfinite(A->max_speed) && fill >= 0.9 ? red
              : A->saturated                         ? hg_wheel_ring_sat_rgba
                                                     : white;
    wheel_of[n++] = k;
    shown++;
  }
  for (int k = 0; k < f->nact && firing && HG_ROOM(); k++) {
    const hg_fact *A = &f->act[k];
    if (!A->present || A->type != HG_ACT_THRUSTER || !(A->level > 0)) continue;
    snprintf(lines[n], 128, "  %-12.12s firing %3.0f%%  %ld pulse%s", hg_frame_name(h, A->name),
             100 * fmin(A->level, 1), A->firings, A->firings == 1 ? "" : "s");
    cols[n++] = fire;
    shown++;
  }
  if (thrusters && !firing && HG_ROOM()) {
    snprintf(lines[n], 128, "  thrusters idle (%ld pulses so far)", pulses);
    cols[n++] = dim;
    shown++;
  }
#undef HG_ROOM
  if (shown < total) {
    snprintf(lines[n], 128, "  ... %d more", total - shown);
    cols[n++] = dim;
  }
  return n;
}

/* the control panel's lines drawn at (x, y), no wider than maxw; its height */
static float control_draw(hg_renderer *r, const hg_frame *f, float x, float y, float maxw,
                          char (*lines)[128], const float **cols, const int *wheel_of, int n) {
  float lh = hg_renderer_line_height(r);
  /* the wheels' bars to the right of the text */
  float tw = 0, bar = 64, wheels = 0;
  for (int k = 0; k < n; k++) {
    tw = fmaxf(tw, hg_renderer_text_width(r, lines[k]));
    wheels += wheel_of[k] >= 0;
  }
  if (tw + 16 + (wheels > 0 ? bar + 10 : 0) > maxw) { /* too wide: the bars go, then text */
    wheels = 0;
    tw = fminf(tw, maxw - 16);
    for (int k = 0; k < n; k++) cut_to(r, lines[k], tw);
  }
  float pw = tw + 16 + (wheels > 0 ? bar + 10 : 0), ph = text_panel(r, x, y, pw, lines, n, cols);
  for (int k = 0; k < n && wheels > 0; k++) {
    if (wheel_of[k] < 0) continue;
    const hg_fact *A = &f->act[wheel_of[k]];
    double fill = hg_wheel_fill(f, wheel_of[k]);
    int high = isfinite(A->max_speed) && fill >= 0.9; /* the speed alone, as the gauge */
    float bx = x + 8 + tw + 10, by = y + 5 + lh * (float)k + 0.3f * lh, bh = 0.45f * lh;
    float back[4] = {0.22f, 0.24f, 0.3f, 0.9f};
    hg_renderer_rect(r, bx, by, bar, bh, back);
    hg_renderer_rect(r, bx, by, bar * (float)fill, bh, high ? hg_gauge_high_rgba : hg_gauge_rgba);
    if (isfinite(A->max_speed)) { /* the 90 % mark */
      float mark[4] = {1, 1, 1, 0.6f};
      hg_renderer_rect(r, bx + 0.9f * bar, by - 1, 1, bh + 2, mark);
    }
  }
  return ph;
}

float hg_hud_control(hg_renderer *r, const hg_frame *f, const hg_history *h, float x, float y,
                     float maxh) {
  char lines[CTL_MAXL][128];
  const float *cols[CTL_MAXL];
  int wheel_of[CTL_MAXL];
  int n = control_lines(f, h, (int)((maxh - 10) / hg_renderer_line_height(r)), lines, cols, wheel_of);
  return n ? control_draw(r, f, x, y, INFINITY, lines, cols, wheel_of, n) : 0;
}

float hg_hud_caption(hg_renderer *r, const char *title, const hg_frame *f, const hg_history *h) {
  char lines[3][128];
  const float *cols[3] = {white, accent, dim};
  int n = 0;
  snprintf(lines[n++], 128, "%s", title ? title : "");
  snprintf(lines[n++], 128, "t = %8.3f s", f->t);
  if (f->nevents > 0 && h && f->nevents <= h->nevent) {
    const hg_hevent *e = &h->event[f->nevents - 1];
    snprintf(lines[n++], 128, "%s at %.3f s", e->name, e->t);
  }
  return text_panel(r, 12, 12, 0, lines, n, cols);
}

/* the timeline: the span simulated so far, the cursor, the events, the cursor's time and the
 * end time (labels that never meet, hg_hud_timeline_labels) */
static void timeline(hg_renderer *r, const hg_frame *f, const hg_history *h, const hg_hud_state *s) {
  int w, hh;
  hg_renderer_size(r, &w, &hh);
  float x0, x1, y0, y1;
  hg_hud_timeline_rect(w, hh, &x0, &x1, &y0, &y1);
  double span = s->t_end - s->t_start;
  if (!(span > 0)) return;
#define TX(t) (x0 + (float)(((t) - s->t_start) / span) * (x1 - x0))
  float bg[4] = {0.1f, 0.11f, 0.14f, 0.75f}, done[4] = {0.35f, 0.5f, 0.75f, 0.9f};
  hg_renderer_rect(r, x0 - 4, y0 - 22, x1 - x0 + 8, y1 - y0 + 26, panel);
  hg_renderer_rect(r, x0, y0, x1 - x0, y1 - y0, bg);
  if (h && h->n > 0) hg_renderer_rect(r, x0, y0, TX(h->frame[h->n - 1].t) - x0, y1 - y0, done);
  for (int k = 0; h && k < h->nevent; k++) {
    float x = TX(h->event[k].t);
    hg_renderer_rect(r, x - 1.5f, y0 - 6, 3, y1 - y0 + 6, accent);
  }
  float cx = TX(f->t);
  hg_renderer_rect(r, cx - 2, y0 - 4, 4, y1 - y0 + 8, white);
  char txt[64], end[64];
  snprintf(txt, sizeof txt, "%.3f s", f->t);
  snprintf(end, sizeof end, "%.6g s", s->t_end);
  hg_hud_rect lc, le;
  hg_hud_timeline_labels(w, hh, hg_renderer_line_height(r), f->t, s->t_start, s->t_end,
                         hg_renderer_text_width(r, txt), hg_renderer_text_width(r, end), &lc, &le);
  hg_renderer_text(r, lc.x, y0 - 8, txt, white);
  if (le.w > 0) hg_renderer_text(r, le.x, y0 - 8, end, dim);
#undef TX
}

/* A strip's frame in rectangle b: its title (with "+N more" when more > 0), the value axis
 * labelled lo and hi (as few digits as tell them apart) and the time axis t0 .. t1 in seconds.
 * The plot's area in *a; 0, or -1 when the box has no room for one. */
static int strip_frame(hg_renderer *r, const hg_hud_rect *b, const char *name, double lo, double hi,
                       double t0, double t1, int more, hg_hud_rect *a) {
  static const float axis[4] = {0.55f, 0.58f, 0.65f, 1};
  float x = b->x, y = b->y, w = b->w, hgt = b->h, lh = hg_renderer_line_height(r);
  char title[200], txt[64];
  hg_renderer_rect(r, x, y, w, hgt, panel);
  snprintf(title, sizeof title, "%s", name);
  if (more > 0) snprintf(title + strlen(title), sizeof title - strlen(title), "   (+%d more)", more);
  cut_to(r, title, w - 12);
  hg_renderer_text(r, x + 6, y + lh - 3, title, white);
  if (!(lo < hi)) return -1;
  char los[32], his[32];
  for (int digits = 3; digits <= 15; digits++) { /* as few digits as tell the two ends apart */
    snprintf(his, sizeof his, "%.*g", digits, hi);
    snprintf(los, sizeof los, "%.*g", digits, lo);
    if (strcmp(his, los)) break;
  }
  float yl = fmaxf(hg_renderer_text_width(r, his), hg_renderer_text_width(r, los));
  /* the plot's area: value labels on the left, time labels under it */
  float px0 = x + 10 + yl, px1 = x + w - 8, py0 = y + lh + 2, py1 = y + hgt - lh + 2;
  if (py1 - py0 < 6 || px1 - px0 < 20) return -1;
  hg_renderer_rect(r, px0, py0, 1, py1 - py0, axis);
  hg_renderer_rect(r, px0, py1, px1 - px0, 1, axis);
  hg_renderer_text(r, px0 - 4 - hg_renderer_text_width(r, his), py0 + lh - 6, his, dim);
  hg_renderer_text(r, px0 - 4 - hg_renderer_text_width(r, los), py1, los, dim);
  snprintf(txt, sizeof txt, "%.4g s", t0);
  hg_renderer_text(r, px0, py1 + lh - 4, txt, dim);
  snprintf(txt, sizeof txt, "%.4g s", t1);
  hg_renderer_text(r, px1 - hg_renderer_text_width(r, txt), py1 + lh - 4, txt, dim);
  *a = (hg_hud_rect){px0, py0, px1 - px0, py1 - py0};
  return 0;
}

/* the displayed time t as a line across the plot's area a (time axis t0 .. t1) */
static void strip_cursor(hg_renderer *r, const hg_hud_rect *a, double t, double t0, double t1) {
  static const float mark[4] = {1, 1, 1, 0.75f};
  if (t >= t0 && t <= t1) hg_renderer_rect(r, a->x + (float)((t - t0) / (t1 - t0)) * a->w - 0.5f, a->y, 1, a->h, mark);
}

static const float strip_rgba[3][4] = {{0.4f, 0.8f, 1, 1}, {1, 0.6f, 0.3f, 1}, {0.5f, 1, 0.5f, 1}};

/* One strip plot in rectangle b: its quantity over frames 0..upto of the history against time
 * t0..t1 on its own scale with its unit, the displayed time marked. more > 0: "+N more". */
static void strip(hg_renderer *r, const hg_hud_rect *b, int which, const hg_frame *f,
                  const hg_history *h, int upto, double t0, double t1, int more) {
  char title[160];
  snprintf(title, sizeof title, "%s, %s", hg_hud_strip_title(which), hg_hud_strip_unit(which));
  if (which == HG_STRIP_SEPARATION && f->npair > 0)
    snprintf(title, sizeof title, "separation %s - %s%s, m", hg_frame_name(h, f->pair[0].a),
             hg_frame_name(h, f->pair[0].b), f->npair > 1 ? " ..." : "");
  double lo = 0, hi = 0;
  hg_hud_rect a;
  if (hg_hud_strip_range(which, h, upto, &lo, &hi)) lo = hi = 0;
  if (strip_frame(r, b, title, lo, hi, t0, t1, more, &a)) return;
  static float xy[2 * 2048];
  int ns = hg_hud_strip_nseries(which, f);
  for (int s = 0; s < (ns > 0 ? ns : 1); s++) {
    int n = 0, step = (upto + 1) / 2048 + 1;
    for (int k = 0; k <= upto && k < h->n && n < 2048; k += step) {
      double v = hg_hud_strip_value(which, &h->frame[k], s);
      if (!isfinite(v)) continue;
      xy[2 * n] = a.x + (float)((h->frame[k].t - t0) / (t1 - t0)) * a.w;
      xy[2 * n + 1] = a.y + a.h - (float)((v - lo) / (hi - lo)) * a.h;
      n++;
    }
    hg_renderer_polyline(r, xy, n, strip_rgba[s % 3]);
  }
  strip_cursor(r, &a, f->t, t0, t1);
}

/* a column plotted on demand: its samples up to the displayed time t, on their own scale */
static void series_strip(hg_renderer *r, const hg_hud_rect *b, const hg_hud_series *p, double t,
                         double t0, double t1, int more) {
  double lo = INFINITY, hi = -INFINITY;
  int upto = 0;
  while (upto < p->n && p->t[upto] <= t) upto++;
  for (int k = 0; k < upto; k++)
    if (isfinite(p->x[k])) lo = fmin(lo, p->x[k]), hi = fmax(hi, p->x[k]);
  if (lo <= hi && hi - lo <= 1e-12 * fmax(fabs(lo), fabs(hi))) { /* flat: as the other strips */
    double d = 0.5 * fmax(fmax(fabs(lo), fabs(hi)), 1e-9);
    lo -= d, hi += d;
  }
  hg_hud_rect a;
  if (strip_frame(r, b, p->name, lo, hi, t0, t1, more, &a)) return;
  static float xy[2 * 2048];
  int n = 0, step = upto / 2048 + 1;
  for (int k = 0; k < upto && n < 2048; k += step) {
    if (!isfinite(p->x[k])) continue;
    xy[2 * n] = a.x + (float)((p->t[k] - t0) / (t1 - t0)) * a.w;
    xy[2 * n + 1] = a.y + a.h - (float)((p->x[k] - lo) / (hi - lo)) * a.h;
    n++;
  }
  hg_renderer_polyline(r, xy, n, strip_rgba[2]);
  strip_cursor(r, &a, t, t0, t1);
}

/* the strips to show for frame f: energy, budget drift, |L|, |p|, the separations when the
 * scene has pairs, the constraint force and moment when a joint is locked or prescribed */
static int strip_list(const hg_frame *f, int *list) {
  int n = 0, held = 0;
  for (int j = 0; j < f->njoint; j++) held |= f->joint[j].mode != HG_MODE_FREE;
  for (int k = 0; k < HG_STRIP_COUNT; k++) {
    if (k == HG_STRIP_SEPARATION && f->npair == 0) continue;
    if ((k == HG_STRIP_FORCE || k == HG_STRIP_MOMENT) && !held) continue;
    list[n++] = k;
  }
  return n;
}

static const char *const help_lines[] = {
    "space        pause / run",
    "right, .     step forward (one output interval)",
    "left, ,      step back through the history",
    "- / =        slower / faster (1/64 .. 64 x real time)",
    "home / end   start of history / latest state",
    "pgup / pgdn  previous / next event",
    "click bar    scrub the timeline (drag)",
    "backspace    restart        F5  reload the scene file",
    "F12, p       screenshot (PNG)   F1  this help",
    "v            save the camera (hinge-camera.txt, --camera form)",
    "click        select a body (shift: add)   [ ] parent / child",
    "d            degrees / radians in the selection panel",
    "shift+L F H  preview lock / free / hold of the selection; Enter, Esc",
    ":            command line (Tab completes; docs/commands.md)",
    ":plot COL    strip plot of a trajectory.csv column (Tab completes; :plot off)",
    "ctrl+drag    pull a body (right button: turn it)   ctrl+s  save the session",
    "shift+G      ghosts of the selected joint's DoFs; up/down: eps",
    "b            gauges of the capture pairs",
    "sliders      paused: drag the selected joint's q (ghost) and v, let go to set",
    "< >          paused: the selected joint's q -/+ 0.05 (ctrl: v -/+ 0.1)",
    "l            strip plots    u   HUD on/off    F2  profiler",
    "mouse        left orbit, right/middle pan, wheel zoom",
    "a            fit the scene  1 3 7 9 / x y z  preset views",
    "tab          track the next body (shift: previous), n none",
    "r            tracking keeps the body's orientation",
    "overlays:    f frames  j joints  c com  m markers  i inertia  w wrenches",
    "             k springs  g forces  t trails  s separations  h momentum",
    "             e loops  shift+A actuators  shift+S sensors  o all/none",
    "q, esc       quit (esc first cancels a preview, then the selection)",
};

/* The closed loops under the HUD panel's n0 lines: a title, then one line per loop in the
 * simulation (name, type, closed or open, |F| of a closed one, the gap of an open one), as many as
 * fit in the top half of the image (the selection panel and the bar grow up from the bottom), the
 * rest counted. The number of lines (at most max). */
static int loop_lines(hg_renderer *r, const hg_frame *f, const hg_history *h, char (*lines)[128],
                      const float **cols, int max, int n0, int hh) {
  static const float closed[4] = {0.62f, 1, 0.05f, 1};
  int present = 0, n = 0;
  for (int k = 0; k < f->nloop; k++) present += f->loop[k].present;
  if (!h || present == 0) return 0;
  int fit = (int)(0.5f * (float)hh / hg_renderer_line_height(r)) - n0 - 1;
  if (fit > max) fit = max;
  if (fit < 2) return 0;
  snprintf(lines[n], 128, "loops");
  cols[n++] = accent;
  for (int k = 0, shown = 0; k < f->nloop; k++) {
    const hg_floop *L = &f->loop[k];
    if (!L->present) continue;
    if (n == fit - 1 && present - shown > 1) {
      snprintf(lines[n], 128, "  ... %d more", present - shown);
      cols[n++] = dim;
      break;
    }
    const char *name = hg_frame_name(h, L->name);
    if (L->active && L->joint_type < 0) /* a coupling's force or torque */
      snprintf(lines[n], 128, "  %-14.14s closed  load %.3g", name, fabs(L->wrench[0]));
    else if (L->active)
      snprintf(lines[n], 128, "  %-14.14s closed  |F| %.3g N", name,
               sqrt(L->wrench[3] * L->wrench[3] + L->wrench[4] * L->wrench[4] + L->wrench[5] * L->wrench[5]));
    else
      snprintf(lines[n], 128, "  %-14.14s open    gap %.3g m", name, L->distance);
    cols[n++] = L->active ? closed : dim;
    shown++;
  }
  return n;
}

int hg_hud_panel_lines(const hg_frame *f, const hg_hud_state *s, char (*lines)[128], int max,
                       int *behind) {
  char tmp[24][128];
  int n = 0, b = 0;
  snprintf(tmp[n++], 128, "%s", s->title ? s->title : "");
  snprintf(tmp[n++], 128, "t = %.4f s   %s%s", f->t, s->paused ? "PAUSED" : "running",
           s->live ? "" : "  (replay)");
  b = hg_hud_rate_line(tmp[n++], 128, s->speed, s->rtf, s->rtf_span, !s->paused, s->fps);
  snprintf(tmp[n++], 128, "steps %ld  rhs %ld  fails %ld  events %d", f->stats.steps, f->stats.rhs_evals,
           f->stats.err_test_fails + f->stats.conv_fails, f->nevents);
  snprintf(tmp[n++], 128, "energy %.6g J   budget drift %.2e", f->energy, f->budget.max_drift);
  snprintf(tmp[n++], 128, "p  %+.4g %+.4g %+.4g", f->h[3], f->h[4], f->h[5]);
  snprintf(tmp[n++], 128, "L  %+.4g %+.4g %+.4g", f->h[0], f->h[1], f->h[2]);
  if (s->mode && *s->mode) snprintf(tmp[n++], 128, "%s", s->mode);
  if (s->tracked) snprintf(tmp[n++], 128, "tracking %s", s->tracked);
  /* the overlays, wrapped at 40 characters so that the panel stays narrow */
  char ov[128] = "overlays:";
  for (int k = 0; k < HG_OV_COUNT; k++) {
    if (!(s->overlays & (1 << k))) continue;
    if (strlen(ov) + 1 + strlen(hg_overlay_name(k)) > 40 && n < 20) {
      snprintf(tmp[n++], 128, "%s", ov);
      snprintf(ov, sizeof ov, "         ");
    }
    snprintf(ov + strlen(ov), sizeof ov - strlen(ov), " %s", hg_overlay_name(k));
  }
  snprintf(tmp[n++], 128, "%s", ov);
  snprintf(tmp[n++], 128, "F1 help");
  if (n > max) n = max;
  for (int k = 0; k < n; k++) memcpy(lines[k], tmp[k], 128);
  if (behind) *behind = b;
  return n;
}

/* the profiler strip in b: the last frame's solver work and wall times, their means, and one
 * bar per frame (wall time simulating, blue, under drawing, orange; the tallest bar the box's
 * height) */
static void profiler(hg_renderer *r, const hg_hud_rect *b, const hg_hud_prof *p, int np) {
  static const float simc[4] = {0.4f, 0.7f, 1, 0.95f}, drawc[4] = {1, 0.6f, 0.25f, 0.95f};
  float lh = hg_renderer_line_height(r);
  char lines[3][128];
  const float *cols[3] = {accent, white, white};
  double ms = 0, md = 0, top = 1e-6;
  for (int k = 0; k < np; k++) ms += p[k].sim_s, md += p[k].draw_s, top = fmax(top, p[k].sim_s + p[k].draw_s);
  const hg_hud_prof *last = np > 0 ? &p[np - 1] : NULL;
  snprintf(lines[0], 128, "profiler (per drawn frame, last %d)", np);
  snprintf(lines[1], 128, "rhs %ld  steps %ld  rejected %ld", last ? last->rhs : 0, last ? last->steps : 0,
           last ? last->rejected : 0);
  snprintf(lines[2], 128, "simulate %.3g ms  draw %.3g ms (mean)", np ? 1e3 * ms / np : 0, np ? 1e3 * md / np : 0);
  int n = (int)((b->h - 10) / lh) - 1; /* text lines; one line's height of bars under them */
  if (n > 3) n = 3;
  if (n < 1) return;
  for (int k = 0; k < n; k++) cut_to(r, lines[k], b->w - 16);
  hg_renderer_rect(r, b->x, b->y, b->w, b->h, panel);
  for (int k = 0; k < n; k++) hg_renderer_text(r, b->x + 8, b->y + 5 + lh * (float)(k + 1) - 4, lines[k], cols[k]);
  float bx = b->x + 8, by = b->y + 5 + lh * (float)n + 2, bw = (b->w - 16) / 120.0f, bh = b->y + b->h - 4 - by;
  for (int k = 0; k < np && k < 120 && bh > 2; k++) {
    const hg_hud_prof *q = &p[np > 120 ? np - 120 + k : k];
    float hs = bh * (float)(q->sim_s / top), hd = bh * (float)(q->draw_s / top);
    hg_renderer_rect(r, bx + bw * (float)k, by + bh - hs, fmaxf(bw - 0.5f, 0.5f), hs, simc);
    hg_renderer_rect(r, bx + bw * (float)k, by + bh - hs - hd, fmaxf(bw - 0.5f, 0.5f), hd, drawc);
  }
}

/* lines into a panel of rectangle b: the lines that fit, the last replaced by "+N more" when
 * some do not, each cut to the width (at a space) */
static void fitted_panel(hg_renderer *r, const hg_hud_rect *b, int fit, char (*lines)[128], int n,
                         const float **cols) {
  char out[64][128];
  const float *oc[64];
  if (fit <= 0 || b->w <= 0) return;
  if (fit > 64) fit = 64;
  int m = n < fit ? n : fit;
  for (int k = 0; k < m; k++) {
    memcpy(out[k], lines[k], 128);
    oc[k] = cols ? cols[k] : white;
    cut_to(r, out[k], b->w - 16);
  }
  if (n > fit) {
    snprintf(out[m - 1], 128, "  +%d more", n - fit + 1);
    oc[m - 1] = dim;
  }
  text_panel(r, b->x, b->y, b->w, out, m, oc);
}

/* the width of a line in a panel: text and margins (hg_hud_wrap's measure) */
static float panel_width(const void *r, const char *s) { return hg_renderer_text_width(r, s) + 16; }

void hg_hud_draw(hg_renderer *r, const hg_frame *f, const hg_history *h, int frame_index,
                 const hg_hud_state *s) {
  char lines[40][128];
  const float *cols[40];
  int n = 0, w, hh, behind = 0;
  float lh = hg_renderer_line_height(r);
  const hg_hud_interact *ia = s->ia;
  hg_renderer_size(r, &w, &hh);
  for (int k = 0; k < 40; k++) cols[k] = white;
  n = hg_hud_panel_lines(f, s, lines, 24, &behind);
  cols[0] = accent, cols[2] = behind ? hg_hud_warn_rgba : white;
  for (int k = 3; k < n; k++)
    if (!strncmp(lines[k], "overlays:", 9) || lines[k][0] == ' ' || !strcmp(lines[k], "F1 help")) cols[k] = dim;
  n += loop_lines(r, f, h, lines + n, cols + n, 40 - n, n, hh);
  /* what each overlay would show */
  hg_hud_layout_in in;
  memset(&in, 0, sizeof in);
  in.w = w, in.h = hh, in.lh = lh;
  in.lines[HG_HUD_PANEL] = s->bare ? 0 : n;
  for (int k = 0; k < n; k++) in.width[HG_HUD_PANEL] = fmaxf(in.width[HG_HUD_PANEL], panel_width(r, lines[k]));
  char cl[CTL_MAXL][128];
  const float *cc[CTL_MAXL];
  int wheel_of[CTL_MAXL], ncl = 0;
  if ((s->overlays & HG_OV_ACTUATORS) && !s->bare) ncl = control_lines(f, h, CTL_MAXL, cl, cc, wheel_of);
  in.lines[HG_HUD_CONTROL] = ncl;
  for (int k = 0; k < ncl; k++) in.width[HG_HUD_CONTROL] = fmaxf(in.width[HG_HUD_CONTROL], panel_width(r, cl[k]) + 74);
  char ev[8][128];
  const float *ec[8];
  int m = 0;
  if (h && f->nevents > 0 && !s->bare) { /* the last events, with the energy they removed */
    snprintf(ev[m], 128, "events");
    ec[m++] = accent;
    for (int k = f->nevents - 1; k >= 0 && m < 6 && k < h->nevent; k--) {
      const hg_hevent *e = &h->event[k];
      snprintf(ev[m], 128, "%8.3f s %-12.12s dE %+.3g J  lock %.3g J  dh %.0e", e->t, e->name,
               e->de, e->e_removed, e->dh);
      ec[m++] = white;
    }
  }
  in.lines[HG_HUD_EVENTS] = m;
  for (int k = 0; k < m; k++) in.width[HG_HUD_EVENTS] = fmaxf(in.width[HG_HUD_EVENTS], panel_width(r, ev[k]));
  int ng = ia ? (ia->ngauge > 12 ? 12 : ia->ngauge) : 0, nsel = ia ? (ia->npanel > 16 ? 16 : ia->npanel) : 0;
  in.lines[HG_HUD_GAUGES] = ng, in.lines[HG_HUD_SELECTION] = nsel;
  for (int k = 0; k < ng; k++) in.width[HG_HUD_GAUGES] = fmaxf(in.width[HG_HUD_GAUGES], panel_width(r, ia->gauge[k]));
  for (int k = 0; k < nsel; k++) in.width[HG_HUD_SELECTION] = fmaxf(in.width[HG_HUD_SELECTION], panel_width(r, ia->panel[k]));
  /* the bar: the command line, the preview or the last result; a result (completions, errors)
   * under an open command line */
  char bartext[1200] = "";
  const float *barcol = white, *resultcol = dim;
  int result_lines = 0;
  if (ia && ia->cmdline) {
    snprintf(bartext, sizeof bartext, ":%s_", ia->cmdline);
    barcol = accent;
  } else if (ia && ia->preview && *ia->preview) {
    snprintf(bartext, sizeof bartext, "%s", ia->preview);
    barcol = accent;
  } else if (ia && ia->result && *ia->result) {
    snprintf(bartext, sizeof bartext, "%s", ia->result);
    barcol = ia->result_error ? red : white;
  }
  in.lines[HG_HUD_BAR] = bartext[0] ? 3 : 0; /* first pass: its width */
  int strips[HG_STRIP_COUNT], nstrip = s->plots && !s->bare && h && h->n > 1 ? strip_list(f, strips) : 0;
  int nextra = s->plots && !s->bare && h && h->n > 0 ? s->nplot : 0; /* :plot's columns, first */
  in.lines[HG_HUD_PLOTS] = nstrip + nextra;
  float slw = 0;
  for (int k = 0; k < s->nslider; k++) slw = fmaxf(slw, hg_renderer_text_width(r, s->slider_labels[k]));
  in.lines[HG_HUD_SLIDERS] = s->nslider, in.width[HG_HUD_SLIDERS] = slw;
  in.lines[HG_HUD_PROFILER] = s->profiler && !s->bare ? 4 : 0;
  in.width[HG_HUD_PROFILER] = s->profiler ? panel_width(r, "simulate 12.3 ms  draw 12.3 ms (mean)") : 0;
  int nhelp = (int)(sizeof help_lines / sizeof help_lines[0]);
  in.lines[HG_HUD_HELP] = s->help && !s->bare ? nhelp : 0;
  in.lines[HG_HUD_TIMELINE] = 1; /* its place is kept with the HUD off (a click still scrubs) */
  in.lines[HG_HUD_MESSAGE] = s->message && *s->message ? 12 : 0;
  in.width[HG_HUD_MESSAGE] = (float)w;
  hg_hud_layout lay;
  hg_hud_layout_compute(&in, &lay);
  /* second pass: the bar and the message wrapped to the widths they got */
  char bar[4][128], msg[12][128];
  int nbar = 0, nmsg = 0;
  if (bartext[0]) {
    nbar = hg_hud_wrap(bartext, lay.r[HG_HUD_BAR].w, panel_width, r, bar, ia && ia->cmdline ? 2 : 3);
    if (ia && ia->cmdline && ia->result && *ia->result && nbar < 3) {
      result_lines = hg_hud_wrap(ia->result, lay.r[HG_HUD_BAR].w, panel_width, r, bar + nbar, 3 - nbar);
      resultcol = ia->result_error ? red : dim;
    }
    in.lines[HG_HUD_BAR] = nbar + result_lines;
  }
  if (in.lines[HG_HUD_MESSAGE]) {
    float mw = lay.r[HG_HUD_MESSAGE].w > 0 ? lay.r[HG_HUD_MESSAGE].w : (float)w - 24;
    nmsg = hg_hud_wrap(s->message, mw, panel_width, r, msg, 12);
    in.lines[HG_HUD_MESSAGE] = nmsg, in.width[HG_HUD_MESSAGE] = 0;
    for (int k = 0; k < nmsg; k++) in.width[HG_HUD_MESSAGE] = fmaxf(in.width[HG_HUD_MESSAGE], panel_width(r, msg[k]));
  }
  hg_hud_layout_compute(&in, &lay);

  fitted_panel(r, &lay.r[HG_HUD_PANEL], lay.lines[HG_HUD_PANEL], lines, n, cols);
  if (lay.lines[HG_HUD_CONTROL] > 0) {
    ncl = control_lines(f, h, lay.lines[HG_HUD_CONTROL], cl, cc, wheel_of);
    control_draw(r, f, lay.r[HG_HUD_CONTROL].x, lay.r[HG_HUD_CONTROL].y, lay.r[HG_HUD_CONTROL].w, cl, cc, wheel_of, ncl);
  }
  fitted_panel(r, &lay.r[HG_HUD_EVENTS], lay.lines[HG_HUD_EVENTS], ev, m, ec);
  if (ng > 0) {
    const float *gc[12];
    for (int k = 0; k < ng; k++) gc[k] = strstr(ia->gauge[k], "WITHIN") ? accent : white;
    fitted_panel(r, &lay.r[HG_HUD_GAUGES], lay.lines[HG_HUD_GAUGES], ia->gauge, ng, gc);
  }
  if (nsel > 0) {
    const float *pc[16];
    for (int k = 0; k < nsel; k++) pc[k] = k ? white : accent;
    fitted_panel(r, &lay.r[HG_HUD_SELECTION], lay.lines[HG_HUD_SELECTION], ia->panel, nsel, pc);
  }
  if (nbar + result_lines > 0) {
    const float *bc[4];
    for (int k = 0; k < nbar + result_lines; k++) bc[k] = k < nbar ? barcol : resultcol;
    fitted_panel(r, &lay.r[HG_HUD_BAR], lay.lines[HG_HUD_BAR], bar, nbar + result_lines, bc);
  }
  if (lay.lines[HG_HUD_SLIDERS] > 0) {
    const hg_hud_rect *b = &lay.r[HG_HUD_SLIDERS];
    int ns = lay.lines[HG_HUD_SLIDERS];
    hg_renderer_rect(r, b->x, b->y, b->w, b->h, panel);
    for (int k = 0; k < ns; k++) {
      char val[32], label[64];
      float x0, x1, y;
      hg_hud_slider_rect(w, hh, k, ns, &x0, &x1, &y);
      float bc[4] = {0.3f, 0.33f, 0.4f, 1}, mid[4] = {0.6f, 0.6f, 0.65f, 1};
      snprintf(label, sizeof label, "%s", s->slider_labels[k]);
      cut_to(r, label, x0 - 14 - (b->x + 10));
      hg_renderer_text(r, b->x + 10, y + 5, label, k == s->slider_active ? accent : white);
      hg_renderer_rect(r, x0, y - 2, x1 - x0, 4, bc);
      hg_renderer_rect(r, 0.5f * (x0 + x1) - 0.5f, y - 6, 1, 12, mid);
      double range = s->slider_range[k], value = s->slider_value[k];
      double fr = range > 0 ? 0.5 + 0.5 * fmax(-1, fmin(1, value / range)) : 0.5;
      float hx = x0 + (float)fr * (x1 - x0);
      hg_renderer_rect(r, hx - 4, y - 7, 8, 14, k == s->slider_active ? accent : white);
      snprintf(val, sizeof val, "%+.6g", value);
      hg_renderer_text(r, x1 - hg_renderer_text_width(r, val), y - 6, val, dim);
    }
  }
  if (lay.lines[HG_HUD_PLOTS] > 0) {
    int ns = lay.lines[HG_HUD_PLOTS];
    const hg_hud_rect *b = &lay.r[HG_HUD_PLOTS];
    float ph = (b->h + 6) / (float)ns - 6;
    double t1 = fmax(h->frame[h->n - 1].t, s->t_start + 1e-9);
    for (int k = 0; k < ns; k++) {
      hg_hud_rect sb = {b->x, b->y + (float)k * (ph + 6), b->w, ph};
      int more = k == ns - 1 ? nstrip + nextra - ns : 0;
      if (k < nextra) series_strip(r, &sb, &s->plot[k], f->t, s->t_start, t1, more);
      else strip(r, &sb, strips[k - nextra], f, h, frame_index, s->t_start, t1, more);
    }
  }
  if (lay.lines[HG_HUD_PROFILER] > 0) profiler(r, &lay.r[HG_HUD_PROFILER], s->prof, s->prof ? s->nprof : 0);
  if (!s->bare) timeline(r, f, h, s);
  if (lay.lines[HG_HUD_HELP] > 0) {
    char hl[40][128];
    for (int k = 0; k < nhelp && k < 40; k++) snprintf(hl[k], 128, "%s", help_lines[k]);
    fitted_panel(r, &lay.r[HG_HUD_HELP], lay.lines[HG_HUD_HELP], hl, nhelp, NULL);
  }
  if (nmsg > 0) {
    const float *mc[12];
    for (int k = 0; k < nmsg; k++) mc[k] = s->message_error ? hg_hud_error_rgba : hg_hud_note_rgba;
    fitted_panel(r, &lay.r[HG_HUD_MESSAGE], lay.lines[HG_HUD_MESSAGE], msg, nmsg, mc);
  }
}

void hg_hud_message(hg_renderer *r, const char *message, int error) {
  char ml[12][128];
  const float *mc[12];
  int w, hh;
  hg_renderer_size(r, &w, &hh);
  int m = hg_hud_wrap(message, fminf(0.9f * (float)w, 900), panel_width, r, ml, 12);
  for (int k = 0; k < m; k++) mc[k] = error ? hg_hud_error_rgba : hg_hud_note_rgba;
  float pw = 0;
  for (int k = 0; k < m; k++) pw = fmaxf(pw, hg_renderer_text_width(r, ml[k]) + 16);
  text_panel(r, (w - pw) / 2, hh * 0.4f, pw, ml, m, mc);
}
