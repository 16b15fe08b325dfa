/* lanes.h: several doubles in one vector register, for the recursions that do the same
 * arithmetic on several numbers at once, and every helper that works on them. GNU C vector
 * extensions (gcc >= 12 or clang): an hg_v4 is one AVX2 register in the x86-64-v3 clones of the
 * hot functions (HG_HOT, hot.h), two SSE2 registers otherwise. A vector never crosses a function
 * call by value (that would change the calling convention between the clones): helpers take
 * pointers, or are macros, and are always inlined.
 *
 * Three layouts are in use, each with its own helpers below:
 *   - a 3-vector in lanes 0..2 of an hg_v4 (hg_lane3_*: inverse dynamics, rnea.c, and the
 *     second-order derivatives' cross products). Lane 3 carries whatever the load or shuffle put
 *     there and never reaches lanes 0..2; a 6-vector x in memory is read as the overlapping
 *     x[0..3] and x[2..5], which stays inside its row.
 *   - a row of a 6 x 6 matrix as four and two lanes (hg_lane6_*: the second-order derivatives'
 *     products, a matrix by its rows).
 *   - one number of four DoFs side by side (hg_lane, HG_LANE: the derivatives, derivatives.c):
 *     the lane products repeat spatial.h's and inertia.h's formulas on four DoFs at once; a block
 *     is 4 doubles a row, 32-byte aligned. */
#ifndef HINGE_LANES_H
#define HINGE_LANES_H

#include <stddef.h>

#include "inertia.h"

typedef double hg_v4 __attribute__((vector_size(32)));
typedef double hg_v2 __attribute__((vector_size(16)));

/* unaligned loads and stores of p[0..4) or p[0..2) that may alias the doubles they read or write */
typedef double hg_v4u __attribute__((vector_size(32), aligned(8), may_alias));
typedef double hg_v2u __attribute__((vector_size(16), aligned(8), may_alias));
#define HG_LD4(p) (*(const hg_v4u *)(p))
#define HG_LD2(p) (*(const hg_v2u *)(p))
#define HG_ST4(p, x) (*(hg_v4u *)(p) = (x))
#define HG_ST2(p, x) (*(hg_v2u *)(p) = (x))

/* ---- a 3-vector in lanes 0..2 ---- */

#define HG_SHUF(x, i, j, k, l) __builtin_shufflevector(x, x, i, j, k, l)
/* (x1, x2, x0) and (x2, x0, x1): a x b = yzx(a yzx(b) - yzx(a) b) */
#define HG_YZX(x) HG_SHUF(x, 1, 2, 0, 3)
#define HG_ZXY(x) HG_SHUF(x, 2, 0, 1, 3)

/* S^T f for a 6-vector S in memory and f as f03 = f[0..3], f45 = f[4..5] */
static inline double hg_lane3_dot6(const double *S, const hg_v4 *f03, const hg_v2 *f45) {
  hg_v4 t = HG_LD4(S) * *f03;
  hg_v2 s = __builtin_shufflevector(t, t, 0, 1) + __builtin_shufflevector(t, t, 2, 3) + HG_LD2(S + 4) * *f45;
  return s[0] + s[1];
}

/* Newton-Euler for one body, F = G a - ad*_V (G V), with a = (aw, av) and V = (w, v): the
 * momentum G V = (L, P), L = I_o w + h x v, P = m v - h x w, then
 * F = (I_o aw + h x av + w x L + v x P, m av - h x aw + w x P); F[0..3] and F[4..5] are written
 * (the split RNEA's backward pass reads). I_o x = diag(I) x + (I3, I5, I4) yzx(x)
 * + (I4, I3, I5) zxy(x), sharing yzx(x) with the cross products. Reads G->h[0..2] with G->I[0]
 * as one vector: I follows h in hg_inertia (checked below). */
_Static_assert(offsetof(hg_inertia, I) == offsetof(hg_inertia, h) + 3 * sizeof(double),
               "hg_inertia: I must follow h");
static inline void hg_lane3_body_wrench(const hg_inertia *G, const hg_v4 *a_w, const hg_v4 *a_v,
                                        const hg_v4 *V_w, const hg_v4 *V_v, double F[6]) {
  hg_v4 aw = *a_w, av = *a_v, w = *V_w, v = *V_v;
  hg_v4 h = HG_LD4(G->h), g1 = HG_LD4(G->I), g2 = HG_LD4(G->I + 2); /* h0 h1 h2 I0, I0..I3, I2..I5 */
  hg_v4 hy = HG_YZX(h), m = {G->m, G->m, G->m, G->m};
  hg_v4 p = HG_SHUF(g2, 1, 3, 2, 3), q = HG_SHUF(g2, 2, 1, 3, 3);
  hg_v4 wy = HG_YZX(w), vy = HG_YZX(v), awy = HG_YZX(aw), avy = HG_YZX(av);
  hg_v4 L = g1 * w + p * wy + q * HG_ZXY(w) + HG_YZX(h * vy - hy * v);
  hg_v4 P = m * v - HG_YZX(h * wy - hy * w);
  hg_v4 Ly = HG_YZX(L), Py = HG_YZX(P);
  hg_v4 Fw = g1 * aw + p * awy + q * HG_ZXY(aw) +
             HG_YZX(h * avy - hy * av + w * Ly - wy * L + v * Py - vy * P);
  hg_v4 Fv = m * av + HG_YZX(hy * aw - h * awy + w * Py - wy * P);
  HG_ST4(F, __builtin_shufflevector(Fw, Fv, 0, 1, 2, 4));
  HG_ST2(F + 4, __builtin_shufflevector(Fv, Fv, 1, 2));
}

/* G V (hg_inertia_mulv) for a 6-vector V in memory, into f03 = out[0..3] and f45 = out[4..5]:
 * (I_o w + h x v, m v - h x w) with V = (w, v), I_o w as in hg_lane3_body_wrench */
static inline void hg_lane3_inertia_mulv(const hg_inertia *G, const double *V, hg_v4 *f03,
                                         hg_v2 *f45) {
  hg_v4 w = HG_LD4(V), v25 = HG_LD4(V + 2), v = HG_SHUF(v25, 1, 2, 3, 3);
  hg_v4 h = HG_LD4(G->h), g1 = HG_LD4(G->I), g2 = HG_LD4(G->I + 2); /* h0 h1 h2 I0, I0..I3, I2..I5 */
  hg_v4 hy = HG_YZX(h), m = {G->m, G->m, G->m, G->m};
  hg_v4 p = HG_SHUF(g2, 1, 3, 2, 3), q = HG_SHUF(g2, 2, 1, 3, 3);
  hg_v4 Fw = g1 * w + p * HG_YZX(w) + q * HG_ZXY(w) + HG_YZX(h * HG_YZX(v) - hy * v);
  hg_v4 Fv = m * v - HG_YZX(h * HG_YZX(w) - hy * w);
  *f03 = __builtin_shufflevector(Fw, Fv, 0, 1, 2, 4);
  *f45 = __builtin_shufflevector(Fv, Fv, 1, 2);
}

/* hg_inertia_transform_c (inertia.h) with the three rotations R a, R b, R c at once: row r of
 * R times the rows (a_k, b_k, c_k, 0) of Ib->abc gives (x_r, y_r, (R c)_r, 0); turned into
 * X = R a, Y = R b and C = c_a = R c + p (lanes 0..2), every entry is a lane of
 *   diag(I_o) = l0 + X X + Y Y + m (yzx(C C) + zxy(C C))   (x_r^2 + y_r^2 + m (c_s^2 + c_t^2)),
 *   (I_xy, I_yz, I_zx) = X yzx(X) + Y yzx(Y) - m C yzx(C),  h = m C,
 * the scalar code's sums (no term cancels a larger one). A diagonal I_c takes the scalar code. */
static inline void hg_lane3_inertia_transform_c(const hg_se3 *T, const hg_inertia_c *Ib,
                                                hg_inertia *Ia) {
  if (Ib->diagonal) {
    hg_inertia_transform_c(T, Ib, Ia);
    return;
  }
  const double *R = T->R, m = Ib->m;
  hg_v4 A0 = HG_LD4(Ib->abc[0]), A1 = HG_LD4(Ib->abc[1]), A2 = HG_LD4(Ib->abc[2]);
  hg_v4 U0 = R[0] * A0 + R[1] * A1 + R[2] * A2; /* (x_0, y_0, (R c)_0, 0) */
  hg_v4 U1 = R[3] * A0 + R[4] * A1 + R[5] * A2;
  hg_v4 U2 = R[6] * A0 + R[7] * A1 + R[8] * A2;
  /* the 3 x 3 transpose: X, Y and R c in lanes 0..2 */
  hg_v4 t0 = __builtin_shufflevector(U0, U1, 0, 4, 1, 5); /* x0 x1 y0 y1 */
  hg_v4 t1 = __builtin_shufflevector(U0, U1, 2, 6, 3, 7); /* c0 c1 0 0 */
  hg_v4 X = __builtin_shufflevector(t0, U2, 0, 1, 4, 7);  /* x0 x1 x2 0 */
  hg_v4 Y = __builtin_shufflevector(t0, U2, 2, 3, 5, 7);  /* y0 y1 y2 0 */
  hg_v4 C = __builtin_shufflevector(t1, U2, 0, 1, 6, 7);  /* c0 c1 c2 0 */
  C += (hg_v4){T->p[0], T->p[1], T->p[2], 0};
  hg_v4 mv = {m, m, m, m}, CC = C * C, Cy = HG_YZX(C);
  hg_v4 diag = Ib->l0 + X * X + Y * Y + mv * (HG_YZX(CC) + HG_ZXY(CC));
  hg_v4 off = X * HG_YZX(X) + Y * HG_YZX(Y) - mv * (C * Cy); /* I_xy, I_yz, I_zx */
  hg_v4 h = mv * C;
  /* h[0..2] (its lane 3 lands on I[0], written next), I[0..2], then I[3..5] = (xy, xz, yz) */
  Ia->m = m;
  HG_ST4(Ia->h, h);
  HG_ST4(Ia->I, diag);
  HG_ST2(Ia->I + 3, __builtin_shufflevector(off, off, 0, 2));
  Ia->I[5] = off[1];
}

/* The turn of a revolute joint folded with its origin (joint.h's hg_joint_fold C: term t, row r
 * in C[t][r][0..2], lane 3 of term 0's rows R_o a, of the others zero): the rows of
 * R_rel = C0 + c C1 + s C2, each with (R_o a)_r in lane 3, then R_tree = R_p R_rel row by row,
 * whose lane 3 is w = R_p R_o a = R_tree a. Writes Rrel and Rtree (row-major 3 x 3; each
 * four-wide row store's lane 3 is overwritten by the next row) and w. */
static inline void hg_lane3_fold_turn(const double (*C)[3][4], double c, double s,
                                      const double Rp[9], double Rrel[9], double Rtree[9],
                                      double w[3]) {
  hg_v4 r0 = HG_LD4(C[0][0]) + c * HG_LD4(C[1][0]) + s * HG_LD4(C[2][0]);
  hg_v4 r1 = HG_LD4(C[0][1]) + c * HG_LD4(C[1][1]) + s * HG_LD4(C[2][1]);
  hg_v4 r2 = HG_LD4(C[0][2]) + c * HG_LD4(C[1][2]) + s * HG_LD4(C[2][2]);
  hg_v4 t0 = Rp[0] * r0 + Rp[1] * r1 + Rp[2] * r2;
  hg_v4 t1 = Rp[3] * r0 + Rp[4] * r1 + Rp[5] * r2;
  hg_v4 t2 = Rp[6] * r0 + Rp[7] * r1 + Rp[8] * r2;
  HG_ST4(Rrel, r0), HG_ST4(Rrel + 3, r1), HG_ST2(Rrel + 6, __builtin_shufflevector(r2, r2, 0, 1));
  Rrel[8] = r2[2];
  HG_ST4(Rtree, t0), HG_ST4(Rtree + 3, t1), HG_ST2(Rtree + 6, __builtin_shufflevector(t2, t2, 0, 1));
  Rtree[8] = t2[2];
  w[0] = t0[3], w[1] = t1[3], w[2] = t2[3];
}

/* ---- four consecutive columns of a row ---- */

/* lanes as 64-bit integers: the masks of vector comparisons */
typedef long long hg_i4 __attribute__((vector_size(32)));
/* *out = lane k of *x where k >= s, of *y where k < s (s in 0 .. 4; out may be x or y): the
 * last, partial block of a row done as the four columns that end it, keeping the ones before s
 * as they are */
HG_INLINE void hg_v4_from(hg_v4 *out, const hg_v4 *x, const hg_v4 *y, int s) {
  const hg_i4 idx = {0, 1, 2, 3};
  hg_i4 keep = idx < (hg_i4){s, s, s, s};
  *out = (hg_v4)(((hg_i4)*y & keep) | ((hg_i4)*x & ~keep));
}
/* *out = 1 in lane k, 0 in the others (none for k outside 0 .. 3) */
HG_INLINE void hg_v4_unit(hg_v4 *out, int k) {
  const hg_i4 idx = {0, 1, 2, 3};
  const hg_v4 one = {1, 1, 1, 1};
  *out = (hg_v4)((hg_i4)one & (idx == (hg_i4){k, k, k, k}));
}

/* ---- one number of four DoFs side by side ---- */

typedef hg_v4 hg_lane;
/* row r of a block, 32-byte aligned */
#define HG_LANE(p, r) (*(hg_lane *)((p) + 4 * (r)))
#define HG_CLANE(p, r) (*(const hg_lane *)((p) + 4 * (r)))

/* c = a x b, c += a x b (c may not alias a or b) */
static inline void hg_lane_cross(const hg_lane *a, const hg_lane *b, hg_lane *c) {
  c[0] = a[1] * b[2] - a[2] * b[1];
  c[1] = a[2] * b[0] - a[0] * b[2];
  c[2] = a[0] * b[1] - a[1] * b[0];
}
static inline void hg_lane_cross_add(const hg_lane *a, const hg_lane *b, hg_lane *c) {
  c[0] += a[1] * b[2] - a[2] * b[1];
  c[1] += a[2] * b[0] - a[0] * b[2];
  c[2] += a[0] * b[1] - a[1] * b[0];
}
/* out = ad_V W = (w x W_w, v x W_w + w x W_v) */
static inline void hg_lane_ad(const hg_lane *V, const hg_lane *W, hg_lane *out) {
  hg_lane_cross(V, W, out);
  hg_lane_cross(V + 3, W, out + 3);
  hg_lane_cross_add(V, W + 3, out + 3);
}
/* out = V x* F = (w x F_w + v x F_v, w x F_v) (out may not alias V or F) */
static inline void hg_lane_cross_star(const hg_lane *V, const hg_lane *F, hg_lane *out) {
  hg_lane_cross(V, F, out);
  hg_lane_cross_add(V + 3, F + 3, out);
  hg_lane_cross(V, F + 3, out + 3);
}
/* y += A x for a 6 x 6 row-major A of numbers (the same in every lane) */
static inline void hg_lane_mat6_mulv_add(const double *A, const hg_lane *x, hg_lane *y) {
  for (int r = 0; r < 6; r++)
    for (int c = 0; c < 6; c++) y[r] += A[6 * r + c] * x[c];
}
/* out = G V for the inertia (m, h, I) (hg_inertia_mulv) */
static inline void hg_lane_inertia_mulv(const hg_lane *m, const hg_lane *h, const hg_lane *I,
                                        const hg_lane *V, hg_lane *out) {
  const hg_lane *w = V, *v = V + 3;
  out[0] = I[0] * w[0] + I[3] * w[1] + I[4] * w[2] + h[1] * v[2] - h[2] * v[1];
  out[1] = I[3] * w[0] + I[1] * w[1] + I[5] * w[2] + h[2] * v[0] - h[0] * v[2];
  out[2] = I[4] * w[0] + I[5] * w[1] + I[2] * w[2] + h[0] * v[1] - h[1] * v[0];
  out[3] = *m * v[0] - (h[1] * w[2] - h[2] * w[1]);
  out[4] = *m * v[1] - (h[2] * w[0] - h[0] * w[2]);
  out[5] = *m * v[2] - (h[0] * w[1] - h[1] * w[0]);
}

/* a x b on the lanes: yzx(a yzx(b) - yzx(a) b) (lane 3 stays in lane 3) */
#define HG_CROSS3(a, b) HG_YZX((a) * HG_YZX(b) - HG_YZX(a) * (b))
/* the halves (x[0..2], x[3..5]) of a 6-vector in memory, in lanes 0..2 */
#define HG_TOP3(x) HG_LD4(x)
#define HG_BOT3(x) HG_SHUF(HG_LD4((x) + 2), 1, 2, 3, 3)
/* out[0..6) = (t[0..2], b[0..2]) (two overlapping stores, after every load) */
#define HG_ST6(out, t, b)                                                                        \
  (HG_ST4(out, t), HG_ST4((out) + 2, __builtin_shufflevector(t, b, 2, 4, 5, 6)))

/* out = ad_V W = (w x W_w, v x W_w + w x W_v) (hg_ad) on the lanes; out may alias V or W */
HG_INLINE void hg_lane3_ad(const double *V, const double *W, double *out) {
  hg_v4 w = HG_TOP3(V), v = HG_BOT3(V), a = HG_TOP3(W), b = HG_BOT3(W);
  hg_v4 t = HG_CROSS3(w, a), u = HG_CROSS3(v, a) + HG_CROSS3(w, b);
  HG_ST6(out, t, u);
}
/* out = ad*_V F = (m x w + f x v, f x w) for V = (w, v), F = (m, f) (hg_ad_star) on the lanes;
 * out may alias V or F */
HG_INLINE void hg_lane3_ad_star(const double *V, const double *F, double *out) {
  hg_v4 w = HG_TOP3(V), v = HG_BOT3(V), mm = HG_TOP3(F), f = HG_BOT3(F);
  hg_v4 t = HG_CROSS3(mm, w) + HG_CROSS3(f, v), u = HG_CROSS3(f, w);
  HG_ST6(out, t, u);
}

/* ---- a 6 x 6 matrix by its rows ---- */

/* y += A^T x for a 6 x 6 row-major A (A x when A is symmetric, as an inertia is): the rows of A
 * scaled by x's entries and summed, four and two lanes a row; y may not alias x */
HG_INLINE void hg_lane6_mulTv_add(const double *A, const double *x, double *y) {
  hg_v4 y03 = HG_LD4(y);
  hg_v2 y45 = HG_LD2(y + 4);
  for (int r = 0; r < 6; r++) {
    y03 += x[r] * HG_LD4(A + 6 * r);
    y45 += x[r] * HG_LD2(A + 6 * r + 4);
  }
  HG_ST4(y, y03), HG_ST2(y + 4, y45);
}
/* y = A^T x (as above, without what y held) */
HG_INLINE void hg_lane6_mulTv(const double *A, const double *x, double *y) {
  hg_v4 y03 = x[0] * HG_LD4(A);
  hg_v2 y45 = x[0] * HG_LD2(A + 4);
  for (int r = 1; r < 6; r++) {
    y03 += x[r] * HG_LD4(A + 6 * r);
    y45 += x[r] * HG_LD2(A + 6 * r + 4);
  }
  HG_ST4(y, y03), HG_ST2(y + 4, y45);
}

/* C = A B for 6 x 6 row-major A and B: row i of C is B's rows weighted by row i of A; C may
 * not alias A or B */
HG_INLINE void hg_lane6_mul(const double *A, const double *B, double *C) {
  for (int i = 0; i < 6; i++) hg_lane6_mulTv(B, A + 6 * i, C + 6 * i);
}

/* ---- 6-vectors against quantities stored component-major ---- */

/* out[r], r = 0..3: sum over p < n of c[p] . (x[p][i + r], x[p][stride + i + r], ...,
 * x[p][5 stride + i + r]): n (a constant where this is inlined) 6-vectors c[p] dotted with as
 * many quantities whose component q of entry i is at x[p][q stride + i] (the second-order
 * derivatives' sweeps over the DoFs of a range), four entries at once; x's rows must be readable
 * three numbers past the entries used */
HG_INLINE void hg_lane_soa_dot4(int n, const double *const *c, const double *const *x,
                                size_t stride, int i, double out[4]) {
  hg_v4 acc = c[0][0] * HG_LD4(x[0] + i);
  for (int p = 0; p < n; p++)
    for (int r = !p; r < 6; r++) acc += c[p][r] * HG_LD4(x[p] + r * stride + i);
  HG_ST4(out, acc);
}

/* y[0], y[s], y[2 s], y[3 s] = x[0 .. n - 1], negated with neg (n <= 4): four results into a
 * column, a row or a slice of a tensor; 0 - x, so that a zero stays +0 */
HG_INLINE void hg_lane_scatter4(const double x[4], int neg, double *y, size_t s, int n) {
  double z[4];
  for (int r = 0; r < 4; r++) z[r] = neg ? 0.0 - x[r] : x[r];
  y[0] = z[0];
  if (n > 1) y[s] = z[1];
  if (n > 2) y[2 * s] = z[2];
  if (n > 3) y[3 * s] = z[3];
}

/* y[0], y[s], y[2 s], y[3 s] += x[0 .. n - 1] (n <= 4); one vector when the four are
 * consecutive */
HG_INLINE void hg_lane_scatter4_add(const double x[4], double *y, size_t s, int n) {
  if (s == 1 && n == 4) {
    HG_ST4(y, HG_LD4(y) + HG_LD4(x));
    return;
  }
  for (int r = 0; r < n; r++) y[r * s] += x[r];
}

/* the 4 x 4 dot products z[q][r] = sum over e < 6 of a[e] x[24 q + 4 e + r] of six numbers a with
 * four consecutive blocks of x (6 rows of four lanes r each), written both ways: Y[r s + q] = z
 * (add: +=) for r < nr, four consecutive q at once (a transpose in registers), and, when X is
 * not NULL, X[q t + r] += z for r < nr */
HG_INLINE void hg_lane_dot6_block4(const double *a, const double *x, double *Y, size_t s, int nr,
                                   int add, double *X, size_t t) {
  hg_v4 z[4];
  for (int q = 0; q < 4; q++) {
    const double *b = x + 24 * q;
    hg_v4 acc = a[0] * HG_LD4(b);
    for (int e = 1; e < 6; e++) acc += a[e] * HG_LD4(b + 4 * e);
    z[q] = acc;
  }
  hg_v4 t0 = __builtin_shufflevector(z[0], z[1], 0, 4, 2, 6);
  hg_v4 t1 = __builtin_shufflevector(z[0], z[1], 1, 5, 3, 7);
  hg_v4 t2 = __builtin_shufflevector(z[2], z[3], 0, 4, 2, 6);
  hg_v4 t3 = __builtin_shufflevector(z[2], z[3], 1, 5, 3, 7);
  hg_v4 zt[4] = {__builtin_shufflevector(t0, t2, 0, 1, 4, 5),
                 __builtin_shufflevector(t1, t3, 0, 1, 4, 5),
                 __builtin_shufflevector(t0, t2, 2, 3, 6, 7),
                 __builtin_shufflevector(t1, t3, 2, 3, 6, 7)};
  for (int r = 0; r < nr; r++) {
    hg_v4 y = zt[r];
    if (add) y += HG_LD4(Y + r * s);
    HG_ST4(Y + r * s, y);
  }
  if (!X) return;
  for (int q = 0; q < 4; q++) {
    double *y = X + q * t;
    if (nr == 4) {
      HG_ST4(y, HG_LD4(y) + z[q]);
    } else {
      for (int r = 0; r < nr; r++) y[r] += z[q][r];
    }
  }
}

/* -M^-1 Y in place for W = 4 or 8 columns of Y (row r at Y + r s, its columns y[0 .. W)), by the
 * factors M = L^T D L (derivatives2_forward.c): DoF i's path, the DoFs before it from its parent
 * up, is path[off[i] .. off[i + 1]) with L[i, path[t]] = Lp[t], and dneg[i] = -1 / D_i.
 * L^T y = Y (rows from the last: a row that is zero is skipped), y = -D^-1 y, L Y = y (rows from
 * the first), the W columns of a row in registers */
HG_INLINE void hg_lane_ltdl_solve(int W, int nv, const int *off, const int *path, const double *Lp,
                                  const double *dneg, double *Y, size_t s) {
  const hg_v4 zero = {0, 0, 0, 0};
  for (int i = nv - 1; i >= 0; i--) {
    double *y = Y + (size_t)i * s;
    hg_v4 a = HG_LD4(y), b = zero;
    if (W == 8) b = HG_LD4(y + 4);
    hg_i4 nz = (a != zero) | (b != zero);
    if (!(nz[0] | nz[1] | nz[2] | nz[3])) continue;
    for (int t = off[i]; t < off[i + 1]; t++) {
      double *z = Y + (size_t)path[t] * s, l = Lp[t];
      HG_ST4(z, HG_LD4(z) - l * a);
      if (W == 8) HG_ST4(z + 4, HG_LD4(z + 4) - l * b);
    }
  }
  for (int i = 0; i < nv; i++) {
    double *y = Y + (size_t)i * s;
    hg_v4 a = dneg[i] * HG_LD4(y), b = zero;
    if (W == 8) b = dneg[i] * HG_LD4(y + 4);
    for (int t = off[i]; t < off[i + 1]; t++) {
      const double *z = Y + (size_t)path[t] * s;
      a -= Lp[t] * HG_LD4(z);
      if (W == 8) b -= Lp[t] * HG_LD4(z + 4);
    }
    HG_ST4(y, a);
    if (W == 8) HG_ST4(y + 4, b);
  }
}

/* ---- products of row-major matrices (second derivatives of forward dynamics:
 * derivatives2_forward.c) ---- */

/* one block of hg_lane_gemm: rows i .. i + R - 1 and columns j .. j + W - 1 of C (R <= 4; W = 8,
 * 4, 2 or 1), summed over the k inner indices in R x W accumulators (W = 8: two vectors a row),
 * times alpha, added to C (add) or stored */
HG_INLINE void hg_lane_gemm_block(int add, int R, int W, int i, int j, int k, double alpha,
                                  const double *A,
                                  size_t lda, const int *idx, const double *B, size_t ldb,
                                  double *C, size_t ldc) {
  hg_v4 acc[4][2];
  hg_v2 two[4];
  double one[4];
  const double *a_row[4];
  for (int r = 0; r < R; r++) {
    acc[r][0] = acc[r][1] = (hg_v4){0, 0, 0, 0}, two[r] = (hg_v2){0, 0}, one[r] = 0;
    a_row[r] = A + (size_t)(i + r) * lda;
  }
  const double *Bj = B + j;
  for (int p = 0; p < k; p++) {
    size_t c = idx ? (size_t)idx[p] : (size_t)p;
    const double *b = Bj + c * ldb;
    hg_v4 b0 = {0, 0, 0, 0}, b1 = {0, 0, 0, 0};
    hg_v2 b2 = {0, 0};
    if (W >= 4) b0 = HG_LD4(b);
    if (W == 8) b1 = HG_LD4(b + 4);
    if (W == 2) b2 = HG_LD2(b);
    for (int r = 0; r < R; r++) {
      double a = a_row[r][c];
      if (W >= 4) acc[r][0] += a * b0;
      if (W == 8) acc[r][1] += a * b1;
      if (W == 2) two[r] += a * b2;
      if (W == 1) one[r] += a * b[0];
    }
  }
  for (int r = 0; r < R; r++) {
    double *y = C + (size_t)(i + r) * ldc + j;
    hg_v4 y0 = alpha * acc[r][0], y1 = alpha * acc[r][1];
    hg_v2 y2 = alpha * two[r];
    double y3 = alpha * one[r];
    if (add) {
      if (W >= 4) y0 += HG_LD4(y);
      if (W == 8) y1 += HG_LD4(y + 4);
      if (W == 2) y2 += HG_LD2(y);
      if (W == 1) y3 += y[0];
    }
    if (W >= 4) HG_ST4(y, y0);
    if (W == 8) HG_ST4(y + 4, y1);
    if (W == 2) HG_ST2(y, y2);
    if (W == 1) y[0] = y3;
  }
}

/* the blocks of rows i .. i + R - 1 (hg_lane_gemm): eight columns at a time, then four, two and
 * one */
HG_INLINE void hg_lane_gemm_rows(int add, int R, int i, int j0, int j1, int k, double alpha,
                                 const double *A, size_t lda, const int *idx, const double *B,
                                 size_t ldb, double *C, size_t ldc) {
  int j = j0;
  for (; j + 8 <= j1; j += 8)
    hg_lane_gemm_block(add, R, 8, i, j, k, alpha, A, lda, idx, B, ldb, C, ldc);
  /* stored, not added: the last eight columns once more, over the ones just formed */
  if (!add && j < j1 && j1 - j0 >= 8) {
    hg_lane_gemm_block(add, R, 8, i, j1 - 8, k, alpha, A, lda, idx, B, ldb, C, ldc);
    return;
  }
  if (j + 4 <= j1) hg_lane_gemm_block(add, R, 4, i, j, k, alpha, A, lda, idx, B, ldb, C, ldc), j += 4;
  if (j + 2 <= j1) hg_lane_gemm_block(add, R, 2, i, j, k, alpha, A, lda, idx, B, ldb, C, ldc), j += 2;
  if (j < j1) hg_lane_gemm_block(add, R, 1, i, j, k, alpha, A, lda, idx, B, ldb, C, ldc);
}

/* C[i, j] = (add: C[i, j] +) alpha sum over p < k of A[i, c_p] B[c_p, j], for rows i < m and
 * columns j0 <= j < j1, with c_p = idx[p] (the inner indices that matter, in any order) or p when
 * idx is NULL; A, B and C row-major with rows lda, ldb and ldc apart. Four rows of C at a time
 * across the whole sum, in registers: each row of B is read once per four rows of C, each number
 * of A once, and C once (a row-by-row update reads and writes its row of C at every p). C may
 * not alias A or B (when stored, a last block of eight columns may be formed twice). */
HG_INLINE void hg_lane_gemm(int add, int m, int k, int j0, int j1, double alpha, const double *A,
                            size_t lda, const int *idx, const double *B, size_t ldb, double *C,
                            size_t ldc) {
  int i = 0;
  for (; i + 4 <= m; i += 4)
    hg_lane_gemm_rows(add, 4, i, j0, j1, k, alpha, A, lda, idx, B, ldb, C, ldc);
  if (m - i == 3) hg_lane_gemm_rows(add, 3, i, j0, j1, k, alpha, A, lda, idx, B, ldb, C, ldc);
  if (m - i == 2) hg_lane_gemm_rows(add, 2, i, j0, j1, k, alpha, A, lda, idx, B, ldb, C, ldc);
  if (m - i == 1) hg_lane_gemm_rows(add, 1, i, j0, j1, k, alpha, A, lda, idx, B, ldb, C, ldc);
}

#endif
