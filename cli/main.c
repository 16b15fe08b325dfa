/* main.c: the hinge program: dispatch to a subcommand, --help and --version. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

#ifndef HINGE_VERSION
#define HINGE_VERSION "unknown"
#endif

/* the subcommands, in the order of the README's table; a new one (run, view, ...) is one more
 * row: its name, its entry and usage, its synopsis (what follows "hinge NAME") and summary */
static const struct {
  const char *name;
  int (*run)(int argc, char **argv);
  void (*usage)(FILE *f);
  const char *synopsis, *summary;
} hg_commands[] = {
    {"run", hg_cli_run, hg_cli_run_usage, "[SCENE]",
     "run a scene: its trajectory, events and plots"},
    {"view", hg_cli_view, hg_cli_view_usage, "SCENE",
     "open the interactive viewer on a scene, paused"},
    {"render", hg_cli_render, hg_cli_render_usage, "SCENE --out DIR",
     "render a scene offscreen to PNG frames and MP4"},
    {"dynamics", hg_cli_dynamics, hg_cli_dynamics_usage, "MODEL|SCENE ACTION",
     "the dynamics of a URDF model or a scene, states on stdin"},
    {"linearize", hg_cli_linearize, hg_cli_linearize_usage, "SCENE",
     "linearize a scene: A, B and the modes"},
    {"mc", hg_cli_mc, hg_cli_mc_usage, "CAMPAIGN",
     "a Monte Carlo campaign: a scene with dispersed values"},
};
#define HG_NCOMMANDS ((int)(sizeof hg_commands / sizeof hg_commands[0]))

/* the synopsis of every subcommand, then each one's usage */
static void usage(FILE *f) {
  fprintf(f, "usage: hinge COMMAND [ARGS...]\n"
             "       hinge --help | --version\n\ncommands:\n");
  for (int k = 0; k < HG_NCOMMANDS; k++) {
    char line[48];
    snprintf(line, sizeof line, "hinge %s %s", hg_commands[k].name, hg_commands[k].synopsis);
    fprintf(f, "  %-33s  %s\n", line, hg_commands[k].summary);
  }
  for (int k = 0; k < HG_NCOMMANDS; k++) {
    fputc('\n', f);
    hg_commands[k].usage(f);
  }
}

int main(int argc, char **argv) {
  if (argc < 2) {
    usage(stderr);
    return HG_EXIT_USAGE;
  }
  if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
    usage(stdout);
    return HG_EXIT_OK;
  }
  if (strcmp(argv[1], "--version") == 0) {
    printf("hinge %s\n", HINGE_VERSION);
    return HG_EXIT_OK;
  }
  for (int k = 0; k < HG_NCOMMANDS; k++)
    if (strcmp(argv[1], hg_commands[k].name) == 0) return hg_commands[k].run(argc - 1, argv + 1);
  fprintf(stderr, "hinge: unknown command '%s' (try hinge --help)\n", argv[1]);
  return HG_EXIT_USAGE;
}
