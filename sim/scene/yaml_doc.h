/* yaml_doc.h: a YAML document (libyaml's document API) with typed reads that name file:line:column.
 *
 * Every read takes the node it reads and, on failure, writes "file:line:column: message" (1-based)
 * into the document's error and returns -1; nothing is allocated on a failure. Aliases resolve to
 * the anchored node. Mapping keys are checked against a list of allowed names: an unknown key is
 * an error with a did-you-mean suggestion, a repeated key is an error. */
#ifndef HINGE_YAML_DOC_H
#define HINGE_YAML_DOC_H

#include <yaml.h>

#include "model.h"

typedef yaml_node_t hg_ynode;

typedef struct hg_ydoc {
  yaml_document_t doc;
  int loaded;       /* doc holds a document to delete */
  const char *path; /* for messages (not owned) */
  int from_text;    /* read from a string (hg_ydoc_load_text): path is only a name */
  const char *text; /* that string while it is read (syntax errors quote its lines), or NULL */
  size_t len;
  hg_error *err;    /* where failures are written (may be NULL) */
  unsigned long long hash; /* 64-bit FNV-1a of the bytes read (hg_hash_bytes of scene.h) */
} hg_ydoc;

/* ---- the document ---- */

/* Limits checked on the event stream before a document loads, so that a hostile file is
 * refused at the event that crosses one, in time proportional to what was read up to it:
 * nesting deeper than HG_YDOC_MAX_DEPTH (a scene nests about 8 levels); aliases that make the
 * document stand for more than HG_YDOC_MAX_NODES nodes (the readers walk an alias as a copy of
 * its anchor's node: a few anchors nested in one another multiply); and, over the whole file,
 * aliases adding more than HG_YDOC_MAX_ALIAS_RATIO times the file's own nodes plus
 * HG_YDOC_ALIAS_ALLOWANCE (a shape or a mode anchored once and reused on every body stays far
 * inside). Each refusal is "file:line:column: what" and a load error. */
#define HG_YDOC_MAX_DEPTH 64
#define HG_YDOC_MAX_NODES 1000000
#define HG_YDOC_MAX_ALIAS_RATIO 16
#define HG_YDOC_ALIAS_ALLOWANCE 10000

/* Reads the single YAML document of a file. -1 with err on an unreadable file, a syntax error, an
 * empty file or more than one document. d must be freed with hg_ydoc_free either way. */
int hg_ydoc_load(hg_ydoc *d, const char *path, hg_error *err);
/* The same for a document held in memory (len bytes of text); messages name it path. */
int hg_ydoc_load_text(hg_ydoc *d, const char *text, size_t len, const char *path, hg_error *err);
void hg_ydoc_free(hg_ydoc *d);
hg_ynode *hg_ydoc_root(hg_ydoc *d);

/* ---- errors and positions ---- */

/* writes "path:line:column: message" for node n (n NULL: line 1, column 1); returns -1 */
int hg_ydoc_fail(hg_ydoc *d, const hg_ynode *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* 1-based position of a node */
void hg_ydoc_where(const hg_ynode *n, int *line, int *column);
/* the candidate closest to word by edit distance, when it is close enough to suggest; else NULL */
const char *hg_ydoc_suggest(const char *word, const char *const *cand, int ncand);

/* ---- structure ---- */

int hg_ydoc_is_map(const hg_ynode *n);
int hg_ydoc_is_seq(const hg_ynode *n);
int hg_ydoc_is_scalar(const hg_ynode *n);
/* -1 with an error unless n is a mapping (or a sequence); what names the value in the message */
int hg_ydoc_expect_map(hg_ydoc *d, const hg_ynode *n, const char *what);
int hg_ydoc_expect_seq(hg_ydoc *d, const hg_ynode *n, const char *what);
/* number of items of a sequence or pairs of a mapping (0 for a scalar) */
int hg_ydoc_len(const hg_ynode *n);
/* item k of a sequence; key and value of pair k of a mapping */
hg_ynode *hg_ydoc_item(hg_ydoc *d, const hg_ynode *seq, int k);
hg_ynode *hg_ydoc_pair_key(hg_ydoc *d, const hg_ynode *map, int k);
hg_ynode *hg_ydoc_pair_value(hg_ydoc *d, const hg_ynode *map, int k);
/* value of a key of a mapping, or NULL; hg_ydoc_key gives the key node itself */
hg_ynode *hg_ydoc_get(hg_ydoc *d, const hg_ynode *map, const char *key);
hg_ynode *hg_ydoc_key(hg_ydoc *d, const hg_ynode *map, const char *key);
/* Checks that n is a mapping whose keys are plain names from keys (NULL-terminated), each given
 * once. what names the mapping ("body", "joint of body 'arm'") in the messages. */
int hg_ydoc_check_keys(hg_ydoc *d, const hg_ynode *map, const char *what, const char *const *keys);
/* -1 with "missing key 'key' in what" when map has no such key */
int hg_ydoc_require(hg_ydoc *d, const hg_ynode *map, const char *key, const char *what);

/* ---- scalars ---- */

/* the text of a scalar (NUL-terminated), or NULL for a sequence or mapping */
const char *hg_ydoc_text(const hg_ynode *n);
/* 1 when n is an empty or null scalar ("", ~, null) */
int hg_ydoc_is_null(const hg_ynode *n);
/* Typed reads of a node; what names the value in the message ("'mass'"). Numbers must be finite
 * unless allow_inf (then .inf, -.inf, inf are accepted too); NaN never is. */
/* Numbers beyond HG_YDOC_MAX_NUMBER in magnitude are refused wherever they appear: no input of a
 * multibody scene comes near (the Sun's mass is 2e30 kg, its gravitational parameter 1.3e20),
 * and the products of two such numbers stay far from overflow. Quantities with tighter bounds
 * (times, positions, speeds) are checked where they are read (scene_util.c). */
#define HG_YDOC_MAX_NUMBER 1e30
int hg_ydoc_number(hg_ydoc *d, const hg_ynode *n, const char *what, int allow_inf, double *out);
int hg_ydoc_integer(hg_ydoc *d, const hg_ynode *n, const char *what, int *out);
int hg_ydoc_bool(hg_ydoc *d, const hg_ynode *n, const char *what, int *out);
/* a non-empty scalar, borrowed from the document */
int hg_ydoc_name(hg_ydoc *d, const hg_ynode *n, const char *what, const char **out);
/* a sequence of exactly count numbers (count > 0), or of 1 to max numbers (count < 0, max = -count;
 * the number read goes to *nread) */
int hg_ydoc_numbers(hg_ydoc *d, const hg_ynode *n, const char *what, int count, double *out,
                    int *nread);
/* one of names[0..nnames-1]; an unknown value is an error with a did-you-mean suggestion */
int hg_ydoc_choice(hg_ydoc *d, const hg_ynode *n, const char *what, const char *const *names,
                   int nnames, int *out);

/* ---- optional keys of a mapping: absent leaves *out alone and returns 0 ---- */

int hg_yget_number(hg_ydoc *d, const hg_ynode *map, const char *key, double *out);
int hg_yget_integer(hg_ydoc *d, const hg_ynode *map, const char *key, int *out);
int hg_yget_bool(hg_ydoc *d, const hg_ynode *map, const char *key, int *out);
int hg_yget_name(hg_ydoc *d, const hg_ynode *map, const char *key, const char **out);
int hg_yget_vec(hg_ydoc *d, const hg_ynode *map, const char *key, int count, double *out);
/* a copy of a name (malloc'd; absent: *out stays NULL) */
int hg_yget_strdup(hg_ydoc *d, const hg_ynode *map, const char *key, char **out);

/* ---- values addressed by path ---- */

/* The node at a dotted path from root: "bodies.shield.inertia.mass", "inertia.com.2": a mapping's
 * part is a key, a list's part an index (from 0) or the 'name' of one of its mappings. NULL with
 * why ("no 'x' in the mapping at file:line") when a part is missing. */
hg_ynode *hg_ydoc_at(hg_ydoc *d, hg_ynode *root, const char *path, char *why, size_t len);
/* replaces a scalar's text (a plain scalar from then on); 0, or -1 (not a scalar, out of memory) */
int hg_ydoc_set_text(hg_ydoc *d, hg_ynode *n, const char *text);

#endif
