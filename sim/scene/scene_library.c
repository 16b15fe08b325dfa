/* scene_library.c: bodies absent at the start (present: false): the checks they need, and their
 * move from the scene's builder into the library that add actions draw from. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scene_internal.h"

/* ---- lookups ---- */

/* the body of the scene with this name, or NULL (a URDF body) */
static const hg_sc_body *scene_body(const hg_sctx *c, const char *name) {
  int k = hg_sc_body_index(c, name);
  return k >= 0 ? &c->body[k] : NULL;
}

int hg_sc_absent(const hg_sctx *c, int i) { return c->absent && i > 0 && c->absent[i]; }

int hg_sc_absent_joint(const hg_sctx *c, const char *joint) {
  return hg_sc_absent(c, hg_model_joint(c->m, joint));
}

/* the absent body that an add action brings body i with: i itself, or its absent ancestor */
static int added_with(const hg_sctx *c, int i) {
  while (hg_sc_absent(c, c->m->parent[i])) i = c->m->parent[i];
  return i;
}

int hg_sc_add_root(hg_sctx *c, const hg_ynode *n, int i) {
  const char *name = c->m->body_name[i];
  int r;
  if (!hg_sc_absent(c, i))
    return hg_ydoc_fail(&c->doc, n,
                        "body '%s' is present at the start: only a body with 'present: false' can "
                        "be added", name);
  r = added_with(c, i);
  if (r == i) return 0;
  return hg_ydoc_fail(&c->doc, n,
                      "body '%s' comes with '%s' (its parent '%s' is absent at the start too): "
                      "add '%s'", name, c->m->body_name[r], c->m->body_name[c->m->parent[i]],
                      c->m->body_name[r]);
}

int hg_sc_present(hg_sctx *c, const hg_ynode *n, int i, const char *hint) {
  if (!hg_sc_absent(c, i)) return 0;
  return hg_ydoc_fail(&c->doc, n, "body '%s' is not present at the start ('present: false'): %s",
                      c->m->body_name[i], hint);
}

/* ---- checks ---- */

/* bodies present at the start and URDF includes hang from present bodies only */
static int check_present_parents(hg_sctx *c) {
  for (int k = 0; k < c->nref; k++) {
    const hg_sc_body *p = scene_body(c, c->ref[k].name);
    if (c->ref[k].absent || !p || !p->absent) continue;
    return hg_ydoc_fail(&c->doc, c->ref[k].node,
                        "parent '%s' is not present at the start ('present: false'): only bodies "
                        "absent at the start may hang from it", p->name);
  }
  return 0;
}

/* c->absent per body of the full model; the number absent through *n */
static int mark_absent(hg_sctx *c, int *n) {
  *n = 0;
  for (int k = 0; k < c->nbody; k++) *n += c->body[k].absent;
  if (*n == 0) return 0;
  c->absent = calloc((size_t)c->m->nbody, 1);
  if (!c->absent) return hg_ydoc_fail(&c->doc, c->body[0].name_node, "out of memory");
  for (int k = 0; k < c->nbody; k++)
    if (c->body[k].absent) c->absent[hg_model_body(c->m, c->body[k].name)] = 1;
  if (*n < c->m->nbody - 1) return 0;
  return hg_ydoc_fail(&c->doc, c->body[0].present_node,
                      "every body is absent at the start ('present: false'): at least one must "
                      "be present");
}

/* ---- the library ---- */

/* one absent body into the library builder: a root hangs from the world there */
static int library_body(hg_sctx *c, hg_builder *lib, const hg_sc_body *rec, hg_error *e) {
  hg_body_spec spec = *hg_builder_body(c->s->builder, rec->name);
  const hg_sc_body *p = strcmp(spec.parent, "world") ? scene_body(c, spec.parent) : NULL;
  if (!p || !p->absent) spec.parent = "world";
  return hg_builder_add_body(lib, &spec, e);
}

/* the absent bodies and their geometry in a builder of their own, compiled */
static hg_model *library_model(hg_sctx *c, hg_error *e) {
  hg_builder *lib = hg_builder_new();
  hg_model *m = NULL;
  int rc = lib ? 0 : -1;
  if (!lib) hg_error_set(e, "out of memory");
  for (int k = 0; k < c->nbody && !rc; k++)
    if (c->body[k].absent) rc = library_body(c, lib, &c->body[k], e);
  for (int g = 0; g < c->m->ngeom && !rc; g++)
    if (c->absent[c->m->geom[g].body])
      rc = hg_builder_add_geom(lib, c->m->body_name[c->m->geom[g].body], &c->m->geom[g], e);
  if (!rc) m = hg_builder_compile(lib, e);
  hg_builder_free(lib);
  return m;
}

/* each library body's parent in the scene (read before the bodies leave the builder) */
static int library_parents(hg_sctx *c, hg_library *lib) {
  const hg_model *m = lib->model;
  lib->parent = calloc((size_t)m->nbody, sizeof *lib->parent);
  if (!lib->parent) return -1;
  for (int i = 1; i < m->nbody; i++) {
    lib->parent[i] = hg_strdup(hg_builder_body(c->s->builder, m->body_name[i])->parent);
    if (!lib->parent[i]) return -1;
  }
  return 0;
}

/* the roots leave the scene's builder, and their subtrees and geometry with them */
static int remove_roots(hg_sctx *c, const hg_model *m, hg_error *e) {
  for (int i = 1; i < m->nbody; i++)
    if (m->parent[i] == 0 && hg_builder_remove_body(c->s->builder, m->body_name[i], e)) return -1;
  return 0;
}

int hg_sc_library(hg_sctx *c) {
  hg_library *lib = &c->s->library;
  hg_error e;
  int n;
  if (check_present_parents(c) || mark_absent(c, &n)) return -1;
  if (n == 0) return 0;
  /* the full model compiled, so these can only run out of memory */
  if (!(lib->model = library_model(c, &e)))
    return hg_ydoc_fail(&c->doc, c->body[0].name_node, "bodies absent at the start: %s", e.msg);
  if (library_parents(c, lib)) return hg_ydoc_fail(&c->doc, c->body[0].name_node, "out of memory");
  if (remove_roots(c, lib->model, &e))
    return hg_ydoc_fail(&c->doc, c->body[0].name_node, "bodies absent at the start: %s", e.msg);
  return 0;
}

void hg_sc_free_library(hg_library *lib) {
  for (int i = 0; lib->model && lib->parent && i < lib->model->nbody; i++) free(lib->parent[i]);
  for (int k = 0; k < lib->njinit; k++) free(lib->jinit[k].joint);
  free(lib->parent);
  free(lib->jinit);
  hg_model_free(lib->model);
  memset(lib, 0, sizeof *lib);
}
