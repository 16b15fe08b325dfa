/* rnea.c: recursive Newton-Euler inverse dynamics (seed 002 Table 2), in each tree's frame. */
#include "dynamics.h"

/* Four- and two-lane vectors (GCC and clang vector extensions; gcc >= 12 for
 * __builtin_shufflevector): the v3 clone of hg_rnea (HG_HOT) keeps each in one AVX register. A
 * 3-vector lives in lanes 0..2 of a v4 (lane 3 carries whatever the load or shuffle put there and
 * never reaches lanes 0..2); a 6-vector x is read as the overlapping x[0..3] and x[2..5], which
 * stays inside its row. */
typedef double v4 __attribute__((vector_size(32)));
typedef double v2 __attribute__((vector_size(16)));
/* unaligned loads and stores that may alias the doubles they read or write */
typedef double v4u __attribute__((vector_size(32), aligned(8), may_alias));
typedef double v2u __attribute__((vector_size(16), aligned(8), may_alias));
#define ld4(p) (*(const v4u *)(p))
#define ld2(p) (*(const v2u *)(p))
#define st4(p, x) (*(v4u *)(p) = (x))
#define st2(p, x) (*(v2u *)(p) = (x))
#define SHUF(x, i, j, k, l) __builtin_shufflevector(x, x, i, j, k, l)
/* (x1, x2, x0) and (x2, x0, x1): a x b = yzx(a yzx(b) - yzx(a) b) */
#define YZX(x) SHUF(x, 1, 2, 0, 3)
#define ZXY(x) SHUF(x, 2, 0, 1, 3)

/* S^T f for a 6-vector S in memory and f as f03 = f[0..3], f45 = f[4..5] */
static inline double dot6(const double *S, const v4 *f03, const v2 *f45) {
  v4 t = ld4(S) * *f03;
  v2 s = __builtin_shufflevector(t, t, 0, 1) + __builtin_shufflevector(t, t, 2, 3) + ld2(S + 4) * *f45;
  return s[0] + s[1];
}

/* F = G a - ad*_V (G V) for one body (tree frame), with a = (aw, av) and V = (w, v): the
 * momentum G V = (L, P), L = I_o w + h x v, P = m v - h x w, then
 * F = (I_o aw + h x av + w x L + v x P, m av - h x aw + w x P); F[0..3] and F[4..5] are written
 * (the split the backward pass reads). I_o x = diag(I) x + (I3, I5, I4) yzx(x)
 * + (I4, I3, I5) zxy(x), sharing yzx(x) with the cross products */
static inline void body_wrench(const hg_inertia *G, const v4 *a_w, const v4 *a_v, const v4 *V_w,
                               const v4 *V_v, double F[6]) {
  v4 aw = *a_w, av = *a_v, w = *V_w, v = *V_v;
  v4 h = ld4(G->h), g1 = ld4(G->I), g2 = ld4(G->I + 2); /* h0 h1 h2 I0, I0..I3, I2..I5 */
  v4 hy = YZX(h), m = {G->m, G->m, G->m, G->m};
  v4 p = SHUF(g2, 1, 3, 2, 3), q = SHUF(g2, 2, 1, 3, 3);
  v4 wy = YZX(w), vy = YZX(v), awy = YZX(aw), avy = YZX(av);
  v4 L = g1 * w + p * wy + q * ZXY(w) + YZX(h * vy - hy * v);
  v4 P = m * v - YZX(h * wy - hy * w);
  v4 Ly = YZX(L), Py = YZX(P);
  v4 Fw = g1 * aw + p * awy + q * ZXY(aw) +
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

  /* the arrays, read once (the stores below could otherwise alias the structs' pointers) */
  const int *v_adr = m->v_adr, *jnt_nv = m->jnt_nv, *parent = m->parent;
  hg_vec6 *Sv = d->S, *Cv = d->c, *Vg = d->Vg;
  const hg_inertia *In = d->I;
  const double *xi = d->xi;
  hg_vec6 *Av = d->a, *Fv = d->F;
  int nbody = m->nbody;

  /* forward, in each tree's Galilean frame (model.h): a_i = a_p + c_i + S_i qdd_i (a root
   * adds xi to its qdd);  F_i = I_i a_i - ad*_{V_i} I_i V_i - fext_i */
  v4 a03 = {0, 0, 0, 0}, a25 = a03; /* a_i as a[0..3], a[2..5]; a_{i-1} at the loop's top */
  for (int i = 1; i < nbody; i++) {
    int va = v_adr[i], nv = jnt_nv[i], p = parent[i];
    const double *ap = Av[p], *ci = Cv[i], *Vi = Vg[i];
    double *a = Av[i], *F = Fv[i];
    if (nv == 1 && p) {
      /* the common case: one DoF below another body (in a chain, the one before, whose a is
       * still in registers) */
      const double *S = Sv[va];
      double qk = qdd[va];
      if (p != i - 1) a03 = ld4(ap), a25 = ld4(ap + 2);
      a03 += ld4(ci) + ld4(S) * qk;
      a25 += ld4(ci + 2) + ld4(S + 2) * qk;
    } else {
      double x[6];
      for (int r = 0; r < 6; r++) x[r] = ap[r] + ci[r];
      for (int k = 0; k < nv; k++) {
        const double *S = Sv[va + k], qk = p ? qdd[va + k] : qdd[va + k] + xi[va + k];
        for (int r = 0; r < 6; r++) x[r] += S[r] * qk;
      }
      a03 = ld4(x), a25 = ld4(x + 2);
    }
    st4(a, a03), st4(a + 2, a25);
    v4 V03 = ld4(Vi), V25 = ld4(Vi + 2), av = SHUF(a25, 1, 2, 3, 3), vv = SHUF(V25, 1, 2, 3, 3);
    body_wrench(&In[i], &a03, &av, &V03, &vv, F);
    if (fext) {
      double f[6];
      hg_coAd_inv(&d->T_tree[i], fext + 6 * i, f);
      for (int r = 0; r < 6; r++) F[r] -= f[r];
    }
  }

  /* backward: tau_i = S_i^T F_i;  F_p += F_i (one frame per tree), F as F[0..3] and F[4..5].
   * When the parent is the next body down (a chain) its share rides in registers (c03, c45)
   * instead of through memory, so the walk waits on an add, not on a store and its reload */
  v4 c03 = {0, 0, 0, 0};
  v2 c45 = {0, 0};
  for (int i = nbody - 1; i > 0; i--) {
    int va = v_adr[i], nv = jnt_nv[i], p = parent[i];
    double *F = Fv[i];
    v4 f03 = ld4(F) + c03;
    v2 f45 = ld2(F + 4) + c45;
    st4(F, f03), st2(F + 4, f45);
    if (nv == 1) tau[va] = dot6(Sv[va], &f03, &f45);
    else
      for (int k = 0; k < nv; k++) tau[va + k] = dot6(Sv[va + k], &f03, &f45);
    if (p == i - 1) {
      c03 = f03, c45 = f45;
    } else {
      c03 = (v4){0, 0, 0, 0}, c45 = (v2){0, 0};
      if (p > 0) {
        double *Fp = Fv[p];
        st4(Fp, ld4(Fp) + f03);
        st2(Fp + 4, ld2(Fp + 4) + f45);
      }
    }
  }
}

void hg_bias(const hg_model *m, hg_data *d, const double *q, const double *v, const double *fext,
             double *b) {
  /* b = RNEA(q, v, 0): d->u serves as the zero acceleration (it is only scratch here) */
  for (int k = 0; k < m->nv; k++) d->u[k] = 0;
  hg_rnea(m, d, q, v, d->u, fext, b);
}
