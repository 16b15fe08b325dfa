/* cli_loops.c: a scene's loops compiled against a model (cli_loops.h). */
#include "cli_loops.h"

#include <stdlib.h>
#include <string.h>

int hg_cli_loops_build(const hg_scene *sc, const hg_model *m, hg_cli_loops *c, hg_error *err) {
  memset(c, 0, sizeof *c);
  if (sc->nloop == 0) return 0;
  hg_loop *def = calloc((size_t)sc->nloop, sizeof *def);
  c->active = calloc((size_t)sc->nloop, 1);
  c->spec = calloc((size_t)sc->nloop, sizeof *c->spec);
  if (!def || !c->active || !c->spec) {
    free(def);
    hg_error_set(err, "out of memory");
    return -1;
  }
  for (int k = 0; k < sc->nloop; k++) {
    int rc = hg_loop_spec_resolve(sc, &sc->loop[k], m, &def[c->n], err);
    if (rc < 0) return free(def), -1;
    if (rc) continue;
    c->spec[c->n] = &sc->loop[k];
    c->active[c->n] = (unsigned char)(sc->loop[k].active != 0);
    c->nactive += sc->loop[k].active != 0;
    c->n++;
  }
  if (c->n && !(c->L = hg_loops_new(m, def, c->n, err))) return free(def), -1;
  free(def);
  return 0;
}

void hg_cli_loops_free(hg_cli_loops *c) {
  hg_loops_free(c->L);
  free(c->active);
  free((void *)c->spec);
  memset(c, 0, sizeof *c);
}
