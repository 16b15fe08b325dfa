/* scene_view.c: the optional view section of a scene (docs/scene-format.md, `view`): the bodies
 * the viewer's and hinge render's default camera keep in frame, and a starting camera. */
#include <math.h>
#include <string.h>

#include "scene_internal.h"

static const char *const view_keys[] = {"track", "camera", NULL};
static const char *const camera_keys[] = {"eye", "target", "up", "fov", NULL};

/* camera: {eye: [X, Y, Z], target: [X, Y, Z], up: [X, Y, Z], fov: DEG}; eye and target needed */
static int camera(hg_sctx *c, const hg_ynode *n, hg_view_spec *v) {
  if (hg_ydoc_expect_map(&c->doc, n, "'camera' (eye, target, up, fov)") ||
      hg_ydoc_check_keys(&c->doc, n, "view.camera", camera_keys) ||
      hg_ydoc_require(&c->doc, n, "eye", "view.camera") ||
      hg_ydoc_require(&c->doc, n, "target", "view.camera") ||
      hg_yget_vec(&c->doc, n, "eye", 3, v->eye) || hg_yget_vec(&c->doc, n, "target", 3, v->target) ||
      hg_yget_vec(&c->doc, n, "up", 3, v->up) || hg_yget_number(&c->doc, n, "fov", &v->fovy))
    return -1;
  if (!(v->fovy > 0 && v->fovy < 180))
    return hg_ydoc_fail(&c->doc, hg_ydoc_get(&c->doc, n, "fov"), "fov: expected degrees in (0, 180), got %g",
                        v->fovy);
  /* the view direction f = target - eye must be a direction, and up not along it: |f x up| > 0 */
  double f[3], x[3], nf = 0, nx = 0, nu = 0;
  for (int k = 0; k < 3; k++) f[k] = v->target[k] - v->eye[k], nf += f[k] * f[k], nu += v->up[k] * v->up[k];
  x[0] = f[1] * v->up[2] - f[2] * v->up[1], x[1] = f[2] * v->up[0] - f[0] * v->up[2];
  x[2] = f[0] * v->up[1] - f[1] * v->up[0];
  for (int k = 0; k < 3; k++) nx += x[k] * x[k];
  if (!(nf > 0)) return hg_ydoc_fail(&c->doc, n, "view.camera: eye equals target");
  if (!(nx > 1e-18 * nf * nu))
    return hg_ydoc_fail(&c->doc, n, "view.camera: up is zero or parallel to the view direction");
  v->has_camera = 1;
  return 0;
}

int hg_sc_view(hg_sctx *c, const hg_ynode *n) {
  hg_view_spec *v = &c->s->view;
  v->up[0] = v->up[1] = 0, v->up[2] = 1, v->fovy = 45;
  if (hg_ydoc_expect_map(&c->doc, n, "'view' (track, camera)") ||
      hg_ydoc_check_keys(&c->doc, n, "view", view_keys))
    return -1;
  const hg_ynode *tn = hg_ydoc_get(&c->doc, n, "track"), *cn = hg_ydoc_get(&c->doc, n, "camera");
  if (tn && hg_sc_body_set(c, tn, &v->ntrack, &v->track)) return -1;
  return cn ? camera(c, cn, v) : 0;
}
