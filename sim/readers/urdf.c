/* urdf.c: reading URDF robot descriptions (libxml2) into a model builder.
 *
 * The reader works in three steps, and touches the builder only in the last:
 *   1. parse the XML and read every <material>, <link> and <joint> of <robot>, checking each
 *      element and number as it goes (errors name file:line);
 *   2. check the tree: known links, one parent joint per link, exactly one root, no cycle;
 *   3. add the bodies in parent-before-child order, then their geometry.
 * Frames: the URDF child link's frame is the joint frame, so a joint's <origin> is the joint
 * offset T_{parent,joint} and each body frame is its link frame. The root link hangs from the
 * parent body by a joint named <prefix><root link>_root (fixed, or free when floating). A root link
 * named "world" stands for the parent body itself: it adds no body and its child joints hang from
 * the parent body directly. Besides the URDF shapes, <capsule radius length> is read too. */
#include "urdf.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>
#include <unistd.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "readfile.h"
#include "dynamics.h"
#include "grow.h"
#include "ros_package.h"

/* a URDF link: its name, inertia, and parent joint (-1 for a root) */
typedef struct urdf_link {
  xmlChar *name;
  char *body; /* the prefixed body name, or NULL when the link stands for the parent body */
  const xmlNode *node;
  int parent_joint;
  hg_inertia inertia;
} urdf_link;

/* a URDF joint between two links (indices into the link table) */
typedef struct urdf_joint {
  xmlChar *name;
  const xmlNode *node;
  int parent, child;
  hg_joint joint;
  hg_se3 origin;
  hg_joint_limits limits;
  const xmlNode *mimic; /* <mimic>, or NULL */
  xmlChar *mimic_joint; /* the leader's name */
  double mimic_mult, mimic_offset;
} urdf_joint;

/* a named top-level <material> */
typedef struct urdf_material {
  xmlChar *name;
  float rgba[4];
} urdf_material;

/* geometry waiting for its body to be added */
typedef struct urdf_geom {
  int link;
  const xmlNode *node;
  hg_geom geom; /* mesh owned */
} urdf_geom;

/* elements skipped, by name: one summary line each unless verbose */
typedef struct urdf_skipped {
  char name[48];
  int count;
} urdf_skipped;

#define URDF_NSKIP 32

/* meshes that cannot be found or read noted one by one; the rest are counted in one line */
#define URDF_MISSING_NOTES 3

/* everything the reader owns */
typedef struct urdf_reader {
  const char *path;
  FILE *notes;
  hg_error *err;
  const hg_urdf_options *opt;
  /* invalid inertias: counted, the first message kept, the others listed by link and line */
  int ninvalid;
  long invalid_line;
  char invalid_first[384], invalid_more[256];
  urdf_skipped skipped[URDF_NSKIP];
  int nskipped;
  /* joints with <dynamics damping/friction> that hinge does not apply; mimic joints */
  int ndamped;
  long damped_line;
  /* meshes not found or not readable: the first few noted in full, the rest counted */
  int nmissing;
  /* visuals with several <material>s, fixed joints with a <mimic>: counted, the first kept */
  int nmultimat, nfixedmimic;
  long multimat_line, fixedmimic_line;
  char multimat_link[96], fixedmimic_joint[96];
  /* ROS packages by their package.xml names, built at the first package:// URL (pkgs_built) */
  hg_ros_packages *pkgs;
  int pkgs_built;
  xmlDoc *doc;
  urdf_link *link;
  urdf_joint *joint;
  urdf_material *mat;
  urdf_geom *geom;
  int nlink, njoint, nmat, ngeom;
  int caplink, capjoint, capmat, capgeom;
} urdf_reader;

static const float urdf_grey[4] = {0.7f, 0.7f, 0.7f, 1.0f};

/* ---- messages ---- */

/* err = "path:line: message"; returns -1 */
static int fail(urdf_reader *r, const xmlNode *n, const char *fmt, ...) {
  char msg[384];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (r->err) snprintf(r->err->msg, sizeof r->err->msg, "%s:%ld: %s", r->path,
                       n ? xmlGetLineNo(n) : 0L, msg);
  return -1;
}

/* "path:line: note: message" on the notes stream */
static void note(urdf_reader *r, const xmlNode *n, const char *fmt, ...) {
  va_list ap;
  if (!r->notes) return;
  fprintf(r->notes, "%s:%ld: note: ", r->path, xmlGetLineNo(n));
  va_start(ap, fmt);
  vfprintf(r->notes, fmt, ap);
  va_end(ap);
  fputc('\n', r->notes);
}

/* an element the reader does not support: listed when verbose, counted by name for the summary */
static void skip(urdf_reader *r, const xmlNode *n) {
  const char *name = (const char *)n->name;
  int k = 0;
  if (r->opt->verbose) note(r, n, "skipping <%s>", name);
  while (k < r->nskipped && strncmp(r->skipped[k].name, name, sizeof r->skipped[k].name - 1) != 0)
    k++;
  if (k == URDF_NSKIP) { /* more kinds than slots: the last slot counts the rest */
    k = URDF_NSKIP - 1;
    snprintf(r->skipped[k].name, sizeof r->skipped[k].name, "other");
  } else if (k == r->nskipped) {
    r->nskipped++;
    r->skipped[k].count = 0;
    snprintf(r->skipped[k].name, sizeof r->skipped[k].name, "%s", name);
  }
  r->skipped[k].count++;
}

/* one line summing up the skipped elements, and the notes on what changes the dynamics */
static void summarize(urdf_reader *r) {
  if (!r->notes) return;
  if (r->nskipped) {
    fprintf(r->notes, "%s: note: skipped", r->path);
    for (int k = 0; k < r->nskipped; k++)
      fprintf(r->notes, "%s %d <%s>", k ? "," : "", r->skipped[k].count, r->skipped[k].name);
    fprintf(r->notes, " element%s%s\n", r->nskipped > 1 || r->skipped[0].count > 1 ? "s" : "",
            r->opt->verbose ? "" : " (--verbose lists them)");
  }
  if (r->nmultimat && !r->opt->verbose)
    fprintf(r->notes, "%s:%ld: note: %d <visual>%s several <material> elements (the first on "
            "link '%s'): the first of each is used, as urdfdom does (--verbose lists them)\n",
            r->path, r->multimat_line, r->nmultimat, r->nmultimat > 1 ? "s have" : " has",
            r->multimat_link);
  if (r->nfixedmimic && !r->opt->verbose)
    fprintf(r->notes, "%s:%ld: note: %d fixed joint%s a <mimic> (the first '%s'), ignored: a fixed "
            "joint has no coordinate to couple (--verbose lists them)\n", r->path,
            r->fixedmimic_line, r->nfixedmimic, r->nfixedmimic > 1 ? "s have" : " has",
            r->fixedmimic_joint);
  if (r->nmissing > URDF_MISSING_NOTES && !r->opt->verbose)
    fprintf(r->notes, "%s: note: %d meshes in all cannot be found or read and are not shown (the "
            "first %d are noted above; --verbose lists them all)\n", r->path, r->nmissing,
            URDF_MISSING_NOTES);
  if (r->ndamped)
    fprintf(r->notes,
            "%s:%ld: note: %d joint%s <dynamics damping/friction> that hinge does not apply: "
            "the joints move without it (a scene's damper force elements add joint damping)\n",
            r->path, r->damped_line, r->ndamped, r->ndamped > 1 ? "s have" : " has");
}

/* ---- small helpers ---- */

/* arr with room for one more element after its n (capacity *cap, updated), or NULL when out of
 * memory (arr is then still valid) */
static void *reserve(void *arr, int *cap, int n, size_t size) {
  return hg_grow(&arr, n, cap, 8, size) ? NULL : arr;
}

/* a + b + c in new memory (NULL when out of memory) */
static char *concat(const char *a, const char *b, const char *c) {
  size_t la = strlen(a), lb = strlen(b), lc = strlen(c);
  char *s = malloc(la + lb + lc + 1);
  if (!s) return NULL;
  memcpy(s, a, la);
  memcpy(s + la, b, lb);
  memcpy(s + la + lb, c, lc + 1);
  return s;
}

static int is_element(const xmlNode *n, const char *name) {
  return n->type == XML_ELEMENT_NODE && (!name || strcmp((const char *)n->name, name) == 0);
}

/* *slot = n, or an error when an element of that kind was already seen */
static int take(urdf_reader *r, const xmlNode *n, const xmlNode **slot) {
  if (*slot)
    return fail(r, n, "duplicate <%s> (the first is on line %ld)", (const char *)n->name,
                xmlGetLineNo(*slot));
  *slot = n;
  return 0;
}

/* the child elements of n named names[k] (k < count; at most one of each) into *slots[k]; the
 * other elements are skipped */
static int take_children(urdf_reader *r, const xmlNode *n, int count, const char *const *names,
                         const xmlNode **const *slots) {
  for (const xmlNode *c = n->children; c; c = c->next) {
    if (!is_element(c, NULL)) continue;
    int k = 0;
    while (k < count && !is_element(c, names[k])) k++;
    if (k == count) skip(r, c);
    else if (take(r, c, slots[k])) return -1;
  }
  return 0;
}

static const char *link_name(const urdf_reader *r, int i) { return (const char *)r->link[i].name; }

static int find_link(const urdf_reader *r, const char *name) {
  for (int i = 0; i < r->nlink; i++)
    if (strcmp(link_name(r, i), name) == 0) return i;
  return -1;
}

/* ---- numbers ---- */

/* x[0..n) = the n numbers of s, separated by white space; -1 unless s holds exactly n finite
 * numbers and nothing else */
static int parse_numbers(const char *s, int n, double *x) {
  const char *p = s;
  for (int k = 0; k < n; k++) {
    char *end;
    errno = 0;
    x[k] = strtod(p, &end);
    if (end == p || !isfinite(x[k]) || (*end && !isspace((unsigned char)*end))) return -1;
    p = end;
  }
  while (isspace((unsigned char)*p)) p++;
  return *p ? -1 : 0;
}

/* out[0..n) = the numbers of attribute name of n. A missing attribute leaves out unchanged,
 * or is an error when required. */
static int attr_numbers(urdf_reader *r, const xmlNode *n, const char *name, int count,
                        int required, double *out) {
  xmlChar *v = xmlGetProp(n, (const xmlChar *)name);
  double x[4];
  int rc = 0;
  if (!v) {
    if (required) return fail(r, n, "<%s> needs a %s attribute", (const char *)n->name, name);
    return 0;
  }
  if (parse_numbers((const char *)v, count, x))
    rc = fail(r, n, "%s=\"%s\" of <%s> is not %s", name, (const char *)v, (const char *)n->name,
              count == 1 ? "a finite number" : count == 3 ? "3 finite numbers" : "4 finite numbers");
  else
    memcpy(out, x, (size_t)count * sizeof(double));
  xmlFree(v);
  return rc;
}

/* a required, non-empty name attribute (caller frees with xmlFree); NULL with err set */
static xmlChar *attr_name(urdf_reader *r, const xmlNode *n, const char *attr, const char *what) {
  xmlChar *v = xmlGetProp(n, (const xmlChar *)attr);
  if (!v || !v[0]) {
    xmlFree(v);
    fail(r, n, "%s needs a non-empty %s attribute", what, attr);
    return NULL;
  }
  return v;
}

/* the 'name' of n, a <kind>, that no earlier element of its kind has (earlier: the element with
 * that name, or NULL); NULL after an error */
static xmlChar *unique_name(urdf_reader *r, const xmlNode *n, const char *kind,
                            const xmlNode *(*earlier)(const urdf_reader *r, const xmlChar *name)) {
  char what[32];
  snprintf(what, sizeof what, "<%s>", kind);
  xmlChar *name = attr_name(r, n, "name", what);
  const xmlNode *first = name ? earlier(r, name) : NULL;
  if (!first) return name;
  fail(r, n, "duplicate %s name '%s' (the first is on line %ld)", kind, (const char *)name,
       xmlGetLineNo(first));
  xmlFree(name);
  return NULL;
}

/* T = the pose of an <origin> (xyz, rpy; identity when origin is NULL) */
static int read_origin(urdf_reader *r, const xmlNode *origin, hg_se3 *T) {
  double rpy[3] = {0, 0, 0};
  hg_se3_identity(T);
  if (!origin) return 0;
  if (attr_numbers(r, origin, "xyz", 3, 0, T->p) || attr_numbers(r, origin, "rpy", 3, 0, rpy))
    return -1;
  hg_rpy_to_R(rpy, T->R);
  return 0;
}

/* ---- materials ---- */

/* rgba of a <color> child of a <material>; 1 when found, 0 when none, -1 on error */
static int material_color(urdf_reader *r, const xmlNode *mat, float rgba[4]) {
  for (const xmlNode *c = mat->children; c; c = c->next) {
    double x[4];
    if (!is_element(c, "color")) continue;
    if (attr_numbers(r, c, "rgba", 4, 1, x)) return -1;
    for (int k = 0; k < 4; k++) rgba[k] = (float)x[k];
    return 1;
  }
  return 0;
}

/* a top-level <material name=...> with its color (grey without one) */
static int read_material(urdf_reader *r, const xmlNode *n) {
  urdf_material *m = reserve(r->mat, &r->capmat, r->nmat, sizeof *r->mat);
  if (!m) return fail(r, n, "out of memory");
  r->mat = m;
  m = &r->mat[r->nmat];
  memcpy(m->rgba, urdf_grey, sizeof m->rgba);
  m->name = attr_name(r, n, "name", "a top-level <material>");
  if (!m->name) return -1;
  r->nmat++;
  return material_color(r, n, m->rgba) < 0 ? -1 : 0;
}

/* rgba of a <material> inside a <visual>: inline color, else a named top-level material */
static int geom_material(urdf_reader *r, const xmlNode *n, float rgba[4]) {
  int rc = material_color(r, n, rgba);
  xmlChar *name;
  if (rc) return rc < 0 ? -1 : 0;
  name = xmlGetProp(n, (const xmlChar *)"name");
  if (name) {
    int found = 0;
    for (int i = 0; i < r->nmat && !found; i++)
      if (xmlStrEqual(r->mat[i].name, name)) {
        memcpy(rgba, r->mat[i].rgba, 4 * sizeof(float));
        found = 1;
      }
    if (!found) note(r, n, "unknown material '%s': using grey", (const char *)name);
    xmlFree(name);
  }
  return 0;
}

/* ---- geometry ---- */

/* a positive size attribute */
static int attr_size(urdf_reader *r, const xmlNode *n, const char *name, double *x) {
  if (attr_numbers(r, n, name, 1, 1, x)) return -1;
  if (!(*x > 0)) return fail(r, n, "%s of <%s> must be positive, got %g", name, (const char *)n->name, *x);
  return 0;
}

/* 1 when path is a folder */
static int is_dir(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* dir/pkg/rest when dir/pkg is a folder, or dir/rest when dir itself is named pkg (len bytes of
 * dir); NULL otherwise or when out of memory (*oom set) */
static char *package_in(const char *dir, size_t len, const char *pkg, size_t plen,
                        const char *rest, int *oom) {
  char *s = malloc(len + plen + strlen(rest) + 3);
  const char *base;
  if (!s) {
    *oom = 1;
    return NULL;
  }
  while (len > 1 && dir[len - 1] == '/') len--;
  snprintf(s, len + plen + 2, "%.*s/%.*s", (int)len, dir, (int)plen, pkg);
  if (is_dir(s)) {
    strcat(s, "/");
    strcat(s, rest);
    return s;
  }
  /* the folder itself is the package */
  s[len] = 0;
  base = strrchr(s, '/');
  base = base ? base + 1 : s;
  if (strlen(base) == plen && strncmp(base, pkg, plen) == 0) {
    strcat(s, "/");
    strcat(s, rest);
    return s;
  }
  free(s);
  return NULL;
}

/* the first folder of a ':'-separated list that holds package pkg (see package_in) */
static char *package_in_list(const char *list, const char *pkg, size_t plen, const char *rest,
                             int *oom) {
  while (list && *list && !*oom) {
    const char *colon = strchr(list, ':');
    size_t len = colon ? (size_t)(colon - list) : strlen(list);
    char *s = len ? package_in(list, len, pkg, plen, rest, oom) : NULL;
    if (s) return s;
    list = colon ? colon + 1 : NULL;
  }
  return NULL;
}

/* the index of the packages a package:// URL may name, in the order they are searched: those
 * under the package_path option's folders, then under ROS_PACKAGE_PATH's, then the folders that
 * hold the URDF file, innermost first (a robot description usually sits inside its own package).
 * -1 when out of memory. */
static int index_packages(urdf_reader *r) {
  char dir[4096];
  r->pkgs_built = 1;
  if (!(r->pkgs = hg_ros_packages_new()) || hg_ros_packages_crawl(r->pkgs, r->opt->package_path) ||
      hg_ros_packages_crawl(r->pkgs, getenv("ROS_PACKAGE_PATH")))
    return -1;
  for (size_t k = strlen(r->path); k > 0; k--)
    if (r->path[k - 1] == '/' && k - 1 < sizeof dir) {
      memcpy(dir, r->path, k - 1);
      dir[k - 1] = 0;
      if (k > 1 && hg_ros_packages_add(r->pkgs, dir)) return -1;
    }
  return 0;
}

/* package://PKG/REST as ROS tools resolve it: the package whose package.xml is named PKG (see
 * index_packages); when none is, a folder named PKG in the same places, as older trees without
 * manifests are laid out. NULL when not found. */
static char *resolve_package(urdf_reader *r, const char *url, int *oom) {
  const char *pkg = url + 10, *slash = strchr(pkg, '/');
  size_t plen = slash ? (size_t)(slash - pkg) : strlen(pkg);
  const char *rest = slash ? slash + 1 : "", *dir;
  if (!r->pkgs_built && index_packages(r)) return *oom = 1, NULL;
  if ((dir = hg_ros_packages_find(r->pkgs, pkg, plen))) {
    char *s = concat(dir, "/", rest);
    if (!s) *oom = 1;
    return s;
  }
  char *s = package_in_list(r->opt->package_path, pkg, plen, rest, oom);
  if (!s && !*oom) s = package_in_list(getenv("ROS_PACKAGE_PATH"), pkg, plen, rest, oom);
  /* the URDF file's own folders, innermost first */
  for (size_t k = strlen(r->path); !s && !*oom && k > 0; k--) {
    if (r->path[k - 1] != '/') continue;
    size_t len = k - 1;
    const char *base = r->path;
    for (size_t j = 0; j < len; j++)
      if (r->path[j] == '/') base = r->path + j + 1;
    if ((size_t)(r->path + len - base) == plen && strncmp(base, pkg, plen) == 0)
      s = package_in(r->path, len, pkg, plen, rest, oom);
  }
  return s;
}

/* a mesh that cannot be found or read: the first URDF_MISSING_NOTES are noted in full (all of
 * them when verbose), the others counted for summarize() */
static int missing_mesh(urdf_reader *r) {
  return r->nmissing++ < URDF_MISSING_NOTES || r->opt->verbose;
}

/* the mesh path: package:// resolved (resolve_package), file:// and absolute paths as they are,
 * relative paths resolved against the folder of the URDF file. A file that cannot be found is a
 * note: the viewer and collision skip it. */
static char *mesh_path(urdf_reader *r, const xmlNode *n, const char *file) {
  const char *slash = strrchr(r->path, '/');
  size_t dir = slash ? (size_t)(slash - r->path) + 1 : 0;
  char *s;
  int oom = 0;
  if (strncmp(file, "package://", 10) == 0) {
    s = resolve_package(r, file, &oom);
    if (oom) return NULL;
    if (!s) {
      if (missing_mesh(r))
        note(r, n, "mesh '%s': package not found in --package-path, ROS_PACKAGE_PATH or the URDF "
             "file's folders; the mesh is not shown", file);
      return concat(file + 10, "", "");
    }
  } else if (strncmp(file, "file://", 7) == 0) {
    s = concat(file + 7, "", "");
  } else if (file[0] == '/') {
    s = concat(file, "", "");
  } else {
    s = malloc(dir + strlen(file) + 1);
    if (!s) return NULL;
    memcpy(s, r->path, dir);
    strcpy(s + dir, file);
  }
  if (s && access(s, R_OK) != 0 && missing_mesh(r))
    note(r, n, "mesh file '%s' (from '%s') cannot be read: %s; the mesh is not shown", s, file,
         strerror(errno));
  return s;
}

/* a <mesh filename scale> */
static int read_mesh(urdf_reader *r, const xmlNode *n, hg_geom *g) {
  xmlChar *file = attr_name(r, n, "filename", "<mesh>");
  g->type = HG_GEOM_MESH;
  g->size[0] = g->size[1] = g->size[2] = 1;
  if (!file) return -1;
  g->mesh = mesh_path(r, n, (const char *)file);
  xmlFree(file);
  if (!g->mesh) return fail(r, n, "out of memory");
  return attr_numbers(r, n, "scale", 3, 0, g->size);
}

/* the shape in a <geometry>: exactly one of box, cylinder, sphere, mesh (or capsule) */
static int read_shape(urdf_reader *r, const xmlNode *geometry, hg_geom *g) {
  const xmlNode *s = NULL;
  for (const xmlNode *c = geometry->children; c; c = c->next) {
    if (!is_element(c, NULL)) continue;
    if (s) return fail(r, c, "<geometry> holds more than one shape");
    s = c;
  }
  if (!s) return fail(r, geometry, "<geometry> needs a box, cylinder, sphere or mesh");
  if (is_element(s, "box")) {
    g->type = HG_GEOM_BOX;
    if (attr_numbers(r, s, "size", 3, 1, g->size)) return -1;
    if (!(g->size[0] > 0 && g->size[1] > 0 && g->size[2] > 0))
      return fail(r, s, "size of <box> must be positive");
    return 0;
  }
  if (is_element(s, "cylinder") || is_element(s, "capsule")) {
    g->type = is_element(s, "cylinder") ? HG_GEOM_CYLINDER : HG_GEOM_CAPSULE;
    return attr_size(r, s, "radius", &g->size[0]) || attr_size(r, s, "length", &g->size[1]) ? -1 : 0;
  }
  if (is_element(s, "sphere")) {
    g->type = HG_GEOM_SPHERE;
    return attr_size(r, s, "radius", &g->size[0]);
  }
  if (is_element(s, "mesh")) return read_mesh(r, s, g);
  return fail(r, s, "unsupported shape <%s> (expected box, cylinder, sphere or mesh)",
              (const char *)s->name);
}

/* the first <material> of a <visual>: exporters write one per sub-mesh colour (the visual's
 * mesh file keeps its own colours); urdfdom takes the first, and so does hinge, with a note */
static const xmlNode *first_material(urdf_reader *r, const xmlNode *n, int link) {
  const xmlNode *first = NULL;
  int more = 0;
  for (const xmlNode *c = n->children; c; c = c->next)
    if (is_element(c, "material")) {
      if (!first) first = c;
      else more++;
    }
  if (more && r->opt->verbose) {
    xmlChar *name = xmlGetProp(first, BAD_CAST "name");
    note(r, n, "link '%s': this <%s> has %d <material> elements: using the first%s%s%s (line %ld)",
         link_name(r, link), (const char *)n->name, more + 1, name ? ", '" : "",
         name ? (const char *)name : "", name ? "'" : "", xmlGetLineNo(first));
    xmlFree(name);
  }
  if (more && !r->nmultimat++) {
    r->multimat_line = xmlGetLineNo(n);
    snprintf(r->multimat_link, sizeof r->multimat_link, "%s", link_name(r, link));
  }
  return first;
}

/* a <visual> or <collision> of link i, kept until its body exists */
static int read_geom(urdf_reader *r, const xmlNode *n, int link, int collision) {
  const xmlNode *origin = NULL, *geometry = NULL, *material = NULL;
  urdf_geom *ug = reserve(r->geom, &r->capgeom, r->ngeom, sizeof *r->geom);
  if (!ug) return fail(r, n, "out of memory");
  r->geom = ug;
  for (const xmlNode *c = n->children; c; c = c->next) {
    if (is_element(c, "origin") ? take(r, c, &origin) : is_element(c, "geometry") ? take(r, c, &geometry) : 0)
      return -1;
    if (is_element(c, NULL) && !is_element(c, "origin") && !is_element(c, "geometry") &&
        !is_element(c, "material"))
      skip(r, c);
  }
  if (!geometry) return fail(r, n, "<%s> needs a <geometry>", (const char *)n->name);
  material = first_material(r, n, link);
  ug = &r->geom[r->ngeom];
  memset(ug, 0, sizeof *ug);
  ug->link = link;
  ug->node = n;
  ug->geom.collision = collision;
  memcpy(ug->geom.rgba, urdf_grey, sizeof ug->geom.rgba);
  r->ngeom++; /* counted now so that a mesh path is freed on any later error */
  if (read_origin(r, origin, &ug->geom.pose) || read_shape(r, geometry, &ug->geom)) return -1;
  return material ? geom_material(r, material, ug->geom.rgba) : 0;
}

/* ---- links ---- */

/* an invalid inertia, kept for the error at the end of reading so that one run lists them all;
 * returns 0 (reading goes on) */
static int invalid_inertia(urdf_reader *r, const xmlNode *n, const char *link, const char *why) {
  size_t len = strlen(r->invalid_more);
  if (r->ninvalid++ == 0)
    snprintf(r->invalid_first, sizeof r->invalid_first, "link '%s': %s", link, why);
  else if (len + 40 < sizeof r->invalid_more)
    snprintf(r->invalid_more + len, sizeof r->invalid_more - len, "%s'%s' (line %ld)",
             len ? ", " : "", link, xmlGetLineNo(n));
  if (r->ninvalid == 1) r->invalid_line = xmlGetLineNo(n);
  if (r->notes) note(r, n, "error: link '%s': %s", link, why);
  return 0;
}

/* the error for the invalid inertias of the file, if any */
static int check_inertias(urdf_reader *r) {
  if (!r->ninvalid) return 0;
  if (r->err)
    snprintf(r->err->msg, sizeof r->err->msg, "%s:%ld: %s%s%.*s%s (fix_inertia repairs %s)",
             r->path, r->invalid_line, r->invalid_first,
             r->ninvalid > 1 ? "; also invalid: " : "", r->ninvalid > 1 ? 200 : 0,
             r->invalid_more, strlen(r->invalid_more) + 40 >= sizeof r->invalid_more ? ", ..." : "",
             r->ninvalid > 1 ? "them" : "it");
  return -1;
}

/* <inertial>: the spatial inertia about the link frame, with the inertial frame's rotation applied
 * to the rotational inertia (I_c in link axes = R I R^T) and the centre of mass at its xyz */
static int read_inertial(urdf_reader *r, const xmlNode *n, const char *link, hg_inertia *G) {
  static const char *const names[6] = {"ixx", "iyy", "izz", "ixy", "ixz", "iyz"};
  const xmlNode *origin = NULL, *mass = NULL, *inertia = NULL;
  double m = 0, I[6], M[9], RM[9], Ic[9], Ic6[6];
  char why[256];
  hg_se3 T;
  if (take_children(r, n, 3, (const char *const[]){"origin", "mass", "inertia"},
                    (const xmlNode **const[]){&origin, &mass, &inertia}))
    return -1;
  if (!mass) return fail(r, n, "<inertial> needs a <mass value=\"...\"/>");
  if (!inertia) return fail(r, n, "<inertial> needs an <inertia ixx=... iyz=.../>");
  if (read_origin(r, origin, &T) || attr_numbers(r, mass, "value", 1, 1, &m)) return -1;
  for (int k = 0; k < 6; k++)
    if (attr_numbers(r, inertia, names[k], 1, 1, &I[k])) return -1;
  M[0] = I[0]; M[1] = I[3]; M[2] = I[4];
  M[3] = I[3]; M[4] = I[1]; M[5] = I[5];
  M[6] = I[4]; M[7] = I[5]; M[8] = I[2];
  hg_m3_mul(T.R, M, RM);
  hg_m3_mul_T(RM, T.R, Ic);
  Ic6[0] = Ic[0]; Ic6[1] = Ic[4]; Ic6[2] = Ic[8];
  Ic6[3] = Ic[1]; Ic6[4] = Ic[2]; Ic6[5] = Ic[5];
  if (m >= 0 && hg_inertia_validate(m, Ic6, why, sizeof why)) {
    double before[3], after[3];
    if (!r->opt->fix_inertia) return invalid_inertia(r, inertia, link, why);
    hg_inertia_balance(Ic6, before, after);
    note(r, inertia, "link '%s': inertia repaired (fix_inertia): principal moments %.6g %.6g %.6g "
         "-> %.6g %.6g %.6g", link, before[0], before[1], before[2], after[0], after[1], after[2]);
  }
  if (hg_inertia_from_com(m, T.p, Ic6, G, why, sizeof why))
    return fail(r, m >= 0 ? inertia : mass, "%s", why);
  return 0;
}

/* the <link> named name, or NULL */
static const xmlNode *link_named(const urdf_reader *r, const xmlChar *name) {
  int k = find_link(r, (const char *)name);
  return k >= 0 ? r->link[k].node : NULL;
}

/* a <link>: its unique name, inertia (massless without <inertial>) and geometry */
static int read_link(urdf_reader *r, const xmlNode *n) {
  const xmlNode *inertial = NULL;
  urdf_link *l = reserve(r->link, &r->caplink, r->nlink, sizeof *r->link);
  xmlChar *name;
  int i;
  if (!l) return fail(r, n, "out of memory");
  r->link = l;
  if (!(name = unique_name(r, n, "link", link_named))) return -1;
  i = r->nlink++;
  l = &r->link[i];
  memset(l, 0, sizeof *l);
  l->name = name;
  l->node = n;
  l->parent_joint = -1;
  for (const xmlNode *c = n->children; c; c = c->next) {
    int rc = 0;
    if (!is_element(c, NULL)) continue;
    if (is_element(c, "inertial"))
      rc = take(r, c, &inertial);
    else if (is_element(c, "visual") || is_element(c, "collision"))
      rc = read_geom(r, c, i, is_element(c, "collision"));
    else
      skip(r, c);
    if (rc) return -1;
  }
  return inertial ? read_inertial(r, inertial, (const char *)name, &r->link[i].inertia) : 0;
}

/* ---- joints ---- */

/* URDF joint types: their hinge joint type, and whether <axis> matters */
static const struct {
  const char *name;
  hg_joint_type type;
  int uses_axis;
} urdf_types[] = {
    {"revolute", HG_JOINT_REVOLUTE, 1}, {"continuous", HG_JOINT_REVOLUTE, 1},
    {"prismatic", HG_JOINT_PRISMATIC, 1}, {"fixed", HG_JOINT_FIXED, 0},
    {"floating", HG_JOINT_FREE, 0},     {"planar", HG_JOINT_PLANAR, 1},
};
#define URDF_NTYPES ((int)(sizeof urdf_types / sizeof urdf_types[0]))

/* the index into urdf_types of the joint's type attribute; -1 with err */
static int joint_type(urdf_reader *r, const xmlNode *n, const char *joint) {
  xmlChar *type = xmlGetProp(n, (const xmlChar *)"type");
  int t = -1;
  if (!type) return fail(r, n, "joint '%s' needs a type attribute", joint);
  for (int k = 0; k < URDF_NTYPES && t < 0; k++)
    if (strcmp((const char *)type, urdf_types[k].name) == 0) t = k;
  if (t < 0)
    fail(r, n, "joint '%s' has unknown type '%s' (expected revolute, continuous, prismatic, fixed, "
         "floating or planar)", joint, (const char *)type);
  xmlFree(type);
  return t;
}

/* *link = the known link named by <parent link=...> or <child link=...> (e, may be NULL) */
static int joint_link(urdf_reader *r, const xmlNode *n, const xmlNode *e, const char *what,
                      const char *joint, int *link) {
  xmlChar *name;
  if (!e) return fail(r, n, "joint '%s' needs a <%s link=\"...\"/>", joint, what);
  name = attr_name(r, e, "link", what[0] == 'p' ? "<parent>" : "<child>");
  if (!name) return -1;
  *link = find_link(r, (const char *)name);
  if (*link < 0) fail(r, e, "joint '%s' names an unknown %s link '%s'", joint, what, (const char *)name);
  xmlFree(name);
  return *link < 0 ? -1 : 0;
}

/* <limit lower upper effort velocity>, every attribute optional, kept as data */
static int read_limit(urdf_reader *r, const xmlNode *n, hg_joint_limits *L) {
  memset(L, 0, sizeof *L);
  if (!n) return 0;
  L->has_position = xmlHasProp(n, (const xmlChar *)"lower") || xmlHasProp(n, (const xmlChar *)"upper");
  L->has_effort = xmlHasProp(n, (const xmlChar *)"effort") != NULL;
  L->has_velocity = xmlHasProp(n, (const xmlChar *)"velocity") != NULL;
  if (attr_numbers(r, n, "lower", 1, 0, &L->lower) || attr_numbers(r, n, "upper", 1, 0, &L->upper) ||
      attr_numbers(r, n, "effort", 1, 0, &L->effort) ||
      attr_numbers(r, n, "velocity", 1, 0, &L->velocity))
    return -1;
  if (L->lower > L->upper)
    return fail(r, n, "<limit> lower %g is above upper %g", L->lower, L->upper);
  if (L->effort < 0 || L->velocity < 0)
    return fail(r, n, "<limit> effort and velocity must be >= 0");
  return 0;
}

/* the children of a <joint> we read; anything else is skipped */
typedef struct urdf_joint_parts {
  const xmlNode *origin, *parent, *child, *axis, *limit, *mimic;
} urdf_joint_parts;

/* <dynamics damping friction>: counted for the note when either is non-zero (hinge's joints
 * have neither; a scene adds damping through force elements) */
static void joint_dynamics(urdf_reader *r, const xmlNode *n) {
  double d = 0, f = 0;
  hg_error *keep = r->err;
  r->err = NULL; /* a malformed number here only matters for the note */
  attr_numbers(r, n, "damping", 1, 0, &d);
  attr_numbers(r, n, "friction", 1, 0, &f);
  r->err = keep;
  if (d == 0 && f == 0) {
    skip(r, n);
    return;
  }
  if (r->ndamped++ == 0) r->damped_line = xmlGetLineNo(n);
  if (r->opt->verbose) note(r, n, "<dynamics damping=\"%g\" friction=\"%g\"> not applied", d, f);
}

static int joint_parts(urdf_reader *r, const xmlNode *n, urdf_joint_parts *p) {
  memset(p, 0, sizeof *p);
  for (const xmlNode *c = n->children; c; c = c->next) {
    const xmlNode **slot = is_element(c, "origin")   ? &p->origin
                           : is_element(c, "parent") ? &p->parent
                           : is_element(c, "child")  ? &p->child
                           : is_element(c, "axis")   ? &p->axis
                           : is_element(c, "limit")  ? &p->limit
                                                     : NULL;
    if (slot) {
      if (take(r, c, slot)) return -1;
    } else if (is_element(c, "dynamics")) {
      joint_dynamics(r, c);
    } else if (is_element(c, "mimic")) {
      if (take(r, c, &p->mimic)) return -1;
    } else if (is_element(c, NULL)) {
      skip(r, c);
    }
  }
  return 0;
}

/* links of joint j: both known, distinct, and the child's only parent joint */
static int joint_links(urdf_reader *r, int j, const urdf_joint_parts *p) {
  urdf_joint *J = &r->joint[j];
  const char *name = (const char *)J->name;
  if (joint_link(r, J->node, p->parent, "parent", name, &J->parent) ||
      joint_link(r, J->node, p->child, "child", name, &J->child))
    return -1;
  if (J->parent == J->child)
    return fail(r, J->node, "joint '%s' connects link '%s' to itself", name, link_name(r, J->child));
  if (r->link[J->child].parent_joint >= 0) {
    const urdf_joint *other = &r->joint[r->link[J->child].parent_joint];
    return fail(r, J->node, "link '%s' has two parent joints: '%s' (line %ld) and '%s'",
                link_name(r, J->child), (const char *)other->name, xmlGetLineNo(other->node), name);
  }
  r->link[J->child].parent_joint = j;
  return 0;
}

/* <mimic joint multiplier offset> of joint J (defaults 1 and 0, as in ROS): a 1-DoF joint
 * following another; the leader is checked once every joint is read (check_mimics) */
static int read_mimic(urdf_reader *r, urdf_joint *J, const xmlNode *n) {
  J->mimic = n;
  J->mimic_mult = 1;
  J->mimic_offset = 0;
  if (!(J->mimic_joint = attr_name(r, n, "joint", "<mimic>")) ||
      attr_numbers(r, n, "multiplier", 1, 0, &J->mimic_mult) ||
      attr_numbers(r, n, "offset", 1, 0, &J->mimic_offset))
    return -1;
  /* a fixed joint has no coordinate to couple: the <mimic> says nothing (as in urdfdom and DART,
   * which keep the joint fixed) */
  if (hg_joint_nv(J->joint.type) == 0) {
    if (r->opt->verbose)
      note(r, n, "joint '%s' is fixed: its <mimic> of '%s' is ignored", (const char *)J->name,
           (const char *)J->mimic_joint);
    if (!r->nfixedmimic++) {
      r->fixedmimic_line = xmlGetLineNo(n);
      snprintf(r->fixedmimic_joint, sizeof r->fixedmimic_joint, "%s", (const char *)J->name);
    }
    J->mimic = NULL;
    return 0;
  }
  if (hg_joint_nv(J->joint.type) != 1)
    return fail(r, n, "joint '%s' has a <mimic> but is not revolute, continuous or prismatic",
                (const char *)J->name);
  return 0;
}

/* every mimic names another known 1-DoF joint */
static int check_mimics(urdf_reader *r) {
  for (int j = 0; j < r->njoint; j++) {
    const urdf_joint *J = &r->joint[j];
    int l = -1;
    if (!J->mimic) continue;
    for (int k = 0; k < r->njoint && l < 0; k++)
      if (xmlStrEqual(r->joint[k].name, J->mimic_joint)) l = k;
    if (l < 0)
      return fail(r, J->mimic, "joint '%s' mimics an unknown joint '%s'", (const char *)J->name,
                  (const char *)J->mimic_joint);
    if (l == j) return fail(r, J->mimic, "joint '%s' mimics itself", (const char *)J->name);
    if (hg_joint_nv(r->joint[l].joint.type) != 1)
      return fail(r, J->mimic, "joint '%s' mimics '%s', which is not revolute, continuous or "
                  "prismatic", (const char *)J->name, (const char *)J->mimic_joint);
  }
  return 0;
}

/* the <joint> named name, or NULL */
static const xmlNode *joint_named(const urdf_reader *r, const xmlChar *name) {
  for (int k = 0; k < r->njoint; k++)
    if (xmlStrEqual(r->joint[k].name, name)) return r->joint[k].node;
  return NULL;
}

/* a <joint>: unique name, type, links, origin, axis (default x), limits and mimic */
static int read_joint(urdf_reader *r, const xmlNode *n) {
  urdf_joint *J = reserve(r->joint, &r->capjoint, r->njoint, sizeof *r->joint);
  urdf_joint_parts p;
  double axis[3] = {1, 0, 0};
  const char *why = NULL;
  xmlChar *name;
  int j, t;
  if (!J) return fail(r, n, "out of memory");
  r->joint = J;
  if (!(name = unique_name(r, n, "joint", joint_named))) return -1;
  j = r->njoint++;
  J = &r->joint[j];
  memset(J, 0, sizeof *J);
  J->name = name;
  J->node = n;
  J->parent = J->child = -1;
  t = joint_type(r, n, (const char *)name);
  if (t < 0 || joint_parts(r, n, &p) || joint_links(r, j, &p) || read_origin(r, p.origin, &J->origin))
    return -1;
  if (p.axis && attr_numbers(r, p.axis, "xyz", 3, 0, axis)) return -1;
  if (hg_joint_init(&J->joint, urdf_types[t].type, urdf_types[t].uses_axis ? axis : NULL, NULL, 0, &why))
    return fail(r, p.axis ? p.axis : n, "joint '%s': %s", (const char *)name, why);
  if (read_limit(r, p.limit, &J->limits)) return -1;
  return p.mimic ? read_mimic(r, J, p.mimic) : 0;
}

/* ---- the robot ---- */

/* the <robot> element's materials, then links, then joints; anything else is skipped */
static int read_robot(urdf_reader *r, const xmlNode *robot) {
  for (const xmlNode *c = robot->children; c; c = c->next)
    if (is_element(c, "material") && read_material(r, c)) return -1;
  for (const xmlNode *c = robot->children; c; c = c->next)
    if (is_element(c, "link") && read_link(r, c)) return -1;
  for (const xmlNode *c = robot->children; c; c = c->next) {
    if (is_element(c, "joint")) {
      if (read_joint(r, c)) return -1;
    } else if (is_element(c, NULL) && !is_element(c, "link") && !is_element(c, "material")) {
      skip(r, c);
    }
  }
  return check_inertias(r) || check_mimics(r) ? -1 : 0;
}

/* the one link that is no joint's child; -1 with err when there is none or several */
static int find_root(urdf_reader *r, const xmlNode *robot) {
  int root = -1;
  if (r->nlink == 0) return fail(r, robot, "<robot> has no <link>");
  for (int i = 0; i < r->nlink; i++) {
    if (r->link[i].parent_joint >= 0) continue;
    if (root >= 0)
      return fail(r, r->link[i].node,
                  "several root links ('%s' and '%s' are no joint's child): a URDF robot is one "
                  "tree", link_name(r, root), link_name(r, i));
    root = i;
  }
  if (root < 0)
    return fail(r, robot, "no root link: every link is a joint's child, so the joints form a cycle");
  return root;
}

/* order = the joints in parent-before-child (breadth-first) order from the root; -1 with err
 * when some joint cannot be reached from the root (it lies on a cycle) */
static int order_joints(urdf_reader *r, int root, int *order) {
  int *queue = malloc(((size_t)r->nlink + 1) * sizeof(int));
  int head = 0, tail = 0, n = 0;
  if (!queue) return fail(r, r->link[root].node, "out of memory");
  queue[tail++] = root;
  while (head < tail) {
    int l = queue[head++];
    for (int j = 0; j < r->njoint; j++)
      if (r->joint[j].parent == l) {
        order[n++] = j;
        queue[tail++] = r->joint[j].child;
      }
  }
  free(queue);
  if (n == r->njoint) return 0;
  for (int j = 0; j < r->njoint; j++) {
    int reached = 0;
    for (int k = 0; k < n && !reached; k++) reached = order[k] == j;
    if (!reached)
      return fail(r, r->joint[j].node,
                  "joint '%s' is part of a cycle: link '%s' never reaches the root link '%s'",
                  (const char *)r->joint[j].name, link_name(r, r->joint[j].child),
                  link_name(r, root));
  }
  return 0;
}

/* ---- adding to the builder ---- */

/* where and how the robot is attached */
typedef struct urdf_place {
  const char *parent_body; /* NULL: the world */
  const hg_se3 *pose;      /* NULL: identity */
  const char *prefix;      /* NULL: none */
  int floating;
} urdf_place;

/* body names: prefix + link name; a root link named "world" stands for the parent body */
static int name_bodies(urdf_reader *r, int root, const urdf_place *at) {
  for (int i = 0; i < r->nlink; i++) {
    if (i == root && strcmp(link_name(r, i), "world") == 0) continue;
    r->link[i].body = concat(at->prefix ? at->prefix : "", link_name(r, i), "");
    if (!r->link[i].body) return fail(r, r->link[i].node, "out of memory");
  }
  return 0;
}

/* adds one body, copying the builder's message into err as file:line */
static int add_body(urdf_reader *r, hg_builder *b, const xmlNode *n, hg_body_spec *s,
                    char *joint_name) {
  hg_error e;
  int rc;
  if (!joint_name) return fail(r, n, "out of memory");
  s->joint_name = joint_name;
  rc = hg_builder_add_body(b, s, &e);
  free(joint_name);
  return rc ? fail(r, n, "%s", e.msg) : 0;
}

/* the root body on its fixed (or free) joint under the parent body */
static int add_root(urdf_reader *r, hg_builder *b, int root, const urdf_place *at) {
  const urdf_link *L = &r->link[root];
  const char *why = NULL;
  hg_body_spec s;
  if (!L->body) {
    if (at->floating) note(r, L->node, "root link 'world' is the parent body: not floating");
    return 0;
  }
  memset(&s, 0, sizeof s);
  s.name = L->body;
  s.parent = at->parent_body;
  hg_joint_init(&s.joint, at->floating ? HG_JOINT_FREE : HG_JOINT_FIXED, NULL, NULL, 0, &why);
  if (at->pose) s.offset = *at->pose;
  else hg_se3_identity(&s.offset);
  s.inertia = L->inertia;
  return add_body(r, b, L->node, &s, concat(L->body, "_root", ""));
}

/* the child body of joint j; a joint from a "world" root hangs from the parent body at pose */
static int add_joint(urdf_reader *r, hg_builder *b, int j, const urdf_place *at) {
  const urdf_joint *J = &r->joint[j];
  const urdf_link *P = &r->link[J->parent], *C = &r->link[J->child];
  hg_body_spec s;
  memset(&s, 0, sizeof s);
  s.name = C->body;
  s.parent = P->body ? P->body : at->parent_body;
  s.joint = J->joint;
  s.offset = J->origin;
  if (!P->body && at->pose) hg_se3_mul(at->pose, &J->origin, &s.offset);
  s.inertia = C->inertia;
  s.limits = J->limits;
  return add_body(r, b, J->node, &s,
                  concat(at->prefix ? at->prefix : "", (const char *)J->name, ""));
}

/* the geometry of every body (a "world" root link's geometry is skipped) */
static int add_geoms(urdf_reader *r, hg_builder *b) {
  for (int g = 0; g < r->ngeom; g++) {
    const urdf_geom *G = &r->geom[g];
    const char *body = r->link[G->link].body;
    hg_error e;
    if (!body)
      note(r, G->node, "skipping <%s> of the root link 'world'", (const char *)G->node->name);
    else if (hg_builder_add_geom(b, body, &G->geom, &e))
      return fail(r, G->node, "%s", e.msg);
  }
  return 0;
}

/* every body in parent-before-child order, then the geometry */
static int build(urdf_reader *r, hg_builder *b, int root, const int *order, const urdf_place *at) {
  if (name_bodies(r, root, at) || add_root(r, b, root, at)) return -1;
  for (int k = 0; k < r->njoint; k++)
    if (add_joint(r, b, order[k], at)) return -1;
  for (int j = 0; j < r->njoint; j++) {
    const urdf_joint *J = &r->joint[j];
    const char *pre = at->prefix ? at->prefix : "";
    char *f, *l;
    hg_error e;
    int rc;
    if (!J->mimic) continue;
    f = concat(pre, (const char *)J->name, "");
    l = concat(pre, (const char *)J->mimic_joint, "");
    int oom = !f || !l;
    rc = oom ? -1 : hg_builder_add_mimic(b, f, l, J->mimic_mult, J->mimic_offset, &e);
    free(f), free(l);
    if (rc) return fail(r, J->mimic, "%s", oom ? "out of memory" : e.msg);
  }
  return add_geoms(r, b);
}

/* a note for each massless link on a moving joint with no mass below it either: its
 * articulated inertia is singular, so forward dynamics fail there (order: parent before child) */
static void massless_notes(urdf_reader *r, const int *order) {
  double *below = calloc((size_t)r->nlink + 1, sizeof(double));
  if (!below || !r->notes) {
    free(below);
    return;
  }
  for (int i = 0; i < r->nlink; i++) below[i] = r->link[i].inertia.m;
  for (int k = r->njoint - 1; k >= 0; k--) { /* children before parents */
    const urdf_joint *J = &r->joint[order[k]];
    below[J->parent] += below[J->child];
  }
  for (int k = 0; k < r->njoint; k++) {
    const urdf_joint *J = &r->joint[order[k]];
    if (J->joint.type == HG_JOINT_FIXED || below[J->child] > 0) continue;
    note(r, r->link[J->child].node,
         "link '%s' on moving joint '%s' (line %ld) has no mass, nor anything below it: "
         "forward and hybrid dynamics need mass there and fail (exit status 3); info, id, mass "
         "and bias work", link_name(r, J->child), (const char *)J->name, xmlGetLineNo(J->node));
  }
  free(below);
}

/* ---- the file ---- */

/* r->doc = the parsed file; malformed XML gives libxml2's message at its line. The file is read
 * into memory first (hg_file_read: a regular file of at most HG_FILE_TEXT_MAX bytes, readfile.h),
 * so that libxml2 parses exactly the bytes checked even if the file grows meanwhile. */
static int load_xml(urdf_reader *r) {
  xmlParserCtxt *ctxt;
  size_t len;
  char *text = hg_file_read(r->path, HG_FILE_TEXT_MAX, &len, r->err);
  if (!text) return -1;
  if (len > INT_MAX) { /* xmlCtxtReadMemory takes an int; HG_FILE_TEXT_MAX keeps far below */
    free(text);
    return fail(r, NULL, "%s: larger than libxml2 can read from memory", r->path);
  }
  ctxt = xmlNewParserCtxt();
  if (!ctxt) {
    free(text);
    return fail(r, NULL, "out of memory");
  }
  r->doc = xmlCtxtReadMemory(ctxt, text, (int)len, r->path, NULL,
                             XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING |
                                 XML_PARSE_BIG_LINES);
  free(text);
  if (!r->doc && r->err) {
    const xmlError *e = xmlCtxtGetLastError(ctxt);
    const char *msg = e && e->message ? e->message : "cannot parse the XML";
    size_t mlen = strlen(msg);
    while (mlen > 0 && isspace((unsigned char)msg[mlen - 1])) mlen--;
    snprintf(r->err->msg, sizeof r->err->msg, "%s:%d: %.*s", r->path, e ? e->line : 0, (int)mlen,
             msg);
  }
  xmlFreeParserCtxt(ctxt);
  return r->doc ? 0 : -1;
}

/* 1 when an element is xacro's: in its namespace, or named "xacro:..." without one */
static int is_xacro(const xmlNode *n) {
  if (n->ns && n->ns->prefix && strcmp((const char *)n->ns->prefix, "xacro") == 0) return 1;
  if (n->ns && n->ns->href && strstr((const char *)n->ns->href, "xacro")) return 1;
  return strncmp((const char *)n->name, "xacro:", 6) == 0;
}

/* the first xacro element in document order (iterative: a deep tree cannot exhaust the stack) */
static const xmlNode *find_xacro(const xmlNode *root) {
  const xmlNode *n = root;
  while (n) {
    if (n->type == XML_ELEMENT_NODE && is_xacro(n)) return n;
    if (n->children && n->type == XML_ELEMENT_NODE) {
      n = n->children;
      continue;
    }
    while (n && n != root && !n->next) n = n->parent;
    if (!n || n == root) return NULL;
    n = n->next;
  }
  return NULL;
}

/* the <robot> root element, or NULL with err */
static const xmlNode *robot_element(urdf_reader *r) {
  const xmlNode *root = xmlDocGetRootElement(r->doc);
  if (!root) {
    fail(r, NULL, "no root element");
    return NULL;
  }
  if (!is_element(root, "robot")) {
    fail(r, root, "expected a <robot> root element, found <%s>", (const char *)root->name);
    return NULL;
  }
  if ((root = find_xacro(root)) != NULL) {
    fail(r, root, "<%s%s%s> is a xacro element: this is an unexpanded xacro file; run "
         "'xacro FILE > robot.urdf' and load its output", root->ns && root->ns->prefix ?
         (const char *)root->ns->prefix : "", root->ns && root->ns->prefix ? ":" : "",
         (const char *)root->name);
    return NULL;
  }
  return xmlDocGetRootElement(r->doc);
}

static void reader_free(urdf_reader *r) {
  for (int i = 0; i < r->nlink; i++) {
    xmlFree(r->link[i].name);
    free(r->link[i].body);
  }
  for (int j = 0; j < r->njoint; j++) xmlFree(r->joint[j].name), xmlFree(r->joint[j].mimic_joint);
  hg_ros_packages_free(r->pkgs);
  for (int k = 0; k < r->nmat; k++) xmlFree(r->mat[k].name);
  for (int g = 0; g < r->ngeom; g++) free(r->geom[g].geom.mesh);
  free(r->link);
  free(r->joint);
  free(r->mat);
  free(r->geom);
  xmlFreeDoc(r->doc);
}

int hg_urdf_add_opt(hg_builder *b, const char *path, const char *parent_body, const hg_se3 *pose,
                    const char *prefix, const hg_urdf_options *opt, hg_error *err) {
  static const hg_urdf_options none;
  urdf_place at = {parent_body, pose, prefix, opt ? opt->floating : 0};
  urdf_reader r;
  const xmlNode *robot;
  int root, rc = -1, *order = NULL;
  memset(&r, 0, sizeof r);
  r.path = path;
  r.opt = opt ? opt : &none;
  r.notes = r.opt->notes;
  r.err = err;
  if (load_xml(&r) || !(robot = robot_element(&r)) || read_robot(&r, robot)) goto done;
  root = find_root(&r, robot);
  if (root < 0) goto done;
  order = malloc(((size_t)r.njoint + 1) * sizeof(int));
  if (!order) {
    fail(&r, robot, "out of memory");
    goto done;
  }
  if (order_joints(&r, root, order) == 0) rc = build(&r, b, root, order, &at);
  if (rc == 0) {
    massless_notes(&r, order);
    summarize(&r);
  }
done:
  free(order);
  reader_free(&r);
  return rc;
}

int hg_urdf_add(hg_builder *b, const char *path, const char *parent_body, const hg_se3 *pose,
                const char *prefix, int floating, FILE *notes, hg_error *err) {
  hg_urdf_options opt;
  memset(&opt, 0, sizeof opt);
  opt.floating = floating;
  opt.notes = notes;
  return hg_urdf_add_opt(b, path, parent_body, pose, prefix, &opt, err);
}

hg_model *hg_urdf_load_opt(const char *path, const hg_urdf_options *opt, hg_error *err) {
  hg_builder *b = hg_builder_new();
  hg_model *m = NULL;
  hg_error e;
  if (!b) {
    if (err) snprintf(err->msg, sizeof err->msg, "%s: out of memory", path);
    return NULL;
  }
  /* a massless subtree on a moving joint is noted by the reader: the model still serves info,
   * id, mass and bias, and forward dynamics report the singular joint when called */
  hg_builder_allow_singular(b, 1);
  if (hg_urdf_add_opt(b, path, NULL, NULL, NULL, opt, err) == 0) {
    m = hg_builder_compile(b, &e);
    if (!m && err) snprintf(err->msg, sizeof err->msg, "%s: %.480s", path, e.msg);
  }
  hg_builder_free(b);
  return m;
}

hg_model *hg_urdf_load(const char *path, int floating, FILE *notes, hg_error *err) {
  hg_urdf_options opt;
  memset(&opt, 0, sizeof opt);
  opt.floating = floating;
  opt.notes = notes;
  return hg_urdf_load_opt(path, &opt, err);
}
