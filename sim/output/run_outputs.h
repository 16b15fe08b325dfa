/* run_outputs.h: one run's output files (hg_outputs: the folder, the columns, the series the
 * plots draw) and the functions that output.c, summary.c, plot.c and progress.c share; not a
 * public header. */
#ifndef HINGE_RUN_OUTPUTS_H
#define HINGE_RUN_OUTPUTS_H

#include <stdio.h>
#include <string.h>

#include "outfile.h"
#include "output.h"

/* the trajectory columns of one body of the scene and its joint (output.c) */
typedef struct hg_col {
  char *body;             /* the body's name */
  char *joint, *parent;   /* its joint in the scene, and the body that joint hangs it from */
  hg_joint_type type;     /* the joint's type in the scene */
  int nq, nv;             /* widths of its q, v and load columns */
} hg_col;

/* A series for the plots, bounded: at most HG_SERIES_ROWS rows whatever the length of the run
 * (hg_series_push). Column 0 is the time. Until the run has that many output rows, each row is
 * kept as it is (stride 1); then the rows are taken in buckets of stride output rows (4, 8, 16
 * ...: the stride doubles each time the rows reach the bound again), each bucket kept as two
 * rows: the largest of each value at the bucket's first time, then the smallest at its last.
 * Lines through them cover every value's range over each bucket (min/max-preserving
 * decimation: a spike stays visible), and with at least HG_SERIES_ROWS / 4 buckets across a
 * 1000-pixel plot a bucket is under a pixel wide. NaN (a missing value) counts only when the
 * whole bucket is missing. An exact series (exact 1) keeps every row it is given. */
#define HG_SERIES_ROWS 8192
typedef struct hg_series {
  int n, cap, width;      /* rows kept, allocated rows, numbers per row (0: nothing kept) */
  double *x;              /* n x width */
  int exact;              /* every row kept (the zoom panels' rows) */
  long stride;            /* output rows per bucket (1: every row as it is) */
  long pending;           /* output rows in the last bucket so far (0: closed) */
} hg_series;
/* appends one output row of s->width numbers (out_common.c); 0, or -1 out of memory */
int hg_series_push(hg_series *s, const double *row);
/* row r of s */
static inline double *hg_series_row(const hg_series *s, int r) {
  return s->x + (size_t)r * (size_t)s->width;
}

/* the clearance of one output pair over the run (output.c, for the summary) */
typedef struct hg_pair_clearance {
  long rows;              /* output rows where both bodies had collision shapes */
  double min, t_min;      /* the smallest clearance and its time */
  int apart;              /* the clearance has been > 0 (a separation began) */
  double t_apart;         /* the first such row */
  double min_apart, t_min_apart; /* the smallest clearance from then on, and its time */
  long recontacts;        /* rows at or below zero after that (touching or overlapping again) */
  double t_recontact;     /* the first of them */
} hg_pair_clearance;

/* a joint's velocity or effort limit over the run (output.c, for the summary): by name */
typedef struct hg_limit_record {
  char *joint;
  int effort;             /* 1: the effort limit, 0: the velocity limit */
  double limit;           /* N m or N, rad/s or m/s */
  long rows;              /* output rows beyond it */
  double worst, t_worst;  /* the largest |load| or |v| beyond it, and its time */
} hg_limit_record;

/* one closed loop of the run over the output rows (loop_out.c, for the summary): by its index
 * among hg_sim_nloop (the scene's loops, then those an attach made) */
typedef struct hg_loop_record {
  long present_rows;      /* output rows where its bodies (joints) were in the simulation */
  long closed_rows;       /* rows where it was closed */
  double max_distance, max_angle, max_speed; /* largest violations while closed: m (coupling: m
                                                or rad), rad, |G v| */
  double t_max;           /* the time of the largest of max_distance and max_angle */
  double max_force, max_moment; /* largest |force| (N; coupling: |force or torque|) and |moment|
                                   (N m) while closed */
} hg_loop_record;

/* control in the loop: its files, series and records (control_out.c) */
typedef struct hg_ctl_out hg_ctl_out;

typedef struct hg_outputs {
  hg_output_options opt;
  char *dir;                       /* opt.dir, owned */
  hg_outfile file[3];              /* trajectory.csv, joints.csv, events.csv (outfile.h) */
  FILE *traj, *joints, *events;    /* their streams (file[k].f) */
  int plot;                        /* the plots will be drawn: the series below are kept */
  int werr;                        /* errno of the first failed write of any file (0: none);
                                      msg then says which file and why */
  int ncol;  hg_col *col;          /* per body of the scene (present at the start, then absent) */
  long rows;                       /* trajectory rows written */
  /* plots: time, energies (kinetic, potential+element, total, budget drift), momentum (6),
   * separations (3 per pair: distance, speed, clearance), loads (per load column) */
  hg_series energy, momentum, pair, load;
  /* the zoom panels of separation.png: the pair rows, exact, within zoom_w of each event (at
   * most HG_OUT_MAXEVENTS windows); recent: the exact rows of the last zoom_w seconds */
  hg_series zoom, recent;
  double zoom_w, zoom_until;       /* the window (hg_plot_zoom_length), the end of the last */
  int nzoom;                       /* windows opened */
  int nload;                       /* load columns (sum of col[].nv) */
  unsigned char *load_used;        /* nload: the column was not free at some output */
  double *row_load, *row_pair;     /* one row of the load and pair series */
  hg_pair_clearance *clear;        /* per output pair */
  int nlimit, caplimit;            /* limits exceeded at some output row */
  hg_limit_record *limit;
  /* closed loops: the scene's loops have trajectory columns and plot lines (loop_out.c); every
   * loop of the run (attach-made too) has a record */
  int nloopcol;                    /* the scene's loops */
  int nloop, caploop;              /* records */
  hg_loop_record *loop;
  hg_series loopser;               /* time, then |force| and |moment| per scene loop (NaN open) */
  double *row_loop;                /* one row of loopser */
  hg_ctl_out *ctl;                 /* actuators, sensors, controllers (NULL: the scene has none) */
  double progress_wall;            /* wall time of the last progress update (progress.c) */
  int finished;                    /* summary and plots written, files closed */
  char msg[4200];                  /* the message of a failure */
} hg_outputs;

/* a file name in the output folder (output.c, plot.c and summary.c each name their files) */
static inline void hg_out_path(const hg_outputs *o, const char *name, char *path, size_t len) {
  const char *dir = o->dir ? o->dir : ".";
  size_t n = strlen(dir);
  snprintf(path, len, "%s%s%s", dir, n && dir[n - 1] == '/' ? "" : "/", name);
}
/* Checks file f after writes (hg_outfile_check); the first failure of the run's files goes to
 * o->werr and o->msg ("cannot write PATH: REASON"). 0, or -1 when f has failed (out_common.c). */
int hg_out_check(hg_outputs *o, hg_outfile *f);
/* closes f (hg_outfile_close) with the same record of its failure; 0 or -1 (out_common.c) */
int hg_out_close(hg_outputs *o, hg_outfile *f);
/* summary.txt at path, written to a temporary name and renamed over it when whole (summary.c);
 * its status says "failed: disk full (MESSAGE)" or "failed: MESSAGE" when o->werr is set. On
 * a failure, nothing is left under path (an older summary.txt there is removed too): 0 or -1,
 * the failure recorded as hg_out_check does. */
int hg_out_summary(hg_outputs *o, hg_sim *sim, const char *path);
/* the run's events for the plots' markers (plot_events.c): events at one instant (a release and a
 * command at the same event time) are one marker named "a, b"; at most HG_OUT_MAXEVENTS */
#define HG_OUT_MAXEVENTS 256
typedef struct hg_run_events {
  int n;
  double t[HG_OUT_MAXEVENTS];
  const char *names[HG_OUT_MAXEVENTS]; /* into name */
  char name[HG_OUT_MAXEVENTS][64];
} hg_run_events;
void hg_out_events(hg_sim *sim, hg_run_events *ev);
/* the PNG plots (plot.c); the number written, -1 on an error (recorded in o->werr and o->msg
 * by hg_out_plot_end) */
int hg_plot_all(hg_outputs *o, hg_sim *sim);
/* ends a plot's page (hg_plot_end) and records its failure in o->werr and o->msg; 1 (a page
 * written) or -1 (out_common.c) */
int hg_out_plot_end(hg_outputs *o);
/* closed loops (loop_out.c): the series and header columns of the scene's loops (0 or -1),
 * one row's loop blocks with the records of every loop (0 or -1, out of memory), and
 * summary.txt's closed_loops lines (nothing when the run has no loops) */
int hg_out_loops_init(hg_outputs *o, hg_sim *sim);
void hg_out_loops_header(const hg_outputs *o, hg_sim *sim, FILE *f);
int hg_out_loops_row(hg_outputs *o, hg_sim *sim, FILE *f);
void hg_out_loops_summary(const hg_outputs *o, hg_sim *sim, FILE *f);
void hg_out_loops_free(hg_outputs *o);
/* control in the loop (control_out.c): opens actuators.csv, sensors.csv and controllers.csv
 * with their headers when the scene has such devices (0, or -1 with o->msg); the observer's
 * sample (a sensors.csv row when a sensor sampled now; NULL or the message); one output row of
 * actuators.csv and controllers.csv (0, or -1 with o->msg); control.png (1 written, 0 nothing
 * to draw, -1); summary.txt's control lines (nothing without devices); closing the files (0 or
 * -1); freeing */
int hg_out_control_init(hg_outputs *o, hg_sim *sim);
const char *hg_out_control_sample(hg_outputs *o, hg_sim *sim);
int hg_out_control_row(hg_outputs *o, hg_sim *sim);
int hg_out_control_plot(hg_outputs *o, hg_sim *sim);
void hg_out_control_summary(const hg_outputs *o, hg_sim *sim, FILE *f);
int hg_out_control_close(hg_outputs *o);
void hg_out_control_free(hg_outputs *o);
/* the progress bar (progress.c): an observer's progress callback on an hg_outputs */
void hg_out_progress(void *user, hg_sim *sim, int final);

#endif
