/* mesh.c: OBJ and STL reading, closedness checks and exact mass properties of triangle meshes. */
#include "mesh.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* most vertices or triangles a mesh may have (keeps 3 * n and byte counts in range) */
#define HG_MESH_MAX (INT_MAX / 4)

/* index pairs of the symmetric 3x3 storage (xx yy zz xy xz yz) */
static const int hg_sym_row[6] = {0, 1, 2, 0, 0, 1}, hg_sym_col[6] = {0, 1, 2, 1, 2, 2};

/* ---- messages ---- */

/* err->msg = the formatted message (when err is given); returns -1 */
static int mesh_fail(hg_error *err, const char *fmt, ...) {
  va_list ap;
  if (!err) return -1;
  va_start(ap, fmt);
  vsnprintf(err->msg, sizeof err->msg, fmt, ap);
  va_end(ap);
  return -1;
}

/* ---- growing a mesh ---- */

typedef struct mesh_buf {
  hg_mesh m;
  int vcap, tcap;
} mesh_buf;

/* p with room for n + 1 items of size bytes (capacity *cap, updated); NULL when out of memory
 * (p is then still valid) */
static void *mesh_grow(void *p, int *cap, int n, size_t size) {
  if (n < *cap) return p;
  if (*cap > HG_MESH_MAX / 2) return NULL;
  int c = *cap ? 2 * *cap : 64;
  void *q = realloc(p, (size_t)c * size);
  if (q) *cap = c;
  return q;
}

/* appends a vertex; -1 when out of memory */
static int mesh_push_vert(mesh_buf *b, const double x[3]) {
  double *v = mesh_grow(b->m.vert, &b->vcap, b->m.nvert, 3 * sizeof(double));
  if (!v) return -1;
  b->m.vert = v;
  memcpy(v + 3 * b->m.nvert++, x, 3 * sizeof(double));
  return 0;
}

/* appends a triangle; -1 when out of memory */
static int mesh_push_tri(mesh_buf *b, int i, int j, int k) {
  int *t = mesh_grow(b->m.tri, &b->tcap, b->m.ntri, 3 * sizeof(int));
  if (!t) return -1;
  b->m.tri = t;
  t += 3 * b->m.ntri++;
  t[0] = i;
  t[1] = j;
  t[2] = k;
  return 0;
}

/* ---- reading files ---- */

/* the whole file in new memory with a NUL after its *len bytes; NULL with err set */
static char *mesh_read_file(const char *path, size_t *len, hg_error *err) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    mesh_fail(err, "%s: cannot open: %s", path, strerror(errno));
    return NULL;
  }
  size_t n = 0, cap = 1 << 16;
  char *buf = malloc(cap + 1);
  /* read in chunks, doubling the buffer */
  while (buf) {
    n += fread(buf + n, 1, cap - n, f);
    if (n < cap) break;
    char *b2 = cap < SIZE_MAX / 4 ? realloc(buf, 2 * cap + 1) : NULL;
    if (!b2) {
      free(buf);
      buf = NULL;
      break;
    }
    buf = b2;
    cap *= 2;
  }
  int bad = ferror(f);
  fclose(f);
  if (!buf || bad) {
    free(buf);
    mesh_fail(err, "%s: %s", path, bad ? "read error" : "out of memory");
    return NULL;
  }
  buf[n] = '\0';
  *len = n;
  return buf;
}

/* the next word of *s, NUL-terminated in place (*s moves past it), or NULL at the end */
static char *mesh_word(char **s) {
  char *p = *s;
  while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\v' || *p == '\f') p++;
  if (!*p) {
    *s = p;
    return NULL;
  }
  char *w = p;
  while (*p && *p != ' ' && *p != '\t' && *p != '\r' && *p != '\v' && *p != '\f') p++;
  if (*p) *p++ = '\0';
  *s = p;
  return w;
}

/* *x = the number w (all of it, finite); -1 otherwise */
static int mesh_number(const char *w, double *x) {
  char *end;
  *x = strtod(w, &end);
  return end == w || *end || !isfinite(*x) ? -1 : 0;
}

/* ---- OBJ ---- */

typedef struct obj_reader {
  const char *path;
  hg_error *err;
  mesh_buf b;
  int line;      /* current line, from 1 */
  int *tri_line; /* source line of each triangle (to report indices checked at the end) */
  int tlcap;
  int *poly; /* corners of the face being read */
  int npoly, pcap;
} obj_reader;

/* "path:line: message"; returns -1 */
static int obj_fail(obj_reader *r, const char *what, const char *word) {
  return mesh_fail(r->err, "%s:%d: %s%s%s%s", r->path, r->line, what, word ? " '" : "",
                   word ? word : "", word ? "'" : "");
}

/* a 'v' statement: three coordinates, then at most four more numbers (w, or r g b) */
static int obj_vertex(obj_reader *r, char *s) {
  double x[3], extra;
  char *w;
  for (int k = 0; k < 3; k++) {
    if (!(w = mesh_word(&s))) return obj_fail(r, "expected 3 vertex coordinates", NULL);
    if (mesh_number(w, &x[k])) return obj_fail(r, "expected a finite number, got", w);
  }
  for (int k = 0; (w = mesh_word(&s)); k++)
    if (k == 4 || mesh_number(w, &extra))
      return obj_fail(r, "expected the end of the line after the vertex, got", w);
  if (r->b.m.nvert >= HG_MESH_MAX) return obj_fail(r, "too many vertices", NULL);
  return mesh_push_vert(&r->b, x) ? obj_fail(r, "out of memory", NULL) : 0;
}

/* *idx = the 0-based vertex of a face corner 'i', 'i/t', 'i//n' or 'i/t/n' (positive indices are
 * checked against the final vertex count later) */
static int obj_corner(obj_reader *r, const char *w, int *idx) {
  char *end;
  errno = 0;
  long v = strtol(w, &end, 10);
  if (end == w || (*end && *end != '/') || strspn(end, "/-+0123456789") != strlen(end))
    return obj_fail(r, "expected a face corner 'i', 'i/t', 'i//n' or 'i/t/n', got", w);
  if (errno == ERANGE || v > HG_MESH_MAX || v < -(long)HG_MESH_MAX || v == 0)
    return obj_fail(r,
                    "face index out of range (OBJ indices start at 1, or count back from -1):", w);
  if (v < 0 && r->b.m.nvert + v < 0)
    return obj_fail(r, "face index out of range (it counts back past the first vertex):", w);
  *idx = v > 0 ? (int)v - 1 : r->b.m.nvert + (int)v;
  return 0;
}

/* an 'f' statement: at least three corners, fan-triangulated from the first */
static int obj_face(obj_reader *r, char *s) {
  char *w;
  r->npoly = 0;
  while ((w = mesh_word(&s))) {
    int *p = mesh_grow(r->poly, &r->pcap, r->npoly, sizeof(int));
    if (!p) return obj_fail(r, "out of memory", NULL);
    r->poly = p;
    if (obj_corner(r, w, &r->poly[r->npoly++])) return -1;
  }
  if (r->npoly < 3) return obj_fail(r, "expected at least 3 corners in a face", NULL);
  for (int k = 1; k + 1 < r->npoly; k++) {
    int *l = mesh_grow(r->tri_line, &r->tlcap, r->b.m.ntri, sizeof(int));
    if (!l || r->b.m.ntri >= HG_MESH_MAX) return obj_fail(r, "out of memory", NULL);
    r->tri_line = l;
    l[r->b.m.ntri] = r->line;
    if (mesh_push_tri(&r->b, r->poly[0], r->poly[k], r->poly[k + 1]))
      return obj_fail(r, "out of memory", NULL);
  }
  return 0;
}

/* one line (comment already cut): dispatch on its first word */
static int obj_line(obj_reader *r, char *s) {
  char *w = mesh_word(&s);
  if (!w) return 0;
  if (!strcmp(w, "v")) return obj_vertex(r, s);
  if (!strcmp(w, "f")) return obj_face(r, s);
  return 0;
}

/* after the last line: some faces, and every positive index within the vertices read */
static int obj_finish(obj_reader *r) {
  const hg_mesh *m = &r->b.m;
  if (m->ntri == 0)
    return obj_fail(r, "expected 'v' and 'f' lines, found no face before the end of the file",
                    NULL);
  for (int t = 0; t < m->ntri; t++)
    for (int k = 0; k < 3; k++)
      if (m->tri[3 * t + k] >= m->nvert) {
        r->line = r->tri_line[t];
        return mesh_fail(r->err, "%s:%d: face index %d out of range (the file has %d vertices)",
                         r->path, r->line, m->tri[3 * t + k] + 1, m->nvert);
      }
  return 0;
}

/* parses OBJ text of len bytes (modified in place) into b */
static int obj_parse(const char *path, char *text, size_t len, mesh_buf *b, hg_error *err) {
  obj_reader r = {.path = path, .err = err, .line = 0};
  int rc = 0;
  char *s = text, *nul = memchr(text, '\0', len);
  int nul_line = 1;
  for (char *c = text; nul && c < nul; c++) nul_line += *c == '\n';
  /* line by line, cutting comments, up to a NUL byte (reported below) */
  while (!rc && *s) {
    char *eol = strchr(s, '\n'), *hash;
    r.line++;
    if (eol) *eol = '\0';
    if ((hash = strchr(s, '#'))) *hash = '\0';
    rc = obj_line(&r, s);
    s = eol ? eol + 1 : s + strlen(s);
  }
  if (!rc && nul) {
    r.line = nul_line;
    rc = obj_fail(&r, "expected text, found a NUL byte (a binary file?)", NULL);
  }
  if (r.line == 0) r.line = 1;
  if (!rc) rc = obj_finish(&r);
  free(r.tri_line);
  free(r.poly);
  *b = r.b;
  return rc;
}

/* ---- STL ---- */

/* a little-endian 32-bit unsigned integer and IEEE single */
static uint32_t stl_u32(const unsigned char *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static double stl_f32(const unsigned char *p) {
  uint32_t u = stl_u32(p);
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

/* binary STL: 80-byte header, facet count, then per facet 12 floats (normal, 3 corners) and a
 * 16-bit attribute; errors give byte offsets */
static int stl_binary(const char *path, const unsigned char *d, size_t len, mesh_buf *b,
                      hg_error *err) {
  if (len < 84)
    return mesh_fail(
        err, "%s: byte %zu: truncated: expected an 80-byte header and a facet count (84 bytes)",
        path, len);
  uint32_t n = stl_u32(d + 80);
  size_t have = (len - 84) / 50;
  if (have < n)
    return mesh_fail(
        err, "%s: byte %zu: truncated: expected facet %zu of %lu (50 bytes), found %zu bytes", path,
        84 + 50 * have, have + 1, (unsigned long)n, len - 84 - 50 * have);
  if (len > 84 + 50 * (size_t)n)
    return mesh_fail(err, "%s: byte %zu: expected the end of the file after %lu facets", path,
                     84 + 50 * (size_t)n, (unsigned long)n);
  if (n == 0) return mesh_fail(err, "%s: byte 80: expected at least one facet", path);
  if (n > HG_MESH_MAX / 3)
    return mesh_fail(err, "%s: byte 80: too many facets (%lu)", path, (unsigned long)n);
  /* the corners of each facet; the stored normal is not used */
  for (size_t k = 0; k < n; k++) {
    for (int c = 0; c < 3; c++) {
      size_t off = 84 + 50 * k + 12 + 12 * (size_t)c;
      double x[3] = {stl_f32(d + off), stl_f32(d + off + 4), stl_f32(d + off + 8)};
      if (!isfinite(x[0]) || !isfinite(x[1]) || !isfinite(x[2]))
        return mesh_fail(err, "%s: byte %zu: expected finite vertex coordinates", path, off);
      if (mesh_push_vert(b, x)) return mesh_fail(err, "%s: out of memory", path);
    }
    int v = 3 * (int)k;
    if (mesh_push_tri(b, v, v + 1, v + 2)) return mesh_fail(err, "%s: out of memory", path);
  }
  return 0;
}

typedef struct stl_text {
  const char *path;
  hg_error *err;
  char *s;     /* read position */
  int line;    /* line of the last word read */
  int pending; /* newlines consumed with the last word, counted on the next read */
} stl_text;

/* the next word, counting lines; NULL at the end (the line staying that of the last word) */
static char *stl_next(stl_text *t) {
  int line = t->line + t->pending;
  t->pending = 0;
  for (; *t->s && strchr(" \t\r\n\v\f", *t->s); t->s++) line += *t->s == '\n';
  if (!*t->s) return NULL;
  t->line = line;
  char *w = t->s;
  while (*t->s && !strchr(" \t\r\n\v\f", *t->s)) t->s++;
  if (*t->s) {
    t->pending = *t->s == '\n';
    *t->s++ = '\0';
  }
  return w;
}

/* skips the rest of the current line (a solid's name) */
static void stl_skip_line(stl_text *t) {
  if (t->pending) return;
  while (*t->s && *t->s != '\n') t->s++;
}

/* "path:line: expected what, got 'word'"; returns -1 */
static int stl_expected(stl_text *t, const char *what, const char *w) {
  return mesh_fail(t->err, "%s:%d: expected %s, got %s%s%s", t->path, t->line, what, w ? "'" : "",
                   w ? w : "the end of the file", w ? "'" : "");
}

/* reads the keyword kw */
static int stl_keyword(stl_text *t, const char *kw) {
  char *w = stl_next(t);
  if (w && !strcasecmp(w, kw)) return 0;
  char what[32];
  snprintf(what, sizeof what, "'%s'", kw);
  return stl_expected(t, what, w);
}

/* reads three numbers */
static int stl_numbers(stl_text *t, double x[3]) {
  for (int k = 0; k < 3; k++) {
    char *w = stl_next(t);
    if (!w || mesh_number(w, &x[k])) return stl_expected(t, "a finite number", w);
  }
  return 0;
}

/* one facet after its 'facet' keyword: normal (not used), outer loop of three vertices */
static int stl_facet(stl_text *t, mesh_buf *b) {
  double n[3], x[3];
  if (stl_keyword(t, "normal") || stl_numbers(t, n)) return -1;
  if (stl_keyword(t, "outer") || stl_keyword(t, "loop")) return -1;
  for (int c = 0; c < 3; c++) {
    if (stl_keyword(t, "vertex") || stl_numbers(t, x)) return -1;
    if (b->m.nvert >= HG_MESH_MAX || mesh_push_vert(b, x))
      return mesh_fail(t->err, "%s:%d: out of memory", t->path, t->line);
  }
  if (stl_keyword(t, "endloop") || stl_keyword(t, "endfacet")) return -1;
  int v = b->m.nvert - 3;
  return mesh_push_tri(b, v, v + 1, v + 2) ? mesh_fail(t->err, "%s: out of memory", t->path) : 0;
}

/* ASCII STL: one or more 'solid name ... endsolid name' blocks of facets */
static int stl_ascii(const char *path, char *text, mesh_buf *b, hg_error *err) {
  stl_text t = {.path = path, .err = err, .s = text, .line = 1};
  if (stl_keyword(&t, "solid")) return -1;
  stl_skip_line(&t);
  for (;;) {
    char *w = stl_next(&t);
    if (w && !strcasecmp(w, "facet")) {
      if (stl_facet(&t, b)) return -1;
    } else if (w && !strcasecmp(w, "endsolid")) {
      stl_skip_line(&t);
      if (!(w = stl_next(&t))) break;
      if (strcasecmp(w, "solid")) return stl_expected(&t, "'solid' or the end of the file", w);
      stl_skip_line(&t);
    } else {
      return stl_expected(&t, "'facet' or 'endsolid'", w);
    }
  }
  return b->m.ntri ? 0 : mesh_fail(err, "%s:%d: expected at least one facet", path, t.line);
}

/* ASCII when the file is text starting with 'solid' and not sized exactly as a binary file */
static int stl_is_ascii(const char *d, size_t len) {
  if (len >= 84 && (len - 84) % 50 == 0 &&
      (len - 84) / 50 == stl_u32((const unsigned char *)d + 80))
    return 0;
  if (memchr(d, '\0', len)) return 0;
  d += strspn(d, " \t\r\n");
  return !strncasecmp(d, "solid", 5);
}

/* ---- welding (vertices with exactly equal coordinates) ---- */

typedef struct weld_key {
  double x[3];
  int i;
} weld_key;

/* lexicographic on the coordinates, then on the index */
static int weld_cmp(const void *pa, const void *pb) {
  const weld_key *a = pa, *b = pb;
  for (int k = 0; k < 3; k++)
    if (a->x[k] != b->x[k]) return a->x[k] < b->x[k] ? -1 : 1;
  return (a->i > b->i) - (a->i < b->i);
}

/* rep[i] = the first vertex with exactly the coordinates of vertex i (new memory; NULL when out
 * of memory) */
static int *weld_representatives(const hg_mesh *m) {
  int n = m->nvert;
  weld_key *key = malloc((size_t)(n ? n : 1) * sizeof *key);
  int *rep = malloc((size_t)(n ? n : 1) * sizeof *rep);
  if (!key || !rep) {
    free(key);
    free(rep);
    return NULL;
  }
  for (int i = 0; i < n; i++) {
    memcpy(key[i].x, m->vert + 3 * i, sizeof key[i].x);
    key[i].i = i;
  }
  qsort(key, (size_t)n, sizeof *key, weld_cmp);
  /* each run of equal coordinates maps to its first (smallest) index */
  for (int k = 0, first = 0; k < n; k++) {
    const double *x = key[k].x, *y = key[first].x;
    if (x[0] != y[0] || x[1] != y[1] || x[2] != y[2]) first = k;
    rep[key[k].i] = key[first].i;
  }
  free(key);
  return rep;
}

/* merges equal vertices (keeping first-seen order) and drops triangles that collapse */
static int weld(mesh_buf *b) {
  hg_mesh *m = &b->m;
  int *rep = weld_representatives(m), nv = 0, nt = 0;
  if (!rep) return -1;
  /* renumber the representatives in order, compacting the vertex array */
  for (int i = 0; i < m->nvert; i++) {
    if (rep[i] == i) {
      memmove(m->vert + 3 * nv, m->vert + 3 * i, 3 * sizeof(double));
      rep[i] = nv++;
    } else {
      rep[i] = rep[rep[i]];
    }
  }
  /* remap the triangles, keeping those with three distinct corners */
  for (int t = 0; t < m->ntri; t++) {
    int a = rep[m->tri[3 * t]], c1 = rep[m->tri[3 * t + 1]], c2 = rep[m->tri[3 * t + 2]];
    if (a == c1 || c1 == c2 || c2 == a) continue;
    m->tri[3 * nt] = a;
    m->tri[3 * nt + 1] = c1;
    m->tri[3 * nt + 2] = c2;
    nt++;
  }
  m->nvert = nv;
  m->ntri = nt;
  free(rep);
  return 0;
}

/* parses STL (ASCII or binary) into b and welds it */
static int stl_parse(const char *path, char *data, size_t len, mesh_buf *b, hg_error *err) {
  int rc = stl_is_ascii(data, len) ? stl_ascii(path, data, b, err)
                                   : stl_binary(path, (const unsigned char *)data, len, b, err);
  if (rc) return -1;
  if (weld(b)) return mesh_fail(err, "%s: out of memory", path);
  if (b->m.ntri == 0)
    return mesh_fail(err, "%s: every facet is degenerate (repeated corners)", path);
  return 0;
}

/* ---- loading ---- */

/* 1 when path ends with ext (case-insensitive) */
static int mesh_has_ext(const char *path, const char *ext) {
  size_t n = strlen(path), k = strlen(ext);
  return n >= k && !strcasecmp(path + n - k, ext);
}

int hg_mesh_load(const char *path, hg_mesh *out, hg_error *err) {
  int obj = mesh_has_ext(path, ".obj"), stl = mesh_has_ext(path, ".stl");
  mesh_buf b = {{0, 0, NULL, NULL}, 0, 0};
  size_t len = 0;
  char *data;
  memset(out, 0, sizeof *out);
  if (!obj && !stl) return hg_mesh_load_assimp(path, out, err);
  if (!(data = mesh_read_file(path, &len, err))) return -1;
  int rc = obj ? obj_parse(path, data, len, &b, err) : stl_parse(path, data, len, &b, err);
  free(data);
  if (rc) {
    hg_mesh_free(&b.m);
    return -1;
  }
  *out = b.m;
  return 0;
}

void hg_mesh_free(hg_mesh *m) {
  if (!m) return;
  free(m->vert);
  free(m->tri);
  memset(m, 0, sizeof *m);
}

/* ---- geometry ---- */

void hg_mesh_scale(hg_mesh *m, const double s[3]) {
  for (int i = 0; i < m->nvert; i++)
    for (int k = 0; k < 3; k++) m->vert[3 * i + k] *= s[k];
  /* a mirror turns counter-clockwise into clockwise: swap two corners back */
  if (s[0] * s[1] * s[2] < 0)
    for (int t = 0; t < m->ntri; t++) {
      int tmp = m->tri[3 * t + 1];
      m->tri[3 * t + 1] = m->tri[3 * t + 2];
      m->tri[3 * t + 2] = tmp;
    }
}

void hg_mesh_transform(hg_mesh *m, const hg_se3 *T) {
  for (int i = 0; i < m->nvert; i++) {
    double y[3];
    hg_se3_apply(T, m->vert + 3 * i, y);
    memcpy(m->vert + 3 * i, y, sizeof y);
  }
}

void hg_mesh_bounds(const hg_mesh *m, double lo[3], double hi[3]) {
  for (int k = 0; k < 3; k++) lo[k] = hi[k] = m->nvert ? m->vert[k] : 0;
  for (int i = 1; i < m->nvert; i++)
    for (int k = 0; k < 3; k++) {
      lo[k] = fmin(lo[k], m->vert[3 * i + k]);
      hi[k] = fmax(hi[k], m->vert[3 * i + k]);
    }
}

/* the mean of the vertices (zero for an empty mesh) */
static void mesh_centroid(const hg_mesh *m, double o[3]) {
  o[0] = o[1] = o[2] = 0;
  for (int i = 0; i < m->nvert; i++)
    for (int k = 0; k < 3; k++) o[k] += m->vert[3 * i + k];
  for (int k = 0; k < 3 && m->nvert; k++) o[k] /= m->nvert;
}

/* ---- closedness ---- */

typedef struct mesh_edge {
  int a, b, t; /* from vertex a to vertex b, in triangle t */
} mesh_edge;

/* by (a, b) */
static int edge_cmp(const void *pa, const void *pb) {
  const mesh_edge *x = pa, *y = pb;
  if (x->a != y->a) return x->a < y->a ? -1 : 1;
  return (x->b > y->b) - (x->b < y->b);
}

/* indices in range and three distinct corners per triangle */
static int mesh_check_indices(const hg_mesh *m, hg_error *err) {
  if (m->ntri <= 0 || m->nvert <= 0) return mesh_fail(err, "mesh has no triangles");
  for (int t = 0; t < m->ntri; t++) {
    const int *c = m->tri + 3 * t;
    for (int k = 0; k < 3; k++)
      if (c[k] < 0 || c[k] >= m->nvert)
        return mesh_fail(err, "triangle %d: vertex index %d out of range (%d vertices)", t, c[k],
                         m->nvert);
    if (c[0] == c[1] || c[1] == c[2] || c[2] == c[0])
      return mesh_fail(err, "triangle %d repeats a vertex (%d %d %d)", t, c[0], c[1], c[2]);
  }
  return 0;
}

/* every directed edge (sorted) once, and its reverse present */
static int mesh_check_edges(const mesh_edge *e, int n, hg_error *err) {
  for (int k = 0; k < n; k++) {
    mesh_edge rev = {e[k].b, e[k].a, 0};
    if (k > 0 && e[k].a == e[k - 1].a && e[k].b == e[k - 1].b)
      return mesh_fail(err,
                       "mesh is not closed and consistently oriented: triangles %d and %d both run "
                       "from vertex %d to vertex %d (non-manifold edge or flipped triangle)",
                       e[k - 1].t, e[k].t, e[k].a, e[k].b);
    if (!bsearch(&rev, e, (size_t)n, sizeof *e, edge_cmp))
      return mesh_fail(
          err,
          "mesh is not closed and consistently oriented: the edge from vertex %d to "
          "vertex %d of triangle %d has no opposite edge (a hole or a flipped triangle)",
          e[k].a, e[k].b, e[k].t);
  }
  return 0;
}

int hg_mesh_check(const hg_mesh *m, hg_error *err) {
  if (mesh_check_indices(m, err)) return -1;
  int *rep = weld_representatives(m);
  mesh_edge *e = malloc(3 * (size_t)m->ntri * sizeof *e);
  if (!rep || !e) {
    free(rep);
    free(e);
    return mesh_fail(err, "out of memory");
  }
  /* directed edges between welded vertices */
  for (int t = 0; t < m->ntri; t++)
    for (int k = 0; k < 3; k++) {
      mesh_edge *x = e + 3 * t + k;
      x->a = rep[m->tri[3 * t + k]];
      x->b = rep[m->tri[3 * t + (k + 1) % 3]];
      x->t = t;
    }
  qsort(e, 3 * (size_t)m->ntri, sizeof *e, edge_cmp);
  int rc = mesh_check_edges(e, 3 * m->ntri, err);
  free(rep);
  free(e);
  return rc;
}

/* ---- mass properties ----
 *
 * Derivation. Let a closed mesh with outward (counter-clockwise) triangles bound a solid B. For
 * any point o (taken as the origin here), the signed tetrahedra (o, a, b, c) over the triangles
 * (a, b, c) cover every point of B a net once and every point outside a net zero times (the
 * winding number of a closed oriented surface; equivalently the divergence theorem applied to
 * x f(x)/3 for homogeneous f), so any integral over B is the sum of the signed integrals over them.
 * Map the unit simplex S = {u >= 0, u1 + u2 + u3 <= 1} onto a tetrahedron by x = A u with
 * A = [a b c] (columns), dV = d du with d = det A = a . (b x c). The Dirichlet integrals
 * int_S u1^p u2^q u3^r du = p! q! r! / (p + q + r + 3)! give
 *   int_S 1 = 1/6,   int_S u_i = 1/24,   int_S u_i u_j = (1 + [i == j]) / 120,
 * hence, per tetrahedron, with s = a + b + c:
 *   V         = d / 6,
 *   int x dV  = d A (1, 1, 1)' / 24 = d s / 24,
 *   int xx'dV = d A (ones + eye) A' / 120 = d (s s' + a a' + b b' + c c') / 120.
 * Its diagonal is d/60 (a_p^2 + b_p^2 + c_p^2 + a_p b_p + b_p c_p + c_p a_p), the g(F) terms of
 * seed 001 eqs. (19), (22) with det(F) = d, and its off-diagonal d/120 sum_{i<=j} (v_ip v_jq +
 * v_iq v_jp), eq. (25) (whose minus sign makes tensor entries). In eq. (15) read
 * n_F = (v_j - v_i) x (v_k - v_i) and det(F) = det[v_i v_j v_k]; eq. (17) is the volume above,
 * since (v1 + v2 + v3) . n_F = 3 d, and eq. (20) is the face form of the first moment (per face it
 * differs from d s / 24, the totals agree).
 * With mass m = rho V, centre c = int x dV / V and C = rho (int xx'dV - V c c') about c, the
 * inertia about c is I_c = tr(C) eye - C. The sums run about the vertex centroid o (coordinates
 * x - o) so a mesh far from its frame origin loses no digits; hg_inertia_from_com then adds
 * m (|c|^2 eye - c c') for the inertia about the mesh frame origin. */

typedef struct mesh_moments {
  double v;    /* sum of d: 6 V */
  double f[3]; /* sum of d s: 24 int x dV */
  double s[6]; /* sum of d (s s' + a a' + b b' + c c'): 120 int xx'dV (xx yy zz xy xz yz) */
} mesh_moments;

/* adds the signed tetrahedron (0, a, b, c) */
static void mesh_tet_add(const double a[3], const double b[3], const double c[3], mesh_moments *M) {
  double bc[3], s[3];
  hg_v3_cross(b, c, bc);
  double d = hg_v3_dot(a, bc);
  for (int k = 0; k < 3; k++) s[k] = a[k] + b[k] + c[k];
  M->v += d;
  for (int k = 0; k < 3; k++) M->f[k] += d * s[k];
  for (int k = 0; k < 6; k++) {
    int p = hg_sym_row[k], q = hg_sym_col[k];
    M->s[k] += d * (s[p] * s[q] + a[p] * a[q] + b[p] * b[q] + c[p] * c[q]);
  }
}

/* sums over the triangles of the tetrahedra from o */
static void mesh_moments_sum(const hg_mesh *m, const double o[3], mesh_moments *M) {
  memset(M, 0, sizeof *M);
  for (int t = 0; t < m->ntri; t++) {
    double x[3][3];
    for (int c = 0; c < 3; c++)
      for (int k = 0; k < 3; k++) x[c][k] = m->vert[3 * m->tri[3 * t + c] + k] - o[k];
    mesh_tet_add(x[0], x[1], x[2], M);
  }
}

double hg_mesh_volume(const hg_mesh *m) {
  double o[3];
  mesh_moments M;
  mesh_centroid(m, o);
  mesh_moments_sum(m, o, &M);
  return M.v / 6;
}

/* I_c (xx yy zz xy xz yz) from the per-density moments about o: volume V, centre cr (relative to
 * o) and S = int x x' */
static void mesh_inertia_com(double density, double V, const double cr[3], const double S[6],
                             double Ic[6]) {
  double C[6];
  for (int k = 0; k < 6; k++) C[k] = density * (S[k] - V * cr[hg_sym_row[k]] * cr[hg_sym_col[k]]);
  double tr = C[0] + C[1] + C[2];
  for (int k = 0; k < 3; k++) Ic[k] = tr - C[k];
  for (int k = 3; k < 6; k++) Ic[k] = -C[k];
}

/* -1 with err unless the volume V is clearly positive for the mesh's size */
static int mesh_check_volume(const hg_mesh *m, double V, hg_error *err) {
  double lo[3], hi[3];
  hg_mesh_bounds(m, lo, hi);
  double ext = fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2]));
  if (V > 1e-12 * ext * ext * ext) return 0;
  return mesh_fail(err,
                   "mesh encloses a non-positive volume (%g m^3): inside out (triangles clockwise "
                   "seen from outside) or flat",
                   V);
}

int hg_mesh_mass_properties(const hg_mesh *m, double density, double *mass, double com[3],
                            double Ic[6], hg_error *err) {
  double o[3], cr[3], S[6];
  mesh_moments M;
  if (!(density > 0) || !isfinite(density))
    return mesh_fail(err, "density must be positive and finite, got %g", density);
  if (hg_mesh_check(m, err)) return -1;
  mesh_centroid(m, o);
  mesh_moments_sum(m, o, &M);
  double V = M.v / 6;
  if (mesh_check_volume(m, V, err)) return -1;
  /* centre of mass and inertia about it, then the centre back in the mesh frame */
  for (int k = 0; k < 3; k++) cr[k] = M.f[k] / 24 / V;
  for (int k = 0; k < 6; k++) S[k] = M.s[k] / 120;
  mesh_inertia_com(density, V, cr, S, Ic);
  *mass = density * V;
  for (int k = 0; k < 3; k++) com[k] = cr[k] + o[k];
  char why[256];
  if (hg_inertia_validate(*mass, Ic, why, sizeof why))
    return mesh_fail(err, "mesh gives an invalid inertia: %s", why);
  return 0;
}

int hg_mesh_inertia(const hg_mesh *m, double density, hg_inertia *out, hg_error *err) {
  double mass, c[3], Ic[6];
  char why[256];
  if (hg_mesh_mass_properties(m, density, &mass, c, Ic, err)) return -1;
  if (hg_inertia_from_com(mass, c, Ic, out, why, sizeof why))
    return mesh_fail(err, "mesh gives an invalid inertia: %s", why);
  return 0;
}
