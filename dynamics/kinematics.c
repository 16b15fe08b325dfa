/* kinematics.c: the forward walk every algorithm starts from (poses, motion subspaces, spatial
 * velocities and inertias in each tree's frame), and body-frame views of its results. */
#include "dynamics.h"

void hg_kinematics(const hg_model *m, hg_data *d, const double *q, const double *v) {
  for (int i = 1; i < m->nbody; i++) {
    const hg_joint *j = &m->jnt[i];
    const double *qi = q + m->q_adr[i];
    int p = m->parent[i], va = m->v_adr[i], nv = m->jnt_nv[i];
    hg_se3 Tj, *Tt = &d->T_tree[i];
    double Sb[6 * HG_JOINT_MAXNV];

    /* T_{p,i} = T_offset T_joint(q); T_tree = T_tree,p T_{p,i} (a root: its rotation, origin 0);
     * T_{0,i} = T_tree moved by the root's origin */
    hg_joint_transform(j, qi, &Tj);
    if (m->offset_pure[i]) {
      d->T_rel[i] = Tj;
      for (int r = 0; r < 3; r++) d->T_rel[i].p[r] += m->jnt_offset[i].p[r];
    } else {
      hg_se3_mul(&m->jnt_offset[i], &Tj, &d->T_rel[i]);
    }
    if (m->has_post[i]) hg_se3_mul(&d->T_rel[i], &m->jnt_post[i], &d->T_rel[i]);
    if (p) {
      hg_se3_mul(&d->T_tree[p], &d->T_rel[i], Tt);
    } else {
      *Tt = d->T_rel[i];
      Tt->p[0] = Tt->p[1] = Tt->p[2] = 0;
    }
    d->T_world[i] = *Tt;
    for (int r = 0; r < 3; r++) d->T_world[i].p[r] += d->T_rel[m->root[i]].p[r];

    /* S_i in the tree frame (a post-offset moves it from the joint frame first), body inertia in
     * the tree frame */
    hg_se3 Tjf;
    const hg_se3 *Ts = Tt;
    if (m->has_post[i]) {
      hg_se3 Pi;
      hg_se3_inv(&m->jnt_post[i], &Pi);
      hg_se3_mul(Tt, &Pi, &Tjf);
      Ts = &Tjf;
    }
    hg_joint_motion(j, qi, Sb);
    for (int k = 0; k < nv; k++) hg_Ad(Ts, Sb + 6 * k, d->S[va + k]);
    hg_inertia_transform(Tt, &m->inertia[i], &d->I[i]);
    if (!v) continue;

    /* V_i = V_p + S_i v_i (the world's V_0 = 0) */
    double vj[6] = {0, 0, 0, 0, 0, 0};
    for (int k = 0; k < nv; k++)
      for (int r = 0; r < 6; r++) vj[r] += d->S[va + k][r] * v[va + k];
    for (int r = 0; r < 6; r++) d->V[i][r] = (p ? d->V[p][r] : 0) + vj[r];

    /* c_i = d/dt (S_i) v_i = ad_{V_i} (S_i v_i) + Ad_T (Sdot_body v_i) */
    hg_ad(d->V[i], vj, d->c[i]);
    if (j->type == HG_JOINT_UNIVERSAL || j->type == HG_JOINT_PLANAR) {
      double sb[6], ss[6];
      hg_joint_bias(j, qi, v + va, sb);
      hg_Ad(Ts, sb, ss);
      for (int r = 0; r < 6; r++) d->c[i][r] += ss[r];
    }
  }
}

void hg_body_twist(const hg_model *m, const hg_data *d, int i, double V[6]) {
  (void)m;
  hg_Ad_inv(&d->T_tree[i], d->V[i], V);
}

void hg_body_acceleration(const hg_model *m, const hg_data *d, int i, double A[6]) {
  (void)m;
  hg_Ad_inv(&d->T_tree[i], d->a[i], A);
}

void hg_joint_wrench(const hg_model *m, const hg_data *d, int i, double F[6]) {
  (void)m;
  hg_coAd(&d->T_tree[i], d->F[i], F);
}
