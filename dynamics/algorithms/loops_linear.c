/* loops_linear.c: linearization of closed-loop dynamics in independent coordinates z = N^T (q (-)
 * q0), and the equilibria of a closed mechanism (loops.h). Central differences of the
 * constrained hybrid dynamics (hg_loops_hybrid), whose states are mapped onto the manifold by the
 * projection. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loops.h"
#include "loops_dense.h"

#define RTOL 1e-9
/* the projection's tolerance (m, rad): central differences of step h divide its error by h */
#define PROJECT_TOL 1e-13

/* scratch layout in Z->ws */
typedef struct ws_view {
  double *G, *q, *v, *dq, *qdd, *tau, *fext, *GW, *rhs, *y, *zdd, *zp, *zm, *Mf, *vb, *MN;
} ws_view;

static ws_view view(hg_loops_linear *Z, hg_loops *L) {
  const hg_model *m = Z->m;
  size_t nv = (size_t)m->nv, mr = (size_t)hg_loops_maxrows(L) + 1, nq = (size_t)m->nq + 1;
  double *p = Z->ws;
  ws_view w;
#define TAKE(x, n) (w.x = p, p += (n))
  TAKE(G, mr * nv);
  TAKE(q, nq);
  TAKE(v, nv + 1);
  TAKE(dq, nv + 1);
  TAKE(qdd, nv + 1);
  TAKE(tau, nv + 1);
  TAKE(fext, 6 * (size_t)m->nbody);
  TAKE(GW, mr * nv);
  TAKE(rhs, mr);
  TAKE(y, nv + 1);
  TAKE(zdd, nv + 1);
  TAKE(zp, nv + 1);
  TAKE(zm, nv + 1);
  TAKE(Mf, nv * nv + 1);
  TAKE(vb, nv + 1);
  TAKE(MN, nv * nv + 1);
#undef TAKE
  return w;
}

static size_t ws_size(const hg_model *m, int mr) {
  size_t nv = (size_t)m->nv, r = (size_t)mr + 1, nq = (size_t)m->nq + 1;
  return 2 * r * nv + nq + 9 * (nv + 1) + 6 * (size_t)m->nbody + r + 2 * (nv * nv + 1);
}

hg_loops_linear *hg_loops_linear_new(const hg_model *m, hg_loops *L) {
  hg_loops_linear *Z = calloc(1, sizeof *Z);
  if (!Z) return NULL;
  size_t nv = (size_t)m->nv;
  Z->m = m;
  Z->nv = m->nv;
  Z->dof = calloc(nv + 1, sizeof(int));
  Z->N = calloc(nv * nv + 1, sizeof(double));
  Z->W = calloc(nv * nv + 1, sizeof(double));
  Z->A = calloc(4 * nv * nv + 1, sizeof(double));
  Z->B = calloc(2 * nv * nv + 1, sizeof(double));
  Z->M = calloc(nv * nv + 1, sizeof(double));
  Z->K = calloc(nv * nv + 1, sizeof(double));
  Z->C = calloc(nv * nv + 1, sizeof(double));
  Z->xdot0 = calloc(2 * nv + 1, sizeof(double));
  Z->ws = calloc(ws_size(m, hg_loops_maxrows(L)), sizeof(double));
  if (!Z->dof || !Z->N || !Z->W || !Z->A || !Z->B || !Z->M || !Z->K || !Z->C || !Z->xdot0 ||
      !Z->ws) {
    hg_loops_linear_free(Z);
    return NULL;
  }
  return Z;
}

void hg_loops_linear_free(hg_loops_linear *Z) {
  if (!Z) return;
  free(Z->dof), free(Z->N), free(Z->W), free(Z->A), free(Z->B), free(Z->M), free(Z->K);
  free(Z->C), free(Z->xdot0), free(Z->ws);
  free(Z);
}

/* the free DoFs, and N and W (nv x f, nv x (nfree - f), zero rows at the others) at q; 0 or -1 */
static int basis(hg_loops_linear *Z, hg_loops *L, hg_data *d, const unsigned char *active,
                 const double *q) {
  const hg_model *m = Z->m;
  int nv = m->nv, nf = 0;
  ws_view w = view(Z, L);
  for (int k = 0; k < nv; k++)
    if (d->mode[m->dof_body[k]] == HG_MODE_FREE) Z->dof[nf++] = k;
  Z->nfree = nf;
  memset(w.v, 0, (size_t)nv * sizeof(double));
  hg_kinematics(m, d, q, w.v);
  int nc = hg_loops_rows(L, d, q, w.v, active, w.G, NULL, NULL);
  for (int r = 0; r < nc; r++) /* G's free columns */
    for (int a = 0; a < nf; a++) w.GW[(size_t)r * nf + a] = w.G[(size_t)r * nv + Z->dof[a]];
  /* the split into the scratch (nf x nf each), then embedded */
  double *Wf = w.Mf, *Nf = w.MN;
  int r = hg_ld_split(nc, nf, w.GW, RTOL, Wf, Nf);
  if (r < 0) {
    snprintf(d->err, sizeof d->err, "LAPACK (dgesvd) failed on the loops' rows");
    return -1;
  }
  int f = nf - r;
  Z->rank_G = r;
  Z->f = f;
  memset(Z->N, 0, (size_t)nv * f * sizeof(double));
  memset(Z->W, 0, (size_t)nv * r * sizeof(double));
  for (int a = 0; a < nf; a++) {
    memcpy(Z->N + (size_t)Z->dof[a] * f, Nf + (size_t)a * f, (size_t)f * sizeof(double));
    memcpy(Z->W + (size_t)Z->dof[a] * r, Wf + (size_t)a * r, (size_t)r * sizeof(double));
  }
  return 0;
}

/* zddot at the state (z, zdot) about (q0, vb) with the free forces tau_in (nfree; may be NULL):
 * w.q, w.v get the state, w.qdd its accelerations. 0 or -1 */
static int zddot(hg_loops_linear *Z, hg_loops *L, hg_data *d, const unsigned char *active,
                 const double *q0, const double *vb, const double *qdd0, const hg_loops_forces *fe,
                 const double *z, const double *zdot, const double *tau_in, double *out) {
  const hg_model *m = Z->m;
  int nv = m->nv, f = Z->f, r = Z->rank_G;
  ws_view w = view(Z, L);
  /* q(z) = project(q0 (+) N z) */
  for (int k = 0; k < nv; k++) {
    double s = 0;
    for (int i = 0; i < f; i++) s += Z->N[(size_t)k * f + i] * z[i];
    w.dq[k] = s;
  }
  hg_model_integrate(m, q0, w.dq, 1, w.q);
  if (hg_loops_project(L, d, w.q, NULL, active, PROJECT_TOL, 50) < 0) return -1;
  /* v = vb + N zdot + W y with G(q) v = 0 */
  for (int k = 0; k < nv; k++) {
    double s = vb[k];
    for (int i = 0; i < f; i++) s += Z->N[(size_t)k * f + i] * zdot[i];
    w.v[k] = s;
  }
  hg_kinematics(m, d, w.q, w.v);
  int nc = hg_loops_rows(L, d, w.q, w.v, active, w.G, NULL, NULL);
  if (r > 0 && nc > 0) {
    for (int i = 0; i < nc; i++) {
      double s = 0;
      for (int k = 0; k < nv; k++) s += w.G[(size_t)i * nv + k] * w.v[k];
      w.rhs[i] = -s;
      for (int j = 0; j < r; j++) {
        double g = 0;
        for (int k = 0; k < nv; k++) g += w.G[(size_t)i * nv + k] * Z->W[(size_t)k * r + j];
        w.GW[(size_t)i * r + j] = g;
      }
    }
    if (hg_ld_lstsq(nc, r, w.GW, w.rhs, RTOL, w.y) < 0) {
      snprintf(d->err, sizeof d->err, "LAPACK (dgesvd) failed on the loops' rows");
      return -1;
    }
    for (int k = 0; k < nv; k++)
      for (int j = 0; j < r; j++) w.v[k] += Z->W[(size_t)k * r + j] * w.y[j];
  }
  /* the constrained dynamics under the force elements */
  hg_kinematics(m, d, w.q, w.v);
  memset(w.tau, 0, (size_t)nv * sizeof(double));
  memset(w.fext, 0, 6 * (size_t)m->nbody * sizeof(double));
  if (fe && fe->fn) fe->fn(fe->ctx, m, d, w.q, w.v, w.fext, w.tau);
  for (int a = 0; tau_in && a < Z->nfree; a++) w.tau[Z->dof[a]] += tau_in[a];
  for (int k = 0; k < nv; k++) w.qdd[k] = qdd0 ? qdd0[k] : 0;
  if (hg_loops_hybrid(L, d, w.q, w.v, active, w.qdd, w.tau, w.fext, NULL)) return -1;
  for (int i = 0; i < f; i++) {
    double s = 0;
    for (int k = 0; k < nv; k++) s += Z->N[(size_t)k * f + i] * w.qdd[k];
    out[i] = s;
  }
  return 0;
}

/* the lower-left (dzddot/dz) block by central differences at (0, zdot0) into J (f x f, row-major,
 * stride ld); 0 or -1 */
static int jac_z(hg_loops_linear *Z, hg_loops *L, hg_data *d, const unsigned char *active,
                 const double *q0, const double *vb, const double *qdd0, const hg_loops_forces *fe,
                 double h, const double *zdot0, double *e, double *J, int ld, int which) {
  int f = Z->f;
  ws_view w = view(Z, L);
  for (int i = 0; i < f; i++) {
    double *zp = w.zp, *zm = w.zm;
    memset(e, 0, (size_t)f * sizeof(double));
    e[i] = h;
    double *zz = e + f; /* zdot with the perturbation */
    for (int j = 0; j < f; j++) zz[j] = zdot0[j] + (which ? e[j] : 0);
    double *zq = e + 2 * f;
    for (int j = 0; j < f; j++) zq[j] = which ? 0 : e[j];
    if (zddot(Z, L, d, active, q0, vb, qdd0, fe, zq, zz, NULL, zp)) return -1;
    for (int j = 0; j < f; j++) zz[j] = zdot0[j] - (which ? e[j] : 0), zq[j] = -zq[j];
    if (zddot(Z, L, d, active, q0, vb, qdd0, fe, zq, zz, NULL, zm)) return -1;
    for (int j = 0; j < f; j++) J[(size_t)j * ld + i] = (zp[j] - zm[j]) / (2 * h);
  }
  return 0;
}

int hg_loops_linearize(hg_loops_linear *Z, hg_loops *L, hg_data *d, const unsigned char *active,
                       const double *q0, const double *v0, const double *qdd0,
                       const hg_loops_forces *fe, double h) {
  const hg_model *m = Z->m;
  int nv = m->nv, rc = -1;
  if (h <= 0) h = 1e-6;
  Z->h = h;
  if (basis(Z, L, d, active, q0)) return -1;
  int f = Z->f, nf = Z->nfree, n = 2 * f;
  double *vb = calloc((size_t)nv + 1, sizeof(double));
  double *zd0 = calloc((size_t)nv + 1, sizeof(double));
  double *e = malloc((3 * (size_t)nv + 1) * sizeof(double));
  double *zero = calloc((size_t)nv + 1, sizeof(double));
  double *tin = calloc((size_t)nv + 1, sizeof(double));
  double *Mf = malloc(((size_t)nv * nv + 1) * sizeof(double));
  ws_view w = view(Z, L);
  if (!vb || !zd0 || !e || !zero || !tin || !Mf) {
    snprintf(d->err, sizeof d->err, "out of memory");
    goto out;
  }
  /* the velocity of the non-free DoFs stays; zdot0 = N^T v0 */
  for (int k = 0; k < nv; k++) vb[k] = d->mode[m->dof_body[k]] == HG_MODE_FREE ? 0 : v0[k];
  for (int i = 0; i < f; i++) {
    double s = 0;
    for (int k = 0; k < nv; k++) s += Z->N[(size_t)k * f + i] * v0[k];
    zd0[i] = s;
  }
  memset(Z->A, 0, (size_t)n * n * sizeof(double));
  memset(Z->B, 0, (size_t)n * nf * sizeof(double));
  for (int i = 0; i < f; i++) Z->A[(size_t)i * n + f + i] = 1;
  /* the drift */
  if (zddot(Z, L, d, active, q0, vb, qdd0, fe, zero, zd0, NULL, w.zdd)) goto out;
  for (int i = 0; i < f; i++) Z->xdot0[i] = zd0[i], Z->xdot0[f + i] = w.zdd[i];
  /* d zddot / dz and d zddot / dzdot */
  if (jac_z(Z, L, d, active, q0, vb, qdd0, fe, h, zd0, e, Z->A + (size_t)f * n, n, 0)) goto out;
  if (jac_z(Z, L, d, active, q0, vb, qdd0, fe, h, zd0, e, Z->A + (size_t)f * n + f, n, 1)) goto out;
  /* B: zddot is affine in tau, the difference of unit forces is exact to rounding */
  for (int a = 0; a < nf; a++) {
    double *zp = w.zp, *zm = w.zm;
    tin[a] = 1;
    if (zddot(Z, L, d, active, q0, vb, qdd0, fe, zero, zd0, tin, zp)) goto out;
    tin[a] = -1;
    if (zddot(Z, L, d, active, q0, vb, qdd0, fe, zero, zd0, tin, zm)) goto out;
    tin[a] = 0;
    for (int j = 0; j < f; j++) Z->B[(size_t)(f + j) * nf + a] = (zp[j] - zm[j]) / 2;
  }
  /* M_z = N^T M N, K = -M_z dzddot/dz, C = -M_z dzddot/dzdot */
  hg_crba(m, d, q0, Mf);
  for (int i = 0; i < f; i++)
    for (int j = 0; j < f; j++) {
      double s = 0;
      for (int k = 0; k < nv; k++)
        for (int l = 0; l < nv; l++)
          s += Z->N[(size_t)k * f + i] * Mf[(size_t)k * nv + l] * Z->N[(size_t)l * f + j];
      Z->M[(size_t)i * f + j] = s;
    }
  for (int i = 0; i < f; i++)
    for (int j = 0; j < f; j++) {
      double sk = 0, sc = 0;
      for (int l = 0; l < f; l++) {
        sk += Z->M[(size_t)i * f + l] * Z->A[(size_t)(f + l) * n + j];
        sc += Z->M[(size_t)i * f + l] * Z->A[(size_t)(f + l) * n + f + j];
      }
      Z->K[(size_t)i * f + j] = -sk;
      Z->C[(size_t)i * f + j] = -sc;
    }
  rc = 0;
out:
  free(vb), free(zd0), free(e), free(zero), free(tin), free(Mf);
  return rc;
}

/* |zddot|_2 and max |zddot| at q (v = 0), with the basis at q; 0 or -1 */
static int residual_at(hg_loops_linear *Z, hg_loops *L, hg_data *d, const unsigned char *active,
                       const double *q, const hg_loops_forces *fe, const double *zero,
                       double *r, double *norm, double *mx) {
  if (basis(Z, L, d, active, q)) return -1;
  if (zddot(Z, L, d, active, q, zero, NULL, fe, zero, zero, NULL, r)) return -1;
  double s = 0, x = 0;
  for (int i = 0; i < Z->f; i++) s += r[i] * r[i], x = fmax(x, fabs(r[i]));
  *norm = sqrt(s);
  *mx = x;
  return 0;
}

int hg_loops_equilibrium(hg_loops_linear *Z, hg_loops *L, hg_data *d,
                         const unsigned char *active, double *q, const hg_loops_forces *fe,
                         double h, double tol, int max_iter, hg_equilibrium_info *info) {
  const hg_model *m = Z->m;
  int nv = m->nv, nq = m->nq, rc = -1;
  if (h <= 0) h = 1e-6;
  if (tol <= 0) tol = 1e-10;
  if (max_iter <= 0) max_iter = 50;
  memset(info, 0, sizeof *info);
  info->rank = -1;
  double *zero = calloc((size_t)nv + 1, sizeof(double));
  double *r = calloc((size_t)nv + 1, sizeof(double));
  double *e = calloc(3 * (size_t)nv + 1, sizeof(double));
  double *J = calloc((size_t)nv * nv + 1, sizeof(double));
  double *delta = calloc((size_t)nv + 1, sizeof(double));
  double *step = calloc((size_t)nv + 1, sizeof(double));
  double *qn = calloc((size_t)nq + 1, sizeof(double));
  if (!zero || !r || !e || !J || !delta || !step || !qn) {
    snprintf(d->err, sizeof d->err, "out of memory");
    goto out;
  }
  if (hg_loops_project(L, d, q, NULL, active, PROJECT_TOL, 50) < 0) goto out;
  double norm, mx;
  if (residual_at(Z, L, d, active, q, fe, zero, r, &norm, &mx)) goto out;
  info->nf = Z->f;
  while (mx > tol && info->iterations < max_iter) {
    int f = Z->f;
    if (jac_z(Z, L, d, active, q, zero, NULL, fe, h, zero, e, J, f, 0)) goto out;
    for (int i = 0; i < f; i++) r[i] = -r[i];
    int rank = hg_ld_lstsq(f, f, J, r, RTOL, delta);
    if (rank < 0) {
      snprintf(d->err, sizeof d->err, "LAPACK (dgesvd) failed on the equilibrium's Jacobian");
      goto out;
    }
    info->rank = rank;
    for (int k = 0; k < nv; k++) { /* the step along the basis at q */
      double s = 0;
      for (int i = 0; i < f; i++) s += Z->N[(size_t)k * f + i] * delta[i];
      step[k] = s;
    }
    double s = 1, nn = 0, nx = 0;
    int ok = 0;
    for (int tries = 0; tries < 30 && !ok; tries++, s /= 2) {
      hg_model_integrate(m, q, step, s, qn);
      if (hg_loops_project(L, d, qn, NULL, active, PROJECT_TOL, 50) < 0) continue;
      if (residual_at(Z, L, d, active, qn, fe, zero, e, &nn, &nx)) continue;
      ok = nn < norm;
    }
    if (!ok) {
      residual_at(Z, L, d, active, q, fe, zero, r, &norm, &mx);
      snprintf(d->err, sizeof d->err,
               "no step lowers the residual max|zddot| %.3g (a neutral direction that does not "
               "balance?)", mx);
      break;
    }
    memcpy(q, qn, (size_t)nq * sizeof(double));
    memcpy(r, e, (size_t)Z->f * sizeof(double));
    norm = nn, mx = nx;
    info->iterations++;
  }
  info->residual = mx;
  info->nf = Z->f;
  info->converged = mx <= tol;
  if (info->converged) rc = 0;
  else if (info->iterations >= max_iter)
    snprintf(d->err, sizeof d->err, "no equilibrium within %d Newton steps (max|zddot| %.3g)",
             max_iter, mx);
out:
  free(zero), free(r), free(e), free(J), free(delta), free(step), free(qn);
  return rc;
}
