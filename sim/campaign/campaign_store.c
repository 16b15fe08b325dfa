/* campaign_store.c: the results of a campaign's finished runs, held as they are read from the
 * journals, and the check of the inputs a journal was written from (campaign.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "campaign.h"
#include "grow.h"
#include "readfile.h"
#include "scene.h"

FILE *hg_campaign_journal_open(const char *journal, int *absent, hg_error *err) {
  *absent = 0;
  int fd = open(journal, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    if (errno == ENOENT) return *absent = 1, NULL;
    return hg_error_set(err, "%s: %s", journal, strerror(errno)), NULL;
  }
  struct stat st;
  if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
    close(fd);
    return hg_error_set(err, "%s: not a regular file", journal), NULL;
  }
  FILE *f = fdopen(fd, "r");
  if (!f) close(fd), hg_error_set(err, "%s: %s", journal, strerror(errno));
  return f;
}

long hg_campaign_journal_line(FILE *f, char **line, size_t *cap, const char *journal, int *ln,
                              hg_error *err) {
  long n = hg_file_getline(line, cap, f, HG_LINE_MAX);
  ++*ln;
  if (n == -2) hg_error_set(err, "out of memory");
  else if (n == -3)
    hg_error_set(err, "%s:%d: a line longer than %zu bytes: not a journal of hinge", journal, *ln,
                 (size_t)HG_LINE_MAX);
  else if (n == -1 && ferror(f)) n = -2, hg_error_set(err, "%s: cannot read", journal);
  return n;
}

int hg_campaign_results_init(hg_campaign_results *res, const hg_campaign *c) {
  memset(res, 0, sizeof *res);
  res->ndisp = c->ndisp, res->nmetric = c->nmetric;
  res->done = calloc((size_t)c->runs, 1);
  return res->done ? 0 : -1;
}

hg_run_result *hg_campaign_results_slot(hg_campaign_results *res, int k) {
  /* cover runs n .. k, doubling: the reallocations stay logarithmic in the runs read */
  while (k >= res->n) {
    void *arr = res->r;
    int n = res->n, cap = res->n;
    if (hg_grow(&arr, n, &cap, 64, sizeof *res->r)) return NULL;
    res->r = arr;
    memset(res->r + n, 0, (size_t)(cap - n) * sizeof *res->r);
    res->n = cap;
  }
  hg_run_result *r = &res->r[k];
  if (!r->param) {
    if (!(r->param = calloc((size_t)(res->ndisp + res->nmetric) + 1, sizeof(double))))
      return NULL;
    r->metric = r->param + res->ndisp;
  }
  return r;
}

void hg_campaign_results_clear(hg_campaign_results *res, const hg_campaign *c) {
  memset(res->done, 0, (size_t)c->runs);
}

void hg_campaign_results_free(hg_campaign_results *res) {
  for (int k = 0; k < res->n; k++) free(res->r[k].param);
  free(res->r);
  free(res->done);
  memset(res, 0, sizeof *res);
}

/* ---- the inputs a journal was written from ---- */

/* the file name of a path */
static const char *base_name(const char *path) {
  const char *b = strrchr(path, '/');
  return b ? b + 1 : path;
}

int hg_campaign_check_journal(const hg_campaign *c, const char *journal, hg_error *err) {
  int absent, ln = 0;
  FILE *f = hg_campaign_journal_open(journal, &absent, err);
  if (!f) return absent ? 0 : -1; /* no journal yet: nothing to continue */
  char *line = NULL;
  size_t cap = 0;
  int k = 0, rows = 0, rc = 0;
  long n;
  while (rc == 0 && (n = hg_campaign_journal_line(f, &line, &cap, journal, &ln, err)) != -1) {
    if (n < -1) {
      rc = -1;
      break;
    }
    unsigned long long was;
    int at = 0;
    if (sscanf(line, "# input %llx %n", &was, &at) != 1 || at == 0) {
      rows += line[0] != '#' && line[0] != '\n';
      continue;
    }
    line[strcspn(line, "\n")] = 0;
    const char *path = line + at;
    if (k >= c->ninput || strcmp(base_name(path), base_name(c->input[k].path)) != 0) {
      hg_error_set(err, "%.300s: the campaign was read from other files than this journal "
                        "(%.300s); rerun without --resume",
                   k < c->ninput ? c->input[k].path : c->path, path);
      rc = -1;
    } else if (was != c->input[k].hash) {
      hg_error_set(err, "%.400s: changed since the journal was written (hash %016llx, now "
                        "%016llx); rerun without --resume",
                   c->input[k].path, was, (unsigned long long)c->input[k].hash);
      rc = -1;
    }
    k++;
  }
  free(line);
  fclose(f);
  if (rc == 0 && k == 0 && rows > 0) {
    hg_error_set(err, "%.400s: written by an older hinge, without the hashes of the campaign's "
                      "files; rerun without --resume", journal);
    rc = -1;
  } else if (rc == 0 && k > 0 && k != c->ninput) {
    hg_error_set(err, "%.400s: the campaign was read from other files than this journal (%d "
                      "now, %d then); rerun without --resume", c->path, c->ninput, k);
    rc = -1;
  }
  return rc;
}

int hg_campaign_check_inputs(const hg_campaign *c, hg_error *err) {
  for (int k = 2; k < c->ninput; k++) {
    uint64_t now = 0;
    hg_error ignored;
    if (hg_hash_file(c->input[k].path, &now, &ignored)) now = 0; /* as hg_scene_hash_inputs */
    if (now != c->input[k].hash) {
      hg_error_set(err, "%.400s: changed during the campaign (hash %016llx, now %016llx): the "
                        "runs made after the edit read the new file; run the campaign again",
                   c->input[k].path, (unsigned long long)c->input[k].hash,
                   (unsigned long long)now);
      return -1;
    }
  }
  return 0;
}
