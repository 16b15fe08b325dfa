/* inertia.c: rigid-body spatial inertia: validation, construction, products, transformation. */
#include "inertia.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static void sym_to_m3(const double S[6], double M[9]) {
  M[0] = S[0]; M[1] = S[3]; M[2] = S[4];
  M[3] = S[3]; M[4] = S[1]; M[5] = S[5];
  M[6] = S[4]; M[7] = S[5]; M[8] = S[2];
}

void hg_sym3_eigen(const double S[6], double lambda[3], double V[9]) {
  /* cyclic Jacobi rotations A <- J^T A J, V <- V J: accurate to round-off even for repeated
   * eigenvalues */
  double A[9];
  sym_to_m3(S, A);
  for (int k = 0; k < 9; k++) V[k] = k % 4 == 0;
  for (int sweep = 0; sweep < 32; sweep++) {
    double off = A[1] * A[1] + A[2] * A[2] + A[5] * A[5];
    double diag = A[0] * A[0] + A[4] * A[4] + A[8] * A[8];
    if (off <= 1e-36 * diag || off == 0) break;
    for (int p = 0; p < 2; p++)
      for (int q = p + 1; q < 3; q++) {
        double apq = A[3 * p + q];
        if (apq == 0) continue;
        /* the rotation in the (p, q) plane that zeroes A_pq */
        double theta = (A[3 * q + q] - A[3 * p + p]) / (2 * apq);
        double t = (theta >= 0 ? 1 : -1) / (fabs(theta) + sqrt(theta * theta + 1));
        double c = 1 / sqrt(t * t + 1), s = t * c;
        for (int k = 0; k < 3; k++) {
          double akp = A[3 * k + p], akq = A[3 * k + q];
          A[3 * k + p] = c * akp - s * akq;
          A[3 * k + q] = s * akp + c * akq;
        }
        for (int k = 0; k < 3; k++) {
          double apk = A[3 * p + k], aqk = A[3 * q + k];
          A[3 * p + k] = c * apk - s * aqk;
          A[3 * q + k] = s * apk + c * aqk;
        }
        for (int k = 0; k < 3; k++) {
          double vkp = V[3 * k + p], vkq = V[3 * k + q];
          V[3 * k + p] = c * vkp - s * vkq;
          V[3 * k + q] = s * vkp + c * vkq;
        }
      }
  }
  /* the diagonal sorted ascending, with the columns of V alongside (a selection sort) */
  double l[3] = {A[0], A[4], A[8]};
  for (int i = 0; i < 2; i++) {
    int k = i;
    for (int j = i + 1; j < 3; j++)
      if (l[j] < l[k]) k = j;
    if (k == i) continue;
    double t = l[i];
    l[i] = l[k], l[k] = t;
    for (int r = 0; r < 3; r++) t = V[3 * r + i], V[3 * r + i] = V[3 * r + k], V[3 * r + k] = t;
  }
  lambda[0] = l[0], lambda[1] = l[1], lambda[2] = l[2];
}

void hg_sym3_eigenvalues(const double S[6], double lambda[3]) {
  double V[9];
  hg_sym3_eigen(S, lambda, V);
}

/* out = inertia about the origin of a body of mass m, centre of mass c and I_c about it:
 * I_o = I_c + m (|c|^2 1 - c c^T) (the parallel-axis theorem) */
static void assemble(double m, const double c[3], const double Ic[6], hg_inertia *out) {
  double cc = hg_v3_dot(c, c);
  out->m = m;
  for (int i = 0; i < 3; i++) out->h[i] = m * c[i];
  out->I[0] = Ic[0] + m * (cc - c[0] * c[0]);
  out->I[1] = Ic[1] + m * (cc - c[1] * c[1]);
  out->I[2] = Ic[2] + m * (cc - c[2] * c[2]);
  out->I[3] = Ic[3] - m * c[0] * c[1];
  out->I[4] = Ic[4] - m * c[0] * c[2];
  out->I[5] = Ic[5] - m * c[1] * c[2];
}

int hg_inertia_check(double m, const double Ic[6], double atol, char *why, size_t why_len) {
  if (!isfinite(m) || m < 0) {
    if (why) snprintf(why, why_len, "mass must be finite and >= 0, got %g", m);
    return -1;
  }
  for (int i = 0; i < 6; i++)
    if (!isfinite(Ic[i])) {
      if (why) snprintf(why, why_len, "rotational inertia has a non-finite entry");
      return -1;
    }
  double l[3];
  hg_sym3_eigenvalues(Ic, l);
  double scale = fabs(l[0]) + fabs(l[1]) + fabs(l[2]);
  double tol = 1e-9 * scale + (atol > 0 && isfinite(atol) ? atol : 0);
  if (l[0] < -tol) {
    if (why)
      snprintf(why, why_len,
               "rotational inertia is not positive semi-definite (principal moments %g %g %g)",
               l[0], l[1], l[2]);
    return -1;
  }
  if (l[2] > l[0] + l[1] + tol) {
    if (why)
      snprintf(why, why_len,
               "principal moments %g %g %g violate the triangle inequality (largest > sum of the "
               "other two)",
               l[0], l[1], l[2]);
    return -1;
  }
  return 0;
}

int hg_inertia_validate(double m, const double Ic[6], char *why, size_t why_len) {
  return hg_inertia_check(m, Ic, 0, why, why_len);
}

int hg_inertia_balance(double Ic[6], double before[3], double after[3]) {
  double l[3], n[3], V[9];
  hg_sym3_eigen(Ic, l, V);
  double tol = 1e-9 * (fabs(l[0]) + fabs(l[1]) + fabs(l[2]));
  /* clamp negative principal moments to zero */
  for (int k = 0; k < 3; k++) n[k] = l[k] < 0 ? 0 : l[k];
  /* raise the two smallest by the same amount until their sum equals the largest */
  if (n[2] > n[0] + n[1]) {
    double d = 0.5 * (n[2] - n[0] - n[1]);
    n[0] += d, n[1] += d;
  }
  if (before) memcpy(before, l, sizeof l);
  if (after) memcpy(after, n, sizeof n);
  if (l[0] >= -tol && l[2] <= l[0] + l[1] + tol) return 0;
  /* I_c = V diag(n) V^T */
  double M[9];
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++)
      M[3 * r + c] = V[3 * r] * n[0] * V[3 * c] + V[3 * r + 1] * n[1] * V[3 * c + 1] +
                     V[3 * r + 2] * n[2] * V[3 * c + 2];
  Ic[0] = M[0], Ic[1] = M[4], Ic[2] = M[8];
  Ic[3] = 0.5 * (M[1] + M[3]), Ic[4] = 0.5 * (M[2] + M[6]), Ic[5] = 0.5 * (M[5] + M[7]);
  return 1;
}

int hg_inertia_from_com(double m, const double c[3], const double Ic[6], hg_inertia *out,
                        char *why, size_t why_len) {
  if (hg_inertia_validate(m, Ic, why, why_len)) return -1;
  for (int i = 0; i < 3; i++) {
    if (!isfinite(c[i])) {
      if (why) snprintf(why, why_len, "centre of mass has a non-finite entry");
      return -1;
    }
  }
  assemble(m, c, Ic, out);
  return 0;
}

void hg_inertia_com(const hg_inertia *G, double c[3], double Ic[6]) {
  double m = G->m;
  for (int i = 0; i < 3; i++) c[i] = m > 0 ? G->h[i] / m : 0;
  double cc = hg_v3_dot(c, c);
  Ic[0] = G->I[0] - m * (cc - c[0] * c[0]);
  Ic[1] = G->I[1] - m * (cc - c[1] * c[1]);
  Ic[2] = G->I[2] - m * (cc - c[2] * c[2]);
  Ic[3] = G->I[3] + m * c[0] * c[1];
  Ic[4] = G->I[4] + m * c[0] * c[2];
  Ic[5] = G->I[5] + m * c[1] * c[2];
}

void hg_inertia_transform(const hg_se3 *T, const hg_inertia *Ib, hg_inertia *Ia) {
  /* G_a = Ad_{T^-1}^T G_b Ad_{T^-1}: rotate (I_r = R I R^T, h_r = R h), then move the origin by
   * -p: h_a = h_r + m p, I_a = I_r + 2 (h_r . p) 1 - (p h_r^T + h_r p^T) + m (|p|^2 1 - p p^T) */
  const double *R = T->R, *p = T->p, m = Ib->m;
  double I[9], t[9], Ir[9], hr[3];
  sym_to_m3(Ib->I, I);
  hg_m3_mul(R, I, t);
  /* I_r = t R^T is symmetric: its upper triangle suffices */
  for (int r = 0; r < 3; r++)
    for (int k = r; k < 3; k++)
      Ir[3 * r + k] = Ir[3 * k + r] = t[3 * r] * R[3 * k] + t[3 * r + 1] * R[3 * k + 1] + t[3 * r + 2] * R[3 * k + 2];
  hg_m3_mulv(R, Ib->h, hr);
  double hp = hg_v3_dot(hr, p), pp = hg_v3_dot(p, p);
  Ia->m = m;
  for (int i = 0; i < 3; i++) Ia->h[i] = hr[i] + m * p[i];
  Ia->I[0] = Ir[0] + 2 * hp - 2 * p[0] * hr[0] + m * (pp - p[0] * p[0]);
  Ia->I[1] = Ir[4] + 2 * hp - 2 * p[1] * hr[1] + m * (pp - p[1] * p[1]);
  Ia->I[2] = Ir[8] + 2 * hp - 2 * p[2] * hr[2] + m * (pp - p[2] * p[2]);
  Ia->I[3] = Ir[1] - (p[0] * hr[1] + hr[0] * p[1]) - m * p[0] * p[1];
  Ia->I[4] = Ir[2] - (p[0] * hr[2] + hr[0] * p[2]) - m * p[0] * p[2];
  Ia->I[5] = Ir[5] - (p[1] * hr[2] + hr[1] * p[2]) - m * p[1] * p[2];
}

void hg_inertia_to_c(const hg_inertia *G, hg_inertia_c *out) {
  out->m = G->m;
  hg_inertia_com(G, out->c, out->Ic);
  out->diagonal = out->Ic[3] == 0 && out->Ic[4] == 0 && out->Ic[5] == 0;
  /* the rank-two form from the principal moments (ascending) and axes (columns of V) */
  double l[3], V[9];
  hg_sym3_eigen(out->Ic, l, V);
  double sa = sqrt(fmax(l[2] - l[0], 0)), sb = sqrt(fmax(l[1] - l[0], 0));
  out->l0 = l[0];
  for (int r = 0; r < 3; r++) out->a[r] = sa * V[3 * r + 2], out->b[r] = sb * V[3 * r + 1];
  for (int k = 0; k < 3; k++)
    out->abc[k][0] = out->a[k], out->abc[k][1] = out->b[k], out->abc[k][2] = out->c[k],
    out->abc[k][3] = 0;
}

