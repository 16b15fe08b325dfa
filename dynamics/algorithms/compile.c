/* compile.c: the model compiler (dynamics.h): a model is assembled on the multibody floor, then
 * checked here with the algorithms it will run. */
#include <stdlib.h>

#include "dynamics.h"

hg_model *hg_builder_compile(const hg_builder *b, hg_error *err) {
  hg_model *m = hg_builder_assemble(b, err);
  if (!m || hg_builder_allows_singular(b)) return m;
  /* a massless leaf (or any subtree without inertia along a joint's motion) makes the
   * articulated inertia singular: try the neutral configuration once */
  hg_data *d = hg_data_new(m);
  double *q = malloc(((size_t)m->nq + 1) * sizeof(double));
  double *z = calloc((size_t)m->nv + 1, sizeof(double));
  double *out = calloc((size_t)m->nv + 1, sizeof(double));
  int rc = -1;
  if (d && q && z && out) {
    hg_model_neutral(m, q);
    rc = hg_aba(m, d, q, z, z, NULL, out);
    if (rc) hg_error_set(err, "%s", d->err);
  } else {
    hg_error_set(err, "out of memory");
  }
  hg_data_free(d);
  free(q);
  free(z);
  free(out);
  if (rc) {
    hg_model_free(m);
    m = NULL;
  }
  return m;
}
