/* energy.c: kinetic and potential energy, total momentum and centre of mass. */
#include "dynamics.h"

void hg_energy(const hg_model *m, hg_data *d, const double *q, const double *v, double *kinetic,
               double *potential) {
  hg_kinematics(m, d, q, v);
  double ke = 0, pe = 0;
  for (int i = 1; i < m->nbody; i++) {
    const hg_inertia *G = &m->inertia[i];
    const hg_se3 *T = &d->T_world[i];
    double h[6], mc[3];
    /* T = V^T I V / 2 (tree frame);  U = -g . (m c_world) with m c_world = R h_body + m p */
    hg_inertia_mulv(&d->I[i], d->V[i], h);
    ke += 0.5 * hg_dot6(d->V[i], h);
    hg_m3_mulv(T->R, G->h, mc);
    for (int r = 0; r < 3; r++) pe -= m->gravity[r] * (mc[r] + G->m * T->p[r]);
  }
  /* T += armature v^2 / 2: the rotors' (model.h) */
  if (m->has_armature)
    for (int k = 0; k < m->nv; k++) ke += 0.5 * m->armature[k] * v[k] * v[k];
  *kinetic = ke;
  *potential = pe;
}

/* the bodies' momentum only: the armature model neglects the rotors' own momentum (and their
 * gyroscopic torque), as MuJoCo's and Pinocchio's do (model.h) */
void hg_momentum(const hg_model *m, hg_data *d, const double *q, const double *v, double h[6]) {
  hg_kinematics(m, d, q, v);
  for (int r = 0; r < 6; r++) h[r] = 0;
  for (int i = 1; i < m->nbody; i++) {
    /* momentum I V about the tree's root, moved to the world origin like a wrench */
    const double *p0 = d->T_world[m->root[i]].p;
    double hb[6];
    hg_inertia_mulv(&d->I[i], d->V[i], hb);
    hg_v3_cross_add(p0, hb + 3, hb);
    for (int r = 0; r < 6; r++) h[r] += hb[r];
  }
}

double hg_center_of_mass(const hg_model *m, hg_data *d, const double *q, double com[3]) {
  hg_kinematics(m, d, q, NULL);
  double mass = 0, s[3] = {0, 0, 0};
  for (int i = 1; i < m->nbody; i++) {
    const hg_inertia *G = &m->inertia[i];
    const hg_se3 *T = &d->T_world[i];
    double mc[3];
    hg_m3_mulv(T->R, G->h, mc);
    for (int r = 0; r < 3; r++) s[r] += mc[r] + G->m * T->p[r];
    mass += G->m;
  }
  for (int r = 0; r < 3; r++) com[r] = mass > 0 ? s[r] / mass : 0;
  return mass;
}
