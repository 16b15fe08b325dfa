/* rnea.c: recursive Newton-Euler inverse dynamics (J. Kim, "Lie Group Formulation of Articulated
 * Rigid Body Dynamics", Table 2), in each tree's frame. */
#include "dynamics.h"
#include "lanes.h"

HG_HOT void hg_rnea_opt(const hg_model *m, hg_data *d, const hg_pass_options *opt, const double *q,
                        const double *v, const double *qdd, const double *fext, double *tau) {
  hg_kinematics_opt(m, d, opt, q, v);
  double *a0 = d->a[0];
  a0[0] = a0[1] = a0[2] = 0;
  for (int r = 0; r < 3; r++) a0[3 + r] = -m->gravity[r];

  /* the arrays, read once (the stores below could otherwise alias the structs' pointers) */
  const int *v_adr = m->v_adr, *jnt_nv = m->jnt_nv, *parent = m->parent;
  hg_vec6 *Sv = d->S, *Cv = d->c, *Vg = d->Vg;
  const hg_inertia *In = d->I;
  const double *xi = d->xi;
  hg_vec6 *Av = d->a, *Fv = d->F;
  int nbody = m->nbody;

  /* forward, in each tree's Galilean frame (model.h): a_i = a_p + c_i + S_i qdd_i (a root
   * adds xi to its qdd);  F_i = I_i a_i - ad*_{V_i} I_i V_i - fext_i */
  hg_v4 a03 = {0, 0, 0, 0}, a25 = a03; /* a_i as a[0..3], a[2..5]; a_{i-1} at the loop's top */
  for (int i = 1; i < nbody; i++) {
    int va = v_adr[i], nv = jnt_nv[i], p = parent[i];
    const double *ap = Av[p], *ci = Cv[i], *Vi = Vg[i];
    double *a = Av[i], *F = Fv[i];
    if (nv == 1 && p) {
      /* the common case: one DoF below another body (in a chain, the one before, whose a is
       * still in registers) */
      const double *S = Sv[va];
      double qk = qdd[va];
      if (p != i - 1) a03 = HG_LD4(ap), a25 = HG_LD4(ap + 2);
      a03 += HG_LD4(ci) + HG_LD4(S) * qk;
      a25 += HG_LD4(ci + 2) + HG_LD4(S + 2) * qk;
    } else {
      double x[6];
      for (int r = 0; r < 6; r++) x[r] = ap[r] + ci[r];
      for (int k = 0; k < nv; k++) {
        const double *S = Sv[va + k], qk = p ? qdd[va + k] : qdd[va + k] + xi[va + k];
        for (int r = 0; r < 6; r++) x[r] += S[r] * qk;
      }
      a03 = HG_LD4(x), a25 = HG_LD4(x + 2);
    }
    HG_ST4(a, a03), HG_ST4(a + 2, a25);
    hg_v4 V03 = HG_LD4(Vi), V25 = HG_LD4(Vi + 2), av = HG_SHUF(a25, 1, 2, 3, 3), vv = HG_SHUF(V25, 1, 2, 3, 3);
    hg_lane3_body_wrench(&In[i], &a03, &av, &V03, &vv, F);
    if (fext) {
      double f[6];
      hg_coAd_inv(&d->T_tree[i], fext + 6 * i, f);
      for (int r = 0; r < 6; r++) F[r] -= f[r];
    }
  }

  /* backward: tau_i = S_i^T F_i;  F_p += F_i (one frame per tree), F as F[0..3] and F[4..5].
   * When the parent is the next body down (a chain) its share rides in registers (c03, c45)
   * instead of through memory, so the walk waits on an add, not on a store and its reload */
  hg_v4 c03 = {0, 0, 0, 0};
  hg_v2 c45 = {0, 0};
  for (int i = nbody - 1; i > 0; i--) {
    int va = v_adr[i], nv = jnt_nv[i], p = parent[i];
    double *F = Fv[i];
    hg_v4 f03 = HG_LD4(F) + c03;
    hg_v2 f45 = HG_LD2(F + 4) + c45;
    HG_ST4(F, f03), HG_ST2(F + 4, f45);
    if (nv == 1) tau[va] = hg_lane3_dot6(Sv[va], &f03, &f45);
    else
      for (int k = 0; k < nv; k++) tau[va + k] = hg_lane3_dot6(Sv[va + k], &f03, &f45);
    if (p == i - 1) {
      c03 = f03, c45 = f45;
    } else {
      c03 = (hg_v4){0, 0, 0, 0}, c45 = (hg_v2){0, 0};
      if (p > 0) {
        double *Fp = Fv[p];
        HG_ST4(Fp, HG_LD4(Fp) + f03);
        HG_ST2(Fp + 4, HG_LD2(Fp + 4) + f45);
      }
    }
  }
  /* tau_k += armature_k qdd_k: the rotors' share (model.h; the Galilean xi of a root is a
   * frame's, not the joint's: the real qdd is the one the rotor sees) */
  if (m->has_armature)
    for (int k = 0; k < m->nv; k++) tau[k] += m->armature[k] * qdd[k];
}

void hg_rnea(const hg_model *m, hg_data *d, const double *q, const double *v, const double *qdd,
             const double *fext, double *tau) {
  hg_rnea_opt(m, d, NULL, q, v, qdd, fext, tau);
}

void hg_bias(const hg_model *m, hg_data *d, const double *q, const double *v, const double *fext,
             double *b) {
  /* b = RNEA(q, v, 0): d->u serves as the zero acceleration (it is only scratch here) */
  for (int k = 0; k < m->nv; k++) d->u[k] = 0;
  hg_rnea(m, d, q, v, d->u, fext, b);
}
