/* jacobian.c: a wrench on one body mapped to joint forces, tau += J^T F (the transpose of the
 * body's Jacobian), in O(depth) on the kinematics in d. */
#include "dynamics.h"

void hg_jacobian_transpose(const hg_model *m, const hg_data *d, int i, const double F[6],
                           double *tau) {
  /* the wrench in the tree frame, where every motion subspace column of the path is expressed:
   * the power of joint DoF k moving body i is S_k^T F */
  double Fs[6];
  hg_coAd_inv(&d->T_tree[i], F, Fs);
  for (int j = i; j > 0; j = m->parent[j])
    for (int k = m->v_adr[j]; k < m->v_adr[j] + m->jnt_nv[j]; k++) tau[k] += hg_dot6(d->S[k], Fs);
}
