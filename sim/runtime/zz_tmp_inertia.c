#include "model.h"
int hg_model_set_body_inertia(hg_model *m, int body, const hg_inertia *I);
int hg_model_set_body_inertia(hg_model *m, int body, const hg_inertia *I) {
  if (body < 1 || body >= m->nbody) return -1;
  m->inertia[body] = *I;
  hg_inertia_to_c(I, &m->inertia_c[body]);
  return 0;
}
