/* hud.c: caption, heads-up display, timeline, strip plots and help (hud.h). */
#include "hud.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "drawlist.h"

static const float white[4] = {0.95f, 0.96f, 0.98f, 1}, dim[4] = {0.7f, 0.74f, 0.8f, 1},
                   panel[4] = {0.05f, 0.06f, 0.08f, 0.62f}, accent[4] = {1, 0.75f, 0.25f, 1},
                   red[4] = {1, 0.35f, 0.3f, 1};

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
float hg_hud_control(hg_renderer *r, const hg_frame *f, const hg_history *h, float x, float y,
                     float maxh) {
  static const float on[4] = {0.62f, 1, 0.05f, 1}, fire[4] = {1, 0.7f, 0.2f, 1};
  enum { MAXL = 24 };
  char lines[MAXL][128];
  const float *cols[MAXL];
  int wheel_of[MAXL]; /* the actuator whose gauge a line has, -1 */
  float lh = hg_renderer_line_height(r);
  int fit = (int)((maxh - 10) / lh), n = 0, total = 0, firing = 0, thrusters = 0;
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
  /* the wheels' bars to the right of the text */
  float tw = 0, bar = 64, wheels = 0;
  for (int k = 0; k < n; k++) {
    tw = fmaxf(tw, hg_renderer_text_width(r, lines[k]));
    wheels += wheel_of[k] >= 0;
  }
  float pw = tw + 16 + (wheels > 0 ? bar + 10 : 0), ph = text_panel(r, x, y, pw, lines, n, cols);
  for (int k = 0; k < n; k++) {
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

void hg_hud_timeline_rect(int w, int h, float *x0, float *x1, float *y0, float *y1) {
  *x0 = 16, *x1 = (float)w - 16, *y1 = (float)h - 14, *y0 = *y1 - 10;
}

/* the timeline: the span simulated so far, the cursor, the events */
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
  char txt[64];
  snprintf(txt, sizeof txt, "%.3f s", f->t);
  float tw = hg_renderer_text_width(r, txt), tx = fminf(fmaxf(cx - tw / 2, x0), x1 - tw);
  hg_renderer_text(r, tx, y0 - 8, txt, white);
  snprintf(txt, sizeof txt, "%.3g", s->t_end);
  hg_renderer_text(r, x1 - hg_renderer_text_width(r, txt), y0 - 8, txt, dim);
#undef TX
}

/* one strip plot of a series over the history up to the cursor */
typedef double (*series_fn)(const hg_frame *f, int which);
static double s_energy(const hg_frame *f, int w) { return w == 0 ? f->energy : f->budget.value - f->budget.initial; }
static double s_momentum(const hg_frame *f, int w) {
  const double *v = f->h + 3 * w;
  return sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
}
static double s_pair(const hg_frame *f, int w) { return w < f->npair && f->pair[w].present ? f->pair[w].distance : NAN; }
static double s_load(const hg_frame *f, int w) {
  double m = 0; /* the largest constraint force of a locked or prescribed joint */
  for (int j = 0; j < f->njoint; j++)
    if (f->joint[j].mode != HG_MODE_FREE) {
      const double *x = f->joint[j].wrench + (w ? 0 : 3);
      m = fmax(m, sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]));
    }
  return m;
}

static void strip(hg_renderer *r, float x, float y, float w, float hgt, const hg_history *h, int upto,
                  const char *title, series_fn fn, int nseries, const char *const *names,
                  double t0, double t1) {
  static const float cols[3][4] = {{0.4f, 0.8f, 1, 1}, {1, 0.6f, 0.3f, 1}, {0.5f, 1, 0.5f, 1}};
  hg_renderer_rect(r, x, y, w, hgt, panel);
  hg_renderer_text(r, x + 6, y + 15, title, white);
  double lo = INFINITY, hi = -INFINITY;
  for (int k = 0; k <= upto && k < h->n; k++)
    for (int s = 0; s < nseries; s++) {
      double v = fn(&h->frame[k], s);
      if (isfinite(v)) lo = fmin(lo, v), hi = fmax(hi, v);
    }
  if (!(lo <= hi)) return;
  if (hi - lo < 1e-12 * fmax(fabs(hi), 1e-300) || hi == lo) lo -= 0.5 * fmax(fabs(lo), 1e-9), hi += 0.5 * fmax(fabs(hi), 1e-9);
  float px0 = x + 6, px1 = x + w - 6, py0 = y + 22, py1 = y + hgt - 6;
  char txt[64];
  snprintf(txt, sizeof txt, "%.4g", hi);
  hg_renderer_text(r, px1 - hg_renderer_text_width(r, txt), y + 15, txt, dim);
  static float xy[2 * 2048];
  for (int s = 0; s < nseries; s++) {
    int n = 0, step = (upto + 1) / 2048 + 1;
    for (int k = 0; k <= upto && k < h->n && n < 2048; k += step) {
      double v = fn(&h->frame[k], s);
      if (!isfinite(v)) continue;
      xy[2 * n] = px0 + (float)((h->frame[k].t - t0) / (t1 - t0)) * (px1 - px0);
      xy[2 * n + 1] = py1 - (float)((v - lo) / (hi - lo)) * (py1 - py0);
      n++;
    }
    hg_renderer_polyline(r, xy, n, cols[s % 3]);
    if (names && names[s]) hg_renderer_text(r, px0 + 120 * s, py1 - 2, names[s], cols[s % 3]);
  }
}

static void plots(hg_renderer *r, const hg_frame *f, const hg_history *h, int upto, const hg_hud_state *s) {
  int w, hh;
  hg_renderer_size(r, &w, &hh);
  /* four plots between the event list (top) and the timeline (bottom 50 px) */
  float pw = fminf(380, 0.32f * w), y = 160, ph = fminf(120, (hh - y - 60) / 4.0f - 8), x = w - pw - 12;
  double t1 = fmax(f->t, s->t_start + 1e-9);
  static const char *const en[] = {"energy", "budget drift"}, *const mo[] = {"|L| (origin)", "|p|"},
                           *const ld[] = {"force", "moment"};
  strip(r, x, y, pw, ph, h, upto, "energy, J", s_energy, 2, en, s->t_start, t1);
  strip(r, x, y + (ph + 8), pw, ph, h, upto, "momentum", s_momentum, 2, mo, s->t_start, t1);
  if (f->npair > 0) {
    char title[128];
    snprintf(title, sizeof title, "separation %s - %s, m", hg_frame_name(h, f->pair[0].a), hg_frame_name(h, f->pair[0].b));
    strip(r, x, y + 2 * (ph + 8), pw, ph, h, upto, title, s_pair, f->npair > 3 ? 3 : f->npair, NULL, s->t_start, t1);
  }
  strip(r, x, y + 3 * (ph + 8), pw, ph, h, upto, "locked/prescribed joint loads (max)", s_load, 2, ld, s->t_start, t1);
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
    "ctrl+drag    pull a body (right button: turn it)   ctrl+s  save the session",
    "shift+G      ghosts of the selected joint's DoFs; up/down: eps",
    "b            gauges of the capture pairs",
    "sliders      paused: drag the selected joint's q (ghost) and v, let go to set",
    "< >          paused: the selected joint's q -/+ 0.05 (ctrl: v -/+ 0.1)",
    "l            strip plots    u   HUD on/off",
    "mouse        left orbit, right/middle pan, wheel zoom",
    "a            fit the scene  1 3 7 9 / x y z  preset views",
    "tab          track the next body (shift: previous), n none",
    "r            tracking keeps the body's orientation",
    "overlays:    f frames  j joints  c com  m markers  i inertia  w wrenches",
    "             k springs  g forces  t trails  s separations  h momentum",
    "             e loops  shift+A actuators  shift+S sensors  o all/none",
    "q, esc       quit (esc first cancels a preview, then the selection)",
};

static void help(hg_renderer *r) {
  int n = (int)(sizeof help_lines / sizeof help_lines[0]), w, hh;
  char lines[32][128];
  hg_renderer_size(r, &w, &hh);
  for (int k = 0; k < n; k++) snprintf(lines[k], 128, "%s", help_lines[k]);
  float pw = 0;
  for (int k = 0; k < n; k++) pw = fmaxf(pw, hg_renderer_text_width(r, lines[k]) + 16);
  hg_renderer_rect(r, (w - pw) / 2, 60, pw, hg_renderer_line_height(r) * n + 10, panel);
  text_panel(r, (w - pw) / 2, 60, pw, lines, n, NULL);
}

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

void hg_hud_draw(hg_renderer *r, const hg_frame *f, const hg_history *h, int frame_index,
                 const hg_hud_state *s) {
  char lines[24][128];
  const float *cols[24];
  int n = 0, w, hh;
  hg_renderer_size(r, &w, &hh);
  for (int k = 0; k < 24; k++) cols[k] = white;
  snprintf(lines[n++], 128, "%s", s->title ? s->title : "");
  cols[n - 1] = accent;
  snprintf(lines[n++], 128, "t = %.4f s   %s%s", f->t, s->paused ? "PAUSED" : "running",
           s->live ? "" : "  (replay)");
  if (s->speed >= 1) snprintf(lines[n++], 128, "speed %gx   real time x %.3g   %.0f fps", s->speed, s->rtf, s->fps);
  else snprintf(lines[n++], 128, "speed 1/%gx   real time x %.3g   %.0f fps", 1 / s->speed, s->rtf, s->fps);
  snprintf(lines[n++], 128, "steps %ld  rhs %ld  fails %ld  events %d", f->stats.steps, f->stats.rhs_evals,
           f->stats.err_test_fails + f->stats.conv_fails, f->nevents);
  snprintf(lines[n++], 128, "energy %.6g J   budget drift %.2e", f->energy, f->budget.max_drift);
  snprintf(lines[n++], 128, "p  %+.4g %+.4g %+.4g", f->h[3], f->h[4], f->h[5]);
  snprintf(lines[n++], 128, "L  %+.4g %+.4g %+.4g", f->h[0], f->h[1], f->h[2]);
  if (s->tracked) snprintf(lines[n++], 128, "tracking %s", s->tracked);
  /* the overlays, wrapped at 40 characters so that the panel stays narrow */
  char ov[128] = "overlays:";
  for (int k = 0; k < HG_OV_COUNT; k++) {
    if (!(s->overlays & (1 << k))) continue;
    if (strlen(ov) + 1 + strlen(hg_overlay_name(k)) > 40 && n < 20) {
      snprintf(lines[n++], 128, "%s", ov);
      cols[n - 1] = dim;
      snprintf(ov, sizeof ov, "         ");
    }
    snprintf(ov + strlen(ov), sizeof ov - strlen(ov), " %s", hg_overlay_name(k));
  }
  snprintf(lines[n++], 128, "%s", ov);
  cols[n - 1] = dim;
  snprintf(lines[n++], 128, "F1 help");
  cols[n - 1] = dim;
  n += loop_lines(r, f, h, lines + n, cols + n, 24 - n, n, hh);
  float hud_w = 0;
  for (int k = 0; k < n; k++) hud_w = fmaxf(hud_w, hg_renderer_text_width(r, lines[k]) + 16);
  float hud_h = text_panel(r, 12, 12, hud_w, lines, n, cols);
  /* the control panel under it, clear of the selection panel growing up from the bottom */
  if (s->overlays & HG_OV_ACTUATORS)
    hg_hud_control(r, f, h, 12, 12 + hud_h + 6, 0.68f * (float)hh - hud_h);

  /* the last events, with the energy they removed */
  if (h && f->nevents > 0) {
    char ev[6][128];
    const float *ec[6];
    int m = 0;
    snprintf(ev[m], 128, "events");
    ec[m++] = accent;
    for (int k = f->nevents - 1; k >= 0 && m < 6 && k < h->nevent; k--) {
      const hg_hevent *e = &h->event[k];
      snprintf(ev[m], 128, "%8.3f s  %-14.14s dE %+.3g J  lock %.3g J  dh %.1e", e->t, e->name,
               e->de, e->e_removed, e->dh);
      ec[m++] = white;
    }
    /* cut at the right to stay clear of the HUD panel (12 .. 12 + hud_w) */
    float pw = 0, room = (float)w - 12 - (12 + hud_w + 8);
    for (int k = 0; k < m; k++) {
      size_t len = strlen(ev[k]);
      while (len > 8 && hg_renderer_text_width(r, ev[k]) + 16 > room) ev[k][--len] = 0;
      pw = fmaxf(pw, hg_renderer_text_width(r, ev[k]) + 16);
    }
    text_panel(r, w - pw - 12, 12, pw, ev, m, ec);
  }
  if (s->plots && h && h->n > 1) plots(r, f, h, frame_index, s);
  timeline(r, f, h, s);
  if (s->help) help(r);
  if (s->message && *s->message) hg_hud_message(r, s->message);
}

void hg_hud_interact_draw(hg_renderer *r, const hg_hud_interact *s) {
  int w, hh;
  float x0, x1, y0, y1, lh = hg_renderer_line_height(r);
  hg_renderer_size(r, &w, &hh);
  hg_hud_timeline_rect(w, hh, &x0, &x1, &y0, &y1);
  float y = y0 - 30 - lh - 10; /* the bar, above the timeline's labels */
  char bar[1][128];
  const float *col[1] = {white};
  if (s->cmdline) {
    snprintf(bar[0], 128, ":%s_", s->cmdline);
    col[0] = accent;
  } else if (s->preview && *s->preview) {
    snprintf(bar[0], 128, "%s", s->preview);
    col[0] = accent;
  } else if (s->result && *s->result) {
    snprintf(bar[0], 128, "%s", s->result);
    col[0] = s->result_error ? red : white;
  } else {
    bar[0][0] = 0;
  }
  if (bar[0][0]) text_panel(r, 12, y, x1 - x0, bar, 1, col);
  /* a result under an open command line (completion candidates, errors) */
  if (s->cmdline && s->result && *s->result) {
    snprintf(bar[0], 128, "%s", s->result);
    col[0] = s->result_error ? red : dim;
    text_panel(r, 12, y - lh - 14, 0, bar, 1, col);
  }
  if (s->ngauge > 0) {
    const float *gc[12];
    int n = s->ngauge > 12 ? 12 : s->ngauge;
    for (int k = 0; k < n; k++) gc[k] = strstr(s->gauge[k], "WITHIN") ? accent : white;
    float pw = 0;
    for (int k = 0; k < n; k++) pw = fmaxf(pw, hg_renderer_text_width(r, s->gauge[k]) + 16);
    text_panel(r, (float)w - pw - 12, 150, pw, s->gauge, n, gc);
  }
  if (s->npanel > 0) {
    const float *pc[16];
    int n = s->npanel > 16 ? 16 : s->npanel;
    for (int k = 0; k < n; k++) pc[k] = k ? white : accent;
    text_panel(r, 12, y - (lh * n + 10) - (s->cmdline ? 2 * lh + 24 : 6), 0, s->panel, n, pc);
  }
}

void hg_hud_slider_rect(int w, int h, int k, int n, float *x0, float *x1, float *y) {
  float tx0, tx1, ty0, ty1;
  hg_hud_timeline_rect(w, h, &tx0, &tx1, &ty0, &ty1);
  *x0 = (float)w - 300, *x1 = (float)w - 24;
  *y = ty0 - 40 - 22.0f * (float)(n - 1 - k);
}

void hg_hud_sliders(hg_renderer *r, int n, char (*labels)[64], const double *range,
                    const double *value, int active) {
  int w, h;
  float x0, x1, y, lw = 0;
  hg_renderer_size(r, &w, &h);
  if (n <= 0) return;
  for (int k = 0; k < n; k++) lw = fmaxf(lw, hg_renderer_text_width(r, labels[k]));
  hg_hud_slider_rect(w, h, 0, n, &x0, &x1, &y);
  hg_renderer_rect(r, x0 - lw - 24, y - 14, x1 - x0 + lw + 36, 22.0f * (float)n + 6, panel);
  for (int k = 0; k < n; k++) {
    char val[32];
    hg_hud_slider_rect(w, h, k, n, &x0, &x1, &y);
    float bar[4] = {0.3f, 0.33f, 0.4f, 1}, mid[4] = {0.6f, 0.6f, 0.65f, 1};
    hg_renderer_text(r, x0 - lw - 14, y + 5, labels[k], k == active ? accent : white);
    hg_renderer_rect(r, x0, y - 2, x1 - x0, 4, bar);
    hg_renderer_rect(r, 0.5f * (x0 + x1) - 0.5f, y - 6, 1, 12, mid);
    double f = range[k] > 0 ? 0.5 + 0.5 * fmax(-1, fmin(1, value[k] / range[k])) : 0.5;
    float hx = x0 + (float)f * (x1 - x0);
    hg_renderer_rect(r, hx - 4, y - 7, 8, 14, k == active ? accent : white);
    snprintf(val, sizeof val, "%+.3f", value[k]);
    hg_renderer_text(r, x1 - hg_renderer_text_width(r, val), y - 6, val, dim);
  }
}

void hg_hud_message(hg_renderer *r, const char *message) {
  char ml[12][128];
  const float *mc[12];
  int m = 0, w, hh;
  hg_renderer_size(r, &w, &hh);
  for (const char *p = message; *p && m < 12;) {
    size_t len = strlen(p) > 110 ? 110 : strlen(p);
    const char *nl = memchr(p, '\n', len);
    if (nl) len = (size_t)(nl - p);
    snprintf(ml[m], 128, "%.*s", (int)len, p);
    mc[m++] = red;
    p += len + (p[len] == '\n');
  }
  float pw = 0;
  for (int k = 0; k < m; k++) pw = fmaxf(pw, hg_renderer_text_width(r, ml[k]) + 16);
  text_panel(r, (w - pw) / 2, hh * 0.4f, pw, ml, m, mc);
}
