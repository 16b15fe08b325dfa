/* cli.h: the subcommands of the hinge program and what they share.
 *
 * Each subcommand is a function int f(int argc, char **argv) with argv[0] its own name; it
 * returns the program's exit status. main.c dispatches on a table of them. */
#ifndef HINGE_CLI_H
#define HINGE_CLI_H

#include <signal.h>
#include <stdio.h>

#include "model.h"
#include "urdf.h"

/* exit statuses */
enum {
  HG_EXIT_OK = 0,
  HG_EXIT_FAILURE = 1,  /* an output or system error */
  HG_EXIT_USAGE = 2,    /* bad usage, an unreadable or invalid model, a bad input line */
  HG_EXIT_SINGULAR = 3, /* a singular articulated inertia */
  HG_EXIT_WALL = 4      /* hinge run stopped by its wall-time limit (after a signal: 128 + its
                           number, as a shell reports a process killed by it) */
};

/* `hinge dynamics ...` (cli_dynamics.c) and its usage text */
int hg_cli_dynamics(int argc, char **argv);
void hg_cli_dynamics_usage(FILE *f);

/* the derivative actions of `hinge dynamics` (cli_derivatives.c): one input line's numbers in
 * (q, then v and vdot, tau or the hybrid input), the matrices out; 0 or -1 with d->err */
struct hg_deriv;
int hg_cli_did(const hg_model *m, hg_data *d, struct hg_deriv *w, const double *in, double *out);
int hg_cli_dfd(const hg_model *m, hg_data *d, struct hg_deriv *w, const double *in, double *out);
int hg_cli_minv(const hg_model *m, hg_data *d, struct hg_deriv *w, const double *in, double *out);
int hg_cli_dhybrid(const hg_model *m, hg_data *d, struct hg_deriv *w, const double *in,
                   double *out);
/* the second-order actions: d2id (q v vdot -> d2tau/dq2 d2tau/dv2 d2tau/dqdv dM/dq) and d2fd
 * (q v tau -> d2vdot/dq2 d2vdot/dv2 d2vdot/dqdv d2vdot/dqdtau), each nv^3 numbers; d2id-sum and
 * d2fd-sum (the same inputs, then weights lam) their sums over the output, each nv^2 numbers */
struct hg_deriv2;
int hg_cli_d2id(const hg_model *m, hg_data *d, struct hg_deriv2 *w, const double *in,
                double *out);
int hg_cli_d2fd(const hg_model *m, hg_data *d, struct hg_deriv2 *w, const double *in,
                double *out);
int hg_cli_d2id_sum(const hg_model *m, hg_data *d, struct hg_deriv2 *w, const double *in,
                    double *out);
int hg_cli_d2fd_sum(const hg_model *m, hg_data *d, struct hg_deriv2 *w, const double *in,
                    double *out);
void hg_cli_derivatives_usage(FILE *f);

/* `hinge linearize ...` (cli_linearize.c) and its usage text; its plot (cli_linearize_plot.c):
 * 0, or -1 when the file cannot be written. names[a] names state a (a < L->nf: the dq part, as
 * modes_undamped.csv's columns), the mode shapes' axis. */
struct hg_linear;
int hg_cli_linearize(int argc, char **argv);
void hg_cli_linearize_usage(FILE *f);
int hg_cli_linearize_plot(const char *path, const hg_model *m, const struct hg_linear *L, int n,
                          const double *re, const double *im, const double *w2,
                          const double *Phi, const char *const *names);

/* Loads a model file, choosing the reader by the file's extension (.urdf and .xml: URDF, read
 * with opt; a scene uses opt's floating and notes only). NULL with err on failure. */
hg_model *hg_cli_load_model(const char *path, const hg_urdf_options *opt, hg_error *err);

/* `hinge run ...` (cli_run.c) and its usage text */
int hg_cli_run(int argc, char **argv);
void hg_cli_run_usage(FILE *f);

/* `hinge render ...` and `hinge view ...` (cli_view.c) and their usage texts */
int hg_cli_render(int argc, char **argv);
void hg_cli_render_usage(FILE *f);
int hg_cli_view(int argc, char **argv);
void hg_cli_view_usage(FILE *f);

/* Prints "hinge CMD: " and the printf-style message (one %s for arg), then the command's usage
 * text; returns the usage exit status. One error path for every command's options. */
int hg_cli_usage_error(const char *cmd, void (*usage)(FILE *), const char *fmt, const char *arg);

/* *x = the number s holds: all of s, finite; 0, or -1 when s is not such a number */
int hg_cli_number(const char *s, double *x);

/* The signal (SIGINT or SIGTERM) that asked the command to stop, 0 while none has. After
 * hg_cli_catch_stop_signals the first of them only sets it, and the command stops at its next
 * safe point (hinge run: the integrator's step, with a checkpoint; hinge dynamics: the end of
 * an input line), says so and exits with 128 + the signal, as a shell reports a process killed
 * by it; a second one acts as it would without hinge (the handler resets itself), so that a
 * command that does not stop can still be killed. */
extern volatile sig_atomic_t hg_cli_stop_signal;
void hg_cli_catch_stop_signals(void);

/* mkdir -p: path and its missing parents; 0, or -1 with errno */
int hg_cli_make_dirs(const char *path);

/* the default output folder of an input file: out/<its name without the extension> */
void hg_cli_default_out(const char *path, char *out, size_t len);

/* `hinge mc ...` (cli_mc.c): Monte Carlo campaigns, and its usage text */
int hg_cli_mc(int argc, char **argv);
void hg_cli_mc_usage(FILE *f);

#endif
