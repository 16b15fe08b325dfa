/* kinematics.c: the forward walk every algorithm starts from (poses, motion subspaces, spatial
 * velocities and inertias in each tree's frame), and body-frame views of its results. */
#include <math.h>

#include "aba_local.h"
#include "dynamics.h"
#include "lanes.h"

static const hg_se3 identity = {{1, 0, 0, 0, 1, 0, 0, 0, 1}, {0, 0, 0}};

/* HG_WALK_FOLD: a revolute joint about any axis behind any origin (joint.h's walks): the origin,
 * then R_rel = R_o Rot(axis, q) from the joint's fold, R_tree = R_p R_rel and w = R_tree axis in
 * one pass on the lanes (hg_lane3_fold_turn), S = (w, p x w) */
HG_INLINE void walk_fold(int root, double q, const hg_se3 *off, const hg_joint_fold *f,
                         const hg_se3 *Tp, hg_se3 *Tr, hg_se3 *Tt, double S[6]) {
  double c, s;
  hg_sincos(q, &s, &c);
  hg_joint_walk_origin(root, off, Tp, Tr, Tt);
  hg_lane3_fold_turn(f->C, c, s, Tp->R, Tr->R, Tt->R, S);
  hg_v3_cross(Tt->p, S, S + 3);
}

/* one body's step of the walk: its pose, S, its inertia Ib (centre-of-mass form, body axes) in
 * the tree frame and, with v, its velocities, from those of body vp (its parent, or a body with
 * the same twist in the tree frame: the parent's carrier; 0, the world) */
HG_INLINE void walk_body(const hg_model *m, hg_data *d, int world, int i, const hg_inertia_c *Ib,
                         int vp, const double *q, const double *v) {
  {
    const hg_joint *j = &m->jnt[i];
    const double *qi = q + m->q_adr[i];
    int p = m->parent[i], va = m->v_adr[i], nv = m->jnt_nv[i], walk = m->jnt_walk[i];
    const hg_se3 *Tp = p ? &d->T_tree[p] : &identity;
    hg_se3 *Tr = &d->T_rel[i], *Tt = &d->T_tree[i];

    /* T_{p,i} = T_offset T_joint(q) T_post, T_tree = T_tree,p T_{p,i} and S_i in the tree frame,
     * by the joint's walk (a constant axis in each case lets the compiler fold the index
     * arithmetic) */
    const hg_se3 *off = &m->jnt_offset[i];
    const hg_joint_fold *f = &m->jnt_fold[i];
    double *Si = d->S[va];
    int root = !p, pure = m->offset_pure[i];
    switch (walk) {
    case HG_WALK_X: hg_joint_walk_revolute(0, root, qi[0], off, Tp, Tr, Tt, Si); break;
    case HG_WALK_Y: hg_joint_walk_revolute(1, root, qi[0], off, Tp, Tr, Tt, Si); break;
    case HG_WALK_Z: hg_joint_walk_revolute(2, root, qi[0], off, Tp, Tr, Tt, Si); break;
    /* a coordinate axis behind a rotated origin: the fold's lanes beat mixing R_o's columns
     * and a matrix product */
    case HG_WALK_XR:
    case HG_WALK_YR:
    case HG_WALK_ZR:
    case HG_WALK_FOLD: walk_fold(root, qi[0], off, f, Tp, Tr, Tt, Si); break;
    case HG_WALK_PRISMATIC:
      if (pure) hg_joint_walk_prismatic(1, root, qi[0], off, j->axis, Tp, Tr, Tt, Si);
      else hg_joint_walk_prismatic(0, root, qi[0], off, j->axis, Tp, Tr, Tt, Si);
      break;
    case HG_WALK_SPHERICAL:
      if (pure) hg_joint_walk_ball(0, 1, root, qi, off, Tp, Tr, Tt, Si);
      else hg_joint_walk_ball(0, 0, root, qi, off, Tp, Tr, Tt, Si);
      break;
    case HG_WALK_FREE:
      /* above all a tree's root (a floating base), whose tree frame is the body's */
      if (root) hg_joint_walk_ball(1, pure, 1, qi, off, Tp, Tr, Tt, Si);
      else hg_joint_walk_ball(1, pure, 0, qi, off, Tp, Tr, Tt, Si);
      break;
    default: {
      hg_se3 Tj;
      hg_joint_transform(j, qi, &Tj);
      if (m->offset_pure[i]) {
        *Tr = Tj;
        for (int r = 0; r < 3; r++) Tr->p[r] += off->p[r];
      } else {
        hg_se3_mul(off, &Tj, Tr);
      }
      if (m->has_post[i]) hg_se3_mul(Tr, &m->jnt_post[i], Tr);
      hg_se3_mul(Tp, Tr, Tt);
    }
    }
    /* a root's tree frame has its origin at the root; T_{0,i} is T_tree moved by that origin */
    if (!p) Tt->p[0] = Tt->p[1] = Tt->p[2] = 0;
    d->T_world[i] = *Tt;
    for (int r = 0; r < 3; r++) d->T_world[i].p[r] += d->T_rel[m->root[i]].p[r];

    /* the moved joint frame in the tree frame: T_tree, or T_tree T_post^-1 after a post-offset */
    hg_se3 Tjf;
    const hg_se3 *Ts = Tt;
    if (m->has_post[i]) {
      hg_se3 Pi;
      hg_se3_inv(&m->jnt_post[i], &Pi);
      hg_se3_mul(Tt, &Pi, &Tjf);
      Ts = &Tjf;
    }

    /* S_i of the general walk: the joint's own S, moved from the moved joint frame */
    if (walk == HG_WALK_GENERAL) {
      double Sb[6 * HG_JOINT_MAXNV];
      hg_joint_motion(j, qi, Sb);
      for (int c = 0; c < nv; c++) hg_Ad(Ts, Sb + 6 * c, d->S[va + c]);
    }

    /* body inertia in the tree frame, from its centre-of-mass form */
    hg_lane3_inertia_transform_c(Tt, Ib, &d->I[i]);
    if (!v) {
      /* no velocities: no Galilean frame (impulsive dynamics read d->a as velocity jumps) */
      if (!p) d->vt[i][0] = d->vt[i][1] = d->vt[i][2] = 0;
      return;
    }

    /* Vg_i = Vg_p + S_i v_i; a root sees its joint's rates vr without the uniform translation
     * (hg_joint_galilean), so its tree's Galilean frame moves with vt = (S (v - vr))_lin */
    static const double zero[6] = {0, 0, 0, 0, 0, 0};
    const double *Vp = vp ? d->Vg[vp] : zero, *vi = v + va;
    double vr[HG_JOINT_MAXNV], vj[6], Vi[6], ci[6];
    if (!p) {
      double *u = d->vt[i];
      u[0] = u[1] = u[2] = 0;
      if (world)
        for (int c = 0; c < nv; c++) vr[c] = vi[c], d->xi[va + c] = 0;
      else if (hg_joint_galilean(j, vi, vr, d->xi + va))
        for (int c = 0; c < nv; c++)
          for (int r = 0; r < 3; r++) u[r] += d->S[va + c][3 + r] * (vi[c] - vr[c]);
      vi = vr;
    }
    if (nv == 1) {
      for (int r = 0; r < 6; r++) vj[r] = d->S[va][r] * vi[0];
    } else {
      for (int r = 0; r < 6; r++) vj[r] = 0;
      for (int c = 0; c < nv; c++)
        for (int r = 0; r < 6; r++) vj[r] += d->S[va + c][r] * vi[c];
    }
    for (int r = 0; r < 6; r++) Vi[r] = Vp[r] + vj[r];

    /* c_i = d/dt (S_i) v_i = ad_{Vg_i} (S_i v_i) + Ad_T (Sdot_body v_i) */
    hg_ad(Vi, vj, ci);
    if (j->type == HG_JOINT_UNIVERSAL || j->type == HG_JOINT_PLANAR) {
      double sb[6], ss[6];
      hg_joint_bias(j, qi, vi, sb);
      hg_Ad(Ts, sb, ss);
      for (int r = 0; r < 6; r++) ci[r] += ss[r];
    }
    /* the real velocity adds the Galilean frame's back */
    const double *u = d->vt[m->root[i]];
    for (int r = 0; r < 6; r++) d->Vg[i][r] = Vi[r], d->V[i][r] = Vi[r], d->c[i][r] = ci[r];
    for (int r = 0; r < 3; r++) d->V[i][3 + r] += u[r];
  }
}

static void hg_kinematics_swept(const hg_model *m, hg_data *d, const double *q, const double *v);

HG_HOT void hg_kinematics_opt(const hg_model *m, hg_data *d, const hg_pass_options *opt,
                              const double *q, const double *v) {
  const int world = opt && opt->world_frame;
  if (m->local && m->local->nfixed && !world) {
    hg_kinematics_swept(m, d, q, v);
    return;
  }
  d->local_pass = 0;
  if (d->local) d->local->tree_carried = 0, d->local->walk_swept = 0;
  for (int i = 1; i < m->nbody; i++) walk_body(m, d, world, i, &m->inertia_c[i], m->parent[i], q, v);
}

/* walk_body out of line: the carried walk's first call at the fixed bodies (one inlined copy of
 * the step in the carried walk, not two) */
static __attribute__((noinline)) void walk_body_once(const hg_model *m, hg_data *d, int world, int i,
                                                     int vp, const double *q, const double *v) {
  walk_body(m, d, world, i, &m->inertia_c[i], vp, q, v);
}

/* body i on a fixed joint below a moving carrier: T_tree = T_tree,p T_{p,i} (T_rel constant;
 * the product hg_kinematics forms; in index order a fixed parent is posed first), T_{0,i}
 * moved by the root's origin */
HG_INLINE void fixed_pose(const hg_model *m, hg_data *d, int i) {
  const hg_se3 *A = &d->T_tree[m->parent[i]], *B = &d->T_rel[i];
  hg_se3 *Tt = &d->T_tree[i], *Tw = &d->T_world[i];
  hg_se3_mul(A, B, Tt);
  const double *o = d->T_rel[m->root[i]].p;
  HG_ST4(Tw->R, HG_LD4(Tt->R)), HG_ST4(Tw->R + 4, HG_LD4(Tt->R + 4));
  Tw->R[8] = Tt->R[8];
  for (int r = 0; r < 3; r++) Tw->p[r] = Tt->p[r] + o[r];
}

/* The walk over the swept bodies of a model with m->local (body_frames.h), in the tree frame: a
 * swept body's step reads its velocities from its parent's carrier (the same twist in the tree
 * frame); the bodies fixed to the world are constants, written at a workspace's first walk
 * (tree_const). folded (the walk of hg_rnea and hg_crba): a swept body's d->I holds the bodies
 * fixed to it (Ic_fold), and a body fixed to a moving carrier is posed only where a swept body
 * hangs from it. Otherwise (hg_kinematics): every field as the walk over every body writes it
 * (to round-off: the same products, compiled in another function); a body fixed to a moving
 * carrier costs one pose product, its inertia and two copies (V_b = V_c, Vg_b = Vg_c: a fixed
 * joint adds no motion; c_b = 0 stays from the first walk) instead of a joint's step */
HG_INLINE void swept_walk(const hg_model *m, hg_data *d, int folded, const double *q,
                          const double *v) {
  const hg_local_model *lm = m->local;
  hg_local_data *ld = d->local;
  const int once = ld->tree_const != lm->generation + 1;
  d->local_pass = 0;
  for (int i = 1; i < m->nbody; i++) {
    int c = lm->carrier[i];
    if (c == i) {
      walk_body(m, d, 0, i, folded ? &lm->Ic_fold[i] : &m->inertia_c[i], lm->parent[i], q, v);
      continue;
    }
    if (once) {
      /* the first call: every field, as hg_kinematics writes it (the constants stay; a body
       * fixed to a moving carrier is then posed below as at every call, so that its fields
       * come from the same arithmetic at every call) */
      walk_body_once(m, d, 0, i, lm->parent[i], q, v);
      /* fixed to the world: at rest (V = 0; c = 0 at every fixed body), also when this walk
       * has no velocities */
      for (int r = 0; r < 6; r++) {
        d->c[i][r] = 0;
        if (!c) d->V[i][r] = d->Vg[i][r] = 0;
      }
    }
    if (c && !folded) {
      fixed_pose(m, d, i);
      /* a massless body's d->I stays the zero of the first call */
      if (!lm->massless[i]) hg_lane3_inertia_transform_c(&d->T_tree[i], &m->inertia_c[i], &d->I[i]);
      if (v) {
        HG_ST4(d->Vg[i], HG_LD4(d->Vg[c])), HG_ST2(d->Vg[i] + 4, HG_LD2(d->Vg[c] + 4));
        HG_ST4(d->V[i], HG_LD4(d->V[c])), HG_ST2(d->V[i] + 4, HG_LD2(d->V[c] + 4));
      }
    } else if (c && lm->fixed_inner[i]) {
      fixed_pose(m, d, i);
    }
  }
  ld->tree_const = lm->generation + 1;
  ld->tree_carried = folded;
  ld->walk_swept = !folded;
}

/* hg_kinematics on a model with fixed joints (in the tree frame) */
HG_HOT __attribute__((flatten)) static void hg_kinematics_swept(const hg_model *m, hg_data *d,
                                                               const double *q, const double *v) {
  swept_walk(m, d, 0, q, v);
}

HG_HOT __attribute__((flatten)) void hg_kinematics_carried(const hg_model *m, hg_data *d,
                                                          const double *q, const double *v) {
  swept_walk(m, d, 1, q, v);
}

void hg_kinematics_fixed(const hg_model *m, hg_data *d, int inertia) {
  const hg_local_model *lm = m->local;
  for (int k = 0; k < lm->nfixed; k++) {
    int i = lm->fixed_list[k];
    if (!lm->carrier[i]) continue;
    if (!lm->fixed_inner[i]) fixed_pose(m, d, i);
    if (inertia && !lm->massless[i]) hg_lane3_inertia_transform_c(&d->T_tree[i], &m->inertia_c[i], &d->I[i]);
  }
}

void hg_kinematics(const hg_model *m, hg_data *d, const double *q, const double *v) {
  hg_kinematics_opt(m, d, NULL, q, v);
}

/* What the last walk or articulated pass left of body i, for the views below, in one frame: the
 * tree frame (hg_kinematics and the tree-frame pass) or joint frame J_i (the body-local pass,
 * d->local_pass; aba_local.h). Twist and acceleration (with the gravity offset) are seen from
 * the Galilean frame of a translating root's tree; u is that frame's velocity, filled when
 * with_u (J_i axes: hg_local_galilean walks up the tree); T is body i's pose in the frame. */
typedef struct view_source {
  const double *Vg, *a, *IA, *pA;
  double u[3];
  const hg_se3 *T;
  double world[2][6]; /* the world's twist and acceleration (a body fixed to it) */
} view_source;

static void source_of(const hg_model *m, const hg_data *d, int i, int with_u, view_source *s) {
  if (d->local_pass) {
    /* a body on a fixed joint is seen from its carrier c (body_frames.h): c's twist and
     * acceleration, its frame's constant pose in J_c (c = i for the others) */
    const hg_local_data *ld = d->local;
    const hg_local_model *lm = m->local;
    int c = lm->carrier[i];
    s->T = &lm->T_JB[i];
    if (c) {
      s->Vg = ld->b[c].v, s->a = ld->b[c].a;
      if (with_u) hg_local_galilean(lm, ld, c, s->u);
    } else {
      for (int r = 0; r < 6; r++)
        s->world[0][r] = 0, s->world[1][r] = r < 3 || ld->impulsive ? 0 : -m->gravity[r - 3];
      s->Vg = s->world[0], s->a = s->world[1];
      for (int r = 0; r < 3; r++) s->u[r] = 0;
    }
    s->IA = ld->b[i].IA, s->pA = ld->b[i].pA;
  } else {
    s->Vg = d->Vg[i], s->a = d->a[i], s->IA = d->IA[i], s->pA = d->pA[i];
    s->T = &d->T_tree[i];
    for (int r = 0; r < 3; r++) s->u[r] = d->vt[m->root[i]][r];
  }
}

void hg_body_twist(const hg_model *m, const hg_data *d, int i, double V[6]) {
  /* the real twist: Vg + (0, u) */
  view_source s;
  source_of(m, d, i, 1, &s);
  double v[6];
  for (int r = 0; r < 6; r++) v[r] = s.Vg[r];
  for (int r = 0; r < 3; r++) v[3 + r] += s.u[r];
  hg_Ad_inv(s.T, v, V);
}

void hg_body_acceleration(const hg_model *m, const hg_data *d, int i, double A[6]) {
  /* the real acceleration: a - (0, w x u) */
  view_source s;
  source_of(m, d, i, 1, &s);
  double a[6], t[3];
  hg_v3_cross(s.Vg, s.u, t);
  for (int r = 0; r < 3; r++) a[r] = s.a[r], a[3 + r] = s.a[3 + r] - t[r];
  hg_Ad_inv(s.T, a, A);
}

/* after the tree-frame pass over the swept bodies (d->local->pass_swept), the wrench fixed joint
 * i transmits, in the tree frame: with c its carrier, a and V c's acceleration and twist (the
 * world's a_0 and zero when c = 0; V = 0 in the impulsive form), the sum over the bodies b of
 * i's rigid part (i and the bodies fixed below it: carrier c) of I_b a - V x* I_b V - fext_b, and
 * over the swept bodies j hanging from that part of IA_j a_j + pA_j, what the pass over every
 * body hands up across each fixed joint as Pi a + beta (articulated.c) */
static void tree_fixed_wrench(const hg_model *m, const hg_data *d, int i, double F[6]) {
  const hg_local_model *lm = m->local;
  const hg_local_data *ld = d->local;
  int c = lm->carrier[i];
  const double *a = d->a[c];
  double V[6] = {0, 0, 0, 0, 0, 0};
  if (c && !ld->impulsive)
    for (int r = 0; r < 6; r++) V[r] = d->Vg[c][r];
  for (int r = 0; r < 6; r++) F[r] = 0;
  for (int b = i; b < m->subtree_end[i]; b++) {
    double G[6], h[6], t[6];
    if (lm->carrier[b] == c) {
      hg_inertia_mulv(&d->I[b], a, G);
      hg_inertia_mulv(&d->I[b], V, h);
      hg_ad_star(V, h, t);
      for (int r = 0; r < 6; r++) G[r] -= t[r];
      if (ld->ffix_set)
        for (int r = 0; r < 6; r++) G[r] += d->pA[b][r];
    } else if (lm->carrier[b] == b && lm->carrier[m->parent[b]] == c) {
      hg_sym6_mulv(d->IA[b], d->a[b], G);
      for (int r = 0; r < 6; r++) G[r] += d->pA[b][r];
    } else {
      continue;
    }
    for (int r = 0; r < 6; r++) F[r] += G[r];
  }
}

void hg_joint_wrench(const hg_model *m, const hg_data *d, int i, double F[6]) {
  /* the articulated pass's wrench IA_i a_i + pA_i, to body i's frame */
  view_source s;
  source_of(m, d, i, 0, &s);
  double Ft[6];
  int fixed = m->local && m->local->carrier[i] != i;
  if (d->local_pass && fixed) {
    /* a fixed joint: the net wrench of what it carries, in J_c */
    hg_local_fixed_wrench(m->local, d->local, i, Ft);
  } else if (fixed && d->local->pass_swept) {
    tree_fixed_wrench(m, d, i, Ft);
  } else {
    hg_sym6_mulv(s.IA, s.a, Ft);
    for (int r = 0; r < 6; r++) Ft[r] += s.pA[r];
  }
  hg_coAd(s.T, Ft, F);
}
