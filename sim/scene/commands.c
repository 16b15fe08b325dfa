/* commands.c: commands (docs/commands.md): event actions written one per line, read into the same
 * hg_action values a scene's events hold.
 *
 * Each command line is rewritten as the YAML action list a scene event would hold, on the same
 * line of a YAML document, and read by the scene's own action reader (hg_sc_action) with the
 * scene's name tables. So a command does exactly what the same actions in a scene event do, and
 * every name is checked the same way, with a did-you-mean suggestion. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "readfile.h"
#include "scene_internal.h"

/* ---- a growing string ---- */

typedef struct buf {
  char *s;
  size_t n, cap;
  int oom;
} buf;

static void put(buf *b, const char *text, size_t len) {
  if (b->oom) return;
  if (b->n + len + 1 > b->cap) {
    size_t cap = b->cap ? 2 * b->cap : 256;
    while (cap < b->n + len + 1) cap *= 2;
    char *s = realloc(b->s, cap);
    if (!s) {
      b->oom = 1;
      return;
    }
    b->s = s;
    b->cap = cap;
  }
  memcpy(b->s + b->n, text, len);
  b->n += len;
  b->s[b->n] = 0;
}

static void puts_(buf *b, const char *text) { put(b, text, strlen(text)); }

/* a name as a single-quoted YAML scalar */
static void put_name(buf *b, const char *name) {
  puts_(b, "'");
  for (const char *p = name; *p; p++) put(b, *p == '\'' ? "''" : p, 1 + (*p == '\''));
  puts_(b, "'");
}

/* ---- words of a line ---- */

#define MAXWORDS 16

typedef struct words {
  int n;
  const char *w[MAXWORDS];
  size_t len[MAXWORDS];
  const char *rest[MAXWORDS]; /* the text from word k to the end of the line */
} words;

/* splits text (a line without its comment) at blanks */
static void split(const char *text, size_t len, words *ws) {
  size_t k = 0;
  ws->n = 0;
  while (k < len && ws->n < MAXWORDS) {
    while (k < len && isspace((unsigned char)text[k])) k++;
    if (k >= len) break;
    ws->w[ws->n] = ws->rest[ws->n] = text + k;
    size_t start = k;
    while (k < len && !isspace((unsigned char)text[k])) k++;
    ws->len[ws->n++] = k - start;
  }
}

static int is(const words *ws, int k, const char *word) {
  return k < ws->n && ws->len[k] == strlen(word) && strncmp(ws->w[k], word, ws->len[k]) == 0;
}

/* word k as a malloc'd string */
static char *word(const words *ws, int k) {
  char *s = malloc(ws->len[k] + 1);
  if (s) memcpy(s, ws->w[k], ws->len[k]), s[ws->len[k]] = 0;
  return s;
}

static void put_word_name(buf *b, const words *ws, int k) {
  char *s = word(ws, k);
  if (!s) b->oom = 1;
  else put_name(b, s);
  free(s);
}

/* the text from word k to the end (trailing blanks dropped), or "" */
static void put_rest(buf *b, const words *ws, int k, size_t line_end_len) {
  if (k >= ws->n) return;
  const char *start = ws->rest[k];
  size_t n = line_end_len - (size_t)(start - ws->rest[0]);
  while (n && isspace((unsigned char)start[n - 1])) n--;
  put(b, start, n);
}

/* the keys of the flow mapping "{k: v, ...}" that the text from word k holds, appended to b as
 * ", k: v, ..." (they join the mapping b is writing); -1 when the text is no flow mapping */
static int join_mapping(buf *b, const words *ws, int k, size_t len) {
  buf m = {0};
  put_rest(&m, ws, k, len);
  int bad = m.oom || m.n < 2 || m.s[0] != '{' || m.s[m.n - 1] != '}';
  if (!bad && m.n > 2) puts_(b, ", "), put(b, m.s + 1, m.n - 2);
  free(m.s);
  return bad ? -1 : 0;
}

/* ---- one command as YAML ---- */

static const char *const actions[] = {"lock",   "free",   "prescribe", "enable",  "disable",
                                      "impulse", "detach", "attach",    "undock",  "remove",
                                      "add",     "set",    "perturb",   "release", "close",
                                      "open",    "actuate", "set_gain", "controller", NULL};
#define NACTIONS 19

const char *const *hg_command_actions(void) { return actions; }

/* appends "[{action}, ...]" for the command in ws (words from k0; len: the text's length from
 * word k0) to b; NULL, or a message saying what is wrong (a constant, or written into msg) */
static const char *to_yaml(hg_sctx *c, const words *ws, int k0, size_t len, buf *b, char *msg,
                           size_t msglen) {
  int n = ws->n - k0;
  if (n < 1) return "a command needs an action";
  if (is(ws, k0, "lock") || is(ws, k0, "free")) {
    if (n < 2) return "lock and free name at least one joint";
    puts_(b, "[");
    for (int k = k0 + 1; k < ws->n; k++) {
      puts_(b, k > k0 + 1 ? ", {set_mode: {joint: " : "{set_mode: {joint: ");
      put_word_name(b, ws, k);
      puts_(b, is(ws, k0, "lock") ? ", mode: locked}}" : ", mode: free}}");
    }
    puts_(b, "]");
  } else if (is(ws, k0, "prescribe")) {
    if (n < 2) return "prescribe JOINT [PROFILE]: name the joint";
    puts_(b, "[{set_mode: {joint: ");
    put_word_name(b, ws, k0 + 1);
    puts_(b, ", mode: prescribed");
    if (n > 2) puts_(b, ", profile: "), put_rest(b, ws, k0 + 2, len);
    puts_(b, "}}]");
  } else if (is(ws, k0, "enable") || is(ws, k0, "disable") || is(ws, k0, "detach") ||
             is(ws, k0, "remove")) {
    if (n != 2) return "enable, disable, detach and remove take one name";
    puts_(b, "[{");
    put(b, ws->w[k0], ws->len[k0]);
    puts_(b, ": ");
    put_word_name(b, ws, k0 + 1);
    puts_(b, "}]");
  } else if (is(ws, k0, "close") || is(ws, k0, "open")) {
    if (n != 2) return "close and open take one loop name";
    puts_(b, "[{");
    put(b, ws->w[k0], ws->len[k0]);
    puts_(b, ": ");
    put_word_name(b, ws, k0 + 1);
    puts_(b, "}]");
  } else if (is(ws, k0, "impulse")) {
    if (n != 8) return "impulse MARKER_OR_BODY LX LY LZ AX AY AZ: a name and six numbers";
    char *name = word(ws, k0 + 1);
    if (!name) return "out of memory";
    int marker = hg_scene_marker(c->s, name) != NULL;
    free(name);
    puts_(b, marker ? "[{impulse: {marker: " : "[{impulse: {body: ");
    put_word_name(b, ws, k0 + 1);
    puts_(b, ", linear: [");
    for (int k = 0; k < 6; k++) {
      put(b, ws->w[k0 + 2 + k], ws->len[k0 + 2 + k]);
      puts_(b, k == 2 ? "], angular: [" : k < 5 ? ", " : "]}}]");
    }
  } else if (is(ws, k0, "attach")) {
    if (n != 3 && n != 4) return "attach PARENT_MARKER CHILD_MARKER [JOINT]";
    puts_(b, "[{attach: {parent_marker: ");
    put_word_name(b, ws, k0 + 1);
    puts_(b, ", child_marker: ");
    put_word_name(b, ws, k0 + 2);
    if (n == 4) puts_(b, ", joint: "), put_word_name(b, ws, k0 + 3);
    puts_(b, "}}]");
  } else if (is(ws, k0, "undock")) {
    if (n < 2 || n > 3 || (n == 3 && !is(ws, k0 + 2, "detach")))
      return "undock JOINT [detach]";
    puts_(b, "[{undock: {joint: ");
    put_word_name(b, ws, k0 + 1);
    puts_(b, n == 3 ? ", detach: true}}]" : "}}]");
  } else if (is(ws, k0, "add")) {
    if (n < 2) return "add BODY [{at_marker: M, pos: [...], ...}]";
    puts_(b, "[{add: {body: ");
    put_word_name(b, ws, k0 + 1);
    /* the placement mapping's keys join the body's */
    if (n > 2 && join_mapping(b, ws, k0 + 2, len))
      return "add BODY: the placement is a flow mapping, {at_marker: M, pos: [x, y, z], ...}";
    puts_(b, "}}]");
  } else if (is(ws, k0, "set")) {
    if (n < 3) return "set JOINT {q: [...], v: [...]}";
    puts_(b, "[{set_state: {joint: ");
    put_word_name(b, ws, k0 + 1);
    if (join_mapping(b, ws, k0 + 2, len))
      return "set JOINT: the state is a flow mapping, {q: [...], v: [...]}";
    puts_(b, "}}]");
  } else if (is(ws, k0, "perturb")) {
    if (n < 9 || n > 11) return "perturb BODY PX PY PZ TX TY TZ STIFFNESS [DAMPING [FRAME]]";
    puts_(b, "[{perturb: {body: ");
    put_word_name(b, ws, k0 + 1);
    const char *key[] = {", point: [", ", target: ["};
    for (int v = 0; v < 2; v++) {
      puts_(b, key[v]);
      for (int k = 0; k < 3; k++) {
        put(b, ws->w[k0 + 2 + 3 * v + k], ws->len[k0 + 2 + 3 * v + k]);
        puts_(b, k < 2 ? ", " : "]");
      }
    }
    puts_(b, ", stiffness: ");
    put(b, ws->w[k0 + 8], ws->len[k0 + 8]);
    if (n >= 10) puts_(b, ", damping: "), put(b, ws->w[k0 + 9], ws->len[k0 + 9]);
    if (n == 11) puts_(b, ", frame: "), put_word_name(b, ws, k0 + 10);
    puts_(b, "}}]");
  } else if (is(ws, k0, "actuate")) {
    if (n != 3 && n != 4) return "actuate ACTUATOR V [V]: an actuator and its command";
    puts_(b, "[{actuate: {actuator: ");
    put_word_name(b, ws, k0 + 1);
    puts_(b, ", command: [");
    for (int k = k0 + 2; k < ws->n; k++) {
      put(b, ws->w[k], ws->len[k]);
      puts_(b, k + 1 < ws->n ? ", " : "]}}]");
    }
  } else if (is(ws, k0, "set_gain")) {
    if (n < 4) return "set_gain CONTROLLER PARAM V [V...]: a controller, a parameter, numbers";
    puts_(b, "[{set_gain: {controller: ");
    put_word_name(b, ws, k0 + 1);
    puts_(b, ", param: ");
    put_word_name(b, ws, k0 + 2);
    puts_(b, ", value: [");
    for (int k = k0 + 3; k < ws->n; k++) {
      put(b, ws->w[k], ws->len[k]);
      puts_(b, k + 1 < ws->n ? ", " : "]}}]");
    }
  } else if (is(ws, k0, "controller")) {
    if (n != 3 || !(is(ws, k0 + 2, "on") || is(ws, k0 + 2, "off")))
      return "controller NAME on|off";
    puts_(b, "[{controller: {name: ");
    put_word_name(b, ws, k0 + 1);
    puts_(b, is(ws, k0 + 2, "on") ? ", on: true}}]" : ", on: false}}]");
  } else if (is(ws, k0, "release")) {
    if (n != 1) return "release takes no arguments";
    puts_(b, "[{release: {}}]");
  } else {
    char *w = word(ws, k0);
    const char *near = w ? hg_ydoc_suggest(w, actions, NACTIONS) : NULL;
    snprintf(msg, msglen, "unknown action '%.40s'%s%s%s", w ? w : "?",
             near ? " (did you mean '" : " (lock, free, prescribe, enable, disable, impulse, "
                                         "detach, attach, undock, remove, add, set, perturb, "
                                         "release, close, open, actuate, set_gain, controller)",
             near ? near : "", near ? "')" : "");
    free(w);
    return msg;
  }
  return b->oom ? "out of memory" : NULL;
}

/* ---- reading ---- */

/* a reader context over the scene's name tables; its docking joint names are its own copy, so
 * attach commands may add names without touching the scene */
static int context(hg_sctx *c, const hg_scene *s, const char *path) {
  const struct hg_scene_names *nm = s->names;
  memset(c, 0, sizeof *c);
  c->s = (hg_scene *)s; /* the action reader only reads the scene */
  c->src_path = path;
  if (!nm) return -1;
  c->m = nm->m;
  c->absent = nm->absent;
  for (int k = 0; k < nm->ndock; k++)
    if (hg_sc_add_dock(c, hg_strdup(nm->dock[k]))) return -1;
  return 0;
}

static void context_free(hg_sctx *c) {
  for (int k = 0; k < c->ndock; k++) free(c->dock[k]);
  free(c->dock);
  hg_ydoc_free(&c->doc);
}

/* the docking joint an attach command creates joins the names later commands may use */
static int note_dock(hg_sctx *c, const words *ws, int k0) {
  if (!is(ws, k0, "attach") || ws->n - k0 < 3) return 0;
  char *name;
  if (ws->n - k0 == 4) {
    name = word(ws, k0 + 3);
  } else {
    size_t n = ws->len[k0 + 1] + ws->len[k0 + 2] + 7;
    name = malloc(n);
    if (name)
      snprintf(name, n, "dock_%.*s_%.*s", (int)ws->len[k0 + 1], ws->w[k0 + 1],
               (int)ws->len[k0 + 2], ws->w[k0 + 2]);
  }
  return hg_sc_add_dock(c, name);
}

/* "file:line:column: message" from the YAML reader as "file:line: message" */
static void drop_column(hg_error *err, const char *path) {
  size_t n = strlen(path);
  char *p = err->msg;
  if (strncmp(p, path, n) != 0 || p[n] != ':') return;
  char *q = p + n + 1;
  while (isdigit((unsigned char)*q)) q++;
  if (*q != ':' || !isdigit((unsigned char)q[1])) return;
  char *r = q + 1;
  while (isdigit((unsigned char)*r)) r++;
  memmove(q, r, strlen(r) + 1);
}

/* the actions of the YAML list at node n into cmd */
static int read_actions(hg_sctx *c, const hg_ynode *n, hg_command *cmd) {
  int na = hg_ydoc_len(n);
  cmd->action = calloc((size_t)na, sizeof *cmd->action);
  if (!cmd->action) return hg_ydoc_fail(&c->doc, n, "out of memory");
  cmd->naction = na;
  for (int k = 0; k < na; k++)
    if (hg_sc_action(c, hg_ydoc_item(&c->doc, n, k), &cmd->action[k])) return -1;
  return 0;
}

/* one line's text without its comment: its length */
static size_t uncommented(const char *line, size_t len) {
  const char *hash = memchr(line, '#', len);
  return hash ? (size_t)(hash - line) : len;
}

void hg_command_free(hg_command *cmd) {
  for (int k = 0; k < cmd->naction; k++) hg_action_free(&cmd->action[k]);
  free(cmd->action);
  free(cmd->text);
  memset(cmd, 0, sizeof *cmd);
}

void hg_commands_free(hg_command_list *l) {
  for (int k = 0; k < l->n; k++) hg_command_free(&l->cmd[k]);
  free(l->cmd);
  free(l->path);
  memset(l, 0, sizeof *l);
}

int hg_command_copy(hg_command *d, const hg_command *s) {
  memset(d, 0, sizeof *d);
  d->t = s->t;
  d->src = s->src;
  d->text = hg_strdup(s->text);
  d->action = calloc((size_t)s->naction + 1, sizeof *d->action);
  if (!d->action || (s->text && !d->text)) return hg_command_free(d), -1;
  for (int k = 0; k < s->naction; k++, d->naction++)
    if (hg_action_copy(&d->action[k], &s->action[k])) return hg_command_free(d), -1;
  return 0;
}

/* Reads the lines of text (from a file named path, or one command when timed is 0) into out:
 * each line is rewritten as YAML on the same line of one document, which the scene's reader
 * then reads. */
static int read_commands(const hg_scene *s, const char *text, size_t len, const char *path,
                         int timed, const char *const *joints, int njoints, hg_command_list *out,
                         hg_error *err) {
  hg_sctx c;
  buf y = {0};
  int rc = -1, line = 0, ncmd = 0;
  hg_command *cmd = NULL;
  if (context(&c, s, path)) {
    hg_error_set(err, "%s: the scene keeps no names to check commands against", path);
    goto done;
  }
  /* joints a running simulation made (docking joints) are free joints to the reader, and loop
   * names close and open may use (an attach between bodies of one tree makes a loop dock_A_B) */
  for (int k = 0; k < njoints; k++)
    if (hg_model_joint(c.m, joints[k]) < 0 && hg_sc_add_dock(&c, hg_strdup(joints[k]))) {
      hg_error_set(err, "%s: out of memory", path);
      goto done;
    }
  /* pass 1: one YAML sequence item per command, on the command's own line */
  for (size_t at = 0; at < len || (at == len && line == 0); line++) {
    const char *ln = text + at, *nl = memchr(ln, '\n', len - at);
    size_t ll = nl ? (size_t)(nl - ln) : len - at, body = uncommented(ln, ll);
    words ws;
    at += ll + 1;
    split(ln, body, &ws);
    if (ws.n == 0) {
      puts_(&y, "\n");
      continue;
    }
    int k0 = 0;
    double t = NAN;
    if (timed) {
      char tbuf[64], *end;
      snprintf(tbuf, sizeof tbuf, "%.*s", (int)(ws.len[0] < 63 ? ws.len[0] : 63), ws.w[0]);
      t = strtod(tbuf, &end);
      if (*end || !isfinite(t)) {
        hg_error_set(err, "%s:%d: expected 'TIME ACTION ARGUMENTS', and '%s' is not a time", path,
                     line + 1, tbuf);
        goto done;
      }
      if (t < s->t_start) {
        hg_error_set(err, "%s:%d: time %g is before the scene's start time %g", path, line + 1,
                     t, s->t_start);
        goto done;
      }
      k0 = 1;
    }
    puts_(&y, "- ");
    char msg[256];
    const char *why = to_yaml(&c, &ws, k0, body - (size_t)(ws.rest[0] - ln), &y, msg, sizeof msg);
    if (!why && note_dock(&c, &ws, k0)) why = "out of memory";
    if (why) {
      hg_error_set(err, "%s:%d: %s", path, line + 1, why);
      goto done;
    }
    hg_command *grown = realloc(cmd, ((size_t)ncmd + 1) * sizeof *cmd);
    if (!grown) goto oom;
    cmd = grown;
    memset(&cmd[ncmd], 0, sizeof *cmd);
    cmd[ncmd].t = t;
    cmd[ncmd].src = (hg_src){path, line + 1, 1};
    size_t tl = body - (size_t)(ws.rest[k0] - ln);
    while (tl && isspace((unsigned char)ws.rest[k0][tl - 1])) tl--;
    cmd[ncmd].text = malloc(tl + 1);
    if (!cmd[ncmd++].text) goto oom;
    memcpy(cmd[ncmd - 1].text, ws.rest[k0], tl);
    cmd[ncmd - 1].text[tl] = 0;
    puts_(&y, "\n");
  }
  if (y.oom) goto oom;
  if (ncmd == 0) {
    hg_error_set(err, "%s: no command (one per line: %sACTION ARGUMENTS)", path,
                 timed ? "TIME " : "");
    goto done;
  }
  /* pass 2: the YAML document, read by the scene's action reader */
  if (hg_ydoc_load_text(&c.doc, y.s, y.n, path, err)) goto yaml_fail;
  const hg_ynode *root = hg_ydoc_root(&c.doc);
  for (int k = 0; k < ncmd; k++) {
    const hg_ynode *item = hg_ydoc_item(&c.doc, root, k);
    if (!hg_ydoc_is_seq(item)) {
      hg_ydoc_fail(&c.doc, item, "a command's arguments did not make an action list");
      goto yaml_fail;
    }
    if (read_actions(&c, item, &cmd[k])) goto yaml_fail;
  }
  out->cmd = cmd, out->n = ncmd, cmd = NULL, ncmd = 0;
  rc = 0;
  goto done;
yaml_fail:
  drop_column(err, path);
  goto done;
oom:
  hg_error_set(err, "%s: out of memory", path);
done:
  for (int k = 0; k < ncmd; k++) hg_command_free(&cmd[k]);
  free(cmd);
  free(y.s);
  context_free(&c);
  return rc;
}

int hg_commands_load(const hg_scene *s, const char *path, hg_command_list *out, hg_error *err) {
  memset(out, 0, sizeof *out);
  /* a regular file of at most HG_FILE_TEXT_MAX bytes (readfile.h): not /dev/zero, a FIFO... */
  buf text = {0};
  text.s = hg_file_read(path, HG_FILE_TEXT_MAX, &text.n, err);
  if (!text.s) return -1;
  if (memchr(text.s ? text.s : "", 0, text.n)) {
    free(text.s);
    return hg_error_set(err, "%s: not a text file (it holds a NUL byte)", path), -1;
  }
  out->path = hg_strdup(path);
  int rc = out->path ? read_commands(s, text.s ? text.s : "", text.n, out->path, 1, NULL, 0, out,
                                     err)
                     : -1;
  if (!out->path) hg_error_set(err, "%s: out of memory", path);
  free(text.s);
  if (rc) hg_commands_free(out);
  return rc;
}

int hg_command_parse(const hg_scene *s, const char *text, const char *const *joints, int njoints,
                     hg_command *out, hg_error *err) {
  hg_command_list l = {0};
  memset(out, 0, sizeof *out);
  if (strchr(text, '\n')) return hg_error_set(err, "command: one command, one line"), -1;
  if (read_commands(s, text, strlen(text), "command", 0, joints, njoints, &l, err)) return -1;
  *out = l.cmd[0];
  out->src.file = NULL; /* "command" is no file */
  free(l.cmd);
  return 0;
}
