/* mjcf_compare.c: hinge's dynamics of an MJCF model against MuJoCo's (mjcf_compare.h). */
#include "mjcf_compare.h"

#include <math.h>
#include <mujoco/mujoco.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dynamics.h"
#include "mjcf.h"

/* a small deterministic generator (splitmix64), uniform in [-1, 1) */
static double uniform(unsigned long long *s) {
  unsigned long long z = (*s += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  z ^= z >> 31;
  return (double)(z >> 11) / 9007199254740992.0 * 2 - 1;
}

/* a random unit quaternion (w, x, y, z) */
static void random_quat(unsigned long long *s, double *q) {
  double n = 0;
  do {
    n = 0;
    for (int k = 0; k < 4; k++) q[k] = uniform(s), n += q[k] * q[k];
  } while (n < 1e-3 || n > 1);
  for (int k = 0; k < 4; k++) q[k] /= sqrt(n);
}

/* hinge's name of MuJoCo joint j (mjcf.h: its name, or BODY_jointK after the body's name or
 * bodyI) */
static void joint_name(const mjModel *mj, int j, char *out, size_t len) {
  const char *n = mj_id2name(mj, mjOBJ_JOINT, j);
  if (n && *n) {
    snprintf(out, len, "%s", n);
    return;
  }
  int b = mj->jnt_bodyid[j];
  const char *bn = mj_id2name(mj, mjOBJ_BODY, b);
  char bbuf[64];
  if (!bn || !*bn) snprintf(bbuf, sizeof bbuf, "body%d", b), bn = bbuf;
  snprintf(out, len, "%s_joint%d", bn, j - mj->body_jntadr[b]);
}

/* the worst |a - b| over n entries relative to the largest |b| */
static double rel_err(const double *a, const double *b, int n) {
  double d = 0, s = 0;
  for (int k = 0; k < n; k++) {
    if (fabs(a[k] - b[k]) > d || isnan(a[k] - b[k])) d = isnan(a[k] - b[k]) ? INFINITY : fabs(a[k] - b[k]);
    if (fabs(b[k]) > s) s = fabs(b[k]);
  }
  return d == 0 ? 0 : d / (s > 1e-300 ? s : 1e-300);
}

/* the state maps of one model: per MuJoCo joint, hinge's joint and addresses */
typedef struct jmap {
  int hj;           /* hinge joint (body) index */
  int type;         /* MuJoCo's joint type */
  int qa, va;       /* MuJoCo's qpos and qvel addresses */
  int hqa, hva;     /* hinge's */
} jmap;

/* R (row-major) of a free joint's quaternion in qpos (normalized) */
static void free_R(const double *quat, double R[9]) {
  double q[4] = {quat[0], quat[1], quat[2], quat[3]};
  hg_quat_normalize(q);
  hg_quat_to_R(q, R);
}

/* hinge's v from MuJoCo's qvel: equal except at free joints, (v_world, w_body) -> (w, R^T v) */
static void v_from_mj(const jmap *J, int nj, const double *qpos, const double *qvel, double *v) {
  for (int k = 0; k < nj; k++) {
    const jmap *j = &J[k];
    int n = j->type == mjJNT_FREE ? 6 : j->type == mjJNT_BALL ? 3 : 1;
    if (j->type != mjJNT_FREE) {
      memcpy(v + j->hva, qvel + j->va, (size_t)n * sizeof *v);
      continue;
    }
    double R[9];
    free_R(qpos + j->qa + 3, R);
    for (int a = 0; a < 3; a++) {
      v[j->hva + a] = qvel[j->va + 3 + a];
      v[j->hva + 3 + a] = R[a] * qvel[j->va] + R[3 + a] * qvel[j->va + 1] + R[6 + a] * qvel[j->va + 2];
    }
  }
}

/* MuJoCo's generalized force from hinge's (the dual map): at a free joint (m, f) -> (R f, m) */
static void f_to_mj(const jmap *J, int nj, const double *qpos, const double *f, double *out) {
  for (int k = 0; k < nj; k++) {
    const jmap *j = &J[k];
    int n = j->type == mjJNT_FREE ? 6 : j->type == mjJNT_BALL ? 3 : 1;
    if (j->type != mjJNT_FREE) {
      memcpy(out + j->va, f + j->hva, (size_t)n * sizeof *f);
      continue;
    }
    double R[9];
    free_R(qpos + j->qa + 3, R);
    for (int a = 0; a < 3; a++) {
      out[j->va + a] = R[3 * a] * f[j->hva + 3] + R[3 * a + 1] * f[j->hva + 4] + R[3 * a + 2] * f[j->hva + 5];
      out[j->va + 3 + a] = f[j->hva + a];
    }
  }
}

/* hinge's generalized force from MuJoCo's: at a free joint (f_world, m) -> (m, R^T f) */
static void f_from_mj(const jmap *J, int nj, const double *qpos, const double *f, double *out) {
  v_from_mj(J, nj, qpos, f, out); /* the same map as velocities: R orthogonal */
}

/* hinge's vdot from MuJoCo's qacc at velocity qvel: at a free joint MuJoCo's linear entry is the
 * world acceleration a_w of the origin; hinge's is d/dt (R^T v_w) = R^T a_w - w x v_body */
static void a_from_mj(const jmap *J, int nj, const double *qpos, const double *qvel,
                      const double *qacc, const double *v, double *vd) {
  v_from_mj(J, nj, qpos, qacc, vd);
  for (int k = 0; k < nj; k++) {
    const jmap *j = &J[k];
    if (j->type != mjJNT_FREE) continue;
    const double *w = v + j->hva, *vb = v + j->hva + 3;
    double c[3] = {w[1] * vb[2] - w[2] * vb[1], w[2] * vb[0] - w[0] * vb[2], w[0] * vb[1] - w[1] * vb[0]};
    for (int a = 0; a < 3; a++) vd[j->hva + 3 + a] -= c[a];
  }
  (void)qvel;
}

/* MuJoCo's qacc from hinge's vdot: the inverse of a_from_mj (a_w = R (vdot_b + w x v_b)) */
static void a_to_mj(const jmap *J, int nj, const double *qpos, const double *v, const double *vd,
                    double *qacc) {
  for (int k = 0; k < nj; k++) {
    const jmap *j = &J[k];
    int n = j->type == mjJNT_FREE ? 6 : j->type == mjJNT_BALL ? 3 : 1;
    if (j->type != mjJNT_FREE) {
      memcpy(qacc + j->va, vd + j->hva, (size_t)n * sizeof *vd);
      continue;
    }
    const double *w = v + j->hva, *vb = v + j->hva + 3, *ab = vd + j->hva + 3;
    double c[3] = {ab[0] + w[1] * vb[2] - w[2] * vb[1], ab[1] + w[2] * vb[0] - w[0] * vb[2],
                   ab[2] + w[0] * vb[1] - w[1] * vb[0]};
    double R[9];
    free_R(qpos + j->qa + 3, R);
    for (int a = 0; a < 3; a++) {
      qacc[j->va + a] = R[3 * a] * c[0] + R[3 * a + 1] * c[1] + R[3 * a + 2] * c[2];
      qacc[j->va + 3 + a] = vd[j->hva + a];
    }
  }
}

/* the joint springs and dampers of the extras, as hinge's joint spring element computes them:
 * tau = -k (q (-) rest) - c v on the joint's DoFs */
static void passive(const hg_model *m, const hg_mjcf_extras *x, const double *q, const double *v,
                    double *tau) {
  double dv[6];
  memset(tau, 0, (size_t)m->nv * sizeof *tau);
  for (int k = 0; k < x->nspring; k++) {
    const hg_mjcf_spring *s = &x->spring[k];
    int j = hg_model_joint(m, s->joint);
    if (j < 0) continue;
    hg_joint_difference_any(&m->jnt[j], s->rest, q + m->q_adr[j], dv);
    for (int d = 0; d < m->jnt_nv[j]; d++)
      tau[m->v_adr[j] + d] = -s->stiffness * dv[d] - s->damping * v[m->v_adr[j] + d];
  }
}

int hg_mjcf_compare(const char *path, int nstates, unsigned seed, hg_mjcf_agreement *out) {
  char msg[1000] = "";
  hg_error err;
  hg_mjcf_extras x;
  hg_builder *b = NULL;
  hg_model *m = NULL;
  hg_data *hd = NULL;
  mjData *d = NULL;
  jmap *J = NULL;
  double *buf = NULL;
  int rc = -1;
  memset(out, 0, sizeof *out);
  memset(&x, 0, sizeof x);
  mjModel *mj = mj_loadXML(path, NULL, msg, sizeof msg);
  if (!mj) {
    snprintf(out->why, sizeof out->why, "%.*s", (int)strcspn(msg, "\n"), msg);
    return -1;
  }
  out->mujoco_loads = 1;
  out->nq = mj->nq, out->nv = mj->nv, out->nbody_mj = mj->nbody, out->njnt = mj->njnt;
  b = hg_builder_new();
  if (hg_mjcf_add(b, path, NULL, NULL, NULL, NULL, &x, &err)) {
    snprintf(out->why, sizeof out->why, "%s", err.msg);
    goto done;
  }
  hg_builder_allow_singular(b, 1);
  if (!(m = hg_builder_compile(b, &err))) {
    snprintf(out->why, sizeof out->why, "%s", err.msg);
    goto done;
  }
  memcpy(m->gravity, x.gravity, sizeof m->gravity);
  if (m->nq != mj->nq || m->nv != mj->nv) {
    snprintf(out->why, sizeof out->why, "sizes differ: hinge nq %d nv %d, MuJoCo %d %d", m->nq,
             m->nv, mj->nq, mj->nv);
    goto done;
  }
  /* what hinge does not take from MJCF, off in MuJoCo */
  mj->opt.disableflags |= mjDSBL_CONTACT | mjDSBL_LIMIT | mjDSBL_EQUALITY | mjDSBL_FRICTIONLOSS |
                          mjDSBL_ACTUATION | mjDSBL_CLAMPCTRL;
  mj->opt.density = mj->opt.viscosity = 0;
  memset(mj->opt.wind, 0, sizeof mj->opt.wind);
  for (int t = 0; t < mj->ntendon; t++) mj->tendon_stiffness[t] = mj->tendon_damping[t] = 0;
  if (mj->opt.disableflags & mjDSBL_PASSIVE)
    for (int j = 0; j < mj->njnt; j++) mj->jnt_stiffness[j] = 0;
  for (int j = 0; j < mj->njnt; j++)
    if (mj->jnt_type[j] == mjJNT_FREE) mj->jnt_stiffness[j] = 0; /* not taken (mjcf.h) */
  d = mj_makeData(mj);
  hd = hg_data_new(m);
  J = calloc((size_t)mj->njnt + 1, sizeof *J);
  int nv = m->nv, nq = m->nq;
  buf = calloc((size_t)(12 * nv + 2 * nq + 3 * nv * nv + 8), sizeof *buf);
  if (!d || !hd || !J || !buf) {
    snprintf(out->why, sizeof out->why, "out of memory");
    goto done;
  }
  for (int j = 0; j < mj->njnt; j++) {
    char name[256];
    joint_name(mj, j, name, sizeof name);
    int hj = hg_model_joint(m, name);
    if (hj < 0) {
      snprintf(out->why, sizeof out->why, "joint '%s' not in hinge's model", name);
      goto done;
    }
    J[j] = (jmap){hj, mj->jnt_type[j], mj->jnt_qposadr[j], mj->jnt_dofadr[j], m->q_adr[hj], m->v_adr[hj]};
  }
  double *q = buf, *v = q + nq, *vd = v + nv, *tau = vd + nv, *pas = tau + nv, *t1 = pas + nv,
         *t2 = t1 + nv, *t3 = t2 + nv, *qvel = t3 + nv, *qacc = qvel + nv, *frc = qacc + nv,
         *Mh = frc + nv, *Mm = Mh + nv * nv, *Mt = Mm + nv * nv, *qpos = Mt + nv * nv;
  unsigned long long s = seed;
  for (int n = 0; n < nstates; n++) {
    /* a random MuJoCo state */
    for (int j = 0; j < mj->njnt; j++) {
      double *qp = d->qpos + mj->jnt_qposadr[j];
      switch (mj->jnt_type[j]) {
      case mjJNT_FREE:
        for (int a = 0; a < 3; a++) qp[a] = mj->qpos0[mj->jnt_qposadr[j] + a] + uniform(&s);
        random_quat(&s, qp + 3);
        break;
      case mjJNT_BALL:
        random_quat(&s, qp);
        break;
      default:
        qp[0] = mj->qpos0[mj->jnt_qposadr[j]] + uniform(&s);
      }
    }
    for (int k = 0; k < nv; k++) d->qvel[k] = uniform(&s), qacc[k] = uniform(&s), frc[k] = uniform(&s);
    memcpy(qpos, d->qpos, (size_t)nq * sizeof *qpos);
    memcpy(qvel, d->qvel, (size_t)nv * sizeof *qvel);
    /* hinge's state: q = qpos; v from qvel */
    for (int j = 0; j < mj->njnt; j++) {
      int n_q = J[j].type == mjJNT_FREE ? 7 : J[j].type == mjJNT_BALL ? 4 : 1;
      memcpy(q + J[j].hqa, qpos + J[j].qa, (size_t)n_q * sizeof *q);
    }
    v_from_mj(J, mj->njnt, qpos, qvel, v);
    passive(m, &x, q, v, pas);

    /* MuJoCo: M, bias and passive forces, then FD with qfrc_applied = frc */
    mju_zero(d->qacc, nv);
    mju_copy(d->qfrc_applied, frc, nv);
    mju_zero(d->ctrl, mj->nu);
    mj_forward(mj, d);
    mj_fullM(mj, Mm, d->qM);

    /* M: M_mj = P^T M_h P, column by column: P e_k is v_from_mj of e_k */
    hg_crba(m, hd, q, Mh);
    for (int k = 0; k < nv; k++) {
      memset(t1, 0, (size_t)nv * sizeof *t1);
      t1[k] = 1;
      v_from_mj(J, mj->njnt, qpos, t1, t2); /* P e_k */
      for (int r = 0; r < nv; r++) {
        double acc = 0;
        for (int c = 0; c < nv; c++) acc += Mh[r * nv + c] * t2[c];
        t3[r] = acc;
      }
      f_to_mj(J, mj->njnt, qpos, t3, t1); /* P^T M_h P e_k */
      for (int r = 0; r < nv; r++) Mt[r * nv + k] = t1[r];
    }
    double e = rel_err(Mt, Mm, nv * nv);
    if (e > out->err_M) out->err_M = e;

    /* bias: hinge's ID at the vdot that is MuJoCo's qacc = 0 */
    mju_zero(t1, nv);
    a_from_mj(J, mj->njnt, qpos, qvel, t1, v, vd);
    hg_rnea(m, hd, q, v, vd, NULL, tau);
    f_to_mj(J, mj->njnt, qpos, tau, t2);
    e = rel_err(t2, d->qfrc_bias, nv);
    if (e > out->err_bias) out->err_bias = e;

    /* FD: hinge's ABA with tau = frc (mapped) + passive */
    f_from_mj(J, mj->njnt, qpos, frc, tau);
    for (int k = 0; k < nv; k++) tau[k] += pas[k];
    if (hg_aba(m, hd, q, v, tau, NULL, vd)) {
      out->err_fd = INFINITY;
    } else {
      a_to_mj(J, mj->njnt, qpos, v, vd, t2);
      e = rel_err(t2, d->qacc, nv);
      if (e > out->err_fd) out->err_fd = e;
    }

    /* ID at qacc: MuJoCo's RNE with accelerations, plus the armature's, minus passive forces */
    mju_copy(d->qacc, qacc, nv);
    mj_rne(mj, d, 1, t3);
    for (int k = 0; k < nv; k++) t3[k] += mj->dof_armature[k] * qacc[k] - d->qfrc_passive[k];
    a_from_mj(J, mj->njnt, qpos, qvel, qacc, v, vd);
    hg_rnea(m, hd, q, v, vd, NULL, tau);
    for (int k = 0; k < nv; k++) tau[k] -= pas[k];
    f_to_mj(J, mj->njnt, qpos, tau, t2);
    e = rel_err(t2, t3, nv);
    if (e > out->err_id) out->err_id = e;
  }
  out->hinge_loads = 1;
  rc = 0;
done:
  free(buf);
  free(J);
  hg_data_free(hd);
  hg_model_free(m);
  hg_builder_free(b);
  hg_mjcf_extras_free(&x);
  if (d) mj_deleteData(d);
  mj_deleteModel(mj);
  return rc;
}
