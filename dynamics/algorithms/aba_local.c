/* aba_local.c: the body-local articulated pass of aba_local.h (revolute and prismatic joints,
 * fixed or floating bases), on the frames and kinds of body_frames.h.
 *
 * Per body i, in its joint frame J_i, with S = e_k (k = 2 revolute, 5 prismatic; Featherstone,
 * Rigid Body Dynamics Algorithms, ch. 7, table 7.1):
 *   forward:  v_i = X_i v_p + e_k qd_i,  c_i = v_i x (e_k qd_i),  pA_i = v_i x* (I_i v_i) - fext_i,
 *             IA_i = I_i
 *   backward: U = IA e_k, D = IA_kk, u = tau_i - pA_k, Pi = IA - U U^T / D,
 *             beta = pA + Pi c + U u / D;  IA_p += X^T Pi X, pA_p += X^T beta
 *   forward:  a_i = X_i a_p + c_i, qdd_i = (u - U^T a_i) / D, a_i += e_k qdd_i   (a_0 = (0, -g))
 * and for prescribed and locked joints the hybrid form (ch. 9.2): Pi = IA, beta = pA + IA (c +
 * e_k qdd_i), tau_i = e_k^T (IA a_i + pA). Pi annihilates e_k, so its row and column k are zero;
 * rotations about and translations along J_i's z axis keep them zero, which the reduced forms
 * below skip.
 * A DoF with armature a_i (model.h) has D = IA_kk + a_i, and a prescribed joint's force gains
 * a_i qdd_i; Pi then no longer annihilates e_k (Pi e_k = U a_i / D), so such a joint takes the
 * full forms. A model without armature (lm->has_armature 0) never reads it.
 * Each body's kind (body_frames.h) fixes its axis k and the factors of X_i; every sweep switches
 * once per body on the kind, into a copy of its step with those constants (HG_LOCAL_KINDS). */
#include "aba_local.h"
#include "axis.h"
#include "lanes.h"

#include <math.h>
#include <string.h>

/* entry (r, s) of a packed symmetric 6x6 */
#define P6(r, s) hg_sym6_index(r, s)

/* ---- X_i as factors (Khalil and Kleinfinger): C P_q = Rz(gamma) Tz(b) Rx(alpha) Tx(a) Tz(dz)
 * Rz(th); revolute th = theta0 + q, dz = d; prismatic th = theta0, dz = d + q (Tz and Rz
 * commute). f: the factors the kind applies (HG_LOCAL_* bits, a constant in each kind's copy but
 * the HG_LOCAL_ANY kinds', which test them one by one) ---- */

/* V := X V (parent J_p -> child J_i), the factors in order; turn 0 leaves out the last, Rz(th) */
HG_INLINE void mot_factors(const double *dh, int f, double dz, double c, double s, double *V,
                           int turn) {
  if (f & HG_LOCAL_GAMMA) hg_mot_rot_axis(2, dh[0], dh[1], V);
  if (f & HG_LOCAL_B) hg_mot_trans_axis(2, dh[2], V);
  if (f & HG_LOCAL_ALPHA) hg_mot_rot_axis(0, dh[3], dh[4], V);
  if (f & HG_LOCAL_A) hg_mot_trans_axis(0, dh[5], V);
  if (f & HG_LOCAL_D) hg_mot_trans_axis(2, dz, V);
  if (turn) hg_mot_rot_axis(2, c, s, V);
}
/* F := X^T F (child -> parent), the factors in reverse */
HG_INLINE void frc_factors(const double *dh, int f, double dz, double c, double s, double *F) {
  hg_frc_rot_axis(2, c, s, F);
  if (f & HG_LOCAL_D) hg_frc_trans_axis(2, dz, F);
  if (f & HG_LOCAL_A) hg_frc_trans_axis(0, dh[5], F);
  if (f & HG_LOCAL_ALPHA) hg_frc_rot_axis(0, dh[3], dh[4], F);
  if (f & HG_LOCAL_B) hg_frc_trans_axis(2, dh[2], F);
  if (f & HG_LOCAL_GAMMA) hg_frc_rot_axis(2, dh[0], dh[1], F);
}
/* M := X^T M X (child -> parent), the factors in reverse. red: M is a revolute joint's projected
 * Pi (row and column 2 zero), whose reduced forms skip those terms; else M is any symmetric 6x6.
 * Tz(dz) commutes with Rz, so it goes first while M is still reduced. The constant turns come
 * precomputed (dt: alpha's, then gamma's). */
HG_INLINE void sym_factors(const double *dh, const double *dt, int f, double dz, double c,
                           double s, double *M, int red) {
  hg_turn q = hg_turn_make(c, s);
  if (f & HG_LOCAL_D) hg_sym6_trans_axis(2, dz, M, red, 0);
  hg_sym6_rot_axis(2, &q, M, red);
  if (f & HG_LOCAL_A) hg_sym6_trans_axis(0, dh[5], M, 0, red);
  if (f & HG_LOCAL_ALPHA) {
    hg_turn t = {dt[0], dt[1], dt[2], dt[3], dt[4], dt[5]};
    hg_sym6_rot_axis(0, &t, M, 0);
  }
  if (f & HG_LOCAL_B) hg_sym6_trans_axis(2, dh[2], M, 0, 0);
  if (f & HG_LOCAL_GAMMA) {
    hg_turn t = {dt[6], dt[7], dt[8], dt[9], dt[10], dt[11]};
    hg_sym6_rot_axis(2, &t, M, 0);
  }
}

/* ---- X_i as (R, p) (ld->P): revolute R = R_C Rz(q), p = p_C; prismatic R = R_C,
 * p = p_C + q R_C e_z ---- */

/* V := Ad_{P^-1} V */
HG_INLINE void mot_rp(const hg_se3 *P, double *V) {
  double t[6];
  hg_Ad_inv(P, V, t);
  HG_UNROLL(8)
  for (int r = 0; r < 6; r++) V[r] = t[r];
}
/* F := Ad_{P^-1}^T F */
HG_INLINE void frc_rp(const hg_se3 *P, double *F) {
  double t[6];
  hg_coAd_inv(P, F, t);
  HG_UNROLL(8)
  for (int r = 0; r < 6; r++) F[r] = t[r];
}

/* ---- one joint's transform, by its kind's axis k and factors f ---- */

/* A joint's transform is compiled as a unit of its own, as it was when the shapes had a switch
 * inside each step: HG_BLOCK (hot.h) bounds it with empty asm gotos (a basic block of its own),
 * and HG_SEALED hands each result of X V or X^T F on as one scalar in a register. gcc then fuses
 * its products (fused multiply-adds, -ffp-contract=fast) and vectorizes it alike in every kind's
 * copy of every step, whatever code surrounds it: the pass rounds as it did before the kinds (the
 * shipped scenes' trajectories bit for bit), and vectorization that reaches from the step into a
 * transform, which cost instructions, stays out (chain30 ABA 29,417 -> 27,574 instructions per
 * call). Both compile to nothing. */

/* body i's joint transform at q_i: factored, the last turn (cs) and slide (dz) of ld->b[i]
 * (revolute: Rz(theta0 + q), d; prismatic: Rz(theta0), d + q); (R, p), ld->P[i] */
HG_INLINE void joint_setup(const hg_local_model *lm, hg_local_data *ld, int i, int k, int f,
                           double qi) {
  if (!(f & HG_LOCAL_RP)) {
    const double *dh = lm->link[i].dh;
    if (k == 5) {
      ld->b[i].cs[0] = lm->link[i].cs0[0], ld->b[i].cs[1] = lm->link[i].cs0[1];
      ld->b[i].dz = dh[6] + qi;
    } else {
      /* Rz(theta0 + q). theta0 + q rounds to half an ulp of the sum, at most 4.4e-16 rad for
       * |q| <= 4 (where |theta0 + q| < 8: no more than the 2-3 roundings of composing the
       * turns), but q's ulp beyond: at q = 1e9 rad the sum kept theta0 to 6e-8 rad and qdd lost
       * 1.8e-10 of its size (2.4e-7 at 1e12, 4e-4 at 2.2e15: angles a rotor or a continuous
       * wheel reaches). There the turn is Rz(theta0) Rz(q), cos and sin of q alone turned by
       * theta0's constant (c0, s0). Composing at every |q| cost 7-13% of ABA's time (arm7,
       * humanoid); the test costs 1% */
      double c, s;
      if (__builtin_expect(fabs(qi) <= 4, 1)) {
        hg_sincos(qi + dh[7], &s, &c);
      } else {
        double cq, sq, c0 = lm->link[i].cs0[0], s0 = lm->link[i].cs0[1];
        hg_sincos(qi, &sq, &cq);
        c = c0 * cq - s0 * sq, s = s0 * cq + c0 * sq;
      }
      ld->b[i].cs[0] = c, ld->b[i].cs[1] = s;
      ld->b[i].dz = dh[6];
    }
  } else {
    const double *Rc = lm->C[i].R, *pc = lm->C[i].p;
    double *R = ld->P[i].R, *p = ld->P[i].p;
    if (k == 5) {
      /* R = R_C, p = p_C + q R_C e_z */
      HG_UNROLL(8)
      for (int r = 0; r < 3; r++) R[3 * r] = Rc[3 * r], R[3 * r + 1] = Rc[3 * r + 1],
                                   R[3 * r + 2] = Rc[3 * r + 2], p[r] = pc[r] + qi * Rc[3 * r + 2];
    } else {
      /* R = R_C Rz(q): columns 0 and 1 turn, column 2 stays; p = p_C */
      double c, s;
      hg_sincos(qi, &s, &c);
      HG_UNROLL(8)
      for (int r = 0; r < 3; r++) {
        double x = Rc[3 * r], y = Rc[3 * r + 1];
        R[3 * r] = c * x + s * y, R[3 * r + 1] = c * y - s * x, R[3 * r + 2] = Rc[3 * r + 2];
        p[r] = pc[r];
      }
    }
  }
}

/* V := X_i V; turn 0 (factored): all but the last turn, as mot_factors'. f HG_LOCAL_ANY: the
 * joint's own factors, tested one by one */
HG_INLINE void mot_x(const hg_local_model *lm, const hg_local_data *ld, int i, int f, double *V,
                     int turn) {
  const double *dh = lm->link[i].dh, *cs = ld->b[i].cs;
  if (f & HG_LOCAL_ANY) f = lm->link[i].factors;
  HG_BLOCK(in)
  if (f & HG_LOCAL_RP) {
    mot_rp(&ld->P[i], V);
  } else {
    mot_factors(dh, f, ld->b[i].dz, cs[0], cs[1], V, turn);
  }
  HG_UNROLL(8)
  for (int r = 0; r < 6; r++) HG_SEALED(V[r]);
  HG_BLOCK(out)
}
/* (M, F) := (X_i^T M X_i, X_i^T F); red as sym_factors, f as mot_x */
HG_INLINE void back_x(const hg_local_model *lm, const hg_local_data *ld, int i, int f, double *M,
                      double *F, int red) {
  const double *dh = lm->link[i].dh, *dt = lm->link[i].dh_turn, *cs = ld->b[i].cs;
  double dz = ld->b[i].dz;
  if (f & HG_LOCAL_ANY) f = lm->link[i].factors;
  HG_BLOCK(in)
  if (f & HG_LOCAL_RP) {
    hg_sym6_congruence(&ld->P[i], M, red);
    frc_rp(&ld->P[i], F);
  } else {
    sym_factors(dh, dt, f, dz, cs[0], cs[1], M, red);
    frc_factors(dh, f, dz, cs[0], cs[1], F);
  }
  HG_UNROLL(8)
  for (int r = 0; r < 6; r++) HG_SEALED(F[r]);
  HG_BLOCK(out)
}

/* ---- the steps ---- */

/* the rows of c's four stored entries (revolute: 0, 1, 3, 4; prismatic: 3, 4 with 0, 1 zero) */
static const int crow[4] = {0, 1, 3, 4};

/* body i's own terms in J_i, IA_i = I_i and, with (w, v) = V and h = I V:
 *   c_i = v_i x (e_k qd):  revolute (w x e_z qd, v x e_z qd), prismatic (0, w x e_z qd)
 *   pA_i = v_i x* h - fext_i = (w x h_w + v x h_v, w x h_v) - fext_i
 * bias 0 (impulsive form): c and pA zero. floating: V = (w, 0) (a floating root's, relative to
 * its Galilean frame), whose pA drops the terms in v and whose c the caller sets (zero). */
HG_INLINE void own_terms(const hg_local_model *lm, hg_local_data *ld, int i, int k,
                         const double *V, double qd, const double *fext, int bias, int floating) {
  double h[6], *pA = ld->b[i].pA, *c = ld->b[i].c;
  /* IA_i = I_i: 21 numbers, five 4-lane copies and one more */
  double *IA = ld->b[i].IA;
  const double *Is = lm->link[i].Isym;
  HG_UNROLL(8)
  for (int e = 0; e < 20; e += 4) HG_ST4(IA + e, HG_LD4(Is + e));
  IA[20] = Is[20];
  if (!bias) {
    c[0] = c[1] = c[2] = c[3] = 0;
    HG_UNROLL(8)
    for (int r = 0; r < 6; r++) pA[r] = 0;
    return;
  }
  if (floating) {
    hg_inertia_mulw(&lm->link[i].I, V, h);
    hg_v3_cross(V, h, pA);
  } else {
    if (k == 5) c[0] = c[1] = 0, c[2] = V[1] * qd, c[3] = -V[0] * qd;
    else c[0] = V[1] * qd, c[1] = -V[0] * qd, c[2] = V[4] * qd, c[3] = -V[3] * qd;
    hg_inertia_mulv(&lm->link[i].I, V, h);
    hg_v3_cross(V, h, pA);
    hg_v3_cross_add(V + 3, h + 3, pA);
  }
  hg_v3_cross(V, h + 3, pA + 3);
  if (fext) {
    double fe[6];
    hg_coAd_inv(&lm->T_JB[i], fext + 6 * i, fe);
    HG_UNROLL(8)
    for (int r = 0; r < 6; r++) pA[r] -= fe[r];
  }
}

/* project_free with armature arm > 0 at the joint: D = IA_kk + arm, u = tau - pA_k, U = IA e_k,
 *   Pi = IA - U U^T / D,  beta = pA + Pi c + U u / D,
 * on all six rows and columns (Pi e_k = U arm / D is not zero). Out of line: a model without
 * armature never calls it. */
__attribute__((noinline)) static int project_free_armature(hg_local_data *ld, int i, int k,
                                                           double tau, double arm, double *Pi,
                                                           double *beta) {
  const double *IA = ld->b[i].IA, *pA = ld->b[i].pA, *c = ld->b[i].c;
  double D = IA[P6(k, k)] + arm;
  if (!(D > 0) || !isfinite(D)) return -1;
  double Dinv = 1 / D, u = tau - pA[k];
  ld->b[i].Dinv = Dinv, ld->b[i].u = u;
  double U[6], W[6];
  for (int r = 0; r < 6; r++) U[r] = IA[P6(r, k)], W[r] = U[r] * Dinv;
  /* Pi = IA - W U^T */
  for (int r = 0; r < 6; r++)
    for (int g = r; g < 6; g++) Pi[P6(r, g)] = IA[P6(r, g)] - W[r] * U[g];
  /* beta = pA + Pi c + W u (c on rows 0, 1, 3, 4) */
  for (int r = 0; r < 6; r++) {
    double t = pA[r] + W[r] * u;
    for (int l = 0; l < 4; l++) t += Pi[P6(r, crow[l])] * c[l];
    beta[r] = t;
  }
  return 0;
}

/* body i's projection across its free joint (S = e_k): D = IA_kk, u = tau - pA_k, U = IA e_k,
 *   Pi = IA - U U^T / D,  beta = pA + Pi c + U u / D,
 * Pi's row and column k zero. Returns 0, or -1 when D is not positive and finite. */
HG_INLINE int project_free(hg_local_data *ld, int i, int k, double tau, double *Pi,
                           double *beta) {
  const double *IA = ld->b[i].IA, *pA = ld->b[i].pA, *c = ld->b[i].c;
  double D = IA[P6(k, k)];
  if (!(D > 0) || !isfinite(D)) return -1;
  double Dinv = 1 / D, u = tau - pA[k];
  ld->b[i].Dinv = Dinv, ld->b[i].u = u;
  /* rr: the five rows other than k */
  int rr[5];
  HG_UNROLL(8)
  for (int r = 0, e = 0; r < 6; r++)
    if (r != k) rr[e++] = r;
  double U[6], W[6];
  HG_UNROLL(8)
  for (int e = 0; e < 5; e++) U[rr[e]] = IA[P6(rr[e], k)], W[rr[e]] = U[rr[e]] * Dinv;
  /* Pi = IA - W U^T on the five rows and columns other than k */
  HG_UNROLL(8)
  for (int e = 0; e < 5; e++)
    HG_UNROLL(8)
    for (int g = e; g < 5; g++)
      Pi[P6(rr[e], rr[g])] = IA[P6(rr[e], rr[g])] - W[rr[e]] * U[rr[g]];
  HG_UNROLL(8)
  for (int r = 0; r < 6; r++) Pi[P6(r, k)] = 0;
  /* beta = pA + Pi c + W u (c on rows 0, 1, 3, 4; beta_k = pA_k + u = tau) */
  HG_UNROLL(8)
  for (int e = 0; e < 5; e++) {
    int r = rr[e];
    double t = pA[r] + W[r] * u;
    HG_UNROLL(8)
    for (int l = 0; l < 4; l++) t += Pi[P6(r, crow[l])] * c[l];
    beta[r] = t;
  }
  beta[k] = tau;
  return 0;
}

/* the step across prescribed (or locked) joint i with qdd_i given:
 *   Pi = IA,  beta = pA + IA (c + e_k qdd_i) */
HG_INLINE void project_prescribed(const hg_local_data *ld, int i, int k, double qddi, double *Pi,
                                  double *beta) {
  const double *IA = ld->b[i].IA, *pA = ld->b[i].pA, *c = ld->b[i].c;
  double ce[6] = {c[0], c[1], 0, c[2], c[3], 0};
  ce[k] += qddi;
  HG_UNROLL(24)
  for (int e = 0; e < 21; e++) Pi[e] = IA[e];
  hg_sym6_mulv(IA, ce, beta);
  HG_UNROLL(8)
  for (int r = 0; r < 6; r++) beta[r] += pA[r];
}

/* floating root i's forward terms: R = R_offset R(q) (ld->P's R), its twist relative to the
 * Galilean frame V = S vr = vr (hg_joint_galilean: (w, 0)) and the frame's velocity u = v - vr
 * (ld->vt), its own terms with c = 0 (S is constant in the body frame); the impulsive form has
 * V = 0 and u = 0. Out of line (a fixed base's pass stays small), with its own x86-64-v3 clone
 * as floating_root's. */
HG_HOT __attribute__((noinline)) static void floating_setup(const hg_local_model *lm,
                                                            hg_local_data *ld, int i,
                                                            const double *q, const double *v,
                                                            const double *fext, int bias) {
  int va = lm->v_adr[i];
  hg_se3 Tj;
  hg_joint_transform(&lm->jnt[i], q + lm->q_adr[i], &Tj);
  if (lm->link[i].kind == HG_KIND_FLOATING_TURNED) hg_m3_mul(lm->C[i].R, Tj.R, ld->P[i].R);
  else memcpy(ld->P[i].R, Tj.R, sizeof Tj.R);
  double vr[6] = {0, 0, 0, 0, 0, 0}, *xi = ld->xi[i];
  if (bias) hg_joint_galilean(&lm->jnt[i], v + va, vr, xi);
  else
    for (int r = 0; r < 6; r++) xi[r] = 0;
  for (int r = 0; r < 6; r++) ld->b[i].v[r] = vr[r];
  for (int r = 0; r < 3; r++) ld->vt[i][r] = bias ? v[va + 3 + r] - vr[3 + r] : 0;
  own_terms(lm, ld, i, 2, vr, 0, fext, bias, 1);
  if (bias) {
    double *c = ld->b[i].c;
    c[0] = c[1] = c[2] = c[3] = 0;
  }
}

/* floating root i, once its subtree is projected onto it (IA_i, pA_i complete): its acceleration
 * a_i = a' + qg (a' = X_i a_0 = (0, -R^T g), R = ld->P[i].R; zero in the impulsive form) in the
 * body frame, with S the identity. Free: qg = IA^-1 (tau - pA - IA a') and qdd = qg - xi;
 * prescribed (locked: qdd = 0): qg = qdd + xi and tau = IA a + pA. xi (hg_joint_galilean) is
 * zero in the impulsive form. Returns -1 when IA is singular or not finite. */
HG_HOT __attribute__((noinline)) static int floating_root(const hg_local_model *lm,
                                                         hg_local_data *ld, const uint8_t *mode,
                                                         int i, double *qdd, double *tau,
                                                         int bias) {
  int va = lm->v_adr[i];
  const double *IA = ld->b[i].IA, *pA = ld->b[i].pA, *R = ld->P[i].R;
  const double *xi = ld->xi[i];
  double A[6] = {0, 0, 0, 0, 0, 0}, qg[6];
  if (bias) {
    double g[3] = {-lm->gravity[0], -lm->gravity[1], -lm->gravity[2]};
    hg_m3_mulTv(R, g, A + 3);
  }
  if (!mode || mode[i] == HG_MODE_FREE) {
    /* IA qg = tau - pA - IA a' (a' is zero in its angular rows) */
    double w[6];
    HG_UNROLL(8)
    for (int r = 0; r < 6; r++) {
      double t = tau[va + r] - pA[r];
      HG_UNROLL(8)
      for (int c = 3; c < 6; c++) t -= IA[P6(r, c)] * A[c];
      w[r] = t;
    }
    if (lm->has_armature) {
      /* (IA + diag(arm)) qg = tau - pA - IA a' + arm xi (the rotors see qdd = qg - xi) */
      double IAa[21];
      for (int e = 0; e < 21; e++) IAa[e] = IA[e];
      for (int r = 0; r < 6; r++) {
        IAa[P6(r, r)] += lm->armature[va + r];
        w[r] += lm->armature[va + r] * xi[r];
      }
      if (hg_sym6_solve(IAa, w, qg)) return -1;
    } else if (hg_sym6_solve(IA, w, qg)) return -1;
    HG_UNROLL(8)
    for (int r = 0; r < 6; r++) {
      qdd[va + r] = qg[r] - xi[r];
      A[r] += qg[r];
    }
  } else {
    double F[6];
    HG_UNROLL(8)
    for (int r = 0; r < 6; r++) {
      if (bias && mode[i] == HG_MODE_LOCKED) qdd[va + r] = 0;
      A[r] += qdd[va + r] + xi[r];
    }
    hg_sym6_mulv(IA, A, F);
    HG_UNROLL(8)
    for (int r = 0; r < 6; r++) tau[va + r] = F[r] + pA[r];
    /* tau += arm qdd: the rotors' share */
    if (lm->has_armature)
      for (int r = 0; r < 6; r++) tau[va + r] += lm->armature[va + r] * qdd[va + r];
  }
  HG_UNROLL(8)
  for (int r = 0; r < 6; r++) ld->b[i].a[r] = A[r];
  return 0;
}

/* X := parent p's twist or acceleration (src, in p's hg_local_body): from last, that of prev
 * (the body the sweep stepped before), when p is prev (a chain: registers rather than a store and
 * its reload) */
HG_INLINE void from_parent(const double *src, const double *last, int p, int prev, double *X) {
  /* two copies, not one through a chosen pointer: that would keep last in memory */
  if (p == prev)
    HG_UNROLL(8)
    for (int r = 0; r < 6; r++) X[r] = last[r];
  else
    HG_UNROLL(8)
    for (int r = 0; r < 6; r++) X[r] = src[r];
}

/* body i's joint transform, velocity v_i = X_i v_p + e_k qd_i and own terms (kind: axis k,
 * factors f) */
HG_INLINE void vel_step(const hg_local_model *lm, hg_local_data *ld, int i, int k, int f,
                        const double *q, const double *v, const double *fext, int bias,
                        double *last, int prev) {
  int p = lm->parent[i], va = lm->v_adr[i];
  joint_setup(lm, ld, i, k, f, q[lm->q_adr[i]]);
  double V[6] = {0, 0, 0, 0, 0, 0}, qd = 0;
  if (bias) {
    qd = v[va];
    if (p) {
      from_parent(ld->b[p].v, last, p, prev, V);
      mot_x(lm, ld, i, f, V, 1);
    }
    /* a prismatic root's slide is left out: its tree is seen from the inertial frame moving
     * with the root's joint origin (hg_joint_galilean; the accelerations are the same) */
    if (k == 2) V[2] += qd;
    else if (p) V[5] += qd;
    else ld->vt[i][2] = qd; /* the frame's velocity, along J_i's z */
    HG_UNROLL(8)
    for (int r = 0; r < 6; r++) ld->b[i].v[r] = last[r] = V[r];
  }
  if (!bias && !p) ld->vt[i][2] = 0;
  own_terms(lm, ld, i, k, V, qd, fext, bias, 0);
}

/* body i's projection across its joint and the hand of (X^T Pi X, X^T beta) to its parent;
 * arm (a constant in each copy of the pass): the model has armature (lm->has_armature).
 * Returns -1 when D is not positive and finite. */
HG_INLINE int back_step(const hg_local_model *lm, hg_local_data *ld, const uint8_t *mode, int i,
                        int k, int f, double *qdd, double *tau, int bias, int arm_model) {
  int p = lm->parent[i], va = lm->v_adr[i];
  double Pi[21], beta[6];
  int free_joint = !mode || mode[i] == HG_MODE_FREE;
  /* the armature of the joint's DoF (zero without: the reduced forms) */
  double arm = arm_model ? lm->armature[va] : 0;
  if (free_joint) {
    if (arm != 0 ? project_free_armature(ld, i, k, tau[va], arm, Pi, beta)
                 : project_free(ld, i, k, tau[va], Pi, beta))
      return -1;
  } else {
    if (bias && mode[i] == HG_MODE_LOCKED) qdd[va] = 0;
    project_prescribed(ld, i, k, qdd[va], Pi, beta);
  }
  if (!p) return 0;
  /* a free revolute joint's Pi keeps its row and column 2 zero across the chain's first
   * factors (the reduced forms), without armature; any other is a full 6x6 */
  if (free_joint && k == 2 && arm == 0) back_x(lm, ld, i, f, Pi, beta, 1);
  else back_x(lm, ld, i, f, Pi, beta, 0);
  double *IAp = ld->b[p].IA, *pAp = ld->b[p].pA;
  HG_OPAQUE(IAp);
  HG_OPAQUE(pAp);
  /* IA_p += X^T Pi X, pA_p += X^T beta, unrolled in full: a loop left with a variable index
   * keeps Pi in memory, and each body's projection then waits on stores and their reloads */
  HG_UNROLL(24)
  for (int e = 0; e < 21; e++) IAp[e] += Pi[e];
  HG_UNROLL(8)
  for (int r = 0; r < 6; r++) pAp[r] += beta[r];
  return 0;
}

/* body i's acceleration a_i = X_i a_p + c_i + e_k qdd_i (a_0 = (0, -g), zero in the impulsive
 * form) and, at a free joint, qdd_i = (u - U^T (X_i a_p + c_i)) / D; at a prescribed or locked
 * one tau_i = e_k^T (IA a_i + pA).
 * chain (a range of lm->chain): each body waits on its parent's a, and the sweep runs at the pace
 * of that wait. A free joint of a factored kind there splits X_i into Rz(th) Y and takes qdd_i
 * from Y a_p, with weights that do not depend on a_p:
 *   qdd_i = Dinv (u - U^T c_i) - w^T Y a_p,  w = Rz^T U Dinv (w_k = 1),
 * which the CPU computes ahead: the next body waits on Y a_p, a dot product and a subtraction,
 * not also on Rz, the sum with c_i and the scaling. A branched order overlaps its steps anyway,
 * and the split costs 24 flops per body, so only chains take it. */
HG_INLINE void accel_step(const hg_local_model *lm, hg_local_data *ld, const uint8_t *mode, int i,
                          int k, int f, double *qdd, double *tau, int bias, double *last,
                          int prev, int chain, int arm_model) {
  int p = lm->parent[i], va = lm->v_adr[i];
  const double *c = ld->b[i].c, *IA = ld->b[i].IA;
  double A[6];
  if (p)
    from_parent(ld->b[p].a, last, p, prev, A);
  else if (bias)
    A[0] = A[1] = A[2] = 0, A[3] = -lm->gravity[0], A[4] = -lm->gravity[1], A[5] = -lm->gravity[2];
  else
    A[0] = A[1] = A[2] = A[3] = A[4] = A[5] = 0;
  int free_joint = !mode || mode[i] == HG_MODE_FREE;
  /* the armature of the joint's DoF: D = IA_kk + arm, tau gains arm qdd (the split's w_k = 1
   * holds without it only) */
  double arm = arm_model ? lm->armature[va] : 0;
  if (chain && p && !(f & HG_LOCAL_RP) && free_joint && arm == 0) {
    /* w = Rz^T U Dinv and q0 = Dinv (u - U^T c_i), both ahead of a_p */
    const double *cs = ld->b[i].cs;
    double Dinv = ld->b[i].Dinv, w[6], q0 = Dinv * ld->b[i].u;
    HG_UNROLL(8)
    for (int r = 0; r < 6; r++) w[r] = r == k ? 1 : IA[P6(r, k)] * Dinv;
    HG_UNROLL(8)
    for (int l = 0; l < 4; l++) q0 -= w[crow[l]] * c[l];
    hg_frc_rot_axis(2, cs[0], cs[1], w);
    /* Y a_p, then qdd_i (o = 7 - k: the row of w other than k that the turn leaves alone) */
    mot_x(lm, ld, i, f, A, 0);
    int o = 7 - k;
    double qi = q0 - (((w[0] * A[0] + w[1] * A[1]) + (w[3] * A[3] + w[4] * A[4])) +
                      (A[k] + w[o] * A[o]));
    hg_mot_rot_axis(2, cs[0], cs[1], A);
    A[0] += c[0], A[1] += c[1], A[3] += c[2], A[4] += c[3];
    A[k] += qi;
    qdd[va] = qi;
  } else {
    mot_x(lm, ld, i, f, A, 1);
    A[0] += c[0], A[1] += c[1], A[3] += c[2], A[4] += c[3];
    /* U^T a = row k of IA times a, summed in pairs (each body's qdd waits on it) */
    double Ua = (IA[P6(0, k)] * A[0] + IA[P6(1, k)] * A[1]) +
                (IA[P6(2, k)] * A[2] + IA[P6(3, k)] * A[3]) +
                (IA[P6(4, k)] * A[4] + IA[P6(5, k)] * A[5]);
    if (free_joint) {
      double qi = ld->b[i].Dinv * (ld->b[i].u - Ua);
      A[k] += qi;
      qdd[va] = qi;
    } else {
      /* tau = e_k^T (IA a + pA) + arm qdd with a = a' + e_k qdd */
      double qi = qdd[va];
      tau[va] = Ua + (IA[P6(k, k)] + arm) * qi + ld->b[i].pA[k];
      A[k] += qi;
    }
  }
  HG_UNROLL(8)
  for (int r = 0; r < 6; r++) ld->b[i].a[r] = last[r] = A[r];
}

/* ---- the pass ---- */

/* the pass: mode NULL, every joint free (hg_aba); else hg_hybrid's modes (qdd and tau in/out);
 * bias 0, the impulsive form (v, fext unused; qdd, tau are dv, imp; locked dv as given); arm 1
 * reads the armature (a model with some, lm->has_armature: its own copy of the pass, so that a
 * model without runs the code it ran before armature existed). Each
 * sweep switches on body i's kind into its step's copy for that kind (HG_LOCAL_KINDS: the kind,
 * its axis k and factors f as constants); floating roots are no sweep's. */
HG_INLINE int local_pass(const hg_local_model *lm, hg_local_data *ld, const uint8_t *mode,
                         const double *q, const double *v, double *qdd, double *tau,
                         const double *fext, int bias, int arm) {
  /* forward: transforms, velocities and each body's own terms */
  /* floating roots first (their children read their v); the sweeps below skip them by running
   * over the ranges between them in lm->order (nfloating = 0: one range, the loops of a fixed
   * base, where a test per body cost 22 instructions per body on chain30) */
  const int *fl = lm->floating_list, *order = lm->order, nf = lm->nfloating;
  for (int f = 1; f <= nf; f++) floating_setup(lm, ld, order[fl[f]], q, v, fext, bias);
  /* last: the twist (then acceleration) of prev, the body stepped before, which a chain's next
   * body reads from registers rather than through a store and its reload; a range starts after
   * its floating root (order[fl[0]] = 0, the world, whose children take no parent's twist) */
  double last[6] = {0, 0, 0, 0, 0, 0};
  for (int f = 0; f <= nf; f++) {
    int prev = order[fl[f]];
    if (prev)
      HG_UNROLL(8)
      for (int r = 0; r < 6; r++) last[r] = ld->b[prev].v[r];
    for (int n = fl[f] + 1, end = fl[f + 1]; n < end; n++) {
      int i = order[n];
      switch (lm->link[i].kind) {
#define VEL_CASE(kind, k, shape)                                                                   \
  case kind: vel_step(lm, ld, i, k, shape, q, v, fext, bias, last, prev); break;
        HG_LOCAL_KINDS(VEL_CASE)
#undef VEL_CASE
      default: __builtin_unreachable();
      }
      prev = i;
    }
  }

  /* backward: project each body and hand (X^T Pi X, X^T beta) to its parent */
  for (int f = nf; f >= 0; f--)
    for (int n = fl[f + 1] - 1, stop = fl[f]; n > stop; n--) {
      int i = order[n], bad = 0;
      switch (lm->link[i].kind) {
#define BACK_CASE(kind, k, shape)                                                                  \
  case kind: bad = back_step(lm, ld, mode, i, k, shape, qdd, tau, bias, arm); break;
        HG_LOCAL_KINDS(BACK_CASE)
#undef BACK_CASE
      default: __builtin_unreachable();
      }
      if (bad) return -1;
    }

  /* floating roots, their subtrees projected: their accelerations (the forward sweep skips them) */
  for (int f = 1; f <= nf; f++)
    if (floating_root(lm, ld, mode, order[fl[f]], qdd, tau, bias)) return -1;

  /* forward: accelerations from a_0 = (0, -g) (zero in the impulsive form) */
  for (int f = 0; f <= nf; f++) {
    int prev = order[fl[f]];
    if (prev)
      HG_UNROLL(8)
      for (int r = 0; r < 6; r++) last[r] = ld->b[prev].a[r];
    int chain = lm->chain[f];
    for (int n = fl[f] + 1, end = fl[f + 1]; n < end; n++) {
      int i = order[n];
      switch (lm->link[i].kind) {
#define ACCEL_CASE(kind, k, shape)                                                                 \
  case kind: accel_step(lm, ld, mode, i, k, shape, qdd, tau, bias, last, prev, chain, arm); break;
        HG_LOCAL_KINDS(ACCEL_CASE)
#undef ACCEL_CASE
      default: __builtin_unreachable();
      }
      prev = i;
    }
  }

  int bad = 0;
  /* the outputs: qdd, and tau when some joint is prescribed (hg_aba's tau is its input) */
  for (int k = 0; k < lm->nv; k++) bad |= !isfinite(qdd[k]) | (mode && !isfinite(tau[k]));
  return bad ? -1 : 0;
}

/* the pass compiled for each form: every joint free (ABA), any modes, impulsive; each without
 * armature and with (the _arm copies, chosen per call by lm->has_armature) */
HG_HOT static int aba_pass(const hg_local_model *lm, hg_local_data *ld, const double *q,
                           const double *v, const double *tau, const double *fext, double *qdd) {
  return local_pass(lm, ld, NULL, q, v, qdd, (double *)tau, fext, 1, 0);
}
HG_HOT static int hybrid_pass(const hg_local_model *lm, hg_local_data *ld, const uint8_t *mode,
                              const double *q, const double *v, double *qdd, double *tau,
                              const double *fext) {
  if (!mode) __builtin_unreachable();
  return local_pass(lm, ld, mode, q, v, qdd, tau, fext, 1, 0);
}
static int impulse_pass(const hg_local_model *lm, hg_local_data *ld, const uint8_t *mode,
                        const double *q, double *dv, double *imp) {
  if (!mode) __builtin_unreachable();
  return local_pass(lm, ld, mode, q, NULL, dv, imp, NULL, 0, 0);
}
HG_HOT static int aba_pass_arm(const hg_local_model *lm, hg_local_data *ld, const double *q,
                               const double *v, const double *tau, const double *fext,
                               double *qdd) {
  return local_pass(lm, ld, NULL, q, v, qdd, (double *)tau, fext, 1, 1);
}
HG_HOT static int hybrid_pass_arm(const hg_local_model *lm, hg_local_data *ld,
                                  const uint8_t *mode, const double *q, const double *v,
                                  double *qdd, double *tau, const double *fext) {
  if (!mode) __builtin_unreachable();
  return local_pass(lm, ld, mode, q, v, qdd, tau, fext, 1, 1);
}
__attribute__((noinline)) static int impulse_pass_arm(const hg_local_model *lm,
                                                      hg_local_data *ld, const uint8_t *mode,
                                                      const double *q, double *dv,
                                                      double *imp) {
  if (!mode) __builtin_unreachable();
  return local_pass(lm, ld, mode, q, NULL, dv, imp, NULL, 0, 1);
}

/* the fext the sweeps read: on a model with fixed joints, each fixed body's moved onto its
 * carrier (ld->fext; a body fixed to the world hands its own to the world), and kept in J_c for
 * hg_local_fixed_wrench (ld->ffix, with ld->ffix_set and ld->impulsive, which only the views of
 * fixed bodies read); fext itself otherwise. bias 0: the impulsive form */
__attribute__((noinline)) static const double *fold_fixed(const hg_local_model *lm,
                                                           hg_local_data *ld,
                                                           const double *fext, int bias) {
  ld->impulsive = !bias;
  ld->ffix_set = fext != NULL;
  if (!fext) return NULL;
  memcpy(ld->fext, fext, (size_t)lm->nbody * sizeof *ld->fext);
  for (int f = 0; f < lm->nfixed; f++) {
    int i = lm->fixed_list[f], c = lm->carrier[i];
    double g[6];
    /* fext_c += the fixed body's, moved from its frame to its carrier's (T_CB: i in c) */
    hg_coAd_inv(&lm->T_CB[i], fext + 6 * i, g);
    if (c)
      for (int r = 0; r < 6; r++) ld->fext[c][r] += g[r];
    hg_coAd_inv(&lm->T_JB[i], fext + 6 * i, ld->ffix[i]);
  }
  return ld->fext[0];
}
/* out of line: a model without fixed joints pays one test (inlined, the fold had cost hg_aba 27
 * instructions per call on chain7 for its stack frame) */
static inline const double *fold_fext(const hg_local_model *lm, hg_local_data *ld,
                                      const double *fext, int bias) {
  return lm->nfixed ? fold_fixed(lm, ld, fext, bias) : fext;
}

int hg_local_aba(const hg_local_model *lm, hg_local_data *ld, const double *q, const double *v,
                 const double *tau, const double *fext, double *qdd) {
  fext = fold_fext(lm, ld, fext, 1);
  if (lm->has_armature) return aba_pass_arm(lm, ld, q, v, tau, fext, qdd);
  return aba_pass(lm, ld, q, v, tau, fext, qdd);
}

int hg_local_hybrid(const hg_local_model *lm, hg_local_data *ld, const uint8_t *mode,
                    const double *q, const double *v, double *qdd, double *tau,
                    const double *fext) {
  fext = fold_fext(lm, ld, fext, 1);
  if (lm->has_armature) return hybrid_pass_arm(lm, ld, mode, q, v, qdd, tau, fext);
  return hybrid_pass(lm, ld, mode, q, v, qdd, tau, fext);
}

int hg_local_hybrid_impulse(const hg_local_model *lm, hg_local_data *ld, const uint8_t *mode,
                            const double *q, double *dv, double *imp) {
  fold_fext(lm, ld, NULL, 0);
  if (lm->has_armature) return impulse_pass_arm(lm, ld, mode, q, dv, imp);
  return impulse_pass(lm, ld, mode, q, dv, imp);
}

void hg_local_galilean(const hg_local_model *lm, const hg_local_data *ld, int i, double u[3]) {
  int p = lm->parent[i];
  if (!p) {
    for (int r = 0; r < 3; r++) u[r] = ld->vt[i][r];
    return;
  }
  /* the parent's, moved across joint i (a pure linear velocity: X_i turns it) */
  double V[6] = {0, 0, 0, 0, 0, 0};
  hg_local_galilean(lm, ld, p, V + 3);
  switch (lm->link[i].kind) {
#define MOT_CASE(kind, k, shape)                                                                   \
  case kind: mot_x(lm, ld, i, shape, V, 1); break;
    HG_LOCAL_KINDS(MOT_CASE)
#undef MOT_CASE
  default: break; /* a floating root has no parent */
  }
  for (int r = 0; r < 3; r++) u[r] = V[3 + r];
}

void hg_local_fixed_wrench(const hg_local_model *lm, const hg_local_data *ld, int i, double F[6]) {
  int c = lm->carrier[i];
  /* the carrier's twist and acceleration (the world's: zero and (0, -g), or zero in the
   * impulsive form), seen as the pass saw them */
  double V[6] = {0, 0, 0, 0, 0, 0}, A[6] = {0, 0, 0, 0, 0, 0};
  if (c)
    for (int r = 0; r < 6; r++) V[r] = ld->impulsive ? 0 : ld->b[c].v[r], A[r] = ld->b[c].a[r];
  else if (!ld->impulsive)
    for (int r = 0; r < 3; r++) A[3 + r] = -lm->gravity[r];
  /* the rigid part: Isub A + V x* (Isub V) */
  double h[6], t[6];
  hg_inertia_mulv(&lm->Isub[i], A, F);
  hg_inertia_mulv(&lm->Isub[i], V, h);
  hg_ad_star(V, h, t);
  for (int r = 0; r < 6; r++) F[r] -= t[r];
  /* a body is in i's rigid part when the fixed joints lead up from it to i */
  for (int j = i + 1; j < lm->nbody; j++) {
    int b = j;
    while (b > i && lm->carrier[b] != b) b = lm->mparent[b];
    if (b != i) {
      /* a swept body: its joint's wrench when its parent is in the rigid part */
      int p = lm->mparent[j];
      while (p > i && lm->carrier[p] != p) p = lm->mparent[p];
      if (lm->carrier[j] != j || p != i) continue;
      double G[6];
      hg_sym6_mulv(ld->b[j].IA, ld->b[j].a, G);
      for (int r = 0; r < 6; r++) G[r] += ld->b[j].pA[r];
      const hg_local_link *L = &lm->link[j];
      if (L->factors & HG_LOCAL_RP) frc_rp(&ld->P[j], G);
      else frc_factors(L->dh, L->factors, ld->b[j].dz, ld->b[j].cs[0], ld->b[j].cs[1], G);
      for (int r = 0; r < 6; r++) F[r] += G[r];
    } else if (ld->ffix_set) {
      /* a fixed body below i: its external wrench */
      for (int r = 0; r < 6; r++) F[r] -= ld->ffix[j][r];
    }
  }
  if (ld->ffix_set)
    for (int r = 0; r < 6; r++) F[r] -= ld->ffix[i][r];
}
