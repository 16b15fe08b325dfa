/* scene_geometry.c: display geometry of a body (box, sphere, cylinder, capsule, cone, mesh). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scene_internal.h"

/* every key a geometry may have (which apply depends on its type) */
static const char *const geom_keys[] = {"type",    "size",  "radius",    "length", "height",
                                        "mesh",    "scale", "pos",       "quat",   "rpy",
                                        "rpy_deg", "rgba",  "collision", NULL};
/* in hg_geom_type order */
static const char *const geom_types[] = {"box", "sphere", "cylinder", "capsule", "cone", "mesh"};

/* the named size keys of each type (hg_geom's size[0], size[1]), and how many numbers 'size'
 * takes in their place (a box has only 'size', a mesh only 'mesh' and 'scale') */
static const struct {
  const char *named[2];
  int nsize;
} geom_shape[] = {
    {{NULL, NULL}, 3},         {{"radius", NULL}, 1},     {{"radius", "length"}, 2},
    {{"radius", "length"}, 2}, {{"radius", "height"}, 2}, {{NULL, NULL}, 0},
};

/* 1 when the shape key (size, radius, length, height, mesh, scale) applies to type t */
static int shape_key_of(const char *key, int t) {
  if (strcmp(key, "size") == 0) return geom_shape[t].nsize > 0;
  if (strcmp(key, "mesh") == 0 || strcmp(key, "scale") == 0) return t == HG_GEOM_MESH;
  for (int k = 0; k < 2; k++)
    if (geom_shape[t].named[k] && strcmp(key, geom_shape[t].named[k]) == 0) return 1;
  return 0;
}

/* 1 when key is one of the shape keys */
static int shape_key(const char *key) {
  for (int k = 1; k <= 6; k++)
    if (strcmp(key, geom_keys[k]) == 0) return 1;
  return 0;
}

/* the needed keys of type t: 'size' or the named ones (not both), or a mesh's 'mesh' */
static int shape_needs(hg_sctx *c, const hg_ynode *n, int t) {
  char what[64];
  int has_size = hg_ydoc_get(&c->doc, n, "size") != NULL;
  snprintf(what, sizeof what, "%s geometry", geom_types[t]);
  if (t == HG_GEOM_MESH) return hg_ydoc_require(&c->doc, n, "mesh", what);
  if (t == HG_GEOM_BOX) return hg_ydoc_require(&c->doc, n, "size", what);
  for (int k = 0; k < 2 && geom_shape[t].named[k]; k++) {
    const hg_ynode *key = hg_ydoc_key(&c->doc, n, geom_shape[t].named[k]);
    if (key && has_size)
      return hg_ydoc_fail(&c->doc, key, "give a %s's 'size' or its '%s', not both", geom_types[t],
                          geom_shape[t].named[k]);
    if (!has_size && hg_ydoc_require(&c->doc, n, geom_shape[t].named[k], what)) return -1;
  }
  return 0;
}

/* every shape key applies to the type, and the needed ones are there */
static int shape_keys(hg_sctx *c, const hg_ynode *n, int t) {
  for (int k = 0; k < hg_ydoc_len(n); k++) {
    const hg_ynode *key = hg_ydoc_pair_key(&c->doc, n, k);
    const char *name = hg_ydoc_text(key);
    if (shape_key(name) && !shape_key_of(name, t))
      return hg_ydoc_fail(&c->doc, key, "'%s' does not apply to a %s", name, geom_types[t]);
  }
  return shape_needs(c, n, t);
}

/* a positive size into *out */
static int size_value(hg_sctx *c, const hg_ynode *n, const char *key, double *out) {
  return hg_sc_positive(c, n, key, out);
}

/* 'size' of a sphere, cylinder, capsule or cone: count positive numbers */
static int size_list(hg_sctx *c, const hg_ynode *n, int count, double *s) {
  const hg_ynode *v = hg_ydoc_get(&c->doc, n, "size");
  if (hg_ydoc_numbers(&c->doc, v, "'size'", count, s, NULL)) return -1;
  for (int k = 0; k < count; k++)
    if (!(s[k] > 0)) return hg_ydoc_fail(&c->doc, v, "every entry of 'size' must be positive");
  return 0;
}

/* box extents, or scale of a mesh (one number or three) */
static int size3(hg_sctx *c, const hg_ynode *n, const char *key, double s[3]) {
  const hg_ynode *v = hg_ydoc_get(&c->doc, n, key);
  char what[32];
  snprintf(what, sizeof what, "'%s'", key);
  if (!v) return 0;
  if (hg_ydoc_is_scalar(v) && strcmp(key, "scale") == 0) {
    if (hg_ydoc_number(&c->doc, v, what, 0, &s[0])) return -1;
    s[1] = s[2] = s[0];
  } else if (hg_ydoc_numbers(&c->doc, v, what, 3, s, NULL)) {
    return -1;
  }
  if (s[0] > 0 && s[1] > 0 && s[2] > 0) return 0;
  return hg_ydoc_fail(&c->doc, v, "every entry of %s must be positive", what);
}

/* .obj or .stl, case-insensitive */
static int mesh_extension(const char *file) {
  const char *dot = strrchr(file, '.');
  char ext[5] = "";
  for (int k = 0; dot && k < 4 && dot[k + 1]; k++)
    ext[k] = (char)tolower((unsigned char)dot[k + 1]);
  return dot && strlen(dot) == 4 && (strcmp(ext, "obj") == 0 || strcmp(ext, "stl") == 0);
}

/* the mesh file of mesh geometry: an OBJ or STL that exists */
static int geom_mesh(hg_sctx *c, const hg_ynode *n, char **path) {
  const hg_ynode *fn = hg_ydoc_get(&c->doc, n, "mesh");
  const char *file;
  if (hg_ydoc_name(&c->doc, fn, "'mesh'", &file)) return -1;
  if (!mesh_extension(file))
    return hg_ydoc_fail(&c->doc, fn, "a mesh file must be .obj or .stl, got '%s'", file);
  *path = hg_sc_resolve(c, fn, file);
  return *path ? 0 : -1;
}

/* the size entries of each type (hg_geom's convention) */
static int geom_size(hg_sctx *c, const hg_ynode *n, hg_geom *g) {
  int t = (int)g->type;
  g->size[0] = g->size[1] = g->size[2] = 1;
  if (t == HG_GEOM_MESH) return size3(c, n, "scale", g->size);
  if (t == HG_GEOM_BOX) return size3(c, n, "size", g->size);
  if (hg_ydoc_get(&c->doc, n, "size")) return size_list(c, n, geom_shape[t].nsize, g->size);
  for (int k = 0; k < 2 && geom_shape[t].named[k]; k++)
    if (size_value(c, n, geom_shape[t].named[k], &g->size[k])) return -1;
  return 0;
}

/* colour: four numbers in [0, 1], default light grey */
static int geom_rgba(hg_sctx *c, const hg_ynode *n, float rgba[4]) {
  double v[4] = {0.7, 0.7, 0.7, 1};
  const hg_ynode *rn = hg_ydoc_get(&c->doc, n, "rgba");
  if (hg_yget_vec(&c->doc, n, "rgba", 4, v)) return -1;
  for (int k = 0; k < 4; k++) {
    if (!(v[k] >= 0 && v[k] <= 1))
      return hg_ydoc_fail(&c->doc, rn, "every entry of 'rgba' must be in [0, 1], got %g", v[k]);
    rgba[k] = (float)v[k];
  }
  return 0;
}

/* one shape on the body */
static int geom(hg_sctx *c, const hg_ynode *n, const char *body) {
  const hg_ynode *tn;
  hg_geom g;
  hg_error e;
  char *path = NULL;
  int t, rc;
  memset(&g, 0, sizeof g);
  if (hg_ydoc_check_keys(&c->doc, n, "geometry", geom_keys) ||
      !(tn = hg_sc_required(c, n, "type", "geometry")) ||
      hg_ydoc_choice(&c->doc, tn, "geometry type", geom_types, 6, &t) || shape_keys(c, n, t))
    return -1;
  g.type = (hg_geom_type)t;
  if (geom_size(c, n, &g) || hg_sc_pose(c, n, &g.pose) || geom_rgba(c, n, g.rgba) ||
      hg_yget_bool(&c->doc, n, "collision", &g.collision) ||
      (g.type == HG_GEOM_MESH && geom_mesh(c, n, &path)))
    return -1;
  g.mesh = path;
  rc = hg_builder_add_geom(c->s->builder, body, &g, &e);
  free(path);
  return rc ? hg_ydoc_fail(&c->doc, n, "%s", e.msg) : 0;
}

int hg_sc_geometry(hg_sctx *c, const hg_ynode *list, const char *body) {
  if (hg_ydoc_expect_seq(&c->doc, list, "'geometry'")) return -1;
  for (int k = 0; k < hg_ydoc_len(list); k++)
    if (geom(c, hg_ydoc_item(&c->doc, list, k), body)) return -1;
  return 0;
}
