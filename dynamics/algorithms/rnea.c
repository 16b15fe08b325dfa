/* rnea.c: recursive Newton-Euler inverse dynamics (J. Kim, "Lie Group Formulation of Articulated
 * Rigid Body Dynamics", Table 2), in each tree's frame. */
#include <stdio.h>

#include "body_frames.h"
#include "dynamics.h"
#include "lanes.h"

/* One body's forward step, in its tree's frame: a_i = a_p + c_i + S_i qdd_i (a root adds xi to
 * its qdd; S (6 per DoF), qdd and xi point at the body's first DoF), kept in (a03, a25) = a[0..3], a[2..5]
 * and stored; a_p is loaded unless the parent is the body just stepped (follows: its a is still
 * in the registers); then F_i = I_i a_i - ad*_{V_i} I_i V_i (the caller subtracts fext_i). Both
 * sweeps below call it. */
HG_INLINE void forward_body(const double *ap, const double *ci, const double *S,
                            const double *qdd, const double *xi, int nv, int root, int follows,
                            const double *Vi, const hg_inertia *I, double *a, double *F,
                            hg_v4 *a03p, hg_v4 *a25p) {
  hg_v4 a03 = *a03p, a25 = *a25p;
  if (nv == 1 && !root) {
    double qk = qdd[0];
    if (!follows) a03 = HG_LD4(ap), a25 = HG_LD4(ap + 2);
    a03 += HG_LD4(ci) + HG_LD4(S) * qk;
    a25 += HG_LD4(ci + 2) + HG_LD4(S + 2) * qk;
  } else {
    double x[6];
    for (int r = 0; r < 6; r++) x[r] = ap[r] + ci[r];
    for (int k = 0; k < nv; k++) {
      const double qk = root ? qdd[k] + xi[k] : qdd[k];
      for (int r = 0; r < 6; r++) x[r] += S[6 * k + r] * qk;
    }
    a03 = HG_LD4(x), a25 = HG_LD4(x + 2);
  }
  HG_ST4(a, a03), HG_ST4(a + 2, a25);
  *a03p = a03, *a25p = a25;
  hg_v4 V03 = HG_LD4(Vi), V25 = HG_LD4(Vi + 2), av = HG_SHUF(a25, 1, 2, 3, 3), vv = HG_SHUF(V25, 1, 2, 3, 3);
  hg_lane3_body_wrench(I, &a03, &av, &V03, &vv, F);
}

/* F -= fext_i (body frame) moved to the tree frame by T_tree,i */
HG_INLINE void minus_fext(const hg_se3 *T, const double *fexti, double *F) {
  double f[6];
  hg_coAd_inv(T, fexti, f);
  for (int r = 0; r < 6; r++) F[r] -= f[r];
}

/* the world's acceleration a_0 = (0, -g): gravity as a uniform upward acceleration */
static void world_acceleration(const hg_model *m, hg_data *d) {
  double *a0 = d->a[0];
  a0[0] = a0[1] = a0[2] = 0;
  for (int r = 0; r < 3; r++) a0[3 + r] = -m->gravity[r];
}

/* RNEA over the swept bodies of a model with fixed joints (body_frames.h), on the walk of
 * hg_kinematics_carried: each swept body's inertia holds those fixed to it, its parent is its
 * parent's carrier (whose acceleration is the parent's in the tree frame: a fixed joint adds
 * neither S qdd nor c), and a fixed body's fext joins its carrier's wrench. So the recursions
 * step over the bodies of the merged model, and the fixed bodies' fields are left to
 * hg_rnea_fixed_bodies (d->I of a carrier holds the inertias of the bodies fixed to it). With
 * fext, the poses of the fixed bodies are made first (their fext is given in their frames) */
HG_HOT static void rnea_carried(const hg_model *m, hg_data *d, const double *qdd,
                                const double *fext, double *tau) {
  const hg_local_model *lm = m->local;
  const hg_local_step *st = lm->steps;
  const int ns = lm->nswept - 1;
  hg_vec6 *Sv = d->S, *Cv = d->c, *Vg = d->Vg;
  const hg_inertia *In = d->I;
  const double *xi = d->xi;
  hg_vec6 *Av = d->a, *Fv = d->F;

  /* forward: a_i = a_p + c_i + S_i qdd_i (p the parent's carrier; a root adds xi to its qdd);
   * F_i = I_i a_i - ad*_{V_i} I_i V_i - fext_i; in a chain a_p rides in registers (a03, a25) */
  hg_v4 a03 = {0, 0, 0, 0}, a25 = a03;
  const char *Sb = (const char *)Sv, *Cb = (const char *)Cv, *Vb = (const char *)Vg;
  const char *Ib = (const char *)In;
  char *Ab = (char *)Av, *Fb = (char *)Fv;
  for (int t = 0; t < ns; t++) {
    int i = st[t].body, va = st[t].v_adr;
    ptrdiff_t o = st[t].o_vec;
    forward_body((const double *)(Ab + st[t].o_parent), (const double *)(Cb + o), Sv[va],
                 qdd + va, xi + va, st[t].nv, st[t].root, st[t].follows,
                 (const double *)(Vb + o), (const hg_inertia *)(Ib + st[t].o_inertia),
                 (double *)(Ab + o), (double *)(Fb + o), &a03, &a25);
    if (fext) minus_fext(&d->T_tree[i], fext + 6 * i, (double *)(Fb + o));
  }
  /* a fixed body's fext, to the tree frame, on its carrier (the world takes it: no joint) */
  if (fext)
    for (int k = 0; k < lm->nfixed; k++) {
      int b = lm->fixed_list[k], c = lm->carrier[b];
      if (c) minus_fext(&d->T_tree[b], fext + 6 * b, Fv[c]);
    }

  /* backward: tau_i = S_i^T F_i;  F_p += F_i, in registers (c03, c45) when p is the next body
   * of the sweep */
  hg_v4 c03 = {0, 0, 0, 0};
  hg_v2 c45 = {0, 0};
  for (int t = ns - 1; t >= 0; t--) {
    int va = st[t].v_adr, nv = st[t].nv, p = st[t].parent;
    double *F = (double *)(Fb + st[t].o_vec);
    hg_v4 f03 = HG_LD4(F) + c03;
    hg_v2 f45 = HG_LD2(F + 4) + c45;
    HG_ST4(F, f03), HG_ST2(F + 4, f45);
    if (nv == 1) tau[va] = hg_lane3_dot6((const double *)(Sb + st[t].o_S), &f03, &f45);
    else
      for (int k = 0; k < nv; k++) tau[va + k] = hg_lane3_dot6(Sv[va + k], &f03, &f45);
    if (st[t].follows) {
      c03 = f03, c45 = f45;
    } else {
      c03 = (hg_v4){0, 0, 0, 0}, c45 = (hg_v2){0, 0};
      if (p > 0) {
        double *Fp = (double *)(Fb + st[t].o_parent);
        HG_ST4(Fp, HG_LD4(Fp) + f03);
        HG_ST2(Fp + 4, HG_LD2(Fp + 4) + f45);
      }
    }
  }

  d->local->tree_carried = 2;
}

/* The fixed bodies after rnea_carried (tau is complete): a_b, V_b and Vg_b are the carrier's
 * (the world's: a_0 and zero, with c_b = 0, constants hg_kinematics_carried writes once), and
 * F_b, the wrench its fixed joint carries, is its own I_b a_b - ad*_{V_b} I_b V_b - fext_b (a
 * body fixed to the world: V = 0, so h x g' and m g', g' = a_0's linear part) plus the
 * wrenches of its children, fixed or swept, in the tree frame */
static void fixed_bodies(const hg_model *m, hg_data *d, const double *fext) {
  const hg_local_model *lm = m->local;
  hg_vec6 *Vg = d->Vg, *Av = d->a, *Fv = d->F;
  const hg_inertia *In = d->I;
  const double *a0 = Av[0];
  const int *fl = lm->fixed_list, *carrier = lm->carrier, *mparent = m->parent;
  const uint8_t *massless = lm->massless;
  hg_vec6 *V = d->V;
  for (int k = 0; k < lm->nfixed; k++) {
    int b = fl[k], c = carrier[b];
    double *a = Av[b], *F = Fv[b];
    const double *ac = Av[c];
    hg_v4 x03 = HG_LD4(ac), x25 = HG_LD4(ac + 2);
    HG_ST4(a, x03), HG_ST4(a + 2, x25);
    if (c) {
      HG_ST4(Vg[b], HG_LD4(Vg[c])), HG_ST2(Vg[b] + 4, HG_LD2(Vg[c] + 4));
      HG_ST4(V[b], HG_LD4(V[c])), HG_ST2(V[b] + 4, HG_LD2(V[c] + 4));
    }
    if (massless[b]) {
      HG_ST4(F, ((hg_v4){0, 0, 0, 0})), HG_ST2(F + 4, ((hg_v2){0, 0}));
    } else if (c) {
      const double *Vi = Vg[b];
      hg_v4 V03 = HG_LD4(Vi), V25 = HG_LD4(Vi + 2);
      hg_v4 av = HG_SHUF(x25, 1, 2, 3, 3), vv = HG_SHUF(V25, 1, 2, 3, 3);
      hg_lane3_body_wrench(&In[b], &x03, &av, &V03, &vv, F);
    } else {
      const double *h = In[b].h, *g = a0 + 3, mb = In[b].m;
      F[0] = h[1] * g[2] - h[2] * g[1];
      F[1] = h[2] * g[0] - h[0] * g[2];
      F[2] = h[0] * g[1] - h[1] * g[0];
      for (int r = 0; r < 3; r++) F[3 + r] = mb * g[r];
    }
    if (fext) minus_fext(&d->T_tree[b], fext + 6 * b, F);
  }
  for (int k = 0; k < lm->nhung; k++) {
    int s = lm->hung[k];
    double *Fp = Fv[mparent[s]];
    const double *F = Fv[s];
    HG_ST4(Fp, HG_LD4(Fp) + HG_LD4(F)), HG_ST2(Fp + 4, HG_LD2(Fp + 4) + HG_LD2(F + 4));
  }
  for (int k = lm->nfixed - 1; k >= 0; k--) {
    int b = fl[k], p = mparent[b];
    if (p && carrier[p] != p) {
      double *Fp = Fv[p];
      const double *F = Fv[b];
      HG_ST4(Fp, HG_LD4(Fp) + HG_LD4(F)), HG_ST2(Fp + 4, HG_LD2(Fp + 4) + HG_LD2(F + 4));
    }
  }
}

int hg_rnea_fixed_bodies(const hg_model *m, hg_data *d, const double *fext) {
  if (!m->local || !m->local->nfixed || !d->local->tree_carried) return 0;
  if (d->local->tree_carried != 2) {
    snprintf(d->err, sizeof d->err,
             "hg_rnea_fixed_bodies: d holds the walk of hg_crba, which has no velocities or "
             "accelerations (call hg_rnea or hg_kinematics first)");
    return -1;
  }
  hg_kinematics_fixed(m, d, 1);
  fixed_bodies(m, d, fext);
  return 0;
}

HG_HOT void hg_rnea_opt(const hg_model *m, hg_data *d, const hg_pass_options *opt, const double *q,
                        const double *v, const double *qdd, const double *fext, double *tau) {
  /* a model with fixed joints steps over its swept bodies only, unless the world's frame is
   * asked for: the derivatives (derivatives.c, derivatives2.c), which read d->a, d->F and d->I
   * of every body, take the walk over every body */
  const int world = opt && opt->world_frame;
  if (m->local && m->local->nfixed && !world) {
    hg_kinematics_carried(m, d, q, v);
    if (fext) hg_kinematics_fixed(m, d, 0);
    world_acceleration(m, d);
    rnea_carried(m, d, qdd, fext, tau);
    if (m->has_armature)
      for (int k = 0; k < m->nv; k++) tau[k] += m->armature[k] * qdd[k];
    return;
  }
  hg_kinematics_opt(m, d, opt, q, v);
  world_acceleration(m, d);

  /* the arrays, read once (the stores below could otherwise alias the structs' pointers) */
  const int *v_adr = m->v_adr, *jnt_nv = m->jnt_nv, *parent = m->parent;
  hg_vec6 *Sv = d->S, *Cv = d->c, *Vg = d->Vg;
  const hg_inertia *In = d->I;
  const double *xi = d->xi;
  hg_vec6 *Av = d->a, *Fv = d->F;
  int nbody = m->nbody;

  /* forward, in each tree's Galilean frame (model.h): a_i = a_p + c_i + S_i qdd_i (a root
   * adds xi to its qdd);  F_i = I_i a_i - ad*_{V_i} I_i V_i - fext_i */
  hg_v4 a03 = {0, 0, 0, 0}, a25 = a03; /* a_i as a[0..3], a[2..5]; a_{i-1} at the loop's top */
  for (int i = 1; i < nbody; i++) {
    int va = v_adr[i], p = parent[i];
    forward_body(Av[p], Cv[i], Sv[va], qdd + va, xi + va, jnt_nv[i], !p, p == i - 1, Vg[i],
                 &In[i], Av[i], Fv[i], &a03, &a25);
    if (fext) minus_fext(&d->T_tree[i], fext + 6 * i, Fv[i]);
  }

  /* backward: tau_i = S_i^T F_i;  F_p += F_i (one frame per tree), F as F[0..3] and F[4..5].
   * When the parent is the next body down (a chain) its share rides in registers (c03, c45)
   * instead of through memory, so the walk waits on an add, not on a store and its reload */
  hg_v4 c03 = {0, 0, 0, 0};
  hg_v2 c45 = {0, 0};
  for (int i = nbody - 1; i > 0; i--) {
    int va = v_adr[i], nv = jnt_nv[i], p = parent[i];
    double *F = Fv[i];
    hg_v4 f03 = HG_LD4(F) + c03;
    hg_v2 f45 = HG_LD2(F + 4) + c45;
    HG_ST4(F, f03), HG_ST2(F + 4, f45);
    if (nv == 1) tau[va] = hg_lane3_dot6(Sv[va], &f03, &f45);
    else
      for (int k = 0; k < nv; k++) tau[va + k] = hg_lane3_dot6(Sv[va + k], &f03, &f45);
    if (p == i - 1) {
      c03 = f03, c45 = f45;
    } else {
      c03 = (hg_v4){0, 0, 0, 0}, c45 = (hg_v2){0, 0};
      if (p > 0) {
        double *Fp = Fv[p];
        HG_ST4(Fp, HG_LD4(Fp) + f03);
        HG_ST2(Fp + 4, HG_LD2(Fp + 4) + f45);
      }
    }
  }
  /* tau_k += armature_k qdd_k: the rotors' share (model.h; the Galilean xi of a root is a
   * frame's, not the joint's: the real qdd is the one the rotor sees) */
  if (m->has_armature)
    for (int k = 0; k < m->nv; k++) tau[k] += m->armature[k] * qdd[k];
}

void hg_rnea(const hg_model *m, hg_data *d, const double *q, const double *v, const double *qdd,
             const double *fext, double *tau) {
  hg_rnea_opt(m, d, NULL, q, v, qdd, fext, tau);
}

void hg_bias(const hg_model *m, hg_data *d, const double *q, const double *v, const double *fext,
             double *b) {
  /* b = RNEA(q, v, 0): d->u serves as the zero acceleration (it is only scratch here) */
  for (int k = 0; k < m->nv; k++) d->u[k] = 0;
  hg_rnea(m, d, q, v, d->u, fext, b);
}
