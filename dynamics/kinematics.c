/* kinematics.c: the forward walk every algorithm starts from: poses, motion subspaces, twists. */
#include "dynamics.h"

void hg_kinematics(const hg_model *m, hg_data *d, const double *q, const double *v) {
  for (int i = 1; i < m->nbody; i++) {
    const hg_joint *j = &m->jnt[i];
    const double *qi = q + m->q_adr[i];
    int p = m->parent[i], va = m->v_adr[i], nv = m->jnt_nv[i];
    hg_se3 Tj;

    /* T_{p,i} = T_offset T_joint(q), T_{0,i} = T_{0,p} T_{p,i}, S_i(q) */
    hg_joint_transform(j, qi, &Tj);
    hg_se3_mul(&m->jnt_offset[i], &Tj, &d->T_rel[i]);
    hg_se3_mul(&d->T_world[p], &d->T_rel[i], &d->T_world[i]);
    hg_joint_motion(j, qi, d->S[va]);
    if (!v) continue;

    /* V_i = Ad_{T_{p,i}^-1} V_p + S_i v_i */
    double vj[6] = {0, 0, 0, 0, 0, 0};
    for (int k = 0; k < nv; k++)
      for (int r = 0; r < 6; r++) vj[r] += d->S[va + k][r] * v[va + k];
    hg_Ad_inv(&d->T_rel[i], d->V[p], d->V[i]);
    for (int r = 0; r < 6; r++) d->V[i][r] += vj[r];

    /* c_i = ad_{V_i} (S_i v_i) + Sdot_i v_i */
    double sd[6];
    hg_ad(d->V[i], vj, d->c[i]);
    if (j->type == HG_JOINT_UNIVERSAL || j->type == HG_JOINT_PLANAR) {
      hg_joint_bias(j, qi, v + va, sd);
      for (int r = 0; r < 6; r++) d->c[i][r] += sd[r];
    }
  }
}
