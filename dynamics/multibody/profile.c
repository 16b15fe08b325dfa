/* profile.c: motion profiles of prescribed joints: q(t), v(t), vdot(t) on the joint's group. */
#include "profile.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HG_PI 3.14159265358979323846

/* a spherical joint, for the rotation part of a free joint's chart */
static const hg_joint sph = {.type = HG_JOINT_SPHERICAL};

/* ---- the derivative of the right Jacobian of SO(3) along a path ---- */

/* c = (t - sin t)/t^3 and the derivatives of b = (1 - cos t)/t^2 and c in t2 = t^2:
 *   db = (a - 2b) / (2 t^2),  dc = (b - 3c) / (2 t^2),  a = sin(t)/t,
 * by their Taylor series below t = 1 (ten terms, truncation < 1e-19 relative), closed forms above:
 *   b = sum_k (-1)^k t2^k / (2k+2)!,  c = sum_k (-1)^k t2^k / (2k+3)!. */
static void jr_rate_coefficients(double t2, double *c, double *db, double *dc) {
  if (t2 < 1) {
    double fb = 0.5, fc = 1.0 / 6, pw = 1; /* fb = 1/(2k+2)!, fc = 1/(2k+3)!, pw = (-t2)^(k-1) */
    *c = fc;
    *db = *dc = 0;
    for (int k = 1; k <= 10; k++) {
      fb /= (2 * k + 1) * (2 * k + 2);
      fc /= (2 * k + 2) * (2 * k + 3);
      *c -= pw * t2 * fc;
      *db -= k * pw * fb;
      *dc -= k * pw * fc;
      pw *= -t2;
    }
  } else {
    double t = sqrt(t2), s = sin(t), h = sin(0.5 * t);
    double a = s / t, b = 2 * h * h / t2;
    *c = (t - s) / (t2 * t);
    *db = (a - 2 * b) / (2 * t2);
    *dc = (b - 3 * *c) / (2 * t2);
  }
}

/* out = (d/dt J_r(w)) wd along a path w(t) with rate wd.
 * From J_r(w) u = u - b w x u + c w x (w x u) with u = wd held fixed (wd x wd = 0):
 *   out = -2 (w.wd) db (w x wd) + 2 (w.wd) dc w x (w x wd) + c wd x (w x wd).
 * (This helper may belong in spatial.c, next to hg_so3_jr.) */
static void so3_jr_rate(const double w[3], const double wd[3], double out[3]) {
  double c, db, dc, wxd[3], wwxd[3], dwxd[3];
  jr_rate_coefficients(hg_v3_dot(w, w), &c, &db, &dc);
  double r = 2 * hg_v3_dot(w, wd);
  hg_v3_cross(w, wd, wxd);
  hg_v3_cross(w, wxd, wwxd);
  hg_v3_cross(wd, wxd, dwxd);
  for (int i = 0; i < 3; i++) out[i] = -r * db * wxd[i] + r * dc * wwxd[i] + c * dwxd[i];
}

/* body angular velocity and acceleration of R = R_ref exp(w(t)):
 *   om = J_r(w) wd,  omd = J_r(w) wdd + (d/dt J_r(w)) wd */
static void so3_chart_rates(const double w[3], const double wd[3], const double wdd[3],
                            double om[3], double omd[3]) {
  double J[9], dJ[3];
  hg_so3_jr(w, J);
  hg_m3_mulv(J, wd, om);
  hg_m3_mulv(J, wdd, omd);
  so3_jr_rate(w, wd, dJ);
  for (int i = 0; i < 3; i++) omd[i] += dJ[i];
}

/* ---- construction ---- */

/* NULL, with the reason in *why */
static hg_profile *fail(const char **why, const char *msg) {
  if (why) *why = msg;
  return NULL;
}

/* 1 when x[0..n-1] are all finite */
static int finite_vec(const double *x, int n) {
  for (int i = 0; i < n; i++)
    if (!isfinite(x[i])) return 0;
  return 1;
}

/* out = q with its quaternion normalized; -1 with a reason when q is not a valid configuration */
static int copy_config(const hg_joint *j, const double *q, double *out, const char **why) {
  int nq = hg_joint_nq(j->type), iq = j->type == HG_JOINT_FREE ? 3 : 0;
  if (!q || !finite_vec(q, nq)) {
    if (why) *why = "configuration is missing or not finite";
    return -1;
  }
  memcpy(out, q, (size_t)nq * sizeof(double));
  if (j->type != HG_JOINT_SPHERICAL && j->type != HG_JOINT_FREE) return 0;
  if (fabs(hg_quat_normalize(out + iq) - 1) > 1e-6) {
    if (why) *why = "quaternion is not of unit length";
    return -1;
  }
  return 0;
}

/* a zeroed profile of a valid joint with room for q0, dir and n spline samples */
static hg_profile *profile_new(hg_profile_kind kind, const hg_joint *j, double t0, int n,
                               const char **why) {
  if (!j || (unsigned)j->type >= HG_JOINT_NTYPES) return fail(why, "unknown joint type");
  if (j->type == HG_JOINT_FIXED) return fail(why, "a fixed joint has no motion to prescribe");
  if (!isfinite(t0)) return fail(why, "start time is not finite");
  int nq = hg_joint_nq(j->type), nv = hg_joint_nv(j->type);
  size_t count = (size_t)nq + (size_t)nv + (size_t)n * (1 + 2 * (size_t)nv);
  hg_profile *p = calloc(1, sizeof *p + count * sizeof(double));
  if (!p) return fail(why, "out of memory");
  double *mem = (double *)(p + 1);
  p->kind = kind;
  p->jnt = *j;
  p->nq = nq;
  p->nv = nv;
  p->t0 = t0;
  p->n = n;
  p->q0 = mem;
  p->dir = mem + nq;
  p->time = mem + nq + nv;
  p->xi = p->time + n;
  p->ddxi = p->xi + (size_t)n * (size_t)nv;
  return p;
}

/* a path profile from q0 (the kinds other than the spline), or NULL */
static hg_profile *path_new(hg_profile_kind kind, const hg_joint *j, double t0, const double *q0,
                            const char **why) {
  hg_profile *p = profile_new(kind, j, t0, 0, why);
  if (p && copy_config(j, q0, p->q0, why)) {
    hg_profile_free(p);
    return NULL;
  }
  return p;
}

hg_profile *hg_profile_hold(const hg_joint *j, double t0, const double *q0, const char **why) {
  return path_new(HG_PROFILE_HOLD, j, t0, q0, why);
}

hg_profile *hg_profile_velocity(const hg_joint *j, double t0, const double *q0, const double *v,
                                const char **why) {
  hg_profile *p = path_new(HG_PROFILE_VELOCITY, j, t0, q0, why);
  if (!p) return NULL;
  if (!v || !finite_vec(v, p->nv)) {
    hg_profile_free(p);
    return fail(why, "velocity is missing or not finite");
  }
  memcpy(p->dir, v, (size_t)p->nv * sizeof(double));
  return p;
}

hg_profile *hg_profile_move(const hg_joint *j, double t0, const double *q0, const double *q1,
                            double T, const char **why) {
  double target[HG_JOINT_MAXNQ];
  hg_profile *p = path_new(HG_PROFILE_MOVE, j, t0, q0, why);
  if (!p) return NULL;
  if (copy_config(j, q1, target, why)) {
    hg_profile_free(p);
    return NULL;
  }
  if (!(T > 0) || !isfinite(T)) {
    hg_profile_free(p);
    return fail(why, "move duration must be positive and finite");
  }
  /* dq = q1 (-) q0: the shortest path on the group */
  hg_joint_difference(j, p->q0, target, p->dir);
  p->T = T;
  return p;
}

hg_profile *hg_profile_sinusoid(const hg_joint *j, double t0, const double *q0, const double *A,
                                double w, double phi, const char **why) {
  hg_profile *p = path_new(HG_PROFILE_SINUSOID, j, t0, q0, why);
  if (!p) return NULL;
  if (!A || !finite_vec(A, p->nv) || !isfinite(w) || !isfinite(phi)) {
    hg_profile_free(p);
    return fail(why, "amplitude, frequency or phase is missing or not finite");
  }
  memcpy(p->dir, A, (size_t)p->nv * sizeof(double));
  p->w = w;
  p->phi = phi;
  /* by hg_sincos, as hg_profile_eval's: at t0 the two agree bit for bit and s = 0 */
  double cos_phi;
  hg_sincos(phi, &p->sin_phi, &cos_phi);
  return p;
}

/* w = the representative (|w| + 2 pi m) w/|w| of the same rotation nearest prev: m rounds
 * (n.prev - |w|) / 2pi. An identity rotation (|w| below rounding) takes the axis of prev. */
static void unwrap_rotation(const double prev[3], double w[3]) {
  double t = hg_v3_norm(w), tp = hg_v3_norm(prev), n[3];
  if (t > 1e-12) {
    for (int i = 0; i < 3; i++) n[i] = w[i] / t;
  } else if (tp > 0) {
    for (int i = 0; i < 3; i++) n[i] = prev[i] / tp;
    t = hg_v3_dot(w, n);
  } else {
    return;
  }
  double m = round((hg_v3_dot(n, prev) - t) / (2 * HG_PI));
  for (int i = 0; i < 3; i++) w[i] = (t + 2 * HG_PI * m) * n[i];
}

/* xi = chart coordinates of sample q about q_ref (rotations unwrapped towards prev) */
static void spline_chart(const hg_joint *j, const double *qref, const double *q, const double *prev,
                         double *xi) {
  if (j->type == HG_JOINT_SPHERICAL) {
    hg_joint_difference(&sph, qref, q, xi);
    unwrap_rotation(prev, xi);
  } else if (j->type == HG_JOINT_FREE) {
    for (int i = 0; i < 3; i++) xi[i] = q[i] - qref[i];
    hg_joint_difference(&sph, qref + 3, q + 3, xi + 3);
    unwrap_rotation(prev + 3, xi + 3);
  } else {
    hg_joint_difference(j, qref, q, xi);
  }
}

/* Second derivatives M_k (stride nc) of the cubic spline through (t_k, y_k), y_k = y[nc k], with
 * zero end slopes: with h_k = t_k+1 - t_k and d_k = (y_k+1 - y_k) / h_k, the tridiagonal system
 *   h_k-1 M_k-1 + 2 (h_k-1 + h_k) M_k + h_k M_k+1 = 6 (d_k - d_k-1),
 * where h_-1 = h_n-1 = 0 and the end slopes d_-1 = d_n-1 = 0, solved by the Thomas algorithm
 * (diagonally dominant). cp: n numbers of scratch. */
static void spline_solve(int n, const double *t, const double *y, int nc, double *M, double *cp) {
  double dprev = 0;
  for (int k = 0; k < n; k++) {
    double lo = k > 0 ? t[k] - t[k - 1] : 0, hi = k < n - 1 ? t[k + 1] - t[k] : 0;
    double d = k < n - 1 ? (y[nc * (k + 1)] - y[nc * k]) / hi : 0;
    double diag = 2 * (lo + hi) - (k > 0 ? lo * cp[k - 1] : 0);
    double rhs = 6 * (d - dprev) - (k > 0 ? lo * M[nc * (k - 1)] : 0);
    cp[k] = hi / diag;
    M[nc * k] = rhs / diag;
    dprev = d;
  }
  for (int k = n - 2; k >= 0; k--) M[nc * k] -= cp[k] * M[nc * (k + 1)];
}

hg_profile *hg_profile_spline(const hg_joint *j, int n, const double *times, const double *qs,
                              const char **why) {
  if (n < 2) return fail(why, "a spline needs at least 2 samples");
  if (!times || !qs) return fail(why, "spline samples are missing");
  for (int k = 0; k < n; k++)
    if (!isfinite(times[k]) || (k > 0 && !(times[k] > times[k - 1])))
      return fail(why, "spline times are not finite and strictly increasing");
  hg_profile *p = profile_new(HG_PROFILE_SPLINE, j, times[0], n, why);
  if (!p) return NULL;
  int nq = p->nq, nc = p->nv;
  double q[HG_JOINT_MAXNQ], *cp = malloc((size_t)n * sizeof(double));
  if (!cp) {
    hg_profile_free(p);
    return fail(why, "out of memory");
  }
  memcpy(p->time, times, (size_t)n * sizeof(double));
  /* chart about the first sample: xi_0 = 0, xi_k = q_k (-) q_ref, rotations unwrapped */
  int bad = copy_config(j, qs, p->q0, why);
  for (int k = 1; k < n && !bad; k++) {
    bad = copy_config(j, qs + (size_t)nq * (size_t)k, q, why);
    if (!bad) spline_chart(j, p->q0, q, p->xi + nc * (k - 1), p->xi + nc * k);
  }
  /* spline coefficients, coordinate by coordinate */
  for (int i = 0; i < nc && !bad; i++) spline_solve(n, p->time, p->xi + i, nc, p->ddxi + i, cp);
  free(cp);
  if (bad) {
    hg_profile_free(p);
    return NULL;
  }
  return p;
}

void hg_profile_free(hg_profile *p) { free(p); }

/* ---- evaluation ---- */

/* a path q = q0 (+) s dir: v = sd dir and vdot = sdd dir exactly, since J_r(s dir) dir = dir */
static void eval_path(const hg_profile *p, double s, double sd, double sdd, double *q, double *v,
                      double *vdot) {
  if (q && s == 0) memcpy(q, p->q0, (size_t)p->nq * sizeof(double));
  if (q && s != 0) hg_joint_integrate(&p->jnt, p->q0, p->dir, s, q);
  for (int k = 0; k < p->nv; k++) {
    if (v) v[k] = sd * p->dir[k];
    if (vdot) vdot[k] = sdd * p->dir[k];
  }
}

/* the spline's chart coordinates x, rates xd and accelerations xdd (nv each) at t, held constant
 * outside [t_0, t_n-1]. On segment k, with h = t_k+1 - t_k, A = (t_k+1 - t)/h, B = 1 - A:
 *   x = A x_k + B x_k+1 + ((A^3 - A) M_k + (B^3 - B) M_k+1) h^2/6
 *   xd = (x_k+1 - x_k)/h - (3A^2 - 1) h/6 M_k + (3B^2 - 1) h/6 M_k+1
 *   xdd = A M_k + B M_k+1 */
static void spline_coords(const hg_profile *p, double t, double *x, double *xd, double *xdd) {
  const double *tk = p->time;
  int n = p->n, nc = p->nv, lo = 0, hi = n - 1, out = t < tk[0] || t > tk[n - 1];
  t = fmin(fmax(t, tk[0]), tk[n - 1]);
  /* segment by bisection: tk[lo] <= t <= tk[lo + 1] */
  while (hi - lo > 1) {
    int mid = (lo + hi) / 2;
    if (tk[mid] <= t) lo = mid;
    else hi = mid;
  }
  double h = tk[lo + 1] - tk[lo], A = (tk[lo + 1] - t) / h, B = (t - tk[lo]) / h;
  const double *x0 = p->xi + nc * lo, *x1 = x0 + nc, *M0 = p->ddxi + nc * lo, *M1 = M0 + nc;
  for (int i = 0; i < nc; i++) {
    x[i] = A * x0[i] + B * x1[i] + ((A * A * A - A) * M0[i] + (B * B * B - B) * M1[i]) * h * h / 6;
    xd[i] = (x1[i] - x0[i]) / h - (3 * A * A - 1) * h / 6 * M0[i] + (3 * B * B - 1) * h / 6 * M1[i];
    xdd[i] = A * M0[i] + B * M1[i];
    if (out) xd[i] = xdd[i] = 0;
  }
}

/* the spline mapped to the group:
 *   Euclidean  q = q_ref + x,          v = xd,                vdot = xdd
 *   spherical  q = q_ref exp(x),       w = J_r(x) xd,         wdot = J_r(x) xdd + (d/dt J_r(x)) xd
 *   free       p = p_ref + x_p,        R = R_ref exp(x_w),    w and wdot as spherical,
 *              v_b = R^T pd,           v_b dot = R^T pdd - w x v_b   (since d/dt R^T = -w^ R^T) */
static void eval_spline(const hg_profile *p, double t, double *q, double *v, double *vdot) {
  double x[HG_JOINT_MAXNV], xd[HG_JOINT_MAXNV], xdd[HG_JOINT_MAXNV], w[3], wd[3];
  spline_coords(p, t, x, xd, xdd);
  if (p->jnt.type == HG_JOINT_SPHERICAL) {
    so3_chart_rates(x, xd, xdd, w, wd);
    if (q) hg_joint_integrate(&sph, p->q0, x, 1, q);
    if (v) memcpy(v, w, sizeof w);
    if (vdot) memcpy(vdot, wd, sizeof wd);
  } else if (p->jnt.type == HG_JOINT_FREE) {
    double R[9], vb[3], ab[3], qq[7];
    for (int i = 0; i < 3; i++) qq[i] = p->q0[i] + x[i];
    hg_joint_integrate(&sph, p->q0 + 3, x + 3, 1, qq + 3);
    so3_chart_rates(x + 3, xd + 3, xdd + 3, w, wd);
    hg_quat_to_R(qq + 3, R);
    hg_m3_mulTv(R, xd, vb);
    hg_m3_mulTv(R, xdd, ab);
    hg_v3_cross_add(vb, w, ab);
    if (q) memcpy(q, qq, 7 * sizeof(double));
    for (int i = 0; i < 3; i++) {
      if (v) v[i] = w[i], v[3 + i] = vb[i];
      if (vdot) vdot[i] = wd[i], vdot[3 + i] = ab[i];
    }
  } else {
    if (q) hg_joint_integrate(&p->jnt, p->q0, x, 1, q);
    if (v) memcpy(v, xd, (size_t)p->nv * sizeof(double));
    if (vdot) memcpy(vdot, xdd, (size_t)p->nv * sizeof(double));
  }
}

void hg_profile_eval(const hg_profile *p, double t, double *q, double *v, double *vdot) {
  double u = t - p->t0;
  switch (p->kind) {
  case HG_PROFILE_HOLD:
    eval_path(p, 0, 0, 0, q, v, vdot);
    break;
  case HG_PROFILE_VELOCITY:
    eval_path(p, u, 1, 0, q, v, vdot);
    break;
  case HG_PROFILE_MOVE: {
    /* s = 10 tau^3 - 15 tau^4 + 6 tau^5, ds/dtau = 30 tau^2 (1 - tau)^2,
     * d2s/dtau2 = 60 tau (1 - tau)(1 - 2 tau) */
    double T = p->T, tau = fmin(fmax(u / T, 0), 1), r = 1 - tau;
    double s = tau * tau * tau * (10 - 15 * tau + 6 * tau * tau);
    eval_path(p, s, 30 * tau * tau * r * r / T, 60 * tau * r * (1 - 2 * tau) / (T * T), q, v, vdot);
    break;
  }
  case HG_PROFILE_SINUSOID: {
    /* s = sin(w u + phi) - sin(phi), s' = w cos(w u + phi), s'' = -w^2 sin(w u + phi) */
    double sa, ca;
    hg_sincos(p->w * u + p->phi, &sa, &ca);
    eval_path(p, sa - p->sin_phi, p->w * ca, -p->w * p->w * sa, q, v, vdot);
    break;
  }
  case HG_PROFILE_SPLINE:
    eval_spline(p, t, q, v, vdot);
    break;
  }
}

/* ---- the prescribed part of a model state ---- */

int hg_profiles_apply(const hg_model *m, hg_data *d, hg_profile *const *per_joint, double t,
                      double *q, double *v, double *qdd) {
  int rc = 0;
  for (int i = 1; i < m->nbody; i++) {
    /* free joints first out (the common case): nothing to look up for them */
    int mode = d->mode[i];
    if (mode == HG_MODE_FREE) continue;
    const hg_profile *p = per_joint ? per_joint[i] : NULL;
    double *qi = q ? q + m->q_adr[i] : NULL, *vi = v ? v + m->v_adr[i] : NULL;
    double *ai = qdd ? qdd + m->v_adr[i] : NULL;
    size_t size = (size_t)m->jnt_nv[i] * sizeof(double);
    /* locked: at rest relative to the parent, q kept */
    if (mode == HG_MODE_LOCKED) {
      if (vi) memset(vi, 0, size);
      if (ai) memset(ai, 0, size);
      continue;
    }
    if (mode != HG_MODE_PRESCRIBED || !p) continue;
    /* prescribed: the profile's q(t), v(t), vdot(t) */
    if (p->jnt.type != m->jnt[i].type) {
      snprintf(d->err, sizeof d->err, "profile of joint %d (%s) is for a %s joint", i,
               hg_joint_type_name(m->jnt[i].type), hg_joint_type_name(p->jnt.type));
      rc = -1;
      continue;
    }
    hg_profile_eval(p, t, qi, vi, ai);
  }
  return rc;
}
