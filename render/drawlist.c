/* drawlist.c: the draw list of a frame: body geometry, overlays, bounds and picking. */
#include "drawlist.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"

static const char *const overlay_names[HG_OV_COUNT] = {
    "frames", "joints", "com", "markers", "inertia", "wrenches",
    "springs", "forces", "trails", "pairs", "momentum", "loops", "actuators", "sensors"};

const char *hg_overlay_name(int k) { return k >= 0 && k < HG_OV_COUNT ? overlay_names[k] : ""; }

int hg_overlay_parse(const char *list, int *mask, char *err, size_t errlen) {
  char buf[512];
  int m = 0;
  if (strlen(list) >= sizeof buf) return snprintf(err, errlen, "overlay list too long"), -1;
  strcpy(buf, list);
  for (char *tok = strtok(buf, ", "); tok; tok = strtok(NULL, ", ")) {
    int k, found = 0;
    if (!strcmp(tok, "none")) continue;
    if (!strcmp(tok, "all")) m |= HG_OV_ALL, found = 1;
    else if (!strcmp(tok, "default")) m |= HG_OV_DEFAULT, found = 1;
    for (k = 0; k < HG_OV_COUNT && !found; k++)
      if (!strcmp(tok, overlay_names[k])) m |= 1 << k, found = 1;
    if (!found) {
      int n = snprintf(err, errlen, "unknown overlay '%s' (one of all, none, default", tok);
      for (k = 0; k < HG_OV_COUNT && n > 0 && (size_t)n < errlen; k++)
        n += snprintf(err + n, errlen - (size_t)n, ", %s", overlay_names[k]);
      if (n > 0 && (size_t)n < errlen) snprintf(err + n, errlen - (size_t)n, ")");
      return -1;
    }
  }
  *mask = m;
  return 0;
}

/* ---- the list ---- */

void hg_draw_list_init(hg_draw_list *dl) { memset(dl, 0, sizeof *dl); }

void hg_draw_list_free(hg_draw_list *dl) {
  free(dl->shape), free(dl->line), free(dl->label);
  memset(dl, 0, sizeof *dl);
}

void hg_draw_list_clear(hg_draw_list *dl) {
  dl->nshape = dl->nline = dl->nlabel = 0;
  dl->ground = dl->space = dl->planet = 0;
}

/* room for one more item of an array; 0 or -1 */
static int grow(void **p, int n, int *cap, size_t sz) { return hg_grow(p, n, cap, 256, sz); }

int hg_draw_shape_add(hg_draw_list *dl, const hg_draw_shape *s) {
  if (grow((void **)&dl->shape, dl->nshape, &dl->capshape, sizeof *s)) return -1;
  dl->shape[dl->nshape++] = *s;
  return 0;
}

int hg_draw_line_add(hg_draw_list *dl, const double a[3], const double b[3], const float rgba[4]) {
  if (grow((void **)&dl->line, dl->nline, &dl->capline, sizeof *dl->line)) return -1;
  hg_draw_line *l = &dl->line[dl->nline++];
  memcpy(l->a, a, sizeof l->a), memcpy(l->b, b, sizeof l->b), memcpy(l->rgba, rgba, sizeof l->rgba);
  return 0;
}

int hg_draw_label_add(hg_draw_list *dl, const double p[3], const char *text, const float rgba[4]) {
  if (grow((void **)&dl->label, dl->nlabel, &dl->caplabel, sizeof *dl->label)) return -1;
  hg_draw_label *l = &dl->label[dl->nlabel++];
  memcpy(l->p, p, sizeof l->p), memcpy(l->rgba, rgba, sizeof l->rgba);
  snprintf(l->text, sizeof l->text, "%s", text);
  return 0;
}

/* a rotation whose z axis is the unit vector z (row-major, columns x y z) */
static void frame_from_z(const double z[3], double R[9]) {
  double x[3], y[3], a[3] = {1, 0, 0};
  if (fabs(z[0]) > 0.9) a[0] = 0, a[1] = 1;
  y[0] = z[1] * a[2] - z[2] * a[1], y[1] = z[2] * a[0] - z[0] * a[2], y[2] = z[0] * a[1] - z[1] * a[0];
  double n = sqrt(y[0] * y[0] + y[1] * y[1] + y[2] * y[2]);
  for (int k = 0; k < 3; k++) y[k] /= n;
  x[0] = y[1] * z[2] - y[2] * z[1], x[1] = y[2] * z[0] - y[0] * z[2], x[2] = y[0] * z[1] - y[1] * z[0];
  for (int r = 0; r < 3; r++) R[3 * r] = x[r], R[3 * r + 1] = y[r], R[3 * r + 2] = z[r];
}

int hg_draw_arrow(hg_draw_list *dl, const double p[3], const double v[3], double r,
                  const float rgba[4]) {
  double len = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]), z[3];
  if (!(len > 0) || !isfinite(len)) return 0;
  for (int k = 0; k < 3; k++) z[k] = v[k] / len;
  double head = fmin(0.35 * len, 5 * r), shaft = len - head;
  hg_draw_shape s = {.type = HG_SHAPE_ARROW_SHAFT, .mesh = -1, .overlay = 1};
  memcpy(s.rgba, rgba, sizeof s.rgba);
  frame_from_z(z, s.pose.R);
  memcpy(s.pose.p, p, sizeof s.pose.p);
  s.size[0] = r, s.size[1] = shaft;
  if (shaft > 0 && hg_draw_shape_add(dl, &s)) return -1;
  s.type = HG_GEOM_CONE;
  s.size[0] = 2.2 * r, s.size[1] = head;
  for (int k = 0; k < 3; k++) s.pose.p[k] = p[k] + shaft * z[k];
  return hg_draw_shape_add(dl, &s);
}

/* ---- bounds ---- */

/* a shape's bounding sphere: centre (world) and radius */
static double shape_sphere(int type, const double size[3], const hg_se3 *pose, double c[3]) {
  double local[3] = {0, 0, 0}, r;
  switch (type) {
  case HG_GEOM_BOX: r = 0.5 * sqrt(size[0] * size[0] + size[1] * size[1] + size[2] * size[2]); break;
  case HG_GEOM_SPHERE: r = size[0]; break;
  case HG_GEOM_CYLINDER: r = sqrt(size[0] * size[0] + 0.25 * size[1] * size[1]); break;
  case HG_GEOM_CAPSULE: r = size[0] + 0.5 * size[1]; break;
  case HG_GEOM_CONE:
    local[2] = 0.5 * size[1];
    r = sqrt(size[0] * size[0] + 0.25 * size[1] * size[1]);
    break;
  default: r = 0.5 * sqrt(size[0] * size[0] + size[1] * size[1] + size[2] * size[2]); break;
  }
  hg_se3_apply(pose, local, c);
  return r;
}

void hg_frame_bounds_of(const hg_frame *f, const unsigned char *use, double centre[3],
                        double *radius) {
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (int g = 0; g < f->ngeom; g++) {
    if (use && !(f->geom[g].body >= 1 && f->geom[g].body < f->nbody && use[f->geom[g].body])) continue;
    double c[3], r = shape_sphere(f->geom[g].type, f->geom[g].size, &f->geom[g].pose, c);
    if (f->geom[g].type == HG_GEOM_MESH) r = 0.5 * fmax(1e-3, r); /* scale only: a guess */
    for (int k = 0; k < 3; k++) lo[k] = fmin(lo[k], c[k] - r), hi[k] = fmax(hi[k], c[k] + r);
  }
  for (int i = 1; i < f->nbody; i++) /* bodies without geometry still count */
    if (!use || use[i])
      for (int k = 0; k < 3; k++)
        lo[k] = fmin(lo[k], f->body[i].pose.p[k]), hi[k] = fmax(hi[k], f->body[i].pose.p[k]);
  if (!(lo[0] <= hi[0])) {
    centre[0] = centre[1] = centre[2] = 0, *radius = 1;
    return;
  }
  /* the sphere through the corners of the axis-aligned box around them */
  double d2 = 0;
  for (int k = 0; k < 3; k++) centre[k] = 0.5 * (lo[k] + hi[k]), d2 += (hi[k] - lo[k]) * (hi[k] - lo[k]);
  *radius = fmax(0.5 * sqrt(d2), 0.05);
}

void hg_frame_bounds(const hg_frame *f, double centre[3], double *radius) {
  hg_frame_bounds_of(f, NULL, centre, radius);
}

/* ---- overlays ---- */

static const float col_free[4] = {0.25f, 0.85f, 0.35f, 1}, col_presc[4] = {0.25f, 0.55f, 1, 1},
                   col_locked[4] = {0.95f, 0.25f, 0.2f, 1};
static const float col_axis[3][4] = {{0.9f, 0.2f, 0.2f, 1}, {0.2f, 0.8f, 0.2f, 1}, {0.2f, 0.4f, 1, 1}};

/* each body's size: the largest bounding radius of its geometry */
static double body_size(const hg_frame *f, int i, double fallback) {
  double r = 0, c[3];
  for (int g = 0; g < f->ngeom; g++)
    if (f->geom[g].body == i) {
      double rg = shape_sphere(f->geom[g].type, f->geom[g].size, &f->geom[g].pose, c);
      double d = 0;
      for (int k = 0; k < 3; k++) d += (c[k] - f->body[i].pose.p[k]) * (c[k] - f->body[i].pose.p[k]);
      r = fmax(r, rg + sqrt(d));
    }
  return r > 0 ? r : fallback;
}

/* How big glyphs are. With a camera, in pixels at the glyph's own depth: a glyph of a body is
 * its body's size, but at most HG_GLYPH_PX and at least HG_GLYPH_MIN_PX pixels; a glyph of no
 * body is HG_GLYPH_PX pixels; the longest arrow whose length says a magnitude is HG_ARROW_PX
 * pixels, the others in proportion (one scale per kind and frame). Without a camera, in the
 * world: each body's size within twice the overlay scale, else the overlay scale. */
typedef struct sizes {
  const double *bs;  /* without a camera: each body's glyph size */
  const double *raw; /* each body's own size (0: no geometry) */
  double scale;      /* without a camera: the overlay scale */
  int cam;           /* 1: sizes in pixels */
  double eye[3], fwd[3], k; /* the camera's eye, forward axis, and metres per pixel per metre of
                               depth: k = 2 tan(fovy/2) / h */
} sizes;

/* metres per pixel at p: its depth times k (0 without a camera) */
static double px(const sizes *z, const double p[3]) {
  if (!z->cam) return 0;
  double d = 0;
  for (int i = 0; i < 3; i++) d += z->fwd[i] * (p[i] - z->eye[i]);
  return fmax(fabs(d), 1e-9) * z->k;
}

double hg_draw_px(const hg_draw_options *o, const double p[3]) {
  if (!o || !o->cam || o->height <= 0) return 0;
  sizes z = {.cam = 1};
  double s[3], u[3];
  hg_camera_basis(o->cam, s, u, z.fwd);
  memcpy(z.eye, o->cam->eye, sizeof z.eye);
  z.k = 2 * tan(0.5 * o->cam->fovy * 3.14159265358979323846 / 180) / o->height;
  return px(&z, p);
}

/* the glyph size of body i at p */
static double size_body(const sizes *z, const double p[3], int i) {
  if (!z->cam) return z->bs[i];
  double m = px(z, p), s = HG_GLYPH_PX * m;
  if (z->raw[i] > 0) s = fmin(s, z->raw[i]);
  return fmax(s, HG_GLYPH_MIN_PX * m);
}

/* the glyph size at p of something on body i (i < 1: on none) */
static double size_on(const sizes *z, const double p[3], int i) {
  if (!z->cam) return i >= 1 ? fmin(z->bs[i], z->scale) : z->scale;
  return i >= 1 ? size_body(z, p, i) : HG_GLYPH_PX * px(z, p);
}

/* the length per unit of magnitude of the arrows of one kind whose largest, max, is at p; old:
 * what it is without a camera */
static double arrow_unit(const sizes *z, const double p[3], double max, double old) {
  if (!(max > 0)) return 0;
  return z->cam ? HG_ARROW_PX * px(z, p) / max : old / max;
}

/* three arrows along the axes of R at p */
static int axes(hg_draw_list *dl, const double p[3], const double R[9], double len, double rad) {
  for (int a = 0; a < 3; a++) {
    double v[3] = {len * R[a], len * R[3 + a], len * R[6 + a]};
    if (hg_draw_arrow(dl, p, v, rad, col_axis[a])) return -1;
  }
  return 0;
}

static int small_sphere(hg_draw_list *dl, const double p[3], double r, const float rgba[4]) {
  hg_draw_shape s = {.type = HG_GEOM_SPHERE, .mesh = -1, .overlay = 1, .size = {r, r, r}};
  hg_se3_identity(&s.pose);
  memcpy(s.pose.p, p, sizeof s.pose.p), memcpy(s.rgba, rgba, sizeof s.rgba);
  return hg_draw_shape_add(dl, &s);
}

static int joints(hg_draw_list *dl, const hg_frame *f, const sizes *z) {
  for (int j = 0; j < f->njoint; j++) {
    const hg_fjoint *J = &f->joint[j];
    const float *c = J->mode == HG_MODE_LOCKED ? col_locked
                     : J->mode == HG_MODE_PRESCRIBED ? col_presc : col_free;
    double n = sqrt(J->axis[0] * J->axis[0] + J->axis[1] * J->axis[1] + J->axis[2] * J->axis[2]);
    /* sized where it is drawn: one-DoF joints at the joint frame, balls at the child body */
    double s = size_body(z, n > 0 ? J->frame.p : f->body[J->body].pose.p, J->body);
    if (n > 0) { /* one-DoF joints: the axis through the joint frame, both ways */
      double p[3], v[3];
      for (int k = 0; k < 3; k++) v[k] = 1.2 * s * J->axis[k] / n, p[k] = J->frame.p[k] - 0.5 * v[k];
      if (hg_draw_arrow(dl, p, v, 0.04 * s, c)) return -1;
    } else if (J->type != HG_JOINT_FIXED) { /* spherical and free joints: a ball at the child */
      const double *p = f->body[J->body].pose.p;
      if (small_sphere(dl, p, fmax(0.05 * s, 2 * px(z, p)), c)) return -1;
    }
  }
  return 0;
}

static int markers(hg_draw_list *dl, const hg_frame *f, const hg_history *h, const sizes *z) {
  static const float port[4] = {0.1f, 0.85f, 0.9f, 1}, plain[4] = {1, 0.65f, 0.1f, 1};
  for (int k = 0; k < f->nmarker; k++) {
    const hg_fmarker *m = &f->marker[k];
    if (!m->present) continue;
    double s = size_on(z, m->pose.p, -1), dot = 2 * px(z, m->pose.p); /* dots: 2 px at least */
    if (m->port) { /* a docking port: its frame, z (the approach axis) long */
      if (axes(dl, m->pose.p, m->pose.R, 0.5 * s, 0.025 * s)) return -1;
      if (small_sphere(dl, m->pose.p, fmax(0.06 * s, dot), port)) return -1;
      if (h && hg_draw_label_add(dl, m->pose.p, hg_frame_name(h, m->name), port)) return -1;
    } else if (small_sphere(dl, m->pose.p, fmax(0.035 * s, dot), plain)) {
      return -1;
    }
  }
  return 0;
}

static int inertia_boxes(hg_draw_list *dl, const hg_frame *f) {
  static const float c[4] = {1, 0.85f, 0.2f, 0.35f};
  for (int i = 1; i < f->nbody; i++) {
    const hg_fbody *b = &f->body[i];
    if (!(b->box[0] > 0 && b->box[1] > 0 && b->box[2] > 0)) continue;
    hg_draw_shape s = {.type = HG_GEOM_BOX, .mesh = -1, .overlay = 1};
    memcpy(s.size, b->box, sizeof s.size), memcpy(s.pose.R, b->box_R, sizeof s.pose.R);
    memcpy(s.pose.p, b->com, sizeof s.pose.p), memcpy(s.rgba, c, sizeof s.rgba);
    if (hg_draw_shape_add(dl, &s)) return -1;
  }
  return 0;
}

/* constraint wrenches of locked and prescribed joints and of closed loops, each kind scaled by its
 * largest over joints and loops together: that one HG_ARROW_PX pixels long (without a camera:
 * the largest at 1.5 x the body's size, loops' at 1.5 x the overlay scale) */
static double norm3(const double *x) { return sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]); }

/* one wrench (moment, force; world) at p, uf and um metres per newton and per newton metre, of
 * glyph size `size`: its arrows and a label at the force's tip */
static int wrench_arrows(hg_draw_list *dl, const hg_history *h, const double p[3], const double w[6],
                         double uf, double um, double size) {
  static const float cf[4] = {0.95f, 0.2f, 0.85f, 1}, cm[4] = {0.6f, 0.3f, 1, 1};
  double vf[3], vm[3], nf = norm3(w + 3), nm = norm3(w);
  for (int k = 0; k < 3; k++) vf[k] = uf * w[3 + k], vm[k] = um * w[k];
  /* a moment below 1e-4 of the force times the body's size is round-off: not drawn */
  if (!(nm > 1e-4 * nf * size)) vm[0] = vm[1] = vm[2] = 0;
  if (hg_draw_arrow(dl, p, vf, 0.03 * size, cf) || hg_draw_arrow(dl, p, vm, 0.03 * size, cm)) return -1;
  char txt[64];
  snprintf(txt, sizeof txt, "%.3g N  %.3g N m", nf, nm);
  double q[3];
  for (int k = 0; k < 3; k++) q[k] = p[k] + vf[k];
  return h ? hg_draw_label_add(dl, q, txt, cf) : 0;
}

/* a loop whose constraint wrench is drawn: a closed joint loop in the simulation */
static int loop_loaded(const hg_floop *L) { return L->present && L->active && L->joint_type >= 0; }

static int wrenches(hg_draw_list *dl, const hg_frame *f, const hg_history *h, const sizes *z) {
  double fmax_ = 0, mmax = 0, nf, nm;
  const double *pf = NULL, *pm = NULL; /* where the largest force and moment are drawn */
  for (int j = 0; j < f->njoint; j++) {
    const hg_fjoint *J = &f->joint[j];
    if (J->mode == HG_MODE_FREE) continue;
    if ((nf = norm3(J->wrench + 3)) > fmax_) fmax_ = nf, pf = f->body[J->body].pose.p;
    if ((nm = norm3(J->wrench)) > mmax) mmax = nm, pm = f->body[J->body].pose.p;
  }
  for (int k = 0; k < f->nloop; k++)
    if (loop_loaded(&f->loop[k])) {
      if ((nf = norm3(f->loop[k].wrench + 3)) > fmax_) fmax_ = nf, pf = f->loop[k].frame_a.p;
      if ((nm = norm3(f->loop[k].wrench)) > mmax) mmax = nm, pm = f->loop[k].frame_a.p;
    }
  for (int j = 0; j < f->njoint; j++) {
    const hg_fjoint *J = &f->joint[j];
    if (J->mode == HG_MODE_FREE) continue;
    const double *p = f->body[J->body].pose.p;
    double s = size_body(z, p, J->body);
    if (wrench_arrows(dl, h, p, J->wrench, arrow_unit(z, pf, fmax_, 1.5 * s),
                      arrow_unit(z, pm, mmax, 1.5 * s), s))
      return -1;
  }
  for (int k = 0; k < f->nloop; k++) { /* at A's origin, about which the moment is taken */
    const double *p = f->loop[k].frame_a.p;
    double s = size_on(z, p, -1);
    if (loop_loaded(&f->loop[k]) &&
        wrench_arrows(dl, h, p, f->loop[k].wrench, arrow_unit(z, pf, fmax_, 1.5 * s),
                      arrow_unit(z, pm, mmax, 1.5 * s), s))
      return -1;
  }
  return 0;
}

/* a coil between a and b (8 turns), coloured by its force: green pushing, red pulling */
static int coil(hg_draw_list *dl, const double a[3], const double b[3], double r, const float c[4]) {
  double d[3], L = 0, R[9];
  for (int k = 0; k < 3; k++) d[k] = b[k] - a[k], L += d[k] * d[k];
  L = sqrt(L);
  if (!(L > 0)) return 0;
  for (int k = 0; k < 3; k++) d[k] /= L;
  frame_from_z(d, R);
  double prev[3];
  const int n = 96;
  for (int i = 0; i <= n; i++) {
    double u = (double)i / n, ang = u * 8 * 2 * 3.14159265358979;
    double rr = (i < 4 || i > n - 4) ? 0 : r, x = rr * cos(ang), y = rr * sin(ang), p[3];
    for (int k = 0; k < 3; k++) p[k] = a[k] + R[3 * k] * x + R[3 * k + 1] * y + u * L * d[k];
    if (i > 0 && hg_draw_line_add(dl, prev, p, c)) return -1;
    memcpy(prev, p, sizeof prev);
  }
  return 0;
}

/* springs as coils (radius 0.04 of the glyph size at their middle), and force arrows, the largest
 * HG_ARROW_PX pixels long (without a camera: 1.5 x the overlay scale) and the others in
 * proportion */
static int forces(hg_draw_list *dl, const hg_frame *f, const hg_history *h, int ov, const sizes *z) {
  static const float spring_c[4] = {0.9f, 0.9f, 0.3f, 1}, thrust_c[4] = {1, 0.5f, 0.1f, 1},
                     drag_c[4] = {0.4f, 0.8f, 1, 1}, chute_c[4] = {1, 0.3f, 0.3f, 1},
                     contact_c[4] = {0.3f, 1, 0.4f, 1};
  double fmax_ = 0;
  const double *pmax = NULL;
  /* forces drawn as arrows at a point (contact: its total at the deepest point) */
#define HG_ARROW_FORCE(t) \
  ((t) == HG_FORCE_THRUST || (t) == HG_FORCE_DRAG || (t) == HG_FORCE_PARACHUTE || (t) == HG_FORCE_CONTACT)
#define HG_ARROW_AT(F) ((F)->type == HG_FORCE_PARACHUTE ? (F)->a : (F)->b)
  for (int k = 0; k < f->nforce; k++)
    if (HG_ARROW_FORCE(f->force[k].type) && f->force[k].magnitude > fmax_)
      fmax_ = f->force[k].magnitude, pmax = HG_ARROW_AT(&f->force[k]);
  double unit = pmax ? arrow_unit(z, pmax, fmax_, 1.5 * z->scale) : 0; /* metres per newton */
  for (int k = 0; k < f->nforce; k++) {
    const hg_fforce *F = &f->force[k];
    if (F->inert) continue;
    if (F->type == HG_FORCE_SPRING && (ov & HG_OV_SPRINGS)) {
      float c[4] = {spring_c[0], spring_c[1], spring_c[2], F->enabled ? 1.0f : 0.35f};
      if (F->magnitude == 0) { /* slack (a compression-only spring out of contact): a faint line */
        c[3] = 0.3f;
        if (hg_draw_line_add(dl, F->a, F->b, c)) return -1;
      } else {
        double mid[3] = {0.5 * (F->a[0] + F->b[0]), 0.5 * (F->a[1] + F->b[1]), 0.5 * (F->a[2] + F->b[2])};
        if (coil(dl, F->a, F->b, 0.04 * size_on(z, mid, -1), c)) return -1;
      }
    } else if ((ov & HG_OV_FORCES) && F->enabled && fmax_ > 0 && F->magnitude > 0 &&
               HG_ARROW_FORCE(F->type)) {
      const float *c = F->type == HG_FORCE_THRUST  ? thrust_c
                       : F->type == HG_FORCE_DRAG  ? drag_c
                       : F->type == HG_FORCE_CONTACT ? contact_c
                                                     : chute_c;
      const double *p = HG_ARROW_AT(F);
      double v[3];
      for (int i = 0; i < 3; i++) v[i] = unit * F->force[i];
      if (hg_draw_arrow(dl, p, v, 0.03 * size_on(z, p, -1), c)) return -1;
      char txt[64];
      snprintf(txt, sizeof txt, "%s %.3g N", h ? hg_frame_name(h, F->name) : "", F->magnitude);
      double q[3] = {p[0] + v[0], p[1] + v[1], p[2] + v[2]};
      if (hg_draw_label_add(dl, q, txt, c)) return -1;
    }
  }
  return 0;
}

static int trails(hg_draw_list *dl, const hg_frame *f, const hg_draw_options *o) {
  static const float c[4] = {1, 1, 1, 0.7f};
  const hg_history *h = o->hist;
  if (!h || h->n == 0) return 0;
  int last = o->frame_index < h->n ? o->frame_index : h->n - 1, first = last - 600;
  if (first < 0) first = 0;
  for (int i = 1; i < f->nbody; i++) {
    if (o->track >= 0 ? f->body[i].name != o->track : 0) continue;
    const double *prev = NULL;
    for (int k = first; k <= last; k++) {
      const hg_frame *g = &h->frame[k];
      int b = hg_frame_body(g, f->body[i].name);
      if (b < 0) { prev = NULL; continue; }
      if (prev && hg_draw_line_add(dl, prev, g->body[b].pose.p, c)) return -1;
      prev = g->body[b].pose.p;
    }
  }
  return 0;
}

static int pairs(hg_draw_list *dl, const hg_frame *f) {
  static const float c[4] = {1, 1, 0.4f, 1};
  for (int k = 0; k < f->npair; k++) {
    const hg_fpair *p = &f->pair[k];
    if (!p->present) continue;
    for (int d = 0; d < 20; d += 2) { /* dashed */
      double a[3], b[3];
      for (int i = 0; i < 3; i++)
        a[i] = p->pa[i] + (p->pb[i] - p->pa[i]) * d / 20.0,
        b[i] = p->pa[i] + (p->pb[i] - p->pa[i]) * (d + 1) / 20.0;
      if (hg_draw_line_add(dl, a, b, c)) return -1;
    }
    char txt[64];
    double m[3];
    snprintf(txt, sizeof txt, "%.4g m", p->distance);
    for (int i = 0; i < 3; i++) m[i] = 0.5 * (p->pa[i] + p->pb[i]);
    if (hg_draw_label_add(dl, m, txt, c)) return -1;
  }
  return 0;
}

static int momentum(hg_draw_list *dl, const hg_frame *f, const sizes *z) {
  double s = size_on(z, f->com, -1); /* directions only: unit arrows of the glyph size */
  static const float cl[4] = {0.3f, 0.9f, 1, 1}, ca[4] = {1, 0.9f, 0.2f, 1};
  double L[3], p[3], nl = 0, np = 0;
  for (int k = 0; k < 3; k++) { /* angular momentum about the centre of mass: L_O - c x p */
    p[k] = f->h[3 + k], np += p[k] * p[k];
  }
  L[0] = f->h[0] - (f->com[1] * p[2] - f->com[2] * p[1]);
  L[1] = f->h[1] - (f->com[2] * p[0] - f->com[0] * p[2]);
  L[2] = f->h[2] - (f->com[0] * p[1] - f->com[1] * p[0]);
  nl = L[0] * L[0] + L[1] * L[1] + L[2] * L[2];
  for (int k = 0; k < 3; k++) {
    p[k] = np > 0 ? s * p[k] / sqrt(np) : 0;
    L[k] = nl > 0 ? s * L[k] / sqrt(nl) : 0;
  }
  if (hg_draw_arrow(dl, f->com, p, 0.05 * s, cl) || hg_draw_arrow(dl, f->com, L, 0.05 * s, ca))
    return -1;
  return small_sphere(dl, f->com, 0.08 * s, ca);
}

const float hg_loop_closed_rgba[4] = {0.62f, 1, 0.05f, 1}, hg_loop_open_rgba[4] = {0.6f, 0.6f, 0.62f, 1};

/* a dashed line from a to b (n dashes) */
static int dashed(hg_draw_list *dl, const double a[3], const double b[3], int n, const float c[4]) {
  for (int d = 0; d < 2 * n; d += 2) {
    double p[3], q[3];
    for (int i = 0; i < 3; i++)
      p[i] = a[i] + (b[i] - a[i]) * d / (2.0 * n), q[i] = a[i] + (b[i] - a[i]) * (d + 1) / (2.0 * n);
    if (hg_draw_line_add(dl, p, q, c)) return -1;
  }
  return 0;
}

/* the joint frame of a joint by name (its world origin), or NULL */
static const double *joint_origin(const hg_frame *f, int name) {
  for (int j = 0; j < f->njoint; j++)
    if (f->joint[j].name == name) return f->joint[j].frame.p;
  return NULL;
}

/* Closed loops: frames A and B as small triads and, at A, a glyph of the loop's joint: a disc
 * along the axis (revolute, helical, cylindrical, universal), a bar along it (prismatic), a ball
 * (spherical), a cube in A's axes (fixed), a slab normal to it (planar). Closed loops are drawn
 * in hg_loop_closed_rgba; open ones in hg_loop_open_rgba with a dashed line from A to B showing
 * the gap. A coupling is a dashed line between its two joints' frames. Their wrenches are drawn
 * with the joints' (HG_OV_WRENCHES). */
static int loops(hg_draw_list *dl, const hg_frame *f, const sizes *zs) {
  for (int k = 0; k < f->nloop; k++) {
    const hg_floop *L = &f->loop[k];
    if (!L->present) continue;
    double s = size_on(zs, L->frame_a.p, -1);
    const float *c = L->active ? hg_loop_closed_rgba : hg_loop_open_rgba;
    if (L->joint_type < 0) { /* a coupling */
      const double *a = L->jnt[0] >= 0 ? joint_origin(f, L->jnt[0]) : NULL;
      const double *b = L->jnt[1] >= 0 ? joint_origin(f, L->jnt[1]) : NULL;
      if (a && b && dashed(dl, a, b, 12, c)) return -1;
      continue;
    }
    if (axes(dl, L->frame_a.p, L->frame_a.R, 0.45 * s, 0.012 * s) ||
        axes(dl, L->frame_b.p, L->frame_b.R, 0.45 * s, 0.012 * s))
      return -1;
    if (!L->active && dashed(dl, L->frame_a.p, L->frame_b.p, 8, c)) return -1;
    hg_draw_shape g = {.mesh = -1, .overlay = 1, .pose = L->frame_a};
    memcpy(g.rgba, c, sizeof g.rgba);
    double n = norm3(L->axis);
    if (n > 0) {
      double z[3] = {L->axis[0] / n, L->axis[1] / n, L->axis[2] / n};
      frame_from_z(z, g.pose.R);
    }
    switch (L->joint_type) {
    case HG_JOINT_FIXED: g.type = HG_GEOM_BOX, g.size[0] = g.size[1] = g.size[2] = 0.3 * s; break;
    case HG_JOINT_PRISMATIC:
      g.type = HG_GEOM_BOX, g.size[0] = g.size[1] = 0.1 * s, g.size[2] = 1.2 * s;
      break;
    case HG_JOINT_PLANAR:
      g.type = HG_GEOM_BOX, g.size[0] = g.size[1] = 0.6 * s, g.size[2] = 0.06 * s;
      break;
    case HG_JOINT_SPHERICAL: g.type = HG_GEOM_SPHERE, g.size[0] = 0.2 * s; break;
    default:
      if (n > 0) g.type = HG_GEOM_CYLINDER, g.size[0] = 0.16 * s, g.size[1] = 0.3 * s;
      else g.type = HG_GEOM_SPHERE, g.size[0] = 0.2 * s;
      break;
    }
    if (hg_draw_shape_add(dl, &g)) return -1;
  }
  return 0;
}

/* ---- control in the loop: thrusters and reaction wheels ---- */

const float hg_plume_rgba[4] = {1.9f, 0.72f, 0.12f, 0.6f},
            hg_plume_core_rgba[4] = {2.2f, 2.0f, 1.35f, 1},
            hg_gauge_rgba[4] = {0.25f, 0.9f, 1, 1}, hg_gauge_high_rgba[4] = {1, 0.22f, 0.16f, 1},
            hg_wheel_ring_rgba[4] = {0.78f, 0.8f, 0.86f, 1},
            hg_wheel_ring_sat_rgba[4] = {1, 0.55f, 0.1f, 1};

double hg_wheel_fill(const hg_frame *f, int k) {
  const hg_fact *A = &f->act[k];
  if (A->type != HG_ACT_WHEEL) return 0;
  if (isfinite(A->max_speed) && A->max_speed > 0) return fmin(1, fabs(A->speed) / A->max_speed);
  double top = 0; /* no limit: against the fastest wheel's speed */
  for (int i = 0; i < f->nact; i++)
    if (f->act[i].type == HG_ACT_WHEEL && f->act[i].present) top = fmax(top, fabs(f->act[i].speed));
  return top > 0 ? fmin(1, fabs(A->speed) / top) : 0;
}

/* a shape of the overlay: type, size, colour, posed at p with its z axis along the unit z */
static int glyph(hg_draw_list *dl, int type, const double p[3], const double z[3], double r,
                 double len, const float rgba[4]) {
  hg_draw_shape s = {.type = type, .mesh = -1, .overlay = 1, .size = {r, len, 0}};
  frame_from_z(z, s.pose.R);
  memcpy(s.pose.p, p, sizeof s.pose.p), memcpy(s.rgba, rgba, sizeof s.rgba);
  return hg_draw_shape_add(dl, &s);
}

/* A thruster of glyph size s: a nozzle bell (a cone whose throat is at its point, opening along
 * -dir, where the exhaust goes) and, while it fires, a plume from the nozzle's exit along -dir:
 * a white-hot core tapering from the exit inside an orange flame widening from it (as plumes do
 * in vacuum), both as long as level says ((0.15 + 0.95 level) s: a short flame for the smallest
 * level); a red nozzle when saturated (cut at max_on). */
static int thruster(hg_draw_list *dl, const hg_fact *A, double s) {
  static const float nozzle[4] = {0.72f, 0.74f, 0.78f, 1}, nozzle_sat[4] = {0.95f, 0.3f, 0.25f, 1};
  const double *u = A->dir;
  if (!(norm3(u) > 0)) return 0;
  double ln = 0.16 * s, rn = 0.09 * s, exitp[3], far[3], mu[3] = {-u[0], -u[1], -u[2]};
  for (int k = 0; k < 3; k++) exitp[k] = A->point[k] - ln * u[k];
  /* the bell: the cone's base (its wide end) at the exit, its apex at the throat */
  if (glyph(dl, HG_GEOM_CONE, exitp, u, rn, ln, A->saturated ? nozzle_sat : nozzle)) return -1;
  if (!(A->level > 0)) return 0;
  double level = fmin(A->level, 1), lp = (0.15 + 0.95 * level) * s;
  for (int k = 0; k < 3; k++) far[k] = exitp[k] - lp * u[k];
  /* the core first, so that the translucent flame blends over it */
  if (glyph(dl, HG_GEOM_CONE, exitp, mu, 0.8 * rn, 0.6 * lp, hg_plume_core_rgba)) return -1;
  /* the flame: its base far downstream, its apex at the exit */
  return glyph(dl, HG_GEOM_CONE, far, u, fmax(0.3 * lp, rn), lp, hg_plume_rgba);
}

/* A reaction wheel of glyph size s: a ring of radius 0.38 s about its axis at its centre, the
 * axis as a short line, and a gauge: a thicker arc over the ring from a mark fixed in its body
 * (a tick), filling |speed| / max_speed of the turn, counter-clockwise about the axis for a
 * positive speed; cyan, red from 90 % of its max_speed on (its speed alone: a wheel turning
 * slowly whose torque is saturated keeps a cyan gauge). The ring is orange while the wheel is
 * saturated (held at its torque or another limit), grey otherwise. */
static int wheel(hg_draw_list *dl, const hg_frame *f, int k, double s) {
  static const float tick[4] = {0.95f, 0.96f, 0.98f, 1};
  const hg_fact *A = &f->act[k];
  const double *z = A->dir;
  if (!(norm3(z) > 0)) return 0;
  /* x: the body's axis least along the wheel's, made normal to it, so the gauge turns with the
   * body; y = z x x */
  double x[3] = {1, 0, 0}, y[3], best = 2;
  if (A->body >= 1)
    for (int c = 0; c < 3; c++) {
      const double *R = f->body[A->body].pose.R;
      double a[3] = {R[c], R[3 + c], R[6 + c]}, d = fabs(a[0] * z[0] + a[1] * z[1] + a[2] * z[2]);
      if (d < best) best = d, memcpy(x, a, sizeof x);
    }
  double d = x[0] * z[0] + x[1] * z[1] + x[2] * z[2];
  for (int i = 0; i < 3; i++) x[i] -= d * z[i];
  double nx = norm3(x);
  if (!(nx > 1e-9)) {
    double R[9];
    frame_from_z(z, R);
    x[0] = R[0], x[1] = R[3], x[2] = R[6];
  } else {
    for (int i = 0; i < 3; i++) x[i] /= nx;
  }
  hg_v3_cross(z, x, y);
  const double rr = 0.38 * s, two_pi = 2 * 3.14159265358979;
  const int n = 48;
  double fill = hg_wheel_fill(f, k), sign = A->speed < 0 ? -1 : 1;
  const float *gc = isfinite(A->max_speed) && fill >= 0.9 ? hg_gauge_high_rgba : hg_gauge_rgba;
  const float *ring = A->saturated ? hg_wheel_ring_sat_rgba : hg_wheel_ring_rgba;
  int nfill = (int)lround(fill * n);
  if (fill > 0 && nfill == 0) nfill = 1; /* turning at all: a sliver */
  for (int i = 0; i < n; i++) {
    double a0 = sign * two_pi * i / n, a1 = sign * two_pi * (i + 1) / n, p0[3], p1[3], v[3];
    for (int j = 0; j < 3; j++) {
      p0[j] = A->point[j] + rr * (cos(a0) * x[j] + sin(a0) * y[j]);
      p1[j] = A->point[j] + rr * (cos(a1) * x[j] + sin(a1) * y[j]);
      v[j] = p1[j] - p0[j];
    }
    if (i < nfill) { /* the gauge: a thick segment (a capsule: the segments join smoothly) */
      hg_draw_shape g = {.type = HG_GEOM_CAPSULE, .mesh = -1, .overlay = 1};
      double len = norm3(v), u[3] = {v[0] / len, v[1] / len, v[2] / len};
      frame_from_z(u, g.pose.R);
      for (int j = 0; j < 3; j++) g.pose.p[j] = 0.5 * (p0[j] + p1[j]);
      memcpy(g.rgba, gc, sizeof g.rgba);
      g.size[0] = 0.05 * s, g.size[1] = len;
      if (hg_draw_shape_add(dl, &g)) return -1;
    }
    if (hg_draw_line_add(dl, p0, p1, ring)) return -1;
  }
  /* the axis through the centre and the tick where the gauge starts */
  double a[3], b[3];
  for (int j = 0; j < 3; j++)
    a[j] = A->point[j] - 0.22 * s * z[j], b[j] = A->point[j] + 0.22 * s * z[j];
  if (hg_draw_line_add(dl, a, b, ring)) return -1;
  for (int j = 0; j < 3; j++)
    a[j] = A->point[j] + 0.82 * rr * x[j], b[j] = A->point[j] + 1.18 * rr * x[j];
  return hg_draw_line_add(dl, a, b, tick);
}

/* the actuators in the simulation: thrusters and reaction wheels (motors and servos show as their
 * joints), sized by the body they sit on (size_on) */
static int actuators(hg_draw_list *dl, const hg_frame *f, const sizes *z) {
  for (int k = 0; k < f->nact; k++) {
    const hg_fact *A = &f->act[k];
    if (!A->present) continue;
    double s = size_on(z, A->point, A->body);
    if (A->type == HG_ACT_THRUSTER && thruster(dl, A, s)) return -1;
    if (A->type == HG_ACT_WHEEL && wheel(dl, f, k, s)) return -1;
  }
  return 0;
}

/* ---- control in the loop: sensors ---- */

const float hg_tracker_rgba[4] = {0.7f, 0.5f, 1, 1},
            hg_sensor_dim_rgba[4] = {0.36f, 0.34f, 0.42f, 1},
            hg_sun_sensor_rgba[4] = {1, 0.86f, 0.15f, 1},
            hg_earth_sensor_rgba[4] = {0.2f, 0.8f, 0.7f, 1},
            hg_imu_rgba[4] = {1, 0.45f, 0.72f, 1}, hg_encoder_rgba[4] = {0.95f, 0.95f, 0.6f, 1},
            hg_ft_rgba[4] = {0.95f, 0.35f, 0.3f, 1}, hg_truth_rgba[4] = {0.8f, 0.8f, 0.8f, 1};

/* column c of the rotation R (row-major) */
static void column(const double R[9], int c, double v[3]) {
  v[0] = R[c], v[1] = R[3 + c], v[2] = R[6 + c];
}

/* the line from p along the unit u, len long */
static int ray(hg_draw_list *dl, const double p[3], const double u[3], double len,
               const float c[4]) {
  double b[3] = {p[0] + len * u[0], p[1] + len * u[1], p[2] + len * u[2]};
  return hg_draw_line_add(dl, p, b, c);
}

/* a direction sensor (sun, earth) of glyph size s: a flat square plate facing +z of its frame
 * and, when its last sample was valid, a line along the direction it measured (its value, in
 * the sensor's axes, rotated into the world) */
static int direction_sensor(hg_draw_list *dl, const hg_fsens *S, double s, const float c[4]) {
  hg_draw_shape p = {.type = HG_GEOM_BOX, .mesh = -1, .overlay = 1, .pose = S->pose,
                     .size = {0.2 * s, 0.2 * s, 0.02 * s}};
  int ok = S->valid && S->sampled && isfinite(S->value[0]);
  memcpy(p.rgba, ok ? c : hg_sensor_dim_rgba, sizeof p.rgba);
  if (hg_draw_shape_add(dl, &p)) return -1;
  if (!ok) return 0;
  double u[3];
  hg_m3_mulv(S->pose.R, S->value, u);
  double n = norm3(u);
  if (!(n > 0)) return 0;
  for (int k = 0; k < 3; k++) u[k] /= n;
  return ray(dl, S->pose.p, u, 0.9 * s, c);
}

/* one sensor of glyph size s (size_on), its force arrow (force/torque) unit metres per newton */
static int sensor(hg_draw_list *dl, const hg_frame *f, const hg_fsens *S, double s, double unit) {
  const double *p = S->pose.p;
  double z[3];
  column(S->pose.R, 2, z);
  switch (S->type) {
  case HG_SENSOR_STAR_TRACKER: { /* a baffle: a cone opening along the boresight, dimmed (dark
                                    and translucent) after a dropout */
    int ok = S->valid || !S->sampled;
    float c[4];
    memcpy(c, ok ? hg_tracker_rgba : hg_sensor_dim_rgba, sizeof c);
    if (!ok) c[3] = 0.55f;
    /* the cone's base (wide end) at the far end, its apex at the frame's origin */
    double far[3], mz[3] = {-z[0], -z[1], -z[2]};
    for (int k = 0; k < 3; k++) far[k] = p[k] + 0.3 * s * z[k];
    if (glyph(dl, HG_GEOM_CONE, far, mz, 0.1 * s, 0.3 * s, c)) return -1;
    return ray(dl, p, z, ok ? 0.55 * s : 0.4 * s, c); /* the boresight beyond it */
  }
  case HG_SENSOR_SUN: return direction_sensor(dl, S, s, hg_sun_sensor_rgba);
  case HG_SENSOR_EARTH: return direction_sensor(dl, S, s, hg_earth_sensor_rgba);
  case HG_SENSOR_GYRO:
  case HG_SENSOR_ACCELEROMETER: { /* a cube and its three axes */
    hg_draw_shape b = {.type = HG_GEOM_BOX, .mesh = -1, .overlay = 1, .pose = S->pose,
                       .size = {0.12 * s, 0.12 * s, 0.12 * s}};
    memcpy(b.rgba, hg_imu_rgba, sizeof b.rgba);
    if (hg_draw_shape_add(dl, &b)) return -1;
    return axes(dl, p, S->pose.R, 0.3 * s, 0.014 * s);
  }
  case HG_SENSOR_ENCODER:
  case HG_SENSOR_JOINT_STATE: { /* a ring of ticks about the joint's axis at its frame */
    if (S->joint < 0 || S->joint >= f->njoint) return 0;
    const hg_fjoint *J = &f->joint[S->joint];
    double a[3], R[9], n = norm3(J->axis);
    if (n > 0) for (int k = 0; k < 3; k++) a[k] = J->axis[k] / n;
    else column(J->frame.R, 2, a);
    frame_from_z(a, R);
    const double r = 0.2 * s, two_pi = 2 * 3.14159265358979;
    const int nt = 16;
    for (int i = 0; i < nt; i++) {
      /* every fourth tick longer, so that the ring reads as a dial */
      double ang = two_pi * i / nt, c = cos(ang), sn = sin(ang), r1 = (i % 4 ? 1.15 : 1.3) * r;
      double u[3], q0[3], q1[3];
      for (int k = 0; k < 3; k++) u[k] = c * R[3 * k] + sn * R[3 * k + 1];
      for (int k = 0; k < 3; k++)
        q0[k] = J->frame.p[k] + r * u[k], q1[k] = J->frame.p[k] + r1 * u[k];
      if (hg_draw_line_add(dl, q0, q1, hg_encoder_rgba)) return -1;
    }
    return 0;
  }
  case HG_SENSOR_FORCE_TORQUE: { /* a disc facing +z and the force it measured (world) */
    if (glyph(dl, HG_GEOM_CYLINDER, p, z, 0.09 * s, 0.025 * s, hg_ft_rgba)) return -1;
    if (!S->sampled || !(unit > 0) || !isfinite(S->value[0])) return 0;
    double F[3], v[3];
    hg_m3_mulv(S->pose.R, S->value, F);
    for (int k = 0; k < 3; k++) v[k] = unit * F[k];
    return hg_draw_arrow(dl, p, v, 0.03 * s, hg_ft_rgba);
  }
  default: return small_sphere(dl, p, 0.025 * s, hg_truth_rgba); /* truth: a dot */
  }
}

/* the sensors of the simulation; force/torque arrows share one scale, as the force overlay's
 * arrows: the largest measured force HG_ARROW_PX pixels (without a camera: 1.5 x its glyph size) */
static int sensors(hg_draw_list *dl, const hg_frame *f, const sizes *z) {
  double fmax_ = 0, smax = 0;
  const double *pmax = NULL;
  for (int k = 0; k < f->nsens; k++) {
    const hg_fsens *S = &f->sens[k];
    if (S->present && S->type == HG_SENSOR_FORCE_TORQUE && S->sampled && isfinite(S->value[0]) &&
        norm3(S->value) > fmax_) {
      fmax_ = norm3(S->value), pmax = S->pose.p;
      smax = size_on(z, S->pose.p, S->body >= 1 && S->body < f->nbody ? S->body : -1);
    }
  }
  for (int k = 0; k < f->nsens; k++) {
    const hg_fsens *S = &f->sens[k];
    if (!S->present) continue;
    double s = size_on(z, S->pose.p, S->body >= 1 && S->body < f->nbody ? S->body : -1);
    /* without a camera each arrow is 1.5 x its own glyph size at the largest force */
    double unit = pmax ? arrow_unit(z, pmax, fmax_, 1.5 * (z->cam ? smax : s)) : 0;
    if (sensor(dl, f, S, s, unit)) return -1;
  }
  return 0;
}

int hg_draw_list_build(hg_draw_list *dl, const hg_frame *f, const hg_draw_options *o) {
  hg_draw_list_clear(dl);
  hg_frame_bounds(f, dl->centre, &dl->radius);
  double scale = o->scale > 0 ? o->scale : dl->radius * 0.3;
  double gn = sqrt(f->gravity[0] * f->gravity[0] + f->gravity[1] * f->gravity[1] + f->gravity[2] * f->gravity[2]);
  dl->ground = gn > 0, dl->space = !(gn > 0), dl->ground_z = 0;
  dl->grid_step = pow(10, floor(log10(fmax(dl->radius, 1e-3))));
  /* a central body with a radius is the planet */
  for (int k = 0; k < f->nforce; k++)
    if (f->force[k].type == HG_FORCE_CENTRAL_GRAVITY && f->force[k].radius > 0 && !dl->planet) {
      dl->planet = 1, dl->space = 1, dl->planet_radius = f->force[k].radius;
      memcpy(dl->planet_centre, f->force[k].a, sizeof dl->planet_centre);
    }
  /* body geometry, with body id + 1 for picking */
  for (int g = 0; g < f->ngeom; g++) {
    const hg_fgeom *G = &f->geom[g];
    hg_draw_shape s = {.type = G->type, .mesh = G->mesh, .pose = G->pose, .id = G->body + 1};
    memcpy(s.size, G->size, sizeof s.size), memcpy(s.rgba, G->rgba, sizeof s.rgba);
    if (hg_draw_shape_add(dl, &s)) return -1;
  }
  int ov = o->overlays;
  if (!ov) return 0;
  int nb = f->nbody > 0 ? f->nbody : 1;
  double *bs = malloc(2 * (size_t)nb * sizeof *bs), *raw = bs + nb;
  if (!bs) return -1;
  for (int i = 1; i < f->nbody; i++) {
    raw[i] = body_size(f, i, 0);
    bs[i] = fmin(raw[i] > 0 ? raw[i] : 0.3 * scale, 2 * scale);
  }
  sizes z = {.bs = bs, .raw = raw, .scale = scale, .cam = o->cam && o->height > 0};
  if (z.cam) {
    double s[3], u[3];
    hg_camera_basis(o->cam, s, u, z.fwd);
    memcpy(z.eye, o->cam->eye, sizeof z.eye);
    z.k = 2 * tan(0.5 * o->cam->fovy * 3.14159265358979323846 / 180) / o->height;
  }
  int rc = 0;
  for (int i = 1; i < f->nbody && !rc && (ov & (HG_OV_FRAMES | HG_OV_COM)); i++) {
    double si = size_body(&z, f->body[i].pose.p, i);
    if (ov & HG_OV_FRAMES) rc = axes(dl, f->body[i].pose.p, f->body[i].pose.R, 0.5 * si, 0.02 * si);
    if (!rc && (ov & HG_OV_COM)) {
      static const float c[4] = {0.1f, 0.1f, 0.1f, 1};
      rc = small_sphere(dl, f->body[i].com, fmax(0.08 * si, 2 * px(&z, f->body[i].com)), c);
    }
  }
  if (!rc && (ov & HG_OV_JOINTS)) rc = joints(dl, f, &z);
  if (!rc && (ov & HG_OV_MARKERS)) rc = markers(dl, f, o->hist, &z);
  if (!rc && (ov & HG_OV_INERTIA)) rc = inertia_boxes(dl, f);
  if (!rc && (ov & HG_OV_WRENCHES)) rc = wrenches(dl, f, o->hist, &z);
  if (!rc && (ov & HG_OV_LOOPS)) rc = loops(dl, f, &z);
  if (!rc && (ov & (HG_OV_SPRINGS | HG_OV_FORCES))) rc = forces(dl, f, o->hist, ov, &z);
  if (!rc && (ov & HG_OV_TRAILS)) rc = trails(dl, f, o);
  if (!rc && (ov & HG_OV_PAIRS)) rc = pairs(dl, f);
  if (!rc && (ov & HG_OV_MOMENTUM)) rc = momentum(dl, f, &z);
  if (!rc && (ov & HG_OV_ACTUATORS)) rc = actuators(dl, f, &z);
  if (!rc && (ov & HG_OV_SENSORS)) rc = sensors(dl, f, &z);
  free(bs);
  return rc;
}

/* ---- picking ---- */

/* ray against the box |x_k| <= e_k (local frame): the entry distance, or INFINITY */
static double ray_box(const double o[3], const double d[3], const double lo[3], const double hi[3]) {
  double t0 = 0, t1 = INFINITY;
  for (int k = 0; k < 3; k++) {
    if (fabs(d[k]) < 1e-300) {
      if (o[k] < lo[k] || o[k] > hi[k]) return INFINITY;
      continue;
    }
    double a = (lo[k] - o[k]) / d[k], b = (hi[k] - o[k]) / d[k];
    if (a > b) { double t = a; a = b; b = t; }
    t0 = fmax(t0, a), t1 = fmin(t1, b);
    if (t0 > t1) return INFINITY;
  }
  return t0;
}

int hg_draw_pick(const hg_draw_list *dl, const double origin[3], const double dir[3],
                 double *distance) {
  int best = -1;
  double tbest = INFINITY;
  for (int k = 0; k < dl->nshape; k++) {
    const hg_draw_shape *s = &dl->shape[k];
    if (s->id <= 0) continue;
    double lo[3], hi[3], o[3], d[3], r = s->size[0];
    switch (s->type) { /* the shape's local bounding box */
    case HG_GEOM_BOX: for (int i = 0; i < 3; i++) hi[i] = 0.5 * s->size[i], lo[i] = -hi[i]; break;
    case HG_GEOM_SPHERE: for (int i = 0; i < 3; i++) hi[i] = r, lo[i] = -r; break;
    case HG_GEOM_CONE: lo[0] = lo[1] = -r, hi[0] = hi[1] = r, lo[2] = 0, hi[2] = s->size[1]; break;
    case HG_GEOM_CAPSULE:
      lo[0] = lo[1] = -r, hi[0] = hi[1] = r, hi[2] = 0.5 * s->size[1] + r, lo[2] = -hi[2];
      break;
    case HG_GEOM_CYLINDER: lo[0] = lo[1] = -r, hi[0] = hi[1] = r, hi[2] = 0.5 * s->size[1], lo[2] = -hi[2]; break;
    default: for (int i = 0; i < 3; i++) hi[i] = 0.5 * fabs(s->size[i]), lo[i] = -hi[i]; break;
    }
    for (int i = 0; i < 3; i++) { /* the ray in the shape frame: R^T (x - p) */
      o[i] = d[i] = 0;
      for (int j = 0; j < 3; j++)
        o[i] += s->pose.R[3 * j + i] * (origin[j] - s->pose.p[j]), d[i] += s->pose.R[3 * j + i] * dir[j];
    }
    double t = ray_box(o, d, lo, hi);
    if (t < tbest) tbest = t, best = s->id - 1;
  }
  if (distance) *distance = tbest;
  return best;
}
