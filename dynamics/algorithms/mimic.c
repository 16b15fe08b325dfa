/* mimic.c: forward dynamics with mimic couplings enforced by their constraint forces, from unit
 * responses of the articulated-body algorithm (mimic.h). */
#include "mimic.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dynamics.h"

hg_mimic_ws *hg_mimic_ws_new(const hg_model *m) {
  hg_mimic_ws *w = calloc(1, sizeof *w);
  size_t nv = (size_t)m->nv + 1, k = (size_t)m->nmimic + 1;
  if (!w) return NULL;
  w->nv = m->nv, w->k = m->nmimic;
  w->a0 = malloc(nv * sizeof(double));
  w->tau = malloc(nv * sizeof(double));
  w->Y = malloc(nv * k * sizeof(double));
  w->S = malloc(k * k * sizeof(double));
  w->r = malloc(k * sizeof(double));
  w->L = malloc(nv * k * sizeof(double));
  w->t2 = malloc(nv * sizeof(double));
  w->act = malloc(k * sizeof(int));
  if (!w->a0 || !w->tau || !w->Y || !w->S || !w->r || !w->L || !w->t2 || !w->act) {
    hg_mimic_ws_free(w);
    return NULL;
  }
  return w;
}

void hg_mimic_ws_free(hg_mimic_ws *w) {
  if (!w) return;
  free(w->a0), free(w->tau), free(w->Y), free(w->S), free(w->r), free(w->L), free(w->t2);
  free(w->act);
  free(w);
}

void hg_mimic_project(const hg_model *m, double *q, double *v) {
  for (int k = 0; k < m->nmimic; k++) {
    int f = m->mimic_follower[k], l = m->mimic_leader[k];
    double mu = m->mimic_mult[k];
    q[m->q_adr[f]] = mu * q[m->q_adr[l]] + m->mimic_offset[k];
    v[m->v_adr[f]] = mu * v[m->v_adr[l]];
  }
}

/* x = S^-1 r for the k x k matrix S (row-major, overwritten): Gaussian elimination with partial
 * pivoting; -1 when a pivot is zero or not finite */
static int solve(int k, double *S, double *r) {
  for (int c = 0; c < k; c++) {
    int p = c;
    for (int i = c + 1; i < k; i++)
      if (fabs(S[i * k + c]) > fabs(S[p * k + c])) p = i;
    if (!(fabs(S[p * k + c]) > 0) || !isfinite(S[p * k + c])) return -1;
    if (p != c) {
      for (int j = 0; j < k; j++) {
        double t = S[c * k + j];
        S[c * k + j] = S[p * k + j], S[p * k + j] = t;
      }
      double t = r[c];
      r[c] = r[p], r[p] = t;
    }
    for (int i = c + 1; i < k; i++) {
      double f = S[i * k + c] / S[c * k + c];
      for (int j = c; j < k; j++) S[i * k + j] -= f * S[c * k + j];
      r[i] -= f * r[c];
    }
  }
  for (int c = k - 1; c >= 0; c--) {
    for (int j = c + 1; j < k; j++) r[c] -= S[c * k + j] * r[j];
    r[c] /= S[c * k + c];
  }
  return 0;
}

int hg_mimic_aba(const hg_model *m, hg_data *d, hg_mimic_ws *w, const double *q, const double *v,
                 const double *tau, const double *fext, double *qdd, double *lambda) {
  int nv = m->nv, k = m->nmimic;
  const int *F = m->mimic_follower, *L = m->mimic_leader;
  /* the unconstrained accelerations a0 = FD(q, v, tau) */
  if (hg_aba(m, d, q, v, tau, fext, w->a0)) return -1;
  if (k == 0) {
    memcpy(qdd, w->a0, (size_t)nv * sizeof(double));
    return 0;
  }
  /* Y_j = M^-1 A_j^T: the response to a unit torque on the follower and -mu on the leader */
  for (int j = 0; j < k; j++) {
    double *Yj = w->Y + (size_t)j * nv;
    memcpy(w->tau, tau, (size_t)nv * sizeof(double));
    w->tau[m->v_adr[F[j]]] += 1;
    w->tau[m->v_adr[L[j]]] -= m->mimic_mult[j];
    if (hg_aba(m, d, q, v, w->tau, fext, Yj)) return -1;
    for (int i = 0; i < nv; i++) Yj[i] -= w->a0[i];
  }
  /* (A Y) lambda = -A a0 */
  for (int i = 0; i < k; i++) {
    int fi = m->v_adr[F[i]], li = m->v_adr[L[i]];
    double mu = m->mimic_mult[i];
    for (int j = 0; j < k; j++) {
      const double *Yj = w->Y + (size_t)j * nv;
      w->S[i * k + j] = Yj[fi] - mu * Yj[li];
    }
    w->r[i] = -(w->a0[fi] - mu * w->a0[li]);
  }
  if (solve(k, w->S, w->r)) {
    snprintf(d->err, sizeof d->err, "the mimic couplings are singular (a coupled pair moves no "
             "mass, or two couplings contradict each other)");
    return -1;
  }
  /* vdot = a0 + Y lambda */
  for (int i = 0; i < nv; i++) {
    double a = w->a0[i];
    for (int j = 0; j < k; j++) a += w->Y[(size_t)j * nv + i] * w->r[j];
    qdd[i] = a;
  }
  if (lambda) memcpy(lambda, w->r, (size_t)k * sizeof(double));
  return 0;
}

/* ---- couplings under hybrid dynamics ---- */

void hg_mimic_follow(const hg_model *m, hg_data *d, double *q, double *v, double *qdd) {
  for (int k = 0; k < m->nmimic; k++) {
    int f = m->mimic_follower[k], l = m->mimic_leader[k];
    int vf = m->v_adr[f], vl = m->v_adr[l];
    double mu = m->mimic_mult[k];
    d->mode[f] = d->mode[l];
    if (d->mode[l] == HG_MODE_FREE) continue;
    q[m->q_adr[f]] = mu * q[m->q_adr[l]] + m->mimic_offset[k];
    v[vf] = mu * v[vl];
    if (qdd) qdd[vf] = mu * qdd[vl];
  }
}

/* x = y, or zeros when y is NULL */
static void copy_or_zero(double *x, const double *y, size_t n) {
  if (y) memcpy(x, y, n * sizeof(double));
  else memset(x, 0, n * sizeof(double));
}

/* The couplings with free leaders (w->act), and for each the responses of the accelerations
 * (w->Y) and of the loads (w->L) to its unit force pair, about the base pass w->a0, w->tau
 * from (qdd_in, tau_in; NULL: zeros) on d's kinematics: Y_j = HD(tau_in + A_j^T) - HD(tau_in). */
static int responses(const hg_model *m, hg_data *d, hg_mimic_ws *w, const double *qdd_in,
                     const double *tau_in, const double *fext) {
  size_t nv = (size_t)m->nv;
  w->nact = 0;
  for (int k = 0; k < m->nmimic; k++)
    if (d->mode[m->mimic_leader[k]] == HG_MODE_FREE) w->act[w->nact++] = k;
  copy_or_zero(w->a0, qdd_in, nv);
  copy_or_zero(w->tau, tau_in, nv);
  if (hg_hybrid_on_kinematics(m, d, w->a0, w->tau, fext)) return -1;
  for (int j = 0; j < w->nact; j++) {
    int c = w->act[j];
    double *Yj = w->Y + (size_t)j * nv, *Lj = w->L + (size_t)j * nv;
    copy_or_zero(Yj, qdd_in, nv);
    copy_or_zero(w->t2, tau_in, nv);
    w->t2[m->v_adr[m->mimic_follower[c]]] += 1;
    w->t2[m->v_adr[m->mimic_leader[c]]] -= m->mimic_mult[c];
    if (hg_hybrid_on_kinematics(m, d, Yj, w->t2, fext)) return -1;
    for (size_t i = 0; i < nv; i++) Yj[i] -= w->a0[i], Lj[i] = w->t2[i] - w->tau[i];
  }
  return 0;
}

/* mu = S^-1 (-A x) with S = A Y over the active couplings, into w->r; 0 or -1 with d->err */
static int coupling_solve(const hg_model *m, hg_data *d, hg_mimic_ws *w, const double *x) {
  int k = w->nact;
  size_t nv = (size_t)m->nv;
  for (int i = 0; i < k; i++) {
    int c = w->act[i], fi = m->v_adr[m->mimic_follower[c]], li = m->v_adr[m->mimic_leader[c]];
    double mu = m->mimic_mult[c];
    for (int j = 0; j < k; j++) {
      const double *Yj = w->Y + (size_t)j * nv;
      w->S[i * k + j] = Yj[fi] - mu * Yj[li];
    }
    w->r[i] = -(x[fi] - mu * x[li]);
  }
  if (solve(k, w->S, w->r) == 0) return 0;
  snprintf(d->err, sizeof d->err, "the mimic couplings are singular (a coupled pair moves no "
           "mass, or two couplings contradict each other)");
  return -1;
}

int hg_mimic_hybrid(const hg_model *m, hg_data *d, hg_mimic_ws *w, double *qdd, double *tau,
                    const double *fext) {
  size_t nv = (size_t)m->nv;
  if (responses(m, d, w, qdd, tau, fext)) return -1;
  if (w->nact && coupling_solve(m, d, w, w->a0)) return -1;
  /* vdot = a0 + Y lambda; the loads of the non-free joints with the coupling forces */
  for (size_t i = 0; i < nv; i++) {
    double a = w->a0[i], l = w->tau[i];
    for (int j = 0; j < w->nact; j++)
      a += w->Y[(size_t)j * nv + i] * w->r[j], l += w->L[(size_t)j * nv + i] * w->r[j];
    qdd[i] = a;
    if (d->mode[m->dof_body[i]] != HG_MODE_FREE) tau[i] = l;
  }
  return 0;
}

int hg_mimic_impulse(const hg_model *m, hg_data *d, hg_mimic_ws *w, const double *q, double *v) {
  size_t nv = (size_t)m->nv;
  hg_kinematics(m, d, q, v);
  /* the responses with nothing applied (their differences are the impulse responses) */
  if (responses(m, d, w, NULL, NULL, NULL)) return -1;
  if (w->nact == 0) return 0;
  if (coupling_solve(m, d, w, v)) return -1;
  for (size_t i = 0; i < nv; i++)
    for (int j = 0; j < w->nact; j++) v[i] += w->Y[(size_t)j * nv + i] * w->r[j];
  return 0;
}
