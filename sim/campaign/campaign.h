/* campaign.h: Monte Carlo campaigns: a scene run many times with dispersed values
 * (docs/montecarlo.md).
 *
 * hg_campaign_load reads a campaign file (YAML); hg_campaign_draw gives run k's values, which
 * depend only on (seed, k, parameter) (stream.h); hg_campaign_run makes runs on threads and
 * appends each finished one to a journal (campaign_run.c); hg_campaign_read_journal and
 * hg_campaign_write_results turn the journals into runs.csv and summary.txt
 * (campaign_results.c); hg_campaign_write_plots draws the metrics (campaign_plot.c). */
#ifndef HINGE_CAMPAIGN_H
#define HINGE_CAMPAIGN_H

#include <stdint.h>
#include <stdio.h>

#include "model.h"

/* how a parameter is drawn */
typedef enum { HG_DIST_NORMAL, HG_DIST_UNIFORM, HG_DIST_LIST, HG_DIST_ROTATION } hg_dist_kind;

/* A rotation is three dispersions (axis 0, 1, 2: the components of a rotation vector phi, in
 * degrees, each normal with standard deviation std); the run's orientation is R0 exp(phi), R0
 * the nominal one, written back in the scene's own form (quat, rpy or rpy_deg) at target. */
typedef struct hg_dispersion {
  char *path;          /* the scene value (hg_scene_override); a rotation's column name */
  hg_dist_kind kind;
  double nominal;      /* the scene's value */
  double mean, std;    /* normal (mean defaults to the nominal value) */
  double lo, hi;       /* normal: truncation (-inf, inf: none); uniform: the interval */
  int nlist;           /* list: values, drawn with equal probability */
  double *list;
  int axis;            /* rotation: which component */
  char *target;        /* rotation: the mapping that holds the orientation */
  char *opath[4];      /* rotation: the orientation's scalars (3 for rpy, rpy_deg; 4 for quat) */
  int nopath, degrees; /* their number; 1 for rpy_deg */
  double R0[9];        /* rotation: the nominal orientation */
} hg_dispersion;

/* what a run measures */
typedef enum {
  HG_METRIC_MIN_DISTANCE, /* smallest distance between two bodies' origins, sampled at outputs */
  HG_METRIC_EVENT_TIME,   /* time of the first event of that name (NaN: never) */
  HG_METRIC_EVENT_COUNT,  /* number of events of that name (captures: "capture") */
  HG_METRIC_FINAL_RATE,   /* |angular velocity| of a body at the end, deg/s */
  HG_METRIC_FINAL_SPEED,  /* |velocity| of a body's origin at the end, m/s */
  HG_METRIC_PEAK_LOAD,    /* largest |force| a joint transmits, sampled at outputs, N */
  HG_METRIC_ENERGY_DRIFT, /* the energy budget's relative drift */
  HG_METRIC_MIN_CLEARANCE,/* smallest signed distance between two bodies' collision geometry
                             (hg_sim_clearance), sampled at outputs, m */
  HG_METRIC_RATE,         /* |angular velocity| of a body where its window opens (after an event
                             and a delay: a tip-off rate), deg/s */
  HG_METRIC_POINTING      /* largest pointing error (truth) of an attitude_pd controller,
                             sampled at outputs, deg */
} hg_metric_kind;

typedef struct hg_metric {
  char *name;
  hg_metric_kind kind;
  char *a, *b;           /* bodies, event, or joint's body */
  char *after;           /* sampled metrics: only after the first event of this name (NULL: all) */
  double delay;          /* ... and delay seconds after it */
} hg_metric;

/* a failure condition: metric below or above a threshold (or NaN, or the run failed) */
typedef struct hg_failure {
  char *name;
  int metric;            /* index into metric */
  double below, above;   /* -inf / inf when not given */
} hg_failure;

/* a file a campaign was read from and the 64-bit FNV-1a hash of its bytes (scene.h) */
typedef struct hg_campaign_input {
  char *path;
  uint64_t hash;
} hg_campaign_input;

typedef struct hg_campaign {
  char *path, *scene;    /* the campaign file; its scene, resolved against the file's folder */
  char *scene_text;      /* the scene file's bytes, read once by hg_campaign_load: every run
                            parses these, so an edit of the file during the campaign reaches
                            no run */
  size_t scene_len;
  int ninput;            /* input[0] the campaign file, input[1] the scene, then the files the */
  hg_campaign_input *input; /* scene names; hashed when the campaign was loaded */
  int runs;
  uint64_t seed;
  double t_end;          /* NaN: the scene's */
  double max_wall;       /* wall-time limit of each run, s (0: the scene's time.max_wall) */
  int ndisp;     hg_dispersion *disp;
  int nmetric;   hg_metric *metric;
  int nfail;     hg_failure *fail;
} hg_campaign;

/* Reads a campaign file; NULL with err "file:line:column: what was expected". Every path is
 * checked against the scene (its nominal value read). */
hg_campaign *hg_campaign_load(const char *path, hg_error *err);
void hg_campaign_free(hg_campaign *c);

/* run k's values of every dispersion (ndisp) */
void hg_campaign_draw(const hg_campaign *c, int k, double *values);

/* The scene overrides of a run's values (ov: room for 2 ndisp + 1; paths borrowed from c): one
 * per value; for a rotation, the orientation R0 exp(phi) written as the scene wrote it. Returns
 * their number. */
struct hg_scene_override;
int hg_campaign_overrides(const hg_campaign *c, const double *values,
                          struct hg_scene_override *ov);

/* one run's result */
typedef struct hg_run_result {
  int run;
  int ok;              /* 0: the run failed (error) */
  char error[512];
  double wall;         /* s */
  double *param;       /* ndisp (the row owns it) */
  double *metric;      /* nmetric */
} hg_run_result;

/* Runs one run; out_dir non-NULL writes its full outputs there (hinge run's). Returns 0 and
 * fills r (r->param, r->metric allocated by the caller: ndisp and nmetric). */
int hg_campaign_run_one(const hg_campaign *c, int k, const char *out_dir, hg_run_result *r);

/* the most threads a campaign runs on (more would only contend for the cores) */
#define HG_CAMPAIGN_MAX_THREADS 1024
#define HG_CAMPAIGN_MAX_THREADS_TEXT "1024"

/* Runs the runs k in [0, runs) with k % stride == offset that have done[k] == 0, on nthreads
 * threads (at most HG_CAMPAIGN_MAX_THREADS), appending a line to journal (flushed and synced) as each one finishes. Returns the
 * number of runs made, or -1 with errno (the journal's first write error; a journal that is a
 * link: ELOOP). progress (may be NULL) gets a line per run. */
int hg_campaign_run(const hg_campaign *c, const unsigned char *done, int offset, int stride,
                    int nthreads, const char *journal, FILE *progress);

/* the most runs a campaign makes: runs.csv and the statistics hold every finished run's result
 * in memory (about 0.6 kB each with its values), so a campaign beyond this is an error, not a
 * machine running out of memory */
#define HG_CAMPAIGN_MAX_RUNS 1000000
#define HG_CAMPAIGN_MAX_RUNS_TEXT "1000000"

/* The results of a campaign's finished runs (campaign_store.c). done has one flag per run of the
 * campaign; r covers runs 0 to n - 1 only, grown (doubling) as results are stored, and r[k] is
 * valid where done[k]: a campaign with few runs finished holds few results whatever its
 * number of runs. r and done are what hg_campaign_write_results and _plots read. */
typedef struct hg_campaign_results {
  hg_run_result *r;     /* r[k]: run k's result (r[k].param owned, NULL until stored) */
  unsigned char *done;  /* c->runs flags: 1 when run k's result is in r */
  int n;                /* runs 0 .. n - 1 covered by r */
  int ndisp, nmetric;   /* each result's values: the campaign's */
} hg_campaign_results;

/* an empty store for c's runs (done allocated: c->runs bytes); 0 or -1 (out of memory) */
int hg_campaign_results_init(hg_campaign_results *res, const hg_campaign *c);
/* the slot of run k (0 <= k < c->runs), r grown to cover it and its values allocated; NULL when
 * out of memory. The caller fills it and sets done[k]. */
hg_run_result *hg_campaign_results_slot(hg_campaign_results *res, int k);
/* forgets every result (done cleared), keeping the memory */
void hg_campaign_results_clear(hg_campaign_results *res, const hg_campaign *c);
void hg_campaign_results_free(hg_campaign_results *res);

/* A journal starts with one line per input, "# input HASH PATH" (hg_campaign_run writes them
 * into a new journal; hg_campaign_read_journal skips them). hg_campaign_check_journal compares
 * them with c's inputs: 0 when they match or there is no journal yet, -1 with err "FILE: changed
 * since the journal was written (hash X, now Y); rerun without --resume" for an edited input,
 * and -1 for a journal of other files or of an older hinge (runs without those lines). */
int hg_campaign_check_journal(const hg_campaign *c, const char *journal, hg_error *err);

/* The files the campaign's runs read from disk (the scene's URDF files, meshes and controller
 * libraries: the campaign and scene files are read once) hashed again: 0 when each is as the
 * campaign found it, -1 with err "FILE: changed during the campaign (hash X, now Y) ..." */
int hg_campaign_check_inputs(const hg_campaign *c, hg_error *err);

/* A journal opened to be read: never through a link planted under its name (O_NOFOLLOW: ELOOP,
 * "Too many levels of symbolic links"), and a regular file. NULL with *absent = 1 when there is
 * none yet, NULL with err otherwise. */
FILE *hg_campaign_journal_open(const char *journal, int *absent, hg_error *err);
/* The next line of an open journal, bounded (HG_LINE_MAX, readfile.h); ln counts the lines.
 * Its length; -1 at the end; -2 (out of memory, a read error) or -3 (a line too long) with
 * err. */
long hg_campaign_journal_line(FILE *f, char **line, size_t *cap, const char *journal, int *ln,
                              hg_error *err);

/* Reads the journals' lines (each line one run) into res: a slot filled and done[k] set for each
 * run found. Returns the number found (not found before), or -1 with err. */
int hg_campaign_read_journal(const hg_campaign *c, const char *journal, hg_campaign_results *res,
                             hg_error *err);
/* runs.csv (sorted by run) and summary.txt into dir, each replaced whole (written to a
 * temporary name, renamed over it); 0, or -1 with err "cannot write PATH: REASON" (the first
 * failure; then no summary.txt is left) */
int hg_campaign_write_results(const hg_campaign *c, const hg_run_result *results,
                              const unsigned char *done, const char *dir, hg_error *err);
/* metric-NAME.png into dir for each metric: its histogram and its scatter against each
 * dispersed value (campaign_plot.c), each checked whole (hg_plot_end) and replaced; 0, or -1
 * with err "cannot write PATH: REASON" */
int hg_campaign_write_plots(const hg_campaign *c, const hg_run_result *results,
                            const unsigned char *done, const char *dir, hg_error *err);
/* campaign-id.txt into dir (the campaign's identity line id), replaced whole; 0, or -1 with
 * err "cannot write PATH: REASON" */
int hg_campaign_write_identity(const char *dir, const char *id, hg_error *err);
/* the journal line of a result (format shared by runs.csv rows) */
void hg_campaign_format_row(const hg_campaign *c, const hg_run_result *r, FILE *f);
void hg_campaign_format_header(const hg_campaign *c, FILE *f);

#endif
