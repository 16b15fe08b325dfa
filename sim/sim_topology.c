/* sim_topology.c: run-time topology changes of a simulation (topology.h on the scene's builder):
 * recompile, map the state, carry joint modes and profiles across by joint name, and keep the
 * changes so that a resumed run can replay them. */
#include <stdlib.h>
#include <string.h>

#include "sim_internal.h"
#include "topology.h"

/* ---- the replay list ---- */

int hg_sim_push_topo(hg_sim *s, const hg_topo_op *op) {
  if (hg_sim_grow((void **)&s->topo, s->ntopo, &s->captopo, sizeof *s->topo)) return -1;
  hg_topo_op *c = &s->topo[s->ntopo];
  *c = *op;
  c->body = hg_sim_strdup(op->body);
  c->parent = hg_sim_strdup(op->parent);
  c->joint = hg_sim_strdup(op->joint);
  if (!c->body || (op->parent && !c->parent) || (op->joint && !c->joint)) {
    hg_sim_free_topo(c);
    return -1;
  }
  s->ntopo++;
  return 0;
}

void hg_sim_free_topo(hg_topo_op *op) {
  free(op->body);
  free(op->parent);
  free(op->joint);
  op->body = op->parent = op->joint = NULL;
}

/* ---- topology changes ---- */

/* a joint's mode kept by name across a recompile */
typedef struct saved_mode {
  char *name;
  hg_joint_type type;
  uint8_t mode;
  hg_recipe recipe;
} saved_mode;

/* the modes of the joints that are not free */
static saved_mode *save_modes(const hg_sim *s, int *n) {
  const hg_model *m = s->m;
  saved_mode *sv = calloc((size_t)m->nbody, sizeof *sv);
  *n = 0;
  for (int i = 1; sv && i < m->nbody; i++) {
    if (s->d->mode[i] == HG_MODE_FREE) continue;
    sv[*n] = (saved_mode){hg_sim_strdup(m->jnt_name[i]), m->jnt[i].type, s->d->mode[i],
                          s->recipe[i]};
    (*n)++;
  }
  return sv;
}

/* modes back on the joints of the same name and type; 0 or -1 */
static int restore_modes(hg_sim *s, saved_mode *sv, int n) {
  int rc = 0;
  for (int k = 0; k < n; k++) {
    int i = sv[k].name ? hg_model_joint(s->m, sv[k].name) : -1;
    if (i > 0 && s->m->jnt[i].type == sv[k].type && !rc) {
      s->d->mode[i] = sv[k].mode;
      s->recipe[i] = sv[k].recipe;
      rc = hg_sim_build_profile(s, i);
    }
    free(sv[k].name);
  }
  free(sv);
  return rc;
}

/* the builder edit of an op */
static int edit_builder(hg_sim *s, const hg_topo_op *op, hg_error *err) {
  hg_builder *b = s->scene->builder;
  if (op->type == HG_ACTION_DETACH) return hg_topology_detach(b, op->body, err);
  if (op->type == HG_ACTION_ATTACH)
    return hg_topology_attach(b, op->parent, op->body, op->joint, &op->T, err);
  return hg_topology_remove(b, op->body, err);
}

/* the current state mapped onto m1 into fresh arrays; 0 or -1 with err */
static int map_state(hg_sim *s, const hg_model *m1, double **q1, double **v1, hg_error *err) {
  hg_data *d1 = hg_data_new(m1);
  *q1 = malloc(((size_t)m1->nq + 1) * sizeof(double));
  *v1 = malloc(((size_t)m1->nv + 1) * sizeof(double));
  int rc = !d1 || !*q1 || !*v1 ? -1 : 0;
  if (rc) snprintf(err->msg, sizeof err->msg, "out of memory");
  else rc = hg_topology_map_state(s->m, s->d, s->q, s->v, m1, d1, *q1, *v1, err);
  hg_data_free(d1);
  return rc;
}

int hg_sim_topology(hg_sim *s, const hg_topo_op *op, int with_state) {
  static const char *const what[] = {[HG_ACTION_DETACH] = "detach", [HG_ACTION_ATTACH] = "attach",
                                     [HG_ACTION_REMOVE] = "remove"};
  hg_error err;
  double *q1 = NULL, *v1 = NULL;
  hg_model *m1 = NULL;
  int nsv = 0, rc = edit_builder(s, op, &err);
  if (!rc) rc = !(m1 = hg_builder_compile(s->scene->builder, &err));
  if (!rc && with_state) rc = map_state(s, m1, &q1, &v1, &err);
  if (rc) {
    hg_model_free(m1);
    free(q1);
    free(v1);
    return hg_sim_fail(s, HG_SIM_ERR_NUMERIC, "t = %.17g: %s '%s': %s", s->t, what[op->type],
                       op->body, err.msg);
  }
  /* the new model, the modes by joint name, the mapped state, a new integrator */
  saved_mode *sv = save_modes(s, &nsv);
  rc = hg_sim_install_model(s, m1, &err);
  if (rc) hg_sim_fail(s, HG_SIM_ERR_NUMERIC, "t = %.17g: %s", s->t, err.msg);
  if (!rc && with_state) {
    memcpy(s->q, q1, (size_t)s->m->nq * sizeof(double));
    memcpy(s->v, v1, (size_t)s->m->nv * sizeof(double));
  }
  free(q1);
  free(v1);
  if (restore_modes(s, sv, rc ? 0 : nsv) || rc) return s->failed ? s->failed : HG_SIM_ERR_NUMERIC;
  if (hg_sim_push_topo(s, op)) return hg_sim_fail(s, HG_SIM_ERR_NUMERIC, "out of memory");
  return with_state && hg_sim_new_integrator(s) ? s->failed : HG_SIM_OK;
}
