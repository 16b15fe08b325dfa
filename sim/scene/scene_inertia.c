/* scene_inertia.c: a body's inertia, explicit (mass, com, inertia) or from a closed mesh. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mesh.h"
#include "scene_internal.h"

/* the keys of an inertia, and those only one of its two forms takes */
static const char *const inertia_keys[] = {"mass", "com",  "inertia", "mesh",    "density", "scale",
                                           "pos",  "quat", "rpy",     "rpy_deg", NULL};
static const char *const explicit_only[] = {"com", "inertia", NULL};
static const char *const mesh_only[] = {"density", "scale", "pos", "quat", "rpy", "rpy_deg", NULL};

/* -1 at the first key of list present in map, saying it belongs to the other form */
static int exclude(hg_sctx *c, const hg_ynode *map, const char *const *list, const char *form) {
  for (int k = 0; list[k]; k++) {
    const hg_ynode *key = hg_ydoc_key(&c->doc, map, list[k]);
    if (key) return hg_ydoc_fail(&c->doc, key, "'%s' does not apply to %s", list[k], form);
  }
  return 0;
}

/* ---- explicit: mass, centre of mass, inertia about the centre of mass ---- */

/* I_c as 6 numbers (xx yy zz xy xz yz) or 3 principal ones (xx yy zz) */
static int inertia_numbers(hg_sctx *c, const hg_ynode *map, double Ic[6]) {
  const hg_ynode *n = hg_ydoc_get(&c->doc, map, "inertia");
  int count = 0;
  memset(Ic, 0, 6 * sizeof *Ic);
  if (!n) return 0;
  if (hg_ydoc_numbers(&c->doc, n, "'inertia'", -6, Ic, &count)) return -1;
  if (count != 3 && count != 6)
    return hg_ydoc_fail(&c->doc, n,
                        "expected 3 numbers (ixx, iyy, izz) or 6 (ixx, iyy, izz, ixy, "
                        "ixz, iyz) for 'inertia', got %d",
                        count);
  return 0;
}

/* mass, com and inertia through hg_inertia_from_com */
static int explicit_inertia(hg_sctx *c, const hg_ynode *map, const char *body, hg_inertia *out) {
  double mass = 0, com[3] = {0, 0, 0}, Ic[6];
  const hg_ynode *mn, *in = hg_ydoc_get(&c->doc, map, "inertia");
  char why[200];
  if (exclude(c, map, mesh_only, "an inertia given by 'mass' (it needs 'mesh')") ||
      !(mn = hg_sc_required(c, map, "mass", "inertia (or give 'mesh' and 'density')")) ||
      hg_yget_number(&c->doc, map, "mass", &mass) || hg_yget_vec(&c->doc, map, "com", 3, com) ||
      inertia_numbers(c, map, Ic))
    return -1;
  if (hg_inertia_from_com(mass, com, Ic, out, why, sizeof why) == 0) return 0;
  return hg_ydoc_fail(&c->doc, in ? in : mn, "inertia of body '%s': %s", body, why);
}

/* ---- from a closed triangle mesh ---- */

/* scale: one positive number or three */
static int mesh_scale(hg_sctx *c, const hg_ynode *map, double s[3]) {
  const hg_ynode *n = hg_ydoc_get(&c->doc, map, "scale");
  s[0] = s[1] = s[2] = 1;
  if (!n) return 0;
  if (hg_ydoc_is_scalar(n)) {
    if (hg_ydoc_number(&c->doc, n, "'scale'", 0, &s[0])) return -1;
    s[1] = s[2] = s[0];
  } else if (hg_ydoc_numbers(&c->doc, n, "'scale'", 3, s, NULL)) {
    return -1;
  }
  if (s[0] > 0 && s[1] > 0 && s[2] > 0) return 0;
  return hg_ydoc_fail(&c->doc, n, "'scale' must be positive");
}

/* the mesh read, scaled and placed in the body frame */
static int mesh_read(hg_sctx *c, const hg_ynode *map, hg_mesh *mesh) {
  const hg_ynode *fn = hg_ydoc_get(&c->doc, map, "mesh");
  const char *file;
  double scale[3];
  hg_se3 pose;
  hg_error e;
  char *path;
  if (hg_ydoc_name(&c->doc, fn, "'mesh'", &file) || mesh_scale(c, map, scale) ||
      hg_sc_pose(c, map, &pose) || !(path = hg_sc_resolve(c, fn, file)))
    return -1;
  int rc = hg_mesh_load(path, mesh, &e);
  free(path);
  if (rc) return hg_ydoc_fail(&c->doc, fn, "mesh inertia: %s", e.msg);
  hg_mesh_scale(mesh, scale);
  hg_mesh_transform(mesh, &pose);
  return 0;
}

/* density given, or mass / volume */
static int mesh_density(hg_sctx *c, const hg_ynode *map, const hg_mesh *mesh, double *rho) {
  const hg_ynode *dn = hg_ydoc_get(&c->doc, map, "density"),
                 *mn = hg_ydoc_get(&c->doc, map, "mass");
  double mass = 0, vol;
  if (dn && mn)
    return hg_ydoc_fail(&c->doc, hg_ydoc_key(&c->doc, map, "mass"),
                        "give the mesh's 'density' or its 'mass', not both");
  if (!dn && !mn) return hg_ydoc_fail(&c->doc, map, "a mesh inertia needs 'density' (or 'mass')");
  if (dn) return hg_sc_positive(c, map, "density", rho);
  if (hg_sc_positive(c, map, "mass", &mass)) return -1;
  vol = hg_mesh_volume(mesh);
  if (!(vol > 0))
    return hg_ydoc_fail(&c->doc, hg_ydoc_get(&c->doc, map, "mesh"),
                        "mesh inertia: the mesh encloses no positive volume (is it inside out?)");
  *rho = mass / vol;
  return 0;
}

/* the mesh's solid through hg_mesh_inertia; the mesh is freed on every path */
static int mesh_inertia(hg_sctx *c, const hg_ynode *map, const char *body, hg_inertia *out) {
  hg_mesh mesh;
  hg_error e;
  double rho = 0;
  int rc = -1;
  memset(&mesh, 0, sizeof mesh);
  if (exclude(c, map, explicit_only, "a mesh inertia (it comes from 'mesh' and 'density')"))
    return -1;
  if (mesh_read(c, map, &mesh) == 0 && mesh_density(c, map, &mesh, &rho) == 0) {
    rc = hg_mesh_inertia(&mesh, rho, out, &e);
    if (rc)
      hg_ydoc_fail(&c->doc, hg_ydoc_get(&c->doc, map, "mesh"), "inertia of body '%s': %s", body,
                   e.msg);
  }
  hg_mesh_free(&mesh);
  return rc;
}

int hg_sc_inertia(hg_sctx *c, const hg_ynode *map, const char *body, hg_inertia *out) {
  char what[160];
  snprintf(what, sizeof what, "inertia of body '%s'", body);
  if (hg_ydoc_check_keys(&c->doc, map, what, inertia_keys)) return -1;
  if (hg_ydoc_get(&c->doc, map, "mesh")) return mesh_inertia(c, map, body, out);
  return explicit_inertia(c, map, body, out);
}
