/* joint.c: joint transforms, motion subspaces, bias terms and group operations. */
#include "joint.h"

#include <math.h>
#include <string.h>

#define HG_PI 3.14159265358979323846

static const struct {
  const char *name;
  int nq, nv;
} joint_info[HG_JOINT_NTYPES] = {
    [HG_JOINT_FIXED] = {"fixed", 0, 0},           [HG_JOINT_REVOLUTE] = {"revolute", 1, 1},
    [HG_JOINT_PRISMATIC] = {"prismatic", 1, 1},   [HG_JOINT_HELICAL] = {"helical", 1, 1},
    [HG_JOINT_CYLINDRICAL] = {"cylindrical", 2, 2}, [HG_JOINT_UNIVERSAL] = {"universal", 2, 2},
    [HG_JOINT_PLANAR] = {"planar", 3, 3},         [HG_JOINT_SPHERICAL] = {"spherical", 4, 3},
    [HG_JOINT_FREE] = {"free", 7, 6},
};

int hg_joint_nq(hg_joint_type t) { return joint_info[t].nq; }
int hg_joint_nv(hg_joint_type t) { return joint_info[t].nv; }
const char *hg_joint_type_name(hg_joint_type t) {
  return (unsigned)t < HG_JOINT_NTYPES ? joint_info[t].name : "unknown";
}

/* the names and units of each type's q, v and generalized-force entries, and of the tangent
 * of q (nv entries: q (+) delta moves q by delta; rotations are rotation vectors in the child
 * frame, a free joint's translation too) */
typedef struct entry_names {
  const char *name[4][7], *unit[4][7];
} entry_names;
static const entry_names joint_entries[HG_JOINT_NTYPES] = {
    [HG_JOINT_REVOLUTE] = {{{"angle"}, {"rate"}, {"torque"}, {"angle"}},
                           {{"rad"}, {"rad/s"}, {"N m"}, {"rad"}}},
    [HG_JOINT_PRISMATIC] = {{{"slide"}, {"rate"}, {"force"}, {"slide"}},
                            {{"m"}, {"m/s"}, {"N"}, {"m"}}},
    /* the helical force is dual to the rate along S = (a, pitch a): N m */
    [HG_JOINT_HELICAL] = {{{"angle"}, {"rate"}, {"torque"}, {"angle"}},
                          {{"rad"}, {"rad/s"}, {"N m"}, {"rad"}}},
    [HG_JOINT_CYLINDRICAL] = {{{"angle", "slide"}, {"rate", "slide_rate"}, {"torque", "force"},
                               {"angle", "slide"}},
                              {{"rad", "m"}, {"rad/s", "m/s"}, {"N m", "N"}, {"rad", "m"}}},
    [HG_JOINT_UNIVERSAL] = {{{"angle1", "angle2"}, {"rate1", "rate2"}, {"torque1", "torque2"},
                             {"angle1", "angle2"}},
                            {{"rad", "rad"}, {"rad/s", "rad/s"}, {"N m", "N m"}, {"rad", "rad"}}},
    [HG_JOINT_PLANAR] = {{{"x", "y", "angle"}, {"vx", "vy", "rate"}, {"fx", "fy", "torque"},
                          {"x", "y", "angle"}},
                         {{"m", "m", "rad"}, {"m/s", "m/s", "rad/s"}, {"N", "N", "N m"},
                          {"m", "m", "rad"}}},
    [HG_JOINT_SPHERICAL] = {{{"qw", "qx", "qy", "qz"}, {"wx", "wy", "wz"}, {"mx", "my", "mz"},
                             {"rx", "ry", "rz"}},
                            {{"1", "1", "1", "1"}, {"rad/s", "rad/s", "rad/s"},
                             {"N m", "N m", "N m"}, {"rad", "rad", "rad"}}},
    [HG_JOINT_FREE] = {{{"x", "y", "z", "qw", "qx", "qy", "qz"},
                        {"wx", "wy", "wz", "vx", "vy", "vz"},
                        {"mx", "my", "mz", "fx", "fy", "fz"},
                        {"rx", "ry", "rz", "dx", "dy", "dz"}},
                       {{"m", "m", "m", "1", "1", "1", "1"},
                        {"rad/s", "rad/s", "rad/s", "m/s", "m/s", "m/s"},
                        {"N m", "N m", "N m", "N", "N", "N"},
                        {"rad", "rad", "rad", "m", "m", "m"}}},
};

const char *hg_joint_entry_name(hg_joint_type t, int what, int k, const char **unit) {
  if ((unsigned)t >= HG_JOINT_NTYPES || what < 0 || what > 3 || k < 0 ||
      k >= (what ? joint_info[t].nv : joint_info[t].nq))
    return NULL;
  if (unit) *unit = joint_entries[t].unit[what][k];
  return joint_entries[t].name[what][k];
}

int hg_joint_type_from_name(const char *name) {
  for (int t = 0; t < HG_JOINT_NTYPES; t++)
    if (strcmp(name, joint_info[t].name) == 0) return t;
  return -1;
}

/* u = a / |a|; -1 when a is zero or not finite */
static int unit(const double a[3], double u[3]) {
  double n = hg_v3_norm(a);
  if (!(n > 1e-12) || !isfinite(n)) return -1;
  for (int i = 0; i < 3; i++) u[i] = a[i] / n;
  return 0;
}

/* a unit vector orthogonal to n (n unit) */
static void orthogonal(const double n[3], double e[3]) {
  int k = fabs(n[0]) < fabs(n[1]) ? (fabs(n[0]) < fabs(n[2]) ? 0 : 2) : (fabs(n[1]) < fabs(n[2]) ? 1 : 2);
  double t[3] = {0, 0, 0}, d;
  t[k] = 1;
  d = hg_v3_dot(t, n);
  for (int i = 0; i < 3; i++) t[i] -= d * n[i];
  unit(t, e);
}

int hg_joint_init(hg_joint *j, hg_joint_type type, const double axis[3], const double axis2[3],
                  double pitch, const char **why) {
  static const double z[3] = {0, 0, 1};
  memset(j, 0, sizeof *j);
  j->type = type;
  j->pitch = pitch;
  if ((unsigned)type >= HG_JOINT_NTYPES) {
    *why = "unknown joint type";
    return -1;
  }
  if (!isfinite(pitch)) {
    *why = "pitch is not finite";
    return -1;
  }
  if (unit(axis ? axis : z, j->axis)) {
    *why = "axis is zero or not finite";
    return -1;
  }
  if (type == HG_JOINT_UNIVERSAL) {
    double d;
    if (!axis2 || unit(axis2, j->axis2)) {
      *why = "universal joint needs a non-zero second axis (axis2)";
      return -1;
    }
    d = hg_v3_dot(j->axis, j->axis2);
    if (fabs(d) > 1 - 1e-9) {
      *why = "universal joint axes are parallel";
      return -1;
    }
  } else if (type == HG_JOINT_PLANAR) {
    /* in-plane x axis: axis2 projected onto the plane, or any orthogonal direction */
    double t[3] = {0, 0, 0};
    if (axis2) {
      double d = hg_v3_dot(axis2, j->axis);
      for (int i = 0; i < 3; i++) t[i] = axis2[i] - d * j->axis[i];
    }
    if (unit(t, j->axis2)) orthogonal(j->axis, j->axis2);
  }
  return 0;
}

int hg_joint_axis_index(const hg_joint *j) {
  if (j->type != HG_JOINT_REVOLUTE) return -1;
  for (int e = 0; e < 3; e++)
    if (j->axis[e] == 1 && j->axis[(e + 1) % 3] == 0 && j->axis[(e + 2) % 3] == 0) return e;
  return -1;
}

int hg_joint_local_axis(const hg_joint *j) {
  return j->type == HG_JOINT_REVOLUTE ? 2 : j->type == HG_JOINT_PRISMATIC ? 5
       : j->type == HG_JOINT_FREE ? 6 : -1;
}

int hg_joint_walk(const hg_joint *j, const double Ro[9], int has_post) {
  if (has_post) return HG_WALK_GENERAL;
  if (j->type == HG_JOINT_PRISMATIC) return HG_WALK_PRISMATIC;
  if (j->type == HG_JOINT_SPHERICAL) return HG_WALK_SPHERICAL;
  if (j->type == HG_JOINT_FREE) return HG_WALK_FREE;
  if (j->type != HG_JOINT_REVOLUTE) return HG_WALK_GENERAL;
  int k = hg_joint_axis_index(j);
  int pure = Ro[0] == 1 && Ro[4] == 1 && Ro[8] == 1 && Ro[1] == 0 && Ro[2] == 0 && Ro[3] == 0 &&
             Ro[5] == 0 && Ro[6] == 0 && Ro[7] == 0;
  if (k < 0) return HG_WALK_FOLD;
  return (pure ? HG_WALK_X : HG_WALK_XR) + k;
}

void hg_joint_fold_init(const hg_joint *j, const double Ro[9], hg_joint_fold *f) {
  memset(f, 0, sizeof *f);
  if (j->type != HG_JOINT_REVOLUTE) return;
  /* the three terms of Rodrigues' formula in the joint frame: a a^T, 1 - a a^T, a^ */
  const double *a = j->axis;
  double T[3][9];
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++) T[0][3 * r + c] = a[r] * a[c], T[1][3 * r + c] = (r == c) - a[r] * a[c];
  hg_m3_skew(a, T[2]);
  for (int t = 0; t < 3; t++) {
    double P[9];
    hg_m3_mul(Ro, T[t], P);
    for (int r = 0; r < 3; r++)
      for (int c = 0; c < 3; c++) f->C[t][r][c] = P[3 * r + c];
  }
  /* lane 3: R_o a in C0's rows (zero in the others, from the memset) */
  double ap[3];
  hg_m3_mulv(Ro, a, ap);
  for (int r = 0; r < 3; r++) f->C[0][r][3] = ap[r];
}

/* R = rotation by angle t about unit axis a (Rodrigues) */
static void axis_rotation(const double a[3], double t, double R[9]) {
  double s = sin(t), c = cos(t), v = 1 - c;
  double x = a[0], y = a[1], z = a[2];
  R[0] = c + v * x * x;     R[1] = v * x * y - s * z; R[2] = v * x * z + s * y;
  R[3] = v * x * y + s * z; R[4] = c + v * y * y;     R[5] = v * y * z - s * x;
  R[6] = v * x * z - s * y; R[7] = v * y * z + s * x; R[8] = c + v * z * z;
}

/* planar in-plane y axis: axis x axis2 */
static void planar_y(const hg_joint *j, double e2[3]) { hg_v3_cross(j->axis, j->axis2, e2); }

void hg_joint_transform(const hg_joint *j, const double *q, hg_se3 *T) {
  const double *a = j->axis;
  hg_se3_identity(T);
  switch (j->type) {
  case HG_JOINT_FIXED:
  case HG_JOINT_NTYPES:
    break;
  case HG_JOINT_REVOLUTE:
    axis_rotation(a, q[0], T->R);
    break;
  case HG_JOINT_PRISMATIC:
    for (int i = 0; i < 3; i++) T->p[i] = a[i] * q[0];
    break;
  case HG_JOINT_HELICAL:
    axis_rotation(a, q[0], T->R);
    for (int i = 0; i < 3; i++) T->p[i] = j->pitch * a[i] * q[0];
    break;
  case HG_JOINT_CYLINDRICAL:
    axis_rotation(a, q[0], T->R);
    for (int i = 0; i < 3; i++) T->p[i] = a[i] * q[1];
    break;
  case HG_JOINT_UNIVERSAL: {
    double R1[9], R2[9];
    axis_rotation(a, q[0], R1);
    axis_rotation(j->axis2, q[1], R2);
    hg_m3_mul(R1, R2, T->R);
    break;
  }
  case HG_JOINT_PLANAR: {
    double e2[3];
    planar_y(j, e2);
    axis_rotation(a, q[2], T->R);
    for (int i = 0; i < 3; i++) T->p[i] = q[0] * j->axis2[i] + q[1] * e2[i];
    break;
  }
  case HG_JOINT_SPHERICAL:
    hg_quat_to_R(q, T->R);
    break;
  case HG_JOINT_FREE:
    hg_quat_to_R(q + 3, T->R);
    for (int i = 0; i < 3; i++) T->p[i] = q[i];
    break;
  }
}

void hg_joint_motion(const hg_joint *j, const double *q, double *S) {
  const double *a = j->axis;
  memset(S, 0, 6 * (size_t)hg_joint_nv(j->type) * sizeof(double));
  switch (j->type) {
  case HG_JOINT_FIXED:
  case HG_JOINT_NTYPES:
    break;
  case HG_JOINT_REVOLUTE:
    memcpy(S, a, 3 * sizeof(double));
    break;
  case HG_JOINT_PRISMATIC:
    memcpy(S + 3, a, 3 * sizeof(double));
    break;
  case HG_JOINT_HELICAL:
    /* the axis is fixed by the joint's rotation, so the slide is along a in the child frame too */
    for (int i = 0; i < 3; i++) S[i] = a[i], S[3 + i] = j->pitch * a[i];
    break;
  case HG_JOINT_CYLINDRICAL:
    memcpy(S, a, 3 * sizeof(double));
    memcpy(S + 9, a, 3 * sizeof(double));
    break;
  case HG_JOINT_UNIVERSAL: {
    /* w = R2^T a1 q0' + a2 q1' */
    double R2[9];
    axis_rotation(j->axis2, q[1], R2);
    hg_m3_mulTv(R2, a, S);
    memcpy(S + 6, j->axis2, 3 * sizeof(double));
    break;
  }
  case HG_JOINT_PLANAR: {
    /* v = R^T (e1 x' + e2 y'), w = n theta' */
    double R[9], e2[3];
    planar_y(j, e2);
    axis_rotation(a, q[2], R);
    hg_m3_mulTv(R, j->axis2, S + 3);
    hg_m3_mulTv(R, e2, S + 9);
    memcpy(S + 12, a, 3 * sizeof(double));
    break;
  }
  case HG_JOINT_SPHERICAL:
    S[0] = S[7] = S[14] = 1;
    break;
  case HG_JOINT_FREE:
    for (int k = 0; k < 6; k++) S[7 * k] = 1;
    break;
  }
}

void hg_joint_bias(const hg_joint *j, const double *q, const double *v, double c[6]) {
  memset(c, 0, 6 * sizeof(double));
  if (j->type == HG_JOINT_UNIVERSAL) {
    /* d/dt (R2^T a1) = (R2^T a1) x a2 q1', so c = q0' q1' (R2^T a1) x a2 */
    double R2[9], b[3];
    axis_rotation(j->axis2, q[1], R2);
    hg_m3_mulTv(R2, j->axis, b);
    hg_v3_cross(b, j->axis2, c);
    for (int i = 0; i < 3; i++) c[i] *= v[0] * v[1];
  } else if (j->type == HG_JOINT_PLANAR) {
    /* d/dt R^T = -n^ R^T theta', so c = (0, -theta' n x v_lin) */
    double S[18];
    hg_joint_motion(j, q, S);
    double vl[3] = {S[3] * v[0] + S[9] * v[1], S[4] * v[0] + S[10] * v[1], S[5] * v[0] + S[11] * v[1]};
    hg_v3_cross(j->axis, vl, c + 3);
    for (int i = 3; i < 6; i++) c[i] *= -v[2];
  }
}

int hg_joint_galilean(const hg_joint *j, const double *v, double *vr, double *xi) {
  int nv = hg_joint_nv(j->type), moves = 0;
  for (int k = 0; k < nv; k++) vr[k] = v[k], xi[k] = 0;
  switch (j->type) {
  case HG_JOINT_FREE:
    /* body twist (w, v): the frame moving with the origin sees (w, 0); d/dt of the body-frame
     * v = R^T u carries -w x v */
    vr[3] = vr[4] = vr[5] = 0;
    hg_v3_cross(v, v + 3, xi + 3);
    moves = 1;
    break;
  case HG_JOINT_PLANAR:
    vr[0] = vr[1] = 0;
    moves = 1;
    break;
  case HG_JOINT_PRISMATIC:
    vr[0] = 0;
    moves = 1;
    break;
  case HG_JOINT_CYLINDRICAL:
    vr[1] = 0;
    moves = 1;
    break;
  default:
    break;
  }
  return moves;
}

void hg_joint_integrate(const hg_joint *j, const double *q, const double *dv, double h,
                        double *qout) {
  switch (j->type) {
  case HG_JOINT_SPHERICAL: {
    double w[3] = {h * dv[0], h * dv[1], h * dv[2]}, e[4];
    hg_quat_exp(w, e);
    hg_quat_mul(q, e, qout);
    hg_quat_normalize(qout);
    break;
  }
  case HG_JOINT_FREE: {
    /* (p, R) exp(h V): p += R J_l(h w) h v, R = R exp(h w) */
    double xi[6], e[4], J[9], t[3], d[3], R[9];
    for (int i = 0; i < 6; i++) xi[i] = h * dv[i];
    hg_quat_to_R(q + 3, R);
    hg_so3_jl(xi, J);
    hg_m3_mulv(J, xi + 3, t);
    hg_m3_mulv(R, t, d);
    for (int i = 0; i < 3; i++) qout[i] = q[i] + d[i];
    hg_quat_exp(xi, e);
    hg_quat_mul(q + 3, e, qout + 3);
    hg_quat_normalize(qout + 3);
    break;
  }
  default:
    for (int i = 0; i < hg_joint_nv(j->type); i++) qout[i] = q[i] + h * dv[i];
    break;
  }
}

void hg_joint_difference_any(const hg_joint *j, const double *q0, const double *q1,
                             double *dv) {
  switch (j->type) {
  case HG_JOINT_SPHERICAL: {
    double c[4] = {q0[0], -q0[1], -q0[2], -q0[3]}, r[4];
    hg_quat_mul(c, q1, r);
    hg_quat_log(r, dv);
    break;
  }
  case HG_JOINT_FREE: {
    hg_se3 T0, T1, D;
    hg_joint_transform(j, q0, &T0);
    hg_joint_transform(j, q1, &T1);
    hg_se3_invmul(&T0, &T1, &D);
    hg_se3_log(&D, dv);
    break;
  }
  default:
    for (int i = 0, nv = joint_info[j->type].nv; i < nv; i++) dv[i] = q1[i] - q0[i];
    break;
  }
}

void hg_joint_chart_rate(const hg_joint *j, const double *xi, const double *v, double *xidot) {
  if (j->type == HG_JOINT_SPHERICAL) {
    double J[9];
    hg_so3_jr_inv(xi, J);
    hg_m3_mulv(J, v, xidot);
  } else if (j->type == HG_JOINT_FREE) {
    double J[36];
    hg_se3_jr_inv(xi, J);
    hg_m6_mulv(J, v, xidot);
  } else {
    for (int k = 0; k < hg_joint_nv(j->type); k++) xidot[k] = v[k];
  }
}

int hg_joint_dof_is_angular(hg_joint_type type, int k) {
  switch (type) {
  case HG_JOINT_REVOLUTE:
  case HG_JOINT_HELICAL:
  case HG_JOINT_UNIVERSAL:
  case HG_JOINT_SPHERICAL:
    return 1;
  case HG_JOINT_CYLINDRICAL:
    return k == 0;
  case HG_JOINT_PLANAR:
    return k == 2;
  case HG_JOINT_FREE:
    return k < 3;
  default:
    return 0;
  }
}

void hg_joint_neutral(const hg_joint *j, double *q) {
  memset(q, 0, (size_t)hg_joint_nq(j->type) * sizeof(double));
  if (j->type == HG_JOINT_SPHERICAL) q[0] = 1;
  if (j->type == HG_JOINT_FREE) q[3] = 1;
}

void hg_joint_normalize(const hg_joint *j, double *q) {
  if (j->type == HG_JOINT_SPHERICAL) hg_quat_normalize(q);
  if (j->type == HG_JOINT_FREE) hg_quat_normalize(q + 3);
}

/* ---- random numbers ---- */

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

void hg_rng_seed(hg_rng *r, uint64_t seed) {
  /* splitmix64 expands the seed */
  for (int i = 0; i < 4; i++) {
    uint64_t z = (seed += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    r->s[i] = z ^ (z >> 31);
  }
}

double hg_rng_uniform(hg_rng *r) {
  uint64_t *s = r->s;
  uint64_t result = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
  s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl(s[3], 45);
  return (double)(result >> 11) * 0x1.0p-53;
}

double hg_rng_range(hg_rng *r, double lo, double hi) { return lo + (hi - lo) * hg_rng_uniform(r); }

/* a uniformly distributed unit quaternion (Shoemake) */
static void random_quat(hg_rng *r, double q[4]) {
  double u1 = hg_rng_uniform(r), u2 = 2 * HG_PI * hg_rng_uniform(r), u3 = 2 * HG_PI * hg_rng_uniform(r);
  double a = sqrt(1 - u1), b = sqrt(u1);
  q[0] = a * sin(u2); q[1] = a * cos(u2); q[2] = b * sin(u3); q[3] = b * cos(u3);
  if (q[0] < 0)
    for (int i = 0; i < 4; i++) q[i] = -q[i];
}

void hg_joint_random(const hg_joint *j, hg_rng *r, double *q) {
  switch (j->type) {
  case HG_JOINT_PRISMATIC:
    q[0] = hg_rng_range(r, -1, 1);
    break;
  case HG_JOINT_CYLINDRICAL:
    q[0] = hg_rng_range(r, -HG_PI, HG_PI);
    q[1] = hg_rng_range(r, -1, 1);
    break;
  case HG_JOINT_PLANAR:
    q[0] = hg_rng_range(r, -1, 1);
    q[1] = hg_rng_range(r, -1, 1);
    q[2] = hg_rng_range(r, -HG_PI, HG_PI);
    break;
  case HG_JOINT_SPHERICAL:
    random_quat(r, q);
    break;
  case HG_JOINT_FREE:
    for (int i = 0; i < 3; i++) q[i] = hg_rng_range(r, -1, 1);
    random_quat(r, q + 3);
    break;
  default:
    for (int i = 0; i < hg_joint_nq(j->type); i++) q[i] = hg_rng_range(r, -HG_PI, HG_PI);
    break;
  }
}

/* ---- inverses of the joint map and joint reversal ---- */

/* the angle t whose rotation about unit axis a is nearest R: t maximizes tr(Rot(a, t)^T R),
 * exact when R is such a rotation */
static double axis_angle_fit(const double a[3], const double R[9]) {
  double w[3] = {R[7] - R[5], R[2] - R[6], R[3] - R[1]}, Ra[3];
  hg_m3_mulv(R, a, Ra);
  return atan2(hg_v3_dot(a, w), R[0] + R[4] + R[8] - hg_v3_dot(a, Ra));
}

/* the angle about unit axis a that turns u into w, both projected onto the plane normal to a */
static double axis_angle_between(const double a[3], const double u[3], const double w[3]) {
  double c[3];
  hg_v3_cross(u, w, c);
  return atan2(hg_v3_dot(a, c), hg_v3_dot(u, w) - hg_v3_dot(a, u) * hg_v3_dot(a, w));
}

/* helical angle: from the rotation, plus the whole turns that best explain the slide */
static double helical_angle(const hg_joint *j, const hg_se3 *T) {
  double t = axis_angle_fit(j->axis, T->R);
  if (j->pitch != 0) {
    double turns = (hg_v3_dot(j->axis, T->p) / j->pitch - t) / (2 * HG_PI);
    if (isfinite(turns)) t += 2 * HG_PI * round(turns);
  }
  return t;
}

/* universal angles: R a2 = Rot(a1, q0) a2 fixes q0, then Rot(a1, q0)^T R = Rot(a2, q1) */
static void universal_angles(const hg_joint *j, const double R[9], double q[2]) {
  double Ra2[3], R1[9], R2[9];
  hg_m3_mulv(R, j->axis2, Ra2);
  q[0] = axis_angle_between(j->axis, j->axis2, Ra2);
  axis_rotation(j->axis, q[0], R1);
  hg_m3_mulT(R1, R, R2);
  q[1] = axis_angle_fit(j->axis2, R2);
}

/* e = max(e, d), letting a NaN through */
static double worse(double e, double d) { return (d > e || isnan(d)) ? d : e; }

/* how far T_joint(q) is from T: rotation entries, translation relative to max(1, |p|) */
static double joint_residual(const hg_joint *j, const double *q, const hg_se3 *T) {
  hg_se3 Tq;
  double e = 0, s = 1;
  hg_joint_transform(j, q, &Tq);
  for (int i = 0; i < 9; i++) e = worse(e, fabs(Tq.R[i] - T->R[i]));
  for (int i = 0; i < 3; i++) s = worse(s, fabs(T->p[i]));
  for (int i = 0; i < 3; i++) e = worse(e, fabs(Tq.p[i] - T->p[i]) / s);
  return e;
}

int hg_joint_configuration(const hg_joint *j, const hg_se3 *T, double *q) {
  const double *a = j->axis, *p = T->p;
  switch (j->type) {
  case HG_JOINT_REVOLUTE:
    q[0] = axis_angle_fit(a, T->R);
    break;
  case HG_JOINT_PRISMATIC:
    q[0] = hg_v3_dot(a, p);
    break;
  case HG_JOINT_HELICAL:
    q[0] = helical_angle(j, T);
    break;
  case HG_JOINT_CYLINDRICAL:
    q[0] = axis_angle_fit(a, T->R);
    q[1] = hg_v3_dot(a, p);
    break;
  case HG_JOINT_UNIVERSAL:
    universal_angles(j, T->R, q);
    break;
  case HG_JOINT_PLANAR: {
    double e2[3];
    planar_y(j, e2);
    q[0] = hg_v3_dot(j->axis2, p);
    q[1] = hg_v3_dot(e2, p);
    q[2] = axis_angle_fit(a, T->R);
    break;
  }
  case HG_JOINT_SPHERICAL:
    hg_R_to_quat(T->R, q);
    break;
  case HG_JOINT_FREE:
    for (int i = 0; i < 3; i++) q[i] = p[i];
    hg_R_to_quat(T->R, q + 3);
    break;
  default:
    break;
  }
  return joint_residual(j, q, T) <= 1e-9 ? 0 : -1;
}

void hg_joint_velocity(const hg_joint *j, const double *q, const double V[6], double *v) {
  int nv = hg_joint_nv(j->type);
  double S[6 * HG_JOINT_MAXNV], A[9], b[3] = {0, 0, 0}, x[3];
  /* a free joint's motion subspace is the identity */
  if (nv == 6) {
    for (int k = 0; k < 6; k++) v[k] = V[k];
    return;
  }
  if (nv == 0) return;
  /* normal equations S^T S v = S^T V, padded to 3 x 3 with the identity */
  hg_joint_motion(j, q, S);
  hg_m3_identity(A);
  for (int r = 0; r < nv; r++) {
    b[r] = hg_dot6(S + 6 * r, V);
    for (int c = 0; c < nv; c++) A[3 * r + c] = hg_dot6(S + 6 * r, S + 6 * c);
  }
  if (hg_m3_solve(A, b, x))
    for (int r = 0; r < 3; r++) x[r] = 0;
  for (int r = 0; r < nv; r++) v[r] = x[r];
}

/* the reversed joint's parameters: universal swaps its axes, every other type keeps them */
static void reverse_parameters(const hg_joint *j, hg_joint *jr) {
  *jr = *j;
  if (j->type != HG_JOINT_UNIVERSAL) return;
  for (int i = 0; i < 3; i++) jr->axis[i] = j->axis2[i], jr->axis2[i] = j->axis[i];
}

/* q or v of the joint seen from the child, for the joints whose coordinates are R^n */
static void reverse_linear(const hg_joint *j, const double *x, double *xr) {
  if (j->type == HG_JOINT_UNIVERSAL) {
    double x0 = x[0];
    xr[0] = -x[1];
    xr[1] = -x0;
    return;
  }
  for (int k = 0; k < hg_joint_nv(j->type); k++) xr[k] = -x[k];
}

/* the inverse pose of a spherical or free joint: conjugate quaternion, position -R^T p */
static void reverse_group(const hg_joint *j, const double *q, double *qr) {
  int is_free = j->type == HG_JOINT_FREE;
  const double *u = q + (is_free ? 3 : 0);
  double *ur = qr + (is_free ? 3 : 0), R[9], t[3];
  if (is_free) {
    hg_quat_to_R(u, R);
    hg_m3_mulTv(R, q, t);
    for (int i = 0; i < 3; i++) qr[i] = -t[i];
  }
  ur[0] = u[0];
  for (int i = 1; i < 4; i++) ur[i] = -u[i];
}

/* the parent's twist relative to the child, in the reversed joint's child frame: -Ad_T (S v) */
static void reverse_twist(const hg_joint *j, const double *q, const double *v, double *vr) {
  double S[6 * HG_JOINT_MAXNV], V[6] = {0, 0, 0, 0, 0, 0}, W[6];
  hg_se3 T;
  int nv = hg_joint_nv(j->type);
  hg_joint_motion(j, q, S);
  for (int k = 0; k < nv; k++)
    for (int r = 0; r < 6; r++) V[r] += S[6 * k + r] * v[k];
  hg_joint_transform(j, q, &T);
  hg_Ad(&T, V, W);
  for (int r = 0; r < nv; r++) vr[r] = -W[r];
}

int hg_joint_reverse(const hg_joint *j, const double *q, const double *v, hg_joint *jr, double *qr,
                     double *vr) {
  if (j->type == HG_JOINT_PLANAR || (unsigned)j->type >= HG_JOINT_NTYPES) return -1;
  reverse_parameters(j, jr);
  /* spherical and free: group inverse and -Ad_T V; the others: negated (swapped) coordinates */
  if (j->type == HG_JOINT_SPHERICAL || j->type == HG_JOINT_FREE) {
    if (q) reverse_group(j, q, qr);
    if (q && v) reverse_twist(j, q, v, vr);
  } else {
    if (q) reverse_linear(j, q, qr);
    if (v) reverse_linear(j, v, vr);
  }
  return 0;
}

void hg_joint_tangent_drift(const hg_joint *j, const double *v0, double *D) {
  int nv = hg_joint_nv(j->type);
  for (int k = 0; k < nv * nv; k++) D[k] = 0;
  if (j->type == HG_JOINT_SPHERICAL) {
    /* q = q0 exp(d): exp(d)^-1 d/dt exp(d) = v - Ad_{exp(-d)} v0 ~ dv - w0 x d */
    double S[9];
    hg_m3_skew(v0, S);
    for (int k = 0; k < 9; k++) D[k] = -S[k];
  } else if (j->type == HG_JOINT_FREE) {
    double A[36];
    hg_ad_matrix(v0, A);
    for (int k = 0; k < 36; k++) D[k] = -A[k];
  }
}
