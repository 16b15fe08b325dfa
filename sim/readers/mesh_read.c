/* mesh_read.c: OBJ and STL files into triangle meshes (mesh.h); every other format goes to
 * mesh_assimp.c. */
#include "mesh.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "grow.h"
#include "readfile.h"

/* most vertices or triangles a mesh may have (keeps 3 * n and byte counts in range) */
#define HG_MESH_MAX (INT_MAX / 4)

/* ---- growing a mesh ---- */

typedef struct mesh_buf {
  hg_mesh m;
  int vcap, tcap;
} mesh_buf;

/* p with room for n + 1 items of size bytes (capacity *cap, updated); NULL when out of memory
 * (p is then still valid) */
static void *mesh_grow(void *p, int *cap, int n, size_t size) {
  if (n >= *cap && *cap > HG_MESH_MAX / 2) return NULL;
  return hg_grow(&p, n, cap, 64, size) ? NULL : p;
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
  return hg_error_fail(r->err, "%s:%d: %s%s%s%s", r->path, r->line, what, word ? " '" : "",
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
        return hg_error_fail(r->err, "%s:%d: face index %d out of range (the file has %d vertices)",
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
    return hg_error_fail(
        err, "%s: byte %zu: truncated: expected an 80-byte header and a facet count (84 bytes)",
        path, len);
  uint32_t n = stl_u32(d + 80);
  size_t have = (len - 84) / 50;
  if (have < n)
    return hg_error_fail(
        err, "%s: byte %zu: truncated: expected facet %zu of %lu (50 bytes), found %zu bytes", path,
        84 + 50 * have, have + 1, (unsigned long)n, len - 84 - 50 * have);
  if (len > 84 + 50 * (size_t)n)
    return hg_error_fail(err, "%s: byte %zu: expected the end of the file after %lu facets", path,
                     84 + 50 * (size_t)n, (unsigned long)n);
  if (n == 0) return hg_error_fail(err, "%s: byte 80: expected at least one facet", path);
  if (n > HG_MESH_MAX / 3)
    return hg_error_fail(err, "%s: byte 80: too many facets (%lu)", path, (unsigned long)n);
  /* the corners of each facet; the stored normal is not used */
  for (size_t k = 0; k < n; k++) {
    for (int c = 0; c < 3; c++) {
      size_t off = 84 + 50 * k + 12 + 12 * (size_t)c;
      double x[3] = {stl_f32(d + off), stl_f32(d + off + 4), stl_f32(d + off + 8)};
      if (!isfinite(x[0]) || !isfinite(x[1]) || !isfinite(x[2]))
        return hg_error_fail(err, "%s: byte %zu: expected finite vertex coordinates", path, off);
      if (mesh_push_vert(b, x)) return hg_error_fail(err, "%s: out of memory", path);
    }
    int v = 3 * (int)k;
    if (mesh_push_tri(b, v, v + 1, v + 2)) return hg_error_fail(err, "%s: out of memory", path);
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
  return hg_error_fail(t->err, "%s:%d: expected %s, got %s%s%s", t->path, t->line, what, w ? "'" : "",
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
      return hg_error_fail(t->err, "%s:%d: out of memory", t->path, t->line);
  }
  if (stl_keyword(t, "endloop") || stl_keyword(t, "endfacet")) return -1;
  int v = b->m.nvert - 3;
  return mesh_push_tri(b, v, v + 1, v + 2) ? hg_error_fail(t->err, "%s: out of memory", t->path) : 0;
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
  return b->m.ntri ? 0 : hg_error_fail(err, "%s:%d: expected at least one facet", path, t.line);
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

/* parses STL (ASCII or binary) into b and welds it */
static int stl_parse(const char *path, char *data, size_t len, mesh_buf *b, hg_error *err) {
  int rc = stl_is_ascii(data, len) ? stl_ascii(path, data, b, err)
                                   : stl_binary(path, (const unsigned char *)data, len, b, err);
  if (rc) return -1;
  if (hg_mesh_weld(&b->m)) return hg_error_fail(err, "%s: out of memory", path);
  if (b->m.ntri == 0)
    return hg_error_fail(err, "%s: every facet is degenerate (repeated corners)", path);
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
  if (!(data = hg_file_read(path, HG_FILE_MESH_MAX, &len, err))) return -1;
  int rc = obj ? obj_parse(path, data, len, &b, err) : stl_parse(path, data, len, &b, err);
  free(data);
  if (rc) {
    hg_mesh_free(&b.m);
    return -1;
  }
  *out = b.m;
  return 0;
}
