/* spatial.h: the one spatial-algebra module of hinge.
 *
 * SO(3), SE(3) and their Lie algebras, following ../docs/conventions.md:
 *   - 3x3 matrices are row-major double[9];
 *   - a pose T = (R, p) is hg_se3, the pose of frame {b} seen from frame {a} (T_ab);
 *   - a twist V = (w, v) and a wrench F = (m, f) are double[6], angular part first;
 *   - Ad_T = [[R, 0], [p^ R, R]], ad_V = [[w^, 0], [v^, w^]], ad*_V = ad_V^T;
 *   - quaternions are (w, x, y, z), Hamilton convention.
 * Every function allows its output to alias no input unless it says so. */
#ifndef HINGE_SPATIAL_H
#define HINGE_SPATIAL_H

#include <math.h>

#include "hot.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hg_se3 {
  double R[9]; /* rotation, row-major */
  double p[3]; /* translation */
} hg_se3;

typedef double hg_vec6[6];  /* twist or wrench */
typedef double hg_mat6[36]; /* 6x6, row-major */

/* ---- 3-vectors and 3x3 matrices ---- */

static inline double hg_v3_dot(const double a[3], const double b[3]) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
/* (The small products below read all their inputs before they write, so the compiler keeps
 * the inputs in registers instead of reloading them after every store.) */

/* c = a x b (c may not alias a or b) */
static inline void hg_v3_cross(const double a[3], const double b[3], double c[3]) {
  double a0 = a[0], a1 = a[1], a2 = a[2], b0 = b[0], b1 = b[1], b2 = b[2];
  c[0] = a1 * b2 - a2 * b1;
  c[1] = a2 * b0 - a0 * b2;
  c[2] = a0 * b1 - a1 * b0;
}
/* c += a x b */
static inline void hg_v3_cross_add(const double a[3], const double b[3], double c[3]) {
  double a0 = a[0], a1 = a[1], a2 = a[2], b0 = b[0], b1 = b[1], b2 = b[2];
  c[0] += a1 * b2 - a2 * b1;
  c[1] += a2 * b0 - a0 * b2;
  c[2] += a0 * b1 - a1 * b0;
}
/* y = R x */
static inline void hg_m3_mulv(const double R[9], const double x[3], double y[3]) {
  double x0 = x[0], x1 = x[1], x2 = x[2];
  double y0 = R[0] * x0 + R[1] * x1 + R[2] * x2;
  double y1 = R[3] * x0 + R[4] * x1 + R[5] * x2;
  double y2 = R[6] * x0 + R[7] * x1 + R[8] * x2;
  y[0] = y0, y[1] = y1, y[2] = y2;
}
/* y = R^T x */
static inline void hg_m3_mulTv(const double R[9], const double x[3], double y[3]) {
  double x0 = x[0], x1 = x[1], x2 = x[2];
  double y0 = R[0] * x0 + R[3] * x1 + R[6] * x2;
  double y1 = R[1] * x0 + R[4] * x1 + R[7] * x2;
  double y2 = R[2] * x0 + R[5] * x1 + R[8] * x2;
  y[0] = y0, y[1] = y1, y[2] = y2;
}

/* *s = sin x and *c = cos x, for the kinematic walk, where libm's sincos costs more than the rest
 * of a revolute joint's pose. For |x| <= 1e5: x = k pi/2 + r with pi/2 = P1 + P2 (P1 of 33 bits,
 * so k P1 is exact for |k| < 2^20 and so is x - k P1; P2 the rest to double precision), then
 * polynomials for sin r and cos r on |r| <= pi/4 (to r^13 and r^14, relative error below 4e-18),
 * rotated by the quadrant k mod 4: within 2^-53 of libm's sin and cos (an ulp of results in
 * [0.5, 1); tests/test_spatial.c), which serve larger |x|, inf and NaN. */
HG_INLINE void hg_sincos(double x, double *s, double *c) {
  if (!(fabs(x) <= 1e5)) {
    *s = sin(x), *c = cos(x);
    return;
  }
  /* k = x / (pi/2) rounded to an integer by the 1.5 2^52 shift, r = x - k pi/2 */
  const double shift = 6755399441055744.0; /* 1.5 2^52 */
  double k = (x * 0.6366197723675814 + shift) - shift;
  double r = x - k * 1.5707963267341256; /* P1 */
  r -= k * 6.077100506506192e-11;         /* P2 */
  /* the two polynomials in z = r^2 (Horner): sin r = r - r z ps(z), cos r = 1 - z pc(z), with ps
   * and pc of degree 5 and 6 the minimax fits on z <= (pi/4)^2 of tests/support/sincos_remez.py
   * (weighted for the relative error of sin r and cos r: at most 3.6e-18 and 3.9e-20; the Taylor
   * series need degree 7 and 8 for the same) */
  double z = r * r;
  double ps = -1.5896230162294208e-10;
  ps = ps * z + 2.5050747762944882e-08;
  ps = ps * z - 2.755731362138633e-06;
  ps = ps * z + 0.00019841269829589542;
  ps = ps * z - 0.008333333333322118;
  ps = ps * z + 0.1666666666666663;
  double sr = r - r * z * ps;
  double pc = 1.135328119458064e-11;
  pc = pc * z - 2.0875582125837634e-09;
  pc = pc * z + 2.755731311728129e-07;
  pc = pc * z - 2.480158728409458e-05;
  pc = pc * z + 0.0013888888888862;
  pc = pc * z - 0.04166666666666647;
  pc = pc * z + 0.5;
  double cr = 1 - z * pc;
  /* quadrant n: (sin, cos) = (sr, cr), (cr, -sr), (-sr, -cr), (-cr, sr) */
  int n = (int)k & 3;
  double so = n & 1 ? cr : sr, co = n & 1 ? sr : cr;
  *s = n & 2 ? -so : so;
  *c = (n + 1) & 2 ? -co : co;
}

/* R = rotation by the angle with cosine c and sine s about coordinate axis k (0, 1, 2) */
static inline void hg_m3_axis_rotation(int k, double c, double s, double R[9]) {
  int i = (k + 1) % 3, j = (k + 2) % 3;
  R[3 * i + i] = c;  R[3 * i + j] = -s; R[3 * i + k] = 0;
  R[3 * j + i] = s;  R[3 * j + j] = c;  R[3 * j + k] = 0;
  R[3 * k + i] = 0;  R[3 * k + j] = 0;  R[3 * k + k] = 1;
}
/* C = A Rot(e_k) for that rotation: column k of A is kept, the other two turn (C may not alias
 * A) */
static inline void hg_m3_mul_axis_rotation(const double A[9], int k, double c, double s, double C[9]) {
  int i = (k + 1) % 3, j = (k + 2) % 3;
  for (int r = 0; r < 3; r++) {
    double ai = A[3 * r + i], aj = A[3 * r + j], ak = A[3 * r + k];
    C[3 * r + i] = c * ai + s * aj;
    C[3 * r + j] = c * aj - s * ai;
    C[3 * r + k] = ak;
  }
}

double hg_v3_norm(const double a[3]);
/* skew-symmetric matrix a^ with a^ b = a x b */
void hg_m3_skew(const double a[3], double S[9]);
/* C = A B (C may alias A or B) */
static inline void hg_m3_mul(const double A[9], const double B[9], double C[9]) {
  double c0 = A[0] * B[0] + A[1] * B[3] + A[2] * B[6], c1 = A[0] * B[1] + A[1] * B[4] + A[2] * B[7];
  double c2 = A[0] * B[2] + A[1] * B[5] + A[2] * B[8], c3 = A[3] * B[0] + A[4] * B[3] + A[5] * B[6];
  double c4 = A[3] * B[1] + A[4] * B[4] + A[5] * B[7], c5 = A[3] * B[2] + A[4] * B[5] + A[5] * B[8];
  double c6 = A[6] * B[0] + A[7] * B[3] + A[8] * B[6], c7 = A[6] * B[1] + A[7] * B[4] + A[8] * B[7];
  double c8 = A[6] * B[2] + A[7] * B[5] + A[8] * B[8];
  C[0] = c0; C[1] = c1; C[2] = c2; C[3] = c3; C[4] = c4; C[5] = c5; C[6] = c6; C[7] = c7; C[8] = c8;
}
/* C = A^T B, C = A B^T (C may not alias A or B) */
void hg_m3_mulT(const double A[9], const double B[9], double C[9]);
void hg_m3_mul_T(const double A[9], const double B[9], double C[9]);
void hg_m3_transpose(const double A[9], double At[9]);
void hg_m3_identity(double A[9]);
/* solve A x = b for a general 3x3 A by Cramer's rule; returns 0, or -1 when |det| is tiny */
int hg_m3_solve(const double A[9], const double b[3], double x[3]);

/* ---- SO(3) ---- */

/* R = exp(w^), Rodrigues' formula, with Taylor series for small |w| */
void hg_so3_exp(const double w[3], double R[9]);
/* w = log(R) with |w| <= pi; robust near 0 (series) and near pi (from the symmetric part) */
void hg_so3_log(const double R[9], double w[3]);
/* left Jacobian  J_l(w) = sum_k (w^)^k / (k+1)!  : exp(w + d) ~= exp(J_l d) exp(w)
 * right Jacobian J_r(w) = J_l(-w)                 : exp(w + d) ~= exp(w) exp(J_r d)
 * and their inverses; all 3x3 row-major, series near |w| = 0. */
void hg_so3_jl(const double w[3], double J[9]);
void hg_so3_jr(const double w[3], double J[9]);
void hg_so3_jl_inv(const double w[3], double J[9]);
void hg_so3_jr_inv(const double w[3], double J[9]);

/* roll-pitch-yaw angles (fixed axes x, y, z, as URDF and scene files give them):
 * R = Rz(yaw) Ry(pitch) Rx(roll); and back, with pitch in [-pi/2, pi/2] */
void hg_rpy_to_R(const double rpy[3], double R[9]);
void hg_R_to_rpy(const double R[9], double rpy[3]);

/* ---- unit quaternions (w, x, y, z) ---- */

/* R of a quaternion; q need not be normalized (it is scaled to unit length) */
void hg_quat_to_R(const double q[4], double R[9]);
/* quaternion of a rotation matrix (Shepperd's method), with w >= 0 */
void hg_R_to_quat(const double R[9], double q[4]);
/* r = a * b (Hamilton product) */
void hg_quat_mul(const double a[4], const double b[4], double r[4]);
/* q = exp of a rotation vector w (the quaternion of hg_so3_exp(w)) */
void hg_quat_exp(const double w[3], double q[4]);
/* w = rotation vector of q, |w| <= pi (q and -q give the same w) */
void hg_quat_log(const double q[4], double w[3]);
/* scale q to unit length; returns its former norm */
double hg_quat_normalize(double q[4]);

/* ---- SE(3) ---- */

void hg_se3_identity(hg_se3 *T);
/* C = A B (C may alias A or B) */
static inline void hg_se3_mul(const hg_se3 *A, const hg_se3 *B, hg_se3 *C) {
  double p[3];
  hg_m3_mulv(A->R, B->p, p);
  for (int i = 0; i < 3; i++) p[i] += A->p[i];
  hg_m3_mul(A->R, B->R, C->R);
  for (int i = 0; i < 3; i++) C->p[i] = p[i];
}
/* Ti = T^-1 (Ti may alias T) */
void hg_se3_inv(const hg_se3 *T, hg_se3 *Ti);
/* C = A^-1 B (C may alias A or B) */
void hg_se3_invmul(const hg_se3 *A, const hg_se3 *B, hg_se3 *C);
/* y = R x + p: a point of frame {b} expressed in frame {a} */
void hg_se3_apply(const hg_se3 *T, const double x[3], double y[3]);
/* T = exp([xi]) for xi = (w, v) */
void hg_se3_exp(const double xi[6], hg_se3 *T);
/* xi = log(T), the inverse of hg_se3_exp with |w| <= pi */
void hg_se3_log(const hg_se3 *T, double xi[6]);
/* 6x6 left and right Jacobians of exp on SE(3) (in (w, v) ordering) and their inverses:
 * exp(xi + d) ~= exp(J_l d) exp(xi) ~= exp(xi) exp(J_r d). Row-major. */
void hg_se3_jl(const double xi[6], double J[36]);
void hg_se3_jr(const double xi[6], double J[36]);
void hg_se3_jl_inv(const double xi[6], double J[36]);
void hg_se3_jr_inv(const double xi[6], double J[36]);

/* ---- adjoint actions (twists) and co-adjoint actions (wrenches) ---- */

/* out = Ad_T V: a twist in frame {b} expressed in frame {a} */
static inline void hg_Ad(const hg_se3 *T, const double V[6], double out[6]) {
  double Rv[3];
  hg_m3_mulv(T->R, V, out);
  hg_m3_mulv(T->R, V + 3, Rv);
  hg_v3_cross(T->p, out, out + 3);
  for (int i = 0; i < 3; i++) out[3 + i] += Rv[i];
}
/* out = Ad_{T^-1} V: a twist in frame {a} expressed in frame {b} */
static inline void hg_Ad_inv(const hg_se3 *T, const double V[6], double out[6]) {
  double d[3];
  hg_v3_cross(T->p, V, d);
  for (int i = 0; i < 3; i++) d[i] = V[3 + i] - d[i];
  hg_m3_mulTv(T->R, V, out);
  hg_m3_mulTv(T->R, d, out + 3);
}
/* out = Ad_{T^-1}^T F: a wrench in frame {b} expressed in frame {a} (the wrench dual of hg_Ad) */
static inline void hg_coAd_inv(const hg_se3 *T, const double F[6], double out[6]) {
  hg_m3_mulv(T->R, F, out);
  hg_m3_mulv(T->R, F + 3, out + 3);
  hg_v3_cross_add(T->p, out + 3, out);
}
/* out = Ad_T^T F: a wrench in frame {a} expressed in frame {b} */
static inline void hg_coAd(const hg_se3 *T, const double F[6], double out[6]) {
  double d[3];
  hg_v3_cross(T->p, F + 3, d);
  for (int i = 0; i < 3; i++) d[i] = F[i] - d[i];
  hg_m3_mulTv(T->R, d, out);
  hg_m3_mulTv(T->R, F + 3, out + 3);
}
/* out = ad_V W (the Lie bracket [V, W]) = (w x W_w, v x W_w + w x W_v) */
static inline void hg_ad(const double V[6], const double W[6], double out[6]) {
  double o[6];
  hg_v3_cross(V, W, o);
  hg_v3_cross(V + 3, W, o + 3);
  hg_v3_cross_add(V, W + 3, o + 3);
  for (int r = 0; r < 6; r++) out[r] = o[r];
}
/* out = ad*_V F = ad_V^T F = (m x w + f x v, f x w) */
static inline void hg_ad_star(const double V[6], const double F[6], double out[6]) {
  double o[6];
  hg_v3_cross(F, V, o);
  hg_v3_cross_add(F + 3, V + 3, o);
  hg_v3_cross(F + 3, V, o + 3);
  for (int r = 0; r < 6; r++) out[r] = o[r];
}
/* s^T f for 6-vectors */
static inline double hg_dot6(const double s[6], const double f[6]) {
  return s[0] * f[0] + s[1] * f[1] + s[2] * f[2] + s[3] * f[3] + s[4] * f[4] + s[5] * f[5];
}
/* y = A x for a 6x6 row-major A */
static inline void hg_m6_mulv(const double A[36], const double x[6], double y[6]) {
  for (int i = 0; i < 6; i++) y[i] = hg_dot6(A + 6 * i, x);
}
/* ---- symmetric 6x6 matrices (articulated inertias), packed ---- */

/* the upper triangle row by row, 21 numbers: entry (r, c) (either order) at hg_sym6_index(r, c) */
typedef double hg_sym6[21];
static inline int hg_sym6_index(int r, int c) {
  int a = r < c ? r : c, b = r < c ? c : r;
  return 6 * a - a * (a - 1) / 2 + b - a;
}
/* y = A x */
static inline void hg_sym6_mulv(const double A[21], const double x[6], double y[6]) {
HG_UNROLL(6)
  for (int r = 0; r < 6; r++) {
    double t = A[hg_sym6_index(r, 0)] * x[0];
HG_UNROLL(6)
    for (int k = 1; k < 6; k++) t += A[hg_sym6_index(r, k)] * x[k];
    y[r] = t;
  }
}
/* 6x6 matrix of Ad_T */
void hg_Ad_matrix(const hg_se3 *T, double A[36]);
/* 6x6 matrix of ad_V */
void hg_ad_matrix(const double V[6], double A[36]);

/* ---- 6x6 helpers ---- */

/* P += X^T A X with X = Ad_{T^-1}: moves a (symmetric) articulated or composite inertia
 * A, expressed in child frame {b}, to the parent frame {a} of T = T_ab and adds it to P */
void hg_m6_congruence_add(const hg_se3 *T, const double A[36], double P[36]);

/* L = the Cholesky factor of the n x n symmetric D (n <= 6, row-major; D = L L^T, L lower
 * triangular, its diagonal in dinv as reciprocals). scale[k] bounds D_kk from above; a pivot
 * below 1e-12 scale[k] means a singular articulated inertia (-1), a non-finite one a non-finite
 * state (-2). */
HG_INLINE int hg_spd_cholesky(int n, const double *D, const double *scale, double *L,
                              double *dinv) {
HG_UNROLL(6)
  for (int j = 0; j < n; j++) {
    double s = D[j * n + j];
HG_UNROLL(6)
    for (int k = 0; k < j; k++) s -= L[j * n + k] * L[j * n + k];
    if (!isfinite(s) || !isfinite(scale[j])) return -2;
    if (!(s > 1e-12 * scale[j])) return -1;
    L[j * n + j] = sqrt(s);
    dinv[j] = 1 / L[j * n + j];
HG_UNROLL(6)
    for (int i = j + 1; i < n; i++) {
      double t = D[i * n + j];
HG_UNROLL(6)
      for (int k = 0; k < j; k++) t -= L[i * n + k] * L[j * n + k];
      L[i * n + j] = t * dinv[j];
    }
  }
  return 0;
}

/* x = A^-1 b for the packed symmetric positive definite 6x6 A (x may be b), by A = L D L^T
 * (unit lower triangular L, no square roots): the factor read from the packed entries as they
 * are, then forward and back substitution. Returns -1 unless A is positive definite: a pivot
 * d_j below 1e-12 |A_jj| (a singular articulated inertia) or a NaN. */
HG_INLINE int hg_sym6_solve(const double A[21], const double b[6], double x[6]) {
  /* column j: T_ij = A_ij - sum_k T_ik L_jk (= L_ij d_j), d_j = T_jj, L_ij = T_ij / d_j */
  double T[6][6], L[6][6], dinv[6];
HG_UNROLL(6)
  for (int j = 0; j < 6; j++) {
HG_UNROLL(6)
    for (int i = j; i < 6; i++) {
      double t = A[hg_sym6_index(i, j)];
HG_UNROLL(6)
      for (int k = 0; k < j; k++) t -= T[i][k] * L[j][k];
      T[i][j] = t;
    }
    if (!(T[j][j] > 1e-12 * fabs(A[hg_sym6_index(j, j)]))) return -1;
    dinv[j] = 1 / T[j][j];
HG_UNROLL(6)
    for (int i = j + 1; i < 6; i++) L[i][j] = T[i][j] * dinv[j];
  }
  /* L y = b, then D L^T x = y */
  double y[6];
HG_UNROLL(6)
  for (int i = 0; i < 6; i++) {
    double t = b[i];
HG_UNROLL(6)
    for (int k = 0; k < i; k++) t -= L[i][k] * y[k];
    y[i] = t;
  }
HG_UNROLL(6)
  for (int i = 5; i >= 0; i--) {
    double t = y[i] * dinv[i];
HG_UNROLL(6)
    for (int k = i + 1; k < 6; k++) t -= L[k][i] * x[k];
    x[i] = t;
  }
  return 0;
}

/* Dinv = D^-1 for the n x n symmetric D (n <= 6, row-major) by Cholesky (the articulated passes'
 * joint-space inverse). Returns as hg_spd_cholesky. */
HG_INLINE int hg_spd_inverse(int n, const double *D, const double *scale, double *Dinv) {
  double L[36], Li[36], dinv[6] = {0};
  int rc = hg_spd_cholesky(n, D, scale, L, dinv);
  if (rc) return rc;
  /* Li = L^-1 (lower triangular), Dinv = Li^T Li */
HG_UNROLL(6)
  for (int j = 0; j < n; j++) {
    Li[j * n + j] = dinv[j];
HG_UNROLL(6)
    for (int i = j + 1; i < n; i++) {
      double t = 0;
HG_UNROLL(6)
      for (int k = j; k < i; k++) t -= L[i * n + k] * Li[k * n + j];
      Li[i * n + j] = t * dinv[i];
    }
  }
HG_UNROLL(6)
  for (int i = 0; i < n; i++)
HG_UNROLL(6)
    for (int j = 0; j <= i; j++) {
      double t = 0;
HG_UNROLL(6)
      for (int k = i; k < n; k++) t += Li[k * n + i] * Li[k * n + j];
      Dinv[i * n + j] = Dinv[j * n + i] = t;
    }
  return 0;
}

#ifdef __cplusplus
}
#endif

#endif
