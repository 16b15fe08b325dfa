/* articulated.c: the articulated-body pass behind forward (ABA), hybrid and impulsive dynamics.
 *
 * One routine serves all three (J. Kim, "Lie Group Formulation of Articulated
 * Rigid Body Dynamics", Tables 3 and 4; the hybrid dynamics of A. Jain's spatial operator algebra):
 * each joint is either free (its force is given, its acceleration solved) or prescribed (its
 * acceleration is given, its force recovered). Backward, each body's articulated inertia IA_i and
 * bias pA_i are projected across its joint and passed to the parent:
 *   free:        Pi = IA - U D^-1 U^T,  beta = pA + Pi c + U D^-1 u,   U = IA S,
 *                D = S^T U + diag(armature),  u = tau - S^T pA
 *   prescribed:  Pi = IA,               beta = pA + IA (c + S qdd)
 * The armature (model.h: reflected rotor inertia) adds to the joint-space mass matrix's diagonal,
 * so it enters D only (Featherstone, "Rigid Body Dynamics Algorithms", 7.3, with the joint's
 * own inertia), and a prescribed joint's force gains armature * qdd. At a root joint with a
 * Galilean frame, where qdd = qg - xi, the armature's share armature * qdd moves into u as
 * + armature * xi.
 * Forward, a_i = Ad_{T^-1} a_p + c_i + S_i qdd_i with qdd_i = D^-1 (u - U^T (Ad a_p + c)) for free
 * joints, and F_i = IA_i a_i + pA_i is the wrench the joint transmits; prescribed joints read
 * tau_i = S_i^T F_i (the pass forms F_i only there; hg_joint_wrench forms any joint's from the
 * IA, a and pA the pass leaves). The impulsive form is the same pass with velocities, gravity
 * and external wrenches set to zero (accelerations become velocity jumps, forces become
 * impulses).
 *
 * The backward pass is the only sweep before the forward one: body i's own terms (IA_i = I_i,
 * pA_i = -ad*_{V_i} I_i V_i - fext_i) are written together with the first projection that reaches
 * i (from its last child in index order, whose subtree ends where i's does), or at i itself when
 * it is a leaf; later children add to them. Both sweeps take the bodies by depth (m->by_depth:
 * deepest first, each depth in decreasing index; the forward sweep the reverse), so consecutive
 * bodies seldom wait on each other's projection or acceleration; a parent's children are still
 * reached in decreasing index order, so the sums, and the results, are those of index order.
 * On a model with fixed joints, after hg_kinematics' walk over its swept bodies (body_frames.h),
 * the pass steps over those bodies only, in the tree of their carriers, as over the merged twin:
 * a carrier's own terms take the bodies fixed to it, a fixed body's acceleration is its
 * carrier's, and hg_joint_wrench forms a fixed joint's wrench on demand.
 * A failure (singular or non-finite articulated inertia, a non-finite acceleration or force) is
 * reported at the first joint where the pass meets it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aba_local.h"
#include "dynamics.h"

/* body i's own share of its articulated inertia and bias: IA_i = I_i (packed) plus what is
 * given, pA_i = -ad*_{V_i} I_i V_i - fext_i plus what is given (zero without bias: then c_i = 0
 * too, for the impulsive form). Pi and beta are what i's first child hands up, NULL at a leaf. */
HG_INLINE void own_terms(const hg_model *m, hg_data *d, int i, const double *Pi,
                         const double *beta, const double *fext, int bias, int swept) {
  const hg_inertia *G = &d->I[i];
  double *IA = d->IA[i], *pA = d->pA[i];
  hg_inertia Gc;
  const double *ff = NULL; /* swept with fext: the fixed bodies' -fext, summed below */
  int f0 = 0, f1 = 0;
  if (swept) {
    /* the pass over the swept bodies: the bodies fixed to i are part of it, I_i + sum of theirs
     * (their d->I in the tree frame, as the walk gave them; a massless one adds nothing), and
     * their own -fext (swept_fext) join pA below */
    const hg_local_model *lm = m->local;
    f0 = lm->carried_adr[i], f1 = lm->carried_adr[i + 1];
    if (f0 < f1) {
      Gc = *G;
      for (int k = f0; k < f1; k++)
        if (!lm->massless[lm->carried[k]]) hg_inertia_add(&Gc, &d->I[lm->carried[k]]);
      G = &Gc;
      ff = d->local->ffix_set ? (const double *)d->pA : NULL;
    }
  }
  /* IA_i = I_i + Pi; pA_i = beta - ad*_V I V - fext (either sum without what is NULL) */
  if (Pi) hg_inertia_sym6_add(G, Pi, IA);
  else hg_inertia_sym6(G, IA);
  if (bias) {
    double hv[6], f[6];
    hg_inertia_mulv(G, d->Vg[i], hv);
    hg_ad_star(d->Vg[i], hv, f);
    if (fext) {
      double fe[6];
      hg_coAd_inv(&d->T_tree[i], fext + 6 * i, fe);
      for (int r = 0; r < 6; r++) f[r] += fe[r];
    }
    if (beta)
      for (int r = 0; r < 6; r++) pA[r] = beta[r] - f[r];
    else
      for (int r = 0; r < 6; r++) pA[r] = -f[r];
    for (int k = f0; ff && k < f1; k++) {
      const double *g = ff + 6 * (size_t)m->local->carried[k];
      for (int r = 0; r < 6; r++) pA[r] += g[r];
    }
  } else {
    for (int r = 0; r < 6; r++) pA[r] = beta ? beta[r] : 0;
    memset(d->c[i], 0, sizeof(hg_vec6));
  }
}

/* hands child i's projection (Pi packed, beta) to its parent p: the first of p's children the
 * backward pass reaches (the last in index order: its subtree ends where p's does) writes
 * p's own terms with it, the others add to them */
HG_INLINE void give_parent(const hg_model *m, hg_data *d, int i, int p, const double *Pi,
                           const double *beta, const double *fext, int bias, int swept) {
  const int *end = swept ? m->local->sweep_end : m->subtree_end;
  if (end[i] == end[p]) {
    own_terms(m, d, p, Pi, beta, fext, bias, swept);
  } else {
    double *restrict IAp = d->IA[p], *restrict pAp = d->pA[p];
    for (int e = 0; e < 21; e++) IAp[e] += Pi[e];
    for (int r = 0; r < 6; r++) pAp[r] += beta[r];
  }
}

/* Pi = IA - W U^T (symmetric: the packed upper triangle), with W = U D^-1, both 6 x n */
HG_INLINE void project_inertia(int n, const double *IA,
                                                                  const double *W, hg_vec6 *U,
                                                                  double *Pi) {
  for (int r = 0; r < 6; r++)
    for (int s = r; s < 6; s++) {
      int e = hg_sym6_index(r, s);
      double t = IA[e];
      for (int k = 0; k < n; k++) t -= W[r * n + k] * U[k][s];
      Pi[e] = t;
    }
}

/* project_free for a 1-DoF joint, with D a scalar, handing Pi and beta to the parent p
 * (give_parent; p = 0: the world takes nothing) */
HG_INLINE int project_free_1_at(const hg_model *m, hg_data *d, int i, int p, const double *tau,
                                const double *fext, int bias, int swept) {
  int va = m->v_adr[i];
  const double *IA = d->IA[i], *pA = d->pA[i], *c = d->c[i], *s = d->S[va];
  double U[6], w[6], scale = 0;

  /* U = IA s and w = IA c in one sweep over the rows of IA, as pairs (U_r, w_r) += IA_rk (s_k,
   * c_k) (the compiler makes each pair one vector operation); D = s^T U, u = tau - s^T pA */
  double sc[12], Uw[12];
  for (int k = 0; k < 6; k++) sc[2 * k] = s[k], sc[2 * k + 1] = c[k];
HG_UNROLL(6)
  for (int r = 0; r < 6; r++) {
    double e0 = IA[hg_sym6_index(r, 0)];
    Uw[2 * r] = e0 * sc[0], Uw[2 * r + 1] = e0 * sc[1];
HG_UNROLL(6)
    for (int k = 1; k < 6; k++) {
      double e = IA[hg_sym6_index(r, k)];
      Uw[2 * r] += e * sc[2 * k], Uw[2 * r + 1] += e * sc[2 * k + 1];
    }
  }
  for (int r = 0; r < 6; r++) U[r] = Uw[2 * r], w[r] = Uw[2 * r + 1];
  /* D = s^T U + armature; u = tau - s^T pA (+ armature xi at a Galilean root: see the top) */
  double D = hg_dot6(s, U), u = tau[va] - hg_dot6(s, pA);
  if (m->has_armature) {
    D += m->armature[va];
    if (!p && bias) u += m->armature[va] * d->xi[va];
  }
  double Dinv = 1 / D;
  for (int r = 0; r < 6; r++) d->U[va][r] = U[r];
  d->Dinv[m->D_adr[i]] = Dinv;
  d->u[va] = u;
  if (p) {
    /* Pi = IA - W U^T with W = U / D (its upper triangle: symmetric by construction);
     * beta = pA + IA c - U g with g = (U^T c - u) / D */
    double Pi[21], beta[6], W[6];
    double g = (hg_dot6(U, c) - u) * Dinv;
    for (int r = 0; r < 6; r++) W[r] = U[r] * Dinv;
HG_UNROLL(6)
    for (int r = 0; r < 6; r++) {
HG_UNROLL(6)
      for (int k = r; k < 6; k++) Pi[hg_sym6_index(r, k)] = IA[hg_sym6_index(r, k)] - W[r] * U[k];
      beta[r] = pA[r] + w[r] - U[r] * g;
    }
    give_parent(m, d, i, p, Pi, beta, fext, bias, swept);
  }

  /* the singularity test, last (a failure stops the pass: nothing written above is read);
   * scale bounds D from above */
  for (int r = 0; r < 6; r++) scale += fabs(IA[hg_sym6_index(r, r)]) * s[r] * s[r];
  if (m->has_armature) scale += m->armature[va];
  if (!isfinite(D) || !isfinite(scale)) return -2;
  if (!(D > 1e-12 * scale)) return -1;
  return 0;
}

/* Backward projection across free joint i (any nv): fills U, Dinv and u, and hands what the
 * parent p sees, Pi = IA - U D^-1 U^T and beta = pA + Pi c + U D^-1 u, to it (give_parent; p = 0:
 * the world takes nothing). Returns hg_spd_inverse's failure. */
HG_INLINE int project_free_n(const hg_model *m, hg_data *d, int i, int p, const double *tau,
                             const double *fext, int bias, int n, int swept) {
  int va = m->v_adr[i];
  const double *IA = d->IA[i], *pA = d->pA[i], *c = d->c[i];
  double *Dinv = d->Dinv + m->D_adr[i], D[36] = {0}, scale[6] = {0}, W[36];
  hg_vec6 *U = d->U + va;

  /* U = IA S, D = S^T U, u = tau - S^T pA; scale[k] bounds D_kk for the singularity test */
  for (int k = 0; k < n; k++) {
    const double *s = d->S[va + k];
    hg_sym6_mulv(IA, s, U[k]);
    d->u[va + k] = tau[va + k] - hg_dot6(s, pA);
    scale[k] = 0;
    for (int r = 0; r < 6; r++) scale[k] += fabs(IA[hg_sym6_index(r, r)]) * s[r] * s[r];
    for (int l = 0; l <= k; l++) D[k * n + l] = D[l * n + k] = hg_dot6(d->S[va + l], U[k]);
  }
  /* D += diag(armature); u += armature xi at a Galilean root (see the top) */
  if (m->has_armature)
    for (int k = 0; k < n; k++) {
      D[k * n + k] += m->armature[va + k];
      scale[k] += m->armature[va + k];
      if (!p && bias) d->u[va + k] += m->armature[va + k] * d->xi[va + k];
    }
  int rc = hg_spd_inverse(n, D, scale, Dinv);
  if (rc || p == 0) return rc;

  /* W = U D^-1;  Pi = IA - W U^T;  beta = pA + IA c - W (U^T c - u) */
  double Uc[6], w[6], Pi[21], beta[6];
  for (int k = 0; k < n; k++) Uc[k] = hg_dot6(U[k], c) - d->u[va + k];
  for (int r = 0; r < 6; r++)
    for (int k = 0; k < n; k++) {
      double t = 0;
      for (int l = 0; l < n; l++) t += U[l][r] * Dinv[l * n + k];
      W[r * n + k] = t;
    }
  project_inertia(n, IA, W, U, Pi);
  hg_sym6_mulv(IA, c, w);
  for (int r = 0; r < 6; r++) {
    double t = pA[r] + w[r];
    for (int k = 0; k < n; k++) t -= W[r * n + k] * Uc[k];
    beta[r] = t;
  }
  give_parent(m, d, i, p, Pi, beta, fext, bias, swept);
  return 0;
}

/* project_free_n, compiled out for the 6-DoF (free) joint, where every loop's bound is known */
HG_INLINE int project_free_at(const hg_model *m, hg_data *d, int i, int p, const double *tau,
                              const double *fext, int bias, int swept) {
  int n = m->jnt_nv[i];
  if (n == 6) return project_free_n(m, d, i, p, tau, fext, bias, 6, swept);
  return project_free_n(m, d, i, p, tau, fext, bias, n, swept);
}

/* Backward step across prescribed (or locked) joint i with qdd given: the parent p sees the whole
 * subtree, Pi = IA and beta = pA + IA (c + S qdd); across a fixed joint (no DoF, c = 0: the
 * walk's c_i = ad_{V_i} 0) beta = pA */
HG_INLINE void project_prescribed_at(const hg_model *m, hg_data *d, int i, int p,
                                   const double *qdd, const double *fext, int bias, int swept) {
  int va = m->v_adr[i], n = m->jnt_nv[i];
  const double *IA = d->IA[i], *pA = d->pA[i];
  double ci[6], beta[6];
  if (p == 0) return;
  if (n == 0) {
    give_parent(m, d, i, p, IA, pA, fext, bias, swept);
    return;
  }
  for (int r = 0; r < 6; r++) ci[r] = d->c[i][r];
  for (int k = 0; k < n; k++)
    for (int r = 0; r < 6; r++) ci[r] += d->S[va + k][r] * qdd[va + k];
  hg_sym6_mulv(IA, ci, beta);
  for (int r = 0; r < 6; r++) beta[r] += pA[r];
  give_parent(m, d, i, p, IA, beta, fext, bias, swept);
}

/* the three projections compiled for the pass over every body and for the pass over the swept
 * bodies of a model with fixed joints (_swept: the tree of carriers, fixed bodies folded in) */
HG_HOT static int project_free_1(const hg_model *m, hg_data *d, int i, int p, const double *tau,
                                 const double *fext, int bias) {
  return project_free_1_at(m, d, i, p, tau, fext, bias, 0);
}
HG_HOT static int project_free(const hg_model *m, hg_data *d, int i, int p, const double *tau,
                               const double *fext, int bias) {
  return project_free_at(m, d, i, p, tau, fext, bias, 0);
}
HG_HOT static void project_prescribed(const hg_model *m, hg_data *d, int i, int p,
                                      const double *qdd, const double *fext, int bias) {
  project_prescribed_at(m, d, i, p, qdd, fext, bias, 0);
}
HG_HOT static int project_free_1_swept(const hg_model *m, hg_data *d, int i, int p,
                                       const double *tau, const double *fext, int bias) {
  return project_free_1_at(m, d, i, p, tau, fext, bias, 1);
}
HG_HOT static int project_free_swept(const hg_model *m, hg_data *d, int i, int p,
                                     const double *tau, const double *fext, int bias) {
  return project_free_at(m, d, i, p, tau, fext, bias, 1);
}
HG_HOT static void project_prescribed_swept(const hg_model *m, hg_data *d, int i, int p,
                                            const double *qdd, const double *fext, int bias) {
  project_prescribed_at(m, d, i, p, qdd, fext, bias, 1);
}

/* the pass over the swept bodies: each fixed body's own -fext, moved to the tree frame, into its
 * d->pA, where its carrier's own terms and hg_joint_wrench read it (when the pass has fext and
 * velocities: ffix_set), and the form of the pass for the views (body_frames.h: pass_swept) */
static void swept_fext(const hg_model *m, hg_data *d, const double *fext, int bias) {
  const hg_local_model *lm = m->local;
  hg_local_data *ld = d->local;
  ld->impulsive = !bias;
  ld->ffix_set = fext && bias;
  for (int k = 0; ld->ffix_set && k < lm->nfixed; k++) {
    int b = lm->fixed_list[k];
    double *pA = d->pA[b];
    hg_coAd_inv(&d->T_tree[b], fext + 6 * b, pA);
    for (int r = 0; r < 6; r++) pA[r] = -pA[r];
  }
}

/* the articulated-body pass on the kinematics in d (hg_kinematics with velocities when bias is
 * 1, without when it is 0); mode NULL means every joint is free; bias 0 is the impulsive form
 * (compiled twice below) */
HG_INLINE int articulated(const hg_model *m, hg_data *d, const uint8_t *mode, double *qdd,
                          double *tau, const double *fext, int bias, int swept) {
  /* the bodies stepped over: every body in m->by_depth, or the swept ones of a model with fixed
   * joints in the tree of carriers (body_frames.h), whose parent is the carrier of m's */
  const hg_local_model *lm = m->local;
  const int *order = swept ? lm->tree_order : m->by_depth;
  const int *parent = swept ? lm->parent : m->parent;
  const int *end = swept ? lm->sweep_end : m->subtree_end;
  const int nstep = swept ? lm->nswept - 1 : m->nbody - 1;
  if (d->local) d->local->pass_swept = swept;
  if (swept) swept_fext(m, d, fext, bias);

  /* backward: project each subtree across its joint and hand it to the parent; IA_i and pA_i
   * start from body i's own terms (own_terms), written by its first child or here at a leaf */
  for (int o = 0; o < nstep; o++) {
    int i = order[o];
    int va = m->v_adr[i], n = m->jnt_nv[i], p = parent[i], rc = 0;
    if (end[i] == i + 1) own_terms(m, d, i, NULL, NULL, fext, bias, swept);
    if (n > 0 && (!mode || mode[i] == HG_MODE_FREE)) {
      if (swept)
        rc = n == 1 ? project_free_1_swept(m, d, i, p, tau, fext, bias)
                    : project_free_swept(m, d, i, p, tau, fext, bias);
      else
        rc = n == 1 ? project_free_1(m, d, i, p, tau, fext, bias)
                    : project_free(m, d, i, p, tau, fext, bias);
    } else {
      if (bias && mode && mode[i] == HG_MODE_LOCKED)
        for (int k = 0; k < n; k++) qdd[va + k] = 0;
      if (swept) project_prescribed_swept(m, d, i, p, qdd, fext, bias);
      else project_prescribed(m, d, i, p, qdd, fext, bias);
    }
    if (rc) {
      if (rc == -1)
        snprintf(d->err, sizeof d->err,
                 "articulated inertia is singular at joint '%s' (body '%s'): the subtree it moves "
                 "has no mass or inertia along the joint's motion",
                 m->jnt_name[i], m->body_name[i]);
      else
        snprintf(d->err, sizeof d->err,
                 "non-finite articulated inertia at joint '%s' (body '%s'): check the state",
                 m->jnt_name[i], m->body_name[i]);
      return -1;
    }
  }

  /* forward: accelerations, and the unknown half of (qdd, tau) */
  double *a0 = d->a[0];
  for (int r = 0; r < 6; r++) a0[r] = 0;
  if (bias)
    for (int r = 0; r < 3; r++) a0[3 + r] = -m->gravity[r];
  for (int o = nstep - 1; o >= 0; o--) {
    int i = order[o];
    int va = m->v_adr[i], n = m->jnt_nv[i];
    int free_joint = n > 0 && (!mode || mode[i] == HG_MODE_FREE);
    const double *ap = d->a[parent[i]], *ci = d->c[i];
    double a[6];
    for (int r = 0; r < 6; r++) a[r] = ap[r] + ci[r];
    /* qg: the joint's accelerations seen from the Galilean frame, where a root's real ones are
     * qdd = qg - xi (model.h); elsewhere qg = qdd */
    double qg[HG_JOINT_MAXNV];
    const double *xi = bias && m->parent[i] == 0 ? d->xi + va : NULL;
    if (free_joint && n == 1) {
      /* the common case in short: qg = (u - U^T a') / D, a = a' + S qg */
      double qk = d->Dinv[m->D_adr[i]] * (d->u[va] - hg_dot6(d->U[va], a));
      const double *S = d->S[va];
      qdd[va] = xi ? qk - xi[0] : qk;
      for (int r = 0; r < 6; r++) a[r] += S[r] * qk;
      if (mode) {
        /* the pass with modes is done with this free joint (no second test of its mode
         * below); ABA's pass keeps the shared tail, which compiles better there */
        for (int r = 0; r < 6; r++) d->a[i][r] = a[r];
        continue;
      }
    } else {
      if (free_joint) {
        /* qg = D^-1 (u - U^T a') */
        const double *Dinv = d->Dinv + m->D_adr[i];
        double w[6];
        for (int k = 0; k < n; k++) w[k] = d->u[va + k] - hg_dot6(d->U[va + k], a);
        for (int k = 0; k < n; k++) {
          double t = 0;
          for (int l = 0; l < n; l++) t += Dinv[k * n + l] * w[l];
          qg[k] = t;
        }
      }
      for (int k = 0; k < n; k++) {
        if (free_joint) qdd[va + k] = xi ? qg[k] - xi[k] : qg[k];
        else qg[k] = xi ? qdd[va + k] + xi[k] : qdd[va + k];
        const double *S = d->S[va + k], qk = qg[k];
        for (int r = 0; r < 6; r++) a[r] += S[r] * qk;
      }
    }
    for (int r = 0; r < 6; r++) d->a[i][r] = a[r];
    if (mode && !free_joint && n > 0) {
      /* the force of a prescribed joint S^T F from its wrench F = IA a + pA (only there: any
       * joint's wrench is hg_joint_wrench's, on demand from the same three) */
      double F[6];
      hg_sym6_mulv(d->IA[i], a, F);
      for (int r = 0; r < 6; r++) F[r] += d->pA[i][r];
      for (int k = 0; k < n; k++) tau[va + k] = hg_dot6(d->S[va + k], F);
      /* tau += armature qdd: the rotors' share */
      if (m->has_armature)
        for (int k = 0; k < n; k++) tau[va + k] += m->armature[va + k] * qdd[va + k];
    }
  }

  /* a fixed body moves with its carrier: the same acceleration in the tree frame (the world's
   * a_0 for one fixed to it) */
  for (int k = 0; swept && k < lm->nfixed; k++) {
    int b = lm->fixed_list[k];
    for (int r = 0; r < 6; r++) d->a[b][r] = d->a[lm->carrier[b]][r];
  }

  /* a non-finite state or input fails the pass, named at the first joint that has one, instead
   * of spreading NaN (one sweep over all DoFs; the joint is looked for only then) */
  int bad = 0;
  for (int k = 0; k < m->nv; k++) bad |= !isfinite(qdd[k]) | !isfinite(tau[k]);
  if (!bad) return 0;
  for (int i = 1; i < m->nbody; i++)
    for (int k = m->v_adr[i]; k < m->v_adr[i] + m->jnt_nv[i]; k++)
      if (!isfinite(qdd[k]) || !isfinite(tau[k])) {
        int free_joint = !mode || mode[i] == HG_MODE_FREE;
        snprintf(d->err, sizeof d->err, "non-finite %s at joint '%s' (body '%s'): check the state and inputs",
                 free_joint ? "acceleration" : "force", m->jnt_name[i], m->body_name[i]);
        return -1;
      }
  return 0;
}

/* 1 when d holds hg_kinematics' walk over the swept bodies of a model with fixed joints (not the
 * world-frame walk over every body): the pass then steps over the swept bodies too */
static inline int walk_swept(const hg_data *d) { return d->local && d->local->walk_swept; }

/* the pass compiled for every joint free with velocities (hg_aba: no mode tests in its loops),
 * for any modes with velocities (hybrid) and for any modes without (impulsive), each over every
 * body and over the swept bodies */
HG_HOT static int articulated_free(const hg_model *m, hg_data *d, double *qdd, double *tau,
                                   const double *fext) {
  if (walk_swept(d)) return articulated(m, d, NULL, qdd, tau, fext, 1, 1);
  return articulated(m, d, NULL, qdd, tau, fext, 1, 0);
}
HG_HOT static int articulated_any(const hg_model *m, hg_data *d, const uint8_t *mode, double *qdd,
                                  double *tau, const double *fext) {
  if (!mode) __builtin_unreachable(); /* d->mode (hg_data_new): the pass drops its NULL tests */
  if (walk_swept(d)) return articulated(m, d, mode, qdd, tau, fext, 1, 1);
  return articulated(m, d, mode, qdd, tau, fext, 1, 0);
}
HG_HOT static int articulated_impulse(const hg_model *m, hg_data *d, const uint8_t *mode,
                                      double *dv, double *imp) {
  if (!mode) __builtin_unreachable();
  if (walk_swept(d)) return articulated(m, d, mode, dv, imp, NULL, 0, 1);
  return articulated(m, d, mode, dv, imp, NULL, 0, 0);
}

/* 1 when every joint is free: hybrid dynamics is then ABA's pass, the same arithmetic without the
 * mode tests (the joints' forces are inputs, read only) */
static int all_free(const hg_model *m, const hg_data *d) {
  /* HG_MODE_FREE is 0: eight modes at a time are free when their word is 0 */
  _Static_assert(HG_MODE_FREE == 0, "all_free reads free modes as zero bytes");
  const uint8_t *mode = d->mode + 1;
  size_t n = (size_t)(m->nbody - 1), k = 0;
  for (; k + 8 <= n; k += 8) {
    uint64_t w;
    memcpy(&w, mode + k, sizeof w);
    if (w) return 0;
  }
  for (; k < n; k++)
    if (mode[k] != HG_MODE_FREE) return 0;
  return 1;
}

/* ---- the entry points: the body-local pass when the model has one (m->local, aba_local.h)
 * and the caller's options (opt, NULL for the defaults) do not ask for the tree-frame pass, else
 * the tree-frame pass. When the body-local pass fails, the tree-frame pass runs on the same input
 * (the local pass writes only outputs): it names the joint in d->err, and its result is the one
 * returned. */

/* 1 when the body-local pass is to run: the model has one, and the options ask neither for the
 * tree-frame pass nor for the world's frame in a tree that has a Galilean frame (the body-local
 * pass has one at every translating root) */
static int local_runs(const hg_model *m, const hg_pass_options *opt) {
  return m->local && !(opt && (opt->tree_frame || (opt->world_frame && m->local->galilean)));
}

int hg_aba_opt(const hg_model *m, hg_data *d, const hg_pass_options *opt, const double *q,
               const double *v, const double *tau, const double *fext, double *qdd) {
  if (local_runs(m, opt)) {
    d->local_pass = 1;
    if (!hg_local_aba(m->local, d->local, q, v, tau, fext, qdd)) return 0;
  }
  /* with every joint free the pass only reads tau */
  hg_kinematics_opt(m, d, opt, q, v);
  return articulated_free(m, d, qdd, (double *)tau, fext);
}

int hg_aba(const hg_model *m, hg_data *d, const double *q, const double *v, const double *tau,
           const double *fext, double *qdd) {
  return hg_aba_opt(m, d, NULL, q, v, tau, fext, qdd);
}

int hg_hybrid_opt(const hg_model *m, hg_data *d, const hg_pass_options *opt, const double *q,
                  const double *v, double *qdd, double *tau, const double *fext) {
  if (local_runs(m, opt)) {
    d->local_pass = 1;
    if (all_free(m, d) ? !hg_local_aba(m->local, d->local, q, v, tau, fext, qdd)
                       : !hg_local_hybrid(m->local, d->local, d->mode, q, v, qdd, tau, fext))
      return 0;
  }
  hg_kinematics_opt(m, d, opt, q, v);
  return hg_hybrid_on_kinematics(m, d, qdd, tau, fext);
}

int hg_hybrid(const hg_model *m, hg_data *d, const double *q, const double *v, double *qdd,
              double *tau, const double *fext) {
  return hg_hybrid_opt(m, d, NULL, q, v, qdd, tau, fext);
}

int hg_hybrid_on_kinematics(const hg_model *m, hg_data *d, double *qdd, double *tau,
                            const double *fext) {
  /* after hg_rnea's or hg_crba's walk over the swept bodies (hg_kinematics_carried) a carrier's
   * d->I holds the inertias of the bodies fixed to it, which the pass would count twice */
  if (d->local && d->local->tree_carried) {
    snprintf(d->err, sizeof d->err,
             "hg_hybrid_on_kinematics: d holds the walk of hg_rnea or hg_crba, not that of "
             "hg_kinematics (call hg_kinematics first)");
    return -1;
  }
  if (all_free(m, d)) return articulated_free(m, d, qdd, tau, fext);
  return articulated_any(m, d, d->mode, qdd, tau, fext);
}

int hg_hybrid_impulse_opt(const hg_model *m, hg_data *d, const hg_pass_options *opt,
                          const double *q, double *dv, double *imp) {
  if (local_runs(m, opt)) {
    d->local_pass = 1;
    if (!hg_local_hybrid_impulse(m->local, d->local, d->mode, q, dv, imp)) return 0;
  }
  hg_kinematics_opt(m, d, opt, q, NULL);
  return articulated_impulse(m, d, d->mode, dv, imp);
}

int hg_hybrid_impulse(const hg_model *m, hg_data *d, const double *q, double *dv, double *imp) {
  return hg_hybrid_impulse_opt(m, d, NULL, q, dv, imp);
}

int hg_plastic_lock(const hg_model *m, hg_data *d, const double *q, const double *v,
                    double *v_after, double *imp, double *energy_removed) {
  /* demand dv = -v at every joint that is not free, zero impulse at free joints */
  for (int i = 1; i < m->nbody; i++)
    for (int k = m->v_adr[i]; k < m->v_adr[i] + m->jnt_nv[i]; k++) {
      int locked = d->mode[i] != HG_MODE_FREE;
      v_after[k] = locked ? -v[k] : 0;
      imp[k] = 0;
    }
  if (hg_hybrid_impulse(m, d, q, v_after, imp)) return -1;
  /* with M dv = imp and dv = -v wherever imp != 0, the kinetic energy lost is
   * v^T M v / 2 - (v + dv)^T M (v + dv) / 2 = dv^T imp / 2: exact, and free of the cancellation
   * of two large kinetic energies at orbital speed */
  double e = 0;
  for (int k = 0; k < m->nv; k++) e += v_after[k] * imp[k];
  *energy_removed = 0.5 * e;
  for (int k = 0; k < m->nv; k++) v_after[k] += v[k];
  return 0;
}
