/* cli_loops.c: a scene's loops compiled against a model (cli_loops.h). */
#include "cli_loops.h"

#include <stdlib.h>
#include <string.h>

/* spec in the terms of m; 0, 1 when absent, -1 with err for a bad joint */
static int resolve(const hg_scene *sc, const hg_model *m, const hg_loop_spec *sp, hg_loop *out,
                   hg_error *err) {
  memset(out, 0, sizeof *out);
  if (sp->coupling) {
    out->kind = HG_LOOP_COUPLING;
    out->jnt[0] = hg_model_joint(m, sp->joint[0]);
    out->jnt[1] = hg_model_joint(m, sp->joint[1]);
    out->ratio = sp->ratio;
    out->offset = sp->offset;
    return out->jnt[0] > 0 && out->jnt[1] > 0 ? 0 : 1;
  }
  out->kind = HG_LOOP_JOINT;
  for (int s = 0; s < 2; s++) {
    const hg_marker *mk = hg_scene_marker(sc, sp->marker[s]);
    out->body[s] = mk ? hg_model_body(m, mk->body) : -1;
    if (out->body[s] < 0) return 1;
    out->M[s] = mk->pose;
  }
  if (out->body[0] == out->body[1]) return 1;
  const char *why = NULL;
  if (hg_joint_init(&out->joint, sp->type, sp->axis, sp->axis2, sp->pitch, &why)) {
    hg_error_set(err, "loop '%s': %s", sp->name, why ? why : "bad joint");
    return -1;
  }
  return 0;
}

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
    int rc = resolve(sc, m, &sc->loop[k], &def[c->n], err);
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
