/* body_frames.c: the body-local frame compiler of body_frames.h: each body's joint frame J_i,
 * its constants there and the workspace of the body-local pass. */
#include "body_frames.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "axis.h"

static void v3_scale(double *x, double s) { x[0] *= s, x[1] *= s, x[2] *= s; }

/* x := a unit vector perpendicular to the unit z (from the axis z has least of) */
static void any_perpendicular(const double *z, double *x) {
  int k = 0;
  for (int r = 1; r < 3; r++)
    if (fabs(z[r]) < fabs(z[k])) k = r;
  for (int r = 0; r < 3; r++) x[r] = (r == k) - z[k] * z[r];
  v3_scale(x, 1 / hg_v3_norm(x));
}

/* J_i in body i's frame: z along the axis, origin and x on the common normal to the axis of
 * body i's first child (ch > 0, whose joint frame at q = 0 is off_all[ch] in body i's frame),
 * else at the body origin with any x */
static void joint_frame(const hg_model *m, const hg_se3 *off_all, int i, int ch, hg_se3 *J) {
  const double *z = m->jnt[i].axis;
  double x[3], y[3], o[3] = {0, 0, 0};
  if (ch) {
    /* the child's axis line: point pc, direction dc (body i's frame, q_i = 0 does not matter:
     * the child's offset is fixed in body i) */
    const hg_se3 *off = &off_all[ch];
    double dc[3], nrm[3];
    const double *pc = off->p;
    hg_m3_mulv(off->R, m->jnt[ch].axis, dc);
    double b = hg_v3_dot(z, dc), d1 = hg_v3_dot(z, pc), e = hg_v3_dot(dc, pc);
    double den = 1 - b * b, t = 0, uu = 0;
    if (den > 1e-12) t = (d1 - b * e) / den, uu = t * b - e;
    else t = 0, uu = -e; /* parallel: the normal through the body origin */
    /* nearly parallel axes put the foot of the normal far away, and an inertia about a far
     * point loses digits: beyond twice the child's distance the origin stays at the body's
     * (x still along the normal, so the child's factors are exact but b and d large) */
    int far = fabs(t) > 2 * hg_v3_norm(pc);
    if (far) t = 0;
    for (int r = 0; r < 3; r++) o[r] = t * z[r], nrm[r] = pc[r] + uu * dc[r] - o[r];
    if (den <= 1e-12) /* parallel: keep only the part normal to z */
      for (int r = 0; r < 3; r++) nrm[r] = pc[r] - d1 * z[r];
    double len = hg_v3_norm(nrm);
    if (den > 1e-12) {
      /* skew or meeting axes: the normal's direction is z x dc, exact to round-off however short
       * the normal is (nrm / len loses digits as len -> 0: a normal of 7e-5 left the child's
       * gamma at ~1e-12, which the factoring dropped); the sign makes a >= 0 */
      hg_v3_cross(z, dc, x);
      v3_scale(x, 1 / hg_v3_norm(x));
      if (!far && hg_v3_dot(x, nrm) < 0) v3_scale(x, -1);
    } else if (len > 1e-12 * (1 + hg_v3_norm(pc))) {
      for (int r = 0; r < 3; r++) x[r] = nrm[r] / len;
    } else {
      any_perpendicular(z, x);
    }
  } else {
    any_perpendicular(z, x);
  }
  hg_v3_cross(z, x, y);
  for (int r = 0; r < 3; r++) J->R[3 * r] = x[r], J->R[3 * r + 1] = y[r], J->R[3 * r + 2] = z[r];
  for (int r = 0; r < 3; r++) J->p[r] = o[r];
}

/* lm->order (which holds the world, then the swept bodies in index order, on entry): each range
 * between floating_list's positions sorted by depth (a counting sort, stable: index order within
 * a depth), and lm->chain. Returns -1 when out of memory. */
static int breadth_first(hg_local_model *lm) {
  int n = lm->nbody, *depth = calloc(n, sizeof *depth), *start = calloc(n + 1, sizeof *start);
  int *idx = calloc(lm->nswept, sizeof *idx);
  lm->chain = calloc(lm->nfloating + 1, sizeof *lm->chain);
  if (!depth || !start || !idx || !lm->chain) {
    free(depth), free(start), free(idx);
    return -1;
  }
  memcpy(idx, lm->order, (size_t)lm->nswept * sizeof *idx);
  for (int i = 1; i < n; i++) depth[i] = depth[lm->parent[i]] + 1;
  const int *fl = lm->floating_list;
  for (int f = 0; f <= lm->nfloating; f++) {
    int lo = fl[f] + 1, hi = fl[f + 1];
    /* start[d]: where depth d begins, from the counts of the depths before it (only the
     * range's depths dlo..dhi are cleared and walked: a loop over every depth for each of many
     * floating trees took time quadratic in the bodies) */
    int dlo = n, dhi = -1;
    for (int t = lo; t < hi; t++) {
      if (depth[idx[t]] < dlo) dlo = depth[idx[t]];
      if (depth[idx[t]] > dhi) dhi = depth[idx[t]];
    }
    for (int t = lo; t < hi; t++) start[depth[idx[t]]] = 0; /* a tree has every depth in dlo..dhi */
    for (int t = lo; t < hi; t++) start[depth[idx[t]]]++;
    for (int d = dlo, pos = lo; d <= dhi; d++) {
      int c = start[d];
      start[d] = pos, pos += c;
    }
    for (int t = lo; t < hi; t++) lm->order[start[depth[idx[t]]]++] = idx[t];
    /* a chain: each body after the range's first is the child of the one before */
    lm->chain[f] = 1;
    for (int t = lo + 1; t < hi; t++)
      if (lm->parent[lm->order[t]] != lm->order[t - 1]) lm->chain[f] = 0;
  }
  free(depth), free(start), free(idx);
  return 0;
}

/* lm->tree_order, sweep_end, carried_adr and carried (body_frames.h) from the swept bodies, their
 * parents in the tree of carriers and the fixed bodies' carriers. Returns -1 when out of memory. */
static int sweep_orders(hg_local_model *lm) {
  int n = lm->nbody, ns = lm->nswept - 1;
  int *depth = calloc((size_t)n, sizeof *depth), *start = calloc((size_t)n + 1, sizeof *start);
  lm->tree_order = calloc((size_t)(ns > 0 ? ns : 1), sizeof *lm->tree_order);
  lm->sweep_end = calloc((size_t)n, sizeof *lm->sweep_end);
  lm->carried_adr = calloc((size_t)n + 1, sizeof *lm->carried_adr);
  lm->carried = calloc((size_t)(lm->nfixed > 0 ? lm->nfixed : 1), sizeof *lm->carried);
  if (!depth || !start || !lm->tree_order || !lm->sweep_end || !lm->carried_adr || !lm->carried) {
    free(depth), free(start);
    return -1;
  }
  /* depths in the tree of carriers (the world's 0), and sweep_end: each swept body's own end,
   * raised by its children's (a child has a larger index: the decreasing sweep meets it first) */
  int maxd = 0;
  for (int t = 0; t < ns; t++) {
    int i = lm->swept[t];
    depth[i] = depth[lm->parent[i]] + 1;
    if (depth[i] > maxd) maxd = depth[i];
    lm->sweep_end[i] = i + 1;
  }
  for (int t = ns - 1; t >= 0; t--) {
    int i = lm->swept[t], p = lm->parent[i];
    if (p && lm->sweep_end[i] > lm->sweep_end[p]) lm->sweep_end[p] = lm->sweep_end[i];
  }
  /* by depth, deepest first, decreasing index within a depth (a counting sort) */
  for (int t = 0; t < ns; t++) start[depth[lm->swept[t]]]++;
  for (int d = maxd, pos = 0; d >= 1; d--) {
    int c = start[d];
    start[d] = pos, pos += c;
  }
  for (int t = ns - 1; t >= 0; t--) {
    int i = lm->swept[t];
    lm->tree_order[start[depth[i]]++] = i;
  }
  /* the fixed bodies grouped by carrier, index order within each */
  for (int f = 0; f < lm->nfixed; f++) lm->carried_adr[lm->carrier[lm->fixed_list[f]] + 1]++;
  for (int i = 0; i < n; i++) lm->carried_adr[i + 1] += lm->carried_adr[i];
  for (int i = 0; i <= n; i++) start[i] = i < n ? lm->carried_adr[i] : 0;
  for (int f = 0; f < lm->nfixed; f++) {
    int b = lm->fixed_list[f];
    lm->carried[start[lm->carrier[b]]++] = b;
  }
  free(depth), free(start);
  return 0;
}

/* C = Rz(gamma) Tz(b) Rx(alpha) Tx(a) Rz(theta0) Tz(d): the factors of C (dh as in
 * hg_local_model) and the flags of those that are not the identity; returns the largest error
 * of the rebuilt C */
static double factor(const hg_se3 *C, double *dh, double *cs0, uint8_t *flags) {
  const double *R = C->R, *o = C->p;
  double n[3] = {R[2], R[5], R[8]}, sa, ca = n[2], a, b, d, cg, sg;
  double sxy = hypot(n[0], n[1]), scale = 1 + hg_v3_norm(o);
  if (sxy > 1e-12) {
    /* n = Rz(g) Rx(alpha) e_z = (sg sa, -cg sa, ca): gamma in (-pi/2, pi/2], alpha of either
     * sign, so a first child (n_x = 0) gets gamma = 0; cos and sin from n itself (exact for a
     * coordinate axis) */
    cg = -n[1] / sxy, sg = n[0] / sxy;
    if (cg < 0 || (cg == 0 && sg < 0)) cg = -cg, sg = -sg;
    sa = sg * n[0] - cg * n[1];
    double xp[3] = {cg, sg, 0};
    a = hg_v3_dot(o, xp);
    /* o - a x' = b e_z + d n: the 2x2 normal equations */
    double w[3] = {o[0] - a * xp[0], o[1] - a * xp[1], o[2]};
    double wn = hg_v3_dot(w, n), det = sxy * sxy;
    b = (w[2] - ca * wn) / det;
    d = (wn - ca * w[2]) / det;
  } else {
    /* parallel axes: the normal through J_p's origin (b = 0) */
    sa = 0, ca = ca > 0 ? 1 : -1;
    double oxy = hypot(o[0], o[1]);
    int far = oxy > 1e-15 * scale;
    cg = far ? o[0] / oxy : 1, sg = far ? o[1] / oxy : 0;
    a = oxy, b = 0, d = o[2] * ca;
  }
  /* what is left of the rotation is Rz(theta0). The cosines and sines come from the axis
   * components themselves, not from cos and sin of the angles: a right angle (as between the
   * coordinate axes of most URDF joints) then gives an exact 0 and 1, where cos(pi / 2) is 6e-17
   * and would leak gravity into a joint at right angles to it */
  hg_se3 G = {{0}, {0}}, Gi;
  double ha = hypot(sa, ca), c_a = ca / ha, s_a = sa / ha;
  /* Rz(gamma) Rx(alpha) */
  G.R[0] = cg, G.R[1] = -sg * c_a, G.R[2] = sg * s_a;
  G.R[3] = sg, G.R[4] = cg * c_a, G.R[5] = -cg * s_a;
  G.R[6] = 0, G.R[7] = s_a, G.R[8] = c_a;
  double Rr[9];
  hg_m3_mulT(G.R, R, Rr);
  double th = atan2(Rr[3], Rr[0]), h0 = hypot(Rr[0], Rr[3]), c0 = Rr[0] / h0, s0 = Rr[3] / h0;
  /* the flags: factors that are not the identity. Those below zero_tol are round-off of zeros
   * that the joint frames make exact, such as gamma and b of a first child; dropping one
   * changes C by as much (the benchmark models keep every kind they had with 1e-12). URDF
   * origins written to 12 digits (rpy 1.57079632679, 4.9e-12 short of pi/2) leave true factors
   * of 1e-13 to 1e-12 (baxter's arm joints: a d or b of 5e-13 to 8e-13 m), which a cut at 1e-12
   * had dropped: qdd was then ~1e-12 of its size off M^-1 (tau - b) on baxter, kinova and
   * anymal-kinova (mean 1.8e-12, 9e-13, 9e-13), 100-250x the tree-frame pass's error */
  const double zero_tol = 1e-15;
  *flags = 0;
  if (fabs(sg) > zero_tol || cg < 0) *flags |= HG_LOCAL_GAMMA;
  else cg = 1, sg = 0;
  if (fabs(b) > zero_tol * scale) *flags |= HG_LOCAL_B;
  else b = 0;
  if (fabs(s_a) > zero_tol || c_a < 0) *flags |= HG_LOCAL_ALPHA;
  else c_a = 1, s_a = 0;
  if (fabs(a) > zero_tol * scale) *flags |= HG_LOCAL_A;
  else a = 0;
  if (fabs(d) > zero_tol * scale) *flags |= HG_LOCAL_D;
  else d = 0;
  dh[0] = cg, dh[1] = sg, dh[2] = b, dh[3] = c_a, dh[4] = s_a, dh[5] = a, dh[6] = d, dh[7] = th;
  cs0[0] = c0, cs0[1] = s0;
  /* rebuild: origin b e_z + a Rz(gamma) e_x + d n', rotation Rz(gamma) Rx(alpha) Rz(theta0) */
  G.R[0] = cg, G.R[1] = -sg * c_a, G.R[2] = sg * s_a;
  G.R[3] = sg, G.R[4] = cg * c_a, G.R[5] = -cg * s_a;
  G.R[6] = 0, G.R[7] = s_a, G.R[8] = c_a;
  double Rz[9] = {c0, -s0, 0, s0, c0, 0, 0, 0, 1};
  hg_m3_mul(G.R, Rz, Gi.R);
  for (int r = 0; r < 3; r++) Gi.p[r] = (r == 2) * b + a * G.R[3 * r] + d * G.R[3 * r + 2];
  /* the origin's error relative to the factors' lengths: nearly parallel axes (the "far" case
   * of joint_frame) give large b and d that cancel, and o can be no more exact than they */
  double err = 0, lscale = scale + fabs(a) + fabs(b) + fabs(d);
  for (int e = 0; e < 9; e++) err = fmax(err, fabs(Gi.R[e] - R[e]));
  for (int r = 0; r < 3; r++) err = fmax(err, fabs(Gi.p[r] - o[r]) / lscale);
  return err;
}

/* the kinds of HG_LOCAL_KINDS: axis and shape, by kind */
static const struct { uint8_t k, shape; } kind_table[] = {
#define KIND_ROW(kind, k, shape) {k, shape},
    HG_LOCAL_KINDS(KIND_ROW)
#undef KIND_ROW
};

/* the kind of a joint of axis k whose transform needs exactly the factors f (or HG_LOCAL_RP):
 * the one of that shape, else the axis's HG_LOCAL_ANY kind */
static int kind_of(int k, int f) {
  int other = -1;
  for (int t = 0; t < (int)(sizeof kind_table / sizeof kind_table[0]); t++) {
    if (kind_table[t].k != k) continue;
    if (kind_table[t].shape == f) return t;
    if (kind_table[t].shape == HG_LOCAL_ANY) other = t;
  }
  return other;
}

/* 1 when G is zero (a frame link: a URDF flange or tool0) */
static int inertia_zero(const hg_inertia *G) {
  int z = G->m == 0;
  for (int r = 0; r < 3; r++) z &= G->h[r] == 0;
  for (int r = 0; r < 6; r++) z &= G->I[r] == 0;
  return z;
}

/* Ic_fold[c] of swept body c: I_B = I_c + sum over the bodies b fixed to c of T_CB[b] . I_b (in
 * c's body frame), to its centre-of-mass form; m->inertia_c[c] itself when no body with mass is
 * fixed to c */
static void fold_body(hg_local_model *lm, const hg_model *m, int c) {
  hg_inertia G = m->inertia[c], Ib;
  int any = 0;
  for (int f = 0; f < lm->nfixed; f++) {
    int b = lm->fixed_list[f];
    if (lm->carrier[b] != c || inertia_zero(&m->inertia[b])) continue;
    hg_inertia_transform(&lm->T_CB[b], &m->inertia[b], &Ib);
    hg_inertia_add(&G, &Ib);
    any = 1;
  }
  if (any) hg_inertia_to_c(&G, &lm->Ic_fold[c]);
  else lm->Ic_fold[c] = m->inertia_c[c];
}

/* every carrier's inertia with its fixed bodies folded in and every Isub, in one pass over the
 * bodies (the sums of hg_local_set_inertia, in the same order) */
static void fold_all(hg_local_model *lm, const hg_model *m) {
  for (int t = 1; t < lm->nswept; t++) {
    int i = lm->order[t];
    hg_inertia_transform(&lm->T_JB[i], &m->inertia[i], &lm->link[i].I);
  }
  for (int f = 0; f < lm->nfixed; f++) {
    int b = lm->fixed_list[f], c = lm->carrier[b];
    hg_inertia_transform(&lm->T_JB[b], &m->inertia[b], &lm->Isub[b]);
    if (c) hg_inertia_add(&lm->link[c].I, &lm->Isub[b]);
  }
  for (int t = 1; t < lm->nswept; t++) {
    int i = lm->order[t];
    hg_inertia_sym6(&lm->link[i].I, lm->link[i].Isym);
  }
  for (int f = lm->nfixed - 1; f >= 0; f--) {
    int b = lm->fixed_list[f], p = lm->mparent[b];
    if (p != lm->carrier[b]) hg_inertia_add(&lm->Isub[p], &lm->Isub[b]);
  }
  for (int t = 1; t < lm->nswept; t++) fold_body(lm, m, lm->order[t]);
  for (int i = 1; i < lm->nbody; i++) lm->massless[i] = (uint8_t)inertia_zero(&m->inertia[i]);
}

hg_local_model *hg_local_compile(const hg_model *m, hg_error *err) {
  int n = m->nbody;
  for (int i = 1; i < n; i++) {
    if (m->jnt[i].type == HG_JOINT_FIXED) continue;
    int k = hg_joint_local_axis(&m->jnt[i]);
    if (k < 0 || (k == 6 && m->parent[i] != 0) || m->has_post[i]) {
      hg_error_set(err, "joint '%s' is not a revolute, prismatic or fixed joint (or a free root "
                        "joint) without post-offset: the body-local ABA takes such models only",
                   m->jnt_name[i]);
      return NULL;
    }
  }
  hg_local_model *lm = calloc(1, sizeof *lm);
  if (!lm) {
    hg_error_set(err, "out of memory");
    return NULL;
  }
  lm->nbody = n, lm->mparent = m->parent;
  lm->gravity = m->gravity;
  lm->v_adr = m->v_adr, lm->q_adr = m->q_adr, lm->nv = m->nv, lm->jnt = m->jnt;
  lm->armature = m->armature, lm->has_armature = m->has_armature;
  lm->floating = calloc(n, 1);
  lm->floating_list = calloc(n + 1, sizeof *lm->floating_list);
  lm->C = calloc(n, sizeof *lm->C);
  lm->link = calloc(n, sizeof *lm->link);
  lm->T_JB = calloc(n, sizeof *lm->T_JB);
  lm->parent = calloc(n, sizeof *lm->parent);
  lm->carrier = calloc(n, sizeof *lm->carrier);
  lm->fixed_list = calloc(n, sizeof *lm->fixed_list);
  lm->T_CB = calloc(n, sizeof *lm->T_CB);
  lm->Isub = calloc(n, sizeof *lm->Isub);
  lm->order = calloc(n, sizeof *lm->order);
  lm->swept = calloc(n, sizeof *lm->swept);
  lm->Ic_fold = calloc(n, sizeof *lm->Ic_fold);
  lm->steps = calloc(n, sizeof *lm->steps);
  lm->hung = calloc(n, sizeof *lm->hung);
  lm->massless = calloc(n, 1);
  lm->fixed_inner = calloc(n, 1);
  hg_se3 *J = calloc(n, sizeof *J), *off = calloc(n, sizeof *off);
  if (!lm->C || !lm->link || !lm->T_JB || !lm->floating || !lm->floating_list || !J || !off ||
      !lm->parent || !lm->carrier || !lm->fixed_list || !lm->T_CB || !lm->Isub || !lm->order ||
      !lm->swept || !lm->Ic_fold || !lm->steps || !lm->hung || !lm->massless ||
      !lm->fixed_inner) {
    free(J), free(off);
    hg_local_model_free(lm);
    hg_error_set(err, "out of memory");
    return NULL;
  }
  /* carriers, as hg_model_merge_fixed finds them: T_CB[i], body i's frame in its carrier's (the
   * identity at a swept body); off[i], a swept body's joint frame at q = 0 in its carrier
   * parent's body frame (its offset moved by its parent's pose there) */
  hg_se3_identity(&lm->T_CB[0]);
  lm->order[lm->nswept++] = 0;
  for (int i = 1; i < n; i++) {
    int p = m->parent[i];
    lm->parent[i] = lm->carrier[p];
    if (m->jnt[i].type == HG_JOINT_FIXED) {
      hg_se3 rel;
      hg_se3_mul(&m->jnt_offset[i], &m->jnt_post[i], &rel); /* T_{p,i} at the fixed joint */
      lm->carrier[i] = lm->carrier[p];
      hg_se3_mul(&lm->T_CB[p], &rel, &lm->T_CB[i]);
      lm->fixed_list[lm->nfixed++] = i;
    } else {
      lm->carrier[i] = i;
      hg_se3_identity(&lm->T_CB[i]);
      if (lm->carrier[p] == p) off[i] = m->jnt_offset[i]; /* a swept parent (or the world) */
      else hg_se3_mul(&lm->T_CB[p], &m->jnt_offset[i], &off[i]);
      lm->swept[lm->nswept - 1] = i;
      lm->order[lm->nswept++] = i;
    }
  }
  for (int t = 0; t + 1 < lm->nswept; t++) {
    int i = lm->swept[t];
    hg_local_step *st = &lm->steps[t];
    st->body = i, st->parent = lm->parent[i], st->v_adr = m->v_adr[i], st->nv = m->jnt_nv[i];
    st->root = m->parent[i] == 0;
    if (m->parent[i] && lm->carrier[m->parent[i]] != m->parent[i]) {
      lm->hung[lm->nhung++] = i;
      /* the fixed bodies between i and its moving carrier: the walk poses them for i */
      for (int b = m->parent[i]; lm->carrier[b] && lm->carrier[b] != b; b = m->parent[b])
        lm->fixed_inner[b] = 1;
    }
    st->follows = t > 0 && st->parent && st->parent == lm->swept[t - 1];
    st->o_vec = (ptrdiff_t)i * (ptrdiff_t)sizeof(hg_vec6);
    st->o_parent = (ptrdiff_t)st->parent * (ptrdiff_t)sizeof(hg_vec6);
    st->o_inertia = (ptrdiff_t)i * (ptrdiff_t)sizeof(hg_inertia);
    st->o_S = (ptrdiff_t)st->v_adr * (ptrdiff_t)sizeof(hg_vec6);
  }
  if (sweep_orders(lm)) {
    free(J), free(off);
    hg_local_model_free(lm);
    hg_error_set(err, "out of memory");
    return NULL;
  }
  /* joint frames (J_0: the world frame) */
  hg_se3_identity(&J[0]);
  for (int t = 1; t < lm->nswept; t++) {
    int i = lm->order[t];
    /* the first child: the next swept body, when i carries it */
    int ch = t + 1 < lm->nswept && lm->parent[lm->order[t + 1]] == i ? lm->order[t + 1] : 0;
    /* a floating root's: its body frame (S the identity) */
    lm->floating[i] = hg_joint_local_axis(&m->jnt[i]) == 6;
    /* a floating or prismatic root: its tree is seen from a Galilean frame */
    lm->galilean |= lm->parent[i] == 0 && hg_joint_local_axis(&m->jnt[i]) >= 5;
    if (lm->floating[i]) {
      hg_se3_identity(&J[i]);
      lm->floating_list[++lm->nfloating] = t;
    } else {
      joint_frame(m, off, i, ch, &J[i]);
    }
  }
  lm->floating_list[lm->nfloating + 1] = lm->nswept;
  /* a fixed body's frame in its carrier's J_c */
  for (int f = 0; f < lm->nfixed; f++) {
    int i = lm->fixed_list[f];
    hg_se3_invmul(&J[lm->carrier[i]], &lm->T_CB[i], &lm->T_JB[i]);
  }
  for (int t = 1; t < lm->nswept; t++) {
    int i = lm->order[t];
    /* C_i = J_p^-1 offset_i J_i; the inertia and fext move by T_JB = J_i^-1 */
    hg_se3 OJ;
    hg_se3_mul(&off[i], &J[i], &OJ);
    hg_se3_invmul(&J[lm->parent[i]], &OJ, &lm->C[i]);
    hg_se3_inv(&J[i], &lm->T_JB[i]);
    if (lm->floating[i]) {
      /* no factors: C's rotation only (the pass's floating_setup), turned when it is not the
       * identity */
      lm->link[i].kind = HG_KIND_FLOATING;
      for (int e = 0; e < 9; e++)
        if (lm->C[i].R[e] != (e % 4 == 0)) lm->link[i].kind = HG_KIND_FLOATING_TURNED;
      continue;
    }
    uint8_t f;
    double e = factor(&lm->C[i], lm->link[i].dh, lm->link[i].cs0, &f);
    /* a prismatic joint's slide is Tz(d + q): its factor is always there; its hg_turn theta0 is
     * constant */
    int k = hg_joint_local_axis(&m->jnt[i]);
    if (k == 5) f |= HG_LOCAL_D;
    /* nearly parallel axes: long b and d that cancel lose digits in every product of the chain
     * (factor errors to 8.8e-14, qdd 7e-13 off a dense solve): such a joint goes as (R, p) */
    const double *dh = lm->link[i].dh;
    if (fabs(dh[2]) + fabs(dh[6]) > 2 * (1 + hg_v3_norm(lm->C[i].p)))
      f = HG_LOCAL_RP;
    /* factors that rebuild C only to more than round-off go as (R, p) too (which is C itself):
     * axes within 1e-12 rad of parallel but not parallel, which the factoring takes as parallel
     * (alpha 0). A URDF rpy of 3.14159265359 tilts two of kinova's axes by 2.1e-13; factored,
     * its mean qdd error was 1.8e-14 against the tree-frame pass's 1.0e-14, as (R, p) 1.3e-14.
     * Such a factoring had been refused above 1e-12, leaving the model to the tree-frame pass */
    if (e > 1e-14) f = HG_LOCAL_RP;
    lm->link[i].factors = f;
    lm->link[i].kind = (uint8_t)kind_of(k, f);
    /* alpha's and gamma's turns, once */
    for (int r = 0; r < 2; r++) {
      const double *cs = lm->link[i].dh + (r ? 0 : 3);
      hg_turn tn = hg_turn_make(cs[0], cs[1]);
      double *o = lm->link[i].dh_turn + 6 * r;
      o[0] = tn.c, o[1] = tn.s, o[2] = tn.ss, o[3] = tn.cs, o[4] = tn.C2, o[5] = tn.S2;
    }
  }
  fold_all(lm, m);
  free(J), free(off);
  if (breadth_first(lm)) {
    hg_local_model_free(lm);
    hg_error_set(err, "out of memory");
    return NULL;
  }
  return lm;
}

void hg_local_set_inertia(hg_local_model *lm, const hg_model *m, int i) {
  int c = lm->carrier[i];
  /* I_J = T_JB . I_B (the inertia moved into J_c), plus that of each body fixed to c moved there
   * (as hg_model_merge_fixed sums them), and its symmetric 6x6 */
  if (c) hg_inertia_transform(&lm->T_JB[c], &m->inertia[c], &lm->link[c].I);
  for (int f = 0; f < lm->nfixed; f++) {
    int b = lm->fixed_list[f];
    if (lm->carrier[b] != c) continue;
    hg_inertia_transform(&lm->T_JB[b], &m->inertia[b], &lm->Isub[b]);
    if (c) hg_inertia_add(&lm->link[c].I, &lm->Isub[b]);
  }
  if (c) hg_inertia_sym6(&lm->link[c].I, lm->link[c].Isym);
  if (c) fold_body(lm, m, c);
  lm->massless[i] = (uint8_t)inertia_zero(&m->inertia[i]);
  lm->generation++;
  /* Isub: each fixed body's own so far; the deepest first, each adds itself to its parent when
   * that is fixed too */
  for (int f = lm->nfixed - 1; f >= 0; f--) {
    int b = lm->fixed_list[f], p = lm->mparent[b];
    if (lm->carrier[b] == c && p != c) hg_inertia_add(&lm->Isub[p], &lm->Isub[b]);
  }
}

void hg_local_model_free(hg_local_model *lm) {
  if (!lm) return;
  free(lm->order);
  free(lm->chain);
  free(lm->C);
  free(lm->link);
  free(lm->T_JB);
  free(lm->floating);
  free(lm->floating_list);
  free(lm->parent);
  free(lm->carrier);
  free(lm->fixed_list);
  free(lm->T_CB);
  free(lm->Isub);
  free(lm->swept);
  free(lm->Ic_fold);
  free(lm->steps);
  free(lm->hung);
  free(lm->massless);
  free(lm->fixed_inner);
  free(lm->tree_order);
  free(lm->sweep_end);
  free(lm->carried_adr);
  free(lm->carried);
  free(lm);
}

hg_local_data *hg_local_data_new(const hg_local_model *lm) {
  int n = lm->nbody;
  hg_local_data *ld = calloc(1, sizeof *ld);
  if (!ld) return NULL;
  ld->b = calloc(n, sizeof *ld->b);
  ld->P = calloc(n, sizeof *ld->P);
  ld->vt = calloc(n, sizeof *ld->vt);
  ld->xi = calloc(n, sizeof *ld->xi);
  ld->fext = calloc(n, sizeof *ld->fext);
  ld->ffix = calloc(n, sizeof *ld->ffix);
  if (!ld->b || !ld->P || !ld->vt || !ld->xi || !ld->fext || !ld->ffix) {
    hg_local_data_free(ld);
    return NULL;
  }
  return ld;
}

void hg_local_data_free(hg_local_data *ld) {
  if (!ld) return;
  free(ld->b);
  free(ld->P);
  free(ld->vt);
  free(ld->xi);
  free(ld->fext);
  free(ld->ffix);
  free(ld);
}
