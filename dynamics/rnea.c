/* rnea.c: recursive Newton-Euler inverse dynamics (seed 002 Table 2), in each tree's frame. */
#include <stddef.h>
#include <string.h>

#include "dynamics.h"

/* Four- and two-lane vectors (GCC and clang vector extensions; gcc >= 12 for
 * __builtin_shufflevector): the v3 clone of hg_rnea (HG_HOT) keeps each in one AVX register. A
 * 3-vector lives in lanes 0..2 of a v4 (lane 3 carries whatever the load or shuffle put there and
 * never reaches lanes 0..2); a 6-vector x is read as the overlapping x[0..3] and x[2..5], which
 * stays inside its row. */
#if defined(__GNUC__) && !defined(__clang__)
/* the helpers below are inlined: no vector crosses a call, so gcc's note that the default
 * clone passes one differently from the v3 clone concerns nothing here */
#pragma GCC diagnostic ignored "-Wpsabi"
#endif
typedef double v4 __attribute__((vector_size(32)));
typedef double v2 __attribute__((vector_size(16)));
static inline v4 ld4(const double *p) { v4 x; memcpy(&x, p, sizeof x); return x; }
static inline v2 ld2(const double *p) { v2 x; memcpy(&x, p, sizeof x); return x; }
static inline void st4(double *p, v4 x) { memcpy(p, &x, sizeof x); }
static inline void st2(double *p, v2 x) { memcpy(p, &x, sizeof x); }
#define SHUF(x, i, j, k, l) __builtin_shufflevector(x, x, i, j, k, l)
/* (x1, x2, x0): a x b = yzx(a yzx(b) - yzx(a) b) */
#define YZX(x) SHUF(x, 1, 2, 0, 3)

/* the ten numbers of an hg_inertia as one array: m, h (1..3), I (4..9) */
_Static_assert(offsetof(hg_inertia, h) == sizeof(double) && offsetof(hg_inertia, I) == 4 * sizeof(double) &&
               sizeof(hg_inertia) == 10 * sizeof(double), "hg_inertia is ten packed doubles");

/* F = G a - ad*_V (G V) for one body (tree frame), with a = (aw, av) and V = (w, v): the
 * momentum G V = (L, P), L = I_o w + h x v, P = m v - h x w, then
 * F = (I_o aw + h x av + w x L + v x P, m av - h x aw + w x P); F[0..3] and F[4..5] are written
 * (the split the backward pass reads). I_o x = diag(I) x + (I3, I3, I5) (x1, x0, x1)
 * + (I4, I5, I4) (x2, x2, x0) */
static inline void body_wrench(const hg_inertia *G, v4 aw, v4 av, v4 w, v4 v, double F[6]) {
  v4 g0, g1, g2;
  memcpy(&g0, (const char *)G, sizeof g0);                       /* m h0 h1 h2 */
  memcpy(&g1, (const char *)G + 4 * sizeof(double), sizeof g1); /* I0 I1 I2 I3 */
  memcpy(&g2, (const char *)G + 6 * sizeof(double), sizeof g2); /* I2 I3 I4 I5 */
  v4 h = SHUF(g0, 1, 2, 3, 3), hy = SHUF(g0, 2, 3, 1, 3), m = SHUF(g0, 0, 0, 0, 0);
  v4 p = SHUF(g2, 1, 1, 3, 3), q = SHUF(g2, 2, 3, 2, 3);
  v4 wy = YZX(w), vy = YZX(v), awy = YZX(aw), avy = YZX(av);
  v4 L = g1 * w + p * SHUF(w, 1, 0, 1, 3) + q * SHUF(w, 2, 2, 0, 3) + YZX(h * vy - hy * v);
  v4 P = m * v - YZX(h * wy - hy * w);
  v4 Ly = YZX(L), Py = YZX(P);
  v4 Fw = g1 * aw + p * SHUF(aw, 1, 0, 1, 3) + q * SHUF(aw, 2, 2, 0, 3) +
          YZX(h * avy - hy * av + w * Ly - wy * L + v * Py - vy * P);
  v4 Fv = m * av + YZX(hy * aw - h * awy + w * Py - wy * P);
  st4(F, __builtin_shufflevector(Fw, Fv, 0, 1, 2, 4));
  st2(F + 4, __builtin_shufflevector(Fv, Fv, 1, 2));
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
    const double *ap = d->a[p], *ci = d->c[i], *Vi = d->Vg[i];
    double *a = d->a[i], *F = d->F[i];
    v4 a03, a25; /* a[0..3], a[2..5] */
    if (nv == 1 && p) {
      /* the common case: one DoF below another body */
      const double *S = d->S[va];
      double qk = qdd[va];
      a03 = ld4(ap) + ld4(ci) + ld4(S) * qk;
      a25 = ld4(ap + 2) + ld4(ci + 2) + ld4(S + 2) * qk;
    } else {
      double x[6];
      for (int r = 0; r < 6; r++) x[r] = ap[r] + ci[r];
      for (int k = 0; k < nv; k++) {
        const double *S = d->S[va + k], qk = p ? qdd[va + k] : qdd[va + k] + d->xi[va + k];
        for (int r = 0; r < 6; r++) x[r] += S[r] * qk;
      }
      a03 = ld4(x), a25 = ld4(x + 2);
    }
    st4(a, a03), st4(a + 2, a25);
    v4 V25 = ld4(Vi + 2);
    body_wrench(&d->I[i], a03, SHUF(a25, 1, 2, 3, 3), ld4(Vi), SHUF(V25, 1, 2, 3, 3), F);
    if (fext) {
      double f[6];
      hg_coAd_inv(&d->T_tree[i], fext + 6 * i, f);
      for (int r = 0; r < 6; r++) F[r] -= f[r];
    }
  }

  /* backward: tau_i = S_i^T F_i;  F_p += F_i (one frame per tree), F as F[0..3] and F[4..5] */
  for (int i = m->nbody - 1; i > 0; i--) {
    int va = m->v_adr[i], p = m->parent[i];
    const double *F = d->F[i];
    v4 f03 = ld4(F);
    v2 f45 = ld2(F + 4);
    for (int k = 0; k < m->jnt_nv[i]; k++) {
      const double *S = d->S[va + k];
      v4 t = ld4(S) * f03;
      v2 s = __builtin_shufflevector(t, t, 0, 1) + __builtin_shufflevector(t, t, 2, 3) + ld2(S + 4) * f45;
      tau[va + k] = s[0] + s[1];
    }
    if (p > 0) {
      double *Fp = d->F[p];
      st4(Fp, ld4(Fp) + f03);
      st2(Fp + 4, ld2(Fp + 4) + f45);
    }
  }
}

void hg_bias(const hg_model *m, hg_data *d, const double *q, const double *v, const double *fext,
             double *b) {
  /* b = RNEA(q, v, 0): d->u serves as the zero acceleration (it is only scratch here) */
  for (int k = 0; k < m->nv; k++) d->u[k] = 0;
  hg_rnea(m, d, q, v, d->u, fext, b);
}
