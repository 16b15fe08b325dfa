/* camera.c: the pinhole camera of camera.h: projection, rays and mouse motions. */
#include "camera.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const double deg = 3.14159265358979323846 / 180;

static double dot3(const double a[3], const double b[3]) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
static void cross3(const double a[3], const double b[3], double c[3]) {
  double c0 = a[1] * b[2] - a[2] * b[1], c1 = a[2] * b[0] - a[0] * b[2];
  double c2 = a[0] * b[1] - a[1] * b[0];
  c[0] = c0, c[1] = c1, c[2] = c2;
}
static double normalize3(double a[3]) {
  double n = sqrt(dot3(a, a));
  if (n > 0)
    for (int k = 0; k < 3; k++) a[k] /= n;
  return n;
}
static void set3(double a[3], double x, double y, double z) { a[0] = x, a[1] = y, a[2] = z; }

void hg_camera_default(hg_camera *c) {
  set3(c->eye, 4, -6, 3);
  set3(c->target, 0, 0, 0);
  set3(c->up, 0, 0, 1);
  c->fovy = 45;
}

/* three numbers "X,Y,Z" */
static int parse3(const char *v, double x[3]) {
  char *end;
  for (int k = 0; k < 3; k++) {
    x[k] = strtod(v, &end);
    if (end == v || !isfinite(x[k])) return -1;
    v = end;
    if (k < 2) {
      if (*v != ',') return -1;
      v++;
    }
  }
  return *v == 0 || *v == ' ' ? 0 : -1;
}

int hg_camera_parse(const char *text, hg_camera *c, char *err, size_t errlen) {
  hg_camera out = *c;
  char buf[1024];
  if (strlen(text) >= sizeof buf) return snprintf(err, errlen, "camera text too long"), -1;
  strcpy(buf, text);
  for (char *tok = strtok(buf, " \t\r\n"); tok; tok = strtok(NULL, " \t\r\n")) {
    char *eq = strchr(tok, '=');
    if (!eq) return snprintf(err, errlen, "'%s': expected KEY=VALUE", tok), -1;
    *eq = 0;
    const char *key = tok, *v = eq + 1;
    double *dst = !strcmp(key, "eye") ? out.eye : !strcmp(key, "target") ? out.target
                  : !strcmp(key, "up") ? out.up : NULL;
    if (dst) {
      if (parse3(v, dst))
        return snprintf(err, errlen, "%s=%s: expected three numbers X,Y,Z", key, v), -1;
    } else if (!strcmp(key, "fov")) {
      char *end;
      double f = strtod(v, &end);
      if (*end || end == v || !(f > 0 && f < 180))
        return snprintf(err, errlen, "fov=%s: expected degrees in (0, 180)", v), -1;
      out.fovy = f;
    } else {
      return snprintf(err, errlen, "unknown camera key '%s' (eye, target, up, fov)", key), -1;
    }
  }
  double s[3], u[3], f[3];
  if (hg_camera_basis(&out, s, u, f))
    return snprintf(err, errlen, "eye equals target, or up is parallel to the view"), -1;
  *c = out;
  return 0;
}

void hg_camera_format(const hg_camera *c, char *buf, size_t len) {
  snprintf(buf, len, "eye=%.17g,%.17g,%.17g target=%.17g,%.17g,%.17g up=%.17g,%.17g,%.17g fov=%.17g",
           c->eye[0], c->eye[1], c->eye[2], c->target[0], c->target[1], c->target[2], c->up[0],
           c->up[1], c->up[2], c->fovy);
}

int hg_camera_basis(const hg_camera *c, double s[3], double u[3], double f[3]) {
  int rc = 0;
  for (int k = 0; k < 3; k++) f[k] = c->target[k] - c->eye[k];
  if (normalize3(f) == 0) set3(f, 0, 1, 0), rc = -1;
  cross3(f, c->up, s);
  if (normalize3(s) < 1e-12 * (sqrt(dot3(c->up, c->up)) + 1e-300)) {
    double alt[3] = {0, 1, 0};
    if (fabs(f[1]) > 0.9) set3(alt, 1, 0, 0);
    cross3(f, alt, s);
    normalize3(s);
    rc = -1;
  }
  cross3(s, f, u);
  return rc;
}

int hg_camera_project(const hg_camera *c, int w, int h, const double x[3], double px[2]) {
  double s[3], u[3], f[3], d[3];
  hg_camera_basis(c, s, u, f);
  for (int k = 0; k < 3; k++) d[k] = x[k] - c->eye[k];
  double zf = dot3(f, d), F = 0.5 * h / tan(0.5 * c->fovy * deg);
  if (!(zf > 0)) {
    px[0] = px[1] = NAN;
    return 0;
  }
  px[0] = 0.5 * w + dot3(s, d) / zf * F;
  px[1] = 0.5 * h - dot3(u, d) / zf * F;
  return 1;
}

void hg_camera_ray(const hg_camera *c, int w, int h, double px, double py, double origin[3],
                   double dir[3]) {
  double s[3], u[3], f[3];
  hg_camera_basis(c, s, u, f);
  double F = 0.5 * h / tan(0.5 * c->fovy * deg);
  double a = (px - 0.5 * w) / F, b = (0.5 * h - py) / F;
  for (int k = 0; k < 3; k++) origin[k] = c->eye[k], dir[k] = f[k] + a * s[k] + b * u[k];
  normalize3(dir);
}

/* v rotated by angle about unit axis n (Rodrigues) */
static void rotate3(double v[3], const double n[3], double angle) {
  double cs = cos(angle), sn = sin(angle), nxv[3], nv = dot3(n, v);
  cross3(n, v, nxv);
  for (int k = 0; k < 3; k++) v[k] = v[k] * cs + nxv[k] * sn + n[k] * nv * (1 - cs);
}

void hg_camera_orbit(hg_camera *c, double yaw, double pitch) {
  double s[3], u[3], f[3], up[3] = {c->up[0], c->up[1], c->up[2]}, d[3];
  hg_camera_basis(c, s, u, f);
  normalize3(up);
  for (int k = 0; k < 3; k++) d[k] = c->eye[k] - c->target[k];
  /* pitch first, limited so that the view never flips over the pole */
  double elev = asin(fmax(-1, fmin(1, -dot3(f, up)))), lim = 89 * deg;
  double e2 = fmax(-lim, fmin(lim, elev + pitch));
  rotate3(d, s, -(e2 - elev));
  rotate3(d, up, yaw);
  for (int k = 0; k < 3; k++) c->eye[k] = c->target[k] + d[k];
}

void hg_camera_pan(hg_camera *c, double dx, double dy) {
  double s[3], u[3], f[3], d[3];
  hg_camera_basis(c, s, u, f);
  for (int k = 0; k < 3; k++) d[k] = c->eye[k] - c->target[k];
  double dist = sqrt(dot3(d, d)), span = 2 * dist * tan(0.5 * c->fovy * deg);
  double m[3];
  for (int k = 0; k < 3; k++) m[k] = (-dx * s[k] + dy * u[k]) * span;
  hg_camera_translate(c, m);
}

void hg_camera_zoom(hg_camera *c, double factor) {
  for (int k = 0; k < 3; k++) c->eye[k] = c->target[k] + factor * (c->eye[k] - c->target[k]);
}

void hg_camera_translate(hg_camera *c, const double d[3]) {
  for (int k = 0; k < 3; k++) c->eye[k] += d[k], c->target[k] += d[k];
}

void hg_camera_fit(hg_camera *c, const double centre[3], double r, int w, int h) {
  double s[3], u[3], f[3];
  hg_camera_basis(c, s, u, f);
  double half = 0.5 * c->fovy * deg;
  double halfx = atan(tan(half) * (double)w / (h > 0 ? h : 1));
  double dist = (r > 0 ? r : 1) / sin(fmin(half, halfx)) * 1.05;
  for (int k = 0; k < 3; k++) c->target[k] = centre[k], c->eye[k] = centre[k] - dist * f[k];
}

void hg_camera_preset_view(hg_camera *c, hg_camera_preset p) {
  static const double dir[7][3] = {{0, -1, 0}, {0, 1, 0}, {1, 0, 0}, {-1, 0, 0},
                                   {0, 0, 1},  {0, 0, -1}, {0.7071, -0.7071, 0.5}};
  double d[3], dist;
  for (int k = 0; k < 3; k++) d[k] = c->eye[k] - c->target[k];
  dist = sqrt(dot3(d, d));
  if (!(dist > 0)) dist = 1;
  double n[3] = {dir[p][0], dir[p][1], dir[p][2]};
  normalize3(n);
  for (int k = 0; k < 3; k++) c->eye[k] = c->target[k] + dist * n[k];
  if (p == HG_VIEW_TOP || p == HG_VIEW_BOTTOM) set3(c->up, 0, 1, 0);
  else set3(c->up, 0, 0, 1);
}
