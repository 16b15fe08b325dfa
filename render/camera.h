/* camera.h: the viewer's camera, a plain pinhole in double precision (no GL).
 *
 * A camera is an eye, a target and an up direction in world coordinates and a vertical field of
 * view. Camera axes: s (right) = normalize(f x up), u (up) = s x f, f (forward) =
 * normalize(target - eye). A world point x has camera coordinates (s.(x-eye), u.(x-eye),
 * f.(x-eye)) and, in an image of w x h pixels, lands at
 *   px = w/2 + (s.d / f.d) * F,   py = h/2 - (u.d / f.d) * F,   F = (h/2) / tan(fovy/2),
 * in pixel units from the top-left corner (pixel (i, j) covers [i, i+1] x [j, j+1]). The GL
 * renderer uses exactly this projection, with positions relative to the eye formed in double
 * precision, so scenes thousands of kilometres from the origin draw without jitter. */
#ifndef HINGE_RENDER_CAMERA_H
#define HINGE_RENDER_CAMERA_H

#include <stddef.h>

typedef struct hg_camera {
  double eye[3], target[3], up[3]; /* world */
  double fovy;                     /* vertical field of view, degrees (0 < fovy < 180) */
} hg_camera;

/* a view from (+x, -y, +z) at the origin, z up, 45 degrees */
void hg_camera_default(hg_camera *c);

/* Reads "eye=X,Y,Z target=X,Y,Z up=X,Y,Z fov=DEG" (any subset, any order; missing keys keep c's
 * values). 0, or -1 with err = what was expected. */
int hg_camera_parse(const char *text, hg_camera *c, char *err, size_t errlen);
/* the same text form, %.17g (hg_camera_parse reads it back exactly) */
void hg_camera_format(const hg_camera *c, char *buf, size_t len);

/* camera axes s (right), u (up), f (forward), unit and orthogonal; -1 when eye = target or up is
 * parallel to the view direction (then a fallback up is used) */
int hg_camera_basis(const hg_camera *c, double s[3], double u[3], double f[3]);
/* pixel position of world point x (see above); returns 1 when x is in front of the eye, else 0 */
int hg_camera_project(const hg_camera *c, int w, int h, const double x[3], double px[2]);
/* the ray through pixel position (px, py): origin the eye, unit direction (world) */
void hg_camera_ray(const hg_camera *c, int w, int h, double px, double py, double origin[3],
                   double dir[3]);

/* mouse motions: orbit about the target around the up direction (yaw) and the right axis
 * (pitch; radians, kept 1 degree short of the poles); pan by a fraction of the view height;
 * zoom moves the eye to factor x its distance from the target */
void hg_camera_orbit(hg_camera *c, double yaw, double pitch);
void hg_camera_pan(hg_camera *c, double dx, double dy);
void hg_camera_zoom(hg_camera *c, double factor);
/* moves eye and target together by d (tracking a body) */
void hg_camera_translate(hg_camera *c, const double d[3]);
/* keeps the view direction, moves the target to centre and backs off so that a sphere of radius
 * r about it fills the view (aspect w/h) */
void hg_camera_fit(hg_camera *c, const double centre[3], double r, int w, int h);

/* preset views of the target along an axis, at the current distance */
typedef enum hg_camera_preset {
  HG_VIEW_FRONT = 0, /* looking along +y (from -y), z up */
  HG_VIEW_BACK,      /* along -y */
  HG_VIEW_RIGHT,     /* along -x (from +x) */
  HG_VIEW_LEFT,      /* along +x */
  HG_VIEW_TOP,       /* along -z, y up */
  HG_VIEW_BOTTOM,    /* along +z */
  HG_VIEW_ISO        /* from (+1, -1, +0.7) */
} hg_camera_preset;
void hg_camera_preset_view(hg_camera *c, hg_camera_preset p);

#endif
