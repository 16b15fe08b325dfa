/* loops.c: closed kinematic loops as exact constraints (loops.h).
 *
 * Frames. Marker frame A is on body a, B on body b. Each side is walked in its own tree's frame
 * (model.h): F_b = T_tree,b M_B is B seen from b's tree frame, F_a' = T_tree,a M_A T_AB is B seen
 * from a's tree frame, and T_AB = A^-1 B from the tree-frame poses within one tree, the world
 * poses across trees. A row c (a 6-vector acting on twists
 * of B, in frame B) becomes on each side the tree-frame wrench W = Ad_{F^-1}^T c, so that
 *   G_row = W_b^T J_b - W_a^T J_a  (J the tree-frame columns S_k of each path),
 * the constraint force G^T lambda is the wrench lambda c (frame B) on b and its opposite on a.
 * Within one tree F_a' = F_b and the paths' common part cancels: each side is walked only up to
 * the bodies' last common ancestor (the world across trees).
 *
 * Velocities are the real ones (d->V, tree frame: Ad_{T_tree} of the body twist), so the relative
 * twist V_rel = Ad_{F_b^-1} V_b - Ad_{F_a'^-1} V_a is frame-invariant, whatever Galilean frame each
 * tree's recursion used. The acceleration of B at vdot = 0 is Ad_{F^-1} sum_j c_j over its path,
 * c_j = ad_{V_j} (S_j v_j) + Ad_{T_tree,j} (S'_j v_j) with the real V_j (the Galilean d->c differs
 * by ad_{(0, vt)} S_j v_j), and gamma follows loops.h:
 *   gamma = C (c_J(q*, v*) - A_rel0),  A_rel0 = A_B0 - A_A0' - ad_{V_B} V_rel.
 *
 * Dynamics. a0 from the tree-frame hybrid pass (its factors stay in d); the right-hand side
 * gamma - G a0 = C (c_J - A_rel) with A_rel from the pass's own body accelerations (d->a less the
 * gravity offset and the Galilean share), so G is not formed. G Y comes from the operational-space
 * inertias (hg_hybrid_response_gram) when the loop bodies lie on one root path per tree, else
 * from one multi-column response (hg_hybrid_response) walked along the loop bodies' paths:
 * (G Y)_rc = W_b,r^T a_b,c - W_a,r^T a_a,c. After the nc x nc solve, one response to the
 * combined load G^T lambda gives Y lambda and the loads it adds at non-free joints. */
#include "loops.h"

#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct hg_loops {
  const hg_model *m;
  int n, maxrows;
  hg_loop *loop;
  int *nrow;             /* per loop */
  int *stop;             /* per loop: the last common ancestor of its bodies (0 across trees) */
  /* the last stacking, by row */
  int nc;
  int *rloop;            /* the loop of each row (-1 - k for model mimic coupling k) */
  int (*rbody)[2];       /* joint rows: b, a; coupling rows: follower's and leader's bodies */
  int (*rdof)[2];        /* coupling rows: follower's and leader's DoFs (-1: joint row) */
  double *rratio;        /* coupling rows: ratio */
  hg_vec6 (*W)[2];       /* joint rows: W_b, W_a (tree frames) */
  double *G, *gamma, *r; /* maxrows x nv, maxrows, maxrows */
  double *rhs, *x;       /* maxrows */
  /* the last solve of G Y */
  double *GY, *fac, *eig; /* maxrows^2, maxrows^2 (Cholesky or eigenvectors), maxrows */
  double *tmp;            /* maxrows^2: dsyevr's copy of G Y */
  int use_eig, rank, rows;
  int refine;             /* 1: G Y's condition above 1e4, the solve is refined once */
  double *lambda;        /* maxrows */
  /* dsyevr's workspace, sized once */
  double *work;
  int *iwork, *isuppz, lwork, liwork;
  /* hybrid */
  double *a0, *tau0, *v1; /* nv */
  hg_response *resp;
  hg_response_load *load; /* 2 maxrows */
};

/* ---- the complement C of S: natural directions in frame B ---- */

/* u1, u2: a right-handed orthonormal pair normal to the unit vector a (the next two coordinate
 * axes when a is one: x, y for z) */
static void normal_pair(const double a[3], double u1[3], double u2[3]) {
  for (int k = 0; k < 3; k++) {
    if (fabs(fabs(a[k]) - 1) < 1e-15) {
      double s = a[k] > 0 ? 1 : -1;
      for (int r = 0; r < 3; r++) u1[r] = u2[r] = 0;
      u1[(k + 1) % 3] = 1, u2[(k + 2) % 3] = s;
      return;
    }
  }
  int m = fabs(a[0]) < fabs(a[1]) ? (fabs(a[0]) < fabs(a[2]) ? 0 : 2) : (fabs(a[1]) < fabs(a[2]) ? 1 : 2);
  double e[3] = {0, 0, 0}, t[3];
  e[m] = 1;
  hg_v3_cross(a, e, t);
  double nt = hg_v3_norm(t);
  for (int r = 0; r < 3; r++) u1[r] = t[r] / nt;
  hg_v3_cross(a, u1, u2);
}

/* row (m, f) of C */
static void put(double *C, int *k, const double m[3], const double f[3]) {
  static const double z[3] = {0, 0, 0};
  if (!m) m = z;
  if (!f) f = z;
  for (int r = 0; r < 3; r++) C[6 * *k + r] = m[r], C[6 * *k + 3 + r] = f[r];
  (*k)++;
}

/* C (6 - nv rows of 6, moment rows first) with C S(q*) = 0; returns the number of rows */
static int complement(const hg_joint *j, const double *qs, double *C) {
  static const double e[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  const double *a = j->axis;
  double u1[3], u2[3];
  int k = 0;
  normal_pair(a, u1, u2);
  switch (j->type) {
  case HG_JOINT_FIXED:
    for (int r = 0; r < 3; r++) put(C, &k, e[r], NULL);
    for (int r = 0; r < 3; r++) put(C, &k, NULL, e[r]);
    break;
  case HG_JOINT_REVOLUTE: /* moments normal to the axis, every force */
    put(C, &k, u1, NULL), put(C, &k, u2, NULL);
    for (int r = 0; r < 3; r++) put(C, &k, NULL, e[r]);
    break;
  case HG_JOINT_PRISMATIC: /* every moment, forces normal to the axis */
    for (int r = 0; r < 3; r++) put(C, &k, e[r], NULL);
    put(C, &k, NULL, u1), put(C, &k, NULL, u2);
    break;
  case HG_JOINT_HELICAL: { /* as cylindrical, and the screw's (-p a, a) / sqrt(1 + p^2) */
    double s = 1 / sqrt(1 + j->pitch * j->pitch), mm[3], ff[3];
    for (int r = 0; r < 3; r++) mm[r] = -j->pitch * a[r] * s, ff[r] = a[r] * s;
    put(C, &k, u1, NULL), put(C, &k, u2, NULL), put(C, &k, NULL, u1), put(C, &k, NULL, u2);
    put(C, &k, mm, ff);
    break;
  }
  case HG_JOINT_CYLINDRICAL:
    put(C, &k, u1, NULL), put(C, &k, u2, NULL), put(C, &k, NULL, u1), put(C, &k, NULL, u2);
    break;
  case HG_JOINT_UNIVERSAL: { /* the moment about w1 x w2 (the two axes in B), every force */
    double S[12], n[3];
    hg_joint_motion(j, qs, S);
    hg_v3_cross(S, S + 6, n);
    double nn = hg_v3_norm(n);
    for (int r = 0; r < 3; r++) n[r] /= nn;
    put(C, &k, n, NULL);
    for (int r = 0; r < 3; r++) put(C, &k, NULL, e[r]);
    break;
  }
  case HG_JOINT_PLANAR: /* moments in the plane, the force along its normal */
    put(C, &k, u1, NULL), put(C, &k, u2, NULL), put(C, &k, NULL, a);
    break;
  case HG_JOINT_SPHERICAL:
    for (int r = 0; r < 3; r++) put(C, &k, NULL, e[r]);
    break;
  default:
    break;
  }
  return k;
}

/* ---- construction ---- */

static const hg_se3 identity = {{1, 0, 0, 0, 1, 0, 0, 0, 1}, {0, 0, 0}};

hg_loops *hg_loops_new(const hg_model *m, const hg_loop *loop, int n, hg_error *err) {
  for (int k = 0; k < n; k++) {
    const hg_loop *l = &loop[k];
    if (l->kind == HG_LOOP_JOINT) {
      if (l->body[0] < 0 || l->body[0] >= m->nbody || l->body[1] < 0 || l->body[1] >= m->nbody) {
        hg_error_set(err, "loop %d: body index out of range", k);
        return NULL;
      }
      if (l->body[0] == l->body[1]) {
        hg_error_set(err, "loop %d: both markers are on body %d", k, l->body[0]);
        return NULL;
      }
      if (l->joint.type < 0 || l->joint.type >= HG_JOINT_NTYPES) {
        hg_error_set(err, "loop %d: unknown joint type", k);
        return NULL;
      }
    } else {
      for (int s = 0; s < 2; s++)
        if (l->jnt[s] < 1 || l->jnt[s] >= m->nbody || m->jnt_nv[l->jnt[s]] != 1) {
          hg_error_set(err, "loop %d: coupling joint %d is not a 1-DoF joint of the model", k,
                       l->jnt[s]);
          return NULL;
        }
      if (l->jnt[0] == l->jnt[1]) {
        hg_error_set(err, "loop %d: a coupling of joint %d with itself", k, l->jnt[0]);
        return NULL;
      }
    }
  }
  hg_loops *L = calloc(1, sizeof *L);
  if (!L) goto oom;
  L->m = m, L->n = n;
  L->loop = malloc((size_t)(n + 1) * sizeof *L->loop);
  L->nrow = malloc((size_t)(n + 1) * sizeof(int));
  L->stop = malloc((size_t)(n + 1) * sizeof(int));
  if (!L->loop || !L->nrow || !L->stop) goto oom;
  if (n) memcpy(L->loop, loop, (size_t)n * sizeof *loop);
  int mr = m->nmimic;
  for (int k = 0; k < n; k++) {
    const hg_loop *l = &loop[k];
    if (l->kind == HG_LOOP_JOINT) {
      L->nrow[k] = 6 - hg_joint_nv(l->joint.type);
      /* the last common ancestor (indices fall towards the root) */
      int i = l->body[0], j = l->body[1];
      while (i != j) {
        if (i > j) i = m->parent[i];
        else j = m->parent[j];
      }
      L->stop[k] = i;
    } else {
      L->nrow[k] = 1, L->stop[k] = 0;
    }
    mr += L->nrow[k];
  }
  L->maxrows = mr;
  size_t R = (size_t)mr + 1, nv = (size_t)m->nv + 1;
  L->rloop = malloc(R * sizeof(int));
  L->rbody = malloc(R * sizeof *L->rbody);
  L->rdof = malloc(R * sizeof *L->rdof);
  L->rratio = malloc(R * sizeof(double));
  L->W = malloc(R * sizeof *L->W);
  L->G = malloc(R * nv * sizeof(double));
  L->gamma = malloc(R * sizeof(double));
  L->r = malloc(R * sizeof(double));
  L->rhs = malloc(R * sizeof(double));
  L->x = malloc(R * sizeof(double));
  L->GY = malloc(R * R * sizeof(double));
  L->fac = malloc(R * R * sizeof(double));
  L->eig = malloc(R * sizeof(double));
  L->tmp = malloc(R * R * sizeof(double));
  L->lambda = malloc(R * sizeof(double));
  L->isuppz = malloc(2 * R * sizeof(int));
  L->a0 = malloc(nv * sizeof(double));
  L->tau0 = malloc(nv * sizeof(double));
  L->v1 = malloc(nv * sizeof(double));
  L->load = malloc(2 * R * sizeof *L->load);
  L->resp = hg_response_new(m, (int)R);
  if (!L->rloop || !L->rbody || !L->rdof || !L->rratio || !L->W || !L->G || !L->gamma || !L->r ||
      !L->rhs || !L->x || !L->GY || !L->fac || !L->eig || !L->tmp || !L->lambda || !L->isuppz || !L->a0 ||
      !L->tau0 || !L->v1 || !L->load || !L->resp)
    goto oom;
  /* dsyevr's workspace for the largest G Y */
  {
    double wq, vl = 0, vu = 0;
    int iq, nf, nr = (int)R;
    if (LAPACKE_dsyevr_work(LAPACK_COL_MAJOR, 'V', 'A', 'U', nr, L->tmp, nr, vl, vu, 0, 0, 0, &nf,
                            L->eig, L->fac, nr, L->isuppz, &wq, -1, &iq, -1) != 0)
      goto oom;
    L->lwork = (int)wq + 1, L->liwork = iq + 1;
    L->work = malloc((size_t)L->lwork * sizeof(double));
    L->iwork = malloc((size_t)L->liwork * sizeof(int));
    if (!L->work || !L->iwork) goto oom;
  }
  return L;
oom:
  hg_loops_free(L);
  hg_error_set(err, "out of memory compiling %d loops", n);
  return NULL;
}

void hg_loops_free(hg_loops *L) {
  if (!L) return;
  free(L->loop), free(L->nrow), free(L->stop), free(L->rloop), free(L->rbody), free(L->rdof);
  free(L->rratio), free(L->W), free(L->G), free(L->gamma), free(L->r), free(L->rhs), free(L->x);
  free(L->GY), free(L->fac), free(L->tmp), free(L->eig), free(L->lambda), free(L->isuppz), free(L->a0);
  free(L->tau0), free(L->v1), free(L->load), free(L->work), free(L->iwork);
  hg_response_free(L->resp);
  free(L);
}

int hg_loops_count(const hg_loops *L) { return L->n; }
int hg_loops_nrow(const hg_loops *L, int k) { return L->nrow[k]; }
int hg_loops_maxrows(const hg_loops *L) { return L->maxrows; }

int hg_loops_rank(const hg_loops *L, int *nrows) {
  if (nrows) *nrows = L->rows;
  return L->rank;
}

/* ---- one joint loop's geometry ---- */

typedef struct loop_frames {
  hg_se3 Tab;            /* T_AB = A^-1 B */
  hg_se3 Fb, Fa;         /* B in b's tree frame, B in a's tree frame */
  double qs[HG_JOINT_MAXNQ];
  hg_se3 E;              /* T_joint(q*)^-1 T_AB */
} loop_frames;

/* 1 when the loop joint's rows or bias depend on q* (C of a universal joint, c_J of a universal
 * or planar one): the others need the fit only for the position residual */
static int needs_fit(const hg_joint *j) {
  return j->type == HG_JOINT_UNIVERSAL || j->type == HG_JOINT_PLANAR;
}

/* the loop's frames; q* and E only when fit (else qs is left unset) */
static void frames(const hg_model *m, const hg_data *d, const hg_loop *l, int fit,
                   loop_frames *f) {
  int a = l->body[0], b = l->body[1];
  hg_se3 A, B, Ja;
  /* A = T_0a M_A, B = T_0b M_B; T_AB = A^-1 B, within one tree from the tree-frame poses (one
   * frame per tree, its origin at the root body), which keep their digits at orbital distances
   * from the world's origin where the world poses lose them */
  int tree = a > 0 && b > 0 && m->root[a] == m->root[b];
  hg_se3_mul(a ? (tree ? &d->T_tree[a] : &d->T_world[a]) : &identity, &l->M[0], &A);
  hg_se3_mul(b ? (tree ? &d->T_tree[b] : &d->T_world[b]) : &identity, &l->M[1], &B);
  hg_se3_invmul(&A, &B, &f->Tab);
  /* F_b = T_tree,b M_B;  F_a' = T_tree,a M_A T_AB */
  hg_se3_mul(b ? &d->T_tree[b] : &identity, &l->M[1], &f->Fb);
  if (tree) {
    /* one tree: F_a' = A A^-1 B = F_b, exactly */
    f->Fa = f->Fb;
  } else {
    hg_se3_mul(a ? &d->T_tree[a] : &identity, &l->M[0], &Ja);
    hg_se3_mul(&Ja, &f->Tab, &f->Fa);
  }
  if (!fit) return;
  /* q* fitted to T_AB, E = T_joint(q*)^-1 T_AB */
  hg_se3 Tj;
  hg_joint_configuration(&l->joint, &f->Tab, f->qs);
  hg_joint_transform(&l->joint, f->qs, &Tj);
  hg_se3_invmul(&Tj, &f->Tab, &f->E);
}

void hg_loops_violation(const hg_loops *L, const hg_data *d, const double *q, int k, double *dist,
                        double *angle) {
  const hg_loop *l = &L->loop[k];
  const hg_model *m = L->m;
  if (l->kind == HG_LOOP_COUPLING) {
    int f = l->jnt[1], g = l->jnt[0];
    *dist = fabs(q[m->q_adr[f]] - l->ratio * q[m->q_adr[g]] - l->offset);
    *angle = 0;
    return;
  }
  loop_frames fr;
  double w[3];
  frames(m, d, l, 1, &fr);
  /* B's origin seen from the fitted child frame, and the rotation between them */
  *dist = hg_v3_norm(fr.E.p);
  hg_so3_log(fr.E.R, w);
  *angle = hg_v3_norm(w);
}

/* ---- stacking the rows ---- */

/* the real velocity-product acceleration of B's path from body i up to (not including) stop,
 * summed in the tree frame: sum_j ad_{V_j} (S_j v_j) + Ad_{T_j} (S'_j v_j) */
static void path_bias(const hg_model *m, const hg_data *d, const double *q, const double *v, int i,
                      int stop, double acc[6]) {
  for (int r = 0; r < 6; r++) acc[r] = 0;
  for (; i != stop && i > 0; i = m->parent[i]) {
    int va = m->v_adr[i], n = m->jnt_nv[i];
    double sv[6] = {0, 0, 0, 0, 0, 0}, c[6];
    for (int k = 0; k < n; k++)
      for (int r = 0; r < 6; r++) sv[r] += d->S[va + k][r] * v[va + k];
    hg_ad(d->V[i], sv, c);
    for (int r = 0; r < 6; r++) acc[r] += c[r];
    const hg_joint *j = &m->jnt[i];
    if (j->type == HG_JOINT_UNIVERSAL || j->type == HG_JOINT_PLANAR) {
      /* the joint's own S' v, from its child frame (the moved joint frame) */
      double sb[6], ss[6];
      hg_se3 Ts = d->T_tree[i];
      if (m->has_post[i]) {
        hg_se3 Pi;
        hg_se3_inv(&m->jnt_post[i], &Pi);
        hg_se3_mul(&d->T_tree[i], &Pi, &Ts);
      }
      hg_joint_bias(j, q + m->q_adr[i], v + va, sb);
      hg_Ad(&Ts, sb, ss);
      for (int r = 0; r < 6; r++) acc[r] += ss[r];
    }
  }
}

/* G_row += sign W^T S_k over the DoFs of the path from body i up to stop */
static void path_row(const hg_model *m, const hg_data *d, int i, int stop, const double W[6],
                     double sign, double *Grow) {
  for (; i != stop && i > 0; i = m->parent[i])
    for (int k = m->v_adr[i]; k < m->v_adr[i] + m->jnt_nv[i]; k++)
      Grow[k] += sign * hg_dot6(W, d->S[k]);
}

/* body i's real spatial acceleration (tree frame) from the last articulated pass: d->a less the
 * gravity offset (0, -g) and the Galilean frame's share (0, w x vt) (model.h); zero at the world */
static void real_acceleration(const hg_model *m, const hg_data *d, int i, double A[6]) {
  if (!i) {
    for (int r = 0; r < 6; r++) A[r] = 0;
    return;
  }
  double wv[3];
  hg_v3_cross(d->V[i], d->vt[m->root[i]], wv);
  for (int r = 0; r < 3; r++) A[r] = d->a[i][r], A[3 + r] = d->a[i][3 + r] + m->gravity[r] - wv[r];
}

/* W = Ad_{F^-1}^T c = (R c_m + p x R c_f, R c_f) (hg_coAd_inv), the products of a zero half
 * skipped: most rows are a pure moment or a pure force */
static void row_wrench(const hg_se3 *F, const double c[6], double W[6]) {
  int no_m = c[0] == 0 && c[1] == 0 && c[2] == 0, no_f = c[3] == 0 && c[4] == 0 && c[5] == 0;
  if (no_f) {
    hg_m3_mulv(F->R, c, W);
    W[3] = W[4] = W[5] = 0;
  } else if (no_m) {
    hg_m3_mulv(F->R, c + 3, W + 3);
    hg_v3_cross(F->p, W + 3, W);
  } else {
    hg_coAd_inv(F, c, W);
  }
}

/* Stacks the active rows into L (rows' loads and, when asked, G, r and in L->gamma: gamma
 * (want_gamma 1, v not NULL), or gamma - G a0 (want_gamma 2: a0 the accelerations of the
 * articulated pass just run on d's kinematics, whose body accelerations d->a give G a0 without
 * G: C (c_J - A_rel) with the pass's A_rel). Returns nc. */
static int stack(hg_loops *L, const hg_data *d, const double *q, const double *v,
                 const double *a0, const unsigned char *active, int want_G, int want_gamma,
                 int want_r) {
  const hg_model *m = L->m;
  int nv = m->nv, nc = 0;
  for (int k = 0; k < L->n; k++) {
    if (active && !active[k]) continue;
    const hg_loop *l = &L->loop[k];
    if (l->kind == HG_LOOP_COUPLING) {
      int f = l->jnt[1], g = l->jnt[0];
      L->rloop[nc] = k;
      L->rbody[nc][0] = f, L->rbody[nc][1] = g;
      L->rdof[nc][0] = m->v_adr[f], L->rdof[nc][1] = m->v_adr[g];
      L->rratio[nc] = l->ratio;
      if (want_G) {
        double *Gr = L->G + (size_t)nc * nv;
        memset(Gr, 0, (size_t)nv * sizeof(double));
        Gr[m->v_adr[f]] += 1, Gr[m->v_adr[g]] -= l->ratio;
      }
      if (want_gamma) L->gamma[nc] = want_gamma == 2 ? l->ratio * a0[m->v_adr[g]] - a0[m->v_adr[f]] : 0;
      if (want_r) L->r[nc] = q[m->q_adr[f]] - l->ratio * q[m->q_adr[g]] - l->offset;
      nc++;
      continue;
    }
    int a = l->body[0], b = l->body[1], stop = L->stop[k];
    loop_frames fr;
    double C[36], xi[6], Vrel[6], Arel[6], cJ[6];
    int fit = want_r || needs_fit(&l->joint);
    frames(m, d, l, fit, &fr);
    int nr = complement(&l->joint, fr.qs, C);
    if (want_r) hg_se3_log(&fr.E, xi);
    if (want_gamma) {
      /* V_rel = Ad_{F_b^-1} V_b - Ad_{F_a'^-1} V_a;
       * A_rel0 = Ad_{F_b^-1} sum c (b's path) - Ad_{F_a'^-1} sum c (a's path) - ad_{V_B} V_rel */
      double VB[6] = {0}, VA[6] = {0}, cb[6], ca[6], Ab[6] = {0}, Aa[6] = {0}, adv[6];
      if (b) hg_Ad_inv(&fr.Fb, d->V[b], VB);
      if (a) hg_Ad_inv(&fr.Fa, d->V[a], VA);
      if (want_gamma == 2) {
        /* the pass's real accelerations of both bodies, whole paths */
        real_acceleration(m, d, b, cb);
        real_acceleration(m, d, a, ca);
      } else {
        path_bias(m, d, q, v, b, stop, cb);
        path_bias(m, d, q, v, a, stop, ca);
      }
      hg_Ad_inv(&fr.Fb, cb, Ab);
      if (a) hg_Ad_inv(&fr.Fa, ca, Aa);
      for (int r = 0; r < 6; r++) Vrel[r] = VB[r] - VA[r];
      hg_ad(VB, Vrel, adv);
      for (int r = 0; r < 6; r++) Arel[r] = Ab[r] - Aa[r] - adv[r];
      /* the joint's bias at v* = S^+ V_rel: c_J = S'(q*, v*) v* (zero but for universal and
       * planar joints), taken into A_rel0 <- A_rel0 - c_J */
      double vs[HG_JOINT_MAXNV];
      if (needs_fit(&l->joint)) {
        hg_joint_velocity(&l->joint, fr.qs, Vrel, vs);
        hg_joint_bias(&l->joint, fr.qs, vs, cJ);
        for (int r = 0; r < 6; r++) Arel[r] -= cJ[r];
      }
    }
    for (int s = 0; s < nr; s++) {
      const double *c = C + 6 * s;
      L->rloop[nc] = k;
      L->rbody[nc][0] = b, L->rbody[nc][1] = a;
      L->rdof[nc][0] = L->rdof[nc][1] = -1;
      /* W = Ad_{F^-1}^T c on each side (one tree: the same W) */
      row_wrench(&fr.Fb, c, L->W[nc][0]);
      if (a && stop) memcpy(L->W[nc][1], L->W[nc][0], sizeof(hg_vec6));
      else if (a) row_wrench(&fr.Fa, c, L->W[nc][1]);
      else memset(L->W[nc][1], 0, sizeof(hg_vec6)); /* the world takes no load */
      if (want_G) {
        double *Gr = L->G + (size_t)nc * nv;
        memset(Gr, 0, (size_t)nv * sizeof(double));
        path_row(m, d, b, stop, L->W[nc][0], 1, Gr);
        path_row(m, d, a, stop, L->W[nc][1], -1, Gr);
      }
      /* gamma = C (c_J - A_rel0) = -C A_rel0 with c_J taken in;  r = C log(T_joint(q*)^-1 T_AB) */
      if (want_gamma) L->gamma[nc] = -hg_dot6(c, Arel);
      if (want_r) L->r[nc] = hg_dot6(c, xi);
      nc++;
    }
  }
  /* the model's mimic couplings whose follower is free */
  for (int k = 0; k < m->nmimic; k++) {
    int f = m->mimic_follower[k], g = m->mimic_leader[k];
    if (d->mode[f] != HG_MODE_FREE) continue;
    double mu = m->mimic_mult[k];
    L->rloop[nc] = -1 - k;
    L->rbody[nc][0] = f, L->rbody[nc][1] = g;
    L->rdof[nc][0] = m->v_adr[f], L->rdof[nc][1] = m->v_adr[g];
    L->rratio[nc] = mu;
    if (want_G) {
      double *Gr = L->G + (size_t)nc * nv;
      memset(Gr, 0, (size_t)nv * sizeof(double));
      Gr[m->v_adr[f]] += 1, Gr[m->v_adr[g]] -= mu;
    }
    if (want_gamma) L->gamma[nc] = want_gamma == 2 ? mu * a0[m->v_adr[g]] - a0[m->v_adr[f]] : 0;
    if (want_r) L->r[nc] = q[m->q_adr[f]] - mu * q[m->q_adr[g]] - m->mimic_offset[k];
    nc++;
  }
  L->nc = nc;
  return nc;
}

int hg_loops_rows(const hg_loops *L, const hg_data *d, const double *q, const double *v,
                  const unsigned char *active, double *G, double *gamma, double *r) {
  /* the rows' scratch is workspace: a const view of L stacks into it */
  hg_loops *W = (hg_loops *)L;
  int nv = L->m->nv;
  int nc = stack(W, d, q, v, NULL, active, G != NULL, gamma != NULL && v != NULL, r != NULL);
  if (G) memcpy(G, L->G, (size_t)nc * nv * sizeof(double));
  if (gamma) {
    if (v) memcpy(gamma, L->gamma, (size_t)nc * sizeof(double));
    else memset(gamma, 0, (size_t)nc * sizeof(double));
  }
  if (r) memcpy(r, L->r, (size_t)nc * sizeof(double));
  return nc;
}

/* ---- the solve of (G Y) x = y ---- */

/* the loads of the stacked rows, row j's scaled by x[j] (x NULL: 1), on right-hand side j, or
 * all on right-hand side 0 (one_col). The rows of one joint loop act on the same two bodies:
 * their loads come side by side, the side first in the Gram walk's order (tree, then body)
 * first, and on one right-hand side they add into one load a side */
static int row_loads(hg_loops *L, const double *x, int one_col) {
  const hg_model *m = L->m;
  int nl = 0;
  for (int j0 = 0, j1; j0 < L->nc; j0 = j1) {
    j1 = j0 + 1;
    if (L->rdof[j0][0] >= 0) {
      /* a coupling: the force pair e_f - ratio e_l */
      double s = x ? x[j0] : 1;
      int col = one_col ? 0 : j0;
      hg_response_load *f = &L->load[nl++], *g = &L->load[nl++];
      f->col = g->col = col;
      f->body = L->rbody[j0][0], f->dof = L->rdof[j0][0], f->w[0] = s;
      g->body = L->rbody[j0][1], g->dof = L->rdof[j0][1], g->w[0] = -s * L->rratio[j0];
      continue;
    }
    /* a joint loop's rows j0 .. j1 - 1: W_b on b, -W_a on a (none on the world) */
    while (j1 < L->nc && L->rloop[j1] == L->rloop[j0]) j1++;
    int b = L->rbody[j0][0], a = L->rbody[j0][1];
    int first = a && (!b || m->root[a] < m->root[b] || (m->root[a] == m->root[b] && a < b));
    for (int o = 0; o < 2; o++) {
      int side = o ^ first, body = L->rbody[j0][side];
      if (!body) continue;
      double sg = side ? -1 : 1;
      if (one_col) {
        /* sum_j x_j W_j on this side */
        hg_response_load *l = &L->load[nl++];
        double w[6] = {0, 0, 0, 0, 0, 0};
        for (int j = j0; j < j1; j++) {
          double s = sg * (x ? x[j] : 1);
          for (int r = 0; r < 6; r++) w[r] += s * L->W[j][side][r];
        }
        l->col = 0, l->body = body, l->dof = -1;
        for (int r = 0; r < 6; r++) l->w[r] = w[r];
        continue;
      }
      for (int j = j0; j < j1; j++) {
        hg_response_load *l = &L->load[nl++];
        double s = sg * (x ? x[j] : 1);
        l->col = j, l->body = body, l->dof = -1;
        for (int r = 0; r < 6; r++) l->w[r] = s * L->W[j][side][r];
      }
    }
  }
  return nl;
}

/* row j applied to right-hand side c of the last response (one per row): W_b^T a_b - W_a^T a_a,
 * or qdd_f - ratio qdd_l; *mag gets the sum of the terms' magnitudes (within one tree the
 * common path's share cancels, to round-off of that size) */
static double row_of_response(const hg_loops *L, int j, int c, double *mag) {
  const hg_response *R = L->resp;
  int nc = L->nc, nv = L->m->nv;
  if (L->rdof[j][0] >= 0) {
    const double *qdd = R->qdd + (size_t)c * nv;
    double f = qdd[L->rdof[j][0]], l = L->rratio[j] * qdd[L->rdof[j][1]];
    *mag = fabs(f) + fabs(l);
    return f - l;
  }
  double tb = 0, ta = 0;
  int b = L->rbody[j][0], a = L->rbody[j][1];
  if (b) tb = hg_dot6(L->W[j][0], R->a[(size_t)b * nc + c]);
  if (a) ta = hg_dot6(L->W[j][1], R->a[(size_t)a * nc + c]);
  *mag = fabs(tb) + fabs(ta);
  return tb - ta;
}

/* G Y from one response to every row's unit load (the loop bodies' paths only), then its
 * factor: Cholesky when its pivots stay above 1e-9 of its largest diagonal, else the
 * eigen-decomposition with eigenvalues below 1e-10 of the largest dropped (rank in L->rank).
 * Both also drop what is below 1e-13 of the largest term the entries were summed from: the
 * round-off of a common path's cancellation (a row that no free DoF moves) */
static int factor(hg_loops *L, hg_data *d) {
  const hg_model *m = L->m;
  int n = L->nc;
  L->rows = n;
  if (n == 0) {
    L->rank = 0;
    return 0;
  }
  int nl = row_loads(L, NULL, 0);
  double *S = L->GY, dmax = 0, mag = 0;
  int sym = hg_hybrid_response_gram(m, d, L->load, nl, n, L->resp, S, &mag) == 0;
  if (sym) {
    /* G Y through the operational-space inertias (the loop bodies on one path per tree),
     * symmetric as written */
  } else {
    /* (G Y)_ij = G_i Y_j from one response per row */
    hg_hybrid_response(m, d, L->load, nl, n, 0, L->resp);
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++) {
        double t;
        S[i * n + j] = row_of_response(L, i, j, &t);
        if (t > mag) mag = t;
      }
  }
  double floor = 1e-13 * mag;
  for (int i = 0; i < n; i++) {
    if (!sym)
      for (int j = 0; j < i; j++) S[i * n + j] = S[j * n + i] = 0.5 * (S[i * n + j] + S[j * n + i]);
    if (S[i * n + i] > dmax) dmax = S[i * n + i];
  }
  if (!(dmax > floor) || !isfinite(dmax)) {
    L->rank = 0, L->use_eig = 1, L->refine = 0;
    for (int i = 0; i < n; i++) L->eig[i] = 0;
    if (!isfinite(dmax)) {
      snprintf(d->err, sizeof d->err, "loops: non-finite constraint mass G M^-1 G^T");
      return -1;
    }
    return 0;
  }
  /* Cholesky, G Y = F F^T (F lower, row-major in fac). A row no force can act along (a planar
   * loop's out-of-plane rows: G Y's diagonal there is zero to round-off, and so, G Y being
   * semi-definite, is its whole row and column) is left out with a zero pivot: its multiplier is
   * 0, which is the minimum-norm solution's, and the others solve the definite rest. Any other
   * small pivot (rows that depend on each other) goes to the eigen-decomposition below. */
  double *F = L->fac, fmin = INFINITY, fmax = 0;
  int ok = 1, rank = 0;
  for (int j = 0; j < n && ok; j++) {
    if (S[j * n + j] <= 1e-12 * dmax) {
      for (int i = j; i < n; i++) F[i * n + j] = 0;
      continue;
    }
    double t = S[j * n + j];
    for (int k = 0; k < j; k++) t -= F[j * n + k] * F[j * n + k];
    if (!(t > 1e-9 * dmax && t > floor)) {
      ok = 0;
      break;
    }
    double f = sqrt(t);
    F[j * n + j] = f;
    rank++;
    fmin = fmin < f ? fmin : f;
    fmax = fmax > f ? fmax : f;
    for (int i = j + 1; i < n; i++) {
      double u = S[i * n + j];
      for (int k = 0; k < j; k++) u -= F[i * n + k] * F[j * n + k];
      F[i * n + j] = u / f;
    }
  }
  if (ok) {
    L->use_eig = 0, L->rank = rank, L->refine = fmax > 100 * fmin;
    return 0;
  }
  /* eigen-decomposition (column-major: G Y is symmetric; eigenvector k at fac + k n) */
  int nf = 0;
  memcpy(L->tmp, S, (size_t)n * n * sizeof(double));
  if (LAPACKE_dsyevr_work(LAPACK_COL_MAJOR, 'V', 'A', 'U', n, L->tmp, n, 0, 0, 0, 0, 0, &nf,
                          L->eig, L->fac, n, L->isuppz, L->work, L->lwork, L->iwork,
                          L->liwork) != 0) {
    snprintf(d->err, sizeof d->err, "loops: the eigen-decomposition of G M^-1 G^T failed");
    return -1;
  }
  double emax = L->eig[n - 1];
  L->use_eig = 1, L->rank = 0, L->refine = 1;
  for (int k = 0; k < n; k++)
    if (L->eig[k] > 1e-10 * emax && L->eig[k] > floor) L->rank++;
    else L->eig[k] = 0;
  return 0;
}

/* x = (G Y)^+ y with the last factor (x may be y) */
static void solve(hg_loops *L, const double *y, double *x) {
  int n = L->nc;
  double *t = L->rhs;
  if (!L->use_eig) {
    const double *F = L->fac;
    /* F z = y, F^T x = z (a left-out row, zero pivot: its multiplier is 0) */
    for (int i = 0; i < n; i++) {
      double u = y[i];
      for (int k = 0; k < i; k++) u -= F[i * n + k] * t[k];
      t[i] = F[i * n + i] != 0 ? u / F[i * n + i] : 0;
    }
    for (int i = n - 1; i >= 0; i--) {
      double u = t[i];
      for (int k = i + 1; k < n; k++) u -= F[k * n + i] * t[k];
      t[i] = F[i * n + i] != 0 ? u / F[i * n + i] : 0;
    }
    memcpy(x, t, (size_t)n * sizeof(double));
    return;
  }
  /* x = Z diag(1 / e) Z^T y over the kept eigenvalues */
  const double *Z = L->fac;
  for (int k = 0; k < n; k++) {
    double u = 0;
    if (L->eig[k] > 0) {
      for (int i = 0; i < n; i++) u += Z[k * n + i] * y[i];
      u /= L->eig[k];
    }
    t[k] = u;
  }
  for (int i = 0; i < n; i++) {
    double u = 0;
    for (int k = 0; k < n; k++)
      if (L->eig[k] > 0) u += Z[k * n + i] * t[k];
    x[i] = u;
  }
}

/* Y x (L->resp->qdd) and the loads it adds at non-free joints (L->resp->tau): one response of
 * every body to the combined load G^T x */
static void apply_Y(hg_loops *L, hg_data *d, const double *x) {
  int nl = row_loads(L, x, 1);
  hg_hybrid_response(L->m, d, L->load, nl, 1, 1, L->resp);
}

/* G_i y over the stacked rows */
static double row_dot(const hg_loops *L, int i, const double *y) {
  const double *Gr = L->G + (size_t)i * L->m->nv;
  double t = 0;
  for (int k = 0; k < L->m->nv; k++) t += Gr[k] * y[k];
  return t;
}

int hg_loops_hybrid(hg_loops *L, hg_data *d, const double *q, const double *v,
                    const unsigned char *active, double *qdd, double *tau, const double *fext,
                    double *lambda) {
  const hg_model *m = L->m;
  int nv = m->nv;
  /* a0 = hybrid(q, v, tau, fext): the tree-frame pass, whose factors stay in d */
  if (hg_hybrid_on_kinematics(m, d, qdd, tau, fext)) return -1;
  /* the rows and gamma - G a0, from the pass's accelerations */
  int nc = stack(L, d, q, v, qdd, active, 0, 2, 0);
  if (factor(L, d)) return -1;
  if (nc == 0) return 0;
  /* (G Y) lambda = gamma - G a0 */
  solve(L, L->gamma, L->lambda);
  /* vdot = a0 + Y lambda; the loads at non-free joints gain the loops' share */
  apply_Y(L, d, L->lambda);
  for (int k = 0; k < nv; k++) {
    qdd[k] += L->resp->qdd[k];
    if (d->mode[m->dof_body[k]] != HG_MODE_FREE) tau[k] += L->resp->tau[k];
  }
  if (L->refine) {
    /* G Y ill-conditioned (the square of G's condition): one step of iterative refinement
     * on the residual gamma - G qdd, which G and the response give to round-off */
    stack(L, d, q, v, NULL, active, 1, 1, 0);
    for (int i = 0; i < nc; i++) L->x[i] = L->gamma[i] - row_dot(L, i, qdd);
    solve(L, L->x, L->x);
    apply_Y(L, d, L->x);
    for (int k = 0; k < nv; k++) {
      qdd[k] += L->resp->qdd[k];
      if (d->mode[m->dof_body[k]] != HG_MODE_FREE) tau[k] += L->resp->tau[k];
    }
    for (int i = 0; i < nc; i++) L->lambda[i] += L->x[i];
  }
  if (lambda) memcpy(lambda, L->lambda, (size_t)nc * sizeof(double));
  return 0;
}

/* the factors of the articulated inertias at q (no velocity) in d, by the impulsive pass */
static int factors_at(hg_loops *L, hg_data *d, const double *q) {
  static const hg_pass_options tree = {1, 0};
  memset(L->a0, 0, (size_t)L->m->nv * sizeof(double));
  memset(L->tau0, 0, (size_t)L->m->nv * sizeof(double));
  return hg_hybrid_impulse_opt(L->m, d, &tree, q, L->a0, L->tau0);
}

int hg_loops_impulse(hg_loops *L, hg_data *d, const double *q, double *v,
                     const unsigned char *active, double *mu, double *energy_removed) {
  int nv = L->m->nv;
  if (factors_at(L, d, q)) return -1;
  int nc = stack(L, d, q, NULL, NULL, active, 1, 0, 0);
  if (factor(L, d)) return -1;
  /* (G Y) mu = -G v;  v += Y mu; the energy removed is mu^T (G Y) mu / 2 */
  for (int i = 0; i < nc; i++) L->x[i] = -row_dot(L, i, v);
  solve(L, L->x, L->lambda);
  double e = 0;
  for (int i = 0; i < nc; i++) {
    double t = 0;
    for (int j = 0; j < nc; j++) t += L->GY[i * nc + j] * L->lambda[j];
    e += L->lambda[i] * t;
  }
  if (energy_removed) *energy_removed = 0.5 * e;
  if (nc) {
    apply_Y(L, d, L->lambda);
    for (int k = 0; k < nv; k++) v[k] += L->resp->qdd[k];
  }
  if (mu) memcpy(mu, L->lambda, (size_t)nc * sizeof(double));
  return 0;
}

/* e <- e - Y (G Y)^+ G e with the rows and factor in L */
static void tangent(hg_loops *L, hg_data *d, double *e) {
  int nc = L->nc;
  if (nc == 0) return;
  for (int i = 0; i < nc; i++) L->x[i] = row_dot(L, i, e);
  solve(L, L->x, L->x);
  apply_Y(L, d, L->x);
  for (int k = 0; k < L->m->nv; k++) e[k] -= L->resp->qdd[k];
}

int hg_loops_project(hg_loops *L, hg_data *d, double *q, double *v, const unsigned char *active,
                     double tol, int maxit) {
  const hg_model *m = L->m;
  double worst = 0;
  int it = 0;
  for (;; it++) {
    if (factors_at(L, d, q)) return -1;
    int nc = stack(L, d, q, NULL, NULL, active, 1, 0, 1);
    worst = 0;
    for (int i = 0; i < nc; i++)
      if (!(fabs(L->r[i]) <= worst)) worst = fabs(L->r[i]);
    if (factor(L, d)) return -1;
    if (worst <= tol) break;
    if (it == maxit || !isfinite(worst)) {
      snprintf(d->err, sizeof d->err,
               "loops: the closure residual is still %.3g after %d Gauss-Newton steps (tol %.3g): "
               "the loops cannot close here",
               worst, it, tol);
      return -1;
    }
    /* q <- q (+) (-Y (G Y)^+ r) */
    solve(L, L->r, L->x);
    apply_Y(L, d, L->x);
    hg_model_integrate(m, q, L->resp->qdd, -1, q);
  }
  if (v) tangent(L, d, v);
  return it;
}

void hg_loops_project_tangent(hg_loops *L, hg_data *d, const unsigned char *active, double *e) {
  stack(L, d, NULL, NULL, NULL, active, 1, 0, 0);
  if (factor(L, d)) return;
  tangent(L, d, e);
}

void hg_loops_wrench(const hg_loops *L, const hg_data *d, int k, const double *lam, double w[6]) {
  const hg_loop *l = &L->loop[k];
  for (int r = 0; r < 6; r++) w[r] = 0;
  if (l->kind == HG_LOOP_COUPLING) return;
  loop_frames fr;
  double C[36], fB[6] = {0, 0, 0, 0, 0, 0};
  frames(L->m, d, l, needs_fit(&l->joint), &fr);
  int nr = complement(&l->joint, fr.qs, C);
  /* f_B = C^T lam (frame B), then moved to A: Ad_{T_AB^-1}^T f_B */
  for (int s = 0; s < nr; s++)
    for (int r = 0; r < 6; r++) fB[r] += C[6 * s + r] * lam[s];
  hg_coAd_inv(&fr.Tab, fB, w);
}
