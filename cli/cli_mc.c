/* cli_mc.c: `hinge mc CAMPAIGN [options]`: a Monte Carlo campaign (campaign.h), on the threads of
 * one machine or on the ranks of an MPI job (mc_mpi.c). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "campaign.h"
#include "cli.h"
#include "mc_mpi.h"

typedef struct mc_args {
  const char *campaign, *out;
  long runs, seed, only, threads;
  int resume, quiet, no_plots, help;
} mc_args;

void hg_cli_mc_usage(FILE *f) {
  fprintf(f,
          "usage: hinge mc CAMPAIGN [--runs N] [--seed S] [--out DIR] [--threads T]\n"
          "                [--resume] [--only K] [--no-plots] [--quiet]\n"
          "       mpirun -n P hinge mc CAMPAIGN [...]\n"
          "\n"
          "Runs a Monte Carlo campaign (YAML, docs/montecarlo.md): its scene run many times with\n"
          "dispersed values. Run K's values depend only on the seed and K, whatever the number\n"
          "of threads or ranks. Writes into DIR:\n"
          "  runs.csv        per run: its values, its metrics, ok or failed and the error\n"
          "  summary.txt     statistics of the values and metrics (mean, std, percentiles, min\n"
          "                  and max with their runs), probabilities of the failure conditions\n"
          "                  with 95%% intervals\n"
          "  metric-NAME.png per metric: its histogram and its scatter against each\n"
          "                  dispersed value\n"
          "  journal*.csv    the runs as they finish (what --resume reads)\n"
          "options:\n"
          "  --runs N        number of runs (default: the campaign's)\n"
          "  --seed S        master seed, an integer >= 0 (default: the campaign's)\n"
          "  --out DIR       output folder (default: out/<campaign name>/)\n"
          "  --threads T     threads per process (default: the cores of the machine; under\n"
          "                  mpirun: 1 per rank)\n"
          "  --resume        keep the runs DIR's journal holds and make only the missing ones\n"
          "  --only K        make run K alone and write its full outputs (hinge run's) into\n"
          "                  DIR/run-K/\n"
          "  --no-plots      skip the PNG plots\n"
          "  --quiet         no line per finished run\n"
          "exit status: 0 every run finished (failed runs are results, listed in summary.txt),\n"
          "             1 an output error, 2 bad usage or an invalid campaign or scene\n");
}

static int usage_error(const char *fmt, const char *arg) {
  return hg_cli_usage_error("mc", hg_cli_mc_usage, fmt, arg);
}

/* a non-negative integer option */
static int int_option(int argc, char **argv, int *i, long *x) {
  const char *name = argv[*i];
  if (*i + 1 >= argc) return usage_error("%s needs a value", name);
  const char *v = argv[++*i];
  char *end;
  errno = 0;
  *x = strtol(v, &end, 10);
  if (!*v || *end || errno || *x < 0) return usage_error("'%s' is not an integer >= 0", v);
  return 0;
}

static int parse_args(int argc, char **argv, mc_args *a) {
  memset(a, 0, sizeof *a);
  a->runs = a->seed = a->only = a->threads = -1;
  for (int i = 1; i < argc; i++) {
    const char *s = argv[i];
    int rc = 0;
    if (!strcmp(s, "--help") || !strcmp(s, "-h")) a->help = 1;
    else if (!strcmp(s, "--resume")) a->resume = 1;
    else if (!strcmp(s, "--quiet")) a->quiet = 1;
    else if (!strcmp(s, "--no-plots")) a->no_plots = 1;
    else if (!strcmp(s, "--runs")) rc = int_option(argc, argv, &i, &a->runs);
    else if (!strcmp(s, "--seed")) rc = int_option(argc, argv, &i, &a->seed);
    else if (!strcmp(s, "--only")) rc = int_option(argc, argv, &i, &a->only);
    else if (!strcmp(s, "--threads")) rc = int_option(argc, argv, &i, &a->threads);
    else if (!strcmp(s, "--out")) {
      if (i + 1 >= argc) return usage_error("%s needs a value", s);
      a->out = argv[++i];
    } else if (s[0] == '-' && s[1]) return usage_error("unknown option '%s'", s);
    else if (!a->campaign) a->campaign = s;
    else return usage_error("unexpected argument '%s'", s);
    if (rc) return rc;
  }
  if (a->runs == 0 || a->runs > HG_CAMPAIGN_MAX_RUNS)
    return usage_error("--runs must be from 1 to %s (every finished run's result is held in "
                       "memory for runs.csv and the statistics)", HG_CAMPAIGN_MAX_RUNS_TEXT);
  if (a->threads == 0) return usage_error("%s", "--threads must be >= 1");
  if (a->threads > HG_CAMPAIGN_MAX_THREADS)
    return usage_error("--threads must be at most %s", HG_CAMPAIGN_MAX_THREADS_TEXT);
  if (!a->help && !a->campaign) return usage_error("%s", "a campaign file is needed");
  return 0;
}

/* run K alone with its full outputs */
static int only_run(const hg_campaign *c, long k, const char *out) {
  char dir[4200];
  if (k >= c->runs) {
    fprintf(stderr, "hinge mc: --only %ld: the campaign has runs 0 to %d\n", k, c->runs - 1);
    return HG_EXIT_USAGE;
  }
  snprintf(dir, sizeof dir, "%s/run-%ld", out, k);
  if (hg_cli_make_dirs(dir)) {
    fprintf(stderr, "hinge mc: cannot create %s: %s\n", dir, strerror(errno));
    return HG_EXIT_FAILURE;
  }
  double *buf = calloc((size_t)(c->ndisp + c->nmetric + 1), sizeof(double));
  if (!buf) return HG_EXIT_FAILURE;
  hg_run_result r = {.param = buf, .metric = buf + c->ndisp};
  hg_campaign_run_one(c, (int)k, dir, &r);
  hg_campaign_format_header(c, stdout);
  hg_campaign_format_row(c, &r, stdout);
  printf("outputs of run %ld in %s/\n", k, dir);
  free(buf);
  return HG_EXIT_OK;
}

/* the journal of rank r */
static void journal_path(const char *out, int rank, char *path, size_t len) {
  if (rank == 0) snprintf(path, len, "%s/journal.csv", out);
  else snprintf(path, len, "%s/journal-%d.csv", out, rank);
}

/* the identity of a campaign's results: a resume must continue the same campaign */
static int check_identity(const hg_campaign *c, const char *out, int resume) {
  char path[4200], want[256], have[256] = "";
  snprintf(path, sizeof path, "%s/campaign-id.txt", out);
  snprintf(want, sizeof want, "seed %llu runs %d values %d metrics %d\n",
           (unsigned long long)c->seed, c->runs, c->ndisp, c->nmetric);
  FILE *f = fopen(path, "r");
  if (f) {
    if (!fgets(have, sizeof have, f)) have[0] = 0;
    fclose(f);
  }
  if (resume && f && strcmp(have, want)) {
    fprintf(stderr, "hinge mc: --resume: %s holds another campaign (%.*s), not %.*s\n", out,
            (int)strcspn(have, "\n"), have, (int)strcspn(want, "\n"), want);
    return HG_EXIT_USAGE;
  }
  /* replaced whole, never written through a link (hg_campaign_write_identity) */
  hg_error err;
  if (hg_campaign_write_identity(out, want, &err)) {
    fprintf(stderr, "hinge mc: %s\n", err.msg);
    return HG_EXIT_FAILURE;
  }
  return 0;
}

/* every rank's journal into results (check: first their inputs against c's, for a resume); the
 * number of runs found, or -1 */
static int gather(const hg_campaign *c, const char *out, int nrank, hg_campaign_results *res,
                  int check) {
  char path[4200];
  hg_error err;
  int found = 0;
  for (int r = 0; r < nrank || r < 1024; r++) {
    journal_path(out, r, path, sizeof path);
    if (r >= nrank && access(path, F_OK)) break; /* journals of a resume with more ranks */
    if (check && hg_campaign_check_journal(c, path, &err))
      return fprintf(stderr, "hinge mc: --resume: %s\n", err.msg), -2;
    int n = hg_campaign_read_journal(c, path, res, &err);
    if (n < 0) return fprintf(stderr, "hinge mc: %s\n", err.msg), -1;
    found += n;
  }
  return found;
}

/* runs the campaign on this process's share; the exit status */
static int campaign(const hg_campaign *c, const mc_args *a, const char *out) {
  int rank = hg_mc_mpi_rank(), nrank = hg_mc_mpi_size(), status = HG_EXIT_OK;
  hg_error err;
  char path[4200];
  /* the finished runs' results, held as the journals are read (not one per run up front) */
  hg_campaign_results res;
  if (hg_campaign_results_init(&res, c)) {
    hg_campaign_results_free(&res);
    return fprintf(stderr, "hinge mc: out of memory\n"), HG_EXIT_FAILURE;
  }
  unsigned char *done = res.done;
  /* rank 0 prepares the folder: the identity and, on a fresh start, no old journals */
  if (rank == 0) {
    status = check_identity(c, out, a->resume);
    for (int r = 0; !status && !a->resume && r < 1024; r++) {
      journal_path(out, r, path, sizeof path);
      if (remove(path) && errno == ENOENT && r >= nrank) break;
    }
  }
  status = hg_mc_mpi_bcast_status(status);
  int before = 0;
  if (!status && a->resume && (before = gather(c, out, nrank, &res, 1)) < 0)
    status = before == -2 ? HG_EXIT_USAGE : HG_EXIT_FAILURE;
  if (!status) {
    long threads = a->threads > 0 ? a->threads : nrank > 1 ? 1 : sysconf(_SC_NPROCESSORS_ONLN);
    journal_path(out, rank, path, sizeof path);
    int made = hg_campaign_run(c, done, rank, nrank, (int)(threads > 0 ? threads : 1), path,
                               a->quiet ? NULL : stderr);
    if (made < 0) {
      fprintf(stderr, "hinge mc: cannot write %s: %s\n", path, strerror(errno));
      status = HG_EXIT_FAILURE;
    }
  }
  status = hg_mc_mpi_reduce_status(status);
  if (!status && rank == 0) {
    hg_campaign_results_clear(&res, c);
    int n = gather(c, out, nrank, &res, 0);
    if (n < 0) {
      status = HG_EXIT_FAILURE;
    } else if (hg_campaign_write_results(c, res.r, done, out, &err) ||
               (!a->no_plots && hg_campaign_write_plots(c, res.r, done, out, &err))) {
      /* the first write that failed: its file and why (a full disk: no space left) */
      fprintf(stderr, "hinge mc: %s\n", err.msg);
      status = HG_EXIT_FAILURE;
    } else if (hg_campaign_check_inputs(c, &err)) {
      /* the results are written, but some runs read an edited file */
      fprintf(stderr, "hinge mc: %s\n", err.msg);
      status = HG_EXIT_FAILURE;
    } else if (!a->quiet) {
      int nok = 0;
      for (int k = 0; k < c->runs; k++) nok += done[k] && res.r[k].ok;
      printf("%d runs (%d kept from before), %d ok, %d failed; results in %s/runs.csv and "
             "%s/summary.txt\n", n, before, nok, n - nok, out, out);
    }
  }
  hg_campaign_results_free(&res);
  return status;
}

int hg_cli_mc(int argc, char **argv) {
  mc_args a;
  hg_error err;
  char out[4096];
  int status = parse_args(argc, argv, &a);
  if (status) return status;
  if (a.help) return hg_cli_mc_usage(stdout), HG_EXIT_OK;
  hg_mc_mpi_init(&argc, &argv);
  hg_campaign *c = hg_campaign_load(a.campaign, &err);
  if (!c) {
    if (hg_mc_mpi_rank() == 0) fprintf(stderr, "hinge: %s\n", err.msg);
    hg_mc_mpi_finalize();
    return HG_EXIT_USAGE;
  }
  if (a.runs > 0) c->runs = (int)a.runs; /* at most HG_CAMPAIGN_MAX_RUNS (parse_args) */
  if (a.seed >= 0) c->seed = (uint64_t)a.seed;
  if (a.out) snprintf(out, sizeof out, "%s", a.out);
  else hg_cli_default_out(a.campaign, out, sizeof out);
  if (hg_mc_mpi_rank() == 0 && hg_cli_make_dirs(out)) {
    fprintf(stderr, "hinge mc: cannot create the output folder %s: %s\n", out, strerror(errno));
    status = HG_EXIT_FAILURE;
  }
  status = hg_mc_mpi_bcast_status(status);
  /* --only: rank 0 makes the run (the other ranks of an mpirun have nothing to do) */
  if (!status && a.only >= 0) status = hg_mc_mpi_rank() == 0 ? only_run(c, a.only, out) : 0;
  else if (!status) status = campaign(c, &a, out);
  hg_campaign_free(c);
  hg_mc_mpi_finalize();
  return status;
}
