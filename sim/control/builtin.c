/* builtin.c: the built-in controllers attitude_pd, joint_pd and thruster_logic (builtin.h). */
#include "builtin.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spatial.h"

/* ---- shared helpers ---- */

/* writes the message into err and returns -1 */
static int fail(char *err, size_t errlen, const char *fmt, ...) {
  if (err && errlen > 0) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
  }
  return -1;
}

/* the parameter of that name, or NULL */
static const hg_control_param *find_param(const hg_control_setup *s, const char *name) {
  for (int i = 0; i < s->nparam; i++)
    if (s->param[i].name && strcmp(s->param[i].name, name) == 0) return &s->param[i];
  return NULL;
}

/* the setup is of this ABI, and every parameter is one of names (NULL-terminated), given once */
static int check_names(const char *type, const hg_control_setup *s, const char *const *names,
                       char *err, size_t errlen) {
  if (s->abi != HG_CONTROL_ABI)
    return fail(err, errlen, "%s: setup for controller ABI %d (this is ABI %d)", type, s->abi,
                HG_CONTROL_ABI);
  for (int i = 0; i < s->nparam; i++) {
    const char *name = s->param[i].name ? s->param[i].name : "(null)";
    int known = 0;
    for (int k = 0; names[k]; k++) known |= strcmp(names[k], name) == 0;
    if (!known) {
      char list[256] = "";
      size_t used = 0;
      for (int k = 0; names[k] && used < sizeof list; k++)
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", k ? ", " : "", names[k]);
      return fail(err, errlen, "%s: unknown parameter '%s' (it takes: %s)", type, name, list);
    }
    for (int j = 0; j < i; j++)
      if (s->param[j].name && strcmp(s->param[j].name, name) == 0)
        return fail(err, errlen, "%s: parameter '%s' given twice", type, name);
  }
  return 0;
}

/* the numbers of a parameter must be finite (inf allowed when allow_inf) and >= lo (> lo when
 * strict) */
static int check_values(const char *type, const char *name, int n, const double *v, double lo,
                        int strict, int allow_inf, char *err, size_t errlen) {
  if (n > 0 && !v) return fail(err, errlen, "%s: parameter '%s' has no numbers", type, name);
  for (int i = 0; i < n; i++) {
    if (isnan(v[i]) || (!allow_inf && isinf(v[i])))
      return fail(err, errlen, "%s: parameter '%s'[%d] = %g is not a finite number", type, name,
                  i, v[i]);
    if (strict ? !(v[i] > lo) : !(v[i] >= lo))
      return fail(err, errlen, "%s: parameter '%s'[%d] = %g must be %s %g", type, name, i, v[i],
                  strict ? ">" : ">=", lo);
  }
  return 0;
}

/* a parameter of 1 or m numbers spread to m (dst), checked as check_values */
static int spread(const char *type, const char *name, int n, const double *v, int m, double lo,
                  int strict, int allow_inf, double *dst, char *err, size_t errlen) {
  if (n != 1 && n != m)
    return fail(err, errlen, "%s: parameter '%s' has %d numbers (expected 1 or %d)", type, name,
                n, m);
  if (check_values(type, name, n, v, lo, strict, allow_inf, err, errlen)) return -1;
  for (int i = 0; i < m; i++) dst[i] = v[n == 1 ? 0 : i];
  return 0;
}

/* the text of a parameter given as a string has no numbers */
static int numbers_of(const char *type, const hg_control_param *p, char *err, size_t errlen) {
  if (p->n <= 0)
    return fail(err, errlen, "%s: parameter '%s' must be numbers, not a string", type, p->name);
  return 0;
}

/* r = conj(q) */
static void quat_conj(const double q[4], double r[4]) {
  r[0] = q[0], r[1] = -q[1], r[2] = -q[2], r[3] = -q[3];
}

/* y = R(q) x for a unit quaternion q (x and y may not alias) */
static void quat_rotate(const double q[4], const double x[3], double y[3]) {
  double R[9];
  hg_quat_to_R(q, R);
  hg_m3_mulv(R, x, y);
}

static int is_identity(const double q[4]) {
  return q[0] == 1 && q[1] == 0 && q[2] == 0 && q[3] == 0;
}

/* ==== attitude_pd ==== */

static const char *const attitude_params[] = {"kp",        "kd",           "target",     "max_rate",
                                              "max_torque", "input_frames", "wheel_axes", NULL};

typedef struct attitude_pd {
  double dt;                 /* sample period 1/rate, s */
  int att_kind;              /* 0 star_tracker, 1 pose */
  int att_off, rate_off;     /* offsets of the attitude and rate inputs in `in` */
  double q_bs_att[4];        /* body<-sensor of the attitude sensor */
  double q_bs_rate[4];       /* body<-sensor of the rate sensor */
  int nwheel;                /* wheels, or 0 with one controller output */
  int ctl_off;               /* the controller output's offset (nwheel == 0) */
  int *wheel_off;            /* each wheel's offset in `out` */
  double *pinv;              /* A^+ (nwheel x 3, row-major) */
  /* parameters set can change */
  double target_conj[4];     /* conj(target): body-target<-world */
  double target[4];
  double kp[3], kd[3], max_rate, max_torque;
  /* evolving state */
  int have_q;                /* an attitude estimate exists */
  double q[4];               /* the estimate world<-body */
  int have_tel;
  double tel[7];             /* telemetry of the last step */
} attitude_pd;

/* checks and applies one settable parameter to a (init and set) */
static int attitude_apply(attitude_pd *a, const char *name, int n, const double *v, char *err,
                          size_t errlen) {
  static const char *T = "attitude_pd";
  if (strcmp(name, "kp") == 0) return spread(T, name, n, v, 3, 0, 0, 0, a->kp, err, errlen);
  if (strcmp(name, "kd") == 0) return spread(T, name, n, v, 3, 0, 0, 0, a->kd, err, errlen);
  if (strcmp(name, "target") == 0) {
    if (n != 4)
      return fail(err, errlen, "%s: parameter 'target' has %d numbers (expected 4: qw qx qy qz)",
                  T, n);
    if (check_values(T, name, 4, v, -INFINITY, 0, 0, err, errlen)) return -1;
    double q[4] = {v[0], v[1], v[2], v[3]};
    double norm = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (!(norm > 1e-12) || !isfinite(norm))
      return fail(err, errlen, "%s: parameter 'target' is not a quaternion (norm %g)", T, norm);
    if (fabs(norm - 1) > 1e-9) hg_quat_normalize(q);
    memcpy(a->target, q, sizeof q);
    quat_conj(q, a->target_conj);
    return 0;
  }
  if (strcmp(name, "max_rate") == 0 || strcmp(name, "max_torque") == 0) {
    if (n != 1)
      return fail(err, errlen, "%s: parameter '%s' has %d numbers (expected 1)", T, name, n);
    if (check_values(T, name, 1, v, 0, 1, 1, err, errlen)) return -1;
    if (name[4] == 'r') a->max_rate = v[0];
    else a->max_torque = v[0];
    return 0;
  }
  return fail(err, errlen, "%s: parameter '%s' cannot be set (it takes: kp, kd, target, "
              "max_rate, max_torque)", T, name);
}

/* a finite max_rate divides by kd: every kd must be positive */
static int attitude_check_rate(const attitude_pd *a, char *err, size_t errlen) {
  if (isfinite(a->max_rate))
    for (int i = 0; i < 3; i++)
      if (!(a->kd[i] > 0))
        return fail(err, errlen, "attitude_pd: a finite max_rate needs kd > 0 on every axis "
                    "(kd[%d] = %g)", i, a->kd[i]);
  return 0;
}

void hg_attitude_pd_finish(void *state) {
  attitude_pd *a = state;
  if (!a) return;
  free(a->wheel_off);
  free(a->pinv);
  free(a);
}

int hg_attitude_pd_init(const hg_control_setup *s, void **state, char *err, size_t errlen) {
  static const char *T = "attitude_pd";
  *state = NULL;
  if (check_names(T, s, attitude_params, err, errlen)) return -1;
  if (!(s->rate > 0) || !isfinite(s->rate))
    return fail(err, errlen, "%s: rate %g Hz must be positive and finite", T, s->rate);
  attitude_pd *a = calloc(1, sizeof *a);
  if (!a) return fail(err, errlen, "%s: out of memory", T);
  a->dt = 1 / s->rate;
  a->max_rate = INFINITY, a->max_torque = INFINITY;
  a->target[0] = 1, a->target_conj[0] = 1;
  a->q_bs_att[0] = 1, a->q_bs_rate[0] = 1;
  /* inputs: an attitude source, then a rate source */
  if (s->ninput != 2) {
    fail(err, errlen, "%s: needs 2 inputs (star_tracker or pose, then gyro or twist), got %d", T,
         s->ninput);
    goto bad;
  }
  const hg_control_port *ia = &s->input[0], *ir = &s->input[1];
  if (strcmp(ia->kind, "star_tracker") == 0 && ia->n == 5) a->att_kind = 0;
  else if (strcmp(ia->kind, "pose") == 0 && ia->n == 7) a->att_kind = 1;
  else {
    fail(err, errlen, "%s: input 1 '%s' is of kind '%s' with n = %d (expected star_tracker with "
         "n = 5 or pose with n = 7)", T, ia->name, ia->kind, ia->n);
    goto bad;
  }
  if (!((strcmp(ir->kind, "gyro") == 0 && ir->n == 3) ||
        (strcmp(ir->kind, "twist") == 0 && ir->n == 6))) {
    fail(err, errlen, "%s: input 2 '%s' is of kind '%s' with n = %d (expected gyro with n = 3 "
         "or twist with n = 6)", T, ir->name, ir->kind, ir->n);
    goto bad;
  }
  a->att_off = ia->offset, a->rate_off = ir->offset;
  /* gains and limits */
  const char *need[2] = {"kp", "kd"};
  for (int k = 0; k < 2; k++)
    if (!find_param(s, need[k])) {
      fail(err, errlen, "%s: parameter '%s' is required (N m%s/rad, 1 or 3 numbers)", T, need[k],
           k ? " s" : "");
      goto bad;
    }
  for (int i = 0; i < s->nparam; i++) {
    const hg_control_param *p = &s->param[i];
    if (strcmp(p->name, "input_frames") == 0 || strcmp(p->name, "wheel_axes") == 0) continue;
    if (numbers_of(T, p, err, errlen) || attitude_apply(a, p->name, p->n, p->value, err, errlen))
      goto bad;
  }
  if (attitude_check_rate(a, err, errlen)) goto bad;
  /* the sensors' mountings */
  const hg_control_param *fr = find_param(s, "input_frames");
  if (fr) {
    if (fr->n != 4 * s->ninput) {
      fail(err, errlen, "%s: parameter 'input_frames' has %d numbers (expected 4 per input: %d)",
           T, fr->n, 4 * s->ninput);
      goto bad;
    }
    if (check_values(T, fr->name, fr->n, fr->value, -INFINITY, 0, 0, err, errlen)) goto bad;
    double *dst[2] = {a->q_bs_att, a->q_bs_rate};
    for (int k = 0; k < 2; k++) {
      memcpy(dst[k], fr->value + 4 * k, 4 * sizeof(double));
      double norm = hg_quat_normalize(dst[k]);
      if (!(norm > 1e-12)) {
        fail(err, errlen, "%s: input_frames of input %d is not a quaternion", T, k + 1);
        goto bad;
      }
    }
  }
  /* outputs: wheels, or one controller port */
  if (s->noutput == 1 && strcmp(s->output[0].kind, "controller") == 0) {
    if (s->output[0].n != 3) {
      fail(err, errlen, "%s: output '%s' of kind controller has n = %d (expected 3: the torque "
           "demand)", T, s->output[0].name, s->output[0].n);
      goto bad;
    }
    a->ctl_off = s->output[0].offset;
    if (find_param(s, "wheel_axes")) {
      fail(err, errlen, "%s: parameter 'wheel_axes' given without wheel outputs", T);
      goto bad;
    }
  } else {
    int n = s->noutput;
    for (int k = 0; k < n; k++)
      if (strcmp(s->output[k].kind, "reaction_wheel") != 0 || s->output[k].n != 1) {
        fail(err, errlen, "%s: output %d '%s' is of kind '%s' with n = %d (expected "
             "reaction_wheel with n = 1, or a single controller output with n = 3)", T, k + 1,
             s->output[k].name, s->output[k].kind, s->output[k].n);
        goto bad;
      }
    if (n < 3) {
      fail(err, errlen, "%s: %d reaction wheel outputs cannot make a torque about every axis "
           "(at least 3, or one controller output)", T, n);
      goto bad;
    }
    const hg_control_param *wa = find_param(s, "wheel_axes");
    if (!wa || wa->n != 3 * n) {
      fail(err, errlen, "%s: parameter 'wheel_axes' has %d numbers (expected 3 per wheel: %d)", T,
           wa ? wa->n : 0, 3 * n);
      goto bad;
    }
    if (check_values(T, wa->name, wa->n, wa->value, -INFINITY, 0, 0, err, errlen)) goto bad;
    a->nwheel = n;
    a->wheel_off = malloc((size_t)n * sizeof *a->wheel_off);
    a->pinv = malloc((size_t)n * 3 * sizeof *a->pinv);
    if (!a->wheel_off || !a->pinv) {
      fail(err, errlen, "%s: out of memory", T);
      goto bad;
    }
    const double *A = wa->value; /* a_k = A[3k .. 3k+2] */
    double M[9] = {0};
    for (int k = 0; k < n; k++) {
      a->wheel_off[k] = s->output[k].offset;
      double len = hg_v3_norm(A + 3 * k);
      if (fabs(len - 1) > 1e-6) {
        fail(err, errlen, "%s: wheel_axes of wheel %d has length %g (expected a unit vector)", T,
             k + 1, len);
        goto bad;
      }
      /* M = A A^T = sum_k a_k a_k^T */
      for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) M[3 * i + j] += A[3 * k + i] * A[3 * k + j];
    }
    double tr = M[0] + M[4] + M[8];
    /* det(M) by cofactors; its inverse by the adjugate */
    double c00 = M[4] * M[8] - M[5] * M[7], c01 = M[5] * M[6] - M[3] * M[8],
           c02 = M[3] * M[7] - M[4] * M[6];
    double det = M[0] * c00 + M[1] * c01 + M[2] * c02;
    if (!(det > 1e-9 * (tr / 3) * (tr / 3) * (tr / 3))) {
      fail(err, errlen, "%s: the wheel axes span fewer than 3 dimensions (rank < 3: det(A A^T) = "
           "%g)", T, det);
      goto bad;
    }
    double Mi[9] = {c00 / det,
                    (M[2] * M[7] - M[1] * M[8]) / det,
                    (M[1] * M[5] - M[2] * M[4]) / det,
                    c01 / det,
                    (M[0] * M[8] - M[2] * M[6]) / det,
                    (M[2] * M[3] - M[0] * M[5]) / det,
                    c02 / det,
                    (M[1] * M[6] - M[0] * M[7]) / det,
                    (M[0] * M[4] - M[1] * M[3]) / det};
    /* A^+ = A^T (A A^T)^-1: row k is a_k^T M^-1 */
    for (int k = 0; k < n; k++)
      for (int j = 0; j < 3; j++)
        a->pinv[3 * k + j] = A[3 * k] * Mi[j] + A[3 * k + 1] * Mi[3 + j] + A[3 * k + 2] * Mi[6 + j];
  }
  *state = a;
  return 0;
bad:
  hg_attitude_pd_finish(a);
  return -1;
}

int hg_attitude_pd_step(void *state, double t, const double *in, double *out, char *err,
                        size_t errlen) {
  attitude_pd *a = state;
  /* the body rate: w_b = R(q_bs) w_s */
  const double *ws = in + a->rate_off;
  double wb[3];
  if (is_identity(a->q_bs_rate)) wb[0] = ws[0], wb[1] = ws[1], wb[2] = ws[2];
  else quat_rotate(a->q_bs_rate, ws, wb);
  /* the attitude sample world<-sensor and whether it is good */
  const double *qs = in + a->att_off + (a->att_kind == 0 ? 0 : 3);
  int valid = isfinite(qs[0]) && isfinite(qs[1]) && isfinite(qs[2]) && isfinite(qs[3]);
  if (a->att_kind == 0) valid = valid && in[a->att_off + 4] != 0 && !isnan(in[a->att_off + 4]);
  double n2 = qs[0] * qs[0] + qs[1] * qs[1] + qs[2] * qs[2] + qs[3] * qs[3];
  valid = valid && n2 > 1e-24;
  if (valid) {
    double q[4] = {qs[0], qs[1], qs[2], qs[3]};
    /* a unit quaternion is used as given; another is rescaled */
    if (fabs(sqrt(n2) - 1) > 1e-9) hg_quat_normalize(q);
    /* q_wb = q_ws (x) conj(q_bs) */
    if (is_identity(a->q_bs_att)) memcpy(a->q, q, sizeof q);
    else {
      double c[4];
      quat_conj(a->q_bs_att, c);
      hg_quat_mul(q, c, a->q);
    }
    a->have_q = 1;
  } else if (a->have_q) {
    /* dropout: q <- q (x) (1, w_b dt/2), normalized (first-order q' = q (x) (0, w_b) / 2) */
    double h = 0.5 * a->dt;
    double dq[4] = {1, wb[0] * h, wb[1] * h, wb[2] * h}, q[4];
    hg_quat_mul(a->q, dq, q);
    hg_quat_normalize(q);
    memcpy(a->q, q, sizeof q);
  } else {
    /* no attitude yet: no command */
    for (int k = 0; k < (a->nwheel ? a->nwheel : 3); k++)
      out[a->nwheel ? a->wheel_off[k] : a->ctl_off + k] = NAN;
    return 0;
  }
  /* qe = conj(target) (x) q_wb: the body seen from the target */
  double qe[4];
  hg_quat_mul(a->target_conj, a->q, qe);
  /* e = 2 sgn(qe_w) qe_vec, sgn(0) = +1 */
  double g = qe[0] >= 0 ? 2.0 : -2.0;
  double e[3] = {g * qe[1], g * qe[2], g * qe[3]};
  /* p = kp e */
  double p[3] = {a->kp[0] * e[0], a->kp[1] * e[1], a->kp[2] * e[2]};
  if (isfinite(a->max_rate)) {
    /* r = p / kd, the commanded rate of approach; |r| <= max_rate by scaling p */
    double r[3] = {p[0] / a->kd[0], p[1] / a->kd[1], p[2] / a->kd[2]};
    double rn = hg_v3_norm(r);
    if (rn > a->max_rate) {
      double f = a->max_rate / rn;
      p[0] *= f, p[1] *= f, p[2] *= f;
    }
  }
  /* u = -p - kd w_b */
  double u[3];
  for (int i = 0; i < 3; i++) u[i] = -p[i] - a->kd[i] * wb[i];
  /* |u| <= max_torque, direction kept */
  if (isfinite(a->max_torque)) {
    double un = hg_v3_norm(u);
    if (un > a->max_torque) {
      double f = a->max_torque / un;
      u[0] *= f, u[1] *= f, u[2] *= f;
    }
  }
  /* telemetry: angle 2 atan2(|qe_vec|, |qe_w|), e, w_b */
  a->tel[0] = 2 * atan2(sqrt(qe[1] * qe[1] + qe[2] * qe[2] + qe[3] * qe[3]), fabs(qe[0]));
  for (int i = 0; i < 3; i++) a->tel[1 + i] = e[i], a->tel[4 + i] = wb[i];
  a->have_tel = 1;
  if (!a->nwheel) {
    for (int i = 0; i < 3; i++) out[a->ctl_off + i] = u[i];
    return 0;
  }
  /* tau = -A^+ u: the body feels -A tau = u */
  for (int k = 0; k < a->nwheel; k++) {
    const double *P = a->pinv + 3 * k;
    out[a->wheel_off[k]] = -(P[0] * u[0] + P[1] * u[1] + P[2] * u[2]);
  }
  return 0;
}

int hg_attitude_pd_telemetry(void *state, double out[7]) {
  attitude_pd *a = state;
  if (!a || !a->have_tel) return -1;
  memcpy(out, a->tel, sizeof a->tel);
  return 0;
}

int hg_attitude_pd_set(void *state, const char *param, int n, const double *value, char *err,
                       size_t errlen) {
  attitude_pd *a = state, copy = *a;
  if (attitude_apply(&copy, param, n, value, err, errlen) ||
      attitude_check_rate(&copy, err, errlen))
    return -1;
  *a = copy;
  return 0;
}

/* the saved numbers: target 4, kp 3, kd 3, max_rate, max_torque, have_q, q 4, have_tel, tel 7 */
#define ATTITUDE_NSAVE 25

int hg_attitude_pd_save(void *state, double *buf, int cap) {
  attitude_pd *a = state;
  if (cap < ATTITUDE_NSAVE || !buf) return ATTITUDE_NSAVE;
  double *b = buf;
  memcpy(b, a->target, 4 * sizeof(double)), b += 4;
  memcpy(b, a->kp, 3 * sizeof(double)), b += 3;
  memcpy(b, a->kd, 3 * sizeof(double)), b += 3;
  *b++ = a->max_rate, *b++ = a->max_torque, *b++ = a->have_q;
  memcpy(b, a->q, 4 * sizeof(double)), b += 4;
  *b++ = a->have_tel;
  memcpy(b, a->tel, 7 * sizeof(double));
  return ATTITUDE_NSAVE;
}

int hg_attitude_pd_load(void *state, const double *buf, int n, char *err, size_t errlen) {
  attitude_pd *a = state;
  if (n != ATTITUDE_NSAVE)
    return fail(err, errlen, "attitude_pd: a checkpoint of %d numbers (expected %d)", n,
                ATTITUDE_NSAVE);
  const double *b = buf;
  memcpy(a->target, b, 4 * sizeof(double)), b += 4;
  quat_conj(a->target, a->target_conj);
  memcpy(a->kp, b, 3 * sizeof(double)), b += 3;
  memcpy(a->kd, b, 3 * sizeof(double)), b += 3;
  a->max_rate = *b++, a->max_torque = *b++, a->have_q = *b++ != 0;
  memcpy(a->q, b, 4 * sizeof(double)), b += 4;
  a->have_tel = *b++ != 0;
  memcpy(a->tel, b, 7 * sizeof(double));
  return 0;
}

/* ==== joint_pd ==== */

static const char *const joint_params[] = {"kp", "kd", "target", "effort", NULL};

typedef struct joint_pd {
  int n;           /* joints (= outputs) */
  double rate;     /* Hz */
  int *q_off;      /* each joint's q in `in` */
  int *v_off;      /* its v in `in` (joint_state), or -1 (encoder: differenced) */
  int *ref_off;    /* its reference (q_ref, v_ref) in `in`, or -1 */
  int *out_off;    /* its motor in `out` */
  /* parameters set can change; then the evolving state */
  double *kp, *kd, *target, *effort;
  double *has_target; /* 1 when target[j] is set (given, or the first measured q) */
  double *q_prev;     /* the previous q of each joint */
  double has_prev;    /* 1 after the first step */
} joint_pd;

void hg_joint_pd_finish(void *state) {
  joint_pd *c = state;
  if (!c) return;
  free(c->q_off);
  free(c->kp);
  free(c);
}

/* checks and applies one settable parameter */
static int joint_apply(joint_pd *c, const char *name, int n, const double *v, char *err,
                       size_t errlen) {
  static const char *T = "joint_pd";
  if (strcmp(name, "kp") == 0) return spread(T, name, n, v, c->n, 0, 0, 0, c->kp, err, errlen);
  if (strcmp(name, "kd") == 0) return spread(T, name, n, v, c->n, 0, 0, 0, c->kd, err, errlen);
  if (strcmp(name, "effort") == 0)
    return spread(T, name, n, v, c->n, 0, 1, 1, c->effort, err, errlen);
  if (strcmp(name, "target") == 0) {
    if (n != c->n)
      return fail(err, errlen, "%s: parameter 'target' has %d numbers (expected one per output: "
                  "%d)", T, n, c->n);
    if (check_values(T, name, n, v, -INFINITY, 0, 0, err, errlen)) return -1;
    for (int j = 0; j < n; j++) c->target[j] = v[j], c->has_target[j] = 1;
    return 0;
  }
  return fail(err, errlen, "%s: parameter '%s' cannot be set (it takes: kp, kd, target, effort)",
              T, name);
}

int hg_joint_pd_init(const hg_control_setup *s, void **state, char *err, size_t errlen) {
  static const char *T = "joint_pd";
  *state = NULL;
  if (check_names(T, s, joint_params, err, errlen)) return -1;
  if (!(s->rate > 0) || !isfinite(s->rate))
    return fail(err, errlen, "%s: rate %g Hz must be positive and finite", T, s->rate);
  int n = s->noutput;
  if (n < 1) return fail(err, errlen, "%s: needs at least one motor output", T);
  joint_pd *c = calloc(1, sizeof *c);
  if (!c) return fail(err, errlen, "%s: out of memory", T);
  c->n = n, c->rate = s->rate;
  /* one block of ints and one of doubles */
  c->q_off = malloc((size_t)n * 4 * sizeof(int));
  c->kp = calloc((size_t)n * 6, sizeof(double));
  if (!c->q_off || !c->kp) {
    fail(err, errlen, "%s: out of memory", T);
    goto bad;
  }
  c->v_off = c->q_off + n, c->ref_off = c->q_off + 2 * n, c->out_off = c->q_off + 3 * n;
  c->kd = c->kp + n, c->target = c->kp + 2 * n, c->effort = c->kp + 3 * n;
  c->has_target = c->kp + 4 * n, c->q_prev = c->kp + 5 * n;
  for (int j = 0; j < n; j++) {
    c->effort[j] = INFINITY;
    if (strcmp(s->output[j].kind, "motor") != 0 || s->output[j].n != 1) {
      fail(err, errlen, "%s: output %d '%s' is of kind '%s' with n = %d (expected motor with "
           "n = 1)", T, j + 1, s->output[j].name, s->output[j].kind, s->output[j].n);
      goto bad;
    }
    c->out_off[j] = s->output[j].offset;
  }
  /* inputs: a joint input per output, each optionally followed by a reference */
  int j = 0;
  for (int i = 0; i < s->ninput; i++) {
    const hg_control_port *p = &s->input[i];
    if (strcmp(p->kind, "reference") == 0) {
      if (p->n != 2) {
        fail(err, errlen, "%s: input %d '%s' of kind reference has n = %d (expected 2: q_ref, "
             "v_ref)", T, i + 1, p->name, p->n);
        goto bad;
      }
      if (j == 0 || c->ref_off[j - 1] >= 0 || strcmp(s->input[i - 1].kind, "reference") == 0) {
        fail(err, errlen, "%s: input %d '%s' of kind reference does not follow a joint input "
             "(encoder or joint_state)", T, i + 1, p->name);
        goto bad;
      }
      c->ref_off[j - 1] = p->offset;
      continue;
    }
    int enc = strcmp(p->kind, "encoder") == 0, js = strcmp(p->kind, "joint_state") == 0;
    if (!enc && !js) {
      fail(err, errlen, "%s: input %d '%s' is of unknown kind '%s' (expected encoder, "
           "joint_state or reference)", T, i + 1, p->name, p->kind);
      goto bad;
    }
    if ((enc && p->n != 1) || (js && p->n != 2)) {
      fail(err, errlen, "%s: input %d '%s' of kind %s has n = %d (expected %d: joint_pd "
           "controls 1-DoF joints)", T, i + 1, p->name, p->kind, p->n, enc ? 1 : 2);
      goto bad;
    }
    if (j == n) {
      fail(err, errlen, "%s: more joint inputs than motor outputs (%d)", T, n);
      goto bad;
    }
    c->q_off[j] = p->offset;
    c->v_off[j] = js ? p->offset + 1 : -1;
    c->ref_off[j] = -1;
    j++;
  }
  if (j != n) {
    fail(err, errlen, "%s: %d joint inputs for %d motor outputs (one per output)", T, j, n);
    goto bad;
  }
  const char *need[2] = {"kp", "kd"};
  for (int k = 0; k < 2; k++)
    if (!find_param(s, need[k])) {
      fail(err, errlen, "%s: parameter '%s' is required (1 number or one per output)", T, need[k]);
      goto bad;
    }
  for (int i = 0; i < s->nparam; i++) {
    const hg_control_param *p = &s->param[i];
    if (numbers_of(T, p, err, errlen) || joint_apply(c, p->name, p->n, p->value, err, errlen))
      goto bad;
  }
  *state = c;
  return 0;
bad:
  hg_joint_pd_finish(c);
  return -1;
}

int hg_joint_pd_step(void *state, double t, const double *in, double *out, char *err,
                     size_t errlen) {
  joint_pd *c = state;
  for (int j = 0; j < c->n; j++) {
    double q = in[c->q_off[j]], v;
    if (c->v_off[j] >= 0) v = in[c->v_off[j]];
    /* v = (q_k - q_{k-1}) * rate, 0 at the first sample */
    else v = c->has_prev != 0 ? (q - c->q_prev[j]) * c->rate : 0.0;
    c->q_prev[j] = q;
    double q_ref, v_ref;
    if (c->ref_off[j] >= 0) q_ref = in[c->ref_off[j]], v_ref = in[c->ref_off[j] + 1];
    else {
      if (c->has_target[j] == 0 && !isnan(q)) c->target[j] = q, c->has_target[j] = 1;
      q_ref = c->has_target[j] != 0 ? c->target[j] : NAN, v_ref = 0.0;
    }
    /* tau = kp (q_ref - q) + kd (v_ref - v) */
    double tau = c->kp[j] * (q_ref - q) + c->kd[j] * (v_ref - v);
    /* |tau| <= effort */
    if (tau > c->effort[j]) tau = c->effort[j];
    else if (tau < -c->effort[j]) tau = -c->effort[j];
    out[c->out_off[j]] = tau;
  }
  c->has_prev = 1;
  return 0;
}

int hg_joint_pd_set(void *state, const char *param, int n, const double *value, char *err,
                    size_t errlen) {
  joint_pd *c = state;
  /* apply to a copy of the parameters, then commit */
  int m = c->n;
  double *save = malloc((size_t)m * 5 * sizeof(double));
  if (!save) return fail(err, errlen, "joint_pd: out of memory");
  memcpy(save, c->kp, (size_t)m * 5 * sizeof(double));
  int rc = joint_apply(c, param, n, value, err, errlen);
  if (rc) memcpy(c->kp, save, (size_t)m * 5 * sizeof(double));
  free(save);
  return rc;
}

/* the saved numbers: kp, kd, target, effort, has_target, q_prev (n each), has_prev */
int hg_joint_pd_save(void *state, double *buf, int cap) {
  joint_pd *c = state;
  int need = 6 * c->n + 1;
  if (cap < need || !buf) return need;
  memcpy(buf, c->kp, (size_t)c->n * 6 * sizeof(double));
  buf[6 * c->n] = c->has_prev;
  return need;
}

int hg_joint_pd_load(void *state, const double *buf, int n, char *err, size_t errlen) {
  joint_pd *c = state;
  if (n != 6 * c->n + 1)
    return fail(err, errlen, "joint_pd: a checkpoint of %d numbers (expected %d)", n,
                6 * c->n + 1);
  memcpy(c->kp, buf, (size_t)c->n * 6 * sizeof(double));
  c->has_prev = buf[6 * c->n];
  return 0;
}

/* ==== thruster_logic ==== */

static const char *const thruster_params[] = {"on",     "off",         "min_on",
                                              "pwm",    "thruster_force", "thruster_torque",
                                              NULL};

typedef struct thruster_logic {
  int m;             /* demand axes: 3 (torque) or 6 (force, torque) */
  int nt;            /* thrusters (= outputs) */
  int in_off;        /* the demand in `in` */
  int *out_off;      /* thruster k's (level, on-time) in `out` */
  double period;     /* 1/rate, s */
  signed char *serve; /* serve[k m + a] = +1, -1 (thruster k serves (a, +-)) or 0 */
  double *cabs;      /* |c_ka| (nt x m) */
  double full[2][6]; /* u_full(a, +) [0] and (a, -) [1] */
  /* parameters set can change */
  double on[6], off[6], min_on, pwm;
  int off_given;
  /* evolving state */
  double s[6];       /* trigger states */
  double *firing;    /* 1 when thruster k fired at the last sample */
  double *t_begin;   /* when its pulse began */
  double *pulses;    /* pulses begun */
} thruster_logic;

void hg_thruster_logic_finish(void *state) {
  thruster_logic *c = state;
  if (!c) return;
  free(c->out_off);
  free(c->serve);
  free(c->cabs);
  free(c);
}

/* checks and applies one settable parameter; `off` follows `on` (on/2) until given */
static int thruster_apply(thruster_logic *c, const char *name, int n, const double *v, char *err,
                          size_t errlen) {
  static const char *T = "thruster_logic";
  if (strcmp(name, "on") == 0) {
    if (spread(T, name, n, v, c->m, 0, 1, 0, c->on, err, errlen)) return -1;
    if (!c->off_given)
      for (int a = 0; a < c->m; a++) c->off[a] = c->on[a] / 2;
    return 0;
  }
  if (strcmp(name, "off") == 0) {
    if (spread(T, name, n, v, c->m, 0, 0, 0, c->off, err, errlen)) return -1;
    c->off_given = 1;
    return 0;
  }
  if (strcmp(name, "min_on") == 0 || strcmp(name, "pwm") == 0) {
    if (n != 1)
      return fail(err, errlen, "%s: parameter '%s' has %d numbers (expected 1)", T, name, n);
    if (check_values(T, name, 1, v, 0, 0, 0, err, errlen)) return -1;
    if (name[0] == 'm') c->min_on = v[0];
    else if (v[0] != 0 && v[0] != 1)
      return fail(err, errlen, "%s: parameter 'pwm' = %g (expected 0 or 1)", T, v[0]);
    else c->pwm = v[0];
    return 0;
  }
  return fail(err, errlen, "%s: parameter '%s' cannot be set (it takes: on, off, min_on, pwm)",
              T, name);
}

/* off <= on on every axis, and min_on within the period with pwm */
static int thruster_check(const thruster_logic *c, char *err, size_t errlen) {
  for (int a = 0; a < c->m; a++)
    if (!(c->off[a] <= c->on[a]))
      return fail(err, errlen, "thruster_logic: off[%d] = %g exceeds on[%d] = %g (hysteresis "
                  "needs off <= on)", a, c->off[a], a, c->on[a]);
  if (c->pwm != 0 && c->min_on > c->period)
    return fail(err, errlen, "thruster_logic: min_on %g s exceeds the period 1/rate = %g s "
                "(pwm clips the on-time to [min_on, period])", c->min_on, c->period);
  return 0;
}

int hg_thruster_logic_init(const hg_control_setup *s, void **state, char *err, size_t errlen) {
  static const char *T = "thruster_logic";
  *state = NULL;
  if (check_names(T, s, thruster_params, err, errlen)) return -1;
  if (!(s->rate > 0) || !isfinite(s->rate))
    return fail(err, errlen, "%s: rate %g Hz must be positive and finite", T, s->rate);
  if (s->ninput != 1 || strcmp(s->input[0].kind, "controller") != 0 ||
      (s->input[0].n != 3 && s->input[0].n != 6))
    return fail(err, errlen, "%s: needs one input of kind controller with 3 numbers (torque) or "
                "6 (force, torque); got %d input(s)%s%s%s", T, s->ninput,
                s->ninput ? ", the first of kind '" : "", s->ninput ? s->input[0].kind : "",
                s->ninput ? "'" : "");
  int nt = s->noutput, m = s->input[0].n;
  if (nt < 1) return fail(err, errlen, "%s: needs at least one thruster output", T);
  for (int k = 0; k < nt; k++)
    if (strcmp(s->output[k].kind, "thruster") != 0 || s->output[k].n != 2)
      return fail(err, errlen, "%s: output %d '%s' is of kind '%s' with n = %d (expected thruster "
                  "with n = 2)", T, k + 1, s->output[k].name, s->output[k].kind, s->output[k].n);
  thruster_logic *c = calloc(1, sizeof *c);
  if (!c) return fail(err, errlen, "%s: out of memory", T);
  c->m = m, c->nt = nt, c->in_off = s->input[0].offset, c->period = 1 / s->rate;
  c->out_off = malloc((size_t)nt * sizeof(int));
  c->serve = calloc((size_t)nt * (size_t)m, 1);
  c->cabs = calloc((size_t)nt * ((size_t)m + 3), sizeof(double));
  if (!c->out_off || !c->serve || !c->cabs) {
    fail(err, errlen, "%s: out of memory", T);
    goto bad;
  }
  c->firing = c->cabs + (size_t)nt * m, c->t_begin = c->firing + nt, c->pulses = c->t_begin + nt;
  for (int k = 0; k < nt; k++) c->out_off[k] = s->output[k].offset;
  /* the thrusters' geometry */
  const hg_control_param *tq = find_param(s, "thruster_torque");
  const hg_control_param *fo = find_param(s, "thruster_force");
  if (!tq || tq->n != 3 * nt) {
    fail(err, errlen, "%s: parameter 'thruster_torque' has %d numbers (expected 3 per thruster: "
         "%d)", T, tq ? tq->n : 0, 3 * nt);
    goto bad;
  }
  if (fo && fo->n != 3 * nt) {
    fail(err, errlen, "%s: parameter 'thruster_force' has %d numbers (expected 3 per thruster: "
         "%d)", T, fo->n, 3 * nt);
    goto bad;
  }
  if (m == 6 && !fo) {
    fail(err, errlen, "%s: a 6-number demand (force, torque) needs parameter 'thruster_force'", T);
    goto bad;
  }
  if (check_values(T, tq->name, tq->n, tq->value, -INFINITY, 0, 0, err, errlen) ||
      (fo && check_values(T, fo->name, fo->n, fo->value, -INFINITY, 0, 0, err, errlen)))
    goto bad;
  for (int k = 0; k < nt; k++) {
    const double *tk = tq->value + 3 * k, *fk = fo ? fo->value + 3 * k : NULL;
    for (int a = 0; a < m; a++) {
      /* c_ka and |c_k|: force for a < 3 of a 6-number demand, else torque */
      const double *vec = (m == 6 && a < 3) ? fk : tk;
      double cka = vec[m == 6 && a >= 3 ? a - 3 : a], norm = hg_v3_norm(vec);
      /* serves (a, sgn c_ka) when |c_ka| >= 0.5 |c_k| */
      if (cka != 0 && fabs(cka) >= 0.5 * norm) {
        int sg = cka > 0 ? 1 : -1;
        c->serve[k * m + a] = (signed char)sg;
        c->cabs[k * m + a] = fabs(cka);
        c->full[sg > 0 ? 0 : 1][a] += fabs(cka);
      }
    }
  }
  if (!find_param(s, "on")) {
    fail(err, errlen, "%s: parameter 'on' is required (the demand that starts firing: 1 or %d "
         "numbers)", T, m);
    goto bad;
  }
  /* `on` first so that off's default follows it */
  const hg_control_param *pon = find_param(s, "on");
  if (numbers_of(T, pon, err, errlen) || thruster_apply(c, "on", pon->n, pon->value, err, errlen))
    goto bad;
  for (int i = 0; i < s->nparam; i++) {
    const hg_control_param *p = &s->param[i];
    if (strcmp(p->name, "on") == 0 || strncmp(p->name, "thruster_", 9) == 0) continue;
    if (numbers_of(T, p, err, errlen) || thruster_apply(c, p->name, p->n, p->value, err, errlen))
      goto bad;
  }
  if (thruster_check(c, err, errlen)) goto bad;
  *state = c;
  return 0;
bad:
  hg_thruster_logic_finish(c);
  return -1;
}

int hg_thruster_logic_step(void *state, double t, const double *in, double *out, char *err,
                           size_t errlen) {
  thruster_logic *c = state;
  const double *u = in + c->in_off;
  /* the Schmitt triggers */
  for (int a = 0; a < c->m; a++) {
    double ua = u[a];
    if (isnan(ua)) {
      c->s[a] = 0;
      continue;
    }
    /* firing goes on while the demand stays at or above off on its side */
    if (c->s[a] > 0 && ua < c->off[a]) c->s[a] = 0;
    if (c->s[a] < 0 && -ua < c->off[a]) c->s[a] = 0;
    /* starting: beyond the deadband on */
    if (c->s[a] == 0) {
      if (ua > c->on[a]) c->s[a] = 1;
      else if (-ua > c->on[a]) c->s[a] = -1;
    }
  }
  double T = c->period;
  for (int k = 0; k < c->nt; k++) {
    /* selected by an axis whose trigger is on; with pwm, the longest on-time asked */
    int sel = 0;
    double on_time = 0;
    for (int a = 0; a < c->m; a++) {
      if (c->s[a] == 0 || c->serve[k * c->m + a] != (c->s[a] > 0 ? 1 : -1)) continue;
      sel = 1;
      if (c->pwm != 0) {
        /* on-time = clip(|u_a| / u_full(a, s_a) * T, min_on, T) */
        double d = fabs(u[a]) / c->full[c->s[a] > 0 ? 0 : 1][a] * T;
        if (d < c->min_on) d = c->min_on;
        if (d > T) d = T;
        if (d > on_time) on_time = d;
      }
    }
    double *o = out + c->out_off[k];
    if (sel) {
      if (c->pwm != 0) {
        c->pulses[k] += 1;
      } else {
        on_time = T;
        if (c->firing[k] == 0) c->pulses[k] += 1, c->t_begin[k] = t;
      }
      c->firing[k] = 1;
      o[0] = 1, o[1] = on_time;
    } else if (c->pwm == 0 && c->firing[k] != 0 && c->t_begin[k] + c->min_on - t > 1e-9 * T) {
      /* the pulse lasts min_on: firing goes on for what remains of it */
      double rest = c->t_begin[k] + c->min_on - t;
      o[0] = 1, o[1] = rest < T ? rest : T;
    } else {
      c->firing[k] = 0;
      o[0] = 0, o[1] = 0;
    }
  }
  return 0;
}

long hg_thruster_logic_pulses(void *state, int k) {
  thruster_logic *c = state;
  if (!c || k < 0 || k >= c->nt) return -1;
  return (long)c->pulses[k];
}

int hg_thruster_logic_set(void *state, const char *param, int n, const double *value, char *err,
                          size_t errlen) {
  thruster_logic *c = state, copy = *c;
  if (thruster_apply(&copy, param, n, value, err, errlen) || thruster_check(&copy, err, errlen))
    return -1;
  *c = copy;
  return 0;
}

/* the saved numbers: on 6, off 6, min_on, pwm, off_given, s 6, then firing, t_begin, pulses (nt
 * each) */
#define THRUSTER_NFIXED 21

int hg_thruster_logic_save(void *state, double *buf, int cap) {
  thruster_logic *c = state;
  int need = THRUSTER_NFIXED + 3 * c->nt;
  if (cap < need || !buf) return need;
  memcpy(buf, c->on, 6 * sizeof(double));
  memcpy(buf + 6, c->off, 6 * sizeof(double));
  buf[12] = c->min_on, buf[13] = c->pwm, buf[14] = c->off_given;
  memcpy(buf + 15, c->s, 6 * sizeof(double));
  memcpy(buf + THRUSTER_NFIXED, c->firing, (size_t)c->nt * 3 * sizeof(double));
  return need;
}

int hg_thruster_logic_load(void *state, const double *buf, int n, char *err, size_t errlen) {
  thruster_logic *c = state;
  int need = THRUSTER_NFIXED + 3 * c->nt;
  if (n != need)
    return fail(err, errlen, "thruster_logic: a checkpoint of %d numbers (expected %d)", n, need);
  memcpy(c->on, buf, 6 * sizeof(double));
  memcpy(c->off, buf + 6, 6 * sizeof(double));
  c->min_on = buf[12], c->pwm = buf[13], c->off_given = buf[14] != 0;
  memcpy(c->s, buf + 15, 6 * sizeof(double));
  memcpy(c->firing, buf + THRUSTER_NFIXED, (size_t)c->nt * 3 * sizeof(double));
  return 0;
}

/* ==== lookup ==== */

static const hg_builtin_ops builtin_ops[] = {
    {"attitude_pd", hg_attitude_pd_init, hg_attitude_pd_step, hg_attitude_pd_finish,
     hg_attitude_pd_set, hg_attitude_pd_save, hg_attitude_pd_load, attitude_params},
    {"joint_pd", hg_joint_pd_init, hg_joint_pd_step, hg_joint_pd_finish, hg_joint_pd_set,
     hg_joint_pd_save, hg_joint_pd_load, joint_params},
    {"thruster_logic", hg_thruster_logic_init, hg_thruster_logic_step, hg_thruster_logic_finish,
     hg_thruster_logic_set, hg_thruster_logic_save, hg_thruster_logic_load, thruster_params},
};

const char *const hg_builtin_types[] = {"attitude_pd", "joint_pd", "thruster_logic", NULL};

const hg_builtin_ops *hg_builtin_find(const char *type) {
  if (!type) return NULL;
  for (size_t i = 0; i < sizeof builtin_ops / sizeof builtin_ops[0]; i++)
    if (strcmp(builtin_ops[i].type, type) == 0) return &builtin_ops[i];
  return NULL;
}
