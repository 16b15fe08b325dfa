/* hud_layout.c: the HUD's geometry, achieved rate, strip scales and text fitting (hud_layout.h). */
#include "hud_layout.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the achieved rate ---- */

void hg_rate_meter_reset(hg_rate_meter *m) {
  m->window = 1, m->n = 0, m->head = 0;
}

void hg_rate_meter_add(hg_rate_meter *m, double clock, double sim_t) {
  if (!(m->window > 0)) m->window = 1;
  if (m->n == HG_RATE_SAMPLES) m->head = (m->head + 1) % HG_RATE_SAMPLES, m->n--;
  int k = (m->head + m->n) % HG_RATE_SAMPLES;
  m->clock[k] = clock, m->sim[k] = sim_t, m->n++;
  /* keep one sample at or beyond the window's start, none older */
  while (m->n > 2 && m->clock[(m->head + 1) % HG_RATE_SAMPLES] <= clock - m->window)
    m->head = (m->head + 1) % HG_RATE_SAMPLES, m->n--;
}

double hg_rate_meter_rate(const hg_rate_meter *m, double *span) {
  if (span) *span = 0;
  if (m->n < 2) return NAN;
  int a = m->head, b = (m->head + m->n - 1) % HG_RATE_SAMPLES;
  double dc = m->clock[b] - m->clock[a];
  if (span) *span = dc;
  /* the rate over the window: simulated seconds shown per clock second */
  return dc > 0 ? (m->sim[b] - m->sim[a]) / dc : NAN;
}

int hg_hud_rate_line(char *buf, size_t n, double speed, double rate, double span, int running,
                     double fps) {
  char sp[32];
  if (speed >= 1) snprintf(sp, sizeof sp, "%gx", speed);
  else snprintf(sp, sizeof sp, "1/%gx", 1 / speed);
  int have = running && isfinite(rate);
  /* behind: under 90 % of the speed asked for, over at least half a second of clock */
  int behind = have && span >= 0.5 && rate < 0.9 * speed;
  if (behind) snprintf(buf, n, "behind: %.2gx of %s   %.0f fps", rate, sp, fps);
  else if (have) snprintf(buf, n, "speed %s   achieved %.3gx   %.0f fps", sp, rate, fps);
  else snprintf(buf, n, "speed %s   %.0f fps", sp, fps);
  return behind;
}

/* ---- layout ---- */

static hg_hud_rect rect(float x, float y, float w, float h) {
  hg_hud_rect r = {x, y, w > 0 && h > 0 ? w : 0, w > 0 && h > 0 ? h : 0};
  return r;
}

int hg_hud_rect_overlap(const hg_hud_rect *a, const hg_hud_rect *b) {
  if (!(a->w > 0) || !(b->w > 0)) return 0;
  return a->x < b->x + b->w && b->x < a->x + a->w && a->y < b->y + b->h && b->y < a->y + a->h;
}

void hg_hud_timeline_rect(int w, int h, float *x0, float *x1, float *y0, float *y1) {
  *x0 = 16, *x1 = (float)w - 16, *y1 = (float)h - 14, *y0 = *y1 - 10;
}

void hg_hud_timeline_labels(int w, int h, float lh, double t, double t0, double t1, float cw,
                            float ew, hg_hud_rect *cursor, hg_hud_rect *end) {
  float x0, x1, y0, y1;
  hg_hud_timeline_rect(w, h, &x0, &x1, &y0, &y1);
  float base = y0 - 8, top = base - lh + 4; /* a line's box around its baseline */
  double span = t1 - t0;
  float cx = span > 0 ? x0 + (float)((t - t0) / span) * (x1 - x0) : x0;
  float ex = x1 - ew, tx = fminf(fmaxf(cx - cw / 2, x0), x1 - cw);
  *end = rect(ex, top, ew, lh);
  if (tx + cw + 8 > ex) tx = ex - 8 - cw; /* left of the end label */
  if (tx < x0) { /* no room for both: the cursor's label only */
    tx = fminf(fmaxf(cx - cw / 2, x0), x1 - cw);
    end->w = 0;
  }
  *cursor = rect(tx, top, cw, lh);
}

void hg_hud_slider_rect(int w, int h, int k, int n, float *x0, float *x1, float *y) {
  float tx0, tx1, ty0, ty1;
  hg_hud_timeline_rect(w, h, &tx0, &tx1, &ty0, &ty1);
  *x0 = (float)w - 300, *x1 = (float)w - 24;
  *y = ty0 - 40 - 22.0f * (float)(n - 1 - k);
}

int hg_hud_slider_fit(int h) {
  int n = (int)(0.45f * (float)h / 22);
  return n < 12 ? n : 12;
}

/* lines of three stacked panels that fit in avail pixels, the first (want[0]) served first but
 * leaving half the room to the others; gets[] the lines each gets (0: not shown) */
static void share(const int *want, int k, float avail, float lh, float gap, int *gets) {
  int shown = 0, total = 0;
  for (int i = 0; i < k; i++) shown += want[i] > 0, gets[i] = 0;
  if (!shown) return;
  int fit = (int)floorf((avail - 10 * (float)shown - gap * (float)(shown - 1)) / lh);
  if (fit < 1) return;
  for (int i = 1; i < k; i++) total += want[i];
  int first = want[0] < fit - total ? want[0] : fit - total;
  if (first < fit / 2) first = want[0] < fit / 2 ? want[0] : fit / 2;
  gets[0] = first, fit -= first;
  for (int i = 1; i < k; i++) {
    gets[i] = want[i] < fit ? want[i] : fit;
    fit -= gets[i];
  }
}

/* the foot of a column spanning x0..x1: above the bar and sliders that reach under it */
static float column_bottom(const hg_hud_layout *o, float x0, float x1, float bottom, float gap) {
  static const int below[2] = {HG_HUD_BAR, HG_HUD_SLIDERS};
  for (int i = 0; i < 2; i++) {
    const hg_hud_rect *b = &o->r[below[i]];
    if (b->w > 0 && b->x < x1 && x0 < b->x + b->w) bottom = fminf(bottom, b->y - gap);
  }
  return bottom;
}

void hg_hud_layout_compute(const hg_hud_layout_in *in, hg_hud_layout *o) {
  const float m = 12, g = 6, lh = in->lh, W = (float)in->w, H = (float)in->h;
  const int *L = in->lines;
  const float *wd = in->width;
  memset(o, 0, sizeof *o);
  float bottom = H - m;
  if (L[HG_HUD_TIMELINE] > 0) { /* the timeline's panel: its labels, bar and cursor */
    o->r[HG_HUD_TIMELINE] = rect(m, H - 46, W - 2 * m, 36);
    o->lines[HG_HUD_TIMELINE] = 1;
    bottom = H - 46 - g;
  }
  float right = W - m;
  if (L[HG_HUD_SLIDERS] > 0) {
    int n = L[HG_HUD_SLIDERS] < hg_hud_slider_fit(in->h) ? L[HG_HUD_SLIDERS] : hg_hud_slider_fit(in->h);
    float x0, x1, y;
    hg_hud_slider_rect(in->w, in->h, 0, n, &x0, &x1, &y);
    /* labels: at most to the middle (at least 40 px: in a narrow window past it) */
    float lw = fminf(wd[HG_HUD_SLIDERS], fmaxf(x0 - 24 - 0.5f * W, 40));
    if (n > 0) {
      /* from above the first slider's value label (baseline y - 6) to under the last bar */
      o->r[HG_HUD_SLIDERS] = rect(x0 - lw - 24, y - 20, x1 - x0 + lw + 36, 22.0f * (float)n + 12);
      o->lines[HG_HUD_SLIDERS] = n;
      right = o->r[HG_HUD_SLIDERS].x - g;
    }
  }
  if (L[HG_HUD_BAR] > 0) {
    int n = L[HG_HUD_BAR] < 3 ? L[HG_HUD_BAR] : 3;
    float bh = (float)n * lh + 10;
    o->r[HG_HUD_BAR] = rect(m, bottom - bh, right - m, bh);
    o->lines[HG_HUD_BAR] = n;
  }
  /* the columns' widths: as wide as their text, at most 42 % and 38 % of the image */
  float lw = 0, rw = 0;
  for (int a = HG_HUD_PANEL; a <= HG_HUD_SELECTION; a++)
    if (L[a] > 0) lw = fmaxf(lw, wd[a]);
  for (int a = HG_HUD_EVENTS; a <= HG_HUD_PROFILER; a++)
    if (L[a] > 0) rw = fmaxf(rw, wd[a]);
  if (L[HG_HUD_PLOTS] > 0) rw = fmaxf(rw, fminf(380, 0.32f * W));
  lw = fminf(lw, 0.42f * W), rw = fminf(rw, 0.38f * W);
  if (lw + rw + 2 * m + g > W) {
    float s = (W - 2 * m - g) / (lw + rw);
    lw *= s, rw *= s;
  }
  float rx = W - m - rw, cx0 = m + lw + g, cx1 = rw > 0 ? rx - g : W - m;
  /* each column ends above the bar or sliders under it */
  float lband = column_bottom(o, m, m + lw, bottom, g), rband = column_bottom(o, rx, W - m, bottom, g),
        band = column_bottom(o, cx0, cx1, bottom, g);
  /* the message: the middle above the bar; when the middle is narrow, from the left edge to the
   * sliders (or the right edge), the columns it spans ending above it */
  if (L[HG_HUD_MESSAGE] > 0) {
    int wide = cx1 - cx0 < 240;
    float x0 = wide ? m : cx0, x1 = cx1;
    if (wide) x1 = o->r[HG_HUD_SLIDERS].w > 0 ? o->r[HG_HUD_SLIDERS].x - g : W - m;
    float mw = fminf(wd[HG_HUD_MESSAGE], x1 - x0), mb = column_bottom(o, x0, x1, bottom, g);
    int fit = (int)((0.5f * (mb - m) - 10) / lh), n = L[HG_HUD_MESSAGE] < fit ? L[HG_HUD_MESSAGE] : fit;
    if (n > 0) {
      float mh = (float)n * lh + 10;
      o->r[HG_HUD_MESSAGE] = rect(x0 + 0.5f * (x1 - x0 - mw), mb - mh, mw, mh);
      o->lines[HG_HUD_MESSAGE] = n;
      if (wide) {
        const hg_hud_rect *r = &o->r[HG_HUD_MESSAGE];
        lband = fminf(lband, r->y - g), band = fminf(band, r->y - g);
        if (rw > 0 && rx < r->x + r->w) rband = fminf(rband, r->y - g);
      }
    }
  }
  /* the left column: the HUD panel from the top, the control panel under it, the selection
   * panel at the foot */
  int want[3] = {L[HG_HUD_PANEL], L[HG_HUD_SELECTION], L[HG_HUD_CONTROL] >= 2 ? L[HG_HUD_CONTROL] : 0}, got[3];
  share(want, 3, lband - m, lh, g, got);
  if (got[2] < 2) got[2] = 0;
  float y = m;
  if (got[0] > 0) {
    o->r[HG_HUD_PANEL] = rect(m, y, lw, (float)got[0] * lh + 10);
    o->lines[HG_HUD_PANEL] = got[0];
    y += o->r[HG_HUD_PANEL].h + g;
  }
  if (got[2] > 0) {
    o->r[HG_HUD_CONTROL] = rect(m, y, lw, (float)got[2] * lh + 10);
    o->lines[HG_HUD_CONTROL] = got[2];
  }
  if (got[1] > 0) {
    float sh = (float)got[1] * lh + 10;
    o->r[HG_HUD_SELECTION] = rect(m, lband - sh, lw, sh);
    o->lines[HG_HUD_SELECTION] = got[1];
  }
  /* the right column: events, gauges, the profiler, then the strips in what is left */
  int rwant[3] = {L[HG_HUD_EVENTS], L[HG_HUD_GAUGES], L[HG_HUD_HELP] > 0 ? 0 : L[HG_HUD_PROFILER]}, rgot[3];
  /* room kept for one strip, or for up to 8 lines of the help */
  float strips = L[HG_HUD_PLOTS] > 0 && L[HG_HUD_HELP] <= 0 ? 62 : 0;
  if (L[HG_HUD_HELP] > 0) strips = (float)(L[HG_HUD_HELP] < 8 ? L[HG_HUD_HELP] : 8) * lh + 10 + g;
  share(rwant, 3, rband - m - strips, lh, g, rgot);
  y = m;
  static const int ra[3] = {HG_HUD_EVENTS, HG_HUD_GAUGES, HG_HUD_PROFILER};
  for (int i = 0; i < 3; i++) {
    if (rgot[i] <= 0 || rw <= 0) continue;
    o->r[ra[i]] = rect(rx, y, rw, (float)rgot[i] * lh + 10);
    o->lines[ra[i]] = rgot[i];
    y += o->r[ra[i]].h + g;
  }
  if (L[HG_HUD_HELP] > 0) { /* the help takes the plots' place and the middle */
    float top = y, hx0 = cx0;
    float hb = column_bottom(o, hx0, W - m, bottom, g);
    if (o->r[HG_HUD_MESSAGE].w > 0) hb = fminf(hb, o->r[HG_HUD_MESSAGE].y - g);
    int fit = (int)((hb - top - 10) / lh), n = L[HG_HUD_HELP] < fit ? L[HG_HUD_HELP] : fit;
    if (n > 0) {
      /* from the top of the middle when the message is not there; under the right column's
       * panels otherwise */
      o->r[HG_HUD_HELP] = rect(hx0, top, W - m - hx0, (float)n * lh + 10);
      o->lines[HG_HUD_HELP] = n;
    }
  } else if (L[HG_HUD_PLOTS] > 0 && rw > 0) {
    float avail = rband - y;
    int fit = (int)((avail + g) / (56 + g)), n = L[HG_HUD_PLOTS] < fit ? L[HG_HUD_PLOTS] : fit;
    if (n > 0) {
      float ph = fminf(120, (avail + g) / (float)n - g);
      o->r[HG_HUD_PLOTS] = rect(rx, y, rw, (float)n * (ph + g) - g);
      o->lines[HG_HUD_PLOTS] = n;
    }
  }
}

/* ---- text ---- */

/* significant digits of a number's text (a mantissa's digits without leading zeros) */
static int significant(const char *s, const char *end) {
  int n = 0, lead = 1;
  for (const char *p = s; p < end && *p != 'e' && *p != 'E'; p++) {
    if (!isdigit((unsigned char)*p)) continue;
    if (lead && *p == '0') continue;
    lead = 0, n++;
  }
  return n;
}

void hg_hud_shorten_numbers(const char *text, char *out, size_t n) {
  size_t o = 0;
  if (!n) return;
  for (const char *p = text; *p && o + 1 < n;) {
    int starts = isdigit((unsigned char)*p) ||
                 ((*p == '-' || *p == '+' || *p == '.') && isdigit((unsigned char)p[1])) ||
                 ((*p == '-' || *p == '+') && p[1] == '.' && isdigit((unsigned char)p[2]));
    int inword = p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '_' || p[-1] == '.');
    if (starts && !inword) {
      char *end;
      double v = strtod(p, &end);
      if (end > p && significant(p, end) > 6 && isfinite(v)) {
        char num[32];
        int k = snprintf(num, sizeof num, "%s%.6g", *p == '+' && v >= 0 ? "+" : "", v);
        for (int i = 0; i < k && o + 1 < n; i++) out[o++] = num[i];
      } else {
        for (const char *q = p; q < end && o + 1 < n; q++) out[o++] = *q;
      }
      p = end > p ? end : p + 1;
      continue;
    }
    out[o++] = *p++;
  }
  out[o] = 0;
}

int hg_hud_wrap(const char *text, float maxw, float (*width)(const void *ctx, const char *s),
                const void *ctx, char (*lines)[128], int max) {
  char buf[2048];
  int n = 0;
  if (max <= 0) return 0;
  hg_hud_shorten_numbers(text, buf, sizeof buf);
  const char *p = buf;
  while (*p && n < max) {
    /* the longest run of words from p that fits (at least one word, cut when it alone does not) */
    char line[128];
    size_t len = 0, good = 0;
    const char *q = p;
    while (*q && *q != '\n' && len < sizeof line - 1) {
      line[len++] = *q++;
      line[len] = 0;
      if ((*q == ' ' || *q == '\n' || !*q) && width(ctx, line) <= maxw) good = len;
      if (width(ctx, line) > maxw) break;
    }
    if (!good) { /* one word wider than the line: as much of it as fits */
      good = len > 1 ? len - 1 : 1;
      if (!*q || *q == '\n') good = len;
    }
    if (n == max - 1 && p[good] && !(p[good] == '\n' && !p[good + 1])) { /* the text goes on */
      while (good > 0) {
        snprintf(line, sizeof line, "%.*s...", (int)good, p);
        if (width(ctx, line) <= maxw) break;
        while (good > 0 && p[good - 1] != ' ') good--; /* drop a whole word */
        while (good > 0 && p[good - 1] == ' ') good--;
      }
      snprintf(lines[n++], 128, "%.*s...", (int)good, p);
      return n;
    }
    snprintf(lines[n++], 128, "%.*s", (int)good, p);
    p += good;
    while (*p == ' ') p++;
    if (*p == '\n') p++;
  }
  return n;
}

/* ---- strip plots ---- */

static const struct {
  const char *title, *unit;
} strips[HG_STRIP_COUNT] = {
    {"energy", "J"},
    {"budget drift B - B0", "J"},
    {"|L| about the origin", "kg m^2/s"},
    {"|p|", "kg m/s"},
    {"separation", "m"},
    {"locked/prescribed joint force (max)", "N"},
    {"locked/prescribed joint moment (max)", "N m"},
};

const char *hg_hud_strip_title(int s) { return s >= 0 && s < HG_STRIP_COUNT ? strips[s].title : ""; }
const char *hg_hud_strip_unit(int s) { return s >= 0 && s < HG_STRIP_COUNT ? strips[s].unit : ""; }

int hg_hud_strip_nseries(int strip, const hg_frame *f) {
  if (strip == HG_STRIP_SEPARATION) return f->npair < 3 ? f->npair : 3;
  return 1;
}

/* |x| of a 3-vector */
static double norm3(const double *x) { return sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]); }

double hg_hud_strip_value(int strip, const hg_frame *f, int s) {
  switch (strip) {
  case HG_STRIP_ENERGY: return f->energy;
  case HG_STRIP_DRIFT: return f->budget.value - f->budget.initial; /* B - B0 */
  case HG_STRIP_ANGULAR: return norm3(f->h);
  case HG_STRIP_LINEAR: return norm3(f->h + 3);
  case HG_STRIP_SEPARATION: return s < f->npair && f->pair[s].present ? f->pair[s].distance : NAN;
  case HG_STRIP_FORCE: case HG_STRIP_MOMENT: {
    double m = NAN; /* the largest over the locked and prescribed joints (world wrench) */
    for (int j = 0; j < f->njoint; j++)
      if (f->joint[j].mode != HG_MODE_FREE) {
        double x = norm3(f->joint[j].wrench + (strip == HG_STRIP_FORCE ? 3 : 0));
        m = isnan(m) ? x : fmax(m, x);
      }
    return m;
  }
  default: return NAN;
  }
}

int hg_hud_strip_range(int strip, const hg_history *h, int upto, double *lo, double *hi) {
  double a = INFINITY, b = -INFINITY;
  for (int k = 0; k <= upto && k < h->n; k++)
    for (int s = 0; s < hg_hud_strip_nseries(strip, &h->frame[k]); s++) {
      double v = hg_hud_strip_value(strip, &h->frame[k], s);
      if (isfinite(v)) a = fmin(a, v), b = fmax(b, v);
    }
  if (!(a <= b)) return -1;
  if (b - a <= 1e-12 * fmax(fabs(a), fabs(b))) { /* flat: centred, half its size each way */
    double d = 0.5 * fmax(fmax(fabs(a), fabs(b)), 1e-9);
    a -= d, b += d;
  }
  *lo = a, *hi = b;
  return 0;
}

/* ---- columns plotted on demand ---- */

static const char *const scalar_names[] = {"kinetic", "potential", "element", "removed_by_locks", "work",
                                           "event_work", "budget", "Lx", "Ly", "Lz", "px", "py", "pz"};

int hg_hud_column_resolve(const hg_model *m, const char *name, hg_hud_column *c) {
  memset(c, 0, sizeof *c);
  snprintf(c->name, sizeof c->name, "%s", name);
  for (int k = 0; k < (int)(sizeof scalar_names / sizeof scalar_names[0]); k++)
    if (!strcmp(name, scalar_names[k])) return c->kind = HG_COLUMN_SCALAR, c->k = k, 0;
  const char *dot = strchr(name, '.');
  if (!dot || (size_t)(dot - name) >= sizeof c->object) return -1;
  snprintf(c->object, sizeof c->object, "%.*s", (int)(dot - name), name);
  const char *rest = dot + 1;
  for (int i = 1; i < m->nbody; i++) {
    if (!strcmp(m->body_name[i], c->object) && strlen(rest) == 1 && rest[0] >= 'x' && rest[0] <= 'z')
      return c->kind = HG_COLUMN_BODY, c->k = rest[0] - 'x', 0;
    if (strcmp(m->jnt_name[i], c->object) || (strncmp(rest, "q.", 2) && strncmp(rest, "v.", 2))) continue;
    int what = rest[0] == 'v', n = what ? m->jnt_nv[i] : m->jnt_nq[i];
    for (int k = 0; k < n; k++) {
      const char *e = hg_joint_entry_name(m->jnt[i].type, what, k, NULL);
      if (e && !strcmp(e, rest + 2)) return c->kind = what ? HG_COLUMN_JOINT_V : HG_COLUMN_JOINT_Q, c->k = k, 0;
    }
  }
  return -1;
}

double hg_hud_column_value(const hg_hud_column *c, const hg_sim *sim, const hg_frame *f, hg_history *h) {
  const hg_model *m = hg_sim_model(sim);
  if (c->kind == HG_COLUMN_SCALAR) { /* trajectory.csv's energy and momentum columns */
    const hg_sim_budget *b = &f->budget;
    const double x[] = {b->kinetic, b->potential, b->element, b->e_lock, b->work, b->work_event, b->value,
                        f->h[0], f->h[1], f->h[2], f->h[3], f->h[4], f->h[5]};
    return x[c->k];
  }
  if (c->kind == HG_COLUMN_BODY) {
    int b = hg_frame_body(f, hg_history_intern(h, c->object));
    return b > 0 ? f->body[b].pose.p[c->k] : NAN;
  }
  for (int i = 1; i < m->nbody; i++)
    if (!strcmp(m->jnt_name[i], c->object)) {
      if (c->kind == HG_COLUMN_JOINT_Q) return c->k < m->jnt_nq[i] ? hg_sim_q(sim)[m->q_adr[i] + c->k] : NAN;
      return c->k < m->jnt_nv[i] ? hg_sim_v(sim)[m->v_adr[i] + c->k] : NAN;
    }
  return NAN;
}

/* one candidate of a completion: counted, the common beginning narrowed, listed while room */
static void candidate(const char *name, const char *prefix, int *count, char *out, size_t n, char *list,
                      size_t ln) {
  if (strncmp(name, prefix, strlen(prefix))) return;
  if ((*count)++ == 0) snprintf(out, n, "%s", name);
  else {
    size_t k = 0;
    while (out[k] && out[k] == name[k]) k++;
    out[k] = 0;
  }
  size_t used = strlen(list);
  if (used + strlen(name) + 2 < ln) snprintf(list + used, ln - used, "%s%s", used ? " " : "", name);
}

int hg_hud_column_complete(const hg_model *m, const char *prefix, char *out, size_t n, char *list,
                           size_t ln) {
  int count = 0;
  char name[200];
  out[0] = 0, list[0] = 0;
  for (int i = 1; i < m->nbody; i++) {
    for (int k = 0; k < 3; k++) {
      snprintf(name, sizeof name, "%s.%c", m->body_name[i], 'x' + k);
      candidate(name, prefix, &count, out, n, list, ln);
    }
    for (int what = 0; what < 2; what++)
      for (int k = 0; k < (what ? m->jnt_nv[i] : m->jnt_nq[i]); k++) {
        const char *e = hg_joint_entry_name(m->jnt[i].type, what, k, NULL);
        if (!e) continue;
        snprintf(name, sizeof name, "%s.%c.%s", m->jnt_name[i], what ? 'v' : 'q', e);
        candidate(name, prefix, &count, out, n, list, ln);
      }
  }
  for (size_t k = 0; k < sizeof scalar_names / sizeof scalar_names[0]; k++)
    candidate(scalar_names[k], prefix, &count, out, n, list, ln);
  return count;
}

/* ---- 3-D labels ---- */

void hg_hud_spread_labels(hg_hud_rect *box, int n) {
  int order[512];
  if (n > 512) n = 512;
  for (int k = 0; k < n; k++) order[k] = k;
  for (int i = 1; i < n; i++) /* by y, then index (insertion sort: a few dozen labels) */
    for (int j = i; j > 0; j--) {
      const hg_hud_rect *a = &box[order[j - 1]], *b = &box[order[j]];
      if (a->y < b->y || (a->y == b->y && order[j - 1] < order[j])) break;
      int t = order[j];
      order[j] = order[j - 1], order[j - 1] = t;
    }
  for (int i = 1; i < n; i++) {
    hg_hud_rect *b = &box[order[i]];
    for (int moved = 1; moved;) { /* below every earlier box it meets */
      moved = 0;
      for (int j = 0; j < i; j++)
        if (hg_hud_rect_overlap(b, &box[order[j]])) b->y = box[order[j]].y + box[order[j]].h, moved = 1;
    }
  }
}
