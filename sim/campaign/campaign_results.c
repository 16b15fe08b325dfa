/* campaign_results.c: the journal of finished runs, runs.csv and summary.txt (campaign.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "campaign.h"
#include "outfile.h"

/* ---- rows ---- */

/* the names are the campaign file's: quoted as RFC 4180 says when they hold a comma, a quote or
 * a line break (hg_csv_field) */
void hg_campaign_format_header(const hg_campaign *c, FILE *f) {
  fprintf(f, "run,status");
  for (int j = 0; j < c->ndisp; j++) hg_csv_field(f, 1, "%s", c->disp[j].path);
  for (int j = 0; j < c->nmetric; j++) hg_csv_field(f, 1, "%s", c->metric[j].name);
  fprintf(f, ",error\n");
}

/* run,status,values...,metrics...,"error" (the error last, quotes doubled, one line) */
void hg_campaign_format_row(const hg_campaign *c, const hg_run_result *r, FILE *f) {
  fprintf(f, "%d,%s", r->run, r->ok ? "ok" : "failed");
  for (int j = 0; j < c->ndisp; j++) fprintf(f, ",%.17g", r->param[j]);
  for (int j = 0; j < c->nmetric; j++) fprintf(f, ",%.17g", r->metric[j]);
  fputs(",\"", f);
  for (const char *s = r->error; *s; s++) {
    if (*s == '"') fputc('"', f);
    fputc(*s == '\n' || *s == '\r' ? ' ' : *s, f);
  }
  fputs("\"\n", f);
}

/* one journal line into r; 0, or -1 when the line is incomplete (a run cut short by a crash) */
static int parse_row(const hg_campaign *c, char *line, hg_run_result *r) {
  char *p = line, *end;
  long k = strtol(p, &end, 10);
  if (end == p || *end != ',' || k < 0 || k >= c->runs) return -1;
  r->run = (int)k;
  p = end + 1;
  if (!strncmp(p, "ok,", 3)) r->ok = 1, p += 3;
  else if (!strncmp(p, "failed,", 7)) r->ok = 0, p += 7;
  else return -1;
  for (int j = 0; j < c->ndisp + c->nmetric; j++) {
    double x = strtod(p, &end);
    if (end == p || *end != ',') return -1;
    *(j < c->ndisp ? &r->param[j] : &r->metric[j - c->ndisp]) = x;
    p = end + 1;
  }
  size_t n = strlen(p);
  while (n && (p[n - 1] == '\n' || p[n - 1] == '\r')) p[--n] = 0;
  if (n < 2 || p[0] != '"' || p[n - 1] != '"') return -1;
  size_t o = 0;
  for (size_t i = 1; i + 1 < n && o + 1 < sizeof r->error; i++) {
    if (p[i] == '"' && p[i + 1] == '"') i++;
    r->error[o++] = p[i];
  }
  r->error[o] = 0;
  return 0;
}

int hg_campaign_read_journal(const hg_campaign *c, const char *journal, hg_campaign_results *res,
                             hg_error *err) {
  int absent, ln = 0;
  FILE *f = hg_campaign_journal_open(journal, &absent, err);
  if (!f) return absent ? 0 : -1; /* no journal yet: nothing done */
  size_t cap = 0;
  char *line = NULL;
  int found = 0;
  long n;
  hg_run_result r;
  double *buf = malloc(sizeof(double) * (size_t)(c->ndisp + c->nmetric + 1));
  if (!buf) {
    fclose(f);
    return hg_error_set(err, "out of memory"), -1;
  }
  r.param = buf, r.metric = buf + c->ndisp;
  while ((n = hg_campaign_journal_line(f, &line, &cap, journal, &ln, err)) != -1) {
    if (n < -1) {
      found = -1;
      break;
    }
    if (parse_row(c, line, &r)) continue; /* a line cut by a crash: that run is made again */
    hg_run_result *dst = hg_campaign_results_slot(res, r.run);
    if (!dst) {
      found = -1;
      hg_error_set(err, "out of memory");
      break;
    }
    if (!res->done[r.run]) found++;
    res->done[r.run] = 1;
    dst->run = r.run, dst->ok = r.ok, dst->wall = 0;
    memcpy(dst->error, r.error, sizeof r.error);
    memcpy(dst->param, r.param, sizeof(double) * (size_t)c->ndisp);
    memcpy(dst->metric, r.metric, sizeof(double) * (size_t)c->nmetric);
  }
  free(line);
  free(buf);
  fclose(f);
  return found;
}

/* ---- statistics ---- */

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* the p-quantile of n sorted values, linearly interpolated (Hyndman and Fan's type 7) */
static double quantile(const double *x, int n, double p) {
  double h = (n - 1) * p;
  int i = (int)floor(h);
  return i + 1 < n ? x[i] + (h - i) * (x[i + 1] - x[i]) : x[n - 1];
}

/* Wilson score interval of a proportion (z = 1.96: 95 %) */
static void wilson(int k, int n, double *lo, double *hi) {
  const double z = 1.959963984540054;
  double p = (double)k / n, z2 = z * z / n;
  double centre = (p + z2 / 2) / (1 + z2);
  double half = z * sqrt(p * (1 - p) / n + z * z / (4.0 * n * n)) / (1 + z2);
  *lo = k == 0 ? 0 : fmax(0, centre - half), *hi = k == n ? 1 : fmin(1, centre + half);
}

/* the statistics of one column over the finished runs that have a value */
static void column_stats(FILE *f, const char *name, const hg_run_result *res,
                         const unsigned char *done, int runs, int col, int is_metric,
                         double *scratch) {
  int n = 0, imin = -1, imax = -1;
  double sum = 0;
  for (int k = 0; k < runs; k++) {
    if (!done[k] || (is_metric && !res[k].ok)) continue;
    double x = is_metric ? res[k].metric[col] : res[k].param[col];
    if (isnan(x)) continue;
    scratch[n++] = x;
    sum += x;
    if (imin < 0 || x < (is_metric ? res[imin].metric[col] : res[imin].param[col])) imin = k;
    if (imax < 0 || x > (is_metric ? res[imax].metric[col] : res[imax].param[col])) imax = k;
  }
  if (n == 0) {
    fprintf(f, "  %-28s no values\n", name);
    return;
  }
  double mean = sum / n, ss = 0;
  for (int i = 0; i < n; i++) ss += (scratch[i] - mean) * (scratch[i] - mean);
  qsort(scratch, (size_t)n, sizeof(double), cmp_double);
  fprintf(f,
          "  %-28s n %d  mean %.6g  std %.6g  min %.6g (run %d)  p5 %.6g  p50 %.6g  p95 %.6g"
          "  max %.6g (run %d)\n",
          name, n, mean, n > 1 ? sqrt(ss / (n - 1)) : 0.0, scratch[0], imin,
          quantile(scratch, n, 0.05), quantile(scratch, n, 0.5), quantile(scratch, n, 0.95),
          scratch[n - 1], imax);
}

static int write_summary(const hg_campaign *c, const hg_run_result *res,
                         const unsigned char *done, FILE *f) {
  double *scratch = malloc(sizeof(double) * (size_t)c->runs);
  if (!scratch) return -1;
  int n = 0, nok = 0;
  for (int k = 0; k < c->runs; k++) n += done[k], nok += done[k] && res[k].ok;
  fprintf(f, "campaign %s\nscene %s\nseed %llu\nruns %d of %d finished, %d ok, %d failed\n",
          c->path, c->scene, (unsigned long long)c->seed, n, c->runs, nok, n - nok);
  for (int k = 0; k < c->runs; k++)
    if (done[k] && !res[k].ok) fprintf(f, "  run %d failed: %s\n", k, res[k].error);
  fprintf(f, "\ndispersed values (sample statistics):\n");
  for (int j = 0; j < c->ndisp; j++)
    column_stats(f, c->disp[j].path, res, done, c->runs, j, 0, scratch);
  fprintf(f, "\nmetrics (runs that finished):\n");
  for (int j = 0; j < c->nmetric; j++)
    column_stats(f, c->metric[j].name, res, done, c->runs, j, 1, scratch);
  fprintf(f, "\nfailure conditions (probability over finished runs, 95%% Wilson interval;\n"
             "a failed run or a missing value counts as a failure):\n");
  for (int j = 0; j < c->nfail; j++) {
    const hg_failure *fl = &c->fail[j];
    int hits = 0;
    for (int k = 0; k < c->runs; k++) {
      if (!done[k]) continue;
      double x = res[k].metric[fl->metric];
      hits += !res[k].ok || isnan(x) || x < fl->below || x > fl->above;
    }
    double lo = 0, hi = 1;
    if (n > 0) wilson(hits, n, &lo, &hi);
    fprintf(f, "  %-28s %d of %d  p = %.4g  [%.4g, %.4g]\n", fl->name, hits, n,
            n > 0 ? (double)hits / n : 0.0, lo, hi);
  }
  free(scratch);
  return 0;
}

/* Each file goes to a temporary name beside it and is renamed over it when whole (outfile.h):
 * a link planted under its name is replaced, never written through, and a failed write (a full
 * disk) leaves the older file or none, never a part. runs.csv first, summary.txt last: a
 * summary.txt that is there describes a runs.csv that is whole. */
int hg_campaign_write_results(const hg_campaign *c, const hg_run_result *results,
                              const unsigned char *done, const char *dir, hg_error *err) {
  char path[4200];
  hg_outfile out;
  snprintf(path, sizeof path, "%s/runs.csv", dir);
  if (hg_outfile_replace(&out, path)) goto failed;
  hg_campaign_format_header(c, out.f);
  for (int k = 0; k < c->runs && !hg_outfile_check(&out); k++)
    if (done[k]) hg_campaign_format_row(c, &results[k], out.f);
  if (hg_outfile_close(&out)) goto failed;
  snprintf(path, sizeof path, "%s/summary.txt", dir);
  if (hg_outfile_replace(&out, path)) goto failed;
  if (write_summary(c, results, done, out.f)) {
    hg_outfile_discard(&out);
    return hg_error_fail(err, "out of memory");
  }
  if (!hg_outfile_close(&out)) return 0;
failed:;
  char msg[sizeof err->msg];
  hg_outfile_message(&out, msg, sizeof msg);
  /* a summary.txt of an earlier call would claim results that are not all there */
  snprintf(path, sizeof path, "%s/summary.txt", dir);
  remove(path);
  return hg_error_fail(err, "%s", msg);
}

int hg_campaign_write_identity(const char *dir, const char *id, hg_error *err) {
  char path[4200], msg[sizeof err->msg];
  hg_outfile out;
  snprintf(path, sizeof path, "%s/campaign-id.txt", dir);
  if (!hg_outfile_replace(&out, path)) {
    fputs(id, out.f);
    if (!hg_outfile_close(&out)) return 0;
  }
  hg_outfile_message(&out, msg, sizeof msg);
  return hg_error_fail(err, "%s", msg);
}
