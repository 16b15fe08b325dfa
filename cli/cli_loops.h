/* cli_loops.h: the closed loops of a scene compiled against a simulation's model, for the
 * commands that work on a scene's state outside the run (cid of `hinge dynamics`, `hinge
 * linearize`). */
#ifndef HINGE_CLI_LOOPS_H
#define HINGE_CLI_LOOPS_H

#include "loops.h"
#include "scene.h"

typedef struct hg_cli_loops {
  hg_loops *L;            /* NULL: no loop of the scene is present */
  int n;                  /* compiled loops (the present ones, in the scene's order) */
  int nactive;            /* of them closed at the start */
  unsigned char *active;  /* n: closed at the start */
  const hg_loop_spec **spec; /* n: the scene's loop of each */
} hg_cli_loops;

/* Compiles the scene's loops whose bodies (joints) are in m, as the runtime does at the start
 * (sim_loops.c). 0, or -1 with err. */
int hg_cli_loops_build(const hg_scene *sc, const hg_model *m, hg_cli_loops *c, hg_error *err);
void hg_cli_loops_free(hg_cli_loops *c);

#endif
