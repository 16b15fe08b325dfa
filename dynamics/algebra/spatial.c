/* spatial.c: SO(3), SE(3), quaternions, adjoint and co-adjoint actions. */
#include "spatial.h"

#include <math.h>
#include <string.h>

#define HG_PI 3.14159265358979323846

/* ---- 3-vectors and 3x3 matrices ---- */

double hg_v3_norm(const double a[3]) { return sqrt(hg_v3_dot(a, a)); }

void hg_m3_skew(const double a[3], double S[9]) {
  S[0] = 0;     S[1] = -a[2]; S[2] = a[1];
  S[3] = a[2];  S[4] = 0;     S[5] = -a[0];
  S[6] = -a[1]; S[7] = a[0];  S[8] = 0;
}

void hg_m3_mulT(const double A[9], const double B[9], double C[9]) {
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      C[3 * i + j] = A[i] * B[j] + A[3 + i] * B[3 + j] + A[6 + i] * B[6 + j];
}

void hg_m3_mul_T(const double A[9], const double B[9], double C[9]) {
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      C[3 * i + j] = A[3 * i] * B[3 * j] + A[3 * i + 1] * B[3 * j + 1] + A[3 * i + 2] * B[3 * j + 2];
}

void hg_m3_transpose(const double A[9], double At[9]) {
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) At[3 * j + i] = A[3 * i + j];
}

void hg_m3_identity(double A[9]) {
  memset(A, 0, 9 * sizeof(double));
  A[0] = A[4] = A[8] = 1;
}

int hg_m3_solve(const double A[9], const double b[3], double x[3]) {
  double c0[3] = {A[0], A[3], A[6]}, c1[3] = {A[1], A[4], A[7]}, c2[3] = {A[2], A[5], A[8]};
  double c12[3], c20[3], c01[3];
  hg_v3_cross(c1, c2, c12);
  hg_v3_cross(c2, c0, c20);
  hg_v3_cross(c0, c1, c01);
  double det = hg_v3_dot(c0, c12);
  double scale = hg_v3_norm(c0) * hg_v3_norm(c1) * hg_v3_norm(c2);
  if (!(fabs(det) > 1e-14 * scale)) return -1;
  x[0] = hg_v3_dot(b, c12) / det;
  x[1] = hg_v3_dot(b, c20) / det;
  x[2] = hg_v3_dot(b, c01) / det;
  return 0;
}

/* ---- SO(3) ---- */

/* Coefficients of the exponential series in theta^2 = t2:
 *   a = sin(t)/t,  b = (1 - cos t)/t^2,  c = (t - sin t)/t^3,  e = (1 - (t/2) cot(t/2))/t^2,
 * by nested Taylor series below t = 0.1 (truncation < 1e-16) and closed forms above. */
typedef struct { double a, b, c, e; } so3_coef;

static so3_coef so3_coefficients(double t2) {
  so3_coef k;
  if (t2 < 1e-2) {
    k.a = 1 - t2 / 6 * (1 - t2 / 20 * (1 - t2 / 42 * (1 - t2 / 72)));
    k.b = 0.5 * (1 - t2 / 12 * (1 - t2 / 30 * (1 - t2 / 56)));
    k.c = (1 - t2 / 20 * (1 - t2 / 42 * (1 - t2 / 72))) / 6;
    k.e = 1.0 / 12 + t2 / 720 + t2 * t2 / 30240 + t2 * t2 * t2 / 1209600;
  } else {
    double t = sqrt(t2), s = sin(t), h = sin(0.5 * t);
    k.a = s / t;
    k.b = 2 * h * h / t2;
    k.c = (t - s) / (t2 * t);
    k.e = (1 - 0.5 * t * cos(0.5 * t) / h) / t2;
  }
  return k;
}

/* J = I + x W + y W^2 with W = w^ */
static void so3_series(const double w[3], double x, double y, double J[9]) {
  double W[9], W2[9];
  hg_m3_skew(w, W);
  hg_m3_mul(W, W, W2);
  for (int i = 0; i < 9; i++) J[i] = x * W[i] + y * W2[i];
  J[0] += 1; J[4] += 1; J[8] += 1;
}

void hg_so3_exp(const double w[3], double R[9]) {
  so3_coef k = so3_coefficients(hg_v3_dot(w, w));
  so3_series(w, k.a, k.b, R);
}

void hg_so3_log(const double R[9], double w[3]) {
  /* sin(t) n from the skew part, cos(t) from the trace */
  double vee[3] = {0.5 * (R[7] - R[5]), 0.5 * (R[2] - R[6]), 0.5 * (R[3] - R[1])};
  double c = 0.5 * (R[0] + R[4] + R[8] - 1), s = hg_v3_norm(vee);
  if (c > 1) c = 1;
  if (c < -1) c = -1;
  double t = atan2(s, c);
  if (c > 0) {
    /* far from pi: w = t / sin(t) * vee, with t/sin t by its series near 0 (truncation < 1e-15) */
    double t2 = t * t;
    double f = t2 < 1e-2 ? 1 + t2 * (1.0 / 6 + t2 * (7.0 / 360 + t2 * (31.0 / 15120 + t2 * (127.0 / 604800 + t2 * 73.0 / 3421440))))
                         : t / s;
    for (int i = 0; i < 3; i++) w[i] = f * vee[i];
    return;
  }
  /* near pi: the axis from the symmetric part (R + R^T)/2 = c I + (1 - c) n n^T */
  int k = 0;
  if (R[4] > R[3 * k + k]) k = 1;
  if (R[8] > R[3 * k + k]) k = 2;
  double n[3];
  double nk = sqrt(fmax(R[4 * k] - c, 0) / (1 - c));
  for (int j = 0; j < 3; j++)
    n[j] = j == k ? nk : 0.5 * (R[3 * j + k] + R[3 * k + j]) / ((1 - c) * nk);
  double nn = hg_v3_norm(n);
  double sign = hg_v3_dot(n, vee) < 0 ? -1 : 1;
  for (int i = 0; i < 3; i++) w[i] = sign * t * n[i] / nn;
}

void hg_so3_jl(const double w[3], double J[9]) {
  so3_coef k = so3_coefficients(hg_v3_dot(w, w));
  so3_series(w, k.b, k.c, J);
}

void hg_so3_jr(const double w[3], double J[9]) {
  so3_coef k = so3_coefficients(hg_v3_dot(w, w));
  so3_series(w, -k.b, k.c, J);
}

void hg_so3_jl_inv(const double w[3], double J[9]) {
  so3_coef k = so3_coefficients(hg_v3_dot(w, w));
  so3_series(w, -0.5, k.e, J);
}

void hg_so3_jr_inv(const double w[3], double J[9]) {
  so3_coef k = so3_coefficients(hg_v3_dot(w, w));
  so3_series(w, 0.5, k.e, J);
}

void hg_rpy_to_R(const double rpy[3], double R[9]) {
  double cr = cos(rpy[0]), sr = sin(rpy[0]), cp = cos(rpy[1]), sp = sin(rpy[1]);
  double cy = cos(rpy[2]), sy = sin(rpy[2]);
  R[0] = cy * cp;
  R[1] = cy * sp * sr - sy * cr;
  R[2] = cy * sp * cr + sy * sr;
  R[3] = sy * cp;
  R[4] = sy * sp * sr + cy * cr;
  R[5] = sy * sp * cr - cy * sr;
  R[6] = -sp;
  R[7] = cp * sr;
  R[8] = cp * cr;
}

void hg_R_to_rpy(const double R[9], double rpy[3]) {
  rpy[0] = atan2(R[7], R[8]);
  rpy[1] = atan2(-R[6], sqrt(R[7] * R[7] + R[8] * R[8]));
  rpy[2] = atan2(R[3], R[0]);
}

/* ---- unit quaternions ---- */

void hg_quat_to_R(const double q[4], double R[9]) {
  double w = q[0], x = q[1], y = q[2], z = q[3];
  double s = 2 / (w * w + x * x + y * y + z * z);
  R[0] = 1 - s * (y * y + z * z); R[1] = s * (x * y - w * z);     R[2] = s * (x * z + w * y);
  R[3] = s * (x * y + w * z);     R[4] = 1 - s * (x * x + z * z); R[5] = s * (y * z - w * x);
  R[6] = s * (x * z - w * y);     R[7] = s * (y * z + w * x);     R[8] = 1 - s * (x * x + y * y);
}

void hg_R_to_quat(const double R[9], double q[4]) {
  double tr = R[0] + R[4] + R[8];
  if (tr > 0) {
    double s = 2 * sqrt(1 + tr);
    q[0] = 0.25 * s;
    q[1] = (R[7] - R[5]) / s;
    q[2] = (R[2] - R[6]) / s;
    q[3] = (R[3] - R[1]) / s;
  } else if (R[0] > R[4] && R[0] > R[8]) {
    double s = 2 * sqrt(1 + R[0] - R[4] - R[8]);
    q[0] = (R[7] - R[5]) / s;
    q[1] = 0.25 * s;
    q[2] = (R[1] + R[3]) / s;
    q[3] = (R[2] + R[6]) / s;
  } else if (R[4] > R[8]) {
    double s = 2 * sqrt(1 + R[4] - R[0] - R[8]);
    q[0] = (R[2] - R[6]) / s;
    q[1] = (R[1] + R[3]) / s;
    q[2] = 0.25 * s;
    q[3] = (R[5] + R[7]) / s;
  } else {
    double s = 2 * sqrt(1 + R[8] - R[0] - R[4]);
    q[0] = (R[3] - R[1]) / s;
    q[1] = (R[2] + R[6]) / s;
    q[2] = (R[5] + R[7]) / s;
    q[3] = 0.25 * s;
  }
  if (q[0] < 0)
    for (int i = 0; i < 4; i++) q[i] = -q[i];
  hg_quat_normalize(q);
}

void hg_quat_mul(const double a[4], const double b[4], double r[4]) {
  double w = a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3];
  double x = a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2];
  double y = a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1];
  double z = a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0];
  r[0] = w; r[1] = x; r[2] = y; r[3] = z;
}

void hg_quat_exp(const double w[3], double q[4]) {
  double t2 = hg_v3_dot(w, w), t = sqrt(t2);
  /* sin(t/2)/t, series below t = 1e-2 */
  double f = t2 < 1e-4 ? 0.5 * (1 - t2 / 24 * (1 - t2 / 80)) : sin(0.5 * t) / t;
  q[0] = cos(0.5 * t);
  q[1] = f * w[0]; q[2] = f * w[1]; q[3] = f * w[2];
}

void hg_quat_log(const double q[4], double w[3]) {
  double sgn = q[0] < 0 ? -1 : 1;
  double c = sgn * q[0], v[3] = {sgn * q[1], sgn * q[2], sgn * q[3]};
  double s = hg_v3_norm(v);
  /* t = 2 atan2(s, c); w = t / s * v, with the ratio by series for small s/c */
  double f;
  if (s < 1e-4 * c) {
    double r2 = (s / c) * (s / c);
    f = 2 / c * (1 - r2 / 3 * (1 - 0.6 * r2));
  } else {
    f = 2 * atan2(s, c) / s;
  }
  for (int i = 0; i < 3; i++) w[i] = f * v[i];
}

double hg_quat_normalize(double q[4]) {
  double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  if (n > 0)
    for (int i = 0; i < 4; i++) q[i] /= n;
  return n;
}

/* ---- SE(3) ---- */

void hg_se3_identity(hg_se3 *T) {
  hg_m3_identity(T->R);
  T->p[0] = T->p[1] = T->p[2] = 0;
}

void hg_se3_inv(const hg_se3 *T, hg_se3 *Ti) {
  hg_se3 out;
  hg_m3_transpose(T->R, out.R);
  hg_m3_mulTv(T->R, T->p, out.p);
  for (int i = 0; i < 3; i++) out.p[i] = -out.p[i];
  *Ti = out;
}

void hg_se3_invmul(const hg_se3 *A, const hg_se3 *B, hg_se3 *C) {
  hg_se3 out;
  double d[3] = {B->p[0] - A->p[0], B->p[1] - A->p[1], B->p[2] - A->p[2]};
  hg_m3_mulT(A->R, B->R, out.R);
  hg_m3_mulTv(A->R, d, out.p);
  *C = out;
}

void hg_se3_apply(const hg_se3 *T, const double x[3], double y[3]) {
  hg_m3_mulv(T->R, x, y);
  for (int i = 0; i < 3; i++) y[i] += T->p[i];
}

void hg_se3_exp(const double xi[6], hg_se3 *T) {
  double J[9];
  hg_so3_exp(xi, T->R);
  hg_so3_jl(xi, J);
  hg_m3_mulv(J, xi + 3, T->p);
}

void hg_se3_log(const hg_se3 *T, double xi[6]) {
  double Ji[9];
  hg_so3_log(T->R, xi);
  hg_so3_jl_inv(xi, Ji);
  hg_m3_mulv(Ji, T->p, xi + 3);
}

/* Q(w, v), the lower-left block of the SE(3) left Jacobian in (w, v) ordering:
 * Q = v^/2 + c1 (W V + V W + W V W) + c2 (W W V + V W W - 3 W V W) + c3 (W V W W + W W V W),
 * with W = w^, V = v^, c1 = (t - sin t)/t^3, c2 = (t^2 + 2 cos t - 2)/(2 t^4),
 * c3 = (2t - 3 sin t + t cos t)/(2 t^5), series below t = 0.1. */
static void se3_q(const double w[3], const double v[3], double Q[9]) {
  double t2 = hg_v3_dot(w, w), c1, c2, c3;
  if (t2 < 1e-2) {
    c1 = (1 - t2 / 20 * (1 - t2 / 42 * (1 - t2 / 72))) / 6;
    c2 = (1 - t2 / 30 * (1 - t2 / 56 * (1 - t2 / 90))) / 24;
    c3 = (1 - t2 / 21 * (1 - t2 / 48 * (1 - t2 / 82.5))) / 120;
  } else {
    double t = sqrt(t2), s = sin(t), c = cos(t);
    c1 = (t - s) / (t2 * t);
    c2 = (t2 + 2 * c - 2) / (2 * t2 * t2);
    c3 = (2 * t - 3 * s + t * c) / (2 * t2 * t2 * t);
  }
  double W[9], V[9], WV[9], VW[9], WW[9], WVW[9], WWV[9], VWW[9], WVWW[9], WWVW[9];
  hg_m3_skew(w, W);
  hg_m3_skew(v, V);
  hg_m3_mul(W, V, WV);
  hg_m3_mul(V, W, VW);
  hg_m3_mul(W, W, WW);
  hg_m3_mul(WV, W, WVW);
  hg_m3_mul(WW, V, WWV);
  hg_m3_mul(VW, W, VWW);
  hg_m3_mul(WVW, W, WVWW);
  hg_m3_mul(W, WVW, WWVW);
  for (int i = 0; i < 9; i++)
    Q[i] = 0.5 * V[i] + c1 * (WV[i] + VW[i] + WVW[i]) + c2 * (WWV[i] + VWW[i] - 3 * WVW[i]) +
           c3 * (WVWW[i] + WWVW[i]);
}

/* J = [[A, 0], [B, A]] as a 6x6 row-major matrix */
static void block_lower(const double A[9], const double B[9], double J[36]) {
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      J[6 * i + j] = A[3 * i + j];
      J[6 * i + j + 3] = 0;
      J[6 * (i + 3) + j] = B[3 * i + j];
      J[6 * (i + 3) + j + 3] = A[3 * i + j];
    }
}

void hg_se3_jl(const double xi[6], double J[36]) {
  double A[9], Q[9];
  hg_so3_jl(xi, A);
  se3_q(xi, xi + 3, Q);
  block_lower(A, Q, J);
}

void hg_se3_jr(const double xi[6], double J[36]) {
  double m[6] = {-xi[0], -xi[1], -xi[2], -xi[3], -xi[4], -xi[5]};
  hg_se3_jl(m, J);
}

void hg_se3_jl_inv(const double xi[6], double J[36]) {
  /* [[A, 0], [Q, A]]^-1 = [[A^-1, 0], [-A^-1 Q A^-1, A^-1]] */
  double Ai[9], Q[9], T[9], B[9];
  hg_so3_jl_inv(xi, Ai);
  se3_q(xi, xi + 3, Q);
  hg_m3_mul(Ai, Q, T);
  hg_m3_mul(T, Ai, B);
  for (int i = 0; i < 9; i++) B[i] = -B[i];
  block_lower(Ai, B, J);
}

void hg_se3_jr_inv(const double xi[6], double J[36]) {
  double m[6] = {-xi[0], -xi[1], -xi[2], -xi[3], -xi[4], -xi[5]};
  hg_se3_jl_inv(m, J);
}

/* ---- adjoint and co-adjoint actions ---- */


void hg_Ad_matrix(const hg_se3 *T, double A[36]) {
  double P[9], PR[9];
  hg_m3_skew(T->p, P);
  hg_m3_mul(P, T->R, PR);
  block_lower(T->R, PR, A);
}

void hg_ad_matrix(const double V[6], double A[36]) {
  double W[9], Vh[9];
  hg_m3_skew(V, W);
  hg_m3_skew(V + 3, Vh);
  block_lower(W, Vh, A);
}

/* ---- 6x6 helpers ---- */

/* 3x3 block (r, c) of a 6x6 matrix, in and out */
static void get_block(const double A[36], int r, int c, double B[9]) {
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) B[3 * i + j] = A[6 * (3 * r + i) + 3 * c + j];
}

/* y = p^ X for a 3x3 X (column by column: p x X_col) */
static void skew_mul(const double p[3], const double X[9], double Y[9]) {
  for (int j = 0; j < 3; j++) {
    double x0 = X[j], x1 = X[3 + j], x2 = X[6 + j];
    Y[j] = p[1] * x2 - p[2] * x1;
    Y[3 + j] = p[2] * x0 - p[0] * x2;
    Y[6 + j] = p[0] * x1 - p[1] * x0;
  }
}

void hg_m6_congruence_add(const hg_se3 *T, const double A[36], double P[36]) {
  /* X = Ad_{T^-1} = diag(R^T, R^T) [[1, 0], [-p^, 1]], so X^T A X = K^T C K with
   * C = diag(R, R) A diag(R^T, R^T) and K = [[1, 0], [-p^, 1]]:
   *   upper-left  C11 + Z + Z^T - Y p^,  upper-right C12 + Y,  lower-right C22,
   * where Y = p^ C22 and Z = p^ C21. */
  const double *R = T->R, *p = T->p;
  double a[9], t[9], C11[9], C12[9], C22[9], Y[9], Z[9], YP[9];
  get_block(A, 0, 0, a); hg_m3_mul(R, a, t); hg_m3_mul_T(t, R, C11);
  get_block(A, 0, 1, a); hg_m3_mul(R, a, t); hg_m3_mul_T(t, R, C12);
  get_block(A, 1, 1, a); hg_m3_mul(R, a, t); hg_m3_mul_T(t, R, C22);
  skew_mul(p, C22, Y);
  hg_m3_transpose(C12, t); /* C21 */
  skew_mul(p, t, Z);
  /* Y p^ = -(p^ Y^T)^T */
  hg_m3_transpose(Y, t);
  skew_mul(p, t, a);
  hg_m3_transpose(a, YP);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      double ul = C11[3 * i + j] + Z[3 * i + j] + Z[3 * j + i] + YP[3 * i + j];
      double ur = C12[3 * i + j] + Y[3 * i + j];
      P[6 * i + j] += ul;
      P[6 * i + j + 3] += ur;
      P[6 * (j + 3) + i] += ur;
      P[6 * (i + 3) + j + 3] += C22[3 * i + j];
    }
}
