/* cli.h: the subcommands of the hinge program and what they share.
 *
 * Each subcommand is a function int f(int argc, char **argv) with argv[0] its own name; it
 * returns the program's exit status. main.c dispatches on a table of them. */
#ifndef HINGE_CLI_H
#define HINGE_CLI_H

#include <stdio.h>

#include "model.h"

/* exit statuses */
enum {
  HG_EXIT_OK = 0,
  HG_EXIT_FAILURE = 1,  /* an output or system error */
  HG_EXIT_USAGE = 2,    /* bad usage, an unreadable or invalid model, a bad input line */
  HG_EXIT_SINGULAR = 3  /* a singular articulated inertia */
};

/* `hinge dynamics ...` (cli_dynamics.c) and its usage text */
int hg_cli_dynamics(int argc, char **argv);
void hg_cli_dynamics_usage(FILE *f);

/* `hinge render ...` and `hinge view ...` (cli_view.c) and their usage texts */
int hg_cli_render(int argc, char **argv);
void hg_cli_render_usage(FILE *f);
int hg_cli_view(int argc, char **argv);
void hg_cli_view_usage(FILE *f);

/* Loads a model file, choosing the reader by the file's extension (.urdf and .xml: URDF). With
 * floating != 0 the root hangs on a free joint. Notes go to stderr. NULL with err on failure. */
hg_model *hg_cli_load_model(const char *path, int floating, hg_error *err);

#endif
