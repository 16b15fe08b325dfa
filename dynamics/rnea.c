/* rnea.c: recursive Newton-Euler inverse dynamics (seed 002 Table 2), in each tree's frame. */
#include "dynamics.h"

/* F = G a - ad*_V (G V) - fe for one body (tree frame): the momentum G V = (L, P) with
 * L = I_o w + h x v and P = m v - h x w, then F = (I_o a_w + h x a_v + w x L + v x P,
 * m a_v - h x a_w + w x P) with the inertia's ten numbers loaded once for both products */
static inline void body_wrench(const hg_inertia *G, const double a[6], const double V[6],
                               double F[6]) {
  const double *I = G->I, *h = G->h, m = G->m;
  double I0 = I[0], I1 = I[1], I2 = I[2], I3 = I[3], I4 = I[4], I5 = I[5];
  double h0 = h[0], h1 = h[1], h2 = h[2];
  double w0 = V[0], w1 = V[1], w2 = V[2], v0 = V[3], v1 = V[4], v2 = V[5];
  double L0 = I0 * w0 + I3 * w1 + I4 * w2 + h1 * v2 - h2 * v1;
  double L1 = I3 * w0 + I1 * w1 + I5 * w2 + h2 * v0 - h0 * v2;
  double L2 = I4 * w0 + I5 * w1 + I2 * w2 + h0 * v1 - h1 * v0;
  double P0 = m * v0 - (h1 * w2 - h2 * w1);
  double P1 = m * v1 - (h2 * w0 - h0 * w2);
  double P2 = m * v2 - (h0 * w1 - h1 * w0);
  double x0 = a[0], x1 = a[1], x2 = a[2], y0 = a[3], y1 = a[4], y2 = a[5];
  double F0 = I0 * x0 + I3 * x1 + I4 * x2 + h1 * y2 - h2 * y1;
  double F1 = I3 * x0 + I1 * x1 + I5 * x2 + h2 * y0 - h0 * y2;
  double F2 = I4 * x0 + I5 * x1 + I2 * x2 + h0 * y1 - h1 * y0;
  double F3 = m * y0 - (h1 * x2 - h2 * x1);
  double F4 = m * y1 - (h2 * x0 - h0 * x2);
  double F5 = m * y2 - (h0 * x1 - h1 * x0);
  F[0] = F0 + (w1 * L2 - w2 * L1) + (v1 * P2 - v2 * P1);
  F[1] = F1 + (w2 * L0 - w0 * L2) + (v2 * P0 - v0 * P2);
  F[2] = F2 + (w0 * L1 - w1 * L0) + (v0 * P1 - v1 * P0);
  F[3] = F3 + (w1 * P2 - w2 * P1);
  F[4] = F4 + (w2 * P0 - w0 * P2);
  F[5] = F5 + (w0 * P1 - w1 * P0);
}

HG_HOT void hg_rnea(const hg_model *m, hg_data *d, const double *q, const double *v, const double *qdd,
             const double *fext, double *tau) {
  hg_kinematics(m, d, q, v);
  double *a0 = d->a[0];
  a0[0] = a0[1] = a0[2] = 0;
  for (int r = 0; r < 3; r++) a0[3 + r] = -m->gravity[r];

  /* forward, in each tree's Galilean frame (model.h): a_i = a_p + c_i + S_i qdd_i (a root
   * adds xi to its qdd);  F_i = I_i a_i - ad*_{V_i} I_i V_i - fext_i */
  for (int i = 1; i < m->nbody; i++) {
    int va = m->v_adr[i], nv = m->jnt_nv[i], p = m->parent[i];
    const double *ap = d->a[p], *ci = d->c[i];
    double *a = d->a[i], *F = d->F[i];
    if (nv == 1 && p) {
      /* the common case: one DoF below another body */
      const double *S = d->S[va];
      double qk = qdd[va];
      for (int r = 0; r < 6; r++) a[r] = ap[r] + ci[r] + S[r] * qk;
    } else {
      double x[6];
      for (int r = 0; r < 6; r++) x[r] = ap[r] + ci[r];
      for (int k = 0; k < nv; k++) {
        const double *S = d->S[va + k], qk = p ? qdd[va + k] : qdd[va + k] + d->xi[va + k];
        for (int r = 0; r < 6; r++) x[r] += S[r] * qk;
      }
      for (int r = 0; r < 6; r++) a[r] = x[r];
    }
    body_wrench(&d->I[i], a, d->Vg[i], F);
    if (fext) {
      double f[6];
      hg_coAd_inv(&d->T_tree[i], fext + 6 * i, f);
      for (int r = 0; r < 6; r++) F[r] -= f[r];
    }
  }

  /* backward: tau_i = S_i^T F_i;  F_p += F_i (one frame per tree) */
  for (int i = m->nbody - 1; i > 0; i--) {
    int va = m->v_adr[i], p = m->parent[i];
    const double *F = d->F[i];
    for (int k = 0; k < m->jnt_nv[i]; k++) tau[va + k] = hg_dot6(d->S[va + k], F);
    if (p > 0) {
      double *Fp = d->F[p];
      for (int r = 0; r < 6; r++) Fp[r] += F[r];
    }
  }
}

void hg_bias(const hg_model *m, hg_data *d, const double *q, const double *v, const double *fext,
             double *b) {
  /* b = RNEA(q, v, 0): d->u serves as the zero acceleration (it is only scratch here) */
  for (int k = 0; k < m->nv; k++) d->u[k] = 0;
  hg_rnea(m, d, q, v, d->u, fext, b);
}
