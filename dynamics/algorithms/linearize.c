/* linearize.c: the state-space model (A, B) of hybrid dynamics on the group at an operating
 * point (linearize.h), from the analytic hybrid derivatives and the force elements' derivatives:
 * the caller's analytic ones, central differences for the others.
 *
 * External wrenches act on the joints as the generalized force Q = J(q)^T fext. The analytic
 * derivatives already turn the operating point's fext with the bodies; what remains is how the
 * force elements' outputs change with the state, at a fixed J: with Q~(q', v') =
 * tau_el(q', v') + J(q0)^T fext_el(q', v'), a free joint's accelerations change by
 * dvdot_F = M_FF^-1 dQ~_F (the hybrid derivative's free input columns), so
 *   dvdot_F/dq = Yq_F + Yu_FF Gq_F,  Gq = dQ~/dq (analytic, or central differences on the group).
 * J(q0)^T f is read from RNEA: RNEA(q0, 0, 0, f) = g(q0) - J^T f, and the gravity term g(q0)
 * cancels in every central difference. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dynamics.h"
#include "linearize.h"

hg_linear *hg_linear_new(const hg_model *m) {
  hg_linear *L = calloc(1, sizeof *L);
  if (!L) return NULL;
  size_t nv = (size_t)m->nv, n2 = nv * nv + 1, nf6 = 6 * (size_t)m->nbody;
  L->nv = m->nv;
  L->dof = calloc(nv + 1, sizeof(int));
  double **mats[] = {&L->M, &L->K, &L->C, &L->Gq, &L->Gv, &L->Yq, &L->Yv, &L->Yu};
  for (size_t k = 0; k < sizeof mats / sizeof *mats; k++) *mats[k] = calloc(n2, sizeof(double));
  L->A = calloc(4 * n2, sizeof(double));
  L->B = calloc(2 * n2, sizeof(double));
  double **vecs[] = {&L->xdot0, &L->y, &L->u, &L->vp, &L->tp, &L->tm, &L->zero, &L->hq};
  for (size_t k = 0; k < sizeof vecs / sizeof *vecs; k++) *vecs[k] = calloc(2 * nv + 1, sizeof(double));
  L->qp = calloc((size_t)m->nq + 1, sizeof(double));
  L->fp = calloc(nf6 * 3, sizeof(double)); /* fp, fm and the operating point's f0 */
  L->fm = L->fp ? L->fp + nf6 : NULL;
  int ok = L->dof && L->A && L->B && L->qp && L->fp;
  for (size_t k = 0; k < sizeof mats / sizeof *mats; k++) ok = ok && *mats[k];
  for (size_t k = 0; k < sizeof vecs / sizeof *vecs; k++) ok = ok && *vecs[k];
  if (!ok) {
    hg_linear_free(L);
    return NULL;
  }
  return L;
}

void hg_linear_free(hg_linear *L) {
  if (!L) return;
  free(L->dof); free(L->A); free(L->B); free(L->M); free(L->K); free(L->C); free(L->xdot0);
  free(L->Gq); free(L->Gv); free(L->Yq); free(L->Yv); free(L->Yu); free(L->y); free(L->u);
  free(L->qp); free(L->vp); free(L->tp); free(L->tm); free(L->fp); free(L->zero); free(L->hq);
  free(L);
}

/* tau and fext (zeroed first) of the numeric force elements at (q, v), and of the analytic ones
 * too when all */
static void element_forces(const hg_model *m, hg_data *d, const hg_force_elements *fe, int all,
                           const double *q, const double *v, double *fext, double *tau) {
  memset(fext, 0, 6 * (size_t)m->nbody * sizeof(double));
  memset(tau, 0, (size_t)m->nv * sizeof(double));
  if (!fe || (!fe->numeric && !(all && fe->analytic))) return;
  hg_kinematics(m, d, q, v);
  if (fe->numeric) fe->numeric(fe->ctx, m, d, q, v, fext, tau);
  if (all && fe->analytic) fe->analytic(fe->ctx, m, d, q, v, fext, tau);
}

/* Q~ = tau_el + J(q0)^T fext_el of the numeric elements at (qe, ve), up to the constant g(q0)
 * (see the top) */
static void element_q(const hg_model *m, hg_data *d, hg_linear *L, const hg_force_elements *fe,
                      const double *q0, const double *qe, const double *ve, double *fext,
                      double *Q) {
  int nv = m->nv;
  element_forces(m, d, fe, 0, qe, ve, fext, Q);
  hg_rnea(m, d, q0, L->zero, L->zero, fext, L->y);
  for (int k = 0; k < nv; k++) Q[k] -= L->y[k];
}

/* the step of tangent component k of q: h for an angle, h max(1, |p|) for a length, p the
 * world position of the DoF's body (a spacecraft in orbit, 7e6 m out: a gravity gradient of
 * 1e-6 /s^2 needs steps of metres to rise above the rounding of 10 m/s^2 forces) */
static double q_step(const hg_model *m, const hg_data *d, int k, double h) {
  int i = m->dof_body[k];
  if (hg_joint_dof_is_angular(m->jnt[i].type, k - m->v_adr[i])) return h;
  double r = hg_v3_norm(d->T_world[i].p);
  return h * (r > 1 ? r : 1);
}

/* Gq, Gv: the analytic elements' derivatives, plus central differences of the numeric elements'
 * Q~ in q (on the group) and v */
static void element_derivatives(const hg_model *m, hg_data *d, hg_linear *L,
                                const hg_force_elements *fe, const double *q, const double *v,
                                double h) {
  int nv = m->nv;
  memset(L->Gq, 0, (size_t)nv * (size_t)nv * sizeof(double));
  memset(L->Gv, 0, (size_t)nv * (size_t)nv * sizeof(double));
  if (!fe) return;
  if (fe->analytic && fe->jac) {
    hg_kinematics(m, d, q, v);
    fe->jac(fe->ctx, m, d, q, v, L->Gq, L->Gv);
  }
  if (!fe->numeric) return;
  hg_kinematics(m, d, q, NULL);
  for (int k = 0; k < nv; k++) L->hq[k] = q_step(m, d, k, h);
  for (int arg = 0; arg < 2; arg++)
    for (int k = 0; k < nv; k++) {
      double *G = arg ? L->Gv : L->Gq, hk = arg ? h : L->hq[k];
      for (int s = 0; s < 2; s++) {
        double e = s ? -hk : hk, *Q = s ? L->tm : L->tp;
        memcpy(L->vp, v, (size_t)nv * sizeof(double));
        memcpy(L->qp, q, (size_t)m->nq * sizeof(double));
        if (arg) {
          L->vp[k] += e;
        } else {
          memset(L->u, 0, (size_t)nv * sizeof(double));
          L->u[k] = 1;
          hg_model_integrate(m, q, L->u, e, L->qp);
        }
        element_q(m, d, L, fe, q, L->qp, L->vp, s ? L->fm : L->fp, Q);
      }
      for (int l = 0; l < nv; l++) G[(size_t)l * nv + k] += (L->tp[l] - L->tm[l]) / (2 * hk);
    }
}

/* A, B, M, K, C from the hybrid derivatives Yq, Yv, Yu and the elements' Gq, Gv */
static void assemble(const hg_model *m, const hg_data *d, hg_linear *L, const hg_deriv *w,
                     const double *v) {
  int nv = m->nv, nf = L->nf, nx = 2 * nf;
  memset(L->A, 0, (size_t)nx * (size_t)nx * sizeof(double));
  memset(L->B, 0, (size_t)nx * (size_t)nf * sizeof(double));
  /* the kinematic rows: d(dq)/dt = D dq + dv, D = -ad_{v0} per spherical or free joint */
  for (int a = 0; a < nf; a++) L->A[(size_t)a * nx + nf + a] = 1;
  for (int a = 0; a < nf;) {
    int i = m->dof_body[L->dof[a]], n = m->jnt_nv[i];
    double D[36];
    hg_joint_tangent_drift(&m->jnt[i], v + m->v_adr[i], D);
    for (int r = 0; r < n; r++)
      for (int c = 0; c < n; c++) L->A[(size_t)(a + r) * nx + a + c] = D[r * n + c];
    a += n;
  }
  /* the dynamic rows: Y + Yu_FF G at the free DoFs */
  for (int a = 0; a < nf; a++) {
    int i = L->dof[a];
    for (int b = 0; b < nf; b++) {
      int j = L->dof[b];
      double yq = L->Yq[(size_t)i * nv + j], yv = L->Yv[(size_t)i * nv + j];
      for (int c = 0; c < nf; c++) {
        double yu = L->Yu[(size_t)i * nv + L->dof[c]];
        yq += yu * L->Gq[(size_t)L->dof[c] * nv + j];
        yv += yu * L->Gv[(size_t)L->dof[c] * nv + j];
      }
      L->A[(size_t)(nf + a) * nx + b] = yq;
      L->A[(size_t)(nf + a) * nx + nf + b] = yv;
      L->B[(size_t)(nf + a) * nf + b] = L->Yu[(size_t)i * nv + j];
      L->M[(size_t)a * nf + b] = w->M[(size_t)i * nv + j];
    }
  }
  /* K = -M_FF dvdot/dq, C = -M_FF dvdot/dv */
  for (int a = 0; a < nf; a++)
    for (int b = 0; b < nf; b++) {
      double k = 0, c = 0;
      for (int e = 0; e < nf; e++) {
        double mae = L->M[(size_t)a * nf + e];
        k -= mae * L->A[(size_t)(nf + e) * nx + b];
        c -= mae * L->A[(size_t)(nf + e) * nx + nf + b];
      }
      L->K[(size_t)a * nf + b] = k;
      L->C[(size_t)a * nf + b] = c;
    }
  (void)d;
}

/* L->nf and L->dof: the DoFs of the joints free in d->mode */
static void free_dofs(const hg_model *m, const hg_data *d, hg_linear *L) {
  L->nf = 0;
  for (int k = 0; k < m->nv; k++)
    if (d->mode[m->dof_body[k]] == HG_MODE_FREE) L->dof[L->nf++] = k;
}

int hg_linearize(const hg_model *m, hg_data *d, hg_deriv *w, hg_linear *L, const double *q,
                 const double *v, const double *qdd, const hg_force_elements *fe, double h) {
  int nv = m->nv;
  double *f0 = L->fp + 2 * 6 * (size_t)m->nbody;
  if (!(h > 0)) h = 1e-6;
  free_dofs(m, d, L);
  /* the operating point's inputs: element forces at free DoFs, accelerations at the others */
  element_forces(m, d, fe, 1, q, v, f0, L->tp);
  for (int k = 0; k < nv; k++)
    L->u[k] = d->mode[m->dof_body[k]] == HG_MODE_FREE ? L->tp[k] : qdd ? qdd[k] : 0;
  if (hg_hybrid_derivatives(m, d, w, q, v, L->u, f0, L->xdot0 + nv, L->Yq, L->Yv, L->Yu))
    return -1;
  /* the drift (v0, vdot0) at the free DoFs (vdot at every DoF was left at xdot0 + nv) */
  for (int a = 0; a < L->nf; a++) L->xdot0[a] = L->xdot0[nv + L->dof[a]];
  for (int a = 0; a < L->nf; a++) L->xdot0[L->nf + a] = L->xdot0[a];
  for (int a = 0; a < L->nf; a++) L->xdot0[a] = v[L->dof[a]];
  element_derivatives(m, d, L, fe, q, v, h);
  assemble(m, d, L, w, v);
  return 0;
}

/* ---- the equilibrium search ---- */

/* res = vdot at the free DoFs at (q, v = 0), the other joints held still; returns |res|_2, or
 * -1 when the dynamics fail (d->err) */
static double free_accel(const hg_model *m, hg_data *d, hg_linear *L,
                         const hg_force_elements *fe, const double *q, double *res) {
  int nv = m->nv;
  double *f = L->fp + 2 * 6 * (size_t)m->nbody, s = 0;
  element_forces(m, d, fe, 1, q, L->zero, f, L->tp);
  for (int k = 0; k < nv; k++) {
    L->u[k] = 0;
    if (d->mode[m->dof_body[k]] != HG_MODE_FREE) L->tp[k] = 0;
  }
  if (hg_hybrid(m, d, q, L->zero, L->u, L->tp, f)) return -1;
  for (int a = 0; a < L->nf; a++) res[a] = L->u[L->dof[a]], s += res[a] * res[a];
  return sqrt(s);
}

static double max_abs(int n, const double *x) {
  double r = 0;
  for (int k = 0; k < n; k++) r = fmax(r, fabs(x[k]));
  return r;
}

int hg_equilibrium(const hg_model *m, hg_data *d, hg_deriv *w, hg_linear *L, double *q,
                   const hg_force_elements *fe, double h, double tol, int max_iter,
                   hg_equilibrium_info *info) {
  int nv = m->nv, nq = m->nq, rc = -1;
  if (!(tol > 0)) tol = 1e-10;
  if (max_iter <= 0) max_iter = 50;
  free_dofs(m, d, L);
  int nf = L->nf, nx = 2 * nf;
  memset(info, 0, sizeof *info);
  info->nf = nf;
  info->rank = -1;
  size_t n1 = (size_t)nf + 1;
  double *r = malloc(n1 * sizeof(double)), *rt = malloc(n1 * sizeof(double));
  double *J = malloc(n1 * n1 * sizeof(double)), *step = malloc(n1 * sizeof(double));
  double *dq = calloc((size_t)nv + 1, sizeof(double)), *qt = malloc(((size_t)nq + 1) * sizeof(double));
  if (!r || !rt || !J || !step || !dq || !qt) {
    snprintf(d->err, sizeof d->err, "out of memory");
    goto done;
  }
  double norm = free_accel(m, d, L, fe, q, r);
  if (norm < 0) goto done;
  for (;;) {
    info->residual = max_abs(nf, r);
    if (info->residual <= tol) {
      info->converged = 1;
      rc = 0;
      break;
    }
    if (info->iterations >= max_iter) {
      snprintf(d->err, sizeof d->err, "no equilibrium: residual max|vdot| %.3g after %d Newton "
               "iterations (tolerance %.3g)", info->residual, info->iterations, tol);
      break;
    }
    /* Newton: J = dvdot_F/dq_F at v = 0, delta = -J^+ vdot_F */
    if (hg_linearize(m, d, w, L, q, L->zero, NULL, fe, h)) goto done;
    for (int a = 0; a < nf; a++) {
      for (int b = 0; b < nf; b++) J[(size_t)a * nf + b] = L->A[(size_t)(nf + a) * nx + b];
      rt[a] = -r[a];
    }
    if (hg_lstsq_min_norm(nf, J, rt, 1e-9, step, &info->rank)) {
      snprintf(d->err, sizeof d->err, "LAPACK (dgelsd) failed on the Jacobian");
      goto done;
    }
    /* backtracking: q (+) s delta with s halved until |vdot_F|_2 falls by s 1e-4 of itself */
    double s = 1, nt = -1;
    for (; s >= 1.0 / 1024; s /= 2) {
      for (int a = 0; a < nf; a++) dq[L->dof[a]] = step[a];
      hg_model_integrate(m, q, dq, s, qt);
      nt = free_accel(m, d, L, fe, qt, rt);
      if (nt >= 0 && nt < (1 - 1e-4 * s) * norm) break;
    }
    info->iterations++;
    if (!(nt >= 0 && nt < (1 - 1e-4 * s) * norm)) {
      snprintf(d->err, sizeof d->err, "no equilibrium: residual max|vdot| %.3g after %d Newton "
               "iterations and no step lowers it; Jacobian rank %d of %d%s", info->residual,
               info->iterations, info->rank, nf,
               info->rank < nf ? " (the others neutral: nothing restores them, as for a free "
                                 "body, or the start is where the forces peak)" : "");
      break;
    }
    memcpy(q, qt, (size_t)nq * sizeof(double));
    memcpy(r, rt, (size_t)nf * sizeof(double));
    norm = nt;
  }
done:
  free(r); free(rt); free(J); free(step); free(dq); free(qt);
  return rc;
}
