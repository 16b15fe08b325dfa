/* yaml_doc.c: a YAML document with typed reads that name file:line:column (yaml_doc.h). */
#include "yaml_doc.h"

#include "scene.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "readfile.h"

/* ---- errors and positions ---- */

void hg_ydoc_where(const hg_ynode *n, int *line, int *column) {
  *line = n ? (int)n->start_mark.line + 1 : 1;
  *column = n ? (int)n->start_mark.column + 1 : 1;
}

/* "path:line:column: " then the message */
static int vfail_at(hg_ydoc *d, int line, int column, const char *fmt, va_list ap) {
  if (!d->err) return -1;
  int k = snprintf(d->err->msg, sizeof d->err->msg, "%s:%d:%d: ", d->path, line, column);
  if (k < 0 || k >= (int)sizeof d->err->msg) return -1;
  vsnprintf(d->err->msg + k, sizeof d->err->msg - (size_t)k, fmt, ap);
  return -1;
}

/* the same with the arguments given directly */
static int fail_at(hg_ydoc *d, int line, int column, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vfail_at(d, line, column, fmt, ap);
  va_end(ap);
  return -1;
}

int hg_ydoc_fail(hg_ydoc *d, const hg_ynode *n, const char *fmt, ...) {
  int line, column;
  va_list ap;
  hg_ydoc_where(n, &line, &column);
  va_start(ap, fmt);
  vfail_at(d, line, column, fmt, ap);
  va_end(ap);
  return -1;
}

/* Levenshtein distance of two short strings (longer ones count as far apart) */
static int edit_distance(const char *a, const char *b) {
  int na = (int)strlen(a), nb = (int)strlen(b), row[65];
  if (na > 64 || nb > 64) return 1000;
  for (int j = 0; j <= nb; j++) row[j] = j;
  for (int i = 1; i <= na; i++) {
    int diag = row[0];
    row[0] = i;
    for (int j = 1; j <= nb; j++) {
      int up = row[j], best = diag + (a[i - 1] != b[j - 1]);
      if (up + 1 < best) best = up + 1;
      if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
      diag = up;
      row[j] = best;
    }
  }
  return row[nb];
}

const char *hg_ydoc_suggest(const char *word, const char *const *cand, int ncand) {
  const char *best = NULL;
  int best_d = 1000, len = (int)strlen(word);
  int limit = len <= 3 ? 1 : len <= 8 ? 2 : 3;
  for (int k = 0; k < ncand; k++) {
    if (!cand[k]) continue;
    int dist = edit_distance(word, cand[k]);
    if (dist < best_d) {
      best_d = dist;
      best = cand[k];
    }
  }
  return best_d <= limit ? best : NULL;
}

/* ---- the document ---- */

/* line and column (1-based) of a byte offset of the file */
static void locate(const char *path, size_t offset, int *line, int *column) {
  FILE *f = fopen(path, "rb");
  int ch;
  *line = *column = 1;
  for (size_t k = 0; f && k < offset && (ch = fgetc(f)) != EOF; k++) {
    if (ch == '\n')
      (*line)++, *column = 1;
    else
      (*column)++;
  }
  if (f) fclose(f);
}

/* 1 when the character at a (1-based) line and column of the file is a tab */
static int tab_at(const char *path, int line, int column) {
  FILE *f = fopen(path, "rb");
  int ch = EOF, l = 1, c = 1;
  while (f && (ch = fgetc(f)) != EOF && (l < line || c < column)) {
    if (ch == '\n')
      l++, c = 1;
    else
      c++;
  }
  if (f) fclose(f);
  return ch == '\t';
}

/* line `line` (1-based) of the document, without its newline, into buf; 0, or -1 when there is
 * no such line */
static int line_text(const hg_ydoc *d, int line, char *buf, size_t size) {
  FILE *f = d->from_text ? NULL : fopen(d->path, "rb");
  size_t at = 0, n = 0;
  int l = 1, ch;
  if (!f && !d->text) return -1;
  for (;;) {
    if (f) ch = fgetc(f);
    else ch = at < d->len ? (unsigned char)d->text[at++] : EOF;
    if (ch == EOF || (l == line && ch == '\n')) break;
    if (ch == '\n') l++;
    else if (l == line && n + 1 < size) buf[n++] = (char)ch;
  }
  if (f) fclose(f);
  buf[n] = 0;
  return l == line ? 0 : -1;
}

/* 1 when the parser stopped at a colon that ends a second "key: " on its line, as in
 * `title: Heat shield: separation` or `{name: a: b}`: a plain value holding ": " (libyaml says
 * "mapping values are not allowed in this context", or in a flow mapping "did not find expected
 * ',' or '}'") */
static int colon_in_value(const hg_ydoc *d, int line, int column) {
  char text[1024];
  if (line_text(d, line, text, sizeof text) || column < 2 || (size_t)column > strlen(text))
    return 0;
  const char *at = text + column - 1;
  if (*at != ':' || (at[1] != 0 && at[1] != ' ' && at[1] != '\t')) return 0;
  /* an earlier ": " on the line, after the last '{', '[' or ',' of a flow collection */
  for (const char *p = at - 1; p >= text && *p != '{' && *p != '[' && *p != ','; p--)
    if (p[0] == ':' && (p[1] == ' ' || p[1] == '\t')) return 1;
  return 0;
}

/* a syntax or reading error of the parser */
static int parser_fail(hg_ydoc *d, const yaml_parser_t *p) {
  const char *problem = p->problem ? p->problem : "unreadable YAML";
  int line = (int)p->problem_mark.line + 1, col = (int)p->problem_mark.column + 1;
  if (p->error == YAML_READER_ERROR && !d->from_text) {
    locate(d->path, p->problem_offset, &line, &col);
    return fail_at(d, line, col, "invalid text: %s", problem);
  }
  if (p->error != YAML_SCANNER_ERROR && p->error != YAML_PARSER_ERROR)
    return fail_at(d, line, col, "cannot read the YAML: %s", problem);
  if (!d->from_text && tab_at(d->path, line, col))
    return fail_at(d, line, col, "YAML syntax error: %s (a tab: YAML indents with spaces only)",
                   problem);
  if (colon_in_value(d, line, col))
    return fail_at(d, line, col,
                   "YAML syntax error: %s (quote the value: a plain value cannot hold ': ', "
                   "write key: \"a: b\")",
                   problem);
  if (p->context)
    return fail_at(d, line, col, "YAML syntax error: %s %s (started at line %d)", problem,
                   p->context, (int)p->context_mark.line + 1);
  return fail_at(d, line, col, "YAML syntax error: %s", problem);
}

/* -1 with an error when a second document follows the first */
static int check_single(hg_ydoc *d, yaml_parser_t *p) {
  yaml_document_t extra;
  if (!yaml_parser_load(p, &extra)) return parser_fail(d, p);
  yaml_node_t *root = yaml_document_get_root_node(&extra);
  int line = root ? (int)root->start_mark.line + 1 : 0,
      col = root ? (int)root->start_mark.column + 1 : 0;
  yaml_document_delete(&extra);
  if (root) return fail_at(d, line, col, "a scene file holds one YAML document, found a second");
  return 0;
}

/* ---- alias expansion and nesting, counted on the event stream before the document loads ----
 *
 * Each event of a node adds the nodes it stands for: a scalar 1, a collection 1 and its
 * items', an alias the nodes of its anchor's node (as a reader walking the document meets
 * them), so the document stands for own + aliased nodes. The counts of anchored nodes are kept
 * by anchor name; the nodes the aliases add so far, the nesting depth and, at the end, the
 * aliased nodes against the file's own are checked against
 * the limits of yaml_doc.h, so that a refused file costs one pass that stops where it exceeds
 * them. */

typedef struct scan_anchor {
  char *name;
  double nodes; /* the nodes its node stands for (a double: alias counts multiply) */
} scan_anchor;

typedef struct scan_frame {
  const char *anchor; /* the collection's anchor (owned by the event), or NULL */
  double nodes;       /* its nodes so far, itself included */
} scan_frame;

typedef struct scan {
  int nanchor, cap;
  scan_anchor *anchor;
  hg_name_index index; /* anchor names -> anchor */
} scan;

static const char *anchor_name(const void *items, int i) {
  return ((const scan_anchor *)items)[i].name;
}

static void scan_free(scan *sc) {
  for (int k = 0; k < sc->nanchor; k++) free(sc->anchor[k].name);
  free(sc->anchor);
  hg_names_free(&sc->index);
}

/* records (or, for a name used again, replaces) anchor name's count; 0 or -1 (out of memory) */
static int scan_define(scan *sc, const char *name, double nodes) {
  int k = hg_names_find(&sc->index, anchor_name, sc->anchor, name);
  if (k >= 0) return sc->anchor[k].nodes = nodes, 0;
  if (sc->nanchor == sc->cap) {
    int cap = sc->cap ? 2 * sc->cap : 16;
    scan_anchor *grown = realloc(sc->anchor, (size_t)cap * sizeof *grown);
    if (!grown) return -1;
    sc->anchor = grown, sc->cap = cap;
    /* the index keeps at most half its slots filled */
    if (hg_names_reset(&sc->index, cap)) return -1;
    for (int i = 0; i < sc->nanchor; i++) hg_names_insert(&sc->index, anchor_name, sc->anchor, i);
  }
  if (!(sc->anchor[sc->nanchor].name = hg_strdup(name))) return -1;
  sc->anchor[sc->nanchor].nodes = nodes;
  hg_names_insert(&sc->index, anchor_name, sc->anchor, sc->nanchor++);
  return 0;
}

/* Walks the events of p's input: 0 when within the limits or when the parser stops on a syntax
 * error (the load that follows reports it), -1 with an error at the event that exceeds one. */
static int prescan(hg_ydoc *d, yaml_parser_t *p) {
  scan sc;
  scan_frame stack[HG_YDOC_MAX_DEPTH + 2];
  yaml_event_t ev;
  /* nodes with the aliases expanded (own + aliased); written in the file; added by aliases */
  double total = 0, own = 0, aliased = 0;
  int depth = 0, rc = 0, line = 1, col = 1, done = 0;
  memset(&sc, 0, sizeof sc);
  while (!done && rc == 0) {
    if (!yaml_parser_parse(p, &ev)) break;
    line = (int)ev.start_mark.line + 1, col = (int)ev.start_mark.column + 1;
    double add = -1; /* the nodes a finished node adds to its parent (-1: none finished) */
    const char *anchor = NULL;
    switch (ev.type) {
    case YAML_STREAM_END_EVENT: done = 1; break;
    case YAML_SCALAR_EVENT:
      own += 1, add = 1, anchor = (const char *)ev.data.scalar.anchor;
      break;
    case YAML_ALIAS_EVENT: {
      int k = hg_names_find(&sc.index, anchor_name, sc.anchor, (const char *)ev.data.alias.anchor);
      add = k >= 0 ? sc.anchor[k].nodes : 1; /* an unknown anchor: the load refuses it */
      break;
    }
    case YAML_SEQUENCE_START_EVENT:
    case YAML_MAPPING_START_EVENT:
      if (depth == HG_YDOC_MAX_DEPTH) {
        rc = fail_at(d, line, col, "nested more than %d levels deep: not a file hinge reads "
                                   "(refused before reading further)", HG_YDOC_MAX_DEPTH);
        break;
      }
      own += 1;
      stack[depth].anchor = (const char *)(ev.type == YAML_SEQUENCE_START_EVENT
                                               ? ev.data.sequence_start.anchor
                                               : ev.data.mapping_start.anchor);
      stack[depth].anchor = stack[depth].anchor ? hg_strdup(stack[depth].anchor) : NULL;
      stack[depth++].nodes = 1;
      break;
    case YAML_SEQUENCE_END_EVENT:
    case YAML_MAPPING_END_EVENT:
      if (depth == 0) break;
      depth--;
      add = stack[depth].nodes;
      if (stack[depth].anchor && scan_define(&sc, stack[depth].anchor, add))
        rc = fail_at(d, line, col, "out of memory");
      free((char *)stack[depth].anchor);
      break;
    default: break;
    }
    if (rc == 0 && anchor && scan_define(&sc, anchor, add))
      rc = fail_at(d, line, col, "out of memory");
    if (rc == 0 && add >= 0) {
      if (depth > 0) stack[depth - 1].nodes += add;
      else total += add;
      if (ev.type == YAML_ALIAS_EVENT) aliased += add;
      if (aliased > HG_YDOC_MAX_NODES)
        rc = fail_at(d, line, col, "aliases add more than %d nodes to the document: refused "
                                   "(write the values out, or anchor fewer copies)",
                     HG_YDOC_MAX_NODES);
    }
    yaml_event_delete(&ev);
  }
  for (int k = 0; k < depth; k++) free((char *)stack[k].anchor);
  scan_free(&sc);
  if (rc == 0 && aliased > HG_YDOC_MAX_ALIAS_RATIO * own + HG_YDOC_ALIAS_ALLOWANCE)
    rc = fail_at(d, 1, 1, "aliases expand the document's %.0f nodes to %.0f, more than %d times "
                          "its own: refused (write the values out, or anchor fewer copies)",
                 own, total, HG_YDOC_MAX_ALIAS_RATIO);
  return rc;
}

/* the single document of an initialized parser's input */
static int load_from(hg_ydoc *d, yaml_parser_t *p) {
  if (!yaml_parser_load(p, &d->doc)) return parser_fail(d, p);
  d->loaded = 1;
  if (!hg_ydoc_root(d))
    return fail_at(d, 1, 1, "the file is empty (expected a mapping of top-level keys)");
  return check_single(d, p);
}

int hg_ydoc_load(hg_ydoc *d, const char *path, hg_error *err) {
  yaml_parser_t p;
  memset(d, 0, sizeof *d);
  d->path = path;
  d->err = err;
  /* the bytes read once, from a regular file of at most HG_FILE_TEXT_MAX bytes (readfile.h:
   * not /dev/zero, a FIFO), then two passes over them: the limits on the events, then the
   * document; messages still name the file and read its lines from it */
  size_t len = 0;
  char *text = hg_file_read(path, HG_FILE_TEXT_MAX, &len, err);
  if (!text) return -1;
  int rc = 0;
  d->hash = hg_hash_bytes(text ? text : "", len, HG_HASH_START);
  for (int pass = 0; pass < 2 && rc == 0; pass++) {
    if (!yaml_parser_initialize(&p)) {
      rc = fail_at(d, 1, 1, "out of memory");
      break;
    }
    yaml_parser_set_input_string(&p, (const unsigned char *)(text ? text : ""), len);
    rc = pass == 0 ? prescan(d, &p) : load_from(d, &p);
    yaml_parser_delete(&p);
  }
  free(text);
  return rc;
}

int hg_ydoc_load_text(hg_ydoc *d, const char *text, size_t len, const char *path, hg_error *err) {
  yaml_parser_t p;
  memset(d, 0, sizeof *d);
  d->path = path;
  d->err = err;
  d->from_text = 1;
  d->text = text, d->len = len;
  d->hash = hg_hash_bytes(text, len, HG_HASH_START);
  if (!yaml_parser_initialize(&p)) return fail_at(d, 1, 1, "out of memory");
  yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
  int rc = prescan(d, &p);
  yaml_parser_delete(&p);
  if (rc == 0 && !yaml_parser_initialize(&p)) rc = fail_at(d, 1, 1, "out of memory");
  if (rc == 0) {
    yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
    rc = load_from(d, &p);
    yaml_parser_delete(&p);
  }
  d->text = NULL, d->len = 0;
  return rc;
}

void hg_ydoc_free(hg_ydoc *d) {
  if (d->loaded) yaml_document_delete(&d->doc);
  d->loaded = 0;
}

hg_ynode *hg_ydoc_root(hg_ydoc *d) {
  return d->loaded ? yaml_document_get_root_node(&d->doc) : NULL;
}

/* ---- structure ---- */

int hg_ydoc_is_map(const hg_ynode *n) { return n && n->type == YAML_MAPPING_NODE; }
int hg_ydoc_is_seq(const hg_ynode *n) { return n && n->type == YAML_SEQUENCE_NODE; }
int hg_ydoc_is_scalar(const hg_ynode *n) { return n && n->type == YAML_SCALAR_NODE; }

/* a short description of what a node is, for "expected X, got Y" */
static const char *node_kind(const hg_ynode *n) {
  if (hg_ydoc_is_map(n)) return "a mapping";
  if (hg_ydoc_is_seq(n)) return "a list";
  return hg_ydoc_is_null(n) ? "nothing" : "a single value";
}

int hg_ydoc_expect_map(hg_ydoc *d, const hg_ynode *n, const char *what) {
  if (hg_ydoc_is_map(n)) return 0;
  return hg_ydoc_fail(d, n, "expected a mapping (key: value) for %s, got %s", what, node_kind(n));
}

int hg_ydoc_expect_seq(hg_ydoc *d, const hg_ynode *n, const char *what) {
  if (hg_ydoc_is_seq(n)) return 0;
  return hg_ydoc_fail(d, n, "expected a list for %s, got %s", what, node_kind(n));
}

int hg_ydoc_len(const hg_ynode *n) {
  if (hg_ydoc_is_seq(n)) return (int)(n->data.sequence.items.top - n->data.sequence.items.start);
  if (hg_ydoc_is_map(n)) return (int)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
  return 0;
}

hg_ynode *hg_ydoc_item(hg_ydoc *d, const hg_ynode *seq, int k) {
  return yaml_document_get_node(&d->doc, seq->data.sequence.items.start[k]);
}

hg_ynode *hg_ydoc_pair_key(hg_ydoc *d, const hg_ynode *map, int k) {
  return yaml_document_get_node(&d->doc, map->data.mapping.pairs.start[k].key);
}

hg_ynode *hg_ydoc_pair_value(hg_ydoc *d, const hg_ynode *map, int k) {
  return yaml_document_get_node(&d->doc, map->data.mapping.pairs.start[k].value);
}

/* index of the first pair whose key is the scalar key, or -1 */
static int find_pair(hg_ydoc *d, const hg_ynode *map, const char *key) {
  if (!hg_ydoc_is_map(map)) return -1;
  for (int k = 0; k < hg_ydoc_len(map); k++) {
    const char *t = hg_ydoc_text(hg_ydoc_pair_key(d, map, k));
    if (t && strcmp(t, key) == 0) return k;
  }
  return -1;
}

hg_ynode *hg_ydoc_get(hg_ydoc *d, const hg_ynode *map, const char *key) {
  int k = find_pair(d, map, key);
  return k < 0 ? NULL : hg_ydoc_pair_value(d, map, k);
}

hg_ynode *hg_ydoc_key(hg_ydoc *d, const hg_ynode *map, const char *key) {
  int k = find_pair(d, map, key);
  return k < 0 ? NULL : hg_ydoc_pair_key(d, map, k);
}

/* a key that is not in keys: unknown, with a suggestion when one is close */
static int unknown_key(hg_ydoc *d, const hg_ynode *key, const char *name, const char *what,
                       const char *const *keys) {
  int n = 0;
  while (keys[n]) n++;
  const char *near = hg_ydoc_suggest(name, keys, n);
  if (near)
    return hg_ydoc_fail(d, key, "unknown key '%s' in %s (did you mean '%s'?)", name, what, near);
  return hg_ydoc_fail(d, key, "unknown key '%s' in %s", name, what);
}

int hg_ydoc_check_keys(hg_ydoc *d, const hg_ynode *map, const char *what, const char *const *keys) {
  if (hg_ydoc_expect_map(d, map, what)) return -1;
  for (int k = 0; k < hg_ydoc_len(map); k++) {
    const hg_ynode *key = hg_ydoc_pair_key(d, map, k);
    const char *name = hg_ydoc_text(key);
    int known = 0;
    if (!name || hg_ydoc_is_null(key))
      return hg_ydoc_fail(d, key, "expected a key name in %s", what);
    for (int j = 0; keys[j] && !known; j++) known = strcmp(keys[j], name) == 0;
    if (!known) return unknown_key(d, key, name, what, keys);
    if (find_pair(d, map, name) != k) {
      int line, col;
      hg_ydoc_where(hg_ydoc_pair_key(d, map, find_pair(d, map, name)), &line, &col);
      return hg_ydoc_fail(d, key, "key '%s' given twice in %s (first at line %d)", name, what,
                          line);
    }
  }
  return 0;
}

int hg_ydoc_require(hg_ydoc *d, const hg_ynode *map, const char *key, const char *what) {
  if (find_pair(d, map, key) >= 0) return 0;
  return hg_ydoc_fail(d, map, "missing key '%s' in %s", key, what);
}

/* ---- scalars ---- */

const char *hg_ydoc_text(const hg_ynode *n) {
  return hg_ydoc_is_scalar(n) ? (const char *)n->data.scalar.value : NULL;
}

int hg_ydoc_is_null(const hg_ynode *n) {
  const char *t = hg_ydoc_text(n);
  if (!t) return 0;
  if (n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE) return 0;
  return t[0] == 0 || strcmp(t, "~") == 0 || strcmp(t, "null") == 0 || strcmp(t, "Null") == 0 ||
         strcmp(t, "NULL") == 0;
}

/* the value as quoted in a message: 'text', or a description of a non-scalar */
static void describe(const hg_ynode *n, char *buf, size_t len) {
  const char *t = hg_ydoc_text(n);
  if (t && !hg_ydoc_is_null(n))
    snprintf(buf, len, "'%.40s%s'", t, strlen(t) > 40 ? "..." : "");
  else
    snprintf(buf, len, "%s", node_kind(n));
}

/* YAML's spellings of infinity; returns 1 and sets *x when t is one */
static int yaml_infinity(const char *t, double *x) {
  static const char *const pos[] = {".inf", "+.inf", ".Inf", "+.Inf",
                                    ".INF", "+.INF", "inf",  "+inf"};
  static const char *const neg[] = {"-.inf", "-.Inf", "-.INF", "-inf"};
  for (size_t k = 0; k < sizeof pos / sizeof pos[0]; k++)
    if (strcmp(t, pos[k]) == 0) {
      *x = INFINITY;
      return 1;
    }
  for (size_t k = 0; k < sizeof neg / sizeof neg[0]; k++)
    if (strcmp(t, neg[k]) == 0) {
      *x = -INFINITY;
      return 1;
    }
  return 0;
}

/* strtod over the whole text, decimal only (no hex, nan or inf spellings) */
static int parse_decimal(const char *t, double *x) {
  char *end;
  if (!t[0] || strpbrk(t, "xXnN") || strpbrk(t, "iI")) return -1;
  errno = 0;
  *x = strtod(t, &end);
  if (*end || end == t) return -1;
  return 0;
}

int hg_ydoc_number(hg_ydoc *d, const hg_ynode *n, const char *what, int allow_inf, double *out) {
  const char *t = hg_ydoc_text(n);
  char got[64];
  double x;
  if (t && allow_inf && yaml_infinity(t, &x)) {
    *out = x;
    return 0;
  }
  if (t && parse_decimal(t, &x) == 0) {
    if (!isfinite(x)) return hg_ydoc_fail(d, n, "%s is out of range (%s)", what, t);
    if (fabs(x) > HG_YDOC_MAX_NUMBER)
      return hg_ydoc_fail(d, n, "%s = %s is beyond any physical value of a scene (|x| <= %g)", what,
                          t, HG_YDOC_MAX_NUMBER);
    *out = x;
    return 0;
  }
  describe(n, got, sizeof got);
  return hg_ydoc_fail(d, n, "expected a number for %s, got %s", what, got);
}

int hg_ydoc_integer(hg_ydoc *d, const hg_ynode *n, const char *what, int *out) {
  const char *t = hg_ydoc_text(n);
  char got[64], *end;
  if (t && t[0]) {
    errno = 0;
    long v = strtol(t, &end, 10);
    if (!*end && !errno && v >= -1000000000L && v <= 1000000000L) {
      *out = (int)v;
      return 0;
    }
  }
  describe(n, got, sizeof got);
  return hg_ydoc_fail(d, n, "expected a whole number for %s, got %s", what, got);
}

int hg_ydoc_bool(hg_ydoc *d, const hg_ynode *n, const char *what, int *out) {
  static const char *const yes[] = {"true", "True", "TRUE", "yes", "Yes", "on", "On"};
  static const char *const no[] = {"false", "False", "FALSE", "no", "No", "off", "Off"};
  const char *t = hg_ydoc_text(n);
  char got[64];
  for (size_t k = 0; t && k < sizeof yes / sizeof yes[0]; k++) {
    if (strcmp(t, yes[k]) == 0 || strcmp(t, no[k]) == 0) {
      *out = strcmp(t, yes[k]) == 0;
      return 0;
    }
  }
  describe(n, got, sizeof got);
  return hg_ydoc_fail(d, n, "expected true or false for %s, got %s", what, got);
}

int hg_ydoc_name(hg_ydoc *d, const hg_ynode *n, const char *what, const char **out) {
  const char *t = hg_ydoc_text(n);
  char got[64];
  if (t && t[0] && !hg_ydoc_is_null(n)) {
    *out = t;
    return 0;
  }
  describe(n, got, sizeof got);
  return hg_ydoc_fail(d, n, "expected a name for %s, got %s", what, got);
}

int hg_ydoc_numbers(hg_ydoc *d, const hg_ynode *n, const char *what, int count, double *out,
                    int *nread) {
  int len = hg_ydoc_len(n), max = count > 0 ? count : -count;
  if (!hg_ydoc_is_seq(n) || (count >= 0 && len != count) || (count < 0 && (len < 1 || len > max))) {
    char got[64];
    if (hg_ydoc_is_seq(n))
      snprintf(got, sizeof got, "%d", len);
    else
      describe(n, got, sizeof got);
    if (count >= 0)
      return hg_ydoc_fail(d, n, "expected a list of %d number%s for %s, got %s", count,
                          count == 1 ? "" : "s", what, got);
    return hg_ydoc_fail(d, n, "expected a list of 1 to %d numbers for %s, got %s", max, what, got);
  }
  for (int k = 0; k < len; k++)
    if (hg_ydoc_number(d, hg_ydoc_item(d, n, k), what, 0, &out[k])) return -1;
  if (nread) *nread = len;
  return 0;
}

int hg_ydoc_choice(hg_ydoc *d, const hg_ynode *n, const char *what, const char *const *names,
                   int nnames, int *out) {
  const char *t;
  char list[256] = "";
  if (hg_ydoc_name(d, n, what, &t)) return -1;
  for (int k = 0; k < nnames; k++)
    if (strcmp(t, names[k]) == 0) {
      *out = k;
      return 0;
    }
  const char *near = hg_ydoc_suggest(t, names, nnames);
  if (near) return hg_ydoc_fail(d, n, "unknown %s '%s' (did you mean '%s'?)", what, t, near);
  for (int k = 0; k < nnames; k++) {
    size_t used = strlen(list);
    snprintf(list + used, sizeof list - used, "%s%s", k ? ", " : "", names[k]);
  }
  return hg_ydoc_fail(d, n, "unknown %s '%s' (expected one of: %s)", what, t, list);
}

/* ---- optional keys ---- */

/* the value of key in map (NULL when it has none), and "'key'" into what[0..len) for messages */
static const hg_ynode *optional(hg_ydoc *d, const hg_ynode *map, const char *key, char *what,
                                size_t len) {
  snprintf(what, len, "'%s'", key);
  return hg_ydoc_get(d, map, key);
}

int hg_yget_number(hg_ydoc *d, const hg_ynode *map, const char *key, double *out) {
  char what[80];
  const hg_ynode *v = optional(d, map, key, what, sizeof what);
  return v ? hg_ydoc_number(d, v, what, 0, out) : 0;
}

int hg_yget_integer(hg_ydoc *d, const hg_ynode *map, const char *key, int *out) {
  char what[80];
  const hg_ynode *v = optional(d, map, key, what, sizeof what);
  return v ? hg_ydoc_integer(d, v, what, out) : 0;
}

int hg_yget_bool(hg_ydoc *d, const hg_ynode *map, const char *key, int *out) {
  char what[80];
  const hg_ynode *v = optional(d, map, key, what, sizeof what);
  return v ? hg_ydoc_bool(d, v, what, out) : 0;
}

int hg_yget_name(hg_ydoc *d, const hg_ynode *map, const char *key, const char **out) {
  char what[80];
  const hg_ynode *v = optional(d, map, key, what, sizeof what);
  return v ? hg_ydoc_name(d, v, what, out) : 0;
}

int hg_yget_vec(hg_ydoc *d, const hg_ynode *map, const char *key, int count, double *out) {
  char what[80];
  const hg_ynode *v = optional(d, map, key, what, sizeof what);
  return v ? hg_ydoc_numbers(d, v, what, count, out, NULL) : 0;
}

int hg_yget_strdup(hg_ydoc *d, const hg_ynode *map, const char *key, char **out) {
  const char *t = NULL;
  if (hg_yget_name(d, map, key, &t)) return -1;
  if (!t) return 0;
  *out = hg_strdup(t);
  return *out ? 0 : hg_ydoc_fail(d, map, "out of memory");
}


/* ---- values addressed by path ---- */

/* the item of a sequence named by seg: an index, or the mapping whose 'name' is seg */
static hg_ynode *seq_item(hg_ydoc *d, const hg_ynode *seq, const char *seg) {
  char *end;
  long k = strtol(seg, &end, 10);
  if (*seg && !*end) return k >= 0 && k < hg_ydoc_len(seq) ? hg_ydoc_item(d, seq, (int)k) : NULL;
  for (int i = 0; i < hg_ydoc_len(seq); i++) {
    hg_ynode *it = hg_ydoc_item(d, seq, i);
    const char *name = hg_ydoc_is_map(it) ? hg_ydoc_text(hg_ydoc_get(d, it, "name")) : NULL;
    if (name && !strcmp(name, seg)) return it;
  }
  return NULL;
}

hg_ynode *hg_ydoc_at(hg_ydoc *d, hg_ynode *root, const char *path, char *why, size_t len) {
  char seg[256];
  hg_ynode *n = root;
  const char *p = path;
  while (n) {
    size_t k = strcspn(p, ".");
    if (k == 0 || k >= sizeof seg) return snprintf(why, len, "an empty or too long part"), NULL;
    memcpy(seg, p, k);
    seg[k] = 0;
    hg_ynode *next = hg_ydoc_is_map(n) ? hg_ydoc_get(d, n, seg)
                     : hg_ydoc_is_seq(n) ? seq_item(d, n, seg) : NULL;
    if (!next) {
      int line, col;
      const char *keys[64], *near = NULL;
      for (int i = 0; hg_ydoc_is_map(n) && i < hg_ydoc_len(n) && i < 64; i++)
        keys[i] = hg_ydoc_text(hg_ydoc_pair_key(d, n, i)), near = "";
      if (near) near = hg_ydoc_suggest(seg, keys, hg_ydoc_len(n) < 64 ? hg_ydoc_len(n) : 64);
      hg_ydoc_where(n, &line, &col);
      snprintf(why, len, "no '%s'%s%s%s in the %s at %s:%d", seg, near ? " (did you mean '" : "",
               near ? near : "", near ? "'?)" : "",
               hg_ydoc_is_map(n) ? "mapping" : hg_ydoc_is_seq(n) ? "list (give an index or a name)"
                                                                 : "scalar",
               d->path, line);
      return NULL;
    }
    n = next;
    if (!p[k]) return n;
    p += k + 1;
  }
  return NULL;
}

int hg_ydoc_set_text(hg_ydoc *d, hg_ynode *n, const char *text) {
  (void)d;
  if (!hg_ydoc_is_scalar(n)) return -1;
  size_t len = strlen(text);
  yaml_char_t *v = malloc(len + 1); /* libyaml frees scalar values with free() */
  if (!v) return -1;
  memcpy(v, text, len + 1);
  free(n->data.scalar.value);
  n->data.scalar.value = v;
  n->data.scalar.length = len;
  n->data.scalar.style = YAML_PLAIN_SCALAR_STYLE;
  return 0;
}
