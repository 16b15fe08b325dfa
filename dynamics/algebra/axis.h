/* axis.h: transforms about and along one coordinate axis, in place, for the body-local
 * articulated pass (algorithms/aba_local.c), whose joint frames are chained from such factors
 * (W. Khalil, J. Kleinfinger, "A new geometric notation for open and closed-loop robots", 1986).
 * A rotation by (c, s) about, or a translation r along, axis k of a frame: twists go parent ->
 * child by Ad_{P^-1}, wrenches child -> parent by its transpose, symmetric 6x6 matrices child ->
 * parent by X^T M X. With i, j the two other axes (cyclic), a rotation mixes only coordinates i
 * and j, so each costs a fraction of a general transform. Conventions as spatial.h's. */
#ifndef HINGE_AXIS_H
#define HINGE_AXIS_H

#include "spatial.h"

/* motion across Rot_k: w' = R^T w, v' = R^T v */
HG_INLINE void hg_mot_rot_axis(int k, double c, double s, double *V) {
  int i = (k + 1) % 3, j = (k + 2) % 3;
  HG_UNROLL(8)
  for (int o = 0; o < 6; o += 3) {
    double xi = V[o + i], xj = V[o + j];
    V[o + i] = c * xi + s * xj;
    V[o + j] = c * xj - s * xi;
  }
}
/* motion across T(r e_k): v' = v - r e_k x w */
HG_INLINE void hg_mot_trans_axis(int k, double r, double *V) {
  int i = (k + 1) % 3, j = (k + 2) % 3;
  double wi = V[i], wj = V[j];
  V[3 + i] += r * wj;
  V[3 + j] -= r * wi;
}
/* wrench back across Rot_k: (R m, R f) */
HG_INLINE void hg_frc_rot_axis(int k, double c, double s, double *F) {
  int i = (k + 1) % 3, j = (k + 2) % 3;
  HG_UNROLL(8)
  for (int o = 0; o < 6; o += 3) {
    double xi = F[o + i], xj = F[o + j];
    F[o + i] = c * xi - s * xj;
    F[o + j] = s * xi + c * xj;
  }
}
/* wrench back across T(r e_k): m' = m + r e_k x f */
HG_INLINE void hg_frc_trans_axis(int k, double r, double *F) {
  int i = (k + 1) % 3, j = (k + 2) % 3;
  double fi = F[3 + i], fj = F[3 + j];
  F[i] -= r * fj;
  F[j] += r * fi;
}

/* a hg_turn's numbers: c, s and the double-angle terms the symmetric forms use */
typedef struct hg_turn {
  double c, s, ss, cs, C2, S2; /* cos, sin, sin^2, cos sin, cos 2t, sin 2t */
} hg_turn;
HG_INLINE hg_turn hg_turn_make(double c, double s) {
  hg_turn t = {c, s, s * s, c * s, 0, 0};
  t.C2 = 1 - 2 * t.ss, t.S2 = 2 * t.cs;
  return t;
}

/* the pair (x, y) := R (x, y) for the 2x2 rotation of t */
HG_INLINE void hg_turn_pair(const hg_turn *t, double *x, double *y) {
  double a = *x, b = *y;
  *x = t->c * a - t->s * b;
  *y = t->s * a + t->c * b;
}
/* R N R^T for the symmetric 2x2 N = [[x, y], [y, z]] */
HG_INLINE void hg_turn_sym2(const hg_turn *t, double *x, double *y, double *z) {
  double d = *x - *z, g = t->ss * d + t->S2 * *y;
  double yn = t->cs * d + t->C2 * *y;
  *x -= g, *z += g, *y = yn;
}
/* R N R^T for the general 2x2 N = [[p, q], [r, w]] */
HG_INLINE void hg_turn_gen2(const hg_turn *t, double *p, double *q, double *r, double *w) {
  double d = *p - *w, sg = *q + *r;
  double g = t->ss * d + t->cs * sg, h = t->cs * d - t->ss * sg;
  *p -= g, *w += g, *q += h, *r += h;
}

/* M := X^T M X across Rot_k (blocks R N R^T). reduced: row and column k of M are zero (only
 * for k = 2 after the projection), and stay zero. */
HG_INLINE void hg_sym6_rot_axis(int k, const hg_turn *t, double *M, int reduced) {
  int i = (k + 1) % 3, j = (k + 2) % 3;
  /* angular block A: its (i, j) square and the pair (A_ik, A_jk) */
  hg_turn_sym2(t, &M[hg_sym6_index(i, i)], &M[hg_sym6_index(i, j)], &M[hg_sym6_index(j, j)]);
  if (!reduced) hg_turn_pair(t, &M[hg_sym6_index(i, k)], &M[hg_sym6_index(j, k)]);
  /* linear block C the same way */
  hg_turn_sym2(t, &M[hg_sym6_index(3 + i, 3 + i)], &M[hg_sym6_index(3 + i, 3 + j)], &M[hg_sym6_index(3 + j, 3 + j)]);
  hg_turn_pair(t, &M[hg_sym6_index(3 + i, 3 + k)], &M[hg_sym6_index(3 + j, 3 + k)]);
  /* coupling block B (B_ab = M(a, 3 + b)): its (i, j) square, column k's pair, row k's pair */
  hg_turn_gen2(t, &M[hg_sym6_index(i, 3 + i)], &M[hg_sym6_index(i, 3 + j)], &M[hg_sym6_index(j, 3 + i)], &M[hg_sym6_index(j, 3 + j)]);
  hg_turn_pair(t, &M[hg_sym6_index(i, 3 + k)], &M[hg_sym6_index(j, 3 + k)]);
  if (!reduced) hg_turn_pair(t, &M[hg_sym6_index(k, 3 + i)], &M[hg_sym6_index(k, 3 + j)]);
}

/* M := X^T M X across T(r e_k), X = [[1, 0], [-r e_k^, 1]]:
 * A' = A - B E + E B'^T, B' = B + E C, C' = C with E = r e_k^ (two rows of B and five entries
 * of A change). reduced as sym_rot; jzero: row and column j of M are zero (Tx right after the
 * reduced Rz: j = 2), so the terms that read them drop out. */
HG_INLINE void hg_sym6_trans_axis(int k, double r, double *M, int reduced, int jzero) {
  int i = (k + 1) % 3, j = (k + 2) % 3;
#define B6(a, b) M[hg_sym6_index(a, 3 + (b))]
#define C6(a, b) M[hg_sym6_index(3 + (a), 3 + (b))]
  double Bii = B6(i, i), Bij = B6(i, j), Bji = B6(j, i), Bjj = B6(j, j);
  double Cii = C6(i, i), Cij = C6(i, j), Cjj = C6(j, j), Cik = C6(i, k), Cjk = C6(j, k);
  /* B' rows i and j: B_i -= r C_j, B_j += r C_i (jzero: B_j was zero) */
  double Pii = Bii - r * Cij, Pij = Bij - r * Cjj;
  double Pji = jzero ? r * Cii : Bji + r * Cii, Pjj = jzero ? r * Cij : Bjj + r * Cij;
  /* A' from the old and new B: A_ii - r (2 B_ij - r C_jj) = A_ii - r (B_ij + B'_ij), and so on */
  if (jzero) {
    M[hg_sym6_index(i, i)] -= r * (Bij + Pij);
    M[hg_sym6_index(j, j)] = r * Pji;
    M[hg_sym6_index(i, j)] = r * Pii;
    M[hg_sym6_index(i, k)] -= r * B6(k, j);
    M[hg_sym6_index(j, k)] = r * B6(k, i);
  } else {
    M[hg_sym6_index(i, i)] -= r * (Bij + Pij);
    M[hg_sym6_index(j, j)] += r * (Bji + Pji);
    M[hg_sym6_index(i, j)] += r * (Pii - Bjj);
    if (!reduced) {
      M[hg_sym6_index(i, k)] -= r * B6(k, j);
      M[hg_sym6_index(j, k)] += r * B6(k, i);
    }
  }
  B6(i, i) = Pii, B6(i, j) = Pij, B6(i, k) -= r * Cjk;
  B6(j, i) = Pji, B6(j, j) = Pjj, B6(j, k) = jzero ? r * Cik : B6(j, k) + r * Cik;
#undef B6
#undef C6
}

/* M := X^T M X with X = Ad_{P^-1}, in place: moves a symmetric 6x6 (an inertia) from frame {b}
 * to frame {a} of P = T_ab, as hg_m6_congruence_add does with a full matrix. Each block goes to
 * R N R^T, then the translation p as three translations along the axes (they commute). red:
 * row and column 2 of M are zero (a revolute joint's projected articulated inertia), so only two
 * rows of the angular blocks take part */
HG_INLINE void hg_sym6_congruence(const hg_se3 *P, double *M, int red) {
  const double *R = P->R, *p = P->p;
  const int na = red ? 2 : 3;
  double T[9], Bn[9], An[6], Cn[6];
  static const int ia[6] = {0, 1, 2, 0, 0, 1}, ib[6] = {0, 1, 2, 1, 2, 2};
  /* A: T = N R^T (rows < na), A' = R T */
  HG_UNROLL(8)
  for (int a = 0; a < na; a++)
    HG_UNROLL(8)
    for (int b = 0; b < 3; b++) {
      /* (sums start from their first product: a + 0 is not folded without -fno-signed-zeros) */
      double t = M[hg_sym6_index(a, 0)] * R[3 * b];
      HG_UNROLL(8)
      for (int k = 1; k < na; k++) t += M[hg_sym6_index(a, k)] * R[3 * b + k];
      T[3 * a + b] = t;
    }
  HG_UNROLL(8)
  for (int e = 0; e < 6; e++) {
    double t = R[3 * ia[e]] * T[ib[e]];
    HG_UNROLL(8)
    for (int k = 1; k < na; k++) t += R[3 * ia[e] + k] * T[3 * k + ib[e]];
    An[e] = t;
  }
  /* B (rows < na): T = B R^T, B' = R T */
  HG_UNROLL(8)
  for (int a = 0; a < na; a++)
    HG_UNROLL(8)
    for (int b = 0; b < 3; b++)
      T[3 * a + b] = M[hg_sym6_index(a, 3)] * R[3 * b] + M[hg_sym6_index(a, 4)] * R[3 * b + 1] + M[hg_sym6_index(a, 5)] * R[3 * b + 2];
  HG_UNROLL(8)
  for (int a = 0; a < 3; a++)
    HG_UNROLL(8)
    for (int b = 0; b < 3; b++) {
      double t = R[3 * a] * T[b];
      HG_UNROLL(8)
      for (int k = 1; k < na; k++) t += R[3 * a + k] * T[3 * k + b];
      Bn[3 * a + b] = t;
    }
  /* C (full): T = C R^T, C' = R T (upper triangle) */
  HG_UNROLL(8)
  for (int a = 0; a < 3; a++)
    HG_UNROLL(8)
    for (int b = 0; b < 3; b++)
      T[3 * a + b] = M[hg_sym6_index(3 + a, 3)] * R[3 * b] + M[hg_sym6_index(3 + a, 4)] * R[3 * b + 1] +
                     M[hg_sym6_index(3 + a, 5)] * R[3 * b + 2];
  HG_UNROLL(8)
  for (int e = 0; e < 6; e++)
    Cn[e] = R[3 * ia[e]] * T[ib[e]] + R[3 * ia[e] + 1] * T[3 + ib[e]] + R[3 * ia[e] + 2] * T[6 + ib[e]];
  HG_UNROLL(8)
  for (int e = 0; e < 6; e++) M[hg_sym6_index(ia[e], ib[e])] = An[e], M[hg_sym6_index(3 + ia[e], 3 + ib[e])] = Cn[e];
  HG_UNROLL(8)
  for (int a = 0; a < 3; a++)
    HG_UNROLL(8)
    for (int b = 0; b < 3; b++) M[hg_sym6_index(a, 3 + b)] = Bn[3 * a + b];
  hg_sym6_trans_axis(0, p[0], M, 0, 0);
  hg_sym6_trans_axis(1, p[1], M, 0, 0);
  hg_sym6_trans_axis(2, p[2], M, 0, 0);
}

#endif
